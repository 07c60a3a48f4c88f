#!/bin/bash
# The fleet: one batch on three servers at once.
# Three throwaway clusters (free ports, sockets in their data directories,
# each with its own tablespace and target, loading the same build), the test
# cluster as the coordinator.  Checked:
#  - a fleet runs without any other extension (no dblink): one row per node
#    and the fleet's, each named host:port; each node's row equals
#    that node's own history (batch, figures, histogram); the node's batch
#    carries the fleet id; the nodes' seconds are stored as the nodes have
#    them; iops is the nodes' per-second IOPS summed over the common window;
#    the fleet's percentiles equal ranread_hist_merge over the histograms
#    read from the nodes themselves; every first I/O at or after start_at
#    (a whole second), and within 100 ms of each other (the bench holds the
#    20 ms of the issue: this machine is shared and noisy)
#  - a bad connection string, a node without the target, a busy node: an
#    error naming the node, nothing started anywhere; skip_unavailable runs
#    the others and records the node skipped
#  - a node whose session is terminated mid-run, with on_node_failure stop:
#    recorded failed, the others stopped, and what the node recorded (its
#    batch, cancelled) is collected over a fresh connection and counts in
#    the fleet's totals; a node killed mid-run (immediate shutdown):
#    recorded failed with its error, the others complete
#  - a fleet by iterations: the common window is the nodes' real elapsed
#    time (not whole seconds), and the fleet's IOPS the nodes' summed
#  - a coordinator terminated mid-run: within 5 s no row of the fleet is
#    'running' any more (the fleet failed, its nodes lost), and no worker
#    is left on any node
#  - a cancel of the coordinator stops every node: no ranread worker left on
#    any node within 1.5 s (1 s asked, 0.5 s slack for this machine), as
#    the nodes' servers see it (no client started while the time runs), every
#    node's batch recorded cancelled, the fleet recorded cancelled;
#    statement_timeout likewise
#  - a fleet sweep records one sweep with a verdict; chart, timeline and
#    export are well-formed
#  - a password given in a connection string appears in no stored row, no
#    pg_dump, no NOTICE or error; ranread_nodes refuses one
. "$(dirname "$0")/lib/lib.sh"
. "$(dirname "$0")/lib/faults.bash"
. "$(dirname "$0")/lib/cluster.bash"
trap 'faults_cleanup; cluster_stop_all' EXIT

SECRET=s3cret-pw-94
setup_db rr_fleet


# three nodes
NODE_DIR=() NODE_PORT=() N=()
used=""
for i in 1 2 3; do
  d="$WORK/node$i"
  cluster_init "$d"
  cluster_conf "$d" "shared_buffers = 16MB" "max_worker_processes = 16" "fsync = off"
  p=""
  for c in $(seq 55432 55532); do
    case " $used " in *" $c "*) continue ;; esac
    if ! ss -ltn 2>/dev/null | grep -q ":$c\b" && [ ! -e "/tmp/.s.PGSQL.$c" ] && [ ! -e "/var/run/postgresql/.s.PGSQL.$c" ]; then p=$c; break; fi
  done
  used="$used $p"
  cluster_start "$d" "$p"
  NODE_DIR[$i]=$d NODE_PORT[$i]=$p
  ts=$(pg_owned_dir fleet_ts$i)
  qc "$d" "$p" postgres "CREATE DATABASE fleet" >/dev/null
  qc "$d" "$p" fleet "CREATE EXTENSION ranread" >/dev/null
  qc "$d" "$p" fleet "CREATE TABLESPACE fleet_ts LOCATION '$ts'" >/dev/null
  qc "$d" "$p" fleet "SELECT target FROM ranread_setup('32MB', tablespace => 'fleet_ts')" >/dev/null
  N[$i]="host=$d port=$p dbname=fleet user=postgres"
  NAME[$i]="$d:$p"
done
[ "$(qc "${NODE_DIR[3]}" "${NODE_PORT[3]}" fleet "SELECT state FROM ranread_targets")" = ready ]
ok $? "three clusters on ports ${NODE_PORT[*]}, each with a target in its own tablespace"
qn() { qc "${NODE_DIR[$1]}" "${NODE_PORT[$1]}" fleet "$2"; }
workers_on_nodes() {
  local s=0 i
  for i in 1 2 3; do
    [ -f "${NODE_DIR[$i]}/postmaster.pid" ] || continue
    s=$((s + $(qc "${NODE_DIR[$i]}" "${NODE_PORT[$i]}" postgres "SELECT count(*) FROM pg_stat_activity WHERE backend_type LIKE 'ranread%'")))
  done
  echo "$s"
}
node_batches() { echo "$(qn 1 "SELECT count(*) FROM ranread_batches")/$(qn 2 "SELECT count(*) FROM ranread_batches")/$(qn 3 "SELECT count(*) FROM ranread_batches")"; }
arr() { local s="ARRAY[" sep="" x; for x in "$@"; do s="$s$sep'$x'"; sep=", "; done; echo "$s]"; }
ALL=$(arr "${N[1]}" "${N[2]} password=$SECRET" "${N[3]}")
OUT="$WORK/all_output.txt"

# --- a fleet
q_all "SELECT node, status, batch FROM ranread_fleet($ALL, 2, duration => '3s')" > "$WORK/run1.out" 2>&1
cat "$WORK/run1.out" >> "$OUT"
is "$(grep -cE '^[0-3]\|completed\|' "$WORK/run1.out")|$(q "SELECT count(*) FROM pg_extension WHERE extname = 'dblink'")" "4|0" \
   "ranread_fleet returns a completed row per node and one for the fleet (no dblink installed)"
is "$(q "SELECT string_agg(name, ' ' ORDER BY node) FROM ranread_fleet_nodes WHERE fleet = (SELECT max(fleet) FROM ranread_fleets)")" \
   "${NAME[1]} ${NAME[2]} ${NAME[3]}" "... each node named host:port"
grep -q 'NOTICE:  fleet [0-9]* completed: 3 nodes x 2 processes' "$WORK/run1.out"
ok $? "... and says so in a NOTICE"
F=$(q "SELECT max(fleet) FROM ranread_fleets")
is "$(q "SELECT status || '/' || nodes_completed FROM ranread_fleet_summary WHERE fleet = $F")" "completed/3" "ranread_fleet_summary shows the fleet completed on 3 nodes"

cols="b.batch || '|' || s.status || '|' || b.reads || '|' || b.writes || '|' || b.iops || '|' || b.avg_ms || '|' || b.p50_ms || '|' || b.p99_ms || '|' || b.p999_ms || '|' || b.max_ms || '|' || md5(b.histogram) || '|' || extract(epoch FROM b.first_io_at)"
same=0
for i in 1 2 3; do
  mine=$(q "SELECT $cols FROM ranread_fleet_nodes b, ranread_fleet_nodes s WHERE b.fleet = $F AND b.node = $i AND s.fleet = b.fleet AND s.node = b.node")
  b=${mine%%|*}
  theirs=$(qn "$i" "SELECT $cols FROM ranread_batches b JOIN ranread_internal.ranread_summary_raw s USING (batch) WHERE batch = $b")
  [ -n "$mine" ] && [ "$mine" = "$theirs" ] || { same=1; diag "node $i: fleet row '$mine', node's own '$theirs'"; }
  [ "$(qn "$i" "SELECT fleet FROM ranread_batches WHERE batch = $b")" = "$F" ] || { same=1; diag "node $i: batch $b lacks fleet $F"; }
  s_mine=$(q "SELECT count(*) || '|' || sum(reads) || '|' || round(sum(iops)::numeric, 6) FROM ranread_fleet_seconds WHERE fleet = $F AND node = $i")
  s_theirs=$(qn "$i" "SELECT count(DISTINCT second) || '|' || sum(reads) || '|' || round(sum(iops)::numeric, 6) FROM ranread_intervals WHERE batch = $b")
  [ "$s_mine" = "$s_theirs" ] || { same=1; diag "node $i seconds: fleet '$s_mine', node's own '$s_theirs'"; }
  qn "$i" "SELECT encode(histogram, 'hex') FROM ranread_batches WHERE batch = $b" > "$WORK/hist$i.hex"
done
ok $same "each node's row (batch, figures, histogram, first I/O) and seconds equal that node's own history, whose batch carries the fleet id"

is "$(q "SELECT f.reads = (SELECT sum(n.reads) FROM ranread_fleet_nodes n WHERE n.fleet = f.fleet)
          AND abs(f.window_seconds - (SELECT sum(v.elapsed) FROM ranread_internal.ranread_fleet_series_raw v WHERE v.fleet = f.fleet AND v.in_window)) < 1e-9
          AND NOT EXISTS (SELECT FROM ranread_internal.ranread_fleet_series_raw v WHERE v.fleet = f.fleet AND v.in_window AND v.nodes <> 3)
          AND abs(f.iops - (SELECT sum(v.iops * v.elapsed) / sum(v.elapsed) FROM ranread_internal.ranread_fleet_series_raw v
                             WHERE v.fleet = f.fleet AND v.in_window)) < 1e-6 * f.iops
          AND f.window_seconds >= 2
        FROM ranread_fleets f WHERE f.fleet = $F")" t \
   "fleet totals: reads summed, IOPS = the 3 nodes' per-second IOPS summed, averaged over the common window's real length"
q "CREATE TABLE node_hist (h bytea)" >/dev/null
for i in 1 2 3; do q "INSERT INTO node_hist VALUES (decode('$(cat "$WORK/hist$i.hex")', 'hex'))" >/dev/null; done
is "$(q "SELECT f.p50_ms = ranread_hist_percentile(m.h, 50) AND f.p95_ms = ranread_hist_percentile(m.h, 95)
          AND f.p99_ms = ranread_hist_percentile(m.h, 99) AND f.p999_ms = ranread_hist_percentile(m.h, 99.9)
          AND ranread_hist_count(m.h) = f.reads + f.writes
        FROM ranread_fleets f, (SELECT ranread_hist_merge(h) AS h FROM node_hist) m WHERE f.fleet = $F")" t \
   "fleet percentiles equal ranread_hist_merge over the histograms read from the nodes themselves"
starts=$(for i in 1 2 3; do qn "$i" "SELECT extract(epoch FROM first_io_at) || ' ' || extract(epoch FROM start_at) FROM ranread_batches WHERE fleet = $F"; done)
echo "$starts" | awk '{ if ($1 < $2 || $2 != int($2)) bad = 1; if (min == "" || $1 < min) min = $1; if ($1 > max) max = $1 }
                     END { printf "# first I/Os within %.2f ms\n", (max - min) * 1000; exit bad || (max - min) > 0.1 }'
ok $? "every node's first I/O is at or after start_at (a whole second), all within 100 ms"
is "$(q "SELECT count(*) FROM ranread_fleet_nodes WHERE fleet = $F AND offset_ms IS NOT NULL AND rtt_ms > 0 AND late_ms IS NOT NULL AND outlier IS NOT NULL")" 3 \
   "each node's clock offset, round trip, lateness and outlier flag are recorded"
is "$(q "SELECT count(*) || '|' || count(*) FILTER (WHERE r.iops = round(x.iops) AND r.mbps = round(x.mbps::numeric, 1)
                AND r.seconds = round(x.seconds::numeric, 3) AND r.avg_ms = round(x.avg_ms::numeric, 3)
                AND r.p99_ms = round(x.p99_ms::numeric, 3) AND r.max_ms = round(x.max_ms::numeric, 3)
                AND r.offset_ms IS NOT DISTINCT FROM round(x.offset_ms::numeric, 3)
                AND r.first_io_ms IS NOT DISTINCT FROM round(x.first_io_ms::numeric, 3))
          FROM ranread_fleet_rows($F) r JOIN ranread_internal.ranread_fleet_rows_raw($F) x USING (node)")" "4|4" \
   "ranread_fleet_rows returns the recorded figures rounded (IOPS whole, MiB/s to 0.1, seconds and ms to 0.001)"

# --- nodes that cannot run: an error naming them, nothing started
before=$(node_batches)
fleets_before=$(q "SELECT count(*) FROM ranread_fleets")
msg=$(q_state "SELECT * FROM ranread_fleet($(arr "${N[1]}" "host=$WORK/nowhere port=1 dbname=fleet password=$SECRET" "${N[3]}"), 2, duration => '2s')" 2>&1)
echo "$msg" >> "$OUT"
echo "$msg" | grep -q "^08001: node \"$WORK/nowhere:1\" of ranread_fleet is unavailable: it cannot be reached"
ok $? "a bad connection string: 08001 naming the node (without its password)"
is "$(node_batches)|$(workers_on_nodes)|$(q "SELECT count(*) FROM ranread_fleets")" "$before|0|$fleets_before" "... and nothing started: no batch on any node, no fleet recorded"

qn 1 "SELECT target FROM ranread_setup('16MB', tablespace => 'fleet_ts', target => 'alt')" >/dev/null
qn 2 "SELECT target FROM ranread_setup('16MB', tablespace => 'fleet_ts', target => 'alt')" >/dev/null
before=$(node_batches)
msg=$(q_state "SELECT * FROM ranread_fleet($ALL, 1, duration => '1s', target => 'alt')")
echo "$msg" >> "$OUT"
echo "$msg" | grep -q "^42704: node \"${NAME[3]}\" of ranread_fleet is unavailable: it has no ranread target \"alt\""
ok $? "a node without the target: 42704 naming the node and the target"
is "$(node_batches)|$(workers_on_nodes)" "$before|0" "... and nothing started"
q_all "SELECT node, status FROM ranread_fleet($ALL, 1, duration => '1s', target => 'alt', skip_unavailable => true)" > "$WORK/skip.out" 2>&1
cat "$WORK/skip.out" >> "$OUT"
is "$(grep -E '^[0-3]\|' "$WORK/skip.out" | tr '\n' ' ')" "1|completed 2|completed 3|skipped 0|completed " \
   "skip_unavailable => true: the others run, the node is recorded skipped"

PGAPPNAME=busy psql -qAtX -h "${NODE_DIR[2]}" -p "${NODE_PORT[2]}" -U postgres -d fleet -c "SELECT status FROM ranread_run(1, duration => '8s')" >/dev/null 2>&1 &
BG_PIDS+=("$!")
busy_pid=$!
for _ in $(seq 1 50); do [ "$(qn 2 "SELECT count(*) FROM ranread_batches WHERE status = 'running'")" -gt 0 ] && break; sleep 0.1; done
msg=$(q_state "SELECT * FROM ranread_fleet($ALL, 1, duration => '1s')")
echo "$msg" | grep -q "^55006: node \"${NAME[2]}\" of ranread_fleet is unavailable: it is busy: its ranread batch [0-9]* is running"
ok $? "a node busy with its own batch: 55006 naming the node and its batch"
qn 2 "SELECT ranread_stop()" >/dev/null
wait "$busy_pid" 2>/dev/null

# --- the coordinator cancelled: every node stops
wait_nodes_running() {
  local deadline=$((SECONDS + 20)) i n
  while [ $SECONDS -lt $deadline ]; do
    n=0
    for i in "$@"; do
      [ "$(qn "$i" "SELECT count(*) FROM pg_stat_activity WHERE backend_type LIKE 'ranread%' AND query ~ ' [1-9][0-9]* I/Os'")" -gt 0 ] && n=$((n + 1))
    done
    [ "$n" -eq $# ] && return 0
    sleep 0.1
  done
  return 1
}
# When the workers are gone is read by each node's server (a session that
# is there before the cancel looks every 5 ms), against the instant of the
# cancel read by this server: one clock, the machine's, and no client
# started while the time runs (starting a psql takes 0.2 to 0.4 s when the
# machine is loaded, and three of them a check made the bound a measure of
# the load).
watch_gone() {
  PGAPPNAME=gone_watch psql -qAtX -h "${NODE_DIR[$1]}" -p "${NODE_PORT[$1]}" -U postgres -d postgres \
    -c "CREATE FUNCTION pg_temp.gone() RETURNS bigint LANGUAGE plpgsql AS \$\$
        BEGIN
            FOR i IN 1..4000 LOOP
                PERFORM pg_stat_clear_snapshot();
                EXIT WHEN NOT EXISTS (SELECT FROM pg_stat_activity WHERE backend_type LIKE 'ranread%');
                PERFORM pg_sleep(0.005);
            END LOOP;
            RETURN (extract(epoch FROM clock_timestamp()) * 1000)::bigint;
        END \$\$" -c "SELECT pg_temp.gone()" > "$WORK/gone$1.out" 2>&1 &
  BG_PIDS+=("$!")
}
bg_psql coord "SELECT * FROM ranread_fleet($ALL, 2, duration => '60s')"
coord=$BG_PID
wait_nodes_running 1 2 3
ok $? "a long fleet runs on all three nodes"
watchers=()
for i in 1 2 3; do watch_gone "$i"; watchers+=("$!"); done
for _ in $(seq 1 100); do
  n=0
  for i in 1 2 3; do [ "$(qn "$i" "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'gone_watch' AND state = 'active'")" -gt 0 ] && n=$((n + 1)); done
  [ "$n" -eq 3 ] && break
  sleep 0.05
done
t_wall=$(now_ms)
t0=$(q "SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint, pg_cancel_backend(pid) FROM pg_stat_activity WHERE application_name = 'coord'")
t0=${t0%%|*}
for w in "${watchers[@]}"; do wait "$w" 2>/dev/null; done
gone_wall=$(( $(now_ms) - t_wall ))
diag "the watches of the three nodes ended ${gone_wall} ms after the cancel was asked for, by this script's clock (its psql calls included)"
gone=0
for i in 1 2 3; do
  t=$(tail -n 1 "$WORK/gone$i.out")
  case "$t" in ''|*[!0-9]*) gone=99999; diag "node $i's watch: $(cat "$WORK/gone$i.out")" ;; *) [ $((t - t0)) -gt "$gone" ] && gone=$((t - t0)) ;; esac
done
diag "every node's workers gone ${gone} ms after the cancel, as the servers saw it"
cmp_ok "$gone" "<=" 1500 "a cancel of the coordinator: no ranread worker left on any node within a second (+0.5 s slack)"
wait "$coord" 2>/dev/null
bg_output coord >> "$OUT"
bg_output coord | grep -q 'canceling statement due to user request'
ok $? "... the coordinator's call ends cancelled"
F=$(q "SELECT max(fleet) FROM ranread_fleets")
is "$(q "SELECT status FROM ranread_fleet_summary WHERE fleet = $F")|$(q "SELECT string_agg(status, ',' ORDER BY node) FROM ranread_fleet_nodes WHERE fleet = $F")" \
   "cancelled|cancelled,cancelled,cancelled" "... the fleet and every node are recorded cancelled, despite the rollback"
is "$(for i in 1 2 3; do qn "$i" "SELECT status || (reads > 0) FROM ranread_batches WHERE fleet = $F"; done | tr '\n' ' ')" \
   "cancelledtrue cancelledtrue cancelledtrue " "... and each node recorded what its batch did, as cancelled"

msg=$(psql -qAtX -d "$DB" -c "SET statement_timeout = '5s'" -c "SELECT * FROM ranread_fleet($ALL, 1, duration => '60s')" 2>&1)
echo "$msg" >> "$OUT"
F=$(q "SELECT max(fleet) FROM ranread_fleets")
is "$(echo "$msg" | grep -c 'canceling statement due to statement timeout')|$(q "SELECT status FROM ranread_fleets WHERE fleet = $F")|$(workers_on_nodes)" \
   "1|cancelled|0" "statement_timeout of the coordinator: the fleet is recorded cancelled, no node left running"

# --- a node failing mid-run
bg_psql stopper "SELECT node, status FROM ranread_fleet($ALL, 1, duration => '30s', on_node_failure => 'stop')"
stopper=$BG_PID
wait_nodes_running 1 2 3
qc "${NODE_DIR[3]}" "${NODE_PORT[3]}" postgres "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name LIKE 'ranread_fleet %'" >/dev/null
wait "$stopper" 2>/dev/null
bg_output stopper >> "$OUT"
is "$(bg_output stopper | grep -E '^[0-3]\|' | tr '\n' ' ')" "1|cancelled 2|cancelled 3|failed 0|failed " \
   "a node whose session ends mid-run is recorded failed; on_node_failure => 'stop' cancels the others"
F=$(q "SELECT max(fleet) FROM ranread_fleets")
q "SELECT message FROM ranread_fleet_nodes WHERE fleet = $F AND node = 3" | grep -qi 'terminat\|closed the connection'
ok $? "... with the node's error as its message"
theirs=$(qn 3 "SELECT batch || '|' || reads || '|' || status FROM ranread_batches WHERE fleet = $F")
is "$(q "SELECT batch || '|' || reads FROM ranread_fleet_nodes WHERE fleet = $F AND node = 3")|cancelled" "$theirs" \
   "... and what it recorded (its batch, cancelled, its reads) is collected over a fresh connection"
is "$(q "SELECT f.reads = (SELECT sum(n.reads) FROM ranread_fleet_nodes n WHERE n.fleet = f.fleet)
          AND (SELECT count(*) FROM ranread_fleet_nodes n WHERE n.fleet = f.fleet AND n.batch IS NOT NULL AND n.reads > 0) = 3
        FROM ranread_fleets f WHERE f.fleet = $F")" t "... and counts in the fleet's totals with the two others"

# --- a fleet by iterations: the nodes' real elapsed times, not whole seconds
q_all "SELECT node, status FROM ranread_fleet($ALL, 1, iterations => 6000, start_delay => '0.5s')" > "$WORK/iter.out" 2>&1
cat "$WORK/iter.out" >> "$OUT"
F=$(q "SELECT max(fleet) FROM ranread_fleets")
diag "$(q "SELECT 'fleet ' || round(f.iops) || ' IOPS over ' || round(f.window_seconds::numeric, 3) || ' s; nodes ' || string_agg(round(n.iops) || ' IOPS over ' || round(n.seconds::numeric, 3) || ' s', ', ' ORDER BY n.node)
        FROM ranread_fleets f JOIN ranread_fleet_nodes n USING (fleet) WHERE f.fleet = $F GROUP BY f.fleet")"
is "$(q "SELECT f.status || '|' || (abs(f.window_seconds - min(n.seconds)) < 0.05) || '|' || (abs(f.iops - sum(n.iops)) < 0.05 * sum(n.iops))
        FROM ranread_fleets f JOIN ranread_fleet_nodes n USING (fleet) WHERE f.fleet = $F GROUP BY f.fleet")" "completed|true|true" \
   "a fleet by iterations: its window is the nodes' real elapsed time, its IOPS the nodes' summed (within 5%)"

# --- the coordinator terminated: nothing of the fleet stays 'running'
bg_psql term "SELECT node, status FROM ranread_fleet($ALL, 1, duration => '30s')"
term=$BG_PID
wait_nodes_running 1 2 3
F=$(q "SELECT max(fleet) FROM ranread_fleets")
t0=$(now_ms)
q "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'term'" >/dev/null
wait_pid "$term" 5
ok $? "a coordinator terminated mid-run ends within 5 s"
bg_output term >> "$OUT"
running=1
while [ $(( $(now_ms) - t0 )) -lt 5000 ]; do
  running=$(q "SELECT count(*) FROM ranread_fleets WHERE fleet = $F AND status = 'running'")$(q "SELECT count(*) FROM ranread_fleet_nodes WHERE fleet = $F AND status = 'running'")$(workers_on_nodes)
  [ "$running" = 000 ] && break
  sleep 0.1
done
diag "$(( $(now_ms) - t0 )) ms after the terminate: fleet, nodes running, workers: $running"
is "$running|$(q "SELECT status FROM ranread_fleets WHERE fleet = $F")|$(q "SELECT string_agg(status, ',' ORDER BY node) FROM ranread_fleet_nodes WHERE fleet = $F")" \
   "000|failed|lost,lost,lost" "... within 5 s the fleet is recorded failed, its nodes lost (no row 'running'), and no worker is left on any node"

# (10 s: node 3 must be stopped before the fleet ends, after polls of
# three nodes on a loaded machine)
bg_psql killer "SELECT node, status FROM ranread_fleet($ALL, 1, duration => '10s')"
killer=$BG_PID
wait_nodes_running 1 2 3
cluster_stop "${NODE_DIR[3]}" immediate
wait "$killer" 2>/dev/null
bg_output killer >> "$OUT"
is "$(bg_output killer | grep -E '^[0-3]\|' | tr '\n' ' ')" "1|completed 2|completed 3|failed 0|failed " \
   "a node killed mid-run is recorded failed; the others run on to the end"
F=$(q "SELECT max(fleet) FROM ranread_fleets")
is "$(q "SELECT (message ~ 'closed the connection|terminat') || '|' || (batch IS NULL) FROM ranread_fleet_nodes WHERE fleet = $F AND node = 3")|$(q "SELECT window_seconds >= 9 FROM ranread_fleets WHERE fleet = $F")" \
   "true|true|t" "... with the connection's error, and the fleet's window from the nodes that ran"

# --- fleet sweep, charts, export (nodes 1 and 2)
TWO=$(arr "${N[1]}" "${N[2]} password=$SECRET")
q_all "SELECT step, processes, within_bound FROM ranread_fleet_sweep($TWO, start => 1, max_processes => 2, duration => '1s', start_delay => '0.5s')" > "$WORK/sweep.out" 2>&1
cat "$WORK/sweep.out" >> "$OUT"
S=$(q "SELECT max(sweep) FROM ranread_fleet_sweeps")
is "$(q "SELECT steps || '|' || (stop_reason IS NOT NULL) || '|' || (max_iops > 0) || '|' || (SELECT count(*) FROM ranread_fleets f WHERE f.sweep = s.sweep) FROM ranread_fleet_sweeps s WHERE sweep = $S")" \
   "2|true|true|2" "ranread_fleet_sweep: one sweep of 2 fleet steps, its stop reason and verdict recorded"
q "SELECT ranread_fleet_chart()" > "$WORK/chart.svg"
q "SELECT ranread_fleet_timeline()" > "$WORK/timeline.svg"
xmllint --noout "$WORK/chart.svg" "$WORK/timeline.svg" 2>/dev/null && grep -q 'fleet total' "$WORK/chart.svg" && grep -q 'fleet total' "$WORK/timeline.svg"
ok $? "ranread_fleet_chart and ranread_fleet_timeline are well-formed SVG with the fleet total"
exp=$(pg_owned_dir fleet_export)
chmod 755 "$exp"
okx=0
for f in tsv csv json svg; do
  path=$(q "SELECT ranread_fleet_export('$exp', '$f')")
  [ -s "$path" ] || okx=1
  sleep 1
done
python3 -c "import json, glob, sys; d = json.load(open(glob.glob('$exp/*.json')[0])); sys.exit(not (len(d['nodes']) == 2 and d['seconds']))" || okx=1
[ "$(grep -c . "$exp"/*.tsv)" -eq 4 ] || okx=1
ok $okx "ranread_fleet_export writes tsv, csv, json and svg"

# --- no password anywhere
err=$(q_state "INSERT INTO ranread_nodes VALUES ('db9', 'host=db9 password=$SECRET')")
echo "$err" >> "$OUT"
echo "$err" | grep -q '^22023: connection string of node "db9" holds a password'
ok $? "ranread_nodes refuses a connection string with a password"
q "INSERT INTO ranread_nodes VALUES ('n1', '${N[1]}'), ('n2', '${N[2]}')" >/dev/null
is "$(q "SELECT string_agg(name, ',' ORDER BY node = 0, node) FROM ranread_fleet(ARRAY['n1', 'n2'], 1, duration => '1s')")" "n1,n2,fleet" "nodes may be names of ranread_nodes"
leak=$(q "SELECT count(*) FROM ranread_fleets f WHERE f::text LIKE '%$SECRET%'")$(q "SELECT count(*) FROM ranread_fleet_nodes f WHERE f::text LIKE '%$SECRET%'")$(q "SELECT count(*) FROM ranread_fleet_sweeps f WHERE f::text LIKE '%$SECRET%'")
is "$leak" "000" "no password in the fleet's tables"
pg_dump -d "$DB" 2>/dev/null | grep -c "$SECRET" | grep -qx 0
ok $? "... nor in pg_dump of the coordinator's database"
for i in 1 2; do qn "$i" "SELECT count(*) FROM ranread_batches b WHERE b::text LIKE '%$SECRET%'"; done | grep -qv '^0$'
ok $((! $?)) "... nor in the nodes' batches"
grep -c "$SECRET" "$OUT" | grep -qx 0
ok $? "... nor in any NOTICE, WARNING or error of this test ($(wc -l < "$OUT") lines)"

done_testing
