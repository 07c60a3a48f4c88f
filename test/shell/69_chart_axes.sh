#!/bin/bash
# Pictures with true axes (docs/charts-and-reports.md, "Charts from SQL"):
#  - a time axis reads in the unit its span reads best in: the timeline of
#    a real 3 s run in seconds; of 10 minutes in minutes; of 4 hours in
#    hours (the long batches are the real run's batch and its first
#    second's histogram, copied to every second); a ranread_svg spec of 10
#    days in days; the unit is in the axis's title
#  - a clock axis (ranread_svg's "time": "clock") ticks at round times of
#    the day at the spec's utc_offset, and a date marks midnight; the probe
#    chart's x axis is clock time: a week of probes, a date at each day
#  - the probe chart draws the baseline's p50 and p99 each in a style of
#    its own, and every legend entry's style differs from the others'
#  - a second without a latency histogram is a gap, never dropped
#    silently: the timeline's p99 line breaks there and a note names the
#    seconds; the heatmap keeps their columns, empty, and says so; a heat
#    table too wide for its values (600 seconds) is drawn compact, as wide
#    as the other charts
#  - a time axis is refused where it has no meaning (y, a bar chart), and
#    so is a utc_offset without a clock
#  - each of these charts, in headless Chromium, in windows 800, 1200 and
#    1600 px wide: no text leaves the picture, overlaps another or is tiny
#    (layout.py); PNG screenshots kept in the test log directory
# Needs chromium and python3 for the browser part.
. "$(dirname "$0")/lib/lib.sh"
. "$(dirname "$0")/lib/browser.bash"

CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
PYTHON=$(command -v python3 || true)
OUT="$TMPDIR_TEST/axes"
mkdir -p "$OUT"
setup_db rr_chart_axes
q "SET client_min_messages = warning; SELECT count(*) FROM ranread_setup('64MB')" >/dev/null
qq() { psql -qAtX -d "$DB" -c "SET client_min_messages = warning" -c "$1"; }

RUN=$(qq "SELECT batch FROM ranread_run(1, duration => '3s')")
ok $? "a real run of 3 s (batch $RUN)"

# Batches of 600 s and 4 h: the run's batch row, and its first second (with
# its histogram) at every second; the 600 s batch has no histogram in
# seconds 100-104 and 300
q "CREATE TABLE bb AS SELECT * FROM ranread_batches WHERE batch = $RUN;
   UPDATE bb SET batch = 900001; INSERT INTO ranread_batches SELECT * FROM bb;
   UPDATE bb SET batch = 900002; INSERT INTO ranread_batches SELECT * FROM bb;
   CREATE TABLE ii AS SELECT * FROM ranread_intervals WHERE batch = $RUN AND second = 0;
   INSERT INTO ranread_intervals
   SELECT (jsonb_populate_record(ii, jsonb_build_object('batch', 900001, 'second', s,
             'histogram', CASE WHEN s BETWEEN 100 AND 104 OR s = 300 THEN NULL ELSE ii.histogram END))).*
     FROM ii, generate_series(0, 599) s;
   INSERT INTO ranread_intervals
   SELECT (jsonb_populate_record(ii, jsonb_build_object('batch', 900002, 'second', s))).*
     FROM ii, generate_series(0, 14399) s;
   DROP TABLE bb, ii" >/dev/null
ok $? "batches of 10 minutes (with seconds without a histogram) and of 4 hours"

q "SELECT ranread_timeline($RUN)" > "$OUT/timeline_3s.svg"
q "SELECT ranread_timeline(900001)" > "$OUT/timeline_10min.svg"
q "SELECT ranread_timeline(900002)" > "$OUT/timeline_4h.svg"
q "SELECT ranread_latency_heatmap(900001)" > "$OUT/heatmap_10min.svg"
q "SELECT ranread_svg('{\"title\": \"Ten days\", \"x\": {\"label\": \"Time\", \"time\": \"duration\"},
     \"series\": [{\"label\": \"a\", \"x\": [0, 86400, 432000, 864000], \"y\": [1, 2, 3, 4]}]}')" > "$OUT/days.svg"
# 2024-05-02 21:00 to 2024-05-03 03:00 UTC, shown at UTC+2
q "SELECT ranread_svg(jsonb_build_object('title', 'Six hours',
     'x', jsonb_build_object('label', 'Clock time (UTC+2)', 'time', 'clock', 'utc_offset', 7200),
     'series', jsonb_build_array(jsonb_build_object('label', 'a',
        'x', jsonb_build_array(extract(epoch FROM timestamptz '2024-05-02 21:00+00'),
                               extract(epoch FROM timestamptz '2024-05-03 03:00+00')),
        'y', '[1, 2]'::jsonb))))" > "$OUT/clock.svg"

# the x axis's title and its tick labels (text-anchor middle, under the plot)
xlabel() { grep -o '>Time[^<]*</text>' "$1" | sed 's/^>\(.*\)<\/text>$/\1/' | head -1; }
is "$(xlabel "$OUT/timeline_3s.svg")" "Time into the measured run, warm-up excluded (s)" "a run of 3 s: its time axis in seconds"
is "$(xlabel "$OUT/timeline_10min.svg")" "Time into the measured run, warm-up excluded (min)" "a batch of 10 minutes: in minutes"
grep -q '>10</text>' "$OUT/timeline_10min.svg" && ! grep -q '>600</text>' "$OUT/timeline_10min.svg"
ok $? "... its last tick is 10 (minutes), not 600"
is "$(xlabel "$OUT/timeline_4h.svg")" "Time into the measured run, warm-up excluded (h)" "a batch of 4 hours: in hours"
is "$(xlabel "$OUT/days.svg")" "Time (days)" "a spec of 10 days: in days"

ticks() {
  "$PYTHON" - "$1" <<'PY'
import sys, xml.etree.ElementTree as ET
ns = '{http://www.w3.org/2000/svg}'
root = ET.parse(sys.argv[1]).getroot()
# the x axis's tick labels: centred texts on the one line just under the plot
texts = [t for t in root.iter(ns + 'text') if t.get('text-anchor') == 'middle' and t.get('font-size') is None and t.get('y')]
ys = {}
for t in texts:
    ys.setdefault(t.get('y'), []).append(t)
line = max(ys.values(), key=len)
print(' '.join(t.text for t in sorted(line, key=lambda t: float(t.get('x')))))
PY
}
is "$(ticks "$OUT/clock.svg")" "23:00 05-03 01:00 02:00 03:00 04:00 05:00" \
  "a clock axis ticks at round hours at its utc_offset (21:00 UTC is 23:00 at UTC+2), midnight as the date"

# a week of probes of pg_default, one a day at noon UTC, drawn in a session at UTC
for d in 7 6 5 4 3 2 1; do
  b=$(qq "SELECT batch FROM ranread_run(1, duration => '1s', rate_iops => 200)")
  q "INSERT INTO ranread_probes (batch, tablespace, probed_at)
     VALUES ($b, 'pg_default', date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' - interval '$d days' + interval '12 hours')" >/dev/null
done
psql -qAtX -d "$DB" -c "SET TimeZone = 'UTC'" -c "SELECT ranread_probe_chart('pg_default')" > "$OUT/probes.svg"
want=$(q "SELECT string_agg(to_char(d, 'MM-DD'), ' ' ORDER BY d)
            FROM generate_series(date_trunc('day', now() AT TIME ZONE 'UTC') - interval '6 days',
                                 date_trunc('day', now() AT TIME ZONE 'UTC') - interval '1 day', interval '1 day') d")
is "$(ticks "$OUT/probes.svg")" "$want" "the probe chart's x axis is clock time: a date at each midnight between the probes"
grep -q '>Time of the probe (UTC; a date marks midnight)</text>' "$OUT/probes.svg"
ok $? "... its title says the time zone"
"$PYTHON" - "$OUT/probes.svg" > "$OUT/probes.legend.txt" <<'PY'
import sys, xml.etree.ElementTree as ET
ns = '{http://www.w3.org/2000/svg}'
root = ET.parse(sys.argv[1]).getroot()
els = list(root)
styles = {}
for i, e in enumerate(els):
    # a legend entry: its sample (a short line, then maybe a marker) before its text, on the legend's rows
    if e.tag == ns + 'text' and e.get('y') in ('86.0', '106.0'):
        for k in range(i - 1, max(i - 4, -1), -1):
            if els[k].tag == ns + 'line':
                styles[e.text] = (els[k].get('stroke'), els[k].get('stroke-dasharray') or 'solid')
                break
for label, st in styles.items():
    print('%s|%s|%s' % (label, st[0], st[1]))
PY
n_entries=$(wc -l < "$OUT/probes.legend.txt")
n_styles=$(cut -d'|' -f2,3 "$OUT/probes.legend.txt" | sort -u | wc -l)
grep -q '^baseline p50|' "$OUT/probes.legend.txt" && grep -q '^baseline p99|' "$OUT/probes.legend.txt" &&
  [ "$n_entries" -ge 4 ] && [ "$n_styles" = "$n_entries" ]
ok $? "the probe chart's legend has the baseline's p50 and p99, and each of its $n_entries entries is drawn in a style of its own" ||
  sed 's/^/# /' "$OUT/probes.legend.txt"

# seconds without a histogram
grep -q '>6 of 600 seconds have no latency histogram (seconds 100-104, 300): gaps in the p99 line and empty heatmap' "$OUT/timeline_10min.svg"
ok $? "the timeline names the seconds without a histogram"
p99_moves=$(grep -o '<path d="M[^"]*" fill="none" stroke="#c92a2a"' "$OUT/timeline_10min.svg" | grep -o 'M' | wc -l)
[ "$p99_moves" -ge 3 ]
ok $? "... and its p99 line breaks at them ($p99_moves pieces)"
grep -q '6 seconds have no latency histogram (seconds 100-104, 300): their columns are empty.' "$OUT/heatmap_10min.svg"
ok $? "the heatmap says which seconds have no histogram"
is "$(svg_size "$OUT/heatmap_10min.svg" | cut -d' ' -f1)" 960 "a heatmap of 600 seconds is as wide as the other charts (compact)"
grep -q '<rect[^>]*><title>90-104, ' "$OUT/heatmap_10min.svg"
ok $? "... its cells tell their values in tooltips"
! grep -q 'no latency histogram' "$OUT/timeline_4h.svg"
ok $? "a batch whose every second has a histogram has no such note"

# a duration of 1e200 s: its ticks in exponent form, never a number of
# 200 digits (found by test/fuzz/gen_svg.py)
q "SELECT ranread_svg('{\"x\": {\"time\": \"duration\"}, \"series\": [{\"x\": [0, 1e200], \"y\": [1, 2]}]}')" > "$OUT/huge.svg"
is "$(grep -c '[0-9]\{20\}' "$OUT/huge.svg")" 0 "a duration axis of 1e200 s prints its ticks short ($(grep -o '>[0-9.e+]*</text>' "$OUT/huge.svg" | tail -1))"

# what a time axis refuses
is "$(q_err "SELECT ranread_svg('{\"y\": {\"time\": \"duration\"}}')")" \
  'invalid y.time in the spec for ranread_svg: only the x axis of a line chart is a time axis' "a time y axis is refused"
is "$(q_err "SELECT ranread_svg('{\"kind\": \"bar\", \"x\": {\"time\": \"clock\"}}')")" \
  'invalid x.time in the spec for ranread_svg: only the x axis of a line chart is a time axis' "... and so is the x of a bar chart"
is "$(q_err "SELECT ranread_svg('{\"x\": {\"utc_offset\": 3600}}')")" \
  'invalid x.utc_offset in the spec for ranread_svg: goes with "time": "clock" only' "a utc_offset without a clock is refused"

KINDS="timeline_3s timeline_10min timeline_4h heatmap_10min days clock probes"
if [ -z "$CHROMIUM" ] || [ -z "$PYTHON" ]; then
  echo "ok - layout in a browser # SKIP chromium or python3 is not installed"
  done_testing
  exit 0
fi
# the charts in one page per width (layout.py --svgs: one Chromium start)
for w in 800 1200 1600; do
  "$PYTHON" "$(dirname "$0")/lib/layout.py" "$CHROMIUM" --svgs "$OUT" $w $(for k in $KINDS; do echo "$OUT/$k.svg"; done) \
    > "$OUT/charts.$w.layout.out" 2>&1 || sed 's/^/# /' "$OUT/charts.$w.layout.out"
done
for name in $KINDS; do
  for w in 800 1200 1600; do
    head -1 "$OUT/$name.$w.layout.txt" 2>/dev/null | grep -q '^ok '
    ok $? "$name at $w px: no text leaves the picture, overlaps another, is covered or tiny" ||
      head -20 "$OUT/$name.$w.layout.txt" | sed 's/^/# /'
  done
  shot "$OUT/$name.svg" "$OUT/$name.png" $(svg_size "$OUT/$name.svg")
  ok $? "Chromium renders $name to $OUT/$name.png"
done

diag "charts and screenshots: $OUT"
psql -qX -d postgres -c "DROP DATABASE IF EXISTS rr_chart_axes" >/dev/null 2>&1
done_testing
