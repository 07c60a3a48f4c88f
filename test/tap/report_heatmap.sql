-- The latency heatmap (docs/charts-and-reports.md, "Percentiles over time"):
-- for a known batch (scripted seconds with known histograms), each cell holds
-- the I/Os of its second and latency band (a power of two of a millisecond),
-- the slowest band on top; a second without a histogram is an empty column
-- that a note names (never dropped silently); the SVG
-- is a heat table drawn by the one renderer; a batch with none, or none at
-- all, is a clear error; the report shows the latest batch's heatmap.
BEGIN;
SET LOCAL client_min_messages = warning;
SELECT plan(12);
\ir lib/util.psql

-- A stored histogram (histogram.c): version 1, count, sum, min, max, then
-- (uint16 bucket, uint64 count) pairs, little-endian
CREATE FUNCTION pg_temp.le(v bigint, n integer) RETURNS bytea LANGUAGE sql AS $$
    SELECT string_agg(set_byte('\x00'::bytea, 0, ((v >> (8 * i)) & 255)::integer), ''::bytea ORDER BY i)
      FROM generate_series(0, n - 1) i
$$;
-- buckets 954 (999,424 to 1,007,616 ns: the 1-2 ms band) and 841 (299,008
-- to 303,104 ns: 0.25-0.5 ms), n1 and n2 values in them
CREATE FUNCTION pg_temp.h(n1 bigint, n2 bigint) RETURNS bytea LANGUAGE sql AS $$
    SELECT '\x01'::bytea || pg_temp.le(n1 + n2, 8) || pg_temp.le(n1 * 1000000 + n2 * 300000, 8)
           || pg_temp.le(CASE WHEN n2 > 0 THEN 300000 ELSE 1000000 END, 8)
           || pg_temp.le(CASE WHEN n1 > 0 THEN 1000000 ELSE 300000 END, 8)
           || CASE WHEN n2 > 0 THEN pg_temp.le(841, 2) || pg_temp.le(n2, 8) ELSE ''::bytea END
           || CASE WHEN n1 > 0 THEN pg_temp.le(954, 2) || pg_temp.le(n1, 8) ELSE ''::bytea END
$$;
SELECT is(ranread_hist_count(pg_temp.h(7, 5)), 12::bigint, 'the scripted histograms are valid stored histograms');

DELETE FROM ranread_intervals;
INSERT INTO ranread_batches (batch, run_at, target, tablespace, processes, duration, block_size,
    queue_depth, write_pct, pattern, region_start, region_end, seed, workers, engine, reads,
    writes, seconds, iops, mbps, avg_ms, p99_ms, max_ms, status, groups, distribution)
VALUES (990001, now(), 'tap_heat', 'pg_default', 1, '3s', 8192, 1, 0, 'random', 0, 100, 1, 1, 'io_uring',
        22, 0, 3, 7.3, 0.06, 0.8, 1, 1, 'completed', 1, 'uniform');
INSERT INTO ranread_intervals (batch, second, reads, writes, iops, avg_ms, max_ms, grp, histogram)
VALUES (990001, 0, 10, 0, 10, 1, 1, 1, pg_temp.h(10, 0)),
       (990001, 1, 12, 0, 12, 0.7, 1, 1, pg_temp.h(7, 5)),
       (990001, 2, 0, 0, 0, NULL, NULL, 1, NULL);

SELECT results_eq($$SELECT col, band, ios FROM ranread_internal.ranread_latency_heat_cells(990001) ORDER BY col, band$$,
    $$VALUES (0, -2, 0::bigint), (0, -1, 0::bigint), (0, 0, 10::bigint), (1, -2, 5::bigint), (1, -1, 0::bigint), (1, 0, 7::bigint),
             (2, -2, 0::bigint), (2, -1, 0::bigint), (2, 0, 0::bigint)$$,
    'each cell holds the I/Os of its second in its latency band; a second without a histogram is a column without I/O');
CREATE TEMP TABLE spec AS SELECT ranread_internal.ranread_latency_heat_spec(990001) AS s;
SELECT is((SELECT s -> 'heat' -> 'rows' FROM spec), '["1-2 ms", "0.5-1 ms", "0.25-0.5 ms"]'::jsonb,
    'rows: one per band from the slowest, on top, to the fastest, none skipped between');
SELECT is((SELECT s -> 'heat' -> 'columns' FROM spec), '["0", "1", "2"]'::jsonb, 'columns: every second of the batch');
SELECT is((SELECT s -> 'heat' -> 'values' FROM spec), '[[10, 7, null], [null, null, null], [null, 5, null]]'::jsonb,
    'values: the I/Os, none where a band had no I/O that second, nor in a second without a histogram');
SELECT is((SELECT s -> 'notes' -> 0 ->> 'text' FROM spec),
    '1 second has no latency histogram (second 2): its column is empty. A second has none when the leader woke late, the 16 MB pool was full, or timing was off.',
    'a note names the seconds without a histogram');
SELECT ok(pg_temp.svg_ok(ranread_latency_heatmap(990001)), 'ranread_latency_heatmap draws it as an SVG document');
SELECT ok(ranread_report() LIKE '%<section id="latency-heatmap"><h2>Latency by second, batch 990001</h2>%<svg%',
    'the report shows the latest batch''s heatmap');
SELECT is(pg_temp.error_of('SELECT ranread_latency_heatmap(-5)'), '42704: batch -5 does not exist', 'a batch that does not exist is refused, named');
-- a later batch whose seconds' histograms hold no I/O: a clean error, and
-- the report shows the batch before it
INSERT INTO ranread_batches (batch, run_at, target, tablespace, processes, duration, block_size,
    queue_depth, write_pct, pattern, region_start, region_end, seed, workers, engine, reads,
    writes, seconds, iops, mbps, avg_ms, p99_ms, max_ms, status, groups, distribution)
VALUES (990002, now(), 'tap_heat', 'pg_default', 1, '2s', 8192, 1, 0, 'random', 0, 100, 1, 1, 'io_uring',
        0, 0, 2, 0, 0, NULL, NULL, NULL, 'completed', 1, 'uniform');
INSERT INTO ranread_intervals (batch, second, reads, writes, iops, avg_ms, max_ms, grp, histogram)
VALUES (990002, 0, 0, 0, 0, NULL, NULL, 1, pg_temp.h(0, 0)), (990002, 1, 0, 0, 0, NULL, NULL, 1, pg_temp.h(0, 0));
SELECT is(pg_temp.error_of('SELECT ranread_latency_heatmap(990002)'),
    'P0002: batch 990002 has no I/O in its per-second latency histograms',
    'a batch whose histograms hold no I/O is refused, named');
SELECT ok(ranread_report() LIKE '%<h2>Latency by second, batch 990001</h2>%',
    'and the report shows the latest batch whose histograms hold I/Os');
DELETE FROM ranread_intervals WHERE histogram IS NOT NULL;
SELECT is(pg_temp.error_of('SELECT ranread_latency_heatmap()'), 'P0002: no batch has per-second latency histograms yet',
    'with no histograms at all, the default is refused with what to run');
SELECT * FROM finish();
ROLLBACK;
