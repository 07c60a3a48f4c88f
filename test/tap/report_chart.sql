-- ranread_chart draws IOPS and latency against processes as a standalone
-- SVG: the latest sweep, a chosen sweep, or every completed batch.
BEGIN;
SET LOCAL client_min_messages = warning;
SELECT plan(42);

\ir lib/util.psql

DELETE FROM ranread_intervals;
DELETE FROM ranread_results;
DELETE FROM ranread_batches;
DELETE FROM ranread_sweeps;

-- No history yet
SELECT ok(pg_temp.svg_ok(ranread_chart()), 'with no history the chart is still a well-formed SVG');
SELECT matches(ranread_chart(), 'No completed batches yet', 'which says there is nothing to draw');

-- A sweep of seven steps that saturates at 320 processes, recorded with its bound.
INSERT INTO ranread_batches (batch, run_at, target, processes, duration, block_size, queue_depth,
    write_pct, pattern, region_start, region_end, seed, workers, engine, reads, writes, seconds,
    iops, mbps, avg_ms, p99_ms, max_ms, status, sweep)
SELECT 100 + i, timestamptz '2024-05-02 14:00:00+00' + i * interval '31 s', 'ranread', p, '30s',
       8192, 1, 0, 'random', 0, 100, 1, 2, 'io_uring', (iops * 30)::bigint, 0, 30, iops,
       iops * 8192 / 1e6, avg, p99, mx, 'completed', 7
  FROM (VALUES (0, 10, 4210.0, 2.37, 6.1, 14.2), (1, 20, 8120, 2.46, 6.8, 17.9),
               (2, 40, 15010, 2.66, 8.2, 22.4), (3, 80, 24890, 3.21, 11.5, 31.0),
               (4, 160, 31870, 5.02, 18.9, 48.3), (5, 320, 35210, 9.09, 34.7, 95.2),
               (6, 640, 36120, 17.7, 61.3, 180.4)) v(i, p, iops, avg, p99, mx);
INSERT INTO ranread_sweeps (sweep, started_at, finished_at, target, block_size, write_pct,
    queue_depth, pattern, start, max_processes, duration, max_avg_ms, steps, stop_reason,
    max_iops, actual_latency_ms, max_iops_processes, max_iops_batch, meets_flash_guidance)
VALUES (7, '2024-05-02 14:00:00+00', '2024-05-02 14:04:00+00', 'ranread', 8192, 0, 1, 'random',
    10, 1280, '30s', 10, 7, 'scaling: going from 320 to 640 processes raised IOPS from 35210 to 36120, 2.6% of linear scaling (less than 10%)',
    35210, 9.09, 320, 105, false);

SET LOCAL TimeZone = 'UTC';
CREATE TEMP TABLE c AS SELECT ranread_chart() AS svg;

SELECT ok(pg_temp.svg_ok((SELECT svg FROM c)), 'the chart is a well-formed SVG document with the SVG namespace');
SELECT ok((SELECT svg FROM c) !~ '[^\x01-\x7f]', 'the chart is plain ASCII, whatever the server encoding');
SELECT matches((SELECT svg FROM c), '<title>IOPS and latency vs processes: random 8 KiB reads on target',
    'the title says what was measured: pattern, block size, target');
SELECT matches((SELECT svg FROM c), 'Sweep 7 &#xB7; 2024-05-02 14:00&#x2013;14:03 UTC',
    'the subtitle gives the sweep and when it ran');
SELECT matches((SELECT svg FROM c), '>IOPS \(I/O operations per second\)</text>', 'the left axis is IOPS, with its unit');
SELECT matches((SELECT svg FROM c), '>Latency \(ms\)</text>', 'the right axis is latency in ms');
SELECT matches((SELECT svg FROM c), '>Processes \(concurrent synchronous I/O streams; log&#x2082; scale\)</text>',
    'the x axis is processes');
SELECT matches((SELECT svg FROM c), '>Average latency \(right\)</text>', 'the legend names the average latency');
SELECT matches((SELECT svg FROM c), '>p99 latency \(right\)</text>', 'the legend names the p99 latency');
SELECT matches((SELECT svg FROM c), 'stroke-dasharray="8 5"/>\s*<text[^>]*>bound 10 ms</text>',
    'the sweep''s latency bound is a dashed, labelled line');
SELECT is((SELECT count(*) FROM regexp_matches((SELECT svg FROM c), '<circle cx="[0-9.]+" cy="(?!82\.0")[^>]*r="4.5"', 'g')), 7::bigint,
    'one IOPS marker per step');
SELECT ok((SELECT bool_and(strpos((SELECT svg FROM c), '>' || v || '</text>') > 0)
             FROM unnest(ARRAY['4,210', '8,120', '15,010', '24,890', '31,870', '35,210', '36,120']) v),
    'every step''s IOPS is written out');
SELECT ok((SELECT bool_and(strpos((SELECT svg FROM c), '>' || v || '</text>') > 0)
             FROM unnest(ARRAY['2.37', '9.09', '17.7', '6.10', '34.7', '61.3', '95.2']) v),
    'and its average, p99 and maximum latency');
SELECT matches((SELECT svg FROM c), 'Verdict: 35,210 IOPS at 320 processes: the most within the 10 ms average latency bound',
    'the verdict is stated: max IOPS within the bound and where');
SELECT matches((SELECT svg FROM c), 'Does not meet the all-flash guidance', 'with the all-flash guidance');
SELECT matches((SELECT svg FROM c), 'Sweep stopped on scaling: going from 320 to 640 processes',
    'and why the sweep stopped');
SELECT is(ranread_chart(7), (SELECT svg FROM c), 'ranread_chart() is the chart of the latest sweep');
SELECT ok((SELECT svg FROM c) ~ '>Avg within 10 ms\?</text>'
          AND (SELECT bool_and(strpos((SELECT svg FROM c), '>' || b || '</text>') > 0) FROM generate_series(100, 106) b),
    'ranread_chart has its table of the steps, a row per batch');

-- An older sweep, without a ranread_sweeps row (say it was cancelled).
INSERT INTO ranread_batches (batch, run_at, target, processes, iterations, block_size, queue_depth,
    write_pct, pattern, region_start, region_end, seed, workers, engine, reads, writes, seconds,
    iops, mbps, avg_ms, p99_ms, max_ms, status, sweep)
VALUES (50, '2024-04-01 09:00:00+00', 'slow', 4, 1000, 65536, 1, 0, 'random', 0, 100, 1, 1, 'sync',
        4000, 0, 10, 400, 26, 9.5, 20, 40, 'completed', 3),
       (51, '2024-04-01 09:01:00+00', 'slow', 8, 1000, 65536, 1, 0, 'random', 0, 100, 1, 1, 'sync',
        800, 0, 2, 400, 26, 0.5, 1, 2, 'stopped', 3);
SELECT matches(ranread_chart(3), '64 KiB reads on target &#x201C;slow&#x201D;', 'ranread_chart(sweep) draws that sweep');
SELECT matches(ranread_chart(3), 'Average latency bound 10 ms \(default\)',
    'a sweep that recorded no bound is drawn against the default 10 ms, and says so');
SELECT matches(ranread_chart(3), '>stopped: not plotted</text>',
    'a batch that did not complete is listed but not plotted');
SELECT is((SELECT count(*) FROM regexp_matches(ranread_chart(3), '<circle cx="[0-9.]+" cy="(?!82\.0")[^>]*r="4.5"', 'g')), 1::bigint,
    'only completed batches are plotted');
SELECT matches(ranread_chart(3), 'Verdict: 400 IOPS at 4 processes', 'the verdict ignores batches that did not complete');
SELECT throws_ok($$SELECT ranread_chart(999)$$, '22023', 'sweep 999 for ranread_chart has no batches',
    'a sweep that does not exist is an error');

-- The verdict drawn is the one ranread_sweep stored, never one of the chart's own.
UPDATE ranread_sweeps SET max_iops = 31870, actual_latency_ms = 5.02, max_iops_processes = 160,
    max_iops_batch = 104, meets_flash_guidance = true WHERE sweep = 7;
SELECT matches(ranread_chart(7), 'Verdict: 31,870 IOPS at 160 processes',
    'the chart states the verdict stored in ranread_sweeps');
SELECT matches(ranread_chart(7), '>Meets the all-flash guidance',
    'and the flash guidance stored with it');

-- Bounds: a sweep as ranread_sweep would have recorded it with another
-- max_avg_ms, its verdict from ranread_sweep_judge.
CREATE FUNCTION pg_temp.rebound(s bigint, bound float8) RETURNS void LANGUAGE sql AS $$
    UPDATE ranread_sweeps r
       SET max_avg_ms = bound, max_iops = j.max_iops, actual_latency_ms = j.actual_latency_ms,
           max_iops_processes = j.processes, max_iops_batch = j.batch,
           meets_flash_guidance = j.meets_flash_guidance
      FROM ranread_internal.ranread_sweep_judge(
               (SELECT array_agg(ROW(b.step, b.processes, b.batch, b.iops, b.avg_ms, b.p99_ms,
                                     b.max_ms, b.status)::ranread_sweep_step)
                  FROM (SELECT row_number() OVER (ORDER BY processes, batch) AS step, *
                          FROM ranread_batches WHERE sweep = s) b), bound) j
     WHERE r.sweep = s
$$;
SELECT pg_temp.rebound(7, 2.5);
SELECT matches(ranread_chart(7), '>bound 2.5 ms</text>', 'the bound drawn is the sweep''s max_avg_ms');
SELECT matches(ranread_chart(7), 'Verdict: 8,120 IOPS at 20 processes: the most within the 2.5 ms',
    'and the verdict follows it');
SELECT pg_temp.rebound(7, 1000);
SELECT matches(ranread_chart(7), 'bound 1000 ms: above this scale',
    'a bound far above the latencies is noted rather than squashing the latency lines');
SELECT pg_temp.rebound(7, 1);
SELECT matches(ranread_chart(7), 'No completed batch stayed within the 1 ms average latency bound',
    'with no step within the bound the chart says so');

-- Without a stored verdict the chart asks ranread_sweep_judge: ties go to
-- fewer processes, by its rule.
DELETE FROM ranread_sweeps WHERE sweep = 7;
UPDATE ranread_batches SET iops = 31870 WHERE batch = 105;
SELECT matches(ranread_chart(7), '>Verdict: 31,870 IOPS at 160 processes: the most within the 10 ms',
    'a sweep without a ranread_sweeps row gets ranread_sweep_judge''s verdict (a tie goes to fewer processes)');
SELECT is((SELECT count(*) FROM regexp_matches(ranread_chart(7), '<circle [^>]*r="9" fill="none"', 'g')), 1::bigint,
    'one point is ringed as the verdict''s');

-- No sweep at all: every completed batch.
UPDATE ranread_batches SET sweep = NULL;
SELECT matches(ranread_chart(), 'All completed batches', 'with no sweep, the chart draws every completed batch');
SELECT matches(ranread_chart(), 'mixed block sizes', 'and says when their settings differ');
SELECT is((SELECT count(*) FROM regexp_matches(ranread_chart(), '<circle cx="[0-9.]+" cy="(?!82\.0")[^>]*r="4.5"', 'g')), 8::bigint,
    'all completed batches are plotted, and only those');
UPDATE ranread_batches SET commit_test = 1
 WHERE batch = (SELECT min(batch) FROM ranread_batches WHERE status = 'completed');
SELECT is((SELECT count(*) FROM regexp_matches(ranread_chart(), '<circle cx="[0-9.]+" cy="(?!82\.0")[^>]*r="4.5"', 'g')), 7::bigint,
    'but not a commit test''s batches');
UPDATE ranread_batches SET commit_test = NULL;

-- Names are escaped; non-ASCII characters become character references.
UPDATE ranread_batches SET target = E'<b>&"cible_\u00e9''s"';
SELECT ok(pg_temp.svg_ok(ranread_chart()), 'a target name with markup characters leaves the SVG well-formed');
SELECT matches(ranread_chart(), '&lt;b&gt;&amp;&quot;cible_&#xE9;&#39;s&quot;', 'and is shown escaped');

-- Readers of the history may draw it.
CREATE ROLE ranread_test_monitor IN ROLE pg_monitor;
DO $$
BEGIN
    EXECUTE format('GRANT USAGE ON SCHEMA %s TO ranread_test_monitor',
                   (SELECT extnamespace::regnamespace FROM pg_extension WHERE extname = 'ranread'));
END
$$;
SET LOCAL ROLE ranread_test_monitor;
SELECT ok(pg_temp.svg_ok(ranread_chart()), 'members of pg_monitor may call ranread_chart');
RESET ROLE;

-- A hostile search_path changes nothing.
CREATE SCHEMA ranread_test_evil;
CREATE FUNCTION ranread_test_evil.never(bigint, bigint) RETURNS boolean LANGUAGE sql AS 'SELECT false';
CREATE OPERATOR ranread_test_evil.= (LEFTARG = bigint, RIGHTARG = bigint, FUNCTION = ranread_test_evil.never);
CREATE TEMP TABLE plain AS SELECT ranread_chart() AS svg;
SELECT set_config('search_path', 'ranread_test_evil, ' || current_setting('search_path') || ', pg_catalog', true);
SELECT is(ranread_chart(), (SELECT svg FROM plain), 'a shadowing operator on the search_path does not change the chart');

SELECT * FROM finish();
ROLLBACK;
