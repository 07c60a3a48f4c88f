-- State, mixed workloads (1.1): one row per group of a batch, and the row
-- types ranread_mix and ranread_run_step return.

-- 1.1: one row per group of processes per batch (a plain batch has one):
-- what the group did and its figures, percentiles from the merged
-- histograms of its processes.
CREATE TABLE @extschema@.ranread_groups (
    batch          bigint NOT NULL,
    grp            integer NOT NULL,
    label          text NOT NULL,
    target         name NOT NULL,
    tablespace     name,
    processes      integer NOT NULL,
    iterations     bigint,
    block_size     integer NOT NULL,
    queue_depth    integer NOT NULL,
    write_pct      integer NOT NULL,
    pattern        text NOT NULL,
    region_start   float8 NOT NULL,
    region_end     float8 NOT NULL,
    rate_iops      integer,
    distribution   text NOT NULL,
    reads          bigint NOT NULL,
    writes         bigint NOT NULL,
    seconds        float8 NOT NULL,
    iops           float8 NOT NULL,
    mbps           float8 NOT NULL,
    avg_ms         float8,
    min_ms         float8,
    p50_ms         float8,
    p95_ms         float8,
    p99_ms         float8,
    p999_ms        float8,
    max_ms         float8,
    read_avg_ms    float8,
    read_p99_ms    float8,
    write_avg_ms   float8,
    write_p99_ms   float8,
    busy           float8,
    first_io_at    timestamptz,
    histogram      bytea NOT NULL,
    write_histogram bytea,
    sync           text,        -- how its writes were made durable; NULL: plain
    writes_per_op  integer NOT NULL DEFAULT 1,  -- commit test: writes per sync
    -- as in ranread_batches; a worker that drives streams of several groups
    -- shares its CPU among them by their I/Os
    cpu_user_pct   float8,
    cpu_sys_pct    float8,
    cpu_us_per_io  float8,
    device         text,
    device_util_pct float8,
    lat_stddev_ms  float8,
    -- as in ranread_batches: the group's verify option and what it found
    verify         boolean,
    verify_checked bigint,
    verify_skipped bigint,
    verify_errors  bigint,
    verify_corrupt bigint,
    verify_wrong_block bigint,
    verify_lost    bigint,
    -- 1.2: as in ranread_batches, the group's path and what the caches
    -- answered of its server-path reads
    path           text CHECK (path IN ('device', 'server')),
    effective_io_concurrency integer,
    shared_hits    bigint,
    page_cache_hits bigint,
    cache_pct      float8,
    -- 1.2: how many background workers drove its processes (workers drive
    -- one group each unless too few were free: ranread_results.worker)
    workers        integer,
    PRIMARY KEY (batch, grp)
);

SELECT pg_catalog.pg_extension_config_dump('@extschema@.ranread_groups', '');

-- 1.1: what ranread_mix returns, one row per group and one for the batch
CREATE TYPE @extschema@.ranread_group_result AS (
    batch       bigint,
    grp         integer,
    label       text,
    processes   integer,
    reads       bigint,
    writes      bigint,
    seconds     numeric(12,3),
    iops        bigint,
    mbps        numeric(14,1),
    avg_ms      numeric(15,3),
    p50_ms      numeric(15,3),
    p95_ms      numeric(15,3),
    p99_ms      numeric(15,3),
    p999_ms     numeric(15,3),
    max_ms      numeric(15,3),
    status      text
);

-- The same row with the figures whole, as ranread_run_step returns them to
-- the sweeps, studies and searches that decide on them (the rounding is for
-- a person: ranread_group_result).
CREATE TYPE ranread_internal.ranread_step_result AS (
    batch       bigint,
    grp         integer,
    label       text,
    processes   integer,
    reads       bigint,
    writes      bigint,
    seconds     float8,
    iops        float8,
    mbps        float8,
    avg_ms      float8,
    p50_ms      float8,
    p95_ms      float8,
    p99_ms      float8,
    p999_ms     float8,
    max_ms      float8,
    status      text
);
