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
