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
-- State: targets are relations of ranread's own table access method
-- (src/target/target_am.c: VACUUM, VACUUM FULL, ANALYZE and anti-wraparound
-- autovacuum leave a target alone), in a schema of their own.  The
-- handler function is part of the access method (it names a C symbol and
-- never changes), so it lives here with it; the guard that keeps
-- privileges off targets is code (sql/code/01_access_method.sql).

-- src/target/target_am.c: VACUUM, VACUUM FULL,
-- ANALYZE and anti-wraparound autovacuum leave a target alone.
CREATE FUNCTION ranread_internal.ranread_target_handler(internal)
RETURNS table_am_handler
AS 'MODULE_PATHNAME', 'ranread_target_handler'
LANGUAGE C;

CREATE ACCESS METHOD ranread_target TYPE TABLE HANDLER ranread_internal.ranread_target_handler;


-- Where targets live: a schema of the extension's own, on nobody's
-- search_path, with no privilege for anyone but the extension's owner.
-- GRANT ... ON ALL TABLES IN SCHEMA of the users' schemas never reaches a
-- target there, and no other role can name (or lock) one.  (src/target/target.c)
CREATE SCHEMA ranread_target;
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
-- State, the commit path (1.1, src/advise/commit.c): the ids of commit tests.

CREATE SEQUENCE @extschema@.ranread_commit_test_seq;
SELECT pg_catalog.pg_extension_config_dump('@extschema@.ranread_commit_test_seq', '');
-- State, the power-loss durability check (1.1, src/advise/durability.c;
-- docs/writes-and-durability.md, "Does the storage keep what it flushes?").

CREATE SEQUENCE @extschema@.ranread_durability_seq;
SELECT pg_catalog.pg_extension_config_dump('@extschema@.ranread_durability_seq', '');

-- One row per durability test: what ranread_durability_start wrote and the
-- log of it (acknowledged: the last write the storage acknowledged, each
-- committed to this server's WAL on other storage as soon as acknowledged),
-- then what ranread_durability_check read back.
CREATE TABLE @extschema@.ranread_durability (
    durability     bigint PRIMARY KEY DEFAULT pg_catalog.nextval('@extschema@.ranread_durability_seq'),
    started        timestamptz NOT NULL DEFAULT pg_catalog.now(),
    tablespace     name NOT NULL,
    method         text NOT NULL,
    duration       interval NOT NULL,
    blocks         bigint NOT NULL,
    log            text,
    status         text NOT NULL DEFAULT 'running'
                   CHECK (status IN ('running', 'written', 'checked')),
    acknowledged   bigint NOT NULL DEFAULT 0,
    last_ack       timestamptz,
    stop_requested boolean NOT NULL DEFAULT false,
    written_until  timestamptz,
    ended_by       text,        -- why the writes ended before their duration (NULL: they did not)
    checked        timestamptz,
    checked_writes bigint,
    lost           bigint,
    torn           bigint,
    unacknowledged bigint,
    first_lost     bigint,
    verdict        text
);
SELECT pg_catalog.pg_extension_config_dump('@extschema@.ranread_durability', '');
-- State, verified writes and reads (1.1, docs/writes-and-durability.md
-- "Verified writes"): the bad blocks a batch's verify or ranread_verify found.

-- The first bad blocks (at most 100) of every batch that verified, and of
-- every ranread_verify call (batch and grp NULL; the rows of one call share
-- its start time, at).  kind: corrupt (no ranread stamp, or the page's
-- checksum does not match), wrong_block (a whole page of another block or
-- target: a misdirected write), lost (older than a write the batch had
-- acknowledged before the read), missing (past the end of a truncated file).
CREATE TABLE @extschema@.ranread_verify_errors (
    batch          bigint,
    grp            integer,
    target         name NOT NULL,
    block          bigint NOT NULL,
    kind           text NOT NULL CHECK (kind IN ('corrupt', 'wrong_block', 'lost', 'missing')),
    expected       text NOT NULL,
    found          text NOT NULL,
    at             timestamptz NOT NULL
);
CREATE INDEX ranread_verify_errors_batch ON @extschema@.ranread_verify_errors (batch);

SELECT pg_catalog.pg_extension_config_dump('@extschema@.ranread_verify_errors', '');
-- State, the latency-target search (1.1): the ids of searches and the row
-- type of one window.  A search is recorded in its batches (their point);
-- sql/code/21_latency_target.sql says how.

CREATE SEQUENCE @extschema@.ranread_latency_target_seq;
SELECT pg_catalog.pg_extension_config_dump('@extschema@.ranread_latency_target_seq', '');

-- One window of a search, as the rule sees it: its load (queue depth or
-- processes), its batch and figures, the share of its I/Os within the
-- bound (percent) and its latency at the search's percentile.
CREATE TYPE @extschema@.ranread_latency_step AS (
    step        integer,
    load        integer,
    batch       bigint,
    iops        float8,
    within_pct  float8,
    latency_ms  float8,
    status      text
);
-- State, settings advice (1.1): the row types ranread_advise's steps pass
-- between them (sql/code/22_advise.sql says how they are used).

-- ranread_advise's steps and helpers (schema ranread_internal)

-- A batch advice may rest on, as ranread_advise_history gives it; or a
-- figure, as ranread_advise_figure gives it: the medians of comparable
-- batches, the latest of them as batch and run_at, all of them in batches,
-- and how much they vary.
CREATE TYPE ranread_internal.ranread_advise_batch AS (
    batch        bigint,
    run_at       timestamptz,
    target       name,
    measured     name,          -- the tablespace the batch measured
    kind         text,          -- random or sequential
    processes    integer,
    queue_depth  integer,
    block_size   integer,
    iops         float8,
    mbps         float8,
    avg_ms       float8,
    stale        text,          -- why it does not count, or NULL
    target_bytes bigint,        -- the size of its target, if it is still there
    n            integer,       -- a figure: how many batches
    batches      bigint[],      -- which, in order
    iops_spread  float8,        -- (max - min) / median of their IOPS (= of MiB/s); NULL for one
    ms_spread    float8         -- and of their average latency
);

-- Everything a row of advice follows from: the call's choices, the place,
-- and the figures gathered from the history (NULL where there are none).
CREATE TYPE ranread_internal.ranread_advise_evidence AS (
    tablespace        name,     -- the tablespace advised
    reference         name,     -- the database's default: its sequential page is the unit
    target            name,     -- the target to measure with, as to_measure names it
    setup             text,     -- the statement that makes it, when there is none yet
    cache_hit_ratio   float8,
    max_avg_ms        float8,
    duration          interval,
    random_qd1        ranread_internal.ranread_advise_batch,  -- QD1 random 8 KiB read
    seq_one           ranread_internal.ranread_advise_batch,  -- one process, sequential
    seq_most          ranread_internal.ranread_advise_batch,  -- the most MiB/s by several processes
    seq_reference     ranread_internal.ranread_advise_batch,  -- one process, sequential, on the reference
    curve_concurrency integer[],  -- random reads: the latest batch at each concurrency
    curve_iops        float8[],
    curve_avg_ms      float8[],
    curve_batches     bigint[],
    curve_text        text,
    curve_spread      float8,     -- the most the curve's points vary (iops_spread)
    ram_bytes         bigint,     -- the server's RAM
    cache_withholds   boolean,    -- a cache may have answered: no advice from the figures
    cache_note        text,       -- why, or why not although the target is small
    commit_test       bigint,     -- the commit test on pg_wal wal_sync_method rests on
    commit_run_at     timestamptz,
    commit_filesystem text,
    commit_batches    bigint[],
    commit_method     text,
    commit_measured   text,
    commit_note       text,
    commit_skipped    text        -- the later commit tests that do not count, and why
);

-- One row of advice, as ranread_advise returns it.
CREATE TYPE ranread_internal.ranread_advice AS (
    setting          text,
    server_value     text,
    tablespace_value text,
    suggested        text,
    scope            text,
    figures          text,
    formula          text,
    apply_sql        text,
    to_measure       text,
    batches          bigint[],
    warning          text
);

-- A check of a function's arguments: when failed, the error to raise.
CREATE TYPE ranread_internal.ranread_check AS (
    failed   boolean,
    errcode  text,
    message  text,
    hint     text
);
-- State, studies (1.1): the row of each study that returned, the sequence
-- of study ids and the row type ranread_study returns
-- (sql/code/40_study.sql says what is recorded when).

CREATE SEQUENCE @extschema@.ranread_study_seq;
SELECT pg_catalog.pg_extension_config_dump('@extschema@.ranread_study_seq', '');

-- One row per study that returned (finished, or ended by a stop or a
-- failed point): what was asked for and how it went.
CREATE TABLE @extschema@.ranread_studies (
    study           bigint PRIMARY KEY,
    kind            text NOT NULL,          -- 'study', or the profile's name
    started_at      timestamptz NOT NULL,
    finished_at     timestamptz NOT NULL,
    started_by      name NOT NULL DEFAULT CURRENT_USER,
    target          name NOT NULL,
    call            text NOT NULL,          -- the exact call, to run it again
    definition      jsonb NOT NULL,         -- dimensions, matrix, options
    planned         integer NOT NULL,       -- points in the grid
    completed       integer NOT NULL,       -- points whose batch completed
    skipped         integer NOT NULL,       -- points left out by early_end
    max_avg_ms      float8,                 -- the latency bound of charts and verdicts
    stop_reason     text,                   -- NULL when every point ran
    -- what no study records (ranread_internal.ranread_study_record): a
    -- bound that is not a finite number above 0, a time that is not finite,
    -- more points completed or skipped than planned
    CONSTRAINT ranread_studies_max_avg_ms_finite
        CHECK (max_avg_ms IS NULL OR (max_avg_ms > 0 AND max_avg_ms < 'Infinity'::float8)),
    CONSTRAINT ranread_studies_counts
        CHECK (pg_catalog.isfinite(started_at) AND pg_catalog.isfinite(finished_at)
               AND planned >= 0 AND completed >= 0 AND skipped >= 0 AND completed + skipped <= planned)
);
SELECT pg_catalog.pg_extension_config_dump('@extschema@.ranread_studies', '');

-- What ranread_study returns: one row per point, run or skipped.
CREATE TYPE @extschema@.ranread_study_result AS (
    study          bigint,
    n              integer,
    batch          bigint,
    row_label      text,
    column_label   text,
    point          jsonb,
    iops           bigint,
    mbps           numeric(14,1),
    avg_ms         numeric(15,3),
    p99_ms         numeric(15,3),
    max_ms         numeric(15,3),
    status         text
);
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
-- State, keeping watch on the storage (1.1, docs/keeping-watch.md "Keeping
-- watch"): probes (small paced batches of a tablespace, each beside its batch
-- in ranread_batches), the thresholds a tablespace is judged by, its baseline,
-- and the verdict of every probe.

-- One row per probe: which batch it was, the tablespace it watched, when it
-- ran, and the pg_cron job that ran it (NULL when called by hand).  No
-- foreign key to ranread_batches: ranread_reset is to remove both together,
-- and a dump restores either table without ordering them.  Only the probe
-- writes a row (as the extension's owner, 61_probe.sql), at the time its
-- batch ran: always a finite time (1.2), as a row at 'infinity' would stay
-- the latest of its tablespace for ever.
CREATE TABLE @extschema@.ranread_probes (
    batch          bigint PRIMARY KEY,
    tablespace     name NOT NULL,
    probed_at      timestamptz NOT NULL DEFAULT pg_catalog.now()
                   CONSTRAINT ranread_probes_probed_at_finite CHECK (pg_catalog.isfinite(probed_at)),
    job            text
);
CREATE INDEX ranread_probes_tablespace ON @extschema@.ranread_probes (tablespace, probed_at);
SELECT pg_catalog.pg_extension_config_dump('@extschema@.ranread_probes', '');

-- What a probe of a tablespace is judged by: the p99 above which its
-- status is degraded and critical, the change that counts as slower, how
-- many first probes make its baseline when none is pinned, the tests'
-- significance level, and (1.2) how many probes in a row must show a
-- status before the tablespace takes it.  A tablespace without a row has
-- the defaults (5 ms, 10 ms, 1.25, 5, 0.001, 3).
CREATE TABLE @extschema@.ranread_health_thresholds (
    tablespace       name PRIMARY KEY,
    p99_degraded_ms  float8 NOT NULL DEFAULT 5,
    p99_critical_ms  float8 NOT NULL DEFAULT 10,
    slower_factor    float8 NOT NULL DEFAULT 1.25,
    baseline_probes  integer NOT NULL DEFAULT 5,
    alpha            float8 NOT NULL DEFAULT 0.001,
    hold_probes      integer NOT NULL DEFAULT 3
                     CONSTRAINT ranread_health_thresholds_hold_probes CHECK (hold_probes BETWEEN 2 AND 100),
    CHECK (p99_degraded_ms > 0 AND p99_critical_ms > p99_degraded_ms),
    CHECK (slower_factor >= 1 AND slower_factor <= 1000),
    CHECK (baseline_probes BETWEEN 1 AND 1000),
    CHECK (alpha > 0 AND alpha < 1)
);
SELECT pg_catalog.pg_extension_config_dump('@extschema@.ranread_health_thresholds', '');

-- The baseline of a tablespace: the batches it merges and their merged
-- histogram; pinned by ranread_baseline_set, or else the first
-- baseline_probes probes since "since" (the tablespace's first probe, or
-- its last ranread_baseline_reset).  1.2: the probes of an automatic
-- baseline that differ from the rest of them (a stall) are left out of its
-- histogram, named in left_out, with why.
CREATE TABLE @extschema@.ranread_baselines (
    tablespace  name PRIMARY KEY,
    batches     bigint[] NOT NULL DEFAULT '{}',
    histogram   bytea,
    pinned      boolean NOT NULL DEFAULT false,
    since       timestamptz NOT NULL DEFAULT pg_catalog.now(),
    set_at      timestamptz,
    left_out    bigint[] NOT NULL DEFAULT '{}',
    left_out_reason text
);
SELECT pg_catalog.pg_extension_config_dump('@extschema@.ranread_baselines', '');

-- A verdict per probe: the probe's figures, its baseline's, the comparison
-- and the status.  verdict 'baseline': the probe is one of the first that
-- make the baseline; NULL: its batch has no latency histogram.  1.2:
-- probe_status is what the probe alone shows, status the tablespace's
-- after it (a change needs hold_probes probes in a row: probes), test and
-- effect the test that decided the probe's reading and its effect with an
-- interval (factor_low, factor_high for a comparison's factor).
CREATE TABLE @extschema@.ranread_probe_verdicts (
    batch            bigint PRIMARY KEY,
    tablespace       name NOT NULL,
    probed_at        timestamptz NOT NULL,
    ios              bigint,
    iops             float8,
    p50_ms           float8,
    p99_ms           float8,
    baseline_p50_ms  float8,
    baseline_p99_ms  float8,
    p50_factor       float8,
    p99_factor       float8,
    verdict          text CHECK (verdict IN ('baseline', 'same', 'slower', 'faster')),
    factor           float8,
    confidence       float8,
    status           text NOT NULL CHECK (status IN ('ok', 'slower', 'degraded', 'critical', 'unknown')),
    previous_status  text,
    reason           text,
    probe_status     text CHECK (probe_status IN ('ok', 'slower', 'degraded', 'critical', 'unknown')),
    test             text,
    effect           text,
    factor_low       float8,
    factor_high      float8,
    probes           bigint[]
);
CREATE INDEX ranread_probe_verdicts_tablespace ON @extschema@.ranread_probe_verdicts (tablespace, probed_at);
SELECT pg_catalog.pg_extension_config_dump('@extschema@.ranread_probe_verdicts', '');
-- The guard that keeps privileges off targets (their access method and
-- schema are state: sql/state/01_targets.sql).

COMMENT ON ACCESS METHOD ranread_target IS 'ranread targets: benchmark data that maintenance leaves alone';
COMMENT ON SCHEMA ranread_target IS 'ranread targets: benchmark data that ranread_setup makes and ranread_purge drops; no privileges';

-- Targets take no privileges: pg_dump never dumps a target (an extension
-- member made after CREATE EXTENSION) but would dump a grant on one, and
-- the restore of that grant would fail.  A GRANT that reaches a target is
-- refused, and so is a REVOKE that leaves one with other than its owner's
-- default privileges; ranread_setup takes default privileges off a new one.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_target_grant_check()
RETURNS event_trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    rel regclass;
BEGIN
    SELECT c.oid INTO rel
      FROM pg_class c
     WHERE (c.relnamespace = to_regnamespace('ranread_target')
            OR c.relam = (SELECT a.oid FROM pg_am a WHERE a.amname = 'ranread_target'))
       AND c.relacl IS NOT NULL
       AND c.relacl <> acldefault('r', c.relowner)
     LIMIT 1;
    IF rel IS NOT NULL THEN
        RAISE EXCEPTION 'ranread target relation % takes no privileges', rel
            USING ERRCODE = 'invalid_grant_operation',
                  DETAIL = 'A target is benchmark data that only ranread reads. pg_dump never dumps a target, so it would dump the grant without the relation, and the restore would fail.',
                  HINT = 'Targets are in schema ranread_target, apart from every other schema: grant on the tables of the other schemas only. A role that runs ranread needs EXECUTE on its functions, and pg_monitor reads ranread_targets.';
    END IF;
END
$$;

-- (made once: an event trigger has no CREATE OR REPLACE)
DO $$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_catalog.pg_event_trigger
                    WHERE evtname OPERATOR(pg_catalog.=) 'ranread_target_grants') THEN
        CREATE EVENT TRIGGER ranread_target_grants ON ddl_command_end
            WHEN TAG IN ('GRANT', 'REVOKE')
            EXECUTE FUNCTION ranread_internal.ranread_target_grant_check();
    END IF;
END
$$;
-- also under session_replication_role = replica (a restore, a replica's apply)
ALTER EVENT TRIGGER ranread_target_grants ENABLE ALWAYS;
-- 1.1, the commit path: pg_test_fsync's tests as batches (src/advise/commit.c).


-- Each test of a commit test is a batch (ranread_batches.commit_test names
-- the run; ranread_commit_summary, in 05_views.sql, shows them); tablespace
-- is 'pg_wal' for the WAL's filesystem.  Its rows' figures are rounded
-- (ops/s whole, ms to 0.001: src/run/figures.c, figures_datum).  1.2: mode
-- 'server' times open_datasync and open_sync as this server opens its WAL
-- (O_DIRECT only at wal_level minimal), 'pg_test_fsync' with O_DIRECT as
-- pg_test_fsync does (calls says how each test wrote); the one 8 kB write
-- of each durable method runs in rounds until the methods' intervals tell
-- or max_duration (NULL: 3 x duration) is spent, its row the rounds' mean
-- ops/s with their 95% interval (ops_low, ops_high) and batches.
CREATE OR REPLACE FUNCTION @extschema@.ranread_commit_test(
    tablespace   name     DEFAULT NULL,
    duration     interval DEFAULT '5s',
    methods      text[]   DEFAULT NULL,
    mode         text     DEFAULT 'server',
    max_duration interval DEFAULT NULL)
RETURNS TABLE (commit_test bigint, batch bigint, test text, method text,
               writes integer, write_kb integer, ops_per_s bigint,
               avg_ms numeric, p50_ms numeric, p99_ms numeric, p999_ms numeric,
               max_ms numeric, durable boolean, status text, note text,
               calls text, rounds integer, ops_low bigint, ops_high bigint, batches bigint[])
AS 'MODULE_PATHNAME', 'ranread_commit_test'
LANGUAGE C CALLED ON NULL INPUT VOLATILE ROWS 15;
-- 1.1, the power-loss durability check (src/advise/durability.c;
-- docs/writes-and-durability.md, "Does the storage keep what it flushes?").

COMMENT ON TABLE @extschema@.ranread_durability IS
    'ranread durability tests: writes acknowledged by the storage (the log) and what read back after the power cut';

CREATE OR REPLACE FUNCTION ranread_internal.ranread_durability_create(durability bigint, tablespace name,
    method text, blocks bigint, local_log boolean)
RETURNS text AS 'MODULE_PATHNAME', 'ranread_durability_create'
LANGUAGE C CALLED ON NULL INPUT VOLATILE;
CREATE OR REPLACE FUNCTION ranread_internal.ranread_durability_write(durability bigint, method text,
    seq bigint, blocks bigint)
RETURNS void AS 'MODULE_PATHNAME', 'ranread_durability_write'
LANGUAGE C STRICT VOLATILE;
CREATE OR REPLACE FUNCTION ranread_internal.ranread_durability_read(durability bigint, blocks bigint,
    acknowledged bigint, OUT checked bigint, OUT lost bigint, OUT torn bigint,
    OUT unacknowledged bigint, OUT first_lost bigint)
AS 'MODULE_PATHNAME', 'ranread_durability_read'
LANGUAGE C STRICT VOLATILE;
CREATE OR REPLACE FUNCTION ranread_internal.ranread_durability_drop(durability bigint)
RETURNS boolean AS 'MODULE_PATHNAME', 'ranread_durability_drop'
LANGUAGE C STRICT VOLATILE;

-- The log on another server (log_conninfo): connect as
-- 'ranread_durability_log' (src/fleet/: every wait bounded, cancel
-- honoured, no password stored or shown), refuse this very server, make
-- the log table there.  durability > 0: start that test's log row, keep
-- the connection; < 0: return the acknowledged writes logged for test
-- -durability; 0: check only.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_durability_log_connect(conninfo text, sysid bigint,
    durability bigint)
RETURNS bigint
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    why   text;
    there bigint;
    acked text;
BEGIN
    why := (ranread_internal.ranread_remote_connect(ARRAY['ranread_durability_log'], ARRAY[conninfo], 15000))[1];
    IF why IS NOT NULL THEN
        RAISE EXCEPTION 'cannot reach the log server of the durability test (log_conninfo): %', why
            USING ERRCODE = 'connection_failure',
                  HINT = 'log_conninfo names another server that takes connections from this one; nothing was written.';
    END IF;
    there := ranread_internal.ranread_remote_query('ranread_durability_log',
        'SELECT system_identifier FROM pg_control_system()', 10000)::bigint;
    IF there = sysid THEN
        PERFORM ranread_internal.ranread_remote_close(ARRAY['ranread_durability_log']);
        RAISE EXCEPTION 'log_conninfo of the durability test reaches this server itself (system identifier %)', sysid
            USING ERRCODE = 'invalid_parameter_value',
                  DETAIL = 'Its log would be lost with the acknowledged writes in a power cut of this server.',
                  HINT = 'Log to another server, on other storage (diskchecker.pl''s listener).';
    END IF;
    PERFORM ranread_internal.ranread_remote_query('ranread_durability_log', 'SET synchronous_commit = on', 10000);
    IF durability < 0 THEN
        acked := ranread_internal.ranread_remote_query('ranread_durability_log',
            format('SELECT acknowledged FROM ranread_durability_log WHERE system_identifier = %s AND durability = %s',
                   sysid, -durability), 10000);
        PERFORM ranread_internal.ranread_remote_close(ARRAY['ranread_durability_log']);
        IF acked IS NULL THEN
            RAISE EXCEPTION 'the log server has no log of durability test %', -durability
                USING ERRCODE = 'no_data_found',
                      HINT = 'Pass the log_conninfo the start was given.';
        END IF;
        RETURN acked::bigint;
    END IF;
    PERFORM ranread_internal.ranread_remote_query('ranread_durability_log',
        'CREATE TABLE IF NOT EXISTS ranread_durability_log (system_identifier bigint NOT NULL, '
        'durability bigint NOT NULL, acknowledged bigint NOT NULL DEFAULT 0, last_ack timestamptz, '
        'PRIMARY KEY (system_identifier, durability))', 10000);
    IF durability > 0 THEN
        PERFORM ranread_internal.ranread_remote_query('ranread_durability_log',
            format('INSERT INTO ranread_durability_log (system_identifier, durability) VALUES (%s, %s) '
                   'ON CONFLICT (system_identifier, durability) DO UPDATE SET acknowledged = 0', sysid, durability),
            10000);
    ELSE
        PERFORM ranread_internal.ranread_remote_close(ARRAY['ranread_durability_log']);
    END IF;
    RETURN 0;
END
$$;

-- The advisory lock a running start holds for its whole session (class 1
-- of ranread's two-key locks: the durability test's number)
CREATE OR REPLACE FUNCTION ranread_internal.ranread_durability_lock_key()
RETURNS integer LANGUAGE sql IMMUTABLE AS $$ SELECT 1381253185 $$;

-- ranread_durability_start's arguments, checked before anything is
-- written: the method, the duration, the size (returned in blocks of 8 kB),
-- fsync = on for a log in this server's tables, and no test pending.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_durability_args(method text, duration interval,
    size text, remote boolean)
RETURNS bigint
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_bytes   bigint;
    v_pending record;
BEGIN
    IF method IS NULL OR method NOT IN ('fdatasync', 'fsync', 'open_datasync', 'open_sync') THEN
        RAISE EXCEPTION 'invalid method "%" for ranread_durability_start', method
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'method is ''fdatasync'', ''fsync'', ''open_datasync'' or ''open_sync'', as wal_sync_method names them.';
    END IF;
    IF duration IS NULL OR duration <= interval '0' OR duration > interval '1 day' THEN
        RAISE EXCEPTION 'duration % of ranread_durability_start is out of range', coalesce(duration::text, 'NULL')
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'duration is more than 0 and at most 1 day: long enough to cut the power during it (diskchecker.pl''s advice: a few minutes).';
    END IF;
    BEGIN
        v_bytes := pg_size_bytes(size);
    EXCEPTION WHEN invalid_parameter_value OR null_value_not_allowed OR numeric_value_out_of_range THEN
        v_bytes := NULL;
    END;
    IF v_bytes IS NULL OR v_bytes < 8192 OR v_bytes > 1073741824 THEN
        RAISE EXCEPTION 'invalid size "%" for ranread_durability_start', coalesce(size, 'NULL')
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'size is from ''8kB'' (one block) to ''1GB'', as pg_size_bytes reads it (e.g. ''64MB''); writes wrap around the file.';
    END IF;
    IF NOT remote AND current_setting('fsync')::boolean IS NOT TRUE THEN
        RAISE EXCEPTION 'ranread_durability_start needs fsync = on'
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  DETAIL = 'The log of acknowledged writes is committed to this server''s WAL, which fsync = off does not flush.',
                  HINT = 'ALTER SYSTEM SET fsync = on; SELECT pg_reload_conf(); or log to another server: log_conninfo => ''...''.';
    END IF;
    SELECT d.durability, d.status INTO v_pending
      FROM @extschema@.ranread_durability d
     WHERE d.status <> 'checked'
     ORDER BY d.durability LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'durability test % is not checked yet', v_pending.durability
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  DETAIL = format('Its status is %s: its durability file holds what a power cut would have left.', v_pending.status),
                  HINT = 'Read it back first: SELECT * FROM ranread_durability_check();';
    END IF;
    RETURN v_bytes / 8192;
END
$$;

-- ranread_durability_start's test before its first write: the log server
-- checked (reachable, not this server, its log table there), leftovers of
-- tests whose rows are gone (a restore, a DELETE) dropped, the row and the
-- durability file made.  Returns the test's number; the caller commits.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_durability_prepare(tablespace name, method text,
    duration interval, blocks bigint, log_conninfo text, sysid bigint)
RETURNS bigint
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_id  bigint;
    v_log text;
    v_why text;
BEGIN
    IF log_conninfo IS NOT NULL THEN
        v_why := ranread_internal.ranread_conninfo_problem(log_conninfo);
        IF v_why IS NOT NULL THEN
            RAISE EXCEPTION 'invalid log_conninfo for ranread_durability_start: %', v_why
                USING ERRCODE = 'invalid_parameter_value',
                      HINT = 'log_conninfo is a libpq connection string of another server, e.g. ''host=logserver dbname=postgres''.';
        END IF;
        PERFORM ranread_internal.ranread_durability_log_connect(log_conninfo, sysid, 0);
    END IF;
    PERFORM ranread_internal.ranread_durability_drop(substr(c.relname, 20)::bigint)
       FROM pg_class c
      WHERE c.relnamespace = 'ranread_target'::regnamespace
        AND c.relname ~ '^ranread_durability_[0-9]+$';
    INSERT INTO @extschema@.ranread_durability (tablespace, method, duration, blocks)
    VALUES (coalesce(tablespace, (SELECT t.spcname FROM pg_tablespace t
                                   JOIN pg_database db ON db.dattablespace = t.oid
                                  WHERE db.datname = current_database())),
            method, duration, blocks)
    RETURNING durability INTO v_id;
    v_log := ranread_internal.ranread_durability_create(v_id, tablespace, method, blocks, log_conninfo IS NULL);
    IF log_conninfo IS NOT NULL THEN
        v_log := format('%s at %s', v_log, ranread_internal.ranread_conninfo_name(log_conninfo));
    END IF;
    UPDATE @extschema@.ranread_durability d SET log = v_log WHERE d.durability = v_id;
    RETURN v_id;
END
$$;

-- ranread_durability_start: write the durability file until duration has
-- passed (or ranread_durability_stop), each write made durable by method
-- and, once acknowledged, committed to the log.  Cut the power of the
-- tested storage during the run; after the restart, ranread_durability_check.
-- A procedure: it commits after every acknowledged write (CALL it outside a
-- transaction block).  With the log on another server, a log server that
-- fails or stops answering (each statement there has 10 s), a cancel or a
-- statement_timeout ends the run: the test is then recorded as written up
-- to the last write logged, with why in ended_by, and the error raised
-- says so (a log in this server's tables commits every acknowledgement,
-- so a cancel there leaves the test running until its session ends, which
-- ranread_durability_check allows for).
CREATE OR REPLACE PROCEDURE @extschema@.ranread_durability_start(
    tablespace name     DEFAULT NULL,
    method     text     DEFAULT 'fdatasync',
    duration   interval DEFAULT '60s',
    size       text     DEFAULT '64MB',
    log_conninfo text   DEFAULT NULL)
LANGUAGE plpgsql
AS $$
DECLARE
    v_id      bigint;
    v_blocks  bigint;
    v_seq     bigint := 0;
    v_until   timestamptz;
    v_stop    boolean := false;
    v_remote  boolean := log_conninfo IS NOT NULL;
    v_sysid   bigint := (SELECT s.system_identifier FROM pg_catalog.pg_control_system() s);
    v_err     text;             -- why a run with its log on another server ended early
    v_state   text;             -- its SQLSTATE
    v_what    text;             -- and what failed
BEGIN
    PERFORM ranread_internal.ranread_primary_only('ranread_durability_start');
    v_blocks := ranread_internal.ranread_durability_args(method, duration, size, v_remote);
    v_id := ranread_internal.ranread_durability_prepare(tablespace, method, duration, v_blocks,
                                                        log_conninfo, v_sysid);
    COMMIT;
    -- held for the session: ranread_durability_check knows a test is running
    PERFORM pg_catalog.pg_advisory_lock(ranread_internal.ranread_durability_lock_key(), v_id::integer);
    IF v_remote THEN
        -- the COMMIT above closed the first connection: the log's own one
        v_what := pg_catalog.concat('the log server at ', ranread_internal.ranread_conninfo_name(log_conninfo));
        BEGIN
            PERFORM ranread_internal.ranread_durability_log_connect(log_conninfo, v_sysid, v_id);
        EXCEPTION WHEN OTHERS OR query_canceled THEN
            GET STACKED DIAGNOSTICS v_err = MESSAGE_TEXT, v_state = RETURNED_SQLSTATE;
        END;
    END IF;
    IF v_err IS NULL THEN
        RAISE NOTICE 'durability test %: writing % blocks of 8 kB on tablespace % with %, for %; cut the power of that storage now, then run ranread_durability_check() after the restart',
            v_id, v_blocks, coalesce(tablespace, 'of the database'), method, duration;
    END IF;
    v_until := pg_catalog.clock_timestamp() OPERATOR(pg_catalog.+) duration;
    WHILE v_err IS NULL AND NOT v_stop AND pg_catalog.clock_timestamp() OPERATOR(pg_catalog.<) v_until LOOP
        IF v_remote THEN
            -- the write and its acknowledgement, committed on the log server
            -- (no COMMIT here: it would close the connection)
            BEGIN
                v_what := 'the write to the durability file';
                PERFORM ranread_internal.ranread_durability_write(v_id, method, v_seq OPERATOR(pg_catalog.+) 1, v_blocks);
                v_what := pg_catalog.concat('the log server at ', ranread_internal.ranread_conninfo_name(log_conninfo));
                PERFORM ranread_internal.ranread_remote_query('ranread_durability_log',
                    pg_catalog.format('UPDATE ranread_durability_log SET acknowledged = %s, last_ack = now() '
                                      'WHERE system_identifier = %s AND durability = %s',
                                      v_seq OPERATOR(pg_catalog.+) 1, v_sysid, v_id),
                    10000);
                v_seq := v_seq OPERATOR(pg_catalog.+) 1;
                SELECT d.stop_requested INTO v_stop FROM @extschema@.ranread_durability d
                 WHERE d.durability OPERATOR(pg_catalog.=) v_id;
            EXCEPTION WHEN OTHERS OR query_canceled THEN
                GET STACKED DIAGNOSTICS v_err = MESSAGE_TEXT, v_state = RETURNED_SQLSTATE;
            END;
        ELSE
            v_seq := v_seq OPERATOR(pg_catalog.+) 1;
            PERFORM ranread_internal.ranread_durability_write(v_id, method, v_seq, v_blocks);
            -- the acknowledgement, durable in pg_wal before the next write
            PERFORM pg_catalog.set_config('synchronous_commit', 'on', true);
            UPDATE @extschema@.ranread_durability d
               SET acknowledged = v_seq, last_ack = pg_catalog.clock_timestamp()
             WHERE d.durability OPERATOR(pg_catalog.=) v_id
            RETURNING d.stop_requested INTO v_stop;
            COMMIT;
        END IF;
    END LOOP;
    PERFORM ranread_internal.ranread_durability_written(v_id, v_seq, v_stop, v_err, v_state, v_what);
    COMMIT;
    PERFORM pg_catalog.pg_advisory_unlock(ranread_internal.ranread_durability_lock_key(), v_id::integer);
    PERFORM ranread_internal.ranread_durability_ended(v_id, v_seq, v_stop, v_err, v_state, v_what);
END
$$;

-- The end of a start's writes: its test written up to write seq (the last
-- one logged), and why it ended early (what failed with err, its SQLSTATE
-- state) in ended_by.  A log server that failed before the first write
-- leaves nothing to check: the file is dropped and the test marked
-- checked, not run.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_durability_written(durability bigint, seq bigint,
    stopped boolean, err text, state text, what text)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_why text := CASE WHEN err IS NULL AND stopped THEN 'ranread_durability_stop'
                       WHEN state = '57014' THEN format('cancelled: %s', err)
                       WHEN err IS NOT NULL THEN format('%s failed: %s', what, err) END;
BEGIN
    IF err IS NOT NULL AND seq = 0 THEN
        PERFORM ranread_internal.ranread_durability_drop(durability);
        UPDATE @extschema@.ranread_durability d
           SET status = 'checked', written_until = clock_timestamp(), checked = clock_timestamp(),
               acknowledged = 0, ended_by = v_why, verdict = 'not run: ' || v_why
         WHERE d.durability = ranread_durability_written.durability;
        RETURN;
    END IF;
    UPDATE @extschema@.ranread_durability d
       SET status = 'written', written_until = clock_timestamp(), acknowledged = seq, ended_by = v_why
     WHERE d.durability = ranread_durability_written.durability;
END
$$;

-- What a start says at its end: a NOTICE when its writes ended as asked
-- (duration, ranread_durability_stop), else the error that ended them
-- (its SQLSTATE state), with what was recorded.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_durability_ended(durability bigint, seq bigint,
    stopped boolean, err text, state text, what text)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_rec text := CASE WHEN seq = 0 THEN 'nothing was written: the test is marked checked, not run'
                       ELSE format('its test is recorded as written, %s writes acknowledged and logged: check it with ranread_durability_check(log_conninfo => ''...'') once the log server answers, or drop it with ranread_durability_purge()', seq) END;
BEGIN
    IF err IS NULL THEN
        RAISE NOTICE 'durability test %: % writes acknowledged%; run ranread_durability_check() to read them back',
            durability, seq, CASE WHEN stopped THEN ' (stopped)' ELSE '' END;
    ELSIF state = '57014' THEN
        RAISE EXCEPTION '%', err
            USING ERRCODE = 'query_canceled',
                  DETAIL = format('Durability test %s: %s.', durability, v_rec);
    ELSE
        RAISE EXCEPTION 'durability test % ended: % failed: %', durability, what, err
            USING ERRCODE = CASE WHEN state LIKE '08%' OR state LIKE '58%' OR state LIKE '53%' THEN state
                                 ELSE 'connection_failure' END,
                  DETAIL = format('The log server (log_conninfo) must answer every acknowledgement within 10 s; %s.', v_rec),
                  HINT = 'Log to a server that stays up during the test, on other storage than the tested one.';
    END IF;
END
$$;

-- ranread_durability_stop: ask a running start to stop after its current write
CREATE OR REPLACE FUNCTION @extschema@.ranread_durability_stop()
RETURNS bigint
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_id bigint;
BEGIN
    UPDATE @extschema@.ranread_durability d SET stop_requested = true
     WHERE d.status = 'running' AND NOT d.stop_requested
    RETURNING d.durability INTO v_id;
    RETURN v_id;
END
$$;

-- ranread_durability_check: read the durability file of the last test back
-- against the log, record and return the verdict, and drop the file.
CREATE OR REPLACE FUNCTION @extschema@.ranread_durability_check(log_conninfo text DEFAULT NULL)
RETURNS TABLE (durability bigint, method text, tablespace name, acknowledged bigint,
               checked bigint, lost bigint, torn bigint, unacknowledged bigint,
               verdict text)
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    d  record;
    r  record;
    v  text;
BEGIN
    PERFORM ranread_internal.ranread_primary_only('ranread_durability_check');
    SELECT * INTO d FROM @extschema@.ranread_durability x
     WHERE x.status <> 'checked' ORDER BY x.durability LIMIT 1 FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'no durability test to check'
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  HINT = 'Start one first: CALL ranread_durability_start(tablespace => ''...''); cut the power during it, then check after the restart.';
    END IF;
    -- its writer holds the lock while it runs, and after a cancel until its
    -- session ends: running only while that session is active
    IF EXISTS (SELECT FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
                WHERE l.locktype = 'advisory' AND l.granted AND l.pid <> pg_backend_pid()
                  AND l.classid = ranread_internal.ranread_durability_lock_key()::oid
                  AND l.objid = d.durability::integer::oid AND l.objsubid = 2
                  AND a.state = 'active') THEN
        RAISE EXCEPTION 'durability test % is still running', d.durability
            USING ERRCODE = 'object_in_use',
                  HINT = 'Cut the power during it, or wait until it ends (SELECT ranread_durability_stop() ends it now), then check.';
    END IF;
    IF d.log LIKE 'another server%' THEN
        IF log_conninfo IS NULL THEN
            RAISE EXCEPTION 'durability test % logged its acknowledged writes to another server', d.durability
                USING ERRCODE = 'invalid_parameter_value',
                      DETAIL = d.log,
                      HINT = 'Pass that server''s connection string: ranread_durability_check(log_conninfo => ''...'').';
        END IF;
        d.acknowledged := ranread_internal.ranread_durability_log_connect(log_conninfo,
            (SELECT s.system_identifier FROM pg_control_system() s), -d.durability);
    END IF;
    r := ranread_internal.ranread_durability_read(d.durability, d.blocks, d.acknowledged);
    -- what was tested: a power cut restarts the server, so a check in the
    -- server's run that saw the test start cut nothing, and says so
    IF r.lost = 0 AND pg_catalog.pg_postmaster_start_time() OPERATOR(pg_catalog.<=) d.started THEN
        v := format('no power cut tested: the server has run since before the test started; '
                    '%s acknowledged writes read back, 0 lost (cut the power during a test to know '
                    'whether the storage keeps what it flushes)', r.checked);
    ELSIF r.lost = 0 THEN
        v := format('flushes honoured across the restart at %s: %s acknowledged writes, 0 lost '
                    '(if the power was cut before that restart; a clean restart tests nothing)',
                    pg_catalog.to_char(pg_catalog.pg_postmaster_start_time(), 'YYYY-MM-DD HH24:MI:SS'), r.checked);
    ELSE
        v := format('LOST %s of %s acknowledged writes: this storage does not keep what it flushes: '
                    'a volatile write cache acknowledged %s and lost the data at the power cut; '
                    'disable the write cache (hdparm -W 0, sdparm --clear=WCE, the controller''s setting) '
                    'or use a controller with a battery- or flash-backed cache, and test again; until then '
                    'a crash can lose committed transactions and corrupt the database',
                    r.lost, r.checked, d.method);
    END IF;
    IF r.torn > 0 THEN
        v := v || format('; %s blocks torn (a write half-done at the cut)', r.torn);
    END IF;
    UPDATE @extschema@.ranread_durability x
       SET status = 'checked', checked = now(), acknowledged = d.acknowledged,
           checked_writes = r.checked, lost = r.lost,
           torn = r.torn, unacknowledged = r.unacknowledged, first_lost = r.first_lost,
           verdict = v
     WHERE x.durability = d.durability;
    PERFORM ranread_internal.ranread_durability_drop(d.durability);
    RETURN QUERY SELECT d.durability, d.method, d.tablespace, d.acknowledged, r.checked,
                        r.lost, r.torn, r.unacknowledged, v;
END
$$;

-- ranread_durability_purge: drop the durability file of a test not checked
-- (it is then marked checked with no verdict) and every leftover
CREATE OR REPLACE FUNCTION @extschema@.ranread_durability_purge()
RETURNS integer
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    n integer := 0;
    c record;
BEGIN
    FOR c IN SELECT relname FROM pg_class
              WHERE relnamespace = 'ranread_target'::regnamespace
                AND relname ~ '^ranread_durability_[0-9]+$' LOOP
        IF EXISTS (SELECT FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
                    WHERE l.locktype = 'advisory' AND l.granted AND l.pid <> pg_backend_pid()
                      AND l.classid = ranread_internal.ranread_durability_lock_key()::oid
                      AND l.objid = substr(c.relname, 20)::integer::oid AND l.objsubid = 2
                      AND a.state = 'active') THEN
            RAISE EXCEPTION 'durability test % is still running', substr(c.relname, 20)
                USING ERRCODE = 'object_in_use',
                      HINT = 'SELECT ranread_durability_stop(); then purge.';
        END IF;
        IF ranread_internal.ranread_durability_drop(substr(c.relname, 20)::bigint) THEN
            n := n + 1;
        END IF;
    END LOOP;
    UPDATE @extschema@.ranread_durability x SET status = 'checked', checked = now(),
           verdict = 'purged unchecked'
     WHERE x.status <> 'checked';
    RETURN n;
END
$$;

REVOKE ALL ON @extschema@.ranread_durability FROM PUBLIC;

-- What ranread_advise says of the durability checks next to its
-- wal_sync_method advice: the latest check that read its file back
-- (durability, tablespace, method, checked, acknowledged, checked_writes,
-- lost; all NULL when none), as one sentence; current is the server's
-- wal_sync_method.  warning is set when that check lost acknowledged
-- writes.  Pure, so that its tests can feed it either answer.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_advise_durability(
    durability bigint, tablespace name, method text, checked timestamptz,
    acknowledged bigint, checked_writes bigint, lost bigint, current text,
    OUT citation text, OUT warning text)
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN $1 IS NULL
                THEN 'no durability check on record: CALL ranread_durability_start(...) then ranread_durability_check() after a power cut'
                ELSE format('durability check %s (%s on tablespace %s, %s): %s%s',
                            $1, $3, $2, to_char($4, 'YYYY-MM-DD HH24:MI'),
                            CASE WHEN $7 = 0
                                 THEN format('%s acknowledged, 0 lost', $5)
                                 ELSE format('LOST %s of %s acknowledged writes checked (%s acknowledged)', $7, $6, $5) END,
                            CASE WHEN $3 <> $8 THEN format('; it checked %s, not %s, the server''s wal_sync_method', $3, $8)
                                 ELSE '' END) END,
           CASE WHEN $7 > 0
                THEN format('durability check %s lost %s of %s acknowledged writes after a power cut: that storage does not keep what it flushes, whatever wal_sync_method says; disable its volatile write cache or use a controller with a battery- or flash-backed cache, then check again',
                            $1, $7, $6) END
$$;

-- The latest durability check that read its file back, cited
CREATE OR REPLACE FUNCTION ranread_internal.ranread_advise_durability_latest(
    OUT citation text, OUT warning text)
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT f.citation, f.warning
      FROM (SELECT) one
      LEFT JOIN LATERAL (SELECT * FROM @extschema@.ranread_durability d
                          WHERE d.status = 'checked' AND d.lost IS NOT NULL
                          ORDER BY d.checked DESC, d.durability DESC LIMIT 1) d ON true,
           LATERAL ranread_internal.ranread_advise_durability(d.durability, d.tablespace, d.method, d.checked,
               d.acknowledged, d.checked_writes, d.lost, current_setting('wal_sync_method')) f
$$;
-- The views over the history and the target catalog, and the C functions
-- they call to say what is true now (a batch still live, where a target's
-- files are).

-- Is a 'running' row of this batch true?  While it runs, and for the last
-- batch once its history is committed; NULL on a standby.  (src/ranread.c)
CREATE OR REPLACE FUNCTION ranread_internal.ranread_batch_live(batch bigint)
RETURNS boolean
AS 'MODULE_PATHNAME', 'ranread_batch_live'
LANGUAGE C STRICT VOLATILE;

-- 'ready', 'empty' (crash recovery reset the unlogged relation), or
-- 'missing'/'damaged' when someone went behind the extension's back.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_target_state(relid oid, size_bytes bigint)
RETURNS text
AS 'MODULE_PATHNAME', 'ranread_target_state'
LANGUAGE C STRICT STABLE;

-- A target's state, the tablespace its files are in now, whether routine
-- maintenance leaves it alone, and what to do about it.  (src/target/target.c)
CREATE OR REPLACE FUNCTION ranread_internal.ranread_target_info(relid oid, size_bytes bigint,
    OUT state text, OUT tablespace name, OUT protected boolean, OUT note text)
AS 'MODULE_PATHNAME', 'ranread_target_info'
LANGUAGE C STRICT STABLE;

CREATE OR REPLACE VIEW @extschema@.ranread_targets AS
SELECT c.target,
       coalesce(i.tablespace, c.tablespace) AS tablespace,
       c.size_bytes,
       c.created_at,
       i.state,
       i.protected,
       i.note
  FROM @extschema@.ranread_target_catalog c,
       LATERAL ranread_internal.ranread_target_info(c.relid, c.size_bytes) i;

-- Relations of the ranread_target access method that would hold back the
-- database's datfrozenxid, each with the command that fixes it: relations
-- that are not targets (made with CREATE TABLE ... USING ranread_target,
-- SET ACCESS METHOD or CREATE MATERIALIZED VIEW ... USING by a build that
-- did not refuse them yet), and targets that hold a transaction id.  Empty
-- where this 1.1 made every relation of the method.  (src/target/target_am.c)
CREATE OR REPLACE FUNCTION @extschema@.ranread_target_check(
    OUT relation regclass, OUT problem text, OUT fix text)
RETURNS SETOF record
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT c.oid::regclass,
           format('%s uses the ranread_target access method but is not a ranread target; VACUUM never processes it, so its relfrozenxid %s holds back the database''s datfrozenxid',
                  CASE c.relkind WHEN 'm' THEN 'materialized view' ELSE 'table' END, c.relfrozenxid),
           format('DROP %s %s;', CASE c.relkind WHEN 'm' THEN 'MATERIALIZED VIEW' ELSE 'TABLE' END, c.oid::regclass)
      FROM pg_class c
     WHERE c.relam = (SELECT a.oid FROM pg_am a WHERE a.amname = 'ranread_target')
       AND c.oid NOT IN (SELECT t.relid FROM @extschema@.ranread_target_catalog t)
       -- a durability test's file (src/advise/durability.c), which holds no xid
       AND NOT (c.relnamespace = 'ranread_target'::regnamespace
                AND c.relname ~ '^ranread_durability_[0-9]+$' AND c.relfrozenxid::text = '0')
    UNION ALL
    SELECT c.oid::regclass,
           format('target %s holds transaction ids (relfrozenxid %s, relminmxid %s) that VACUUM never advances',
                  quote_literal(t.target), c.relfrozenxid, c.relminmxid),
           format('SELECT * FROM @extschema@.ranread_setup(%L, %L, %L);',
                  pg_size_pretty(t.size_bytes), t.tablespace, t.target)
      FROM @extschema@.ranread_target_catalog t
      JOIN pg_class c ON c.oid = t.relid
     WHERE c.relam = (SELECT a.oid FROM pg_am a WHERE a.amname = 'ranread_target')
       AND (c.relfrozenxid::text <> '0' OR c.relminmxid::text <> '0')
     ORDER BY 1
$$;

-- What a batch's status is now: its row's, but a row left 'running' by a
-- batch that no longer runs (a crash, a killed worker, a recording that gave
-- up) is failed, and says so.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_status_now(status text, batch bigint,
    message text, OUT status text, OUT message text)
LANGUAGE sql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN gone THEN 'failed' ELSE $1 END,
           CASE WHEN gone THEN coalesce($3, 'the batch no longer runs and its history was never written: a server restart, a killed worker, or a recording that gave up ended it')
                ELSE $3 END
      FROM (SELECT $1 = 'running' AND NOT coalesce(ranread_internal.ranread_batch_live($2), true) AS gone) g
$$;

-- A figure rounded as a person reads it (README, "Reading the results"):
-- NULL when it is not a finite number.  The views cast the result to the
-- column's numeric(p,s), so that the scale is in the catalog too; the
-- tables keep every figure whole, and ranread_export writes those.  No SET
-- clause, every name qualified: the planner inlines it into the views.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_round(v float8, places integer)
RETURNS numeric
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
    SELECT CASE WHEN pg_catalog.abs(v) OPERATOR(pg_catalog.<) 'Infinity'::pg_catalog.float8
                THEN pg_catalog.round(v::pg_catalog.numeric, places) END
$$;

-- The same, NULL too where the rounded figure does not fit the column's
-- numeric(digits, places) (digits 18: a bigint), so that one damaged row
-- (a figure of 1e20 ms) leaves its figure NULL instead of failing the view
-- for everyone (docs/design.md, "What any role may call").  New in 1.2.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_round(v float8, places integer, digits integer)
RETURNS numeric
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
    SELECT CASE WHEN pg_catalog.abs(v) OPERATOR(pg_catalog.<) 'Infinity'::pg_catalog.float8
                 AND pg_catalog.abs(pg_catalog.round(v::pg_catalog.numeric, places))
                     OPERATOR(pg_catalog.<) pg_catalog.power(10::pg_catalog.numeric, digits OPERATOR(pg_catalog.-) places)
                THEN pg_catalog.round(v::pg_catalog.numeric, places) END
$$;

-- A count and its noun, singular or plural: "1 process", "8 processes",
-- "1 node", "3 nodes" (every message and subtitle that counts says it so)
CREATE OR REPLACE FUNCTION ranread_internal.ranread_count_words(n numeric, one text)
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT n::text || ' ' || CASE WHEN n OPERATOR(pg_catalog.=) 1 THEN one
                                  WHEN one ~ '(s|x|ch|sh)$' THEN one || 'es'
                                  ELSE one || 's' END
$$;

-- Every column of a batch, its figures whole: what ranread_export writes
-- and what the report and the charts read.
CREATE OR REPLACE VIEW ranread_internal.ranread_summary_raw AS
SELECT b.batch, b.run_at, b.target, b.processes, b.iterations, b.block_size,
       b.write_pct, b.reads, b.writes, b.iops, b.mbps, b.avg_ms, b.p99_ms,
       b.max_ms, n.status, b.sweep,
       b.queue_depth, b.pattern, b.duration, b.seconds, b.min_ms, b.p50_ms,
       b.p95_ms, b.p999_ms, b.read_avg_ms, b.read_p99_ms, b.write_avg_ms,
       b.write_p99_ms, b.engine, b.workers, b.seed, b.buffer_pages, n.message,
       b.tablespace, b.filesystem, b.timing, b.busy, b.notes,
       b.groups, b.distribution, b.first_io_at, b.steady_state, b.ended_steady,
       b.steady, b.steady_excursion, b.steady_slope, b.mix,
       b.sync, b.start_at, b.study, b.point, b.fleet, b.commit_test,
       b.cpu_user_pct, b.cpu_sys_pct, b.cpu_us_per_io, b.device,
       b.device_util_pct, b.lat_stddev_ms,
       b.path, b.effective_io_concurrency, b.cache_pct
  FROM @extschema@.ranread_batches b,
       LATERAL ranread_internal.ranread_status_now(b.status, b.batch, b.message) n;

-- Every column of a batch as a person reads it: IOPS whole, MiB/s (mbps)
-- to 0.1, seconds to 0.001, latencies in ms to 0.001; the columns of 1.0's
-- ranread_summary first, in their order.
CREATE OR REPLACE VIEW @extschema@.ranread_summary_full AS
SELECT b.batch, b.run_at, b.target, b.processes, b.iterations, b.block_size,
       b.write_pct, b.reads, b.writes,
       ranread_internal.ranread_round(b.iops, 0, 18)::bigint AS iops,
       ranread_internal.ranread_round(b.mbps, 1, 14)::numeric(14,1) AS mbps,
       ranread_internal.ranread_round(b.avg_ms, 3, 15)::numeric(15,3) AS avg_ms,
       ranread_internal.ranread_round(b.p99_ms, 3, 15)::numeric(15,3) AS p99_ms,
       ranread_internal.ranread_round(b.max_ms, 3, 15)::numeric(15,3) AS max_ms,
       b.status, b.sweep,
       b.queue_depth, b.pattern, b.duration,
       ranread_internal.ranread_round(b.seconds, 3, 12)::numeric(12,3) AS seconds,
       ranread_internal.ranread_round(b.min_ms, 3, 15)::numeric(15,3) AS min_ms,
       ranread_internal.ranread_round(b.p50_ms, 3, 15)::numeric(15,3) AS p50_ms,
       ranread_internal.ranread_round(b.p95_ms, 3, 15)::numeric(15,3) AS p95_ms,
       ranread_internal.ranread_round(b.p999_ms, 3, 15)::numeric(15,3) AS p999_ms,
       ranread_internal.ranread_round(b.read_avg_ms, 3, 15)::numeric(15,3) AS read_avg_ms,
       ranread_internal.ranread_round(b.read_p99_ms, 3, 15)::numeric(15,3) AS read_p99_ms,
       ranread_internal.ranread_round(b.write_avg_ms, 3, 15)::numeric(15,3) AS write_avg_ms,
       ranread_internal.ranread_round(b.write_p99_ms, 3, 15)::numeric(15,3) AS write_p99_ms,
       b.engine, b.workers, b.seed, b.buffer_pages, b.message,
       b.tablespace, b.filesystem, b.timing,
       ranread_internal.ranread_round(b.busy, 2, 6)::numeric(6,2) AS busy,
       b.notes, b.groups, b.distribution, b.first_io_at, b.steady_state, b.ended_steady,
       b.steady,
       ranread_internal.ranread_round(b.steady_excursion, 3, 12)::numeric(12,3) AS steady_excursion,
       ranread_internal.ranread_round(b.steady_slope, 3, 12)::numeric(12,3) AS steady_slope,
       b.mix, b.sync, b.start_at, b.study, b.point, b.fleet, b.commit_test,
       ranread_internal.ranread_round(b.cpu_user_pct, 1, 8)::numeric(8,1) AS cpu_user_pct,
       ranread_internal.ranread_round(b.cpu_sys_pct, 1, 8)::numeric(8,1) AS cpu_sys_pct,
       ranread_internal.ranread_round(b.cpu_us_per_io, 2, 12)::numeric(12,2) AS cpu_us_per_io,
       b.device,
       ranread_internal.ranread_round(b.device_util_pct, 1, 6)::numeric(6,1) AS device_util_pct,
       ranread_internal.ranread_round(b.lat_stddev_ms, 3, 15)::numeric(15,3) AS lat_stddev_ms,
       b.path, b.effective_io_concurrency,
       ranread_internal.ranread_round(b.cache_pct, 1, 6)::numeric(6,1) AS cache_pct
  FROM ranread_internal.ranread_summary_raw b;

-- What a batch ran, in a few words: "random 8K reads", "sequential 1M
-- 30% writes", "mix of 2 groups"; with the sync method of a commit test's.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_workload_words(
    groups integer, pattern text, block_size integer, write_pct integer, sync text)
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN coalesce(groups, 1) > 1 OR block_size IS NULL THEN format('mix of %s groups', groups)
                ELSE format('%s %s %s', pattern,
                            CASE WHEN block_size % 1048576 = 0 THEN (block_size / 1048576) || 'M'
                                 WHEN block_size % 1024 = 0 THEN (block_size / 1024) || 'K'
                                 ELSE block_size || 'B' END,
                            CASE write_pct WHEN 0 THEN 'reads' WHEN 100 THEN 'writes'
                                 ELSE write_pct || '% writes' END)
                     || coalesce(' + ' || sync, '') END
$$;

-- One row per batch that fits a screen: when, where, what ran at which
-- load, and its figures as a person reads them (IOPS whole, MiB/s in mbps
-- to 0.1, ms to 0.001).  ranread_summary_full has every column.  A batch of
-- the server path says so in its workload, and the share of its reads the
-- caches answered.
CREATE OR REPLACE VIEW @extschema@.ranread_summary AS
SELECT f.batch, date_trunc('second', f.run_at) AS run_at, f.tablespace, f.target,
       ranread_internal.ranread_workload_words(f.groups, f.pattern, f.block_size, f.write_pct, f.sync)
       || CASE WHEN f.path OPERATOR(pg_catalog.=) 'server'
               THEN ' through shared buffers' || CASE WHEN f.cache_pct IS NOT NULL
                                                      THEN pg_catalog.format(' (%s%% from caches)', f.cache_pct)
                                                      ELSE '' END
               ELSE '' END AS workload,
       f.processes, f.queue_depth, f.seconds, f.iops, f.mbps, f.avg_ms, f.p99_ms,
       f.max_ms, f.status
  FROM @extschema@.ranread_summary_full f;

-- One line per batch that fits a screen of 120 columns (README, "Reading
-- the results"): what ran, for how long, IOPS, MiB/s (mbps), average and
-- p99 latency (ms) and the status, rounded as in ranread_summary_full.
-- ranread_summary keeps 1.1's columns (when, where, max_ms ...) for the
-- queries that select them; ranread_summary_full has every column.  New in
-- 1.2.
CREATE OR REPLACE VIEW @extschema@.ranread_brief AS
SELECT f.batch, f.processes,
       ranread_internal.ranread_workload_words(f.groups, f.pattern, f.block_size, f.write_pct, f.sync)
       || CASE WHEN f.queue_depth OPERATOR(pg_catalog.>) 1 THEN ' qd ' || f.queue_depth ELSE '' END
       || CASE WHEN f.path OPERATOR(pg_catalog.=) 'server'
               THEN ', server path' || coalesce(pg_catalog.format(' %s%% cached', f.cache_pct), '')
               ELSE '' END AS workload,
       f.seconds, f.iops, f.mbps, f.avg_ms, f.p99_ms, f.status
  FROM @extschema@.ranread_summary_full f;

-- One row per group of every batch (a plain batch has one group), with the
-- batch's time and status: the mixed workloads' per-group figures, rounded
-- as in ranread_summary_full.
CREATE OR REPLACE VIEW @extschema@.ranread_group_summary AS
SELECT g.batch, g.grp, g.label, b.run_at, n.status, g.target, g.tablespace,
       g.processes, g.iterations, g.block_size, g.queue_depth, g.write_pct,
       g.pattern, g.region_start, g.region_end, g.rate_iops, g.distribution,
       g.reads, g.writes,
       ranread_internal.ranread_round(g.seconds, 3)::numeric(12,3) AS seconds,
       ranread_internal.ranread_round(g.iops, 0)::bigint AS iops,
       ranread_internal.ranread_round(g.mbps, 1)::numeric(14,1) AS mbps,
       ranread_internal.ranread_round(g.avg_ms, 3)::numeric(15,3) AS avg_ms,
       ranread_internal.ranread_round(g.min_ms, 3)::numeric(15,3) AS min_ms,
       ranread_internal.ranread_round(g.p50_ms, 3)::numeric(15,3) AS p50_ms,
       ranread_internal.ranread_round(g.p95_ms, 3)::numeric(15,3) AS p95_ms,
       ranread_internal.ranread_round(g.p99_ms, 3)::numeric(15,3) AS p99_ms,
       ranread_internal.ranread_round(g.p999_ms, 3)::numeric(15,3) AS p999_ms,
       ranread_internal.ranread_round(g.max_ms, 3)::numeric(15,3) AS max_ms,
       ranread_internal.ranread_round(g.read_avg_ms, 3)::numeric(15,3) AS read_avg_ms,
       ranread_internal.ranread_round(g.read_p99_ms, 3)::numeric(15,3) AS read_p99_ms,
       ranread_internal.ranread_round(g.write_avg_ms, 3)::numeric(15,3) AS write_avg_ms,
       ranread_internal.ranread_round(g.write_p99_ms, 3)::numeric(15,3) AS write_p99_ms,
       ranread_internal.ranread_round(g.busy, 2)::numeric(6,2) AS busy,
       g.first_io_at,
       b.sweep, g.sync, g.writes_per_op, b.study, b.point, b.fleet, b.commit_test,
       ranread_internal.ranread_round(g.cpu_user_pct, 1)::numeric(8,1) AS cpu_user_pct,
       ranread_internal.ranread_round(g.cpu_sys_pct, 1)::numeric(8,1) AS cpu_sys_pct,
       ranread_internal.ranread_round(g.cpu_us_per_io, 2)::numeric(12,2) AS cpu_us_per_io,
       g.device,
       ranread_internal.ranread_round(g.device_util_pct, 1)::numeric(6,1) AS device_util_pct,
       ranread_internal.ranread_round(g.lat_stddev_ms, 3)::numeric(15,3) AS lat_stddev_ms,
       g.path, g.effective_io_concurrency,
       ranread_internal.ranread_round(g.cache_pct, 1)::numeric(6,1) AS cache_pct
  FROM @extschema@.ranread_groups g
  JOIN @extschema@.ranread_batches b USING (batch),
       LATERAL ranread_internal.ranread_status_now(b.status, b.batch, b.message) n;

-- One row per process of every batch, as a person reads it: ranread_results
-- without its histograms (kilobytes of bytea each), their sizes instead.
CREATE OR REPLACE VIEW @extschema@.ranread_process_summary AS
SELECT r.batch, r.process, r.grp, r.run_at, r.target, r.processes, r.iterations,
       r.block_size, r.queue_depth, r.write_pct, r.pattern, r.reads, r.writes,
       ranread_internal.ranread_round(r.seconds, 3)::numeric(12,3) AS seconds,
       ranread_internal.ranread_round(r.iops, 0)::bigint AS iops,
       ranread_internal.ranread_round(r.avg_ms, 3)::numeric(15,3) AS avg_ms,
       ranread_internal.ranread_round(r.min_ms, 3)::numeric(15,3) AS min_ms,
       ranread_internal.ranread_round(r.p50_ms, 3)::numeric(15,3) AS p50_ms,
       ranread_internal.ranread_round(r.p95_ms, 3)::numeric(15,3) AS p95_ms,
       ranread_internal.ranread_round(r.p99_ms, 3)::numeric(15,3) AS p99_ms,
       ranread_internal.ranread_round(r.p999_ms, 3)::numeric(15,3) AS p999_ms,
       ranread_internal.ranread_round(r.max_ms, 3)::numeric(15,3) AS max_ms,
       ranread_internal.ranread_round(r.read_avg_ms, 3)::numeric(15,3) AS read_avg_ms,
       ranread_internal.ranread_round(r.read_p99_ms, 3)::numeric(15,3) AS read_p99_ms,
       ranread_internal.ranread_round(r.write_avg_ms, 3)::numeric(15,3) AS write_avg_ms,
       ranread_internal.ranread_round(r.write_p99_ms, 3)::numeric(15,3) AS write_p99_ms,
       ranread_internal.ranread_round(r.busy, 2)::numeric(6,2) AS busy,
       ranread_internal.ranread_round(r.lat_stddev_ms, 3)::numeric(15,3) AS lat_stddev_ms,
       r.status,
       octet_length(r.histogram) AS histogram_bytes,
       octet_length(r.write_histogram) AS write_histogram_bytes
  FROM @extschema@.ranread_results r;

-- 1.1: every commit test's rows from the history, one per test that ran
-- (one per round of the one 8 kB write, 1.2), the figures whole (what the
-- advisor decides on).  1.2: direct, whether an open_datasync or open_sync
-- test opened its file with O_DIRECT, as its label says (1.2's end in
-- "(O_DIRECT)" or "(buffered)"; 1.1 always used O_DIRECT); NULL for the
-- other methods.
CREATE OR REPLACE VIEW ranread_internal.ranread_commit_summary_raw AS
SELECT b.commit_test, b.batch, b.run_at,
       pg_catalog.split_part(g.label, ': ', 1) AS test,
       coalesce(g.sync, 'none') AS method,
       g.writes_per_op AS writes,
       g.block_size / g.writes_per_op / 1024 AS write_kb,
       g.iops AS ops_per_s, g.avg_ms, g.p50_ms, g.p95_ms, g.p99_ms, g.p999_ms,
       g.max_ms,
       g.sync IS NOT NULL AS durable, n.status, n.message,
       b.tablespace, b.filesystem,
       CASE WHEN g.sync IN ('open_datasync', 'open_sync') THEN g.label NOT LIKE '% (buffered)' END AS direct
  FROM @extschema@.ranread_batches b
  JOIN @extschema@.ranread_groups g USING (batch),
       LATERAL ranread_internal.ranread_status_now(b.status, b.batch, b.message) n
 WHERE b.commit_test IS NOT NULL;

-- The same as a person reads it: ops/s whole, ms to 0.001
CREATE OR REPLACE VIEW @extschema@.ranread_commit_summary AS
SELECT c.commit_test, c.batch, c.run_at, c.test, c.method, c.writes, c.write_kb,
       ranread_internal.ranread_round(c.ops_per_s, 0)::bigint AS ops_per_s,
       ranread_internal.ranread_round(c.avg_ms, 3)::numeric(15,3) AS avg_ms,
       ranread_internal.ranread_round(c.p50_ms, 3)::numeric(15,3) AS p50_ms,
       ranread_internal.ranread_round(c.p95_ms, 3)::numeric(15,3) AS p95_ms,
       ranread_internal.ranread_round(c.p99_ms, 3)::numeric(15,3) AS p99_ms,
       ranread_internal.ranread_round(c.p999_ms, 3)::numeric(15,3) AS p999_ms,
       ranread_internal.ranread_round(c.max_ms, 3)::numeric(15,3) AS max_ms,
       c.durable, c.status, c.message, c.tablespace, c.filesystem, c.direct
  FROM ranread_internal.ranread_commit_summary_raw c;
-- 1.1, atomic writes (src/target/fsinfo.c, fsinfo_atomic): does the storage under
-- a tablespace guarantee that an 8 kB write is written whole or not at all?

-- What statx (STATX_WRITE_ATOMIC, Linux 6.11+) says of a file of the
-- tablespace (NULL: the database's own): the atomic write sizes and
-- segments, whether 8 kB is one of them, and a phrase for a person.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_atomic_writes(tablespace name,
    OUT asked text, OUT reported boolean, OUT unit_min integer, OUT unit_max integer,
    OUT segments_max integer, OUT atomic_8k boolean, OUT note text)
AS 'MODULE_PATHNAME', 'ranread_atomic_writes'
LANGUAGE C CALLED ON NULL INPUT VOLATILE;

-- ranread_advise's row on full_page_writes from the facts, pure so that its
-- tests can feed either answer: places are the tablespaces the setting
-- covers (the advised one and the database's default, where the catalogs
-- are), atomic whether statx guarantees atomic 8 kB writes there, notes
-- what it said.  Not guaranteed on every one: keep it on.  Guaranteed: the
-- current value stays, with the conditions under which off is safe.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_advise_full_page_writes(
    places name[], atomic boolean[], notes text[], current text,
    OUT suggested text, OUT figures text)
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN a.all_atomic THEN $4 ELSE 'on' END,
           a.facts || CASE
               WHEN a.all_atomic
               THEN ': atomic 8 kB writes guaranteed: full_page_writes = off is safe only if every page write reaches that storage as one such write: '
                    'the guarantee is for a single aligned write issued with RWF_ATOMIC and O_DIRECT, and PostgreSQL 15 writes pages through the page cache without RWF_ATOMIC, '
                    'which may split them; and only if every tablespace, pg_wal''s backups and any standby''s storage give the same guarantee. Otherwise keep it on'
               ELSE ': not guaranteed: keep full_page_writes = on (a page torn by a power cut or a crash mid-write is repaired from the full page image in the WAL; without it the page is corrupt)'
           END
      FROM (SELECT coalesce(bool_and(coalesce(u.a, false)), false) AND count(*) > 0 AS all_atomic,
                   string_agg(format('%s: %s', u.p, coalesce(u.n, 'unknown')), '; ' ORDER BY u.i) AS facts
              FROM unnest($1, $2, $3) WITH ORDINALITY AS u(p, a, n, i)) a
$$;
-- 1.1, verified writes and reads (docs/writes-and-durability.md, "Verified
-- writes"): the bad blocks a batch's verify found, and ranread_verify, which
-- checks a whole target once.


-- Read a whole target once (O_DIRECT) and check every block's stamp and
-- checksum: one row of counts.  Lost writes need a batch's acknowledgements:
-- ranread_run(..., verify => true) finds those.
CREATE OR REPLACE FUNCTION @extschema@.ranread_verify(
    target name DEFAULT 'ranread',
    OUT blocks bigint,
    OUT errors bigint,
    OUT corrupt bigint,
    OUT wrong_block bigint,
    OUT missing bigint,
    OUT no_checksum bigint,
    OUT newest_batch bigint,
    OUT max_sequence bigint,
    OUT seconds numeric)
RETURNS record
AS 'MODULE_PATHNAME', 'ranread_verify'
LANGUAGE C CALLED ON NULL INPUT VOLATILE;
-- Targets and batches: the C entry points.

-- The error every function that writes gives on a hot standby; for the
-- PL/pgSQL functions, which must say so before they write anything.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_primary_only(fn text)
RETURNS void
AS 'MODULE_PATHNAME', 'ranread_primary_only'
LANGUAGE C STRICT VOLATILE;

-- The one definition of a workload (src/workload/workload.c): every option a batch
-- takes, where it stands in a spec (the batch's or a group's), its type,
-- default, range (integers), what is allowed, its unit, what NULL means,
-- and one line of help; internal: set by the functions that run many
-- batches, not by users.  The functions that run batches take these by name.
CREATE OR REPLACE FUNCTION @extschema@.ranread_options(
    OUT name text, OUT level text, OUT type regtype, OUT default_value text,
    OUT minimum bigint, OUT maximum bigint, OUT allowed text, OUT unit text,
    OUT null_means text, OUT help text, OUT internal boolean)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'ranread_options'
LANGUAGE C STRICT IMMUTABLE PARALLEL SAFE ROWS 25;

-- A spec from options given flat, by name: each where a spec has it, nulls
-- and keys that are no option left out; base, when given, is the spec the
-- options change (a sweep's next step changes its processes).
CREATE OR REPLACE FUNCTION ranread_internal.ranread_spec(options jsonb, base jsonb DEFAULT NULL)
RETURNS jsonb
AS 'MODULE_PATHNAME', 'ranread_spec'
LANGUAGE C CALLED ON NULL INPUT IMMUTABLE PARALLEL SAFE;

-- The defaults of the options of a level ('batch' or 'group'), as a spec
-- spells them: what an option left out of a spec is.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_defaults(level text)
RETURNS jsonb
AS 'MODULE_PATHNAME', 'ranread_defaults'
LANGUAGE C STRICT IMMUTABLE PARALLEL SAFE;

-- A spec read as ranread_run_step reads it, and with resolve its targets
-- found, running nothing: the errors of a run step, before any runs.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_spec_check(spec jsonb, resolve boolean DEFAULT true)
RETURNS void
AS 'MODULE_PATHNAME', 'ranread_spec_check'
LANGUAGE C CALLED ON NULL INPUT STABLE;

-- The one null check of the PL/pgSQL functions' own arguments:
-- "ARG of FN must not be null", with the hint that says what is allowed.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_require(fn text, arg text, value anyelement,
    hint text DEFAULT NULL)
RETURNS void
AS 'MODULE_PATHNAME', 'ranread_require'
LANGUAGE C CALLED ON NULL INPUT IMMUTABLE;

-- The one check of the privileges a call needs besides EXECUTE on it: each
-- of needs reads 'EXECUTE on function F(ARGS)', 'EXECUTE on functions
-- SCHEMA.PREFIX*', 'USAGE on sequence S', 'INSERT on table T', 'USAGE on
-- schema S'; one error lists what the role lacks and the GRANTs that give
-- it ("permission denied to DOING").
CREATE OR REPLACE FUNCTION ranread_internal.ranread_check_privileges(doing text, fn text, needs text[])
RETURNS void
AS 'MODULE_PATHNAME', 'ranread_check_privileges'
LANGUAGE C CALLED ON NULL INPUT STABLE;

CREATE OR REPLACE FUNCTION @extschema@.ranread_setup(
    size       text DEFAULT '1GB',
    tablespace name DEFAULT 'pg_default',
    target     name DEFAULT 'ranread')
RETURNS @extschema@.ranread_setup_result
AS 'MODULE_PATHNAME', 'ranread_setup'
LANGUAGE C CALLED ON NULL INPUT VOLATILE;

-- Drops a target: a role that is not a superuser only in the database's
-- default tablespace or one it holds CREATE on, and no probe target
-- (ranread_probe_purge drops those): src/target/purge.c
CREATE OR REPLACE FUNCTION @extschema@.ranread_purge(target name DEFAULT 'ranread')
RETURNS boolean
AS 'MODULE_PATHNAME', 'ranread_purge_checked'
LANGUAGE C CALLED ON NULL INPUT VOLATILE;

CREATE OR REPLACE FUNCTION @extschema@.ranread_run(
    processes integer,
    iterations bigint DEFAULT NULL,
    target name DEFAULT 'ranread',
    duration interval DEFAULT NULL,
    block_size integer DEFAULT 8192,
    write_pct integer DEFAULT 0,
    queue_depth integer DEFAULT 1,
    pattern text DEFAULT 'random',
    region_start float8 DEFAULT 0,
    region_end float8 DEFAULT 100,
    warmup interval DEFAULT '0',
    rate_iops integer DEFAULT NULL,
    seed bigint DEFAULT NULL,
    workers integer DEFAULT NULL,
    distribution text DEFAULT 'uniform',
    steady_state text DEFAULT NULL,
    sync text DEFAULT NULL,
    start_at timestamptz DEFAULT NULL,
    io_priority text DEFAULT NULL,
    verify boolean DEFAULT false,
    path text DEFAULT 'device',
    effective_io_concurrency integer DEFAULT NULL)
RETURNS @extschema@.ranread_run_result
AS 'MODULE_PATHNAME', 'ranread_run_1_1'
LANGUAGE C CALLED ON NULL INPUT VOLATILE;

-- Several groups of processes in one batch, started together, reported
-- apart: groups is a JSON array of objects with a group's options (label,
-- processes, block_size, write_pct, queue_depth, pattern, region_start,
-- region_end, rate_iops, distribution, sync, iterations, target); the rest
-- are the batch's.  One row per group, then one for the whole batch (grp 0).
CREATE OR REPLACE FUNCTION @extschema@.ranread_mix(
    groups       jsonb,
    duration interval DEFAULT '30s',
    warmup interval DEFAULT '0',
    seed bigint DEFAULT NULL,
    workers integer DEFAULT NULL,
    steady_state text DEFAULT NULL,
    target name DEFAULT 'ranread',
    iterations bigint DEFAULT NULL,
    start_at timestamptz DEFAULT NULL,
    io_priority text DEFAULT NULL)
    -- not processes block_size write_pct queue_depth pattern region_start region_end rate_iops distribution sync verify path effective_io_concurrency: a group's own, in each object of groups (ranread_options, level group)
RETURNS SETOF @extschema@.ranread_group_result
AS 'MODULE_PATHNAME', 'ranread_mix'
LANGUAGE C CALLED ON NULL INPUT VOLATILE ROWS 3;

-- A batch described as JSON, the spec every function that runs batches
-- hands on (ranread_options lists its keys): {"groups": [...], "duration":
-- ..., "warmup": ..., "seed": ..., "workers": ..., "steady_state": ...,
-- "iterations": ..., "start_at": ..., "target": ..., "sweep": ..., "study":
-- ..., "point": {...}, "fleet": ..., "caller": "ranread_sweep"}.  Its
-- figures are whole (float8): the callers decide on them.
CREATE OR REPLACE FUNCTION @extschema@.ranread_run_step(spec jsonb)
RETURNS SETOF ranread_internal.ranread_step_result
AS 'MODULE_PATHNAME', 'ranread_run_step'
LANGUAGE C CALLED ON NULL INPUT VOLATILE ROWS 2;

-- The sweeps, studies, latency-target searches and fleets that run now: each
-- registers the id it has just taken from its sequence (kind 'sweep',
-- 'study', 'latency_target' or 'fleet'); the entry ends with the calling
-- transaction.  ranread_reset keeps what runs, ranread_run_step takes such
-- an id only from the call that registered it, and the views tell a call
-- that runs from one that was cancelled.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_call_register(kind text, id bigint)
RETURNS void
AS 'MODULE_PATHNAME', 'ranread_call_register'
LANGUAGE C CALLED ON NULL INPUT VOLATILE;

-- The call of that kind and id, registered by this session in this
-- transaction, has returned: no batch joins it any more, and it no longer
-- counts towards the calls one session runs at once (its entry stays until
-- the transaction ends).  The forwarder ends the calls of a sweep, search,
-- study or fleet when it returns (src/workload/forward.c); a fleet ends its own,
-- and a study its own once recorded (a profile's, which no forwarder
-- runs), with this.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_call_end(kind text, id bigint)
RETURNS void
AS 'MODULE_PATHNAME', 'ranread_call_end'
LANGUAGE C CALLED ON NULL INPUT VOLATILE;

CREATE OR REPLACE FUNCTION ranread_internal.ranread_call_running(kind text, id bigint)
RETURNS boolean
AS 'MODULE_PATHNAME', 'ranread_call_running'
LANGUAGE C CALLED ON NULL INPUT VOLATILE;

CREATE OR REPLACE FUNCTION ranread_internal.ranread_running_calls(
    OUT kind text, OUT id bigint, OUT pid integer, OUT started_by name, OUT started_at timestamptz)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'ranread_running_calls'
LANGUAGE C STRICT VOLATILE;

CREATE OR REPLACE FUNCTION @extschema@.ranread_stop()
RETURNS integer
AS 'MODULE_PATHNAME', 'ranread_stop'
LANGUAGE C VOLATILE;

CREATE OR REPLACE FUNCTION @extschema@.ranread_reset(before timestamptz DEFAULT NULL)
RETURNS bigint
AS 'MODULE_PATHNAME', 'ranread_reset'
LANGUAGE C CALLED ON NULL INPUT VOLATILE;

-- Latency histograms as stored in ranread_results.histogram and
-- ranread_batches.histogram: merge them, read percentiles and buckets.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_hist_merge_sfunc(internal, bytea)
RETURNS internal
AS 'MODULE_PATHNAME', 'ranread_hist_merge_sfunc'
LANGUAGE C CALLED ON NULL INPUT IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE FUNCTION ranread_internal.ranread_hist_merge_final(internal)
RETURNS bytea
AS 'MODULE_PATHNAME', 'ranread_hist_merge_final'
LANGUAGE C CALLED ON NULL INPUT IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE AGGREGATE @extschema@.ranread_hist_merge(bytea) (
    SFUNC = ranread_internal.ranread_hist_merge_sfunc,
    STYPE = internal,
    FINALFUNC = ranread_internal.ranread_hist_merge_final
);

CREATE OR REPLACE FUNCTION @extschema@.ranread_hist_percentile(histogram bytea, percentile float8)
RETURNS float8
AS 'MODULE_PATHNAME', 'ranread_hist_percentile'
LANGUAGE C STRICT IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE FUNCTION @extschema@.ranread_hist_count(histogram bytea)
RETURNS bigint
AS 'MODULE_PATHNAME', 'ranread_hist_count'
LANGUAGE C STRICT IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE FUNCTION @extschema@.ranread_hist_buckets(histogram bytea,
    OUT low_ms float8, OUT high_ms float8, OUT count bigint)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'ranread_hist_buckets'
LANGUAGE C STRICT IMMUTABLE PARALLEL SAFE;

-- SNIA's steady-state rule on five rounds' IOPS, the one every duration
-- batch is judged by (ranread_summary.steady; src/run/figures.c): steady when
-- max - min is within 20% of the mean and the trend (least-squares slope x
-- 4) within 10% of it; excursion and slope are relative to the mean.  1.2:
-- with round_seconds, rounds shorter than 2 s or of fewer than 100 I/Os are
-- too short to judge (steady NULL); verdict says it in words, the rule
-- stated and the part that failed named (the end NOTICE of a batch says the
-- same).
CREATE OR REPLACE FUNCTION @extschema@.ranread_steady_verdict(rounds float8[], round_seconds float8 DEFAULT NULL,
    OUT steady boolean, OUT excursion float8, OUT slope float8, OUT verdict text)
AS 'MODULE_PATHNAME', 'ranread_steady_verdict'
LANGUAGE C CALLED ON NULL INPUT IMMUTABLE PARALLEL SAFE;

-- Where each process's first n I/Os would go (byte offsets in the target),
-- chosen by the engines' own code; no I/O is done.
CREATE OR REPLACE FUNCTION @extschema@.ranread_blocks(
    processes integer,
    n            integer  DEFAULT 10,
    target name DEFAULT 'ranread',
    block_size integer DEFAULT 8192,
    pattern text DEFAULT 'random',
    region_start float8 DEFAULT 0,
    region_end float8 DEFAULT 100,
    seed bigint DEFAULT 0,
    distribution text DEFAULT 'uniform',
    -- not rest: only what chooses where an I/O goes matters here, as no I/O is done
    OUT process     integer,
    OUT seq         integer,
    OUT byte_offset bigint)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'ranread_blocks'
LANGUAGE C CALLED ON NULL INPUT STABLE;
-- 1.1, percentiles over time (docs/charts-and-reports.md, "Percentiles over
-- time"): each second's latency percentiles from its merged histogram
-- (ranread_intervals.histogram; src/run/batch.h says how the leader takes them),
-- never from averages.

-- One row per batch and second: the I/Os counted by completion (ios) and
-- those the second's histograms hold (every group merged), and their p50,
-- p99 and p99.9.  A second without a histogram in some group (not timed,
-- or not taken) has NULL figures.
CREATE OR REPLACE VIEW @extschema@.ranread_percentiles_over_time AS
SELECT m.batch, m.second, m.ios,
       @extschema@.ranread_hist_count(m.h) AS histogram_ios,
       ranread_internal.ranread_round(@extschema@.ranread_hist_percentile(m.h, 50), 3)::numeric(15,3) AS p50_ms,
       ranread_internal.ranread_round(@extschema@.ranread_hist_percentile(m.h, 99), 3)::numeric(15,3) AS p99_ms,
       ranread_internal.ranread_round(@extschema@.ranread_hist_percentile(m.h, 99.9), 3)::numeric(15,3) AS p999_ms
  FROM (SELECT i.batch, i.second, sum(i.reads + i.writes) AS ios,
               CASE WHEN bool_and(i.histogram IS NOT NULL)
                    THEN @extschema@.ranread_hist_merge(i.histogram) END AS h
          FROM @extschema@.ranread_intervals i
         GROUP BY i.batch, i.second) m;
COMMENT ON VIEW @extschema@.ranread_percentiles_over_time IS
    'History: per batch and second, the latency percentiles (ms) from the second''s merged histograms, not from averages';
REVOKE ALL ON @extschema@.ranread_percentiles_over_time FROM PUBLIC;

-- One row per batch and second as a person reads it (README, "Reading the
-- results"): ranread_intervals without its histograms (kilobytes of bytea
-- a row), every group of a mix added up: the I/Os, IOPS, the average
-- latency (weighted by the I/Os), p99 from the second's merged histograms
-- (NULL where one was not taken) and the slowest I/O, rounded as
-- ranread_summary_full.  A figure a damaged row makes too large for its
-- column (counts past a bigint, latencies of 1e20 ms) is NULL, never an
-- error for everyone who reads the view.  New in 1.2.
CREATE OR REPLACE VIEW @extschema@.ranread_seconds AS
SELECT m.batch, m.second,
       CASE WHEN pg_catalog.abs(m.reads) OPERATOR(pg_catalog.<=) 9223372036854775807 THEN m.reads::bigint END AS reads,
       CASE WHEN pg_catalog.abs(m.writes) OPERATOR(pg_catalog.<=) 9223372036854775807 THEN m.writes::bigint END AS writes,
       ranread_internal.ranread_round(CASE WHEN pg_catalog.abs(m.iops) OPERATOR(pg_catalog.<) 1e18 THEN m.iops END, 0, 18)::bigint AS iops,
       ranread_internal.ranread_round(CASE WHEN pg_catalog.abs(m.avg_ms) OPERATOR(pg_catalog.<) 1e12 THEN m.avg_ms END, 3, 15)::numeric(15,3) AS avg_ms,
       ranread_internal.ranread_round(@extschema@.ranread_hist_percentile(m.h, 99), 3)::numeric(15,3) AS p99_ms,
       ranread_internal.ranread_round(m.max_ms, 3, 15)::numeric(15,3) AS max_ms
  FROM (SELECT i.batch, i.second, sum(i.reads) AS reads, sum(i.writes) AS writes,
               -- in numeric: no sum or product of a damaged row overflows
               sum(i.iops::numeric) AS iops,
               sum(i.avg_ms::numeric * (i.reads::numeric + i.writes))
                 / NULLIF(sum(i.reads::numeric + i.writes) FILTER (WHERE i.avg_ms IS NOT NULL), 0) AS avg_ms,
               max(i.max_ms) AS max_ms,
               CASE WHEN bool_and(i.histogram IS NOT NULL)
                    THEN @extschema@.ranread_hist_merge(i.histogram) END AS h
          FROM @extschema@.ranread_intervals i
         GROUP BY i.batch, i.second) m;
COMMENT ON VIEW @extschema@.ranread_seconds IS
    'History: per batch and second, every group added up: I/Os, IOPS, average, p99 and slowest latency (ms, rounded); the histograms are in ranread_intervals';
REVOKE ALL ON @extschema@.ranread_seconds FROM PUBLIC;
-- A batch's point, read back (1.2): what the study views, grids, charts,
-- profiles, the report and ranread_latency_target_verdict take of
-- ranread_batches.point.  A point is checked before its batch runs
-- (src/workload/point.c: a study's {"n", coordinates} or a search's window, each
-- value of its type and range); a row of 1.1, whose points nothing
-- checked, may hold anything.  So no reader casts a key of a point
-- itself: it reads a number through these functions, which give NULL for
-- what is not one, and skips a batch whose point is not a study's (or a
-- window's), saying so, rather than failing for everyone on one row.

-- A JSON number that is an integer from lo to hi, as bigint (what
-- src/workload/point.c takes: no fraction, as jsonb prints it); NULL for anything
-- else.  Pure.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_json_int(v jsonb, lo bigint, hi bigint)
RETURNS bigint
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN pg_catalog.jsonb_typeof(v) OPERATOR(pg_catalog.=) 'number'
                     AND (v #>> '{}') OPERATOR(pg_catalog.~) '^-?[0-9]{1,18}$'
                THEN CASE WHEN (v #>> '{}')::bigint BETWEEN lo AND hi THEN (v #>> '{}')::bigint END END
$$;

-- A JSON number that a float8 holds (0, or 1e-300 to 1e300 either way),
-- as float8; NULL for anything else.  Pure.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_json_float(v jsonb)
RETURNS float8
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN pg_catalog.jsonb_typeof(v) OPERATOR(pg_catalog.=) 'number'
                THEN CASE WHEN pg_catalog.abs((v #>> '{}')::numeric) OPERATOR(pg_catalog.=) 0
                            OR pg_catalog.abs((v #>> '{}')::numeric) BETWEEN 1e-300 AND 1e300
                          THEN (v #>> '{}')::float8 END END
$$;

-- Is it a study's point, as its readers take it: an object with its
-- number n (1 or more) and every integer coordinate (processes,
-- queue_depth, block_size, write_pct, small, large, pass) an integer that
-- an integer column holds?  Pure.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_study_point_ok(point jsonb)
RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN pg_catalog.jsonb_typeof(point) OPERATOR(pg_catalog.=) 'object' THEN
               ranread_internal.ranread_json_int(point -> 'n', 1, 2147483647) IS NOT NULL
               AND NOT EXISTS (SELECT FROM pg_catalog.jsonb_each(point) e
                                WHERE e.key OPERATOR(pg_catalog.=) ANY (ARRAY['processes', 'queue_depth', 'block_size',
                                                                               'write_pct', 'small', 'large', 'pass'])
                                  AND ranread_internal.ranread_json_int(e.value, 0, 2147483647) IS NULL)
           ELSE false END
$$;

-- Is it a window of a latency-target search, as
-- ranread_latency_target_verdict takes it: the search's id an integer,
-- the window's step, load and max_load integers (1 or more), the dimension searched,
-- target_ms a number above 0 and percentile one between 0 and 100?  Pure.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_window_ok(point jsonb)
RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN pg_catalog.jsonb_typeof(point) OPERATOR(pg_catalog.=) 'object' THEN
               ranread_internal.ranread_json_int(point -> 'latency_target', -9223372036854775807, 9223372036854775807) IS NOT NULL
               AND ranread_internal.ranread_json_int(point -> 'step', 1, 2147483647) IS NOT NULL
               AND ranread_internal.ranread_json_int(point -> 'load', 1, 2147483647) IS NOT NULL
               AND ranread_internal.ranread_json_int(point -> 'max_load', 1, 2147483647) IS NOT NULL
               AND coalesce(ranread_internal.ranread_json_float(point -> 'target_ms') OPERATOR(pg_catalog.>) 0, false)
               AND coalesce(ranread_internal.ranread_json_float(point -> 'percentile') OPERATOR(pg_catalog.>) 0
                            AND ranread_internal.ranread_json_float(point -> 'percentile') OPERATOR(pg_catalog.<) 100, false)
               AND coalesce((point ->> 'dimension') OPERATOR(pg_catalog.=) ANY (ARRAY['queue_depth', 'processes']), false)
           ELSE false END
$$;

-- How a reader says what it skipped: 'skipped: N batch(es) ...what', or
-- NULL for none.  Pure.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_skipped(n bigint, what text)
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN n OPERATOR(pg_catalog.>) 0 THEN
               pg_catalog.format('skipped: %s %s %s', n,
                                 CASE WHEN n OPERATOR(pg_catalog.=) 1 THEN 'batch' ELSE 'batches' END, what) END
$$;
-- 1.2, progress: what runs now and how far it is, for any session
-- (docs/running.md, "Watching a run from another session"; src/history/progress.c).
-- Nothing is stored: each backend that leads a batch, fills a target or
-- verifies one publishes where it is in shared memory, and the calls that
-- run many batches (sweeps, studies, fleets) say their step with
-- ranread_progress_call.

-- The sweep (study, latency_target, fleet) of this id, which this session
-- runs now, is at phase, step of steps (NULL: none), and needs about after
-- seconds once this step is over; until: when this phase ends, where no
-- batch of this session says it (a fleet's nodes run).
CREATE OR REPLACE FUNCTION ranread_internal.ranread_progress_call(kind text, id bigint, phase text,
    step integer DEFAULT NULL, steps integer DEFAULT NULL, after float8 DEFAULT NULL,
    until timestamptz DEFAULT NULL)
RETURNS void
AS 'MODULE_PATHNAME', 'ranread_progress_call'
LANGUAGE C CALLED ON NULL INPUT VOLATILE;

-- What runs now in this database: a row per call (with the work of its
-- backend) and per work no call is around; seconds unrounded
CREATE OR REPLACE FUNCTION ranread_internal.ranread_progress_rows(
    OUT pid integer, OUT role name, OUT kind text, OUT id bigint, OUT target text,
    OUT batch bigint, OUT phase text, OUT step integer, OUT steps integer,
    OUT processes integer, OUT ios bigint, OUT seconds float8, OUT iops float8,
    OUT p99_ms float8, OUT bytes_done bigint, OUT bytes_total bigint,
    OUT started_at timestamptz, OUT remaining float8)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'ranread_progress_rows'
LANGUAGE C STRICT VOLATILE;

-- What runs now, every column, as pg_stat_progress_* views show it (for
-- programs; a person reads ranread_progress, or this with \gx): the call
-- and its batch in one row (kind run, probe, commit_test, sweep, study,
-- latency_target, fleet, setup, verify), its phase, step of steps (a
-- sweep's: the most it may take), the I/Os and measured seconds of the
-- batch so far, the IOPS and p99 of its last seconds, bytes done of a
-- setup or verify, the time left and when it should be done (for a sweep,
-- at the latest).
CREATE OR REPLACE VIEW @extschema@.ranread_progress_full AS
SELECT r.pid, r.role, r.kind, r.id, r.target, r.batch, r.phase, r.step, r.steps, r.processes, r.ios,
       ranread_internal.ranread_round(r.seconds, 1)::numeric(12,1) AS seconds,
       ranread_internal.ranread_round(r.iops, 0)::bigint AS iops,
       ranread_internal.ranread_round(r.p99_ms, 3)::numeric(15,3) AS p99_ms,
       r.bytes_done, r.bytes_total,
       CASE WHEN r.bytes_total > 0
            THEN ranread_internal.ranread_round(100.0 * r.bytes_done / r.bytes_total, 1)::numeric(4,1) END AS pct_done,
       r.started_at,
       make_interval(secs => round(r.remaining)) AS remaining,
       date_trunc('second', clock_timestamp() + make_interval(secs => round(r.remaining))) AS eta
  FROM ranread_internal.ranread_progress_rows() r;

-- What runs now, a row that fits a screen of 120 columns (README, "Reading
-- the results"): what runs (the kind and its id: 'sweep 3', 'run 17',
-- 'setup'), the batch in it, its phase, how far (step 2 of 8, a search's
-- window 4, a setup's or verify's share of bytes '37.5%'), the batch's
-- I/Os, measured seconds, IOPS and p99 of its last seconds, and when it
-- should be done: the time of day, or the day and minute ('07 Dec 02:15')
-- when not today (in the session's time zone), so that the widest row
-- (a 10-digit I/O count, a p99 of seconds) stays within 120 columns.
-- Every column: ranread_progress_full.
CREATE OR REPLACE VIEW @extschema@.ranread_progress AS
SELECT f.kind || coalesce(' ' || f.id, '') AS running, f.batch, f.phase,
       CASE WHEN f.pct_done IS NOT NULL THEN f.pct_done || '%'
            WHEN f.steps IS NOT NULL THEN f.step || ' of ' || f.steps
            ELSE f.step::text END AS step,
       f.ios, f.seconds, f.iops, f.p99_ms,
       CASE WHEN f.eta::date = clock_timestamp()::date THEN to_char(f.eta, 'HH24:MI:SS')
            ELSE to_char(f.eta, 'DD Mon HH24:MI') END AS eta
  FROM @extschema@.ranread_progress_full f;
-- Reports: the sweep (the methodology as one call) and its verdict, and
-- the summary export (C, src/report/export.c).  The sweep's chart and a
-- batch's timeline are in 30_charts.sql.
--
-- Every object is schema-qualified and every PL/pgSQL function pins
-- search_path, so neither this script nor the functions depend on the
-- caller's search_path.  The sweep's rules and steps are in
-- ranread_internal: ranread_sweep is C (src/workload/forward.c) that hands its
-- workload, as one spec, to ranread_internal.ranread_sweep.

-- The all-flash guidance (the methodology's: random reads of all-flash
-- storage average at most 2 ms and none takes more than 5 ms), one
-- definition, pure: met when the average is within 2 ms and the slowest I/O
-- within 5 ms; verdict says it in words, the rule stated, each part's
-- figure and which failed.  Not measured (no latency): met NULL.
CREATE OR REPLACE FUNCTION @extschema@.ranread_flash_guidance(avg_ms float8, max_ms float8,
    OUT met boolean, OUT verdict text)
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    rule constant text := 'all-flash guidance: an average of at most 2 ms and no I/O above 5 ms';
    a text := round(avg_ms::numeric, 3) || ' ms';
    m text := round(max_ms::numeric, 3) || ' ms';
BEGIN
    IF avg_ms IS NULL OR max_ms IS NULL OR avg_ms = 'NaN' OR max_ms = 'NaN' THEN
        verdict := format('not judged (%s): latency was not measured', rule);
        RETURN;
    END IF;
    met := avg_ms <= 2 AND max_ms <= 5;
    verdict := CASE
        WHEN met THEN format('met (%s): average %s and the slowest I/O %s', rule, a, m)
        WHEN avg_ms > 2 AND max_ms > 5
            THEN format('not met (%s): the average, %s, is above 2 ms, and the slowest I/O took %s, above 5 ms', rule, a, m)
        WHEN max_ms > 5
            THEN format('not met (%s): the slowest I/O took %s, above 5 ms (the average, %s, is within 2 ms)', rule, m, a)
        ELSE format('not met (%s): the average, %s, is above 2 ms (the slowest I/O, %s, is within 5 ms)', rule, a, m) END;
END
$$;

-- Each sweep's verdict, one query away, its figures as a person reads
-- them (ranread_sweeps keeps them whole), and the all-flash guidance in
-- words: the rule and the part that failed (ranread_flash_guidance).
CREATE OR REPLACE VIEW @extschema@.ranread_sweep_verdict AS
SELECT s.sweep,
       s.started_at,
       s.target,
       s.block_size,
       s.write_pct,
       s.queue_depth,
       s.pattern,
       s.max_avg_ms,
       s.steps,
       ranread_internal.ranread_round(s.max_iops, 0)::bigint AS max_iops,
       ranread_internal.ranread_round(s.actual_latency_ms, 3)::numeric(15,3) AS actual_latency_ms,
       s.max_iops_processes AS processes,
       s.max_iops_batch AS batch,
       s.meets_flash_guidance,
       s.stop_reason,
       f.verdict AS flash_guidance
  FROM @extschema@.ranread_sweeps s
  LEFT JOIN @extschema@.ranread_batches b ON b.batch = s.max_iops_batch
  LEFT JOIN LATERAL @extschema@.ranread_flash_guidance(s.actual_latency_ms, b.max_ms) f ON s.max_iops_batch IS NOT NULL;

-- The limits ranread_run enforces (src/ranread.h).
CREATE OR REPLACE FUNCTION @extschema@.ranread_limits(
    OUT max_processes   integer,
    OUT max_queue_depth integer,
    OUT max_inflight    integer,
    OUT max_inflight_bytes bigint)
AS 'MODULE_PATHNAME', 'ranread_limits'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

-- What a sweep does next, given its steps so far: the processes of the next
-- step, or NULL and why it stops.  Pure, so the rules can be tested on known
-- numbers.  The rules, in order:
--   status         the last batch did not complete
--   latency        average latency above max_avg_ms on the last two steps
--   scaling        the last step gained less than 10% of what linear
--                  scaling would add (or lost IOPS):
--                  iops - prev_iops < 0.10 * prev_iops * (processes / prev_processes - 1)
--   max_processes  the last step ran max_processes
-- Steps double the processes; a doubling past max_processes is clamped to
-- max_processes, so a sweep always ends by measuring max_processes itself
-- unless another rule stops it first (start 10, max 100: 10, 20, 40, 80, 100).
-- Each stop_reason starts with the rule's name and a colon, then the
-- figures that broke it, worded as they moved (IOPS that fell fell).
CREATE OR REPLACE FUNCTION ranread_internal.ranread_sweep_next(
    steps          @extschema@.ranread_sweep_step[],
    start          integer,
    max_processes  integer,
    max_avg_ms     float8,
    OUT next_processes integer,
    OUT stop_reason    text)
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    n      integer := coalesce(cardinality(steps), 0);
    cur    @extschema@.ranread_sweep_step;
    prev   @extschema@.ranread_sweep_step;
    linear float8;
BEGIN
    IF n = 0 THEN
        next_processes := start;
        RETURN;
    END IF;

    cur := steps[array_upper(steps, 1)];
    IF cur.status IS DISTINCT FROM 'completed' THEN
        stop_reason := format('status: batch %s at %s ended %s, not completed',
                              cur.batch, ranread_internal.ranread_count_words(cur.processes, 'process'),
                              coalesce(cur.status, 'without a status'));
        RETURN;
    END IF;

    IF n >= 2 THEN
        prev := steps[array_upper(steps, 1) - 1];

        IF cur.avg_ms > max_avg_ms AND prev.avg_ms > max_avg_ms THEN
            stop_reason := format('latency: average %s ms at %s and %s ms at %s, both above the %s ms bound',
                                  round(prev.avg_ms::numeric, 2), ranread_internal.ranread_count_words(prev.processes, 'process'),
                                  round(cur.avg_ms::numeric, 2), ranread_internal.ranread_count_words(cur.processes, 'process'),
                                  max_avg_ms);
            RETURN;
        END IF;

        linear := prev.iops * (cur.processes::float8 / prev.processes - 1);
        IF cur.iops - prev.iops < 0.10 * linear THEN
            stop_reason := format('scaling: going from %s to %s %s; a step must gain at least 10%% of the %s IOPS linear scaling would add',
                                  prev.processes, ranread_internal.ranread_count_words(cur.processes, 'process'),
                                  CASE WHEN cur.iops < prev.iops
                                       THEN format('lowered IOPS from %s to %s, a fall of %s%%',
                                                   round(prev.iops::numeric), round(cur.iops::numeric),
                                                   round((100 * (prev.iops - cur.iops) / prev.iops)::numeric, 1))
                                       WHEN cur.iops = prev.iops
                                       THEN format('left IOPS at %s', round(cur.iops::numeric))
                                       ELSE format('raised IOPS from %s to %s, a gain of %s, %s%% of linear scaling',
                                                   round(prev.iops::numeric), round(cur.iops::numeric),
                                                   round((cur.iops - prev.iops)::numeric),
                                                   round((100 * (cur.iops - prev.iops) / linear)::numeric, 1)) END,
                                  round(linear::numeric));
            RETURN;
        END IF;
    END IF;

    IF cur.processes >= max_processes THEN
        stop_reason := format('max_processes: the step at %s reached max_processes %s',
                              ranread_internal.ranread_count_words(cur.processes, 'process'), max_processes);
        RETURN;
    END IF;

    next_processes := least(cur.processes::bigint * 2, max_processes)::integer;
END
$$;

-- A sweep's verdict from its steps: the highest IOPS among completed steps
-- whose average latency is within max_avg_ms (ties: fewer processes), that
-- step's average latency, processes and batch, and whether it meets the
-- all-flash guidance (ranread_flash_guidance: average <= 2 ms, no I/O above
-- 5 ms).  All NULL, and meets_flash_guidance false, when no step is within
-- the bound.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_sweep_judge(
    steps       @extschema@.ranread_sweep_step[],
    max_avg_ms  float8,
    OUT max_iops             float8,
    OUT actual_latency_ms    float8,
    OUT processes            integer,
    OUT batch                bigint,
    OUT meets_flash_guidance boolean)
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    SELECT s.iops, s.avg_ms, s.processes, s.batch,
           coalesce((@extschema@.ranread_flash_guidance(s.avg_ms, s.max_ms)).met, false)
      INTO max_iops, actual_latency_ms, processes, batch, meets_flash_guidance
      FROM unnest(steps) AS s
     WHERE s.status = 'completed'
       AND s.avg_ms <= max_avg_ms
       AND s.iops IS NOT NULL
     ORDER BY s.iops DESC, s.processes, s.step
     LIMIT 1;
    meets_flash_guidance := coalesce(meets_flash_guidance, false);
END
$$;

-- The sweep's own arguments, checked before any batch runs: the steps'
-- processes within the limits, at the workload's queue depth and block
-- size (queue_depth, block_size and workers as the spec has them; the other
-- options are the parser's, which ranread_sweep asks before the first step).
CREATE OR REPLACE FUNCTION ranread_internal.ranread_sweep_check(
    start integer, max_processes integer, max_avg_ms float8,
    queue_depth integer, block_size integer, workers integer)
RETURNS void
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    lim record;
BEGIN
    SELECT * INTO lim FROM @extschema@.ranread_limits();
    IF start IS NULL OR start < 1 OR start > lim.max_processes THEN
        RAISE EXCEPTION USING
            ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('invalid start %s for ranread_sweep', coalesce(start::text, 'NULL')),
            HINT = format('start is the number of processes of the first step: 1 to %s.',
                          lim.max_processes);
    END IF;
    IF max_processes IS NULL OR max_processes < start OR max_processes > lim.max_processes THEN
        RAISE EXCEPTION USING
            ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('invalid max_processes %s for ranread_sweep',
                             coalesce(max_processes::text, 'NULL')),
            HINT = format('max_processes must be between start (%s) and %s.',
                          start, lim.max_processes);
    END IF;
    IF queue_depth BETWEEN 1 AND lim.max_queue_depth
       AND max_processes::bigint * queue_depth > lim.max_inflight THEN
        RAISE EXCEPTION USING
            ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('invalid max_processes %s for ranread_sweep with queue_depth %s',
                             max_processes, queue_depth),
            HINT = format('max_processes x queue_depth must be at most %s I/Os in flight.',
                          lim.max_inflight);
    END IF;
    IF queue_depth BETWEEN 1 AND lim.max_queue_depth AND block_size > 0
       AND max_processes::bigint * queue_depth * block_size > lim.max_inflight_bytes THEN
        RAISE EXCEPTION USING
            ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('invalid max_processes %s for ranread_sweep with queue_depth %s and block_size %s',
                             max_processes, queue_depth, block_size),
            HINT = format('max_processes x queue_depth x block_size must be at most %s bytes of I/O buffers.',
                          lim.max_inflight_bytes);
    END IF;
    IF workers < 1 OR workers > start THEN
        RAISE EXCEPTION USING
            ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('workers of ranread_sweep must be between 1 and %s, not %s', start, workers),
            HINT = format('workers must be between 1 and start (%s), the processes of the smallest step, or NULL to let each step choose.',
                          start);
    END IF;
    IF max_avg_ms IS NULL OR NOT (max_avg_ms > 0)
       OR max_avg_ms IN ('NaN'::float8, 'Infinity'::float8) THEN
        RAISE EXCEPTION USING
            ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('invalid max_avg_ms %s for ranread_sweep',
                             coalesce(max_avg_ms::text, 'NULL')),
            HINT = 'max_avg_ms is the bound on average latency in milliseconds: a finite number greater than 0, such as 10.';
    END IF;
END
$$;

-- The steps of a sweep: its workload at start, 2 x start ... processes
-- (the last clamped to max_processes) until ranread_sweep_next says stop;
-- each step a batch of the sweep, said beforehand to ranread_progress
-- (step i of at most n).  Returns the steps and why they stopped.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_sweep_run(
    sweep_id bigint, start integer, max_processes integer, max_avg_ms float8, spec jsonb,
    OUT steps @extschema@.ranread_sweep_step[], OUT reason text)
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    nxt    record;
    r      ranread_internal.ranread_step_result;
    left_n integer;
    p      integer;
    step_s float8 := extract(epoch FROM (spec ->> 'duration')::interval
                                        + coalesce((spec ->> 'warmup')::interval, '0'));
BEGIN
    steps := '{}';
    LOOP
        SELECT * INTO nxt
          FROM ranread_internal.ranread_sweep_next(steps, start, max_processes, max_avg_ms);
        reason := nxt.stop_reason;
        EXIT WHEN nxt.next_processes IS NULL;

        -- where it is, for ranread_progress and the step's progress line: the
        -- steps that may follow this one (each twice the processes, up to
        -- max_processes), each as long as this one
        left_n := 0;
        p := nxt.next_processes;
        WHILE p < max_processes LOOP
            p := least(p::bigint * 2, max_processes)::integer;
            left_n := left_n + 1;
        END LOOP;
        PERFORM ranread_internal.ranread_progress_call('sweep', sweep_id, 'starting step',
            cardinality(steps) + 1, cardinality(steps) + 1 + left_n, left_n * step_s);

        SELECT * INTO r
          FROM @extschema@.ranread_run_step(ranread_internal.ranread_spec(
                   jsonb_build_object('processes', nxt.next_processes, 'sweep', sweep_id), spec)) g
         WHERE g.grp = 0;
        steps := steps || ROW(cardinality(steps) + 1, r.processes, r.batch, r.iops, r.avg_ms,
                              r.p99_ms, r.max_ms, r.status)::@extschema@.ranread_sweep_step;
        PERFORM ranread_internal.ranread_sweep_say_step('sweep', sweep_id, steps[cardinality(steps)]);
    END LOOP;
END
$$;

-- A step of a sweep (kind 'sweep') or a fleet sweep ('fleet sweep', whose
-- steps are fleets of processes per node) in one NOTICE: its batches' own
-- NOTICEs are DEBUG1 (a step's batch says no more than its call).
CREATE OR REPLACE FUNCTION ranread_internal.ranread_sweep_say_step(
    kind text, sweep_id bigint, step @extschema@.ranread_sweep_step)
RETURNS void
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    RAISE NOTICE '%', format('%s %s, step %s: %s process%s%s, %s %s: %s IOPS, average %s%s',
        kind, sweep_id, step.step, step.processes, CASE WHEN step.processes = 1 THEN '' ELSE 'es' END,
        CASE WHEN kind = 'fleet sweep' THEN ' per node' ELSE '' END,
        CASE WHEN kind = 'fleet sweep' THEN 'fleet' ELSE 'batch' END, step.batch,
        coalesce(round(step.iops::numeric)::text, 'no'),
        coalesce(round(step.avg_ms::numeric, 3) || ' ms', 'not measured'),
        CASE WHEN step.status IS DISTINCT FROM 'completed' THEN ', ' || coalesce(step.status, 'no status') ELSE '' END);
END
$$;

-- The verdict of a sweep (kind 'sweep') or a fleet sweep ('fleet sweep')
-- in NOTICEs: the most IOPS within the bound, or that none stayed within
-- it, or that latency was not measured; and why the steps stopped.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_sweep_say_end(
    kind text, sweep_id bigint, steps @extschema@.ranread_sweep_step[], reason text,
    max_avg_ms float8, verdict record)
RETURNS void
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    fleet boolean := kind = 'fleet sweep';
BEGIN
    IF NOT EXISTS (SELECT FROM unnest(steps) t WHERE t.avg_ms IS NOT NULL) THEN
        RAISE NOTICE '%: latency was not measured (ranread.timing = off), so there is no verdict on the % ms bound; the highest IOPS was % at % processes%',
            kind || ' ' || sweep_id, max_avg_ms,
            (SELECT round(max(t.iops)::numeric) FROM unnest(steps) t),
            (SELECT t.processes FROM unnest(steps) t ORDER BY t.iops DESC NULLS LAST LIMIT 1),
            CASE WHEN fleet THEN ' per node' ELSE '' END;
    ELSIF verdict.max_iops IS NULL THEN
        RAISE NOTICE '%: no step stayed within the % ms average latency bound', kind || ' ' || sweep_id, max_avg_ms;
    ELSE
        RAISE NOTICE '%: max % IOPS% within % ms average latency, at % (average % ms, % %); %',
            kind || ' ' || sweep_id, round(verdict.max_iops::numeric),
            CASE WHEN fleet THEN ' for the fleet' ELSE '' END, max_avg_ms,
            ranread_internal.ranread_count_words(verdict.processes, 'process') || CASE WHEN fleet THEN ' per node' ELSE '' END,
            round(verdict.actual_latency_ms::numeric, 3),
            CASE WHEN fleet THEN 'fleet' ELSE 'batch' END, verdict.batch,
            (SELECT f.verdict FROM unnest(steps) t, LATERAL @extschema@.ranread_flash_guidance(t.avg_ms, t.max_ms) f
              WHERE t.batch = verdict.batch LIMIT 1);
    END IF;
    RAISE NOTICE '% % stopped on %', kind, sweep_id, reason;
END
$$;

-- The sweep's verdict, recorded in ranread_sweeps and said in NOTICEs.
-- It runs as the extension's owner (SECURITY DEFINER), so that no role
-- needs INSERT on ranread_sweeps, where a row of its own making could take
-- the id the next sweep will take or carry figures no batch had.  The row
-- recorded is that of the sweep this session runs now in this transaction
-- (the id it took and registered, ranread_call_register), started by the
-- role that registered it, at the time it did; and everything in it but
-- the sweep's own arguments comes from the history, never from the
-- caller: its steps are the batches that carry the sweep's id (which only
-- this call can give a batch: src/history/calls.c, src/workload/workload.c) started by that
-- role, in the order they ran; the workload is theirs, one for all; the
-- verdict (ranread_sweep_judge) and why the steps stopped
-- (ranread_sweep_next) are worked out again from them.  Steps that are not
-- those of a sweep from start to max_processes (a step whose history was
-- not written, or batches run by hand) are not recorded: a WARNING says
-- so.  max_avg_ms is a finite number above 0.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_sweep_record(
    sweep_id bigint, start integer, max_processes integer, max_avg_ms float8)
RETURNS void
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    verdict record;
    reg     record;
    first   record;
    nxt     record;
    steps   @extschema@.ranread_sweep_step[];
    reason  text;
    why     text;
BEGIN
    SELECT c.started_by, c.started_at INTO reg
      FROM ranread_internal.ranread_running_calls() c
     WHERE c.kind OPERATOR(pg_catalog.=) 'sweep' AND c.id OPERATOR(pg_catalog.=) sweep_id
       AND c.pid OPERATOR(pg_catalog.=) pg_catalog.pg_backend_pid();
    IF NOT FOUND OR reg.started_by IS NULL THEN
        RAISE EXCEPTION USING
            ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('sweep %s of ranread_sweep_record is not the sweep this session runs now',
                             coalesce(sweep_id::text, 'NULL')),
            HINT = 'A sweep''s row is recorded by the ranread_sweep call that took its id, when it returns.';
    END IF;
    IF max_avg_ms IS NULL OR NOT (max_avg_ms > 0 AND max_avg_ms < 'Infinity'::float8) THEN
        RAISE EXCEPTION USING
            ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('invalid max_avg_ms %s for ranread_sweep_record', coalesce(max_avg_ms::text, 'NULL')),
            HINT = 'max_avg_ms is the bound on average latency in milliseconds: a finite number greater than 0.';
    END IF;
    IF start IS NULL OR start < 1 OR max_processes IS NULL OR max_processes < start THEN
        RAISE EXCEPTION USING
            ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('invalid start %s and max_processes %s for ranread_sweep_record',
                             coalesce(start::text, 'NULL'), coalesce(max_processes::text, 'NULL')),
            HINT = 'They are the sweep''s own: start at least 1, max_processes at least start.';
    END IF;

    -- the steps: this call's batches, as the history has them
    SELECT array_agg(ROW(x.k, x.processes, x.batch, x.iops, x.avg_ms, x.p99_ms, x.max_ms, x.status)::@extschema@.ranread_sweep_step
                     ORDER BY x.k)
      INTO steps
      FROM (SELECT b.*, row_number() OVER (ORDER BY b.batch)::integer AS k
              FROM @extschema@.ranread_batches b
             WHERE b.sweep OPERATOR(pg_catalog.=) sweep_id
               AND b.started_by OPERATOR(pg_catalog.=) reg.started_by) x;
    SELECT b.target, b.block_size, b.write_pct, b.queue_depth, b.pattern, b.iterations, b.duration INTO first
      FROM @extschema@.ranread_batches b
     WHERE b.batch OPERATOR(pg_catalog.=) steps[1].batch;

    IF steps IS NULL THEN
        why := 'it has no batch in the history';
    ELSIF EXISTS (SELECT FROM @extschema@.ranread_batches b
                   WHERE b.batch OPERATOR(pg_catalog.=) ANY (ARRAY(SELECT t.batch FROM unnest(steps) t))
                     AND (b.target, b.block_size, b.write_pct, b.queue_depth, b.pattern, b.iterations, b.duration)
                         IS DISTINCT FROM (first.target, first.block_size, first.write_pct, first.queue_depth,
                                           first.pattern, first.iterations, first.duration)) THEN
        why := 'its batches do not share one workload';
    ELSE
        FOR i IN 1 .. cardinality(steps) LOOP
            SELECT * INTO nxt FROM ranread_internal.ranread_sweep_next(steps[1:i - 1], start, max_processes, max_avg_ms);
            IF nxt.next_processes IS DISTINCT FROM steps[i].processes THEN
                why := format('its batch %s at %s processes is not the step %s of a sweep from %s to %s processes',
                              steps[i].batch, steps[i].processes, i, start, max_processes);
                EXIT;
            END IF;
        END LOOP;
        IF why IS NULL THEN
            reason := (ranread_internal.ranread_sweep_next(steps, start, max_processes, max_avg_ms)).stop_reason;
            IF reason IS NULL THEN
                why := format('its %s batches do not end a sweep from %s to %s processes',
                              cardinality(steps), start, max_processes);
            END IF;
        END IF;
    END IF;
    IF why IS NOT NULL THEN
        RAISE WARNING 'sweep % is not recorded in ranread_sweeps: %', sweep_id, why
            USING DETAIL = 'A sweep''s row is worked out from its batches in the history, which a step whose history was not written leaves incomplete.',
                  HINT = 'Its batches stay in ranread_batches, with the sweep''s id.';
        RETURN;
    END IF;
    SELECT * INTO verdict FROM ranread_internal.ranread_sweep_judge(steps, max_avg_ms);

    INSERT INTO @extschema@.ranread_sweeps
        (sweep, started_at, finished_at, started_by, target, block_size, write_pct, queue_depth,
         pattern, start, max_processes, iterations, duration, max_avg_ms, steps,
         stop_reason, max_iops, actual_latency_ms, max_iops_processes, max_iops_batch,
         meets_flash_guidance)
    VALUES (sweep_id, reg.started_at, clock_timestamp(), reg.started_by, first.target, first.block_size,
            first.write_pct, first.queue_depth, first.pattern, start, max_processes, first.iterations,
            first.duration, max_avg_ms, cardinality(steps), reason,
            verdict.max_iops, verdict.actual_latency_ms, verdict.processes, verdict.batch,
            verdict.meets_flash_guidance);

    PERFORM ranread_internal.ranread_sweep_say_end('sweep', sweep_id, steps, reason, max_avg_ms, verdict);
END
$$;

-- ranread_sweep, behind the C function users call: the sweep's own
-- arguments and its workload's queue depth, block size and workers, bound
-- by name, and the workload as one spec (src/workload/forward.c).  Its rows are
-- ranread_sweep's (the caller's ReturnSetInfo gives their columns): one per
-- step, stop_reason on the last.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_sweep(
    start integer, max_processes integer, max_avg_ms float8,
    queue_depth integer, block_size integer, workers integer, spec jsonb)
RETURNS SETOF record
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    sweep_id  bigint;
    run       record;
BEGIN
    PERFORM ranread_internal.ranread_primary_only('ranread_sweep');
    PERFORM ranread_internal.ranread_require_read_committed('ranread_sweep',
        'Its row is worked out from its steps, which their workers record while it runs and a repeatable read snapshot cannot see; run it outside an explicit transaction.');
    -- every argument, before any batch runs: the sweep's, then the
    -- workload's as the first step reads it (its targets at that step)
    PERFORM ranread_internal.ranread_sweep_check(start, max_processes, max_avg_ms,
                                                 queue_depth, block_size, workers);
    PERFORM ranread_internal.ranread_spec_check(
        ranread_internal.ranread_spec(jsonb_build_object('processes', start), spec), false);

    sweep_id := nextval('@extschema@.ranread_sweep_seq'::regclass);
    PERFORM ranread_internal.ranread_call_register('sweep', sweep_id);
    SELECT * INTO run FROM ranread_internal.ranread_sweep_run(sweep_id, start, max_processes, max_avg_ms, spec);
    PERFORM ranread_internal.ranread_sweep_record(sweep_id, start, max_processes, max_avg_ms);
    RETURN QUERY
    SELECT s.step, s.processes, s.batch,
           ranread_internal.ranread_round(s.iops, 0)::bigint,
           ranread_internal.ranread_round(s.avg_ms, 3), ranread_internal.ranread_round(s.p99_ms, 3),
           ranread_internal.ranread_round(s.max_ms, 3),
           CASE WHEN s.avg_ms IS NULL AND s.status = 'completed' THEN NULL
                ELSE coalesce(s.status = 'completed' AND s.avg_ms <= max_avg_ms, false) END,
           CASE WHEN s.step = cardinality(run.steps) THEN run.reason END
      FROM unnest(run.steps) s
     ORDER BY s.step;
END
$$;

-- The methodology as one call: batches at start, 2 x start, 4 x start ...
-- processes (the last clamped to max_processes) until ranread_sweep_next
-- says stop.  One row per step; stop_reason on the last row only.  The
-- verdict goes to ranread_sweeps (see ranread_sweep_verdict).  The other
-- arguments are the workload of every step, checked before the first
-- starts any worker; their defaults are ranread_run's (ranread_options).
CREATE OR REPLACE FUNCTION @extschema@.ranread_sweep(
    start          integer  DEFAULT 10,
    max_processes  integer  DEFAULT 1280,
    iterations bigint DEFAULT NULL,
    duration interval DEFAULT '30s',
    max_avg_ms     float8   DEFAULT 10,
    target name DEFAULT 'ranread',
    block_size integer DEFAULT 8192,
    write_pct integer DEFAULT 0,
    queue_depth integer DEFAULT 1,
    pattern text DEFAULT 'random',
    region_start float8 DEFAULT 0,
    region_end float8 DEFAULT 100,
    warmup interval DEFAULT '0',
    rate_iops integer DEFAULT NULL,
    seed bigint DEFAULT NULL,
    workers integer DEFAULT NULL,
    distribution text DEFAULT 'uniform',
    steady_state text DEFAULT NULL,
    sync text DEFAULT NULL,
    io_priority text DEFAULT NULL,
    verify boolean DEFAULT false,
    path text DEFAULT 'device',
    effective_io_concurrency integer DEFAULT NULL)
    -- not processes: each step's, from start and max_processes
    -- not start_at: the steps start one after another
RETURNS TABLE (
    step           integer,
    processes      integer,
    batch          bigint,
    iops           bigint,
    avg_ms         numeric,
    p99_ms         numeric,
    max_ms         numeric,
    within_bound   boolean,
    stop_reason    text)
AS 'MODULE_PATHNAME', 'ranread_forward'
LANGUAGE C CALLED ON NULL INPUT VOLATILE;

-- The summary to a server file (tsv, csv, json) or the chart (svg).
CREATE OR REPLACE FUNCTION @extschema@.ranread_export(
    directory text,
    format    text DEFAULT 'tsv')
RETURNS text
AS 'MODULE_PATHNAME', 'ranread_export'
LANGUAGE C CALLED ON NULL INPUT VOLATILE
SET search_path = pg_catalog, pg_temp;
-- 1.1, the latency-target search: the highest load at which a share of the
-- I/Os stays within a latency bound, found as fio's latency_target finds
-- it.
--
-- A search is recorded in its batches, one per window: each carries, in
-- ranread_batches.point, the search's id (from ranread_latency_target_seq),
-- the window's step and load and the search's settings.  The verdict
-- (ranread_latency_target_verdict) is worked out again from those rows by
-- the same rule that ran the search, so it needs no row of its own: a
-- search cancelled half-way still shows what it found (as interrupted), and
-- ranread_reset removes searches with their batches.
--
-- Every object is schema-qualified and every function pins search_path.


-- The percentage of a histogram's I/Os that took at most limit_ms: whole
-- buckets below the limit, and the bucket the limit falls in in proportion
-- (linear within the bucket); 0 below the fastest I/O, 100 at or above the
-- slowest.  NULL for an empty histogram; NaN is no limit and is refused.
CREATE OR REPLACE FUNCTION @extschema@.ranread_hist_within(histogram bytea, limit_ms float8)
RETURNS float8
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF limit_ms = 'NaN' THEN
        RAISE EXCEPTION 'limit_ms must be a number of milliseconds, not NaN'
            USING ERRCODE = '22023',
                  HINT = 'Any value from -Infinity to Infinity is allowed: below the fastest I/O gives 0, at or above the slowest 100.';
    END IF;
    RETURN (
    SELECT CASE WHEN s.total IS NULL OR s.total = 0 THEN NULL
                WHEN limit_ms >= m.slowest THEN 100
                WHEN limit_ms < m.fastest THEN 0
                ELSE least(100, 100 * s.within / s.total) END
      FROM (SELECT sum(b.count)::float8 AS total,
                   sum(CASE WHEN b.high_ms <= limit_ms THEN b.count
                            WHEN b.low_ms >= limit_ms THEN 0
                            ELSE b.count * (limit_ms - b.low_ms) / (b.high_ms - b.low_ms) END) AS within
              FROM @extschema@.ranread_hist_buckets(histogram) b) s,
           (SELECT @extschema@.ranread_hist_percentile(histogram, 0) AS fastest,
                   @extschema@.ranread_hist_percentile(histogram, 100) AS slowest) m);
END
$$;

-- A window's figures for the search: the share within target_ms and the
-- latency at percentile, from the batch's merged histogram.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_latency_window(histogram bytea,
    target_ms float8, percentile float8, OUT within_pct float8, OUT latency_ms float8)
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT @extschema@.ranread_hist_within($1, $2), @extschema@.ranread_hist_percentile($1, $3)
$$;

-- What a search does next, given its windows so far: fio's latency_target
-- (io_u.c, lat_target_*), replayed over the windows.  Pure, so the rule can
-- be tested on known numbers.
--   A window holds when at least percentile % of its I/Os took at most
--   target_ms (fio: 100 x (ios - failed) / ios >= percentile).
--   State: load (starts at 1), low (the last load that held, starts at 1),
--   high (the last load that failed; none at first).
--   A window that holds: low = load; while no window has failed the load
--   doubles (clamped to max_load), after that it is (load + high) / 2,
--   integer division.  When that leaves the load where it is, the next
--   window is the confirming run at the same load.
--   A window that fails: high = load; if load = low (a load that had held,
--   run again), low = low - 1; load = (load + low) / 2.
--   The confirming run holds: the search ends, and that load is the answer.
--   It fails: it counts as a failed window and the search goes on, to
--   confirm its next answer in turn.
-- It stops without an answer when a window at load 1 fails, when a batch
-- did not complete, or when a window has no latency figures.  Each
-- stop_reason starts with its rule's name and a colon: confirmed, max_load
-- (the bound held at max_load itself, so the limit is higher), none,
-- status, timing.
--
-- Where it differs from fio: fio doubles while high equals iodepth, so a
-- failure at iodepth itself leaves it doubling back to iodepth for ever;
-- here doubling ends at the first failure.  fio judges windows of
-- latency_window, and at percentile 100 reacts to each late I/O at once;
-- here each window is a whole batch of the given duration.  fio ends
-- without another full window when its final window fails; here the next
-- answer is confirmed too.
CREATE OR REPLACE FUNCTION @extschema@.ranread_latency_target_next(
    steps       @extschema@.ranread_latency_step[],
    target_ms   float8,
    percentile  float8,
    max_load    integer,
    OUT next_load   integer,
    OUT confirming  boolean,
    OUT found_load  integer,
    OUT found_step  integer,
    OUT stop_reason text)
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    s        @extschema@.ranread_latency_step;
    low      integer := 1;
    high     integer;           -- NULL until a window fails: the load doubles
    load     integer := 1;
    confirm  boolean := false;
    holds    boolean;
    bound    text := format('p%s <= %s ms', percentile, target_ms);
BEGIN
    FOREACH s IN ARRAY coalesce(steps, '{}') LOOP
        IF s.status IS DISTINCT FROM 'completed' THEN
            stop_reason := format('status: batch %s at load %s ended %s, not completed',
                                  s.batch, s.load, coalesce(s.status, 'without a status'));
            RETURN;
        END IF;
        IF s.within_pct IS NULL THEN
            stop_reason := format('timing: batch %s at load %s has no latency figures (ranread.timing = off, or its history was not recorded)',
                                  s.batch, s.load);
            RETURN;
        END IF;
        holds := s.within_pct >= percentile;

        IF confirm THEN
            IF holds THEN
                found_load := s.load;
                found_step := s.step;
                IF high IS NULL THEN
                    stop_reason := format('max_load: %s held up to max_load %s, the confirming run too; the limit is higher',
                                          bound, s.load);
                ELSE
                    stop_reason := format('confirmed: %s held at load %s and failed at %s; the confirming run at %s held (%s%% of I/Os within %s ms)',
                                          bound, s.load, high, s.load,
                                          round(s.within_pct::numeric, 2), target_ms);
                END IF;
                RETURN;
            END IF;
            confirm := false;
        END IF;

        IF holds THEN
            low := s.load;
            load := CASE WHEN high IS NULL THEN least(s.load::bigint * 2, max_load)::integer
                         ELSE (s.load + high) / 2 END;
            confirm := (load = s.load);
        ELSE
            IF s.load <= 1 THEN
                stop_reason := format('none: %s fails even at load 1: %s%% of I/Os within %s ms, %s%% needed (batch %s)',
                                      bound, round(s.within_pct::numeric, 2), target_ms,
                                      percentile, s.batch);
                RETURN;
            END IF;
            high := s.load;
            IF s.load = low THEN
                low := low - 1;
            END IF;
            load := (s.load + low) / 2;
        END IF;
    END LOOP;
    next_load := load;
    confirming := confirm;
END
$$;

-- Every latency-target search, from its batches: its settings, its
-- windows, and the rule's verdict over them (the load it found and that
-- window's figures), or why it found none.  A search whose windows stop
-- before its rule did is 'running' while it runs, 'interrupted' once it
-- was cancelled between windows.  IOPS whole, latency in ms to 0.001, the
-- share within the bound cut (not rounded up) to 0.01%, so that it is at
-- least the percentile exactly when the bound holds.
CREATE OR REPLACE VIEW @extschema@.ranread_latency_target_verdict AS
WITH w AS (
    SELECT ranread_internal.ranread_json_int(b.point -> 'latency_target', -9223372036854775807, 9223372036854775807) AS latency_target,
           b.batch, b.run_at, b.target, b.tablespace,
           b.point ->> 'dimension' AS dimension,
           ranread_internal.ranread_json_float(b.point -> 'target_ms') AS target_ms,
           ranread_internal.ranread_json_float(b.point -> 'percentile') AS percentile,
           ranread_internal.ranread_json_int(b.point -> 'max_load', 1, 2147483647)::integer AS max_load,
           ROW(ranread_internal.ranread_json_int(b.point -> 'step', 1, 2147483647)::integer,
               ranread_internal.ranread_json_int(b.point -> 'load', 1, 2147483647)::integer, b.batch, b.iops,
               x.within_pct, x.latency_ms, n.status)::@extschema@.ranread_latency_step AS step,
           ranread_internal.ranread_window_ok(b.point) AS ok
      FROM @extschema@.ranread_batches b
           CROSS JOIN LATERAL ranread_internal.ranread_status_now(b.status, b.batch, b.message) n
           LEFT JOIN LATERAL ranread_internal.ranread_latency_window(b.histogram,
                ranread_internal.ranread_json_float(b.point -> 'target_ms'),
                ranread_internal.ranread_json_float(b.point -> 'percentile')) x
                ON ranread_internal.ranread_window_ok(b.point)
     WHERE (b.point ->> 'latency_target') IS NOT NULL
), s AS (
    SELECT w.latency_target, min(w.run_at) AS started_at, min(w.target) AS target,
           min(w.tablespace) AS tablespace, min(w.dimension) AS dimension,
           min(w.target_ms) AS target_ms, min(w.percentile) AS percentile,
           min(w.max_load) AS max_load, count(*) AS windows,
           array_agg(w.step ORDER BY (w.step).step) AS steps
      FROM w
     WHERE w.ok
     GROUP BY w.latency_target
), skipped AS (
    -- the batches of a search whose point is no window (a row of 1.1)
    SELECT w.latency_target, count(*) AS n
      FROM w
     WHERE NOT w.ok AND w.latency_target IS NOT NULL
     GROUP BY w.latency_target
)
SELECT s.latency_target, s.started_at, s.target, s.tablespace, s.dimension,
       s.target_ms, s.percentile, s.max_load, s.windows,
       v.found_load AS load, ranread_internal.ranread_round(f.iops, 0)::bigint AS iops,
       ranread_internal.ranread_round(f.latency_ms, 3)::numeric(15,3) AS latency_ms,
       trunc(f.within_pct::numeric, 2)::numeric(5,2) AS within_pct, f.batch,
       concat_ws('; ',
           coalesce(v.stop_reason,
                    CASE WHEN ranread_internal.ranread_call_running('latency_target', s.latency_target)
                         THEN format('running: %s windows so far; the next at load %s', s.windows, v.next_load)
                         ELSE format('interrupted: the search ended after %s windows; its next window would have been at load %s',
                                     s.windows, v.next_load) END),
           ranread_internal.ranread_skipped(k.n, 'whose point is not a window of a search')) AS stop_reason
  FROM s
       CROSS JOIN LATERAL @extschema@.ranread_latency_target_next(s.steps, s.target_ms,
                                                                 s.percentile, s.max_load) v
       LEFT JOIN LATERAL (SELECT u.* FROM unnest(s.steps) u
                           WHERE u.step = v.found_step) f ON true
       LEFT JOIN skipped k ON k.latency_target = s.latency_target;

-- The search's own arguments, checked before any window runs: the bound,
-- the percentile, the dimension searched and its highest load, each
-- window's length, the load that stays fixed (fixed, and smallest: the
-- processes of the first window) within the limits.  The workload's other
-- options are the parser's (ranread_latency_target asks it next).
CREATE OR REPLACE FUNCTION ranread_internal.ranread_latency_target_check(
    target_ms float8, percentile float8, dimension text, max_load integer, duration interval,
    processes integer, queue_depth integer, block_size integer, workers integer,
    OUT fixed integer, OUT smallest integer)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    fn      constant text := 'ranread_latency_target';
    lim     record;
    highest integer;            -- the limit of the searched dimension
    fixed_max integer;          -- the limit of the other
BEGIN
    SELECT * INTO lim FROM @extschema@.ranread_limits();
    PERFORM ranread_internal.ranread_require(fn, 'target_ms', target_ms,
        'target_ms is the latency bound in milliseconds, such as 1.');
    IF NOT (target_ms > 0) OR target_ms IN ('Infinity'::float8, 'NaN'::float8) THEN
        RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('invalid target_ms %s for %s', target_ms, fn),
            HINT = 'target_ms is the latency bound in milliseconds: a finite number greater than 0, such as 1.';
    END IF;
    PERFORM ranread_internal.ranread_require(fn, 'percentile', percentile,
        'percentile is the share of I/Os that must take at most target_ms, such as 99.');
    IF NOT (percentile > 0 AND percentile < 100) OR percentile = 'NaN'::float8 THEN
        RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('invalid percentile %s for %s', percentile, fn),
            HINT = 'percentile must be greater than 0 and less than 100, such as 99 or 99.9; each window is judged whole, so for the slowest I/Os ask for 99.99.';
    END IF;
    PERFORM ranread_internal.ranread_require(fn, 'dimension', dimension,
        'dimension is ''queue_depth'' or ''processes''.');
    IF dimension NOT IN ('queue_depth', 'processes') THEN
        RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('unknown dimension "%s" for %s', dimension, fn),
            HINT = 'dimension is ''queue_depth'' (the load is the queue depth of each process, as fio''s latency_target) or ''processes'' (the load is the number of processes).';
    END IF;
    IF dimension = 'queue_depth' AND queue_depth IS NOT NULL THEN
        RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('invalid queue_depth %s for %s with dimension queue_depth', queue_depth, fn),
            HINT = 'The search sets the queue depth, from 1 to max_load: leave queue_depth NULL, or search over processes (dimension => ''processes'').';
    END IF;
    IF dimension = 'processes' AND processes IS NOT NULL THEN
        RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('invalid processes %s for %s with dimension processes', processes, fn),
            HINT = 'The search sets the processes, from 1 to max_load: leave processes NULL, or search over the queue depth (dimension => ''queue_depth'').';
    END IF;
    fixed := coalesce(CASE dimension WHEN 'queue_depth' THEN processes ELSE queue_depth END, 1);
    smallest := CASE dimension WHEN 'queue_depth' THEN fixed ELSE 1 END;
    PERFORM ranread_internal.ranread_require(fn, 'max_load', max_load,
        'max_load is the highest load the search tries, such as 256.');
    highest := CASE dimension WHEN 'queue_depth' THEN lim.max_queue_depth ELSE lim.max_processes END;
    IF max_load < 1 OR max_load > highest THEN
        RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('invalid max_load %s for %s', max_load, fn),
            HINT = format('max_load is the highest %s the search tries: 1 to %s.',
                          CASE dimension WHEN 'queue_depth' THEN 'queue depth' ELSE 'number of processes' END,
                          highest);
    END IF;
    -- a fixed load out of its range is the parser's to refuse, naming it
    fixed_max := CASE dimension WHEN 'queue_depth' THEN lim.max_processes ELSE lim.max_queue_depth END;
    IF fixed BETWEEN 1 AND fixed_max AND max_load::bigint * fixed > lim.max_inflight THEN
        RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('invalid max_load %s for %s with %s %s', max_load, fn,
                             CASE dimension WHEN 'queue_depth' THEN 'processes' ELSE 'queue_depth' END, fixed),
            HINT = format('processes x queue_depth must be at most %s I/Os in flight.', lim.max_inflight);
    END IF;
    IF fixed BETWEEN 1 AND fixed_max AND block_size > 0
       AND max_load::bigint * fixed * block_size > lim.max_inflight_bytes THEN
        RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('invalid max_load %s for %s with block_size %s', max_load, fn, block_size),
            HINT = format('processes x queue_depth x block_size must be at most %s bytes of I/O buffers.',
                          lim.max_inflight_bytes);
    END IF;
    PERFORM ranread_internal.ranread_require(fn, 'duration', duration,
        'duration is the length of each window, such as ''5s''.');
    IF workers < 1 OR workers > smallest THEN
        RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('workers of %s must be between 1 and %s, not %s', fn, smallest, workers),
            HINT = format('workers must be between 1 and %s, the processes of the first window, or NULL to let each window choose.',
                          smallest);
    END IF;
    PERFORM ranread_internal.ranread_require_read_committed(fn,
        'Each window''s histogram is written by its batch''s worker while the search runs, which a repeatable read snapshot cannot see; run the search outside an explicit transaction.');
END
$$;

-- The spec of a window: the workload at a load, the searched dimension set
-- to it and the other to fixed, the point naming the search and the window.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_latency_target_spec(
    spec jsonb, search_id bigint, step integer, confirming boolean, dimension text,
    load integer, fixed integer, target_ms float8, percentile float8, max_load integer)
RETURNS jsonb
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT ranread_internal.ranread_spec(jsonb_build_object(
               'processes', CASE dimension WHEN 'processes' THEN load ELSE fixed END,
               'queue_depth', CASE dimension WHEN 'queue_depth' THEN load ELSE fixed END,
               'point', jsonb_build_object(
                   'latency_target', search_id, 'step', step,
                   'phase', CASE WHEN confirming THEN 'confirm' ELSE 'search' END,
                   'dimension', dimension, 'load', load,
                   'target_ms', target_ms, 'percentile', percentile, 'max_load', max_load)),
           spec)
$$;

-- One window of a search: its batch, the share of its I/Os within the
-- bound and its latency at the percentile (from the histogram its worker
-- recorded), and a NOTICE of how it went.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_latency_target_window(
    spec jsonb, search_id bigint, step integer, confirming boolean, dimension text,
    load integer, fixed integer, target_ms float8, percentile float8, max_load integer)
RETURNS @extschema@.ranread_latency_step
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    r     ranread_internal.ranread_step_result;
    hist  bytea;
    win   record;
    s     @extschema@.ranread_latency_step;
BEGIN
    SELECT * INTO r
      FROM @extschema@.ranread_run_step(ranread_internal.ranread_latency_target_spec(spec, search_id,
               step, confirming, dimension, load, fixed, target_ms, percentile, max_load)) g
     WHERE g.grp = 0;
    SELECT b.histogram INTO hist FROM @extschema@.ranread_batches b WHERE b.batch = r.batch;
    SELECT * INTO win FROM ranread_internal.ranread_latency_window(hist, target_ms, percentile);
    s := ROW(step, load, r.batch, r.iops, win.within_pct, win.latency_ms, r.status)::@extschema@.ranread_latency_step;
    RAISE NOTICE 'latency target %, window %: % % (%), % IOPS, % of I/Os within % ms (p% % ms): %',
        search_id, s.step, CASE dimension WHEN 'queue_depth' THEN 'queue depth' ELSE 'processes' END,
        s.load, CASE WHEN confirming THEN 'confirming' ELSE 'searching' END,
        coalesce(to_char(round(s.iops::numeric), 'FM999,999,999,990'), '-'),
        coalesce(round(s.within_pct::numeric, 2)::text || '%', '-'), target_ms, percentile,
        coalesce(round(s.latency_ms::numeric, 3)::text, '-'),
        CASE WHEN s.status <> 'completed' THEN s.status
             WHEN s.within_pct IS NULL THEN 'not measured'
             WHEN s.within_pct >= percentile THEN 'holds' ELSE 'fails' END;
    RETURN s;
END
$$;

-- The search's answer, said in a NOTICE: the load found and its IOPS, or
-- why none holds.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_latency_target_report(
    search_id bigint, steps @extschema@.ranread_latency_step[], dimension text, fixed integer,
    target_ms float8, percentile float8, max_load integer)
RETURNS void
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    nxt    record;
    found  @extschema@.ranread_latency_step;
    bound  text := format('p%s <= %s ms', percentile, target_ms);
BEGIN
    SELECT * INTO nxt FROM @extschema@.ranread_latency_target_next(steps, target_ms, percentile, max_load);
    IF nxt.found_load IS NULL THEN
        RAISE NOTICE 'latency target %: no load meets % (%)', search_id, bound, nxt.stop_reason;
        RETURN;
    END IF;
    found := steps[nxt.found_step];
    RAISE NOTICE 'latency target %: % holds up to % %, % IOPS (batch %)',
        search_id, bound,
        CASE dimension WHEN 'queue_depth' THEN format('queue depth %s', found.load)
                       ELSE ranread_internal.ranread_count_words(found.load, 'process') END,
        CASE dimension WHEN 'queue_depth' THEN format('x %s %s', fixed, CASE WHEN fixed = 1 THEN 'process' ELSE 'processes' END)
                       ELSE format('at queue depth %s', fixed) END,
        to_char(round(found.iops::numeric), 'FM999,999,999,990'), found.batch;
END
$$;

-- ranread_latency_target, behind the C function users call: its own
-- arguments and the workload's processes, queue depth, block size and
-- workers bound by name, the workload as one spec (src/workload/forward.c).  The
-- windows run while the rule (ranread_latency_target_next) asks for one;
-- the rows are ranread_latency_target's (the caller's ReturnSetInfo gives
-- their columns).
CREATE OR REPLACE FUNCTION ranread_internal.ranread_latency_target(
    target_ms float8, percentile float8, dimension text, max_load integer, duration interval,
    processes integer, queue_depth integer, block_size integer, workers integer, spec jsonb)
RETURNS SETOF record
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    chk       record;
    nxt       record;
    steps     @extschema@.ranread_latency_step[] := '{}';
    phases    text[] := '{}';
    search_id bigint;
BEGIN
    PERFORM ranread_internal.ranread_primary_only('ranread_latency_target');
    SELECT * INTO chk FROM ranread_internal.ranread_latency_target_check(target_ms, percentile,
        dimension, max_load, duration, processes, queue_depth, block_size, workers);
    -- the workload as the first window reads it (its target at that window)
    PERFORM ranread_internal.ranread_spec_check(ranread_internal.ranread_latency_target_spec(spec, NULL,
        1, false, dimension, 1, chk.fixed, target_ms, percentile, max_load), false);

    search_id := nextval('@extschema@.ranread_latency_target_seq'::regclass);
    PERFORM ranread_internal.ranread_call_register('latency_target', search_id);
    LOOP
        SELECT * INTO nxt
          FROM @extschema@.ranread_latency_target_next(steps, target_ms, percentile, max_load);
        EXIT WHEN nxt.next_load IS NULL;
        -- for ranread_progress: the window, of a count and a time the
        -- search itself does not know ahead
        PERFORM ranread_internal.ranread_progress_call('latency_target', search_id,
            CASE WHEN nxt.confirming THEN 'confirming' ELSE 'searching' END, cardinality(steps) + 1);
        steps := steps || ranread_internal.ranread_latency_target_window(spec, search_id,
            cardinality(steps) + 1, nxt.confirming, dimension, nxt.next_load, chk.fixed,
            target_ms, percentile, max_load);
        phases := phases || CASE WHEN nxt.confirming THEN 'confirm' ELSE 'search' END;
    END LOOP;
    PERFORM ranread_internal.ranread_latency_target_report(search_id, steps, dimension, chk.fixed,
                                                           target_ms, percentile, max_load);

    RETURN QUERY
    SELECT s.step, phases[s.step], s.load, s.batch, ranread_internal.ranread_round(s.iops, 0)::bigint,
           ranread_internal.ranread_round(s.latency_ms, 3), trunc(s.within_pct::numeric, 2),
           CASE WHEN s.status = 'completed' THEN s.within_pct >= percentile ELSE false END,
           CASE WHEN s.step = cardinality(steps) THEN nxt.stop_reason END
      FROM unnest(steps) s
     ORDER BY s.step;
END
$$;

-- The search: windows (batches of `duration`) at load 1, 2, 4 ... while the
-- bound holds, then bisection, ending with a confirming run at the load
-- found (ranread_latency_target_next).  The load is the queue depth of
-- `processes` processes (dimension 'queue_depth', fio's iodepth), or the
-- number of processes at `queue_depth` each (dimension 'processes').  One
-- row per window; stop_reason on the last.  The other arguments are the
-- workload of every window (their defaults ranread_run's), checked before
-- the first window starts any worker.
CREATE OR REPLACE FUNCTION @extschema@.ranread_latency_target(
    target_ms      float8,
    percentile     float8   DEFAULT 99,
    dimension      text     DEFAULT 'queue_depth',
    max_load       integer  DEFAULT 256,
    duration interval DEFAULT '5s',
    target name DEFAULT 'ranread',
    processes integer DEFAULT NULL,
    queue_depth integer DEFAULT NULL,
    block_size integer DEFAULT 8192,
    write_pct integer DEFAULT 0,
    pattern text DEFAULT 'random',
    region_start float8 DEFAULT 0,
    region_end float8 DEFAULT 100,
    warmup interval DEFAULT '0',
    seed bigint DEFAULT NULL,
    workers integer DEFAULT NULL,
    distribution text DEFAULT 'uniform',
    sync text DEFAULT NULL,
    io_priority text DEFAULT NULL,
    verify boolean DEFAULT false,
    path text DEFAULT 'device',
    effective_io_concurrency integer DEFAULT NULL)
    -- not iterations steady_state: every window runs for duration, so that windows compare
    -- not rate_iops: the search raises the load itself, which a cap would hold down
    -- not start_at: the windows start one after another
RETURNS TABLE (
    step           integer,
    phase          text,
    load           integer,
    batch          bigint,
    iops           bigint,
    latency_ms     numeric,
    within_pct     numeric,
    holds          boolean,
    stop_reason    text)
AS 'MODULE_PATHNAME', 'ranread_forward'
LANGUAGE C CALLED ON NULL INPUT VOLATILE;
-- 1.1, from numbers to settings: ranread_advise turns the history of a
-- tablespace into the planner and I/O settings PostgreSQL models storage
-- with, one row per setting, with the figures, the formula and the SQL that
-- would apply it.  It never applies anything.  Its types are state
-- (sql/state/22_advise.sql).
--
-- The formulas are pure functions (ranread_advise_*), tested on known
-- numbers; docs/commit-and-advice.md, "From numbers to settings", gives each
-- with its source.  ranread_advise itself is a few named steps in schema
-- ranread_internal: check the arguments, find the place (tablespace and
-- target), measure (measure => true), gather the evidence from the history,
-- map it to rows through the formulas, say what to apply.  The evidence
-- travels between them as one value of type ranread_advise_evidence. Every
-- object is schema-qualified and every function pins search_path.

-- A figure given to an advisor's formula, checked: NULL passes (a figure
-- not measured gives no advice), NaN, an infinity or a value out of range
-- is an error naming the function, the argument, the value and what is
-- allowed: above 0 (positive), or from lo to hi.  Returns the value.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_advise_arg(fn text, arg text, value float8,
    lo float8 DEFAULT NULL, hi float8 DEFAULT NULL)
RETURNS float8
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF value IS NULL THEN
        RETURN NULL;
    END IF;
    IF lo IS NULL AND NOT (value > 0 AND value < 'Infinity') THEN
        RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('%s of %s must be a finite number above 0, not %s', arg, fn, value),
            HINT = format('%s is a measured figure; NULL when it was not measured.', arg);
    END IF;
    IF lo IS NOT NULL AND NOT (value >= lo AND value <= hi) THEN
        RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('%s of %s must be from %s to %s, not %s', arg, fn, lo, hi, value);
    END IF;
    RETURN value;
END
$$;

-- random_page_cost and seq_page_cost from times per page (ms):
--   seq_page_cost    = seq_page_ms / reference_seq_page_ms (1 when this is
--                      the reference tablespace, or the reference has no
--                      figure), two decimals
--   random_page_cost = (1 - cache_hit_ratio) x random_ms / reference_seq_page_ms,
--                      one decimal, and never below seq_page_cost
-- random_ms is a QD1 random 8 KiB read; seq_page_ms the time one process
-- takes per 8 KiB page of large sequential reads.  PostgreSQL's docs: the
-- default 4.0 models random access as 40 times slower than sequential with
-- 90% of random reads cached, (1 - 0.9) x 40 = 4; and random_page_cost
-- below seq_page_cost is not physically sensible.
CREATE OR REPLACE FUNCTION @extschema@.ranread_advise_page_costs(
    random_ms             float8,
    seq_page_ms           float8,
    cache_hit_ratio       float8,
    reference_seq_page_ms float8 DEFAULT NULL,
    OUT seq_page_cost     numeric,
    OUT random_page_cost  numeric)
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    fn  constant text := 'ranread_advise_page_costs';
    ref float8;
BEGIN
    PERFORM ranread_internal.ranread_advise_arg(fn, 'random_ms', random_ms);
    PERFORM ranread_internal.ranread_advise_arg(fn, 'seq_page_ms', seq_page_ms);
    PERFORM ranread_internal.ranread_advise_arg(fn, 'cache_hit_ratio', cache_hit_ratio, 0, 1);
    PERFORM ranread_internal.ranread_advise_arg(fn, 'reference_seq_page_ms', reference_seq_page_ms);
    IF random_ms IS NULL OR seq_page_ms IS NULL OR cache_hit_ratio IS NULL THEN
        RETURN;
    END IF;
    ref := coalesce(reference_seq_page_ms, seq_page_ms);
    seq_page_cost := round((seq_page_ms / ref)::numeric, 2);
    random_page_cost := greatest(round(((1 - cache_hit_ratio) * random_ms / ref)::numeric, 1), seq_page_cost);
END
$$;

-- effective_io_concurrency and maintenance_io_concurrency from a curve of
-- random 8 KiB reads: at each concurrency (I/Os in flight: processes x
-- queue depth) its IOPS and average latency.  The peak is the highest IOPS
-- whose average latency is within max_avg_ms; the suggestion is the lowest
-- concurrency within the bound whose IOPS reach share (0.9) of that peak,
-- clamped to PostgreSQL's 1..1000.  still_rising: that concurrency is the
-- highest measured, so more might still pay (a lower bound).  NULL with
-- fewer than two concurrencies within the bound: one point is no curve.
CREATE OR REPLACE FUNCTION @extschema@.ranread_advise_io_concurrency(
    concurrency      integer[],
    iops             float8[],
    avg_ms           float8[],
    max_avg_ms       float8,
    share            float8 DEFAULT 0.9,
    OUT io_concurrency   integer,
    OUT peak_iops        float8,
    OUT peak_concurrency integer,
    OUT still_rising     boolean)
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    fn constant text := 'ranread_advise_io_concurrency';
BEGIN
    IF coalesce(cardinality(concurrency), 0) <> coalesce(cardinality(iops), 0)
       OR coalesce(cardinality(concurrency), 0) <> coalesce(cardinality(avg_ms), 0) THEN
        RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('concurrency, iops and avg_ms of %s must have as many elements, not %s, %s and %s', fn,
                             coalesce(cardinality(concurrency), 0), coalesce(cardinality(iops), 0), coalesce(cardinality(avg_ms), 0)),
            HINT = 'One element of each per point of the curve.';
    END IF;
    FOR i IN 1 .. coalesce(cardinality(concurrency), 0) LOOP
        PERFORM ranread_internal.ranread_advise_arg(fn, format('iops[%s]', i), iops[i]);
        PERFORM ranread_internal.ranread_advise_arg(fn, format('avg_ms[%s]', i), avg_ms[i]);
    END LOOP;
    PERFORM ranread_internal.ranread_require(fn, 'max_avg_ms', max_avg_ms, 'max_avg_ms is the bound on average latency in milliseconds, such as 10.');
    PERFORM ranread_internal.ranread_advise_arg(fn, 'max_avg_ms', max_avg_ms);
    PERFORM ranread_internal.ranread_require(fn, 'share', share, 'share is the part of the peak IOPS that counts, such as 0.9.');
    IF NOT (share > 0 AND share <= 1) THEN
        RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('share of %s must be above 0 and at most 1, not %s', fn, share),
            HINT = 'share is the part of the peak IOPS that counts, such as 0.9.';
    END IF;
    WITH p AS (
        SELECT c, i, a FROM unnest(concurrency, iops, avg_ms) AS u(c, i, a)
         WHERE c >= 1 AND i IS NOT NULL AND a <= max_avg_ms
    ), peak AS (
        SELECT p.i, p.c FROM p ORDER BY p.i DESC, p.c LIMIT 1
    ), knee AS (
        SELECT min(p.c) AS c FROM p, peak WHERE p.i >= share * peak.i
    )
    SELECT least(greatest(knee.c, 1), 1000), peak.i, peak.c,
           knee.c >= (SELECT max(m.c) FROM unnest(concurrency) AS m(c))
      INTO io_concurrency, peak_iops, peak_concurrency, still_rising
      FROM peak, knee
     WHERE (SELECT count(DISTINCT p.c) FROM p) >= 2;
END
$$;

-- max_parallel_workers_per_gather's cap from sequential MB/s: Oracle's
-- PARALLEL_DEGREE_LIMIT=IO, the total throughput over one process's
-- (CALIBRATE_IO's MAX_MBPS / MAX_PMBPS): processes = that ratio, rounded;
-- workers = processes - 1, because the leader of a Gather scans too.
CREATE OR REPLACE FUNCTION @extschema@.ranread_advise_parallel_workers(
    one_process_mbps float8,
    all_mbps         float8,
    OUT processes    integer,
    OUT workers      integer)
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM ranread_internal.ranread_advise_arg('ranread_advise_parallel_workers', 'one_process_mbps', one_process_mbps);
    PERFORM ranread_internal.ranread_advise_arg('ranread_advise_parallel_workers', 'all_mbps', all_mbps);
    IF one_process_mbps IS NULL OR all_mbps IS NULL THEN
        RETURN;
    END IF;
    processes := least(greatest(round(all_mbps / one_process_mbps), 1), 1000000)::integer;
    workers := processes - 1;
END
$$;

-- The gain below which a change is not worth advising: 10%.  One
-- threshold for the advisor and the commit test: a method must be more than
-- this much faster than the server's wal_sync_method, beyond the noise its
-- rounds show, to be advised (and named in ranread_commit_test's NOTICE,
-- which gives the same words).
CREATE OR REPLACE FUNCTION ranread_internal.ranread_advise_noise()
RETURNS float8
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$ SELECT 0.1::float8 $$;

-- The two-sided 95% quantile of Student's t with df degrees of freedom
-- (the usual table; 1.96 past 120): the interval of a mean of df + 1
-- rounds is mean +- t sd / sqrt(n)
CREATE OR REPLACE FUNCTION ranread_internal.ranread_t95(df integer)
RETURNS float8
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN df IS NULL OR df < 1 THEN NULL
                WHEN df <= 20 THEN ('{12.706,4.303,3.182,2.776,2.571,2.447,2.365,2.306,2.262,2.228,'
                                    '2.201,2.179,2.160,2.145,2.131,2.120,2.110,2.101,2.093,2.086}'::float8[])[df]
                WHEN df <= 25 THEN 2.060 WHEN df <= 30 THEN 2.042 WHEN df <= 40 THEN 2.021
                WHEN df <= 60 THEN 2.000 WHEN df <= 120 THEN 1.980 ELSE 1.960 END
$$;

-- Rounds of one measurement (a method's ops/s, one per round): how many,
-- their mean and its 95% interval (Student's t; its low end at 0 at least,
-- as no rate is below it); low and high NULL for one round, whose noise is
-- not known
CREATE OR REPLACE FUNCTION ranread_internal.ranread_rounds_interval(samples float8[],
    OUT n integer, OUT mean float8, OUT low float8, OUT high float8)
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT x.n, x.mean, greatest(x.mean - x.half, 0), x.mean + x.half
      FROM (SELECT count(v)::integer AS n, avg(v) AS mean,
                   ranread_internal.ranread_t95(count(v)::integer - 1) * stddev_samp(v) / sqrt(count(v)) AS half
              FROM unnest($1) v WHERE v IS NOT NULL) x
$$;

-- wal_sync_method from the rounds one commit test measured together (one
-- 8 kB write and its sync, pg_test_fsync's first table; one element of
-- methods and ops_per_s per round, a method repeated once per round).
-- Methods of other runs are never compared: the disk, its load and its
-- cache differ between runs.  Only the durable methods count, a NULL or 0
-- figure is a round that did not run; NaN, infinities and negatives are
-- refused.  The current method stays unless another is faster beyond the
-- noise: its 95% interval (ranread_rounds_interval) lies above the current
-- method's, and its mean is more than ranread_advise_noise (10%) above
-- it.  Among several such methods whose intervals overlap, the first in
-- fdatasync, open_datasync, fsync, open_sync (fdatasync first: PostgreSQL's
-- default on Linux), so that two runs of a device agree.  fsync does at
-- least fdatasync's work (it also flushes the file's metadata), open_sync
-- at least open_datasync's: neither is advised over the other, a faster
-- figure for it is noise, and the note says so.  One round each (a 1.1
-- commit test) shows no noise: the current method stays.  method NULL:
-- nothing to compare (the current method not measured with another).
-- settled: more rounds would not change the advice (a winner, or every
-- other method within 10% even at the ends of the intervals); the commit
-- test repeats its rounds until it is, or its time limit.  measured lists
-- the figures, fastest first, each with its interval; faster_pct is how
-- much faster the fastest is than the current method.  The commit test's
-- NOTICE (src/advise/commit.c) is made of the same outputs.
CREATE OR REPLACE FUNCTION @extschema@.ranread_advise_wal_sync_method(
    methods     text[],
    ops_per_s   float8[],
    current     text,
    OUT method      text,
    OUT best_ops    float8,
    OUT current_ops float8,
    OUT faster_pct  numeric,
    OUT measured    text,
    OUT note        text,
    OUT settled     boolean)
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    fn     constant text := 'ranread_advise_wal_sync_method';
    noise  constant float8 := ranread_internal.ranread_advise_noise();
    pg_order constant text[] := ARRAY['fdatasync', 'open_datasync', 'fsync', 'open_sync', 'fsync_writethrough'];
    -- per method measured, fastest first: name, rounds, mean, interval
    ms     text[];
    ns     integer[];
    means  float8[];
    lows   float8[];
    highs  float8[];
    k      integer;
    c      integer;          -- the current method's place in ms
    names  text;
    cands  integer[] := '{}';
    wins   integer[] := '{}';
    top    integer;
    pick   integer;
    ties   text[];
    extra  text := '';
BEGIN
    IF coalesce(cardinality(methods), 0) <> coalesce(cardinality(ops_per_s), 0) THEN
        RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('methods and ops_per_s of %s must have as many elements, not %s and %s', fn,
                             coalesce(cardinality(methods), 0), coalesce(cardinality(ops_per_s), 0)),
            HINT = 'One element of each per round: a method and its durable operations per second.';
    END IF;
    FOR i IN 1 .. coalesce(cardinality(ops_per_s), 0) LOOP
        IF NOT (ops_per_s[i] >= 0 AND ops_per_s[i] < 'Infinity') THEN
            RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
                MESSAGE = format('ops_per_s[%s] of %s must be a finite number of 0 or more, not %s', i, fn, ops_per_s[i]),
                HINT = 'ops_per_s are a round''s durable operations per second; NULL or 0 for a round that did not run.';
        END IF;
    END LOOP;
    SELECT array_agg(g.m ORDER BY g.mean DESC, g.m), array_agg(g.n ORDER BY g.mean DESC, g.m),
           array_agg(g.mean ORDER BY g.mean DESC, g.m), array_agg(g.low ORDER BY g.mean DESC, g.m),
           array_agg(g.high ORDER BY g.mean DESC, g.m)
      INTO ms, ns, means, lows, highs
      FROM (SELECT u.m, (ranread_internal.ranread_rounds_interval(array_agg(u.o))).*
              FROM unnest(methods, ops_per_s) AS u(m, o)
             WHERE u.m IN ('open_datasync', 'fdatasync', 'fsync', 'fsync_writethrough', 'open_sync') AND u.o > 0
             GROUP BY u.m) g;
    k := coalesce(cardinality(ms), 0);
    IF k = 0 THEN
        RETURN;
    END IF;
    c := array_position(ms, current);
    best_ops := means[1];
    current_ops := means[c];
    measured := (SELECT string_agg(format('%s %s ops/s%s', ms[i], to_char(round(means[i]::numeric), 'FM999,999,999,990'),
                                          CASE WHEN ns[i] > 1
                                               THEN format(' (95%% interval %s to %s, %s rounds)',
                                                           to_char(round(lows[i]::numeric), 'FM999,999,999,990'),
                                                           to_char(round(highs[i]::numeric), 'FM999,999,999,990'), ns[i])
                                               ELSE '' END), ', ' ORDER BY i)
                   FROM generate_series(1, k) i);
    names := array_to_string(ms, ', ');
    settled := true;
    IF k = 1 AND c IS NOT NULL THEN
        note := format('only %s, the server''s wal_sync_method, was measured: nothing to compare it with', current);
        RETURN;
    ELSIF k = 1 THEN
        note := format('only %s was measured, not %s, the server''s wal_sync_method: nothing to compare', ms[1], current);
        RETURN;
    ELSIF c IS NULL THEN
        note := format('the fastest of %s is %s, but %s, the server''s wal_sync_method, was not measured with them: nothing to compare it with',
                       names, ms[1], current);
        RETURN;
    END IF;
    faster_pct := trim_scale(round((100 * (means[1] / means[c] - 1))::numeric, 1));
    -- a method that does at least another's work is never advised over it
    FOR i IN 1 .. k LOOP
        IF i <> c AND NOT (ms[i] = 'fsync' AND 'fdatasync' = ANY (ms))
                  AND NOT (ms[i] = 'open_sync' AND 'open_datasync' = ANY (ms)) THEN
            cands := cands || i;
        END IF;
    END LOOP;
    SELECT string_agg(format('; %s measured faster than %s, though it does at least %s''s work (%s): that is noise, and it is never advised over it',
                             h.heavy, h.light, h.light, h.why), '')
      INTO extra
      FROM (VALUES ('fsync', 'fdatasync', 'it also flushes the file''s metadata'),
                   ('open_sync', 'open_datasync', 'O_SYNC also waits for the file''s metadata')) h(heavy, light, why)
     WHERE array_position(ms, h.heavy) < array_position(ms, h.light)
       AND means[array_position(ms, h.heavy)] > means[array_position(ms, h.light)];
    extra := coalesce(extra, '');
    method := current;
    -- one round each shows no noise: nothing can be told from the gaps
    IF (SELECT bool_or(ns[i] < 2) FROM unnest(cands || c) i) THEN
        settled := false;
        note := format('the fastest of %s is %s, %s%% faster than %s, the server''s wal_sync_method, but one round each shows nothing of the noise: %s stays (a commit test repeats its rounds until the intervals tell)',
                       names, ms[1], faster_pct, current, current) || extra;
        RETURN;
    END IF;
    -- faster beyond the noise: the interval above the current method's, the mean more than 10% above
    wins := ARRAY(SELECT i FROM unnest(cands) i
                   WHERE lows[i] > highs[c] AND means[i] > (1 + noise) * means[c] ORDER BY i);
    IF cardinality(wins) > 0 THEN
        top := wins[1];
        ties := ARRAY(SELECT ms[i] FROM unnest(wins) i WHERE highs[i] >= lows[top]
                       ORDER BY array_position(pg_order, ms[i]));
        pick := array_position(ms, ties[1]);
        method := ms[pick];
        note := format('%s is %s%% faster than %s, the server''s wal_sync_method, beyond the noise: its 95%% interval (%s to %s ops/s) lies above %s''s (%s to %s)',
                       method, trim_scale(round((100 * (means[pick] / means[c] - 1))::numeric, 1)), current,
                       to_char(round(lows[pick]::numeric), 'FM999,999,999,990'), to_char(round(highs[pick]::numeric), 'FM999,999,999,990'),
                       current, to_char(round(lows[c]::numeric), 'FM999,999,999,990'), to_char(round(highs[c]::numeric), 'FM999,999,999,990'))
             || CASE WHEN cardinality(ties) > 1
                     THEN format('; %s are as fast within the noise, and %s comes first in fdatasync, open_datasync, fsync, open_sync',
                                 array_to_string(ties, ' and '), method) ELSE '' END
             || extra;
        RETURN;
    END IF;
    IF (SELECT coalesce(bool_and(highs[i] <= (1 + noise) * lows[c]), true) FROM unnest(cands) i) THEN
        note := format('no clear winner: %s, so %s stays',
                       CASE WHEN cardinality(cands) = 0
                            THEN format('no other method measured may be advised over %s', current)
                            ELSE format('none of %s is more than %s%% faster than %s, the server''s wal_sync_method, even at the ends of their 95%% intervals',
                                        (SELECT string_agg(ms[i], ', ' ORDER BY i) FROM unnest(cands) i),
                                        100 * noise, current) END, current)
             || extra;
        RETURN;
    END IF;
    settled := false;
    note := format('no clear winner after %s rounds: %s, so %s stays',
                   (SELECT min(ns[i]) FROM unnest(cands || c) i),
                   (SELECT string_agg(format('%s (%s to %s ops/s)', ms[i], to_char(round(lows[i]::numeric), 'FM999,999,999,990'),
                                             to_char(round(highs[i]::numeric), 'FM999,999,999,990')), ', ' ORDER BY i)
                      FROM unnest(cands) i)
                   || format(' and %s, the server''s wal_sync_method (%s to %s), overlap or lie within %s%% of each other',
                             current, to_char(round(lows[c]::numeric), 'FM999,999,999,990'),
                             to_char(round(highs[c]::numeric), 'FM999,999,999,990'), 100 * noise),
                   current)
         || extra;
END
$$;

-- ranread_advise's steps and helpers (schema ranread_internal)

-- The batches advice may rest on: completed, timed, one group, reads only,
-- on the device path (what the storage gives; the server path's figures
-- are ranread_advise_server_curve's), unpaced, uniform over the whole
-- target, random 8 KiB or sequential of 128 KiB or more.  stale says why a batch does not count for tablespace_name:
-- it measured another tablespace, or a target made again since.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_advise_history(tablespace_name name)
RETURNS SETOF ranread_internal.ranread_advise_batch
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT b.batch, b.run_at, b.target, b.tablespace,
           CASE b.pattern WHEN 'random' THEN 'random' ELSE 'sequential' END,
           b.processes, b.queue_depth, b.block_size, b.iops, b.mbps, b.avg_ms,
           CASE WHEN b.tablespace IS DISTINCT FROM $1
                THEN format('batch %s measured tablespace %s', b.batch, coalesce(b.tablespace::text, 'unknown'))
                WHEN t.created_at > b.run_at
                THEN format('batch %s is older than target %s, made again at %s',
                            b.batch, t.target, to_char(t.created_at, 'YYYY-MM-DD HH24:MI:SS'))
           END,
           t.size_bytes, NULL::integer, NULL::bigint[], NULL::float8, NULL::float8
      FROM @extschema@.ranread_batches b
      LEFT JOIN @extschema@.ranread_targets t ON t.target = b.target
     WHERE b.status = 'completed'
       AND b.commit_test IS NULL
       AND coalesce(b.groups, 1) = 1
       AND coalesce(b.path, 'device') = 'device'
       AND b.write_pct = 0
       AND b.sync IS NULL
       AND b.rate_iops IS NULL
       AND b.avg_ms IS NOT NULL
       AND b.iops > 0
       AND coalesce(b.distribution, 'uniform') = 'uniform'
       AND b.region_start = 0 AND b.region_end = 100
       AND ((b.pattern = 'random' AND b.block_size = 8192)
            OR (b.pattern = 'sequential' AND b.block_size >= 131072))
$$;

-- The server path's curve on a tablespace (docs/server-path.md): one process reading random 8 KiB blocks through shared buffers,
-- at each prefetch distance measured (effective_io_concurrency), each the
-- median of the latest five comparable batches on the target of the latest
-- of them: completed, timed, one group of one process, reads only, unpaced,
-- uniform over the whole target, path server, on the tablespace, newer than
-- its target, and answered by the device (cache_pct below 50: figures the
-- caches made are memory's).  batches: all of them; spread: the most a
-- distance's batches vary ((max - min) / median of their IOPS).  NULLs where
-- there are none.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_advise_server_curve(tablespace_name name,
    OUT prefetch integer[], OUT iops float8[], OUT avg_ms float8[], OUT batches bigint[],
    OUT curve_text text, OUT spread float8)
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    WITH c AS (
        SELECT b.batch, b.run_at, b.target, b.effective_io_concurrency AS e, b.iops, b.avg_ms
          FROM @extschema@.ranread_batches b
          JOIN @extschema@.ranread_targets t ON t.target = b.target AND t.created_at <= b.run_at
         WHERE b.status = 'completed' AND b.path = 'server' AND coalesce(b.groups, 1) = 1
           AND b.processes = 1 AND b.write_pct = 0 AND b.rate_iops IS NULL
           AND b.avg_ms IS NOT NULL AND b.iops > 0 AND b.pattern = 'random' AND b.block_size = 8192
           AND coalesce(b.distribution, 'uniform') = 'uniform' AND b.region_start = 0 AND b.region_end = 100
           AND b.tablespace = $1 AND b.cache_pct < 50
    ), w AS (
        SELECT c.*, row_number() OVER (PARTITION BY c.e ORDER BY c.run_at DESC, c.batch DESC) AS k
          FROM c WHERE c.target = (SELECT l.target FROM c l ORDER BY l.run_at DESC, l.batch DESC LIMIT 1)
    ), m AS (
        SELECT w.e, percentile_cont(0.5) WITHIN GROUP (ORDER BY w.iops) AS iops,
               percentile_cont(0.5) WITHIN GROUP (ORDER BY w.avg_ms) AS avg_ms,
               count(*) AS n, array_agg(w.batch ORDER BY w.batch) AS batches,
               (max(w.iops) - min(w.iops)) / percentile_cont(0.5) WITHIN GROUP (ORDER BY w.iops) AS spread
          FROM w WHERE w.k <= 5 GROUP BY w.e
    )
    SELECT array_agg(m.e ORDER BY m.e), array_agg(m.iops ORDER BY m.e), array_agg(m.avg_ms ORDER BY m.e),
           (SELECT array_agg(x ORDER BY x) FROM m, unnest(m.batches) x),
           string_agg(format('%s: %s IOPS at %s ms average', m.e, to_char(round(m.iops::numeric), 'FM999,999,999,990'),
                             round(m.avg_ms::numeric, 3))
                      || CASE WHEN m.n > 1 THEN format(' (median of %s batches, which vary by %s%%)', m.n,
                                                      round((100 * m.spread)::numeric, 1)) ELSE '' END,
                      '; ' ORDER BY m.e),
           max(m.spread) FILTER (WHERE m.n > 1)
      FROM m
$$;

-- Why the batches of a kind (and processes, queue depth: NULL for any) that
-- would have counted do not: the three latest, as '; not counted: ...'.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_advise_stale(tablespace_name name, kind text,
    processes integer, queue_depth integer)
RETURNS text
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT coalesce('; not counted: ' || string_agg(x.stale, '; ' ORDER BY x.run_at DESC), '')
      FROM (SELECT h.stale, h.run_at FROM ranread_internal.ranread_advise_history($1) h
             WHERE h.stale IS NOT NULL AND h.kind = $2
               AND ($3 IS NULL OR h.processes = $3) AND ($4 IS NULL OR h.queue_depth = $4)
             ORDER BY h.run_at DESC LIMIT 3) x
$$;

-- A figure advice rests on: the medians of the comparable batches of a
-- tablespace, those of one kind (random or sequential) and block size
-- (and processes, queue depth, or their product the concurrency, where
-- given; NULL for any) that count (ranread_advise_history), on the target
-- of the latest of them, the latest five: a figure is never mixed from two
-- targets, whose sizes, and so what caches may hold of them, differ.  Its
-- spreads say how much those batches vary: (max - min) / median, NULL for
-- one batch.  NULL where no batch is comparable.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_advise_figure(tablespace_name name, kind text,
    block_size integer, processes integer, queue_depth integer, concurrency integer DEFAULT NULL)
RETURNS ranread_internal.ranread_advise_batch
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    WITH c AS (
        SELECT h.* FROM ranread_internal.ranread_advise_history($1) h
         WHERE h.stale IS NULL AND h.kind = $2 AND h.block_size = $3
           AND ($4 IS NULL OR h.processes = $4) AND ($5 IS NULL OR h.queue_depth = $5)
           AND ($6 IS NULL OR h.processes * h.queue_depth = $6)
    ), w AS (
        SELECT c.* FROM c
         WHERE c.target = (SELECT l.target FROM c l ORDER BY l.run_at DESC, l.batch DESC LIMIT 1)
         ORDER BY c.run_at DESC, c.batch DESC LIMIT 5
    ), m AS (
        SELECT max(w.batch) AS batch, max(w.run_at) AS run_at, min(w.target) AS target,
               min(w.measured) AS measured, min(w.processes) AS processes, min(w.queue_depth) AS queue_depth,
               percentile_cont(0.5) WITHIN GROUP (ORDER BY w.iops) AS iops,
               percentile_cont(0.5) WITHIN GROUP (ORDER BY w.mbps) AS mbps,
               percentile_cont(0.5) WITHIN GROUP (ORDER BY w.avg_ms) AS avg_ms,
               min(w.target_bytes) AS target_bytes, count(*)::integer AS n,
               array_agg(w.batch ORDER BY w.batch) AS batches,
               max(w.iops) - min(w.iops) AS iops_range, max(w.avg_ms) - min(w.avg_ms) AS ms_range
          FROM w HAVING count(*) > 0
    )
    SELECT ROW(m.batch, m.run_at, m.target, m.measured, $2, m.processes, m.queue_depth, $3,
               m.iops, m.mbps, m.avg_ms, NULL, m.target_bytes, m.n, m.batches,
               CASE WHEN m.n > 1 THEN m.iops_range / m.iops END,
               CASE WHEN m.n > 1 THEN m.ms_range / m.avg_ms END)::ranread_internal.ranread_advise_batch
      FROM m
$$;

-- One process's sequential reads on a tablespace, as a figure: of the
-- block size and queue depth of the latest such batch.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_advise_seq_one(tablespace_name name)
RETURNS ranread_internal.ranread_advise_batch
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT ranread_internal.ranread_advise_figure($1, 'sequential', h.block_size, 1, h.queue_depth)
      FROM ranread_internal.ranread_advise_history($1) h
     WHERE h.stale IS NULL AND h.kind = 'sequential' AND h.processes = 1
     ORDER BY h.run_at DESC, h.batch DESC LIMIT 1
$$;

-- Where a figure comes from, as the evidence says it: its batch, or the
-- batches it is the median of and how much they vary (spread: its
-- iops_spread or ms_spread, whichever the advice uses).
CREATE OR REPLACE FUNCTION ranread_internal.ranread_advise_source(f ranread_internal.ranread_advise_batch,
    spread float8)
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN ($1).n > 1
                THEN format('median of batches %s, the latest %s; they vary by %s%%', array_to_string(($1).batches, ', '),
                            to_char(($1).run_at, 'YYYY-MM-DD HH24:MI'), round((100 * $2)::numeric, 1))
                ELSE format('batch %s, %s; one batch: how much it varies is not known', ($1).batch,
                            to_char(($1).run_at, 'YYYY-MM-DD HH24:MI')) END
$$;

-- The server's RAM in bytes (NULL where the system does not say), as
-- ranread_setup's warning about small targets counts it.  (src/target/target.c)
CREATE OR REPLACE FUNCTION ranread_internal.ranread_ram_bytes()
RETURNS bigint
AS 'MODULE_PATHNAME', 'ranread_ram_bytes'
LANGUAGE C STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp;

-- Did a cache answer instead of the device?  From the QD1 random 8 KiB
-- read's average (ms) and the size of its target against the server's RAM:
--  - below 0.02 ms (20 us): faster than storage answers a random read
--    through the kernel (NVMe flash takes 50 us or more), so a cache in
--    RAM answered: withhold;
--  - a target smaller than twice the RAM, with reads below 0.2 ms (or no
--    QD1 read to tell): a cache under the filesystem (the device's, a
--    controller's, a virtual machine host's page cache) can hold it and
--    answers that fast: withhold;
--  - a target smaller than twice the RAM, with slower reads: the device
--    answered (a cache in RAM does not take 0.2 ms); say so, advise.
-- withhold: give no advice from the storage's figures; note: why, or NULL.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_advise_cache(qd1_ms float8, target name,
    target_bytes bigint, ram_bytes bigint, OUT withhold boolean, OUT note text)
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT x.fast OR (x.small AND NOT x.slow),
           CASE WHEN x.fast
                THEN format('QD1 random 8 KiB reads average %s us, faster than storage answers a random read (flash takes 50 us or more): a cache answered them, so the storage''s figures are not advised from',
                            round((1000 * $1)::numeric, 1))
                WHEN x.small
                THEN format('target %s is %s, less than twice the server''s RAM (%s), %s', $2,
                            pg_size_pretty($3), pg_size_pretty($4),
                            CASE WHEN $1 IS NULL
                                 THEN 'and no QD1 random 8 KiB read tells a device from a cache: a cache under the filesystem (the device''s, a controller''s, a virtual machine host''s) may have answered, so the storage''s figures are not advised from'
                                 WHEN NOT x.slow
                                 THEN format('and QD1 random 8 KiB reads average %s ms, as fast as a cache under the filesystem (the device''s, a controller''s, a virtual machine host''s) answers: it may have, so the storage''s figures are not advised from',
                                             round($1::numeric, 3))
                                 ELSE format('but QD1 random 8 KiB reads average %s ms, slower than a cache in RAM answers: the device answered',
                                             round($1::numeric, 3)) END) END
      FROM (SELECT coalesce(q.ms < 0.02, false) AS fast, coalesce($3 < 2 * $4, false) AS small,
                   coalesce(q.ms >= 0.2, false) AS slow
              FROM (SELECT ranread_internal.ranread_advise_arg('ranread_advise_cache', 'qd1_ms', $1) AS ms) q) x
$$;

-- The statements that measure what advice rests on, one per figure, with
-- the functions qualified by schema (to run them) or not (to show them);
-- and 'target', the one that makes a target in a tablespace to measure
-- with: twice the server's RAM and twice effective_cache_size, at least
-- 1 GB, so that no cache in RAM can hold it (ranread_advise_cache).
CREATE OR REPLACE FUNCTION ranread_internal.ranread_advise_measure_sql(
    what        text,
    target      name,
    duration    interval,
    max_avg_ms  float8,
    schema      name DEFAULT NULL,
    tablespace  name DEFAULT NULL)
RETURNS text
LANGUAGE sql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT format(CASE $1
        WHEN 'target' THEN
            'SELECT * FROM %1$sranread_setup(%5$L, tablespace => %6$L, target => %2$L);'
        WHEN 'random QD1' THEN
            'SELECT * FROM %1$sranread_run(1, target => %2$L, duration => %3$L);'
        WHEN 'sequential' THEN
            'SELECT * FROM %1$sranread_run(1, target => %2$L, duration => %3$L, block_size => 1048576, pattern => ''sequential'');'
        WHEN 'random sweep' THEN
            'SELECT * FROM %1$sranread_sweep(start => 1, max_processes => 256, duration => %3$L, max_avg_ms => %4$s, target => %2$L);'
        WHEN 'server sweep' THEN
            'SELECT * FROM %1$sranread_paths(target => %2$L, duration => %3$L);'
        WHEN 'sequential sweep' THEN
            'SELECT * FROM %1$sranread_sweep(start => 1, max_processes => 16, duration => %3$L, max_avg_ms => 1000, target => %2$L, block_size => 1048576, pattern => ''sequential'');'
        WHEN 'commit test' THEN
            'SELECT * FROM %1$sranread_commit_test(duration => %3$L);'
        END,
        CASE WHEN $5 IS NULL THEN '' ELSE quote_ident($5) || '.' END, $2, $3, $4,
        CASE WHEN $1 = 'target'
             THEN pg_size_pretty(greatest(2 * pg_size_bytes(current_setting('effective_cache_size')),
                                          2 * ranread_internal.ranread_ram_bytes(), pg_size_bytes('1GB'))) END, $6)
$$;

-- The target ready in a tablespace that advice measures with: one of twice
-- the server's RAM or more first (no cache in RAM holds it), then
-- 'ranread', then the newest; NULL when there is none.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_advise_target(tablespace name)
RETURNS name
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT t.target FROM @extschema@.ranread_targets t
     WHERE t.tablespace = $1 AND t.state = 'ready'
     ORDER BY t.size_bytes >= 2 * ranread_internal.ranread_ram_bytes() DESC NULLS LAST,
              t.target = 'ranread' DESC, t.created_at DESC
     LIMIT 1
$$;

-- Is a suggested value what is set now?  Numbers compare as numbers (4 is
-- 4.0), names without regard to case.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_advise_same(suggested text, current text)
RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN $1 ~ '^-?[0-9]+(\.[0-9]*)?$' AND $2 ~ '^-?[0-9]+(\.[0-9]*)?$'
                THEN $1::numeric = $2::numeric
                ELSE lower($1) = lower($2) END
$$;

-- What one suggestion leaves to apply: nothing when the setting already has
-- the suggested value (apply_now is then NULL), else its part of the NOTICE
-- that applies every suggestion: `setting = value` for ALTER TABLESPACE, or
-- an ALTER SYSTEM statement.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_advise_pending(
    setting text, suggested text, current text, scope text, apply_sql text,
    OUT apply_now text, OUT ts_set text[], OUT sys_set text[])
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT a,
           CASE WHEN a IS NOT NULL AND $4 = 'tablespace'
                THEN ARRAY[format('%s = %s', $1, $2)] ELSE '{}'::text[] END,
           CASE WHEN a IS NOT NULL AND $4 IS DISTINCT FROM 'tablespace'
                THEN ARRAY[format('ALTER SYSTEM SET %s = %s;', $1,
                                  CASE WHEN $2 ~ '^[0-9.]+$' THEN $2 ELSE quote_literal($2) END)]
                ELSE '{}'::text[] END
      FROM (SELECT CASE WHEN ranread_internal.ranread_advise_same($2, $3) THEN NULL ELSE $5 END AS a) x
$$;

-- The first of checks that failed (a NULL failed is not), in their order,
-- or NULL: the caller raises it, so that the error's CONTEXT is the
-- caller's.  Serves ranread_advise's and ranread_profile's checks.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_first_failed(checks ranread_internal.ranread_check[])
RETURNS ranread_internal.ranread_check
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT ROW(c.failed, c.errcode, c.message, c.hint)::ranread_internal.ranread_check
      FROM unnest($1) WITH ORDINALITY AS c(failed, errcode, message, hint, n)
     WHERE c.failed
     ORDER BY c.n
     LIMIT 1
$$;

-- Step: ranread_advise's arguments, before anything runs: the first check
-- that fails (in this order) is raised, naming the argument and what it may
-- be.  Starts the evidence with the call's choices.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_advise_check(
    measure boolean, cache_hit_ratio float8, max_avg_ms float8, duration interval)
RETURNS ranread_internal.ranread_advise_evidence
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    ratio constant text := 'cache_hit_ratio is the share of random page reads you expect shared buffers and the page cache to answer: 0 to 1, PostgreSQL''s default cost assumes 0.9.';
    bad   ranread_internal.ranread_check;
    ev    ranread_internal.ranread_advise_evidence;
BEGIN
    bad := ranread_internal.ranread_first_failed(ARRAY[
        (measure IS NULL, 'null_value_not_allowed', 'measure of ranread_advise must not be NULL',
         'measure => true runs the batches advice needs first; false advises from the history.'),
        (cache_hit_ratio IS NULL, 'null_value_not_allowed', 'cache_hit_ratio of ranread_advise must not be NULL', ratio),
        (NOT (cache_hit_ratio BETWEEN 0 AND 1) OR cache_hit_ratio = 'NaN'::float8, 'invalid_parameter_value',
         format('invalid cache_hit_ratio %s for ranread_advise', cache_hit_ratio), ratio),
        (max_avg_ms IS NULL, 'null_value_not_allowed', 'max_avg_ms of ranread_advise must not be NULL',
         'max_avg_ms is the bound on average latency in milliseconds that the I/O concurrency advice keeps to, such as 10.'),
        (NOT (max_avg_ms > 0) OR max_avg_ms IN ('NaN'::float8, 'Infinity'::float8), 'invalid_parameter_value',
         format('invalid max_avg_ms %s for ranread_advise', max_avg_ms),
         'max_avg_ms is the bound on average latency in milliseconds: a finite number greater than 0, such as 10.'),
        (duration IS NULL, 'null_value_not_allowed', 'duration of ranread_advise must not be NULL',
         'duration is the length of each batch advice asks for, such as ''2s''.'),
        (duration < interval '0.1s' OR duration > interval '10min', 'invalid_parameter_value',
         format('invalid duration "%s" for ranread_advise', duration),
         'duration is the length of each batch advice asks for: from 0.1 s to 10 min, such as ''2s''.')
        ]::ranread_internal.ranread_check[]);
    IF bad.failed THEN
        RAISE EXCEPTION USING ERRCODE = bad.errcode, MESSAGE = bad.message, HINT = bad.hint;
    END IF;
    ev.cache_hit_ratio := cache_hit_ratio;
    ev.max_avg_ms := max_avg_ms;
    ev.duration := duration;
    RETURN ev;
END
$$;

-- Step: the place advice is for: the tablespace (NULL: the database's
-- default) and the target to measure with (the one named, which must be
-- there, or one ready there); when there is none, the name to give one and
-- the statement that makes it.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_advise_place(
    ev ranread_internal.ranread_advise_evidence, tablespace name, target name)
RETURNS ranread_internal.ranread_advise_evidence
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    fn  constant text := 'ranread_advise';
    tgt record;
BEGIN
    SELECT t.spcname INTO ev.reference
      FROM pg_tablespace t JOIN pg_database d ON d.dattablespace = t.oid
     WHERE d.datname = current_database();
    ev.tablespace := coalesce(ranread_advise_place.tablespace, ev.reference);
    IF NOT EXISTS (SELECT FROM pg_tablespace t WHERE t.spcname = ev.tablespace) THEN
        RAISE EXCEPTION USING ERRCODE = 'undefined_object',
            MESSAGE = format('tablespace "%s" does not exist', ev.tablespace),
            HINT = 'See \db in psql for the tablespaces of this server.';
    END IF;
    IF ev.tablespace = 'pg_global' THEN
        RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('tablespace of %s cannot be pg_global', fn),
            DETAIL = 'pg_global holds shared catalogs only, and takes no per-tablespace settings.';
    END IF;

    IF ranread_advise_place.target IS NULL THEN
        ev.target := ranread_internal.ranread_advise_target(ev.tablespace);
    ELSE
        SELECT t.target, t.tablespace INTO tgt
          FROM @extschema@.ranread_targets t WHERE t.target = ranread_advise_place.target;
        IF NOT FOUND THEN
            RAISE EXCEPTION USING ERRCODE = 'undefined_object',
                MESSAGE = format('ranread target "%s" does not exist', ranread_advise_place.target),
                HINT = format('Create it first, e.g. SELECT * FROM ranread_setup(''10GB'', tablespace => %L, target => %L);',
                              ev.tablespace, ranread_advise_place.target);
        END IF;
        IF tgt.tablespace IS DISTINCT FROM ev.tablespace THEN
            RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
                MESSAGE = format('target "%s" of %s is in tablespace %s, not %s', ranread_advise_place.target, fn,
                                 coalesce(tgt.tablespace::text, 'unknown'), ev.tablespace),
                HINT = 'Name a target in the tablespace advised, or leave target NULL to use one there.';
        END IF;
        ev.target := ranread_advise_place.target;
    END IF;
    IF ev.target IS NULL THEN
        ev.target := CASE WHEN ev.tablespace = ev.reference THEN 'ranread' ELSE 'ranread_' || ev.tablespace END;
        ev.setup := ranread_internal.ranread_advise_measure_sql('target', ev.target, NULL, NULL, NULL, ev.tablespace);
    END IF;
    RETURN ev;
END
$$;

-- Step (measure => true): runs the batches advice needs on the place's
-- target, a NOTICE naming each statement first (as to_measure shows them):
-- a random sweep, a sequential sweep, a commit test.  Refuses first a role
-- that may not run them, a standby, a tablespace without a target, and a
-- snapshot that could not see what they record.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_advise_measure(ev ranread_internal.ranread_advise_evidence)
RETURNS void
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    fn      constant text := 'ranread_advise';
    missing text;
    bad     ranread_internal.ranread_check;
    what    text;
BEGIN
    -- by name: each has one signature, whatever options it takes
    SELECT string_agg(format('EXECUTE on function %s', f::regprocedure), ', ') INTO missing
      FROM unnest(ARRAY['ranread_internal.ranread_primary_only',
                        '@extschema@.ranread_sweep',
                        '@extschema@.ranread_commit_test']::regproc[]) AS f
     WHERE NOT has_function_privilege(f, 'EXECUTE');
    IF missing IS NOT NULL THEN
        RAISE EXCEPTION USING
            ERRCODE = 'insufficient_privilege',
            MESSAGE = format('permission denied to measure with %s', fn),
            DETAIL = format('The role %s lacks %s.', current_user, missing),
            HINT = 'Call ranread_advise with measure => false to advise from the history (pg_monitor may), or run it as a role that may run batches.';
    END IF;
    PERFORM ranread_internal.ranread_primary_only(fn);
    bad := ranread_internal.ranread_first_failed(ARRAY[
        (ev.setup IS NOT NULL, 'object_not_in_prerequisite_state',
         format('tablespace %s has no ranread target to measure with', ev.tablespace),
         format('Make one first: %s', ev.setup)),
        (current_setting('transaction_isolation') <> 'read committed', 'invalid_transaction_state',
         format('%s with measure => true must run at the read committed isolation level, not %s',
                fn, current_setting('transaction_isolation')),
         'The batches it runs are recorded by their workers while it runs, which a repeatable read snapshot cannot see; run it outside an explicit transaction.')
        ]::ranread_internal.ranread_check[]);
    IF bad.failed THEN
        RAISE EXCEPTION USING ERRCODE = bad.errcode, MESSAGE = bad.message, HINT = bad.hint;
    END IF;
    FOREACH what IN ARRAY ARRAY['random sweep', 'sequential sweep', 'commit test'] LOOP
        RAISE NOTICE 'ranread_advise measures %: %', what,
            ranread_internal.ranread_advise_measure_sql(what, ev.target, ev.duration, ev.max_avg_ms);
        EXECUTE ranread_internal.ranread_advise_measure_sql(what, ev.target, ev.duration, ev.max_avg_ms,
            (SELECT n.nspname FROM pg_catalog.pg_namespace n
              WHERE n.oid OPERATOR(pg_catalog.=) '@extschema@'::pg_catalog.regnamespace));
    END LOOP;
END
$$;

-- Step: the evidence from the history, each figure the median of the
-- comparable batches (ranread_advise_figure): on the tablespace, a QD1
-- random 8 KiB read, one process's sequential reads, the most MiB/s of
-- sequential reads by several processes (of the same block size and queue
-- depth) and the random curve (a figure at each concurrency, processes x
-- queue depth); one process's sequential reads on the reference
-- tablespace; whether a cache answered (ranread_advise_cache); and the
-- latest commit test on pg_wal that measured the server's wal_sync_method
-- with others, naming the later ones that did not.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_advise_gather(ev ranread_internal.ranread_advise_evidence)
RETURNS ranread_internal.ranread_advise_evidence
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    s1 ranread_internal.ranread_advise_batch;
BEGIN
    ev.random_qd1 := ranread_internal.ranread_advise_figure(ev.tablespace, 'random', 8192, 1, 1);
    s1 := ranread_internal.ranread_advise_seq_one(ev.tablespace);
    ev.seq_one := s1;
    ev.seq_most := (SELECT f FROM (SELECT DISTINCT h.processes FROM ranread_internal.ranread_advise_history(ev.tablespace) h
                                    WHERE h.stale IS NULL AND h.kind = 'sequential' AND h.processes > 1
                                      AND h.block_size = s1.block_size AND h.queue_depth = s1.queue_depth) p,
                         LATERAL ranread_internal.ranread_advise_figure(ev.tablespace, 'sequential', s1.block_size,
                                                                        p.processes, s1.queue_depth) f
                     ORDER BY f.mbps DESC, f.processes LIMIT 1);
    ev.seq_reference := ranread_internal.ranread_advise_seq_one(ev.reference);
    WITH k AS (
        SELECT c.conc, f.iops, f.avg_ms, f.n, f.batches, f.iops_spread
          FROM (SELECT DISTINCT h.processes * h.queue_depth AS conc
                  FROM ranread_internal.ranread_advise_history(ev.tablespace) h
                 WHERE h.stale IS NULL AND h.kind = 'random') c,
               LATERAL ranread_internal.ranread_advise_figure(ev.tablespace, 'random', 8192, NULL, NULL, c.conc) f
    )
    SELECT array_agg(k.conc ORDER BY k.conc), array_agg(k.iops ORDER BY k.conc), array_agg(k.avg_ms ORDER BY k.conc),
           (SELECT array_agg(b ORDER BY b) FROM k, unnest(k.batches) b),
           string_agg(format('%s: %s IOPS, %s ms', k.conc,
                             to_char(round(k.iops::numeric), 'FM999,999,999,990'), round(k.avg_ms::numeric, 3))
                      || CASE WHEN k.n > 1 THEN format(' (median of %s batches, which vary by %s%%)', k.n,
                                                      round((100 * k.iops_spread)::numeric, 1)) ELSE '' END,
                      '; ' ORDER BY k.conc),
           max(k.iops_spread) FILTER (WHERE k.avg_ms <= ev.max_avg_ms)
      INTO ev.curve_concurrency, ev.curve_iops, ev.curve_avg_ms, ev.curve_batches, ev.curve_text, ev.curve_spread
      FROM k;
    ev.ram_bytes := ranread_internal.ranread_ram_bytes();
    SELECT x.withhold, x.note INTO ev.cache_withholds, ev.cache_note
      FROM ranread_internal.ranread_advise_cache((ev.random_qd1).avg_ms, coalesce((ev.random_qd1).target, s1.target),
               coalesce((ev.random_qd1).target_bytes, s1.target_bytes), ev.ram_bytes) x;

    -- the rounds of each commit test on pg_wal, as the server writes its WAL
    -- now: a test whose open_* methods used O_DIRECT where the server does
    -- not (pg_test_fsync's way, or another wal_level) measured something
    -- else, and is named as not counted
    WITH c AS (
        SELECT c.commit_test, max(c.run_at) AS run_at, min(c.filesystem) AS filesystem,
               array_agg(c.method ORDER BY c.batch) AS methods,
               array_agg(c.ops_per_s ORDER BY c.batch) AS ops,
               array_agg(c.batch ORDER BY c.batch) AS batches,
               bool_or(c.direct IS DISTINCT FROM (current_setting('wal_level') = 'minimal') AND c.direct IS NOT NULL) AS other_way
          FROM ranread_internal.ranread_commit_summary_raw c
         WHERE c.tablespace = 'pg_wal' AND c.test = 'one 8 kB write' AND c.durable AND c.status = 'completed'
           AND c.ops_per_s >= 0 AND c.ops_per_s < 'Infinity'
         GROUP BY c.commit_test
    ), w AS (
        SELECT c.commit_test, c.run_at, c.filesystem, c.batches, c.other_way,
               CASE WHEN NOT c.other_way THEN f.method END AS method, f.measured,
               CASE WHEN c.other_way
                    THEN format('it timed open_datasync and open_sync %s O_DIRECT, and this server at wal_level %s opens its WAL %s it',
                                CASE WHEN current_setting('wal_level') = 'minimal' THEN 'without' ELSE 'with' END,
                                current_setting('wal_level'),
                                CASE WHEN current_setting('wal_level') = 'minimal' THEN 'with' ELSE 'without' END)
                    ELSE f.note END AS note
          FROM c, LATERAL @extschema@.ranread_advise_wal_sync_method(c.methods, c.ops,
                                                                     current_setting('wal_sync_method')) f
    ), pick AS (
        SELECT * FROM w WHERE w.method IS NOT NULL ORDER BY w.commit_test DESC LIMIT 1
    )
    SELECT pick.commit_test, pick.run_at, pick.filesystem,
           ARRAY(SELECT b FROM unnest(pick.batches) b ORDER BY b), pick.method, pick.measured, pick.note,
           (SELECT string_agg(format('commit test %s (%s): %s', x.commit_test,
                                     to_char(x.run_at, 'YYYY-MM-DD HH24:MI'), x.note),
                              '; ' ORDER BY x.commit_test DESC)
              FROM (SELECT * FROM w WHERE w.commit_test > coalesce(pick.commit_test, 0)
                     ORDER BY w.commit_test DESC LIMIT 3) x)
      INTO ev.commit_test, ev.commit_run_at, ev.commit_filesystem, ev.commit_batches, ev.commit_method,
           ev.commit_measured, ev.commit_note, ev.commit_skipped
      FROM (SELECT) one LEFT JOIN pick ON true;
    RETURN ev;
END
$$;

-- The statements that measure again on a target no cache in RAM holds
-- (twice the RAM or more), making it first when the tablespace has none:
-- what to_measure says where a cache may have answered.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_advise_large_sql(ev ranread_internal.ranread_advise_evidence,
    what text[])
RETURNS text
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT concat_ws(' ', CASE WHEN l.target IS NULL
                                   THEN ranread_internal.ranread_advise_measure_sql('target', 'ranread_large', NULL, NULL,
                                                                                    NULL, ($1).tablespace) END,
                     (SELECT string_agg(ranread_internal.ranread_advise_measure_sql(w, coalesce(l.target, 'ranread_large'),
                                            ($1).duration, ($1).max_avg_ms), ' ' ORDER BY i)
                        FROM unnest($2) WITH ORDINALITY u(w, i)))
      FROM (SELECT (SELECT t.target FROM @extschema@.ranread_targets t
                     WHERE t.tablespace = ($1).tablespace AND t.state = 'ready' AND t.size_bytes >= 2 * ($1).ram_bytes
                     ORDER BY t.created_at DESC LIMIT 1) AS target) l
$$;

-- A row of advice for one setting: its current values (the server's, and
-- for a tablespace setting the tablespace's own), the suggestion, and
-- apply_sql: the statement that would apply it, NULL when there is no
-- suggestion or it is what is set now (ranread_advise_pending).  A setting
-- from the storage's figures (remeasure: what measures them again) has no
-- suggestion where a cache may have answered (ranread_advise_cache); the
-- warning says so, and that the batches vary more (spread, as a fraction)
-- than the change suggested from the value in force.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_advise_row(
    ev ranread_internal.ranread_advise_evidence, setting text, scope text, suggested text,
    figures text, formula text, to_measure text, batches bigint[],
    spread float8 DEFAULT NULL, remeasure text[] DEFAULT NULL)
RETURNS ranread_internal.ranread_advice
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT $2, current_setting($2), v.ts_value, g.suggested, $3, $5, $6, p.apply_now,
           CASE WHEN g.withheld THEN ranread_internal.ranread_advise_large_sql($1, $10) ELSE $7 END, $8,
           nullif(concat_ws('; ', CASE WHEN $10 IS NOT NULL THEN ($1).cache_note END,
               CASE WHEN p.apply_now IS NOT NULL AND $9 > c.change
                    THEN format('the batches this rests on vary by %s%%, more than the change of %s%% it suggests (%s to %s): measure again when the server is idle, or with longer batches, before applying it',
                                round((100 * $9)::numeric, 1), round((100 * c.change)::numeric, 1), g.current, g.suggested) END), '')
      FROM (SELECT CASE WHEN $3 = 'tablespace'
                        THEN (SELECT split_part(o, '=', 2) FROM pg_tablespace t, unnest(t.spcoptions) o
                               WHERE t.spcname = ($1).tablespace AND split_part(o, '=', 1) = $2) END AS ts_value) v,
           LATERAL (SELECT $10 IS NOT NULL AND coalesce(($1).cache_withholds, false) AS withheld,
                           coalesce(v.ts_value, current_setting($2)) AS current) w,
           LATERAL (SELECT w.withheld, w.current, CASE WHEN NOT w.withheld THEN $4 END AS suggested) g,
           LATERAL (SELECT CASE WHEN g.suggested ~ '^[0-9]+(\.[0-9]*)?$' AND g.current ~ '^[0-9]+(\.[0-9]*)?$'
                                 AND g.current::numeric > 0
                            THEN abs(g.suggested::numeric / g.current::numeric - 1) END AS change) c,
           ranread_internal.ranread_advise_pending($2, g.suggested, g.current, $3,
               CASE WHEN g.suggested IS NULL THEN NULL
                    WHEN $3 = 'tablespace'
                    THEN format('ALTER TABLESPACE %s SET (%s = %s);', quote_ident(($1).tablespace), $2, g.suggested)
                    ELSE format('ALTER SYSTEM SET %s = %s; SELECT pg_reload_conf();', $2,
                                CASE WHEN g.suggested ~ '^[0-9.]+$' THEN g.suggested ELSE quote_literal(g.suggested) END) END) p
$$;

-- Step: random_page_cost and seq_page_cost (ranread_advise_page_costs) from
-- the QD1 random read and one process's sequential page, the reference
-- tablespace's sequential page as the unit.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_advise_page_cost_rows(ev ranread_internal.ranread_advise_evidence)
RETURNS ranread_internal.ranread_advice[]
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    r1       ranread_internal.ranread_advise_batch := ev.random_qd1;
    s1       ranread_internal.ranread_advise_batch := ev.seq_one;
    sref     ranread_internal.ranread_advise_batch := ev.seq_reference;
    ts       name := ev.tablespace;
    ref_ts   name := ev.reference;
    page_ms  float8 := 8192.0 / (s1.mbps * 1048576) * 1000;
    ref_ms   float8 := CASE WHEN ts <> ref_ts THEN 8192.0 / (sref.mbps * 1048576) * 1000 END;
    pc       record;
    figures  text;
    measure_random text;   -- to_measure of random_page_cost
    measure_seq    text;   -- and of seq_page_cost
    ref_target     name;   -- a target on the reference tablespace
    ref_batches    bigint[] := CASE WHEN ts <> ref_ts THEN sref.batches END;
    ref_spread     float8 := CASE WHEN ts <> ref_ts THEN sref.iops_spread END;
    remeasure      constant text[] := ARRAY['random QD1', 'sequential'];
BEGIN
    SELECT * INTO pc FROM @extschema@.ranread_advise_page_costs(r1.avg_ms, page_ms, ev.cache_hit_ratio, ref_ms);
    IF pc.random_page_cost IS NULL THEN
        figures := 'missing: '
                   || concat_ws('; ',
                          CASE WHEN r1.batch IS NULL THEN 'no QD1 random 8 KiB read on ' || ts END,
                          CASE WHEN s1.batch IS NULL THEN 'no sequential read (128 KiB or more) by one process on ' || ts END)
                   || ranread_internal.ranread_advise_stale(ts, 'random', 1, 1)
                   || ranread_internal.ranread_advise_stale(ts, 'sequential', 1, NULL);
        measure_random := concat_ws(' ', ev.setup,
            CASE WHEN r1.batch IS NULL THEN ranread_internal.ranread_advise_measure_sql('random QD1', ev.target, ev.duration, ev.max_avg_ms) END,
            CASE WHEN s1.batch IS NULL THEN ranread_internal.ranread_advise_measure_sql('sequential', ev.target, ev.duration, ev.max_avg_ms) END);
        measure_seq := measure_random;
    ELSE
        figures := format('QD1 random 8 KiB reads: %s ms average (%s); sequential %s KiB reads, one process: %s MiB/s, %s ms per 8 KiB page (%s)',
                          round(r1.avg_ms::numeric, 3), ranread_internal.ranread_advise_source(r1, r1.ms_spread),
                          s1.block_size / 1024, round(s1.mbps::numeric), round(page_ms::numeric, 4),
                          ranread_internal.ranread_advise_source(s1, s1.iops_spread))
                || CASE WHEN ts = ref_ts THEN format('; %s is the database''s default tablespace: its sequential page is the unit', ts)
                        WHEN sref.batch IS NULL THEN format('; no sequential figure on %s, the database''s default tablespace, to compare with: this tablespace''s sequential page is the unit', ref_ts)
                        ELSE format('; on %s, the unit: %s MiB/s, %s ms per page (%s)', ref_ts,
                                    round(sref.mbps::numeric), round(ref_ms::numeric, 4),
                                    ranread_internal.ranread_advise_source(sref, sref.iops_spread)) END
                || format('; cache hit ratio %s (%s)', ev.cache_hit_ratio,
                          CASE WHEN ev.cache_hit_ratio = 0.9 THEN 'PostgreSQL''s assumption; give yours as cache_hit_ratio' ELSE 'given' END);
        IF ts <> ref_ts AND sref.batch IS NULL THEN
            -- the unit is missing: measure it on the reference tablespace
            ref_target := ranread_internal.ranread_advise_target(ref_ts);
            measure_seq := concat_ws(' ',
                CASE WHEN ref_target IS NULL
                     THEN ranread_internal.ranread_advise_measure_sql('target', 'ranread', NULL, NULL, NULL, ref_ts) END,
                ranread_internal.ranread_advise_measure_sql('sequential', coalesce(ref_target, 'ranread'),
                                                            ev.duration, ev.max_avg_ms));
        END IF;
    END IF;
    -- a ratio of figures varies by about the sum of their spreads
    RETURN ARRAY[
        ranread_internal.ranread_advise_row(ev, 'random_page_cost', 'tablespace', pc.random_page_cost::text, figures,
            'random_page_cost = (1 - cache_hit_ratio) x (QD1 random 8 KiB read time / time per 8 KiB page of one process''s large sequential reads on the database''s default tablespace), one decimal, never below seq_page_cost. PostgreSQL''s docs: the default 4.0 models random access as 40 times slower than sequential with 90% of random reads cached, (1 - 0.9) x 40 = 4; a random_page_cost below seq_page_cost is not physically sensible.',
            measure_random, r1.batches || s1.batches || ref_batches,
            (SELECT sum(x) FROM unnest(ARRAY[r1.ms_spread, s1.iops_spread, ref_spread]) x), remeasure),
        ranread_internal.ranread_advise_row(ev, 'seq_page_cost', 'tablespace', pc.seq_page_cost::text, figures,
            'seq_page_cost = time per 8 KiB page of one process''s large sequential reads here / the same on the database''s default tablespace, two decimals: 1 on the default tablespace, whose sequential page is the unit of the planner''s costs (the server''s seq_page_cost, default 1).',
            measure_seq, r1.batches || s1.batches || ref_batches,
            CASE WHEN ref_batches IS NOT NULL THEN (SELECT sum(x) FROM unnest(ARRAY[s1.iops_spread, ref_spread]) x) END, remeasure)];
END
$$;

-- Step: effective_io_concurrency and maintenance_io_concurrency
-- (ranread_advise_io_concurrency): from what PostgreSQL got at each
-- prefetch distance, measured on the server path (ranread_advise_server_curve,
-- ranread_paths), wherever such figures exist; else from the random curve
-- of the device path, as a model of what prefetching could use.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_advise_io_rows(ev ranread_internal.ranread_advise_evidence)
RETURNS ranread_internal.ranread_advice[]
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    modelled constant text := 'the lowest concurrency (processes x queue depth) at which random 8 KiB reads reach 90% of the highest IOPS measured within max_avg_ms average latency, 1 to 1000: the pages in flight past which prefetching gains little. ';
    measured constant text := 'measured, not modelled: the lowest effective_io_concurrency at which one process reading random 8 KiB blocks through shared buffers (ranread''s server path, prefetching that many blocks ahead as a bitmap heap scan does) reaches 90% of the highest IOPS measured within max_avg_ms average latency, 1 to 1000. ';
    sc         record;
    ioc        record;
    formula    text;
    figures    text;
    to_measure text;
    batches    bigint[];
    spread     float8;
    remeasure  text[];
BEGIN
    sc := ranread_internal.ranread_advise_server_curve(ev.tablespace);
    SELECT * INTO ioc FROM @extschema@.ranread_advise_io_concurrency(sc.prefetch, sc.iops, sc.avg_ms, ev.max_avg_ms);
    IF ioc.io_concurrency IS NOT NULL THEN
        formula := measured;
        figures := format('one process''s random 8 KiB reads through shared buffers (path server) by effective_io_concurrency: %s; peak %s IOPS at %s within %s ms average; 90%% of it from %s',
                          sc.curve_text, to_char(round(ioc.peak_iops::numeric), 'FM999,999,999,990'),
                          ioc.peak_concurrency, ev.max_avg_ms, ioc.io_concurrency)
                   || CASE WHEN ioc.still_rising THEN format('; IOPS still rose at the highest distance measured, so %s is a lower bound: measure higher', ioc.io_concurrency) ELSE '' END;
        to_measure := CASE WHEN ioc.still_rising
                           THEN ranread_internal.ranread_advise_measure_sql('server sweep', ev.target, ev.duration, ev.max_avg_ms) END;
        batches := sc.batches;
        spread := sc.spread;
        remeasure := ARRAY['server sweep'];
    ELSE
        SELECT * INTO ioc FROM @extschema@.ranread_advise_io_concurrency(ev.curve_concurrency, ev.curve_iops,
                                                                         ev.curve_avg_ms, ev.max_avg_ms);
        formula := modelled;
        IF ioc.io_concurrency IS NULL THEN
            figures := format('missing: random 8 KiB reads at two or more concurrencies (processes x queue depth) within %s ms average on %s%s',
                              ev.max_avg_ms, ev.tablespace,
                              CASE WHEN ev.curve_text IS NOT NULL THEN '; measured: ' || ev.curve_text ELSE '' END)
                       || ranread_internal.ranread_advise_stale(ev.tablespace, 'random', NULL, NULL);
            to_measure := concat_ws(' ', ev.setup,
                                    ranread_internal.ranread_advise_measure_sql('random sweep', ev.target, ev.duration, ev.max_avg_ms));
        ELSE
            figures := format('random 8 KiB reads by concurrency (I/Os in flight): %s; peak %s IOPS at %s within %s ms average; 90%% of it from %s',
                              ev.curve_text, to_char(round(ioc.peak_iops::numeric), 'FM999,999,999,990'),
                              ioc.peak_concurrency, ev.max_avg_ms, ioc.io_concurrency)
                       || CASE WHEN ioc.still_rising THEN format('; IOPS still rose at the highest concurrency measured, so %s is a lower bound: measure higher', ioc.io_concurrency) ELSE '' END;
            to_measure := CASE WHEN ioc.still_rising
                               THEN ranread_internal.ranread_advise_measure_sql('random sweep', ev.target, ev.duration, ev.max_avg_ms) END;
        END IF;
        -- what PostgreSQL gets, measured, would replace the model
        IF ioc.io_concurrency IS NOT NULL THEN
            figures := figures || '; a model: what PostgreSQL itself gets at each effective_io_concurrency, measured by ranread_paths, replaces it';
        END IF;
        batches := coalesce(ev.curve_batches, '{}');
        spread := ev.curve_spread;
        remeasure := ARRAY['random sweep'];
    END IF;
    -- both settings follow from the same curve; they differ in what uses them
    RETURN (SELECT array_agg(ranread_internal.ranread_advise_row(ev, u.setting, 'tablespace', ioc.io_concurrency::text,
                                 figures, formula || u.used, to_measure, batches, spread, remeasure) ORDER BY u.n)
              FROM (VALUES (1, 'effective_io_concurrency', 'PostgreSQL 15 uses it as the prefetch distance of bitmap heap scans; its docs: the number of drives for RAID, hundreds for SSDs.'),
                           (2, 'maintenance_io_concurrency', 'PostgreSQL 15 uses it for prefetching on behalf of many sessions: ANALYZE, index deletion, recovery prefetch.')
                   ) u(n, setting, used));
END
$$;

-- Step: max_parallel_workers_per_gather (ranread_advise_parallel_workers)
-- from sequential reads by one process and by several.  A server-wide
-- setting from one tablespace's figures: the figures say which tablespace,
-- and where the server has others (not measured here) the warning says the
-- setting would apply to them too.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_advise_parallel_rows(ev ranread_internal.ranread_advise_evidence)
RETURNS ranread_internal.ranread_advice[]
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    one  ranread_internal.ranread_advise_batch := ev.seq_one;
    most ranread_internal.ranread_advise_batch := ev.seq_most;
    pw   record;
    a    ranread_internal.ranread_advice;
    others text;
BEGIN
    SELECT * INTO pw FROM @extschema@.ranread_advise_parallel_workers(one.mbps, most.mbps);
    SELECT string_agg(t.spcname::text, ', ' ORDER BY t.spcname) INTO others
      FROM pg_tablespace t WHERE t.spcname NOT IN ('pg_global', ev.tablespace);
    a := ranread_internal.ranread_advise_row(ev, 'max_parallel_workers_per_gather', 'server', pw.workers::text,
        CASE WHEN pw.workers IS NULL
             THEN 'missing: sequential reads (128 KiB or more) by one process and by several on ' || ev.tablespace
                  || ranread_internal.ranread_advise_stale(ev.tablespace, 'sequential', NULL, NULL)
             ELSE format('tablespace %s alone: sequential reads: one process %s MiB/s (%s), the most with several %s MiB/s, by %s processes (%s): %s',
                         ev.tablespace,
                         round(one.mbps::numeric), ranread_internal.ranread_advise_source(one, one.iops_spread),
                         round(most.mbps::numeric), most.processes,
                         ranread_internal.ranread_advise_source(most, most.iops_spread),
                         CASE WHEN pw.processes = 1 THEN 'one process already reads as fast as several'
                              ELSE format('%s processes'' worth', pw.processes) END) END,
        'a cap for I/O-bound parallel scans: processes = round(sequential MiB/s of all processes / of one process), as Oracle''s CALIBRATE_IO feeds PARALLEL_DEGREE_LIMIT=IO (MAX_MBPS / MAX_PMBPS); workers per gather = processes - 1, since the leader scans too. Plans bound by CPU on cached data may still use more. It is a server-wide setting, from the figures of one tablespace.',
        CASE WHEN pw.workers IS NULL
             THEN concat_ws(' ', ev.setup,
                            ranread_internal.ranread_advise_measure_sql('sequential sweep', ev.target, ev.duration, ev.max_avg_ms)) END,
        coalesce(one.batches || most.batches, '{}'),
        (SELECT sum(x) FROM unnest(ARRAY[one.iops_spread, most.iops_spread]) x),
        ARRAY['sequential sweep']);
    IF pw.workers IS NOT NULL AND others IS NOT NULL THEN
        a.warning := concat_ws('; ', a.warning,
            format('max_parallel_workers_per_gather is server-wide, but this rests on tablespace %s alone: the server''s other tablespaces (%s) were not measured, and their storage may read faster or slower in parallel',
                   ev.tablespace, others));
    END IF;
    RETURN ARRAY[a];
END
$$;

-- Step: wal_sync_method (ranread_advise_wal_sync_method) from the commit
-- test the evidence names, which measured the server's method with others;
-- and next to it the latest durability check (ranread_advise_durability:
-- did the storage keep what it flushed?), or that none was run.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_advise_wal_rows(ev ranread_internal.ranread_advise_evidence)
RETURNS ranread_internal.ranread_advice[]
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    a   ranread_internal.ranread_advice;
    dur record;
BEGIN
    dur := ranread_internal.ranread_advise_durability_latest();
    a := ranread_internal.ranread_advise_row(ev, 'wal_sync_method', 'server', ev.commit_method,
        CASE WHEN ev.commit_method IS NULL
             THEN format('missing: a commit test on pg_wal''s filesystem that measured %s, the server''s wal_sync_method, and other methods together, as this server writes its WAL',
                         current_setting('wal_sync_method'))
             ELSE format('commit test %s on pg_wal (%s, %s), one 8 kB write and its sync: %s; %s',
                         ev.commit_test, ev.commit_filesystem, to_char(ev.commit_run_at, 'YYYY-MM-DD HH24:MI'),
                         ev.commit_measured, ev.commit_note) END
        || coalesce('; not counted: ' || ev.commit_skipped, '')
        || '; ' || dur.citation,
        format('among the durable methods one commit test timed together on pg_wal''s filesystem, one 8 kB write and its sync, in alternated rounds, as this server writes its WAL (open_datasync and open_sync with O_DIRECT only at wal_level minimal): the current method stays unless another is faster beyond the noise (its 95%% interval above the current method''s) and by more than %s%%; among several such within the noise of each other, the first of fdatasync, open_datasync, fsync, open_sync; fsync is never advised over fdatasync, nor open_sync over open_datasync (each does at least the other''s work). Trusts the device to keep its promise to write through (a durability check tests that promise across a power cut).',
               100 * ranread_internal.ranread_advise_noise()),
        CASE WHEN ev.commit_method IS NULL
             THEN ranread_internal.ranread_advise_measure_sql('commit test', NULL, ev.duration, ev.max_avg_ms) END,
        coalesce(ev.commit_batches, '{}'));
    a.warning := nullif(concat_ws('; ', a.warning, dur.warning), '');
    RETURN ARRAY[a];
END
$$;

-- Step: full_page_writes (ranread_advise_full_page_writes) from what statx
-- says of atomic writes on the advised tablespace and on the database's
-- default one (ranread_atomic_writes): the storage's facts, not figures.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_advise_fpw_rows(ev ranread_internal.ranread_advise_evidence)
RETURNS ranread_internal.ranread_advice[]
LANGUAGE sql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT ARRAY[ranread_internal.ranread_advise_row($1, 'full_page_writes', 'server', f.suggested, f.figures,
        'full_page_writes stays on unless the storage under every tablespace guarantees that an 8 kB page write is atomic (statx STATX_WRITE_ATOMIC, Linux 6.11+: the atomic write unit covers 8 kB), and even then only where PostgreSQL''s writes get that guarantee; a torn page is otherwise repaired only from the full page image in the WAL.',
        NULL, '{}')]
      FROM (SELECT array_agg(p.name ORDER BY p.i) AS places, array_agg(w.atomic_8k ORDER BY p.i) AS atomic,
                   array_agg(w.note ORDER BY p.i) AS notes
              FROM (SELECT DISTINCT ON (x.name) x.name, x.i
                      FROM unnest(ARRAY[($1).tablespace, ($1).reference]) WITH ORDINALITY AS x(name, i)
                     ORDER BY x.name, x.i) p,
                   LATERAL ranread_internal.ranread_atomic_writes(p.name) w) a,
           LATERAL ranread_internal.ranread_advise_full_page_writes(a.places, a.atomic, a.notes,
                                                                    current_setting('full_page_writes')) f
$$;

-- Step: the NOTICE that ends the advice: the statements that would apply
-- every suggestion not yet in force (nothing is applied), or that there are
-- no figures yet, or that nothing needs to change.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_advise_notice(tablespace name,
    advice ranread_internal.ranread_advice[])
RETURNS void
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    a        ranread_internal.ranread_advice;
    ts_sets  text[] := '{}';   -- what to apply, per tablespace
    sys_sets text[] := '{}';   -- and per server
BEGIN
    FOREACH a IN ARRAY advice LOOP
        SELECT ts_sets || p.ts_set, sys_sets || p.sys_set INTO ts_sets, sys_sets
          FROM ranread_internal.ranread_advise_pending(a.setting, a.suggested,
                   coalesce(a.tablespace_value, a.server_value), a.scope, a.apply_sql) p;
    END LOOP;
    IF cardinality(ts_sets) + cardinality(sys_sets) > 0 THEN
        RAISE NOTICE 'ranread_advise for %: nothing has been applied; to apply every suggestion: %', tablespace,
            concat_ws(' ',
                CASE WHEN cardinality(ts_sets) > 0
                     THEN format('ALTER TABLESPACE %s SET (%s);', quote_ident(tablespace), array_to_string(ts_sets, ', ')) END,
                array_to_string(sys_sets, ' '),
                CASE WHEN cardinality(sys_sets) > 0 THEN 'SELECT pg_reload_conf();' END);
    -- full_page_writes follows from the storage's facts, not from figures
    ELSIF (SELECT bool_and(x.suggested IS NULL) FROM unnest(advice) x WHERE x.setting <> 'full_page_writes') THEN
        RAISE NOTICE 'ranread_advise for %: no figures to advise from yet; to_measure says what to run, or call ranread_advise(%, measure => true)',
            tablespace, quote_literal(tablespace);
    ELSE
        RAISE NOTICE 'ranread_advise for %: nothing to change%', tablespace,
            CASE WHEN (SELECT bool_or(x.suggested IS NULL) FROM unnest(advice) x)
                 THEN ' in what could be advised; to_measure says what to run for the rest' ELSE '' END;
    END IF;
END
$$;

-- From numbers to settings: one row per setting, from the batches on the
-- tablespace (and the latest commit test on pg_wal), or, with measure =>
-- true, from the short batches it runs first and names.  Never applies
-- anything.  Advice needs, on the tablespace: a QD1 random 8 KiB read, a
-- sequential read of one process (1 MiB), random reads at two or more
-- concurrencies, sequential reads by several processes; and a commit test.
-- What is missing or stale is named, with the statement that measures it.
CREATE OR REPLACE FUNCTION @extschema@.ranread_advise(
    tablespace       name     DEFAULT NULL,
    measure          boolean  DEFAULT false,
    cache_hit_ratio  float8   DEFAULT 0.9,
    max_avg_ms       float8   DEFAULT 10,
    target name DEFAULT NULL,
    duration interval DEFAULT '2s')
    -- not rest: advice measures the few workloads its formulas need, each its own
RETURNS TABLE (
    setting          text,
    server_value     text,
    tablespace_value text,
    suggested        text,
    scope            text,
    figures          text,
    formula          text,
    apply_sql        text,
    to_measure       text,
    batches          bigint[],
    warning          text)
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    ev     ranread_internal.ranread_advise_evidence;
    advice ranread_internal.ranread_advice[];
BEGIN
    -- the steps that refuse arguments are assignments (not PERFORM), so
    -- that their errors' CONTEXT is the step and ranread_advise, without
    -- the text of an SQL statement
    ev := ranread_internal.ranread_advise_check(measure, cache_hit_ratio, max_avg_ms, duration);
    ev := ranread_internal.ranread_advise_place(ev, tablespace, target);
    IF measure THEN
        PERFORM ranread_internal.ranread_advise_measure(ev);
    END IF;
    ev := ranread_internal.ranread_advise_gather(ev);
    advice := ranread_internal.ranread_advise_page_cost_rows(ev)
              || ranread_internal.ranread_advise_io_rows(ev)
              || ranread_internal.ranread_advise_parallel_rows(ev)
              || ranread_internal.ranread_advise_wal_rows(ev)
              || ranread_internal.ranread_advise_fpw_rows(ev);
    RETURN QUERY SELECT * FROM unnest(advice);
    -- one WARNING names the settings whose advice carries a warning, for
    -- a caller who reads only setting and suggested
    IF (SELECT bool_or(a.warning IS NOT NULL) FROM unnest(advice) a) THEN
        RAISE WARNING 'ranread_advise for %: the advice on % carries a warning: see the warning column', ev.tablespace,
            (SELECT string_agg(a.setting, ', ') FROM unnest(advice) a WHERE a.warning IS NOT NULL);
    END IF;
    PERFORM ranread_internal.ranread_advise_notice(ev.tablespace, advice);
END
$$;

-- Readers of the history (pg_monitor) may ask for advice without measuring:
-- ranread_advise then only reads what they may read, through the steps
-- below (ranread_advise_measure only to be told why it may not measure).
GRANT EXECUTE ON FUNCTION
    @extschema@.ranread_advise(name, boolean, float8, float8, name, interval),
    @extschema@.ranread_advise_page_costs(float8, float8, float8, float8),
    @extschema@.ranread_advise_io_concurrency(integer[], float8[], float8[], float8, float8),
    @extschema@.ranread_advise_parallel_workers(float8, float8),
    @extschema@.ranread_advise_wal_sync_method(text[], float8[], text),
    ranread_internal.ranread_advise_history(name),
    ranread_internal.ranread_advise_server_curve(name),
    ranread_internal.ranread_advise_stale(name, text, integer, integer),
    ranread_internal.ranread_advise_measure_sql(text, name, interval, float8, name, name),
    ranread_internal.ranread_advise_target(name),
    ranread_internal.ranread_advise_same(text, text),
    ranread_internal.ranread_advise_pending(text, text, text, text, text),
    ranread_internal.ranread_first_failed(ranread_internal.ranread_check[]),
    ranread_internal.ranread_advise_check(boolean, float8, float8, interval),
    ranread_internal.ranread_advise_place(ranread_internal.ranread_advise_evidence, name, name),
    ranread_internal.ranread_advise_measure(ranread_internal.ranread_advise_evidence),
    ranread_internal.ranread_advise_gather(ranread_internal.ranread_advise_evidence),
    ranread_internal.ranread_advise_row(ranread_internal.ranread_advise_evidence, text, text, text, text, text, text, bigint[], float8, text[]),
    ranread_internal.ranread_advise_large_sql(ranread_internal.ranread_advise_evidence, text[]),
    ranread_internal.ranread_advise_figure(name, text, integer, integer, integer, integer),
    ranread_internal.ranread_advise_seq_one(name),
    ranread_internal.ranread_advise_source(ranread_internal.ranread_advise_batch, float8),
    ranread_internal.ranread_advise_cache(float8, name, bigint, bigint),
    ranread_internal.ranread_advise_noise(),
    ranread_internal.ranread_advise_arg(text, text, float8, float8, float8),
    ranread_internal.ranread_t95(integer),
    ranread_internal.ranread_rounds_interval(float8[]),
    ranread_internal.ranread_ram_bytes(),
    ranread_internal.ranread_advise_page_cost_rows(ranread_internal.ranread_advise_evidence),
    ranread_internal.ranread_advise_io_rows(ranread_internal.ranread_advise_evidence),
    ranread_internal.ranread_advise_parallel_rows(ranread_internal.ranread_advise_evidence),
    ranread_internal.ranread_advise_wal_rows(ranread_internal.ranread_advise_evidence),
    ranread_internal.ranread_advise_durability(bigint, name, text, timestamptz, bigint, bigint, bigint, text),
    ranread_internal.ranread_advise_durability_latest(),
    ranread_internal.ranread_advise_fpw_rows(ranread_internal.ranread_advise_evidence),
    ranread_internal.ranread_atomic_writes(name),
    ranread_internal.ranread_advise_full_page_writes(name[], boolean[], text[], text),
    ranread_internal.ranread_advise_notice(name, ranread_internal.ranread_advice[])
    TO pg_monitor;
-- 1.2, the two paths side by side (docs/server-path.md): the
-- same reads on the device path (O_DIRECT: what the storage gives) and on
-- the server path (through shared buffers and the page cache: what
-- PostgreSQL gets), one after the other, alternated, at each prefetch
-- distance asked for, and per distance the two figures and their ratio.
-- The server path at effective_io_concurrency N has up to N + 1 reads in
-- flight per process, so its device figure is the device path's at queue
-- depth N + 1: what the storage gives at the depth PostgreSQL asked for.

-- ranread_paths' own arguments, before any batch runs; the workload's are
-- checked by the spec reader (ranread_spec_check) on both paths.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_paths_check(
    effective_io_concurrency integer[], rounds integer, device jsonb, server jsonb)
RETURNS void
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    fn   constant text := 'ranread_paths';
    eic  constant text := 'effective_io_concurrency is an array of prefetch distances to compare, 1 to 16 of them, each 0 to 1000, such as ''{0,1,8,32}''.';
    bad  ranread_internal.ranread_check;
BEGIN
    bad := ranread_internal.ranread_first_failed(ARRAY[
        (effective_io_concurrency IS NULL, 'null_value_not_allowed',
         format('effective_io_concurrency of %s must not be NULL', fn), eic),
        (array_ndims(effective_io_concurrency) > 1, 'invalid_parameter_value',
         format('effective_io_concurrency of %s must be a one-dimensional array, not %s', fn, effective_io_concurrency), eic),
        (cardinality(effective_io_concurrency) NOT BETWEEN 1 AND 16, 'invalid_parameter_value',
         format('effective_io_concurrency of %s must hold 1 to 16 values, not %s', fn, cardinality(effective_io_concurrency)), eic),
        ((SELECT bool_or(e IS NULL OR e NOT BETWEEN 0 AND 1000) FROM unnest(effective_io_concurrency) e), 'invalid_parameter_value',
         format('effective_io_concurrency of %s must hold values from 0 to 1000, not %s', fn, effective_io_concurrency), eic),
        ((SELECT count(DISTINCT e) <> count(*) FROM unnest(effective_io_concurrency) e), 'invalid_parameter_value',
         format('effective_io_concurrency of %s holds a value twice: %s', fn, effective_io_concurrency), eic),
        (rounds IS NULL, 'null_value_not_allowed', format('rounds of %s must not be NULL', fn),
         'rounds is how many times each pair of batches runs, alternating which path goes first: 1 to 10.'),
        (rounds NOT BETWEEN 1 AND 10, 'invalid_parameter_value',
         format('rounds of %s must be between 1 and 10, not %s', fn, rounds),
         'rounds is how many times each pair of batches runs, alternating which path goes first: 1 to 10.')
        ]::ranread_internal.ranread_check[]);
    IF bad.failed THEN
        RAISE EXCEPTION USING ERRCODE = bad.errcode, MESSAGE = bad.message, HINT = bad.hint;
    END IF;
    PERFORM ranread_internal.ranread_spec_check(device, true);
    PERFORM ranread_internal.ranread_spec_check(server, true);
END
$$;

-- One batch of a call that runs several (ranread_paths,
-- ranread_profile_postgres), its own NOTICEs quieted (the call says what
-- each did; a WARNING, such as a cache's, still reaches the caller): its
-- batch id.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_paths_step(spec jsonb)
RETURNS bigint
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    quiet text := current_setting('client_min_messages');
    b     bigint;
BEGIN
    PERFORM set_config('client_min_messages', 'warning', true);
    SELECT g.batch INTO b FROM @extschema@.ranread_run_step(spec) g WHERE g.grp = 0;
    PERFORM set_config('client_min_messages', quiet, true);
    RETURN b;
END
$$;

-- ranread_paths' rows from its batches: each batch's prefetch distance, path
-- (true: server) and id, in the order they ran; the distances as asked and
-- the pattern, for the words.  Per distance, each path's figures over its
-- rounds (IOPS their mean, average latency weighted by reads, p99 from their
-- merged histograms, the caches' share of the server's reads) and the
-- server's IOPS in % of the device's.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_paths_rows(
    es integer[], servers boolean[], bs bigint[], distances integer[], pattern text)
RETURNS TABLE (
    prefetch           integer,
    device_queue_depth integer,
    device_iops        bigint,
    server_iops        bigint,
    server_pct         numeric,
    device_avg_ms      numeric,
    server_avg_ms      numeric,
    device_p99_ms      numeric,
    server_p99_ms      numeric,
    server_cache_pct   numeric,
    device_batches     bigint[],
    server_batches     bigint[],
    says               text,
    status             text)
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    WITH run AS (
        SELECT u.e, u.server, x.batch, x.iops, x.avg_ms, x.reads, x.histogram, x.status,
               coalesce(x.shared_hits, 0) + coalesce(x.page_cache_hits, 0) AS cached
          FROM unnest($1, $2, $3) AS u(e, server, batch)
          JOIN @extschema@.ranread_batches x ON x.batch = u.batch
    ), per AS (
        SELECT run.e, run.server, avg(run.iops) AS iops,
               sum(run.avg_ms * run.reads) / nullif(sum(run.reads), 0) AS avg_ms,
               @extschema@.ranread_hist_percentile(@extschema@.ranread_hist_merge(run.histogram), 99) AS p99_ms,
               100.0 * sum(run.cached) / nullif(sum(run.reads), 0) AS cache_pct,
               array_agg(run.batch ORDER BY run.batch) AS batches,
               bool_and(run.status = 'completed') AS completed
          FROM run GROUP BY run.e, run.server
    )
    SELECT d.e, least(d.e + 1, 1024),
           ranread_internal.ranread_round(d.iops, 0)::bigint, ranread_internal.ranread_round(s.iops, 0)::bigint,
           ranread_internal.ranread_round(100 * s.iops / nullif(d.iops, 0), 1),
           ranread_internal.ranread_round(d.avg_ms, 3), ranread_internal.ranread_round(s.avg_ms, 3),
           ranread_internal.ranread_round(d.p99_ms, 3), ranread_internal.ranread_round(s.p99_ms, 3),
           ranread_internal.ranread_round(s.cache_pct, 1),
           d.batches, s.batches,
           CASE WHEN NOT (d.completed AND s.completed)
                THEN 'not every batch completed: no comparison'
                WHEN s.cache_pct IS NULL OR NOT d.iops > 0
                THEN 'a path measured no reads: no comparison'
                WHEN s.cache_pct >= 50
                THEN format('the server path''s reads came from caches (%s%%): its figures are memory''s, not the storage''s; read a larger target',
                            round(s.cache_pct::numeric, 1))
                ELSE format('PostgreSQL gets %s%% of this device''s %s-read IOPS at QD%s%s',
                            round((100 * s.iops / nullif(d.iops, 0))::numeric), $5, least(d.e + 1, 1024),
                            CASE WHEN d.e = 0 THEN ' (no prefetch)'
                                 ELSE format(', prefetching %s block%s ahead (effective_io_concurrency = %s)',
                                             d.e, CASE WHEN d.e = 1 THEN '' ELSE 's' END, d.e) END) END,
           CASE WHEN NOT (d.completed AND s.completed) THEN 'incomplete'
                WHEN s.cache_pct IS NULL OR NOT d.iops > 0 THEN 'no reads'
                WHEN s.cache_pct >= 50 THEN 'from cache'
                ELSE 'compared' END
      FROM per d JOIN per s ON s.e = d.e AND s.server AND NOT d.server
     ORDER BY array_position($4, d.e)
$$;

-- The comparison: for each prefetch distance N, rounds pairs of batches
-- (device at queue depth N + 1, server at effective_io_concurrency N), the
-- device first in odd rounds and the server first in even ones, each pair
-- right after the other; then per N the figures of each path over its
-- rounds (IOPS their mean, latency from their merged histograms) and the
-- server's IOPS in % of the device's, in a row that fits a screen, and
-- what they say in a NOTICE beside it, with the averages and the batches.  Needs the read committed isolation
-- level: the batches are recorded by their workers while it runs.
CREATE OR REPLACE FUNCTION @extschema@.ranread_paths(
    effective_io_concurrency integer[] DEFAULT '{0,1,2,4,8,16,32}',
    processes integer DEFAULT 1,
    target name DEFAULT 'ranread',
    duration interval DEFAULT '5s',
    pattern text DEFAULT 'random',
    rounds     integer  DEFAULT 2,
    warmup interval DEFAULT '1s')
    -- not rest: both paths read the same 8 kB blocks, one path after the other, so that they compare: the rest of a workload is ranread_run's
RETURNS TABLE (
    prefetch         integer,
    device_iops      bigint,
    server_iops      bigint,
    server_pct       numeric,
    device_p99_ms    numeric,
    server_p99_ms    numeric,
    server_cache_pct numeric,
    status           text)
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    fn      constant text := 'ranread_paths';
    base    jsonb;
    dev     jsonb;
    srv     jsonb;
    e       integer;
    b       bigint;
    es      integer[] := '{}';   -- each batch's prefetch distance,
    servers boolean[] := '{}';   -- ... its path (true: server),
    bs      bigint[] := '{}';    -- ... and its id
    pr      record;
BEGIN
    PERFORM ranread_internal.ranread_primary_only(fn);
    PERFORM ranread_internal.ranread_require_read_committed(fn,
        'Its batches are recorded by their workers while it runs, which a repeatable read snapshot cannot see; run it outside an explicit transaction.');
    base := jsonb_build_object('caller', fn, 'target', target, 'duration', duration, 'warmup', warmup);
    dev := base || jsonb_build_object('groups', jsonb_build_array(jsonb_build_object(
               'processes', processes, 'pattern', pattern, 'queue_depth', 1)));
    srv := base || jsonb_build_object('path', 'server', 'groups', jsonb_build_array(jsonb_build_object(
               'processes', processes, 'pattern', pattern)));
    PERFORM ranread_internal.ranread_paths_check(effective_io_concurrency, rounds, dev, srv);

    FOR r IN 1 .. rounds LOOP
        FOREACH e IN ARRAY effective_io_concurrency LOOP
            FOR k IN 0 .. 1 LOOP
                -- odd rounds: the device first; even rounds: the server first
                IF (k = 0) = (r % 2 = 1) THEN
                    b := ranread_internal.ranread_paths_step(
                             jsonb_set(dev, '{groups,0,queue_depth}', to_jsonb(least(e + 1, 1024))));
                    servers := servers || false;
                ELSE
                    b := ranread_internal.ranread_paths_step(srv || jsonb_build_object('effective_io_concurrency', e));
                    servers := servers || true;
                END IF;
                es := es || e;
                bs := bs || b;
                RAISE NOTICE '%', (SELECT format('ranread_paths round %s, effective_io_concurrency %s: %s path, batch %s: %s IOPS, average %s ms%s%s',
                                                  r, e, coalesce(x.path, 'device'), x.batch, round(x.iops::numeric),
                                                  round(x.avg_ms::numeric, 3),
                                                  CASE WHEN x.path = 'server'
                                                       THEN format(', %s%% from caches', round(x.cache_pct::numeric, 1)) ELSE '' END,
                                                  CASE WHEN x.status <> 'completed' THEN ', ' || x.status ELSE '' END)
                                     FROM @extschema@.ranread_batches x WHERE x.batch = b);
            END LOOP;
        END LOOP;
    END LOOP;

    -- a row a screen wide; the sentence, the averages and the batches in
    -- a NOTICE beside it
    FOR pr IN SELECT * FROM ranread_internal.ranread_paths_rows(es, servers, bs, effective_io_concurrency, pattern) LOOP
        RAISE NOTICE '%', format('ranread_paths, prefetch %s: %s (average %s ms on the device path at queue depth %s, %s ms on the server path; batches %s and %s)',
                                 pr.prefetch, pr.says, coalesce(pr.device_avg_ms::text, '(not measured)'), pr.device_queue_depth,
                                 coalesce(pr.server_avg_ms::text, '(not measured)'),
                                 array_to_string(pr.device_batches, ', '), array_to_string(pr.server_batches, ', '));
        prefetch := pr.prefetch;
        device_iops := pr.device_iops;
        server_iops := pr.server_iops;
        server_pct := pr.server_pct;
        device_p99_ms := pr.device_p99_ms;
        server_p99_ms := pr.server_p99_ms;
        server_cache_pct := pr.server_cache_pct;
        status := pr.status;
        RETURN NEXT;
    END LOOP;
END
$$;
-- 1.2, a PostgreSQL-shaped profile (docs/server-path.md, "What a busy server
-- does to its storage"): what a busy server's processes do to its storage at once,
-- in three phases of one batch each, so that the backends' read tail can
-- be read alone, while commits run, and while a checkpoint runs too:
--   backends      random 8 kB reads (the device path, or the server path)
--   wal writer    sequential 8 kB writes of one process, each made durable
--                 as wal_sync_method makes a commit durable (the commit path)
--   checkpointer  random 8 kB writes of one process, paced as a spread
--                 checkpoint paces them
-- The rates default to this server's own, from its statistics, and say
-- where they come from (ranread_profile_postgres_rates).

-- The rates of the profile where the call gives none, from this server:
--  - commits: its WAL flushes per second since its statistics were reset
--    (pg_stat_wal: wal_sync over the seconds since stats_reset);
--  - checkpoint writes: the buffers its checkpoints wrote per second of
--    their write phase (pg_stat_bgwriter: buffers_checkpoint over
--    checkpoint_write_time); before any checkpoint wrote, a checkpoint of
--    half of shared_buffers spread over checkpoint_completion_target x
--    checkpoint_timeout, as PostgreSQL spreads one.
-- At least 1 each; source says which.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_profile_postgres_rates(
    OUT commits_per_s integer, OUT checkpoint_pages_per_s integer, OUT source text)
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT greatest(1, round(w.syncs / greatest(w.secs, 1)))::integer,
           greatest(1, round(CASE WHEN c.written > 0 AND c.write_ms > 0 THEN c.written / (c.write_ms / 1000)
                                  ELSE c.half / c.spread END))::integer,
           format('commits: %s WAL flushes in the %s s since this server''s statistics were reset (pg_stat_wal); checkpoint writes: %s',
                  w.syncs, round(w.secs),
                  CASE WHEN c.written > 0 AND c.write_ms > 0
                       THEN format('%s buffers its checkpoints wrote in %s s of writing (pg_stat_bgwriter)', c.written, round(c.write_ms / 1000))
                       ELSE format('no checkpoint has written yet: half of shared_buffers (%s pages) spread over checkpoint_completion_target x checkpoint_timeout (%s s)',
                                   c.half, round(c.spread)) END)
      FROM (SELECT s.wal_sync::float8 AS syncs,
                   extract(epoch FROM now() - coalesce(s.stats_reset, pg_postmaster_start_time()))::float8 AS secs
              FROM pg_stat_wal s) w,
           (SELECT b.buffers_checkpoint::float8 AS written, b.checkpoint_write_time AS write_ms,
                   (SELECT setting::float8 FROM pg_settings WHERE name = 'shared_buffers') / 2 AS half,
                   (SELECT setting::float8 FROM pg_settings WHERE name = 'checkpoint_timeout')
                   * current_setting('checkpoint_completion_target')::float8 AS spread
              FROM pg_stat_bgwriter b) c
$$;

-- The profile's arguments, before any batch runs; the workload's are checked
-- by the spec reader (ranread_spec_check) on every phase.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_profile_postgres_check(
    readers integer, commits_per_s integer, checkpoint_pages_per_s integer, phases jsonb[])
RETURNS void
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    fn  constant text := 'ranread_profile_postgres';
    bad ranread_internal.ranread_check;
    p   jsonb;
BEGIN
    bad := ranread_internal.ranread_first_failed(ARRAY[
        (readers IS NULL OR readers < 1, 'invalid_parameter_value',
         format('readers of %s must be at least 1, not %s', fn, coalesce(readers::text, 'NULL')),
         'readers is how many backends read at once, such as 8.'),
        (commits_per_s < 1, 'invalid_parameter_value',
         format('commits_per_s of %s must be at least 1, not %s', fn, commits_per_s),
         'commits_per_s is how many commits the WAL writer makes durable per second; NULL takes this server''s own rate.'),
        (checkpoint_pages_per_s < 1, 'invalid_parameter_value',
         format('checkpoint_pages_per_s of %s must be at least 1, not %s', fn, checkpoint_pages_per_s),
         'checkpoint_pages_per_s is how many 8 kB pages the checkpointer writes per second; NULL takes this server''s own rate.')
        ]::ranread_internal.ranread_check[]);
    IF bad.failed THEN
        RAISE EXCEPTION USING ERRCODE = bad.errcode, MESSAGE = bad.message, HINT = bad.hint;
    END IF;
    FOREACH p IN ARRAY phases LOOP
        PERFORM ranread_internal.ranread_spec_check(p, true);
    END LOOP;
END
$$;

-- A busy PostgreSQL server's I/O, in three phases of `duration` each: the
-- backends reading alone, then with the WAL writer's commits, then with a
-- checkpoint too.  One row per group of each phase, with its figures; the
-- backends' rows say how their read tail (p99) compares with theirs alone.
-- The WAL's writes go to wal_target, the checkpoint's to checkpoint_target
-- (both the target by default: a target read on the server path needs
-- others, since a device-path write would leave stale pages for it).
CREATE OR REPLACE FUNCTION @extschema@.ranread_profile_postgres(
    target name DEFAULT 'ranread',
    duration interval DEFAULT '10s',
    readers                integer  DEFAULT 8,
    read_path              text     DEFAULT 'device',
    commits_per_s          integer  DEFAULT NULL,
    checkpoint_pages_per_s integer  DEFAULT NULL,
    wal_target             name     DEFAULT NULL,
    checkpoint_target      name     DEFAULT NULL,
    wal_sync               text     DEFAULT NULL)
    -- not rest: its three workloads are a busy server's, set by its own arguments (readers, read_path, commits_per_s, checkpoint_pages_per_s, wal_sync)
RETURNS TABLE (
    phase        integer,
    grp          text,
    processes    integer,
    iops         bigint,
    avg_ms       numeric,
    p99_ms       numeric,
    p999_ms      numeric,
    batch        bigint,
    p99_vs_alone numeric,
    status       text)
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    fn       constant text := 'ranread_profile_postgres';
    rates    record;
    commits  integer;
    ckpt     integer;
    backends jsonb;
    wal      jsonb;
    chk      jsonb;
    phases   jsonb[];
    names    constant text[] := ARRAY['backends', 'backends + commits', 'backends + commits + checkpoint'];
    batches  bigint[] := '{}';
    alone    float8;
    r        record;
BEGIN
    PERFORM ranread_internal.ranread_primary_only(fn);
    PERFORM ranread_internal.ranread_require(fn, 'duration', duration,
        'duration is each phase''s length, such as ''10s'' (the default).');
    PERFORM ranread_internal.ranread_require(fn, 'readers', readers,
        'readers is how many backends read, 1 or more (the default is 8).');
    PERFORM ranread_internal.ranread_require_read_committed(fn,
        'Its batches are recorded by their workers while it runs, which a repeatable read snapshot cannot see; run it outside an explicit transaction.');
    rates := ranread_internal.ranread_profile_postgres_rates();
    commits := coalesce(commits_per_s, rates.commits_per_s);
    ckpt := coalesce(checkpoint_pages_per_s, rates.checkpoint_pages_per_s);
    backends := jsonb_build_object('label', 'backends', 'processes', readers, 'path', read_path,
                                   'target', target);
    wal := jsonb_build_object('label', 'wal writer', 'processes', 1, 'write_pct', 100, 'pattern', 'sequential',
                              'sync', coalesce(wal_sync, CASE current_setting('wal_sync_method')
                                                         WHEN 'fsync_writethrough' THEN 'fsync'
                                                         ELSE current_setting('wal_sync_method') END),
                              'rate_iops', commits, 'target', coalesce(wal_target, target));
    chk := jsonb_build_object('label', 'checkpointer', 'processes', 1, 'write_pct', 100,
                              'rate_iops', ckpt, 'target', coalesce(checkpoint_target, target));
    phases := ARRAY[jsonb_build_array(backends), jsonb_build_array(backends, wal), jsonb_build_array(backends, wal, chk)];
    FOR i IN 1 .. 3 LOOP
        phases[i] := jsonb_build_object('caller', fn, 'duration', duration, 'groups', phases[i]);
    END LOOP;
    PERFORM ranread_internal.ranread_profile_postgres_check(readers, commits_per_s, checkpoint_pages_per_s, phases);
    RAISE NOTICE '%: % backends reading, commits at % per second, checkpoint writes at % pages per second (%)',
        fn, readers, commits, ckpt,
        concat_ws('; ', CASE WHEN commits_per_s IS NULL OR checkpoint_pages_per_s IS NULL THEN rates.source END,
                  CASE WHEN commits_per_s IS NOT NULL THEN 'commits as given' END,
                  CASE WHEN checkpoint_pages_per_s IS NOT NULL THEN 'checkpoint writes as given' END);

    FOR i IN 1 .. 3 LOOP
        batches := batches || ranread_internal.ranread_paths_step(phases[i]);
    END LOOP;

    SELECT g.read_p99_ms INTO alone FROM @extschema@.ranread_groups g WHERE g.batch = batches[1] AND g.label = 'backends';
    -- a row a screen wide per group of each phase (what runs in a phase is
    -- its groups); what each says in a NOTICE beside it
    FOR r IN
        SELECT n, g.label, g.processes, g.iops, g.avg_ms, g.p99_ms, g.p999_ms, g.batch, g.read_p99_ms,
               b.status, b.message
          FROM generate_subscripts(batches, 1) n
          JOIN @extschema@.ranread_groups g ON g.batch = batches[n]
          JOIN @extschema@.ranread_batches b ON b.batch = g.batch
         ORDER BY n, g.grp
    LOOP
        phase := r.n;
        grp := r.label;
        processes := r.processes;
        iops := ranread_internal.ranread_round(r.iops, 0)::bigint;
        avg_ms := ranread_internal.ranread_round(r.avg_ms, 3);
        p99_ms := ranread_internal.ranread_round(r.p99_ms, 3);
        p999_ms := ranread_internal.ranread_round(r.p999_ms, 3);
        batch := r.batch;
        p99_vs_alone := CASE WHEN r.label = 'backends' AND alone > 0
                             THEN ranread_internal.ranread_round(r.read_p99_ms / alone, 2) END;
        status := r.status;
        RAISE NOTICE '%', format('ranread_profile_postgres, phase %s (%s), %s: %s', r.n, names[r.n], r.label,
            CASE WHEN r.status <> 'completed' THEN format('the batch ended %s: %s', r.status, coalesce(r.message, 'no message'))
                 WHEN r.label = 'backends' AND r.n = 1
                 THEN format('the backends'' read p99 alone is %s ms', coalesce(round(r.read_p99_ms::numeric, 3)::text, '(not measured)'))
                 WHEN r.label = 'backends' AND alone > 0
                 THEN format('the backends'' read p99 is %sx what it is alone (%s ms against %s ms) while %s run',
                             round((r.read_p99_ms / alone)::numeric, 2), round(r.read_p99_ms::numeric, 3),
                             round(alone::numeric, 3), CASE r.n WHEN 2 THEN 'commits' ELSE 'commits and a checkpoint' END)
                 WHEN r.label = 'wal writer'
                 THEN format('%s commits per second made durable (%s asked), %s ms each on average',
                             round(r.iops::numeric), commits, coalesce(round(r.avg_ms::numeric, 3)::text, '(not measured)'))
                 WHEN r.label = 'checkpointer'
                 THEN format('%s pages per second written (%s asked)', round(r.iops::numeric), ckpt)
                 ELSE 'no figures' END);
        RETURN NEXT;
    END LOOP;
END
$$;
-- Charts: every chart of ranread is a jsonb spec (docs/charts-and-reports.md,
-- "Charts from SQL") drawn by the one renderer (C, src/report/svg.c), so that
-- they all have the same look and rules.  The spec's keys are in
-- docs/charts-and-reports.md and atop src/report/svg.c.

-- The renderer for plpgsql functions: the SVG of a spec.  Pure: the SVG
-- depends on the spec alone.
CREATE OR REPLACE FUNCTION @extschema@.ranread_svg(spec jsonb)
RETURNS text
AS 'MODULE_PATHNAME', 'ranread_svg'
LANGUAGE C CALLED ON NULL INPUT IMMUTABLE PARALLEL SAFE;

-- SVG: IOPS, average and p99 latency against processes for a sweep (the
-- latest when NULL; every completed batch when there has been no sweep),
-- the bound, the sweep's verdict and a table of its steps.  Its spec is a
-- query of the library's (src/report/chart_sweep.sql) that reads only what
-- the 1.0 tables hold: a database still at 1.0 binds ranread_chart to the
-- same C function and gets the same chart.
CREATE OR REPLACE FUNCTION @extschema@.ranread_chart(sweep bigint DEFAULT NULL)
RETURNS text
AS 'MODULE_PATHNAME', 'ranread_chart'
LANGUAGE C CALLED ON NULL INPUT STABLE
SET search_path = pg_catalog, pg_temp;

-- ranread_chart without its table of the steps: the HTML report's chart
-- of a sweep, whose steps the report lists in a table of its own.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_chart_no_table(sweep bigint)
RETURNS text
AS 'MODULE_PATHNAME', 'ranread_chart_no_table'
LANGUAGE C CALLED ON NULL INPUT STABLE
SET search_path = pg_catalog, pg_temp;

-- SVG: IOPS, average and maximum latency per second of a batch (the latest
-- batch with per-second intervals when NULL); its spec is
-- src/report/chart_timeline.sql, as for ranread_chart.
CREATE OR REPLACE FUNCTION @extschema@.ranread_timeline(batch bigint DEFAULT NULL)
RETURNS text
AS 'MODULE_PATHNAME', 'ranread_timeline'
LANGUAGE C CALLED ON NULL INPUT STABLE
SET search_path = pg_catalog, pg_temp;
-- 1.1, the latency heatmap (docs/charts-and-reports.md, "Percentiles over
-- time"): one batch's I/Os by second (columns) and latency (rows, one per
-- power of two of a millisecond, the slowest on top), colour = I/Os, from the
-- seconds' merged histograms (ranread_intervals.histogram), drawn by the one
-- renderer as a heat table (ranread_svg, kind "heat").  The renderer takes at
-- most 40 columns: a longer batch's seconds are put together in equal runs (a
-- column's label is its first and last second).  New in 1.1, so the upgrade
-- script includes this file whole (1.2: a batch whose histograms hold no I/O
-- is a clean error, and no report section).

-- The cells: one row per column, latency band and I/Os (0 where none),
-- from seconds with a histogram; lo_ms, hi_ms bound the band.  Every second
-- of the batch has its column: one without a histogram has no I/O in it.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_latency_heat_cells(batch bigint,
    OUT col integer, OUT first_second integer, OUT last_second integer,
    OUT band integer, OUT lo_ms float8, OUT hi_ms float8, OUT ios bigint)
RETURNS SETOF record
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    WITH s AS (
        -- every second of the batch: one without a histogram (in any group)
        -- is still a column, empty (the spec's note names it)
        SELECT i.second, CASE WHEN bool_and(i.histogram IS NOT NULL)
                              THEN @extschema@.ranread_hist_merge(i.histogram) END AS h
          FROM @extschema@.ranread_intervals i
         WHERE i.batch = $1
         GROUP BY i.second
    ), w AS (
        SELECT greatest(1, ceil((max(s.second) + 1) / 40.0))::integer AS width FROM s
    ), b AS (
        -- a bucket's band: the power of two of a ms its midpoint lies in
        -- (no midpoint is a power of two: float8 is exact enough)
        SELECT s.second / w.width AS col, floor(ln((k.low_ms + k.high_ms) / 2) / ln(2.0::float8))::integer AS band,
               sum(k.count) AS count
          FROM s, w, LATERAL @extschema@.ranread_hist_buckets(s.h) k
         WHERE s.h IS NOT NULL
         GROUP BY 1, 2
    ), bands AS (
        SELECT generate_series(min(b.band), max(b.band)) AS band FROM b
    ), cols AS (
        SELECT c AS col, c * w.width AS first_second, least((c + 1) * w.width, m.n) - 1 AS last_second
          FROM w, (SELECT max(s.second) + 1 AS n FROM s) m, generate_series(0, (m.n - 1) / w.width) c
    )
    SELECT c.col, c.first_second, c.last_second, d.band, power(2.0, d.band)::float8, power(2.0, d.band + 1)::float8,
           coalesce(b.count, 0)::bigint
      FROM cols c CROSS JOIN bands d
      LEFT JOIN b ON b.col = c.col AND b.band = d.band
     ORDER BY c.col, d.band
$$;

-- The spec of the heatmap of batch (the latest one whose seconds have
-- histograms when NULL)
CREATE OR REPLACE FUNCTION ranread_internal.ranread_latency_heat_spec(batch bigint)
RETURNS jsonb
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    id  bigint := batch;
    b   record;
    g   record;
BEGIN
    IF id IS NULL THEN
        id := (SELECT max(i.batch) FROM @extschema@.ranread_intervals i WHERE i.histogram IS NOT NULL);
        IF id IS NULL THEN
            RAISE EXCEPTION 'no batch has per-second latency histograms yet'
                USING ERRCODE = 'no_data_found',
                      HINT = 'Run a timed batch first (ranread.timing = on), e.g. SELECT * FROM ranread_run(1, duration => ''10s'');';
        END IF;
    END IF;
    SELECT x.batch, x.target, x.processes, x.queue_depth, x.block_size, x.write_pct, x.run_at,
           -- the seconds without a histogram (in some group), as runs "5-7, 12"
           (SELECT string_agg(CASE WHEN r.a = r.b THEN r.a::text ELSE r.a || '-' || r.b END, ', ' ORDER BY r.a)
                   FILTER (WHERE r.k <= 8)
                   || CASE WHEN count(*) > 8 THEN format(' and %s more', count(*) - 8) ELSE '' END
              FROM (SELECT min(gs.second) AS a, max(gs.second) AS b, row_number() OVER (ORDER BY min(gs.second)) AS k
                      FROM (SELECT i.second, i.second - row_number() OVER (ORDER BY i.second) AS run
                              FROM @extschema@.ranread_intervals i WHERE i.batch = id
                             GROUP BY i.second HAVING NOT bool_and(i.histogram IS NOT NULL)) gs
                     GROUP BY gs.run) r) AS gaps,
           (SELECT count(*) FROM (SELECT FROM @extschema@.ranread_intervals i WHERE i.batch = id
                                   GROUP BY i.second HAVING NOT bool_and(i.histogram IS NOT NULL)) gs) AS ngaps INTO b
      FROM @extschema@.ranread_batches x WHERE x.batch = id;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'batch % does not exist', id
            USING ERRCODE = 'undefined_object', HINT = 'SELECT batch FROM ranread_summary lists the batches.';
    END IF;
    IF NOT EXISTS (SELECT FROM @extschema@.ranread_intervals i WHERE i.batch = id AND i.histogram IS NOT NULL) THEN
        RAISE EXCEPTION 'batch % has no per-second latency histograms', id
            USING ERRCODE = 'no_data_found',
                  HINT = 'Its seconds were not timed (ranread.timing = off) or it was recorded before 1.1.';
    END IF;
    WITH x AS MATERIALIZED (SELECT * FROM ranread_internal.ranread_latency_heat_cells(id))
    SELECT (SELECT jsonb_agg(to_jsonb(CASE WHEN c.first_second = c.last_second THEN c.first_second::text
                                           ELSE format('%s-%s', c.first_second, c.last_second) END) ORDER BY c.col)
              FROM (SELECT DISTINCT x.col, x.first_second, x.last_second FROM x) c) AS cols,
           (SELECT jsonb_agg(to_jsonb(format('%s-%s ms', trim_scale(round(r.lo_ms::numeric, 4)),
                                             trim_scale(round(r.hi_ms::numeric, 4)))) ORDER BY r.band DESC)
              FROM (SELECT DISTINCT x.band, x.lo_ms, x.hi_ms FROM x) r) AS rows,
           (SELECT jsonb_agg(r.vals ORDER BY r.band DESC)
              FROM (SELECT x.band, jsonb_agg(CASE WHEN x.ios > 0 THEN to_jsonb(x.ios) ELSE 'null'::jsonb END ORDER BY x.col) AS vals
                      FROM x GROUP BY x.band) r) AS vals
      INTO g;
    IF g.rows IS NULL THEN
        -- histograms that hold no I/O (every second stalled): no band to draw
        RAISE EXCEPTION 'batch % has no I/O in its per-second latency histograms', id
            USING ERRCODE = 'no_data_found',
                  HINT = 'Its seconds completed no I/O; ranread_timeline(batch) shows its IOPS per second.';
    END IF;
    RETURN jsonb_build_object(
        'kind', 'heat',
        'title', format('Latency by second, batch %s', id),
        'subtitle', format('%s: %s, QD %s, %s blocks, %s%% writes; run at %s',
                           b.target, ranread_internal.ranread_count_words(b.processes, 'process'), coalesce(b.queue_depth::text, 'mix'),
                           coalesce(CASE WHEN b.block_size % 1048576 = 0 THEN (b.block_size / 1048576) || ' MiB'
                                         WHEN b.block_size % 1024 = 0 THEN (b.block_size / 1024) || ' KiB'
                                         ELSE b.block_size || ' B' END, 'mix'),
                           coalesce(b.write_pct::text, 'mix'), to_char(b.run_at, 'YYYY-MM-DD HH24:MI:SS')),
        'x', jsonb_build_object('label', 'second of the measured run'),
        'y', jsonb_build_object('label', 'latency'),
        'heat', jsonb_build_object('rows', g.rows, 'columns', g.cols, 'values', g.vals,
                                   'metric', 'I/Os', 'log', 'auto', 'format', 'count'),
        'notes', CASE WHEN b.ngaps > 0 THEN jsonb_build_array(jsonb_build_object('style', 'bad', 'text',
                     format('%s %s no latency histogram (%s): %s empty. A second has none when the leader woke late, '
                            'the 16 MB pool was full, or timing was off.',
                            b.ngaps, CASE WHEN b.ngaps = 1 THEN 'second has' ELSE 'seconds have' END,
                            CASE WHEN b.ngaps = 1 THEN 'second ' ELSE 'seconds ' END || b.gaps,
                            CASE WHEN b.ngaps = 1 THEN 'its column is' ELSE 'their columns are' END)))
                 ELSE '[]' END);
END
$$;

-- SVG: the latency heatmap of a batch (the latest with per-second
-- histograms when NULL)
CREATE OR REPLACE FUNCTION @extschema@.ranread_latency_heatmap(batch bigint DEFAULT NULL)
RETURNS text
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$ SELECT @extschema@.ranread_svg(ranread_internal.ranread_latency_heat_spec($1)) $$;
COMMENT ON FUNCTION @extschema@.ranread_latency_heatmap(bigint) IS
    'SVG heat table of one batch: I/Os by second and latency band, from the seconds'' merged histograms; the latest batch by default';

-- The report's section: the latest batch's heatmap, when one has histograms
-- (PL/pgSQL: ranread_html_svg is made later, in 44_report.sql)
CREATE OR REPLACE FUNCTION ranread_internal.ranread_report_heatmap()
RETURNS text
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    -- the latest batch whose histograms hold an I/O (none holds one: no section)
    id bigint := (SELECT max(i.batch) FROM @extschema@.ranread_intervals i
                   WHERE i.histogram IS NOT NULL AND @extschema@.ranread_hist_count(i.histogram) > 0);
BEGIN
    IF id IS NULL THEN
        RETURN '';
    END IF;
    RETURN format('<section id="latency-heatmap"><h2>Latency by second, batch %s</h2>', id)
           || ranread_internal.ranread_html_svg(@extschema@.ranread_latency_heatmap(id)) || '</section>';
END
$$;
-- 1.1, studies: a grid of runs in one call (ranread_study), the rules that
-- lay the grid out and end a row early (pure functions, tested on known
-- numbers), and the executor that runs a list of points as batches of one
-- study, which the profiles (42_profile.sql) use too.  Its table, sequence
-- and type are in 39_study_tables.sql, so that an upgrade script may
-- include this file whole.
--
-- What survives what: every point is a batch, recorded by its own worker
-- with the study's id and the point's coordinates (ranread_batches.study and
-- .point), so a study that is stopped or cancelled keeps every finished
-- point.  The row of ranread_studies (the definition, the exact call, why it
-- ended) is written by the caller when the study returns, in its
-- transaction: a cancelled study has none, and everything that reads a
-- study (41_study_views.sql) works from the batches alone.

-- The checks of a matrix mode and the loads it needs, for
-- ranread_study_matrix and ranread_study_matrix_count.  Pure.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_study_matrix_check(
    matrix     text,
    small      integer[],
    large      integer[],
    num_small  integer DEFAULT NULL,
    num_large  integer DEFAULT NULL)
RETURNS void
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    need  text;
BEGIN
    IF matrix IS NULL OR matrix NOT IN ('basic', 'detailed', 'row', 'col', 'point', 'max') THEN
        RAISE EXCEPTION USING
            ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('invalid matrix %s for ranread_study', coalesce(quote_literal(matrix), 'NULL')),
            HINT = 'matrix is one of ORION''s modes: basic, detailed, row, col, point or max.';
    END IF;

    need := CASE
        WHEN matrix = 'basic' AND small IS NULL AND large IS NULL THEN 'small or large loads'
        WHEN matrix IN ('detailed', 'max') AND (small IS NULL OR large IS NULL) THEN 'both small and large loads'
        WHEN matrix = 'row' AND small IS NULL THEN 'small loads'
        WHEN matrix = 'col' AND large IS NULL THEN 'large loads'
        WHEN matrix = 'point' AND (num_small IS NULL OR num_large IS NULL) THEN 'num_small and num_large'
    END;
    IF need IS NOT NULL THEN
        RAISE EXCEPTION USING
            ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('matrix %s of ranread_study needs %s', matrix, need),
            HINT = 'A matrix is a mix of small random I/O (small => ''{1,2,4}'') and large I/O (large => ''{0,1,2}''): give the loads the mode varies.';
    END IF;
    IF (num_small IS NOT NULL AND matrix NOT IN ('col', 'point', 'max'))
       OR (num_large IS NOT NULL AND matrix NOT IN ('row', 'point', 'max')) THEN
        RAISE EXCEPTION USING
            ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('%s does not apply to matrix %s of ranread_study',
                             CASE WHEN num_small IS NOT NULL AND matrix NOT IN ('col', 'point', 'max')
                                  THEN 'num_small' ELSE 'num_large' END, matrix),
            HINT = 'num_small fixes the small load of matrix col, point and max; num_large the large load of row, point and max.';
    END IF;
END
$$;

-- The points a matrix mode selects from the small and large loads, as ORION
-- does: columns are small loads, rows large loads, ordered row by row.
--   basic     the small loads alone (large 0) and the large loads alone (small 0)
--   detailed  every combination
--   row       the small loads at large = num_large (0 unless given)
--   col       the large loads at small = num_small (0 unless given)
--   point     the one point (num_small, num_large)
--   max       the small loads at the largest large load and the large loads
--             at the largest small load (num_large, num_small replace them)
-- A point with no load at all (0, 0) is never selected.  Pure; errors name
-- the mode and what it lacks.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_study_matrix(
    matrix     text,
    small      integer[],
    large      integer[],
    num_small  integer DEFAULT NULL,
    num_large  integer DEFAULT NULL)
RETURNS TABLE (small_load integer, large_load integer)
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    s_max integer;
    l_max integer;
BEGIN
    PERFORM ranread_internal.ranread_study_matrix_check(matrix, small, large, num_small, num_large);

    s_max := coalesce(num_small, (SELECT max(v) FROM unnest(small) v));
    l_max := coalesce(num_large, (SELECT max(v) FROM unnest(large) v));

    RETURN QUERY
    SELECT DISTINCT ON (p.l, p.s) p.s, p.l
      FROM (SELECT s.v AS s, 0 AS l FROM unnest(small) s(v) WHERE matrix = 'basic'
            UNION ALL
            SELECT 0, l.v FROM unnest(large) l(v) WHERE matrix = 'basic'
            UNION ALL
            SELECT s.v, l.v FROM unnest(small) s(v), unnest(large) l(v) WHERE matrix = 'detailed'
            UNION ALL
            SELECT s.v, coalesce(num_large, 0) FROM unnest(small) s(v) WHERE matrix = 'row'
            UNION ALL
            SELECT coalesce(num_small, 0), l.v FROM unnest(large) l(v) WHERE matrix = 'col'
            UNION ALL
            SELECT num_small, num_large WHERE matrix = 'point'
            UNION ALL
            SELECT s.v, l_max FROM unnest(small) s(v) WHERE matrix = 'max'
            UNION ALL
            SELECT s_max, l.v FROM unnest(large) l(v) WHERE matrix = 'max') p
     WHERE p.s > 0 OR p.l > 0
     ORDER BY p.l, p.s;
END
$$;

-- How many points ranread_study_matrix selects, worked out from the sizes
-- of the loads rather than by listing them, so that a study can refuse a
-- grid past its limit before it builds any of it.  The loads hold no
-- repeats (ranread_study checks them); (0, 0) is never a point.  Pure.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_study_matrix_count(
    matrix     text,
    small      integer[],
    large      integer[],
    num_small  integer DEFAULT NULL,
    num_large  integer DEFAULT NULL)
RETURNS bigint
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    ns     bigint := coalesce(cardinality(small), 0);
    nl     bigint := coalesce(cardinality(large), 0);
    zs     boolean := coalesce(0 = ANY (small), false);
    zl     boolean := coalesce(0 = ANY (large), false);
    s_max  integer;
    l_max  integer;
BEGIN
    PERFORM ranread_internal.ranread_study_matrix_check(matrix, small, large, num_small, num_large);
    CASE matrix
        WHEN 'basic' THEN
            RETURN ns - zs::integer + nl - zl::integer;
        WHEN 'detailed' THEN
            RETURN ns * nl - (zs AND zl)::integer;
        WHEN 'row' THEN
            RETURN ns - (zs AND coalesce(num_large, 0) = 0)::integer;
        WHEN 'col' THEN
            RETURN nl - (zl AND coalesce(num_small, 0) = 0)::integer;
        WHEN 'point' THEN
            RETURN 1 - (num_small = 0 AND num_large = 0)::integer;
        ELSE
            -- max: (s, l_max) for s in small, (s_max, l) for l in large
            s_max := coalesce(num_small, (SELECT max(v) FROM unnest(small) v));
            l_max := coalesce(num_large, (SELECT max(v) FROM unnest(large) v));
            RETURN ns + nl
                   - (s_max = ANY (small) AND l_max = ANY (large))::integer
                   - ((zs AND l_max = 0) OR (s_max = 0 AND zl))::integer;
    END CASE;
END
$$;

-- The points of a grid: the product of the dimensions' values, outermost
-- first in the order region, pattern, distribution, block_size, write_pct,
-- queue_depth, then the load (processes, or the matrix's large and small
-- loads), innermost.  dims maps a dimension to its array of values; the
-- matrix pairs come from ranread_study_matrix.  Each point is the object of
-- its coordinates in every dimension given.  Pure.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_study_grid_points(
    dims       jsonb,
    matrix     text    DEFAULT NULL,
    num_small  integer DEFAULT NULL,
    num_large  integer DEFAULT NULL)
RETURNS TABLE (n integer, point jsonb)
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    outer_dims constant text[] := ARRAY['region', 'pattern', 'distribution', 'block_size',
                                        'write_pct', 'queue_depth', 'processes'];
    pts   jsonb[] := ARRAY['{}'::jsonb];
    nxt   jsonb[];
    d     text;
    pair  record;
    p     jsonb;
    v     jsonb;
BEGIN
    FOREACH d IN ARRAY outer_dims LOOP
        CONTINUE WHEN dims -> d IS NULL OR jsonb_typeof(dims -> d) = 'null';
        nxt := '{}';
        FOREACH p IN ARRAY pts LOOP
            FOR v IN SELECT e FROM jsonb_array_elements(dims -> d) WITH ORDINALITY x(e, i) ORDER BY i LOOP
                nxt := nxt || (p || jsonb_build_object(d, v));
            END LOOP;
        END LOOP;
        pts := nxt;
    END LOOP;

    IF dims ? 'small' OR dims ? 'large' OR matrix IS NOT NULL THEN
        nxt := '{}';
        FOREACH p IN ARRAY pts LOOP
            FOR pair IN
                SELECT * FROM ranread_internal.ranread_study_matrix(
                    coalesce(matrix, 'basic'),
                    CASE WHEN jsonb_typeof(dims -> 'small') = 'array'
                         THEN ARRAY(SELECT e::integer FROM jsonb_array_elements_text(dims -> 'small') e) END,
                    CASE WHEN jsonb_typeof(dims -> 'large') = 'array'
                         THEN ARRAY(SELECT e::integer FROM jsonb_array_elements_text(dims -> 'large') e) END,
                    num_small, num_large)
            LOOP
                nxt := nxt || (p || jsonb_build_object('large', pair.large_load, 'small', pair.small_load));
            END LOOP;
        END LOOP;
        pts := nxt;
    END IF;

    RETURN QUERY SELECT i::integer, e FROM unnest(pts) WITH ORDINALITY x(e, i);
END
$$;

-- The early end of a row: the average latencies of a row's points so far,
-- in order; true when the last two are both above the bound (the sweep's
-- latency rule).  NULL latencies (not measured) never end a row.  Pure.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_study_row_ended(avg_ms float8[], max_avg_ms float8)
RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT coalesce(cardinality(avg_ms) >= 2
                    AND avg_ms[cardinality(avg_ms)] > max_avg_ms
                    AND avg_ms[cardinality(avg_ms) - 1] > max_avg_ms, false)
$$;

-- How a value of a dimension reads in a legend or a row label: 10% writes,
-- 8 KiB, QD 32, 16 processes, region 0-40%, small 4 ...  Pure.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_study_label(dim text, value jsonb)
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE
        WHEN value IS NULL OR jsonb_typeof(value) = 'null' THEN dim || ' n/a'
        WHEN dim = 'write_pct' THEN (value #>> '{}') || '% writes'
        WHEN dim = 'block_size' AND jsonb_typeof(value) = 'number' THEN
            CASE WHEN (value #>> '{}')::bigint % 1048576 = 0 THEN ((value #>> '{}')::bigint / 1048576) || ' MiB'
                 WHEN (value #>> '{}')::bigint % 1024 = 0 THEN ((value #>> '{}')::bigint / 1024) || ' KiB'
                 ELSE (value #>> '{}') || ' B' END
        WHEN dim = 'queue_depth' THEN 'QD ' || (value #>> '{}')
        WHEN dim = 'processes' THEN (value #>> '{}') || CASE WHEN value #>> '{}' = '1' THEN ' process' ELSE ' processes' END
        WHEN dim = 'region' THEN 'region ' || (value #>> '{}') || '%'
        WHEN dim IN ('small', 'large') THEN dim || ' ' || (value #>> '{}')
        ELSE value #>> '{}'
    END
$$;

-- The axes of a study from its points (their coordinates, as recorded in
-- ranread_batches.point): the dimension along the columns and those that
-- make the rows.  Columns: the one asked for, else the small load of a
-- matrix (as ORION's grids), else the first that varies of small,
-- processes, queue_depth, block_size, write_pct, region, pattern,
-- distribution, mode, test.  Rows: every other dimension that varies, and a
-- matrix's large load always, outermost first.  'n' (the point's number) and
-- 'pass' (a profile's repeated passes) are never axes.  Pure.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_study_axes(
    points   jsonb[],
    columns  text DEFAULT NULL,
    fn       text DEFAULT 'ranread_study_grid',
    OUT column_dim text,
    OUT row_dims   text[])
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    col_order constant text[] := ARRAY['small', 'processes', 'queue_depth', 'block_size', 'write_pct',
                                       'region', 'pattern', 'distribution', 'mode', 'test'];
    row_order constant text[] := ARRAY['large', 'test', 'region', 'pattern', 'distribution', 'block_size',
                                       'write_pct', 'queue_depth', 'processes', 'mode', 'small'];
    dims  text[];
BEGIN
    SELECT array_agg(k.key ORDER BY coalesce(array_position(col_order, k.key), 99), k.key)
      INTO dims
      FROM (SELECT DISTINCT e.key FROM unnest(points) p, jsonb_each(p) e
             WHERE e.key NOT IN ('n', 'pass')) k;

    IF columns IS NOT NULL THEN
        IF NOT (columns = ANY (coalesce(dims, '{}'))) THEN
            RAISE EXCEPTION USING
                ERRCODE = 'invalid_parameter_value',
                MESSAGE = format('unknown dimension "%s" for columns of %s', columns, fn),
                HINT = CASE WHEN dims IS NULL THEN 'The study has no points.'
                            ELSE format('The dimensions of this study are %s.', array_to_string(dims, ', ')) END;
        END IF;
        column_dim := columns;
    ELSIF 'small' = ANY (dims) THEN
        column_dim := 'small';
    ELSE
        SELECT d INTO column_dim
          FROM unnest(dims) WITH ORDINALITY x(d, i)
         WHERE (SELECT count(DISTINCT p -> d) FROM unnest(points) p) > 1
         ORDER BY i LIMIT 1;
        column_dim := coalesce(column_dim, dims[1]);
    END IF;

    SELECT coalesce(array_agg(d ORDER BY coalesce(array_position(row_order, d), 99), d), '{}')
      INTO row_dims
      FROM unnest(dims) d
     WHERE d IS DISTINCT FROM column_dim
       AND ((SELECT count(DISTINCT p -> d) FROM unnest(points) p) > 1
            OR (d = 'large' AND 'small' = ANY (dims)));
END
$$;

-- A point's row label: its values in the row dimensions, as legends say
-- them ('all points' when nothing but the columns varies).  Pure.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_study_row_label(point jsonb, row_dims text[])
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT coalesce(string_agg(ranread_internal.ranread_study_label(d, point -> d), ', ' ORDER BY i),
                    'all points')
      FROM unnest(row_dims) WITH ORDINALITY x(d, i)
$$;

-- A value of a text dimension of a study in one spelling, so that values
-- that differ only in spelling make one point: a region as START-END with
-- the numbers written plainly ('0-100.0' is '0-100'), a pattern in lower
-- case, a distribution in lower case with its numbers written plainly
-- ('zipf:1.20' is 'zipf:1.2', 'UNIFORM' is 'uniform').  A value none of
-- these spellings fits is returned as it is, for the checks to refuse.
-- Pure.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_study_normalize(dim text, value text)
RETURNS text
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    num constant text := '([+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]{1,3})?)';
    m   text[];
    v   text := lower(value);
BEGIN
    IF value IS NULL THEN
        RETURN NULL;
    END IF;
    IF dim = 'region' THEN
        m := regexp_match(value, '^\s*([0-9]+(?:\.[0-9]+)?)\s*-\s*([0-9]+(?:\.[0-9]+)?)\s*%?\s*$');
        IF m IS NOT NULL THEN
            RETURN trim_scale(m[1]::numeric)::text || '-' || trim_scale(m[2]::numeric)::text;
        END IF;
    ELSIF dim = 'pattern' THEN
        IF v IN ('random', 'sequential') THEN
            RETURN v;
        END IF;
    ELSIF dim = 'distribution' THEN
        IF v = 'uniform' THEN
            RETURN v;
        END IF;
        m := regexp_match(v, '^(zipf|pareto):' || num || '$');
        IF m IS NOT NULL THEN
            RETURN m[1] || ':' || trim_scale(m[2]::numeric)::text;
        END IF;
        m := regexp_match(v, '^hotset:' || num || '/' || num || '$');
        IF m IS NOT NULL THEN
            RETURN 'hotset:' || trim_scale(m[1]::numeric)::text || '/' || trim_scale(m[2]::numeric)::text;
        END IF;
    END IF;
    RETURN value;
END
$$;

-- A value as a study's errors print it: whole up to 64 characters, else
-- its first 64 and "...", so that an error about a huge input says which
-- input without repeating it (src/workload/params.c bounds the parser's alike).
CREATE OR REPLACE FUNCTION ranread_internal.ranread_study_shown(value text)
RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN length(value) <= 64 THEN value ELSE left(value, 64) || '...' END
$$;

-- The values of an integer dimension of ranread_study, checked: not empty,
-- no NULL, no repeats, each within lo..hi.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_study_check_ints(
    arg text, vals integer[], lo integer, hi integer, what text, fn text DEFAULT 'ranread_study')
RETURNS void
LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    bad integer;
BEGIN
    IF vals IS NULL THEN
        RETURN;
    END IF;
    IF cardinality(vals) = 0 THEN
        RAISE EXCEPTION USING
            ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('invalid %s {} for %s: an empty array', arg, fn),
            HINT = format('%s is an array of %s, such as ''{1,2,4}''; leave it out to keep the default.', arg, what);
    END IF;
    IF array_position(vals, NULL) IS NOT NULL THEN
        RAISE EXCEPTION USING
            ERRCODE = 'null_value_not_allowed',
            MESSAGE = format('%s of %s must not contain NULL: element %s is', arg, fn, array_position(vals, NULL)),
            HINT = format('%s is an array of %s, such as ''{1,2,4}''.', arg, what);
    END IF;
    SELECT v INTO bad FROM unnest(vals) v WHERE v < lo OR v > hi LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION USING
            ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('invalid %s %s for %s', arg, bad, fn),
            HINT = format('Each of %s is %s: %s to %s.', arg, what, lo, hi);
    END IF;
    SELECT v INTO bad FROM unnest(vals) v GROUP BY v HAVING count(*) > 1 LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION USING
            ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('%s of %s repeats %s', arg, fn, bad),
            HINT = 'Give each value once: a repeated value would run the same point twice.';
    END IF;
END
$$;

-- The options of one group, checked as a batch of that group checks them
-- (the target, the block size and its alignment, pattern, region,
-- distribution), before any runs; errors name fn.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_study_check_group(g jsonb, fn text)
RETURNS void
LANGUAGE sql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT ranread_internal.ranread_spec_check(jsonb_build_object('caller', fn,
               'groups', jsonb_build_array(jsonb_build_object('processes', 1) || g)), true)
$$;

-- The groups of a point's batch: one group with the point's options (its
-- coordinates that are options, its region as region_start and
-- region_end), or for a matrix point ORION's two, "small" (that many
-- processes of small_size random I/O at queue depth 1) and "large" (that
-- many streams of large_size I/O, random or sequential), a load of 0
-- leaving its group out.  What a point does not name takes its default
-- (ranread_options), one process without a processes dimension.  Pure.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_study_groups(
    point          jsonb,
    target         name,
    small_size     integer DEFAULT 8192,
    large_size     integer DEFAULT 1048576,
    large_pattern  text    DEFAULT 'random')
RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    WITH g AS (
        SELECT ranread_internal.ranread_defaults('group') || jsonb_build_object('processes', 1, 'target', target)
               || coalesce((SELECT jsonb_object_agg(e.key, e.value)
                              FROM jsonb_each(point) e
                              JOIN @extschema@.ranread_options() o ON o.name = e.key
                             WHERE o.level <> 'batch' AND NOT o.internal AND e.key <> 'target'), '{}')
               || CASE WHEN point ? 'region' THEN jsonb_build_object(
                      'region_start', split_part(replace(point ->> 'region', '%', ''), '-', 1)::float8,
                      'region_end', split_part(replace(point ->> 'region', '%', ''), '-', 2)::float8)
                  ELSE '{}' END AS base)
    SELECT CASE WHEN point ? 'small' OR point ? 'large' THEN
               coalesce((SELECT jsonb_agg(x ORDER BY k)
                           FROM (SELECT 1 AS k, g.base || jsonb_build_object('label', 'small',
                                        'processes', (point ->> 'small')::integer, 'block_size', small_size,
                                        'queue_depth', 1, 'pattern', 'random') AS x
                                  WHERE coalesce((point ->> 'small')::integer, 0) > 0
                                 UNION ALL
                                 SELECT 2, g.base || jsonb_build_object('label', 'large',
                                        'processes', (point ->> 'large')::integer, 'block_size', large_size,
                                        'queue_depth', 1, 'pattern', large_pattern)
                                  WHERE coalesce((point ->> 'large')::integer, 0) > 0) s), '[]')
           ELSE jsonb_build_array(g.base) END
      FROM g
$$;

-- One point of a study run: its batch (the study's workload, the point's
-- groups and coordinates, its own duration and warmup where it has them),
-- its row, and a NOTICE of its figures and the time left (the I/O of the
-- points to come, and for each the time between points measured so far).
CREATE OR REPLACE FUNCTION ranread_internal.ranread_study_point(
    res @extschema@.ranread_study_result, p jsonb, spec jsonb, fn text,
    total integer, planned float8[], started timestamptz, measured float8, n_done integer,
    column_dim text)
RETURNS @extschema@.ranread_study_result
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    r        ranread_internal.ranread_step_result;
    overhead float8;
    left_s   float8;
BEGIN
    -- where the study is, for ranread_progress and the point's progress
    -- line: the points after this one, as the NOTICE below counts them
    overhead := CASE WHEN n_done > 1
                     THEN greatest(extract(epoch FROM clock_timestamp() - started)::float8
                                   - (measured - planned[res.n]), 0) / (n_done - 1)
                     ELSE 0 END;
    PERFORM ranread_internal.ranread_progress_call('study', res.study, 'starting point', res.n, total,
        coalesce((SELECT sum(v) FROM unnest(planned[res.n + 1:]) v), 0) + overhead * (total - res.n));

    -- each group of the point, with the group options every point shares
    -- (the study's own scalar arguments, such as verify: never one of its
    -- dimensions, which are arrays)
    SELECT * INTO r
      FROM @extschema@.ranread_run_step(ranread_internal.ranread_spec(jsonb_build_object(
               'study', res.study, 'point', res.point,
               'groups', (SELECT jsonb_agg(g || COALESCE(spec -> 'groups' -> 0, '{}') ORDER BY k)
                            FROM jsonb_array_elements(p -> 'groups') WITH ORDINALITY x(g, k)),
               'duration', p -> 'duration', 'warmup', p -> 'warmup'), spec)) g
     WHERE g.grp = 0;
    res.batch := r.batch;
    res.iops := r.iops;
    res.mbps := r.mbps;
    res.avg_ms := r.avg_ms;
    res.p99_ms := r.p99_ms;
    res.max_ms := r.max_ms;
    res.status := r.status;

    overhead := greatest(extract(epoch FROM clock_timestamp() - started)::float8 - measured, 0) / n_done;
    left_s := coalesce((SELECT sum(v) FROM unnest(planned[res.n + 1:]) v), 0) + overhead * (total - res.n);
    RAISE NOTICE '% % point % of % (%): % IOPS, % MiB/s, avg % ms, p99 % ms%; % left, done at about %',
        fn, res.study, res.n, total,
        CASE WHEN res.row_label = 'all points' THEN '' ELSE res.row_label || ', ' END
            || ranread_internal.ranread_study_label(column_dim, p -> 'point' -> column_dim),
        coalesce(round(r.iops::numeric)::text, 'n/a'),
        coalesce(round(r.mbps::numeric, 1)::text, 'n/a'),
        coalesce(round(r.avg_ms::numeric, 3)::text, 'n/a'),
        coalesce(round(r.p99_ms::numeric, 3)::text, 'n/a'),
        CASE WHEN r.status <> 'completed' THEN ', ' || r.status ELSE '' END,
        to_char(make_interval(secs => left_s), 'HH24:MI:SS'),
        to_char(clock_timestamp() + make_interval(secs => left_s), 'HH24:MI:SS');
    RETURN res;
END
$$;

-- A study that returned: its row in ranread_studies, and the NOTICE of
-- how it went.  It runs as the extension's owner (SECURITY DEFINER), so
-- that no role needs INSERT on ranread_studies, where a row of its own
-- making could take the id the next study will take or say what no batch
-- ran.  The row recorded is that of the study this session runs now in
-- this transaction (the id it took and registered, ranread_call_register),
-- started by the role that registered it, at the time it did; what it
-- says of the points comes from the history, never from the caller: the
-- batches that carry the study's id (which only this call can give a
-- batch: src/history/calls.c, src/workload/workload.c) and a study's point (12_points.sql),
-- started by that role: the points run and completed, the target, why the
-- study ended early (its first point that did not complete), the best
-- point.  The caller says only what no batch can: the study's kind, call
-- and definition (checked for their form), how many points it planned and
-- skipped (at least the points run, in all), its bound (a finite number
-- above 0, or none).  A study with no point in the history is not
-- recorded: a WARNING says so.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_study_record(
    study_id bigint, kind text, fn text, call text, definition jsonb, planned integer, skipped integer,
    max_avg_ms float8, started timestamptz, measured float8, column_dim text, row_dims text[])
RETURNS void
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    reg    record;
    runs   record;
    first_bad record;
    best   record;
    reason text;
BEGIN
    SELECT c.started_by, c.started_at INTO reg
      FROM ranread_internal.ranread_running_calls() c
     WHERE c.kind OPERATOR(pg_catalog.=) 'study' AND c.id OPERATOR(pg_catalog.=) study_id
       AND c.pid OPERATOR(pg_catalog.=) pg_catalog.pg_backend_pid();
    IF NOT FOUND OR reg.started_by IS NULL THEN
        RAISE EXCEPTION USING
            ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('study %s of ranread_study_record is not the study this session runs now',
                             coalesce(study_id::text, 'NULL')),
            HINT = 'A study''s row is recorded by the ranread_study or ranread_profile call that took its id, when it returns.';
    END IF;
    IF max_avg_ms IS NOT NULL AND NOT (max_avg_ms > 0 AND max_avg_ms < 'Infinity'::float8) THEN
        RAISE EXCEPTION USING
            ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('invalid max_avg_ms %s for ranread_study_record', max_avg_ms),
            HINT = 'max_avg_ms is the bound on average latency in milliseconds: a finite number greater than 0, or NULL.';
    END IF;
    IF fn IS NULL OR fn NOT IN ('ranread_study', 'ranread_profile')
       OR kind IS DISTINCT FROM (CASE WHEN fn = 'ranread_study' THEN 'study'
                                      WHEN kind = ANY (ranread_internal.ranread_profile_names()) THEN kind END)
       OR call IS NULL OR NOT starts_with(call, 'SELECT * FROM ' || fn || '(') OR octet_length(call) > 65536
       OR jsonb_typeof(definition) IS DISTINCT FROM 'object' THEN
        RAISE EXCEPTION USING
            ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('invalid kind %s, fn %s or call of ranread_study_record',
                             coalesce(quote_literal(left(kind, 64)), 'NULL'), coalesce(quote_literal(left(fn, 64)), 'NULL')),
            HINT = 'A study is recorded by ranread_study (kind ''study'') or ranread_profile (kind the profile''s name), with its call and definition.';
    END IF;

    SELECT count(*) AS run, count(*) FILTER (WHERE b.status OPERATOR(pg_catalog.=) 'completed') AS completed,
           min(b.target) AS target
      INTO runs
      FROM @extschema@.ranread_batches b
     WHERE b.study OPERATOR(pg_catalog.=) study_id AND b.started_by OPERATOR(pg_catalog.=) reg.started_by
       AND ranread_internal.ranread_study_point_ok(b.point);
    IF runs.run = 0 THEN
        RAISE WARNING 'study % is not recorded in ranread_studies: it has no point in the history', study_id
            USING HINT = 'Its batches, if any, stay in ranread_batches with the study''s id.';
        RETURN;
    END IF;
    IF planned IS NULL OR skipped IS NULL OR skipped < 0 OR planned < runs.run + skipped THEN
        RAISE EXCEPTION USING
            ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('invalid planned %s and skipped %s for ranread_study_record: study %s ran %s points',
                             coalesce(planned::text, 'NULL'), coalesce(skipped::text, 'NULL'), study_id, runs.run),
            HINT = 'planned counts every point of the study, at least those run and skipped.';
    END IF;
    -- the first point that did not complete ended the study
    SELECT ranread_internal.ranread_json_int(b.point -> 'n', 1, 2147483647) AS n, b.batch, b.status INTO first_bad
      FROM @extschema@.ranread_batches b
     WHERE b.study OPERATOR(pg_catalog.=) study_id AND b.started_by OPERATOR(pg_catalog.=) reg.started_by
       AND ranread_internal.ranread_study_point_ok(b.point) AND b.status OPERATOR(pg_catalog.<>) 'completed'
     ORDER BY 1, b.batch LIMIT 1;
    reason := CASE WHEN first_bad.batch IS NOT NULL
                   THEN format('status: point %s (batch %s) ended %s; the %s finished points are kept',
                               first_bad.n, first_bad.batch, first_bad.status, runs.completed)
                   WHEN skipped > 0
                   THEN format('early_end: %s points skipped in rows that stayed above the %s ms bound',
                               skipped, max_avg_ms) END;
    INSERT INTO @extschema@.ranread_studies
        (study, kind, started_at, finished_at, started_by, target, call, definition, planned,
         completed, skipped, max_avg_ms, stop_reason)
    VALUES (study_id, kind, reg.started_at, clock_timestamp(), reg.started_by, runs.target,
            call, definition, planned, runs.completed, skipped, max_avg_ms, reason);
    -- recorded, the study has ended (a profile's too, which no forwarder
    -- ends: src/history/calls.c)
    PERFORM ranread_internal.ranread_call_end('study', study_id);

    -- the first point of the highest IOPS, as the points ran
    SELECT b.point, b.iops, b.batch INTO best
      FROM @extschema@.ranread_batches b
     WHERE b.study OPERATOR(pg_catalog.=) study_id AND b.started_by OPERATOR(pg_catalog.=) reg.started_by
       AND ranread_internal.ranread_study_point_ok(b.point)
       AND b.status OPERATOR(pg_catalog.=) 'completed' AND b.iops IS NOT NULL
     ORDER BY b.iops DESC, ranread_internal.ranread_json_int(b.point -> 'n', 1, 2147483647) LIMIT 1;
    RAISE NOTICE '% %: % of % points completed in %, % s between points on average%',
        fn, study_id, runs.completed, planned,
        to_char(clock_timestamp() - started, 'HH24:MI:SS'),
        round((greatest(extract(epoch FROM clock_timestamp() - started)::float8 - measured, 0)
               / greatest(runs.run, 1))::numeric, 2),
        CASE WHEN best.batch IS NULL THEN ''
             ELSE format('; max %s IOPS at %s (batch %s)', round(best.iops::numeric),
                         CASE WHEN ranread_internal.ranread_study_row_label(best.point, row_dims) = 'all points' THEN ''
                              ELSE ranread_internal.ranread_study_row_label(best.point, row_dims) || ', ' END
                         || ranread_internal.ranread_study_label(column_dim, best.point -> column_dim),
                         best.batch) END;
END
$$;

-- Runs a list of points as the batches of one new study, in order, and
-- records the study.  points is a JSON array of {"point": {coordinates},
-- "groups": [the batch's groups], "duration": ..., "warmup": ...} (the last
-- two override the study's); spec is the workload every point shares (its
-- duration, warmup, target, seed, workers).  A NOTICE per point with the
-- time left; with early_end, a row ends once two of its points in a row
-- average above max_avg_ms (its other points are returned as skipped); a
-- point that does not complete (ranread_stop, an I/O error) ends the study,
-- which keeps every finished point.  One row per point run or skipped.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_study_execute(
    kind        text,
    fn          text,
    call        text,
    definition  jsonb,
    points      jsonb,
    spec        jsonb,
    max_avg_ms  float8,
    early_end   boolean)
RETURNS SETOF @extschema@.ranread_study_result
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    study_id   bigint;
    started    timestamptz := clock_timestamp();
    total      integer := jsonb_array_length(points);
    ax         record;
    p          jsonb;
    i          integer := 0;
    row_key    text;
    cur_row    text;
    row_avgs   float8[] := '{}';
    row_done   boolean := false;
    res        @extschema@.ranread_study_result;
    results    @extschema@.ranread_study_result[] := '{}';
    n_done     integer := 0;
    planned    float8[];
    measured   float8 := 0;
BEGIN
    -- What a study records besides its batches, checked before the first
    -- one (ranread_study's own call did already; a profile's has not)
    PERFORM ranread_internal.ranread_check_privileges('run ' || fn, fn, ARRAY[
        'EXECUTE on function @extschema@.ranread_run_step(jsonb)',
        'EXECUTE on function ranread_internal.ranread_call_register(text, bigint)',
        'EXECUTE on functions ranread_internal.ranread_progress_call*',
        'USAGE on sequence @extschema@.ranread_study_seq']);
    PERFORM ranread_internal.ranread_require_read_committed(fn,
        'Its points are recorded by their workers while it runs, which a repeatable read snapshot cannot see; run it outside an explicit transaction.');

    SELECT * INTO ax
      FROM ranread_internal.ranread_study_axes(ARRAY(SELECT e -> 'point' FROM jsonb_array_elements(points) e), NULL, fn);
    SELECT array_agg(extract(epoch FROM coalesce((e ->> 'duration')::interval, (spec ->> 'duration')::interval)
                              + coalesce((e ->> 'warmup')::interval, (spec ->> 'warmup')::interval, '0'))::float8
                     ORDER BY k)
      INTO planned
      FROM jsonb_array_elements(points) WITH ORDINALITY x(e, k);

    study_id := nextval('@extschema@.ranread_study_seq'::regclass);
    PERFORM ranread_internal.ranread_call_register('study', study_id);
    RAISE NOTICE '% %: % points, about % of I/O', fn, study_id, total,
        to_char(make_interval(secs => (SELECT sum(v) FROM unnest(planned) v)), 'HH24:MI:SS');

    FOR p IN SELECT e FROM jsonb_array_elements(points) WITH ORDINALITY x(e, k) ORDER BY k LOOP
        i := i + 1;
        row_key := ranread_internal.ranread_study_row_label(p -> 'point', ax.row_dims);
        IF row_key IS DISTINCT FROM cur_row THEN
            cur_row := row_key;
            row_avgs := '{}';
            row_done := false;
        END IF;
        res := ROW(study_id, i, NULL, row_key, p -> 'point' ->> ax.column_dim,
                   jsonb_build_object('n', i) || (p -> 'point'),
                   NULL, NULL, NULL, NULL, NULL, 'skipped')::@extschema@.ranread_study_result;
        IF row_done THEN
            results := results || res;
            CONTINUE;
        END IF;

        n_done := n_done + 1;
        measured := measured + planned[i];
        res := ranread_internal.ranread_study_point(res, p, spec, fn, total, planned, started,
                                                    measured, n_done, ax.column_dim);
        results := results || res;
        -- a point that did not complete ends the study (its row says so,
        -- from the history: ranread_study_record)
        IF res.status IS DISTINCT FROM 'completed' THEN
            EXIT;
        END IF;

        row_avgs := row_avgs || res.avg_ms;
        IF early_end AND ranread_internal.ranread_study_row_ended(row_avgs, max_avg_ms) THEN
            row_done := true;
            IF i < total AND ranread_internal.ranread_study_row_label(points -> i -> 'point', ax.row_dims) = row_key THEN
                RAISE NOTICE '% % row "%" ends early: average latency above % ms on two points in a row',
                    fn, study_id, row_key, max_avg_ms;
            END IF;
        END IF;
    END LOOP;

    PERFORM ranread_internal.ranread_study_record(study_id, kind, fn, call, definition, total,
                                                  (SELECT count(*)::integer FROM unnest(results) x WHERE x.status = 'skipped'),
                                                  max_avg_ms, started, measured, ax.column_dim, ax.row_dims);
    RETURN QUERY SELECT * FROM unnest(results);
END
$$;

-- The dimensions of a study, checked: each array not empty, without NULL
-- or repeats, its values within the option's range (ranread_options), a
-- region as START-END; the text dimensions in one spelling, so that no two
-- values make the same point.  Returns those spellings, and the regions as
-- JSON.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_study_check_dims(
    processes integer[], queue_depth integer[], block_size integer[], write_pct integer[],
    region text[], pattern text[], distribution text[], small integer[], large integer[],
    num_small integer, num_large integer, fn text,
    OUT patterns text[], OUT distributions text[], OUT regions jsonb)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    lim   record;
    rg    text;
    m     text[];
    bad   text;
    same  record;
    o     record;
BEGIN
    SELECT * INTO lim FROM @extschema@.ranread_limits();
    FOR o IN SELECT x.name, x.minimum, x.maximum FROM @extschema@.ranread_options() x
              WHERE x.name IN ('processes', 'queue_depth', 'block_size', 'write_pct')
              ORDER BY array_position(ARRAY['processes', 'queue_depth', 'block_size', 'write_pct'], x.name) LOOP
        PERFORM ranread_internal.ranread_study_check_ints(o.name,
            CASE o.name WHEN 'processes' THEN processes WHEN 'queue_depth' THEN queue_depth
                        WHEN 'block_size' THEN block_size ELSE write_pct END,
            o.minimum::integer, o.maximum::integer,
            CASE o.name WHEN 'processes' THEN 'a number of processes' WHEN 'queue_depth' THEN 'a queue depth'
                        WHEN 'block_size' THEN 'a block size in bytes' ELSE 'a percentage of writes' END, fn);
    END LOOP;
    PERFORM ranread_internal.ranread_study_check_ints('small', small, 0, lim.max_processes, 'a small I/O load (processes)', fn);
    PERFORM ranread_internal.ranread_study_check_ints('large', large, 0, lim.max_processes, 'a large I/O load (streams)', fn);
    PERFORM ranread_internal.ranread_study_check_ints('num_small', CASE WHEN num_small IS NOT NULL THEN ARRAY[num_small] END, 0, lim.max_processes, 'a small I/O load (processes)', fn);
    PERFORM ranread_internal.ranread_study_check_ints('num_large', CASE WHEN num_large IS NOT NULL THEN ARRAY[num_large] END, 0, lim.max_processes, 'a large I/O load (streams)', fn);
    FOREACH bad IN ARRAY ARRAY['region', 'pattern', 'distribution'] LOOP
        IF (CASE bad WHEN 'region' THEN region WHEN 'pattern' THEN pattern ELSE distribution END) = '{}' THEN
            RAISE EXCEPTION USING
                ERRCODE = 'invalid_parameter_value',
                MESSAGE = format('invalid %s {} for %s: an empty array', bad, fn),
                HINT = format('%s is an array of values, such as %s; leave it out to keep the default.', bad,
                              CASE bad WHEN 'region' THEN '''{0-100,0-40,40-100}'''
                                       WHEN 'pattern' THEN '''{random,sequential}'''
                                       ELSE '''{uniform,zipf:1.2}''' END);
        END IF;
        IF array_position(CASE bad WHEN 'region' THEN region WHEN 'pattern' THEN pattern ELSE distribution END, NULL) IS NOT NULL THEN
            RAISE EXCEPTION USING
                ERRCODE = 'null_value_not_allowed',
                MESSAGE = format('%s of %s must not contain NULL', bad, fn),
                HINT = format('%s is an array of values; leave it out to keep the default.', bad);
        END IF;
        SELECT v INTO rg FROM unnest(CASE bad WHEN 'region' THEN region WHEN 'pattern' THEN pattern ELSE distribution END) v
         GROUP BY v HAVING count(*) > 1 LIMIT 1;
        IF FOUND THEN
            RAISE EXCEPTION USING
                ERRCODE = 'invalid_parameter_value',
                MESSAGE = format('%s of %s repeats %s', bad, fn, quote_literal(ranread_internal.ranread_study_shown(rg))),
                HINT = 'Give each value once: a repeated value would run the same point twice.';
        END IF;
    END LOOP;
    regions := '[]';
    FOREACH rg IN ARRAY coalesce(region, '{}') LOOP
        m := regexp_match(rg, '^\s*([0-9]+(?:\.[0-9]+)?)\s*-\s*([0-9]+(?:\.[0-9]+)?)\s*%?\s*$');
        IF m IS NULL OR m[1]::float8 >= m[2]::float8 OR m[2]::float8 > 100 THEN
            RAISE EXCEPTION USING
                ERRCODE = 'invalid_parameter_value',
                MESSAGE = format('invalid region %s for %s', quote_literal(ranread_internal.ranread_study_shown(rg)), fn),
                HINT = 'A region is START-END in percent of the target, 0 <= START < END <= 100, such as ''0-40'' (the outer 40% of a disk) or ''40-100''.';
        END IF;
        regions := regions || to_jsonb(ranread_internal.ranread_study_normalize('region', rg));
    END LOOP;

    -- Values that differ only in spelling would run the same point twice:
    -- each dimension's values in one spelling, and no two alike
    FOREACH bad IN ARRAY ARRAY['region', 'pattern', 'distribution'] LOOP
        SELECT min(v) AS a, max(v) AS b, ranread_internal.ranread_study_normalize(bad, v) AS n INTO same
          FROM unnest(CASE bad WHEN 'region' THEN region WHEN 'pattern' THEN pattern ELSE distribution END) v
         GROUP BY 3 HAVING count(*) > 1 LIMIT 1;
        IF FOUND THEN
            RAISE EXCEPTION USING
                ERRCODE = 'invalid_parameter_value',
                MESSAGE = format('%s of %s repeats %s: %s and %s are the same %s',
                                 bad, fn, quote_literal(ranread_internal.ranread_study_shown(same.n)),
                                 quote_literal(ranread_internal.ranread_study_shown(same.a)),
                                 quote_literal(ranread_internal.ranread_study_shown(same.b)), bad),
                HINT = 'Give each value once: a repeated value would run the same point twice.';
        END IF;
    END LOOP;
    patterns := CASE WHEN pattern IS NOT NULL THEN
        ARRAY(SELECT ranread_internal.ranread_study_normalize('pattern', v) FROM unnest(pattern) WITH ORDINALITY u(v, k) ORDER BY k) END;
    distributions := CASE WHEN distribution IS NOT NULL THEN
        ARRAY(SELECT ranread_internal.ranread_study_normalize('distribution', v) FROM unnest(distribution) WITH ORDINALITY u(v, k) ORDER BY k) END;
END
$$;

-- The other arguments of a study: the dimensions a matrix of small and
-- large loads excludes, and each point's length and warm-up, the bound,
-- early_end and a matrix's large pattern.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_study_check_args(
    is_mix boolean, processes integer[], queue_depth integer[], block_size integer[], pattern text[],
    num_small integer, num_large integer, duration interval, max_avg_ms float8,
    early_end boolean, large_pattern text, fn text)
RETURNS void
LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    bad text;
BEGIN
    IF is_mix THEN
        SELECT x INTO bad
          FROM (VALUES ('processes', processes IS NOT NULL), ('queue_depth', queue_depth IS NOT NULL),
                       ('block_size', block_size IS NOT NULL), ('pattern', pattern IS NOT NULL)) v(x, given)
         WHERE given LIMIT 1;
        IF FOUND THEN
            RAISE EXCEPTION USING
                ERRCODE = 'invalid_parameter_value',
                MESSAGE = format('%s cannot be a dimension of a %s with small and large loads', bad, fn),
                HINT = 'A matrix''s loads are its processes: small random I/O of small_size at queue depth 1, large I/O of large_size as large_pattern says.';
        END IF;
    ELSIF num_small IS NOT NULL OR num_large IS NOT NULL THEN
        RAISE EXCEPTION USING
            ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('%s of %s needs a matrix', CASE WHEN num_small IS NOT NULL THEN 'num_small' ELSE 'num_large' END, fn),
            HINT = 'num_small and num_large fix a load of matrix row, col, point or max: give small and large loads and a matrix.';
    END IF;
    -- a point runs for its duration (its value, like warmup's, is the
    -- parser's to check: ranread_study checks the spec)
    PERFORM ranread_internal.ranread_require(fn, 'duration', duration,
        'duration is the length of each point, such as ''10s''.');
    IF max_avg_ms IS NULL OR NOT (max_avg_ms > 0) OR max_avg_ms = 'NaN'::float8 OR max_avg_ms = 'Infinity'::float8 THEN
        RAISE EXCEPTION USING
            ERRCODE = CASE WHEN max_avg_ms IS NULL THEN 'null_value_not_allowed' ELSE 'invalid_parameter_value' END,
            MESSAGE = format('invalid max_avg_ms %s for %s', coalesce(max_avg_ms::text, 'NULL'), fn),
            HINT = 'max_avg_ms is the bound on average latency in milliseconds: a finite number greater than 0, such as 10.';
    END IF;
    PERFORM ranread_internal.ranread_require(fn, 'early_end', early_end,
        'early_end is true to end a row once two of its points in a row average above max_avg_ms, false to run every point.');
    IF large_pattern IS NULL OR large_pattern NOT IN ('random', 'sequential') THEN
        RAISE EXCEPTION USING
            ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('invalid large_pattern %s for %s', coalesce(quote_literal(large_pattern), 'NULL'), fn),
            HINT = 'large_pattern is ''random'' (ORION''s -type rand) or ''sequential'' (-type seq).';
    END IF;
END
$$;

-- The points of a study's grid, each with its batch's groups, refused past
-- max_points before any is built: the product of the dimensions' sizes
-- (numeric, so that no product overflows) times the points the matrix
-- selects.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_study_plan(
    dims jsonb, is_mix boolean, matrix text, small integer[], large integer[],
    num_small integer, num_large integer, target name, small_size integer, large_size integer,
    large_pattern text, fn text, max_points integer DEFAULT 1000)
RETURNS jsonb
LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    n_points numeric := 1;
    d        text;
BEGIN
    FOREACH d IN ARRAY ARRAY['region', 'pattern', 'distribution', 'block_size', 'write_pct', 'queue_depth', 'processes'] LOOP
        n_points := n_points * coalesce(jsonb_array_length(dims -> d), 1);
    END LOOP;
    IF is_mix THEN
        n_points := n_points * ranread_internal.ranread_study_matrix_count(coalesce(matrix, 'basic'), small, large,
                                                                          num_small, num_large);
        IF n_points = 0 THEN
            RAISE EXCEPTION USING
                ERRCODE = 'invalid_parameter_value',
                MESSAGE = format('matrix %s of %s selects no point with a load', coalesce(matrix, 'basic'), fn),
                HINT = 'Every point of the loads given is small 0 and large 0; give loads above 0.';
        END IF;
    END IF;
    IF n_points > max_points THEN
        RAISE EXCEPTION USING
            ERRCODE = 'program_limit_exceeded',
            MESSAGE = format('%s would run %s points, more than %s', fn, n_points, max_points),
            HINT = 'Give fewer values per dimension, or run the grid as several studies.';
    END IF;
    RETURN (SELECT coalesce(jsonb_agg(jsonb_build_object('point', pt.point,
                                                         'groups', ranread_internal.ranread_study_groups(pt.point, target,
                                                             small_size, large_size, large_pattern))
                                      ORDER BY pt.n), '[]')
              FROM ranread_internal.ranread_study_grid_points(dims, matrix, num_small, num_large) pt);
END
$$;

-- Each point's options, checked before any I/O: the group options (once
-- per distinct set), the limits on I/O in flight and processes, whole
-- pages for writes, and workers against the smallest point.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_study_check_points(pts jsonb, workers integer, fn text)
RETURNS void
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    lim         record;
    g           jsonb;
    total_procs integer;
BEGIN
    SELECT * INTO lim FROM @extschema@.ranread_limits();
    FOR g IN
        SELECT DISTINCT x - 'processes' - 'label' - 'queue_depth' - 'write_pct'
          FROM jsonb_array_elements(pts) p, jsonb_array_elements(p -> 'groups') x
    LOOP
        PERFORM ranread_internal.ranread_study_check_group(g, fn);
    END LOOP;
    SELECT p -> 'point' INTO g
      FROM jsonb_array_elements(pts) p
     WHERE (SELECT sum((x ->> 'processes')::bigint * (x ->> 'queue_depth')::integer)
              FROM jsonb_array_elements(p -> 'groups') x) > lim.max_inflight
        OR (SELECT sum((x ->> 'processes')::bigint * (x ->> 'queue_depth')::integer * (x ->> 'block_size')::integer)
              FROM jsonb_array_elements(p -> 'groups') x) > lim.max_inflight_bytes
     LIMIT 1;
    IF NOT FOUND THEN
        SELECT p -> 'point' INTO g
          FROM jsonb_array_elements(pts) p
         WHERE (SELECT sum((x ->> 'processes')::bigint) FROM jsonb_array_elements(p -> 'groups') x) > lim.max_processes
         LIMIT 1;
    END IF;
    IF FOUND THEN
        RAISE EXCEPTION USING
            ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('the point %s of %s has too many processes or too much I/O in flight', g, fn),
            HINT = format('At every point the processes of all groups must be at most %s, processes x queue_depth at most %s I/Os, and x block_size at most %s bytes.',
                          lim.max_processes, lim.max_inflight, lim.max_inflight_bytes);
    END IF;
    SELECT p -> 'point' INTO g
      FROM jsonb_array_elements(pts) p, jsonb_array_elements(p -> 'groups') x
     WHERE (x ->> 'write_pct')::integer > 0
       AND (x ->> 'block_size')::integer % current_setting('block_size')::integer <> 0
     LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION USING
            ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('the point %s of %s writes blocks smaller than a page', g, fn),
            HINT = format('ranread writes whole pages: with write_pct above 0, every block size must be a multiple of %s.',
                          current_setting('block_size'));
    END IF;
    SELECT min((SELECT sum((x ->> 'processes')::integer) FROM jsonb_array_elements(p -> 'groups') x))
      INTO total_procs FROM jsonb_array_elements(pts) p;
    IF workers < 1 OR workers > total_procs THEN
        RAISE EXCEPTION USING
            ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('workers of %s must be between 1 and %s, not %s', fn, total_procs, workers),
            HINT = format('workers must be between 1 and the processes of the smallest point (%s), or NULL to let each point choose.',
                          total_procs);
    END IF;
END
$$;

-- ranread_study, behind the C function users call: its dimensions and own
-- arguments bound by name, the workload every point shares (duration,
-- warmup, target, seed, workers) as one spec, and the exact call
-- (src/workload/forward.c).  Everything is checked before the first batch.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_study(
    processes integer[], queue_depth integer[], block_size integer[], write_pct integer[],
    region text[], pattern text[], distribution text[], small integer[], large integer[],
    matrix text, num_small integer, num_large integer, duration interval, warmup interval,
    max_avg_ms float8, early_end boolean, target name, small_size integer, large_size integer,
    large_pattern text, workers integer, spec jsonb, call text)
RETURNS SETOF @extschema@.ranread_study_result
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    fn      constant text := 'ranread_study';
    is_mix  boolean := small IS NOT NULL OR large IS NOT NULL OR matrix IS NOT NULL;
    d       record;
    dims    jsonb;
    pts     jsonb;
BEGIN
    PERFORM ranread_internal.ranread_primary_only(fn);
    SELECT * INTO d FROM ranread_internal.ranread_study_check_dims(processes, queue_depth, block_size,
        write_pct, region, pattern, distribution, small, large, num_small, num_large, fn);
    PERFORM ranread_internal.ranread_study_check_args(is_mix, processes, queue_depth, block_size, pattern,
        num_small, num_large, duration, max_avg_ms, early_end, large_pattern, fn);
    -- the workload every point shares (duration, warmup, seed), checked as
    -- a batch checks it (its target with the groups' options); workers are
    -- checked against the smallest point
    PERFORM ranread_internal.ranread_spec_check((spec - 'workers' - 'groups')
        || jsonb_build_object('caller', fn, 'groups', jsonb_build_array(jsonb_build_object('processes', 1))), false);

    dims := jsonb_strip_nulls(jsonb_build_object(
        'region', CASE WHEN region IS NOT NULL THEN d.regions END,
        'pattern', to_jsonb(d.patterns), 'distribution', to_jsonb(d.distributions),
        'block_size', to_jsonb(block_size), 'write_pct', to_jsonb(write_pct),
        'queue_depth', to_jsonb(queue_depth),
        'processes', CASE WHEN NOT is_mix THEN to_jsonb(coalesce(processes, '{1}')) END,
        'small', to_jsonb(small), 'large', to_jsonb(large)));
    pts := ranread_internal.ranread_study_plan(dims, is_mix, matrix, small, large, num_small, num_large,
                                               target, small_size, large_size, large_pattern, fn);
    PERFORM ranread_internal.ranread_study_check_points(pts, workers, fn);

    RETURN QUERY
    SELECT * FROM ranread_internal.ranread_study_execute(
        'study', fn, call,
        -- the definition: the grid, the study's own arguments, the workload
        -- every point shares (but its target, which ranread_studies has)
        jsonb_strip_nulls(jsonb_build_object(
            'dimensions', dims, 'matrix', CASE WHEN is_mix THEN coalesce(matrix, 'basic') END,
            'num_small', num_small, 'num_large', num_large,
            'max_avg_ms', max_avg_ms, 'early_end', early_end,
            'small_size', CASE WHEN is_mix THEN small_size END,
            'large_size', CASE WHEN is_mix THEN large_size END,
            'large_pattern', CASE WHEN is_mix THEN large_pattern END)) || (spec - 'caller' - 'target'),
        pts, spec, max_avg_ms, early_end);
END
$$;

-- A grid of batches in one call: the product of the dimensions given as
-- arrays (see ranread_study_grid_points), each point a batch of duration
-- after warmup.  small and large are the loads of ORION's mix (small: that
-- many processes of small_size random I/O at queue depth 1; large: that many
-- streams of large_size I/O, random or sequential as large_pattern says),
-- combined as matrix says; they replace processes, queue_depth, block_size
-- and pattern.  Everything is checked before the first batch; the workload
-- options take ranread_run's defaults but duration (ranread_options).
CREATE OR REPLACE FUNCTION @extschema@.ranread_study(
    processes integer[] DEFAULT NULL,
    queue_depth integer[] DEFAULT NULL,
    block_size integer[] DEFAULT NULL,
    write_pct integer[] DEFAULT NULL,
    region        text[]    DEFAULT NULL,
    pattern text[] DEFAULT NULL,
    distribution text[] DEFAULT NULL,
    small         integer[] DEFAULT NULL,
    large         integer[] DEFAULT NULL,
    matrix        text      DEFAULT NULL,
    num_small     integer   DEFAULT NULL,
    num_large     integer   DEFAULT NULL,
    duration interval DEFAULT '10s',
    warmup interval DEFAULT '0',
    max_avg_ms    float8    DEFAULT 10,
    early_end     boolean   DEFAULT false,
    target name DEFAULT 'ranread',
    small_size    integer   DEFAULT 8192,
    large_size    integer   DEFAULT 1048576,
    large_pattern text      DEFAULT 'random',
    seed bigint DEFAULT NULL,
    workers integer DEFAULT NULL,
    io_priority text DEFAULT NULL,
    verify boolean DEFAULT false)
    -- not region_start region_end: the region dimension sets both ('START-END' per point)
    -- not iterations steady_state: every point runs for duration, so that points compare
    -- not rate_iops: a study measures what the storage answers at each point, which a cap would hide
    -- not path effective_io_concurrency: not dimensions of a study (ranread_paths compares the two paths at each prefetch distance)
    -- not sync: a study's writes are plain (ranread_commit_test times the commit path, ranread_run and ranread_sweep synced writes)
    -- not start_at: the points start one after another
RETURNS SETOF @extschema@.ranread_study_result
AS 'MODULE_PATHNAME', 'ranread_forward'
LANGUAGE C CALLED ON NULL INPUT VOLATILE;

-- Error unless this transaction runs at read committed: fn records its
-- steps while it runs (a study's points and a latency-target search's
-- windows through their workers, a fleet sweep's steps through the
-- recorder), which a repeatable read snapshot cannot see.  hint says what
-- fn records and what to do.  Shared by ranread_study,
-- ranread_latency_target and ranread_fleet_sweep.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_require_read_committed(fn text, hint text)
RETURNS void
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF current_setting('transaction_isolation') <> 'read committed' THEN
        RAISE EXCEPTION USING ERRCODE = 'invalid_transaction_state',
            MESSAGE = format('%s must run at the read committed isolation level, not %s',
                             fn, current_setting('transaction_isolation')),
            HINT = hint;
    END IF;
END
$$;
-- 1.1, studies read back: every point of every study from the history
-- (ranread_study_points), one row per study (ranread_study_overview), and
-- ORION's pivots: a metric as a grid of rows x columns, and the summary of
-- a study's maxima and where they were reached.  They read the batches
-- alone (their study id and point coordinates), so a cancelled study, which
-- has no row in ranread_studies, reads the same.  A batch whose point is
-- not a study's (a row of 1.1: 12_points.sql) is no point: skipped, and
-- ranread_study_overview says so.

-- Every point of every study, one row each, with the row and column of the
-- study's default axes (see ranread_study_axes), the batch's figures, and
-- for a matrix of small and large loads the groups' own figures (ORION's
-- small IOPS and latency, large MiB/s), whole: what the exports, the
-- charts and the grids read.  ranread_study_points rounds them.
CREATE OR REPLACE VIEW ranread_internal.ranread_study_points_raw AS
WITH axes AS (
    SELECT s.study, a.column_dim, a.row_dims
      FROM (SELECT b.study, array_agg(b.point) AS points
              FROM @extschema@.ranread_batches b
             WHERE b.study IS NOT NULL AND ranread_internal.ranread_study_point_ok(b.point)
             GROUP BY b.study) s,
           LATERAL ranread_internal.ranread_study_axes(s.points) a
)
SELECT b.study,
       ranread_internal.ranread_json_int(b.point -> 'n', 1, 2147483647)::integer AS n,
       b.batch,
       b.run_at,
       ranread_internal.ranread_study_row_label(b.point, x.row_dims) AS row_label,
       x.column_dim,
       b.point ->> x.column_dim AS column_label,
       b.point,
       n.status,
       b.target,
       b.tablespace,
       b.processes,
       b.seconds,
       b.iops,
       b.mbps,
       b.avg_ms,
       b.p50_ms,
       b.p95_ms,
       b.p99_ms,
       b.p999_ms,
       b.max_ms,
       sg.iops   AS small_iops,
       sg.avg_ms AS small_avg_ms,
       sg.p99_ms AS small_p99_ms,
       lg.iops   AS large_iops,
       lg.mbps   AS large_mbps,
       lg.avg_ms AS large_avg_ms
  FROM @extschema@.ranread_batches b
  JOIN axes x ON x.study OPERATOR(pg_catalog.=) b.study
  LEFT JOIN @extschema@.ranread_groups sg
         ON sg.batch OPERATOR(pg_catalog.=) b.batch AND sg.label OPERATOR(pg_catalog.=) 'small'
        AND b.point ? 'small'
  LEFT JOIN @extschema@.ranread_groups lg
         ON lg.batch OPERATOR(pg_catalog.=) b.batch AND lg.label OPERATOR(pg_catalog.=) 'large'
        AND b.point ? 'large',
       LATERAL ranread_internal.ranread_status_now(b.status, b.batch, b.message) n
 WHERE ranread_internal.ranread_study_point_ok(b.point);

-- Every point of every study as a person reads it: IOPS whole, MiB/s
-- (mbps) to 0.1, ms to 0.001.
CREATE OR REPLACE VIEW @extschema@.ranread_study_points AS
SELECT p.study, p.n, p.batch, p.run_at, p.row_label, p.column_dim, p.column_label,
       p.point, p.status, p.target, p.tablespace, p.processes,
       ranread_internal.ranread_round(p.seconds, 3)::numeric(12,3) AS seconds,
       ranread_internal.ranread_round(p.iops, 0)::bigint AS iops,
       ranread_internal.ranread_round(p.mbps, 1)::numeric(14,1) AS mbps,
       ranread_internal.ranread_round(p.avg_ms, 3)::numeric(15,3) AS avg_ms,
       ranread_internal.ranread_round(p.p50_ms, 3)::numeric(15,3) AS p50_ms,
       ranread_internal.ranread_round(p.p95_ms, 3)::numeric(15,3) AS p95_ms,
       ranread_internal.ranread_round(p.p99_ms, 3)::numeric(15,3) AS p99_ms,
       ranread_internal.ranread_round(p.p999_ms, 3)::numeric(15,3) AS p999_ms,
       ranread_internal.ranread_round(p.max_ms, 3)::numeric(15,3) AS max_ms,
       ranread_internal.ranread_round(p.small_iops, 0)::bigint AS small_iops,
       ranread_internal.ranread_round(p.small_avg_ms, 3)::numeric(15,3) AS small_avg_ms,
       ranread_internal.ranread_round(p.small_p99_ms, 3)::numeric(15,3) AS small_p99_ms,
       ranread_internal.ranread_round(p.large_iops, 0)::bigint AS large_iops,
       ranread_internal.ranread_round(p.large_mbps, 1)::numeric(14,1) AS large_mbps,
       ranread_internal.ranread_round(p.large_avg_ms, 3)::numeric(15,3) AS large_avg_ms
  FROM ranread_internal.ranread_study_points_raw p;

-- One row per study, recorded or not: a study cancelled half-way has no
-- row in ranread_studies, and shows here from its batches, with status
-- 'cancelled' and no definition; so does one that runs now, as 'running'
-- ('cancelled or running' on a standby, which cannot tell).
CREATE OR REPLACE VIEW ranread_internal.ranread_study_overview_raw AS
SELECT p.study,
       coalesce(s.kind, 'study') AS kind,
       coalesce(s.started_at, p.first_run) AS started_at,
       s.finished_at,
       coalesce(s.target, p.target) AS target,
       p.tablespace,
       CASE WHEN s.study IS NOT NULL THEN CASE WHEN s.stop_reason LIKE 'status:%' THEN 'ended early' ELSE 'finished' END
            WHEN ranread_internal.ranread_call_running('study', p.study) THEN 'running'
            WHEN ranread_internal.ranread_call_running('study', p.study) IS NULL THEN 'cancelled or running'
            ELSE 'cancelled' END AS status,
       s.planned,
       p.points,
       p.completed,
       s.skipped,
       p.max_iops,
       p.max_mbps,
       p.min_avg_ms,
       s.max_avg_ms,
       NULLIF(concat_ws('; ', s.stop_reason,
                        ranread_internal.ranread_skipped(p.skipped, 'whose point is not a study''s')), '') AS stop_reason,
       s.call,
       s.definition
  FROM (SELECT b.study, min(b.run_at) AS first_run, min(b.target) AS target,
               min(b.tablespace) AS tablespace, count(*) FILTER (WHERE b.ok) AS points,
               count(*) FILTER (WHERE b.ok AND b.status OPERATOR(pg_catalog.=) 'completed') AS completed,
               max(b.iops) FILTER (WHERE b.ok) AS max_iops, max(b.mbps) FILTER (WHERE b.ok) AS max_mbps,
               min(b.avg_ms) FILTER (WHERE b.ok) AS min_avg_ms, count(*) FILTER (WHERE NOT b.ok) AS skipped
          FROM (SELECT x.*, ranread_internal.ranread_study_point_ok(x.point) AS ok
                  FROM @extschema@.ranread_batches x
                 WHERE x.study IS NOT NULL) b
         GROUP BY b.study) p
  LEFT JOIN @extschema@.ranread_studies s ON s.study OPERATOR(pg_catalog.=) p.study;

-- One row per study as a person reads it (ranread_internal's
-- ranread_study_overview_raw has the maxima whole).
CREATE OR REPLACE VIEW @extschema@.ranread_study_overview AS
SELECT o.study, o.kind, o.started_at, o.finished_at, o.target, o.tablespace, o.status,
       o.planned, o.points, o.completed, o.skipped,
       ranread_internal.ranread_round(o.max_iops, 0)::bigint AS max_iops,
       ranread_internal.ranread_round(o.max_mbps, 1)::numeric(14,1) AS max_mbps,
       ranread_internal.ranread_round(o.min_avg_ms, 3)::numeric(15,3) AS min_avg_ms,
       o.max_avg_ms, o.stop_reason, o.call, o.definition
  FROM ranread_internal.ranread_study_overview_raw o;

-- The metrics a grid, heat table or summary can show, and what they are for
-- a study of single batches and for a matrix of small and large loads.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_study_metric(metric text, fn text,
    OUT column_name text, OUT label text, OUT higher_is_better boolean)
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    SELECT m.c, m.l, m.h INTO column_name, label, higher_is_better
      FROM (VALUES ('iops', 'iops', 'IOPS', true), ('mbps', 'mbps', 'MiB/s', true),
                   ('lat', 'avg_ms', 'Average latency (ms)', false),
                   ('avg_ms', 'avg_ms', 'Average latency (ms)', false),
                   ('p50_ms', 'p50_ms', 'p50 latency (ms)', false),
                   ('p95_ms', 'p95_ms', 'p95 latency (ms)', false),
                   ('p99_ms', 'p99_ms', 'p99 latency (ms)', false),
                   ('p999_ms', 'p999_ms', 'p99.9 latency (ms)', false),
                   ('max_ms', 'max_ms', 'Maximum latency (ms)', false)) m(k, c, l, h)
     WHERE m.k = lower(metric);
    IF NOT FOUND THEN
        RAISE EXCEPTION USING
            ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('invalid metric %s for %s', coalesce(quote_literal(metric), 'NULL'), fn),
            HINT = 'A metric is iops, mbps, lat (avg_ms), p50_ms, p95_ms, p99_ms, p999_ms or max_ms.';
    END IF;
END
$$;

-- The points of a study, checked: an error naming the study when it has
-- none.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_study_check(study bigint, fn text)
RETURNS void
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    -- (a C function: it also loads the library, whose hook keeps this
    -- function's frame out of the CONTEXT of the errors below, forward.c)
    PERFORM ranread_internal.ranread_require(fn, 'study', study,
        'Pass a study id, as ranread_study returns it and ranread_study_overview lists them.');
    IF NOT EXISTS (SELECT FROM @extschema@.ranread_batches b
                    WHERE b.study OPERATOR(pg_catalog.=) ranread_study_check.study
                      AND ranread_internal.ranread_study_point_ok(b.point)) THEN
        RAISE EXCEPTION USING
            ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('invalid study %s for %s: no point of it is in the history', study, fn),
            HINT = 'ranread_study_overview lists the studies.';
    END IF;
END
$$;

-- A study's points as cells: each point's row and column (the study's
-- axes, or columns as given) and the metric there; for a matrix of small and
-- large loads, iops is the small I/O's IOPS, mbps the large I/O's MiB/s and
-- the latencies the small I/O's, as ORION reports them.  Repeated points
-- (a profile's passes) give their best: the highest rate, the lowest
-- latency.  Only completed batches count.  Rows and columns come with their
-- order: numbers by value, other values as the study ran them.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_study_cells(
    study    bigint,
    metric   text DEFAULT 'iops',
    columns  text DEFAULT NULL,
    fn       text DEFAULT 'ranread_study_cells')
RETURNS TABLE (row_label text, row_ord bigint, column_label text, column_ord bigint,
               value float8, batch bigint)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    m      record;
    ax     record;
    is_mix boolean;
BEGIN
    PERFORM ranread_internal.ranread_study_check(study, fn);
    SELECT * INTO m FROM ranread_internal.ranread_study_metric(metric, fn);
    SELECT * INTO ax
      FROM ranread_internal.ranread_study_axes(ARRAY(SELECT b.point FROM @extschema@.ranread_batches b
                                                 WHERE b.study OPERATOR(pg_catalog.=) ranread_study_cells.study
                                                   AND ranread_internal.ranread_study_point_ok(b.point)),
                                          columns, fn);
    is_mix := EXISTS (SELECT FROM @extschema@.ranread_batches b
                       WHERE b.study OPERATOR(pg_catalog.=) ranread_study_cells.study AND b.point ? 'small'
                         AND ranread_internal.ranread_study_point_ok(b.point));

    RETURN QUERY
    WITH pts AS (
        SELECT p.n, p.batch, p.status,
               ranread_internal.ranread_study_row_label(p.point, ax.row_dims) AS rl,
               p.point -> ax.column_dim AS cv,
               CASE WHEN is_mix THEN
                        CASE m.column_name WHEN 'iops' THEN p.small_iops
                                           WHEN 'mbps' THEN p.large_mbps
                                           WHEN 'avg_ms' THEN p.small_avg_ms
                                           WHEN 'p99_ms' THEN p.small_p99_ms
                                           ELSE NULL END
                    ELSE CASE m.column_name WHEN 'iops' THEN p.iops WHEN 'mbps' THEN p.mbps
                                            WHEN 'avg_ms' THEN p.avg_ms WHEN 'p50_ms' THEN p.p50_ms
                                            WHEN 'p95_ms' THEN p.p95_ms WHEN 'p99_ms' THEN p.p99_ms
                                            WHEN 'p999_ms' THEN p.p999_ms WHEN 'max_ms' THEN p.max_ms END
               END AS v
          FROM ranread_internal.ranread_study_points_raw p
         WHERE p.study OPERATOR(pg_catalog.=) ranread_study_cells.study),
    numeric_cols AS (
        SELECT bool_and(jsonb_typeof(cv) = 'number') AS yes FROM pts),
    rows_ AS (
        SELECT rl, row_number() OVER (ORDER BY min(n)) AS ord FROM pts GROUP BY rl),
    cols AS (
        SELECT cv, row_number() OVER (ORDER BY CASE WHEN (SELECT yes FROM numeric_cols)
                                                    THEN (cv #>> '{}')::float8 END,
                                               min(n)) AS ord
          FROM pts GROUP BY cv),
    best AS (
        SELECT DISTINCT ON (p.rl, p.cv) p.rl, p.cv, p.v, p.batch
          FROM pts p
         WHERE p.status = 'completed'
         ORDER BY p.rl, p.cv, (p.v IS NULL),
                  CASE WHEN m.higher_is_better THEN -p.v ELSE p.v END, p.n)
    SELECT r.rl, r.ord, c.cv #>> '{}', c.ord, bs.v, bs.batch
      FROM rows_ r CROSS JOIN cols c
      LEFT JOIN best bs ON bs.rl = r.rl AND bs.cv = c.cv
     ORDER BY r.ord, c.ord;
END
$$;

-- ORION's grid of a metric, whole: one row per row of the study (a
-- matrix's large load), the column labels (a matrix's small loads) and the
-- cells under them, NULL where no completed point is.  What the exports
-- and charts read; ranread_study_grid rounds it.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_study_grid_raw(
    study    bigint,
    metric   text DEFAULT 'iops',
    columns  text DEFAULT NULL,
    fn       text DEFAULT 'ranread_study_grid')
RETURNS TABLE (row_label text, column_labels text[], cells float8[])
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT c.row_label,
           array_agg(c.column_label ORDER BY c.column_ord),
           array_agg(c.value ORDER BY c.column_ord)
      FROM ranread_internal.ranread_study_cells(study, metric, columns, fn) c
     GROUP BY c.row_label, c.row_ord
     ORDER BY c.row_ord
$$;

-- The grid as a person reads it: IOPS whole, MiB/s to 0.1, ms to 0.001
-- (ranread_internal.ranread_study_grid_raw has the cells whole).
CREATE OR REPLACE FUNCTION @extschema@.ranread_study_grid(
    study    bigint,
    metric   text DEFAULT 'iops',
    columns  text DEFAULT NULL)
RETURNS TABLE (row_label text, column_labels text[], cells numeric[])
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    WITH m AS (SELECT CASE x.column_name WHEN 'iops' THEN 0 WHEN 'mbps' THEN 1 ELSE 3 END AS places
                 FROM ranread_internal.ranread_study_metric(metric, 'ranread_study_grid') x)
    SELECT g.row_label, g.column_labels,
           ARRAY(SELECT ranread_internal.ranread_round(u.v, (SELECT m.places FROM m))
                   FROM unnest(g.cells) WITH ORDINALITY u(v, i) ORDER BY u.i)
      FROM ranread_internal.ranread_study_grid_raw(study, metric, columns, 'ranread_study_grid')
           WITH ORDINALITY g(row_label, column_labels, cells, ord)
     ORDER BY g.ord
$$;

-- Where a point is, as a summary line says it: "Small=4 and Large=0" for a
-- matrix (ORION's words), else "processes=8, write_pct=10".
CREATE OR REPLACE FUNCTION ranread_internal.ranread_study_where(point jsonb)
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN point ? 'small' OR point ? 'large'
                THEN format('Small=%s and Large=%s', coalesce(point ->> 'small', '0'), coalesce(point ->> 'large', '0'))
                     || coalesce(', ' || (SELECT string_agg(format('%s=%s', e.key, e.value #>> '{}'), ', ' ORDER BY e.key)
                                            FROM jsonb_each(point) e
                                           WHERE e.key NOT IN ('n', 'small', 'large')), '')
                ELSE (SELECT string_agg(format('%s=%s', e.key, e.value #>> '{}'), ', ' ORDER BY e.key)
                        FROM jsonb_each(point) e WHERE e.key NOT IN ('n')) END
$$;

-- The latency bound of a study's summary or chart: max_avg_ms when given
-- (greater than 0; what says what it bounds, for the hint), else the
-- study's, else 10.  fn is the function the user called.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_study_bound(study bigint, max_avg_ms float8, fn text, what text)
RETURNS float8
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF max_avg_ms IS NOT NULL AND NOT (max_avg_ms > 0) OR max_avg_ms = 'NaN'::float8 THEN
        RAISE EXCEPTION USING
            ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('invalid max_avg_ms %s for %s', max_avg_ms, fn),
            HINT = format('max_avg_ms is %s in milliseconds: greater than 0, or NULL for the study''s.', what);
    END IF;
    -- a stored bound that is not a finite number above 0 (a row of 1.1 that
    -- no study made) is none
    RETURN coalesce(max_avg_ms,
                    (SELECT s.max_avg_ms FROM @extschema@.ranread_studies s
                      WHERE s.study OPERATOR(pg_catalog.=) ranread_study_bound.study
                        AND s.max_avg_ms > 0 AND s.max_avg_ms < 'Infinity'::float8), 10);
END
$$;

-- A study's summary, as ORION's _summary.txt: the maxima and minima and
-- where they were reached.  For a matrix: Maximum Large MBPS, Maximum Small
-- IOPS, Minimum Small Latency (in usecs, as ORION 11.2 prints it); else
-- Maximum IOPS, Maximum MBPS, Minimum Latency, and the Maximum IOPS whose
-- average latency is within the bound (max_avg_ms; the study's, else 10).
-- The values whole; ranread_study_summary rounds them.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_study_summary_raw(
    study       bigint,
    max_avg_ms  float8 DEFAULT NULL)
RETURNS TABLE (item text, value float8, unit text, point jsonb, batch bigint, line text)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    fn     constant text := 'ranread_study_summary';
    bound  float8;
    is_mix boolean;
BEGIN
    PERFORM ranread_internal.ranread_study_check(study, fn);
    bound := ranread_internal.ranread_study_bound(study, max_avg_ms, fn, 'the bound on average latency');
    is_mix := EXISTS (SELECT FROM @extschema@.ranread_batches b
                       WHERE b.study OPERATOR(pg_catalog.=) ranread_study_summary_raw.study AND b.point ? 'small'
                         AND ranread_internal.ranread_study_point_ok(b.point));

    RETURN QUERY
    WITH p AS (
        SELECT * FROM ranread_internal.ranread_study_points_raw x
         WHERE x.study OPERATOR(pg_catalog.=) ranread_study_summary_raw.study AND x.status = 'completed'),
    -- each point's value of each item (NULL: the point does not count)
    vals AS (
        SELECT p.n, p.point, p.batch, v.col, v.v
          FROM p CROSS JOIN LATERAL (VALUES
               ('large_mbps', p.large_mbps),
               ('small_iops', p.small_iops),
               ('small_avg_us', p.small_avg_ms * 1000),
               ('iops', p.iops),
               ('mbps', p.mbps),
               ('avg_us', p.avg_ms * 1000),
               ('iops_within', CASE WHEN p.avg_ms <= bound THEN p.iops END)) v(col, v)),
    -- the items of a mixed study (large and small) or of a plain one, each
    -- the largest (or smallest) value of the points, the first point on a tie
    items AS (
        SELECT m.ord, m.it, m.u, x.*
          FROM (VALUES
               (true, 1, 'Maximum Large MBPS', 'MiB/s', 'large_mbps', true),
               (true, 2, 'Maximum Small IOPS', 'IOPS', 'small_iops', true),
               (true, 3, 'Minimum Small Latency', 'usecs', 'small_avg_us', false),
               (false, 1, 'Maximum IOPS', 'IOPS', 'iops', true),
               (false, 2, 'Maximum MBPS', 'MiB/s', 'mbps', true),
               (false, 3, 'Minimum Latency', 'usecs', 'avg_us', false),
               (false, 4, format('Maximum IOPS within %s ms', bound), 'IOPS', 'iops_within', true)
               ) m(mix, ord, it, u, col, largest)
          LEFT JOIN LATERAL (
               SELECT c.v, c.point AS pt, c.batch AS b FROM vals c
                WHERE c.col = m.col AND c.v IS NOT NULL
                ORDER BY CASE WHEN m.largest THEN c.v END DESC, c.v, c.n LIMIT 1) x ON true
         WHERE m.mix = is_mix)
    SELECT i.it, i.v, i.u, i.pt - 'n', i.b,
           CASE WHEN i.v IS NULL THEN format('%s: none', i.it)
                ELSE format('%s=%s%s @ %s', i.it, to_char(i.v, 'FM999999990.00'),
                            CASE i.u WHEN 'usecs' THEN ' usecs' ELSE '' END,
                            ranread_internal.ranread_study_where(i.pt)) END
      FROM items i
     ORDER BY i.ord;
END
$$;

-- A study's summary as a person reads it: IOPS whole, MiB/s to 0.1, usecs
-- to 0.01 (as the line prints them).
CREATE OR REPLACE FUNCTION @extschema@.ranread_study_summary(
    study       bigint,
    max_avg_ms  float8 DEFAULT NULL)
RETURNS TABLE (item text, value numeric, unit text, point jsonb, batch bigint, line text)
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT s.item,
           ranread_internal.ranread_round(s.value, CASE s.unit WHEN 'IOPS' THEN 0 WHEN 'MiB/s' THEN 1 ELSE 2 END),
           s.unit, s.point, s.batch, s.line
      FROM ranread_internal.ranread_study_summary_raw(study, max_avg_ms) s
$$;
-- 1.1, charts that compare, drawn by the one renderer (ranread_svg,
-- 30_charts.sql): latency against IOPS with one curve per row of a study,
-- per study or per sweep, a line at the latency bound and a table of the
-- IOPS each curve gives at the bound with its gain against the first (the
-- ORION article's +55% chart); a heat table of a study's grid; bars for a
-- profile.  The rule that reads a curve at the bound is a pure function,
-- tested on known numbers.

-- The IOPS of a curve at a latency bound: its points in order of load, the
-- first crossing of the bound read by linear interpolation between the
-- last point within it and the first above it ('crossed'); the highest
-- IOPS measured when no point is above it ('within': the curve gives at
-- least that); NULL when the first point is already above ('above').
-- Points with a NULL in either array are left out.  Pure.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_iops_at_bound(
    iops   float8[],
    lat    float8[],
    bound  float8,
    OUT iops_at_bound float8,
    OUT how text)
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    i       integer;
    px      float8;
    py      float8;
    best    float8;
BEGIN
    FOR i IN 1 .. coalesce(least(cardinality(iops), cardinality(lat)), 0) LOOP
        CONTINUE WHEN iops[i] IS NULL OR lat[i] IS NULL;
        IF lat[i] <= bound THEN
            best := greatest(best, iops[i]);
            px := iops[i];
            py := lat[i];
            CONTINUE;
        END IF;
        IF px IS NULL THEN
            how := 'above';
            RETURN;
        END IF;
        iops_at_bound := px + (bound - py) / (lat[i] - py) * (iops[i] - px);
        how := 'crossed';
        RETURN;
    END LOOP;
    IF best IS NOT NULL THEN
        iops_at_bound := best;
        how := 'within';
    END IF;
END
$$;

-- The latency a chart shows: 'avg' or 'p99'; its metric and axis label.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_chart_latency(latency text, fn text,
    OUT metric text, OUT label text)
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    CASE lower(coalesce(latency, ''))
        WHEN 'avg', 'avg_ms' THEN metric := 'avg_ms'; label := 'Average';
        WHEN 'p99', 'p99_ms' THEN metric := 'p99_ms'; label := 'p99';
        ELSE
            RAISE EXCEPTION USING
                ERRCODE = 'invalid_parameter_value',
                MESSAGE = format('invalid latency %s for %s', coalesce(quote_literal(latency), 'NULL'), fn),
                HINT = 'latency is ''avg'' (average latency) or ''p99''.';
    END CASE;
END
$$;

-- The axes of a study's grid, from its points: the dimension along the
-- columns (columns, or the one ranread_study_axes chooses) and those of
-- the rows; fn names the caller in errors.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_study_points_axes(
    study bigint, columns text, fn text, OUT column_dim text, OUT row_dims text[])
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT a.column_dim, a.row_dims
      FROM ranread_internal.ranread_study_axes(ARRAY(SELECT b.point FROM @extschema@.ranread_batches b
                                                 WHERE b.study OPERATOR(pg_catalog.=) ranread_study_points_axes.study
                                                   AND ranread_internal.ranread_study_point_ok(b.point)),
                                          columns, fn) a
$$;

-- That a sweep has steps in the history, or an error for fn that says so.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_sweep_known(sweep bigint, fn text)
RETURNS void
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    -- (a C function: it also loads the library, whose hook keeps this
    -- function's frame out of the CONTEXT of the error below, forward.c)
    PERFORM ranread_internal.ranread_require(fn, 'sweep', sweep, 'ranread_sweep_verdict lists the sweeps.');
    IF NOT EXISTS (SELECT FROM @extschema@.ranread_batches b
                    WHERE b.sweep OPERATOR(pg_catalog.=) ranread_sweep_known.sweep) THEN
        RAISE EXCEPTION USING
            ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('invalid sweep %s for %s: no step of it is in the history', sweep, fn),
            HINT = 'ranread_sweep_verdict lists the sweeps.';
    END IF;
END
$$;

-- A figure as the reports' tables print it: three significant digits
-- below 100 (1.23, 12.3), a count with separators from 100 up (12,345),
-- from 10^15 up in exponent form (1.2e18) as the renderer prints it; NaN is
-- n/a, -0 is 0.  Not the renderer's count (C ranread_fmt_count, a spec's
-- {"count": n}), which rounds every figure to a whole number.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_fmt_figure(v float8)
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN v IS NULL OR v = 'NaN'::float8 THEN 'n/a'
                WHEN v = 'Infinity'::float8 THEN 'Infinity'
                WHEN v = '-Infinity'::float8 THEN '-Infinity'
                WHEN abs(v) >= 1e15 THEN regexp_replace(btrim(to_char(v, '9.99EEEE')), '\.?0*e\+?0*', 'e')
                WHEN abs(v) >= 100 THEN to_char(round(v::numeric), 'FM999,999,999,999,990')
                WHEN abs(v) >= 10 THEN to_char(v, 'FM990.0')
                ELSE to_char(CASE WHEN v = 0 THEN 0 ELSE v END, 'FM990.00') END
$$;

-- The spec of a comparison chart, and the chart: curves (a JSON array of
-- {"label", "x": IOPS, "y": latency in ms} in order of load), the bound as
-- a line, and under it a table with each curve's IOPS at the bound and its
-- gain against the first curve.  Pure.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_curves_spec(
    title     text,
    subtitle  text,
    curves    jsonb,
    latency   text,
    bound     float8,
    notes     jsonb DEFAULT NULL)
RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    WITH c AS (
        SELECT i, e ->> 'label' AS label, e -> 'labels' AS labels, e -> 'texts' AS texts,
               ARRAY(SELECT (v #>> '{}')::float8 FROM jsonb_array_elements(e -> 'x') WITH ORDINALITY x(v, k) ORDER BY k) AS xs,
               ARRAY(SELECT (v #>> '{}')::float8 FROM jsonb_array_elements(e -> 'y') WITH ORDINALITY y(v, k) ORDER BY k) AS ys
          FROM jsonb_array_elements(curves) WITH ORDINALITY s(e, i)),
    b AS (
        SELECT c.*, a.iops_at_bound, a.how,
               (SELECT max(x) FROM unnest(c.xs) x) AS max_iops
          FROM c, LATERAL ranread_internal.ranread_iops_at_bound(c.xs, c.ys, bound) a),
    first AS (SELECT iops_at_bound FROM b WHERE i = 1)
    SELECT jsonb_strip_nulls(jsonb_build_object(
        'title', title,
        'subtitle', subtitle,
        'x', jsonb_build_object('label', 'IOPS (I/O operations per second)', 'log', 'auto', 'format', 'count'),
        'y', jsonb_build_object('label', latency || ' latency (ms)'),
        'empty', 'No completed point to draw',
        'series', (SELECT coalesce(jsonb_agg(jsonb_strip_nulls(jsonb_build_object('label', b.label,
                                                                'x', to_jsonb(b.xs), 'y', to_jsonb(b.ys),
                                                                'labels', b.labels, 'texts', b.texts))
                                             ORDER BY b.i), '[]') FROM b),
        'lines', jsonb_build_array(jsonb_build_object(
                     'value', bound, 'label', format('bound %s ms', bound),
                     'legend', format('%s latency bound %s ms', latency, bound))),
        'table', jsonb_build_object(
            'header', jsonb_build_array('Curve', format('IOPS at %s ms', bound), 'vs first',
                                        'Max IOPS'),
            'align', jsonb_build_array('left', 'right', 'right', 'right'),
            'rows', (SELECT coalesce(jsonb_agg(jsonb_build_array(
                        b.label,
                        CASE b.how WHEN 'crossed' THEN to_jsonb(ranread_internal.ranread_fmt_figure(b.iops_at_bound))
                                   WHEN 'within' THEN jsonb_build_object('text', '>= ' || ranread_internal.ranread_fmt_figure(b.iops_at_bound), 'tone', 'plain')
                                   ELSE jsonb_build_object('text', 'above from the start', 'tone', 'bad') END,
                        CASE WHEN b.i = 1 THEN jsonb_build_object('text', 'reference', 'tone', 'muted')
                             WHEN b.iops_at_bound IS NULL OR f.iops_at_bound IS NULL OR f.iops_at_bound <= 0
                                  THEN jsonb_build_object('text', 'n/a', 'tone', 'muted')
                             ELSE jsonb_build_object(
                                      'text', to_char(round((100 * (b.iops_at_bound / f.iops_at_bound - 1))::numeric), 'FMSG999990') || '%',
                                      'tone', CASE WHEN b.iops_at_bound >= f.iops_at_bound THEN 'good' ELSE 'bad' END) END,
                        ranread_internal.ranread_fmt_figure(b.max_iops)) ORDER BY b.i), '[]')
                       FROM b LEFT JOIN first f ON true),
            'more', format('IOPS at the bound: where each curve crosses %s ms (linear between the two points around it); ">=" where it never does.', bound)),
        'notes', notes))
$$;

-- The study's points as curves: one per row, x the IOPS and y the latency
-- of each column in order (a matrix: the small I/O's).
CREATE OR REPLACE FUNCTION ranread_internal.ranread_study_curves(
    study bigint, latency_metric text, columns text, fn text)
RETURNS jsonb
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    -- one curve alone has its points labelled by their load ("Small=4",
    -- as ORION names a point): with several, the labels would crowd
    SELECT coalesce(jsonb_agg(jsonb_build_object('label', r.row_label, 'x', to_jsonb(r.xs), 'y', to_jsonb(r.ys))
                              || CASE WHEN r.curves = 1
                                      THEN jsonb_build_object('labels', true, 'texts', to_jsonb(r.loads))
                                      ELSE '{}' END
                              ORDER BY r.row_ord), '[]')
      FROM (SELECT x.row_label, x.row_ord, count(*) OVER () AS curves,
                   array_agg(x.value ORDER BY x.column_ord) AS xs,
                   array_agg(y.value ORDER BY x.column_ord) AS ys,
                   array_agg(initcap(ax.column_dim) || '=' || x.column_label ORDER BY x.column_ord) AS loads
              FROM ranread_internal.ranread_study_cells(study, 'iops', columns, fn) x
              JOIN ranread_internal.ranread_study_cells(study, latency_metric, columns, fn) y
                USING (row_label, column_label)
              CROSS JOIN ranread_internal.ranread_study_points_axes(study, columns, fn) ax
             GROUP BY x.row_label, x.row_ord) r
$$;

-- What a study ran, for a subtitle: its fixed coordinates, target and
-- tablespace, duration per point, when.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_study_caption(study bigint)
RETURNS text
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT format('study %s%s: %s points on target %s (tablespace %s), %s s each%s, %s',
                  ranread_study_caption.study,
                  CASE WHEN s.kind IS NOT NULL AND s.kind <> 'study' THEN ' (' || s.kind || ')' ELSE '' END,
                  count(*), min(b.target), coalesce(min(b.tablespace), 'n/a'),
                  round(avg(b.seconds)::numeric, 1),
                  coalesce(', ' || (SELECT string_agg(ranread_internal.ranread_study_label(k.key, k.value), ', ' ORDER BY k.key)
                                      FROM (SELECT e.key, min(e.value::text)::jsonb AS value
                                              FROM @extschema@.ranread_batches x,
                                                   jsonb_each(CASE WHEN ranread_internal.ranread_study_point_ok(x.point)
                                                                   THEN x.point ELSE '{}' END) e
                                             WHERE x.study OPERATOR(pg_catalog.=) ranread_study_caption.study
                                               AND e.key NOT IN ('n', 'pass')
                                             GROUP BY e.key
                                            HAVING count(DISTINCT e.value) = 1
                                               AND count(*) = (SELECT count(*) FROM @extschema@.ranread_batches y
                                                                WHERE y.study OPERATOR(pg_catalog.=) ranread_study_caption.study
                                                                  AND ranread_internal.ranread_study_point_ok(y.point))) k), ''),
                  to_char(min(b.run_at), 'YYYY-MM-DD HH24:MI'))
      FROM @extschema@.ranread_batches b
      LEFT JOIN @extschema@.ranread_studies s ON s.study OPERATOR(pg_catalog.=) b.study
     WHERE b.study OPERATOR(pg_catalog.=) ranread_study_caption.study
       AND ranread_internal.ranread_study_point_ok(b.point)
     GROUP BY s.kind
$$;

-- SVG: latency against IOPS, one curve per row of a study (its dimensions
-- but the columns', which run along each curve), the bound, and the table of
-- IOPS at the bound with the gain against the first curve.
CREATE OR REPLACE FUNCTION @extschema@.ranread_study_chart(
    study       bigint,
    latency     text   DEFAULT 'avg',
    columns     text   DEFAULT NULL,
    max_avg_ms  float8 DEFAULT NULL)
RETURNS text
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    fn     constant text := 'ranread_study_chart';
    lat    record;
    ax     record;
    bound  float8;
    curves jsonb;
    n      integer;
BEGIN
    PERFORM ranread_internal.ranread_study_check(study, fn);
    SELECT * INTO lat FROM ranread_internal.ranread_chart_latency(latency, fn);
    bound := ranread_internal.ranread_study_bound(study, max_avg_ms, fn, 'the latency bound');
    SELECT * INTO ax FROM ranread_internal.ranread_study_points_axes(study, columns, fn);
    curves := ranread_internal.ranread_study_curves(study, lat.metric, columns, fn);
    n := jsonb_array_length(curves);
    -- a chart draws at most 12 curves (ranread_svg): of a study with more
    -- rows, 12 evenly spaced ones, the first and the last among them, and
    -- the title says so (a long caption is cut short)
    IF n > 12 THEN
        SELECT jsonb_agg(curves -> k ORDER BY k) INTO curves
          FROM (SELECT DISTINCT round(i * (n - 1) / 11.0)::integer AS k FROM generate_series(0, 11) i) picked;
    END IF;
    RETURN @extschema@.ranread_svg(ranread_internal.ranread_curves_spec(
        format('%s latency against IOPS%s, along %s%s',
               lat.label,
               CASE WHEN cardinality(ax.row_dims) = 0 THEN ''
                    ELSE ' by ' || array_to_string(ax.row_dims, ' and ') END,
               ax.column_dim,
               CASE WHEN n > 12 THEN format(' (12 of %s rows, evenly spaced)', n) ELSE '' END),
        ranread_internal.ranread_study_caption(study),
        curves, lat.label, bound));
END
$$;

-- SVG: latency against IOPS, one curve per row of each study (its points in
-- order of load) and per sweep (its steps), labelled with labels or with each one's id and
-- tablespace: the same storage on two tablespaces, before and after a
-- change, two regions of a disk.
CREATE OR REPLACE FUNCTION @extschema@.ranread_compare_chart(
    studies     bigint[] DEFAULT NULL,
    sweeps      bigint[] DEFAULT NULL,
    latency     text     DEFAULT 'avg',
    max_avg_ms  float8   DEFAULT 10,
    labels      text[]   DEFAULT NULL,
    title       text     DEFAULT NULL)
RETURNS text
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    fn     constant text := 'ranread_compare_chart';
    lat    record;
    curves jsonb := '[]';
    id     bigint;
    k      integer := 0;
    c      jsonb;
    name   text;
    what   text[] := '{}';
BEGIN
    SELECT * INTO lat FROM ranread_internal.ranread_chart_latency(latency, fn);
    IF coalesce(cardinality(studies), 0) + coalesce(cardinality(sweeps), 0) = 0 THEN
        RAISE EXCEPTION USING
            ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('%s needs studies or sweeps to compare', fn),
            HINT = 'Pass studies => ''{3,4}'' and/or sweeps => ''{1,2}'' (at most 12 curves in all).';
    END IF;
    IF coalesce(cardinality(studies), 0) + coalesce(cardinality(sweeps), 0) > 12 THEN
        RAISE EXCEPTION USING
            ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('%s compares at most 12 curves, not %s', fn,
                             coalesce(cardinality(studies), 0) + coalesce(cardinality(sweeps), 0)),
            HINT = 'Compare fewer studies and sweeps at once.';
    END IF;
    IF max_avg_ms IS NULL OR NOT (max_avg_ms > 0) OR max_avg_ms = 'NaN'::float8 THEN
        RAISE EXCEPTION USING
            ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('invalid max_avg_ms %s for %s', coalesce(max_avg_ms::text, 'NULL'), fn),
            HINT = 'max_avg_ms is the latency bound in milliseconds: greater than 0, such as 10.';
    END IF;

    FOREACH id IN ARRAY coalesce(studies, '{}') LOOP
        k := k + 1;
        PERFORM ranread_internal.ranread_study_check(id, fn);
        -- a curve per row of the study (a study of write percentages is
        -- one curve each, not one line through them all), named by the
        -- study and, when it has several rows, by the row
        SELECT coalesce(labels[k], format('study %s (%s)', id, coalesce(min(p.tablespace), min(p.target))))
          INTO name
          FROM ranread_internal.ranread_study_points_raw p
         WHERE p.study OPERATOR(pg_catalog.=) id;
        c := ranread_internal.ranread_study_curves(id, lat.metric, NULL, fn);
        SELECT coalesce(jsonb_agg(r.e || jsonb_build_object(
                   'label', CASE WHEN jsonb_array_length(c) > 1 THEN name || ': ' || (r.e ->> 'label') ELSE name END)
                   ORDER BY r.i), '[]')
          INTO c
          FROM jsonb_array_elements(c) WITH ORDINALITY r(e, i);
        curves := curves || c;
        what := what || ('study ' || id);
    END LOOP;
    FOREACH id IN ARRAY coalesce(sweeps, '{}') LOOP
        k := k + 1;
        PERFORM ranread_internal.ranread_sweep_known(id, fn);
        SELECT jsonb_build_object(
                   'label', coalesce(labels[k], format('sweep %s (%s)', id, coalesce(min(s.tablespace), min(s.target)))),
                   'x', coalesce(jsonb_agg(s.iops ORDER BY s.processes, s.batch) FILTER (WHERE s.status = 'completed'), '[]'),
                   'y', coalesce(jsonb_agg(CASE lat.metric WHEN 'avg_ms' THEN s.avg_ms ELSE s.p99_ms END
                                           ORDER BY s.processes, s.batch) FILTER (WHERE s.status = 'completed'), '[]'))
          INTO c
          FROM ranread_internal.ranread_summary_raw s
         WHERE s.sweep OPERATOR(pg_catalog.=) id;
        curves := curves || c;
        what := what || ('sweep ' || id);
    END LOOP;
    IF jsonb_array_length(curves) > 12 THEN
        RAISE EXCEPTION USING
            ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('%s compares at most 12 curves, not %s (a curve per row of each study, one per sweep)',
                             fn, jsonb_array_length(curves)),
            HINT = 'Compare fewer studies and sweeps at once, or studies of fewer rows.';
    END IF;

    RETURN @extschema@.ranread_svg(ranread_internal.ranread_curves_spec(
        coalesce(title, format('%s latency against IOPS: %s', lat.label, array_to_string(what, ', '))),
        format('one curve per %s; the table gives the IOPS each reaches at the %s ms bound',
               CASE WHEN studies IS NOT NULL AND sweeps IS NOT NULL THEN 'row of a study and per sweep'
                    WHEN studies IS NOT NULL THEN 'row of a study' ELSE 'sweep' END, max_avg_ms),
        curves, lat.label, max_avg_ms));
END
$$;

-- SVG: a heat table of a study's grid, each cell coloured by the metric
-- and printed, rows x columns as in ranread_study_grid.
CREATE OR REPLACE FUNCTION @extschema@.ranread_study_heat(
    study    bigint,
    metric   text DEFAULT 'iops',
    columns  text DEFAULT NULL)
RETURNS text
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    fn  constant text := 'ranread_study_heat';
    m   record;
    ax  record;
    g   record;
BEGIN
    PERFORM ranread_internal.ranread_study_check(study, fn);
    SELECT * INTO m FROM ranread_internal.ranread_study_metric(metric, fn);
    SELECT * INTO ax FROM ranread_internal.ranread_study_points_axes(study, columns, fn);
    SELECT jsonb_agg(to_jsonb(r.row_label) ORDER BY r.ord) AS rows,
           (SELECT to_jsonb(x.column_labels) FROM ranread_internal.ranread_study_grid_raw(study, metric, columns) x LIMIT 1) AS cols,
           jsonb_agg(to_jsonb(r.cells) ORDER BY r.ord) AS vals
      INTO g
      FROM (SELECT x.row_label, x.cells, row_number() OVER () AS ord
              FROM ranread_internal.ranread_study_grid_raw(study, metric, columns) x) r;
    RETURN @extschema@.ranread_svg(jsonb_build_object(
        'kind', 'heat',
        'title', format('%s by %s and %s', m.label,
                        CASE WHEN cardinality(ax.row_dims) = 0 THEN 'study' ELSE array_to_string(ax.row_dims, ' and ') END,
                        ax.column_dim),
        'subtitle', ranread_internal.ranread_study_caption(study),
        'x', jsonb_build_object('label', ax.column_dim),
        'y', jsonb_build_object('label', CASE WHEN cardinality(ax.row_dims) = 0 THEN 'study'
                                              ELSE array_to_string(ax.row_dims, ', ') END),
        'heat', jsonb_strip_nulls(jsonb_build_object('rows', g.rows, 'columns', g.cols, 'values', g.vals,
                                   'metric', m.label, 'log', 'auto',
                                   'format', CASE WHEN m.column_name = 'iops' THEN 'count' ELSE 'number' END,
                                   'colors', CASE WHEN m.higher_is_better THEN NULL
                                                  ELSE '["#fde725", "#5ec962", "#21918c", "#3b528b", "#440154"]'::jsonb END))));
END
$$;
-- 1.1, profiles: the workloads people compare storage by, each a study with
-- a fixed definition (ranread_profile_points, pure), run by the study
-- executor (40_study.sql), reported as the tool it imitates reports:
-- crystaldiskmark        CrystalDiskMark 8's Default preset: SEQ1M Q8T1,
-- SEQ1M Q1T1, RND4K Q32T1, RND4K Q1T1, read then write crystaldiskmark-nvme
-- its NVMe SSD preset: SEQ1M Q8T1, SEQ128K Q32T1, RND4K Q32T16, RND4K Q1T1
-- crystaldiskmark-real   its Real World Performance profile: SEQ1M Q1T1,
-- RND4K Q1T1 (each test: a first pass with an unmeasured "Preparing" run of
-- the same length, then passes passes, the best MB/s and lowest latency
-- kept) orion-oltp             ORION -run oltp: 8 KiB random reads at small
-- loads 1 .. 5 x num_disks (matrix row, large 0) orion-dss
-- ORION -run dss: 1 MiB random reads at large loads 1 .. 2 x num_disks
-- (matrix col, small 0) orion-normal           ORION -run normal: every
-- combination of small loads 0 .. 5 x num_disks and large 0 .. 2 x
-- num_disks snia-latency           SNIA PTS's latency test: random 0.5, 4
-- and 8 KiB at R/W 100/0, 65/35, 0/100, one thread at QD1: average, 99.999%
-- and maximum latency  The user calls ranread_profile,
-- ranread_profile_report and ranread_profile_chart; the definitions and
-- ranread_profile's steps (check the arguments, plan the runs, run them as
-- a study, report) are in schema ranread_internal.

-- Is block_size usable on target (the direct I/O alignment)?  No I/O.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_block_size_ok(target name, block_size integer)
RETURNS boolean
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM @extschema@.ranread_blocks(1, 1, target, block_size);
    RETURN true;
EXCEPTION WHEN invalid_parameter_value THEN
    RETURN false;
END
$$;

-- The names of the profiles, for hints and docs.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_profile_names()
RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
    SELECT ARRAY['crystaldiskmark', 'crystaldiskmark-nvme', 'crystaldiskmark-real',
                 'orion-oltp', 'orion-dss', 'orion-normal', 'snia-latency']
$$;

-- A profile's points, as ranread_study_execute runs them: {"point",
-- "groups", "warmup"}.  passes (CrystalDiskMark) and num_disks (ORION)
-- scale the definition; writes false leaves CrystalDiskMark's write tests
-- out; small_blocks false leaves SNIA's 0.5 KiB out (a target whose direct
-- I/O alignment is larger cannot do them).  ranread writes whole pages
-- (page_size, the server's block size), so writes of smaller blocks
-- (CrystalDiskMark's RND4K, SNIA's 0.5 and 4 KiB mixes) are left out.  Pure.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_profile_points(
    name          text,
    target        name     DEFAULT 'ranread',
    duration      interval DEFAULT '5s',
    passes        integer  DEFAULT 3,
    num_disks     integer  DEFAULT 1,
    writes        boolean  DEFAULT true,
    small_blocks  boolean  DEFAULT true,
    page_size     integer  DEFAULT 8192)
RETURNS jsonb
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    tests jsonb;
    pts   jsonb := '[]';
    t     jsonb;
    mode  text;
    pass  integer;
    p     jsonb;
    points jsonb[];
BEGIN
    IF name LIKE 'crystaldiskmark%' THEN
        tests := CASE name
            WHEN 'crystaldiskmark' THEN
                '[["SEQ1M Q8T1", "sequential", 1048576, 8, 1], ["SEQ1M Q1T1", "sequential", 1048576, 1, 1],
                  ["RND4K Q32T1", "random", 4096, 32, 1], ["RND4K Q1T1", "random", 4096, 1, 1]]'
            WHEN 'crystaldiskmark-nvme' THEN
                '[["SEQ1M Q8T1", "sequential", 1048576, 8, 1], ["SEQ128K Q32T1", "sequential", 131072, 32, 1],
                  ["RND4K Q32T16", "random", 4096, 32, 16], ["RND4K Q1T1", "random", 4096, 1, 1]]'
            WHEN 'crystaldiskmark-real' THEN
                '[["SEQ1M Q1T1", "sequential", 1048576, 1, 1], ["RND4K Q1T1", "random", 4096, 1, 1]]'
            END::jsonb;
        IF tests IS NULL THEN
            RETURN NULL;
        END IF;
        FOREACH mode IN ARRAY CASE WHEN writes THEN ARRAY['read', 'write'] ELSE ARRAY['read'] END LOOP
            FOR t IN SELECT e FROM jsonb_array_elements(tests) WITH ORDINALITY x(e, i) ORDER BY i LOOP
                CONTINUE WHEN mode = 'write' AND (t ->> 2)::integer % page_size <> 0;
                FOR pass IN 1 .. passes LOOP
                    pts := pts || jsonb_build_object(
                        'point', jsonb_build_object('test', t ->> 0, 'mode', mode, 'pass', pass),
                        'warmup', CASE WHEN pass = 1 THEN duration ELSE interval '0' END,
                        'groups', jsonb_build_array(jsonb_build_object(
                            'target', target, 'pattern', t ->> 1, 'block_size', (t ->> 2)::integer,
                            'queue_depth', (t ->> 3)::integer, 'processes', (t ->> 4)::integer,
                            'write_pct', CASE mode WHEN 'read' THEN 0 ELSE 100 END)));
                END LOOP;
            END LOOP;
        END LOOP;
        RETURN pts;
    END IF;

    IF name IN ('orion-oltp', 'orion-dss', 'orion-normal') THEN
        points := ARRAY(
            SELECT g.point
              FROM ranread_internal.ranread_study_grid_points(
                       CASE name
                           WHEN 'orion-oltp' THEN jsonb_build_object('small', to_jsonb(ARRAY(SELECT generate_series(1, 5 * num_disks))), 'large', '[0]'::jsonb)
                           WHEN 'orion-dss' THEN jsonb_build_object('small', '[0]'::jsonb, 'large', to_jsonb(ARRAY(SELECT generate_series(1, 2 * num_disks))))
                           ELSE jsonb_build_object('small', to_jsonb(ARRAY(SELECT generate_series(0, 5 * num_disks))),
                                                   'large', to_jsonb(ARRAY(SELECT generate_series(0, 2 * num_disks))))
                       END,
                       CASE name WHEN 'orion-oltp' THEN 'row' WHEN 'orion-dss' THEN 'col' ELSE 'detailed' END) g
             ORDER BY g.n);
    ELSIF name = 'snia-latency' THEN
        points := ARRAY(
            SELECT jsonb_build_object('block_size', bs, 'write_pct', w)
              FROM unnest(CASE WHEN small_blocks THEN ARRAY[512, 4096, 8192] ELSE ARRAY[4096, 8192] END)
                   WITH ORDINALITY b(bs, i),
                   unnest(ARRAY[0, 35, 100]) WITH ORDINALITY m(w, j)
             WHERE w = 0 OR bs % page_size = 0
             ORDER BY i, j);
    ELSE
        RETURN NULL;
    END IF;
    -- ORION's and SNIA's points, each with its groups as a study's grid has them
    FOREACH p IN ARRAY points LOOP
        pts := pts || jsonb_build_object('point', p,
                                         'groups', ranread_internal.ranread_study_groups(p, target));
    END LOOP;
    RETURN pts;
END
$$;

-- A CrystalDiskMark test as its window prints it:
--   SEQ    1MiB (Q=  8, T= 1):  3514.385 MB/s [   3351.6 IOPS] <  2385.10 us>
-- (MB/s in decimal megabytes, as CrystalDiskMark counts them).
CREATE OR REPLACE FUNCTION ranread_internal.ranread_cdm_line(test text, block_size integer,
    queue_depth integer, processes integer, iops float8, avg_us float8)
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT format('  %s %7s (Q=%3s, T=%2s): %9s MB/s [%9s IOPS] <%10s us>',
                  left(test, 3),
                  CASE WHEN block_size % 1048576 = 0 THEN (block_size / 1048576) || 'MiB'
                       ELSE (block_size / 1024) || 'KiB' END,
                  queue_depth, processes,
                  coalesce(to_char(iops * block_size / 1e6, 'FM999990.000'), 'n/a'),
                  coalesce(to_char(iops, 'FM9999990.0'), 'n/a'),
                  coalesce(to_char(avg_us, 'FM9999990.00'), 'n/a'))
$$;

-- Step: ranread_profile's arguments, before anything runs: the profile is
-- known, the options of another tool's profile are not given, and each
-- option is NULL (the tool's own) or within what the tool offers.  The
-- first check that fails (in this order) is raised.  Returns the length of
-- each run: duration, or the tool's own.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_profile_check(name text, duration interval,
    passes integer, num_disks integer, writes boolean, workers integer)
RETURNS interval
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    fn        constant text := 'ranread_profile';
    max_disks constant integer := (SELECT l.max_processes / 5 FROM @extschema@.ranread_limits() l);
    bad       ranread_internal.ranread_check;
BEGIN
    bad := ranread_internal.ranread_first_failed(ARRAY[
        (name IS NULL OR NOT (name = ANY (ranread_internal.ranread_profile_names())),
         CASE WHEN name IS NULL THEN 'null_value_not_allowed' ELSE 'invalid_parameter_value' END,
         format('unknown profile %s for %s', coalesce(quote_literal(name), 'NULL'), fn),
         format('The profiles are %s.', array_to_string(ranread_internal.ranread_profile_names(), ', '))),
        (duration <= interval '0', 'invalid_parameter_value',
         format('invalid duration %s for %s', quote_literal(duration), fn),
         'duration is the length of each run: greater than 0, or NULL for the tool''s own (CrystalDiskMark 5 s, ORION and SNIA 60 s).'),
        (passes IS NOT NULL AND name NOT LIKE 'crystaldiskmark%', 'invalid_parameter_value',
         format('passes does not apply to profile %s of %s', name, fn),
         'passes is the number of measured passes of a CrystalDiskMark test.'),
        (passes < 1 OR passes > 9, 'invalid_parameter_value',
         format('invalid passes %s for %s', passes, fn),
         'passes is 1 to 9, as CrystalDiskMark offers; 3 by default.'),
        (num_disks IS NOT NULL AND name NOT LIKE 'orion-%', 'invalid_parameter_value',
         format('num_disks does not apply to profile %s of %s', name, fn),
         'num_disks sizes the loads of the ORION profiles (small up to 5 x num_disks, large up to 2 x num_disks).'),
        (num_disks < 1 OR num_disks > max_disks, 'invalid_parameter_value',
         format('invalid num_disks %s for %s', num_disks, fn),
         format('num_disks is the number of disks under the target, 1 to %s.', max_disks)),
        (writes IS NULL, 'null_value_not_allowed',
         format('writes of %s must not be null', fn),
         'writes is true to run CrystalDiskMark''s write tests after its read tests, false for reads only.'),
        (workers < 1, 'invalid_parameter_value',
         format('workers of %s must be at least 1, not %s', fn, workers),
         'workers must be at least 1, or NULL to let each run choose.')
        ]::ranread_internal.ranread_check[]);
    IF bad.failed THEN
        RAISE EXCEPTION USING ERRCODE = bad.errcode, MESSAGE = bad.message, HINT = bad.hint;
    END IF;
    RETURN coalesce(duration, CASE WHEN name LIKE 'crystaldiskmark%' THEN interval '5s' ELSE interval '60s' END);
END
$$;

-- Step: a profile's runs on target (ranread_profile_points), and what of
-- the tool's definition the target or ranread cannot do, each said in a
-- NOTICE: SNIA's 0.5 KiB blocks where the direct I/O alignment is larger
-- (small_blocks false), writes smaller than the server's pages.  Refuses
-- more workers than the smallest run has processes.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_profile_plan(name text, target name, duration interval,
    passes integer, num_disks integer, writes boolean, workers integer,
    OUT points jsonb, OUT small_blocks boolean)
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    fn        constant text := 'ranread_profile';
    page_size constant integer := current_setting('block_size')::integer;
    left_out  text;
BEGIN
    PERFORM ranread_internal.ranread_study_check_group(jsonb_build_object('target', target, 'block_size', 4096), fn);
    small_blocks := true;
    IF name = 'snia-latency' AND NOT ranread_internal.ranread_block_size_ok(target, 512) THEN
        small_blocks := false;
        RAISE NOTICE '% %: the 0.5 KiB tests are left out: the direct I/O alignment of target % is larger than 512 bytes',
            fn, name, target;
    END IF;
    points := ranread_internal.ranread_profile_points(name, target, duration, coalesce(passes, 3),
                                                      coalesce(num_disks, 1), writes, small_blocks, page_size);
    IF name LIKE 'crystaldiskmark%' AND writes THEN
        -- the tests of the definition at any page size, less those planned
        SELECT string_agg(DISTINCT x.t, ', ') INTO left_out
          FROM (SELECT e.point ->> 'test' AS t, e.point ->> 'mode' AS m
                  FROM jsonb_to_recordset(ranread_internal.ranread_profile_points(name, target, duration, 1, 1, writes,
                                                                                  small_blocks, 1)) AS e(point jsonb)
                EXCEPT
                SELECT e.point ->> 'test', e.point ->> 'mode'
                  FROM jsonb_to_recordset(points) AS e(point jsonb)) x
         WHERE x.t IS NOT NULL;
    ELSIF name = 'snia-latency' THEN
        SELECT string_agg(format('%s B %s%% writes', bs, w), ', ') INTO left_out
          FROM unnest(CASE WHEN small_blocks THEN ARRAY[512, 4096] ELSE ARRAY[4096] END) bs, unnest(ARRAY[35, 100]) w
         WHERE bs % page_size <> 0;
    END IF;
    IF left_out IS NOT NULL THEN
        RAISE NOTICE '% %: the write tests of % are left out: ranread writes whole % byte pages',
            fn, name, left_out, page_size;
    END IF;
    IF workers > (SELECT min((p -> 'groups' -> 0 ->> 'processes')::integer) FROM jsonb_array_elements(points) p) THEN
        RAISE EXCEPTION USING
            ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('workers of %s must be at most the processes of its smallest run, not %s', fn, workers),
            HINT = 'workers must be at most the processes of the profile''s smallest run (1), or NULL.';
    END IF;
END
$$;

-- The call as the study records it: ranread_profile with the arguments
-- given, the defaults left out.  Pure.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_profile_call(name text, target name, duration interval,
    passes integer, num_disks integer, writes boolean, seed bigint, workers integer)
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT format('SELECT * FROM ranread_profile(%s);', array_to_string(ARRAY[quote_literal($1)]
        || CASE WHEN $2 <> 'ranread' THEN ARRAY[format('target => %L', $2)] ELSE '{}' END
        || CASE WHEN $3 IS NOT NULL THEN ARRAY[format('duration => %L', $3)] ELSE '{}' END
        || CASE WHEN $4 IS NOT NULL THEN ARRAY[format('passes => %s', $4)] ELSE '{}' END
        || CASE WHEN $5 IS NOT NULL THEN ARRAY[format('num_disks => %s', $5)] ELSE '{}' END
        || CASE WHEN NOT $6 THEN ARRAY['writes => false'] ELSE '{}' END
        || CASE WHEN $7 IS NOT NULL THEN ARRAY[format('seed => %s', $7)] ELSE '{}' END
        || CASE WHEN $8 IS NOT NULL THEN ARRAY[format('workers => %s', $8)] ELSE '{}' END, ', '))
$$;

-- Step: CrystalDiskMark's window as a NOTICE: its lines under [Read] and
-- [Write], and the test's conditions.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_profile_cdm_notice(study_id bigint, name text, target name,
    duration interval, passes integer)
RETURNS void
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    txt text;
BEGIN
    -- the report's lines, [Read] and [Write] headings included
    SELECT string_agg(x.result, E'\n') INTO txt
      FROM @extschema@.ranread_profile_report(study_id) x;
    txt := format('ranread %s, profile %s (study %s)',
                  (SELECT e.extversion FROM pg_catalog.pg_extension e WHERE e.extname OPERATOR(pg_catalog.=) 'ranread'),
                  name, study_id) || E'\n' || txt;
    RAISE NOTICE E'%\n  Test: target %, % per pass, % passes after a preparing pass', txt, target, duration, passes;
END
$$;

-- Runs a profile (see the top of this file) as a study on target and
-- reports it as the tool it imitates: CrystalDiskMark's lines (best of the
-- passes: highest MB/s, lowest latency), ORION's points and the lines of its
-- summary, SNIA's latency table.  duration is per run (each pass, each
-- point): by default the tool's own (CrystalDiskMark 5 s, ORION 60 s, SNIA
-- 60 s).  mbps is MiB/s as everywhere in ranread; result prints the tool's
-- units.  Steps: check the arguments, plan the runs, run them as a study,
-- report.
CREATE OR REPLACE FUNCTION @extschema@.ranread_profile(
    name       text,
    target name DEFAULT 'ranread',
    duration interval DEFAULT NULL,
    passes     integer  DEFAULT NULL,
    num_disks  integer  DEFAULT NULL,
    writes     boolean  DEFAULT true,
    seed bigint DEFAULT NULL,
    workers integer DEFAULT NULL)
    -- not rest: a profile's tests are its own workloads, as the tool it follows runs them
RETURNS TABLE (study bigint, test text, mode text, mbps numeric, iops bigint,
               avg_us numeric, p99_us numeric, p99999_us numeric, max_us numeric, result text)
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    fn        constant text := 'ranread_profile';
    is_cdm    constant boolean := name LIKE 'crystaldiskmark%';
    dur       interval;
    plan      record;
    study_id  bigint;
BEGIN
    PERFORM ranread_internal.ranread_primary_only(fn);
    -- the steps are assignments (not PERFORM or SELECT INTO), so that an
    -- error's CONTEXT names ranread_profile without the statement's text
    dur := ranread_internal.ranread_profile_check(name, duration, passes, num_disks, writes, workers);
    plan := ranread_internal.ranread_profile_plan(name, target, dur, passes, num_disks, writes, workers);

    SELECT min(x.study) INTO study_id
      FROM ranread_internal.ranread_study_execute(
               name, fn,
               ranread_internal.ranread_profile_call(name, target, duration, passes, num_disks, writes, seed, workers),
               jsonb_strip_nulls(jsonb_build_object('profile', name, 'duration', dur,
                   'passes', CASE WHEN is_cdm THEN coalesce(passes, 3) END,
                   'num_disks', CASE WHEN name LIKE 'orion-%' THEN coalesce(num_disks, 1) END,
                   'writes', CASE WHEN is_cdm THEN writes END, 'seed', seed, 'workers', workers,
                   'small_blocks', CASE WHEN name = 'snia-latency' THEN plan.small_blocks END)),
               plan.points, jsonb_build_object('target', target, 'duration', dur, 'warmup', interval '0',
                                               'seed', seed, 'workers', workers), 10, false) x;

    RETURN QUERY SELECT * FROM @extschema@.ranread_profile_report(study_id);
    IF is_cdm THEN
        PERFORM ranread_internal.ranread_profile_cdm_notice(study_id, name, target, dur, coalesce(passes, 3));
    END IF;
END
$$;

-- A profile's figures as the tool it imitates reports them, from the
-- history (so it reads a stopped or cancelled profile's finished runs too):
-- see ranread_profile.  The figures whole; ranread_profile_report rounds
-- them.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_profile_report_raw(study_id bigint)
RETURNS TABLE (study bigint, test text, mode text, mbps float8, iops float8,
               avg_us float8, p99_us float8, p99999_us float8, max_us float8, result text)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    fn   constant text := 'ranread_profile_report';
    id   constant bigint := study_id;
    kind text;
BEGIN
    PERFORM ranread_internal.ranread_study_check(id, fn);
    SELECT s.kind INTO kind FROM @extschema@.ranread_studies s WHERE s.study OPERATOR(pg_catalog.=) id;
    IF kind IS NULL THEN
        -- a profile that never returned: tell it by its points
        SELECT CASE WHEN bool_or(b.point ? 'test') THEN 'crystaldiskmark'
                    WHEN bool_or(b.point ? 'small') THEN 'orion'
                    ELSE 'snia-latency' END
          INTO kind
          FROM @extschema@.ranread_batches b
         WHERE b.study OPERATOR(pg_catalog.=) id AND ranread_internal.ranread_study_point_ok(b.point);
    END IF;

    IF kind LIKE 'crystaldiskmark%' THEN
        RETURN QUERY
        WITH runs AS (
            SELECT b.batch, b.point ->> 'test' AS t, b.point ->> 'mode' AS m,
                   ranread_internal.ranread_json_int(b.point -> 'n', 1, 2147483647)::integer AS n,
                   g.block_size, g.queue_depth, g.processes, b.iops AS io, b.mbps AS mb, b.avg_ms, b.p99_ms,
                   b.max_ms, @extschema@.ranread_hist_percentile(b.histogram, 99.999) AS p5
              FROM @extschema@.ranread_batches b
              JOIN @extschema@.ranread_groups g ON g.batch OPERATOR(pg_catalog.=) b.batch
                                              AND g.grp OPERATOR(pg_catalog.=) 1
             WHERE b.study OPERATOR(pg_catalog.=) id AND b.status OPERATOR(pg_catalog.=) 'completed'
               AND b.iops > 0 AND ranread_internal.ranread_study_point_ok(b.point)),
        best AS (
            SELECT DISTINCT ON (r.t, r.m) r.*, min(r.avg_ms) OVER (PARTITION BY r.t, r.m) AS min_avg,
                   min(r.n) OVER (PARTITION BY r.t, r.m) AS first_n
              FROM runs r
             ORDER BY r.t, r.m, r.mb DESC, r.n)
        -- each mode's lines under its heading, [Read] or [Write], as
        -- CrystalDiskMark prints them (a heading's row has no test)
        SELECT id, y.t, y.m, y.mb, y.io, y.a, y.p99, y.p5, y.mx, y.line
          FROM (SELECT x.first_n AS ord, 1 AS sub, x.t, x.m, x.mb, x.io, x.min_avg * 1000 AS a,
                       x.p99_ms * 1000 AS p99, x.p5 * 1000 AS p5, x.max_ms * 1000 AS mx,
                       ranread_internal.ranread_cdm_line(x.t, x.block_size, x.queue_depth, x.processes, x.io,
                                                         x.min_avg * 1000) AS line
                  FROM best x
                UNION ALL
                SELECT min(x.first_n), 0, NULL, x.m, NULL, NULL, NULL, NULL, NULL, NULL,
                       '[' || initcap(x.m) || ']'
                  FROM best x GROUP BY x.m) y
         ORDER BY y.ord, y.sub;
    ELSIF kind LIKE 'orion%' THEN
        RETURN QUERY
        SELECT id, format('Small=%s Large=%s', p.point ->> 'small', p.point ->> 'large'), 'point',
               p.large_mbps, p.small_iops, p.small_avg_ms * 1000, p.small_p99_ms * 1000,
               @extschema@.ranread_hist_percentile(sg.histogram, 99.999) * 1000, sg.max_ms * 1000,
               format('Small=%s Large=%s: %s IOPS, %s MBPS, %s usecs%s', p.point ->> 'small', p.point ->> 'large',
                      coalesce(to_char(p.small_iops, 'FM9999990'), '0'),
                      coalesce(to_char(p.large_mbps, 'FM999990.00'), '0.00'),
                      coalesce(to_char(p.small_avg_ms * 1000, 'FM99999990.00'), 'n/a'),
                      CASE WHEN p.status <> 'completed' THEN ' (' || p.status || ')' ELSE '' END)
          FROM ranread_internal.ranread_study_points_raw p
          LEFT JOIN @extschema@.ranread_groups sg ON sg.batch OPERATOR(pg_catalog.=) p.batch
                                                 AND sg.label OPERATOR(pg_catalog.=) 'small'
         WHERE p.study OPERATOR(pg_catalog.=) id
         ORDER BY p.n;
        RETURN QUERY
        SELECT id, s.item, 'summary', CASE WHEN s.unit = 'MiB/s' THEN s.value END,
               CASE WHEN s.unit = 'IOPS' THEN s.value END,
               CASE WHEN s.unit = 'usecs' THEN s.value END, NULL::float8, NULL::float8, NULL::float8, s.line
          FROM ranread_internal.ranread_study_summary_raw(id) s
         WHERE s.value IS NOT NULL;
    ELSE
        RETURN QUERY
        SELECT id,
               'RND ' || CASE WHEN g.block_size % 1024 = 0 THEN (g.block_size / 1024)::text
                              ELSE to_char(g.block_size / 1024.0, 'FM0.0') END || 'KiB',
               format('R/W %s/%s', 100 - g.write_pct, g.write_pct),
               b.mbps, b.iops, b.avg_ms * 1000, b.p99_ms * 1000,
               @extschema@.ranread_hist_percentile(b.histogram, 99.999) * 1000, b.max_ms * 1000,
               format('RND %sKiB R/W %s/%s QD1 T1: avg %s us, 99.999%% %s us, max %s us (%s IOPS)%s',
                      CASE WHEN g.block_size % 1024 = 0 THEN (g.block_size / 1024)::text
                           ELSE to_char(g.block_size / 1024.0, 'FM0.0') END,
                      100 - g.write_pct, g.write_pct,
                      coalesce(to_char(b.avg_ms * 1000, 'FM9999990.00'), 'n/a'),
                      coalesce(to_char(@extschema@.ranread_hist_percentile(b.histogram, 99.999) * 1000, 'FM9999990.00'), 'n/a'),
                      coalesce(to_char(b.max_ms * 1000, 'FM9999990.00'), 'n/a'),
                      coalesce(to_char(b.iops, 'FM9999990'), 'n/a'),
                      CASE WHEN b.status <> 'completed' THEN ' (' || b.status || ')' ELSE '' END)
          FROM @extschema@.ranread_batches b
          JOIN @extschema@.ranread_groups g ON g.batch OPERATOR(pg_catalog.=) b.batch
                                          AND g.grp OPERATOR(pg_catalog.=) 1
         WHERE b.study OPERATOR(pg_catalog.=) id AND ranread_internal.ranread_study_point_ok(b.point)
         ORDER BY ranread_internal.ranread_json_int(b.point -> 'n', 1, 2147483647);
    END IF;
END
$$;

-- A profile's figures as a person reads them: MiB/s (mbps) to 0.1, IOPS
-- whole, latencies in us to 0.01, as the result lines print them.
CREATE OR REPLACE FUNCTION @extschema@.ranread_profile_report(study_id bigint)
RETURNS TABLE (study bigint, test text, mode text, mbps numeric, iops bigint,
               avg_us numeric, p99_us numeric, p99999_us numeric, max_us numeric, result text)
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT r.study, r.test, r.mode, ranread_internal.ranread_round(r.mbps, 1),
           ranread_internal.ranread_round(r.iops, 0)::bigint,
           ranread_internal.ranread_round(r.avg_us, 2), ranread_internal.ranread_round(r.p99_us, 2),
           ranread_internal.ranread_round(r.p99999_us, 2), ranread_internal.ranread_round(r.max_us, 2),
           r.result
      FROM ranread_internal.ranread_profile_report_raw(study_id) WITH ORDINALITY r
     ORDER BY r.ordinality
$$;

-- SVG: a profile as its tool would picture it: CrystalDiskMark's read and
-- write MB/s as bars per test (IOPS and latency in the table under them),
-- SNIA's average latency as bars per block size and mix (99.999% and
-- maximum in the table), ORION's curves (ranread_study_chart; a detailed
-- matrix as a heat table of small IOPS).
CREATE OR REPLACE FUNCTION @extschema@.ranread_profile_chart(study bigint)
RETURNS text
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    fn   constant text := 'ranread_profile_chart';
    id   constant bigint := study;
    kind text;
    spec jsonb;
BEGIN
    PERFORM ranread_internal.ranread_study_check(id, fn);
    SELECT coalesce(s.kind, 'study') INTO kind FROM @extschema@.ranread_studies s WHERE s.study OPERATOR(pg_catalog.=) id;
    IF kind IS NULL THEN
        SELECT CASE WHEN bool_or(b.point ? 'test') THEN 'crystaldiskmark' ELSE 'study' END INTO kind
          FROM @extschema@.ranread_batches b
         WHERE b.study OPERATOR(pg_catalog.=) id AND ranread_internal.ranread_study_point_ok(b.point);
    END IF;

    IF kind LIKE 'crystaldiskmark%' THEN
        WITH r AS (SELECT x.*, row_number() OVER () AS ord FROM ranread_internal.ranread_profile_report_raw(id) x
                    WHERE x.test IS NOT NULL),
             t AS (SELECT r.test, min(r.ord) AS ord FROM r GROUP BY r.test)
        SELECT jsonb_build_object(
                   'kind', 'bar',
                   'title', format('%s: MB/s by test, read and write', kind),
                   'subtitle', ranread_internal.ranread_study_caption(id),
                   'categories', (SELECT jsonb_agg(t.test ORDER BY t.ord) FROM t),
                   'x', jsonb_build_object('label', 'Test (block size, queue depth Q, threads T)'),
                   'y', jsonb_build_object('label', 'Throughput (MB/s, 10^6 bytes)', 'log', true),
                   'series', (SELECT jsonb_agg(jsonb_build_object(
                                  'label', initcap(m.mode), 'labels', true,
                                  'y', (SELECT jsonb_agg((SELECT round((r.iops * g.bs / 1e6)::numeric, 1)
                                                            FROM r, LATERAL (SELECT CASE WHEN r.test LIKE '%128K%' THEN 131072
                                                                                         WHEN r.test LIKE 'SEQ1M%' THEN 1048576
                                                                                         ELSE 4096 END AS bs) g
                                                           WHERE r.test = t.test AND r.mode = m.mode) ORDER BY t.ord)
                                          FROM t)) ORDER BY m.ord)
                                FROM (SELECT r.mode, min(r.ord) AS ord FROM r GROUP BY r.mode) m),
                   'table', jsonb_build_object(
                       'header', jsonb_build_array('Test', 'Mode', 'MB/s', 'IOPS', 'Latency (us)'),
                       'align', jsonb_build_array('left', 'left', 'right', 'right', 'right'),
                       'rows', (SELECT jsonb_agg(jsonb_build_array(r.test, r.mode,
                                        to_char(r.iops * (CASE WHEN r.test LIKE '%128K%' THEN 131072
                                                               WHEN r.test LIKE 'SEQ1M%' THEN 1048576 ELSE 4096 END) / 1e6,
                                                'FM999990.000'),
                                        ranread_internal.ranread_fmt_figure(r.iops),
                                        to_char(r.avg_us, 'FM9999990.00')) ORDER BY r.ord) FROM r)))
          INTO spec;
        RETURN @extschema@.ranread_svg(spec);
    ELSIF kind = 'snia-latency' THEN
        WITH r AS (SELECT x.*, row_number() OVER () AS ord FROM ranread_internal.ranread_profile_report_raw(id) x),
             t AS (SELECT r.test, min(r.ord) AS ord FROM r GROUP BY r.test),
             m AS (SELECT r.mode, min(r.ord) AS ord FROM r GROUP BY r.mode)
        SELECT jsonb_build_object(
                   'kind', 'bar',
                   'title', 'SNIA latency test: average latency by block size and read/write mix',
                   'subtitle', ranread_internal.ranread_study_caption(id),
                   'categories', (SELECT jsonb_agg(t.test ORDER BY t.ord) FROM t),
                   'x', jsonb_build_object('label', 'Random I/O, one thread, queue depth 1'),
                   'y', jsonb_build_object('label', 'Average latency (us)'),
                   'series', (SELECT jsonb_agg(jsonb_build_object(
                                  'label', m.mode, 'labels', true,
                                  'y', (SELECT jsonb_agg((SELECT round(r.avg_us::numeric, 1) FROM r
                                                           WHERE r.test = t.test AND r.mode = m.mode) ORDER BY t.ord)
                                          FROM t)) ORDER BY m.ord) FROM m),
                   'table', jsonb_build_object(
                       'header', jsonb_build_array('Test', 'Mix', 'IOPS', 'Average (us)', '99.999% (us)', 'Max (us)'),
                       'align', jsonb_build_array('left', 'left', 'right', 'right', 'right', 'right'),
                       'rows', (SELECT jsonb_agg(jsonb_build_array(r.test, r.mode, ranread_internal.ranread_fmt_figure(r.iops),
                                        ranread_internal.ranread_fmt_figure(r.avg_us), ranread_internal.ranread_fmt_figure(r.p99999_us),
                                        ranread_internal.ranread_fmt_figure(r.max_us)) ORDER BY r.ord) FROM r)))
          INTO spec;
        RETURN @extschema@.ranread_svg(spec);
    ELSIF kind = 'orion-normal' THEN
        RETURN @extschema@.ranread_study_heat(id, 'iops');
    END IF;
    RETURN @extschema@.ranread_study_chart(id);
END
$$;
-- 1.1, a report to attach to a ticket: one self-contained HTML page (no
-- external file, no script) with the server and targets, the charts inline,
-- the tables, the verdicts and the exact calls; written to a server file by
-- ranread_export(directory, 'html'), ranread_export_study and
-- ranread_export_sweep (C, src/report/export.c), or read from the client as
-- ranread_report().  Also a study's files for ORION's readers: a csv grid
-- per metric and everything as json.

-- What the report says about the server that SQL cannot see: the kernel,
-- CPUs, RAM, and the filesystem and device under the data directory, pg_wal
-- and each target.  (src/report/server_info.c)
CREATE OR REPLACE FUNCTION @extschema@.ranread_server_info()
RETURNS TABLE (item text, value text)
AS 'MODULE_PATHNAME', 'ranread_server_info'
LANGUAGE C VOLATILE
SET search_path = pg_catalog, pg_temp;

-- One study to server files: html (the report), csv (a grid per metric and
-- the summary, as ORION writes them) or json; returns the paths.
CREATE OR REPLACE FUNCTION @extschema@.ranread_export_study(
    directory text,
    study     bigint,
    format    text DEFAULT 'html')
RETURNS SETOF text
AS 'MODULE_PATHNAME', 'ranread_export_study'
LANGUAGE C CALLED ON NULL INPUT VOLATILE ROWS 4
SET search_path = pg_catalog, pg_temp;

-- One sweep's report to a server file; returns its path.
CREATE OR REPLACE FUNCTION @extschema@.ranread_export_sweep(
    directory text,
    sweep     bigint)
RETURNS text
AS 'MODULE_PATHNAME', 'ranread_export_sweep'
LANGUAGE C CALLED ON NULL INPUT VOLATILE
SET search_path = pg_catalog, pg_temp;

-- Text made safe for HTML.  Pure.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_html(t text)
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT replace(replace(replace(replace(replace(coalesce(t, ''), '&', '&amp;'), '<', '&lt;'),
                                   '>', '&gt;'), '"', '&quot;'), '''', '&#39;')
$$;

-- An HTML table: the header cells, then rows of cells (already text; NULL
-- prints n/a); the first column left-aligned, the others right.  In a box
-- that scrolls sideways when the window is narrower than the table (short
-- cells stay on one line; a long one wraps).  Pure.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_html_table(header text[], rows jsonb)
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT '<div class="scroll"><table><thead><tr>'
           || (SELECT string_agg('<th>' || ranread_internal.ranread_html(h) || '</th>', '' ORDER BY i)
                 FROM unnest(header) WITH ORDINALITY x(h, i))
           || '</tr></thead><tbody>'
           || coalesce((SELECT string_agg('<tr>' || (SELECT string_agg(
                                    -- a short cell (a time, a figure) on one line
                                    CASE WHEN length(c #>> '{}') > 40 THEN '<td class="wrap">' ELSE '<td>' END
                                    || CASE WHEN jsonb_typeof(c) = 'null' THEN '<span class="na">n/a</span>'
                                                   ELSE ranread_internal.ranread_html(c #>> '{}') END || '</td>', '' ORDER BY j)
                                    FROM jsonb_array_elements(r) WITH ORDINALITY y(c, j)) || '</tr>', '' ORDER BY i)
                         FROM jsonb_array_elements(rows) WITH ORDINALITY x(r, i)), '')
           || '</tbody></table></div>'
$$;

-- An SVG chart for inline use: without its XML declaration.  Pure.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_html_svg(svg text)
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT '<figure>' || regexp_replace(coalesce(svg, ''), '^<\?xml[^>]*\?>\s*', '') || '</figure>'
$$;

-- A field of a CSV record (RFC 4180).  Pure.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_csv_field(t text)
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN t IS NULL THEN ''
                WHEN t ~ '[,"\r\n]' OR t = '' THEN '"' || replace(t, '"', '""') || '"'
                ELSE t END
$$;

-- The figures of a batch or point as the report's tables print them, the
-- cells after its own: IOPS and MiB/s (ranread_fmt_figure), average, p99
-- and maximum latency in ms with three decimals.  Pure.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_report_figures(
    iops float8, mbps float8, avg_ms float8, p99_ms float8, max_ms float8)
RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT jsonb_build_array(ranread_internal.ranread_fmt_figure(iops), ranread_internal.ranread_fmt_figure(mbps),
                             to_char(avg_ms, 'FM999990.000'), to_char(p99_ms, 'FM999990.000'),
                             to_char(max_ms, 'FM999990.000'))
$$;

-- A study's grid of a metric as ORION's csv files lay it out: a header of
-- the column values (a matrix's small loads) after the names of the axes
-- (ORION's "Large/Small" for a matrix) and the metric with its unit, then
-- a record per row (a matrix's large loads, named by the number as ORION
-- does); empty where no point completed; figures at full precision.  CRLF
-- line ends (RFC 4180).
CREATE OR REPLACE FUNCTION ranread_internal.ranread_study_csv(study bigint, metric text DEFAULT 'iops')
RETURNS text
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    ax     record;
    orion  boolean;
BEGIN
    PERFORM ranread_internal.ranread_study_check(study, 'ranread_study_csv');
    SELECT * INTO ax FROM ranread_internal.ranread_study_points_axes(study, NULL, 'ranread_study_csv');
    orion := ax.row_dims = '{large}' AND ax.column_dim = 'small';
    RETURN (SELECT string_agg(t.l, E'\r\n' ORDER BY t.o) || E'\r\n'
              FROM (SELECT 0::bigint AS o,
                           ranread_internal.ranread_csv_field(
                               CASE WHEN orion THEN 'Large/Small'
                                    WHEN cardinality(ax.row_dims) = 0 THEN '/' || ax.column_dim
                                    ELSE array_to_string(ax.row_dims, ', ') || '/' || ax.column_dim END
                               || ': ' || (SELECT x.label FROM ranread_internal.ranread_study_metric(metric, 'ranread_study_csv') x))
                           || ',' || (SELECT string_agg(ranread_internal.ranread_csv_field(c), ',' ORDER BY i)
                                        FROM unnest(h.column_labels) WITH ORDINALITY x(c, i)) AS l
                      FROM (SELECT g.column_labels FROM ranread_internal.ranread_study_grid_raw(study, metric) g LIMIT 1) h
                    UNION ALL
                    SELECT row_number() OVER (),
                           ranread_internal.ranread_csv_field(CASE WHEN orion THEN regexp_replace(g.row_label, '^large ', '')
                                                                   ELSE g.row_label END) || ','
                           || (SELECT string_agg(coalesce(v::text, ''), ',' ORDER BY i)
                                 FROM unnest(g.cells) WITH ORDINALITY x(v, i))
                      FROM ranread_internal.ranread_study_grid_raw(study, metric) g) t);
END
$$;

-- A study's _summary.txt as ORION writes it: what ran (the call and the
-- settings it enables, the loads of the columns and rows, the target),
-- the units of the files, then the summary's lines.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_study_summary_txt(study bigint)
RETURNS text
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT concat_ws(E'\n',
               format('ranread %s, study %s%s', (SELECT e.extversion FROM pg_extension e WHERE e.extname = 'ranread'),
                      x.id, coalesce(' (' || nullif(s.kind, 'study') || ')', '')),
               '',
               'Command line:',
               coalesce(s.call, '(not recorded: the study did not return)'),
               '',
               'These options enable these settings:',
               format('Test: study %s', x.id),
               (SELECT 'Small IO size: ' || (min(g.block_size) / 1024) || ' KB' FROM @extschema@.ranread_groups g
                  JOIN @extschema@.ranread_batches b ON b.batch OPERATOR(pg_catalog.=) g.batch
                 WHERE b.study OPERATOR(pg_catalog.=) x.id AND g.label = 'small'),
               (SELECT 'Large IO size: ' || (min(g.block_size) / 1024) || ' KB' FROM @extschema@.ranread_groups g
                  JOIN @extschema@.ranread_batches b ON b.batch OPERATOR(pg_catalog.=) g.batch
                 WHERE b.study OPERATOR(pg_catalog.=) x.id AND g.label = 'large'),
               (SELECT format('Writes: %s%%', string_agg(DISTINCT b.write_pct::text, ', '))
                  FROM @extschema@.ranread_batches b WHERE b.study OPERATOR(pg_catalog.=) x.id),
               (SELECT format('Duration for each data point: %s seconds', extract(epoch FROM min(b.duration))::bigint)
                  FROM @extschema@.ranread_batches b WHERE b.study OPERATOR(pg_catalog.=) x.id),
               (SELECT format('%s Columns:,%s', initcap(ax.column_dim),
                              (SELECT string_agg(lpad(c, 7), ',') FROM unnest(g.column_labels) c))
                  FROM @extschema@.ranread_study_grid(x.id) g LIMIT 1),
               (SELECT format('%s Columns:,%s', initcap(array_to_string(ax.row_dims, ', ')),
                              string_agg(lpad(regexp_replace(g.row_label, '^large ', ''), 7), ','))
                  FROM @extschema@.ranread_study_grid(x.id) g),
               format('Total Data Points: %s', (SELECT count(*) FROM @extschema@.ranread_batches b
                                                 WHERE b.study OPERATOR(pg_catalog.=) x.id)),
               '',
               (SELECT format('Name: target %s (tablespace %s)%sSize: %s', t.target, t.tablespace, E'\t', t.size_bytes)
                  FROM @extschema@.ranread_targets t
                 WHERE t.target = (SELECT min(b.target) FROM @extschema@.ranread_batches b
                                    WHERE b.study OPERATOR(pg_catalog.=) x.id)),
               '',
               'Units: _iops.csv in I/O operations per second, _mbps.csv in MiB/s (2^20 bytes), _lat.csv average '
               || 'latency in ms, full precision; below, latency in usecs (microseconds) as ORION prints it.',
               '')
           || E'\n'
           || coalesce((SELECT string_agg(y.line, E'\n' ORDER BY y.ord)
                          FROM (SELECT l.line, row_number() OVER () AS ord
                                  FROM @extschema@.ranread_study_summary(x.id) l) y), '')
           || E'\n'
      FROM (SELECT ranread_study_summary_txt.study AS id) x
      CROSS JOIN LATERAL ranread_internal.ranread_study_points_axes(x.id, NULL, 'ranread_export_study') ax
      LEFT JOIN @extschema@.ranread_studies s ON s.study OPERATOR(pg_catalog.=) x.id
$$;

-- Everything about a study as one JSON document: its row (if it returned),
-- its points with their figures, the grids of IOPS, MB/s and latency, and
-- the summary.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_study_json(study bigint)
RETURNS jsonb
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT jsonb_build_object(
        'study', id,
        'overview', (SELECT to_jsonb(o) FROM ranread_internal.ranread_study_overview_raw o
                      WHERE o.study OPERATOR(pg_catalog.=) id),
        'points', (SELECT jsonb_agg(to_jsonb(p) ORDER BY p.n) FROM ranread_internal.ranread_study_points_raw p
                    WHERE p.study OPERATOR(pg_catalog.=) id),
        'grids', (SELECT jsonb_object_agg(m, (SELECT jsonb_agg(jsonb_build_object(
                                                  'row', g.row_label, 'columns', g.column_labels, 'cells', g.cells))
                                                FROM ranread_internal.ranread_study_grid_raw(id, m) g))
                    FROM unnest(ARRAY['iops', 'mbps', 'avg_ms', 'p99_ms']) m),
        'summary', (SELECT jsonb_agg(to_jsonb(s)) FROM ranread_internal.ranread_study_summary_raw(id) s))
      -- the study is checked first: the figures are read for its row
      FROM (SELECT ranread_study_json.study AS id) x,
           LATERAL ranread_internal.ranread_study_check(x.id, 'ranread_study_json') c
$$;

-- The HTML of one study: what ran, the exact call, the charts, the grids
-- and the summary.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_report_study(study bigint)
RETURNS text
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    id    constant bigint := study;
    o     record;
    h     text;
    m     text;
    ngrid record;
BEGIN
    SELECT * INTO o FROM ranread_internal.ranread_study_overview_raw x WHERE x.study OPERATOR(pg_catalog.=) id;
    h := format('<section id="study-%s"><h2>Study %s%s</h2>', id, id,
                CASE WHEN o.kind <> 'study' THEN ': profile ' || ranread_internal.ranread_html(o.kind) ELSE '' END);
    h := h || format('<p>%s, started %s%s; %s of %s points completed%s on target %s (tablespace %s).</p>',
                     ranread_internal.ranread_html(initcap(o.status)),
                     to_char(o.started_at, 'YYYY-MM-DD HH24:MI:SS TZ'),
                     coalesce(', finished ' || to_char(o.finished_at, 'HH24:MI:SS'), ''),
                     o.completed, coalesce(o.planned, o.points),
                     CASE WHEN o.skipped > 0 THEN format(' (%s skipped by early_end)', o.skipped) ELSE '' END,
                     ranread_internal.ranread_html(o.target), ranread_internal.ranread_html(coalesce(o.tablespace, 'n/a')));
    IF o.stop_reason IS NOT NULL THEN
        h := h || format('<p class="bad">Ended early: %s</p>', ranread_internal.ranread_html(o.stop_reason));
    END IF;
    h := h || '<h3>The call</h3>'
          || CASE WHEN o.call IS NOT NULL THEN '<pre><code>' || ranread_internal.ranread_html(o.call) || '</code></pre>'
                  ELSE '<p class="bad">The study did not return (cancelled, or still running): its call was not recorded; its points are below.</p>' END;

    h := h || '<h3>Verdict</h3><ul class="verdict">'
          || coalesce((SELECT string_agg('<li>' || ranread_internal.ranread_html(s.line) || '</li>', '')
                         FROM ranread_internal.ranread_study_summary_raw(id) s), '')
          || '</ul>';

    IF o.kind <> 'study' THEN
        h := h || ranread_internal.ranread_html_svg(@extschema@.ranread_profile_chart(id));
        h := h || '<h3>As the tool reports it</h3><pre class="tool">'
              || coalesce((SELECT string_agg(ranread_internal.ranread_html(r.result), E'\n')
                             FROM ranread_internal.ranread_profile_report_raw(id) r), '')
              || '</pre>';
    ELSE
        h := h || ranread_internal.ranread_html_svg(@extschema@.ranread_study_chart(id));
        SELECT count(*) AS rows_, max(cardinality(g.column_labels)) AS cols INTO ngrid
          FROM ranread_internal.ranread_study_grid_raw(id) g;
        IF ngrid.rows_ > 1 AND ngrid.cols > 1 THEN
            h := h || ranread_internal.ranread_html_svg(@extschema@.ranread_study_heat(id, 'iops'));
        END IF;
    END IF;

    FOREACH m IN ARRAY ARRAY['iops', 'mbps', 'avg_ms', 'p99_ms'] LOOP
        h := h || format('<h3>%s</h3>', (SELECT x.label FROM ranread_internal.ranread_study_metric(m, 'ranread_report') x))
              || (SELECT ranread_internal.ranread_html_table(
                             -- the corner names the rows' and the columns' dimensions
                             ARRAY[(SELECT coalesce(nullif(array_to_string(ax.row_dims, ', '), ''), 'rows')
                                           || ' \ ' || ax.column_dim
                                      FROM ranread_internal.ranread_study_points_axes(id, NULL, 'ranread_report') ax)]
                             || (SELECT g.column_labels FROM ranread_internal.ranread_study_grid_raw(id, m) g LIMIT 1),
                             jsonb_agg(jsonb_build_array(g.row_label)
                                       || (SELECT coalesce(jsonb_agg(CASE WHEN v IS NULL THEN 'null'::jsonb
                                                                          ELSE to_jsonb(ranread_internal.ranread_fmt_figure(v)) END
                                                                     ORDER BY i), '[]')
                                             FROM unnest(g.cells) WITH ORDINALITY x(v, i))))
                    FROM ranread_internal.ranread_study_grid_raw(id, m) g);
    END LOOP;

    h := h || '<h3>Points</h3>'
          || ranread_internal.ranread_html_table(
                 ARRAY['#', 'batch', 'row', 'column', 'status', 'IOPS', 'MiB/s', 'avg ms', 'p99 ms', 'max ms'],
                 (SELECT jsonb_agg(jsonb_build_array(p.n, p.batch, p.row_label, p.column_label, p.status)
                                   || ranread_internal.ranread_report_figures(p.iops, p.mbps, p.avg_ms, p.p99_ms, p.max_ms)
                                   ORDER BY p.n)
                    FROM ranread_internal.ranread_study_points_raw p WHERE p.study OPERATOR(pg_catalog.=) id));
    RETURN h || '</section>';
END
$$;

-- The HTML of one sweep: its verdict, the call (from its recorded
-- settings), its chart and steps.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_report_sweep(sweep bigint)
RETURNS text
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    id  constant bigint := sweep;
    v   record;
    h   text;
BEGIN
    SELECT * INTO v FROM @extschema@.ranread_sweeps s WHERE s.sweep OPERATOR(pg_catalog.=) id;
    h := format('<section id="sweep-%s"><h2>Sweep %s</h2>', id, id);
    IF v.sweep IS NULL THEN
        h := h || '<p class="bad">The sweep did not return (cancelled, or still running): no verdict and no call were recorded; its steps are below.</p>';
    ELSE
        h := h || '<h3>The call</h3><pre><code>' || ranread_internal.ranread_html(format(
                 'SELECT * FROM ranread_sweep(start => %s, max_processes => %s, %s, max_avg_ms => %s, target => %L, block_size => %s, write_pct => %s, queue_depth => %s, pattern => %L);',
                 v.start, v.max_processes,
                 CASE WHEN v.duration IS NOT NULL THEN format('duration => %L', v.duration)
                      ELSE format('iterations => %s', v.iterations) END,
                 v.max_avg_ms, v.target, v.block_size, v.write_pct, v.queue_depth, v.pattern)) || '</code></pre>'
              || '<h3>Verdict</h3><ul class="verdict"><li>'
              || CASE WHEN v.max_iops IS NULL
                      THEN format('No step stayed within the %s ms average latency bound.', v.max_avg_ms)
                      ELSE format('Max %s IOPS within %s ms average latency, at %s (average %s ms, batch %s).',
                                  ranread_internal.ranread_fmt_figure(v.max_iops), v.max_avg_ms,
                                  ranread_internal.ranread_count_words(v.max_iops_processes, 'process'),
                                  round(v.actual_latency_ms::numeric, 3), v.max_iops_batch) END
              || '</li><li class="' || CASE WHEN v.meets_flash_guidance THEN 'good' ELSE 'bad' END || '">'
              || CASE WHEN v.meets_flash_guidance THEN 'Meets' ELSE 'Does not meet' END
              || ' the all-flash guidance (average &lt;= 2 ms, no I/O above 5 ms)'
              || coalesce(': ' || ranread_internal.ranread_html(
                     (SELECT f.verdict FROM @extschema@.ranread_batches b,
                             LATERAL @extschema@.ranread_flash_guidance(v.actual_latency_ms, b.max_ms) f
                       WHERE b.batch = v.max_iops_batch)), '')
              || '.</li><li>Stopped on '
              || ranread_internal.ranread_html(coalesce(v.stop_reason, 'n/a')) || '</li></ul>';
    END IF;
    -- the chart without its table: the steps are the table below
    h := h || ranread_internal.ranread_html_svg(ranread_internal.ranread_chart_no_table(id));
    h := h || '<h3>Steps</h3>'
          || ranread_internal.ranread_html_table(
                 ARRAY['batch', 'processes', 'status', 'IOPS', 'MiB/s', 'avg ms', 'p99 ms', 'max ms'],
                 (SELECT jsonb_agg(jsonb_build_array(s.batch, s.processes, s.status)
                                   || ranread_internal.ranread_report_figures(s.iops, s.mbps, s.avg_ms, s.p99_ms, s.max_ms)
                                   ORDER BY s.processes, s.batch)
                    FROM ranread_internal.ranread_summary_raw s WHERE s.sweep OPERATOR(pg_catalog.=) id));
    RETURN h || '</section>';
END
$$;

-- The head of the report's page: its title, the style (inline: the page
-- is one self-contained file) and who wrote it when.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_report_head(scope text)
RETURNS text
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT '<!DOCTYPE html>' || E'\n' || '<html lang="en"><head><meta charset="utf-8">'
           || format('<title>ranread report: %s</title>', ranread_internal.ranread_html(scope))
           || '<style>'
           || 'body{font-family:"DejaVu Sans",Verdana,Arial,sans-serif;color:#212529;margin:24px auto;max-width:1240px;padding:0 16px;line-height:1.4}'
           || 'div.scroll{overflow-x:auto;max-width:100%}code{overflow-wrap:anywhere}'
           || 'h1{font-size:26px;margin-bottom:4px}h2{border-top:2px solid #dee2e6;padding-top:12px;margin-top:32px}'
           || 'table{border-collapse:collapse;margin:8px 0 16px;font-size:13px}'
           || 'th,td{border:1px solid #dee2e6;padding:3px 8px;text-align:right}th{background:#f1f3f5}'
           || 'td:first-child,th:first-child{text-align:left}'
           || 'th,td{white-space:nowrap}td.wrap{white-space:normal;text-align:left;min-width:16em;max-width:32em}'
           || 'ul.evidence li{margin:2px 0;overflow-wrap:anywhere}'
           || 'pre{background:#f8f9fa;border:1px solid #dee2e6;padding:8px;white-space:pre-wrap;font-size:13px}'
           || 'figure{margin:12px 0}figure svg{max-width:100%;height:auto}'
           || '.good{color:#2b8a3e}.bad{color:#c92a2a}.na{color:#868e96}.muted{color:#868e96}'
           || 'ul.verdict li{margin:2px 0}'
           || '</style></head><body>'
           || format('<h1>ranread report: %s</h1><p class="muted">Written %s by %s in database %s, ranread %s.</p>',
                     ranread_internal.ranread_html(scope), to_char(clock_timestamp(), 'YYYY-MM-DD HH24:MI:SS TZ'),
                     ranread_internal.ranread_html(current_user), ranread_internal.ranread_html(current_database()),
                     ranread_internal.ranread_html((SELECT e.extversion FROM pg_extension e WHERE e.extname = 'ranread')))
$$;

-- The report's section on the server and its targets: version(), what
-- ranread_server_info sees, the settings that matter, the targets.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_report_server()
RETURNS text
LANGUAGE sql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT '<section id="server"><h2>Server and targets</h2>'
           || ranread_internal.ranread_html_table(ARRAY['item', 'value'],
                  (SELECT jsonb_agg(jsonb_build_array(i.item, i.value) ORDER BY i.k)
                     FROM (SELECT 0 AS k, 'PostgreSQL' AS item, version() AS value
                           UNION ALL
                           SELECT row_number() OVER (), x.item, x.value FROM @extschema@.ranread_server_info() x) i))
           || '<h3>Settings that matter</h3>'
           || ranread_internal.ranread_html_table(ARRAY['setting', 'value'],
                  (SELECT jsonb_agg(jsonb_build_array(s.name, current_setting(s.name)) ORDER BY s.name)
                     FROM pg_settings s
                    WHERE s.name IN ('shared_buffers', 'effective_io_concurrency', 'maintenance_io_concurrency',
                                     'random_page_cost', 'seq_page_cost', 'max_worker_processes',
                                     'data_checksums', 'wal_sync_method', 'full_page_writes', 'block_size',
                                     'huge_pages', 'ranread.engine', 'ranread.huge_pages', 'ranread.timing',
                                     'ranread.reserve')))
           || '<h3>Targets</h3>'
           || ranread_internal.ranread_html_table(ARRAY['target', 'tablespace', 'size', 'created', 'state', 'protected'],
                  (SELECT jsonb_agg(jsonb_build_array(t.target, t.tablespace, pg_size_pretty(t.size_bytes),
                                                      to_char(t.created_at, 'YYYY-MM-DD HH24:MI'), t.state,
                                                      t.protected::text) ORDER BY t.target)
                     FROM @extschema@.ranread_targets t))
           || '</section>'
$$;

-- The report's section on the latest 100 batches, for a report of the
-- history: each with its workload in words and its sync method (a commit
-- test's rows are told apart by them).
CREATE OR REPLACE FUNCTION ranread_internal.ranread_report_batches()
RETURNS text
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT '<section id="batches"><h2>The latest batches</h2>'
           || ranread_internal.ranread_html_table(
                  ARRAY['batch', 'run at', 'target', 'workload', 'sync', 'processes', 'QD', 'status',
                        'IOPS', 'MiB/s', 'avg ms', 'p99 ms', 'max ms', 'study', 'sweep', 'commit test',
                        'stddev ms', 'CPU usr %', 'CPU sys %', 'CPU us/IO', 'util %'],
                  (SELECT jsonb_agg(jsonb_build_array(s.batch, to_char(s.run_at, 'YYYY-MM-DD HH24:MI:SS'),
                                                      s.target,
                                                      ranread_internal.ranread_workload_words(s.groups, s.pattern, s.block_size::integer,
                                                                                              s.write_pct, NULL),
                                                      coalesce(s.sync, 'none'), s.processes, s.queue_depth, s.status)
                                    || ranread_internal.ranread_report_figures(s.iops, s.mbps, s.avg_ms, s.p99_ms, s.max_ms)
                                    || jsonb_build_array(s.study, s.sweep, s.commit_test,
                                                         to_char(s.lat_stddev_ms, 'FM999990.000'),
                                                         round(s.cpu_user_pct::numeric, 1), round(s.cpu_sys_pct::numeric, 1),
                                                         round(s.cpu_us_per_io::numeric, 1),
                                                         round(s.device_util_pct::numeric, 1))
                                    ORDER BY s.batch DESC)
                     FROM (SELECT * FROM ranread_internal.ranread_summary_raw x ORDER BY x.batch DESC LIMIT 100) s))
           || '</section>'
$$;

-- The report: one self-contained HTML page (inline style and SVG, no
-- script, no external file).  One study, one sweep, both, or (both NULL)
-- the history: the latest advice, the health of the watched tablespaces,
-- the commit tests, durability checks and verify errors, the latest 10
-- studies and 10 sweeps, the latest batch's heatmap and the latest 100
-- batches.  Always the server and targets and the settings that matter.
CREATE OR REPLACE FUNCTION @extschema@.ranread_report(
    study  bigint DEFAULT NULL,
    sweep  bigint DEFAULT NULL)
RETURNS text
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    fn       constant text := 'ranread_report';
    h        text;
    scope    text;
    id       bigint;
    studies  bigint[];
    sweeps   bigint[];
BEGIN
    IF study IS NOT NULL THEN
        PERFORM ranread_internal.ranread_study_check(study, fn);
    END IF;
    IF sweep IS NOT NULL THEN
        PERFORM ranread_internal.ranread_sweep_known(sweep, fn);
    END IF;
    IF study IS NULL AND sweep IS NULL THEN
        studies := ARRAY(SELECT o.study FROM ranread_internal.ranread_study_overview_raw o ORDER BY o.study DESC LIMIT 10);
        sweeps := ARRAY(SELECT DISTINCT b.sweep FROM @extschema@.ranread_batches b
                         WHERE b.sweep IS NOT NULL ORDER BY b.sweep DESC LIMIT 10);
        scope := 'history';
    ELSE
        studies := CASE WHEN study IS NOT NULL THEN ARRAY[study] ELSE '{}' END;
        sweeps := CASE WHEN sweep IS NOT NULL THEN ARRAY[sweep] ELSE '{}' END;
        scope := array_to_string(ARRAY(SELECT 'study ' || s FROM unnest(studies) s)
                                 || ARRAY(SELECT 'sweep ' || s FROM unnest(sweeps) s), ', ');
    END IF;

    h := ranread_internal.ranread_report_head(scope);
    -- Contents
    h := h || '<nav><ul>'
          || CASE WHEN scope = 'history'
                  THEN '<li><a href="#advice">Advice</a></li><li><a href="#health">Health of watched tablespaces</a></li>'
                       || '<li><a href="#commit-tests">Commit tests</a></li><li><a href="#durability">Durability checks</a></li>'
                       || '<li><a href="#verify">Verify errors</a></li>'
                  ELSE '' END
          || coalesce((SELECT string_agg(format('<li><a href="#study-%s">Study %s</a></li>', s, s), '' ORDER BY k)
                         FROM unnest(studies) WITH ORDINALITY x(s, k)), '')
          || coalesce((SELECT string_agg(format('<li><a href="#sweep-%s">Sweep %s</a></li>', s, s), '' ORDER BY k)
                         FROM unnest(sweeps) WITH ORDINALITY x(s, k)), '')
          || CASE WHEN scope = 'history' THEN '<li><a href="#batches">The latest batches</a></li>' ELSE '' END
          || '</ul></nav>';
    h := h || ranread_internal.ranread_report_server();
    -- the history's: advice, health, commit tests, durability, verify
    -- (45_report_sections.sql)
    IF scope = 'history' THEN
        h := h || ranread_internal.ranread_report_advice() || ranread_internal.ranread_report_health()
               || ranread_internal.ranread_report_commit() || ranread_internal.ranread_report_durability()
               || ranread_internal.ranread_report_verify();
    END IF;
    FOREACH id IN ARRAY studies LOOP
        h := h || ranread_internal.ranread_report_study(id);
    END LOOP;
    FOREACH id IN ARRAY sweeps LOOP
        h := h || ranread_internal.ranread_report_sweep(id);
    END LOOP;
    IF scope = 'history' THEN
        h := h || ranread_internal.ranread_report_heatmap() || ranread_internal.ranread_report_batches();
    END IF;
    RETURN h || '<footer><p class="muted">Every figure above is in the history tables of ranread (ranread_summary, ranread_study_points); the calls rerun what produced them.</p></footer></body></html>' || E'\n';
END
$$;
-- The sections of the report of the history (ranread_report, 44_report.sql;
-- docs/charts-and-reports.md, "The report") that are not about studies and
-- sweeps: the latest advice with its evidence, the health of every watched
-- tablespace, the commit tests, the durability checks and the errors verify
-- found.  Each is a <section> whose id the page's contents link to; each
-- says so when there is nothing yet, and names the call that makes some.
-- They read what a role granted 'report' may read (95_roles.sql); none
-- measures or writes anything.

-- The latest advice, from the history only (ranread_advise without
-- measuring): each setting's suggestion beside its evidence (the figures it
-- stands on, the formula), what to measure and its warning.  Advice that
-- cannot be given (no target, a history it cannot use) is said, with the
-- error's words, rather than failing the report.  Its NOTICE and WARNING
-- are not the report's: their substance is in the table.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_report_advice()
RETURNS text
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
SET client_min_messages = error
AS $$
DECLARE
    rows      jsonb;
    evidence  text;
    n         bigint;
BEGIN
    BEGIN
        WITH a AS MATERIALIZED (SELECT row_number() OVER () AS k, x.* FROM @extschema@.ranread_advise() x)
        SELECT jsonb_agg(jsonb_build_array(a.setting, a.server_value, a.tablespace_value, a.suggested, a.scope,
                                           CASE WHEN nullif(a.warning, '') IS NOT NULL THEN 'yes' ELSE '' END) ORDER BY a.k),
               string_agg(format('<li><b>%s</b><ul>%s%s%s%s</ul></li>', ranread_internal.ranread_html(a.setting),
                                 CASE WHEN nullif(a.figures, '') IS NOT NULL THEN '<li>Evidence: ' || ranread_internal.ranread_html(a.figures) || '</li>' ELSE '' END,
                                 CASE WHEN nullif(a.formula, '') IS NOT NULL THEN '<li>Formula: ' || ranread_internal.ranread_html(a.formula) || '</li>' ELSE '' END,
                                 CASE WHEN nullif(a.to_measure, '') IS NOT NULL THEN '<li>To measure: <code>' || ranread_internal.ranread_html(a.to_measure) || '</code></li>' ELSE '' END,
                                 CASE WHEN nullif(a.warning, '') IS NOT NULL THEN '<li class="bad">Warning: ' || ranread_internal.ranread_html(a.warning) || '</li>' ELSE '' END),
                          '' ORDER BY a.k),
               count(*)
          INTO rows, evidence, n
          FROM a;
    EXCEPTION WHEN OTHERS THEN
        RETURN '<section id="advice"><h2>Advice</h2>'
               || format('<p class="bad">ranread_advise() gave no advice: %s</p>', ranread_internal.ranread_html(SQLERRM))
               || '</section>';
    END;
    RETURN '<section id="advice"><h2>Advice</h2>'
           || '<p>What <code>SELECT * FROM ranread_advise();</code> says now from the history, measuring nothing: '
           || 'each suggestion (n/a: none), then the figures and the formula it stands on. It applies nothing; '
           || '<code>apply_sql</code> in its result does.</p>'
           || CASE WHEN coalesce(n, 0) = 0 THEN '<p class="muted">No advice: the history holds nothing it can use.</p>'
                   ELSE ranread_internal.ranread_html_table(
                            ARRAY['setting', 'server', 'tablespace', 'suggested', 'scope', 'warning'], rows)
                        || '<h3>The evidence</h3><ul class="evidence">' || evidence || '</ul>' END
           || '</section>';
END
$$;

-- The health of every watched tablespace (ranread_health) and the chart of
-- its probes (ranread_probe_chart) for the 8 worst off.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_report_health()
RETURNS text
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    h     text := '<section id="health"><h2>Health of watched tablespaces</h2>';
    ts    name;
BEGIN
    IF NOT EXISTS (SELECT FROM @extschema@.ranread_health) THEN
        RETURN h || '<p class="muted">No tablespace is watched: <code>SELECT ranread_probe_schedule(''pg_default'', ''0 3 * * *'');</code> '
                 || 'probes one every day (docs/keeping-watch.md).</p></section>';
    END IF;
    h := h || ranread_internal.ranread_html_table(
                  ARRAY['tablespace', 'status', 'since', 'last probe', 'probes', 'p50 ms', 'p99 ms',
                        'baseline p50 ms', 'baseline p99 ms', 'change', 'why'],
                  (SELECT jsonb_agg(jsonb_build_array(x.tablespace, x.status,
                                                      to_char(x.since, 'YYYY-MM-DD HH24:MI'),
                                                      to_char(x.last_probe_at, 'YYYY-MM-DD HH24:MI'), x.probes,
                                                      x.p50_ms, x.p99_ms, x.baseline_p50_ms, x.baseline_p99_ms,
                                                      CASE WHEN x.change IS NOT NULL THEN x.change || 'x' END,
                                                      x.reason)
                                    ORDER BY x.tablespace)
                     FROM @extschema@.ranread_health x));
    FOR ts IN
        SELECT x.tablespace FROM @extschema@.ranread_health x
         ORDER BY CASE x.status WHEN 'critical' THEN 0 WHEN 'degraded' THEN 1 WHEN 'slower' THEN 2 ELSE 3 END,
                  x.tablespace
         LIMIT 8
    LOOP
        h := h || ranread_internal.ranread_html_svg(@extschema@.ranread_probe_chart(ts));
    END LOOP;
    RETURN h || '</section>';
END
$$;

-- The latest 3 commit tests (ranread_commit_summary): a row per test,
-- method and size of write, its rounds summed up (the median round's operations per second
-- and latency, the slowest write of any round), whether it wrote with
-- O_DIRECT.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_report_commit()
RETURNS text
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT '<section id="commit-tests"><h2>Commit tests</h2>'
           || CASE WHEN NOT EXISTS (SELECT FROM ranread_internal.ranread_commit_summary_raw)
                   THEN '<p class="muted">No commit test has run: <code>SELECT * FROM ranread_commit_test();</code> '
                        || 'times the WAL''s write and sync on pg_wal, by each wal_sync_method.</p>'
                   ELSE '<p>What a commit waits for, on the tablespace of each test: WAL writes and their sync, '
                        || 'a row per test, method and size of write with the median of its rounds (each round: '
                        || '<code>SELECT * FROM ranread_commit_summary</code>).</p>'
                        || ranread_internal.ranread_html_table(
                               ARRAY['commit test', 'run at', 'where', 'test', 'method', 'O_DIRECT', 'write kB',
                                     'rounds', 'ops/s', 'avg ms', 'p99 ms', 'max ms', 'batches', 'status'],
                               (SELECT jsonb_agg(jsonb_build_array(c.commit_test, to_char(c.run_at, 'YYYY-MM-DD HH24:MI:SS'),
                                                                   c.place, c.test, c.method,
                                                                   CASE WHEN c.direct THEN 'yes' WHEN NOT c.direct THEN 'no' ELSE '' END,
                                                                   c.write_kb, c.rounds, ranread_internal.ranread_fmt_figure(c.ops_per_s),
                                                                   to_char(c.avg_ms, 'FM999990.000'),
                                                                   to_char(c.p99_ms, 'FM999990.000'),
                                                                   to_char(c.max_ms, 'FM999990.000'),
                                                                   CASE WHEN c.rounds <= 3 THEN c.batches
                                                                        ELSE c.first || ' to ' || c.last END,
                                                                   c.status)
                                                 ORDER BY c.commit_test DESC, c.first)
                                  FROM (SELECT x.commit_test, min(x.run_at) AS run_at,
                                               min(x.tablespace || coalesce(' (' || x.filesystem || ')', '')) AS place,
                                               x.test, x.method, x.direct, x.write_kb, count(*) AS rounds,
                                               string_agg(x.batch::text, ', ' ORDER BY x.batch) AS batches,
                                               percentile_cont(0.5) WITHIN GROUP (ORDER BY x.ops_per_s) AS ops_per_s,
                                               percentile_cont(0.5) WITHIN GROUP (ORDER BY x.avg_ms) AS avg_ms,
                                               percentile_cont(0.5) WITHIN GROUP (ORDER BY x.p99_ms) AS p99_ms,
                                               max(x.max_ms) AS max_ms, min(x.batch) AS first, max(x.batch) AS last,
                                               string_agg(DISTINCT x.status, ', ') AS status
                                          FROM ranread_internal.ranread_commit_summary_raw x
                                         WHERE x.commit_test IN (SELECT DISTINCT y.commit_test
                                                                   FROM ranread_internal.ranread_commit_summary_raw y
                                                                  ORDER BY y.commit_test DESC LIMIT 3)
                                         GROUP BY x.commit_test, x.test, x.method, x.direct, x.write_kb) c)) END
           || '</section>'
$$;

-- The latest 10 durability checks (ranread_durability): what was
-- acknowledged, why the writes ended, and the check's verdict.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_report_durability()
RETURNS text
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT '<section id="durability"><h2>Durability checks</h2>'
           || CASE WHEN NOT EXISTS (SELECT FROM @extschema@.ranread_durability)
                   THEN '<p class="muted">No durability check has run (docs/writes-and-durability.md: '
                        || '<code>ranread_durability_start</code>, a power cut, then <code>ranread_durability_check</code>).</p>'
                   ELSE ranread_internal.ranread_html_table(
                            ARRAY['check', 'started', 'tablespace', 'method', 'status', 'acknowledged', 'ended by',
                                  'checked', 'lost', 'torn', 'verdict'],
                            (SELECT jsonb_agg(jsonb_build_array(d.durability, to_char(d.started, 'YYYY-MM-DD HH24:MI'),
                                                                d.tablespace, d.method, d.status, d.acknowledged,
                                                                coalesce(d.ended_by, CASE WHEN d.status <> 'running' THEN 'its duration' END), to_char(d.checked, 'YYYY-MM-DD HH24:MI'),
                                                                d.lost, d.torn, d.verdict)
                                              ORDER BY d.durability DESC)
                               FROM (SELECT * FROM @extschema@.ranread_durability x
                                      ORDER BY x.durability DESC LIMIT 10) d)) END
           || '</section>'
$$;

-- What verify found (ranread_verify_errors): the count by batch and kind,
-- then the latest 20 errors.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_report_verify()
RETURNS text
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT '<section id="verify"><h2>Verify errors</h2>'
           || CASE WHEN NOT EXISTS (SELECT FROM @extschema@.ranread_verify_errors)
                   THEN '<p class="good">No verify error is recorded (<code>SELECT * FROM ranread_verify_errors</code>).</p>'
                   ELSE '<p class="bad">Blocks that read back other than written:</p>'
                        || ranread_internal.ranread_html_table(ARRAY['batch', 'target', 'kind', 'blocks', 'first at'],
                               (SELECT jsonb_agg(jsonb_build_array(v.batch, v.target, v.kind, v.n,
                                                                   to_char(v.first_at, 'YYYY-MM-DD HH24:MI:SS'))
                                                 ORDER BY v.batch DESC NULLS LAST, v.kind)
                                  FROM (SELECT e.batch, e.target, e.kind, count(*) AS n, min(e.at) AS first_at
                                          FROM @extschema@.ranread_verify_errors e
                                         GROUP BY e.batch, e.target, e.kind) v))
                        || '<h3>The latest errors</h3>'
                        || ranread_internal.ranread_html_table(ARRAY['batch', 'target', 'block', 'kind', 'expected', 'found', 'at'],
                               (SELECT jsonb_agg(jsonb_build_array(e.batch, e.target, e.block, e.kind, e.expected, e.found,
                                                                   to_char(e.at, 'YYYY-MM-DD HH24:MI:SS'))
                                                 ORDER BY e.at DESC, e.block)
                                  FROM (SELECT * FROM @extschema@.ranread_verify_errors x ORDER BY x.at DESC, x.block LIMIT 20) e)) END
           || '</section>'
$$;
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
-- 1.1, the fleet: running one batch on many servers at once.  This file
-- is the coordinator's loop; each of its steps is in the file of its phase:
--   52_fleet_begin.sql    the arguments checked, the nodes resolved, the
--                         recorder opened
--   53_fleet_probe.sql    1. probe, 2. clocks
--   54_fleet_send.sql     3. record the start and send, 4. poll (and stop)
--   55_fleet_collect.sql  5. collect
--   56_fleet_judge.sql    6. judge, 7. record; an interrupted fleet's end
--   58_fleet_report.sql   the fleet sweep, charts, export
-- and the connections it runs on are C (src/fleet/: libpq's asynchronous
-- calls, every wait interruptible and bounded).
--
-- The coordinator (the session that calls ranread_fleet) never does I/O.
-- It opens one connection per node and one back to its own database (the
-- recorder), then:
--   1. probes every node: reachable, ranread 1.1 or later, a primary, the
--      target ready, no batch running, the options accepted (ranread_blocks
--      checks them there without I/O).  Any node that fails is named in one
--      error before any node starts, unless skip_unavailable.
--   2. measures each node's clock offset and round trip (the best of five
--      clock_timestamp() round trips), refuses or warns when the offsets
--      spread more than max_offset_ms.
--   3. records the fleet and its nodes as 'running' through the recorder,
--      then sends every node ranread_run_step with the same start_at: a whole
--      second at least start_delay ahead on every node's clock.  Each
--      node's workers get ready and begin their I/O at that instant.
--   4. polls the nodes' sockets and takes each node's result as it comes;
--      a node that fails is recorded failed, and the others run on or are
--      stopped (on_node_failure).
--   5. collects every node's batch row and seconds (found by the fleet id
--      and start_at the batch carries) from every node it can reach, over a
--      fresh connection where the node's own one is gone;
--   6. judges: each node's row and status, the fleet's figures
--      (ranread_fleet_totals), its outliers and status;
--   7. records them through the recorder.
-- What the coordinator knows is two records: one per node
-- (ranread_fleet_node_state) and one for the fleet (ranread_fleet_call,
-- which holds the nodes' records); each step takes the fleet's record and
-- returns it.  Being plpgsql variables, they survive the rollback of the
-- block a cancel interrupts, where a temporary table's rows would not, so
-- that the fleet's end can still be collected and recorded.
--
-- Time bounds.  Connecting takes at most the conninfo's connect_timeout
-- (ranread's 10 s when it gives none), each query to a node 10 s, a run by
-- duration at most 30 s more than its duration and warmup.  A
-- cancel or statement_timeout of the coordinator is caught: the nodes still
-- running are cancelled (a fresh connection asks pg_cancel_backend() of
-- their session, within 1 s), given up to 2 s to end, what they recorded
-- is collected within 2.5 s and recorded within 4 s, and a node that does
-- not answer in time is given up and recorded 'lost'; then the cancel goes
-- on, within 5 s of it whatever the nodes do.  A terminate ends the
-- coordinator at once: its last words (ranread_fleet_abandon, sent to the
-- recorder without waiting) record the fleet failed and its nodes lost, and
-- each node's session ends its batch within a second of seeing the
-- coordinator gone (client_connection_check_interval, set by the fleet).
--
-- Connection strings travel only as arguments of C functions (never in SQL
-- text sent anywhere), are read by libpq's rules, and are shown and stored
-- without their passwords; the call's own text is logged and shown without
-- them too (ranread_conninfo_hide).
--
-- Why PL/pgSQL and not C.  Everything that waits is C already (src/fleet/:
-- 8 files and a header, 3,091 lines): what is left is to say what each
-- node is asked, check what it answers and write the fleet's history, and
-- that is SQL.  Each node is asked SQL text; its answer is checked against
-- the history's own row types (jsonb_populate_record into
-- ranread_fleet_nodes and ranread_fleet_seconds: ranread_fleet_answer, 82
-- lines) where C would need a JSON reader and a second copy of those
-- types; the history is written as SQL through the recorder; messages,
-- warnings and errors are format() and RAISE.  The loop and its phases are
-- 1,640 lines of PL/pgSQL in 40 functions (files 51 to 56), none past 100
-- lines, the loop itself 41; the same in C would be each of those queries
-- built as a string, sent, and its jsonb walked field by field (as
-- src/workload/workload.c reads a spec): longer, with the checks' SQL now inside C
-- strings, and no clearer.  And a cancel is plpgsql's own: an exception
-- block catches it, and the records above hold what happened up to it.

-- The fleet itself: the loop.  Each step takes the fleet's record (f) and
-- returns it; the sends are one call per node, so that a cancel among them
-- knows which nodes were started.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_fleet_run(o @extschema@.ranread_fleet_options,
    sweep bigint DEFAULT NULL, fn text DEFAULT 'ranread_fleet')
RETURNS SETOF ranread_internal.ranread_fleet_result_raw
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    f  ranread_internal.ranread_fleet_call;
    t0 timestamptz;
BEGIN
    f := ranread_internal.ranread_fleet_begin(o, sweep, fn);            -- checked, no node reached yet
    PERFORM ranread_internal.ranread_fleet_say(f, o, 'probing nodes');  -- (ranread_progress)
    BEGIN
        PERFORM ranread_internal.ranread_fleet_open(f);                 -- the recorder
        f := ranread_internal.ranread_fleet_probe_nodes(f, o);          -- 1. probe
        f := ranread_internal.ranread_fleet_clocks(f, o);               -- 2. clocks
        f := ranread_internal.ranread_fleet_record_start(f, o);         -- 3. recorded running,
        FOR k IN 1..cardinality(f.nodes) LOOP                           --    then sent
            f.nodes[k] := ranread_internal.ranread_fleet_send(f.nodes[k], f.spec);
        END LOOP;
        PERFORM ranread_internal.ranread_fleet_say(f, o, 'running');
        WHILE EXISTS (SELECT FROM unnest(f.nodes) x WHERE x.state = 'running') LOOP
            f := ranread_internal.ranread_fleet_poll(f, o);             -- 4. poll
        END LOOP;
        PERFORM ranread_internal.ranread_fleet_say(f, o, 'collecting');
    EXCEPTION WHEN query_canceled OR others THEN
        PERFORM ranread_internal.ranread_fleet_interrupted(f, o, SQLSTATE, true);
        RAISE;
    END;
    BEGIN
        t0 := clock_timestamp();
        f := ranread_internal.ranread_fleet_collect(f, t0 + interval '10 s');    -- 5. collect
        f := ranread_internal.ranread_fleet_judge(f, o);                         -- 6. judge
        PERFORM ranread_internal.ranread_fleet_record(f, t0 + interval '20 s');  -- 7. record
    EXCEPTION WHEN query_canceled OR others THEN
        PERFORM ranread_internal.ranread_fleet_interrupted(f, o, SQLSTATE, false);
        RAISE;
    END;
    PERFORM ranread_internal.ranread_fleet_close(f);
    PERFORM ranread_internal.ranread_fleet_tell(f, o);
    PERFORM ranread_internal.ranread_call_end('fleet', f.fleet);
    RETURN QUERY SELECT * FROM jsonb_populate_recordset(NULL::ranread_internal.ranread_fleet_result_raw,
        ranread_internal.ranread_fleet_result_rows(f.fleet, f.node_rows, f.fleet_row, f.nodes));
END
$$;

-- ranread_fleet, behind the C function users call (src/workload/forward.c): its
-- arguments by name, the fleet's options and the workload's, as the
-- fleet's options.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_fleet(args jsonb, fn text)
RETURNS SETOF @extschema@.ranread_fleet_result
LANGUAGE sql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT r.* FROM ranread_internal.ranread_fleet_run(
        jsonb_populate_record(NULL::@extschema@.ranread_fleet_options, args), NULL, fn) x,
        LATERAL ranread_internal.ranread_fleet_round(x) r
$$;

-- One batch on many servers at once: see the top of this file and
-- docs/fleet.md.  The options of ranread_run pass through to every node, as one
-- spec.
CREATE OR REPLACE FUNCTION @extschema@.ranread_fleet(
    nodes            text[],
    processes integer,
    iterations bigint DEFAULT NULL,
    target name DEFAULT 'ranread',
    duration interval DEFAULT NULL,
    block_size integer DEFAULT 8192,
    write_pct integer DEFAULT 0,
    queue_depth integer DEFAULT 1,
    pattern text DEFAULT 'random',
    region_start float8 DEFAULT 0,
    region_end float8 DEFAULT 100,
    warmup interval DEFAULT '0',
    rate_iops integer DEFAULT NULL,
    seed bigint DEFAULT NULL,
    workers integer DEFAULT NULL,
    distribution text DEFAULT 'uniform',
    steady_state text DEFAULT NULL,
    sync text DEFAULT NULL,
    start_delay      interval DEFAULT '2s',
    skip_unavailable boolean  DEFAULT false,
    on_node_failure  text     DEFAULT 'continue',
    max_offset_ms    float8   DEFAULT 10,
    on_clock_skew    text     DEFAULT 'error',
    loopback         text     DEFAULT NULL,
    io_priority text DEFAULT NULL,
    verify boolean DEFAULT false,
    path text DEFAULT 'device',
    effective_io_concurrency integer DEFAULT NULL)
    -- not start_at: the fleet starts every node at once, start_delay after the call
RETURNS SETOF @extschema@.ranread_fleet_result
AS 'MODULE_PATHNAME', 'ranread_forward'
LANGUAGE C CALLED ON NULL INPUT VOLATILE;

-- Where the fleet is, for ranread_progress (src/history/progress.c): its phase;
-- before its nodes start, their start delay, warmup and duration still to
-- come, and while they run, when their batch is due to end (start_at,
-- warmup and duration); a fleet by iterations does not know.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_fleet_say(f ranread_internal.ranread_fleet_call,
    o @extschema@.ranread_fleet_options, phase text)
RETURNS void
LANGUAGE sql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT ranread_internal.ranread_progress_call('fleet', f.fleet, phase, NULL, NULL,
        CASE WHEN phase = 'probing nodes'
             THEN extract(epoch FROM coalesce(o.start_delay, interval '0') + coalesce(o.warmup, interval '0') + o.duration)::float8
             ELSE 0 END,
        CASE WHEN phase = 'running' THEN f.start_at + coalesce(o.warmup, interval '0') + o.duration END)
$$;
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
-- 1.1, the fleet, steps 3 and 4 (51_fleet_loop.sql runs them): the fleet
-- and its nodes recorded as running, every node sent its batch with one
-- start_at, then the nodes polled, each answer taken as it comes and
-- judged (done, cancelled, failed), until none is running.  A node that
-- has not answered in time (a run by duration: 30 s after its batch was due
-- to end; by iterations: no worker of its seen for 30 s) is stopped, and
-- given up (lost) when it does not answer its cancel either.

-- Step 3 of a fleet, first half: its start_at (a whole second at least
-- start_delay ahead on every node's clock) and its workload (one spec for
-- every node), the fleet and its nodes recorded as running through the
-- recorder (the nodes skipped as skipped), the recorder's last words set
-- first, should this backend end before the fleet's end is recorded
CREATE OR REPLACE FUNCTION ranread_internal.ranread_fleet_record_start(f ranread_internal.ranread_fleet_call,
    o @extschema@.ranread_fleet_options)
RETURNS ranread_internal.ranread_fleet_call
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    nodes ranread_internal.ranread_fleet_node_state[] := f.nodes;
BEGIN
    f.start_at := to_timestamp(ceil(extract(epoch FROM clock_timestamp()
                      + greatest(0, coalesce((SELECT max(x.offset_ms) FROM unnest(nodes) x), 0)) * interval '1 ms'
                      + o.start_delay)));
    -- the workload as a spec: o's options by name (src/workload/workload.c)
    f.spec := ranread_internal.ranread_spec(to_jsonb(o) || jsonb_build_object(
        'caller', f.fn, 'fleet', f.fleet, 'start_at', f.start_at));
    -- a run by duration has its bound: 30 s after its batch was due to end
    f.due_end := f.start_at + coalesce(o.warmup, interval '0') + o.duration + interval '30 s';
    -- first, so that from the moment the fleet's row exists an end of
    -- this backend, even before this returns, records the fleet failed
    PERFORM ranread_internal.ranread_remote_last_words(f.recorder,
        format('SELECT ranread_internal.ranread_fleet_abandon(%s)', f.fleet));
    PERFORM ranread_internal.ranread_remote_query(f.recorder, format($q$
        INSERT INTO @extschema@.ranread_fleets
            (fleet, started_at, started_by, coordinator_pid, coordinator_start, definition,
             nodes, processes, start_at, offset_spread_ms, max_rtt_ms, status, sweep)
        VALUES (%s, %L, %L, %s, %L, %L, %s, %s, %L, %L, %L, 'running', %L);
        INSERT INTO @extschema@.ranread_fleet_nodes (fleet, node, name, conninfo, status, message, offset_ms, rtt_ms)
        SELECT %1$s, k, x.names[k], x.conns[k], x.states[k], x.messages[k], x.offsets[k], x.rtts[k]
          FROM (SELECT %13$L::text[] AS names, %14$L::text[] AS conns, %15$L::text[] AS states,
                       %16$L::text[] AS messages, %17$L::float8[] AS offsets, %18$L::float8[] AS rtts) x,
               generate_subscripts(x.names, 1) k $q$,
        f.fleet, to_jsonb(clock_timestamp())#>>'{}', current_user, pg_backend_pid(),
        to_jsonb((SELECT a.backend_start FROM pg_stat_activity a WHERE a.pid = pg_backend_pid()))#>>'{}',
        jsonb_build_object('nodes', to_jsonb(ARRAY(SELECT x.name FROM unnest(nodes) x ORDER BY x.node)), 'options',
            to_jsonb(o) - 'nodes' - 'loopback', 'spec', f.spec),
        (SELECT count(*) FROM unnest(nodes) x WHERE x.state <> 'skipped'), o.processes,
        to_jsonb(f.start_at)#>>'{}',
        f.spread, (SELECT max(x.rtt_ms) FROM unnest(nodes) x), f.sweep,
        ARRAY(SELECT x.name FROM unnest(nodes) x ORDER BY x.node),
        ARRAY(SELECT ranread_internal.ranread_conninfo_strip(x.conninfo) FROM unnest(nodes) x ORDER BY x.node),
        ARRAY(SELECT CASE WHEN x.state = 'ready' THEN 'running' ELSE x.state END FROM unnest(nodes) x ORDER BY x.node),
        ARRAY(SELECT x.message FROM unnest(nodes) x ORDER BY x.node),
        ARRAY(SELECT x.offset_ms FROM unnest(nodes) x ORDER BY x.node),
        ARRAY(SELECT x.rtt_ms FROM unnest(nodes) x ORDER BY x.node)), 10000);
    f.started := true;
    RAISE NOTICE 'fleet %: % nodes x % processes start at % (clock offsets within % ms, longest round trip % ms)',
        f.fleet, (SELECT count(*) FROM unnest(nodes) x WHERE x.state <> 'skipped'), o.processes,
        f.start_at, round(coalesce(f.spread, 0)::numeric, 3),
        round((SELECT max(x.rtt_ms) FROM unnest(nodes) x)::numeric, 3);
    RETURN f;
END
$$;

-- Step 3 of a fleet, second half, for one node that is ready: its batch
-- sent (ranread_run_step with the fleet's spec).  The node, running, or
-- failed when it could not be sent.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_fleet_send(node ranread_internal.ranread_fleet_node_state,
    spec jsonb)
RETURNS ranread_internal.ranread_fleet_node_state
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    err text;
BEGIN
    IF node.state <> 'ready' THEN
        RETURN node;
    END IF;
    err := ranread_internal.ranread_remote_send(node.cname, format(
        'SELECT pg_catalog.json_build_object(''batch'', r.batch, ''status'', r.status)::text FROM %s.ranread_run_step(%L::jsonb) r WHERE r.grp = 0',
        node.schema, spec));
    IF err IS NULL THEN
        node.state := 'running';
    ELSE
        node.state := 'failed';
        node.message := 'the batch could not be sent: ' || ranread_internal.ranread_conninfo_scrub(err, node.conninfo);
    END IF;
    RETURN node;
END
$$;

-- A node's answer to its batch (ranread_remote_result's jsonb), as the
-- fleet's state of that node: done (the batch ended and said so),
-- cancelled (it ended by a cancel, ours or anyone's on the node), failed
-- (its error, or its connection lost), with the message and SQLSTATE.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_fleet_outcome(r jsonb, conninfo text,
    OUT state text, OUT message text, OUT code text)
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN $1->>'state' = 'ok' THEN 'done'
                WHEN $1->>'state' = 'error' AND $1->>'sqlstate' = '57014' THEN 'cancelled'
                ELSE 'failed' END,
           CASE WHEN $1->>'state' <> 'ok' THEN ranread_internal.ranread_conninfo_scrub(
               trim(regexp_replace(coalesce($1->>'message', 'no answer')
                                   || coalesce(': ' || nullif($1->>'detail', ''), ''), '\s+', ' ', 'g')), $2) END,
           CASE WHEN $1->>'state' <> 'ok' THEN coalesce($1->>'sqlstate', '08006') END
$$;

-- The nodes in a state, by the names of their connections
CREATE OR REPLACE FUNCTION ranread_internal.ranread_fleet_cnames(nodes ranread_internal.ranread_fleet_node_state[], state text)
RETURNS text[]
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT ARRAY(SELECT x.cname FROM unnest($1) x WHERE x.state = $2 ORDER BY x.node)
$$;

-- Stop the nodes still running: a cancel of each (a fresh connection asks
-- pg_cancel_backend() of its session, all within 1 s), then their answers
-- until until (no longer than some node that took its cancel has still to
-- answer).  A node that has not answered by then is given up: lost.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_fleet_stop_nodes(
    nodes ranread_internal.ranread_fleet_node_state[], until timestamptz)
RETURNS ranread_internal.ranread_fleet_node_state[]
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    run  text[] := ranread_internal.ranread_fleet_cnames(nodes, 'running');
    run0 text[] := run;
    took boolean[];
    c    text;
    k    integer;
    oc   record;
BEGIN
    IF cardinality(run) = 0 THEN
        RETURN nodes;
    END IF;
    took := ranread_internal.ranread_remote_cancel(run, least(1000, ranread_internal.ranread_fleet_ms(until)));
    LOOP
        run := ranread_internal.ranread_fleet_cnames(nodes, 'running');
        -- wait on while a node that took its cancel has not answered yet
        EXIT WHEN cardinality(run) = 0 OR ranread_internal.ranread_fleet_ms(until) = 0
            OR NOT EXISTS (SELECT FROM unnest(run) r WHERE took[array_position(run0, r)]);
        FOREACH c IN ARRAY ranread_internal.ranread_remote_wait(run, ranread_internal.ranread_fleet_ms(until)) LOOP
            k := (SELECT x.node FROM unnest(nodes) x WHERE x.cname = c);
            SELECT * INTO oc FROM ranread_internal.ranread_fleet_outcome(
                ranread_internal.ranread_remote_result(c, 0), nodes[k].conninfo);
            nodes[k].state := oc.state;
            IF oc.state = 'failed' THEN
                nodes[k].message := coalesce(nodes[k].message, oc.message);
            END IF;
        END LOOP;
    END LOOP;
    FOR i IN 1..cardinality(nodes) LOOP
        IF nodes[i].state = 'running' THEN
            nodes[i].state := 'lost';
            nodes[i].message := coalesce(nodes[i].message || '; ', '')
                || 'given up: it did not answer its cancel in time (frozen, or its network is gone)';
        END IF;
    END LOOP;
    RETURN nodes;
END
$$;

-- A run by iterations has no due end of its own: this is its bound.  Each
-- running node's server is asked, on a fresh connection (within 5 s),
-- whether a ranread worker runs there; alive_at is when each was last seen
-- at work.  A node not seen so for 30 s (frozen, its network gone, or its
-- session stuck after its workers ended) is stopped, and lost if it does
-- not answer that either.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_fleet_watch(fleet_id bigint,
    nodes ranread_internal.ranread_fleet_node_state[])
RETURNS ranread_internal.ranread_fleet_node_state[]
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    run    text[] := ranread_internal.ranread_fleet_cnames(nodes, 'running');
    seen   text[];
    stall  boolean := false;
    why    constant text := 'it showed no sign of work for 30 s (no answer to ranread''s probe, or no ranread worker running, while its batch by iterations went unanswered)';
    k      integer;
BEGIN
    IF cardinality(run) = 0 THEN
        RETURN nodes;
    END IF;
    seen := ranread_internal.ranread_remote_probe(run,
        'SELECT pg_catalog.count(*) FROM pg_catalog.pg_stat_activity WHERE backend_type = ''ranread worker''', 5000);
    FOR j IN 1..cardinality(run) LOOP
        k := (SELECT x.node FROM unnest(nodes) x WHERE x.cname = run[j]);
        IF coalesce(seen[j] ~ '^[1-9][0-9]*$', false) THEN
            nodes[k].alive_at := clock_timestamp();
        END IF;
    END LOOP;
    -- only the nodes not seen at work are stopped: the others are hidden
    FOR k IN 1..cardinality(nodes) LOOP
        CONTINUE WHEN nodes[k].state <> 'running';
        IF clock_timestamp() - nodes[k].alive_at > interval '30 s' THEN
            RAISE WARNING 'fleet %: node "%" showed no sign of work for 30 s (a run by iterations has no due end): stopping it',
                fleet_id, nodes[k].name;
            nodes[k].message := why;
            stall := true;
        ELSE
            nodes[k].state := 'running, at work';
        END IF;
    END LOOP;
    IF stall THEN
        nodes := ranread_internal.ranread_fleet_stop_nodes(nodes, clock_timestamp() + interval '3 s');
    END IF;
    FOR k IN 1..cardinality(nodes) LOOP
        IF nodes[k].state = 'running, at work' THEN
            nodes[k].state := 'running';
        ELSIF nodes[k].message IS NOT DISTINCT FROM why AND nodes[k].state = 'cancelled' THEN
            nodes[k].state := 'failed';
        ELSIF nodes[k].message IS NOT DISTINCT FROM why AND nodes[k].state = 'done' THEN
            nodes[k].message := NULL;   -- it answered just then
        END IF;
    END LOOP;
    RETURN nodes;
END
$$;

-- Step 4 of a fleet, one round: the nodes' answers awaited for up to a
-- second, each taken as it comes (a node that fails is warned of, and
-- with on_node_failure => 'stop' the others are stopped); or, when it is
-- time, a run by iterations watched (ranread_fleet_watch, every 10 s:
-- probe_at, from the first round on), or a run by duration's nodes that
-- have not answered 30 s after the batch was due to end (due_end) stopped,
-- and lost if they do not answer that.  A round never holds an answer
-- taken while it waits: a cancel lands in the wait, before any node's
-- state changes.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_fleet_poll(f ranread_internal.ranread_fleet_call,
    o @extschema@.ranread_fleet_options)
RETURNS ranread_internal.ranread_fleet_call
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    nodes ranread_internal.ranread_fleet_node_state[] := f.nodes;
    run   text[] := ranread_internal.ranread_fleet_cnames(f.nodes, 'running');
    c     text;
    i     integer;
    oc    record;
BEGIN
    IF f.probe_at IS NULL THEN
        -- the first round: every node counts as at work from its start
        f.probe_at := greatest(f.start_at, clock_timestamp());
        FOR k IN 1..cardinality(nodes) LOOP
            nodes[k].alive_at := f.probe_at;
        END LOOP;
        f.probe_at := f.probe_at + interval '10 s';
    END IF;
    IF o.duration IS NULL AND clock_timestamp() >= f.probe_at THEN
        f.nodes := ranread_internal.ranread_fleet_watch(f.fleet, nodes);
        f.probe_at := clock_timestamp() + interval '10 s';
        RETURN f;
    END IF;
    IF clock_timestamp() > f.due_end THEN
        f.nodes := ranread_internal.ranread_fleet_overdue(f.fleet, nodes);
        RETURN f;
    END IF;
    FOREACH c IN ARRAY ranread_internal.ranread_remote_wait(run, 1000) LOOP
        i := (SELECT x.node FROM unnest(nodes) x WHERE x.cname = c);
        SELECT * INTO oc FROM ranread_internal.ranread_fleet_outcome(
            ranread_internal.ranread_remote_result(c, 0), nodes[i].conninfo);
        nodes[i].state := oc.state;
        CONTINUE WHEN oc.state = 'done';
        nodes[i].message := oc.message;
        nodes[i].code := oc.code;
        RAISE WARNING 'node "%" of fleet % %: %', nodes[i].name, f.fleet, oc.state, oc.message;
        IF o.on_node_failure = 'stop' THEN
            RAISE WARNING 'fleet %: stopping the other nodes (on_node_failure => ''stop'')', f.fleet;
            nodes := ranread_internal.ranread_fleet_stop_nodes(nodes, clock_timestamp() + interval '3 s');
        END IF;
    END LOOP;
    f.nodes := nodes;
    RETURN f;
END
$$;

-- A run by duration whose nodes have not answered 30 s after the batch
-- was due to end: they are stopped, failed when they take the cancel,
-- lost when they do not answer it either
CREATE OR REPLACE FUNCTION ranread_internal.ranread_fleet_overdue(fleet_id bigint,
    nodes ranread_internal.ranread_fleet_node_state[])
RETURNS ranread_internal.ranread_fleet_node_state[]
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    RAISE WARNING 'fleet %: % of its nodes did not answer 30 s after the batch was due to end: stopping them',
        fleet_id, cardinality(ranread_internal.ranread_fleet_cnames(nodes, 'running'));
    FOR k IN 1..cardinality(nodes) LOOP
        IF nodes[k].state = 'running' THEN
            nodes[k].message := 'it did not answer 30 s after its batch was due to end';
        END IF;
    END LOOP;
    nodes := ranread_internal.ranread_fleet_stop_nodes(nodes, clock_timestamp() + interval '3 s');
    FOR k IN 1..cardinality(nodes) LOOP
        IF nodes[k].state = 'cancelled' AND nodes[k].message LIKE 'it did not answer 30 s%' THEN
            nodes[k].state := 'failed';
        ELSIF nodes[k].state = 'done' AND nodes[k].message LIKE 'it did not answer 30 s%' THEN
            nodes[k].message := NULL;   -- it answered just then
        END IF;
    END LOOP;
    RETURN nodes;
END
$$;
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
-- 1.1, the fleet: its rows as ranread_fleet returned them, the fleet sweep
-- (the sweep method with the fleet's totals), the charts and the export.

-- A fleet's rows as ranread_fleet returned them: one per node, then the
-- fleet (node 0), their figures whole (what the chart and the export
-- read).  The latest fleet when NULL.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_fleet_rows_raw(fleet bigint DEFAULT NULL)
RETURNS SETOF ranread_internal.ranread_fleet_result_raw
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    WITH f AS (SELECT * FROM ranread_internal.ranread_fleet_summary_raw s
                WHERE s.fleet = coalesce($1, (SELECT max(x.fleet) FROM @extschema@.ranread_fleets x)))
    SELECT * FROM (
        SELECT n.fleet, n.node, n.name, n.batch,
               -- a node left 'running' by a coordinator that is gone was lost
               CASE WHEN n.status = 'running' AND f.status <> 'running' THEN 'lost' ELSE n.status END,
               n.reads, n.writes, n.seconds, n.iops,
               n.mbps, n.avg_ms, n.p50_ms, n.p99_ms, n.p999_ms, n.max_ms, n.offset_ms, n.rtt_ms,
               n.late_ms, n.outlier,
               CASE WHEN n.status = 'running' AND f.status <> 'running' THEN coalesce(n.message, f.message) ELSE n.message END
          FROM @extschema@.ranread_fleet_nodes n JOIN f USING (fleet)
        UNION ALL
        SELECT f.fleet, 0, 'fleet', NULL, f.status, f.reads, f.writes, f.window_seconds, f.iops,
               f.mbps, f.avg_ms, f.p50_ms, f.p99_ms, f.p999_ms, f.max_ms, f.offset_spread_ms,
               f.max_rtt_ms, f.start_spread_ms, NULL, f.message
          FROM f) r
     ORDER BY r.node = 0, r.node
$$;

-- A fleet's rows as ranread_fleet returned them, rounded as it returns
-- them.  The latest fleet when NULL.
CREATE OR REPLACE FUNCTION @extschema@.ranread_fleet_rows(fleet bigint DEFAULT NULL)
RETURNS SETOF @extschema@.ranread_fleet_result
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT r.* FROM ranread_internal.ranread_fleet_rows_raw($1) x,
        LATERAL ranread_internal.ranread_fleet_round(x) r
$$;

-- The arguments of ranread_fleet_sweep that its steps' fleets do not
-- check: start, max_processes, max_avg_ms, iterations or duration, and
-- the isolation level its recorded steps need
CREATE OR REPLACE FUNCTION ranread_internal.ranread_fleet_sweep_check(start integer, max_processes integer,
    iterations bigint, duration interval, max_avg_ms float8, fn text)
RETURNS void
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    lim record;
BEGIN
    SELECT * INTO lim FROM @extschema@.ranread_limits();
    IF start IS NULL OR start < 1 OR start > lim.max_processes THEN
        RAISE EXCEPTION USING
            ERRCODE = CASE WHEN start IS NULL THEN 'null_value_not_allowed' ELSE 'invalid_parameter_value' END,
            MESSAGE = format('invalid start %s for %s', coalesce(start::text, 'NULL'), fn),
            HINT = format('start is the processes per node of the first step: 1 to %s.', lim.max_processes);
    END IF;
    PERFORM ranread_internal.ranread_require_read_committed(fn,
        'Its steps are recorded while it runs, which a repeatable read snapshot cannot see; run it outside an explicit transaction.');
    IF max_processes IS NULL OR max_processes < start OR max_processes > lim.max_processes THEN
        RAISE EXCEPTION USING
            ERRCODE = CASE WHEN max_processes IS NULL THEN 'null_value_not_allowed' ELSE 'invalid_parameter_value' END,
            MESSAGE = format('invalid max_processes %s for %s', coalesce(max_processes::text, 'NULL'), fn),
            HINT = format('max_processes (per node) must be between start (%s) and %s.', start, lim.max_processes);
    END IF;
    IF max_avg_ms IS NULL OR NOT (max_avg_ms > 0) OR max_avg_ms IN ('NaN'::float8, 'Infinity'::float8) THEN
        RAISE EXCEPTION USING
            ERRCODE = CASE WHEN max_avg_ms IS NULL THEN 'null_value_not_allowed' ELSE 'invalid_parameter_value' END,
            MESSAGE = format('invalid max_avg_ms %s for %s', coalesce(max_avg_ms::text, 'NULL'), fn),
            HINT = 'max_avg_ms is the bound on the fleet''s average latency in milliseconds: a finite number greater than 0, such as 10.';
    END IF;
    IF iterations IS NULL AND duration IS NULL THEN
        RAISE EXCEPTION USING
            ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('%s needs iterations or duration', fn),
            HINT = 'Each step runs for duration (such as ''30s'') or iterations I/Os per process.';
    END IF;
END
$$;

-- A fleet sweep's start recorded through its recorder, and its last words
-- should its coordinator end before the sweep's end is recorded
CREATE OR REPLACE FUNCTION ranread_internal.ranread_fleet_sweep_begin(recorder text, sweep_id bigint,
    names text[], o @extschema@.ranread_fleet_options, start integer, max_processes integer, max_avg_ms float8)
RETURNS void
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM ranread_internal.ranread_remote_query(recorder, format($q$
        INSERT INTO @extschema@.ranread_fleet_sweeps
            (sweep, started_at, started_by, nodes, definition, start, max_processes, max_avg_ms)
        VALUES (%s, %L, %L, %L, %L, %s, %s, %s) $q$,
        sweep_id, to_jsonb(clock_timestamp())#>>'{}', current_user, names,
        to_jsonb(o) - 'nodes' - 'loopback' - 'processes' || jsonb_build_object('start', start),
        start, max_processes, max_avg_ms), 10000);
    PERFORM ranread_internal.ranread_remote_last_words(recorder, format(
        'UPDATE @extschema@.ranread_fleet_sweeps SET finished_at = clock_timestamp(), stop_reason = %L WHERE sweep = %s AND finished_at IS NULL',
        'ended with its coordinator (its session was terminated, or its server stopped)', sweep_id));
END
$$;

-- A fleet sweep's end: the verdict on its steps (ranread_sweep_judge)
-- recorded through its recorder, which is closed, and said in notices
CREATE OR REPLACE FUNCTION ranread_internal.ranread_fleet_sweep_end(recorder text, sweep_id bigint,
    steps @extschema@.ranread_sweep_step[], reason text, max_avg_ms float8)
RETURNS void
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    verdict record;
BEGIN
    SELECT * INTO verdict FROM ranread_internal.ranread_sweep_judge(steps, max_avg_ms);
    BEGIN
        PERFORM ranread_internal.ranread_remote_query(recorder, format($q$
            UPDATE @extschema@.ranread_fleet_sweeps
               SET finished_at = %L, steps = %s, stop_reason = %L, max_iops = %L,
                   actual_latency_ms = %L, max_iops_processes = %L, max_iops_fleet = %L,
                   meets_flash_guidance = %L
             WHERE sweep = %s $q$,
            to_jsonb(clock_timestamp())#>>'{}', cardinality(steps), reason, verdict.max_iops,
            verdict.actual_latency_ms, verdict.processes, verdict.batch, verdict.meets_flash_guidance,
            sweep_id), 10000);
        PERFORM ranread_internal.ranread_remote_last_words(recorder, NULL);
    EXCEPTION WHEN query_canceled OR others THEN
        PERFORM ranread_internal.ranread_remote_close(ARRAY[recorder]);
        RAISE;
    END;
    PERFORM ranread_internal.ranread_remote_close(ARRAY[recorder]);

    PERFORM ranread_internal.ranread_sweep_say_end('fleet sweep', sweep_id, steps, reason, max_avg_ms, verdict);
END
$$;

-- ranread_fleet_sweep, behind the C function users call: its own
-- arguments bound by name, and all of them by name (args), from which its
-- steps' fleets take their options (src/workload/forward.c).  Its rows are
-- ranread_fleet_sweep's (the caller's ReturnSetInfo gives their columns):
-- one per step, stop_reason on the last.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_fleet_sweep(
    nodes            text[],
    start            integer,
    max_processes    integer,
    iterations       bigint,
    duration         interval,
    max_avg_ms       float8,
    loopback         text,
    args             jsonb)
RETURNS SETOF record
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    fn       text := 'ranread_fleet_sweep';
    o        @extschema@.ranread_fleet_options;
    nxt      record;
    r        ranread_internal.ranread_fleet_result_raw;
    done     integer;
    steps    @extschema@.ranread_sweep_step[] := '{}';
    counts   integer[] := '{}';
    sweep_id bigint;
    recorder text;
    rec_conn text;
    names    text[];
    reason   text;
    e_msg    text;
BEGIN
    -- first, before anything can fail: the call's text without its passwords
    PERFORM ranread_internal.ranread_conninfo_hide(nodes);
    PERFORM ranread_internal.ranread_conninfo_hide(ARRAY[loopback]);
    -- the fleet's options, by name: every step one fleet of start ... processes
    o := jsonb_populate_record(NULL::@extschema@.ranread_fleet_options,
             args || jsonb_build_object('processes', start, 'skip_unavailable', false));
    PERFORM ranread_internal.ranread_fleet_sweep_check(start, max_processes, iterations, duration, max_avg_ms, fn);
    PERFORM ranread_internal.ranread_fleet_check(o, fn);
    PERFORM ranread_internal.ranread_primary_only(fn);
    SELECT x.names INTO names FROM ranread_internal.ranread_fleet_resolve(nodes, fn) x;

    sweep_id := nextval('@extschema@.ranread_sweep_seq'::regclass);
    recorder := format('ranread_fleet_sweep_%s', sweep_id);
    rec_conn := ranread_internal.ranread_fleet_loopback(loopback);
    -- among the running calls ranread_reset keeps whole (a sweep: its id
    -- comes from the sweeps' sequence), until this transaction ends
    PERFORM ranread_internal.ranread_call_register('sweep', sweep_id);
    PERFORM ranread_internal.ranread_fleet_recorder(recorder, rec_conn, fn, 'sweep');

    PERFORM ranread_internal.ranread_fleet_sweep_begin(recorder, sweep_id, names, o, start, max_processes, max_avg_ms);

    BEGIN
        LOOP
            SELECT * INTO nxt FROM ranread_internal.ranread_sweep_next(steps, start, max_processes, max_avg_ms);
            reason := regexp_replace(nxt.stop_reason, '^status: batch', 'status: fleet');
            EXIT WHEN nxt.next_processes IS NULL;
            o.processes := nxt.next_processes;
            SELECT * INTO r FROM ranread_internal.ranread_fleet_run(o, sweep_id, fn) x WHERE x.node = 0;
            SELECT count(*) INTO done FROM @extschema@.ranread_fleet_nodes x
             WHERE x.fleet = r.fleet AND x.status = 'completed';
            steps := steps || ROW(coalesce(cardinality(steps), 0) + 1, o.processes, r.fleet,
                                  r.iops, r.avg_ms, r.p99_ms, r.max_ms, r.status)::@extschema@.ranread_sweep_step;
            counts := counts || done;
            PERFORM ranread_internal.ranread_sweep_say_step('fleet sweep', sweep_id, steps[cardinality(steps)]);
        END LOOP;
    EXCEPTION WHEN query_canceled OR others THEN
        GET STACKED DIAGNOSTICS e_msg = MESSAGE_TEXT;
        BEGIN
            IF ranread_internal.ranread_fleet_recorder_ready(recorder, rec_conn, clock_timestamp() + interval '1 s') THEN
                PERFORM ranread_internal.ranread_remote_query(recorder, format(
                    'UPDATE @extschema@.ranread_fleet_sweeps SET finished_at = %L, steps = %s, stop_reason = %L WHERE sweep = %s',
                    to_jsonb(clock_timestamp())#>>'{}', coalesce(cardinality(steps), 0),
                    'ended by an error or a cancel: ' || e_msg, sweep_id), 1000);
                PERFORM ranread_internal.ranread_remote_last_words(recorder, NULL);
            END IF;
        EXCEPTION WHEN query_canceled OR others THEN
            NULL;
        END;
        PERFORM ranread_internal.ranread_remote_close(ARRAY[recorder]);
        RAISE;
    END;

    PERFORM ranread_internal.ranread_fleet_sweep_end(recorder, sweep_id, steps, reason, max_avg_ms);

    RETURN QUERY
        SELECT s.step, s.processes, s.batch, counts[s.k::integer],
               ranread_internal.ranread_round(s.iops, 0)::bigint, ranread_internal.ranread_round(s.avg_ms, 3),
               ranread_internal.ranread_round(s.p99_ms, 3), ranread_internal.ranread_round(s.max_ms, 3),
               coalesce(s.status = 'completed' AND s.avg_ms <= max_avg_ms, false),
               CASE WHEN s.k = cardinality(steps) THEN reason END
          FROM unnest(steps) WITH ORDINALITY AS s(step, processes, batch, iops, avg_ms, p99_ms, max_ms, status, k);
END
$$;

-- The sweep method across the fleet: every node runs start, 2 x start, 4 x
-- start ... processes (the last clamped to max_processes), all nodes at
-- once, until ranread_sweep_next says stop on the fleet's figures (its
-- average latency above max_avg_ms twice in a row, its IOPS growing by less
-- than 10% of linear, a step that did not complete).  One row per step;
-- the verdict (ranread_sweep_judge on the fleet's steps) in
-- ranread_fleet_sweeps, recorded through the recorder like the fleets.
CREATE OR REPLACE FUNCTION @extschema@.ranread_fleet_sweep(
    nodes            text[],
    start            integer  DEFAULT 1,
    max_processes    integer  DEFAULT 1280,
    iterations bigint DEFAULT NULL,
    duration interval DEFAULT '30s',
    max_avg_ms       float8   DEFAULT 10,
    target name DEFAULT 'ranread',
    block_size integer DEFAULT 8192,
    write_pct integer DEFAULT 0,
    queue_depth integer DEFAULT 1,
    pattern text DEFAULT 'random',
    region_start float8 DEFAULT 0,
    region_end float8 DEFAULT 100,
    warmup interval DEFAULT '0',
    rate_iops integer DEFAULT NULL,
    seed bigint DEFAULT NULL,
    workers integer DEFAULT NULL,
    distribution text DEFAULT 'uniform',
    steady_state text DEFAULT NULL,
    start_delay      interval DEFAULT '2s',
    on_node_failure  text     DEFAULT 'continue',
    max_offset_ms    float8   DEFAULT 10,
    on_clock_skew    text     DEFAULT 'error',
    loopback         text     DEFAULT NULL,
    sync text DEFAULT NULL,
    io_priority text DEFAULT NULL,
    verify boolean DEFAULT false,
    path text DEFAULT 'device',
    effective_io_concurrency integer DEFAULT NULL)
    -- not processes: each step's, from start and max_processes
    -- not start_at: the fleet starts every node at once, start_delay after each step begins
RETURNS TABLE (
    step            integer,
    processes       integer,
    fleet           bigint,
    nodes_completed integer,
    iops            bigint,
    avg_ms          numeric,
    p99_ms          numeric,
    max_ms          numeric,
    within_bound    boolean,
    stop_reason     text)
AS 'MODULE_PATHNAME', 'ranread_forward'
LANGUAGE C CALLED ON NULL INPUT VOLATILE;

-- SVG: a fleet's IOPS per node and in total (bars), the outlier bound, and
-- a table of every node's figures.  The latest fleet when NULL.
CREATE OR REPLACE FUNCTION @extschema@.ranread_fleet_chart(fleet bigint DEFAULT NULL)
RETURNS text
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    f      record;
    median float8;
BEGIN
    SELECT * INTO f FROM ranread_internal.ranread_fleet_summary_raw s
     WHERE s.fleet = coalesce($1, (SELECT max(x.fleet) FROM @extschema@.ranread_fleets x));
    IF NOT FOUND THEN
        RETURN @extschema@.ranread_svg(jsonb_build_object('kind', 'bar',
            'title', 'Fleet: IOPS per node and in total', 'empty', 'No fleet has run yet: SELECT * FROM ranread_fleet(...)'));
    END IF;
    SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY n.iops) INTO median
      FROM @extschema@.ranread_fleet_nodes n WHERE n.fleet = f.fleet AND n.iops IS NOT NULL;
    RETURN @extschema@.ranread_svg(jsonb_build_object(
        'kind', 'bar',
        'title', format('Fleet %s: IOPS per node and in total', f.fleet),
        'subtitle', format('%s x %s, %s; started %s', ranread_internal.ranread_count_words(f.nodes, 'node'), ranread_internal.ranread_count_words(f.processes, 'process'),
                           (SELECT format('%s B %s, %s%% writes, queue depth %s', d.block_size, d.pattern, d.write_pct, d.queue_depth)
                              FROM jsonb_to_record(f.definition->'options') AS d(block_size integer, pattern text, write_pct integer, queue_depth integer)),
                           to_char(f.start_at, 'YYYY-MM-DD HH24:MI:SS TZ')),
        'categories', (SELECT jsonb_agg(left(n.name, 32) ORDER BY n.node) || '["fleet total"]'::jsonb
                         FROM @extschema@.ranread_fleet_nodes n WHERE n.fleet = f.fleet),
        'series', jsonb_build_array(jsonb_build_object('label', 'IOPS', 'labels', true,
            'y', (SELECT jsonb_agg(round(n.iops::numeric) ORDER BY n.node)
                    FROM @extschema@.ranread_fleet_nodes n WHERE n.fleet = f.fleet)
                 || jsonb_build_array(round(f.iops::numeric)))),
        'y', jsonb_build_object('label', 'IOPS (I/O operations per second)', 'format', 'count'),
        'lines', CASE WHEN median IS NULL THEN '[]'::jsonb ELSE jsonb_build_array(jsonb_build_object(
            'value', round((0.8 * median)::numeric), 'label', 'outlier bound',
            'legend', 'Outlier bound: 0.8x the median node')) END,
        'notes', jsonb_build_array(
            jsonb_build_object('style', CASE WHEN f.status = 'completed' THEN 'headline' ELSE 'headline-bad' END,
                'text', format('%s IOPS in total over the common window of %s s (%s); average %s ms, p99 %s ms from the merged histograms of every node',
                    coalesce(to_char(round(f.iops::numeric), 'FM999,999,999,999'), 'no'), round(coalesce(f.window_seconds, 0)::numeric, 2), f.status,
                    coalesce(round(f.avg_ms::numeric, 3)::text, 'n/a'), coalesce(round(f.p99_ms::numeric, 3)::text, 'n/a'))),
            format('first I/Os within %s ms of each other; clock offsets within %s ms',
                coalesce(round(f.start_spread_ms::numeric, 1)::text, 'n/a'), coalesce(round(f.offset_spread_ms::numeric, 3)::text, 'n/a')))
            || CASE WHEN f.outliers IS NULL THEN '[]'::jsonb ELSE jsonb_build_array(jsonb_build_object('style', 'bad',
                   'text', 'outliers (below 0.8x the median node): ' || array_to_string(f.outliers, ', '))) END,
        'table', jsonb_build_object(
            'header', '["node", "status", "batch", "IOPS", "avg ms", "p99 ms", "max ms", "first I/O ms"]'::jsonb,
            'align', '["left", "left", "right", "right", "right", "right", "right", "right"]'::jsonb,
            'rows', (SELECT coalesce(jsonb_agg(jsonb_build_array(
                        n.name,
                        jsonb_build_object('text', n.status || CASE WHEN n.outlier THEN ', outlier' ELSE '' END,
                                           'tone', CASE WHEN n.status = 'completed' AND NOT coalesce(n.outlier, false) THEN 'plain' ELSE 'bad' END),
                        n.batch, round(n.iops::numeric), round(n.avg_ms::numeric, 3), round(n.p99_ms::numeric, 3),
                        round(n.max_ms::numeric, 3), round(n.first_io_ms::numeric, 2)) ORDER BY n.node), '[]')
                       FROM ranread_internal.ranread_fleet_rows_raw(f.fleet) n WHERE n.node > 0))));
END
$$;

-- SVG: a fleet's IOPS per second, one line per node (the first 11) and the
-- fleet's total, on seconds from start_at.  The latest fleet when NULL.
CREATE OR REPLACE FUNCTION @extschema@.ranread_fleet_timeline(fleet bigint DEFAULT NULL)
RETURNS text
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    f record;
BEGIN
    SELECT * INTO f FROM ranread_internal.ranread_fleet_summary_raw s
     WHERE s.fleet = coalesce($1, (SELECT max(x.fleet) FROM @extschema@.ranread_fleets x));
    IF NOT FOUND THEN
        RETURN @extschema@.ranread_svg(jsonb_build_object(
            'title', 'Fleet: IOPS per second', 'empty', 'No fleet has run yet: SELECT * FROM ranread_fleet(...)'));
    END IF;
    RETURN @extschema@.ranread_svg(jsonb_build_object(
        'title', format('Fleet %s: IOPS per second, per node and in total', f.fleet),
        'subtitle', format('%s x %s; seconds from the start at %s, aligned by epoch second',
                           ranread_internal.ranread_count_words(f.nodes, 'node'), ranread_internal.ranread_count_words(f.processes, 'process'), to_char(f.start_at, 'YYYY-MM-DD HH24:MI:SS TZ')),
        'empty', 'The fleet has no per-second figures.',
        'x', '{"label": "Time from the start", "integer": true, "time": "duration"}'::jsonb,
        'y', '{"label": "IOPS (I/O operations per second)", "format": "count"}'::jsonb,
        'series', coalesce((
            SELECT jsonb_agg(jsonb_build_object('label', left(n.name, 40), 'marker', 'none',
                       'x', (SELECT jsonb_agg(extract(epoch FROM s.at - f.start_at)::integer ORDER BY s.at)
                               FROM @extschema@.ranread_fleet_seconds s WHERE s.fleet = f.fleet AND s.node = n.node),
                       'y', (SELECT jsonb_agg(round(s.iops::numeric) ORDER BY s.at)
                               FROM @extschema@.ranread_fleet_seconds s WHERE s.fleet = f.fleet AND s.node = n.node))
                   ORDER BY n.node)
              FROM @extschema@.ranread_fleet_nodes n
             WHERE n.fleet = f.fleet AND n.node <= 11
               AND EXISTS (SELECT FROM @extschema@.ranread_fleet_seconds s WHERE s.fleet = f.fleet AND s.node = n.node)), '[]')
          || coalesce((SELECT jsonb_build_array(jsonb_build_object('label', 'fleet total', 'width', 3,
                       'x', jsonb_agg(v.second ORDER BY v.at), 'y', jsonb_agg(round(v.iops::numeric) ORDER BY v.at)))
                         FROM ranread_internal.ranread_fleet_series_raw v WHERE v.fleet = f.fleet
                       HAVING count(*) > 0), '[]'),
        'notes', jsonb_build_array(
            format('common window: %s s, %s IOPS in total there; status %s',
                   round(coalesce(f.window_seconds, 0)::numeric, 2), coalesce(to_char(round(f.iops::numeric), 'FM999,999,999,999'), 'no'), f.status))
            || CASE WHEN f.nodes > 11 THEN jsonb_build_array(format('the first 11 of %s nodes are drawn; the total counts all', f.nodes))
                    ELSE '[]'::jsonb END));
END
$$;

-- A fleet to a server file: its rows (tsv, csv), everything about it
-- (json: the fleet, its nodes and seconds) or its chart (svg), as
-- directory/ranread_fleet_<fleet>_YYYYMMDD-HHMMSS.<ext>, never overwriting.
-- Returns the path.  Needs superuser (COPY TO and lo_export write as the
-- server).
CREATE OR REPLACE FUNCTION @extschema@.ranread_fleet_export(
    directory text,
    format    text   DEFAULT 'tsv',
    fleet     bigint DEFAULT NULL)
RETURNS text
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    id   bigint;
    path text;
    body text;
    lo   oid;
    q    text := 'SELECT * FROM ranread_internal.ranread_fleet_rows_raw(%s)';
    shown text;
    isdir boolean;
BEGIN
    -- the directory as errors show it: at most 100 characters of it
    shown := CASE WHEN length(directory) <= 100 THEN quote_literal(directory)
                  ELSE quote_literal(left(directory, 100)) || format('... (%s characters)', length(directory)) END;
    IF directory IS NULL OR directory !~ '^/' THEN
        RAISE EXCEPTION USING
            ERRCODE = CASE WHEN directory IS NULL THEN 'null_value_not_allowed' ELSE 'invalid_parameter_value' END,
            MESSAGE = format('directory of ranread_fleet_export must be an absolute path, not %s', coalesce(shown, 'NULL')),
            HINT = 'The file is written by the server, in a directory such as ''/var/tmp''.';
    END IF;
    -- what a path may be (Linux: 255 bytes a name), with room for the file's name
    IF octet_length(directory) > 900 OR EXISTS (SELECT FROM regexp_split_to_table(directory, '/') n WHERE octet_length(n) > 255) THEN
        RAISE EXCEPTION USING
            ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('directory of ranread_fleet_export must be a path of at most 900 bytes, each name in it at most 255, not %s', shown),
            HINT = 'The file is written by the server, in a directory such as ''/var/tmp''.';
    END IF;
    IF format IS NULL OR format NOT IN ('tsv', 'csv', 'json', 'svg') THEN
        RAISE EXCEPTION USING
            ERRCODE = CASE WHEN format IS NULL THEN 'null_value_not_allowed' ELSE 'invalid_parameter_value' END,
            MESSAGE = format('format of ranread_fleet_export must be tsv, csv, json or svg, not %s', coalesce(quote_literal(format), 'NULL')),
            HINT = 'tsv and csv: a row per node and one for the fleet; json: the fleet with its nodes and seconds; svg: its chart.';
    END IF;
    id := coalesce(fleet, (SELECT max(x.fleet) FROM @extschema@.ranread_fleets x));
    IF NOT EXISTS (SELECT FROM @extschema@.ranread_fleets x WHERE x.fleet = id) THEN
        RAISE EXCEPTION USING
            ERRCODE = 'undefined_object',
            MESSAGE = CASE WHEN fleet IS NULL THEN 'there is no fleet to export'
                           ELSE format('fleet %s does not exist', fleet) END,
            HINT = 'ranread_fleet_summary lists the fleets.';
    END IF;
    BEGIN
        isdir := coalesce((pg_stat_file(directory, true)).isdir, false);
    EXCEPTION WHEN internal_error THEN
        -- an error of the system PostgreSQL has no code for (a loop of symbolic links, ...)
        RAISE EXCEPTION USING
            ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('directory %s of ranread_fleet_export cannot be looked at: %s', shown, SQLERRM),
            HINT = 'Give a directory the server can write to.';
    END;
    IF NOT isdir THEN
        RAISE EXCEPTION USING
            ERRCODE = 'undefined_file',
            MESSAGE = format('directory %s of ranread_fleet_export does not exist', shown),
            HINT = 'Give a directory the server can write to.';
    END IF;
    path := rtrim(directory, '/') || format('/ranread_fleet_%s_%s.%s', id,
                                             to_char(clock_timestamp(), 'YYYYMMDD-HH24MISS'), format);
    IF (pg_stat_file(path, true)).size IS NOT NULL THEN
        RAISE EXCEPTION USING
            ERRCODE = 'duplicate_file',
            MESSAGE = format('file "%s" already exists', path),
            HINT = 'ranread_fleet_export never overwrites a file: try again in a second.';
    END IF;
    IF format IN ('tsv', 'csv') THEN
        EXECUTE format('COPY (%s) TO %L WITH (FORMAT %s, HEADER true)',
                       format(q, id), path, CASE format WHEN 'tsv' THEN 'text' ELSE 'csv' END);
        RETURN path;
    END IF;
    IF format = 'svg' THEN
        body := @extschema@.ranread_fleet_chart(id);
    ELSE
        SELECT jsonb_pretty(jsonb_build_object(
                   'fleet', (SELECT to_jsonb(s) - 'definition' FROM ranread_internal.ranread_fleet_summary_raw s WHERE s.fleet = id),
                   'definition', (SELECT x.definition FROM @extschema@.ranread_fleets x WHERE x.fleet = id),
                   'nodes', (SELECT jsonb_agg(to_jsonb(r)) FROM ranread_internal.ranread_fleet_rows_raw(id) r WHERE r.node > 0),
                   'seconds', (SELECT coalesce(jsonb_agg(to_jsonb(v) ORDER BY v.at), '[]')
                                 FROM ranread_internal.ranread_fleet_series_raw v WHERE v.fleet = id)))
          INTO body;
    END IF;
    lo := lo_from_bytea(0, convert_to(body || E'\n', 'UTF8'));
    PERFORM lo_export(lo, path);
    PERFORM lo_unlink(lo);
    RETURN path;
END
$$;
-- 1.1, keeping watch (docs/keeping-watch.md, "Keeping watch"): the probe, its
-- cap, its target and its schedule.
--
-- A probe is one small paced batch on the one workload path: a spec handed
-- to ranread_run_step, one process at queue depth 1, random 8 KiB reads,
-- read-only, paced at rate_iops, at a low I/O priority (io_priority), on
-- the tablespace's own probe target.  Its cost is capped by settings only a
-- superuser sets (ranread.probe_max_iops, ranread.probe_max_seconds:
-- src/watch/probe.c), so a monitoring role granted the probe cannot make it
-- heavier; and so is the share of time probes hold the cluster's one batch
-- (ranread.probe_max_share of ranread.probe_share_window: the batches on
-- the probe targets of this database), so that back-to-back probes cannot
-- keep it from other work.  Its batch is the role's that called the probe
-- (ranread_step_as): started_by, the claim's errors and ranread_stop's rule
-- name that role.  A probe never makes its target: ranread_probe_setup
-- does, once (256 MB by default), and a probe without one is an error that
-- says so.
--
-- The contract with what is built on ranread_probes: one row per probe that
-- completed, inserted by the probe once its batch's row in ranread_batches
-- is final ('completed', committed by its recorder); a probe that failed,
-- was stopped or cancelled, or whose history was not written inserts no row
-- and ends in an error (its batch stays in ranread_batches).
--
-- The schedule is pg_cron's (an optional dependency, as dblink is none:
-- ranread installs and probes by hand without it; every call of pg_cron is
-- dynamic SQL, made only once pg_cron is known to be there).

COMMENT ON TABLE @extschema@.ranread_probes IS
    'ranread probes: the small paced batches that keep watch on a tablespace, one row per probe';

-- The target a tablespace's probes read: ranread_probe_<tablespace>, or
-- for a name too long for that, ranread_probe_ and 16 hex digits of its md5
CREATE OR REPLACE FUNCTION ranread_internal.ranread_probe_target(tablespace name)
RETURNS name
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN pg_catalog.octet_length($1) <= 49 THEN ('ranread_probe_' || $1)::name
                ELSE ('ranread_probe_' || pg_catalog.substr(pg_catalog.md5($1), 1, 16))::name END
$$;

-- The pg_cron job of a tablespace's probes (its name says ranread and the
-- tablespace)
CREATE OR REPLACE FUNCTION ranread_internal.ranread_probe_job(tablespace name)
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT 'ranread probe ' || $1
$$;

-- A probe's batch, run as the role that called the probe rather than as
-- the extension's owner the probe runs as (C, src/run/run.c); only a superuser
-- calls it
CREATE OR REPLACE FUNCTION ranread_internal.ranread_step_as(spec jsonb, role pg_catalog.regrole)
RETURNS SETOF ranread_internal.ranread_step_result
AS 'MODULE_PATHNAME', 'ranread_run_step_as'
LANGUAGE C CALLED ON NULL INPUT VOLATILE ROWS 2;

-- The cap: rate_iops and duration within ranread.probe_max_iops and
-- ranread.probe_max_seconds, or an error naming the argument, the value
-- and the cap (C, so that the settings exist: src/watch/probe.c)
CREATE OR REPLACE FUNCTION ranread_internal.ranread_probe_check(fn text, rate_iops integer, duration interval)
RETURNS void
AS 'MODULE_PATHNAME', 'ranread_probe_check'
LANGUAGE C CALLED ON NULL INPUT STABLE;

-- The caps as ranread_help('ranread_probe') shows them: one row per
-- capped argument, from the table the check reads (src/probe.c)
CREATE OR REPLACE FUNCTION ranread_internal.ranread_probe_caps(
    OUT argument text, OUT allowed text, OUT setting text, OUT cap integer)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'ranread_probe_caps'
LANGUAGE C STABLE;

-- The share of time a probe of duration may take (after
-- ranread_probe_check, which loads the settings): probes hold the
-- cluster's one batch at most ranread.probe_max_share of
-- ranread.probe_share_window, counting every batch on a probe target of
-- this database (ranread_probe_target) over the window before now, with
-- the one asked for; past that, an error that says how much they took.
-- ahead: the probe is one of a schedule, whose duration alone must fit.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_probe_share(fn text, duration interval, ahead boolean DEFAULT false)
RETURNS void
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    share  constant integer := current_setting('ranread.probe_max_share')::integer;
    win    constant float8 := extract(epoch FROM current_setting('ranread.probe_share_window')::interval)::float8;
    cap    constant float8 := share * win / 100;
    asked  constant float8 := extract(epoch FROM duration)::float8;
    now_   constant timestamptz := clock_timestamp();
    used   float8;
BEGIN
    IF asked > cap THEN
        RAISE EXCEPTION USING
            ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('duration of %s must be at most %s s, ranread.probe_max_share (%s%%) of ranread.probe_share_window (%s s), not %s',
                             fn, round(cap::numeric, 1), share, win, duration),
            HINT = 'Probes leave the cluster''s one batch to other work most of the time; a superuser may raise ranread.probe_max_share.';
    END IF;
    IF ahead THEN
        RETURN;
    END IF;
    SELECT coalesce(sum(extract(epoch FROM least(coalesce(b.finished_at, now_), now_)
                                           - greatest(b.run_at, now_ - make_interval(secs => win)))), 0)
      INTO used
      FROM @extschema@.ranread_batches b
     WHERE b.target LIKE 'ranread\_probe\_%'
       AND coalesce(b.finished_at, now_) > now_ - make_interval(secs => win)
       AND b.run_at < now_;
    IF used + asked > cap THEN
        RAISE EXCEPTION USING
            ERRCODE = 'object_not_in_prerequisite_state',
            MESSAGE = format('%s would take probes past ranread.probe_max_share (%s%%) of the last %s s',
                             fn, share, win),
            DETAIL = format('The batches on the probe targets took %s s of the last %s s; this probe asks for %s s more, and probes may take %s s.',
                            round(used::numeric, 1), win, round(asked::numeric, 1), round(cap::numeric, 1)),
            HINT = 'Probes leave the cluster''s one batch to other work most of the time: probe less often or for less long; a superuser may raise ranread.probe_max_share or ranread.probe_share_window.';
    END IF;
END
$$;

-- The tablespace of fn exists, or an error that names it and lists those
-- that do
CREATE OR REPLACE FUNCTION ranread_internal.ranread_probe_tablespace(fn text, tablespace name)
RETURNS void
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF tablespace IS NULL THEN
        RAISE EXCEPTION USING
            ERRCODE = 'null_value_not_allowed',
            MESSAGE = format('tablespace of %s must not be null', fn),
            HINT = 'Name the tablespace to watch, such as ''pg_default''.';
    END IF;
    IF NOT EXISTS (SELECT FROM pg_catalog.pg_tablespace s WHERE s.spcname OPERATOR(pg_catalog.=) tablespace) THEN
        RAISE EXCEPTION USING
            ERRCODE = 'undefined_object',
            MESSAGE = format('tablespace "%s" of %s does not exist', tablespace, fn),
            HINT = format('The tablespaces that can hold a probe target are %s.',
                          (SELECT string_agg(quote_literal(s.spcname), ', ' ORDER BY s.spcname)
                             FROM pg_catalog.pg_tablespace s WHERE s.spcname OPERATOR(pg_catalog.<>) 'pg_global'));
    END IF;
END
$$;

-- The tablespace exists and its probe target is there: returns the target,
-- or an error that says how to make it
CREATE OR REPLACE FUNCTION ranread_internal.ranread_probe_ready(fn text, tablespace name)
RETURNS name
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    t      name;
    now_in name;
BEGIN
    PERFORM ranread_internal.ranread_probe_tablespace(fn, tablespace);
    t := ranread_internal.ranread_probe_target(tablespace);
    SELECT x.tablespace INTO now_in FROM @extschema@.ranread_targets x WHERE x.target OPERATOR(pg_catalog.=) t;
    IF NOT FOUND THEN
        RAISE EXCEPTION USING
            ERRCODE = 'undefined_object',
            MESSAGE = format('tablespace "%s" has no probe target', tablespace),
            DETAIL = format('A probe reads a small target of its own, "%s", which ranread_probe_setup makes once; a probe never makes one itself.', t),
            HINT = format('SELECT ranread_probe_setup(%L); makes it (256 MB by default; its size argument chooses).', tablespace);
    END IF;
    IF now_in IS DISTINCT FROM tablespace THEN
        RAISE EXCEPTION USING
            ERRCODE = 'object_not_in_prerequisite_state',
            MESSAGE = format('the probe target "%s" of tablespace "%s" is in tablespace "%s"', t, tablespace, now_in),
            HINT = format('SELECT ranread_probe_setup(%L); makes it again in its tablespace.', tablespace);
    END IF;
    RETURN t;
END
$$;

-- The probe target of a tablespace, made (or made again) by ranread_setup:
-- small, because a probe reads it on a production server.  Explicit, so
-- that no probe fills a tablespace by surprise.
CREATE OR REPLACE FUNCTION @extschema@.ranread_probe_setup(
    tablespace name DEFAULT 'pg_default',
    size       text DEFAULT '256MB')
RETURNS @extschema@.ranread_setup_result
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    bytes bigint;
BEGIN
    PERFORM ranread_internal.ranread_require('ranread_probe_setup', 'tablespace', tablespace,
                                             'Name the tablespace to watch, such as ''pg_default''.');
    PERFORM ranread_internal.ranread_require('ranread_probe_setup', 'size', size,
                                             'Give a size such as ''256MB''; the default is ''256MB''.');
    -- errors that name this function and its argument (ranread_setup's
    -- would name ranread_setup)
    BEGIN
        bytes := pg_catalog.pg_size_bytes(size);
    EXCEPTION WHEN data_exception THEN
        bytes := NULL;
    END;
    IF bytes IS NULL OR bytes < 1048576 THEN
        RAISE EXCEPTION USING
            ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('size of ranread_probe_setup must be a size of at least 1 MB, not %L', size),
            HINT = 'Give a size as pg_size_bytes understands it, such as ''256MB'' (the default): a probe target is small, as a probe reads it on a production server.';
    END IF;
    PERFORM ranread_internal.ranread_probe_tablespace('ranread_probe_setup', tablespace);
    RETURN @extschema@.ranread_setup(size, tablespace, ranread_internal.ranread_probe_target(tablespace));
END
$$;

-- Drops a tablespace's probe target, which ranread_probe_setup made: its
-- probes fail until it is made again.  The way a role that is not a
-- superuser drops one (ranread_purge refuses it the probe targets), with
-- ranread_purge's rule for the tablespace (src/target/purge.c).
CREATE OR REPLACE FUNCTION @extschema@.ranread_probe_purge(tablespace name DEFAULT 'pg_default')
RETURNS boolean
AS 'MODULE_PATHNAME', 'ranread_probe_purge'
LANGUAGE C CALLED ON NULL INPUT VOLATILE;

-- A probe's io_priority: a probe is light, so not 'realtime' (which also
-- needs CAP_SYS_NICE and would fail only when the worker starts, leaving a
-- failed batch at every scheduled run); the rest is the workload's check
CREATE OR REPLACE FUNCTION ranread_internal.ranread_probe_priority(fn text, io_priority text)
RETURNS void
LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF io_priority OPERATOR(pg_catalog.~*) '^\s*realtime' THEN
        RAISE EXCEPTION USING
            ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('io_priority of %s must not be realtime, not %L', fn, io_priority),
            DETAIL = 'A probe runs beside production work at a low I/O priority; the realtime class would put it before that work.',
            HINT = 'io_priority of a probe is ''idle'' or ''best-effort:N'' with N from 0 (highest) to 7; the default is ''best-effort:7''.';
    END IF;
END
$$;

-- Does this session run the pg_cron job of that name, which caller
-- scheduled in this database?  When pg_cron logs its runs
-- (cron.log_run), a run of that job whose backend is this one; when it
-- does not, that caller has such a job.  Without pg_cron, no.  As the
-- probe's owner, who sees every role's jobs.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_probe_cron_run(job text, caller pg_catalog.regrole)
RETURNS boolean
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    yes boolean;
BEGIN
    IF NOT EXISTS (SELECT FROM pg_catalog.pg_extension e WHERE e.extname OPERATOR(pg_catalog.=) 'pg_cron') THEN
        RETURN false;
    END IF;
    IF coalesce(pg_catalog.current_setting('cron.log_run', true), 'on') OPERATOR(pg_catalog.=) 'off' THEN
        EXECUTE 'SELECT EXISTS (SELECT FROM cron.job j WHERE j.jobname OPERATOR(pg_catalog.=) $1
                                  AND j.username OPERATOR(pg_catalog.=) $2 AND j.database OPERATOR(pg_catalog.=) pg_catalog.current_database())'
           INTO yes USING job, (SELECT r.rolname::text FROM pg_catalog.pg_roles r WHERE r.oid OPERATOR(pg_catalog.=) caller);
    ELSE
        EXECUTE 'SELECT EXISTS (SELECT FROM cron.job j JOIN cron.job_run_details d ON d.jobid OPERATOR(pg_catalog.=) j.jobid
                                 WHERE j.jobname OPERATOR(pg_catalog.=) $1 AND j.username OPERATOR(pg_catalog.=) $2
                                   AND j.database OPERATOR(pg_catalog.=) pg_catalog.current_database()
                                   AND d.job_pid OPERATOR(pg_catalog.=) pg_catalog.pg_backend_pid()
                                   AND d.status NOT IN (''succeeded'', ''failed''))'
           INTO yes USING job, (SELECT r.rolname::text FROM pg_catalog.pg_roles r WHERE r.oid OPERATOR(pg_catalog.=) caller);
    END IF;
    RETURN yes;
END
$$;

-- The probe (ranread_probe is C, src/workload/forward.c, which hands its workload,
-- duration, rate_iops and io_priority, on as spec, and caller, the role
-- that called it): the cap and the share of time, the target, one batch,
-- then its row in ranread_probes once the batch's row is final.  It runs
-- as the extension's owner (SECURITY DEFINER), so that a role may probe
-- without EXECUTE on ranread_run_step (which has no cap) nor INSERT on
-- ranread_probes (where a row of its own making would be judged as a
-- probe): the cap holds for a role granted 'probe', and the row recorded
-- is the batch just run, of this tablespace's probe target, at the time
-- its batch ran.  The batch itself is the caller's (ranread_step_as): its
-- started_by, and whom ranread_stop lets stop it.  job is the pg_cron job
-- that runs the probe: NULL, or its tablespace's job
-- (ranread_probe_job), recorded only when this session runs that job of
-- the caller's (ranread_probe_cron_run), so that no probe by hand passes
-- for a scheduled one.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_probe(
    tablespace name, duration interval, rate_iops integer, io_priority text, job text, spec jsonb,
    caller pg_catalog.regrole)
RETURNS SETOF record
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    t  name;
    r  ranread_internal.ranread_step_result;
    b  record;
    j  text := job;
BEGIN
    PERFORM ranread_internal.ranread_primary_only('ranread_probe');
    PERFORM ranread_internal.ranread_require_read_committed('ranread_probe',
        'Its row in ranread_probes has its batch''s time, from the row its worker records while it runs, which a repeatable read snapshot cannot see; run it outside an explicit transaction.');
    PERFORM ranread_internal.ranread_probe_check('ranread_probe', rate_iops, duration);
    PERFORM ranread_internal.ranread_probe_priority('ranread_probe', io_priority);
    t := ranread_internal.ranread_probe_ready('ranread_probe', tablespace);
    IF job IS NOT NULL AND job IS DISTINCT FROM ranread_internal.ranread_probe_job(tablespace) THEN
        RAISE EXCEPTION USING
            ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('job of ranread_probe must be NULL or %L, not %L', ranread_internal.ranread_probe_job(tablespace),
                             CASE WHEN pg_catalog.octet_length(job) > 64 THEN pg_catalog.left(job, 64) || '...' ELSE job END),
            HINT = 'job names the pg_cron job of the tablespace''s schedule, which ranread_probe_schedule passes; NULL for a probe by hand.';
    END IF;
    PERFORM ranread_internal.ranread_probe_share('ranread_probe', duration);

    SELECT * INTO r
      FROM ranread_internal.ranread_step_as(ranread_internal.ranread_spec(
               jsonb_build_object('processes', 1, 'queue_depth', 1, 'block_size', 8192,
                                  'write_pct', 0, 'pattern', 'random', 'distribution', 'uniform',
                                  'region_start', 0, 'region_end', 100, 'warmup', '0',
                                  'workers', 1, 'target', t), spec), caller) g
     WHERE g.grp OPERATOR(pg_catalog.=) 0;

    -- the batch's row as its recorder committed it (read committed: each
    -- statement sees what committed before it)
    SELECT x.status, x.message, x.run_at INTO b
      FROM @extschema@.ranread_batches x WHERE x.batch OPERATOR(pg_catalog.=) r.batch;
    IF r.status IS DISTINCT FROM 'completed' OR b.status IS DISTINCT FROM 'completed' THEN
        RAISE EXCEPTION USING
            ERRCODE = CASE WHEN r.status = 'failed' OR r.status = 'completed' THEN 'io_error' ELSE 'query_canceled' END,
            MESSAGE = format('the probe of tablespace "%s" did not complete: batch %s %s', tablespace, r.batch,
                             CASE WHEN r.status = 'completed' THEN 'was not recorded' ELSE 'was ' || r.status END),
            DETAIL = coalesce(b.message, 'ranread_summary shows the batch.'),
            HINT = 'A probe that does not complete has no row in ranread_probes; its batch stays in ranread_batches.';
    END IF;
    -- the row: the batch just run (on this tablespace's probe target, read
    -- only: the spec above), at the time its recorder says it ran; never a
    -- time or batch of the caller's choosing
    IF j IS NOT NULL AND NOT ranread_internal.ranread_probe_cron_run(j, caller) THEN
        RAISE WARNING 'probe of tablespace "%" (batch %) is recorded without job %: this session does not run that pg_cron job of role %',
            tablespace, r.batch, pg_catalog.quote_literal(j), caller
            USING HINT = 'Only pg_cron''s run of the schedule records its job; a probe by hand leaves job NULL.';
        j := NULL;
    END IF;
    INSERT INTO @extschema@.ranread_probes (batch, tablespace, probed_at, job)
    VALUES (r.batch, tablespace, b.run_at, j);

    RETURN QUERY
    SELECT r.batch, r.reads,
           ranread_internal.ranread_round(r.seconds, 3)::numeric(12,3),
           ranread_internal.ranread_round(r.iops, 0)::bigint,
           ranread_internal.ranread_round(r.avg_ms, 3)::numeric(15,3),
           ranread_internal.ranread_round(r.p50_ms, 3)::numeric(15,3),
           ranread_internal.ranread_round(r.p99_ms, 3)::numeric(15,3),
           ranread_internal.ranread_round(r.max_ms, 3)::numeric(15,3),
           r.status;
END
$$;

-- A probe: a small paced read-only batch on the tablespace's probe target
-- (ranread_probe_setup), recorded in ranread_batches and ranread_probes.
-- job is the pg_cron job that runs it (ranread_probe_schedule sets it).
CREATE OR REPLACE FUNCTION @extschema@.ranread_probe(
    tablespace  name     DEFAULT 'pg_default',
    duration interval DEFAULT '10s',
    rate_iops integer DEFAULT 200,
    io_priority text DEFAULT 'best-effort:7',
    job         text     DEFAULT NULL)
    -- not rest: a probe's workload is fixed (one process at queue depth 1, random 8 KiB reads of its tablespace's probe target, no writes), so that every probe of a tablespace compares with its baseline
RETURNS TABLE (
    batch       bigint,
    reads       bigint,
    seconds     numeric(12,3),
    iops        bigint,
    avg_ms      numeric(15,3),
    p50_ms      numeric(15,3),
    p99_ms      numeric(15,3),
    max_ms      numeric(15,3),
    status      text)
AS 'MODULE_PATHNAME', 'ranread_forward'
LANGUAGE C CALLED ON NULL INPUT VOLATILE;

-- pg_cron in this database, and the role may use it; or the error that
-- says how to get it
CREATE OR REPLACE FUNCTION ranread_internal.ranread_probe_cron(fn text)
RETURNS void
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    cron_db text;
    sock    text;
BEGIN
    IF NOT EXISTS (SELECT FROM pg_catalog.pg_extension e WHERE e.extname OPERATOR(pg_catalog.=) 'pg_cron') THEN
        SELECT x.database_name, x.socket INTO cron_db, sock FROM ranread_internal.ranread_probe_cron_settings() x;
        RAISE EXCEPTION USING
            ERRCODE = 'feature_not_supported',
            MESSAGE = format('%s needs the extension pg_cron, which is not installed in database "%s"',
                             fn, pg_catalog.current_database()),
            DETAIL = 'pg_cron runs the probes on a schedule; ranread works without it, and ranread_probe runs by hand.',
            HINT = CASE WHEN cron_db IS NULL
                   THEN format('Install pg_cron (Debian, Ubuntu: apt install postgresql-%s-cron), set shared_preload_libraries = ''pg_cron'', cron.database_name = %L and cron.use_background_workers = on (or cron.host = %L, the server''s socket directory, for jobs of a role pg_hba.conf lets in there without a password) in postgresql.conf, restart the server, and run CREATE EXTENSION pg_cron; in this database.',
                               pg_catalog.current_setting('server_version_num')::integer / 10000,
                               pg_catalog.current_database(), coalesce(sock, '/var/run/postgresql'))
                   WHEN cron_db IS DISTINCT FROM pg_catalog.current_database()
                   THEN format('pg_cron is loaded, and keeps its jobs in database %L (cron.database_name): ALTER SYSTEM SET cron.database_name = %L; then restart the server and run CREATE EXTENSION pg_cron; in this database.',
                               cron_db, pg_catalog.current_database())
                   ELSE 'pg_cron is loaded and keeps its jobs in this database: CREATE EXTENSION pg_cron; as a superuser.' END;
    END IF;
    IF NOT pg_catalog.has_schema_privilege('cron', 'USAGE') THEN
        RAISE EXCEPTION USING
            ERRCODE = 'insufficient_privilege',
            MESSAGE = format('permission denied to use pg_cron for %s', fn),
            HINT = format('A superuser grants it: GRANT USAGE ON SCHEMA cron TO %I;', current_user);
    END IF;
END
$$;

-- pg_cron's settings as this server runs them: all NULL but port and socket
-- when pg_cron is not loaded (C, src/watch/probe_cron.c: pg_cron's settings are
-- superuser-only, and a monitoring role must still be told what is missing)
CREATE OR REPLACE FUNCTION ranread_internal.ranread_probe_cron_settings(
    OUT database_name text, OUT background_workers boolean, OUT host text, OUT port integer, OUT socket text)
RETURNS record
AS 'MODULE_PATHNAME', 'ranread_probe_cron_settings'
LANGUAGE C VOLATILE;

-- The connection pg_cron would make for a job of the current role, to
-- cron.host (or, with socket, to the first of unix_socket_directories),
-- made now and closed: NULL when it came up, libpq's error when not (C,
-- src/watch/probe_cron.c)
CREATE OR REPLACE FUNCTION ranread_internal.ranread_probe_cron_connect(socket boolean)
RETURNS text
AS 'MODULE_PATHNAME', 'ranread_probe_cron_connect'
LANGUAGE C VOLATILE;

-- Would pg_cron run a job of the current role in this database?  Or the
-- error (55000) that names the setting and gives the exact settings to
-- make: pg_cron loaded at server start (shared_preload_libraries), its
-- jobs' database (cron.database_name) this one, a role that may log in
-- (pg_cron's jobs log in as their role, a background worker's too), and
-- either background workers (cron.use_background_workers = on, with a
-- worker for the job and one for the probe's stream besides pg_cron's
-- launcher) or a connection to cron.host that comes up without a password
-- (tried now, as pg_cron would make it: pg_hba.conf, listen_addresses,
-- a .pgpass of the server's operating-system user all decide it).
CREATE OR REPLACE FUNCTION ranread_internal.ranread_probe_cron_runs(fn text)
RETURNS void
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    s        record;
    why      text;
    why_sock text;
    workers  constant integer := pg_catalog.current_setting('max_worker_processes')::integer;
    restart  constant text := 'then restart the server (pg_cron reads its settings only at server start) and call '
                              || fn || ' again';
    bgw_hint text;
BEGIN
    s := ranread_internal.ranread_probe_cron_settings();
    IF s.database_name IS NULL THEN
        RAISE EXCEPTION USING
            ERRCODE = 'object_not_in_prerequisite_state',
            MESSAGE = format('%s needs pg_cron loaded at server start, and shared_preload_libraries (%L) does not name it',
                             fn, pg_catalog.current_setting('shared_preload_libraries')),
            DETAIL = 'pg_cron''s jobs run only when its launcher was started with the server; without it a schedule never runs.',
            HINT = format('ALTER SYSTEM SET shared_preload_libraries = %L; %s.',
                          pg_catalog.concat_ws(',', pg_catalog.nullif(pg_catalog.current_setting('shared_preload_libraries'), ''), 'pg_cron'),
                          restart);
    END IF;
    IF s.database_name IS DISTINCT FROM pg_catalog.current_database() THEN
        RAISE EXCEPTION USING
            ERRCODE = 'object_not_in_prerequisite_state',
            MESSAGE = format('%s needs pg_cron''s jobs in this database, and cron.database_name is %L, not %L',
                             fn, s.database_name, pg_catalog.current_database()),
            DETAIL = 'pg_cron runs the jobs kept in the database cron.database_name names; a job scheduled here would never run.',
            HINT = format('ALTER SYSTEM SET cron.database_name = %L; %s.', pg_catalog.current_database(), restart);
    END IF;
    IF NOT (SELECT r.rolcanlogin FROM pg_catalog.pg_roles r WHERE r.rolname OPERATOR(pg_catalog.=) current_user) THEN
        RAISE EXCEPTION USING
            ERRCODE = 'object_not_in_prerequisite_state',
            MESSAGE = format('%s schedules probes that run as role "%s", which may not log in (rolcanlogin)', fn, current_user),
            DETAIL = 'pg_cron''s job logs in as the role that scheduled it, in a connection or a background worker alike; every run would fail.',
            HINT = format('A superuser lets it: ALTER ROLE %I LOGIN; (or schedule as a role that may log in).', current_user);
    END IF;
    bgw_hint := format('ALTER SYSTEM SET cron.use_background_workers = on; %s: pg_cron then runs each job in a background worker, without a connection, and each run of the probe takes two of max_worker_processes (%s), one for the job and one for the probe''s stream, besides pg_cron''s launcher',
                       restart, workers);
    IF s.background_workers THEN
        IF workers < 3 THEN
            RAISE EXCEPTION USING
                ERRCODE = 'object_not_in_prerequisite_state',
                MESSAGE = format('%s needs 3 background workers with cron.use_background_workers on, and max_worker_processes is %s',
                                 fn, workers),
                DETAIL = 'pg_cron''s launcher, the job''s worker and the probe''s stream each take one.',
                HINT = format('ALTER SYSTEM SET max_worker_processes = 8; %s.', restart);
        END IF;
        RETURN;
    END IF;
    why := ranread_internal.ranread_probe_cron_connect(false);
    IF why IS NULL THEN
        RETURN;
    END IF;
    -- would the server's own socket do?  (Debian's pg_hba.conf lets the
    -- server's operating-system user in there by peer authentication)
    IF s.socket IS NOT NULL AND s.socket IS DISTINCT FROM s.host THEN
        why_sock := ranread_internal.ranread_probe_cron_connect(true);
    END IF;
    RAISE EXCEPTION USING
        ERRCODE = 'object_not_in_prerequisite_state',
        MESSAGE = format('pg_cron could not run these probes: cron.use_background_workers is off and cron.host (%L) does not let role "%s" in without a password',
                         s.host, current_user),
        DETAIL = format('pg_cron runs each job through a connection of its own to cron.host, port %s, database %s, as the role that scheduled it, without a password; every run would end in "connection failed".  That connection, tried now: %s',
                        s.port, pg_catalog.quote_ident(pg_catalog.current_database()), why),
        HINT = CASE WHEN s.socket IS NOT NULL AND s.socket IS DISTINCT FROM s.host AND why_sock IS NULL
                    THEN format('ALTER SYSTEM SET cron.host = %L; (this server''s socket directory, where pg_hba.conf lets role "%s" in) %s.  Or %s.',
                                s.socket, current_user, restart, bgw_hint)
                    ELSE format('%s.  Or let role "%s" in from cron.host without a password: a line of pg_hba.conf (such as local all %s peer map=...) or a .pgpass file of the server''s operating-system user.',
                                bgw_hint, current_user, pg_catalog.quote_ident(current_user)) END;
END
$$;

-- The pg_cron jobs of that name in this database, every role's (as the
-- extension's owner: pg_cron shows a role its own jobs only)
CREATE OR REPLACE FUNCTION ranread_internal.ranread_probe_scheduled(job text)
RETURNS TABLE (jobid bigint, username text)
LANGUAGE plpgsql STABLE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_catalog.pg_extension e WHERE e.extname OPERATOR(pg_catalog.=) 'pg_cron') THEN
        RETURN;
    END IF;
    RETURN QUERY EXECUTE
        'SELECT j.jobid::bigint, j.username::text FROM cron.job j
          WHERE j.jobname OPERATOR(pg_catalog.=) $1 AND j.database OPERATOR(pg_catalog.=) pg_catalog.current_database()
          ORDER BY j.jobid'
        USING job;
END
$$;

-- Probes of a tablespace on a schedule: one pg_cron job, named 'ranread
-- probe TABLESPACE', run as the calling role in this database (scheduling
-- again changes it).  One schedule a tablespace: another role's job for
-- it is an error that names it (two would start their probes at once, and
-- one would fail every time).  Every argument is checked now, so that the
-- job does not fail at each run: a probe's duration alone must fit
-- ranread.probe_max_share.  Returns the job's id.
CREATE OR REPLACE FUNCTION @extschema@.ranread_probe_schedule(
    tablespace  name     DEFAULT 'pg_default',
    schedule    text     DEFAULT '*/5 * * * *',
    duration interval DEFAULT '10s',
    rate_iops integer DEFAULT 200,
    io_priority text DEFAULT 'best-effort:7')
    -- not rest: a probe's workload is fixed, as ranread_probe says
RETURNS bigint
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    job  text := ranread_internal.ranread_probe_job(tablespace);
    sch  name;
    cmd  text;
    id   bigint;
    msg  text;
    other record;
    s     record;
    stale bigint;
BEGIN
    PERFORM ranread_internal.ranread_primary_only('ranread_probe_schedule');
    PERFORM ranread_internal.ranread_probe_cron('ranread_probe_schedule');
    PERFORM ranread_internal.ranread_require('ranread_probe_schedule', 'schedule', schedule,
        'schedule is pg_cron''s, such as ''*/5 * * * *'' (every five minutes) or ''@hourly''.');
    PERFORM ranread_internal.ranread_probe_check('ranread_probe_schedule', rate_iops, duration);
    PERFORM ranread_internal.ranread_probe_priority('ranread_probe_schedule', io_priority);
    PERFORM ranread_internal.ranread_probe_ready('ranread_probe_schedule', tablespace);
    PERFORM ranread_internal.ranread_probe_share('ranread_probe_schedule', duration, true);
    SELECT * INTO other FROM ranread_internal.ranread_probe_scheduled(job) x
     WHERE x.username OPERATOR(pg_catalog.<>) current_user LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION USING
            ERRCODE = 'object_not_in_prerequisite_state',
            MESSAGE = format('tablespace "%s" is probed on a schedule already, by pg_cron job %s of role "%s"',
                             tablespace, other.jobid, other.username),
            DETAIL = 'One schedule probes a tablespace: two would start their probes at once, and one would fail every time.',
            HINT = format('Role "%s" stops it with SELECT ranread_probe_unschedule(%L); (a superuser with SELECT cron.unschedule(%s);).',
                          other.username, tablespace, other.jobid);
    END IF;
    -- the probe's workload as its batch will read it (io_priority's errors)
    PERFORM ranread_internal.ranread_spec_check(jsonb_build_object(
        'caller', 'ranread_probe_schedule', 'duration', duration, 'io_priority', io_priority,
        'groups', jsonb_build_array(jsonb_build_object('processes', 1, 'rate_iops', rate_iops))), false);
    -- and pg_cron can run it on this server, as this role
    PERFORM ranread_internal.ranread_probe_cron_runs('ranread_probe_schedule');
    -- a job keeps the host and port it was made with (pg_cron changes only
    -- its schedule and command): one made before cron.host was set is made
    -- again
    s := ranread_internal.ranread_probe_cron_settings();
    EXECUTE 'SELECT j.jobid FROM cron.job j WHERE j.jobname OPERATOR(pg_catalog.=) $1 AND j.username OPERATOR(pg_catalog.=) current_user
                AND (j.nodename IS DISTINCT FROM $2 OR j.nodeport IS DISTINCT FROM $3)'
       INTO stale USING job, s.host, s.port;
    IF stale IS NOT NULL THEN
        EXECUTE 'SELECT cron.unschedule($1)' USING stale;
    END IF;

    SELECT n.nspname INTO sch
      FROM pg_catalog.pg_extension e JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) e.extnamespace
     WHERE e.extname OPERATOR(pg_catalog.=) 'ranread';
    cmd := format('SELECT * FROM %I.ranread_probe(%L, duration => %L, rate_iops => %s, io_priority => %L, job => %L)',
                  sch, tablespace, duration, rate_iops, io_priority, job);
    BEGIN
        EXECUTE 'SELECT cron.schedule($1, $2, $3)' INTO id USING job, schedule, cmd;
    EXCEPTION WHEN OTHERS THEN
        GET STACKED DIAGNOSTICS msg = MESSAGE_TEXT;
        IF msg LIKE 'invalid schedule%' THEN
            RAISE EXCEPTION USING
                ERRCODE = 'invalid_parameter_value',
                MESSAGE = format('invalid schedule %L for ranread_probe_schedule', schedule),
                DETAIL = format('pg_cron says: %s', msg),
                HINT = 'schedule is pg_cron''s: five cron fields (minute hour day month weekday) such as ''*/5 * * * *'', or @hourly, @daily; pg_cron 1.5 and later also take ''N seconds''.';
        END IF;
        RAISE;
    END;
    RETURN id;
END
$$;

-- The scheduled probes this role may see (pg_cron shows a role its own
-- jobs): one row per job, with its last run, and when that run failed,
-- pg_cron's message (cron.job_run_details.return_message: "connection
-- failed" when pg_cron could not connect, else the probe's error)
CREATE OR REPLACE FUNCTION @extschema@.ranread_probe_schedules()
RETURNS TABLE (
    tablespace  name,
    job         text,
    jobid       bigint,
    schedule    text,
    active      boolean,
    username    text,
    command     text,
    last_start  timestamptz,
    last_status text,
    last_error  text,
    last_probe  timestamptz)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM ranread_internal.ranread_probe_cron('ranread_probe_schedules');
    RETURN QUERY EXECUTE format($q$
        SELECT pg_catalog.substr(j.jobname, 15)::name, j.jobname::text, j.jobid, j.schedule::text, j.active,
               j.username::text, j.command::text, d.start_time, d.status::text,
               CASE WHEN d.status OPERATOR(pg_catalog.=) 'failed' THEN d.return_message::text END,
               (SELECT max(p.probed_at) FROM %1$s.ranread_probes p WHERE p.job OPERATOR(pg_catalog.=) j.jobname::text)
          FROM cron.job j
          LEFT JOIN LATERAL (SELECT r.start_time, r.status, r.return_message FROM cron.job_run_details r
                              WHERE r.jobid OPERATOR(pg_catalog.=) j.jobid
                              ORDER BY r.start_time DESC NULLS LAST LIMIT 1) d ON true
         WHERE j.jobname LIKE 'ranread probe %%'
         ORDER BY j.jobname, j.username$q$,
        (SELECT quote_ident(n.nspname)
           FROM pg_catalog.pg_extension e JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) e.extnamespace
          WHERE e.extname OPERATOR(pg_catalog.=) 'ranread'));
END
$$;

-- Stop a tablespace's scheduled probes: removes its pg_cron job; false
-- when it had none.  The probes it ran stay in ranread_probes.
CREATE OR REPLACE FUNCTION @extschema@.ranread_probe_unschedule(tablespace name DEFAULT 'pg_default')
RETURNS boolean
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    job   text := ranread_internal.ranread_probe_job(tablespace);
    has_job boolean;
BEGIN
    PERFORM ranread_internal.ranread_primary_only('ranread_probe_unschedule');
    PERFORM ranread_internal.ranread_probe_cron('ranread_probe_unschedule');
    PERFORM ranread_internal.ranread_require('ranread_probe_unschedule', 'tablespace', tablespace,
                                             'Name the tablespace whose probes to stop, such as ''pg_default''.');
    EXECUTE 'SELECT EXISTS (SELECT FROM cron.job j WHERE j.jobname OPERATOR(pg_catalog.=) $1 AND j.username OPERATOR(pg_catalog.=) current_user)'
       INTO has_job USING job;
    IF has_job THEN
        EXECUTE 'SELECT cron.unschedule($1)' USING job;
    END IF;
    RETURN has_job;
END
$$;
-- 1.1, keeping watch on the storage (docs/keeping-watch.md, "Keeping watch"):
-- batches compared from their latency histograms, a baseline per tablespace, a
-- verdict and a health status for every probe (ranread_probes, in
-- 60_watch.sql), a NOTIFY and a WARNING when a tablespace's status changes.
-- How the comparison decides: src/watch/compare.c and docs/design.md, "Comparing
-- batches and keeping watch".

-- The comparison of two latency histograms (src/watch/compare.c): a Mann-Whitney
-- U test on the buckets for the middle, a two-proportion test on the share
-- above a side's p99 for the tail (100 I/Os or more), each with an effect size; "slower"
-- and "faster" need both a test significant at alpha and p50 or p99 at
-- least min_factor times apart, so that noise does not alarm.  factor is
-- b's percentile over a's, factor_low and factor_high its interval (1.2:
-- each percentile's by order statistics at 1 - alpha / 2, so 1 - alpha at
-- least for the factor).
CREATE OR REPLACE FUNCTION @extschema@.ranread_hist_compare(histogram_a bytea, histogram_b bytea,
    min_factor float8 DEFAULT 1.25, alpha float8 DEFAULT 0.001,
    OUT verdict text, OUT factor float8, OUT confidence float8, OUT p_value float8,
    OUT decided_by text, OUT ios_a bigint, OUT ios_b bigint,
    OUT p50_a_ms float8, OUT p50_b_ms float8, OUT p50_ratio float8,
    OUT p99_a_ms float8, OUT p99_b_ms float8, OUT p99_ratio float8,
    OUT shift float8, OUT p50_p_value float8, OUT p99_p_value float8,
    OUT factor_low float8, OUT factor_high float8)
RETURNS record
AS 'MODULE_PATHNAME', 'ranread_hist_compare'
LANGUAGE C CALLED ON NULL INPUT IMMUTABLE PARALLEL SAFE;

-- A percentile of a histogram against a bound (1.2, src/watch/compare.c): is
-- p99 (percentile) above bound_ms?  It is when more than 1% (100 -
-- percentile) of the I/Os are slower than the bound: above counts them,
-- share is their share with its Wilson interval (share_low, share_high) at
-- 1 - alpha, p_value the exact binomial probability of so many or more
-- if the share were 1%.  verdict: 'above' (p_value below alpha), 'not
-- shown', or 'too few' below min_ios I/Os (100 for p99), which cannot
-- judge the percentile: it is their slowest I/O.
CREATE OR REPLACE FUNCTION @extschema@.ranread_hist_threshold(histogram bytea, bound_ms float8,
    percentile float8 DEFAULT 99, alpha float8 DEFAULT 0.001,
    OUT ios bigint, OUT above bigint, OUT share float8, OUT allowed float8,
    OUT share_low float8, OUT share_high float8, OUT p_value float8,
    OUT min_ios bigint, OUT verdict text)
RETURNS record
AS 'MODULE_PATHNAME', 'ranread_hist_threshold'
LANGUAGE C CALLED ON NULL INPUT IMMUTABLE PARALLEL SAFE;

-- A histogram in stored form from latencies and their counts: for tests of
-- the comparison, and for samples of other tools
CREATE OR REPLACE FUNCTION ranread_internal.ranread_hist_make(latencies_ms float8[], counts bigint[])
RETURNS bytea
AS 'MODULE_PATHNAME', 'ranread_hist_make'
LANGUAGE C STRICT IMMUTABLE PARALLEL SAFE;

-- The latency histogram of a batch, or the error that names the argument
-- (arg) when there is no such batch or it has no histogram
CREATE OR REPLACE FUNCTION ranread_internal.ranread_batch_histogram(fn text, arg text, id bigint)
RETURNS bytea
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    b record;
BEGIN
    PERFORM ranread_internal.ranread_require(fn, arg, id, 'A batch''s id (ranread_summary lists them).');
    SELECT x.histogram, x.status INTO b FROM @extschema@.ranread_batches x WHERE x.batch = id;
    IF NOT FOUND THEN
        RAISE EXCEPTION USING ERRCODE = 'undefined_object',
            MESSAGE = format('%s of %s: batch %s does not exist', arg, fn, id),
            HINT = 'ranread_summary lists the batches.';
    END IF;
    IF b.histogram IS NULL OR @extschema@.ranread_hist_count(b.histogram) = 0 THEN
        RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('%s of %s: batch %s has no latency histogram (status %s)', arg, fn, id, b.status),
            HINT = 'Only a batch that did I/O and was recorded (completed or stopped) can be compared.';
    END IF;
    RETURN b.histogram;
END
$$;

-- The tablespace named by arg of fn, or the error that says it does not
-- exist; a tablespace that is gone but still has watch rows is accepted
-- where gone_ok (so that its baseline can still be reset)
CREATE OR REPLACE FUNCTION ranread_internal.ranread_watch_tablespace(fn text, arg text, ts name,
    gone_ok boolean DEFAULT false)
RETURNS name
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM ranread_internal.ranread_require(fn, arg, ts, 'A tablespace''s name (\db in psql lists them).');
    IF NOT EXISTS (SELECT FROM pg_catalog.pg_tablespace t WHERE t.spcname = ts)
       AND NOT (gone_ok AND (EXISTS (SELECT FROM @extschema@.ranread_baselines b WHERE b.tablespace = ts)
                             OR EXISTS (SELECT FROM @extschema@.ranread_probe_verdicts v WHERE v.tablespace = ts))) THEN
        RAISE EXCEPTION USING ERRCODE = 'undefined_object',
            MESSAGE = format('%s of %s: tablespace "%s" does not exist', arg, fn, ts),
            HINT = 'See \db in psql for the tablespaces of this server.';
    END IF;
    RETURN ts;
END
$$;

-- A tablespace's thresholds: its row, or the defaults
CREATE OR REPLACE FUNCTION ranread_internal.ranread_health_thresholds_of(ts name)
RETURNS @extschema@.ranread_health_thresholds
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT d.tablespace, d.p99_degraded_ms, d.p99_critical_ms, d.slower_factor, d.baseline_probes, d.alpha,
           d.hold_probes
      FROM (SELECT t.tablespace, t.p99_degraded_ms, t.p99_critical_ms, t.slower_factor, t.baseline_probes, t.alpha,
                   t.hold_probes, 0 AS o
              FROM @extschema@.ranread_health_thresholds t WHERE t.tablespace = ts
            UNION ALL
            SELECT ts, 5::float8, 10::float8, 1.25::float8, 5, 0.001::float8, 3, 1) d
     ORDER BY d.o LIMIT 1
$$;

-- Forgets a tablespace's baseline: the next baseline_probes probes make a
-- new one.  True when there was one.
CREATE OR REPLACE FUNCTION @extschema@.ranread_baseline_reset(tablespace name)
RETURNS boolean
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    fn constant text := 'ranread_baseline_reset';
    had boolean;
BEGIN
    PERFORM ranread_internal.ranread_primary_only(fn);
    PERFORM ranread_internal.ranread_watch_tablespace(fn, 'tablespace', tablespace, gone_ok => true);
    SELECT b.histogram IS NOT NULL INTO had FROM @extschema@.ranread_baselines b
     WHERE b.tablespace = ranread_baseline_reset.tablespace FOR UPDATE;
    INSERT INTO @extschema@.ranread_baselines AS x (tablespace, batches, histogram, pinned, since, set_at)
    VALUES (ranread_baseline_reset.tablespace, '{}', NULL, false, now(), now())
    ON CONFLICT ON CONSTRAINT ranread_baselines_pkey DO UPDATE
       SET batches = '{}', histogram = NULL, pinned = false, since = excluded.since, set_at = excluded.set_at,
           left_out = '{}', left_out_reason = NULL;
    RETURN coalesce(had, false);
END
$$;

-- Numbers as the watch's words give them: a p-value (three decimals, two
-- significant digits below 0.001, "< 1e-300" where a double holds no
-- smaller), a share as a percentage, and the confidence 1 - alpha of an
-- interval
CREATE OR REPLACE FUNCTION ranread_internal.ranread_watch_p(p float8)
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN p IS NULL THEN 'n/a'
                WHEN p < 1e-300 THEN '< 1e-300'
                WHEN p >= 0.001 THEN trim_scale(round(p::numeric, 3))::text
                ELSE ltrim(to_char(p, '9.9EEEE')) END
$$;

CREATE OR REPLACE FUNCTION ranread_internal.ranread_watch_pct(share float8)
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN share IS NULL THEN 'n/a'
                ELSE trim_scale(round((100 * share)::numeric, CASE WHEN share < 0.1 THEN 2 ELSE 1 END)) || '%' END
$$;

CREATE OR REPLACE FUNCTION ranread_internal.ranread_watch_conf(alpha float8)
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT trim_scale(round((100 * (1 - alpha))::numeric, 6)) || '%'
$$;

-- The rank of a status, from ok to critical (NULL: unknown, not judged)
CREATE OR REPLACE FUNCTION ranread_internal.ranread_health_rank(status text)
RETURNS integer
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE status WHEN 'ok' THEN 0 WHEN 'slower' THEN 1 WHEN 'degraded' THEN 2 WHEN 'critical' THEN 3 END
$$;

-- The hysteresis of a tablespace's status (docs/design.md, "Comparing
-- batches and keeping watch"), pure: from its status now (current; NULL or
-- 'unknown' when it has none yet) and the statuses its judged probes showed
-- one by one (readings, oldest first), the status it takes.  Only the last
-- hold readings count, and only when there are that many: the status goes
-- up to the status every one of them reached (each showed it or worse),
-- down to the worst of them when every one is better than the status, and
-- otherwise stays.  A tablespace without a status takes the one all hold
-- readings reached.  So one probe, or any run shorter than hold, never
-- changes a status, and a device whose readings alternate keeps the one it
-- has.  changed: the status is not current; why: in words.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_health_hold(current text, readings text[], hold integer,
    OUT status text, OUT changed boolean, OUT why text)
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    n   integer := coalesce(cardinality(readings), 0);
    w   text[];
    lo  integer;
    hi  integer;
    cur integer := ranread_internal.ranread_health_rank(current);
    names constant text[] := ARRAY['ok', 'slower', 'degraded', 'critical'];
BEGIN
    IF hold IS NULL OR hold < 1 THEN
        RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('hold of ranread_health_hold must be 1 or more, not %s', coalesce(hold::text, 'NULL')),
            HINT = 'hold is how many probes in a row must show a status, such as 3.';
    END IF;
    IF (SELECT bool_or(ranread_internal.ranread_health_rank(r) IS NULL) FROM unnest(readings) r) THEN
        RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('readings of ranread_health_hold must be ok, slower, degraded or critical, not %s', readings),
            HINT = 'A probe without a reading (unknown) is left out of readings.';
    END IF;
    status := CASE WHEN cur IS NULL THEN 'unknown' ELSE current END;
    changed := false;
    IF n < hold THEN
        why := format('%s of the %s probes in a row a change needs', n, hold);
        RETURN;
    END IF;
    w := readings[n - hold + 1 : n];
    SELECT min(ranread_internal.ranread_health_rank(r)), max(ranread_internal.ranread_health_rank(r)) INTO lo, hi
      FROM unnest(w) r;
    IF cur IS NULL OR lo > cur THEN
        status := names[lo + 1];
        why := format('the %s %s probes in a row each showed %s%s', CASE WHEN cur IS NULL THEN 'first' ELSE 'last' END,
                      hold, status,
                      CASE WHEN hi > lo THEN format(' or worse (%s)', array_to_string(w, ', ')) ELSE '' END);
    ELSIF hi < cur THEN
        status := names[hi + 1];
        why := format('the last %s probes in a row each showed better than %s (%s)', hold, current,
                      array_to_string(w, ', '));
    ELSE
        why := format('%s holds: the last %s probes (%s) do not all show another status', current, hold,
                      array_to_string(w, ', '));
    END IF;
    changed := status IS DISTINCT FROM current;
END
$$;

-- A baseline that noise cannot skew (pure): of the probes that make it
-- (batches, their histograms), the median probe's p50 and p99 (the median
-- of each over the probes) mark the ones that stand out: a p50 or a p99
-- min_factor or more from the median.  The core is the probes whose p50
-- does not stand out (p50 is measured precisely; a p99 of a few hundred
-- I/Os moves by chance with the tail: the tail of a device at the edge of
-- 1% puts a probe's p99 on either side); when half of them or more stand
-- out by p50, none is left out, and reason says so.  Each probe that stands
-- out is compared with the merge of the core's others
-- (ranread_hist_compare, at alpha and min_factor): those that differ (a
-- stall, a burst of load) are left out, when fewer than half; a probe that
-- stands out by its p99 alone but whose tail test is not significant is
-- kept.  kept: the batches the baseline merges.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_baseline_robust(batches bigint[], histograms bytea[],
    min_factor float8, alpha float8, OUT kept bigint[], OUT left_out bigint[], OUT reason text)
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    n     integer := coalesce(cardinality(batches), 0);
    m50   float8;
    m99   float8;
    odd50 integer[];
    odd   integer[];
    rest  bytea;
    c     record;
    why   text[] := '{}';
    i     integer;
BEGIN
    IF n <> coalesce(cardinality(histograms), 0) THEN
        RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('batches and histograms of ranread_baseline_robust must have as many elements, not %s and %s',
                             n, coalesce(cardinality(histograms), 0));
    END IF;
    kept := batches;
    left_out := '{}';
    IF n < 3 THEN
        RETURN;
    END IF;
    SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY @extschema@.ranread_hist_percentile(h, 50)),
           percentile_disc(0.5) WITHIN GROUP (ORDER BY @extschema@.ranread_hist_percentile(h, 99))
      INTO m50, m99 FROM unnest(histograms) h;
    odd50 := ARRAY(SELECT u.k::integer FROM unnest(histograms) WITH ORDINALITY u(h, k)
                    WHERE NOT (@extschema@.ranread_hist_percentile(u.h, 50) BETWEEN m50 / min_factor AND m50 * min_factor)
                    ORDER BY u.k);
    odd := ARRAY(SELECT u.k::integer FROM unnest(histograms) WITH ORDINALITY u(h, k)
                  WHERE u.k = ANY (odd50)
                     OR NOT (@extschema@.ranread_hist_percentile(u.h, 99) BETWEEN m99 / min_factor AND m99 * min_factor)
                  ORDER BY u.k);
    IF cardinality(odd) = 0 THEN
        RETURN;
    END IF;
    IF 2 * cardinality(odd50) >= n THEN
        reason := format('none left out: %s of the %s probes (%s) are %sx or more from the median probe''s p50 %s ms, too many to tell the odd ones',
                         cardinality(odd50), n, (SELECT string_agg(batches[k]::text, ', ') FROM unnest(odd50) k), min_factor,
                         round(m50::numeric, 3));
        RETURN;
    END IF;
    FOREACH i IN ARRAY odd LOOP
        SELECT @extschema@.ranread_hist_merge(u.h) INTO rest
          FROM unnest(histograms) WITH ORDINALITY u(h, k) WHERE u.k <> ALL (odd50) AND u.k <> i;
        SELECT x.* INTO c FROM @extschema@.ranread_hist_compare(rest, histograms[i], min_factor, alpha) x;
        IF c.verdict = 'slower' THEN
            left_out := left_out || batches[i];
            why := why || format('probe %s is %s than the %s near the median probe (%s %sx theirs, %s p %s, below alpha %s)',
                                 batches[i], c.verdict, n - cardinality(odd50) - CASE WHEN i = ANY (odd50) THEN 0 ELSE 1 END,
                                 c.decided_by, round(c.factor::numeric, 2),
                                 CASE c.decided_by WHEN 'p50' THEN 'Mann-Whitney U test' ELSE 'two-proportion test of the tail' END,
                                 ranread_internal.ranread_watch_p(c.p_value), alpha);
        END IF;
    END LOOP;
    IF cardinality(left_out) = 0 THEN
        RETURN;
    END IF;
    IF 2 * cardinality(left_out) >= n THEN
        reason := format('none left out: %s of the %s probes differ from the others (%s), too many to tell the odd ones',
                         cardinality(left_out), n, array_to_string(why, '; '));
        left_out := '{}';
        RETURN;
    END IF;
    kept := ARRAY(SELECT x FROM unnest(batches) x WHERE x <> ALL (left_out));
    reason := format('left out %s', array_to_string(why, '; '));
END
$$;

-- What one probe shows by itself (probe_status), from its histogram, its
-- comparison with the baseline (verdict: after the baseline's spread;
-- compared ... p99_p_value: ranread_hist_compare's row; NULL before the
-- baseline) and the thresholds: critical or degraded when its p99 is above the bound by the
-- exact binomial test (ranread_hist_threshold, 100 I/Os or more), slower
-- when the comparison says so, else ok; test names what decided it, effect
-- the effect with its interval, words the reading in a sentence.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_probe_reading(histogram bytea, verdict text,
    compared text, decided_by text, factor float8, factor_low float8, factor_high float8,
    p_value float8, p50_p_value float8, p99_p_value float8, thr @extschema@.ranread_health_thresholds,
    OUT probe_status text, OUT test text, OUT effect text, OUT words text)
LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    crit record;
    deg  record;
    t    record;
    bound float8;
    conf text := ranread_internal.ranread_watch_conf(thr.alpha);
    cmp  text;
BEGIN
    SELECT x.* INTO crit FROM @extschema@.ranread_hist_threshold(histogram, thr.p99_critical_ms, 99, thr.alpha) x;
    SELECT x.* INTO deg FROM @extschema@.ranread_hist_threshold(histogram, thr.p99_degraded_ms, 99, thr.alpha) x;
    IF crit.verdict = 'above' THEN
        t := crit; bound := thr.p99_critical_ms; probe_status := 'critical';
    ELSIF deg.verdict = 'above' THEN
        t := deg; bound := thr.p99_degraded_ms; probe_status := 'degraded';
    END IF;
    IF t IS NOT NULL THEN
        test := format('exact binomial test of the I/Os slower than %s ms (p99 is above it when more than 1%% are): p %s, below alpha %s',
                       bound, ranread_internal.ranread_watch_p(t.p_value), thr.alpha);
        effect := format('%s of %s I/Os slower than %s ms, %s (%s interval %s to %s), where p99 %s ms allows 1%%',
                         t.above, t.ios, bound, ranread_internal.ranread_watch_pct(t.share), conf,
                         ranread_internal.ranread_watch_pct(t.share_low), ranread_internal.ranread_watch_pct(t.share_high), bound);
        words := format('p99 above the %s threshold of %s ms', probe_status, bound);
        RETURN;
    END IF;
    IF compared IS NOT NULL THEN
        cmp := CASE decided_by WHEN 'p50' THEN 'Mann-Whitney U test of the middle (p50)'
                               ELSE 'two-proportion test of the tail (p99)' END;
        effect := format('%s %sx the baseline''s (%s interval %sx to %sx)', coalesce(decided_by, 'p99'),
                         round(factor::numeric, 2), conf, round(factor_low::numeric, 2),
                         round(factor_high::numeric, 2));
    END IF;
    IF verdict = 'slower' THEN
        probe_status := 'slower';
        test := format('%s: p %s, below alpha %s, at least %sx apart and past the spread of the baseline''s probes',
                       cmp, ranread_internal.ranread_watch_p(p_value), thr.alpha, thr.slower_factor);
        words := 'slower than its baseline';
        RETURN;
    END IF;
    probe_status := 'ok';
    test := concat_ws('; ',
        CASE WHEN deg.verdict = 'too few'
             THEN format('p99 not judged against %s ms: %s I/Os, fewer than the %s it needs', thr.p99_degraded_ms, deg.ios, deg.min_ios)
             ELSE format('exact binomial test of the I/Os slower than %s ms: p %s, not below alpha %s',
                         thr.p99_degraded_ms, ranread_internal.ranread_watch_p(deg.p_value), thr.alpha) END,
        CASE WHEN compared IS NOT NULL
             THEN format('against the baseline: Mann-Whitney U test (p50) p %s, two-proportion test (p99) p %s%s',
                         ranread_internal.ranread_watch_p(p50_p_value), ranread_internal.ranread_watch_p(p99_p_value),
                         CASE WHEN verdict = 'faster' THEN ': faster'
                              WHEN compared <> 'same' THEN format(': %s, but within the spread of the baseline''s probes', compared)
                              ELSE format(': the same within alpha %s and %sx', thr.alpha, thr.slower_factor) END) END);
    IF effect IS NULL AND deg.verdict <> 'too few' THEN
        effect := format('%s of %s I/Os slower than %s ms, %s (%s interval %s to %s), where p99 %s ms allows 1%%',
                         deg.above, deg.ios, thr.p99_degraded_ms, ranread_internal.ranread_watch_pct(deg.share), conf,
                         ranread_internal.ranread_watch_pct(deg.share_low), ranread_internal.ranread_watch_pct(deg.share_high),
                         thr.p99_degraded_ms);
    END IF;
    words := CASE WHEN verdict = 'faster' THEN 'faster than its baseline, p99 within the thresholds'
                  ELSE 'no test shows a change' END;
END
$$;

-- The trigger on ranread_probes: the probe's verdict against its
-- tablespace's baseline (or the probe joins the baseline being made, which
-- leaves out the odd probes once it is whole: ranread_baseline_robust), what
-- the probe alone shows (ranread_probe_reading), and the tablespace's status
-- after it (ranread_health_hold over its last hold_probes probes); when
-- that status changes, a NOTIFY on channel ranread_health (a JSON payload)
-- and a WARNING in the log
--
-- It runs as the extension's owner (SECURITY DEFINER): a role granted 'run'
-- records a probe (INSERT on ranread_probes) but not the verdicts and
-- baselines the probe's judgement writes.  A trigger function cannot be
-- called by itself, every name in it is qualified and its search_path is
-- pinned, so all it can do for the caller is judge a probe row.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_probe_judge()
RETURNS trigger
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    thr @extschema@.ranread_health_thresholds := ranread_internal.ranread_health_thresholds_of(NEW.tablespace);
    b record;
    bl @extschema@.ranread_baselines;
    prev record;
    c record;
    s record;
    rd record;
    hd record;
    rb record;
    win record;
    kept bigint[];
    v @extschema@.ranread_probe_verdicts;
    latest boolean;
    words text;          -- what this probe shows, in words
    hold_why text;       -- why the status is what it is
    robust text;         -- the baseline made whole: what it left out
    payload jsonb;
BEGIN
    SELECT NULL::text AS verdict, NULL::text AS decided_by, NULL::float8 AS factor, NULL::float8 AS factor_low,
           NULL::float8 AS factor_high, NULL::float8 AS p_value, NULL::float8 AS p50_p_value,
           NULL::float8 AS p99_p_value INTO c;
    v.batch := NEW.batch;
    v.tablespace := NEW.tablespace;
    v.probed_at := NEW.probed_at;
    SELECT x.histogram, x.iops, x.status INTO b FROM @extschema@.ranread_batches x WHERE x.batch = NEW.batch;
    SELECT w.status, w.probed_at INTO prev FROM @extschema@.ranread_probe_verdicts w
     WHERE w.tablespace = NEW.tablespace AND w.batch <> NEW.batch
     ORDER BY w.probed_at DESC, w.batch DESC LIMIT 1;
    latest := prev.probed_at IS NULL OR prev.probed_at <= NEW.probed_at;

    -- the baseline, made when the tablespace has none yet (locked: two
    -- probes of one tablespace at once take turns)
    INSERT INTO @extschema@.ranread_baselines (tablespace, since)
    VALUES (NEW.tablespace, NEW.probed_at) ON CONFLICT DO NOTHING;
    SELECT x.* INTO bl FROM @extschema@.ranread_baselines x WHERE x.tablespace = NEW.tablespace FOR UPDATE;

    IF NOT FOUND OR b.histogram IS NULL OR @extschema@.ranread_hist_count(b.histogram) = 0 THEN
        v.probe_status := 'unknown';
        v.reason := CASE WHEN b IS NULL THEN format('batch %s is not in ranread_batches', NEW.batch)
                         ELSE format('batch %s has no latency histogram (status %s)', NEW.batch, b.status) END;
    ELSE
        v.ios := @extschema@.ranread_hist_count(b.histogram);
        v.iops := b.iops;
        v.p50_ms := @extschema@.ranread_hist_percentile(b.histogram, 50);
        v.p99_ms := @extschema@.ranread_hist_percentile(b.histogram, 99);
        kept := ARRAY(SELECT k FROM unnest(bl.batches) k WHERE k <> ALL (bl.left_out));
        IF bl.histogram IS NOT NULL AND (bl.pinned OR cardinality(bl.batches) >= thr.baseline_probes) THEN
            SELECT x.* INTO c FROM @extschema@.ranread_hist_compare(bl.histogram, b.histogram, thr.slower_factor, thr.alpha) x;
            v.baseline_p50_ms := c.p50_a_ms;
            v.baseline_p99_ms := c.p99_a_ms;
            v.p50_factor := c.p50_ratio;
            v.p99_factor := c.p99_ratio;
            v.verdict := c.verdict;
            v.factor := c.factor;
            v.factor_low := c.factor_low;
            v.factor_high := c.factor_high;
            v.confidence := c.confidence;
            IF c.verdict <> 'same' THEN
                -- the I/Os of one probe are not independent (a burst of
                -- load slows many in a row), so a change must also reach
                -- past the spread of the baseline's own batches (those it
                -- kept): slower than slower_factor x the slowest of them,
                -- faster than the fastest / slower_factor, in a percentile
                -- whose test is significant
                SELECT max(@extschema@.ranread_hist_percentile(x.histogram, 50)) AS max50,
                       min(@extschema@.ranread_hist_percentile(x.histogram, 50)) AS min50,
                       max(@extschema@.ranread_hist_percentile(x.histogram, 99)) AS max99,
                       min(@extschema@.ranread_hist_percentile(x.histogram, 99)) AS min99
                  INTO s
                  FROM @extschema@.ranread_batches x
                 WHERE x.batch = ANY (kept) AND x.histogram IS NOT NULL;
                v.verdict := CASE
                    WHEN (c.p50_p_value < thr.alpha AND v.p50_ms >= thr.slower_factor * greatest(c.p50_a_ms, s.max50))
                      OR (c.p99_p_value < thr.alpha AND v.p99_ms >= thr.slower_factor * greatest(c.p99_a_ms, s.max99))
                        THEN 'slower'
                    WHEN (c.p50_p_value < thr.alpha AND v.p50_ms * thr.slower_factor <= least(c.p50_a_ms, s.min50))
                      OR (c.p99_p_value < thr.alpha AND v.p99_ms * thr.slower_factor <= least(c.p99_a_ms, s.min99))
                        THEN 'faster'
                    ELSE 'same' END;
                IF v.verdict = 'same' THEN
                    v.factor := c.p99_ratio;
                END IF;
            END IF;
        ELSIF NEW.probed_at >= bl.since AND NOT NEW.batch = ANY (bl.batches) THEN
            -- one of the first probes: it joins the baseline being made;
            -- the last one makes it whole, leaving out the odd ones
            SELECT r.* INTO rb
              FROM (SELECT array_agg(x.batch ORDER BY o.k) AS ids, array_agg(x.histogram ORDER BY o.k) AS hs
                      FROM unnest(bl.batches || NEW.batch) WITH ORDINALITY o(id, k)
                      JOIN @extschema@.ranread_batches x ON x.batch = o.id
                     WHERE x.histogram IS NOT NULL) a,
                   LATERAL ranread_internal.ranread_baseline_robust(
                       a.ids, a.hs, thr.slower_factor, thr.alpha) r
             WHERE cardinality(bl.batches) + 1 >= thr.baseline_probes;
            UPDATE @extschema@.ranread_baselines x
               SET batches = x.batches || NEW.batch,
                   histogram = (SELECT @extschema@.ranread_hist_merge(y.histogram) FROM @extschema@.ranread_batches y
                                 WHERE y.batch = ANY (coalesce(rb.kept, x.batches || NEW.batch))),
                   left_out = coalesce(rb.left_out, '{}'),
                   left_out_reason = rb.reason,
                   set_at = CASE WHEN cardinality(x.batches) + 1 >= thr.baseline_probes THEN now() END
             WHERE x.tablespace = NEW.tablespace;
            v.verdict := 'baseline';
            robust := rb.reason;
        END IF;
        SELECT r.* INTO rd
          FROM ranread_internal.ranread_probe_reading(b.histogram, v.verdict, c.verdict, c.decided_by, c.factor,
                   c.factor_low, c.factor_high, c.p_value, c.p50_p_value, c.p99_p_value, thr) r;
        v.probe_status := rd.probe_status;
        v.test := rd.test;
        v.effect := rd.effect;
        words := rd.words;
    END IF;

    -- the tablespace's status: held unless its last hold_probes judged
    -- probes, this one the newest, all show another (a probe older than
    -- the latest, backfilled, changes nothing)
    SELECT array_agg(w.probe_status ORDER BY w.probed_at, w.batch) AS readings,
           array_agg(w.batch ORDER BY w.probed_at, w.batch) AS ids
      INTO win
      FROM (SELECT x.probe_status, x.probed_at, x.batch FROM @extschema@.ranread_probe_verdicts x
             WHERE x.tablespace = NEW.tablespace AND x.batch <> NEW.batch AND x.probe_status <> 'unknown'
               AND (x.probed_at, x.batch) < (NEW.probed_at, NEW.batch)
             ORDER BY x.probed_at DESC, x.batch DESC LIMIT thr.hold_probes - 1) w;
    IF latest AND v.probe_status <> 'unknown' THEN
        SELECT h.* INTO hd FROM ranread_internal.ranread_health_hold(prev.status,
            coalesce(win.readings, '{}') || v.probe_status, thr.hold_probes) h;
        v.status := hd.status;
        hold_why := hd.why;
        v.probes := coalesce(win.ids, '{}') || NEW.batch;
    ELSE
        v.status := coalesce(prev.status, 'unknown');
    END IF;
    v.previous_status := prev.status;
    v.reason := concat_ws('; ',
        format('%s: %s', v.status,
               CASE WHEN hold_why IS NULL AND NOT latest THEN 'a probe older than the latest changes no status'
                    WHEN hold_why IS NULL THEN 'a probe without a reading changes no status'
                    ELSE hold_why || format(' (probes %s)', array_to_string(v.probes, ', ')) END),
        CASE WHEN words IS NOT NULL THEN format('this probe: %s', words) END,
        CASE WHEN v.verdict = 'baseline'
             THEN format('probe %s of the %s that make the baseline', cardinality(bl.batches) + 1, thr.baseline_probes) END,
        CASE WHEN robust IS NOT NULL THEN 'the baseline ' || robust END,
        CASE WHEN v.verdict IS NULL AND b.histogram IS NOT NULL AND NOT (bl.histogram IS NOT NULL
                  AND (bl.pinned OR cardinality(bl.batches) >= thr.baseline_probes))
             THEN 'older than the baseline: not compared' END,
        CASE WHEN v.probe_status = 'unknown' THEN v.reason END);
    INSERT INTO @extschema@.ranread_probe_verdicts VALUES (v.*)
    ON CONFLICT (batch) DO NOTHING;

    -- a change of status, told once: not from no status to ok (nothing to
    -- alarm), never by one probe (ranread_health_hold)
    IF latest AND v.status IS DISTINCT FROM coalesce(prev.status, 'unknown')
       AND NOT (coalesce(prev.status, 'unknown') = 'unknown' AND v.status = 'ok') THEN
        payload := jsonb_build_object('tablespace', NEW.tablespace, 'status', v.status,
                       'previous_status', prev.status, 'batch', NEW.batch, 'probed_at', NEW.probed_at,
                       'probe_status', v.probe_status, 'probes', to_jsonb(v.probes), 'hold_probes', thr.hold_probes,
                       'verdict', v.verdict, 'factor', round(v.factor::numeric, 3),
                       'factor_low', round(v.factor_low::numeric, 3), 'factor_high', round(v.factor_high::numeric, 3),
                       'p99_ms', round(v.p99_ms::numeric, 3), 'baseline_p99_ms', round(v.baseline_p99_ms::numeric, 3),
                       'test', v.test, 'effect', v.effect, 'reason', v.reason);
        PERFORM pg_notify('ranread_health', payload::text);
        RAISE WARNING USING
            MESSAGE = format('ranread: tablespace "%s" is now %s (was %s): probes %s, the last p99 %s ms',
                             NEW.tablespace, v.status, coalesce(prev.status, 'not probed'),
                             array_to_string(v.probes, ', '),
                             coalesce(round(v.p99_ms::numeric, 3)::text, 'n/a')),
            DETAIL = concat_ws('; ', v.reason, 'test: ' || v.test, 'effect: ' || v.effect),
            HINT = 'SELECT * FROM ranread_health shows every watched tablespace.';
    END IF;
    RETURN NULL;
END
$$;

CREATE OR REPLACE TRIGGER ranread_probe_judge AFTER INSERT ON @extschema@.ranread_probes
    FOR EACH ROW EXECUTE FUNCTION ranread_internal.ranread_probe_judge();

-- Readers of the history (pg_monitor) see the watch and compare batches
GRANT SELECT ON @extschema@.ranread_probe_verdicts,
                @extschema@.ranread_baselines, @extschema@.ranread_health_thresholds TO pg_monitor;
GRANT EXECUTE ON FUNCTION
    @extschema@.ranread_hist_compare(bytea, bytea, float8, float8),
    @extschema@.ranread_hist_threshold(bytea, float8, float8, float8),
    ranread_internal.ranread_batch_histogram(text, text, bigint),
    ranread_internal.ranread_watch_tablespace(text, text, name, boolean),
    ranread_internal.ranread_health_thresholds_of(name),
    ranread_internal.ranread_health_rank(text),
    ranread_internal.ranread_health_hold(text, text[], integer),
    ranread_internal.ranread_baseline_robust(bigint[], bytea[], float8, float8),
    ranread_internal.ranread_watch_p(float8),
    ranread_internal.ranread_watch_pct(float8),
    ranread_internal.ranread_watch_conf(float8) TO pg_monitor;

COMMENT ON FUNCTION @extschema@.ranread_hist_compare(bytea, bytea, float8, float8) IS
    'two latency histograms compared: same, slower or faster (b against a), by a Mann-Whitney U test on the buckets (p50) and a test of the share above a side''s p99 (p99, with 100 I/Os or more on each side), each significant at alpha and at least min_factor apart; factor is b''s percentile over a''s, factor_low and factor_high its interval at 1 - alpha';
COMMENT ON FUNCTION @extschema@.ranread_hist_threshold(bytea, float8, float8, float8) IS
    'is a histogram''s percentile (99) above bound_ms: the I/Os slower than it, their share with its interval, the exact binomial test of more than 100 - percentile % of them (verdict above, not shown, or too few below 100 / (100 - percentile) I/Os)';
COMMENT ON FUNCTION ranread_internal.ranread_hist_make(float8[], bigint[]) IS
    'Internal: a latency histogram in stored form from latencies (ms) and their counts';
COMMENT ON FUNCTION ranread_internal.ranread_batch_histogram(text, text, bigint) IS
    'Internal: the latency histogram of a batch, or the error that names the argument';
COMMENT ON TABLE @extschema@.ranread_health_thresholds IS
    'ranread watch: what a tablespace''s probes are judged by (p99 thresholds in ms, slower factor, probes of an automatic baseline, alpha, probes in a row a change of status needs); without a row, 5 ms, 10 ms, 1.25, 5, 0.001 and 3';
COMMENT ON COLUMN @extschema@.ranread_health_thresholds.hold_probes IS
    'how many probes in a row must show a status before the tablespace takes it (2 to 100): one probe never changes a status';
COMMENT ON TABLE @extschema@.ranread_baselines IS
    'ranread watch: the baseline of each tablespace, the batches it merges and their merged latency histogram, pinned (ranread_baseline_set) or its first probes, less those left out';
COMMENT ON COLUMN @extschema@.ranread_baselines.left_out IS
    'the probes of an automatic baseline left out of its histogram: each stands out from the median probe and is slower than the merge of the others (ranread_hist_compare: a stall, a burst of load), and they are fewer than half';
COMMENT ON COLUMN @extschema@.ranread_baselines.left_out_reason IS
    'why those probes were left out (or, when half or more differ, why none was), naming each and its test';
COMMENT ON TABLE @extschema@.ranread_probe_verdicts IS
    'ranread watch: a verdict per probe against its tablespace''s baseline (baseline, same, slower, faster), what the probe alone shows (probe_status) and the tablespace''s health status after it (ok, slower, degraded, critical, unknown)';
COMMENT ON COLUMN @extschema@.ranread_probe_verdicts.verdict IS
    'baseline: one of the first probes that make the baseline; same, slower or faster than the baseline (ranread_hist_compare, and past the spread of the baseline''s probes); NULL: not compared';
COMMENT ON COLUMN @extschema@.ranread_probe_verdicts.factor IS
    'the probe''s p50 or p99 (the one that decided; p99 when same) over the baseline''s';
COMMENT ON COLUMN @extschema@.ranread_probe_verdicts.factor_low IS
    'the interval of factor, low end (at least 1 - alpha)';
COMMENT ON COLUMN @extschema@.ranread_probe_verdicts.factor_high IS
    'the interval of factor, high end (at least 1 - alpha)';
COMMENT ON COLUMN @extschema@.ranread_probe_verdicts.probe_status IS
    'what this probe alone shows: critical or degraded when its p99 is above the threshold by the exact binomial test (100 I/Os or more), slower when slower than the baseline, ok when no test shows either, unknown without a histogram';
COMMENT ON COLUMN @extschema@.ranread_probe_verdicts.status IS
    'the tablespace''s status after this probe: it changes only when its last hold_probes probes in a row all show another (ranread_health_hold); unknown until that many probes are judged';
COMMENT ON COLUMN @extschema@.ranread_probe_verdicts.test IS
    'the test that decided probe_status, with its p-value and alpha (for ok: the tests that showed nothing)';
COMMENT ON COLUMN @extschema@.ranread_probe_verdicts.effect IS
    'the effect that test measured, with its interval at 1 - alpha: the share of I/Os above a threshold, or the factor over the baseline';
COMMENT ON COLUMN @extschema@.ranread_probe_verdicts.probes IS
    'the probes the status rests on: the last hold_probes judged probes of the tablespace, oldest first, this one last';
COMMENT ON COLUMN @extschema@.ranread_probe_verdicts.p50_ms IS 'the probe''s median latency (ms)';
COMMENT ON COLUMN @extschema@.ranread_probe_verdicts.p99_ms IS 'the probe''s 99th percentile latency (ms)';
COMMENT ON COLUMN @extschema@.ranread_probe_verdicts.baseline_p50_ms IS 'the baseline''s median latency (ms)';
COMMENT ON COLUMN @extschema@.ranread_probe_verdicts.baseline_p99_ms IS 'the baseline''s 99th percentile latency (ms)';
COMMENT ON FUNCTION ranread_internal.ranread_watch_tablespace(text, text, name, boolean) IS
    'Internal: the tablespace named by an argument, or the error that says it does not exist';
COMMENT ON FUNCTION ranread_internal.ranread_health_thresholds_of(name) IS
    'Internal: a tablespace''s thresholds, its row or the defaults';
COMMENT ON FUNCTION @extschema@.ranread_baseline_reset(name) IS
    'forgets a tablespace''s baseline: its next probes make a new one; true when there was one';
COMMENT ON FUNCTION ranread_internal.ranread_watch_p(float8) IS
    'Internal: a p-value as the watch''s words give it';
COMMENT ON FUNCTION ranread_internal.ranread_watch_pct(float8) IS
    'Internal: a share as a percentage, as the watch''s words give it';
COMMENT ON FUNCTION ranread_internal.ranread_watch_conf(float8) IS
    'Internal: the confidence 1 - alpha of an interval, as a percentage';
COMMENT ON FUNCTION ranread_internal.ranread_health_rank(text) IS
    'Internal: the rank of a health status, ok 0 to critical 3 (NULL: unknown)';
COMMENT ON FUNCTION ranread_internal.ranread_health_hold(text, text[], integer) IS
    'Internal: the status a tablespace takes from its status now and its probes'' readings (oldest first): it changes only when the last hold readings all show another';
COMMENT ON FUNCTION ranread_internal.ranread_baseline_robust(bigint[], bytea[], float8, float8) IS
    'Internal: the probes a baseline keeps, and those it leaves out (each differs from the merge of the others; fewer than half), with why';
COMMENT ON FUNCTION ranread_internal.ranread_probe_reading(bytea, text, text, text, float8, float8, float8, float8, float8, float8, @extschema@.ranread_health_thresholds) IS
    'Internal: what one probe shows by itself (critical, degraded, slower, ok), the test that decided it and its effect with an interval';
COMMENT ON FUNCTION ranread_internal.ranread_probe_judge() IS
    'Internal: the trigger on ranread_probes: a probe''s verdict and reading, the tablespace''s status after it, a NOTIFY on ranread_health and a WARNING when that status changes';
-- 1.1, keeping watch (docs/keeping-watch.md, "Keeping watch"): the comparisons
-- of batches, sweeps and studies, the thresholds and baselines a DBA sets, and
-- the ranread_health view, over the tables of sql/state/60_watch.sql.

-- The one body of ranread_compare_sweeps and ranread_compare_studies: two
-- sweeps (kind 'sweep') compared step by step, the steps of the same
-- processes, or two studies ('study') point by point, the same point; a
-- row per pair as ranread_compare gives it, pair its processes or point.
-- First the arguments, or the error that names the function fn and the
-- argument: the ids (named args), min_factor and alpha; kind NULL checks
-- min_factor and alpha only (ranread_compare, whose histograms name its
-- batches) and returns no row.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_compare_pairs(fn text, kind text, args text[], ids bigint[],
                                                                   min_factor float8, alpha float8)
RETURNS TABLE (pair jsonb, batch_a bigint, batch_b bigint, verdict text, factor numeric(12,3),
               confidence float8, p50_a_ms numeric(15,3), p50_b_ms numeric(15,3),
               p99_a_ms numeric(15,3), p99_b_ms numeric(15,3))
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    lists constant text := CASE kind WHEN 'sweep' THEN 'ranread_sweeps' ELSE 'ranread_study_overview' END;
BEGIN
    FOR i IN 1 .. coalesce(cardinality(args), 0) LOOP
        PERFORM ranread_internal.ranread_require(fn, args[i], ids[i], format('A %s''s id (%s lists them).', kind, lists));
        IF NOT (CASE kind WHEN 'sweep' THEN EXISTS (SELECT FROM @extschema@.ranread_sweeps s WHERE s.sweep = ids[i])
                          ELSE EXISTS (SELECT FROM @extschema@.ranread_studies s WHERE s.study = ids[i]) END) THEN
            RAISE EXCEPTION USING ERRCODE = 'undefined_object',
                MESSAGE = format('%s of %s: %s %s does not exist', args[i], fn, kind, ids[i]),
                HINT = format('%s lists the %s.', lists, CASE kind WHEN 'sweep' THEN 'sweeps' ELSE 'studies' END);
        END IF;
    END LOOP;
    PERFORM ranread_internal.ranread_require(fn, 'min_factor', min_factor, 'min_factor is the change of p50 or p99 that counts, such as 1.25.');
    PERFORM ranread_internal.ranread_require(fn, 'alpha', alpha, 'alpha is the significance level of the tests, such as 0.001.');
    IF NOT (min_factor >= 1 AND min_factor <= 1000) THEN
        RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('min_factor of %s must be between 1 and 1000, not %s', fn, min_factor),
            HINT = 'min_factor is the change of p50 or p99 that counts, such as 1.25 (25% slower).';
    END IF;
    IF NOT (alpha > 0 AND alpha < 1) THEN
        RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('alpha of %s must be above 0 and below 1, not %s', fn, alpha),
            HINT = 'alpha is the significance level of the tests, such as 0.001.';
    END IF;
    IF kind IS NULL THEN
        RETURN;
    END IF;
    -- a ratio over a percentile of 0 is infinite: NULL (numeric(12,3) holds
    -- below 1e9)
    RETURN QUERY
    SELECT CASE kind WHEN 'sweep' THEN pg_catalog.to_jsonb(a.processes) ELSE a.point END, a.batch, b.batch, c.verdict,
           (CASE WHEN abs(c.factor) < 1e9 THEN c.factor END)::numeric(12,3), c.confidence,
           c.p50_a_ms::numeric(15,3), c.p50_b_ms::numeric(15,3), c.p99_a_ms::numeric(15,3), c.p99_b_ms::numeric(15,3)
      FROM @extschema@.ranread_batches a
      JOIN @extschema@.ranread_batches b
           ON (CASE kind WHEN 'sweep' THEN b.sweep = ids[2] AND b.processes = a.processes
                         ELSE b.study = ids[2] AND b.point = a.point END)
           AND b.histogram IS NOT NULL AND @extschema@.ranread_hist_count(b.histogram) > 0
     CROSS JOIN LATERAL @extschema@.ranread_hist_compare(a.histogram, b.histogram, min_factor, alpha) c
     WHERE (CASE kind WHEN 'sweep' THEN a.sweep = ids[1] ELSE a.study = ids[1] END)
       AND a.histogram IS NOT NULL AND @extschema@.ranread_hist_count(a.histogram) > 0;
END
$$;

-- Two batches compared from their merged latency histograms: is batch_b
-- slower than batch_a, faster, or the same (ranread_hist_compare), by
-- which test (decided_by), and the factor with its interval (factor_low,
-- factor_high, at 1 - alpha at least)
CREATE OR REPLACE FUNCTION @extschema@.ranread_compare(batch_a bigint, batch_b bigint,
    min_factor float8 DEFAULT 1.25, alpha float8 DEFAULT 0.001)
RETURNS TABLE (verdict text, factor numeric(12,3), confidence float8, p_value float8, decided_by text,
               ios_a bigint, ios_b bigint, p50_a_ms numeric(15,3), p50_b_ms numeric(15,3),
               p99_a_ms numeric(15,3), p99_b_ms numeric(15,3), p50_ratio numeric(12,3), p99_ratio numeric(12,3),
               factor_low numeric(12,3), factor_high numeric(12,3))
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    ha bytea := ranread_internal.ranread_batch_histogram('ranread_compare', 'batch_a', batch_a);
    hb bytea := ranread_internal.ranread_batch_histogram('ranread_compare', 'batch_b', batch_b);
BEGIN
    PERFORM * FROM ranread_internal.ranread_compare_pairs('ranread_compare', NULL, NULL, NULL, min_factor, alpha);
    -- a ratio over a percentile of 0 is infinite: NULL here (numeric(12,3)
    -- holds below 1e9)
    RETURN QUERY
    SELECT c.verdict, (CASE WHEN abs(c.factor) < 1e9 THEN c.factor END)::numeric(12,3), c.confidence, c.p_value,
           c.decided_by, c.ios_a, c.ios_b,
           c.p50_a_ms::numeric(15,3), c.p50_b_ms::numeric(15,3), c.p99_a_ms::numeric(15,3), c.p99_b_ms::numeric(15,3),
           (CASE WHEN abs(c.p50_ratio) < 1e9 THEN c.p50_ratio END)::numeric(12,3),
           (CASE WHEN abs(c.p99_ratio) < 1e9 THEN c.p99_ratio END)::numeric(12,3),
           (CASE WHEN abs(c.factor_low) < 1e9 THEN c.factor_low END)::numeric(12,3),
           (CASE WHEN abs(c.factor_high) < 1e9 THEN c.factor_high END)::numeric(12,3)
      FROM @extschema@.ranread_hist_compare(ha, hb, min_factor, alpha) c;
END
$$;

-- Two sweeps compared step by step (the steps of the same processes), or
-- two studies point by point (the same point): a row per pair, as
-- ranread_compare gives it, named by its processes or point
CREATE OR REPLACE FUNCTION @extschema@.ranread_compare_sweeps(sweep_a bigint, sweep_b bigint,
    min_factor float8 DEFAULT 1.25, alpha float8 DEFAULT 0.001)
RETURNS TABLE (processes integer, batch_a bigint, batch_b bigint, verdict text, factor numeric(12,3),
               confidence float8, p50_a_ms numeric(15,3), p50_b_ms numeric(15,3),
               p99_a_ms numeric(15,3), p99_b_ms numeric(15,3))
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT (p.pair #>> '{}')::integer, p.batch_a, p.batch_b, p.verdict, p.factor, p.confidence,
           p.p50_a_ms, p.p50_b_ms, p.p99_a_ms, p.p99_b_ms
      FROM ranread_internal.ranread_compare_pairs('ranread_compare_sweeps', 'sweep', ARRAY['sweep_a', 'sweep_b'],
                                                  ARRAY[sweep_a, sweep_b], min_factor, alpha) p
     ORDER BY 1, 2, 3
$$;

CREATE OR REPLACE FUNCTION @extschema@.ranread_compare_studies(study_a bigint, study_b bigint,
    min_factor float8 DEFAULT 1.25, alpha float8 DEFAULT 0.001)
RETURNS TABLE (point jsonb, batch_a bigint, batch_b bigint, verdict text, factor numeric(12,3),
               confidence float8, p50_a_ms numeric(15,3), p50_b_ms numeric(15,3),
               p99_a_ms numeric(15,3), p99_b_ms numeric(15,3))
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT p.*
      FROM ranread_internal.ranread_compare_pairs('ranread_compare_studies', 'study', ARRAY['study_a', 'study_b'],
                                                  ARRAY[study_a, study_b], min_factor, alpha) p
     ORDER BY p.batch_a, p.batch_b
$$;

-- Sets what a tablespace's probes are judged by (ranread_health_thresholds)
-- and returns the row; thresholds out of order are an error that names
-- the argument.  hold_probes (1.2): how many probes in a row must show a
-- status before the tablespace takes it (ranread_health_hold).
CREATE OR REPLACE FUNCTION @extschema@.ranread_health_set(tablespace name,
    p99_degraded_ms float8 DEFAULT 5, p99_critical_ms float8 DEFAULT 10,
    slower_factor float8 DEFAULT 1.25, baseline_probes integer DEFAULT 5,
    alpha float8 DEFAULT 0.001, hold_probes integer DEFAULT 3)
RETURNS @extschema@.ranread_health_thresholds
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    fn constant text := 'ranread_health_set';
    r @extschema@.ranread_health_thresholds;
BEGIN
    PERFORM ranread_internal.ranread_primary_only(fn);
    PERFORM ranread_internal.ranread_watch_tablespace(fn, 'tablespace', tablespace);
    PERFORM ranread_internal.ranread_require(fn, 'p99_degraded_ms', p99_degraded_ms);
    PERFORM ranread_internal.ranread_require(fn, 'p99_critical_ms', p99_critical_ms);
    PERFORM ranread_internal.ranread_require(fn, 'slower_factor', slower_factor);
    PERFORM ranread_internal.ranread_require(fn, 'baseline_probes', baseline_probes);
    PERFORM ranread_internal.ranread_require(fn, 'alpha', alpha);
    PERFORM ranread_internal.ranread_require(fn, 'hold_probes', hold_probes);
    IF NOT (p99_degraded_ms > 0 AND p99_degraded_ms < 137000) THEN
        RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('p99_degraded_ms of %s must be above 0 and below 137000 ms, not %s', fn, p99_degraded_ms),
            HINT = 'p99_degraded_ms is the p99 latency above which the status is degraded, such as 5.';
    END IF;
    IF NOT (p99_critical_ms > p99_degraded_ms AND p99_critical_ms < 137000) THEN
        RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('p99_critical_ms of %s must be above p99_degraded_ms (%s ms) and below 137000 ms, not %s',
                             fn, p99_degraded_ms, p99_critical_ms),
            HINT = 'The thresholds go up: degraded first, then critical, such as 5 and 10.';
    END IF;
    IF NOT (slower_factor >= 1 AND slower_factor <= 1000) THEN
        RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('slower_factor of %s must be between 1 and 1000, not %s', fn, slower_factor),
            HINT = 'slower_factor is the change of p50 or p99 against the baseline that counts, such as 1.25.';
    END IF;
    IF NOT (baseline_probes BETWEEN 1 AND 1000) THEN
        RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('baseline_probes of %s must be between 1 and 1000, not %s', fn, baseline_probes),
            HINT = 'baseline_probes is how many first probes make the baseline when none is pinned, such as 5.';
    END IF;
    -- below 1e-12 no test of a probe's few thousand I/Os is ever
    -- significant (every verdict would be 'same'); above 0.5 half of them
    -- would be, by chance
    IF NOT (alpha >= 1e-12 AND alpha <= 0.5) THEN
        RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('alpha of %s must be between 1e-12 and 0.5, not %s', fn, alpha),
            HINT = 'alpha is the significance level of the comparison, such as 0.001 (the default).';
    END IF;
    -- one probe never changes a status: at least two in a row
    IF NOT (hold_probes BETWEEN 2 AND 100) THEN
        RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('hold_probes of %s must be between 2 and 100, not %s', fn, hold_probes),
            HINT = 'hold_probes is how many probes in a row must show a status before the tablespace takes it, such as 3: one probe never changes it.';
    END IF;
    INSERT INTO @extschema@.ranread_health_thresholds AS t
           (tablespace, p99_degraded_ms, p99_critical_ms, slower_factor, baseline_probes, alpha, hold_probes)
    VALUES (ranread_health_set.tablespace, p99_degraded_ms, p99_critical_ms, slower_factor, baseline_probes, alpha,
            hold_probes)
    ON CONFLICT ON CONSTRAINT ranread_health_thresholds_pkey DO UPDATE
       SET p99_degraded_ms = excluded.p99_degraded_ms, p99_critical_ms = excluded.p99_critical_ms,
           slower_factor = excluded.slower_factor, baseline_probes = excluded.baseline_probes,
           alpha = excluded.alpha, hold_probes = excluded.hold_probes
    RETURNING t.* INTO r;
    RETURN r;
END
$$;

-- Pins a tablespace's baseline to chosen batches (their merged histogram):
-- every later probe is compared with it.  Each batch must have measured
-- that tablespace with a probe's workload (one process at queue depth 1,
-- random 8 KiB reads, no writes, one group, uniform over the whole target;
-- paced or not): a batch of another tablespace or workload is refused,
-- naming what differs, since every later verdict would then be about that
-- difference and not about the storage, without a word in any of them.
CREATE OR REPLACE FUNCTION @extschema@.ranread_baseline_set(tablespace name, batches bigint[])
RETURNS @extschema@.ranread_baselines
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    fn constant text := 'ranread_baseline_set';
    id bigint;
    merged bytea;
    r @extschema@.ranread_baselines;
    bx record;
    differs text;
BEGIN
    PERFORM ranread_internal.ranread_primary_only(fn);
    PERFORM ranread_internal.ranread_watch_tablespace(fn, 'tablespace', tablespace);
    PERFORM ranread_internal.ranread_require(fn, 'batches', batches, 'An array of batch ids, such as ''{12,13,14}''.');
    IF array_ndims(batches) > 1 THEN
        RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('batches of %s must be a one-dimensional array of batch ids, not %s', fn, batches),
            HINT = 'An array of batch ids, such as ''{12,13,14}'' (ranread_summary lists them).';
    END IF;
    IF cardinality(batches) = 0 OR cardinality(batches) > 10000 OR array_position(batches, NULL) IS NOT NULL THEN
        RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('batches of %s must hold 1 to 10000 batch ids and no null, not %s', fn, batches),
            HINT = 'An array of batch ids, such as ''{12,13,14}'' (ranread_summary lists them).';
    END IF;
    FOREACH id IN ARRAY batches LOOP
        PERFORM ranread_internal.ranread_batch_histogram(fn, 'batches', id);
        SELECT b.tablespace, b.processes, b.queue_depth, b.block_size, b.write_pct, b.pattern,
               coalesce(b.groups, 1) AS groups, coalesce(b.distribution, 'uniform') AS distribution,
               b.region_start, b.region_end, b.sync, b.commit_test
          INTO bx FROM @extschema@.ranread_batches b WHERE b.batch = id;
        IF bx.tablespace IS DISTINCT FROM ranread_baseline_set.tablespace THEN
            RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
                MESSAGE = format('batches of %s: batch %s measured tablespace %s, not %s', fn, id,
                                 coalesce(bx.tablespace::text, 'unknown'), ranread_baseline_set.tablespace),
                HINT = format('A baseline is compared with the probes of its own tablespace: pin it to batches that measured %s (ranread_probe_verdicts lists its probes).',
                              ranread_baseline_set.tablespace);
        END IF;
        differs := concat_ws(', ',
            CASE WHEN bx.groups <> 1 OR bx.commit_test IS NOT NULL THEN format('%s groups', bx.groups) END,
            CASE WHEN bx.processes IS DISTINCT FROM 1 THEN format('%s processes', bx.processes) END,
            CASE WHEN bx.queue_depth IS DISTINCT FROM 1 THEN format('queue depth %s', bx.queue_depth) END,
            CASE WHEN bx.block_size IS DISTINCT FROM 8192 THEN format('block size %s', bx.block_size) END,
            CASE WHEN bx.write_pct IS DISTINCT FROM 0 THEN format('%s%% writes', bx.write_pct) END,
            CASE WHEN bx.pattern IS DISTINCT FROM 'random' THEN format('%s I/O', bx.pattern) END,
            CASE WHEN bx.sync IS NOT NULL THEN format('synced by %s', bx.sync) END,
            CASE WHEN bx.distribution <> 'uniform' THEN format('distribution %s', bx.distribution) END,
            CASE WHEN bx.region_start IS DISTINCT FROM 0 OR bx.region_end IS DISTINCT FROM 100
                 THEN format('region %s%% to %s%%', bx.region_start, bx.region_end) END);
        IF differs <> '' THEN
            RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
                MESSAGE = format('batches of %s: batch %s is not a probe''s workload: %s', fn, id, differs),
                HINT = 'A baseline is compared with probes: one process at queue depth 1, random 8 KiB reads, no writes, uniform over the whole target. Pin it to probes (ranread_probe_verdicts lists them) or batches of that workload.';
        END IF;
    END LOOP;
    SELECT @extschema@.ranread_hist_merge(b.histogram) INTO merged
      FROM @extschema@.ranread_batches b WHERE b.batch = ANY (ranread_baseline_set.batches);
    INSERT INTO @extschema@.ranread_baselines AS x (tablespace, batches, histogram, pinned, since, set_at)
    VALUES (ranread_baseline_set.tablespace, ARRAY(SELECT DISTINCT u FROM unnest(ranread_baseline_set.batches) u ORDER BY u),
            merged, true, now(), now())
    ON CONFLICT ON CONSTRAINT ranread_baselines_pkey DO UPDATE
       SET batches = excluded.batches, histogram = excluded.histogram, pinned = true,
           since = excluded.since, set_at = excluded.set_at, left_out = '{}', left_out_reason = NULL
    RETURNING x.* INTO r;
    RETURN r;
END
$$;

-- One row per watched tablespace (a probe, a baseline or thresholds): its
-- last probe, its figures, its baseline, the change, the verdict and the
-- status, since when it has that status, and its thresholds
CREATE OR REPLACE VIEW @extschema@.ranread_health AS
SELECT w.tablespace,
       l.batch AS last_batch,
       l.probed_at AS last_probe_at,
       l.p50_ms::numeric(15,3) AS p50_ms,
       l.p99_ms::numeric(15,3) AS p99_ms,
       round(l.iops)::bigint AS iops,
       (CASE WHEN bl.histogram IS NOT NULL AND (bl.pinned OR cardinality(bl.batches) >= thr.baseline_probes)
             THEN @extschema@.ranread_hist_percentile(bl.histogram, 50) END)::numeric(15,3) AS baseline_p50_ms,
       (CASE WHEN bl.histogram IS NOT NULL AND (bl.pinned OR cardinality(bl.batches) >= thr.baseline_probes)
             THEN @extschema@.ranread_hist_percentile(bl.histogram, 99) END)::numeric(15,3) AS baseline_p99_ms,
       -- NULL for a factor that numeric(12,3) cannot hold (infinite: a
       -- baseline p99 of 0), so that one row cannot break the view
       (CASE WHEN abs(l.p99_factor) < 1e9 THEN l.p99_factor END)::numeric(12,3) AS change,
       l.verdict,
       (CASE WHEN abs(l.factor) < 1e9 THEN l.factor END)::numeric(12,3) AS factor,
       l.confidence,
       coalesce(l.status, 'unknown') AS status,
       (SELECT min(v.probed_at) FROM @extschema@.ranread_probe_verdicts v
         WHERE v.tablespace = w.tablespace
           AND v.probed_at > coalesce((SELECT max(o.probed_at) FROM @extschema@.ranread_probe_verdicts o
                                        WHERE o.tablespace = w.tablespace AND o.status <> l.status), '-infinity')) AS since,
       (SELECT count(*) FROM @extschema@.ranread_probe_verdicts v WHERE v.tablespace = w.tablespace) AS probes,
       coalesce(cardinality(bl.batches), 0) AS baseline_batches,
       coalesce(bl.pinned, false) AS baseline_pinned,
       thr.p99_degraded_ms,
       thr.p99_critical_ms,
       thr.slower_factor,
       l.reason,
       l.probe_status,
       l.test,
       l.effect,
       (CASE WHEN abs(l.factor_low) < 1e9 THEN l.factor_low END)::numeric(12,3) AS factor_low,
       (CASE WHEN abs(l.factor_high) < 1e9 THEN l.factor_high END)::numeric(12,3) AS factor_high,
       l.probes AS status_probes,
       thr.hold_probes,
       coalesce(bl.left_out, '{}') AS baseline_left_out
  FROM (SELECT v.tablespace FROM @extschema@.ranread_probe_verdicts v
        UNION SELECT b.tablespace FROM @extschema@.ranread_baselines b
        UNION SELECT t.tablespace FROM @extschema@.ranread_health_thresholds t) w
  LEFT JOIN LATERAL (SELECT v.* FROM @extschema@.ranread_probe_verdicts v WHERE v.tablespace = w.tablespace
                      ORDER BY v.probed_at DESC, v.batch DESC LIMIT 1) l ON true
  LEFT JOIN @extschema@.ranread_baselines bl ON bl.tablespace = w.tablespace
  CROSS JOIN LATERAL ranread_internal.ranread_health_thresholds_of(w.tablespace) thr;

-- Readers of the history (pg_monitor) compare batches and see the health
GRANT SELECT ON @extschema@.ranread_health TO pg_monitor;
GRANT EXECUTE ON FUNCTION
    @extschema@.ranread_compare(bigint, bigint, float8, float8),
    @extschema@.ranread_compare_sweeps(bigint, bigint, float8, float8),
    @extschema@.ranread_compare_studies(bigint, bigint, float8, float8),
    ranread_internal.ranread_compare_pairs(text, text, text[], bigint[], float8, float8) TO pg_monitor;

COMMENT ON FUNCTION ranread_internal.ranread_compare_pairs(text, text, text[], bigint[], float8, float8) IS
    'Internal: two sweeps or two studies compared pair by pair (the body of ranread_compare_sweeps and ranread_compare_studies), after their arguments, whose errors name the function called';
COMMENT ON FUNCTION @extschema@.ranread_compare(bigint, bigint, float8, float8) IS
    'two batches compared from their merged latency histograms: is batch_b same, slower or faster than batch_a, by what factor and with what confidence (ranread_hist_compare)';
COMMENT ON FUNCTION @extschema@.ranread_compare_sweeps(bigint, bigint, float8, float8) IS
    'two sweeps compared step by step (the steps of the same processes), as ranread_compare compares two batches';
COMMENT ON FUNCTION @extschema@.ranread_compare_studies(bigint, bigint, float8, float8) IS
    'two studies compared point by point (the same point), as ranread_compare compares two batches';
COMMENT ON FUNCTION @extschema@.ranread_health_set(name, float8, float8, float8, integer, float8, integer) IS
    'sets what a tablespace''s probes are judged by: p99 above p99_degraded_ms is degraded, above p99_critical_ms critical (exact binomial test), slower_factor the change that counts, baseline_probes the first probes that make a baseline, alpha the tests'' level, hold_probes the probes in a row a change of status needs';
COMMENT ON FUNCTION @extschema@.ranread_baseline_set(name, bigint[]) IS
    'pins a tablespace''s baseline to chosen batches (their merged latency histogram): every later probe is compared with it; each must have measured that tablespace with a probe''s workload';
COMMENT ON VIEW @extschema@.ranread_health IS
    'ranread watch: one row per watched tablespace: last probe, p50, p99, IOPS, baseline p99, change, verdict, status (ok, slower, degraded, critical, unknown: held until hold_probes probes in a row show another) and since when, the test and effect that decided the last probe''s reading and the probes the status rests on';
COMMENT ON COLUMN @extschema@.ranread_health.change IS 'the last probe''s p99 over its baseline''s p99';
COMMENT ON COLUMN @extschema@.ranread_health.p50_ms IS 'the last probe''s median latency (ms)';
COMMENT ON COLUMN @extschema@.ranread_health.p99_ms IS 'the last probe''s 99th percentile latency (ms)';
COMMENT ON COLUMN @extschema@.ranread_health.baseline_p50_ms IS 'the baseline''s median latency (ms)';
COMMENT ON COLUMN @extschema@.ranread_health.baseline_p99_ms IS 'the baseline''s 99th percentile latency (ms)';
COMMENT ON COLUMN @extschema@.ranread_health.status IS
    'critical or degraded: p99 above the thresholds (exact binomial test), slower: slower than the baseline, ok: neither, each shown by the last hold_probes probes in a row (a status holds until that many show another); unknown: fewer probes judged';
COMMENT ON COLUMN @extschema@.ranread_health.probe_status IS 'what the last probe alone shows (the status follows only hold_probes in a row)';
COMMENT ON COLUMN @extschema@.ranread_health.test IS 'the test that decided the last probe''s reading, with its p-value and alpha';
COMMENT ON COLUMN @extschema@.ranread_health.effect IS 'the effect that test measured, with its interval';
COMMENT ON COLUMN @extschema@.ranread_health.status_probes IS 'the probes the status rests on: the last hold_probes judged probes, oldest first';
COMMENT ON COLUMN @extschema@.ranread_health.baseline_left_out IS 'the probes the automatic baseline left out (ranread_baselines.left_out_reason says why)';
COMMENT ON COLUMN @extschema@.ranread_health.since IS 'the first probe of the tablespace''s current status';
-- 1.1, keeping watch (docs/keeping-watch.md, "Keeping watch"): a tablespace's
-- probes over days, drawn by the one renderer (ranread_svg; the spec's keys
-- atop src/report/svg.c).

-- SVG: the p50 and p99 latency of each probe of a tablespace over the last
-- days (each probe's own merged histogram, from ranread_probe_verdicts),
-- the baseline's p50 and p99 lines (each in a style of its own), where
-- "slower" starts (baseline p99 x slower_factor) and the thresholds; probes
-- slower than the baseline are highlighted.  The x axis is clock time in
-- the session's time zone.
CREATE OR REPLACE FUNCTION @extschema@.ranread_probe_chart(tablespace name, since interval DEFAULT '30 days')
RETURNS text
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    fn constant text := 'ranread_probe_chart';
    thr @extschema@.ranread_health_thresholds;
    bl record;
    p record;
    h record;
BEGIN
    PERFORM ranread_internal.ranread_watch_tablespace(fn, 'tablespace', tablespace, gone_ok => true);
    PERFORM ranread_internal.ranread_require(fn, 'since', since, 'How far back, such as ''30 days''.');
    IF since <= interval '0' OR since > interval '100 years' THEN
        RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('since of %s must be above 0 and at most 100 years, not %s', fn, since),
            HINT = 'How far back the chart goes, such as ''30 days''.';
    END IF;
    thr := ranread_internal.ranread_health_thresholds_of(tablespace);
    SELECT b.pinned, cardinality(b.batches) AS n,
           CASE WHEN b.histogram IS NOT NULL AND (b.pinned OR cardinality(b.batches) >= thr.baseline_probes)
                THEN @extschema@.ranread_hist_percentile(b.histogram, 50) END AS p50,
           CASE WHEN b.histogram IS NOT NULL AND (b.pinned OR cardinality(b.batches) >= thr.baseline_probes)
                THEN @extschema@.ranread_hist_percentile(b.histogram, 99) END AS p99
      INTO bl
      FROM @extschema@.ranread_baselines b WHERE b.tablespace = ranread_probe_chart.tablespace;
    -- the points, oldest first, and the highlights: the latest 64 slower ones
    SELECT coalesce(jsonb_agg(extract(epoch FROM v.probed_at) ORDER BY v.probed_at, v.batch), '[]') AS x,
           coalesce(jsonb_agg(v.p50_ms ORDER BY v.probed_at, v.batch), '[]') AS p50,
           coalesce(jsonb_agg(v.p99_ms ORDER BY v.probed_at, v.batch), '[]') AS p99,
           count(*) AS n,
           count(*) FILTER (WHERE v.verdict = 'slower') AS slower,
           min(v.probed_at) AS first_at, max(v.probed_at) AS last_at
      INTO p
      FROM @extschema@.ranread_probe_verdicts v
     WHERE v.tablespace = ranread_probe_chart.tablespace AND v.probed_at >= now() - since;
    SELECT * INTO h FROM @extschema@.ranread_health x WHERE x.tablespace = ranread_probe_chart.tablespace;
    RETURN @extschema@.ranread_svg(jsonb_strip_nulls(jsonb_build_object(
        'title', format('Probes of tablespace %s: p50 and p99 latency', tablespace),
        'subtitle', CASE WHEN p.n = 0 THEN format('the last %s', since)
                         ELSE format('%s probes, %s to %s (%s)', p.n,
                                     to_char(p.first_at, 'YYYY-MM-DD HH24:MI'),
                                     to_char(p.last_at, 'YYYY-MM-DD HH24:MI'), current_setting('TimeZone')) END,
        'empty', format('no probe of tablespace %s in the last %s', tablespace, since),
        -- clock times in the session's time zone (its offset now: a
        -- change of summer time within the span shifts the older ticks)
        'x', jsonb_build_object('label', format('Time of the probe (%s; a date marks midnight)', current_setting('TimeZone')),
                                'time', 'clock', 'utc_offset', extract(timezone FROM now())),
        'y', jsonb_build_object('label', 'Latency (ms)', 'log', 'auto'),
        'series', jsonb_build_array(
            jsonb_build_object('label', 'p50 of a probe', 'x', p.x, 'y', p.p50, 'marker', 'circle'),
            jsonb_build_object('label', 'p99 of a probe', 'x', p.x, 'y', p.p99, 'marker', 'square')),
        'lines', (SELECT jsonb_agg(l.o ORDER BY l.k) FROM (VALUES
            -- each line a style of its own: the p50 light and dotted, the p99 dark and long-dashed
            (1, jsonb_build_object('value', bl.p50, 'legend', 'baseline p50', 'color', '#69db7c', 'dash', '3 3', 'width', 2)),
            (2, jsonb_build_object('value', bl.p99, 'legend', 'baseline p99', 'color', '#2b8a3e', 'dash', '12 4', 'width', 2)),
            (3, jsonb_build_object('value', bl.p99 * thr.slower_factor, 'legend',
                                   format('slower: %sx baseline p99', round(thr.slower_factor::numeric, 2)),
                                   'color', '#f59f00', 'dash', '2 3')),
            (4, jsonb_build_object('value', thr.p99_degraded_ms, 'legend', 'degraded', 'color', '#e8590c', 'dash', '9 3 2 3')),
            (5, jsonb_build_object('value', thr.p99_critical_ms, 'legend', 'critical', 'color', '#c92a2a'))) l(k, o)
            WHERE jsonb_typeof(l.o -> 'value') = 'number'),
        'highlights', (SELECT jsonb_agg(jsonb_build_object('series', 1, 'point', s.i - 1, 'color', '#c92a2a'))
                         FROM (SELECT row_number() OVER (ORDER BY v.probed_at, v.batch) AS i, v.verdict, v.probed_at
                                 FROM @extschema@.ranread_probe_verdicts v
                                WHERE v.tablespace = ranread_probe_chart.tablespace AND v.probed_at >= now() - since) s
                        WHERE s.verdict = 'slower' AND s.i > p.n - 64),
        'notes', jsonb_build_array(
            jsonb_build_object('text', CASE WHEN h.last_batch IS NULL THEN 'Status: unknown (no probe judged)'
                                            ELSE format('Status: %s since %s UTC; last probe p99 %s ms, %sx its baseline''s',
                                                        h.status, to_char(h.since AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI'),
                                                        h.p99_ms, coalesce(h.change::text, 'n/a')) END,
                               'style', CASE WHEN h.status = 'ok' THEN 'headline-good'
                                             WHEN h.status IN ('slower', 'degraded', 'critical') THEN 'headline-bad'
                                             ELSE 'headline' END),
            jsonb_build_object('text', CASE WHEN bl.p99 IS NULL THEN 'No baseline yet: the first probes make it.'
                 ELSE format('Baseline band: p50 to p99 of %s %s; %s of the probes shown were slower than it.',
                             bl.n, CASE WHEN bl.pinned THEN 'pinned batches' ELSE 'first probes' END, p.slower) END),
            jsonb_build_object('text', format('Thresholds: degraded above %s ms, critical above %s ms (ranread_health_set).',
                   thr.p99_degraded_ms, thr.p99_critical_ms))))));
END
$$;

COMMENT ON FUNCTION @extschema@.ranread_probe_chart(name, interval) IS
    'SVG: the p50 and p99 latency of a tablespace''s probes over the last days, with its baseline band (p50 to p99), where slower starts and the thresholds';
-- Roles: ranread_grant(role, what) and ranread_revoke(role, what) give a
-- role that is not a superuser what one kind of use of ranread needs, and
-- take it back (docs/reference.md, "Privileges").  Each kind is written here, fixed:
--   report  read the history and call what only reads it: the list of
--           ranread_report_objects below, which is also exactly what the
--           extension grants pg_monitor (99_privileges.sql grants that
--           list; test/tap/roles_fixed.sql checks that pg_monitor holds it
--           and nothing more).  Never read back from what pg_monitor holds
--           now: a DBA's GRANT or REVOKE on pg_monitor, or a grant and
--           revoke of 'run' on it, changes no kind
--   run     report, and make targets and run batches, mixes, sweeps,
--           latency-target searches, studies, profiles, commit tests and
--           probes (and their pg_cron schedules):
--           EXECUTE on those functions and what their implementations use
--           (the sweeps', searches' and studies' lists are forward.c's, the
--           ones their privilege check names)
--   probe   report, and run probes (and their pg_cron schedules) on the
--           probe targets a DBA made, within the probe cap: EXECUTE on
--           ranread_probe and its schedule functions and what they use
--           (forward.c's list); no batch of its own, no target, no INSERT
--           on ranread_probes (the probe records its row as the owner).
--           New in 1.2: what a monitoring role needs, instead of 'run'
--   export  report, and write export files on the server: EXECUTE on the
--           export functions and membership of pg_write_server_files,
--           which PostgreSQL asks of anyone who writes server files
-- Nothing else: fleets, ranread_reset and ranread.* settings stay with
-- superusers.  Each returns a row per kind of use (how many statements of
-- it ran); verbose => true returns every statement run, so that a DBA
-- sees it.
-- pg_monitor holds 'report' by the extension's own grant: ranread_revoke
-- leaves it (revoking another kind from pg_monitor keeps it; revoking
-- 'report' from pg_monitor is refused), and granting another kind to
-- pg_monitor, or to any role that has members, warns that every member
-- gets it.  New in 1.1.

-- The 'report' kind, once: the privileges a role that reads the history
-- needs (privilege, kind and the object's schema, as SQL spells it, and
-- name; a function's name stands for every signature of it).  The history's tables and views,
-- the charts, reports, advice without measuring, comparisons and help, and
-- the internal functions they call on the reader's behalf.  A new reader
-- of the history goes here, and nowhere else (99_privileges.sql grants
-- this list to pg_monitor).
CREATE OR REPLACE FUNCTION ranread_internal.ranread_report_objects(
    OUT privilege text, OUT kind text, OUT schema text, OUT name text)
RETURNS SETOF record
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT 'USAGE', 'schema', NULL::text, 'ranread_internal'
    UNION ALL
    SELECT 'SELECT', 'table', '@extschema@', t FROM pg_catalog.unnest(ARRAY[
        -- the history, and the views on it
        'ranread_batches', 'ranread_results', 'ranread_intervals', 'ranread_groups',
        'ranread_summary', 'ranread_summary_full', 'ranread_brief', 'ranread_seconds',
        'ranread_process_summary', 'ranread_group_summary',
        'ranread_percentiles_over_time', 'ranread_targets', 'ranread_verify_errors',
        'ranread_sweeps', 'ranread_sweep_verdict', 'ranread_latency_target_verdict',
        'ranread_studies', 'ranread_study_points', 'ranread_study_overview',
        'ranread_commit_summary', 'ranread_durability',
        'ranread_nodes', 'ranread_fleets', 'ranread_fleet_nodes', 'ranread_fleet_seconds',
        'ranread_fleet_sweeps', 'ranread_fleet_summary', 'ranread_fleet_series',
        -- keeping watch
        'ranread_probes', 'ranread_probe_verdicts', 'ranread_baselines', 'ranread_health_thresholds',
        'ranread_health',
        -- what runs now
        'ranread_progress', 'ranread_progress_full']) t
    UNION ALL
    SELECT 'SELECT', 'table', 'ranread_internal', t FROM pg_catalog.unnest(ARRAY[
        'ranread_summary_raw', 'ranread_study_points_raw', 'ranread_study_overview_raw',
        'ranread_commit_summary_raw', 'ranread_fleet_summary_raw', 'ranread_fleet_series_raw']) t
    UNION ALL
    SELECT 'EXECUTE', 'function', '@extschema@', f FROM pg_catalog.unnest(ARRAY[
        -- the option table, the help
        'ranread_options', 'ranread_help',
        -- histograms
        'ranread_hist_merge', 'ranread_hist_count', 'ranread_hist_percentile', 'ranread_hist_within',
        'ranread_hist_buckets', 'ranread_hist_compare',
        -- charts and reports
        'ranread_svg', 'ranread_chart', 'ranread_timeline', 'ranread_latency_heatmap',
        'ranread_study_grid', 'ranread_study_summary', 'ranread_study_chart', 'ranread_study_heat',
        'ranread_compare_chart', 'ranread_profile_report', 'ranread_profile_chart',
        'ranread_fleet_rows', 'ranread_fleet_chart', 'ranread_fleet_timeline',
        'ranread_probe_chart', 'ranread_report', 'ranread_server_info',
        -- rules and comparisons, pure or reading the history
        'ranread_latency_target_next', 'ranread_flash_guidance', 'ranread_hist_threshold', 'ranread_compare', 'ranread_compare_sweeps', 'ranread_compare_studies',
        -- advice without measuring
        'ranread_advise', 'ranread_advise_page_costs', 'ranread_advise_io_concurrency',
        'ranread_advise_parallel_workers', 'ranread_advise_wal_sync_method']) f
    UNION ALL
    SELECT 'EXECUTE', 'function', 'ranread_internal', f FROM pg_catalog.unnest(ARRAY[
        -- what the views call: the state of targets, batches and calls
        'ranread_target_state', 'ranread_target_info', 'ranread_batch_live', 'ranread_call_running',
        'ranread_running_calls', 'ranread_status_now', 'ranread_round', 'ranread_workload_words',
        'ranread_progress_rows',
        'ranread_require', 'ranread_fleet_live', 'ranread_fleet_rows_raw', 'ranread_fleet_round',
        'ranread_help_entries', 'ranread_help_arguments', 'ranread_help_closest', 'ranread_help_table', 'ranread_help_name',
        'ranread_wrap', 'ranread_wrap_words', 'ranread_wrap_sql', 'ranread_probe_caps', 'ranread_count_words',
        -- points read back (12_points.sql)
        'ranread_json_int', 'ranread_json_float', 'ranread_study_point_ok', 'ranread_window_ok', 'ranread_skipped',
        -- charts, studies read back, the report
        'ranread_chart_no_table', 'ranread_latency_heat_spec', 'ranread_latency_heat_cells',
        'ranread_latency_window', 'ranread_batch_histogram',
        'ranread_study_axes', 'ranread_study_row_label', 'ranread_study_label', 'ranread_study_where',
        'ranread_study_metric', 'ranread_study_check', 'ranread_study_bound', 'ranread_study_cells',
        'ranread_iops_at_bound', 'ranread_chart_latency', 'ranread_study_points_axes', 'ranread_sweep_known',
        'ranread_fmt_figure', 'ranread_curves_spec', 'ranread_study_curves', 'ranread_study_caption',
        'ranread_cdm_line', 'ranread_profile_report_raw', 'ranread_study_grid_raw', 'ranread_study_summary_raw',
        'ranread_html', 'ranread_html_table', 'ranread_html_svg', 'ranread_csv_field', 'ranread_study_csv',
        'ranread_study_json', 'ranread_report_figures', 'ranread_report_head', 'ranread_report_server',
        'ranread_report_batches', 'ranread_report_study', 'ranread_report_sweep', 'ranread_report_heatmap',
        'ranread_report_advice', 'ranread_report_health', 'ranread_report_commit', 'ranread_report_durability',
        'ranread_report_verify',
        -- keeping watch and comparing
        'ranread_watch_tablespace', 'ranread_health_thresholds_of', 'ranread_compare_pairs',
        'ranread_health_rank', 'ranread_health_hold', 'ranread_baseline_robust',
        'ranread_watch_p', 'ranread_watch_pct', 'ranread_watch_conf',
        -- advice without measuring (22_advise.sql)
        'ranread_advise_arg', 'ranread_t95', 'ranread_rounds_interval',
        'ranread_advise_history', 'ranread_advise_stale', 'ranread_advise_measure_sql', 'ranread_advise_target',
        'ranread_advise_same', 'ranread_advise_pending', 'ranread_first_failed', 'ranread_advise_check',
        'ranread_advise_cache', 'ranread_advise_durability', 'ranread_advise_durability_latest',
        'ranread_advise_figure', 'ranread_advise_fpw_rows', 'ranread_advise_full_page_writes',
        'ranread_advise_gather', 'ranread_advise_io_rows', 'ranread_advise_large_sql', 'ranread_advise_measure',
        'ranread_advise_noise', 'ranread_advise_notice', 'ranread_advise_page_cost_rows',
        'ranread_advise_parallel_rows', 'ranread_advise_place', 'ranread_advise_row', 'ranread_advise_seq_one',
        'ranread_advise_source', 'ranread_advise_wal_rows', 'ranread_advise_server_curve',
        'ranread_atomic_writes', 'ranread_ram_bytes']) f
$$;

-- The needs list of a forwarded function (forward.c), NULL for others
CREATE OR REPLACE FUNCTION ranread_internal.ranread_needs(fn text)
RETURNS text[]
AS 'MODULE_PATHNAME', 'ranread_needs'
LANGUAGE C STRICT IMMUTABLE;

-- Every privilege of a needs list, one row each, objects qualified
CREATE OR REPLACE FUNCTION ranread_internal.ranread_needs_expand(needs text[])
RETURNS TABLE (privilege text, kind text, object text)
AS 'MODULE_PATHNAME', 'ranread_needs_expand'
LANGUAGE C STABLE;

-- The privileges of one kind of use ('report', 'run', 'export'), one row
-- each: privilege (EXECUTE, SELECT, USAGE, INSERT, MEMBER), kind
-- (function, table, sequence, schema, role) and object, spelled as a GRANT
-- takes it
CREATE OR REPLACE FUNCTION ranread_internal.ranread_role_privileges(what text)
RETURNS TABLE (privilege text, kind text, object text)
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    WITH ext AS (
        SELECT e.oid, e.extnamespace FROM pg_catalog.pg_extension e
         WHERE e.extname OPERATOR(pg_catalog.=) 'ranread'
    ), report AS (
        -- the 'report' kind (ranread_report_objects), every signature of
        -- a function's name
        SELECT r.privilege, r.kind,
               CASE r.kind WHEN 'schema' THEN pg_catalog.quote_ident(r.name)
                           ELSE pg_catalog.to_regclass(r.schema || '.' || pg_catalog.quote_ident(r.name))::pg_catalog.text END
          FROM ranread_internal.ranread_report_objects() r
         WHERE r.kind OPERATOR(pg_catalog.<>) 'function'
        UNION ALL
        SELECT r.privilege, r.kind, p.oid::pg_catalog.regprocedure::pg_catalog.text
          FROM ranread_internal.ranread_report_objects() r
          JOIN pg_catalog.pg_proc p ON p.proname OPERATOR(pg_catalog.=) r.name
                                   AND p.pronamespace OPERATOR(pg_catalog.=) pg_catalog.to_regnamespace(r.schema)
         WHERE r.kind OPERATOR(pg_catalog.=) 'function'
    ), named(what, fn) AS (
        -- the functions each kind of use calls, every signature of the name
        VALUES ('run', 'ranread_setup'), ('run', 'ranread_purge'), ('run', 'ranread_run'),
               ('run', 'ranread_mix'), ('run', 'ranread_stop'), ('run', 'ranread_run_step'),
               ('run', 'ranread_blocks'), ('run', 'ranread_limits'), ('run', 'ranread_sweep'),
               ('run', 'ranread_latency_target'), ('run', 'ranread_study'),
               ('run', 'ranread_profile'), ('run', 'ranread_commit_test'),
               ('run', 'ranread_probe'), ('run', 'ranread_probe_setup'), ('run', 'ranread_probe_purge'),
               ('run', 'ranread_probe_schedule'),
               ('run', 'ranread_probe_schedules'), ('run', 'ranread_probe_unschedule'),
               ('run', 'ranread_verify'), ('run', 'ranread_paths'), ('run', 'ranread_profile_postgres'),
               ('probe', 'ranread_probe'), ('probe', 'ranread_probe_schedule'),
               ('probe', 'ranread_probe_schedules'), ('probe', 'ranread_probe_unschedule'),
               ('export', 'ranread_export'), ('export', 'ranread_export_study'),
               ('export', 'ranread_export_sweep')
    ), needs(what, need) AS (
        -- what their implementations use besides themselves
        SELECT 'run', pg_catalog.unnest(ranread_internal.ranread_needs(f))
          FROM pg_catalog.unnest(ARRAY['ranread_sweep', 'ranread_latency_target', 'ranread_study', 'ranread_probe']) f
        UNION ALL
        SELECT 'run', pg_catalog.unnest(ARRAY[
            -- a profile is a study of a fixed definition (43_profile.sql)
            'EXECUTE on functions ranread_internal.ranread_profile_*',
            'EXECUTE on functions ranread_internal.ranread_block_size_ok*',
            -- a commit test records its test's id
            'USAGE on sequence @extschema@.ranread_commit_test_seq',
            -- the two paths side by side (24_paths.sql): batches, read back
            'EXECUTE on functions ranread_internal.ranread_paths_*',
            'EXECUTE on function ranread_internal.ranread_require_read_committed(text, text)',
            'EXECUTE on function ranread_internal.ranread_first_failed(ranread_internal.ranread_check[])',
            'EXECUTE on function ranread_internal.ranread_round(float8, integer)',
            'EXECUTE on function @extschema@.ranread_hist_percentile(bytea, float8)'])
        UNION ALL
        SELECT 'probe', pg_catalog.unnest(ranread_internal.ranread_needs('ranread_probe'))
    ), expanded AS (
        SELECT x.privilege, x.kind,
               CASE x.kind WHEN 'function' THEN x.object::pg_catalog.regprocedure::pg_catalog.text
                           WHEN 'schema' THEN x.object
                           ELSE x.object::pg_catalog.regclass::pg_catalog.text END AS object
          FROM ranread_internal.ranread_needs_expand(ARRAY(
                   SELECT n.need FROM needs n WHERE n.what OPERATOR(pg_catalog.=) $1)) x
    )
    SELECT DISTINCT * FROM (
        SELECT * FROM report WHERE $1 OPERATOR(pg_catalog.=) ANY (ARRAY['report', 'run', 'probe', 'export'])
        UNION ALL
        SELECT 'EXECUTE', 'function', p.oid::pg_catalog.regprocedure::pg_catalog.text
          FROM named, ext, pg_catalog.pg_proc p
         WHERE named.what OPERATOR(pg_catalog.=) $1
           AND p.pronamespace OPERATOR(pg_catalog.=) ext.extnamespace
           AND p.proname OPERATOR(pg_catalog.=) named.fn
        UNION ALL
        SELECT * FROM expanded
        UNION ALL
        SELECT 'MEMBER', 'role', 'pg_write_server_files' WHERE $1 OPERATOR(pg_catalog.=) 'export'
    ) s
$$;

-- Error unless what is a kind of use; fn names the function
CREATE OR REPLACE FUNCTION ranread_internal.ranread_role_what(fn text, role pg_catalog.regrole, what text)
RETURNS void
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF role IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = 'null_value_not_allowed',
            MESSAGE = format('role of %s must not be null', fn),
            HINT = format('Name the role, such as SELECT %s(''alice'', ''run'').', fn);
    END IF;
    -- a regrole given as a number need not be a role (0 prints as '-')
    IF NOT EXISTS (SELECT FROM pg_catalog.pg_roles r WHERE r.oid OPERATOR(pg_catalog.=) role::pg_catalog.oid) THEN
        RAISE EXCEPTION USING ERRCODE = 'undefined_object',
            MESSAGE = format('role of %s does not exist: OID %s', fn, role::pg_catalog.oid),
            HINT = format('Name the role, such as SELECT %s(''alice'', ''run''); PUBLIC is not one.', fn);
    END IF;
    IF what IS NULL OR NOT (what OPERATOR(pg_catalog.=) ANY (ARRAY['run', 'report', 'probe', 'export'])) THEN
        RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
            MESSAGE = format('invalid what for %s: %s', fn,
                             coalesce(pg_catalog.quote_literal(CASE WHEN pg_catalog.length(what) OPERATOR(pg_catalog.>) 100
                                                                    THEN pg_catalog.left(what, 100) || '...' ELSE what END), 'NULL')),
            HINT = '''run'' (make targets and run batches, sweeps, studies; read the history), ''report'' (read the history, charts and reports), ''probe'' (run probes and their schedules within the probe cap; read the history) or ''export'' (read the history and write export files on the server).';
    END IF;
END
$$;

-- One privilege as a GRANT (or REVOKE) statement for role
CREATE OR REPLACE FUNCTION ranread_internal.ranread_role_statement(grant_it boolean, role pg_catalog.regrole,
                                                                    privilege text, kind text, object text)
RETURNS text
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN kind OPERATOR(pg_catalog.=) 'role' THEN
                    pg_catalog.format(CASE WHEN grant_it THEN 'GRANT %s TO %s;' ELSE 'REVOKE %s FROM %s;' END,
                                      object, role)
                ELSE pg_catalog.format(CASE WHEN grant_it THEN 'GRANT %s ON %s %s TO %s;' ELSE 'REVOKE %s ON %s %s FROM %s;' END,
                                       privilege, pg_catalog.upper(kind), object, role) END
$$;

-- Does role hold every privilege of a kind of use (through membership too)?
CREATE OR REPLACE FUNCTION ranread_internal.ranread_role_holds(role pg_catalog.regrole, what text)
RETURNS boolean
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT coalesce(pg_catalog.bool_and(CASE p.kind
               WHEN 'function' THEN pg_catalog.has_function_privilege(role, p.object::pg_catalog.regprocedure, p.privilege)
               WHEN 'schema' THEN pg_catalog.has_schema_privilege(role, p.object, p.privilege)
               WHEN 'sequence' THEN pg_catalog.has_sequence_privilege(role, p.object::pg_catalog.regclass, p.privilege)
               WHEN 'role' THEN pg_catalog.pg_has_role(role, p.object, 'USAGE')
               ELSE pg_catalog.has_table_privilege(role, p.object::pg_catalog.regclass, p.privilege) END), false)
      FROM ranread_internal.ranread_role_privileges(what) p
$$;

-- Grant (grant_it) or revoke role what a kind of use needs: the one body
-- of ranread_grant and ranread_revoke.  A grant runs the statements
-- schema first, a revoke in the reverse order (role first); a revoke keeps
-- what the other kinds of use the role holds need ('run' and 'export'
-- include 'report').  Returns the statements it ran, in the order it ran
-- them.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_role_change(grant_it boolean, role pg_catalog.regrole, what text)
RETURNS SETOF text
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    fn    constant text := CASE WHEN grant_it THEN 'ranread_grant' ELSE 'ranread_revoke' END;
    kinds constant text[] := ARRAY['schema', 'table', 'sequence', 'function', 'role'];
    kept  text[] := '{}';
    s     text;
BEGIN
    PERFORM ranread_internal.ranread_role_what(fn, role, what);
    IF NOT grant_it AND role OPERATOR(pg_catalog.=) 'pg_monitor'::pg_catalog.regrole
       AND what OPERATOR(pg_catalog.=) 'report' THEN
        RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
            MESSAGE = 'pg_monitor reads ranread''s history by the extension''s own grant, which ranread_revoke does not take back',
            DETAIL = 'Every role that is a member of pg_monitor reads the history, the charts and the reports (docs/reference.md, "Privileges").',
            HINT = 'To keep a role from reading it, revoke pg_monitor from that role.';
    END IF;
    IF NOT grant_it THEN
        -- a kind of use the role holds besides, unless it is part of what
        -- is revoked ('probe' of 'run'): revoking 'run' takes the probes too;
        -- but 'report' stays with a role that does not hold what is revoked
        -- (revoking 'export' from a reader takes nothing it has); and
        -- pg_monitor's 'report', the extension's own grant, always
        kept := ARRAY(SELECT w FROM unnest(ARRAY['report', 'run', 'probe', 'export']) w
                       WHERE w OPERATOR(pg_catalog.<>) what AND ranread_internal.ranread_role_holds(role, w)
                         AND (EXISTS (SELECT * FROM ranread_internal.ranread_role_privileges(w)
                                      EXCEPT SELECT * FROM ranread_internal.ranread_role_privileges(what))
                              OR (w OPERATOR(pg_catalog.=) 'report' AND NOT ranread_internal.ranread_role_holds(role, what))))
             || CASE WHEN role OPERATOR(pg_catalog.=) 'pg_monitor'::pg_catalog.regrole THEN ARRAY['report'] ELSE '{}' END;
    END IF;
    FOR s IN SELECT ranread_internal.ranread_role_statement(grant_it, role, p.privilege, p.kind, p.object)
               FROM ranread_internal.ranread_role_privileges(what) p
              WHERE NOT EXISTS (SELECT FROM unnest(kept) k, ranread_internal.ranread_role_privileges(k) o
                                 WHERE (o.privilege, o.kind, o.object) = (p.privilege, p.kind, p.object))
              ORDER BY CASE WHEN grant_it THEN 1 ELSE -1 END * array_position(kinds, p.kind),
                       p.object COLLATE "C", p.privilege
    LOOP
        EXECUTE s;
        RETURN NEXT s;
    END LOOP;
    IF grant_it AND what OPERATOR(pg_catalog.=) 'export' THEN
        RAISE NOTICE '% may now write files on the database server wherever its operating-system user may (pg_write_server_files)', role;
    END IF;
    -- a kind beyond reading, given to every member of a role at once
    IF grant_it AND what OPERATOR(pg_catalog.<>) 'report'
       AND (role OPERATOR(pg_catalog.=) 'pg_monitor'::pg_catalog.regrole
            OR EXISTS (SELECT FROM pg_catalog.pg_auth_members m WHERE m.roleid OPERATOR(pg_catalog.=) role)) THEN
        RAISE WARNING USING
            MESSAGE = format('every member of role %s may now %s', role,
                             CASE what WHEN 'run' THEN 'make targets and run batches, sweeps and studies on this server'
                                       WHEN 'probe' THEN 'run probes on this server'
                                       ELSE 'write files on the database server' END),
            DETAIL = CASE WHEN role OPERATOR(pg_catalog.=) 'pg_monitor'::pg_catalog.regrole
                          THEN 'pg_monitor is the role monitoring tools are given; it reads the history already (''report'').'
                          ELSE format('%s has %s members now, and every role granted it later gets it too.', role,
                                      (SELECT count(*) FROM pg_catalog.pg_auth_members m WHERE m.roleid OPERATOR(pg_catalog.=) role)) END,
            HINT = format('Unless that is meant, SELECT ranread_revoke(%L, %L); and grant %L to the roles that need it, one by one.',
                          role::text, what, what);
    END IF;
    IF cardinality(kept) > 0 THEN
        RAISE NOTICE '% keeps what % needs of it', role, array_to_string(kept, ' and ');
    END IF;
END
$$;

-- The statements a grant or revoke ran, one row per kind of use they
-- belong to (README, "Privileges"): 'run' is 'report', 'probe' and what
-- 'run' adds; 'export' is 'report' and what 'export' adds.  Each row
-- names the kind, how many statements of it ran and to or from whom; a
-- kind the role keeps (another it holds needs it) shows 0.  Counted
-- against the statements themselves, so that a row says what was done.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_role_kinds(grant_it boolean, role pg_catalog.regrole,
                                                             what text, statements text[])
RETURNS SETOF text
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    WITH kinds AS (
        SELECT k, n FROM unnest(CASE what WHEN 'run' THEN ARRAY['report', 'probe', 'run']
                                          WHEN 'probe' THEN ARRAY['report', 'probe']
                                          WHEN 'export' THEN ARRAY['report', 'export']
                                          ELSE ARRAY['report'] END) WITH ORDINALITY u(k, n)
    ), own AS (
        -- each statement of what, under the first kind of the list that has it
        SELECT DISTINCT ON (s) s, k.k
          FROM kinds k, ranread_internal.ranread_role_privileges(k.k) p,
               LATERAL (SELECT ranread_internal.ranread_role_statement(grant_it, role, p.privilege, p.kind, p.object) AS s) x
         ORDER BY s, k.n
    )
    SELECT format('%s: %s %s statement%s %s %s', k.k, count(o.s),
                  CASE WHEN grant_it THEN 'GRANT' ELSE 'REVOKE' END,
                  CASE WHEN count(o.s) = 1 THEN '' ELSE 's' END,
                  CASE WHEN grant_it THEN 'to' ELSE 'from' END, role)
      FROM kinds k
      LEFT JOIN own o ON o.k = k.k AND o.s = ANY (statements)
     GROUP BY k.k, k.n
     ORDER BY k.n
$$;

-- ranread_grant(role, what): grant role what 'run', 'report', 'probe' or
-- 'export' needs; returns one row per kind of use granted ('run' gives
-- 'report' and 'probe' too), or with verbose every statement it ran, in
-- the order it ran them
CREATE OR REPLACE FUNCTION @extschema@.ranread_grant(role pg_catalog.regrole, what text, verbose boolean DEFAULT false)
RETURNS SETOF text
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    ran text[] := ARRAY(SELECT ranread_internal.ranread_role_change(true, role, what));
BEGIN
    IF coalesce($3, false) THEN  -- verbose (a keyword, spelled by position)
        RETURN QUERY SELECT unnest(ran);
    ELSE
        RETURN QUERY SELECT ranread_internal.ranread_role_kinds(true, role, what, ran);
    END IF;
END
$$;

-- ranread_revoke(role, what): take back what ranread_grant(role, what)
-- gave, but for what the other kinds of use the role holds need ('run'
-- and 'export' include 'report': revoking 'report' from a role that may
-- run keeps it reading); returns one row per kind, or with verbose the
-- statements it ran
CREATE OR REPLACE FUNCTION @extschema@.ranread_revoke(role pg_catalog.regrole, what text, verbose boolean DEFAULT false)
RETURNS SETOF text
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    ran text[] := ARRAY(SELECT ranread_internal.ranread_role_change(false, role, what));
BEGIN
    IF coalesce($3, false) THEN  -- verbose (a keyword, spelled by position)
        RETURN QUERY SELECT unnest(ran);
    ELSE
        RETURN QUERY SELECT ranread_internal.ranread_role_kinds(false, role, what, ran);
    END IF;
END
$$;
-- ranread_help(): first steps, then the entry points by task, each with an
-- example, as RanRead's Help() lists them, as lines of text that fit a
-- screen of 120 columns (README, "Reading the results"); the same as a
-- table: ranread_internal.ranread_help_table().  ranread_help(name): one function's
-- call, result and arguments with their defaults, units and what they
-- mean, as lines of text too (the table: ranread_help_table(name)).  The one-line
-- descriptions are the objects' COMMENTs (97_comments.sql), the workload
-- options' units, ranges and help are ranread_options()'s (src/workload/options.c's
-- option table), the defaults are the functions' own (pg_proc): nothing is
-- written twice.  test/tap/help.sql checks that every function a user calls is
-- listed and every listed one exists.  New in 1.1.

-- The entry points: task, order, name (a function or a view), example
CREATE OR REPLACE FUNCTION ranread_internal.ranread_help_entries()
RETURNS TABLE (task text, n integer, name text, example text)
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT e.task, e.n::integer, e.name, e.example FROM (VALUES
        ('setup',         1, 'ranread_setup',        $x$SELECT * FROM ranread_setup('4GB', tablespace => 'pg_default');$x$),
        ('setup',         2, 'ranread_targets',      $x$SELECT * FROM ranread_targets;$x$),
        ('setup',         3, 'ranread_purge',        $x$SELECT ranread_purge('ranread');$x$),
        ('setup',         4, 'ranread_limits',       $x$SELECT * FROM ranread_limits();$x$),
        ('setup',         5, 'ranread_options',      $x$SELECT name, default_value, unit, allowed FROM ranread_options();$x$),
        ('run',           1, 'ranread_run',          $x$SELECT * FROM ranread_run(16, duration => '30s', queue_depth => 4);$x$),
        ('run',           2, 'ranread_mix',          $x$SELECT * FROM ranread_mix('[{"label": "oltp", "processes": 8}, {"label": "scan", "processes": 1, "block_size": 1048576, "pattern": "sequential"}]', duration => '30s');$x$),
        ('run',           3, 'ranread_sweep',        $x$SELECT * FROM ranread_sweep(start => 1, max_processes => 64, duration => '10s');$x$),
        ('run',           4, 'ranread_latency_target', $x$SELECT * FROM ranread_latency_target(2, percentile => 99);$x$),
        ('run',           5, 'ranread_latency_target_next', $x$SELECT * FROM ranread_latency_target_next(ARRAY[ROW(1, 1, 7, 5000, 99.5, 0.8, 'completed')]::ranread_latency_step[], 2, 99, 256);$x$),
        ('run',           6, 'ranread_stop',         $x$SELECT ranread_stop();$x$),
        ('run',           7, 'ranread_run_step',     $x$SELECT * FROM ranread_run_step('{"groups": [{"processes": 2}], "duration": "5s"}');$x$),
        ('run',           8, 'ranread_blocks',       $x$SELECT * FROM ranread_blocks(2, 5, distribution => 'zipf:1.2');$x$),
        ('run',           9, 'ranread_verify',       $x$SELECT * FROM ranread_verify('ranread');$x$),
        ('run',          10, 'ranread_verify_errors', $x$SELECT batch, block, kind, expected, found FROM ranread_verify_errors ORDER BY at DESC LIMIT 10;$x$),
        ('run',          11, 'ranread_paths',        $x$SELECT * FROM ranread_paths('{0,1,8,32}', duration => '10s');$x$),
        ('run',          12, 'ranread_progress',     $x$SELECT * FROM ranread_progress;$x$),
        ('run',          13, 'ranread_progress_full', $x$SELECT * FROM ranread_progress_full;$x$),
        ('report',       -1, 'ranread_brief',        $x$SELECT * FROM ranread_brief ORDER BY batch DESC LIMIT 10;$x$),
        ('report',        1, 'ranread_summary',      $x$SELECT * FROM ranread_summary ORDER BY batch DESC LIMIT 10;$x$),
        ('report',        0, 'ranread_seconds',     $x$SELECT * FROM ranread_seconds WHERE batch = (SELECT max(batch) FROM ranread_seconds);$x$),
        ('report',        2, 'ranread_summary_full', $x$SELECT * FROM ranread_summary_full WHERE batch = (SELECT max(batch) FROM ranread_summary_full);$x$),
        ('report',        3, 'ranread_process_summary', $x$SELECT * FROM ranread_process_summary WHERE batch = (SELECT max(batch) FROM ranread_process_summary);$x$),
        ('report',        4, 'ranread_group_summary', $x$SELECT batch, label, iops, avg_ms FROM ranread_group_summary ORDER BY batch DESC, grp;$x$),
        ('report',        5, 'ranread_sweep_verdict', $x$SELECT * FROM ranread_sweep_verdict ORDER BY sweep DESC LIMIT 1;$x$),
        ('report',        6, 'ranread_chart',        $x$SELECT ranread_chart();$x$),
        ('report',        7, 'ranread_timeline',     $x$SELECT ranread_timeline();$x$),
        ('report',        8, 'ranread_svg',          $x$SELECT ranread_svg('{"title": "IOPS by queue depth", "x": {"label": "queue depth"}, "y": {"label": "IOPS"}, "series": [{"label": "run 1", "x": [1, 4, 16], "y": [5000, 18000, 40000]}]}');$x$),
        ('report',        9, 'ranread_report',       $x$SELECT ranread_report();$x$),
        ('report',       10, 'ranread_server_info',  $x$SELECT * FROM ranread_server_info();$x$),
        ('report',       11, 'ranread_latency_target_verdict', $x$SELECT * FROM ranread_latency_target_verdict ORDER BY latency_target DESC LIMIT 1;$x$),
        ('report',       12, 'ranread_hist_percentile', $x$SELECT ranread_hist_percentile(ranread_hist_merge(histogram), 99.9) FROM ranread_results WHERE batch = 1;$x$),
        ('report',       13, 'ranread_hist_merge',   $x$SELECT ranread_hist_count(ranread_hist_merge(histogram)) FROM ranread_results WHERE batch = 1;$x$),
        ('report',       14, 'ranread_hist_count',   $x$SELECT ranread_hist_count(histogram) FROM ranread_batches WHERE batch = 1;$x$),
        ('report',       15, 'ranread_hist_buckets', $x$SELECT * FROM ranread_hist_buckets((SELECT histogram FROM ranread_batches WHERE batch = 1));$x$),
        ('report',       16, 'ranread_hist_within',  $x$SELECT ranread_hist_within(histogram, 1) FROM ranread_batches WHERE batch = 1;$x$),
        ('report',       17, 'ranread_steady_verdict', $x$SELECT * FROM ranread_steady_verdict(ARRAY[1000, 1010, 990, 1005, 995], round_seconds => 6);$x$),
        ('report',       20, 'ranread_flash_guidance', $x$SELECT * FROM ranread_flash_guidance(0.07, 23.4);$x$),
        ('report',       18, 'ranread_latency_heatmap', $x$SELECT ranread_latency_heatmap();$x$),
        ('report',       19, 'ranread_percentiles_over_time', $x$SELECT second, p50_ms, p99_ms FROM ranread_percentiles_over_time WHERE batch = 1 ORDER BY second;$x$),
        ('compare',       1, 'ranread_compare_chart', $x$SELECT ranread_compare_chart(studies => '{1,2}', sweeps => '{}');$x$),
        ('compare',       2, 'ranread_study_heat',   $x$SELECT ranread_study_heat(1, 'iops');$x$),
        ('compare',       3, 'ranread_compare',      $x$SELECT * FROM ranread_compare(1, 2);$x$),
        ('compare',       4, 'ranread_compare_sweeps', $x$SELECT * FROM ranread_compare_sweeps(1, 2);$x$),
        ('compare',       5, 'ranread_compare_studies', $x$SELECT * FROM ranread_compare_studies(1, 2);$x$),
        ('compare',       6, 'ranread_hist_compare', $x$SELECT * FROM ranread_hist_compare((SELECT histogram FROM ranread_batches WHERE batch = 1), (SELECT histogram FROM ranread_batches WHERE batch = 2));$x$),
        ('compare',       7, 'ranread_hist_threshold', $x$SELECT * FROM ranread_hist_threshold((SELECT histogram FROM ranread_batches WHERE batch = 1), 5);$x$),
        ('watch',         1, 'ranread_probe_setup',  $x$SELECT * FROM ranread_probe_setup('pg_default');$x$),
        ('watch',         2, 'ranread_probe',        $x$SELECT * FROM ranread_probe('pg_default', duration => '10s', rate_iops => 200);$x$),
        ('watch',         3, 'ranread_probe_schedule', $x$SELECT ranread_probe_schedule('pg_default', '*/5 * * * *');$x$),
        ('watch',         4, 'ranread_probe_schedules', $x$SELECT * FROM ranread_probe_schedules();$x$),
        ('watch',         5, 'ranread_probe_unschedule', $x$SELECT ranread_probe_unschedule('pg_default');$x$),
        ('watch',         6, 'ranread_probes',       $x$SELECT * FROM ranread_probes ORDER BY probed_at DESC LIMIT 10;$x$),
        ('watch',         7, 'ranread_probe_purge',  $x$SELECT ranread_probe_purge('pg_default');$x$),
        ('watch',        10, 'ranread_health',       $x$SELECT tablespace, last_probe_at, p99_ms, baseline_p99_ms, change, verdict, status FROM ranread_health;$x$),
        ('watch',        11, 'ranread_probe_verdicts', $x$SELECT batch, probed_at, p99_ms, verdict, factor, status FROM ranread_probe_verdicts ORDER BY probed_at DESC LIMIT 10;$x$),
        ('watch',        12, 'ranread_health_set',   $x$SELECT * FROM ranread_health_set('pg_default', p99_degraded_ms => 5, p99_critical_ms => 10);$x$),
        ('watch',        13, 'ranread_health_thresholds', $x$SELECT * FROM ranread_health_thresholds;$x$),
        ('watch',        14, 'ranread_baseline_set', $x$SELECT * FROM ranread_baseline_set('pg_default', '{12,13,14}');$x$),
        ('watch',        15, 'ranread_baseline_reset', $x$SELECT ranread_baseline_reset('pg_default');$x$),
        ('watch',        16, 'ranread_baselines',    $x$SELECT tablespace, batches, pinned, since FROM ranread_baselines;$x$),
        ('watch',        17, 'ranread_probe_chart',  $x$SELECT ranread_probe_chart('pg_default', since => '30 days');$x$),
        ('study',         1, 'ranread_study',        $x$SELECT * FROM ranread_study(queue_depth => '{1,4,16}', block_size => '{8192,65536}', duration => '10s');$x$),
        ('study',         2, 'ranread_study_grid',   $x$SELECT * FROM ranread_study_grid(1, 'iops');$x$),
        ('study',         3, 'ranread_study_summary', $x$SELECT * FROM ranread_study_summary(1);$x$),
        ('study',         4, 'ranread_study_chart',  $x$SELECT ranread_study_chart(1);$x$),
        ('study',         5, 'ranread_study_overview', $x$SELECT * FROM ranread_study_overview ORDER BY study DESC;$x$),
        ('study',         6, 'ranread_study_points', $x$SELECT n, row_label, column_label, iops, avg_ms FROM ranread_study_points WHERE study = 1 ORDER BY n;$x$),
        ('study',         7, 'ranread_profile',      $x$SELECT * FROM ranread_profile('crystaldiskmark', duration => '5s');$x$),
        ('study',         8, 'ranread_profile_report', $x$SELECT * FROM ranread_profile_report(1);$x$),
        ('study',         9, 'ranread_profile_chart', $x$SELECT ranread_profile_chart(1);$x$),
        ('study',        10, 'ranread_profile_postgres', $x$SELECT * FROM ranread_profile_postgres(duration => '30s');$x$),
        ('fleet',         1, 'ranread_nodes',        $x$INSERT INTO ranread_nodes (name, conninfo) VALUES ('db2', 'host=db2 dbname=postgres');$x$),
        ('fleet',         2, 'ranread_fleet',        $x$SELECT * FROM ranread_fleet(ARRAY['db2', 'db3'], 8, duration => '30s');$x$),
        ('fleet',         3, 'ranread_fleet_sweep',  $x$SELECT * FROM ranread_fleet_sweep(ARRAY['db2', 'db3'], max_processes => 64);$x$),
        ('fleet',         4, 'ranread_fleet_summary', $x$SELECT fleet, nodes, iops, avg_ms, outliers FROM ranread_fleet_summary ORDER BY fleet DESC;$x$),
        ('fleet',         5, 'ranread_fleet_rows',   $x$SELECT * FROM ranread_fleet_rows();$x$),
        ('fleet',         6, 'ranread_fleet_chart',  $x$SELECT ranread_fleet_chart();$x$),
        ('fleet',         7, 'ranread_fleet_timeline', $x$SELECT ranread_fleet_timeline();$x$),
        ('fleet',         8, 'ranread_fleet_series', $x$SELECT second, nodes, iops FROM ranread_fleet_series WHERE fleet = 1 ORDER BY second;$x$),
        ('commit path',   1, 'ranread_commit_test',  $x$SELECT test, method, ops_per_s, ops_low, ops_high, rounds, calls FROM ranread_commit_test(duration => '5s');$x$),
        ('commit path',   2, 'ranread_commit_summary', $x$SELECT test, method, ops_per_s, avg_ms, durable FROM ranread_commit_summary ORDER BY batch DESC;$x$),
        ('commit path',   3, 'ranread_durability_start', $x$CALL ranread_durability_start(tablespace => 'pg_default', method => 'fdatasync', duration => '5min');$x$),
        ('commit path',   4, 'ranread_durability_check', $x$SELECT * FROM ranread_durability_check();$x$),
        ('commit path',   5, 'ranread_durability_stop', $x$SELECT ranread_durability_stop();$x$),
        ('commit path',   6, 'ranread_durability_purge', $x$SELECT ranread_durability_purge();$x$),
        ('commit path',   7, 'ranread_durability',   $x$SELECT durability, method, acknowledged, lost, verdict FROM ranread_durability ORDER BY durability DESC;$x$),
        ('advice',        1, 'ranread_advise',       $x$SELECT setting, server_value, suggested, apply_sql FROM ranread_advise();$x$),
        ('advice',        2, 'ranread_advise_page_costs', $x$SELECT * FROM ranread_advise_page_costs(0.2, 0.01, 0.9);$x$),
        ('advice',        3, 'ranread_advise_io_concurrency', $x$SELECT * FROM ranread_advise_io_concurrency('{1,4,16}', '{5000,18000,40000}', '{0.2,0.22,0.4}', 10);$x$),
        ('advice',        4, 'ranread_advise_parallel_workers', $x$SELECT * FROM ranread_advise_parallel_workers(500, 2000);$x$),
        ('advice',        5, 'ranread_advise_wal_sync_method', $x$SELECT * FROM ranread_advise_wal_sync_method('{fdatasync,open_datasync}', '{900,1200}', 'fdatasync');$x$),
        ('export',        1, 'ranread_export',       $x$SELECT ranread_export('/tmp', 'csv');$x$),
        ('export',        2, 'ranread_export_study', $x$SELECT ranread_export_study('/tmp', 1);$x$),
        ('export',        3, 'ranread_export_sweep', $x$SELECT ranread_export_sweep('/tmp', 1);$x$),
        ('export',        4, 'ranread_fleet_export', $x$SELECT ranread_fleet_export('/tmp', 'json');$x$),
        ('housekeeping',  1, 'ranread_help',         $x$SELECT * FROM ranread_help('ranread_run');$x$),
        ('housekeeping',  2, 'ranread_grant',        $x$SELECT ranread_grant('alice', 'run');$x$),
        ('housekeeping',  3, 'ranread_revoke',       $x$SELECT ranread_revoke('alice', 'run');$x$),
        ('housekeeping',  4, 'ranread_reset',        $x$SELECT ranread_reset(now() - interval '90 days');$x$),
        ('housekeeping',  5, 'ranread_batches',      $x$SELECT batch, run_at, status, message FROM ranread_batches ORDER BY batch DESC LIMIT 5;$x$),
        ('housekeeping',  6, 'ranread_results',      $x$SELECT process, reads, iops, avg_ms FROM ranread_results WHERE batch = 1 ORDER BY process;$x$),
        ('housekeeping',  7, 'ranread_intervals',    $x$SELECT second, iops, avg_ms FROM ranread_intervals WHERE batch = 1 ORDER BY second;$x$),
        ('housekeeping',  8, 'ranread_groups',       $x$SELECT grp, label, iops FROM ranread_groups WHERE batch = 1;$x$),
        ('housekeeping',  9, 'ranread_sweeps',       $x$SELECT * FROM ranread_sweeps ORDER BY sweep DESC LIMIT 1;$x$),
        ('housekeeping', 10, 'ranread_studies',      $x$SELECT study, kind, call FROM ranread_studies ORDER BY study DESC;$x$),
        ('housekeeping', 11, 'ranread_fleets',       $x$SELECT fleet, status, iops FROM ranread_fleets ORDER BY fleet DESC;$x$),
        ('housekeeping', 12, 'ranread_fleet_nodes',  $x$SELECT fleet, node, name, iops FROM ranread_fleet_nodes WHERE fleet = 1;$x$),
        ('housekeeping', 13, 'ranread_fleet_seconds', $x$SELECT node, second, iops FROM ranread_fleet_seconds WHERE fleet = 1;$x$),
        ('housekeeping', 14, 'ranread_fleet_sweeps', $x$SELECT * FROM ranread_fleet_sweeps ORDER BY sweep DESC;$x$),
        ('housekeeping', 16, 'ranread_target_check', $x$SELECT * FROM ranread_target_check();$x$),
        ('housekeeping', 15, 'ranread_target_catalog', $x$SELECT target, tablespace, size_bytes FROM ranread_target_catalog;$x$)
    ) e(task, n, name, example)
$$;

-- What the arguments that are not workload options mean, by name: unit
-- and description
CREATE OR REPLACE FUNCTION ranread_internal.ranread_help_arguments()
RETURNS TABLE (name text, unit text, description text)
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT * FROM (VALUES
        ('size', 'bytes', 'size of the target, such as ''1GB'' or ''512MB'' (PostgreSQL''s size units)'),
        ('tablespace', NULL, 'the tablespace; NULL: the database''s default (ranread_setup: pg_default)'),
        ('before', NULL, 'delete batches started before this time; NULL: all of them'),
        ('directory', NULL, 'a directory on the database server, written by the server''s operating-system user'),
        ('format', NULL, 'the file''s format: tsv, csv, json, svg or html, as the function lists them'),
        ('start', 'processes', 'processes of the first step; each next step doubles them'),
        ('max_processes', 'processes', 'the last step''s processes at most'),
        ('max_avg_ms', 'ms', 'the latency bound: average latency of one I/O'),
        ('sweep', NULL, 'a sweep''s id (ranread_sweeps); NULL: the latest'),
        ('batch', NULL, 'a batch''s id (ranread_summary); NULL: the latest'),
        ('study', NULL, 'a study''s id (ranread_study_overview); NULL: the latest'),
        ('fleet', NULL, 'a fleet''s id (ranread_fleet_summary); NULL: the latest'),
        ('studies', NULL, 'the ids of studies, a curve per row of each'),
        ('sweeps', NULL, 'the ids of sweeps, a curve each'),
        ('labels', NULL, 'a label per curve, in order'),
        ('title', NULL, 'the chart''s title'),
        ('latency', NULL, 'which latency: avg, p50, p95, p99, p999 or max'),
        ('metric', NULL, 'the figure in the cells: iops, mbps, lat, p50_ms ... max_ms'),
        ('columns', NULL, 'the dimension of the columns; NULL: the last one that varies'),
        ('spec', NULL, 'a JSON document; see docs/charts-and-reports.md, "Charts from SQL" (ranread_svg) or ranread_options (ranread_run_step)'),
        ('histogram', NULL, 'a latency histogram as ranread stores it (histogram columns)'),
        ('percentile', 'percent', 'the percentile, such as 99 or 99.9'),
        ('limit_ms', 'ms', 'the latency bound'),
        ('target_ms', 'ms', 'the latency the percentile of I/Os must stay within'),
        ('dimension', NULL, 'what the search raises: queue_depth or processes'),
        ('max_load', NULL, 'the highest queue depth or processes the search tries'),
        ('n', 'I/Os', 'how many I/Os of each process to show'),
        ('rounds', 'IOPS', 'five rounds'' IOPS, oldest first'),
        ('round_seconds', 's', 'how long each round ran: rounds under 2 s or 100 I/Os are too short to judge; NULL: not checked'),
        ('max_ms', 'ms', 'the slowest I/O'),
        ('bound_ms', 'ms', 'the latency the percentile is judged against'),
        ('methods', NULL, 'the wal_sync_method values to test; NULL: every one this system has'),
        ('mode', NULL, '''server'': open_datasync and open_sync opened as this server opens its WAL (O_DIRECT only at wal_level minimal); ''pg_test_fsync'': with O_DIRECT, as pg_test_fsync'),
        ('max_duration', NULL, 'the most each method''s one 8 kB write is timed, in rounds, until the intervals tell; NULL: 3 x duration'),
        ('hold_probes', 'probes', 'how many probes in a row must show a status before the tablespace takes it (2 to 100)'),
        ('measure', NULL, 'true: run the short batches the advice needs first; false: the history only'),
        ('cache_hit_ratio', 'fraction', 'the share of random reads served from cache, 0 to 1'),
        ('name', NULL, 'the profile: crystaldiskmark, crystaldiskmark-nvme, crystaldiskmark-real, orion-oltp, orion-dss, orion-normal or snia-latency'),
        ('passes', NULL, 'how many times each test runs; the best pass counts'),
        ('num_disks', 'devices', 'ORION''s num_disks: the devices behind the target'),
        ('writes', NULL, 'false: leave out the tests that write'),
        ('nodes', NULL, 'the nodes: names of ranread_nodes or connection strings'),
        ('start_delay', NULL, 'how long after the clocks are checked the I/O starts on every node'),
        ('skip_unavailable', NULL, 'true: run without nodes that cannot be reached'),
        ('on_node_failure', NULL, 'continue or abort the fleet when a node fails'),
        ('max_offset_ms', 'ms', 'the clock offset allowed between the coordinator and a node'),
        ('on_clock_skew', NULL, 'error or warn when a node''s clock is further off than max_offset_ms'),
        ('loopback', NULL, 'the connection string this server is reached with, when a node is this server'),
        ('matrix', NULL, 'ORION''s matrix: basic, detailed, row, col, point or max'),
        ('small', NULL, 'a dimension: small I/Os in flight, ORION''s num_small'),
        ('large', NULL, 'a dimension: large I/Os in flight, ORION''s num_large'),
        ('num_small', NULL, 'ORION''s num_small for the matrices that fix it'),
        ('num_large', NULL, 'ORION''s num_large for the matrices that fix it'),
        ('small_size', 'bytes', 'size of a small I/O'),
        ('large_size', 'bytes', 'size of a large I/O'),
        ('large_pattern', NULL, 'random or sequential large I/Os'),
        ('region', NULL, 'a dimension: regions of the target as ''START-END'' percent'),
        ('early_end', NULL, 'true: a row ends once its average latency exceeds max_avg_ms twice'),
        ('role', NULL, 'the role to grant to or revoke from'),
        ('what', NULL, '''run'', ''report'', ''probe'' or ''export'' (docs/reference.md, "Privileges")'),
        ('random_ms', 'ms', 'a random 8 KiB read''s average latency at queue depth 1'),
        ('seq_page_ms', 'ms', 'time per 8 KiB page of one process''s large sequential reads'),
        ('reference_seq_page_ms', 'ms', 'the default tablespace''s seq_page_ms; NULL: this one is the reference'),
        ('concurrency', NULL, 'the queue depths measured'),
        ('iops', 'IOPS', 'the IOPS at each queue depth'),
        ('avg_ms', 'ms', 'the average latency (at each point of a curve)'),
        ('share', 'fraction', 'the share of the peak IOPS the setting must reach'),
        ('one_process_mbps', 'MiB/s', 'one process''s large sequential read rate'),
        ('all_mbps', 'MiB/s', 'the rate of many processes together'),
        ('ops_per_s', 'ops/s', 'a method''s commits per second, one element per round'),
        ('current', NULL, 'the server''s wal_sync_method'),
        ('batch_a', NULL, 'the batch compared with (ranread_summary lists them)'),
        ('batch_b', NULL, 'the batch compared: is it slower or faster than batch_a'),
        ('sweep_a', NULL, 'the sweep compared with (ranread_sweeps lists them)'),
        ('sweep_b', NULL, 'the sweep compared, step by step'),
        ('study_a', NULL, 'the study compared with (ranread_study_overview lists them)'),
        ('study_b', NULL, 'the study compared, point by point'),
        ('histogram_a', NULL, 'the latency histogram compared with, as ranread stores it'),
        ('histogram_b', NULL, 'the latency histogram compared'),
        ('min_factor', 'ratio', 'the change of p50 or p99 that counts, besides significance: 1.25 is 25% slower'),
        ('alpha', 'p', 'the significance level of the comparison''s tests'),
        ('p99_degraded_ms', 'ms', 'a probe''s p99 above this: the status is degraded'),
        ('p99_critical_ms', 'ms', 'a probe''s p99 above this (above p99_degraded_ms): the status is critical'),
        ('slower_factor', 'ratio', 'the change against the baseline that counts as slower (min_factor of the comparison)'),
        ('baseline_probes', 'probes', 'how many first probes make the baseline when none is pinned'),
        ('batches', NULL, 'the batches whose merged latency histogram is the baseline'),
        ('since', NULL, 'how far back, such as ''30 days'''),
        ('schedule', NULL, 'pg_cron''s schedule: five cron fields such as ''*/5 * * * *'', or @hourly, @daily'),
        ('job', NULL, 'the pg_cron job that runs the probe, kept in ranread_probes.job; ranread_probe_schedule sets it')
    ) a(name, unit, description)
$$;

-- Every entry point by task, what it does, an example: the help as a
-- table, for programs and tests (ranread_help() prints it as text)
CREATE OR REPLACE FUNCTION ranread_internal.ranread_help_table()
RETURNS TABLE (task text, name text, example text, description text)
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT e.task, e.name, e.example,
           coalesce((SELECT pg_catalog.obj_description(p.oid, 'pg_proc') FROM pg_catalog.pg_proc p
                      WHERE p.pronamespace OPERATOR(pg_catalog.=) x.extnamespace
                        AND p.proname OPERATOR(pg_catalog.=) e.name
                      ORDER BY p.pronargs LIMIT 1),
                    (SELECT pg_catalog.obj_description(c.oid, 'pg_class') FROM pg_catalog.pg_class c
                      WHERE c.relnamespace OPERATOR(pg_catalog.=) x.extnamespace
                        AND c.relname OPERATOR(pg_catalog.=) e.name))
      FROM ranread_internal.ranread_help_entries() e,
           pg_catalog.pg_extension x
     WHERE x.extname OPERATOR(pg_catalog.=) 'ranread'
     ORDER BY pg_catalog.array_position(ARRAY['setup', 'run', 'report', 'compare', 'study', 'fleet', 'watch',
                                              'commit path', 'advice', 'export', 'housekeeping'], e.task), e.n
$$;

-- Words put in lines of at most width characters, a space between two
-- (a word longer than a line stands alone), the first line after first,
-- the others after rest
CREATE OR REPLACE FUNCTION ranread_internal.ranread_wrap_words(words text[], width integer, first text, rest text)
RETURNS SETOF text
LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    line text := first;
    empty boolean := true;
    word text;
BEGIN
    FOREACH word IN ARRAY coalesce(words, '{}') LOOP
        IF NOT empty AND length(line) + 1 + length(word) > width THEN
            RETURN NEXT line;
            line := rest;
            empty := true;
        END IF;
        line := line || CASE WHEN empty THEN '' ELSE ' ' END || word;
        empty := false;
    END LOOP;
    RETURN NEXT line;
END
$$;

-- A text cut into lines of at most width characters at spaces (a word
-- longer than a line stands alone), the first line after first, the
-- others after rest: its words, as ranread_wrap_words puts them
CREATE OR REPLACE FUNCTION ranread_internal.ranread_wrap(t text, width integer, first text, rest text)
RETURNS SETOF text
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT * FROM ranread_internal.ranread_wrap_words(
        pg_catalog.regexp_split_to_array(pg_catalog.btrim(coalesce(t, '')), '\s+'), width, first, rest)
$$;

-- An SQL statement cut into lines as ranread_wrap does, at spaces outside
-- quotes only: a literal or a quoted name stays whole ('30 days'), but a
-- JSON or array literal ('{...}', '[...]') is cut between its elements,
-- never inside one of its strings ("IOPS by queue depth") nor between a
-- key and its value
CREATE OR REPLACE FUNCTION ranread_internal.ranread_wrap_sql(t text, width integer, first text, rest text)
RETURNS SETOF text
LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    words text[] := '{}';
    word text := '';
    c text;
    single boolean := false;     -- inside '...'
    structured boolean := false; -- ... which holds JSON or an array
    dbl boolean := false;        -- inside "..."
BEGIN
    FOREACH c IN ARRAY regexp_split_to_array(btrim(coalesce(t, '')), '') LOOP
        -- a JSON key stays with its value: "processes": 8
        IF c ~ '^\s$' AND NOT dbl AND (NOT single OR (structured AND right(word, 1) <> ':')) THEN
            IF word <> '' THEN
                words := words || word;
            END IF;
            word := '';
            CONTINUE;
        END IF;
        IF c = '''' AND NOT dbl THEN
            single := NOT single;
            structured := false;
        ELSIF c = '"' THEN
            dbl := NOT dbl;
        ELSIF single AND right(word, 1) = '''' AND c IN ('{', '[') THEN
            structured := true;
        END IF;
        word := word || c;
    END LOOP;
    IF word <> '' THEN
        words := words || word;
    END IF;
    RETURN QUERY SELECT * FROM ranread_internal.ranread_wrap_words(words, width, first, rest);
END
$$;

-- ranread_help(): what to type first, then every entry point by task, what
-- it does and an example, as lines of text of at most 118 characters (a
-- screen of 120 columns in psql's default format)
CREATE OR REPLACE FUNCTION @extschema@.ranread_help()
RETURNS SETOF text
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    e record;
    task text;
BEGIN
    RETURN QUERY SELECT l FROM unnest(ARRAY[
        'first steps',
        '  1. a target, at least twice the server''s RAM for figures from the disks:',
        '       SELECT * FROM ranread_setup(''4GB'');',
        '  2. one batch: 20 processes x 10000 random 8 KiB reads (IOPS, MiB/s, latency in ms):',
        '       SELECT * FROM ranread_run(20, 10000);',
        '  3. every batch so far, one line each; one batch''s seconds; one batch''s every column:',
        '       SELECT * FROM ranread_brief;',
        '       SELECT * FROM ranread_seconds WHERE batch = 1;',
        '       SELECT * FROM ranread_summary_full WHERE batch = 1 \gx',
        '  4. raise the processes until the latency or the IOPS say stop, and read the verdict:',
        '       SELECT * FROM ranread_sweep(start => 1, max_processes => 64, duration => ''10s'');',
        '  5. one function''s arguments: defaults, units and the ranges it allows:',
        '       SELECT * FROM ranread_help(''ranread_run'');',
        '  The views and functions below are the ones to read; \dx+ ranread lists ranread_internal''s',
        '  helpers besides, which are not called by hand.  Every page: docs/ in the source tree.']) l;
    FOR e IN SELECT * FROM ranread_internal.ranread_help_table() LOOP
        IF task IS DISTINCT FROM e.task THEN
            RETURN NEXT '';
            RETURN NEXT e.task;
            task := e.task;
        END IF;
        RETURN QUERY SELECT * FROM ranread_internal.ranread_wrap(e.name || ': ' || e.description, 118, '  ', '    ');
        RETURN QUERY SELECT * FROM ranread_internal.ranread_wrap_sql(e.example, 118, '      ', '        ');
    END LOOP;
END
$$;

-- The names of the help closest to a name that is none of them: most
-- pairs of letters, then letters, in common (Dice's coefficient of each),
-- "ranread_" aside
CREATE OR REPLACE FUNCTION ranread_internal.ranread_help_closest(wanted text)
RETURNS text[]
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    WITH w AS (
        -- a name is at most 63 bytes: more says nothing more, and costs
        SELECT pg_catalog.regexp_replace(pg_catalog.lower(pg_catalog.left(wanted, 64)), '^ranread_', '') AS s
    ), scored AS (
        SELECT e.name,
               (SELECT pg_catalog.count(*) FROM (
                    SELECT pg_catalog.substr(t.s, i, 2) FROM pg_catalog.generate_series(1, pg_catalog.length(t.s) - 1) i
                    INTERSECT
                    SELECT pg_catalog.substr(w.s, j, 2) FROM pg_catalog.generate_series(1, pg_catalog.length(w.s) - 1) j) g)::float8
               / GREATEST(pg_catalog.length(t.s) + pg_catalog.length(w.s) - 2, 1)
               + (SELECT pg_catalog.count(*) FROM (
                    SELECT pg_catalog.regexp_split_to_table(t.s, '')
                    INTERSECT
                    SELECT pg_catalog.regexp_split_to_table(w.s, '')) l)::float8
               / GREATEST(pg_catalog.length(t.s) + pg_catalog.length(w.s), 1) AS score,
               pg_catalog.abs(pg_catalog.length(t.s) - pg_catalog.length(w.s)) AS apart
          FROM ranread_internal.ranread_help_entries() e, w,
               LATERAL (SELECT pg_catalog.substr(e.name, 9) AS s) t
    )
    SELECT ARRAY(SELECT name FROM scored ORDER BY score DESC, apart, name LIMIT 3)
$$;

-- A name as a person may write it, as the help lists it: any case, spaces
-- around, double quotes, its schema, its argument types
-- ('public.RANREAD_RUN(integer)' is ranread_run)
CREATE OR REPLACE FUNCTION ranread_internal.ranread_help_name(name text)
RETURNS text
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT pg_catalog.btrim(pg_catalog.regexp_replace(pg_catalog.regexp_replace(
               pg_catalog.lower(pg_catalog.btrim(name)), '\s*\(.*\)$', ''), '^.*\.', ''), '" ')
$$;

-- The arguments of one function of the help, in order, as a table (for
-- programs and tests; ranread_help(name) prints them as text): type,
-- default (as the signature has it; NULL's meaning for an option), unit,
-- what is allowed, what it is.  name: as ranread_help(name) takes it
CREATE OR REPLACE FUNCTION ranread_internal.ranread_help_table(name text)
RETURNS TABLE (argument text, type text, default_value text, unit text, allowed text, description text)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    wanted text := ranread_internal.ranread_help_name(name);
    nsp oid := (SELECT x.extnamespace FROM pg_catalog.pg_extension x WHERE x.extname OPERATOR(pg_catalog.=) 'ranread');
    fn oid;
BEGIN
    IF wanted IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = 'null_value_not_allowed',
            MESSAGE = 'name of ranread_help must not be null',
            HINT = 'SELECT * FROM ranread_help() lists the functions; ranread_help(''ranread_run'') shows one.';
    END IF;
    IF NOT EXISTS (SELECT FROM ranread_internal.ranread_help_entries() e WHERE e.name OPERATOR(pg_catalog.=) wanted)
       AND EXISTS (SELECT FROM ranread_internal.ranread_help_entries() e WHERE e.name OPERATOR(pg_catalog.=) ('ranread_' || wanted)) THEN
        wanted := 'ranread_' || wanted;
    END IF;
    IF NOT EXISTS (SELECT FROM ranread_internal.ranread_help_entries() e WHERE e.name OPERATOR(pg_catalog.=) wanted) THEN
        RAISE EXCEPTION USING ERRCODE = 'undefined_function',
            MESSAGE = format('invalid name for ranread_help: %s',
                             CASE WHEN pg_catalog.length(name) > 100
                                  THEN pg_catalog.quote_literal(pg_catalog.left(name, 100)) || format('... (%s characters)', pg_catalog.length(name))
                                  ELSE pg_catalog.quote_literal(name) END),
            DETAIL = 'It is none of the functions and views ranread_help() lists.',
            HINT = format('The closest are %s.', array_to_string(ranread_internal.ranread_help_closest(name), ', '));
    END IF;
    SELECT p.oid INTO fn FROM pg_catalog.pg_proc p
     WHERE p.pronamespace OPERATOR(pg_catalog.=) nsp AND p.proname OPERATOR(pg_catalog.=) wanted
     ORDER BY p.pronargs DESC LIMIT 1;
    IF fn IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = 'wrong_object_type',
            MESSAGE = format('%s is a table or view, not a function: ranread_help shows a function''s arguments', wanted),
            HINT = format('\d+ %s shows its columns, each with its comment.', wanted);
    END IF;
    RETURN QUERY
    SELECT a.argname::text, pg_catalog.format_type(a.argtype, NULL),
           CASE WHEN NOT a.has_default THEN '(required)'
                WHEN a.d ~ '^NULL(::.*)?$' THEN 'NULL' || coalesce(': ' || o.null_means, '')
                ELSE pg_catalog.regexp_replace(a.d, '^''(.*)''::[a-z ]+(\[\])?$', '\1') END,
           coalesce(o.unit, h.unit),
           coalesce(c.allowed, o.allowed),
           coalesce(CASE WHEN o.type::pg_catalog.oid OPERATOR(pg_catalog.=) a.argtype THEN o.help
                         WHEN o.name IS NOT NULL THEN 'a dimension of the study, an array of values: ' || o.help END,
                    h.description)
      FROM (SELECT u.argname, u.argtype, u.k, u.argmode,
                   u.k > p.pronargs - p.pronargdefaults AS has_default,
                   pg_catalog.pg_get_function_arg_default(p.oid, u.k::integer) AS d
              FROM pg_catalog.pg_proc p,
                   LATERAL unnest(p.proargnames, coalesce(p.proallargtypes, p.proargtypes::oid[]), p.proargmodes)
                           WITH ORDINALITY u(argname, argtype, argmode, k)
             WHERE p.oid OPERATOR(pg_catalog.=) fn) a
      LEFT JOIN @extschema@.ranread_options() o
             ON o.name OPERATOR(pg_catalog.=) a.argname AND NOT o.internal
            AND (o.type::pg_catalog.oid OPERATOR(pg_catalog.=) a.argtype
                 OR (SELECT t.typarray FROM pg_catalog.pg_type t WHERE t.oid OPERATOR(pg_catalog.=) o.type) OPERATOR(pg_catalog.=) a.argtype)
      LEFT JOIN ranread_internal.ranread_help_arguments() h ON h.name OPERATOR(pg_catalog.=) a.argname
      -- a probe's caps are its own, narrower than a batch's (src/probe.c)
      LEFT JOIN ranread_internal.ranread_probe_caps() c
             ON c.argument OPERATOR(pg_catalog.=) a.argname
            AND wanted OPERATOR(pg_catalog.=) ANY (ARRAY['ranread_probe', 'ranread_probe_schedule'])
     WHERE a.argmode IS NULL OR a.argmode OPERATOR(pg_catalog.=) ANY (ARRAY['i', 'b', 'v']::"char"[])
     ORDER BY a.k;
END
$$;

-- ranread_help(name): one function of the help as lines of text of at most
-- 118 characters (a screen of 120 columns in psql's default format), a
-- line per fact: what it does, its call (argument names and types), what
-- it returns, each argument with its type, unit, default (or required),
-- what is allowed and what it is, then the example; the same as a table:
-- ranread_internal.ranread_help_table(name)
CREATE OR REPLACE FUNCTION @extschema@.ranread_help(name text)
RETURNS SETOF text
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    wanted text := ranread_internal.ranread_help_name(name);
    a record;
    e record;
    fn oid;
BEGIN
    -- the errors (a null, an unknown name, a view's) are the table's, naming
    -- the value as given
    PERFORM FROM ranread_internal.ranread_help_table(name) LIMIT 1;
    SELECT h.* INTO e FROM ranread_internal.ranread_help_table() h
     WHERE h.name OPERATOR(pg_catalog.=) ANY (ARRAY[wanted, 'ranread_' || wanted])
     ORDER BY h.name OPERATOR(pg_catalog.=) wanted DESC LIMIT 1;
    SELECT p.oid INTO fn FROM pg_catalog.pg_proc p, pg_catalog.pg_extension x
     WHERE x.extname OPERATOR(pg_catalog.=) 'ranread' AND p.pronamespace OPERATOR(pg_catalog.=) x.extnamespace
       AND p.proname OPERATOR(pg_catalog.=) e.name
     ORDER BY p.pronargs DESC LIMIT 1;
    RETURN QUERY SELECT * FROM ranread_internal.ranread_wrap(e.name || ': ' || e.description, 118, '', '  ');
    -- the call and the result, cut between two arguments (or columns) only
    RETURN QUERY SELECT * FROM ranread_internal.ranread_wrap_words(
        regexp_split_to_array('call: ' || e.name || '(' || pg_catalog.pg_get_function_identity_arguments(fn) || ')',
                              '(?<=,) '), 118, '  ', '      ');
    RETURN QUERY SELECT * FROM ranread_internal.ranread_wrap_words(
        regexp_split_to_array('returns: ' || pg_catalog.pg_get_function_result(fn)
                              -- a composite type: its columns
                              || coalesce((SELECT ' (' || string_agg(t.attname || ' ' || pg_catalog.format_type(t.atttypid, t.atttypmod), ', '
                                                                     ORDER BY t.attnum) || ')'
                                             FROM pg_catalog.pg_proc p
                                             JOIN pg_catalog.pg_type y ON y.oid OPERATOR(pg_catalog.=) p.prorettype
                                             JOIN pg_catalog.pg_attribute t ON t.attrelid OPERATOR(pg_catalog.=) y.typrelid
                                            WHERE p.oid OPERATOR(pg_catalog.=) fn AND p.proallargtypes IS NULL
                                              AND t.attnum OPERATOR(pg_catalog.>) 0 AND NOT t.attisdropped), ''),
                              '(?<=,) '), 118, '  ', '      ');
    RETURN NEXT 'arguments:';
    FOR a IN SELECT * FROM ranread_internal.ranread_help_table(wanted) LOOP
        RETURN QUERY SELECT * FROM ranread_internal.ranread_wrap(
            a.argument || ' ' || a.type || coalesce(' (' || a.unit || ')', '') || ', '
            || CASE WHEN a.default_value OPERATOR(pg_catalog.=) '(required)' THEN 'required'
                    ELSE 'default ' || regexp_replace(a.default_value, '^NULL: (.*)$', 'NULL (\1)') END
            || coalesce(', allowed ' || nullif(a.allowed, ''), '')
            || coalesce(': ' || nullif(a.description, ''), ''),
            118, '  ', '      ');
    END LOOP;
    RETURN NEXT 'example:';
    RETURN QUERY SELECT * FROM ranread_internal.ranread_wrap_sql(e.example, 118, '  ', '    ');
END
$$;
-- What every object a user meets says of itself (\df+, \dv+, \d+, \dx+):
-- one line each, for a DBA, with the unit of what it returns.  Objects are
-- found by name in the extension's schema, every signature of a function
-- name alike, so that a changed argument list needs no edit here; a name
-- that no longer exists is an error, so that a stale line cannot stay.
-- Column comments are given once per column name and put on every table,
-- view and row type of the extension that has that column (a few tables
-- give theirs apart).  The steps behind the functions live in schema
-- ranread_internal, not on search_path, and carry no comment here (a
-- comment beginning "Internal:" would keep ranread_help() from listing a
-- function).  test/tap/comments.sql checks that every function, view,
-- table and type of the extension in this schema has a comment.

COMMENT ON EXTENSION ranread IS 'Storage benchmark from inside PostgreSQL: random and sequential I/O on the storage under a tablespace (IOPS, MiB/s, latency in ms); start with SELECT * FROM ranread_help()';
COMMENT ON SCHEMA ranread_internal IS 'ranread''s internal helpers: the steps behind its functions, not called by hand';

COMMENT ON EVENT TRIGGER ranread_target_grants IS 'Takes back any privilege granted on a ranread target (docs/reference.md, "Privileges")';

DO $comments$
DECLARE
    nsp oid := '@extschema@'::pg_catalog.regnamespace;
    r record;
    o record;
    n integer;
BEGIN
    FOR r IN SELECT * FROM (VALUES
        -- setup
        ('f', 'ranread_setup', 'Creates or re-creates a target of SIZE in a tablespace, every block written with O_DIRECT; returns its size (bytes), the seconds it took and MiB/s'),
        ('f', 'ranread_purge', 'Drops a target and frees its space; true when there was one'),
        ('f', 'ranread_limits', 'The limits ranread_run checks: processes, queue depth, I/Os in flight, buffer bytes in flight'),
        ('f', 'ranread_options', 'The workload options of ranread_run and the functions built on it: type, default, range, unit, what NULL means, help'),
        ('f', 'ranread_target_check', 'Relations of the ranread_target access method that are not sound targets, with what is wrong and what to do; empty when all is well'),
        -- run
        ('f', 'ranread_verify', 'Reads a whole target once (O_DIRECT) and checks every block''s stamp and checksum: blocks, bad blocks (corrupt, wrong_block, missing), the newest batch and sequence found'),
        ('r', 'ranread_verify_errors', 'The first bad blocks (up to 100) each verifying batch or ranread_verify call found: block, kind, expected, found'),
        ('f', 'ranread_run', 'Runs one batch of PROCESSES parallel I/O streams on a target and waits; returns IOPS, MiB/s and latency (avg, p50 ... max) in ms'),
        ('f', 'ranread_mix', 'Runs several groups of processes with their own options as one batch; one row per group and a total row (IOPS, MiB/s, latency in ms)'),
        ('f', 'ranread_run_step', 'Runs one batch described as JSON (the spec ranread_options lists), as the sweeps and studies do; returns what ranread_mix does'),
        ('f', 'ranread_stop', 'Stops the running batch from any session, as pg_cancel_backend is allowed; returns the processes stopped'),
        ('f', 'ranread_blocks', 'Where each process''s first N I/Os go (byte offsets in the target) for these options; does no I/O'),
        ('f', 'ranread_sweep', 'Batches at START, 2x, 4x ... processes until a rule stops them (status: a step did not complete; latency: average above MAX_AVG_MS ms on two steps in a row; scaling: a step gained less than 10% of linear scaling; max_processes); one row per step (IOPS, latency in ms), stop_reason on the last'),
        ('f', 'ranread_profile_postgres', 'A busy server''s I/O in three phases: backends'' random 8 kB reads alone, with the WAL writer''s durable commits, and with a checkpoint''s writes; per group its figures (ms), and how the read tail grows'),
        ('f', 'ranread_paths', 'The same reads on the device path (O_DIRECT) and the server path (shared buffers, page cache), alternated, at each effective_io_concurrency: both figures (IOPS, latency in ms) and what PostgreSQL gets in % of the device'),
        ('f', 'ranread_latency_target', 'Finds the highest load (queue depth or processes) at which PERCENTILE % of I/Os take at most TARGET_MS ms, as fio''s latency_target; one row per window'),
        ('f', 'ranread_latency_target_next', 'The latency-target search''s rule, pure: the next load, whether it confirms, the load found and why it stops'),
        -- report
        ('f', 'ranread_chart', 'SVG chart of a sweep: IOPS against processes with average and p99 latency (ms) and the latency bound; the latest sweep by default'),
        ('f', 'ranread_timeline', 'SVG chart of one batch per second: IOPS and latency (ms), and its latency heatmap under it; the latest batch by default'),
        ('f', 'ranread_svg', 'SVG of a line, bar or heat chart described by a jsonb spec (docs/charts-and-reports.md, "Charts from SQL"); pure'),
        ('f', 'ranread_report', 'The HTML report of the server, the history and a study or sweep; the latest by default'),
        ('f', 'ranread_server_info', 'What the report says of the server: kernel, CPUs, RAM, filesystems and devices, PostgreSQL settings'),
        ('f', 'ranread_hist_merge', 'Aggregate: merges stored latency histograms into one'),
        ('f', 'ranread_hist_percentile', 'The latency (ms) at a percentile (0 to 100) of a stored histogram'),
        ('f', 'ranread_hist_count', 'The number of I/Os a stored histogram counts'),
        ('f', 'ranread_hist_buckets', 'The buckets of a stored histogram: latency range (ms) and I/Os in each'),
        ('f', 'ranread_hist_within', 'The percentage of a stored histogram''s I/Os that took at most LIMIT_MS ms'),
        ('f', 'ranread_steady_verdict', 'SNIA''s steady-state rule on five rounds'' IOPS (range at most 20% of their mean, trend within 10%; rounds of 2 s and 100 I/Os at least when ROUND_SECONDS is given): steady, excursion and slope (fractions of the mean), and the verdict in words'),
        ('f', 'ranread_flash_guidance', 'The all-flash guidance (average at most 2 ms, no I/O above 5 ms) on an average and a maximum latency (ms): met, and the verdict in words naming the part that failed'),
        -- study, compare
        ('f', 'ranread_study', 'Runs a grid of batches (every combination of the dimensions given, or an ORION matrix) in one call; one row per point (IOPS, MiB/s, latency in ms)'),
        ('f', 'ranread_study_grid', 'A study as ORION''s pivot: one metric (iops, mbps, latency in ms) as rows by columns'),
        ('f', 'ranread_study_summary', 'A study''s maxima and where they were reached (IOPS, MiB/s, latency in ms), as ORION''s summary'),
        ('f', 'ranread_study_chart', 'SVG chart of a study: latency (ms) against IOPS, a curve per row, with the bound and the IOPS at it'),
        ('f', 'ranread_study_heat', 'SVG heat table of a study''s grid for one metric'),
        ('f', 'ranread_compare_chart', 'SVG chart comparing studies and sweeps: latency (ms) against IOPS, a curve each, with the IOPS at the bound and the gain over the first'),
        ('f', 'ranread_profile', 'Runs a CrystalDiskMark, ORION or SNIA profile as a study and reports it as the tool does (MB/s, IOPS, latency in us)'),
        ('f', 'ranread_profile_report', 'A profile''s rows again, as ranread_profile returned them (MB/s, IOPS, latency in us)'),
        ('f', 'ranread_profile_chart', 'SVG chart of a profile, as the tool draws it'),
        -- fleet
        ('f', 'ranread_fleet', 'Runs one batch on many PostgreSQL servers at once through ranread''s own connections; one row per node and the fleet''s total (IOPS, MiB/s, latency in ms)'),
        ('f', 'ranread_fleet_sweep', 'The sweep across a fleet: processes per node START, 2x, 4x ... until the fleet''s average latency passes MAX_AVG_MS (ms); one row per step'),
        ('f', 'ranread_fleet_rows', 'A fleet''s rows again, as ranread_fleet returned them; the latest fleet by default'),
        ('f', 'ranread_fleet_chart', 'SVG bar chart of a fleet''s IOPS per node and in total'),
        ('f', 'ranread_fleet_timeline', 'SVG chart of a fleet''s IOPS per second, a line per node and the total'),
        -- commit path, advice
        ('f', 'ranread_commit_test', 'The commit path as pg_test_fsync measures it, on the filesystem of pg_wal or a tablespace: one row per test (ops/s, latency in ms, durable)'),
        ('f', 'ranread_advise', 'Suggests random_page_cost, seq_page_cost, the io_concurrency settings, parallel workers and wal_sync_method from the history, with figures, formula and SQL; applies nothing'),
        ('f', 'ranread_advise_page_costs', 'The advisor''s formula for seq_page_cost and random_page_cost from times per page (ms); pure'),
        ('f', 'ranread_advise_io_concurrency', 'The advisor''s formula for effective_io_concurrency from IOPS and latency (ms) by queue depth; pure'),
        ('f', 'ranread_advise_parallel_workers', 'The advisor''s formula for max_parallel_workers_per_gather from one and many processes'' MiB/s; pure'),
        ('f', 'ranread_advise_wal_sync_method', 'The advisor''s choice of wal_sync_method from each method''s commits per second; pure'),
        -- export, housekeeping
        ('f', 'ranread_export', 'Writes the summary (tsv, csv, json, full precision), the chart (svg) or the report (html) to a new file in a server directory; returns its path'),
        ('f', 'ranread_export_study', 'Writes a study''s files (html, ORION''s csv grids and summary, json) to a server directory; returns their paths'),
        ('f', 'ranread_export_sweep', 'Writes a sweep''s report (html) to a server directory; returns its path'),
        ('f', 'ranread_fleet_export', 'Writes a fleet''s rows (tsv, csv), everything (json) or its chart (svg) to a new file in a server directory; returns its path'),
        ('f', 'ranread_reset', 'Deletes history: all of it, or the batches started before a time (sweeps, studies and fleets whole); returns the batches removed'),
        ('f', 'ranread_help', 'Help: the entry points by task with an example each; with a name, that function''s arguments with defaults and units'),
        ('f', 'ranread_grant', 'Grants a role what ''run'', ''report'', ''probe'' or ''export'' needs (docs/reference.md, "Privileges"); returns a row per kind of use, or with verbose => true every statement it ran'),
        ('f', 'ranread_revoke', 'Takes back from a role what ranread_grant gave for ''run'', ''report'', ''probe'' or ''export''; returns a row per kind of use, or with verbose => true every statement it ran'),
        -- keeping watch: the probe and its schedule
        ('f', 'ranread_probe', 'A probe: a small paced read-only batch (queue depth 1, 8 KiB random reads at RATE_IOPS for DURATION, low I/O priority) on a tablespace''s probe target, within ranread.probe_max_iops and ranread.probe_max_seconds; kept in ranread_probes; returns IOPS and latency (ms)'),
        ('f', 'ranread_probe_setup', 'Creates or re-creates the small target (256 MB by default) that a tablespace''s probes read; returns what ranread_setup does'),
        ('f', 'ranread_probe_purge', 'Drops a tablespace''s probe target, whose probes then fail until ranread_probe_setup makes it again; true when there was one'),
        ('f', 'ranread_probe_schedule', 'Schedules probes of a tablespace with pg_cron (one job, named ''ranread probe TABLESPACE''), refusing when pg_cron could not run it on this server; returns the job''s id'),
        ('f', 'ranread_probe_schedules', 'The scheduled probes (pg_cron jobs) this role sees: tablespace, schedule, the last run, its error when it failed, and the last probe'),
        ('f', 'ranread_probe_unschedule', 'Removes the pg_cron job of a tablespace''s probes; true when there was one'),
        -- internal steps still in this schema
        -- durability
        ('f', 'ranread_durability_start', 'Procedure (CALL, outside a transaction): writes stamped blocks made durable by METHOD and logs each acknowledged one where a power cut of the tested storage cannot take it; cut the power during it'),
        ('f', 'ranread_durability_check', 'After the restart: reads the durability file back against the log; acknowledged writes lost, blocks torn, and the verdict'),
        ('f', 'ranread_durability_stop', 'Stops a running durability start from another session; true when one was running'),
        ('f', 'ranread_durability_purge', 'Drops the durability file of a test that will not be checked; the history row stays'),
        -- tables
        ('r', 'ranread_batches', 'History: one row per batch, with every option, the figures (IOPS, MiB/s, latency in ms) and both merged histograms'),
        ('r', 'ranread_results', 'History: one row per process of each batch (IOPS, latency in ms, histograms)'),
        ('r', 'ranread_intervals', 'History: one row per batch, group and second (IOPS, latency in ms)'),
        ('r', 'ranread_groups', 'History: one row per group of each batch (a plain batch has one, labelled main)'),
        ('r', 'ranread_sweeps', 'History: one row per sweep: its settings, why it stopped, the IOPS within the bound'),
        ('r', 'ranread_studies', 'History: one row per study that returned: kind, call, definition, points planned and completed'),
        ('r', 'ranread_target_catalog', 'The targets ranread_setup made: relation, tablespace, size (bytes); read ranread_targets instead'),
        ('r', 'ranread_nodes', 'Named fleet nodes: name and connection string (no password: use ~/.pgpass or a service file)'),
        ('r', 'ranread_fleets', 'History: one row per fleet: its definition, clocks, window and totals (IOPS, MiB/s, latency in ms)'),
        ('r', 'ranread_fleet_nodes', 'History: one row per node of each fleet: its batch there, figures, clock offset and round trip (ms)'),
        ('r', 'ranread_fleet_seconds', 'History: one row per node of each fleet and second (IOPS, latency in ms)'),
        ('r', 'ranread_fleet_sweeps', 'History: one row per fleet sweep: its settings, why it stopped, the IOPS within the bound'),
        ('r', 'ranread_durability', 'History: one row per durability test: method, tablespace, where the log was, acknowledged writes, and its check (lost, torn, verdict)'),
        -- views
        ('v', 'ranread_summary', 'One row per batch: when, where, what ran, the load, IOPS, MiB/s, latency (ms, rounded) and status (1.1''s columns); ranread_brief fits 120 columns, ranread_summary_full has every column'),
        ('v', 'ranread_brief', 'One line per batch in 120 columns: processes, what ran, seconds, IOPS, MiB/s, average and p99 latency (ms), status'),
        ('v', 'ranread_progress', 'What runs now and how far it is, for any session, a row that fits a screen: a row per sweep, study, search or fleet and per run, probe, commit test, setup or verify: what runs, its batch, phase, step of steps, I/Os, seconds, IOPS and p99 (ms) of the last 5 s, eta; every column: ranread_progress_full'),
        ('v', 'ranread_progress_full', 'What runs now, every column (read it with \gx): pid, role, kind, id, target, batch, phase, step, steps, processes, I/Os, seconds, IOPS and p99 (ms) of the last 5 s, bytes done of a setup or verify, started_at, time left, eta'),
        ('v', 'ranread_summary_full', 'One row per batch with every column: options, figures (IOPS, MiB/s, latency in ms, rounded), CPU, device, steadiness, notes, what it ran on'),
        ('v', 'ranread_process_summary', 'One row per process of every batch: its figures (IOPS, MiB/s, latency in ms, rounded), without the histogram bytes of ranread_results'),
        ('v', 'ranread_group_summary', 'One row per group of every batch: its options and figures (IOPS, MiB/s, latency in ms)'),
        ('v', 'ranread_targets', 'The targets: tablespace, size (bytes), state and what to do about it'),
        ('v', 'ranread_sweep_verdict', 'One row per sweep: the highest IOPS within the latency bound, the latency there (ms), whether it meets the flash guidance'),
        ('v', 'ranread_commit_summary', 'Every commit test''s rows: method, ops/s, latency (ms), durable'),
        ('v', 'ranread_latency_target_verdict', 'One row per latency-target search: the load found with its IOPS and latency (ms), or why none'),
        ('v', 'ranread_study_overview', 'One row per study in the history, cancelled ones too: kind, status, points, the best IOPS, MiB/s and latency (ms)'),
        ('v', 'ranread_study_points', 'One row per point of every study: its row, column and figures (IOPS, MiB/s, latency in ms)'),
        ('v', 'ranread_fleet_summary', 'One row per fleet: nodes, status, IOPS, MiB/s, latency (ms), clock spreads (ms), outliers'),
        ('v', 'ranread_fleet_series', 'A fleet''s IOPS and latency (ms) per second, all nodes together'),
        -- types
        ('t', 'ranread_run_result', 'The row ranread_run returns: one batch''s IOPS, MiB/s and latency (ms)'),
        ('t', 'ranread_setup_result', 'The row ranread_setup returns: the target, its size (bytes), seconds and MiB/s'),
        ('t', 'ranread_group_result', 'A row of ranread_mix: one group''s or the total''s IOPS, MiB/s and latency (ms)'),
        ('t', 'ranread_study_result', 'A row of ranread_study: one point''s IOPS, MiB/s and latency (ms)'),
        ('t', 'ranread_sweep_step', 'One step of a sweep, as its rule reads it: processes, IOPS, latency (ms)'),
        ('t', 'ranread_latency_step', 'One window of a latency-target search, as its rule reads it: load, IOPS, latency (ms)'),
        ('t', 'ranread_fleet_result', 'A row of ranread_fleet: one node''s or the fleet''s IOPS, MiB/s, latency (ms), clock offset (ms)'),
        ('t', 'ranread_fleet_options', 'A fleet''s options, as its steps pass them on'),
        -- sequences
        ('S', 'ranread_durability_seq', 'Numbers the durability tests'),
        ('S', 'ranread_batch_seq', 'Batch ids'),
        ('S', 'ranread_sweep_seq', 'Sweep ids'),
        ('S', 'ranread_study_seq', 'Study ids'),
        ('S', 'ranread_fleet_seq', 'Fleet ids'),
        ('S', 'ranread_latency_target_seq', 'Latency-target search ids'),
        ('S', 'ranread_commit_test_seq', 'Commit test ids')
    ) c(kind, name, description)
    LOOP
        n := 0;
        IF r.kind = 'f' THEN
            FOR o IN SELECT p.oid::pg_catalog.regprocedure AS sig, p.prokind FROM pg_catalog.pg_proc p
                      WHERE p.pronamespace OPERATOR(pg_catalog.=) nsp AND p.proname OPERATOR(pg_catalog.=) r.name
            LOOP
                EXECUTE pg_catalog.format('COMMENT ON %s %s IS %L',
                    CASE o.prokind WHEN 'a' THEN 'AGGREGATE' WHEN 'p' THEN 'PROCEDURE' ELSE 'FUNCTION' END,
                    o.sig, r.description);
                n := n + 1;
            END LOOP;
        ELSIF r.kind = 't' THEN
            FOR o IN SELECT t.oid::pg_catalog.regtype AS t FROM pg_catalog.pg_type t
                      WHERE t.typnamespace OPERATOR(pg_catalog.=) nsp AND t.typname OPERATOR(pg_catalog.=) r.name
            LOOP
                EXECUTE pg_catalog.format('COMMENT ON TYPE %s IS %L', o.t, r.description);
                n := n + 1;
            END LOOP;
        ELSE
            FOR o IN SELECT c.oid::pg_catalog.regclass AS rel FROM pg_catalog.pg_class c
                      WHERE c.relnamespace OPERATOR(pg_catalog.=) nsp AND c.relname OPERATOR(pg_catalog.=) r.name
                        AND c.relkind OPERATOR(pg_catalog.=) r.kind::"char"
            LOOP
                EXECUTE pg_catalog.format('COMMENT ON %s %s IS %L',
                    CASE r.kind WHEN 'r' THEN 'TABLE' WHEN 'v' THEN 'VIEW' ELSE 'SEQUENCE' END, o.rel, r.description);
                n := n + 1;
            END LOOP;
        END IF;
        IF n = 0 THEN
            RAISE EXCEPTION 'sql/code/97_comments.sql comments % %, which does not exist', r.kind, r.name;
        END IF;
    END LOOP;

    -- Columns: by name, on every relation and row type that has one of that
    -- name, unless the relation is named (then on that one only, first)
    FOR r IN SELECT * FROM (VALUES
        (NULL, 'batch', 'The batch''s id'),
        (NULL, 'grp', 'The group''s number in its batch: 1, 2 ... (0: the total row of a mix)'),
        (NULL, 'label', 'The group''s label (main for a plain batch; total for a mix''s total)'),
        (NULL, 'run_at', 'When the batch started'),
        (NULL, 'finished_at', 'When it ended'),
        (NULL, 'processes', 'Parallel I/O streams (processes of the batch or group)'),
        (NULL, 'iterations', 'I/Os each process was asked to do; NULL: it ran for its duration'),
        (NULL, 'duration', 'How long it was asked to run; NULL: until its iterations were done'),
        (NULL, 'block_size', 'Bytes per I/O'),
        (NULL, 'queue_depth', 'I/Os each process keeps in flight'),
        (NULL, 'write_pct', 'Share of I/Os that write, percent'),
        (NULL, 'region_start', 'Where the part of the target the I/O goes to starts, percent of the target'),
        (NULL, 'region_end', 'Where that part ends, percent of the target'),
        (NULL, 'warmup', 'Time run before measuring'),
        (NULL, 'rate_iops', 'The cap on the whole batch''s I/Os per second; NULL: none'),
        (NULL, 'seed', 'The seed that chose the blocks: the same seed reads the same blocks'),
        (NULL, 'workers', 'Background workers that shared the processes'),
        (NULL, 'engine', 'The I/O engine every worker ran: io_uring or sync'),
        (NULL, 'reads', 'Reads done in the measured time'),
        (NULL, 'writes', 'Writes done in the measured time'),
        (NULL, 'seconds', 'Measured time, seconds'),
        (NULL, 'iops', 'I/O operations per second'),
        (NULL, 'mbps', 'MiB per second (2^20 bytes)'),
        (NULL, 'avg_ms', 'Average latency of one I/O, ms'),
        (NULL, 'min_ms', 'Lowest latency of one I/O, ms'),
        (NULL, 'p50_ms', 'Median latency, ms'),
        (NULL, 'p95_ms', '95th percentile latency, ms'),
        (NULL, 'p99_ms', '99th percentile latency, ms'),
        (NULL, 'p999_ms', '99.9th percentile latency, ms'),
        (NULL, 'max_ms', 'Highest latency of one I/O, ms'),
        (NULL, 'read_avg_ms', 'Average latency of the reads alone, ms'),
        (NULL, 'read_p99_ms', '99th percentile latency of the reads alone, ms'),
        (NULL, 'read_max_ms', 'Highest latency of the reads alone, ms'),
        (NULL, 'write_avg_ms', 'Average latency of the writes alone, ms'),
        (NULL, 'write_p99_ms', '99th percentile latency of the writes alone, ms'),
        (NULL, 'write_max_ms', 'Highest latency of the writes alone, ms'),
        (NULL, 'histogram', 'Latency histogram of every I/O (reads and writes): read it with ranread_hist_percentile, ranread_hist_buckets'),
        (NULL, 'write_histogram', 'Latency histogram of the writes alone'),
        (NULL, 'status', 'completed, stopped (ranread_stop), cancelled or failed (the message says why)'),
        (NULL, 'message', 'What went wrong, or what the reader should know'),
        (NULL, 'started_by', 'The role that started it'),
        (NULL, 'buffer_pages', 'What the I/O buffers got: huge (2 MB pages), small (4 kB) or mixed'),
        (NULL, 'filesystem', 'The filesystem the target''s files were on'),
        (NULL, 'timing', 'Whether every I/O was timed (ranread.timing); false: latency columns are empty'),
        (NULL, 'busy', 'Little''s law check, a fraction: the I/Os'' latencies summed over seconds x queue depth; 1 when no latency went missing, below 0.98 a WARNING (latency lost, or workers starved of CPU)'),
        (NULL, 'notes', 'Notes for the reader of the figures (cache, throttling, small target ...)'),
        (NULL, 'groups', 'Groups of a mix; NULL for a plain batch'),
        (NULL, 'mix', 'A mix''s groups and their options, as given'),
        (NULL, 'distribution', 'How blocks were chosen: uniform, zipf:THETA, pareto:H or hotset:PCT_IO/PCT_DATA'),
        (NULL, 'first_io_at', 'When the first I/O was issued'),
        (NULL, 'steady_state', 'The steady-state rule asked for, as PCT%/WINDOW; NULL: none'),
        (NULL, 'ended_steady', 'Whether the steady_state rule ended the run early (the IOPS of its last window stayed within PCT of their mean); not the SNIA verdict, which is steady'),
        (NULL, 'steady', 'SNIA''s steady-state verdict on five rounds of the measured time: the rounds'' IOPS range over at most 0.2 of their mean (steady_excursion) and their trend is within +-0.1 of it (steady_slope); NULL when too short to judge (rounds under 2 s or 100 I/Os)'),
        (NULL, 'steady_excursion', 'SNIA''s excursion: (max - min) / mean of the rounds'' IOPS, a fraction; steady needs at most 0.2'),
        (NULL, 'steady_slope', 'SNIA''s trend: least-squares slope x 4 / mean of the rounds'' IOPS, a fraction, negative when IOPS fell; steady needs it within +-0.1'),
        (NULL, 'sync', 'How writes were made durable: none, fdatasync, fsync, open_datasync or open_sync'),
        (NULL, 'start_at', 'When the I/O was asked to start'),
        (NULL, 'sweep', 'The sweep it is a step of'),
        (NULL, 'study', 'The study it is a point of'),
        (NULL, 'point', 'Its point in the study (or its window of a latency-target search), as JSON'),
        (NULL, 'fleet', 'The fleet it is part of'),
        (NULL, 'commit_test', 'The commit test it is part of'),
        (NULL, 'writes_per_op', 'Writes per commit of a commit test'),
        (NULL, 'direct', 'open_datasync and open_sync: whether the commit test opened its file with O_DIRECT (as pg_test_fsync does, and the server only at wal_level minimal); NULL for the other methods'),
        (NULL, 'tablespace', 'The tablespace the target''s files are in'),
        (NULL, 'target', 'The target the I/O went to'),
        (NULL, 'second', 'Second since the start of the measured time'),
        (NULL, 'size_bytes', 'Size of the target, bytes'),
        (NULL, 'max_avg_ms', 'The latency bound: average latency of one I/O, ms'),
        (NULL, 'stop_reason', 'Why it stopped: the rule''s name and a colon, then the figures that broke it (a sweep''s rules: status, latency, scaling, max_processes, as ranread_sweep states them)'),
        (NULL, 'max_iops', 'The highest IOPS within the latency bound'),
        (NULL, 'actual_latency_ms', 'The average latency at max_iops, ms'),
        (NULL, 'meets_flash_guidance', 'Whether the step of max_iops meets the all-flash guidance: an average of at most 2 ms and no I/O above 5 ms (ranread_flash_guidance)'),
        (NULL, 'flash_guidance', 'The all-flash guidance at the step of max_iops in words: met or not, each part''s figure, and which failed (ranread_flash_guidance)'),
        (NULL, 'offset_ms', 'The node''s clock minus the coordinator''s, ms'),
        (NULL, 'rtt_ms', 'Round trip to the node, ms'),
        (NULL, 'outlier', 'Whether the node''s IOPS lie far from the other nodes'''),
        (NULL, 'late_ms', 'How late the node''s first I/O was after the fleet''s start, ms'),
        (NULL, 'verify', 'Whether every page written was stamped and checksummed and every page read checked (the verify option)'),
        (NULL, 'verify_checked', 'verify: pages read and checked (warm-up included); NULL: not verified'),
        (NULL, 'verify_skipped', 'verify: pages read while a write of theirs was in flight, not checked'),
        (NULL, 'verify_errors', 'verify: bad blocks found, each once however often it was read (corrupt + wrong_block + lost); not 0: the batch failed'),
        (NULL, 'verify_corrupt', 'verify: blocks read without a ranread stamp or whose checksum did not match (torn or corrupt), each once'),
        (NULL, 'verify_wrong_block', 'verify: blocks read holding a whole page of another block or target (misdirected writes), each once'),
        (NULL, 'verify_lost', 'verify: blocks read older than a write the batch had acknowledged before the read (lost writes), each once'),
        ('ranread_batches', 'buffers_registered', 'Whether every worker''s I/O buffers were registered with its engine (io_uring fixed buffers); buffer_pages says their pages'),
        ('ranread_batches', 'start_late_ms', 'How long after the batch''s start the latest worker began its I/O, ms (a busy server); each worker measures its whole duration from its own start'),
        ('ranread_results', 'worker', 'The background worker that drove the process (1, 2, ...); a worker drives processes of one group'),
        ('ranread_groups', 'workers', 'How many background workers drove the group''s processes'),
        ('ranread_batches', 'io_priority', 'The workers'' I/O priority (the io_priority option: idle, best-effort:N, realtime:N); NULL: the server''s own'),
        (NULL, 'path', 'Which way the reads went: device (O_DIRECT, what the storage gives) or server (through shared buffers and the page cache, what PostgreSQL gets); NULL: a mix of both, or a batch of 1.1 (device)'),
        (NULL, 'effective_io_concurrency', 'The server path''s prefetch distance: blocks each process prefetched ahead of its read; NULL on the device path'),
        (NULL, 'shared_hits', 'The server path: measured reads whose block was in shared buffers'),
        (NULL, 'page_cache_hits', 'The server path: measured reads whose block was in the page cache before it was asked for'),
        (NULL, 'cache_pct', 'The server path: shared_hits + page_cache_hits in % of its reads; from 50 the figures are memory''s, not the device''s'),
        ('ranread_batches', 'server_settings', 'The server path: the settings in force (shared_buffers, the ring, data_checksums, effective_io_concurrency, ... io_method where the server has it), as JSON'),
        ('ranread_verify_errors', 'block', 'The bad block: its number in the target (8 kB blocks, across segment files)'),
        ('ranread_verify_errors', 'kind', 'corrupt, wrong_block, lost or missing'),
        ('ranread_verify_errors', 'expected', 'What the block should have held'),
        ('ranread_verify_errors', 'found', 'What it held'),
        ('ranread_verify_errors', 'at', 'When it was found (a ranread_verify call: when the call started)'),
        ('ranread_targets', 'state', 'ready, empty (after crash recovery), damaged, missing, or unavailable on a standby'),
        ('ranread_targets', 'protected', 'Made with the ranread_target access method, which maintenance leaves alone'),
        ('ranread_targets', 'note', 'What happened to the target and what to do'),
        ('ranread_nodes', 'conninfo', 'libpq connection string, without a password'),
        ('ranread_commit_summary', 'test', 'The pg_test_fsync test the row is'),
        ('ranread_commit_summary', 'method', 'The wal_sync_method measured'),
        ('ranread_commit_summary', 'writes', 'Writes per commit'),
        ('ranread_commit_summary', 'write_kb', 'KiB written per commit'),
        ('ranread_commit_summary', 'ops_per_s', 'Commits per second'),
        ('ranread_commit_summary', 'durable', 'Whether the method makes a commit durable')
    ) c(rel, col, description)
    LOOP
        n := 0;
        FOR o IN SELECT c.oid::pg_catalog.regclass AS rel
                   FROM pg_catalog.pg_class c
                   JOIN pg_catalog.pg_attribute a ON a.attrelid OPERATOR(pg_catalog.=) c.oid
                  WHERE c.relnamespace OPERATOR(pg_catalog.=) nsp
                    AND c.relkind OPERATOR(pg_catalog.=) ANY (ARRAY['r', 'v', 'c']::"char"[])
                    AND c.relname OPERATOR(pg_catalog.~) '^ranread_'
                    AND a.attname OPERATOR(pg_catalog.=) r.col AND a.attnum OPERATOR(pg_catalog.>) 0 AND NOT a.attisdropped
                    AND (r.rel IS NULL OR c.relname OPERATOR(pg_catalog.=) r.rel)
                    AND (r.rel IS NOT NULL OR pg_catalog.col_description(c.oid, a.attnum) IS NULL)
        LOOP
            EXECUTE pg_catalog.format('COMMENT ON COLUMN %s.%I IS %L', o.rel, r.col, r.description);
            n := n + 1;
        END LOOP;
        IF n = 0 AND r.rel IS NOT NULL THEN
            RAISE EXCEPTION 'sql/code/97_comments.sql comments column %.%, which does not exist', r.rel, r.col;
        END IF;
    END LOOP;
END
$comments$;
-- Privileges, last: every function of the extension is revoked from PUBLIC
-- (superusers run them, others by GRANT); history is readable by pg_monitor.
-- The revoke touches only the functions PUBLIC may still run (a new one, or
-- one made anew): an upgrade tells the functions it did not make again by
-- their unchanged rows (sql/updates/post-update.sql).

DO $$
DECLARE
    fn pg_catalog.regprocedure;
BEGIN
    FOR fn IN
        SELECT d.objid::pg_catalog.regprocedure
          FROM pg_catalog.pg_depend d
          JOIN pg_catalog.pg_proc p ON p.oid OPERATOR(pg_catalog.=) d.objid
         WHERE d.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_proc'::pg_catalog.regclass
           AND d.refclassid OPERATOR(pg_catalog.=) 'pg_catalog.pg_extension'::pg_catalog.regclass
           AND d.refobjid OPERATOR(pg_catalog.=)
               (SELECT e.oid FROM pg_catalog.pg_extension e
                 WHERE e.extname OPERATOR(pg_catalog.=) 'ranread')
           AND d.deptype OPERATOR(pg_catalog.=) 'e'
           AND pg_catalog.has_function_privilege('public', p.oid, 'EXECUTE')
    LOOP
        EXECUTE pg_catalog.format('REVOKE ALL ON ROUTINE %s FROM PUBLIC', fn);  -- procedures too
    END LOOP;
END
$$;

-- The history's tables and views: no one but their owner may change them
-- (the target catalog, which ranread_targets shows, no one but its owner
-- reads).  Each named once.
DO $$
DECLARE
    rel text;
BEGIN
    FOREACH rel IN ARRAY ARRAY[
        '@extschema@.ranread_batches', '@extschema@.ranread_results',
        '@extschema@.ranread_intervals', '@extschema@.ranread_target_catalog',
        '@extschema@.ranread_summary', '@extschema@.ranread_targets',
        '@extschema@.ranread_groups', '@extschema@.ranread_group_summary',
        '@extschema@.ranread_commit_summary', '@extschema@.ranread_nodes',
        '@extschema@.ranread_fleets', '@extschema@.ranread_fleet_nodes',
        '@extschema@.ranread_fleet_seconds', '@extschema@.ranread_fleet_sweeps',
        '@extschema@.ranread_fleet_summary', '@extschema@.ranread_fleet_series',
        '@extschema@.ranread_latency_target_verdict', '@extschema@.ranread_studies',
        '@extschema@.ranread_study_points', '@extschema@.ranread_study_overview',
        '@extschema@.ranread_summary_full', '@extschema@.ranread_process_summary',
        '@extschema@.ranread_brief', '@extschema@.ranread_progress', '@extschema@.ranread_progress_full',
        '@extschema@.ranread_verify_errors',
        'ranread_internal.ranread_summary_raw', 'ranread_internal.ranread_study_points_raw',
        'ranread_internal.ranread_study_overview_raw', 'ranread_internal.ranread_commit_summary_raw',
        'ranread_internal.ranread_fleet_summary_raw', 'ranread_internal.ranread_fleet_series_raw']
    LOOP
        EXECUTE pg_catalog.format('REVOKE ALL ON %s FROM PUBLIC', rel);
    END LOOP;
END
$$;

-- pg_monitor: exactly the 'report' kind of use, the one list of what a
-- role that reads the history may do (ranread_report_objects in
-- 95_roles.sql): the history's tables and views, the schema
-- ranread_internal (each internal function still needs its own EXECUTE),
-- the charts, reports, advice without measuring and the internal
-- functions they call on the reader's behalf.
DO $$
DECLARE
    p record;
BEGIN
    FOR p IN SELECT * FROM ranread_internal.ranread_role_privileges('report') LOOP
        EXECUTE ranread_internal.ranread_role_statement(true, 'pg_monitor', p.privilege, p.kind, p.object);
    END LOOP;
END
$$;
