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

-- heatmap: a batch whose per-second histograms hold no I/O is a clean error
-- of ranread_latency_heatmap, and the report's heatmap section skips it
-- @include sql/install/31_heatmap.sql
