-- 1.1, the commit path: pg_test_fsync's tests as batches (src/commit.c).


-- Each test of a commit test is a batch (ranread_batches.commit_test names
-- the run; ranread_commit_summary, in 05_views.sql, shows them); tablespace
-- is 'pg_wal' for the WAL's filesystem.  Its rows' figures are rounded
-- (ops/s whole, ms to 0.001: src/figures.c, figures_datum).
CREATE OR REPLACE FUNCTION @extschema@.ranread_commit_test(
    tablespace name     DEFAULT NULL,
    duration   interval DEFAULT '5s',
    methods    text[]   DEFAULT NULL)
RETURNS TABLE (commit_test bigint, batch bigint, test text, method text,
               writes integer, write_kb integer, ops_per_s bigint,
               avg_ms numeric, p50_ms numeric, p99_ms numeric, p999_ms numeric,
               max_ms numeric, durable boolean, status text, note text)
AS 'MODULE_PATHNAME', 'ranread_commit_test'
LANGUAGE C CALLED ON NULL INPUT VOLATILE ROWS 15;
