-- The errors of ranread_run that depend on the target, the machine or on
-- what exists (the exact messages of the others are in the pg_regress test
-- test/regress/sql/run_argument_errors.sql): running before setup, a misspelt
-- target, a block size off the target's direct I/O alignment or larger than
-- its region, and refused calls starting nothing.
BEGIN;
SET client_min_messages = error;
SELECT plan(13);

-- The error of a statement (NULL if it succeeds): SQLSTATE, message, hint
CREATE FUNCTION pg_temp.error_of(statement text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
    hint text;
BEGIN
    EXECUTE statement;
    RETURN NULL;
EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS hint = PG_EXCEPTION_HINT;
    RETURN SQLSTATE || ': ' || SQLERRM || coalesce(E'\nHINT: ' || nullif(hint, ''), '');
END
$$;

SELECT coalesce(max(batch), 0) AS last_batch FROM ranread_summary \gset

-- Before any setup: no targets at all
SELECT is((SELECT count(*) FROM (SELECT ranread_purge(target) FROM ranread_targets) p),
    (SELECT count(*) FROM ranread_targets), 'start without targets');
SELECT throws_ok($$SELECT * FROM ranread_run(1)$$, '42704', 'ranread target "ranread" does not exist',
    'running before setup says the target does not exist');
SELECT matches(pg_temp.error_of($$SELECT * FROM ranread_run(20, 10000)$$),
    'HINT: .*ranread_setup\(.*target => ''ranread''\)',
    'and hints at ranread_setup');

SELECT ok((SELECT size_bytes = 8388608 FROM ranread_setup('8MB', target => 'tap_run_errors')),
    'an 8MB target');
SELECT throws_ok($$SELECT * FROM ranread_run(1, 10, target => 'tap_run_errorz')$$, '42704',
    'ranread target "tap_run_errorz" does not exist', 'a misspelt target does not exist');

-- Direct I/O alignment: 512 or 4096 bytes, by filesystem
SELECT matches(pg_temp.error_of($$SELECT * FROM ranread_run(1, 10, target => 'tap_run_errors', block_size => 1000)$$),
    '^22023: block_size 1000 of ranread_run is not a multiple of the direct I/O alignment (512|1024|2048|4096) of target "tap_run_errors"',
    'a block size off the direct I/O alignment is refused, naming the alignment');
SELECT matches(pg_temp.error_of($$SELECT * FROM ranread_run(1, 10, target => 'tap_run_errors', block_size => 8200)$$),
    '^22023: block_size 8200 of ranread_run is not a multiple of the direct I/O alignment',
    'so is any other block size that is not a multiple of it');
SELECT matches(pg_temp.error_of($$SELECT * FROM ranread_run(1, 10, target => 'tap_run_errors', block_size => 1000)$$),
    'HINT: Use a multiple of [0-9]+, such as 8192',
    'the hint says what to use');
SELECT is(pg_temp.error_of($$SELECT * FROM ranread_run(1, 10, target => 'tap_run_errors', block_size => 8192 * 3)$$), NULL,
    'a block size that is a multiple of 4096 (24 KiB) runs');

-- The block size must fit the region (8MB: 1 MiB is 12.5% of it)
SELECT matches(pg_temp.error_of($$SELECT * FROM ranread_run(1, 10, target => 'tap_run_errors', block_size => 1048576,
                                                            region_start => 90, region_end => 95)$$),
    '^22023: block_size 1048576 of ranread_run is larger than the region 90%\.\.95% of target "tap_run_errors"',
    'a block larger than the region is refused');
SELECT matches(pg_temp.error_of($$SELECT * FROM ranread_run(1, 10, target => 'tap_run_errors', block_size => 1048576,
                                                            region_start => 95)$$),
    '^22023: block_size 1048576 of ranread_run is larger than the region 95%\.\.100% of target "tap_run_errors"',
    'at the end of the target too: the last 5% cannot hold a 1 MiB block');

-- Refused calls started nothing
SELECT is((SELECT count(*) FROM ranread_batches
            WHERE batch > :last_batch
              AND (target IN ('ranread', 'tap_run_errorz') OR block_size IN (1000, 8200)
                   OR (region_start, region_end) = (90, 95))),
    0::bigint, 'refused calls leave no batch in the history');
SELECT is((SELECT count(*) FROM pg_stat_activity WHERE backend_type ~ 'ranread'), 0::bigint,
    'and no ranread worker is left running');

SELECT * FROM finish();
ROLLBACK;
