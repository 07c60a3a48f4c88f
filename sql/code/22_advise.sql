-- 1.1, from numbers to settings: ranread_advise turns the history of a
-- tablespace into the planner and I/O settings PostgreSQL models storage
-- with, one row per setting, with the figures, the formula and the SQL that
-- would apply it.  It never applies anything.  Its types are state
-- (sql/state/22_advise.sql).
--
-- The formulas are pure functions (ranread_advise_*), tested on known
-- numbers; docs/commit-and-advice.md, "From numbers to settings", gives each
-- with its source.  ranread_advise itself is a few named steps in schema
-- ranread_internal: check the arguments, find the place (tablespace and
-- target), measure (measure => true), gather the evidence from the history,
-- map it to rows through the formulas, say what to apply.  The evidence
-- travels between them as one value of type ranread_advise_evidence. Every
-- object is schema-qualified and every function pins search_path.

-- A figure given to an advisor's formula, checked: NULL passes (a figure
-- not measured gives no advice), NaN, an infinity or a value out of range
-- is an error naming the function, the argument, the value and what is
-- allowed: above 0 (positive), or from lo to hi.  Returns the value.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_advise_arg(fn text, arg text, value float8,
    lo float8 DEFAULT NULL, hi float8 DEFAULT NULL)
RETURNS float8
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF value IS NULL THEN
        RETURN NULL;
    END IF;
    IF lo IS NULL AND NOT (value > 0 AND value < 'Infinity') THEN
        RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('%s of %s must be a finite number above 0, not %s', arg, fn, value),
            HINT = format('%s is a measured figure; NULL when it was not measured.', arg);
    END IF;
    IF lo IS NOT NULL AND NOT (value >= lo AND value <= hi) THEN
        RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('%s of %s must be from %s to %s, not %s', arg, fn, lo, hi, value);
    END IF;
    RETURN value;
END
$$;

-- random_page_cost and seq_page_cost from times per page (ms):
--   seq_page_cost    = seq_page_ms / reference_seq_page_ms (1 when this is
--                      the reference tablespace, or the reference has no
--                      figure), two decimals
--   random_page_cost = (1 - cache_hit_ratio) x random_ms / reference_seq_page_ms,
--                      one decimal, and never below seq_page_cost
-- random_ms is a QD1 random 8 KiB read; seq_page_ms the time one process
-- takes per 8 KiB page of large sequential reads.  PostgreSQL's docs: the
-- default 4.0 models random access as 40 times slower than sequential with
-- 90% of random reads cached, (1 - 0.9) x 40 = 4; and random_page_cost
-- below seq_page_cost is not physically sensible.
CREATE OR REPLACE FUNCTION @extschema@.ranread_advise_page_costs(
    random_ms             float8,
    seq_page_ms           float8,
    cache_hit_ratio       float8,
    reference_seq_page_ms float8 DEFAULT NULL,
    OUT seq_page_cost     numeric,
    OUT random_page_cost  numeric)
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    fn  constant text := 'ranread_advise_page_costs';
    ref float8;
BEGIN
    PERFORM ranread_internal.ranread_advise_arg(fn, 'random_ms', random_ms);
    PERFORM ranread_internal.ranread_advise_arg(fn, 'seq_page_ms', seq_page_ms);
    PERFORM ranread_internal.ranread_advise_arg(fn, 'cache_hit_ratio', cache_hit_ratio, 0, 1);
    PERFORM ranread_internal.ranread_advise_arg(fn, 'reference_seq_page_ms', reference_seq_page_ms);
    IF random_ms IS NULL OR seq_page_ms IS NULL OR cache_hit_ratio IS NULL THEN
        RETURN;
    END IF;
    ref := coalesce(reference_seq_page_ms, seq_page_ms);
    seq_page_cost := round((seq_page_ms / ref)::numeric, 2);
    random_page_cost := greatest(round(((1 - cache_hit_ratio) * random_ms / ref)::numeric, 1), seq_page_cost);
END
$$;

-- effective_io_concurrency and maintenance_io_concurrency from a curve of
-- random 8 KiB reads: at each concurrency (I/Os in flight: processes x
-- queue depth) its IOPS and average latency.  The peak is the highest IOPS
-- whose average latency is within max_avg_ms; the suggestion is the lowest
-- concurrency within the bound whose IOPS reach share (0.9) of that peak,
-- clamped to PostgreSQL's 1..1000.  still_rising: that concurrency is the
-- highest measured, so more might still pay (a lower bound).  NULL with
-- fewer than two concurrencies within the bound: one point is no curve.
CREATE OR REPLACE FUNCTION @extschema@.ranread_advise_io_concurrency(
    concurrency      integer[],
    iops             float8[],
    avg_ms           float8[],
    max_avg_ms       float8,
    share            float8 DEFAULT 0.9,
    OUT io_concurrency   integer,
    OUT peak_iops        float8,
    OUT peak_concurrency integer,
    OUT still_rising     boolean)
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    fn constant text := 'ranread_advise_io_concurrency';
BEGIN
    IF coalesce(cardinality(concurrency), 0) <> coalesce(cardinality(iops), 0)
       OR coalesce(cardinality(concurrency), 0) <> coalesce(cardinality(avg_ms), 0) THEN
        RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('concurrency, iops and avg_ms of %s must have as many elements, not %s, %s and %s', fn,
                             coalesce(cardinality(concurrency), 0), coalesce(cardinality(iops), 0), coalesce(cardinality(avg_ms), 0)),
            HINT = 'One element of each per point of the curve.';
    END IF;
    FOR i IN 1 .. coalesce(cardinality(concurrency), 0) LOOP
        PERFORM ranread_internal.ranread_advise_arg(fn, format('iops[%s]', i), iops[i]);
        PERFORM ranread_internal.ranread_advise_arg(fn, format('avg_ms[%s]', i), avg_ms[i]);
    END LOOP;
    PERFORM ranread_internal.ranread_require(fn, 'max_avg_ms', max_avg_ms, 'max_avg_ms is the bound on average latency in milliseconds, such as 10.');
    PERFORM ranread_internal.ranread_advise_arg(fn, 'max_avg_ms', max_avg_ms);
    PERFORM ranread_internal.ranread_require(fn, 'share', share, 'share is the part of the peak IOPS that counts, such as 0.9.');
    IF NOT (share > 0 AND share <= 1) THEN
        RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('share of %s must be above 0 and at most 1, not %s', fn, share),
            HINT = 'share is the part of the peak IOPS that counts, such as 0.9.';
    END IF;
    WITH p AS (
        SELECT c, i, a FROM unnest(concurrency, iops, avg_ms) AS u(c, i, a)
         WHERE c >= 1 AND i IS NOT NULL AND a <= max_avg_ms
    ), peak AS (
        SELECT p.i, p.c FROM p ORDER BY p.i DESC, p.c LIMIT 1
    ), knee AS (
        SELECT min(p.c) AS c FROM p, peak WHERE p.i >= share * peak.i
    )
    SELECT least(greatest(knee.c, 1), 1000), peak.i, peak.c,
           knee.c >= (SELECT max(m.c) FROM unnest(concurrency) AS m(c))
      INTO io_concurrency, peak_iops, peak_concurrency, still_rising
      FROM peak, knee
     WHERE (SELECT count(DISTINCT p.c) FROM p) >= 2;
END
$$;

-- max_parallel_workers_per_gather's cap from sequential MB/s: Oracle's
-- PARALLEL_DEGREE_LIMIT=IO, the total throughput over one process's
-- (CALIBRATE_IO's MAX_MBPS / MAX_PMBPS): processes = that ratio, rounded;
-- workers = processes - 1, because the leader of a Gather scans too.
CREATE OR REPLACE FUNCTION @extschema@.ranread_advise_parallel_workers(
    one_process_mbps float8,
    all_mbps         float8,
    OUT processes    integer,
    OUT workers      integer)
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM ranread_internal.ranread_advise_arg('ranread_advise_parallel_workers', 'one_process_mbps', one_process_mbps);
    PERFORM ranread_internal.ranread_advise_arg('ranread_advise_parallel_workers', 'all_mbps', all_mbps);
    IF one_process_mbps IS NULL OR all_mbps IS NULL THEN
        RETURN;
    END IF;
    processes := least(greatest(round(all_mbps / one_process_mbps), 1), 1000000)::integer;
    workers := processes - 1;
END
$$;

-- The gain below which a change is not worth advising: 10%.  One
-- threshold for the advisor and the commit test: a method must be more than
-- this much faster than the server's wal_sync_method, beyond the noise its
-- rounds show, to be advised (and named in ranread_commit_test's NOTICE,
-- which gives the same words).
CREATE OR REPLACE FUNCTION ranread_internal.ranread_advise_noise()
RETURNS float8
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$ SELECT 0.1::float8 $$;

-- The two-sided 95% quantile of Student's t with df degrees of freedom
-- (the usual table; 1.96 past 120): the interval of a mean of df + 1
-- rounds is mean +- t sd / sqrt(n)
CREATE OR REPLACE FUNCTION ranread_internal.ranread_t95(df integer)
RETURNS float8
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN df IS NULL OR df < 1 THEN NULL
                WHEN df <= 20 THEN ('{12.706,4.303,3.182,2.776,2.571,2.447,2.365,2.306,2.262,2.228,'
                                    '2.201,2.179,2.160,2.145,2.131,2.120,2.110,2.101,2.093,2.086}'::float8[])[df]
                WHEN df <= 25 THEN 2.060 WHEN df <= 30 THEN 2.042 WHEN df <= 40 THEN 2.021
                WHEN df <= 60 THEN 2.000 WHEN df <= 120 THEN 1.980 ELSE 1.960 END
$$;

-- Rounds of one measurement (a method's ops/s, one per round): how many,
-- their mean and its 95% interval (Student's t; its low end at 0 at least,
-- as no rate is below it); low and high NULL for one round, whose noise is
-- not known
CREATE OR REPLACE FUNCTION ranread_internal.ranread_rounds_interval(samples float8[],
    OUT n integer, OUT mean float8, OUT low float8, OUT high float8)
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT x.n, x.mean, greatest(x.mean - x.half, 0), x.mean + x.half
      FROM (SELECT count(v)::integer AS n, avg(v) AS mean,
                   ranread_internal.ranread_t95(count(v)::integer - 1) * stddev_samp(v) / sqrt(count(v)) AS half
              FROM unnest($1) v WHERE v IS NOT NULL) x
$$;

-- wal_sync_method from the rounds one commit test measured together (one
-- 8 kB write and its sync, pg_test_fsync's first table; one element of
-- methods and ops_per_s per round, a method repeated once per round).
-- Methods of other runs are never compared: the disk, its load and its
-- cache differ between runs.  Only the durable methods count, a NULL or 0
-- figure is a round that did not run; NaN, infinities and negatives are
-- refused.  The current method stays unless another is faster beyond the
-- noise: its 95% interval (ranread_rounds_interval) lies above the current
-- method's, and its mean is more than ranread_advise_noise (10%) above
-- it.  Among several such methods whose intervals overlap, the first in
-- fdatasync, open_datasync, fsync, open_sync (fdatasync first: PostgreSQL's
-- default on Linux), so that two runs of a device agree.  fsync does at
-- least fdatasync's work (it also flushes the file's metadata), open_sync
-- at least open_datasync's: neither is advised over the other, a faster
-- figure for it is noise, and the note says so.  One round each (a 1.1
-- commit test) shows no noise: the current method stays.  method NULL:
-- nothing to compare (the current method not measured with another).
-- settled: more rounds would not change the advice (a winner, or every
-- other method within 10% even at the ends of the intervals); the commit
-- test repeats its rounds until it is, or its time limit.  measured lists
-- the figures, fastest first, each with its interval; faster_pct is how
-- much faster the fastest is than the current method.  The commit test's
-- NOTICE (src/advise/commit.c) is made of the same outputs.
CREATE OR REPLACE FUNCTION @extschema@.ranread_advise_wal_sync_method(
    methods     text[],
    ops_per_s   float8[],
    current     text,
    OUT method      text,
    OUT best_ops    float8,
    OUT current_ops float8,
    OUT faster_pct  numeric,
    OUT measured    text,
    OUT note        text,
    OUT settled     boolean)
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    fn     constant text := 'ranread_advise_wal_sync_method';
    noise  constant float8 := ranread_internal.ranread_advise_noise();
    pg_order constant text[] := ARRAY['fdatasync', 'open_datasync', 'fsync', 'open_sync', 'fsync_writethrough'];
    -- per method measured, fastest first: name, rounds, mean, interval
    ms     text[];
    ns     integer[];
    means  float8[];
    lows   float8[];
    highs  float8[];
    k      integer;
    c      integer;          -- the current method's place in ms
    names  text;
    cands  integer[] := '{}';
    wins   integer[] := '{}';
    top    integer;
    pick   integer;
    ties   text[];
    extra  text := '';
BEGIN
    IF coalesce(cardinality(methods), 0) <> coalesce(cardinality(ops_per_s), 0) THEN
        RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('methods and ops_per_s of %s must have as many elements, not %s and %s', fn,
                             coalesce(cardinality(methods), 0), coalesce(cardinality(ops_per_s), 0)),
            HINT = 'One element of each per round: a method and its durable operations per second.';
    END IF;
    FOR i IN 1 .. coalesce(cardinality(ops_per_s), 0) LOOP
        IF NOT (ops_per_s[i] >= 0 AND ops_per_s[i] < 'Infinity') THEN
            RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
                MESSAGE = format('ops_per_s[%s] of %s must be a finite number of 0 or more, not %s', i, fn, ops_per_s[i]),
                HINT = 'ops_per_s are a round''s durable operations per second; NULL or 0 for a round that did not run.';
        END IF;
    END LOOP;
    SELECT array_agg(g.m ORDER BY g.mean DESC, g.m), array_agg(g.n ORDER BY g.mean DESC, g.m),
           array_agg(g.mean ORDER BY g.mean DESC, g.m), array_agg(g.low ORDER BY g.mean DESC, g.m),
           array_agg(g.high ORDER BY g.mean DESC, g.m)
      INTO ms, ns, means, lows, highs
      FROM (SELECT u.m, (ranread_internal.ranread_rounds_interval(array_agg(u.o))).*
              FROM unnest(methods, ops_per_s) AS u(m, o)
             WHERE u.m IN ('open_datasync', 'fdatasync', 'fsync', 'fsync_writethrough', 'open_sync') AND u.o > 0
             GROUP BY u.m) g;
    k := coalesce(cardinality(ms), 0);
    IF k = 0 THEN
        RETURN;
    END IF;
    c := array_position(ms, current);
    best_ops := means[1];
    current_ops := means[c];
    measured := (SELECT string_agg(format('%s %s ops/s%s', ms[i], to_char(round(means[i]::numeric), 'FM999,999,999,990'),
                                          CASE WHEN ns[i] > 1
                                               THEN format(' (95%% interval %s to %s, %s rounds)',
                                                           to_char(round(lows[i]::numeric), 'FM999,999,999,990'),
                                                           to_char(round(highs[i]::numeric), 'FM999,999,999,990'), ns[i])
                                               ELSE '' END), ', ' ORDER BY i)
                   FROM generate_series(1, k) i);
    names := array_to_string(ms, ', ');
    settled := true;
    IF k = 1 AND c IS NOT NULL THEN
        note := format('only %s, the server''s wal_sync_method, was measured: nothing to compare it with', current);
        RETURN;
    ELSIF k = 1 THEN
        note := format('only %s was measured, not %s, the server''s wal_sync_method: nothing to compare', ms[1], current);
        RETURN;
    ELSIF c IS NULL THEN
        note := format('the fastest of %s is %s, but %s, the server''s wal_sync_method, was not measured with them: nothing to compare it with',
                       names, ms[1], current);
        RETURN;
    END IF;
    faster_pct := trim_scale(round((100 * (means[1] / means[c] - 1))::numeric, 1));
    -- a method that does at least another's work is never advised over it
    FOR i IN 1 .. k LOOP
        IF i <> c AND NOT (ms[i] = 'fsync' AND 'fdatasync' = ANY (ms))
                  AND NOT (ms[i] = 'open_sync' AND 'open_datasync' = ANY (ms)) THEN
            cands := cands || i;
        END IF;
    END LOOP;
    SELECT string_agg(format('; %s measured faster than %s, though it does at least %s''s work (%s): that is noise, and it is never advised over it',
                             h.heavy, h.light, h.light, h.why), '')
      INTO extra
      FROM (VALUES ('fsync', 'fdatasync', 'it also flushes the file''s metadata'),
                   ('open_sync', 'open_datasync', 'O_SYNC also waits for the file''s metadata')) h(heavy, light, why)
     WHERE array_position(ms, h.heavy) < array_position(ms, h.light)
       AND means[array_position(ms, h.heavy)] > means[array_position(ms, h.light)];
    extra := coalesce(extra, '');
    method := current;
    -- one round each shows no noise: nothing can be told from the gaps
    IF (SELECT bool_or(ns[i] < 2) FROM unnest(cands || c) i) THEN
        settled := false;
        note := format('the fastest of %s is %s, %s%% faster than %s, the server''s wal_sync_method, but one round each shows nothing of the noise: %s stays (a commit test repeats its rounds until the intervals tell)',
                       names, ms[1], faster_pct, current, current) || extra;
        RETURN;
    END IF;
    -- faster beyond the noise: the interval above the current method's, the mean more than 10% above
    wins := ARRAY(SELECT i FROM unnest(cands) i
                   WHERE lows[i] > highs[c] AND means[i] > (1 + noise) * means[c] ORDER BY i);
    IF cardinality(wins) > 0 THEN
        top := wins[1];
        ties := ARRAY(SELECT ms[i] FROM unnest(wins) i WHERE highs[i] >= lows[top]
                       ORDER BY array_position(pg_order, ms[i]));
        pick := array_position(ms, ties[1]);
        method := ms[pick];
        note := format('%s is %s%% faster than %s, the server''s wal_sync_method, beyond the noise: its 95%% interval (%s to %s ops/s) lies above %s''s (%s to %s)',
                       method, trim_scale(round((100 * (means[pick] / means[c] - 1))::numeric, 1)), current,
                       to_char(round(lows[pick]::numeric), 'FM999,999,999,990'), to_char(round(highs[pick]::numeric), 'FM999,999,999,990'),
                       current, to_char(round(lows[c]::numeric), 'FM999,999,999,990'), to_char(round(highs[c]::numeric), 'FM999,999,999,990'))
             || CASE WHEN cardinality(ties) > 1
                     THEN format('; %s are as fast within the noise, and %s comes first in fdatasync, open_datasync, fsync, open_sync',
                                 array_to_string(ties, ' and '), method) ELSE '' END
             || extra;
        RETURN;
    END IF;
    IF (SELECT coalesce(bool_and(highs[i] <= (1 + noise) * lows[c]), true) FROM unnest(cands) i) THEN
        note := format('no clear winner: %s, so %s stays',
                       CASE WHEN cardinality(cands) = 0
                            THEN format('no other method measured may be advised over %s', current)
                            ELSE format('none of %s is more than %s%% faster than %s, the server''s wal_sync_method, even at the ends of their 95%% intervals',
                                        (SELECT string_agg(ms[i], ', ' ORDER BY i) FROM unnest(cands) i),
                                        100 * noise, current) END, current)
             || extra;
        RETURN;
    END IF;
    settled := false;
    note := format('no clear winner after %s rounds: %s, so %s stays',
                   (SELECT min(ns[i]) FROM unnest(cands || c) i),
                   (SELECT string_agg(format('%s (%s to %s ops/s)', ms[i], to_char(round(lows[i]::numeric), 'FM999,999,999,990'),
                                             to_char(round(highs[i]::numeric), 'FM999,999,999,990')), ', ' ORDER BY i)
                      FROM unnest(cands) i)
                   || format(' and %s, the server''s wal_sync_method (%s to %s), overlap or lie within %s%% of each other',
                             current, to_char(round(lows[c]::numeric), 'FM999,999,999,990'),
                             to_char(round(highs[c]::numeric), 'FM999,999,999,990'), 100 * noise),
                   current)
         || extra;
END
$$;

-- ranread_advise's steps and helpers (schema ranread_internal)

-- The batches advice may rest on: completed, timed, one group, reads only,
-- on the device path (what the storage gives; the server path's figures
-- are ranread_advise_server_curve's), unpaced, uniform over the whole
-- target, random 8 KiB or sequential of 128 KiB or more.  stale says why a batch does not count for tablespace_name:
-- it measured another tablespace, or a target made again since.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_advise_history(tablespace_name name)
RETURNS SETOF ranread_internal.ranread_advise_batch
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT b.batch, b.run_at, b.target, b.tablespace,
           CASE b.pattern WHEN 'random' THEN 'random' ELSE 'sequential' END,
           b.processes, b.queue_depth, b.block_size, b.iops, b.mbps, b.avg_ms,
           CASE WHEN b.tablespace IS DISTINCT FROM $1
                THEN format('batch %s measured tablespace %s', b.batch, coalesce(b.tablespace::text, 'unknown'))
                WHEN t.created_at > b.run_at
                THEN format('batch %s is older than target %s, made again at %s',
                            b.batch, t.target, to_char(t.created_at, 'YYYY-MM-DD HH24:MI:SS'))
           END,
           t.size_bytes, NULL::integer, NULL::bigint[], NULL::float8, NULL::float8
      FROM @extschema@.ranread_batches b
      LEFT JOIN @extschema@.ranread_targets t ON t.target = b.target
     WHERE b.status = 'completed'
       AND b.commit_test IS NULL
       AND coalesce(b.groups, 1) = 1
       AND coalesce(b.path, 'device') = 'device'
       AND b.write_pct = 0
       AND b.sync IS NULL
       AND b.rate_iops IS NULL
       AND b.avg_ms IS NOT NULL
       AND b.iops > 0
       AND coalesce(b.distribution, 'uniform') = 'uniform'
       AND b.region_start = 0 AND b.region_end = 100
       AND ((b.pattern = 'random' AND b.block_size = 8192)
            OR (b.pattern = 'sequential' AND b.block_size >= 131072))
$$;

-- The server path's curve on a tablespace (docs/server-path.md): one process reading random 8 KiB blocks through shared buffers,
-- at each prefetch distance measured (effective_io_concurrency), each the
-- median of the latest five comparable batches on the target of the latest
-- of them: completed, timed, one group of one process, reads only, unpaced,
-- uniform over the whole target, path server, on the tablespace, newer than
-- its target, and answered by the device (cache_pct below 50: figures the
-- caches made are memory's).  batches: all of them; spread: the most a
-- distance's batches vary ((max - min) / median of their IOPS).  NULLs where
-- there are none.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_advise_server_curve(tablespace_name name,
    OUT prefetch integer[], OUT iops float8[], OUT avg_ms float8[], OUT batches bigint[],
    OUT curve_text text, OUT spread float8)
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    WITH c AS (
        SELECT b.batch, b.run_at, b.target, b.effective_io_concurrency AS e, b.iops, b.avg_ms
          FROM @extschema@.ranread_batches b
          JOIN @extschema@.ranread_targets t ON t.target = b.target AND t.created_at <= b.run_at
         WHERE b.status = 'completed' AND b.path = 'server' AND coalesce(b.groups, 1) = 1
           AND b.processes = 1 AND b.write_pct = 0 AND b.rate_iops IS NULL
           AND b.avg_ms IS NOT NULL AND b.iops > 0 AND b.pattern = 'random' AND b.block_size = 8192
           AND coalesce(b.distribution, 'uniform') = 'uniform' AND b.region_start = 0 AND b.region_end = 100
           AND b.tablespace = $1 AND b.cache_pct < 50
    ), w AS (
        SELECT c.*, row_number() OVER (PARTITION BY c.e ORDER BY c.run_at DESC, c.batch DESC) AS k
          FROM c WHERE c.target = (SELECT l.target FROM c l ORDER BY l.run_at DESC, l.batch DESC LIMIT 1)
    ), m AS (
        SELECT w.e, percentile_cont(0.5) WITHIN GROUP (ORDER BY w.iops) AS iops,
               percentile_cont(0.5) WITHIN GROUP (ORDER BY w.avg_ms) AS avg_ms,
               count(*) AS n, array_agg(w.batch ORDER BY w.batch) AS batches,
               (max(w.iops) - min(w.iops)) / percentile_cont(0.5) WITHIN GROUP (ORDER BY w.iops) AS spread
          FROM w WHERE w.k <= 5 GROUP BY w.e
    )
    SELECT array_agg(m.e ORDER BY m.e), array_agg(m.iops ORDER BY m.e), array_agg(m.avg_ms ORDER BY m.e),
           (SELECT array_agg(x ORDER BY x) FROM m, unnest(m.batches) x),
           string_agg(format('%s: %s IOPS at %s ms average', m.e, to_char(round(m.iops::numeric), 'FM999,999,999,990'),
                             round(m.avg_ms::numeric, 3))
                      || CASE WHEN m.n > 1 THEN format(' (median of %s batches, which vary by %s%%)', m.n,
                                                      round((100 * m.spread)::numeric, 1)) ELSE '' END,
                      '; ' ORDER BY m.e),
           max(m.spread) FILTER (WHERE m.n > 1)
      FROM m
$$;

-- Why the batches of a kind (and processes, queue depth: NULL for any) that
-- would have counted do not: the three latest, as '; not counted: ...'.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_advise_stale(tablespace_name name, kind text,
    processes integer, queue_depth integer)
RETURNS text
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT coalesce('; not counted: ' || string_agg(x.stale, '; ' ORDER BY x.run_at DESC), '')
      FROM (SELECT h.stale, h.run_at FROM ranread_internal.ranread_advise_history($1) h
             WHERE h.stale IS NOT NULL AND h.kind = $2
               AND ($3 IS NULL OR h.processes = $3) AND ($4 IS NULL OR h.queue_depth = $4)
             ORDER BY h.run_at DESC LIMIT 3) x
$$;

-- A figure advice rests on: the medians of the comparable batches of a
-- tablespace, those of one kind (random or sequential) and block size
-- (and processes, queue depth, or their product the concurrency, where
-- given; NULL for any) that count (ranread_advise_history), on the target
-- of the latest of them, the latest five: a figure is never mixed from two
-- targets, whose sizes, and so what caches may hold of them, differ.  Its
-- spreads say how much those batches vary: (max - min) / median, NULL for
-- one batch.  NULL where no batch is comparable.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_advise_figure(tablespace_name name, kind text,
    block_size integer, processes integer, queue_depth integer, concurrency integer DEFAULT NULL)
RETURNS ranread_internal.ranread_advise_batch
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    WITH c AS (
        SELECT h.* FROM ranread_internal.ranread_advise_history($1) h
         WHERE h.stale IS NULL AND h.kind = $2 AND h.block_size = $3
           AND ($4 IS NULL OR h.processes = $4) AND ($5 IS NULL OR h.queue_depth = $5)
           AND ($6 IS NULL OR h.processes * h.queue_depth = $6)
    ), w AS (
        SELECT c.* FROM c
         WHERE c.target = (SELECT l.target FROM c l ORDER BY l.run_at DESC, l.batch DESC LIMIT 1)
         ORDER BY c.run_at DESC, c.batch DESC LIMIT 5
    ), m AS (
        SELECT max(w.batch) AS batch, max(w.run_at) AS run_at, min(w.target) AS target,
               min(w.measured) AS measured, min(w.processes) AS processes, min(w.queue_depth) AS queue_depth,
               percentile_cont(0.5) WITHIN GROUP (ORDER BY w.iops) AS iops,
               percentile_cont(0.5) WITHIN GROUP (ORDER BY w.mbps) AS mbps,
               percentile_cont(0.5) WITHIN GROUP (ORDER BY w.avg_ms) AS avg_ms,
               min(w.target_bytes) AS target_bytes, count(*)::integer AS n,
               array_agg(w.batch ORDER BY w.batch) AS batches,
               max(w.iops) - min(w.iops) AS iops_range, max(w.avg_ms) - min(w.avg_ms) AS ms_range
          FROM w HAVING count(*) > 0
    )
    SELECT ROW(m.batch, m.run_at, m.target, m.measured, $2, m.processes, m.queue_depth, $3,
               m.iops, m.mbps, m.avg_ms, NULL, m.target_bytes, m.n, m.batches,
               CASE WHEN m.n > 1 THEN m.iops_range / m.iops END,
               CASE WHEN m.n > 1 THEN m.ms_range / m.avg_ms END)::ranread_internal.ranread_advise_batch
      FROM m
$$;

-- One process's sequential reads on a tablespace, as a figure: of the
-- block size and queue depth of the latest such batch.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_advise_seq_one(tablespace_name name)
RETURNS ranread_internal.ranread_advise_batch
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT ranread_internal.ranread_advise_figure($1, 'sequential', h.block_size, 1, h.queue_depth)
      FROM ranread_internal.ranread_advise_history($1) h
     WHERE h.stale IS NULL AND h.kind = 'sequential' AND h.processes = 1
     ORDER BY h.run_at DESC, h.batch DESC LIMIT 1
$$;

-- Where a figure comes from, as the evidence says it: its batch, or the
-- batches it is the median of and how much they vary (spread: its
-- iops_spread or ms_spread, whichever the advice uses).
CREATE OR REPLACE FUNCTION ranread_internal.ranread_advise_source(f ranread_internal.ranread_advise_batch,
    spread float8)
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN ($1).n > 1
                THEN format('median of batches %s, the latest %s; they vary by %s%%', array_to_string(($1).batches, ', '),
                            to_char(($1).run_at, 'YYYY-MM-DD HH24:MI'), round((100 * $2)::numeric, 1))
                ELSE format('batch %s, %s; one batch: how much it varies is not known', ($1).batch,
                            to_char(($1).run_at, 'YYYY-MM-DD HH24:MI')) END
$$;

-- The server's RAM in bytes (NULL where the system does not say), as
-- ranread_setup's warning about small targets counts it.  (src/target/target.c)
CREATE OR REPLACE FUNCTION ranread_internal.ranread_ram_bytes()
RETURNS bigint
AS 'MODULE_PATHNAME', 'ranread_ram_bytes'
LANGUAGE C STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp;

-- Did a cache answer instead of the device?  From the QD1 random 8 KiB
-- read's average (ms) and the size of its target against the server's RAM:
--  - below 0.02 ms (20 us): faster than storage answers a random read
--    through the kernel (NVMe flash takes 50 us or more), so a cache in
--    RAM answered: withhold;
--  - a target smaller than twice the RAM, with reads below 0.2 ms (or no
--    QD1 read to tell): a cache under the filesystem (the device's, a
--    controller's, a virtual machine host's page cache) can hold it and
--    answers that fast: withhold;
--  - a target smaller than twice the RAM, with slower reads: the device
--    answered (a cache in RAM does not take 0.2 ms); say so, advise.
-- withhold: give no advice from the storage's figures; note: why, or NULL.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_advise_cache(qd1_ms float8, target name,
    target_bytes bigint, ram_bytes bigint, OUT withhold boolean, OUT note text)
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT x.fast OR (x.small AND NOT x.slow),
           CASE WHEN x.fast
                THEN format('QD1 random 8 KiB reads average %s us, faster than storage answers a random read (flash takes 50 us or more): a cache answered them, so the storage''s figures are not advised from',
                            round((1000 * $1)::numeric, 1))
                WHEN x.small
                THEN format('target %s is %s, less than twice the server''s RAM (%s), %s', $2,
                            pg_size_pretty($3), pg_size_pretty($4),
                            CASE WHEN $1 IS NULL
                                 THEN 'and no QD1 random 8 KiB read tells a device from a cache: a cache under the filesystem (the device''s, a controller''s, a virtual machine host''s) may have answered, so the storage''s figures are not advised from'
                                 WHEN NOT x.slow
                                 THEN format('and QD1 random 8 KiB reads average %s ms, as fast as a cache under the filesystem (the device''s, a controller''s, a virtual machine host''s) answers: it may have, so the storage''s figures are not advised from',
                                             round($1::numeric, 3))
                                 ELSE format('but QD1 random 8 KiB reads average %s ms, slower than a cache in RAM answers: the device answered',
                                             round($1::numeric, 3)) END) END
      FROM (SELECT coalesce(q.ms < 0.02, false) AS fast, coalesce($3 < 2 * $4, false) AS small,
                   coalesce(q.ms >= 0.2, false) AS slow
              FROM (SELECT ranread_internal.ranread_advise_arg('ranread_advise_cache', 'qd1_ms', $1) AS ms) q) x
$$;

-- The statements that measure what advice rests on, one per figure, with
-- the functions qualified by schema (to run them) or not (to show them);
-- and 'target', the one that makes a target in a tablespace to measure
-- with: twice the server's RAM and twice effective_cache_size, at least
-- 1 GB, so that no cache in RAM can hold it (ranread_advise_cache).
CREATE OR REPLACE FUNCTION ranread_internal.ranread_advise_measure_sql(
    what        text,
    target      name,
    duration    interval,
    max_avg_ms  float8,
    schema      name DEFAULT NULL,
    tablespace  name DEFAULT NULL)
RETURNS text
LANGUAGE sql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT format(CASE $1
        WHEN 'target' THEN
            'SELECT * FROM %1$sranread_setup(%5$L, tablespace => %6$L, target => %2$L);'
        WHEN 'random QD1' THEN
            'SELECT * FROM %1$sranread_run(1, target => %2$L, duration => %3$L);'
        WHEN 'sequential' THEN
            'SELECT * FROM %1$sranread_run(1, target => %2$L, duration => %3$L, block_size => 1048576, pattern => ''sequential'');'
        WHEN 'random sweep' THEN
            'SELECT * FROM %1$sranread_sweep(start => 1, max_processes => 256, duration => %3$L, max_avg_ms => %4$s, target => %2$L);'
        WHEN 'server sweep' THEN
            'SELECT * FROM %1$sranread_paths(target => %2$L, duration => %3$L);'
        WHEN 'sequential sweep' THEN
            'SELECT * FROM %1$sranread_sweep(start => 1, max_processes => 16, duration => %3$L, max_avg_ms => 1000, target => %2$L, block_size => 1048576, pattern => ''sequential'');'
        WHEN 'commit test' THEN
            'SELECT * FROM %1$sranread_commit_test(duration => %3$L);'
        END,
        CASE WHEN $5 IS NULL THEN '' ELSE quote_ident($5) || '.' END, $2, $3, $4,
        CASE WHEN $1 = 'target'
             THEN pg_size_pretty(greatest(2 * pg_size_bytes(current_setting('effective_cache_size')),
                                          2 * ranread_internal.ranread_ram_bytes(), pg_size_bytes('1GB'))) END, $6)
$$;

-- The target ready in a tablespace that advice measures with: one of twice
-- the server's RAM or more first (no cache in RAM holds it), then
-- 'ranread', then the newest; NULL when there is none.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_advise_target(tablespace name)
RETURNS name
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT t.target FROM @extschema@.ranread_targets t
     WHERE t.tablespace = $1 AND t.state = 'ready'
     ORDER BY t.size_bytes >= 2 * ranread_internal.ranread_ram_bytes() DESC NULLS LAST,
              t.target = 'ranread' DESC, t.created_at DESC
     LIMIT 1
$$;

-- Is a suggested value what is set now?  Numbers compare as numbers (4 is
-- 4.0), names without regard to case.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_advise_same(suggested text, current text)
RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN $1 ~ '^-?[0-9]+(\.[0-9]*)?$' AND $2 ~ '^-?[0-9]+(\.[0-9]*)?$'
                THEN $1::numeric = $2::numeric
                ELSE lower($1) = lower($2) END
$$;

-- What one suggestion leaves to apply: nothing when the setting already has
-- the suggested value (apply_now is then NULL), else its part of the NOTICE
-- that applies every suggestion: `setting = value` for ALTER TABLESPACE, or
-- an ALTER SYSTEM statement.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_advise_pending(
    setting text, suggested text, current text, scope text, apply_sql text,
    OUT apply_now text, OUT ts_set text[], OUT sys_set text[])
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT a,
           CASE WHEN a IS NOT NULL AND $4 = 'tablespace'
                THEN ARRAY[format('%s = %s', $1, $2)] ELSE '{}'::text[] END,
           CASE WHEN a IS NOT NULL AND $4 IS DISTINCT FROM 'tablespace'
                THEN ARRAY[format('ALTER SYSTEM SET %s = %s;', $1,
                                  CASE WHEN $2 ~ '^[0-9.]+$' THEN $2 ELSE quote_literal($2) END)]
                ELSE '{}'::text[] END
      FROM (SELECT CASE WHEN ranread_internal.ranread_advise_same($2, $3) THEN NULL ELSE $5 END AS a) x
$$;

-- The first of checks that failed (a NULL failed is not), in their order,
-- or NULL: the caller raises it, so that the error's CONTEXT is the
-- caller's.  Serves ranread_advise's and ranread_profile's checks.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_first_failed(checks ranread_internal.ranread_check[])
RETURNS ranread_internal.ranread_check
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT ROW(c.failed, c.errcode, c.message, c.hint)::ranread_internal.ranread_check
      FROM unnest($1) WITH ORDINALITY AS c(failed, errcode, message, hint, n)
     WHERE c.failed
     ORDER BY c.n
     LIMIT 1
$$;

-- Step: ranread_advise's arguments, before anything runs: the first check
-- that fails (in this order) is raised, naming the argument and what it may
-- be.  Starts the evidence with the call's choices.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_advise_check(
    measure boolean, cache_hit_ratio float8, max_avg_ms float8, duration interval)
RETURNS ranread_internal.ranread_advise_evidence
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    ratio constant text := 'cache_hit_ratio is the share of random page reads you expect shared buffers and the page cache to answer: 0 to 1, PostgreSQL''s default cost assumes 0.9.';
    bad   ranread_internal.ranread_check;
    ev    ranread_internal.ranread_advise_evidence;
BEGIN
    bad := ranread_internal.ranread_first_failed(ARRAY[
        (measure IS NULL, 'null_value_not_allowed', 'measure of ranread_advise must not be NULL',
         'measure => true runs the batches advice needs first; false advises from the history.'),
        (cache_hit_ratio IS NULL, 'null_value_not_allowed', 'cache_hit_ratio of ranread_advise must not be NULL', ratio),
        (NOT (cache_hit_ratio BETWEEN 0 AND 1) OR cache_hit_ratio = 'NaN'::float8, 'invalid_parameter_value',
         format('invalid cache_hit_ratio %s for ranread_advise', cache_hit_ratio), ratio),
        (max_avg_ms IS NULL, 'null_value_not_allowed', 'max_avg_ms of ranread_advise must not be NULL',
         'max_avg_ms is the bound on average latency in milliseconds that the I/O concurrency advice keeps to, such as 10.'),
        (NOT (max_avg_ms > 0) OR max_avg_ms IN ('NaN'::float8, 'Infinity'::float8), 'invalid_parameter_value',
         format('invalid max_avg_ms %s for ranread_advise', max_avg_ms),
         'max_avg_ms is the bound on average latency in milliseconds: a finite number greater than 0, such as 10.'),
        (duration IS NULL, 'null_value_not_allowed', 'duration of ranread_advise must not be NULL',
         'duration is the length of each batch advice asks for, such as ''2s''.'),
        (duration < interval '0.1s' OR duration > interval '10min', 'invalid_parameter_value',
         format('invalid duration "%s" for ranread_advise', duration),
         'duration is the length of each batch advice asks for: from 0.1 s to 10 min, such as ''2s''.')
        ]::ranread_internal.ranread_check[]);
    IF bad.failed THEN
        RAISE EXCEPTION USING ERRCODE = bad.errcode, MESSAGE = bad.message, HINT = bad.hint;
    END IF;
    ev.cache_hit_ratio := cache_hit_ratio;
    ev.max_avg_ms := max_avg_ms;
    ev.duration := duration;
    RETURN ev;
END
$$;

-- Step: the place advice is for: the tablespace (NULL: the database's
-- default) and the target to measure with (the one named, which must be
-- there, or one ready there); when there is none, the name to give one and
-- the statement that makes it.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_advise_place(
    ev ranread_internal.ranread_advise_evidence, tablespace name, target name)
RETURNS ranread_internal.ranread_advise_evidence
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    fn  constant text := 'ranread_advise';
    tgt record;
BEGIN
    SELECT t.spcname INTO ev.reference
      FROM pg_tablespace t JOIN pg_database d ON d.dattablespace = t.oid
     WHERE d.datname = current_database();
    ev.tablespace := coalesce(ranread_advise_place.tablespace, ev.reference);
    IF NOT EXISTS (SELECT FROM pg_tablespace t WHERE t.spcname = ev.tablespace) THEN
        RAISE EXCEPTION USING ERRCODE = 'undefined_object',
            MESSAGE = format('tablespace "%s" does not exist', ev.tablespace),
            HINT = 'See \db in psql for the tablespaces of this server.';
    END IF;
    IF ev.tablespace = 'pg_global' THEN
        RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('tablespace of %s cannot be pg_global', fn),
            DETAIL = 'pg_global holds shared catalogs only, and takes no per-tablespace settings.';
    END IF;

    IF ranread_advise_place.target IS NULL THEN
        ev.target := ranread_internal.ranread_advise_target(ev.tablespace);
    ELSE
        SELECT t.target, t.tablespace INTO tgt
          FROM @extschema@.ranread_targets t WHERE t.target = ranread_advise_place.target;
        IF NOT FOUND THEN
            RAISE EXCEPTION USING ERRCODE = 'undefined_object',
                MESSAGE = format('ranread target "%s" does not exist', ranread_advise_place.target),
                HINT = format('Create it first, e.g. SELECT * FROM ranread_setup(''10GB'', tablespace => %L, target => %L);',
                              ev.tablespace, ranread_advise_place.target);
        END IF;
        IF tgt.tablespace IS DISTINCT FROM ev.tablespace THEN
            RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
                MESSAGE = format('target "%s" of %s is in tablespace %s, not %s', ranread_advise_place.target, fn,
                                 coalesce(tgt.tablespace::text, 'unknown'), ev.tablespace),
                HINT = 'Name a target in the tablespace advised, or leave target NULL to use one there.';
        END IF;
        ev.target := ranread_advise_place.target;
    END IF;
    IF ev.target IS NULL THEN
        ev.target := CASE WHEN ev.tablespace = ev.reference THEN 'ranread' ELSE 'ranread_' || ev.tablespace END;
        ev.setup := ranread_internal.ranread_advise_measure_sql('target', ev.target, NULL, NULL, NULL, ev.tablespace);
    END IF;
    RETURN ev;
END
$$;

-- Step (measure => true): runs the batches advice needs on the place's
-- target, a NOTICE naming each statement first (as to_measure shows them):
-- a random sweep, a sequential sweep, a commit test.  Refuses first a role
-- that may not run them, a standby, a tablespace without a target, and a
-- snapshot that could not see what they record.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_advise_measure(ev ranread_internal.ranread_advise_evidence)
RETURNS void
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    fn      constant text := 'ranread_advise';
    missing text;
    bad     ranread_internal.ranread_check;
    what    text;
BEGIN
    -- by name: each has one signature, whatever options it takes
    SELECT string_agg(format('EXECUTE on function %s', f::regprocedure), ', ') INTO missing
      FROM unnest(ARRAY['ranread_internal.ranread_primary_only',
                        '@extschema@.ranread_sweep',
                        '@extschema@.ranread_commit_test']::regproc[]) AS f
     WHERE NOT has_function_privilege(f, 'EXECUTE');
    IF missing IS NOT NULL THEN
        RAISE EXCEPTION USING
            ERRCODE = 'insufficient_privilege',
            MESSAGE = format('permission denied to measure with %s', fn),
            DETAIL = format('The role %s lacks %s.', current_user, missing),
            HINT = 'Call ranread_advise with measure => false to advise from the history (pg_monitor may), or run it as a role that may run batches.';
    END IF;
    PERFORM ranread_internal.ranread_primary_only(fn);
    bad := ranread_internal.ranread_first_failed(ARRAY[
        (ev.setup IS NOT NULL, 'object_not_in_prerequisite_state',
         format('tablespace %s has no ranread target to measure with', ev.tablespace),
         format('Make one first: %s', ev.setup)),
        (current_setting('transaction_isolation') <> 'read committed', 'invalid_transaction_state',
         format('%s with measure => true must run at the read committed isolation level, not %s',
                fn, current_setting('transaction_isolation')),
         'The batches it runs are recorded by their workers while it runs, which a repeatable read snapshot cannot see; run it outside an explicit transaction.')
        ]::ranread_internal.ranread_check[]);
    IF bad.failed THEN
        RAISE EXCEPTION USING ERRCODE = bad.errcode, MESSAGE = bad.message, HINT = bad.hint;
    END IF;
    FOREACH what IN ARRAY ARRAY['random sweep', 'sequential sweep', 'commit test'] LOOP
        RAISE NOTICE 'ranread_advise measures %: %', what,
            ranread_internal.ranread_advise_measure_sql(what, ev.target, ev.duration, ev.max_avg_ms);
        EXECUTE ranread_internal.ranread_advise_measure_sql(what, ev.target, ev.duration, ev.max_avg_ms,
            (SELECT n.nspname FROM pg_catalog.pg_namespace n
              WHERE n.oid OPERATOR(pg_catalog.=) '@extschema@'::pg_catalog.regnamespace));
    END LOOP;
END
$$;

-- Step: the evidence from the history, each figure the median of the
-- comparable batches (ranread_advise_figure): on the tablespace, a QD1
-- random 8 KiB read, one process's sequential reads, the most MiB/s of
-- sequential reads by several processes (of the same block size and queue
-- depth) and the random curve (a figure at each concurrency, processes x
-- queue depth); one process's sequential reads on the reference
-- tablespace; whether a cache answered (ranread_advise_cache); and the
-- latest commit test on pg_wal that measured the server's wal_sync_method
-- with others, naming the later ones that did not.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_advise_gather(ev ranread_internal.ranread_advise_evidence)
RETURNS ranread_internal.ranread_advise_evidence
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    s1 ranread_internal.ranread_advise_batch;
BEGIN
    ev.random_qd1 := ranread_internal.ranread_advise_figure(ev.tablespace, 'random', 8192, 1, 1);
    s1 := ranread_internal.ranread_advise_seq_one(ev.tablespace);
    ev.seq_one := s1;
    ev.seq_most := (SELECT f FROM (SELECT DISTINCT h.processes FROM ranread_internal.ranread_advise_history(ev.tablespace) h
                                    WHERE h.stale IS NULL AND h.kind = 'sequential' AND h.processes > 1
                                      AND h.block_size = s1.block_size AND h.queue_depth = s1.queue_depth) p,
                         LATERAL ranread_internal.ranread_advise_figure(ev.tablespace, 'sequential', s1.block_size,
                                                                        p.processes, s1.queue_depth) f
                     ORDER BY f.mbps DESC, f.processes LIMIT 1);
    ev.seq_reference := ranread_internal.ranread_advise_seq_one(ev.reference);
    WITH k AS (
        SELECT c.conc, f.iops, f.avg_ms, f.n, f.batches, f.iops_spread
          FROM (SELECT DISTINCT h.processes * h.queue_depth AS conc
                  FROM ranread_internal.ranread_advise_history(ev.tablespace) h
                 WHERE h.stale IS NULL AND h.kind = 'random') c,
               LATERAL ranread_internal.ranread_advise_figure(ev.tablespace, 'random', 8192, NULL, NULL, c.conc) f
    )
    SELECT array_agg(k.conc ORDER BY k.conc), array_agg(k.iops ORDER BY k.conc), array_agg(k.avg_ms ORDER BY k.conc),
           (SELECT array_agg(b ORDER BY b) FROM k, unnest(k.batches) b),
           string_agg(format('%s: %s IOPS, %s ms', k.conc,
                             to_char(round(k.iops::numeric), 'FM999,999,999,990'), round(k.avg_ms::numeric, 3))
                      || CASE WHEN k.n > 1 THEN format(' (median of %s batches, which vary by %s%%)', k.n,
                                                      round((100 * k.iops_spread)::numeric, 1)) ELSE '' END,
                      '; ' ORDER BY k.conc),
           max(k.iops_spread) FILTER (WHERE k.avg_ms <= ev.max_avg_ms)
      INTO ev.curve_concurrency, ev.curve_iops, ev.curve_avg_ms, ev.curve_batches, ev.curve_text, ev.curve_spread
      FROM k;
    ev.ram_bytes := ranread_internal.ranread_ram_bytes();
    SELECT x.withhold, x.note INTO ev.cache_withholds, ev.cache_note
      FROM ranread_internal.ranread_advise_cache((ev.random_qd1).avg_ms, coalesce((ev.random_qd1).target, s1.target),
               coalesce((ev.random_qd1).target_bytes, s1.target_bytes), ev.ram_bytes) x;

    -- the rounds of each commit test on pg_wal, as the server writes its WAL
    -- now: a test whose open_* methods used O_DIRECT where the server does
    -- not (pg_test_fsync's way, or another wal_level) measured something
    -- else, and is named as not counted
    WITH c AS (
        SELECT c.commit_test, max(c.run_at) AS run_at, min(c.filesystem) AS filesystem,
               array_agg(c.method ORDER BY c.batch) AS methods,
               array_agg(c.ops_per_s ORDER BY c.batch) AS ops,
               array_agg(c.batch ORDER BY c.batch) AS batches,
               bool_or(c.direct IS DISTINCT FROM (current_setting('wal_level') = 'minimal') AND c.direct IS NOT NULL) AS other_way
          FROM ranread_internal.ranread_commit_summary_raw c
         WHERE c.tablespace = 'pg_wal' AND c.test = 'one 8 kB write' AND c.durable AND c.status = 'completed'
           AND c.ops_per_s >= 0 AND c.ops_per_s < 'Infinity'
         GROUP BY c.commit_test
    ), w AS (
        SELECT c.commit_test, c.run_at, c.filesystem, c.batches, c.other_way,
               CASE WHEN NOT c.other_way THEN f.method END AS method, f.measured,
               CASE WHEN c.other_way
                    THEN format('it timed open_datasync and open_sync %s O_DIRECT, and this server at wal_level %s opens its WAL %s it',
                                CASE WHEN current_setting('wal_level') = 'minimal' THEN 'without' ELSE 'with' END,
                                current_setting('wal_level'),
                                CASE WHEN current_setting('wal_level') = 'minimal' THEN 'with' ELSE 'without' END)
                    ELSE f.note END AS note
          FROM c, LATERAL @extschema@.ranread_advise_wal_sync_method(c.methods, c.ops,
                                                                     current_setting('wal_sync_method')) f
    ), pick AS (
        SELECT * FROM w WHERE w.method IS NOT NULL ORDER BY w.commit_test DESC LIMIT 1
    )
    SELECT pick.commit_test, pick.run_at, pick.filesystem,
           ARRAY(SELECT b FROM unnest(pick.batches) b ORDER BY b), pick.method, pick.measured, pick.note,
           (SELECT string_agg(format('commit test %s (%s): %s', x.commit_test,
                                     to_char(x.run_at, 'YYYY-MM-DD HH24:MI'), x.note),
                              '; ' ORDER BY x.commit_test DESC)
              FROM (SELECT * FROM w WHERE w.commit_test > coalesce(pick.commit_test, 0)
                     ORDER BY w.commit_test DESC LIMIT 3) x)
      INTO ev.commit_test, ev.commit_run_at, ev.commit_filesystem, ev.commit_batches, ev.commit_method,
           ev.commit_measured, ev.commit_note, ev.commit_skipped
      FROM (SELECT) one LEFT JOIN pick ON true;
    RETURN ev;
END
$$;

-- The statements that measure again on a target no cache in RAM holds
-- (twice the RAM or more), making it first when the tablespace has none:
-- what to_measure says where a cache may have answered.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_advise_large_sql(ev ranread_internal.ranread_advise_evidence,
    what text[])
RETURNS text
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT concat_ws(' ', CASE WHEN l.target IS NULL
                                   THEN ranread_internal.ranread_advise_measure_sql('target', 'ranread_large', NULL, NULL,
                                                                                    NULL, ($1).tablespace) END,
                     (SELECT string_agg(ranread_internal.ranread_advise_measure_sql(w, coalesce(l.target, 'ranread_large'),
                                            ($1).duration, ($1).max_avg_ms), ' ' ORDER BY i)
                        FROM unnest($2) WITH ORDINALITY u(w, i)))
      FROM (SELECT (SELECT t.target FROM @extschema@.ranread_targets t
                     WHERE t.tablespace = ($1).tablespace AND t.state = 'ready' AND t.size_bytes >= 2 * ($1).ram_bytes
                     ORDER BY t.created_at DESC LIMIT 1) AS target) l
$$;

-- A row of advice for one setting: its current values (the server's, and
-- for a tablespace setting the tablespace's own), the suggestion, and
-- apply_sql: the statement that would apply it, NULL when there is no
-- suggestion or it is what is set now (ranread_advise_pending).  A setting
-- from the storage's figures (remeasure: what measures them again) has no
-- suggestion where a cache may have answered (ranread_advise_cache); the
-- warning says so, and that the batches vary more (spread, as a fraction)
-- than the change suggested from the value in force.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_advise_row(
    ev ranread_internal.ranread_advise_evidence, setting text, scope text, suggested text,
    figures text, formula text, to_measure text, batches bigint[],
    spread float8 DEFAULT NULL, remeasure text[] DEFAULT NULL)
RETURNS ranread_internal.ranread_advice
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT $2, current_setting($2), v.ts_value, g.suggested, $3, $5, $6, p.apply_now,
           CASE WHEN g.withheld THEN ranread_internal.ranread_advise_large_sql($1, $10) ELSE $7 END, $8,
           nullif(concat_ws('; ', CASE WHEN $10 IS NOT NULL THEN ($1).cache_note END,
               CASE WHEN p.apply_now IS NOT NULL AND $9 > c.change
                    THEN format('the batches this rests on vary by %s%%, more than the change of %s%% it suggests (%s to %s): measure again when the server is idle, or with longer batches, before applying it',
                                round((100 * $9)::numeric, 1), round((100 * c.change)::numeric, 1), g.current, g.suggested) END), '')
      FROM (SELECT CASE WHEN $3 = 'tablespace'
                        THEN (SELECT split_part(o, '=', 2) FROM pg_tablespace t, unnest(t.spcoptions) o
                               WHERE t.spcname = ($1).tablespace AND split_part(o, '=', 1) = $2) END AS ts_value) v,
           LATERAL (SELECT $10 IS NOT NULL AND coalesce(($1).cache_withholds, false) AS withheld,
                           coalesce(v.ts_value, current_setting($2)) AS current) w,
           LATERAL (SELECT w.withheld, w.current, CASE WHEN NOT w.withheld THEN $4 END AS suggested) g,
           LATERAL (SELECT CASE WHEN g.suggested ~ '^[0-9]+(\.[0-9]*)?$' AND g.current ~ '^[0-9]+(\.[0-9]*)?$'
                                 AND g.current::numeric > 0
                            THEN abs(g.suggested::numeric / g.current::numeric - 1) END AS change) c,
           ranread_internal.ranread_advise_pending($2, g.suggested, g.current, $3,
               CASE WHEN g.suggested IS NULL THEN NULL
                    WHEN $3 = 'tablespace'
                    THEN format('ALTER TABLESPACE %s SET (%s = %s);', quote_ident(($1).tablespace), $2, g.suggested)
                    ELSE format('ALTER SYSTEM SET %s = %s; SELECT pg_reload_conf();', $2,
                                CASE WHEN g.suggested ~ '^[0-9.]+$' THEN g.suggested ELSE quote_literal(g.suggested) END) END) p
$$;

-- Step: random_page_cost and seq_page_cost (ranread_advise_page_costs) from
-- the QD1 random read and one process's sequential page, the reference
-- tablespace's sequential page as the unit.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_advise_page_cost_rows(ev ranread_internal.ranread_advise_evidence)
RETURNS ranread_internal.ranread_advice[]
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    r1       ranread_internal.ranread_advise_batch := ev.random_qd1;
    s1       ranread_internal.ranread_advise_batch := ev.seq_one;
    sref     ranread_internal.ranread_advise_batch := ev.seq_reference;
    ts       name := ev.tablespace;
    ref_ts   name := ev.reference;
    page_ms  float8 := 8192.0 / (s1.mbps * 1048576) * 1000;
    ref_ms   float8 := CASE WHEN ts <> ref_ts THEN 8192.0 / (sref.mbps * 1048576) * 1000 END;
    pc       record;
    figures  text;
    measure_random text;   -- to_measure of random_page_cost
    measure_seq    text;   -- and of seq_page_cost
    ref_target     name;   -- a target on the reference tablespace
    ref_batches    bigint[] := CASE WHEN ts <> ref_ts THEN sref.batches END;
    ref_spread     float8 := CASE WHEN ts <> ref_ts THEN sref.iops_spread END;
    remeasure      constant text[] := ARRAY['random QD1', 'sequential'];
BEGIN
    SELECT * INTO pc FROM @extschema@.ranread_advise_page_costs(r1.avg_ms, page_ms, ev.cache_hit_ratio, ref_ms);
    IF pc.random_page_cost IS NULL THEN
        figures := 'missing: '
                   || concat_ws('; ',
                          CASE WHEN r1.batch IS NULL THEN 'no QD1 random 8 KiB read on ' || ts END,
                          CASE WHEN s1.batch IS NULL THEN 'no sequential read (128 KiB or more) by one process on ' || ts END)
                   || ranread_internal.ranread_advise_stale(ts, 'random', 1, 1)
                   || ranread_internal.ranread_advise_stale(ts, 'sequential', 1, NULL);
        measure_random := concat_ws(' ', ev.setup,
            CASE WHEN r1.batch IS NULL THEN ranread_internal.ranread_advise_measure_sql('random QD1', ev.target, ev.duration, ev.max_avg_ms) END,
            CASE WHEN s1.batch IS NULL THEN ranread_internal.ranread_advise_measure_sql('sequential', ev.target, ev.duration, ev.max_avg_ms) END);
        measure_seq := measure_random;
    ELSE
        figures := format('QD1 random 8 KiB reads: %s ms average (%s); sequential %s KiB reads, one process: %s MiB/s, %s ms per 8 KiB page (%s)',
                          round(r1.avg_ms::numeric, 3), ranread_internal.ranread_advise_source(r1, r1.ms_spread),
                          s1.block_size / 1024, round(s1.mbps::numeric), round(page_ms::numeric, 4),
                          ranread_internal.ranread_advise_source(s1, s1.iops_spread))
                || CASE WHEN ts = ref_ts THEN format('; %s is the database''s default tablespace: its sequential page is the unit', ts)
                        WHEN sref.batch IS NULL THEN format('; no sequential figure on %s, the database''s default tablespace, to compare with: this tablespace''s sequential page is the unit', ref_ts)
                        ELSE format('; on %s, the unit: %s MiB/s, %s ms per page (%s)', ref_ts,
                                    round(sref.mbps::numeric), round(ref_ms::numeric, 4),
                                    ranread_internal.ranread_advise_source(sref, sref.iops_spread)) END
                || format('; cache hit ratio %s (%s)', ev.cache_hit_ratio,
                          CASE WHEN ev.cache_hit_ratio = 0.9 THEN 'PostgreSQL''s assumption; give yours as cache_hit_ratio' ELSE 'given' END);
        IF ts <> ref_ts AND sref.batch IS NULL THEN
            -- the unit is missing: measure it on the reference tablespace
            ref_target := ranread_internal.ranread_advise_target(ref_ts);
            measure_seq := concat_ws(' ',
                CASE WHEN ref_target IS NULL
                     THEN ranread_internal.ranread_advise_measure_sql('target', 'ranread', NULL, NULL, NULL, ref_ts) END,
                ranread_internal.ranread_advise_measure_sql('sequential', coalesce(ref_target, 'ranread'),
                                                            ev.duration, ev.max_avg_ms));
        END IF;
    END IF;
    -- a ratio of figures varies by about the sum of their spreads
    RETURN ARRAY[
        ranread_internal.ranread_advise_row(ev, 'random_page_cost', 'tablespace', pc.random_page_cost::text, figures,
            'random_page_cost = (1 - cache_hit_ratio) x (QD1 random 8 KiB read time / time per 8 KiB page of one process''s large sequential reads on the database''s default tablespace), one decimal, never below seq_page_cost. PostgreSQL''s docs: the default 4.0 models random access as 40 times slower than sequential with 90% of random reads cached, (1 - 0.9) x 40 = 4; a random_page_cost below seq_page_cost is not physically sensible.',
            measure_random, r1.batches || s1.batches || ref_batches,
            (SELECT sum(x) FROM unnest(ARRAY[r1.ms_spread, s1.iops_spread, ref_spread]) x), remeasure),
        ranread_internal.ranread_advise_row(ev, 'seq_page_cost', 'tablespace', pc.seq_page_cost::text, figures,
            'seq_page_cost = time per 8 KiB page of one process''s large sequential reads here / the same on the database''s default tablespace, two decimals: 1 on the default tablespace, whose sequential page is the unit of the planner''s costs (the server''s seq_page_cost, default 1).',
            measure_seq, r1.batches || s1.batches || ref_batches,
            CASE WHEN ref_batches IS NOT NULL THEN (SELECT sum(x) FROM unnest(ARRAY[s1.iops_spread, ref_spread]) x) END, remeasure)];
END
$$;

-- Step: effective_io_concurrency and maintenance_io_concurrency
-- (ranread_advise_io_concurrency): from what PostgreSQL got at each
-- prefetch distance, measured on the server path (ranread_advise_server_curve,
-- ranread_paths), wherever such figures exist; else from the random curve
-- of the device path, as a model of what prefetching could use.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_advise_io_rows(ev ranread_internal.ranread_advise_evidence)
RETURNS ranread_internal.ranread_advice[]
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    modelled constant text := 'the lowest concurrency (processes x queue depth) at which random 8 KiB reads reach 90% of the highest IOPS measured within max_avg_ms average latency, 1 to 1000: the pages in flight past which prefetching gains little. ';
    measured constant text := 'measured, not modelled: the lowest effective_io_concurrency at which one process reading random 8 KiB blocks through shared buffers (ranread''s server path, prefetching that many blocks ahead as a bitmap heap scan does) reaches 90% of the highest IOPS measured within max_avg_ms average latency, 1 to 1000. ';
    sc         record;
    ioc        record;
    formula    text;
    figures    text;
    to_measure text;
    batches    bigint[];
    spread     float8;
    remeasure  text[];
BEGIN
    sc := ranread_internal.ranread_advise_server_curve(ev.tablespace);
    SELECT * INTO ioc FROM @extschema@.ranread_advise_io_concurrency(sc.prefetch, sc.iops, sc.avg_ms, ev.max_avg_ms);
    IF ioc.io_concurrency IS NOT NULL THEN
        formula := measured;
        figures := format('one process''s random 8 KiB reads through shared buffers (path server) by effective_io_concurrency: %s; peak %s IOPS at %s within %s ms average; 90%% of it from %s',
                          sc.curve_text, to_char(round(ioc.peak_iops::numeric), 'FM999,999,999,990'),
                          ioc.peak_concurrency, ev.max_avg_ms, ioc.io_concurrency)
                   || CASE WHEN ioc.still_rising THEN format('; IOPS still rose at the highest distance measured, so %s is a lower bound: measure higher', ioc.io_concurrency) ELSE '' END;
        to_measure := CASE WHEN ioc.still_rising
                           THEN ranread_internal.ranread_advise_measure_sql('server sweep', ev.target, ev.duration, ev.max_avg_ms) END;
        batches := sc.batches;
        spread := sc.spread;
        remeasure := ARRAY['server sweep'];
    ELSE
        SELECT * INTO ioc FROM @extschema@.ranread_advise_io_concurrency(ev.curve_concurrency, ev.curve_iops,
                                                                         ev.curve_avg_ms, ev.max_avg_ms);
        formula := modelled;
        IF ioc.io_concurrency IS NULL THEN
            figures := format('missing: random 8 KiB reads at two or more concurrencies (processes x queue depth) within %s ms average on %s%s',
                              ev.max_avg_ms, ev.tablespace,
                              CASE WHEN ev.curve_text IS NOT NULL THEN '; measured: ' || ev.curve_text ELSE '' END)
                       || ranread_internal.ranread_advise_stale(ev.tablespace, 'random', NULL, NULL);
            to_measure := concat_ws(' ', ev.setup,
                                    ranread_internal.ranread_advise_measure_sql('random sweep', ev.target, ev.duration, ev.max_avg_ms));
        ELSE
            figures := format('random 8 KiB reads by concurrency (I/Os in flight): %s; peak %s IOPS at %s within %s ms average; 90%% of it from %s',
                              ev.curve_text, to_char(round(ioc.peak_iops::numeric), 'FM999,999,999,990'),
                              ioc.peak_concurrency, ev.max_avg_ms, ioc.io_concurrency)
                       || CASE WHEN ioc.still_rising THEN format('; IOPS still rose at the highest concurrency measured, so %s is a lower bound: measure higher', ioc.io_concurrency) ELSE '' END;
            to_measure := CASE WHEN ioc.still_rising
                               THEN ranread_internal.ranread_advise_measure_sql('random sweep', ev.target, ev.duration, ev.max_avg_ms) END;
        END IF;
        -- what PostgreSQL gets, measured, would replace the model
        IF ioc.io_concurrency IS NOT NULL THEN
            figures := figures || '; a model: what PostgreSQL itself gets at each effective_io_concurrency, measured by ranread_paths, replaces it';
        END IF;
        batches := coalesce(ev.curve_batches, '{}');
        spread := ev.curve_spread;
        remeasure := ARRAY['random sweep'];
    END IF;
    -- both settings follow from the same curve; they differ in what uses them
    RETURN (SELECT array_agg(ranread_internal.ranread_advise_row(ev, u.setting, 'tablespace', ioc.io_concurrency::text,
                                 figures, formula || u.used, to_measure, batches, spread, remeasure) ORDER BY u.n)
              FROM (VALUES (1, 'effective_io_concurrency', 'PostgreSQL 15 uses it as the prefetch distance of bitmap heap scans; its docs: the number of drives for RAID, hundreds for SSDs.'),
                           (2, 'maintenance_io_concurrency', 'PostgreSQL 15 uses it for prefetching on behalf of many sessions: ANALYZE, index deletion, recovery prefetch.')
                   ) u(n, setting, used));
END
$$;

-- Step: max_parallel_workers_per_gather (ranread_advise_parallel_workers)
-- from sequential reads by one process and by several.  A server-wide
-- setting from one tablespace's figures: the figures say which tablespace,
-- and where the server has others (not measured here) the warning says the
-- setting would apply to them too.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_advise_parallel_rows(ev ranread_internal.ranread_advise_evidence)
RETURNS ranread_internal.ranread_advice[]
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    one  ranread_internal.ranread_advise_batch := ev.seq_one;
    most ranread_internal.ranread_advise_batch := ev.seq_most;
    pw   record;
    a    ranread_internal.ranread_advice;
    others text;
BEGIN
    SELECT * INTO pw FROM @extschema@.ranread_advise_parallel_workers(one.mbps, most.mbps);
    SELECT string_agg(t.spcname::text, ', ' ORDER BY t.spcname) INTO others
      FROM pg_tablespace t WHERE t.spcname NOT IN ('pg_global', ev.tablespace);
    a := ranread_internal.ranread_advise_row(ev, 'max_parallel_workers_per_gather', 'server', pw.workers::text,
        CASE WHEN pw.workers IS NULL
             THEN 'missing: sequential reads (128 KiB or more) by one process and by several on ' || ev.tablespace
                  || ranread_internal.ranread_advise_stale(ev.tablespace, 'sequential', NULL, NULL)
             ELSE format('tablespace %s alone: sequential reads: one process %s MiB/s (%s), the most with several %s MiB/s, by %s processes (%s): %s',
                         ev.tablespace,
                         round(one.mbps::numeric), ranread_internal.ranread_advise_source(one, one.iops_spread),
                         round(most.mbps::numeric), most.processes,
                         ranread_internal.ranread_advise_source(most, most.iops_spread),
                         CASE WHEN pw.processes = 1 THEN 'one process already reads as fast as several'
                              ELSE format('%s processes'' worth', pw.processes) END) END,
        'a cap for I/O-bound parallel scans: processes = round(sequential MiB/s of all processes / of one process), as Oracle''s CALIBRATE_IO feeds PARALLEL_DEGREE_LIMIT=IO (MAX_MBPS / MAX_PMBPS); workers per gather = processes - 1, since the leader scans too. Plans bound by CPU on cached data may still use more. It is a server-wide setting, from the figures of one tablespace.',
        CASE WHEN pw.workers IS NULL
             THEN concat_ws(' ', ev.setup,
                            ranread_internal.ranread_advise_measure_sql('sequential sweep', ev.target, ev.duration, ev.max_avg_ms)) END,
        coalesce(one.batches || most.batches, '{}'),
        (SELECT sum(x) FROM unnest(ARRAY[one.iops_spread, most.iops_spread]) x),
        ARRAY['sequential sweep']);
    IF pw.workers IS NOT NULL AND others IS NOT NULL THEN
        a.warning := concat_ws('; ', a.warning,
            format('max_parallel_workers_per_gather is server-wide, but this rests on tablespace %s alone: the server''s other tablespaces (%s) were not measured, and their storage may read faster or slower in parallel',
                   ev.tablespace, others));
    END IF;
    RETURN ARRAY[a];
END
$$;

-- Step: wal_sync_method (ranread_advise_wal_sync_method) from the commit
-- test the evidence names, which measured the server's method with others;
-- and next to it the latest durability check (ranread_advise_durability:
-- did the storage keep what it flushed?), or that none was run.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_advise_wal_rows(ev ranread_internal.ranread_advise_evidence)
RETURNS ranread_internal.ranread_advice[]
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    a   ranread_internal.ranread_advice;
    dur record;
BEGIN
    dur := ranread_internal.ranread_advise_durability_latest();
    a := ranread_internal.ranread_advise_row(ev, 'wal_sync_method', 'server', ev.commit_method,
        CASE WHEN ev.commit_method IS NULL
             THEN format('missing: a commit test on pg_wal''s filesystem that measured %s, the server''s wal_sync_method, and other methods together, as this server writes its WAL',
                         current_setting('wal_sync_method'))
             ELSE format('commit test %s on pg_wal (%s, %s), one 8 kB write and its sync: %s; %s',
                         ev.commit_test, ev.commit_filesystem, to_char(ev.commit_run_at, 'YYYY-MM-DD HH24:MI'),
                         ev.commit_measured, ev.commit_note) END
        || coalesce('; not counted: ' || ev.commit_skipped, '')
        || '; ' || dur.citation,
        format('among the durable methods one commit test timed together on pg_wal''s filesystem, one 8 kB write and its sync, in alternated rounds, as this server writes its WAL (open_datasync and open_sync with O_DIRECT only at wal_level minimal): the current method stays unless another is faster beyond the noise (its 95%% interval above the current method''s) and by more than %s%%; among several such within the noise of each other, the first of fdatasync, open_datasync, fsync, open_sync; fsync is never advised over fdatasync, nor open_sync over open_datasync (each does at least the other''s work). Trusts the device to keep its promise to write through (a durability check tests that promise across a power cut).',
               100 * ranread_internal.ranread_advise_noise()),
        CASE WHEN ev.commit_method IS NULL
             THEN ranread_internal.ranread_advise_measure_sql('commit test', NULL, ev.duration, ev.max_avg_ms) END,
        coalesce(ev.commit_batches, '{}'));
    a.warning := nullif(concat_ws('; ', a.warning, dur.warning), '');
    RETURN ARRAY[a];
END
$$;

-- Step: full_page_writes (ranread_advise_full_page_writes) from what statx
-- says of atomic writes on the advised tablespace and on the database's
-- default one (ranread_atomic_writes): the storage's facts, not figures.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_advise_fpw_rows(ev ranread_internal.ranread_advise_evidence)
RETURNS ranread_internal.ranread_advice[]
LANGUAGE sql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT ARRAY[ranread_internal.ranread_advise_row($1, 'full_page_writes', 'server', f.suggested, f.figures,
        'full_page_writes stays on unless the storage under every tablespace guarantees that an 8 kB page write is atomic (statx STATX_WRITE_ATOMIC, Linux 6.11+: the atomic write unit covers 8 kB), and even then only where PostgreSQL''s writes get that guarantee; a torn page is otherwise repaired only from the full page image in the WAL.',
        NULL, '{}')]
      FROM (SELECT array_agg(p.name ORDER BY p.i) AS places, array_agg(w.atomic_8k ORDER BY p.i) AS atomic,
                   array_agg(w.note ORDER BY p.i) AS notes
              FROM (SELECT DISTINCT ON (x.name) x.name, x.i
                      FROM unnest(ARRAY[($1).tablespace, ($1).reference]) WITH ORDINALITY AS x(name, i)
                     ORDER BY x.name, x.i) p,
                   LATERAL ranread_internal.ranread_atomic_writes(p.name) w) a,
           LATERAL ranread_internal.ranread_advise_full_page_writes(a.places, a.atomic, a.notes,
                                                                    current_setting('full_page_writes')) f
$$;

-- Step: the NOTICE that ends the advice: the statements that would apply
-- every suggestion not yet in force (nothing is applied), or that there are
-- no figures yet, or that nothing needs to change.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_advise_notice(tablespace name,
    advice ranread_internal.ranread_advice[])
RETURNS void
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    a        ranread_internal.ranread_advice;
    ts_sets  text[] := '{}';   -- what to apply, per tablespace
    sys_sets text[] := '{}';   -- and per server
BEGIN
    FOREACH a IN ARRAY advice LOOP
        SELECT ts_sets || p.ts_set, sys_sets || p.sys_set INTO ts_sets, sys_sets
          FROM ranread_internal.ranread_advise_pending(a.setting, a.suggested,
                   coalesce(a.tablespace_value, a.server_value), a.scope, a.apply_sql) p;
    END LOOP;
    IF cardinality(ts_sets) + cardinality(sys_sets) > 0 THEN
        RAISE NOTICE 'ranread_advise for %: nothing has been applied; to apply every suggestion: %', tablespace,
            concat_ws(' ',
                CASE WHEN cardinality(ts_sets) > 0
                     THEN format('ALTER TABLESPACE %s SET (%s);', quote_ident(tablespace), array_to_string(ts_sets, ', ')) END,
                array_to_string(sys_sets, ' '),
                CASE WHEN cardinality(sys_sets) > 0 THEN 'SELECT pg_reload_conf();' END);
    -- full_page_writes follows from the storage's facts, not from figures
    ELSIF (SELECT bool_and(x.suggested IS NULL) FROM unnest(advice) x WHERE x.setting <> 'full_page_writes') THEN
        RAISE NOTICE 'ranread_advise for %: no figures to advise from yet; to_measure says what to run, or call ranread_advise(%, measure => true)',
            tablespace, quote_literal(tablespace);
    ELSE
        RAISE NOTICE 'ranread_advise for %: nothing to change%', tablespace,
            CASE WHEN (SELECT bool_or(x.suggested IS NULL) FROM unnest(advice) x)
                 THEN ' in what could be advised; to_measure says what to run for the rest' ELSE '' END;
    END IF;
END
$$;

-- From numbers to settings: one row per setting, from the batches on the
-- tablespace (and the latest commit test on pg_wal), or, with measure =>
-- true, from the short batches it runs first and names.  Never applies
-- anything.  Advice needs, on the tablespace: a QD1 random 8 KiB read, a
-- sequential read of one process (1 MiB), random reads at two or more
-- concurrencies, sequential reads by several processes; and a commit test.
-- What is missing or stale is named, with the statement that measures it.
CREATE OR REPLACE FUNCTION @extschema@.ranread_advise(
    tablespace       name     DEFAULT NULL,
    measure          boolean  DEFAULT false,
    cache_hit_ratio  float8   DEFAULT 0.9,
    max_avg_ms       float8   DEFAULT 10,
    @options(target=NULL, duration='2s'))
    @skip(rest: advice measures the few workloads its formulas need, each its own)
RETURNS TABLE (
    setting          text,
    server_value     text,
    tablespace_value text,
    suggested        text,
    scope            text,
    figures          text,
    formula          text,
    apply_sql        text,
    to_measure       text,
    batches          bigint[],
    warning          text)
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    ev     ranread_internal.ranread_advise_evidence;
    advice ranread_internal.ranread_advice[];
BEGIN
    -- the steps that refuse arguments are assignments (not PERFORM), so
    -- that their errors' CONTEXT is the step and ranread_advise, without
    -- the text of an SQL statement
    ev := ranread_internal.ranread_advise_check(measure, cache_hit_ratio, max_avg_ms, duration);
    ev := ranread_internal.ranread_advise_place(ev, tablespace, target);
    IF measure THEN
        PERFORM ranread_internal.ranread_advise_measure(ev);
    END IF;
    ev := ranread_internal.ranread_advise_gather(ev);
    advice := ranread_internal.ranread_advise_page_cost_rows(ev)
              || ranread_internal.ranread_advise_io_rows(ev)
              || ranread_internal.ranread_advise_parallel_rows(ev)
              || ranread_internal.ranread_advise_wal_rows(ev)
              || ranread_internal.ranread_advise_fpw_rows(ev);
    RETURN QUERY SELECT * FROM unnest(advice);
    -- one WARNING names the settings whose advice carries a warning, for
    -- a caller who reads only setting and suggested
    IF (SELECT bool_or(a.warning IS NOT NULL) FROM unnest(advice) a) THEN
        RAISE WARNING 'ranread_advise for %: the advice on % carries a warning: see the warning column', ev.tablespace,
            (SELECT string_agg(a.setting, ', ') FROM unnest(advice) a WHERE a.warning IS NOT NULL);
    END IF;
    PERFORM ranread_internal.ranread_advise_notice(ev.tablespace, advice);
END
$$;

-- Readers of the history (pg_monitor) may ask for advice without measuring:
-- ranread_advise then only reads what they may read, through the steps
-- below (ranread_advise_measure only to be told why it may not measure).
GRANT EXECUTE ON FUNCTION
    @extschema@.ranread_advise(name, boolean, float8, float8, name, interval),
    @extschema@.ranread_advise_page_costs(float8, float8, float8, float8),
    @extschema@.ranread_advise_io_concurrency(integer[], float8[], float8[], float8, float8),
    @extschema@.ranread_advise_parallel_workers(float8, float8),
    @extschema@.ranread_advise_wal_sync_method(text[], float8[], text),
    ranread_internal.ranread_advise_history(name),
    ranread_internal.ranread_advise_server_curve(name),
    ranread_internal.ranread_advise_stale(name, text, integer, integer),
    ranread_internal.ranread_advise_measure_sql(text, name, interval, float8, name, name),
    ranread_internal.ranread_advise_target(name),
    ranread_internal.ranread_advise_same(text, text),
    ranread_internal.ranread_advise_pending(text, text, text, text, text),
    ranread_internal.ranread_first_failed(ranread_internal.ranread_check[]),
    ranread_internal.ranread_advise_check(boolean, float8, float8, interval),
    ranread_internal.ranread_advise_place(ranread_internal.ranread_advise_evidence, name, name),
    ranread_internal.ranread_advise_measure(ranread_internal.ranread_advise_evidence),
    ranread_internal.ranread_advise_gather(ranread_internal.ranread_advise_evidence),
    ranread_internal.ranread_advise_row(ranread_internal.ranread_advise_evidence, text, text, text, text, text, text, bigint[], float8, text[]),
    ranread_internal.ranread_advise_large_sql(ranread_internal.ranread_advise_evidence, text[]),
    ranread_internal.ranread_advise_figure(name, text, integer, integer, integer, integer),
    ranread_internal.ranread_advise_seq_one(name),
    ranread_internal.ranread_advise_source(ranread_internal.ranread_advise_batch, float8),
    ranread_internal.ranread_advise_cache(float8, name, bigint, bigint),
    ranread_internal.ranread_advise_noise(),
    ranread_internal.ranread_advise_arg(text, text, float8, float8, float8),
    ranread_internal.ranread_t95(integer),
    ranread_internal.ranread_rounds_interval(float8[]),
    ranread_internal.ranread_ram_bytes(),
    ranread_internal.ranread_advise_page_cost_rows(ranread_internal.ranread_advise_evidence),
    ranread_internal.ranread_advise_io_rows(ranread_internal.ranread_advise_evidence),
    ranread_internal.ranread_advise_parallel_rows(ranread_internal.ranread_advise_evidence),
    ranread_internal.ranread_advise_wal_rows(ranread_internal.ranread_advise_evidence),
    ranread_internal.ranread_advise_durability(bigint, name, text, timestamptz, bigint, bigint, bigint, text),
    ranread_internal.ranread_advise_durability_latest(),
    ranread_internal.ranread_advise_fpw_rows(ranread_internal.ranread_advise_evidence),
    ranread_internal.ranread_atomic_writes(name),
    ranread_internal.ranread_advise_full_page_writes(name[], boolean[], text[], text),
    ranread_internal.ranread_advise_notice(name, ranread_internal.ranread_advice[])
    TO pg_monitor;
