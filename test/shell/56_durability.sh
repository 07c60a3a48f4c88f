#!/bin/bash
# The power-loss durability check (docs/writes-and-durability.md, "Does the
# storage keep what it flushes?") on the slowfs rig's volatile write cache
# (test/rig/README.md): a tablespace on the rig, pg_wal and the log on the root
# filesystem, a cluster of the test's own (stopped -m immediate, the rig's
# power cut between start and check).
#  - bad input is refused before any write: a check with no start, a bad
#    method, duration or size, a missing tablespace, the storage of pg_wal
#  - honest cache: every acknowledged write survives the cut (0 lost)
#  - lying cache: LOST k of N with k > 0, k the writes the rig acknowledged
#    and dropped (the last acknowledgement may not have reached the log)
#  - a write torn at the cut is found as torn
#  - the durability file survives crash recovery, the check drops it, the
#    history keeps every check; a start while one is pending is refused
#  - the log on another server (log_conninfo): unreachable or this server
#    itself refused before any write; the check needs it and finds the loss
#  - the log server freezes mid-run (SIGSTOP of its postmaster and
#    backends): the start ends by itself within its 10 s per statement, or
#    at once on a cancel, with an error naming the test; the test is
#    recorded as written (ended_by says why) and is checked once the log
#    server answers again
#  - a check while the start runs is refused; ranread_durability_stop ends a
#    run; a cancelled run can be checked; ranread_purge of a target leaves
#    (and names) a durability file on its tablespace, and points a
#    durability file's name to ranread_durability_purge, which drops the
#    file of a terminated run; DROP EXTENSION removes the durability file
. "$(dirname "$0")/lib/lib.sh"
. "$(dirname "$0")/lib/cluster.bash"
. "$(dirname "$0")/../rig/slowfs.sh"

if ! slowfs_build ""; then
  echo "1..0 # SKIP $SLOWFS_WHY"
  exit 0
fi
WORK=$(mktemp -d "$TMPDIR_TEST/durability.XXXXXX")
chmod 755 "$WORK"
D=$WORK/pg
B=$WORK/backing M=$WORK/mnt
cleanup() {
  cluster_stop_all
  slowfs_umount_all
  rm -rf "$WORK"
}
trap cleanup EXIT

slowfs_mount "$B" "$M" "cache=honest"
ok $? "the rig mounts with an honest write cache"
spc=$(slowfs_pg_dir "$M" spc)
PORT=$(free_port)
cluster_init "$D"
cluster_conf "$D" "fsync = on" "max_worker_processes = 8"
cluster_start "$D" "$PORT"
Q() { qc "$D" "$PORT" postgres "$1"; }
E() { psql -qAtX -h "$D" -p "$PORT" -U postgres -d postgres -c "SET client_min_messages = error" -c "$1" 2>&1 >/dev/null | sed -n 's/^.*ERROR:  //p' | head -1; }
Q "CREATE EXTENSION ranread" > /dev/null
Q "CREATE TABLESPACE rig LOCATION '$spc'" > /dev/null
files() { find "$B/spc" -name '[0-9]*' -type f -size +0 2>/dev/null | wc -l; }
restart() {
  cluster_stop "$D" immediate
  [ -n "${1:-}" ] && slowfs_control "$M" "$1"
  runuser -u postgres -- "$PGBIN/pg_ctl" -D "$D" -l "$D/server.log" -w -t 60 \
    -o "-p $PORT -k $D -c listen_addresses=''" start > /dev/null
}
# run_start ARGS: CALL ranread_durability_start(ARGS) in the background; waits
# until at least MIN (default 40) writes are acknowledged
run_start() {
  psql -qAtX -h "$D" -p "$PORT" -U postgres -d postgres \
    -c "CALL ranread_durability_start($1)" > "$WORK/start.out" 2>&1 &
  START_PID=$!
  wait_for 30 "SELECT count(*) FROM ranread_durability WHERE status = 'running' AND acknowledged >= ${2:-40}" 1 "$D" "$PORT" ||
    diag "start: $(cat "$WORK/start.out")"
}
wait_for() {  # SECS SQL WANT DIR PORT
  local deadline=$((SECONDS + $1))
  while [ $SECONDS -lt $deadline ]; do
    [ "$(psql -qAtX -h "$4" -p "$5" -U postgres -d postgres -c "$2" 2>/dev/null)" = "$3" ] && return 0
    sleep 0.2
  done
  return 1
}

# --- bad input: refused before any write
is "$(E "SELECT * FROM ranread_durability_check()")" "no durability test to check" "a check with no start is refused"
is "$(E "CALL ranread_durability_start('rig', method => 'sometimes')")" 'invalid method "sometimes" for ranread_durability_start' \
  "a method that is not a wal_sync_method is refused, named"
is "$(E "CALL ranread_durability_start('rig', duration => '0s')")" "duration 00:00:00 of ranread_durability_start is out of range" \
  "a duration of 0 is refused"
is "$(E "CALL ranread_durability_start('rig', size => 'lots')")" 'invalid size "lots" for ranread_durability_start' \
  "a size pg_size_bytes does not read is refused"
is "$(E "CALL ranread_durability_start('rig', size => '2GB')")" 'invalid size "2GB" for ranread_durability_start' \
  "a size over one segment file is refused"
is "$(E "CALL ranread_durability_start('rig', size => '9e99 TB')")" 'invalid size "9e99 TB" for ranread_durability_start' \
  "a size beyond bigint is refused, named"
Q "ALTER SYSTEM SET fsync = off" > /dev/null; Q "SELECT pg_reload_conf()" > /dev/null
wait_for 10 "SHOW fsync" off "$D" "$PORT"
is "$(E "CALL ranread_durability_start('rig')")" "ranread_durability_start needs fsync = on" \
  "a log in this server's tables needs fsync = on"
Q "ALTER SYSTEM RESET fsync" > /dev/null; Q "SELECT pg_reload_conf()" > /dev/null
wait_for 10 "SHOW fsync" on "$D" "$PORT"
is "$(E "CALL ranread_durability_start('nowhere')")" 'tablespace "nowhere" of ranread_durability_start does not exist' \
  "a missing tablespace is refused"
like_wal=$(E "CALL ranread_durability_start()")
case "$like_wal" in 'tablespace "pg_default" of ranread_durability_start is on the storage of pg_wal'*) r=0 ;; *) r=1; diag "$like_wal" ;; esac
ok $r "the database's own tablespace, on the storage of pg_wal, is refused (the log would be lost with it)"
is "$(Q "SELECT count(*) FROM ranread_durability")|$(files)" "0|0" "... and none of those wrote a row or a file"

# --- honest cache: nothing acknowledged is lost
run_start "'rig', duration => '60s', size => '8MB'"
is "$(files)" 1 "a start writes its durability file on the tested tablespace"
is "$(Q "SELECT count(*) FROM ranread_target_check()")" 0 "ranread_target_check does not take the durability file for a stray relation"
diag "log: $(Q "SELECT log FROM ranread_durability")"
restart cut
wait "$START_PID" 2>/dev/null
is "$(files)" 1 "the durability file survives the power cut and crash recovery"
is "$(E "CALL ranread_durability_start('rig')")" "durability test $(Q "SELECT durability FROM ranread_durability") is not checked yet" \
  "a start while a test is pending is refused"
read -r acked lost torn verdict < <(Q "SELECT acknowledged, lost, torn, verdict FROM ranread_durability_check()" | tr '|' ' ')
diag "honest: $acked acknowledged, $lost lost, $torn torn: $verdict"
cmp_ok "$acked" ">=" 40 "the honest run logged the acknowledged writes"
is "$lost|$torn" "0|0" "honest cache: 0 of the acknowledged writes lost, none torn"
case "$verdict" in "flushes honoured across the restart at "*": $acked acknowledged writes, 0 lost (if the power was cut before that restart; a clean restart tests nothing)") r=0 ;; *) r=1; diag "$verdict" ;; esac
ok $r "... and the verdict says the flushes were honoured across the restart, and what that needs"
is "$(slowfs_stats "$M" dropped_acked)" 0 "... as the rig says: it dropped no acknowledged write"
is "$(files)" 0 "the check drops the durability file"

for m in fsync open_datasync open_sync; do
  run_start "'rig', method => '$m', duration => '60s', size => '8MB'" 20
  restart cut
  wait "$START_PID" 2>/dev/null
  is "$(Q "SELECT lost, torn FROM ranread_durability_check()")" "0|0" "honest cache, $m: 0 acknowledged writes lost"
done

# --- lying cache: acknowledged writes are lost
slowfs_control "$M" lying
run_start "'rig', method => 'fdatasync', duration => '60s', size => '8MB'"
restart cut
wait "$START_PID" 2>/dev/null
read -r acked checked lost verdict < <(Q "SELECT acknowledged, checked, lost, verdict FROM ranread_durability_check()" | tr '|' ' ')
dropped=$(slowfs_stats "$M" dropped_acked)
diag "lying: $acked acknowledged, $checked checked, $lost lost, rig dropped $dropped acknowledged: $verdict"
cmp_ok "$lost" ">" 0 "lying cache: the check finds acknowledged writes lost"
is "$lost" "$checked" "... all of them (the rig never wrote its cache through)"
ok $(( ! (dropped >= lost && dropped <= lost + 1) )) "... as many as the rig acknowledged and dropped ($dropped; the last may not be logged)"
case "$verdict" in "LOST $lost of $checked acknowledged writes: this storage does not keep what it flushes: "*"disable the write cache"*"battery"*) r=0 ;; *) r=1 ;; esac
ok $r "... and the verdict says LOST k of N and what to do"

# --- lying cache, the log on another server (log_conninfo, src/fleet/)
L=$WORK/logsrv
LPORT=$(free_port)
cluster_init "$L"
cluster_start "$L" "$LPORT"
LOGCI="host=$L port=$LPORT user=postgres dbname=postgres"
n_before=$(Q "SELECT count(*) FROM ranread_durability")
out=$(E "CALL ranread_durability_start('rig', log_conninfo => 'host=$WORK/nowhere port=1')")
case "$out" in "cannot reach the log server of the durability test (log_conninfo): "*) r=0 ;; *) r=1; diag "$out" ;; esac
ok $r "an unreachable log server is refused"
out=$(E "CALL ranread_durability_start('rig', log_conninfo => 'host=$D port=$PORT user=postgres dbname=postgres')")
case "$out" in "log_conninfo of the durability test reaches this server itself"*) r=0 ;; *) r=1; diag "$out" ;; esac
ok $r "a log_conninfo that reaches this server itself is refused"
is "$(Q "SELECT count(*) FROM ranread_durability")|$(files)" "$n_before|0" "... and neither wrote a row or a file"
dropped0=$(slowfs_stats "$M" dropped_acked)
psql -qAtX -h "$D" -p "$PORT" -U postgres -d postgres \
  -c "CALL ranread_durability_start('rig', duration => '60s', size => '8MB', log_conninfo => '$LOGCI')" > "$WORK/start.out" 2>&1 &
START_PID=$!
wait_for 30 "SELECT count(*) FROM ranread_durability_log WHERE acknowledged >= 40" 1 "$L" "$LPORT" ||
  diag "start: $(cat "$WORK/start.out")"
restart cut
wait "$START_PID" 2>/dev/null
is "$(E "SELECT * FROM ranread_durability_check()")" "durability test $(Q "SELECT max(durability) FROM ranread_durability") logged its acknowledged writes to another server" \
  "a test logged to another server is not checked without its log_conninfo"
read -r acked lost < <(Q "SELECT acknowledged, lost FROM ranread_durability_check(log_conninfo => '$LOGCI')" | tr '|' ' ')
dropped=$(( $(slowfs_stats "$M" dropped_acked) - dropped0 ))
diag "lying, log on another server: $acked acknowledged, $lost lost, rig dropped $dropped acknowledged"
cmp_ok "$lost" ">=" 40 "log on another server, lying cache: the acknowledged writes it logged are found lost"
ok $(( ! (lost == acked && dropped >= lost && dropped <= lost + 1) )) "... all of them, as many as the rig dropped"

# --- the log server freezes mid-run: the start ends, its state recorded
slowfs_control "$M" honest
freeze() {  # STOP|CONT: the log server's postmaster and every process it started
  local pm; pm=$(head -1 "$L/postmaster.pid")
  kill -"$1" "$pm" $(ps -o pid= --ppid "$pm")
}
start_logged() {  # start with the log on L, wait for 20 logged acknowledgements; sets ID
  psql -qAtX -h "$D" -p "$PORT" -U postgres -d postgres \
    -c "CALL ranread_durability_start('rig', duration => '120s', size => '1MB', log_conninfo => '$LOGCI')" > "$WORK/start.out" 2>&1 &
  START_PID=$!
  wait_for 30 "SELECT count(*) FROM ranread_durability WHERE status = 'running'" 1 "$D" "$PORT"
  ID=$(Q "SELECT durability FROM ranread_durability WHERE status = 'running'")
  wait_for 30 "SELECT count(*) FROM ranread_durability_log WHERE durability = ${ID:-0} AND acknowledged >= 20" 1 "$L" "$LPORT" ||
    diag "start: $(cat "$WORK/start.out")"
}
start_logged
freeze STOP
t0=$SECONDS
wait "$START_PID"; rc=$?
took=$((SECONDS - t0))
out=$(cat "$WORK/start.out")
freeze CONT
ok $(( !(rc != 0 && took >= 8 && took <= 20) )) "a log server that freezes mid-run ends the start by itself, after its 10 s per statement (${took} s)"
case "$out" in *"ERROR:  durability test $ID ended: the log server at "*" failed: the server did not answer within 10000 ms"*) r=0 ;; *) r=1; diag "$out" ;; esac
ok $r "... with an error naming the test, the log server and the wait"
read -r status acked ended < <(Q "SELECT status, acknowledged, ended_by FROM ranread_durability WHERE durability = $ID" | tr '|' ' ')
is "$status" written "... its test is recorded as written"
cmp_ok "$acked" ">=" 20 "... up to the last write logged"
case "$ended" in "the log server at "*) r=0 ;; *) r=1; diag "$ended" ;; esac
ok $r "... and ended_by says the log server failed"
is "$(Q "SELECT lost FROM ranread_durability_check(log_conninfo => '$LOGCI') WHERE durability = $ID")" 0 \
  "... and it is checked once the log server answers again (no power cut: nothing lost)"
start_logged
freeze STOP
sleep 1
Q "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE query LIKE 'CALL ranread_durability_start%'" > /dev/null
t0=$SECONDS
wait "$START_PID"; rc=$?
took=$((SECONDS - t0))
out=$(cat "$WORK/start.out")
freeze CONT
ok $(( !(rc != 0 && took <= 3) )) "a cancel ends a start waiting for a frozen log server at once (${took} s)"
case "$out" in *"ERROR:  canceling statement due to user request"*"DETAIL:  Durability test $ID: its test is recorded as written"*) r=0 ;; *) r=1; diag "$out" ;; esac
ok $r "... with the cancel's error, and a detail saying what was recorded"
is "$(Q "SELECT status || ' ' || (ended_by LIKE 'cancelled: %') FROM ranread_durability WHERE durability = $ID")" "written true" \
  "... its test is recorded as written, ended_by cancelled"
is "$(Q "SELECT lost FROM ranread_durability_check(log_conninfo => '$LOGCI') WHERE durability = $ID")" 0 \
  "... and it is checked afterwards"
slowfs_control "$M" lying
cluster_stop "$L"

# --- open_datasync on a lying cache, torn at the cut
run_start "'rig', method => 'open_datasync', duration => '60s', size => '8MB'"
restart tear
wait "$START_PID" 2>/dev/null
read -r lost torn < <(Q "SELECT lost, torn FROM ranread_durability_check()" | tr '|' ' ')
cmp_ok "$lost" ">" 0 "open_datasync on a lying cache: acknowledged writes lost"
is "$torn" 1 "a write torn at the power cut is found as one torn block"

# --- stop, cancel, history, DROP EXTENSION
slowfs_control "$M" honest
run_start "'rig', method => 'fsync', duration => '60s', size => '256kB'" 60
id=$(Q "SELECT max(durability) FROM ranread_durability")
is "$(E "SELECT * FROM ranread_durability_check()")" "durability test $id is still running" "a check while the start runs is refused"
Q "SELECT ranread_durability_stop()" > /dev/null
t0=$SECONDS
wait "$START_PID"; rc=$?
ok $(( !(rc == 0 && SECONDS - t0 < 10) )) "ranread_durability_stop ends a running start, which returns normally"
is "$(Q "SELECT status FROM ranread_durability ORDER BY durability DESC LIMIT 1")" written "... its test is written, to be checked"
read -r lost verdict < <(Q "SELECT lost, verdict FROM ranread_durability_check()" | tr '|' ' ')
is "$lost" 0 "a run that wraps around its file (32 blocks) and had no power cut loses nothing"
case "$verdict" in "no power cut tested: the server has run since before the test started; "*" acknowledged writes read back, 0 lost"*) r=0 ;; *) r=1; diag "$verdict" ;; esac
ok $r "... and its verdict says no power cut was tested, not that the flushes were honoured"
out=$(psql -qAtX -h "$D" -p "$PORT" -U postgres -d postgres -c "SET statement_timeout = '2s'" \
        -c "CALL ranread_durability_start('rig', duration => '60s', size => '1MB')" 2>&1)
case "$out" in *"canceling statement due to statement timeout"*) r=0 ;; *) r=1; diag "$out" ;; esac
ok $r "a start is cancelled by statement_timeout"
is "$(Q "SELECT lost FROM ranread_durability_check()")" 0 "... and its test is checked afterwards"
is "$(Q "SELECT count(*), count(verdict) FROM ranread_durability WHERE status = 'checked'")" "11|11" "the history keeps every check with its verdict"
run_start "'rig', duration => '60s', size => '1MB'" 5
Q "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE 'CALL ranread_durability_start%'" > /dev/null
wait "$START_PID" 2>/dev/null
wait_for 10 "SELECT count(*) FROM pg_stat_activity WHERE query LIKE 'CALL ranread_durability_start%'" 0 "$D" "$PORT"
is "$(files)" 1 "a start whose session was terminated leaves its durability file, to be checked"
id=$(Q "SELECT max(durability) FROM ranread_durability")
Q "SELECT ranread_setup('1MB', 'rig', 'rig_target')" > /dev/null
out=$(psql -qAtX -h "$D" -p "$PORT" -U postgres -d postgres -c "SELECT ranread_purge('rig_target')" 2>&1)
case "$out" in *"NOTICE:  ranread_purge leaves the durability file of test $id (1024 kB) on tablespace \"rig\""*) r=0 ;; *) r=1; diag "$out" ;; esac
ok $r "ranread_purge of a target on the same tablespace names the durability file it leaves"
is "$(files)|$(Q "SELECT count(*) FROM ranread_targets WHERE target = 'rig_target'")" "1|0" \
  "... drops its target and leaves the durability file, the evidence of a check"
out=$(psql -qAtX -h "$D" -p "$PORT" -U postgres -d postgres -c "SELECT ranread_purge('ranread_durability_$id')" 2>&1)
case "$out" in *"ranread target \"ranread_durability_$id\" does not exist"*"HINT:  A durability file is no target: "*"ranread_durability_purge() drops it unchecked (test $id (1024 kB))."*) r=0 ;; *) r=1; diag "$out" ;; esac
ok $r "ranread_purge of a durability file's name is refused, pointing to ranread_durability_check and ranread_durability_purge"
is "$(Q "SELECT ranread_durability_purge()")" 1 "ranread_durability_purge drops it"
is "$(files)|$(Q "SELECT status, verdict FROM ranread_durability ORDER BY durability DESC LIMIT 1")" "0|checked|purged unchecked" \
  "... and marks its test checked, purged unchecked"
run_start "'rig', duration => '60s', size => '1MB'" 5
Q "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE 'CALL ranread_durability_start%'" > /dev/null
wait "$START_PID" 2>/dev/null
wait_for 10 "SELECT count(*) FROM pg_stat_activity WHERE query LIKE 'CALL ranread_durability_start%'" 0 "$D" "$PORT"
Q "DROP EXTENSION ranread" > /dev/null
Q "CHECKPOINT" > /dev/null
is "$(find "$B/spc" -name '[0-9]*' -type f | wc -l)" 0 "DROP EXTENSION removes a durability file not checked"
Q "DROP TABLESPACE rig" > /dev/null
ok $? "... and the tablespace can be dropped"
done_testing
