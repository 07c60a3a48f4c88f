#!/bin/bash
# Nothing lost, nothing left running, whatever ends the caller of ranread_run:
#  query cancel (pg_cancel_backend), statement_timeout, BEGIN ... ROLLBACK,
#  the client killed (kill -9 of psql), pg_terminate_backend of the leader,
#  pg_cancel_backend and pg_terminate_backend of the worker that records the
#  batch, and SIGKILL of the leader backend (a crash restart).
# Each time: the workers are gone within a second or two, the batch is
# recorded with its status ('cancelled', or 'completed' for the rollback) and
# the I/Os it completed, earlier history is intact, and the next batch runs.
. "$(dirname "$0")/lib/lib.sh"
. "$(dirname "$0")/lib/faults.bash"

setup_db rr_cancel
setup_target 64MB
RUN_LONG="SELECT batch || '|' || status || '|' || reads FROM ranread_run(2, duration => '60s', workers => 2)"

is "$(q "SELECT status FROM ranread_run(1, 200)")" completed "a first batch completes"

# history_of: every finished batch with its figures, to see it is intact later
history_of() {
  q "SELECT string_agg(batch || ':' || status || ':' || reads || ':' ||
                       (SELECT count(*) FROM ranread_results r WHERE r.batch = b.batch), ',' ORDER BY batch)
       FROM ranread_batches b WHERE status <> 'running'"
}

# after_stop LABEL BATCH STATUS: the checks every way of ending a batch shares
after_stop() {
  local label=$1 batch=$2 status=$3 row reads
  wait_workers_gone 3
  ok $? "$label: every worker is gone within a second or two (${GONE_MS} ms)"
  row=$(batch_row "$batch")
  is "${row%%|*}" "$status" "$label: batch $batch is recorded with status '$status'"
  reads=$(echo "$row" | cut -d'|' -f2)
  cmp_ok "${reads:-0}" '>' 0 "$label: ... with the I/Os it completed (${reads:-none} reads)"
  is "$(q "SELECT count(*) || '|' || coalesce(sum(reads), -1) || '|' || string_agg(DISTINCT status, ',')
             FROM ranread_results WHERE batch = $batch")" "2|$reads|$status" \
    "$label: ... and one row per process in ranread_results, adding up to the batch's reads"
}

# next_runs LABEL: the next batch runs and completes
next_runs() {
  is "$(q "SELECT status || '|' || reads FROM ranread_run(1, 200)")" "completed|200" "$1: the next batch runs"
}

# start_long NAME: a 60 s batch in a background session; sets BATCH, CLIENT, LEADER
start_long() {
  bg_psql "$1" "$RUN_LONG"
  CLIENT=$BG_PID
  wait_running 30 || diag "$1: the batch did not start: $(bg_output "$1")"
  BATCH=$(q "SELECT max(batch) FROM ranread_batches WHERE status = 'running'")
  LEADER=$(session_pid "$1")
}

# --- query cancel from another session
start_long rr_cancelled
is "$(q "SELECT pg_cancel_backend($LEADER)")" t "pg_cancel_backend of the caller of a running batch"
after_stop "query cancel" "$BATCH" cancelled
wait_pid "$CLIENT" 5
bg_output rr_cancelled | grep -q "canceling statement due to user request"
ok $? "query cancel: the caller gets the cancel error"
next_runs "query cancel"

# --- statement_timeout: the history is there when the error reaches psql
t0=$(now_ms)
out=$(psql -qAtX -d "$DB" -c "SET statement_timeout = '2s'" -c "$RUN_LONG" 2>&1)
t1=$(now_ms)
BATCH=$(latest_batch)
echo "$out" | grep -q "canceling statement due to statement timeout"
ok $? "statement_timeout: a 60 s batch is cancelled by a 2 s statement_timeout"
cmp_ok "$(secs "$t0" "$t1")" '<' 6 "statement_timeout: the caller gets the error soon after the timeout ($(secs "$t0" "$t1") s)"
is "$(q "SELECT status FROM ranread_batches WHERE batch = $BATCH")" cancelled \
  "statement_timeout: the batch is already recorded when the error reaches the client"
after_stop "statement_timeout" "$BATCH" cancelled
next_runs "statement_timeout"

# --- the calling transaction rolls back
out=$(psql -qAtX -d "$DB" -c "BEGIN; SELECT batch || '|' || status || '|' || reads FROM ranread_run(2, 500); ROLLBACK;" 2>&1)
BATCH=$(echo "$out" | grep -E '^[0-9]+\|' | cut -d'|' -f1)
is "$(echo "$out" | grep -E '^[0-9]+\|' | cut -d'|' -f2-)" "completed|1000" "BEGIN; ranread_run; ROLLBACK: the batch completes"
is "$(batch_row "${BATCH:-0}")" "completed|1000|false" "ROLLBACK: the batch stays in the history"
is "$(q "SELECT count(*) || '|' || sum(reads) FROM ranread_results WHERE batch = ${BATCH:-0}")" "2|1000" \
  "ROLLBACK: ... with its rows per process"
cmp_ok "$(q "SELECT count(*) FROM ranread_intervals WHERE batch = ${BATCH:-0}")" '>=' 1 \
  "ROLLBACK: ... and its per-second intervals"
out=$(psql -qAtX -d "$DB" -c "BEGIN" -c "SET LOCAL statement_timeout = '1500ms'" -c "$RUN_LONG" -c "ROLLBACK" 2>&1)
BATCH=$(latest_batch)
after_stop "cancelled inside a transaction, then ROLLBACK" "$BATCH" cancelled

# --- the client is killed
start_long rr_killed_client
kill_client "$CLIENT"
t0=$(now_ms)
after_stop "client killed (kill -9 of psql)" "$BATCH" cancelled
deadline=$(( $(now_ms) + 5000 ))
while [ -n "$(session_pid rr_killed_client)" ] && [ "$(now_ms)" -lt "$deadline" ]; do sleep 0.05; done
is "$(session_pid rr_killed_client)" "" "client killed: its backend notices and exits ($(secs "$t0" "$(now_ms)") s)"
next_runs "client killed"

# --- pg_terminate_backend of the leader
start_long rr_terminated
is "$(q "SELECT pg_terminate_backend($LEADER)")" t "pg_terminate_backend of the caller of a running batch"
after_stop "pg_terminate_backend" "$BATCH" cancelled
wait_pid "$CLIENT" 5
ok $? "pg_terminate_backend: the client's connection is closed"
next_runs "pg_terminate_backend"

# --- a worker is cancelled or terminated by an administrator (scripts that
# cancel or terminate whatever runs too long see the workers too).  Worker 1
# of a batch writes its history, so it is the one that matters.
recorder_pid() {
  psql -qAtX -d postgres -c "SELECT pid FROM pg_stat_activity WHERE backend_type LIKE '%ranread%' AND query ~ ': worker 1,'"
}
# (a long batch: a short one could end before the cancel comes, and a
# cancelled worker stops its batch)
bg_psql rr_worker_cancel "$RUN_LONG"
CLIENT=$BG_PID
wait_running 30
BATCH=$(q "SELECT max(batch) FROM ranread_batches WHERE status = 'running'")
is "$(q "SELECT pg_cancel_backend($(recorder_pid))")" t "pg_cancel_backend of the worker that records the batch"
wait_pid "$CLIENT" 15
ok $? "worker cancelled: the caller returns"
row=$(bg_output rr_worker_cancel | grep -E '^[0-9]+\|' | head -1)
diag "the caller got: ${row:-$(bg_output rr_worker_cancel | grep -E '^ERROR' | head -1)}"
is "$(q "SELECT status <> 'running' FROM ranread_batches WHERE batch = ${BATCH:-0}")" t "worker cancelled: the batch is not left 'running'"
is "$(q "SELECT batch || '|' || status || '|' || reads FROM ranread_batches WHERE batch = ${BATCH:-0}")" "${row:-none}" \
  "worker cancelled: the history agrees with the row the caller got"
is "$(q "SELECT count(*) FROM ranread_results WHERE batch = ${BATCH:-0}")" 2 "worker cancelled: one row per process is recorded"
wait_workers_gone 3
ok $? "worker cancelled: every worker is gone (${GONE_MS} ms)"
next_runs "worker cancelled"

start_long rr_worker_terminated
t0=$(now_ms)
REC=$(recorder_pid)
is "$(q "SELECT pg_terminate_backend($REC)")" t "pg_terminate_backend of the worker that records the batch"
wait_workers_gone 3
ok $? "worker terminated: every worker is gone within a second or two (${GONE_MS} ms)"
wait_pid "$CLIENT" 15
t1=$(now_ms)
cmp_ok "$(secs "$t0" "$t1")" '<' 8 "worker terminated: the caller hears of it within a few seconds ($(secs "$t0" "$t1") s; 0.5 to 2.5 s on a quiet machine, 8 s the bound for a loaded one)"
diag "the caller got: $(bg_output rr_worker_terminated | grep -E '^[0-9]+\||^ERROR' | head -1)"
row=$(batch_row "${BATCH:-0}")
is "${row%%|*}" failed "worker terminated: the batch is recorded 'failed' (a worker it needed was killed; nobody asked it to stop)"
cmp_ok "$(echo "$row" | cut -d'|' -f2)" '>' 0 "worker terminated: ... with the I/Os it completed"
is "$(q "SELECT message FROM ranread_batches WHERE batch = ${BATCH:-0}")" \
  "worker 1: its process (PID $REC) was terminated (SIGTERM: pg_terminate_backend() or a server shutdown) while the batch ran, and the batch stopped there" \
  "worker terminated: its message names the worker, its process and that it was terminated"
bg_output rr_worker_terminated | grep -Eq "^${BATCH:-0}\|failed\|[1-9]"
ok $? "worker terminated: the caller's row says 'failed' too"
bg_output rr_worker_terminated | grep -q "WARNING:  ranread batch ${BATCH:-0} failed: worker 1: its process (PID $REC) was terminated"
ok $? "worker terminated: ... and the caller is warned, with the message"
next_runs "worker terminated"

# --- another worker than the recorder: the same, naming that worker
other_pid() {
  psql -qAtX -d postgres -c "SELECT pid FROM pg_stat_activity WHERE backend_type LIKE '%ranread%' AND query ~ ': worker 2,'"
}
start_long rr_worker2_terminated
W2=$(other_pid)
is "$(q "SELECT pg_terminate_backend($W2)")" t "pg_terminate_backend of worker 2 (not the recorder)"
wait_workers_gone 3
ok $? "worker 2 terminated: every worker is gone within a second or two (${GONE_MS} ms)"
wait_pid "$CLIENT" 15
ok $? "worker 2 terminated: the caller returns"
is "$(q "SELECT status || '|' || message FROM ranread_batches WHERE batch = ${BATCH:-0}")" \
  "failed|worker 2: its process (PID $W2) was terminated (SIGTERM: pg_terminate_backend() or a server shutdown) while the batch ran, and the batch stopped there" \
  "worker 2 terminated: the batch is recorded 'failed', its message naming worker 2 and its process"
is "$(q "SELECT count(*) || '|' || sum(reads) FROM ranread_results WHERE batch = ${BATCH:-0}")" \
  "2|$(q "SELECT reads FROM ranread_batches WHERE batch = ${BATCH:-0}")" \
  "worker 2 terminated: one row per process, adding up to the batch's reads"
next_runs "worker 2 terminated"

# --- SIGKILL of the leader backend: the server crash-restarts
before=$(history_of)
start_long rr_sigkilled
CKPT=$(checkpointer_pid)
kill -9 "$LEADER"
wait_restarted 90 "$CKPT"
ok $? "SIGKILL of the leader backend: the server crash-restarts and accepts connections again"
wait_workers_gone 5
ok $? "SIGKILL of the leader: no worker is left after the restart (${GONE_MS} ms)"
wait_pid "$CLIENT" 10
is "$(history_of)" "$before" "SIGKILL of the leader: the history of earlier batches is intact"
is "$(q "SELECT state FROM ranread_targets WHERE target = 'ranread'")" empty \
  "SIGKILL of the leader: crash recovery left the unlogged target empty"
is "$(q "SELECT status || '|' || (message IS NOT NULL) FROM ranread_summary_full WHERE batch = ${BATCH:-0}")" "failed|true" \
  "SIGKILL of the leader: right after the restart ranread_summary shows the interrupted batch 'failed', with a message"
is "$(q "SELECT count(*) FROM ranread_summary_full WHERE status = 'running'")" 0 "SIGKILL of the leader: ranread_summary shows no batch 'running'"
setup_target 64MB
next_runs "SIGKILL of the leader"
is "$(q "SELECT count(*) FROM ranread_batches WHERE status = 'running'")" 0 \
  "SIGKILL of the leader: the next batch marks the interrupted one failed in ranread_batches too"

is "$(ranread_workers)" 0 "no ranread worker is left at the end"
done_testing
