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

-- The seed's GROUP BY batch, precomputed: one row per batch.  A row left
-- 'running' by a batch that no longer runs (a crash, a killed worker, a
-- recording that gave up) shows as failed.
CREATE OR REPLACE VIEW @extschema@.ranread_summary AS
SELECT b.batch, b.run_at, b.target, b.processes, b.iterations, b.block_size,
       b.write_pct, b.reads, b.writes, b.iops, b.mbps, b.avg_ms, b.p99_ms,
       b.max_ms,
       CASE WHEN b.status = 'running' AND NOT coalesce(@extschema@.ranread_batch_live(b.batch), true)
            THEN 'failed' ELSE b.status END AS status,
       b.sweep,
       b.queue_depth, b.pattern, b.duration, b.seconds, b.min_ms, b.p50_ms,
       b.p95_ms, b.p999_ms, b.read_avg_ms, b.read_p99_ms, b.write_avg_ms,
       b.write_p99_ms, b.engine, b.workers, b.seed, b.buffer_pages,
       CASE WHEN b.status = 'running' AND NOT coalesce(@extschema@.ranread_batch_live(b.batch), true)
            THEN coalesce(b.message, 'the batch no longer runs and its history was never written: a server restart, a killed worker, or a recording that gave up ended it')
            ELSE b.message END AS message,
       b.tablespace, b.filesystem, b.timing, b.busy, b.notes
  FROM @extschema@.ranread_batches b;
