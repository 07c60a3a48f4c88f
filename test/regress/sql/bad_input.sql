-- Bad input to every function of the extension: out of range, NULL, empty,
-- wrong-type text, absurdly large, hostile names.  Each call must end in a
-- clear ERROR with a proper SQLSTATE (never XX000 internal_error, never a
-- crash) naming the argument and the value, before any worker starts or any
-- file is touched (docs/design.md, "Bad input").
--
-- Each call goes through pg_temp.bad(), which prints the error as
-- "SQLSTATE: message", then its DETAIL and HINT, so that the expected output
-- pins the SQLSTATE without the source line numbers VERBOSITY verbose would
-- add.  A call that does not fail prints "NO ERROR" and the test fails.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS ranread;
\set VERBOSITY default
\pset tuples_only on
\pset format unaligned

CREATE FUNCTION pg_temp.bad(call text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
    st text; msg text; det text; hnt text;
BEGIN
    -- the whole row is fetched, so that no call is optimized away
    EXECUTE 'SELECT ' || call;
    RETURN 'NO ERROR';
EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT,
                            det = PG_EXCEPTION_DETAIL, hnt = PG_EXCEPTION_HINT;
    RETURN CASE WHEN st = 'XX000' THEN 'INTERNAL ERROR ' ELSE '' END
        || st || ': ' || msg
        || CASE WHEN det <> '' THEN E'\n  DETAIL: ' || det ELSE '' END
        || CASE WHEN hnt <> '' THEN E'\n  HINT: ' || hnt ELSE '' END;
END
$$;

-- What must not change
CREATE TEMP TABLE before AS
SELECT (SELECT count(*) FROM ranread_targets) AS targets,
       (SELECT count(*) FROM ranread_summary) AS summary,
       (SELECT count(*) FROM ranread_batches) AS batches;

-- ranread_setup(size, tablespace, target)
SELECT pg_temp.bad($$ranread_setup('abc')$$);
SELECT pg_temp.bad($$ranread_setup('1000000 PB')$$);
SELECT pg_temp.bad($$ranread_setup('9223372036854775807 PB')$$);
SELECT pg_temp.bad($$ranread_setup('1e400 MB')$$);
SELECT pg_temp.bad($$ranread_setup('NaN')$$);
SELECT pg_temp.bad($$ranread_setup('   ')$$);
SELECT pg_temp.bad($$ranread_setup('10 MB; DROP TABLE ranread_results')$$);
SELECT pg_temp.bad($$ranread_setup('10'::int)$$);
SELECT pg_temp.bad($$ranread_setup('1MB', 'it''s "quoted"')$$);
SELECT pg_temp.bad($$ranread_setup('1MB', 'x''); DROP TABLE ranread_results; --')$$);
SELECT pg_temp.bad($$ranread_setup('1MB', 'pg_global')$$);
SELECT pg_temp.bad($$ranread_setup('1MB', NULL)$$);
SELECT pg_temp.bad($$ranread_setup('1MB', '')$$);
SELECT pg_temp.bad($$ranread_setup('1MB', target => NULL)$$);
SELECT pg_temp.bad($$ranread_setup('abc', target => 'x''); DROP TABLE ranread_results; --')$$);
SELECT pg_temp.bad($$ranread_setup(NULL, NULL, NULL)$$);

-- ranread_run: processes
SELECT pg_temp.bad($$ranread_run('10 processes'::int)$$);
SELECT pg_temp.bad($$ranread_run(2147483647)$$);
SELECT pg_temp.bad($$ranread_run(-2147483648)$$);
SELECT pg_temp.bad($$ranread_run(2147483648)$$);
-- iterations
SELECT pg_temp.bad($$ranread_run(1, 9e18::bigint)$$);
SELECT pg_temp.bad($$ranread_run(1, -9223372036854775808)$$);
SELECT pg_temp.bad($$ranread_run(1, 1e19::bigint)$$);
-- duration
SELECT pg_temp.bad($$ranread_run(1, duration => '-1s')$$);
SELECT pg_temp.bad($$ranread_run(1, duration => 'forever')$$);
SELECT pg_temp.bad($$ranread_run(1, duration => 'infinity')$$);
SELECT pg_temp.bad($$ranread_run(1, duration => '178000000 years')$$);
SELECT pg_temp.bad($$ranread_run(1, duration => '1 microsecond')$$);
-- block_size
SELECT pg_temp.bad($$ranread_run(1, block_size => 1073741824)$$);
SELECT pg_temp.bad($$ranread_run(1, block_size => 2147483647)$$);
SELECT pg_temp.bad($$ranread_run(1, block_size => -8192)$$);
SELECT pg_temp.bad($$ranread_run(1, block_size => 4097)$$);
-- write_pct
SELECT pg_temp.bad($$ranread_run(1, write_pct => 2147483647)$$);
SELECT pg_temp.bad($$ranread_run(1, write_pct => '50%'::int)$$);
-- queue_depth
SELECT pg_temp.bad($$ranread_run(1, queue_depth => 2147483647)$$);
SELECT pg_temp.bad($$ranread_run(1, queue_depth => -1)$$);
-- pattern
SELECT pg_temp.bad($$ranread_run(1, pattern => 'zigzag')$$);
SELECT pg_temp.bad($$ranread_run(1, pattern => 'RANDOM ')$$);
SELECT pg_temp.bad($$ranread_run(1, pattern => 'random''; DROP TABLE ranread_results; --')$$);
-- region
SELECT pg_temp.bad($$ranread_run(1, region_end => 1e308)$$);
SELECT pg_temp.bad($$ranread_run(1, region_start => -1e308)$$);
SELECT pg_temp.bad($$ranread_run(1, region_end => 'NaN'::float8)$$);
SELECT pg_temp.bad($$ranread_run(1, region_start => '-Infinity'::float8)$$);
SELECT pg_temp.bad($$ranread_run(1, region_start => 'half'::float8)$$);
-- warmup
SELECT pg_temp.bad($$ranread_run(1, warmup => NULL)$$);
SELECT pg_temp.bad($$ranread_run(1, warmup => 'infinity')$$);
SELECT pg_temp.bad($$ranread_run(1, warmup => '1000 years')$$);
-- rate_iops
SELECT pg_temp.bad($$ranread_run(1, rate_iops => 2147483647)$$);
SELECT pg_temp.bad($$ranread_run(1, rate_iops => -2147483648)$$);
-- seed: any bigint is a seed; a wrong-type one fails before the call
SELECT pg_temp.bad($$ranread_run(1, seed => 'lucky'::bigint)$$);
-- workers
SELECT pg_temp.bad($$ranread_run(4, workers => 2147483647)$$);
-- target: hostile and long names
SELECT pg_temp.bad($$ranread_run(1, target => NULL)$$);
SELECT pg_temp.bad($$ranread_run(1, target => '')$$);
SELECT pg_temp.bad($$ranread_run(1, target => 'x''); DROP TABLE ranread_results; --')$$);
SELECT pg_temp.bad($$ranread_run(1, target => 'back\slash "dq" ''sq''')$$);
SELECT pg_temp.bad($$ranread_run(1, target => repeat('t', 63))$$);
SELECT pg_temp.bad($$ranread_run(1, target => repeat('u', 200))$$);
SELECT pg_temp.bad($$ranread_run(1, target => E'new\nline')$$);

-- ranread_stop takes no argument
SELECT pg_temp.bad($$ranread_stop(1)$$);
SELECT pg_temp.bad($$ranread_stop(NULL)$$);

-- ranread_reset(before)
SELECT pg_temp.bad($$ranread_reset('yesterday-ish')$$);
SELECT pg_temp.bad($$ranread_reset(42)$$);

-- ranread_export(directory, format)
SELECT pg_temp.bad($$ranread_export(NULL)$$);
SELECT pg_temp.bad($$ranread_export('')$$);
SELECT pg_temp.bad($$ranread_export('relative/dir')$$);
SELECT pg_temp.bad($$ranread_export('/no/such/directory')$$);
SELECT pg_temp.bad($$ranread_export('/tmp', 'xml')$$);
SELECT pg_temp.bad($$ranread_export('/tmp', NULL)$$);
SELECT pg_temp.bad($$ranread_export('/tmp', '')$$);
SELECT pg_temp.bad($$ranread_export('/tmp/x''); DROP TABLE ranread_results; --')$$);
SELECT pg_temp.bad($$ranread_export('/etc/passwd')$$);
-- a path longer than PATH_MAX (ENAMETOOLONG): refused, but not as an
-- internal error (XX000); the message would echo all 5000 characters
SELECT pg_temp.bad($$ranread_export('/' || repeat('d', 5000))$$) !~ '^(INTERNAL|NO ERROR)'
       AS long_directory_refused_cleanly;

-- ranread_sweep
SELECT pg_temp.bad($$ranread_sweep(0)$$);
SELECT pg_temp.bad($$ranread_sweep(NULL)$$);
SELECT pg_temp.bad($$ranread_sweep(10, 5)$$);
SELECT pg_temp.bad($$ranread_sweep(10, 2147483647)$$);
SELECT pg_temp.bad($$ranread_sweep(max_avg_ms => 'NaN')$$);
SELECT pg_temp.bad($$ranread_sweep(max_avg_ms => -1)$$);
SELECT pg_temp.bad($$ranread_sweep(duration => '-1s')$$);
SELECT pg_temp.bad($$ranread_sweep(pattern => 'zigzag')$$);
SELECT pg_temp.bad($$ranread_sweep(block_size => 1073741824)$$);
SELECT pg_temp.bad($$ranread_sweep(target => 'x''); DROP TABLE ranread_results; --')$$);

-- ranread_chart(sweep), ranread_timeline(batch)
SELECT pg_temp.bad($$ranread_chart(-1)$$);
SELECT pg_temp.bad($$ranread_chart(9223372036854775807)$$);
SELECT pg_temp.bad($$ranread_chart('last'::bigint)$$);
SELECT pg_temp.bad($$ranread_timeline(0)$$);
SELECT pg_temp.bad($$ranread_timeline(-9223372036854775808)$$);

-- ranread_purge(target)
SELECT pg_temp.bad($$ranread_purge('x''); DROP TABLE ranread_results; --')$$);
SELECT pg_temp.bad($$ranread_purge(repeat('p', 100))$$);
SELECT pg_temp.bad($$ranread_purge('\\')$$);

-- ranread_blocks(processes, n, target, block_size, pattern, region_start, region_end, seed)
SELECT pg_temp.bad($$ranread_blocks(NULL)$$);
SELECT pg_temp.bad($$ranread_blocks(2147483647)$$);
SELECT pg_temp.bad($$ranread_blocks(1, NULL)$$);
SELECT pg_temp.bad($$ranread_blocks(1, -1)$$);
SELECT pg_temp.bad($$ranread_blocks(1, 2147483647)$$);
SELECT pg_temp.bad($$ranread_blocks(1, target => '')$$);
SELECT pg_temp.bad($$ranread_blocks(1, block_size => 2147483647)$$);
SELECT pg_temp.bad($$ranread_blocks(1, region_end => 'NaN')$$);
SELECT pg_temp.bad($$ranread_blocks(1, seed => NULL)$$);

-- the histogram functions
SELECT pg_temp.bad($$ranread_hist_percentile('\x', 50)$$);
SELECT pg_temp.bad($$ranread_hist_percentile('\xdeadbeef', 50)$$);
SELECT pg_temp.bad($$ranread_hist_percentile('not a histogram'::bytea, 50)$$);
SELECT pg_temp.bad($$ranread_hist_percentile(decode(repeat('ff', 10000), 'hex'), 50)$$);
SELECT pg_temp.bad($$ranread_hist_percentile((SELECT ranread_hist_merge(h) FROM (VALUES (NULL::bytea)) v(h)), 101)$$);
SELECT pg_temp.bad($$ranread_hist_percentile((SELECT ranread_hist_merge(h) FROM (VALUES (NULL::bytea)) v(h)), -1)$$);
SELECT pg_temp.bad($$ranread_hist_percentile((SELECT ranread_hist_merge(h) FROM (VALUES (NULL::bytea)) v(h)), 'NaN')$$);
SELECT pg_temp.bad($$ranread_hist_percentile('\x', '99th'::float8)$$);
SELECT pg_temp.bad($$ranread_hist_count('\x')$$);
SELECT pg_temp.bad($$ranread_hist_count('\x0102030405060708090a0b0c0d0e0f10')$$);
SELECT pg_temp.bad($$ranread_hist_count(decode(repeat('00', 100000), 'hex'))$$);
SELECT pg_temp.bad($$ranread_hist_buckets('\x')$$);
SELECT pg_temp.bad($$ranread_hist_buckets(decode(repeat('7f', 4096), 'hex'))$$);
SELECT pg_temp.bad($$(SELECT ranread_hist_merge(h) FROM (VALUES ('\x'::bytea)) v(h))$$);
SELECT pg_temp.bad($$(SELECT ranread_hist_merge(h) FROM (VALUES ('\xdeadbeef'::bytea), (NULL)) v(h))$$);

-- Nothing was made, run or recorded
SELECT (SELECT count(*) FROM ranread_targets) = targets AS targets_unchanged,
       (SELECT count(*) FROM ranread_summary) = summary AS summary_unchanged,
       (SELECT count(*) FROM ranread_batches) = batches AS no_batch_recorded
  FROM before;
SELECT count(*) AS target_relations
  FROM pg_class c
  JOIN pg_depend d ON d.classid = 'pg_class'::regclass AND d.objid = c.oid AND d.deptype = 'e'
  JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'ranread'
 WHERE c.relpersistence = 'u';
SELECT count(*) AS ranread_workers FROM pg_stat_activity WHERE backend_type LIKE '%ranread%';
-- ranread_results, the table the hostile names aimed at, is still there
SELECT to_regclass('ranread_results') IS NOT NULL AS ranread_results_exists;
