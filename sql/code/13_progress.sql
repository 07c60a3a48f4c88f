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

-- What runs now, as pg_stat_progress_* views show it: the call and its
-- batch in one row (kind run, probe, commit_test, sweep, study,
-- latency_target, fleet, setup, verify), its phase, step of steps (a
-- sweep's: the most it may take), the I/Os and measured seconds of the
-- batch so far, the IOPS and p99 of its last seconds, bytes done of a
-- setup or verify, the time left and when it should be done (for a sweep,
-- at the latest).
CREATE OR REPLACE VIEW @extschema@.ranread_progress AS
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
