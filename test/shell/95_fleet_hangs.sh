#!/bin/bash
# The fleet never hangs on a node: whatever a node does (frozen with SIGSTOP
# before the connection, during the run, during the final fetch of its
# batch; dead), a cancel, a statement_timeout or a terminate of the
# coordinator ends its call within 5 s, and the node that did not answer is
# recorded lost.  Two throwaway clusters: node 1 behaves, node 2 is the one
# frozen (its postmaster and every process of it, or only its session of the
# fleet); the EXIT trap thaws whatever is frozen before it stops them.
# Also: a node frozen before the connection is given up after the
# conninfo's connect_timeout, or ranread's 10 s when it gives none; one
# frozen during a run by duration 30 s after the batch was due to end; one
# frozen during a run by iterations 30 s after it was last seen at work.
. "$(dirname "$0")/lib/lib.sh"
. "$(dirname "$0")/lib/faults.bash"
. "$(dirname "$0")/lib/cluster.bash"
FROZEN=()
thaw_all() { local p; for p in "${FROZEN[@]}"; do kill -CONT "$p" 2>/dev/null; done; FROZEN=(); }
trap 'thaw_all; faults_cleanup; cluster_stop_all' EXIT

setup_db rr_hangs
NODE_DIR=() NODE_PORT=() N=()
used=""
for i in 1 2; do
  d="$WORK/node$i"
  cluster_init "$d"
  cluster_conf "$d" "shared_buffers = 16MB" "max_worker_processes = 16" "fsync = off"
  p=""
  for c in $(seq 55632 55732); do
    case " $used " in *" $c "*) continue ;; esac
    if ! ss -ltn 2>/dev/null | grep -q ":$c\b" && [ ! -e "/tmp/.s.PGSQL.$c" ] && [ ! -e "/var/run/postgresql/.s.PGSQL.$c" ]; then p=$c; break; fi
  done
  used="$used $p"
  cluster_start "$d" "$p"
  NODE_DIR[$i]=$d NODE_PORT[$i]=$p
  qc "$d" "$p" postgres "CREATE DATABASE fleet" >/dev/null
  qc "$d" "$p" fleet "CREATE EXTENSION ranread" >/dev/null
  qc "$d" "$p" fleet "SELECT target FROM ranread_setup('16MB')" >/dev/null
  N[$i]="host=$d port=$p dbname=fleet user=postgres"
done
[ "$(qc "${NODE_DIR[2]}" "${NODE_PORT[2]}" fleet "SELECT state FROM ranread_targets")" = ready ]
ok $? "two clusters on ports ${NODE_PORT[*]}, each with a target"
qn() { qc "${NODE_DIR[$1]}" "${NODE_PORT[$1]}" fleet "$2"; }
# the coordinator's bound (sql/code/51_fleet_loop.sql: within 5 s whatever
# the nodes do), and 1 s for a machine loaded by other tests
BOUND=6000
BOTH="ARRAY['${N[1]}', '${N[2]}']"

# freeze / thaw a node: its postmaster and every process of it
node_pids() { local pm; pm=$(head -1 "${NODE_DIR[$1]}/postmaster.pid"); echo "$pm $(ps -o pid= --ppid "$pm")"; }
freeze() { local p; for p in $(node_pids "$1"); do kill -STOP "$p" && FROZEN+=("$p"); done; }
# freeze_pid PID: one process only (a node's session of the fleet)
freeze_pid() { kill -STOP "$1" && FROZEN+=("$1"); }
# the node's backend serving the fleet
# (of fleet $F: a session of an earlier fleet may not have gone yet)
fleet_session() { qn "$1" "SELECT pid FROM pg_stat_activity WHERE application_name = 'ranread_fleet $F' LIMIT 1"; }
node_busy() { qn "$1" "SELECT count(*) FROM pg_stat_activity WHERE backend_type LIKE 'ranread%' OR application_name LIKE 'ranread_fleet%'"; }
# wait_idle I: a node thawed is left with no worker and no fleet session
wait_idle() {
  local deadline=$(( $(now_ms) + 20000 ))
  while [ "$(node_busy "$1")" != 0 ]; do
    [ "$(now_ms)" -ge "$deadline" ] && return 1
    sleep 0.1
  done
}
wait_running_on() {
  local deadline=$(( $(now_ms) + 20000 )) i n
  while [ "$(now_ms)" -lt "$deadline" ]; do
    n=0
    for i in "$@"; do
      [ "$(qn "$i" "SELECT count(*) FROM pg_stat_activity WHERE backend_type LIKE 'ranread%' AND query ~ ' [1-9][0-9]* I/Os'")" -gt 0 ] && n=$((n + 1))
    done
    [ "$n" -eq $# ] && return 0
    sleep 0.1
  done
  return 1
}
coordinator() { session_pid "$1"; }
latest_fleet() { q "SELECT max(fleet) FROM ranread_fleets"; }
# end_call HOW NAME: cancel or terminate the coordinator (statement_timeout ends it by itself)
end_call() {
  case "$1" in
    cancel) q "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE application_name = '$2'" >/dev/null ;;
    terminate) q "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = '$2'" >/dev/null ;;
  esac
}
# ended_within CLIENT_PID T0_MS: ms from T0 until the coordinator's client ended (or 99999)
ended_within() {
  local secs=$(( ($2 - $(now_ms)) / 1000 + 8 ))   # T0 may be ahead (a statement_timeout's)
  [ "$secs" -ge 8 ] || secs=8
  if wait_pid "$1" "$secs"; then echo $(( $(now_ms) - $2 )); else echo 99999; fi
}

# --- frozen before the connection: a cancel, a timeout, a terminate end the call at once
for how in cancel timeout terminate; do
  freeze 2
  stmt="SELECT node, status FROM ranread_fleet($BOTH, 1, duration => '10s', start_delay => '0.5s')"
  before=$(qn 1 "SELECT count(*) FROM ranread_batches")
  if [ "$how" = timeout ]; then
    bg_psql "pre_$how" "SET statement_timeout = '2s'" "$stmt"
  else
    bg_psql "pre_$how" "$stmt"
  fi
  client=$BG_PID
  if [ "$how" = timeout ]; then t0=$(( $(now_ms) + 2000 )); sleep 2; else sleep 1.5; t0=$(now_ms); end_call "$how" "pre_$how"; fi
  took=$(ended_within "$client" "$t0")
  diag "frozen before the connection, $how: the call ended $took ms after it"
  cmp_ok "$took" "<=" $BOUND "node frozen before the connection: the coordinator ends within 5 s of its $how (+1 s for a loaded machine)"
  is "$(qn 1 "SELECT count(*) FROM ranread_batches")" "$before" "... and nothing ran on the other node"
  thaw_all
  wait_idle 2
done

# --- frozen before the connection, nobody intervening: connect_timeout, or ranread's own
freeze 2
t0=$(now_ms)
msg=$(q_state "SELECT * FROM ranread_fleet(ARRAY['${N[1]}', '${N[2]} connect_timeout=2'], 1, duration => '1s')")
took=$(( $(now_ms) - t0 ))
diag "connect_timeout=2: $took ms; $msg"
echo "$msg" | grep -q "^08001: node \"${NODE_DIR[2]}:${NODE_PORT[2]}\" of ranread_fleet is unavailable: it cannot be reached: the server did not answer the connection within 2000 ms"
ok $? "a node frozen before the connection is unavailable after its connect_timeout (2 s), named"
cmp_ok "$took" "<" 4500 "... the call ends soon after it"
t0=$(now_ms)
msg=$(q_state "SELECT * FROM ranread_fleet($BOTH, 1, duration => '1s')")
took=$(( $(now_ms) - t0 ))
diag "no connect_timeout: $took ms; $msg"
echo "$msg" | grep -q "did not answer the connection within 10000 ms (ranread's connect timeout, as the connection string gives none)"
ok $? "without connect_timeout in its connection string, ranread gives it 10 s"
cmp_ok "$took" "<" 15000 "... the call ends soon after them (within 5 s)"
thaw_all
wait_idle 2

# --- frozen during the run
for how in cancel timeout terminate; do
  stmt="SELECT node, status FROM ranread_fleet($BOTH, 1, duration => '30s', start_delay => '0.5s')"
  if [ "$how" = timeout ]; then
    bg_psql "run_$how" "SET statement_timeout = '12s'" "$stmt"
    tstart=$(now_ms)
  else
    bg_psql "run_$how" "$stmt"
  fi
  client=$BG_PID
  wait_running_on 1 2 || diag "the fleet did not start on both nodes"
  F=$(latest_fleet)
  freeze 2
  if [ "$how" = timeout ]; then
    t0=$(( tstart + 12000 ))
  else
    sleep 0.5; t0=$(now_ms); end_call "$how" "run_$how"
  fi
  took=$(ended_within "$client" "$t0")
  diag "frozen during the run, $how: the call ended $took ms after it"
  cmp_ok "$took" "<=" $BOUND "node frozen during the run: the coordinator ends within 5 s of its $how (+1 s for a loaded machine)"
  bg_output "run_$how" | grep -E 'WARNING|ERROR|FATAL' | sed 's/^/# /'
  if [ "$how" = terminate ]; then
    want="failed|lost,lost"
  else
    want="cancelled|cancelled,lost"
  fi
  got="$(q "SELECT status FROM ranread_fleets WHERE fleet = $F")|$(q "SELECT string_agg(status, ',' ORDER BY node) FROM ranread_fleet_nodes WHERE fleet = $F")"
  is "$got" "$want" "... the fleet is recorded $(echo "$want" | cut -d'|' -f1), the frozen node lost"
  if [ "$how" != terminate ]; then
    is "$(q "SELECT batch IS NOT NULL AND reads > 0 FROM ranread_fleet_nodes WHERE fleet = $F AND node = 1")" t \
       "... the other node's batch is collected, cancelled"
    bg_output "run_$how" | grep -q "WARNING:  fleet $F cancelled: 1 of its nodes lost (no answer to their cancel), the others stopped; what they did is recorded"
    ok $? "... and its WARNING says a node was lost, not that every node was stopped"
  fi
  thaw_all
  wait_idle 2
  ok $? "... once thawed, the frozen node ends its batch and its session (it sees the coordinator gone)"
  is "$(qn 2 "SELECT status FROM ranread_batches WHERE fleet = $F")" cancelled "... and records its batch cancelled"
  wait_idle 1
done

# --- frozen during a run by duration, nobody intervening: given up 30 s
# after its batch was due to end
bg_psql run_due "SELECT node, status FROM ranread_fleet($BOTH, 1, duration => '6s', start_delay => '0.5s')"
client=$BG_PID
# both nodes have their workers (their I/O may not have shown yet)
deadline=$(( $(now_ms) + 20000 ))
until [ "$(qn 1 "SELECT count(*) FROM pg_stat_activity WHERE backend_type LIKE 'ranread%'")" -gt 0 ] &&
      [ "$(qn 2 "SELECT count(*) FROM pg_stat_activity WHERE backend_type LIKE 'ranread%'")" -gt 0 ]; do
  [ "$(now_ms)" -ge "$deadline" ] && { diag "the fleet did not start on both nodes"; break; }
  sleep 0.05
done
F=$(latest_fleet)
freeze 2
wait_pid "$client" 60
# the batch was due to end at start_at + 6 s: the bound is 30 s after that
due=$(( $(q "SELECT (extract(epoch FROM start_at) * 1000)::bigint FROM ranread_fleets WHERE fleet = $F") + 6000 + 30000 ))
took=$(( $(now_ms) - due ))
diag "frozen during a 6 s run: the call ended $took ms after 30 s past the batch's due end"
cmp_ok "$took" "<=" $BOUND "node frozen during a run by duration: the call ends within 5 s of 30 s past the batch's due end (+1 s for a loaded machine)"
cmp_ok "$took" ">=" 0 "... and not before"
is "$(q "SELECT status FROM ranread_fleets WHERE fleet = $F")|$(q "SELECT string_agg(status, ',' ORDER BY node) FROM ranread_fleet_nodes WHERE fleet = $F")" \
   "failed|completed,lost" "... the fleet is recorded failed, the other node completed, the frozen one lost"
q "SELECT message FROM ranread_fleet_nodes WHERE fleet = $F AND node = 2" | grep -q 'did not answer 30 s after its batch was due to end'
ok $? "... saying why"
thaw_all
wait_idle 2
wait_idle 1

# --- frozen during a run by iterations, nobody intervening: no due end, but
# ranread's probe (every 10 s) no longer sees it at work: given up 30 s after
# it was last seen, node 1 (2,000 I/Os at 200 a second: 10 s) unharmed
bg_psql run_iter "SELECT node, status FROM ranread_fleet($BOTH, 1, iterations => 2000, rate_iops => 200, start_delay => '0.5s')"
client=$BG_PID
wait_running_on 1 2 || diag "the fleet did not start on both nodes"
F=$(latest_fleet)
freeze 2
tf=$(now_ms)
wait_pid "$client" 75
took=$(( $(now_ms) - tf ))
diag "frozen during a run by iterations: the call ended $took ms after the freeze"
bg_output run_iter | grep -E 'WARNING|ERROR' | sed 's/^/# /'
cmp_ok "$took" "<=" 55000 "node frozen during a run by iterations: the call ends within 55 s of the freeze (30 s unseen, a probe every 10 s within 5 s, 3 s to stop it)"
cmp_ok "$took" ">=" 28000 "... and not before it was unseen for 30 s"
is "$(q "SELECT status FROM ranread_fleets WHERE fleet = $F")|$(q "SELECT string_agg(status, ',' ORDER BY node) FROM ranread_fleet_nodes WHERE fleet = $F")" \
   "failed|completed,lost" "... the fleet is recorded failed, the other node completed, the frozen one lost"
q "SELECT message FROM ranread_fleet_nodes WHERE fleet = $F AND node = 2" | grep -q 'it showed no sign of work for 30 s'
ok $? "... saying why"
bg_output run_iter | grep -q "WARNING:  fleet $F: node \"${NODE_DIR[2]}:${NODE_PORT[2]}\" showed no sign of work for 30 s (a run by iterations has no due end): stopping it"
ok $? "... and a WARNING names the node and the bound"
thaw_all
wait_idle 2
wait_idle 1

# --- frozen during the final fetch: node 2 has answered its batch and is
# frozen while the coordinator reads what it recorded; node 1's session is
# held (SIGSTOP) until then, so that the fetch comes after the freeze
for how in cancel timeout terminate; do
  # 8 s batches: node 1's session must be held before its batch ends, some
  # 2 s of polls after it started on a loaded machine
  stmt="SELECT node, status FROM ranread_fleet($BOTH, 1, duration => '8s', start_delay => '0.5s')"
  if [ "$how" = timeout ]; then
    bg_psql "fetch_$how" "SET statement_timeout = '17s'" "$stmt"
    tstart=$(now_ms)
  else
    bg_psql "fetch_$how" "$stmt"
  fi
  client=$BG_PID
  # node 1's session holds its batch's result: its workers are doing their
  # I/O (they run on their own), the session is held
  wait_running_on 1 || diag "node 1 did not start its batch"
  F=$(latest_fleet)
  s1=$(fleet_session 1)
  freeze_pid "$s1"
  is "$(qn 1 "SELECT string_agg(status, ',') FROM ranread_batches WHERE fleet = $F")" running \
    "fleet $F ($how): node 1's batch still runs when its session is held"
  diag "fleet $F: node 1's session $s1 held ($(ps -o stat= -p "$s1")); node 2: $(qn 2 "SELECT string_agg(status, ',') FROM ranread_batches WHERE fleet = $F")"
  deadline=$(( $(now_ms) + 20000 ))
  until [ "$(qn 2 "SELECT count(*) FROM ranread_batches WHERE fleet = $F AND status <> 'running'")" = 1 ] &&
        [ "$(qn 2 "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'ranread_fleet $F' AND state = 'idle'")" = 1 ]; do
    [ "$(now_ms)" -ge "$deadline" ] && { diag "node 2 did not finish its batch"; break; }
    sleep 0.05
  done
  freeze 2
  kill -CONT "$s1"
  # the coordinator now waits for node 2's batch row
  sleep 0.5
  if [ "$how" = timeout ]; then
    t0=$(( tstart + 17000 ))
    diag "the timeout comes $(( t0 - $(now_ms) )) ms after node 2 froze during the fetch"
  else
    t0=$(now_ms); end_call "$how" "fetch_$how"
  fi
  took=$(ended_within "$client" "$t0")
  diag "frozen during the final fetch, $how: the call ended $took ms after it"
  cmp_ok "$took" "<=" $BOUND "node frozen during the final fetch: the coordinator ends within 5 s of its $how (+1 s for a loaded machine)"
  bg_output "fetch_$how" | grep -E 'WARNING|ERROR|FATAL' | sed 's/^/# /'
  if [ "$how" = terminate ]; then
    want="failed|lost,lost"
  else
    want="cancelled|completed,lost"
  fi
  got="$(q "SELECT status FROM ranread_fleets WHERE fleet = $F")|$(q "SELECT string_agg(status, ',' ORDER BY node) FROM ranread_fleet_nodes WHERE fleet = $F")"
  is "$got" "$want" "... the fleet is recorded $(echo "$want" | cut -d'|' -f1), the frozen node lost"
  thaw_all
  wait_idle 2
  wait_idle 1
done

# --- dead: node 2 killed (SIGKILL, every process of it) during the run, then a cancel
bg_psql dead "SELECT node, status FROM ranread_fleet($BOTH, 1, duration => '30s', start_delay => '0.5s')"
client=$BG_PID
wait_running_on 1 2 || diag "the fleet did not start on both nodes"
F=$(latest_fleet)
for p in $(node_pids 2); do kill -KILL "$p" 2>/dev/null; done
sleep 1
t0=$(now_ms)
end_call cancel dead
took=$(ended_within "$client" "$t0")
diag "node killed, then a cancel: the call ended $took ms after it"
cmp_ok "$took" "<=" $BOUND "a node killed during the run: the coordinator ends within 5 s of a cancel (+1 s for a loaded machine)"
is "$(q "SELECT status FROM ranread_fleets WHERE fleet = $F")|$(q "SELECT string_agg(status, ',' ORDER BY node) FROM ranread_fleet_nodes WHERE fleet = $F")" \
   "cancelled|cancelled,failed" "... the fleet is recorded cancelled, the dead node failed with its error"
t0=$(now_ms)
msg=$(q_state "SELECT * FROM ranread_fleet($BOTH, 1, duration => '1s')")
took=$(( $(now_ms) - t0 ))
echo "$msg" | grep -q "^08001: node \"${NODE_DIR[2]}:${NODE_PORT[2]}\" of ranread_fleet is unavailable: it cannot be reached"
ok $? "a dead node before the start: unavailable, named (in $took ms)"
wait_idle 1

done_testing
