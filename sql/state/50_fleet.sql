-- State, the fleet (1.1): one batch on many PostgreSQL servers at once.
-- Each node records its own batch, as any batch, with the fleet's id in
-- ranread_batches.fleet.  The coordinator keeps the fleet (ranread_fleets),
-- one row per node (ranread_fleet_nodes) and the nodes' seconds aligned by
-- epoch second (ranread_fleet_seconds), written through a connection to its
-- own database in transactions of their own (sql/code/50_fleet.sql).
-- Connection strings are stored without passwords.

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
    window_seconds   float8,
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
-- status 'lost': the coordinator gave the node up (it did not answer within
-- ranread's bound, or the coordinator itself ended); its own history has
-- its batch (ranread_batches.fleet there).
CREATE TABLE @extschema@.ranread_fleet_nodes (
    fleet        bigint NOT NULL,
    node         integer NOT NULL,
    name         text NOT NULL,
    conninfo     text NOT NULL,
    batch        bigint,
    status       text NOT NULL
        CHECK (status IN ('running', 'completed', 'stopped', 'cancelled', 'failed', 'skipped', 'lost')),
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
-- began on the node's clock (see ranread_fleet_align); elapsed is the
-- second's real length (1, the last one's less or a little more), iops the
-- node's I/Os over it.
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
    elapsed   float8 NOT NULL DEFAULT 1,
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
-- Its figures rounded as the other results are (IOPS whole, MiB/s to 0.1,
-- seconds and ms to 0.001); the coordinator, the charts and the export
-- work with ranread_internal.ranread_fleet_result_raw, the same row with
-- its figures whole, rounded only as the rows go out
-- (ranread_internal.ranread_fleet_round).
CREATE TYPE @extschema@.ranread_fleet_result AS (
    fleet       bigint,
    node        integer,
    name        text,
    batch       bigint,
    status      text,
    reads       bigint,
    writes      bigint,
    seconds     numeric(12,3),
    iops        bigint,
    mbps        numeric(14,1),
    avg_ms      numeric(15,3),
    p50_ms      numeric(15,3),
    p99_ms      numeric(15,3),
    p999_ms     numeric(15,3),
    max_ms      numeric(15,3),
    offset_ms   numeric(15,3),
    rtt_ms      numeric(15,3),
    first_io_ms numeric(15,3),
    outlier     boolean,
    message     text
);

CREATE TYPE ranread_internal.ranread_fleet_result_raw AS (
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
    loopback         text,
    io_priority      text,      -- 1.2
    verify           boolean,   -- 1.2
    path             text,      -- 1.2
    effective_io_concurrency integer    -- 1.2
);

-- The coordinator's own view of one node, kept as one record per node in
-- an array (a plpgsql variable: what the coordinator knows of its nodes
-- survives the rollback of the block a cancel interrupts, where a
-- temporary table's rows would not).  node is its place in the fleet
-- (1, 2, ...); cname the name of its connection (src/fleet/); schema and
-- system what the probe found there; state ready, skipped, running, done,
-- cancelled, failed or lost, with message, code (SQLSTATE) and hint;
-- offset_ms and rtt_ms its clock; alive_at when it was last seen at work;
-- once collected, batch what its batch recorded (as ranread_fleet_answer
-- keeps it) or unread why it could not be read, and reader the connection
-- it is read over while the fleet collects.
CREATE TYPE ranread_internal.ranread_fleet_node_state AS (
    node      integer,
    name      text,
    conninfo  text,
    cname     text,
    schema    text,
    system    text,
    state     text,
    message   text,
    code      text,
    hint      text,
    offset_ms float8,
    rtt_ms    float8,
    alive_at  timestamptz,
    batch     jsonb,        -- 1.2
    unread    text,         -- 1.2
    reader    text          -- 1.2
);

-- The coordinator's own view of the fleet it runs (1.2): what each step of
-- its loop (ranread_internal.ranread_fleet_run, sql/code/51_fleet_loop.sql)
-- takes and returns, a plpgsql variable as the nodes' records are.  fleet
-- its id, fn the function called (for messages), sweep the fleet sweep it
-- is a step of; recorder the name of its connection back to this database
-- and rec_conn that connection's string; nodes one record per node; spread
-- the spread of their clock offsets (ms); spec the workload every node
-- runs, from start_at; started once it is recorded as running (from then
-- on an interrupted fleet records its end); due_end when a run by duration
-- stops the nodes that have not answered, probe_at when a run by
-- iterations next looks for their workers; interrupted how the call ended
-- when it did not end well (cancelled, failed); node_rows, seconds and
-- fleet_row what it records at its end (ranread_fleet_nodes,
-- ranread_fleet_seconds and ranread_fleets rows, in jsonb).
CREATE TYPE ranread_internal.ranread_fleet_call AS (
    fleet       bigint,
    fn          text,
    sweep       bigint,
    recorder    text,
    rec_conn    text,
    nodes       ranread_internal.ranread_fleet_node_state[],
    spread      float8,
    spec        jsonb,
    start_at    timestamptz,
    started     boolean,
    due_end     timestamptz,
    probe_at    timestamptz,
    interrupted text,
    node_rows   jsonb,
    seconds     jsonb,
    fleet_row   jsonb
);
