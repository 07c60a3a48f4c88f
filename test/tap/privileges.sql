-- Who may do what (docs/reference.md, "Reference"): every function is revoked
-- from PUBLIC; superusers run them, other roles once granted EXECUTE; the
-- history is readable by pg_monitor.
BEGIN;
SET client_min_messages = error;

-- The functions of the extension, as pgTAP names them
CREATE TEMP TABLE ext_functions AS
SELECT n.nspname AS schema, p.proname AS name,
       string_to_array(oidvectortypes(p.proargtypes), ', ')::name[] AS args,
       p.oid::regprocedure AS signature
  FROM pg_proc p
  JOIN pg_namespace n ON n.oid = p.pronamespace
  JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
  JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'ranread';

SELECT plan(26 + (SELECT count(*)::int FROM ext_functions));

-- A target and a finished batch to look at
SELECT ok((SELECT size_bytes = 8388608 FROM ranread_setup('8MB', target => 'tap_privileges')),
    'a superuser makes a target');

-- ranread_run's row, or its error, for a statement run as another role
CREATE TEMP TABLE runs (label text PRIMARY KEY, batch bigint, reads bigint, status text, error text);
GRANT ALL ON runs TO PUBLIC;
CREATE FUNCTION pg_temp.run(label text, arguments text) RETURNS text
LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE format('INSERT INTO runs SELECT %L, r.batch, r.reads, r.status FROM ranread_run(%s) r',
                   label, arguments);
    RETURN NULL;
EXCEPTION WHEN OTHERS THEN
    INSERT INTO runs (label, error) VALUES (label, SQLSTATE || ': ' || SQLERRM);
    RETURN SQLSTATE || ': ' || SQLERRM;
END
$$;

\ir lib/util.psql

SELECT is(pg_temp.run('superuser', $$2, 50, target => 'tap_privileges'$$), NULL,
    'a superuser runs a batch');

-- PUBLIC may execute nothing
SELECT function_privs_are(schema, name, args, 'public', '{}'::name[],
           format('%s is revoked from PUBLIC', signature))
  FROM ext_functions
 ORDER BY signature::text;

-- A role with no grants is refused, with the function named
CREATE ROLE tap_ranread_nobody;
SET ROLE tap_ranread_nobody;
SELECT throws_ok($$SELECT * FROM ranread_run(1, 10, target => 'tap_privileges')$$,
    '42501', 'permission denied for function ranread_run',
    'a role without a grant cannot run a batch');
SELECT throws_ok($$SELECT * FROM ranread_setup('2MB', target => 'tap_privileges_nobody')$$,
    '42501', 'permission denied for function ranread_setup',
    'a role without a grant cannot make a target');
SELECT throws_ok($$SELECT ranread_purge('tap_privileges')$$,
    '42501', 'permission denied for function ranread_purge',
    'a role without a grant cannot drop a target');
SELECT throws_ok($$SELECT ranread_stop()$$,
    '42501', 'permission denied for function ranread_stop',
    'a role without a grant cannot stop batches');
SELECT throws_ok($$SELECT ranread_reset()$$,
    '42501', 'permission denied for function ranread_reset',
    'a role without a grant cannot delete history');
SELECT throws_ok($$SELECT count(*) FROM ranread_summary$$,
    '42501', 'permission denied for view ranread_summary',
    'a role without pg_monitor cannot read the summary');
SELECT throws_ok($$SELECT count(*) FROM ranread_results$$,
    '42501', 'permission denied for table ranread_results',
    'a role without pg_monitor cannot read the results');
SELECT throws_ok($$SET ranread.engine = sync$$,
    '42501', NULL,
    'only superusers choose the I/O engine (ranread.engine)');
SELECT throws_ok($$SET ranread.huge_pages = off$$,
    '42501', NULL,
    'only superusers choose the I/O buffers'' pages (ranread.huge_pages)');
RESET ROLE;

-- pg_monitor reads the history and the targets, and writes none of it
SELECT table_privs_are('ranread_summary', 'pg_monitor', ARRAY['SELECT'],
    'pg_monitor may read ranread_summary, nothing more');
SELECT table_privs_are('ranread_results', 'pg_monitor', ARRAY['SELECT'],
    'pg_monitor may read ranread_results, nothing more');
SELECT table_privs_are('ranread_intervals', 'pg_monitor', ARRAY['SELECT'],
    'pg_monitor may read ranread_intervals, nothing more');
SELECT table_privs_are('ranread_targets', 'pg_monitor', ARRAY['SELECT'],
    'pg_monitor may read ranread_targets, nothing more');

CREATE ROLE tap_ranread_monitor IN ROLE pg_monitor;
SET ROLE tap_ranread_monitor;
SELECT is((SELECT s.status || '|' || f.reads FROM ranread_summary s JOIN ranread_summary_full f USING (batch)
            WHERE batch = (SELECT batch FROM runs WHERE label = 'superuser')),
    'completed|100', 'a member of pg_monitor reads a batch in ranread_summary and in ranread_summary_full');
SELECT is((SELECT count(*) FROM ranread_results WHERE batch = (SELECT batch FROM runs WHERE label = 'superuser')),
    2::bigint, 'a member of pg_monitor reads its processes in ranread_results');
SELECT is(pg_temp.error_of($$SELECT count(*) FROM ranread_intervals$$), NULL,
    'a member of pg_monitor reads ranread_intervals');
SELECT is((SELECT state FROM ranread_targets WHERE target = 'tap_privileges'), 'ready',
    'a member of pg_monitor reads ranread_targets, state included');
SELECT throws_ok($$SELECT * FROM ranread_run(1, 10, target => 'tap_privileges')$$,
    '42501', 'permission denied for function ranread_run',
    'pg_monitor does not let a role run batches');
RESET ROLE;

-- A role granted EXECUTE runs batches and manages targets, needing no
-- privileges on the extension's tables
CREATE ROLE tap_ranread_runner;
GRANT EXECUTE ON FUNCTION
    ranread_run,
    ranread_setup(text, name, name),
    ranread_purge(name)
    TO tap_ranread_runner;
SET ROLE tap_ranread_runner;
SELECT is(pg_temp.run('granted', $$2, 50, target => 'tap_privileges'$$), NULL,
    'a role granted EXECUTE on ranread_run runs a batch');
SELECT is((SELECT status || ' ' || reads FROM runs WHERE label = 'granted'), 'completed 100',
    'the granted role''s batch completes all its reads');
SELECT is(pg_temp.error_of($$SELECT * FROM ranread_setup('2MB', target => 'tap_privileges_granted')$$), NULL,
    'a role granted EXECUTE on ranread_setup makes a target');
SELECT is(pg_temp.error_of($$SELECT ranread_purge('tap_privileges_granted')$$), NULL,
    'a role granted EXECUTE on ranread_purge drops a target');
RESET ROLE;
SELECT is((SELECT started_by FROM ranread_batches WHERE batch = (SELECT batch FROM runs WHERE label = 'granted')),
    'tap_ranread_runner'::name, 'the history says which role ran the batch');
SELECT is((SELECT count(*) FROM ranread_targets WHERE target = 'tap_privileges_granted'), 0::bigint,
    'the granted role''s target is gone after its purge');

SELECT * FROM finish();
ROLLBACK;
