#!/bin/bash
# A full disk under the history (docs/design.md, "Failures"): a database
# whose default tablespace, and so ranread's history tables, is on a small
# loop-mounted ext4 filesystem; the target is in pg_default.  While a batch
# runs, a file takes every byte left, so its history cannot be written (a
# table cannot grow: SQLSTATE 53100).  Then:
#  - the caller gets its figures in a WARNING whose hint says to free disk
#    space on the filesystem of that tablespace, not to wait for a lock
#  - the batch's row says failed, and its message keeps the cause (no space
#    left on device, SQLSTATE 53100) and the figures, not the general words
#    the repair of an orphan uses
#  - no worker is left; ranread_commit_test on the full tablespace gives
#    ranread's free-space error (naming the reserve) before it makes the
#    tablespace's temporary directory; with the space back the next batch
#    completes and the failed one keeps its message
# While the disk is full, the checks read through one session opened before
# it filled: a new backend of the database may have to write the relation
# cache's init file (pg_internal.init, after autovacuum touched a catalog),
# and with no byte left the server refuses the connection ("could not write
# init file").
. "$(dirname "$0")/lib/lib.sh"
. "$(dirname "$0")/lib/faults.bash"
. "$(dirname "$0")/lib/loopfs.bash"

DBNAME=rr_hfull
MNT="$WORK/mnt"
TS="$MNT/ts"

cleanup() {
  exec 7>&- 2>/dev/null
  [ -n "$HELD_PID" ] && wait "$HELD_PID" 2>/dev/null
  faults_cleanup
  rm -f "$MNT"/filler*
  psql -qX -d postgres -c "DROP DATABASE IF EXISTS $DBNAME" >/dev/null 2>&1
  psql -qX -d postgres -c "DROP TABLESPACE IF EXISTS rr_hfull_ts" >/dev/null 2>&1
  loopfs_cleanup
  rm -rf "$WORK"
}
trap cleanup EXIT

if ! loopfs_make 64M "$MNT"; then
  echo "1..0 # SKIP cannot make and mount a loop-device filesystem here"
  exit 0
fi
pg_owned_path "$TS"

avail() { df -B1 --output=avail "$MNT" | tail -1 | tr -d ' '; }

# held_open: one psql session to $DB, kept open; held_q SQL: the output (and
# errors, verbose) of SQL run in it (the lines it added to the session's
# output, up to a mark of its own)
held_open() {
  mkfifo "$WORK/held.in"
  : > "$WORK/held.out"
  psql -qAtX -d "$DB" -v VERBOSITY=verbose < "$WORK/held.in" >> "$WORK/held.out" 2>&1 &
  HELD_PID=$!
  exec 7> "$WORK/held.in"
}
held_q() {
  local from mark i
  from=$(wc -l < "$WORK/held.out")
  mark="__held_${RANDOM}_${RANDOM}__"
  printf '%s;\n\\qecho %s\n' "$1" "$mark" >&7
  for i in $(seq 300); do
    grep -qx "$mark" "$WORK/held.out" && break
    sleep 0.1
  done
  awk -v from="$from" -v b="$mark" 'NR <= from { next } $0 == b { exit } { print }' "$WORK/held.out" |
    sed -E 's/^psql:[^:]*:[0-9]+: //'
}

psql -qX -d postgres -c "DROP DATABASE IF EXISTS $DBNAME" >/dev/null
psql -qX -d postgres -c "CREATE TABLESPACE rr_hfull_ts LOCATION '$TS'" >/dev/null
psql -qX -d postgres -c "CREATE DATABASE $DBNAME TABLESPACE rr_hfull_ts" >/dev/null
DB=$DBNAME
q "CREATE EXTENSION ranread" >/dev/null
is "$(q "SELECT coalesce(t.spcname, 'db default') FROM pg_class c LEFT JOIN pg_tablespace t ON t.oid = c.reltablespace WHERE c.oid = 'ranread_results'::regclass")" \
  "db default" "the history tables are in the database's default tablespace, rr_hfull_ts on a 64 MB filesystem"
# Autovacuum must find nothing to do here later: a vacuum of the new
# database's catalogs truncates their empty tail pages (some 30 kB here),
# and space it frees after the disk filled lets the history be written
# (CI saw that once).
q "VACUUM ANALYZE" >/dev/null
held_open
is "$(held_q "SELECT count(*) FROM ranread_batches")" 0 "a session is held open for the checks while the disk is full"
is "$(q "SELECT size_bytes FROM ranread_setup('32MB', 'pg_default')")" 33554432 "the target is in pg_default"

# --- the disk fills while the batch runs
bg_psql rr_hfull "SELECT batch || '|' || status || '|' || reads FROM ranread_run(2, duration => '60s')"
CLIENT=$BG_PID
wait_running 30
ok $? "a 60 s batch runs"
BATCH=$(q "SELECT max(batch) FROM ranread_batches")
fallocate -l "$(avail)" "$MNT/filler" 2>/dev/null || fallocate -l $(( $(avail) - 65536 )) "$MNT/filler" 2>/dev/null
dd if=/dev/zero of="$MNT/filler2" bs=4096 2>/dev/null
cmp_ok "$(avail)" '<' 8192 "meanwhile a file takes every byte left ($(avail) bytes left)"
is "$(held_q "SELECT status FROM ranread_batches WHERE batch = ${BATCH:-0}")" running \
  "... before the batch ends (its history is still to be written)"
# ... and any byte freed later, until the caller returns; the batch is
# stopped once the disk is full (a batch of a fixed length could end
# before, on a busy machine: CI saw that once)
( n=0; while kill -0 "$CLIENT" 2>/dev/null; do
    n=$((n + 1)); dd if=/dev/zero of="$MNT/filler.$n" bs=1024 2>/dev/null; sleep 0.05
  done ) &
REFILL=$!
is "$(held_q "SELECT ranread_stop()")" 2 "the batch is stopped"
wait_pid "$CLIENT" 20
ok $? "the caller returns"
wait "$REFILL" 2>/dev/null
out=$(bg_output rr_hfull)
echo "$out" | sed 's/^/# /'
echo "$out" | grep -q "WARNING:  the history of ranread batch $BATCH was not written"
ok $? "the caller is warned that the history of batch $BATCH was not written"
echo "$out" | grep -Eq '^DETAIL: .*No space left on device'
ok $? "... the detail gives the cause: no space left on device"
echo "$out" | grep -Eq '^HINT: .*Free disk space on the filesystem of tablespace "rr_hfull_ts", which holds ranread.s history tables'
ok $? "... the hint says to free disk space where the history tables are"
! echo "$out" | grep -E '^HINT: ' | grep -qi "lock"
ok $? "... and blames no lock"
echo "$out" | grep -Eq "^$BATCH\|stopped\|[1-9][0-9]*$"
ok $? "... and the caller still gets its row, with its reads"

wait_workers_gone 5
ok $? "no worker is left (${GONE_MS} ms)"
is "$(held_q "SELECT status FROM ranread_batches WHERE batch = ${BATCH:-0}")" failed \
  "the batch's row says failed"
msg=$(held_q "SELECT message FROM ranread_batches WHERE batch = ${BATCH:-0}")
diag "message: $msg"
echo "$msg" | grep -q "No space left on device" && echo "$msg" | grep -q "SQLSTATE 53100"
ok $? "its message keeps the cause: no space left on device, SQLSTATE 53100"
echo "$msg" | grep -Eq "it ended stopped with [1-9][0-9]* reads"
ok $? "... and what the batch did"
is "$(held_q "SELECT count(*) FROM ranread_results WHERE batch = ${BATCH:-0}")" 0 "no partial history: no process rows"
is "$(held_q "SELECT status || '|' || (message = \$\$$msg\$\$) FROM ranread_summary_full WHERE batch = ${BATCH:-0}")" "failed|true" \
  "ranread_summary shows it failed with that message"

# --- ranread_commit_test on the full tablespace: ranread's own check, before
# the tablespace's temporary directory is made
is "$(find "$TS" -name pgsql_tmp | wc -l)" 0 "the full tablespace has no temporary directory yet"
err=$(held_q "SET client_min_messages = error; SELECT * FROM ranread_commit_test(tablespace => 'rr_hfull_ts', duration => '1s'); RESET client_min_messages;")
echo "$err" | sed 's/^/# /'
echo "$err" | grep -Eq '^ERROR: +53100: rr_hfull_ts has [0-9.]+ (bytes|[kMG]B) free, too little for a 16 MB scratch file and the reserve of '
ok $? "ranread_commit_test on a tablespace with no space left fails with ranread's disk-full error, naming the reserve"
! echo "$err" | grep -q "could not create directory"
ok $? "... not with the server's error about its temporary directory"

# --- with the space back
rm -f "$MNT"/filler*
is "$(q "SELECT status || ' ' || reads FROM ranread_run(2, 500)")" "completed 1000" "with the space back, the next batch completes"
is "$(q "SELECT message FROM ranread_batches WHERE batch = ${BATCH:-0}")" "$msg" "... and the failed batch keeps its message"

done_testing
