-- The watch's settings and baselines refuse bad input with an error that
-- names the argument: a tablespace that does not exist, thresholds out of
-- order, batches that are missing or have no histogram; and what they
-- accept is kept (ranread_health_set, ranread_baseline_set,
-- ranread_baseline_reset, ranread_probe_chart).
BEGIN;
SET LOCAL client_min_messages = warning;
SELECT plan(24);
\ir lib/util.psql

SELECT is(pg_temp.error_of($$SELECT ranread_health_set('no_such_space')$$),
          '42704: tablespace of ranread_health_set: tablespace "no_such_space" does not exist',
    'ranread_health_set of a tablespace that does not exist names the argument and the value');
SELECT is(pg_temp.error_of($$SELECT ranread_health_set('pg_default', p99_degraded_ms => 10, p99_critical_ms => 5)$$),
          '22023: p99_critical_ms of ranread_health_set must be above p99_degraded_ms (10 ms) and below 137000 ms, not 5',
    'thresholds out of order: the error names p99_critical_ms and says it must be above p99_degraded_ms');
SELECT is(pg_temp.error_of($$SELECT ranread_health_set('pg_default', p99_degraded_ms => 0)$$),
          '22023: p99_degraded_ms of ranread_health_set must be above 0 and below 137000 ms, not 0',
    'a p99_degraded_ms of 0 is refused by name');
SELECT is(pg_temp.error_of($$SELECT ranread_health_set('pg_default', slower_factor => 0.9)$$),
          '22023: slower_factor of ranread_health_set must be between 1 and 1000, not 0.9',
    'a slower_factor below 1 is refused by name');
SELECT is(pg_temp.error_of($$SELECT ranread_health_set('pg_default', baseline_probes => 0)$$),
          '22023: baseline_probes of ranread_health_set must be between 1 and 1000, not 0',
    'baseline_probes of 0 is refused by name');
SELECT is(pg_temp.error_of($$SELECT ranread_health_set('pg_default', p99_degraded_ms => NULL)$$),
          '22004: p99_degraded_ms of ranread_health_set must not be null',
    'a NULL threshold is refused by name');
SELECT is((SELECT p99_degraded_ms || ' ' || p99_critical_ms || ' ' || baseline_probes
             FROM ranread_health_set('pg_default', p99_degraded_ms => 2, p99_critical_ms => 4, baseline_probes => 3)),
          '2 4 3', 'ranread_health_set keeps the thresholds it is given');
SELECT is((SELECT p99_degraded_ms || ' ' || p99_critical_ms FROM ranread_internal.ranread_health_thresholds_of('pg_global')),
          '5 10', 'a tablespace without thresholds has the defaults: 5 ms and 10 ms');
SELECT is((SELECT status || ' ' || p99_critical_ms FROM ranread_health WHERE tablespace = 'pg_default'),
          'unknown 4', 'a tablespace with thresholds and no probe is watched, status unknown');

SELECT is(pg_temp.error_of($$SELECT ranread_baseline_set('no_such_space', '{1}')$$),
          '42704: tablespace of ranread_baseline_set: tablespace "no_such_space" does not exist',
    'ranread_baseline_set of a tablespace that does not exist names the argument');
SELECT is(pg_temp.error_of($$SELECT ranread_baseline_set('pg_default', '{}')$$),
          '22023: batches of ranread_baseline_set must hold 1 to 10000 batch ids and no null, not {}',
    'an empty list of batches is refused by name');
SELECT is(pg_temp.error_of($$SELECT ranread_baseline_set('pg_default', '{-5}')$$),
          '42704: batches of ranread_baseline_set: batch -5 does not exist',
    'a missing batch is refused, naming batches and the batch');
SELECT is(pg_temp.error_of($$SELECT ranread_baseline_reset('no_such_space')$$),
          '42704: tablespace of ranread_baseline_reset: tablespace "no_such_space" does not exist',
    'ranread_baseline_reset of a tablespace that does not exist names the argument');
SELECT is(ranread_baseline_reset('pg_default'), false, 'ranread_baseline_reset says when there was no baseline');
SELECT is(pg_temp.error_of($$SELECT ranread_probe_chart('no_such_space')$$),
          '42704: tablespace of ranread_probe_chart: tablespace "no_such_space" does not exist',
    'ranread_probe_chart of a tablespace that does not exist names the argument');
SELECT is(pg_temp.error_of($$SELECT ranread_probe_chart('pg_default', since => '-1 day')$$),
          '22023: since of ranread_probe_chart must be above 0 and at most 100 years, not -1 days',
    'a negative since is refused by name');
SELECT ok(pg_temp.svg_ok(ranread_probe_chart('pg_default')), 'a tablespace with no probe still gets a well-formed chart');

-- alpha within a range that means something; a 2-D array of batches named
SELECT is(pg_temp.error_of($$SELECT ranread_health_set('pg_default', alpha => 1e-300)$$),
          '22023: alpha of ranread_health_set must be between 1e-12 and 0.5, not 1e-300',
    'an alpha of 1e-300 (no test could ever be significant) is refused, naming the argument, the value and the range');
SELECT is(pg_temp.error_of($$SELECT ranread_health_set('pg_default', alpha => 0.9)$$),
          '22023: alpha of ranread_health_set must be between 1e-12 and 0.5, not 0.9',
    '... and so is an alpha of 0.9');
SELECT is((SELECT alpha FROM ranread_health_set('pg_default', alpha => 1e-12)), 1e-12::float8,
    'an alpha of 1e-12, the floor, is kept');
SELECT is(pg_temp.error_of($$SELECT ranread_baseline_set('pg_default', '{{1,2},{1,2}}')$$),
          '22023: batches of ranread_baseline_set must be a one-dimensional array of batch ids, not {{1,2},{1,2}}',
    'a two-dimensional array of batches is refused by name');

-- A factor that numeric(12,3) cannot hold (infinite, over a p99 of 0)
-- does not break ranread_health: it shows NULL
INSERT INTO ranread_probe_verdicts (batch, tablespace, probed_at, status, p99_factor, factor, verdict)
VALUES (-7, 'pg_default', clock_timestamp() + interval '1 hour', 'ok', 'Infinity', 'Infinity', 'slower');
SELECT is((SELECT format('%s|%s|%s', last_batch, coalesce(change::text, 'null'), coalesce(factor::text, 'null'))
             FROM ranread_health WHERE tablespace = 'pg_default'), '-7|null|null',
    'ranread_health shows an infinite change and factor as NULL instead of failing');

-- The comparisons' settings are refused naming the function called
SELECT is(pg_temp.error_of($$SELECT * FROM ranread_internal.ranread_compare_pairs('ranread_compare_sweeps', NULL, NULL, NULL, 0.5, 0.001)$$),
          '22023: min_factor of ranread_compare_sweeps must be between 1 and 1000, not 0.5',
    'a comparison''s min_factor out of range is refused naming the function called');
SELECT is(pg_temp.error_of($$SELECT * FROM ranread_internal.ranread_compare_pairs('ranread_compare', NULL, NULL, NULL, 1.25, 1)$$),
          '22023: alpha of ranread_compare must be above 0 and below 1, not 1',
    '... and so is its alpha');

SELECT * FROM finish();
ROLLBACK;
