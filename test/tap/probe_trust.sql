-- Whom the watch trusts (docs/keeping-watch.md, "Keeping watch"; README,
-- "Privileges"): only the probe records a probe, as the extension's owner,
-- from the batch it just ran and at the time that batch ran; no role granted
-- 'run' or 'probe' can write a row of ranread_probes (a forged probe at
-- 'infinity' would freeze its tablespace's health and break its chart); a role
-- granted 'probe' probes within the cap but runs no other batch; a probe's
-- io_priority is never realtime.
BEGIN;
SET LOCAL client_min_messages = warning;
SELECT plan(38);

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
    'job of ranread_probe must be at most 200 bytes, not 100000 bytes', 'a job name of 100 kB is refused');

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
