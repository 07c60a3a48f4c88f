#!/bin/bash
# Probes on a schedule with the real pg_cron (docs/keeping-watch.md, "Keeping
# watch"), in a cluster of its own started with shared_preload_libraries =
# 'pg_cron':
#  - ranread_probe_schedule makes one pg_cron job named 'ranread probe
#    TABLESPACE', run as the calling role; scheduling again changes it
#  - a schedule pg_cron refuses, and a probe above the cap, are errors
#    naming the argument, and schedule nothing
#  - pg_cron runs the job: its probe's row in ranread_probes records the
#    job, its batch completed; ranread_probe_schedules lists the job with
#    its last run and last probe
#  - ranread_probe_unschedule removes it (true), and says false when there
#    is none
. "$(dirname "$0")/lib/lib.sh"
. "$(dirname "$0")/lib/cluster.bash"
trap 'cluster_stop_all' EXIT

if [ ! -e "$($PGBIN/pg_config --pkglibdir)/pg_cron.so" ]; then
  echo "1..0 # SKIP pg_cron is not installed (Debian: postgresql-15-cron)"
  exit 0
fi

C="$TMPDIR_TEST/rr_probe_cron_data"
rm -rf "$C"
cluster_init "$C"
CPORT=$(free_port)
CDB=rr_probe_cron
# pg_cron connects to the server over the socket in the data directory (trust)
cluster_conf "$C" "shared_preload_libraries = 'pg_cron'" "cron.database_name = '$CDB'" \
  "cron.host = '$C'" "max_worker_processes = 16"
cluster_start "$C" "$CPORT"
ok $? "a cluster with pg_cron preloaded and cron.database_name = '$CDB'"
qx() { qc "$C" "$CPORT" "$CDB" "$1"; }
qx_err() { psql -qAtX -h "$C" -p "$CPORT" -U postgres -d "$CDB" -c "SET client_min_messages = error" -c "$1" 2>&1 >/dev/null | sed -n 's/^.*ERROR:  //p' | head -1; }
qc "$C" "$CPORT" postgres "CREATE DATABASE $CDB" >/dev/null
qx "CREATE EXTENSION pg_cron" >/dev/null
qx "CREATE EXTENSION ranread" >/dev/null
qx "SELECT target FROM ranread_probe_setup('pg_default', '16MB')" >/dev/null
diag "pg_cron $(qx "SELECT extversion FROM pg_extension WHERE extname = 'pg_cron'")"

is "$(qx_err "SELECT ranread_probe_schedule('pg_default', 'every tuesday')")" \
  "invalid schedule 'every tuesday' for ranread_probe_schedule" \
  "a schedule pg_cron refuses is an error naming the argument and the value"
is "$(qx_err "SELECT ranread_probe_schedule('pg_default', rate_iops => 5000)")" \
  "rate_iops of ranread_probe_schedule must be between 1 and 1000 (ranread.probe_max_iops), not 5000" \
  "a probe above the cap is refused when it is scheduled"
is "$(qx_err "SELECT ranread_probe_schedule('pg_default', io_priority => 'idle:1')")" \
  "invalid io_priority \"idle:1\" for ranread_probe_schedule" \
  "so is a bad io_priority"
is "$(qx_err "SELECT ranread_probe_schedule('nowhere')")" \
  "tablespace \"nowhere\" of ranread_probe_schedule does not exist" \
  "and a tablespace that does not exist"
is "$(qx "SELECT count(*) FROM cron.job")" 0 "none of them scheduled anything"

JOB=$(qx "SELECT ranread_probe_schedule('pg_default', '* * * * *', duration => '2s', rate_iops => 20)")
JOB2=$(qx "SELECT ranread_probe_schedule('pg_default', '* * * * *', duration => '1s', rate_iops => 50)")
is "$JOB2" "$JOB" "scheduling the same tablespace again changes its one job"
is "$(qx "SELECT jobname || '|' || schedule || '|' || username || '|' || database FROM cron.job")" \
  "ranread probe pg_default|* * * * *|postgres|$CDB" \
  "one pg_cron job, named for ranread and the tablespace, as the calling role, in this database"
qx "SELECT command FROM cron.job" | grep -q "ranread_probe('pg_default', duration => '00:00:01', rate_iops => 50, io_priority => 'best-effort:7', job => 'ranread probe pg_default')"
ok $? "its command is the probe with the arguments of the last call and the job's name"
is "$(qx "SELECT tablespace || '|' || job || '|' || jobid || '|' || schedule || '|' || active FROM ranread_probe_schedules()")" \
  "pg_default|ranread probe pg_default|$JOB|* * * * *|true" "ranread_probe_schedules lists it"

# pg_cron starts jobs on the minute: up to 60 s, then the 1 s probe
deadline=$((SECONDS + 80))
until [ "$(qx "SELECT count(*) FROM ranread_probes WHERE job = 'ranread probe pg_default'")" -ge 1 ] || [ $SECONDS -ge $deadline ]; do
  sleep 1
done
is "$(qx "SELECT count(*) FROM ranread_probes WHERE job = 'ranread probe pg_default'")" 1 \
  "pg_cron ran the scheduled probe: one row in ranread_probes with its job"
is "$(qx "SELECT b.status || '|' || b.rate_iops || '|' || b.queue_depth || '|' || b.writes || '|' || p.tablespace
            FROM ranread_probes p JOIN ranread_batches b USING (batch)")" \
  "completed|50|1|0|pg_default" "its batch completed, read-only at queue depth 1, at the scheduled rate"
for _ in $(seq 1 20); do
  [ "$(qx "SELECT last_status FROM ranread_probe_schedules()")" = succeeded ] && break
  sleep 0.5
done
is "$(qx "SELECT last_status || '|' || (last_probe = (SELECT probed_at FROM ranread_probes)) FROM ranread_probe_schedules()")" \
  "succeeded|true" "ranread_probe_schedules shows the job's last run and its probe"

is "$(qx "SELECT ranread_probe_unschedule('pg_default')")" t "ranread_probe_unschedule removes the job"
is "$(qx "SELECT count(*) FROM cron.job")" 0 "no job is left"
is "$(qx "SELECT ranread_probe_unschedule('pg_default')")" f "and says false when there is none"
is "$(qx "SELECT count(*) FROM ranread_probes")" 1 "the probes it ran stay"

done_testing
