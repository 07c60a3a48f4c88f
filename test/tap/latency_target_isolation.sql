-- ranread_latency_target reads each window's histogram, which the batch's
-- worker commits while the search runs: a repeatable read snapshot could not
-- see it, so the search refuses to start in one.
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT plan(2);

CREATE TEMP TABLE before AS SELECT count(*) AS batches FROM ranread_batches;
SELECT throws_ok($$SELECT * FROM ranread_latency_target(1, duration => '0.1s')$$, '25000',
    'ranread_latency_target must run at the read committed isolation level, not repeatable read',
    'a search in a repeatable read transaction is refused');
SELECT is((SELECT count(*) FROM ranread_batches), (SELECT batches FROM before),
    'before any window');

SELECT * FROM finish();
ROLLBACK;
