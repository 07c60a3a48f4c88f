#!/bin/bash
# Every chart kind and the HTML report, from real histories, as headless
# Chromium lays them out:
#  - a run, a mix, a sweep, a commit test, a sequential write, two small
#    studies (write percentages, queue depths), CrystalDiskMark and ORION
#    profiles and a fleet of this server to itself make the history
#  - the sweep chart, the timelines and latency heatmaps of a run and of a mix, both study
#    charts and a heat table, the comparison chart, the profile charts, the
#    fleet's chart and timeline, the ranread_svg example of
#    docs/charts-and-reports.md, a
#    week of probes' chart (ranread_probe_chart) and the report, each in
#    windows 800, 1200 and 1600 px wide (a chart scaled down to the window
#    as the report shows it): in each, no text leaves the picture, no two
#    texts overlap, none is drawn tiny, the page is no wider than the window
#    (a table scrolls in its own box) (measured from the page's own layout:
#    getBoundingClientRect of every <text>, see layout.py), and no short
#    table cell of the report wraps
#  - PNG screenshots of each are kept in the test log directory (the report
#    at each width)
#  - what the pictures say is right: that ranread_svg example works
#    after a mix and draws only random 8 KiB reads, a point each and no line
#    through them (batches are a cloud, not a curve); the comparison chart
#    draws a curve per row of a study; CrystalDiskMark's result keeps its
#    [Read] and [Write] headings and its bars are on a log scale; the sweep
#    chart's table says MiB/s; the report prints settings as PostgreSQL
#    shows them and names a grid's dimensions
# Needs the Debian packages chromium and python3 for the browser part.
. "$(dirname "$0")/lib/lib.sh"
. "$(dirname "$0")/lib/browser.bash"

CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
PYTHON=$(command -v python3 || true)
OUT="$TMPDIR_TEST/layout"
mkdir -p "$OUT"
setup_db rr_chart_layout
q "SELECT ranread_setup('64MB')" >/dev/null

# --- the history: short batches of every kind
qq() { psql -qAtX -d "$DB" -c "SET client_min_messages = warning" -c "$1"; }
qq "SELECT count(*) FROM ranread_run(2, duration => '2s')" >/dev/null
ok $? "a run"
qq "SELECT count(*) FROM ranread_mix('[{\"label\": \"oltp\", \"processes\": 2},
      {\"label\": \"scan\", \"processes\": 1, \"block_size\": 65536, \"pattern\": \"sequential\"}]', duration => '2s')" >/dev/null
ok $? "a mix"
qq "SELECT count(*) FROM ranread_sweep(start => 1, max_processes => 4, duration => '1s')" >/dev/null
ok $? "a sweep"
qq "SELECT count(*) FROM ranread_commit_test(duration => '1s')" >/dev/null
ok $? "a commit test"
qq "SELECT count(*) FROM ranread_run(1, duration => '1s', write_pct => 100, pattern => 'sequential')" >/dev/null
ok $? "a sequential write"
qq "SELECT count(*) FROM ranread_study(processes => '{1,2,4}', write_pct => '{0,50,100}', duration => '1s')" >/dev/null
ok $? "a study of write percentages"
qq "SELECT count(*) FROM ranread_study(processes => '{1,2,4}', queue_depth => '{1,4}', duration => '1s')" >/dev/null
ok $? "a study of queue depths"
qq "SELECT result FROM ranread_profile('crystaldiskmark', duration => '1s', passes => 1)" > "$OUT/cdm.txt"
ok $? "a CrystalDiskMark profile"
qq "SELECT count(*) FROM ranread_profile('orion-oltp', duration => '1s', num_disks => 1)" >/dev/null
ok $? "an ORION oltp profile"
SOCK=$(q "SELECT split_part(current_setting('unix_socket_directories'), ',', 1)")
q "INSERT INTO ranread_nodes (name, conninfo)
   VALUES ('self', 'host=$SOCK port=${PGPORT:-5432} dbname=$DB user=' || current_user)" >/dev/null
qq "SELECT count(*) FROM ranread_fleet(ARRAY['self'], 1, duration => '2s')" > "$OUT/fleet.out" 2>&1
ok $? "a fleet of this server to itself" || sed 's/^/# /' "$OUT/fleet.out"
# a week of probes of pg_default, one a day, the last 3x slower in its p99
# (its batch's histogram made so: the probe function itself is not used
# here, so each is a paced QD1 batch and its row in ranread_probes)
for d in 6 5 4 3 2 1; do
  b=$(qq "SELECT batch FROM ranread_run(1, duration => '1s', rate_iops => 200)")
  q "INSERT INTO ranread_probes (batch, tablespace, probed_at) VALUES ($b, 'pg_default', now() - interval '$d days')" >/dev/null
done
b=$(qq "SELECT batch FROM ranread_run(1, duration => '1s', rate_iops => 200)")
q "UPDATE ranread_batches SET histogram = ranread_internal.ranread_hist_make(
     ARRAY(SELECT low_ms * 3 FROM ranread_hist_buckets(histogram)),
     ARRAY(SELECT count FROM ranread_hist_buckets(histogram))) WHERE batch = $b" >/dev/null
q "INSERT INTO ranread_probes (batch, tablespace) VALUES ($b, 'pg_default')" >/dev/null
is "$(q "SELECT count(*) FILTER (WHERE verdict = 'baseline') || ' ' || (SELECT verdict FROM ranread_probe_verdicts WHERE batch = $b)
         FROM ranread_probe_verdicts")" "5 slower" "a week of probes: 5 make the baseline, the last one is slower"

S1=$(q "SELECT min(study) FROM ranread_studies WHERE kind = 'study'")
S2=$(q "SELECT max(study) FROM ranread_studies WHERE kind = 'study'")
CDM=$(q "SELECT study FROM ranread_studies WHERE kind = 'crystaldiskmark'")
ORION=$(q "SELECT study FROM ranread_studies WHERE kind = 'orion-oltp'")
SW=$(q "SELECT max(sweep) FROM ranread_sweeps")
RUN=$(q "SELECT min(batch) FROM ranread_batches")
MIX=$(q "SELECT max(batch) FROM ranread_batches WHERE groups = 2 AND study IS NULL")

# --- the charts
q "SELECT ranread_chart($SW)" > "$OUT/sweep.svg"
q "SELECT ranread_timeline($RUN)" > "$OUT/timeline_run.svg"
q "SELECT ranread_timeline($MIX)" > "$OUT/timeline_mix.svg"
q "SELECT ranread_latency_heatmap($RUN)" > "$OUT/heatmap_run.svg"
q "SELECT ranread_latency_heatmap($MIX)" > "$OUT/heatmap_mix.svg"
q "SELECT ranread_study_chart($S1)" > "$OUT/study_write_pct.svg"
q "SELECT ranread_study_chart($S2)" > "$OUT/study_qd.svg"
q "SELECT ranread_study_heat($S1)" > "$OUT/study_heat.svg"
q "SELECT ranread_compare_chart(studies => '{$S1,$S2}', sweeps => '{$SW}')" > "$OUT/compare.svg"
q "SELECT ranread_profile_chart($CDM)" > "$OUT/profile_cdm.svg"
q "SELECT ranread_profile_chart($ORION)" > "$OUT/profile_orion.svg"
q "SELECT ranread_fleet_chart()" > "$OUT/fleet.svg"
q "SELECT ranread_fleet_timeline()" > "$OUT/fleet_timeline.svg"
q "SELECT ranread_probe_chart('pg_default')" > "$OUT/probes.svg"
q "SELECT ranread_report()" > "$OUT/report.html"
# the ranread_svg example of docs/charts-and-reports.md, as printed there
# (to the terminal here, not to the file its \g names)
sed -n '/^WITH b AS (SELECT queue_depth/,/^```/p' "$(dirname "$0")/../../docs/charts-and-reports.md" | sed '$d' |
  sed 's/[[:space:]]*\\g (.*$/;/' > "$OUT/readme_svg.sql"
psql -qAtX -d "$DB" -v ON_ERROR_STOP=1 -f "$OUT/readme_svg.sql" > "$OUT/readme_svg.svg" 2> "$OUT/readme_svg.err"
ok $? "the ranread_svg example of docs/charts-and-reports.md draws after a mix, a commit test and a sequential write" ||
  sed 's/^/# /' "$OUT/readme_svg.err"
KINDS="sweep timeline_run timeline_mix heatmap_run heatmap_mix study_write_pct study_qd study_heat compare profile_cdm profile_orion fleet fleet_timeline readme_svg probes"

# --- what they say
grep -q '>baseline p99</text>' "$OUT/probes.svg" && grep -q '>p99 of a probe</text>' "$OUT/probes.svg"
ok $? "the probes' chart draws each probe's p99 and the baseline's"
# queue depth 1 is the first curve, drawn with circles (one more in the legend)
n_pts=$(( $(grep -o '<circle[^>]*r="4.5"' "$OUT/readme_svg.svg" | wc -l) - 1 ))
n_ok=$(q "SELECT count(*) FROM ranread_batches WHERE status = 'completed' AND groups = 1 AND sync IS NULL
            AND commit_test IS NULL AND pattern = 'random' AND block_size = 8192 AND write_pct = 0
            AND queue_depth = 1 AND iops IS NOT NULL AND avg_ms IS NOT NULL")
is "$n_pts" "$n_ok" "... its queue depth 1 curve has a point for each completed batch of random 8 KiB reads at queue depth 1, and no other"
is "$(grep -o '>queue depth [0-9]*</text>' "$OUT/readme_svg.svg" | sort | tr -d '\n')" ">queue depth 1</text>>queue depth 4</text>" \
  "... and a series for each queue depth the history has, none for the mix or the commit test"
is "$(grep -c '<path d="M[^"]*L[^"]*" fill="none"' "$OUT/readme_svg.svg")" 0 \
  "... drawn as points, with no line zigzagging through batches run at different times"
for lbl in "study $S1 (pg_default): 0% writes" "study $S1 (pg_default): 100% writes" "study $S2 (pg_default): QD 4" "sweep $SW (pg_default)"; do
  grep -q "<text[^>]*>$lbl</text>" "$OUT/compare.svg"
  ok $? "the comparison chart has a curve labelled \"$lbl\" (a curve per row of a study)"
done
grep -qx '\[Read\]' "$OUT/cdm.txt" && grep -qx '\[Write\]' "$OUT/cdm.txt" &&
  [ "$(grep -n -x '\[Read\]' "$OUT/cdm.txt" | cut -d: -f1)" = 1 ]
ok $? "CrystalDiskMark's result starts with [Read] and has a [Write] heading, as the tool prints them"
grep -q 'Throughput (MB/s, 10^6 bytes); log scale' "$OUT/profile_cdm.svg"
ok $? "CrystalDiskMark's bars are on a log scale, in its decimal MB/s"
grep -q '>Small=1</text>' "$OUT/profile_orion.svg"
ok $? "the ORION curve labels its points by their load, as ORION names them (Small=1)"
chmod 777 "$OUT"
q "SELECT ranread_export_study('$OUT', $ORION, 'csv')" > "$OUT/orion_files.txt"
lat=$(grep '_lat\.csv$' "$OUT/orion_files.txt")
summ=$(grep '_summary\.txt$' "$OUT/orion_files.txt")
is "$(head -1 "$lat" | tr -d '\r')" "Large/Small: Average latency (ms),1,2,3,4,5" \
  "ORION's _lat.csv: the header names the axes as ORION does and says the unit, ms"
head -2 "$lat" | tail -1 | grep -q '^0,[0-9.]*,'
ok $? "... and its row is named 0 (large loads), as ORION names it"
grep -q '^Command line:$' "$summ" && grep -q '^Small Columns:,      1,      2,      3,      4,      5$' "$summ" &&
  grep -q '^Large Columns:,      0$' "$summ" && grep -q '^Total Data Points: 5$' "$summ" &&
  grep -q '^Units: .*_lat.csv average latency in ms, full precision; below, latency in usecs' "$summ" &&
  grep -q '^Minimum Small Latency=[0-9.]* usecs @ Small=' "$summ"
ok $? "ORION's _summary.txt opens with the call, the settings, the loads and the units, then the summary" ||
  sed 's/^/# /' "$summ"
grep -q '>MiB/s</text>' "$OUT/sweep.svg" && ! grep -q '>MB/s</text>' "$OUT/sweep.svg"
ok $? "the sweep chart's table gives MiB/s"
sb=$(q "SELECT current_setting('shared_buffers')")
grep -q "<td>shared_buffers</td><td>$sb</td>" "$OUT/report.html"
ok $? "the report prints shared_buffers as PostgreSQL shows it ($sb)"
grep -q '<th>write_pct \\ processes</th>' "$OUT/report.html"
ok $? "the report's grid tables name their rows' and columns' dimensions"

if [ -z "$CHROMIUM" ] || [ -z "$PYTHON" ]; then
  echo "ok - layout in a browser # SKIP chromium or python3 is not installed"
  done_testing
  exit 0
fi

# --- the layout, as Chromium lays it out in three widths of window, and
# the screenshots: the charts in one page per width (layout.py --svgs: one
# Chromium start for all of them), the report in a page of its own
for w in 800 1200 1600; do
  "$PYTHON" "$(dirname "$0")/lib/layout.py" "$CHROMIUM" --svgs "$OUT" $w $(for k in $KINDS; do echo "$OUT/$k.svg"; done) \
    > "$OUT/charts.$w.layout.out" 2>&1 || sed 's/^/# /' "$OUT/charts.$w.layout.out"
  "$PYTHON" "$(dirname "$0")/lib/layout.py" "$CHROMIUM" "$OUT/report.html" "$OUT" $w > "$OUT/report.$w.layout.txt" 2>&1
done
for name in $KINDS report; do
  f="$OUT/$name.svg"
  [ "$name" = report ] && f="$OUT/report.html"
  for w in 800 1200 1600; do
    head -1 "$OUT/$name.$w.layout.txt" 2>/dev/null | grep -q '^ok '
    ok $? "$name at $w px: no text leaves the picture, no two texts overlap, none is covered or tiny, the page fits the window$([ "$name" = report ] && echo ', no short cell wraps')" ||
      head -20 "$OUT/$name.$w.layout.txt" | sed 's/^/# /'
  done
  if [ "$name" = report ]; then
    for w in 800 1200 1600; do
      shot "$f" "$OUT/$name.$w.png" $w 4000
      ok $? "Chromium renders $name to $OUT/$name.$w.png"
    done
  else
    shot "$f" "$OUT/$name.png" $(svg_size "$f")
    ok $? "Chromium renders $name to $OUT/$name.png"
  fi
done

diag "charts, layouts and screenshots: $OUT"
psql -qX -d postgres -c "DROP DATABASE IF EXISTS rr_chart_layout" >/dev/null 2>&1
done_testing
