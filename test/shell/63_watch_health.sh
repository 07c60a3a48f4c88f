#!/bin/bash
# Keeping watch (docs/keeping-watch.md, "Keeping watch"): baselines, verdicts,
# health and its NOTIFY, with real probes of a device that gets slower, on
# slowfs (test/rig): FUSE storage that takes 40 ms per read, then 120 ms (its
# delay changed while mounted, read_delay_us through .slowfs-control).  40 ms,
# not 2: on a machine whose CPUs are shared by many test clusters, slowfs's
# daemon threads and the worker wake late, by up to tens of ms for a whole
# probe (seen: a 10 ms device's probe at p50 33 ms), and that noise must stay
# small beside the device's own latency for a test of one device to be about
# the device.
#  - a probe is ranread_probe's, on the tablespace's probe target
#    (ranread_probe_setup): 3 s at 6 I/Os per second, below what the device
#    does even when 3x slower (a paced batch that falls behind counts the
#    wait in its latency); the probe lists itself in ranread_probes and the
#    trigger there judges it
#  - the first 5 probes make the tablespace's baseline (verdict baseline)
#  - 20 more probes of the unchanged device: every verdict same, status
#    ok, no NOTIFY (no false alarm)
#  - ranread_compare of two probes of the same device: same
#  - the device 3x slower: the next probe's verdict is slower by about 3x,
#    and it reads slower, but one probe changes no status; the third in a
#    row changes it (ok -> slower, hold_probes 3), a session that LISTENs
#    on ranread_health receives one NOTIFY whose JSON says so (the probes,
#    the test, the effect with its interval), and the insert raises the
#    WARNING that goes to the server log; ranread_health shows it
#  - another slow probe changes nothing (no second NOTIFY); with the
#    baseline pinned to the slow probes (ranread_baseline_set) slow probes
#    are the same and read ok, the status ok on the third; the device back
#    to 40 ms: faster, ok
#  - thresholds set below the device, with probes of 200 I/Os (a p99 needs
#    100): degraded, then critical, each on the third probe, each notified
#  - the probes' chart draws them with the baseline
. "$(dirname "$0")/lib/lib.sh"
. "$(dirname "$0")/lib/faults.bash"
. "$(dirname "$0")/../rig/slowfs.sh"

slowfs_build "" || { echo "1..0 # SKIP $SLOWFS_WHY"; exit 0; }
MNT="$WORK/mnt"
LPID=
cleanup() {
  [ -n "$LPID" ] && kill "$LPID" 2>/dev/null
  faults_cleanup
  psql -qX -d "${DB:-postgres}" -c "SELECT ranread_purge('ranread_probe_rr_watch_slow')" >/dev/null 2>&1
  psql -qX -d postgres -c "DROP DATABASE IF EXISTS rr_watch" -c "DROP TABLESPACE IF EXISTS rr_watch_slow" >/dev/null 2>&1
  slowfs_umount_all
}
trap cleanup EXIT

slowfs_mount "$WORK/backing" "$MNT" read_delay_us=40000
ok $? "slowfs is mounted: 40 ms per read"
DIR=$(slowfs_pg_dir "$MNT" spc)
setup_db rr_watch
# some 30 probes back to back, past the share of time that probes may take
# by default (ranread.probe_max_share; docs/keeping-watch.md, "The probe"):
# this file is about verdicts, so its database lets probes take all of it
q "ALTER DATABASE rr_watch SET ranread.probe_max_share = 100" >/dev/null
q "CREATE TABLESPACE rr_watch_slow LOCATION '$DIR'" >/dev/null
is "$(q "SELECT size_bytes FROM ranread_probe_setup('rr_watch_slow', '64MB')")" 67108864 "a 64 MB probe target on it"
# p99 thresholds far above the device's, so that the status follows the
# verdict; the thresholds are tested at the end, set below the device
q "SELECT ranread_health_set('rr_watch_slow', p99_degraded_ms => 1000, p99_critical_ms => 2000, baseline_probes => 5)" >/dev/null

# A session that listens, polling so that psql prints what arrives
LISTEN_OUT="$WORK/listen.out"
( echo "LISTEN ranread_health;"; while sleep 0.2; do echo "SELECT 1;"; done ) |
  psql -qAtX -d "$DB" > "$LISTEN_OUT" 2>&1 &
LPID=$!
notifies() { grep -c 'Asynchronous notification "ranread_health"' "$LISTEN_OUT"; }
wait_n() { local d=$((SECONDS + 5)); while [ "$(notifies)" -lt "$1" ] && [ $SECONDS -lt $d ]; do sleep 0.2; done; sleep 0.5; }

# probe: one probe of the tablespace (see the top), its batch's id
PROBE="SELECT batch FROM ranread_probe('rr_watch_slow', duration => '3s', rate_iops => 6)"
probe() { q "$PROBE"; }
verdicts() {
  q "SELECT batch, ios, round(p50_ms::numeric, 3), round(p99_ms::numeric, 3), verdict, round(factor::numeric, 2), status, reason
       FROM ranread_probe_verdicts WHERE batch >= $1 ORDER BY batch" | sed 's/^/#   /'
}

for i in 1 2 3 4 5; do probe >/dev/null; done
is "$(q "SELECT string_agg(verdict, ',' ORDER BY probed_at) FROM ranread_probe_verdicts")" "baseline,baseline,baseline,baseline,baseline" \
  "the first 5 probes make the baseline"
is "$(q "SELECT cardinality(batches) || ' ' || pinned || ' ' || (ranread_hist_count(histogram) > 80) FROM ranread_baselines WHERE tablespace = 'rr_watch_slow'")" \
  "5 false true" "... which merges their histograms, not pinned"

FIRST=$(probe)
for i in $(seq 2 20); do LAST=$(probe); done
IFS='|' read -r n_same n_ok max_f <<< "$(q "SELECT count(*) FILTER (WHERE verdict = 'same'), count(*) FILTER (WHERE status = 'ok'),
                                                     round(max(p99_factor)::numeric, 2)
                                                FROM ranread_probe_verdicts WHERE batch >= $FIRST")"
diag "20 probes of the unchanged device: $n_same same, $n_ok ok, p99 factor at most $max_f"
is "$n_same $n_ok" "20 20" "20 probes of the unchanged device: every verdict same, every status ok (no false alarm)"
[ "$n_same $n_ok" = "20 20" ] || verdicts 1
sleep 0.5
is "$(notifies)" 0 "... and no NOTIFY on ranread_health"
cv=$(q "SELECT verdict FROM ranread_compare($FIRST, $LAST)")
is "$cv" same "ranread_compare of two probes of the same device: same"
[ "$cv" = same ] || q "SELECT * FROM ranread_compare($FIRST, $LAST)" | sed 's/^/#   /'

# the device 3x slower: every probe reads slower, the status follows on
# the third in a row (hold_probes 3: one probe never changes a status)
echo read_delay_us=120000 > "$MNT/.slowfs-control"
ok $? "slowfs takes 120 ms per read from now on"
B=$(probe)
IFS='|' read -r verdict factor pstatus status <<< "$(q "SELECT verdict, round(factor::numeric, 2), probe_status, status FROM ranread_probe_verdicts WHERE batch = $B")"
diag "the first probe 3x slower: $verdict, factor $factor, reads $pstatus, status $status"
is "$verdict" slower "a probe of the device made 3x slower: verdict slower"
[ "$verdict" = slower ] || verdicts "$B"
cmp_ok "$factor" ">=" 2.4 "... by a factor of about 3 (at least 2.4)"
cmp_ok "$factor" "<=" 4 "... (at most 4: a tail event of one probe may add to its p99)"
is "$pstatus $status" "slower ok" "... it reads slower, and the tablespace stays ok: one probe changes no status"
B1=$B
B2=$(probe)
B=$(psql -qAtX -d "$DB" -c "$PROBE" 2> "$WORK/warn")
warn=$(cat "$WORK/warn")
IFS='|' read -r status prev probes <<< "$(q "SELECT status, previous_status, array_to_string(probes, ',') FROM ranread_probe_verdicts WHERE batch = $B")"
is "$status $prev" "slower ok" "the third slow probe in a row changes the status from ok to slower (than its baseline)"
is "$probes" "$B1,$B2,$B" "... naming the three probes it rests on"
echo "$warn" | grep -q 'WARNING:  ranread: tablespace "rr_watch_slow" is now slower (was ok): probes '"$B1, $B2, $B"
ok $? "... the probe raises the WARNING the server log gets" || diag "$warn"
echo "$warn" | grep -q "test: Mann-Whitney U test of the middle (p50): p [^,]*, below alpha 0.001"
ok $? "... which names the test that decided" || diag "$warn"
wait_n 1
is "$(notifies)" 1 "a session listening on ranread_health receives one NOTIFY"
payload=$(sed -n 's/^Asynchronous notification "ranread_health" with payload "\(.*\)" received from server process.*/\1/p' "$LISTEN_OUT" | head -1)
is "$(echo "$payload" | jq -r '[.tablespace, .status, .previous_status, .verdict, (.batch | tostring), (.probes | map(tostring) | join(",")), (.hold_probes | tostring)] | join(" ")')" \
   "rr_watch_slow slower ok slower $B $B1,$B2,$B 3" "... whose JSON payload names the tablespace, the status, the one before, the verdict, the probe and the probes it rests on"
echo "$payload" | jq -e '(.test | startswith("Mann-Whitney U test")) and (.effect | test("^p50 [0-9.]+x the baseline.s \\(99.9% interval [0-9.]+x to [0-9.]+x\\)$")) and (.factor_low <= .factor) and (.factor <= .factor_high)' >/dev/null
ok $? "... the test that decided and the effect with its interval" || diag "$payload"
is "$(q "SELECT status || ' ' || verdict || ' ' || last_batch || ' ' || (change = (SELECT round(p99_factor::numeric, 3) FROM ranread_probe_verdicts WHERE batch = $B))
           FROM ranread_health WHERE tablespace = 'rr_watch_slow'")" \
   "slower slower $B true" "ranread_health shows the tablespace slower, its last probe, the change (its p99 over the baseline's; of 18 I/Os, p99 is the slowest one, so no size is asserted)"

B4=$(probe)
wait_n 2
is "$(q "SELECT status FROM ranread_probe_verdicts WHERE batch = $B4") $(notifies)" "slower 1" \
  "another probe of the slow device: still slower, no second NOTIFY"

# a pinned baseline: the slow probes
q "SELECT ranread_baseline_set('rr_watch_slow', ARRAY[$B1, $B2, $B])" >/dev/null
P1=$(probe); P2=$(probe); P3=$(probe)
is "$(q "SELECT string_agg(verdict || '/' || probe_status || '/' || status, ' ' ORDER BY batch) FROM ranread_probe_verdicts WHERE batch IN ($P1, $P2, $P3)")" \
   "same/ok/slower same/ok/slower same/ok/ok" \
  "against a baseline pinned to the slow probes, slow probes are the same and read ok; the status follows on the third"
wait_n 2
is "$(notifies)" 2 "... a change of status that is notified too"
echo read_delay_us=40000 > "$MNT/.slowfs-control"
B5=$(probe)
is "$(q "SELECT verdict || ' ' || probe_status || ' ' || status FROM ranread_probe_verdicts WHERE batch = $B5")" "faster ok ok" \
  "the device back to 40 ms: faster than the pinned baseline, ok"

# the thresholds: p99 above p99_degraded_ms is degraded, above
# p99_critical_ms critical, by the exact binomial test of the I/Os above
# them, which needs 100 I/Os a probe (a p99 of fewer is their slowest):
# probes of 200 I/Os of the device at 2 ms, every one above the thresholds
echo read_delay_us=2000 > "$MNT/.slowfs-control"
FAST="SELECT batch FROM ranread_probe('rr_watch_slow', duration => '1s', rate_iops => 200)"
is "$(q "SELECT probe_status || ' ' || (test LIKE 'p99 not judged against 1000 ms: % I/Os, fewer than the 100 it needs%')::text FROM ranread_probe_verdicts WHERE batch = $B5")" "ok true" \
  "(a probe of 18 I/Os does not judge p99 against a threshold, and says so)"
q "SELECT ranread_health_set('rr_watch_slow', p99_degraded_ms => 0.5, p99_critical_ms => 5000)" >/dev/null
D1=$(q "$FAST"); D2=$(q "$FAST"); D3=$(q "$FAST")
is "$(q "SELECT string_agg(probe_status || '/' || status, ' ' ORDER BY batch) FROM ranread_probe_verdicts WHERE batch IN ($D1, $D2, $D3)")" \
   "degraded/ok degraded/ok degraded/degraded" "probes whose p99 is above p99_degraded_ms read degraded; the third makes the status degraded"
q "SELECT test FROM ranread_probe_verdicts WHERE batch = $D3" | grep -q '^exact binomial test of the I/Os slower than 0.5 ms (p99 is above it when more than 1% are): p [^,]*, below alpha 0.001$'
ok $? "... by the exact binomial test, named"
q "SELECT ranread_health_set('rr_watch_slow', p99_degraded_ms => 0.5, p99_critical_ms => 1)" >/dev/null
C1=$(q "$FAST"); C2=$(q "$FAST"); C3=$(q "$FAST")
is "$(q "SELECT string_agg(probe_status || '/' || status, ' ' ORDER BY batch) FROM ranread_probe_verdicts WHERE batch IN ($C1, $C2, $C3)")" \
   "critical/degraded critical/degraded critical/critical" "... above p99_critical_ms: critical, on the third"
wait_n 4
is "$(notifies)" 4 "... each change notified"
is "$(sed -n 's/^Asynchronous notification "ranread_health" with payload "\(.*\)" received from server process.*/\1/p' "$LISTEN_OUT" | jq -r .status | tr '\n' ' ')" \
   "slower ok degraded critical " "... in order: slower, ok, degraded, critical"

q "SELECT ranread_probe_chart('rr_watch_slow')" > "$WORK/probes.svg"
grep -q '>baseline p99</text>' "$WORK/probes.svg"
ok $? "the probes' chart draws the baseline's p99"
grep -q '>Probes of tablespace rr_watch_slow: p50 and p99 latency</text>' "$WORK/probes.svg"
ok $? "... under its title"

kill "$LPID" 2>/dev/null; LPID=
done_testing
