-- 1.1, studies read back: every point of every study from the history
-- (ranread_study_points), one row per study (ranread_study_overview), and
-- ORION's pivots: a metric as a grid of rows x columns, and the summary of
-- a study's maxima and where they were reached.  They read the batches
-- alone (their study id and point coordinates), so a cancelled study, which
-- has no row in ranread_studies, reads the same.  A batch whose point is
-- not a study's (a row of 1.1: 12_points.sql) is no point: skipped, and
-- ranread_study_overview says so.

-- Every point of every study, one row each, with the row and column of the
-- study's default axes (see ranread_study_axes), the batch's figures, and
-- for a matrix of small and large loads the groups' own figures (ORION's
-- small IOPS and latency, large MiB/s), whole: what the exports, the
-- charts and the grids read.  ranread_study_points rounds them.
CREATE OR REPLACE VIEW ranread_internal.ranread_study_points_raw AS
WITH axes AS (
    SELECT s.study, a.column_dim, a.row_dims
      FROM (SELECT b.study, array_agg(b.point) AS points
              FROM @extschema@.ranread_batches b
             WHERE b.study IS NOT NULL AND ranread_internal.ranread_study_point_ok(b.point)
             GROUP BY b.study) s,
           LATERAL ranread_internal.ranread_study_axes(s.points) a
)
SELECT b.study,
       ranread_internal.ranread_json_int(b.point -> 'n', 1, 2147483647)::integer AS n,
       b.batch,
       b.run_at,
       ranread_internal.ranread_study_row_label(b.point, x.row_dims) AS row_label,
       x.column_dim,
       b.point ->> x.column_dim AS column_label,
       b.point,
       n.status,
       b.target,
       b.tablespace,
       b.processes,
       b.seconds,
       b.iops,
       b.mbps,
       b.avg_ms,
       b.p50_ms,
       b.p95_ms,
       b.p99_ms,
       b.p999_ms,
       b.max_ms,
       sg.iops   AS small_iops,
       sg.avg_ms AS small_avg_ms,
       sg.p99_ms AS small_p99_ms,
       lg.iops   AS large_iops,
       lg.mbps   AS large_mbps,
       lg.avg_ms AS large_avg_ms
  FROM @extschema@.ranread_batches b
  JOIN axes x ON x.study OPERATOR(pg_catalog.=) b.study
  LEFT JOIN @extschema@.ranread_groups sg
         ON sg.batch OPERATOR(pg_catalog.=) b.batch AND sg.label OPERATOR(pg_catalog.=) 'small'
        AND b.point ? 'small'
  LEFT JOIN @extschema@.ranread_groups lg
         ON lg.batch OPERATOR(pg_catalog.=) b.batch AND lg.label OPERATOR(pg_catalog.=) 'large'
        AND b.point ? 'large',
       LATERAL ranread_internal.ranread_status_now(b.status, b.batch, b.message) n
 WHERE ranread_internal.ranread_study_point_ok(b.point);

-- Every point of every study as a person reads it: IOPS whole, MiB/s
-- (mbps) to 0.1, ms to 0.001.
CREATE OR REPLACE VIEW @extschema@.ranread_study_points AS
SELECT p.study, p.n, p.batch, p.run_at, p.row_label, p.column_dim, p.column_label,
       p.point, p.status, p.target, p.tablespace, p.processes,
       ranread_internal.ranread_round(p.seconds, 3)::numeric(12,3) AS seconds,
       ranread_internal.ranread_round(p.iops, 0)::bigint AS iops,
       ranread_internal.ranread_round(p.mbps, 1)::numeric(14,1) AS mbps,
       ranread_internal.ranread_round(p.avg_ms, 3)::numeric(15,3) AS avg_ms,
       ranread_internal.ranread_round(p.p50_ms, 3)::numeric(15,3) AS p50_ms,
       ranread_internal.ranread_round(p.p95_ms, 3)::numeric(15,3) AS p95_ms,
       ranread_internal.ranread_round(p.p99_ms, 3)::numeric(15,3) AS p99_ms,
       ranread_internal.ranread_round(p.p999_ms, 3)::numeric(15,3) AS p999_ms,
       ranread_internal.ranread_round(p.max_ms, 3)::numeric(15,3) AS max_ms,
       ranread_internal.ranread_round(p.small_iops, 0)::bigint AS small_iops,
       ranread_internal.ranread_round(p.small_avg_ms, 3)::numeric(15,3) AS small_avg_ms,
       ranread_internal.ranread_round(p.small_p99_ms, 3)::numeric(15,3) AS small_p99_ms,
       ranread_internal.ranread_round(p.large_iops, 0)::bigint AS large_iops,
       ranread_internal.ranread_round(p.large_mbps, 1)::numeric(14,1) AS large_mbps,
       ranread_internal.ranread_round(p.large_avg_ms, 3)::numeric(15,3) AS large_avg_ms
  FROM ranread_internal.ranread_study_points_raw p;

-- One row per study, recorded or not: a study cancelled half-way has no
-- row in ranread_studies, and shows here from its batches, with status
-- 'cancelled' and no definition; so does one that runs now, as 'running'
-- ('cancelled or running' on a standby, which cannot tell).
CREATE OR REPLACE VIEW ranread_internal.ranread_study_overview_raw AS
SELECT p.study,
       coalesce(s.kind, 'study') AS kind,
       coalesce(s.started_at, p.first_run) AS started_at,
       s.finished_at,
       coalesce(s.target, p.target) AS target,
       p.tablespace,
       CASE WHEN s.study IS NOT NULL THEN CASE WHEN s.stop_reason LIKE 'status:%' THEN 'ended early' ELSE 'finished' END
            WHEN ranread_internal.ranread_call_running('study', p.study) THEN 'running'
            WHEN ranread_internal.ranread_call_running('study', p.study) IS NULL THEN 'cancelled or running'
            ELSE 'cancelled' END AS status,
       s.planned,
       p.points,
       p.completed,
       s.skipped,
       p.max_iops,
       p.max_mbps,
       p.min_avg_ms,
       s.max_avg_ms,
       NULLIF(concat_ws('; ', s.stop_reason,
                        ranread_internal.ranread_skipped(p.skipped, 'whose point is not a study''s')), '') AS stop_reason,
       s.call,
       s.definition
  FROM (SELECT b.study, min(b.run_at) AS first_run, min(b.target) AS target,
               min(b.tablespace) AS tablespace, count(*) FILTER (WHERE b.ok) AS points,
               count(*) FILTER (WHERE b.ok AND b.status OPERATOR(pg_catalog.=) 'completed') AS completed,
               max(b.iops) FILTER (WHERE b.ok) AS max_iops, max(b.mbps) FILTER (WHERE b.ok) AS max_mbps,
               min(b.avg_ms) FILTER (WHERE b.ok) AS min_avg_ms, count(*) FILTER (WHERE NOT b.ok) AS skipped
          FROM (SELECT x.*, ranread_internal.ranread_study_point_ok(x.point) AS ok
                  FROM @extschema@.ranread_batches x
                 WHERE x.study IS NOT NULL) b
         GROUP BY b.study) p
  LEFT JOIN @extschema@.ranread_studies s ON s.study OPERATOR(pg_catalog.=) p.study;

-- One row per study as a person reads it (ranread_internal's
-- ranread_study_overview_raw has the maxima whole).
CREATE OR REPLACE VIEW @extschema@.ranread_study_overview AS
SELECT o.study, o.kind, o.started_at, o.finished_at, o.target, o.tablespace, o.status,
       o.planned, o.points, o.completed, o.skipped,
       ranread_internal.ranread_round(o.max_iops, 0)::bigint AS max_iops,
       ranread_internal.ranread_round(o.max_mbps, 1)::numeric(14,1) AS max_mbps,
       ranread_internal.ranread_round(o.min_avg_ms, 3)::numeric(15,3) AS min_avg_ms,
       o.max_avg_ms, o.stop_reason, o.call, o.definition
  FROM ranread_internal.ranread_study_overview_raw o;

-- The metrics a grid, heat table or summary can show, and what they are for
-- a study of single batches and for a matrix of small and large loads.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_study_metric(metric text, fn text,
    OUT column_name text, OUT label text, OUT higher_is_better boolean)
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    SELECT m.c, m.l, m.h INTO column_name, label, higher_is_better
      FROM (VALUES ('iops', 'iops', 'IOPS', true), ('mbps', 'mbps', 'MiB/s', true),
                   ('lat', 'avg_ms', 'Average latency (ms)', false),
                   ('avg_ms', 'avg_ms', 'Average latency (ms)', false),
                   ('p50_ms', 'p50_ms', 'p50 latency (ms)', false),
                   ('p95_ms', 'p95_ms', 'p95 latency (ms)', false),
                   ('p99_ms', 'p99_ms', 'p99 latency (ms)', false),
                   ('p999_ms', 'p999_ms', 'p99.9 latency (ms)', false),
                   ('max_ms', 'max_ms', 'Maximum latency (ms)', false)) m(k, c, l, h)
     WHERE m.k = lower(metric);
    IF NOT FOUND THEN
        RAISE EXCEPTION USING
            ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('invalid metric %s for %s', coalesce(quote_literal(metric), 'NULL'), fn),
            HINT = 'A metric is iops, mbps, lat (avg_ms), p50_ms, p95_ms, p99_ms, p999_ms or max_ms.';
    END IF;
END
$$;

-- The points of a study, checked: an error naming the study when it has
-- none.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_study_check(study bigint, fn text)
RETURNS void
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    -- (a C function: it also loads the library, whose hook keeps this
    -- function's frame out of the CONTEXT of the errors below, forward.c)
    PERFORM ranread_internal.ranread_require(fn, 'study', study,
        'Pass a study id, as ranread_study returns it and ranread_study_overview lists them.');
    IF NOT EXISTS (SELECT FROM @extschema@.ranread_batches b
                    WHERE b.study OPERATOR(pg_catalog.=) ranread_study_check.study
                      AND ranread_internal.ranread_study_point_ok(b.point)) THEN
        RAISE EXCEPTION USING
            ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('invalid study %s for %s: no point of it is in the history', study, fn),
            HINT = 'ranread_study_overview lists the studies.';
    END IF;
END
$$;

-- A study's points as cells: each point's row and column (the study's
-- axes, or columns as given) and the metric there; for a matrix of small and
-- large loads, iops is the small I/O's IOPS, mbps the large I/O's MiB/s and
-- the latencies the small I/O's, as ORION reports them.  Repeated points
-- (a profile's passes) give their best: the highest rate, the lowest
-- latency.  Only completed batches count.  Rows and columns come with their
-- order: numbers by value, other values as the study ran them.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_study_cells(
    study    bigint,
    metric   text DEFAULT 'iops',
    columns  text DEFAULT NULL,
    fn       text DEFAULT 'ranread_study_cells')
RETURNS TABLE (row_label text, row_ord bigint, column_label text, column_ord bigint,
               value float8, batch bigint)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    m      record;
    ax     record;
    is_mix boolean;
BEGIN
    PERFORM ranread_internal.ranread_study_check(study, fn);
    SELECT * INTO m FROM ranread_internal.ranread_study_metric(metric, fn);
    SELECT * INTO ax
      FROM ranread_internal.ranread_study_axes(ARRAY(SELECT b.point FROM @extschema@.ranread_batches b
                                                 WHERE b.study OPERATOR(pg_catalog.=) ranread_study_cells.study
                                                   AND ranread_internal.ranread_study_point_ok(b.point)),
                                          columns, fn);
    is_mix := EXISTS (SELECT FROM @extschema@.ranread_batches b
                       WHERE b.study OPERATOR(pg_catalog.=) ranread_study_cells.study AND b.point ? 'small'
                         AND ranread_internal.ranread_study_point_ok(b.point));

    RETURN QUERY
    WITH pts AS (
        SELECT p.n, p.batch, p.status,
               ranread_internal.ranread_study_row_label(p.point, ax.row_dims) AS rl,
               p.point -> ax.column_dim AS cv,
               CASE WHEN is_mix THEN
                        CASE m.column_name WHEN 'iops' THEN p.small_iops
                                           WHEN 'mbps' THEN p.large_mbps
                                           WHEN 'avg_ms' THEN p.small_avg_ms
                                           WHEN 'p99_ms' THEN p.small_p99_ms
                                           ELSE NULL END
                    ELSE CASE m.column_name WHEN 'iops' THEN p.iops WHEN 'mbps' THEN p.mbps
                                            WHEN 'avg_ms' THEN p.avg_ms WHEN 'p50_ms' THEN p.p50_ms
                                            WHEN 'p95_ms' THEN p.p95_ms WHEN 'p99_ms' THEN p.p99_ms
                                            WHEN 'p999_ms' THEN p.p999_ms WHEN 'max_ms' THEN p.max_ms END
               END AS v
          FROM ranread_internal.ranread_study_points_raw p
         WHERE p.study OPERATOR(pg_catalog.=) ranread_study_cells.study),
    numeric_cols AS (
        SELECT bool_and(jsonb_typeof(cv) = 'number') AS yes FROM pts),
    rows_ AS (
        SELECT rl, row_number() OVER (ORDER BY min(n)) AS ord FROM pts GROUP BY rl),
    cols AS (
        SELECT cv, row_number() OVER (ORDER BY CASE WHEN (SELECT yes FROM numeric_cols)
                                                    THEN (cv #>> '{}')::float8 END,
                                               min(n)) AS ord
          FROM pts GROUP BY cv),
    best AS (
        SELECT DISTINCT ON (p.rl, p.cv) p.rl, p.cv, p.v, p.batch
          FROM pts p
         WHERE p.status = 'completed'
         ORDER BY p.rl, p.cv, (p.v IS NULL),
                  CASE WHEN m.higher_is_better THEN -p.v ELSE p.v END, p.n)
    SELECT r.rl, r.ord, c.cv #>> '{}', c.ord, bs.v, bs.batch
      FROM rows_ r CROSS JOIN cols c
      LEFT JOIN best bs ON bs.rl = r.rl AND bs.cv = c.cv
     ORDER BY r.ord, c.ord;
END
$$;

-- ORION's grid of a metric, whole: one row per row of the study (a
-- matrix's large load), the column labels (a matrix's small loads) and the
-- cells under them, NULL where no completed point is.  What the exports
-- and charts read; ranread_study_grid rounds it.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_study_grid_raw(
    study    bigint,
    metric   text DEFAULT 'iops',
    columns  text DEFAULT NULL,
    fn       text DEFAULT 'ranread_study_grid')
RETURNS TABLE (row_label text, column_labels text[], cells float8[])
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT c.row_label,
           array_agg(c.column_label ORDER BY c.column_ord),
           array_agg(c.value ORDER BY c.column_ord)
      FROM ranread_internal.ranread_study_cells(study, metric, columns, fn) c
     GROUP BY c.row_label, c.row_ord
     ORDER BY c.row_ord
$$;

-- The grid as a person reads it: IOPS whole, MiB/s to 0.1, ms to 0.001
-- (ranread_internal.ranread_study_grid_raw has the cells whole).
CREATE OR REPLACE FUNCTION @extschema@.ranread_study_grid(
    study    bigint,
    metric   text DEFAULT 'iops',
    columns  text DEFAULT NULL)
RETURNS TABLE (row_label text, column_labels text[], cells numeric[])
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    WITH m AS (SELECT CASE x.column_name WHEN 'iops' THEN 0 WHEN 'mbps' THEN 1 ELSE 3 END AS places
                 FROM ranread_internal.ranread_study_metric(metric, 'ranread_study_grid') x)
    SELECT g.row_label, g.column_labels,
           ARRAY(SELECT ranread_internal.ranread_round(u.v, (SELECT m.places FROM m))
                   FROM unnest(g.cells) WITH ORDINALITY u(v, i) ORDER BY u.i)
      FROM ranread_internal.ranread_study_grid_raw(study, metric, columns, 'ranread_study_grid')
           WITH ORDINALITY g(row_label, column_labels, cells, ord)
     ORDER BY g.ord
$$;

-- Where a point is, as a summary line says it: "Small=4 and Large=0" for a
-- matrix (ORION's words), else "processes=8, write_pct=10".
CREATE OR REPLACE FUNCTION ranread_internal.ranread_study_where(point jsonb)
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN point ? 'small' OR point ? 'large'
                THEN format('Small=%s and Large=%s', coalesce(point ->> 'small', '0'), coalesce(point ->> 'large', '0'))
                     || coalesce(', ' || (SELECT string_agg(format('%s=%s', e.key, e.value #>> '{}'), ', ' ORDER BY e.key)
                                            FROM jsonb_each(point) e
                                           WHERE e.key NOT IN ('n', 'small', 'large')), '')
                ELSE (SELECT string_agg(format('%s=%s', e.key, e.value #>> '{}'), ', ' ORDER BY e.key)
                        FROM jsonb_each(point) e WHERE e.key NOT IN ('n')) END
$$;

-- The latency bound of a study's summary or chart: max_avg_ms when given
-- (greater than 0; what says what it bounds, for the hint), else the
-- study's, else 10.  fn is the function the user called.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_study_bound(study bigint, max_avg_ms float8, fn text, what text)
RETURNS float8
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF max_avg_ms IS NOT NULL AND NOT (max_avg_ms > 0) OR max_avg_ms = 'NaN'::float8 THEN
        RAISE EXCEPTION USING
            ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('invalid max_avg_ms %s for %s', max_avg_ms, fn),
            HINT = format('max_avg_ms is %s in milliseconds: greater than 0, or NULL for the study''s.', what);
    END IF;
    -- a stored bound that is not a finite number above 0 (a row of 1.1 that
    -- no study made) is none
    RETURN coalesce(max_avg_ms,
                    (SELECT s.max_avg_ms FROM @extschema@.ranread_studies s
                      WHERE s.study OPERATOR(pg_catalog.=) ranread_study_bound.study
                        AND s.max_avg_ms > 0 AND s.max_avg_ms < 'Infinity'::float8), 10);
END
$$;

-- A study's summary, as ORION's _summary.txt: the maxima and minima and
-- where they were reached.  For a matrix: Maximum Large MBPS, Maximum Small
-- IOPS, Minimum Small Latency (in usecs, as ORION 11.2 prints it); else
-- Maximum IOPS, Maximum MBPS, Minimum Latency, and the Maximum IOPS whose
-- average latency is within the bound (max_avg_ms; the study's, else 10).
-- The values whole; ranread_study_summary rounds them.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_study_summary_raw(
    study       bigint,
    max_avg_ms  float8 DEFAULT NULL)
RETURNS TABLE (item text, value float8, unit text, point jsonb, batch bigint, line text)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    fn     constant text := 'ranread_study_summary';
    bound  float8;
    is_mix boolean;
BEGIN
    PERFORM ranread_internal.ranread_study_check(study, fn);
    bound := ranread_internal.ranread_study_bound(study, max_avg_ms, fn, 'the bound on average latency');
    is_mix := EXISTS (SELECT FROM @extschema@.ranread_batches b
                       WHERE b.study OPERATOR(pg_catalog.=) ranread_study_summary_raw.study AND b.point ? 'small'
                         AND ranread_internal.ranread_study_point_ok(b.point));

    RETURN QUERY
    WITH p AS (
        SELECT * FROM ranread_internal.ranread_study_points_raw x
         WHERE x.study OPERATOR(pg_catalog.=) ranread_study_summary_raw.study AND x.status = 'completed'),
    -- each point's value of each item (NULL: the point does not count)
    vals AS (
        SELECT p.n, p.point, p.batch, v.col, v.v
          FROM p CROSS JOIN LATERAL (VALUES
               ('large_mbps', p.large_mbps),
               ('small_iops', p.small_iops),
               ('small_avg_us', p.small_avg_ms * 1000),
               ('iops', p.iops),
               ('mbps', p.mbps),
               ('avg_us', p.avg_ms * 1000),
               ('iops_within', CASE WHEN p.avg_ms <= bound THEN p.iops END)) v(col, v)),
    -- the items of a mixed study (large and small) or of a plain one, each
    -- the largest (or smallest) value of the points, the first point on a tie
    items AS (
        SELECT m.ord, m.it, m.u, x.*
          FROM (VALUES
               (true, 1, 'Maximum Large MBPS', 'MiB/s', 'large_mbps', true),
               (true, 2, 'Maximum Small IOPS', 'IOPS', 'small_iops', true),
               (true, 3, 'Minimum Small Latency', 'usecs', 'small_avg_us', false),
               (false, 1, 'Maximum IOPS', 'IOPS', 'iops', true),
               (false, 2, 'Maximum MBPS', 'MiB/s', 'mbps', true),
               (false, 3, 'Minimum Latency', 'usecs', 'avg_us', false),
               (false, 4, format('Maximum IOPS within %s ms', bound), 'IOPS', 'iops_within', true)
               ) m(mix, ord, it, u, col, largest)
          LEFT JOIN LATERAL (
               SELECT c.v, c.point AS pt, c.batch AS b FROM vals c
                WHERE c.col = m.col AND c.v IS NOT NULL
                ORDER BY CASE WHEN m.largest THEN c.v END DESC, c.v, c.n LIMIT 1) x ON true
         WHERE m.mix = is_mix)
    SELECT i.it, i.v, i.u, i.pt - 'n', i.b,
           CASE WHEN i.v IS NULL THEN format('%s: none', i.it)
                ELSE format('%s=%s%s @ %s', i.it, to_char(i.v, 'FM999999990.00'),
                            CASE i.u WHEN 'usecs' THEN ' usecs' ELSE '' END,
                            ranread_internal.ranread_study_where(i.pt)) END
      FROM items i
     ORDER BY i.ord;
END
$$;

-- A study's summary as a person reads it: IOPS whole, MiB/s to 0.1, usecs
-- to 0.01 (as the line prints them).
CREATE OR REPLACE FUNCTION @extschema@.ranread_study_summary(
    study       bigint,
    max_avg_ms  float8 DEFAULT NULL)
RETURNS TABLE (item text, value numeric, unit text, point jsonb, batch bigint, line text)
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT s.item,
           ranread_internal.ranread_round(s.value, CASE s.unit WHEN 'IOPS' THEN 0 WHEN 'MiB/s' THEN 1 ELSE 2 END),
           s.unit, s.point, s.batch, s.line
      FROM ranread_internal.ranread_study_summary_raw(study, max_avg_ms) s
$$;
