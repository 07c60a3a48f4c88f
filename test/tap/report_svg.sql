-- ranread_svg(spec jsonb) draws line, bar and heat charts from a spec, with
-- the renderer of ranread_chart and ranread_timeline: what a plpgsql
-- function may rely on when it draws its own charts.
BEGIN;
SET LOCAL client_min_messages = warning;
SELECT plan(40);

\ir lib/util.psql

-- pg_temp.series(n, points): n series of latency against IOPS
CREATE FUNCTION pg_temp.series(n int, points int DEFAULT 8) RETURNS jsonb LANGUAGE sql AS $$
    SELECT jsonb_agg(jsonb_build_object(
               'label', 'curve ' || k,
               'x', (SELECT jsonb_agg(1000 * (j + 1) ORDER BY j) FROM generate_series(0, points - 1) j),
               'y', (SELECT jsonb_agg(1 + k + 0.1 * j ORDER BY j) FROM generate_series(0, points - 1) j))
             ORDER BY k)
      FROM generate_series(0, n - 1) k
$$;
-- pg_temp.count(svg, pattern): how often a pattern occurs
CREATE FUNCTION pg_temp.count(svg text, pattern text) RETURNS bigint LANGUAGE sql AS $$
    SELECT count(*) FROM regexp_matches(svg, pattern, 'g')
$$;

-- Line charts
CREATE TEMP TABLE one AS SELECT ranread_svg(jsonb_build_object(
    'title', 'One curve', 'x', '{"label": "IOPS"}'::jsonb, 'y', '{"label": "Latency (ms)"}'::jsonb,
    'series', pg_temp.series(1))) AS svg;
SELECT ok(pg_temp.svg_ok((SELECT svg FROM one)), 'a one-series line chart is a well-formed SVG');
SELECT matches((SELECT svg FROM one), '<title>One curve</title>', 'with the spec''s title');
SELECT matches((SELECT svg FROM one), '>IOPS</text>', 'the x axis label');
SELECT matches((SELECT svg FROM one), '>Latency \(ms\)</text>', 'the y axis label');
SELECT matches((SELECT svg FROM one), '>curve 0</text>', 'and a legend naming the series');
SELECT is(pg_temp.count((SELECT svg FROM one), '<path d="M[^"]*" fill="none"'), 1::bigint, 'one line');

CREATE TEMP TABLE twelve AS SELECT ranread_svg(jsonb_build_object('title', 'Twelve', 'series', pg_temp.series(12))) AS svg;
SELECT ok(pg_temp.svg_ok((SELECT svg FROM twelve)), 'twelve series make a well-formed SVG');
SELECT is(pg_temp.count((SELECT svg FROM twelve), '<path d="M[^"]*" fill="none"'), 12::bigint, 'with twelve lines');
SELECT is((SELECT count(DISTINCT m[1]) FROM regexp_matches((SELECT svg FROM twelve),
              '<path d="M[^"]*" fill="none" stroke="(#[0-9a-f]{6})"', 'g') m), 12::bigint,
    'in twelve colours');
SELECT is((SELECT count(DISTINCT coalesce(m[1], 'solid')) FROM regexp_matches((SELECT svg FROM twelve),
              '<path d="M[^"]*" fill="none" stroke="#[0-9a-f]{6}" stroke-width="[0-9.]+" stroke-linejoin="round" stroke-linecap="round"( stroke-dasharray="[0-9 ]+")?/>', 'g') m), 4::bigint,
    'four dash patterns among them (solid included), so lines stay apart in greyscale');
SELECT ok(pg_temp.count((SELECT svg FROM twelve), '<circle cx') > 0 AND pg_temp.count((SELECT svg FROM twelve), '<rect x="[0-9.]+" y="[0-9.]+" width="8" height="8"') > 0
          AND pg_temp.count((SELECT svg FROM twelve), 'Z" fill="#') > 0 AND pg_temp.count((SELECT svg FROM twelve), 'stroke-width="2.2" fill="none"/>') > 0,
    'and markers of several shapes (circle, square, triangle or diamond, cross)');
SELECT throws_ok($$SELECT ranread_svg(jsonb_build_object('series', pg_temp.series(13)))$$, '22023',
    'invalid series in the spec for ranread_svg: 13 elements, at most 12', 'more than twelve series are refused');

-- Log axes
CREATE TEMP TABLE logx AS SELECT ranread_svg(jsonb_build_object(
    'x', '{"label": "IOPS", "log": "auto"}'::jsonb,
    'series', jsonb_build_array(jsonb_build_object('label', 'wide', 'x', '[10, 100, 1000, 10000]'::jsonb, 'y', '[1, 2, 3, 4]'::jsonb)))) AS svg;
SELECT matches((SELECT svg FROM logx), '>IOPS; log scale</text>', '"log": "auto" draws data spanning decades on a log axis, and says so');
SELECT ok(strpos((SELECT svg FROM logx), '>1,000</text>') > 0 AND strpos((SELECT svg FROM logx), '>10,000</text>') > 0,
    'with ticks at the powers of ten');
SELECT doesnt_match(ranread_svg(jsonb_build_object('x', '{"label": "IOPS", "log": "auto"}'::jsonb,
    'series', jsonb_build_array(jsonb_build_object('x', '[10, 20, 40]'::jsonb, 'y', '[1, 2, 3]'::jsonb)))),
    'log scale', 'data within a factor of 100 stay linear');
SELECT doesnt_match(ranread_svg(jsonb_build_object('y', '{"label": "d", "log": "auto"}'::jsonb,
    'series', jsonb_build_array(jsonb_build_object('x', '[1, 2, 3]'::jsonb, 'y', '[-5, 1, 1000]'::jsonb)))),
    'log scale', 'and so do data that are not all positive');

-- Gaps, reference lines, highlights
CREATE TEMP TABLE gap AS SELECT ranread_svg(jsonb_build_object(
    'series', jsonb_build_array(jsonb_build_object('label', 'gappy', 'x', '[1, 2, 3, 4, 5]'::jsonb, 'y', '[1, 2, null, 4, 5]'::jsonb)),
    'lines', jsonb_build_array(jsonb_build_object('value', 3, 'label', 'bound 3 ms', 'legend', 'the bound')),
    'highlights', jsonb_build_array(jsonb_build_object('series', 0, 'point', 3, 'label', 'best')))) AS svg;
SELECT matches((SELECT svg FROM gap), '<path d="M[0-9. ]+L[0-9. ]+M[0-9. ]+L[0-9. ]+" fill="none"',
    'a null value is a gap in the line');
SELECT matches((SELECT svg FROM gap), 'stroke-dasharray="8 5"/>\s*<text[^>]*>bound 3 ms</text>', 'a reference line is dashed and labelled');
SELECT matches((SELECT svg FROM gap), '>the bound</text>', 'and has its legend entry');
SELECT matches((SELECT svg FROM gap), '<circle [^>]*r="9" fill="none"[^>]*/>\s*<text[^>]*>best</text>', 'a highlight rings its point, labelled');

-- Nothing to draw
SELECT ok(pg_temp.svg_ok(ranread_svg('{}')), 'an empty spec is still a well-formed SVG');
SELECT matches(ranread_svg('{}'), 'Nothing to draw', 'which says there is nothing to draw');
SELECT matches(ranread_svg('{"empty": "No sweep yet", "series": [{"x": [1, 2], "y": [null, null]}], "notes": ["kept"]}'),
    '>No sweep yet</text>.*>kept</text>', 'series of nulls too, with the spec''s message, the notes still drawn');

-- Names
CREATE TEMP TABLE names AS SELECT ranread_svg(jsonb_build_object(
    'title', E'<b>&"caf\u00e9''s"', 'series', jsonb_build_array(jsonb_build_object('label', E'\u65e5\u672c <x>', 'x', '[1]'::jsonb, 'y', '[1]'::jsonb)))) AS svg;
SELECT ok(pg_temp.svg_ok((SELECT svg FROM names)), 'names with <&"'' leave the SVG well-formed');
SELECT ok((SELECT svg FROM names) !~ '[^\x01-\x7f]', 'and it stays plain ASCII');
SELECT matches((SELECT svg FROM names), '<title>&lt;b&gt;&amp;&quot;caf&#xE9;&#39;s&quot;</title>', 'names are escaped');
SELECT is((xpath('//svg:title/text()', (SELECT svg FROM names)::xml,
                 ARRAY[ARRAY['svg', 'http://www.w3.org/2000/svg']]))[1]::text,
    '&lt;b&gt;&amp;"café''s"', 'and read back as they were given');

-- Bars and heat
CREATE TEMP TABLE bars AS SELECT ranread_svg('{"kind": "bar", "title": "MB/s", "categories": ["SEQ1M Q8T1", "RND4K Q32T1"],
    "series": [{"label": "Read", "y": [2100, 410]}, {"label": "Write", "y": [1800, null]}]}') AS svg;
SELECT ok(pg_temp.svg_ok((SELECT svg FROM bars)), 'a bar chart is a well-formed SVG');
SELECT ok(strpos((SELECT svg FROM bars), '>2,100</text>') > 0 AND strpos((SELECT svg FROM bars), '>410</text>') > 0,
    'its values are printed on the bars');
SELECT matches((SELECT svg FROM bars), 'url\(#ranread-hatch-1\)', 'the second series is hatched, to stay apart in greyscale');
SELECT matches((SELECT svg FROM bars), '>n/a</text>', 'a missing value says n/a');

CREATE TEMP TABLE heat AS SELECT ranread_svg('{"kind": "heat", "title": "IOPS grid", "heat": {"metric": "IOPS",
    "rows": ["0%", "50%"], "columns": ["4 KiB", "64 KiB"], "values": [[90000, 900], [45000, null]], "format": "count", "log": "auto"}}') AS svg;
SELECT ok(pg_temp.svg_ok((SELECT svg FROM heat)), 'a heat table is a well-formed SVG');
SELECT ok(strpos((SELECT svg FROM heat), '>90,000</text>') > 0 AND strpos((SELECT svg FROM heat), '>45,000</text>') > 0,
    'its values are printed in the cells');
SELECT matches((SELECT svg FROM heat), 'IOPS \(log colour scale\):', 'values spanning decades get a log colour scale, named in the legend');
SELECT is(pg_temp.count((SELECT svg FROM heat), 'height="30.0" fill="#'), 4::bigint, 'one cell per value, the empty one included');

-- The example of docs/charts-and-reports.md, "Charts from SQL": latency
-- against IOPS, one curve per queue depth
DELETE FROM ranread_intervals;
DELETE FROM ranread_results;
DELETE FROM ranread_batches;
INSERT INTO ranread_batches (batch, run_at, target, processes, duration, block_size, queue_depth,
    write_pct, pattern, region_start, region_end, seed, workers, engine, reads, writes, seconds,
    iops, mbps, avg_ms, p99_ms, max_ms, status)
SELECT 10 * qd + p, now(), 'ranread', p, '10s', 8192, qd, 0, 'random', 0, 100, 1, 1, 'io_uring',
       1000, 0, 10, 1000 * p * qd, 8 * p * qd, 0.2 * p * qd, 1, 2, 'completed'
  FROM unnest(ARRAY[1, 4]) qd, unnest(ARRAY[1, 2, 4]) p;
SELECT is(pg_temp.count(ranread_svg(jsonb_build_object(
  'title', 'Latency against IOPS by queue depth: random 8 KiB reads',
  'x', '{"label": "IOPS (I/O operations per second)", "log": "auto", "format": "count"}'::jsonb,
  'y', '{"label": "Average latency (ms)"}'::jsonb,
  'series', (SELECT jsonb_agg(jsonb_build_object(
                 'label', 'queue depth ' || queue_depth,
                 'x', (SELECT jsonb_agg(iops ORDER BY processes) FROM ranread_summary s WHERE s.queue_depth = q.queue_depth),
                 'y', (SELECT jsonb_agg(avg_ms ORDER BY processes) FROM ranread_summary s WHERE s.queue_depth = q.queue_depth))
               ORDER BY queue_depth)
               FROM (SELECT DISTINCT queue_depth FROM ranread_summary) q),
  'lines', '[{"value": 2, "label": "bound 2 ms", "legend": "Average latency bound 2 ms"}]'::jsonb)),
    '<path d="M[^"]*" fill="none"'), 2::bigint, 'the example of docs/charts-and-reports.md draws one curve per queue depth');

-- Bad specs: the key is named
SELECT throws_ok($$SELECT ranread_svg('{"titel": "x"}')$$, '22023',
    'unknown key "titel" in the top level of the spec for ranread_svg', 'an unknown key is an error that names it');
SELECT throws_ok($$SELECT ranread_svg('{"series": [{"x": [1, 2], "y": [1]}]}')$$, '22023',
    'invalid series[0].x in the spec for ranread_svg: 2 values for 1 values of y', 'x and y must pair up');
SELECT throws_ok($$SELECT ranread_svg('{"series": [{"x": [1], "y": [1], "color": "red\" onload=\"x"}]}')$$, '22023',
    NULL, 'a colour must be a colour');
SELECT throws_ok($$SELECT ranread_svg(NULL)$$, '22004', 'spec for ranread_svg must not be null', 'a NULL spec is refused');

SELECT * FROM finish();
ROLLBACK;
