#!/bin/bash
# Per-second latency histograms survive a stalled leader: the leader (the
# calling backend) snapshots each second's histograms as the second ends
# (src/run/batch.h, "Per-second latency histograms"); stopped (SIGSTOP) for
# 2.5 s in the middle of a batch, it cannot tell which second the I/Os since
# its last snapshot belong to, so those seconds have no histogram, but the
# seconds after it have theirs again (one stall does not cost the rest of
# the batch), each holding I/Os; the last second, the rest of the group's
# histogram, has none after an unknown second; the batch's own histogram is
# whole.
. "$(dirname "$0")/lib/lib.sh"
. "$(dirname "$0")/lib/faults.bash"

setup_db rr_hsec
setup_target 64MB
LEADER=""
trap '[ -n "$LEADER" ] && kill -CONT "$LEADER" 2>/dev/null; faults_cleanup' EXIT

bg_psql rr_hsec_stall "SELECT batch FROM ranread_run(1, duration => '9s', rate_iops => 400)"
deadline=$(( $(now_ms) + 15000 ))
until [ -n "$LEADER" ]; do
  LEADER=$(_q poll "$DB" "SELECT pid FROM pg_stat_activity WHERE application_name = 'rr_hsec_stall'
                            AND EXISTS (SELECT FROM ranread_batches WHERE status = 'running')")
  [ "$(now_ms)" -ge "$deadline" ] && break
  sleep 0.05
done
ok "$([ -n "$LEADER" ]; echo $?)" "the batch runs, its leader is backend ${LEADER:-?}"
sleep 2.2
kill -STOP "$LEADER"
sleep 2.5
kill -CONT "$LEADER"
wait_pid "$BG_PID" 30
batch=$(bg_output rr_hsec_stall | tail -1)
is "$(q "SELECT status FROM ranread_batches WHERE batch = ${batch:-0}")" completed "the batch completes"

# one letter a second: h (a histogram holding I/Os), e (a histogram, empty), - (none)
marks=$(q "SELECT string_agg(CASE WHEN histogram IS NULL THEN '-' WHEN ranread_hist_count(histogram) > 0 THEN 'h' ELSE 'e' END, '' ORDER BY second)
             FROM ranread_intervals WHERE batch = ${batch:-0}")
diag "seconds: $marks"
[[ "$marks" == h* ]]
ok $? "the first second, before the stall, has its histogram"
[[ "$marks" =~ h-+h ]]
ok $? "seconds of the stall have none, and seconds after it have theirs again"
[[ "$marks" == *- ]]
ok $? "the last second (the rest) has none after an unknown second"
is "$(q "SELECT bool_and(ranread_hist_count(histogram) BETWEEN 1 AND reads + writes + 400) FROM ranread_intervals
          WHERE batch = ${batch:-0} AND histogram IS NOT NULL")" t \
  "each second's histogram holds about its second's I/Os (at most one snapshot's jitter more)"
is "$(q "SELECT ranread_hist_count(histogram) = reads + writes FROM ranread_batches WHERE batch = ${batch:-0}")" t \
  "the batch's own histogram holds every I/O"
done_testing
