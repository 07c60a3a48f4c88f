-- The probe (docs/keeping-watch.md, "Keeping watch"): ranread_probe runs one
-- small paced read-only batch on the tablespace's probe target, which only
-- ranread_probe_setup makes, within a cap that only a superuser raises, and
-- lists it in ranread_probes once its batch is recorded completed; io_priority
-- is checked as every option is; ranread_reset removes probes with their
-- batches; without pg_cron the schedule functions say how to install it.
BEGIN;
SET LOCAL client_min_messages = warning;
SELECT plan(39);

-- No probe target yet: an error that says how to make one, and no batch
CREATE TEMP TABLE probe_mark AS SELECT coalesce(max(batch), 0) AS batch FROM ranread_batches;
SELECT throws_like($$SELECT * FROM ranread_probe('pg_default')$$,
    'tablespace "pg_default" has no probe target',
    'a probe without a probe target is an error: it never makes one itself');
SELECT throws_ok($$SELECT * FROM ranread_probe('pg_default')$$, '42704', NULL,
    '... with SQLSTATE 42704 (undefined_object)');
CREATE TEMP TABLE hint AS SELECT ''::text AS hint;
DO $$
DECLARE h text;
BEGIN
    PERFORM * FROM ranread_probe('pg_default');
EXCEPTION WHEN undefined_object THEN
    GET STACKED DIAGNOSTICS h = PG_EXCEPTION_HINT;
    UPDATE hint SET hint = h;
END
$$;
SELECT is((SELECT hint FROM hint), 'SELECT ranread_probe_setup(''pg_default''); makes it (256 MB by default; its size argument chooses).',
    'its hint is the call that makes it');
SELECT throws_ok($$SELECT * FROM ranread_probe('no_such_space')$$, '42704',
    'tablespace "no_such_space" of ranread_probe does not exist',
    'a tablespace that does not exist is an error naming it');
SELECT throws_ok($$SELECT * FROM ranread_probe(NULL)$$, '22004',
    'tablespace of ranread_probe must not be null',
    'a NULL tablespace is an error naming the argument');

-- The probe target: small, in the tablespace, by name
SELECT is((SELECT target::text || '|' || size_bytes FROM ranread_probe_setup('pg_default', '32MB')),
    'ranread_probe_pg_default|33554432',
    'ranread_probe_setup makes the tablespace''s probe target, ranread_probe_pg_default, of the size asked');
SELECT is((SELECT tablespace::text FROM ranread_targets WHERE target = 'ranread_probe_pg_default'), 'pg_default',
    'in that tablespace');
SELECT is((SELECT pg_get_function_arg_default('ranread_probe_setup'::regproc, 2)), '''256MB''::text',
    'its default size is 256 MB');

-- The cap, before anything runs
SELECT throws_ok($$SELECT * FROM ranread_probe(rate_iops => 1001)$$, '22023',
    'rate_iops of ranread_probe must be between 1 and 1000 (ranread.probe_max_iops), not 1001',
    'a probe above ranread.probe_max_iops (1000 by default) is refused, naming the argument, the value and the cap');
SELECT throws_ok($$SELECT * FROM ranread_probe(duration => '61s')$$, '22023',
    'duration of ranread_probe must be at most 60 seconds (ranread.probe_max_seconds), not 00:01:01',
    'a probe longer than ranread.probe_max_seconds (60 s by default) is refused, naming the argument, the value and the cap');
SELECT throws_ok($$SELECT * FROM ranread_probe(rate_iops => NULL)$$, '22004',
    NULL, 'a probe must be paced: a NULL rate_iops is refused');
SET LOCAL ranread.probe_max_iops = 50;
SELECT throws_ok($$SELECT * FROM ranread_probe(rate_iops => 100)$$, '22023',
    'rate_iops of ranread_probe must be between 1 and 50 (ranread.probe_max_iops), not 100',
    'the cap is the setting''s value now');
RESET ranread.probe_max_iops;
SELECT is((SELECT context FROM pg_settings WHERE name = 'ranread.probe_max_iops') || '|' ||
          (SELECT context FROM pg_settings WHERE name = 'ranread.probe_max_seconds'), 'superuser|superuser',
    'both caps are superuser settings');
SELECT is((SELECT count(*)::integer FROM ranread_batches WHERE target = 'ranread_probe_pg_default'
                                                            AND batch > (SELECT batch FROM probe_mark)), 0,
    'no refused probe ran a batch');

-- io_priority's errors name the argument, for any batch
SELECT throws_ok($$SELECT * FROM ranread_probe(io_priority => 'idle:3')$$, '22023',
    'invalid io_priority "idle:3" for ranread_probe',
    'io_priority ''idle:3'' is refused: the idle class has no level');
SELECT throws_ok($$SELECT * FROM ranread_run(1, 10, target => 'ranread_probe_pg_default', io_priority => 'best-effort:8')$$, '22023',
    'invalid io_priority "best-effort:8" for ranread_run',
    'io_priority ''best-effort:8'' is refused by ranread_run: levels are 0 to 7');
SELECT throws_ok($$SELECT * FROM ranread_run(1, 10, target => 'ranread_probe_pg_default', io_priority => 'fast')$$, '22023',
    'invalid io_priority "fast" for ranread_run',
    'an unknown class is refused');
SELECT throws_ok($$SELECT * FROM ranread_run_step('{"groups": [{"processes": 1}], "iterations": 10, "io_priority": 7}')$$, '22023',
    'io_priority of ranread_run_step must be a string, not a number',
    'in a spec, io_priority is a string');
SELECT is((SELECT level || '|' || type::text FROM ranread_options() WHERE name = 'io_priority'), 'batch|text',
    'io_priority is a batch option of the one workload definition (ranread_options)');
SELECT is((SELECT pg_get_function_arg_default(p.oid, array_position(p.proargnames, 'io_priority')) FROM pg_proc p
            WHERE p.proname = 'ranread_run' AND 'io_priority' = ANY (p.proargnames)), 'NULL::text',
    'ranread_run takes io_priority, NULL (the server''s own priority) by default');

-- A probe: paced, read-only, QD1, 8 KiB, recorded, listed
CREATE TEMP TABLE p1 AS SELECT * FROM ranread_probe('pg_default', duration => '2s', rate_iops => 100);
SELECT is((SELECT status FROM p1), 'completed', 'a probe of 2 s at 100 IOPS completes');
SELECT ok((SELECT iops BETWEEN 85 AND 115 AND reads BETWEEN 170 AND 230 FROM p1),
    'it ran at its paced rate: within 15% of 100 IOPS and 200 reads');
SELECT is((SELECT format('%s|%s|%s|%s|%s|%s|%s|%s|%s', target, processes, queue_depth, block_size, write_pct,
                         writes, rate_iops, pattern, status)
             FROM ranread_batches WHERE batch = (SELECT batch FROM p1)),
    'ranread_probe_pg_default|1|1|8192|0|0|100|random|completed',
    'its batch: the probe target, one process at queue depth 1, 8 KiB reads and no write, paced at 100 IOPS, completed');
SELECT is((SELECT format('%s|%s|%s', p.tablespace, coalesce(p.job, 'no job'), p.probed_at = b.run_at)
             FROM ranread_probes p JOIN ranread_batches b USING (batch) WHERE p.batch = (SELECT batch FROM p1)),
    'pg_default|no job|t',
    'ranread_probes lists it once its batch is completed: its tablespace, no job (run by hand), when it ran');

CREATE TEMP TABLE p2 AS SELECT * FROM ranread_probe(duration => '1s', rate_iops => 50, job => 'ranread probe pg_default');
SELECT is((SELECT coalesce(job, 'none') FROM ranread_probes WHERE batch = (SELECT batch FROM p2)), 'none',
    'a probe by hand that names its job records none: only pg_cron''s run of the job records it (77_probe_cron.sh)');

-- A role granted 'run' probes, within the cap, and cannot raise it
CREATE ROLE tap_probe_monitor;
SELECT ok((SELECT count(*) > 0 FROM ranread_grant('tap_probe_monitor', 'run')), 'ranread_grant gives a role ''run''');
SET LOCAL ROLE tap_probe_monitor;
SELECT throws_ok($$SET ranread.probe_max_iops = 100000$$, '42501', NULL,
    'a role that is not a superuser cannot raise ranread.probe_max_iops');
SELECT throws_ok($$SET ranread.probe_max_seconds = 3600$$, '42501', NULL,
    '... nor ranread.probe_max_seconds');
SELECT throws_ok($$SELECT * FROM ranread_probe(rate_iops => 5000)$$, '22023',
    'rate_iops of ranread_probe must be between 1 and 1000 (ranread.probe_max_iops), not 5000',
    'and its probe above the cap is refused');
CREATE TEMP TABLE p3 AS SELECT * FROM ranread_probe(duration => '1s', rate_iops => 50);
SELECT is((SELECT status FROM p3), 'completed', 'a role granted ''run'' runs a probe within the cap');
RESET ROLE;
SELECT is((SELECT count(*)::integer FROM ranread_probes WHERE batch = (SELECT batch FROM p3)), 1,
    '... listed in ranread_probes');
SELECT is((SELECT count(*)::integer FROM ranread_probe_verdicts WHERE batch = (SELECT batch FROM p3)), 1,
    '... and judged against its tablespace''s baseline, though the role may not write the verdicts itself');

-- Without pg_cron (not installed here), the schedule says how to get it
SELECT throws_like($$SELECT ranread_probe_schedule('pg_default')$$,
    'ranread_probe_schedule needs the extension pg_cron, which is not installed in database %',
    'without pg_cron, ranread_probe_schedule is an error that says pg_cron is missing');
CREATE TEMP TABLE cron_hint AS SELECT ''::text AS hint;
DO $$
DECLARE h text;
BEGIN
    PERFORM ranread_probe_schedules();
EXCEPTION WHEN feature_not_supported THEN
    GET STACKED DIAGNOSTICS h = PG_EXCEPTION_HINT;
    UPDATE cron_hint SET hint = h;
END
$$;
SELECT ok((SELECT hint LIKE '%apt install postgresql-15-cron%' AND hint LIKE '%shared_preload_libraries = ''pg_cron''%'
              AND hint LIKE '%cron.database_name%' AND hint LIKE '%CREATE EXTENSION pg_cron%'
              AND hint LIKE '%cron.use_background_workers = on (or cron.host = %' FROM cron_hint),
    'its hint says how: the Debian package, shared_preload_libraries, cron.database_name, background workers or cron.host (pg_cron''s jobs fail on a stock pg_hba.conf without one), CREATE EXTENSION pg_cron');
SELECT throws_ok($$SELECT ranread_probe_unschedule('pg_default')$$, '0A000', NULL,
    'ranread_probe_unschedule too (feature_not_supported)');

-- ranread_reset removes probes with their batches
SELECT ok((SELECT ranread_reset(before => (SELECT run_at FROM ranread_batches WHERE batch = (SELECT batch FROM p2)))) >= 1,
    'ranread_reset(before) removes the batches before the second probe');
SELECT is(ARRAY(SELECT batch FROM ranread_probes ORDER BY batch), ARRAY[(SELECT batch FROM p2), (SELECT batch FROM p3)],
    'the first probe''s row goes with its batch; the later probes stay');
SELECT cmp_ok(ranread_reset(), '>=', 2::bigint, 'ranread_reset() removes the batches left, the two probes'' among them');
SELECT is((SELECT count(*)::integer FROM ranread_probes), 0, 'ranread_reset() removes every probe with its batch');

SELECT * FROM finish();
ROLLBACK;
