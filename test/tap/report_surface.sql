-- The report surface: the functions, the sweep verdict table and view, who
-- may use them, and that pg_dump keeps the sweeps.
BEGIN;
SELECT plan(24);

SELECT has_function('ranread_export', ARRAY['text', 'text'], 'ranread_export(directory, format) exists');
SELECT function_returns('ranread_export', ARRAY['text', 'text'], 'text', 'ranread_export returns the path');
SELECT is(pg_get_function_arguments('ranread_export(text, text)'::regprocedure),
    'directory text, format text DEFAULT ''tsv''::text', 'ranread_export''s format defaults to tsv');
SELECT has_function('ranread_chart', ARRAY['bigint'], 'ranread_chart(sweep) exists');
SELECT is(pg_get_function_arguments('ranread_chart(bigint)'::regprocedure),
    'sweep bigint DEFAULT NULL::bigint', 'ranread_chart''s sweep defaults to NULL (the latest)');
SELECT has_function('ranread_timeline', ARRAY['bigint'], 'ranread_timeline(batch) exists');
SELECT is(pg_get_function_arguments('ranread_sweep'::regproc),
    'start integer DEFAULT 10, max_processes integer DEFAULT 1280, iterations bigint DEFAULT NULL::bigint, '
    'duration interval DEFAULT ''00:00:30''::interval, max_avg_ms double precision DEFAULT 10, '
    'target name DEFAULT ''ranread''::name, block_size integer DEFAULT 8192, write_pct integer DEFAULT 0, '
    'queue_depth integer DEFAULT 1, pattern text DEFAULT ''random''::text, '
    'region_start double precision DEFAULT 0, region_end double precision DEFAULT 100, '
    'warmup interval DEFAULT ''00:00:00''::interval, rate_iops integer DEFAULT NULL::integer, '
    'seed bigint DEFAULT NULL::bigint, workers integer DEFAULT NULL::integer, '
    'distribution text DEFAULT ''uniform''::text, steady_state text DEFAULT NULL::text, '
    'sync text DEFAULT NULL::text, io_priority text DEFAULT NULL::text, verify boolean DEFAULT false, '
    'path text DEFAULT ''device''::text, effective_io_concurrency integer DEFAULT NULL::integer',
    'ranread_sweep takes the methodology''s arguments and every ranread_run option, with their defaults');
SELECT is(pg_get_function_result('ranread_sweep'::regproc),
    'TABLE(step integer, processes integer, batch bigint, iops bigint, avg_ms numeric, '
    'p99_ms numeric, max_ms numeric, within_bound boolean, stop_reason text)',
    'ranread_sweep returns one row per step, its figures rounded (IOPS whole, ms to 0.001)');
SELECT has_function('ranread_internal', 'ranread_sweep_next', ARRAY['ranread_sweep_step[]', 'integer', 'integer', 'double precision'],
    'the stop rules are a function of their own');
SELECT has_function('ranread_internal', 'ranread_sweep_judge', ARRAY['ranread_sweep_step[]', 'double precision'],
    'so is the verdict');
SELECT is(provolatile, 'i', 'the stop rules are pure (immutable)')
  FROM pg_proc WHERE oid = 'ranread_internal.ranread_sweep_next'::regproc;

SELECT has_table('ranread_sweeps', 'table ranread_sweeps keeps one row per sweep');
SELECT col_is_pk('ranread_sweeps', 'sweep', 'keyed by sweep id');
SELECT has_view('ranread_sweep_verdict', 'view ranread_sweep_verdict gives the verdicts');
SELECT columns_are('ranread_sweep_verdict', ARRAY['sweep', 'started_at', 'target', 'block_size',
    'write_pct', 'queue_depth', 'pattern', 'max_avg_ms', 'steps', 'max_iops', 'actual_latency_ms',
    'processes', 'batch', 'meets_flash_guidance', 'stop_reason', 'flash_guidance'],
    'the verdict: max IOPS within the bound, its latency, processes and batch, the flash guidance (and in words)');
SELECT ok((SELECT 'ranread_sweeps'::regclass = ANY (extconfig) FROM pg_extension WHERE extname = 'ranread'),
    'pg_dump keeps the sweeps (pg_extension_config_dump)');

-- Privileges
CREATE ROLE ranread_test_nobody;
CREATE ROLE ranread_test_monitor IN ROLE pg_monitor;
SELECT ok(NOT has_function_privilege('ranread_test_nobody', 'ranread_export(text, text)', 'EXECUTE'),
    'ranread_export is not executable by PUBLIC');
SELECT ok(NOT has_function_privilege('ranread_test_nobody', 'ranread_sweep'::regproc, 'EXECUTE'),
    'ranread_sweep is not executable by PUBLIC');
SELECT ok(NOT has_function_privilege('ranread_test_nobody', 'ranread_chart(bigint)', 'EXECUTE'),
    'ranread_chart is not executable by PUBLIC');
SELECT ok(NOT has_table_privilege('ranread_test_nobody', 'ranread_sweeps', 'SELECT'),
    'ranread_sweeps is not readable by PUBLIC');
SELECT ok(has_table_privilege('ranread_test_monitor', 'ranread_sweeps', 'SELECT')
      AND has_table_privilege('ranread_test_monitor', 'ranread_sweep_verdict', 'SELECT'),
    'pg_monitor reads the sweeps and their verdicts');
SELECT ok(has_function_privilege('ranread_test_monitor', 'ranread_chart(bigint)', 'EXECUTE')
      AND has_function_privilege('ranread_test_monitor', 'ranread_timeline(bigint)', 'EXECUTE'),
    'pg_monitor may draw the charts of the history it can read');
SELECT ok(NOT has_function_privilege('ranread_test_monitor', 'ranread_export(text, text)', 'EXECUTE'),
    'pg_monitor may not write server files');
SELECT ok(NOT has_table_privilege('ranread_test_monitor', 'ranread_sweeps', 'INSERT'),
    'pg_monitor may not change the sweeps');

SELECT * FROM finish();
ROLLBACK;
