-- The watch's settings and baselines refuse bad input with an error that
-- names the argument: a tablespace that does not exist, thresholds out of
-- order, batches that are missing or have no histogram; and what they
-- accept is kept (ranread_health_set, ranread_baseline_set,
-- ranread_baseline_reset, ranread_probe_chart).
BEGIN;
SET LOCAL client_min_messages = warning;
SELECT plan(17);
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

SELECT * FROM finish();
ROLLBACK;
