-- Processes, workers and engines (docs/design.md, "Processes,
-- streams, workers, engines"): processes are I/O streams, not background workers, so a batch
-- may have more processes than the server has worker slots; workers
-- overrides how many workers share them; the synchronous engine (one
-- process per worker) runs where io_uring cannot and is forced with
-- SET ranread.engine = sync, io_uring with SET ranread.engine = io_uring.
BEGIN;
SET client_min_messages = error;
SELECT plan(23);

\ir lib/runs.psql

\ir lib/util.psql


-- Reads per process of a batch, in process order
CREATE FUNCTION pg_temp.reads(label text) RETURNS bigint[]
LANGUAGE sql AS $$
    SELECT array_agg(reads ORDER BY process) FROM ranread_results
     WHERE batch = (SELECT batch FROM runs WHERE runs.label = reads.label)
$$;

SELECT ok((SELECT size_bytes = 67108864 FROM ranread_setup('64MB', target => 'tap_run_processes')),
    'a 64MB target');

-- More processes than worker slots (20 on a default server)
SELECT greatest(20, current_setting('max_worker_processes')::int + 4) AS many \gset
SELECT is(pg_temp.run('many', format($$%s, 200, target => 'tap_run_processes'$$, :many)), NULL,
    format('%s processes run on a server with max_worker_processes = %s', :many,
           current_setting('max_worker_processes')));
SELECT is((SELECT reads FROM runs WHERE label = 'many'), :many * 200::bigint,
    'every process does its iterations');
SELECT is(pg_temp.reads('many'), array_fill(200::bigint, ARRAY[:many]),
    'one row per process in ranread_results, each with its 200 reads');
SELECT is((SELECT ranread_hist_count(histogram) FROM ranread_batches
            WHERE batch = (SELECT batch FROM runs WHERE label = 'many')), :many * 200::bigint,
    'the batch''s merged histogram holds every I/O');
SELECT ok((SELECT workers BETWEEN 1 AND least(:many, current_setting('max_worker_processes')::int)
             FROM pg_temp.summary('many')),
    'the batch used no more workers than processes or worker slots');
SELECT is((SELECT engine FROM pg_temp.summary('many')), 'io_uring',
    'with io_uring (the default where the kernel allows it) one worker drives many processes');

-- workers overrides the worker count
-- workers => 1 runs four processes in one worker
SELECT pg_temp.setup_run('one worker', $$4, 200, target => 'tap_run_processes', workers => 1$$);
SELECT is((SELECT workers FROM pg_temp.summary('one worker')), 1, 'the summary says one worker');
SELECT is(pg_temp.reads('one worker'), ARRAY[200, 200, 200, 200]::bigint[],
    'and each of the four processes still did its 200 reads');
-- workers => 3 runs four processes in three workers
SELECT pg_temp.setup_run('three workers', $$4, 200, target => 'tap_run_processes', workers => 3$$);
SELECT is((SELECT workers FROM pg_temp.summary('three workers')), 3, 'the summary says three workers');
SELECT is(pg_temp.reads('three workers'), ARRAY[200, 200, 200, 200]::bigint[],
    'and each process did its 200 reads');
-- without workers the count is chosen
SELECT pg_temp.setup_run('default workers', $$4, 200, target => 'tap_run_processes'$$);
SELECT ok((SELECT workers BETWEEN 1 AND 4 FROM pg_temp.summary('default workers')),
    'no more workers than processes');

-- The synchronous engine
SET ranread.engine = sync;
-- with ranread.engine = sync a batch runs
SELECT pg_temp.setup_run('sync', $$4, 500, target => 'tap_run_processes'$$);
SELECT results_eq($$SELECT reads, writes, status FROM runs WHERE label = 'sync'$$,
    $$VALUES (2000::bigint, 0::bigint, 'completed'::text)$$,
    'the synchronous engine does every process''s iterations');
SELECT results_eq($$SELECT engine, workers FROM pg_temp.summary('sync')$$,
    $$VALUES ('sync'::text, 4)$$,
    'the summary says the synchronous engine ran, one worker per process');
SELECT is(pg_temp.reads('sync'), ARRAY[500, 500, 500, 500]::bigint[],
    'one row per process, each with its 500 reads');
SELECT is((SELECT count(*) FROM ranread_results
            WHERE batch = (SELECT batch FROM runs WHERE label = 'sync')
              AND (ranread_hist_count(histogram) <> reads + writes
                   OR NOT (min_ms <= p50_ms AND p50_ms <= p99_ms AND p99_ms <= p999_ms AND p999_ms <= max_ms))),
    0::bigint, 'its histograms hold every I/O and its percentiles are in order');
-- the synchronous engine writes too
SELECT pg_temp.setup_run('sync writes', $$2, 1000, target => 'tap_run_processes', write_pct => 50$$);
SELECT ok((SELECT reads + writes = 2000 AND writes BETWEEN 800 AND 1200 FROM runs WHERE label = 'sync writes'),
    'about half of its I/Os are writes');
-- the synchronous engine runs for a duration
SELECT pg_temp.setup_run('sync duration', $$2, target => 'tap_run_processes', duration => '1s'$$, steady => true);
SELECT ok((SELECT seconds BETWEEN 0.9 AND 1.6 AND reads > 0 FROM runs WHERE label = 'sync duration'),
    'for about that long');
SELECT matches(pg_temp.error_of($$SELECT * FROM ranread_run(1, 10, target => 'tap_run_processes', queue_depth => 2)$$),
    '^0A000: queue_depth 2 needs the io_uring engine',
    'the synchronous engine refuses a queue depth above 1');
SELECT matches(pg_temp.error_of(format($$SELECT * FROM ranread_run(%s, 10, target => 'tap_run_processes')$$,
                                       current_setting('max_worker_processes')::int + 1)),
    format('^53400: processes %s is more than max_worker_processes \(%s\) allows with the synchronous engine',
           current_setting('max_worker_processes')::int + 1, current_setting('max_worker_processes')),
    'the synchronous engine refuses more processes than max_worker_processes, naming both');

-- io_uring, forced
SET ranread.engine = io_uring;
-- with ranread.engine = io_uring a batch runs
SELECT pg_temp.setup_run('io_uring', $$4, 500, target => 'tap_run_processes', queue_depth => 4$$);
SELECT results_eq($$SELECT reads, status FROM runs WHERE label = 'io_uring'$$,
    $$VALUES (2000::bigint, 'completed'::text)$$,
    'the io_uring engine does every process''s iterations');
SELECT is((SELECT engine FROM pg_temp.summary('io_uring')), 'io_uring', 'the summary says io_uring ran');

-- auto
RESET ranread.engine;
-- with ranread.engine = auto a batch runs
SELECT pg_temp.setup_run('auto', $$2, 100, target => 'tap_run_processes', workers => 1$$);
SELECT is((SELECT engine FROM pg_temp.summary('auto')),
    (SELECT CASE WHEN error IS NULL THEN 'io_uring' ELSE 'sync' END FROM runs WHERE label = 'io_uring'),
    'auto picks io_uring where it works');

-- The figures of every batch above, for the log
SELECT pg_temp.run_log();

SELECT * FROM finish();
ROLLBACK;
