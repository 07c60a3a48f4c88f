-- Panels under a line chart (docs/charts-and-reports.md, "Charts from SQL"):
-- heat charts stacked under the plot on its x axis, each column's cells from
-- its edge to the next, as ranread_timeline draws the latency heatmap under
-- its plot.  A malformed panel is an error that names the key; panels at their
-- limits stay bounded and well-formed.
BEGIN;
SET LOCAL client_min_messages = warning;
SELECT plan(19);
\ir lib/util.psql

CREATE FUNCTION pg_temp.x(svg text, path text) RETURNS SETOF text LANGUAGE sql AS $$
    SELECT unnest(xpath(path, svg::xml, ARRAY[ARRAY['s', 'http://www.w3.org/2000/svg']]))::text
$$;
-- a line chart over x 0 to 10, with the panels given
CREATE FUNCTION pg_temp.spec(panels jsonb) RETURNS jsonb LANGUAGE sql AS $$
    SELECT jsonb_build_object('title', 'IOPS', 'x', jsonb_build_object('label', 'Seconds', 'min', 0, 'max', 10),
                              'series', jsonb_build_array(jsonb_build_object('label', 'IOPS', 'x', '[0.5, 9.5]'::jsonb,
                                                                             'y', '[1, 2]'::jsonb)),
                              'panels', panels)
$$;
CREATE FUNCTION pg_temp.heat(edges jsonb) RETURNS jsonb LANGUAGE sql AS $$
    SELECT jsonb_build_object('rows', '["2-4 ms", "1-2 ms"]'::jsonb, 'columns', '["0-4", "5-9"]'::jsonb,
                              'values', '[[1, null], [5, 100]]'::jsonb, 'metric', 'I/Os', 'format', 'count',
                              'edges', edges)
$$;

CREATE TEMP TABLE one AS
SELECT ranread_svg(pg_temp.spec(jsonb_build_array(jsonb_build_object(
           'kind', 'heat', 'title', 'Latency heatmap', 'y', jsonb_build_object('label', 'Latency band'),
           'heat', pg_temp.heat('[0, 5, 10]'))))) AS svg;
SELECT ok(pg_temp.svg_ok(svg), 'a line chart with a heat panel is a well-formed SVG document') FROM one;
SELECT is((SELECT array_agg(t ORDER BY t) FROM pg_temp.x(svg, '//s:rect/s:title/text()') t),
          ARRAY['0-4, 1-2 ms: 5 I/Os', '0-4, 2-4 ms: 1 I/Os', '5-9, 1-2 ms: 100 I/Os'],
          'one cell per value, none for null, each with its column, row and value as a tooltip')
  FROM one;
-- the x axis: 0 to 10, ticks labelled under the plot and again under the panel
CREATE TEMP TABLE ax AS
SELECT (SELECT array_agg(p::float8) FROM pg_temp.x(svg, '//s:text[@text-anchor = "middle" and . = "0"]/@x') p) AS x0,
       (SELECT array_agg(p::float8) FROM pg_temp.x(svg, '//s:text[@text-anchor = "middle" and . = "10"]/@x') p) AS x10,
       (SELECT array_agg(p::float8 ORDER BY p::float8) FROM pg_temp.x(svg, '//s:rect[s:title]/@x') p) AS cx,
       (SELECT array_agg(p::float8 ORDER BY p::float8) FROM pg_temp.x(svg, '//s:rect[s:title]/@width') p) AS cw
  FROM one;
SELECT is((SELECT cardinality(x0) FROM ax), 2, 'the x axis''s ticks are labelled under the plot and under the panel');
SELECT ok((SELECT x0[1] = x0[2] AND x10[1] = x10[2] FROM ax), 'at the same places');
SELECT ok((SELECT abs(cx[1] - x0[1]) < 0.15 AND abs(cx[3] - (x0[1] + x10[1]) / 2) < 0.15
                  AND abs(cw[1] - (x10[1] - x0[1]) / 2) < 0.15 FROM ax),
    'a column''s cells span its edges on the chart''s x axis');
SELECT is((SELECT count(*) FROM pg_temp.x(svg, '//s:text[. = ''Seconds'']')), 1::bigint,
    'the x axis is titled once, under the last panel') FROM one;

CREATE TEMP TABLE off AS
SELECT ranread_svg(pg_temp.spec(jsonb_build_array(
           jsonb_build_object('heat', pg_temp.heat('[-1e300, 0.5, 1e300]')),
           jsonb_build_object('heat', pg_temp.heat('[20, 30, 40]'))))) AS svg;
SELECT ok(pg_temp.svg_ok(svg)
          AND (SELECT count(*) FROM pg_temp.x(svg, '//s:rect[s:title]')) = 3
          AND (SELECT min(p::float8) FROM pg_temp.x(svg, '//s:rect[s:title]/@x') p)
              >= (SELECT min(p::float8) FROM pg_temp.x(svg, '//s:text[@text-anchor = "middle" and . = "0"]/@x') p) - 0.15
          AND (SELECT max(x::float8 + w::float8)
                 FROM unnest(ARRAY(SELECT pg_temp.x(svg, '//s:rect[s:title]/@x')),
                             ARRAY(SELECT pg_temp.x(svg, '//s:rect[s:title]/@width'))) u(x, w))
              <= (SELECT min(p::float8) FROM pg_temp.x(svg, '//s:text[@text-anchor = "middle" and . = "10"]/@x') p) + 0.15,
    'edges beyond the axis are drawn within the plot, columns off it not at all')
  FROM off;

-- malformed panels: errors that name the key
SELECT is(pg_temp.error_of($$SELECT ranread_svg(pg_temp.spec('[{"heat": {"rows": ["a"], "columns": ["c"], "values": [[1]]}}]'))$$),
    '22023: invalid panels[0].heat.edges in the spec for ranread_svg: missing (a panel''s columns lie on the chart''s x axis, between edges[j] and edges[j + 1])',
    'a panel''s heat needs edges');
SELECT is(pg_temp.error_of($$SELECT ranread_svg(pg_temp.spec(jsonb_build_array(jsonb_build_object('heat', pg_temp.heat('[0, 5]')))))$$),
    '22023: invalid panels[0].heat.edges in the spec for ranread_svg: 2 edges for 2 columns (a column lies between two edges: 3 are needed)',
    'one edge more than the columns');
SELECT is(pg_temp.error_of($$SELECT ranread_svg(pg_temp.spec(jsonb_build_array(jsonb_build_object('heat', pg_temp.heat('[0, 5, 5]')))))$$),
    '22023: invalid panels[0].heat.edges[2] in the spec for ranread_svg: not above the edge before it (edges increase)',
    'edges increase');
SELECT is(pg_temp.error_of($$SELECT ranread_svg(pg_temp.spec(jsonb_build_array(jsonb_build_object('heat', pg_temp.heat('[0, null, 5]')))))$$),
    '22023: invalid panels[0].heat.edges[1] in the spec for ranread_svg: null (every edge is a number)',
    'an edge is a number, not null');
SELECT is(pg_temp.error_of($$SELECT ranread_svg(pg_temp.spec(jsonb_build_array(jsonb_build_object('kind', 'line', 'heat', pg_temp.heat('[0, 5, 10]')))))$$),
    '22023: invalid panels[0].kind in the spec for ranread_svg: "line" is not "heat" (a panel is a heat chart)',
    'a panel is a heat chart');
SELECT is(pg_temp.error_of($$SELECT ranread_svg(pg_temp.spec(jsonb_build_array(jsonb_build_object('x', '{}'::jsonb, 'heat', pg_temp.heat('[0, 5, 10]')))))$$),
    '22023: unknown key "x" in panels[0] of the spec for ranread_svg',
    'a panel has no x axis of its own: it shares the chart''s');
SELECT is(pg_temp.error_of($$SELECT ranread_svg(pg_temp.spec('[{"title": "no heat"}]'))$$),
    '22023: invalid panels[0].heat in the spec for ranread_svg: missing (a panel is a heat chart)',
    'a panel without its heat is refused');
SELECT is(pg_temp.error_of($$SELECT ranread_svg(pg_temp.spec('"heat"'))$$),
    '22023: invalid panels in the spec for ranread_svg: "heat" is not an array',
    'panels is an array');
SELECT is(pg_temp.error_of($$SELECT ranread_svg(pg_temp.spec((SELECT jsonb_agg(jsonb_build_object('heat', pg_temp.heat('[0, 5, 10]'))) FROM generate_series(1, 5))))$$),
    '22023: invalid panels in the spec for ranread_svg: 5 elements, at most 4',
    'at most four panels');
SELECT is(pg_temp.error_of($$SELECT ranread_svg(pg_temp.spec('[]') || '{"kind": "bar", "categories": ["a"], "series": [{"y": [1]}]}')$$),
    '22023: invalid panels in the spec for ranread_svg: given for a chart whose kind is not "line" (panels share a line chart''s x axis)',
    'panels go under a line chart only');
SELECT is(pg_temp.error_of($$SELECT ranread_svg(jsonb_build_object('kind', 'heat', 'heat', pg_temp.heat('[0, 5, 10]')))$$),
    '22023: invalid heat.edges in the spec for ranread_svg: given for a heat table; only a panel''s heat has edges on the x axis of the chart above it',
    'a heat table has no edges');

-- at the limits: four panels of 200 rows x 40 columns, bounded
CREATE TEMP TABLE big AS
SELECT ranread_svg(pg_temp.spec((SELECT jsonb_agg(jsonb_build_object('title', 'p', 'heat', jsonb_build_object(
           'rows', (SELECT jsonb_agg('row ' || r) FROM generate_series(1, 200) r),
           'columns', (SELECT jsonb_agg('c' || c) FROM generate_series(1, 40) c),
           'values', (SELECT jsonb_agg((SELECT jsonb_agg(r * c) FROM generate_series(1, 40) c)) FROM generate_series(1, 200) r),
           'edges', (SELECT jsonb_agg(c * 0.25) FROM generate_series(0, 40) c))))
      FROM generate_series(1, 4)))) AS svg;
SELECT ok(pg_temp.svg_ok(svg) AND length(svg) < 8 * 1024 * 1024
          AND (SELECT count(*) FROM pg_temp.x(svg, '//s:rect[s:title]')) = 4 * 200 * 40,
    'four panels at their limits (200 rows x 40 columns) are a well-formed document under 8 MB, every cell drawn')
  FROM big;

SELECT * FROM finish();
ROLLBACK;
