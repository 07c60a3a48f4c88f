-- Whom studies and sweeps trust (docs/sweeps-and-studies.md, "Studies";
-- README, "Privileges"): a study's row in ranread_studies and a sweep's in
-- ranread_sweeps are recorded only by the call that ran it, as the extension's
-- owner, started by the role that ran it; no role granted 'run' can write a
-- row there (a forged row took the id the next study or sweep would take,
-- which then failed at its end, or carried a bound that is not a number and
-- broke every report); what the row says of the steps and points (the
-- figures, the verdict, the batches, the workload, why it stopped) is worked
-- out from the call's own batches in the history, never taken from the caller
-- (a role that registered a sweep of its own recorded 99,999,999 IOPS at
-- 0.001 ms pointing at another role's batch); a bound or time that is not
-- finite is refused by the tables' CHECKs; a stored bound that is not a
-- number (a row of 1.1) is shown as none by the charts and the report.
BEGIN;
SET LOCAL client_min_messages = warning;
SELECT plan(38);
\ir lib/util.psql

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
SELECT throws_ok(format($$SELECT ranread_internal.ranread_study_record(%s, 'study', 'ranread_study', 'SELECT * FROM ranread_study(x);', '{}', 1, 0, 'NaN', now(), 0, 'processes', '{}')$$,
                        (SELECT study FROM nxt)),
    '22023', format('study %s of ranread_study_record is not the study this session runs now', (SELECT study FROM nxt)),
    '... nor record the next study''s row through ranread_study_record');
SELECT throws_ok(format($$SELECT ranread_internal.ranread_sweep_record(%s, 1, 2, 10)$$,
                        (SELECT sweep FROM nxt)),
    '22023', format('sweep %s of ranread_sweep_record is not the sweep this session runs now', (SELECT sweep FROM nxt)),
    '... nor the next sweep''s through ranread_sweep_record');
-- a study id of its own, registered, and a bound that is not a number
CREATE TEMP TABLE reg AS SELECT ranread_internal.ranread_call_register('study', nextval('ranread_study_seq'))::text AS r;
SELECT throws_ok($$SELECT ranread_internal.ranread_study_record(currval('ranread_study_seq'), 'study', 'ranread_study', 'SELECT * FROM ranread_study(x);', '{}', 1, 0, 'NaN', now(), 0, 'processes', '{}')$$,
    '22023', 'invalid max_avg_ms NaN for ranread_study_record',
    '... and the row of its own study is refused with a bound that is not a number');

-- A sweep and a study of the role's own, registered, whose rows it records
-- itself: what they say comes from its own batches
CREATE TEMP TABLE mine AS SELECT nextval('ranread_sweep_seq') AS sweep;
SELECT ranread_internal.ranread_call_register('sweep', (SELECT sweep FROM mine));
-- the old recorder's arguments (steps of the caller's making: 99,999,999
-- IOPS at 0.001 ms, all-flash, at another's batch) are not taken
CREATE TEMP TABLE forged AS SELECT pg_temp.error_of(format($$SELECT ranread_internal.ranread_sweep_record(%s, now(), 1, 1, 10,
    '{"target": "ranread", "block_size": 8192, "write_pct": 0, "queue_depth": 1, "pattern": "random"}',
    ARRAY[ROW(1, 1, 1, 99999999, 0.001, 0.001, 0.001, 'completed')::ranread_sweep_step], 'max_processes: forged')$$,
    (SELECT sweep FROM mine)));
SELECT is((SELECT count(*) FROM ranread_sweeps WHERE sweep = (SELECT sweep FROM mine) OR max_iops >= 99999999), 0::bigint,
    'steps of the caller''s making record no sweep');
CREATE TEMP TABLE b1 AS SELECT batch FROM ranread_run_step(jsonb_build_object('sweep', (SELECT sweep FROM mine),
    'iterations', 50, 'target', 'ranread', 'groups', '[{"processes": 1}]'::jsonb)) WHERE grp = 0;
SELECT is(pg_temp.error_of(format('SELECT ranread_internal.ranread_sweep_record(%s, 1, 2, 10)', (SELECT sweep FROM mine))), NULL,
    'a sweep whose batches do not end it (1 of 1 to 2 processes) ...');
SELECT is((SELECT count(*) FROM ranread_sweeps WHERE sweep = (SELECT sweep FROM mine)), 0::bigint,
    '... is not recorded (a WARNING says so)');
SELECT is(pg_temp.error_of(format('SELECT ranread_internal.ranread_sweep_record(%s, 4, 8, 10)', (SELECT sweep FROM mine))), NULL,
    'nor is one whose batches are not the steps of its start and max_processes');
SELECT is((SELECT count(*) FROM ranread_sweeps WHERE sweep = (SELECT sweep FROM mine)), 0::bigint, '... (none)');
CREATE TEMP TABLE b2 AS SELECT batch FROM ranread_run_step(jsonb_build_object('sweep', (SELECT sweep FROM mine),
    'iterations', 50, 'target', 'ranread', 'groups', '[{"processes": 2}]'::jsonb)) WHERE grp = 0;
SELECT lives_ok(format('SELECT ranread_internal.ranread_sweep_record(%s, 1, 2, 10)', (SELECT sweep FROM mine)),
    'the steps of a sweep from 1 to 2 processes are recorded');
-- (the stop reason is the one its two batches give: 2 processes that gained
-- less than 10% of linear scaling over 1 stop on scaling, as on a loaded
-- machine they may; otherwise the sweep reached max_processes)
SELECT is((SELECT row(s.steps, s.started_by, s.max_iops = b.iops, s.actual_latency_ms = b.avg_ms,
                      s.max_iops_processes = b.processes, s.block_size,
                      s.stop_reason LIKE CASE WHEN x2.avg_ms > 10 AND x1.avg_ms > 10 THEN 'latency:%'
                                              WHEN x2.iops - x1.iops < 0.10 * x1.iops THEN 'scaling:%'
                                              ELSE 'max_processes:%' END)::text
             FROM ranread_sweeps s JOIN ranread_batches b ON b.batch = s.max_iops_batch,
                  ranread_batches x1, ranread_batches x2
            WHERE s.sweep = (SELECT sweep FROM mine) AND x1.batch = (SELECT batch FROM b1) AND x2.batch = (SELECT batch FROM b2)),
    '(2,tap_studies_run,t,t,t,8192,t)',
    '... with the figures, workload and stop reason of its own batches, started by the role');
SELECT ok((SELECT max_iops_batch IN ((SELECT batch FROM b1), (SELECT batch FROM b2)) FROM ranread_sweeps
            WHERE sweep = (SELECT sweep FROM mine)), '... whose verdict names one of them');
CREATE TEMP TABLE mys AS SELECT nextval('ranread_study_seq') AS study;
SELECT ranread_internal.ranread_call_register('study', (SELECT study FROM mys));
CREATE TEMP TABLE b3 AS SELECT batch FROM ranread_run_step(jsonb_build_object('study', (SELECT study FROM mys),
    'point', '{"n": 1, "processes": 1}'::jsonb, 'iterations', 50, 'target', 'ranread', 'groups', '[{"processes": 1}]'::jsonb)) WHERE grp = 0;
SELECT is(pg_temp.error_of(format($$SELECT ranread_internal.ranread_study_record(%s, 'grid', 'ranread_study', 'SELECT * FROM ranread_study(x);', '{}', 1, 0, 10, now(), 0, 'processes', '{}')$$,
                                  (SELECT study FROM mys))),
    '22023: invalid kind ''grid'', fn ''ranread_study'' or call of ranread_study_record',
    'a study''s kind is ''study'' or a profile''s name');
SELECT is(pg_temp.error_of(format($$SELECT ranread_internal.ranread_study_record(%s, 'study', 'ranread_study', 'SELECT * FROM ranread_study(x);', '{}', 0, 0, 10, now(), 0, 'processes', '{}')$$,
                                  (SELECT study FROM mys))),
    format('22023: invalid planned 0 and skipped 0 for ranread_study_record: study %s ran 1 points', (SELECT study FROM mys)),
    'planned counts at least the points run');
SELECT lives_ok(format($$SELECT ranread_internal.ranread_study_record(%s, 'study', 'ranread_study', 'SELECT * FROM ranread_study(x);', '{}', 5, 0, 10, now(), 0, 'processes', '{}')$$,
                       (SELECT study FROM mys)), 'a study of the role''s own is recorded');
SELECT is((SELECT row(planned, completed, skipped, target, started_by)::text FROM ranread_studies WHERE study = (SELECT study FROM mys)),
    '(5,1,0,ranread,tap_studies_run)', '... its completed points and target from its batches');

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
