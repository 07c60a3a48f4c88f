-- ranread_run(processes, iterations): every process does its iterations;
-- ranread_results has one row per process with its counts, latency
-- percentiles and histogram; ranread_summary has the batch, its figures
-- computed from the processes' (iops summed, average weighted, percentiles
-- from the merged histograms); the row ranread_run returns is the summary's.
BEGIN;
SET client_min_messages = error;
SELECT plan(32);

\ir lib/runs.psql

SELECT ok((SELECT size_bytes = 67108864 FROM ranread_setup('64MB', target => 'tap_run_basic')),
    'a 64MB target');

-- The row ranread_run returns
-- ranread_run(4, 1000) runs a batch
SELECT pg_temp.setup_run('basic', $$4, 1000, target => 'tap_run_basic'$$);
SELECT results_eq(
    $$SELECT target, processes, reads, writes, status FROM runs WHERE label = 'basic'$$,
    $$VALUES ('tap_run_basic'::name, 4, 4000::bigint, 0::bigint, 'completed'::text)$$,
    'it returns the target, the processes, processes x iterations reads, no writes, completed');
SELECT ok((SELECT batch > 0 FROM runs WHERE label = 'basic'), 'it returns the batch number');
SELECT ok((SELECT p50_ms > 0 AND p50_ms <= p95_ms AND p95_ms <= p99_ms AND p99_ms <= p999_ms
                  AND p999_ms <= max_ms FROM runs WHERE label = 'basic'),
    'its percentiles are in order: 0 < p50 <= p95 <= p99 <= p999 <= max');
SELECT ok((SELECT avg_ms > 0 AND avg_ms <= max_ms FROM runs WHERE label = 'basic'),
    'its average latency is positive and at most the maximum');
SELECT ok((SELECT seconds > 0 AND iops > 0 FROM runs WHERE label = 'basic'),
    'it says how many seconds the batch measured and how many IOPS it got');
SELECT ok((SELECT abs(b.mbps - b.iops * 8192 / 1048576.0) <= 1e-9 * b.mbps FROM runs r JOIN ranread_batches b USING (batch)
            WHERE r.label = 'basic'),
    'mbps (MiB/s) is iops times the 8 KiB block size, as recorded');

-- One row per process
CREATE TEMP TABLE procs AS
SELECT * FROM ranread_results WHERE batch = (SELECT batch FROM runs WHERE label = 'basic');
SELECT results_eq(
    $$SELECT process, reads, writes, status FROM procs ORDER BY process$$,
    $$VALUES (1, 1000::bigint, 0::bigint, 'completed'::text), (2, 1000, 0, 'completed'),
             (3, 1000, 0, 'completed'), (4, 1000, 0, 'completed')$$,
    'ranread_results has one row per process, each with its 1000 reads, completed');
SELECT is((SELECT count(*) FROM procs
            WHERE NOT (target = 'tap_run_basic' AND processes = 4 AND iterations = 1000
                       AND block_size = 8192 AND queue_depth = 1 AND write_pct = 0
                       AND pattern = 'random')),
    0::bigint, 'each row records the batch''s target and settings');
SELECT is((SELECT count(*) FROM procs
            WHERE NOT (0 < min_ms AND min_ms <= p50_ms AND p50_ms <= p95_ms AND p95_ms <= p99_ms
                       AND p99_ms <= p999_ms AND p999_ms <= max_ms)),
    0::bigint, 'each process''s percentiles are in order: 0 < min <= p50 <= p95 <= p99 <= p999 <= max');
SELECT is((SELECT count(*) FROM procs WHERE NOT (avg_ms BETWEEN min_ms AND max_ms)), 0::bigint,
    'each process''s average lies between its min and max');
SELECT is((SELECT count(*) FROM procs WHERE ranread_hist_count(histogram) <> reads + writes), 0::bigint,
    'each process''s histogram holds exactly its I/Os: ranread_hist_count(histogram) = reads + writes');
SELECT is((SELECT count(*) FROM procs
            WHERE abs(p50_ms - ranread_hist_percentile(histogram, 50)) > 1e-9
               OR abs(p99_ms - ranread_hist_percentile(histogram, 99)) > 1e-9
               OR abs(p999_ms - ranread_hist_percentile(histogram, 99.9)) > 1e-9),
    0::bigint, 'each process''s percentiles are those of its histogram');
SELECT is((SELECT count(*) FROM procs
            WHERE seconds <= 0 OR abs(iops - (reads + writes) / seconds) > 1e-9 * iops),
    0::bigint, 'each process''s iops is its I/Os over its seconds');

-- One row per batch in the summary, from the processes' figures
CREATE TEMP TABLE summary AS
SELECT * FROM ranread_internal.ranread_summary_raw WHERE batch = (SELECT batch FROM runs WHERE label = 'basic');
SELECT results_eq(
    $$SELECT target, processes, iterations, duration, block_size, write_pct, queue_depth, pattern,
             reads, writes, status FROM summary$$,
    $$VALUES ('tap_run_basic'::name, 4, 1000::bigint, NULL::interval, 8192, 0, 1, 'random'::text,
              4000::bigint, 0::bigint, 'completed'::text)$$,
    'ranread_summary has one row for the batch, with its settings and counts');
SELECT ok((SELECT abs(s.iops - (SELECT sum(iops) FROM procs)) <= 1e-9 * s.iops FROM summary s),
    'the batch''s iops is the sum of its processes'' iops');
SELECT ok((SELECT abs(s.avg_ms - (SELECT sum(avg_ms * (reads + writes)) / sum(reads + writes) FROM procs))
                  <= 1e-9 * s.avg_ms FROM summary s),
    'the batch''s avg_ms is its processes'' averages weighted by their I/Os');
CREATE TEMP TABLE merged AS SELECT ranread_hist_merge(histogram) AS h FROM procs;
SELECT ok((SELECT abs(s.p50_ms - ranread_hist_percentile(m.h, 50)) <= 1e-9
              AND abs(s.p95_ms - ranread_hist_percentile(m.h, 95)) <= 1e-9
              AND abs(s.p99_ms - ranread_hist_percentile(m.h, 99)) <= 1e-9
              AND abs(s.p999_ms - ranread_hist_percentile(m.h, 99.9)) <= 1e-9
             FROM summary s, merged m),
    'the batch''s p50, p95, p99 and p999 come from the merged histograms of its processes');
SELECT is((SELECT ranread_hist_count(h) FROM merged), 4000::bigint,
    'the merged histogram holds every I/O of the batch');
SELECT ok((SELECT s.max_ms = (SELECT max(max_ms) FROM procs) AND s.min_ms = (SELECT min(min_ms) FROM procs)
             FROM summary s),
    'the batch''s min and max are the extremes of its processes''');
SELECT ok((SELECT min_ms <= p50_ms AND p50_ms <= p95_ms AND p95_ms <= p99_ms AND p99_ms <= p999_ms
                  AND p999_ms <= max_ms FROM summary),
    'the batch''s percentiles are in order and within its min and max');
SELECT ok((SELECT abs(mbps - iops * 8192 / 1048576.0) <= 1e-9 * mbps FROM summary),
    'the batch''s mbps is its iops times the block size');
SELECT is((SELECT count(*) FROM procs p, summary s WHERE p.run_at <> s.run_at), 0::bigint,
    'each process row carries the batch''s run_at');
SELECT ok((SELECT r.iops = round(s.iops) AND r.avg_ms = round(s.avg_ms::numeric, 3)::float8
              AND r.p50_ms = round(s.p50_ms::numeric, 3)::float8 AND r.p95_ms = round(s.p95_ms::numeric, 3)::float8
              AND r.p99_ms = round(s.p99_ms::numeric, 3)::float8
              AND r.p999_ms = round(s.p999_ms::numeric, 3)::float8 AND r.max_ms = round(s.max_ms::numeric, 3)::float8
              AND r.seconds = round(s.seconds::numeric, 3)::float8 AND r.mbps = round(s.mbps::numeric, 1)::float8
             FROM runs r, summary s WHERE r.label = 'basic'),
    'the row ranread_run returned is the batch''s recorded row, rounded (IOPS whole, MiB/s to 0.1, seconds to 0.001, ms to 0.001)');
SELECT ok((SELECT s.seconds >= (SELECT max(seconds) FROM procs) - 1e-9 FROM summary s),
    'the batch''s seconds cover its slowest process');

-- Defaults
-- ranread_run(1) runs a batch
SELECT pg_temp.setup_run('default', $$1, target => 'tap_run_basic'$$);
SELECT is((SELECT reads FROM runs WHERE label = 'default'), 10000::bigint,
    'without iterations or duration each process does 10000 I/Os');
SELECT is((SELECT iterations FROM ranread_summary_full WHERE batch = (SELECT batch FROM runs WHERE label = 'default')),
    10000::bigint, 'and the summary says 10000 iterations');
SELECT cmp_ok((SELECT batch FROM runs WHERE label = 'default'), '>', (SELECT batch FROM runs WHERE label = 'basic'),
    'a later batch has a larger batch number');
SELECT is((SELECT count(*) FROM ranread_results WHERE batch = (SELECT batch FROM runs WHERE label = 'default')),
    1::bigint, 'one process, one row');

-- Percentiles are clamped to what was observed: one I/O has one latency
-- a batch of a single I/O runs
SELECT pg_temp.setup_run('single', $$1, 1, target => 'tap_run_basic'$$);
SELECT ok((SELECT reads = 1 AND p50_ms = max_ms AND p95_ms = max_ms AND p99_ms = max_ms AND p999_ms = max_ms
                  AND abs(avg_ms - max_ms) <= 1e-9 FROM runs WHERE label = 'single'),
    'all its percentiles are that I/O''s latency, exactly');

-- The default target is named ranread
SELECT ok((SELECT size_bytes = 8388608 FROM ranread_setup('8MB')), 'a target made with the default name');
-- ranread_run reads the target named ranread by default
SELECT pg_temp.setup_run('default target', $$2, 100$$);
SELECT is((SELECT target::text || ' ' || reads FROM runs WHERE label = 'default target'), 'ranread 200',
    'and says so');

-- The figures of every batch above, for the log
SELECT pg_temp.run_log();

SELECT * FROM finish();
ROLLBACK;
