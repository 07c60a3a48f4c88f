-- ranread_svg: a text of a spec may be an array of parts (strings, figures
-- in the renderer's formats, characters by code point), and a reference
-- line may have no value; what SQL that builds a chart (ranread_chart,
-- ranread_timeline, a plpgsql function's own) relies on.
BEGIN;
SET LOCAL client_min_messages = warning;
SELECT plan(28);

\ir lib/util.psql

-- pg_temp.title(parts): the title a spec with these parts draws
CREATE FUNCTION pg_temp.title(parts jsonb) RETURNS text LANGUAGE sql AS $$
    SELECT substring(ranread_svg(jsonb_build_object('title', parts)) FROM '<title>([^<]*)</title>')
$$;

-- Figures in the renderer's formats
SELECT is(pg_temp.title('["a ", {"count": 12345.6}, " b"]'), 'a 12,346 b',
    'a count part prints the number with thousands separators, rounded');
SELECT is(pg_temp.title('[{"ms": 6.1}, " ", {"ms": 0.1234}, " ", {"ms": 123.4}]'), '6.10 0.123 123',
    'an ms part prints a latency with three significant digits or so');
SELECT is(pg_temp.title('[{"number": -0.5}, " ", {"number": 4.567}]'), '-0.500 4.57',
    'a number part prints any value as the axes do');
SELECT is(pg_temp.title('[{"fixed": 12.34, "decimals": 1}, " ", {"fixed": 7, "decimals": 0}]'), '12.3 7',
    'a fixed part prints the decimals it is given');
SELECT is(pg_temp.title('[{"setting": 2.5}, " ", {"setting": 10}]'), '2.5 10',
    'a setting part prints a number as a user would write it');
SELECT is(pg_temp.title('[{"block": 8192}, " ", {"block": 1048576}, " ", {"block": 512}]'), '8 KiB 1 MiB 512 B',
    'a block part prints a block size');
SELECT is(pg_temp.title('["x", 42, "y"]'), 'x42y', 'strings and numbers are parts as they stand');

-- What to_jsonb makes of a float8, and numbers a double cannot hold
SELECT is(pg_temp.title(jsonb_build_array(jsonb_build_object('count', 'NaN'::float8), ' ',
                                          jsonb_build_object('ms', NULL::float8), ' ',
                                          jsonb_build_object('count', 'Infinity'::float8), ' ',
                                          jsonb_build_object('ms', '-Infinity'::float8))),
    'n/a n/a Infinity -Infinity', 'NaN and null print n/a, infinities as Infinity');
SELECT is(pg_temp.title('[{"count": 1e400}, " ", {"count": -1e400}, " ", {"count": 1e308}]'), 'Infinity -Infinity 1e308',
    'a number beyond a double prints as an infinity; 10^15 and up in exponent form');
SELECT ok(length(pg_temp.title('[{"fixed": 1e-16000, "decimals": 20}]')) < 30,
    'a tiny number prints in a few characters');

-- The same format as the axes and labels
CREATE TEMP TABLE labelled AS SELECT ranread_svg(jsonb_build_object(
    'title', jsonb_build_array('peak ', jsonb_build_object('count', 12345.6)),
    'series', jsonb_build_array(jsonb_build_object('x', '[1, 2]'::jsonb, 'y', '[100, 12345.6]'::jsonb,
                                                   'labels', true, 'format', 'count')))) AS svg;
SELECT ok(strpos((SELECT svg FROM labelled), '>12,346</text>') > 0
          AND strpos((SELECT svg FROM labelled), '<title>peak 12,346</title>') > 0,
    'a count part prints a figure as the point labels of a count series print it');

-- Characters by code point
SELECT is(pg_temp.title('["on ", {"char": 8220}, "t", {"char": 8221}, " ", {"char": 183}, " a", {"char": 8211}, "b"]'),
    'on &#x201C;t&#x201D; &#xB7; a&#x2013;b', 'a char part is the character of that code point');
SELECT is(pg_temp.title('[{"char": 65534}]'), '&#xFFFD;', 'a noncharacter becomes U+FFFD, as in any text');

-- Parts wherever a text goes
CREATE TEMP TABLE everywhere AS SELECT ranread_svg(jsonb_build_object(
    'kind', 'bar',
    'subtitle', '["sub ", {"count": 1000}]'::jsonb,
    'categories', '[["cat ", {"block": 4096}]]'::jsonb,
    'x', '{"label": ["x ", {"char": 8322}]}'::jsonb,
    'series', '[{"label": ["s ", {"ms": 2}], "y": [5]}]'::jsonb,
    'lines', '[{"value": 3, "label": ["l ", {"setting": 3}], "legend": ["g ", {"setting": 3}]}]'::jsonb,
    'notes', '[["n ", {"count": 2000}], {"text": ["m ", {"count": 3000}], "style": "bad"}]'::jsonb,
    'table', '{"header": [["h ", {"count": 4000}]], "rows": [[["c ", {"fixed": 1.25, "decimals": 2}]], [{"text": ["d ", {"count": 5000}], "tone": "good"}]], "more": ["r ", {"count": 6000}]}'::jsonb)) AS svg;
SELECT ok(pg_temp.svg_ok((SELECT svg FROM everywhere)), 'parts in every kind of text make a well-formed SVG');
SELECT ok((SELECT bool_and(strpos((SELECT svg FROM everywhere), '>' || t || '</text>') > 0)
             FROM unnest(ARRAY['sub 1,000', 'cat 4 KiB', 'x &#x2082;', 's 2.00', 'l 3', 'g 3', 'n 2,000', 'm 3,000',
                               'h 4,000', 'c 1.25', 'd 5,000', 'r 6,000']) t),
    'subtitle, categories, axis labels, series and legend, lines, notes, header, cells and the line under the table take parts');

-- A reference line without a value
CREATE TEMP TABLE novalue AS SELECT ranread_svg(jsonb_build_object(
    'series', '[{"x": [1, 2], "y": [1, 2]}]'::jsonb,
    'lines', '[{"value": null, "label": "bound ?", "legend": "Bound unknown"}]'::jsonb)) AS svg;
SELECT ok(pg_temp.svg_ok((SELECT svg FROM novalue)) AND strpos((SELECT svg FROM novalue), '>Bound unknown</text>') > 0,
    'a line whose value is null keeps its legend');
SELECT ok((SELECT count(*) FROM regexp_matches((SELECT svg FROM novalue), 'stroke-dasharray="8 5"', 'g')) = 1
          AND strpos((SELECT svg FROM novalue), 'bound ?') = 0,
    'and draws no line (the dashes are its legend''s)');
SELECT throws_ok($$SELECT ranread_svg('{"lines": [{"label": "a"}]}')$$, '22023',
    'invalid lines[0].value in the spec for ranread_svg: missing', 'a line still needs its value key');

-- Bad parts: the part is named
SELECT throws_ok($$SELECT ranread_svg('{"title": ["a", {"cout": 1}]}')$$, '22023',
    'unknown key "cout" in title[1] of the spec for ranread_svg', 'an unknown format is an error that names the part');
SELECT throws_ok($$SELECT ranread_svg('{"notes": [["a", {"count": 1, "ms": 2}]]}')$$, '22023',
    'invalid notes[0][1] in the spec for ranread_svg: more than one format in a part', 'a part has one format');
SELECT throws_ok($$SELECT ranread_svg('{"title": [{}]}')$$, '22023',
    'invalid title[0] in the spec for ranread_svg: a part without a format (count, number, ms, fixed, setting, block or char)',
    'a part without a format is refused');
SELECT throws_ok($$SELECT ranread_svg('{"title": [{"fixed": 1}]}')$$, '22023',
    'invalid title[0] in the spec for ranread_svg: fixed without its decimals', 'fixed needs its decimals');
SELECT throws_ok($$SELECT ranread_svg('{"title": [{"count": 1, "decimals": 1}]}')$$, '22023',
    'invalid title[0] in the spec for ranread_svg: decimals go with fixed only', 'and decimals go with fixed only');
SELECT throws_ok($$SELECT ranread_svg('{"title": [{"char": 55296}]}')$$, '22023',
    'invalid title[0] in the spec for ranread_svg: 55296 is not a Unicode code point (1 to 1114111, not a surrogate)',
    'a surrogate is no character');
SELECT throws_ok($$SELECT ranread_svg('{"title": [{"count": true}]}')$$, '22023',
    'invalid title[0] in the spec for ranread_svg: true is not a number, null, "NaN", "Infinity" or "-Infinity"',
    'a format takes a number');
SELECT throws_ok($$SELECT ranread_svg('{"table": {"header": ["a"], "rows": [[["x", ["y"]]]]}}')$$, '22023',
    'invalid table.rows[0][0][1] in the spec for ranread_svg: an array is not a string, a number or a part such as {"count": 12345}',
    'parts do not nest');
SELECT throws_ok($$SELECT ranread_svg(jsonb_build_object('title', (SELECT jsonb_agg('x'::text) FROM generate_series(1, 101))))$$,
    '22023', 'invalid title in the spec for ranread_svg: a text of 101 parts, at most 100',
    'a text has at most 100 parts');
SELECT throws_ok($$SELECT ranread_svg(jsonb_build_object('title', jsonb_build_array(repeat('x', 9000), repeat('y', 9000))))$$,
    '22023', 'invalid title in the spec for ranread_svg: a text of 18000 characters, at most 10000',
    'and at most 10,000 characters in all');

SELECT * FROM finish();
ROLLBACK;
