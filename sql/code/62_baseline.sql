-- 1.1, keeping watch on the storage (docs/keeping-watch.md, "Keeping watch"):
-- batches compared from their latency histograms, a baseline per tablespace, a
-- verdict and a health status for every probe (ranread_probes, in
-- 60_watch.sql), a NOTIFY and a WARNING when a tablespace's status changes.
-- How the comparison decides: src/watch/compare.c and docs/design.md, "Comparing
-- batches and keeping watch".

-- The comparison of two latency histograms (src/watch/compare.c): a Mann-Whitney
-- U test on the buckets for the middle, a two-proportion test on the share
-- above a side's p99 for the tail (100 I/Os or more), each with an effect size; "slower"
-- and "faster" need both a test significant at alpha and p50 or p99 at
-- least min_factor times apart, so that noise does not alarm.  factor is
-- b's percentile over a's, factor_low and factor_high its interval (1.2:
-- each percentile's by order statistics at 1 - alpha / 2, so 1 - alpha at
-- least for the factor).
CREATE OR REPLACE FUNCTION @extschema@.ranread_hist_compare(histogram_a bytea, histogram_b bytea,
    min_factor float8 DEFAULT 1.25, alpha float8 DEFAULT 0.001,
    OUT verdict text, OUT factor float8, OUT confidence float8, OUT p_value float8,
    OUT decided_by text, OUT ios_a bigint, OUT ios_b bigint,
    OUT p50_a_ms float8, OUT p50_b_ms float8, OUT p50_ratio float8,
    OUT p99_a_ms float8, OUT p99_b_ms float8, OUT p99_ratio float8,
    OUT shift float8, OUT p50_p_value float8, OUT p99_p_value float8,
    OUT factor_low float8, OUT factor_high float8)
RETURNS record
AS 'MODULE_PATHNAME', 'ranread_hist_compare'
LANGUAGE C CALLED ON NULL INPUT IMMUTABLE PARALLEL SAFE;

-- A percentile of a histogram against a bound (1.2, src/watch/compare.c): is
-- p99 (percentile) above bound_ms?  It is when more than 1% (100 -
-- percentile) of the I/Os are slower than the bound: above counts them,
-- share is their share with its Wilson interval (share_low, share_high) at
-- 1 - alpha, p_value the exact binomial probability of so many or more
-- if the share were 1%.  verdict: 'above' (p_value below alpha), 'not
-- shown', or 'too few' below min_ios I/Os (100 for p99), which cannot
-- judge the percentile: it is their slowest I/O.
CREATE OR REPLACE FUNCTION @extschema@.ranread_hist_threshold(histogram bytea, bound_ms float8,
    percentile float8 DEFAULT 99, alpha float8 DEFAULT 0.001,
    OUT ios bigint, OUT above bigint, OUT share float8, OUT allowed float8,
    OUT share_low float8, OUT share_high float8, OUT p_value float8,
    OUT min_ios bigint, OUT verdict text)
RETURNS record
AS 'MODULE_PATHNAME', 'ranread_hist_threshold'
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
    SELECT d.tablespace, d.p99_degraded_ms, d.p99_critical_ms, d.slower_factor, d.baseline_probes, d.alpha,
           d.hold_probes
      FROM (SELECT t.tablespace, t.p99_degraded_ms, t.p99_critical_ms, t.slower_factor, t.baseline_probes, t.alpha,
                   t.hold_probes, 0 AS o
              FROM @extschema@.ranread_health_thresholds t WHERE t.tablespace = ts
            UNION ALL
            SELECT ts, 5::float8, 10::float8, 1.25::float8, 5, 0.001::float8, 3, 1) d
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
       SET batches = '{}', histogram = NULL, pinned = false, since = excluded.since, set_at = excluded.set_at,
           left_out = '{}', left_out_reason = NULL;
    RETURN coalesce(had, false);
END
$$;

-- Numbers as the watch's words give them: a p-value (three decimals, two
-- significant digits below 0.001, "< 1e-300" where a double holds no
-- smaller), a share as a percentage, and the confidence 1 - alpha of an
-- interval
CREATE OR REPLACE FUNCTION ranread_internal.ranread_watch_p(p float8)
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN p IS NULL THEN 'n/a'
                WHEN p < 1e-300 THEN '< 1e-300'
                WHEN p >= 0.001 THEN trim_scale(round(p::numeric, 3))::text
                ELSE ltrim(to_char(p, '9.9EEEE')) END
$$;

CREATE OR REPLACE FUNCTION ranread_internal.ranread_watch_pct(share float8)
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN share IS NULL THEN 'n/a'
                ELSE trim_scale(round((100 * share)::numeric, CASE WHEN share < 0.1 THEN 2 ELSE 1 END)) || '%' END
$$;

CREATE OR REPLACE FUNCTION ranread_internal.ranread_watch_conf(alpha float8)
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT trim_scale(round((100 * (1 - alpha))::numeric, 6)) || '%'
$$;

-- The rank of a status, from ok to critical (NULL: unknown, not judged)
CREATE OR REPLACE FUNCTION ranread_internal.ranread_health_rank(status text)
RETURNS integer
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE status WHEN 'ok' THEN 0 WHEN 'slower' THEN 1 WHEN 'degraded' THEN 2 WHEN 'critical' THEN 3 END
$$;

-- The hysteresis of a tablespace's status (docs/design.md, "Comparing
-- batches and keeping watch"), pure: from its status now (current; NULL or
-- 'unknown' when it has none yet) and the statuses its judged probes showed
-- one by one (readings, oldest first), the status it takes.  Only the last
-- hold readings count, and only when there are that many: the status goes
-- up to the status every one of them reached (each showed it or worse),
-- down to the worst of them when every one is better than the status, and
-- otherwise stays.  A tablespace without a status takes the one all hold
-- readings reached.  So one probe, or any run shorter than hold, never
-- changes a status, and a device whose readings alternate keeps the one it
-- has.  changed: the status is not current; why: in words.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_health_hold(current text, readings text[], hold integer,
    OUT status text, OUT changed boolean, OUT why text)
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    n   integer := coalesce(cardinality(readings), 0);
    w   text[];
    lo  integer;
    hi  integer;
    cur integer := ranread_internal.ranread_health_rank(current);
    names constant text[] := ARRAY['ok', 'slower', 'degraded', 'critical'];
BEGIN
    IF hold IS NULL OR hold < 1 THEN
        RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('hold of ranread_health_hold must be 1 or more, not %s', coalesce(hold::text, 'NULL')),
            HINT = 'hold is how many probes in a row must show a status, such as 3.';
    END IF;
    IF (SELECT bool_or(ranread_internal.ranread_health_rank(r) IS NULL) FROM unnest(readings) r) THEN
        RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('readings of ranread_health_hold must be ok, slower, degraded or critical, not %s', readings),
            HINT = 'A probe without a reading (unknown) is left out of readings.';
    END IF;
    status := CASE WHEN cur IS NULL THEN 'unknown' ELSE current END;
    changed := false;
    IF n < hold THEN
        why := format('%s of the %s probes in a row a change needs', n, hold);
        RETURN;
    END IF;
    w := readings[n - hold + 1 : n];
    SELECT min(ranread_internal.ranread_health_rank(r)), max(ranread_internal.ranread_health_rank(r)) INTO lo, hi
      FROM unnest(w) r;
    IF cur IS NULL OR lo > cur THEN
        status := names[lo + 1];
        why := format('the %s %s probes in a row each showed %s%s', CASE WHEN cur IS NULL THEN 'first' ELSE 'last' END,
                      hold, status,
                      CASE WHEN hi > lo THEN format(' or worse (%s)', array_to_string(w, ', ')) ELSE '' END);
    ELSIF hi < cur THEN
        status := names[hi + 1];
        why := format('the last %s probes in a row each showed better than %s (%s)', hold, current,
                      array_to_string(w, ', '));
    ELSE
        why := format('%s holds: the last %s probes (%s) do not all show another status', current, hold,
                      array_to_string(w, ', '));
    END IF;
    changed := status IS DISTINCT FROM current;
END
$$;

-- A baseline that noise cannot skew (pure): of the probes that make it
-- (batches, their histograms), the median probe's p50 and p99 (the median
-- of each over the probes) mark the ones that stand out: a p50 or a p99
-- min_factor or more from the median.  The core is the probes whose p50
-- does not stand out (p50 is measured precisely; a p99 of a few hundred
-- I/Os moves by chance with the tail: the tail of a device at the edge of
-- 1% puts a probe's p99 on either side); when half of them or more stand
-- out by p50, none is left out, and reason says so.  Each probe that stands
-- out is compared with the merge of the core's others
-- (ranread_hist_compare, at alpha and min_factor): those that differ (a
-- stall, a burst of load) are left out, when fewer than half; a probe that
-- stands out by its p99 alone but whose tail test is not significant is
-- kept.  kept: the batches the baseline merges.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_baseline_robust(batches bigint[], histograms bytea[],
    min_factor float8, alpha float8, OUT kept bigint[], OUT left_out bigint[], OUT reason text)
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    n     integer := coalesce(cardinality(batches), 0);
    m50   float8;
    m99   float8;
    odd50 integer[];
    odd   integer[];
    rest  bytea;
    c     record;
    why   text[] := '{}';
    i     integer;
BEGIN
    IF n <> coalesce(cardinality(histograms), 0) THEN
        RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('batches and histograms of ranread_baseline_robust must have as many elements, not %s and %s',
                             n, coalesce(cardinality(histograms), 0));
    END IF;
    kept := batches;
    left_out := '{}';
    IF n < 3 THEN
        RETURN;
    END IF;
    SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY @extschema@.ranread_hist_percentile(h, 50)),
           percentile_disc(0.5) WITHIN GROUP (ORDER BY @extschema@.ranread_hist_percentile(h, 99))
      INTO m50, m99 FROM unnest(histograms) h;
    odd50 := ARRAY(SELECT u.k::integer FROM unnest(histograms) WITH ORDINALITY u(h, k)
                    WHERE NOT (@extschema@.ranread_hist_percentile(u.h, 50) BETWEEN m50 / min_factor AND m50 * min_factor)
                    ORDER BY u.k);
    odd := ARRAY(SELECT u.k::integer FROM unnest(histograms) WITH ORDINALITY u(h, k)
                  WHERE u.k = ANY (odd50)
                     OR NOT (@extschema@.ranread_hist_percentile(u.h, 99) BETWEEN m99 / min_factor AND m99 * min_factor)
                  ORDER BY u.k);
    IF cardinality(odd) = 0 THEN
        RETURN;
    END IF;
    IF 2 * cardinality(odd50) >= n THEN
        reason := format('none left out: %s of the %s probes (%s) are %sx or more from the median probe''s p50 %s ms, too many to tell the odd ones',
                         cardinality(odd50), n, (SELECT string_agg(batches[k]::text, ', ') FROM unnest(odd50) k), min_factor,
                         round(m50::numeric, 3));
        RETURN;
    END IF;
    FOREACH i IN ARRAY odd LOOP
        SELECT @extschema@.ranread_hist_merge(u.h) INTO rest
          FROM unnest(histograms) WITH ORDINALITY u(h, k) WHERE u.k <> ALL (odd50) AND u.k <> i;
        SELECT x.* INTO c FROM @extschema@.ranread_hist_compare(rest, histograms[i], min_factor, alpha) x;
        IF c.verdict = 'slower' THEN
            left_out := left_out || batches[i];
            why := why || format('probe %s is %s than the %s near the median probe (%s %sx theirs, %s p %s, below alpha %s)',
                                 batches[i], c.verdict, n - cardinality(odd50) - CASE WHEN i = ANY (odd50) THEN 0 ELSE 1 END,
                                 c.decided_by, round(c.factor::numeric, 2),
                                 CASE c.decided_by WHEN 'p50' THEN 'Mann-Whitney U test' ELSE 'two-proportion test of the tail' END,
                                 ranread_internal.ranread_watch_p(c.p_value), alpha);
        END IF;
    END LOOP;
    IF cardinality(left_out) = 0 THEN
        RETURN;
    END IF;
    IF 2 * cardinality(left_out) >= n THEN
        reason := format('none left out: %s of the %s probes differ from the others (%s), too many to tell the odd ones',
                         cardinality(left_out), n, array_to_string(why, '; '));
        left_out := '{}';
        RETURN;
    END IF;
    kept := ARRAY(SELECT x FROM unnest(batches) x WHERE x <> ALL (left_out));
    reason := format('left out %s', array_to_string(why, '; '));
END
$$;

-- What one probe shows by itself (probe_status), from its histogram, its
-- comparison with the baseline (verdict: after the baseline's spread;
-- compared ... p99_p_value: ranread_hist_compare's row; NULL before the
-- baseline) and the thresholds: critical or degraded when its p99 is above the bound by the
-- exact binomial test (ranread_hist_threshold, 100 I/Os or more), slower
-- when the comparison says so, else ok; test names what decided it, effect
-- the effect with its interval, words the reading in a sentence.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_probe_reading(histogram bytea, verdict text,
    compared text, decided_by text, factor float8, factor_low float8, factor_high float8,
    p_value float8, p50_p_value float8, p99_p_value float8, thr @extschema@.ranread_health_thresholds,
    OUT probe_status text, OUT test text, OUT effect text, OUT words text)
LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    crit record;
    deg  record;
    t    record;
    bound float8;
    conf text := ranread_internal.ranread_watch_conf(thr.alpha);
    cmp  text;
BEGIN
    SELECT x.* INTO crit FROM @extschema@.ranread_hist_threshold(histogram, thr.p99_critical_ms, 99, thr.alpha) x;
    SELECT x.* INTO deg FROM @extschema@.ranread_hist_threshold(histogram, thr.p99_degraded_ms, 99, thr.alpha) x;
    IF crit.verdict = 'above' THEN
        t := crit; bound := thr.p99_critical_ms; probe_status := 'critical';
    ELSIF deg.verdict = 'above' THEN
        t := deg; bound := thr.p99_degraded_ms; probe_status := 'degraded';
    END IF;
    IF t IS NOT NULL THEN
        test := format('exact binomial test of the I/Os slower than %s ms (p99 is above it when more than 1%% are): p %s, below alpha %s',
                       bound, ranread_internal.ranread_watch_p(t.p_value), thr.alpha);
        effect := format('%s of %s I/Os slower than %s ms, %s (%s interval %s to %s), where p99 %s ms allows 1%%',
                         t.above, t.ios, bound, ranread_internal.ranread_watch_pct(t.share), conf,
                         ranread_internal.ranread_watch_pct(t.share_low), ranread_internal.ranread_watch_pct(t.share_high), bound);
        words := format('p99 above the %s threshold of %s ms', probe_status, bound);
        RETURN;
    END IF;
    IF compared IS NOT NULL THEN
        cmp := CASE decided_by WHEN 'p50' THEN 'Mann-Whitney U test of the middle (p50)'
                               ELSE 'two-proportion test of the tail (p99)' END;
        effect := format('%s %sx the baseline''s (%s interval %sx to %sx)', coalesce(decided_by, 'p99'),
                         round(factor::numeric, 2), conf, round(factor_low::numeric, 2),
                         round(factor_high::numeric, 2));
    END IF;
    IF verdict = 'slower' THEN
        probe_status := 'slower';
        test := format('%s: p %s, below alpha %s, at least %sx apart and past the spread of the baseline''s probes',
                       cmp, ranread_internal.ranread_watch_p(p_value), thr.alpha, thr.slower_factor);
        words := 'slower than its baseline';
        RETURN;
    END IF;
    probe_status := 'ok';
    test := concat_ws('; ',
        CASE WHEN deg.verdict = 'too few'
             THEN format('p99 not judged against %s ms: %s I/Os, fewer than the %s it needs', thr.p99_degraded_ms, deg.ios, deg.min_ios)
             ELSE format('exact binomial test of the I/Os slower than %s ms: p %s, not below alpha %s',
                         thr.p99_degraded_ms, ranread_internal.ranread_watch_p(deg.p_value), thr.alpha) END,
        CASE WHEN compared IS NOT NULL
             THEN format('against the baseline: Mann-Whitney U test (p50) p %s, two-proportion test (p99) p %s%s',
                         ranread_internal.ranread_watch_p(p50_p_value), ranread_internal.ranread_watch_p(p99_p_value),
                         CASE WHEN verdict = 'faster' THEN ': faster'
                              WHEN compared <> 'same' THEN format(': %s, but within the spread of the baseline''s probes', compared)
                              ELSE format(': the same within alpha %s and %sx', thr.alpha, thr.slower_factor) END) END);
    IF effect IS NULL AND deg.verdict <> 'too few' THEN
        effect := format('%s of %s I/Os slower than %s ms, %s (%s interval %s to %s), where p99 %s ms allows 1%%',
                         deg.above, deg.ios, thr.p99_degraded_ms, ranread_internal.ranread_watch_pct(deg.share), conf,
                         ranread_internal.ranread_watch_pct(deg.share_low), ranread_internal.ranread_watch_pct(deg.share_high),
                         thr.p99_degraded_ms);
    END IF;
    words := CASE WHEN verdict = 'faster' THEN 'faster than its baseline, p99 within the thresholds'
                  ELSE 'no test shows a change' END;
END
$$;

-- The trigger on ranread_probes: the probe's verdict against its
-- tablespace's baseline (or the probe joins the baseline being made, which
-- leaves out the odd probes once it is whole: ranread_baseline_robust), what
-- the probe alone shows (ranread_probe_reading), and the tablespace's status
-- after it (ranread_health_hold over its last hold_probes probes); when
-- that status changes, a NOTIFY on channel ranread_health (a JSON payload)
-- and a WARNING in the log
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
    rd record;
    hd record;
    rb record;
    win record;
    kept bigint[];
    v @extschema@.ranread_probe_verdicts;
    latest boolean;
    words text;          -- what this probe shows, in words
    hold_why text;       -- why the status is what it is
    robust text;         -- the baseline made whole: what it left out
    payload jsonb;
BEGIN
    SELECT NULL::text AS verdict, NULL::text AS decided_by, NULL::float8 AS factor, NULL::float8 AS factor_low,
           NULL::float8 AS factor_high, NULL::float8 AS p_value, NULL::float8 AS p50_p_value,
           NULL::float8 AS p99_p_value INTO c;
    v.batch := NEW.batch;
    v.tablespace := NEW.tablespace;
    v.probed_at := NEW.probed_at;
    SELECT x.histogram, x.iops, x.status INTO b FROM @extschema@.ranread_batches x WHERE x.batch = NEW.batch;
    SELECT w.status, w.probed_at INTO prev FROM @extschema@.ranread_probe_verdicts w
     WHERE w.tablespace = NEW.tablespace AND w.batch <> NEW.batch
     ORDER BY w.probed_at DESC, w.batch DESC LIMIT 1;
    latest := prev.probed_at IS NULL OR prev.probed_at <= NEW.probed_at;

    -- the baseline, made when the tablespace has none yet (locked: two
    -- probes of one tablespace at once take turns)
    INSERT INTO @extschema@.ranread_baselines (tablespace, since)
    VALUES (NEW.tablespace, NEW.probed_at) ON CONFLICT DO NOTHING;
    SELECT x.* INTO bl FROM @extschema@.ranread_baselines x WHERE x.tablespace = NEW.tablespace FOR UPDATE;

    IF NOT FOUND OR b.histogram IS NULL OR @extschema@.ranread_hist_count(b.histogram) = 0 THEN
        v.probe_status := 'unknown';
        v.reason := CASE WHEN b IS NULL THEN format('batch %s is not in ranread_batches', NEW.batch)
                         ELSE format('batch %s has no latency histogram (status %s)', NEW.batch, b.status) END;
    ELSE
        v.ios := @extschema@.ranread_hist_count(b.histogram);
        v.iops := b.iops;
        v.p50_ms := @extschema@.ranread_hist_percentile(b.histogram, 50);
        v.p99_ms := @extschema@.ranread_hist_percentile(b.histogram, 99);
        kept := ARRAY(SELECT k FROM unnest(bl.batches) k WHERE k <> ALL (bl.left_out));
        IF bl.histogram IS NOT NULL AND (bl.pinned OR cardinality(bl.batches) >= thr.baseline_probes) THEN
            SELECT x.* INTO c FROM @extschema@.ranread_hist_compare(bl.histogram, b.histogram, thr.slower_factor, thr.alpha) x;
            v.baseline_p50_ms := c.p50_a_ms;
            v.baseline_p99_ms := c.p99_a_ms;
            v.p50_factor := c.p50_ratio;
            v.p99_factor := c.p99_ratio;
            v.verdict := c.verdict;
            v.factor := c.factor;
            v.factor_low := c.factor_low;
            v.factor_high := c.factor_high;
            v.confidence := c.confidence;
            IF c.verdict <> 'same' THEN
                -- the I/Os of one probe are not independent (a burst of
                -- load slows many in a row), so a change must also reach
                -- past the spread of the baseline's own batches (those it
                -- kept): slower than slower_factor x the slowest of them,
                -- faster than the fastest / slower_factor, in a percentile
                -- whose test is significant
                SELECT max(@extschema@.ranread_hist_percentile(x.histogram, 50)) AS max50,
                       min(@extschema@.ranread_hist_percentile(x.histogram, 50)) AS min50,
                       max(@extschema@.ranread_hist_percentile(x.histogram, 99)) AS max99,
                       min(@extschema@.ranread_hist_percentile(x.histogram, 99)) AS min99
                  INTO s
                  FROM @extschema@.ranread_batches x
                 WHERE x.batch = ANY (kept) AND x.histogram IS NOT NULL;
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
                END IF;
            END IF;
        ELSIF NEW.probed_at >= bl.since AND NOT NEW.batch = ANY (bl.batches) THEN
            -- one of the first probes: it joins the baseline being made;
            -- the last one makes it whole, leaving out the odd ones
            SELECT r.* INTO rb
              FROM (SELECT array_agg(x.batch ORDER BY o.k) AS ids, array_agg(x.histogram ORDER BY o.k) AS hs
                      FROM unnest(bl.batches || NEW.batch) WITH ORDINALITY o(id, k)
                      JOIN @extschema@.ranread_batches x ON x.batch = o.id
                     WHERE x.histogram IS NOT NULL) a,
                   LATERAL ranread_internal.ranread_baseline_robust(
                       a.ids, a.hs, thr.slower_factor, thr.alpha) r
             WHERE cardinality(bl.batches) + 1 >= thr.baseline_probes;
            UPDATE @extschema@.ranread_baselines x
               SET batches = x.batches || NEW.batch,
                   histogram = (SELECT @extschema@.ranread_hist_merge(y.histogram) FROM @extschema@.ranread_batches y
                                 WHERE y.batch = ANY (coalesce(rb.kept, x.batches || NEW.batch))),
                   left_out = coalesce(rb.left_out, '{}'),
                   left_out_reason = rb.reason,
                   set_at = CASE WHEN cardinality(x.batches) + 1 >= thr.baseline_probes THEN now() END
             WHERE x.tablespace = NEW.tablespace;
            v.verdict := 'baseline';
            robust := rb.reason;
        END IF;
        SELECT r.* INTO rd
          FROM ranread_internal.ranread_probe_reading(b.histogram, v.verdict, c.verdict, c.decided_by, c.factor,
                   c.factor_low, c.factor_high, c.p_value, c.p50_p_value, c.p99_p_value, thr) r;
        v.probe_status := rd.probe_status;
        v.test := rd.test;
        v.effect := rd.effect;
        words := rd.words;
    END IF;

    -- the tablespace's status: held unless its last hold_probes judged
    -- probes, this one the newest, all show another (a probe older than
    -- the latest, backfilled, changes nothing)
    SELECT array_agg(w.probe_status ORDER BY w.probed_at, w.batch) AS readings,
           array_agg(w.batch ORDER BY w.probed_at, w.batch) AS ids
      INTO win
      FROM (SELECT x.probe_status, x.probed_at, x.batch FROM @extschema@.ranread_probe_verdicts x
             WHERE x.tablespace = NEW.tablespace AND x.batch <> NEW.batch AND x.probe_status <> 'unknown'
               AND (x.probed_at, x.batch) < (NEW.probed_at, NEW.batch)
             ORDER BY x.probed_at DESC, x.batch DESC LIMIT thr.hold_probes - 1) w;
    IF latest AND v.probe_status <> 'unknown' THEN
        SELECT h.* INTO hd FROM ranread_internal.ranread_health_hold(prev.status,
            coalesce(win.readings, '{}') || v.probe_status, thr.hold_probes) h;
        v.status := hd.status;
        hold_why := hd.why;
        v.probes := coalesce(win.ids, '{}') || NEW.batch;
    ELSE
        v.status := coalesce(prev.status, 'unknown');
    END IF;
    v.previous_status := prev.status;
    v.reason := concat_ws('; ',
        format('%s: %s', v.status,
               CASE WHEN hold_why IS NULL AND NOT latest THEN 'a probe older than the latest changes no status'
                    WHEN hold_why IS NULL THEN 'a probe without a reading changes no status'
                    ELSE hold_why || format(' (probes %s)', array_to_string(v.probes, ', ')) END),
        CASE WHEN words IS NOT NULL THEN format('this probe: %s', words) END,
        CASE WHEN v.verdict = 'baseline'
             THEN format('probe %s of the %s that make the baseline', cardinality(bl.batches) + 1, thr.baseline_probes) END,
        CASE WHEN robust IS NOT NULL THEN 'the baseline ' || robust END,
        CASE WHEN v.verdict IS NULL AND b.histogram IS NOT NULL AND NOT (bl.histogram IS NOT NULL
                  AND (bl.pinned OR cardinality(bl.batches) >= thr.baseline_probes))
             THEN 'older than the baseline: not compared' END,
        CASE WHEN v.probe_status = 'unknown' THEN v.reason END);
    INSERT INTO @extschema@.ranread_probe_verdicts VALUES (v.*)
    ON CONFLICT (batch) DO NOTHING;

    -- a change of status, told once: not from no status to ok (nothing to
    -- alarm), never by one probe (ranread_health_hold)
    IF latest AND v.status IS DISTINCT FROM coalesce(prev.status, 'unknown')
       AND NOT (coalesce(prev.status, 'unknown') = 'unknown' AND v.status = 'ok') THEN
        payload := jsonb_build_object('tablespace', NEW.tablespace, 'status', v.status,
                       'previous_status', prev.status, 'batch', NEW.batch, 'probed_at', NEW.probed_at,
                       'probe_status', v.probe_status, 'probes', to_jsonb(v.probes), 'hold_probes', thr.hold_probes,
                       'verdict', v.verdict, 'factor', round(v.factor::numeric, 3),
                       'factor_low', round(v.factor_low::numeric, 3), 'factor_high', round(v.factor_high::numeric, 3),
                       'p99_ms', round(v.p99_ms::numeric, 3), 'baseline_p99_ms', round(v.baseline_p99_ms::numeric, 3),
                       'test', v.test, 'effect', v.effect, 'reason', v.reason);
        PERFORM pg_notify('ranread_health', payload::text);
        RAISE WARNING USING
            MESSAGE = format('ranread: tablespace "%s" is now %s (was %s): probes %s, the last p99 %s ms',
                             NEW.tablespace, v.status, coalesce(prev.status, 'not probed'),
                             array_to_string(v.probes, ', '),
                             coalesce(round(v.p99_ms::numeric, 3)::text, 'n/a')),
            DETAIL = concat_ws('; ', v.reason, 'test: ' || v.test, 'effect: ' || v.effect),
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
    @extschema@.ranread_hist_threshold(bytea, float8, float8, float8),
    ranread_internal.ranread_batch_histogram(text, text, bigint),
    ranread_internal.ranread_watch_tablespace(text, text, name, boolean),
    ranread_internal.ranread_health_thresholds_of(name),
    ranread_internal.ranread_health_rank(text),
    ranread_internal.ranread_health_hold(text, text[], integer),
    ranread_internal.ranread_baseline_robust(bigint[], bytea[], float8, float8),
    ranread_internal.ranread_watch_p(float8),
    ranread_internal.ranread_watch_pct(float8),
    ranread_internal.ranread_watch_conf(float8) TO pg_monitor;

COMMENT ON FUNCTION @extschema@.ranread_hist_compare(bytea, bytea, float8, float8) IS
    'two latency histograms compared: same, slower or faster (b against a), by a Mann-Whitney U test on the buckets (p50) and a test of the share above a side''s p99 (p99, with 100 I/Os or more on each side), each significant at alpha and at least min_factor apart; factor is b''s percentile over a''s, factor_low and factor_high its interval at 1 - alpha';
COMMENT ON FUNCTION @extschema@.ranread_hist_threshold(bytea, float8, float8, float8) IS
    'is a histogram''s percentile (99) above bound_ms: the I/Os slower than it, their share with its interval, the exact binomial test of more than 100 - percentile % of them (verdict above, not shown, or too few below 100 / (100 - percentile) I/Os)';
COMMENT ON FUNCTION ranread_internal.ranread_hist_make(float8[], bigint[]) IS
    'Internal: a latency histogram in stored form from latencies (ms) and their counts';
COMMENT ON FUNCTION ranread_internal.ranread_batch_histogram(text, text, bigint) IS
    'Internal: the latency histogram of a batch, or the error that names the argument';
COMMENT ON TABLE @extschema@.ranread_health_thresholds IS
    'ranread watch: what a tablespace''s probes are judged by (p99 thresholds in ms, slower factor, probes of an automatic baseline, alpha, probes in a row a change of status needs); without a row, 5 ms, 10 ms, 1.25, 5, 0.001 and 3';
COMMENT ON COLUMN @extschema@.ranread_health_thresholds.hold_probes IS
    'how many probes in a row must show a status before the tablespace takes it (2 to 100): one probe never changes a status';
COMMENT ON TABLE @extschema@.ranread_baselines IS
    'ranread watch: the baseline of each tablespace, the batches it merges and their merged latency histogram, pinned (ranread_baseline_set) or its first probes, less those left out';
COMMENT ON COLUMN @extschema@.ranread_baselines.left_out IS
    'the probes of an automatic baseline left out of its histogram: each stands out from the median probe and is slower than the merge of the others (ranread_hist_compare: a stall, a burst of load), and they are fewer than half';
COMMENT ON COLUMN @extschema@.ranread_baselines.left_out_reason IS
    'why those probes were left out (or, when half or more differ, why none was), naming each and its test';
COMMENT ON TABLE @extschema@.ranread_probe_verdicts IS
    'ranread watch: a verdict per probe against its tablespace''s baseline (baseline, same, slower, faster), what the probe alone shows (probe_status) and the tablespace''s health status after it (ok, slower, degraded, critical, unknown)';
COMMENT ON COLUMN @extschema@.ranread_probe_verdicts.verdict IS
    'baseline: one of the first probes that make the baseline; same, slower or faster than the baseline (ranread_hist_compare, and past the spread of the baseline''s probes); NULL: not compared';
COMMENT ON COLUMN @extschema@.ranread_probe_verdicts.factor IS
    'the probe''s p50 or p99 (the one that decided; p99 when same) over the baseline''s';
COMMENT ON COLUMN @extschema@.ranread_probe_verdicts.factor_low IS
    'the interval of factor, low end (at least 1 - alpha)';
COMMENT ON COLUMN @extschema@.ranread_probe_verdicts.factor_high IS
    'the interval of factor, high end (at least 1 - alpha)';
COMMENT ON COLUMN @extschema@.ranread_probe_verdicts.probe_status IS
    'what this probe alone shows: critical or degraded when its p99 is above the threshold by the exact binomial test (100 I/Os or more), slower when slower than the baseline, ok when no test shows either, unknown without a histogram';
COMMENT ON COLUMN @extschema@.ranread_probe_verdicts.status IS
    'the tablespace''s status after this probe: it changes only when its last hold_probes probes in a row all show another (ranread_health_hold); unknown until that many probes are judged';
COMMENT ON COLUMN @extschema@.ranread_probe_verdicts.test IS
    'the test that decided probe_status, with its p-value and alpha (for ok: the tests that showed nothing)';
COMMENT ON COLUMN @extschema@.ranread_probe_verdicts.effect IS
    'the effect that test measured, with its interval at 1 - alpha: the share of I/Os above a threshold, or the factor over the baseline';
COMMENT ON COLUMN @extschema@.ranread_probe_verdicts.probes IS
    'the probes the status rests on: the last hold_probes judged probes of the tablespace, oldest first, this one last';
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
COMMENT ON FUNCTION ranread_internal.ranread_watch_p(float8) IS
    'Internal: a p-value as the watch''s words give it';
COMMENT ON FUNCTION ranread_internal.ranread_watch_pct(float8) IS
    'Internal: a share as a percentage, as the watch''s words give it';
COMMENT ON FUNCTION ranread_internal.ranread_watch_conf(float8) IS
    'Internal: the confidence 1 - alpha of an interval, as a percentage';
COMMENT ON FUNCTION ranread_internal.ranread_health_rank(text) IS
    'Internal: the rank of a health status, ok 0 to critical 3 (NULL: unknown)';
COMMENT ON FUNCTION ranread_internal.ranread_health_hold(text, text[], integer) IS
    'Internal: the status a tablespace takes from its status now and its probes'' readings (oldest first): it changes only when the last hold readings all show another';
COMMENT ON FUNCTION ranread_internal.ranread_baseline_robust(bigint[], bytea[], float8, float8) IS
    'Internal: the probes a baseline keeps, and those it leaves out (each differs from the merge of the others; fewer than half), with why';
COMMENT ON FUNCTION ranread_internal.ranread_probe_reading(bytea, text, text, text, float8, float8, float8, float8, float8, float8, @extschema@.ranread_health_thresholds) IS
    'Internal: what one probe shows by itself (critical, degraded, slower, ok), the test that decided it and its effect with an interval';
COMMENT ON FUNCTION ranread_internal.ranread_probe_judge() IS
    'Internal: the trigger on ranread_probes: a probe''s verdict and reading, the tablespace''s status after it, a NOTIFY on ranread_health and a WARNING when that status changes';
