#!/bin/bash
# A node that misbehaves at the protocol level cannot harm the coordinator.
# Fake nodes (test/shell/lib/fakenode.py, enough of PostgreSQL's protocol to be
# connected to) answer a query with 1 MiB rows without end, with a single
# row that says it is 1 GiB long, with NOTICEs holding newlines, or never
# answer the connection at all.  The coordinator (a cluster of its own, its
# server log read) breaks a connection whose answer passes 64 MB, saying
# which node and what limit, and its memory stays far below what the node
# sent; no NOTICE of a node reaches its server log; a connect_timeout of 0
# or a huge one does not remove ranread's own connect bound.
. "$(dirname "$0")/lib/lib.sh"
. "$(dirname "$0")/lib/faults.bash"
. "$(dirname "$0")/lib/cluster.bash"
FAKES=()
trap 'for p in "${FAKES[@]}"; do kill "$p" 2>/dev/null; done; faults_cleanup; cluster_stop_all' EXIT
FAKENODE="$(cd "$(dirname "$0")" && pwd)/lib/fakenode.py"
command -v python3 >/dev/null || { echo "1..0 # SKIP python3 is not available"; exit 0; }

C="$WORK/coord"
cluster_init "$C"
cluster_conf "$C" "shared_buffers = 16MB" "max_worker_processes = 16" "fsync = off" "log_min_messages = notice"
CP=$(free_port)
cluster_start "$C" "$CP"
LOG=$(cluster_log "$C")
export PGHOST="$C" PGPORT="$CP" PGUSER=postgres
DB=fake
psql -qX -d postgres -c "CREATE DATABASE fake" >/dev/null
q "CREATE EXTENSION ranread" >/dev/null
is "$(q "SELECT 1")" 1 "a coordinator of its own on port $CP"

# fake MODE [MB]: start a fake node; its port in FAKE_PORT
fake() {
  local p
  for p in $(seq 56100 56200); do
    ss -ltn 2>/dev/null | grep -q ":$p\b" && continue
    python3 "$FAKENODE" "$p" "$@" > "$WORK/fake.$p.log" 2>&1 &
    FAKES+=($!)
    for _ in $(seq 50); do grep -q listening "$WORK/fake.$p.log" && break; sleep 0.1; done
    grep -q listening "$WORK/fake.$p.log" && { FAKE_PORT=$p; return 0; }
  done
  return 1
}
# hwm_after SQL...: the statements in one session, then that backend's peak
# memory (VmHWM, kB) on the last line; every message before it
hwm_after() {
  local args=() s
  for s in "$@"; do args+=(-c "$s"); done
  psql -qAtX -d "$DB" -v VERBOSITY=verbose "${args[@]}" \
    -c "SELECT 'hwm=' || (regexp_match(pg_read_file('/proc/self/status'), 'VmHWM:\s+(\d+)'))[1]" 2>&1
}

# --- connect_timeout=99999999999999 (overflows an int): still ranread's 60 s at most
fake silent; SILENT=$FAKE_PORT
# (one transaction: a connection lives until the end of its transaction)
bg_psql huge "BEGIN" \
  "SELECT ranread_internal.ranread_remote_connect(ARRAY['h'], ARRAY['host=127.0.0.1 port=$SILENT connect_timeout=99999999999999'], NULL, false)" \
  "SELECT ranread_internal.ranread_remote_wait(ARRAY['h'], 90000)" \
  "SELECT round(extract(epoch FROM clock_timestamp() - now()))::int || ' ' || (ranread_internal.ranread_remote_result('h', 0)->>'message')" \
  "COMMIT"
HUGE_PID=$BG_PID

# --- 1 MiB rows without end: broken past 64 MB, memory bounded
fake rows 256; ROWS=$FAKE_PORT
t0=$(now_ms)
out=$(hwm_after "SELECT (ranread_internal.ranread_remote_connect(ARRAY['f'], ARRAY['host=127.0.0.1 port=$ROWS']))[1], ranread_internal.ranread_remote_query('f', 'SELECT 1', 15000)")
took=$(( $(now_ms) - t0 ))
hwm=$(echo "$out" | sed -n 's/^hwm=//p')
diag "1 MiB rows: $took ms, peak $hwm kB; $(echo "$out" | grep ERROR)"
echo "$out" | grep -q "ERROR:  08006: the server at 127.0.0.1:$ROWS sent more than 64 MB for one answer, ranread's limit: the connection was closed"
ok $? "a node that sends rows without end: the connection is broken, the error names the node and the limit"
cmp_ok "$hwm" "<" 150000 "... and the coordinator's backend never held much more than the limit (peak below 150 MB of the 256 MB sent)"
cmp_ok "$took" "<" 10000 "... at once, not after the query's timeout"

# --- one row that says it is 1 GiB long
fake bigrow 256; BIG=$FAKE_PORT
out=$(hwm_after "SELECT (ranread_internal.ranread_remote_connect(ARRAY['f'], ARRAY['host=127.0.0.1 port=$BIG']))[1], ranread_internal.ranread_remote_query('f', 'SELECT 1', 15000)")
hwm=$(echo "$out" | sed -n 's/^hwm=//p')
diag "one 1 GiB row: peak $hwm kB; $(echo "$out" | grep ERROR)"
echo "$out" | grep -q "ERROR:  08006: the server at 127.0.0.1:$BIG sent more than 64 MB for one answer"
ok $? "a node that sends one row of 1 GiB: the connection is broken past the limit, named"
cmp_ok "$hwm" "<" 150000 "... the coordinator's peak memory stays below 150 MB of the 256 MB sent"

# --- a fleet with such a node: it is unavailable, named, with the limit
q "SELECT target FROM ranread_setup('16MB')" >/dev/null
msg=$(q_state "SELECT * FROM ranread_fleet(ARRAY['host=127.0.0.1 port=$ROWS', 'host=$C port=$CP dbname=fake'], 1, duration => '1s')")
diag "$msg"
echo "$msg" | grep -q "node \"127.0.0.1:$ROWS\" of ranread_fleet is unavailable: .*sent more than 64 MB for one answer, ranread's limit"
ok $? "ranread_fleet with a node that floods: that node is unavailable, the error names it and the limit"

# --- NOTICEs with newlines: answered, nothing in the server log
fake notices; NOT=$FAKE_PORT
got=$(q "SELECT (ranread_internal.ranread_remote_connect(ARRAY['n'], ARRAY['host=127.0.0.1 port=$NOT']))[1] IS NULL, ranread_internal.ranread_remote_query('n', 'SELECT 1', 5000)")
is "$got" "t|1" "a node that sends NOTICEs is answered"
sleep 0.5
grep -c "FAKE-" "$LOG" > "$WORK/count"
is "$(cat "$WORK/count")" 0 "... and none of its NOTICEs (200 with newlines) reached the coordinator's server log"

# --- connect_timeout=0: ranread's 10 s
t0=$(now_ms)
# (statement_timeout 30 s: without ranread's bound this call would never end)
got=$(PGOPTIONS="-c statement_timeout=30s" q_try "SELECT (ranread_internal.ranread_remote_connect(ARRAY['z'], ARRAY['host=127.0.0.1 port=$SILENT connect_timeout=0']))[1]")
took=$(( $(now_ms) - t0 ))
diag "connect_timeout=0: $took ms; $got"
is "$got" "the server did not answer the connection within 10000 ms (ranread's connect timeout, as its connect_timeout of 0 would set no bound)" \
   "connect_timeout=0 to a node that never answers: ranread's own 10 s bound, said so"
cmp_ok "$took" "<" 12500 "... the call ends soon after it"

# --- the huge connect_timeout, begun at the start
wait_pid "$HUGE_PID" 90 || diag "the huge connect_timeout's call is still running"
got=$(bg_output huge | grep -v "^{" | tail -1)
diag "connect_timeout=99999999999999: $got"
echo "$got" | grep -Eq "^(59|60|61|62) the server did not answer the connection within 60000 ms \(ranread's longest connect timeout, shorter than its connect_timeout\)$"
ok $? "a huge connect_timeout to a node that never answers: ranread's longest bound, 60 s, said so"

# --- a node that sends bytes that are not UTF-8 (a fake; a PostgreSQL node
# of SQL_ASCII refuses them itself, 22021): its answer fails, named, and its
# error message reaches the coordinator readable (the bytes as '?'), so
# nothing it sent can stop the fleet's recording later
fake badbytes; BAD=$FAKE_PORT
got=$(psql -qAtX -d "$DB" -v VERBOSITY=verbose -c "BEGIN" \
  -c "SELECT ranread_internal.ranread_remote_connect(ARRAY['bad'], ARRAY['host=127.0.0.1 port=$BAD'])" \
  -c "SELECT ranread_internal.ranread_remote_query('bad', 'SELECT 1', 5000)" 2>&1)
echo "$got" | grep -q "22021: the server answered with bytes that are not valid in this database's encoding"
ok $? "a value of bytes not valid in the coordinator's encoding is a failed answer, SQLSTATE 22021, said so"
echo "$got" | grep -q 22021 || diag "$got"
got=$(psql -qAtX -d "$DB" -c "BEGIN" \
  -c "SELECT ranread_internal.ranread_remote_connect(ARRAY['bad'], ARRAY['host=127.0.0.1 port=$BAD'])" \
  -c "SELECT ranread_internal.ranread_remote_query('bad', 'SELECT error', 5000)" 2>&1)
echo "$got" | grep -q "ERROR:  A?B"
ok $? "a node's error message of such bytes reaches the coordinator readable, the bytes as '?'"
echo "$got" | grep -q 'A?B' || diag "$got"

done_testing
