-- The views over the history and the target catalog, and the C functions
-- they call to say what is true now (a batch still live, where a target's
-- files are).

-- Is a 'running' row of this batch true?  While it runs, and for the last
-- batch once its history is committed; NULL on a standby.  (src/ranread.c)
CREATE OR REPLACE FUNCTION ranread_internal.ranread_batch_live(batch bigint)
RETURNS boolean
AS 'MODULE_PATHNAME', 'ranread_batch_live'
LANGUAGE C STRICT VOLATILE;

-- 'ready', 'empty' (crash recovery reset the unlogged relation), or
-- 'missing'/'damaged' when someone went behind the extension's back.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_target_state(relid oid, size_bytes bigint)
RETURNS text
AS 'MODULE_PATHNAME', 'ranread_target_state'
LANGUAGE C STRICT STABLE;

-- A target's state, the tablespace its files are in now, whether routine
-- maintenance leaves it alone, and what to do about it.  (src/target/target.c)
CREATE OR REPLACE FUNCTION ranread_internal.ranread_target_info(relid oid, size_bytes bigint,
    OUT state text, OUT tablespace name, OUT protected boolean, OUT note text)
AS 'MODULE_PATHNAME', 'ranread_target_info'
LANGUAGE C STRICT STABLE;

CREATE OR REPLACE VIEW @extschema@.ranread_targets AS
SELECT c.target,
       coalesce(i.tablespace, c.tablespace) AS tablespace,
       c.size_bytes,
       c.created_at,
       i.state,
       i.protected,
       i.note
  FROM @extschema@.ranread_target_catalog c,
       LATERAL ranread_internal.ranread_target_info(c.relid, c.size_bytes) i;

-- Relations of the ranread_target access method that would hold back the
-- database's datfrozenxid, each with the command that fixes it: relations
-- that are not targets (made with CREATE TABLE ... USING ranread_target,
-- SET ACCESS METHOD or CREATE MATERIALIZED VIEW ... USING by a build that
-- did not refuse them yet), and targets that hold a transaction id.  Empty
-- where this 1.1 made every relation of the method.  (src/target/target_am.c)
CREATE OR REPLACE FUNCTION @extschema@.ranread_target_check(
    OUT relation regclass, OUT problem text, OUT fix text)
RETURNS SETOF record
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT c.oid::regclass,
           format('%s uses the ranread_target access method but is not a ranread target; VACUUM never processes it, so its relfrozenxid %s holds back the database''s datfrozenxid',
                  CASE c.relkind WHEN 'm' THEN 'materialized view' ELSE 'table' END, c.relfrozenxid),
           format('DROP %s %s;', CASE c.relkind WHEN 'm' THEN 'MATERIALIZED VIEW' ELSE 'TABLE' END, c.oid::regclass)
      FROM pg_class c
     WHERE c.relam = (SELECT a.oid FROM pg_am a WHERE a.amname = 'ranread_target')
       AND c.oid NOT IN (SELECT t.relid FROM @extschema@.ranread_target_catalog t)
       -- a durability test's file (src/advise/durability.c), which holds no xid
       AND NOT (c.relnamespace = 'ranread_target'::regnamespace
                AND c.relname ~ '^ranread_durability_[0-9]+$' AND c.relfrozenxid::text = '0')
    UNION ALL
    SELECT c.oid::regclass,
           format('target %s holds transaction ids (relfrozenxid %s, relminmxid %s) that VACUUM never advances',
                  quote_literal(t.target), c.relfrozenxid, c.relminmxid),
           format('SELECT * FROM @extschema@.ranread_setup(%L, %L, %L);',
                  pg_size_pretty(t.size_bytes), t.tablespace, t.target)
      FROM @extschema@.ranread_target_catalog t
      JOIN pg_class c ON c.oid = t.relid
     WHERE c.relam = (SELECT a.oid FROM pg_am a WHERE a.amname = 'ranread_target')
       AND (c.relfrozenxid::text <> '0' OR c.relminmxid::text <> '0')
     ORDER BY 1
$$;

-- What a batch's status is now: its row's, but a row left 'running' by a
-- batch that no longer runs (a crash, a killed worker, a recording that gave
-- up) is failed, and says so.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_status_now(status text, batch bigint,
    message text, OUT status text, OUT message text)
LANGUAGE sql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN gone THEN 'failed' ELSE $1 END,
           CASE WHEN gone THEN coalesce($3, 'the batch no longer runs and its history was never written: a server restart, a killed worker, or a recording that gave up ended it')
                ELSE $3 END
      FROM (SELECT $1 = 'running' AND NOT coalesce(ranread_internal.ranread_batch_live($2), true) AS gone) g
$$;

-- A figure rounded as a person reads it (README, "Reading the results"):
-- NULL when it is not a finite number.  The views cast the result to the
-- column's numeric(p,s), so that the scale is in the catalog too; the
-- tables keep every figure whole, and ranread_export writes those.  No SET
-- clause, every name qualified: the planner inlines it into the views.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_round(v float8, places integer)
RETURNS numeric
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
    SELECT CASE WHEN pg_catalog.abs(v) OPERATOR(pg_catalog.<) 'Infinity'::pg_catalog.float8
                THEN pg_catalog.round(v::pg_catalog.numeric, places) END
$$;

-- The same, NULL too where the rounded figure does not fit the column's
-- numeric(digits, places) (digits 18: a bigint), so that one damaged row
-- (a figure of 1e20 ms) leaves its figure NULL instead of failing the view
-- for everyone (docs/design.md, "What any role may call").  New in 1.2.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_round(v float8, places integer, digits integer)
RETURNS numeric
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
    SELECT CASE WHEN pg_catalog.abs(v) OPERATOR(pg_catalog.<) 'Infinity'::pg_catalog.float8
                 AND pg_catalog.abs(pg_catalog.round(v::pg_catalog.numeric, places))
                     OPERATOR(pg_catalog.<) pg_catalog.power(10::pg_catalog.numeric, digits OPERATOR(pg_catalog.-) places)
                THEN pg_catalog.round(v::pg_catalog.numeric, places) END
$$;

-- A count and its noun, singular or plural: "1 process", "8 processes",
-- "1 node", "3 nodes" (every message and subtitle that counts says it so)
CREATE OR REPLACE FUNCTION ranread_internal.ranread_count_words(n numeric, one text)
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT n::text || ' ' || CASE WHEN n OPERATOR(pg_catalog.=) 1 THEN one
                                  WHEN one ~ '(s|x|ch|sh)$' THEN one || 'es'
                                  ELSE one || 's' END
$$;

-- Every column of a batch, its figures whole: what ranread_export writes
-- and what the report and the charts read.
CREATE OR REPLACE VIEW ranread_internal.ranread_summary_raw AS
SELECT b.batch, b.run_at, b.target, b.processes, b.iterations, b.block_size,
       b.write_pct, b.reads, b.writes, b.iops, b.mbps, b.avg_ms, b.p99_ms,
       b.max_ms, n.status, b.sweep,
       b.queue_depth, b.pattern, b.duration, b.seconds, b.min_ms, b.p50_ms,
       b.p95_ms, b.p999_ms, b.read_avg_ms, b.read_p99_ms, b.write_avg_ms,
       b.write_p99_ms, b.engine, b.workers, b.seed, b.buffer_pages, n.message,
       b.tablespace, b.filesystem, b.timing, b.busy, b.notes,
       b.groups, b.distribution, b.first_io_at, b.steady_state, b.ended_steady,
       b.steady, b.steady_excursion, b.steady_slope, b.mix,
       b.sync, b.start_at, b.study, b.point, b.fleet, b.commit_test,
       b.cpu_user_pct, b.cpu_sys_pct, b.cpu_us_per_io, b.device,
       b.device_util_pct, b.lat_stddev_ms,
       b.path, b.effective_io_concurrency, b.cache_pct
  FROM @extschema@.ranread_batches b,
       LATERAL ranread_internal.ranread_status_now(b.status, b.batch, b.message) n;

-- Every column of a batch as a person reads it: IOPS whole, MiB/s (mbps)
-- to 0.1, seconds to 0.001, latencies in ms to 0.001; the columns of 1.0's
-- ranread_summary first, in their order.
CREATE OR REPLACE VIEW @extschema@.ranread_summary_full AS
SELECT b.batch, b.run_at, b.target, b.processes, b.iterations, b.block_size,
       b.write_pct, b.reads, b.writes,
       ranread_internal.ranread_round(b.iops, 0, 18)::bigint AS iops,
       ranread_internal.ranread_round(b.mbps, 1, 14)::numeric(14,1) AS mbps,
       ranread_internal.ranread_round(b.avg_ms, 3, 15)::numeric(15,3) AS avg_ms,
       ranread_internal.ranread_round(b.p99_ms, 3, 15)::numeric(15,3) AS p99_ms,
       ranread_internal.ranread_round(b.max_ms, 3, 15)::numeric(15,3) AS max_ms,
       b.status, b.sweep,
       b.queue_depth, b.pattern, b.duration,
       ranread_internal.ranread_round(b.seconds, 3, 12)::numeric(12,3) AS seconds,
       ranread_internal.ranread_round(b.min_ms, 3, 15)::numeric(15,3) AS min_ms,
       ranread_internal.ranread_round(b.p50_ms, 3, 15)::numeric(15,3) AS p50_ms,
       ranread_internal.ranread_round(b.p95_ms, 3, 15)::numeric(15,3) AS p95_ms,
       ranread_internal.ranread_round(b.p999_ms, 3, 15)::numeric(15,3) AS p999_ms,
       ranread_internal.ranread_round(b.read_avg_ms, 3, 15)::numeric(15,3) AS read_avg_ms,
       ranread_internal.ranread_round(b.read_p99_ms, 3, 15)::numeric(15,3) AS read_p99_ms,
       ranread_internal.ranread_round(b.write_avg_ms, 3, 15)::numeric(15,3) AS write_avg_ms,
       ranread_internal.ranread_round(b.write_p99_ms, 3, 15)::numeric(15,3) AS write_p99_ms,
       b.engine, b.workers, b.seed, b.buffer_pages, b.message,
       b.tablespace, b.filesystem, b.timing,
       ranread_internal.ranread_round(b.busy, 2, 6)::numeric(6,2) AS busy,
       b.notes, b.groups, b.distribution, b.first_io_at, b.steady_state, b.ended_steady,
       b.steady,
       ranread_internal.ranread_round(b.steady_excursion, 3, 12)::numeric(12,3) AS steady_excursion,
       ranread_internal.ranread_round(b.steady_slope, 3, 12)::numeric(12,3) AS steady_slope,
       b.mix, b.sync, b.start_at, b.study, b.point, b.fleet, b.commit_test,
       ranread_internal.ranread_round(b.cpu_user_pct, 1, 8)::numeric(8,1) AS cpu_user_pct,
       ranread_internal.ranread_round(b.cpu_sys_pct, 1, 8)::numeric(8,1) AS cpu_sys_pct,
       ranread_internal.ranread_round(b.cpu_us_per_io, 2, 12)::numeric(12,2) AS cpu_us_per_io,
       b.device,
       ranread_internal.ranread_round(b.device_util_pct, 1, 6)::numeric(6,1) AS device_util_pct,
       ranread_internal.ranread_round(b.lat_stddev_ms, 3, 15)::numeric(15,3) AS lat_stddev_ms,
       b.path, b.effective_io_concurrency,
       ranread_internal.ranread_round(b.cache_pct, 1, 6)::numeric(6,1) AS cache_pct
  FROM ranread_internal.ranread_summary_raw b;

-- What a batch ran, in a few words: "random 8K reads", "sequential 1M
-- 30% writes", "mix of 2 groups"; with the sync method of a commit test's.
CREATE OR REPLACE FUNCTION ranread_internal.ranread_workload_words(
    groups integer, pattern text, block_size integer, write_pct integer, sync text)
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN coalesce(groups, 1) > 1 OR block_size IS NULL THEN format('mix of %s groups', groups)
                ELSE format('%s %s %s', pattern,
                            CASE WHEN block_size % 1048576 = 0 THEN (block_size / 1048576) || 'M'
                                 WHEN block_size % 1024 = 0 THEN (block_size / 1024) || 'K'
                                 ELSE block_size || 'B' END,
                            CASE write_pct WHEN 0 THEN 'reads' WHEN 100 THEN 'writes'
                                 ELSE write_pct || '% writes' END)
                     || coalesce(' + ' || sync, '') END
$$;

-- One row per batch that fits a screen: when, where, what ran at which
-- load, and its figures as a person reads them (IOPS whole, MiB/s in mbps
-- to 0.1, ms to 0.001).  ranread_summary_full has every column.  A batch of
-- the server path says so in its workload, and the share of its reads the
-- caches answered.
CREATE OR REPLACE VIEW @extschema@.ranread_summary AS
SELECT f.batch, date_trunc('second', f.run_at) AS run_at, f.tablespace, f.target,
       ranread_internal.ranread_workload_words(f.groups, f.pattern, f.block_size, f.write_pct, f.sync)
       || CASE WHEN f.path OPERATOR(pg_catalog.=) 'server'
               THEN ' through shared buffers' || CASE WHEN f.cache_pct IS NOT NULL
                                                      THEN pg_catalog.format(' (%s%% from caches)', f.cache_pct)
                                                      ELSE '' END
               ELSE '' END AS workload,
       f.processes, f.queue_depth, f.seconds, f.iops, f.mbps, f.avg_ms, f.p99_ms,
       f.max_ms, f.status
  FROM @extschema@.ranread_summary_full f;

-- One line per batch that fits a screen of 120 columns (README, "Reading
-- the results"): what ran, for how long, IOPS, MiB/s (mbps), average and
-- p99 latency (ms) and the status, rounded as in ranread_summary_full.
-- ranread_summary keeps 1.1's columns (when, where, max_ms ...) for the
-- queries that select them; ranread_summary_full has every column.  New in
-- 1.2.
CREATE OR REPLACE VIEW @extschema@.ranread_brief AS
SELECT f.batch, f.processes,
       ranread_internal.ranread_workload_words(f.groups, f.pattern, f.block_size, f.write_pct, f.sync)
       || CASE WHEN f.queue_depth OPERATOR(pg_catalog.>) 1 THEN ' qd ' || f.queue_depth ELSE '' END
       || CASE WHEN f.path OPERATOR(pg_catalog.=) 'server'
               THEN ', server path' || coalesce(pg_catalog.format(' %s%% cached', f.cache_pct), '')
               ELSE '' END AS workload,
       f.seconds, f.iops, f.mbps, f.avg_ms, f.p99_ms, f.status
  FROM @extschema@.ranread_summary_full f;

-- One row per group of every batch (a plain batch has one group), with the
-- batch's time and status: the mixed workloads' per-group figures, rounded
-- as in ranread_summary_full.
CREATE OR REPLACE VIEW @extschema@.ranread_group_summary AS
SELECT g.batch, g.grp, g.label, b.run_at, n.status, g.target, g.tablespace,
       g.processes, g.iterations, g.block_size, g.queue_depth, g.write_pct,
       g.pattern, g.region_start, g.region_end, g.rate_iops, g.distribution,
       g.reads, g.writes,
       ranread_internal.ranread_round(g.seconds, 3)::numeric(12,3) AS seconds,
       ranread_internal.ranread_round(g.iops, 0)::bigint AS iops,
       ranread_internal.ranread_round(g.mbps, 1)::numeric(14,1) AS mbps,
       ranread_internal.ranread_round(g.avg_ms, 3)::numeric(15,3) AS avg_ms,
       ranread_internal.ranread_round(g.min_ms, 3)::numeric(15,3) AS min_ms,
       ranread_internal.ranread_round(g.p50_ms, 3)::numeric(15,3) AS p50_ms,
       ranread_internal.ranread_round(g.p95_ms, 3)::numeric(15,3) AS p95_ms,
       ranread_internal.ranread_round(g.p99_ms, 3)::numeric(15,3) AS p99_ms,
       ranread_internal.ranread_round(g.p999_ms, 3)::numeric(15,3) AS p999_ms,
       ranread_internal.ranread_round(g.max_ms, 3)::numeric(15,3) AS max_ms,
       ranread_internal.ranread_round(g.read_avg_ms, 3)::numeric(15,3) AS read_avg_ms,
       ranread_internal.ranread_round(g.read_p99_ms, 3)::numeric(15,3) AS read_p99_ms,
       ranread_internal.ranread_round(g.write_avg_ms, 3)::numeric(15,3) AS write_avg_ms,
       ranread_internal.ranread_round(g.write_p99_ms, 3)::numeric(15,3) AS write_p99_ms,
       ranread_internal.ranread_round(g.busy, 2)::numeric(6,2) AS busy,
       g.first_io_at,
       b.sweep, g.sync, g.writes_per_op, b.study, b.point, b.fleet, b.commit_test,
       ranread_internal.ranread_round(g.cpu_user_pct, 1)::numeric(8,1) AS cpu_user_pct,
       ranread_internal.ranread_round(g.cpu_sys_pct, 1)::numeric(8,1) AS cpu_sys_pct,
       ranread_internal.ranread_round(g.cpu_us_per_io, 2)::numeric(12,2) AS cpu_us_per_io,
       g.device,
       ranread_internal.ranread_round(g.device_util_pct, 1)::numeric(6,1) AS device_util_pct,
       ranread_internal.ranread_round(g.lat_stddev_ms, 3)::numeric(15,3) AS lat_stddev_ms,
       g.path, g.effective_io_concurrency,
       ranread_internal.ranread_round(g.cache_pct, 1)::numeric(6,1) AS cache_pct
  FROM @extschema@.ranread_groups g
  JOIN @extschema@.ranread_batches b USING (batch),
       LATERAL ranread_internal.ranread_status_now(b.status, b.batch, b.message) n;

-- One row per process of every batch, as a person reads it: ranread_results
-- without its histograms (kilobytes of bytea each), their sizes instead.
CREATE OR REPLACE VIEW @extschema@.ranread_process_summary AS
SELECT r.batch, r.process, r.grp, r.run_at, r.target, r.processes, r.iterations,
       r.block_size, r.queue_depth, r.write_pct, r.pattern, r.reads, r.writes,
       ranread_internal.ranread_round(r.seconds, 3)::numeric(12,3) AS seconds,
       ranread_internal.ranread_round(r.iops, 0)::bigint AS iops,
       ranread_internal.ranread_round(r.avg_ms, 3)::numeric(15,3) AS avg_ms,
       ranread_internal.ranread_round(r.min_ms, 3)::numeric(15,3) AS min_ms,
       ranread_internal.ranread_round(r.p50_ms, 3)::numeric(15,3) AS p50_ms,
       ranread_internal.ranread_round(r.p95_ms, 3)::numeric(15,3) AS p95_ms,
       ranread_internal.ranread_round(r.p99_ms, 3)::numeric(15,3) AS p99_ms,
       ranread_internal.ranread_round(r.p999_ms, 3)::numeric(15,3) AS p999_ms,
       ranread_internal.ranread_round(r.max_ms, 3)::numeric(15,3) AS max_ms,
       ranread_internal.ranread_round(r.read_avg_ms, 3)::numeric(15,3) AS read_avg_ms,
       ranread_internal.ranread_round(r.read_p99_ms, 3)::numeric(15,3) AS read_p99_ms,
       ranread_internal.ranread_round(r.write_avg_ms, 3)::numeric(15,3) AS write_avg_ms,
       ranread_internal.ranread_round(r.write_p99_ms, 3)::numeric(15,3) AS write_p99_ms,
       ranread_internal.ranread_round(r.busy, 2)::numeric(6,2) AS busy,
       ranread_internal.ranread_round(r.lat_stddev_ms, 3)::numeric(15,3) AS lat_stddev_ms,
       r.status,
       octet_length(r.histogram) AS histogram_bytes,
       octet_length(r.write_histogram) AS write_histogram_bytes
  FROM @extschema@.ranread_results r;

-- 1.1: every commit test's rows from the history, one per test that ran
-- (one per round of the one 8 kB write, 1.2), the figures whole (what the
-- advisor decides on).  1.2: direct, whether an open_datasync or open_sync
-- test opened its file with O_DIRECT, as its label says (1.2's end in
-- "(O_DIRECT)" or "(buffered)"; 1.1 always used O_DIRECT); NULL for the
-- other methods.
CREATE OR REPLACE VIEW ranread_internal.ranread_commit_summary_raw AS
SELECT b.commit_test, b.batch, b.run_at,
       pg_catalog.split_part(g.label, ': ', 1) AS test,
       coalesce(g.sync, 'none') AS method,
       g.writes_per_op AS writes,
       g.block_size / g.writes_per_op / 1024 AS write_kb,
       g.iops AS ops_per_s, g.avg_ms, g.p50_ms, g.p95_ms, g.p99_ms, g.p999_ms,
       g.max_ms,
       g.sync IS NOT NULL AS durable, n.status, n.message,
       b.tablespace, b.filesystem,
       CASE WHEN g.sync IN ('open_datasync', 'open_sync') THEN g.label NOT LIKE '% (buffered)' END AS direct
  FROM @extschema@.ranread_batches b
  JOIN @extschema@.ranread_groups g USING (batch),
       LATERAL ranread_internal.ranread_status_now(b.status, b.batch, b.message) n
 WHERE b.commit_test IS NOT NULL;

-- The same as a person reads it: ops/s whole, ms to 0.001
CREATE OR REPLACE VIEW @extschema@.ranread_commit_summary AS
SELECT c.commit_test, c.batch, c.run_at, c.test, c.method, c.writes, c.write_kb,
       ranread_internal.ranread_round(c.ops_per_s, 0)::bigint AS ops_per_s,
       ranread_internal.ranread_round(c.avg_ms, 3)::numeric(15,3) AS avg_ms,
       ranread_internal.ranread_round(c.p50_ms, 3)::numeric(15,3) AS p50_ms,
       ranread_internal.ranread_round(c.p95_ms, 3)::numeric(15,3) AS p95_ms,
       ranread_internal.ranread_round(c.p99_ms, 3)::numeric(15,3) AS p99_ms,
       ranread_internal.ranread_round(c.p999_ms, 3)::numeric(15,3) AS p999_ms,
       ranread_internal.ranread_round(c.max_ms, 3)::numeric(15,3) AS max_ms,
       c.durable, c.status, c.message, c.tablespace, c.filesystem, c.direct
  FROM ranread_internal.ranread_commit_summary_raw c;
