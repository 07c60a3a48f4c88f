-- Roles (README, "Privileges"): ranread_grant(role, what) gives a role that
-- is not a superuser what 'run', 'report' or 'export' needs, and nothing
-- of the rest; ranread_revoke takes it back.  End to end: a runner makes a
-- target, runs a batch and a sweep and reads the summary; a reporter reads
-- the history and the charts, cannot run, and the error says what to
-- grant; an exporter writes an export file; after a revoke each is refused
-- again.
BEGIN;
SET LOCAL client_min_messages = warning;
SELECT plan(31);
\ir lib/util.psql

CREATE ROLE tap_roles_runner;
CREATE ROLE tap_roles_reporter;
CREATE ROLE tap_roles_exporter;
CREATE TEMP TABLE dir AS SELECT '/tmp/ranread_roles_test_' || pg_backend_pid() AS d;
GRANT SELECT ON dir TO PUBLIC;
DO $$
BEGIN
    EXECUTE format('COPY (SELECT 1) TO PROGRAM %L', format('rm -rf %1$s && mkdir %1$s', (SELECT d FROM pg_temp.dir)));
END
$$;

-- Arguments
SELECT is(pg_temp.error_of($$SELECT ranread_grant('tap_roles_runner', 'runs')$$),
          '22023: invalid what for ranread_grant: ''runs''',
    'ranread_grant refuses what it does not know, naming the argument and the value');
SELECT alike(pg_temp.hint_of($$SELECT ranread_grant('tap_roles_runner', 'runs')$$), '''run'' %''report'' %''export''%',
    '... and its hint lists run, report and export');
SELECT is(pg_temp.error_of($$SELECT ranread_grant(NULL, 'run')$$), '22004: role of ranread_grant must not be null',
    'a NULL role is refused');
SELECT is(pg_temp.error_of($$SELECT ranread_revoke('tap_roles_runner', NULL)$$), '22023: invalid what for ranread_revoke: NULL',
    'ranread_revoke checks its arguments alike');
SELECT ok(NOT has_function_privilege('pg_monitor', 'ranread_grant(regrole, text, boolean)', 'EXECUTE'),
    'only superusers (and whom they grant it) call ranread_grant');

-- 'report': what pg_monitor may do with ranread, no more
SELECT ok((SELECT count(*) > 0 FROM ranread_grant('tap_roles_reporter', 'report')), 'report granted');
SELECT is(ARRAY(SELECT object FROM ranread_internal.ranread_role_privileges('report')
                 WHERE kind = 'function' AND NOT has_function_privilege('pg_monitor', object::regprocedure, 'EXECUTE')),
          '{}'::text[],
    '''report'' grants no function pg_monitor may not call');
SELECT ok(NOT EXISTS (SELECT FROM ranread_internal.ranread_role_privileges('report')
                       WHERE privilege <> 'SELECT' AND kind = 'table'),
    '... and only SELECT on tables and views');

SELECT ok(ranread_setup('8MB', target => 'tap_roles') IS NOT NULL, 'a superuser makes a target');
SELECT ok((SELECT status FROM ranread_run(1, 50, target => 'tap_roles')) = 'completed', '... and runs a batch');

SET LOCAL ROLE tap_roles_reporter;
SELECT ok((SELECT count(*) > 0 FROM ranread_summary), 'a reporter reads ranread_summary');
SELECT ok(pg_temp.svg_ok(ranread_timeline()), '... draws a batch''s timeline');
SELECT ok((SELECT count(*) > 0 FROM ranread_help()), '... and reads the help');
SELECT is(pg_temp.error_of($$SELECT * FROM ranread_run(1, 10, target => 'tap_roles')$$),
          '42501: permission denied for function ranread_run',
    'a reporter cannot run a batch');
RESET ROLE;
-- a role given EXECUTE on ranread_sweep alone
CREATE ROLE tap_roles_sweeper;
GRANT EXECUTE ON FUNCTION ranread_sweep TO tap_roles_sweeper;
SET LOCAL ROLE tap_roles_sweeper;
SELECT alike(pg_temp.hint_of($$SELECT * FROM ranread_sweep(start => 1, max_processes => 1, target => 'tap_roles')$$),
             'SELECT ranread_grant(''tap_roles_sweeper'', ''run'') grants what running ranread needs;%',
    'ranread''s own permission error names the grant that gives what is missing (a sweep''s privileges, checked before it runs)');
RESET ROLE;

-- 'run'
SELECT ok((SELECT count(*) > 0 FROM ranread_grant('tap_roles_runner', 'run')), 'run granted');
SET LOCAL ROLE tap_roles_runner;
SELECT is((SELECT size_bytes FROM ranread_setup('4MB', target => 'tap_roles_own')), 4194304::bigint,
    'a runner makes a target');
CREATE TEMP TABLE runner_batch AS SELECT * FROM ranread_run(2, 25, target => 'tap_roles_own');
SELECT is((SELECT status || ' ' || reads FROM runner_batch), 'completed 50',
    '... runs a batch on it');
SELECT is((SELECT s.reads FROM ranread_summary_full s JOIN ranread_batches b USING (batch)
            WHERE batch = (SELECT batch FROM runner_batch) AND b.started_by = 'tap_roles_runner'), 50::bigint,
    '... reads it in ranread_summary, as its own');
SELECT is((SELECT count(*)::integer FROM ranread_sweep(start => 1, max_processes => 2, iterations => 20, duration => NULL, target => 'tap_roles_own')), 2,
    '... runs a sweep');
SELECT ok(ranread_purge('tap_roles_own'), '... and drops its target');
SELECT is(pg_temp.error_of($$SELECT ranread_reset()$$), '42501: permission denied for function ranread_reset',
    'a runner cannot delete history');
RESET ROLE;

-- 'export'
CREATE ROLE tap_roles_half_exporter;
GRANT EXECUTE ON FUNCTION ranread_export(text, text) TO tap_roles_half_exporter;
SET LOCAL ROLE tap_roles_half_exporter;
SELECT alike(pg_temp.hint_of(format('SELECT ranread_export(%L, %L)', (SELECT d FROM dir), 'csv')),
             'SELECT ranread_grant(''tap_roles_half_exporter'', ''export'') grants it%',
    'a role given EXECUTE on ranread_export alone is refused with a hint naming the grant it lacks');
RESET ROLE;
SELECT ok((SELECT count(*) > 0 FROM ranread_grant('tap_roles_exporter', 'export')), 'export granted');
SET LOCAL ROLE tap_roles_exporter;
SELECT alike(ranread_export((SELECT d FROM dir), 'csv'), (SELECT d FROM dir) || '/ranread_%.csv',
    'an exporter writes an export file');
RESET ROLE;

-- revoke
SELECT ok((SELECT count(*) > 0 FROM ranread_revoke('tap_roles_runner', 'run'))
          AND (SELECT count(*) > 0 FROM ranread_revoke('tap_roles_exporter', 'export'))
          AND (SELECT count(*) > 0 FROM ranread_revoke('tap_roles_reporter', 'report')), 'all revoked');
SELECT is(ARRAY(SELECT r || ': ' || x FROM unnest(ARRAY['tap_roles_runner', 'tap_roles_exporter', 'tap_roles_reporter']) r,
                       unnest(ARRAY['report', 'run', 'export']) x
                 WHERE ranread_internal.ranread_role_holds(r::regrole, x)
                    OR EXISTS (SELECT FROM ranread_internal.ranread_role_privileges(x) p
                                WHERE p.kind = 'function' AND has_function_privilege(r, p.object::regprocedure, 'EXECUTE'))),
          '{}'::text[],
    'after the revokes none of the roles holds any function of run, report or export');
SET LOCAL ROLE tap_roles_runner;
SELECT is(pg_temp.error_of($$SELECT * FROM ranread_run(1, 10, target => 'tap_roles')$$),
          '42501: permission denied for function ranread_run',
    'the runner can no longer run');
RESET ROLE;

DO $$
BEGIN
    EXECUTE format('COPY (SELECT 1) TO PROGRAM %L', format('rm -rf %s', (SELECT d FROM pg_temp.dir)));
END
$$;
-- grant and revoke in one body: the same statements, in opposite
-- directions and opposite orders of kinds
CREATE ROLE tap_roles_order;
CREATE TEMP TABLE ord AS
SELECT 'grant' AS dir, t.n, t.s FROM ranread_grant('tap_roles_order', 'export', verbose => true) WITH ORDINALITY AS t(s, n);
INSERT INTO ord SELECT 'revoke', t.n, t.s FROM ranread_revoke('tap_roles_order', 'export', verbose => true) WITH ORDINALITY AS t(s, n);
CREATE TEMP VIEW ord_kind AS
SELECT dir, n, CASE WHEN s LIKE '% ON SCHEMA %' THEN 1 WHEN s LIKE '% ON TABLE %' THEN 2
                    WHEN s LIKE '% ON SEQUENCE %' THEN 3 WHEN s LIKE '% ON FUNCTION %' THEN 4 ELSE 5 END AS k
  FROM ord;
SELECT is(ARRAY(SELECT k FROM ord_kind WHERE dir = 'grant' ORDER BY n),
          ARRAY(SELECT k FROM ord_kind WHERE dir = 'grant' ORDER BY k, n),
    'ranread_grant runs its statements schema first, then tables, sequences, functions and roles');
SELECT is(ARRAY(SELECT k FROM ord_kind WHERE dir = 'revoke' ORDER BY n),
          ARRAY(SELECT k FROM ord_kind WHERE dir = 'revoke' ORDER BY k DESC, n),
    'ranread_revoke runs its statements in the reverse order: roles first, the schema last');
SELECT is(ARRAY(SELECT regexp_replace(regexp_replace(s, '^REVOKE ', 'GRANT '), ' FROM (tap_roles_order;)$', ' TO \1')
                  FROM ord WHERE dir = 'revoke' ORDER BY 1),
          ARRAY(SELECT s FROM ord WHERE dir = 'grant' ORDER BY 1),
    'ranread_revoke takes back every statement ranread_grant ran from a role that holds nothing else');

SELECT * FROM finish();
ROLLBACK;
