-- ranread_svg reads at most 1,000,000 characters of text from one spec,
-- all its texts together (each of them at most 10,000): a spec of many long
-- texts (every category, header and cell at the limit of one text) is
-- refused while it is read, by an error naming the text that passed the
-- limit and the limit, instead of drawing hundreds of megabytes of SVG.
BEGIN;
SET LOCAL client_min_messages = warning;
SELECT plan(6);
\ir lib/util.psql

-- A table of 100 rows of 10 cells of t: 1000 texts
CREATE FUNCTION pg_temp.table_of(t text, nrows integer) RETURNS jsonb LANGUAGE sql AS $$
    SELECT jsonb_build_object('table', jsonb_build_object(
               'header', (SELECT jsonb_agg('h'::text) FROM generate_series(1, 10)),
               'rows', (SELECT jsonb_agg((SELECT jsonb_agg(t) FROM generate_series(1, 10))) FROM generate_series(1, nrows))))
$$;

-- 10 header texts of 1 character and 999,000 characters of cells; then 1,000 more
SELECT ok(pg_temp.svg_ok(ranread_svg(pg_temp.table_of(repeat('x', 999), 100))),
    'a spec of 999,010 characters of text is drawn');
SELECT is(pg_temp.error_of($$SELECT ranread_svg(pg_temp.table_of(repeat('x', 1000), 100))$$),
    '22023: invalid table.rows[99][9] in the spec for ranread_svg: a text that brings the spec''s texts to 1000010 characters, at most 1000000 in all',
    'one of 1,000,010 is refused, naming the text that passed the limit and the limit');
SELECT is(pg_temp.error_of($$SELECT ranread_svg(pg_temp.table_of(repeat('一', 1000), 100))$$),
    '22023: invalid table.rows[99][9] in the spec for ranread_svg: a text that brings the spec''s texts to 1000010 characters, at most 1000000 in all',
    'the limit counts characters, not bytes');
SELECT matches(pg_temp.error_of($$SELECT ranread_svg(pg_temp.table_of(repeat('x', 999), 100)
                                      || jsonb_build_object('title', jsonb_build_array(repeat('y', 495), repeat('y', 496))))$$),
    '^22023: invalid (title|table\.rows\[99\]\[9\]) in the spec for ranread_svg: a text that brings the spec''s texts to 1000001 characters, at most 1000000 in all$',
    'a text of parts counts as the text it makes');

-- Many texts of the limit of one text each: the spec of the review, refused
-- as it is read, before anything is drawn
CREATE TEMP TABLE big AS
SELECT jsonb_build_object('kind', 'bar', 'title', repeat('一', 10000),
           'categories', (SELECT jsonb_agg(repeat('一', 10000)) FROM generate_series(1, 200)),
           'series', jsonb_build_array(jsonb_build_object('label', repeat('一', 10000), 'y', (SELECT jsonb_agg(g) FROM generate_series(1, 200) g))),
           'table', jsonb_build_object('header', (SELECT jsonb_agg(repeat('一', 10000)) FROM generate_series(1, 16)),
               'rows', (SELECT jsonb_agg((SELECT jsonb_agg(repeat('一', 10000)) FROM generate_series(1, 16))) FROM generate_series(1, 500)))) AS s;
SELECT matches(pg_temp.error_of($$SELECT ranread_svg(s) FROM big$$),
    '^22023: invalid categories\[99\] in the spec for ranread_svg: a text that brings the spec''s texts to 1010000 characters, at most 1000000 in all$',
    'a bar chart of 200 categories of 10,000 characters, a 16-column header and 500 rows of such cells is refused at its hundredth category (the title counted)');
SELECT ok(pg_temp.svg_ok(ranread_svg(jsonb_build_object('title', repeat('一', 10000),
              'notes', (SELECT jsonb_agg(repeat('一', 10000)) FROM generate_series(1, 32))))),
    'while a spec of 33 texts of 10,000 characters each is drawn');

SELECT * FROM finish();
ROLLBACK;
