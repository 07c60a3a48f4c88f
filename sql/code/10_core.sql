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
    @options(processes, iterations, target, duration, block_size, write_pct, queue_depth, pattern, region_start, region_end, warmup, rate_iops, seed, workers, distribution, steady_state, sync, start_at, io_priority, verify, path, effective_io_concurrency))
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
    @options(duration='30s', warmup, seed, workers, steady_state, target, iterations, start_at, io_priority))
    @skip(processes block_size write_pct queue_depth pattern region_start region_end rate_iops distribution sync verify path effective_io_concurrency: a group's own, in each object of groups (ranread_options, level group))
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
    @options(processes),
    n            integer  DEFAULT 10,
    @options(target, block_size, pattern, region_start, region_end, seed=0, distribution),
    @skip(rest: only what chooses where an I/O goes matters here, as no I/O is done)
    OUT process     integer,
    OUT seq         integer,
    OUT byte_offset bigint)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'ranread_blocks'
LANGUAGE C CALLED ON NULL INPUT STABLE;
