-- 1.1, the fleet: running one batch on many servers at once.
--
-- The coordinator (the session that calls ranread_fleet) never does I/O.
-- It opens one connection per node and one back to its own database (the
-- recorder), with ranread's own connections (src/remote.c: libpq's
-- asynchronous calls, every wait interruptible and bounded), then:
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
--   4. waits on the nodes' sockets and takes each node's result as it
--      comes; a node that fails is recorded failed, and the others run on
--      or are stopped (on_node_failure).
--   5. collects every node's batch row and seconds (found by the fleet id
--      and start_at the batch carries) from every node it can reach, over a
--      fresh connection where the node's own one is gone, computes the
--      fleet's figures (ranread_fleet_totals) and records them through the
--      recorder.
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

-- Milliseconds from now until an instant (0 when it has passed)
CREATE OR REPLACE FUNCTION ranread_internal.ranread_fleet_ms(until timestamptz)
RETURNS integer
LANGUAGE sql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT greatest(0, least(2147483647, ceil(extract(epoch FROM $1 - clock_timestamp()) * 1000)))::integer
$$;

-- The connection string back to this database, for the recorder: loopback,
-- or this server's first socket directory, port, database and user
CREATE OR REPLACE FUNCTION ranread_internal.ranread_fleet_loopback(loopback text)
RETURNS text
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT coalesce($1, format('host=%s port=%s dbname=%s user=%s application_name=ranread_fleet_recorder',
        ranread_internal.ranread_conninfo_quote(coalesce(nullif(trim(split_part(current_setting('unix_socket_directories'), ',', 1)), ''), 'localhost')),
        current_setting('port'),
        ranread_internal.ranread_conninfo_quote(current_database()),
        ranread_internal.ranread_conninfo_quote(current_user)))
$$;

-- A value quoted for a connection string
CREATE OR REPLACE FUNCTION ranread_internal.ranread_conninfo_quote(v text)
RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT '''' || replace(replace(v, '\', '\\'), '''', '\''') || ''''
$$;

-- Open the recorder (a connection back to this database, in transactions
-- of its own), or an error saying how to allow it
CREATE OR REPLACE FUNCTION ranread_internal.ranread_fleet_recorder(recorder text, conninfo text, fn text, what text)
RETURNS void
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    err text;
BEGIN
    err := (ranread_internal.ranread_remote_connect(ARRAY[recorder], ARRAY[conninfo]))[1];
    IF err IS NULL THEN
        BEGIN
            -- its statements name pg_catalog's functions bare: no other schema may answer
            PERFORM ranread_internal.ranread_remote_query(recorder,
                'SET search_path = pg_catalog, pg_temp; SET lock_timeout = ''5s''; SET statement_timeout = 0', 10000);
        EXCEPTION WHEN OTHERS THEN
            err := SQLERRM;
        END;
    END IF;
    IF err IS NOT NULL THEN
        PERFORM ranread_internal.ranread_remote_close(ARRAY[recorder]);
        RAISE EXCEPTION USING
            ERRCODE = 'sqlclient_unable_to_establish_sqlconnection',
            MESSAGE = format('%s cannot connect back to its own database to record the %s', fn, what),
            DETAIL = ranread_internal.ranread_conninfo_scrub(err, conninfo),
            HINT = 'A fleet records itself through a connection of its own, so that a cancel loses nothing: allow the connection (pg_hba.conf), or give one with loopback => ''host=... dbname=...'' (a password file holds its password).';
    END IF;
END
$$;

-- The recorder ready for a statement before until: a statement of it still
-- in flight (the coordinator was interrupted during it) is cancelled, or the
-- recorder opened again.  Returns whether it is ready.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_fleet_recorder_ready(recorder text, conninfo text, until timestamptz)
RETURNS boolean
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    st text := ranread_internal.ranread_remote_state(recorder);
BEGIN
    IF st = 'idle' THEN
        RETURN true;
    END IF;
    IF st IN ('busy', 'done') THEN
        IF st = 'busy' THEN
            PERFORM ranread_internal.ranread_remote_cancel(ARRAY[recorder], least(1000, ranread_internal.ranread_fleet_ms(until) / 2));
        END IF;
        PERFORM ranread_internal.ranread_remote_result(recorder, least(1000, ranread_internal.ranread_fleet_ms(until) / 2));
        IF ranread_internal.ranread_remote_state(recorder) = 'idle' THEN
            RETURN true;
        END IF;
    END IF;
    PERFORM ranread_internal.ranread_remote_close(ARRAY[recorder]);
    IF (ranread_internal.ranread_remote_connect(ARRAY[recorder], ARRAY[conninfo],
            ranread_internal.ranread_fleet_ms(until)))[1] IS NOT NULL THEN
        RETURN false;
    END IF;
    PERFORM ranread_internal.ranread_remote_query(recorder,
        'SET search_path = pg_catalog, pg_temp; SET lock_timeout = ''5s''; SET statement_timeout = 0',
        ranread_internal.ranread_fleet_ms(until));
    RETURN true;
END
$$;

-- The clock of a node against ours: the best (shortest) of five round trips
-- of clock_timestamp(); offset_ms = node's clock - ours, at the middle of
-- that round trip.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_fleet_clock(conn text,
    OUT offset_ms float8, OUT rtt_ms float8)
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    t0     timestamptz;
    t1     timestamptz;
    remote timestamptz;
    rtt    float8;
BEGIN
    FOR i IN 1..5 LOOP
        t0 := clock_timestamp();
        remote := ranread_internal.ranread_remote_query(conn, 'SELECT pg_catalog.clock_timestamp()', 10000)::timestamptz;
        t1 := clock_timestamp();
        rtt := extract(epoch FROM t1 - t0)::float8 * 1000;
        IF rtt_ms IS NULL OR rtt < rtt_ms THEN
            rtt_ms := rtt;
            offset_ms := extract(epoch FROM remote - t0)::float8 * 1000 - rtt / 2;
        END IF;
    END LOOP;
END
$$;

-- What stands in the way of a node running its share, or NULL: ranread
-- missing or older than 1.1, a standby, the target missing or not ready, a
-- batch running there, options it refuses.  Returns {"schema", "system",
-- "problem", "sqlstate", "hint"}.  Each query has 10 s.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_fleet_probe(conn text,
    o @extschema@.ranread_fleet_options)
RETURNS jsonb
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    facts jsonb;
    sch   text;
    state text;
    busy  text;
BEGIN
    facts := ranread_internal.ranread_remote_query(conn, $q$
        SELECT pg_catalog.json_build_object(
            'version', (SELECT e.extversion FROM pg_catalog.pg_extension e WHERE e.extname = 'ranread'),
            'schema', (SELECT pg_catalog.quote_ident(n.nspname) FROM pg_catalog.pg_extension e
                         JOIN pg_catalog.pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'ranread'),
            'standby', pg_catalog.pg_is_in_recovery(),
            'system', (SELECT c.system_identifier::text FROM pg_catalog.pg_control_system() c),
            'db', pg_catalog.current_database(),
            'workers', (SELECT pg_catalog.count(*) FROM pg_catalog.pg_stat_activity a
                         WHERE a.backend_type LIKE 'ranread%'))::text $q$, 10000)::jsonb;
    sch := facts->>'schema';
    IF sch IS NULL THEN
        RETURN facts || jsonb_build_object('sqlstate', '42704',
            'problem', format('ranread is not installed in its database "%s"', facts->>'db'),
            'hint', 'CREATE EXTENSION ranread there and make a target with ranread_setup.');
    END IF;
    IF string_to_array(facts->>'version', '.')::integer[] < '{1,1}' THEN
        RETURN facts || jsonb_build_object('sqlstate', '55000',
            'problem', format('it has ranread %s, and a fleet needs 1.1 or later', facts->>'version'),
            'hint', 'ALTER EXTENSION ranread UPDATE there.');
    END IF;
    IF (facts->>'standby')::boolean THEN
        RETURN facts || jsonb_build_object('sqlstate', '25006',
            'problem', 'it is a standby', 'hint', 'A fleet runs on primaries.');
    END IF;
    state := ranread_internal.ranread_remote_query(conn,
        format('SELECT t.state FROM %s.ranread_targets t WHERE t.target = %L', sch, o.target), 10000);
    IF state IS NULL THEN
        RETURN facts || jsonb_build_object('sqlstate', '42704',
            'problem', format('it has no ranread target "%s"', o.target),
            'hint', format('Make it there first, e.g. SELECT * FROM ranread_setup(''10GB'', target => %L);', o.target));
    ELSIF state <> 'ready' THEN
        RETURN facts || jsonb_build_object('sqlstate', '55000',
            'problem', format('its ranread target "%s" is %s', o.target, state),
            'hint', 'Run ranread_setup there again.');
    END IF;
    IF (facts->>'workers')::integer > 0 THEN
        busy := ranread_internal.ranread_remote_query(conn,
            format('SELECT pg_catalog.max(b.batch)::text FROM %s.ranread_batches b WHERE b.status = ''running''', sch), 10000);
        RETURN facts || jsonb_build_object('sqlstate', '55006',
            'problem', CASE WHEN busy IS NULL THEN 'it is busy: ranread workers are running there'
                            ELSE format('it is busy: its ranread batch %s is running', busy) END,
            'hint', 'One batch runs at a time in a cluster: wait for it, or stop it there with ranread_stop().');
    END IF;
    BEGIN
        PERFORM ranread_internal.ranread_remote_query(conn,
            format('SELECT pg_catalog.count(*)::text FROM %s.ranread_blocks(%L, 1, %L, %L, %L, %L, %L, 0, %L)',
                   sch, o.processes, o.target, o.block_size, o.pattern, o.region_start, o.region_end,
                   o.distribution), 10000);
    EXCEPTION WHEN OTHERS THEN
        IF SQLSTATE LIKE '08%' THEN
            RAISE;
        END IF;
        RETURN facts || jsonb_build_object('sqlstate', SQLSTATE,
            'problem', 'it refuses the options: ' || SQLERRM);
    END;
    RETURN facts;
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

-- The nodes of fleet fleet_id, as resolved, before any is reached
CREATE OR REPLACE FUNCTION ranread_internal.ranread_fleet_nodes_init(fleet_id bigint, names text[], conninfos text[])
RETURNS ranread_internal.ranread_fleet_node_state[]
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT coalesce(array_agg(ROW(k, $2[k], $3[k], format('ranread_fleet_%s_%s', $1, k),
                                  NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL
                              )::ranread_internal.ranread_fleet_node_state ORDER BY k), '{}')
      FROM generate_subscripts($2, 1) k
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

-- The query that reads a node's batch of this fleet (found by the fleet id
-- and start_at the batch carries) with its seconds, as one json text
CREATE OR REPLACE FUNCTION ranread_internal.ranread_fleet_batch_sql(sch text, fleet bigint, start_at timestamptz)
RETURNS text
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT format($q$
        SELECT pg_catalog.json_build_object(
            'batch', b.batch, 'status', s.status, 'message', s.message,
            'reads', b.reads, 'writes', b.writes, 'seconds', b.seconds, 'iops', b.iops,
            'mbps', b.mbps, 'avg_ms', b.avg_ms, 'p50_ms', b.p50_ms, 'p95_ms', b.p95_ms,
            'p99_ms', b.p99_ms, 'p999_ms', b.p999_ms, 'max_ms', b.max_ms,
            'histogram', b.histogram, 'first_io_at', b.first_io_at,
            'intervals', (SELECT pg_catalog.json_agg(i ORDER BY i.second) FROM (
                SELECT v.second, pg_catalog.sum(v.reads) AS reads, pg_catalog.sum(v.writes) AS writes,
                       pg_catalog.sum(v.iops) AS iops,
                       pg_catalog.sum(v.avg_ms * (v.reads + v.writes))
                           / NULLIF(pg_catalog.sum(v.reads + v.writes), 0) AS avg_ms,
                       pg_catalog.max(v.max_ms) AS max_ms
                  FROM %1$s.ranread_intervals v
                 WHERE v.batch = b.batch GROUP BY v.second) i))::text
          FROM %1$s.ranread_batches b, %1$s.ranread_summary_full s
         WHERE s.batch = b.batch AND b.fleet = %2$s AND b.start_at = %3$L::timestamptz
         ORDER BY b.batch DESC LIMIT 1 $q$, $1, $2, to_jsonb($3)#>>'{}')
$$;

-- Fresh connections (the nodes' own names with _r) to the nodes ks, all at
-- once, within timeout_ms: use[k] is the connection of each reached, and
-- errors[k] why each other could not be
CREATE OR REPLACE FUNCTION ranread_internal.ranread_fleet_reconnect(
    nodes ranread_internal.ranread_fleet_node_state[], ks integer[], timeout_ms integer,
    INOUT use text[], INOUT errors text[])
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    cs   text[] := ARRAY(SELECT nodes[u.m].cname || '_r' FROM unnest(ks) WITH ORDINALITY u(m, o) ORDER BY u.o);
    errs text[];
    k    integer;
BEGIN
    IF cardinality(ks) = 0 THEN
        RETURN;
    END IF;
    -- connecting all at once; each one's query waits for its connection
    PERFORM ranread_internal.ranread_remote_close(cs);
    errs := ranread_internal.ranread_remote_connect(cs,
        ARRAY(SELECT nodes[u.m].conninfo FROM unnest(ks) WITH ORDINALITY u(m, o) ORDER BY u.o), timeout_ms, false);
    FOR j IN 1..cardinality(ks) LOOP
        k := ks[j];
        IF errs[j] IS NULL THEN
            use[k] := cs[j];
        ELSE
            errors[k] := 'it could not be reached to read its batch: '
                || ranread_internal.ranread_conninfo_scrub(errs[j], nodes[k].conninfo);
        END IF;
    END LOOP;
END
$$;

-- What a node answered for its batch (ranread_fleet_batch_sql's object, as
-- text), as the fleet may keep it, or NULL and why not.  A node is another
-- server and what it sends may be anything: only the keys of that object
-- are kept (a node cannot name the fleet, the node, its name or another
-- fleet's row), each must read as its column of ranread_fleet_nodes, the
-- status one a batch can have, the histogram one ranread reads, and every
-- second numbered and counted.  The reason names what was wrong, cut to a
-- line.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_fleet_answer(answer text, OUT batch jsonb, OUT error text)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v jsonb;
    n @extschema@.ranread_fleet_nodes;
BEGIN
    IF answer IS NULL THEN
        RETURN;
    END IF;
    BEGIN
        v := answer::jsonb;
        IF jsonb_typeof(v) IS DISTINCT FROM 'object' THEN
            RAISE EXCEPTION 'it is a JSON %, not an object', jsonb_typeof(v);
        END IF;
        SELECT coalesce(jsonb_object_agg(e.key, e.value), '{}') INTO v
          FROM jsonb_each(v) e
         WHERE e.key IN ('batch', 'status', 'message', 'reads', 'writes', 'seconds', 'iops', 'mbps',
                         'avg_ms', 'p50_ms', 'p95_ms', 'p99_ms', 'p999_ms', 'max_ms', 'histogram',
                         'first_io_at', 'intervals');
        n := jsonb_populate_record(NULL::@extschema@.ranread_fleet_nodes, v - 'intervals');
        IF n.status IS NULL OR n.status NOT IN ('running', 'completed', 'stopped', 'cancelled', 'failed') THEN
            RAISE EXCEPTION 'its status is %, not one a batch has', coalesce(quote_literal(n.status), 'missing');
        END IF;
        IF n.histogram IS NOT NULL THEN
            PERFORM @extschema@.ranread_hist_count(n.histogram);
        END IF;
        -- (a node's clock that far off fails the fleet's clock check first)
        IF NOT (coalesce(n.first_io_at, now()) BETWEEN now() - interval '7 days' AND now() + interval '7 days') THEN
            RAISE EXCEPTION 'its first I/O is at %, more than 7 days from now', n.first_io_at;
        END IF;
        -- bounds no batch passes, so that up to 256 nodes' figures add up
        -- without overflow in the fleet's totals, rows and summary: 2^40
        -- I/Os (and histogram values), a billion IOPS, 10^7 MiB/s, 10^7 ms,
        -- 10^7 s (ranread_fleet_totals, ranread_fleet_round)
        IF NOT (n.reads BETWEEN 0 AND 1099511627776) OR NOT (n.writes BETWEEN 0 AND 1099511627776) THEN
            RAISE EXCEPTION 'its reads % and writes % are not counts between 0 and 2^40', n.reads, n.writes;
        END IF;
        IF EXISTS (SELECT FROM unnest(ARRAY[n.seconds, n.mbps, n.avg_ms, n.p50_ms, n.p95_ms,
                                            n.p99_ms, n.p999_ms, n.max_ms]) f
                    WHERE NOT (f BETWEEN 0 AND 1e7))  -- NaN is above any bound
           OR NOT (n.iops BETWEEN 0 AND 1e9) THEN
            RAISE EXCEPTION 'a figure of it is negative, NaN or past its bound (1e9 IOPS, 1e7 s, MiB/s or ms)';
        END IF;
        IF n.histogram IS NOT NULL AND @extschema@.ranread_hist_count(n.histogram) > 1099511627776 THEN
            RAISE EXCEPTION 'its histogram holds more than 2^40 values';
        END IF;
        IF jsonb_typeof(coalesce(v->'intervals', '[]')) NOT IN ('array', 'null') THEN
            RAISE EXCEPTION 'its intervals are a JSON %, not an array', jsonb_typeof(v->'intervals');
        END IF;
        IF EXISTS (SELECT FROM jsonb_populate_recordset(NULL::@extschema@.ranread_fleet_seconds,
                                                        coalesce(nullif(v->'intervals', 'null'), '[]')) i
                    WHERE NOT (coalesce(i.second, -1) BETWEEN 0 AND 10000000)
                       OR NOT (coalesce(i.reads, -1) BETWEEN 0 AND 1099511627776)
                       OR NOT (coalesce(i.writes, -1) BETWEEN 0 AND 1099511627776)
                       OR NOT (coalesce(i.iops, -1) BETWEEN 0 AND 1e9)
                       OR NOT (coalesce(i.avg_ms, 0) BETWEEN 0 AND 1e7)
                       OR NOT (coalesce(i.max_ms, 0) BETWEEN 0 AND 1e7)) THEN
            RAISE EXCEPTION 'a second of its intervals has no number, no counts or figures out of range';
        END IF;
        IF jsonb_array_length(coalesce(nullif(v->'intervals', 'null'), '[]')) > 172800 THEN
            RAISE EXCEPTION 'it has % seconds, more than two days of them', jsonb_array_length(v->'intervals');
        END IF;
        IF (SELECT count(*) <> count(DISTINCT i.second)
              FROM jsonb_populate_recordset(NULL::@extschema@.ranread_fleet_seconds,
                                            coalesce(nullif(v->'intervals', 'null'), '[]')) i) THEN
            RAISE EXCEPTION 'a second of its intervals is there twice';
        END IF;
    EXCEPTION WHEN OTHERS THEN
        batch := NULL;
        error := 'it answered what is not a batch of ranread: '
                 || left(regexp_replace(SQLERRM, '\s+', ' ', 'g'), 200);
        RETURN;
    END;
    -- seconds as null are no seconds; a message is kept to a screen
    batch := CASE WHEN v->'intervals' = 'null' THEN v - 'intervals' ELSE v END;
    IF length(n.message) > 2000 THEN
        batch := batch || jsonb_build_object('message', left(n.message, 2000) || '...');
    END IF;
END
$$;

-- The nodes' batches of this fleet, as each recorded it, with its seconds:
-- found by the fleet id and start_at the batch carries, from every node
-- not skipped that can be reached before until, all at once (over the
-- node's own connection, or a fresh one where that is gone or still busy;
-- a lost node gets 2 s for that fresh connection: it did not answer
-- before).  A batch still recording is asked again.  Returns per node the
-- batch (jsonb) or NULL, and why not.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_fleet_collect(
    nodes ranread_internal.ranread_fleet_node_state[], fleet bigint, start_at timestamptz, until timestamptz,
    OUT batches jsonb[], OUT errors text[])
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    n      integer := cardinality(nodes);
    use    text[] := array_fill(NULL::text, ARRAY[n]);
    sql    text[] := array_fill(NULL::text, ARRAY[n]);
    fresh  integer[] := '{}';
    fast   integer[] := '{}';
    mine   text[];
    c      text;
    k      integer;
    r      jsonb;
    v      jsonb;
    bad    text;
    again  boolean;
BEGIN
    batches := array_fill(NULL::jsonb, ARRAY[n]);
    errors := array_fill(NULL::text, ARRAY[n]);
    FOR i IN 1..n LOOP
        CONTINUE WHEN nodes[i].state IS NULL OR nodes[i].state = 'skipped' OR nodes[i].schema IS NULL;
        sql[i] := ranread_internal.ranread_fleet_batch_sql(nodes[i].schema, fleet, start_at);
        IF ranread_internal.ranread_remote_state(nodes[i].cname) IN ('idle', 'done') THEN
            -- an answer not taken (an earlier attempt was interrupted) goes
            PERFORM ranread_internal.ranread_remote_result(nodes[i].cname, 0);
            use[i] := nodes[i].cname;
        ELSIF nodes[i].state = 'lost' THEN
            fast := fast || i;
        ELSE
            fresh := fresh || i;
        END IF;
    END LOOP;
    SELECT * INTO use, errors FROM ranread_internal.ranread_fleet_reconnect(nodes, fast,
        least(2000, ranread_internal.ranread_fleet_ms(until)), use, errors);
    SELECT * INTO use, errors FROM ranread_internal.ranread_fleet_reconnect(nodes, fresh,
        ranread_internal.ranread_fleet_ms(until), use, errors);
    mine := ARRAY(SELECT nodes[q.m].cname || '_r' FROM unnest(fast || fresh) q(m));
    FOR i IN 1..n LOOP
        CONTINUE WHEN use[i] IS NULL;
        c := ranread_internal.ranread_remote_send(use[i], sql[i]);
        IF c IS NOT NULL THEN
            errors[i] := 'its batch could not be read: ' || ranread_internal.ranread_conninfo_scrub(c, nodes[i].conninfo);
            use[i] := NULL;
        END IF;
    END LOOP;
    LOOP
        EXIT WHEN NOT EXISTS (SELECT FROM unnest(use) u WHERE u IS NOT NULL);
        IF ranread_internal.ranread_fleet_ms(until) = 0 THEN
            FOR i IN 1..n LOOP
                IF use[i] IS NOT NULL AND batches[i] IS NULL THEN
                    errors[i] := coalesce(errors[i], CASE WHEN ranread_internal.ranread_remote_state(use[i]) = 'connecting'
                        THEN 'it could not be reached in time to read its batch'
                        ELSE 'its batch could not be read in time: it did not answer' END);
                END IF;
            END LOOP;
            EXIT;
        END IF;
        again := false;
        FOREACH c IN ARRAY ranread_internal.ranread_remote_wait(ARRAY(SELECT u FROM unnest(use) u WHERE u IS NOT NULL),
                                                          ranread_internal.ranread_fleet_ms(until)) LOOP
            k := array_position(use, c);
            r := ranread_internal.ranread_remote_result(c, 0);
            IF r->>'state' = 'ok' THEN
                SELECT a.batch, a.error INTO v, bad FROM ranread_internal.ranread_fleet_answer(r->>'value') a;
                batches[k] := v;
                errors[k] := bad;
                IF v->>'status' = 'running' AND ranread_internal.ranread_fleet_ms(until) > 200 THEN
                    -- still recording: ask again in a moment
                    again := true;
                    IF ranread_internal.ranread_remote_send(c, sql[k]) IS NOT NULL THEN
                        use[k] := NULL;
                    END IF;
                ELSE
                    use[k] := NULL;
                END IF;
            ELSE
                errors[k] := CASE WHEN c = ANY (mine) AND batches[k] IS NULL AND r->>'state' = 'broken'
                                  THEN 'it could not be reached to read its batch: '
                                  ELSE 'its batch could not be read: ' END
                    || ranread_internal.ranread_conninfo_scrub(coalesce(r->>'message', r->>'state'), nodes[k].conninfo);
                use[k] := NULL;
            END IF;
        END LOOP;
        IF again THEN
            PERFORM pg_sleep(0.05);
        END IF;
    END LOOP;
    PERFORM ranread_internal.ranread_remote_close(mine);
END
$$;

-- The nodes' rows of a fleet's end (as ranread_fleet_nodes holds them, in
-- jsonb) and their seconds, from what each node's batch recorded (batches)
-- or why it could not be read (errors).  A node's status: skipped; lost
-- (given up, or its batch could not be read in time); failed (its error,
-- or its session lost: with its batch's figures when it can be read); else
-- as its batch recorded it, cancelled when it was stopped and no batch is
-- found.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_fleet_node_rows(fleet bigint,
    o @extschema@.ranread_fleet_options, start_at timestamptz,
    nodes ranread_internal.ranread_fleet_node_state[], batches jsonb[], errors text[],
    OUT rows jsonb, OUT secs jsonb)
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    r        jsonb;
    node_row jsonb;
    st       text;
    msg      text;
    due      timestamptz := start_at + coalesce(o.warmup, interval '0');
BEGIN
    rows := '[]';
    secs := '[]';
    FOR i IN 1..cardinality(nodes) LOOP
        r := batches[i];
        msg := nodes[i].message;
        IF r IS NULL AND nodes[i].state NOT IN ('skipped') AND errors[i] IS NOT NULL THEN
            msg := coalesce(msg || '; ', '') || errors[i];
        END IF;
        st := CASE WHEN nodes[i].state IN ('skipped', 'lost', 'failed') THEN nodes[i].state
                   -- still recording when the collection ended: its end is
                   -- on the node only (a fleet's row never stays running)
                   WHEN r->>'status' = 'running' THEN 'lost'
                   WHEN r IS NOT NULL THEN r->>'status'
                   WHEN nodes[i].state IN ('cancelled', 'stopped') THEN nodes[i].state
                   -- it ran and answered, but what it did cannot be read now
                   WHEN nodes[i].state = 'done' AND errors[i] IS NOT NULL THEN 'lost'
                   ELSE 'failed' END;
        IF st = 'failed' AND msg IS NULL AND r IS NULL THEN
            msg := 'the node ran no batch of this fleet';
        END IF;
        IF st = 'lost' AND r->>'status' = 'running' THEN
            msg := coalesce(msg || '; ', '') || format('its batch was still running when the fleet collected it: its end is in its own history (ranread_batches.fleet = %s there)', fleet);
        END IF;
        IF st = 'lost' AND r IS NULL THEN
            msg := coalesce(msg || '; ', '') || format('its batch, if it ran one, is in its own history (ranread_batches.fleet = %s there)', fleet);
        END IF;
        node_row := jsonb_build_object(
            'fleet', fleet, 'node', i, 'name', nodes[i].name,
            'conninfo', ranread_internal.ranread_conninfo_strip(nodes[i].conninfo),
            'status', st,
            'message', CASE WHEN st IN ('failed', 'lost') THEN coalesce(msg, r->>'message') ELSE coalesce(r->>'message', msg) END,
            'offset_ms', nodes[i].offset_ms, 'rtt_ms', nodes[i].rtt_ms);
        IF r IS NOT NULL THEN
            -- the node's figures, under what the coordinator knows of it
            node_row := (r - 'intervals') || node_row
                || jsonb_build_object('late_ms',
                       extract(epoch FROM (r->>'first_io_at')::timestamptz - due)::float8 * 1000);
            SELECT secs || coalesce(jsonb_agg(jsonb_build_object(
                       'fleet', fleet, 'node', i,
                       'at', ranread_internal.ranread_fleet_align(due, (v->>'second')::integer),
                       'second', v->'second', 'reads', v->'reads', 'writes', v->'writes',
                       'iops', v->'iops', 'avg_ms', v->'avg_ms', 'max_ms', v->'max_ms',
                       -- a second's real length: whole, but the last one's, which
                       -- ends with the batch (ranread_intervals.iops is over it)
                       'elapsed', CASE WHEN (v->>'second')::integer = m.last
                                       THEN greatest((r->>'seconds')::float8 - m.last, 0) ELSE 1 END)), '[]')
              INTO secs
              FROM jsonb_array_elements(coalesce(r->'intervals', '[]')) v,
                   (SELECT max((x->>'second')::integer) AS last
                      FROM jsonb_array_elements(coalesce(r->'intervals', '[]')) x) m
             WHERE r->>'first_io_at' IS NOT NULL;
        END IF;
        rows := rows || node_row;
    END LOOP;
END
$$;

-- A fleet's end recorded through the recorder (before until): its nodes'
-- rows and seconds, and the fleet's row
CREATE OR REPLACE FUNCTION ranread_internal.ranread_fleet_record(recorder text, rec_conn text,
    fleet bigint, nodes jsonb, secs jsonb, fleet_row jsonb, until timestamptz)
RETURNS void
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF NOT ranread_internal.ranread_fleet_recorder_ready(recorder, rec_conn, until) THEN
        RAISE EXCEPTION USING ERRCODE = 'connection_failure',
            MESSAGE = format('the recorder of fleet %s could not be reached in time', fleet);
    END IF;
    PERFORM ranread_internal.ranread_remote_query(recorder, format($q$
        DELETE FROM @extschema@.ranread_fleet_nodes WHERE fleet = %1$s;
        INSERT INTO @extschema@.ranread_fleet_nodes
            SELECT * FROM jsonb_populate_recordset(NULL::@extschema@.ranread_fleet_nodes, %2$L);
        INSERT INTO @extschema@.ranread_fleet_seconds
            SELECT * FROM jsonb_populate_recordset(NULL::@extschema@.ranread_fleet_seconds, %3$L);
        UPDATE @extschema@.ranread_fleets f
           SET finished_at = j.finished_at, status = j.status, message = j.message,
               window_start = j.window_start, window_end = j.window_end,
               window_seconds = j.window_seconds, reads = j.reads, writes = j.writes,
               iops = j.iops, mbps = j.mbps, avg_ms = j.avg_ms, p50_ms = j.p50_ms,
               p95_ms = j.p95_ms, p99_ms = j.p99_ms, p999_ms = j.p999_ms, max_ms = j.max_ms,
               histogram = j.histogram, start_spread_ms = j.start_spread_ms
          FROM jsonb_populate_record(NULL::@extschema@.ranread_fleets, %4$L) j
         WHERE f.fleet = %1$s $q$, fleet, nodes, secs, fleet_row), ranread_internal.ranread_fleet_ms(until));
END
$$;

-- The rows of ranread_fleet's result (as jsonb): the nodes, then the
-- fleet as node 0, from the nodes' rows and the fleet's row as recorded
CREATE OR REPLACE FUNCTION ranread_internal.ranread_fleet_result_rows(fleet bigint, nodes jsonb,
    fleet_row jsonb, states ranread_internal.ranread_fleet_node_state[])
RETURNS jsonb
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT (SELECT jsonb_agg(jsonb_build_object(
               'fleet', $1, 'node', (x->>'node')::integer, 'name', x->'name', 'batch', x->'batch',
               'status', x->'status', 'reads', x->'reads', 'writes', x->'writes',
               'seconds', x->'seconds', 'iops', x->'iops', 'mbps', x->'mbps', 'avg_ms', x->'avg_ms',
               'p50_ms', x->'p50_ms', 'p99_ms', x->'p99_ms', 'p999_ms', x->'p999_ms',
               'max_ms', x->'max_ms', 'offset_ms', x->'offset_ms', 'rtt_ms', x->'rtt_ms',
               'first_io_ms', x->'late_ms', 'outlier', x->'outlier', 'message', x->'message')
             ORDER BY (x->>'node')::integer)
              FROM jsonb_array_elements($2) x)
        || jsonb_build_object(
            'fleet', $1, 'node', 0, 'name', 'fleet', 'status', $3->'status',
            'reads', $3->'reads', 'writes', $3->'writes', 'seconds', $3->'window_seconds', 'iops', $3->'iops',
            'mbps', $3->'mbps', 'avg_ms', $3->'avg_ms', 'p50_ms', $3->'p50_ms', 'p99_ms', $3->'p99_ms',
            'p999_ms', $3->'p999_ms', 'max_ms', $3->'max_ms',
            'offset_ms', (SELECT max(s.offset_ms) - min(s.offset_ms) FROM unnest($4) s),
            'rtt_ms', (SELECT max(s.rtt_ms) FROM unnest($4) s),
            'first_io_ms', $3->'start_spread_ms', 'message', $3->'message')
$$;

-- The end of a fleet: every node's batch collected (until collect_until),
-- the fleet's figures computed, everything recorded through the recorder
-- (until record_until).  Returns the rows of ranread_fleet's result as jsonb
-- (the nodes, then the fleet as node 0), and the fleet's row as recorded.
-- Every node with a batch counts in the fleet's totals.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_fleet_finish(recorder text, rec_conn text,
    fleet bigint, o @extschema@.ranread_fleet_options, start_at timestamptz,
    states ranread_internal.ranread_fleet_node_state[], coordinator text,
    collect_until timestamptz, record_until timestamptz,
    OUT rows jsonb, OUT fleet_row jsonb)
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    got      record;
    nr       record;
    nodes    jsonb;
    outl     boolean[];
    t        record;
    fstatus  text;
    fmsg     text;
BEGIN
    SELECT * INTO got FROM ranread_internal.ranread_fleet_collect(states, fleet, start_at, collect_until);
    SELECT * INTO nr FROM ranread_internal.ranread_fleet_node_rows(fleet, o, start_at, states, got.batches, got.errors);
    nodes := nr.rows;

    -- outliers among the nodes that did their I/O
    outl := ranread_internal.ranread_fleet_outliers(ARRAY(
        SELECT CASE WHEN x->>'batch' IS NOT NULL AND x->>'status' NOT IN ('failed', 'lost') THEN (x->>'iops')::float8 END
          FROM jsonb_array_elements(nodes) WITH ORDINALITY AS e(x, k) ORDER BY k));
    SELECT jsonb_agg(x || jsonb_build_object('outlier', outl[k]) ORDER BY k) INTO nodes
      FROM jsonb_array_elements(nodes) WITH ORDINALITY AS e(x, k);

    SELECT * INTO t FROM ranread_internal.ranread_fleet_totals(nodes, nr.secs, o.block_size);
    fstatus := ranread_internal.ranread_fleet_status(ARRAY(SELECT x->>'status' FROM jsonb_array_elements(nodes) x),
                                                coordinator);
    SELECT string_agg(format('node "%s" %s%s', x->>'name', x->>'status',
                             coalesce(': ' || (x->>'message'), '')), '; ' ORDER BY (x->>'node')::integer)
      INTO fmsg
      FROM jsonb_array_elements(nodes) x
     WHERE x->>'status' NOT IN ('completed');
    IF coordinator = 'cancelled' THEN
        fmsg := 'the coordinator''s call was cancelled (cancel or statement_timeout); every node was stopped'
                || coalesce('; ' || fmsg, '');
    END IF;

    fleet_row := jsonb_build_object(
        'fleet', fleet, 'finished_at', clock_timestamp(), 'status', fstatus, 'message', fmsg,
        'window_start', t.window_start, 'window_end', t.window_end, 'window_seconds', t.window_seconds,
        'reads', t.reads, 'writes', t.writes, 'iops', t.iops, 'mbps', t.mbps, 'avg_ms', t.avg_ms,
        'p50_ms', t.p50_ms, 'p95_ms', t.p95_ms, 'p99_ms', t.p99_ms, 'p999_ms', t.p999_ms,
        'max_ms', t.max_ms, 'histogram', t.histogram, 'start_spread_ms', t.start_spread_ms);
    PERFORM ranread_internal.ranread_fleet_record(recorder, rec_conn, fleet, nodes, nr.secs, fleet_row, record_until);
    rows := ranread_internal.ranread_fleet_result_rows(fleet, nodes, fleet_row, states);
END
$$;

-- The nodes of a fleet as given: names of ranread_nodes or connection
-- strings libpq reads, each with its name (the ranread_nodes name, or
-- host:port) and connection string; an error naming none of a string's
-- text when it is neither.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_fleet_resolve(nodes text[], fn text,
    OUT names text[], OUT conninfos text[])
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    el      text;
    conn    text;
    problem text;
BEGIN
    names := '{}';
    conninfos := '{}';
    FOR i IN 1..cardinality(nodes) LOOP
        el := nodes[i];
        SELECT x.conninfo INTO conn FROM @extschema@.ranread_nodes x WHERE x.name = el;
        IF FOUND THEN
            names := names || el;
        ELSE
            conn := el;
            problem := ranread_internal.ranread_conninfo_problem(el);
            IF problem IS NOT NULL AND el ~ '^[A-Za-z0-9_.-]{1,63}$' THEN
                -- a plain word: a name that is not there
                RAISE EXCEPTION USING
                    ERRCODE = 'invalid_parameter_value',
                    MESSAGE = format('unknown node "%s" of %s', el, fn),
                    HINT = 'A node is a name in ranread_nodes, or a libpq connection string such as ''host=db2 port=5432 dbname=app''.';
            ELSIF problem IS NOT NULL THEN
                RAISE EXCEPTION USING
                    ERRCODE = 'invalid_parameter_value',
                    MESSAGE = format('invalid node %s of %s: neither a name in ranread_nodes nor a connection string libpq can read: %s',
                                     i, fn, problem),
                    DETAIL = 'Its text is not shown: it may hold a password.',
                    HINT = 'A node is a name in ranread_nodes, or a libpq connection string: keyword = value pairs such as ''host=db2 port=5432 dbname=app'', or a postgresql:// URI.';
            END IF;
            names := names || ranread_internal.ranread_conninfo_name(el);
        END IF;
        IF names[i] = ANY (names[1:i - 1]) THEN
            RAISE EXCEPTION USING
                ERRCODE = 'invalid_parameter_value',
                MESSAGE = format('node "%s" is given twice to %s', names[i], fn),
                HINT = 'One batch runs at a time in a cluster: name each server once.';
        END IF;
        conninfos := conninfos || conn;
    END LOOP;
END
$$;

-- Step 1 of a fleet: every node reached (all at once) and probed.  Each
-- node's schema and system as found, and for a node that cannot run its
-- share: state skipped, with why (message), its SQLSTATE (code) and hint.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_fleet_probe_nodes(fleet_id bigint,
    o @extschema@.ranread_fleet_options, nodes ranread_internal.ranread_fleet_node_state[])
RETURNS ranread_internal.ranread_fleet_node_state[]
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    errs  text[];
    probe jsonb;
    other integer;
BEGIN
    errs := ranread_internal.ranread_remote_connect(ARRAY(SELECT x.cname FROM unnest(nodes) x ORDER BY x.node),
                                               ARRAY(SELECT x.conninfo FROM unnest(nodes) x ORDER BY x.node));
    FOR k IN 1..cardinality(nodes) LOOP
        IF errs[k] IS NULL THEN
            -- the node's session ends its batch within a second of
            -- seeing this one gone (terminated)
            BEGIN
                PERFORM ranread_internal.ranread_remote_query(nodes[k].cname, format(
                    'SET application_name = %L; SET client_connection_check_interval = ''1s''',
                    'ranread_fleet ' || fleet_id), 10000);
            EXCEPTION WHEN OTHERS THEN
                errs[k] := SQLERRM;
            END;
        END IF;
        IF errs[k] IS NOT NULL THEN
            probe := jsonb_build_object('problem', 'it cannot be reached: ' || ranread_internal.ranread_conninfo_scrub(
                         regexp_replace(errs[k], '\s+', ' ', 'g'), nodes[k].conninfo),
                     'sqlstate', '08001',
                     'hint', 'Check the connection string, that the server runs and that pg_hba.conf lets this server in.');
        ELSE
            BEGIN
                probe := ranread_internal.ranread_fleet_probe(nodes[k].cname, o);
            EXCEPTION WHEN OTHERS THEN
                probe := jsonb_build_object('problem', 'it could not be probed: '
                    || ranread_internal.ranread_conninfo_scrub(SQLERRM, nodes[k].conninfo),
                    'sqlstate', CASE WHEN SQLSTATE LIKE '08%' THEN '08001' ELSE SQLSTATE END);
            END;
        END IF;
        nodes[k].schema := probe->>'schema';
        nodes[k].system := probe->>'system';
        nodes[k].message := probe->>'problem';
        nodes[k].code := probe->>'sqlstate';
        nodes[k].hint := probe->>'hint';
        other := (SELECT min(x.node) FROM unnest(nodes[1:k - 1]) x WHERE x.system = nodes[k].system);
        IF nodes[k].message IS NULL AND other IS NOT NULL THEN
            nodes[k].message := format('it is the same server as node "%s"', nodes[other].name);
            nodes[k].code := '22023';
            nodes[k].hint := 'One batch runs at a time in a cluster: name each server once.';
        END IF;
        nodes[k].state := CASE WHEN nodes[k].message IS NULL THEN 'ready' ELSE 'skipped' END;
    END LOOP;
    RETURN nodes;
END
$$;

-- After step 1: the nodes that cannot run named in one error before any
-- node starts, or in a warning when skip_unavailable lets the others run
CREATE OR REPLACE FUNCTION ranread_internal.ranread_fleet_unavailable(fleet_id bigint,
    o @extschema@.ranread_fleet_options, fn text, nodes ranread_internal.ranread_fleet_node_state[])
RETURNS void
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    bad    ranread_internal.ranread_fleet_node_state[] :=
               ARRAY(SELECT x FROM unnest(nodes) x WHERE x.state = 'skipped' ORDER BY x.node);
    detail text;
BEGIN
    IF cardinality(bad) = 0 THEN
        RETURN;
    END IF;
    SELECT string_agg(format('node "%s": %s', x.name, x.message), E'\n' ORDER BY x.node)
      INTO detail FROM unnest(bad) x;
    IF NOT o.skip_unavailable OR cardinality(bad) = cardinality(nodes) THEN
        RAISE EXCEPTION USING
            ERRCODE = coalesce(bad[1].code, '55000'),
            MESSAGE = CASE WHEN cardinality(bad) = 1
                           THEN format('node "%s" of %s is unavailable: %s', bad[1].name, fn, bad[1].message)
                           ELSE format('%s nodes of %s are unavailable', cardinality(bad), fn) END,
            DETAIL = CASE WHEN cardinality(bad) = 1 THEN '' ELSE detail || E'\n' END || 'No node was started.',
            HINT = coalesce(bad[1].hint || ' ', '') || CASE WHEN o.skip_unavailable
                THEN 'No node is left to run.'
                ELSE 'Or run on the others with skip_unavailable => true.' END;
    END IF;
    RAISE WARNING USING
        MESSAGE = format('fleet %s runs without %s unavailable node%s',
                         fleet_id, cardinality(bad), CASE WHEN cardinality(bad) > 1 THEN 's' ELSE '' END),
        DETAIL = detail;
END
$$;

-- Step 2 of a fleet: the clock of every node that is ready, refused or
-- warned of when their offsets spread more than max_offset_ms
CREATE OR REPLACE FUNCTION ranread_internal.ranread_fleet_clocks(fleet_id bigint,
    o @extschema@.ranread_fleet_options, fn text, INOUT nodes ranread_internal.ranread_fleet_node_state[],
    OUT spread float8)
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    clk record;
BEGIN
    FOR k IN 1..cardinality(nodes) LOOP
        CONTINUE WHEN nodes[k].state <> 'ready';
        SELECT * INTO clk FROM ranread_internal.ranread_fleet_clock(nodes[k].cname);
        nodes[k].offset_ms := clk.offset_ms;
        nodes[k].rtt_ms := clk.rtt_ms;
        RAISE NOTICE 'node "%": clock offset % ms, round trip % ms', nodes[k].name,
            round(clk.offset_ms::numeric, 3), round(clk.rtt_ms::numeric, 3);
    END LOOP;
    spread := (SELECT max(x.offset_ms) - min(x.offset_ms) FROM unnest(nodes) x);
    IF spread > o.max_offset_ms THEN
        IF o.on_clock_skew = 'error' THEN
            RAISE EXCEPTION USING
                ERRCODE = 'object_not_in_prerequisite_state',
                MESSAGE = format('the clocks of the nodes of %s differ by %s ms, more than max_offset_ms %s',
                                 fn, round(spread::numeric, 3), o.max_offset_ms),
                DETAIL = (SELECT string_agg(format('node "%s": %s ms', x.name, round(x.offset_ms::numeric, 3)), ', ' ORDER BY x.node)
                            FROM unnest(nodes) x WHERE x.offset_ms IS NOT NULL) || '. No node was started.',
                HINT = 'Synchronize the servers'' clocks (NTP, chrony), raise max_offset_ms, or run anyway with on_clock_skew => ''warn''.';
        END IF;
        RAISE WARNING 'the clocks of the nodes of fleet % differ by % ms, more than max_offset_ms %: their starts will differ as much',
            fleet_id, round(spread::numeric, 3), o.max_offset_ms;
    END IF;
END
$$;

-- Step 3 of a fleet, first half: the fleet and its nodes recorded as
-- running through the recorder (the nodes skipped as skipped)
CREATE OR REPLACE FUNCTION ranread_internal.ranread_fleet_record_start(recorder text, fleet_id bigint,
    o @extschema@.ranread_fleet_options, sweep bigint, spec jsonb, start_ts timestamptz, spread float8,
    nodes ranread_internal.ranread_fleet_node_state[])
RETURNS void
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM ranread_internal.ranread_remote_query(recorder, format($q$
        INSERT INTO @extschema@.ranread_fleets
            (fleet, started_at, started_by, coordinator_pid, coordinator_start, definition,
             nodes, processes, start_at, offset_spread_ms, max_rtt_ms, status, sweep)
        VALUES (%s, %L, %L, %s, %L, %L, %s, %s, %L, %L, %L, 'running', %L);
        INSERT INTO @extschema@.ranread_fleet_nodes (fleet, node, name, conninfo, status, message, offset_ms, rtt_ms)
        SELECT %1$s, k, x.names[k], x.conns[k], x.states[k], x.messages[k], x.offsets[k], x.rtts[k]
          FROM (SELECT %13$L::text[] AS names, %14$L::text[] AS conns, %15$L::text[] AS states,
                       %16$L::text[] AS messages, %17$L::float8[] AS offsets, %18$L::float8[] AS rtts) x,
               generate_subscripts(x.names, 1) k $q$,
        fleet_id, to_jsonb(clock_timestamp())#>>'{}', current_user, pg_backend_pid(),
        to_jsonb((SELECT a.backend_start FROM pg_stat_activity a WHERE a.pid = pg_backend_pid()))#>>'{}',
        jsonb_build_object('nodes', to_jsonb(ARRAY(SELECT x.name FROM unnest(nodes) x ORDER BY x.node)), 'options',
            to_jsonb(o) - 'nodes' - 'loopback', 'spec', spec),
        (SELECT count(*) FROM unnest(nodes) x WHERE x.state <> 'skipped'), o.processes,
        to_jsonb(start_ts)#>>'{}',
        spread, (SELECT max(x.rtt_ms) FROM unnest(nodes) x), sweep,
        ARRAY(SELECT x.name FROM unnest(nodes) x ORDER BY x.node),
        ARRAY(SELECT ranread_internal.ranread_conninfo_strip(x.conninfo) FROM unnest(nodes) x ORDER BY x.node),
        ARRAY(SELECT CASE WHEN x.state = 'ready' THEN 'running' ELSE x.state END FROM unnest(nodes) x ORDER BY x.node),
        ARRAY(SELECT x.message FROM unnest(nodes) x ORDER BY x.node),
        ARRAY(SELECT x.offset_ms FROM unnest(nodes) x ORDER BY x.node),
        ARRAY(SELECT x.rtt_ms FROM unnest(nodes) x ORDER BY x.node)), 10000);
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

-- Step 4 of a fleet, one round: the nodes' answers awaited for up to a
-- second, each taken as it comes (a node that fails is warned of, and
-- with on_node_failure => 'stop' the others are stopped); or, when it is
-- time, a run by iterations watched (ranread_fleet_watch, every 10 s:
-- probe_at), or a run by duration's nodes that have not answered 30 s
-- after the batch was due to end (due_end) stopped, and lost if they do
-- not answer that.  A round never holds an answer taken while it waits:
-- a cancel lands in the wait, before any node's state changes.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_fleet_wait(fleet_id bigint,
    o @extschema@.ranread_fleet_options, INOUT nodes ranread_internal.ranread_fleet_node_state[],
    due_end timestamptz, INOUT probe_at timestamptz)
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    run text[] := ranread_internal.ranread_fleet_cnames(nodes, 'running');
    c   text;
    i   integer;
    oc  record;
BEGIN
    IF o.duration IS NULL AND clock_timestamp() >= probe_at THEN
        nodes := ranread_internal.ranread_fleet_watch(fleet_id, nodes);
        probe_at := clock_timestamp() + interval '10 s';
        RETURN;
    END IF;
    IF clock_timestamp() > due_end THEN
        RAISE WARNING 'fleet %: % of its nodes did not answer 30 s after the batch was due to end: stopping them',
            fleet_id, cardinality(run);
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
        RETURN;
    END IF;
    FOREACH c IN ARRAY ranread_internal.ranread_remote_wait(run, 1000) LOOP
        i := (SELECT x.node FROM unnest(nodes) x WHERE x.cname = c);
        SELECT * INTO oc FROM ranread_internal.ranread_fleet_outcome(
            ranread_internal.ranread_remote_result(c, 0), nodes[i].conninfo);
        nodes[i].state := oc.state;
        CONTINUE WHEN oc.state = 'done';
        nodes[i].message := oc.message;
        nodes[i].code := oc.code;
        RAISE WARNING 'node "%" of fleet % %: %', nodes[i].name, fleet_id, oc.state, oc.message;
        IF o.on_node_failure = 'stop' THEN
            RAISE WARNING 'fleet %: stopping the other nodes (on_node_failure => ''stop'')', fleet_id;
            nodes := ranread_internal.ranread_fleet_stop_nodes(nodes, clock_timestamp() + interval '3 s');
        END IF;
    END LOOP;
END
$$;

-- A fleet interrupted (a cancel, statement_timeout, an error): the nodes
-- still running stopped (within 2 s) when stop, what they did collected
-- (within 2.5 s) and recorded (within 4 s), said in a warning.  Raises
-- nothing: when its end cannot be recorded, a warning says so.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_fleet_salvage(recorder text, rec_conn text,
    fleet_id bigint, o @extschema@.ranread_fleet_options, start_ts timestamptz,
    nodes ranread_internal.ranread_fleet_node_state[], e_state text, stop boolean)
RETURNS void
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    t0  timestamptz := clock_timestamp();
    how text := CASE WHEN e_state = '57014' THEN 'cancelled' ELSE 'failed' END;
    res record;
BEGIN
    IF stop THEN
        nodes := ranread_internal.ranread_fleet_stop_nodes(nodes, t0 + interval '2 s');
    END IF;
    SELECT * INTO res FROM ranread_internal.ranread_fleet_finish(recorder, rec_conn, fleet_id, o, start_ts,
        nodes, how, CASE WHEN stop THEN greatest(clock_timestamp() + interval '0.5 s', t0 + interval '2.5 s')
                         ELSE t0 + interval '2.5 s' END, t0 + interval '4 s');
    PERFORM ranread_internal.ranread_remote_last_words(recorder, NULL);
    IF stop THEN
        RAISE WARNING 'fleet % %: %; what they did is recorded (ranread_fleet_summary)', fleet_id, how,
            CASE WHEN EXISTS (SELECT FROM unnest(nodes) x WHERE x.state = 'lost')
                 THEN format('%s of its nodes lost (no answer to their cancel), the others stopped',
                             (SELECT count(*) FROM unnest(nodes) x WHERE x.state = 'lost'))
                 ELSE 'every node was stopped' END;
    ELSE
        RAISE WARNING 'fleet % %: what the nodes did is recorded (ranread_fleet_summary)', fleet_id, how;
    END IF;
EXCEPTION WHEN query_canceled OR others THEN
    RAISE WARNING 'fleet % could not record its end: %', fleet_id, SQLERRM;
END
$$;

-- After a fleet's end is recorded: an error when every node refused its
-- batch before any I/O, warnings for late starts and outliers, and the
-- fleet's figures in a notice
CREATE OR REPLACE FUNCTION ranread_internal.ranread_fleet_tell(fleet_id bigint,
    o @extschema@.ranread_fleet_options, fn text, nodes ranread_internal.ranread_fleet_node_state[],
    rows jsonb, fleet_row jsonb)
RETURNS void
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    bad ranread_internal.ranread_fleet_node_state;
    el  text;
BEGIN
    IF NOT EXISTS (SELECT FROM jsonb_array_elements(rows) x WHERE x->>'batch' IS NOT NULL) THEN
        SELECT * INTO bad FROM unnest(nodes) x WHERE x.state IN ('failed', 'cancelled', 'lost') ORDER BY x.node LIMIT 1;
        IF FOUND THEN
            RAISE EXCEPTION USING
                ERRCODE = coalesce(nullif(bad.code, ''), '55000'),
                MESSAGE = format('node "%s" of %s refused the batch: %s', bad.name, fn, bad.message),
                DETAIL = format('Fleet %s ran no batch on any node.', fleet_id);
        END IF;
    END IF;
    FOR el IN SELECT format('node "%s" started %s ms after start_at: its workers were ready only then', x->>'name',
                            round((x->>'first_io_ms')::numeric, 1))
                FROM jsonb_array_elements(rows) x
               WHERE (x->>'node')::integer > 0 AND (x->>'first_io_ms')::float8 > 10 LOOP
        RAISE WARNING USING MESSAGE = format('fleet %s: %s', fleet_id, el),
            HINT = 'Give the fleet more time ahead with start_delay.';
    END LOOP;
    FOR el IN SELECT format('node "%s" is an outlier: %s IOPS, below 0.8x the median of the nodes',
                            x->>'name', round((x->>'iops')::numeric))
                FROM jsonb_array_elements(rows) x WHERE (x->>'outlier')::boolean LOOP
        RAISE WARNING '%', format('fleet %s: %s', fleet_id, el);
    END LOOP;
    RAISE NOTICE '%', format('fleet %s %s: %s nodes x %s processes, %s IOPS over the common window of %s s, average %s ms, p99 %s ms (merged histograms), first I/Os within %s ms',
        fleet_id, fleet_row->>'status',
        (SELECT count(*) FROM unnest(nodes) x WHERE x.state <> 'skipped'), o.processes,
        coalesce(round((fleet_row->>'iops')::numeric)::text, 'no'),
        coalesce(round((fleet_row->>'window_seconds')::numeric, 2)::text, '0'),
        coalesce(round((fleet_row->>'avg_ms')::numeric, 3)::text, 'n/a'),
        coalesce(round((fleet_row->>'p99_ms')::numeric, 3)::text, 'n/a'),
        coalesce(round((fleet_row->>'start_spread_ms')::numeric, 1)::text, 'n/a'));
END
$$;

-- The fleet itself: see the top of this file.  Each step is a function of
-- its own (ranread_internal.ranread_fleet_probe_nodes, _clocks,
-- _record_start and _send, _wait, _finish with _collect and _record); what
-- the coordinator knows of each node is one ranread_fleet_node_state.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_fleet_run(o @extschema@.ranread_fleet_options,
    sweep bigint DEFAULT NULL, fn text DEFAULT 'ranread_fleet')
RETURNS SETOF ranread_internal.ranread_fleet_result_raw
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    fleet_id bigint;
    given    record;
    nodes    ranread_internal.ranread_fleet_node_state[];
    cnames   text[];
    recorder text;
    rec_conn text;
    spread   float8;
    spec     jsonb;
    start_ts timestamptz;
    due_end  timestamptz;
    probe_at timestamptz;
    started  boolean := false;
    res      record;
    e_state  text;
BEGIN
    -- first, before anything can fail: the call's text without its passwords
    PERFORM ranread_internal.ranread_conninfo_hide(o.nodes);
    PERFORM ranread_internal.ranread_conninfo_hide(ARRAY[o.loopback]);
    PERFORM ranread_internal.ranread_fleet_check(o, fn);
    PERFORM ranread_internal.ranread_primary_only(fn);

    -- the nodes: names of ranread_nodes, or connection strings
    SELECT * INTO given FROM ranread_internal.ranread_fleet_resolve(o.nodes, fn);
    rec_conn := ranread_internal.ranread_fleet_loopback(o.loopback);
    fleet_id := nextval('@extschema@.ranread_fleet_seq'::regclass);
    nodes := ranread_internal.ranread_fleet_nodes_init(fleet_id, given.names, given.conninfos);
    cnames := ARRAY(SELECT x.cname FROM unnest(nodes) x ORDER BY x.node);
    recorder := format('ranread_fleet_%s_recorder', fleet_id);
    -- among the running calls ranread_reset keeps whole, until this
    -- transaction ends
    PERFORM ranread_internal.ranread_call_register('fleet', fleet_id);

    BEGIN
        -- the recorder: this database, in transactions of its own; and the
        -- fleets whose coordinator ended without recording their end
        PERFORM ranread_internal.ranread_fleet_recorder(recorder, rec_conn, fn, 'fleet');
        PERFORM ranread_internal.ranread_remote_query(recorder,
            'SELECT ranread_internal.ranread_fleet_abandon()::text', 10000);

        -- 1. every node reached and probed; 2. the clocks
        nodes := ranread_internal.ranread_fleet_probe_nodes(fleet_id, o, nodes);
        PERFORM ranread_internal.ranread_fleet_unavailable(fleet_id, o, fn, nodes);
        SELECT * INTO nodes, spread FROM ranread_internal.ranread_fleet_clocks(fleet_id, o, fn, nodes);

        -- 3. recorded, then started together
        start_ts := to_timestamp(ceil(extract(epoch FROM clock_timestamp()
                        + greatest(0, coalesce((SELECT max(x.offset_ms) FROM unnest(nodes) x), 0)) * interval '1 ms'
                        + o.start_delay)));
        -- the workload as a spec: o's options by name (src/workload.c)
        spec := ranread_internal.ranread_spec(to_jsonb(o) || jsonb_build_object(
            'caller', fn, 'fleet', fleet_id, 'start_at', start_ts));
        PERFORM ranread_internal.ranread_fleet_record_start(recorder, fleet_id, o, sweep, spec, start_ts, spread, nodes);
        started := true;
        -- should this backend end before the fleet's end is recorded
        PERFORM ranread_internal.ranread_remote_last_words(recorder,
            format('SELECT ranread_internal.ranread_fleet_abandon(%s)', fleet_id));
        RAISE NOTICE 'fleet %: % nodes x % processes start at % (clock offsets within % ms, longest round trip % ms)',
            fleet_id, (SELECT count(*) FROM unnest(nodes) x WHERE x.state <> 'skipped'), o.processes,
            start_ts, round(coalesce(spread, 0)::numeric, 3),
            round((SELECT max(x.rtt_ms) FROM unnest(nodes) x)::numeric, 3);
        FOR k IN 1..cardinality(nodes) LOOP
            nodes[k] := ranread_internal.ranread_fleet_send(nodes[k], spec);
        END LOOP;

        -- 4. wait, taking each node's result as it comes; a run by duration
        -- has its bound: a node that has not answered 30 s after its batch
        -- was due to end is stopped; by iterations: ranread_fleet_watch
        due_end := start_ts + coalesce(o.warmup, interval '0') + o.duration + interval '30 s';
        probe_at := greatest(start_ts, clock_timestamp());
        FOR k IN 1..cardinality(nodes) LOOP
            nodes[k].alive_at := probe_at;
        END LOOP;
        probe_at := probe_at + interval '10 s';
        WHILE EXISTS (SELECT FROM unnest(nodes) x WHERE x.state = 'running') LOOP
            SELECT * INTO nodes, probe_at FROM ranread_internal.ranread_fleet_wait(fleet_id, o, nodes, due_end, probe_at);
        END LOOP;
    EXCEPTION WHEN query_canceled OR others THEN
        GET STACKED DIAGNOSTICS e_state = RETURNED_SQLSTATE;
        IF started THEN
            PERFORM ranread_internal.ranread_fleet_salvage(recorder, rec_conn, fleet_id, o, start_ts, nodes, e_state, true);
        END IF;
        -- the last words, if the end could not be recorded, go with the recorder
        PERFORM ranread_internal.ranread_remote_close(cnames || recorder);
        RAISE;
    END;

    -- 5. every node's batch, the fleet's figures, recorded; interrupted,
    -- once more within the bounds of a cancel
    BEGIN
        SELECT * INTO res FROM ranread_internal.ranread_fleet_finish(recorder, rec_conn, fleet_id, o, start_ts,
            nodes, NULL, clock_timestamp() + interval '10 s', clock_timestamp() + interval '20 s');
        PERFORM ranread_internal.ranread_remote_last_words(recorder, NULL);
    EXCEPTION WHEN query_canceled OR others THEN
        GET STACKED DIAGNOSTICS e_state = RETURNED_SQLSTATE;
        PERFORM ranread_internal.ranread_fleet_salvage(recorder, rec_conn, fleet_id, o, start_ts, nodes, e_state, false);
        PERFORM ranread_internal.ranread_remote_close(cnames || recorder);
        RAISE;
    END;
    PERFORM ranread_internal.ranread_remote_close(cnames || recorder);
    PERFORM ranread_internal.ranread_fleet_tell(fleet_id, o, fn, nodes, res.rows, res.fleet_row);
    RETURN QUERY SELECT * FROM jsonb_populate_recordset(NULL::ranread_internal.ranread_fleet_result_raw, res.rows);
END
$$;

-- The arguments of a fleet that the nodes do not check themselves
CREATE OR REPLACE FUNCTION ranread_internal.ranread_fleet_check(o @extschema@.ranread_fleet_options, fn text)
RETURNS void
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    lim record;
    arg text;
BEGIN
    SELECT * INTO lim FROM @extschema@.ranread_limits();
    IF array_ndims(o.nodes) > 1 THEN
        RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('nodes of %s must be a one-dimensional array, not one of %s dimensions', fn, array_ndims(o.nodes)),
            HINT = 'nodes is an array of names in ranread_nodes or libpq connection strings, such as ARRAY[''host=db1 dbname=app'', ''host=db2 dbname=app''].';
    END IF;
    IF o.nodes IS NULL OR array_position(o.nodes, NULL) IS NOT NULL THEN
        RAISE EXCEPTION USING ERRCODE = 'null_value_not_allowed',
            MESSAGE = format('nodes of %s must not be null, nor hold a null', fn),
            HINT = 'nodes is an array of names in ranread_nodes or libpq connection strings.';
    END IF;
    IF cardinality(o.nodes) = 0 OR array_ndims(o.nodes) <> 1 THEN
        RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('nodes of %s must name at least one node', fn),
            HINT = 'nodes is an array of names in ranread_nodes or libpq connection strings, such as ARRAY[''host=db1 dbname=app'', ''host=db2 dbname=app''].';
    END IF;
    IF cardinality(o.nodes) > 256 THEN
        RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('nodes of %s must name at most 256 nodes, not %s', fn, cardinality(o.nodes)),
            HINT = 'The coordinator holds a connection to every node at once.';
    END IF;
    IF o.processes IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = 'null_value_not_allowed',
            MESSAGE = format('processes of %s must not be null', fn);
    END IF;
    IF o.processes < 1 OR o.processes > lim.max_processes THEN
        RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('processes of %s must be between 1 and %s, not %s', fn, lim.max_processes, o.processes),
            HINT = 'processes is how many independent I/O streams run at once on each node.';
    END IF;
    IF o.target IS NULL OR o.target = '' THEN
        RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('target of %s must be a non-empty name', fn),
            HINT = 'The default target is named "ranread"; each node needs one of that name.';
    END IF;
    -- the options each node checks itself, but not NULL: ranread_run's words
    FOR arg IN SELECT a FROM unnest(ARRAY[
            CASE WHEN o.block_size IS NULL THEN 'block_size' END,
            CASE WHEN o.write_pct IS NULL THEN 'write_pct' END,
            CASE WHEN o.queue_depth IS NULL THEN 'queue_depth' END,
            CASE WHEN o.pattern IS NULL THEN 'pattern' END,
            CASE WHEN o.region_start IS NULL THEN 'region_start' END,
            CASE WHEN o.region_end IS NULL THEN 'region_end' END,
            CASE WHEN o.distribution IS NULL THEN 'distribution' END]) a WHERE a IS NOT NULL LOOP
        RAISE EXCEPTION USING ERRCODE = 'null_value_not_allowed',
            MESSAGE = format('%s of %s must not be null', arg, fn),
            HINT = 'Leave it out for its default.';
    END LOOP;
    IF o.loopback IS NOT NULL AND ranread_internal.ranread_conninfo_problem(o.loopback) IS NOT NULL THEN
        RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('invalid loopback of %s: not a connection string libpq can read: %s',
                             fn, ranread_internal.ranread_conninfo_problem(o.loopback)),
            DETAIL = 'Its text is not shown: it may hold a password.',
            HINT = 'loopback is a libpq connection string back to this database, such as ''host=/var/run/postgresql dbname=app''; NULL uses this server''s socket, database and user.';
    END IF;
    -- the coordinator adds duration and warmup to the start (the nodes'
    -- bound): checked here first, in the words of the nodes' own check
    -- (src/params.c), so that no value overflows a timestamp
    IF o.duration IS NOT NULL AND (o.duration <= interval '0' OR o.duration > interval '24 hours') THEN
        RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('duration of %s must be positive and at most 24 hours, not %s', fn, o.duration),
            HINT = 'duration is how long each node''s batch measures, such as ''30s''; NULL runs iterations instead.';
    END IF;
    IF o.duration IS NOT NULL AND o.duration < interval '10 ms' THEN
        RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('duration of %s must be at least 10 milliseconds, not %s', fn, o.duration),
            HINT = 'A shorter run would end before its first I/O completes.';
    END IF;
    IF o.warmup IS NOT NULL AND (o.warmup < interval '0' OR o.warmup > interval '24 hours') THEN
        RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('warmup of %s must be zero or positive and at most 24 hours, not %s', fn, o.warmup),
            HINT = 'warmup is how long each node runs before it starts counting, such as ''5s''.';
    END IF;
    IF o.start_delay IS NULL OR o.start_delay < interval '100 ms' OR o.start_delay > interval '30 min' THEN
        RAISE EXCEPTION USING ERRCODE = CASE WHEN o.start_delay IS NULL THEN 'null_value_not_allowed' ELSE 'invalid_parameter_value' END,
            MESSAGE = format('start_delay of %s must be between 100 ms and 30 minutes, not %s', fn, coalesce(o.start_delay::text, 'NULL')),
            HINT = 'start_delay is how far ahead the nodes are told to start, time for every node to get its workers ready, such as ''2s''.';
    END IF;
    IF o.on_node_failure IS NULL OR o.on_node_failure NOT IN ('continue', 'stop') THEN
        RAISE EXCEPTION USING ERRCODE = CASE WHEN o.on_node_failure IS NULL THEN 'null_value_not_allowed' ELSE 'invalid_parameter_value' END,
            MESSAGE = format('on_node_failure of %s must be continue or stop, not %s', fn, coalesce(quote_literal(o.on_node_failure), 'NULL')),
            HINT = 'continue: the other nodes run on when one fails; stop: they are stopped.';
    END IF;
    IF o.on_clock_skew IS NULL OR o.on_clock_skew NOT IN ('error', 'warn') THEN
        RAISE EXCEPTION USING ERRCODE = CASE WHEN o.on_clock_skew IS NULL THEN 'null_value_not_allowed' ELSE 'invalid_parameter_value' END,
            MESSAGE = format('on_clock_skew of %s must be error or warn, not %s', fn, coalesce(quote_literal(o.on_clock_skew), 'NULL')),
            HINT = 'error: refuse to start when the nodes'' clocks differ by more than max_offset_ms; warn: start anyway.';
    END IF;
    IF o.max_offset_ms IS NULL OR NOT (o.max_offset_ms >= 0) OR o.max_offset_ms IN ('NaN'::float8, 'Infinity'::float8) THEN
        RAISE EXCEPTION USING ERRCODE = CASE WHEN o.max_offset_ms IS NULL THEN 'null_value_not_allowed' ELSE 'invalid_parameter_value' END,
            MESSAGE = format('max_offset_ms of %s must be a finite number of at least 0, not %s', fn, coalesce(o.max_offset_ms::text, 'NULL')),
            HINT = 'max_offset_ms bounds how far apart the nodes'' clocks may be, such as 10.';
    END IF;
    IF o.skip_unavailable IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = 'null_value_not_allowed',
            MESSAGE = format('skip_unavailable of %s must not be null', fn);
    END IF;
END
$$;

-- ranread_fleet, behind the C function users call (src/forward.c): its
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
-- docs/fleet.md.  The options of ranread_run pass through to every
-- node, as one spec.
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
