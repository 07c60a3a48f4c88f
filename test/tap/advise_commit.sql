-- ranread_advise's wal_sync_method from a scripted history of commit tests
-- (no I/O): advice compares only methods one commit test measured
-- together, the server's wal_sync_method among them; a later commit test
-- that measured less (one method) does not override a full one, and is
-- named; without such a commit test there is no suggestion, only the SQL
-- that measures one; the current method stays unless another is more than
-- 10% faster.
BEGIN;
SET LOCAL client_min_messages = warning;
SELECT plan(17);

DELETE FROM ranread_batches;
DELETE FROM ranread_groups;
DELETE FROM ranread_durability;

SELECT is(current_setting('wal_sync_method'), 'fdatasync',
    'the cluster runs with Linux''s default wal_sync_method, fdatasync (the cases below are written for it)');

-- One test of a commit test: one 8 kB write and its sync by one method
CREATE FUNCTION pg_temp.commit_row(commit_test bigint, method text, ops float8, status text DEFAULT 'completed',
                                   tablespace name DEFAULT 'pg_wal')
RETURNS bigint LANGUAGE sql AS $$
    WITH x AS (
        INSERT INTO ranread_batches (batch, run_at, target, tablespace, filesystem, processes, seed,
            workers, engine, reads, writes, seconds, iops, status, commit_test, groups)
        VALUES (nextval('ranread_batch_seq'), clock_timestamp(), 'commit test', tablespace, 'ext4', 1, 1, 1,
            'sync', 0, (ops * 5)::bigint, 5, ops, status, commit_test, 1)
        RETURNING batch)
    INSERT INTO ranread_groups (batch, grp, label, target, tablespace, processes, block_size, queue_depth,
        write_pct, pattern, region_start, region_end, distribution, reads, writes, seconds, iops, mbps,
        histogram, sync, writes_per_op)
    SELECT x.batch, 1, 'one 8 kB write: ' || method, 'commit test', tablespace, 1, 8192, 1, 100, 'sequential',
           0, 100, 'uniform', 0, (ops * 5)::bigint, 5, ops, ops * 8192 / 1048576, '\x', method, 1
      FROM x
    RETURNING batch
$$;
CREATE TEMP TABLE b (commit_test bigint, method text, batch bigint);

-- 1. A commit test of open_sync alone: nothing to compare it with
INSERT INTO b SELECT 901, 'open_sync', pg_temp.commit_row(901, 'open_sync', 4431);
CREATE TEMP TABLE a1 AS SELECT * FROM ranread_advise() WHERE setting = 'wal_sync_method';
SELECT is((SELECT suggested FROM a1), NULL,
    'a commit test that measured only open_sync suggests nothing: the current method was not measured with it');
SELECT matches((SELECT figures FROM a1),
    '^missing: a commit test on pg_wal''s filesystem that measured fdatasync, the server''s wal_sync_method, and other methods together; '
    'not counted: commit test 901 \([-0-9: ]+\): only open_sync was measured, not fdatasync, the server''s wal_sync_method: nothing to compare; no durability check on record: [^;]*$',
    'it says what is missing, and why the commit test there does not count');
SELECT is((SELECT to_measure FROM a1), 'SELECT * FROM ranread_commit_test(duration => ''00:00:02'');',
    'and the SQL that measures every method together');
SELECT is((SELECT apply_sql FROM a1), NULL, 'nothing to apply');
DELETE FROM ranread_batches WHERE commit_test = 901;

-- 2. A full commit test, then one of open_sync alone (the order of the issue
-- this guards against: fdatasync 4,817 ops/s in the full one, open_sync
-- 4,431 alone afterwards)
INSERT INTO b SELECT 902, m, pg_temp.commit_row(902, m, o)
  FROM (VALUES ('open_datasync', 4650), ('fdatasync', 4817), ('fsync', 4300), ('open_sync', 4500)) v(m, o);
INSERT INTO b SELECT 903, 'open_sync', pg_temp.commit_row(903, 'open_sync', 4431);
CREATE TEMP TABLE a2 AS SELECT * FROM ranread_advise() WHERE setting = 'wal_sync_method';
SELECT is((SELECT suggested FROM a2), 'fdatasync',
    'a later commit test of open_sync alone does not win over the full one before it: fdatasync, the fastest there, stays');
SELECT is((SELECT apply_sql FROM a2), NULL, 'the suggestion is the current method: nothing to apply');
SELECT is((SELECT batches FROM a2),
    ARRAY(SELECT b.batch FROM b JOIN unnest('{fdatasync,open_datasync,open_sync,fsync}'::text[]) WITH ORDINALITY AS o(m, k) ON o.m = b.method
           WHERE b.commit_test = 902 ORDER BY o.k),
    'the advice rests on the full commit test''s batches, fastest first');
SELECT matches((SELECT figures FROM a2),
    '^commit test 902 on pg_wal \(ext4, [-0-9: ]+\), one 8 kB write and its sync: fdatasync 4,817 ops/s, open_datasync 4,650 ops/s, open_sync 4,500 ops/s, fsync 4,300 ops/s; '
    'the fastest of fdatasync, open_datasync, open_sync, fsync is fdatasync, the server''s wal_sync_method; '
    'not counted: commit test 903 \([-0-9: ]+\): only open_sync was measured, not fdatasync, the server''s wal_sync_method: nothing to compare; no durability check on record: [^;]*$',
    'the figures are the full commit test''s, and the later one is named as not counted, with why');

-- 3. A full commit test whose fastest is within 10% of the current method
INSERT INTO b SELECT 904, m, pg_temp.commit_row(904, m, o)
  FROM (VALUES ('open_datasync', 5200), ('fdatasync', 5000), ('fsync', 4000), ('open_sync', 5100)) v(m, o);
CREATE TEMP TABLE a3 AS SELECT * FROM ranread_advise() WHERE setting = 'wal_sync_method';
SELECT is((SELECT suggested FROM a3), 'fdatasync',
    'open_datasync 4% faster than fdatasync: within the noise of 10%, the current method stays');
SELECT matches((SELECT figures FROM a3),
    '; the fastest of open_datasync, open_sync, fdatasync, fsync is open_datasync, 4% faster than fdatasync, the server''s wal_sync_method: within the noise of 10% between two runs, so fdatasync stays; no durability check on record: [^;]*$',
    'and says the difference is within the noise');

-- 4. More than 10% faster: the fastest
INSERT INTO b SELECT 905, m, pg_temp.commit_row(905, m, o)
  FROM (VALUES ('open_datasync', 6000), ('fdatasync', 5000), ('fsync', 4000), ('open_sync', 5400)) v(m, o);
CREATE TEMP TABLE a4 AS SELECT * FROM ranread_advise() WHERE setting = 'wal_sync_method';
SELECT is((SELECT suggested FROM a4), 'open_datasync', 'open_datasync 20% faster than fdatasync: open_datasync');
SELECT is((SELECT apply_sql FROM a4), 'ALTER SYSTEM SET wal_sync_method = ''open_datasync''; SELECT pg_reload_conf();',
    'with the SQL that would switch');
SELECT matches((SELECT figures FROM a4), 'is open_datasync, 20% faster than fdatasync, the server''s wal_sync_method; no durability check on record: [^;]*$',
    'and says by how much it is faster');

-- 5. A later commit test whose fdatasync did not complete, and one on another
-- tablespace: neither counts
INSERT INTO b SELECT 906, m, pg_temp.commit_row(906, m, o, s)
  FROM (VALUES ('open_datasync', 9000, 'completed'), ('fdatasync', 1000, 'cancelled'), ('open_sync', 8000, 'completed')) v(m, o, s);
INSERT INTO b SELECT 907, m, pg_temp.commit_row(907, m, o, 'completed', 'pg_default')
  FROM (VALUES ('open_datasync', 1000), ('fdatasync', 9000)) v(m, o);
CREATE TEMP TABLE a5 AS SELECT * FROM ranread_advise() WHERE setting = 'wal_sync_method';
SELECT is((SELECT suggested FROM a5), 'open_datasync',
    'a commit test whose fdatasync test did not complete, or on another tablespace, does not count: commit test 905 still does');
SELECT matches((SELECT figures FROM a5),
    '^commit test 905 .*; not counted: commit test 906 \([-0-9: ]+\): the fastest of open_datasync, open_sync is open_datasync, but fdatasync, the server''s wal_sync_method, was not measured with them: nothing to compare it with; no durability check on record: [^;]*$',
    'the one that did not measure fdatasync is named');

-- 6. pg_monitor sees the same
CREATE ROLE tap_advise_commit_monitor IN ROLE pg_monitor;
SET LOCAL ROLE tap_advise_commit_monitor;
SELECT is((SELECT suggested FROM ranread_advise() WHERE setting = 'wal_sync_method'), 'open_datasync', 'a member of pg_monitor gets the same advice');
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;
