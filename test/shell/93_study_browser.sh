#!/bin/bash
# Studies as a DBA sees them, in several sessions and in a browser:
#  - ranread_stop from another session ends a study: it returns, keeps every
#    finished point, and records why it ended
#  - a cancelled study keeps every finished point too: no row in
#    ranread_studies (that was the caller's transaction), but the overview,
#    the grid and the report read it from its batches
#  - the ORION write-percentage chart of a real study, its heat table, a
#    CrystalDiskMark profile's bars and a chart comparing two studies and a
#    sweep are well-formed SVG that headless Chromium paints (every curve,
#    bar and cell in its colour; PNGs in the test log directory)
#  - the HTML report is one self-contained page (no script, nothing
#    external), parses, and Chromium paints its charts
# Chromium and python3 (Debian packages chromium, python3) for the browser
# part, which is skipped without them.
. "$(dirname "$0")/lib/lib.sh"
. "$(dirname "$0")/lib/browser.bash"

OUT="$TMPDIR_TEST/study"
mkdir -p "$OUT"
chmod 777 "$OUT"
setup_db rr_study_browser
q "SELECT ranread_setup('64MB')" >/dev/null

# last_study: the newest study id in the history (0 if none)
last_study() { q "SELECT coalesce(max(study), 0) FROM ranread_batches"; }

# --- ranread_stop ends a study, which keeps its finished points
before=$(last_study)
psql -qAtX -d "$DB" -c "SET client_min_messages = error" \
  -c "SELECT count(*) FROM ranread_study(processes => '{1,2,3,4,5,6}', duration => '1s')" \
  > "$OUT/stopped.out" 2>&1 &
bg=$!
wait_for 60 "SELECT count(*) >= 2 FROM ranread_batches WHERE study > $before AND status = 'completed'"
ok $? "a study runs its points one after another"
q "SELECT ranread_stop()" >/dev/null
wait $bg
ok $? "after ranread_stop the study returns, without an error"
id=$(q "SELECT max(study) FROM ranread_batches WHERE study > $before")
done_n=$(q "SELECT count(*) FROM ranread_batches WHERE study = $id AND status = 'completed'")
cmp_ok "$done_n" '>=' 2 "its finished points are kept ($done_n)"
is "$(q "SELECT count(*) FROM ranread_batches WHERE study = $id AND status = 'stopped'")" 1 \
  "the point that was running is recorded as stopped"
is "$(q "SELECT completed FROM ranread_studies WHERE study = $id")" "$done_n" \
  "the study's row counts the finished points"
q "SELECT stop_reason FROM ranread_studies WHERE study = $id" | grep -q '^status: point [0-9]* (batch [0-9]*) ended stopped'
ok $? "and says the study ended because a point was stopped"

# --- a cancelled study keeps its finished points
before=$(last_study)
psql -qAtX -d "$DB" -c "SET client_min_messages = error" \
  -c "SELECT count(*) FROM ranread_study(processes => '{1,2,3,4,5,6}', write_pct => '{0}', duration => '1s')" \
  > "$OUT/cancelled.out" 2>&1 &
bg=$!
wait_for 60 "SELECT count(*) >= 2 FROM ranread_batches WHERE study > $before AND status = 'completed'"
q "SELECT pg_cancel_backend(pid) FROM pg_stat_activity
    WHERE query LIKE '%ranread_study(processes%' AND pid <> pg_backend_pid()" >/dev/null
wait $bg
grep -q 'canceling statement due to user request' "$OUT/cancelled.out"
ok $? "a study can be cancelled"
id=$(q "SELECT max(study) FROM ranread_batches WHERE study > $before")
is "$(q "SELECT count(*) FROM ranread_studies WHERE study = $id")" 0 \
  "a cancelled study has no row in ranread_studies (its caller's transaction rolled back)"
cmp_ok "$(q "SELECT completed FROM ranread_study_overview WHERE study = $id AND status = 'cancelled'")" '>=' 2 \
  "but the overview shows it with its finished points"
cmp_ok "$(q "SELECT cardinality(array_remove(cells, NULL)) FROM ranread_study_grid($id)")" '>=' 2 \
  "and its grid has their cells"
q "SELECT ranread_report($id)" | grep -q 'did not return'
ok $? "the report of a cancelled study says its call was not recorded"

# --- the charts and the report
q "SELECT count(*) FROM ranread_study(processes => '{1,2,4}', write_pct => '{0,10,20,40,100}', duration => '0.2s')" >/dev/null
wp=$(last_study)
q "SELECT count(*) FROM ranread_profile('crystaldiskmark', duration => '0.2s', passes => 1)" >/dev/null
cdm=$(last_study)
q "SELECT count(*) FROM ranread_sweep(1, 4, duration => '0.2s')" >/dev/null
q "SELECT ranread_study_chart($wp)" > "$OUT/writepct.svg"
q "SELECT ranread_study_heat($wp, 'iops')" > "$OUT/heat.svg"
q "SELECT ranread_profile_chart($cdm)" > "$OUT/cdm.svg"
q "SELECT ranread_compare_chart(studies => ARRAY[$wp, $id], sweeps => ARRAY[(SELECT max(sweep) FROM ranread_batches)],
                                labels => ARRAY['write mix <&\"''>', 'cancelled', 'sweep'])" > "$OUT/compare.svg"
report=$(q "SELECT ranread_export('$OUT', 'html')")
ok $? "ranread_export writes the HTML report ($report)"
q "SELECT ranread_export_study('$OUT', $wp)" > "$OUT/study_files.txt"
ok $? "ranread_export_study writes one study's report"

CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
PYTHON=$(command -v python3 || true)
if [ -z "$CHROMIUM" ] || [ -z "$PYTHON" ]; then
  echo "ok $((TESTS_RUN + 1)) - studies render in a browser # SKIP chromium or python3 is not installed"
  TESTS_RUN=$((TESTS_RUN + 1))
  psql -qX -d postgres -c "DROP DATABASE IF EXISTS rr_study_browser" >/dev/null 2>&1
  done_testing
  exit $?
fi
cp "$report" "$OUT/report.html"

# Well-formed SVG, plain ASCII; a self-contained page that parses
"$PYTHON" - "$OUT" > "$OUT/xml.txt" 2>&1 <<'PY'
import sys, os, xml.etree.ElementTree as ET
from html.parser import HTMLParser
d = sys.argv[1]
ns = '{http://www.w3.org/2000/svg}'
for name in ['writepct', 'heat', 'cdm', 'compare']:
    raw = open(os.path.join(d, name + '.svg'), 'rb').read()
    root = ET.fromstring(raw)
    texts = '|'.join(''.join(t.itertext()) for t in root.iter(ns + 'text'))
    print(name, 'ok' if root.tag == ns + 'svg' and max(raw) < 128 else 'bad', texts.replace('\n', ' '))
class P(HTMLParser):
    def __init__(self):
        super().__init__(); self.tags = {}; self.ext = []
    def handle_starttag(self, tag, attrs):
        self.tags[tag] = self.tags.get(tag, 0) + 1
        for k, v in attrs:
            if k in ('src', 'href') and v and not v.startswith('#'):
                self.ext.append(v)
p = P()
p.feed(open(os.path.join(d, 'report.html'), encoding='utf-8').read())
print('report', 'svg=%d' % p.tags.get('svg', 0), 'script=%d' % p.tags.get('script', 0),
      'link=%d' % p.tags.get('link', 0), 'img=%d' % p.tags.get('img', 0), 'external=%d' % len(p.ext))
PY
for name in writepct heat cdm compare; do
  grep -q "^$name ok " "$OUT/xml.txt"
  ok $? "$name.svg is a well-formed, plain-ASCII SVG document"
done
grep '^writepct ' "$OUT/xml.txt" | grep -q '0% writes|.*100% writes'
ok $? "the write-percentage chart has a curve per write percentage in its legend"
grep '^writepct ' "$OUT/xml.txt" | grep -q 'IOPS at 10 ms|vs first'
ok $? "... and the table of IOPS at the bound with the gain against the first"
grep '^compare ' "$OUT/xml.txt" | grep -q "write mix <&\"'>"
ok $? "names with <&\"' read back exactly from the comparison chart"
grep -q '^report svg=[3-9][0-9]* script=0 link=0 img=0 external=0$' "$OUT/xml.txt"
ok $? "the report parses, has its charts inline, no script and nothing external ($(grep '^report' "$OUT/xml.txt"))"
grep -q 'SELECT \* FROM ranread_study(processes =&gt; &#39;{1,2,4}&#39;, write_pct =&gt; &#39;{0,10,20,40,100}&#39;' "$OUT/report.html"
ok $? "the report gives the exact call of each study"
grep -q 'data directory' "$OUT/report.html" && grep -q 'PostgreSQL 15' "$OUT/report.html"
ok $? "the report describes the server (PostgreSQL version, data directory's filesystem and device)"

for name in writepct heat cdm compare; do
  shot "$OUT/$name.svg" "$OUT/$name.png" $(svg_size "$OUT/$name.svg")
  ok $? "Chromium renders $name.svg to $OUT/$name.png"
done
shot "$OUT/report.html" "$OUT/report.png" 1100 6000
ok $? "Chromium renders the report to $OUT/report.png"

PALETTE=('#1c5fa8' '#d9480f' '#2b8a3e' '#ae3ec9' '#f59f00')
BOUND='#c92a2a'
checks=()
for c in "${PALETTE[@]}"; do checks+=("$c:40"); done
pixel_check writepct "each of the five write-percentage curves is painted in its own colour" "${checks[@]}"
pixel_check heat "every cell of the heat table is painted in its colour of the scale" cells "$OUT/heat.svg" 600
pixel_check cdm "the read and the write bars are painted" "${PALETTE[0]}:1000" "${PALETTE[1]}:300"
pixel_check compare "the three curves of the comparison are painted" "${PALETTE[0]}:40" "${PALETTE[1]}:20" "${PALETTE[2]}:40"
pixel_check report "the report's charts are painted in the page" "${PALETTE[0]}:2000" "${PALETTE[1]}:500" "$BOUND:100"

diag "study charts, report and screenshots: $OUT"
psql -qX -d postgres -c "DROP DATABASE IF EXISTS rr_study_browser" >/dev/null 2>&1
done_testing
