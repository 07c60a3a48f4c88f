-- ranread 1.1 -> 1.2: the state changes (tables, types, sequences, the
-- rows and privileges 1.2 no longer allows); CHANGELOG.md says why.  The
-- upgrade script is built from this file (sql/README.md, "Upgrades"):
-- sql/updates/pre-update.sql, this, the whole of sql/code/, then
-- sql/updates/post-update.sql.  History is kept as it is.
--
-- test/shell/15_upgrade.sh checks that a database updated from 1.0 through
-- 1.1 has the same objects, with the same definitions, as a fresh 1.2.

-- ranread_internal.ranread_fleet_sweep returns SETOF record, its rows
-- ranread_fleet_sweep's as the other forwarded implementations' are: a new
-- result type, which CREATE OR REPLACE refuses, so dropped first (fleets
-- are superusers' own: no role holds EXECUTE on it)
DROP FUNCTION ranread_internal.ranread_fleet_sweep(text[], integer, integer, bigint, interval, float8, text, jsonb);

-- watch: probes are recorded by the probe alone, as the extension's owner
-- (sql/code/61_probe.sql), with the time its batch ran.  A role granted 'run' in 1.1 held INSERT
-- on ranread_probes, and a row it made (a forged batch, or a probed_at of
-- 'infinity' that froze its tablespace's health) was judged as a probe:
-- every privilege to change ranread_probes goes from every role but the
-- owner, and a row at a time that is not finite is deleted, with its
-- verdict, saying so (such a row cannot be a probe's).  Rows at finite
-- times stay: ranread cannot tell a forged one from a probe.
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
        DELETE FROM @extschema@.ranread_probes x WHERE NOT pg_catalog.isfinite(x.probed_at)
        RETURNING x.batch, x.tablespace, x.probed_at
    LOOP
        DELETE FROM @extschema@.ranread_probe_verdicts v WHERE v.batch OPERATOR(pg_catalog.=) p.batch;
        RAISE WARNING 'ranread 1.2: deleted the row of batch % in ranread_probes (tablespace "%", probed_at %), as no probe runs at that time', p.batch, p.tablespace, p.probed_at
            USING HINT = pg_catalog.format('If it joined the baseline of "%s", SELECT ranread_baseline_reset(%L); makes it again.', p.tablespace, p.tablespace);
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

-- studies/sweeps: a study's row and a sweep's are recorded by the call
-- that ran it alone, as the extension's owner (ranread_study_record,
-- ranread_sweep_record: SECURITY DEFINER).  A role granted
-- 'run' in 1.1 held INSERT on ranread_studies and ranread_sweeps: a row of
-- its making took the id the next study or sweep would take (that call
-- failed at its end and lost its row), named anyone as started_by, or had
-- a bound that is not a number (every report failed).  Every privilege to
-- change those tables goes from every role but the owner, and a row no
-- study or sweep can have made (a bound that is not a finite number above
-- 0, a time that is not finite, counts or a workload out of range) is
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
-- takes a workload now takes them (src/options.tsv), travel to the nodes
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
