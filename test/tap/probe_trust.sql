-- Whom the watch trusts (docs/keeping-watch.md, "Keeping watch"; README,
-- "Privileges"): only the probe records a probe, as the extension's owner,
-- from the batch it just ran and at the time that batch ran; no role granted
-- 'run' or 'probe' can write a row of ranread_probes (a forged probe at
-- 'infinity' would freeze its tablespace's health and break its chart); a role
-- granted 'probe' probes within the cap but runs no other batch; the probe's
-- batch is the role's that called it (started_by), not the owner's; probes
-- take at most ranread.probe_max_share of ranread.probe_share_window
-- (back-to-back probes held the cluster's one batch); the job a probe records
-- is only the pg_cron job this session runs; a probe's io_priority is never
-- realtime.
BEGIN;
SET LOCAL client_min_messages = warning;
SELECT plan(46);
\ir lib/util.psql

SELECT ok((SELECT size_bytes > 0 FROM ranread_probe_setup('pg_default', '16MB')), 'a probe target for pg_default');
CREATE ROLE tap_trust_run;
CREATE ROLE tap_trust_probe;
SELECT ok((SELECT count(*) > 0 FROM ranread_grant('tap_trust_run', 'run')), 'a role granted ''run''');
SELECT ok((SELECT count(*) > 0 FROM ranread_grant('tap_trust_probe', 'probe')), 'a role granted ''probe''');

-- What 'probe' and 'run' give of ranread_probes and ranread_run_step
SELECT is((SELECT count(*)::integer FROM ranread_internal.ranread_role_privileges('probe')
            WHERE (object LIKE '%.ranread_probes' AND privilege <> 'SELECT')
               OR object LIKE '%.ranread_run_step(%' OR object LIKE '%.ranread_run(%'
               OR object LIKE '%.ranread_setup(%' OR object LIKE '%.ranread_probe_setup(%'), 0,
    '''probe'' gives no batch runner, no setup and of ranread_probes only SELECT');
SELECT is((SELECT count(*)::integer FROM ranread_internal.ranread_role_privileges('probe')
            WHERE object LIKE '%.ranread_probe(%' OR object LIKE '%.ranread_probe_schedule(%'
               OR object LIKE '%.ranread_probe_schedules(%' OR object LIKE '%.ranread_probe_unschedule(%'), 4,
    '''probe'' gives the probe and its schedule functions');
SELECT is(ARRAY(SELECT privilege FROM ranread_internal.ranread_role_privileges('run') WHERE object LIKE '%.ranread_probes'),
    ARRAY['SELECT'], '''run'' gives only SELECT on ranread_probes (no INSERT)');
SELECT ok(NOT has_table_privilege('tap_trust_run', 'ranread_probes', 'INSERT, UPDATE, DELETE, TRUNCATE'),
    'a role granted ''run'' may not change ranread_probes');
SELECT ok(NOT has_function_privilege('tap_trust_probe', 'ranread_run_step(jsonb)', 'EXECUTE'),
    'a role granted ''probe'' may not call ranread_run_step (which has no cap)');

-- A real probe by each role, then the forgeries
SET LOCAL ROLE tap_trust_probe;
CREATE TEMP TABLE t1 AS SELECT * FROM ranread_probe('pg_default', duration => '1s', rate_iops => 50);
SELECT is((SELECT status FROM t1), 'completed', 'a role granted only ''probe'' runs a probe within the cap');
SELECT is((SELECT started_by::text FROM ranread_batches WHERE batch = (SELECT batch FROM t1)), 'tap_trust_probe',
    '... whose batch is its own: started by the role that called the probe, not the extension''s owner');
SELECT throws_ok($$SELECT * FROM ranread_internal.ranread_step_as('{"groups": [{"processes": 1}]}', 'tap_trust_probe')$$,
    '42501', NULL, '... it cannot run a batch through the probe''s own ranread_step_as');
SELECT throws_ok($$SET ranread.probe_max_share = 100$$, '42501', NULL, '... nor raise ranread.probe_max_share');
SELECT throws_ok($$SELECT * FROM ranread_probe(rate_iops => 5000)$$, '22023',
    'rate_iops of ranread_probe must be between 1 and 1000 (ranread.probe_max_iops), not 5000',
    '... and its probe above the cap is refused');
SELECT throws_ok($$SELECT * FROM ranread_run_step('{"target": "ranread_probe_pg_default", "groups": [{"processes": 16}], "duration": "1s"}')$$,
    '42501', NULL, '... it cannot run an uncapped batch through ranread_run_step');
SELECT throws_ok($$SELECT * FROM ranread_run(1, 10, target => 'ranread_probe_pg_default')$$,
    '42501', NULL, '... nor through ranread_run');
SELECT throws_ok($$INSERT INTO ranread_probes (batch, tablespace, probed_at) VALUES (987654321, 'pg_default', 'infinity')$$,
    '42501', NULL, '... nor record a probe of its own making');
SELECT throws_ok($$SELECT ranread_probe_setup('pg_default')$$, '42501', NULL, '... nor make a probe target');
SELECT ok((SELECT ranread_probe_chart('pg_default') LIKE '%<svg %</svg>%'), '... and it draws the probe chart');
RESET ROLE;

SET LOCAL ROLE tap_trust_run;
SELECT throws_ok($$INSERT INTO ranread_probes (batch, tablespace, probed_at) VALUES (987654321, 'pg_default', 'infinity')$$,
    '42501', NULL, 'a role granted ''run'' cannot insert a probe at ''infinity''');
SELECT throws_ok($$INSERT INTO ranread_probes (batch, tablespace) VALUES (1, 'nonexistent_ts')$$,
    '42501', NULL, '... nor a probe of a tablespace that does not exist or of a batch that is no probe');
SELECT throws_ok($$UPDATE ranread_probes SET probed_at = 'infinity'$$, '42501', NULL, '... nor move a probe''s time');
SELECT throws_ok($$DELETE FROM ranread_probes$$, '42501', NULL, '... nor delete probes');
SELECT throws_ok($$INSERT INTO ranread_probe_verdicts (batch, tablespace, probed_at, status) VALUES (1, 'pg_default', 'infinity', 'ok')$$,
    '42501', NULL, '... nor write a verdict');
SELECT throws_ok($$INSERT INTO ranread_baselines (tablespace) VALUES ('pg_default')$$,
    '42501', NULL, '... nor a baseline');
CREATE TEMP TABLE t2 AS SELECT * FROM ranread_probe('pg_default', duration => '1s', rate_iops => 50);
SELECT is((SELECT status FROM t2), 'completed', 'a role granted ''run'' still runs probes');
SELECT ok((SELECT ranread_probe_chart('pg_default') LIKE '%<svg %</svg>%'), '... and draws the chart');
SELECT is((SELECT last_batch FROM ranread_health WHERE tablespace = 'pg_default'), (SELECT batch FROM t2),
    '... and the health of pg_default is its last real probe');
RESET ROLE;

SELECT is((SELECT format('%s|%s', (p.probed_at = b.run_at)::text, b.target) FROM ranread_probes p JOIN ranread_batches b USING (batch)
            WHERE p.batch = (SELECT batch FROM t2)),
    'true|ranread_probe_pg_default', 'the row recorded is the probe''s own batch, on the probe target, at the time it ran');
-- even the owner cannot record a probe at a time that is not finite
SELECT throws_ok($$INSERT INTO ranread_probes (batch, tablespace, probed_at) VALUES (987654321, 'pg_default', 'infinity')$$,
    '23514', NULL, 'a row of ranread_probes at ''infinity'' is refused by its CHECK, even for a superuser');
SELECT throws_ok($$INSERT INTO ranread_probes (batch, tablespace, probed_at) VALUES (987654321, 'pg_default', '-infinity')$$,
    '23514', NULL, '... and at ''-infinity''');

-- io_priority: never realtime for a probe, refused before any batch runs
CREATE TEMP TABLE n0 AS SELECT count(*) AS n FROM ranread_batches;
SELECT throws_ok($$SELECT * FROM ranread_probe(io_priority => 'realtime:0')$$, '22023',
    'io_priority of ranread_probe must not be realtime, not ''realtime:0''',
    'a probe at io_priority ''realtime:0'' is refused at the call, naming the argument and the value');
SELECT is((SELECT count(*) FROM ranread_batches), (SELECT n FROM n0), '... and no batch ran for it');
SELECT throws_ok($$SELECT * FROM ranread_probe(job => repeat('j', 100000))$$, '22023',
    'job of ranread_probe must be NULL or ''ranread probe pg_default'', not ''' || repeat('j', 64) || '...''',
    'a job name of 100 kB is refused');
SELECT throws_ok($$SELECT * FROM ranread_probe(job => 'ranread probe pg_global')$$, '22023',
    'job of ranread_probe must be NULL or ''ranread probe pg_default'', not ''ranread probe pg_global''',
    '... and so is the job of another tablespace');
CREATE TEMP TABLE t3 AS SELECT * FROM ranread_probe(duration => '0.2s', rate_iops => 50, job => 'ranread probe pg_default');
SELECT is((SELECT coalesce(job, 'none') FROM ranread_probes WHERE batch = (SELECT batch FROM t3)), 'none',
    'a probe by hand that names its tablespace''s job records no job: only pg_cron''s run of it does (77_probe_cron.sh)');

-- the share of time: at most ranread.probe_max_share of the window, for
-- every role (here 1% of 60 s: 0.6 s)
SET LOCAL ranread.probe_max_share = 1;
SET LOCAL ranread.probe_share_window = 60;
SELECT is(pg_temp.error_of($$SELECT * FROM ranread_probe(duration => '1s', rate_iops => 20)$$),
    '22023: duration of ranread_probe must be at most 0.6 s, ranread.probe_max_share (1%) of ranread.probe_share_window (60 s), not 00:00:01',
    'a probe longer than its share of the window is refused, naming the settings');
SET LOCAL ranread.probe_max_share = 3;
SET LOCAL ROLE tap_trust_probe;
SELECT is(pg_temp.error_of($$SELECT * FROM ranread_probe(duration => '0.5s', rate_iops => 20)$$),
    '55000: ranread_probe would take probes past ranread.probe_max_share (3%) of the last 60 s',
    'back-to-back probes: one past the share of the last minute (1.8 s) is refused (this file''s probes took 2.2 s of it already)');
RESET ROLE;
SET LOCAL ranread.probe_max_share = 50;
SELECT is(pg_temp.error_of($$SELECT * FROM ranread_probe(duration => '0.5s', rate_iops => 20)$$), NULL,
    '... and runs within a larger share');
RESET ranread.probe_max_share;
RESET ranread.probe_share_window;

-- ranread_probe_setup's errors name it and the argument
SELECT throws_ok($$SELECT ranread_probe_setup('pg_default', '-1MB')$$, '22023',
    'size of ranread_probe_setup must be a size of at least 1 MB, not ''-1MB''',
    'ranread_probe_setup refuses a size below 1 MB, naming itself, the argument and the value');
SELECT throws_ok($$SELECT ranread_probe_setup('pg_default', 'lots')$$, '22023',
    'size of ranread_probe_setup must be a size of at least 1 MB, not ''lots''', '... and a size that is no size');
SELECT throws_ok($$SELECT ranread_probe_setup('nonexistent')$$, '42704',
    'tablespace "nonexistent" of ranread_probe_setup does not exist', '... and a tablespace that does not exist');

-- Revoking: 'run' takes its probes with it; revoking 'probe' keeps what 'run' needs
SELECT lives_ok($$SELECT ranread_revoke('tap_trust_run', 'probe')$$, 'revoking ''probe'' from a ''run'' role');
SELECT ok(has_function_privilege('tap_trust_run', 'ranread_probe(name, interval, integer, text, text)', 'EXECUTE'),
    '... keeps its probes (''run'' needs them)');
SELECT lives_ok($$SELECT ranread_revoke('tap_trust_run', 'run')$$, 'revoking ''run''');
SELECT ok(NOT has_function_privilege('tap_trust_run', 'ranread_probe(name, interval, integer, text, text)', 'EXECUTE'),
    '... takes its probes too (''probe'' is part of ''run'')');
SELECT ok(has_function_privilege('tap_trust_probe', 'ranread_probe(name, interval, integer, text, text)', 'EXECUTE')
          AND has_table_privilege('tap_trust_probe', 'ranread_batches', 'SELECT'),
    'a role granted ''probe'' may probe and read the history');

SELECT * FROM finish();
ROLLBACK;
