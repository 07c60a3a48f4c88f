-- ranread_setup makes a target: an unlogged relation of the extension with
-- every block written as a valid, empty page, listed in ranread_targets as
-- ready.  Re-running it replaces the target; ranread_purge drops it.  The
-- files themselves (not sparse, incompressible) are checked in
-- test/shell/10_target_files.sh.
BEGIN;
SET client_min_messages = error;
SELECT plan(37);

-- The error of a statement (NULL if it succeeds): SQLSTATE, message, detail
CREATE FUNCTION pg_temp.error_of(statement text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
    detail text;
BEGIN
    EXECUTE statement;
    RETURN NULL;
EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS detail = PG_EXCEPTION_DETAIL;
    RETURN SQLSTATE || ': ' || SQLERRM || coalesce(E'\nDETAIL: ' || nullif(detail, ''), '');
END
$$;

-- Rows a superuser sees in a relation
CREATE FUNCTION pg_temp.count_rows(rel regclass) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
    n bigint;
BEGIN
    EXECUTE format('SELECT count(*) FROM %s', rel) INTO n;
    RETURN n;
END
$$;

-- Blocks of a relation whose page header is not that of a valid, empty
-- heap page (pd_lower 24, pd_upper = pd_special = 8192, layout version 4),
-- read from the file, past shared buffers
CREATE FUNCTION pg_temp.bad_pages(rel oid) RETURNS bigint
LANGUAGE sql AS $$
    SELECT count(*)
      FROM generate_series(0, pg_relation_size(rel) / 8192 - 1) AS b
     WHERE substring(pg_read_binary_file(pg_relation_filepath(rel), b * 8192, 24) FROM 13 FOR 8)
           <> '\x1800002000200420'::bytea
$$;

-- The row setup returns
CREATE TEMP TABLE made AS SELECT * FROM ranread_setup('64MB', target => 'tap_setup');
SELECT is((SELECT target FROM made), 'tap_setup'::name, 'setup returns the target''s name');
SELECT is((SELECT tablespace FROM made), 'pg_default'::name, 'setup returns the tablespace: pg_default by default');
SELECT is((SELECT size_bytes FROM made), 67108864::bigint, 'setup returns the size in bytes: 64MB is 67108864');
SELECT cmp_ok((SELECT seconds FROM made), '>', 0::numeric, 'setup returns how many seconds the fill took');
-- (seconds to 0.001 and mbps to 0.1 as returned: the rounding allows 1% more)
SELECT ok((SELECT abs(mbps - size_bytes / 1048576.0 / seconds) <= 0.02 * mbps + 0.1 FROM made),
    'setup returns the fill rate: mbps is MiB written per second');

-- ranread_targets
SELECT results_eq(
    $$SELECT target, tablespace, size_bytes, state FROM ranread_targets WHERE target = 'tap_setup'$$,
    $$VALUES ('tap_setup'::name, 'pg_default'::name, 67108864::bigint, 'ready'::text)$$,
    'ranread_targets lists the target as ready, with its tablespace and size');
SELECT is((SELECT created_at FROM ranread_targets WHERE target = 'tap_setup'), now(),
    'ranread_targets says when the target was made');

-- The relation behind it
CREATE TEMP TABLE first AS SELECT relid FROM ranread_target_catalog WHERE target = 'tap_setup';
SELECT is((SELECT relpersistence FROM pg_class WHERE oid = (SELECT relid FROM first)), 'u'::"char",
    'the target is an unlogged relation (left out of WAL and base backups)');
SELECT ok((SELECT 'autovacuum_enabled=off' = ANY (reloptions) FROM pg_class WHERE oid = (SELECT relid FROM first)),
    'autovacuum is off for the target');
SELECT ok(EXISTS (SELECT 1
                    FROM pg_depend d JOIN pg_extension e ON e.oid = d.refobjid
                   WHERE d.classid = 'pg_class'::regclass AND d.objid = (SELECT relid FROM first)
                     AND d.deptype = 'e' AND e.extname = 'ranread'),
    'the relation belongs to the extension: DROP EXTENSION drops it, pg_dump skips it');
SELECT is(pg_relation_size((SELECT relid FROM first)), 67108864::bigint,
    'every block of the target is on disk');
SELECT is(pg_temp.bad_pages((SELECT relid FROM first)), 0::bigint,
    'every block is written as a valid, empty page');
SELECT is((SELECT count(DISTINCT md5(pg_read_binary_file(pg_relation_filepath(relid), b * 8192 + 24, 8168)))
             FROM first, generate_series(0, 8191) AS b),
    8192::bigint, 'no two pages carry the same bytes');

-- No SQL access to the data
SELECT is(pg_temp.count_rows((SELECT relid FROM first)), 0::bigint,
    'even a superuser sees no rows in a target');
SELECT format('SELECT count(*) FROM %s', relid::regclass) AS read_target FROM first \gset
CREATE ROLE tap_setup_reader;
SET ROLE tap_setup_reader;
SELECT throws_ok(:'read_target', '42501', NULL,
    'other roles are refused reading a target');
RESET ROLE;

-- Sizes are whole 8 kB pages
SELECT is((SELECT size_bytes FROM ranread_setup('1MB', target => 'tap_setup_sizes')), 1048576::bigint,
    'the smallest target is 1MB');
SELECT is((SELECT size_bytes FROM ranread_setup('1.5MB', target => 'tap_setup_sizes')), 1572864::bigint,
    'sizes take pg_size_bytes syntax: 1.5MB is 1572864 bytes');
SELECT is((SELECT size_bytes FROM ranread_setup('2000001', target => 'tap_setup_sizes')), 2007040::bigint,
    'a size that is not whole pages is rounded up to the next 8 kB page');
SELECT is(pg_relation_size((SELECT relid FROM ranread_target_catalog WHERE target = 'tap_setup_sizes')),
    2007040::bigint, 'and that many bytes are on disk');
SELECT is((SELECT size_bytes FROM ranread_targets WHERE target = 'tap_setup_sizes'), 2007040::bigint,
    'ranread_targets shows the rounded size');
-- A relation holds at most 2^32 - 1 pages (32 TB): larger sizes are bad
-- arguments, whatever the free space
SELECT matches(pg_temp.error_of($$SELECT * FROM ranread_setup('64TB', target => 'tap_setup_huge')$$),
    '^22023: .*64TB',
    'a size beyond the 32 TB a relation can hold is refused as an invalid size, naming it');
SELECT matches(pg_temp.error_of($$SELECT * FROM ranread_setup('9223372036854775807', target => 'tap_setup_huge')$$),
    '^22023: .*9223372036854775807',
    'so is the largest size pg_size_bytes accepts');
SELECT doesnt_match(pg_temp.error_of($$SELECT * FROM ranread_setup('9223372036854775807', target => 'tap_setup_huge')$$),
    '-[0-9]', 'and no error shows a negative byte count');

-- Re-running setup replaces the target, and only that one
SELECT ok((SELECT size_bytes = 4194304 FROM ranread_setup('4MB', target => 'tap_setup_other')),
    'a second target is made beside the first');
CREATE TEMP TABLE other AS SELECT relid FROM ranread_target_catalog WHERE target = 'tap_setup_other';
CREATE TEMP TABLE remade AS SELECT * FROM ranread_setup('32MB', target => 'tap_setup');
SELECT results_eq(
    $$SELECT target, size_bytes, state FROM ranread_targets WHERE target = 'tap_setup'$$,
    $$VALUES ('tap_setup'::name, 33554432::bigint, 'ready'::text)$$,
    're-running setup leaves one target of that name, ready, with the new size');
SELECT isnt((SELECT relid FROM ranread_target_catalog WHERE target = 'tap_setup'), (SELECT relid FROM first),
    're-running setup makes a new relation');
SELECT ok(NOT EXISTS (SELECT 1 FROM pg_class WHERE oid = (SELECT relid FROM first)),
    'and drops the one it replaces');
SELECT is(ranread_internal.ranread_target_state((SELECT relid FROM first), 67108864), 'missing',
    'the replaced relation''s state is missing');
SELECT results_eq(
    $$SELECT c.relid, t.size_bytes, t.state FROM ranread_target_catalog c JOIN ranread_targets t USING (target)
       WHERE target = 'tap_setup_other'$$,
    $$SELECT relid, 4194304::bigint, 'ready'::text FROM other$$,
    'the other target is untouched');

-- Purge
CREATE TEMP TABLE second AS SELECT relid FROM ranread_target_catalog WHERE target = 'tap_setup';
SELECT is(ranread_purge('tap_setup'), true, 'ranread_purge drops a target and returns true');
SELECT is((SELECT count(*) FROM ranread_targets WHERE target = 'tap_setup'), 0::bigint,
    'a purged target leaves ranread_targets');
SELECT ok(NOT EXISTS (SELECT 1 FROM pg_class WHERE oid = (SELECT relid FROM second)),
    'a purged target''s relation is dropped');
SELECT throws_ok($$SELECT ranread_purge('tap_setup')$$, '42704', 'ranread target "tap_setup" does not exist',
    'purging it again says there is no such target');
SELECT throws_ok($$SELECT * FROM ranread_run(1, 10, target => 'tap_setup')$$, '42704',
    'ranread target "tap_setup" does not exist', 'a purged target cannot be run');
SELECT is((SELECT state FROM ranread_targets WHERE target = 'tap_setup_other'), 'ready',
    'purging one target leaves the others ready');

-- A failed setup leaves the target it would have replaced
SELECT ok(pg_temp.error_of($$SELECT * FROM ranread_setup('1kB', target => 'tap_setup_other')$$) LIKE '22023: %',
    'a setup with a bad size fails');
SELECT results_eq(
    $$SELECT c.relid, t.size_bytes, t.state FROM ranread_target_catalog c JOIN ranread_targets t USING (target)
       WHERE target = 'tap_setup_other'$$,
    $$SELECT relid, 4194304::bigint, 'ready'::text FROM other$$,
    'and the target it would have replaced is still there, ready');

SELECT * FROM finish();
ROLLBACK;
