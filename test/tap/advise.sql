-- ranread_advise from a scripted history (no I/O): with no figures it says
-- what to run, stale batches (older than their target, another tablespace)
-- do not count and are named, each setting follows from its figures by its
-- formula, nothing is ever applied, and pg_monitor may ask.
BEGIN;
SET LOCAL client_min_messages = warning;
SELECT plan(39);
\ir lib/util.psql

-- This transaction's own history: what other tests left is set aside (and
-- comes back at ROLLBACK).
DELETE FROM ranread_batches;
DELETE FROM ranread_groups;
DELETE FROM ranread_target_catalog;
DELETE FROM ranread_durability;

-- A batch of the scripted history
CREATE FUNCTION pg_temp.batch(run_at timestamptz, target name, tablespace name, processes integer,
                              queue_depth integer, block_size integer, pattern text,
                              iops float8, avg_ms float8)
RETURNS bigint LANGUAGE sql AS $$
    INSERT INTO ranread_batches (batch, run_at, target, tablespace, processes, duration, block_size,
        queue_depth, write_pct, pattern, region_start, region_end, seed, workers, engine, reads,
        writes, seconds, iops, mbps, avg_ms, p99_ms, max_ms, status, groups, distribution)
    VALUES (nextval('ranread_batch_seq'), run_at, target, tablespace, processes, '5s', block_size,
        queue_depth, 0, pattern, 0, 100, 1, 1, 'io_uring', (iops * 5)::bigint, 0, 5, iops,
        iops * block_size / 1048576, avg_ms, avg_ms * 2, avg_ms * 4, 'completed', 1, 'uniform')
    RETURNING batch
$$;
CREATE TEMP TABLE b (name text PRIMARY KEY, batch bigint);

-- 1. No target and no history: every row says what to run, a target first
CREATE TEMP TABLE a0 AS SELECT * FROM ranread_advise();
SELECT results_eq('SELECT setting, scope FROM a0',
    $$VALUES ('random_page_cost', 'tablespace'), ('seq_page_cost', 'tablespace'),
             ('effective_io_concurrency', 'tablespace'), ('maintenance_io_concurrency', 'tablespace'),
             ('max_parallel_workers_per_gather', 'server'), ('wal_sync_method', 'server'),
             ('full_page_writes', 'server')$$,
    'one row per setting, with its scope');
SELECT is((SELECT count(*) FROM a0 WHERE suggested IS NULL AND apply_sql IS NULL AND to_measure IS NOT NULL
                                      AND figures LIKE 'missing: %'), 6::bigint,
    'with no history nothing is suggested, and every row says what is missing and what to run');
SELECT is((SELECT to_measure FROM a0 WHERE setting = 'random_page_cost'),
    format('SELECT * FROM ranread_setup(%L, tablespace => ''pg_default'', target => ''ranread''); '
           'SELECT * FROM ranread_run(1, target => ''ranread'', duration => ''00:00:02''); '
           'SELECT * FROM ranread_run(1, target => ''ranread'', duration => ''00:00:02'', block_size => 1048576, pattern => ''sequential'');',
           pg_size_pretty(greatest(2 * pg_size_bytes(current_setting('effective_cache_size')),
                                   2 * ranread_internal.ranread_ram_bytes(), pg_size_bytes('1GB')))),
    'page costs: make a target (twice the RAM and effective_cache_size), then a QD1 random and a sequential batch, as exact SQL');
SELECT is((SELECT to_measure FROM a0 WHERE setting = 'wal_sync_method'),
    'SELECT * FROM ranread_commit_test(duration => ''00:00:02'');',
    'wal_sync_method: a commit test on pg_wal');
SELECT results_eq($$SELECT server_value, tablespace_value FROM a0 WHERE setting = 'random_page_cost'$$,
    $$VALUES (current_setting('random_page_cost'), NULL::text)$$,
    'the current value at server level, and at tablespace level (none set)');

-- 2. A target, and only stale batches: older than the target, another tablespace
SELECT ok((SELECT size_bytes = 8388608 FROM ranread_setup('8MB', target => 'tap_advise')), 'a target');
INSERT INTO b VALUES
    ('old', pg_temp.batch(now() - interval '1 hour', 'tap_advise', 'pg_default', 1, 1, 8192, 'random', 200, 5)),
    ('elsewhere', pg_temp.batch(clock_timestamp(), 'tap_advise_far', 'tap_elsewhere', 1, 1, 8192, 'random', 300, 3));
CREATE TEMP TABLE a1 AS SELECT * FROM ranread_advise(duration => '10s');
SELECT is((SELECT suggested FROM a1 WHERE setting = 'random_page_cost'), NULL,
    'batches older than the target or from another tablespace do not count');
SELECT matches((SELECT figures FROM a1 WHERE setting = 'random_page_cost'),
    format('not counted: batch %s measured tablespace tap_elsewhere; batch %s is older than target tap_advise, made again at',
           (SELECT batch FROM b WHERE name = 'elsewhere'), (SELECT batch FROM b WHERE name = 'old')),
    'and the advice says which batches it left out, and why');
SELECT is((SELECT to_measure FROM a1 WHERE setting = 'effective_io_concurrency'),
    'SELECT * FROM ranread_sweep(start => 1, max_processes => 256, duration => ''00:00:10'', max_avg_ms => 10, target => ''tap_advise'');',
    'what to run names the tablespace''s target and the duration asked for');

-- 3. The figures of a device with 2000 read IOPS and 100 MiB/s sequential
INSERT INTO b VALUES
    ('qd1', pg_temp.batch(clock_timestamp(), 'tap_advise', 'pg_default', 1, 1, 8192, 'random', 2000, 0.5)),
    ('qd2', pg_temp.batch(clock_timestamp(), 'tap_advise', 'pg_default', 2, 1, 8192, 'random', 2002, 1.0)),
    ('qd4', pg_temp.batch(clock_timestamp(), 'tap_advise', 'pg_default', 1, 4, 8192, 'random', 2004, 2.0)),
    ('seq1', pg_temp.batch(clock_timestamp(), 'tap_advise', 'pg_default', 1, 1, 1048576, 'sequential', 100, 10)),
    ('seq4', pg_temp.batch(clock_timestamp(), 'tap_advise', 'pg_default', 4, 1, 1048576, 'sequential', 100, 40));
-- ... and a commit test on pg_wal
CREATE FUNCTION pg_temp.commit_row(method text, ops float8) RETURNS bigint LANGUAGE sql AS $$
    WITH x AS (
        INSERT INTO ranread_batches (batch, run_at, target, tablespace, filesystem, processes, seed,
            workers, engine, reads, writes, seconds, iops, status, commit_test, groups)
        VALUES (nextval('ranread_batch_seq'), clock_timestamp(), 'commit test', 'pg_wal', 'ext4', 1, 1, 1,
            'sync', 0, (ops * 5)::bigint, 5, ops, 'completed', 77, 1)
        RETURNING batch)
    INSERT INTO ranread_groups (batch, grp, label, target, tablespace, processes, block_size, queue_depth,
        write_pct, pattern, region_start, region_end, distribution, reads, writes, seconds, iops, mbps,
        histogram, sync, writes_per_op)
    SELECT x.batch, 1, 'one 8 kB write: ' || method || CASE WHEN method LIKE 'open%' THEN ' (buffered)' ELSE '' END,
           'commit test', 'pg_wal', 1, 8192, 1, 100, 'sequential',
           0, 100, 'uniform', 0, (ops * 5)::bigint, 5, ops, ops * 8192 / 1048576, '\x', method, 1
      FROM x
    RETURNING batch
$$;
-- five alternated rounds of each method, each within 1% of its figure
INSERT INTO b SELECT 'commit ' || m || ' ' || r, pg_temp.commit_row(m, o * (1 + 0.01 * CASE WHEN r = 1 THEN 0 WHEN r % 2 = 0 THEN 1 ELSE -1 END))
  FROM generate_series(1, 5) r,
       (VALUES ('open_datasync', 1300), ('fdatasync', 1000), ('fsync', 900), ('open_sync', 1200)) v(m, o)
 ORDER BY r;

CREATE TEMP TABLE a2 AS SELECT * FROM ranread_advise(cache_hit_ratio => 0);
SELECT results_eq('SELECT setting, suggested FROM a2',
    $$VALUES ('random_page_cost', '6.4'), ('seq_page_cost', '1.00'), ('effective_io_concurrency', '1'),
             ('maintenance_io_concurrency', '1'), ('max_parallel_workers_per_gather', '0'),
             ('wal_sync_method', 'open_datasync'), ('full_page_writes', 'on')$$,
    'a capped device: random 0.5 ms over 0.078 ms a page, I/O concurrency 1, no parallel workers, the fastest sync');
SELECT is((SELECT figures FROM a2 WHERE setting = 'random_page_cost'),
    format('QD1 random 8 KiB reads: 0.500 ms average (batch %s, %s; one batch: how much it varies is not known); sequential 1024 KiB reads, one process: 100 MiB/s, 0.0781 ms per 8 KiB page (batch %s, %s; one batch: how much it varies is not known); '
           'pg_default is the database''s default tablespace: its sequential page is the unit; cache hit ratio 0 (given)',
           (SELECT batch FROM b WHERE name = 'qd1'), (SELECT to_char(run_at, 'YYYY-MM-DD HH24:MI') FROM ranread_batches WHERE batch = (SELECT batch FROM b WHERE name = 'qd1')),
           (SELECT batch FROM b WHERE name = 'seq1'), (SELECT to_char(run_at, 'YYYY-MM-DD HH24:MI') FROM ranread_batches WHERE batch = (SELECT batch FROM b WHERE name = 'seq1'))),
    'the figures name the batches, times and the cache assumption');
SELECT is((SELECT batches FROM a2 WHERE setting = 'random_page_cost'),
    ARRAY[(SELECT batch FROM b WHERE name = 'qd1'), (SELECT batch FROM b WHERE name = 'seq1')],
    'and list the batches they rest on');
SELECT is((SELECT apply_sql FROM a2 WHERE setting = 'random_page_cost'),
    'ALTER TABLESPACE pg_default SET (random_page_cost = 6.4);', 'the SQL that would apply it');
SELECT is((SELECT apply_sql FROM a2 WHERE setting = 'seq_page_cost'), NULL,
    'a suggestion equal to what is set (1.00 is 1) needs nothing applied');
SELECT is((SELECT figures FROM a2 WHERE setting = 'effective_io_concurrency'),
    'random 8 KiB reads by concurrency (I/Os in flight): 1: 2,000 IOPS, 0.500 ms; 2: 2,002 IOPS, 1.000 ms; 4: 2,004 IOPS, 2.000 ms; peak 2,004 IOPS at 4 within 10 ms average; 90% of it from 1; a model: what PostgreSQL itself gets at each effective_io_concurrency, measured by ranread_paths, replaces it',
    'I/O concurrency: the curve by processes x queue depth, the peak, where 90% of it is reached; without figures of the server path, a model');
SELECT is((SELECT batches FROM a2 WHERE setting = 'effective_io_concurrency'),
    ARRAY[(SELECT batch FROM b WHERE name = 'qd1'), (SELECT batch FROM b WHERE name = 'qd2'),
          (SELECT batch FROM b WHERE name = 'qd4')],
    'the curve''s batches');
SELECT is((SELECT figures FROM a2 WHERE setting = 'max_parallel_workers_per_gather'),
    format('tablespace pg_default alone: sequential reads: one process 100 MiB/s (batch %s, %s; one batch: how much it varies is not known), the most with several 100 MiB/s, by 4 processes (batch %s, %s; one batch: how much it varies is not known): one process already reads as fast as several',
           (SELECT batch FROM b WHERE name = 'seq1'), (SELECT to_char(run_at, 'YYYY-MM-DD HH24:MI') FROM ranread_batches WHERE batch = (SELECT batch FROM b WHERE name = 'seq1')),
           (SELECT batch FROM b WHERE name = 'seq4'), (SELECT to_char(run_at, 'YYYY-MM-DD HH24:MI') FROM ranread_batches WHERE batch = (SELECT batch FROM b WHERE name = 'seq4'))),
    'parallel workers: one process reads as fast as four, on tablespace pg_default alone, as the figures say');
SELECT is((SELECT apply_sql FROM a2 WHERE setting = 'max_parallel_workers_per_gather'),
    'ALTER SYSTEM SET max_parallel_workers_per_gather = 0; SELECT pg_reload_conf();',
    'a server setting is applied with ALTER SYSTEM');
SELECT matches((SELECT figures FROM a2 WHERE setting = 'wal_sync_method'),
    '^commit test 77 on pg_wal \(ext4, [-0-9: ]+\), one 8 kB write and its sync: open_datasync 1,300 ops/s \(95% interval 1,284 to 1,316, 5 rounds\), '
    'open_sync 1,200 ops/s \(95% interval 1,185 to 1,215, 5 rounds\), fdatasync 1,000 ops/s \(95% interval 988 to 1,012, 5 rounds\), fsync 900 ops/s \(95% interval 889 to 911, 5 rounds\); '
    'open_datasync is 30% faster than fdatasync, the server''s wal_sync_method, beyond the noise: its 95% interval \(1,284 to 1,316 ops/s\) lies above fdatasync''s \(988 to 1,012\); no durability check on record: [^;]*$',
    'wal_sync_method: the commit test''s methods, fastest first, with their intervals, and how the fastest compares with the current one');
SELECT is((SELECT apply_sql FROM a2 WHERE setting = 'wal_sync_method'),
    'ALTER SYSTEM SET wal_sync_method = ''open_datasync''; SELECT pg_reload_conf();',
    'and the SQL to choose it');
SELECT is((SELECT count(*) FROM a2 WHERE to_measure IS NOT NULL), 0::bigint,
    'with every figure there is nothing to run');

-- PostgreSQL's cache assumption by default
SELECT is((SELECT suggested FROM ranread_advise() WHERE setting = 'random_page_cost'), '1.00',
    'with 90% of random reads cached, 6.4 x 0.1 is below seq_page_cost, so random_page_cost is 1');
SELECT matches((SELECT figures FROM ranread_advise() WHERE setting = 'random_page_cost'),
    'cache hit ratio 0.9 \(PostgreSQL''s assumption; give yours as cache_hit_ratio\)$',
    'and says the cache assumption is PostgreSQL''s');
-- Scaling sequential reads: four processes' worth
UPDATE ranread_batches SET iops = 400, mbps = 400 WHERE batch = (SELECT batch FROM b WHERE name = 'seq4');
SELECT is((SELECT suggested FROM ranread_advise() WHERE setting = 'max_parallel_workers_per_gather'), '3',
    'four times one process''s MiB/s with four processes: three workers and the leader');
-- The latency bound of the curve
SELECT is((SELECT suggested FROM ranread_advise(max_avg_ms => 0.75) WHERE setting = 'effective_io_concurrency'), NULL,
    'the curve counts only concurrencies within max_avg_ms (here one: no curve)');

-- Tablespace level: a value set there is the current one
ALTER TABLESPACE pg_default SET (effective_io_concurrency = 1);
SELECT results_eq($$SELECT tablespace_value, apply_sql FROM ranread_advise() WHERE setting = 'effective_io_concurrency'$$,
    $$VALUES ('1'::text, NULL::text)$$,
    'a value set on the tablespace is its current value, and when it is the suggestion there is nothing to apply');
ALTER TABLESPACE pg_default RESET (effective_io_concurrency);

-- 4. Nothing is ever applied
CREATE TEMP TABLE settings_before AS
SELECT (SELECT spcoptions FROM pg_tablespace WHERE spcname = 'pg_default') AS options,
       (SELECT array_agg(name || '=' || setting ORDER BY name) FROM pg_settings) AS settings,
       (SELECT array_agg(name || '=' || coalesce(setting, '') ORDER BY name) FROM pg_file_settings) AS files;
SELECT ok((SELECT count(*) > 0 FROM ranread_advise(cache_hit_ratio => 0) WHERE apply_sql IS NOT NULL),
    'advice with changes to apply ...');
SELECT is((SELECT row((SELECT spcoptions FROM pg_tablespace WHERE spcname = 'pg_default'),
                      (SELECT array_agg(name || '=' || setting ORDER BY name) FROM pg_settings),
                      (SELECT array_agg(name || '=' || coalesce(setting, '') ORDER BY name) FROM pg_file_settings))::text),
          (SELECT row(options, settings, files)::text FROM settings_before),
    '... applies none of them: tablespace options, settings and postgresql.auto.conf are as they were');

-- 5. Bad input, before anything runs
SELECT throws_ok($$SELECT * FROM ranread_advise('tap_no_such_tablespace')$$, '42704',
    'tablespace "tap_no_such_tablespace" does not exist', 'an unknown tablespace');
SELECT throws_ok($$SELECT * FROM ranread_advise('pg_global')$$, '22023',
    'tablespace of ranread_advise cannot be pg_global', 'pg_global takes no settings');
SELECT throws_ok($$SELECT * FROM ranread_advise(cache_hit_ratio => 1.5)$$, '22023',
    'invalid cache_hit_ratio 1.5 for ranread_advise', 'a cache hit ratio above 1');
SELECT throws_ok($$SELECT * FROM ranread_advise(cache_hit_ratio => NULL)$$, '22004',
    'cache_hit_ratio of ranread_advise must not be NULL', 'a NULL cache hit ratio');
SELECT throws_ok($$SELECT * FROM ranread_advise(max_avg_ms => 0)$$, '22023',
    'invalid max_avg_ms 0 for ranread_advise', 'a latency bound of 0');
SELECT throws_ok($$SELECT * FROM ranread_advise(measure => NULL)$$, '22004',
    'measure of ranread_advise must not be NULL', 'measure NULL');
SELECT throws_ok($$SELECT * FROM ranread_advise(target => 'tap_no_such_target')$$, '42704',
    'ranread target "tap_no_such_target" does not exist', 'an unknown target');
SELECT throws_ok($$SELECT * FROM ranread_advise(duration => '0s')$$, '22023',
    'invalid duration "00:00:00" for ranread_advise', 'a duration of 0');
DELETE FROM ranread_target_catalog;
SELECT throws_ok($$SELECT * FROM ranread_advise(measure => true)$$, '55000',
    'tablespace pg_default has no ranread target to measure with',
    'measuring needs a target in the tablespace');

-- 6. pg_monitor may ask for advice, from the history only
CREATE ROLE tap_advise_monitor IN ROLE pg_monitor;
SET LOCAL ROLE tap_advise_monitor;
SELECT is((SELECT suggested FROM ranread_advise(cache_hit_ratio => 0) WHERE setting = 'wal_sync_method'), 'open_datasync',
    'a member of pg_monitor gets advice from the history');
SELECT throws_ok($$SELECT * FROM ranread_advise(measure => true)$$, '42501',
    'permission denied to measure with ranread_advise',
    'but may not measure: that runs batches');
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;
