#!/bin/bash
# On a hot standby (docs/design.md, "Failures"): one clear error, views that work, no
# worker started.  A standby made with pg_basebackup from the test cluster:
#  - ranread_summary and ranread_targets work there (targets are unlogged,
#    so a target shows 'unavailable on a standby'); the primary's history
#    replicates and is shown as recorded
#  - ranread_run, ranread_setup, ranread_purge, ranread_reset and
#    ranread_sweep fail with 25006 "ranread cannot run on a standby", and no
#    ranread worker starts there; ranread_stop() returns 0
#  - while the primary runs a batch, calls on the standby neither try to
#    mark it failed nor start a worker.  On 1.0 they tried an UPDATE in a
#    read-only transaction and started a repair worker that exited 1.
. "$(dirname "$0")/lib/lib.sh"
. "$(dirname "$0")/lib/faults.bash"
. "$(dirname "$0")/lib/cluster.bash"
trap 'faults_cleanup; cluster_stop_all' EXIT

setup_db rr_standby
setup_target 32MB
is "$(q "SELECT status FROM ranread_run(2, 300)")" completed "the primary runs a batch"

S="$TMPDIR_TEST/rr_standby_data"
mkdir -p "$S"; chown postgres:postgres "$S"; chmod 700 "$S"
if ! runuser -u postgres -- env PGPASSWORD="${PGPASSWORD:-}" pg_basebackup -h "$PGHOST" -p "$PGPORT" -U "${PGUSER:-postgres}" \
       -D "$S" -R -X stream -c fast >"$WORK/basebackup.log" 2>&1; then
  echo "# $(tail -3 "$WORK/basebackup.log")"
  echo "1..0 # SKIP pg_basebackup from the test cluster failed"
  exit 0
fi
# the Debian cluster's configuration lives outside its data directory
: > "$S/postgresql.conf"
echo "local all all trust" > "$S/pg_hba.conf"
: > "$S/pg_ident.conf"
chown postgres:postgres "$S"/*.conf
SPORT=$(free_port)
cluster_conf "$S" "hot_standby = on" "max_worker_processes = 8"
cluster_start "$S" "$SPORT"
ok $? "a hot standby of the test cluster, made with pg_basebackup"
qs() { qc "$S" "$SPORT" "$DB" "$1"; }
qs_all() { qc_all "$S" "$SPORT" "$DB" "$1"; }
caught_up() {
  local lsn
  lsn=$(q "SELECT pg_current_wal_lsn()")
  wait_for_standby() { [ "$(qs "SELECT pg_last_wal_replay_lsn() >= '$lsn'")" = t ]; }
  for _ in $(seq 1 100); do wait_for_standby && return 0; sleep 0.1; done
  return 1
}
is "$(qs "SELECT pg_is_in_recovery()")" t "it is in recovery"
caught_up
is "$(qs "SELECT count(*) || '|' || min(status) FROM ranread_summary")" "1|completed" "ranread_summary works on the standby and shows the primary's batch"
is "$(qs "SELECT state FROM ranread_targets")" "unavailable on a standby" "ranread_targets works and says the target is unavailable on a standby"
qs "SELECT note FROM ranread_targets" | grep -q 'only on the primary'
ok $? "... and why"

for call in "ranread_run(1, 100)" "ranread_setup('8MB')" "ranread_purge()" "ranread_reset()" \
            "ranread_sweep(start => 1, max_processes => 2, duration => '1s')"; do
  msg=$(qs_all "SELECT * FROM $call")
  fn=${call%%(*}
  echo "$msg" | grep -Eq "^ERROR: +25006: ranread cannot run on a standby: $fn needs a primary server"
  ok $? "$fn on the standby fails with 25006, ranread cannot run on a standby"
done
echo "$msg" | grep -Eq '^HINT: .*on the primary'
ok $? "... with a hint to run it on the primary"
is "$(qs "SELECT ranread_stop()")" 0 "ranread_stop() on the standby returns 0: nothing runs there"
is "$(qs "SELECT count(*) FROM pg_stat_activity WHERE backend_type LIKE '%ranread%'")" 0 "no ranread worker was started on the standby"

# --- the primary runs a batch: the standby sees it and leaves it alone
bg_psql rr_primary_batch "SELECT batch || '|' || status FROM ranread_run(2, duration => '20s')"
P=$BG_PID
wait_running 30
caught_up
is "$(qs "SELECT status FROM ranread_summary ORDER BY batch DESC LIMIT 1")" running \
  "while the primary runs a batch, the standby shows it as the primary recorded it: running"
msg=$(qs_all "SELECT * FROM ranread_run(1, 100)")
echo "$msg" | grep -Eq '^ERROR: +25006: ranread cannot run on a standby'
ok $? "ranread_run on the standby still says it cannot run there"
! echo "$msg" | grep -q 'read-only transaction'
ok $? "... and never tries to write (no 'read-only transaction' error)"
is "$(qs "SELECT count(*) FROM pg_stat_activity WHERE backend_type LIKE '%ranread%'")" 0 "... and starts no worker on the standby"
q "SELECT ranread_stop()" >/dev/null
wait_pid "$P" 10
caught_up
is "$(qs "SELECT status FROM ranread_summary ORDER BY batch DESC LIMIT 1")" stopped "once stopped, the standby shows it stopped"
grep -Eq 'read-only transaction|repair' "$(cluster_log "$S")"
ok $((! $?)) "the standby's log has no failed write or repair worker"

cluster_stop "$S"
done_testing
