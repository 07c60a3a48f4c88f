-- 1.1, the latency heatmap (docs/charts-and-reports.md, "Percentiles over
-- time"): one batch's I/Os by second (columns) and latency (rows, one per
-- power of two of a millisecond, the slowest on top), colour = I/Os, from the
-- seconds' merged histograms (ranread_intervals.histogram), drawn by the one
-- renderer as a heat table (ranread_svg, kind "heat").  The renderer takes at
-- most 40 columns: a longer batch's seconds are put together in equal runs (a
-- column's label is its first and last second).  New in 1.1, so the upgrade
-- script includes this file whole (1.2: a batch whose histograms hold no I/O
-- is a clean error, and no report section).

-- The cells: one row per column, latency band and I/Os (0 where none),
-- from seconds with a histogram; lo_ms, hi_ms bound the band.  Every second
-- of the batch has its column: one without a histogram has no I/O in it.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_latency_heat_cells(batch bigint,
    OUT col integer, OUT first_second integer, OUT last_second integer,
    OUT band integer, OUT lo_ms float8, OUT hi_ms float8, OUT ios bigint)
RETURNS SETOF record
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    WITH s AS (
        -- every second of the batch: one without a histogram (in any group)
        -- is still a column, empty (the spec's note names it)
        SELECT i.second, CASE WHEN bool_and(i.histogram IS NOT NULL)
                              THEN @extschema@.ranread_hist_merge(i.histogram) END AS h
          FROM @extschema@.ranread_intervals i
         WHERE i.batch = $1
         GROUP BY i.second
    ), w AS (
        SELECT greatest(1, ceil((max(s.second) + 1) / 40.0))::integer AS width FROM s
    ), b AS (
        -- a bucket's band: the power of two of a ms its midpoint lies in
        -- (no midpoint is a power of two: float8 is exact enough)
        SELECT s.second / w.width AS col, floor(ln((k.low_ms + k.high_ms) / 2) / ln(2.0::float8))::integer AS band,
               sum(k.count) AS count
          FROM s, w, LATERAL @extschema@.ranread_hist_buckets(s.h) k
         WHERE s.h IS NOT NULL
         GROUP BY 1, 2
    ), bands AS (
        SELECT generate_series(min(b.band), max(b.band)) AS band FROM b
    ), cols AS (
        SELECT c AS col, c * w.width AS first_second, least((c + 1) * w.width, m.n) - 1 AS last_second
          FROM w, (SELECT max(s.second) + 1 AS n FROM s) m, generate_series(0, (m.n - 1) / w.width) c
    )
    SELECT c.col, c.first_second, c.last_second, d.band, power(2.0, d.band)::float8, power(2.0, d.band + 1)::float8,
           coalesce(b.count, 0)::bigint
      FROM cols c CROSS JOIN bands d
      LEFT JOIN b ON b.col = c.col AND b.band = d.band
     ORDER BY c.col, d.band
$$;

-- The spec of the heatmap of batch (the latest one whose seconds have
-- histograms when NULL)
CREATE OR REPLACE FUNCTION ranread_internal.ranread_latency_heat_spec(batch bigint)
RETURNS jsonb
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    id  bigint := batch;
    b   record;
    g   record;
BEGIN
    IF id IS NULL THEN
        id := (SELECT max(i.batch) FROM @extschema@.ranread_intervals i WHERE i.histogram IS NOT NULL);
        IF id IS NULL THEN
            RAISE EXCEPTION 'no batch has per-second latency histograms yet'
                USING ERRCODE = 'no_data_found',
                      HINT = 'Run a timed batch first (ranread.timing = on), e.g. SELECT * FROM ranread_run(1, duration => ''10s'');';
        END IF;
    END IF;
    SELECT x.batch, x.target, x.processes, x.queue_depth, x.block_size, x.write_pct, x.run_at,
           -- the seconds without a histogram (in some group), as runs "5-7, 12"
           (SELECT string_agg(CASE WHEN r.a = r.b THEN r.a::text ELSE r.a || '-' || r.b END, ', ' ORDER BY r.a)
                   FILTER (WHERE r.k <= 8)
                   || CASE WHEN count(*) > 8 THEN format(' and %s more', count(*) - 8) ELSE '' END
              FROM (SELECT min(gs.second) AS a, max(gs.second) AS b, row_number() OVER (ORDER BY min(gs.second)) AS k
                      FROM (SELECT i.second, i.second - row_number() OVER (ORDER BY i.second) AS run
                              FROM @extschema@.ranread_intervals i WHERE i.batch = id
                             GROUP BY i.second HAVING NOT bool_and(i.histogram IS NOT NULL)) gs
                     GROUP BY gs.run) r) AS gaps,
           (SELECT count(*) FROM (SELECT FROM @extschema@.ranread_intervals i WHERE i.batch = id
                                   GROUP BY i.second HAVING NOT bool_and(i.histogram IS NOT NULL)) gs) AS ngaps INTO b
      FROM @extschema@.ranread_batches x WHERE x.batch = id;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'batch % does not exist', id
            USING ERRCODE = 'undefined_object', HINT = 'SELECT batch FROM ranread_summary lists the batches.';
    END IF;
    IF NOT EXISTS (SELECT FROM @extschema@.ranread_intervals i WHERE i.batch = id AND i.histogram IS NOT NULL) THEN
        RAISE EXCEPTION 'batch % has no per-second latency histograms', id
            USING ERRCODE = 'no_data_found',
                  HINT = 'Its seconds were not timed (ranread.timing = off) or it was recorded before 1.1.';
    END IF;
    WITH x AS MATERIALIZED (SELECT * FROM ranread_internal.ranread_latency_heat_cells(id))
    SELECT (SELECT jsonb_agg(to_jsonb(CASE WHEN c.first_second = c.last_second THEN c.first_second::text
                                           ELSE format('%s-%s', c.first_second, c.last_second) END) ORDER BY c.col)
              FROM (SELECT DISTINCT x.col, x.first_second, x.last_second FROM x) c) AS cols,
           (SELECT jsonb_agg(to_jsonb(format('%s-%s ms', trim_scale(round(r.lo_ms::numeric, 4)),
                                             trim_scale(round(r.hi_ms::numeric, 4)))) ORDER BY r.band DESC)
              FROM (SELECT DISTINCT x.band, x.lo_ms, x.hi_ms FROM x) r) AS rows,
           (SELECT jsonb_agg(r.vals ORDER BY r.band DESC)
              FROM (SELECT x.band, jsonb_agg(CASE WHEN x.ios > 0 THEN to_jsonb(x.ios) ELSE 'null'::jsonb END ORDER BY x.col) AS vals
                      FROM x GROUP BY x.band) r) AS vals
      INTO g;
    IF g.rows IS NULL THEN
        -- histograms that hold no I/O (every second stalled): no band to draw
        RAISE EXCEPTION 'batch % has no I/O in its per-second latency histograms', id
            USING ERRCODE = 'no_data_found',
                  HINT = 'Its seconds completed no I/O; ranread_timeline(batch) shows its IOPS per second.';
    END IF;
    RETURN jsonb_build_object(
        'kind', 'heat',
        'title', format('Latency by second, batch %s', id),
        'subtitle', format('%s: %s, QD %s, %s blocks, %s%% writes; run at %s',
                           b.target, ranread_internal.ranread_count_words(b.processes, 'process'), coalesce(b.queue_depth::text, 'mix'),
                           coalesce(CASE WHEN b.block_size % 1048576 = 0 THEN (b.block_size / 1048576) || ' MiB'
                                         WHEN b.block_size % 1024 = 0 THEN (b.block_size / 1024) || ' KiB'
                                         ELSE b.block_size || ' B' END, 'mix'),
                           coalesce(b.write_pct::text, 'mix'), to_char(b.run_at, 'YYYY-MM-DD HH24:MI:SS')),
        'x', jsonb_build_object('label', 'second of the measured run'),
        'y', jsonb_build_object('label', 'latency'),
        'heat', jsonb_build_object('rows', g.rows, 'columns', g.cols, 'values', g.vals,
                                   'metric', 'I/Os', 'log', 'auto', 'format', 'count'),
        'notes', CASE WHEN b.ngaps > 0 THEN jsonb_build_array(jsonb_build_object('style', 'bad', 'text',
                     format('%s %s no latency histogram (%s): %s empty. A second has none when the leader woke late, '
                            'the 16 MB pool was full, or timing was off.',
                            b.ngaps, CASE WHEN b.ngaps = 1 THEN 'second has' ELSE 'seconds have' END,
                            CASE WHEN b.ngaps = 1 THEN 'second ' ELSE 'seconds ' END || b.gaps,
                            CASE WHEN b.ngaps = 1 THEN 'its column is' ELSE 'their columns are' END)))
                 ELSE '[]' END);
END
$$;

-- SVG: the latency heatmap of a batch (the latest with per-second
-- histograms when NULL)
CREATE OR REPLACE FUNCTION @extschema@.ranread_latency_heatmap(batch bigint DEFAULT NULL)
RETURNS text
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$ SELECT @extschema@.ranread_svg(ranread_internal.ranread_latency_heat_spec($1)) $$;
COMMENT ON FUNCTION @extschema@.ranread_latency_heatmap(bigint) IS
    'SVG heat table of one batch: I/Os by second and latency band, from the seconds'' merged histograms; the latest batch by default';

-- The report's section: the latest batch's heatmap, when one has histograms
-- (PL/pgSQL: ranread_html_svg is made later, in 44_report.sql)
CREATE OR REPLACE FUNCTION ranread_internal.ranread_report_heatmap()
RETURNS text
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    -- the latest batch whose histograms hold an I/O (none holds one: no section)
    id bigint := (SELECT max(i.batch) FROM @extschema@.ranread_intervals i
                   WHERE i.histogram IS NOT NULL AND @extschema@.ranread_hist_count(i.histogram) > 0);
BEGIN
    IF id IS NULL THEN
        RETURN '';
    END IF;
    RETURN format('<section id="latency-heatmap"><h2>Latency by second, batch %s</h2>', id)
           || ranread_internal.ranread_html_svg(@extschema@.ranread_latency_heatmap(id)) || '</section>';
END
$$;
