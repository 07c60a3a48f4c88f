-- The standard deviation of latency (lat_stddev_ms), as fio shows it: the
-- sample standard deviation of every I/O's latency, exact (a sum of squared
-- latencies kept beside the histogram, not an estimate from its buckets),
-- per batch, group and process; and in a mix, the groups' shares of the
-- workers' CPU and their device (test/shell/49_fio_stats.sh checks those
-- figures against /proc and /sys).
BEGIN;
SET client_min_messages = error;
SELECT plan(13);

\ir lib/runs.psql

SELECT ok((SELECT size_bytes = 67108864 FROM ranread_setup('64MB', target => 'tap_run_stddev')),
    'a 64MB target');

-- ranread_run(4, duration => '2s', queue_depth => 2) runs a batch
SELECT pg_temp.setup_run('four', $$4, target => 'tap_run_stddev', duration => '2s', queue_depth => 2$$);

-- The batch's figure is that of all its I/Os together: it equals the one
-- pooled from its processes' counts, exact averages and standard deviations
-- (a wrong merge of the sums, or a variance from averaged percentiles, is
-- off by far more than rounding)
CREATE TEMP TABLE pooled AS
SELECT s.batch, s.lat_stddev_ms AS batch_sd,
       sqrt((sum((r.n - 1) * r.sd ^ 2 + r.n * r.mu ^ 2) - sum(r.n) * (sum(r.n * r.mu) / sum(r.n)) ^ 2)
            / (sum(r.n) - 1)) AS pooled_sd
  FROM pg_temp.summary('four') s
  JOIN LATERAL (SELECT (reads + writes)::float8 AS n, avg_ms AS mu, lat_stddev_ms AS sd
                  FROM ranread_results WHERE batch = s.batch) r ON true
 GROUP BY s.batch, s.lat_stddev_ms;
SELECT ok((SELECT batch_sd > 0 FROM pooled), 'a batch of random reads records a positive standard deviation');
SELECT ok((SELECT abs(batch_sd - pooled_sd) <= 1e-6 * pooled_sd FROM pooled),
    'the batch''s standard deviation is the one pooled from its processes'' counts, averages and deviations');

-- Against its own histogram: every latency is in a bucket, so the standard
-- deviation of the buckets' midpoints differs from the exact one by at most
-- sqrt(sum(count x (width / 2)^2) / (n - 1))
CREATE TEMP TABLE buckets AS
SELECT s.lat_stddev_ms AS sd, s.min_ms, s.max_ms, sum(b.count) AS n,
       sqrt((sum(b.count * ((b.low_ms + b.high_ms) / 2) ^ 2)
             - sum(b.count * (b.low_ms + b.high_ms) / 2) ^ 2 / sum(b.count)) / (sum(b.count) - 1)) AS mid_sd,
       sqrt(sum(b.count * ((b.high_ms - b.low_ms) / 2) ^ 2) / (sum(b.count) - 1)) AS bound
  FROM ranread_batches s, ranread_hist_buckets(s.histogram) b
 WHERE s.batch = (SELECT batch FROM runs WHERE label = 'four')
 GROUP BY s.lat_stddev_ms, s.min_ms, s.max_ms;
SELECT ok((SELECT abs(sd - mid_sd) <= bound + 1e-6 FROM buckets),
    'it agrees with the histogram''s buckets within their widths');
SELECT ok((SELECT sd BETWEEN 0 AND max_ms - min_ms FROM buckets),
    'it lies between 0 and the range of the latencies');
SELECT is((SELECT g.lat_stddev_ms FROM ranread_groups g, pg_temp.summary('four') s
            WHERE g.batch = s.batch), (SELECT lat_stddev_ms FROM pg_temp.summary('four')),
    'a one-group batch''s group has the batch''s standard deviation');

-- One I/O has no spread; two have a known one: |a - b| / sqrt(2), where
-- |a - b| is the exact max - min
-- ranread_run(1, 1) runs a batch
SELECT pg_temp.setup_run('one', $$1, 1, target => 'tap_run_stddev'$$);
SELECT is((SELECT lat_stddev_ms FROM pg_temp.summary('one')), 0::float8,
    'a batch of one I/O has a standard deviation of 0');
-- ranread_run(1, 2) runs a batch
SELECT pg_temp.setup_run('two', $$1, 2, target => 'tap_run_stddev'$$);
SELECT ok((SELECT abs(lat_stddev_ms - (max_ms - min_ms) / sqrt(2)) <= 1e-6 FROM pg_temp.summary('two')),
    'a batch of two I/Os has sd = (max - min) / sqrt(2), its hand calculation');

-- Without timing there are no latencies, and no deviation
SET ranread.timing = off;
-- ranread_run(1, 100) runs a batch
SELECT pg_temp.setup_run('untimed', $$1, 100, target => 'tap_run_stddev'$$);
RESET ranread.timing;
SELECT ok((SELECT lat_stddev_ms IS NULL FROM pg_temp.summary('untimed'))
          AND (SELECT bool_and(lat_stddev_ms IS NULL) FROM ranread_results
                WHERE batch = (SELECT batch FROM runs WHERE label = 'untimed')),
    'with ranread.timing off the standard deviation is NULL, per batch and process');

-- A mix of three processes on two workers: one worker drives streams of
-- both groups, and shares its CPU between them by their I/Os
CREATE TEMP TABLE mix AS SELECT * FROM ranread_mix($$[
    {"label": "qd1", "processes": 2},
    {"label": "qd4", "processes": 1, "queue_depth": 4}]$$,
    duration => '2s', workers => 2, target => 'tap_run_stddev');
CREATE TEMP TABLE mixg AS
SELECT g.grp, g.lat_stddev_ms AS sd, g.cpu_us_per_io, g.cpu_user_pct, g.cpu_sys_pct,
       g.reads + g.writes AS ios, g.device, g.device_util_pct,
       (SELECT sqrt((sum((r.reads + r.writes - 1) * r.lat_stddev_ms ^ 2 + (r.reads + r.writes) * r.avg_ms ^ 2)
                     - sum(r.reads + r.writes) * (sum((r.reads + r.writes) * r.avg_ms) / sum(r.reads + r.writes)) ^ 2)
                    / (sum(r.reads + r.writes) - 1))
          FROM ranread_results r WHERE r.batch = g.batch AND r.grp = g.grp) AS pooled_sd
  FROM ranread_groups g WHERE g.batch = (SELECT max(batch) FROM mix);
SELECT ok((SELECT bool_and(abs(sd - pooled_sd) <= 1e-6 * pooled_sd) FROM mixg),
    'each group''s standard deviation is the one pooled from its own processes');
SELECT ok((SELECT abs(sum(g.cpu_us_per_io * g.ios) - s.cpu_us_per_io * (s.reads + s.writes))
                  <= 1e-6 * s.cpu_us_per_io * (s.reads + s.writes)
             FROM mixg g, ranread_batches s WHERE s.batch = (SELECT max(batch) FROM mix)
            GROUP BY s.cpu_us_per_io, s.reads, s.writes),
    'the groups'' CPU time adds up to the batch''s');
SELECT ok((SELECT abs(sum(g.cpu_user_pct + g.cpu_sys_pct) - (s.cpu_user_pct + s.cpu_sys_pct)) <= 1e-6
             FROM mixg g, ranread_batches s WHERE s.batch = (SELECT max(batch) FROM mix)
            GROUP BY s.cpu_user_pct, s.cpu_sys_pct),
    'and so do their percentages of a CPU');
SELECT ok((SELECT bool_and(g.device IS NOT DISTINCT FROM s.device
                           AND g.device_util_pct IS NOT DISTINCT FROM s.device_util_pct)
             FROM mixg g, ranread_batches s WHERE s.batch = (SELECT max(batch) FROM mix)),
    'groups on the batch''s target have its device and utilisation');

-- The figures of every batch above, for the log
SELECT pg_temp.run_log();

SELECT * FROM finish();
ROLLBACK;
