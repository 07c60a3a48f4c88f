-- The workload options of ranread_run (docs/reference.md, "Reference"):
-- write_pct (a share of the I/Os write, counted apart, as valid pages of the
-- target only), queue_depth (I/Os in flight per process), block_size (mbps
-- follows) and pattern => 'sequential' with 1 MiB blocks (large sequential
-- reads).
BEGIN;
SET client_min_messages = error;
SELECT plan(28);

\ir lib/runs.psql

-- The batch's rows in ranread_results
CREATE FUNCTION pg_temp.procs(label text) RETURNS SETOF ranread_results
LANGUAGE sql AS $$
    SELECT * FROM ranread_results WHERE batch = (SELECT batch FROM runs WHERE runs.label = procs.label)
$$;

\ir lib/util.psql

-- Blocks of a target whose header is not that of a valid, empty heap page
CREATE FUNCTION pg_temp.bad_pages(target name) RETURNS bigint
LANGUAGE sql AS $$
    SELECT count(*)
      FROM ranread_target_catalog c, generate_series(0, c.size_bytes / 8192 - 1) AS b
     WHERE c.target = bad_pages.target
       AND substring(pg_read_binary_file(pg_relation_filepath(c.relid), b * 8192, 24) FROM 13 FOR 8)
           <> '\x1800002000200420'::bytea
$$;

-- Rows a superuser sees in a target, reading it through the server
CREATE FUNCTION pg_temp.count_rows(target name) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
    n bigint;
BEGIN
    EXECUTE format('SELECT count(*) FROM %s',
                   (SELECT relid::regclass FROM ranread_target_catalog c WHERE c.target = count_rows.target))
       INTO n;
    RETURN n;
END
$$;

SELECT ok((SELECT size_bytes = 67108864 FROM ranread_setup('64MB', target => 'tap_run_options')),
    'a 64MB target');
SELECT ok((SELECT size_bytes = 8388608 FROM ranread_setup('8MB', target => 'tap_run_options_other')),
    'and another target');
CREATE TEMP TABLE other_before AS SELECT * FROM pg_temp.blocks('tap_run_options_other');

-- write_pct
-- ranread_run(2, 5000, write_pct => 25) runs a batch
SELECT pg_temp.setup_run('25% writes', $$2, 5000, target => 'tap_run_options', write_pct => 25$$);
SELECT is((SELECT reads + writes FROM runs WHERE label = '25% writes'), 10000::bigint,
    'reads and writes add up to processes x iterations');
SELECT ok((SELECT writes::float8 / (reads + writes) BETWEEN 0.22 AND 0.28 FROM runs WHERE label = '25% writes'),
    'about 25% of the I/Os are writes');
SELECT ok((SELECT bool_and(writes::float8 / (reads + writes) BETWEEN 0.20 AND 0.30) FROM pg_temp.procs('25% writes')),
    'in every process');
SELECT results_eq($$SELECT sum(reads)::bigint, sum(writes)::bigint FROM pg_temp.procs('25% writes')$$,
    $$SELECT reads, writes FROM runs WHERE label = '25% writes'$$,
    'the processes'' reads and writes add up to the batch''s');
SELECT is((SELECT count(*) FROM pg_temp.procs('25% writes')
            WHERE ranread_hist_count(write_histogram) <> writes OR ranread_hist_count(histogram) <> reads + writes),
    0::bigint, 'each process keeps a histogram of its writes apart, and one of all its I/Os');
SELECT ok((SELECT read_avg_ms > 0 AND write_avg_ms > 0 AND read_p99_ms > 0 AND write_p99_ms > 0
             FROM pg_temp.summary('25% writes')),
    'the summary has read and write latencies apart');
SELECT ok((SELECT abs(avg_ms - (read_avg_ms * reads + write_avg_ms * writes) / (reads + writes)) <= 1e-6 * avg_ms
             FROM pg_temp.summary('25% writes')),
    'the batch''s average is its read and write averages weighted by their counts');
SELECT is((SELECT count(*) FROM pg_temp.procs('25% writes')
            WHERE read_avg_ms IS NULL OR write_avg_ms IS NULL OR write_p99_ms IS NULL),
    0::bigint, 'each process has read and write latencies apart');
SELECT is((SELECT write_pct FROM pg_temp.summary('25% writes')), 25, 'the summary records write_pct');

-- write_pct => 100 runs a batch
SELECT pg_temp.setup_run('all writes', $$1, 500, target => 'tap_run_options', write_pct => 100$$);
SELECT results_eq($$SELECT reads, writes FROM runs WHERE label = 'all writes'$$,
    $$VALUES (0::bigint, 500::bigint)$$, 'write_pct 100 only writes');

-- writes of 64 KiB (eight pages at once) run a batch
SELECT pg_temp.setup_run('64k writes', $$1, 200, target => 'tap_run_options', write_pct => 100, block_size => 65536$$);
SELECT is((SELECT writes FROM runs WHERE label = '64k writes'), 200::bigint, 'and write 200 times');

-- Writes land as valid pages, in the target only
SELECT is(pg_temp.bad_pages('tap_run_options'), 0::bigint,
    'after the writes every block of the target is still a valid, empty page');
SELECT is(pg_temp.count_rows('tap_run_options'), 0::bigint,
    'the server reads every written page without complaint, and finds no rows');
SELECT results_eq($$SELECT size_bytes, state FROM ranread_targets WHERE target = 'tap_run_options'$$,
    $$VALUES (67108864::bigint, 'ready'::text)$$, 'the target keeps its size and stays ready');
SELECT set_eq($$SELECT * FROM pg_temp.blocks('tap_run_options_other')$$,
    $$SELECT * FROM other_before$$,
    'writes never touch another target');

-- Reads only
-- write_pct 0 (the default) runs a batch
SELECT pg_temp.setup_run('reads', $$2, 1000, target => 'tap_run_options'$$);
SELECT ok((SELECT writes = 0 AND write_avg_ms IS NULL AND read_avg_ms > 0 FROM pg_temp.summary('reads')),
    'without write_pct a batch only reads, and has no write latency');

-- queue_depth raises throughput
-- one process at queue depth 1 runs a batch
SELECT pg_temp.setup_run('qd 1', $$1, 3000, target => 'tap_run_options', queue_depth => 1$$, steady => true);
-- one process at queue depth 16 runs a batch
SELECT pg_temp.setup_run('qd 16', $$1, 3000, target => 'tap_run_options', queue_depth => 16$$, steady => true);
SELECT cmp_ok((SELECT iops FROM runs WHERE label = 'qd 16'), '>', (SELECT 1.5 * iops FROM runs WHERE label = 'qd 1'),
    'queue depth 16 gives one process more than 1.5 times the IOPS of queue depth 1');
SELECT is((SELECT reads FROM runs WHERE label = 'qd 16'), 3000::bigint,
    'with I/Os in flight a process still does exactly its iterations');
SELECT is((SELECT queue_depth FROM pg_temp.summary('qd 16')), 16, 'the summary records the queue depth');
-- a queue deeper than the iterations runs a batch
SELECT pg_temp.setup_run('qd > iterations', $$3, 5, target => 'tap_run_options', queue_depth => 16$$);
SELECT is((SELECT reads FROM runs WHERE label = 'qd > iterations'), 15::bigint,
    'and does no more I/O than its iterations');

-- block_size: mbps follows
-- block_size => 65536 runs a batch
SELECT pg_temp.setup_run('64k', $$2, 500, target => 'tap_run_options', block_size => 65536$$);
SELECT ok((SELECT reads = 1000 AND abs(mbps - iops * 65536 / 1048576.0) <= 1e-9 * mbps FROM pg_temp.summary('64k')),
    'mbps is iops times the 64 KiB block size');
SELECT is((SELECT block_size FROM pg_temp.summary('64k')), 65536, 'the summary records the block size');
-- block_size => 4096 runs a batch
SELECT pg_temp.setup_run('4k', $$2, 500, target => 'tap_run_options', block_size => 4096$$);
SELECT ok((SELECT reads = 1000 AND abs(mbps - iops * 4096 / 1048576.0) <= 1e-9 * mbps FROM pg_temp.summary('4k')),
    'mbps is iops times the 4 KiB block size');

-- Large sequential reads
-- sequential 1 MiB reads at queue depth 8 run a batch
SELECT pg_temp.setup_run('sequential', $$1, 200, target => 'tap_run_options', block_size => 1048576,
                                     pattern => 'sequential', queue_depth => 8$$, steady => true);
SELECT ok((SELECT reads = 200 AND abs(mbps - iops) <= 1e-9 * mbps FROM pg_temp.summary('sequential')),
    'with 1 MiB blocks mbps equals iops');
SELECT results_eq($$SELECT pattern, block_size FROM pg_temp.summary('sequential')$$,
    $$VALUES ('sequential'::text, 1048576)$$, 'the summary records the pattern and block size');
SELECT cmp_ok((SELECT mbps FROM runs WHERE label = 'sequential'), '>', (SELECT 2 * mbps FROM runs WHERE label = 'qd 1'),
    'large sequential reads move more than twice the MB/s of random 8 KiB reads');

-- The figures of every batch above, for the log
SELECT pg_temp.run_log();

SELECT * FROM finish();
ROLLBACK;
