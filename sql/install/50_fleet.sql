-- 1.1, the fleet: one batch on many PostgreSQL servers at once (issue 16).
-- This part holds the fleet's history (tables, views) and the pure rules
-- (connection strings without their passwords, the fleet's figures from its
-- nodes' figures, outliers, status); 51_fleet_run.sql runs a fleet through
-- dblink, 52_fleet_report.sql sweeps, charts and exports it.  New in 1.1,
-- so the upgrade script includes these files whole.
--
-- How a fleet is kept.  Each node records its own batch, as any batch, with
-- the fleet's id in ranread_batches.fleet.  The coordinator keeps the fleet
-- (ranread_fleets), one row per node (ranread_fleet_nodes) and the nodes'
-- seconds aligned by epoch second (ranread_fleet_seconds).  It writes them
-- through a dblink connection to its own database, in transactions of their
-- own: a cancel, a statement_timeout or a ROLLBACK of the coordinator's call
-- loses none of them.  Connection strings are stored without passwords.

CREATE SEQUENCE @extschema@.ranread_fleet_seq;
SELECT pg_catalog.pg_extension_config_dump('@extschema@.ranread_fleet_seq', '');

-- Named nodes, so that ranread_fleet(ARRAY['db1', 'db2'], ...) reads well.
-- Never a password here (a trigger refuses one): use a password file.
CREATE TABLE @extschema@.ranread_nodes (
    name       text PRIMARY KEY,
    conninfo   text NOT NULL,
    note       text
);
SELECT pg_catalog.pg_extension_config_dump('@extschema@.ranread_nodes', '');

-- One row per fleet: what was asked, when it started, how it went, and the
-- fleet's figures.  iops and mbps are the nodes' summed over the common
-- window (the epoch seconds in which every node that ran did I/O);
-- percentiles come from the merged histograms of every node.
CREATE TABLE @extschema@.ranread_fleets (
    fleet            bigint PRIMARY KEY,
    started_at       timestamptz NOT NULL,
    finished_at      timestamptz,
    started_by       name NOT NULL DEFAULT CURRENT_USER,
    coordinator_pid  integer,
    coordinator_start timestamptz,
    definition       jsonb NOT NULL,
    nodes            integer NOT NULL,
    processes        integer NOT NULL,
    start_at         timestamptz,
    offset_spread_ms float8,
    max_rtt_ms       float8,
    start_spread_ms  float8,
    status           text NOT NULL
        CHECK (status IN ('running', 'completed', 'stopped', 'cancelled', 'failed')),
    message          text,
    window_start     timestamptz,
    window_end       timestamptz,
    window_seconds   integer,
    reads            bigint,
    writes           bigint,
    iops             float8,
    mbps             float8,
    avg_ms           float8,
    p50_ms           float8,
    p95_ms           float8,
    p99_ms           float8,
    p999_ms          float8,
    max_ms           float8,
    histogram        bytea,
    sweep            bigint
);
SELECT pg_catalog.pg_extension_config_dump('@extschema@.ranread_fleets', '');

-- One row per node of a fleet: its batch there and that batch's figures,
-- as the node recorded them, and what the coordinator measured: its clock
-- offset (node minus coordinator) and round trip before the start, and how
-- late its first I/O came after start_at (+ warmup), on its own clock.
CREATE TABLE @extschema@.ranread_fleet_nodes (
    fleet        bigint NOT NULL,
    node         integer NOT NULL,
    name         text NOT NULL,
    conninfo     text NOT NULL,
    batch        bigint,
    status       text NOT NULL
        CHECK (status IN ('running', 'completed', 'stopped', 'cancelled', 'failed', 'skipped')),
    message      text,
    offset_ms    float8,
    rtt_ms       float8,
    first_io_at  timestamptz,
    late_ms      float8,
    reads        bigint,
    writes       bigint,
    seconds      float8,
    iops         float8,
    mbps         float8,
    avg_ms       float8,
    p50_ms       float8,
    p95_ms       float8,
    p99_ms       float8,
    p999_ms      float8,
    max_ms       float8,
    histogram    bytea,
    outlier      boolean,
    PRIMARY KEY (fleet, node)
);
SELECT pg_catalog.pg_extension_config_dump('@extschema@.ranread_fleet_nodes', '');

-- Each node's seconds (ranread_intervals there), at the epoch second they
-- began on the node's clock (see ranread_fleet_align).
CREATE TABLE @extschema@.ranread_fleet_seconds (
    fleet     bigint NOT NULL,
    node      integer NOT NULL,
    at        timestamptz NOT NULL,
    second    integer NOT NULL,
    reads     bigint NOT NULL,
    writes    bigint NOT NULL,
    iops      float8 NOT NULL,
    avg_ms    float8,
    max_ms    float8,
    PRIMARY KEY (fleet, node, at)
);
SELECT pg_catalog.pg_extension_config_dump('@extschema@.ranread_fleet_seconds', '');

-- One row per fleet sweep (ranread_fleet_sweep): the sweep method with the
-- fleet's totals, processes per node doubling; each step is a fleet with
-- this sweep id in ranread_fleets.sweep.  Sweep ids come from
-- ranread_sweep_seq, so they never collide with ranread_sweep's.
CREATE TABLE @extschema@.ranread_fleet_sweeps (
    sweep              bigint PRIMARY KEY,
    started_at         timestamptz NOT NULL,
    finished_at        timestamptz,
    started_by         name NOT NULL DEFAULT CURRENT_USER,
    nodes              text[] NOT NULL,
    definition         jsonb NOT NULL,
    start              integer NOT NULL,
    max_processes      integer NOT NULL,
    max_avg_ms         float8 NOT NULL,
    steps              integer NOT NULL DEFAULT 0,
    stop_reason        text,
    -- the verdict, for the whole fleet: the highest fleet IOPS of a step
    -- within max_avg_ms, its average latency, processes per node and fleet
    max_iops           float8,
    actual_latency_ms  float8,
    max_iops_processes integer,
    max_iops_fleet     bigint,
    meets_flash_guidance boolean
);
SELECT pg_catalog.pg_extension_config_dump('@extschema@.ranread_fleet_sweeps', '');

-- What ranread_fleet returns: one row per node, then the fleet (node 0),
-- whose offset_ms, rtt_ms and first_io_ms are the spread of the nodes'
-- clock offsets, the largest round trip and the spread of their first I/Os.
CREATE TYPE @extschema@.ranread_fleet_result AS (
    fleet       bigint,
    node        integer,
    name        text,
    batch       bigint,
    status      text,
    reads       bigint,
    writes      bigint,
    seconds     float8,
    iops        float8,
    mbps        float8,
    avg_ms      float8,
    p50_ms      float8,
    p99_ms      float8,
    p999_ms     float8,
    max_ms      float8,
    offset_ms   float8,
    rtt_ms      float8,
    first_io_ms float8,
    outlier     boolean,
    message     text
);

-- A libpq connection string cut into its keyword = value pairs, each with
-- the text it came from, as libpq reads it: values in single quotes with
-- backslash escapes, or up to the next blank.  A URI
-- (postgresql://user:secret@host/db?password=...) gives the pieces that
-- can hold a password: "password" pairs for the one after the user name and
-- for each password parameter.  Malformed text is an error that quotes
-- none of it (it may hold a password).
CREATE OR REPLACE FUNCTION @extschema@.ranread_conninfo_pairs(conninfo text)
RETURNS TABLE (keyword text, value text, piece text)
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    n     integer := length(conninfo);
    i     integer := 1;
    st    integer;
    c     text;
    m     text[];
    q     text;
BEGIN
    IF conninfo ~* '^postgres(ql)?://' THEN
        m := regexp_match(conninfo, '^[a-zA-Z]+://([^@/]*)@');
        IF m IS NOT NULL AND strpos(m[1], ':') > 0 THEN
            keyword := 'password';
            value := @extschema@.ranread_percent_decode(substr(m[1], strpos(m[1], ':') + 1));
            piece := ':' || substr(m[1], strpos(m[1], ':') + 1);
            RETURN NEXT;
        END IF;
        q := substring(conninfo FROM '\?(.*)$');
        IF q IS NOT NULL THEN
            FOR c IN SELECT unnest(string_to_array(q, '&')) LOOP
                keyword := @extschema@.ranread_percent_decode(split_part(c, '=', 1));
                value := @extschema@.ranread_percent_decode(substr(c, length(split_part(c, '=', 1)) + 2));
                piece := c;
                RETURN NEXT;
            END LOOP;
        END IF;
        RETURN;
    END IF;

    LOOP
        WHILE i <= n AND substr(conninfo, i, 1) ~ '\s' LOOP i := i + 1; END LOOP;
        EXIT WHEN i > n;
        st := i;
        keyword := '';
        WHILE i <= n AND substr(conninfo, i, 1) !~ '[\s=]' LOOP
            keyword := keyword || substr(conninfo, i, 1);
            i := i + 1;
        END LOOP;
        WHILE i <= n AND substr(conninfo, i, 1) ~ '\s' LOOP i := i + 1; END LOOP;
        IF keyword = '' OR i > n OR substr(conninfo, i, 1) <> '=' THEN
            RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
                MESSAGE = 'invalid connection string: a keyword without "= value"';
        END IF;
        i := i + 1;
        WHILE i <= n AND substr(conninfo, i, 1) ~ '\s' LOOP i := i + 1; END LOOP;
        value := '';
        IF substr(conninfo, i, 1) = '''' THEN
            i := i + 1;
            LOOP
                IF i > n THEN
                    RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
                        MESSAGE = 'invalid connection string: a quoted value without its closing quote';
                END IF;
                c := substr(conninfo, i, 1);
                EXIT WHEN c = '''';
                IF c = '\' AND i < n THEN
                    i := i + 1;
                    c := substr(conninfo, i, 1);
                END IF;
                value := value || c;
                i := i + 1;
            END LOOP;
            i := i + 1;
        ELSE
            WHILE i <= n AND substr(conninfo, i, 1) !~ '\s' LOOP
                c := substr(conninfo, i, 1);
                IF c = '\' AND i < n THEN
                    i := i + 1;
                    c := substr(conninfo, i, 1);
                END IF;
                value := value || c;
                i := i + 1;
            END LOOP;
        END IF;
        piece := substr(conninfo, st, i - st);
        RETURN NEXT;
    END LOOP;
END
$$;

-- %XX escapes of a URI decoded (bytes as UTF-8; an invalid escape stays)
CREATE OR REPLACE FUNCTION @extschema@.ranread_percent_decode(s text)
RETURNS text
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    out bytea := '';
    i   integer := 1;
BEGIN
    IF strpos(s, '%') = 0 THEN
        RETURN s;
    END IF;
    WHILE i <= length(s) LOOP
        IF substr(s, i, 1) = '%' AND substr(s, i + 1, 2) ~ '^[0-9a-fA-F]{2}$' THEN
            out := out || decode(substr(s, i + 1, 2), 'hex');
            i := i + 3;
        ELSE
            out := out || convert_to(substr(s, i, 1), 'UTF8');
            i := i + 1;
        END IF;
    END LOOP;
    RETURN convert_from(out, 'UTF8');
EXCEPTION WHEN character_not_in_repertoire OR untranslatable_character THEN
    RETURN s;
END
$$;

-- A connection string as it may be shown and stored: every password taken
-- out (the pair, or a URI's ":secret" and password parameter), the rest as
-- written.  Passwords belong in a password file (~/.pgpass or passfile=).
CREATE OR REPLACE FUNCTION @extschema@.ranread_conninfo_strip(conninfo text)
RETURNS text
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    out    text;
    q      text;
BEGIN
    IF conninfo ~* '^postgres(ql)?://' THEN
        out := conninfo;
        -- the user's ":secret" before the first @ (and before any /)
        out := regexp_replace(out, '^([a-zA-Z]+://[^@/:]*):[^@/]*@', '\1@');
        q := substring(out FROM '\?(.*)$');
        IF q IS NOT NULL THEN
            SELECT string_agg(x, '&' ORDER BY o) INTO q
              FROM unnest(string_to_array(q, '&')) WITH ORDINALITY AS t(x, o)
             WHERE @extschema@.ranread_percent_decode(split_part(x, '=', 1)) NOT IN ('password', 'sslpassword');
            out := substring(out FROM '^[^?]*') || coalesce('?' || q, '');
        END IF;
        RETURN out;
    END IF;
    SELECT string_agg(x.piece, ' ') INTO out
      FROM @extschema@.ranread_conninfo_pairs(conninfo) AS x
     WHERE x.keyword NOT IN ('password', 'sslpassword');
    RETURN coalesce(out, '');
END
$$;

-- The passwords a connection string holds, to blank them out of any text
-- (an error of libpq or of a node) before it is shown or stored.
CREATE OR REPLACE FUNCTION @extschema@.ranread_conninfo_scrub(msg text, conninfo text)
RETURNS text
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    p      record;
BEGIN
    IF msg IS NULL OR conninfo IS NULL THEN
        RETURN msg;
    END IF;
    FOR p IN SELECT x.value, x.piece FROM @extschema@.ranread_conninfo_pairs(conninfo) AS x
              WHERE x.keyword IN ('password', 'sslpassword') AND x.value <> ''
              ORDER BY length(x.piece) DESC LOOP
        msg := replace(replace(msg, p.piece, '********'), p.value, '********');
    END LOOP;
    RETURN msg;
EXCEPTION WHEN invalid_parameter_value THEN
    -- a string we cannot read: say nothing that came from it
    RETURN '(a message withheld: it may hold a password of an unreadable connection string)';
END
$$;

-- A value quoted for a connection string
CREATE OR REPLACE FUNCTION @extschema@.ranread_conninfo_quote(v text)
RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT '''' || replace(replace(v, '\', '\\'), '''', '\''') || ''''
$$;

-- ranread_nodes holds no password
CREATE OR REPLACE FUNCTION @extschema@.ranread_nodes_check()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF NEW.conninfo IS DISTINCT FROM @extschema@.ranread_conninfo_strip(NEW.conninfo) THEN
        RAISE EXCEPTION USING
            ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('connection string of node "%s" holds a password', NEW.name),
            HINT = 'ranread never stores a password: put it in a password file of the server''s operating-system user (~/.pgpass, or passfile= in the connection string).';
    END IF;
    RETURN NEW;
EXCEPTION WHEN invalid_parameter_value THEN
    IF SQLERRM LIKE 'invalid connection string%' THEN
        RAISE EXCEPTION USING
            ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('invalid connection string of node "%s"', NEW.name),
            HINT = 'A connection string is libpq''s: keyword = value pairs such as ''host=db2 port=5432 dbname=app'', or a postgresql:// URI.';
    END IF;
    RAISE;
END
$$;

CREATE TRIGGER ranread_nodes_no_password
    BEFORE INSERT OR UPDATE ON @extschema@.ranread_nodes
    FOR EACH ROW EXECUTE FUNCTION @extschema@.ranread_nodes_check();

-- The epoch second a node's second of measurement belongs to: the instant
-- its measurement was due (start_at + warmup, told to every node and read by
-- its own clock) rounded to the second, plus the second's number.  A fleet
-- starts on a whole second, so every node's second n falls on the same epoch
-- second, however late one node's first I/O came.
CREATE OR REPLACE FUNCTION @extschema@.ranread_fleet_align(due timestamptz, second integer)
RETURNS timestamptz
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT to_timestamp(round(extract(epoch FROM $1)) + $2)
$$;

-- VMFleet's check-outlier: for each node, whether its IOPS is below 0.8x
-- the median of the nodes' IOPS (NULLs are no node's figure and no outlier).
CREATE OR REPLACE FUNCTION @extschema@.ranread_fleet_outliers(iops float8[])
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
-- failed) first; else failed when a node failed, stopped or cancelled when
-- a node was, completed when every node that ran completed (skipped nodes
-- did not run).
CREATE OR REPLACE FUNCTION @extschema@.ranread_fleet_status(statuses text[], coordinator text DEFAULT NULL)
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE
        WHEN $2 IS NOT NULL THEN $2
        WHEN 'failed' = ANY ($1) THEN 'failed'
        WHEN 'running' = ANY ($1) THEN 'failed'
        WHEN 'stopped' = ANY ($1) THEN 'stopped'
        WHEN 'cancelled' = ANY ($1) THEN 'cancelled'
        WHEN 'completed' = ANY ($1) THEN 'completed'
        ELSE 'failed' END
$$;

-- The fleet's figures from its nodes' (a jsonb array of ranread_fleet_nodes
-- rows, as the coordinator holds them) and their seconds (an array of
-- ranread_fleet_seconds rows):
--   reads, writes           summed over the nodes' whole batches
--   window_*                the common window: the epoch seconds in which
--                           every node that has seconds did I/O
--   iops, mbps              per second of the window, the nodes' IOPS summed;
--                           averaged over the window (MiB/s from block_size)
--   avg_ms                  weighted by each node's I/Os
--   p50 ... p999_ms         from the merged histograms of every node
--   max_ms                  the largest of any node
--   start_spread_ms         the spread of the nodes' first I/Os, each on the
--                           coordinator's clock (first_io_at - offset_ms)
CREATE OR REPLACE FUNCTION @extschema@.ranread_fleet_totals(nodes jsonb, seconds jsonb, block_size integer,
    OUT reads bigint, OUT writes bigint, OUT window_start timestamptz, OUT window_end timestamptz,
    OUT window_seconds integer, OUT iops float8, OUT mbps float8, OUT avg_ms float8,
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

    WITH s AS (SELECT * FROM jsonb_populate_recordset(NULL::@extschema@.ranread_fleet_seconds, coalesce(seconds, '[]'))),
         per AS (SELECT s.at, count(DISTINCT s.node) AS n, sum(s.iops) AS iops
                   FROM s GROUP BY s.at),
         common AS (SELECT * FROM per WHERE per.n = (SELECT count(DISTINCT node) FROM s))
    SELECT min(c.at), max(c.at) + interval '1 s', count(*), avg(c.iops)
      INTO window_start, window_end, window_seconds, iops
      FROM common c;
    IF window_seconds = 0 THEN
        window_seconds := NULL;
    END IF;
    mbps := iops * block_size / 1048576.0;
END
$$;

-- Is a fleet whose row says 'running' still running?  Its coordinator's
-- session is; otherwise it ended without writing its end (the session was
-- terminated, the server restarted) and is shown as failed.
CREATE OR REPLACE FUNCTION @extschema@.ranread_fleet_live(pid integer, backend_start timestamptz)
RETURNS boolean
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT EXISTS (SELECT FROM pg_stat_activity a
                    WHERE a.pid = $1 AND a.backend_start = $2)
$$;

-- One row per fleet: its figures, how many nodes completed, the outliers.
CREATE OR REPLACE VIEW @extschema@.ranread_fleet_summary AS
SELECT f.fleet, f.started_at, f.nodes, f.processes,
       f.processes * f.nodes AS total_processes,
       CASE WHEN f.status = 'running'
                 AND NOT @extschema@.ranread_fleet_live(f.coordinator_pid, f.coordinator_start)
            THEN 'failed' ELSE f.status END AS status,
       (SELECT count(*) FROM @extschema@.ranread_fleet_nodes n
         WHERE n.fleet = f.fleet AND n.status = 'completed')::integer AS nodes_completed,
       f.reads, f.writes, f.window_seconds, f.iops, f.mbps, f.avg_ms, f.p50_ms,
       f.p95_ms, f.p99_ms, f.p999_ms, f.max_ms, f.start_at, f.start_spread_ms,
       f.offset_spread_ms, f.max_rtt_ms,
       (SELECT array_agg(n.name ORDER BY n.node) FROM @extschema@.ranread_fleet_nodes n
         WHERE n.fleet = f.fleet AND n.outlier) AS outliers,
       CASE WHEN f.status = 'running'
                 AND NOT @extschema@.ranread_fleet_live(f.coordinator_pid, f.coordinator_start)
            THEN coalesce(f.message, 'the fleet''s coordinator ended without recording its end: its session was terminated or the server restarted')
            ELSE f.message END AS message,
       f.sweep, f.definition
  FROM @extschema@.ranread_fleets f;

-- The fleet per second: the nodes' seconds summed by epoch second, and
-- whether the second is in the common window.
CREATE OR REPLACE VIEW @extschema@.ranread_fleet_series AS
SELECT s.fleet, s.at,
       (extract(epoch FROM s.at - f.start_at))::integer AS second,
       count(*)::integer AS nodes,
       sum(s.reads)::bigint AS reads, sum(s.writes)::bigint AS writes,
       sum(s.iops) AS iops,
       sum(s.avg_ms * (s.reads + s.writes)) / nullif(sum(s.reads + s.writes) FILTER (WHERE s.avg_ms IS NOT NULL), 0) AS avg_ms,
       max(s.max_ms) AS max_ms,
       coalesce(s.at >= f.window_start AND s.at < f.window_end, false) AS in_window
  FROM @extschema@.ranread_fleet_seconds s
  JOIN @extschema@.ranread_fleets f USING (fleet)
 GROUP BY s.fleet, s.at, f.start_at, f.window_start, f.window_end
 ORDER BY s.fleet, s.at;
