#!/bin/bash
# Two-phase commit and savepoints around CLUSTER of a target.  CLUSTER (and
# VACUUM FULL) of a target moves its files to the new relfilenode and moves
# them back if the transaction aborts.  Before, PREPARE TRANSACTION forgot
# the moves: ROLLBACK PREPARED deleted the new relfilenode's files, which
# held the data, and the target's files were gone.
#  - PREPARE TRANSACTION with a CLUSTER of a target in it is refused, the
#    transaction rolls back and the target is whole and ready
#  - a CLUSTER rolled back to a savepoint puts the files back; one released
#    into a transaction that commits keeps them; one released into a
#    transaction that rolls back puts them back; nested savepoints too
#  - with fsync on, a CHECKPOINT after a move was rolled back (to a
#    savepoint, by an error, by statement_timeout) succeeds.  Before, the
#    new relfilenode's file, moved back, still had the fsync its creation
#    registered: the checkpointer PANICked and the server restarted
#  - a prepared transaction without a move (the CLUSTER rolled back to a
#    savepoint) prepares and commits
. "$(dirname "$0")/lib/lib.sh"
. "$(dirname "$0")/lib/faults.bash"
. "$(dirname "$0")/lib/cluster.bash"
trap 'faults_cleanup; cluster_stop_all' EXIT

D="$TMPDIR_TEST/rr_2pc_data"
PORT=$(free_port)
cluster_init "$D"
cluster_conf "$D" "max_prepared_transactions = 4"
cluster_start "$D" "$PORT"
ok $? "a cluster with max_prepared_transactions = 4"
qc "$D" "$PORT" postgres "CREATE DATABASE rr" >/dev/null
qc "$D" "$PORT" rr "CREATE EXTENSION ranread; SELECT ranread_setup('16MB')" >/dev/null
REL=$(qc "$D" "$PORT" rr "SELECT relid::regclass FROM ranread_target_catalog")
qc "$D" "$PORT" rr "CREATE INDEX rr_2pc_idx ON $REL ((1))" >/dev/null
sums() { qc "$D" "$PORT" rr "SELECT md5(string_agg(md5(pg_read_binary_file(pg_relation_filepath('$REL'), b * 8192, 8192)), '')) FROM generate_series(0, 2047, 7) b"; }
state() { qc "$D" "$PORT" rr "SELECT state FROM ranread_targets"; }
before=$(sums)
run() { psql -qAtX -h "$D" -p "$PORT" -U postgres -d rr -v VERBOSITY=verbose "$@" 2>&1; }

# fsync = on here (the suite's own cluster has it off): a CHECKPOINT after
# an aborted move must not look for the new relfilenode's file
checkpoint() { psql -qAtX -h "$D" -p "$PORT" -U postgres -d rr -v ON_ERROR_STOP=1 -c "CHECKPOINT" 2>&1; }
MARK=$(log_mark "$D")
msg=$(run -v ON_ERROR_STOP=1 -c "BEGIN" -c "CLUSTER $REL USING rr_2pc_idx" -c "ROLLBACK")
is "$(qc "$D" "$PORT" rr "SHOW fsync")|$msg|$(checkpoint)" "on||" \
  "with fsync on, a CHECKPOINT after a rolled-back CLUSTER of a target succeeds (before, the checkpointer PANICked: could not fsync the new relfilenode's file)"
is "$(state)|$(sums)" "ready|$before" "... and the target is ready with its blocks"
no_crash "$MARK" "... and nothing crashed (no PANIC in the server log)"

msg=$(run -c "BEGIN" -c "CLUSTER $REL USING rr_2pc_idx" -c "PREPARE TRANSACTION 'p1'")
echo "$msg" | grep -Eq 'ERROR: +0A000: cannot PREPARE a transaction that has moved the files of a ranread target'
ok $? "PREPARE TRANSACTION after CLUSTER of a target is refused (0A000)"
is "$(qc "$D" "$PORT" rr "SELECT count(*) FROM pg_prepared_xacts")" 0 "... nothing is prepared"
msg=$(run -c "ROLLBACK PREPARED 'p1'")
is "$(state)|$(sums)" "ready|$before" "... and the target is ready with its blocks (ROLLBACK PREPARED has nothing to delete)"
is "$(checkpoint)" "" "... and a CHECKPOINT after it succeeds"
msg=$(run -c "SET statement_timeout = '1ms'" -c "VACUUM FULL $REL")
is "$(checkpoint)|$(state)|$(sums)" "|ready|$before" "... and after a VACUUM FULL cancelled by statement_timeout"
is "$(qc "$D" "$PORT" rr "SELECT status || '|' || reads FROM ranread_run(1, 200)")" "completed|200" "... and a batch runs on it"

msg=$(run -v ON_ERROR_STOP=1 -c "BEGIN" -c "SAVEPOINT a" -c "CLUSTER $REL USING rr_2pc_idx" -c "ROLLBACK TO a" -c "PREPARE TRANSACTION 'p2'")
is "$msg" "" "a CLUSTER rolled back to a savepoint, then PREPARE TRANSACTION: no error"
is "$(qc "$D" "$PORT" rr "SELECT count(*) FROM pg_prepared_xacts WHERE gid = 'p2'")" 1 \
  "a transaction whose CLUSTER was rolled back to a savepoint prepares"
run -c "COMMIT PREPARED 'p2'" >/dev/null
is "$(state)|$(sums)" "ready|$before" "... and commits, the target whole"

rfn0=$(qc "$D" "$PORT" rr "SELECT relfilenode FROM pg_class WHERE oid = '$REL'::regclass")
msg=$(run -v ON_ERROR_STOP=1 -c "BEGIN" -c "SAVEPOINT a" -c "CLUSTER $REL USING rr_2pc_idx" -c "ROLLBACK TO a" -c "COMMIT")
is "$msg" "" "(its statements run without an error)"
is "$(state)|$(sums)|$(qc "$D" "$PORT" rr "SELECT relfilenode FROM pg_class WHERE oid = '$REL'::regclass")" "ready|$before|$rfn0" \
  "CLUSTER rolled back to a savepoint: the files are back, under the old relfilenode"
msg=$(run -v ON_ERROR_STOP=1 -c "BEGIN" -c "SAVEPOINT a" -c "CLUSTER $REL USING rr_2pc_idx" -c "RELEASE a" -c "ROLLBACK")
is "$msg" "" "(its statements run without an error)"
is "$(state)|$(sums)" "ready|$before" "CLUSTER released into a transaction that rolls back: the files are back"
msg=$(run -v ON_ERROR_STOP=1 -c "BEGIN" -c "SAVEPOINT a" -c "CLUSTER $REL USING rr_2pc_idx" -c "SAVEPOINT b" -c "CLUSTER $REL USING rr_2pc_idx" -c "ROLLBACK TO b" \
    -c "SAVEPOINT c" -c "CLUSTER $REL USING rr_2pc_idx" -c "RELEASE c" -c "ROLLBACK TO a" -c "CLUSTER $REL USING rr_2pc_idx" -c "COMMIT")
is "$msg" "" "(its statements run without an error)"
is "$(state)|$(sums)" "ready|$before" "nested savepoints, some rolled back, some released, then a commit: the target is whole"
is "$(qc "$D" "$PORT" rr "SELECT relfilenode <> $rfn0 FROM pg_class WHERE oid = '$REL'::regclass")" t \
  "... under the relfilenode of the CLUSTER that committed"
msg=$(run -v ON_ERROR_STOP=1 -c "BEGIN" -c "SAVEPOINT a" -c "CLUSTER $REL USING rr_2pc_idx" -c "RELEASE a" -c "COMMIT")
is "$msg" "" "(its statements run without an error)"
is "$(state)|$(sums)" "ready|$before" "CLUSTER released into a transaction that commits keeps the files"
is "$(checkpoint)" "" "a CHECKPOINT after it all succeeds"
is "$(qc "$D" "$PORT" rr "SELECT status || '|' || reads FROM ranread_run(1, 200)")" "completed|200" "a batch runs on the target after it all"
cluster_stop "$D"

done_testing
