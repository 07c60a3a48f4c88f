-- Bad input to studies and profiles: a clear error that names the argument,
-- the value and what is allowed, before any I/O (no batch is recorded).
BEGIN;
SET LOCAL client_min_messages = warning;
SELECT plan(34);

SELECT lives_ok($$SELECT ranread_setup('64MB', target => 'ranread')$$, 'a small target');
CREATE TEMP TABLE before AS SELECT count(*) AS n FROM ranread_batches;

-- Dimensions
SELECT throws_ok($$SELECT * FROM ranread_study(processes => '{}')$$, '22023',
    'invalid processes {} for ranread_study: an empty array', 'an empty dimension is refused');
SELECT throws_ok($$SELECT * FROM ranread_study(processes => '{1,NULL}')$$, '22004',
    'processes of ranread_study must not contain NULL: element 2 is', 'a NULL value in a dimension is refused');
SELECT throws_ok($$SELECT * FROM ranread_study(processes => '{0}')$$, '22023',
    'invalid processes 0 for ranread_study', 'processes below 1 are refused');
SELECT throws_ok($$SELECT * FROM ranread_study(processes => '{1,2,1}')$$, '22023',
    'processes of ranread_study repeats 1', 'a repeated value is refused');
SELECT throws_ok($$SELECT * FROM ranread_study(write_pct => '{0,101}')$$, '22023',
    'invalid write_pct 101 for ranread_study', 'write_pct above 100 is refused');
SELECT throws_ok($$SELECT * FROM ranread_study(queue_depth => '{1,100000}')$$, '22023',
    'invalid queue_depth 100000 for ranread_study', 'a queue depth over the limit is refused');
SELECT throws_ok($$SELECT * FROM ranread_study(region => '{0-100,50-40}')$$, '22023',
    'invalid region ''50-40'' for ranread_study', 'a region that is not START-END is refused');
SELECT throws_ok($$SELECT * FROM ranread_study(region => '{}')$$, '22023',
    'invalid region {} for ranread_study: an empty array', 'an empty text dimension is refused');
SELECT throws_ok($$SELECT * FROM ranread_study(pattern => '{random,zigzag}')$$, '22023',
    'unknown pattern "zigzag" for ranread_study', 'an unknown pattern is refused, naming ranread_study');
SELECT throws_ok($$SELECT * FROM ranread_study(distribution => '{uniform,lognormal}')$$, '22023',
    NULL, 'a bad distribution is refused');
SELECT throws_ok($$SELECT * FROM ranread_study(block_size => '{8192,1000}')$$, '22023',
    NULL, 'a block size that is not a multiple of the alignment is refused');
SELECT throws_ok($$SELECT * FROM ranread_study(block_size => '{4096}', write_pct => '{0,10}')$$, '22023',
    'the point {"processes": 1, "write_pct": 10, "block_size": 4096} of ranread_study writes blocks smaller than a page',
    'writes of less than a page are refused before the first point runs');
SELECT throws_ok($$SELECT * FROM ranread_study(target => 'no_such_target')$$, '42704',
    'ranread target "no_such_target" does not exist', 'an unknown target is refused');
SELECT throws_ok($$SELECT * FROM ranread_study(processes => (SELECT array_agg(p) FROM generate_series(1, 101) p),
                                               write_pct => '{0,10,20,30,40,50,60,70,80,90}')$$, '54000',
    'ranread_study would run 1010 points, more than 1000', 'a grid over the point limit is refused');
SELECT throws_ok($$SELECT * FROM ranread_study(processes => '{2048}', queue_depth => '{1024}')$$, '22023',
    NULL, 'a point with too much I/O in flight is refused');
SELECT throws_ok($$SELECT * FROM ranread_study(small => '{1,2}', large => '{0,1}', matrix => 'row', num_large => -1)$$,
    '22023', 'invalid num_large -1 for ranread_study', 'a negative num_large is refused');
SELECT throws_ok($$SELECT * FROM ranread_study(small => '{2000}', large => '{100}', matrix => 'point', num_small => 2000, num_large => 100)$$,
    '22023', NULL, 'a point whose groups sum to more processes than a batch may have is refused');

-- The mix and its matrix
SELECT throws_ok($$SELECT * FROM ranread_study(small => '{1,2}', matrix => 'detailed')$$, '22023',
    'matrix detailed of ranread_study needs both small and large loads', 'a mode that needs a mix without one is refused');
SELECT throws_ok($$SELECT * FROM ranread_study(matrix => 'row')$$, '22023',
    'matrix row of ranread_study needs small loads', 'a matrix with no loads is refused');
SELECT throws_ok($$SELECT * FROM ranread_study(small => '{1}', processes => '{1,2}')$$, '22023',
    'processes cannot be a dimension of a ranread_study with small and large loads',
    'processes and a matrix''s loads do not mix');
SELECT throws_ok($$SELECT * FROM ranread_study(num_small => 2)$$, '22023',
    'num_small of ranread_study needs a matrix', 'num_small without a matrix is refused');
SELECT throws_ok($$SELECT * FROM ranread_study(small => '{0}', large => '{0}')$$, '22023',
    'matrix basic of ranread_study selects no point with a load', 'a matrix of zero loads is refused');

-- Other arguments
SELECT throws_ok($$SELECT * FROM ranread_study(duration => '0')$$, '22023',
    'duration of ranread_study must be positive and at most 24 hours, not 00:00:00', 'a duration of 0 is refused, as a batch refuses it');
SELECT throws_ok($$SELECT * FROM ranread_study(warmup => '-1s')$$, '22023',
    'warmup of ranread_study must be zero or positive and at most 24 hours, not -00:00:01', 'a negative warm-up is refused, as a batch refuses it');
SELECT throws_ok($$SELECT * FROM ranread_study(duration => NULL)$$, '22004',
    'duration of ranread_study must not be null', 'a NULL duration is refused: every point runs for one');
SELECT throws_ok($$SELECT * FROM ranread_study(max_avg_ms => -1)$$, '22023',
    'invalid max_avg_ms -1 for ranread_study', 'a bound at or below 0 is refused');
SELECT throws_ok($$SELECT * FROM ranread_study(processes => '{1,2}', workers => 3)$$, '22023',
    'workers of ranread_study must be between 1 and 1, not 3', 'more workers than the smallest point''s processes are refused');

-- Profiles
SELECT throws_ok($$SELECT * FROM ranread_profile('iometer')$$, '22023',
    'unknown profile ''iometer'' for ranread_profile', 'an unknown profile is refused');
SELECT throws_ok($$SELECT * FROM ranread_profile('crystaldiskmark', num_disks => 4)$$, '22023',
    'num_disks does not apply to profile crystaldiskmark of ranread_profile', 'an option of another tool is refused');
SELECT throws_ok($$SELECT * FROM ranread_profile('crystaldiskmark', passes => 10)$$, '22023',
    'invalid passes 10 for ranread_profile', 'passes beyond CrystalDiskMark''s 9 are refused');

-- Reading studies that are not there
SELECT throws_ok($$SELECT * FROM ranread_study_grid(999999)$$, '22023',
    'invalid study 999999 for ranread_study_grid: no point of it is in the history', 'an unknown study is refused');
SELECT throws_ok($$SELECT ranread_compare_chart()$$, '22023',
    'ranread_compare_chart needs studies or sweeps to compare', 'a comparison of nothing is refused');

SELECT is((SELECT count(*) FROM ranread_batches), (SELECT n FROM before),
    'refused studies and profiles run no batch');

SELECT * FROM finish();
ROLLBACK;
