-- ranread 1.0 -> 1.1.  Everything 1.1 changes in the SQL surface;
-- CHANGELOG.md says why.  History (batches, processes, intervals, sweeps)
-- and targets are kept as they are.
--
-- This is the source of the upgrade script: `make` builds
-- ranread--1.0--1.1.sql from it, putting the whole text of each file named
-- by an "-- @include" line in its place.  Those files (sql/install/) hold
-- only objects that CREATE OR REPLACE can make again or that are new in
-- 1.1, so one definition serves the fresh install and the upgrade.  What
-- cannot be replaced (tables, types) is changed here by hand, and new
-- columns go at the end of their table in sql/install/00_schema.sql too.
-- When 1.1 is released, the built file is frozen into sql/versions/.
--
-- test/shell/15_upgrade.sh checks that a database updated with this script
-- has the same objects, with the same definitions, as a fresh 1.1.

\echo Use "ALTER EXTENSION ranread UPDATE TO '1.1'" to load this file. \quit

-- buffer_pages was added to 1.0 after its first builds: installations made
-- from those lack the column, or have it without its check.  Bring both to
-- the released 1.0 shape first.
ALTER TABLE @extschema@.ranread_batches ADD COLUMN IF NOT EXISTS buffer_pages text;
DO $$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_catalog.pg_constraint
                    WHERE conrelid OPERATOR(pg_catalog.=) '@extschema@.ranread_batches'::pg_catalog.regclass
                      AND conname OPERATOR(pg_catalog.=) 'ranread_batches_buffer_pages_check') THEN
        ALTER TABLE @extschema@.ranread_batches ADD CONSTRAINT ranread_batches_buffer_pages_check
            CHECK (buffer_pages IN ('huge', 'small', 'mixed'));
    END IF;
END
$$;

-- 1.1's views round their figures for a person (numeric and bigint
-- columns, not float8) and ranread_summary is the short row, the full one
-- is ranread_summary_full: CREATE OR REPLACE VIEW cannot change a column's
-- type or drop one, so 1.0's views are made again from scratch, keeping who
-- may read them (their grants are carried over below).  The tables keep
-- every figure whole.
DO $$
BEGIN
    PERFORM pg_catalog.set_config('ranread_upgrade.view_grants', coalesce((
        SELECT pg_catalog.string_agg(pg_catalog.format('%s %s %s', c.relname, a.privilege_type,
                   CASE WHEN a.grantee OPERATOR(pg_catalog.=) 0 THEN 'PUBLIC'
                        ELSE a.grantee::pg_catalog.regrole::pg_catalog.text END), ',')
          FROM pg_catalog.pg_class c, pg_catalog.aclexplode(c.relacl) a
         WHERE c.oid OPERATOR(pg_catalog.=) ANY (ARRAY['@extschema@.ranread_summary',
                   '@extschema@.ranread_sweep_verdict']::pg_catalog.regclass[]::pg_catalog.oid[])
           AND a.grantee OPERATOR(pg_catalog.<>) c.relowner), ''), true);
END
$$;
DROP VIEW @extschema@.ranread_summary;
DROP VIEW @extschema@.ranread_sweep_verdict;
-- What ranread_run and ranread_setup return, rounded the same way
ALTER TYPE @extschema@.ranread_setup_result
    ALTER ATTRIBUTE seconds TYPE numeric(12,3),
    ALTER ATTRIBUTE mbps TYPE numeric(14,1);
ALTER TYPE @extschema@.ranread_run_result
    ALTER ATTRIBUTE seconds TYPE numeric(12,3),
    ALTER ATTRIBUTE iops TYPE bigint,
    ALTER ATTRIBUTE mbps TYPE numeric(14,1),
    ALTER ATTRIBUTE avg_ms TYPE numeric(15,3),
    ALTER ATTRIBUTE p50_ms TYPE numeric(15,3),
    ALTER ATTRIBUTE p95_ms TYPE numeric(15,3),
    ALTER ATTRIBUTE p99_ms TYPE numeric(15,3),
    ALTER ATTRIBUTE p999_ms TYPE numeric(15,3),
    ALTER ATTRIBUTE max_ms TYPE numeric(15,3);

-- Safe inside a production server: what a batch ran on, whether it timed
-- every I/O, the Little's law check, notes for the reader.
ALTER TABLE @extschema@.ranread_batches
    ADD COLUMN filesystem text,
    ADD COLUMN timing boolean,
    ADD COLUMN busy float8,
    ADD COLUMN notes text;
ALTER TABLE @extschema@.ranread_results
    ADD COLUMN busy float8;

-- Mixed workloads: groups of processes in one batch.  A mix's per-group
-- options are NULL in its batch's row; results and seconds say their group.
ALTER TABLE @extschema@.ranread_batches
    ALTER COLUMN block_size DROP NOT NULL,
    ALTER COLUMN queue_depth DROP NOT NULL,
    ALTER COLUMN write_pct DROP NOT NULL,
    ALTER COLUMN pattern DROP NOT NULL,
    ALTER COLUMN region_start DROP NOT NULL,
    ALTER COLUMN region_end DROP NOT NULL,
    ADD COLUMN groups integer,
    ADD COLUMN mix jsonb,
    ADD COLUMN distribution text,
    ADD COLUMN first_io_at timestamptz,
    ADD COLUMN steady_state text,
    ADD COLUMN ended_steady boolean,
    ADD COLUMN steady boolean,
    ADD COLUMN steady_excursion float8,
    ADD COLUMN steady_slope float8,
    ADD COLUMN sync text,
    ADD COLUMN start_at timestamptz,
    ADD COLUMN study bigint,
    ADD COLUMN point jsonb,
    ADD COLUMN fleet bigint,
    ADD COLUMN commit_test bigint;
ALTER TABLE @extschema@.ranread_results
    ADD COLUMN grp integer NOT NULL DEFAULT 1;
ALTER TABLE @extschema@.ranread_intervals
    ADD COLUMN grp integer NOT NULL DEFAULT 1,
    DROP CONSTRAINT ranread_intervals_pkey,
    ADD PRIMARY KEY (batch, grp, second);

-- What fio shows beside latency: the workers' CPU, the device's
-- utilisation, the latencies' standard deviation.
ALTER TABLE @extschema@.ranread_batches
    ADD COLUMN cpu_user_pct float8,
    ADD COLUMN cpu_sys_pct float8,
    ADD COLUMN cpu_us_per_io float8,
    ADD COLUMN device text,
    ADD COLUMN device_util_pct float8,
    ADD COLUMN lat_stddev_ms float8;
ALTER TABLE @extschema@.ranread_results
    ADD COLUMN lat_stddev_ms float8;

-- Percentiles over time: each second's merged latency histogram
ALTER TABLE @extschema@.ranread_intervals
    ADD COLUMN histogram bytea;
-- Verified writes and reads (the verify option): what a batch's verify
-- found (sql/install/06_verify.sql has the table of its bad blocks).
ALTER TABLE @extschema@.ranread_batches
    ADD COLUMN verify boolean,
    ADD COLUMN verify_checked bigint,
    ADD COLUMN verify_skipped bigint,
    ADD COLUMN verify_errors bigint,
    ADD COLUMN verify_corrupt bigint,
    ADD COLUMN verify_wrong_block bigint,
    ADD COLUMN verify_lost bigint;

-- Functions whose arguments change in 1.1 are made again: keep who may
-- execute them (their grants are carried over below, by function name).
DO $$
BEGIN
    PERFORM pg_catalog.set_config('ranread_upgrade.grants', coalesce((
        SELECT pg_catalog.string_agg(pg_catalog.format('%s %s', p.proname, a.grantee::pg_catalog.regrole), ',')
          FROM pg_catalog.pg_proc p, pg_catalog.aclexplode(p.proacl) a
         WHERE p.oid OPERATOR(pg_catalog.=) ANY (ARRAY[
                   '@extschema@.ranread_run(integer, bigint, name, interval, integer, integer, integer, text, float8, float8, interval, integer, bigint, integer)',
                   '@extschema@.ranread_run_step(integer, bigint, name, interval, integer, integer, integer, text, float8, float8, interval, integer, bigint, integer, bigint)',
                   '@extschema@.ranread_sweep(integer, integer, bigint, interval, float8, name, integer, integer, integer, text, float8, float8, interval, integer, bigint, integer)',
                   '@extschema@.ranread_blocks(integer, integer, name, integer, text, float8, float8, bigint)']::pg_catalog.regprocedure[]::pg_catalog.oid[])
           AND a.privilege_type OPERATOR(pg_catalog.=) 'EXECUTE'
           AND a.grantee OPERATOR(pg_catalog.<>) 0
           AND a.grantee OPERATOR(pg_catalog.<>) p.proowner), ''), true);
END
$$;
DROP FUNCTION @extschema@.ranread_run(integer, bigint, name, interval, integer, integer, integer, text, float8, float8, interval, integer, bigint, integer);
DROP FUNCTION @extschema@.ranread_run_step(integer, bigint, name, interval, integer, integer, integer, text, float8, float8, interval, integer, bigint, integer, bigint);
DROP FUNCTION @extschema@.ranread_sweep(integer, integer, bigint, interval, float8, name, integer, integer, integer, text, float8, float8, interval, integer, bigint, integer);
DROP FUNCTION @extschema@.ranread_blocks(integer, integer, name, integer, text, float8, float8, bigint);

-- The internal schema (sql/install/00_schema.sql makes it in a fresh
-- install), and the 1.0 functions that become internal: moved there before
-- the files below make them again, so that they keep their identity (the
-- aggregate ranread_hist_merge uses its support functions by OID).
CREATE SCHEMA ranread_internal;
COMMENT ON SCHEMA ranread_internal IS 'ranread''s internal helpers: the steps behind its functions, not called by hand';
ALTER FUNCTION @extschema@.ranread_hist_merge_sfunc(internal, bytea) SET SCHEMA ranread_internal;
ALTER FUNCTION @extschema@.ranread_hist_merge_final(internal) SET SCHEMA ranread_internal;
ALTER FUNCTION @extschema@.ranread_sweep_next(@extschema@.ranread_sweep_step[], integer, integer, float8) SET SCHEMA ranread_internal;
ALTER FUNCTION @extschema@.ranread_sweep_judge(@extschema@.ranread_sweep_step[], float8) SET SCHEMA ranread_internal;
ALTER FUNCTION @extschema@.ranread_target_state(oid, bigint) SET SCHEMA ranread_internal;

-- @include sql/install/01_access_method.sql

-- Targets made by 1.0 move into the schema of targets, away from the
-- users' schemas (and GRANT ... ON ALL TABLES IN SCHEMA there), and lose
-- any privilege granted on them, which pg_dump would dump without them.
DO $$
DECLARE
    r record;
    g record;
BEGIN
    FOR r IN SELECT c.oid::pg_catalog.regclass AS rel
               FROM @extschema@.ranread_target_catalog t
               JOIN pg_catalog.pg_class c ON c.oid OPERATOR(pg_catalog.=) t.relid
    LOOP
        FOR g IN SELECT DISTINCT a.grantee
                   FROM pg_catalog.pg_class c, pg_catalog.aclexplode(c.relacl) a
                  WHERE c.oid OPERATOR(pg_catalog.=) r.rel
                    AND a.grantee OPERATOR(pg_catalog.<>) c.relowner
        LOOP
            EXECUTE pg_catalog.format('REVOKE ALL ON TABLE %s FROM %s', r.rel,
                CASE WHEN g.grantee OPERATOR(pg_catalog.=) 0 THEN 'PUBLIC'
                     ELSE g.grantee::pg_catalog.regrole::pg_catalog.text END);
        END LOOP;
        EXECUTE pg_catalog.format('ALTER TABLE %s SET SCHEMA ranread_target', r.rel);
    END LOOP;
END
$$;
-- @include sql/install/02_groups.sql
-- @include sql/install/03_commit.sql
-- @include sql/install/04_durability.sql
-- @include sql/install/05_views.sql
-- @include sql/install/06_atomic.sql
-- Verified writes and reads: the bad blocks found, ranread_verify
-- @include sql/install/06_verify.sql
-- @include sql/install/10_core.sql
-- @include sql/install/11_seconds.sql
-- @include sql/install/20_report.sql

-- The latency-target search and the settings advisor, new in 1.1
-- @include sql/install/21_latency_target.sql
-- @include sql/install/22_advise.sql

-- Charts: one renderer draws every chart; ranread_svg(spec jsonb) gives it
-- to SQL.  ranread_chart and ranread_timeline keep their definitions; their
-- C now runs a query of the library that builds their specs, drawn through
-- the renderer.
-- @include sql/install/30_charts.sql
-- @include sql/install/31_heatmap.sql

-- Studies and profiles: grids of batches, their pivots, comparison charts,
-- the HTML report.  New in 1.1.
-- @include sql/install/40_study.sql
-- @include sql/install/41_study_views.sql
-- @include sql/install/42_study_charts.sql
-- @include sql/install/43_profile.sql
-- @include sql/install/44_report.sql

-- The fleet: one batch on many servers at once (its own libpq connections)
-- @include sql/install/50_fleet.sql
-- @include sql/install/51_fleet_run.sql
-- @include sql/install/52_fleet_report.sql
-- @include sql/install/60_watch.sql
-- @include sql/install/61_probe.sql
-- @include sql/install/62_baseline.sql
-- @include sql/install/63_probe_chart.sql

-- Roles, the help and the comments of every user-facing object
-- @include sql/install/95_roles.sql
-- @include sql/install/96_help.sql
-- @include sql/install/97_comments.sql
-- @include sql/install/99_privileges.sql

-- The grants of the functions made again
DO $$
DECLARE
    g text;
BEGIN
    FOREACH g IN ARRAY pg_catalog.string_to_array(pg_catalog.current_setting('ranread_upgrade.grants', true), ',')
    LOOP
        EXECUTE pg_catalog.format('GRANT EXECUTE ON FUNCTION %s TO %s',
            CASE pg_catalog.split_part(g, ' ', 1)
                WHEN 'ranread_run' THEN '@extschema@.ranread_run(integer, bigint, name, interval, integer, integer, integer, text, float8, float8, interval, integer, bigint, integer, text, text, text, timestamptz, text, boolean)'
                WHEN 'ranread_run_step' THEN '@extschema@.ranread_run_step(jsonb)'
                WHEN 'ranread_sweep' THEN '@extschema@.ranread_sweep(integer, integer, bigint, interval, float8, name, integer, integer, integer, text, float8, float8, interval, integer, bigint, integer, text, text)'
                WHEN 'ranread_blocks' THEN '@extschema@.ranread_blocks(integer, integer, name, integer, text, float8, float8, bigint, text)'
            END,
            pg_catalog.substr(g, pg_catalog.strpos(g, ' ') + 1));
    END LOOP;
END
$$;

-- The grants of the views made again (PUBLIC's and pg_monitor's are
-- 99_privileges.sql's); the short ranread_summary and the full row alike
DO $$
DECLARE
    g text;
    v text[];
BEGIN
    FOREACH g IN ARRAY pg_catalog.string_to_array(pg_catalog.current_setting('ranread_upgrade.view_grants', true), ',')
    LOOP
        v := pg_catalog.string_to_array(g, ' ');
        CONTINUE WHEN v[3] IN ('PUBLIC', 'pg_monitor');
        EXECUTE pg_catalog.format('GRANT %s ON @extschema@.%I TO %s', v[2], v[1], v[3]);
        IF v[1] OPERATOR(pg_catalog.=) 'ranread_summary' THEN
            EXECUTE pg_catalog.format('GRANT %s ON @extschema@.ranread_summary_full TO %s', v[2], v[3]);
        END IF;
    END LOOP;
END
$$;
