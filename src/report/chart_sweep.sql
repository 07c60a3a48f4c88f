-- The spec of ranread_chart (charts.c runs this query and draws what it
-- returns through chart_json.c; docs/charts-and-reports.md, "Charts from
-- SQL"): IOPS against processes on a log2 x axis with a tick at each step,
-- average and p99 latency on the right axis, the latency bound, the verdict in
-- words and a table of the steps.
--
-- Which batches (@batches@, a condition on b) and which verdict are
-- charts.c's: the verdict is never worked out here.
--   $1  the sweep, or NULL for every completed batch
--   $2  the latency bound (ms), $3 whether the sweep recorded it,
--   $4  why the sweep stopped (NULL: not recorded)
--   $5  whether a step is within the bound, and that step's $6 IOPS,
--   $7  average latency, $8 processes, $9 batch, $10 all-flash guidance
-- The query reads only columns of the 1.0 tables, so it draws a database
-- still at 1.0 as well.  Figures beyond what a chart places (1e308,
-- Infinity, NaN) are null in the series; the table and notes print them,
-- through the renderer's formats ({"count": ...}), as they are.
-- Characters outside ASCII are {"char": code point}, so the query text is
-- the same in every server encoding.
WITH ch AS (
    SELECT '{"char": 183}'::jsonb AS dot, '{"char": 8211}'::jsonb AS ndash,
           '{"char": 8220}'::jsonb AS lquo, '{"char": 8221}'::jsonb AS rquo,
           '{"char": 8322}'::jsonb AS sub2, '{"char": 8804}'::jsonb AS le
), v AS (
    SELECT $1 IS NOT NULL AS have_sweep, $2 AS bound, $3 AS recorded, $4 AS stop_reason,
           $5 AS found, $6 AS iops, $7 AS avg_ms, $8 AS processes, $9 AS batch, $10 AS flash
), pts AS (
    -- the batches in the order of the x axis; a batch plots when it completed
    SELECT q.*, q.completed AND q.processes > 0 AS plot,
           v.found AND q.batch = v.batch AS best
      FROM v, (SELECT row_number() OVER (ORDER BY b.processes, b.batch) AS i,
                      b.batch, b.processes,
                      coalesce(b.status, '') AS status,
                      coalesce(b.status = 'completed', false) AS completed,
                      b.iops, b.mbps, nullif(b.avg_ms, 'NaN') AS avg_ms, b.p99_ms, b.max_ms,
                      coalesce(b.target::text, '') AS target,
                      coalesce(b.block_size::bigint, -1) AS block_size,
                      coalesce(b.queue_depth, -1) AS queue_depth,
                      coalesce(b.write_pct, -1) AS write_pct,
                      coalesce(b.pattern, '') AS pattern,
                      coalesce(b.engine, '') AS engine,
                      date_part('epoch', b.duration)::text AS duration,
                      coalesce(b.iterations, -1) AS iterations,
                      coalesce(to_char(min(b.run_at) OVER (), 'YYYY-MM-DD HH24:MI TZ'), '') AS first_run,
                      coalesce(to_char(max(b.run_at) OVER (), 'YYYY-MM-DD HH24:MI TZ'), '') AS last_run
                 FROM @extschema@.ranread_batches b
                WHERE @batches@) q
), cx AS (
    -- what the batches have in common, for the title (NULL or -1: they differ)
    SELECT count(*) AS n,
           CASE WHEN count(DISTINCT target) = 1 THEN min(target) END AS target,
           CASE WHEN count(DISTINCT block_size) = 1 THEN min(block_size) ELSE -1 END AS block_size,
           CASE WHEN count(DISTINCT queue_depth) = 1 THEN min(queue_depth) ELSE -1 END AS queue_depth,
           CASE WHEN count(DISTINCT write_pct) = 1 THEN min(write_pct) ELSE -1 END AS write_pct,
           CASE WHEN count(DISTINCT pattern) = 1 THEN min(pattern) END AS pattern,
           CASE WHEN count(DISTINCT engine) = 1 THEN min(engine) END AS engine,
           CASE WHEN count(duration) = count(*) AND count(DISTINCT duration) = 1 THEN min(duration) END AS duration,
           CASE WHEN count(DISTINCT iterations) = 1 THEN min(iterations) ELSE -1 END AS iterations,
           min(first_run) AS f, min(last_run) AS l
      FROM pts
), words AS (
    -- "random 8 KiB reads", when the batches ran, the x axis
    SELECT jsonb_build_array(coalesce(cx.pattern, 'mixed'))
           || CASE WHEN cx.block_size > 0 THEN jsonb_build_array(' ', jsonb_build_object('block', cx.block_size))
                   ELSE '[", mixed block sizes,"]' END
           || jsonb_build_array(' ' || CASE WHEN cx.write_pct = 0 THEN 'reads'
                                            WHEN cx.write_pct = 100 THEN 'writes'
                                            WHEN cx.write_pct > 0 THEN format('I/O with %s%% writes', cx.write_pct)
                                            ELSE 'I/O' END) AS workload,
           CASE WHEN cx.f = cx.l THEN jsonb_build_array(cx.f)
                WHEN length(cx.f) > 16 AND length(cx.l) > 16 AND left(cx.f, 11) = left(cx.l, 11)
                     AND substr(cx.f, 17) = substr(cx.l, 17)
                THEN jsonb_build_array(left(cx.f, 16), ch.ndash, substr(cx.l, 12))
                ELSE jsonb_build_array(cx.f || ' ', ch.ndash, ' ' || cx.l) END AS run,
           jsonb_build_array(CASE WHEN cx.queue_depth > 1
                                  THEN format('Processes (I/O streams of queue depth %s each; log', cx.queue_depth)
                                  ELSE 'Processes (concurrent synchronous I/O streams; log' END,
                             ch.sub2, ' scale)') AS x_label
      FROM cx, ch
), series AS (
    -- several batches at one process count are drawn as points only
    SELECT coalesce(jsonb_agg(CASE WHEN p.plot THEN p.processes END ORDER BY p.i), '[]') AS x,
           coalesce(jsonb_agg(CASE WHEN p.plot AND abs(p.iops) <= 1e300 THEN p.iops END ORDER BY p.i), '[]') AS iops,
           coalesce(jsonb_agg(CASE WHEN p.plot AND abs(p.avg_ms) <= 1e300 THEN p.avg_ms END ORDER BY p.i), '[]') AS avg,
           coalesce(jsonb_agg(CASE WHEN p.plot AND abs(p.p99_ms) <= 1e300 THEN p.p99_ms END ORDER BY p.i), '[]') AS p99,
           NOT coalesce(bool_or(p.same_x), false) AS line,
           max(p.i - 1) FILTER (WHERE p.plot AND p.best) AS best_point
      FROM (SELECT pts.*, lag(CASE WHEN plot THEN processes END) OVER (ORDER BY i)
                          = CASE WHEN plot THEN processes END AS same_x
              FROM pts) p
), steps AS (
    -- the table: one row per batch (at most 24), the verdict's highlighted
    SELECT coalesce(jsonb_agg(jsonb_build_array(
               p.i::text,
               jsonb_build_array(jsonb_build_object('count', p.processes)),
               p.batch::text,
               jsonb_build_array(jsonb_build_object('count', p.iops)),
               jsonb_build_array(jsonb_build_object('fixed', p.mbps, 'decimals', 1)),
               jsonb_build_array(jsonb_build_object('ms', p.avg_ms)),
               jsonb_build_array(jsonb_build_object('ms', p.p99_ms)),
               jsonb_build_array(jsonb_build_object('ms', p.max_ms)),
               jsonb_build_object(
                   'text', CASE WHEN NOT p.completed THEN p.status || ': not plotted'
                                WHEN p.avg_ms IS NULL THEN 'n/a'
                                WHEN p.avg_ms <= v.bound THEN CASE WHEN p.best THEN 'yes: highest IOPS' ELSE 'yes' END
                                ELSE 'no' END,
                   'tone', CASE WHEN p.best THEN 'good'
                                WHEN coalesce(p.avg_ms > v.bound, false) OR NOT p.completed THEN 'bad'
                                ELSE 'plain' END))
               ORDER BY p.i) FILTER (WHERE p.i <= 24), '[]') AS rows,
           coalesce(jsonb_agg(p.i - 1 ORDER BY p.i) FILTER (WHERE p.i <= 24 AND p.best), '[]') AS highlight,
           -- the verdict's step, if it is still in the history
           max(p.p99_ms) FILTER (WHERE p.batch = v.batch) AS best_p99,
           max(p.max_ms) FILTER (WHERE p.batch = v.batch) AS best_max
      FROM pts p, v
), notes AS (
    -- the verdict in words, and why the sweep stopped
    SELECT CASE WHEN v.found THEN jsonb_build_array(
                    jsonb_build_object('style', 'headline', 'text', jsonb_build_array(
                        CASE WHEN v.have_sweep THEN 'Verdict: ' ELSE '' END,
                        jsonb_build_object('count', v.iops), ' IOPS at ',
                        jsonb_build_object('count', v.processes), ' processes: the most within the ',
                        jsonb_build_object('setting', v.bound), ' ms average latency bound')),
                    jsonb_build_object('style', 'plain', 'text', jsonb_build_array(
                        format('Latency at that step (batch %s): average ', v.batch),
                        jsonb_build_object('ms', v.avg_ms), ' ms, p99 ',
                        jsonb_build_object('ms', steps.best_p99), ' ms, maximum ',
                        jsonb_build_object('ms', steps.best_max), ' ms')),
                    jsonb_build_object('style', CASE WHEN v.flash THEN 'good' ELSE 'bad' END, 'text', jsonb_build_array(
                        CASE WHEN v.flash THEN 'Meets' ELSE 'Does not meet' END
                        || ' the all-flash guidance (average ', ch.le, ' 2 ms, never above 5 ms)')))
                ELSE jsonb_build_array(jsonb_build_object('style', 'headline-bad', 'text', jsonb_build_array(
                        'No completed batch stayed within the ', jsonb_build_object('setting', v.bound),
                        ' ms average latency bound.')))
           END
           || CASE WHEN v.stop_reason IS NOT NULL
                   THEN jsonb_build_array(jsonb_build_object('style', 'muted', 'text', 'Sweep stopped on ' || v.stop_reason))
                   WHEN v.have_sweep AND NOT v.recorded
                   THEN jsonb_build_array(jsonb_build_object('style', 'muted', 'text',
                            'This sweep recorded no verdict (it did not finish): the figures come from its batches, judged against the default bound.'))
                   ELSE '[]' END AS notes
      FROM v, ch, steps
)
SELECT CASE WHEN cx.n = 0 THEN jsonb_build_object(
           'title', 'ranread: IOPS and latency against processes',
           'empty', 'No completed batches yet: run ranread_sweep() or ranread_run() first.')
       ELSE jsonb_build_object(
           'title', jsonb_build_array('IOPS and latency vs processes: ') || words.workload
                    || CASE WHEN cx.target IS NULL THEN '[", several targets"]'
                            ELSE jsonb_build_array(' on target ', ch.lquo, cx.target, ch.rquo) END,
           'subtitle', jsonb_build_array(CASE WHEN v.have_sweep THEN 'Sweep ' || $1 ELSE 'All completed batches' END,
                                         ' ', ch.dot, ' ')
                       || words.run
                       || jsonb_build_array(' ', ch.dot, format(' %s batch%s', cx.n, CASE WHEN cx.n = 1 THEN '' ELSE 'es' END))
                       || CASE WHEN cx.queue_depth > 0
                               THEN jsonb_build_array(' ', ch.dot, ' queue depth ' || cx.queue_depth) ELSE '[]' END
                       || CASE WHEN cx.duration <> ''
                               THEN jsonb_build_array(' ', ch.dot, ' ' || cx.duration || ' s per step')
                               WHEN cx.iterations > 0
                               THEN jsonb_build_array(' ', ch.dot, ' ', jsonb_build_object('count', cx.iterations),
                                                      ' I/Os per process')
                               ELSE '[]' END
                       || CASE WHEN cx.engine <> ''
                               THEN jsonb_build_array(' ', ch.dot, ' engine ' || cx.engine) ELSE '[]' END,
           'empty', 'No completed batch to plot: the table lists the batches and how they ended.',
           'x', jsonb_build_object('label', words.x_label, 'log', true, 'base', 2, 'ticks', 'data',
                                   'format', 'count'),
           'y', jsonb_build_object('label', 'IOPS (I/O operations per second)', 'format', 'count',
                                   'color', '#1c5fa8'),
           'y2', jsonb_build_object('label', 'Latency (ms)', 'color', '#d9480f'),
           'series', jsonb_build_array(
               jsonb_build_object('label', 'IOPS (left axis)', 'x', series.x, 'y', series.iops,
                                  'color', '#1c5fa8', 'marker', 'circle', 'dash', 'solid', 'width', 2.5,
                                  'line', series.line, 'labels', true, 'format', 'count'),
               jsonb_build_object('label', 'Average latency (right)', 'x', series.x, 'y', series.avg,
                                  'axis', 'right', 'color', '#d9480f', 'marker', 'square', 'dash', 'solid',
                                  'width', 2.0, 'line', series.line),
               jsonb_build_object('label', 'p99 latency (right)', 'x', series.x, 'y', series.p99,
                                  'axis', 'right', 'color', '#f59f00', 'marker', 'triangle', 'dash', 'solid',
                                  'width', 2.0, 'line', series.line)),
           'highlights', CASE WHEN series.best_point IS NULL THEN '[]'
                              ELSE jsonb_build_array(jsonb_build_object('series', 0, 'point', series.best_point)) END,
           'lines', jsonb_build_array(jsonb_build_object(
               'value', CASE WHEN abs(v.bound) <= 1e300 THEN v.bound END, 'axis', 'right',
               'label', jsonb_build_array('bound ', jsonb_build_object('setting', v.bound), ' ms'),
               'legend', jsonb_build_array('Average latency bound ', jsonb_build_object('setting', v.bound),
                                           CASE WHEN v.recorded THEN ' ms' ELSE ' ms (default)' END),
               'color', '#c92a2a', 'dash', '8 5', 'width', 1.5)),
           'notes', notes.notes,
           'table', jsonb_build_object(
               'header', jsonb_build_array(CASE WHEN v.have_sweep THEN 'Step' ELSE '#' END, 'Processes', 'Batch',
                                           'IOPS', 'MiB/s', 'Avg ms', 'p99 ms', 'Max ms',
                                           jsonb_build_array('Avg within ', jsonb_build_object('setting', v.bound),
                                                             ' ms?')),
               'align', '["right", "right", "right", "right", "right", "right", "right", "right", "left"]'::jsonb,
               'rows', steps.rows,
               'highlight', steps.highlight,
               'more', CASE WHEN cx.n > 24
                            THEN format('... and %s more batches: see ranread_summary', cx.n - 24) END))
       END
  FROM cx, words, series, steps, notes, v, ch
