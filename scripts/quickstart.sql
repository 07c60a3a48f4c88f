-- The quickstart's session (scripts/quickstart): psql variables size,
-- processes and out come from the command line.
\pset footer off
SET client_min_messages = notice;
CREATE EXTENSION ranread;

\echo
\echo == ranread_setup: a small target, every block written (a real one is >= 2x RAM)
SELECT target, tablespace, pg_size_pretty(size_bytes) AS size,
       round(seconds::numeric, 2) AS seconds, round(mbps::numeric) AS mbps
  FROM ranread_setup(:'size');

\echo
\echo == ranread_run: :processes processes x 10000 random 8 KiB reads
SELECT batch, processes, reads, round(seconds::numeric, 2) AS seconds,
       round(iops) AS iops, round(avg_ms::numeric, 3) AS avg_ms,
       round(p99_ms::numeric, 3) AS p99_ms, round(max_ms::numeric, 3) AS max_ms, status
  FROM ranread_run(:processes, 10000);

\echo
\echo == ranread_sweep: 1, 2, 4 ... processes until latency or scaling says stop
SELECT * FROM ranread_sweep(start => 1, max_processes => 64, duration => '3s');

\echo
\echo == ranread_summary: every batch so far
SELECT * FROM ranread_summary ORDER BY batch;

\echo
SELECT ranread_export(:'out', 'svg') AS chart;
SELECT ranread_export(:'out', 'csv') AS summary;
