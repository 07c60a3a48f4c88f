-- The server path (docs/server-path.md): path => 'server' reads
-- the target's blocks through shared buffers and the page cache, as
-- PostgreSQL does, beside the device path's O_DIRECT reads.
--  - the options: path ('device' by default, or 'server') and
--    effective_io_concurrency (the prefetch distance, the server path's
--    only), in a spec and in a mix's groups; what the server path cannot
--    honour is refused before anything runs, naming the option
--  - a server-path batch reads real pages through the buffer manager: the
--    target's pg_statio counters move by exactly the reads it did
--  - it records its path, its engine (bufmgr), the prefetch distance in
--    force (the session's effective_io_concurrency, the tablespace's where
--    set, or the option's), what the caches answered and the settings
--  - a mix runs a server-path group beside a device-path group
--  - a target this transaction made is refused (its processes could not
--    lock it): the targets here are made, and purged, outside the test's
--    transaction
SET client_min_messages = error;
SELECT size_bytes FROM ranread_setup('64MB', target => 'tap_server') \gset
SELECT size_bytes AS size_w FROM ranread_setup('16MB', target => 'tap_server_w') \gset
BEGIN;
SELECT plan(48);

\ir lib/util.psql

SELECT is(:size_bytes::bigint, 67108864::bigint, 'a 64MB target, made and committed before the test');
SELECT is(:size_w::bigint, 16777216::bigint, 'and a 16MB one to write');
SAVEPOINT made_here;
SELECT ranread_setup('16MB', target => 'tap_server_new');
SELECT is(pg_temp.error_of($$SELECT * FROM ranread_run_step('{"path": "server", "groups": [{"processes": 1}], "target": "tap_server_new"}')$$),
    '55000: target "tap_server_new" is locked by this transaction, which made or changed it',
    'a target this transaction made is refused on the server path: its processes lock it as queries do');
SELECT is((SELECT status FROM ranread_run_step('{"iterations": 10, "groups": [{"processes": 1}], "target": "tap_server_new"}') WHERE grp = 0),
    'completed', '... while the device path reads it');
ROLLBACK TO made_here;

-- The options
SELECT results_eq($$SELECT name, level, type::regtype::text, default_value, minimum, maximum FROM ranread_options()
                     WHERE name IN ('path', 'effective_io_concurrency') ORDER BY name$$,
    $$VALUES ('effective_io_concurrency'::text, 'batch or group'::text, 'integer'::text, NULL::text, 0::bigint, 1000::bigint),
             ('path', 'batch or group', 'text', 'device', NULL, NULL)$$,
    'path (device by default) and effective_io_concurrency (0 to 1000, PostgreSQL''s bounds) are options of a batch or a group');
SELECT is(pg_temp.error_of($$SELECT * FROM ranread_run_step('{"path": "disk", "groups": [{"processes": 1}], "target": "tap_server"}')$$),
    '22023: unknown path "disk" for ranread_run_step', 'an unknown path is refused, named');
SELECT ok(pg_temp.hint_of($$SELECT * FROM ranread_run_step('{"path": "disk", "groups": [{"processes": 1}], "target": "tap_server"}')$$)
          LIKE 'path is ''device'' (O_DIRECT%) or ''server'' (reads through PostgreSQL''s shared buffers%',
    '... with a hint that says what each path measures');
SELECT is(pg_temp.error_of($$SELECT * FROM ranread_run_step('{"path": "server", "groups": [{"processes": 1, "write_pct": 10}], "target": "tap_server"}')$$),
    '22023: write_pct 10 of ranread_run_step does not apply to path ''server''', 'the server path only reads');
SELECT is(pg_temp.error_of($$SELECT * FROM ranread_run_step('{"path": "server", "groups": [{"processes": 1, "queue_depth": 4}], "target": "tap_server"}')$$),
    '22023: queue_depth 4 of ranread_run_step does not apply to path ''server''', 'a server-path process waits for one buffer at a time: queue_depth 1');
SELECT is(pg_temp.hint_of($$SELECT * FROM ranread_run_step('{"path": "server", "groups": [{"processes": 1, "queue_depth": 4}], "target": "tap_server"}')$$),
    'Give effective_io_concurrency for the prefetch distance, and processes for more readers.', '... and the hint says what to use instead');
SELECT is(pg_temp.error_of($$SELECT * FROM ranread_run_step('{"path": "server", "groups": [{"processes": 1, "block_size": 16384}], "target": "tap_server"}')$$),
    '22023: block_size 16384 of ranread_run_step does not apply to path ''server''', 'the buffer manager reads 8 kB pages');
SELECT is(pg_temp.error_of($$SELECT * FROM ranread_run_step('{"path": "server", "groups": [{"processes": 1, "verify": true}], "target": "tap_server"}')$$),
    '22023: verify of ranread_run_step does not apply to path ''server''', 'verify is the device path''s: the buffer manager checks its pages itself');
SELECT is(pg_temp.error_of($$SELECT * FROM ranread_run_step('{"groups": [{"processes": 1, "effective_io_concurrency": 8}], "target": "tap_server"}')$$),
    '22023: effective_io_concurrency of ranread_run_step applies to path ''server'' only', 'a device-path group takes no effective_io_concurrency');
SELECT is(pg_temp.error_of($$SELECT * FROM ranread_run_step('{"effective_io_concurrency": 8, "groups": [{"processes": 1}], "target": "tap_server"}')$$),
    '22023: effective_io_concurrency of ranread_run_step applies to path ''server'' only', '... nor a batch without a server-path group');
SELECT is(pg_temp.error_of($$SELECT * FROM ranread_run_step('{"path": "server", "effective_io_concurrency": 1001, "groups": [{"processes": 1}], "target": "tap_server"}')$$),
    '22023: effective_io_concurrency of ranread_run_step must be between 0 and 1000, not 1001', 'effective_io_concurrency has PostgreSQL''s bounds');
SELECT is(pg_temp.error_of($$SELECT * FROM ranread_mix('[{"label": "r", "processes": 1, "path": "server"}, {"label": "w", "processes": 1, "write_pct": 50}]', duration => '1s', target => 'tap_server')$$),
    '22023: group "w" of ranread_mix writes target "tap_server", which group "r" reads through shared buffers (path ''server'')',
    'a mix may not write, on the device path, a target it reads through shared buffers (stale pages)');
SELECT is(pg_temp.error_of($$SELECT * FROM ranread_mix('[{"label": "r", "processes": 1, "path": "server", "effective_io_concurrency": -1}]', duration => '1s', target => 'tap_server')$$),
    '22023: effective_io_concurrency of group "r" of ranread_mix must be between 0 and 1000, not -1', 'a group''s bad value names the group');

-- A batch through shared buffers
SELECT pg_stat_clear_snapshot();
CREATE TEMP TABLE statio0 AS
SELECT coalesce(heap_blks_read, 0) + coalesce(heap_blks_hit, 0) AS blks
  FROM pg_statio_all_tables WHERE relid = (SELECT relid FROM ranread_target_catalog WHERE target = 'tap_server');
SET effective_io_concurrency = 3;
CREATE TEMP TABLE b1 AS
SELECT * FROM ranread_run_step('{"path": "server", "iterations": 3000, "groups": [{"processes": 2}], "target": "tap_server"}');
RESET effective_io_concurrency;
SELECT is((SELECT status FROM b1 WHERE grp = 0), 'completed', 'a server-path batch completes');
SELECT is((SELECT reads FROM b1 WHERE grp = 0), 6000::bigint, '... with the reads asked for');
SELECT results_eq($$SELECT engine, path, effective_io_concurrency FROM ranread_batches WHERE batch = (SELECT batch FROM b1 LIMIT 1)$$,
    $$VALUES ('bufmgr'::text, 'server'::text, 3)$$,
    'it records the buffer manager''s engine, path server, and the prefetch distance of the session''s effective_io_concurrency');
SELECT pg_stat_clear_snapshot();
SELECT is((SELECT coalesce(heap_blks_read, 0) + coalesce(heap_blks_hit, 0) - (SELECT blks FROM statio0)
             FROM pg_statio_all_tables WHERE relid = (SELECT relid FROM ranread_target_catalog WHERE target = 'tap_server')),
    6000::bigint,
    'the reads went through the buffer manager: the target''s pg_statio counters moved by the 6000 reads done');
SELECT ok((SELECT shared_hits + page_cache_hits <= reads AND shared_hits >= 0 AND page_cache_hits >= 0
                  AND abs(cache_pct - 100.0 * (shared_hits + page_cache_hits) / reads) < 1e-9
             FROM ranread_batches WHERE batch = (SELECT batch FROM b1 LIMIT 1)),
    'it records what the caches answered: shared_hits and page_cache_hits within its reads, cache_pct their share');
SELECT ok((SELECT server_settings ? 'shared_buffers' AND server_settings ? 'data_checksums'
                  AND (server_settings->>'shared_buffers_blocks')::bigint * 8192 = pg_size_bytes(current_setting('shared_buffers'))
                  AND (server_settings->>'ring_buffers')::int = least(32, (server_settings->>'shared_buffers_blocks')::int / 8)
                  AND (server_settings->>'data_checksums') = current_setting('data_checksums')
                  AND (server_settings->>'effective_io_concurrency') IS NOT NULL
             FROM ranread_batches WHERE batch = (SELECT batch FROM b1 LIMIT 1)),
    'and the settings in force: shared_buffers, its ring (256 kB, at most 1/8 of shared_buffers), data_checksums, effective_io_concurrency');
SELECT ok((SELECT server_settings ? 'io_method' = (current_setting('io_method', true) IS NOT NULL)
             FROM ranread_batches WHERE batch = (SELECT batch FROM b1 LIMIT 1)),
    '... and io_method only where the server has it (PostgreSQL 18)');
SELECT results_eq($$SELECT path, effective_io_concurrency, reads, shared_hits + page_cache_hits FROM ranread_groups WHERE batch = (SELECT batch FROM b1 LIMIT 1)$$,
    $$SELECT path, effective_io_concurrency, reads, shared_hits + page_cache_hits FROM ranread_batches WHERE batch = (SELECT batch FROM b1 LIMIT 1)$$,
    'its group''s row says the same');
SELECT ok((SELECT busy >= 0.98 FROM ranread_batches WHERE batch = (SELECT batch FROM b1 LIMIT 1)),
    'no latency goes missing on the server path either (busy, Little''s law)');
SELECT is((SELECT count(*) FROM ranread_results WHERE batch = (SELECT batch FROM b1 LIMIT 1) AND histogram IS NOT NULL AND reads = 3000),
    2::bigint, 'each process has its row and its histogram, as on the device path');

-- The prefetch distance: the option's, else the tablespace's, else the session's
CREATE TEMP TABLE b2 AS
SELECT * FROM ranread_run_step('{"path": "server", "effective_io_concurrency": 16, "iterations": 500, "groups": [{"processes": 1}], "target": "tap_server"}');
SELECT is((SELECT effective_io_concurrency FROM ranread_batches WHERE batch = (SELECT batch FROM b2 LIMIT 1)), 16,
    'effective_io_concurrency given is the prefetch distance the batch records');
ALTER TABLESPACE pg_default SET (effective_io_concurrency = 7);
CREATE TEMP TABLE b3 AS
SELECT * FROM ranread_run_step('{"path": "server", "iterations": 500, "groups": [{"processes": 1}], "target": "tap_server"}');
ALTER TABLESPACE pg_default RESET (effective_io_concurrency);
SELECT is((SELECT effective_io_concurrency FROM ranread_batches WHERE batch = (SELECT batch FROM b3 LIMIT 1)), 7,
    'without it, the target''s tablespace''s effective_io_concurrency, as PostgreSQL''s scans of it take it');
CREATE TEMP TABLE b4 AS
SELECT * FROM ranread_run_step('{"path": "server", "effective_io_concurrency": 0, "iterations": 500, "groups": [{"processes": 1, "pattern": "sequential"}], "target": "tap_server"}');
SELECT results_eq($$SELECT status, effective_io_concurrency, reads FROM ranread_batches WHERE batch = (SELECT batch FROM b4 LIMIT 1)$$,
    $$VALUES ('completed'::text, 0, 500::bigint)$$, 'effective_io_concurrency 0 prefetches nothing, sequential reads too');

-- The device path is the default, and records no cache figures
CREATE TEMP TABLE b5 AS
SELECT * FROM ranread_run_step('{"iterations": 500, "groups": [{"processes": 1}], "target": "tap_server"}');
SELECT results_eq($$SELECT path, effective_io_concurrency, shared_hits, page_cache_hits, cache_pct, server_settings IS NULL FROM ranread_batches WHERE batch = (SELECT batch FROM b5 LIMIT 1)$$,
    $$VALUES ('device'::text, NULL::integer, NULL::bigint, NULL::bigint, NULL::float8, true)$$,
    'a batch that names no path reads on the device path, and records no cache figures');

-- A mix: the server path beside the device path
CREATE TEMP TABLE m1 AS
SELECT * FROM ranread_mix('[{"label": "pg", "processes": 2, "path": "server", "effective_io_concurrency": 4},
                            {"label": "dev", "processes": 1, "queue_depth": 4},
                            {"label": "log", "processes": 1, "write_pct": 100, "target": "tap_server_w"}]',
                          duration => '1s', target => 'tap_server');
SELECT is((SELECT count(*) FILTER (WHERE status = 'completed' AND reads + writes > 0) FROM m1), 4::bigint,
    'a mix runs a server-path group beside device-path groups, each doing I/O');
SELECT results_eq($$SELECT label, path, effective_io_concurrency FROM ranread_groups WHERE batch = (SELECT batch FROM m1 LIMIT 1) ORDER BY grp$$,
    $$VALUES ('pg'::text, 'server'::text, 4), ('dev', 'device', NULL), ('log', 'device', NULL)$$,
    'each group records its path; the prefetch distance is the server path''s');
SELECT results_eq($$SELECT path, effective_io_concurrency, workers, engine <> 'bufmgr' FROM ranread_batches WHERE batch = (SELECT batch FROM m1 LIMIT 1)$$,
    $$VALUES (NULL::text, 4, 4, true)$$,
    'the batch''s path is NULL where its groups differ; every process has a worker of its own; the engine named is the device path''s');
SELECT ok((SELECT mix @> '[{"label": "pg", "path": "server", "effective_io_concurrency": 4}]' FROM ranread_batches WHERE batch = (SELECT batch FROM m1 LIMIT 1)),
    'the mix''s definition keeps the group''s path');
SELECT ok((SELECT shared_hits IS NULL AND cache_pct IS NULL FROM ranread_groups WHERE batch = (SELECT batch FROM m1 LIMIT 1) AND label = 'dev')
      AND (SELECT shared_hits IS NOT NULL FROM ranread_groups WHERE batch = (SELECT batch FROM m1 LIMIT 1) AND label = 'pg'),
    'only the server-path group records cache figures');

-- A spec given flat takes path as the one group's, or as every group's default beside groups
SELECT is(ranread_internal.ranread_spec('{"processes": 2, "path": "server", "effective_io_concurrency": 8}'),
    '{"groups": [{"processes": 2, "path": "server", "effective_io_concurrency": 8}]}'::jsonb,
    'given flat, path and effective_io_concurrency go in the one group');
SELECT is(ranread_internal.ranread_spec('{"groups": [{"processes": 1}], "path": "server"}'),
    '{"groups": [{"processes": 1}], "path": "server"}'::jsonb,
    'beside groups (a mix), path stays at the top, as every group''s default');
CREATE TEMP TABLE m2 AS
SELECT * FROM ranread_run_step('{"path": "server", "duration": "0.5s", "target": "tap_server",
                                 "groups": [{"label": "a", "processes": 1}, {"label": "b", "processes": 1, "path": "device"}]}');
SELECT results_eq($$SELECT label, path FROM ranread_groups WHERE batch = (SELECT batch FROM m2 LIMIT 1) ORDER BY grp$$,
    $$VALUES ('a'::text, 'server'::text), ('b', 'device')$$,
    'a group takes the top''s path unless it gives its own');

-- ranread_paths' own arguments, refused before any batch runs
SELECT is(pg_temp.error_of($$SELECT * FROM ranread_paths('{}', target => 'tap_server')$$),
    '22023: effective_io_concurrency of ranread_paths must hold 1 to 16 values, not 0', 'ranread_paths needs a prefetch distance to compare');
SELECT is(pg_temp.error_of($$SELECT * FROM ranread_paths('{{1,2},{3,4}}', target => 'tap_server')$$),
    '22023: effective_io_concurrency of ranread_paths must be a one-dimensional array, not {{1,2},{3,4}}',
    '... a list of them, not a 2-D array (which ran every batch, then failed naming no argument)');
SELECT is(pg_temp.error_of($$SELECT * FROM ranread_paths('{0,2000}', target => 'tap_server')$$),
    '22023: effective_io_concurrency of ranread_paths must hold values from 0 to 1000, not {0,2000}', '... each within PostgreSQL''s bounds');
SELECT is(pg_temp.error_of($$SELECT * FROM ranread_paths('{1,1}', target => 'tap_server')$$),
    '22023: effective_io_concurrency of ranread_paths holds a value twice: {1,1}', '... each once');
SELECT is(pg_temp.error_of($$SELECT * FROM ranread_paths('{1}', target => 'tap_server', rounds => 0)$$),
    '22023: rounds of ranread_paths must be between 1 and 10, not 0', '... rounds from 1 to 10');
SELECT is(pg_temp.error_of($$SELECT * FROM ranread_paths('{1}', target => 'tap_server', pattern => 'zigzag')$$),
    '22023: unknown pattern "zigzag" for ranread_paths', '... and the workload is read as a batch''s spec, naming ranread_paths');

-- Its notes and the summary
SELECT ok((SELECT notes LIKE '%mostly cache hits: %not the device: the figures are memory''s, not the disk''s%'
             FROM ranread_batches WHERE batch = (SELECT batch FROM b2 LIMIT 1))
          = (SELECT cache_pct >= 50 FROM ranread_batches WHERE batch = (SELECT batch FROM b2 LIMIT 1)),
    'a batch mostly answered by caches says in its notes that its figures are not the disk''s, and only such a batch');
SELECT results_eq($$SELECT path, effective_io_concurrency, round(cache_pct::numeric, 1) FROM ranread_summary_full WHERE batch = (SELECT batch FROM b1 LIMIT 1)$$,
    $$SELECT path, effective_io_concurrency, round(cache_pct::numeric, 1) FROM ranread_batches WHERE batch = (SELECT batch FROM b1 LIMIT 1)$$,
    'ranread_summary_full shows the path, the prefetch distance and the cache share');
SELECT ok((SELECT workload LIKE '%through shared buffers%' FROM ranread_summary WHERE batch = (SELECT batch FROM b1 LIMIT 1))
      AND (SELECT workload NOT LIKE '%shared buffers%' FROM ranread_summary WHERE batch = (SELECT batch FROM b5 LIMIT 1)),
    'ranread_summary''s workload says a batch read through shared buffers');

SELECT * FROM finish();
ROLLBACK;
SELECT ranread_purge('tap_server'), ranread_purge('tap_server_w') \g /dev/null
