-- The fleet's types (ranread_fleet, 51_fleet_run.sql): apart from its
-- functions, so that 51_fleet_run.sql holds only what CREATE OR REPLACE
-- makes again and an upgrade can include it whole.

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

-- The coordinator's own view of one node, kept as one record per node in
-- an array (a plpgsql variable: what the coordinator knows of its nodes
-- survives the rollback of the block a cancel interrupts, where a
-- temporary table's rows would not).  node is its place in the fleet
-- (1, 2, ...); cname the name of its connection (src/remote.c); schema and
-- system what the probe found there; state ready, skipped, running, done,
-- cancelled, failed or lost, with message, code (SQLSTATE) and hint;
-- offset_ms and rtt_ms its clock; alive_at when it was last seen at work.
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
    alive_at  timestamptz
);
