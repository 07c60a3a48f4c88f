#!/bin/bash
# A busy server is where a DBA measures: a batch whose workers get a CPU
# only late still measures its whole duration, and says how late it began
# (src/run/worker.c, worker_start_clock; ranread_batches.start_late_ms).
#  - with a CPU hog on every core, both workers of a 300 ms batch are held
#    (SIGSTOP) from before its start until 800 ms after it: the batch
#    completes, every process reads for its whole 300 ms, start_late_ms is
#    at least 800 ms, the notes and a NOTICE say which worker began late and
#    by how much.  On 1.1 such a batch failed: "no I/O was measured: none
#    started in the 300 ms after the warm-up"
#  - with the hogs still running, short batches complete with every
#    process's I/O measured
. "$(dirname "$0")/lib/lib.sh"
. "$(dirname "$0")/lib/faults.bash"

HOGS=()
cleanup() {
  local p
  for p in "${HOGS[@]}"; do kill "$p" 2>/dev/null; done
  for p in $(_q try postgres "SELECT pid FROM pg_stat_activity WHERE backend_type LIKE '%ranread%'"); do
    kill -CONT "$p" 2>/dev/null
  done
  faults_cleanup
  psql -qX -d postgres -c "DROP DATABASE IF EXISTS rr_late" >/dev/null 2>&1
}
trap cleanup EXIT
setup_db rr_late
q "SELECT target FROM ranread_setup('64MB')" >/dev/null

for _ in $(seq 1 "$(nproc)"); do
  bash -c 'while :; do :; done' &
  HOGS+=("$!")
done
diag "$(nproc) CPU hogs: ${HOGS[*]}"

# a 300 ms batch that starts 12 s from now, once its workers are ready (on
# cores this busy, the polls and the stops below may take some seconds)
START=$(q "SELECT (now() + interval '12 s')::text")
bg_psql late "SET client_min_messages = notice" \
  "SELECT status FROM ranread_run(2, duration => '300ms', workers => 2, start_at => '$START')"
wait_for 30 "SELECT count(*) = 2 FROM pg_stat_activity WHERE backend_type LIKE '%ranread%'
               AND query ~ '^ranread batch [0-9]+: worker [12] ready, waiting for the start$'"
ok $? "the batch's two workers are ready, and wait for its start (pg_stat_activity says so)"
PIDS=$(worker_pids)
for p in $PIDS; do kill -STOP "$p"; done
# hold them until 800 ms after the start
now_s=$(date +%s.%N)
start_s=$(date -d "$START" +%s.%N)
is "$(awk -v a="$start_s" -v b="$now_s" 'BEGIN { print (b < a ? "before" : "after") }')" before \
  "... and are held before the start ($(awk -v a="$start_s" -v b="$now_s" 'BEGIN { printf "%.1f", a - b }') s before it)"
sleep "$(awk -v a="$start_s" -v b="$now_s" 'BEGIN { d = a - b + 0.8; print (d > 0 ? d : 0) }')"
for p in $PIDS; do kill -CONT "$p"; done
wait_pid "$BG_PID" 30
ok $? "the batch ends"
B=$(latest_batch)
diag "$(q "SELECT format('status %s, start_late_ms %s, reads %s, notes: %s', status, round(start_late_ms::numeric), reads, notes)
             FROM ranread_batches WHERE batch = $B")"
is "$(q "SELECT status FROM ranread_batches WHERE batch = $B")" completed "a batch whose workers began 800 ms late completes"
cmp_ok "$(q "SELECT start_late_ms FROM ranread_batches WHERE batch = $B")" '>=' 800 "... and records how late: start_late_ms"
is "$(q "SELECT count(*) FROM ranread_results WHERE batch = $B AND reads > 0 AND seconds >= 0.3")" 2 \
  "every process read, for its whole 300 ms"
is "$(q "SELECT notes ~ 'worker [12] started its I/O [0-9]+ ms after the batch''s start' FROM ranread_batches WHERE batch = $B")" t \
  "the batch's notes say which worker began late, and by how much"
bg_output late | grep -qE "^NOTICE:  ranread batch $B: worker [12] started its I/O [0-9]+ ms after the batch's start"
ok $? "... and so does a NOTICE"

# short batches on the busy machine
for n in 1 2 3; do
  b=$(q "SELECT batch FROM ranread_run(4, duration => '200ms')")
  r=$(q "SELECT status || ' ' || (SELECT count(*) FROM ranread_results x WHERE x.batch = b.batch AND x.reads > 0)
         FROM ranread_batches b WHERE batch = $b")
  is "$r" "completed 4" "with a CPU hog on every core, a 200 ms batch of 4 processes completes with all of them measured (run $n)"
done

done_testing
