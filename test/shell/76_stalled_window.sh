#!/bin/bash
# A batch that measured nothing is not 'completed' with 0 IOPS: when the
# storage or the workers stall through the whole measured part of a duration
# run, every I/O in flight was started in the warm-up (not counted) and none
# starts after the end, so the batch counts no I/O.  It records 'failed',
# with a message that says why, paced or not, with either engine.  The stall
# is made by stopping the workers (SIGSTOP) from inside the warm-up until
# after the end of the duration: to the batch, the same as a device that
# answers nothing for that long.  (The soak, test/shell/75_soak.sh, met this
# as a 'completed' batch of 0 reads on a busy shared disk.)
. "$(dirname "$0")/lib/lib.sh"
. "$(dirname "$0")/lib/faults.bash"

setup_db rr_stall
setup_target 64MB

STOPPED=()
cont_all() { [ ${#STOPPED[@]} -gt 0 ] && kill -CONT "${STOPPED[@]}" 2>/dev/null; STOPPED=(); }
trap 'cont_all; faults_cleanup' EXIT

# stalled LABEL ENGINE ARGS: run ranread_run(ARGS), a batch with a 4 s
# warm-up and a 1 s duration, with its workers stopped from 0.3 s after they
# began their I/O (inside the warm-up, with 3.7 s to spare for a loaded
# machine's polling) for 5.5 s (past the end of the duration); prints
# status|reads|writes|message of the batch
stalled() {
  local label=$1 engine=$2 args=$3 deadline pids batch
  bg_psql "rr_stall_$label" "SET ranread.engine = $engine" "SELECT batch FROM ranread_run($args)"
  # doing I/O: the batch's row is in, and every worker has begun its run
  # (its clock started: a worker stopped before that would begin late, and
  # measure its whole duration then; test/shell/68_late_start.sh)
  deadline=$(( $(now_ms) + 15000 ))
  # (every one of the batch's workers: one not started yet is not listed)
  until [ "$(_q poll "$DB" "SELECT (SELECT count(*) FROM pg_stat_activity WHERE backend_type LIKE '%ranread%'
                                AND query ~ '^ranread batch [0-9]+: worker [0-9]+, [0-9]+ process(es)?, [0-9]+ I/Os, ')
             = (SELECT workers FROM ranread_batches WHERE status = 'running')")" = t ]; do
    [ "$(now_ms)" -ge "$deadline" ] && { diag "$label: the batch did not start"; break; }
    sleep 0.02
  done
  sleep 0.3
  pids=$(worker_pids)
  # shellcheck disable=SC2206
  STOPPED=($pids)
  [ ${#STOPPED[@]} -gt 0 ] && kill -STOP "${STOPPED[@]}"
  sleep 5.5
  cont_all
  wait_pid "$BG_PID" 15 || diag "$label: the caller did not return"
  batch=$(bg_output "rr_stall_$label" | grep -E '^[0-9]+$' | tail -1)
  q "SELECT status || '|' || reads || '|' || coalesce(writes, 0) || '|' || coalesce(message, '')
       FROM ranread_batches WHERE batch = ${batch:-0}"
}

uring_ok=$(psql -qAtX -d "$DB" -c "SET client_min_messages = error" -c "SET ranread.engine = io_uring" \
             -c "SELECT status FROM ranread_run(1, 20, queue_depth => 2)" 2>/dev/null)
for e in sync io_uring; do
  if [ "$e" = io_uring ] && [ "$uring_ok" != completed ]; then
    ok 0 "# SKIP io_uring is not available here"; continue
  fi
  row=$(stalled "paced_$e" "$e" "1, NULL, duration => '1s', warmup => '4s', rate_iops => 50")
  is "$(echo "$row" | cut -d'|' -f1-3)" "failed|0|0" "$e, paced: a batch whose measured second was stalled through records 'failed' with no I/O, not 'completed'"
  like_stall=$(echo "$row" | grep -c 'no I/O was measured: none started in the 1000 ms after the warm-up, as the storage or the workers stalled through all of it')
  is "$like_stall" 1 "$e, paced: ... and its message says that no I/O was measured and why"
  row=$(stalled "unpaced_$e" "$e" "2, NULL, duration => '1s', warmup => '4s'")
  is "$(echo "$row" | cut -d'|' -f1-3)" "failed|0|0" "$e, unpaced: the same for a batch without a rate limit"
  wait_workers_gone 5
  ok $? "$e: no worker is left"
done

# a batch that is not stalled still completes, with its I/O
is "$(q "SELECT status || '|' || (reads > 0) FROM ranread_run(1, NULL, duration => '1s', warmup => '1s', rate_iops => 50)")" \
  "completed|true" "the same paced batch, not stalled, completes with its I/O"

done_testing
