-- ranread_latency_target end to end, deterministically: ranread_run_step is
-- replaced (inside this transaction) by a stand-in that records a batch
-- whose histogram is a scripted share of I/Os within the bound, read back by
-- a stand-in ranread_latency_window; so the windows, the loads and
-- dimensions passed to each batch, the rows returned, the ids the batches
-- carry and the verdict view can be checked without I/O.
BEGIN;
SET LOCAL client_min_messages = warning;
SELECT plan(28);

-- The device: windows at loads up to lim hold (99.95% within the bound), the
-- others fail (90%).  A status other than 'completed' for one load.
CREATE TEMP TABLE device (lim integer, bad_load integer, bad_status text);
INSERT INTO device VALUES (21, NULL, NULL);
-- The groups each window got.
CREATE TEMP TABLE calls (batch bigint, spec jsonb);

CREATE OR REPLACE FUNCTION ranread_run_step(spec jsonb)
RETURNS SETOF ranread_internal.ranread_step_result LANGUAGE plpgsql
SET search_path FROM CURRENT    -- ranread_latency_target calls it with search_path = pg_catalog
AS $$
DECLARE
    g      jsonb := spec -> 'groups' -> 0;
    b      bigint := nextval('ranread_batch_seq');
    p      integer := (g ->> 'processes')::integer;
    q      integer := (g ->> 'queue_depth')::integer;
    load   integer := (spec -> 'point' ->> 'load')::integer;
    d      pg_temp.device;
    within float8;
    st     text;
    iops   float8;
BEGIN
    SELECT * INTO d FROM pg_temp.device;
    within := CASE WHEN load <= d.lim THEN 99.95 ELSE 90 END;
    st := CASE WHEN load = d.bad_load THEN d.bad_status ELSE 'completed' END;
    iops := 1000.0 * p * q;
    INSERT INTO pg_temp.calls VALUES (b, spec);
    INSERT INTO ranread_batches (batch, run_at, target, processes, duration, block_size,
        queue_depth, write_pct, pattern, region_start, region_end, seed, workers, engine,
        reads, writes, seconds, iops, mbps, avg_ms, p99_ms, max_ms, status, histogram, point)
    VALUES (b, clock_timestamp(), g ->> 'target', p, (spec ->> 'duration')::interval,
        (g ->> 'block_size')::integer, q, 0, g ->> 'pattern', 0, 100, 1, 1, 'io_uring',
        (iops * 5)::bigint, 0, 5, iops, iops * 8192 / 1048576, 0.5, 1, 2, st,
        convert_to(within::text, 'UTF8'), spec -> 'point');
    RETURN NEXT ROW(b, 0, 'total', p, (iops * 5)::bigint, 0, 5, iops, iops * 8192 / 1048576,
                    0.5, 0.4, 0.8, 1, 1.5, 2, st)::ranread_internal.ranread_step_result;
END
$$;

-- The stand-in histogram is the share within the bound, as text
CREATE OR REPLACE FUNCTION ranread_internal.ranread_latency_window(histogram bytea, target_ms float8,
    percentile float8, OUT within_pct float8, OUT latency_ms float8)
LANGUAGE sql IMMUTABLE STRICT
AS $$ SELECT convert_from($1, 'UTF8')::float8, CASE WHEN convert_from($1, 'UTF8')::float8 >= $3 THEN $2 / 2 ELSE $2 * 2 END $$;

-- 1. queue depth (the default dimension): fio's trace and a confirming run
CREATE TEMP TABLE r1 AS SELECT * FROM ranread_latency_target(1, 99, max_load => 128, duration => '5s');

SELECT results_eq('SELECT step, load, phase, holds FROM r1 ORDER BY step',
    $$VALUES (1, 1, 'search', true), (2, 2, 'search', true), (3, 4, 'search', true),
             (4, 8, 'search', true), (5, 16, 'search', true), (6, 32, 'search', false),
             (7, 24, 'search', false), (8, 20, 'search', true), (9, 22, 'search', false),
             (10, 21, 'search', true), (11, 21, 'confirm', true)$$,
    'loads double while the bound holds, bisect after the first failure, and end with a confirming run');
SELECT matches((SELECT stop_reason FROM r1 WHERE step = 11),
    '^confirmed: p99 <= 1 ms held at load 21 and failed at 22',
    'the last row says what was found');
SELECT is((SELECT count(*) FROM r1 WHERE stop_reason IS NOT NULL), 1::bigint,
    'only the last row has a stop reason');
SELECT results_eq('SELECT step, within_pct, latency_ms FROM r1 WHERE step IN (1, 6) ORDER BY step',
    $$VALUES (1, 99.95::numeric, 0.5::numeric), (6, 90::numeric, 2::numeric)$$,
    'each row has the share of I/Os within target_ms and the latency at the percentile');
SELECT results_eq('SELECT r1.batch, r1.iops FROM r1 ORDER BY step',
    'SELECT c.batch, 1000::bigint * (c.spec -> ''groups'' -> 0 ->> ''queue_depth'')::integer FROM calls c ORDER BY c.batch',
    'each row carries its batch and that batch''s IOPS');
SELECT is((SELECT count(*) FROM calls WHERE (spec -> 'groups' -> 0 ->> 'processes')::integer = 1
                                        AND (spec -> 'groups' -> 0 ->> 'queue_depth')::integer = (spec -> 'point' ->> 'load')::integer),
          11::bigint, 'by queue depth: one process, the load is its queue depth');
SELECT is((SELECT count(DISTINCT spec -> 'point' ->> 'latency_target') FROM calls), 1::bigint,
    'every window carries the same search id');
SELECT is((SELECT count(*) FROM ranread_batches b
            WHERE b.point ->> 'latency_target' = (SELECT min(spec -> 'point' ->> 'latency_target') FROM calls)),
          11::bigint, 'the search''s batches carry its id in ranread_batches.point');
SELECT results_eq($$SELECT (b.point ->> 'step')::integer, b.point ->> 'phase', b.point ->> 'dimension',
                           (b.point ->> 'target_ms')::float8, (b.point ->> 'percentile')::float8,
                           (b.point ->> 'max_load')::integer
                      FROM ranread_batches b JOIN calls c USING (batch) ORDER BY b.batch DESC LIMIT 1$$,
    $$VALUES (11, 'confirm', 'queue_depth', 1::float8, 99::float8, 128)$$,
    'each batch''s point has its step, phase and the search''s settings');
SELECT is((SELECT count(*) FROM calls WHERE spec ->> 'caller' = 'ranread_latency_target'
                                        AND spec ->> 'duration' = '00:00:05'), 11::bigint,
    'each window is a batch of duration, run for ranread_latency_target');

-- The verdict, from the batches alone
SELECT results_eq(
    $$SELECT v.dimension, v.target_ms, v.percentile, v.max_load, v.windows, v.load, v.iops, v.within_pct
        FROM ranread_latency_target_verdict v
       WHERE v.latency_target = (SELECT min(spec -> 'point' ->> 'latency_target')::bigint FROM calls)$$,
    $$VALUES ('queue_depth', 1::float8, 99::float8, 128, 11::bigint, 21, 21000::bigint, 99.95::numeric(5,2))$$,
    'ranread_latency_target_verdict gives the search''s settings and the load found, from its batches');
SELECT is((SELECT v.batch FROM ranread_latency_target_verdict v
            WHERE v.latency_target = (SELECT min(spec -> 'point' ->> 'latency_target')::bigint FROM calls)),
          (SELECT batch FROM r1 WHERE step = 11),
    'the verdict''s batch is the confirming run');
SELECT is((SELECT v.stop_reason FROM ranread_latency_target_verdict v
            WHERE v.latency_target = (SELECT min(spec -> 'point' ->> 'latency_target')::bigint FROM calls)),
          (SELECT stop_reason FROM r1 WHERE step = 11),
    'the view and the function stop for the same reason');

-- 2. processes, at queue depth 2 each
TRUNCATE calls;
UPDATE device SET lim = 6;
CREATE TEMP TABLE r2 AS SELECT * FROM ranread_latency_target(0.5, 99.9, 'processes', 16,
    duration => '1s', queue_depth => 2, block_size => 16384, pattern => 'sequential', target => 'other');
SELECT results_eq('SELECT load FROM r2 ORDER BY step',
    $$VALUES (1), (2), (4), (8), (6), (7), (6), (6)$$,
    'by processes: the same search over the number of processes');
SELECT is((SELECT count(*) FROM calls WHERE (spec -> 'groups' -> 0 ->> 'queue_depth')::integer = 2
                                        AND (spec -> 'groups' -> 0 ->> 'processes')::integer = (spec -> 'point' ->> 'load')::integer
                                        AND spec -> 'groups' -> 0 ->> 'block_size' = '16384'
                                        AND spec -> 'groups' -> 0 ->> 'pattern' = 'sequential'
                                        AND spec -> 'groups' -> 0 ->> 'target' = 'other'),
          8::bigint, 'by processes: the load is the processes, queue depth and the other options pass through');
SELECT is((SELECT v.load FROM ranread_latency_target_verdict v
            WHERE v.latency_target = (SELECT min(spec -> 'point' ->> 'latency_target')::bigint FROM calls)),
          6, 'the verdict of a search by processes');

-- 3. Even load 1 fails
TRUNCATE calls;
UPDATE device SET lim = 0;
CREATE TEMP TABLE r3 AS SELECT * FROM ranread_latency_target(0.2);
SELECT results_eq('SELECT step, load, holds FROM r3', $$VALUES (1, 1, false)$$,
    'when load 1 fails the search ends after one window');
SELECT matches((SELECT stop_reason FROM r3), '^none: p99 <= 0.2 ms fails even at load 1: 90\.00% of I/Os within 0\.2 ms, 99% needed',
    'and says that no load meets the bound');
SELECT results_eq(
    $$SELECT v.load, v.batch, v.stop_reason FROM ranread_latency_target_verdict v
       WHERE v.latency_target = (SELECT min(spec -> 'point' ->> 'latency_target')::bigint FROM calls)$$,
    $$SELECT NULL::integer, NULL::bigint, stop_reason FROM r3$$,
    'the verdict of a search that found nothing has no load');

-- 4. A window that does not complete ends the search
TRUNCATE calls;
UPDATE device SET lim = 100, bad_load = 4, bad_status = 'stopped';
CREATE TEMP TABLE r4 AS SELECT * FROM ranread_latency_target(1, max_load => 64);
SELECT results_eq('SELECT load, holds FROM r4 ORDER BY step', $$VALUES (1, true), (2, true), (4, false)$$,
    'a stopped window ends the search');
SELECT matches((SELECT stop_reason FROM r4 WHERE step = 3), '^status: batch [0-9]+ at load 4 ended stopped',
    'and says so');

-- 5. A search cancelled between windows: its batches are all there is
INSERT INTO ranread_batches (batch, run_at, target, processes, block_size, queue_depth, write_pct,
    pattern, region_start, region_end, seed, workers, engine, reads, writes, seconds, iops,
    status, histogram, point)
SELECT nextval('ranread_batch_seq'), clock_timestamp(), 'ranread', 1, 8192, l, 0, 'random', 0, 100,
       1, 1, 'io_uring', 100, 0, 1, 100, 'completed', convert_to('99.5', 'UTF8'),
       jsonb_build_object('latency_target', -7, 'step', s, 'phase', 'search', 'dimension', 'queue_depth',
                          'load', l, 'target_ms', 1, 'percentile', 99, 'max_load', 256)
  FROM (VALUES (1, 1), (2, 2)) AS w(s, l);
SELECT results_eq(
    $$SELECT windows, load, stop_reason FROM ranread_latency_target_verdict WHERE latency_target = -7$$,
    $$VALUES (2::bigint, NULL::integer,
              'interrupted: the search ended after 2 windows; its next window would have been at load 4')$$,
    'a search whose windows stop before its rule did is interrupted, and the view says where it was');

-- pg_monitor reads the verdicts
CREATE ROLE tap_latency_monitor IN ROLE pg_monitor;
SET LOCAL ROLE tap_latency_monitor;
SELECT is((SELECT stop_reason FROM ranread_latency_target_verdict WHERE latency_target = -7),
    'interrupted: the search ended after 2 windows; its next window would have been at load 4',
    'a member of pg_monitor reads the verdicts');
RESET ROLE;

-- 6. Checked before any window: none of these runs a batch
TRUNCATE calls;
SELECT throws_ok($$SELECT * FROM ranread_latency_target(1, queue_depth => 4)$$, '22023',
    'invalid queue_depth 4 for ranread_latency_target with dimension queue_depth',
    'searching the queue depth, queue_depth is the search''s to set');
SELECT throws_ok($$SELECT * FROM ranread_latency_target(1, dimension => 'processes', processes => 4)$$, '22023',
    'invalid processes 4 for ranread_latency_target with dimension processes',
    'searching the processes, processes is the search''s to set');
SELECT throws_ok($$SELECT * FROM ranread_latency_target(1, processes => 4, workers => 5)$$, '22023',
    'workers of ranread_latency_target must be between 1 and 4, not 5',
    'workers cannot exceed the processes of the first window');
SELECT throws_ok($$SELECT * FROM ranread_latency_target(1, dimension => 'processes', workers => 2)$$, '22023',
    'workers of ranread_latency_target must be between 1 and 1, not 2',
    'searching processes, the first window has one process, so one worker');
SELECT is((SELECT count(*) FROM calls), 0::bigint, 'no window ran for a bad call');

SELECT * FROM finish();
ROLLBACK;
