-- The spec of ranread_timeline (charts.c runs this query and draws what
-- it returns through chart_json.c; docs/charts-and-reports.md, "Charts from
-- SQL"): IOPS per second of one batch with their mean as a dashed line (its
-- figure in the legend), a mix's groups' IOPS as lines of their own, average
-- and maximum latency on the right axis (only when the batch was timed; in log
-- when the maximum is over 10x the highest average, so that the average is not
-- a flat line at 0), and the figures in words, so that throttling and
-- exhausted burst credits show as steps in the IOPS line (noted when the last
-- third of the run is 20% below the first); and, where the seconds have
-- latency histograms (1.1), each second's p99 from them merged; seconds
-- without one (docs/charts-and-reports.md, "Percentiles over time") are gaps
-- in that line and a note names them.  The x axis is a time axis (seconds,
-- minutes, hours or days, chosen by the renderer from the span).
--   $1  the batch (charts.c checks that it exists), or NULL when no batch
--       has per-second intervals yet
--   $2  the latency heatmap of the batch as a panel (chart_timeline_heat.sql),
--       drawn under the plot on its x axis; NULL when the batch's seconds
--       have no histograms or the database has no heatmap (1.0)
-- A batch's seconds are the sums over its groups (a plain batch has one),
-- the average latency weighted by each group's I/Os.  A figure beyond what
-- a chart places (1e300, Infinity) is no value, and each weight is a
-- fraction of the second's I/Os, so that no sum overflows.  The query reads
-- the 1.0 columns by name and the steady-state verdict of 1.1 through
-- to_jsonb (none in a database still at 1.0).  Characters outside ASCII
-- are {"char": code point}, so the query is the same in every encoding.
WITH ch AS (
    SELECT '{"char": 183}'::jsonb AS dot, '{"char": 8220}'::jsonb AS lquo,
           '{"char": 8221}'::jsonb AS rquo
), b AS (
    SELECT b.batch, coalesce(b.target::text, '') AS target, coalesce(b.processes, 0) AS processes,
           coalesce(b.block_size::bigint, 0) AS block_size, coalesce(b.queue_depth::text, '') AS queue_depth,
           coalesce(b.write_pct, 0) AS write_pct, coalesce(b.pattern, '') AS pattern,
           coalesce(b.engine, '') AS engine, coalesce(b.status, '') AS status,
           coalesce(to_char(b.run_at, 'YYYY-MM-DD HH24:MI:SS TZ'), '') AS run_at,
           nullif(b.avg_ms, 'NaN') AS avg_ms,
           (to_jsonb(b) ->> 'steady')::boolean AS steady,
           (to_jsonb(b) ->> 'steady_excursion')::float8 AS excursion,
           (to_jsonb(b) ->> 'steady_slope')::float8 AS slope,
           coalesce((to_jsonb(b) ->> 'ended_steady')::boolean, false) AS ended_steady,
           to_jsonb(b) ->> 'steady_state' AS steady_state,
           -- a mix's groups (1.1): their labels and queue depths
           CASE WHEN jsonb_typeof(to_jsonb(b) -> 'mix') = 'array' THEN to_jsonb(b) -> 'mix' END AS mix
      FROM @extschema@.ranread_batches b
     WHERE b.batch = $1
), sec AS (
    -- second s covers [s, s + 1) of the measured run: plotted at its middle
    SELECT s.second::float8 + 0.5 AS x,
           sum(s.iops) AS iops,
           sum(s.avg_ms * (s.ios / NULLIF(s.total, 0))) AS avg_ms,
           max(s.max_ms) AS max_ms,
           -- p99 from the second's merged histograms (1.1; none in 1.0)
           CASE WHEN bool_and(s.h IS NOT NULL)
                THEN @extschema@.ranread_hist_percentile(@extschema@.ranread_hist_merge(s.h), 99) END AS p99_ms,
           -- whether every group has the second's histogram (1.1; in 1.0
           -- there are none to miss)
           bool_and(s.h IS NOT NULL) OR NOT bool_or(s.keeps) AS has_hist
      FROM (SELECT i.second, to_jsonb(i) ? 'histogram' AS keeps,
                   CASE WHEN abs(i.iops) <= 1e300::float8 THEN i.iops END AS iops,
                   CASE WHEN abs(i.avg_ms) <= 1e300::float8 THEN i.avg_ms END AS avg_ms,
                   i.max_ms,
                   i.reads::float8 + i.writes::float8 AS ios,
                   decode(substr(to_jsonb(i) ->> 'histogram', 3), 'hex') AS h,
                   sum(i.reads::float8 + i.writes::float8) OVER (PARTITION BY i.second) AS total
              FROM @extschema@.ranread_intervals i
             WHERE i.batch = $1) s
     GROUP BY s.second
), q AS (
    -- in the order of the seconds, which the aggregates below keep (an
    -- aggregate takes a sorted subquery's rows in order): one sort, not
    -- one per array
    SELECT sec.*, abs(iops) <= 1e300::float8 AS ok,
           -- where the second lies in the run, 0 to 1
           (x - min(x) OVER ()) / NULLIF(max(x) OVER () - min(x) OVER (), 0) AS pos,
           -- squares of IOPS from 1e150 up overflow a float8: numeric then
           max(abs(iops)) FILTER (WHERE abs(iops) <= 1e300::float8) OVER () >= 1e150 AS huge
      FROM sec
     ORDER BY x
), st AS (
    -- the seconds summed up: IOPS mean, lowest, highest, their coefficient
    -- of variation, and the slowest latency of any second
    SELECT count(*) AS n, count(*) FILTER (WHERE ok) AS seconds,
           coalesce(min(iops) FILTER (WHERE ok), 0) AS lo,
           coalesce(max(iops) FILTER (WHERE ok), 0) AS hi,
           avg(iops::numeric) FILTER (WHERE ok AND huge) AS mean_n,
           avg(iops) FILTER (WHERE ok AND NOT huge) AS mean_f,
           stddev_pop(iops::numeric) FILTER (WHERE ok AND huge) AS sd_n,
           stddev_pop(iops) FILTER (WHERE ok AND NOT huge) AS sd_f,
           greatest(max(avg_ms) FILTER (WHERE abs(avg_ms) <= 1e300::float8),
                    max(max_ms) FILTER (WHERE abs(max_ms) <= 1e300::float8)) AS worst_ms,
           min(x) AS x0, max(x) AS x1,
           -- the mean IOPS of the first and of the last third of the run
           avg(iops::numeric) FILTER (WHERE ok AND pos <= 1.0 / 3) AS first_third,
           avg(iops::numeric) FILTER (WHERE ok AND pos >= 2.0 / 3) AS last_third,
           max(avg_ms) FILTER (WHERE abs(avg_ms) <= 1e300::float8) AS top_avg_ms,
           coalesce(jsonb_agg(x), '[]') AS xs,
           coalesce(jsonb_agg(CASE WHEN ok THEN iops END), '[]') AS ys_iops,
           coalesce(jsonb_agg(CASE WHEN abs(avg_ms) <= 1e300::float8 THEN avg_ms END), '[]') AS ys_avg,
           coalesce(jsonb_agg(CASE WHEN abs(max_ms) <= 1e300::float8 THEN max_ms END), '[]') AS ys_max,
           coalesce(jsonb_agg(p99_ms), '[]') AS ys_p99,
           count(p99_ms) > 0 AS has_p99,
           count(*) FILTER (WHERE NOT has_hist) AS nohist
      FROM q
), gaps AS (
    -- the seconds without a histogram, as runs: "5-7, 12" (at most 8 runs
    -- named)
    SELECT string_agg(CASE WHEN r.a = r.b THEN r.a::text ELSE r.a || '-' || r.b END, ', ' ORDER BY r.a)
           FILTER (WHERE r.k <= 8)
           || CASE WHEN count(*) > 8 THEN format(' and %s more', count(*) - 8) ELSE '' END AS list
      FROM (SELECT min(g.s) AS a, max(g.s) AS b, row_number() OVER (ORDER BY min(g.s)) AS k
              FROM (SELECT (x - 0.5)::bigint AS s, (x - 0.5)::bigint - row_number() OVER (ORDER BY x) AS run
                      FROM q WHERE NOT has_hist) g
             GROUP BY g.run) r
), fig AS (
    -- the mean as a float8 computes it (a jsonb number), the coefficient
    -- of variation in numeric, which neither overflows nor underflows
    SELECT st.*, coalesce(to_jsonb(st.mean_n), to_jsonb(st.mean_f), '0') AS mean,
           CASE WHEN st.seconds > 1 AND coalesce(st.mean_n, st.mean_f::numeric) > 0
                THEN coalesce(st.sd_n, st.sd_f::numeric) / coalesce(st.mean_n, st.mean_f::numeric) * 100
                ELSE 0 END AS cv,
           -- no second and no batch figure has a latency: the batch was not timed
           st.worst_ms IS NOT NULL OR b.avg_ms IS NOT NULL AS timed
      FROM st, b
), grp AS (
    -- a mix: each group's IOPS per second, at the seconds of the total
    -- (at most 8 groups drawn, the legend says how many)
    SELECT coalesce(jsonb_agg(jsonb_build_object(
               'label', format('IOPS of %s (QD %s)', g.label, g.qd),
               'x', (SELECT fig.xs FROM fig),
               'y', (SELECT coalesce(jsonb_agg(CASE WHEN abs(i.iops) <= 1e300::float8 THEN i.iops END ORDER BY q.x), '[]')
                       FROM q LEFT JOIN @extschema@.ranread_intervals i
                              ON i.batch = $1 AND i.second::float8 + 0.5 = q.x
                             AND (to_jsonb(i) ->> 'grp')::integer = g.n),
               -- colours and markers none of the total's and latency's
               'color', (ARRAY['#2b8a3e', '#ae3ec9', '#0c8599', '#862e9c', '#5c940d', '#e64980', '#495057',
                               '#364fc7'])[g.n],
               'marker', (ARRAY['triangle', 'diamond', 'down', 'cross'])[1 + (g.n - 1) % 4],
               'dash', '4 3', 'width', 1.4) ORDER BY g.n), '[]') AS series
      FROM b, LATERAL (SELECT m.n::integer AS n, coalesce(m.e ->> 'label', 'group ' || m.n) AS label,
                              coalesce(m.e ->> 'queue_depth', '?') AS qd
                         FROM jsonb_array_elements(b.mix) WITH ORDINALITY m(e, n)
                        WHERE m.n <= 8) g
), steady AS (
    -- SNIA's verdict on the batch, and whether steady_state ended it
    SELECT CASE WHEN b.ended_steady
                THEN jsonb_build_array(jsonb_build_object('style', 'good', 'text',
                         'Steady: the run ended early when the IOPS of every second of a window stayed within steady_state '
                         || coalesce(b.steady_state, '')))
                -- the rule stated, each part's figure and whether it held
                -- (src/run/figures.c, figures_steady_text, says the same)
                WHEN b.steady IS NOT NULL
                THEN jsonb_build_array(jsonb_build_object(
                         'style', CASE WHEN b.steady THEN 'good' ELSE 'bad' END,
                         'text', jsonb_build_array(
                             CASE WHEN b.steady THEN 'Steady' ELSE 'Not steady' END
                             || ' by SNIA''s rule over five rounds: their IOPS range over ',
                             jsonb_build_object('fixed', 100 * b.excursion::numeric, 'decimals', 1),
                             '% of their mean (' || CASE WHEN b.excursion <= 0.2 THEN 'within' ELSE 'above' END
                             || ' the 20% allowed), their trend is a ' || CASE WHEN b.slope < 0 THEN 'fall' ELSE 'rise' END || ' of ',
                             jsonb_build_object('fixed', abs(100 * b.slope::numeric), 'decimals', 1),
                             '% (' || CASE WHEN abs(b.slope) <= 0.1 THEN 'within' ELSE 'beyond' END || ' the 10% allowed)')))
                ELSE '[]' END AS note
      FROM b
)
SELECT CASE WHEN $1 IS NULL THEN jsonb_build_object(
           'title', 'ranread: IOPS and latency per second',
           'empty', 'No batch has per-second intervals yet: run ranread_run() first.')
       ELSE jsonb_build_object(
           'title', CASE WHEN b.mix IS NOT NULL
                         THEN to_jsonb(format('IOPS and latency per second: batch %s, a mix of %s groups',
                                              b.batch, jsonb_array_length(b.mix)))
                         ELSE jsonb_build_array(format('IOPS and latency per second: batch %s, %s ', b.batch, b.pattern),
                                      jsonb_build_object('block', b.block_size),
                                      ' ' || CASE WHEN b.write_pct = 0 THEN 'reads'
                                                  WHEN b.write_pct = 100 THEN 'writes'
                                                  WHEN b.write_pct > 0 THEN format('I/O with %s%% writes', b.write_pct)
                                                  ELSE 'I/O' END) END,
           'subtitle', jsonb_build_array('Target ', ch.lquo, b.target, ch.rquo, ' ', ch.dot, ' ' || b.run_at || ' ',
                                         ch.dot, ' ', jsonb_build_object('count', b.processes), ' processes ',
                                         ch.dot, CASE WHEN b.mix IS NOT NULL
                                                      THEN ' groups ' || (SELECT string_agg(format('%s QD %s', m ->> 'label', m ->> 'queue_depth'), ', ')
                                                                            FROM jsonb_array_elements(b.mix) m) || ' '
                                                      ELSE ' queue depth ' || b.queue_depth || ' ' END, ch.dot,
                                         ' engine ' || b.engine || ' ', ch.dot, ' status ' || b.status),
           'empty', format('Batch %s has no per-second intervals (it measured for less than a second, or is still running).',
                           b.batch),
           'x', jsonb_build_object('label', 'Time into the measured run, warm-up excluded',
                                   'min', CASE WHEN fig.n > 0 THEN least(fig.x0 - 0.5, 0) ELSE 0 END,
                                   'max', CASE WHEN fig.n > 0 THEN fig.x1 + 0.5 ELSE 1 END,
                                   'integer', true, 'time', 'duration'),
           'y', jsonb_build_object('label', 'IOPS (I/O operations per second)', 'format', 'count',
                                   'color', '#1c5fa8'),
           -- the maximum is often 100x the average: then a log scale, so
           -- that the average is not a flat line at 0
           'y2', jsonb_build_object('label', 'Latency (ms)', 'color', '#d9480f',
                                    'log', coalesce(fig.worst_ms > 10 * fig.top_avg_ms, false)),
           'series', jsonb_build_array(
                         jsonb_build_object('label', CASE WHEN b.mix IS NOT NULL THEN 'IOPS in total' ELSE 'IOPS' END
                                                     || CASE WHEN fig.timed THEN ' (left axis)' ELSE '' END,
                                            'x', fig.xs, 'y', fig.ys_iops, 'color', '#1c5fa8',
                                            'marker', 'circle', 'dash', 'solid', 'width', 2.2))
                     || grp.series
                     || CASE WHEN NOT fig.timed THEN '[]' ELSE jsonb_build_array(
                         jsonb_build_object('label', 'Average latency (right)', 'x', fig.xs, 'y', fig.ys_avg,
                                            'axis', 'right', 'color', '#d9480f', 'marker', 'square',
                                            'dash', 'solid', 'width', 2.0),
                         jsonb_build_object('label', 'Maximum latency (right)', 'x', fig.xs, 'y', fig.ys_max,
                                            'axis', 'right', 'color', '#f59f00', 'marker', 'none',
                                            'dash', 'solid', 'width', 1.2)) END
                     || CASE WHEN NOT (fig.timed AND fig.has_p99) THEN '[]' ELSE jsonb_build_array(
                         jsonb_build_object('label', 'p99 latency, merged histograms (right)', 'x', fig.xs,
                                            'y', fig.ys_p99, 'axis', 'right', 'color', '#c92a2a',
                                            'marker', 'diamond', 'dash', '5 3', 'width', 1.6)) END,
           'lines', CASE WHEN fig.seconds = 0 THEN '[]' ELSE jsonb_build_array(jsonb_build_object(
                        'value', fig.mean,
                        'legend', jsonb_build_array('Mean IOPS ', jsonb_build_object('count', fig.mean)),
                        'color', '#1c5fa8', 'dash', '3 4', 'width', 1.2)) END,
           'notes', CASE WHEN fig.n = 0 THEN '[]' ELSE
                        jsonb_build_array(jsonb_build_object('style', 'headline', 'text', jsonb_build_array(
                            format('IOPS per second over %s s: mean ', fig.seconds),
                            jsonb_build_object('count', fig.mean), ', lowest ', jsonb_build_object('count', fig.lo),
                            ', highest ', jsonb_build_object('count', fig.hi), ', coefficient of variation ',
                            jsonb_build_object('fixed', fig.cv, 'decimals', 1), '%')))
                        || steady.note
                        || CASE WHEN fig.timed THEN jsonb_build_array(
                               jsonb_build_object('style', 'plain', 'text', jsonb_build_array(
                                   'Latency: average over the batch ', jsonb_build_object('ms', b.avg_ms),
                                   ' ms; the slowest I/O took ', jsonb_build_object('ms', fig.worst_ms), ' ms')))
                           ELSE jsonb_build_array(
                               jsonb_build_object('style', 'plain', 'text',
                                   'Latency: not measured (the batch ran with ranread.timing = off), so only IOPS are drawn.')) END
                        -- seconds without a latency histogram: gaps, said
                        -- (docs/charts-and-reports.md, "Percentiles over time")
                        || CASE WHEN fig.timed AND fig.nohist > 0 THEN jsonb_build_array(
                               jsonb_build_object('style', 'bad', 'text',
                                   CASE WHEN fig.nohist = fig.n
                                        THEN 'No second of this batch has a latency histogram: no p99 line and no heatmap.'
                                        ELSE format('%s of %s seconds have no latency histogram (%s %s): gaps in the p99 line and '
                                                    'empty heatmap columns there.', fig.nohist, fig.n,
                                                    CASE WHEN fig.nohist = 1 THEN 'second' ELSE 'seconds' END, gaps.list) END
                                   || ' A second has none when the leader woke late, the 16 MB pool was full, or timing was off.'))
                           ELSE '[]' END
                        -- only when the IOPS did step down: the last third of
                        -- the run 20% below the first
                        || CASE WHEN fig.seconds >= 6 AND fig.last_third < 0.8 * fig.first_third
                                THEN jsonb_build_array(jsonb_build_object('style', 'muted', 'text', jsonb_build_array(
                                         'IOPS fell from ', jsonb_build_object('count', fig.first_third),
                                         ' in the first third of the run to ', jsonb_build_object('count', fig.last_third),
                                         ' in the last: a step down ',
                                         CASE WHEN fig.timed THEN 'while latency holds steady ' ELSE '' END,
                                         'points to throttling or exhausted burst credits.')))
                                ELSE '[]' END END,
           'panels', CASE WHEN fig.n > 0 AND $2::jsonb IS NOT NULL THEN jsonb_build_array($2::jsonb) END)
       END
  FROM ch LEFT JOIN (b CROSS JOIN fig CROSS JOIN steady CROSS JOIN grp CROSS JOIN gaps) ON true
