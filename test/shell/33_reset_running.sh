#!/bin/bash
# ranread_reset from another session while a study, a sweep, a
# latency-target search or a fleet runs: the reset keeps what runs, whole,
# and says so in a NOTICE naming it; the call then ends with its history
# whole (every point, step and window it returned is in the history, and
# the rows that describe the call agree with its batches).  While a study
# runs, ranread_study_overview calls it 'running'; the reset removes what
# no running call holds.
# (Each call runs long enough, 4 to 8 s after the point the test waits for,
# that the reset from another session finds it running on a loaded machine.)
. "$(dirname "$0")/lib/lib.sh"
. "$(dirname "$0")/lib/faults.bash"
trap 'faults_cleanup' EXIT

setup_db rr_reset_run
setup_target 16MB

# reset_now: ranread_reset() from a session of its own; its NOTICEs and result
reset_now() { psql -qAtX -d "$DB" -c "SET client_min_messages = notice" -c "SELECT ranread_reset()" 2>&1; }

# --- a study
q "SELECT * FROM ranread_run(1, 50)" >/dev/null
OLD=$(latest_batch)
bg_psql rr_study "SET client_min_messages = error" "SELECT count(*) FROM ranread_study(processes => '{1,2,3}', duration => '4s')"
STUDY_CLIENT=$BG_PID
wait_for 30 "SELECT EXISTS (SELECT FROM ranread_batches WHERE study IS NOT NULL AND status = 'completed')"
ok $? "a study of three points has finished its first"
SID=$(q "SELECT max(study) FROM ranread_batches")
is "$(q "SELECT status FROM ranread_study_overview WHERE study = $SID")" running \
  "ranread_study_overview says the study is running"
out=$(reset_now)
echo "$out" | grep -q "NOTICE:  ranread_reset kept what runs now: study $SID (PID [0-9]*)"
ok $? "a reset during the study keeps it and names it in a NOTICE"
wait "$STUDY_CLIENT"
is "$(bg_output rr_study)" 3 "the study returns its three points"
is "$(q "SELECT planned || '|' || completed FROM ranread_studies WHERE study = $SID")" "3|3" \
  "ranread_studies has the study: 3 planned, 3 completed"
is "$(q "SELECT points || '|' || completed || '|' || status FROM ranread_study_overview WHERE study = $SID")" "3|3|finished" \
  "ranread_study_overview agrees: 3 points, 3 completed, finished"
is "$(q "SELECT count(*) FROM ranread_batches WHERE batch = $OLD")" 0 \
  "the reset removed the batch no running call held"

# --- a sweep
bg_psql rr_sweep "SET client_min_messages = error" "SELECT count(*) FROM ranread_sweep(start => 1, max_processes => 4, duration => '5s', max_avg_ms => 1000)"
SWEEP_CLIENT=$BG_PID
wait_for 30 "SELECT EXISTS (SELECT FROM ranread_batches WHERE sweep IS NOT NULL AND status = 'completed')"
ok $? "a sweep has finished its first step"
WID=$(q "SELECT max(sweep) FROM ranread_batches")
out=$(reset_now)
echo "$out" | grep -q "kept what runs now: sweep $WID (PID"
ok $? "a reset during the sweep keeps it and names it"
wait "$SWEEP_CLIENT"
is "$(q "SELECT steps = (SELECT count(*) FROM ranread_batches b WHERE b.sweep = $WID) FROM ranread_sweeps WHERE sweep = $WID")" t \
  "the sweep's row counts as many steps as it has batches"
is "$(q "SELECT count(*) FROM ranread_batches b JOIN ranread_sweeps s ON b.batch = s.max_iops_batch WHERE s.sweep = $WID")" 1 \
  "its verdict's batch is in the history"

# --- a latency-target search
bg_psql rr_search "SET client_min_messages = error" "SELECT count(*) FROM ranread_latency_target(1000, max_load => 4, duration => '2s')"
SEARCH_CLIENT=$BG_PID
wait_for 30 "SELECT EXISTS (SELECT FROM ranread_batches WHERE point ? 'latency_target' AND status = 'completed')"
ok $? "a latency-target search has finished its first window"
LID=$(q "SELECT max((point->>'latency_target')::bigint) FROM ranread_batches")
out=$(reset_now)
echo "$out" | grep -q "kept what runs now: latency-target search $LID (PID"
ok $? "a reset during the search keeps it and names it"
wait "$SEARCH_CLIENT"
is "$(q "SELECT windows FROM ranread_latency_target_verdict WHERE latency_target = $LID")" "$(bg_output rr_search)" \
  "the search's verdict has every window it returned"

# --- a fleet of one node, a database of this cluster, through dblink
if q "CREATE EXTENSION IF NOT EXISTS dblink" >/dev/null && [ "$(q "SELECT count(*) FROM pg_extension WHERE extname = 'dblink'")" = 1 ]; then
  psql -qX -d postgres -c "DROP DATABASE IF EXISTS rr_reset_node" -c "CREATE DATABASE rr_reset_node" >/dev/null
  q_in rr_reset_node "CREATE EXTENSION ranread" >/dev/null
  q_in rr_reset_node "SELECT target FROM ranread_setup('16MB')" >/dev/null
  NODE="dbname=rr_reset_node host=$(q "SELECT split_part(current_setting('unix_socket_directories'), ',', 1)") port=$(q "SHOW port")"
  bg_psql rr_fleet "SET client_min_messages = error" "SELECT status FROM ranread_fleet(ARRAY['$NODE'], 1, duration => '5s', start_delay => '1s') WHERE node = 0"
  FLEET_CLIENT=$BG_PID
  wait_for 30 "SELECT EXISTS (SELECT FROM ranread_fleets WHERE status = 'running')"
  ok $? "a fleet is running"
  FID=$(q "SELECT max(fleet) FROM ranread_fleets")
  out=$(reset_now)
  echo "$out" | grep -q "kept what runs now: fleet $FID (PID"
  ok $? "a reset during the fleet keeps it and names it"
  wait "$FLEET_CLIENT"
  is "$(bg_output rr_fleet)" completed "the fleet completes"
  is "$(q "SELECT status FROM ranread_fleets WHERE fleet = $FID")" completed "ranread_fleets keeps its row, completed"
  is "$(q "SELECT count(*) FROM ranread_fleet_nodes n WHERE n.fleet = $FID AND n.status = 'completed' AND n.batch IS NOT NULL")" 1 \
    "and its node's row"
  is "$(q "SELECT count(*) FROM ranread_fleet_seconds s WHERE NOT EXISTS (SELECT FROM ranread_fleets f WHERE f.fleet = s.fleet)")" 0 \
    "no fleet second is left without its fleet"
  psql -qX -d postgres -c "DROP DATABASE rr_reset_node" >/dev/null
else
  echo "ok - # SKIP dblink is not installed"
fi

# once nothing runs, a reset removes everything and names nothing
out=$(reset_now)
echo "$out" | grep -q "kept what runs now"
ok $((1 - $?)) "a reset with nothing running keeps nothing and says nothing of it"
is "$(q "SELECT count(*) FROM ranread_batches")" 0 "... and leaves no batch"
done_testing
