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

-- The history's tables and views: no one but their owner may change them,
-- pg_monitor reads them (all but the target catalog, which ranread_targets
-- shows).  Each named once.
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
        'ranread_internal.ranread_summary_raw', 'ranread_internal.ranread_study_points_raw',
        'ranread_internal.ranread_study_overview_raw', 'ranread_internal.ranread_commit_summary_raw',
        'ranread_internal.ranread_fleet_summary_raw', 'ranread_internal.ranread_fleet_series_raw']
    LOOP
        EXECUTE pg_catalog.format('REVOKE ALL ON %s FROM PUBLIC', rel);
        IF rel OPERATOR(pg_catalog.<>) '@extschema@.ranread_target_catalog' THEN
            EXECUTE pg_catalog.format('GRANT SELECT ON %s TO pg_monitor', rel);
        END IF;
    END LOOP;
END
$$;

-- (and the sweeps, which 1.0 granted apart)
GRANT SELECT ON @extschema@.ranread_sweeps TO pg_monitor;

-- The internal schema: pg_monitor may look up the internal functions that
-- the functions it may call use (each still needs its own EXECUTE).
GRANT USAGE ON SCHEMA ranread_internal TO pg_monitor;

-- The option table and the help, for everyone who may read the history
GRANT EXECUTE ON FUNCTION @extschema@.ranread_options(),
                          @extschema@.ranread_help(),
                          @extschema@.ranread_help(text),
                          ranread_internal.ranread_help_entries(),
                          ranread_internal.ranread_help_arguments(),
                          ranread_internal.ranread_help_closest(text) TO pg_monitor;

-- Functions the views and reports call on the reader's behalf.
-- ranread_hist_merge: the per-second views and the heatmap merge histograms
GRANT EXECUTE ON ROUTINE @extschema@.ranread_hist_merge(bytea) TO pg_monitor;
GRANT EXECUTE ON FUNCTION ranread_internal.ranread_target_state(oid, bigint),
                          ranread_internal.ranread_target_info(oid, bigint),
                          ranread_internal.ranread_batch_live(bigint),
                          ranread_internal.ranread_call_running(text, bigint),
                          ranread_internal.ranread_running_calls(),
                          ranread_internal.ranread_status_now(text, bigint, text),
                          ranread_internal.ranread_round(float8, integer),
                          @extschema@.ranread_hist_count(bytea),
                          ranread_internal.ranread_workload_words(integer, text, integer, integer, text),
                          ranread_internal.ranread_fleet_live(integer, timestamptz),
                          @extschema@.ranread_fleet_rows(bigint),
                          ranread_internal.ranread_fleet_rows_raw(bigint),
                          ranread_internal.ranread_fleet_round(ranread_internal.ranread_fleet_result_raw),
                          @extschema@.ranread_fleet_chart(bigint),
                          @extschema@.ranread_fleet_timeline(bigint) TO pg_monitor;

-- Studies read back: the pivots, summaries and charts only read what
-- pg_monitor can SELECT, and the pure rules they use, some of them
-- internal functions (the schema's USAGE above).
GRANT EXECUTE ON FUNCTION
    ranread_internal.ranread_study_axes(jsonb[], text, text),
    ranread_internal.ranread_study_row_label(jsonb, text[]),
    ranread_internal.ranread_study_label(text, jsonb),
    ranread_internal.ranread_study_where(jsonb),
    ranread_internal.ranread_study_metric(text, text),
    ranread_internal.ranread_study_check(bigint, text),
    ranread_internal.ranread_study_bound(bigint, float8, text, text),
    ranread_internal.ranread_study_cells(bigint, text, text, text),
    @extschema@.ranread_study_grid(bigint, text, text),
    @extschema@.ranread_study_summary(bigint, float8),
    ranread_internal.ranread_iops_at_bound(float8[], float8[], float8),
    ranread_internal.ranread_chart_latency(text, text),
    ranread_internal.ranread_study_points_axes(bigint, text, text),
    ranread_internal.ranread_sweep_known(bigint, text),
    ranread_internal.ranread_fmt_figure(float8),
    ranread_internal.ranread_curves_spec(text, text, jsonb, text, float8, jsonb),
    ranread_internal.ranread_study_curves(bigint, text, text, text),
    ranread_internal.ranread_study_caption(bigint),
    @extschema@.ranread_study_chart(bigint, text, text, float8),
    @extschema@.ranread_compare_chart(bigint[], bigint[], text, float8, text[], text),
    @extschema@.ranread_study_heat(bigint, text, text),
    ranread_internal.ranread_cdm_line(text, integer, integer, integer, float8, float8),
    @extschema@.ranread_profile_report(bigint),
    ranread_internal.ranread_profile_report_raw(bigint),
    ranread_internal.ranread_study_grid_raw(bigint, text, text, text),
    ranread_internal.ranread_study_summary_raw(bigint, float8),
    @extschema@.ranread_profile_chart(bigint),
    @extschema@.ranread_hist_percentile(bytea, float8),
    @extschema@.ranread_server_info(),
    ranread_internal.ranread_html(text),
    ranread_internal.ranread_html_table(text[], jsonb),
    ranread_internal.ranread_html_svg(text),
    ranread_internal.ranread_csv_field(text),
    ranread_internal.ranread_study_csv(bigint, text),
    ranread_internal.ranread_study_json(bigint),
    ranread_internal.ranread_report_figures(float8, float8, float8, float8, float8),
    ranread_internal.ranread_report_head(text),
    ranread_internal.ranread_report_server(),
    ranread_internal.ranread_report_batches(),
    ranread_internal.ranread_report_study(bigint),
    ranread_internal.ranread_report_sweep(bigint),
    @extschema@.ranread_report(bigint, bigint)
  TO pg_monitor;
-- (the null check that ranread_study_check and ranread_sweep_known make, a
-- pure rule in C)
GRANT EXECUTE ON FUNCTION ranread_internal.ranread_require(text, text, anyelement, text) TO pg_monitor;

-- Verified writes and reads: the bad blocks found are history, as the rest
REVOKE ALL ON @extschema@.ranread_verify_errors FROM PUBLIC;
GRANT SELECT ON @extschema@.ranread_verify_errors TO pg_monitor;
