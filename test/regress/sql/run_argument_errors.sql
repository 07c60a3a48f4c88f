-- ranread_run checks every argument before any worker starts, with an error
-- that names the argument, the value and the allowed range (docs/design.md,
-- "Bad input"); argument errors come before the target is looked up.
-- Errors whose text depends on the machine (direct I/O alignment,
-- max_worker_processes) are checked in test/tap/run_target_errors.sql.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS ranread;
\set VERBOSITY default

-- Running before setup
SELECT * FROM ranread_run(1);
SELECT * FROM ranread_run(1, target => 'no_such_target');
-- (the hint's SQL works as given, quotes and all)
SELECT * FROM ranread_run(1, target => 'it''s');

-- processes: 1 to 2048
SELECT * FROM ranread_run(NULL);
SELECT * FROM ranread_run(0);
SELECT * FROM ranread_run(-1);
SELECT * FROM ranread_run(2049);

-- iterations: at least 1 (NULL: 10000, or until duration)
SELECT * FROM ranread_run(1, 0);
SELECT * FROM ranread_run(1, -5);
SELECT * FROM ranread_run(1, 9223372036854775807);

-- target: a non-empty name
SELECT * FROM ranread_run(1, target => NULL);
SELECT * FROM ranread_run(1, target => '');

-- duration: positive, at most 24 hours
SELECT * FROM ranread_run(1, duration => '0');
SELECT * FROM ranread_run(1, duration => '-1 second');
SELECT * FROM ranread_run(1, duration => '25 hours');
SELECT * FROM ranread_run(1, duration => '1 month');
SELECT * FROM ranread_run(1, 100, duration => '0');

-- block_size: 512 B to 1 MiB
SELECT * FROM ranread_run(1, block_size => NULL);
SELECT * FROM ranread_run(1, block_size => 0);
SELECT * FROM ranread_run(1, block_size => 511);
SELECT * FROM ranread_run(1, block_size => 2097152);

-- write_pct: 0 to 100, and writes are whole pages
SELECT * FROM ranread_run(1, write_pct => NULL);
SELECT * FROM ranread_run(1, write_pct => -1);
SELECT * FROM ranread_run(1, write_pct => 101);
SELECT * FROM ranread_run(1, write_pct => 10, block_size => 4096);

-- queue_depth: 1 to 1024, within the limits on I/Os and buffers in flight
SELECT * FROM ranread_run(1, queue_depth => NULL);
SELECT * FROM ranread_run(1, queue_depth => 0);
SELECT * FROM ranread_run(1, queue_depth => 1025);
SELECT * FROM ranread_run(100, queue_depth => 1000);
SELECT * FROM ranread_run(1024, queue_depth => 64, block_size => 1048576);

-- pattern: random or sequential
SELECT * FROM ranread_run(1, pattern => NULL);
SELECT * FROM ranread_run(1, pattern => '');
SELECT * FROM ranread_run(1, pattern => 'zigzag');

-- region_start < region_end, both in 0..100
SELECT * FROM ranread_run(1, region_start => NULL);
SELECT * FROM ranread_run(1, region_end => NULL);
SELECT * FROM ranread_run(1, region_start => 50, region_end => 50);
SELECT * FROM ranread_run(1, region_start => 60, region_end => 40);
SELECT * FROM ranread_run(1, region_start => -1);
SELECT * FROM ranread_run(1, region_end => 101);
SELECT * FROM ranread_run(1, region_start => 'NaN');
SELECT * FROM ranread_run(1, region_end => 'Infinity');

-- warmup: zero or positive, at most 24 hours
SELECT * FROM ranread_run(1, warmup => '-1 second');
SELECT * FROM ranread_run(1, warmup => '25 hours');

-- rate_iops: 1 to 100000000 (NULL: no cap)
SELECT * FROM ranread_run(1, rate_iops => 0);
SELECT * FROM ranread_run(1, rate_iops => -5);
SELECT * FROM ranread_run(1, rate_iops => 100000001);

-- workers: 1 to processes (NULL: chosen)
SELECT * FROM ranread_run(4, workers => 0);
SELECT * FROM ranread_run(4, workers => -1);
SELECT * FROM ranread_run(4, workers => 5);

-- With a target: what depends on its size
SET client_min_messages = error;
SELECT target, size_bytes FROM ranread_setup('8MB');
SET client_min_messages = warning;
SELECT * FROM ranread_run(1, block_size => 1048576, region_start => 0, region_end => 10);
SELECT * FROM ranread_run(1, region_start => 0, region_end => 0.01);

-- The synchronous engine keeps one I/O in flight per process
SET ranread.engine = sync;
SELECT * FROM ranread_run(1, queue_depth => 2);
RESET ranread.engine;

-- ranread_blocks (where a batch's I/Os would go) checks like ranread_run,
-- naming itself
SELECT * FROM ranread_blocks(0);
SELECT * FROM ranread_blocks(1, 0);
SELECT * FROM ranread_blocks(1, target => 'no_such_target');
SELECT * FROM ranread_blocks(1, block_size => 100);
SELECT * FROM ranread_blocks(1, pattern => 'zigzag');
SELECT * FROM ranread_blocks(1, region_start => 5, region_end => 1);

-- sync (how writes reach stable storage) and start_at (when the I/O starts)
SELECT * FROM ranread_run(1, write_pct => 100, sync => 'fsync_writethrough');
SELECT * FROM ranread_run(1, sync => 'fdatasync');
SELECT * FROM ranread_run(1, start_at => '2000-01-01 00:00:00+00');
SELECT * FROM ranread_run(1, start_at => '2999-01-01 00:00:00+00');
SELECT * FROM ranread_mix('[{"label": "log", "processes": 1, "write_pct": 100, "sync": "sometimes"}]', '1s');
SELECT * FROM ranread_mix('[{"label": "log", "processes": 1, "sync": "fsync"}]', '1s');
SELECT * FROM ranread_run_step('{"groups": [{"processes": 1}], "start_at": "2000-01-01 00:00:00+00"}');
SELECT * FROM ranread_run_step('{"groups": [{"processes": 1}], "point": [1, 2]}');

-- ranread_commit_test checks its arguments before it writes anything
SELECT * FROM ranread_commit_test(duration => '10 ms');
SELECT * FROM ranread_commit_test(duration => '1 hour');
SELECT * FROM ranread_commit_test(duration => NULL);
SELECT * FROM ranread_commit_test(methods => '{}');
SELECT * FROM ranread_commit_test(methods => '{fdatasync, sometimes}');
SELECT * FROM ranread_commit_test(methods => '{fdatasync, NULL}');
SELECT * FROM ranread_commit_test('no_such_tablespace');
SELECT * FROM ranread_commit_test('pg_global');

-- Refused calls leave no history
SELECT count(*) AS batches FROM ranread_summary;
SELECT ranread_purge();
