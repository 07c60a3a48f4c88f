-- rate_iops caps a batch's total I/O rate, paced evenly across its
-- processes, and latency counts from when each I/O was due, not when it
-- went out (docs/design.md, rule 4: no coordinated omission).
BEGIN;
SET client_min_messages = error;
SELECT plan(14);

\ir lib/runs.psql

SELECT ok((SELECT size_bytes = 67108864 FROM ranread_setup('64MB', target => 'tap_run_rate')),
    'a 64MB target');

-- A capped batch lands near its rate
-- ranread_run(2, duration => '2s', rate_iops => 400) runs a batch
SELECT pg_temp.setup_run('400 iops', $$2, target => 'tap_run_rate', duration => '2s', rate_iops => 400$$, steady => true);
SELECT ok((SELECT iops BETWEEN 340 AND 460 FROM runs WHERE label = '400 iops'),
    'it reports within 15% of 400 IOPS');
SELECT ok((SELECT reads BETWEEN 680 AND 920 FROM runs WHERE label = '400 iops'),
    'and did within 15% of 800 reads in its 2 seconds');
SELECT is((SELECT count(*) FROM pg_temp.intervals('400 iops') WHERE iops NOT BETWEEN 300 AND 500), 0::bigint,
    'every second of it ran within 25% of 400 IOPS');
SELECT ok((SELECT max(reads) - min(reads) <= 0.1 * max(reads) FROM ranread_results
            WHERE batch = (SELECT batch FROM runs WHERE label = '400 iops')),
    'the rate is shared evenly by the processes');

-- ranread_run(2, 100, rate_iops => 400) runs a batch
SELECT pg_temp.setup_run('rate with iterations', $$2, 100, target => 'tap_run_rate', rate_iops => 400$$, steady => true);
SELECT ok((SELECT reads = 200 AND seconds BETWEEN 0.42 AND 0.58 FROM runs WHERE label = 'rate with iterations'),
    '200 reads at 400 IOPS take about half a second');

-- a capped batch with I/Os in flight runs
SELECT pg_temp.setup_run('queue', $$2, target => 'tap_run_rate', duration => '1s', rate_iops => 200, queue_depth => 4$$, steady => true);
SELECT ok((SELECT iops BETWEEN 170 AND 230 FROM runs WHERE label = 'queue'),
    'queue depth does not lift the cap: within 15% of 200 IOPS');

SET ranread.engine = sync;
-- the synchronous engine runs a capped batch
SELECT pg_temp.setup_run('sync', $$2, target => 'tap_run_rate', duration => '2s', rate_iops => 200$$, steady => true);
SELECT ok((SELECT iops BETWEEN 170 AND 230 FROM runs WHERE label = 'sync'),
    'within 15% of its 200 IOPS');
RESET ranread.engine;

-- Asking for far more than the storage gives (200000 IOPS from one process
-- at queue depth 1): the I/Os fall further and further behind their
-- schedule, and the latency shows it.  Counted from issue instead, the
-- average would be the device's latency, a millisecond or less.
-- a batch paced far beyond what the storage gives runs
SELECT pg_temp.setup_run('overload', $$1, target => 'tap_run_rate', duration => '1s', rate_iops => 200000$$);
SELECT cmp_ok((SELECT avg_ms FROM runs WHERE label = 'overload'), '>', 100::float8,
    'its latency counts from when each I/O was due: after a second of falling behind, the average is above 100 ms');
SELECT cmp_ok((SELECT max_ms FROM runs WHERE label = 'overload'), '>', 300::float8,
    'and by the end of its second the I/Os were hundreds of milliseconds late');
SELECT ok((SELECT iops < 200000 * 0.9 FROM runs WHERE label = 'overload'),
    'it reports what the storage did, not the rate asked for');

-- A rate so low that no I/O falls due in the measured part: the slots are
-- due every 1 / rate_iops from the start of the warm-up, here at 0 and
-- 500 ms, and the measured part runs from 100 to 300 ms.  Nothing was
-- measured, so there are no figures to report as 'completed'.
-- ranread_run(1, duration => '200ms', warmup => '100ms', rate_iops => 2) runs a batch
SELECT pg_temp.setup_run('nothing due', $$1, target => 'tap_run_rate', duration => '200ms', warmup => '100ms', rate_iops => 2$$);
SELECT is((SELECT status || ' ' || reads FROM runs WHERE label = 'nothing due'), 'failed 0',
    'a batch whose rate leaves no I/O due in its measured part records failed, not completed with 0 IOPS');
SELECT is((SELECT message FROM pg_temp.summary('nothing due')),
    'no I/O was measured: at rate_iops 2 no I/O falls due in the 200 ms after the warm-up; a duration of at least 500 ms has one',
    'and its message says why, and what duration has an I/O due');
-- without the warm-up the first I/O is due at the start of the measured part
SELECT pg_temp.setup_run('one due', $$1, target => 'tap_run_rate', duration => '200ms', rate_iops => 2$$);
SELECT is((SELECT status || ' ' || reads FROM runs WHERE label = 'one due'), 'completed 1',
    'the same rate without a warm-up completes with its one I/O');

-- The figures of every batch above, for the log
SELECT pg_temp.run_log();

SELECT * FROM finish();
ROLLBACK;
