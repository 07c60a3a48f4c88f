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
