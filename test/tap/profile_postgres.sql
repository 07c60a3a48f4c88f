-- A PostgreSQL-shaped profile (docs/server-path.md, "What a busy server
-- does to its storage"): ranread_profile_postgres runs three phases, one batch each:
-- the backends' random 8 kB reads alone, with the WAL writer's durable
-- sequential writes (the commit path, synced as wal_sync_method syncs), and
-- with a checkpoint's paced random writes too; it returns each group's
-- figures and how the backends' read tail compares with theirs alone.  Its
-- rates default to this server's own (pg_stat_wal, pg_stat_bgwriter) and
-- say so; its arguments are checked before any batch runs.
BEGIN;
SET client_min_messages = error;
SELECT plan(17);
\ir lib/util.psql

SELECT ok((SELECT size_bytes = 67108864 FROM ranread_setup('64MB', target => 'tap_pgp')), 'a target');
SELECT ok((SELECT size_bytes = 16777216 FROM ranread_setup('16MB', target => 'tap_pgp_wal')), 'and one for the WAL');

-- The rates from this server's statistics
CREATE TEMP TABLE r0 AS SELECT * FROM ranread_internal.ranread_profile_postgres_rates();
SELECT ok((SELECT commits_per_s >= 1 AND checkpoint_pages_per_s >= 1
                  AND source LIKE 'commits: % WAL flushes in the % s since this server''s statistics were reset (pg_stat_wal); checkpoint writes: %' FROM r0),
    'the default rates come from this server''s own statistics, and say which');

-- its own arguments that must be given: a NULL duration ran until cancelled
SELECT throws_ok($$SELECT * FROM ranread_profile_postgres('tap_pgp', duration => NULL)$$, '22004',
    'duration of ranread_profile_postgres must not be null', 'a NULL duration is refused, naming it');
SELECT throws_ok($$SELECT * FROM ranread_profile_postgres('tap_pgp', readers => NULL)$$, '22004',
    'readers of ranread_profile_postgres must not be null', '... and NULL readers');

CREATE TEMP TABLE p AS
SELECT * FROM ranread_profile_postgres('tap_pgp', duration => '1s', readers => 2, commits_per_s => 50,
                                       checkpoint_pages_per_s => 200, wal_target => 'tap_pgp_wal');
SELECT results_eq($$SELECT phase, grp, processes, status FROM p ORDER BY phase, grp$$,
    $$VALUES (1, 'backends'::text, 2, 'completed'::text),
             (2, 'backends', 2, 'completed'), (2, 'wal writer', 1, 'completed'),
             (3, 'backends', 2, 'completed'), (3, 'checkpointer', 1, 'completed'), (3, 'wal writer', 1, 'completed')$$,
    'three phases: the backends alone, with the WAL writer, with the checkpointer too, each completed');
SELECT is((SELECT count(DISTINCT batch) FROM p), 3::bigint, 'each phase is one batch');
SELECT is((SELECT count(*) FROM ranread_batches WHERE batch IN (SELECT batch FROM p) AND status = 'completed'), 3::bigint,
    '... and each completed');
SELECT ok((SELECT bool_and(CASE g.label WHEN 'backends' THEN g.reads > 0 AND g.writes = 0 ELSE g.writes > 0 AND g.reads = 0 END)
             FROM ranread_groups g WHERE g.batch IN (SELECT batch FROM p)),
    'the backends only read; the WAL writer and the checkpointer only write');
SELECT ok((SELECT bool_and(iops BETWEEN 40 AND 60) FROM p WHERE grp = 'wal writer'),
    'the WAL writer commits at the rate asked (50 per second)');
SELECT ok((SELECT bool_and(iops BETWEEN 160 AND 240) FROM p WHERE grp = 'checkpointer'),
    'the checkpointer writes at the rate asked (200 pages per second)');
SELECT is((SELECT string_agg(DISTINCT g.sync || ' ' || g.pattern || ' ' || g.target || ' ' || g.block_size, ',')
             FROM ranread_groups g WHERE g.batch IN (SELECT batch FROM p) AND g.label = 'wal writer'),
    (CASE current_setting('wal_sync_method') WHEN 'fsync_writethrough' THEN 'fsync' ELSE current_setting('wal_sync_method') END)
    || ' sequential tap_pgp_wal 8192',
    'each of its writes is made durable as the server''s wal_sync_method makes a commit, sequential 8 kB, on the WAL''s target');
SELECT ok((SELECT bool_and(p.p99_vs_alone = round((g.read_p99_ms / a.read_p99_ms)::numeric, 2))
             FROM p JOIN ranread_groups g ON g.batch = p.batch AND g.label = 'backends',
                  ranread_groups a
            WHERE a.batch = (SELECT batch FROM p WHERE phase = 1) AND a.label = 'backends' AND p.grp = 'backends') AND (SELECT count(p99_vs_alone) FROM p) = 3,
    'the backends'' rows give their read p99 over theirs alone (1 in phase 1), and only theirs');
SELECT ok((SELECT max(length(x)) FROM (SELECT concat_ws(' | ', phase, grp, processes, iops, avg_ms, p99_ms, p999_ms, batch,
                                                      p99_vs_alone, status) AS x FROM p) w) <= 100,
    'a row fits a screen beside its headings');

-- Defaults: this server's rates
CREATE TEMP TABLE p2 AS
SELECT * FROM ranread_profile_postgres('tap_pgp', duration => '0.5s', readers => 1, checkpoint_pages_per_s => 100,
                                       wal_target => 'tap_pgp_wal');
CREATE TEMP TABLE r1 AS SELECT * FROM ranread_internal.ranread_profile_postgres_rates();
SELECT ok((SELECT g.rate_iops BETWEEN least(r0.commits_per_s, r1.commits_per_s) - 1 AND greatest(r0.commits_per_s, r1.commits_per_s) + 1
             FROM ranread_groups g, r0, r1 WHERE g.batch = (SELECT max(batch) FROM p2) AND g.label = 'wal writer'),
    'without commits_per_s the WAL writer runs at this server''s own rate');

-- Arguments
SELECT is(pg_temp.error_of($$SELECT * FROM ranread_profile_postgres('tap_pgp', readers => 0)$$),
    '22023: readers of ranread_profile_postgres must be at least 1, not 0', 'readers below 1 is refused, named');
SELECT is(pg_temp.error_of($$SELECT * FROM ranread_profile_postgres('tap_pgp', read_path => 'disk')$$),
    '22023: unknown path "disk" for ranread_profile_postgres', 'an unknown read_path is refused by the spec reader, naming the function called');

SELECT * FROM finish();
ROLLBACK;
