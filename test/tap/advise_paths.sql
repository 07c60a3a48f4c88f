-- ranread_advise from what the server path measured (docs/server-path.md), from a scripted history (no I/O):
--  - without server-path figures, effective_io_concurrency and
--    maintenance_io_concurrency follow the device path's curve, a model,
--    and say so
--  - with them (one process, random 8 KiB reads through shared buffers, at
--    two or more prefetch distances), both follow what PostgreSQL got:
--    the lowest distance reaching 90% of the best, citing those batches
--  - figures the caches made (cache_pct 50 or more) never count
--  - newer figures change the suggestion
--  - the device path's advice (random_page_cost) never rests on a
--    server-path batch
BEGIN;
SET LOCAL client_min_messages = warning;
SELECT plan(12);
\ir lib/util.psql

DELETE FROM ranread_batches;
DELETE FROM ranread_groups;
DELETE FROM ranread_target_catalog;
DELETE FROM ranread_durability;

-- A batch of the scripted history: one process's random 8 KiB reads on
-- tap_advise_paths, on the device path (queue depth qd) or the server path
-- (prefetch: effective_io_concurrency), with cache_pct of its reads from caches
CREATE FUNCTION pg_temp.batch(at timestamptz, path text, qd integer, prefetch integer,
                              iops float8, avg_ms float8, cache_pct float8 DEFAULT 1)
RETURNS bigint LANGUAGE sql AS $$
    INSERT INTO ranread_batches (batch, run_at, target, tablespace, processes, duration, block_size,
        queue_depth, write_pct, pattern, region_start, region_end, seed, workers, engine, reads,
        writes, seconds, iops, mbps, avg_ms, p99_ms, max_ms, status, groups, distribution,
        path, effective_io_concurrency, shared_hits, page_cache_hits, cache_pct)
    VALUES (nextval('ranread_batch_seq'), at, 'tap_advise_paths', 'pg_default', 1, '5s', 8192,
        qd, 0, 'random', 0, 100, 1, 1, CASE path WHEN 'server' THEN 'bufmgr' ELSE 'io_uring' END,
        (iops * 5)::bigint, 0, 5, iops, iops * 8192 / 1048576, avg_ms, avg_ms * 2, avg_ms * 4,
        'completed', 1, 'uniform', path, prefetch,
        CASE WHEN path = 'server' THEN 0 END,
        CASE WHEN path = 'server' THEN (iops * 5 * cache_pct / 100)::bigint END,
        CASE WHEN path = 'server' THEN cache_pct END)
    RETURNING batch
$$;
CREATE TEMP TABLE b (name text PRIMARY KEY, batch bigint);

SELECT ok((SELECT size_bytes = 8388608 FROM ranread_setup('8MB', target => 'tap_advise_paths')), 'a target');

-- 1. The device path's curve alone: a model
INSERT INTO b VALUES
    ('d1', pg_temp.batch(clock_timestamp(), 'device', 1, NULL, 500, 2.0)),
    ('d2', pg_temp.batch(clock_timestamp(), 'device', 2, NULL, 1000, 2.0)),
    ('d4', pg_temp.batch(clock_timestamp(), 'device', 4, NULL, 2000, 2.0)),
    ('d8', pg_temp.batch(clock_timestamp(), 'device', 8, NULL, 2100, 3.8));
CREATE TEMP TABLE a0 AS SELECT * FROM ranread_advise(target => 'tap_advise_paths');
SELECT results_eq($$SELECT suggested, formula LIKE 'the lowest concurrency (processes x queue depth)%', figures LIKE '%; a model: what PostgreSQL itself gets at each effective_io_concurrency, measured by ranread_paths, replaces it'
                      FROM a0 WHERE setting IN ('effective_io_concurrency', 'maintenance_io_concurrency') ORDER BY setting$$,
    $$VALUES ('4'::text, true, true), ('4', true, true)$$,
    'without server-path figures both settings follow the device path''s curve, and say it is a model');

-- 2. The server path measured: what PostgreSQL got at each prefetch distance
INSERT INTO b VALUES
    ('s0', pg_temp.batch(clock_timestamp(), 'server', 1, 0, 450, 2.2)),
    ('s1', pg_temp.batch(clock_timestamp(), 'server', 1, 1, 800, 1.2)),
    ('s2', pg_temp.batch(clock_timestamp(), 'server', 1, 2, 1400, 0.7)),
    ('s8', pg_temp.batch(clock_timestamp(), 'server', 1, 8, 3000, 0.33)),
    ('s4', pg_temp.batch(clock_timestamp(), 'server', 1, 4, 2800, 0.36)),
    -- the caches answered this one: memory's figures, never counted
    ('s16', pg_temp.batch(clock_timestamp(), 'server', 1, 16, 90000, 0.01, 80));
CREATE TEMP TABLE a1 AS SELECT * FROM ranread_advise(target => 'tap_advise_paths');
SELECT results_eq($$SELECT setting, suggested FROM a1 WHERE setting IN ('effective_io_concurrency', 'maintenance_io_concurrency') ORDER BY setting$$,
    $$VALUES ('effective_io_concurrency'::text, '4'::text), ('maintenance_io_concurrency', '4')$$,
    'with server-path figures both settings follow what PostgreSQL got: 4 reaches 90% of the best (3000 IOPS at 8)');
SELECT ok((SELECT formula LIKE 'measured, not modelled: the lowest effective_io_concurrency at which one process reading random 8 KiB blocks through shared buffers%'
             FROM a1 WHERE setting = 'effective_io_concurrency'),
    'its formula says it is measured, on the server path');
SELECT is((SELECT figures FROM a1 WHERE setting = 'effective_io_concurrency'),
    'one process''s random 8 KiB reads through shared buffers (path server) by effective_io_concurrency: 0: 450 IOPS at 2.200 ms average; 1: 800 IOPS at 1.200 ms average; 2: 1,400 IOPS at 0.700 ms average; 4: 2,800 IOPS at 0.360 ms average; 8: 3,000 IOPS at 0.330 ms average; peak 3,000 IOPS at 8 within 10 ms average; 90% of it from 4',
    'its figures give what PostgreSQL got at each distance, the peak and where 90% of it is reached');
SELECT is((SELECT batches FROM a1 WHERE setting = 'effective_io_concurrency'),
    (SELECT array_agg(batch ORDER BY batch) FROM b WHERE name IN ('s0', 's1', 's2', 's4', 's8')),
    'it cites the server-path batches it rests on, and no other');
SELECT ok((SELECT NOT (batches && (SELECT array_agg(batch) FROM b WHERE name = 's16')) FROM a1 WHERE setting = 'effective_io_concurrency')
          AND (SELECT figures NOT LIKE '%16:%' FROM a1 WHERE setting = 'effective_io_concurrency'),
    'a batch whose reads came from caches (cache_pct 80) does not count');
SELECT is((SELECT apply_sql FROM a1 WHERE setting = 'effective_io_concurrency'),
    'ALTER TABLESPACE pg_default SET (effective_io_concurrency = 4);', 'the SQL that would apply it');
SELECT ok((SELECT NOT (batches && (SELECT array_agg(batch) FROM b WHERE name LIKE 's%')) FROM a1 WHERE setting = 'random_page_cost'),
    'random_page_cost rests on device-path batches only');
SELECT is((SELECT array_agg(h.batch ORDER BY h.batch) FROM ranread_internal.ranread_advise_history('pg_default') h),
    (SELECT array_agg(batch ORDER BY batch) FROM b WHERE name LIKE 'd%'),
    '... the history the device path''s advice rests on holds no server-path batch');

-- 3. Newer figures change the suggestion: prefetching 1 block now gives 2950
INSERT INTO b VALUES
    ('s1b', pg_temp.batch(clock_timestamp(), 'server', 1, 1, 2950, 0.34)),
    ('s1c', pg_temp.batch(clock_timestamp(), 'server', 1, 1, 2950, 0.34)),
    ('s1d', pg_temp.batch(clock_timestamp(), 'server', 1, 1, 2950, 0.34));
CREATE TEMP TABLE a2 AS SELECT * FROM ranread_advise(target => 'tap_advise_paths');
SELECT is((SELECT suggested FROM a2 WHERE setting = 'effective_io_concurrency'), '1',
    'newer server-path figures change the suggestion (1 now reaches 90% of the best)');
SELECT ok((SELECT batches @> (SELECT array_agg(batch) FROM b WHERE name IN ('s1b', 's1c', 's1d')) FROM a2 WHERE setting = 'effective_io_concurrency'),
    '... and it cites them');

SELECT * FROM finish();
ROLLBACK;
