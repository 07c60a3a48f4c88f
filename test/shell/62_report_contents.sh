#!/bin/bash
# The report of the history holds everything (docs/charts-and-reports.md,
# "The report"), from a real history: a commit test, a run, a week of
# probes of pg_default, a durability check's row and a verify error's row
# (those two as their functions record them: the check needs a power cut,
# the error a corrupt block):
#  - its sections, in the order its contents list them: the server, the
#    advice, the health of the watched tablespaces, the commit tests, the
#    durability checks, the verify errors, the heatmap, the latest batches
#  - the commit test: a row per method with the number of its rounds
#  - the advice: each setting ranread_advise() gives now, measuring
#    nothing, and each one's evidence and formula
#  - the health: each watched tablespace with its status from ranread_health,
#    and its probes' chart
#  - the durability check's verdict; no verify error, then the one found
#  - each batch with its workload and sync method: the commit test's rows
#    are told apart from the reads
#  - the heatmap's subtitle whole (it was cut at the picture's edge)
#  - in headless Chromium at 800, 1200 and 1600 px: the page no wider than
#    the window (tables scroll in their own box), no short cell wrapped, no
#    text of its charts clipped or overlapping (layout.py); screenshots in
#    the test log directory
# Needs chromium and python3 for the browser part.
. "$(dirname "$0")/lib/lib.sh"
. "$(dirname "$0")/lib/browser.bash"

CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
PYTHON=$(command -v python3 || true)
OUT="$TMPDIR_TEST/report"
mkdir -p "$OUT"
setup_db rr_report_contents
qq() { psql -qAtX -d "$DB" -c "SET client_min_messages = warning" -c "$1"; }
qq "SELECT count(*) FROM ranread_setup('64MB')" >/dev/null
CT=$(qq "SELECT DISTINCT commit_test FROM ranread_commit_test(duration => '1s')")
ok $? "a commit test ($CT)"
RUN=$(qq "SELECT batch FROM ranread_run(1, duration => '2s')")
ok $? "a run of QD1 random reads (batch $RUN)"
for d in 6 5 4 3 2 1; do
  b=$(qq "SELECT batch FROM ranread_run(1, duration => '1s', rate_iops => 200)")
  q "INSERT INTO ranread_probes (batch, tablespace, probed_at) VALUES ($b, 'pg_default', now() - interval '$d days')" >/dev/null
done
is "$(q "SELECT count(*) FROM ranread_health WHERE tablespace = 'pg_default' AND status <> 'unknown'")" 1 \
  "a week of probes: pg_default is watched and judged"

report() { q "DROP TABLE IF EXISTS rep; CREATE TABLE rep AS SELECT ranread_report() AS h" >/dev/null; q "SELECT h FROM rep" > "$OUT/$1.html"; }
report clean
sec() { echo "substring((SELECT h FROM rep) FROM '<section id=\"$1\">.*?</section>')"; }

is "$(q "SELECT string_agg(m[1], ' ' ORDER BY n) FROM rep, regexp_matches(h, '<section id=\"([^\"]+)\">', 'g') WITH ORDINALITY x(m, n)")" \
  "server advice health commit-tests durability verify latency-heatmap batches" \
  "the report of the history: server, advice, health, commit tests, durability, verify, heatmap, batches"
is "$(q "SELECT string_agg(m[1], ' ' ORDER BY n) FROM rep, regexp_matches(substring(h FROM '<nav>.*</nav>'), '<a href=\"#([^\"]+)\">', 'g') WITH ORDINALITY x(m, n)")" \
  "advice health commit-tests durability verify batches" "... and its contents link to them"

# the commit test: a row per method, with its rounds
is "$(q "SELECT count(*) FROM (SELECT c.test, c.method, c.write_kb, count(*) AS n FROM ranread_commit_summary c
                                WHERE c.commit_test = $CT GROUP BY c.test, c.method, c.write_kb) m
          WHERE $(sec commit-tests) !~ format('<td>%s</td><td>%s</td><td>(yes|no|)</td><td>%s</td><td>%s</td>',
                                              m.test, m.method, m.write_kb, m.n)")" 0 \
  "the commit tests: a row for each test, method and size of write of commit test $CT, with the number of its rounds" ||
  q "SELECT $(sec commit-tests)" | head -c 3000 | sed 's/^/# /'
is "$(q "SELECT count(DISTINCT method) >= 2 FROM ranread_commit_summary WHERE commit_test = $CT")" t \
  "... (the test timed several methods)"

# the advice, as ranread_advise() gives it now
q "CREATE TABLE adv AS SELECT * FROM ranread_advise()" >/dev/null
is "$(q "SELECT count(*) FROM adv")" "$(q "SELECT count(*) FROM adv a WHERE position('<tr><td>' || ranread_internal.ranread_html(a.setting) || '</td>' IN $(sec advice)) > 0
                                                                 AND (nullif(a.figures, '') IS NULL OR position('<li>Evidence: ' || ranread_internal.ranread_html(a.figures) || '</li>' IN $(sec advice)) > 0)
                                                                 AND (nullif(a.formula, '') IS NULL OR position('<li>Formula: ' || ranread_internal.ranread_html(a.formula) || '</li>' IN $(sec advice)) > 0)")" \
  "the advice: every setting ranread_advise() gives, with its evidence and formula"
is "$(q "SELECT count(*) > 3 AND count(nullif(figures, '')) > 3 FROM adv")" t "... ($(q "SELECT string_agg(setting, ', ') FROM adv"), most with their evidence)"
is "$(q "SELECT count(*) FROM adv a WHERE nullif(a.warning, '') IS NULL AND position('<li><b>' || a.setting || '</b><ul>' IN $(sec advice)) > 0
                                     AND substring($(sec advice) FROM '<li><b>' || a.setting || '</b><ul>.*?</ul></li>') ~ 'Warning'")" 0 \
  "... and a warning only where the advice has one"
is "$(q "SELECT $(sec advice) ~ 'gave no advice'")" f "... and no error instead"

# the health
st=$(q "SELECT status FROM ranread_health WHERE tablespace = 'pg_default'")
is "$(q "SELECT $(sec health) ~ '<tr><td>pg_default</td><td>$st</td>'")" t "the health: pg_default with its status ($st)"
is "$(q "SELECT $(sec health) ~ '<figure><svg[^>]*>\s*<title>Probes of tablespace pg_default'")" t "... and its probes' chart"

# no durability check, no verify error yet
is "$(q "SELECT $(sec durability) ~ 'No durability check has run'")" t "no durability check: the report says so"
is "$(q "SELECT $(sec verify) ~ 'No verify error is recorded'")" t "no verify error: the report says so"

# batches: workload and sync
ctb=$(q "SELECT min(batch) FROM ranread_commit_summary WHERE commit_test = $CT AND method = 'fdatasync'")
is "$(q "SELECT $(sec batches) ~ '<tr><td>$ctb</td><td>[^<]*</td><td>[^<]*</td><td>sequential 8K writes</td><td>fdatasync</td>'")" t \
  "a commit test's batch ($ctb) has its workload and its sync method"
is "$(q "SELECT $(sec batches) ~ '<tr><td>$RUN</td><td>[^<]*</td><td>[^<]*</td><td>random 8K reads</td><td>none</td>'")" t \
  "a run's batch ($RUN): random 8K reads, no sync"
is "$(q "SELECT $(sec batches) ~ '<th>workload</th><th>sync</th>'")" t "... under the headers workload and sync"

# the heatmap's subtitle whole
sub=$(q "SELECT ranread_internal.ranread_latency_heat_spec(max(batch)) ->> 'subtitle' FROM ranread_intervals WHERE histogram IS NOT NULL")
is "$(q "SELECT position('>' || ranread_internal.ranread_html('$sub') || '</text>' IN $(sec latency-heatmap)) > 0")" t \
  "the heatmap's subtitle is whole ($sub)"

# a durability check and a verify error, as their functions record them
q "INSERT INTO ranread_durability (tablespace, method, duration, blocks, status, acknowledged, checked,
                                   checked_writes, lost, torn, unacknowledged, verdict)
   VALUES ('pg_default', 'fdatasync', '10s', 128, 'checked', 5000, now(), 5000, 3, 0, 0,
           'lost 3 acknowledged writes: the storage does not honour flushes')" >/dev/null
q "INSERT INTO ranread_verify_errors (batch, grp, target, block, kind, expected, found, at)
   VALUES ($RUN, 1, 'ranread', 4242, 'corrupt', 'checksum 1', 'checksum 2', now())" >/dev/null
report found
is "$(q "SELECT $(sec durability) ~ '<td( class=\"wrap\")?>lost 3 acknowledged writes: the storage does not honour flushes</td>'")" t \
  "a durability check: the report gives its verdict"
is "$(q "SELECT $(sec verify) ~ '<tr><td>$RUN</td><td>ranread</td><td>4242</td><td>corrupt</td>'")" t \
  "a verify error: the report lists the block and what was wrong"

if [ -z "$CHROMIUM" ] || [ -z "$PYTHON" ]; then
  echo "ok - layout in a browser # SKIP chromium or python3 is not installed"
  done_testing
  exit 0
fi
for w in 800 1200 1600; do
  "$PYTHON" "$(dirname "$0")/lib/layout.py" "$CHROMIUM" "$OUT/found.html" "$OUT" $w > "$OUT/found.$w.layout.txt" 2>&1
  ok $? "the report at $w px: no wider than the window, no short cell wrapped, no text of its charts clipped, overlapping or tiny" ||
    head -20 "$OUT/found.$w.layout.txt" | sed 's/^/# /'
  shot "$OUT/found.html" "$OUT/found.$w.png" $w 5000
  ok $? "Chromium renders the report to $OUT/found.$w.png"
done

diag "reports and screenshots: $OUT"
psql -qX -d postgres -c "DROP DATABASE IF EXISTS rr_report_contents" >/dev/null 2>&1
done_testing
