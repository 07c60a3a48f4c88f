-- 1.1, the types of ranread_advise's steps (22_advise.sql), apart from its
-- functions so that an upgrade can include those whole: a type is made
-- once and changed by ALTER TYPE in the upgrade's own text.

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
