-- ranread_study end to end on a small target with short points: the grid's
-- points run as batches of the study, carrying its id and their
-- coordinates; the study's row keeps the definition and the exact call;
-- pivots, summary, early end, the matrix's groups, charts and exports.
BEGIN;
SET LOCAL client_min_messages = warning;
SELECT plan(49);

SELECT lives_ok($$SELECT ranread_setup('64MB')$$, 'a small target');

-- A 2 x 3 grid: write_pct x processes
CREATE TEMP TABLE s1 AS
SELECT * FROM ranread_study(processes => '{1,2,3}', write_pct => '{0,50}', duration => '0.3s', seed => 7);
CREATE TEMP TABLE id1 AS SELECT min(study) AS id FROM s1;

SELECT is((SELECT count(*)::integer FROM s1 WHERE status = 'completed'), 6, 'every point of a 2 x 3 grid runs and completes');
SELECT results_eq($$SELECT point - 'n' FROM s1 ORDER BY n$$,
    $$VALUES ('{"processes": 1, "write_pct": 0}'::jsonb), ('{"processes": 2, "write_pct": 0}'), ('{"processes": 3, "write_pct": 0}'),
             ('{"processes": 1, "write_pct": 50}'), ('{"processes": 2, "write_pct": 50}'), ('{"processes": 3, "write_pct": 50}')$$,
    'the points run row by row, the load innermost');
SELECT results_eq($$SELECT b.study, b.point, b.processes, b.write_pct FROM ranread_batches b JOIN s1 USING (batch) ORDER BY s1.n$$,
    $$SELECT s1.study, s1.point, (s1.point ->> 'processes')::integer, (s1.point ->> 'write_pct')::integer FROM s1 ORDER BY s1.n$$,
    'each point''s batch carries the study id and the point''s coordinates, and ran them');
SELECT results_eq($$SELECT s1.row_label, s1.column_label FROM s1 ORDER BY n$$,
    $$VALUES ('0% writes', '1'), ('0% writes', '2'), ('0% writes', '3'), ('50% writes', '1'), ('50% writes', '2'), ('50% writes', '3')$$,
    'rows are write percentages, columns processes');
SELECT is((SELECT row(kind, planned, completed, skipped, max_avg_ms)::text FROM ranread_studies WHERE study = (SELECT id FROM id1)),
    '(study,6,6,0,10)', 'the study is recorded: what it planned and did, its bound');
SELECT is((SELECT call FROM ranread_studies WHERE study = (SELECT id FROM id1)),
    'SELECT * FROM ranread_study(processes => ''{1,2,3}'', write_pct => ''{0,50}'', duration => ''00:00:00.3'', warmup => ''00:00:00'', max_avg_ms => ''10'', early_end => ''false'', target => ''ranread'', small_size => ''8192'', large_size => ''1048576'', large_pattern => ''random'', seed => ''7'', verify => ''false'');',
    'the exact call is recorded, every value spelled out');
SELECT is((SELECT definition -> 'dimensions' FROM ranread_studies WHERE study = (SELECT id FROM id1)),
    '{"processes": [1, 2, 3], "write_pct": [0, 50]}', 'the definition keeps the dimensions');
SELECT is((SELECT row(status, points, completed)::text FROM ranread_study_overview WHERE study = (SELECT id FROM id1)),
    '(finished,6,6)', 'the overview has the study');

-- Pivots
SELECT results_eq($$SELECT row_label, column_labels, cells FROM ranread_study_grid((SELECT id FROM id1))$$,
    $$SELECT s1.row_label, array_agg(s1.column_label ORDER BY s1.n), array_agg(round(b.iops::numeric) ORDER BY s1.n)
        FROM s1 JOIN ranread_batches b USING (batch) GROUP BY s1.row_label ORDER BY min(s1.n)$$,
    'the IOPS grid has the batches'' IOPS in their cells, whole');
SELECT results_eq($$SELECT cells FROM ranread_study_grid((SELECT id FROM id1), 'p99_ms')$$,
    $$SELECT array_agg(round(b.p99_ms::numeric, 3) ORDER BY s1.n) FROM s1 JOIN ranread_batches b USING (batch) GROUP BY s1.row_label ORDER BY min(s1.n)$$,
    'so does the p99 grid, in ms to 0.001');
SELECT results_eq($$SELECT row_label, column_labels FROM ranread_study_grid((SELECT id FROM id1), 'iops', 'write_pct')$$,
    $$VALUES ('1 process', '{0,50}'::text[]), ('2 processes', '{0,50}'), ('3 processes', '{0,50}')$$,
    'the grid pivots on the dimension asked for');
SELECT is((SELECT row(value, batch)::text FROM ranread_study_summary((SELECT id FROM id1)) WHERE item = 'Maximum IOPS'),
    (SELECT row(iops, batch)::text FROM s1 ORDER BY iops DESC LIMIT 1), 'the summary gives the maximum IOPS and its batch');
SELECT matches((SELECT line FROM ranread_study_summary((SELECT id FROM id1)) WHERE item = 'Minimum Latency'),
    '^Minimum Latency=[0-9.]+ usecs @ processes=[123], write_pct=(0|50)$', 'summary lines read as ORION''s');
SELECT is((SELECT row(value, batch)::text FROM ranread_study_summary((SELECT id FROM id1), 1e9)
             WHERE item = 'Maximum IOPS within 1000000000 ms'),
    (SELECT row(iops, batch)::text FROM s1 ORDER BY iops DESC LIMIT 1),
    'the summary gives the maximum IOPS of the points within the bound and its batch');
SELECT is((SELECT line FROM ranread_study_summary((SELECT id FROM id1), 1e-9) WHERE item ~ 'within'),
    'Maximum IOPS within 1e-09 ms: none', 'with no point within the bound, the summary says none');
SELECT throws_ok($$SELECT * FROM ranread_study_summary((SELECT id FROM id1), 0)$$, '22023',
    'invalid max_avg_ms 0 for ranread_study_summary', 'the summary refuses a bound of 0');
SELECT is((SELECT count(*)::integer FROM ranread_study_points WHERE study = (SELECT id FROM id1)), 6,
    'ranread_study_points has every point');

-- Early end: two points in a row above the bound end the row
CREATE TEMP TABLE s2 AS
SELECT * FROM ranread_study(processes => '{1,2,3,4}', duration => '0.3s', max_avg_ms => 0.000001, early_end => true);
SELECT results_eq($$SELECT n, status FROM s2 ORDER BY n$$,
    $$VALUES (1, 'completed'), (2, 'completed'), (3, 'skipped'), (4, 'skipped')$$,
    'once two points in a row are above the bound, the rest of the row is skipped');
SELECT is((SELECT row(completed, skipped)::text FROM ranread_studies WHERE study = (SELECT min(study) FROM s2)), '(2,2)',
    'the study records the skipped points');
SELECT matches((SELECT stop_reason FROM ranread_studies WHERE study = (SELECT min(study) FROM s2)), '^early_end: 2 points skipped',
    'and says why');
SELECT is((SELECT line FROM ranread_study_summary((SELECT min(study) FROM s2)) WHERE item ~ 'within'),
    'Maximum IOPS within 1e-06 ms: none', 'with no bound given, the summary uses the study''s');

-- A matrix: ORION's small and large groups, pivoted as ORION does
CREATE TEMP TABLE s3 AS
SELECT * FROM ranread_study(small => '{0,1,2}', large => '{0,1}', matrix => 'detailed', duration => '0.3s');
SELECT results_eq($$SELECT point ->> 'small', point ->> 'large' FROM s3 ORDER BY n$$,
    $$VALUES ('1', '0'), ('2', '0'), ('0', '1'), ('1', '1'), ('2', '1')$$, 'the detailed matrix runs its five points');
SELECT results_eq($$SELECT g.label, g.processes, g.block_size, g.pattern FROM ranread_groups g
                     WHERE g.batch = (SELECT batch FROM s3 WHERE n = 4) ORDER BY g.grp$$,
    $$VALUES ('small'::text, 1, 8192, 'random'::text), ('large', 1, 1048576, 'random')$$,
    'a matrix point is a mix of small 8 KiB random I/O and large 1 MiB I/O');
SELECT results_eq($$SELECT row_label, column_labels FROM ranread_study_grid((SELECT min(study) FROM s3))$$,
    $$VALUES ('large 0', '{0,1,2}'::text[]), ('large 1', '{0,1,2}')$$, 'rows are large loads, columns small loads');
SELECT is((SELECT cells[2] FROM ranread_study_grid((SELECT min(study) FROM s3)) WHERE row_label = 'large 1'),
    (SELECT round(g.iops::numeric) FROM ranread_groups g WHERE g.batch = (SELECT batch FROM s3 WHERE n = 4) AND g.label = 'small'),
    'the IOPS of a matrix are the small I/O''s');
SELECT is((SELECT cells[1] FROM ranread_study_grid((SELECT min(study) FROM s3), 'mbps') WHERE row_label = 'large 1'),
    (SELECT round(g.mbps::numeric, 1) FROM ranread_groups g WHERE g.batch = (SELECT batch FROM s3 WHERE n = 3) AND g.label = 'large'),
    'its MiB/s the large I/O''s');
SELECT results_eq($$SELECT item FROM ranread_study_summary((SELECT min(study) FROM s3))$$,
    $$VALUES ('Maximum Large MBPS'), ('Maximum Small IOPS'), ('Minimum Small Latency')$$, 'the summary of a matrix is ORION''s');

-- Charts
SELECT ok(xml_is_well_formed_document(ranread_study_chart((SELECT id FROM id1))), 'the study chart is a well-formed SVG');
SELECT ok(ranread_study_chart((SELECT id FROM id1)) ~ '50% writes' AND ranread_study_chart((SELECT id FROM id1)) ~ 'IOPS at 10 ms',
    'it has a curve per row and the table of IOPS at the bound');
SELECT throws_ok($$SELECT ranread_study_chart((SELECT id FROM id1), max_avg_ms => 'NaN')$$, '22023',
    'invalid max_avg_ms NaN for ranread_study_chart', 'the chart refuses a bound that is not a number');
SELECT ok(ranread_study_chart((SELECT id FROM id1), max_avg_ms => 3) ~ 'IOPS at 3 ms', 'the chart draws the bound given');
SELECT ok(xml_is_well_formed_document(ranread_study_heat((SELECT min(study) FROM s3), 'iops')), 'the heat table is a well-formed SVG');
SELECT ok(xml_is_well_formed_document(ranread_compare_chart(studies => ARRAY[(SELECT id FROM id1), (SELECT min(study) FROM s2)],
                                                            latency => 'p99', labels => '{"before <&>", "after"}')),
    'a chart comparing two studies is a well-formed SVG');

-- The report and the exports
SELECT ok(ranread_report((SELECT id FROM id1)) ~ '^<!DOCTYPE html>' AND ranread_report((SELECT id FROM id1)) !~* '<script|<link|src=|https?://[a-z]+\.(com|org|net)',
    'the report is one HTML page with no script and nothing external');
SELECT ok(position((SELECT ranread_internal.ranread_html(call) FROM ranread_studies WHERE study = (SELECT id FROM id1))
                   IN ranread_report((SELECT id FROM id1))) > 0, 'it gives the exact call');
CREATE TEMP TABLE files AS
SELECT f FROM ranread_export_study('/tmp', (SELECT min(study) FROM s3), 'csv') f;
SELECT matches((SELECT string_agg(regexp_replace(f, '^.*_', ''), ' ' ORDER BY f) FROM files),
    '^iops.csv lat.csv mbps.csv summary.txt$', 'a study exports as ORION''s files: a csv grid per metric and the summary');
SELECT is((SELECT split_part(pg_read_file(f), E'\r\n', 1) FROM files WHERE f LIKE '%_iops.csv'), 'Large/Small: IOPS,0,1,2',
    'the csv grid has the small loads across, under ORION''s Large/Small and the unit');
SELECT is((SELECT split_part(split_part(pg_read_file(f), E'\r\n', 3), ',', 1) FROM files WHERE f LIKE '%_lat.csv'), '1',
    'its rows are named by the large load, as ORION names them ("1", not "large 1")');
SELECT is((SELECT split_part(pg_read_file(f), E'\r\n', 1) FROM files WHERE f LIKE '%_lat.csv'),
    'Large/Small: Average latency (ms),0,1,2', '_lat.csv says its latency is in ms');
SELECT matches((SELECT pg_read_file(f) FROM files WHERE f LIKE '%_summary.txt'),
    E'^ranread [0-9.]+, study [0-9]+\n\nCommand line:\n.*\nSmall IO size: 8 KB\n.*\nSmall Columns:, +0, +1, +2\nLarge Columns:, +0, +1\nTotal Data Points: 5\n.*\nUnits: .*full precision; below, latency in usecs .*\nMaximum Large MBPS',
    '_summary.txt opens as ORION''s: the call, the settings and loads, the units, then the summary');
SELECT is((SELECT (pg_read_file(f)::jsonb ->> 'study')::bigint FROM ranread_export_study('/tmp', (SELECT id FROM id1), 'json') f),
    (SELECT id FROM id1), 'the json export is one JSON document of the study');

-- Readers of the history (pg_monitor) read studies, draw them and write
-- the report to the client, but run none
CREATE ROLE tap_study_monitor IN ROLE pg_monitor;
GRANT SELECT ON id1 TO tap_study_monitor;
SET LOCAL ROLE tap_study_monitor;
SELECT is((SELECT count(*)::integer FROM ranread_study_grid((SELECT id FROM id1))), 2, 'a member of pg_monitor reads a study''s grid');
SELECT ok(xml_is_well_formed_document(ranread_study_chart((SELECT id FROM id1))), '... draws its chart');
SELECT ok(ranread_report((SELECT id FROM id1)) ~ 'needs SELECT on ranread_target_catalog', '... and reads its report, without the targets'' files');
SELECT throws_ok($$SELECT * FROM ranread_study()$$, '42501', NULL, '... but runs no study');
RESET ROLE;

-- A study of more rows than a chart draws curves (12): its chart draws 12
-- of them, evenly spaced, the first and the last among them, and says so;
-- the report, which draws it, still works (a study of 21 rows broke
-- ranread_report() for everyone, found by the fuzz)
CREATE TEMP TABLE wide AS
SELECT study FROM ranread_study(processes => '{1,2}', write_pct => '{0,8,16,24,32,40,48,56,64,72,80,88,96}',
                                duration => '0.05s', warmup => '0') LIMIT 1;
SELECT ok(xml_is_well_formed_document(ranread_study_chart((SELECT study FROM wide)))
          AND ranread_study_chart((SELECT study FROM wide)) ~ '<title>[^<]*along processes \(12 of 13 rows, evenly spaced\)',
    'a study of 13 rows: its chart draws 12 of them, and its title says so');
SELECT ok(ranread_study_chart((SELECT study FROM wide)) ~ '>0% writes' AND ranread_study_chart((SELECT study FROM wide)) ~ '>96% writes'
          AND ranread_study_chart((SELECT study FROM wide)) !~ '>48% writes',
    '... the first and the last among them, the middle one left out');
SELECT ok(length(ranread_report()) > 0 AND length(ranread_report((SELECT study FROM wide))) > 0,
    '... and the report, which draws it, still works');

SELECT * FROM finish();
ROLLBACK;
