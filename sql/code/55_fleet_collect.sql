-- 1.1, the fleet, step 5 (51_fleet_loop.sql runs it, and so does the end
-- of an interrupted fleet): every node's batch of this fleet, found by the
-- fleet id and start_at the batch carries, read with its seconds from
-- every node that can be reached before a deadline, all at once: over the
-- node's own connection, or a fresh one where that is gone or still busy.
-- What a node answers is checked before it is kept (ranread_fleet_answer):
-- a node is another server, and what it sends may be anything.  Each
-- node's record gets its batch, or why it could not be read.

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

-- Fresh connections (the nodes' own names with _r), all at once, within
-- timeout_ms, to the nodes whose batch is still to be read over one (no
-- reader yet, not skipped), those given up (lost) or the others: each
-- reached gets it as its reader, each other why it could not be reached
CREATE OR REPLACE FUNCTION ranread_internal.ranread_fleet_reconnect(
    nodes ranread_internal.ranread_fleet_node_state[], lost boolean, timeout_ms integer)
RETURNS ranread_internal.ranread_fleet_node_state[]
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    ks   integer[] := ARRAY(SELECT x.node FROM unnest(nodes) x
                             WHERE x.reader IS NULL AND x.unread IS NULL AND x.schema IS NOT NULL
                               AND x.state IS NOT NULL AND x.state <> 'skipped' AND (x.state = 'lost') = lost
                             ORDER BY x.node);
    cs   text[] := ARRAY(SELECT nodes[m].cname || '_r' FROM unnest(ks) WITH ORDINALITY u(m, o) ORDER BY u.o);
    errs text[];
    k    integer;
BEGIN
    IF cardinality(ks) = 0 THEN
        RETURN nodes;
    END IF;
    -- connecting all at once; each one's query waits for its connection
    PERFORM ranread_internal.ranread_remote_close(cs);
    errs := ranread_internal.ranread_remote_connect(cs,
        ARRAY(SELECT nodes[m].conninfo FROM unnest(ks) WITH ORDINALITY u(m, o) ORDER BY u.o), timeout_ms, false);
    FOR j IN 1..cardinality(ks) LOOP
        k := ks[j];
        IF errs[j] IS NULL THEN
            nodes[k].reader := cs[j];
        ELSE
            nodes[k].unread := 'it could not be reached to read its batch: '
                || ranread_internal.ranread_conninfo_scrub(errs[j], nodes[k].conninfo);
        END IF;
    END LOOP;
    RETURN nodes;
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

-- Step 5 of a fleet: the nodes' batches of this fleet, as each recorded
-- it, with its seconds, from every node not skipped that can be reached
-- before until, all at once (over the node's own connection, or a fresh
-- one where that is gone or still busy; a lost node gets 2 s for that
-- fresh connection: it did not answer before).  A batch still recording
-- is asked again.  Each node's batch, or why not (unread).
CREATE OR REPLACE FUNCTION ranread_internal.ranread_fleet_collect(f ranread_internal.ranread_fleet_call,
    until timestamptz)
RETURNS ranread_internal.ranread_fleet_call
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    nodes ranread_internal.ranread_fleet_node_state[] := f.nodes;
    c     text;
BEGIN
    FOR i IN 1..cardinality(nodes) LOOP
        nodes[i].batch := NULL;
        nodes[i].unread := NULL;
        nodes[i].reader := NULL;
        CONTINUE WHEN nodes[i].state IS NULL OR nodes[i].state = 'skipped' OR nodes[i].schema IS NULL;
        IF ranread_internal.ranread_remote_state(nodes[i].cname) IN ('idle', 'done') THEN
            -- an answer not taken (an earlier attempt was interrupted) goes
            PERFORM ranread_internal.ranread_remote_result(nodes[i].cname, 0);
            nodes[i].reader := nodes[i].cname;
        END IF;
    END LOOP;
    nodes := ranread_internal.ranread_fleet_reconnect(nodes, true,
        least(2000, ranread_internal.ranread_fleet_ms(until)));
    nodes := ranread_internal.ranread_fleet_reconnect(nodes, false, ranread_internal.ranread_fleet_ms(until));
    FOR i IN 1..cardinality(nodes) LOOP
        CONTINUE WHEN nodes[i].reader IS NULL;
        c := ranread_internal.ranread_remote_send(nodes[i].reader,
            ranread_internal.ranread_fleet_batch_sql(nodes[i].schema, f.fleet, f.start_at));
        IF c IS NOT NULL THEN
            nodes[i].unread := 'its batch could not be read: ' || ranread_internal.ranread_conninfo_scrub(c, nodes[i].conninfo);
            nodes[i].reader := NULL;
        END IF;
    END LOOP;
    WHILE EXISTS (SELECT FROM unnest(nodes) x WHERE x.reader IS NOT NULL) LOOP
        nodes := ranread_internal.ranread_fleet_read(nodes, f.fleet, f.start_at, until);
    END LOOP;
    PERFORM ranread_internal.ranread_remote_close(ARRAY(SELECT x.cname || '_r' FROM unnest(nodes) x));
    f.nodes := nodes;
    RETURN f;
END
$$;

-- One round of step 5: the answers of the nodes whose batch is being read
-- (over reader) taken as they come, each kept or refused; one still
-- recording asked again in a moment.  When until has passed, the nodes
-- still unread are given up with why.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_fleet_read(nodes ranread_internal.ranread_fleet_node_state[],
    fleet bigint, start_at timestamptz, until timestamptz)
RETURNS ranread_internal.ranread_fleet_node_state[]
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    c     text;
    k     integer;
    r     jsonb;
    a     record;
    again boolean := false;
BEGIN
    IF ranread_internal.ranread_fleet_ms(until) = 0 THEN
        FOR i IN 1..cardinality(nodes) LOOP
            IF nodes[i].reader IS NOT NULL AND nodes[i].batch IS NULL THEN
                nodes[i].unread := coalesce(nodes[i].unread,
                    CASE WHEN ranread_internal.ranread_remote_state(nodes[i].reader) = 'connecting'
                         THEN 'it could not be reached in time to read its batch'
                         ELSE 'its batch could not be read in time: it did not answer' END);
            END IF;
            nodes[i].reader := NULL;
        END LOOP;
        RETURN nodes;
    END IF;
    FOREACH c IN ARRAY ranread_internal.ranread_remote_wait(
            ARRAY(SELECT x.reader FROM unnest(nodes) x WHERE x.reader IS NOT NULL ORDER BY x.node),
            ranread_internal.ranread_fleet_ms(until)) LOOP
        k := (SELECT x.node FROM unnest(nodes) x WHERE x.reader = c);
        r := ranread_internal.ranread_remote_result(c, 0);
        IF r->>'state' = 'ok' THEN
            SELECT * INTO a FROM ranread_internal.ranread_fleet_answer(r->>'value');
            nodes[k].batch := a.batch;
            nodes[k].unread := a.error;
            nodes[k].reader := NULL;
            IF a.batch->>'status' = 'running' AND ranread_internal.ranread_fleet_ms(until) > 200 THEN
                -- still recording: ask again in a moment
                again := true;
                IF ranread_internal.ranread_remote_send(c,
                        ranread_internal.ranread_fleet_batch_sql(nodes[k].schema, fleet, start_at)) IS NULL THEN
                    nodes[k].reader := c;
                END IF;
            END IF;
        ELSE
            nodes[k].unread := CASE WHEN c <> nodes[k].cname AND nodes[k].batch IS NULL AND r->>'state' = 'broken'
                                    THEN 'it could not be reached to read its batch: '
                                    ELSE 'its batch could not be read: ' END
                || ranread_internal.ranread_conninfo_scrub(coalesce(r->>'message', r->>'state'), nodes[k].conninfo);
            nodes[k].reader := NULL;
        END IF;
    END LOOP;
    IF again THEN
        PERFORM pg_sleep(0.05);
    END IF;
    RETURN nodes;
END
$$;
