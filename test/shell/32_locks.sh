#!/bin/bash
# Locks on the history tables never hang a batch (docs/design.md, "Failures").
#  - maintenance on the history tables during a batch (VACUUM FULL,
#    TRUNCATE, LOCK, ALTER TABLE, REINDEX of a history table, a whole
#    database's VACUUM FULL and REINDEX): the batch ends on time, recorded
#    'completed'; the command finishes too.  On 1.0 the leader's lock from
#    its orphan check queued VACUUM FULL behind it and the recording behind
#    VACUUM FULL: a 3 s batch still "ran" after 40 s.
#  - a lock held by an idle transaction keeps the recorder from the tables:
#    the leader says who holds it; ranread_stop() or pg_terminate_backend()
#    of the recorder ends the wait within a second; the caller gets its row
#    and a WARNING with the figures; the batch shows 'failed' in the summary
#  - the caller's own transaction holds a lock (it read the history first)
#    and VACUUM FULL queues behind it: the leader notices within about a
#    second, the recording gives up, the WARNING says why
#  - a lock that keeps the batch's first row out: the leader says so, and
#    ranread_stop() gives the batch up
. "$(dirname "$0")/lib/lib.sh"
. "$(dirname "$0")/lib/faults.bash"

setup_db rr_locks
setup_target 64MB

RUN5="SELECT batch || '|' || status || '|' || reads FROM ranread_run(2, duration => '5s')"

# run_with NAME SQL: a 5 s batch, and SQL in another session one second in
# (its workers seen running just before); sets T_BATCH (seconds the caller
# took), T_CMD (seconds SQL took), RUNNING (the batch's workers then), ROW
run_with() {
  local name=$1 sql=$2 t0 t1 tc
  bg_psql "$name" "$RUN5"
  local client=$BG_PID
  t0=$(now_ms)
  wait_running 15
  sleep 1
  tc=$(now_ms)
  psql -qAtX -d "$DB" -c "SET client_min_messages = error" \
    -c "SELECT 'workers ' || count(*) FROM pg_stat_activity WHERE backend_type = 'ranread worker'" \
    -c "$sql" > "$WORK/$name.cmd" 2>&1
  T_CMD=$(secs "$tc" "$(now_ms)")
  RUNNING=$(sed -n 's/^workers //p' "$WORK/$name.cmd" | head -1)
  wait_pid "$client" 30
  t1=$(now_ms)
  T_BATCH=$(secs "$t0" "$t1")
  ROW=$(bg_output "$name" | grep -E '^[0-9]+\|' | head -1)
}

for kind in "VACUUM FULL ranread_batches" \
            "TRUNCATE ranread_intervals" \
            "BEGIN; LOCK TABLE ranread_results IN ACCESS EXCLUSIVE MODE; SELECT pg_sleep(1); COMMIT" \
            "ALTER TABLE ranread_results ADD COLUMN rr_tmp int; ALTER TABLE ranread_results DROP COLUMN rr_tmp" \
            "REINDEX TABLE ranread_batches" \
            "VACUUM FULL" \
            "REINDEX DATABASE rr_locks"; do
  run_with rr_kind "$kind"
  IFS='|' read -r b st reads <<< "$ROW"
  cmp_ok "${RUNNING:-0}" '>' 0 "$kind comes while the batch's workers run"
  is "$st" completed "... the batch is recorded 'completed'"
  cmp_ok "$T_BATCH" '<' 14 "... and its caller returns on time ($T_BATCH s from the call: its start, 5 s of I/O, the recording, on a loaded machine)"
  cmp_ok "$T_CMD" '<' 8 "... $kind finishes ($T_CMD s)"
  is "$(q "SELECT status || '|' || reads FROM ranread_summary_full WHERE batch = ${b:-0}")" "completed|${reads:-x}" \
    "... the summary has the batch with the reads its caller got"
  is "$(q "SELECT sum(reads) FROM ranread_results WHERE batch = ${b:-0}")" "${reads:-x}" "... and so do its process rows"
  wait_workers_gone 5 || diag "workers left after $kind"
done
is "$(q "SELECT state FROM ranread_targets")" ready "after all that, the target is still ready"

# --- an idle transaction holds a lock the recording needs: stop gives up
stuck_batch() {
  bg_psql rr_holder "BEGIN" "LOCK TABLE ranread_results IN SHARE MODE" "SELECT pg_sleep(60)"
  HOLDER=$BG_PID
  wait_session 10 rr_holder
  bg_psql rr_stuck "SELECT batch || '|' || status || '|' || reads FROM ranread_run(2, duration => '1.5s')"
  STUCK=$BG_PID
  wait_for 20 "SELECT EXISTS (SELECT FROM pg_stat_activity WHERE backend_type = 'ranread worker' AND query LIKE '%waiting for a lock%')"
}
stuck_batch
ok $? "a batch whose results table is locked by an idle transaction waits to record its history"
sleep 5.5
bg_output rr_stuck | grep -q 'NOTICE: .*waits for a lock to record its history: PID [0-9]* holds ShareLock on ranread_results'
ok $? "... and its caller hears who holds the lock: $(bg_output rr_stuck | grep 'waits for a lock' | head -1 | cut -c1-160)"
t0=$(now_ms)
is "$(q "SELECT ranread_stop()")" 2 "ranread_stop() gives the recording up"
wait_pid "$STUCK" 5
ok $? "... the caller returns at once ($(secs "$t0" "$(now_ms)") s)"
out=$(bg_output rr_stuck)
IFS='|' read -r b st reads <<< "$(echo "$out" | grep -E '^[0-9]+\|' | head -1)"
is "$st" completed "... with its row: the I/O completed"
echo "$out" | grep -Eq "^WARNING: +the history of ranread batch $b was not written"
ok $? "... and a WARNING that the history was not written"
echo "$out" | grep -Eq "^DETAIL: .*ranread_stop\(\) was called while it waited.* $reads reads and 0 writes"
ok $? "... that says why and gives the figures ($reads reads)"
echo "$out" | grep -Eq '^HINT: .*Run the batch again once the lock is gone'
ok $? "... and whose hint, the recording having waited for a lock, names the lock"
wait_workers_gone 3
ok $? "no worker is left"
is "$(q "SELECT status FROM ranread_summary_full WHERE batch = $b")" failed "the summary shows the unrecorded batch as failed, not running"
q "SELECT message FROM ranread_summary_full WHERE batch = $b" | grep -q 'never written'
ok $? "... with a message saying its history was never written"
end_session rr_holder "$HOLDER"

# --- the same, ended by terminating the recorder
stuck_batch
REC=$(psql -qAtX -d postgres -c "SELECT pid FROM pg_stat_activity WHERE backend_type = 'ranread worker' AND query LIKE '%waiting for a lock%'")
t0=$(now_ms)
psql -qAtX -d postgres -c "SELECT pg_terminate_backend($REC)" >/dev/null
wait_pid "$STUCK" 5
ok $? "pg_terminate_backend() of the waiting recorder ends the wait: the caller returns ($(secs "$t0" "$(now_ms)") s)"
bg_output rr_stuck | grep -Eq "^DETAIL: .*its recording worker was terminated"
ok $? "... with a WARNING saying the recorder was terminated"
wait_workers_gone 3
ok $? "... and no worker is left"
end_session rr_holder "$HOLDER"
msg=$(q "SELECT status || '|' || message FROM ranread_batches WHERE batch = ${b:-0}")
diag "batch $b, repaired by the next batch: $msg"
echo "$msg" | grep -Eq "^failed\|the history of the batch was not written \(could not write the history of the batch: it waited for a lock \(PID [0-9]+ holds ShareLock on ranread_results.*\), and ranread_stop\(\) was called while it waited, SQLSTATE 55P03\); it ended completed with $reads reads"
ok $? "the next batch marks the one whose recording ranread_stop gave up failed, its message keeping why and what it did ($reads reads), not the general words"

# --- the caller's own transaction holds the lock the recorder needs
bg_psql rr_own "BEGIN" "SELECT count(*) FROM ranread_batches" \
  "SELECT batch || '|' || status FROM ranread_run(1, duration => '6s')" "COMMIT"
OWN=$BG_PID
wait_running 15
bg_psql rr_vacuum "VACUUM FULL ranread_batches"
VAC=$BG_PID
# VACUUM FULL queued behind the caller's lock before the batch ends
wait_for 10 "SELECT EXISTS (SELECT FROM pg_stat_activity WHERE application_name = 'rr_vacuum' AND wait_event_type = 'Lock')" ||
  diag "VACUUM FULL was not seen waiting for its lock"
t0=$(now_ms)
wait_pid "$OWN" 15
ok $? "a batch run in a transaction that read ranread_batches, with VACUUM FULL queued behind that lock, returns ($(secs "$t0" "$(now_ms)") s)"
bg_output rr_own | grep -Eq '^HINT: .*in a transaction that has not read'
ok $? "... with a WARNING whose hint says to run it in a transaction that has not read the history"
wait_pid "$VAC" 10
ok $? "... and VACUUM FULL finishes once that transaction ends"
wait_workers_gone 3
ok $? "no worker is left"

# --- a lock keeps the batch's first row out
bg_psql rr_holder "BEGIN" "LOCK TABLE ranread_batches IN SHARE MODE" "SELECT pg_sleep(60)"
HOLDER=$BG_PID
wait_session 10 rr_holder
bg_psql rr_start "SELECT batch || '|' || status FROM ranread_run(1, 100)"
START=$BG_PID
wait_for 20 "SELECT EXISTS (SELECT FROM pg_stat_activity WHERE backend_type = 'ranread worker' AND query LIKE '%waiting for a lock to insert%')"
ok $? "a lock on ranread_batches keeps a new batch waiting to insert its row"
sleep 5.5
bg_output rr_start | grep -q 'NOTICE: .*waits for a lock to insert its row'
ok $? "... its caller hears so"
t0=$(now_ms)
q "SELECT ranread_stop()" >/dev/null
wait_pid "$START" 5
ok $? "ranread_stop() gives the batch up at once ($(secs "$t0" "$(now_ms)") s)"
bg_output rr_start | grep -Eq '^ERROR: .*could not insert the row of the batch: it waited for a lock'
ok $? "... and its caller gets an error saying why"
end_session rr_holder "$HOLDER"
wait_workers_gone 3
ok $? "no worker is left"
is "$(q "SELECT status FROM ranread_run(1, 100)")" completed "the next batch runs"

done_testing
