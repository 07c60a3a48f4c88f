-- Charts from SQL: the renderer that draws ranread_chart and
-- ranread_timeline (C, src/report/svg.c), given a chart spec as jsonb, so that
-- plpgsql functions draw line, bar and heat charts with the same look and
-- rules.  The spec's keys are in the README ("Charts from SQL") and atop
-- src/report/svg.c.  Pure: the SVG depends on the spec alone.
CREATE OR REPLACE FUNCTION @extschema@.ranread_svg(spec jsonb)
RETURNS text
AS 'MODULE_PATHNAME', 'ranread_svg'
LANGUAGE C CALLED ON NULL INPUT IMMUTABLE PARALLEL SAFE;

-- Readers of the history draw charts of it, as with ranread_chart.
GRANT EXECUTE ON FUNCTION @extschema@.ranread_svg(jsonb) TO pg_monitor;
