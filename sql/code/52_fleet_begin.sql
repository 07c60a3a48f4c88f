-- 1.1, the fleet, before any node is reached (51_fleet_loop.sql runs the
-- steps): the call's text without its passwords, the arguments the nodes
-- do not check themselves, the nodes resolved (names of ranread_nodes, or
-- connection strings) into one record each, and the recorder: a connection
-- back to this database, in transactions of its own, through which the
-- fleet records itself so that a cancel, a statement_timeout or a ROLLBACK
-- of the coordinator's call loses none of it.  The fleet sweep
-- (58_fleet_report.sql) uses the same checks and recorder.

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

-- The nodes of fleet fleet_id, as resolved, before any is reached
CREATE OR REPLACE FUNCTION ranread_internal.ranread_fleet_nodes_init(fleet_id bigint, names text[], conninfos text[])
RETURNS ranread_internal.ranread_fleet_node_state[]
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT coalesce(array_agg(ROW(k, $2[k], $3[k], format('ranread_fleet_%s_%s', $1, k),
                                  NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL
                              )::ranread_internal.ranread_fleet_node_state ORDER BY k), '{}')
      FROM generate_subscripts($2, 1) k
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
    PERFORM ranread_internal.ranread_fleet_check_times(o, fn);
END
$$;

-- The arguments of a fleet about time and failures, checked after the
-- others (ranread_fleet_check)
CREATE OR REPLACE FUNCTION ranread_internal.ranread_fleet_check_times(o @extschema@.ranread_fleet_options, fn text)
RETURNS void
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    -- the coordinator adds duration and warmup to the start (the nodes'
    -- bound): checked here first, in the words of the nodes' own check
    -- (src/workload/params.c), so that no value overflows a timestamp
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

-- A fleet begun: the call's text without its passwords (first, before
-- anything can fail), its arguments checked, its nodes resolved, its id
-- taken and registered among the running calls; no node reached yet
CREATE OR REPLACE FUNCTION ranread_internal.ranread_fleet_begin(o @extschema@.ranread_fleet_options,
    sweep bigint, fn text)
RETURNS ranread_internal.ranread_fleet_call
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    f     ranread_internal.ranread_fleet_call;
    given record;
BEGIN
    PERFORM ranread_internal.ranread_conninfo_hide(o.nodes);
    PERFORM ranread_internal.ranread_conninfo_hide(ARRAY[o.loopback]);
    PERFORM ranread_internal.ranread_fleet_check(o, fn);
    PERFORM ranread_internal.ranread_primary_only(fn);

    -- the nodes: names of ranread_nodes, or connection strings
    SELECT * INTO given FROM ranread_internal.ranread_fleet_resolve(o.nodes, fn);
    f.fn := fn;
    f.sweep := sweep;
    f.started := false;
    f.rec_conn := ranread_internal.ranread_fleet_loopback(o.loopback);
    f.fleet := nextval('@extschema@.ranread_fleet_seq'::regclass);
    f.nodes := ranread_internal.ranread_fleet_nodes_init(f.fleet, given.names, given.conninfos);
    f.recorder := format('ranread_fleet_%s_recorder', f.fleet);
    -- among the running calls ranread_reset keeps whole, until this
    -- transaction ends
    PERFORM ranread_internal.ranread_call_register('fleet', f.fleet);
    RETURN f;
END
$$;

-- The recorder opened (this database, in transactions of its own), and
-- the fleets whose coordinator ended without recording their end fixed up
CREATE OR REPLACE FUNCTION ranread_internal.ranread_fleet_open(f ranread_internal.ranread_fleet_call)
RETURNS void
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM ranread_internal.ranread_fleet_recorder(f.recorder, f.rec_conn, f.fn, 'fleet');
    PERFORM ranread_internal.ranread_remote_query(f.recorder,
        'SELECT ranread_internal.ranread_fleet_abandon()::text', 10000);
END
$$;

-- Every connection of the fleet closed, without waiting: the nodes' and
-- the recorder, whose last words, if the end could not be recorded, are
-- sent as it goes
CREATE OR REPLACE FUNCTION ranread_internal.ranread_fleet_close(f ranread_internal.ranread_fleet_call)
RETURNS void
LANGUAGE sql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT ranread_internal.ranread_remote_close(
        ARRAY(SELECT x.cname FROM unnest(f.nodes) x ORDER BY x.node) || f.recorder)
$$;
