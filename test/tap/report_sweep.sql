-- ranread_sweep end to end, deterministically: ranread_run_step is replaced
-- (inside this transaction) by a stand-in that records a batch with scripted
-- figures, so the steps, the stop rules, the verdict row and the arguments
-- passed through (in the JSON spec of the batch) can be checked without I/O.
BEGIN;
SET LOCAL client_min_messages = warning;
SELECT plan(30);

-- The figures the stand-in returns, by processes.
CREATE TEMP TABLE script (processes integer PRIMARY KEY, iops float8, avg_ms float8,
                          p99_ms float8, max_ms float8, status text DEFAULT 'completed');
-- The arguments each step got.
CREATE TEMP TABLE calls (processes integer, iterations bigint, target name, duration interval,
                         block_size integer, write_pct integer, queue_depth integer, pattern text,
                         region_start float8, region_end float8, warmup interval,
                         rate_iops integer, seed bigint, workers integer, sweep bigint);

CREATE OR REPLACE FUNCTION ranread_run_step(spec jsonb)
RETURNS SETOF ranread_internal.ranread_step_result LANGUAGE plpgsql
SET search_path FROM CURRENT    -- ranread_sweep calls it with search_path = pg_catalog
AS $$
DECLARE
    s  record;
    g  jsonb := spec -> 'groups' -> 0;
    b  bigint := nextval('ranread_batch_seq');
    c  pg_temp.calls;
BEGIN
    c := ROW((g ->> 'processes')::integer, (spec ->> 'iterations')::bigint, (g ->> 'target')::name,
             (spec ->> 'duration')::interval, (g ->> 'block_size')::integer,
             (g ->> 'write_pct')::integer, (g ->> 'queue_depth')::integer, g ->> 'pattern',
             (g ->> 'region_start')::float8, (g ->> 'region_end')::float8,
             (spec ->> 'warmup')::interval, (g ->> 'rate_iops')::integer, (spec ->> 'seed')::bigint,
             (spec ->> 'workers')::integer, (spec ->> 'sweep')::bigint);
    INSERT INTO pg_temp.calls SELECT c.*;
    SELECT * INTO STRICT s FROM pg_temp.script x WHERE x.processes = c.processes;
    INSERT INTO ranread_batches (batch, run_at, target, processes, iterations, duration,
        block_size, queue_depth, write_pct, pattern, region_start, region_end, seed, workers,
        engine, reads, writes, seconds, iops, mbps, avg_ms, p99_ms, max_ms, status, sweep, started_by)
    VALUES (b, clock_timestamp(), c.target, c.processes, c.iterations, c.duration, c.block_size,
        c.queue_depth, c.write_pct, c.pattern, c.region_start, c.region_end, 1, 1, 'io_uring',
        (s.iops * 30)::bigint, 0, 30, s.iops, s.iops * c.block_size / 1e6, s.avg_ms, s.p99_ms,
        s.max_ms, s.status, c.sweep, current_user);
    RETURN NEXT ROW(b, 1, 'main', c.processes, (s.iops * 30)::bigint, 0, 30, s.iops,
               s.iops * c.block_size / 1e6, s.avg_ms, s.avg_ms, s.p99_ms, s.p99_ms, s.p99_ms,
               s.max_ms, s.status)::ranread_internal.ranread_step_result;
    RETURN NEXT ROW(b, 0, 'total', c.processes, (s.iops * 30)::bigint, 0, 30, s.iops,
               s.iops * c.block_size / 1e6, s.avg_ms, s.avg_ms, s.p99_ms, s.p99_ms, s.p99_ms,
               s.max_ms, s.status)::ranread_internal.ranread_step_result;
END
$$;

-- 1. A storage that saturates: IOPS stop growing from 320 to 640 processes.
INSERT INTO script VALUES
    (10, 4200, 2.4, 6, 14), (20, 8100, 2.5, 7, 18), (40, 15000, 2.7, 8, 22),
    (80, 24900, 3.2, 12, 31), (160, 31900, 5.0, 19, 48), (320, 35200, 9.1, 35, 95),
    (640, 36100, 17.7, 61, 180), (1280, 36200, 35, 120, 400);

CREATE TEMP TABLE r1 AS SELECT * FROM ranread_sweep(duration => '30s');

SELECT results_eq('SELECT step, processes FROM r1 ORDER BY step',
    $$VALUES (1, 10), (2, 20), (3, 40), (4, 80), (5, 160), (6, 320), (7, 640)$$,
    'a sweep doubles the processes from start, one row per step');
SELECT is((SELECT stop_reason FROM r1 WHERE step = 7),
    'scaling: going from 320 to 640 processes raised IOPS from 35200 to 36100, a gain of 900, 2.6% of linear scaling; a step must gain at least 10% of the 35200 IOPS linear scaling would add',
    'the last row says why the sweep stopped');
SELECT is((SELECT count(*) FROM r1 WHERE stop_reason IS NOT NULL), 1::bigint,
    'only the last row has a stop reason');
SELECT results_eq('SELECT within_bound FROM r1 ORDER BY step',
    $$VALUES (true), (true), (true), (true), (true), (true), (false)$$,
    'within_bound says which steps kept the average latency within max_avg_ms');
SELECT results_eq('SELECT batch, iops, avg_ms, p99_ms, max_ms FROM r1 WHERE step = 6',
    $$SELECT b.batch, round(b.iops)::bigint, round(b.avg_ms::numeric, 3), round(b.p99_ms::numeric, 3),
             round(b.max_ms::numeric, 3) FROM ranread_batches b
       WHERE b.processes = 320 AND b.sweep = (SELECT max(sweep) FROM ranread_sweeps)$$,
    'each row carries its batch and that batch''s figures, rounded (IOPS whole, ms to 0.001)');
SELECT is((SELECT count(DISTINCT sweep) FROM calls), 1::bigint,
    'every step gets the same sweep id');
SELECT is((SELECT count(*) FROM ranread_batches WHERE sweep = (SELECT max(sweep) FROM calls)), 7::bigint,
    'the sweep''s batches carry its id in ranread_batches.sweep');
SELECT results_eq(
    $$SELECT max_iops, actual_latency_ms, processes, batch, meets_flash_guidance, steps, max_avg_ms
        FROM ranread_sweep_verdict WHERE sweep = (SELECT max(sweep) FROM calls)$$,
    $$SELECT 35200::bigint, 9.1::numeric, 320, (SELECT batch FROM r1 WHERE step = 6), false, 7, 10::float8$$,
    'ranread_sweep_verdict has the verdict: max IOPS within the bound, its latency, processes and batch');
SELECT is((SELECT stop_reason FROM ranread_sweeps WHERE sweep = (SELECT max(sweep) FROM calls)),
    (SELECT stop_reason FROM r1 WHERE step = 7),
    'ranread_sweeps keeps the stop reason');
SELECT results_eq(
    $$SELECT target, block_size, write_pct, queue_depth, pattern, start, max_processes, iterations, duration
        FROM ranread_sweeps WHERE sweep = (SELECT max(sweep) FROM calls)$$,
    $$VALUES ('ranread'::name, 8192, 0, 1, 'random'::text, 10, 1280, NULL::bigint, '30s'::interval)$$,
    'ranread_sweeps keeps the settings of the sweep');
SELECT ok((SELECT started_at <= finished_at AND started_by = current_user
             FROM ranread_sweeps WHERE sweep = (SELECT max(sweep) FROM calls)),
    'ranread_sweeps records when and by whom');

-- 2. Arguments pass through to every step unchanged.
TRUNCATE calls;
DELETE FROM script;
INSERT INTO script SELECT p, 1000 * p, 0.5, 1, 2 FROM unnest(ARRAY[2, 4, 8]) p;
SELECT lives_ok($$SELECT * FROM ranread_sweep(start => 2, max_processes => 8, iterations => 500,
    duration => '5s', max_avg_ms => 3, target => 'other', block_size => 65536, write_pct => 10,
    queue_depth => 2, pattern => 'sequential', region_start => 5, region_end => 50,
    warmup => '1s', rate_iops => 9000, seed => 42, workers => 2)$$,
    'a sweep takes every ranread_run option');
SELECT results_eq(
    $$SELECT DISTINCT iterations, target, duration, block_size, write_pct, queue_depth, pattern,
             region_start, region_end, warmup, rate_iops, seed, workers FROM calls$$,
    $$VALUES (500::bigint, 'other'::name, '5s'::interval, 65536, 10, 2, 'sequential'::text,
              5::float8, 50::float8, '1s'::interval, 9000, 42::bigint, 2)$$,
    'the ranread_run options reach every step unchanged');
SELECT results_eq('SELECT processes FROM calls ORDER BY processes', 'VALUES (2), (4), (8)',
    'start 2, max_processes 8: steps at 2, 4 and 8 processes');
SELECT is((SELECT max_avg_ms FROM ranread_sweeps WHERE sweep = (SELECT max(sweep) FROM calls)), 3::float8,
    'the sweep records its latency bound');
SELECT is((SELECT meets_flash_guidance FROM ranread_sweep_verdict WHERE sweep = (SELECT max(sweep) FROM calls)), true,
    'average 0.5 ms and maximum 2 ms meet the all-flash guidance');

-- 3. The last doubling is clamped to max_processes.
TRUNCATE calls;
DELETE FROM script;
INSERT INTO script SELECT p, 1000 * p, 1, 2, 3 FROM unnest(ARRAY[10, 20, 40, 80, 100]) p;
CREATE TEMP TABLE r3 AS SELECT * FROM ranread_sweep(start => 10, max_processes => 100);
SELECT results_eq('SELECT processes FROM r3 ORDER BY step', 'VALUES (10), (20), (40), (80), (100)',
    'start 10, max_processes 100: 10, 20, 40, 80 and then 100 processes');
SELECT matches((SELECT stop_reason FROM r3 WHERE step = 5), '^max_processes:',
    'a sweep that scales to the end stops on max_processes');

-- 4. A batch that does not complete ends the sweep; the verdict uses the rest.
TRUNCATE calls;
DELETE FROM script;
INSERT INTO script VALUES (10, 5000, 1, 2, 3, 'completed'), (20, 9000, 1.5, 3, 4, 'stopped');
CREATE TEMP TABLE r4 AS SELECT * FROM ranread_sweep(start => 10);
SELECT is((SELECT count(*) FROM r4), 2::bigint, 'a stopped batch is the last step');
SELECT matches((SELECT stop_reason FROM r4 WHERE step = 2), '^status: batch [0-9]+ at 20 processes ended stopped',
    'the stop reason names the batch and its status');
SELECT is((SELECT within_bound FROM r4 WHERE step = 2), false,
    'a step that did not complete is not within the bound');
SELECT is((SELECT max_iops FROM ranread_sweep_verdict WHERE sweep = (SELECT max(sweep) FROM calls)), 5000::bigint,
    'the verdict ignores the step that did not complete');

-- 5. Average latency above the bound on two steps in a row.
TRUNCATE calls;
DELETE FROM script;
INSERT INTO script VALUES (10, 1000, 8, 20, 40), (20, 1900, 11, 30, 60), (40, 3700, 14, 40, 90),
                          (80, 7000, 20, 50, 120);
CREATE TEMP TABLE r5 AS SELECT * FROM ranread_sweep(start => 10);
SELECT results_eq('SELECT processes FROM r5 ORDER BY step', 'VALUES (10), (20), (40)',
    'the sweep stops after two steps in a row above the bound');
SELECT matches((SELECT stop_reason FROM r5 WHERE step = 3), '^latency:', 'and says it stopped on latency');
SELECT is((SELECT processes FROM ranread_sweep_verdict WHERE sweep = (SELECT max(sweep) FROM calls)), 10,
    'the verdict is the last step within the bound');

-- 6. Nothing within the bound.
TRUNCATE calls;
DELETE FROM script;
INSERT INTO script VALUES (10, 1000, 30, 60, 90), (20, 1100, 40, 80, 120);
CREATE TEMP TABLE r6 AS SELECT * FROM ranread_sweep(start => 10);
SELECT results_eq(
    $$SELECT max_iops, actual_latency_ms, processes, batch, meets_flash_guidance
        FROM ranread_sweep_verdict WHERE sweep = (SELECT max(sweep) FROM calls)$$,
    $$VALUES (NULL::bigint, NULL::numeric, NULL::integer, NULL::bigint, false)$$,
    'with no step within the bound the verdict is empty and the flash guidance not met');

-- 7. Each sweep gets its own id from ranread_sweep_seq.
SELECT is((SELECT count(*) FROM ranread_sweeps WHERE sweep IN (SELECT sweep FROM calls)), 1::bigint,
    'one ranread_sweeps row per sweep');
SELECT cmp_ok((SELECT min(sweep) FROM ranread_sweeps), '<', (SELECT max(sweep) FROM ranread_sweeps),
    'sweeps are numbered in order');

-- 8. The chart of the latest sweep shows the same verdict.
DELETE FROM script;
INSERT INTO script VALUES (10, 4200, 1.2, 3, 4.5), (20, 8300, 1.4, 3.5, 4.8), (40, 8400, 1.9, 4, 6);
CREATE TEMP TABLE r8 AS SELECT * FROM ranread_sweep(start => 10);
SELECT matches(ranread_chart(),
    (SELECT format('Verdict: %s IOPS at %s processes', to_char(max_iops, 'FM999,999,999'), processes)
       FROM ranread_sweep_verdict WHERE sweep = (SELECT max(sweep) FROM calls)),
    'ranread_chart() draws the latest sweep with the verdict ranread_sweep recorded');
SELECT matches(ranread_chart(), 'Does not meet the all-flash guidance',
    'and says whether that step meets the all-flash guidance (here a 6 ms maximum does not)');

SELECT * FROM finish();
ROLLBACK;
