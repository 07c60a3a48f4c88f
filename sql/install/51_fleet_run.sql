-- 1.1, the fleet: running one batch on many servers at once through dblink.
--
-- The coordinator (the session that calls ranread_fleet) never does I/O.
-- It opens one dblink connection per node and one back to its own
-- database (the recorder), then:
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
--   4. waits (dblink_is_busy, 20 ms polls) and takes each node's result as
--      it comes; a node that fails is recorded failed, and the others run on
--      or are cancelled (on_node_failure).
--   5. fetches every node's batch row and seconds (found by the fleet id and
--      start_at the batch carries), computes the fleet's figures
--      (ranread_fleet_totals) and records them through the recorder.
-- A cancel or statement_timeout of the coordinator is caught: every node's
-- query is cancelled (dblink_cancel_query; ranread_stop() over a second
-- connection for a node that does not answer), what the nodes recorded is
-- fetched and the fleet recorded as cancelled, then the cancel goes on.
--
-- dblink is optional: only these functions need it, they find it in
-- whatever schema it was created in and call it by dynamic SQL, and say so
-- when it is missing.  Connection strings travel only as parameters (never
-- in SQL text), and are shown and stored without their passwords.

-- A fleet's options, as ranread_fleet takes them (ranread_fleet_sweep
-- passes them on step after step).
CREATE TYPE @extschema@.ranread_fleet_options AS (
    nodes            text[],
    processes        integer,
    iterations       bigint,
    target           name,
    duration         interval,
    block_size       integer,
    write_pct        integer,
    queue_depth      integer,
    pattern          text,
    region_start     float8,
    region_end       float8,
    warmup           interval,
    rate_iops        integer,
    seed             bigint,
    workers          integer,
    distribution     text,
    steady_state     text,
    sync             text,
    start_delay      interval,
    skip_unavailable boolean,
    on_node_failure  text,
    max_offset_ms    float8,
    on_clock_skew    text,
    loopback         text
);

-- The schema dblink was created in (quoted), or an error naming it
CREATE OR REPLACE FUNCTION @extschema@.ranread_fleet_dblink(fn text)
RETURNS text
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    s text;
BEGIN
    SELECT quote_ident(n.nspname) INTO s
      FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
     WHERE e.extname = 'dblink';
    IF s IS NULL THEN
        RAISE EXCEPTION USING
            ERRCODE = 'undefined_object',
            MESSAGE = format('%s needs the extension dblink, which is not installed in database "%s"',
                             fn, current_database()),
            HINT = 'dblink comes with PostgreSQL (contrib): run CREATE EXTENSION dblink; in this database. ranread on one server needs nothing of it.';
    END IF;
    RETURN s;
END
$$;

-- One text value from a query on a connection
CREATE OR REPLACE FUNCTION @extschema@.ranread_fleet_value(dbl text, conn text, sql text)
RETURNS text
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v text;
BEGIN
    EXECUTE format('SELECT r.v FROM %s.dblink($1, $2, true) AS r(v text)', dbl) INTO v USING conn, sql;
    RETURN v;
END
$$;

-- A statement on a connection (the recorder's writes)
CREATE OR REPLACE FUNCTION @extschema@.ranread_fleet_exec(dbl text, conn text, sql text)
RETURNS void
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    EXECUTE format('SELECT %s.dblink_exec($1, $2, true)', dbl) USING conn, sql;
END
$$;

-- Close the connections that are open, quietly
CREATE OR REPLACE FUNCTION @extschema@.ranread_fleet_disconnect(dbl text, conns text[])
RETURNS void
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    open text[];
    c    text;
BEGIN
    EXECUTE format('SELECT %s.dblink_get_connections()', dbl) INTO open;
    FOREACH c IN ARRAY coalesce(conns, '{}') LOOP
        IF c = ANY (coalesce(open, '{}')) THEN
            BEGIN
                EXECUTE format('SELECT %s.dblink_disconnect($1)', dbl) USING c;
            EXCEPTION WHEN query_canceled OR others THEN
                NULL;
            END;
        END IF;
    END LOOP;
END
$$;

-- The clock of a node against ours: the best (shortest) of five round trips
-- of clock_timestamp(); offset_ms = node's clock - ours, at the middle of
-- that round trip.
CREATE OR REPLACE FUNCTION @extschema@.ranread_fleet_clock(dbl text, conn text,
    OUT offset_ms float8, OUT rtt_ms float8)
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    t0     timestamptz;
    t1     timestamptz;
    remote timestamptz;
    rtt    float8;
    q      text := format('SELECT r.t FROM %s.dblink($1, ''SELECT pg_catalog.clock_timestamp()'', true) AS r(t timestamptz)', dbl);
BEGIN
    FOR i IN 1..5 LOOP
        t0 := clock_timestamp();
        EXECUTE q INTO remote USING conn;
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
-- "problem", "sqlstate", "hint"}.
CREATE OR REPLACE FUNCTION @extschema@.ranread_fleet_probe(dbl text, conn text,
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
    facts := @extschema@.ranread_fleet_value(dbl, conn, $q$
        SELECT pg_catalog.json_build_object(
            'version', (SELECT e.extversion FROM pg_catalog.pg_extension e WHERE e.extname = 'ranread'),
            'schema', (SELECT pg_catalog.quote_ident(n.nspname) FROM pg_catalog.pg_extension e
                         JOIN pg_catalog.pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'ranread'),
            'standby', pg_catalog.pg_is_in_recovery(),
            'system', (SELECT c.system_identifier::text FROM pg_catalog.pg_control_system() c),
            'db', pg_catalog.current_database(),
            'workers', (SELECT pg_catalog.count(*) FROM pg_catalog.pg_stat_activity a
                         WHERE a.backend_type LIKE 'ranread%'))::text $q$)::jsonb;
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
    state := @extschema@.ranread_fleet_value(dbl, conn,
        format('SELECT t.state FROM %s.ranread_targets t WHERE t.target = %L', sch, o.target));
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
        busy := @extschema@.ranread_fleet_value(dbl, conn,
            format('SELECT pg_catalog.max(b.batch)::text FROM %s.ranread_batches b WHERE b.status = ''running''', sch));
        RETURN facts || jsonb_build_object('sqlstate', '55006',
            'problem', CASE WHEN busy IS NULL THEN 'it is busy: ranread workers are running there'
                            ELSE format('it is busy: its ranread batch %s is running', busy) END,
            'hint', 'One batch runs at a time in a cluster: wait for it, or stop it there with ranread_stop().');
    END IF;
    BEGIN
        PERFORM @extschema@.ranread_fleet_value(dbl, conn,
            format('SELECT pg_catalog.count(*)::text FROM %s.ranread_blocks(%s, 1, %L, %s, %L, %s, %s, 0, %L)',
                   sch, o.processes, o.target, o.block_size, o.pattern, o.region_start, o.region_end,
                   o.distribution));
    EXCEPTION WHEN OTHERS THEN
        RETURN facts || jsonb_build_object('sqlstate', SQLSTATE,
            'problem', 'it refuses the options: ' || SQLERRM);
    END;
    RETURN facts;
END
$$;

-- A node's batch of this fleet, as it recorded it, with its seconds: found
-- by the fleet id and start_at it carries.  Waits (up to 5 s) while the
-- batch is still recording; NULL when the node has no such batch.
CREATE OR REPLACE FUNCTION @extschema@.ranread_fleet_fetch(dbl text, conn text, sch text,
    fleet bigint, start_at timestamptz)
RETURNS jsonb
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    r        jsonb;
    deadline timestamptz := clock_timestamp() + interval '5 s';
    q        text := format($q$
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
          FROM %1$s.ranread_batches b, %1$s.ranread_summary s
         WHERE s.batch = b.batch AND b.fleet = %2$s AND b.start_at = %3$L::timestamptz
         ORDER BY b.batch DESC LIMIT 1 $q$, sch, fleet, to_jsonb(start_at)#>>'{}');
BEGIN
    LOOP
        r := @extschema@.ranread_fleet_value(dbl, conn, q)::jsonb;
        EXIT WHEN r IS NULL OR r->>'status' <> 'running' OR clock_timestamp() > deadline;
        PERFORM pg_sleep(0.1);
    END LOOP;
    RETURN r;
END
$$;

-- Cancel the queries of the nodes still running (dblink_cancel_query),
-- wait for them to end, and where a node does not answer within 5 s, stop
-- its batch with ranread_stop() over a connection of its own.  Returns the
-- nodes' states: 'cancelled' for those stopped here, 'failed' for those that
-- could not be reached any more.
CREATE OR REPLACE FUNCTION @extschema@.ranread_fleet_stop_nodes(dbl text, cnames text[],
    conninfos text[], schemas text[], states text[])
RETURNS text[]
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    busy     integer;
    waiting  boolean;
    deadline timestamptz;
    side     text;
BEGIN
    FOR i IN 1..cardinality(states) LOOP
        CONTINUE WHEN states[i] <> 'running';
        BEGIN
            EXECUTE format('SELECT %s.dblink_cancel_query($1)', dbl) USING cnames[i];
        EXCEPTION WHEN query_canceled OR others THEN
            NULL;
        END;
    END LOOP;
    FOR attempt IN 1..2 LOOP
        deadline := clock_timestamp() + interval '5 s';
        LOOP
            waiting := false;
            FOR i IN 1..cardinality(states) LOOP
                CONTINUE WHEN states[i] <> 'running';
                BEGIN
                    EXECUTE format('SELECT %s.dblink_is_busy($1)', dbl) INTO busy USING cnames[i];
                EXCEPTION WHEN query_canceled OR others THEN
                    busy := 0;
                END;
                IF busy = 1 THEN
                    waiting := true;
                    CONTINUE;
                END IF;
                -- its result (the cancel's error), then the end of results
                FOR k IN 1..2 LOOP
                    BEGIN
                        EXECUTE format('SELECT count(*) FROM %s.dblink_get_result($1, true) AS r(batch bigint, status text)', dbl)
                            USING cnames[i];
                    EXCEPTION WHEN query_canceled OR others THEN
                        NULL;
                    END;
                END LOOP;
                states[i] := 'cancelled';
            END LOOP;
            EXIT WHEN NOT waiting OR clock_timestamp() > deadline;
            PERFORM pg_sleep(0.02);
        END LOOP;
        EXIT WHEN NOT waiting OR attempt = 2;
        -- a node that does not answer its cancel: ranread_stop() there
        FOR i IN 1..cardinality(states) LOOP
            CONTINUE WHEN states[i] <> 'running';
            side := cnames[i] || '_stop';
            BEGIN
                EXECUTE format('SELECT %s.dblink_connect($1, $2)', dbl) USING side, conninfos[i];
                PERFORM @extschema@.ranread_fleet_value(dbl, side,
                    format('SELECT %s.ranread_stop()::text', schemas[i]));
            EXCEPTION WHEN query_canceled OR others THEN
                NULL;
            END;
            PERFORM @extschema@.ranread_fleet_disconnect(dbl, ARRAY[side]);
        END LOOP;
    END LOOP;
    FOR i IN 1..cardinality(states) LOOP
        IF states[i] = 'running' THEN
            states[i] := 'failed';
        END IF;
    END LOOP;
    RETURN states;
END
$$;

-- The end of a fleet: every node's batch fetched, the fleet's figures
-- computed, everything recorded through the recorder.  Returns the rows of
-- ranread_fleet's result as jsonb (the nodes, then the fleet as node 0),
-- and the fleet's row as recorded.
CREATE OR REPLACE FUNCTION @extschema@.ranread_fleet_finish(dbl text, recorder text,
    fleet bigint, o @extschema@.ranread_fleet_options, start_at timestamptz,
    names text[], conninfos text[], cnames text[], schemas text[], states text[],
    messages text[], offsets float8[], rtts float8[], coordinator text,
    OUT rows jsonb, OUT fleet_row jsonb)
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    n        integer := cardinality(names);
    r        jsonb;
    nodes    jsonb := '[]';
    secs     jsonb := '[]';
    node_row jsonb;
    st       text;
    msg      text;
    outl     boolean[];
    t        record;
    fstatus  text;
    fmsg     text;
    due      timestamptz := start_at + coalesce(o.warmup, interval '0');
BEGIN
    FOR i IN 1..n LOOP
        r := NULL;
        msg := messages[i];
        IF states[i] <> 'skipped' AND schemas[i] IS NOT NULL THEN
            BEGIN
                r := @extschema@.ranread_fleet_fetch(dbl, cnames[i], schemas[i], fleet, start_at);
            EXCEPTION WHEN query_canceled OR others THEN
                msg := coalesce(msg, 'its batch could not be read: '
                                     || @extschema@.ranread_conninfo_scrub(SQLERRM, conninfos[i]));
            END;
        END IF;
        st := CASE WHEN states[i] = 'skipped' THEN 'skipped'
                   WHEN r IS NOT NULL THEN r->>'status'
                   WHEN states[i] IN ('cancelled', 'stopped') THEN states[i]
                   ELSE 'failed' END;
        IF st = 'failed' AND msg IS NULL AND r IS NULL THEN
            msg := 'the node ran no batch of this fleet';
        END IF;
        node_row := jsonb_build_object(
            'fleet', fleet, 'node', i, 'name', names[i],
            'conninfo', @extschema@.ranread_conninfo_strip(conninfos[i]),
            'status', st, 'message', coalesce(r->>'message', msg),
            'offset_ms', offsets[i], 'rtt_ms', rtts[i]);
        IF r IS NOT NULL THEN
            node_row := node_row || (r - 'intervals' - 'status' - 'message')
                || jsonb_build_object('late_ms',
                       extract(epoch FROM (r->>'first_io_at')::timestamptz - due)::float8 * 1000);
            SELECT secs || coalesce(jsonb_agg(jsonb_build_object(
                       'fleet', fleet, 'node', i,
                       'at', @extschema@.ranread_fleet_align(due, (v->>'second')::integer),
                       'second', v->'second', 'reads', v->'reads', 'writes', v->'writes',
                       'iops', v->'iops', 'avg_ms', v->'avg_ms', 'max_ms', v->'max_ms')), '[]')
              INTO secs
              FROM jsonb_array_elements(coalesce(r->'intervals', '[]')) v
             WHERE r->>'first_io_at' IS NOT NULL;
        END IF;
        nodes := nodes || node_row;
    END LOOP;

    -- outliers among the nodes that did I/O
    outl := @extschema@.ranread_fleet_outliers(ARRAY(
        SELECT CASE WHEN x->>'batch' IS NOT NULL AND x->>'status' <> 'failed' THEN (x->>'iops')::float8 END
          FROM jsonb_array_elements(nodes) WITH ORDINALITY AS e(x, k) ORDER BY k));
    SELECT jsonb_agg(x || jsonb_build_object('outlier', outl[k]) ORDER BY k) INTO nodes
      FROM jsonb_array_elements(nodes) WITH ORDINALITY AS e(x, k);

    SELECT * INTO t FROM @extschema@.ranread_fleet_totals(nodes, secs, o.block_size);
    fstatus := @extschema@.ranread_fleet_status(ARRAY(SELECT x->>'status' FROM jsonb_array_elements(nodes) x),
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

    PERFORM @extschema@.ranread_fleet_exec(dbl, recorder, format($q$
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
         WHERE f.fleet = %1$s $q$, fleet, nodes, secs, fleet_row));

    SELECT jsonb_agg(jsonb_build_object(
               'fleet', fleet, 'node', (x->>'node')::integer, 'name', x->'name', 'batch', x->'batch',
               'status', x->'status', 'reads', x->'reads', 'writes', x->'writes',
               'seconds', x->'seconds', 'iops', x->'iops', 'mbps', x->'mbps', 'avg_ms', x->'avg_ms',
               'p50_ms', x->'p50_ms', 'p99_ms', x->'p99_ms', 'p999_ms', x->'p999_ms',
               'max_ms', x->'max_ms', 'offset_ms', x->'offset_ms', 'rtt_ms', x->'rtt_ms',
               'first_io_ms', x->'late_ms', 'outlier', x->'outlier', 'message', x->'message')
             ORDER BY (x->>'node')::integer)
      INTO rows
      FROM jsonb_array_elements(nodes) x;
    rows := rows || jsonb_build_object(
        'fleet', fleet, 'node', 0, 'name', 'fleet', 'status', fstatus,
        'reads', t.reads, 'writes', t.writes, 'seconds', t.window_seconds, 'iops', t.iops,
        'mbps', t.mbps, 'avg_ms', t.avg_ms, 'p50_ms', t.p50_ms, 'p99_ms', t.p99_ms,
        'p999_ms', t.p999_ms, 'max_ms', t.max_ms,
        'offset_ms', (SELECT max(v) - min(v) FROM unnest(offsets) v),
        'rtt_ms', (SELECT max(v) FROM unnest(rtts) v),
        'first_io_ms', t.start_spread_ms, 'message', fmsg);
END
$$;

-- The fleet itself: see the top of this file.
CREATE OR REPLACE FUNCTION @extschema@.ranread_fleet_run(o @extschema@.ranread_fleet_options,
    sweep bigint DEFAULT NULL, fn text DEFAULT 'ranread_fleet')
RETURNS SETOF @extschema@.ranread_fleet_result
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    dbl        text;
    fleet_id   bigint;
    n          integer;
    names      text[] := '{}';
    conninfos  text[] := '{}';
    cnames     text[] := '{}';
    schemas    text[] := '{}';
    systems    text[] := '{}';
    states     text[] := '{}';
    messages   text[] := '{}';
    offsets    float8[] := '{}';
    rtts       float8[] := '{}';
    problems   text[] := '{}';
    codes      text[] := '{}';
    hints      text[] := '{}';
    recorder   text;
    rec_conn   text;
    el         text;
    conn       text;
    probe      jsonb;
    clk        record;
    spread     float8;
    spec       jsonb;
    start_ts   timestamptz;
    busy       integer;
    running    integer;
    started    boolean := false;
    res        record;
    e_state    text;
    e_detail   text;
    e_context  text;
    sql        text;
    i          integer;
BEGIN
    PERFORM @extschema@.ranread_fleet_check(o, fn);
    PERFORM @extschema@.ranread_primary_only(fn);
    dbl := @extschema@.ranread_fleet_dblink(fn);

    -- the nodes: names of ranread_nodes, or connection strings
    n := cardinality(o.nodes);
    FOR i IN 1..n LOOP
        el := o.nodes[i];
        SELECT x.conninfo INTO conn FROM @extschema@.ranread_nodes x WHERE x.name = el;
        IF FOUND THEN
            names := names || el;
        ELSE
            conn := el;
            IF strpos(el, '=') = 0 AND el !~* '^postgres(ql)?://' THEN
                RAISE EXCEPTION USING
                    ERRCODE = 'invalid_parameter_value',
                    MESSAGE = format('unknown node "%s" of %s', el, fn),
                    HINT = 'A node is a name in ranread_nodes, or a libpq connection string such as ''host=db2 port=5432 dbname=app''.';
            END IF;
            BEGIN
                names := names || @extschema@.ranread_conninfo_strip(el);
            EXCEPTION WHEN invalid_parameter_value THEN
                RAISE EXCEPTION USING
                    ERRCODE = 'invalid_parameter_value',
                    MESSAGE = format('invalid node %s of %s: neither a name in ranread_nodes nor a connection string', i, fn),
                    HINT = 'A node is a name in ranread_nodes, or a libpq connection string: keyword = value pairs such as ''host=db2 port=5432 dbname=app'', or a postgresql:// URI.';
            END;
        END IF;
        IF names[i] = ANY (names[1:i - 1]) THEN
            RAISE EXCEPTION USING
                ERRCODE = 'invalid_parameter_value',
                MESSAGE = format('node "%s" is given twice to %s', names[i], fn),
                HINT = 'One batch runs at a time in a cluster: name each server once.';
        END IF;
        conninfos := conninfos || conn;
    END LOOP;

    fleet_id := nextval('@extschema@.ranread_fleet_seq'::regclass);
    PERFORM @extschema@.ranread_call_register('fleet', fleet_id);
    FOR i IN 1..n LOOP
        cnames := cnames || format('ranread_fleet_%s_%s', fleet_id, i);
    END LOOP;
    recorder := format('ranread_fleet_%s_recorder', fleet_id);
    rec_conn := coalesce(o.loopback, format('host=%s port=%s dbname=%s user=%s application_name=ranread_fleet_recorder',
        @extschema@.ranread_conninfo_quote(coalesce(nullif(trim(split_part(current_setting('unix_socket_directories'), ',', 1)), ''), 'localhost')),
        current_setting('port'),
        @extschema@.ranread_conninfo_quote(current_database()),
        @extschema@.ranread_conninfo_quote(current_user)));

    BEGIN
        -- the recorder: this database, in transactions of its own
        BEGIN
            EXECUTE format('SELECT %s.dblink_connect($1, $2)', dbl) USING recorder, rec_conn;
            -- its statements name pg_catalog's functions bare: no other schema may answer
            PERFORM @extschema@.ranread_fleet_exec(dbl, recorder,
                'SET search_path = pg_catalog, pg_temp; SET lock_timeout = ''10s''; SET statement_timeout = 0');
        EXCEPTION WHEN OTHERS THEN
            GET STACKED DIAGNOSTICS e_detail = PG_EXCEPTION_DETAIL;
            RAISE EXCEPTION USING
                ERRCODE = 'sqlclient_unable_to_establish_sqlconnection',
                MESSAGE = format('%s cannot connect back to its own database to record the fleet', fn),
                DETAIL = @extschema@.ranread_conninfo_scrub(coalesce(e_detail, SQLERRM), rec_conn),
                HINT = 'A fleet records itself through a connection of its own, so that a cancel loses nothing: allow the connection (pg_hba.conf), or give one with loopback => ''host=... dbname=...'' (a password file holds its password).';
        END;

        -- 1. every node reached and probed
        FOR i IN 1..n LOOP
            schemas := schemas || NULL::text;
            systems := systems || NULL::text;
            problems := problems || NULL::text;
            codes := codes || NULL::text;
            hints := hints || NULL::text;
            BEGIN
                EXECUTE format('SELECT %s.dblink_connect($1, $2)', dbl) USING cnames[i], conninfos[i];
                EXECUTE format('SELECT %s.dblink_exec($1, $2, true)', dbl)
                    USING cnames[i], format('SET application_name = %L', 'ranread_fleet ' || fleet_id);
            EXCEPTION WHEN OTHERS THEN
                GET STACKED DIAGNOSTICS e_detail = PG_EXCEPTION_DETAIL;
                problems[i] := 'it cannot be reached: ' || @extschema@.ranread_conninfo_scrub(
                    regexp_replace(coalesce(e_detail, SQLERRM), '\s+', ' ', 'g'), conninfos[i]);
                codes[i] := '08001';
                hints[i] := 'Check the connection string, that the server runs and that pg_hba.conf lets this server in.';
                CONTINUE;
            END;
            BEGIN
                probe := @extschema@.ranread_fleet_probe(dbl, cnames[i], o);
            EXCEPTION WHEN OTHERS THEN
                probe := jsonb_build_object('problem', 'it could not be probed: '
                    || @extschema@.ranread_conninfo_scrub(SQLERRM, conninfos[i]), 'sqlstate', SQLSTATE);
            END;
            schemas[i] := probe->>'schema';
            systems[i] := probe->>'system';
            problems[i] := probe->>'problem';
            codes[i] := probe->>'sqlstate';
            hints[i] := probe->>'hint';
            IF problems[i] IS NULL AND systems[i] = ANY (systems[1:i - 1]) THEN
                problems[i] := format('it is the same server as node "%s"',
                    names[array_position(systems, systems[i])]);
                codes[i] := '22023';
                hints[i] := 'One batch runs at a time in a cluster: name each server once.';
            END IF;
        END LOOP;

        IF EXISTS (SELECT FROM unnest(problems) p WHERE p IS NOT NULL) THEN
            SELECT string_agg(format('node "%s": %s', names[k], problems[k]), E'\n' ORDER BY k)
              INTO e_detail
              FROM generate_subscripts(problems, 1) k WHERE problems[k] IS NOT NULL;
            i := (SELECT min(k) FROM generate_subscripts(problems, 1) k WHERE problems[k] IS NOT NULL);
            IF NOT coalesce(o.skip_unavailable, false)
               OR NOT EXISTS (SELECT FROM unnest(problems) p WHERE p IS NULL) THEN
                RAISE EXCEPTION USING
                    ERRCODE = coalesce(codes[i], '55000'),
                    MESSAGE = CASE WHEN (SELECT count(*) FROM unnest(problems) p WHERE p IS NOT NULL) = 1
                                   THEN format('node "%s" of %s is unavailable: %s', names[i], fn, problems[i])
                                   ELSE format('%s nodes of %s are unavailable', (SELECT count(*) FROM unnest(problems) p WHERE p IS NOT NULL), fn) END,
                    DETAIL = CASE WHEN (SELECT count(*) FROM unnest(problems) p WHERE p IS NOT NULL) = 1
                                  THEN '' ELSE e_detail || E'\n' END || 'No node was started.',
                    HINT = coalesce(hints[i] || ' ', '') || CASE WHEN coalesce(o.skip_unavailable, false)
                        THEN 'No node is left to run.'
                        ELSE 'Or run on the others with skip_unavailable => true.' END;
            END IF;
            RAISE WARNING USING
                MESSAGE = format('fleet %s runs without %s unavailable node%s',
                                 fleet_id, (SELECT count(*) FROM unnest(problems) p WHERE p IS NOT NULL),
                                 CASE WHEN (SELECT count(*) FROM unnest(problems) p WHERE p IS NOT NULL) > 1 THEN 's' ELSE '' END),
                DETAIL = e_detail;
        END IF;

        -- 2. the clocks
        FOR i IN 1..n LOOP
            states := states || CASE WHEN problems[i] IS NULL THEN 'ready' ELSE 'skipped' END;
            messages := messages || problems[i];
            offsets := offsets || NULL::float8;
            rtts := rtts || NULL::float8;
            CONTINUE WHEN problems[i] IS NOT NULL;
            SELECT * INTO clk FROM @extschema@.ranread_fleet_clock(dbl, cnames[i]);
            offsets[i] := clk.offset_ms;
            rtts[i] := clk.rtt_ms;
            RAISE NOTICE 'node "%": clock offset % ms, round trip % ms', names[i],
                round(clk.offset_ms::numeric, 3), round(clk.rtt_ms::numeric, 3);
        END LOOP;
        spread := (SELECT max(v) - min(v) FROM unnest(offsets) v);
        IF spread > o.max_offset_ms THEN
            IF o.on_clock_skew = 'error' THEN
                RAISE EXCEPTION USING
                    ERRCODE = 'object_not_in_prerequisite_state',
                    MESSAGE = format('the clocks of the nodes of %s differ by %s ms, more than max_offset_ms %s',
                                     fn, round(spread::numeric, 3), o.max_offset_ms),
                    DETAIL = (SELECT string_agg(format('node "%s": %s ms', names[k], round(offsets[k]::numeric, 3)), ', ' ORDER BY k)
                                FROM generate_subscripts(offsets, 1) k WHERE offsets[k] IS NOT NULL) || '. No node was started.',
                    HINT = 'Synchronize the servers'' clocks (NTP, chrony), raise max_offset_ms, or run anyway with on_clock_skew => ''warn''.';
            END IF;
            RAISE WARNING 'the clocks of the nodes of fleet % differ by % ms, more than max_offset_ms %: their starts will differ as much',
                fleet_id, round(spread::numeric, 3), o.max_offset_ms;
        END IF;

        -- 3. recorded, then started together
        start_ts := to_timestamp(ceil(extract(epoch FROM clock_timestamp()
                        + greatest(0, coalesce((SELECT max(v) FROM unnest(offsets) v), 0)) * interval '1 ms'
                        + o.start_delay)));
        spec := jsonb_build_object(
            'caller', fn, 'fleet', fleet_id, 'start_at', start_ts,
            'iterations', o.iterations, 'duration', o.duration, 'warmup', o.warmup,
            'seed', o.seed, 'workers', o.workers, 'steady_state', o.steady_state,
            'groups', jsonb_build_array(jsonb_strip_nulls(jsonb_build_object(
                'processes', o.processes, 'target', o.target, 'block_size', o.block_size,
                'write_pct', o.write_pct, 'queue_depth', o.queue_depth, 'pattern', o.pattern,
                'region_start', o.region_start, 'region_end', o.region_end,
                'rate_iops', o.rate_iops, 'distribution', o.distribution, 'sync', o.sync))));
        PERFORM @extschema@.ranread_fleet_exec(dbl, recorder, format($q$
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
            jsonb_build_object('nodes', to_jsonb(names), 'options',
                to_jsonb(o) - 'nodes' - 'loopback', 'spec', spec),
            n - (SELECT count(*) FROM unnest(problems) p WHERE p IS NOT NULL), o.processes,
            to_jsonb(start_ts)#>>'{}',
            spread, (SELECT max(v) FROM unnest(rtts) v), sweep,
            names, ARRAY(SELECT @extschema@.ranread_conninfo_strip(c) FROM unnest(conninfos) c),
            ARRAY(SELECT CASE WHEN s = 'ready' THEN 'running' ELSE s END FROM unnest(states) s),
            messages, offsets, rtts));

        RAISE NOTICE 'fleet %: % nodes x % processes start at % (clock offsets within % ms, longest round trip % ms)',
            fleet_id, n - (SELECT count(*) FROM unnest(problems) p WHERE p IS NOT NULL), o.processes,
            start_ts, round(coalesce(spread, 0)::numeric, 3),
            round((SELECT max(v) FROM unnest(rtts) v)::numeric, 3);
        started := true;
        FOR i IN 1..n LOOP
            CONTINUE WHEN states[i] <> 'ready';
            sql := format('SELECT r.batch, r.status FROM %s.ranread_run_step(%L::jsonb) r WHERE r.grp = 0',
                          schemas[i], spec);
            BEGIN
                EXECUTE format('SELECT %s.dblink_send_query($1, $2)', dbl) USING cnames[i], sql;
                states[i] := 'running';
            EXCEPTION WHEN OTHERS THEN
                states[i] := 'failed';
                messages[i] := 'the batch could not be sent: ' || @extschema@.ranread_conninfo_scrub(SQLERRM, conninfos[i]);
            END;
        END LOOP;

        -- 4. wait, taking each node's result as it comes
        LOOP
            running := 0;
            FOR i IN 1..n LOOP
                CONTINUE WHEN states[i] <> 'running';
                BEGIN
                    EXECUTE format('SELECT %s.dblink_is_busy($1)', dbl) INTO busy USING cnames[i];
                EXCEPTION WHEN OTHERS THEN
                    busy := 0;
                END;
                IF busy = 1 THEN
                    running := running + 1;
                    CONTINUE;
                END IF;
                BEGIN
                    EXECUTE format('SELECT count(*) FROM %s.dblink_get_result($1, true) AS r(batch bigint, status text)', dbl)
                        USING cnames[i];
                    EXECUTE format('SELECT count(*) FROM %s.dblink_get_result($1, true) AS r(batch bigint, status text)', dbl)
                        USING cnames[i];
                    states[i] := 'done';
                EXCEPTION WHEN query_canceled OR others THEN
                    GET STACKED DIAGNOSTICS e_state = RETURNED_SQLSTATE, e_detail = PG_EXCEPTION_DETAIL,
                                            e_context = PG_EXCEPTION_CONTEXT;
                    -- our own cancel, not the node's: the fleet stops
                    IF e_state = '57014' AND e_context NOT LIKE '%dblink connection named%' THEN
                        RAISE;
                    END IF;
                    states[i] := CASE WHEN e_state = '57014' THEN 'cancelled' ELSE 'failed' END;
                    messages[i] := @extschema@.ranread_conninfo_scrub(
                        trim(regexp_replace(SQLERRM || coalesce(': ' || nullif(e_detail, ''), ''), '\s+', ' ', 'g')), conninfos[i]);
                    codes[i] := e_state;
                    BEGIN
                        EXECUTE format('SELECT count(*) FROM %s.dblink_get_result($1, true) AS r(batch bigint, status text)', dbl)
                            USING cnames[i];
                    EXCEPTION WHEN query_canceled OR others THEN
                        NULL;
                    END;
                    RAISE WARNING 'node "%" of fleet % %: %', names[i], fleet_id, states[i], messages[i];
                    IF o.on_node_failure = 'stop' THEN
                        RAISE WARNING 'fleet %: stopping the other nodes (on_node_failure => ''stop'')', fleet_id;
                        states := @extschema@.ranread_fleet_stop_nodes(dbl, cnames, conninfos, schemas, states);
                    END IF;
                END;
            END LOOP;
            EXIT WHEN running = 0;
            PERFORM pg_sleep(0.02);
        END LOOP;
    EXCEPTION WHEN query_canceled OR others THEN
        GET STACKED DIAGNOSTICS e_state = RETURNED_SQLSTATE;
        IF started THEN
            BEGIN
                states := @extschema@.ranread_fleet_stop_nodes(dbl, cnames, conninfos, schemas, states);
                SELECT * INTO res FROM @extschema@.ranread_fleet_finish(dbl, recorder, fleet_id, o, start_ts,
                    names, conninfos, cnames, schemas, states, messages, offsets, rtts,
                    CASE WHEN e_state = '57014' THEN 'cancelled' ELSE 'failed' END);
                RAISE WARNING 'fleet % %: every node was stopped; what they did is recorded (ranread_fleet_summary)',
                    fleet_id, CASE WHEN e_state = '57014' THEN 'cancelled' ELSE 'failed' END;
            EXCEPTION WHEN query_canceled OR others THEN
                RAISE WARNING 'fleet % could not record its end: %', fleet_id, SQLERRM;
            END;
        END IF;
        PERFORM @extschema@.ranread_fleet_disconnect(dbl, cnames || recorder);
        RAISE;
    END;

    -- 5. every node's batch, the fleet's figures, recorded
    BEGIN
        SELECT * INTO res FROM @extschema@.ranread_fleet_finish(dbl, recorder, fleet_id, o, start_ts,
            names, conninfos, cnames, schemas, states, messages, offsets, rtts, NULL);
    EXCEPTION WHEN OTHERS THEN
        PERFORM @extschema@.ranread_fleet_disconnect(dbl, cnames || recorder);
        RAISE;
    END;
    PERFORM @extschema@.ranread_fleet_disconnect(dbl, cnames || recorder);

    -- every node refused the batch before any I/O: that is an error
    IF NOT EXISTS (SELECT FROM jsonb_array_elements(res.rows) x WHERE x->>'batch' IS NOT NULL) THEN
        i := (SELECT min(k) FROM generate_subscripts(states, 1) k WHERE states[k] IN ('failed', 'cancelled'));
        IF i IS NOT NULL THEN
            RAISE EXCEPTION USING
                ERRCODE = coalesce(codes[i], 'XX000'),
                MESSAGE = format('node "%s" of %s refused the batch: %s', names[i], fn, messages[i]),
                DETAIL = format('Fleet %s ran no batch on any node.', fleet_id);
        END IF;
    END IF;

    FOR el IN SELECT format('node "%s" started %s ms after start_at: its workers were ready only then', x->>'name',
                            round((x->>'first_io_ms')::numeric, 1))
                FROM jsonb_array_elements(res.rows) x
               WHERE (x->>'node')::integer > 0 AND (x->>'first_io_ms')::float8 > 10 LOOP
        RAISE WARNING USING MESSAGE = format('fleet %s: %s', fleet_id, el),
            HINT = 'Give the fleet more time ahead with start_delay.';
    END LOOP;
    FOR el IN SELECT format('node "%s" is an outlier: %s IOPS, below 0.8x the median of the nodes',
                            x->>'name', round((x->>'iops')::numeric))
                FROM jsonb_array_elements(res.rows) x WHERE (x->>'outlier')::boolean LOOP
        RAISE WARNING '%', format('fleet %s: %s', fleet_id, el);
    END LOOP;
    RAISE NOTICE '%', format('fleet %s %s: %s nodes x %s processes, %s IOPS over the common window of %s s, average %s ms, p99 %s ms (merged histograms), first I/Os within %s ms',
        fleet_id, res.fleet_row->>'status',
        n - (SELECT count(*) FROM unnest(problems) p WHERE p IS NOT NULL), o.processes,
        coalesce(round((res.fleet_row->>'iops')::numeric)::text, 'no'),
        coalesce(res.fleet_row->>'window_seconds', '0'),
        coalesce(round((res.fleet_row->>'avg_ms')::numeric, 3)::text, 'n/a'),
        coalesce(round((res.fleet_row->>'p99_ms')::numeric, 3)::text, 'n/a'),
        coalesce(round((res.fleet_row->>'start_spread_ms')::numeric, 1)::text, 'n/a'));

    RETURN QUERY SELECT * FROM jsonb_populate_recordset(NULL::@extschema@.ranread_fleet_result, res.rows);
END
$$;

-- The arguments of a fleet that the nodes do not check themselves
CREATE OR REPLACE FUNCTION @extschema@.ranread_fleet_check(o @extschema@.ranread_fleet_options, fn text)
RETURNS void
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    lim record;
BEGIN
    SELECT * INTO lim FROM @extschema@.ranread_limits();
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

-- One batch on many servers at once: see the top of this file and README's
-- "Fleet".  The options of ranread_run pass through to every node.
CREATE OR REPLACE FUNCTION @extschema@.ranread_fleet(
    nodes            text[],
    processes        integer,
    iterations       bigint   DEFAULT NULL,
    target           name     DEFAULT 'ranread',
    duration         interval DEFAULT NULL,
    block_size       integer  DEFAULT 8192,
    write_pct        integer  DEFAULT 0,
    queue_depth      integer  DEFAULT 1,
    pattern          text     DEFAULT 'random',
    region_start     float8   DEFAULT 0,
    region_end       float8   DEFAULT 100,
    warmup           interval DEFAULT '0',
    rate_iops        integer  DEFAULT NULL,
    seed             bigint   DEFAULT NULL,
    workers          integer  DEFAULT NULL,
    distribution     text     DEFAULT 'uniform',
    steady_state     text     DEFAULT NULL,
    sync             text     DEFAULT NULL,
    start_delay      interval DEFAULT '2s',
    skip_unavailable boolean  DEFAULT false,
    on_node_failure  text     DEFAULT 'continue',
    max_offset_ms    float8   DEFAULT 10,
    on_clock_skew    text     DEFAULT 'error',
    loopback         text     DEFAULT NULL)
RETURNS SETOF @extschema@.ranread_fleet_result
LANGUAGE sql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT * FROM @extschema@.ranread_fleet_run(ROW($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12,
        $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24)::@extschema@.ranread_fleet_options)
$$;
