-- ranread_advise beside wal_sync_method cites the latest durability check
-- (method, when, verdict, N acknowledged / k lost), or says none was run;
-- a check that lost acknowledged writes is also a warning.  Its row on
-- full_page_writes follows from whether the storage guarantees atomic 8 kB
-- writes (ranread_advise_full_page_writes, fed either answer here; what
-- this machine reports is test/shell/57_atomic_writes.sh).
BEGIN;
SET LOCAL client_min_messages = warning;
SELECT plan(14);

DELETE FROM ranread_durability;
CREATE TEMP VIEW w AS SELECT * FROM ranread_advise() WHERE setting = 'wal_sync_method';

-- 1. No check on record
SELECT matches((SELECT figures FROM w),
    '; no durability check on record: CALL ranread_durability_start\(\.\.\.\) then ranread_durability_check\(\) after a power cut$',
    'with no durability check, the wal_sync_method advice says none was run and how to run one');
SELECT is((SELECT warning FROM w), NULL, '... and warns of nothing');

-- 2. A check that lost nothing, then one purged unchecked (not cited)
INSERT INTO ranread_durability (durability, started, tablespace, method, duration, blocks, status,
                                acknowledged, checked, checked_writes, lost, torn, verdict)
VALUES (9001, now() - interval '2 hours', 'rig', 'fdatasync', '60s', 1024, 'checked', 120,
        '2026-11-30 10:15', 120, 0, 0, 'flushes honoured: 120 acknowledged writes, 0 lost'),
       (9002, now() - interval '1 hour', 'rig', 'fdatasync', '60s', 1024, 'checked', 0,
        now(), NULL, NULL, NULL, 'purged unchecked');
SELECT matches((SELECT figures FROM w),
    '; durability check 9001 \(fdatasync on tablespace rig, 2026-11-30 10:15\): 120 acknowledged, 0 lost$',
    'a check that lost nothing is cited: its number, method, tablespace, when, N acknowledged / 0 lost');
SELECT is((SELECT warning FROM w), NULL, '... with no warning');

-- 3. A later check that lost writes, with another method than the server's
INSERT INTO ranread_durability (durability, started, tablespace, method, duration, blocks, status,
                                acknowledged, checked, checked_writes, lost, torn, verdict)
VALUES (9003, now(), 'rig', 'open_sync', '60s', 32, 'checked', 500, '2026-12-01 09:00', 32, 5, 0, 'LOST 5 of 32 ...');
SELECT matches((SELECT figures FROM w),
    '; durability check 9003 \(open_sync on tablespace rig, 2026-12-01 09:00\): LOST 5 of 32 acknowledged writes checked \(500 acknowledged\); '
    'it checked open_sync, not fdatasync, the server''s wal_sync_method$',
    'the latest check is cited: LOST k of N, and that it checked another method than the server''s');
SELECT matches((SELECT warning FROM w),
    '^durability check 9003 lost 5 of 32 acknowledged writes after a power cut: that storage does not keep what it flushes, whatever wal_sync_method says; disable its volatile write cache',
    '... and the warning says the storage does not keep what it flushes, and what to do');
SELECT is((SELECT count(*) FROM ranread_advise() WHERE warning IS NOT NULL AND setting <> 'wal_sync_method'), 0::bigint,
    '... on the wal_sync_method row only');

-- 4. The citation alone, as the advisor makes it
SELECT is((SELECT citation FROM ranread_internal.ranread_advise_durability(NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'fsync')),
    'no durability check on record: CALL ranread_durability_start(...) then ranread_durability_check() after a power cut',
    'ranread_advise_durability with no check: none on record');

-- 5. full_page_writes from the facts: both answers
SELECT results_eq($$SELECT suggested, figures ~ '^rig: n1; pg_default: n2: not guaranteed: keep full_page_writes = on'
                      FROM ranread_internal.ranread_advise_full_page_writes('{rig,pg_default}', '{true,false}', '{n1,n2}', 'on')$$,
    $$VALUES ('on', true)$$,
    'atomic 8 kB writes not guaranteed on one of the tablespaces: keep full_page_writes = on');
SELECT results_eq($$SELECT suggested FROM ranread_internal.ranread_advise_full_page_writes('{rig}', '{false}', '{n}', 'off')$$,
    $$VALUES ('on')$$,
    '... and a server that has it off is told to turn it on');
SELECT results_eq($$SELECT suggested, figures ~ '^rig: n1; pg_default: n2: atomic 8 kB writes guaranteed: full_page_writes = off is safe only if every page write reaches that storage as one such write: .*RWF_ATOMIC'
                      FROM ranread_internal.ranread_advise_full_page_writes('{rig,pg_default}', '{true,true}', '{n1,n2}', 'on')$$,
    $$VALUES ('on', true)$$,
    'guaranteed on every tablespace: the current value stays, and off is safe only under the conditions named');
SELECT results_eq($$SELECT suggested FROM ranread_internal.ranread_advise_full_page_writes('{rig}', '{NULL}', '{NULL}', 'on')$$,
    $$VALUES ('on')$$,
    'unknown counts as not guaranteed');
SELECT results_eq($$SELECT f.suggested, f.figures
                      FROM ranread_advise() a, ranread_internal.ranread_atomic_writes(NULL) w,
                           ranread_internal.ranread_advise_full_page_writes('{pg_default}', ARRAY[w.atomic_8k], ARRAY[w.note],
                                                                            current_setting('full_page_writes')) f
                     WHERE a.setting = 'full_page_writes'$$,
    $$SELECT suggested, figures FROM ranread_advise() WHERE setting = 'full_page_writes'$$,
    'ranread_advise''s row on full_page_writes is that function of what statx says of the tablespace');
SELECT is((SELECT apply_sql FROM ranread_advise() WHERE setting = 'full_page_writes'),
    CASE WHEN (SELECT atomic_8k FROM ranread_internal.ranread_atomic_writes(NULL)) OR current_setting('full_page_writes') = 'on'
         THEN NULL ELSE 'ALTER SYSTEM SET full_page_writes = ''on''; SELECT pg_reload_conf();' END,
    'nothing to apply while full_page_writes is on');

SELECT * FROM finish();
ROLLBACK;
