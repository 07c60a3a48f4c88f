-- The size of a study's grid, known before it is built, and its values in
-- one spelling:
--  - ranread_study_matrix_count gives as many points as ranread_study_matrix
--    lists, for every mode, with and without zero loads
--  - a grid far past the 1000-point limit is refused at once (it used to be
--    built whole, twice, before the limit was checked: a backend grew to
--    gigabytes), matrices included
--  - region, pattern and distribution values that differ only in spelling
--    are the same point: a study refuses them as a repeat, naming both
--    spellings, and runs each value in one spelling
BEGIN;
SET client_min_messages = error;
SELECT plan(20);

\ir lib/util.psql

-- the count against the list
CREATE TEMP TABLE combos (mode text, small integer[], large integer[], num_small integer, num_large integer);
INSERT INTO combos VALUES
    ('basic', '{1,2,4}', '{0,1,2}', NULL, NULL), ('basic', '{0,1}', NULL, NULL, NULL),
    ('basic', NULL, '{0}', NULL, NULL), ('basic', '{0,3}', '{0,5}', NULL, NULL),
    ('detailed', '{0,1,2}', '{0,1}', NULL, NULL), ('detailed', '{1,2}', '{1,2,3}', NULL, NULL),
    ('detailed', '{0}', '{0}', NULL, NULL),
    ('row', '{0,1,2}', NULL, NULL, NULL), ('row', '{0,1,2}', '{4}', NULL, 3), ('row', '{1}', NULL, NULL, 0),
    ('col', NULL, '{0,2}', NULL, NULL), ('col', '{1}', '{0,2}', 1, NULL),
    ('point', NULL, NULL, 0, 0), ('point', NULL, NULL, 2, 0),
    ('max', '{0,1,4}', '{0,2}', NULL, NULL), ('max', '{1,4}', '{2,3}', 2, NULL),
    ('max', '{0}', '{0}', NULL, NULL), ('max', '{0,1}', '{0,3}', 0, 0), ('max', '{3,1}', '{5}', 9, 9);
SELECT is((SELECT count(*) FROM combos
            WHERE ranread_internal.ranread_study_matrix_count(mode, small, large, num_small, num_large)
                  IS DISTINCT FROM (SELECT count(*) FROM ranread_internal.ranread_study_matrix(mode, small, large, num_small, num_large))),
    0::bigint, 'ranread_study_matrix_count counts the points ranread_study_matrix lists, in every mode');
SELECT throws_ok($$SELECT ranread_internal.ranread_study_matrix_count('diagonal', '{1}', '{1}')$$, '22023', NULL,
    'ranread_study_matrix_count checks the mode as ranread_study_matrix does');

-- a grid past the limit, refused at once
SET LOCAL statement_timeout = '10s';
CREATE TEMP TABLE t0 AS SELECT clock_timestamp() AS t;
SELECT is(pg_temp.error_of($$SELECT * FROM ranread_study(processes => ARRAY(SELECT generate_series(1, 2048)),
                                                          write_pct => ARRAY(SELECT generate_series(0, 100)),
                                                          queue_depth => ARRAY(SELECT generate_series(1, 1024)),
                                                          block_size => '{4096,8192,16384,65536}')$$),
    '54000: ranread_study would run 847249408 points, more than 1000',
    'a grid of 847 million points is refused, counted exactly');
SELECT ok((SELECT clock_timestamp() - t < interval '2 s' FROM t0), '... within 2 seconds, without building it');
CREATE TEMP TABLE t1 AS SELECT clock_timestamp() AS t;
SELECT is(pg_temp.error_of($$SELECT * FROM ranread_study(small => ARRAY(SELECT generate_series(0, 2048)),
                                                          large => ARRAY(SELECT generate_series(0, 2048)),
                                                          matrix => 'detailed', write_pct => '{0,50}')$$),
    '54000: ranread_study would run 8396800 points, more than 1000',
    'a detailed matrix of 2049 x 2049 loads is refused, counted exactly');
SELECT ok((SELECT clock_timestamp() - t < interval '2 s' FROM t1), '... within 2 seconds');
SELECT is(pg_temp.error_of($$SELECT * FROM ranread_study(processes => '{1,2,3,4,5,6,7,8,9,10}', write_pct => ARRAY(SELECT generate_series(0, 100)))$$),
    '54000: ranread_study would run 1010 points, more than 1000', 'a grid just past the limit is refused too');
RESET statement_timeout;

-- one spelling per value
SELECT is(ranread_internal.ranread_study_normalize('region', ' 0 - 100.0 % '), '0-100', 'a region is written START-END, numbers plainly');
SELECT is(ranread_internal.ranread_study_normalize('region', '12.50-40'), '12.5-40', '... trailing zeros dropped');
SELECT is(ranread_internal.ranread_study_normalize('pattern', 'RANDOM'), 'random', 'a pattern is lower case');
SELECT is(ranread_internal.ranread_study_normalize('distribution', 'ZIPF:1.20'), 'zipf:1.2', 'a distribution is lower case with its number plain');
SELECT is(ranread_internal.ranread_study_normalize('distribution', 'hotset:95.0/5'), 'hotset:95/5', '... both numbers of a hot set');
SELECT is(ranread_internal.ranread_study_normalize('distribution', 'zipf:1.2000001'), 'zipf:1.2000001', '... without rounding one value onto another');
SELECT is(ranread_internal.ranread_study_normalize('distribution', 'zipf:x'), 'zipf:x', 'a value in no known spelling is left for the checks to refuse');

SELECT is(pg_temp.error_of($$SELECT * FROM ranread_study(region => '{0-100,0-100.0}')$$),
    '22023: region of ranread_study repeats ''0-100'': ''0-100'' and ''0-100.0'' are the same region',
    'regions that differ only in spelling are refused as a repeat, naming both');
SELECT is(pg_temp.error_of($$SELECT * FROM ranread_study(pattern => '{random,RANDOM}')$$),
    '22023: pattern of ranread_study repeats ''random'': ''RANDOM'' and ''random'' are the same pattern',
    'patterns that differ only in case too');
SELECT is(pg_temp.error_of($$SELECT * FROM ranread_study(distribution => '{zipf:1.2,zipf:1.20}')$$),
    '22023: distribution of ranread_study repeats ''zipf:1.2'': ''zipf:1.2'' and ''zipf:1.20'' are the same distribution',
    'distributions that differ only in how a number is written too');

SELECT ok((SELECT size_bytes = 16777216 FROM ranread_setup('16MB', target => 'tap_grid')), 'a 16MB target');
CREATE TEMP TABLE st AS
SELECT * FROM ranread_study(region => '{0-100.0}', distribution => '{ZIPF:1.20}', pattern => '{RANDOM}',
                            duration => '0.1s', target => 'tap_grid');
SELECT is((SELECT point - 'n' FROM st), '{"region": "0-100", "pattern": "random", "processes": 1, "distribution": "zipf:1.2"}'::jsonb,
    'a study runs its point with every value in one spelling');
SELECT is((SELECT distribution FROM ranread_summary_full WHERE batch = (SELECT batch FROM st)), 'zipf:1.2',
    '... and the batch ran that distribution');

SELECT * FROM finish();
ROLLBACK;
