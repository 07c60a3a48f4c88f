#!/bin/bash
# The server path (docs/server-path.md) when things go wrong, and
# what its workers hold while they read:
#  - while a batch reads through shared buffers its workers hold no snapshot
#    (backend_xmin NULL: VACUUM need not wait for them), no transaction id and
#    no lock of their own (the caller's lock on the target covers the batch)
#  - ranread_stop() from another session, a query cancel of the caller and
#    pg_terminate_backend of a worker end it as on the device path: its
#    status, the reads it did, every worker gone, the next batch runs
#  - a page the buffer manager refuses (a broken header; in a cluster with
#    data checksums, one flipped byte) fails the batch with the buffer
#    manager's words, naming the block and the target, never a crash; a
#    pristine target of that cluster reads clean (its pages carry the
#    checksums the buffer manager checks)
#  - a target truncated while the batch reads it fails the batch, naming the
#    block; one truncated before is refused at the start, as on the device
#    path
#  - through all of it the server never restarted and logged no PANIC
. "$(dirname "$0")/lib/lib.sh"
. "$(dirname "$0")/lib/faults.bash"
. "$(dirname "$0")/lib/cluster.bash"

trap 'faults_cleanup; cluster_stop_all' EXIT
setup_db rr_server
setup_target 64MB srv
STARTED=$(q "SELECT pg_postmaster_start_time()")
RELID=$(q "SELECT relid FROM ranread_target_catalog WHERE target = 'srv'")
FILE="$(data_dir)/$(target_path srv)"

# step JSON: a server-path batch of target srv, as "batch|status|reads"
step() {
  echo "SELECT batch || '|' || status || '|' || reads FROM ranread_run_step('{\"path\": \"server\", \"target\": \"srv\", $1}') WHERE grp = 0"
}
RUN_LONG=$(step '"duration": "60s", "groups": [{"processes": 2}]')

# after_stop LABEL BATCH STATUS: the batch ended as on the device path
after_stop() {
  local label=$1 batch=$2 status=$3 row
  wait_workers_gone 3
  ok $? "$label: every worker is gone within a second or two (${GONE_MS} ms)"
  row=$(batch_row "$batch")
  is "${row%%|*}" "$status" "$label: batch $batch is recorded with status '$status'"
  cmp_ok "$(echo "$row" | cut -d'|' -f2)" '>' 0 "$label: ... with the reads it completed"
  is "$(q "SELECT count(*) FROM ranread_results WHERE batch = $batch")" 2 "$label: ... and its two processes' rows"
}

# start_long NAME: a 60 s server-path batch in a background session
start_long() {
  bg_psql "$1" "$RUN_LONG"
  CLIENT=$BG_PID
  wait_running 30 || diag "$1: the batch did not start: $(bg_output "$1")"
  BATCH=$(q "SELECT max(batch) FROM ranread_batches WHERE status = 'running'")
  LEADER=$(session_pid "$1")
}

# --- what the workers hold while they read
start_long rr_holds
is "$(q "SELECT count(*) FILTER (WHERE backend_xmin IS NULL AND backend_xid IS NULL) || '/' || count(*)
           FROM pg_stat_activity WHERE backend_type LIKE '%ranread%'")" "2/2" \
  "while a server-path batch reads, its workers hold no snapshot and no transaction id (backend_xmin, backend_xid NULL)"
is "$(q "SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a USING (pid)
          WHERE a.backend_type LIKE '%ranread%' AND l.locktype = 'relation' AND l.relation = $RELID")" 0 \
  "... and no lock of their own on the target"
is "$(q "SELECT string_agg(l.mode, ',') FROM pg_locks l WHERE l.pid = $LEADER AND l.locktype = 'relation' AND l.relation = $RELID")" \
  AccessShareLock "... which the caller holds in AccessShareLock for the whole batch, so nothing drops or rewrites it meanwhile"

# --- ranread_stop from another session
is "$(q "SELECT ranread_stop()")" 2 "ranread_stop() from another session stops the server-path batch's 2 processes"
after_stop "ranread_stop" "$BATCH" stopped
wait_pid "$CLIENT" 5
is "$(bg_output rr_holds | grep -E '^[0-9]+[|]' | cut -d'|' -f2)" stopped "ranread_stop: the caller gets its row, stopped"

# --- query cancel of the caller
start_long rr_cancelled
is "$(q "SELECT pg_cancel_backend($LEADER)")" t "pg_cancel_backend of the caller of a running server-path batch"
after_stop "query cancel" "$BATCH" cancelled
wait_pid "$CLIENT" 5

# --- pg_terminate_backend of a worker (not the recorder)
start_long rr_terminated
VICTIM=$(q "SELECT max(pid) FROM pg_stat_activity WHERE backend_type LIKE '%ranread%'")
is "$(q "SELECT pg_terminate_backend($VICTIM)")" t "pg_terminate_backend of one worker of a running server-path batch"
after_stop "terminated worker" "$BATCH" failed
is "$(q "SELECT message ~ ('PID ' || $VICTIM || '\M.*terminated') FROM ranread_batches WHERE batch = $BATCH")" t \
  "terminated worker: the batch's message names the worker's process"
wait_pid "$CLIENT" 5
is "$(q "$(step '"iterations": 200, "groups": [{"processes": 1}]')" | cut -d'|' -f2-)" "completed|200" \
  "the next server-path batch runs"

# --- a page whose header the buffer manager refuses (this cluster: no checksums needed)
dd if="$FILE" of="$WORK/block100" bs=8192 skip=100 count=1 status=none
printf '\377%.0s' $(seq 24) | dd of="$FILE" bs=1 seek=$((100 * 8192)) conv=notrunc status=none
out=$(q "$(step '"effective_io_concurrency": 0, "iterations": 300, "groups": [{"processes": 1, "pattern": "sequential", "region_end": 2}]')")
B=${out%%|*}
is "$(echo "$out" | cut -d'|' -f2)" failed "a page with a broken header fails the server-path batch that reads it"
is "$(q "SELECT message LIKE 'worker 1: could not read block 100 of target \"srv\" through shared buffers: invalid page in block 100 of relation %'
           FROM ranread_batches WHERE batch = $B")" t \
  "... its message names the block and the target, in the buffer manager's words (invalid page in block 100)"
cmp_ok "$(q "SELECT reads FROM ranread_batches WHERE batch = $B")" '>=' 99 "... and it keeps the reads it did before"
dd if="$WORK/block100" of="$FILE" bs=8192 seek=100 conv=notrunc status=none
is "$(q "$(step '"iterations": 300, "groups": [{"processes": 1, "pattern": "sequential", "region_end": 2}]')" | cut -d'|' -f2)" completed \
  "the page put back, the same batch completes (the bad page left no buffer behind)"

# --- a target truncated while the batch reads it, and one truncated before
bg_psql rr_truncated "$(step '"duration": "60s", "groups": [{"processes": 1, "pattern": "sequential", "region_start": 50}]')"
CLIENT=$BG_PID
wait_running 30
BATCH=$(q "SELECT max(batch) FROM ranread_batches WHERE status = 'running'")
truncate -s $((16 * 1024 * 1024)) "$FILE"
wait_pid "$CLIENT" 10
ok $? "a target truncated under a running server-path batch ends it within seconds"
is "$(q "SELECT status || '|' || (message ~ '^worker 1: could not read block [0-9]+ of target \"srv\" through shared buffers: could not read block [0-9]+ in file .*read only 0 of 8192 bytes')
           FROM ranread_batches WHERE batch = $BATCH")" "failed|true" \
  "... failed, its message naming the block the buffer manager could not read"
msg=$(q_state "$(step '"iterations": 10, "groups": [{"processes": 1}]')")
is "$msg" '55000: ranread target "srv" has 16777216 bytes on disk, not the 67108864 it was made with' \
  "a target truncated before is refused at the start, as on the device path"
setup_target 64MB srv
FILE="$(data_dir)/$(target_path srv)"

# --- a cluster with data checksums: pristine pages read clean, a flipped byte fails
CK="$WORK/ck"
cluster_init "$CK" -k
PORT=$(free_port)
cluster_start "$CK" "$PORT"
qc "$CK" "$PORT" postgres "CREATE DATABASE rr" >/dev/null
qc "$CK" "$PORT" rr "CREATE EXTENSION ranread" >/dev/null
qc "$CK" "$PORT" rr "SELECT ranread_setup('16MB', target => 'ck')" >/dev/null
CKSTART=$(qc "$CK" "$PORT" rr "SELECT pg_postmaster_start_time()")
CKSTEP="SELECT batch || '|' || status FROM ranread_run_step('{\"path\": \"server\", \"target\": \"ck\", \"effective_io_concurrency\": 0, \"groups\": [{\"processes\": 1, \"pattern\": \"sequential\"}], \"iterations\": 2048}') WHERE grp = 0"
out=$(qc "$CK" "$PORT" rr "$CKSTEP")
is "$(echo "$out" | cut -d'|' -f2)" completed \
  "with data checksums, a server-path batch reads every block of a pristine target: setup's pages carry the checksums the buffer manager checks"
is "$(qc "$CK" "$PORT" rr "SELECT server_settings->>'data_checksums' FROM ranread_batches WHERE batch = ${out%%|*}")" on \
  "... and records data_checksums on"
CKFILE="$CK/$(qc "$CK" "$PORT" rr "SELECT pg_relation_filepath(relid) FROM ranread_target_catalog WHERE target = 'ck'")"
byte=$(dd if="$CKFILE" bs=1 skip=$((50 * 8192 + 5000)) count=1 status=none | od -An -tu1 | tr -d ' ')
printf "$(printf '\\%03o' $(( (byte ^ 1) & 255 )))" | dd of="$CKFILE" bs=1 seek=$((50 * 8192 + 5000)) conv=notrunc status=none
out=$(qc "$CK" "$PORT" rr "$CKSTEP")
is "$(echo "$out" | cut -d'|' -f2)" failed "one flipped bit in a page's free space fails the batch that reads it"
is "$(qc "$CK" "$PORT" rr "SELECT message LIKE 'worker 1: could not read block 50 of target \"ck\" through shared buffers: invalid page in block 50 of relation %'
                             FROM ranread_batches WHERE batch = ${out%%|*}")" t \
  "... its message names block 50 and the target, in the buffer manager's words"
grep -q "page verification failed, calculated checksum" "$(cluster_log "$CK")"
ok $? "... and the server log has the buffer manager's checksum warning"
cmp_ok "$(qc "$CK" "$PORT" rr "SELECT checksum_failures FROM pg_stat_database WHERE datname = 'rr'")" '>=' 1 \
  "... counted in pg_stat_database.checksum_failures"
is "$(qc "$CK" "$PORT" rr "SELECT pg_postmaster_start_time()")" "$CKSTART" "a bad checksum never crashes the server: it did not restart"
grep -Eq "PANIC|terminated by signal" "$(cluster_log "$CK")"
ok $((! $?)) "... and its log has no PANIC and no process terminated by a signal"

# --- workers => N is not taken on the server path, and the caller hears so
msg=$(psql -qAtX -d rr_server -c "SET client_min_messages = notice" \
        -c "SELECT status FROM ranread_mix('[{\"processes\": 2, \"path\": \"server\", \"target\": \"srv\"}, {\"processes\": 1, \"target\": \"srv\"}]', duration => '1s', workers => 1)" 2>&1)
echo "$msg" | grep -q "NOTICE:  workers 1 of ranread_mix is not taken: a batch with a group of path 'server' runs each of its 3 processes in a worker of its own"
ok $? "workers => 1 beside a server-path group: a NOTICE says it is not taken (it was silently ignored)"
is "$(q "SELECT workers FROM ranread_batches ORDER BY batch DESC LIMIT 1")" 3 "... and the batch records its 3 workers"

# --- no crash in this cluster either
is "$(q "SELECT pg_postmaster_start_time()")" "$STARTED" "through all of the above the server never restarted"
is "$(ranread_workers)" 0 "no worker outlived its batch"
done_testing
