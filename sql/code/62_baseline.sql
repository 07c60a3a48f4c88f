-- 1.1, keeping watch on the storage (docs/keeping-watch.md, "Keeping watch"):
-- batches compared from their latency histograms, a baseline per tablespace, a
-- verdict and a health status for every probe (ranread_probes, in
-- 60_watch.sql), a NOTIFY and a WARNING when a tablespace's status changes.
-- How the comparison decides: src/compare.c and docs/design.md, "Comparing
-- batches and keeping watch".

-- The comparison of two latency histograms (src/compare.c): a Mann-Whitney
-- U test on the buckets for the middle, a two-proportion test on the share
-- above a side's p99 for the tail (100 I/Os or more), each with an effect size; "slower"
-- and "faster" need both a test significant at alpha and p50 or p99 at
-- least min_factor times apart, so that noise does not alarm.  factor is
-- b's percentile over a's.
CREATE OR REPLACE FUNCTION @extschema@.ranread_hist_compare(histogram_a bytea, histogram_b bytea,
    min_factor float8 DEFAULT 1.25, alpha float8 DEFAULT 0.001,
    OUT verdict text, OUT factor float8, OUT confidence float8, OUT p_value float8,
    OUT decided_by text, OUT ios_a bigint, OUT ios_b bigint,
    OUT p50_a_ms float8, OUT p50_b_ms float8, OUT p50_ratio float8,
    OUT p99_a_ms float8, OUT p99_b_ms float8, OUT p99_ratio float8,
    OUT shift float8, OUT p50_p_value float8, OUT p99_p_value float8)
RETURNS record
AS 'MODULE_PATHNAME', 'ranread_hist_compare'
LANGUAGE C CALLED ON NULL INPUT IMMUTABLE PARALLEL SAFE;

-- A histogram in stored form from latencies and their counts: for tests of
-- the comparison, and for samples of other tools
CREATE OR REPLACE FUNCTION ranread_internal.ranread_hist_make(latencies_ms float8[], counts bigint[])
RETURNS bytea
AS 'MODULE_PATHNAME', 'ranread_hist_make'
LANGUAGE C STRICT IMMUTABLE PARALLEL SAFE;

-- The latency histogram of a batch, or the error that names the argument
-- (arg) when there is no such batch or it has no histogram
CREATE OR REPLACE FUNCTION ranread_internal.ranread_batch_histogram(fn text, arg text, id bigint)
RETURNS bytea
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    b record;
BEGIN
    PERFORM ranread_internal.ranread_require(fn, arg, id, 'A batch''s id (ranread_summary lists them).');
    SELECT x.histogram, x.status INTO b FROM @extschema@.ranread_batches x WHERE x.batch = id;
    IF NOT FOUND THEN
        RAISE EXCEPTION USING ERRCODE = 'undefined_object',
            MESSAGE = format('%s of %s: batch %s does not exist', arg, fn, id),
            HINT = 'ranread_summary lists the batches.';
    END IF;
    IF b.histogram IS NULL OR @extschema@.ranread_hist_count(b.histogram) = 0 THEN
        RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('%s of %s: batch %s has no latency histogram (status %s)', arg, fn, id, b.status),
            HINT = 'Only a batch that did I/O and was recorded (completed or stopped) can be compared.';
    END IF;
    RETURN b.histogram;
END
$$;

-- The tablespace named by arg of fn, or the error that says it does not
-- exist; a tablespace that is gone but still has watch rows is accepted
-- where gone_ok (so that its baseline can still be reset)
CREATE OR REPLACE FUNCTION ranread_internal.ranread_watch_tablespace(fn text, arg text, ts name,
    gone_ok boolean DEFAULT false)
RETURNS name
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM ranread_internal.ranread_require(fn, arg, ts, 'A tablespace''s name (\db in psql lists them).');
    IF NOT EXISTS (SELECT FROM pg_catalog.pg_tablespace t WHERE t.spcname = ts)
       AND NOT (gone_ok AND (EXISTS (SELECT FROM @extschema@.ranread_baselines b WHERE b.tablespace = ts)
                             OR EXISTS (SELECT FROM @extschema@.ranread_probe_verdicts v WHERE v.tablespace = ts))) THEN
        RAISE EXCEPTION USING ERRCODE = 'undefined_object',
            MESSAGE = format('%s of %s: tablespace "%s" does not exist', arg, fn, ts),
            HINT = 'See \db in psql for the tablespaces of this server.';
    END IF;
    RETURN ts;
END
$$;

-- A tablespace's thresholds: its row, or the defaults
CREATE OR REPLACE FUNCTION ranread_internal.ranread_health_thresholds_of(ts name)
RETURNS @extschema@.ranread_health_thresholds
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT d.tablespace, d.p99_degraded_ms, d.p99_critical_ms, d.slower_factor, d.baseline_probes, d.alpha
      FROM (SELECT t.tablespace, t.p99_degraded_ms, t.p99_critical_ms, t.slower_factor, t.baseline_probes, t.alpha, 0 AS o
              FROM @extschema@.ranread_health_thresholds t WHERE t.tablespace = ts
            UNION ALL
            SELECT ts, 5::float8, 10::float8, 1.25::float8, 5, 0.001::float8, 1) d
     ORDER BY d.o LIMIT 1
$$;

-- Forgets a tablespace's baseline: the next baseline_probes probes make a
-- new one.  True when there was one.
CREATE OR REPLACE FUNCTION @extschema@.ranread_baseline_reset(tablespace name)
RETURNS boolean
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    fn constant text := 'ranread_baseline_reset';
    had boolean;
BEGIN
    PERFORM ranread_internal.ranread_primary_only(fn);
    PERFORM ranread_internal.ranread_watch_tablespace(fn, 'tablespace', tablespace, gone_ok => true);
    SELECT b.histogram IS NOT NULL INTO had FROM @extschema@.ranread_baselines b
     WHERE b.tablespace = ranread_baseline_reset.tablespace FOR UPDATE;
    INSERT INTO @extschema@.ranread_baselines AS x (tablespace, batches, histogram, pinned, since, set_at)
    VALUES (ranread_baseline_reset.tablespace, '{}', NULL, false, now(), now())
    ON CONFLICT ON CONSTRAINT ranread_baselines_pkey DO UPDATE
       SET batches = '{}', histogram = NULL, pinned = false, since = excluded.since, set_at = excluded.set_at;
    RETURN coalesce(had, false);
END
$$;

-- The status of a probe from its p99 and its verdict, by the thresholds:
-- critical, degraded, slower (than its baseline), ok; unknown without p99
CREATE OR REPLACE FUNCTION ranread_internal.ranread_health_status(p99_ms float8, verdict text,
    thr @extschema@.ranread_health_thresholds)
RETURNS text
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN p99_ms IS NULL THEN 'unknown'
                WHEN p99_ms > thr.p99_critical_ms THEN 'critical'
                WHEN p99_ms > thr.p99_degraded_ms THEN 'degraded'
                WHEN verdict = 'slower' THEN 'slower'
                ELSE 'ok' END
$$;

-- The trigger on ranread_probes: the probe's verdict against its
-- tablespace's baseline (or the probe joins the baseline being made), its
-- status; when the status changes from the tablespace's latest, a NOTIFY
-- on channel ranread_health (a JSON payload) and a WARNING in the log
--
-- It runs as the extension's owner (SECURITY DEFINER): a role granted 'run'
-- records a probe (INSERT on ranread_probes) but not the verdicts and
-- baselines the probe's judgement writes.  A trigger function cannot be
-- called by itself, every name in it is qualified and its search_path is
-- pinned, so all it can do for the caller is judge a probe row.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_probe_judge()
RETURNS trigger
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    thr @extschema@.ranread_health_thresholds := ranread_internal.ranread_health_thresholds_of(NEW.tablespace);
    b record;
    bl @extschema@.ranread_baselines;
    prev record;
    c record;
    s record;
    v @extschema@.ranread_probe_verdicts;
    payload jsonb;
BEGIN
    v.batch := NEW.batch;
    v.tablespace := NEW.tablespace;
    v.probed_at := NEW.probed_at;
    SELECT x.histogram, x.iops, x.status INTO b FROM @extschema@.ranread_batches x WHERE x.batch = NEW.batch;
    SELECT w.status, w.probed_at INTO prev FROM @extschema@.ranread_probe_verdicts w
     WHERE w.tablespace = NEW.tablespace AND w.batch <> NEW.batch
     ORDER BY w.probed_at DESC, w.batch DESC LIMIT 1;

    -- the baseline, made when the tablespace has none yet (locked: two
    -- probes of one tablespace at once take turns)
    INSERT INTO @extschema@.ranread_baselines (tablespace, since)
    VALUES (NEW.tablespace, NEW.probed_at) ON CONFLICT DO NOTHING;
    SELECT x.* INTO bl FROM @extschema@.ranread_baselines x WHERE x.tablespace = NEW.tablespace FOR UPDATE;

    IF NOT FOUND OR b.histogram IS NULL OR @extschema@.ranread_hist_count(b.histogram) = 0 THEN
        v.status := 'unknown';
        v.reason := CASE WHEN b IS NULL THEN format('batch %s is not in ranread_batches', NEW.batch)
                         ELSE format('batch %s has no latency histogram (status %s)', NEW.batch, b.status) END;
    ELSE
        v.ios := @extschema@.ranread_hist_count(b.histogram);
        v.iops := b.iops;
        v.p50_ms := @extschema@.ranread_hist_percentile(b.histogram, 50);
        v.p99_ms := @extschema@.ranread_hist_percentile(b.histogram, 99);
        IF bl.histogram IS NOT NULL AND (bl.pinned OR cardinality(bl.batches) >= thr.baseline_probes) THEN
            SELECT x.* INTO c FROM @extschema@.ranread_hist_compare(bl.histogram, b.histogram, thr.slower_factor, thr.alpha) x;
            v.baseline_p50_ms := c.p50_a_ms;
            v.baseline_p99_ms := c.p99_a_ms;
            v.p50_factor := c.p50_ratio;
            v.p99_factor := c.p99_ratio;
            v.verdict := c.verdict;
            v.factor := c.factor;
            v.confidence := c.confidence;
            IF c.verdict <> 'same' THEN
                -- the I/Os of one probe are not independent (a burst of
                -- load slows many in a row), so a change must also reach
                -- past the spread of the baseline's own batches: slower
                -- than slower_factor x the slowest of them, faster than
                -- the fastest / slower_factor, in a percentile whose test
                -- is significant
                SELECT max(@extschema@.ranread_hist_percentile(x.histogram, 50)) AS max50,
                       min(@extschema@.ranread_hist_percentile(x.histogram, 50)) AS min50,
                       max(@extschema@.ranread_hist_percentile(x.histogram, 99)) AS max99,
                       min(@extschema@.ranread_hist_percentile(x.histogram, 99)) AS min99
                  INTO s
                  FROM @extschema@.ranread_batches x
                 WHERE x.batch = ANY (bl.batches) AND x.histogram IS NOT NULL;
                v.verdict := CASE
                    WHEN (c.p50_p_value < thr.alpha AND v.p50_ms >= thr.slower_factor * greatest(c.p50_a_ms, s.max50))
                      OR (c.p99_p_value < thr.alpha AND v.p99_ms >= thr.slower_factor * greatest(c.p99_a_ms, s.max99))
                        THEN 'slower'
                    WHEN (c.p50_p_value < thr.alpha AND v.p50_ms * thr.slower_factor <= least(c.p50_a_ms, s.min50))
                      OR (c.p99_p_value < thr.alpha AND v.p99_ms * thr.slower_factor <= least(c.p99_a_ms, s.min99))
                        THEN 'faster'
                    ELSE 'same' END;
                IF v.verdict = 'same' THEN
                    v.factor := c.p99_ratio;
                    v.reason := format('within the spread of its baseline''s batches (p99 %sx, p50 %sx)',
                                       round(c.p99_ratio::numeric, 2), round(c.p50_ratio::numeric, 2));
                END IF;
            END IF;
            IF v.reason IS NULL THEN
                v.reason := CASE v.verdict WHEN 'same' THEN format('as its baseline (p99 %sx, p50 %sx)',
                                                                   round(c.p99_ratio::numeric, 2), round(c.p50_ratio::numeric, 2))
                                 ELSE format('%s than its baseline: %s %sx (p %s)', v.verdict, c.decided_by,
                                             round(c.factor::numeric, 2), to_char(c.p_value, '9.9EEEE')) END;
            END IF;
        ELSIF NEW.probed_at >= bl.since AND NOT NEW.batch = ANY (bl.batches) THEN
            -- one of the first probes: it joins the baseline being made
            UPDATE @extschema@.ranread_baselines x
               SET batches = x.batches || NEW.batch,
                   histogram = (SELECT @extschema@.ranread_hist_merge(h) FROM unnest(ARRAY[x.histogram, b.histogram]) h
                                 WHERE h IS NOT NULL),
                   set_at = CASE WHEN cardinality(x.batches) + 1 >= thr.baseline_probes THEN now() END
             WHERE x.tablespace = NEW.tablespace;
            v.verdict := 'baseline';
            v.reason := format('probe %s of the %s that make the baseline', cardinality(bl.batches) + 1, thr.baseline_probes);
        ELSE
            v.reason := 'older than the baseline: not compared';
        END IF;
        v.status := ranread_internal.ranread_health_status(v.p99_ms, v.verdict, thr);
    END IF;
    v.previous_status := prev.status;
    INSERT INTO @extschema@.ranread_probe_verdicts VALUES (v.*)
    ON CONFLICT (batch) DO NOTHING;

    -- a change of status, told once: not for a probe older than the latest
    -- one, nor for a first probe that is ok
    IF v.status IS DISTINCT FROM prev.status AND (prev.probed_at IS NULL OR prev.probed_at <= NEW.probed_at)
       AND NOT (prev.status IS NULL AND v.status = 'ok') THEN
        payload := jsonb_build_object('tablespace', NEW.tablespace, 'status', v.status,
                       'previous_status', prev.status, 'batch', NEW.batch, 'probed_at', NEW.probed_at,
                       'verdict', v.verdict, 'factor', round(v.factor::numeric, 3),
                       'p99_ms', round(v.p99_ms::numeric, 3), 'baseline_p99_ms', round(v.baseline_p99_ms::numeric, 3),
                       'reason', v.reason);
        PERFORM pg_notify('ranread_health', payload::text);
        RAISE WARNING USING
            MESSAGE = format('ranread: tablespace "%s" is now %s (was %s): probe %s, p99 %s ms',
                             NEW.tablespace, v.status, coalesce(prev.status, 'not probed'), NEW.batch,
                             coalesce(round(v.p99_ms::numeric, 3)::text, 'n/a')),
            DETAIL = v.reason,
            HINT = 'SELECT * FROM ranread_health shows every watched tablespace.';
    END IF;
    RETURN NULL;
END
$$;

CREATE OR REPLACE TRIGGER ranread_probe_judge AFTER INSERT ON @extschema@.ranread_probes
    FOR EACH ROW EXECUTE FUNCTION ranread_internal.ranread_probe_judge();

-- Readers of the history (pg_monitor) see the watch and compare batches
GRANT SELECT ON @extschema@.ranread_probe_verdicts,
                @extschema@.ranread_baselines, @extschema@.ranread_health_thresholds TO pg_monitor;
GRANT EXECUTE ON FUNCTION
    @extschema@.ranread_hist_compare(bytea, bytea, float8, float8),
    ranread_internal.ranread_batch_histogram(text, text, bigint),
    ranread_internal.ranread_watch_tablespace(text, text, name, boolean),
    ranread_internal.ranread_health_thresholds_of(name) TO pg_monitor;

COMMENT ON FUNCTION @extschema@.ranread_hist_compare(bytea, bytea, float8, float8) IS
    'two latency histograms compared: same, slower or faster (b against a), by a Mann-Whitney U test on the buckets (p50) and a test of the share above a side''s p99 (p99, with 100 I/Os or more on each side), each significant at alpha and at least min_factor apart; factor is b''s percentile over a''s';
COMMENT ON FUNCTION ranread_internal.ranread_hist_make(float8[], bigint[]) IS
    'Internal: a latency histogram in stored form from latencies (ms) and their counts';
COMMENT ON FUNCTION ranread_internal.ranread_batch_histogram(text, text, bigint) IS
    'Internal: the latency histogram of a batch, or the error that names the argument';
COMMENT ON TABLE @extschema@.ranread_health_thresholds IS
    'ranread watch: what a tablespace''s probes are judged by (p99 thresholds in ms, slower factor, probes of an automatic baseline, alpha); without a row, 5 ms, 10 ms, 1.25, 5 and 0.001';
COMMENT ON TABLE @extschema@.ranread_baselines IS
    'ranread watch: the baseline of each tablespace, the batches it merges and their merged latency histogram, pinned (ranread_baseline_set) or its first probes';
COMMENT ON TABLE @extschema@.ranread_probe_verdicts IS
    'ranread watch: a verdict per probe against its tablespace''s baseline (baseline, same, slower, faster) and its health status (ok, slower, degraded, critical, unknown)';
COMMENT ON COLUMN @extschema@.ranread_probe_verdicts.verdict IS
    'baseline: one of the first probes that make the baseline; same, slower or faster than the baseline (ranread_hist_compare); NULL: not compared';
COMMENT ON COLUMN @extschema@.ranread_probe_verdicts.factor IS
    'the probe''s p50 or p99 (the one that decided; p99 when same) over the baseline''s';
COMMENT ON COLUMN @extschema@.ranread_probe_verdicts.status IS
    'critical or degraded: p99 above the thresholds; slower: slower than the baseline; ok; unknown: the batch has no histogram';
COMMENT ON COLUMN @extschema@.ranread_probe_verdicts.p50_ms IS 'the probe''s median latency (ms)';
COMMENT ON COLUMN @extschema@.ranread_probe_verdicts.p99_ms IS 'the probe''s 99th percentile latency (ms)';
COMMENT ON COLUMN @extschema@.ranread_probe_verdicts.baseline_p50_ms IS 'the baseline''s median latency (ms)';
COMMENT ON COLUMN @extschema@.ranread_probe_verdicts.baseline_p99_ms IS 'the baseline''s 99th percentile latency (ms)';
COMMENT ON FUNCTION ranread_internal.ranread_watch_tablespace(text, text, name, boolean) IS
    'Internal: the tablespace named by an argument, or the error that says it does not exist';
COMMENT ON FUNCTION ranread_internal.ranread_health_thresholds_of(name) IS
    'Internal: a tablespace''s thresholds, its row or the defaults';
COMMENT ON FUNCTION @extschema@.ranread_baseline_reset(name) IS
    'forgets a tablespace''s baseline: its next probes make a new one; true when there was one';
COMMENT ON FUNCTION ranread_internal.ranread_health_status(float8, text, @extschema@.ranread_health_thresholds) IS
    'Internal: a probe''s status from its p99, its verdict and the thresholds';
COMMENT ON FUNCTION ranread_internal.ranread_probe_judge() IS
    'Internal: the trigger on ranread_probes: a probe''s verdict and status, a NOTIFY on ranread_health and a WARNING when the status changes';
