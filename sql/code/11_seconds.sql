-- 1.1, percentiles over time (docs/charts-and-reports.md, "Percentiles over
-- time"): each second's latency percentiles from its merged histogram
-- (ranread_intervals.histogram; src/run/batch.h says how the leader takes them),
-- never from averages.

-- One row per batch and second: the I/Os counted by completion (ios) and
-- those the second's histograms hold (every group merged), and their p50,
-- p99 and p99.9.  A second without a histogram in some group (not timed,
-- or not taken) has NULL figures.
CREATE OR REPLACE VIEW @extschema@.ranread_percentiles_over_time AS
SELECT m.batch, m.second, m.ios,
       @extschema@.ranread_hist_count(m.h) AS histogram_ios,
       ranread_internal.ranread_round(@extschema@.ranread_hist_percentile(m.h, 50), 3)::numeric(15,3) AS p50_ms,
       ranread_internal.ranread_round(@extschema@.ranread_hist_percentile(m.h, 99), 3)::numeric(15,3) AS p99_ms,
       ranread_internal.ranread_round(@extschema@.ranread_hist_percentile(m.h, 99.9), 3)::numeric(15,3) AS p999_ms
  FROM (SELECT i.batch, i.second, sum(i.reads + i.writes) AS ios,
               CASE WHEN bool_and(i.histogram IS NOT NULL)
                    THEN @extschema@.ranread_hist_merge(i.histogram) END AS h
          FROM @extschema@.ranread_intervals i
         GROUP BY i.batch, i.second) m;
COMMENT ON VIEW @extschema@.ranread_percentiles_over_time IS
    'History: per batch and second, the latency percentiles (ms) from the second''s merged histograms, not from averages';
REVOKE ALL ON @extschema@.ranread_percentiles_over_time FROM PUBLIC;

-- One row per batch and second as a person reads it (README, "Reading the
-- results"): ranread_intervals without its histograms (kilobytes of bytea
-- a row), every group of a mix added up: the I/Os, IOPS, the average
-- latency (weighted by the I/Os), p99 from the second's merged histograms
-- (NULL where one was not taken) and the slowest I/O, rounded as
-- ranread_summary_full.  A figure a damaged row makes too large for its
-- column (counts past a bigint, latencies of 1e20 ms) is NULL, never an
-- error for everyone who reads the view.  New in 1.2.
CREATE OR REPLACE VIEW @extschema@.ranread_seconds AS
SELECT m.batch, m.second,
       CASE WHEN pg_catalog.abs(m.reads) OPERATOR(pg_catalog.<=) 9223372036854775807 THEN m.reads::bigint END AS reads,
       CASE WHEN pg_catalog.abs(m.writes) OPERATOR(pg_catalog.<=) 9223372036854775807 THEN m.writes::bigint END AS writes,
       ranread_internal.ranread_round(CASE WHEN pg_catalog.abs(m.iops) OPERATOR(pg_catalog.<) 1e18 THEN m.iops END, 0, 18)::bigint AS iops,
       ranread_internal.ranread_round(CASE WHEN pg_catalog.abs(m.avg_ms) OPERATOR(pg_catalog.<) 1e12 THEN m.avg_ms END, 3, 15)::numeric(15,3) AS avg_ms,
       ranread_internal.ranread_round(@extschema@.ranread_hist_percentile(m.h, 99), 3)::numeric(15,3) AS p99_ms,
       ranread_internal.ranread_round(m.max_ms, 3, 15)::numeric(15,3) AS max_ms
  FROM (SELECT i.batch, i.second, sum(i.reads) AS reads, sum(i.writes) AS writes,
               -- in numeric: no sum or product of a damaged row overflows
               sum(i.iops::numeric) AS iops,
               sum(i.avg_ms::numeric * (i.reads::numeric + i.writes))
                 / NULLIF(sum(i.reads::numeric + i.writes) FILTER (WHERE i.avg_ms IS NOT NULL), 0) AS avg_ms,
               max(i.max_ms) AS max_ms,
               CASE WHEN bool_and(i.histogram IS NOT NULL)
                    THEN @extschema@.ranread_hist_merge(i.histogram) END AS h
          FROM @extschema@.ranread_intervals i
         GROUP BY i.batch, i.second) m;
COMMENT ON VIEW @extschema@.ranread_seconds IS
    'History: per batch and second, every group added up: I/Os, IOPS, average, p99 and slowest latency (ms, rounded); the histograms are in ranread_intervals';
REVOKE ALL ON @extschema@.ranread_seconds FROM PUBLIC;
