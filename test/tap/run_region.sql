-- region_start and region_end (percent of the target) confine a batch's
-- I/O to that slice (ORION's "outer 40%"); random blocks spread over the
-- whole region, sequential ones stream through each process's own part of
-- it.  Where a batch's I/Os go is seen two ways: ranread_blocks() shows the
-- offsets the engines' block choice gives, and batches with write_pct 100
-- show which blocks of the file actually changed.
BEGIN;
SET client_min_messages = error;
SELECT plan(20);

\ir lib/runs.psql

\ir lib/util.psql

-- The blocks that changed since a snapshot taken with pg_temp.blocks
CREATE TEMP TABLE snapshot (block bigint PRIMARY KEY, md5 text);
CREATE FUNCTION pg_temp.changed(target name) RETURNS SETOF bigint
LANGUAGE sql AS $$
    SELECT n.block FROM pg_temp.blocks(target) n JOIN snapshot s USING (block)
     WHERE n.md5 <> s.md5 ORDER BY 1
$$;
CREATE FUNCTION pg_temp.take_snapshot(target name) RETURNS bigint
LANGUAGE sql AS $$
    DELETE FROM snapshot;
    INSERT INTO snapshot SELECT * FROM pg_temp.blocks(target);
    SELECT count(*) FROM snapshot;
$$;

-- 64MB: 8192 blocks of 8 kB
SELECT ok((SELECT size_bytes = 67108864 FROM ranread_setup('64MB', target => 'tap_run_region')),
    'a 64MB target');

-- What the block choice gives (ranread_blocks)
CREATE TEMP TABLE random_20_30 AS
SELECT * FROM ranread_blocks(4, 2000, target => 'tap_run_region', region_start => 20, region_end => 30, seed => 1);
SELECT is((SELECT count(*) FROM random_20_30 WHERE byte_offset < 67108864 * 0.20
                                              OR byte_offset + 8192 > 67108864 * 0.30),
    0::bigint, 'random blocks in region 20..30 lie wholly within 20% and 30% of the target');
SELECT is((SELECT count(*) FROM random_20_30 WHERE byte_offset % 8192 <> 0), 0::bigint,
    'at whole-block offsets');
SELECT ok((SELECT min(byte_offset) < 67108864 * 0.21 AND max(byte_offset) > 67108864 * 0.29 FROM random_20_30),
    'and reach both ends of the region');
SELECT ok((SELECT count(DISTINCT byte_offset) > 500 FROM random_20_30),
    'spread over the region''s 819 blocks');
SELECT ok((SELECT min(byte_offset) < 67108864 * 0.02 AND max(byte_offset) > 67108864 * 0.98
             FROM ranread_blocks(4, 2000, target => 'tap_run_region', seed => 1)),
    'without a region, random blocks cover the whole target');
SELECT is((SELECT count(*) FROM ranread_blocks(2, 100, target => 'tap_run_region', block_size => 1048576,
                                               region_start => 60, region_end => 100, seed => 1)
            WHERE byte_offset < 67108864 * 0.60 OR byte_offset + 1048576 > 67108864
               OR byte_offset % 1048576 <> 0),
    0::bigint, '1 MiB blocks in region 60..100 (ORION''s outer 40%) lie wholly within it');

CREATE TEMP TABLE seq_50_60 AS
SELECT * FROM ranread_blocks(2, 500, target => 'tap_run_region', pattern => 'sequential',
                             region_start => 50, region_end => 60);
SELECT is((SELECT byte_offset FROM seq_50_60 WHERE process = 1 AND seq = 1), 4096::bigint * 8192,
    'a sequential stream starts at the start of the region');
SELECT is((SELECT count(*) FROM seq_50_60 a JOIN seq_50_60 b ON b.process = a.process AND b.seq = a.seq + 1
            WHERE a.seq < 400 AND b.byte_offset <> a.byte_offset + 8192),
    0::bigint, 'and reads block after block');
SELECT ok((SELECT min(byte_offset) FROM seq_50_60 WHERE process = 2)
            > (SELECT max(byte_offset) FROM seq_50_60 WHERE process = 1 AND seq <= 409),
    'each process streams through its own part of the region');
SELECT is((SELECT count(*) FROM seq_50_60 WHERE byte_offset < 4096::bigint * 8192 OR byte_offset >= 4915::bigint * 8192),
    0::bigint, 'sequential streams stay within the region');
SELECT is((SELECT byte_offset FROM seq_50_60 WHERE process = 1 AND seq = 410), 4096::bigint * 8192,
    'and wrap to the start of their part at its end');

-- What the engines do: with write_pct 100 the changed blocks show where I/O went
SELECT is(pg_temp.take_snapshot('tap_run_region'), 8192::bigint, 'a snapshot of every block');
-- a random batch writing in region 25..50 runs
SELECT pg_temp.setup_run('random 25..50', $$2, 400, target => 'tap_run_region', write_pct => 100,
                                        region_start => 25, region_end => 50$$);
SELECT ok((SELECT min(b) >= 2048 AND max(b) < 4096 FROM pg_temp.changed('tap_run_region') AS b),
    'every block it changed lies within 25% and 50% of the target');
SELECT ok((SELECT count(*) BETWEEN 400 AND 800 FROM pg_temp.changed('tap_run_region')),
    'and it changed hundreds of the region''s 2048 blocks');
SELECT ok((SELECT min(b) < 2048 + 205 AND max(b) >= 4096 - 205 FROM pg_temp.changed('tap_run_region') AS b),
    'from one end of the region to the other');

SELECT is(pg_temp.take_snapshot('tap_run_region'), 8192::bigint, 'a new snapshot');
-- a sequential batch of 100 writes in region 50..100 runs
SELECT pg_temp.setup_run('sequential 50..100', $$1, 100, target => 'tap_run_region', write_pct => 100,
                                             pattern => 'sequential', region_start => 50, region_end => 100$$);
SELECT is(ARRAY(SELECT * FROM pg_temp.changed('tap_run_region')), ARRAY(SELECT generate_series(4096::bigint, 4195)),
    'it changed exactly the first 100 blocks of the region');
SELECT is(ARRAY(SELECT * FROM pg_temp.changed('tap_run_region')),
    ARRAY(SELECT byte_offset / 8192 FROM ranread_blocks(1, 100, target => 'tap_run_region', pattern => 'sequential',
                                                        region_start => 50, region_end => 100) ORDER BY seq),
    'the very blocks ranread_blocks names');
SELECT is((SELECT reads + writes FROM runs WHERE label = 'sequential 50..100'), 100::bigint, 'and did 100 I/Os');

-- The figures of every batch above, for the log
SELECT pg_temp.run_log();

SELECT * FROM finish();
ROLLBACK;
