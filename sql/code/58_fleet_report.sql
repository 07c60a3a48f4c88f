-- 1.1, the fleet: its rows as ranread_fleet returned them, the fleet sweep
-- (the sweep method with the fleet's totals), the charts and the export.

-- A fleet's rows as ranread_fleet returned them: one per node, then the
-- fleet (node 0), their figures whole (what the chart and the export
-- read).  The latest fleet when NULL.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_fleet_rows_raw(fleet bigint DEFAULT NULL)
RETURNS SETOF ranread_internal.ranread_fleet_result_raw
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    WITH f AS (SELECT * FROM ranread_internal.ranread_fleet_summary_raw s
                WHERE s.fleet = coalesce($1, (SELECT max(x.fleet) FROM @extschema@.ranread_fleets x)))
    SELECT * FROM (
        SELECT n.fleet, n.node, n.name, n.batch,
               -- a node left 'running' by a coordinator that is gone was lost
               CASE WHEN n.status = 'running' AND f.status <> 'running' THEN 'lost' ELSE n.status END,
               n.reads, n.writes, n.seconds, n.iops,
               n.mbps, n.avg_ms, n.p50_ms, n.p99_ms, n.p999_ms, n.max_ms, n.offset_ms, n.rtt_ms,
               n.late_ms, n.outlier,
               CASE WHEN n.status = 'running' AND f.status <> 'running' THEN coalesce(n.message, f.message) ELSE n.message END
          FROM @extschema@.ranread_fleet_nodes n JOIN f USING (fleet)
        UNION ALL
        SELECT f.fleet, 0, 'fleet', NULL, f.status, f.reads, f.writes, f.window_seconds, f.iops,
               f.mbps, f.avg_ms, f.p50_ms, f.p99_ms, f.p999_ms, f.max_ms, f.offset_spread_ms,
               f.max_rtt_ms, f.start_spread_ms, NULL, f.message
          FROM f) r
     ORDER BY r.node = 0, r.node
$$;

-- A fleet's rows as ranread_fleet returned them, rounded as it returns
-- them.  The latest fleet when NULL.
CREATE OR REPLACE FUNCTION @extschema@.ranread_fleet_rows(fleet bigint DEFAULT NULL)
RETURNS SETOF @extschema@.ranread_fleet_result
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT r.* FROM ranread_internal.ranread_fleet_rows_raw($1) x,
        LATERAL ranread_internal.ranread_fleet_round(x) r
$$;

-- The arguments of ranread_fleet_sweep that its steps' fleets do not
-- check: start, max_processes, max_avg_ms, iterations or duration, and
-- the isolation level its recorded steps need
CREATE OR REPLACE FUNCTION ranread_internal.ranread_fleet_sweep_check(start integer, max_processes integer,
    iterations bigint, duration interval, max_avg_ms float8, fn text)
RETURNS void
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    lim record;
BEGIN
    SELECT * INTO lim FROM @extschema@.ranread_limits();
    IF start IS NULL OR start < 1 OR start > lim.max_processes THEN
        RAISE EXCEPTION USING
            ERRCODE = CASE WHEN start IS NULL THEN 'null_value_not_allowed' ELSE 'invalid_parameter_value' END,
            MESSAGE = format('invalid start %s for %s', coalesce(start::text, 'NULL'), fn),
            HINT = format('start is the processes per node of the first step: 1 to %s.', lim.max_processes);
    END IF;
    PERFORM ranread_internal.ranread_require_read_committed(fn,
        'Its steps are recorded while it runs, which a repeatable read snapshot cannot see; run it outside an explicit transaction.');
    IF max_processes IS NULL OR max_processes < start OR max_processes > lim.max_processes THEN
        RAISE EXCEPTION USING
            ERRCODE = CASE WHEN max_processes IS NULL THEN 'null_value_not_allowed' ELSE 'invalid_parameter_value' END,
            MESSAGE = format('invalid max_processes %s for %s', coalesce(max_processes::text, 'NULL'), fn),
            HINT = format('max_processes (per node) must be between start (%s) and %s.', start, lim.max_processes);
    END IF;
    IF max_avg_ms IS NULL OR NOT (max_avg_ms > 0) OR max_avg_ms IN ('NaN'::float8, 'Infinity'::float8) THEN
        RAISE EXCEPTION USING
            ERRCODE = CASE WHEN max_avg_ms IS NULL THEN 'null_value_not_allowed' ELSE 'invalid_parameter_value' END,
            MESSAGE = format('invalid max_avg_ms %s for %s', coalesce(max_avg_ms::text, 'NULL'), fn),
            HINT = 'max_avg_ms is the bound on the fleet''s average latency in milliseconds: a finite number greater than 0, such as 10.';
    END IF;
    IF iterations IS NULL AND duration IS NULL THEN
        RAISE EXCEPTION USING
            ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('%s needs iterations or duration', fn),
            HINT = 'Each step runs for duration (such as ''30s'') or iterations I/Os per process.';
    END IF;
END
$$;

-- A fleet sweep's start recorded through its recorder, and its last words
-- should its coordinator end before the sweep's end is recorded
CREATE OR REPLACE FUNCTION ranread_internal.ranread_fleet_sweep_begin(recorder text, sweep_id bigint,
    names text[], o @extschema@.ranread_fleet_options, start integer, max_processes integer, max_avg_ms float8)
RETURNS void
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM ranread_internal.ranread_remote_query(recorder, format($q$
        INSERT INTO @extschema@.ranread_fleet_sweeps
            (sweep, started_at, started_by, nodes, definition, start, max_processes, max_avg_ms)
        VALUES (%s, %L, %L, %L, %L, %s, %s, %s) $q$,
        sweep_id, to_jsonb(clock_timestamp())#>>'{}', current_user, names,
        to_jsonb(o) - 'nodes' - 'loopback' - 'processes' || jsonb_build_object('start', start),
        start, max_processes, max_avg_ms), 10000);
    PERFORM ranread_internal.ranread_remote_last_words(recorder, format(
        'UPDATE @extschema@.ranread_fleet_sweeps SET finished_at = clock_timestamp(), stop_reason = %L WHERE sweep = %s AND finished_at IS NULL',
        'ended with its coordinator (its session was terminated, or its server stopped)', sweep_id));
END
$$;

-- A fleet sweep's end: the verdict on its steps (ranread_sweep_judge)
-- recorded through its recorder, which is closed, and said in notices
CREATE OR REPLACE FUNCTION ranread_internal.ranread_fleet_sweep_end(recorder text, sweep_id bigint,
    steps @extschema@.ranread_sweep_step[], reason text, max_avg_ms float8)
RETURNS void
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    verdict record;
BEGIN
    SELECT * INTO verdict FROM ranread_internal.ranread_sweep_judge(steps, max_avg_ms);
    BEGIN
        PERFORM ranread_internal.ranread_remote_query(recorder, format($q$
            UPDATE @extschema@.ranread_fleet_sweeps
               SET finished_at = %L, steps = %s, stop_reason = %L, max_iops = %L,
                   actual_latency_ms = %L, max_iops_processes = %L, max_iops_fleet = %L,
                   meets_flash_guidance = %L
             WHERE sweep = %s $q$,
            to_jsonb(clock_timestamp())#>>'{}', cardinality(steps), reason, verdict.max_iops,
            verdict.actual_latency_ms, verdict.processes, verdict.batch, verdict.meets_flash_guidance,
            sweep_id), 10000);
        PERFORM ranread_internal.ranread_remote_last_words(recorder, NULL);
    EXCEPTION WHEN query_canceled OR others THEN
        PERFORM ranread_internal.ranread_remote_close(ARRAY[recorder]);
        RAISE;
    END;
    PERFORM ranread_internal.ranread_remote_close(ARRAY[recorder]);

    PERFORM ranread_internal.ranread_sweep_say_end('fleet sweep', sweep_id, steps, reason, max_avg_ms, verdict);
END
$$;

-- ranread_fleet_sweep, behind the C function users call: its own
-- arguments bound by name, and all of them by name (args), from which its
-- steps' fleets take their options (src/workload/forward.c).  Its rows are
-- ranread_fleet_sweep's (the caller's ReturnSetInfo gives their columns):
-- one per step, stop_reason on the last.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_fleet_sweep(
    nodes            text[],
    start            integer,
    max_processes    integer,
    iterations       bigint,
    duration         interval,
    max_avg_ms       float8,
    loopback         text,
    args             jsonb)
RETURNS SETOF record
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    fn       text := 'ranread_fleet_sweep';
    o        @extschema@.ranread_fleet_options;
    nxt      record;
    r        ranread_internal.ranread_fleet_result_raw;
    done     integer;
    steps    @extschema@.ranread_sweep_step[] := '{}';
    counts   integer[] := '{}';
    sweep_id bigint;
    recorder text;
    rec_conn text;
    names    text[];
    reason   text;
    e_msg    text;
BEGIN
    -- first, before anything can fail: the call's text without its passwords
    PERFORM ranread_internal.ranread_conninfo_hide(nodes);
    PERFORM ranread_internal.ranread_conninfo_hide(ARRAY[loopback]);
    -- the fleet's options, by name: every step one fleet of start ... processes
    o := jsonb_populate_record(NULL::@extschema@.ranread_fleet_options,
             args || jsonb_build_object('processes', start, 'skip_unavailable', false));
    PERFORM ranread_internal.ranread_fleet_sweep_check(start, max_processes, iterations, duration, max_avg_ms, fn);
    PERFORM ranread_internal.ranread_fleet_check(o, fn);
    PERFORM ranread_internal.ranread_primary_only(fn);
    SELECT x.names INTO names FROM ranread_internal.ranread_fleet_resolve(nodes, fn) x;

    sweep_id := nextval('@extschema@.ranread_sweep_seq'::regclass);
    recorder := format('ranread_fleet_sweep_%s', sweep_id);
    rec_conn := ranread_internal.ranread_fleet_loopback(loopback);
    -- among the running calls ranread_reset keeps whole (a sweep: its id
    -- comes from the sweeps' sequence), until this transaction ends
    PERFORM ranread_internal.ranread_call_register('sweep', sweep_id);
    PERFORM ranread_internal.ranread_fleet_recorder(recorder, rec_conn, fn, 'sweep');

    PERFORM ranread_internal.ranread_fleet_sweep_begin(recorder, sweep_id, names, o, start, max_processes, max_avg_ms);

    BEGIN
        LOOP
            SELECT * INTO nxt FROM ranread_internal.ranread_sweep_next(steps, start, max_processes, max_avg_ms);
            reason := regexp_replace(nxt.stop_reason, '^status: batch', 'status: fleet');
            EXIT WHEN nxt.next_processes IS NULL;
            o.processes := nxt.next_processes;
            SELECT * INTO r FROM ranread_internal.ranread_fleet_run(o, sweep_id, fn) x WHERE x.node = 0;
            SELECT count(*) INTO done FROM @extschema@.ranread_fleet_nodes x
             WHERE x.fleet = r.fleet AND x.status = 'completed';
            steps := steps || ROW(coalesce(cardinality(steps), 0) + 1, o.processes, r.fleet,
                                  r.iops, r.avg_ms, r.p99_ms, r.max_ms, r.status)::@extschema@.ranread_sweep_step;
            counts := counts || done;
            PERFORM ranread_internal.ranread_sweep_say_step('fleet sweep', sweep_id, steps[cardinality(steps)]);
        END LOOP;
    EXCEPTION WHEN query_canceled OR others THEN
        GET STACKED DIAGNOSTICS e_msg = MESSAGE_TEXT;
        BEGIN
            IF ranread_internal.ranread_fleet_recorder_ready(recorder, rec_conn, clock_timestamp() + interval '1 s') THEN
                PERFORM ranread_internal.ranread_remote_query(recorder, format(
                    'UPDATE @extschema@.ranread_fleet_sweeps SET finished_at = %L, steps = %s, stop_reason = %L WHERE sweep = %s',
                    to_jsonb(clock_timestamp())#>>'{}', coalesce(cardinality(steps), 0),
                    'ended by an error or a cancel: ' || e_msg, sweep_id), 1000);
                PERFORM ranread_internal.ranread_remote_last_words(recorder, NULL);
            END IF;
        EXCEPTION WHEN query_canceled OR others THEN
            NULL;
        END;
        PERFORM ranread_internal.ranread_remote_close(ARRAY[recorder]);
        RAISE;
    END;

    PERFORM ranread_internal.ranread_fleet_sweep_end(recorder, sweep_id, steps, reason, max_avg_ms);

    RETURN QUERY
        SELECT s.step, s.processes, s.batch, counts[s.k::integer],
               ranread_internal.ranread_round(s.iops, 0)::bigint, ranread_internal.ranread_round(s.avg_ms, 3),
               ranread_internal.ranread_round(s.p99_ms, 3), ranread_internal.ranread_round(s.max_ms, 3),
               coalesce(s.status = 'completed' AND s.avg_ms <= max_avg_ms, false),
               CASE WHEN s.k = cardinality(steps) THEN reason END
          FROM unnest(steps) WITH ORDINALITY AS s(step, processes, batch, iops, avg_ms, p99_ms, max_ms, status, k);
END
$$;

-- The sweep method across the fleet: every node runs start, 2 x start, 4 x
-- start ... processes (the last clamped to max_processes), all nodes at
-- once, until ranread_sweep_next says stop on the fleet's figures (its
-- average latency above max_avg_ms twice in a row, its IOPS growing by less
-- than 10% of linear, a step that did not complete).  One row per step;
-- the verdict (ranread_sweep_judge on the fleet's steps) in
-- ranread_fleet_sweeps, recorded through the recorder like the fleets.
CREATE OR REPLACE FUNCTION @extschema@.ranread_fleet_sweep(
    nodes            text[],
    start            integer  DEFAULT 1,
    max_processes    integer  DEFAULT 1280,
    @options(iterations, duration='30s'),
    max_avg_ms       float8   DEFAULT 10,
    @options(target, block_size, write_pct, queue_depth, pattern, region_start, region_end, warmup, rate_iops, seed, workers, distribution, steady_state),
    start_delay      interval DEFAULT '2s',
    on_node_failure  text     DEFAULT 'continue',
    max_offset_ms    float8   DEFAULT 10,
    on_clock_skew    text     DEFAULT 'error',
    loopback         text     DEFAULT NULL,
    @options(sync, io_priority, verify, path, effective_io_concurrency))
    @skip(processes: each step's, from start and max_processes; start_at: the fleet starts every node at once, start_delay after each step begins)
RETURNS TABLE (
    step            integer,
    processes       integer,
    fleet           bigint,
    nodes_completed integer,
    iops            bigint,
    avg_ms          numeric,
    p99_ms          numeric,
    max_ms          numeric,
    within_bound    boolean,
    stop_reason     text)
AS 'MODULE_PATHNAME', 'ranread_forward'
LANGUAGE C CALLED ON NULL INPUT VOLATILE;

-- SVG: a fleet's IOPS per node and in total (bars), the outlier bound, and
-- a table of every node's figures.  The latest fleet when NULL.
CREATE OR REPLACE FUNCTION @extschema@.ranread_fleet_chart(fleet bigint DEFAULT NULL)
RETURNS text
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    f      record;
    median float8;
BEGIN
    SELECT * INTO f FROM ranread_internal.ranread_fleet_summary_raw s
     WHERE s.fleet = coalesce($1, (SELECT max(x.fleet) FROM @extschema@.ranread_fleets x));
    IF NOT FOUND THEN
        RETURN @extschema@.ranread_svg(jsonb_build_object('kind', 'bar',
            'title', 'Fleet: IOPS per node and in total', 'empty', 'No fleet has run yet: SELECT * FROM ranread_fleet(...)'));
    END IF;
    SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY n.iops) INTO median
      FROM @extschema@.ranread_fleet_nodes n WHERE n.fleet = f.fleet AND n.iops IS NOT NULL;
    RETURN @extschema@.ranread_svg(jsonb_build_object(
        'kind', 'bar',
        'title', format('Fleet %s: IOPS per node and in total', f.fleet),
        'subtitle', format('%s x %s, %s; started %s', ranread_internal.ranread_count_words(f.nodes, 'node'), ranread_internal.ranread_count_words(f.processes, 'process'),
                           (SELECT format('%s B %s, %s%% writes, queue depth %s', d.block_size, d.pattern, d.write_pct, d.queue_depth)
                              FROM jsonb_to_record(f.definition->'options') AS d(block_size integer, pattern text, write_pct integer, queue_depth integer)),
                           to_char(f.start_at, 'YYYY-MM-DD HH24:MI:SS TZ')),
        'categories', (SELECT jsonb_agg(left(n.name, 32) ORDER BY n.node) || '["fleet total"]'::jsonb
                         FROM @extschema@.ranread_fleet_nodes n WHERE n.fleet = f.fleet),
        'series', jsonb_build_array(jsonb_build_object('label', 'IOPS', 'labels', true,
            'y', (SELECT jsonb_agg(round(n.iops::numeric) ORDER BY n.node)
                    FROM @extschema@.ranread_fleet_nodes n WHERE n.fleet = f.fleet)
                 || jsonb_build_array(round(f.iops::numeric)))),
        'y', jsonb_build_object('label', 'IOPS (I/O operations per second)', 'format', 'count'),
        'lines', CASE WHEN median IS NULL THEN '[]'::jsonb ELSE jsonb_build_array(jsonb_build_object(
            'value', round((0.8 * median)::numeric), 'label', 'outlier bound',
            'legend', 'Outlier bound: 0.8x the median node')) END,
        'notes', jsonb_build_array(
            jsonb_build_object('style', CASE WHEN f.status = 'completed' THEN 'headline' ELSE 'headline-bad' END,
                'text', format('%s IOPS in total over the common window of %s s (%s); average %s ms, p99 %s ms from the merged histograms of every node',
                    coalesce(to_char(round(f.iops::numeric), 'FM999,999,999,999'), 'no'), round(coalesce(f.window_seconds, 0)::numeric, 2), f.status,
                    coalesce(round(f.avg_ms::numeric, 3)::text, 'n/a'), coalesce(round(f.p99_ms::numeric, 3)::text, 'n/a'))),
            format('first I/Os within %s ms of each other; clock offsets within %s ms',
                coalesce(round(f.start_spread_ms::numeric, 1)::text, 'n/a'), coalesce(round(f.offset_spread_ms::numeric, 3)::text, 'n/a')))
            || CASE WHEN f.outliers IS NULL THEN '[]'::jsonb ELSE jsonb_build_array(jsonb_build_object('style', 'bad',
                   'text', 'outliers (below 0.8x the median node): ' || array_to_string(f.outliers, ', '))) END,
        'table', jsonb_build_object(
            'header', '["node", "status", "batch", "IOPS", "avg ms", "p99 ms", "max ms", "first I/O ms"]'::jsonb,
            'align', '["left", "left", "right", "right", "right", "right", "right", "right"]'::jsonb,
            'rows', (SELECT coalesce(jsonb_agg(jsonb_build_array(
                        n.name,
                        jsonb_build_object('text', n.status || CASE WHEN n.outlier THEN ', outlier' ELSE '' END,
                                           'tone', CASE WHEN n.status = 'completed' AND NOT coalesce(n.outlier, false) THEN 'plain' ELSE 'bad' END),
                        n.batch, round(n.iops::numeric), round(n.avg_ms::numeric, 3), round(n.p99_ms::numeric, 3),
                        round(n.max_ms::numeric, 3), round(n.first_io_ms::numeric, 2)) ORDER BY n.node), '[]')
                       FROM ranread_internal.ranread_fleet_rows_raw(f.fleet) n WHERE n.node > 0))));
END
$$;

-- SVG: a fleet's IOPS per second, one line per node (the first 11) and the
-- fleet's total, on seconds from start_at.  The latest fleet when NULL.
CREATE OR REPLACE FUNCTION @extschema@.ranread_fleet_timeline(fleet bigint DEFAULT NULL)
RETURNS text
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    f record;
BEGIN
    SELECT * INTO f FROM ranread_internal.ranread_fleet_summary_raw s
     WHERE s.fleet = coalesce($1, (SELECT max(x.fleet) FROM @extschema@.ranread_fleets x));
    IF NOT FOUND THEN
        RETURN @extschema@.ranread_svg(jsonb_build_object(
            'title', 'Fleet: IOPS per second', 'empty', 'No fleet has run yet: SELECT * FROM ranread_fleet(...)'));
    END IF;
    RETURN @extschema@.ranread_svg(jsonb_build_object(
        'title', format('Fleet %s: IOPS per second, per node and in total', f.fleet),
        'subtitle', format('%s x %s; seconds from the start at %s, aligned by epoch second',
                           ranread_internal.ranread_count_words(f.nodes, 'node'), ranread_internal.ranread_count_words(f.processes, 'process'), to_char(f.start_at, 'YYYY-MM-DD HH24:MI:SS TZ')),
        'empty', 'The fleet has no per-second figures.',
        'x', '{"label": "Time from the start", "integer": true, "time": "duration"}'::jsonb,
        'y', '{"label": "IOPS (I/O operations per second)", "format": "count"}'::jsonb,
        'series', coalesce((
            SELECT jsonb_agg(jsonb_build_object('label', left(n.name, 40), 'marker', 'none',
                       'x', (SELECT jsonb_agg(extract(epoch FROM s.at - f.start_at)::integer ORDER BY s.at)
                               FROM @extschema@.ranread_fleet_seconds s WHERE s.fleet = f.fleet AND s.node = n.node),
                       'y', (SELECT jsonb_agg(round(s.iops::numeric) ORDER BY s.at)
                               FROM @extschema@.ranread_fleet_seconds s WHERE s.fleet = f.fleet AND s.node = n.node))
                   ORDER BY n.node)
              FROM @extschema@.ranread_fleet_nodes n
             WHERE n.fleet = f.fleet AND n.node <= 11
               AND EXISTS (SELECT FROM @extschema@.ranread_fleet_seconds s WHERE s.fleet = f.fleet AND s.node = n.node)), '[]')
          || coalesce((SELECT jsonb_build_array(jsonb_build_object('label', 'fleet total', 'width', 3,
                       'x', jsonb_agg(v.second ORDER BY v.at), 'y', jsonb_agg(round(v.iops::numeric) ORDER BY v.at)))
                         FROM ranread_internal.ranread_fleet_series_raw v WHERE v.fleet = f.fleet
                       HAVING count(*) > 0), '[]'),
        'notes', jsonb_build_array(
            format('common window: %s s, %s IOPS in total there; status %s',
                   round(coalesce(f.window_seconds, 0)::numeric, 2), coalesce(to_char(round(f.iops::numeric), 'FM999,999,999,999'), 'no'), f.status))
            || CASE WHEN f.nodes > 11 THEN jsonb_build_array(format('the first 11 of %s nodes are drawn; the total counts all', f.nodes))
                    ELSE '[]'::jsonb END));
END
$$;

-- A fleet to a server file: its rows (tsv, csv), everything about it
-- (json: the fleet, its nodes and seconds) or its chart (svg), as
-- directory/ranread_fleet_<fleet>_YYYYMMDD-HHMMSS.<ext>, never overwriting.
-- Returns the path.  Needs superuser (COPY TO and lo_export write as the
-- server).
CREATE OR REPLACE FUNCTION @extschema@.ranread_fleet_export(
    directory text,
    format    text   DEFAULT 'tsv',
    fleet     bigint DEFAULT NULL)
RETURNS text
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    id   bigint;
    path text;
    body text;
    lo   oid;
    q    text := 'SELECT * FROM ranread_internal.ranread_fleet_rows_raw(%s)';
    shown text;
    isdir boolean;
BEGIN
    -- the directory as errors show it: at most 100 characters of it
    shown := CASE WHEN length(directory) <= 100 THEN quote_literal(directory)
                  ELSE quote_literal(left(directory, 100)) || format('... (%s characters)', length(directory)) END;
    IF directory IS NULL OR directory !~ '^/' THEN
        RAISE EXCEPTION USING
            ERRCODE = CASE WHEN directory IS NULL THEN 'null_value_not_allowed' ELSE 'invalid_parameter_value' END,
            MESSAGE = format('directory of ranread_fleet_export must be an absolute path, not %s', coalesce(shown, 'NULL')),
            HINT = 'The file is written by the server, in a directory such as ''/var/tmp''.';
    END IF;
    -- what a path may be (Linux: 255 bytes a name), with room for the file's name
    IF octet_length(directory) > 900 OR EXISTS (SELECT FROM regexp_split_to_table(directory, '/') n WHERE octet_length(n) > 255) THEN
        RAISE EXCEPTION USING
            ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('directory of ranread_fleet_export must be a path of at most 900 bytes, each name in it at most 255, not %s', shown),
            HINT = 'The file is written by the server, in a directory such as ''/var/tmp''.';
    END IF;
    IF format IS NULL OR format NOT IN ('tsv', 'csv', 'json', 'svg') THEN
        RAISE EXCEPTION USING
            ERRCODE = CASE WHEN format IS NULL THEN 'null_value_not_allowed' ELSE 'invalid_parameter_value' END,
            MESSAGE = format('format of ranread_fleet_export must be tsv, csv, json or svg, not %s', coalesce(quote_literal(format), 'NULL')),
            HINT = 'tsv and csv: a row per node and one for the fleet; json: the fleet with its nodes and seconds; svg: its chart.';
    END IF;
    id := coalesce(fleet, (SELECT max(x.fleet) FROM @extschema@.ranread_fleets x));
    IF NOT EXISTS (SELECT FROM @extschema@.ranread_fleets x WHERE x.fleet = id) THEN
        RAISE EXCEPTION USING
            ERRCODE = 'undefined_object',
            MESSAGE = CASE WHEN fleet IS NULL THEN 'there is no fleet to export'
                           ELSE format('fleet %s does not exist', fleet) END,
            HINT = 'ranread_fleet_summary lists the fleets.';
    END IF;
    BEGIN
        isdir := coalesce((pg_stat_file(directory, true)).isdir, false);
    EXCEPTION WHEN internal_error THEN
        -- an error of the system PostgreSQL has no code for (a loop of symbolic links, ...)
        RAISE EXCEPTION USING
            ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('directory %s of ranread_fleet_export cannot be looked at: %s', shown, SQLERRM),
            HINT = 'Give a directory the server can write to.';
    END;
    IF NOT isdir THEN
        RAISE EXCEPTION USING
            ERRCODE = 'undefined_file',
            MESSAGE = format('directory %s of ranread_fleet_export does not exist', shown),
            HINT = 'Give a directory the server can write to.';
    END IF;
    path := rtrim(directory, '/') || format('/ranread_fleet_%s_%s.%s', id,
                                             to_char(clock_timestamp(), 'YYYYMMDD-HH24MISS'), format);
    IF (pg_stat_file(path, true)).size IS NOT NULL THEN
        RAISE EXCEPTION USING
            ERRCODE = 'duplicate_file',
            MESSAGE = format('file "%s" already exists', path),
            HINT = 'ranread_fleet_export never overwrites a file: try again in a second.';
    END IF;
    IF format IN ('tsv', 'csv') THEN
        EXECUTE format('COPY (%s) TO %L WITH (FORMAT %s, HEADER true)',
                       format(q, id), path, CASE format WHEN 'tsv' THEN 'text' ELSE 'csv' END);
        RETURN path;
    END IF;
    IF format = 'svg' THEN
        body := @extschema@.ranread_fleet_chart(id);
    ELSE
        SELECT jsonb_pretty(jsonb_build_object(
                   'fleet', (SELECT to_jsonb(s) - 'definition' FROM ranread_internal.ranread_fleet_summary_raw s WHERE s.fleet = id),
                   'definition', (SELECT x.definition FROM @extschema@.ranread_fleets x WHERE x.fleet = id),
                   'nodes', (SELECT jsonb_agg(to_jsonb(r)) FROM ranread_internal.ranread_fleet_rows_raw(id) r WHERE r.node > 0),
                   'seconds', (SELECT coalesce(jsonb_agg(to_jsonb(v) ORDER BY v.at), '[]')
                                 FROM ranread_internal.ranread_fleet_series_raw v WHERE v.fleet = id)))
          INTO body;
    END IF;
    lo := lo_from_bytea(0, convert_to(body || E'\n', 'UTF8'));
    PERFORM lo_export(lo, path);
    PERFORM lo_unlink(lo);
    RETURN path;
END
$$;
