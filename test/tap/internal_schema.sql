-- Schema ranread_internal: the advisor's and the profiles' steps and
-- helpers live there, apart from the functions users call
-- (docs/reference.md), which stay in the extension's schema.  The schema is
-- the extension's, on no search_path, and no one may create in it;
-- pg_monitor may look its functions up, so that a member still gets advice
-- from the history and reads a profile's report and chart.
BEGIN;
SET LOCAL client_min_messages = warning;
SELECT plan(15);
\ir lib/util.psql

CREATE TEMP TABLE ext_schema AS
SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'ranread';

SELECT is((SELECT d.deptype::text FROM pg_depend d JOIN pg_namespace n ON d.objid = n.oid
            WHERE d.classid = 'pg_namespace'::regclass AND n.nspname = 'ranread_internal'
              AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'ranread')),
          'e', 'schema ranread_internal belongs to the extension (DROP EXTENSION drops it)');
SELECT ok(NOT ('ranread_internal' = ANY (current_schemas(true))), 'it is not on the search_path');

-- The steps of the fleet (its connections, connection strings, coordinator
-- steps) and of the views (a batch's live status, a target's state) are
-- internal too: the extension's schema holds only what users call
SELECT is((SELECT array_agg(p.proname::text ORDER BY p.proname) FROM pg_proc p, ext_schema s
            WHERE p.pronamespace = s.nspname::regnamespace
              AND (p.proname ~ '^ranread_(conninfo|remote)_'
                   OR p.proname IN ('ranread_fleet_run', 'ranread_fleet_check', 'ranread_fleet_probe', 'ranread_fleet_clock',
                                    'ranread_fleet_recorder', 'ranread_fleet_totals', 'ranread_batch_live',
                                    'ranread_status_now', 'ranread_target_state', 'ranread_target_info',
                                    'ranread_target_handler', 'ranread_nodes_check', 'ranread_target_grant_check'))),
          NULL, 'the fleet''s connection and coordinator steps and the views'' helpers are not in the extension''s schema');

-- Where each function of the advisor and the profiles is
SELECT is((SELECT array_agg(p.proname::text ORDER BY p.proname) FROM pg_proc p, ext_schema s
            WHERE p.pronamespace = s.nspname::regnamespace
              AND (p.proname LIKE 'ranread_advise%' OR p.proname LIKE 'ranread_profile%')),
          ARRAY['ranread_advise', 'ranread_advise_io_concurrency', 'ranread_advise_page_costs',
                'ranread_advise_parallel_workers', 'ranread_advise_wal_sync_method',
                'ranread_profile', 'ranread_profile_chart', 'ranread_profile_postgres', 'ranread_profile_report'],
          'the extension''s schema keeps what users call: ranread_advise, its four formulas, ranread_profile and its report and chart');
SELECT is((SELECT count(*)::integer FROM pg_proc p, ext_schema s
            WHERE p.pronamespace = s.nspname::regnamespace
              AND p.proname IN ('ranread_advise_history', 'ranread_advise_stale', 'ranread_advise_measure_sql',
                                'ranread_advise_same', 'ranread_advise_pending', 'ranread_block_size_ok',
                                'ranread_profile_names', 'ranread_profile_points', 'ranread_cdm_line')),
          0, 'the advisor''s and the profiles'' helpers are not in the extension''s schema');
SELECT ok((SELECT bool_and(to_regprocedure(f) IS NOT NULL) FROM unnest(ARRAY[
              'ranread_internal.ranread_advise_history(name)', 'ranread_internal.ranread_advise_same(text, text)',
              'ranread_internal.ranread_profile_points(text, name, interval, integer, integer, boolean, boolean, integer)',
              'ranread_internal.ranread_cdm_line(text, integer, integer, integer, float8, float8)']) f),
          'they are in ranread_internal');

-- Who may use the schema
SELECT ok(NOT has_schema_privilege('public', 'ranread_internal', 'USAGE'), 'PUBLIC may not use ranread_internal');
SELECT ok(has_schema_privilege('pg_monitor', 'ranread_internal', 'USAGE'), 'pg_monitor may look its functions up');
SELECT ok(NOT has_schema_privilege('pg_monitor', 'ranread_internal', 'CREATE'), '... and create nothing there');

CREATE ROLE tap_internal_nobody;
CREATE ROLE tap_internal_monitor IN ROLE pg_monitor;
SET LOCAL ROLE tap_internal_nobody;
SELECT is(pg_temp.error_of($$SELECT ranread_internal.ranread_advise_same('1', '1')$$),
          '42501: permission denied for schema ranread_internal',
          'a role without grants cannot call an internal function');
RESET ROLE;
SET LOCAL ROLE tap_internal_monitor;
SELECT is(pg_temp.error_of($$CREATE FUNCTION ranread_internal.ranread_advise_same(a text, b text) RETURNS boolean
                              LANGUAGE sql AS 'SELECT true'$$),
          '42501: permission denied for schema ranread_internal',
          'a member of pg_monitor cannot put a function of its own in ranread_internal');
SELECT is((SELECT count(*)::integer FROM ranread_advise()), 7,
          'a member of pg_monitor gets advice from the history, through the advisor''s steps (full_page_writes and the durability check too)');
RESET ROLE;

-- A profile run by a superuser, read back by a member of pg_monitor
SELECT ok((SELECT size_bytes = 16777216 FROM ranread_setup('16MB', target => 'tap_internal')), 'a target');
CREATE TEMP TABLE cdm AS
SELECT * FROM ranread_profile('crystaldiskmark-real', target => 'tap_internal', duration => '0.1s', passes => 1);
GRANT SELECT ON cdm TO tap_internal_monitor;
SET LOCAL ROLE tap_internal_monitor;
SELECT results_eq($$SELECT test, mode, result FROM ranread_profile_report((SELECT min(study) FROM cdm))$$,
                  $$SELECT test, mode, result FROM cdm$$,
    'a member of pg_monitor reads a CrystalDiskMark profile''s lines as ranread_profile gave them');
SELECT ok(pg_temp.svg_ok(ranread_profile_chart((SELECT min(study) FROM cdm))),
    '... and its chart');
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;
