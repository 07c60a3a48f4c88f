-- Mixed workloads (docs/mixes.md, "Mixed workloads"): several groups of
-- processes in one batch, started together, reported apart.
--  - ranread_mix returns one row per group and one for the whole batch;
--    the batch's counts are the sums of its groups', and each group's are
--    the sums of its processes'
--  - the history: one ranread_summary row per batch (per-group options NULL
--    for a mix of several groups, the definition kept in mix), one
--    ranread_groups row per group with percentiles from its merged
--    histograms, the process rows and the seconds carry their group
--  - the groups start together: their first I/Os within 10 ms
--  - a one-group mix is a plain batch with a label
--  - bad input names the group and the field, before anything runs
BEGIN;
SET client_min_messages = error;
SELECT plan(37);

\ir lib/util.psql

SELECT ok((SELECT size_bytes = 67108864 FROM ranread_setup('64MB', target => 'tap_mix')), 'a 64MB target');

CREATE TEMP TABLE mix AS
SELECT * FROM ranread_mix($$[
    {"label": "oltp", "processes": 4, "write_pct": 30, "distribution": "hotset:95/5"},
    {"label": "scan", "processes": 1, "block_size": 65536, "pattern": "sequential", "queue_depth": 2}
  ]$$, duration => '1.5s', target => 'tap_mix');
SELECT results_eq($$SELECT grp, label, processes, status FROM mix ORDER BY grp$$,
    $$VALUES (0, 'total'::text, 5, 'completed'::text), (1, 'oltp', 4, 'completed'), (2, 'scan', 1, 'completed')$$,
    'ranread_mix returns a row per group and a total row, all completed');
SELECT ok((SELECT bool_and(reads > 0) FROM mix), 'every group read');
SELECT is((SELECT reads + writes FROM mix WHERE grp = 0), (SELECT sum(reads + writes) FROM mix WHERE grp > 0)::bigint,
    'the batch''s I/Os are the sum of its groups''');
SELECT ok((SELECT abs(b.iops - (SELECT sum(g.iops) FROM ranread_groups g WHERE g.batch = b.batch)) < 1e-6
             FROM ranread_batches b WHERE b.batch = (SELECT max(batch) FROM mix)),
    'the batch''s IOPS are the sum of its groups'', as recorded');
SELECT ok((SELECT abs(b.mbps - (SELECT sum(g.mbps) FROM ranread_groups g WHERE g.batch = b.batch)) < 1e-6
             FROM ranread_batches b WHERE b.batch = (SELECT max(batch) FROM mix)),
    '... and so are its MiB/s (block sizes differ), as recorded');
SELECT ok((SELECT abs(mbps - (SELECT sum(mbps) FROM mix WHERE grp > 0)) <= 0.05 * (SELECT count(*) FROM mix WHERE grp > 0) FROM mix WHERE grp = 0),
    '... and as returned, each rounded to 0.1 MiB/s');
SELECT is((SELECT writes FROM mix WHERE label = 'scan'), 0::bigint, 'the scan group only read');
SELECT ok((SELECT writes > 0 FROM mix WHERE label = 'oltp'), 'the oltp group wrote 30%');

CREATE TEMP TABLE b AS SELECT batch FROM mix LIMIT 1;
SELECT results_eq($$SELECT groups, block_size, pattern, queue_depth, status FROM ranread_summary_full WHERE batch = (SELECT batch FROM b)$$,
    $$VALUES (2, NULL::integer, NULL::text, NULL::integer, 'completed'::text)$$,
    'one summary row for the mix: 2 groups, the per-group options NULL');
SELECT is((SELECT jsonb_path_query_array(mix, '$[*].label') FROM ranread_summary_full WHERE batch = (SELECT batch FROM b)),
    '["oltp", "scan"]'::jsonb, '... and the definition kept in mix');
SELECT is((SELECT mix -> 1 ->> 'block_size' FROM ranread_summary_full WHERE batch = (SELECT batch FROM b)), '65536',
    '... with every option written out');
SELECT results_eq($$SELECT grp, label, processes, block_size, pattern, queue_depth, distribution FROM ranread_group_summary
                     WHERE batch = (SELECT batch FROM b) ORDER BY grp$$,
    $$VALUES (1, 'oltp'::text, 4, 8192, 'random'::text, 1, 'hotset:95/5'::text),
             (2, 'scan', 1, 65536, 'sequential', 2, 'uniform')$$,
    'ranread_group_summary has one row per group with its options');
SELECT results_eq($$SELECT g.grp, g.reads, g.writes FROM ranread_groups g WHERE g.batch = (SELECT batch FROM b) ORDER BY g.grp$$,
    $$SELECT grp, reads, writes FROM mix WHERE grp > 0 ORDER BY grp$$,
    'the group rows have the figures ranread_mix returned');
SELECT results_eq($$SELECT grp, sum(reads)::bigint, sum(writes)::bigint FROM ranread_results WHERE batch = (SELECT batch FROM b) GROUP BY grp ORDER BY grp$$,
    $$SELECT grp, reads, writes FROM mix WHERE grp > 0 ORDER BY grp$$,
    'each group''s counts are the sums of its process rows');
SELECT results_eq($$SELECT grp, ranread_hist_count(ranread_hist_merge(histogram)) FROM ranread_results WHERE batch = (SELECT batch FROM b) GROUP BY grp ORDER BY grp$$,
    $$SELECT grp, ranread_hist_count(histogram) FROM ranread_groups WHERE batch = (SELECT batch FROM b) ORDER BY grp$$,
    'each group''s histogram is the merge of its processes''');
SELECT is((SELECT sum(ranread_hist_count(histogram)) FROM ranread_groups WHERE batch = (SELECT batch FROM b))::bigint,
    (SELECT ranread_hist_count(histogram) FROM ranread_batches WHERE batch = (SELECT batch FROM b)),
    'the groups'' histograms add up to the batch''s');
SELECT ok((SELECT abs(p99_ms - (SELECT ranread_hist_percentile(histogram, 99) FROM ranread_groups g WHERE g.batch = s.batch AND g.grp = s.grp)) < 1e-9
             FROM ranread_groups s WHERE batch = (SELECT batch FROM b) AND grp = 1),
    'a group''s p99 comes from its merged histogram');
SELECT ok((SELECT s.p99_ms = round(g.p99_ms::numeric, 3) FROM ranread_group_summary s JOIN ranread_groups g USING (batch, grp)
            WHERE batch = (SELECT batch FROM b) AND grp = 1),
    '... and ranread_group_summary shows it in ms to 0.001');
SELECT results_eq($$SELECT grp, sum(reads)::bigint FROM ranread_intervals WHERE batch = (SELECT batch FROM b) GROUP BY grp ORDER BY grp$$,
    $$SELECT grp, reads FROM mix WHERE grp > 0 ORDER BY grp$$,
    'ranread_intervals has each group''s seconds, adding up to the group');
SELECT ok((SELECT max(first_io_at) - min(first_io_at) < interval '10 ms' FROM ranread_groups WHERE batch = (SELECT batch FROM b)),
    'the groups started together: their first I/Os within 10 ms');
SELECT is((SELECT first_io_at FROM ranread_summary_full WHERE batch = (SELECT batch FROM b)),
    (SELECT min(first_io_at) FROM ranread_groups WHERE batch = (SELECT batch FROM b)),
    'the batch''s first I/O is its earliest group''s');

-- a one-group mix is a plain batch with a label
CREATE TEMP TABLE one AS SELECT * FROM ranread_mix('[{"label": "solo", "processes": 2}]', iterations => 300, target => 'tap_mix');
SELECT results_eq($$SELECT grp, label, reads FROM one ORDER BY grp$$,
    $$VALUES (0, 'total'::text, 600::bigint), (1, 'solo', 600)$$, 'a one-group mix runs its iterations');
SELECT results_eq($$SELECT groups, block_size, pattern FROM ranread_summary_full WHERE batch = (SELECT batch FROM one LIMIT 1)$$,
    $$VALUES (1, 8192, 'random'::text)$$, '... and its summary row has the options, as a plain batch''s');

-- a plain batch has one group too
CREATE TEMP TABLE plain AS SELECT * FROM ranread_run(1, 100, target => 'tap_mix');
SELECT is((SELECT label || '|' || processes || '|' || reads FROM ranread_groups WHERE batch = (SELECT batch FROM plain)),
    'main|1|100', 'a plain batch has one group, labelled main');

-- bad input, before anything runs
SELECT is(pg_temp.error_of($$SELECT * FROM ranread_mix('[]', target => 'tap_mix')$$),
    '22023: groups of ranread_mix must hold 1 to 16 groups, not 0', 'an empty mix is refused');
SELECT is(pg_temp.error_of($$SELECT * FROM ranread_mix('[{"label": "a", "processes": 1}, {"label": "a", "processes": 2}]', target => 'tap_mix')$$),
    '22023: groups 1 and 2 of ranread_mix are both labelled "a"', 'two groups with one label are refused');
SELECT is(pg_temp.error_of($$SELECT * FROM ranread_mix('[{"label": "a", "processes": 0}]', target => 'tap_mix')$$),
    '22023: processes of group "a" of ranread_mix must be between 1 and 2048, not 0', 'a group of 0 processes is refused, naming the group');
SELECT is(pg_temp.error_of($$SELECT * FROM ranread_mix('[{"label": "a", "processes": 2000}, {"label": "b", "processes": 100}]', target => 'tap_mix')$$),
    '22023: processes summed over the groups of ranread_mix must be between 1 and 2048, not 2100', 'processes summed over the groups above the limit are refused');
SELECT matches(pg_temp.error_of($$SELECT * FROM ranread_mix('[{"label": "a", "processes": 1, "distribution": "zipf:0"}]', target => 'tap_mix')$$),
    '^22023: invalid distribution "zipf:0" for group "a" of ranread_mix', 'zipf theta <= 0 is refused, naming the group');
SELECT matches(pg_temp.error_of($$SELECT * FROM ranread_mix('[{"label": "h", "processes": 1, "distribution": "hotset:100/5"}]', target => 'tap_mix')$$),
    '^22023: invalid distribution "hotset:100/5" for group "h" of ranread_mix', 'a hot set share outside (0, 100) is refused');
SELECT matches(pg_temp.error_of($$SELECT * FROM ranread_mix('[{"label": "u", "processes": 1, "distribution": "gaussian"}]', target => 'tap_mix')$$),
    '^22023: invalid distribution "gaussian" for group "u" of ranread_mix', 'an unknown distribution is refused');
SELECT is(pg_temp.error_of($$SELECT * FROM ranread_mix('[{"label": "k", "processes": 1, "blocksize": 4096}]', target => 'tap_mix')$$),
    '22023: unknown option "blocksize" in group "k" of ranread_mix', 'an unknown option is refused, naming it and the group');
SELECT is(pg_temp.error_of($$SELECT * FROM ranread_mix('[{"label": "t", "processes": "four"}]', target => 'tap_mix')$$),
    '22023: processes of group "t" of ranread_mix must be an integer, not a string', 'a value of the wrong type is refused');
SELECT is(pg_temp.error_of($$SELECT * FROM ranread_mix('[{"label": "q", "processes": 1, "queue_depth": 0}]', target => 'tap_mix')$$),
    '22023: queue_depth of group "q" of ranread_mix must be between 1 and 1024, not 0', 'a bad queue depth names the group');
SELECT is(pg_temp.error_of($$SELECT * FROM ranread_mix('{"processes": 1}', target => 'tap_mix')$$),
    '22023: groups of ranread_mix must be a JSON array of groups', 'groups that are not an array are refused');
SELECT is((SELECT count(*) FROM ranread_batches WHERE batch > (SELECT batch FROM plain)), 0::bigint,
    'none of the refused mixes left a batch behind');

SELECT ranread_purge('tap_mix');
SELECT * FROM finish();
ROLLBACK;
