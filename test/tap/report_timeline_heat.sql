-- ranread_timeline draws, under its IOPS and latency plot, the latency
-- heatmap of the same batch (docs/charts-and-reports.md, "Percentiles over
-- time") on the same x axis, when the batch's seconds have histograms: its
-- cells are the seconds and latency bands that had I/Os, each under its
-- second's point of the IOPS line, their I/Os summing to the batch's; a batch
-- without histograms draws the plot alone, as before.
BEGIN;
SET LOCAL client_min_messages = warning;
SELECT plan(19);
\ir lib/util.psql

-- A stored histogram (histogram.c), as in report_heatmap.sql: n1 I/Os in
-- the 1-2 ms band (bucket 954), n2 in the 0.25-0.5 ms band (bucket 841)
CREATE FUNCTION pg_temp.le(v bigint, n integer) RETURNS bytea LANGUAGE sql AS $$
    SELECT string_agg(set_byte('\x00'::bytea, 0, ((v >> (8 * i)) & 255)::integer), ''::bytea ORDER BY i)
      FROM generate_series(0, n - 1) i
$$;
CREATE FUNCTION pg_temp.h(n1 bigint, n2 bigint) RETURNS bytea LANGUAGE sql AS $$
    SELECT '\x01'::bytea || pg_temp.le(n1 + n2, 8) || pg_temp.le(n1 * 1000000 + n2 * 300000, 8)
           || pg_temp.le(CASE WHEN n2 > 0 THEN 300000 ELSE 1000000 END, 8)
           || pg_temp.le(CASE WHEN n1 > 0 THEN 1000000 ELSE 300000 END, 8)
           || CASE WHEN n2 > 0 THEN pg_temp.le(841, 2) || pg_temp.le(n2, 8) ELSE ''::bytea END
           || CASE WHEN n1 > 0 THEN pg_temp.le(954, 2) || pg_temp.le(n1, 8) ELSE ''::bytea END
$$;
-- xpath over an SVG document
CREATE FUNCTION pg_temp.x(svg text, path text) RETURNS SETOF text LANGUAGE sql AS $$
    SELECT unnest(xpath(path, svg::xml, ARRAY[ARRAY['s', 'http://www.w3.org/2000/svg']]))::text
$$;

DELETE FROM ranread_intervals;
-- 990101: six seconds of fast reads (0.25-0.5 ms) with a few slow ones,
-- second 3 slowed down: all its reads took 1-2 ms.  990102: the same
-- seconds without histograms (untimed seconds, or history from 1.0).
-- 990103: 81 seconds, which the heatmap puts together in runs of 3.
INSERT INTO ranread_batches (batch, run_at, target, tablespace, processes, duration, block_size,
    queue_depth, write_pct, pattern, region_start, region_end, seed, workers, engine, reads,
    writes, seconds, iops, mbps, avg_ms, p99_ms, max_ms, status, groups, distribution)
SELECT b, now(), 'tap_heat', 'pg_default', 1, '6s', 8192, 1, 0, 'random', 0, 100, 1, 1, 'io_uring',
       r, 0, s, r / s, 1, 0.5, 1.5, 2, 'completed', 1, 'uniform'
  FROM (VALUES (990101, 4830, 6), (990102, 4830, 6), (990103, 81 * 1000, 81)) v(b, r, s);
CREATE TEMP TABLE secs (second integer, n1 bigint, n2 bigint);
INSERT INTO secs VALUES (0, 10, 900), (1, 12, 950), (2, 8, 1000), (3, 400, 0), (4, 20, 880), (5, 0, 650);
INSERT INTO ranread_intervals (batch, second, reads, writes, iops, avg_ms, max_ms, grp, histogram)
SELECT 990101, second, n1 + n2, 0, n1 + n2, 0.4, 1.5, 1, pg_temp.h(n1, n2) FROM secs
UNION ALL
SELECT 990102, second, n1 + n2, 0, n1 + n2, 0.4, 1.5, 1, NULL FROM secs
UNION ALL
SELECT 990103, s, 1000, 0, 1000, 0.6, 1.5, 1, pg_temp.h(500, 500) FROM generate_series(0, 80) s;
SELECT is((SELECT sum(reads + writes)::bigint FROM ranread_intervals WHERE batch = 990101),
          (SELECT (reads + writes)::bigint FROM ranread_batches WHERE batch = 990101),
          'the scripted seconds add up to the batch''s I/Os');

CREATE TEMP TABLE t AS SELECT b, ranread_timeline(b) AS svg FROM (VALUES (990101), (990102), (990103)) v(b);
SELECT ok(pg_temp.svg_ok(svg), format('the timeline of batch %s is a well-formed SVG document', b))
  FROM t ORDER BY b;

-- the heatmap panel: its cells are the rects with a tooltip
CREATE TEMP TABLE cell AS
SELECT b, x.x::float8 AS x, x.w::float8 AS w, x.tip
  FROM t, LATERAL (SELECT * FROM unnest(
              ARRAY(SELECT pg_temp.x(t.svg, '//s:rect[s:title]/@x')),
              ARRAY(SELECT pg_temp.x(t.svg, '//s:rect[s:title]/@width')),
              ARRAY(SELECT pg_temp.x(t.svg, '//s:rect[s:title]/s:title/text()'))) AS u(x, w, tip)) x;
-- the IOPS line's points: its markers are the circles, but for the one in
-- the legend, above the plot
CREATE TEMP TABLE point AS
SELECT b, p::float8 AS cx FROM t, LATERAL pg_temp.x(t.svg, '//s:circle[@cy > 100]/@cx') p;

SELECT matches((SELECT svg FROM t WHERE b = 990101),
    '>Latency by second: I/Os in each latency band \(merged histograms\)</text>',
    'a batch with per-second histograms gets the heatmap panel under its plot');
SELECT is((SELECT count(*) FROM cell WHERE b = 990101),
          (SELECT count(*) FROM ranread_internal.ranread_latency_heat_cells(990101) WHERE ios > 0),
          'one cell per second and latency band that had I/Os');
SELECT is((SELECT sum(replace(substring(tip from ': ([0-9,]+) I/Os$'), ',', '')::bigint)::bigint FROM cell WHERE b = 990101),
          (SELECT (reads + writes)::bigint FROM ranread_batches WHERE batch = 990101),
          'the cells'' I/Os add up to the batch''s reads and writes');
SELECT is((SELECT tip FROM cell WHERE b = 990101 AND tip LIKE '3, %'), '3, 1-2 ms: 400 I/Os',
    'the slowed second has one cell, in the 1-2 ms band, with all its I/Os');
SELECT ok(NOT EXISTS (SELECT FROM cell c WHERE c.b = 990101 AND NOT EXISTS (
               SELECT FROM point p WHERE p.b = 990101 AND abs(p.cx - (c.x + c.w / 2)) < 0.2))
          AND (SELECT count(DISTINCT p.cx) FROM point p JOIN cell c ON c.b = p.b AND abs(p.cx - (c.x + c.w / 2)) < 0.2
                WHERE p.b = 990101) = 6
          AND (SELECT count(*) FROM point WHERE b = 990101) = 6,
    'each second''s cells lie under that second''s point of the IOPS line (the same x axis)');
-- the x axis runs from 0 to 6 s: where its ticks 0 and 6 are labelled
CREATE TEMP TABLE tick AS
SELECT (SELECT min(p::float8) FROM pg_temp.x(svg, '//s:text[@text-anchor = "middle" and . = "0"]/@x') p) AS x0,
       (SELECT min(p::float8) FROM pg_temp.x(svg, '//s:text[@text-anchor = "middle" and . = "6"]/@x') p) AS x6
  FROM t WHERE b = 990101;
SELECT ok((SELECT abs(min(x) - x0) < 0.15 AND abs(max(x + w) - x6) < 0.15 FROM cell, tick WHERE b = 990101 GROUP BY x0, x6)
          AND (SELECT count(*) FROM cell WHERE b = 990101 AND w <= 0) = 0,
    'the cells span the plot''s x range, from its first second to the end of its last');
SELECT is((SELECT count(*) FROM pg_temp.x((SELECT svg FROM t WHERE b = 990101), '//s:text[. = ''Time into the measured run, warm-up excluded (s)'']')),
          1::bigint, 'the x axis is titled once, under the panel');
SELECT ok((SELECT svg FROM t WHERE b = 990101) ~ '>I/Os( \(log colour scale\))?:</text>'
          AND (SELECT svg FROM t WHERE b = 990101) ~ '>Latency band</text>',
    'the panel''s colour scale says I/Os and its rows are titled latency bands');

SELECT is((SELECT count(*) FROM cell WHERE b = 990102), 0::bigint,
    'a batch without per-second histograms has no heatmap cells');
SELECT doesnt_match((SELECT svg FROM t WHERE b = 990102), 'Latency by second',
    'and no heatmap panel: its timeline is the plot alone');

-- 81 seconds: 27 columns of 3 seconds, each as wide as three seconds of the line
SELECT is((SELECT count(DISTINCT x) FROM cell WHERE b = 990103), 27::bigint,
    'a long batch''s heatmap has a column per run of seconds');
SELECT ok((SELECT bool_and(abs(w - 3 * ((SELECT max(cx) - min(cx) FROM point WHERE b = 990103) / 80)) < 0.3)
             FROM cell WHERE b = 990103),
    'each as wide as its seconds on the x axis');

-- 990104: seconds whose histograms hold no I/O (the heatmap has no rows)
INSERT INTO ranread_batches (batch, run_at, target, tablespace, processes, duration, block_size,
    queue_depth, write_pct, pattern, region_start, region_end, seed, workers, engine, reads,
    writes, seconds, iops, mbps, avg_ms, p99_ms, max_ms, status, groups, distribution)
VALUES (990104, now(), 'tap_heat', 'pg_default', 1, '2s', 8192, 1, 0, 'random', 0, 100, 1, 1, 'io_uring',
        0, 0, 2, 0, 0, NULL, NULL, NULL, 'completed', 1, 'uniform');
INSERT INTO ranread_intervals (batch, second, reads, writes, iops, avg_ms, max_ms, grp, histogram)
SELECT 990104, s, 0, 0, 0, NULL, NULL, 1, pg_temp.h(0, 0) FROM generate_series(0, 1) s;
SELECT is(pg_temp.error_of('SELECT ranread_timeline(990104)'), NULL,
    'seconds whose histograms hold no I/O: the timeline is drawn, without a panel');

-- 990105: a second near 2^31 (the heatmap's columns count in integer)
INSERT INTO ranread_batches (batch, run_at, target, tablespace, processes, duration, block_size,
    queue_depth, write_pct, pattern, region_start, region_end, seed, workers, engine, reads,
    writes, seconds, iops, mbps, avg_ms, p99_ms, max_ms, status, groups, distribution)
VALUES (990105, now(), 'tap_heat', 'pg_default', 1, '2s', 8192, 1, 0, 'random', 0, 100, 1, 1, 'io_uring',
        20, 0, 2, 10, 0, 1, 1, 1, 'completed', 1, 'uniform');
INSERT INTO ranread_intervals (batch, second, reads, writes, iops, avg_ms, max_ms, grp, histogram)
VALUES (990105, 0, 10, 0, 10, 1, 1, 1, pg_temp.h(10, 0)), (990105, 2147483647, 10, 0, 10, 1, 1, 1, pg_temp.h(0, 0));
SELECT ok(pg_temp.svg_ok(ranread_timeline(990105)) AND ranread_timeline(990105) NOT LIKE '%Latency by second%',
    'a second near 2^31: the timeline is drawn, without a panel, rather than an integer out of range');

-- a role granted the timeline (and what it reads) but not the heatmap's
-- internal functions: the timeline without the panel, not an error
CREATE ROLE tap_timeline_only;
DO $$
DECLARE s text := (SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
                    WHERE e.extname = 'ranread');
BEGIN
    EXECUTE format('GRANT USAGE ON SCHEMA %I TO tap_timeline_only', s);
    EXECUTE format('GRANT SELECT ON %I.ranread_batches, %I.ranread_intervals TO tap_timeline_only', s, s);
    EXECUTE format('GRANT EXECUTE ON FUNCTION %I.ranread_timeline(bigint), %I.ranread_hist_merge(bytea),'
                   ' %I.ranread_hist_percentile(bytea, float8) TO tap_timeline_only', s, s, s);
END
$$;
SET LOCAL ROLE tap_timeline_only;
CREATE TEMP TABLE limited AS SELECT ranread_timeline(990101) AS svg;
RESET ROLE;
SELECT ok(pg_temp.svg_ok(svg) AND svg NOT LIKE '%Latency by second%' AND svg LIKE '%IOPS per second over 6 s%',
    'a role that may not run the heatmap''s functions gets the timeline without the panel')
  FROM limited;

SELECT * FROM finish();
ROLLBACK;
