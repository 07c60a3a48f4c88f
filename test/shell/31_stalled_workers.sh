#!/bin/bash
# A cancel is not held up by workers that cannot move: workers stalled in
# the kernel (a hung device; here stopped with SIGSTOP, which looks the same
# to the leader) keep their caller at most a few seconds past its
# cancel, however many they are (docs/design.md, "Failures").
# The leader's way out waits for its workers at most 5 s in all; 1.1 waited
# about 5 s per worker in each of three waits (6 stalled workers: 58 s past
# a 2 s timeout).  The claim stays with the stalled workers until they can
# leave; once they run again they go, and the next batch runs.
. "$(dirname "$0")/lib/lib.sh"
. "$(dirname "$0")/lib/faults.bash"

setup_db rr_stalled
setup_target 64MB

STOPPED=()
cont_all() { [ ${#STOPPED[@]} -gt 0 ] && kill -CONT "${STOPPED[@]}" 2>/dev/null; STOPPED=(); }
trap 'cont_all; faults_cleanup' EXIT
MARK=$(log_mark)

bg_psql rr_stalled "SELECT status FROM ranread_run(4, duration => '30s', rate_iops => 100)"
CLIENT=$BG_PID
wait_running 30
ok $? "a batch of 4 processes runs, a worker each"
# shellcheck disable=SC2207
STOPPED=($(worker_pids))
is "${#STOPPED[@]}" 4 "its 4 workers are stopped (SIGSTOP), as by a device that never answers"
kill -STOP "${STOPPED[@]}"
t0=$(now_ms)
q "SELECT pg_cancel_backend($(session_pid rr_stalled))" >/dev/null
wait_pid "$CLIENT" 40
ok $? "the caller returns"
took=$(( $(now_ms) - t0 ))
cmp_ok "$took" '<' 9000 "... a cancel later, within the 5 s the way out waits for its workers in all ($took ms; 1.1: about 5 s a worker, three times)"
bg_output rr_stalled | grep -q "canceling statement due to user request"
ok $? "... with the cancel's error"
cont_all
wait_workers_gone 10
ok $? "once they run again, the workers leave (${GONE_MS} ms)"
is "$(q "SELECT status FROM ranread_run(1, 200)")" completed "and the next batch runs"
no_crash "$MARK" "nothing crashed"
done_testing
