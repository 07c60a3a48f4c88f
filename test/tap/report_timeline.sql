-- ranread_timeline draws one batch second by second from ranread_intervals:
-- IOPS, average and maximum latency, so throttling and burst credits show.
BEGIN;
SET LOCAL client_min_messages = warning;
SELECT plan(21);

\ir lib/util.psql

DELETE FROM ranread_intervals;
DELETE FROM ranread_results;
DELETE FROM ranread_batches;

SELECT ok(pg_temp.svg_ok(ranread_timeline()), 'with no intervals the timeline is still a well-formed SVG');
SELECT matches(ranread_timeline(), 'No batch has per-second intervals yet', 'which says there is nothing to draw');

INSERT INTO ranread_batches (batch, run_at, target, processes, duration, block_size, queue_depth,
    write_pct, pattern, region_start, region_end, seed, workers, engine, reads, writes, seconds,
    iops, mbps, avg_ms, p99_ms, max_ms, status)
VALUES (41, '2024-05-02 14:02:04+00', 'ranread', 160, '20s', 8192, 1, 0, 'random', 0, 100, 1, 2,
        'io_uring', 600000, 0, 20, 30000, 245, 5.02, 19, 48, 'completed'),
       (42, '2024-05-02 15:00:00+00', 'ranread', 8, '1s', 4096, 4, 30, 'sequential', 0, 100, 1, 2,
        'io_uring', 0, 0, 0.5, 0, 0, NULL, NULL, NULL, 'completed'),
       (43, '2024-05-02 16:00:00+00', 'ranread', 8, NULL, 8192, 1, 0, 'random', 0, 100, 1, 2,
        'io_uring', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'running');
-- Batch 41: 32,000 IOPS for 12 s, then throttled to 27,000.
INSERT INTO ranread_intervals (batch, second, reads, writes, iops, avg_ms, max_ms)
SELECT 41, s, r, 0, r, 160000.0 / r, 20 + s
  FROM (SELECT s, CASE WHEN s < 12 THEN 32000 ELSE 27000 END AS r FROM generate_series(0, 19) s) x;

SET LOCAL TimeZone = 'UTC';
CREATE TEMP TABLE t AS SELECT ranread_timeline(41) AS svg;
SELECT ok(pg_temp.svg_ok((SELECT svg FROM t)), 'the timeline is a well-formed SVG document with the SVG namespace');
SELECT ok((SELECT svg FROM t) !~ '[^\x01-\x7f]', 'the timeline is plain ASCII');
SELECT matches((SELECT svg FROM t), '<title>IOPS and latency per second: batch 41, random 8 KiB reads</title>',
    'the title names the batch and its workload');
SELECT matches((SELECT svg FROM t), '160 processes &#xB7; queue depth 1 &#xB7; engine io_uring',
    'the subtitle gives processes, queue depth and engine');
SELECT matches((SELECT svg FROM t), '2024-05-02 14:02:04 UTC', 'and when the batch ran');
SELECT matches((SELECT svg FROM t), '>Time into the measured run, warm-up excluded \(s\)</text>', 'the x axis is time, in seconds for a run of 20 s');
SELECT matches((SELECT svg FROM t), '>IOPS \(I/O operations per second\)</text>', 'the left axis is IOPS');
SELECT matches((SELECT svg FROM t), '>Latency \(ms\)</text>', 'the right axis is latency in ms');
SELECT is((SELECT count(*) FROM regexp_matches((SELECT svg FROM t), '<path d="M[^"]*" fill="none"', 'g')), 3::bigint,
    'three lines: IOPS, average latency and maximum latency');
SELECT matches((SELECT svg FROM t), 'IOPS per second over 20 s: mean 30,000, lowest 27,000, highest 32,000',
    'the per-second IOPS are summed up: mean, lowest, highest');
SELECT is(ranread_timeline(), (SELECT svg FROM t),
    'ranread_timeline() draws the latest batch that has intervals');

SELECT matches(ranread_timeline(42), 'Batch 42 has no per-second intervals',
    'a batch without intervals gets an SVG that says so');
SELECT matches(ranread_timeline(42), 'sequential 4 KiB I/O with 30% writes', 'with its workload in the title');
-- A batch run with ranread.timing = off has no latency: the timeline says so.
INSERT INTO ranread_batches (batch, run_at, target, processes, duration, block_size, queue_depth,
    write_pct, pattern, region_start, region_end, seed, workers, engine, reads, writes, seconds,
    iops, mbps, avg_ms, p99_ms, max_ms, status)
VALUES (44, '2024-05-02 17:00:00+00', 'ranread', 16, '5s', 8192, 1, 0, 'random', 0, 100, 1, 2,
        'io_uring', 150000, 0, 5, 30000, 245, NULL, NULL, NULL, 'completed');
INSERT INTO ranread_intervals (batch, second, reads, writes, iops, avg_ms, max_ms)
SELECT 44, s, 30000, 0, 30000, NULL, NULL FROM generate_series(0, 4) s;
CREATE TEMP TABLE untimed AS SELECT ranread_timeline(44) AS svg;
SELECT ok(pg_temp.svg_ok((SELECT svg FROM untimed)), 'an untimed batch''s timeline is a well-formed SVG');
SELECT matches((SELECT svg FROM untimed), 'Latency: not measured \(the batch ran with ranread.timing = off\)',
    'without timing the timeline says latency was not measured');
SELECT doesnt_match((SELECT svg FROM untimed), 'slowest I/O took',
    'and states no slowest I/O');
SELECT is((SELECT count(*) FROM regexp_matches((SELECT svg FROM untimed), '<path d="M[^"]*" fill="none"', 'g')), 1::bigint,
    'it draws one line: IOPS');
SELECT doesnt_match((SELECT svg FROM untimed), '>Latency \(ms\)</text>', 'and no latency axis');

SELECT throws_ok($$SELECT ranread_timeline(999)$$, '22023', 'batch 999 for ranread_timeline does not exist',
    'a batch that does not exist is an error');

SELECT * FROM finish();
ROLLBACK;
