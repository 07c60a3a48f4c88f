#!/bin/bash
# A worker killed with SIGKILL mid-batch.  PostgreSQL crash-restarts the
# server (its rule for any crashed child); afterwards:
#  - the history of earlier batches is intact (batches, results, intervals)
#  - ranread_targets shows the target 'empty' (crash recovery resets unlogged
#    relations) and ranread_run on it errors with a hint to run ranread_setup
#  - ranread_summary never shows the interrupted batch 'running': right after
#    the restart it shows 'failed' with a message, and the next batch marks
#    it 'failed' in ranread_batches too
#  - running ranread_setup again makes the target usable
. "$(dirname "$0")/lib/lib.sh"
. "$(dirname "$0")/lib/faults.bash"

setup_db rr_crash
setup_target 64MB

q "SELECT status FROM ranread_run(2, 300)" >/dev/null
q "SELECT status FROM ranread_run(1, duration => '1.2s')" >/dev/null
q "SELECT status FROM ranread_run(3, 200, block_size => 16384)" >/dev/null

# every table of the history, row by row
history_of() {
  q "SELECT (SELECT string_agg(batch || ':' || status || ':' || reads || ':' || round(iops) || ':' || md5(histogram::text), ',' ORDER BY batch)
               FROM ranread_batches WHERE status <> 'running') || ' / ' ||
            (SELECT string_agg(batch || '.' || process || ':' || reads, ',' ORDER BY batch, process) FROM ranread_results) || ' / ' ||
            (SELECT string_agg(batch || '.' || second || ':' || reads, ',' ORDER BY batch, second) FROM ranread_intervals)"
}
before=$(history_of)
is "$(q "SELECT count(*) FROM ranread_batches WHERE status = 'completed'")" 3 "three batches completed before the crash"

bg_psql rr_victim "SELECT batch || '|' || status FROM ranread_run(2, duration => '60s')"
CLIENT=$BG_PID
wait_running 30
ok $? "a 60 s batch is running"
BATCH=$(q "SELECT max(batch) FROM ranread_batches WHERE status = 'running'")
VICTIM=$(worker_pids | tail -1)
CKPT=$(checkpointer_pid)
START=$(q "SELECT pg_postmaster_start_time()")
MARK=$(log_mark)
diag "killing worker $VICTIM of batch $BATCH"
kill -9 "$VICTIM"
wait_restarted 90 "$CKPT"
ok $? "SIGKILL of a worker: the server crash-restarts and accepts connections again"
wait_pid "$CLIENT" 10
ok $? "the caller's session ends (the crash restart closed it)"
wait_workers_gone 5
ok $? "no worker is left after the restart"
is "$(q "SELECT pg_postmaster_start_time()")" "$START" "it was a crash restart of the same postmaster, not a new server"
crash_lines "$MARK" | grep -q "(PID $VICTIM) was terminated by signal 9"
ok $? "... which the server log tells, as no_crash (lib.sh) looks for it: the start time alone cannot show a crash"

is "$(history_of)" "$before" "the history of earlier batches is intact: batches, results and intervals"
is "$(q "SELECT state FROM ranread_targets WHERE target = 'ranread'")" empty "ranread_targets shows the target 'empty'"

msg=$(psql -qAtX -d "$DB" -v VERBOSITY=verbose -c "SELECT * FROM ranread_run(1, 100)" 2>&1)
echo "$msg" | grep -Eq '^ERROR: +55000: .*empty'
ok $? "ranread_run on the emptied target fails with SQLSTATE 55000 and says it is empty"
echo "$msg" | grep -Eq '^HINT: .*ranread_setup'
ok $? "... with a hint to run ranread_setup again"
is "$(ranread_workers)" 0 "... before any worker starts"
is "$(q "SELECT count(*) FROM ranread_summary_full WHERE status = 'running'")" 0 \
  "right after the restart ranread_summary shows no batch 'running'"
is "$(q "SELECT status || '|' || (message IS NOT NULL) FROM ranread_summary_full WHERE batch = ${BATCH:-0}")" "failed|true" \
  "... it shows the interrupted batch 'failed', with a message"

# a batch a crash left 'running' is repaired even while another database runs
# a batch with the same number (batch numbers are per database)
DB2=rr_crash_other
psql -qX -d postgres -c "DROP DATABASE IF EXISTS $DB2" -c "CREATE DATABASE $DB2" >/dev/null
q_in "$DB2" "CREATE EXTENSION ranread" >/dev/null
q_in "$DB2" "SELECT target FROM ranread_setup('16MB')" >/dev/null
ORPHAN=$(( $(q "SELECT max(batch) FROM ranread_batches") + 100 ))
q_in "$DB2" "SELECT setval('ranread_batch_seq', $ORPHAN, false)" >/dev/null
q "INSERT INTO ranread_batches (batch, run_at, target, processes, block_size, queue_depth, write_pct, pattern,
                                region_start, region_end, seed, workers, engine, status)
   VALUES ($ORPHAN, now() - interval '1 hour', 'ranread', 1, 8192, 1, 0, 'random', 0, 100, 1, 1, 'io_uring', 'running')" >/dev/null
PGAPPNAME=rr_other psql -qAtX -d "$DB2" -c "SELECT batch || '|' || status FROM ranread_run(1, duration => '30s')" > "$WORK/rr_other.out" 2>&1 &
OTHER=$!
BG_PIDS+=("$OTHER")
deadline=$(( $(now_ms) + 20000 ))
until [ "$(q_in "$DB2" "SELECT count(*) FROM ranread_batches WHERE status = 'running'")" = 1 ] || [ "$(now_ms)" -ge "$deadline" ]; do sleep 0.1; done
is "$(q_in "$DB2" "SELECT max(batch) FROM ranread_batches WHERE status = 'running'")" "$ORPHAN" \
  "another database is running its batch $ORPHAN"

setup_target 64MB
is "$(q "SELECT state FROM ranread_targets WHERE target = 'ranread'")" ready "ranread_setup again makes the target 'ready'"
diag "its message: $(q "SELECT message FROM ranread_summary_full WHERE batch = ${BATCH:-0}")"
is "$(q "SELECT status FROM ranread_summary_full WHERE batch = $ORPHAN")" failed \
  "a batch left 'running' here shows 'failed' although another database runs a batch numbered $ORPHAN"
psql -qAtX -d "$DB2" -c "SELECT ranread_stop()" >/dev/null
wait_pid "$OTHER" 10
grep -q '|stopped' "$WORK/rr_other.out"
ok $? "... and the other database's batch was left alone (it ends 'stopped' by ranread_stop)"

is "$(q "SELECT status || '|' || reads FROM ranread_run(2, 300)")" "completed|600" "the re-created target runs a batch"
is "$(q "SELECT status || '|' || (message IS NOT NULL) FROM ranread_batches WHERE batch = ${BATCH:-0}")" "failed|true" \
  "that batch's recorder marked the one the crash interrupted 'failed' in ranread_batches, with a message"
is "$(q "SELECT count(*) FROM ranread_batches WHERE status = 'running'")" 0 "... and no row of ranread_batches is left 'running'"
is "$(history_of | cut -d' ' -f1 | cut -d, -f1-3)" "$(echo "$before" | cut -d' ' -f1)" \
  "the earlier batches are still there, unchanged"
wait_workers_gone 5
ok $? "no worker is left at the end"

psql -qX -d postgres -c "DROP DATABASE IF EXISTS $DB2" >/dev/null 2>&1
done_testing
