-- Whom studies and sweeps trust (docs/sweeps-and-studies.md, "Studies";
-- README, "Privileges"): a study's row in ranread_studies and a sweep's in
-- ranread_sweeps are recorded only by the call that ran it, as the extension's
-- owner, started by the role that ran it; no role granted 'run' can write a
-- row there (a forged row took the id the next study or sweep would take,
-- which then failed at its end, or carried a bound that is not a number and
-- broke every report); a bound or time that is not finite is refused by the
-- tables' CHECKs; a stored bound that is not a number (a row of 1.1) is shown
-- as none by the charts and the report.
BEGIN;
SET LOCAL client_min_messages = warning;
SELECT plan(26);

SELECT lives_ok($$SELECT ranread_setup('64MB')$$, 'a small target');
CREATE ROLE tap_studies_run;
SELECT ok((SELECT count(*) > 0 FROM ranread_grant('tap_studies_run', 'run')), 'a role granted ''run''');

-- What 'run' gives of the two tables
SELECT is((SELECT count(*)::integer FROM ranread_internal.ranread_role_privileges('run')
            WHERE (object LIKE '%.ranread_studies' OR object LIKE '%.ranread_sweeps') AND privilege <> 'SELECT'), 0,
    '''run'' gives of ranread_studies and ranread_sweeps only SELECT');
SELECT ok(NOT has_table_privilege('tap_studies_run', 'ranread_studies', 'INSERT, UPDATE, DELETE, TRUNCATE'),
    'a role granted ''run'' may not change ranread_studies');
SELECT ok(NOT has_table_privilege('tap_studies_run', 'ranread_sweeps', 'INSERT, UPDATE, DELETE, TRUNCATE'),
    'a role granted ''run'' may not change ranread_sweeps');

-- The forgeries, as the role: the ids the next study and sweep will take
CREATE TEMP TABLE nxt AS
SELECT (SELECT last_value + 1 FROM ranread_study_seq) AS study, (SELECT last_value + 1 FROM ranread_sweep_seq) AS sweep;
GRANT SELECT ON nxt TO tap_studies_run;
SET LOCAL ROLE tap_studies_run;
SELECT throws_ok(format($$INSERT INTO ranread_studies SELECT g, 'grid', now(), now(), 'postgres', 'ranread', 'ranread_study(forged)', '{}', 1, 1, 0, 'NaN', NULL
                           FROM generate_series(%s, %s) g$$, (SELECT study FROM nxt), (SELECT study + 3 FROM nxt)),
    '42501', NULL, 'a role granted ''run'' cannot insert the rows of the next studies');
SELECT throws_ok(format($$INSERT INTO ranread_sweeps (sweep, started_at, finished_at, started_by, target, block_size, write_pct, queue_depth,
                           pattern, start, max_processes, max_avg_ms, steps, meets_flash_guidance)
                         VALUES (%s, now(), now(), 'postgres', 'ranread', 0, 0, 1, '<script>', 1, 2, 'NaN', 1, false)$$, (SELECT sweep FROM nxt)),
    '42501', NULL, '... nor the row of the next sweep');
SELECT throws_ok($$UPDATE ranread_studies SET max_avg_ms = 'NaN'$$, '42501', NULL, '... nor change a study''s bound');
SELECT throws_ok($$DELETE FROM ranread_sweeps$$, '42501', NULL, '... nor delete sweeps');
-- nor through the recorders, for an id its call did not take
SELECT throws_ok(format($$SELECT ranread_internal.ranread_study_record(%s, 'study', 'ranread_study', 'forged', '{}', '{}', now(), '{}', 'NaN', NULL, 0, 'processes')$$,
                        (SELECT study FROM nxt)),
    '22023', format('study %s of ranread_study_record is not the study this session runs now', (SELECT study FROM nxt)),
    '... nor record the next study''s row through ranread_study_record');
SELECT throws_ok(format($$SELECT ranread_internal.ranread_sweep_record(%s, now(), 1, 2, 10, '{"target": "ranread", "block_size": 8192, "write_pct": 0, "queue_depth": 1, "pattern": "random"}', '{}', NULL)$$,
                        (SELECT sweep FROM nxt)),
    '22023', format('sweep %s of ranread_sweep_record is not the sweep this session runs now', (SELECT sweep FROM nxt)),
    '... nor the next sweep''s through ranread_sweep_record');
-- a study id of its own, registered, and a bound that is not a number
CREATE TEMP TABLE reg AS SELECT ranread_internal.ranread_call_register('study', nextval('ranread_study_seq'))::text AS r;
SELECT throws_ok($$SELECT ranread_internal.ranread_study_record(currval('ranread_study_seq'), 'study', 'ranread_study', 'forged', '{}', '{}', now(), '{}', 'NaN', NULL, 0, 'processes')$$,
    '22023', 'invalid max_avg_ms NaN for ranread_study_record',
    '... and the row of its own study is refused with a bound that is not a number');

-- The real study and sweep, by the role
CREATE TEMP TABLE s1 AS SELECT * FROM ranread_study(processes => ARRAY[1,2], queue_depth => ARRAY[1], duration => '0.3s');
SELECT is((SELECT count(*)::integer FROM s1 WHERE status = 'completed'), 2, 'a role granted ''run'' runs a study');
CREATE TEMP TABLE w1 AS SELECT * FROM ranread_sweep(start => 1, max_processes => 2, duration => '0.3s');
SELECT ok((SELECT count(*) > 0 FROM w1), '... and a sweep');
RESET ROLE;

SELECT is((SELECT row(started_by, planned, completed, max_avg_ms)::text FROM ranread_studies WHERE study = (SELECT min(study) FROM s1)),
    '(tap_studies_run,2,2,10)', 'the study is recorded, started by the role that ran it');
SELECT ok((SELECT started_at <= (SELECT min(b.run_at) FROM ranread_batches b WHERE b.study = s.study) FROM ranread_studies s
            WHERE s.study = (SELECT min(study) FROM s1)), '... started before its first point');
SELECT is((SELECT row(started_by, max_avg_ms, steps)::text FROM ranread_sweeps
            WHERE sweep = (SELECT b.sweep FROM ranread_batches b WHERE b.batch = (SELECT min(batch) FROM w1))),
    format('(tap_studies_run,10,%s)', (SELECT count(*) FROM w1)), 'the sweep is recorded, started by the role that ran it');

-- The CHECKs, even for a superuser
SELECT throws_ok($$INSERT INTO ranread_studies VALUES (987654321, 'grid', now(), now(), 'postgres', 'ranread', 'x', '{}', 1, 1, 0, 'NaN', NULL)$$,
    '23514', NULL, 'a study''s bound of NaN is refused by the table''s CHECK, even for a superuser');
SELECT throws_ok($$INSERT INTO ranread_studies VALUES (987654321, 'grid', now(), 'infinity', 'postgres', 'ranread', 'x', '{}', 1, 1, 0, 10, NULL)$$,
    '23514', NULL, '... and a time that is not finite');
SELECT throws_ok($$INSERT INTO ranread_sweeps (sweep, started_at, finished_at, target, block_size, write_pct, queue_depth,
                   pattern, start, max_processes, max_avg_ms, steps, meets_flash_guidance)
                 VALUES (987654321, now(), now(), 'ranread', 8192, 0, 1, 'random', 1, 2, 'Infinity', 1, false)$$,
    '23514', NULL, 'a sweep''s bound of Infinity is refused by the table''s CHECK');
SELECT throws_ok($$INSERT INTO ranread_sweeps (sweep, started_at, finished_at, target, block_size, write_pct, queue_depth,
                   pattern, start, max_processes, max_avg_ms, steps, meets_flash_guidance)
                 VALUES (987654321, now(), now(), 'ranread', 0, 0, 1, 'random', 1, 2, 10, 1, false)$$,
    '23514', NULL, '... and a block size of 0');

-- A bound that is not a number in a row of 1.1 (the CHECKs dropped here,
-- in this transaction only): the charts and the report show it as none
ALTER TABLE ranread_studies DROP CONSTRAINT ranread_studies_max_avg_ms_finite;
ALTER TABLE ranread_sweeps DROP CONSTRAINT ranread_sweeps_max_avg_ms_finite;
UPDATE ranread_studies SET max_avg_ms = 'NaN' WHERE study = (SELECT min(study) FROM s1);
UPDATE ranread_sweeps SET max_avg_ms = 'NaN'
 WHERE sweep = (SELECT b.sweep FROM ranread_batches b WHERE b.batch = (SELECT min(batch) FROM w1));
SET LOCAL ROLE tap_studies_run;
SELECT ok((SELECT ranread_study_chart((SELECT min(study) FROM s1)) LIKE '%<svg %</svg>%'),
    'a study whose stored bound is NaN still has its chart');
SELECT ok((SELECT ranread_chart((SELECT b.sweep FROM ranread_batches b WHERE b.batch = (SELECT min(batch) FROM w1))) LIKE '%<svg %</svg>%'),
    '... and a sweep whose stored bound is NaN');
SELECT ok((SELECT ranread_report() LIKE '%<svg %'), '... and ranread_report works for the role');
SELECT ok((SELECT ranread_report(study => (SELECT min(study) FROM s1)) LIKE '%<svg %'), '... with that study');
SELECT ok((SELECT ranread_report(sweep => (SELECT b.sweep FROM ranread_batches b WHERE b.batch = (SELECT min(batch) FROM w1))) LIKE '%<svg %'),
    '... and with that sweep');
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;
