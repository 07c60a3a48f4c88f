-- Privileges, last: every function of the extension is revoked from PUBLIC
-- (superusers run them, others by GRANT); history is readable by pg_monitor.

DO $$
DECLARE
    fn pg_catalog.regprocedure;
BEGIN
    FOR fn IN
        SELECT d.objid::pg_catalog.regprocedure
          FROM pg_catalog.pg_depend d
         WHERE d.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_proc'::pg_catalog.regclass
           AND d.refclassid OPERATOR(pg_catalog.=) 'pg_catalog.pg_extension'::pg_catalog.regclass
           AND d.refobjid OPERATOR(pg_catalog.=)
               (SELECT e.oid FROM pg_catalog.pg_extension e
                 WHERE e.extname OPERATOR(pg_catalog.=) 'ranread')
           AND d.deptype OPERATOR(pg_catalog.=) 'e'
    LOOP
        EXECUTE pg_catalog.format('REVOKE ALL ON FUNCTION %s FROM PUBLIC', fn);
    END LOOP;
END
$$;

REVOKE ALL ON @extschema@.ranread_batches, @extschema@.ranread_results,
    @extschema@.ranread_intervals, @extschema@.ranread_target_catalog,
    @extschema@.ranread_summary, @extschema@.ranread_targets,
    @extschema@.ranread_groups, @extschema@.ranread_group_summary,
    @extschema@.ranread_commit_summary, @extschema@.ranread_nodes,
    @extschema@.ranread_fleets, @extschema@.ranread_fleet_nodes,
    @extschema@.ranread_fleet_seconds, @extschema@.ranread_fleet_sweeps,
    @extschema@.ranread_fleet_summary, @extschema@.ranread_fleet_series,
    @extschema@.ranread_latency_target_verdict FROM PUBLIC;
GRANT SELECT ON @extschema@.ranread_batches, @extschema@.ranread_results,
    @extschema@.ranread_intervals, @extschema@.ranread_summary,
    @extschema@.ranread_targets, @extschema@.ranread_groups,
    @extschema@.ranread_group_summary, @extschema@.ranread_commit_summary,
    @extschema@.ranread_nodes, @extschema@.ranread_fleets, @extschema@.ranread_fleet_nodes,
    @extschema@.ranread_fleet_seconds, @extschema@.ranread_fleet_sweeps,
    @extschema@.ranread_fleet_summary, @extschema@.ranread_fleet_series,
    @extschema@.ranread_latency_target_verdict TO pg_monitor;

-- Functions the views and reports call on the reader's behalf.
GRANT EXECUTE ON FUNCTION @extschema@.ranread_target_state(oid, bigint),
                          @extschema@.ranread_target_info(oid, bigint),
                          @extschema@.ranread_batch_live(bigint),
                          @extschema@.ranread_status_now(text, bigint, text),
                          @extschema@.ranread_fleet_live(integer, timestamptz),
                          @extschema@.ranread_fleet_rows(bigint),
                          @extschema@.ranread_fleet_chart(bigint),
                          @extschema@.ranread_fleet_timeline(bigint) TO pg_monitor;
