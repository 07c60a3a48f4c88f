-- Percentiles over time (docs/charts-and-reports.md): every second of a
-- batch's measured part has its latency histogram, every process of its group merged; a group's
-- seconds sum to its histogram exactly (the last second is the rest of it,
-- src/run/batch.h), each second's count is its own I/Os (give or take those of
-- the leader's jitter at its edges, src/run/batch.h), and
-- ranread_percentiles_over_time gives each second's p50 and p99 from them.
BEGIN;
SET client_min_messages = error;
SELECT plan(10);

SELECT ok((SELECT size_bytes = 33554432 FROM ranread_setup('32MB', target => 'tap_seconds')), 'a 32MB target');
CREATE TEMP TABLE r1 AS SELECT * FROM ranread_run(2, target => 'tap_seconds', duration => '3s', queue_depth => 2);
CREATE TEMP TABLE s1 AS
SELECT i.second, i.reads + i.writes AS ios, ranread_hist_count(i.histogram) AS hist_ios, i.histogram
  FROM ranread_intervals i WHERE i.batch = (SELECT batch FROM r1) ORDER BY i.second;
SELECT is((SELECT count(*) FROM s1 WHERE histogram IS NULL), 0::bigint,
    'every second of a 3 s batch has its latency histogram');
SELECT is((SELECT sum(hist_ios) FROM s1)::bigint,
    (SELECT ranread_hist_count(histogram) FROM ranread_batches WHERE batch = (SELECT batch FROM r1)),
    'the seconds'' histograms sum to the batch''s histogram count exactly');
SELECT is((SELECT sum(ios) FROM s1)::bigint, (SELECT sum(hist_ios) FROM s1)::bigint,
    '... which is every I/O of the seconds');
SELECT ok((SELECT bool_and(abs(hist_ios - ios) <= 0.35 * ios + 20) FROM s1 WHERE second < (SELECT max(second) FROM s1)),
    'each second''s histogram holds about its own I/Os (within the leader''s jitter at its edges)');
SELECT results_eq(
    $$SELECT second, p50_ms, p99_ms FROM ranread_percentiles_over_time WHERE batch = (SELECT batch FROM r1) ORDER BY second$$,
    $$SELECT second, ranread_internal.ranread_round(ranread_hist_percentile(histogram, 50), 3)::numeric(15,3),
             ranread_internal.ranread_round(ranread_hist_percentile(histogram, 99), 3)::numeric(15,3) FROM s1 ORDER BY second$$,
    'ranread_percentiles_over_time: each second''s p50 and p99 from its merged histogram');
SELECT ok((SELECT bool_and(p.p50_ms <= p.p99_ms AND p.p99_ms <= b.max_ms + 0.001)
             FROM ranread_percentiles_over_time p JOIN ranread_batches b USING (batch)
            WHERE p.batch = (SELECT batch FROM r1)),
    '... ordered, and within the batch''s maximum');

SELECT ok(ranread_timeline((SELECT batch FROM r1)) LIKE '%>p99 latency, merged histograms (right)<%',
    'ranread_timeline draws each second''s p99 from its merged histograms');

-- a mix: each group's seconds sum to that group's histogram
CREATE TEMP TABLE m1 AS SELECT * FROM ranread_mix($$[
    {"label": "readers", "processes": 1},
    {"label": "writers", "processes": 1, "write_pct": 100}]$$, duration => '2s', target => 'tap_seconds');
SELECT is((SELECT count(*) FROM ranread_groups g
            WHERE g.batch = (SELECT max(batch) FROM ranread_batches)
              AND ranread_hist_count(g.histogram) =
                  (SELECT sum(ranread_hist_count(i.histogram)) FROM ranread_intervals i
                    WHERE i.batch = g.batch AND i.grp = g.grp)), 2::bigint,
    'a mix: each group''s seconds sum to that group''s histogram count');
SELECT is((SELECT sum(histogram_ios) FROM ranread_percentiles_over_time
            WHERE batch = (SELECT max(batch) FROM ranread_batches))::bigint,
    (SELECT ranread_hist_count(histogram) FROM ranread_batches WHERE batch = (SELECT max(batch) FROM ranread_batches)),
    '... and ranread_percentiles_over_time merges the groups of each second');

SELECT * FROM finish();
ROLLBACK;
