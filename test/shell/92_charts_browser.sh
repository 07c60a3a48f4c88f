#!/bin/bash
# The charts as a browser draws them (headless Chromium), not only as text:
#  - ranread_chart from a synthetic sweep, ranread_timeline of a timed batch
#    and of one run with ranread.timing = off, and ranread_svg specs: twelve
#    curves on a log x axis with a bound line, a heat table, grouped bars,
#    names full of <&"' and non-ASCII, and a chart of U+FFFE, U+FFFF and
#    other noncharacters with bars of 1e300
#  - each is a well-formed, plain-ASCII SVG whose text reads back exactly
#  - Chromium renders each to a PNG (kept in the test log directory), and
#    the pixels show that every curve, bar and cell is really painted in its
#    own colour, and that an untimed timeline paints no latency
# Needs the Debian packages chromium and python3; skips without them.
. "$(dirname "$0")/lib/lib.sh"
. "$(dirname "$0")/lib/browser.bash"

CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
PYTHON=$(command -v python3 || true)
if [ -z "$CHROMIUM" ] || [ -z "$PYTHON" ]; then
  echo "ok 1 - charts render in a browser # SKIP ${CHROMIUM:+python3}${CHROMIUM:-chromium} is not installed"
  echo "1..1"
  exit 0
fi

OUT="$TMPDIR_TEST/charts"
mkdir -p "$OUT"
setup_db rr_charts_browser

# --- synthetic history: a sweep of seven steps, a timed and an untimed batch
q "INSERT INTO ranread_batches (batch, run_at, target, processes, duration, block_size, queue_depth,
       write_pct, pattern, region_start, region_end, seed, workers, engine, reads, writes, seconds,
       iops, mbps, avg_ms, p99_ms, max_ms, status, sweep)
   SELECT 100 + i, timestamptz '2024-05-02 14:00:00+00' + i * interval '31 s',
          E'<b>&\"cible_\u00e9''s\"', p, '30s', 8192, 1, 0, 'random', 0, 100, 1, 2, 'io_uring',
          (iops * 30)::bigint, 0, 30, iops, iops * 8192 / 1e6, avg, p99, mx, 'completed', 7
     FROM (VALUES (0, 10, 4210.0, 2.37, 6.1, 14.2), (1, 20, 8120, 2.46, 6.8, 17.9),
                  (2, 40, 15010, 2.66, 8.2, 22.4), (3, 80, 24890, 3.21, 11.5, 31.0),
                  (4, 160, 31870, 5.02, 18.9, 48.3), (5, 320, 35210, 9.09, 34.7, 95.2),
                  (6, 640, 36120, 17.7, 61.3, 180.4)) v(i, p, iops, avg, p99, mx);
   INSERT INTO ranread_sweeps (sweep, started_at, finished_at, target, block_size, write_pct,
       queue_depth, pattern, start, max_processes, duration, max_avg_ms, steps, stop_reason,
       max_iops, actual_latency_ms, max_iops_processes, max_iops_batch, meets_flash_guidance)
   VALUES (7, '2024-05-02 14:00:00+00', '2024-05-02 14:04:00+00', 'ranread', 8192, 0, 1, 'random',
       10, 1280, '30s', 10, 7, 'scaling: 2.6% of linear', 35210, 9.09, 320, 105, false);
   INSERT INTO ranread_batches (batch, run_at, target, processes, duration, block_size, queue_depth,
       write_pct, pattern, region_start, region_end, seed, workers, engine, reads, writes, seconds,
       iops, mbps, avg_ms, p99_ms, max_ms, status)
   VALUES (200, '2024-05-02 15:00:00+00', 'ranread', 160, '30s', 8192, 1, 0, 'random', 0, 100, 1, 2,
           'io_uring', 900000, 0, 30, 30000, 245, 5.02, 19, 48, 'completed'),
          (201, '2024-05-02 16:00:00+00', 'ranread', 160, '30s', 8192, 1, 0, 'random', 0, 100, 1, 2,
           'io_uring', 900000, 0, 30, 30000, 245, NULL, NULL, NULL, 'completed');
   INSERT INTO ranread_intervals (batch, second, reads, writes, iops, avg_ms, max_ms)
   SELECT b, s, r, 0, r, CASE WHEN b = 200 THEN 160000.0 / r END, CASE WHEN b = 200 THEN 20 + s END
     FROM (SELECT b, s, CASE WHEN s < 18 THEN 32000 ELSE 27000 END AS r
             FROM generate_series(0, 29) s, (VALUES (200), (201)) v(b)) x" >/dev/null

# --- the charts
q "SELECT ranread_chart(7)" > "$OUT/sweep.svg"
q "SELECT ranread_timeline(200)" > "$OUT/timeline.svg"
q "SELECT ranread_timeline(201)" > "$OUT/timeline_untimed.svg"

# Twelve curves, latency against IOPS on a log x axis, one with a gap
q "SELECT ranread_svg(jsonb_build_object(
     'title', E'Latency against IOPS by queue depth <&\"''> \u00e9',
     'subtitle', 'twelve curves, a bound, a gap',
     'x', jsonb_build_object('label', 'IOPS (I/O operations per second)', 'log', 'auto', 'format', 'count'),
     'y', jsonb_build_object('label', 'Average latency (ms)'),
     'lines', jsonb_build_array(jsonb_build_object('value', 10, 'label', 'bound 10 ms',
                                                   'legend', 'Average latency bound 10 ms')),
     'highlights', jsonb_build_array(jsonb_build_object('series', 0, 'point', 3, 'label', 'best')),
     'series', (SELECT jsonb_agg(jsonb_build_object(
                    'label', format('QD %s <&\"''>', k),
                    'x', (SELECT jsonb_agg(100 * 2 ^ j * (1 + k) ORDER BY j) FROM generate_series(0, 10) j),
                    'y', (SELECT jsonb_agg(CASE WHEN k = 5 AND j = 4 THEN NULL
                                                ELSE 0.5 + 1.1 * k + 0.2 * j END ORDER BY j)
                            FROM generate_series(0, 10) j)) ORDER BY k)
                  FROM generate_series(0, 11) k)))" > "$OUT/lines12.svg"

# A heat table: write % x block size, IOPS spanning decades, one cell empty
q "SELECT ranread_svg(jsonb_build_object(
     'kind', 'heat',
     'title', 'IOPS by write share and block size',
     'x', jsonb_build_object('label', 'Block size'),
     'y', jsonb_build_object('label', 'Writes (%)'),
     'heat', jsonb_build_object(
        'metric', 'IOPS', 'log', 'auto', 'format', 'count',
        'rows', jsonb_build_array('0%', '25%', '50%', '75%', '100%'),
        'columns', jsonb_build_array('4 KiB', '8 KiB', '16 KiB', '64 KiB', '256 KiB', '1 MiB'),
        'values', (SELECT jsonb_agg((SELECT jsonb_agg(CASE WHEN w = 2 AND b = 3 THEN NULL
                                                            ELSE round(90000 / (1 + w) / 2 ^ b) END ORDER BY b)
                                       FROM generate_series(0, 5) b) ORDER BY w)
                     FROM generate_series(0, 4) w))))" > "$OUT/heat.svg"

# CrystalDiskMark-style bars: four tests, read and write
q "SELECT ranread_svg(jsonb_build_object(
     'kind', 'bar',
     'title', 'MB/s by test: read and write',
     'categories', jsonb_build_array('SEQ1M Q8T1', 'SEQ1M Q1T1', 'RND4K Q32T1 <&\"''>', 'RND4K Q1T1'),
     'y', jsonb_build_object('label', 'Throughput (MB/s)'),
     'x', jsonb_build_object('label', 'Test'),
     'series', jsonb_build_array(
        jsonb_build_object('label', 'Read', 'y', jsonb_build_array(2100.5, 1500, 410.2, 52.3)),
        jsonb_build_object('label', 'Write', 'y', jsonb_build_array(1800, 1200.7, 380, NULL))),
     'table', jsonb_build_object(
        'header', jsonb_build_array('Test', 'Read IOPS', 'Write IOPS'),
        'align', jsonb_build_array('left', 'right', 'right'),
        'rows', jsonb_build_array(jsonb_build_array('RND4K Q32T1', '100,146', '92,773'),
                                  jsonb_build_array('RND4K Q1T1', '12,768', jsonb_build_object('text', 'n/a', 'tone', 'muted'))))))" > "$OUT/bars.svg"

# Text XML 1.0 forbids and values near the largest a chart places: still a
# document a browser draws (noncharacters become U+FFFD)
q "SELECT ranread_svg(jsonb_build_object(
     'kind', 'bar',
     'title', E'Noncharacters \uFFFE\uFFFF\uFDD0 in a title',
     'categories', jsonb_build_array(E'node \uFFFE', E'node \uFFFF'),
     'y', jsonb_build_object('label', E'IOPS \U0010FFFF', 'format', 'count'),
     'series', jsonb_build_array(jsonb_build_object('label', E'app\uFFFEname', 'labels', true,
                                                    'y', jsonb_build_array(1e300, 5e299)))))" > "$OUT/odd.svg"

# --- well-formed, ASCII, text that reads back exactly
PYTHONIOENCODING=utf-8 "$PYTHON" - "$OUT" > "$OUT/xml.txt" 2>&1 <<'PY'
import sys, os, xml.etree.ElementTree as ET
ns = '{http://www.w3.org/2000/svg}'
d = sys.argv[1]
for name in ['sweep', 'timeline', 'timeline_untimed', 'lines12', 'heat', 'bars', 'odd']:
    raw = open(os.path.join(d, name + '.svg'), 'rb').read()
    try:
        root = ET.fromstring(raw)
    except ET.ParseError as e:
        print(name, 'bad', 0, str(e))
        continue
    texts = [''.join(t.itertext()) for t in root.iter(ns + 'text')]
    print(name, 'ok' if root.tag == ns + 'svg' and max(raw) < 128 and root.get('width') else 'bad',
          len(texts), '|'.join(texts).replace('\n', ' '))
PY
for name in sweep timeline timeline_untimed lines12 heat bars odd; do
  grep -q "^$name ok " "$OUT/xml.txt"
  ok $? "$name.svg is a well-formed, plain-ASCII SVG document"
done
grep -q '<b>&"cible_é'"'"'s"' "$OUT/xml.txt"
ok $? "a target name with <&\"' and é reads back exactly from the sweep chart's text"
grep '^lines12 ' "$OUT/xml.txt" | grep -q "QD 11 <&\"'>"
ok $? "... and so do series names in a ranread_svg chart"
grep '^timeline_untimed ' "$OUT/xml.txt" | grep -q 'not measured'
ok $? "the untimed timeline says latency was not measured"
grep '^timeline_untimed ' "$OUT/xml.txt" | grep -q 'slowest I/O took'
ok $((! $?)) "... and claims no slowest I/O"

# --- Chromium renders each one
for name in sweep timeline timeline_untimed lines12 heat bars odd; do
  shot "$OUT/$name.svg" "$OUT/$name.png" $(svg_size "$OUT/$name.svg")
  ok $? "Chromium renders $name.svg to $OUT/$name.png"
done

# --- the screenshots' pixels
IOPS='#1c5fa8' AVG='#d9480f' P99='#f59f00' BOUND='#c92a2a' BEST='#2b8a3e'
pixel_check sweep "IOPS, average and p99 curves, the bound line and the verdict's ring are painted" \
  "$IOPS:300" "$AVG:200" "$P99:150" "$BOUND:100" "$BEST:20"
pixel_check timeline "IOPS, average and maximum latency per second are painted" \
  "$IOPS:300" "$AVG:200" "$P99:100"
pixel_check timeline_untimed "IOPS are painted and no latency curve is" \
  "$IOPS:300" "$AVG:0:0" "$P99:0:0"
PALETTE=('#1c5fa8' '#d9480f' '#2b8a3e' '#ae3ec9' '#f59f00' '#0c8599' '#862e9c' '#5c940d' '#e64980' '#495057' '#364fc7' '#a61e4d')
checks=()
for c in "${PALETTE[@]}"; do checks+=("$c:40"); done
pixel_check lines12 "each of the twelve curves is painted in its own colour, and the bound line" \
  "${checks[@]}" "$BOUND:100"
pixel_check heat "every heat cell is painted in its colour of the scale" cells "$OUT/heat.svg" 600
pixel_check bars "the read and the write bars are painted" "${PALETTE[0]}:2000" "${PALETTE[1]}:1000"
pixel_check odd "a chart titled with U+FFFE and U+FFFF, of bars of 1e300, is painted" "${PALETTE[0]}:2000"
grep '^odd ' "$OUT/xml.txt" | grep -q $'Noncharacters \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd in a title'
ok $? "... its title reads back with U+FFFD for each noncharacter"

diag "charts and screenshots: $OUT"
psql -qX -d postgres -c "DROP DATABASE IF EXISTS rr_charts_browser" >/dev/null 2>&1
done_testing
