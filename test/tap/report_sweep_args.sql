-- ranread_sweep refuses bad arguments before any batch runs, with an error
-- that names the argument, the value and what is allowed.
BEGIN;
SELECT plan(25);

\ir lib/util.psql

CREATE TEMP TABLE before AS
SELECT (SELECT count(*) FROM ranread_batches) AS batches,
       (SELECT count(*) FROM ranread_sweeps) AS sweeps;

SELECT throws_ok($$SELECT * FROM ranread_sweep(start => 0)$$, '22023',
    'invalid start 0 for ranread_sweep', 'start must be at least 1');
SELECT throws_ok($$SELECT * FROM ranread_sweep(start => NULL)$$, '22023',
    'invalid start NULL for ranread_sweep', 'start must not be NULL');
SELECT throws_ok($$SELECT * FROM ranread_sweep(start => 4096, max_processes => 8192)$$, '22023',
    'invalid start 4096 for ranread_sweep', 'start cannot exceed the processes limit');
SELECT throws_ok($$SELECT * FROM ranread_sweep(start => 10, max_processes => 5)$$, '22023',
    'invalid max_processes 5 for ranread_sweep', 'max_processes must be at least start');
SELECT throws_ok($$SELECT * FROM ranread_sweep(max_processes => 4096)$$, '22023',
    'invalid max_processes 4096 for ranread_sweep',
    'max_processes above the processes limit is refused up front, not at the last step');
SELECT throws_ok($$SELECT * FROM ranread_sweep(max_processes => NULL)$$, '22023',
    'invalid max_processes NULL for ranread_sweep', 'max_processes must not be NULL');
SELECT throws_ok($$SELECT * FROM ranread_sweep(max_processes => 2048, queue_depth => 64)$$, '22023',
    'invalid max_processes 2048 for ranread_sweep with queue_depth 64',
    'max_processes x queue_depth above the in-flight limit is refused up front');
SELECT throws_ok($$SELECT * FROM ranread_sweep(max_processes => 2048, block_size => 1048576)$$, '22023',
    'invalid max_processes 2048 for ranread_sweep with queue_depth 1 and block_size 1048576',
    'a last step that would need more I/O buffer memory than allowed is refused up front');
SELECT throws_ok($$SELECT * FROM ranread_sweep(max_avg_ms => 0)$$, '22023',
    'invalid max_avg_ms 0 for ranread_sweep', 'max_avg_ms must be greater than 0');
SELECT throws_ok($$SELECT * FROM ranread_sweep(max_avg_ms => -5)$$, '22023',
    'invalid max_avg_ms -5 for ranread_sweep', 'a negative max_avg_ms is refused');
SELECT throws_ok($$SELECT * FROM ranread_sweep(max_avg_ms => 'NaN')$$, '22023',
    'invalid max_avg_ms NaN for ranread_sweep', 'max_avg_ms NaN is refused');
SELECT throws_ok($$SELECT * FROM ranread_sweep(max_avg_ms => 'Infinity')$$, '22023',
    'invalid max_avg_ms Infinity for ranread_sweep', 'an infinite max_avg_ms is refused');
SELECT throws_ok($$SELECT * FROM ranread_sweep(max_avg_ms => NULL)$$, '22023',
    'invalid max_avg_ms NULL for ranread_sweep', 'max_avg_ms must not be NULL');
SELECT throws_ok($$SELECT * FROM ranread_sweep(iterations => 0)$$, '22023',
    'iterations of ranread_sweep must be between 1 and 4611686018427387903, not 0', 'iterations must be at least 1');
SELECT throws_ok($$SELECT * FROM ranread_sweep(duration => '0')$$, '22023',
    'duration of ranread_sweep must be positive and at most 24 hours, not 00:00:00', 'duration must be positive');
SELECT throws_ok($$SELECT * FROM ranread_sweep(duration => '-5s')$$, '22023',
    'duration of ranread_sweep must be positive and at most 24 hours, not -00:00:05', 'a negative duration is refused');
SELECT throws_ok($$SELECT * FROM ranread_sweep(start => 2, workers => 4)$$, '22023',
    'workers of ranread_sweep must be between 1 and 2, not 4', 'workers cannot exceed the processes of the first step');
SELECT throws_ok($$SELECT * FROM ranread_sweep(workers => 0)$$, '22023',
    'workers of ranread_sweep must be between 1 and 10, not 0', 'workers must be at least 1');

-- The hint says what is allowed.
SELECT is(pg_temp.hint_of($$SELECT * FROM ranread_sweep(start => 10, max_processes => 5)$$),
    (SELECT format('max_processes must be between start (10) and %s.', max_processes) FROM ranread_limits()),
    'the hint gives the allowed range');

SELECT results_eq(
    $$SELECT (SELECT count(*) FROM ranread_batches), (SELECT count(*) FROM ranread_sweeps)$$,
    $$SELECT batches, sweeps FROM before$$,
    'refused sweeps run no batch and record nothing');

-- A role granted only ranread_sweep learns everything else it needs.
CREATE ROLE ranread_test_sweeper;
DO $$
BEGIN
    EXECUTE format('GRANT USAGE ON SCHEMA %s TO ranread_test_sweeper',
                   (SELECT extnamespace::regnamespace FROM pg_extension WHERE extname = 'ranread'));
END
$$;
GRANT EXECUTE ON FUNCTION ranread_sweep TO ranread_test_sweeper;
SET LOCAL ROLE ranread_test_sweeper;
SELECT throws_ok($$SELECT * FROM ranread_sweep()$$, '42501', 'permission denied to run ranread_sweep',
    'a role without the functions, sequence and table a sweep uses is refused before anything runs');
CREATE TEMP TABLE refusal AS SELECT pg_temp.hint_of($$SELECT * FROM ranread_sweep()$$) AS hint;
RESET ROLE;
SELECT alike((SELECT hint FROM refusal), '%GRANT USAGE ON SCHEMA ranread_internal TO ranread_test_sweeper;%GRANT USAGE ON SEQUENCE %ranread_sweep_seq TO ranread_test_sweeper;%',
    'the hint gives the GRANTs the role lacks');
SELECT ok((SELECT hint NOT LIKE '%INSERT%' FROM refusal),
    '... and no INSERT on ranread_sweeps (the sweep records its row as the extension''s owner)');
DO $$
BEGIN
    EXECUTE substring((SELECT hint FROM refusal) FROM 'superuser: (.*)$');
END
$$;
SET LOCAL ROLE ranread_test_sweeper;
SELECT is(pg_temp.error_of($$SELECT * FROM ranread_sweep(target => 'tap_no_such_target')$$),
    '42704: ranread target "tap_no_such_target" does not exist',
    'with the hint''s GRANTs the role runs the sweep, up to its first step (on a target that is not there)');
RESET ROLE;
SELECT ok((SELECT max_processes >= 1280 FROM ranread_limits()),
    'the default max_processes of a sweep (1280) is within the processes limit of ranread_run');

SELECT * FROM finish();
ROLLBACK;
