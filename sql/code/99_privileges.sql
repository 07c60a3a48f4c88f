-- Privileges, last: every function of the extension is revoked from PUBLIC
-- (superusers run them, others by GRANT); history is readable by pg_monitor.
-- The revoke touches only the functions PUBLIC may still run (a new one, or
-- one made anew): an upgrade tells the functions it did not make again by
-- their unchanged rows (sql/updates/post-update.sql).

DO $$
DECLARE
    fn pg_catalog.regprocedure;
BEGIN
    FOR fn IN
        SELECT d.objid::pg_catalog.regprocedure
          FROM pg_catalog.pg_depend d
          JOIN pg_catalog.pg_proc p ON p.oid OPERATOR(pg_catalog.=) d.objid
         WHERE d.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_proc'::pg_catalog.regclass
           AND d.refclassid OPERATOR(pg_catalog.=) 'pg_catalog.pg_extension'::pg_catalog.regclass
           AND d.refobjid OPERATOR(pg_catalog.=)
               (SELECT e.oid FROM pg_catalog.pg_extension e
                 WHERE e.extname OPERATOR(pg_catalog.=) 'ranread')
           AND d.deptype OPERATOR(pg_catalog.=) 'e'
           AND pg_catalog.has_function_privilege('public', p.oid, 'EXECUTE')
    LOOP
        EXECUTE pg_catalog.format('REVOKE ALL ON ROUTINE %s FROM PUBLIC', fn);  -- procedures too
    END LOOP;
END
$$;

-- The history's tables and views: no one but their owner may change them
-- (the target catalog, which ranread_targets shows, no one but its owner
-- reads).  Each named once.
DO $$
DECLARE
    rel text;
BEGIN
    FOREACH rel IN ARRAY ARRAY[
        '@extschema@.ranread_batches', '@extschema@.ranread_results',
        '@extschema@.ranread_intervals', '@extschema@.ranread_target_catalog',
        '@extschema@.ranread_summary', '@extschema@.ranread_targets',
        '@extschema@.ranread_groups', '@extschema@.ranread_group_summary',
        '@extschema@.ranread_commit_summary', '@extschema@.ranread_nodes',
        '@extschema@.ranread_fleets', '@extschema@.ranread_fleet_nodes',
        '@extschema@.ranread_fleet_seconds', '@extschema@.ranread_fleet_sweeps',
        '@extschema@.ranread_fleet_summary', '@extschema@.ranread_fleet_series',
        '@extschema@.ranread_latency_target_verdict', '@extschema@.ranread_studies',
        '@extschema@.ranread_study_points', '@extschema@.ranread_study_overview',
        '@extschema@.ranread_summary_full', '@extschema@.ranread_process_summary',
        '@extschema@.ranread_brief', '@extschema@.ranread_progress', '@extschema@.ranread_progress_full',
        '@extschema@.ranread_verify_errors',
        'ranread_internal.ranread_summary_raw', 'ranread_internal.ranread_study_points_raw',
        'ranread_internal.ranread_study_overview_raw', 'ranread_internal.ranread_commit_summary_raw',
        'ranread_internal.ranread_fleet_summary_raw', 'ranread_internal.ranread_fleet_series_raw']
    LOOP
        EXECUTE pg_catalog.format('REVOKE ALL ON %s FROM PUBLIC', rel);
    END LOOP;
END
$$;

-- pg_monitor: exactly the 'report' kind of use, the one list of what a
-- role that reads the history may do (ranread_report_objects in
-- 95_roles.sql): the history's tables and views, the schema
-- ranread_internal (each internal function still needs its own EXECUTE),
-- the charts, reports, advice without measuring and the internal
-- functions they call on the reader's behalf.
DO $$
DECLARE
    p record;
BEGIN
    FOR p IN SELECT * FROM ranread_internal.ranread_role_privileges('report') LOOP
        EXECUTE ranread_internal.ranread_role_statement(true, 'pg_monitor', p.privilege, p.kind, p.object);
    END LOOP;
END
$$;
