-- ranread_svg and the charts of the history are safe for any caller
-- (pg_monitor may call them), whatever the numbers and the text: no crash,
-- work bounded by stated limits and cancellable, and always a well-formed
-- document whose numbers are finite and short.
BEGIN;
SET LOCAL client_min_messages = warning;
SELECT plan(44);

\ir lib/util.psql

-- pg_temp.coords_ok(svg): every coordinate finite (no NaN, no inf) and
-- shorter than 9 digits
CREATE FUNCTION pg_temp.coords_ok(svg text) RETURNS boolean LANGUAGE sql AS $$
    SELECT svg !~* '\s(x|y|x1|y1|x2|y2|cx|cy|r|width|height|d|transform|viewBox)="[^"]*(nan|inf)'
       AND svg !~ '\s(x|y|x1|y1|x2|y2|cx|cy|r|width|height|d|transform|viewBox)="[^"]*[0-9]{9}'
$$;
-- pg_temp.safe(svg): well-formed, plain ASCII, coordinates as above
CREATE FUNCTION pg_temp.safe(svg text) RETURNS boolean LANGUAGE sql AS $$
    SELECT pg_temp.svg_ok(svg) AND svg !~ '[^\x01-\x7f]' AND pg_temp.coords_ok(svg)
$$;
-- pg_temp.texts(svg): the text of every <text> element
CREATE FUNCTION pg_temp.texts(svg text) RETURNS SETOF text LANGUAGE sql AS $$
    SELECT m[1] FROM regexp_matches(svg, '>([^<]*)</text>', 'g') m
$$;
-- pg_temp.longest_number(svg): the longest text that is a number (ticks,
-- values), in characters
CREATE FUNCTION pg_temp.longest_number(svg text) RETURNS integer LANGUAGE sql AS $$
    SELECT coalesce(max(length(t)), 0) FROM pg_temp.texts(svg) t WHERE t ~ '^-?[0-9][0-9.,e+-]*$'
$$;
-- pg_temp.count(svg, pattern): how often a pattern occurs
CREATE FUNCTION pg_temp.count(svg text, pattern text) RETURNS bigint LANGUAGE sql AS $$
    SELECT count(*) FROM regexp_matches(svg, pattern, 'g')
$$;

-- Extreme numbers: finite, clamped, never a crash
SELECT throws_ok($$SELECT ranread_svg('{"kind":"heat","heat":{"rows":["a","b"],"columns":["c"],"values":[[1e308],[-1e308]]}}')$$,
    '22023', 'invalid heat.values[0][0] in the spec for ranread_svg: 1e+308 is beyond the largest magnitude a chart places, 1e300',
    'a heat value beyond 1e300 (the spec that crashed the server) is refused, naming the key, the value and the limit');
CREATE TEMP TABLE wide_heat AS SELECT ranread_svg('{"kind":"heat","heat":{"rows":["a","b"],"columns":["c"],"values":[[1e300],[-1e300]]}}') AS svg;
SELECT ok(pg_temp.safe((SELECT svg FROM wide_heat)), 'a heat table spanning -1e300 to 1e300 is a well-formed SVG with finite coordinates');
SELECT ok(strpos((SELECT svg FROM wide_heat), 'height="30.0" fill="#440154"') > 0
          AND strpos((SELECT svg FROM wide_heat), 'height="30.0" fill="#fde725"') > 0,
    'its lowest cell takes the first colour of the scale and its highest the last');
SELECT ok(pg_temp.safe(ranread_svg('{"kind":"heat","heat":{"rows":["a"],"columns":["b","c","d"],"values":[[1e-300,1e300,5e-324]],"log":true}}')),
    'so does a log heat scale from 5e-324 to 1e300');
CREATE TEMP TABLE wide_line AS SELECT ranread_svg('{"series":[{"x":[1,2,3],"y":[1e300,-1e300,0],"labels":true}],
    "lines":[{"value":1e300,"label":"top"},{"value":-1e300,"label":"bottom"}]}') AS svg;
SELECT ok(pg_temp.safe((SELECT svg FROM wide_line)), 'a line from -1e300 to 1e300 with reference lines at both ends is a well-formed SVG with finite coordinates');
SELECT cmp_ok(pg_temp.longest_number((SELECT svg FROM wide_line)), '<=', 10,
    'its tick labels and printed values take at most 10 characters');
SELECT ok((SELECT bool_or(t = '1e300') FROM pg_temp.texts((SELECT svg FROM wide_line)) t),
    'a value of 1e300 prints as 1e300');
SELECT ok(pg_temp.safe(ranread_svg('{"kind":"bar","categories":["a","b","c"],"series":[{"y":[1e300,-1e300,1]},{"y":[5e-324,null,-0.0]}],"y":{"format":"count"}}')),
    'bars of -1e300 and 1e300 are a well-formed SVG with finite coordinates');
SELECT ok((SELECT bool_and(m[1]::float8 BETWEEN 104 AND 430)
             FROM regexp_matches(ranread_svg('{"kind":"bar","categories":["a","b"],"series":[{"y":[1e300,-1e300]}]}'),
                                 '<line x1="112.0" y1="([-0-9.]+)" x2="912.0"', 'g') m),
    'and their gridlines, the ticks past 1e300 included, lie within the plot');
SELECT ok(pg_temp.safe(ranread_svg('{"series":[{"x":[1,2,3,4],"y":[0,-5,1e-300,1e300]}],"y":{"log":true}}')),
    'a log axis over zero, negative and extreme values draws the positive ones, finite');
SELECT ok(pg_temp.safe(ranread_svg('{"series":[{"x":[5e-324,1,1e300],"y":[1,2,3]}],"x":{"log":true,"base":2,"ticks":"data"},
    "lines":[{"value":1e300,"label":"far"}],"y":{"log":true,"base":2}}')),
    'a base-2 log axis from 5e-324 to 1e300, ticks at the data, is finite');
SELECT ok(pg_temp.safe(ranread_svg('{"series":[{"x":[1,50,100],"y":[1,2,1e300]}],"x":{"max":1e-300},"y":{"min":-1e-300,"max":1e-300}}')),
    'points far beyond the axes a spec sets stay at finite coordinates');
SELECT ok(pg_temp.safe(ranread_svg('{"series":[{"x":[0,1],"y":[5e-324,1e-300],"labels":true}]}'))
          AND pg_temp.longest_number(ranread_svg('{"series":[{"x":[0,1],"y":[5e-324,1e-300],"labels":true}]}')) <= 10,
    'values near the smallest double give short tick labels');
SELECT throws_ok($$SELECT ranread_svg('{"series":[{"x":[1,2],"y":[1,"NaN"]}]}')$$, '22023',
    'invalid series[0].y[1] in the spec for ranread_svg: "NaN" is not a number (JSON has no NaN or infinity; null is no value)',
    'the string "NaN" where a number goes is refused, saying that null is no value');
SELECT throws_ok($$SELECT ranread_svg('{"series":[{"x":[1],"y":[1e400]}]}')$$, '22023',
    'invalid series[0].y[0] in the spec for ranread_svg: 1.000e+400 is beyond the largest magnitude a chart places, 1e300',
    'a number beyond a double is refused as the spec''s error, naming the key');
SELECT is(ranread_svg('{"y": {"max": 1e300}, "series":[{"x":[1],"y":[1]}]}') IS NOT NULL, true,
    'an axis bound of exactly 1e300 is taken');

-- Numbers as text: a few characters, however long their decimal expansion
CREATE TEMP TABLE long_numbers AS SELECT ranread_svg(jsonb_build_object('table', jsonb_build_object(
    'header', '["a", "b", "c"]'::jsonb,
    'rows', jsonb_build_array(jsonb_build_array(1e100000::numeric, 1e-16000::numeric, 1.5 + 1e-16000::numeric - 1e-16000::numeric))))) AS svg;
SELECT cmp_ok(length((SELECT svg FROM long_numbers)), '<', 6000,
    'cells holding 1e100000, 1e-16000 and 1.5 with 16,000 decimals make a small document');
SELECT ok((SELECT array_agg(t) FROM pg_temp.texts((SELECT svg FROM long_numbers)) t) @> ARRAY['1.000e+100000', '0', '1.5'],
    'each printed in a few characters');

-- The charts of the history: odd figures and names
DELETE FROM ranread_intervals;
DELETE FROM ranread_results;
DELETE FROM ranread_batches;
INSERT INTO ranread_batches (batch, run_at, target, processes, duration, block_size, queue_depth,
    write_pct, pattern, region_start, region_end, seed, workers, engine, reads, writes, seconds,
    iops, mbps, avg_ms, p99_ms, max_ms, status)
VALUES (1, '2024-05-02 14:00:00+00', E'tgt\uFFFE\uFFFF', 1, '10s', 8192, 1, 0, 'random', 0, 100, 1, 1, 'sync',
        1000, 0, 10, 'Infinity', 1e300, 'NaN', 1e308, 1e308, 'completed'),
       (2, '2024-05-02 14:01:00+00', E'tgt\uFFFE\uFFFF', 2, '10s', 8192, 1, 0, 'random', 0, 100, 1, 1, 'sync',
        1000, 0, 10, 1e308, -0.0, 5e-324, 'Infinity', '-Infinity', 'completed'),
       (3, '2024-05-02 14:02:00+00', E'tgt\uFFFE\uFFFF', 4, '10s', 8192, 1, 0, 'random', 0, 100, 1, 1, 'sync',
        1000, 0, 10, 4000, 31.2, 0.9, 1.5, 3.0, 'completed');
INSERT INTO ranread_intervals (batch, second, reads, writes, iops, avg_ms, max_ms)
SELECT 1, s, 100, 0, (ARRAY[1e308, 'Infinity', 1e300, 0, 5e-324, 'NaN', 1000])[s % 7 + 1]::float8,
       (ARRAY[1, 1e300, 'NaN'])[s % 3 + 1]::float8, (ARRAY['Infinity', 2, 1e308])[s % 3 + 1]::float8
  FROM generate_series(0, 20) s;
CREATE TEMP TABLE odd_chart AS SELECT ranread_chart(NULL) AS svg;
SELECT ok(pg_temp.safe((SELECT svg FROM odd_chart)),
    'ranread_chart over a history of Infinity, NaN and 1e308, on a target named with U+FFFE and U+FFFF, is a well-formed SVG with finite coordinates');
SELECT ok((SELECT bool_and(length(t) < 200) FROM pg_temp.texts((SELECT svg FROM odd_chart)) t),
    'with no cell or note of hundreds of digits');
SELECT matches((SELECT svg FROM odd_chart), '&#x201C;tgt&#xFFFD;&#xFFFD;&#x201D;',
    'the target''s noncharacters are written as U+FFFD');
SELECT ok((SELECT bool_and(t !~ '^-0') FROM pg_temp.texts((SELECT svg FROM odd_chart)) t)
          AND strpos((SELECT svg FROM odd_chart), '>0.0</text>') > 0,
    'an MB/s of -0 prints as 0.0');
SELECT ok(pg_temp.safe(ranread_timeline(1)), 'ranread_timeline over seconds of Infinity, NaN and 1e308 is a well-formed SVG with finite coordinates');
SELECT ok((SELECT bool_and(t !~* 'nan|inf[^o]') FROM pg_temp.texts(ranread_timeline(1)) t),
    'its notes print no nan or inf');

SELECT is(ARRAY(SELECT ranread_internal.ranread_fmt_figure(v) FROM unnest(ARRAY[1e308, -5e17, 'Infinity', 'NaN', -0.0, 12345]::float8[]) v),
    ARRAY['1e308', '-5e17', 'Infinity', 'n/a', '0.00', '12,345'],
    'the reports'' figures print 10^15 and up in exponent form, Infinity as Infinity, NaN as n/a and -0 as 0');

-- Text XML 1.0 forbids: replaced, so that the document is well-formed
CREATE TEMP TABLE odd_text AS SELECT ranread_svg(jsonb_build_object(
    'title', E'a\uFFFEb\uFFFFc', 'subtitle', E'\uFDD0\uFDEF\U0001FFFE\U0010FFFF',
    'series', jsonb_build_array(jsonb_build_object('label', E'ctl\u0001\u001f\u007f\u0085', 'x', '[1]'::jsonb, 'y', '[1]'::jsonb,
                                                   'labels', true, 'texts', jsonb_build_array(E'\uFFFE'))),
    'notes', jsonb_build_array(E'note \uFFFF'),
    'table', jsonb_build_object('header', jsonb_build_array(E'h\uFFFE'), 'rows', jsonb_build_array(jsonb_build_array(E'c\uFFFF'))))) AS svg;
SELECT ok(pg_temp.svg_ok((SELECT svg FROM odd_text)),
    'U+FFFE, U+FFFF, noncharacters and control characters in a title, labels, notes and cells leave the SVG well-formed');
SELECT is((SELECT (xpath('//svg:title/text()', svg::xml, ARRAY[ARRAY['svg', 'http://www.w3.org/2000/svg']]))[1]::text
             FROM odd_text WHERE pg_temp.svg_ok(svg)),
    E'a\uFFFDb\uFFFDc', 'the title reads back with U+FFFD in place of U+FFFE and U+FFFF');
SELECT ok((SELECT svg FROM odd_text) !~ '&#x(FFFE|FFFF|FDD0|FDEF|1FFFE|10FFFF);',
    'no reference to a noncharacter is written');
SELECT ok(pg_temp.svg_ok(ranread_svg(jsonb_build_object('kind', 'heat', 'heat', jsonb_build_object(
    'rows', jsonb_build_array(E'\uFFFE'), 'columns', jsonb_build_array(E'\uFFFF'), 'values', '[[1]]'::jsonb, 'metric', E'\uFFFE'))))
    AND pg_temp.svg_ok(ranread_svg(jsonb_build_object('kind', 'bar', 'categories', jsonb_build_array(E'\uFFFE'),
        'series', '[{"y": [1]}]'::jsonb))),
    'and so do heat and bar labels');

-- Bounded work: point labels, limits, cancel
CREATE TEMP TABLE one_x AS SELECT jsonb_build_object('series', jsonb_build_array(jsonb_build_object(
    'labels', true,
    'x', (SELECT jsonb_agg(1) FROM generate_series(1, 100000)),
    'y', (SELECT jsonb_agg(g ORDER BY g) FROM generate_series(1, 100000) g)))) AS spec;
SET LOCAL statement_timeout = '30s';
CREATE TEMP TABLE one_x_svg AS SELECT ranread_svg(spec) AS svg FROM one_x;
RESET statement_timeout;
SELECT ok(pg_temp.svg_ok((SELECT svg FROM one_x_svg)),
    'a series of 100,000 points at one x with their values printed draws well within statement_timeout');
SELECT is(pg_temp.count((SELECT svg FROM one_x_svg), 'font-size="11.5" font-weight="bold"'), 1::bigint,
    'and prints one value: where points share an x, only the highest');
SELECT matches((SELECT svg FROM one_x_svg), '>100,000</text>', 'which is the highest');
SELECT is(ARRAY(SELECT t FROM pg_temp.texts(ranread_svg('{"series":[{"x":[1,1,1,2],"y":[5,7,6,3],"labels":true}]}')) t
                 WHERE t ~ '^[0-9.]+$' AND t IN ('5.00', '6.00', '7.00', '3.00')),
    ARRAY['7.00', '3.00'], 'points sharing an x print only the highest value; a point alone prints its own');
SELECT is(ARRAY(SELECT t FROM pg_temp.texts(ranread_svg('{"series":[{"x":[1,1,1,2],"y":[5,7,6,3],"labels":true}],
                                                          "highlights":[{"series":0,"point":0}]}')) t
                 WHERE t IN ('5.00', '6.00', '7.00', '3.00')),
    ARRAY['5.00', '3.00'], 'a highlighted point prints its value, and none other at its x');

CREATE FUNCTION pg_temp.cancelled_within(spec jsonb, OUT code text, OUT took float8)
LANGUAGE plpgsql AS $$
DECLARE
    t0 timestamptz := clock_timestamp();
BEGIN
    code := '00000';
    BEGIN
        PERFORM ranread_svg(spec);
    EXCEPTION WHEN query_canceled THEN
        code := '57014';
    END;
    took := extract(epoch FROM clock_timestamp() - t0);
END
$$;
-- three series of 100,000 points, markers and values: seconds of work
CREATE TEMP TABLE heavy AS SELECT ('{"series": [' || string_agg(format('{"labels": true, "line": false, "x": %s, "y": %s}', x, y), ',') || ']}')::jsonb AS spec
  FROM (SELECT (SELECT jsonb_agg(g / 2) FROM generate_series(1, 100000) g)::text AS x,
               (SELECT jsonb_agg(g % 1000) FROM generate_series(1, 100000) g)::text AS y) a,
       generate_series(1, 3) k;
SET LOCAL statement_timeout = '300ms';
CREATE TEMP TABLE cancel AS SELECT c.* FROM heavy, pg_temp.cancelled_within(heavy.spec) c;
RESET statement_timeout;
SELECT is((SELECT code FROM cancel), '57014', 'statement_timeout cancels a long render');
SELECT cmp_ok((SELECT took FROM cancel), '<', 5.0::float8, 'within seconds: the renderer checks for interrupts');

SELECT throws_ok($$SELECT ranread_svg(jsonb_build_object('series', jsonb_build_array(jsonb_build_object(
    'x', (SELECT jsonb_agg(g) FROM generate_series(1, 100001) g), 'y', (SELECT jsonb_agg(g) FROM generate_series(1, 100001) g)))))$$,
    '22023', 'invalid series[0].y in the spec for ranread_svg: 100001 elements, at most 100000',
    'a series holds at most 100,000 points');
SELECT throws_ok($$SELECT ranread_svg(jsonb_build_object('title', repeat('é', 10001)))$$,
    '22023', 'invalid title in the spec for ranread_svg: a text of 10001 characters, at most 10000',
    'a text holds at most 10,000 characters');
SELECT lives_ok($$SELECT ranread_svg(jsonb_build_object('title', repeat('é', 10000)))$$,
    'and may hold 10,000');
SELECT throws_ok($$SELECT ranread_svg(jsonb_build_object('kind', 'bar', 'categories', (SELECT jsonb_agg(g) FROM generate_series(1, 201) g)))$$,
    '22023', 'invalid categories in the spec for ranread_svg: 201 elements, at most 200',
    'a bar chart has at most 200 categories');
SELECT throws_ok($$SELECT ranread_svg(jsonb_build_object('table', jsonb_build_object('header', '["a"]'::jsonb,
    'rows', (SELECT jsonb_agg('["x"]'::jsonb) FROM generate_series(1, 501)))))$$,
    '22023', 'invalid table.rows in the spec for ranread_svg: 501 elements, at most 500',
    'a table has at most 500 rows');
SELECT throws_ok($$SELECT ranread_svg(jsonb_build_object('kind', 'heat', 'heat', jsonb_build_object(
    'rows', (SELECT jsonb_agg(g) FROM generate_series(1, 201) g), 'columns', '["a"]'::jsonb, 'values', '[]'::jsonb)))$$,
    '22023', 'invalid heat.rows in the spec for ranread_svg: 201 elements, at most 200',
    'a heat table has at most 200 rows');
SELECT throws_ok($$SELECT ranread_svg(jsonb_build_object('notes', (SELECT jsonb_agg('n'::text) FROM generate_series(1, 33))))$$,
    '22023', 'invalid notes in the spec for ranread_svg: 33 elements, at most 32',
    'a chart has at most 32 notes');
SELECT throws_ok($$SELECT ranread_svg('{"series": [{"x": [1], "y": [1]}], "highlights": [{"series": 0, "point": null}]}')$$,
    '22023', 'invalid highlights[0].point in the spec for ranread_svg: missing',
    'a highlight names its point');

SELECT * FROM finish();
ROLLBACK;
