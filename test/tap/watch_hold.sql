-- Verdicts that noise cannot flip (docs/design.md, "Comparing batches and
-- keeping watch"), on scripted probes (no I/O): a percentile against a
-- bound by the exact binomial test (ranread_hist_threshold), the factor's
-- interval, the hysteresis of a tablespace's status (ranread_health_hold),
-- the robust baseline (ranread_baseline_robust), and the trigger that
-- judges probes: a device whose p99 sits on a threshold changes status at
-- most once in 12 probes, a body 3x slower is caught on the hold_probes-th
-- probe with the test named, a first probe changes nothing, a stalled
-- baseline probe is left out and named; ranread_baseline_set refuses
-- batches of another tablespace or workload.
BEGIN;
SET LOCAL client_min_messages = error;
SELECT plan(39);
\ir lib/util.psql

-- ranread_hist_threshold: p99 against a bound
SELECT is((SELECT verdict FROM ranread_hist_threshold(ranread_internal.ranread_hist_make('{0.3,8}', '{990,10}'), 5)),
    'not shown', '1% of 1000 I/Os above 5 ms: p99 at the bound is not shown to be above it');
SELECT is((SELECT format('%s %s %s %s', verdict, above, share, (p_value < 1e-6)::text)
             FROM ranread_hist_threshold(ranread_internal.ranread_hist_make('{0.3,8}', '{970,30}'), 5)),
    'above 30 0.03 true', '3% of 1000 I/Os above 5 ms: above, by the exact binomial test (p 2.1e-07)');
SELECT ok((SELECT abs(p_value - 2.0599888509719412e-07) < 1e-12
             FROM ranread_hist_threshold(ranread_internal.ranread_hist_make('{0.3,8}', '{970,30}'), 5)),
    '... whose p-value is the exact binomial tail P(X >= 30 | 1000, 1%)');
SELECT ok((SELECT abs(p_value - 0.003432321587755305) < 1e-12
             FROM ranread_hist_threshold(ranread_internal.ranread_hist_make('{0.3,8}', '{95,5}'), 5)),
    '... and P(X >= 5 | 100, 1%) = 0.00343 for 5 of 100');
SELECT ok((SELECT share_low > 0.01 AND share_low < 0.03 AND share_high > 0.03
             FROM ranread_hist_threshold(ranread_internal.ranread_hist_make('{0.3,8}', '{970,30}'), 5)),
    'the share''s interval holds 3% and excludes the 1% p99 allows');
SELECT is((SELECT verdict || ' ' || min_ios FROM ranread_hist_threshold(ranread_internal.ranread_hist_make('{40}', '{18}'), 5)),
    'too few 100', '18 I/Os, all above: too few to judge a p99 (it would be their slowest), 100 needed');
SELECT is(pg_temp.error_of($$SELECT * FROM ranread_hist_threshold(ranread_internal.ranread_hist_make('{1}', '{5}'), 'NaN')$$),
    '22023: bound_ms of ranread_hist_threshold must be between 0 and 137000 ms, not NaN',
    'a bound that is not a number is refused by name');

-- the factor's interval
SELECT ok((SELECT verdict = 'slower' AND decided_by = 'p50' AND factor_low <= factor AND factor <= factor_high AND factor_low > 2.5
             FROM ranread_hist_compare(ranread_internal.ranread_hist_make('{0.30,0.31,0.32,0.33}', '{500,500,500,500}'),
                                       ranread_internal.ranread_hist_make('{0.90,0.93,0.96,0.99}', '{500,500,500,500}'))),
    'a body 3x slower: slower, decided by p50, its factor inside an interval whose low end is above 2.5');

-- ranread_health_hold: the hysteresis, pure
SELECT results_eq(
    $$SELECT v.label, h.status, h.changed FROM (VALUES
        ('a first probe changes nothing', NULL, '{degraded}'::text[]),
        ('two probes are not three', 'ok', '{degraded,degraded}'),
        ('three in a row that reached degraded: degraded', 'ok', '{degraded,critical,degraded}'),
        ('one probe among ok ones: ok holds', 'ok', '{ok,degraded,ok}'),
        ('alternating readings: the status holds', 'ok', '{degraded,ok,degraded}'),
        ('no status yet: the one all three reached', NULL, '{ok,degraded,ok}'),
        ('three better than critical: down to the worst of them', 'critical', '{ok,slower,ok}'),
        ('one critical among better ones: critical holds', 'critical', '{ok,critical,ok}'),
        ('only the last three count', 'ok', '{ok,ok,degraded,degraded,degraded}')
      ) v(label, cur, r), LATERAL ranread_internal.ranread_health_hold(v.cur, v.r, 3) h ORDER BY v.label$$,
    $$VALUES ('a first probe changes nothing', 'unknown', false),
             ('alternating readings: the status holds', 'ok', false),
             ('no status yet: the one all three reached', 'ok', true),
             ('one critical among better ones: critical holds', 'critical', false),
             ('one probe among ok ones: ok holds', 'ok', false),
             ('only the last three count', 'degraded', true),
             ('three better than critical: down to the worst of them', 'slower', true),
             ('three in a row that reached degraded: degraded', 'degraded', true),
             ('two probes are not three', 'ok', false)$$,
    'a status changes only when the last hold_probes readings all show another, to the level they all reached');
SELECT is((SELECT why FROM ranread_internal.ranread_health_hold('ok', '{degraded,critical,degraded}', 3)),
    'the last 3 probes in a row each showed degraded or worse (degraded, critical, degraded)', '... and says why');
SELECT is(pg_temp.error_of($$SELECT * FROM ranread_internal.ranread_health_hold('ok', '{ok,unknown}', 3)$$),
    '22023: readings of ranread_health_hold must be ok, slower, degraded or critical, not {ok,unknown}',
    'a reading that is no status is refused');
SELECT is(pg_temp.error_of($$SELECT ranread_health_set('pg_default', hold_probes => 1)$$),
    '22023: hold_probes of ranread_health_set must be between 2 and 100, not 1',
    'hold_probes of 1 (one probe would change a status) is refused by name');

-- ranread_baseline_robust: the odd probes of a baseline
CREATE FUNCTION pg_temp.h(body_ms float8, n integer, tail integer) RETURNS bytea LANGUAGE sql AS $$
    SELECT ranread_internal.ranread_hist_make(ARRAY[body_ms, body_ms * 1.05, 8],
                                              ARRAY[(n - tail) / 2, n - tail - (n - tail) / 2, tail]::bigint[])
$$;
SELECT is((SELECT format('%s %s', kept, left_out) FROM ranread_internal.ranread_baseline_robust('{11,12,13,14,15}',
              ARRAY[pg_temp.h(0.3, 2000, 20), pg_temp.h(0.3, 2000, 22), pg_temp.h(3, 2000, 20),
                    pg_temp.h(0.3, 2000, 18), pg_temp.h(0.3, 2000, 20)], 1.25, 0.001)),
    '{11,12,14,15} {13}', 'a stalled probe (its body 10x slower) is left out of the baseline');
SELECT matches((SELECT reason FROM ranread_internal.ranread_baseline_robust('{11,12,13,14,15}',
              ARRAY[pg_temp.h(0.3, 2000, 20), pg_temp.h(0.3, 2000, 22), pg_temp.h(3, 2000, 20),
                    pg_temp.h(0.3, 2000, 18), pg_temp.h(0.3, 2000, 20)], 1.25, 0.001)),
    '^left out probe 13 is slower than the 4 near the median probe \(p50 10.09x theirs, Mann-Whitney U test p < 1e-300, below alpha 0.001\)$',
    '... named, with the test that found it');
SELECT is((SELECT format('%s %s', cardinality(left_out), (reason IS NULL)::text) FROM ranread_internal.ranread_baseline_robust('{1,2,3,4,5}',
              ARRAY[pg_temp.h(0.3, 2000, 14), pg_temp.h(0.3, 2000, 27), pg_temp.h(0.3, 2000, 20),
                    pg_temp.h(0.3, 2000, 25), pg_temp.h(0.3, 2000, 16)], 1.25, 0.001)),
    '0 true', 'probes whose 1% tail varies by chance (p99 at 0.3 ms or 8 ms) are all kept');
SELECT matches((SELECT reason FROM ranread_internal.ranread_baseline_robust('{1,2,3,4,5}',
              ARRAY[pg_temp.h(0.3, 2000, 20), pg_temp.h(0.3, 2000, 20), pg_temp.h(1, 2000, 20),
                    pg_temp.h(3, 2000, 20), pg_temp.h(3, 2000, 20)], 1.25, 0.001)),
    '^none left out: 4 of the 5 probes \(1, 2, 4, 5\) are 1.25x or more from the median probe''s p50 1.[0-9]+ ms, too many to tell the odd ones$',
    'when half the probes or more stand out from the median one, none is left out, and the reason says so');

-- The trigger, on scripted probes of pg_default: a batch with a histogram
-- of n I/Os, its body at body_ms, tail of them at 8 ms, then its row in
-- ranread_probes (what ranread_probe writes)
DELETE FROM ranread_probe_verdicts;
DELETE FROM ranread_baselines;
DELETE FROM ranread_health_thresholds;
CREATE FUNCTION pg_temp.probe(body_ms float8, tail integer, n integer DEFAULT 2000) RETURNS bigint LANGUAGE sql AS $$
    WITH b AS (
        INSERT INTO ranread_batches (batch, run_at, target, tablespace, processes, duration, block_size,
            queue_depth, write_pct, pattern, region_start, region_end, seed, workers, engine, reads,
            writes, seconds, iops, status, groups, distribution, histogram, rate_iops)
        VALUES (nextval('ranread_batch_seq'), clock_timestamp(), 'ranread_probe_pg_default', 'pg_default', 1, '10s',
            8192, 1, 0, 'random', 0, 100, 1, 1, 'sync', n, 0, 10, n / 10.0, 'completed', 1, 'uniform',
            pg_temp.h(body_ms, n, tail), 200)
        RETURNING batch, run_at)
    INSERT INTO ranread_probes (batch, tablespace, probed_at) SELECT batch, 'pg_default', run_at FROM b RETURNING batch
$$;
-- the tail of a device whose p99 sits on 5 ms: each of 2000 I/Os at 8 ms with chance 1%
CREATE FUNCTION pg_temp.tail() RETURNS integer LANGUAGE sql VOLATILE AS $$
    SELECT count(*)::integer FROM generate_series(1, 2000) WHERE random() < 0.01
$$;
SELECT setseed(0.34);
CREATE TEMP TABLE p (n serial, kind text, batch bigint);
INSERT INTO p (kind, batch) VALUES ('baseline', pg_temp.probe(0.3, pg_temp.tail()));
SELECT is((SELECT status || ' ' || coalesce(previous_status, 'none') FROM ranread_probe_verdicts), 'unknown none',
    'a first probe changes no status: unknown');
INSERT INTO p (kind, batch) VALUES ('baseline', pg_temp.probe(0.3, pg_temp.tail()));
INSERT INTO p (kind, batch) VALUES ('stalled', pg_temp.probe(3, pg_temp.tail()));
INSERT INTO p (kind, batch) VALUES ('baseline', pg_temp.probe(0.3, pg_temp.tail()));
INSERT INTO p (kind, batch) VALUES ('baseline', pg_temp.probe(0.3, pg_temp.tail()));
SELECT is((SELECT left_out FROM ranread_baselines WHERE tablespace = 'pg_default'),
    ARRAY(SELECT batch FROM p WHERE kind = 'stalled'), 'the stalled baseline probe is left out of the baseline');
SELECT is((SELECT cardinality(batches) FROM ranread_baselines WHERE tablespace = 'pg_default'), 5,
    '... which lists every probe that joined it');
SELECT ok((SELECT ranread_hist_count(histogram) = 8000 FROM ranread_baselines WHERE tablespace = 'pg_default'),
    '... and merges the histograms of the four it keeps');
SELECT matches((SELECT reason FROM ranread_probe_verdicts ORDER BY batch DESC LIMIT 1),
    format('the baseline left out probe %s is slower than the [0-9] near the median probe', (SELECT batch FROM p WHERE kind = 'stalled')),
    'the probe that makes the baseline whole names the one left out');
SELECT is((SELECT baseline_left_out FROM ranread_health WHERE tablespace = 'pg_default'),
    ARRAY(SELECT batch FROM p WHERE kind = 'stalled'), 'ranread_health shows it');

-- 12 probes of the device whose p99 sits on the degraded threshold
INSERT INTO p (kind, batch) SELECT 'edge', pg_temp.probe(0.3, pg_temp.tail()) FROM generate_series(1, 12);
SELECT ok((SELECT count(DISTINCT p99_ms > 5) = 2 FROM ranread_probe_verdicts v JOIN p USING (batch) WHERE p.kind = 'edge'),
    'the 12 probes'' own p99 falls on both sides of 5 ms (the flapping a point verdict would show)');
SELECT cmp_ok((SELECT count(*)::integer FROM ranread_probe_verdicts v JOIN p USING (batch)
                WHERE p.kind = 'edge' AND v.status IS DISTINCT FROM v.previous_status), '<=', 1,
    'yet the status changes at most once in those 12 probes');
SELECT is((SELECT string_agg(DISTINCT status, ',') FROM ranread_probe_verdicts v JOIN p USING (batch) WHERE p.kind = 'edge'),
    'ok', '... it is ok throughout (no test shows p99 above 5 ms)');
SELECT ok((SELECT bool_and(test LIKE 'exact binomial test of the I/Os slower than 5 ms: p %, not below alpha 0.001; against the baseline: Mann-Whitney U test (p50) p %')
             FROM ranread_probe_verdicts v JOIN p USING (batch) WHERE p.kind = 'edge'),
    'each verdict names the tests and their p-values');
SELECT ok((SELECT bool_and(effect ~ '^p99 [0-9.]+x the baseline''s \(99.9% interval [0-9.]+x to [0-9.]+x\)$')
             FROM ranread_probe_verdicts v JOIN p USING (batch) WHERE p.kind = 'edge'),
    '... the effect with its interval');
SELECT ok((SELECT bool_and(cardinality(probes) = 3 AND probes[3] = v.batch)
             FROM ranread_probe_verdicts v JOIN p USING (batch) WHERE p.kind = 'edge'),
    '... and the probes the status rests on: the last three, this one last');

-- a single probe far above the thresholds among ok ones changes nothing
INSERT INTO p (kind, batch) VALUES ('spike', pg_temp.probe(20, 0));
SELECT is((SELECT probe_status || ' ' || status FROM ranread_probe_verdicts WHERE batch = (SELECT batch FROM p WHERE kind = 'spike')),
    'critical ok', 'one probe whose every I/O takes 20 ms reads critical, and the status stays ok');
SELECT matches((SELECT test FROM ranread_probe_verdicts WHERE batch = (SELECT batch FROM p WHERE kind = 'spike')),
    '^exact binomial test of the I/Os slower than 10 ms \(p99 is above it when more than 1% are\): p (< 1e-300|[0-9.e-]+), below alpha 0.001$',
    '... by the exact binomial test, named');
SELECT matches((SELECT effect FROM ranread_probe_verdicts WHERE batch = (SELECT batch FROM p WHERE kind = 'spike')),
    '^2000 of 2000 I/Os slower than 10 ms, 100% \(99.9% interval [0-9.]+% to 100%\), where p99 10 ms allows 1%$',
    '... with the share above the threshold and its interval');
INSERT INTO p (kind, batch) SELECT 'edge', pg_temp.probe(0.3, pg_temp.tail()) FROM generate_series(1, 3);

-- the body 3x slower: caught on the third slow probe
INSERT INTO p (kind, batch) SELECT 'slow', pg_temp.probe(0.9, pg_temp.tail()) FROM generate_series(1, 4);
SELECT is((SELECT string_agg(v.probe_status || '/' || v.status, ',' ORDER BY v.batch)
             FROM ranread_probe_verdicts v JOIN p USING (batch) WHERE p.kind = 'slow'),
    'slower/ok,slower/ok,slower/slower,slower/slower',
    'a body 3x slower: every probe reads slower, and the status follows on the third (hold_probes 3)');
SELECT matches((SELECT test FROM ranread_probe_verdicts v JOIN p USING (batch) WHERE p.kind = 'slow' ORDER BY batch LIMIT 1),
    '^Mann-Whitney U test of the middle \(p50\): p (< 1e-300|[0-9.e-]+), below alpha 0.001, at least 1.25x apart and past the spread of the baseline''s probes$',
    '... decided by the Mann-Whitney U test of the middle, named');
SELECT ok((SELECT factor_low > 2.5 AND factor_high < 3.5 AND effect LIKE 'p50 3.%x the baseline''s (99.9% interval %'
             FROM ranread_probe_verdicts v JOIN p USING (batch) WHERE p.kind = 'slow' ORDER BY batch LIMIT 1),
    '... its effect about 3x, with an interval from 2.5 to 3.5');
SELECT matches((SELECT reason FROM ranread_probe_verdicts v JOIN p USING (batch) WHERE p.kind = 'slow' ORDER BY batch LIMIT 1 OFFSET 2),
    '^slower: the last 3 probes in a row each showed slower \(probes [0-9]+, [0-9]+, [0-9]+\); this probe: slower than its baseline$',
    '... and the change says which probes showed it');
SELECT is((SELECT status || ' ' || probe_status || ' ' || hold_probes FROM ranread_health WHERE tablespace = 'pg_default'),
    'slower slower 3', 'ranread_health shows the status, the last probe''s reading and hold_probes');

-- ranread_baseline_set: only batches of the tablespace, of a probe's workload
SELECT is(pg_temp.error_of(format($$SELECT ranread_baseline_set('pg_global', '{%s}')$$, (SELECT batch FROM p ORDER BY n LIMIT 1))),
    format('22023: batches of ranread_baseline_set: batch %s measured tablespace pg_default, not pg_global', (SELECT batch FROM p ORDER BY n LIMIT 1)),
    'a batch of another tablespace is refused, naming it and both tablespaces');
UPDATE ranread_batches SET processes = 4, queue_depth = 2 WHERE batch = (SELECT batch FROM p ORDER BY n LIMIT 1);
SELECT is(pg_temp.error_of(format($$SELECT ranread_baseline_set('pg_default', '{%s}')$$, (SELECT batch FROM p ORDER BY n LIMIT 1))),
    format('22023: batches of ranread_baseline_set: batch %s is not a probe''s workload: 4 processes, queue depth 2', (SELECT batch FROM p ORDER BY n LIMIT 1)),
    'a batch of another workload is refused, naming what differs');
SELECT is((SELECT cardinality(batches) || ' ' || pinned FROM ranread_baseline_set('pg_default',
              ARRAY(SELECT batch FROM p WHERE kind = 'slow'))), '4 true', 'probes of the tablespace are pinned');

SELECT * FROM finish();
ROLLBACK;
