#!/bin/bash
# ranread_stop() and one batch at a time, seen from several sessions:
#  - ranread_stop() from a second session stops a running batch within about
#    a second, returns how many processes it stopped, and the batch records
#    status 'stopped' with the I/Os it completed; the caller gets its row
#  - ranread_stop() while nothing runs returns 0
#  - a second ranread_run while one runs, in the same or another database, is
#    refused at once, naming the running batch and its session's PID, with a
#    hint; ranread_reset() from another session leaves the running batch alone
#  - a stop that arrives while the workers are still starting still gives the
#    caller its row and records the batch
#  - privileges, as for pg_cancel_backend: a role granted EXECUTE can run and
#    stop its own batch but not another role's; members of pg_signal_backend
#    can stop any batch but a superuser's, which only superusers can stop
#  - while it runs, pg_stat_activity shows each worker's batch, I/Os and seconds
#  - a stop ends the statement that runs the batch: its later batches (a
#    sweep's, a study's, a commit test's, ranread_paths') start stopped, and
#    a stop between two of them stops the next as it starts
. "$(dirname "$0")/lib/lib.sh"
. "$(dirname "$0")/lib/faults.bash"

setup_db rr_stop
setup_target 64MB
DB2=rr_stop_other
psql -qX -d postgres -c "DROP DATABASE IF EXISTS $DB2" -c "CREATE DATABASE $DB2" >/dev/null
q_in "$DB2" "CREATE EXTENSION ranread" >/dev/null
q_in "$DB2" "SELECT target FROM ranread_setup('16MB')" >/dev/null

RUN_LONG="SELECT batch || '|' || status || '|' || reads FROM ranread_run(2, duration => '60s', workers => 2)"

# --- nothing running
is "$(q "SELECT ranread_stop()")" 0 "ranread_stop() returns 0 when no batch runs"

# --- a long batch in the background, then everything else from other sessions
bg_psql rr_leader "$RUN_LONG"
LEADER_CLIENT=$BG_PID
wait_running 30
ok $? "a 60 s batch started in a background session is running and doing I/O"
BATCH=$(q "SELECT max(batch) FROM ranread_batches WHERE status = 'running'")
LEADER=$(session_pid rr_leader)
diag "running batch $BATCH, leader backend PID $LEADER"
# docs/running.md, "While it runs": the workers' live line in pg_stat_activity
sleep 1.2
is "$(q "SELECT count(*) FILTER (WHERE query ~ ('^ranread batch ' || $BATCH || ': worker [12], 1 process, [1-9][0-9]* I/Os, [0-9]+ s$'))
             || '/' || count(*) FROM pg_stat_activity WHERE backend_type = 'ranread worker'")" "2/2" \
  "any session sees each worker's batch, I/Os and seconds in pg_stat_activity while it runs"

t0=$(now_ms)
err=$(q_state "SELECT * FROM ranread_run(1, 100)")
t1=$(now_ms)
is "${err%%:*}" 55006 "a second ranread_run in the same database fails with SQLSTATE 55006 (object_in_use)"
cmp_ok "$(secs "$t0" "$t1")" '<' 3 "... at once, without waiting for the running batch ($(secs "$t0" "$t1") s)"
msg=$(q_all "SELECT * FROM ranread_run(1, 100)")
echo "$msg" | grep -q "ERROR: .*batch $BATCH\b"
ok $? "... the error names the running batch ($BATCH)"
echo "$msg" | grep -Eq "PID $LEADER\b"
ok $? "... and the PID of the session running it ($LEADER)"
echo "$msg" | grep -Eq "^HINT: .*ranread_stop\(\)"
ok $? "... with a hint to wait or call ranread_stop()"

msg=$(psql -qAtX -d "$DB2" -v VERBOSITY=verbose -c "SELECT * FROM ranread_run(1, 100)" 2>&1)
echo "$msg" | grep -Eq "^ERROR: +55006: .*batch $BATCH\b"
ok $? "a ranread_run in another database is refused too, naming batch $BATCH"
echo "$msg" | grep -Eq "PID $LEADER\b"
ok $? "... and the leader's PID"
is "$(q_in "$DB2" "SELECT count(*) FROM ranread_batches")" 0 "... and leaves no batch behind in that database"

is "$(q "SELECT ranread_reset()")" 0 "ranread_reset() from another session removes nothing while the only batch runs"
is "$(q "SELECT status FROM ranread_batches WHERE batch = $BATCH")" running "... the running batch keeps its row"
cmp_ok "$(ranread_workers)" '>' 0 "the refused calls did not disturb the running batch's workers"

# --- stop it
t0=$(now_ms)
stopped=$(q "SELECT ranread_stop()")
t1=$(now_ms)
is "$stopped" 2 "ranread_stop() from a second session returns the number of processes stopped"
cmp_ok "$(secs "$t0" "$t1")" '<' 2.5 "ranread_stop() returns within about a second ($(secs "$t0" "$t1") s)"
wait_workers_gone 2
ok $? "every worker is gone within a second of ranread_stop() returning (${GONE_MS} ms)"
wait_pid "$LEADER_CLIENT" 5
ok $? "the caller of ranread_run returns promptly"
t2=$(now_ms)
diag "caller returned $(secs "$t0" "$t2") s after ranread_stop() was called"
row=$(bg_output rr_leader | grep -E '^[0-9]+\|' | head -1)
IFS='|' read -r r_batch r_status r_reads <<< "$row"
is "$r_batch|$r_status" "$BATCH|stopped" "the caller gets its row back, with status 'stopped'"
cmp_ok "${r_reads:-0}" '>' 0 "... and the reads completed before the stop (${r_reads:-none})"
is "$(q "SELECT status || '|' || reads FROM ranread_summary_full WHERE batch = $BATCH")" "stopped|${r_reads:-x}" \
  "the batch is recorded as 'stopped' with the same reads"
is "$(q "SELECT count(*) || '|' || sum(reads) || '|' || min(status) || '|' || max(status) FROM ranread_results WHERE batch = $BATCH")" \
  "2|${r_reads:-x}|stopped|stopped" "one 'stopped' result row per process, whose reads add up to the batch's"
cmp_ok "$(q "SELECT count(*) FROM ranread_intervals WHERE batch = $BATCH")" '>=' 1 "the stopped batch's per-second intervals are kept"
is "$(q "SELECT ranread_stop()")" 0 "ranread_stop() after the batch ended returns 0"
is "$(q "SELECT status FROM ranread_run(1, 200)")" completed "the next ranread_run runs at once after a stop"
is "$(q_in "$DB2" "SELECT status FROM ranread_run(1, 200)")" completed "... in the other database too"

# --- a stop while the workers are still starting
# A session calls ranread_stop() in a tight loop; the batch is claimed
# before its workers start, so the stop lands during their start-up.  Eight
# times, with six workers, since how far each worker got varies.
ROUNDS=8
CKPT=$(checkpointer_pid)
MARK=$(log_mark)
errors=0; rows=0; recorded=0; batches=""
for round in $(seq 1 $ROUNDS); do
  bg_psql rr_stopper "DO \$\$ DECLARE n int; t timestamptz := clock_timestamp(); BEGIN
    LOOP n := ranread_stop(); EXIT WHEN n > 0 OR clock_timestamp() - t > interval '20 s'; END LOOP;
    RAISE WARNING 'ranread_stop returned %', n; END \$\$"
  STOPPER=$BG_PID
  wait_session 10 rr_stopper
  out=$(q_all "SELECT batch || '|' || status FROM ranread_run(6, duration => '30s', workers => 6)")
  wait_pid "$STOPPER" 15
  early=$(echo "$out" | sed -n 's/^NOTICE: *ranread batch \([0-9]*\): .*/\1/p' | head -1)
  batches="$batches ${early:-?}"
  if echo "$out" | grep -q '^ERROR'; then
    errors=$((errors + 1))
    echo "$out" | grep '^ERROR' | head -1 | sed "s/^/#   round $round: /"
  fi
  echo "$out" | grep -Eq '^[0-9]+\|stopped$' && rows=$((rows + 1))
  [ "$(q "SELECT status FROM ranread_summary_full WHERE batch = ${early:-0}")" = stopped ] && recorded=$((recorded + 1))
  wait_workers_gone 10 || diag "round $round: workers are still there"
  [ "$(checkpointer_pid)" = "$CKPT" ] || break
done
diag "early-stopped batches:$batches"
is "$errors" 0 "a stop during worker start-up never turns ranread_run into an error"
is "$rows" "$ROUNDS" "... the caller always gets its row with status 'stopped'"
is "$recorded" "$ROUNDS" "... and the batch is in ranread_summary as 'stopped'"
is "$(q "SELECT count(*) FROM ranread_results r WHERE NOT EXISTS (SELECT FROM ranread_batches b WHERE b.batch = r.batch)")" 0 \
  "no result rows are left without their batch"
no_crash "$MARK" "the early stops did not crash the server (no PANIC, no process terminated by a signal in its log)"
wait_workers_gone 5
ok $? "no worker is left after the early stops"
# a crash empties the target; re-create it so that what follows tests itself
[ "$(q "SELECT state FROM ranread_targets WHERE target = 'ranread'")" = ready ] || { diag "re-creating the target"; setup_target 64MB; }

# --- a stop between two batches of one statement
# A call that runs batch after batch (a sweep, a study, a commit test) has
# gaps where no batch runs.  Here the gap is made long: one DO statement
# runs a batch, sleeps, runs another.  A stop in the gap waits for the
# statement's next batch, which starts stopped, and returns its processes;
# when the statement ends without another batch, the stop returns 0 and
# stops nothing later.
gap_do() {  # gap_do SLEEP_S: a batch, a sleep, a second batch of 2 processes
  echo "DO \$\$ BEGIN PERFORM ranread_run(1, 20); PERFORM pg_sleep($1);
        RAISE NOTICE 'second: %', (SELECT batch || '|' || status FROM ranread_run(2, duration => '20s')); END \$\$"
}
bg_psql rr_gap "$(gap_do 3)"
GAP_CLIENT=$BG_PID
wait_sleeping() {  # the gap's session is in its pg_sleep
  for _ in $(seq 100); do
    [ "$(q "SELECT count(*) FROM pg_stat_activity WHERE application_name = '$1' AND wait_event = 'PgSleep'")" = 1 ] && return 0
    sleep 0.1
  done
  return 1
}
wait_sleeping rr_gap
ok $? "a statement ran one batch and sleeps before its next"
t0=$(now_ms)
is "$(q "SELECT ranread_stop()")" 2 "ranread_stop() in the gap waits for the statement's next batch and returns its processes"
t1=$(now_ms)
wait_pid "$GAP_CLIENT" 10
second=$(sed -n 's/^NOTICE:  second: //p' "$WORK/rr_gap.out")
is "${second#*|}" stopped "... which started stopped: the statement's second batch is recorded 'stopped' ($second)"
cmp_ok "$(secs "$t0" "$t1")" '<' 8 "... and the stop returned once it had ended ($(secs "$t0" "$t1") s, of a 20 s batch)"
wait_workers_gone 5
ok $? "... with no worker left"

# another session's batch in the gap leaves the statement stopped
bg_psql rr_gap2 "$(gap_do 6)"
GAP_CLIENT=$BG_PID
wait_sleeping rr_gap2
bg_psql rr_gap2_stop "SELECT ranread_stop()"
STOPPER=$BG_PID
# the stop waits before the other batch starts (else it would stop that one)
wait_for 5 "SELECT EXISTS (SELECT FROM pg_stat_activity WHERE application_name = 'rr_gap2_stop' AND state = 'active' AND query LIKE '%ranread_stop%')" ||
  diag "the stop was not seen waiting"
is "$(q "SELECT status FROM ranread_run(1, 20)")" completed "another session's batch runs in the gap while the stop waits"
wait_pid "$STOPPER" 20
is "$(bg_output rr_gap2_stop)" 2 "... and the stop still waits for the stopped statement's next batch, and returns its processes"
wait_pid "$GAP_CLIENT" 10
second=$(sed -n 's/^NOTICE:  second: //p' "$WORK/rr_gap2.out")
is "${second#*|}" stopped "... which started stopped ($second)"
wait_workers_gone 5

bg_psql rr_gap_end "DO \$\$ BEGIN PERFORM ranread_run(1, 20); PERFORM pg_sleep(2); END \$\$"
GAP_CLIENT=$BG_PID
wait_sleeping rr_gap_end
is "$(q "SELECT ranread_stop()")" 0 "a stop in a statement's last gap returns 0 once the statement ends without another batch"
wait_pid "$GAP_CLIENT" 10
is "$(q "SELECT status FROM ranread_run(1, 20)")" completed "... and stops nothing later"

bg_psql rr_gap_long "$(gap_do 16)"
GAP_CLIENT=$BG_PID
wait_sleeping rr_gap_long
msg=$(psql -qAtX -d "$DB" -c "SELECT ranread_stop()" 2>&1)
echo "$msg" | grep -q "^NOTICE:  no ranread batch runs now: the call of the session with PID [0-9]* will stop when it starts its next batch"
ok $? "a gap longer than the stop waits: it returns 0 and says the call stops at its next batch ($(echo "$msg" | head -1 | cut -c1-60)...)"
is "${msg##*$'\n'}" 0 "... returning 0"
wait_pid "$GAP_CLIENT" 20
second=$(sed -n 's/^NOTICE:  second: //p' "$WORK/rr_gap_long.out")
is "${second#*|}" stopped "... and it does: the next batch is recorded 'stopped' ($second)"
wait_workers_gone 5

# a stop cancelled while it waits in the gap still stops the next batch
bg_psql rr_gap_cancel "$(gap_do 6)"
GAP_CLIENT=$BG_PID
wait_sleeping rr_gap_cancel
msg=$(psql -qAtX -d "$DB" -c "SET statement_timeout = '1s'" -c "SELECT ranread_stop()" 2>&1)
echo "$msg" | grep -q "canceling statement due to statement timeout"
ok $? "a stop waiting in a gap is cancelled by its statement_timeout"
wait_pid "$GAP_CLIENT" 20
second=$(sed -n 's/^NOTICE:  second: //p' "$WORK/rr_gap_cancel.out")
is "${second#*|}" stopped "... and the stop stands: the statement's next batch is recorded 'stopped' ($second)"
wait_workers_gone 5

# A call that goes on after a stopped batch (ranread_paths compares every
# distance it was given) finds each later batch stopped as it starts: the
# stop ends the statement, not one batch of it
B0=$(q "SELECT coalesce(max(batch), 0) FROM ranread_batches")
bg_psql rr_paths "SELECT string_agg(status, ',') FROM ranread_paths('{0,1,2,4}', duration => '3s', rounds => 1, warmup => '0')"
GAP_CLIENT=$BG_PID
wait_running 15
t0=$(now_ms)
is "$(q "SELECT ranread_stop()")" 1 "ranread_stop() stops a ranread_paths call's running batch"
wait_pid "$GAP_CLIENT" 15
t1=$(now_ms)
is "$(bg_output rr_paths | tail -1)" "incomplete,incomplete,incomplete,incomplete" "... and the call ends with no comparison made"
is "$(q "SELECT count(*) || '|' || string_agg(DISTINCT status, ',') FROM ranread_batches WHERE batch > $B0")" "8|stopped" \
  "... its later batches each stopped as it started (8 batches, all 'stopped')"
cmp_ok "$(secs "$t0" "$t1")" '<' 10 "... within seconds ($(secs "$t0" "$t1") s; its 8 batches would have taken 24 s)"
wait_workers_gone 5
ok $? "... with no worker left"
is "$(q "SELECT status FROM ranread_run(1, 20)")" completed "the session's next statement runs its batch"

# --- privileges
for r in rr_alice rr_bob rr_carol; do
  psql -qX -d postgres -c "DROP ROLE IF EXISTS $r" >/dev/null 2>&1
done
psql -qX -d postgres -c "CREATE ROLE rr_alice" -c "CREATE ROLE rr_bob" \
  -c "CREATE ROLE rr_carol IN ROLE pg_signal_backend" >/dev/null
q "GRANT EXECUTE ON FUNCTION ranread_run TO rr_alice;
   GRANT EXECUTE ON FUNCTION ranread_stop() TO rr_alice, rr_bob, rr_carol" >/dev/null

# a superuser's batch: neither bob nor carol (pg_signal_backend) may stop it,
# as neither could cancel a superuser's query
bg_psql rr_leader2 "$RUN_LONG"
LEADER_CLIENT=$BG_PID
wait_running 30
ok $? "a superuser's batch is running"
BATCH=$(q "SELECT max(batch) FROM ranread_batches WHERE status = 'running'")
err=$(psql -qAtX -d "$DB" -v VERBOSITY=verbose -c "SET ROLE rr_bob" -c "SELECT ranread_stop()" 2>&1 | sed -n 's/^ERROR:  //p')
is "${err%%:*}" 42501 "a role granted EXECUTE cannot stop another role's batch (permission denied)"
msg=$(psql -qAtX -d "$DB" -v VERBOSITY=verbose -c "SET ROLE rr_carol" -c "SELECT ranread_stop()" 2>&1)
echo "$msg" | grep -Eq '^ERROR: +42501: permission denied to stop ranread batch'
ok $? "a member of pg_signal_backend cannot stop a superuser's batch (42501), as pg_cancel_backend cannot cancel a superuser's query"
echo "$msg" | grep -Eq '^HINT: +Only superusers may stop a superuser'
ok $? "... and the hint says only superusers may"
sleep 0.3
is "$(q "SELECT status FROM ranread_batches WHERE batch = $BATCH")|$(ranread_workers)" "running|2" "... and the batch keeps running"
is "$(q "SELECT ranread_stop()")" 2 "a superuser can stop it"
wait_pid "$LEADER_CLIENT" 5
ok $? "... its caller returns"
is "$(q "SELECT status FROM ranread_batches WHERE batch = $BATCH")" stopped "... and the batch is recorded 'stopped'"

# alice's own batch: bob may not stop it, alice may
PGAPPNAME=rr_alice_run psql -qAtX -d "$DB" -c "SET ROLE rr_alice" -c "$RUN_LONG" > "$WORK/rr_alice_run.out" 2>&1 &
ALICE_CLIENT=$!
BG_PIDS+=("$ALICE_CLIENT")
wait_running 15
ok $? "a role granted EXECUTE on ranread_run can run a batch"
sed -n 's/^ERROR:  */#   /p' "$WORK/rr_alice_run.out"
err=$(psql -qAtX -d "$DB" -v VERBOSITY=verbose -c "SET ROLE rr_bob" -c "SELECT ranread_stop()" 2>&1 | sed -n 's/^ERROR:  //p')
is "${err%%:*}" 42501 "another non-superuser cannot stop that batch"
is "$(psql -qAtX -d "$DB" -c "SET ROLE rr_alice" -c "SELECT ranread_stop()" 2>&1)" 2 \
  "the role that started a batch can stop it from another session"
wait_pid "$ALICE_CLIENT" 5
grep -Eq '^[0-9]+\|stopped\|' "$WORK/rr_alice_run.out"
ok $? "... and gets its row back with status 'stopped'"
wait_workers_gone 5

# and a member of pg_signal_backend may stop alice's batch
PGAPPNAME=rr_alice_run2 psql -qAtX -d "$DB" -c "SET ROLE rr_alice" -c "$RUN_LONG" > "$WORK/rr_alice_run2.out" 2>&1 &
ALICE_CLIENT=$!
BG_PIDS+=("$ALICE_CLIENT")
wait_running 15
is "$(psql -qAtX -d "$DB" -c "SET ROLE rr_carol" -c "SELECT ranread_stop()" 2>&1)" 2 \
  "a member of pg_signal_backend can stop a batch of a role that is not a superuser"
wait_pid "$ALICE_CLIENT" 5
grep -Eq '^[0-9]+\|stopped\|' "$WORK/rr_alice_run2.out"
ok $? "... whose caller gets its row back with status 'stopped'"
wait_workers_gone 5
ok $? "no worker is left at the end"

psql -qX -d postgres -c "DROP DATABASE IF EXISTS $DB2" >/dev/null 2>&1
q "DROP OWNED BY rr_alice, rr_bob, rr_carol" >/dev/null
psql -qX -d postgres -c "DROP ROLE rr_alice" -c "DROP ROLE rr_bob" -c "DROP ROLE rr_carol" >/dev/null 2>&1
done_testing
