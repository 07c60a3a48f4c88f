-- The rules of a study, on known inputs (no I/O): which points ORION's
-- matrix modes select, how a grid is laid out, when a row ends early, the
-- axes a study is pivoted on, and where a curve crosses the latency bound.
BEGIN;
SELECT plan(40);

CREATE FUNCTION pg_temp.pairs(mode text, small integer[], large integer[],
                              num_small integer DEFAULT NULL, num_large integer DEFAULT NULL)
RETURNS text LANGUAGE sql AS $$
    SELECT string_agg(format('%s/%s', m.small_load, m.large_load), ' ')
      FROM ranread_internal.ranread_study_matrix(mode, small, large, num_small, num_large) m
$$;

-- ranread_study_matrix: the points, as small/large, row by row (large load)
SELECT is(pg_temp.pairs('basic', '{1,2,3}', '{0,1,2}'), '1/0 2/0 3/0 0/1 0/2',
    'basic: the small loads alone, then the large loads alone, never 0/0');
SELECT is(pg_temp.pairs('basic', '{1,2}', NULL), '1/0 2/0',
    'basic with small loads only is their row');
SELECT is(pg_temp.pairs('basic', NULL, '{1,2}'), '0/1 0/2',
    'basic with large loads only is their column');
SELECT is(pg_temp.pairs('detailed', '{0,1,2}', '{0,1}'), '1/0 2/0 0/1 1/1 2/1',
    'detailed: every combination but 0/0, row by row');
SELECT is(pg_temp.pairs('row', '{1,2,3}', '{0,1}'), '1/0 2/0 3/0',
    'row: the small loads at large 0 by default');
SELECT is(pg_temp.pairs('row', '{1,2,3}', '{0,1}', NULL, 1), '1/1 2/1 3/1',
    'row: at large = num_large when given');
SELECT is(pg_temp.pairs('col', '{1,2}', '{1,2,4}'), '0/1 0/2 0/4',
    'col: the large loads at small 0 by default');
SELECT is(pg_temp.pairs('col', '{1,2}', '{1,2,4}', 2), '2/1 2/2 2/4',
    'col: at small = num_small when given');
SELECT is(pg_temp.pairs('point', NULL, NULL, 3, 1), '3/1',
    'point: the one point (num_small, num_large)');
SELECT is(pg_temp.pairs('max', '{1,2,3}', '{0,1,2}'), '3/0 3/1 1/2 2/2 3/2',
    'max: the small loads at the largest large load, the large loads at the largest small load');
SELECT is(pg_temp.pairs('max', '{1,2,3}', '{0,1,2}', 2, 1), '2/0 1/1 2/1 3/1 2/2',
    'max: num_small and num_large replace the largest loads');
SELECT is(pg_temp.pairs('detailed', '{0}', '{0}'), NULL,
    'a matrix of zero loads selects nothing');
SELECT throws_ok($$SELECT * FROM ranread_internal.ranread_study_matrix('detailed', '{1,2}', NULL)$$, '22023',
    'matrix detailed of ranread_study needs both small and large loads',
    'a mode that needs a mix without one is refused, naming what it lacks');
SELECT throws_ok($$SELECT * FROM ranread_internal.ranread_study_matrix('point', '{1}', '{1}', 1)$$, '22023',
    'matrix point of ranread_study needs num_small and num_large',
    'point needs both loads fixed');
SELECT throws_ok($$SELECT * FROM ranread_internal.ranread_study_matrix('row', '{1}', '{1}', 1)$$, '22023',
    'num_small does not apply to matrix row of ranread_study',
    'num_small is refused where the mode does not use it');
SELECT throws_ok($$SELECT * FROM ranread_internal.ranread_study_matrix('diagonal', '{1}', '{1}')$$, '22023',
    'invalid matrix ''diagonal'' for ranread_study',
    'an unknown mode is refused');

-- ranread_study_grid_points: the product, outermost first, load innermost
SELECT is((SELECT string_agg(point::text, ' ' ORDER BY n)
             FROM ranread_internal.ranread_study_grid_points('{"write_pct": [0, 10], "processes": [1, 2]}')),
          '{"processes": 1, "write_pct": 0} {"processes": 2, "write_pct": 0} {"processes": 1, "write_pct": 10} {"processes": 2, "write_pct": 10}',
          'a grid runs the load (processes) innermost, the other dimensions outside it');
SELECT is((SELECT count(*)::integer FROM ranread_internal.ranread_study_grid_points(
              '{"region": ["0-100", "0-40"], "block_size": [8192, 65536], "queue_depth": [1, 8], "processes": [1, 2, 4]}')),
          24, 'the grid is the product of its dimensions');
SELECT is((SELECT (array_agg(point ->> 'region' ORDER BY n))[1:3]
             FROM ranread_internal.ranread_study_grid_points('{"region": ["0-100", "0-40"], "processes": [1, 2]}')),
          ARRAY['0-100', '0-100', '0-40'], 'values keep the order they were given in');
SELECT is((SELECT string_agg(format('%s/%s:%s', point ->> 'small', point ->> 'large', point ->> 'write_pct'), ' ' ORDER BY n)
             FROM ranread_internal.ranread_study_grid_points('{"write_pct": [0, 20], "small": [1, 2], "large": [0, 1]}', 'basic')),
          '1/0:0 2/0:0 0/1:0 1/0:20 2/0:20 0/1:20',
          'a matrix is the innermost dimension, repeated for each value of the others');

-- ranread_study_row_ended: two points in a row above the bound
SELECT is(ranread_internal.ranread_study_row_ended('{1, 2}', 10), false, 'a row within the bound goes on');
SELECT is(ranread_internal.ranread_study_row_ended('{1, 12}', 10), false, 'one point above the bound is not enough');
SELECT is(ranread_internal.ranread_study_row_ended('{11, 9}', 10), false, 'above then back within goes on');
SELECT is(ranread_internal.ranread_study_row_ended('{1, 11, 12}', 10), true, 'two points in a row above the bound end the row');
SELECT is(ranread_internal.ranread_study_row_ended('{10, 10}', 10), false, 'exactly at the bound is within it');
SELECT is(ranread_internal.ranread_study_row_ended('{NULL, NULL}', 10), false, 'unmeasured latency never ends a row');

-- ranread_study_axes: columns and rows from the points
SELECT is((SELECT row(column_dim, row_dims)::text FROM ranread_internal.ranread_study_axes(ARRAY(
              SELECT point FROM ranread_internal.ranread_study_grid_points('{"write_pct": [0, 10], "processes": [1, 2]}')))),
          '(processes,{write_pct})', 'processes run along the columns, write_pct makes the rows');
SELECT is((SELECT row(column_dim, row_dims)::text FROM ranread_internal.ranread_study_axes(ARRAY(
              SELECT point FROM ranread_internal.ranread_study_grid_points('{"small": [1, 2], "large": [0]}', 'row')))),
          '(small,{large})', 'a matrix is pivoted as ORION does: small loads across, large loads down, even when only one varies');
SELECT is((SELECT row(column_dim, row_dims)::text FROM ranread_internal.ranread_study_axes(ARRAY(
              SELECT point FROM ranread_internal.ranread_study_grid_points('{"block_size": [8192, 65536], "queue_depth": [1, 8], "processes": [4]}')))),
          '(queue_depth,{block_size})', 'a dimension that does not vary is no axis');
SELECT is((SELECT row(column_dim, row_dims)::text FROM ranread_internal.ranread_study_axes(ARRAY(
              SELECT point FROM ranread_internal.ranread_study_grid_points('{"block_size": [8192, 65536], "queue_depth": [1, 8]}')), 'block_size')),
          '(block_size,{queue_depth})', 'columns as asked for');
SELECT throws_ok($$SELECT * FROM ranread_internal.ranread_study_axes(ARRAY['{"processes": 1}', '{"processes": 2}']::jsonb[], 'colour')$$,
    '22023', 'unknown dimension "colour" for columns of ranread_study_grid',
    'an unknown dimension is refused, naming it');
SELECT is(ranread_internal.ranread_study_row_label('{"write_pct": 20, "block_size": 65536, "processes": 4}', '{block_size,write_pct}'),
          '64 KiB, 20% writes', 'a row label says its values as a legend does');

-- ranread_iops_at_bound: the ORION +55% reading
SELECT is((SELECT row(iops_at_bound, how)::text FROM ranread_internal.ranread_iops_at_bound('{1000, 2000, 3000, 4000}', '{2, 5, 9, 14}', 10)),
          '(3200,crossed)', 'the bound is read between the last point within it and the first above (9 ms at 3000, 14 ms at 4000: 3200 at 10 ms)');
SELECT is((SELECT row(iops_at_bound, how)::text FROM ranread_internal.ranread_iops_at_bound('{1000, 2000}', '{2, 10}', 10)),
          '(2000,within)', 'a point exactly at the bound is within it');
SELECT is((SELECT row(iops_at_bound, how)::text FROM ranread_internal.ranread_iops_at_bound('{1000, 2000, 1800}', '{2, 5, 8}', 10)),
          '(2000,within)', 'a curve that never crosses gives its highest IOPS, as a lower bound');
SELECT is((SELECT row(iops_at_bound, how)::text FROM ranread_internal.ranread_iops_at_bound('{1000, 2000}', '{12, 15}', 10)),
          '(,above)', 'a curve above the bound from its first point has no IOPS at the bound');
SELECT is((SELECT row(iops_at_bound, how)::text FROM ranread_internal.ranread_iops_at_bound('{1000, NULL, 3000}', '{5, 8, 15}', 10)),
          '(2000,crossed)', 'points with a NULL are left out (5 ms at 1000, 15 ms at 3000)');
SELECT is((SELECT t -> 'rows' -> 1 -> 2 ->> 'text'
             FROM (SELECT ranread_internal.ranread_curves_spec('t', 's',
                     '[{"label": "whole disk", "x": [1000, 2900, 3500], "y": [3, 10, 14]},
                       {"label": "outer 40%", "x": [1500, 4500, 5000], "y": [2, 10, 12]}]', 'Average', 10) -> 'table' AS t) x),
          '+55%', 'the table gives each curve''s gain at the bound against the first (2900 -> 4500: +55%)');
SELECT is((SELECT s -> 'lines' -> 0 ->> 'value'
             FROM (SELECT ranread_internal.ranread_curves_spec('t', 's', '[{"label": "a", "x": [1], "y": [1]}]', 'p99', 2.5) AS s) x),
          '2.5', 'the bound is drawn as a line');
SELECT ok(ranread_svg(ranread_internal.ranread_curves_spec(E'<&"''> \u00e9', 's', '[{"label": "<&>", "x": [1, 2], "y": [1, 3]}]', 'Average', 2))
            ~ '^<\?xml', 'the spec is one ranread_svg draws, names with <&"'' included');

SELECT * FROM finish();
ROLLBACK;
