-- The comparison of two latency histograms (ranread_hist_compare, src/watch/compare.c)
-- on synthetic histograms, so that the statistics are checked on known
-- distributions without running I/O: noise does not alarm, a real shift
-- does, huge n alone does not, and bad input is refused by name.  The
-- histograms are drawn from a log-normal of known median (seeded), as a
-- device's latencies roughly are.
BEGIN;
SET LOCAL client_min_messages = warning;
SELECT plan(29);
\ir lib/util.psql

-- n I/Os of a log-normal latency of median median_ms and shape sigma,
-- drawn with the session's random(), bucketed to 1 us
CREATE FUNCTION pg_temp.lognormal(n integer, median_ms float8, sigma float8 DEFAULT 0.25) RETURNS bytea
LANGUAGE sql VOLATILE AS $$
    SELECT ranread_internal.ranread_hist_make(array_agg(ms), array_agg(c))
      FROM (SELECT round((median_ms * exp(sigma * sqrt(-2 * ln(1 - random())) * cos(2 * pi() * random())))::numeric, 3)::float8 AS ms,
                   count(*) AS c
              FROM generate_series(1, n) GROUP BY 1) d
$$;
SELECT setseed(0.26);

-- a baseline of 5 probes of 400 I/Os, then 20 probes of the same device
CREATE TEMP TABLE base AS SELECT pg_temp.lognormal(2000, 2.0) AS h;
CREATE TEMP TABLE same AS
SELECT i, c.* FROM generate_series(1, 20) i,
       LATERAL ranread_hist_compare((SELECT h FROM base), pg_temp.lognormal(400, 2.0)) c;
SELECT is((SELECT count(*)::integer FROM same WHERE verdict = 'same'), 20,
    '20 probes of an unchanged device against its baseline: every verdict is same (no false alarm)');
SELECT ok((SELECT max(p99_ratio) < 1.25 AND min(p99_ratio) > 0.8 FROM same),
    '... their p99 stays within the noise of 400 I/Os');

-- 3x slower: every percentile three times
CREATE TEMP TABLE slow AS SELECT * FROM ranread_hist_compare((SELECT h FROM base), pg_temp.lognormal(400, 6.0));
SELECT is((SELECT verdict FROM slow), 'slower', 'a probe of a device 3x slower: slower');
SELECT ok((SELECT factor BETWEEN 2.6 AND 3.4 FROM slow), '... by a factor of about 3');
SELECT ok((SELECT confidence > 0.999 AND p_value < 0.001 FROM slow), '... with a confidence above 0.999');
SELECT ok((SELECT shift > 0.95 FROM slow), '... nearly every I/O of it is slower than one of the baseline (U / n_a n_b)');
SELECT is((SELECT ios_a || ' ' || ios_b FROM slow), '2000 400', '... counting the I/Os of each side');

-- 3x faster
SELECT is((SELECT verdict || ' ' || (factor < 0.4)::text FROM ranread_hist_compare((SELECT h FROM base), pg_temp.lognormal(400, 0.667))),
          'faster true', 'a device 3x faster: faster, factor about 0.33 (b over a)');

-- only the tail: the median unchanged, 5% of I/Os at 20 ms
CREATE TEMP TABLE tail AS
SELECT * FROM ranread_hist_compare((SELECT h FROM base),
    (SELECT ranread_hist_merge(x) FROM (VALUES (pg_temp.lognormal(950, 2.0)),
                                               (ranread_internal.ranread_hist_make('{20}', '{50}'))) v(x)));
SELECT is((SELECT verdict || ' ' || decided_by FROM tail), 'slower p99',
    'a tail gone slow under an unchanged median: slower, decided by p99');
SELECT ok((SELECT p50_ratio < 1.1 FROM tail), '... while the median is about the same');

-- huge n, small shift: significant, but below the effect that counts
CREATE TEMP TABLE huge AS
SELECT * FROM ranread_hist_compare(pg_temp.lognormal(300000, 2.0), pg_temp.lognormal(300000, 2.2));
SELECT ok((SELECT p50_p_value < 1e-6 FROM huge), '300,000 I/Os each, 10% slower: the test alone is significant');
SELECT is((SELECT verdict FROM huge), 'same', '... but 10% is below min_factor 1.25: same, no alarm');
SELECT is((SELECT verdict FROM ranread_hist_compare(pg_temp.lognormal(300000, 2.0), pg_temp.lognormal(300000, 2.2), min_factor => 1.05)),
          'slower', '... and slower with min_factor 1.05');

-- few I/Os: a large shift that the tests cannot tell from noise
SELECT is((SELECT verdict FROM ranread_hist_compare(pg_temp.lognormal(3, 2.0), pg_temp.lognormal(3, 4.0))), 'same',
    '3 I/Os against 3: not significant at alpha 0.001, same');

-- identical histograms
SELECT is((SELECT verdict || ' ' || factor || ' ' || p_value FROM ranread_hist_compare((SELECT h FROM base), (SELECT h FROM base))),
          'same 1 1', 'a histogram against itself: same, factor 1, p 1');

-- bad input
SELECT is(pg_temp.error_of($$SELECT ranread_hist_compare(NULL, (SELECT h FROM base))$$),
          '22004: histogram_a of ranread_hist_compare must not be null', 'a NULL histogram is refused by name');
SELECT is(pg_temp.error_of($$SELECT ranread_hist_compare((SELECT h FROM base), (SELECT h FROM base), min_factor => 0.5)$$),
          '22023: min_factor of ranread_hist_compare must be between 1 and 1000, not 0.5', 'min_factor below 1 is refused by name');
SELECT is(pg_temp.error_of($$SELECT ranread_hist_compare((SELECT h FROM base), (SELECT h FROM base), alpha => 1)$$),
          '22023: alpha of ranread_hist_compare must be above 0 and below 1, not 1', 'alpha of 1 is refused by name');
SELECT is(pg_temp.error_of($$SELECT ranread_hist_compare((SELECT h FROM base), ranread_internal.ranread_hist_make('{}', '{}'))$$),
          '22023: histogram_b holds no I/O: there is nothing to compare', 'an empty histogram is refused by name');
SELECT is(pg_temp.error_of($$SELECT ranread_hist_compare('\x00'::bytea, (SELECT h FROM base))$$),
          '22P03: invalid ranread histogram given to ranread_hist_compare', 'a bytea that is no histogram is refused');
SELECT is(pg_temp.error_of($$SELECT ranread_compare(-1, 1)$$),
          '42704: batch_a of ranread_compare: batch -1 does not exist', 'ranread_compare of a missing batch names batch_a');
SELECT is(pg_temp.error_of($$SELECT ranread_compare(NULL, 1)$$),
          '22004: batch_a of ranread_compare must not be null', '... a NULL batch too');
SELECT is(pg_temp.error_of($$SELECT ranread_compare_sweeps(-1, -2)$$),
          '42704: sweep_a of ranread_compare_sweeps: sweep -1 does not exist', 'ranread_compare_sweeps of a missing sweep names sweep_a');
SELECT is(pg_temp.error_of($$SELECT ranread_compare_studies(-1, -2)$$),
          '42704: study_a of ranread_compare_studies: study -1 does not exist', 'ranread_compare_studies of a missing study names study_a');

-- Sweeps and studies compared pair by pair (fixed rows: two sweeps of two
-- steps, two studies of two points; the second step and point 3x slower)
INSERT INTO ranread_sweeps (sweep, started_at, finished_at, target, block_size, write_pct, queue_depth, pattern,
                            start, max_processes, max_avg_ms, steps, meets_flash_guidance)
SELECT s, now(), now(), 'ranread', 8192, 0, 1, 'random', 1, 2, 10, 2, false FROM unnest(ARRAY[-71, -72]) s;
INSERT INTO ranread_studies (study, kind, started_at, finished_at, target, call, definition, planned, completed, skipped)
SELECT s, 'study', now(), now(), 'ranread', 'fixed', '{}', 2, 2, 0 FROM unnest(ARRAY[-81, -82]) s;
INSERT INTO ranread_batches (batch, run_at, target, processes, seed, workers, engine, status, sweep, study, point, histogram)
VALUES (-701, now(), 'ranread', 1, 1, 1, 'sync', 'completed', -71, -81, '{"qd": 1}', (SELECT h FROM base)),
       (-702, now(), 'ranread', 2, 1, 1, 'sync', 'completed', -71, -81, '{"qd": 2}', (SELECT h FROM base)),
       (-703, now(), 'ranread', 1, 1, 1, 'sync', 'completed', -72, -82, '{"qd": 1}', pg_temp.lognormal(2000, 2.0)),
       (-704, now(), 'ranread', 2, 1, 1, 'sync', 'completed', -72, -82, '{"qd": 2}', pg_temp.lognormal(2000, 6.0));
SELECT is(ARRAY(SELECT format('%s:%s-%s:%s', processes, batch_a, batch_b, verdict) FROM ranread_compare_sweeps(-71, -72)),
    ARRAY['1:-701--703:same', '2:-702--704:slower'],
    'ranread_compare_sweeps pairs the steps of the same processes, in their order, and judges each');
SELECT is(ARRAY(SELECT format('%s:%s-%s:%s', point, batch_a, batch_b, verdict) FROM ranread_compare_studies(-81, -82)),
    ARRAY['{"qd": 2}:-702--704:slower', '{"qd": 1}:-701--703:same'],
    'ranread_compare_studies pairs the same points, in the order of their batches, and judges each');
SELECT is(pg_temp.error_of($$SELECT ranread_compare_sweeps(-71, -72, min_factor => 0.5)$$),
          '22023: min_factor of ranread_compare_sweeps must be between 1 and 1000, not 0.5',
    'a comparison''s min_factor out of range is refused naming the function called');
SELECT is(pg_temp.error_of($$SELECT ranread_compare_studies(-81, -82, alpha => 1)$$),
          '22023: alpha of ranread_compare_studies must be above 0 and below 1, not 1', '... and its alpha');
SELECT is(pg_temp.error_of($$SELECT ranread_compare(-701, -704, min_factor => NULL)$$),
          '22004: min_factor of ranread_compare must not be null', '... and a NULL min_factor');

SELECT * FROM finish();
ROLLBACK;
