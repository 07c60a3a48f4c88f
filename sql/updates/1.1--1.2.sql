-- ranread 1.1 -> 1.2: the state changes (tables, types, sequences, the
-- rows and privileges 1.2 no longer allows); CHANGELOG.md says why.  The
-- upgrade script is built from this file (sql/README.md, "What the Makefile
-- builds"): sql/updates/pre-update.sql, this, the whole of sql/code/, then
-- sql/updates/post-update.sql.  History is kept as it is.
--
-- test/shell/15_upgrade.sh checks that a database updated from 1.0 through
-- 1.1 has the same objects, with the same definitions, as a fresh 1.2.

-- ranread_internal.ranread_fleet_sweep returns SETOF record, its rows
-- ranread_fleet_sweep's as the other forwarded implementations' are: a new
-- result type, which CREATE OR REPLACE refuses, so dropped first (fleets
-- are superusers' own: no role holds EXECUTE on it)
DROP FUNCTION ranread_internal.ranread_fleet_sweep(text[], integer, integer, bigint, interval, float8, text, jsonb);

-- ranread_probe_schedules shows the last run's error (last_error, from
-- cron.job_run_details): a new result type, so dropped first; the roles
-- granted 'run' or 'probe' get EXECUTE on it again (post-update.sql)
DROP FUNCTION @extschema@.ranread_probe_schedules();

-- watch: probes are recorded by the probe alone, as the extension's owner
-- (sql/code/61_probe.sql), with the time its batch ran.  A role granted 'run' in 1.1 held INSERT
-- on ranread_probes, and a row it made (a forged batch, or a probed_at of
-- 'infinity' or of 2900-01-01 that froze its tablespace's health) was
-- judged as a probe: every privilege to change ranread_probes goes from
-- every role but the owner, and each row is judged by its batch: a row
-- whose batch is not one of its tablespace's probe target (or at a time
-- that is not finite) is deleted, with its verdict; a row at another time
-- than its batch's (a forged time; a probe in a repeatable read
-- transaction recorded the transaction's start) takes its batch's time,
-- and so does its verdict; each saying so.
DO $$
DECLARE
    g record;
    p record;
BEGIN
    -- every grant of it, PUBLIC's too: the owner's (a superuser's grant is
    -- the owner's), and with CASCADE what a grantee passed on goes with it
    FOR g IN
        SELECT DISTINCT CASE WHEN a.grantee OPERATOR(pg_catalog.=) 0 THEN 'PUBLIC'
                             ELSE a.grantee::pg_catalog.regrole::text END AS grantee
          FROM pg_catalog.pg_class c CROSS JOIN LATERAL pg_catalog.aclexplode(c.relacl) a
         WHERE c.oid OPERATOR(pg_catalog.=) '@extschema@.ranread_probes'::pg_catalog.regclass
           AND a.grantee OPERATOR(pg_catalog.<>) c.relowner AND a.grantor OPERATOR(pg_catalog.=) c.relowner
           AND a.privilege_type OPERATOR(pg_catalog.<>) 'SELECT'
    LOOP
        EXECUTE pg_catalog.format('REVOKE INSERT, UPDATE, DELETE, TRUNCATE, REFERENCES, TRIGGER ON @extschema@.ranread_probes FROM %s CASCADE', g.grantee);
        RAISE WARNING 'ranread 1.2: % may no longer change ranread_probes (only the probe records a probe; ranread_grant(role, ''probe'') gives what a monitoring role needs)', g.grantee;
    END LOOP;
    FOR p IN
        DELETE FROM @extschema@.ranread_probes x
         WHERE NOT pg_catalog.isfinite(x.probed_at)
            OR NOT EXISTS (SELECT FROM @extschema@.ranread_batches b
                            WHERE b.batch OPERATOR(pg_catalog.=) x.batch
                              AND b.target OPERATOR(pg_catalog.=)
                                  CASE WHEN pg_catalog.octet_length(x.tablespace) OPERATOR(pg_catalog.<=) 49
                                       THEN ('ranread_probe_' || x.tablespace)::name
                                       ELSE ('ranread_probe_' || pg_catalog.substr(pg_catalog.md5(x.tablespace), 1, 16))::name END)
        RETURNING x.batch, x.tablespace, x.probed_at
    LOOP
        DELETE FROM @extschema@.ranread_probe_verdicts v WHERE v.batch OPERATOR(pg_catalog.=) p.batch;
        RAISE WARNING 'ranread 1.2: deleted the row of batch % in ranread_probes (tablespace "%", probed_at %), as no probe of that tablespace ran it', p.batch, p.tablespace, p.probed_at
            USING HINT = pg_catalog.format('If it joined the baseline of "%s", SELECT ranread_baseline_reset(%L); makes it again.', p.tablespace, p.tablespace);
    END LOOP;
    FOR p IN
        WITH was AS (
            SELECT x.batch, x.probed_at AS was, b.run_at
              FROM @extschema@.ranread_probes x
              JOIN @extschema@.ranread_batches b ON b.batch OPERATOR(pg_catalog.=) x.batch
             WHERE x.probed_at OPERATOR(pg_catalog.<>) b.run_at)
        UPDATE @extschema@.ranread_probes x SET probed_at = was.run_at
          FROM was WHERE x.batch OPERATOR(pg_catalog.=) was.batch
        RETURNING x.batch, x.tablespace, was.was, was.run_at
    LOOP
        UPDATE @extschema@.ranread_probe_verdicts v SET probed_at = p.run_at WHERE v.batch OPERATOR(pg_catalog.=) p.batch;
        RAISE WARNING 'ranread 1.2: the row of batch % in ranread_probes (tablespace "%") now has its batch''s time %, not %', p.batch, p.tablespace, p.run_at, p.was;
    END LOOP;
END
$$;
ALTER TABLE @extschema@.ranread_probes
    ADD CONSTRAINT ranread_probes_probed_at_finite CHECK (pg_catalog.isfinite(probed_at));
-- verify/io_priority: the workers' I/O priority recorded with each batch
ALTER TABLE @extschema@.ranread_batches ADD COLUMN io_priority text;

-- the server path: its columns, per batch and group; batches of 1.1 read
-- on the device path, and keep NULL
ALTER TABLE @extschema@.ranread_batches
    ADD COLUMN path text CHECK (path IN ('device', 'server')),
    ADD COLUMN effective_io_concurrency integer,
    ADD COLUMN shared_hits bigint,
    ADD COLUMN page_cache_hits bigint,
    ADD COLUMN cache_pct float8,
    ADD COLUMN server_settings jsonb;
ALTER TABLE @extschema@.ranread_groups
    ADD COLUMN path text CHECK (path IN ('device', 'server')),
    ADD COLUMN effective_io_concurrency integer,
    ADD COLUMN shared_hits bigint,
    ADD COLUMN page_cache_hits bigint,
    ADD COLUMN cache_pct float8;

-- streams: which worker drove each process, how many workers each group
-- had, whether the I/O buffers were registered, and how late the latest
-- worker began (their comments are in 97_comments.sql)
ALTER TABLE @extschema@.ranread_batches
    ADD COLUMN buffers_registered boolean,
    ADD COLUMN start_late_ms float8;
ALTER TABLE @extschema@.ranread_results ADD COLUMN worker integer;
ALTER TABLE @extschema@.ranread_groups ADD COLUMN workers integer;

-- studies/sweeps: a study's row and a sweep's are recorded by the call
-- that ran it alone, as the extension's owner (ranread_study_record,
-- ranread_sweep_record: SECURITY DEFINER).  A role granted
-- 'run' in 1.1 held INSERT on ranread_studies and ranread_sweeps: a row of
-- its making took the id the next study or sweep would take (that call
-- failed at its end and lost its row), named anyone as started_by, or had
-- a bound that is not a number (every report failed).  Every privilege to
-- change those tables goes from every role but the owner, and a row no
-- study or sweep can have made (a bound that is not a finite number above
-- 0, a time that is not finite, counts or a workload out of range, a
-- sweep's verdict that is not one of its own batches with its figures) is
-- deleted, saying so; its batches stay, and read as those of a study or
-- sweep that has no row.  Other rows stay: ranread cannot tell a forged one
-- from a real one.
DO $$
DECLARE
    g record;
    x record;
BEGIN
    -- every grant of them, PUBLIC's too: the owner's (a superuser's grant
    -- is the owner's), and with CASCADE what a grantee passed on goes with it
    FOR g IN
        SELECT DISTINCT CASE WHEN a.grantee OPERATOR(pg_catalog.=) 0 THEN 'PUBLIC'
                             ELSE a.grantee::pg_catalog.regrole::text END AS grantee, c.relname
          FROM pg_catalog.pg_class c CROSS JOIN LATERAL pg_catalog.aclexplode(c.relacl) a
         WHERE c.oid OPERATOR(pg_catalog.=) ANY (ARRAY['@extschema@.ranread_studies'::pg_catalog.regclass,
                                                       '@extschema@.ranread_sweeps'::pg_catalog.regclass])
           AND a.grantee OPERATOR(pg_catalog.<>) c.relowner AND a.grantor OPERATOR(pg_catalog.=) c.relowner
           AND a.privilege_type OPERATOR(pg_catalog.<>) 'SELECT'
         ORDER BY c.relname, 1
    LOOP
        EXECUTE pg_catalog.format('REVOKE INSERT, UPDATE, DELETE, TRUNCATE, REFERENCES, TRIGGER ON @extschema@.%I FROM %s CASCADE',
                                  g.relname, g.grantee);
        RAISE WARNING 'ranread 1.2: % may no longer change % (only the call that ran a % records its row; ranread_grant(role, ''run'') gives what running one needs)',
            g.grantee, g.relname, CASE g.relname WHEN 'ranread_studies' THEN 'study' ELSE 'sweep' END;
    END LOOP;
    FOR x IN
        DELETE FROM @extschema@.ranread_studies s
         WHERE NOT (s.max_avg_ms IS NULL OR (s.max_avg_ms > 0 AND s.max_avg_ms < 'Infinity'::float8))
            OR NOT (pg_catalog.isfinite(s.started_at) AND pg_catalog.isfinite(s.finished_at)
                    AND s.planned >= 0 AND s.completed >= 0 AND s.skipped >= 0
                    AND s.completed + s.skipped <= s.planned)
        RETURNING s.study, s.started_by, s.started_at, s.max_avg_ms, s.planned, s.completed, s.skipped
    LOOP
        RAISE WARNING 'ranread 1.2: deleted the row of study % in ranread_studies (started_by "%", started_at %, max_avg_ms %, % planned, % completed, % skipped), as no study records that',
            x.study, x.started_by, x.started_at, coalesce(x.max_avg_ms::text, 'NULL'), x.planned, x.completed, x.skipped
            USING HINT = 'Its batches stay: ranread_study_points shows the study from them.';
    END LOOP;
    FOR x IN
        DELETE FROM @extschema@.ranread_sweeps s
         WHERE NOT (s.max_avg_ms > 0 AND s.max_avg_ms < 'Infinity'::float8)
            OR NOT ((s.max_iops IS NULL OR (s.max_iops >= 0 AND s.max_iops < 'Infinity'::float8))
                    AND (s.actual_latency_ms IS NULL OR (s.actual_latency_ms >= 0 AND s.actual_latency_ms < 'Infinity'::float8)))
            OR NOT (pg_catalog.isfinite(s.started_at) AND pg_catalog.isfinite(s.finished_at)
                    AND s.block_size > 0 AND s.write_pct BETWEEN 0 AND 100 AND s.queue_depth >= 1
                    AND s.start >= 1 AND s.max_processes >= s.start AND s.steps >= 0)
            OR (s.max_iops_batch IS NOT NULL
                AND NOT EXISTS (SELECT FROM @extschema@.ranread_batches b
                                 WHERE b.batch OPERATOR(pg_catalog.=) s.max_iops_batch
                                   AND b.sweep OPERATOR(pg_catalog.=) s.sweep
                                   AND b.iops OPERATOR(pg_catalog.=) s.max_iops))
        RETURNING s.sweep, s.started_by, s.started_at, s.max_avg_ms, s.block_size, s.max_iops
    LOOP
        RAISE WARNING 'ranread 1.2: deleted the row of sweep % in ranread_sweeps (started_by "%", started_at %, max_avg_ms %, block_size %, max_iops %), as no sweep records that',
            x.sweep, x.started_by, x.started_at, x.max_avg_ms, x.block_size, coalesce(x.max_iops::text, 'NULL')
            USING HINT = 'Its batches stay: ranread_chart shows the sweep from them.';
    END LOOP;
END
$$;
ALTER TABLE @extschema@.ranread_studies
    ADD CONSTRAINT ranread_studies_max_avg_ms_finite
        CHECK (max_avg_ms IS NULL OR (max_avg_ms > 0 AND max_avg_ms < 'Infinity'::float8)),
    ADD CONSTRAINT ranread_studies_counts
        CHECK (pg_catalog.isfinite(started_at) AND pg_catalog.isfinite(finished_at)
               AND planned >= 0 AND completed >= 0 AND skipped >= 0 AND completed + skipped <= planned);
ALTER TABLE @extschema@.ranread_sweeps
    ADD CONSTRAINT ranread_sweeps_max_avg_ms_finite
        CHECK (max_avg_ms > 0 AND max_avg_ms < 'Infinity'::float8),
    ADD CONSTRAINT ranread_sweeps_verdict_finite
        CHECK ((max_iops IS NULL OR (max_iops >= 0 AND max_iops < 'Infinity'::float8))
               AND (actual_latency_ms IS NULL OR (actual_latency_ms >= 0 AND actual_latency_ms < 'Infinity'::float8))),
    ADD CONSTRAINT ranread_sweeps_workload
        CHECK (pg_catalog.isfinite(started_at) AND pg_catalog.isfinite(finished_at)
               AND block_size > 0 AND write_pct BETWEEN 0 AND 100 AND queue_depth >= 1
               AND start >= 1 AND max_processes >= start AND steps >= 0);

-- fleets: the workers' I/O priority, verify and the path, as every function that
-- takes a workload now takes them (src/workload/options.tsv), travel to the nodes
-- with the fleet's other options
ALTER TYPE @extschema@.ranread_fleet_options
    ADD ATTRIBUTE io_priority text,
    ADD ATTRIBUTE verify boolean,
    ADD ATTRIBUTE path text,
    ADD ATTRIBUTE effective_io_concurrency integer;

-- verify counts bad blocks, each once (1.2): 97_comments.sql gives a
-- column comment only where there is none, so the old words go first
COMMENT ON COLUMN @extschema@.ranread_batches.verify_errors IS NULL;
COMMENT ON COLUMN @extschema@.ranread_batches.verify_corrupt IS NULL;
COMMENT ON COLUMN @extschema@.ranread_batches.verify_wrong_block IS NULL;
COMMENT ON COLUMN @extschema@.ranread_batches.verify_lost IS NULL;
COMMENT ON COLUMN @extschema@.ranread_groups.verify_errors IS NULL;
COMMENT ON COLUMN @extschema@.ranread_groups.verify_corrupt IS NULL;
COMMENT ON COLUMN @extschema@.ranread_groups.verify_wrong_block IS NULL;
COMMENT ON COLUMN @extschema@.ranread_groups.verify_lost IS NULL;

-- watch: verdicts that noise cannot flip (docs/design.md, "Comparing
-- batches and keeping watch").  A tablespace takes a status once
-- hold_probes probes in a row show it; a baseline leaves out the probes
-- that differ from the rest; every verdict names its test, its effect with
-- an interval and the probes it used.  1.1's verdicts keep their status as
-- what the probe alone showed (probe_status).
ALTER TABLE @extschema@.ranread_health_thresholds
    ADD COLUMN hold_probes integer NOT NULL DEFAULT 3
        CONSTRAINT ranread_health_thresholds_hold_probes CHECK (hold_probes BETWEEN 2 AND 100);
ALTER TABLE @extschema@.ranread_baselines
    ADD COLUMN left_out bigint[] NOT NULL DEFAULT '{}',
    ADD COLUMN left_out_reason text;
ALTER TABLE @extschema@.ranread_probe_verdicts
    ADD COLUMN probe_status text CHECK (probe_status IN ('ok', 'slower', 'degraded', 'critical', 'unknown')),
    ADD COLUMN test text,
    ADD COLUMN effect text,
    ADD COLUMN factor_low float8,
    ADD COLUMN factor_high float8,
    ADD COLUMN probes bigint[];
UPDATE @extschema@.ranread_probe_verdicts SET probe_status = status;
-- ranread_hist_compare and ranread_compare give the factor's interval
-- (factor_low, factor_high): a new result type, which CREATE OR REPLACE
-- refuses, so dropped first (pg_monitor's grant is made again by the code)
DROP FUNCTION @extschema@.ranread_compare(bigint, bigint, float8, float8);
DROP FUNCTION @extschema@.ranread_hist_compare(bytea, bytea, float8, float8);

-- advice only from evidence: ranread_advise_wal_sync_method takes a figure
-- per round and says whether more rounds could change its advice
-- (settled): a new result type, so dropped first
DROP FUNCTION @extschema@.ranread_advise_wal_sync_method(text[], float8[], text);

-- one definition of steady state, the all-flash guidance and the stop
-- reasons, stated where they are shown: 97_comments.sql gives a column's
-- general comment only where it has none, so the old words are taken off
-- the tables and the views this update keeps, to be said again
-- (a view pre-update.sql dropped, as changed, is made again without them)
DO $$
DECLARE
    c record;
BEGIN
    FOR c IN SELECT * FROM (VALUES ('ranread_batches', 'steady'), ('ranread_batches', 'steady_excursion'),
                                   ('ranread_batches', 'steady_slope'), ('ranread_summary_full', 'steady'),
                                   ('ranread_summary_full', 'steady_excursion'), ('ranread_summary_full', 'steady_slope'),
                                   ('ranread_sweeps', 'stop_reason'), ('ranread_sweeps', 'meets_flash_guidance'),
                                   ('ranread_fleet_sweeps', 'stop_reason'), ('ranread_fleet_sweeps', 'meets_flash_guidance'),
                                   ('ranread_studies', 'stop_reason'), ('ranread_latency_target_verdict', 'stop_reason'),
                                   ('ranread_study_overview', 'stop_reason')) v(rel, col)
    LOOP
        IF pg_catalog.to_regclass(pg_catalog.format('@extschema@.%I', c.rel)) IS NOT NULL THEN
            EXECUTE pg_catalog.format('COMMENT ON COLUMN @extschema@.%I.%I IS NULL', c.rel, c.col);
        END IF;
    END LOOP;
END
$$;

-- the fleet as a loop (sql/code/51_fleet_loop.sql): each node's record
-- holds what the fleet collected of it, and the coordinator's own view of
-- the fleet is one record that every step takes and returns (internal
-- types, held by no table)
ALTER TYPE ranread_internal.ranread_fleet_node_state
    ADD ATTRIBUTE batch jsonb,
    ADD ATTRIBUTE unread text,
    ADD ATTRIBUTE reader text;
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

-- ranread_help() returns lines of text that fit a screen (first steps,
-- then the entry points by task): a new result type, which CREATE OR
-- REPLACE refuses, so dropped first; its table is
-- ranread_internal.ranread_help_table() (the grants of 'report' are made
-- again by the code and post-update.sql)
DROP FUNCTION @extschema@.ranread_help();

-- ranread_help(name) returns lines of text that fit a screen too (what the
-- function does, its call, its result, a line per argument, the example):
-- a new result type, so dropped first; its table is
-- ranread_internal.ranread_help_table(name)
DROP FUNCTION @extschema@.ranread_help(text);
