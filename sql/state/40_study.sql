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
