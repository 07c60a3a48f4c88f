-- ranread_advise(measure => true) on a real target: it runs the batches
-- advice needs (a random sweep, a sequential sweep, a commit test), each
-- recorded like any other, and every suggestion then follows by its formula
-- from the batches it names, unless a cache may have answered them (the
-- 64 MB target is smaller than twice any test machine's RAM: whether this
-- machine's storage answers in under 0.2 ms decides); asked again without
-- measuring, the history gives the same advice.  Short batches: the
-- figures themselves are not judged here (test/shell/91_advise_throttled.sh
-- does that on a disk with known figures).
BEGIN;
SET LOCAL client_min_messages = warning;
SELECT plan(11);

-- This transaction's own history: what other tests left is set aside
DELETE FROM ranread_batches;
DELETE FROM ranread_groups;
SELECT ok((SELECT size_bytes = 67108864 FROM ranread_setup('64MB', target => 'tap_advise_measure')),
          'a target to measure with');
CREATE TEMP TABLE sweeps_before AS SELECT coalesce(max(sweep), 0) AS sweep FROM ranread_sweeps;

CREATE TEMP TABLE a AS
SELECT * FROM ranread_advise(measure => true, duration => '0.2s', target => 'tap_advise_measure');

-- Did a cache answer, by the rule, from the QD1 batches it ran?
CREATE TEMP TABLE cache AS
SELECT c.* FROM ranread_internal.ranread_advise_cache(
    (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY b.avg_ms) FROM ranread_batches b
      WHERE b.target = 'tap_advise_measure' AND b.pattern = 'random' AND b.processes = 1 AND b.queue_depth = 1),
    'tap_advise_measure', 67108864, ranread_internal.ranread_ram_bytes()) c;
SELECT is((SELECT count(*) FROM a, cache
            WHERE CASE WHEN a.setting IN ('wal_sync_method', 'full_page_writes') OR NOT cache.withhold
                       THEN a.suggested IS NOT NULL AND a.to_measure IS NULL AND a.figures NOT LIKE 'missing%'
                       ELSE a.suggested IS NULL AND a.warning = cache.note END), 7::bigint,
    'after measuring, every setting has a suggestion, or a warning where a cache may have answered');
SELECT diag(format('%s: suggested %s, warning %s, figures %s', a.setting, a.suggested, a.warning, left(a.figures, 200)))
  FROM a, cache
 WHERE NOT CASE WHEN a.setting = 'wal_sync_method' OR NOT cache.withhold
                THEN a.suggested IS NOT NULL AND a.to_measure IS NULL AND a.figures NOT LIKE 'missing%'
                ELSE a.suggested IS NULL AND a.warning = cache.note END;
SELECT is((SELECT count(*) FROM ranread_sweeps WHERE sweep > (SELECT sweep FROM sweeps_before)), 2::bigint,
    'it ran two sweeps, recorded as sweeps: random 8 KiB and sequential 1 MiB reads');
SELECT results_eq(
    $$SELECT s.target, s.block_size, s.pattern, s.start FROM ranread_sweeps s
       WHERE s.sweep > (SELECT sweep FROM sweeps_before) ORDER BY s.sweep$$,
    $$VALUES ('tap_advise_measure'::name, 8192, 'random', 1), ('tap_advise_measure'::name, 1048576, 'sequential', 1)$$,
    'both on the tablespace''s target, from one process up');
SELECT is((SELECT count(DISTINCT commit_test) FROM ranread_commit_summary WHERE tablespace = 'pg_wal'), 1::bigint,
    'and a commit test on pg_wal');
SELECT is((SELECT count(*) FROM a, unnest(a.batches) x(batch)
            WHERE NOT EXISTS (SELECT FROM ranread_batches b WHERE b.batch = x.batch AND b.status = 'completed'
                                 AND (b.target = 'tap_advise_measure' OR b.commit_test IS NOT NULL))),
          0::bigint,
    'every batch the advice rests on is one it just ran');

-- Asked again, from the history alone
SELECT results_eq('SELECT setting, suggested, batches FROM ranread_advise(target => ''tap_advise_measure'')',
    'SELECT setting, suggested, batches FROM a',
    'without measuring, the history gives the same advice from the same batches');

-- Each suggestion from its batches, by its formula: the target taken for
-- one no cache holds, so that the storage's figures are advised from
UPDATE ranread_target_catalog SET size_bytes = 2 * ranread_internal.ranread_ram_bytes()
 WHERE target = 'tap_advise_measure';
DROP TABLE a;
CREATE TEMP TABLE a AS SELECT * FROM ranread_advise(target => 'tap_advise_measure');
CREATE TEMP TABLE f AS
SELECT (SELECT b.avg_ms FROM ranread_batches b, a WHERE a.setting = 'random_page_cost'
           AND b.batch = a.batches[1]) AS random_ms,
       (SELECT 8192.0 / (b.mbps * 1048576) * 1000 FROM ranread_batches b, a WHERE a.setting = 'random_page_cost'
           AND b.batch = a.batches[2]) AS page_ms;
SELECT results_eq(
    $$SELECT (SELECT suggested FROM a WHERE setting = 'random_page_cost'), (SELECT suggested FROM a WHERE setting = 'seq_page_cost')$$,
    $$SELECT c.random_page_cost::text, c.seq_page_cost::text FROM f, ranread_advise_page_costs(f.random_ms, f.page_ms, 0.9) c$$,
    'the page costs follow from the QD1 random read and the sequential page time it names');
SELECT is((SELECT suggested FROM a WHERE setting = 'effective_io_concurrency'),
    (SELECT c.io_concurrency::text
       FROM (SELECT array_agg(b.processes * b.queue_depth ORDER BY b.batch) AS conc,
                    array_agg(b.iops ORDER BY b.batch) AS iops, array_agg(b.avg_ms ORDER BY b.batch) AS avg_ms
               FROM ranread_batches b, a WHERE a.setting = 'effective_io_concurrency' AND b.batch = ANY (a.batches)) x,
            ranread_advise_io_concurrency(x.conc, x.iops, x.avg_ms, 10) c),
    'effective_io_concurrency follows from the random curve it names');
SELECT is((SELECT suggested FROM a WHERE setting = 'max_parallel_workers_per_gather'),
    (SELECT w.workers::text
       FROM a, ranread_advise_parallel_workers(
                (SELECT b.mbps FROM ranread_batches b WHERE b.batch = a.batches[1]),
                (SELECT b.mbps FROM ranread_batches b WHERE b.batch = a.batches[2])) w
      WHERE a.setting = 'max_parallel_workers_per_gather'),
    'the parallel workers'' cap follows from one process''s and several processes'' MiB/s');
SELECT is((SELECT suggested FROM a WHERE setting = 'wal_sync_method'),
    (SELECT w.method FROM (SELECT array_agg(method) AS m, array_agg(ops_per_s) AS o FROM ranread_commit_summary
                            WHERE test = 'one 8 kB write' AND durable AND status = 'completed') c,
            ranread_advise_wal_sync_method(c.m, c.o, current_setting('wal_sync_method')) w),
    'wal_sync_method follows from the commit test');

SELECT * FROM finish();
ROLLBACK;
