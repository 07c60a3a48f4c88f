#!/bin/bash
# Verdicts that noise cannot flip (docs/design.md, "Comparing batches and
# keeping watch"), with real probes of the rig (test/rig: slowfs, a FUSE
# device with a settable latency and a tail):
#  - a device whose p99 sits on the degraded threshold of 5 ms: its body at
#    0.3 ms, a tail of 1% of reads, each drawn at random, at 8 ms; each
#    probe's own p99 falls on either side of 5 ms (a point verdict flaps),
#    yet the status changes at most once in 12 probes after the baseline
#  - the baseline: 5 probes, the third of which meets a stalled device (10x
#    slower for that probe): left out of the baseline and named
#  - the body 3x slower (0.9 ms): caught within hold_probes (3) probes,
#    the verdict naming the test that decided (Mann-Whitney U, p50) and its
#    effect with an interval
# Probes of 5 s at 400 I/Os per second (2000 I/Os, enough for p99 and
# below what the device does even 3x slower).  It prints what it measured:
# each probe's own reading, the status changes, the detection delay.
. "$(dirname "$0")/lib/lib.sh"
. "$(dirname "$0")/../rig/slowfs.sh"

slowfs_build "" || { echo "1..0 # SKIP $SLOWFS_WHY"; exit 0; }
MNT="$WORK/mnt"
TS=rr_noise
cleanup() {
  psql -qX -d "${DB:-postgres}" -c "SELECT ranread_purge('ranread_probe_$TS')" >/dev/null 2>&1
  psql -qX -d postgres -c "DROP DATABASE IF EXISTS rr_noise" -c "DROP TABLESPACE IF EXISTS $TS" >/dev/null 2>&1
  slowfs_umount_all
}
trap cleanup EXIT

slowfs_mount "$WORK/backing" "$MNT" read_delay_us=300,read_tail_ppm=10000,read_tail_us=8000
ok $? "slowfs is mounted: reads take 0.3 ms, 1% of them 8 ms"
setup_db rr_noise
q "CREATE TABLESPACE $TS LOCATION '$(slowfs_pg_dir "$MNT" spc)'" >/dev/null
q "SELECT size_bytes FROM ranread_probe_setup('$TS', '64MB')" >/dev/null
is "$(q "SELECT p99_degraded_ms || ' ' || p99_critical_ms || ' ' || hold_probes FROM ranread_internal.ranread_health_thresholds_of('$TS')")" "5 10 3" \
  "the default thresholds: degraded above 5 ms, critical above 10 ms, 3 probes in a row"

PROBE="SELECT batch FROM ranread_probe('$TS', duration => '5s', rate_iops => 400)"
probe() { q "$PROBE"; }
show() {
  q "SELECT batch, ios, round(p50_ms::numeric, 3), round(p99_ms::numeric, 3), coalesce(verdict, '-'), probe_status, status
       FROM ranread_probe_verdicts WHERE batch >= $1 ORDER BY batch" | sed 's/^/#   /'
}

# the baseline: five probes, the third of a stalled device
P1=$(probe); P2=$(probe)
echo read_delay_us=3000 > "$MNT/.slowfs-control"
STALL=$(probe)
echo read_delay_us=300 > "$MNT/.slowfs-control"
P4=$(probe); P5=$(probe)
is "$(q "SELECT left_out FROM ranread_baselines WHERE tablespace = '$TS'")" "{$STALL}" \
  "a baseline probe of the stalled device (reads 10x slower) is left out of the baseline"
q "SELECT left_out_reason FROM ranread_baselines WHERE tablespace = '$TS'" | grep -q "^left out probe $STALL is slower than the [0-9] near the median probe (p50 [0-9.]*x theirs, Mann-Whitney U test p [^,]*, below alpha 0.001)$"
ok $? "... named, with the test that found it" || q "SELECT * FROM ranread_baselines" | sed 's/^/#   /'
is "$(q "SELECT ranread_hist_count(histogram) = (SELECT sum(reads) FROM ranread_batches WHERE batch IN ($P1, $P2, $P4, $P5)) FROM ranread_baselines WHERE tablespace = '$TS'")" t \
  "... the baseline merges the other four"

# 12 probes of the device whose p99 sits on 5 ms
FIRST=$(probe)
for i in $(seq 2 12); do probe >/dev/null; done
show "$P1"
IFS='|' read -r n above changes readings <<< "$(q "SELECT count(*), count(*) FILTER (WHERE p99_ms > 5),
                                                       count(*) FILTER (WHERE status IS DISTINCT FROM previous_status),
                                                       count(*) FILTER (WHERE probe_status <> 'ok')
                                                  FROM ranread_probe_verdicts WHERE tablespace = '$TS' AND batch >= $FIRST")"
diag "12 probes on the threshold: $above with their own p99 above 5 ms, $readings read other than ok, $changes status changes"
is "$n" 12 "12 probes judged after the baseline"
cmp_ok "$changes" '<=' 1 "the status changes at most once in them"
tails=$(slowfs_stats "$MNT" tail_reads)
diag "the rig drew $tails tail reads of $(slowfs_stats "$MNT" reads)"

# the body 3x slower
echo read_delay_us=900 > "$MNT/.slowfs-control"
ok $? "slowfs reads take 0.9 ms from now on (the tail stays)"
SLOW=$(probe); n=1
while [ "$(q "SELECT status FROM ranread_probe_verdicts WHERE batch = (SELECT max(batch) FROM ranread_probe_verdicts)")" != slower ] && [ $n -lt 6 ]; do
  probe >/dev/null; n=$((n + 1))
done
show "$SLOW"
diag "detection delay: the status was slower after $n probes of the slower device"
cmp_ok "$n" '<=' 3 "a body 3x slower is caught within hold_probes (3) probes"
L=$(q "SELECT max(batch) FROM ranread_probe_verdicts")
IFS='|' read -r status test effect lo hi <<< "$(q "SELECT status, test, effect, round(factor_low::numeric, 2), round(factor_high::numeric, 2) FROM ranread_probe_verdicts WHERE batch = $L")"
is "$status" slower "... status slower"
echo "$test" | grep -q "^Mann-Whitney U test of the middle (p50): p [^,]*, below alpha 0.001, at least 1.25x apart and past the spread of the baseline's probes$"
ok $? "... the verdict names the test that decided it" || diag "$test"
echo "$effect" | grep -qE "^p50 [0-9.]+x the baseline's \(99.9% interval [0-9.]+x to [0-9.]+x\)$"
ok $? "... and the effect with its interval ($effect)"
cmp_ok "$lo" '>=' 1.5 "... whose low end is well above 1 (the body 0.3 + 0.1 ms of FUSE to 0.9 + 0.1 ms: about 2.5x)"

done_testing
