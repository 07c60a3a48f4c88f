-- Skewed access (docs/design.md, rule 5): distribution => 'uniform' (the default),
-- 'zipf:THETA', 'pareto:H', 'hotset:PCT_IO/PCT_DATA', tested on the
-- engines' own block choice (ranread_blocks draws through it without I/O).
--  - hotset:95/5: 95% +- 1% of 100,000 draws land in 5% of the blocks, and
--    the hot blocks are spread over the whole target, not its first 5%
--  - zipf: the k-th most drawn block is drawn in proportion to 1/k^THETA,
--    THETA = 1 (the classic Zipf) included
--  - pareto:0.2: the 80/20 rule, 80% of the draws on 20% of the blocks
--  - the same seed draws the same blocks; another seed, another hot set
--  - uniform draws what 1.0 drew
BEGIN;
SET client_min_messages = error;
SELECT plan(18);

\ir lib/util.psql

SELECT ok((SELECT size_bytes = 67108864 FROM ranread_setup('64MB', target => 'tap_dist')), 'a 64MB target: 8192 blocks of 8 KiB');

-- how often each block was drawn, most drawn first
CREATE FUNCTION pg_temp.freq(dist text, draws int, seed bigint DEFAULT 1)
RETURNS TABLE (rank bigint, block bigint, hits bigint) LANGUAGE sql AS $$
    SELECT row_number() OVER (ORDER BY count(*) DESC, byte_offset / 8192), byte_offset / 8192, count(*)
      FROM ranread_blocks(1, draws, target => 'tap_dist', seed => seed, distribution => dist)
     GROUP BY byte_offset / 8192
$$;

-- hot set 95/5
CREATE TEMP TABLE hs AS SELECT * FROM pg_temp.freq('hotset:95/5', 100000);
SELECT ok((SELECT sum(hits) FILTER (WHERE rank <= 410) / 100000.0 FROM hs) BETWEEN 0.94 AND 0.96,
    format('hotset:95/5: the 5%% most drawn blocks (410 of 8192) get 95%% +- 1%% of 100,000 draws (%s%%)',
           (SELECT round(sum(hits) FILTER (WHERE rank <= 410) / 1000.0, 2) FROM hs)));
SELECT ok((SELECT min(hits) FROM hs WHERE rank <= 410) > 5 * (SELECT max(hits) FROM hs WHERE rank > 410),
    '... and the hot blocks stand apart: the least drawn hot block is drawn far more than any cold one');
SELECT is((SELECT count(DISTINCT block * 10 / 8192) FROM hs WHERE rank <= 410), 10::bigint,
    '... the hot blocks are spread over the whole target: some in each tenth of it');
SELECT ok((SELECT count(*) FROM hs WHERE rank <= 410 AND block < 410) < 41,
    '... and not gathered in its first 5%');
SELECT set_eq($$SELECT block FROM pg_temp.freq('hotset:95/5', 50000, 7) WHERE rank <= 300$$,
              $$SELECT block FROM pg_temp.freq('hotset:95/5', 50000, 7) WHERE rank <= 300$$,
    'the same seed draws the same hot blocks');
SELECT ok((SELECT count(*) FROM (SELECT block FROM pg_temp.freq('hotset:95/5', 50000, 7) WHERE rank <= 300
                                 INTERSECT SELECT block FROM pg_temp.freq('hotset:95/5', 50000, 8) WHERE rank <= 300) x) < 60,
    'another seed makes another hot set');

-- zipf: the k-th most drawn block in proportion to 1/k^theta
CREATE FUNCTION pg_temp.zipf_ok(theta float8, draws int) RETURNS TABLE (k bigint, ratio float8) LANGUAGE sql AS $$
    WITH f AS (SELECT * FROM pg_temp.freq('zipf:' || theta, draws)),
         z AS (SELECT sum(power(i, -theta)) AS zeta FROM generate_series(1, 8192) i)
    SELECT f.rank, f.hits / (draws * power(f.rank, -theta) / z.zeta)
      FROM f, z WHERE f.rank <= 10 ORDER BY f.rank
$$;
SELECT ok((SELECT bool_and(ratio BETWEEN 0.9 AND 1.1) FROM pg_temp.zipf_ok(1.2, 200000)),
    format('zipf:1.2: the 10 most drawn blocks are drawn 1/k^1.2 as often as the law says, within 10%% (%s)',
           (SELECT string_agg(round(ratio::numeric, 3)::text, ' ' ORDER BY k) FROM pg_temp.zipf_ok(1.2, 200000))));
SELECT ok((SELECT bool_and(ratio BETWEEN 0.85 AND 1.15) FROM pg_temp.zipf_ok(0.8, 200000)),
    format('zipf:0.8 too, within 15%% (%s)',
           (SELECT string_agg(round(ratio::numeric, 3)::text, ' ' ORDER BY k) FROM pg_temp.zipf_ok(0.8, 200000))));
SELECT ok((SELECT bool_and(ratio BETWEEN 0.88 AND 1.12) FROM pg_temp.zipf_ok(1, 200000)),
    format('zipf:1, the classic Zipf (docs/mixes.md: 0 < THETA <= 100), follows 1/k within 12%% (%s)',
           (SELECT string_agg(round(ratio::numeric, 3)::text, ' ' ORDER BY k) FROM pg_temp.zipf_ok(1, 200000))));
SELECT ok((SELECT count(DISTINCT block * 10 / 8192) FROM pg_temp.freq('zipf:1.2', 50000) WHERE rank <= 100) >= 8,
    'zipf''s hottest blocks are spread over the target too');

-- pareto 0.2: 80/20 (the most drawn 20% of blocks also collect a little luck: +-2%)
SELECT ok((SELECT sum(hits) FILTER (WHERE rank <= 1638) / 100000.0 FROM pg_temp.freq('pareto:0.2', 100000)) BETWEEN 0.78 AND 0.82,
    format('pareto:0.2: 80%% of the draws on 20%% of the blocks (%s%%)',
           (SELECT round(sum(hits) FILTER (WHERE rank <= 1638) / 1000.0, 2) FROM pg_temp.freq('pareto:0.2', 100000))));

-- uniform, the default, is what 1.0 drew
SELECT ok((SELECT max(hits) FROM pg_temp.freq('uniform', 100000)) < 30,
    'uniform draws spread evenly: no block drawn 30 times in 100,000 draws over 8192');
SELECT set_eq($$SELECT seq, byte_offset FROM ranread_blocks(2, 50, target => 'tap_dist', seed => 42)$$,
              $$SELECT seq, byte_offset FROM ranread_blocks(2, 50, target => 'tap_dist', seed => 42, distribution => 'uniform')$$,
    'uniform is the default distribution');

-- the batch records it
CREATE TEMP TABLE run AS SELECT * FROM ranread_run(2, 500, target => 'tap_dist', distribution => 'zipf:1.2');
SELECT is((SELECT distribution FROM ranread_summary_full WHERE batch = (SELECT batch FROM run)), 'zipf:1.2',
    'a batch records its distribution');
SELECT is((SELECT distribution FROM ranread_groups WHERE batch = (SELECT batch FROM run)), 'zipf:1.2',
    '... and so does its group');

-- bad input
SELECT matches(pg_temp.error_of($$SELECT * FROM ranread_run(1, 10, target => 'tap_dist', distribution => 'pareto:1.5')$$),
    '^22023: invalid distribution "pareto:1.5" for ranread_run', 'pareto H outside (0, 1) is refused');
SELECT matches(pg_temp.error_of($$SELECT * FROM ranread_blocks(1, 10, target => 'tap_dist', distribution => 'hotset:95')$$),
    '^22023: invalid distribution "hotset:95" for ranread_blocks', 'a hot set without its data share is refused');

SELECT ranread_purge('tap_dist');
SELECT * FROM finish();
ROLLBACK;
