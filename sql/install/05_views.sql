-- The views over the history and the target catalog, and the C functions
-- they call to say what is true now (a batch still live, where a target's
-- files are).  Replaceable objects only: the upgrade script includes this
-- file whole.

-- Is a 'running' row of this batch true?  While it runs, and for the last
-- batch once its history is committed; NULL on a standby.  (src/ranread.c)
CREATE OR REPLACE FUNCTION @extschema@.ranread_batch_live(batch bigint)
RETURNS boolean
AS 'MODULE_PATHNAME', 'ranread_batch_live'
LANGUAGE C STRICT VOLATILE;

-- 'ready', 'empty' (crash recovery reset the unlogged relation), or
-- 'missing'/'damaged' when someone went behind the extension's back.
CREATE OR REPLACE FUNCTION @extschema@.ranread_target_state(relid oid, size_bytes bigint)
RETURNS text
AS 'MODULE_PATHNAME', 'ranread_target_state'
LANGUAGE C STRICT STABLE;

-- A target's state, the tablespace its files are in now, whether routine
-- maintenance leaves it alone, and what to do about it.  (src/target.c)
CREATE OR REPLACE FUNCTION @extschema@.ranread_target_info(relid oid, size_bytes bigint,
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
       LATERAL @extschema@.ranread_target_info(c.relid, c.size_bytes) i;

-- Relations of the ranread_target access method that would hold back the
-- database's datfrozenxid, each with the command that fixes it: relations
-- that are not targets (made with CREATE TABLE ... USING ranread_target,
-- SET ACCESS METHOD or CREATE MATERIALIZED VIEW ... USING by a build that
-- did not refuse them yet), and targets that hold a transaction id.  Empty
-- where this 1.1 made every relation of the method.  (src/target_am.c)
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
       -- a durability test's file (src/durability.c), which holds no xid
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
CREATE OR REPLACE FUNCTION @extschema@.ranread_status_now(status text, batch bigint,
    message text, OUT status text, OUT message text)
LANGUAGE sql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT CASE WHEN gone THEN 'failed' ELSE $1 END,
           CASE WHEN gone THEN coalesce($3, 'the batch no longer runs and its history was never written: a server restart, a killed worker, or a recording that gave up ended it')
                ELSE $3 END
      FROM (SELECT $1 = 'running' AND NOT coalesce(@extschema@.ranread_batch_live($2), true) AS gone) g
$$;

-- The seed's GROUP BY batch, precomputed: one row per batch.
CREATE OR REPLACE VIEW @extschema@.ranread_summary AS
SELECT b.batch, b.run_at, b.target, b.processes, b.iterations, b.block_size,
       b.write_pct, b.reads, b.writes, b.iops, b.mbps, b.avg_ms, b.p99_ms,
       b.max_ms, n.status, b.sweep,
       b.queue_depth, b.pattern, b.duration, b.seconds, b.min_ms, b.p50_ms,
       b.p95_ms, b.p999_ms, b.read_avg_ms, b.read_p99_ms, b.write_avg_ms,
       b.write_p99_ms, b.engine, b.workers, b.seed, b.buffer_pages, n.message,
       b.tablespace, b.filesystem, b.timing, b.busy, b.notes,
       b.groups, b.distribution, b.first_io_at, b.steady_state, b.ended_steady,
       b.steady, b.steady_excursion, b.steady_slope, b.mix,
       b.sync, b.start_at, b.study, b.point, b.fleet, b.commit_test
  FROM @extschema@.ranread_batches b,
       LATERAL @extschema@.ranread_status_now(b.status, b.batch, b.message) n;

-- One row per group of every batch (a plain batch has one group), with the
-- batch's time and status: the mixed workloads' per-group figures.
CREATE OR REPLACE VIEW @extschema@.ranread_group_summary AS
SELECT g.batch, g.grp, g.label, b.run_at, n.status, g.target, g.tablespace,
       g.processes, g.iterations, g.block_size, g.queue_depth, g.write_pct,
       g.pattern, g.region_start, g.region_end, g.rate_iops, g.distribution,
       g.reads, g.writes, g.seconds, g.iops, g.mbps, g.avg_ms, g.min_ms,
       g.p50_ms, g.p95_ms, g.p99_ms, g.p999_ms, g.max_ms, g.read_avg_ms,
       g.read_p99_ms, g.write_avg_ms, g.write_p99_ms, g.busy, g.first_io_at,
       b.sweep, g.sync, g.writes_per_op, b.study, b.point, b.fleet, b.commit_test
  FROM @extschema@.ranread_groups g
  JOIN @extschema@.ranread_batches b USING (batch),
       LATERAL @extschema@.ranread_status_now(b.status, b.batch, b.message) n;

-- 1.1: every commit test's rows from the history, one per test that ran
CREATE OR REPLACE VIEW @extschema@.ranread_commit_summary AS
SELECT b.commit_test, b.batch, b.run_at,
       pg_catalog.split_part(g.label, ': ', 1) AS test,
       coalesce(g.sync, 'none') AS method,
       g.writes_per_op AS writes,
       g.block_size / g.writes_per_op / 1024 AS write_kb,
       g.iops AS ops_per_s, g.avg_ms, g.p50_ms, g.p95_ms, g.p99_ms, g.p999_ms,
       g.max_ms, g.sync IS NOT NULL AS durable, n.status, n.message,
       b.tablespace, b.filesystem
  FROM @extschema@.ranread_batches b
  JOIN @extschema@.ranread_groups g USING (batch),
       LATERAL @extschema@.ranread_status_now(b.status, b.batch, b.message) n
 WHERE b.commit_test IS NOT NULL;
