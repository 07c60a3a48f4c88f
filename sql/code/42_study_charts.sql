-- 1.1, charts that compare, drawn by the one renderer (ranread_svg,
-- 30_charts.sql): latency against IOPS with one curve per row of a study,
-- per study or per sweep, a line at the latency bound and a table of the
-- IOPS each curve gives at the bound with its gain against the first (the
-- ORION article's +55% chart); a heat table of a study's grid; bars for a
-- profile.  The rule that reads a curve at the bound is a pure function,
-- tested on known numbers.

-- The IOPS of a curve at a latency bound: its points in order of load, the
-- first crossing of the bound read by linear interpolation between the
-- last point within it and the first above it ('crossed'); the highest
-- IOPS measured when no point is above it ('within': the curve gives at
-- least that); NULL when the first point is already above ('above').
-- Points with a NULL in either array are left out.  Pure.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_iops_at_bound(
    iops   float8[],
    lat    float8[],
    bound  float8,
    OUT iops_at_bound float8,
    OUT how text)
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    i       integer;
    px      float8;
    py      float8;
    best    float8;
BEGIN
    FOR i IN 1 .. coalesce(least(cardinality(iops), cardinality(lat)), 0) LOOP
        CONTINUE WHEN iops[i] IS NULL OR lat[i] IS NULL;
        IF lat[i] <= bound THEN
            best := greatest(best, iops[i]);
            px := iops[i];
            py := lat[i];
            CONTINUE;
        END IF;
        IF px IS NULL THEN
            how := 'above';
            RETURN;
        END IF;
        iops_at_bound := px + (bound - py) / (lat[i] - py) * (iops[i] - px);
        how := 'crossed';
        RETURN;
    END LOOP;
    IF best IS NOT NULL THEN
        iops_at_bound := best;
        how := 'within';
    END IF;
END
$$;

-- The latency a chart shows: 'avg' or 'p99'; its metric and axis label.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_chart_latency(latency text, fn text,
    OUT metric text, OUT label text)
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    CASE lower(coalesce(latency, ''))
        WHEN 'avg', 'avg_ms' THEN metric := 'avg_ms'; label := 'Average';
        WHEN 'p99', 'p99_ms' THEN metric := 'p99_ms'; label := 'p99';
        ELSE
            RAISE EXCEPTION USING
                ERRCODE = 'invalid_parameter_value',
                MESSAGE = format('invalid latency %s for %s', coalesce(quote_literal(latency), 'NULL'), fn),
                HINT = 'latency is ''avg'' (average latency) or ''p99''.';
    END CASE;
END
$$;

-- The axes of a study's grid, from its points: the dimension along the
-- columns (columns, or the one ranread_study_axes chooses) and those of
-- the rows; fn names the caller in errors.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_study_points_axes(
    study bigint, columns text, fn text, OUT column_dim text, OUT row_dims text[])
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT a.column_dim, a.row_dims
      FROM ranread_internal.ranread_study_axes(ARRAY(SELECT b.point FROM @extschema@.ranread_batches b
                                                 WHERE b.study OPERATOR(pg_catalog.=) ranread_study_points_axes.study
                                                   AND ranread_internal.ranread_study_point_ok(b.point)),
                                          columns, fn) a
$$;

-- That a sweep has steps in the history, or an error for fn that says so.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_sweep_known(sweep bigint, fn text)
RETURNS void
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    -- (a C function: it also loads the library, whose hook keeps this
    -- function's frame out of the CONTEXT of the error below, forward.c)
    PERFORM ranread_internal.ranread_require(fn, 'sweep', sweep, 'ranread_sweep_verdict lists the sweeps.');
    IF NOT EXISTS (SELECT FROM @extschema@.ranread_batches b
                    WHERE b.sweep OPERATOR(pg_catalog.=) ranread_sweep_known.sweep) THEN
        RAISE EXCEPTION USING
            ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('invalid sweep %s for %s: no step of it is in the history', sweep, fn),
            HINT = 'ranread_sweep_verdict lists the sweeps.';
    END IF;
END
$$;

-- A figure as the reports' tables print it: three significant digits
-- below 100 (1.23, 12.3), a count with separators from 100 up (12,345),
-- from 10^15 up in exponent form (1.2e18) as the renderer prints it; NaN is
-- n/a, -0 is 0.  Not the renderer's count (C ranread_fmt_count, a spec's
-- {"count": n}), which rounds every figure to a whole number.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_fmt_figure(v float8)
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN v IS NULL OR v = 'NaN'::float8 THEN 'n/a'
                WHEN v = 'Infinity'::float8 THEN 'Infinity'
                WHEN v = '-Infinity'::float8 THEN '-Infinity'
                WHEN abs(v) >= 1e15 THEN regexp_replace(btrim(to_char(v, '9.99EEEE')), '\.?0*e\+?0*', 'e')
                WHEN abs(v) >= 100 THEN to_char(round(v::numeric), 'FM999,999,999,999,990')
                WHEN abs(v) >= 10 THEN to_char(v, 'FM990.0')
                ELSE to_char(CASE WHEN v = 0 THEN 0 ELSE v END, 'FM990.00') END
$$;

-- The spec of a comparison chart, and the chart: curves (a JSON array of
-- {"label", "x": IOPS, "y": latency in ms} in order of load), the bound as
-- a line, and under it a table with each curve's IOPS at the bound and its
-- gain against the first curve.  Pure.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_curves_spec(
    title     text,
    subtitle  text,
    curves    jsonb,
    latency   text,
    bound     float8,
    notes     jsonb DEFAULT NULL)
RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    WITH c AS (
        SELECT i, e ->> 'label' AS label, e -> 'labels' AS labels, e -> 'texts' AS texts,
               ARRAY(SELECT (v #>> '{}')::float8 FROM jsonb_array_elements(e -> 'x') WITH ORDINALITY x(v, k) ORDER BY k) AS xs,
               ARRAY(SELECT (v #>> '{}')::float8 FROM jsonb_array_elements(e -> 'y') WITH ORDINALITY y(v, k) ORDER BY k) AS ys
          FROM jsonb_array_elements(curves) WITH ORDINALITY s(e, i)),
    b AS (
        SELECT c.*, a.iops_at_bound, a.how,
               (SELECT max(x) FROM unnest(c.xs) x) AS max_iops
          FROM c, LATERAL ranread_internal.ranread_iops_at_bound(c.xs, c.ys, bound) a),
    first AS (SELECT iops_at_bound FROM b WHERE i = 1)
    SELECT jsonb_strip_nulls(jsonb_build_object(
        'title', title,
        'subtitle', subtitle,
        'x', jsonb_build_object('label', 'IOPS (I/O operations per second)', 'log', 'auto', 'format', 'count'),
        'y', jsonb_build_object('label', latency || ' latency (ms)'),
        'empty', 'No completed point to draw',
        'series', (SELECT coalesce(jsonb_agg(jsonb_strip_nulls(jsonb_build_object('label', b.label,
                                                                'x', to_jsonb(b.xs), 'y', to_jsonb(b.ys),
                                                                'labels', b.labels, 'texts', b.texts))
                                             ORDER BY b.i), '[]') FROM b),
        'lines', jsonb_build_array(jsonb_build_object(
                     'value', bound, 'label', format('bound %s ms', bound),
                     'legend', format('%s latency bound %s ms', latency, bound))),
        'table', jsonb_build_object(
            'header', jsonb_build_array('Curve', format('IOPS at %s ms', bound), 'vs first',
                                        'Max IOPS'),
            'align', jsonb_build_array('left', 'right', 'right', 'right'),
            'rows', (SELECT coalesce(jsonb_agg(jsonb_build_array(
                        b.label,
                        CASE b.how WHEN 'crossed' THEN to_jsonb(ranread_internal.ranread_fmt_figure(b.iops_at_bound))
                                   WHEN 'within' THEN jsonb_build_object('text', '>= ' || ranread_internal.ranread_fmt_figure(b.iops_at_bound), 'tone', 'plain')
                                   ELSE jsonb_build_object('text', 'above from the start', 'tone', 'bad') END,
                        CASE WHEN b.i = 1 THEN jsonb_build_object('text', 'reference', 'tone', 'muted')
                             WHEN b.iops_at_bound IS NULL OR f.iops_at_bound IS NULL OR f.iops_at_bound <= 0
                                  THEN jsonb_build_object('text', 'n/a', 'tone', 'muted')
                             ELSE jsonb_build_object(
                                      'text', to_char(round((100 * (b.iops_at_bound / f.iops_at_bound - 1))::numeric), 'FMSG999990') || '%',
                                      'tone', CASE WHEN b.iops_at_bound >= f.iops_at_bound THEN 'good' ELSE 'bad' END) END,
                        ranread_internal.ranread_fmt_figure(b.max_iops)) ORDER BY b.i), '[]')
                       FROM b LEFT JOIN first f ON true),
            'more', format('IOPS at the bound: where each curve crosses %s ms (linear between the two points around it); ">=" where it never does.', bound)),
        'notes', notes))
$$;

-- The study's points as curves: one per row, x the IOPS and y the latency
-- of each column in order (a matrix: the small I/O's).
CREATE OR REPLACE FUNCTION ranread_internal.ranread_study_curves(
    study bigint, latency_metric text, columns text, fn text)
RETURNS jsonb
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    -- one curve alone has its points labelled by their load ("Small=4",
    -- as ORION names a point): with several, the labels would crowd
    SELECT coalesce(jsonb_agg(jsonb_build_object('label', r.row_label, 'x', to_jsonb(r.xs), 'y', to_jsonb(r.ys))
                              || CASE WHEN r.curves = 1
                                      THEN jsonb_build_object('labels', true, 'texts', to_jsonb(r.loads))
                                      ELSE '{}' END
                              ORDER BY r.row_ord), '[]')
      FROM (SELECT x.row_label, x.row_ord, count(*) OVER () AS curves,
                   array_agg(x.value ORDER BY x.column_ord) AS xs,
                   array_agg(y.value ORDER BY x.column_ord) AS ys,
                   array_agg(initcap(ax.column_dim) || '=' || x.column_label ORDER BY x.column_ord) AS loads
              FROM ranread_internal.ranread_study_cells(study, 'iops', columns, fn) x
              JOIN ranread_internal.ranread_study_cells(study, latency_metric, columns, fn) y
                USING (row_label, column_label)
              CROSS JOIN ranread_internal.ranread_study_points_axes(study, columns, fn) ax
             GROUP BY x.row_label, x.row_ord) r
$$;

-- What a study ran, for a subtitle: its fixed coordinates, target and
-- tablespace, duration per point, when.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_study_caption(study bigint)
RETURNS text
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT format('study %s%s: %s points on target %s (tablespace %s), %s s each%s, %s',
                  ranread_study_caption.study,
                  CASE WHEN s.kind IS NOT NULL AND s.kind <> 'study' THEN ' (' || s.kind || ')' ELSE '' END,
                  count(*), min(b.target), coalesce(min(b.tablespace), 'n/a'),
                  round(avg(b.seconds)::numeric, 1),
                  coalesce(', ' || (SELECT string_agg(ranread_internal.ranread_study_label(k.key, k.value), ', ' ORDER BY k.key)
                                      FROM (SELECT e.key, min(e.value::text)::jsonb AS value
                                              FROM @extschema@.ranread_batches x,
                                                   jsonb_each(CASE WHEN ranread_internal.ranread_study_point_ok(x.point)
                                                                   THEN x.point ELSE '{}' END) e
                                             WHERE x.study OPERATOR(pg_catalog.=) ranread_study_caption.study
                                               AND e.key NOT IN ('n', 'pass')
                                             GROUP BY e.key
                                            HAVING count(DISTINCT e.value) = 1
                                               AND count(*) = (SELECT count(*) FROM @extschema@.ranread_batches y
                                                                WHERE y.study OPERATOR(pg_catalog.=) ranread_study_caption.study
                                                                  AND ranread_internal.ranread_study_point_ok(y.point))) k), ''),
                  to_char(min(b.run_at), 'YYYY-MM-DD HH24:MI'))
      FROM @extschema@.ranread_batches b
      LEFT JOIN @extschema@.ranread_studies s ON s.study OPERATOR(pg_catalog.=) b.study
     WHERE b.study OPERATOR(pg_catalog.=) ranread_study_caption.study
       AND ranread_internal.ranread_study_point_ok(b.point)
     GROUP BY s.kind
$$;

-- SVG: latency against IOPS, one curve per row of a study (its dimensions
-- but the columns', which run along each curve), the bound, and the table of
-- IOPS at the bound with the gain against the first curve.
CREATE OR REPLACE FUNCTION @extschema@.ranread_study_chart(
    study       bigint,
    latency     text   DEFAULT 'avg',
    columns     text   DEFAULT NULL,
    max_avg_ms  float8 DEFAULT NULL)
RETURNS text
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    fn     constant text := 'ranread_study_chart';
    lat    record;
    ax     record;
    bound  float8;
    curves jsonb;
    n      integer;
BEGIN
    PERFORM ranread_internal.ranread_study_check(study, fn);
    SELECT * INTO lat FROM ranread_internal.ranread_chart_latency(latency, fn);
    bound := ranread_internal.ranread_study_bound(study, max_avg_ms, fn, 'the latency bound');
    SELECT * INTO ax FROM ranread_internal.ranread_study_points_axes(study, columns, fn);
    curves := ranread_internal.ranread_study_curves(study, lat.metric, columns, fn);
    n := jsonb_array_length(curves);
    -- a chart draws at most 12 curves (ranread_svg): of a study with more
    -- rows, 12 evenly spaced ones, the first and the last among them, and
    -- the title says so (a long caption is cut short)
    IF n > 12 THEN
        SELECT jsonb_agg(curves -> k ORDER BY k) INTO curves
          FROM (SELECT DISTINCT round(i * (n - 1) / 11.0)::integer AS k FROM generate_series(0, 11) i) picked;
    END IF;
    RETURN @extschema@.ranread_svg(ranread_internal.ranread_curves_spec(
        format('%s latency against IOPS%s, along %s%s',
               lat.label,
               CASE WHEN cardinality(ax.row_dims) = 0 THEN ''
                    ELSE ' by ' || array_to_string(ax.row_dims, ' and ') END,
               ax.column_dim,
               CASE WHEN n > 12 THEN format(' (12 of %s rows, evenly spaced)', n) ELSE '' END),
        ranread_internal.ranread_study_caption(study),
        curves, lat.label, bound));
END
$$;

-- SVG: latency against IOPS, one curve per row of each study (its points in
-- order of load) and per sweep (its steps), labelled with labels or with each one's id and
-- tablespace: the same storage on two tablespaces, before and after a
-- change, two regions of a disk.
CREATE OR REPLACE FUNCTION @extschema@.ranread_compare_chart(
    studies     bigint[] DEFAULT NULL,
    sweeps      bigint[] DEFAULT NULL,
    latency     text     DEFAULT 'avg',
    max_avg_ms  float8   DEFAULT 10,
    labels      text[]   DEFAULT NULL,
    title       text     DEFAULT NULL)
RETURNS text
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    fn     constant text := 'ranread_compare_chart';
    lat    record;
    curves jsonb := '[]';
    id     bigint;
    k      integer := 0;
    c      jsonb;
    name   text;
    what   text[] := '{}';
BEGIN
    SELECT * INTO lat FROM ranread_internal.ranread_chart_latency(latency, fn);
    IF coalesce(cardinality(studies), 0) + coalesce(cardinality(sweeps), 0) = 0 THEN
        RAISE EXCEPTION USING
            ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('%s needs studies or sweeps to compare', fn),
            HINT = 'Pass studies => ''{3,4}'' and/or sweeps => ''{1,2}'' (at most 12 curves in all).';
    END IF;
    IF coalesce(cardinality(studies), 0) + coalesce(cardinality(sweeps), 0) > 12 THEN
        RAISE EXCEPTION USING
            ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('%s compares at most 12 curves, not %s', fn,
                             coalesce(cardinality(studies), 0) + coalesce(cardinality(sweeps), 0)),
            HINT = 'Compare fewer studies and sweeps at once.';
    END IF;
    IF max_avg_ms IS NULL OR NOT (max_avg_ms > 0) OR max_avg_ms = 'NaN'::float8 THEN
        RAISE EXCEPTION USING
            ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('invalid max_avg_ms %s for %s', coalesce(max_avg_ms::text, 'NULL'), fn),
            HINT = 'max_avg_ms is the latency bound in milliseconds: greater than 0, such as 10.';
    END IF;

    FOREACH id IN ARRAY coalesce(studies, '{}') LOOP
        k := k + 1;
        PERFORM ranread_internal.ranread_study_check(id, fn);
        -- a curve per row of the study (a study of write percentages is
        -- one curve each, not one line through them all), named by the
        -- study and, when it has several rows, by the row
        SELECT coalesce(labels[k], format('study %s (%s)', id, coalesce(min(p.tablespace), min(p.target))))
          INTO name
          FROM ranread_internal.ranread_study_points_raw p
         WHERE p.study OPERATOR(pg_catalog.=) id;
        c := ranread_internal.ranread_study_curves(id, lat.metric, NULL, fn);
        SELECT coalesce(jsonb_agg(r.e || jsonb_build_object(
                   'label', CASE WHEN jsonb_array_length(c) > 1 THEN name || ': ' || (r.e ->> 'label') ELSE name END)
                   ORDER BY r.i), '[]')
          INTO c
          FROM jsonb_array_elements(c) WITH ORDINALITY r(e, i);
        curves := curves || c;
        what := what || ('study ' || id);
    END LOOP;
    FOREACH id IN ARRAY coalesce(sweeps, '{}') LOOP
        k := k + 1;
        PERFORM ranread_internal.ranread_sweep_known(id, fn);
        SELECT jsonb_build_object(
                   'label', coalesce(labels[k], format('sweep %s (%s)', id, coalesce(min(s.tablespace), min(s.target)))),
                   'x', coalesce(jsonb_agg(s.iops ORDER BY s.processes, s.batch) FILTER (WHERE s.status = 'completed'), '[]'),
                   'y', coalesce(jsonb_agg(CASE lat.metric WHEN 'avg_ms' THEN s.avg_ms ELSE s.p99_ms END
                                           ORDER BY s.processes, s.batch) FILTER (WHERE s.status = 'completed'), '[]'))
          INTO c
          FROM ranread_internal.ranread_summary_raw s
         WHERE s.sweep OPERATOR(pg_catalog.=) id;
        curves := curves || c;
        what := what || ('sweep ' || id);
    END LOOP;
    IF jsonb_array_length(curves) > 12 THEN
        RAISE EXCEPTION USING
            ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('%s compares at most 12 curves, not %s (a curve per row of each study, one per sweep)',
                             fn, jsonb_array_length(curves)),
            HINT = 'Compare fewer studies and sweeps at once, or studies of fewer rows.';
    END IF;

    RETURN @extschema@.ranread_svg(ranread_internal.ranread_curves_spec(
        coalesce(title, format('%s latency against IOPS: %s', lat.label, array_to_string(what, ', '))),
        format('one curve per %s; the table gives the IOPS each reaches at the %s ms bound',
               CASE WHEN studies IS NOT NULL AND sweeps IS NOT NULL THEN 'row of a study and per sweep'
                    WHEN studies IS NOT NULL THEN 'row of a study' ELSE 'sweep' END, max_avg_ms),
        curves, lat.label, max_avg_ms));
END
$$;

-- SVG: a heat table of a study's grid, each cell coloured by the metric
-- and printed, rows x columns as in ranread_study_grid.
CREATE OR REPLACE FUNCTION @extschema@.ranread_study_heat(
    study    bigint,
    metric   text DEFAULT 'iops',
    columns  text DEFAULT NULL)
RETURNS text
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    fn  constant text := 'ranread_study_heat';
    m   record;
    ax  record;
    g   record;
BEGIN
    PERFORM ranread_internal.ranread_study_check(study, fn);
    SELECT * INTO m FROM ranread_internal.ranread_study_metric(metric, fn);
    SELECT * INTO ax FROM ranread_internal.ranread_study_points_axes(study, columns, fn);
    SELECT jsonb_agg(to_jsonb(r.row_label) ORDER BY r.ord) AS rows,
           (SELECT to_jsonb(x.column_labels) FROM ranread_internal.ranread_study_grid_raw(study, metric, columns) x LIMIT 1) AS cols,
           jsonb_agg(to_jsonb(r.cells) ORDER BY r.ord) AS vals
      INTO g
      FROM (SELECT x.row_label, x.cells, row_number() OVER () AS ord
              FROM ranread_internal.ranread_study_grid_raw(study, metric, columns) x) r;
    RETURN @extschema@.ranread_svg(jsonb_build_object(
        'kind', 'heat',
        'title', format('%s by %s and %s', m.label,
                        CASE WHEN cardinality(ax.row_dims) = 0 THEN 'study' ELSE array_to_string(ax.row_dims, ' and ') END,
                        ax.column_dim),
        'subtitle', ranread_internal.ranread_study_caption(study),
        'x', jsonb_build_object('label', ax.column_dim),
        'y', jsonb_build_object('label', CASE WHEN cardinality(ax.row_dims) = 0 THEN 'study'
                                              ELSE array_to_string(ax.row_dims, ', ') END),
        'heat', jsonb_strip_nulls(jsonb_build_object('rows', g.rows, 'columns', g.cols, 'values', g.vals,
                                   'metric', m.label, 'log', 'auto',
                                   'format', CASE WHEN m.column_name = 'iops' THEN 'count' ELSE 'number' END,
                                   'colors', CASE WHEN m.higher_is_better THEN NULL
                                                  ELSE '["#fde725", "#5ec962", "#21918c", "#3b528b", "#440154"]'::jsonb END))));
END
$$;
