-- ranread 1.1 -> 1.2.  Everything 1.2 changes in the SQL surface;
-- CHANGELOG.md says why.  History is kept as it is.
--
-- This is the source of the upgrade script: `make` builds
-- ranread--1.1--1.2.sql from it, putting the whole text of each file named
-- by an "-- @include" line in its place.  Those files (sql/install/) hold
-- only objects that CREATE OR REPLACE can make again or that are new in
-- 1.2, so one definition serves the fresh install and the upgrade.  What
-- cannot be replaced (tables, types, grants of removed privileges) is
-- changed here by hand, and new columns go at the end of their table in
-- sql/install/00_schema.sql too.  When 1.2 is released,
-- scripts/freeze-release freezes the built file into sql/versions/.
--
-- test/shell/15_upgrade.sh checks that a database updated from 1.0 through
-- 1.1 with this script has the same objects, with the same definitions, as
-- a fresh 1.2.

\echo Use "ALTER EXTENSION ranread UPDATE TO '1.2'" to load this file. \quit

-- fleet: what a node answers for its batch is checked before the fleet
-- keeps it (ranread_fleet_answer); the fleet's types moved to
-- 50_fleet_types.sql, unchanged, so that 51_fleet_run.sql can be included
-- @include sql/install/51_fleet_run.sql

-- house: duplicated logic factored into helpers (one definition each)
-- ranread_study_bound: the latency bound that ranread_study_summary and
-- ranread_study_chart each checked and looked up
-- @include sql/install/41_study_views.sql
-- @include sql/install/42_study_charts.sql
-- ranread_internal.ranread_fleet_sweep returns SETOF record, its rows
-- ranread_fleet_sweep's as the other forwarded implementations' are, instead
-- of naming the columns a second time: a new return type, so dropped first
-- (fleets are superusers' own: no role holds EXECUTE on it)
DROP FUNCTION ranread_internal.ranread_fleet_sweep(text[], integer, integer, bigint, interval, float8, text, jsonb);
-- @include sql/install/52_fleet_report.sql

-- watch: probes are recorded by the probe alone, as the extension's owner
-- (61_probe.sql), with the time its batch ran; a 'probe' kind of use for
-- monitoring roles (95_roles.sql).  A role granted 'run' in 1.1 held INSERT
-- on ranread_probes, and a row it made (a forged batch, or a probed_at of
-- 'infinity' that froze its tablespace's health) was judged as a probe:
-- every privilege to change ranread_probes goes from every role but the
-- owner, and a row at a time that is not finite is deleted, with its
-- verdict, saying so (such a row cannot be a probe's).  Rows at finite
-- times stay: ranread cannot tell a forged one from a probe.
-- @include sql/install/61_probe.sql
-- @include sql/install/95_roles.sql
-- @include sql/install/62_watch_rules.sql
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
-- the new internal functions: from PUBLIC, as every function (99_privileges.sql),
-- and to every role that may already call what calls them (a role granted
-- 'run' or 'report' in 1.1), as ranread_grant would give them now
REVOKE ALL ON FUNCTION ranread_internal.ranread_probe_priority(text, text),
                       ranread_internal.ranread_probe_tablespace(text, name),
                       ranread_internal.ranread_compare_pairs(text, text, text[], bigint[], float8, float8) FROM PUBLIC;
DO $$
DECLARE
    g record;
BEGIN
    FOR g IN
        SELECT DISTINCT pg_catalog.quote_ident(r.rolname) AS grantee, n.fn
          FROM (VALUES ('ranread_internal.ranread_probe_check(text, integer, interval)'::pg_catalog.regprocedure,
                        'ranread_internal.ranread_probe_priority(text, text)'),
                       ('ranread_internal.ranread_probe_check(text, integer, interval)'::pg_catalog.regprocedure,
                        'ranread_internal.ranread_probe_tablespace(text, name)'),
                       ('@extschema@.ranread_compare_sweeps(bigint, bigint, float8, float8)'::pg_catalog.regprocedure,
                        'ranread_internal.ranread_compare_pairs(text, text, text[], bigint[], float8, float8)')) n(has, fn)
          JOIN pg_catalog.pg_proc p ON p.oid OPERATOR(pg_catalog.=) n.has
         CROSS JOIN LATERAL pg_catalog.aclexplode(p.proacl) a
          JOIN pg_catalog.pg_roles r ON r.oid OPERATOR(pg_catalog.=) a.grantee
         WHERE a.grantee OPERATOR(pg_catalog.<>) p.proowner AND a.privilege_type OPERATOR(pg_catalog.=) 'EXECUTE'
    LOOP
        EXECUTE pg_catalog.format('GRANT EXECUTE ON FUNCTION %s TO %s', g.fn, g.grantee);
    END LOOP;
END
$$;
-- watch: the help that names the kinds of use ('probe' is new; its comment
-- is in 97_comments.sql, below)
-- @include sql/install/96_help.sql

-- verify/io_priority: the workers' I/O priority recorded with each batch
-- (its comment is in 97_comments.sql, below)
ALTER TABLE @extschema@.ranread_batches ADD COLUMN io_priority text;

-- streams: which worker drove each process, how many workers each group
-- had, whether the I/O buffers were registered, and how late the latest
-- worker began (their comments are in 97_comments.sql, below)
ALTER TABLE @extschema@.ranread_batches ADD COLUMN buffers_registered boolean;
ALTER TABLE @extschema@.ranread_batches ADD COLUMN start_late_ms float8;
ALTER TABLE @extschema@.ranread_results ADD COLUMN worker integer;
ALTER TABLE @extschema@.ranread_groups ADD COLUMN workers integer;

-- heatmap: a batch whose per-second histograms hold no I/O is a clean error
-- of ranread_latency_heatmap, and the report's heatmap section skips it
-- @include sql/install/31_heatmap.sql

-- studies/sweeps: a study's row and a sweep's are recorded by the call
-- that ran it alone, as the extension's owner (ranread_study_record,
-- ranread_sweep_record: SECURITY DEFINER; their tables, sequence and the
-- study's result type moved to 39_study_tables.sql, unchanged but for the
-- CHECKs below, so that 40_study.sql can be included).  A role granted
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
-- @include sql/install/20_report.sql
-- @include sql/install/40_study.sql
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

-- last, as in a fresh install: every function's comment and privileges
-- @include sql/install/97_comments.sql
-- @include sql/install/99_privileges.sql

-- roles: a role granted a kind of use in 1.1 ('report', 'run', 'export':
-- known by the function only that kind grants, held by the role itself) is
-- granted the kind again, as 1.2's ranread_grant gives it, so that what 1.2
-- adds to a kind (new internal steps, 'probe' within 'run') reaches it; run
-- after 99_privileges.sql, whose pg_monitor grants 'report' copies.
DO $$
DECLARE
    g record;
BEGIN
    FOR g IN
        SELECT DISTINCT a.grantee::pg_catalog.regrole AS role, k.what
          FROM (VALUES ('ranread_report', 'report'), ('ranread_setup', 'run'),
                       ('ranread_export', 'export')) k(marker, what)
          JOIN pg_catalog.pg_proc p ON p.proname OPERATOR(pg_catalog.=) k.marker
                                   AND p.pronamespace OPERATOR(pg_catalog.=) '@extschema@'::pg_catalog.regnamespace
         CROSS JOIN LATERAL pg_catalog.aclexplode(p.proacl) a
          JOIN pg_catalog.pg_roles r ON r.oid OPERATOR(pg_catalog.=) a.grantee
         WHERE a.privilege_type OPERATOR(pg_catalog.=) 'EXECUTE'
           AND a.grantee OPERATOR(pg_catalog.<>) p.proowner
           AND r.rolname OPERATOR(pg_catalog.<>) 'pg_monitor'
         ORDER BY 1, 2
    LOOP
        PERFORM @extschema@.ranread_grant(g.role, g.what);
    END LOOP;
END
$$;
