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

-- last, as in a fresh install: every function's comment and privileges
-- @include sql/install/97_comments.sql
-- @include sql/install/99_privileges.sql
