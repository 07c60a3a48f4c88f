-- 1.1, the fleet, steps 6 and 7 (51_fleet_loop.sql runs them): each
-- node's row of the fleet's end judged from what its batch recorded (or
-- why it could not be read), the fleet's figures, outliers and status
-- from its nodes' (every node with a batch counts in the totals), all of
-- it recorded through the recorder; and the end of a fleet that was
-- interrupted (a cancel, statement_timeout, an error): its nodes stopped,
-- collected, judged and recorded within the bounds of a cancel.  After the
-- end is recorded, the fleet tells what happened.

-- The nodes' rows of a fleet's end (as ranread_fleet_nodes holds them, in
-- jsonb) and their seconds, from what each node's batch recorded (batch)
-- or why it could not be read (unread).  A node's status: skipped; lost
-- (given up, or its batch could not be read in time); failed (its error,
-- or its session lost: with its batch's figures when it can be read); else
-- as its batch recorded it, cancelled when it was stopped and no batch is
-- found.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_fleet_node_rows(fleet bigint,
    o @extschema@.ranread_fleet_options, start_at timestamptz,
    nodes ranread_internal.ranread_fleet_node_state[],
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
        r := nodes[i].batch;
        msg := nodes[i].message;
        IF r IS NULL AND nodes[i].state NOT IN ('skipped') AND nodes[i].unread IS NOT NULL THEN
            msg := coalesce(msg || '; ', '') || nodes[i].unread;
        END IF;
        st := CASE WHEN nodes[i].state IN ('skipped', 'lost', 'failed') THEN nodes[i].state
                   -- still recording when the collection ended: its end is
                   -- on the node only (a fleet's row never stays running)
                   WHEN r->>'status' = 'running' THEN 'lost'
                   WHEN r IS NOT NULL THEN r->>'status'
                   WHEN nodes[i].state IN ('cancelled', 'stopped') THEN nodes[i].state
                   -- it ran and answered, but what it did cannot be read now
                   WHEN nodes[i].state = 'done' AND nodes[i].unread IS NOT NULL THEN 'lost'
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

-- Step 6 of a fleet: its nodes' rows and seconds, its outliers, the
-- fleet's figures and status, and its row (finished now), as they will be
-- recorded
CREATE OR REPLACE FUNCTION ranread_internal.ranread_fleet_judge(f ranread_internal.ranread_fleet_call,
    o @extschema@.ranread_fleet_options)
RETURNS ranread_internal.ranread_fleet_call
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    nr      record;
    nodes   jsonb;
    outl    boolean[];
    t       record;
    fstatus text;
    fmsg    text;
BEGIN
    SELECT * INTO nr FROM ranread_internal.ranread_fleet_node_rows(f.fleet, o, f.start_at, f.nodes);
    nodes := nr.rows;

    -- outliers among the nodes that did their I/O
    outl := ranread_internal.ranread_fleet_outliers(ARRAY(
        SELECT CASE WHEN x->>'batch' IS NOT NULL AND x->>'status' NOT IN ('failed', 'lost') THEN (x->>'iops')::float8 END
          FROM jsonb_array_elements(nodes) WITH ORDINALITY AS e(x, k) ORDER BY k));
    SELECT jsonb_agg(x || jsonb_build_object('outlier', outl[k]) ORDER BY k) INTO nodes
      FROM jsonb_array_elements(nodes) WITH ORDINALITY AS e(x, k);

    SELECT * INTO t FROM ranread_internal.ranread_fleet_totals(nodes, nr.secs, o.block_size);
    fstatus := ranread_internal.ranread_fleet_status(ARRAY(SELECT x->>'status' FROM jsonb_array_elements(nodes) x),
                                                     f.interrupted);
    SELECT string_agg(format('node "%s" %s%s', x->>'name', x->>'status',
                             coalesce(': ' || (x->>'message'), '')), '; ' ORDER BY (x->>'node')::integer)
      INTO fmsg
      FROM jsonb_array_elements(nodes) x
     WHERE x->>'status' NOT IN ('completed');
    IF f.interrupted = 'cancelled' THEN
        fmsg := 'the coordinator''s call was cancelled (cancel or statement_timeout); every node was stopped'
                || coalesce('; ' || fmsg, '');
    END IF;

    f.node_rows := nodes;
    f.seconds := nr.secs;
    f.fleet_row := jsonb_build_object(
        'fleet', f.fleet, 'finished_at', clock_timestamp(), 'status', fstatus, 'message', fmsg,
        'window_start', t.window_start, 'window_end', t.window_end, 'window_seconds', t.window_seconds,
        'reads', t.reads, 'writes', t.writes, 'iops', t.iops, 'mbps', t.mbps, 'avg_ms', t.avg_ms,
        'p50_ms', t.p50_ms, 'p95_ms', t.p95_ms, 'p99_ms', t.p99_ms, 'p999_ms', t.p999_ms,
        'max_ms', t.max_ms, 'histogram', t.histogram, 'start_spread_ms', t.start_spread_ms);
    RETURN f;
END
$$;

-- Step 7 of a fleet: its end recorded through the recorder (before
-- until): its nodes' rows and seconds, and the fleet's row; then the
-- recorder's last words are no longer needed
CREATE OR REPLACE FUNCTION ranread_internal.ranread_fleet_record(f ranread_internal.ranread_fleet_call,
    until timestamptz)
RETURNS void
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF NOT ranread_internal.ranread_fleet_recorder_ready(f.recorder, f.rec_conn, until) THEN
        RAISE EXCEPTION USING ERRCODE = 'connection_failure',
            MESSAGE = format('the recorder of fleet %s could not be reached in time', f.fleet);
    END IF;
    PERFORM ranread_internal.ranread_remote_query(f.recorder, format($q$
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
         WHERE f.fleet = %1$s $q$, f.fleet, f.node_rows, f.seconds, f.fleet_row),
        ranread_internal.ranread_fleet_ms(until));
    PERFORM ranread_internal.ranread_remote_last_words(f.recorder, NULL);
END
$$;

-- A fleet interrupted (a cancel, statement_timeout, an error): the nodes
-- still running stopped (within 2 s) when stop, what they did collected
-- (within 2.5 s) and recorded (within 4 s), said in a warning.  Raises
-- nothing: when its end cannot be recorded, a warning says so.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_fleet_salvage(f ranread_internal.ranread_fleet_call,
    o @extschema@.ranread_fleet_options, e_state text, stop boolean)
RETURNS void
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    t0 timestamptz := clock_timestamp();
BEGIN
    f.interrupted := CASE WHEN e_state = '57014' THEN 'cancelled' ELSE 'failed' END;
    IF stop THEN
        f.nodes := ranread_internal.ranread_fleet_stop_nodes(f.nodes, t0 + interval '2 s');
    END IF;
    f := ranread_internal.ranread_fleet_collect(f, CASE WHEN stop
        THEN greatest(clock_timestamp() + interval '0.5 s', t0 + interval '2.5 s') ELSE t0 + interval '2.5 s' END);
    f := ranread_internal.ranread_fleet_judge(f, o);
    PERFORM ranread_internal.ranread_fleet_record(f, t0 + interval '4 s');
    IF stop THEN
        RAISE WARNING 'fleet % %: %; what they did is recorded (ranread_fleet_summary)', f.fleet, f.interrupted,
            CASE WHEN EXISTS (SELECT FROM unnest(f.nodes) x WHERE x.state = 'lost')
                 THEN format('%s of its nodes lost (no answer to their cancel), the others stopped',
                             (SELECT count(*) FROM unnest(f.nodes) x WHERE x.state = 'lost'))
                 ELSE 'every node was stopped' END;
    ELSE
        RAISE WARNING 'fleet % %: what the nodes did is recorded (ranread_fleet_summary)', f.fleet, f.interrupted;
    END IF;
EXCEPTION WHEN query_canceled OR others THEN
    RAISE WARNING 'fleet % could not record its end: %', f.fleet, SQLERRM;
END
$$;

-- The coordinator's call interrupted (by e_state): once the fleet is
-- recorded as running, its end recorded (ranread_fleet_salvage, the nodes
-- stopped first when stop); then every connection closed
CREATE OR REPLACE FUNCTION ranread_internal.ranread_fleet_interrupted(f ranread_internal.ranread_fleet_call,
    o @extschema@.ranread_fleet_options, e_state text, stop boolean)
RETURNS void
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF f.started THEN
        PERFORM ranread_internal.ranread_fleet_salvage(f, o, e_state, stop);
    END IF;
    PERFORM ranread_internal.ranread_fleet_close(f);
END
$$;

-- After a fleet's end is recorded: an error when every node refused its
-- batch before any I/O, warnings for late starts and outliers, and the
-- fleet's figures in a notice
CREATE OR REPLACE FUNCTION ranread_internal.ranread_fleet_tell(f ranread_internal.ranread_fleet_call,
    o @extschema@.ranread_fleet_options)
RETURNS void
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    rows jsonb := ranread_internal.ranread_fleet_result_rows(f.fleet, f.node_rows, f.fleet_row, f.nodes);
    bad  ranread_internal.ranread_fleet_node_state;
    el   text;
BEGIN
    IF NOT EXISTS (SELECT FROM jsonb_array_elements(rows) x WHERE x->>'batch' IS NOT NULL) THEN
        SELECT * INTO bad FROM unnest(f.nodes) x WHERE x.state IN ('failed', 'cancelled', 'lost') ORDER BY x.node LIMIT 1;
        IF FOUND THEN
            RAISE EXCEPTION USING
                ERRCODE = coalesce(nullif(bad.code, ''), '55000'),
                MESSAGE = format('node "%s" of %s refused the batch: %s', bad.name, f.fn, bad.message),
                DETAIL = format('Fleet %s ran no batch on any node.', f.fleet);
        END IF;
    END IF;
    FOR el IN SELECT format('node "%s" started %s ms after start_at: its workers were ready only then', x->>'name',
                            round((x->>'first_io_ms')::numeric, 1))
                FROM jsonb_array_elements(rows) x
               WHERE (x->>'node')::integer > 0 AND (x->>'first_io_ms')::float8 > 10 LOOP
        RAISE WARNING USING MESSAGE = format('fleet %s: %s', f.fleet, el),
            HINT = 'Give the fleet more time ahead with start_delay.';
    END LOOP;
    FOR el IN SELECT format('node "%s" is an outlier: %s IOPS, below 0.8x the median of the nodes',
                            x->>'name', round((x->>'iops')::numeric))
                FROM jsonb_array_elements(rows) x WHERE (x->>'outlier')::boolean LOOP
        RAISE WARNING '%', format('fleet %s: %s', f.fleet, el);
    END LOOP;
    RAISE NOTICE '%', format('fleet %s %s: %s x %s, %s IOPS over the common window of %s s, average %s ms, p99 %s ms (merged histograms), first I/Os within %s ms',
        f.fleet, f.fleet_row->>'status',
        ranread_internal.ranread_count_words((SELECT count(*) FROM unnest(f.nodes) x WHERE x.state <> 'skipped'), 'node'),
        ranread_internal.ranread_count_words(o.processes, 'process'),
        coalesce(round((f.fleet_row->>'iops')::numeric)::text, 'no'),
        coalesce(round((f.fleet_row->>'window_seconds')::numeric, 2)::text, '0'),
        coalesce(round((f.fleet_row->>'avg_ms')::numeric, 3)::text, 'n/a'),
        coalesce(round((f.fleet_row->>'p99_ms')::numeric, 3)::text, 'n/a'),
        coalesce(round((f.fleet_row->>'start_spread_ms')::numeric, 1)::text, 'n/a'));
END
$$;
