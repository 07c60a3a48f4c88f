-- ranread_latency_target_next: fio's latency_target search (double, bisect,
-- confirm) from known windows, and ranread_hist_within, the share of a
-- histogram's I/Os within a bound, on a real batch's histogram.
BEGIN;
SELECT plan(36);

-- A search against a device model: a window at load L holds (99.5% of its
-- I/Os within the bound, for p99) when L <= lim, and fails (90%) otherwise
-- or when its step is one of fail_steps.  The loads it ran, what it found
-- and why it stopped.
CREATE FUNCTION pg_temp.search(lim integer, max_load integer, fail_steps integer[] DEFAULT '{}',
                               OUT loads text, OUT found_load integer, OUT found_step integer,
                               OUT reason text)
LANGUAGE plpgsql AS $$
DECLARE
    steps ranread_latency_step[] := '{}';
    n     record;
    k     integer := 0;
BEGIN
    LOOP
        SELECT * INTO n FROM ranread_latency_target_next(steps, 1, 99, max_load);
        EXIT WHEN n.next_load IS NULL;
        k := k + 1;
        IF k > 100 THEN
            RAISE EXCEPTION 'the search does not end: %', steps;
        END IF;
        steps := steps || ROW(k, n.next_load, 1000 + k, n.next_load * 100.0,
                              CASE WHEN n.next_load <= lim AND NOT k = ANY (fail_steps)
                                   THEN 99.5 ELSE 90 END,
                              0.5, 'completed')::ranread_latency_step;
    END LOOP;
    loads := array_to_string(ARRAY(SELECT s.load FROM unnest(steps) s ORDER BY s.step), ' ');
    found_load := n.found_load;
    found_step := n.found_step;
    reason := split_part(n.stop_reason, ':', 1);
END
$$;

-- The searches, as a table: the device's limit, max_load, windows forced to
-- fail; the loads run, the load found, the rule that stopped it.
CREATE TEMP TABLE cases (label text, lim integer, max_load integer, fail_steps integer[],
                         loads text, found integer, reason text);
INSERT INTO cases VALUES
  ('fio''s trace (a device that holds up to 21, iodepth 128), then the confirming run',
   21, 128, '{}', '1 2 4 8 16 32 24 20 22 21 21', 21, 'confirmed'),
  ('a limit at a power of two bisects down to it',
   16, 128, '{}', '1 2 4 8 16 32 24 20 18 17 16 16', 16, 'confirmed'),
  ('a limit just under max_load bisects up to it',
   99, 100, '{}', '1 2 4 8 16 32 64 100 82 91 95 97 98 99 99', 99, 'confirmed'),
  ('doubling is clamped to max_load, and max_load holding ends at max_load',
   1000, 100, '{}', '1 2 4 8 16 32 64 100 100', 100, 'max_load'),
  ('max_load a power of two',
   1000, 128, '{}', '1 2 4 8 16 32 64 128 128', 128, 'max_load'),
  ('max_load 1 confirms load 1',
   5, 1, '{}', '1 1', 1, 'max_load'),
  ('a device that holds only load 1',
   1, 128, '{}', '1 2 1 1', 1, 'confirmed'),
  ('even load 1 fails: no load, at once',
   0, 128, '{}', '1', NULL, 'none'),
  ('a confirming run that fails lowers low (low--) and confirms the next answer',
   21, 128, '{11}', '1 2 4 8 16 32 24 20 22 21 21 20 20', 20, 'confirmed'),
  ('a failure at max_load bisects instead of doubling back to it (fio loops there)',
   127, 128, '{}', '1 2 4 8 16 32 64 128 96 112 120 124 126 127 127', 127, 'confirmed'),
  ('load 1 failing on its confirming run means no load holds',
   1, 128, '{4}', '1 2 1 1', NULL, 'none'),
  ('a window failing by chance on the way up makes the search bisect below it',
   1000, 64, '{3}', '1 2 4 3 3', 3, 'confirmed');

SELECT is(s.loads, c.loads, c.label || ': loads')
  FROM cases c, LATERAL pg_temp.search(c.lim, c.max_load, c.fail_steps) s ORDER BY c.label;
SELECT results_eq(
    $$SELECT c.label, s.found_load, s.reason FROM cases c,
             LATERAL pg_temp.search(c.lim, c.max_load, c.fail_steps) s ORDER BY c.label$$,
    $$SELECT c.label, c.found, c.reason FROM cases c ORDER BY c.label$$,
    'every search finds the load the model allows, and says which rule stopped it');
SELECT is((pg_temp.search(21, 128)).found_step, 11,
          'the found load''s window is the confirming run, the last');

-- The rule's outputs one by one
SELECT results_eq(
    $$SELECT next_load, confirming, found_load, stop_reason FROM ranread_latency_target_next('{}', 1, 99, 256)$$,
    $$VALUES (1, false, NULL::integer, NULL::text)$$,
    'a search starts at load 1');
SELECT results_eq(
    $$SELECT next_load, confirming FROM ranread_latency_target_next(
        ARRAY[ROW(1, 1, 11, 100, 99, 0.5, 'completed')::ranread_latency_step], 1, 99, 256)$$,
    $$VALUES (2, false)$$,
    'exactly percentile % of I/Os within the bound holds (fio: success >= percentile)');
SELECT results_eq(
    $$SELECT next_load, found_load FROM ranread_latency_target_next(
        ARRAY[ROW(1, 1, 11, 100, 98.99, 0.5, 'completed')::ranread_latency_step], 1, 99, 256)$$,
    $$VALUES (NULL::integer, NULL::integer)$$,
    'just under percentile % fails');
SELECT is((ranread_latency_target_next(
        ARRAY[ROW(1, 1, 11, 100, 97.25, 1.4, 'completed')::ranread_latency_step], 1, 99, 256)).stop_reason,
    'none: p99 <= 1 ms fails even at load 1: 97.25% of I/Os within 1 ms, 99% needed (batch 11)',
    'when load 1 fails the search says so, with the figures');
SELECT results_eq(
    $$SELECT next_load, confirming FROM ranread_latency_target_next(ARRAY[
        ROW(1, 1, 11, 100, 100, 0.5, 'completed')::ranread_latency_step,
        ROW(2, 2, 12, 190, 99.9, 0.6, 'completed')::ranread_latency_step,
        ROW(3, 4, 13, 300, 50, 2, 'completed')::ranread_latency_step,
        ROW(4, 3, 14, 280, 99.5, 0.9, 'completed')::ranread_latency_step], 1, 99, 256)$$,
    $$VALUES (3, true)$$,
    'when a window that holds leaves the load where it is, the next window confirms it');
SELECT is((ranread_latency_target_next(ARRAY[
        ROW(1, 1, 11, 100, 100, 0.5, 'completed')::ranread_latency_step,
        ROW(2, 2, 12, 190, 99.9, 0.6, 'completed')::ranread_latency_step,
        ROW(3, 4, 13, 300, 50, 2, 'completed')::ranread_latency_step,
        ROW(4, 3, 14, 280, 99.5, 0.9, 'completed')::ranread_latency_step,
        ROW(5, 3, 15, 281, 99.4, 0.9, 'completed')::ranread_latency_step], 1, 99, 256)).stop_reason,
    'confirmed: p99 <= 1 ms held at load 3 and failed at 4; the confirming run at 3 held (99.40% of I/Os within 1 ms)',
    'the confirmed stop reason gives the load, where it failed, and the confirming run''s share');
SELECT is((ranread_latency_target_next(ARRAY[
        ROW(1, 1, 11, 100, 100, 0.5, 'completed')::ranread_latency_step,
        ROW(2, 2, 12, 190, NULL, NULL, 'stopped')::ranread_latency_step], 1, 99, 256)).stop_reason,
    'status: batch 12 at load 2 ended stopped, not completed',
    'a window that did not complete ends the search');
SELECT is((ranread_latency_target_next(ARRAY[
        ROW(1, 1, 11, 100, NULL, NULL, 'completed')::ranread_latency_step], 1, 99, 256)).stop_reason,
    'timing: batch 11 at load 1 has no latency figures (ranread.timing = off, or its history was not recorded)',
    'a window without latency figures ends the search');
SELECT is((ranread_latency_target_next(ARRAY[
        ROW(1, 1, 11, 100, 100, 0.5, 'completed')::ranread_latency_step,
        ROW(2, 2, 12, 190, NULL, NULL, 'stopped')::ranread_latency_step], 1, 99, 256)).next_load, NULL,
    'a stop reason comes with no next load');
SELECT is((ranread_latency_target_next(ARRAY[
        ROW(1, 1, 11, 100, 99.95, 0.5, 'completed')::ranread_latency_step,
        ROW(2, 2, 12, 190, 99.85, 0.6, 'completed')::ranread_latency_step], 0.25, 99.9, 256)).next_load, 1,
    'percentile and target_ms are the search''s (p99.9: 99.85% fails)');
SELECT is(provolatile, 'i', 'the rule is pure (immutable)')
  FROM pg_proc WHERE oid = 'ranread_latency_target_next'::regproc;

-- ranread_hist_within on a real histogram
SELECT ok((SELECT size_bytes = 67108864 FROM ranread_setup('64MB', target => 'tap_latency_rules')),
          'a target to read');
-- (the batch's row is written by its worker: read it in the next statement)
CREATE TEMP TABLE r AS SELECT * FROM ranread_run(1, 300, target => 'tap_latency_rules');
CREATE TEMP TABLE h AS SELECT b.histogram AS h FROM r JOIN ranread_batches b USING (batch);
SELECT is((SELECT count(*) FROM h WHERE ranread_hist_count(h) = 300), 1::bigint,
          'the batch''s histogram holds its 300 reads');
CREATE TEMP TABLE bk AS
SELECT k.*, sum(k.count) OVER (ORDER BY k.low_ms) AS upto, sum(k.count) OVER () AS total
  FROM h, ranread_hist_buckets(h.h) k;
SELECT is((SELECT ranread_hist_within(h, ranread_hist_percentile(h, 100)) FROM h), 100::float8,
          'every I/O is within the slowest I/O''s latency');
SELECT is((SELECT ranread_hist_within(h, ranread_hist_percentile(h, 0) / 2) FROM h), 0::float8,
          'no I/O is within half the fastest I/O''s latency');
SELECT is((SELECT ranread_hist_within(h, 1e6) FROM h), 100::float8,
          'a bound far above every I/O holds them all');
SELECT throws_ok($$SELECT ranread_hist_within(h, 'NaN') FROM h$$, '22023',
          'limit_ms must be a number of milliseconds, not NaN',
          'NaN is no latency bound: refused, not counted as holding every I/O');
SELECT is((SELECT ranread_hist_within(h, '-Infinity') FROM h), 0::float8,
          'a bound of -Infinity holds no I/O');
SELECT is((SELECT count(*) FROM bk, h
            WHERE bk.high_ms < ranread_hist_percentile(h.h, 100)
              AND NOT abs(ranread_hist_within(h.h, bk.high_ms) - 100.0 * bk.upto / bk.total) <= 1e-9),
          0::bigint,
          'at a bucket''s upper edge the share is exactly the I/Os of that bucket and below');
SELECT ok((SELECT bool_and(a.w <= b.w)
             FROM (SELECT x, ranread_hist_within(h, x) AS w FROM h, generate_series(0.01, 5, 0.01) x) a
             JOIN (SELECT x, ranread_hist_within(h, x) AS w FROM h, generate_series(0.01, 5, 0.01) x) b
               ON b.x = a.x + 0.01),
          'the share grows with the bound');
SELECT results_eq(
    $$SELECT w.within_pct, w.latency_ms FROM h, ranread_internal.ranread_latency_window(h.h, 0.3, 99) w$$,
    $$SELECT ranread_hist_within(h, 0.3), ranread_hist_percentile(h, 99) FROM h$$,
    'a window''s figures are the share within target_ms and the latency at percentile');
SELECT ok(ranread_purge('tap_latency_rules'), 'the target goes');

SELECT * FROM finish();
ROLLBACK;
