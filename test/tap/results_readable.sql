-- What a person reads comes back as a DBA reads it: IOPS and ops/s whole
-- (bigint), MiB/s (mbps) to 0.1, seconds to 0.001, latencies in ms to 0.001
-- (numeric), in the views and in the rows the functions return; the history
-- tables and the exports keep every figure whole.  ranread_summary fits a
-- screen, ranread_summary_full has every column, ranread_process_summary is
-- ranread_results without its histograms.
BEGIN;
SET LOCAL client_min_messages = warning;
SELECT plan(44);

\ir lib/util.psql

SELECT ok((SELECT size_bytes > 0 FROM ranread_setup('64MB', target => 'tap_readable')), 'a 64MB target');

-- The catalog: every figure column of the views a person reads, by its
-- name: *iops and ops_per_s bigint, mbps numeric(14,1), seconds
-- numeric(12,3), *_ms numeric(15,3); no float8 but the bounds a caller gave
CREATE TEMP TABLE vcols AS
SELECT c.table_name::text AS v, c.column_name::text AS col, c.data_type::text AS t,
       c.numeric_scale::integer AS scale
  FROM information_schema.columns c
 WHERE c.table_schema = (SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
                          WHERE e.extname = 'ranread')
   AND c.table_name IN ('ranread_summary', 'ranread_summary_full', 'ranread_group_summary',
                        'ranread_commit_summary', 'ranread_process_summary', 'ranread_sweep_verdict',
                        'ranread_study_points', 'ranread_study_overview', 'ranread_latency_target_verdict',
                        'ranread_fleet_summary', 'ranread_fleet_series');
SELECT is((SELECT count(DISTINCT v) FROM vcols), 11::bigint, 'the eleven views are there');
SELECT is((SELECT string_agg(v || '.' || col, ', ' ORDER BY v, col) FROM vcols
            WHERE (col ~ 'iops$' OR col = 'ops_per_s') AND col <> 'rate_iops' AND t <> 'bigint'), NULL,
    'every IOPS and ops/s column of the views is a bigint');
SELECT is((SELECT string_agg(v || '.' || col, ', ' ORDER BY v, col) FROM vcols
            WHERE col ~ '_ms$' AND col NOT IN ('max_avg_ms', 'target_ms')
              AND (t <> 'numeric' OR scale IS DISTINCT FROM 3)), NULL,
    'every latency column (ms) of the views is numeric with scale 3');
SELECT is((SELECT string_agg(v || '.' || col, ', ' ORDER BY v, col) FROM vcols
            WHERE col ~ 'mbps$' AND (t <> 'numeric' OR scale IS DISTINCT FROM 1)), NULL,
    'every MiB/s column (mbps) of the views is numeric with scale 1');
SELECT is((SELECT string_agg(v || '.' || col, ', ' ORDER BY v, col) FROM vcols
            WHERE col IN ('seconds', 'window_seconds', 'elapsed') AND (t <> 'numeric' OR scale IS DISTINCT FROM 3)), NULL,
    'every seconds column of the views is numeric with scale 3');
SELECT is((SELECT string_agg(v || '.' || col, ', ' ORDER BY v, col) FROM vcols WHERE t = 'double precision'),
    'ranread_group_summary.region_end, ranread_group_summary.region_start, ranread_latency_target_verdict.percentile, ranread_latency_target_verdict.target_ms, ranread_study_overview.max_avg_ms, ranread_sweep_verdict.max_avg_ms',
    'no view column is a float but the region and the bounds the caller gave');

-- The result types of the functions that run batches
SELECT is((SELECT string_agg(format('%s.%s %s', a.attrelid::regclass::text, a.attname, format_type(a.atttypid, a.atttypmod)), ', ' ORDER BY a.attrelid::regclass::text, a.attnum)
             FROM pg_attribute a
            WHERE a.attrelid IN ('ranread_run_result'::regclass, 'ranread_setup_result'::regclass,
                                 'ranread_group_result'::regclass, 'ranread_study_result'::regclass)
              AND a.attnum > 0 AND format_type(a.atttypid, a.atttypmod) NOT IN ('bigint', 'integer', 'text', 'name', 'jsonb')),
    'ranread_group_result.seconds numeric(12,3), ranread_group_result.mbps numeric(14,1), ranread_group_result.avg_ms numeric(15,3), ranread_group_result.p50_ms numeric(15,3), ranread_group_result.p95_ms numeric(15,3), ranread_group_result.p99_ms numeric(15,3), ranread_group_result.p999_ms numeric(15,3), ranread_group_result.max_ms numeric(15,3), '
    'ranread_run_result.seconds numeric(12,3), ranread_run_result.mbps numeric(14,1), ranread_run_result.avg_ms numeric(15,3), ranread_run_result.p50_ms numeric(15,3), ranread_run_result.p95_ms numeric(15,3), ranread_run_result.p99_ms numeric(15,3), ranread_run_result.p999_ms numeric(15,3), ranread_run_result.max_ms numeric(15,3), '
    'ranread_setup_result.seconds numeric(12,3), ranread_setup_result.mbps numeric(14,1), '
    'ranread_study_result.mbps numeric(14,1), ranread_study_result.avg_ms numeric(15,3), ranread_study_result.p99_ms numeric(15,3), ranread_study_result.max_ms numeric(15,3)',
    'ranread_run, ranread_mix, ranread_setup and ranread_study return rounded numerics (their IOPS are bigint)');

-- The fleet's rows (ranread_fleet, ranread_fleet_rows) and the fleet
-- sweep's steps: their figures rounded as the others
SELECT is((SELECT string_agg(format('%s %s', a.attname, format_type(a.atttypid, a.atttypmod)), ', ' ORDER BY a.attnum)
             FROM pg_attribute a
            WHERE a.attrelid = 'ranread_fleet_result'::regclass AND a.attnum > 0
              AND a.attname ~ '(iops|mbps|seconds|_ms)$'),
    'seconds numeric(12,3), iops bigint, mbps numeric(14,1), avg_ms numeric(15,3), p50_ms numeric(15,3), p99_ms numeric(15,3), p999_ms numeric(15,3), max_ms numeric(15,3), offset_ms numeric(15,3), rtt_ms numeric(15,3), first_io_ms numeric(15,3)',
    'ranread_fleet and ranread_fleet_rows return rounded figures: IOPS bigint, MiB/s to 0.1, seconds and ms to 0.001');
SELECT is((SELECT string_agg(format('%s %s', a.name, format_type(a.type, NULL)), ', ' ORDER BY a.k)
             FROM pg_proc p, unnest(p.proargnames, p.proallargtypes, p.proargmodes) WITH ORDINALITY a(name, type, mode, k)
            WHERE p.oid = (SELECT oid FROM pg_proc WHERE proname = 'ranread_fleet_sweep'
                              AND pronamespace = (SELECT extnamespace FROM pg_extension WHERE extname = 'ranread'))
              AND a.mode = 't' AND a.name ~ '(iops|_ms)$'),
    'iops bigint, avg_ms numeric, p99_ms numeric, max_ms numeric',
    'ranread_fleet_sweep returns its steps rounded as ranread_sweep does (IOPS bigint, ms numeric)');

-- The screen and the full row
SELECT is((SELECT array_agg(col ORDER BY ordinal) FROM (
              SELECT column_name::text AS col, ordinal_position AS ordinal FROM information_schema.columns
               WHERE table_name = 'ranread_summary' AND table_schema = current_schema()) x),
    ARRAY['batch', 'run_at', 'tablespace', 'target', 'workload', 'processes', 'queue_depth', 'seconds',
          'iops', 'mbps', 'avg_ms', 'p99_ms', 'max_ms', 'status'],
    'ranread_summary has 14 columns: when, where, what ran at which load, and its figures');
SELECT is((SELECT array_agg(x) FROM unnest(ARRAY['batch', 'run_at', 'target', 'processes', 'iterations',
              'block_size', 'write_pct', 'reads', 'writes', 'iops', 'mbps', 'avg_ms', 'p99_ms', 'max_ms',
              'status', 'sweep', 'queue_depth', 'pattern', 'duration', 'seconds', 'min_ms', 'p50_ms',
              'p95_ms', 'p999_ms', 'read_avg_ms', 'read_p99_ms', 'write_avg_ms', 'write_p99_ms', 'engine',
              'workers', 'seed', 'buffer_pages', 'message']) x
            WHERE x NOT IN (SELECT column_name FROM information_schema.columns
                             WHERE table_name = 'ranread_summary_full' AND table_schema = current_schema())),
    NULL, 'ranread_summary_full has every column of 1.0''s ranread_summary');
SELECT is((SELECT count(*) FROM information_schema.columns
            WHERE table_name = 'ranread_summary_full' AND table_schema = current_schema()),
          (SELECT count(*) FROM information_schema.columns
            WHERE table_name = 'ranread_summary_raw' AND table_schema = 'ranread_internal'),
    'ranread_summary_full has every column of the batch the export writes');
SELECT is((SELECT count(*) FROM information_schema.columns
            WHERE table_name = 'ranread_process_summary' AND data_type = 'bytea'), 0::bigint,
    'ranread_process_summary has no bytea column');

-- A batch: what ranread_run returns is the history's figures rounded
CREATE TEMP TABLE r AS SELECT * FROM ranread_run(2, 2000, target => 'tap_readable');
CREATE TEMP TABLE b AS SELECT * FROM ranread_batches WHERE batch = (SELECT batch FROM r);
SELECT is((SELECT status FROM r), 'completed', 'the batch completed');
SELECT ok((SELECT scale(avg_ms) = 3 AND scale(p50_ms) = 3 AND scale(p95_ms) = 3 AND scale(p99_ms) = 3
                  AND scale(p999_ms) = 3 AND scale(max_ms) = 3 FROM r),
    'ranread_run''s latencies have three decimals');
SELECT is((SELECT row(r.iops, r.mbps, r.seconds, r.avg_ms, r.p50_ms, r.p95_ms, r.p99_ms, r.p999_ms, r.max_ms)::text FROM r),
          (SELECT row(round(b.iops)::bigint, round(b.mbps::numeric, 1), round(b.seconds::numeric, 3),
                      round(b.avg_ms::numeric, 3), round(b.p50_ms::numeric, 3), round(b.p95_ms::numeric, 3),
                      round(b.p99_ms::numeric, 3), round(b.p999_ms::numeric, 3), round(b.max_ms::numeric, 3))::text FROM b),
    'ranread_run returns the recorded figures rounded: IOPS whole, MiB/s to 0.1, seconds to 0.001, ms to 0.001');
SELECT ok((SELECT b.avg_ms::numeric <> round(b.avg_ms::numeric, 3) FROM b),
    'the history keeps the average latency whole (more than three decimals)');
SELECT is((SELECT row(s.iops, s.mbps, s.seconds, s.avg_ms, s.p99_ms, s.max_ms)::text FROM ranread_summary s WHERE s.batch = (SELECT batch FROM r)),
          (SELECT row(r.iops, r.mbps, r.seconds, r.avg_ms, r.p99_ms, r.max_ms)::text FROM r),
    'ranread_summary shows what ranread_run returned');
SELECT is((SELECT workload || ' ' || processes || 'x' || queue_depth FROM ranread_summary WHERE batch = (SELECT batch FROM r)),
    'random 8K reads 2x1', 'ranread_summary says what ran in words, and at which load');
SELECT is((SELECT row(f.min_ms, f.p50_ms, f.p95_ms, f.p999_ms, f.read_avg_ms)::text FROM ranread_summary_full f WHERE f.batch = (SELECT batch FROM r)),
          (SELECT row(round(b.min_ms::numeric, 3), round(b.p50_ms::numeric, 3), round(b.p95_ms::numeric, 3),
                      round(b.p999_ms::numeric, 3), round(b.read_avg_ms::numeric, 3))::text FROM b),
    'ranread_summary_full rounds the other latencies alike');
SELECT is((SELECT string_agg(p.iops::text || ' ' || p.avg_ms::text, ',' ORDER BY p.process) FROM ranread_process_summary p WHERE p.batch = (SELECT batch FROM r)),
          (SELECT string_agg(round(x.iops)::text || ' ' || round(x.avg_ms::numeric, 3)::text, ',' ORDER BY x.process) FROM ranread_results x WHERE x.batch = (SELECT batch FROM r)),
    'ranread_process_summary has each process''s figures rounded');
SELECT ok((SELECT bool_and(p.histogram_bytes = octet_length(x.histogram)) FROM ranread_process_summary p
             JOIN ranread_results x USING (batch, process) WHERE p.batch = (SELECT batch FROM r)),
    'ranread_process_summary says how large each process''s histogram is');
SELECT ok(length((SELECT p::text FROM ranread_process_summary p WHERE p.batch = (SELECT batch FROM r) LIMIT 1)) < 400,
    'a row of ranread_process_summary is short (no histogram bytes)');

-- A mix: its groups and total rounded
CREATE TEMP TABLE m AS SELECT * FROM ranread_mix('[{"label": "a", "processes": 1}, {"label": "b", "processes": 1, "write_pct": 50}]',
                                                 iterations => 500, target => 'tap_readable');
SELECT ok((SELECT bool_and(scale(avg_ms) = 3 AND scale(max_ms) = 3 AND scale(mbps) = 1) FROM m),
    'ranread_mix''s rows have ms to three decimals and MiB/s to one');
SELECT is((SELECT string_agg(row(m.iops, m.avg_ms)::text, ',' ORDER BY m.grp) FROM m WHERE m.grp > 0),
          (SELECT string_agg(row(g.iops, g.avg_ms)::text, ',' ORDER BY g.grp) FROM ranread_group_summary g WHERE g.batch = (SELECT max(batch) FROM m)),
    'ranread_group_summary shows the groups as ranread_mix returned them');
SELECT is((SELECT workload FROM ranread_summary WHERE batch = (SELECT max(batch) FROM m)), 'mix of 2 groups',
    'a mix is named as one in ranread_summary');

-- A sweep: its rows rounded, its decisions on the whole figures
CREATE TEMP TABLE sw AS SELECT * FROM ranread_sweep(start => 1, max_processes => 2, duration => '0.3s', target => 'tap_readable');
SELECT ok((SELECT bool_and(scale(avg_ms) <= 3 AND scale(p99_ms) <= 3 AND scale(max_ms) <= 3) FROM sw),
    'ranread_sweep''s latencies have at most three decimals');
SELECT is((SELECT pg_typeof(iops)::text FROM sw LIMIT 1), 'bigint', 'ranread_sweep''s IOPS are whole');
SELECT is((SELECT string_agg(row(sw.iops, sw.avg_ms)::text, ',' ORDER BY sw.step) FROM sw),
          (SELECT string_agg(row(round(b.iops)::bigint, round(b.avg_ms::numeric, 3))::text, ',' ORDER BY b.batch)
             FROM ranread_batches b WHERE b.batch IN (SELECT batch FROM sw)),
    'ranread_sweep''s rows are its steps'' recorded figures, rounded');
SELECT is((SELECT row(v.max_iops, v.actual_latency_ms)::text FROM ranread_sweep_verdict v ORDER BY v.sweep DESC LIMIT 1),
          (SELECT row(round(s.max_iops)::bigint, round(s.actual_latency_ms::numeric, 3))::text FROM ranread_sweeps s ORDER BY s.sweep DESC LIMIT 1),
    'ranread_sweep_verdict rounds the verdict ranread_sweeps keeps whole');

-- A commit test
CREATE TEMP TABLE ct AS SELECT * FROM ranread_commit_test(duration => '0.3s', methods => '{fdatasync}');
SELECT ok((SELECT bool_and(pg_typeof(ops_per_s) = 'bigint'::regtype AND scale(avg_ms) <= 3 AND scale(p99_ms) <= 3
                           AND scale(max_ms) <= 3) FROM ct WHERE status = 'completed'),
    'ranread_commit_test''s ops/s are whole and its latencies have at most three decimals');
SELECT is((SELECT string_agg(row(c.ops_per_s, c.avg_ms)::text, ',' ORDER BY c.batch) FROM ct c WHERE c.rounds = 1),
          (SELECT string_agg(row(s.ops_per_s, s.avg_ms)::text, ',' ORDER BY s.batch) FROM ranread_commit_summary s, ct c
            WHERE c.rounds = 1 AND s.batch = c.batch),
    'ranread_commit_summary shows a test of one batch as the commit test returned it');
SELECT is((SELECT string_agg(c.ops_per_s::text, ',') FROM ct c WHERE c.rounds > 1),
          (SELECT string_agg(round(x.m)::text, ',') FROM ct c,
                  LATERAL (SELECT avg(r.ops_per_s) AS m FROM ranread_internal.ranread_commit_summary_raw r WHERE r.batch = ANY (c.batches)) x
            WHERE c.rounds > 1),
    '... and a method''s rounds as the mean of the ops/s of their batches');

-- A study, its grid and its summary
CREATE TEMP TABLE st AS SELECT * FROM ranread_study(processes => '{1,2}', write_pct => '{0,50}', duration => '0.3s', target => 'tap_readable');
SELECT ok((SELECT bool_and(scale(avg_ms) <= 3 AND scale(mbps) <= 1) FROM st),
    'ranread_study''s rows are rounded');
SELECT ok((SELECT bool_and(scale(c) = 0) FROM ranread_study_grid((SELECT max(study) FROM st)) g, unnest(g.cells) c),
    'ranread_study_grid''s IOPS cells are whole');
SELECT ok((SELECT bool_and(scale(c) <= 3) FROM ranread_study_grid((SELECT max(study) FROM st), 'avg_ms') g, unnest(g.cells) c),
    'ranread_study_grid''s latency cells have at most three decimals');
SELECT is((SELECT array_agg(round(c::numeric, 3) ORDER BY ord) FROM ranread_internal.ranread_study_grid_raw((SELECT max(study) FROM st), 'avg_ms') g,
                  unnest(g.cells) WITH ORDINALITY u(c, ord)),
          (SELECT array_agg(c ORDER BY ord) FROM ranread_study_grid((SELECT max(study) FROM st), 'avg_ms') g,
                  unnest(g.cells) WITH ORDINALITY u(c, ord)),
    'the whole grid is in ranread_internal.ranread_study_grid_raw, and ranread_study_grid is it rounded');
SELECT is((SELECT pg_typeof(value)::text || ' ' || scale(value) FROM ranread_study_summary((SELECT max(study) FROM st)) WHERE item = 'Maximum IOPS'),
    'numeric 0', 'ranread_study_summary''s Maximum IOPS is whole');
SELECT is((SELECT row(p.iops, p.avg_ms, p.mbps)::text FROM ranread_study_points p WHERE p.study = (SELECT max(study) FROM st) ORDER BY p.n LIMIT 1),
          (SELECT row(round(b.iops)::bigint, round(b.avg_ms::numeric, 3), round(b.mbps::numeric, 1))::text FROM ranread_batches b
            WHERE b.study = (SELECT max(study) FROM st) ORDER BY (b.point ->> 'n')::integer LIMIT 1),
    'ranread_study_points rounds the points'' figures');
SELECT is((SELECT row(o.max_iops, o.min_avg_ms)::text FROM ranread_study_overview o WHERE o.study = (SELECT max(study) FROM st)),
          (SELECT row(round(max(b.iops))::bigint, round(min(b.avg_ms)::numeric, 3))::text FROM ranread_batches b WHERE b.study = (SELECT max(study) FROM st)),
    'ranread_study_overview rounds the study''s maxima');

-- The exports keep every figure whole
CREATE TEMP TABLE dir AS SELECT '/tmp/ranread_readable_test_' || pg_backend_pid() AS d;
DO $$
BEGIN
    EXECUTE format('COPY (SELECT 1) TO PROGRAM %L', format('rm -rf %1$s && mkdir %1$s', (SELECT d FROM pg_temp.dir)));
END
$$;
CREATE TEMP TABLE out AS
SELECT fmt, pg_read_file(ranread_export((SELECT d FROM dir), fmt)) AS body FROM unnest(ARRAY['csv', 'json']) fmt;
SELECT ok((SELECT strpos(body, (SELECT avg_ms::text FROM b)) > 0 FROM out WHERE fmt = 'csv'),
    'the csv export has the batch''s average latency whole, as the history keeps it');
SELECT is((SELECT (e ->> 'avg_ms')::float8 FROM out, jsonb_array_elements(body::jsonb) e
            WHERE fmt = 'json' AND (e ->> 'batch')::bigint = (SELECT batch FROM b)),
          (SELECT avg_ms FROM b),
    'the json export has the batch''s average latency whole');
SELECT is((SELECT (e ->> 'p95_ms')::float8 FROM out, jsonb_array_elements(body::jsonb) e
            WHERE fmt = 'json' AND (e ->> 'batch')::bigint = (SELECT batch FROM b)),
          (SELECT p95_ms FROM b),
    'the json export has every column of the batch, whole (p95_ms too)');
DO $$
BEGIN
    EXECUTE format('COPY (SELECT 1) TO PROGRAM %L', format('rm -rf %s', (SELECT d FROM pg_temp.dir)));
END
$$;

SELECT * FROM finish();
ROLLBACK;
