-- 1.1, the commit path: pg_test_fsync's tests as batches (src/advise/commit.c).


-- Each test of a commit test is a batch (ranread_batches.commit_test names
-- the run; ranread_commit_summary, in 05_views.sql, shows them); tablespace
-- is 'pg_wal' for the WAL's filesystem.  Its rows' figures are rounded
-- (ops/s whole, ms to 0.001: src/run/figures.c, figures_datum).  1.2: mode
-- 'server' times open_datasync and open_sync as this server opens its WAL
-- (O_DIRECT only at wal_level minimal), 'pg_test_fsync' with O_DIRECT as
-- pg_test_fsync does (calls says how each test wrote); the one 8 kB write
-- of each durable method runs in rounds until the methods' intervals tell
-- or max_duration (NULL: 3 x duration) is spent, its row the rounds' mean
-- ops/s with their 95% interval (ops_low, ops_high) and batches.
CREATE OR REPLACE FUNCTION @extschema@.ranread_commit_test(
    tablespace   name     DEFAULT NULL,
    duration     interval DEFAULT '5s',
    methods      text[]   DEFAULT NULL,
    mode         text     DEFAULT 'server',
    max_duration interval DEFAULT NULL)
RETURNS TABLE (commit_test bigint, batch bigint, test text, method text,
               writes integer, write_kb integer, ops_per_s bigint,
               avg_ms numeric, p50_ms numeric, p99_ms numeric, p999_ms numeric,
               max_ms numeric, durable boolean, status text, note text,
               calls text, rounds integer, ops_low bigint, ops_high bigint, batches bigint[])
AS 'MODULE_PATHNAME', 'ranread_commit_test'
LANGUAGE C CALLED ON NULL INPUT VOLATILE ROWS 15;
