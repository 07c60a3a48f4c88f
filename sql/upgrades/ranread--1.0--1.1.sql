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

-- An early 1.0's ranread_summary lacks buffer_pages before message, which
-- CREATE OR REPLACE VIEW cannot insert: make that view again from scratch.
DO $$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_catalog.pg_attribute
                    WHERE attrelid OPERATOR(pg_catalog.=) '@extschema@.ranread_summary'::pg_catalog.regclass
                      AND attname OPERATOR(pg_catalog.=) 'buffer_pages') THEN
        DROP VIEW @extschema@.ranread_summary;
    END IF;
END
$$;

-- Safe inside a production server: what a batch ran on, whether it timed
-- every I/O, the Little's law check, notes for the reader.
ALTER TABLE @extschema@.ranread_batches
    ADD COLUMN filesystem text,
    ADD COLUMN timing boolean,
    ADD COLUMN busy float8,
    ADD COLUMN notes text;
ALTER TABLE @extschema@.ranread_results
    ADD COLUMN busy float8;

-- @include sql/install/01_access_method.sql
-- @include sql/install/05_views.sql
-- @include sql/install/10_core.sql
-- @include sql/install/20_report.sql

-- Charts: one renderer draws every chart; ranread_svg(spec jsonb) gives it
-- to SQL.  ranread_chart and ranread_timeline keep their definitions; their
-- C now draws through the renderer.
-- @include sql/install/30_charts.sql
-- @include sql/install/99_privileges.sql
