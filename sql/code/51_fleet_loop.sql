-- 1.1, the fleet: running one batch on many servers at once.  This file
-- is the coordinator's loop; each of its steps is in the file of its phase:
--   52_fleet_begin.sql    the arguments checked, the nodes resolved, the
--                         recorder opened
--   53_fleet_probe.sql    1. probe, 2. clocks
--   54_fleet_send.sql     3. record the start and send, 4. poll (and stop)
--   55_fleet_collect.sql  5. collect
--   56_fleet_judge.sql    6. judge, 7. record; an interrupted fleet's end
--   58_fleet_report.sql   the fleet sweep, charts, export
-- and the connections it runs on are C (src/fleet/: libpq's asynchronous
-- calls, every wait interruptible and bounded).
--
-- The coordinator (the session that calls ranread_fleet) never does I/O.
-- It opens one connection per node and one back to its own database (the
-- recorder), then:
--   1. probes every node: reachable, ranread 1.1 or later, a primary, the
--      target ready, no batch running, the options accepted (ranread_blocks
--      checks them there without I/O).  Any node that fails is named in one
--      error before any node starts, unless skip_unavailable.
--   2. measures each node's clock offset and round trip (the best of five
--      clock_timestamp() round trips), refuses or warns when the offsets
--      spread more than max_offset_ms.
--   3. records the fleet and its nodes as 'running' through the recorder,
--      then sends every node ranread_run_step with the same start_at: a whole
--      second at least start_delay ahead on every node's clock.  Each
--      node's workers get ready and begin their I/O at that instant.
--   4. polls the nodes' sockets and takes each node's result as it comes;
--      a node that fails is recorded failed, and the others run on or are
--      stopped (on_node_failure).
--   5. collects every node's batch row and seconds (found by the fleet id
--      and start_at the batch carries) from every node it can reach, over a
--      fresh connection where the node's own one is gone;
--   6. judges: each node's row and status, the fleet's figures
--      (ranread_fleet_totals), its outliers and status;
--   7. records them through the recorder.
-- What the coordinator knows is two records: one per node
-- (ranread_fleet_node_state) and one for the fleet (ranread_fleet_call,
-- which holds the nodes' records); each step takes the fleet's record and
-- returns it.  Being plpgsql variables, they survive the rollback of the
-- block a cancel interrupts, where a temporary table's rows would not, so
-- that the fleet's end can still be collected and recorded.
--
-- Time bounds.  Connecting takes at most the conninfo's connect_timeout
-- (ranread's 10 s when it gives none), each query to a node 10 s, a run by
-- duration at most 30 s more than its duration and warmup.  A
-- cancel or statement_timeout of the coordinator is caught: the nodes still
-- running are cancelled (a fresh connection asks pg_cancel_backend() of
-- their session, within 1 s), given up to 2 s to end, what they recorded
-- is collected within 2.5 s and recorded within 4 s, and a node that does
-- not answer in time is given up and recorded 'lost'; then the cancel goes
-- on, within 5 s of it whatever the nodes do.  A terminate ends the
-- coordinator at once: its last words (ranread_fleet_abandon, sent to the
-- recorder without waiting) record the fleet failed and its nodes lost, and
-- each node's session ends its batch within a second of seeing the
-- coordinator gone (client_connection_check_interval, set by the fleet).
--
-- Connection strings travel only as arguments of C functions (never in SQL
-- text sent anywhere), are read by libpq's rules, and are shown and stored
-- without their passwords; the call's own text is logged and shown without
-- them too (ranread_conninfo_hide).
--
-- Why PL/pgSQL and not C.  Everything that waits is C already (src/fleet/:
-- 8 files and a header, 3,091 lines): what is left is to say what each
-- node is asked, check what it answers and write the fleet's history, and
-- that is SQL.  Each node is asked SQL text; its answer is checked against
-- the history's own row types (jsonb_populate_record into
-- ranread_fleet_nodes and ranread_fleet_seconds: ranread_fleet_answer, 82
-- lines) where C would need a JSON reader and a second copy of those
-- types; the history is written as SQL through the recorder; messages,
-- warnings and errors are format() and RAISE.  The loop and its phases are
-- 1,640 lines of PL/pgSQL in 40 functions (files 51 to 56), none past 100
-- lines, the loop itself 41; the same in C would be each of those queries
-- built as a string, sent, and its jsonb walked field by field (as
-- src/workload/workload.c reads a spec): longer, with the checks' SQL now inside C
-- strings, and no clearer.  And a cancel is plpgsql's own: an exception
-- block catches it, and the records above hold what happened up to it.

-- The fleet itself: the loop.  Each step takes the fleet's record (f) and
-- returns it; the sends are one call per node, so that a cancel among them
-- knows which nodes were started.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_fleet_run(o @extschema@.ranread_fleet_options,
    sweep bigint DEFAULT NULL, fn text DEFAULT 'ranread_fleet')
RETURNS SETOF ranread_internal.ranread_fleet_result_raw
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    f  ranread_internal.ranread_fleet_call;
    t0 timestamptz;
BEGIN
    f := ranread_internal.ranread_fleet_begin(o, sweep, fn);            -- checked, no node reached yet
    PERFORM ranread_internal.ranread_fleet_say(f, o, 'probing nodes');  -- (ranread_progress)
    BEGIN
        PERFORM ranread_internal.ranread_fleet_open(f);                 -- the recorder
        f := ranread_internal.ranread_fleet_probe_nodes(f, o);          -- 1. probe
        f := ranread_internal.ranread_fleet_clocks(f, o);               -- 2. clocks
        f := ranread_internal.ranread_fleet_record_start(f, o);         -- 3. recorded running,
        FOR k IN 1..cardinality(f.nodes) LOOP                           --    then sent
            f.nodes[k] := ranread_internal.ranread_fleet_send(f.nodes[k], f.spec);
        END LOOP;
        PERFORM ranread_internal.ranread_fleet_say(f, o, 'running');
        WHILE EXISTS (SELECT FROM unnest(f.nodes) x WHERE x.state = 'running') LOOP
            f := ranread_internal.ranread_fleet_poll(f, o);             -- 4. poll
        END LOOP;
        PERFORM ranread_internal.ranread_fleet_say(f, o, 'collecting');
    EXCEPTION WHEN query_canceled OR others THEN
        PERFORM ranread_internal.ranread_fleet_interrupted(f, o, SQLSTATE, true);
        RAISE;
    END;
    BEGIN
        t0 := clock_timestamp();
        f := ranread_internal.ranread_fleet_collect(f, t0 + interval '10 s');    -- 5. collect
        f := ranread_internal.ranread_fleet_judge(f, o);                         -- 6. judge
        PERFORM ranread_internal.ranread_fleet_record(f, t0 + interval '20 s');  -- 7. record
    EXCEPTION WHEN query_canceled OR others THEN
        PERFORM ranread_internal.ranread_fleet_interrupted(f, o, SQLSTATE, false);
        RAISE;
    END;
    PERFORM ranread_internal.ranread_fleet_close(f);
    PERFORM ranread_internal.ranread_fleet_tell(f, o);
    PERFORM ranread_internal.ranread_call_end('fleet', f.fleet);
    RETURN QUERY SELECT * FROM jsonb_populate_recordset(NULL::ranread_internal.ranread_fleet_result_raw,
        ranread_internal.ranread_fleet_result_rows(f.fleet, f.node_rows, f.fleet_row, f.nodes));
END
$$;

-- ranread_fleet, behind the C function users call (src/workload/forward.c): its
-- arguments by name, the fleet's options and the workload's, as the
-- fleet's options.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_fleet(args jsonb, fn text)
RETURNS SETOF @extschema@.ranread_fleet_result
LANGUAGE sql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT r.* FROM ranread_internal.ranread_fleet_run(
        jsonb_populate_record(NULL::@extschema@.ranread_fleet_options, args), NULL, fn) x,
        LATERAL ranread_internal.ranread_fleet_round(x) r
$$;

-- One batch on many servers at once: see the top of this file and
-- docs/fleet.md.  The options of ranread_run pass through to every node, as one
-- spec.
CREATE OR REPLACE FUNCTION @extschema@.ranread_fleet(
    nodes            text[],
    @options(processes, iterations, target, duration, block_size, write_pct, queue_depth, pattern, region_start, region_end, warmup, rate_iops, seed, workers, distribution, steady_state, sync),
    start_delay      interval DEFAULT '2s',
    skip_unavailable boolean  DEFAULT false,
    on_node_failure  text     DEFAULT 'continue',
    max_offset_ms    float8   DEFAULT 10,
    on_clock_skew    text     DEFAULT 'error',
    loopback         text     DEFAULT NULL,
    @options(io_priority, verify, path, effective_io_concurrency))
    @skip(start_at: the fleet starts every node at once, start_delay after the call)
RETURNS SETOF @extschema@.ranread_fleet_result
AS 'MODULE_PATHNAME', 'ranread_forward'
LANGUAGE C CALLED ON NULL INPUT VOLATILE;

-- Where the fleet is, for ranread_progress (src/history/progress.c): its phase;
-- before its nodes start, their start delay, warmup and duration still to
-- come, and while they run, when their batch is due to end (start_at,
-- warmup and duration); a fleet by iterations does not know.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_fleet_say(f ranread_internal.ranread_fleet_call,
    o @extschema@.ranread_fleet_options, phase text)
RETURNS void
LANGUAGE sql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT ranread_internal.ranread_progress_call('fleet', f.fleet, phase, NULL, NULL,
        CASE WHEN phase = 'probing nodes'
             THEN extract(epoch FROM coalesce(o.start_delay, interval '0') + coalesce(o.warmup, interval '0') + o.duration)::float8
             ELSE 0 END,
        CASE WHEN phase = 'running' THEN f.start_at + coalesce(o.warmup, interval '0') + o.duration END)
$$;
