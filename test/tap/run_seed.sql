-- seed: the same seed gives each process the same block sequence, so a
-- batch can be repeated exactly; without a seed each batch draws its own,
-- and records it.  Seen three ways: ranread_blocks() offsets, the per-process
-- split between reads and writes (drawn from the same sequence), and the
-- bytes a writing batch leaves in the file.
BEGIN;
SET client_min_messages = error;
SELECT plan(11);

\ir lib/runs.psql

-- Writes per process of a batch, in process order
CREATE FUNCTION pg_temp.writes(label text) RETURNS bigint[]
LANGUAGE sql AS $$
    SELECT array_agg(writes ORDER BY process) FROM ranread_results
     WHERE batch = (SELECT batch FROM runs WHERE runs.label = writes.label)
$$;

-- The md5 of a target's whole file, read past shared buffers
CREATE FUNCTION pg_temp.file_md5(target name) RETURNS text
LANGUAGE sql AS $$
    SELECT md5(pg_read_binary_file(pg_relation_filepath(relid))) FROM ranread_target_catalog c
     WHERE c.target = file_md5.target
$$;

SELECT ok((SELECT size_bytes = 16777216 FROM ranread_setup('16MB', target => 'tap_run_seed')),
    'a 16MB target');

-- ranread_blocks
SELECT results_eq(
    $$SELECT * FROM ranread_blocks(4, 200, target => 'tap_run_seed', seed => 42) ORDER BY process, seq$$,
    $$SELECT * FROM ranread_blocks(4, 200, target => 'tap_run_seed', seed => 42) ORDER BY process, seq$$,
    'the same seed gives every process the same blocks');
SELECT ok((SELECT count(*) > 100 FROM ranread_blocks(1, 200, target => 'tap_run_seed', seed => 42) a
             JOIN ranread_blocks(1, 200, target => 'tap_run_seed', seed => 43) b USING (process, seq)
            WHERE a.byte_offset <> b.byte_offset),
    'another seed gives other blocks');
SELECT ok((SELECT count(*) > 100 FROM ranread_blocks(2, 200, target => 'tap_run_seed', seed => 42) a
             JOIN ranread_blocks(2, 200, target => 'tap_run_seed', seed => 42) b
               ON a.process = 1 AND b.process = 2 AND a.seq = b.seq
            WHERE a.byte_offset <> b.byte_offset),
    'the processes of a batch read different blocks');
SELECT results_eq(
    $$SELECT seq, byte_offset FROM ranread_blocks(2, 50, target => 'tap_run_seed', seed => 42) WHERE process = 2$$,
    $$SELECT seq, byte_offset FROM ranread_blocks(5, 50, target => 'tap_run_seed', seed => 42) WHERE process = 2$$,
    'a process''s blocks depend on the seed and its number, not on how many processes run');

-- Batches: the read/write split per process repeats with the seed
-- a batch with seed 42 runs
SELECT pg_temp.setup_run('seed 42', $$4, 500, target => 'tap_run_seed', write_pct => 50, seed => 42$$);
-- and again
SELECT pg_temp.setup_run('seed 42 again', $$4, 500, target => 'tap_run_seed', write_pct => 50, seed => 42$$);
SELECT is(pg_temp.writes('seed 42 again'), pg_temp.writes('seed 42'),
    'the same seed gives every process the same mix of reads and writes');
-- and with four I/Os in flight per process
SELECT pg_temp.setup_run('seed 42 qd 4', $$4, 500, target => 'tap_run_seed', write_pct => 50, seed => 42, queue_depth => 4$$);
SELECT is(pg_temp.writes('seed 42 qd 4'), pg_temp.writes('seed 42'),
    'the same mix, whatever the queue depth');
-- a batch with seed 43 runs
SELECT pg_temp.setup_run('seed 43', $$4, 500, target => 'tap_run_seed', write_pct => 50, seed => 43$$);
SELECT isnt(pg_temp.writes('seed 43'), pg_temp.writes('seed 42'), 'another seed, another mix');

-- Without a seed: each batch draws one, and records it so it can be repeated
-- a batch without a seed runs
SELECT pg_temp.setup_run('no seed', $$4, 500, target => 'tap_run_seed', write_pct => 50$$);
SELECT format('seed => %s', seed) AS drawn FROM ranread_batches
 WHERE batch = (SELECT batch FROM runs WHERE label = 'no seed') \gset
-- the batch's recorded seed runs again
SELECT pg_temp.setup_run('drawn seed', format($$4, 500, target => 'tap_run_seed', write_pct => 50, %s$$, :'drawn'));
SELECT is(pg_temp.writes('drawn seed'), pg_temp.writes('no seed'), 'and repeats the batch');

-- The bytes: one writing process with the same seed writes the very same pages
SELECT pg_temp.file_md5('tap_run_seed') AS before_7 \gset
SELECT ok(pg_temp.run('seed 7', $$1, 300, target => 'tap_run_seed', write_pct => 100, seed => 7$$) IS NULL
          AND pg_temp.file_md5('tap_run_seed') <> :'before_7',
    'a writing batch with seed 7 changes the file');
SELECT pg_temp.file_md5('tap_run_seed') AS after_7 \gset
SELECT ok(pg_temp.run('seed 7 again', $$1, 300, target => 'tap_run_seed', write_pct => 100, seed => 7$$) IS NULL
          AND pg_temp.file_md5('tap_run_seed') = :'after_7',
    'repeating it writes the same bytes to the same blocks: the file is unchanged');

-- The figures of every batch above, for the log
SELECT pg_temp.run_log();

SELECT * FROM finish();
ROLLBACK;
