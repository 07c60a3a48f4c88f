-- Charts: every chart of ranread is a jsonb spec (docs/charts-and-reports.md,
-- "Charts from SQL") drawn by the one renderer (C, src/report/svg.c), so that
-- they all have the same look and rules.  The spec's keys are in
-- docs/charts-and-reports.md and atop src/report/svg.c.

-- The renderer for plpgsql functions: the SVG of a spec.  Pure: the SVG
-- depends on the spec alone.
CREATE OR REPLACE FUNCTION @extschema@.ranread_svg(spec jsonb)
RETURNS text
AS 'MODULE_PATHNAME', 'ranread_svg'
LANGUAGE C CALLED ON NULL INPUT IMMUTABLE PARALLEL SAFE;

-- SVG: IOPS, average and p99 latency against processes for a sweep (the
-- latest when NULL; every completed batch when there has been no sweep),
-- the bound, the sweep's verdict and a table of its steps.  Its spec is a
-- query of the library's (src/report/chart_sweep.sql) that reads only what
-- the 1.0 tables hold: a database still at 1.0 binds ranread_chart to the
-- same C function and gets the same chart.
CREATE OR REPLACE FUNCTION @extschema@.ranread_chart(sweep bigint DEFAULT NULL)
RETURNS text
AS 'MODULE_PATHNAME', 'ranread_chart'
LANGUAGE C CALLED ON NULL INPUT STABLE
SET search_path = pg_catalog, pg_temp;

-- ranread_chart without its table of the steps: the HTML report's chart
-- of a sweep, whose steps the report lists in a table of its own.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_chart_no_table(sweep bigint)
RETURNS text
AS 'MODULE_PATHNAME', 'ranread_chart_no_table'
LANGUAGE C CALLED ON NULL INPUT STABLE
SET search_path = pg_catalog, pg_temp;

-- SVG: IOPS, average and maximum latency per second of a batch (the latest
-- batch with per-second intervals when NULL); its spec is
-- src/report/chart_timeline.sql, as for ranread_chart.
CREATE OR REPLACE FUNCTION @extschema@.ranread_timeline(batch bigint DEFAULT NULL)
RETURNS text
AS 'MODULE_PATHNAME', 'ranread_timeline'
LANGUAGE C CALLED ON NULL INPUT STABLE
SET search_path = pg_catalog, pg_temp;

-- Readers of the history (pg_monitor) draw charts of it: the chart
-- functions only read what pg_monitor can SELECT.
GRANT EXECUTE ON FUNCTION @extschema@.ranread_svg(jsonb),
                          @extschema@.ranread_chart(bigint),
                          ranread_internal.ranread_chart_no_table(bigint),
                          @extschema@.ranread_timeline(bigint) TO pg_monitor;
