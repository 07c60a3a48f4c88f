-- Reports: the sweep (the methodology as one call) and its verdict, and
-- the summary export (C, src/report/export.c).  The sweep's chart and a
-- batch's timeline are in 30_charts.sql.
--
-- Every object is schema-qualified and every PL/pgSQL function pins
-- search_path, so neither this script nor the functions depend on the
-- caller's search_path.  The sweep's rules and steps are in
-- ranread_internal: ranread_sweep is C (src/workload/forward.c) that hands its
-- workload, as one spec, to ranread_internal.ranread_sweep.

-- The all-flash guidance (the methodology's: random reads of all-flash
-- storage average at most 2 ms and none takes more than 5 ms), one
-- definition, pure: met when the average is within 2 ms and the slowest I/O
-- within 5 ms; verdict says it in words, the rule stated, each part's
-- figure and which failed.  Not measured (no latency): met NULL.
CREATE OR REPLACE FUNCTION @extschema@.ranread_flash_guidance(avg_ms float8, max_ms float8,
    OUT met boolean, OUT verdict text)
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    rule constant text := 'all-flash guidance: an average of at most 2 ms and no I/O above 5 ms';
    a text := round(avg_ms::numeric, 3) || ' ms';
    m text := round(max_ms::numeric, 3) || ' ms';
BEGIN
    IF avg_ms IS NULL OR max_ms IS NULL OR avg_ms = 'NaN' OR max_ms = 'NaN' THEN
        verdict := format('not judged (%s): latency was not measured', rule);
        RETURN;
    END IF;
    met := avg_ms <= 2 AND max_ms <= 5;
    verdict := CASE
        WHEN met THEN format('met (%s): average %s and the slowest I/O %s', rule, a, m)
        WHEN avg_ms > 2 AND max_ms > 5
            THEN format('not met (%s): the average, %s, is above 2 ms, and the slowest I/O took %s, above 5 ms', rule, a, m)
        WHEN max_ms > 5
            THEN format('not met (%s): the slowest I/O took %s, above 5 ms (the average, %s, is within 2 ms)', rule, m, a)
        ELSE format('not met (%s): the average, %s, is above 2 ms (the slowest I/O, %s, is within 5 ms)', rule, a, m) END;
END
$$;

-- Each sweep's verdict, one query away, its figures as a person reads
-- them (ranread_sweeps keeps them whole), and the all-flash guidance in
-- words: the rule and the part that failed (ranread_flash_guidance).
CREATE OR REPLACE VIEW @extschema@.ranread_sweep_verdict AS
SELECT s.sweep,
       s.started_at,
       s.target,
       s.block_size,
       s.write_pct,
       s.queue_depth,
       s.pattern,
       s.max_avg_ms,
       s.steps,
       ranread_internal.ranread_round(s.max_iops, 0)::bigint AS max_iops,
       ranread_internal.ranread_round(s.actual_latency_ms, 3)::numeric(15,3) AS actual_latency_ms,
       s.max_iops_processes AS processes,
       s.max_iops_batch AS batch,
       s.meets_flash_guidance,
       s.stop_reason,
       f.verdict AS flash_guidance
  FROM @extschema@.ranread_sweeps s
  LEFT JOIN @extschema@.ranread_batches b ON b.batch = s.max_iops_batch
  LEFT JOIN LATERAL @extschema@.ranread_flash_guidance(s.actual_latency_ms, b.max_ms) f ON s.max_iops_batch IS NOT NULL;

-- The limits ranread_run enforces (src/ranread.h).
CREATE OR REPLACE FUNCTION @extschema@.ranread_limits(
    OUT max_processes   integer,
    OUT max_queue_depth integer,
    OUT max_inflight    integer,
    OUT max_inflight_bytes bigint)
AS 'MODULE_PATHNAME', 'ranread_limits'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

-- What a sweep does next, given its steps so far: the processes of the next
-- step, or NULL and why it stops.  Pure, so the rules can be tested on known
-- numbers.  The rules, in order:
--   status         the last batch did not complete
--   latency        average latency above max_avg_ms on the last two steps
--   scaling        the last step gained less than 10% of what linear
--                  scaling would add (or lost IOPS):
--                  iops - prev_iops < 0.10 * prev_iops * (processes / prev_processes - 1)
--   max_processes  the last step ran max_processes
-- Steps double the processes; a doubling past max_processes is clamped to
-- max_processes, so a sweep always ends by measuring max_processes itself
-- unless another rule stops it first (start 10, max 100: 10, 20, 40, 80, 100).
-- Each stop_reason starts with the rule's name and a colon, then the
-- figures that broke it, worded as they moved (IOPS that fell fell).
CREATE OR REPLACE FUNCTION ranread_internal.ranread_sweep_next(
    steps          @extschema@.ranread_sweep_step[],
    start          integer,
    max_processes  integer,
    max_avg_ms     float8,
    OUT next_processes integer,
    OUT stop_reason    text)
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    n      integer := coalesce(cardinality(steps), 0);
    cur    @extschema@.ranread_sweep_step;
    prev   @extschema@.ranread_sweep_step;
    linear float8;
BEGIN
    IF n = 0 THEN
        next_processes := start;
        RETURN;
    END IF;

    cur := steps[array_upper(steps, 1)];
    IF cur.status IS DISTINCT FROM 'completed' THEN
        stop_reason := format('status: batch %s at %s ended %s, not completed',
                              cur.batch, ranread_internal.ranread_count_words(cur.processes, 'process'),
                              coalesce(cur.status, 'without a status'));
        RETURN;
    END IF;

    IF n >= 2 THEN
        prev := steps[array_upper(steps, 1) - 1];

        IF cur.avg_ms > max_avg_ms AND prev.avg_ms > max_avg_ms THEN
            stop_reason := format('latency: average %s ms at %s and %s ms at %s, both above the %s ms bound',
                                  round(prev.avg_ms::numeric, 2), ranread_internal.ranread_count_words(prev.processes, 'process'),
                                  round(cur.avg_ms::numeric, 2), ranread_internal.ranread_count_words(cur.processes, 'process'),
                                  max_avg_ms);
            RETURN;
        END IF;

        linear := prev.iops * (cur.processes::float8 / prev.processes - 1);
        IF cur.iops - prev.iops < 0.10 * linear THEN
            stop_reason := format('scaling: going from %s to %s %s; a step must gain at least 10%% of the %s IOPS linear scaling would add',
                                  prev.processes, ranread_internal.ranread_count_words(cur.processes, 'process'),
                                  CASE WHEN cur.iops < prev.iops
                                       THEN format('lowered IOPS from %s to %s, a fall of %s%%',
                                                   round(prev.iops::numeric), round(cur.iops::numeric),
                                                   round((100 * (prev.iops - cur.iops) / prev.iops)::numeric, 1))
                                       WHEN cur.iops = prev.iops
                                       THEN format('left IOPS at %s', round(cur.iops::numeric))
                                       ELSE format('raised IOPS from %s to %s, a gain of %s, %s%% of linear scaling',
                                                   round(prev.iops::numeric), round(cur.iops::numeric),
                                                   round((cur.iops - prev.iops)::numeric),
                                                   round((100 * (cur.iops - prev.iops) / linear)::numeric, 1)) END,
                                  round(linear::numeric));
            RETURN;
        END IF;
    END IF;

    IF cur.processes >= max_processes THEN
        stop_reason := format('max_processes: the step at %s reached max_processes %s',
                              ranread_internal.ranread_count_words(cur.processes, 'process'), max_processes);
        RETURN;
    END IF;

    next_processes := least(cur.processes::bigint * 2, max_processes)::integer;
END
$$;

-- A sweep's verdict from its steps: the highest IOPS among completed steps
-- whose average latency is within max_avg_ms (ties: fewer processes), that
-- step's average latency, processes and batch, and whether it meets the
-- all-flash guidance (ranread_flash_guidance: average <= 2 ms, no I/O above
-- 5 ms).  All NULL, and meets_flash_guidance false, when no step is within
-- the bound.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_sweep_judge(
    steps       @extschema@.ranread_sweep_step[],
    max_avg_ms  float8,
    OUT max_iops             float8,
    OUT actual_latency_ms    float8,
    OUT processes            integer,
    OUT batch                bigint,
    OUT meets_flash_guidance boolean)
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    SELECT s.iops, s.avg_ms, s.processes, s.batch,
           coalesce((@extschema@.ranread_flash_guidance(s.avg_ms, s.max_ms)).met, false)
      INTO max_iops, actual_latency_ms, processes, batch, meets_flash_guidance
      FROM unnest(steps) AS s
     WHERE s.status = 'completed'
       AND s.avg_ms <= max_avg_ms
       AND s.iops IS NOT NULL
     ORDER BY s.iops DESC, s.processes, s.step
     LIMIT 1;
    meets_flash_guidance := coalesce(meets_flash_guidance, false);
END
$$;

-- The sweep's own arguments, checked before any batch runs: the steps'
-- processes within the limits, at the workload's queue depth and block
-- size (queue_depth, block_size and workers as the spec has them; the other
-- options are the parser's, which ranread_sweep asks before the first step).
CREATE OR REPLACE FUNCTION ranread_internal.ranread_sweep_check(
    start integer, max_processes integer, max_avg_ms float8,
    queue_depth integer, block_size integer, workers integer)
RETURNS void
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    lim record;
BEGIN
    SELECT * INTO lim FROM @extschema@.ranread_limits();
    IF start IS NULL OR start < 1 OR start > lim.max_processes THEN
        RAISE EXCEPTION USING
            ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('invalid start %s for ranread_sweep', coalesce(start::text, 'NULL')),
            HINT = format('start is the number of processes of the first step: 1 to %s.',
                          lim.max_processes);
    END IF;
    IF max_processes IS NULL OR max_processes < start OR max_processes > lim.max_processes THEN
        RAISE EXCEPTION USING
            ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('invalid max_processes %s for ranread_sweep',
                             coalesce(max_processes::text, 'NULL')),
            HINT = format('max_processes must be between start (%s) and %s.',
                          start, lim.max_processes);
    END IF;
    IF queue_depth BETWEEN 1 AND lim.max_queue_depth
       AND max_processes::bigint * queue_depth > lim.max_inflight THEN
        RAISE EXCEPTION USING
            ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('invalid max_processes %s for ranread_sweep with queue_depth %s',
                             max_processes, queue_depth),
            HINT = format('max_processes x queue_depth must be at most %s I/Os in flight.',
                          lim.max_inflight);
    END IF;
    IF queue_depth BETWEEN 1 AND lim.max_queue_depth AND block_size > 0
       AND max_processes::bigint * queue_depth * block_size > lim.max_inflight_bytes THEN
        RAISE EXCEPTION USING
            ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('invalid max_processes %s for ranread_sweep with queue_depth %s and block_size %s',
                             max_processes, queue_depth, block_size),
            HINT = format('max_processes x queue_depth x block_size must be at most %s bytes of I/O buffers.',
                          lim.max_inflight_bytes);
    END IF;
    IF workers < 1 OR workers > start THEN
        RAISE EXCEPTION USING
            ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('workers of ranread_sweep must be between 1 and %s, not %s', start, workers),
            HINT = format('workers must be between 1 and start (%s), the processes of the smallest step, or NULL to let each step choose.',
                          start);
    END IF;
    IF max_avg_ms IS NULL OR NOT (max_avg_ms > 0)
       OR max_avg_ms IN ('NaN'::float8, 'Infinity'::float8) THEN
        RAISE EXCEPTION USING
            ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('invalid max_avg_ms %s for ranread_sweep',
                             coalesce(max_avg_ms::text, 'NULL')),
            HINT = 'max_avg_ms is the bound on average latency in milliseconds: a finite number greater than 0, such as 10.';
    END IF;
END
$$;

-- The steps of a sweep: its workload at start, 2 x start ... processes
-- (the last clamped to max_processes) until ranread_sweep_next says stop;
-- each step a batch of the sweep, said beforehand to ranread_progress
-- (step i of at most n).  Returns the steps and why they stopped.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_sweep_run(
    sweep_id bigint, start integer, max_processes integer, max_avg_ms float8, spec jsonb,
    OUT steps @extschema@.ranread_sweep_step[], OUT reason text)
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    nxt    record;
    r      ranread_internal.ranread_step_result;
    left_n integer;
    p      integer;
    step_s float8 := extract(epoch FROM (spec ->> 'duration')::interval
                                        + coalesce((spec ->> 'warmup')::interval, '0'));
BEGIN
    steps := '{}';
    LOOP
        SELECT * INTO nxt
          FROM ranread_internal.ranread_sweep_next(steps, start, max_processes, max_avg_ms);
        reason := nxt.stop_reason;
        EXIT WHEN nxt.next_processes IS NULL;

        -- where it is, for ranread_progress and the step's progress line: the
        -- steps that may follow this one (each twice the processes, up to
        -- max_processes), each as long as this one
        left_n := 0;
        p := nxt.next_processes;
        WHILE p < max_processes LOOP
            p := least(p::bigint * 2, max_processes)::integer;
            left_n := left_n + 1;
        END LOOP;
        PERFORM ranread_internal.ranread_progress_call('sweep', sweep_id, 'starting step',
            cardinality(steps) + 1, cardinality(steps) + 1 + left_n, left_n * step_s);

        SELECT * INTO r
          FROM @extschema@.ranread_run_step(ranread_internal.ranread_spec(
                   jsonb_build_object('processes', nxt.next_processes, 'sweep', sweep_id), spec)) g
         WHERE g.grp = 0;
        steps := steps || ROW(cardinality(steps) + 1, r.processes, r.batch, r.iops, r.avg_ms,
                              r.p99_ms, r.max_ms, r.status)::@extschema@.ranread_sweep_step;
        PERFORM ranread_internal.ranread_sweep_say_step('sweep', sweep_id, steps[cardinality(steps)]);
    END LOOP;
END
$$;

-- A step of a sweep (kind 'sweep') or a fleet sweep ('fleet sweep', whose
-- steps are fleets of processes per node) in one NOTICE: its batches' own
-- NOTICEs are DEBUG1 (a step's batch says no more than its call).
CREATE OR REPLACE FUNCTION ranread_internal.ranread_sweep_say_step(
    kind text, sweep_id bigint, step @extschema@.ranread_sweep_step)
RETURNS void
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    RAISE NOTICE '%', format('%s %s, step %s: %s process%s%s, %s %s: %s IOPS, average %s%s',
        kind, sweep_id, step.step, step.processes, CASE WHEN step.processes = 1 THEN '' ELSE 'es' END,
        CASE WHEN kind = 'fleet sweep' THEN ' per node' ELSE '' END,
        CASE WHEN kind = 'fleet sweep' THEN 'fleet' ELSE 'batch' END, step.batch,
        coalesce(round(step.iops::numeric)::text, 'no'),
        coalesce(round(step.avg_ms::numeric, 3) || ' ms', 'not measured'),
        CASE WHEN step.status IS DISTINCT FROM 'completed' THEN ', ' || coalesce(step.status, 'no status') ELSE '' END);
END
$$;

-- The verdict of a sweep (kind 'sweep') or a fleet sweep ('fleet sweep')
-- in NOTICEs: the most IOPS within the bound, or that none stayed within
-- it, or that latency was not measured; and why the steps stopped.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_sweep_say_end(
    kind text, sweep_id bigint, steps @extschema@.ranread_sweep_step[], reason text,
    max_avg_ms float8, verdict record)
RETURNS void
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    fleet boolean := kind = 'fleet sweep';
BEGIN
    IF NOT EXISTS (SELECT FROM unnest(steps) t WHERE t.avg_ms IS NOT NULL) THEN
        RAISE NOTICE '%: latency was not measured (ranread.timing = off), so there is no verdict on the % ms bound; the highest IOPS was % at % processes%',
            kind || ' ' || sweep_id, max_avg_ms,
            (SELECT round(max(t.iops)::numeric) FROM unnest(steps) t),
            (SELECT t.processes FROM unnest(steps) t ORDER BY t.iops DESC NULLS LAST LIMIT 1),
            CASE WHEN fleet THEN ' per node' ELSE '' END;
    ELSIF verdict.max_iops IS NULL THEN
        RAISE NOTICE '%: no step stayed within the % ms average latency bound', kind || ' ' || sweep_id, max_avg_ms;
    ELSE
        RAISE NOTICE '%: max % IOPS% within % ms average latency, at % (average % ms, % %); %',
            kind || ' ' || sweep_id, round(verdict.max_iops::numeric),
            CASE WHEN fleet THEN ' for the fleet' ELSE '' END, max_avg_ms,
            ranread_internal.ranread_count_words(verdict.processes, 'process') || CASE WHEN fleet THEN ' per node' ELSE '' END,
            round(verdict.actual_latency_ms::numeric, 3),
            CASE WHEN fleet THEN 'fleet' ELSE 'batch' END, verdict.batch,
            (SELECT f.verdict FROM unnest(steps) t, LATERAL @extschema@.ranread_flash_guidance(t.avg_ms, t.max_ms) f
              WHERE t.batch = verdict.batch LIMIT 1);
    END IF;
    RAISE NOTICE '% % stopped on %', kind, sweep_id, reason;
END
$$;

-- The sweep's verdict, recorded in ranread_sweeps and said in NOTICEs.
-- It runs as the extension's owner (SECURITY DEFINER), so that no role
-- needs INSERT on ranread_sweeps, where a row of its own making could take
-- the id the next sweep will take or carry figures no batch had.  The row
-- recorded is that of the sweep this session runs now in this transaction
-- (the id it took and registered, ranread_call_register), started by the
-- role that registered it, at the time it did; and everything in it but
-- the sweep's own arguments comes from the history, never from the
-- caller: its steps are the batches that carry the sweep's id (which only
-- this call can give a batch: src/history/calls.c, src/workload/workload.c) started by that
-- role, in the order they ran; the workload is theirs, one for all; the
-- verdict (ranread_sweep_judge) and why the steps stopped
-- (ranread_sweep_next) are worked out again from them.  Steps that are not
-- those of a sweep from start to max_processes (a step whose history was
-- not written, or batches run by hand) are not recorded: a WARNING says
-- so.  max_avg_ms is a finite number above 0.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_sweep_record(
    sweep_id bigint, start integer, max_processes integer, max_avg_ms float8)
RETURNS void
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    verdict record;
    reg     record;
    first   record;
    nxt     record;
    steps   @extschema@.ranread_sweep_step[];
    reason  text;
    why     text;
BEGIN
    SELECT c.started_by, c.started_at INTO reg
      FROM ranread_internal.ranread_running_calls() c
     WHERE c.kind OPERATOR(pg_catalog.=) 'sweep' AND c.id OPERATOR(pg_catalog.=) sweep_id
       AND c.pid OPERATOR(pg_catalog.=) pg_catalog.pg_backend_pid();
    IF NOT FOUND OR reg.started_by IS NULL THEN
        RAISE EXCEPTION USING
            ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('sweep %s of ranread_sweep_record is not the sweep this session runs now',
                             coalesce(sweep_id::text, 'NULL')),
            HINT = 'A sweep''s row is recorded by the ranread_sweep call that took its id, when it returns.';
    END IF;
    IF max_avg_ms IS NULL OR NOT (max_avg_ms > 0 AND max_avg_ms < 'Infinity'::float8) THEN
        RAISE EXCEPTION USING
            ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('invalid max_avg_ms %s for ranread_sweep_record', coalesce(max_avg_ms::text, 'NULL')),
            HINT = 'max_avg_ms is the bound on average latency in milliseconds: a finite number greater than 0.';
    END IF;
    IF start IS NULL OR start < 1 OR max_processes IS NULL OR max_processes < start THEN
        RAISE EXCEPTION USING
            ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('invalid start %s and max_processes %s for ranread_sweep_record',
                             coalesce(start::text, 'NULL'), coalesce(max_processes::text, 'NULL')),
            HINT = 'They are the sweep''s own: start at least 1, max_processes at least start.';
    END IF;

    -- the steps: this call's batches, as the history has them
    SELECT array_agg(ROW(x.k, x.processes, x.batch, x.iops, x.avg_ms, x.p99_ms, x.max_ms, x.status)::@extschema@.ranread_sweep_step
                     ORDER BY x.k)
      INTO steps
      FROM (SELECT b.*, row_number() OVER (ORDER BY b.batch)::integer AS k
              FROM @extschema@.ranread_batches b
             WHERE b.sweep OPERATOR(pg_catalog.=) sweep_id
               AND b.started_by OPERATOR(pg_catalog.=) reg.started_by) x;
    SELECT b.target, b.block_size, b.write_pct, b.queue_depth, b.pattern, b.iterations, b.duration INTO first
      FROM @extschema@.ranread_batches b
     WHERE b.batch OPERATOR(pg_catalog.=) steps[1].batch;

    IF steps IS NULL THEN
        why := 'it has no batch in the history';
    ELSIF EXISTS (SELECT FROM @extschema@.ranread_batches b
                   WHERE b.batch OPERATOR(pg_catalog.=) ANY (ARRAY(SELECT t.batch FROM unnest(steps) t))
                     AND (b.target, b.block_size, b.write_pct, b.queue_depth, b.pattern, b.iterations, b.duration)
                         IS DISTINCT FROM (first.target, first.block_size, first.write_pct, first.queue_depth,
                                           first.pattern, first.iterations, first.duration)) THEN
        why := 'its batches do not share one workload';
    ELSE
        FOR i IN 1 .. cardinality(steps) LOOP
            SELECT * INTO nxt FROM ranread_internal.ranread_sweep_next(steps[1:i - 1], start, max_processes, max_avg_ms);
            IF nxt.next_processes IS DISTINCT FROM steps[i].processes THEN
                why := format('its batch %s at %s processes is not the step %s of a sweep from %s to %s processes',
                              steps[i].batch, steps[i].processes, i, start, max_processes);
                EXIT;
            END IF;
        END LOOP;
        IF why IS NULL THEN
            reason := (ranread_internal.ranread_sweep_next(steps, start, max_processes, max_avg_ms)).stop_reason;
            IF reason IS NULL THEN
                why := format('its %s batches do not end a sweep from %s to %s processes',
                              cardinality(steps), start, max_processes);
            END IF;
        END IF;
    END IF;
    IF why IS NOT NULL THEN
        RAISE WARNING 'sweep % is not recorded in ranread_sweeps: %', sweep_id, why
            USING DETAIL = 'A sweep''s row is worked out from its batches in the history, which a step whose history was not written leaves incomplete.',
                  HINT = 'Its batches stay in ranread_batches, with the sweep''s id.';
        RETURN;
    END IF;
    SELECT * INTO verdict FROM ranread_internal.ranread_sweep_judge(steps, max_avg_ms);

    INSERT INTO @extschema@.ranread_sweeps
        (sweep, started_at, finished_at, started_by, target, block_size, write_pct, queue_depth,
         pattern, start, max_processes, iterations, duration, max_avg_ms, steps,
         stop_reason, max_iops, actual_latency_ms, max_iops_processes, max_iops_batch,
         meets_flash_guidance)
    VALUES (sweep_id, reg.started_at, clock_timestamp(), reg.started_by, first.target, first.block_size,
            first.write_pct, first.queue_depth, first.pattern, start, max_processes, first.iterations,
            first.duration, max_avg_ms, cardinality(steps), reason,
            verdict.max_iops, verdict.actual_latency_ms, verdict.processes, verdict.batch,
            verdict.meets_flash_guidance);

    PERFORM ranread_internal.ranread_sweep_say_end('sweep', sweep_id, steps, reason, max_avg_ms, verdict);
END
$$;

-- ranread_sweep, behind the C function users call: the sweep's own
-- arguments and its workload's queue depth, block size and workers, bound
-- by name, and the workload as one spec (src/workload/forward.c).  Its rows are
-- ranread_sweep's (the caller's ReturnSetInfo gives their columns): one per
-- step, stop_reason on the last.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_sweep(
    start integer, max_processes integer, max_avg_ms float8,
    queue_depth integer, block_size integer, workers integer, spec jsonb)
RETURNS SETOF record
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    sweep_id  bigint;
    run       record;
BEGIN
    PERFORM ranread_internal.ranread_primary_only('ranread_sweep');
    PERFORM ranread_internal.ranread_require_read_committed('ranread_sweep',
        'Its row is worked out from its steps, which their workers record while it runs and a repeatable read snapshot cannot see; run it outside an explicit transaction.');
    -- every argument, before any batch runs: the sweep's, then the
    -- workload's as the first step reads it (its targets at that step)
    PERFORM ranread_internal.ranread_sweep_check(start, max_processes, max_avg_ms,
                                                 queue_depth, block_size, workers);
    PERFORM ranread_internal.ranread_spec_check(
        ranread_internal.ranread_spec(jsonb_build_object('processes', start), spec), false);

    sweep_id := nextval('@extschema@.ranread_sweep_seq'::regclass);
    PERFORM ranread_internal.ranread_call_register('sweep', sweep_id);
    SELECT * INTO run FROM ranread_internal.ranread_sweep_run(sweep_id, start, max_processes, max_avg_ms, spec);
    PERFORM ranread_internal.ranread_sweep_record(sweep_id, start, max_processes, max_avg_ms);
    RETURN QUERY
    SELECT s.step, s.processes, s.batch,
           ranread_internal.ranread_round(s.iops, 0)::bigint,
           ranread_internal.ranread_round(s.avg_ms, 3), ranread_internal.ranread_round(s.p99_ms, 3),
           ranread_internal.ranread_round(s.max_ms, 3),
           CASE WHEN s.avg_ms IS NULL AND s.status = 'completed' THEN NULL
                ELSE coalesce(s.status = 'completed' AND s.avg_ms <= max_avg_ms, false) END,
           CASE WHEN s.step = cardinality(run.steps) THEN run.reason END
      FROM unnest(run.steps) s
     ORDER BY s.step;
END
$$;

-- The methodology as one call: batches at start, 2 x start, 4 x start ...
-- processes (the last clamped to max_processes) until ranread_sweep_next
-- says stop.  One row per step; stop_reason on the last row only.  The
-- verdict goes to ranread_sweeps (see ranread_sweep_verdict).  The other
-- arguments are the workload of every step, checked before the first
-- starts any worker; their defaults are ranread_run's (ranread_options).
CREATE OR REPLACE FUNCTION @extschema@.ranread_sweep(
    start          integer  DEFAULT 10,
    max_processes  integer  DEFAULT 1280,
    @options(iterations, duration='30s'),
    max_avg_ms     float8   DEFAULT 10,
    @options(target, block_size, write_pct, queue_depth, pattern, region_start, region_end, warmup, rate_iops, seed, workers, distribution, steady_state, sync, io_priority, verify, path, effective_io_concurrency))
    @skip(processes: each step's, from start and max_processes; start_at: the steps start one after another)
RETURNS TABLE (
    step           integer,
    processes      integer,
    batch          bigint,
    iops           bigint,
    avg_ms         numeric,
    p99_ms         numeric,
    max_ms         numeric,
    within_bound   boolean,
    stop_reason    text)
AS 'MODULE_PATHNAME', 'ranread_forward'
LANGUAGE C CALLED ON NULL INPUT VOLATILE;

-- The summary to a server file (tsv, csv, json) or the chart (svg).
CREATE OR REPLACE FUNCTION @extschema@.ranread_export(
    directory text,
    format    text DEFAULT 'tsv')
RETURNS text
AS 'MODULE_PATHNAME', 'ranread_export'
LANGUAGE C CALLED ON NULL INPUT VOLATILE
SET search_path = pg_catalog, pg_temp;
