-- Advice that holds still, from a scripted history (no I/O): each figure
-- is the median of the latest five comparable batches (same kind, block
-- size, processes and queue depth, reads only, completed; a fleet's or a
-- study's batch counts when it is comparable), names them and says how
-- much they vary; three calls in a row give the same rows; batches that
-- vary more than the change suggested get a warning; figures a cache may
-- have answered give no storage advice.  docs/commit-and-advice.md, "The
-- advisor".
BEGIN;
SET LOCAL client_min_messages = error;
SELECT plan(18);

DELETE FROM ranread_batches;
DELETE FROM ranread_groups;
DELETE FROM ranread_target_catalog;
SELECT ok((SELECT size_bytes = 8388608 FROM ranread_setup('8MB', target => 'tap_stable')), 'a target');

-- A batch of the scripted history, with what makes it comparable or not
CREATE FUNCTION pg_temp.batch(processes integer, queue_depth integer, block_size integer, pattern text,
                              iops float8, avg_ms float8, status text DEFAULT 'completed',
                              write_pct integer DEFAULT 0, fleet bigint DEFAULT NULL, point jsonb DEFAULT NULL)
RETURNS bigint LANGUAGE sql AS $$
    INSERT INTO ranread_batches (batch, run_at, target, tablespace, processes, duration, block_size,
        queue_depth, write_pct, pattern, region_start, region_end, seed, workers, engine, reads,
        writes, seconds, iops, mbps, avg_ms, p99_ms, max_ms, status, groups, distribution, fleet, point)
    VALUES (nextval('ranread_batch_seq'), clock_timestamp(), 'tap_stable', 'pg_default', processes, '5s', block_size,
        queue_depth, write_pct, pattern, 0, 100, 1, 1, 'io_uring', (iops * 5)::bigint, 0, 5, iops,
        iops * block_size / 1048576, avg_ms, avg_ms * 2, avg_ms * 4, status, 1, 'uniform', fleet, point)
    RETURNING batch
$$;
CREATE TEMP TABLE b (name text PRIMARY KEY, batch bigint);

-- QD1 random 8 KiB reads: an old outlier, then five that agree within 8%
-- (one of a fleet, one a study's point); and batches that are not
-- comparable: another block size, writes, stopped, failed
INSERT INTO b VALUES ('outlier', pg_temp.batch(1, 1, 8192, 'random', 200, 5.0));
INSERT INTO b VALUES ('r1', pg_temp.batch(1, 1, 8192, 'random', 2083, 0.48));
INSERT INTO b VALUES ('r2', pg_temp.batch(1, 1, 8192, 'random', 2000, 0.50));
INSERT INTO b VALUES ('r3', pg_temp.batch(1, 1, 8192, 'random', 1923, 0.52, fleet => 7));
INSERT INTO b VALUES ('r4', pg_temp.batch(1, 1, 8192, 'random', 2041, 0.49, point => '{"test": "RND8K"}'));
INSERT INTO b VALUES ('r5', pg_temp.batch(1, 1, 8192, 'random', 1961, 0.51));
INSERT INTO b VALUES ('4k', pg_temp.batch(1, 1, 4096, 'random', 90000, 0.011));
INSERT INTO b VALUES ('writes', pg_temp.batch(1, 1, 8192, 'random', 50000, 0.02, write_pct => 30));
INSERT INTO b VALUES ('stopped', pg_temp.batch(1, 1, 8192, 'random', 90000, 0.011, 'stopped'));
INSERT INTO b VALUES ('failed', pg_temp.batch(1, 1, 8192, 'random', 90000, 0.011, 'failed'));
-- the curve, one process's sequential reads (98 to 102 MiB/s), four processes'
INSERT INTO b VALUES ('c2', pg_temp.batch(2, 1, 8192, 'random', 2002, 1.0)),
                     ('c4', pg_temp.batch(1, 4, 8192, 'random', 2004, 2.0)),
                     ('s1', pg_temp.batch(1, 1, 1048576, 'sequential', 98, 10.2)),
                     ('s2', pg_temp.batch(1, 1, 1048576, 'sequential', 102, 9.8)),
                     ('s3', pg_temp.batch(1, 1, 1048576, 'sequential', 100, 10)),
                     ('seq4', pg_temp.batch(4, 1, 1048576, 'sequential', 100, 40));

-- 1. Three calls in a row
CREATE TEMP TABLE c1 AS SELECT * FROM ranread_advise(cache_hit_ratio => 0);
CREATE TEMP TABLE c2 AS SELECT * FROM ranread_advise(cache_hit_ratio => 0);
CREATE TEMP TABLE c3 AS SELECT * FROM ranread_advise(cache_hit_ratio => 0);
SELECT is((SELECT count(*) FROM c1 WHERE suggested IS NOT NULL), 6::bigint,
    'the history advises every setting but wal_sync_method (no commit test), full_page_writes from the storage''s facts');
SELECT results_eq('TABLE c2', 'TABLE c1', 'a second call gives the same advice, every column');
SELECT results_eq('TABLE c3', 'TABLE c1', '... and a third');

-- 2. The medians of the comparable batches, named, and how much they vary
SELECT is((SELECT batches FROM c1 WHERE setting = 'random_page_cost'),
    (SELECT array_agg(batch ORDER BY batch) FROM b WHERE name IN ('r1', 'r2', 'r3', 'r4', 'r5', 's1', 's2', 's3')),
    'random_page_cost rests on the latest five QD1 random batches (a fleet''s and a study''s among them) and the three sequential ones');
SELECT is((SELECT figures FROM c1 WHERE setting = 'random_page_cost'),
    format('QD1 random 8 KiB reads: 0.500 ms average (median of batches %s, the latest %s; they vary by 8.0%%); '
           'sequential 1024 KiB reads, one process: 100 MiB/s, 0.0781 ms per 8 KiB page (median of batches %s, the latest %s; they vary by 4.0%%); '
           'pg_default is the database''s default tablespace: its sequential page is the unit; cache hit ratio 0 (given)',
           (SELECT string_agg(batch::text, ', ' ORDER BY batch) FROM b WHERE name IN ('r1', 'r2', 'r3', 'r4', 'r5')),
           (SELECT to_char(run_at, 'YYYY-MM-DD HH24:MI') FROM ranread_batches WHERE batch = (SELECT batch FROM b WHERE name = 'r5')),
           (SELECT string_agg(batch::text, ', ' ORDER BY batch) FROM b WHERE name IN ('s1', 's2', 's3')),
           (SELECT to_char(run_at, 'YYYY-MM-DD HH24:MI') FROM ranread_batches WHERE batch = (SELECT batch FROM b WHERE name = 's3'))),
    'the figures are medians (0.5 ms, 100 MiB/s), named by their batches, with their spread, (max - min) / median');
SELECT is((SELECT suggested FROM c1 WHERE setting = 'random_page_cost'), '6.4',
    'so random_page_cost is 0.5 ms / 0.078 ms: neither the old 5 ms outlier nor the 11 us batches of other kinds count');
SELECT ok((SELECT figures LIKE 'random 8 KiB reads by concurrency (I/Os in flight): 1: 2,000 IOPS, 0.500 ms (median of 5 batches, which vary by 8.0%); 2: 2,002 IOPS, 1.000 ms; %' FROM c1
            WHERE setting = 'effective_io_concurrency'),
    'the curve''s points are medians too, with their spread');
SELECT is((SELECT warning FROM c1 WHERE setting = 'random_page_cost'),
    format('target tap_stable is 8192 kB, less than twice the server''s RAM (%s), but QD1 random 8 KiB reads average 0.500 ms, slower than a cache in RAM answers: the device answered',
           pg_size_pretty(ranread_internal.ranread_ram_bytes())),
    'batches that vary less than the change suggested (12% against 60%) get no warning of it; a small target is said');

-- 3. Batches that vary more than the change they suggest
INSERT INTO b VALUES ('w1', pg_temp.batch(1, 1, 8192, 'random', 5000, 0.2)),
                     ('w2', pg_temp.batch(1, 1, 8192, 'random', 1111, 0.9)),
                     ('w3', pg_temp.batch(1, 1, 8192, 'random', 3333, 0.3));
CREATE TEMP TABLE v AS SELECT * FROM ranread_advise(cache_hit_ratio => 0);
SELECT is((SELECT suggested FROM v WHERE setting = 'random_page_cost'), '6.3',
    'the median of the latest five (0.2, 0.9, 0.3, 0.51, 0.49 ms) is 0.49 ms: random_page_cost 6.3');
SELECT matches((SELECT warning FROM v WHERE setting = 'random_page_cost'),
    'the batches this rests on vary by 146\.9%, more than the change of 57\.5% it suggests \(4 to 6\.3\): measure again when the server is idle, or with longer batches, before applying it$',
    'batches that vary by more (0.7 / 0.49 ms + 4%) than the change from 4 to 6.3 give a warning');
SELECT ok((SELECT warning NOT LIKE '%vary by%' FROM v WHERE setting = 'seq_page_cost'),
    'a suggestion that is what is set (seq_page_cost 1) gets no such warning');

-- 4. A cache answered: QD1 random reads of 15 us
INSERT INTO b SELECT 'fast' || i, pg_temp.batch(1, 1, 8192, 'random', 66000, 0.015) FROM generate_series(1, 5) i;
CREATE TEMP TABLE f AS SELECT * FROM ranread_advise(cache_hit_ratio => 0);
SELECT is((SELECT array_agg(setting ORDER BY setting) FROM f WHERE suggested IS NULL AND apply_sql IS NULL
             AND warning LIKE 'QD1 random 8 KiB reads average 15.0 us, faster than storage answers a random read (flash takes 50 us or more): a cache answered them%'),
    '{effective_io_concurrency,maintenance_io_concurrency,max_parallel_workers_per_gather,random_page_cost,seq_page_cost}',
    'QD1 reads of 15 us: a cache answered, so no page costs, I/O concurrency or parallel workers (no max_parallel_workers_per_gather = 0)');
SELECT is((SELECT to_measure FROM f WHERE setting = 'max_parallel_workers_per_gather'),
    format('SELECT * FROM ranread_setup(%L, tablespace => ''pg_default'', target => ''ranread_large''); '
           'SELECT * FROM ranread_sweep(start => 1, max_processes => 16, duration => ''00:00:02'', max_avg_ms => 1000, target => ''ranread_large'', block_size => 1048576, pattern => ''sequential'');',
           pg_size_pretty(greatest(2 * pg_size_bytes(current_setting('effective_cache_size')),
                                   2 * ranread_internal.ranread_ram_bytes(), pg_size_bytes('1GB')))),
    'what to run instead: a target of twice the RAM, and the batches again on it');
SELECT ok((SELECT figures LIKE 'QD1 random 8 KiB reads: 0.015 ms average%' FROM f WHERE setting = 'random_page_cost'),
    'the figures are still shown');

-- 5. A small target read as fast as a cache answers: 0.1 ms
INSERT INTO b SELECT 'cached' || i, pg_temp.batch(1, 1, 8192, 'random', 10000, 0.1) FROM generate_series(1, 5) i;
SELECT is((SELECT count(*) FROM ranread_advise(cache_hit_ratio => 0)
            WHERE suggested IS NULL AND warning LIKE '%and QD1 random 8 KiB reads average 0.100 ms, as fast as a cache under the filesystem%'),
    5::bigint,
    'a target under twice the RAM read in 0.1 ms: a cache may have answered, no storage advice');

-- 6. One threshold of the gain that counts
SELECT is(ranread_internal.ranread_advise_noise(), 0.1::float8, 'a change must gain more than 10%');
SELECT matches((SELECT formula FROM c1 WHERE setting = 'wal_sync_method'),
    'the current method stays unless another is faster beyond the noise \(its 95% interval above the current method''s\) and by more than 10%',
    'wal_sync_method keeps the current method within it and within the noise of the rounds, as the commit test''s NOTICE does (ranread_advise_wal_sync_method)');

SELECT * FROM finish();
ROLLBACK;
