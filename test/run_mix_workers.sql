-- More workers than processes: a worker that gets no stream of the batch
-- has no I/O to do and ends at once; the batch completes with the
-- processes' figures and the server stays up (found by the sanitizer build:
-- the synchronous engine read the first slot of a worker that had none).
BEGIN;
SET client_min_messages = error;
SELECT plan(4);

SELECT ok((SELECT size_bytes = 67108864 FROM ranread_setup('64MB', target => 'tap_mix_workers')), 'a 64MB target');
CREATE TEMP TABLE boot AS SELECT pg_postmaster_start_time() AS t;

CREATE TEMP TABLE mix AS
SELECT * FROM ranread_mix('[{"processes": 1}]', duration => '0.3s', workers => 2, target => 'tap_mix_workers');
SELECT is((SELECT status FROM mix WHERE grp = 0), 'completed',
    'a mix of one process with workers => 2 completes');
SELECT ok((SELECT reads > 0 AND processes = 1 FROM mix WHERE grp = 0), '... with the one process''s reads');
SELECT is(pg_postmaster_start_time(), (SELECT t FROM boot), '... and the server did not restart');

SELECT * FROM finish();
ROLLBACK;
