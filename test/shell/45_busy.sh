#!/bin/bash
# No latency goes missing when a submit blocks (docs/design.md, rule 7), on
# slowfs (test/rig): FUSE storage that takes 2 ms per read and at most 12
# requests in flight, so that a 13th submit sleeps in the kernel.
#  - 16 unpaced processes at queue depth 1 on two io_uring workers: Little's
#    law holds, 16 always-busy streams need avg latency = 16 / IOPS, within
#    2%.  On 1.0 a blocked submit left the other freed slots idle, uncounted:
#    5,598 IOPS at avg 2.668 ms, where 16 / 5,598 s is 2.858 ms (0.93).
#  - the batch records its "busy" figure (sum of latencies over seconds x
#    queue depth) at >= 0.98, per batch and per process
#  - a self-check: with the submissions throttled by a rate limit the figure
#    does not apply (NULL), and the summary's notes stay empty for a busy batch
. "$(dirname "$0")/lib/lib.sh"
. "$(dirname "$0")/lib/faults.bash"
. "$(dirname "$0")/../rig/slowfs.sh"

slowfs_build "" || { echo "1..0 # SKIP $SLOWFS_WHY"; exit 0; }
MNT="$WORK/mnt"
cleanup() {
  faults_cleanup
  psql -qX -d "${DB:-postgres}" -c "SELECT ranread_purge('slow')" >/dev/null 2>&1
  psql -qX -d postgres -c "DROP DATABASE IF EXISTS rr_busy" -c "DROP TABLESPACE IF EXISTS rr_slow" >/dev/null 2>&1
  slowfs_umount_all
}
trap cleanup EXIT

slowfs_mount "$WORK/backing" "$MNT" read_delay_us=2000
ok $? "slowfs is mounted: 2 ms per read, at most 12 requests in flight"
DIR=$(slowfs_pg_dir "$MNT" spc)
setup_db rr_busy
q "CREATE TABLESPACE rr_slow LOCATION '$DIR'" >/dev/null
is "$(q "SELECT size_bytes FROM ranread_setup('128MB', 'rr_slow', 'slow')")" 134217728 "a 128 MB target on it"
B=$(q "SELECT batch FROM ranread_run(2, 20, target => 'slow')")
is "$(q "SELECT filesystem FROM ranread_summary_full WHERE batch = $B")" fuse.slowfs \
  "a batch there records the filesystem it read: fuse.slowfs"

B=$(q "SELECT batch FROM ranread_run(16, duration => '4s', target => 'slow', workers => 2)")
read -r iops avg busy minbusy engine <<< "$(q "SELECT round(iops) || ' ' || avg_ms || ' ' || busy || ' ' ||
    (SELECT min(busy) FROM ranread_results r WHERE r.batch = s.batch) || ' ' || engine FROM ranread_summary_full s WHERE batch = $B")"
diag "16 processes at QD1 on slowfs: $iops IOPS, avg $avg ms, busy $busy (lowest process $minbusy), engine $engine, in flight at most $(slowfs_stats "$MNT" max_in_flight)"
is "$engine" io_uring "the batch ran on io_uring (8 processes per worker)"
little=$(awk -v i="$iops" -v a="$avg" 'BEGIN { printf "%.4f", i * a / 1000 / 16 }')
cmp_ok "$little" '>=' 0.98 "Little's law holds: IOPS x avg latency / 16 streams = $little (1.0 had 0.93)"
cmp_ok "$little" '<=' 1.02 "... and not above 1 either ($little)"
cmp_ok "$busy" '>=' 0.98 "the batch records busy = $busy"
cmp_ok "$minbusy" '>=' 0.98 "... and so does every process (lowest $minbusy)"
is "$(q "SELECT coalesce(notes, '') NOT LIKE '%were busy only%' FROM ranread_summary_full WHERE batch = $B")" t \
  "... with no note of a low busy in the summary (a small target's cache note may be there)"
cmp_ok "$(slowfs_stats "$MNT" max_in_flight)" '<=' 12 "the storage never had more than 12 reads in flight: submits blocked"

B=$(q "SELECT batch FROM ranread_run(4, duration => '1s', target => 'slow', rate_iops => 200)")
is "$(q "SELECT busy IS NULL FROM ranread_summary_full WHERE batch = $B")" t "a paced batch records no busy figure: its streams wait by design"

q "SELECT ranread_purge('slow')" >/dev/null
q "DROP TABLESPACE rr_slow" >/dev/null
done_testing
