-- ranread_report is one complete HTML page whatever it covers: the head,
-- the contents, the server, each study and sweep asked for, the latest
-- batches for a report of the history, the footer; every element it opens
-- is closed, and the sections come in the order of the contents.  Its sweep
-- section gives the call, the verdict and the steps; a sweep that did not
-- return says so.  On a history written here (no I/O).
BEGIN;
SET LOCAL client_min_messages = warning;
SELECT plan(24);

DELETE FROM ranread_intervals;
DELETE FROM ranread_results;
DELETE FROM ranread_batches;
DELETE FROM ranread_sweeps;

-- Sweep 7: seven steps, recorded with its verdict (a stop reason with
-- characters HTML must escape).  Sweep 8: two steps, no verdict (it did not
-- return).  Batch 300: no sweep.
INSERT INTO ranread_batches (batch, run_at, target, processes, duration, block_size, queue_depth,
    write_pct, pattern, region_start, region_end, seed, workers, engine, reads, writes, seconds,
    iops, mbps, avg_ms, p99_ms, max_ms, status, sweep)
SELECT b, timestamptz '2024-05-02 14:00:00+00' + b * interval '31 s', 'ranread', p, '30s',
       8192, 1, 0, 'random', 0, 100, 1, 2, 'io_uring', (iops * 30)::bigint, 0, 30, iops,
       iops * 8192 / 1e6, avg, p99, mx, 'completed', sw
  FROM (VALUES (100, 7, 10, 4210.0, 2.37, 6.1, 14.2), (101, 7, 20, 8120, 2.46, 6.8, 17.9),
               (102, 7, 40, 15010, 2.66, 8.2, 22.4), (103, 7, 80, 24890, 3.21, 11.5, 31.0),
               (104, 7, 160, 31870, 5.02, 18.9, 48.3), (105, 7, 320, 35210, 9.09, 34.7, 95.2),
               (106, 7, 640, 36120, 17.7, 61.3, 180.4),
               (200, 8, 1, 900, 1.1, 2.0, 3.0), (201, 8, 2, 1700, 1.2, 2.2, 3.1),
               (300, NULL, 4, 3000, 1.3, 2.4, 3.3)) v(b, sw, p, iops, avg, p99, mx);
INSERT INTO ranread_sweeps (sweep, started_at, finished_at, target, block_size, write_pct,
    queue_depth, pattern, start, max_processes, duration, max_avg_ms, steps, stop_reason,
    max_iops, actual_latency_ms, max_iops_processes, max_iops_batch, meets_flash_guidance)
VALUES (7, '2024-05-02 14:00:00+00', '2024-05-02 14:04:00+00', 'ranread', 8192, 0, 1, 'random',
    10, 1280, '30s', 10, 7, 'scaling <b>&</b> "gone"', 35210, 9.09, 320, 105, false);

-- The page's structure: ids of its sections and the contents' links, in
-- order; whether every element of these kinds is closed as often as opened.
CREATE FUNCTION pg_temp.sections(h text) RETURNS text LANGUAGE sql AS $$
    SELECT string_agg(m[1], ' ' ORDER BY n)
      FROM regexp_matches(h, '<section id="([^"]+)">', 'g') WITH ORDINALITY x(m, n)
$$;
CREATE FUNCTION pg_temp.contents(h text) RETURNS text LANGUAGE sql AS $$
    SELECT coalesce(string_agg(m[1], ' ' ORDER BY n), '')
      FROM regexp_matches(substring(h FROM '<nav>.*</nav>'), '<a href="#([^"]+)">', 'g') WITH ORDINALITY x(m, n)
$$;
CREATE FUNCTION pg_temp.closed(h text) RETURNS boolean LANGUAGE sql AS $$
    SELECT bool_and((SELECT count(*) FROM regexp_matches(h, '<' || t || '[ >]', 'g'))
                    = (SELECT count(*) FROM regexp_matches(h, '</' || t || '>', 'g')))
      FROM unnest(ARRAY['html', 'head', 'style', 'title', 'body', 'nav', 'ul', 'li', 'a', 'section',
                        'h1', 'h2', 'h3', 'p', 'pre', 'code', 'table', 'thead', 'tbody', 'tr', 'th',
                        'td', 'figure', 'svg', 'footer']) t
$$;
CREATE FUNCTION pg_temp.section(h text, id text) RETURNS text LANGUAGE sql AS $$
    SELECT substring(h FROM '<section id="' || id || '">.*?</section>')
$$;
CREATE TEMP TABLE page AS
SELECT 'sweep 7' AS scope, ranread_report(sweep => 7) AS h
UNION ALL SELECT 'sweep 8', ranread_report(sweep => 8)
UNION ALL SELECT 'history', ranread_report();

SELECT is((SELECT count(*) FROM page WHERE h ~ '^<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>'
                                         AND h ~ '</footer></body></html>\n$'),
    3::bigint, 'every report is one page from the doctype to the end of the html element');
SELECT is((SELECT count(*) FROM page WHERE pg_temp.closed(h)), 3::bigint,
    'every element the report opens it closes');
SELECT is((SELECT count(*) FROM page WHERE substring(h FROM '<title>([^<]*)</title>') = 'ranread report: ' || scope
                                      AND position('<h1>ranread report: ' || scope || '</h1>' IN h) > 0),
    3::bigint, 'its title and heading name what it covers');
SELECT is((SELECT count(*) FROM page WHERE h ~* '<script|<link|<iframe|src='), 0::bigint,
    'it has no script and loads nothing');

-- One sweep
SELECT is((SELECT pg_temp.sections(h) FROM page WHERE scope = 'sweep 7'), 'server sweep-7',
    'the report of a sweep has the server and the sweep, not the latest batches');
SELECT is((SELECT pg_temp.contents(h) FROM page WHERE scope = 'sweep 7'), 'sweep-7',
    'its contents link to the sweep');
SELECT ok((SELECT pg_temp.section(h, 'server') ~ '<h2>Server and targets</h2>.*<td>PostgreSQL</td><td class="wrap">PostgreSQL 15.*<h3>Settings that matter</h3>.*<td>shared_buffers</td>.*<h3>Targets</h3>'
             FROM page WHERE scope = 'sweep 7'),
    'the server section has the server''s version (a long cell, which may wrap), the settings that matter and the targets');
CREATE TEMP TABLE s7 AS SELECT pg_temp.section(h, 'sweep-7') AS s FROM page WHERE scope = 'sweep 7';
SELECT ok(position(ranread_internal.ranread_html(
              'SELECT * FROM ranread_sweep(start => 10, max_processes => 1280, duration => ''00:00:30'', max_avg_ms => 10, target => ''ranread'', block_size => 8192, write_pct => 0, queue_depth => 1, pattern => ''random'');')
          IN (SELECT s FROM s7)) > 0,
    'the sweep section gives the call that reruns it, from its recorded settings');
SELECT ok(position('<li>Max 35,210 IOPS within 10 ms average latency, at 320 processes (average 9.090 ms, batch 105).</li>' IN (SELECT s FROM s7)) > 0,
    'and its verdict: the maximum IOPS within the bound, where and in which batch');
SELECT ok(position('<li class="bad">Does not meet the all-flash guidance' IN (SELECT s FROM s7)) > 0,
    'and whether it meets the all-flash guidance');
SELECT ok(position('<li>Stopped on scaling &lt;b&gt;&amp;&lt;/b&gt; &quot;gone&quot;</li>' IN (SELECT s FROM s7)) > 0
          AND (SELECT h FROM page WHERE scope = 'sweep 7') !~ '<b>',
    'and why it stopped, escaped for HTML');
SELECT ok((SELECT s FROM s7) ~ '<figure><svg[^>]*>.*</svg>\s*</figure>' AND (SELECT s FROM s7) !~ '<\?xml',
    'the sweep''s chart is inline, without its XML declaration');
SELECT is((SELECT array_agg(m[1] ORDER BY n) FROM s7, regexp_matches(substring(s FROM '<h3>Steps</h3>.*'),
                                                                   '<tr><td>(\d+)</td>', 'g') WITH ORDINALITY x(m, n)),
    ARRAY['100', '101', '102', '103', '104', '105', '106'], 'and its steps, one row each, by processes');
SELECT is((SELECT count(*) FROM s7, regexp_matches(s, '>105</', 'g')), 1::bigint,
    'the sweep section lists each step once: in its own table, not again in the chart');
SELECT ok((SELECT s FROM s7) ~ '<figure><svg.*>IOPS \(I/O operations per second\)</text>.*</svg>'
          AND (SELECT s FROM s7) !~ 'Avg within',
    'its chart is drawn without the chart''s table of the steps');
SELECT ok(position('<tr><td>105</td><td>320</td><td>completed</td><td>35,210</td><td>288</td><td>9.090</td><td>34.700</td><td>95.200</td></tr>' IN (SELECT s FROM s7)) > 0,
    'a step''s row has its processes, status, IOPS, MiB/s and latencies');

-- A sweep that did not return
SELECT ok((SELECT pg_temp.section(h, 'sweep-8') FROM page WHERE scope = 'sweep 8')
          ~ '^<section id="sweep-8"><h2>Sweep 8</h2><p class="bad">The sweep did not return[^<]*</p><figure>.*<h3>Steps</h3>.*<td>200</td>.*<td>201</td>',
    'a sweep that did not return says so, without a call or a verdict, and lists its steps');

-- The history
SELECT is((SELECT pg_temp.sections(h) FROM page WHERE scope = 'history'),
    'server advice health commit-tests durability verify sweep-8 sweep-7 batches',
    'the report of the history has the server, the advice, the health, the commit tests, durability checks and verify errors, the latest sweeps (newest first) and the latest batches');
SELECT is((SELECT pg_temp.contents(h) FROM page WHERE scope = 'history'),
    'advice health commit-tests durability verify sweep-8 sweep-7 batches',
    'its contents link to each section in the order of the page');
SELECT is((SELECT array_agg(m[1] ORDER BY n) FROM page, regexp_matches(pg_temp.section(h, 'batches'),
                                                                     '<tr><td>(\d+)</td>', 'g') WITH ORDINALITY x(m, n)
            WHERE scope = 'history'),
    ARRAY['300', '201', '200', '106', '105', '104', '103', '102', '101', '100'],
    'the latest batches are listed newest first, those of no sweep too');

-- What it refuses
SELECT throws_ok($$SELECT ranread_report(sweep => 9)$$, '22023',
    'invalid sweep 9 for ranread_report: no step of it is in the history',
    'a sweep with no step in the history is refused, by its number');
SELECT throws_ok($$SELECT ranread_report(study => 9, sweep => 7)$$, '22023',
    'invalid study 9 for ranread_report: no point of it is in the history',
    'and a study with no point in it');
SELECT is(pg_temp.sections(ranread_report(sweep => 8)), 'server sweep-8', 'each sweep''s report is its own');
SELECT is((SELECT h FROM page WHERE scope = 'sweep 7'),
          regexp_replace(ranread_report(sweep => 7), 'Written [^<]* by', (SELECT substring(h FROM 'Written [^<]* by') FROM page WHERE scope = 'sweep 7')),
    'the same history gives the same report, but for the time it was written');

SELECT * FROM finish();
ROLLBACK;
