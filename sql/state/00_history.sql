\echo Use "CREATE EXTENSION ranread" to load this file. \quit

-- State: the history of batches (one row per batch, per process, per
-- second), the sweeps, the catalog of targets and the row types the core
-- functions return.  Tables, types and sequences only: sql/README.md says
-- what goes where, and how a change to them reaches an existing database.


-- Internal helpers live apart from the functions users call, on no one's
-- search_path; the functions that use them name them with the schema.
CREATE SCHEMA ranread_internal;

-- Batch ids survive rollbacks: nextval is not transactional.
CREATE SEQUENCE @extschema@.ranread_batch_seq;
CREATE SEQUENCE @extschema@.ranread_sweep_seq;

-- One row per batch, written by the batch's recording worker in its own
-- transactions: inserted as 'running' before the first I/O, completed after
-- the last.  The batch's figures are computed once, from the merged
-- histograms of its processes, so the summary never re-aggregates.
CREATE TABLE @extschema@.ranread_batches (
    batch          bigint PRIMARY KEY,
    run_at         timestamptz NOT NULL,
    finished_at    timestamptz,
    target         name NOT NULL,
    tablespace     name,
    processes      integer NOT NULL,
    iterations     bigint,
    duration       interval,
    block_size     integer,
    queue_depth    integer,
    write_pct      integer,
    pattern        text,
    region_start   float8,
    region_end     float8,
    warmup         interval,
    rate_iops      integer,
    seed           bigint NOT NULL,
    workers        integer NOT NULL,
    engine         text NOT NULL,
    reads          bigint,
    writes         bigint,
    seconds        float8,
    iops           float8,
    mbps           float8,
    avg_ms         float8,
    min_ms         float8,
    p50_ms         float8,
    p95_ms         float8,
    p99_ms         float8,
    p999_ms        float8,
    max_ms         float8,
    read_avg_ms    float8,
    read_p99_ms    float8,
    read_max_ms    float8,
    write_avg_ms   float8,
    write_p99_ms   float8,
    write_max_ms   float8,
    histogram      bytea,
    write_histogram bytea,
    status         text NOT NULL
        CHECK (status IN ('running', 'completed', 'stopped', 'cancelled', 'failed')),
    message        text,
    sweep          bigint,
    started_by     name,
    -- what the I/O buffers were made of: huge (2 MB pages), small, mixed
    buffer_pages   text CHECK (buffer_pages IN ('huge', 'small', 'mixed')),
    -- 1.1: the type of the filesystem the target's files were on, whether
    -- every I/O was timed (ranread.timing), the Little's law check (the
    -- processes' latencies over seconds x queue depth; about 1 when no
    -- latency went missing), and what a reader should know
    filesystem     text,
    timing         boolean,
    busy           float8,
    notes          text,
    -- 1.1, mixed workloads: how many groups of processes ran at once (a
    -- plain batch is one; a mix's definition is kept as given, and its
    -- per-group options are NULL here: see ranread_groups), the access
    -- distribution of a one-group batch, when its first I/O started, and
    -- steady state: the option asked for, whether the run ended early on
    -- it, and for every duration run SNIA's verdict over five rounds (max -
    -- min within 20% of the mean, least-squares slope x 4 within 10%)
    groups         integer,
    mix            jsonb,
    distribution   text,
    first_io_at    timestamptz,
    steady_state   text,
    ended_steady   boolean,
    steady         boolean,
    steady_excursion float8,
    steady_slope   float8,
    -- 1.1: how a one-group batch's writes were made durable (the sync
    -- option; NULL: plain O_DIRECT writes), the instant it was told to start
    -- at (start_at), and what it was part of: a study (and its point there),
    -- a fleet (the coordinator's fleet id), a commit test
    sync           text,
    start_at       timestamptz,
    study          bigint,
    point          jsonb,
    fleet          bigint,
    commit_test    bigint,
    -- 1.1, what fio shows beside latency: the workers' CPU over the measured
    -- window (user and system, in % of one CPU summed over workers, and CPU
    -- time per I/O), the block device under the target and the share of the
    -- measured time it was busy (its /sys stat; NULL where the filesystem has
    -- no block device of its own: btrfs, overlay, NFS, FUSE), and the sample
    -- standard deviation of the latencies (exact, not from the buckets)
    cpu_user_pct   float8,
    cpu_sys_pct    float8,
    cpu_us_per_io  float8,
    device         text,
    device_util_pct float8,
    lat_stddev_ms  float8,
    -- 1.1, verified writes and reads (the verify option): whether a group
    -- verified, pages read and checked, pages read while a write of theirs
    -- was in flight (not checked), bad blocks and bad blocks of each kind,
    -- each block once however often it was read (ranread_verify_errors has
    -- the first); NULL where nothing verified
    verify         boolean,
    verify_checked bigint,
    verify_skipped bigint,
    verify_errors  bigint,
    verify_corrupt bigint,
    verify_wrong_block bigint,
    verify_lost    bigint,
    -- 1.2: the workers' I/O priority (the io_priority option, as
    -- 'idle', 'best-effort:N' or 'realtime:N'); NULL: the server's own kept
    io_priority    text,
    -- 1.2, the server path (docs/server-path.md): which way the
    -- reads went (device: O_DIRECT; server: through shared buffers and the
    -- page cache; NULL where a mix's groups differ), the server path's
    -- prefetch distance, what the caches answered of its measured reads
    -- (shared buffers, else the page cache, and both in % of its reads) and
    -- the server's settings in force; NULL where nothing read that way
    path           text CHECK (path IN ('device', 'server')),
    effective_io_concurrency integer,
    shared_hits    bigint,
    page_cache_hits bigint,
    cache_pct      float8,
    server_settings jsonb,
    -- 1.2: whether every worker's I/O buffers were registered with its
    -- engine (io_uring; beside buffer_pages, the layout they had), and how
    -- long after the batch's start the latest worker began its I/O, ms (a
    -- busy server; each worker measures its whole duration from its start)
    buffers_registered boolean,
    start_late_ms  float8
);
CREATE INDEX ranread_batches_run_at ON @extschema@.ranread_batches (run_at);
CREATE INDEX ranread_batches_sweep ON @extschema@.ranread_batches (sweep)
    WHERE sweep IS NOT NULL;

-- One row per process (I/O stream) per batch.
CREATE TABLE @extschema@.ranread_results (
    batch          bigint NOT NULL,
    process        integer NOT NULL,
    run_at         timestamptz NOT NULL,
    target         name NOT NULL,
    processes      integer NOT NULL,
    iterations     bigint,
    block_size     integer NOT NULL,
    queue_depth    integer NOT NULL,
    write_pct      integer NOT NULL,
    pattern        text NOT NULL,
    reads          bigint NOT NULL,
    writes         bigint NOT NULL,
    seconds        float8 NOT NULL,
    iops           float8 NOT NULL,
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
    histogram      bytea NOT NULL,
    write_histogram bytea,
    status         text NOT NULL,
    busy           float8,
    grp            integer NOT NULL DEFAULT 1,  -- 1.1: the group of the process
    lat_stddev_ms  float8,      -- 1.1: the latencies' standard deviation
    worker         integer,     -- 1.2: the background worker that drove it (1..)
    PRIMARY KEY (batch, process)
);

-- Per batch, group and second of the measured part: throttling and burst
-- credits show here.  A batch's seconds are the sums over its groups.
CREATE TABLE @extschema@.ranread_intervals (
    batch          bigint NOT NULL,
    second         integer NOT NULL,
    reads          bigint NOT NULL,
    writes         bigint NOT NULL,
    iops           float8 NOT NULL,
    avg_ms         float8,
    max_ms         float8,
    grp            integer NOT NULL DEFAULT 1,  -- 1.1
    -- 1.1: the second's latency histogram, every process of the group
    -- merged (docs/charts-and-reports.md, "Percentiles over time"); NULL where
    -- not taken
    histogram      bytea,
    PRIMARY KEY (batch, grp, second)
);

-- Targets: which relation backs which target name.  Not dumped: the
-- relations are extension members and never leave the server.
CREATE TABLE @extschema@.ranread_target_catalog (
    target         name PRIMARY KEY,
    relid          oid NOT NULL,
    tablespace     name NOT NULL,
    size_bytes     bigint NOT NULL,
    created_at     timestamptz NOT NULL DEFAULT pg_catalog.now()
);

SELECT pg_catalog.pg_extension_config_dump('@extschema@.ranread_batches', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.ranread_results', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.ranread_intervals', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.ranread_batch_seq', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.ranread_sweep_seq', '');

CREATE TYPE @extschema@.ranread_setup_result AS (
    target      name,
    tablespace  name,
    size_bytes  bigint,
    seconds     numeric(12,3),
    mbps        numeric(14,1)
);

CREATE TYPE @extschema@.ranread_run_result AS (
    batch       bigint,
    target      name,
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

-- One row per sweep, written by ranread_sweep when it returns, in the
-- caller's transaction.  The batches of a sweep are recorded by their
-- workers and survive a sweep that is cancelled half-way (they carry the
-- sweep id in ranread_batches.sweep); this row does not, and ranread_chart
-- then falls back to the default bound of 10 ms.
CREATE TABLE @extschema@.ranread_sweeps (
    sweep              bigint PRIMARY KEY,
    started_at         timestamptz NOT NULL,
    finished_at        timestamptz NOT NULL,
    started_by         name NOT NULL DEFAULT CURRENT_USER,
    target             name NOT NULL,
    block_size         integer NOT NULL,
    write_pct          integer NOT NULL,
    queue_depth        integer NOT NULL,
    pattern            text NOT NULL,
    start              integer NOT NULL,
    max_processes      integer NOT NULL,
    iterations         bigint,
    duration           interval,
    max_avg_ms         float8 NOT NULL,
    steps              integer NOT NULL,
    stop_reason        text,
    -- The verdict: the highest IOPS of a step whose average latency stayed
    -- within max_avg_ms, and that step (CALIBRATE_IO's max_iops and
    -- actual_latency).  NULL when no step stayed within the bound.
    max_iops           float8,
    actual_latency_ms  float8,
    max_iops_processes integer,
    max_iops_batch     bigint,
    -- All-flash guidance at that step: average <= 2 ms and maximum <= 5 ms.
    meets_flash_guidance boolean NOT NULL,
    -- what no sweep records (ranread_internal.ranread_sweep_record): a bound
    -- or verdict that is not a finite number (the bound above 0), a time
    -- that is not finite, a workload ranread_sweep refuses
    CONSTRAINT ranread_sweeps_max_avg_ms_finite
        CHECK (max_avg_ms > 0 AND max_avg_ms < 'Infinity'::float8),
    CONSTRAINT ranread_sweeps_verdict_finite
        CHECK ((max_iops IS NULL OR (max_iops >= 0 AND max_iops < 'Infinity'::float8))
               AND (actual_latency_ms IS NULL OR (actual_latency_ms >= 0 AND actual_latency_ms < 'Infinity'::float8))),
    CONSTRAINT ranread_sweeps_workload
        CHECK (pg_catalog.isfinite(started_at) AND pg_catalog.isfinite(finished_at)
               AND block_size > 0 AND write_pct BETWEEN 0 AND 100 AND queue_depth >= 1
               AND start >= 1 AND max_processes >= start AND steps >= 0)
);

SELECT pg_catalog.pg_extension_config_dump('@extschema@.ranread_sweeps', '');

-- One step of a sweep, as the decision functions see it.
CREATE TYPE @extschema@.ranread_sweep_step AS (
    step       integer,
    processes  integer,
    batch      bigint,
    iops       float8,
    avg_ms     float8,
    p99_ms     float8,
    max_ms     float8,
    status     text
);
