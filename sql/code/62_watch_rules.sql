-- 1.1, keeping watch (docs/keeping-watch.md, "Keeping watch"): the comparisons
-- of batches, sweeps and studies, the thresholds and baselines a DBA sets, and
-- the ranread_health view, over the tables of sql/state/60_watch.sql.

-- The one body of ranread_compare_sweeps and ranread_compare_studies: two
-- sweeps (kind 'sweep') compared step by step, the steps of the same
-- processes, or two studies ('study') point by point, the same point; a
-- row per pair as ranread_compare gives it, pair its processes or point.
-- First the arguments, or the error that names the function fn and the
-- argument: the ids (named args), min_factor and alpha; kind NULL checks
-- min_factor and alpha only (ranread_compare, whose histograms name its
-- batches) and returns no row.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_compare_pairs(fn text, kind text, args text[], ids bigint[],
                                                                   min_factor float8, alpha float8)
RETURNS TABLE (pair jsonb, batch_a bigint, batch_b bigint, verdict text, factor numeric(12,3),
               confidence float8, p50_a_ms numeric(15,3), p50_b_ms numeric(15,3),
               p99_a_ms numeric(15,3), p99_b_ms numeric(15,3))
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    lists constant text := CASE kind WHEN 'sweep' THEN 'ranread_sweeps' ELSE 'ranread_study_overview' END;
BEGIN
    FOR i IN 1 .. coalesce(cardinality(args), 0) LOOP
        PERFORM ranread_internal.ranread_require(fn, args[i], ids[i], format('A %s''s id (%s lists them).', kind, lists));
        IF NOT (CASE kind WHEN 'sweep' THEN EXISTS (SELECT FROM @extschema@.ranread_sweeps s WHERE s.sweep = ids[i])
                          ELSE EXISTS (SELECT FROM @extschema@.ranread_studies s WHERE s.study = ids[i]) END) THEN
            RAISE EXCEPTION USING ERRCODE = 'undefined_object',
                MESSAGE = format('%s of %s: %s %s does not exist', args[i], fn, kind, ids[i]),
                HINT = format('%s lists the %s.', lists, CASE kind WHEN 'sweep' THEN 'sweeps' ELSE 'studies' END);
        END IF;
    END LOOP;
    PERFORM ranread_internal.ranread_require(fn, 'min_factor', min_factor, 'min_factor is the change of p50 or p99 that counts, such as 1.25.');
    PERFORM ranread_internal.ranread_require(fn, 'alpha', alpha, 'alpha is the significance level of the tests, such as 0.001.');
    IF NOT (min_factor >= 1 AND min_factor <= 1000) THEN
        RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('min_factor of %s must be between 1 and 1000, not %s', fn, min_factor),
            HINT = 'min_factor is the change of p50 or p99 that counts, such as 1.25 (25% slower).';
    END IF;
    IF NOT (alpha > 0 AND alpha < 1) THEN
        RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('alpha of %s must be above 0 and below 1, not %s', fn, alpha),
            HINT = 'alpha is the significance level of the tests, such as 0.001.';
    END IF;
    IF kind IS NULL THEN
        RETURN;
    END IF;
    -- a ratio over a percentile of 0 is infinite: NULL (numeric(12,3) holds
    -- below 1e9)
    RETURN QUERY
    SELECT CASE kind WHEN 'sweep' THEN pg_catalog.to_jsonb(a.processes) ELSE a.point END, a.batch, b.batch, c.verdict,
           (CASE WHEN abs(c.factor) < 1e9 THEN c.factor END)::numeric(12,3), c.confidence,
           c.p50_a_ms::numeric(15,3), c.p50_b_ms::numeric(15,3), c.p99_a_ms::numeric(15,3), c.p99_b_ms::numeric(15,3)
      FROM @extschema@.ranread_batches a
      JOIN @extschema@.ranread_batches b
           ON (CASE kind WHEN 'sweep' THEN b.sweep = ids[2] AND b.processes = a.processes
                         ELSE b.study = ids[2] AND b.point = a.point END)
           AND b.histogram IS NOT NULL AND @extschema@.ranread_hist_count(b.histogram) > 0
     CROSS JOIN LATERAL @extschema@.ranread_hist_compare(a.histogram, b.histogram, min_factor, alpha) c
     WHERE (CASE kind WHEN 'sweep' THEN a.sweep = ids[1] ELSE a.study = ids[1] END)
       AND a.histogram IS NOT NULL AND @extschema@.ranread_hist_count(a.histogram) > 0;
END
$$;

-- Two batches compared from their merged latency histograms: is batch_b
-- slower than batch_a, faster, or the same (ranread_hist_compare), by
-- which test (decided_by), and the factor with its interval (factor_low,
-- factor_high, at 1 - alpha at least)
CREATE OR REPLACE FUNCTION @extschema@.ranread_compare(batch_a bigint, batch_b bigint,
    min_factor float8 DEFAULT 1.25, alpha float8 DEFAULT 0.001)
RETURNS TABLE (verdict text, factor numeric(12,3), confidence float8, p_value float8, decided_by text,
               ios_a bigint, ios_b bigint, p50_a_ms numeric(15,3), p50_b_ms numeric(15,3),
               p99_a_ms numeric(15,3), p99_b_ms numeric(15,3), p50_ratio numeric(12,3), p99_ratio numeric(12,3),
               factor_low numeric(12,3), factor_high numeric(12,3))
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    ha bytea := ranread_internal.ranread_batch_histogram('ranread_compare', 'batch_a', batch_a);
    hb bytea := ranread_internal.ranread_batch_histogram('ranread_compare', 'batch_b', batch_b);
BEGIN
    PERFORM * FROM ranread_internal.ranread_compare_pairs('ranread_compare', NULL, NULL, NULL, min_factor, alpha);
    -- a ratio over a percentile of 0 is infinite: NULL here (numeric(12,3)
    -- holds below 1e9)
    RETURN QUERY
    SELECT c.verdict, (CASE WHEN abs(c.factor) < 1e9 THEN c.factor END)::numeric(12,3), c.confidence, c.p_value,
           c.decided_by, c.ios_a, c.ios_b,
           c.p50_a_ms::numeric(15,3), c.p50_b_ms::numeric(15,3), c.p99_a_ms::numeric(15,3), c.p99_b_ms::numeric(15,3),
           (CASE WHEN abs(c.p50_ratio) < 1e9 THEN c.p50_ratio END)::numeric(12,3),
           (CASE WHEN abs(c.p99_ratio) < 1e9 THEN c.p99_ratio END)::numeric(12,3),
           (CASE WHEN abs(c.factor_low) < 1e9 THEN c.factor_low END)::numeric(12,3),
           (CASE WHEN abs(c.factor_high) < 1e9 THEN c.factor_high END)::numeric(12,3)
      FROM @extschema@.ranread_hist_compare(ha, hb, min_factor, alpha) c;
END
$$;

-- Two sweeps compared step by step (the steps of the same processes), or
-- two studies point by point (the same point): a row per pair, as
-- ranread_compare gives it, named by its processes or point
CREATE OR REPLACE FUNCTION @extschema@.ranread_compare_sweeps(sweep_a bigint, sweep_b bigint,
    min_factor float8 DEFAULT 1.25, alpha float8 DEFAULT 0.001)
RETURNS TABLE (processes integer, batch_a bigint, batch_b bigint, verdict text, factor numeric(12,3),
               confidence float8, p50_a_ms numeric(15,3), p50_b_ms numeric(15,3),
               p99_a_ms numeric(15,3), p99_b_ms numeric(15,3))
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT (p.pair #>> '{}')::integer, p.batch_a, p.batch_b, p.verdict, p.factor, p.confidence,
           p.p50_a_ms, p.p50_b_ms, p.p99_a_ms, p.p99_b_ms
      FROM ranread_internal.ranread_compare_pairs('ranread_compare_sweeps', 'sweep', ARRAY['sweep_a', 'sweep_b'],
                                                  ARRAY[sweep_a, sweep_b], min_factor, alpha) p
     ORDER BY 1, 2, 3
$$;

CREATE OR REPLACE FUNCTION @extschema@.ranread_compare_studies(study_a bigint, study_b bigint,
    min_factor float8 DEFAULT 1.25, alpha float8 DEFAULT 0.001)
RETURNS TABLE (point jsonb, batch_a bigint, batch_b bigint, verdict text, factor numeric(12,3),
               confidence float8, p50_a_ms numeric(15,3), p50_b_ms numeric(15,3),
               p99_a_ms numeric(15,3), p99_b_ms numeric(15,3))
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT p.*
      FROM ranread_internal.ranread_compare_pairs('ranread_compare_studies', 'study', ARRAY['study_a', 'study_b'],
                                                  ARRAY[study_a, study_b], min_factor, alpha) p
     ORDER BY p.batch_a, p.batch_b
$$;

-- Sets what a tablespace's probes are judged by (ranread_health_thresholds)
-- and returns the row; thresholds out of order are an error that names
-- the argument.  hold_probes (1.2): how many probes in a row must show a
-- status before the tablespace takes it (ranread_health_hold).
CREATE OR REPLACE FUNCTION @extschema@.ranread_health_set(tablespace name,
    p99_degraded_ms float8 DEFAULT 5, p99_critical_ms float8 DEFAULT 10,
    slower_factor float8 DEFAULT 1.25, baseline_probes integer DEFAULT 5,
    alpha float8 DEFAULT 0.001, hold_probes integer DEFAULT 3)
RETURNS @extschema@.ranread_health_thresholds
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    fn constant text := 'ranread_health_set';
    r @extschema@.ranread_health_thresholds;
BEGIN
    PERFORM ranread_internal.ranread_primary_only(fn);
    PERFORM ranread_internal.ranread_watch_tablespace(fn, 'tablespace', tablespace);
    PERFORM ranread_internal.ranread_require(fn, 'p99_degraded_ms', p99_degraded_ms);
    PERFORM ranread_internal.ranread_require(fn, 'p99_critical_ms', p99_critical_ms);
    PERFORM ranread_internal.ranread_require(fn, 'slower_factor', slower_factor);
    PERFORM ranread_internal.ranread_require(fn, 'baseline_probes', baseline_probes);
    PERFORM ranread_internal.ranread_require(fn, 'alpha', alpha);
    PERFORM ranread_internal.ranread_require(fn, 'hold_probes', hold_probes);
    IF NOT (p99_degraded_ms > 0 AND p99_degraded_ms < 137000) THEN
        RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('p99_degraded_ms of %s must be above 0 and below 137000 ms, not %s', fn, p99_degraded_ms),
            HINT = 'p99_degraded_ms is the p99 latency above which the status is degraded, such as 5.';
    END IF;
    IF NOT (p99_critical_ms > p99_degraded_ms AND p99_critical_ms < 137000) THEN
        RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('p99_critical_ms of %s must be above p99_degraded_ms (%s ms) and below 137000 ms, not %s',
                             fn, p99_degraded_ms, p99_critical_ms),
            HINT = 'The thresholds go up: degraded first, then critical, such as 5 and 10.';
    END IF;
    IF NOT (slower_factor >= 1 AND slower_factor <= 1000) THEN
        RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('slower_factor of %s must be between 1 and 1000, not %s', fn, slower_factor),
            HINT = 'slower_factor is the change of p50 or p99 against the baseline that counts, such as 1.25.';
    END IF;
    IF NOT (baseline_probes BETWEEN 1 AND 1000) THEN
        RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('baseline_probes of %s must be between 1 and 1000, not %s', fn, baseline_probes),
            HINT = 'baseline_probes is how many first probes make the baseline when none is pinned, such as 5.';
    END IF;
    -- below 1e-12 no test of a probe's few thousand I/Os is ever
    -- significant (every verdict would be 'same'); above 0.5 half of them
    -- would be, by chance
    IF NOT (alpha >= 1e-12 AND alpha <= 0.5) THEN
        RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('alpha of %s must be between 1e-12 and 0.5, not %s', fn, alpha),
            HINT = 'alpha is the significance level of the comparison, such as 0.001 (the default).';
    END IF;
    -- one probe never changes a status: at least two in a row
    IF NOT (hold_probes BETWEEN 2 AND 100) THEN
        RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('hold_probes of %s must be between 2 and 100, not %s', fn, hold_probes),
            HINT = 'hold_probes is how many probes in a row must show a status before the tablespace takes it, such as 3: one probe never changes it.';
    END IF;
    INSERT INTO @extschema@.ranread_health_thresholds AS t
           (tablespace, p99_degraded_ms, p99_critical_ms, slower_factor, baseline_probes, alpha, hold_probes)
    VALUES (ranread_health_set.tablespace, p99_degraded_ms, p99_critical_ms, slower_factor, baseline_probes, alpha,
            hold_probes)
    ON CONFLICT ON CONSTRAINT ranread_health_thresholds_pkey DO UPDATE
       SET p99_degraded_ms = excluded.p99_degraded_ms, p99_critical_ms = excluded.p99_critical_ms,
           slower_factor = excluded.slower_factor, baseline_probes = excluded.baseline_probes,
           alpha = excluded.alpha, hold_probes = excluded.hold_probes
    RETURNING t.* INTO r;
    RETURN r;
END
$$;

-- Pins a tablespace's baseline to chosen batches (their merged histogram):
-- every later probe is compared with it.  Each batch must have measured
-- that tablespace with a probe's workload (one process at queue depth 1,
-- random 8 KiB reads, no writes, one group, uniform over the whole target;
-- paced or not): a batch of another tablespace or workload is refused,
-- naming what differs, since every later verdict would then be about that
-- difference and not about the storage, without a word in any of them.
CREATE OR REPLACE FUNCTION @extschema@.ranread_baseline_set(tablespace name, batches bigint[])
RETURNS @extschema@.ranread_baselines
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    fn constant text := 'ranread_baseline_set';
    id bigint;
    merged bytea;
    r @extschema@.ranread_baselines;
    bx record;
    differs text;
BEGIN
    PERFORM ranread_internal.ranread_primary_only(fn);
    PERFORM ranread_internal.ranread_watch_tablespace(fn, 'tablespace', tablespace);
    PERFORM ranread_internal.ranread_require(fn, 'batches', batches, 'An array of batch ids, such as ''{12,13,14}''.');
    IF array_ndims(batches) > 1 THEN
        RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('batches of %s must be a one-dimensional array of batch ids, not %s', fn, batches),
            HINT = 'An array of batch ids, such as ''{12,13,14}'' (ranread_summary lists them).';
    END IF;
    IF cardinality(batches) = 0 OR cardinality(batches) > 10000 OR array_position(batches, NULL) IS NOT NULL THEN
        RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('batches of %s must hold 1 to 10000 batch ids and no null, not %s', fn, batches),
            HINT = 'An array of batch ids, such as ''{12,13,14}'' (ranread_summary lists them).';
    END IF;
    FOREACH id IN ARRAY batches LOOP
        PERFORM ranread_internal.ranread_batch_histogram(fn, 'batches', id);
        SELECT b.tablespace, b.processes, b.queue_depth, b.block_size, b.write_pct, b.pattern,
               coalesce(b.groups, 1) AS groups, coalesce(b.distribution, 'uniform') AS distribution,
               b.region_start, b.region_end, b.sync, b.commit_test
          INTO bx FROM @extschema@.ranread_batches b WHERE b.batch = id;
        IF bx.tablespace IS DISTINCT FROM ranread_baseline_set.tablespace THEN
            RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
                MESSAGE = format('batches of %s: batch %s measured tablespace %s, not %s', fn, id,
                                 coalesce(bx.tablespace::text, 'unknown'), ranread_baseline_set.tablespace),
                HINT = format('A baseline is compared with the probes of its own tablespace: pin it to batches that measured %s (ranread_probe_verdicts lists its probes).',
                              ranread_baseline_set.tablespace);
        END IF;
        differs := concat_ws(', ',
            CASE WHEN bx.groups <> 1 OR bx.commit_test IS NOT NULL THEN format('%s groups', bx.groups) END,
            CASE WHEN bx.processes IS DISTINCT FROM 1 THEN format('%s processes', bx.processes) END,
            CASE WHEN bx.queue_depth IS DISTINCT FROM 1 THEN format('queue depth %s', bx.queue_depth) END,
            CASE WHEN bx.block_size IS DISTINCT FROM 8192 THEN format('block size %s', bx.block_size) END,
            CASE WHEN bx.write_pct IS DISTINCT FROM 0 THEN format('%s%% writes', bx.write_pct) END,
            CASE WHEN bx.pattern IS DISTINCT FROM 'random' THEN format('%s I/O', bx.pattern) END,
            CASE WHEN bx.sync IS NOT NULL THEN format('synced by %s', bx.sync) END,
            CASE WHEN bx.distribution <> 'uniform' THEN format('distribution %s', bx.distribution) END,
            CASE WHEN bx.region_start IS DISTINCT FROM 0 OR bx.region_end IS DISTINCT FROM 100
                 THEN format('region %s%% to %s%%', bx.region_start, bx.region_end) END);
        IF differs <> '' THEN
            RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
                MESSAGE = format('batches of %s: batch %s is not a probe''s workload: %s', fn, id, differs),
                HINT = 'A baseline is compared with probes: one process at queue depth 1, random 8 KiB reads, no writes, uniform over the whole target. Pin it to probes (ranread_probe_verdicts lists them) or batches of that workload.';
        END IF;
    END LOOP;
    SELECT @extschema@.ranread_hist_merge(b.histogram) INTO merged
      FROM @extschema@.ranread_batches b WHERE b.batch = ANY (ranread_baseline_set.batches);
    INSERT INTO @extschema@.ranread_baselines AS x (tablespace, batches, histogram, pinned, since, set_at)
    VALUES (ranread_baseline_set.tablespace, ARRAY(SELECT DISTINCT u FROM unnest(ranread_baseline_set.batches) u ORDER BY u),
            merged, true, now(), now())
    ON CONFLICT ON CONSTRAINT ranread_baselines_pkey DO UPDATE
       SET batches = excluded.batches, histogram = excluded.histogram, pinned = true,
           since = excluded.since, set_at = excluded.set_at, left_out = '{}', left_out_reason = NULL
    RETURNING x.* INTO r;
    RETURN r;
END
$$;

-- One row per watched tablespace (a probe, a baseline or thresholds): its
-- last probe, its figures, its baseline, the change, the verdict and the
-- status, since when it has that status, and its thresholds
CREATE OR REPLACE VIEW @extschema@.ranread_health AS
SELECT w.tablespace,
       l.batch AS last_batch,
       l.probed_at AS last_probe_at,
       l.p50_ms::numeric(15,3) AS p50_ms,
       l.p99_ms::numeric(15,3) AS p99_ms,
       round(l.iops)::bigint AS iops,
       (CASE WHEN bl.histogram IS NOT NULL AND (bl.pinned OR cardinality(bl.batches) >= thr.baseline_probes)
             THEN @extschema@.ranread_hist_percentile(bl.histogram, 50) END)::numeric(15,3) AS baseline_p50_ms,
       (CASE WHEN bl.histogram IS NOT NULL AND (bl.pinned OR cardinality(bl.batches) >= thr.baseline_probes)
             THEN @extschema@.ranread_hist_percentile(bl.histogram, 99) END)::numeric(15,3) AS baseline_p99_ms,
       -- NULL for a factor that numeric(12,3) cannot hold (infinite: a
       -- baseline p99 of 0), so that one row cannot break the view
       (CASE WHEN abs(l.p99_factor) < 1e9 THEN l.p99_factor END)::numeric(12,3) AS change,
       l.verdict,
       (CASE WHEN abs(l.factor) < 1e9 THEN l.factor END)::numeric(12,3) AS factor,
       l.confidence,
       coalesce(l.status, 'unknown') AS status,
       (SELECT min(v.probed_at) FROM @extschema@.ranread_probe_verdicts v
         WHERE v.tablespace = w.tablespace
           AND v.probed_at > coalesce((SELECT max(o.probed_at) FROM @extschema@.ranread_probe_verdicts o
                                        WHERE o.tablespace = w.tablespace AND o.status <> l.status), '-infinity')) AS since,
       (SELECT count(*) FROM @extschema@.ranread_probe_verdicts v WHERE v.tablespace = w.tablespace) AS probes,
       coalesce(cardinality(bl.batches), 0) AS baseline_batches,
       coalesce(bl.pinned, false) AS baseline_pinned,
       thr.p99_degraded_ms,
       thr.p99_critical_ms,
       thr.slower_factor,
       l.reason,
       l.probe_status,
       l.test,
       l.effect,
       (CASE WHEN abs(l.factor_low) < 1e9 THEN l.factor_low END)::numeric(12,3) AS factor_low,
       (CASE WHEN abs(l.factor_high) < 1e9 THEN l.factor_high END)::numeric(12,3) AS factor_high,
       l.probes AS status_probes,
       thr.hold_probes,
       coalesce(bl.left_out, '{}') AS baseline_left_out
  FROM (SELECT v.tablespace FROM @extschema@.ranread_probe_verdicts v
        UNION SELECT b.tablespace FROM @extschema@.ranread_baselines b
        UNION SELECT t.tablespace FROM @extschema@.ranread_health_thresholds t) w
  LEFT JOIN LATERAL (SELECT v.* FROM @extschema@.ranread_probe_verdicts v WHERE v.tablespace = w.tablespace
                      ORDER BY v.probed_at DESC, v.batch DESC LIMIT 1) l ON true
  LEFT JOIN @extschema@.ranread_baselines bl ON bl.tablespace = w.tablespace
  CROSS JOIN LATERAL ranread_internal.ranread_health_thresholds_of(w.tablespace) thr;

-- Readers of the history (pg_monitor) compare batches and see the health
GRANT SELECT ON @extschema@.ranread_health TO pg_monitor;
GRANT EXECUTE ON FUNCTION
    @extschema@.ranread_compare(bigint, bigint, float8, float8),
    @extschema@.ranread_compare_sweeps(bigint, bigint, float8, float8),
    @extschema@.ranread_compare_studies(bigint, bigint, float8, float8),
    ranread_internal.ranread_compare_pairs(text, text, text[], bigint[], float8, float8) TO pg_monitor;

COMMENT ON FUNCTION ranread_internal.ranread_compare_pairs(text, text, text[], bigint[], float8, float8) IS
    'Internal: two sweeps or two studies compared pair by pair (the body of ranread_compare_sweeps and ranread_compare_studies), after their arguments, whose errors name the function called';
COMMENT ON FUNCTION @extschema@.ranread_compare(bigint, bigint, float8, float8) IS
    'two batches compared from their merged latency histograms: is batch_b same, slower or faster than batch_a, by what factor and with what confidence (ranread_hist_compare)';
COMMENT ON FUNCTION @extschema@.ranread_compare_sweeps(bigint, bigint, float8, float8) IS
    'two sweeps compared step by step (the steps of the same processes), as ranread_compare compares two batches';
COMMENT ON FUNCTION @extschema@.ranread_compare_studies(bigint, bigint, float8, float8) IS
    'two studies compared point by point (the same point), as ranread_compare compares two batches';
COMMENT ON FUNCTION @extschema@.ranread_health_set(name, float8, float8, float8, integer, float8, integer) IS
    'sets what a tablespace''s probes are judged by: p99 above p99_degraded_ms is degraded, above p99_critical_ms critical (exact binomial test), slower_factor the change that counts, baseline_probes the first probes that make a baseline, alpha the tests'' level, hold_probes the probes in a row a change of status needs';
COMMENT ON FUNCTION @extschema@.ranread_baseline_set(name, bigint[]) IS
    'pins a tablespace''s baseline to chosen batches (their merged latency histogram): every later probe is compared with it; each must have measured that tablespace with a probe''s workload';
COMMENT ON VIEW @extschema@.ranread_health IS
    'ranread watch: one row per watched tablespace: last probe, p50, p99, IOPS, baseline p99, change, verdict, status (ok, slower, degraded, critical, unknown: held until hold_probes probes in a row show another) and since when, the test and effect that decided the last probe''s reading and the probes the status rests on';
COMMENT ON COLUMN @extschema@.ranread_health.change IS 'the last probe''s p99 over its baseline''s p99';
COMMENT ON COLUMN @extschema@.ranread_health.p50_ms IS 'the last probe''s median latency (ms)';
COMMENT ON COLUMN @extschema@.ranread_health.p99_ms IS 'the last probe''s 99th percentile latency (ms)';
COMMENT ON COLUMN @extschema@.ranread_health.baseline_p50_ms IS 'the baseline''s median latency (ms)';
COMMENT ON COLUMN @extschema@.ranread_health.baseline_p99_ms IS 'the baseline''s 99th percentile latency (ms)';
COMMENT ON COLUMN @extschema@.ranread_health.status IS
    'critical or degraded: p99 above the thresholds (exact binomial test), slower: slower than the baseline, ok: neither, each shown by the last hold_probes probes in a row (a status holds until that many show another); unknown: fewer probes judged';
COMMENT ON COLUMN @extschema@.ranread_health.probe_status IS 'what the last probe alone shows (the status follows only hold_probes in a row)';
COMMENT ON COLUMN @extschema@.ranread_health.test IS 'the test that decided the last probe''s reading, with its p-value and alpha';
COMMENT ON COLUMN @extschema@.ranread_health.effect IS 'the effect that test measured, with its interval';
COMMENT ON COLUMN @extschema@.ranread_health.status_probes IS 'the probes the status rests on: the last hold_probes judged probes, oldest first';
COMMENT ON COLUMN @extschema@.ranread_health.baseline_left_out IS 'the probes the automatic baseline left out (ranread_baselines.left_out_reason says why)';
COMMENT ON COLUMN @extschema@.ranread_health.since IS 'the first probe of the tablespace''s current status';
