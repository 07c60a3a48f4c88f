#!/bin/bash
# ranread_progress read by many sessions at once while batches end in every
# way, and a batch whose time left is past what a timestamp holds
# (docs/design.md, "Progress"):
#  - a batch by iterations at 1 IOPS (4.6e18 I/Os: 1.5e11 years to go), run
#    by a role granted 'run': a role granted 'report' reads ranread_progress
#    (no 'timestamp out of range'), its row there with the time left not
#    known; its progress NOTICE says no time left ("done at about ?" was a
#    clock it could not read); ranread_stop ends it
#  - six readers, as the 'report' role, read the view in a loop while a
#    batch loses a worker (pg_terminate_backend), then its leader: no
#    reader gets an error, no row is left once the leader is gone, no
#    worker is left
#  - nothing crashed
. "$(dirname "$0")/lib/lib.sh"
. "$(dirname "$0")/lib/faults.bash"

setup_db rr_progress_bounds
setup_target 64MB
q "DO \$\$ BEGIN
     IF to_regrole('rr74_run') IS NULL THEN CREATE ROLE rr74_run; END IF;
     IF to_regrole('rr74_report') IS NULL THEN CREATE ROLE rr74_report; END IF;
   END \$\$" >/dev/null
q "SELECT count(*) FROM ranread_grant('rr74_run', 'run')" >/dev/null
q "SELECT count(*) FROM ranread_grant('rr74_report', 'report')" >/dev/null
mark=$(log_mark)

# as_report SQL: the rows and errors of a query read as the 'report' role
as_report() { psql -qAtX -d "$DB" -c "SET ROLE rr74_report" -c "$1" 2>&1; }

# --- a batch that would take 1.5e11 years
bg_psql rr74_slow "SET ROLE rr74_run" "SET client_min_messages = notice" \
  "SELECT status FROM ranread_run(1, iterations => 4611686018427387903, rate_iops => 1, duration => NULL)"
SLOW=$BG_PID
wait_running 20 || diag "the slow batch did not start"
sleep 6  # past its first progress NOTICE (5 s of measuring)
row=$(as_report "SELECT format('%s|%s|%s|%s', kind, phase, remaining IS NULL, eta IS NULL) FROM ranread_progress_full")
is "$row" "run|running|t|t" \
   "a batch of 4.6e18 I/Os at 1 IOPS: a role granted 'report' reads ranread_progress, the time left not known"
q "SELECT ranread_stop()" >/dev/null
wait_pid "$SLOW" 20
out=$(bg_output rr74_slow)
diag "$(echo "$out" | grep 'of 4611686018427387903 I/Os' | head -1)"
is "$(echo "$out" | grep -c 'of 4611686018427387903 I/Os')" 1 "... its progress NOTICE said where it was"
is "$(echo "$out" | grep -c 'left, done at about')" 0 "... and no time left it cannot know"
is "$(echo "$out" | tail -1)" "stopped" "... ranread_stop ended it"

# --- many readers while a batch loses a worker, then its leader
READ="SELECT count(*) FROM ranread_progress_full WHERE remaining IS NULL OR eta >= now() - interval '1 s'"
for i in 1 2 3 4 5 6; do
  ( end=$((SECONDS + 14)); while [ $SECONDS -lt $end ]; do as_report "$READ" | grep -v '^[0-9]*$'; done ) \
    > "$WORK/reader$i.err" &
  BG_PIDS+=($!)
done
bg_psql rr74_lead "SET ROLE rr74_run" "SELECT status FROM ranread_run(3, duration => '20s')"
LEAD=$BG_PID
wait_running 20 || diag "the batch did not start"
q "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE backend_type LIKE '%ranread%' ORDER BY pid LIMIT 1" >/dev/null
sleep 2
q "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'rr74_lead'" >/dev/null
wait_pid "$LEAD" 20
wait_workers_gone 10
is "$(ranread_workers)" 0 "a batch that lost a worker, then its leader: no worker is left"
is "$(as_report "SELECT count(*) FROM ranread_progress")" 0 "... and no row of ranread_progress"
wait
errs=$(cat "$WORK"/reader*.err)
[ -n "$errs" ] && diag "$(echo "$errs" | sort | uniq -c | head -5)"
is "$errs" "" "six readers as the 'report' role read ranread_progress all the while without an error"

no_crash "$mark" "nothing crashed (no PANIC, no process terminated by a signal in the server log)"
done_testing
