-- 1.1, the latency-target search: the highest load at which a share of the
-- I/Os stays within a latency bound, found as fio's latency_target finds
-- it.
--
-- A search is recorded in its batches, one per window: each carries, in
-- ranread_batches.point, the search's id (from ranread_latency_target_seq),
-- the window's step and load and the search's settings.  The verdict
-- (ranread_latency_target_verdict) is worked out again from those rows by
-- the same rule that ran the search, so it needs no row of its own: a
-- search cancelled half-way still shows what it found (as interrupted), and
-- ranread_reset removes searches with their batches.
--
-- Every object is schema-qualified and every function pins search_path.


-- The percentage of a histogram's I/Os that took at most limit_ms: whole
-- buckets below the limit, and the bucket the limit falls in in proportion
-- (linear within the bucket); 0 below the fastest I/O, 100 at or above the
-- slowest.  NULL for an empty histogram; NaN is no limit and is refused.
CREATE OR REPLACE FUNCTION @extschema@.ranread_hist_within(histogram bytea, limit_ms float8)
RETURNS float8
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF limit_ms = 'NaN' THEN
        RAISE EXCEPTION 'limit_ms must be a number of milliseconds, not NaN'
            USING ERRCODE = '22023',
                  HINT = 'Any value from -Infinity to Infinity is allowed: below the fastest I/O gives 0, at or above the slowest 100.';
    END IF;
    RETURN (
    SELECT CASE WHEN s.total IS NULL OR s.total = 0 THEN NULL
                WHEN limit_ms >= m.slowest THEN 100
                WHEN limit_ms < m.fastest THEN 0
                ELSE least(100, 100 * s.within / s.total) END
      FROM (SELECT sum(b.count)::float8 AS total,
                   sum(CASE WHEN b.high_ms <= limit_ms THEN b.count
                            WHEN b.low_ms >= limit_ms THEN 0
                            ELSE b.count * (limit_ms - b.low_ms) / (b.high_ms - b.low_ms) END) AS within
              FROM @extschema@.ranread_hist_buckets(histogram) b) s,
           (SELECT @extschema@.ranread_hist_percentile(histogram, 0) AS fastest,
                   @extschema@.ranread_hist_percentile(histogram, 100) AS slowest) m);
END
$$;

-- A window's figures for the search: the share within target_ms and the
-- latency at percentile, from the batch's merged histogram.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_latency_window(histogram bytea,
    target_ms float8, percentile float8, OUT within_pct float8, OUT latency_ms float8)
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT @extschema@.ranread_hist_within($1, $2), @extschema@.ranread_hist_percentile($1, $3)
$$;

-- What a search does next, given its windows so far: fio's latency_target
-- (io_u.c, lat_target_*), replayed over the windows.  Pure, so the rule can
-- be tested on known numbers.
--   A window holds when at least percentile % of its I/Os took at most
--   target_ms (fio: 100 x (ios - failed) / ios >= percentile).
--   State: load (starts at 1), low (the last load that held, starts at 1),
--   high (the last load that failed; none at first).
--   A window that holds: low = load; while no window has failed the load
--   doubles (clamped to max_load), after that it is (load + high) / 2,
--   integer division.  When that leaves the load where it is, the next
--   window is the confirming run at the same load.
--   A window that fails: high = load; if load = low (a load that had held,
--   run again), low = low - 1; load = (load + low) / 2.
--   The confirming run holds: the search ends, and that load is the answer.
--   It fails: it counts as a failed window and the search goes on, to
--   confirm its next answer in turn.
-- It stops without an answer when a window at load 1 fails, when a batch
-- did not complete, or when a window has no latency figures.  Each
-- stop_reason starts with its rule's name and a colon: confirmed, max_load
-- (the bound held at max_load itself, so the limit is higher), none,
-- status, timing.
--
-- Where it differs from fio: fio doubles while high equals iodepth, so a
-- failure at iodepth itself leaves it doubling back to iodepth for ever;
-- here doubling ends at the first failure.  fio judges windows of
-- latency_window, and at percentile 100 reacts to each late I/O at once;
-- here each window is a whole batch of the given duration.  fio ends
-- without another full window when its final window fails; here the next
-- answer is confirmed too.
CREATE OR REPLACE FUNCTION @extschema@.ranread_latency_target_next(
    steps       @extschema@.ranread_latency_step[],
    target_ms   float8,
    percentile  float8,
    max_load    integer,
    OUT next_load   integer,
    OUT confirming  boolean,
    OUT found_load  integer,
    OUT found_step  integer,
    OUT stop_reason text)
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    s        @extschema@.ranread_latency_step;
    low      integer := 1;
    high     integer;           -- NULL until a window fails: the load doubles
    load     integer := 1;
    confirm  boolean := false;
    holds    boolean;
    bound    text := format('p%s <= %s ms', percentile, target_ms);
BEGIN
    FOREACH s IN ARRAY coalesce(steps, '{}') LOOP
        IF s.status IS DISTINCT FROM 'completed' THEN
            stop_reason := format('status: batch %s at load %s ended %s, not completed',
                                  s.batch, s.load, coalesce(s.status, 'without a status'));
            RETURN;
        END IF;
        IF s.within_pct IS NULL THEN
            stop_reason := format('timing: batch %s at load %s has no latency figures (ranread.timing = off, or its history was not recorded)',
                                  s.batch, s.load);
            RETURN;
        END IF;
        holds := s.within_pct >= percentile;

        IF confirm THEN
            IF holds THEN
                found_load := s.load;
                found_step := s.step;
                IF high IS NULL THEN
                    stop_reason := format('max_load: %s held up to max_load %s, the confirming run too; the limit is higher',
                                          bound, s.load);
                ELSE
                    stop_reason := format('confirmed: %s held at load %s and failed at %s; the confirming run at %s held (%s%% of I/Os within %s ms)',
                                          bound, s.load, high, s.load,
                                          round(s.within_pct::numeric, 2), target_ms);
                END IF;
                RETURN;
            END IF;
            confirm := false;
        END IF;

        IF holds THEN
            low := s.load;
            load := CASE WHEN high IS NULL THEN least(s.load::bigint * 2, max_load)::integer
                         ELSE (s.load + high) / 2 END;
            confirm := (load = s.load);
        ELSE
            IF s.load <= 1 THEN
                stop_reason := format('none: %s fails even at load 1: %s%% of I/Os within %s ms, %s%% needed (batch %s)',
                                      bound, round(s.within_pct::numeric, 2), target_ms,
                                      percentile, s.batch);
                RETURN;
            END IF;
            high := s.load;
            IF s.load = low THEN
                low := low - 1;
            END IF;
            load := (s.load + low) / 2;
        END IF;
    END LOOP;
    next_load := load;
    confirming := confirm;
END
$$;

-- Every latency-target search, from its batches: its settings, its
-- windows, and the rule's verdict over them (the load it found and that
-- window's figures), or why it found none.  A search whose windows stop
-- before its rule did is 'running' while it runs, 'interrupted' once it
-- was cancelled between windows.  IOPS whole, latency in ms to 0.001, the
-- share within the bound cut (not rounded up) to 0.01%, so that it is at
-- least the percentile exactly when the bound holds.
CREATE OR REPLACE VIEW @extschema@.ranread_latency_target_verdict AS
WITH w AS (
    SELECT ranread_internal.ranread_json_int(b.point -> 'latency_target', -9223372036854775807, 9223372036854775807) AS latency_target,
           b.batch, b.run_at, b.target, b.tablespace,
           b.point ->> 'dimension' AS dimension,
           ranread_internal.ranread_json_float(b.point -> 'target_ms') AS target_ms,
           ranread_internal.ranread_json_float(b.point -> 'percentile') AS percentile,
           ranread_internal.ranread_json_int(b.point -> 'max_load', 1, 2147483647)::integer AS max_load,
           ROW(ranread_internal.ranread_json_int(b.point -> 'step', 1, 2147483647)::integer,
               ranread_internal.ranread_json_int(b.point -> 'load', 1, 2147483647)::integer, b.batch, b.iops,
               x.within_pct, x.latency_ms, n.status)::@extschema@.ranread_latency_step AS step,
           ranread_internal.ranread_window_ok(b.point) AS ok
      FROM @extschema@.ranread_batches b
           CROSS JOIN LATERAL ranread_internal.ranread_status_now(b.status, b.batch, b.message) n
           LEFT JOIN LATERAL ranread_internal.ranread_latency_window(b.histogram,
                ranread_internal.ranread_json_float(b.point -> 'target_ms'),
                ranread_internal.ranread_json_float(b.point -> 'percentile')) x
                ON ranread_internal.ranread_window_ok(b.point)
     WHERE (b.point ->> 'latency_target') IS NOT NULL
), s AS (
    SELECT w.latency_target, min(w.run_at) AS started_at, min(w.target) AS target,
           min(w.tablespace) AS tablespace, min(w.dimension) AS dimension,
           min(w.target_ms) AS target_ms, min(w.percentile) AS percentile,
           min(w.max_load) AS max_load, count(*) AS windows,
           array_agg(w.step ORDER BY (w.step).step) AS steps
      FROM w
     WHERE w.ok
     GROUP BY w.latency_target
), skipped AS (
    -- the batches of a search whose point is no window (a row of 1.1)
    SELECT w.latency_target, count(*) AS n
      FROM w
     WHERE NOT w.ok AND w.latency_target IS NOT NULL
     GROUP BY w.latency_target
)
SELECT s.latency_target, s.started_at, s.target, s.tablespace, s.dimension,
       s.target_ms, s.percentile, s.max_load, s.windows,
       v.found_load AS load, ranread_internal.ranread_round(f.iops, 0)::bigint AS iops,
       ranread_internal.ranread_round(f.latency_ms, 3)::numeric(15,3) AS latency_ms,
       trunc(f.within_pct::numeric, 2)::numeric(5,2) AS within_pct, f.batch,
       concat_ws('; ',
           coalesce(v.stop_reason,
                    CASE WHEN ranread_internal.ranread_call_running('latency_target', s.latency_target)
                         THEN format('running: %s windows so far; the next at load %s', s.windows, v.next_load)
                         ELSE format('interrupted: the search ended after %s windows; its next window would have been at load %s',
                                     s.windows, v.next_load) END),
           ranread_internal.ranread_skipped(k.n, 'whose point is not a window of a search')) AS stop_reason
  FROM s
       CROSS JOIN LATERAL @extschema@.ranread_latency_target_next(s.steps, s.target_ms,
                                                                 s.percentile, s.max_load) v
       LEFT JOIN LATERAL (SELECT u.* FROM unnest(s.steps) u
                           WHERE u.step = v.found_step) f ON true
       LEFT JOIN skipped k ON k.latency_target = s.latency_target;

-- The search's own arguments, checked before any window runs: the bound,
-- the percentile, the dimension searched and its highest load, each
-- window's length, the load that stays fixed (fixed, and smallest: the
-- processes of the first window) within the limits.  The workload's other
-- options are the parser's (ranread_latency_target asks it next).
CREATE OR REPLACE FUNCTION ranread_internal.ranread_latency_target_check(
    target_ms float8, percentile float8, dimension text, max_load integer, duration interval,
    processes integer, queue_depth integer, block_size integer, workers integer,
    OUT fixed integer, OUT smallest integer)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    fn      constant text := 'ranread_latency_target';
    lim     record;
    highest integer;            -- the limit of the searched dimension
    fixed_max integer;          -- the limit of the other
BEGIN
    SELECT * INTO lim FROM @extschema@.ranread_limits();
    PERFORM ranread_internal.ranread_require(fn, 'target_ms', target_ms,
        'target_ms is the latency bound in milliseconds, such as 1.');
    IF NOT (target_ms > 0) OR target_ms IN ('Infinity'::float8, 'NaN'::float8) THEN
        RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('invalid target_ms %s for %s', target_ms, fn),
            HINT = 'target_ms is the latency bound in milliseconds: a finite number greater than 0, such as 1.';
    END IF;
    PERFORM ranread_internal.ranread_require(fn, 'percentile', percentile,
        'percentile is the share of I/Os that must take at most target_ms, such as 99.');
    IF NOT (percentile > 0 AND percentile < 100) OR percentile = 'NaN'::float8 THEN
        RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('invalid percentile %s for %s', percentile, fn),
            HINT = 'percentile must be greater than 0 and less than 100, such as 99 or 99.9; each window is judged whole, so for the slowest I/Os ask for 99.99.';
    END IF;
    PERFORM ranread_internal.ranread_require(fn, 'dimension', dimension,
        'dimension is ''queue_depth'' or ''processes''.');
    IF dimension NOT IN ('queue_depth', 'processes') THEN
        RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('unknown dimension "%s" for %s', dimension, fn),
            HINT = 'dimension is ''queue_depth'' (the load is the queue depth of each process, as fio''s latency_target) or ''processes'' (the load is the number of processes).';
    END IF;
    IF dimension = 'queue_depth' AND queue_depth IS NOT NULL THEN
        RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('invalid queue_depth %s for %s with dimension queue_depth', queue_depth, fn),
            HINT = 'The search sets the queue depth, from 1 to max_load: leave queue_depth NULL, or search over processes (dimension => ''processes'').';
    END IF;
    IF dimension = 'processes' AND processes IS NOT NULL THEN
        RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('invalid processes %s for %s with dimension processes', processes, fn),
            HINT = 'The search sets the processes, from 1 to max_load: leave processes NULL, or search over the queue depth (dimension => ''queue_depth'').';
    END IF;
    fixed := coalesce(CASE dimension WHEN 'queue_depth' THEN processes ELSE queue_depth END, 1);
    smallest := CASE dimension WHEN 'queue_depth' THEN fixed ELSE 1 END;
    PERFORM ranread_internal.ranread_require(fn, 'max_load', max_load,
        'max_load is the highest load the search tries, such as 256.');
    highest := CASE dimension WHEN 'queue_depth' THEN lim.max_queue_depth ELSE lim.max_processes END;
    IF max_load < 1 OR max_load > highest THEN
        RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('invalid max_load %s for %s', max_load, fn),
            HINT = format('max_load is the highest %s the search tries: 1 to %s.',
                          CASE dimension WHEN 'queue_depth' THEN 'queue depth' ELSE 'number of processes' END,
                          highest);
    END IF;
    -- a fixed load out of its range is the parser's to refuse, naming it
    fixed_max := CASE dimension WHEN 'queue_depth' THEN lim.max_processes ELSE lim.max_queue_depth END;
    IF fixed BETWEEN 1 AND fixed_max AND max_load::bigint * fixed > lim.max_inflight THEN
        RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('invalid max_load %s for %s with %s %s', max_load, fn,
                             CASE dimension WHEN 'queue_depth' THEN 'processes' ELSE 'queue_depth' END, fixed),
            HINT = format('processes x queue_depth must be at most %s I/Os in flight.', lim.max_inflight);
    END IF;
    IF fixed BETWEEN 1 AND fixed_max AND block_size > 0
       AND max_load::bigint * fixed * block_size > lim.max_inflight_bytes THEN
        RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('invalid max_load %s for %s with block_size %s', max_load, fn, block_size),
            HINT = format('processes x queue_depth x block_size must be at most %s bytes of I/O buffers.',
                          lim.max_inflight_bytes);
    END IF;
    PERFORM ranread_internal.ranread_require(fn, 'duration', duration,
        'duration is the length of each window, such as ''5s''.');
    IF workers < 1 OR workers > smallest THEN
        RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('workers of %s must be between 1 and %s, not %s', fn, smallest, workers),
            HINT = format('workers must be between 1 and %s, the processes of the first window, or NULL to let each window choose.',
                          smallest);
    END IF;
    PERFORM ranread_internal.ranread_require_read_committed(fn,
        'Each window''s histogram is written by its batch''s worker while the search runs, which a repeatable read snapshot cannot see; run the search outside an explicit transaction.');
END
$$;

-- The spec of a window: the workload at a load, the searched dimension set
-- to it and the other to fixed, the point naming the search and the window.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_latency_target_spec(
    spec jsonb, search_id bigint, step integer, confirming boolean, dimension text,
    load integer, fixed integer, target_ms float8, percentile float8, max_load integer)
RETURNS jsonb
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT ranread_internal.ranread_spec(jsonb_build_object(
               'processes', CASE dimension WHEN 'processes' THEN load ELSE fixed END,
               'queue_depth', CASE dimension WHEN 'queue_depth' THEN load ELSE fixed END,
               'point', jsonb_build_object(
                   'latency_target', search_id, 'step', step,
                   'phase', CASE WHEN confirming THEN 'confirm' ELSE 'search' END,
                   'dimension', dimension, 'load', load,
                   'target_ms', target_ms, 'percentile', percentile, 'max_load', max_load)),
           spec)
$$;

-- One window of a search: its batch, the share of its I/Os within the
-- bound and its latency at the percentile (from the histogram its worker
-- recorded), and a NOTICE of how it went.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_latency_target_window(
    spec jsonb, search_id bigint, step integer, confirming boolean, dimension text,
    load integer, fixed integer, target_ms float8, percentile float8, max_load integer)
RETURNS @extschema@.ranread_latency_step
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    r     ranread_internal.ranread_step_result;
    hist  bytea;
    win   record;
    s     @extschema@.ranread_latency_step;
BEGIN
    SELECT * INTO r
      FROM @extschema@.ranread_run_step(ranread_internal.ranread_latency_target_spec(spec, search_id,
               step, confirming, dimension, load, fixed, target_ms, percentile, max_load)) g
     WHERE g.grp = 0;
    SELECT b.histogram INTO hist FROM @extschema@.ranread_batches b WHERE b.batch = r.batch;
    SELECT * INTO win FROM ranread_internal.ranread_latency_window(hist, target_ms, percentile);
    s := ROW(step, load, r.batch, r.iops, win.within_pct, win.latency_ms, r.status)::@extschema@.ranread_latency_step;
    RAISE NOTICE 'latency target %, window %: % % (%), % IOPS, % of I/Os within % ms (p% % ms): %',
        search_id, s.step, CASE dimension WHEN 'queue_depth' THEN 'queue depth' ELSE 'processes' END,
        s.load, CASE WHEN confirming THEN 'confirming' ELSE 'searching' END,
        coalesce(to_char(round(s.iops::numeric), 'FM999,999,999,990'), '-'),
        coalesce(round(s.within_pct::numeric, 2)::text || '%', '-'), target_ms, percentile,
        coalesce(round(s.latency_ms::numeric, 3)::text, '-'),
        CASE WHEN s.status <> 'completed' THEN s.status
             WHEN s.within_pct IS NULL THEN 'not measured'
             WHEN s.within_pct >= percentile THEN 'holds' ELSE 'fails' END;
    RETURN s;
END
$$;

-- The search's answer, said in a NOTICE: the load found and its IOPS, or
-- why none holds.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_latency_target_report(
    search_id bigint, steps @extschema@.ranread_latency_step[], dimension text, fixed integer,
    target_ms float8, percentile float8, max_load integer)
RETURNS void
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    nxt    record;
    found  @extschema@.ranread_latency_step;
    bound  text := format('p%s <= %s ms', percentile, target_ms);
BEGIN
    SELECT * INTO nxt FROM @extschema@.ranread_latency_target_next(steps, target_ms, percentile, max_load);
    IF nxt.found_load IS NULL THEN
        RAISE NOTICE 'latency target %: no load meets % (%)', search_id, bound, nxt.stop_reason;
        RETURN;
    END IF;
    found := steps[nxt.found_step];
    RAISE NOTICE 'latency target %: % holds up to % %, % IOPS (batch %)',
        search_id, bound,
        CASE dimension WHEN 'queue_depth' THEN format('queue depth %s', found.load)
                       ELSE ranread_internal.ranread_count_words(found.load, 'process') END,
        CASE dimension WHEN 'queue_depth' THEN format('x %s %s', fixed, CASE WHEN fixed = 1 THEN 'process' ELSE 'processes' END)
                       ELSE format('at queue depth %s', fixed) END,
        to_char(round(found.iops::numeric), 'FM999,999,999,990'), found.batch;
END
$$;

-- ranread_latency_target, behind the C function users call: its own
-- arguments and the workload's processes, queue depth, block size and
-- workers bound by name, the workload as one spec (src/workload/forward.c).  The
-- windows run while the rule (ranread_latency_target_next) asks for one;
-- the rows are ranread_latency_target's (the caller's ReturnSetInfo gives
-- their columns).
CREATE OR REPLACE FUNCTION ranread_internal.ranread_latency_target(
    target_ms float8, percentile float8, dimension text, max_load integer, duration interval,
    processes integer, queue_depth integer, block_size integer, workers integer, spec jsonb)
RETURNS SETOF record
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    chk       record;
    nxt       record;
    steps     @extschema@.ranread_latency_step[] := '{}';
    phases    text[] := '{}';
    search_id bigint;
BEGIN
    PERFORM ranread_internal.ranread_primary_only('ranread_latency_target');
    SELECT * INTO chk FROM ranread_internal.ranread_latency_target_check(target_ms, percentile,
        dimension, max_load, duration, processes, queue_depth, block_size, workers);
    -- the workload as the first window reads it (its target at that window)
    PERFORM ranread_internal.ranread_spec_check(ranread_internal.ranread_latency_target_spec(spec, NULL,
        1, false, dimension, 1, chk.fixed, target_ms, percentile, max_load), false);

    search_id := nextval('@extschema@.ranread_latency_target_seq'::regclass);
    PERFORM ranread_internal.ranread_call_register('latency_target', search_id);
    LOOP
        SELECT * INTO nxt
          FROM @extschema@.ranread_latency_target_next(steps, target_ms, percentile, max_load);
        EXIT WHEN nxt.next_load IS NULL;
        -- for ranread_progress: the window, of a count and a time the
        -- search itself does not know ahead
        PERFORM ranread_internal.ranread_progress_call('latency_target', search_id,
            CASE WHEN nxt.confirming THEN 'confirming' ELSE 'searching' END, cardinality(steps) + 1);
        steps := steps || ranread_internal.ranread_latency_target_window(spec, search_id,
            cardinality(steps) + 1, nxt.confirming, dimension, nxt.next_load, chk.fixed,
            target_ms, percentile, max_load);
        phases := phases || CASE WHEN nxt.confirming THEN 'confirm' ELSE 'search' END;
    END LOOP;
    PERFORM ranread_internal.ranread_latency_target_report(search_id, steps, dimension, chk.fixed,
                                                           target_ms, percentile, max_load);

    RETURN QUERY
    SELECT s.step, phases[s.step], s.load, s.batch, ranread_internal.ranread_round(s.iops, 0)::bigint,
           ranread_internal.ranread_round(s.latency_ms, 3), trunc(s.within_pct::numeric, 2),
           CASE WHEN s.status = 'completed' THEN s.within_pct >= percentile ELSE false END,
           CASE WHEN s.step = cardinality(steps) THEN nxt.stop_reason END
      FROM unnest(steps) s
     ORDER BY s.step;
END
$$;

-- The search: windows (batches of `duration`) at load 1, 2, 4 ... while the
-- bound holds, then bisection, ending with a confirming run at the load
-- found (ranread_latency_target_next).  The load is the queue depth of
-- `processes` processes (dimension 'queue_depth', fio's iodepth), or the
-- number of processes at `queue_depth` each (dimension 'processes').  One
-- row per window; stop_reason on the last.  The other arguments are the
-- workload of every window (their defaults ranread_run's), checked before
-- the first window starts any worker.
CREATE OR REPLACE FUNCTION @extschema@.ranread_latency_target(
    target_ms      float8,
    percentile     float8   DEFAULT 99,
    dimension      text     DEFAULT 'queue_depth',
    max_load       integer  DEFAULT 256,
    @options(duration='5s', target, processes=NULL, queue_depth=NULL, block_size, write_pct, pattern, region_start, region_end, warmup, seed, workers, distribution, sync, io_priority, verify, path, effective_io_concurrency))
    @skip(iterations steady_state: every window runs for duration, so that windows compare; rate_iops: the search raises the load itself, which a cap would hold down; start_at: the windows start one after another)
RETURNS TABLE (
    step           integer,
    phase          text,
    load           integer,
    batch          bigint,
    iops           bigint,
    latency_ms     numeric,
    within_pct     numeric,
    holds          boolean,
    stop_reason    text)
AS 'MODULE_PATHNAME', 'ranread_forward'
LANGUAGE C CALLED ON NULL INPUT VOLATILE;
