-- 1.1, keeping watch (docs/keeping-watch.md, "Keeping watch"): a tablespace's
-- probes over days, drawn by the one renderer (ranread_svg; the spec's keys
-- atop src/report/svg.c).

-- SVG: the p50 and p99 latency of each probe of a tablespace over the last
-- days (each probe's own merged histogram, from ranread_probe_verdicts),
-- the baseline's p50 and p99 lines (each in a style of its own), where
-- "slower" starts (baseline p99 x slower_factor) and the thresholds; probes
-- slower than the baseline are highlighted.  The x axis is clock time in
-- the session's time zone.
CREATE OR REPLACE FUNCTION @extschema@.ranread_probe_chart(tablespace name, since interval DEFAULT '30 days')
RETURNS text
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    fn constant text := 'ranread_probe_chart';
    thr @extschema@.ranread_health_thresholds;
    bl record;
    p record;
    h record;
BEGIN
    PERFORM ranread_internal.ranread_watch_tablespace(fn, 'tablespace', tablespace, gone_ok => true);
    PERFORM ranread_internal.ranread_require(fn, 'since', since, 'How far back, such as ''30 days''.');
    IF since <= interval '0' OR since > interval '100 years' THEN
        RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('since of %s must be above 0 and at most 100 years, not %s', fn, since),
            HINT = 'How far back the chart goes, such as ''30 days''.';
    END IF;
    thr := ranread_internal.ranread_health_thresholds_of(tablespace);
    SELECT b.pinned, cardinality(b.batches) AS n,
           CASE WHEN b.histogram IS NOT NULL AND (b.pinned OR cardinality(b.batches) >= thr.baseline_probes)
                THEN @extschema@.ranread_hist_percentile(b.histogram, 50) END AS p50,
           CASE WHEN b.histogram IS NOT NULL AND (b.pinned OR cardinality(b.batches) >= thr.baseline_probes)
                THEN @extschema@.ranread_hist_percentile(b.histogram, 99) END AS p99
      INTO bl
      FROM @extschema@.ranread_baselines b WHERE b.tablespace = ranread_probe_chart.tablespace;
    -- the points, oldest first, and the highlights: the latest 64 slower ones
    SELECT coalesce(jsonb_agg(extract(epoch FROM v.probed_at) ORDER BY v.probed_at, v.batch), '[]') AS x,
           coalesce(jsonb_agg(v.p50_ms ORDER BY v.probed_at, v.batch), '[]') AS p50,
           coalesce(jsonb_agg(v.p99_ms ORDER BY v.probed_at, v.batch), '[]') AS p99,
           count(*) AS n,
           count(*) FILTER (WHERE v.verdict = 'slower') AS slower,
           min(v.probed_at) AS first_at, max(v.probed_at) AS last_at
      INTO p
      FROM @extschema@.ranread_probe_verdicts v
     WHERE v.tablespace = ranread_probe_chart.tablespace AND v.probed_at >= now() - since;
    SELECT * INTO h FROM @extschema@.ranread_health x WHERE x.tablespace = ranread_probe_chart.tablespace;
    RETURN @extschema@.ranread_svg(jsonb_strip_nulls(jsonb_build_object(
        'title', format('Probes of tablespace %s: p50 and p99 latency', tablespace),
        'subtitle', CASE WHEN p.n = 0 THEN format('the last %s', since)
                         ELSE format('%s probes, %s to %s (%s)', p.n,
                                     to_char(p.first_at, 'YYYY-MM-DD HH24:MI'),
                                     to_char(p.last_at, 'YYYY-MM-DD HH24:MI'), current_setting('TimeZone')) END,
        'empty', format('no probe of tablespace %s in the last %s', tablespace, since),
        -- clock times in the session's time zone (its offset now: a
        -- change of summer time within the span shifts the older ticks)
        'x', jsonb_build_object('label', format('Time of the probe (%s; a date marks midnight)', current_setting('TimeZone')),
                                'time', 'clock', 'utc_offset', extract(timezone FROM now())),
        'y', jsonb_build_object('label', 'Latency (ms)', 'log', 'auto'),
        'series', jsonb_build_array(
            jsonb_build_object('label', 'p50 of a probe', 'x', p.x, 'y', p.p50, 'marker', 'circle'),
            jsonb_build_object('label', 'p99 of a probe', 'x', p.x, 'y', p.p99, 'marker', 'square')),
        'lines', (SELECT jsonb_agg(l.o ORDER BY l.k) FROM (VALUES
            -- each line a style of its own: the p50 light and dotted, the p99 dark and long-dashed
            (1, jsonb_build_object('value', bl.p50, 'legend', 'baseline p50', 'color', '#69db7c', 'dash', '3 3', 'width', 2)),
            (2, jsonb_build_object('value', bl.p99, 'legend', 'baseline p99', 'color', '#2b8a3e', 'dash', '12 4', 'width', 2)),
            (3, jsonb_build_object('value', bl.p99 * thr.slower_factor, 'legend',
                                   format('slower: %sx baseline p99', round(thr.slower_factor::numeric, 2)),
                                   'color', '#f59f00', 'dash', '2 3')),
            (4, jsonb_build_object('value', thr.p99_degraded_ms, 'legend', 'degraded', 'color', '#e8590c', 'dash', '9 3 2 3')),
            (5, jsonb_build_object('value', thr.p99_critical_ms, 'legend', 'critical', 'color', '#c92a2a'))) l(k, o)
            WHERE jsonb_typeof(l.o -> 'value') = 'number'),
        'highlights', (SELECT jsonb_agg(jsonb_build_object('series', 1, 'point', s.i - 1, 'color', '#c92a2a'))
                         FROM (SELECT row_number() OVER (ORDER BY v.probed_at, v.batch) AS i, v.verdict, v.probed_at
                                 FROM @extschema@.ranread_probe_verdicts v
                                WHERE v.tablespace = ranread_probe_chart.tablespace AND v.probed_at >= now() - since) s
                        WHERE s.verdict = 'slower' AND s.i > p.n - 64),
        'notes', jsonb_build_array(
            jsonb_build_object('text', CASE WHEN h.last_batch IS NULL THEN 'Status: unknown (no probe judged)'
                                            ELSE format('Status: %s since %s UTC; last probe p99 %s ms, %sx its baseline''s',
                                                        h.status, to_char(h.since AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI'),
                                                        h.p99_ms, coalesce(h.change::text, 'n/a')) END,
                               'style', CASE WHEN h.status = 'ok' THEN 'headline-good'
                                             WHEN h.status IN ('slower', 'degraded', 'critical') THEN 'headline-bad'
                                             ELSE 'headline' END),
            jsonb_build_object('text', CASE WHEN bl.p99 IS NULL THEN 'No baseline yet: the first probes make it.'
                 ELSE format('Baseline band: p50 to p99 of %s %s; %s of the probes shown were slower than it.',
                             bl.n, CASE WHEN bl.pinned THEN 'pinned batches' ELSE 'first probes' END, p.slower) END),
            jsonb_build_object('text', format('Thresholds: degraded above %s ms, critical above %s ms (ranread_health_set).',
                   thr.p99_degraded_ms, thr.p99_critical_ms))))));
END
$$;

COMMENT ON FUNCTION @extschema@.ranread_probe_chart(name, interval) IS
    'SVG: the p50 and p99 latency of a tablespace''s probes over the last days, with its baseline band (p50 to p99), where slower starts and the thresholds';
