-- 1.1, the fleet, steps 1 and 2 (51_fleet_loop.sql runs them): every node
-- reached, all at once, and probed (ranread there, 1.1 or later, a
-- primary, the target ready, no batch running, the options accepted),
-- those that cannot run named in one error before any node starts (or a
-- warning with skip_unavailable); then the clock of each node that can,
-- refused or warned of when their offsets spread more than max_offset_ms.

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

-- Step 1 of a fleet: every node reached (all at once) and probed.  Each
-- node's schema and system as found, and for a node that cannot run its
-- share: state skipped, with why (message), its SQLSTATE (code) and hint;
-- then those named in one error, or a warning (ranread_fleet_unavailable),
-- and a spare connection made to each of the others, for its cancel.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_fleet_probe_nodes(f ranread_internal.ranread_fleet_call,
    o @extschema@.ranread_fleet_options)
RETURNS ranread_internal.ranread_fleet_call
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    nodes ranread_internal.ranread_fleet_node_state[] := f.nodes;
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
                    'ranread_fleet ' || f.fleet), 10000);
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
    f.nodes := nodes;
    PERFORM ranread_internal.ranread_fleet_unavailable(f, o);
    -- a spare connection to each node that runs, made now, so that its
    -- cancel waits for no session to start there (src/fleet/cancel.c);
    -- one not made within 2 s is not needed: the cancel makes a fresh one
    PERFORM ranread_internal.ranread_remote_spare(ranread_internal.ranread_fleet_cnames(nodes, 'ready'), 2000);
    RETURN f;
END
$$;

-- After step 1: the nodes that cannot run named in one error before any
-- node starts, or in a warning when skip_unavailable lets the others run
CREATE OR REPLACE FUNCTION ranread_internal.ranread_fleet_unavailable(f ranread_internal.ranread_fleet_call,
    o @extschema@.ranread_fleet_options)
RETURNS void
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    bad    ranread_internal.ranread_fleet_node_state[] :=
               ARRAY(SELECT x FROM unnest(f.nodes) x WHERE x.state = 'skipped' ORDER BY x.node);
    detail text;
BEGIN
    IF cardinality(bad) = 0 THEN
        RETURN;
    END IF;
    SELECT string_agg(format('node "%s": %s', x.name, x.message), E'\n' ORDER BY x.node)
      INTO detail FROM unnest(bad) x;
    IF NOT o.skip_unavailable OR cardinality(bad) = cardinality(f.nodes) THEN
        RAISE EXCEPTION USING
            ERRCODE = coalesce(bad[1].code, '55000'),
            MESSAGE = CASE WHEN cardinality(bad) = 1
                           THEN format('node "%s" of %s is unavailable: %s', bad[1].name, f.fn, bad[1].message)
                           ELSE format('%s nodes of %s are unavailable', cardinality(bad), f.fn) END,
            DETAIL = CASE WHEN cardinality(bad) = 1 THEN '' ELSE detail || E'\n' END || 'No node was started.',
            HINT = coalesce(bad[1].hint || ' ', '') || CASE WHEN o.skip_unavailable
                THEN 'No node is left to run.'
                ELSE 'Or run on the others with skip_unavailable => true.' END;
    END IF;
    RAISE WARNING USING
        MESSAGE = format('fleet %s runs without %s unavailable node%s',
                         f.fleet, cardinality(bad), CASE WHEN cardinality(bad) > 1 THEN 's' ELSE '' END),
        DETAIL = detail;
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

-- Step 2 of a fleet: the clock of every node that is ready, refused or
-- warned of when their offsets spread more than max_offset_ms
CREATE OR REPLACE FUNCTION ranread_internal.ranread_fleet_clocks(f ranread_internal.ranread_fleet_call,
    o @extschema@.ranread_fleet_options)
RETURNS ranread_internal.ranread_fleet_call
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    nodes  ranread_internal.ranread_fleet_node_state[] := f.nodes;
    spread float8;
    clk    record;
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
                                 f.fn, round(spread::numeric, 3), o.max_offset_ms),
                DETAIL = (SELECT string_agg(format('node "%s": %s ms', x.name, round(x.offset_ms::numeric, 3)), ', ' ORDER BY x.node)
                            FROM unnest(nodes) x WHERE x.offset_ms IS NOT NULL) || '. No node was started.',
                HINT = 'Synchronize the servers'' clocks (NTP, chrony), raise max_offset_ms, or run anyway with on_clock_skew => ''warn''.';
        END IF;
        RAISE WARNING 'the clocks of the nodes of fleet % differ by % ms, more than max_offset_ms %: their starts will differ as much',
            f.fleet, round(spread::numeric, 3), o.max_offset_ms;
    END IF;
    f.nodes := nodes;
    f.spread := spread;
    RETURN f;
END
$$;
