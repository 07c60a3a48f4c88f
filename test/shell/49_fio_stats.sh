#!/bin/bash
# What fio shows beside latency, against the kernel's own counters:
#  - device and device_util_pct: the block device under the target is the
#    one /sys/dev/block names for the target file's st_dev; a batch at
#    queue depth 1 finds it busy (> 0) and no more than 100% of the time,
#    and its busy milliseconds (util x seconds) are no more than the
#    device's io_ticks grew across the whole call, read by this test from
#    /sys/block/<dev>/stat before and after it
#  - cpu_user_pct, cpu_sys_pct, cpu_us_per_io: positive, user + system below
#    100% x workers, the two forms agree (% x seconds = us per I/O x I/Os),
#    and the CPU they amount to covers what /proc/<pid>/stat of the workers
#    shows over 5.5 s of the 8 s run (summed over both workers: a figure of one
#    worker, or off by a unit, fails), without being several times more
#  - on FUSE storage (slowfs, test/rig), whose files carry an anonymous
#    device number with no stat in /sys, device and device_util_pct are NULL
#    while the CPU figures are still there
. "$(dirname "$0")/lib/lib.sh"
. "$(dirname "$0")/lib/faults.bash"
. "$(dirname "$0")/../rig/slowfs.sh"

cleanup() {
  faults_cleanup
  psql -qX -d rr_fio -c "SELECT ranread_purge('slow')" >/dev/null 2>&1
  psql -qX -d postgres -c "DROP DATABASE IF EXISTS rr_fio" -c "DROP TABLESPACE IF EXISTS rr_fio_slow" >/dev/null 2>&1
  slowfs_umount_all
}
trap cleanup EXIT
setup_db rr_fio
is "$(q "SELECT size_bytes FROM ranread_setup('256MB')")" 268435456 "a 256 MB target in the data directory"
FILE="$(data_dir)/$(target_path)"

# the device the test finds for the target's file
MAJMIN=$(stat -c '%Hd:%Ld' "$FILE")
SYS=$(readlink -f "/sys/dev/block/$MAJMIN" 2>/dev/null)
if [ -z "$SYS" ] || [ ! -r "$SYS/stat" ]; then
  B=$(q "SELECT batch FROM ranread_run(1, 100)")
  is "$(q "SELECT coalesce(device, 'none') || ' ' || coalesce(device_util_pct::text, 'null') FROM ranread_batches WHERE batch = $B")" \
    "none null" "the target's filesystem has no block device ($MAJMIN): the batch records no device and no utilisation"
  done_testing; exit
fi
DEV=$(basename "$SYS")
ticks() { awk '{ print $10 }' "$SYS/stat"; }

T0=$(ticks)
B=$(q "SELECT batch FROM ranread_run(1, duration => '3s')")
T1=$(ticks)
read -r dev util secs <<< "$(q "SELECT device || ' ' || device_util_pct || ' ' || seconds FROM ranread_batches WHERE batch = $B")"
diag "QD1 for 3 s on $DEV: util $util% over $secs s; the device's io_ticks grew $((T1 - T0)) ms across the call"
is "$dev" "$DEV" "the batch names the device under the target: $DEV ($MAJMIN)"
cmp_ok "$util" ">" 0 "a batch reading at queue depth 1 finds its device busy some of the time"
cmp_ok "$util" "<=" 100 "and no more than all of it"
busy_ms=$(awk -v u="$util" -v s="$secs" 'BEGIN { printf "%.0f", u / 100 * s * 1000 }')
# io_ticks moves in jiffies: allow two of the slowest (HZ 100)
cmp_ok "$busy_ms" "<=" "$((T1 - T0 + 20))" "its busy time ($busy_ms ms) is within what the device's stat counted across the call ($((T1 - T0)) ms)"
is "$(q "SELECT device_util_pct = (SELECT device_util_pct FROM ranread_batches WHERE batch = $B) FROM ranread_groups WHERE batch = $B")" t \
  "its group has the same utilisation"

# CPU: an 8 s batch on two io_uring workers, their /proc/<pid>/stat read
# from 1.5 s to 7 s after the call was sent (it starts some time after)
HZ=$(getconf CLK_TCK)
fields() { sed 's/^.*) //' "/proc/$1/stat"; }	# from field 3 on: field 2 may hold spaces
cpu_of() { # PIDS: utime + stime (fields 14, 15) of each, summed, in ticks
  local sum=0 p
  for p in $1; do sum=$((sum + $(fields "$p" | awk '{ print $12 + $13 }'))); done
  echo $sum
}
sleep_until() { # SECONDS after LAUNCH (the batch starts after it, and runs 8 s)
  sleep "$(awk -v l="$LAUNCH" -v at="$1" -v now="$(date +%s.%N)" 'BEGIN { d = l + at - now; print (d > 0 ? d : 0) }')"
}
LAUNCH=$(date +%s.%N)
psql -qAtX -d rr_fio -c "SET client_min_messages = error" \
  -c "SELECT batch FROM ranread_run(2, duration => '8s', queue_depth => 4, workers => 2)" > "$WORK/batch" &
RUN=$!
pids=""
for _ in $(seq 100); do
  pids=$(psql -qAtX -d postgres -c "SELECT string_agg(pid::text, ' ') FROM pg_stat_activity WHERE backend_type LIKE '%ranread%' AND query ~ '^ranread batch [0-9]+: worker'
                                              AND substring(query from '^ranread batch ([0-9]+)')::bigint > $B")
  [ "$(wc -w <<< "$pids")" -eq 2 ] && break
  sleep 0.1
done
is "$(wc -w <<< "$pids")" 2 "the batch runs two workers"
diag "workers $pids found $(awk -v l="$LAUNCH" -v now="$(date +%s.%N)" 'BEGIN { print now - l }') s after the call"
sleep_until 1.5
C0=$(cpu_of "$pids"); S0=$(date +%s.%N)
sleep_until 7
C1=$(cpu_of "$pids"); S1=$(date +%s.%N)
wait $RUN
B=$(cat "$WORK/batch"); 
read -r usr sys perio ios secs workers <<< "$(q "SELECT cpu_user_pct || ' ' || cpu_sys_pct || ' ' || cpu_us_per_io || ' ' || reads + writes || ' ' || seconds || ' ' || workers FROM ranread_batches WHERE batch = $B")"
proc_s=$(awk -v a="$C0" -v b="$C1" -v hz="$HZ" 'BEGIN { print (b - a) / hz }')
batch_s=$(awk -v p="$perio" -v n="$ios" 'BEGIN { print p * n / 1e6 }')
pct_s=$(awk -v u="$usr" -v s="$sys" -v t="$secs" 'BEGIN { print (u + s) / 100 * t }')
diag "2 workers, 8 s: user $usr%, system $sys%, $perio us per I/O over $ios I/Os = $batch_s s of CPU; /proc showed $proc_s s in $(awk -v a="$S0" -v b="$S1" 'BEGIN { printf "%.1f", b - a }') s"
cmp_ok "$perio" ">" 0 "the CPU per I/O is positive"
cmp_ok "$(awk -v u="$usr" -v s="$sys" 'BEGIN { print u + s }')" "<" "$((100 * workers))" "user + system is below 100% x $workers workers"
cmp_ok "$(awk -v a="$pct_s" -v b="$batch_s" 'BEGIN { d = a - b; if (d < 0) d = -d; print d / b }')" "<=" 0.1 \
  "the percentages over the seconds and the CPU per I/O over the I/Os agree within 10% ($pct_s s, $batch_s s)"
cmp_ok "$batch_s" ">=" "$(awk -v p="$proc_s" 'BEGIN { print p - 0.04 }')" \
  "the batch's CPU covers what /proc showed for its workers over 5.5 of its 8 s"
cmp_ok "$batch_s" "<=" "$(awk -v p="$proc_s" 'BEGIN { print 4 * p + 0.1 }')" "and is not several times more"

if slowfs_build "" 2>/dev/null; then
  MNT="$WORK/mnt"
  slowfs_mount "$WORK/backing" "$MNT" read_delay_us=100
  q "CREATE TABLESPACE rr_fio_slow LOCATION '$(slowfs_pg_dir "$MNT" spc)'" >/dev/null
  q "SELECT ranread_setup('16MB', 'rr_fio_slow', 'slow')" >/dev/null
  SLOWDEV=$(stat -c '%Hd:%Ld' "$(data_dir)/$(target_path slow)")
  B=$(q "SELECT batch FROM ranread_run(1, 200, target => 'slow')")
  is "$(q "SELECT filesystem || ' ' || coalesce(device, 'none') || ' ' || coalesce(device_util_pct::text, 'null') || ' ' || (cpu_us_per_io > 0) FROM ranread_batches WHERE batch = $B")" \
    "fuse.slowfs none null true" "on FUSE storage ($SLOWDEV, not in /sys/dev/block) the batch records no device and no utilisation, and still its CPU"
  q "SELECT ranread_purge('slow')" >/dev/null
else
  ok 0 "# SKIP no FUSE storage to run on: $SLOWFS_WHY"
fi
done_testing
