#!/bin/bash
# The server path on storage of known latency (test/rig: slowfs, 2 ms per
# read, at most 12 requests in flight), beside the device path:
#  - latency: a server-path read that the device serves takes at least what
#    the device path's O_DIRECT read takes; the stated margin is 5% of the
#    median (both are the rig's 2 ms plus FUSE's round trip; the server path
#    adds the buffer lookup and a copy, never less)
#  - prefetch: effective_io_concurrency N shows at the rig as N + 1 reads
#    in flight at once (one process, capped by the rig's 12), and none
#    beyond the one read with 0; IOPS grow with it
#  - caches: a batch whose reads the page cache answered (a small region,
#    warmed up) records its cache share, says in a WARNING and in its notes
#    that its figures are not the disk's, and the rig saw almost none of
#    its reads; a batch the device served says so in its NOTICE
#  - ranread_paths: each prefetch distance N beside the device path at
#    queue depth N + 1, rounds alternated, the ratio in words; ranread_advise
#    then suggests effective_io_concurrency from those server-path batches,
#    citing them, and another suggestion when the rig is made again with
#    fewer requests in flight
. "$(dirname "$0")/lib/lib.sh"
. "$(dirname "$0")/lib/faults.bash"
. "$(dirname "$0")/../rig/slowfs.sh"

slowfs_build "" || { echo "1..0 # SKIP $SLOWFS_WHY"; exit 0; }
MNT="$WORK/mnt"
cleanup() {
  faults_cleanup
  psql -qX -d "${DB:-postgres}" -c "SELECT ranread_purge('slow')" >/dev/null 2>&1
  psql -qX -d postgres -c "DROP DATABASE IF EXISTS rr_server_rig" -c "DROP TABLESPACE IF EXISTS rr_slow" >/dev/null 2>&1
  slowfs_umount_all
}
trap cleanup EXIT

slowfs_mount "$WORK/backing" "$MNT" read_delay_us=2000
ok $? "slowfs is mounted: 2 ms per read, at most 12 requests in flight"
DIR=$(slowfs_pg_dir "$MNT" spc)
setup_db rr_server_rig
q "CREATE TABLESPACE rr_slow LOCATION '$DIR'" >/dev/null
is "$(q "SELECT size_bytes FROM ranread_setup('256MB', 'rr_slow', 'slow')")" 268435456 "a 256 MB target on it (32768 blocks)"

# run SPEC_KEYS: one batch of target slow with the rig's counts reset first;
# sets B (its batch) and RIG_READS, RIG_MAX (reads the rig served, most in flight)
run() {
  slowfs_control "$MNT" reset_stats
  OUT=$(q_all "SET client_min_messages = notice; SELECT 'batch=' || batch FROM ranread_run_step('{\"target\": \"slow\", $1}') WHERE grp = 0")
  B=$(echo "$OUT" | sed -n 's/^batch=//p')
  RIG_READS=$(slowfs_stats "$MNT" reads)
  RIG_MAX=$(slowfs_stats "$MNT" max_in_flight)
}
fig() { q "SELECT $1 FROM ranread_batches WHERE batch = $B"; }

# --- latency: the server path is never faster than the device for what the device serves
run '"duration": "3s", "groups": [{"processes": 1}]'
read -r DEV_P50 DEV_IOPS <<< "$(fig "p50_ms || ' ' || iops")"
run '"duration": "3s", "path": "server", "effective_io_concurrency": 0, "groups": [{"processes": 1}]'
read -r SRV_P50 SRV_IOPS SRV_CACHE <<< "$(fig "p50_ms || ' ' || iops || ' ' || cache_pct")"
diag "QD1: device p50 $DEV_P50 ms, $DEV_IOPS IOPS; server (effective_io_concurrency 0) p50 $SRV_P50 ms, $SRV_IOPS IOPS, $SRV_CACHE% from caches; PostgreSQL gets $(awk -v s="$SRV_IOPS" -v d="$DEV_IOPS" 'BEGIN { printf "%.0f", 100 * s / d }')% of the device's IOPS"
cmp_ok "$SRV_P50" '>=' 2.0 "a server-path read takes at least the rig's 2 ms (p50 $SRV_P50 ms): the device served it"
cmp_ok "$SRV_P50" '>=' "$(awk -v d="$DEV_P50" 'BEGIN { print 0.95 * d }')" \
  "... and at least the device path's read, within 5% (p50 $SRV_P50 ms, device $DEV_P50 ms)"
cmp_ok "$SRV_CACHE" '<' 5 "... and almost none of its reads came from caches ($SRV_CACHE%)"
cmp_ok "$RIG_MAX" '<=' 2 "without prefetch one process has one read at the rig at a time (at most $RIG_MAX in flight)"
echo "$OUT" | grep -q "of its reads came from caches (shared buffers [0-9]*, the page cache [0-9]* of [0-9]*), the rest from the device"
ok $? "its NOTICE says how many reads the caches answered, the rest the device's"

# --- prefetch depth: reads in flight at the rig
run '"duration": "3s", "path": "server", "effective_io_concurrency": 8, "groups": [{"processes": 1}]'
read -r P8_IOPS P8_D <<< "$(fig "iops || ' ' || effective_io_concurrency")"
diag "effective_io_concurrency 8: $P8_IOPS IOPS, at most $RIG_MAX reads in flight at the rig"
is "$P8_D" 8 "a batch with effective_io_concurrency 8 records it"
cmp_ok "$RIG_MAX" '>=' 8 "... and its prefetch shows at the rig: one process had $RIG_MAX reads in flight at once (8 prefetched + 1)"
cmp_ok "$RIG_MAX" '<=' 12 "... no more than the rig lets through"
cmp_ok "$P8_IOPS" '>' "$(awk -v s="$SRV_IOPS" 'BEGIN { print 3 * s }')" "... and PostgreSQL gets more than 3x the IOPS of no prefetch ($P8_IOPS against $SRV_IOPS)"

# --- a warm page cache: the figures are memory's, and the batch says so
run '"duration": "2s", "warmup": "2s", "path": "server", "effective_io_concurrency": 0, "groups": [{"processes": 1, "region_end": 0.5}]'
read -r W_CACHE W_READS W_SHARED W_PAGE <<< "$(fig "cache_pct || ' ' || reads || ' ' || shared_hits || ' ' || page_cache_hits")"
diag "warm: $W_READS reads, $W_SHARED in shared buffers, $W_PAGE in the page cache ($W_CACHE%); the rig served $RIG_READS"
cmp_ok "$W_CACHE" '>=' 95 "a warmed-up batch over 164 blocks records that its reads came from caches ($W_CACHE%)"
is "$(awk -v a="$W_SHARED" -v b="$W_PAGE" -v r="$W_READS" -v c="$W_CACHE" 'BEGIN { print (a + b <= r && (c - 100 * (a + b) / r)^2 < 1e-6) }')" 1 \
  "... split into shared buffers and the page cache, within its reads"
cmp_ok "$RIG_READS" '<' "$(awk -v r="$W_READS" 'BEGIN { print r / 100 }')" "... which the rig indeed never saw: $RIG_READS reads reached it, of $W_READS"
echo "$OUT" | grep -q "WARNING:  ranread batch $B: .* of its reads came from caches, not the device: its figures are not the disk's"
ok $? "... its WARNING says the figures are not the disk's"
is "$(fig "notes LIKE 'mostly cache hits: %the figures are memory''s, not the disk''s%'")" t "... and so do its notes"
is "$(q "SELECT workload LIKE '%through shared buffers (%from caches)' FROM ranread_summary WHERE batch = $B")" t \
  "... and ranread_summary's workload, with the share"
is "$(fig "status")" completed "... a completed batch all the same: it is what PostgreSQL gets, from memory"

# --- side by side, and the advice that rests on it
PATHS="SELECT prefetch || '|' || server_pct || '|' || status
           FROM ranread_paths('{0,1,4,8}', target => 'slow', duration => '1s', rounds => 2, warmup => '0.5s')"
OUT=$(psql -qAtX -d "$DB" -c "$PATHS" 2> "$WORK/paths.err")
ok $? "ranread_paths on the rig runs" || sed 's/^/# /' "$WORK/paths.err"
diag "ranread_paths on the rig:"; echo "$OUT" | sed 's/^/#   /'; grep 'prefetch [0-9]*:' "$WORK/paths.err" | sed 's/^/#   /'
is "$(echo "$OUT" | cut -d'|' -f1,3 | tr '\n' ' ')" "0|compared 1|compared 4|compared 8|compared " \
  "ranread_paths compares each prefetch distance, in the order asked, each compared"
# its batches, in the order they ran: per distance the device path at queue
# depth N + 1 and the server path at N, the device first in the first round
is "$(q "SELECT string_agg(CASE WHEN path = 'server' THEN 's' || effective_io_concurrency ELSE 'd' || queue_depth END, ' ' ORDER BY batch)
           FROM ranread_batches WHERE batch > $B")" "d1 s0 d2 s1 d5 s4 d9 s8 s0 d1 s1 d2 s4 d5 s8 d9" \
  "... over 2 rounds, alternated: the device path at queue depth N + 1 first in the first round, the server path at N first in the second"
QD1_PCT=$(echo "$OUT" | awk -F'|' '$1 == 0 { print $2 }')
cmp_ok "$QD1_PCT" '>=' 80 "at QD1 PostgreSQL gets about what the rig's device gives ($QD1_PCT%): a 2 ms read dwarfs the buffer manager"
SAID=$(sed -n "s/^NOTICE:  ranread_paths, prefetch 0: PostgreSQL gets \([0-9]*\)% of this device's random-read IOPS at QD1 (no prefetch) (average [0-9.]* ms on the device path at queue depth 1, [0-9.]* ms on the server path; batches [0-9]*, [0-9]* and [0-9]*, [0-9]*)$/\1/p" "$WORK/paths.err")
[ -n "$SAID" ] && awk -v a="$SAID" -v b="$QD1_PCT" 'BEGIN { exit !((a - b)^2 <= 1) }'
ok $? "... and its NOTICE says so in words ($SAID%), with both averages and the batches of each path"
PATHS_BATCHES=$(q "SELECT array_agg(batch ORDER BY batch) FROM ranread_batches WHERE path = 'server' AND effective_io_concurrency >= 1 AND batch > $B")
ADVICE="SELECT suggested || '|' || (batches <@ (SELECT array_agg(batch) FROM ranread_batches WHERE path = 'server')
                                 AND batches @> '$PATHS_BATCHES'::bigint[]) || '|' || (formula LIKE 'measured, not modelled%')
          FROM ranread_advise('rr_slow', target => 'slow') WHERE setting = 'effective_io_concurrency'"
A1=$(q "$ADVICE")
diag "advice: $A1"
is "${A1#*|}" "true|true" "ranread_advise's effective_io_concurrency rests on the server path's batches of ranread_paths, cited, measured not modelled"
is "${A1%%|*}" 8 "... the rig lets 12 reads through: IOPS still grow at 8, the suggestion"

# the rig made again with 2 requests in flight at most: the curve flattens, the advice follows
q "SELECT ranread_purge('slow')" >/dev/null
q "DROP TABLESPACE rr_slow" >/dev/null
slowfs_umount "$MNT"
slowfs_mount "$WORK/backing2" "$MNT" read_delay_us=2000,max_background=2
DIR=$(slowfs_pg_dir "$MNT" spc)
q "CREATE TABLESPACE rr_slow LOCATION '$DIR'" >/dev/null
q "SELECT ranread_setup('256MB', 'rr_slow', 'slow')" >/dev/null
LAST=$(q "SELECT max(batch) FROM ranread_batches")
q "SELECT count(*) FROM ranread_paths('{0,1,4,8}', target => 'slow', duration => '1s', rounds => 3, warmup => '0.5s')" >/dev/null
SERVER_BATCHES=$(q "SELECT array_agg(batch ORDER BY batch) FROM ranread_batches WHERE path = 'server' AND batch > $LAST")
A2=$(q "$ADVICE")
diag "advice with 2 reads in flight at most: $A2"
cmp_ok "${A2%%|*}" '<' "${A1%%|*}" "with 2 reads in flight at most, new figures of the server path change the suggestion: ${A2%%|*}, no longer ${A1%%|*}"
is "$(q "SELECT batches <@ '$SERVER_BATCHES'::bigint[] FROM ranread_advise('rr_slow', target => 'slow') WHERE setting = 'effective_io_concurrency'")" t \
  "... citing the new batches only (the target was made again: the old ones are stale)"

q "SELECT ranread_purge('slow')" >/dev/null
q "DROP TABLESPACE rr_slow" >/dev/null
done_testing
