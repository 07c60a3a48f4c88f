-- ranread_sweep_next and ranread_sweep_judge: when a sweep stops, what it
-- measures next, and what its verdict is, from known numbers (no I/O).
BEGIN;
SELECT plan(37);

-- A step: processes, IOPS and average latency; p99 is 3x and max 5x the
-- average unless given.
CREATE FUNCTION pg_temp.st(step integer, processes integer, iops float8, avg_ms float8,
                           status text DEFAULT 'completed', max_ms float8 DEFAULT NULL)
RETURNS ranread_sweep_step LANGUAGE sql AS $$
    SELECT ROW(step, processes, 100 + step, iops, avg_ms, avg_ms * 3,
               coalesce(max_ms, avg_ms * 5), status)::ranread_sweep_step
$$;

-- ranread_internal.ranread_sweep_next(steps, start, max_processes, max_avg_ms)

SELECT is((ranread_internal.ranread_sweep_next('{}', 10, 1280, 10)).next_processes, 10,
          'the first step runs start processes');
SELECT is((ranread_internal.ranread_sweep_next(NULL, 10, 1280, 10)).next_processes, 10,
          'NULL steps count as none');
SELECT is((ranread_internal.ranread_sweep_next('{}', 10, 1280, 10)).stop_reason, NULL,
          'before the first step there is no stop reason');
SELECT is((ranread_internal.ranread_sweep_next(ARRAY[pg_temp.st(1, 10, 1000, 1)], 10, 1280, 10)).next_processes, 20,
          'each step doubles the processes');
SELECT is((ranread_internal.ranread_sweep_next(ARRAY[pg_temp.st(1, 10, 1000, 1), pg_temp.st(2, 20, 2000, 1)], 10, 1280, 10)).next_processes, 40,
          'linear scaling goes on doubling');

-- max_processes: the last step is clamped to it, then the sweep stops
SELECT is((ranread_internal.ranread_sweep_next(ARRAY[pg_temp.st(1, 80, 8000, 1)], 10, 100, 10)).next_processes, 100,
          'a doubling past max_processes is clamped to max_processes');
SELECT is((ranread_internal.ranread_sweep_next(ARRAY[pg_temp.st(1, 80, 8000, 1), pg_temp.st(2, 100, 10000, 1)], 10, 100, 10)).next_processes, NULL,
          'after the step at max_processes there is no next step');
SELECT is((ranread_internal.ranread_sweep_next(ARRAY[pg_temp.st(1, 80, 8000, 1), pg_temp.st(2, 100, 10000, 1)], 10, 100, 10)).stop_reason,
          'max_processes: the step at 100 processes reached max_processes 100',
          'the max_processes stop says where it stopped');
SELECT matches((ranread_internal.ranread_sweep_next(ARRAY[pg_temp.st(1, 8, 800, 1)], 8, 8, 10)).stop_reason, '^max_processes:',
          'start = max_processes runs exactly one step');
SELECT is((ranread_internal.ranread_sweep_next(ARRAY[pg_temp.st(1, 2000, 8000, 1)], 2000, 2048, 10)).next_processes, 2048,
          'clamping works near the processes limit');

-- latency: above the bound on two steps in a row
SELECT is((ranread_internal.ranread_sweep_next(ARRAY[pg_temp.st(1, 10, 1000, 5), pg_temp.st(2, 20, 2000, 12)], 10, 1280, 10)).next_processes, 40,
          'one step above the latency bound is not enough to stop');
SELECT is((ranread_internal.ranread_sweep_next(ARRAY[pg_temp.st(1, 10, 1000, 11), pg_temp.st(2, 20, 2000, 9)], 10, 1280, 10)).next_processes, 40,
          'above and then back within the bound goes on');
SELECT is((ranread_internal.ranread_sweep_next(ARRAY[pg_temp.st(1, 10, 1000, 11), pg_temp.st(2, 20, 2000, 12)], 10, 1280, 10)).stop_reason,
          'latency: average 11.00 ms at 10 processes and 12.00 ms at 20 processes, both above the 10 ms bound',
          'two steps in a row above the bound stop the sweep, and the reason gives both');
SELECT is((ranread_internal.ranread_sweep_next(ARRAY[pg_temp.st(1, 10, 1000, 10), pg_temp.st(2, 20, 2000, 10)], 10, 1280, 10)).next_processes, 40,
          'an average exactly at the bound is within it');
SELECT matches((ranread_internal.ranread_sweep_next(ARRAY[pg_temp.st(1, 10, 1000, 2.5), pg_temp.st(2, 20, 2000, 3)], 10, 1280, 2)).stop_reason, '^latency:',
          'the bound is max_avg_ms, not a fixed 10 ms');

-- scaling: iops - prev_iops < 0.10 * prev_iops * (processes / prev_processes - 1)
SELECT is((ranread_internal.ranread_sweep_next(ARRAY[pg_temp.st(1, 20, 10000, 1), pg_temp.st(2, 40, 10900, 1)], 10, 1280, 10)).stop_reason,
          'scaling: going from 20 to 40 processes raised IOPS from 10000 to 10900, a gain of 900, 9.0% of linear scaling; a step must gain at least 10% of the 10000 IOPS linear scaling would add',
          'doubling that adds less than 10% of linear stops the sweep, and the reason gives the numbers');
SELECT is((ranread_internal.ranread_sweep_next(ARRAY[pg_temp.st(1, 20, 10000, 1), pg_temp.st(2, 40, 11000, 1)], 10, 1280, 10)).next_processes, 80,
          'exactly 10% of linear goes on');
SELECT matches((ranread_internal.ranread_sweep_next(ARRAY[pg_temp.st(1, 20, 10000, 1), pg_temp.st(2, 40, 9000, 1)], 10, 1280, 10)).stop_reason, '^scaling:',
          'falling IOPS stop the sweep');
SELECT matches((ranread_internal.ranread_sweep_next(ARRAY[pg_temp.st(1, 640, 10000, 1), pg_temp.st(2, 1000, 10500, 1)], 10, 1000, 10)).stop_reason, '^scaling:',
          'a clamped step is judged against its own ratio (1000/640: 500 < 562.5)');
SELECT matches((ranread_internal.ranread_sweep_next(ARRAY[pg_temp.st(1, 640, 10000, 1), pg_temp.st(2, 1000, 10600, 1)], 10, 1000, 10)).stop_reason, '^max_processes:',
          'a clamped step that scales well (600 >= 562.5) stops on max_processes');
SELECT is((ranread_internal.ranread_sweep_next(ARRAY[pg_temp.st(1, 10, 1000, 1)], 10, 1280, 10)).stop_reason, NULL,
          'the scaling rule needs two steps');

-- status: a batch that did not complete ends the sweep
SELECT is((ranread_internal.ranread_sweep_next(ARRAY[pg_temp.st(1, 10, 1000, 1), pg_temp.st(2, 20, 2000, 1, 'stopped')], 10, 1280, 10)).stop_reason,
          'status: batch 102 at 20 processes ended stopped, not completed',
          'a stopped batch ends the sweep');
SELECT matches((ranread_internal.ranread_sweep_next(ARRAY[pg_temp.st(1, 10, NULL, NULL, 'failed')], 10, 1280, 10)).stop_reason, '^status:',
          'a failed first batch ends the sweep');
SELECT matches((ranread_internal.ranread_sweep_next(ARRAY[pg_temp.st(1, 10, 1000, 11), pg_temp.st(2, 20, 1000, 12, 'cancelled')], 10, 1280, 10)).stop_reason, '^status:',
          'status is checked before latency');
SELECT matches((ranread_internal.ranread_sweep_next(ARRAY[pg_temp.st(1, 10, 1000, 11), pg_temp.st(2, 20, 1000, 12)], 10, 1280, 10)).stop_reason, '^latency:',
          'latency is checked before scaling');
SELECT matches((ranread_internal.ranread_sweep_next(ARRAY[pg_temp.st(1, 50, 1000, 1), pg_temp.st(2, 100, 1000, 1)], 10, 100, 10)).stop_reason, '^scaling:',
          'scaling is checked before max_processes');
SELECT is((ranread_internal.ranread_sweep_next(ARRAY[pg_temp.st(1, 10, 1000, 1), pg_temp.st(2, 20, 2000, 1, 'stopped')], 10, 1280, 10)).next_processes, NULL,
          'a stop reason comes with no next step');

-- ranread_internal.ranread_sweep_judge(steps, max_avg_ms)

SELECT results_eq(
    $$SELECT max_iops, actual_latency_ms, processes, batch, meets_flash_guidance
        FROM ranread_internal.ranread_sweep_judge(ARRAY[pg_temp.st(1, 10, 1000, 1), pg_temp.st(2, 20, 1900, 3),
                                       pg_temp.st(3, 40, 2500, 11)], 10)$$,
    $$VALUES (1900::float8, 3::float8, 20, 102::bigint, false)$$,
    'the verdict is the highest IOPS whose average latency is within the bound');
SELECT is((ranread_internal.ranread_sweep_judge(ARRAY[pg_temp.st(1, 10, 1000, 1), pg_temp.st(2, 20, 1900, 3)], 2)).max_iops, 1000::float8,
          'the verdict follows max_avg_ms');
SELECT is((ranread_internal.ranread_sweep_judge(ARRAY[pg_temp.st(1, 10, 1000, 1), pg_temp.st(2, 20, 2000, 2), pg_temp.st(3, 40, 2000, 3)], 10)).processes, 20,
          'on equal IOPS the step with fewer processes wins');
SELECT is((ranread_internal.ranread_sweep_judge(ARRAY[pg_temp.st(1, 10, 1000, 1), pg_temp.st(2, 20, 5000, 2, 'stopped')], 10)).max_iops, 1000::float8,
          'batches that did not complete do not count');
SELECT results_eq(
    $$SELECT max_iops, actual_latency_ms, processes, batch, meets_flash_guidance
        FROM ranread_internal.ranread_sweep_judge(ARRAY[pg_temp.st(1, 10, 1000, 12), pg_temp.st(2, 20, 1100, 15)], 10)$$,
    $$VALUES (NULL::float8, NULL::float8, NULL::integer, NULL::bigint, false)$$,
    'no step within the bound: no verdict, and the flash guidance is not met');
SELECT is((ranread_internal.ranread_sweep_judge(ARRAY[pg_temp.st(1, 10, 1000, 1.5, 'completed', 4.9)], 10)).meets_flash_guidance, true,
          'average 1.5 ms and maximum 4.9 ms meet the all-flash guidance');
SELECT is((ranread_internal.ranread_sweep_judge(ARRAY[pg_temp.st(1, 10, 1000, 2, 'completed', 5)], 10)).meets_flash_guidance, true,
          'the flash guidance includes its limits (average 2 ms, maximum 5 ms)');
SELECT is((ranread_internal.ranread_sweep_judge(ARRAY[pg_temp.st(1, 10, 1000, 1.5, 'completed', 5.1)], 10)).meets_flash_guidance, false,
          'one I/O above 5 ms fails the flash guidance');
SELECT is((ranread_internal.ranread_sweep_judge(ARRAY[pg_temp.st(1, 10, 1000, 2.1, 'completed', 4)], 10)).meets_flash_guidance, false,
          'an average above 2 ms fails the flash guidance');
SELECT is((ranread_internal.ranread_sweep_judge(ARRAY[pg_temp.st(1, 10, 1000, 1, 'completed', 2), pg_temp.st(2, 20, 3000, 4, 'completed', 9)], 10)).meets_flash_guidance, false,
          'the flash guidance is judged at the verdict''s step, not at the best one');

SELECT * FROM finish();
ROLLBACK;
