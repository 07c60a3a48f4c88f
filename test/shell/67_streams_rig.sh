#!/bin/bash
# Groups of a mix on two devices of known latency (test/rig: slowfs, FUSE
# storage that takes a set time per read) each get their own device's
# latency (docs/design.md, "Processes, streams, workers, engines";
# src/run/placement.c).  fast: 1 ms per read, room for 64 requests in flight;
# slow: 8 ms per read, FUSE's default of 12 in flight, so that with 16
# processes reading it a submit sleeps in the kernel until one of its reads
# completes (test/rig/README.md).
#  - with the default placement (a group's own workers), the fast group's
#    reads take its device's 1 ms although the slow group's submits block:
#    on 1.1 its workers also drove slow processes, whose blocked submits
#    held up the reaping of the fast reads (avg 3.1 ms on two workers, 6.5
#    ms on one)
#  - in one worker, on two devices whose submits never block, each group
#    still gets its own device's latency: the loop reaps each completion as
#    it comes, never waiting for another stream's
#  - one worker for a fast group and a slow device whose submits block: the
#    groups share it, and the batch's notes say so
. "$(dirname "$0")/lib/lib.sh"
. "$(dirname "$0")/lib/faults.bash"
. "$(dirname "$0")/../rig/slowfs.sh"

slowfs_build "" || { echo "1..0 # SKIP $SLOWFS_WHY"; exit 0; }
cleanup() {
  faults_cleanup
  psql -qX -d rr_rig2 -c "SELECT ranread_purge(t) FROM unnest(ARRAY['fast', 'slow', 'slow64']) t" >/dev/null 2>&1
  psql -qX -d postgres -c "DROP DATABASE IF EXISTS rr_rig2" -c "DROP TABLESPACE IF EXISTS rr_fast" \
    -c "DROP TABLESPACE IF EXISTS rr_slow" -c "DROP TABLESPACE IF EXISTS rr_slow64" >/dev/null 2>&1
  slowfs_umount_all
}
trap cleanup EXIT

slowfs_mount "$WORK/b1" "$WORK/m1" read_delay_us=1000,max_background=64 &&
  slowfs_mount "$WORK/b8" "$WORK/m8" read_delay_us=8000 &&
  slowfs_mount "$WORK/b64" "$WORK/m64" read_delay_us=8000,max_background=64
ok $? "three slowfs mounts: 1 ms (64 in flight), 8 ms (12 in flight), 8 ms (64 in flight)"
setup_db rr_rig2
q "CREATE TABLESPACE rr_fast LOCATION '$(slowfs_pg_dir "$WORK/m1" spc)'" >/dev/null
q "CREATE TABLESPACE rr_slow LOCATION '$(slowfs_pg_dir "$WORK/m8" spc)'" >/dev/null
q "CREATE TABLESPACE rr_slow64 LOCATION '$(slowfs_pg_dir "$WORK/m64" spc)'" >/dev/null
is "$(q "SELECT string_agg(target::text, ' ') FROM (SELECT (ranread_setup('64MB', s, t)).target
         FROM (VALUES ('rr_fast', 'fast'), ('rr_slow', 'slow'), ('rr_slow64', 'slow64')) v(s, t)) x")" "fast slow slow64" \
  "a 64 MB target on each"

# mix FAST SLOW_TARGET SLOW_PROCESSES [WORKERS]: a 3 s mix; sets B and prints
# per group "label workers p50 avg p99"
mix() {
  B=$(q "SELECT batch FROM ranread_mix('[{\"label\": \"fast\", \"processes\": $1, \"target\": \"fast\"},
                                        {\"label\": \"slow\", \"processes\": $3, \"target\": \"$2\"}]',
                                       duration => '3s'${4:+, workers => $4}) WHERE grp = 0")
  diag "$(q "SELECT string_agg(format('%s: %s workers, %s IOPS, avg %s ms, p50 %s, p99 %s', label, workers, round(iops),
                                      round(avg_ms::numeric, 2), round(p50_ms::numeric, 2), round(p99_ms::numeric, 2)), '; ' ORDER BY grp)
             FROM ranread_groups WHERE batch = $B")"
}
fig() { q "SELECT round($2::numeric, 3) FROM ranread_groups WHERE batch = $B AND label = '$1'"; }

# the default placement; the slow device's submits block
mix 4 slow 16
cmp_ok "$(slowfs_stats "$WORK/m8" max_in_flight)" '<=' 12 "the slow device had at most 12 reads in flight: its submits blocked"
is "$(q "SELECT count(*) FROM (SELECT worker FROM ranread_results WHERE batch = $B GROUP BY worker HAVING count(DISTINCT grp) > 1) x")" 0 \
  "by default no worker drives both groups"
cmp_ok "$(fig fast p50_ms)" '<' 1.6 "the fast group's median is its device's 1 ms ($(fig fast p50_ms) ms)"
cmp_ok "$(fig fast avg_ms)" '<' 2.0 "... and so is its average ($(fig fast avg_ms) ms; 1.1: 3.1 ms)"
cmp_ok "$(fig slow p50_ms)" '>=' 8 "the slow group's median is at least its device's 8 ms ($(fig slow p50_ms) ms)"

# one worker, submits that never block
mix 4 slow64 4 1
is "$(q "SELECT workers FROM ranread_batches WHERE batch = $B")" 1 "workers => 1: one worker drives both groups"
cmp_ok "$(fig fast p50_ms)" '<' 1.6 "in one worker the fast group's median is still its device's 1 ms ($(fig fast p50_ms) ms)"
# (p95, not p99: on a loaded 2-CPU machine the FUSE daemon's own waits for
# a CPU reach the fast group's last percent, 12.6 ms once at a load of 8)
cmp_ok "$(fig fast p95_ms)" '<' "$(fig slow p50_ms)" "... its p95 below the slow device's median ($(fig fast p95_ms) ms)"
cmp_ok "$(fig slow p50_ms)" '>=' 8 "... and the slow group's median its own device's 8 ms ($(fig slow p50_ms) ms)"
cmp_ok "$(fig slow p50_ms)" '<' 9.6 "... not more ($(fig slow p50_ms) ms)"

# one worker, and the slow device's submits block: the groups share it, and it says so
mix 4 slow 16 1
is "$(q "SELECT notes ~ 'groups shared workers' FROM ranread_batches WHERE batch = $B")" t \
  "one worker for a fast group and a slow device whose submits block: the notes say the groups shared it (fast avg $(fig fast avg_ms) ms)"

done_testing
