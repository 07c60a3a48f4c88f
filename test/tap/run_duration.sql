-- Time (docs/reference.md, "Reference"; docs/design.md, rule 6): duration runs
-- a batch that long; with both iterations and duration, whichever ends first;
-- warm-up I/O runs before measuring and counts nowhere, and seconds cover the
-- measured part only; ranread_intervals has a row per second measured. Margins
-- are generous: the figures must hold on a busy machine.
BEGIN;
SET client_min_messages = error;
SELECT plan(24);

\ir lib/runs.psql

SELECT ok((SELECT size_bytes = 67108864 FROM ranread_setup('64MB', target => 'tap_run_duration')),
    'a 64MB target');

-- duration alone
-- ranread_run(2, duration => '3s') runs a batch
SELECT pg_temp.setup_run('3s', $$2, target => 'tap_run_duration', duration => '3s'$$, steady => true);
SELECT ok((SELECT seconds BETWEEN 2.9 AND 3.5 FROM runs WHERE label = '3s'),
    'it measures for the duration');
SELECT ok((SELECT elapsed BETWEEN 2.9 AND 10 FROM runs WHERE label = '3s'),
    'and returns after about that long');
SELECT ok((SELECT reads > 0 AND status = 'completed' FROM runs WHERE label = '3s'),
    'it completes, with reads');
SELECT results_eq($$SELECT iterations, duration FROM pg_temp.summary('3s')$$,
    $$VALUES (NULL::bigint, '3s'::interval)$$,
    'the summary records the duration and no iterations');
SELECT is((SELECT count(*) FROM ranread_results
            WHERE batch = (SELECT batch FROM runs WHERE label = '3s')
              AND seconds BETWEEN 2.9 AND 3.5 AND reads > 0),
    2::bigint, 'each process ran for the duration');

-- ranread_intervals: one row per second
SELECT is(ARRAY(SELECT second FROM pg_temp.intervals('3s') ORDER BY second), ARRAY[0, 1, 2],
    'ranread_intervals has one row per second of a 3 s batch: seconds 0, 1 and 2');
SELECT results_eq($$SELECT sum(reads)::bigint, sum(writes)::bigint FROM pg_temp.intervals('3s')$$,
    $$SELECT reads, writes FROM runs WHERE label = '3s'$$,
    'the seconds add up to the batch''s reads and writes');
SELECT is((SELECT count(*) FROM pg_temp.intervals('3s')
            WHERE NOT (reads > 0 AND iops > 0 AND avg_ms > 0 AND avg_ms <= max_ms)),
    0::bigint, 'every second has reads, iops, and an average within its maximum');
SELECT ok((SELECT max(i.iops) <= 5 * r.iops
             FROM pg_temp.intervals('3s') i, runs r WHERE r.label = '3s' GROUP BY r.iops),
    'no second shows a rate far above the batch''s');
SELECT ok((SELECT max(i.max_ms) = s.max_ms FROM pg_temp.intervals('3s') i, pg_temp.summary('3s') s
            GROUP BY s.max_ms),
    'the worst second''s max_ms is the batch''s max_ms');

-- iterations and duration: whichever ends first
-- ranread_run(2, 50, duration => '60s') runs a batch
SELECT pg_temp.setup_run('iterations first', $$2, 50, target => 'tap_run_duration', duration => '60s'$$);
SELECT ok((SELECT reads = 100 AND status = 'completed' FROM runs WHERE label = 'iterations first'),
    'it stops after its iterations');
SELECT ok((SELECT elapsed < 15 FROM runs WHERE label = 'iterations first'),
    'long before the duration');
-- ranread_run(1, 1000000000, duration => '1s') runs a batch
SELECT pg_temp.setup_run('duration first', $$1, 1000000000, target => 'tap_run_duration', duration => '1s'$$, steady => true);
SELECT ok((SELECT reads BETWEEN 1 AND 999999999 AND status = 'completed' FROM runs WHERE label = 'duration first'),
    'it stops before its iterations');
SELECT ok((SELECT seconds BETWEEN 0.9 AND 1.5 AND elapsed < 6 FROM runs WHERE label = 'duration first'),
    'when the duration is up');
SELECT results_eq($$SELECT iterations, duration FROM pg_temp.summary('duration first')$$,
    $$VALUES (1000000000::bigint, '1s'::interval)$$,
    'the summary records both');

-- warmup
-- ranread_run(2, duration => '1s', warmup => '1s') runs a batch
SELECT pg_temp.setup_run('warmup', $$2, target => 'tap_run_duration', duration => '1s', warmup => '1s', rate_iops => 400$$, steady => true);
SELECT ok((SELECT elapsed >= 1.9 FROM runs WHERE label = 'warmup'),
    'the warm-up runs before the measured second');
SELECT ok((SELECT seconds BETWEEN 0.9 AND 1.5 FROM runs WHERE label = 'warmup'),
    'seconds cover the measured part only');
SELECT ok((SELECT reads BETWEEN 340 AND 460 FROM runs WHERE label = 'warmup'),
    'the warm-up''s I/Os are not counted: at 400 IOPS, about 400 reads in the measured second');
SELECT is((SELECT count(*) FROM pg_temp.intervals('warmup')), 1::bigint,
    'ranread_intervals covers the measured second only');
-- ranread_run(2, 100, warmup => '0.5s') runs a batch
SELECT pg_temp.setup_run('warmup iterations', $$2, 100, target => 'tap_run_duration', warmup => '0.5s'$$);
SELECT ok((SELECT reads = 200 AND status = 'completed' FROM runs WHERE label = 'warmup iterations'),
    'after the warm-up each process does exactly its iterations');
SELECT ok((SELECT elapsed >= 0.5 FROM runs WHERE label = 'warmup iterations'),
    'and the warm-up took its time first');
SELECT is((SELECT count(*) FROM ranread_results
            WHERE batch = (SELECT batch FROM runs WHERE label = 'warmup iterations')
              AND ranread_hist_count(histogram) = 100 AND reads = 100),
    2::bigint, 'the histograms hold the measured I/Os only');
SELECT ok((SELECT seconds < elapsed - 0.4 FROM runs WHERE label = 'warmup iterations'),
    'and seconds leave the warm-up out');

-- The figures of every batch above, for the log
SELECT pg_temp.run_log();

SELECT * FROM finish();
ROLLBACK;
