-- The heatmap panel of ranread_timeline (charts.c runs this query only when
-- the database has the heatmap's functions, 1.1 and later, and the caller
-- may run them, and passes what it returns to chart_timeline.sql): the
-- latency heatmap's spec (sql/code/31_heatmap.sql, the one of
-- ranread_latency_heatmap) as a panel under the IOPS and latency plot, its
-- columns placed on the plot's x axis by their edges, so that second s
-- spans [s, s + 1) as it does above.  NULL when no second of the batch
-- has a histogram that holds an I/O (not timed, recorded before 1.1, too
-- short, or stalled throughout).
--   $1  the batch
-- Only seconds whose histograms hold an I/O count (the heatmap of none is
-- an error).  The heatmap counts its columns' seconds in integer: a second
-- within 2^31 by less than the 40 columns' rounding (a batch of 68 years)
-- is no panel rather than an integer out of range.
SELECT CASE WHEN (SELECT max(i.second) FROM @extschema@.ranread_intervals i
                   WHERE i.batch = $1 AND i.histogram IS NOT NULL) <= 2147483000
                 AND EXISTS (SELECT FROM @extschema@.ranread_intervals i
                              WHERE i.batch = $1 AND i.histogram IS NOT NULL
                                AND @extschema@.ranread_hist_count(i.histogram) > 0)
       THEN (SELECT jsonb_build_object(
                        'kind', 'heat',
                        'title', 'Latency by second: I/Os in each latency band (merged histograms)',
                        'y', jsonb_build_object('label', 'Latency band'),
                        'heat', (s.spec -> 'heat') || jsonb_build_object('edges', e.edges))
               FROM ranread_internal.ranread_latency_heat_spec($1) s(spec),
                    -- a column spans its first second to the end of its last
                    (SELECT jsonb_agg(c.first_second ORDER BY c.col) || to_jsonb(max(c.last_second) + 1) AS edges
                       FROM (SELECT DISTINCT x.col, x.first_second, x.last_second
                               FROM ranread_internal.ranread_latency_heat_cells($1) x) c) e
              -- no rows (1.1's spec of histograms without I/O): no panel
              WHERE jsonb_typeof(s.spec -> 'heat' -> 'rows') = 'array')
       END
