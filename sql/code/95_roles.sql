-- Roles: ranread_grant(role, what) and ranread_revoke(role, what) give a
-- role that is not a superuser what one kind of use of ranread needs, and
-- take it back (docs/reference.md, "Privileges").  Each kind is written here, fixed:
--   report  read the history and call what only reads it: the list of
--           ranread_report_objects below, which is also exactly what the
--           extension grants pg_monitor (99_privileges.sql grants that
--           list; test/tap/roles_fixed.sql checks that pg_monitor holds it
--           and nothing more).  Never read back from what pg_monitor holds
--           now: a DBA's GRANT or REVOKE on pg_monitor, or a grant and
--           revoke of 'run' on it, changes no kind
--   run     report, and make targets and run batches, mixes, sweeps,
--           latency-target searches, studies, profiles, commit tests and
--           probes (and their pg_cron schedules):
--           EXECUTE on those functions and what their implementations use
--           (the sweeps', searches' and studies' lists are forward.c's, the
--           ones their privilege check names)
--   probe   report, and run probes (and their pg_cron schedules) on the
--           probe targets a DBA made, within the probe cap: EXECUTE on
--           ranread_probe and its schedule functions and what they use
--           (forward.c's list); no batch of its own, no target, no INSERT
--           on ranread_probes (the probe records its row as the owner).
--           New in 1.2: what a monitoring role needs, instead of 'run'
--   export  report, and write export files on the server: EXECUTE on the
--           export functions and membership of pg_write_server_files,
--           which PostgreSQL asks of anyone who writes server files
-- Nothing else: fleets, ranread_reset and ranread.* settings stay with
-- superusers.  Each returns a row per kind of use (how many statements of
-- it ran); verbose => true returns every statement run, so that a DBA
-- sees it.
-- pg_monitor holds 'report' by the extension's own grant: ranread_revoke
-- leaves it (revoking another kind from pg_monitor keeps it; revoking
-- 'report' from pg_monitor is refused), and granting another kind to
-- pg_monitor, or to any role that has members, warns that every member
-- gets it.  New in 1.1.

-- The 'report' kind, once: the privileges a role that reads the history
-- needs (privilege, kind and the object's schema, as SQL spells it, and
-- name; a function's name stands for every signature of it).  The history's tables and views,
-- the charts, reports, advice without measuring, comparisons and help, and
-- the internal functions they call on the reader's behalf.  A new reader
-- of the history goes here, and nowhere else (99_privileges.sql grants
-- this list to pg_monitor).
CREATE OR REPLACE FUNCTION ranread_internal.ranread_report_objects(
    OUT privilege text, OUT kind text, OUT schema text, OUT name text)
RETURNS SETOF record
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT 'USAGE', 'schema', NULL::text, 'ranread_internal'
    UNION ALL
    SELECT 'SELECT', 'table', '@extschema@', t FROM pg_catalog.unnest(ARRAY[
        -- the history, and the views on it
        'ranread_batches', 'ranread_results', 'ranread_intervals', 'ranread_groups',
        'ranread_summary', 'ranread_summary_full', 'ranread_brief', 'ranread_seconds',
        'ranread_process_summary', 'ranread_group_summary',
        'ranread_percentiles_over_time', 'ranread_targets', 'ranread_verify_errors',
        'ranread_sweeps', 'ranread_sweep_verdict', 'ranread_latency_target_verdict',
        'ranread_studies', 'ranread_study_points', 'ranread_study_overview',
        'ranread_commit_summary', 'ranread_durability',
        'ranread_nodes', 'ranread_fleets', 'ranread_fleet_nodes', 'ranread_fleet_seconds',
        'ranread_fleet_sweeps', 'ranread_fleet_summary', 'ranread_fleet_series',
        -- keeping watch
        'ranread_probes', 'ranread_probe_verdicts', 'ranread_baselines', 'ranread_health_thresholds',
        'ranread_health',
        -- what runs now
        'ranread_progress', 'ranread_progress_full']) t
    UNION ALL
    SELECT 'SELECT', 'table', 'ranread_internal', t FROM pg_catalog.unnest(ARRAY[
        'ranread_summary_raw', 'ranread_study_points_raw', 'ranread_study_overview_raw',
        'ranread_commit_summary_raw', 'ranread_fleet_summary_raw', 'ranread_fleet_series_raw']) t
    UNION ALL
    SELECT 'EXECUTE', 'function', '@extschema@', f FROM pg_catalog.unnest(ARRAY[
        -- the option table, the help
        'ranread_options', 'ranread_help',
        -- histograms
        'ranread_hist_merge', 'ranread_hist_count', 'ranread_hist_percentile', 'ranread_hist_within',
        'ranread_hist_buckets', 'ranread_hist_compare',
        -- charts and reports
        'ranread_svg', 'ranread_chart', 'ranread_timeline', 'ranread_latency_heatmap',
        'ranread_study_grid', 'ranread_study_summary', 'ranread_study_chart', 'ranread_study_heat',
        'ranread_compare_chart', 'ranread_profile_report', 'ranread_profile_chart',
        'ranread_fleet_rows', 'ranread_fleet_chart', 'ranread_fleet_timeline',
        'ranread_probe_chart', 'ranread_report', 'ranread_server_info',
        -- rules and comparisons, pure or reading the history
        'ranread_latency_target_next', 'ranread_flash_guidance', 'ranread_hist_threshold', 'ranread_compare', 'ranread_compare_sweeps', 'ranread_compare_studies',
        -- advice without measuring
        'ranread_advise', 'ranread_advise_page_costs', 'ranread_advise_io_concurrency',
        'ranread_advise_parallel_workers', 'ranread_advise_wal_sync_method']) f
    UNION ALL
    SELECT 'EXECUTE', 'function', 'ranread_internal', f FROM pg_catalog.unnest(ARRAY[
        -- what the views call: the state of targets, batches and calls
        'ranread_target_state', 'ranread_target_info', 'ranread_batch_live', 'ranread_call_running',
        'ranread_running_calls', 'ranread_status_now', 'ranread_round', 'ranread_workload_words',
        'ranread_progress_rows',
        'ranread_require', 'ranread_fleet_live', 'ranread_fleet_rows_raw', 'ranread_fleet_round',
        'ranread_help_entries', 'ranread_help_arguments', 'ranread_help_closest', 'ranread_help_table', 'ranread_help_name',
        'ranread_wrap', 'ranread_wrap_words', 'ranread_wrap_sql', 'ranread_probe_caps', 'ranread_count_words',
        -- points read back (12_points.sql)
        'ranread_json_int', 'ranread_json_float', 'ranread_study_point_ok', 'ranread_window_ok', 'ranread_skipped',
        -- charts, studies read back, the report
        'ranread_chart_no_table', 'ranread_latency_heat_spec', 'ranread_latency_heat_cells',
        'ranread_latency_window', 'ranread_batch_histogram',
        'ranread_study_axes', 'ranread_study_row_label', 'ranread_study_label', 'ranread_study_where',
        'ranread_study_metric', 'ranread_study_check', 'ranread_study_bound', 'ranread_study_cells',
        'ranread_iops_at_bound', 'ranread_chart_latency', 'ranread_study_points_axes', 'ranread_sweep_known',
        'ranread_fmt_figure', 'ranread_curves_spec', 'ranread_study_curves', 'ranread_study_caption',
        'ranread_cdm_line', 'ranread_profile_report_raw', 'ranread_study_grid_raw', 'ranread_study_summary_raw',
        'ranread_html', 'ranread_html_table', 'ranread_html_svg', 'ranread_csv_field', 'ranread_study_csv',
        'ranread_study_json', 'ranread_report_figures', 'ranread_report_head', 'ranread_report_server',
        'ranread_report_batches', 'ranread_report_study', 'ranread_report_sweep', 'ranread_report_heatmap',
        'ranread_report_advice', 'ranread_report_health', 'ranread_report_commit', 'ranread_report_durability',
        'ranread_report_verify',
        -- keeping watch and comparing
        'ranread_watch_tablespace', 'ranread_health_thresholds_of', 'ranread_compare_pairs',
        'ranread_health_rank', 'ranread_health_hold', 'ranread_baseline_robust',
        'ranread_watch_p', 'ranread_watch_pct', 'ranread_watch_conf',
        -- advice without measuring (22_advise.sql)
        'ranread_advise_arg', 'ranread_t95', 'ranread_rounds_interval',
        'ranread_advise_history', 'ranread_advise_stale', 'ranread_advise_measure_sql', 'ranread_advise_target',
        'ranread_advise_same', 'ranread_advise_pending', 'ranread_first_failed', 'ranread_advise_check',
        'ranread_advise_cache', 'ranread_advise_durability', 'ranread_advise_durability_latest',
        'ranread_advise_figure', 'ranread_advise_fpw_rows', 'ranread_advise_full_page_writes',
        'ranread_advise_gather', 'ranread_advise_io_rows', 'ranread_advise_large_sql', 'ranread_advise_measure',
        'ranread_advise_noise', 'ranread_advise_notice', 'ranread_advise_page_cost_rows',
        'ranread_advise_parallel_rows', 'ranread_advise_place', 'ranread_advise_row', 'ranread_advise_seq_one',
        'ranread_advise_source', 'ranread_advise_wal_rows', 'ranread_advise_server_curve',
        'ranread_atomic_writes', 'ranread_ram_bytes']) f
$$;

-- The needs list of a forwarded function (forward.c), NULL for others
CREATE OR REPLACE FUNCTION ranread_internal.ranread_needs(fn text)
RETURNS text[]
AS 'MODULE_PATHNAME', 'ranread_needs'
LANGUAGE C STRICT IMMUTABLE;

-- Every privilege of a needs list, one row each, objects qualified
CREATE OR REPLACE FUNCTION ranread_internal.ranread_needs_expand(needs text[])
RETURNS TABLE (privilege text, kind text, object text)
AS 'MODULE_PATHNAME', 'ranread_needs_expand'
LANGUAGE C STABLE;

-- The privileges of one kind of use ('report', 'run', 'export'), one row
-- each: privilege (EXECUTE, SELECT, USAGE, INSERT, MEMBER), kind
-- (function, table, sequence, schema, role) and object, spelled as a GRANT
-- takes it
CREATE OR REPLACE FUNCTION ranread_internal.ranread_role_privileges(what text)
RETURNS TABLE (privilege text, kind text, object text)
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    WITH ext AS (
        SELECT e.oid, e.extnamespace FROM pg_catalog.pg_extension e
         WHERE e.extname OPERATOR(pg_catalog.=) 'ranread'
    ), report AS (
        -- the 'report' kind (ranread_report_objects), every signature of
        -- a function's name
        SELECT r.privilege, r.kind,
               CASE r.kind WHEN 'schema' THEN pg_catalog.quote_ident(r.name)
                           ELSE pg_catalog.to_regclass(r.schema || '.' || pg_catalog.quote_ident(r.name))::pg_catalog.text END
          FROM ranread_internal.ranread_report_objects() r
         WHERE r.kind OPERATOR(pg_catalog.<>) 'function'
        UNION ALL
        SELECT r.privilege, r.kind, p.oid::pg_catalog.regprocedure::pg_catalog.text
          FROM ranread_internal.ranread_report_objects() r
          JOIN pg_catalog.pg_proc p ON p.proname OPERATOR(pg_catalog.=) r.name
                                   AND p.pronamespace OPERATOR(pg_catalog.=) pg_catalog.to_regnamespace(r.schema)
         WHERE r.kind OPERATOR(pg_catalog.=) 'function'
    ), named(what, fn) AS (
        -- the functions each kind of use calls, every signature of the name
        VALUES ('run', 'ranread_setup'), ('run', 'ranread_purge'), ('run', 'ranread_run'),
               ('run', 'ranread_mix'), ('run', 'ranread_stop'), ('run', 'ranread_run_step'),
               ('run', 'ranread_blocks'), ('run', 'ranread_limits'), ('run', 'ranread_sweep'),
               ('run', 'ranread_latency_target'), ('run', 'ranread_study'),
               ('run', 'ranread_profile'), ('run', 'ranread_commit_test'),
               ('run', 'ranread_probe'), ('run', 'ranread_probe_setup'), ('run', 'ranread_probe_purge'),
               ('run', 'ranread_probe_schedule'),
               ('run', 'ranread_probe_schedules'), ('run', 'ranread_probe_unschedule'),
               ('run', 'ranread_verify'), ('run', 'ranread_paths'), ('run', 'ranread_profile_postgres'),
               ('probe', 'ranread_probe'), ('probe', 'ranread_probe_schedule'),
               ('probe', 'ranread_probe_schedules'), ('probe', 'ranread_probe_unschedule'),
               ('export', 'ranread_export'), ('export', 'ranread_export_study'),
               ('export', 'ranread_export_sweep')
    ), needs(what, need) AS (
        -- what their implementations use besides themselves
        SELECT 'run', pg_catalog.unnest(ranread_internal.ranread_needs(f))
          FROM pg_catalog.unnest(ARRAY['ranread_sweep', 'ranread_latency_target', 'ranread_study', 'ranread_probe']) f
        UNION ALL
        SELECT 'run', pg_catalog.unnest(ARRAY[
            -- a profile is a study of a fixed definition (43_profile.sql)
            'EXECUTE on functions ranread_internal.ranread_profile_*',
            'EXECUTE on functions ranread_internal.ranread_block_size_ok*',
            -- a commit test records its test's id
            'USAGE on sequence @extschema@.ranread_commit_test_seq',
            -- the two paths side by side (24_paths.sql): batches, read back
            'EXECUTE on functions ranread_internal.ranread_paths_*',
            'EXECUTE on function ranread_internal.ranread_require_read_committed(text, text)',
            'EXECUTE on function ranread_internal.ranread_first_failed(ranread_internal.ranread_check[])',
            'EXECUTE on function ranread_internal.ranread_round(float8, integer)',
            'EXECUTE on function @extschema@.ranread_hist_percentile(bytea, float8)'])
        UNION ALL
        SELECT 'probe', pg_catalog.unnest(ranread_internal.ranread_needs('ranread_probe'))
    ), expanded AS (
        SELECT x.privilege, x.kind,
               CASE x.kind WHEN 'function' THEN x.object::pg_catalog.regprocedure::pg_catalog.text
                           WHEN 'schema' THEN x.object
                           ELSE x.object::pg_catalog.regclass::pg_catalog.text END AS object
          FROM ranread_internal.ranread_needs_expand(ARRAY(
                   SELECT n.need FROM needs n WHERE n.what OPERATOR(pg_catalog.=) $1)) x
    )
    SELECT DISTINCT * FROM (
        SELECT * FROM report WHERE $1 OPERATOR(pg_catalog.=) ANY (ARRAY['report', 'run', 'probe', 'export'])
        UNION ALL
        SELECT 'EXECUTE', 'function', p.oid::pg_catalog.regprocedure::pg_catalog.text
          FROM named, ext, pg_catalog.pg_proc p
         WHERE named.what OPERATOR(pg_catalog.=) $1
           AND p.pronamespace OPERATOR(pg_catalog.=) ext.extnamespace
           AND p.proname OPERATOR(pg_catalog.=) named.fn
        UNION ALL
        SELECT * FROM expanded
        UNION ALL
        SELECT 'MEMBER', 'role', 'pg_write_server_files' WHERE $1 OPERATOR(pg_catalog.=) 'export'
    ) s
$$;

-- Error unless what is a kind of use; fn names the function
CREATE OR REPLACE FUNCTION ranread_internal.ranread_role_what(fn text, role pg_catalog.regrole, what text)
RETURNS void
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF role IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = 'null_value_not_allowed',
            MESSAGE = format('role of %s must not be null', fn),
            HINT = format('Name the role, such as SELECT %s(''alice'', ''run'').', fn);
    END IF;
    -- a regrole given as a number need not be a role (0 prints as '-')
    IF NOT EXISTS (SELECT FROM pg_catalog.pg_roles r WHERE r.oid OPERATOR(pg_catalog.=) role::pg_catalog.oid) THEN
        RAISE EXCEPTION USING ERRCODE = 'undefined_object',
            MESSAGE = format('role of %s does not exist: OID %s', fn, role::pg_catalog.oid),
            HINT = format('Name the role, such as SELECT %s(''alice'', ''run''); PUBLIC is not one.', fn);
    END IF;
    IF what IS NULL OR NOT (what OPERATOR(pg_catalog.=) ANY (ARRAY['run', 'report', 'probe', 'export'])) THEN
        RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('invalid what for %s: %s', fn,
                             coalesce(pg_catalog.quote_literal(CASE WHEN pg_catalog.length(what) OPERATOR(pg_catalog.>) 100
                                                                    THEN pg_catalog.left(what, 100) || '...' ELSE what END), 'NULL')),
            HINT = '''run'' (make targets and run batches, sweeps, studies; read the history), ''report'' (read the history, charts and reports), ''probe'' (run probes and their schedules within the probe cap; read the history) or ''export'' (read the history and write export files on the server).';
    END IF;
END
$$;

-- One privilege as a GRANT (or REVOKE) statement for role
CREATE OR REPLACE FUNCTION ranread_internal.ranread_role_statement(grant_it boolean, role pg_catalog.regrole,
                                                                    privilege text, kind text, object text)
RETURNS text
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN kind OPERATOR(pg_catalog.=) 'role' THEN
                    pg_catalog.format(CASE WHEN grant_it THEN 'GRANT %s TO %s;' ELSE 'REVOKE %s FROM %s;' END,
                                      object, role)
                ELSE pg_catalog.format(CASE WHEN grant_it THEN 'GRANT %s ON %s %s TO %s;' ELSE 'REVOKE %s ON %s %s FROM %s;' END,
                                       privilege, pg_catalog.upper(kind), object, role) END
$$;

-- Does role hold every privilege of a kind of use (through membership too)?
CREATE OR REPLACE FUNCTION ranread_internal.ranread_role_holds(role pg_catalog.regrole, what text)
RETURNS boolean
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT coalesce(pg_catalog.bool_and(CASE p.kind
               WHEN 'function' THEN pg_catalog.has_function_privilege(role, p.object::pg_catalog.regprocedure, p.privilege)
               WHEN 'schema' THEN pg_catalog.has_schema_privilege(role, p.object, p.privilege)
               WHEN 'sequence' THEN pg_catalog.has_sequence_privilege(role, p.object::pg_catalog.regclass, p.privilege)
               WHEN 'role' THEN pg_catalog.pg_has_role(role, p.object, 'USAGE')
               ELSE pg_catalog.has_table_privilege(role, p.object::pg_catalog.regclass, p.privilege) END), false)
      FROM ranread_internal.ranread_role_privileges(what) p
$$;

-- Grant (grant_it) or revoke role what a kind of use needs: the one body
-- of ranread_grant and ranread_revoke.  A grant runs the statements
-- schema first, a revoke in the reverse order (role first); a revoke keeps
-- what the other kinds of use the role holds need ('run' and 'export'
-- include 'report').  Returns the statements it ran, in the order it ran
-- them.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_role_change(grant_it boolean, role pg_catalog.regrole, what text)
RETURNS SETOF text
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    fn    constant text := CASE WHEN grant_it THEN 'ranread_grant' ELSE 'ranread_revoke' END;
    kinds constant text[] := ARRAY['schema', 'table', 'sequence', 'function', 'role'];
    kept  text[] := '{}';
    s     text;
BEGIN
    PERFORM ranread_internal.ranread_role_what(fn, role, what);
    IF NOT grant_it AND role OPERATOR(pg_catalog.=) 'pg_monitor'::pg_catalog.regrole
       AND what OPERATOR(pg_catalog.=) 'report' THEN
        RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
            MESSAGE = 'pg_monitor reads ranread''s history by the extension''s own grant, which ranread_revoke does not take back',
            DETAIL = 'Every role that is a member of pg_monitor reads the history, the charts and the reports (docs/reference.md, "Privileges").',
            HINT = 'To keep a role from reading it, revoke pg_monitor from that role.';
    END IF;
    IF NOT grant_it THEN
        -- a kind of use the role holds besides, unless it is part of what
        -- is revoked ('probe' of 'run'): revoking 'run' takes the probes too;
        -- but 'report' stays with a role that does not hold what is revoked
        -- (revoking 'export' from a reader takes nothing it has); and
        -- pg_monitor's 'report', the extension's own grant, always
        kept := ARRAY(SELECT w FROM unnest(ARRAY['report', 'run', 'probe', 'export']) w
                       WHERE w OPERATOR(pg_catalog.<>) what AND ranread_internal.ranread_role_holds(role, w)
                         AND (EXISTS (SELECT * FROM ranread_internal.ranread_role_privileges(w)
                                      EXCEPT SELECT * FROM ranread_internal.ranread_role_privileges(what))
                              OR (w OPERATOR(pg_catalog.=) 'report' AND NOT ranread_internal.ranread_role_holds(role, what))))
             || CASE WHEN role OPERATOR(pg_catalog.=) 'pg_monitor'::pg_catalog.regrole THEN ARRAY['report'] ELSE '{}' END;
    END IF;
    FOR s IN SELECT ranread_internal.ranread_role_statement(grant_it, role, p.privilege, p.kind, p.object)
               FROM ranread_internal.ranread_role_privileges(what) p
              WHERE NOT EXISTS (SELECT FROM unnest(kept) k, ranread_internal.ranread_role_privileges(k) o
                                 WHERE (o.privilege, o.kind, o.object) = (p.privilege, p.kind, p.object))
              ORDER BY CASE WHEN grant_it THEN 1 ELSE -1 END * array_position(kinds, p.kind),
                       p.object COLLATE "C", p.privilege
    LOOP
        EXECUTE s;
        RETURN NEXT s;
    END LOOP;
    IF grant_it AND what OPERATOR(pg_catalog.=) 'export' THEN
        RAISE NOTICE '% may now write files on the database server wherever its operating-system user may (pg_write_server_files)', role;
    END IF;
    -- a kind beyond reading, given to every member of a role at once
    IF grant_it AND what OPERATOR(pg_catalog.<>) 'report'
       AND (role OPERATOR(pg_catalog.=) 'pg_monitor'::pg_catalog.regrole
            OR EXISTS (SELECT FROM pg_catalog.pg_auth_members m WHERE m.roleid OPERATOR(pg_catalog.=) role)) THEN
        RAISE WARNING USING
            MESSAGE = format('every member of role %s may now %s', role,
                             CASE what WHEN 'run' THEN 'make targets and run batches, sweeps and studies on this server'
                                       WHEN 'probe' THEN 'run probes on this server'
                                       ELSE 'write files on the database server' END),
            DETAIL = CASE WHEN role OPERATOR(pg_catalog.=) 'pg_monitor'::pg_catalog.regrole
                          THEN 'pg_monitor is the role monitoring tools are given; it reads the history already (''report'').'
                          ELSE format('%s has %s members now, and every role granted it later gets it too.', role,
                                      (SELECT count(*) FROM pg_catalog.pg_auth_members m WHERE m.roleid OPERATOR(pg_catalog.=) role)) END,
            HINT = format('Unless that is meant, SELECT ranread_revoke(%L, %L); and grant %L to the roles that need it, one by one.',
                          role::text, what, what);
    END IF;
    IF cardinality(kept) > 0 THEN
        RAISE NOTICE '% keeps what % needs of it', role, array_to_string(kept, ' and ');
    END IF;
END
$$;

-- The statements a grant or revoke ran, one row per kind of use they
-- belong to (README, "Privileges"): 'run' is 'report', 'probe' and what
-- 'run' adds; 'export' is 'report' and what 'export' adds.  Each row
-- names the kind, how many statements of it ran and to or from whom; a
-- kind the role keeps (another it holds needs it) shows 0.  Counted
-- against the statements themselves, so that a row says what was done.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_role_kinds(grant_it boolean, role pg_catalog.regrole,
                                                             what text, statements text[])
RETURNS SETOF text
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    WITH kinds AS (
        SELECT k, n FROM unnest(CASE what WHEN 'run' THEN ARRAY['report', 'probe', 'run']
                                          WHEN 'probe' THEN ARRAY['report', 'probe']
                                          WHEN 'export' THEN ARRAY['report', 'export']
                                          ELSE ARRAY['report'] END) WITH ORDINALITY u(k, n)
    ), own AS (
        -- each statement of what, under the first kind of the list that has it
        SELECT DISTINCT ON (s) s, k.k
          FROM kinds k, ranread_internal.ranread_role_privileges(k.k) p,
               LATERAL (SELECT ranread_internal.ranread_role_statement(grant_it, role, p.privilege, p.kind, p.object) AS s) x
         ORDER BY s, k.n
    )
    SELECT format('%s: %s %s statement%s %s %s', k.k, count(o.s),
                  CASE WHEN grant_it THEN 'GRANT' ELSE 'REVOKE' END,
                  CASE WHEN count(o.s) = 1 THEN '' ELSE 's' END,
                  CASE WHEN grant_it THEN 'to' ELSE 'from' END, role)
      FROM kinds k
      LEFT JOIN own o ON o.k = k.k AND o.s = ANY (statements)
     GROUP BY k.k, k.n
     ORDER BY k.n
$$;

-- ranread_grant(role, what): grant role what 'run', 'report', 'probe' or
-- 'export' needs; returns one row per kind of use granted ('run' gives
-- 'report' and 'probe' too), or with verbose every statement it ran, in
-- the order it ran them
CREATE OR REPLACE FUNCTION @extschema@.ranread_grant(role pg_catalog.regrole, what text, verbose boolean DEFAULT false)
RETURNS SETOF text
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    ran text[] := ARRAY(SELECT ranread_internal.ranread_role_change(true, role, what));
BEGIN
    IF coalesce($3, false) THEN  -- verbose (a keyword, spelled by position)
        RETURN QUERY SELECT unnest(ran);
    ELSE
        RETURN QUERY SELECT ranread_internal.ranread_role_kinds(true, role, what, ran);
    END IF;
END
$$;

-- ranread_revoke(role, what): take back what ranread_grant(role, what)
-- gave, but for what the other kinds of use the role holds need ('run'
-- and 'export' include 'report': revoking 'report' from a role that may
-- run keeps it reading); returns one row per kind, or with verbose the
-- statements it ran
CREATE OR REPLACE FUNCTION @extschema@.ranread_revoke(role pg_catalog.regrole, what text, verbose boolean DEFAULT false)
RETURNS SETOF text
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    ran text[] := ARRAY(SELECT ranread_internal.ranread_role_change(false, role, what));
BEGIN
    IF coalesce($3, false) THEN  -- verbose (a keyword, spelled by position)
        RETURN QUERY SELECT unnest(ran);
    ELSE
        RETURN QUERY SELECT ranread_internal.ranread_role_kinds(false, role, what, ran);
    END IF;
END
$$;
