-- 1.1, the fleet, steps 3 and 4 (51_fleet_loop.sql runs them): the fleet
-- and its nodes recorded as running, every node sent its batch with one
-- start_at, then the nodes polled, each answer taken as it comes and
-- judged (done, cancelled, failed), until none is running.  A node that
-- has not answered in time (a run by duration: 30 s after its batch was due
-- to end; by iterations: no worker of its seen for 30 s) is stopped, and
-- given up (lost) when it does not answer its cancel either.

-- Step 3 of a fleet, first half: its start_at (a whole second at least
-- start_delay ahead on every node's clock) and its workload (one spec for
-- every node), the fleet and its nodes recorded as running through the
-- recorder (the nodes skipped as skipped), the recorder's last words set
-- first, should this backend end before the fleet's end is recorded
CREATE OR REPLACE FUNCTION ranread_internal.ranread_fleet_record_start(f ranread_internal.ranread_fleet_call,
    o @extschema@.ranread_fleet_options)
RETURNS ranread_internal.ranread_fleet_call
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    nodes ranread_internal.ranread_fleet_node_state[] := f.nodes;
BEGIN
    f.start_at := to_timestamp(ceil(extract(epoch FROM clock_timestamp()
                      + greatest(0, coalesce((SELECT max(x.offset_ms) FROM unnest(nodes) x), 0)) * interval '1 ms'
                      + o.start_delay)));
    -- the workload as a spec: o's options by name (src/workload/workload.c)
    f.spec := ranread_internal.ranread_spec(to_jsonb(o) || jsonb_build_object(
        'caller', f.fn, 'fleet', f.fleet, 'start_at', f.start_at));
    -- a run by duration has its bound: 30 s after its batch was due to end
    f.due_end := f.start_at + coalesce(o.warmup, interval '0') + o.duration + interval '30 s';
    -- first, so that from the moment the fleet's row exists an end of
    -- this backend, even before this returns, records the fleet failed
    PERFORM ranread_internal.ranread_remote_last_words(f.recorder,
        format('SELECT ranread_internal.ranread_fleet_abandon(%s)', f.fleet));
    PERFORM ranread_internal.ranread_remote_query(f.recorder, format($q$
        INSERT INTO @extschema@.ranread_fleets
            (fleet, started_at, started_by, coordinator_pid, coordinator_start, definition,
             nodes, processes, start_at, offset_spread_ms, max_rtt_ms, status, sweep)
        VALUES (%s, %L, %L, %s, %L, %L, %s, %s, %L, %L, %L, 'running', %L);
        INSERT INTO @extschema@.ranread_fleet_nodes (fleet, node, name, conninfo, status, message, offset_ms, rtt_ms)
        SELECT %1$s, k, x.names[k], x.conns[k], x.states[k], x.messages[k], x.offsets[k], x.rtts[k]
          FROM (SELECT %13$L::text[] AS names, %14$L::text[] AS conns, %15$L::text[] AS states,
                       %16$L::text[] AS messages, %17$L::float8[] AS offsets, %18$L::float8[] AS rtts) x,
               generate_subscripts(x.names, 1) k $q$,
        f.fleet, to_jsonb(clock_timestamp())#>>'{}', current_user, pg_backend_pid(),
        to_jsonb((SELECT a.backend_start FROM pg_stat_activity a WHERE a.pid = pg_backend_pid()))#>>'{}',
        jsonb_build_object('nodes', to_jsonb(ARRAY(SELECT x.name FROM unnest(nodes) x ORDER BY x.node)), 'options',
            to_jsonb(o) - 'nodes' - 'loopback', 'spec', f.spec),
        (SELECT count(*) FROM unnest(nodes) x WHERE x.state <> 'skipped'), o.processes,
        to_jsonb(f.start_at)#>>'{}',
        f.spread, (SELECT max(x.rtt_ms) FROM unnest(nodes) x), f.sweep,
        ARRAY(SELECT x.name FROM unnest(nodes) x ORDER BY x.node),
        ARRAY(SELECT ranread_internal.ranread_conninfo_strip(x.conninfo) FROM unnest(nodes) x ORDER BY x.node),
        ARRAY(SELECT CASE WHEN x.state = 'ready' THEN 'running' ELSE x.state END FROM unnest(nodes) x ORDER BY x.node),
        ARRAY(SELECT x.message FROM unnest(nodes) x ORDER BY x.node),
        ARRAY(SELECT x.offset_ms FROM unnest(nodes) x ORDER BY x.node),
        ARRAY(SELECT x.rtt_ms FROM unnest(nodes) x ORDER BY x.node)), 10000);
    f.started := true;
    RAISE NOTICE 'fleet %: % nodes x % processes start at % (clock offsets within % ms, longest round trip % ms)',
        f.fleet, (SELECT count(*) FROM unnest(nodes) x WHERE x.state <> 'skipped'), o.processes,
        f.start_at, round(coalesce(f.spread, 0)::numeric, 3),
        round((SELECT max(x.rtt_ms) FROM unnest(nodes) x)::numeric, 3);
    RETURN f;
END
$$;

-- Step 3 of a fleet, second half, for one node that is ready: its batch
-- sent (ranread_run_step with the fleet's spec).  The node, running, or
-- failed when it could not be sent.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_fleet_send(node ranread_internal.ranread_fleet_node_state,
    spec jsonb)
RETURNS ranread_internal.ranread_fleet_node_state
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    err text;
BEGIN
    IF node.state <> 'ready' THEN
        RETURN node;
    END IF;
    err := ranread_internal.ranread_remote_send(node.cname, format(
        'SELECT pg_catalog.json_build_object(''batch'', r.batch, ''status'', r.status)::text FROM %s.ranread_run_step(%L::jsonb) r WHERE r.grp = 0',
        node.schema, spec));
    IF err IS NULL THEN
        node.state := 'running';
    ELSE
        node.state := 'failed';
        node.message := 'the batch could not be sent: ' || ranread_internal.ranread_conninfo_scrub(err, node.conninfo);
    END IF;
    RETURN node;
END
$$;

-- A node's answer to its batch (ranread_remote_result's jsonb), as the
-- fleet's state of that node: done (the batch ended and said so),
-- cancelled (it ended by a cancel, ours or anyone's on the node), failed
-- (its error, or its connection lost), with the message and SQLSTATE.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_fleet_outcome(r jsonb, conninfo text,
    OUT state text, OUT message text, OUT code text)
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN $1->>'state' = 'ok' THEN 'done'
                WHEN $1->>'state' = 'error' AND $1->>'sqlstate' = '57014' THEN 'cancelled'
                ELSE 'failed' END,
           CASE WHEN $1->>'state' <> 'ok' THEN ranread_internal.ranread_conninfo_scrub(
               trim(regexp_replace(coalesce($1->>'message', 'no answer')
                                   || coalesce(': ' || nullif($1->>'detail', ''), ''), '\s+', ' ', 'g')), $2) END,
           CASE WHEN $1->>'state' <> 'ok' THEN coalesce($1->>'sqlstate', '08006') END
$$;

-- The nodes in a state, by the names of their connections
CREATE OR REPLACE FUNCTION ranread_internal.ranread_fleet_cnames(nodes ranread_internal.ranread_fleet_node_state[], state text)
RETURNS text[]
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT ARRAY(SELECT x.cname FROM unnest($1) x WHERE x.state = $2 ORDER BY x.node)
$$;

-- Stop the nodes still running: a cancel of each (a fresh connection asks
-- pg_cancel_backend() of its session, all within 1 s), then their answers
-- until until (no longer than some node that took its cancel has still to
-- answer).  A node that has not answered by then is given up: lost.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_fleet_stop_nodes(
    nodes ranread_internal.ranread_fleet_node_state[], until timestamptz)
RETURNS ranread_internal.ranread_fleet_node_state[]
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    run  text[] := ranread_internal.ranread_fleet_cnames(nodes, 'running');
    run0 text[] := run;
    took boolean[];
    c    text;
    k    integer;
    oc   record;
BEGIN
    IF cardinality(run) = 0 THEN
        RETURN nodes;
    END IF;
    took := ranread_internal.ranread_remote_cancel(run, least(1000, ranread_internal.ranread_fleet_ms(until)));
    LOOP
        run := ranread_internal.ranread_fleet_cnames(nodes, 'running');
        -- wait on while a node that took its cancel has not answered yet
        EXIT WHEN cardinality(run) = 0 OR ranread_internal.ranread_fleet_ms(until) = 0
            OR NOT EXISTS (SELECT FROM unnest(run) r WHERE took[array_position(run0, r)]);
        FOREACH c IN ARRAY ranread_internal.ranread_remote_wait(run, ranread_internal.ranread_fleet_ms(until)) LOOP
            k := (SELECT x.node FROM unnest(nodes) x WHERE x.cname = c);
            SELECT * INTO oc FROM ranread_internal.ranread_fleet_outcome(
                ranread_internal.ranread_remote_result(c, 0), nodes[k].conninfo);
            nodes[k].state := oc.state;
            IF oc.state = 'failed' THEN
                nodes[k].message := coalesce(nodes[k].message, oc.message);
            END IF;
        END LOOP;
    END LOOP;
    FOR i IN 1..cardinality(nodes) LOOP
        IF nodes[i].state = 'running' THEN
            nodes[i].state := 'lost';
            nodes[i].message := coalesce(nodes[i].message || '; ', '')
                || 'given up: it did not answer its cancel in time (frozen, or its network is gone)';
        END IF;
    END LOOP;
    RETURN nodes;
END
$$;

-- A run by iterations has no due end of its own: this is its bound.  Each
-- running node's server is asked, on a fresh connection (within 5 s),
-- whether a ranread worker runs there; alive_at is when each was last seen
-- at work.  A node not seen so for 30 s (frozen, its network gone, or its
-- session stuck after its workers ended) is stopped, and lost if it does
-- not answer that either.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_fleet_watch(fleet_id bigint,
    nodes ranread_internal.ranread_fleet_node_state[])
RETURNS ranread_internal.ranread_fleet_node_state[]
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    run    text[] := ranread_internal.ranread_fleet_cnames(nodes, 'running');
    seen   text[];
    stall  boolean := false;
    why    constant text := 'it showed no sign of work for 30 s (no answer to ranread''s probe, or no ranread worker running, while its batch by iterations went unanswered)';
    k      integer;
BEGIN
    IF cardinality(run) = 0 THEN
        RETURN nodes;
    END IF;
    seen := ranread_internal.ranread_remote_probe(run,
        'SELECT pg_catalog.count(*) FROM pg_catalog.pg_stat_activity WHERE backend_type = ''ranread worker''', 5000);
    FOR j IN 1..cardinality(run) LOOP
        k := (SELECT x.node FROM unnest(nodes) x WHERE x.cname = run[j]);
        IF coalesce(seen[j] ~ '^[1-9][0-9]*$', false) THEN
            nodes[k].alive_at := clock_timestamp();
        END IF;
    END LOOP;
    -- only the nodes not seen at work are stopped: the others are hidden
    FOR k IN 1..cardinality(nodes) LOOP
        CONTINUE WHEN nodes[k].state <> 'running';
        IF clock_timestamp() - nodes[k].alive_at > interval '30 s' THEN
            RAISE WARNING 'fleet %: node "%" showed no sign of work for 30 s (a run by iterations has no due end): stopping it',
                fleet_id, nodes[k].name;
            nodes[k].message := why;
            stall := true;
        ELSE
            nodes[k].state := 'running, at work';
        END IF;
    END LOOP;
    IF stall THEN
        nodes := ranread_internal.ranread_fleet_stop_nodes(nodes, clock_timestamp() + interval '3 s');
    END IF;
    FOR k IN 1..cardinality(nodes) LOOP
        IF nodes[k].state = 'running, at work' THEN
            nodes[k].state := 'running';
        ELSIF nodes[k].message IS NOT DISTINCT FROM why AND nodes[k].state = 'cancelled' THEN
            nodes[k].state := 'failed';
        ELSIF nodes[k].message IS NOT DISTINCT FROM why AND nodes[k].state = 'done' THEN
            nodes[k].message := NULL;   -- it answered just then
        END IF;
    END LOOP;
    RETURN nodes;
END
$$;

-- Step 4 of a fleet, one round: the nodes' answers awaited for up to a
-- second, each taken as it comes (a node that fails is warned of, and
-- with on_node_failure => 'stop' the others are stopped); or, when it is
-- time, a run by iterations watched (ranread_fleet_watch, every 10 s:
-- probe_at, from the first round on), or a run by duration's nodes that
-- have not answered 30 s after the batch was due to end (due_end) stopped,
-- and lost if they do not answer that.  A round never holds an answer
-- taken while it waits: a cancel lands in the wait, before any node's
-- state changes.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_fleet_poll(f ranread_internal.ranread_fleet_call,
    o @extschema@.ranread_fleet_options)
RETURNS ranread_internal.ranread_fleet_call
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    nodes ranread_internal.ranread_fleet_node_state[] := f.nodes;
    run   text[] := ranread_internal.ranread_fleet_cnames(f.nodes, 'running');
    c     text;
    i     integer;
    oc    record;
BEGIN
    IF f.probe_at IS NULL THEN
        -- the first round: every node counts as at work from its start
        f.probe_at := greatest(f.start_at, clock_timestamp());
        FOR k IN 1..cardinality(nodes) LOOP
            nodes[k].alive_at := f.probe_at;
        END LOOP;
        f.probe_at := f.probe_at + interval '10 s';
    END IF;
    IF o.duration IS NULL AND clock_timestamp() >= f.probe_at THEN
        f.nodes := ranread_internal.ranread_fleet_watch(f.fleet, nodes);
        f.probe_at := clock_timestamp() + interval '10 s';
        RETURN f;
    END IF;
    IF clock_timestamp() > f.due_end THEN
        f.nodes := ranread_internal.ranread_fleet_overdue(f.fleet, nodes);
        RETURN f;
    END IF;
    FOREACH c IN ARRAY ranread_internal.ranread_remote_wait(run, 1000) LOOP
        i := (SELECT x.node FROM unnest(nodes) x WHERE x.cname = c);
        SELECT * INTO oc FROM ranread_internal.ranread_fleet_outcome(
            ranread_internal.ranread_remote_result(c, 0), nodes[i].conninfo);
        nodes[i].state := oc.state;
        CONTINUE WHEN oc.state = 'done';
        nodes[i].message := oc.message;
        nodes[i].code := oc.code;
        RAISE WARNING 'node "%" of fleet % %: %', nodes[i].name, f.fleet, oc.state, oc.message;
        IF o.on_node_failure = 'stop' THEN
            RAISE WARNING 'fleet %: stopping the other nodes (on_node_failure => ''stop'')', f.fleet;
            nodes := ranread_internal.ranread_fleet_stop_nodes(nodes, clock_timestamp() + interval '3 s');
        END IF;
    END LOOP;
    f.nodes := nodes;
    RETURN f;
END
$$;

-- A run by duration whose nodes have not answered 30 s after the batch
-- was due to end: they are stopped, failed when they take the cancel,
-- lost when they do not answer it either
CREATE OR REPLACE FUNCTION ranread_internal.ranread_fleet_overdue(fleet_id bigint,
    nodes ranread_internal.ranread_fleet_node_state[])
RETURNS ranread_internal.ranread_fleet_node_state[]
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    RAISE WARNING 'fleet %: % of its nodes did not answer 30 s after the batch was due to end: stopping them',
        fleet_id, cardinality(ranread_internal.ranread_fleet_cnames(nodes, 'running'));
    FOR k IN 1..cardinality(nodes) LOOP
        IF nodes[k].state = 'running' THEN
            nodes[k].message := 'it did not answer 30 s after its batch was due to end';
        END IF;
    END LOOP;
    nodes := ranread_internal.ranread_fleet_stop_nodes(nodes, clock_timestamp() + interval '3 s');
    FOR k IN 1..cardinality(nodes) LOOP
        IF nodes[k].state = 'cancelled' AND nodes[k].message LIKE 'it did not answer 30 s%' THEN
            nodes[k].state := 'failed';
        ELSIF nodes[k].state = 'done' AND nodes[k].message LIKE 'it did not answer 30 s%' THEN
            nodes[k].message := NULL;   -- it answered just then
        END IF;
    END LOOP;
    RETURN nodes;
END
$$;
