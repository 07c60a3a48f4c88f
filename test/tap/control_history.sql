-- History written outside the caller's transaction, as seen from one
-- session: a batch stays in ranread_summary, ranread_results and
-- ranread_intervals when the transaction that ran it rolls back; ranread_stop()
-- with nothing running returns 0; one batch after another runs; ranread_reset
-- removes a real batch together with its rows.  (Stopping, cancelling and
-- killing a batch need several sessions: test/shell/30_stop.sh and
-- test/shell/40_cancel.sh.)
--
-- The target is made inside this transaction and rolled back with it.  The
-- batches' rows are committed by their workers, outside it; they are deleted
-- after the ROLLBACK at the end.
BEGIN;
SELECT plan(15);

SELECT lives_ok($$SELECT * FROM ranread_setup('16MB', target => 'rr_control_history')$$,
    'a 16 MB target for this file');
SELECT is(ranread_stop(), 0, 'ranread_stop() returns 0 when no batch runs');

SAVEPOINT before_run;
SELECT batch AS rr_batch1, status AS rr_status1, reads AS rr_reads1
  FROM ranread_run(2, 300, target => 'rr_control_history') \gset
ROLLBACK TO SAVEPOINT before_run;

SELECT is(:'rr_status1'::text, 'completed', 'a batch of 2 processes x 300 reads completes');
SELECT is(:rr_reads1::bigint, 600::bigint, '... and reports 600 reads');
SELECT is((SELECT status || '|' || reads FROM ranread_summary_full WHERE batch = :rr_batch1), 'completed|600',
    'after its transaction rolled back, the batch is still in ranread_summary with its reads');
SELECT is((SELECT count(*) || '|' || sum(reads) || '|' || min(status) FROM ranread_results WHERE batch = :rr_batch1),
    '2|600|completed', '... and in ranread_results, one row per process');
SELECT cmp_ok((SELECT count(*) FROM ranread_intervals WHERE batch = :rr_batch1), '>=', 1::bigint,
    '... and in ranread_intervals');
SELECT is((SELECT count(*) FROM ranread_batches WHERE status = 'running'), 0::bigint,
    'no batch is left ''running'' once ranread_run has returned');

SELECT batch AS rr_batch2, status AS rr_status2
  FROM ranread_run(1, 200, target => 'rr_control_history') \gset
SELECT is(:'rr_status2'::text, 'completed', 'the next batch runs right after');
SELECT cmp_ok(:rr_batch2::bigint, '>', :rr_batch1::bigint, '... with a higher batch number');
SELECT is(ranread_stop(), 0, 'ranread_stop() after the batches ended returns 0');

SAVEPOINT before_reset;
SELECT cmp_ok(ranread_reset(), '>=', 2::bigint, 'ranread_reset() counts the real batches it removes');
SELECT is((SELECT count(*) FROM ranread_batches WHERE batch IN (:rr_batch1, :rr_batch2)), 0::bigint,
    '... which leave ranread_batches');
SELECT is((SELECT count(*) FROM ranread_results WHERE batch IN (:rr_batch1, :rr_batch2))
        + (SELECT count(*) FROM ranread_intervals WHERE batch IN (:rr_batch1, :rr_batch2)), 0::bigint,
    '... together with their rows in ranread_results and ranread_intervals');
ROLLBACK TO SAVEPOINT before_reset;
SELECT is((SELECT count(*) FROM ranread_batches WHERE batch IN (:rr_batch1, :rr_batch2)), 2::bigint,
    'rolling back ranread_reset brings them back');

SELECT * FROM finish();
ROLLBACK;

-- The workers committed these rows themselves; leave the database as it was.
DELETE FROM ranread_intervals WHERE batch IN (:rr_batch1, :rr_batch2);
DELETE FROM ranread_results WHERE batch IN (:rr_batch1, :rr_batch2);
DELETE FROM ranread_batches WHERE batch IN (:rr_batch1, :rr_batch2);
