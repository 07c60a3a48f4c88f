#!/bin/bash
# A disk with a known ceiling: cgroup v1 blkio throttling caps the read IOPS
# of the postmaster's children (the workers are forked after the move), and
# ranread_sweep must find the ceiling and stop for the right reason.
. "$(dirname "$0")/lib/lib.sh"

. "$(dirname "$0")/lib/throttle.bash"
throttle_skip_unless_available

setup_db ranread_throttle
q "SELECT ranread_setup('512MB')" >/dev/null
CEILING=1000
throttle_server ranread_test "$CEILING"
diag "device $THROTTLE_DEV ($THROTTLE_MAJMIN) capped at $CEILING read IOPS"

# 1, 2, 4 ... processes: the ceiling is reached at once, so doubling stops scaling
q "SELECT * FROM ranread_sweep(start => 1, max_processes => 64, duration => '2s')" > /dev/null
row=$(q "SELECT stop_reason, round(max_iops), processes FROM ranread_sweep_verdict ORDER BY sweep DESC LIMIT 1")
reason=${row%%|*}
rest=${row#*|}; iops=${rest%%|*}
diag "verdict: $row"
case "$reason" in scaling:*) ok 0 "a throttled disk stops the sweep because IOPS no longer scale";;
  *) ok 1 "a throttled disk stops the sweep because IOPS no longer scale"; diag "stop reason: $reason";; esac
cmp_ok "$iops" ">=" $((CEILING * 80 / 100)) "the verdict's max IOPS reaches the ceiling ($CEILING)"
cmp_ok "$iops" "<=" $((CEILING * 115 / 100)) "the verdict's max IOPS does not exceed the ceiling ($CEILING)"
steps=$(q "SELECT count(*) FROM ranread_summary_full WHERE sweep = (SELECT max(sweep) FROM ranread_sweeps)")
cmp_ok "$steps" "<=" 4 "the sweep stops soon after reaching the ceiling (at most 1, 2, 4, 8 processes)"

# 16, 32 ... processes at 1000 IOPS: average latency is 16 ms, then 32 ms
q "SELECT * FROM ranread_sweep(start => 16, max_processes => 256, duration => '2s', max_avg_ms => 10)" > /dev/null
row=$(q "SELECT stop_reason, coalesce(max_iops::text, 'none') FROM ranread_sweep_verdict ORDER BY sweep DESC LIMIT 1")
diag "verdict: $row"
case "${row%%|*}" in latency:*) ok 0 "latency above max_avg_ms on two steps in a row stops the sweep";;
  *) ok 1 "latency above max_avg_ms on two steps in a row stops the sweep";; esac
is "${row#*|}" "none" "no step within the latency bound means no max IOPS verdict"
avg=$(q "SELECT round(avg_ms) FROM ranread_summary_full WHERE sweep = (SELECT max(sweep) FROM ranread_sweeps) ORDER BY processes LIMIT 1")
cmp_ok "$avg" ">=" 12 "16 processes on a 1000 IOPS disk wait about 16 ms each (Little's law)"

done_testing
