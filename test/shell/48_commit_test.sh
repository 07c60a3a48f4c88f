#!/bin/bash
# The commit path (docs/commit-and-advice.md, "The commit path"):
# ranread_commit_test and the sync option.
#  - every durable write really reached the device: the device's flush
#    counter (/sys/block/DEV/stat, flushes completed) grows by at least as
#    many flushes as the durable ops a commit test or a synced batch reports
#    (the disk here has a volatile write cache and no FUA, so each O_DSYNC,
#    O_SYNC, fdatasync or fsync write costs a flush); other sessions can only
#    add flushes, so the check is a lower bound; syncs in flight at once may
#    share a flush, so with N in flight the bound is ops / N
#  - the sync option through both engines (one process at queue depth 1 is
#    the synchronous engine, several slots io_uring with a linked fsync or
#    per-write RWF_DSYNC/RWF_SYNC) is recorded in the summary
#  - the commit test's rows: one per test (the one 8 kB write of a method
#    one row for its rounds), fsync_writethrough unavailable on Linux, the
#    history view, and the scratch file gone after it ends
#  - its NOTICE compares only the methods the call measured, with the
#    server's wal_sync_method, as ranread_advise_wal_sync_method does (an
#    ALTER SYSTEM hint only beyond the noise of the rounds and past 10%);
#    with one method it calls none the fastest
#  - the scratch file is gone after a stop, a cancel (statement_timeout), a
#    worker killed with SIGKILL (the crash restart removes pgsql_tmp files),
#    and a leftover of a dead process is removed by the next commit test
#  - with pg_wal symlinked to another filesystem, the scratch file goes to
#    pg_wal (under a name that is never a WAL file's), follows the symlink,
#    and the results name that filesystem
. "$(dirname "$0")/lib/lib.sh"
. "$(dirname "$0")/lib/faults.bash"
. "$(dirname "$0")/lib/cluster.bash"
. "$(dirname "$0")/lib/loopfs.bash"

MNT=$WORK/walfs
cleanup() {
  faults_cleanup
  cluster_stop_all
  loopfs_cleanup
}
trap cleanup EXIT

setup_db rr_commit
setup_target 64MB
DD=$(q "SHOW data_directory")

# the block device under a path, and its flushes completed so far
DEVSTAT=/sys/dev/block/$(stat -c '%Hd:%Ld' "$DD")/stat
flushes() { awk '{ print $16 }' "$DEVSTAT" 2>/dev/null; }
scratch_files() { find "$DD/base/pgsql_tmp" "$DD/pg_wal" -maxdepth 1 -name '*ranread_commit*' 2>/dev/null | wc -l; }

if [ -z "$(flushes)" ]; then
  diag "no flush counter for the device under $DD ($DEVSTAT): flush checks skipped"
fi

# flush_check WHAT OPS BEFORE: the device flushed at least OPS times since BEFORE
flush_check() {
  local after
  after=$(flushes)
  if [ -z "$after" ]; then
    echo "ok $((TESTS_RUN += 1)) # SKIP no flush counter: $1"
    return
  fi
  cmp_ok "$((after - $3))" '>=' "$2" "$1: the device flushed at least $2 times"
}

# --- the sync option, both engines ----------------------------------------
for spec in "1 1 fdatasync" "1 1 fsync" "1 1 open_datasync" "1 1 open_sync" "2 4 fdatasync" "2 4 open_datasync"; do
  set -- $spec
  f0=$(flushes)
  row=$(q "SELECT writes || '|' || status FROM ranread_run($1, duration => '1 s', write_pct => 100, queue_depth => $2, sync => '$3')")
  writes=${row%%|*}
  is "${row#*|}" completed "sync => '$3' at $1 x QD$2 completes"
  # concurrent syncs may share a flush: at most every op in flight at once
  flush_check "sync => '$3' at $1 x QD$2" "$((writes / ($1 * $2)))" "${f0:-0}"
  is "$(q "SELECT sync || '|' || engine FROM ranread_summary_full ORDER BY batch DESC LIMIT 1")" \
    "$3|$([ "$1$2" = 11 ] && echo sync || echo io_uring)" "... recorded as sync $3, with the engine that ran it"
done
is "$(q "SELECT count(*) FROM ranread_summary_full WHERE sync IS NULL")" 0 "every synced batch says so in ranread_summary"
q "SELECT status FROM ranread_run(1, duration => '0.5 s', write_pct => 100)" >/dev/null
is "$(q "SELECT coalesce(sync, 'NULL') FROM ranread_summary_full ORDER BY batch DESC LIMIT 1")" NULL "a batch without sync records NULL"

# --- a whole commit test ---------------------------------------------------
f0=$(flushes)
out=$(psql -qAtX -d "$DB" -c "SELECT test || '|' || method || '|' || writes || '|' || write_kb || '|' || status || '|' || coalesce(round(ops_per_s)::text, '') || '|' || durable
                                FROM ranread_commit_test(duration => '0.5 s')" 2>"$WORK/commit.err")
diag "$(echo "$out" | tr '\n' ' ')"
is "$(echo "$out" | wc -l)" 15 "the commit test returns one row per test (15)"
is "$(echo "$out" | grep -c '|completed|')" "$(echo "$out" | grep -vc 'unavailable')" "every test that can run here completes"
is "$(echo "$out" | grep -c '^one 8 kB write|fsync_writethrough|1|8|unavailable||true$')" 1 "fsync_writethrough is reported unavailable on Linux"
is "$(echo "$out" | grep -c '^non-synced write|none|1|8|completed|[0-9]*|false$')" 1 "the non-synced write is there, not durable"
durable=$(q "SELECT round(sum(b.writes / g.writes_per_op) * 0.9) FROM ranread_batches b JOIN ranread_groups g USING (batch)
               WHERE g.sync IS NOT NULL AND b.commit_test = (SELECT max(commit_test) FROM ranread_commit_summary)")
flush_check "the commit test's durable ops" "${durable:-0}" "${f0:-0}"
is "$(q "SELECT count(DISTINCT (test, method, writes, write_kb)) FROM ranread_commit_summary WHERE commit_test = (SELECT max(commit_test) FROM ranread_commit_summary)")" \
  "$(echo "$out" | grep -c '|completed|')" "ranread_commit_summary has the rows of every test that ran (a row per round of the one 8 kB write)"
is "$(q "SELECT count(DISTINCT tablespace) || '|' || min(tablespace) FROM ranread_commit_summary")" "1|pg_wal" "... measured on pg_wal's filesystem"
# the verdict: the figures of this call's durable one-write tests, and
# ranread_advise_wal_sync_method's note on them (what ranread_advise says)
verdict=$(q "SELECT format('commit test %s on pg_wal, one 8 kB write and its sync: %s; %s|%s', c.commit_test, w.measured, w.note,
                           w.method IS DISTINCT FROM current_setting('wal_sync_method') AND w.method IS NOT NULL)
               FROM (SELECT commit_test, array_agg(method ORDER BY batch) AS m, array_agg(ops_per_s ORDER BY batch) AS o
                       FROM ranread_internal.ranread_commit_summary_raw   -- every round, the figures whole, as the NOTICE has them
                      WHERE commit_test = (SELECT max(commit_test) FROM ranread_commit_summary)
                        AND test = 'one 8 kB write' AND durable AND status = 'completed' GROUP BY commit_test) c,
                    LATERAL ranread_advise_wal_sync_method(c.m, c.o, current_setting('wal_sync_method')) w")
diag "verdict: ${verdict%|*}"
is "$(grep '^NOTICE:  commit test ' "$WORK/commit.err" | sed 's/^NOTICE:  //')" "${verdict%|*}" \
  "the NOTICE compares the methods this call measured, with the server's wal_sync_method, in ranread_advise's words"
is "$(grep -c "^HINT:  ALTER SYSTEM SET wal_sync_method = " "$WORK/commit.err")" "$([ "${verdict##*|}" = t ] && echo 1 || echo 0)" \
  "... with the ALTER SYSTEM to switch exactly when another method is faster beyond the noise of the rounds and by more than 10%"
is "$(scratch_files)" 0 "the scratch file is gone after the commit test"

# only some methods
is "$(q "SELECT string_agg(method || ':' || writes, ',' ORDER BY batch) FROM ranread_commit_test(duration => '0.2 s', methods => '{fdatasync}')")" \
  "fdatasync:1,fdatasync:2" "methods => '{fdatasync}' runs the fdatasync tests only"
# one method: nothing to compare it with, so no method is "fastest"
psql -qAtX -d "$DB" -c "SELECT count(*) FROM ranread_commit_test(duration => '0.2 s', methods => '{open_sync}')" >/dev/null 2>"$WORK/one.err"
msg=$(grep -A1 '^NOTICE:  commit test ' "$WORK/one.err")
diag "$msg"
echo "$msg" | grep -qE "^NOTICE:  commit test [0-9]* on pg_wal, one 8 kB write and its sync: open_sync [0-9,]* ops/s( \(95% interval [0-9,]* to [0-9,]*, [0-9]* rounds\))?; only open_sync was measured, not $(q "SHOW wal_sync_method"), the server's wal_sync_method: nothing to compare$"
ok $? "a commit test of open_sync alone says it had nothing to compare open_sync with"
is "$(echo "$msg" | grep -c 'fastest')" 0 "... and calls no method the fastest"
echo "$msg" | grep -q "^HINT:  Measure $(q "SHOW wal_sync_method") and the other methods in one call: SELECT \* FROM ranread_commit_test();$"
ok $? "... and its hint is the call that compares them, not an ALTER SYSTEM"

# --- the scratch file is on the device before the first test --------------
# pg_virtualenv's clusters run with fsync = off, under which PostgreSQL's own
# pg_fsync does nothing: the scratch file must be flushed by a real fsync, or
# the first test also pays for its dirty pages.  The backend writes it.
if ! command -v strace >/dev/null; then
  echo "ok $((TESTS_RUN += 1)) # SKIP strace is not installed: scratch flush not traced"
else
  psql -qAtX -d "$DB" -c "SELECT pg_backend_pid()" -c "SELECT pg_sleep(2)" \
    -c "SELECT count(*) FROM ranread_commit_test(duration => '0.2 s', methods => '{fdatasync}')" > "$WORK/flush.out" 2>&1 &
  FLUSH_CLIENT=$!
  for _ in $(seq 50); do [ -s "$WORK/flush.out" ] && break; sleep 0.2; done
  bpid=$(head -1 "$WORK/flush.out")
  strace -qq -p "$bpid" -e trace=openat,fsync,fdatasync -o "$WORK/flush.strace" 2>"$WORK/strace.err" &
  STRACE=$!
  wait "$FLUSH_CLIENT"
  sleep 0.5; kill "$STRACE" 2>/dev/null; wait "$STRACE" 2>/dev/null
  if ! grep -q 'ranread_commit' "$WORK/flush.strace" 2>/dev/null; then
    echo "ok $((TESTS_RUN += 1)) # SKIP strace could not follow the backend ($(head -c 200 "$WORK/strace.err"))"
  else
    fd=$(grep -m1 'openat(.*ranread_commit.*O_CREAT' "$WORK/flush.strace" | sed -n 's/.*= \([0-9]*\)$/\1/p')
    diag "fsync = $(q "SHOW fsync"); scratch file opened as fd $fd"
    grep -qE "^(fsync|fdatasync)\($fd\) += 0" "$WORK/flush.strace"
    ok $? "the backend flushes the scratch file with a real fsync before the tests, whatever the server's fsync setting"
  fi
fi

# --- the scratch file after a stop, a cancel, a crash ----------------------
bg_psql rr_commit_stop "SELECT string_agg(status, ',') FROM ranread_commit_test(duration => '3 s', methods => '{fdatasync, fsync}')"
CLIENT=$BG_PID
wait_running 30
ok $? "a commit test is running"
is "$(scratch_files)" 1 "... with its scratch file"
q "SELECT ranread_stop()" >/dev/null
wait_pid "$CLIENT" 20
stops=$(bg_output rr_commit_stop | tail -1)
# (the rounds run the methods in turn: the one whose round was stopped says
# so, the others of that test completed theirs; a stop between two rounds
# stops the next one as it starts)
echo "$stops" | grep -qE '^((completed|stopped),)*(completed|stopped)(,not run)*$' &&
  [ "$(echo "$stops" | grep -o stopped | wc -l)" = 1 ]
ok $? "ranread_stop() stops the commit test: the method whose round ran stopped, the later tests not run ($stops)"
is "$(scratch_files)" 0 "the scratch file is gone after the stop"

# A commit test is many short batches (its rounds); a timeout that falls in
# the gap between two interrupts none of them, and the call ends with every
# batch it ran completed.  Up to four tries, until one falls in a batch.
cancels=0 landed=""
for try in 1 2 3 4; do
  out=$(psql -qAtX -d "$DB" -c "SET statement_timeout = '1500ms'" -c "SELECT count(*) FROM ranread_commit_test(duration => '3 s')" 2>&1)
  echo "$out" | grep -q 'canceling statement due to statement timeout' && cancels=$((cancels + 1))
  landed=$(q "SELECT status FROM ranread_summary_full ORDER BY batch DESC LIMIT 1")
  [ "$landed" = cancelled ] && break
done
is "$cancels" "$try" "statement_timeout cancels a commit test (each of $try tries)"
is "$(scratch_files)" 0 "the scratch file is gone after the cancel"
is "$landed" cancelled "... and the test it interrupted is recorded 'cancelled' (try $try of at most 4; a timeout between two batches interrupts none)"
is "$(q "SELECT count(*) FROM ranread_batches WHERE status = 'running'")" 0 "... and no batch is left 'running', whichever way the timeouts fell"

touch "$DD/base/pgsql_tmp/pgsql_tmpranread_commit.4194305"
chown postgres: "$DD/base/pgsql_tmp/pgsql_tmpranread_commit.4194305"
msg=$(psql -qAtX -d "$DB" -c "SELECT count(*) FROM ranread_commit_test(duration => '0.2 s', methods => '{none}')" 2>&1)
echo "$msg" | grep -q 'removed the scratch file ".*pgsql_tmpranread_commit.4194305" a commit test of process 4194305 left behind'
ok $? "a leftover scratch file of a process that is gone is removed by the next commit test, and said so"
is "$(scratch_files)" 0 "... and no scratch file is left"

bg_psql rr_commit_crash "SELECT count(*) FROM ranread_commit_test(duration => '10 s', methods => '{fdatasync}')"
CLIENT=$BG_PID
wait_running 30
ok $? "a commit test is running again"
is "$(scratch_files)" 1 "... with its scratch file"
CKPT=$(checkpointer_pid)
# its rounds are batches of their own: in the gap between two there is no
# worker to kill, so try again for up to 3 s
victim=
for i in $(seq 60); do
  victim=$(worker_pids | tail -1)
  [ -n "$victim" ] && kill -9 "$victim" 2>/dev/null && break
  victim=
  sleep 0.05
done
[ -n "$victim" ]
ok $? "a worker of it is killed (SIGKILL)"
wait_restarted 90 "$CKPT"
ok $? "SIGKILL of its worker: the server crash-restarts"
wait_pid "$CLIENT" 10
is "$(scratch_files)" 0 "the crash restart removed the scratch file (it is a pgsql_tmp file)"

# --- pg_wal symlinked to another filesystem --------------------------------
if loopfs_make 200M "$MNT"; then
  C=$WORK/cluster
  chown postgres: "$MNT"
  cluster_init "$C" --waldir="$MNT/wal"
  # the reserve left free where pg_wal lives counts twice max_wal_size
  cluster_conf "$C" "max_wal_size = 32MB" "min_wal_size = 32MB"
  PORT=$(free_port)
  cluster_start "$C" "$PORT"
  qc "$C" "$PORT" postgres "CREATE EXTENSION ranread" >/dev/null
  msg=$(psql -qAtX -h "$C" -p "$PORT" -d postgres -c "SELECT method || '|' || status FROM ranread_commit_test(duration => '0.3 s', methods => '{fdatasync}')" 2>&1)
  echo "$msg" | grep -q "scratch file pg_wal/ranread_commit_test\.[0-9]*"
  ok $? "pg_wal on another filesystem: the scratch file goes into pg_wal"
  is "$(echo "$msg" | grep -c '^fdatasync|completed$')" 2 "... and the tests complete there"
  is "$(qc "$C" "$PORT" postgres "SELECT DISTINCT tablespace || '|' || filesystem FROM ranread_commit_summary")" "pg_wal|ext4" \
    "... recorded as pg_wal on ext4"
  is "$(find "$MNT/wal" -maxdepth 1 -name 'ranread_commit*' | wc -l)" 0 "... and the scratch file is gone from the symlinked pg_wal"
  cluster_stop "$C"
else
  echo "ok $((TESTS_RUN += 1)) # SKIP cannot make a loop-device filesystem for pg_wal here"
fi

done_testing
