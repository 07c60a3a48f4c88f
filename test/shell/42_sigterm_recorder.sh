#!/bin/bash
# One source of truth for a batch's figures (docs/design.md, "History"): SIGTERM to
# the recording worker (worker 1) two seconds into a 5 s batch of four
# processes at queue depth 4.  The batch stops as failed
# (docs/errors-and-statuses.md, "Status": a worker terminated), its message
# naming the worker, and the row the caller gets, the batch's row in the
# history and the sum of its process rows agree exactly: the figures are
# computed once, after every worker stopped counting.  On 1.0 the recorder
# computed its figures while the other worker still counted (reads 223,781
# recorded against 223,789 returned).  Three rounds, since the moment the
# signal lands varies.
. "$(dirname "$0")/lib/lib.sh"
. "$(dirname "$0")/lib/faults.bash"

setup_db rr_sigterm
setup_target 64MB

for round in 1 2 3; do
  bg_psql rr_term "SELECT batch || '|' || status || '|' || reads || '|' || writes || '|' || iops FROM ranread_run(4, duration => '10s', queue_depth => 4, workers => 2)"
  CLIENT=$BG_PID
  wait_running 20
  sleep 1.5
  REC=$(psql -qAtX -d postgres -c "SELECT pid FROM pg_stat_activity WHERE backend_type = 'ranread worker' AND query LIKE '%: worker 1,%'")
  t0=$(now_ms)
  kill -TERM "$REC"
  wait_pid "$CLIENT" 10
  ok $? "round $round: SIGTERM to the recording worker ends the batch; the caller returns ($(secs "$t0" "$(now_ms)") s)"
  IFS='|' read -r b st reads writes iops <<< "$(bg_output rr_term | grep -E '^[0-9]+\|' | head -1)"
  is "$st" failed "round $round: the caller's row says 'failed'"
  is "$(q "SELECT status || '|' || reads || '|' || writes || '|' || round(iops) FROM ranread_batches WHERE batch = ${b:-0}")" \
     "failed|$reads|$writes|$iops" "round $round: the batch's row has the caller's figures exactly, the IOPS whole ($reads reads)"
  is "$(q "SELECT message FROM ranread_batches WHERE batch = ${b:-0}")" \
     "worker 1: its process (PID $REC) was terminated (SIGTERM: pg_terminate_backend() or a server shutdown) while the batch ran, and the batch stopped there" \
     "round $round: its message says worker 1 (PID $REC) was terminated"
  is "$(q "SELECT count(*) || '|' || sum(reads) || '|' || sum(writes) FROM ranread_results WHERE batch = ${b:-0}")" \
     "4|$reads|$writes" "round $round: its four process rows add up to them"
  is "$(q "SELECT sum(reads) FROM ranread_intervals WHERE batch = ${b:-0}")" "$reads" "round $round: and so do its seconds"
  wait_workers_gone 5
  ok $? "round $round: no worker is left"
done

done_testing
