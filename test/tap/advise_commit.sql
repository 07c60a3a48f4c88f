-- ranread_advise's wal_sync_method from a scripted history of commit tests
-- (no I/O): advice compares only methods one commit test measured
-- together, in rounds, the server's wal_sync_method among them, timed as
-- this server writes its WAL; the current method stays unless another is
-- faster beyond the noise of the rounds (its 95% interval above) and by
-- more than 10%; fsync is never advised over fdatasync; a later commit test
-- that measured less does not override a full one, and is named; a commit
-- test that timed open_datasync and open_sync with O_DIRECT (pg_test_fsync's
-- way, or 1.1's) while this server does not is named and not counted.
BEGIN;
SET LOCAL client_min_messages = warning;
SELECT plan(24);

DELETE FROM ranread_batches;
DELETE FROM ranread_groups;
DELETE FROM ranread_durability;

SELECT is(current_setting('wal_sync_method') || ' ' || current_setting('wal_level'), 'fdatasync replica',
    'the cluster runs with Linux''s default wal_sync_method, fdatasync, at wal_level replica (the cases below are written for them)');

-- One round of a commit test: one 8 kB write and its sync by one method;
-- how the open_* methods opened the file is in the label, as 1.2 writes it
-- ("(buffered)", "(O_DIRECT)"), or not at all (1.1, which used O_DIRECT)
CREATE FUNCTION pg_temp.commit_row(commit_test bigint, method text, ops float8, status text DEFAULT 'completed',
                                   tablespace name DEFAULT 'pg_wal', how text DEFAULT ' (buffered)')
RETURNS bigint LANGUAGE sql AS $$
    WITH x AS (
        INSERT INTO ranread_batches (batch, run_at, target, tablespace, filesystem, processes, seed,
            workers, engine, reads, writes, seconds, iops, status, commit_test, groups)
        VALUES (nextval('ranread_batch_seq'), clock_timestamp(), 'commit test', tablespace, 'ext4', 1, 1, 1,
            'sync', 0, (ops * 1)::bigint, 1, ops, status, commit_test, 1)
        RETURNING batch)
    INSERT INTO ranread_groups (batch, grp, label, target, tablespace, processes, block_size, queue_depth,
        write_pct, pattern, region_start, region_end, distribution, reads, writes, seconds, iops, mbps,
        histogram, sync, writes_per_op)
    SELECT x.batch, 1, 'one 8 kB write: ' || method || CASE WHEN method LIKE 'open%' THEN how ELSE '' END,
           'commit test', tablespace, 1, 8192, 1, 100, 'sequential',
           0, 100, 'uniform', 0, (ops * 1)::bigint, 1, ops, ops * 8192 / 1048576, '\x', method, 1
      FROM x
    RETURNING batch
$$;
CREATE TEMP TABLE b (commit_test bigint, method text, batch bigint);
-- a commit test of five alternated rounds: each method's ops/s, and how
-- much its rounds vary (0, +spread, -spread, +spread, -spread: the mean is
-- the figure given, the 95% interval +- 1.2415 x spread x it)
CREATE FUNCTION pg_temp.commit_test(commit_test bigint, methods text[], ops float8[], spread float8 DEFAULT 0.01,
                                    how text DEFAULT ' (buffered)', rounds integer DEFAULT 5)
RETURNS void LANGUAGE sql AS $$
    INSERT INTO b
    SELECT commit_test, m.m, pg_temp.commit_row(commit_test, m.m,
               m.o * (1 + spread * CASE WHEN r = 1 THEN 0 WHEN r % 2 = 0 THEN 1 ELSE -1 END), how => how)
      FROM generate_series(1, rounds) r, unnest(methods, ops) WITH ORDINALITY AS m(m, o, k)
     ORDER BY r, m.k
$$;
CREATE TEMP VIEW wal AS SELECT * FROM ranread_advise() WHERE setting = 'wal_sync_method';

-- 1. A commit test of open_sync alone: nothing to compare it with
SELECT pg_temp.commit_test(901, '{open_sync}', '{4431}');
CREATE TEMP TABLE a1 AS SELECT * FROM wal;
SELECT is((SELECT suggested FROM a1), NULL,
    'a commit test that measured only open_sync suggests nothing: the current method was not measured with it');
SELECT matches((SELECT figures FROM a1),
    '^missing: a commit test on pg_wal''s filesystem that measured fdatasync, the server''s wal_sync_method, and other methods together, as this server writes its WAL; '
    'not counted: commit test 901 \([-0-9: ]+\): only open_sync was measured, not fdatasync, the server''s wal_sync_method: nothing to compare; no durability check on record: [^;]*$',
    'it says what is missing, and why the commit test there does not count');
SELECT is((SELECT to_measure FROM a1), 'SELECT * FROM ranread_commit_test(duration => ''00:00:02'');',
    'and the SQL that measures every method together');
DELETE FROM ranread_batches WHERE commit_test = 901;

-- 2. A full commit test whose fastest is the current method, then one of
-- open_sync alone
SELECT pg_temp.commit_test(902, '{open_datasync,fdatasync,fsync,open_sync}', '{4650,4817,4300,4500}');
SELECT pg_temp.commit_test(903, '{open_sync}', '{4431}');
CREATE TEMP TABLE a2 AS SELECT * FROM wal;
SELECT is((SELECT suggested || ' ' || coalesce(apply_sql, 'nothing to apply') FROM a2), 'fdatasync nothing to apply',
    'a later commit test of open_sync alone does not win over the full one before it: fdatasync, the fastest there, stays');
SELECT is((SELECT batches FROM a2), ARRAY(SELECT batch FROM b WHERE commit_test = 902 ORDER BY batch),
    'the advice rests on every round of the full commit test');
SELECT matches((SELECT figures FROM a2),
    '^commit test 902 on pg_wal \(ext4, [-0-9: ]+\), one 8 kB write and its sync: fdatasync 4,817 ops/s \(95% interval 4,757 to 4,877, 5 rounds\), open_datasync 4,650 ops/s \(95% interval [0-9,]+ to [0-9,]+, 5 rounds\), open_sync 4,500 ops/s [^;]*, fsync 4,300 ops/s [^;]*; '
    'no clear winner: none of open_datasync is more than 10% faster than fdatasync, the server''s wal_sync_method, even at the ends of their 95% intervals, so fdatasync stays; '
    'not counted: commit test 903 \([-0-9: ]+\): only open_sync was measured, not fdatasync, the server''s wal_sync_method: nothing to compare; no durability check on record: [^;]*$',
    'the figures are the rounds'' means with their intervals, fsync and open_sync are no candidates, and the later test is named as not counted');

-- 3. open_datasync 4% faster, the rounds tight: within 10% even at the ends
SELECT pg_temp.commit_test(904, '{open_datasync,fdatasync,fsync,open_sync}', '{5200,5000,4000,5100}');
CREATE TEMP TABLE a3 AS SELECT * FROM wal;
SELECT is((SELECT suggested FROM a3), 'fdatasync', 'open_datasync 4% faster than fdatasync: below 10%, the current method stays');
SELECT matches((SELECT figures FROM a3), '; no clear winner: none of open_datasync is more than 10% faster than fdatasync',
    '... and it says so');

-- 4. open_datasync twice as fast, beyond the noise: open_datasync
SELECT pg_temp.commit_test(905, '{open_datasync,fdatasync,fsync,open_sync}', '{10000,5000,4000,9500}');
CREATE TEMP TABLE a4 AS SELECT * FROM wal;
SELECT is((SELECT suggested FROM a4), 'open_datasync', 'open_datasync twice as fast as fdatasync, its interval above: open_datasync');
SELECT is((SELECT apply_sql FROM a4), 'ALTER SYSTEM SET wal_sync_method = ''open_datasync''; SELECT pg_reload_conf();',
    'with the SQL that would switch');
SELECT matches((SELECT figures FROM a4),
    'open_datasync is 100% faster than fdatasync, the server''s wal_sync_method, beyond the noise: its 95% interval \(9,876 to 10,124 ops/s\) lies above fdatasync''s \(4,938 to 5,062\)',
    'and says by how much, with both intervals');

-- 5. 30% faster on average, but rounds that vary by 40%: no clear winner
SELECT pg_temp.commit_test(906, '{open_datasync,fdatasync}', '{6500,5000}', spread => 0.4);
CREATE TEMP TABLE a5 AS SELECT * FROM wal;
SELECT is((SELECT suggested || ' ' || coalesce(apply_sql, 'nothing to apply') FROM a5), 'fdatasync nothing to apply',
    'open_datasync 30% faster on average, but its rounds vary by 40%: no change');
SELECT matches((SELECT figures FROM a5), '; no clear winner after 5 rounds: open_datasync \([0-9,]+ to [0-9,]+ ops/s\) and fdatasync, the server''s wal_sync_method \([0-9,]+ to [0-9,]+\), overlap or lie within 10% of each other, so fdatasync stays',
    '... the intervals named');

-- 6. fsync 40% faster than fdatasync: noise, never advised over it
SELECT pg_temp.commit_test(907, '{fdatasync,fsync}', '{5000,7000}');
CREATE TEMP TABLE a6 AS SELECT * FROM wal;
SELECT is((SELECT suggested FROM a6), 'fdatasync', 'fsync measured 40% faster than fdatasync is not advised: it does at least fdatasync''s work');
SELECT matches((SELECT figures FROM a6),
    'fsync measured faster than fdatasync, though it does at least fdatasync''s work \(it also flushes the file''s metadata\): that is noise, and it is never advised over it',
    '... and the advice says why');

-- 7. A commit test that timed the open_* methods with O_DIRECT (1.1's, or
-- mode => 'pg_test_fsync') while this server at wal_level replica does not
SELECT pg_temp.commit_test(908, '{open_datasync,fdatasync}', '{20000,5000}', how => ' (O_DIRECT)');
SELECT pg_temp.commit_test(909, '{open_datasync,fdatasync}', '{20000,5000}', how => '');
CREATE TEMP TABLE a7 AS SELECT * FROM wal;
SELECT is((SELECT suggested FROM a7), 'fdatasync',
    'commit tests that timed open_datasync with O_DIRECT (pg_test_fsync''s way, or 1.1''s) do not count: 907 still does');
SELECT matches((SELECT figures FROM a7),
    '^commit test 907 .*; not counted: commit test 909 \([-0-9: ]+\): it timed open_datasync and open_sync with O_DIRECT, and this server at wal_level replica opens its WAL without it; commit test 908 \([-0-9: ]+\): it timed open_datasync and open_sync with O_DIRECT',
    '... and both are named, with why');
SELECT is((SELECT direct FROM ranread_commit_summary WHERE commit_test = 909 AND method = 'open_datasync' LIMIT 1), true,
    'ranread_commit_summary says a 1.1 test''s open_datasync was direct');

-- 8. one round each: no noise to judge by
SELECT pg_temp.commit_test(910, '{open_datasync,fdatasync}', '{20000,5000}', rounds => 1);
SELECT matches((SELECT figures FROM wal),
    'commit test 910 .*open_datasync, 300% faster than fdatasync, the server''s wal_sync_method, but one round each shows nothing of the noise: fdatasync stays',
    'one round each: the current method stays, whatever the gap');

-- 9. A later commit test whose fdatasync rounds did not complete, and one
-- on another tablespace: neither counts
INSERT INTO b SELECT 911, m, pg_temp.commit_row(911, m, o, s)
  FROM (VALUES ('open_datasync', 9000, 'completed'), ('fdatasync', 1000, 'cancelled'), ('open_sync', 8000, 'completed')) v(m, o, s);
INSERT INTO b SELECT 912, m, pg_temp.commit_row(912, m, o, 'completed', 'pg_default')
  FROM (VALUES ('open_datasync', 1000), ('fdatasync', 9000)) v(m, o);
CREATE TEMP TABLE a9 AS SELECT * FROM wal;
SELECT is((SELECT suggested FROM a9), 'fdatasync',
    'a commit test whose fdatasync did not complete, or on another tablespace, does not count: commit test 910 still does');
SELECT matches((SELECT figures FROM a9),
    '^commit test 910 .*; not counted: commit test 911 \([-0-9: ]+\): the fastest of open_datasync, open_sync is open_datasync, but fdatasync, the server''s wal_sync_method, was not measured with them: nothing to compare it with',
    'the one that did not measure fdatasync is named');

-- 10. pg_monitor sees the same
DELETE FROM ranread_batches WHERE commit_test IN (910, 911, 912);
CREATE ROLE tap_advise_commit_monitor IN ROLE pg_monitor;
SET LOCAL ROLE tap_advise_commit_monitor;
SELECT is((SELECT suggested FROM ranread_advise() WHERE setting = 'wal_sync_method'), 'fdatasync', 'a member of pg_monitor gets the same advice');
RESET ROLE;
SELECT is((SELECT figures FROM ranread_advise() WHERE setting = 'wal_sync_method'),
          (SELECT figures FROM a7), 'two calls on an unchanged history give the same advice, to the letter');

SELECT * FROM finish();
ROLLBACK;
