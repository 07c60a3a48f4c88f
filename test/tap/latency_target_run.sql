-- ranread_latency_target on a real target: windows are real batches, their
-- share within the bound comes from each batch's merged histogram, and the
-- verdict view agrees with what the search returned.  The bounds are far
-- from any real latency (10 s, 1 µs), so the outcome does not depend on how
-- busy the machine is.
BEGIN;
SET LOCAL client_min_messages = warning;
SELECT plan(10);

SELECT ok((SELECT size_bytes = 67108864 FROM ranread_setup('64MB', target => 'tap_latency')),
          'a target to search on');

-- Every I/O is within 10 s: the load doubles to max_load, which is confirmed
CREATE TEMP TABLE r1 AS
SELECT * FROM ranread_latency_target(10000, 99, max_load => 4, duration => '0.3s', target => 'tap_latency');
SELECT results_eq('SELECT load, phase, holds, within_pct FROM r1 ORDER BY step',
    $$VALUES (1, 'search', true, 100::numeric), (2, 'search', true, 100::numeric),
             (4, 'search', true, 100::numeric), (4, 'confirm', true, 100::numeric)$$,
    'a bound every I/O meets holds up to max_load, confirmed by a second window there');
SELECT matches((SELECT stop_reason FROM r1 WHERE step = 4), '^max_load: p99 <= 10000 ms held up to max_load 4',
    'the search says the limit is beyond max_load');
SELECT results_eq(
    $$SELECT b.queue_depth, b.processes, b.status, b.point ->> 'phase' FROM r1 JOIN ranread_batches b USING (batch) ORDER BY r1.step$$,
    $$VALUES (1, 1, 'completed', 'search'), (2, 1, 'completed', 'search'), (4, 1, 'completed', 'search'), (4, 1, 'completed', 'confirm')$$,
    'each window is a completed batch of one process at the window''s queue depth');
SELECT ok((SELECT bool_and(r1.latency_ms = round(ranread_hist_percentile(b.histogram, 99)::numeric, 3)) FROM r1 JOIN ranread_batches b USING (batch)),
    'each window''s latency is its batch''s p99, in ms to 0.001');
SELECT results_eq(
    $$SELECT v.load, v.batch, v.iops, v.windows FROM ranread_latency_target_verdict v JOIN r1 ON r1.batch = v.batch$$,
    $$SELECT load, batch, iops, 4::bigint FROM r1 WHERE step = 4$$,
    'the verdict view finds the same load, batch and IOPS from the history');
SELECT is((SELECT count(*) FROM ranread_summary_full s JOIN r1 USING (batch)
            WHERE s.point ->> 'latency_target' IS NOT NULL AND s.sweep IS NULL), 4::bigint,
    'the windows show in ranread_summary with the search''s id in point, and are no sweep');

-- No I/O completes within a microsecond: load 1 fails, and the search ends
CREATE TEMP TABLE r2 AS
SELECT * FROM ranread_latency_target(0.001, 50, duration => '0.3s', target => 'tap_latency');
SELECT results_eq('SELECT step, load, holds, within_pct FROM r2',
    $$VALUES (1, 1, false, 0::numeric)$$,
    'a bound no I/O meets fails at load 1, after one window');
SELECT matches((SELECT stop_reason FROM r2), '^none: p50 <= 0.001 ms fails even at load 1: 0.00% of I/Os within 0.001 ms, 50% needed',
    'and the search says no load meets it');

SELECT ok(ranread_purge('tap_latency'), 'the target goes');

SELECT * FROM finish();
ROLLBACK;
