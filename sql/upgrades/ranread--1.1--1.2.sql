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
    FOR g IN
        SELECT DISTINCT pg_catalog.quote_ident(r.rolname) AS grantee
          FROM pg_catalog.pg_class c CROSS JOIN LATERAL pg_catalog.aclexplode(c.relacl) a
               JOIN pg_catalog.pg_roles r ON r.oid OPERATOR(pg_catalog.=) a.grantee
         WHERE c.oid OPERATOR(pg_catalog.=) '@extschema@.ranread_probes'::pg_catalog.regclass
           AND a.grantee OPERATOR(pg_catalog.<>) c.relowner
           AND a.privilege_type OPERATOR(pg_catalog.<>) 'SELECT'
    LOOP
        EXECUTE pg_catalog.format('REVOKE INSERT, UPDATE, DELETE, TRUNCATE, REFERENCES, TRIGGER ON @extschema@.ranread_probes FROM %s', g.grantee);
        RAISE NOTICE 'ranread 1.2: % may no longer change ranread_probes (only the probe records a probe; ranread_grant(role, ''probe'') gives what a monitoring role needs)', g.grantee;
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

-- heatmap: a batch whose per-second histograms hold no I/O is a clean error
-- of ranread_latency_heatmap, and the report's heatmap section skips it
-- @include sql/install/31_heatmap.sql

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
