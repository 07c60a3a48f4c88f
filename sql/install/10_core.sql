-- Targets and batches: the C entry points.  Replaceable objects only: the
-- upgrade script includes this file whole.

-- The error every function that writes gives on a hot standby; for the
-- PL/pgSQL functions, which must say so before they write anything.
CREATE OR REPLACE FUNCTION @extschema@.ranread_primary_only(fn text)
RETURNS void
AS 'MODULE_PATHNAME', 'ranread_primary_only'
LANGUAGE C STRICT VOLATILE;

CREATE OR REPLACE FUNCTION @extschema@.ranread_setup(
    size       text DEFAULT '1GB',
    tablespace name DEFAULT 'pg_default',
    target     name DEFAULT 'ranread')
RETURNS @extschema@.ranread_setup_result
AS 'MODULE_PATHNAME', 'ranread_setup'
LANGUAGE C CALLED ON NULL INPUT VOLATILE;

CREATE OR REPLACE FUNCTION @extschema@.ranread_purge(target name DEFAULT 'ranread')
RETURNS boolean
AS 'MODULE_PATHNAME', 'ranread_purge'
LANGUAGE C CALLED ON NULL INPUT VOLATILE;

CREATE OR REPLACE FUNCTION @extschema@.ranread_run(
    processes    integer,
    iterations   bigint   DEFAULT NULL,
    target       name     DEFAULT 'ranread',
    duration     interval DEFAULT NULL,
    block_size   integer  DEFAULT 8192,
    write_pct    integer  DEFAULT 0,
    queue_depth  integer  DEFAULT 1,
    pattern      text     DEFAULT 'random',
    region_start float8   DEFAULT 0,
    region_end   float8   DEFAULT 100,
    warmup       interval DEFAULT '0',
    rate_iops    integer  DEFAULT NULL,
    seed         bigint   DEFAULT NULL,
    workers      integer  DEFAULT NULL)
RETURNS @extschema@.ranread_run_result
AS 'MODULE_PATHNAME', 'ranread_run'
LANGUAGE C CALLED ON NULL INPUT VOLATILE;

-- ranread_run with the sweep id its batch belongs to; used by ranread_sweep.
CREATE OR REPLACE FUNCTION @extschema@.ranread_run_step(
    processes    integer,
    iterations   bigint,
    target       name,
    duration     interval,
    block_size   integer,
    write_pct    integer,
    queue_depth  integer,
    pattern      text,
    region_start float8,
    region_end   float8,
    warmup       interval,
    rate_iops    integer,
    seed         bigint,
    workers      integer,
    sweep        bigint)
RETURNS @extschema@.ranread_run_result
AS 'MODULE_PATHNAME', 'ranread_run'
LANGUAGE C CALLED ON NULL INPUT VOLATILE;

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
CREATE OR REPLACE FUNCTION @extschema@.ranread_hist_merge_sfunc(internal, bytea)
RETURNS internal
AS 'MODULE_PATHNAME', 'ranread_hist_merge_sfunc'
LANGUAGE C CALLED ON NULL INPUT IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE FUNCTION @extschema@.ranread_hist_merge_final(internal)
RETURNS bytea
AS 'MODULE_PATHNAME', 'ranread_hist_merge_final'
LANGUAGE C CALLED ON NULL INPUT IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE AGGREGATE @extschema@.ranread_hist_merge(bytea) (
    SFUNC = @extschema@.ranread_hist_merge_sfunc,
    STYPE = internal,
    FINALFUNC = @extschema@.ranread_hist_merge_final
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

-- Where each process's first n I/Os would go (byte offsets in the target),
-- chosen by the engines' own code; no I/O is done.
CREATE OR REPLACE FUNCTION @extschema@.ranread_blocks(
    processes    integer,
    n            integer  DEFAULT 10,
    target       name     DEFAULT 'ranread',
    block_size   integer  DEFAULT 8192,
    pattern      text     DEFAULT 'random',
    region_start float8   DEFAULT 0,
    region_end   float8   DEFAULT 100,
    seed         bigint   DEFAULT 0,
    OUT process     integer,
    OUT seq         integer,
    OUT byte_offset bigint)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'ranread_blocks'
LANGUAGE C CALLED ON NULL INPUT STABLE;
