-- 1.1, the fleet: one batch on many PostgreSQL servers at once. This part
-- holds the fleet's history (tables, views), its connections to other
-- servers (C, src/fleet/) and the pure rules (connection strings read by
-- libpq's rules and shown without their passwords, the fleet's figures from
-- its nodes' figures, outliers, status); 51_fleet_loop.sql runs a fleet
-- (its steps in 52 to 56, one file a phase), 58_fleet_report.sql sweeps,
-- charts and exports it.
--
-- How a fleet is kept.  Each node records its own batch, as any batch, with
-- the fleet's id in ranread_batches.fleet.  The coordinator keeps the fleet
-- (ranread_fleets), one row per node (ranread_fleet_nodes) and the nodes'
-- seconds aligned by epoch second (ranread_fleet_seconds).  It writes them
-- through a connection to its own database (the recorder), in transactions
-- of their own: a cancel, a statement_timeout or a ROLLBACK of the
-- coordinator's call loses none of them, and a coordinator that is
-- terminated leaves no row 'running' (ranread_fleet_abandon).  Connection
-- strings are stored without passwords.


-- A fleet's row as users get it: its figures rounded
CREATE OR REPLACE FUNCTION ranread_internal.ranread_fleet_round(r ranread_internal.ranread_fleet_result_raw)
RETURNS @extschema@.ranread_fleet_result
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT r.fleet, r.node, r.name, r.batch, r.status, r.reads, r.writes,
           ranread_internal.ranread_round(r.seconds, 3)::numeric(12,3),
           ranread_internal.ranread_round(r.iops, 0)::bigint,
           ranread_internal.ranread_round(r.mbps, 1)::numeric(14,1),
           ranread_internal.ranread_round(r.avg_ms, 3)::numeric(15,3),
           ranread_internal.ranread_round(r.p50_ms, 3)::numeric(15,3),
           ranread_internal.ranread_round(r.p99_ms, 3)::numeric(15,3),
           ranread_internal.ranread_round(r.p999_ms, 3)::numeric(15,3),
           ranread_internal.ranread_round(r.max_ms, 3)::numeric(15,3),
           ranread_internal.ranread_round(r.offset_ms, 3)::numeric(15,3),
           ranread_internal.ranread_round(r.rtt_ms, 3)::numeric(15,3),
           ranread_internal.ranread_round(r.first_io_ms, 3)::numeric(15,3),
           r.outlier, r.message
$$;

-- Connection strings, read by libpq's own rules (PQconninfoParse: key =
-- value pairs in any quoting, and postgresql:// URIs with percent-encoding
-- and query parameters), in C (src/fleet/conninfo.c).  A password is whatever
-- libpq keeps secret (password, sslpassword), however it is spelled.
--   ranread_conninfo_problem   NULL when libpq reads the string, else what
--                              is wrong with it, quoting none of it
--   ranread_conninfo_has_password  whether it gives a password
--   ranread_conninfo_strip     the options libpq reads from it, as keyword
--                              = value pairs, without any password: what is
--                              stored and shown
--   ranread_conninfo_name      host:port, a node's name in rows and charts
--   ranread_conninfo_scrub     a message with every spelling of the
--                              string's passwords blanked out
--   ranread_conninfo_hide      the passwords (and any unreadable string)
--                              taken out of the running statement's text,
--                              as the server logs and shows it
CREATE OR REPLACE FUNCTION ranread_internal.ranread_conninfo_problem(conninfo text)
RETURNS text
AS 'MODULE_PATHNAME', 'ranread_conninfo_problem'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION ranread_internal.ranread_conninfo_has_password(conninfo text)
RETURNS boolean
AS 'MODULE_PATHNAME', 'ranread_conninfo_has_password'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION ranread_internal.ranread_conninfo_strip(conninfo text)
RETURNS text
AS 'MODULE_PATHNAME', 'ranread_conninfo_strip'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- STABLE: defaults come from the server's environment (PGHOST, PGPORT)
CREATE OR REPLACE FUNCTION ranread_internal.ranread_conninfo_name(conninfo text)
RETURNS text
AS 'MODULE_PATHNAME', 'ranread_conninfo_name'
LANGUAGE C STABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION ranread_internal.ranread_conninfo_scrub(msg text, conninfo text)
RETURNS text
AS 'MODULE_PATHNAME', 'ranread_conninfo_scrub'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE FUNCTION ranread_internal.ranread_conninfo_hide(conninfos text[])
RETURNS void
AS 'MODULE_PATHNAME', 'ranread_conninfo_hide'
LANGUAGE C VOLATILE PARALLEL RESTRICTED;

-- Connections to other servers, every step bounded and interruptible (see
-- src/fleet/remote.h): named connections of this backend, closed at
-- the latest when the transaction ends.  Timeouts in milliseconds, NULL for
-- none (a wait is interruptible either way).
CREATE OR REPLACE FUNCTION ranread_internal.ranread_remote_connect(names text[], conninfos text[],
    timeout_ms integer DEFAULT NULL, wait boolean DEFAULT true)
RETURNS text[]
AS 'MODULE_PATHNAME', 'ranread_remote_connect'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

CREATE OR REPLACE FUNCTION ranread_internal.ranread_remote_send(name text, sql text)
RETURNS text
AS 'MODULE_PATHNAME', 'ranread_remote_send'
LANGUAGE C STRICT VOLATILE PARALLEL UNSAFE;

CREATE OR REPLACE FUNCTION ranread_internal.ranread_remote_wait(names text[], timeout_ms integer)
RETURNS text[]
AS 'MODULE_PATHNAME', 'ranread_remote_wait'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

CREATE OR REPLACE FUNCTION ranread_internal.ranread_remote_result(name text, timeout_ms integer DEFAULT 0)
RETURNS jsonb
AS 'MODULE_PATHNAME', 'ranread_remote_result'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

CREATE OR REPLACE FUNCTION ranread_internal.ranread_remote_query(name text, sql text, timeout_ms integer)
RETURNS text
AS 'MODULE_PATHNAME', 'ranread_remote_query'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

CREATE OR REPLACE FUNCTION ranread_internal.ranread_remote_cancel(names text[], timeout_ms integer)
RETURNS boolean[]
AS 'MODULE_PATHNAME', 'ranread_remote_cancel'
LANGUAGE C STRICT VOLATILE PARALLEL UNSAFE;

CREATE OR REPLACE FUNCTION ranread_internal.ranread_remote_spare(names text[], timeout_ms integer)
RETURNS boolean[]
AS 'MODULE_PATHNAME', 'ranread_remote_spare'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

CREATE OR REPLACE FUNCTION ranread_internal.ranread_remote_probe(names text[], sql text, timeout_ms integer)
RETURNS text[]
AS 'MODULE_PATHNAME', 'ranread_remote_probe'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

CREATE OR REPLACE FUNCTION ranread_internal.ranread_remote_state(name text)
RETURNS text
AS 'MODULE_PATHNAME', 'ranread_remote_state'
LANGUAGE C STRICT VOLATILE PARALLEL UNSAFE;

CREATE OR REPLACE FUNCTION ranread_internal.ranread_remote_close(names text[])
RETURNS void
AS 'MODULE_PATHNAME', 'ranread_remote_close'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

CREATE OR REPLACE FUNCTION ranread_internal.ranread_remote_last_words(name text, sql text)
RETURNS void
AS 'MODULE_PATHNAME', 'ranread_remote_last_words'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

-- ranread_nodes holds no password, in any spelling libpq would take, and
-- only strings libpq can read (a refusal quotes none of it, and the
-- statement's text is logged without it)
CREATE OR REPLACE FUNCTION ranread_internal.ranread_nodes_check()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    problem text;
BEGIN
    PERFORM ranread_internal.ranread_conninfo_hide(ARRAY[NEW.conninfo]);
    problem := ranread_internal.ranread_conninfo_problem(NEW.conninfo);
    IF problem IS NOT NULL THEN
        RAISE EXCEPTION USING
            ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('invalid connection string of node "%s": %s', NEW.name, problem),
            HINT = 'A connection string is libpq''s: keyword = value pairs such as ''host=db2 port=5432 dbname=app'', or a postgresql:// URI.';
    END IF;
    IF ranread_internal.ranread_conninfo_has_password(NEW.conninfo) THEN
        RAISE EXCEPTION USING
            ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('connection string of node "%s" holds a password', NEW.name),
            HINT = 'ranread never stores a password: put it in a password file of the server''s operating-system user (~/.pgpass, or passfile= in the connection string).';
    END IF;
    RETURN NEW;
END
$$;

CREATE OR REPLACE TRIGGER ranread_nodes_no_password
    BEFORE INSERT OR UPDATE ON @extschema@.ranread_nodes
    FOR EACH ROW EXECUTE FUNCTION ranread_internal.ranread_nodes_check();

-- The epoch second a node's second of measurement belongs to: the instant
-- its measurement was due (start_at + warmup, told to every node and read by
-- its own clock) rounded to the second, plus the second's number.  A fleet
-- starts on a whole second, so every node's second n falls on the same epoch
-- second, however late one node's first I/O came.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_fleet_align(due timestamptz, second integer)
RETURNS timestamptz
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT to_timestamp(round(extract(epoch FROM $1)) + $2)
$$;

-- VMFleet's check-outlier: for each node, whether its IOPS is below 0.8x
-- the median of the nodes' IOPS (NULLs are no node's figure and no outlier).
CREATE OR REPLACE FUNCTION ranread_internal.ranread_fleet_outliers(iops float8[])
RETURNS boolean[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT array_agg(CASE WHEN v IS NULL THEN NULL ELSE v < 0.8 * m.median END ORDER BY o)
      FROM unnest($1) WITH ORDINALITY AS t(v, o),
           (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY x) AS median
              FROM unnest($1) AS x WHERE x IS NOT NULL) m
$$;

-- A fleet's status from its nodes': the coordinator's own end (cancelled,
-- failed) first; else failed when a node failed or was lost, stopped or cancelled when
-- a node was, completed when every node that ran completed (skipped nodes
-- did not run).
CREATE OR REPLACE FUNCTION ranread_internal.ranread_fleet_status(statuses text[], coordinator text DEFAULT NULL)
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE
        WHEN $2 IS NOT NULL THEN $2
        WHEN 'failed' = ANY ($1) THEN 'failed'
        WHEN 'lost' = ANY ($1) THEN 'failed'
        WHEN 'running' = ANY ($1) THEN 'failed'
        WHEN 'stopped' = ANY ($1) THEN 'stopped'
        WHEN 'cancelled' = ANY ($1) THEN 'cancelled'
        WHEN 'completed' = ANY ($1) THEN 'completed'
        ELSE 'failed' END
$$;

-- The fleet's figures from its nodes' (a jsonb array of ranread_fleet_nodes
-- rows, as the coordinator holds them) and their seconds (an array of
-- ranread_fleet_seconds rows):
--   reads, writes           summed over the nodes' whole batches (every node
--                           with a batch, whatever its status)
--   window_*                the common window: the epoch seconds in which
--                           every node that has seconds did I/O, with their
--                           real lengths (a node's last second is shorter):
--                           window_seconds is the window's real length
--   iops, mbps              the I/Os of every node in the window over its
--                           real length: per second, the nodes' IOPS summed
--                           (each over its own second's real length), the
--                           seconds weighted by the time all nodes ran in
--                           them (the shortest of the nodes'); MiB/s from
--                           block_size
--   avg_ms                  weighted by each node's I/Os
--   p50 ... p999_ms         from the merged histograms of every node
--   max_ms                  the largest of any node
--   start_spread_ms         the spread of the nodes' first I/Os, each on the
--                           coordinator's clock (first_io_at - offset_ms)
CREATE OR REPLACE FUNCTION ranread_internal.ranread_fleet_totals(nodes jsonb, seconds jsonb, block_size integer,
    OUT reads bigint, OUT writes bigint, OUT window_start timestamptz, OUT window_end timestamptz,
    OUT window_seconds float8, OUT iops float8, OUT mbps float8, OUT avg_ms float8,
    OUT p50_ms float8, OUT p95_ms float8, OUT p99_ms float8, OUT p999_ms float8,
    OUT max_ms float8, OUT histogram bytea, OUT start_spread_ms float8)
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    SELECT sum(n.reads), sum(n.writes),
           sum(n.avg_ms * (n.reads + n.writes)) / nullif(sum(n.reads + n.writes) FILTER (WHERE n.avg_ms IS NOT NULL), 0),
           max(n.max_ms),
           @extschema@.ranread_hist_merge(n.histogram),
           extract(epoch FROM max(n.first_io_at - n.offset_ms * interval '1 ms')
                             - min(n.first_io_at - n.offset_ms * interval '1 ms')) * 1000
      INTO reads, writes, avg_ms, max_ms, histogram, start_spread_ms
      FROM jsonb_populate_recordset(NULL::@extschema@.ranread_fleet_nodes, coalesce(nodes, '[]')) n
     WHERE n.batch IS NOT NULL;

    IF histogram IS NOT NULL AND @extschema@.ranread_hist_count(histogram) > 0 THEN
        p50_ms := @extschema@.ranread_hist_percentile(histogram, 50);
        p95_ms := @extschema@.ranread_hist_percentile(histogram, 95);
        p99_ms := @extschema@.ranread_hist_percentile(histogram, 99);
        p999_ms := @extschema@.ranread_hist_percentile(histogram, 99.9);
    END IF;

    WITH s AS (SELECT x.at, x.node, x.iops, greatest(coalesce(x.elapsed, 1), 0) AS elapsed
                 FROM jsonb_populate_recordset(NULL::@extschema@.ranread_fleet_seconds, coalesce(seconds, '[]')) x),
         per AS (SELECT s.at, count(DISTINCT s.node) AS n, sum(s.iops) AS iops, min(s.elapsed) AS len
                   FROM s GROUP BY s.at),
         common AS (SELECT * FROM per WHERE per.n = (SELECT count(DISTINCT node) FROM s))
    SELECT min(c.at), max(c.at + c.len * interval '1 s'), sum(c.len),
           sum(c.iops * c.len) / nullif(sum(c.len), 0)
      INTO window_start, window_end, window_seconds, iops
      FROM common c;
    IF NOT window_seconds > 0 THEN
        window_seconds := NULL;
        iops := NULL;
    END IF;
    mbps := iops * block_size / 1048576.0;
END
$$;

-- A fleet whose coordinator ended without recording its end (its session
-- was terminated, its server stopped): the fleet failed, its nodes still
-- 'running' lost, with a message that says where their batches are.  Run
-- through the coordinator's recorder when the coordinator is terminated
-- (its last words, src/fleet/registry.c), and by every fleet for the fleets whose
-- coordinator is gone (fleet NULL).  Returns the fleets fixed up.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_fleet_abandon(fleet bigint DEFAULT NULL,
    reason text DEFAULT NULL)
RETURNS integer
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    ids bigint[];
    why text := coalesce(reason, 'the fleet''s coordinator ended without recording its end: its session was terminated or its server stopped');
BEGIN
    SELECT array_agg(f.fleet) INTO ids
      FROM @extschema@.ranread_fleets f
     WHERE f.status = 'running'
       AND (f.fleet = $1 OR ($1 IS NULL
            AND NOT ranread_internal.ranread_fleet_live(f.coordinator_pid, f.coordinator_start)));
    IF ids IS NULL THEN
        RETURN 0;
    END IF;
    UPDATE @extschema@.ranread_fleet_nodes n
       SET status = 'lost',
           message = format('%s; this node''s batch, if it ran one, is in its own history (ranread_batches.fleet = %s there)', why, n.fleet)
     WHERE n.fleet = ANY (ids) AND n.status = 'running';
    UPDATE @extschema@.ranread_fleets f
       SET status = 'failed', finished_at = clock_timestamp(), message = why
     WHERE f.fleet = ANY (ids) AND f.status = 'running';
    RETURN cardinality(ids);
END
$$;

-- Is a fleet whose row says 'running' still running?  Its coordinator's
-- session is; otherwise it ended without writing its end (the session was
-- terminated, the server restarted) and is shown as failed.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_fleet_live(pid integer, backend_start timestamptz)
RETURNS boolean
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT EXISTS (SELECT FROM pg_stat_activity a
                    WHERE a.pid = $1 AND a.backend_start = $2)
$$;

-- One row per fleet: its figures whole, how many nodes completed, the
-- outliers (what the fleet's charts, report and export read).
CREATE OR REPLACE VIEW ranread_internal.ranread_fleet_summary_raw AS
SELECT f.fleet, f.started_at, f.nodes, f.processes,
       f.processes * f.nodes AS total_processes,
       CASE WHEN f.status = 'running'
                 AND NOT ranread_internal.ranread_fleet_live(f.coordinator_pid, f.coordinator_start)
            THEN 'failed' ELSE f.status END AS status,
       (SELECT count(*) FROM @extschema@.ranread_fleet_nodes n
         WHERE n.fleet = f.fleet AND n.status = 'completed')::integer AS nodes_completed,
       f.reads, f.writes, f.window_seconds, f.iops, f.mbps, f.avg_ms, f.p50_ms,
       f.p95_ms, f.p99_ms, f.p999_ms, f.max_ms, f.start_at, f.start_spread_ms,
       f.offset_spread_ms, f.max_rtt_ms,
       (SELECT array_agg(n.name ORDER BY n.node) FROM @extschema@.ranread_fleet_nodes n
         WHERE n.fleet = f.fleet AND n.outlier) AS outliers,
       CASE WHEN f.status = 'running'
                 AND NOT ranread_internal.ranread_fleet_live(f.coordinator_pid, f.coordinator_start)
            THEN coalesce(f.message, 'the fleet''s coordinator ended without recording its end: its session was terminated or the server restarted')
            ELSE f.message END AS message,
       f.sweep, f.definition
  FROM @extschema@.ranread_fleets f;

-- The fleet per second: the nodes' seconds summed by epoch second, how
-- long all of them ran in it (the shortest of their seconds: the last one
-- ends early), and whether the second is in the common window; figures
-- whole.
CREATE OR REPLACE VIEW ranread_internal.ranread_fleet_series_raw AS
SELECT s.fleet, s.at,
       (extract(epoch FROM s.at - f.start_at))::integer AS second,
       count(*)::integer AS nodes,
       sum(s.reads)::bigint AS reads, sum(s.writes)::bigint AS writes,
       sum(s.iops) AS iops,
       sum(s.avg_ms * (s.reads + s.writes)) / nullif(sum(s.reads + s.writes) FILTER (WHERE s.avg_ms IS NOT NULL), 0) AS avg_ms,
       max(s.max_ms) AS max_ms,
       min(s.elapsed) AS elapsed,
       coalesce(s.at >= f.window_start AND s.at < f.window_end, false) AS in_window
  FROM @extschema@.ranread_fleet_seconds s
  JOIN @extschema@.ranread_fleets f USING (fleet)
 GROUP BY s.fleet, s.at, f.start_at, f.window_start, f.window_end
 ORDER BY s.fleet, s.at;

-- The fleets and their seconds as a person reads them (docs/fleet.md): IOPS whole, MiB/s to 0.1, seconds and ms to 0.001.
CREATE OR REPLACE VIEW @extschema@.ranread_fleet_summary AS
SELECT f.fleet, f.started_at, f.nodes, f.processes, f.total_processes, f.status,
       f.nodes_completed, f.reads, f.writes,
       ranread_internal.ranread_round(f.window_seconds, 3)::numeric(12,3) AS window_seconds,
       ranread_internal.ranread_round(f.iops, 0)::bigint AS iops,
       ranread_internal.ranread_round(f.mbps, 1)::numeric(14,1) AS mbps,
       ranread_internal.ranread_round(f.avg_ms, 3)::numeric(15,3) AS avg_ms,
       ranread_internal.ranread_round(f.p50_ms, 3)::numeric(15,3) AS p50_ms,
       ranread_internal.ranread_round(f.p95_ms, 3)::numeric(15,3) AS p95_ms,
       ranread_internal.ranread_round(f.p99_ms, 3)::numeric(15,3) AS p99_ms,
       ranread_internal.ranread_round(f.p999_ms, 3)::numeric(15,3) AS p999_ms,
       ranread_internal.ranread_round(f.max_ms, 3)::numeric(15,3) AS max_ms,
       f.start_at,
       ranread_internal.ranread_round(f.start_spread_ms, 3)::numeric(15,3) AS start_spread_ms,
       ranread_internal.ranread_round(f.offset_spread_ms, 3)::numeric(15,3) AS offset_spread_ms,
       ranread_internal.ranread_round(f.max_rtt_ms, 3)::numeric(15,3) AS max_rtt_ms,
       f.outliers, f.message, f.sweep, f.definition
  FROM ranread_internal.ranread_fleet_summary_raw f;

CREATE OR REPLACE VIEW @extschema@.ranread_fleet_series AS
SELECT v.fleet, v.at, v.second, v.nodes, v.reads, v.writes,
       ranread_internal.ranread_round(v.iops, 0)::bigint AS iops,
       ranread_internal.ranread_round(v.avg_ms, 3)::numeric(15,3) AS avg_ms,
       ranread_internal.ranread_round(v.max_ms, 3)::numeric(15,3) AS max_ms,
       ranread_internal.ranread_round(v.elapsed, 3)::numeric(12,3) AS elapsed,
       v.in_window
  FROM ranread_internal.ranread_fleet_series_raw v;
