#!/bin/bash
# The postmaster killed with SIGKILL (an OOM kill, an operator's mistake):
# every ranread process notices within about a second and exits, so that the
# server can be started again at once (pg_ctl start refuses while children
# of the old postmaster still hold its shared memory).  In a cluster of its
# own, three times:
#  - during ranread_setup's fill of a large target
#  - during a batch: its workers and its leader
#  - while a finished batch's recorder waits for a lock on the history
# Each time: the processes are gone within 1.5 s of the kill (1 s asked,
# 0.5 s slack for this shared machine), and a new postmaster starts at once
# (the last time through pg_ctl start).
. "$(dirname "$0")/lib/lib.sh"
. "$(dirname "$0")/lib/faults.bash"
. "$(dirname "$0")/lib/cluster.bash"
trap 'faults_cleanup; cluster_stop_all' EXIT

D="$WORK/pmdeath"
P=$(free_port)
cluster_init "$D"
CLUSTERS+=("$D")
cluster_conf "$D" "shared_buffers = 16MB" "max_worker_processes = 16" "restart_after_crash = off"
if [ -n "${RANREAD_DESTDIR:-}" ]; then
  cluster_conf "$D" "extension_destdir = '$RANREAD_DESTDIR'" \
    "dynamic_library_path = '$RANREAD_DESTDIR$($PGBIN/pg_config --pkglibdir):\$libdir'"
fi
c() { qc "$D" "$P" rr_pm "$1"; }

pm_pid() { head -1 "$D/postmaster.pid"; }
# running PID: the process exists and is not a zombie (nothing may reap the
# children of a dead postmaster soon)
running() { [ -e "/proc/$1" ] && ! grep -q '^State:[[:space:]]*Z' "/proc/$1/status" 2>/dev/null; }
# gone_within SECONDS PID...: poll until none of the PIDs runs; echo the time it took
gone_within() {
  local limit=$1 t0 p left
  shift
  t0=$(now_ms)
  while :; do
    left=0
    for p in "$@"; do running "$p" && left=1; done
    [ $left -eq 0 ] && { secs "$t0" "$(now_ms)"; return 0; }
    [ $(( $(now_ms) - t0 )) -gt $((limit * 1000)) ] && { secs "$t0" "$(now_ms)"; return 1; }
    sleep 0.02
  done
}
# kill_postmaster: SIGKILL it, after noting its children
kill_postmaster() { KILLED_PM=$(pm_pid); CHILDREN=$(pgrep -P "$KILLED_PM" | tr '\n' ' '); kill -9 "$KILLED_PM"; }
# the old postmaster's other children (checkpointer ...) leave too
children_gone() { gone_within 10 $CHILDREN >/dev/null; }
# start_pm: a postmaster on the data directory, as a child of this script, so
# that its death is reaped at once (pg_ctl leaves the postmaster to the
# machine's init, which in a container may leave a killed one a zombie for
# many seconds, and a zombie's PID in postmaster.pid keeps any new
# postmaster out); ready within 30 s or false
start_pm() {
  touch "$D/server.log" && chown postgres:postgres "$D/server.log"
  runuser -u postgres -- "$PGBIN/postgres" -D "$D" -p "$P" -k "$D" -c listen_addresses='' >>"$D/server.log" 2>&1 &
  BG_PIDS+=("$!")
  for _ in $(seq 1 300); do
    "$PGBIN/pg_isready" -q -h "$D" -p "$P" && return 0
    running "$!" || return 1
    sleep 0.1
  done
  return 1
}
# restart: the server starts again on the same data directory, at once
restart() { start_pm; }
# fast_exit WHAT PID...: the PIDs exited within 1.5 s of the kill
fast_exit() {
  local what=$1 took
  shift
  took=$(gone_within 10 "$@")
  rc=$?
  diag "$what: gone $took s after the postmaster's SIGKILL"
  [ $rc -eq 0 ] && awk -v t="$took" 'BEGIN { exit !(t <= 1.5) }'
}

start_pm
ok $? "a cluster of its own starts"
qc "$D" "$P" postgres "CREATE DATABASE rr_pm" >/dev/null
c "CREATE EXTENSION ranread" >/dev/null

# --- 1. during a fill
PGAPPNAME=rr_pm_fill psql -qAtX -h "$D" -p "$P" -U postgres -d rr_pm \
  -c "SELECT target FROM ranread_setup('8GB', target => 'big')" >/dev/null 2>&1 &
FILL_CLIENT=$!
BG_PIDS+=("$FILL_CLIENT")
for _ in $(seq 1 200); do
  FILLER=$(c "SELECT pid FROM pg_stat_activity WHERE application_name = 'rr_pm_fill' AND state = 'active'")
  [ -n "$FILLER" ] && [ "$(find "$D/base" -size +50M -newer "$D/postmaster.pid" 2>/dev/null | head -1)" ] && break
  sleep 0.05
done
[ -n "$FILLER" ] && ok 0 "ranread_setup is filling an 8 GB target" || ok 1 "ranread_setup is filling an 8 GB target"
kill_postmaster
fast_exit "the filling backend" "$FILLER"
ok $? "SIGKILL of the postmaster during a fill: the filling backend exits within 1.5 s"
wait "$FILL_CLIENT" 2>/dev/null
children_gone
restart
ok $? "the server starts again right after"
is "$(c "SELECT count(*) FROM ranread_targets WHERE target = 'big'")" 0 "the interrupted target does not exist"
c "SELECT target FROM ranread_setup('16MB')" >/dev/null

# --- 2. during a batch
PGAPPNAME=rr_pm_run psql -qAtX -h "$D" -p "$P" -U postgres -d rr_pm \
  -c "SELECT status FROM ranread_run(2, duration => '60s', workers => 2)" >/dev/null 2>&1 &
RUN_CLIENT=$!
BG_PIDS+=("$RUN_CLIENT")
for _ in $(seq 1 200); do
  [ "$(c "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'ranread worker'")" = 2 ] && break
  sleep 0.05
done
LEADER=$(c "SELECT pid FROM pg_stat_activity WHERE application_name = 'rr_pm_run' AND state = 'active'")
WORKERS=$(c "SELECT string_agg(pid::text, ' ') FROM pg_stat_activity WHERE backend_type = 'ranread worker'")
sleep 0.5
[ -n "$LEADER" ] && [ -n "$WORKERS" ]
ok $? "a batch of two workers is running"
kill_postmaster
fast_exit "the batch's workers" $WORKERS
ok $? "SIGKILL of the postmaster during a batch: its workers exit within 1.5 s"
fast_exit "the batch's leader" "$LEADER"
ok $? "... and its leader"
wait "$RUN_CLIENT" 2>/dev/null
children_gone
restart
ok $? "the server starts again right after"
c "SELECT target FROM ranread_setup('16MB')" >/dev/null

# --- 3. a recorder that waits for a lock
PGAPPNAME=rr_pm_lock psql -qAtX -h "$D" -p "$P" -U postgres -d rr_pm \
  -c "BEGIN" -c "LOCK TABLE ranread_results IN ACCESS EXCLUSIVE MODE" -c "SELECT pg_sleep(60)" >/dev/null 2>&1 &
LOCK_CLIENT=$!
BG_PIDS+=("$LOCK_CLIENT")
sleep 0.5
PGAPPNAME=rr_pm_rec psql -qAtX -h "$D" -p "$P" -U postgres -d rr_pm \
  -c "SELECT status FROM ranread_run(1, 100)" >/dev/null 2>&1 &
REC_CLIENT=$!
BG_PIDS+=("$REC_CLIENT")
for _ in $(seq 1 200); do
  RECORDER=$(c "SELECT pid FROM pg_stat_activity WHERE backend_type = 'ranread worker' AND query LIKE '%waiting for a lock%'")
  [ -n "$RECORDER" ] && break
  sleep 0.05
done
[ -n "$RECORDER" ]
ok $? "a finished batch's recorder waits for a lock on the history"
kill_postmaster
fast_exit "the waiting recorder" "$RECORDER"
ok $? "SIGKILL of the postmaster: a recorder waiting for a lock exits within 1.5 s"
wait "$REC_CLIENT" "$LOCK_CLIENT" 2>/dev/null
children_gone
runuser -u postgres -- "$PGBIN/pg_ctl" -D "$D" -l "$D/server.log" -w -t 60 \
  -o "-p $P -k $D -c listen_addresses=''" start >/dev/null 2>&1
ok $? "pg_ctl start succeeds right after"
is "$(c "SELECT count(*) FROM ranread_batches WHERE status = 'running'")" 1 \
  "the batch whose recording the kill interrupted is still a 'running' row ..."
is "$(c "SELECT status FROM ranread_summary ORDER BY batch DESC LIMIT 1")" failed \
  "... which ranread_summary shows failed"
done_testing
