-- 1.1, a report to attach to a ticket: one self-contained HTML page (no
-- external file, no script) with the server and targets, the charts inline,
-- the tables, the verdicts and the exact calls; written to a server file by
-- ranread_export(directory, 'html'), ranread_export_study and
-- ranread_export_sweep (C, src/report/export.c), or read from the client as
-- ranread_report().  Also a study's files for ORION's readers: a csv grid
-- per metric and everything as json.

-- What the report says about the server that SQL cannot see: the kernel,
-- CPUs, RAM, and the filesystem and device under the data directory, pg_wal
-- and each target.  (src/report/server_info.c)
CREATE OR REPLACE FUNCTION @extschema@.ranread_server_info()
RETURNS TABLE (item text, value text)
AS 'MODULE_PATHNAME', 'ranread_server_info'
LANGUAGE C VOLATILE
SET search_path = pg_catalog, pg_temp;

-- One study to server files: html (the report), csv (a grid per metric and
-- the summary, as ORION writes them) or json; returns the paths.
CREATE OR REPLACE FUNCTION @extschema@.ranread_export_study(
    directory text,
    study     bigint,
    format    text DEFAULT 'html')
RETURNS SETOF text
AS 'MODULE_PATHNAME', 'ranread_export_study'
LANGUAGE C CALLED ON NULL INPUT VOLATILE ROWS 4
SET search_path = pg_catalog, pg_temp;

-- One sweep's report to a server file; returns its path.
CREATE OR REPLACE FUNCTION @extschema@.ranread_export_sweep(
    directory text,
    sweep     bigint)
RETURNS text
AS 'MODULE_PATHNAME', 'ranread_export_sweep'
LANGUAGE C CALLED ON NULL INPUT VOLATILE
SET search_path = pg_catalog, pg_temp;

-- Text made safe for HTML.  Pure.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_html(t text)
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT replace(replace(replace(replace(replace(coalesce(t, ''), '&', '&amp;'), '<', '&lt;'),
                                   '>', '&gt;'), '"', '&quot;'), '''', '&#39;')
$$;

-- An HTML table: the header cells, then rows of cells (already text; NULL
-- prints n/a); the first column left-aligned, the others right.  In a box
-- that scrolls sideways when the window is narrower than the table (short
-- cells stay on one line; a long one wraps).  Pure.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_html_table(header text[], rows jsonb)
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT '<div class="scroll"><table><thead><tr>'
           || (SELECT string_agg('<th>' || ranread_internal.ranread_html(h) || '</th>', '' ORDER BY i)
                 FROM unnest(header) WITH ORDINALITY x(h, i))
           || '</tr></thead><tbody>'
           || coalesce((SELECT string_agg('<tr>' || (SELECT string_agg(
                                    -- a short cell (a time, a figure) on one line
                                    CASE WHEN length(c #>> '{}') > 40 THEN '<td class="wrap">' ELSE '<td>' END
                                    || CASE WHEN jsonb_typeof(c) = 'null' THEN '<span class="na">n/a</span>'
                                                   ELSE ranread_internal.ranread_html(c #>> '{}') END || '</td>', '' ORDER BY j)
                                    FROM jsonb_array_elements(r) WITH ORDINALITY y(c, j)) || '</tr>', '' ORDER BY i)
                         FROM jsonb_array_elements(rows) WITH ORDINALITY x(r, i)), '')
           || '</tbody></table></div>'
$$;

-- An SVG chart for inline use: without its XML declaration.  Pure.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_html_svg(svg text)
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT '<figure>' || regexp_replace(coalesce(svg, ''), '^<\?xml[^>]*\?>\s*', '') || '</figure>'
$$;

-- A field of a CSV record (RFC 4180).  Pure.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_csv_field(t text)
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN t IS NULL THEN ''
                WHEN t ~ '[,"\r\n]' OR t = '' THEN '"' || replace(t, '"', '""') || '"'
                ELSE t END
$$;

-- The figures of a batch or point as the report's tables print them, the
-- cells after its own: IOPS and MiB/s (ranread_fmt_figure), average, p99
-- and maximum latency in ms with three decimals.  Pure.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_report_figures(
    iops float8, mbps float8, avg_ms float8, p99_ms float8, max_ms float8)
RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT jsonb_build_array(ranread_internal.ranread_fmt_figure(iops), ranread_internal.ranread_fmt_figure(mbps),
                             to_char(avg_ms, 'FM999990.000'), to_char(p99_ms, 'FM999990.000'),
                             to_char(max_ms, 'FM999990.000'))
$$;

-- A study's grid of a metric as ORION's csv files lay it out: a header of
-- the column values (a matrix's small loads) after the names of the axes
-- (ORION's "Large/Small" for a matrix) and the metric with its unit, then
-- a record per row (a matrix's large loads, named by the number as ORION
-- does); empty where no point completed; figures at full precision.  CRLF
-- line ends (RFC 4180).
CREATE OR REPLACE FUNCTION ranread_internal.ranread_study_csv(study bigint, metric text DEFAULT 'iops')
RETURNS text
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    ax     record;
    orion  boolean;
BEGIN
    PERFORM ranread_internal.ranread_study_check(study, 'ranread_study_csv');
    SELECT * INTO ax FROM ranread_internal.ranread_study_points_axes(study, NULL, 'ranread_study_csv');
    orion := ax.row_dims = '{large}' AND ax.column_dim = 'small';
    RETURN (SELECT string_agg(t.l, E'\r\n' ORDER BY t.o) || E'\r\n'
              FROM (SELECT 0::bigint AS o,
                           ranread_internal.ranread_csv_field(
                               CASE WHEN orion THEN 'Large/Small'
                                    WHEN cardinality(ax.row_dims) = 0 THEN '/' || ax.column_dim
                                    ELSE array_to_string(ax.row_dims, ', ') || '/' || ax.column_dim END
                               || ': ' || (SELECT x.label FROM ranread_internal.ranread_study_metric(metric, 'ranread_study_csv') x))
                           || ',' || (SELECT string_agg(ranread_internal.ranread_csv_field(c), ',' ORDER BY i)
                                        FROM unnest(h.column_labels) WITH ORDINALITY x(c, i)) AS l
                      FROM (SELECT g.column_labels FROM ranread_internal.ranread_study_grid_raw(study, metric) g LIMIT 1) h
                    UNION ALL
                    SELECT row_number() OVER (),
                           ranread_internal.ranread_csv_field(CASE WHEN orion THEN regexp_replace(g.row_label, '^large ', '')
                                                                   ELSE g.row_label END) || ','
                           || (SELECT string_agg(coalesce(v::text, ''), ',' ORDER BY i)
                                 FROM unnest(g.cells) WITH ORDINALITY x(v, i))
                      FROM ranread_internal.ranread_study_grid_raw(study, metric) g) t);
END
$$;

-- A study's _summary.txt as ORION writes it: what ran (the call and the
-- settings it enables, the loads of the columns and rows, the target),
-- the units of the files, then the summary's lines.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_study_summary_txt(study bigint)
RETURNS text
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT concat_ws(E'\n',
               format('ranread %s, study %s%s', (SELECT e.extversion FROM pg_extension e WHERE e.extname = 'ranread'),
                      x.id, coalesce(' (' || nullif(s.kind, 'study') || ')', '')),
               '',
               'Command line:',
               coalesce(s.call, '(not recorded: the study did not return)'),
               '',
               'These options enable these settings:',
               format('Test: study %s', x.id),
               (SELECT 'Small IO size: ' || (min(g.block_size) / 1024) || ' KB' FROM @extschema@.ranread_groups g
                  JOIN @extschema@.ranread_batches b ON b.batch OPERATOR(pg_catalog.=) g.batch
                 WHERE b.study OPERATOR(pg_catalog.=) x.id AND g.label = 'small'),
               (SELECT 'Large IO size: ' || (min(g.block_size) / 1024) || ' KB' FROM @extschema@.ranread_groups g
                  JOIN @extschema@.ranread_batches b ON b.batch OPERATOR(pg_catalog.=) g.batch
                 WHERE b.study OPERATOR(pg_catalog.=) x.id AND g.label = 'large'),
               (SELECT format('Writes: %s%%', string_agg(DISTINCT b.write_pct::text, ', '))
                  FROM @extschema@.ranread_batches b WHERE b.study OPERATOR(pg_catalog.=) x.id),
               (SELECT format('Duration for each data point: %s seconds', extract(epoch FROM min(b.duration))::bigint)
                  FROM @extschema@.ranread_batches b WHERE b.study OPERATOR(pg_catalog.=) x.id),
               (SELECT format('%s Columns:,%s', initcap(ax.column_dim),
                              (SELECT string_agg(lpad(c, 7), ',') FROM unnest(g.column_labels) c))
                  FROM @extschema@.ranread_study_grid(x.id) g LIMIT 1),
               (SELECT format('%s Columns:,%s', initcap(array_to_string(ax.row_dims, ', ')),
                              string_agg(lpad(regexp_replace(g.row_label, '^large ', ''), 7), ','))
                  FROM @extschema@.ranread_study_grid(x.id) g),
               format('Total Data Points: %s', (SELECT count(*) FROM @extschema@.ranread_batches b
                                                 WHERE b.study OPERATOR(pg_catalog.=) x.id)),
               '',
               (SELECT format('Name: target %s (tablespace %s)%sSize: %s', t.target, t.tablespace, E'\t', t.size_bytes)
                  FROM @extschema@.ranread_targets t
                 WHERE t.target = (SELECT min(b.target) FROM @extschema@.ranread_batches b
                                    WHERE b.study OPERATOR(pg_catalog.=) x.id)),
               '',
               'Units: _iops.csv in I/O operations per second, _mbps.csv in MiB/s (2^20 bytes), _lat.csv average '
               || 'latency in ms, full precision; below, latency in usecs (microseconds) as ORION prints it.',
               '')
           || E'\n'
           || coalesce((SELECT string_agg(y.line, E'\n' ORDER BY y.ord)
                          FROM (SELECT l.line, row_number() OVER () AS ord
                                  FROM @extschema@.ranread_study_summary(x.id) l) y), '')
           || E'\n'
      FROM (SELECT ranread_study_summary_txt.study AS id) x
      CROSS JOIN LATERAL ranread_internal.ranread_study_points_axes(x.id, NULL, 'ranread_export_study') ax
      LEFT JOIN @extschema@.ranread_studies s ON s.study OPERATOR(pg_catalog.=) x.id
$$;

-- Everything about a study as one JSON document: its row (if it returned),
-- its points with their figures, the grids of IOPS, MB/s and latency, and
-- the summary.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_study_json(study bigint)
RETURNS jsonb
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT jsonb_build_object(
        'study', id,
        'overview', (SELECT to_jsonb(o) FROM ranread_internal.ranread_study_overview_raw o
                      WHERE o.study OPERATOR(pg_catalog.=) id),
        'points', (SELECT jsonb_agg(to_jsonb(p) ORDER BY p.n) FROM ranread_internal.ranread_study_points_raw p
                    WHERE p.study OPERATOR(pg_catalog.=) id),
        'grids', (SELECT jsonb_object_agg(m, (SELECT jsonb_agg(jsonb_build_object(
                                                  'row', g.row_label, 'columns', g.column_labels, 'cells', g.cells))
                                                FROM ranread_internal.ranread_study_grid_raw(id, m) g))
                    FROM unnest(ARRAY['iops', 'mbps', 'avg_ms', 'p99_ms']) m),
        'summary', (SELECT jsonb_agg(to_jsonb(s)) FROM ranread_internal.ranread_study_summary_raw(id) s))
      -- the study is checked first: the figures are read for its row
      FROM (SELECT ranread_study_json.study AS id) x,
           LATERAL ranread_internal.ranread_study_check(x.id, 'ranread_study_json') c
$$;

-- The HTML of one study: what ran, the exact call, the charts, the grids
-- and the summary.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_report_study(study bigint)
RETURNS text
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    id    constant bigint := study;
    o     record;
    h     text;
    m     text;
    ngrid record;
BEGIN
    SELECT * INTO o FROM ranread_internal.ranread_study_overview_raw x WHERE x.study OPERATOR(pg_catalog.=) id;
    h := format('<section id="study-%s"><h2>Study %s%s</h2>', id, id,
                CASE WHEN o.kind <> 'study' THEN ': profile ' || ranread_internal.ranread_html(o.kind) ELSE '' END);
    h := h || format('<p>%s, started %s%s; %s of %s points completed%s on target %s (tablespace %s).</p>',
                     ranread_internal.ranread_html(initcap(o.status)),
                     to_char(o.started_at, 'YYYY-MM-DD HH24:MI:SS TZ'),
                     coalesce(', finished ' || to_char(o.finished_at, 'HH24:MI:SS'), ''),
                     o.completed, coalesce(o.planned, o.points),
                     CASE WHEN o.skipped > 0 THEN format(' (%s skipped by early_end)', o.skipped) ELSE '' END,
                     ranread_internal.ranread_html(o.target), ranread_internal.ranread_html(coalesce(o.tablespace, 'n/a')));
    IF o.stop_reason IS NOT NULL THEN
        h := h || format('<p class="bad">Ended early: %s</p>', ranread_internal.ranread_html(o.stop_reason));
    END IF;
    h := h || '<h3>The call</h3>'
          || CASE WHEN o.call IS NOT NULL THEN '<pre><code>' || ranread_internal.ranread_html(o.call) || '</code></pre>'
                  ELSE '<p class="bad">The study did not return (cancelled, or still running): its call was not recorded; its points are below.</p>' END;

    h := h || '<h3>Verdict</h3><ul class="verdict">'
          || coalesce((SELECT string_agg('<li>' || ranread_internal.ranread_html(s.line) || '</li>', '')
                         FROM ranread_internal.ranread_study_summary_raw(id) s), '')
          || '</ul>';

    IF o.kind <> 'study' THEN
        h := h || ranread_internal.ranread_html_svg(@extschema@.ranread_profile_chart(id));
        h := h || '<h3>As the tool reports it</h3><pre class="tool">'
              || coalesce((SELECT string_agg(ranread_internal.ranread_html(r.result), E'\n')
                             FROM ranread_internal.ranread_profile_report_raw(id) r), '')
              || '</pre>';
    ELSE
        h := h || ranread_internal.ranread_html_svg(@extschema@.ranread_study_chart(id));
        SELECT count(*) AS rows_, max(cardinality(g.column_labels)) AS cols INTO ngrid
          FROM ranread_internal.ranread_study_grid_raw(id) g;
        IF ngrid.rows_ > 1 AND ngrid.cols > 1 THEN
            h := h || ranread_internal.ranread_html_svg(@extschema@.ranread_study_heat(id, 'iops'));
        END IF;
    END IF;

    FOREACH m IN ARRAY ARRAY['iops', 'mbps', 'avg_ms', 'p99_ms'] LOOP
        h := h || format('<h3>%s</h3>', (SELECT x.label FROM ranread_internal.ranread_study_metric(m, 'ranread_report') x))
              || (SELECT ranread_internal.ranread_html_table(
                             -- the corner names the rows' and the columns' dimensions
                             ARRAY[(SELECT coalesce(nullif(array_to_string(ax.row_dims, ', '), ''), 'rows')
                                           || ' \ ' || ax.column_dim
                                      FROM ranread_internal.ranread_study_points_axes(id, NULL, 'ranread_report') ax)]
                             || (SELECT g.column_labels FROM ranread_internal.ranread_study_grid_raw(id, m) g LIMIT 1),
                             jsonb_agg(jsonb_build_array(g.row_label)
                                       || (SELECT coalesce(jsonb_agg(CASE WHEN v IS NULL THEN 'null'::jsonb
                                                                          ELSE to_jsonb(ranread_internal.ranread_fmt_figure(v)) END
                                                                     ORDER BY i), '[]')
                                             FROM unnest(g.cells) WITH ORDINALITY x(v, i))))
                    FROM ranread_internal.ranread_study_grid_raw(id, m) g);
    END LOOP;

    h := h || '<h3>Points</h3>'
          || ranread_internal.ranread_html_table(
                 ARRAY['#', 'batch', 'row', 'column', 'status', 'IOPS', 'MiB/s', 'avg ms', 'p99 ms', 'max ms'],
                 (SELECT jsonb_agg(jsonb_build_array(p.n, p.batch, p.row_label, p.column_label, p.status)
                                   || ranread_internal.ranread_report_figures(p.iops, p.mbps, p.avg_ms, p.p99_ms, p.max_ms)
                                   ORDER BY p.n)
                    FROM ranread_internal.ranread_study_points_raw p WHERE p.study OPERATOR(pg_catalog.=) id));
    RETURN h || '</section>';
END
$$;

-- The HTML of one sweep: its verdict, the call (from its recorded
-- settings), its chart and steps.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_report_sweep(sweep bigint)
RETURNS text
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    id  constant bigint := sweep;
    v   record;
    h   text;
BEGIN
    SELECT * INTO v FROM @extschema@.ranread_sweeps s WHERE s.sweep OPERATOR(pg_catalog.=) id;
    h := format('<section id="sweep-%s"><h2>Sweep %s</h2>', id, id);
    IF v.sweep IS NULL THEN
        h := h || '<p class="bad">The sweep did not return (cancelled, or still running): no verdict and no call were recorded; its steps are below.</p>';
    ELSE
        h := h || '<h3>The call</h3><pre><code>' || ranread_internal.ranread_html(format(
                 'SELECT * FROM ranread_sweep(start => %s, max_processes => %s, %s, max_avg_ms => %s, target => %L, block_size => %s, write_pct => %s, queue_depth => %s, pattern => %L);',
                 v.start, v.max_processes,
                 CASE WHEN v.duration IS NOT NULL THEN format('duration => %L', v.duration)
                      ELSE format('iterations => %s', v.iterations) END,
                 v.max_avg_ms, v.target, v.block_size, v.write_pct, v.queue_depth, v.pattern)) || '</code></pre>'
              || '<h3>Verdict</h3><ul class="verdict"><li>'
              || CASE WHEN v.max_iops IS NULL
                      THEN format('No step stayed within the %s ms average latency bound.', v.max_avg_ms)
                      ELSE format('Max %s IOPS within %s ms average latency, at %s (average %s ms, batch %s).',
                                  ranread_internal.ranread_fmt_figure(v.max_iops), v.max_avg_ms,
                                  ranread_internal.ranread_count_words(v.max_iops_processes, 'process'),
                                  round(v.actual_latency_ms::numeric, 3), v.max_iops_batch) END
              || '</li><li class="' || CASE WHEN v.meets_flash_guidance THEN 'good' ELSE 'bad' END || '">'
              || CASE WHEN v.meets_flash_guidance THEN 'Meets' ELSE 'Does not meet' END
              || ' the all-flash guidance (average &lt;= 2 ms, no I/O above 5 ms)'
              || coalesce(': ' || ranread_internal.ranread_html(
                     (SELECT f.verdict FROM @extschema@.ranread_batches b,
                             LATERAL @extschema@.ranread_flash_guidance(v.actual_latency_ms, b.max_ms) f
                       WHERE b.batch = v.max_iops_batch)), '')
              || '.</li><li>Stopped on '
              || ranread_internal.ranread_html(coalesce(v.stop_reason, 'n/a')) || '</li></ul>';
    END IF;
    -- the chart without its table: the steps are the table below
    h := h || ranread_internal.ranread_html_svg(ranread_internal.ranread_chart_no_table(id));
    h := h || '<h3>Steps</h3>'
          || ranread_internal.ranread_html_table(
                 ARRAY['batch', 'processes', 'status', 'IOPS', 'MiB/s', 'avg ms', 'p99 ms', 'max ms'],
                 (SELECT jsonb_agg(jsonb_build_array(s.batch, s.processes, s.status)
                                   || ranread_internal.ranread_report_figures(s.iops, s.mbps, s.avg_ms, s.p99_ms, s.max_ms)
                                   ORDER BY s.processes, s.batch)
                    FROM ranread_internal.ranread_summary_raw s WHERE s.sweep OPERATOR(pg_catalog.=) id));
    RETURN h || '</section>';
END
$$;

-- The head of the report's page: its title, the style (inline: the page
-- is one self-contained file) and who wrote it when.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_report_head(scope text)
RETURNS text
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT '<!DOCTYPE html>' || E'\n' || '<html lang="en"><head><meta charset="utf-8">'
           || format('<title>ranread report: %s</title>', ranread_internal.ranread_html(scope))
           || '<style>'
           || 'body{font-family:"DejaVu Sans",Verdana,Arial,sans-serif;color:#212529;margin:24px auto;max-width:1240px;padding:0 16px;line-height:1.4}'
           || 'div.scroll{overflow-x:auto;max-width:100%}code{overflow-wrap:anywhere}'
           || 'h1{font-size:26px;margin-bottom:4px}h2{border-top:2px solid #dee2e6;padding-top:12px;margin-top:32px}'
           || 'table{border-collapse:collapse;margin:8px 0 16px;font-size:13px}'
           || 'th,td{border:1px solid #dee2e6;padding:3px 8px;text-align:right}th{background:#f1f3f5}'
           || 'td:first-child,th:first-child{text-align:left}'
           || 'th,td{white-space:nowrap}td.wrap{white-space:normal;text-align:left;min-width:16em;max-width:32em}'
           || 'ul.evidence li{margin:2px 0;overflow-wrap:anywhere}'
           || 'pre{background:#f8f9fa;border:1px solid #dee2e6;padding:8px;white-space:pre-wrap;font-size:13px}'
           || 'figure{margin:12px 0}figure svg{max-width:100%;height:auto}'
           || '.good{color:#2b8a3e}.bad{color:#c92a2a}.na{color:#868e96}.muted{color:#868e96}'
           || 'ul.verdict li{margin:2px 0}'
           || '</style></head><body>'
           || format('<h1>ranread report: %s</h1><p class="muted">Written %s by %s in database %s, ranread %s.</p>',
                     ranread_internal.ranread_html(scope), to_char(clock_timestamp(), 'YYYY-MM-DD HH24:MI:SS TZ'),
                     ranread_internal.ranread_html(current_user), ranread_internal.ranread_html(current_database()),
                     ranread_internal.ranread_html((SELECT e.extversion FROM pg_extension e WHERE e.extname = 'ranread')))
$$;

-- The report's section on the server and its targets: version(), what
-- ranread_server_info sees, the settings that matter, the targets.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_report_server()
RETURNS text
LANGUAGE sql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT '<section id="server"><h2>Server and targets</h2>'
           || ranread_internal.ranread_html_table(ARRAY['item', 'value'],
                  (SELECT jsonb_agg(jsonb_build_array(i.item, i.value) ORDER BY i.k)
                     FROM (SELECT 0 AS k, 'PostgreSQL' AS item, version() AS value
                           UNION ALL
                           SELECT row_number() OVER (), x.item, x.value FROM @extschema@.ranread_server_info() x) i))
           || '<h3>Settings that matter</h3>'
           || ranread_internal.ranread_html_table(ARRAY['setting', 'value'],
                  (SELECT jsonb_agg(jsonb_build_array(s.name, current_setting(s.name)) ORDER BY s.name)
                     FROM pg_settings s
                    WHERE s.name IN ('shared_buffers', 'effective_io_concurrency', 'maintenance_io_concurrency',
                                     'random_page_cost', 'seq_page_cost', 'max_worker_processes',
                                     'data_checksums', 'wal_sync_method', 'full_page_writes', 'block_size',
                                     'huge_pages', 'ranread.engine', 'ranread.huge_pages', 'ranread.timing',
                                     'ranread.reserve')))
           || '<h3>Targets</h3>'
           || ranread_internal.ranread_html_table(ARRAY['target', 'tablespace', 'size', 'created', 'state', 'protected'],
                  (SELECT jsonb_agg(jsonb_build_array(t.target, t.tablespace, pg_size_pretty(t.size_bytes),
                                                      to_char(t.created_at, 'YYYY-MM-DD HH24:MI'), t.state,
                                                      t.protected::text) ORDER BY t.target)
                     FROM @extschema@.ranread_targets t))
           || '</section>'
$$;

-- The report's section on the latest 100 batches, for a report of the
-- history: each with its workload in words and its sync method (a commit
-- test's rows are told apart by them).
CREATE OR REPLACE FUNCTION ranread_internal.ranread_report_batches()
RETURNS text
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT '<section id="batches"><h2>The latest batches</h2>'
           || ranread_internal.ranread_html_table(
                  ARRAY['batch', 'run at', 'target', 'workload', 'sync', 'processes', 'QD', 'status',
                        'IOPS', 'MiB/s', 'avg ms', 'p99 ms', 'max ms', 'study', 'sweep', 'commit test',
                        'stddev ms', 'CPU usr %', 'CPU sys %', 'CPU us/IO', 'util %'],
                  (SELECT jsonb_agg(jsonb_build_array(s.batch, to_char(s.run_at, 'YYYY-MM-DD HH24:MI:SS'),
                                                      s.target,
                                                      ranread_internal.ranread_workload_words(s.groups, s.pattern, s.block_size::integer,
                                                                                              s.write_pct, NULL),
                                                      coalesce(s.sync, 'none'), s.processes, s.queue_depth, s.status)
                                    || ranread_internal.ranread_report_figures(s.iops, s.mbps, s.avg_ms, s.p99_ms, s.max_ms)
                                    || jsonb_build_array(s.study, s.sweep, s.commit_test,
                                                         to_char(s.lat_stddev_ms, 'FM999990.000'),
                                                         round(s.cpu_user_pct::numeric, 1), round(s.cpu_sys_pct::numeric, 1),
                                                         round(s.cpu_us_per_io::numeric, 1),
                                                         round(s.device_util_pct::numeric, 1))
                                    ORDER BY s.batch DESC)
                     FROM (SELECT * FROM ranread_internal.ranread_summary_raw x ORDER BY x.batch DESC LIMIT 100) s))
           || '</section>'
$$;

-- The report: one self-contained HTML page (inline style and SVG, no
-- script, no external file).  One study, one sweep, both, or (both NULL)
-- the history: the latest advice, the health of the watched tablespaces,
-- the commit tests, durability checks and verify errors, the latest 10
-- studies and 10 sweeps, the latest batch's heatmap and the latest 100
-- batches.  Always the server and targets and the settings that matter.
CREATE OR REPLACE FUNCTION @extschema@.ranread_report(
    study  bigint DEFAULT NULL,
    sweep  bigint DEFAULT NULL)
RETURNS text
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    fn       constant text := 'ranread_report';
    h        text;
    scope    text;
    id       bigint;
    studies  bigint[];
    sweeps   bigint[];
BEGIN
    IF study IS NOT NULL THEN
        PERFORM ranread_internal.ranread_study_check(study, fn);
    END IF;
    IF sweep IS NOT NULL THEN
        PERFORM ranread_internal.ranread_sweep_known(sweep, fn);
    END IF;
    IF study IS NULL AND sweep IS NULL THEN
        studies := ARRAY(SELECT o.study FROM ranread_internal.ranread_study_overview_raw o ORDER BY o.study DESC LIMIT 10);
        sweeps := ARRAY(SELECT DISTINCT b.sweep FROM @extschema@.ranread_batches b
                         WHERE b.sweep IS NOT NULL ORDER BY b.sweep DESC LIMIT 10);
        scope := 'history';
    ELSE
        studies := CASE WHEN study IS NOT NULL THEN ARRAY[study] ELSE '{}' END;
        sweeps := CASE WHEN sweep IS NOT NULL THEN ARRAY[sweep] ELSE '{}' END;
        scope := array_to_string(ARRAY(SELECT 'study ' || s FROM unnest(studies) s)
                                 || ARRAY(SELECT 'sweep ' || s FROM unnest(sweeps) s), ', ');
    END IF;

    h := ranread_internal.ranread_report_head(scope);
    -- Contents
    h := h || '<nav><ul>'
          || CASE WHEN scope = 'history'
                  THEN '<li><a href="#advice">Advice</a></li><li><a href="#health">Health of watched tablespaces</a></li>'
                       || '<li><a href="#commit-tests">Commit tests</a></li><li><a href="#durability">Durability checks</a></li>'
                       || '<li><a href="#verify">Verify errors</a></li>'
                  ELSE '' END
          || coalesce((SELECT string_agg(format('<li><a href="#study-%s">Study %s</a></li>', s, s), '' ORDER BY k)
                         FROM unnest(studies) WITH ORDINALITY x(s, k)), '')
          || coalesce((SELECT string_agg(format('<li><a href="#sweep-%s">Sweep %s</a></li>', s, s), '' ORDER BY k)
                         FROM unnest(sweeps) WITH ORDINALITY x(s, k)), '')
          || CASE WHEN scope = 'history' THEN '<li><a href="#batches">The latest batches</a></li>' ELSE '' END
          || '</ul></nav>';
    h := h || ranread_internal.ranread_report_server();
    -- the history's: advice, health, commit tests, durability, verify
    -- (45_report_sections.sql)
    IF scope = 'history' THEN
        h := h || ranread_internal.ranread_report_advice() || ranread_internal.ranread_report_health()
               || ranread_internal.ranread_report_commit() || ranread_internal.ranread_report_durability()
               || ranread_internal.ranread_report_verify();
    END IF;
    FOREACH id IN ARRAY studies LOOP
        h := h || ranread_internal.ranread_report_study(id);
    END LOOP;
    FOREACH id IN ARRAY sweeps LOOP
        h := h || ranread_internal.ranread_report_sweep(id);
    END LOOP;
    IF scope = 'history' THEN
        h := h || ranread_internal.ranread_report_heatmap() || ranread_internal.ranread_report_batches();
    END IF;
    RETURN h || '<footer><p class="muted">Every figure above is in the history tables of ranread (ranread_summary, ranread_study_points); the calls rerun what produced them.</p></footer></body></html>' || E'\n';
END
$$;
