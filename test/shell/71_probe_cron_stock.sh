#!/bin/bash
# Scheduled probes on a stock server (docs/keeping-watch.md, "On a
# schedule"): the real pg_cron, in a cluster of its own with Debian's default
# pg_hba.conf (copied from the cluster pg_virtualenv made with
# pg_createcluster: peer on the socket, scram-sha-256 over TCP), listening on
# localhost, started without the PG* variables of the test's environment
# (pg_virtualenv's PGPASSWORD would let pg_cron in):
#  - with pg_cron's defaults (cron.host = localhost, no background workers),
#    ranread_probe_schedule refuses (55000), naming cron.host and
#    cron.use_background_workers, with libpq's own reason, and the hint
#    gives the exact settings: cron.host at the socket directory for the
#    postgres role (peer lets it in there), background workers (with
#    max_worker_processes) for a role peer does not let in; a role that may
#    not log in is refused too; no job is made
#  - a job made without those checks (as 1.1 made it) fails at every run:
#    ranread_probe_schedules shows 'failed' and pg_cron's message
#  - the hint's cron.host, set and the server restarted: the schedule is
#    made again (the old job kept localhost), pg_cron runs the probe (a row
#    in ranread_probes with its job), and the schedules show it succeeded
#  - with cron.use_background_workers = on, a role peer does not let in
#    schedules its probes and pg_cron runs them in a background worker: the
#    batch's leader has no client connection, and the server log shows no
#    crash (a leader that checked its client's connection crashed the
#    server there)
. "$(dirname "$0")/lib/lib.sh"
. "$(dirname "$0")/lib/cluster.bash"
trap 'cluster_stop_all' EXIT

if [ ! -e "$($PGBIN/pg_config --pkglibdir)/pg_cron.so" ]; then
  echo "1..0 # SKIP pg_cron is not installed (Debian: postgresql-15-cron)"
  exit 0
fi

HBA=$(_q strict postgres "SHOW hba_file")
C="$TMPDIR_TEST/rr_cron_stock_data"
rm -rf "$C"
cluster_init "$C"
cp "$HBA" "$C/pg_hba.conf"
chown postgres:postgres "$C/pg_hba.conf"
diag "pg_hba.conf (pg_createcluster's): $(grep -v '^\s*\(#\|$\)' "$C/pg_hba.conf" | tr -s ' ' | paste -sd '|')"
grep -Eq '^local\s+all\s+all\s+peer' "$C/pg_hba.conf" && grep -Eq '^host\s+all\s+all\s+127\.0\.0\.1/32\s+scram-sha-256' "$C/pg_hba.conf"
ok $? "the cluster has Debian's default pg_hba.conf: peer on the socket, scram-sha-256 on localhost"

CPORT=$(free_port)
CDB=rr_cron_stock
# the server as a package starts it: no PG* variables (the test's
# PGPASSWORD, PGSYSCONFDIR's service file) for pg_cron's libpq to find
CLEAN_ENV=(env -u PGPASSWORD -u PGPASSFILE -u PGSERVICE -u PGSYSCONFDIR -u PGHOST -u PGPORT -u PGDATABASE)
cluster_conf "$C" "listen_addresses = 'localhost'" "shared_preload_libraries = 'pg_cron'" \
  "cron.database_name = '$CDB'" "max_worker_processes = 16"
if [ -n "${RANREAD_DESTDIR:-}" ]; then
  cluster_conf "$C" "extension_destdir = '$RANREAD_DESTDIR'" \
    "dynamic_library_path = '$RANREAD_DESTDIR$($PGBIN/pg_config --pkglibdir):\$libdir'"
fi
CLUSTERS+=("$C")
stock() {
  "${CLEAN_ENV[@]}" runuser -u postgres -- "$PGBIN/pg_ctl" -D "$C" -l "$C/server.log" -w -t 60 \
    -m fast -o "-p $CPORT -k $C" "$1" >/dev/null
}
# psql as the postgres operating-system user, whom peer lets in as postgres
# (lib.sh's queries all go through it)
psql() { "${CLEAN_ENV[@]}" runuser -u postgres -- "$PGBIN/psql" "$@"; }
qx() { qc "$C" "$CPORT" "$CDB" "$1"; }
# every message of a statement, verbose (SQLSTATE, DETAIL, HINT)
qx_all() { qc_all "$C" "$CPORT" "$CDB" "SET client_min_messages = error; $1"; }
field() { sed -n "s/^$1:  //p" | head -1; }
# wait_until SECONDS SQL VALUE: poll until the query returns VALUE
wait_until() {
  local deadline=$((SECONDS + $1))
  until [ "$(_q poll "$CDB" "$2" -h "$C" -p "$CPORT" -U postgres)" = "$3" ] || [ $SECONDS -ge $deadline ]; do sleep 1; done
}

stock start
ok $? "a cluster with pg_cron preloaded, cron.database_name = '$CDB', pg_cron's defaults otherwise"
qc "$C" "$CPORT" postgres "CREATE DATABASE $CDB" >/dev/null
qx "CREATE EXTENSION pg_cron" >/dev/null
qx "CREATE EXTENSION ranread" >/dev/null
qx "SELECT target FROM ranread_probe_setup('pg_default', '16MB')" >/dev/null
qx "CREATE ROLE rr_monitor LOGIN; CREATE ROLE rr_nologin; GRANT USAGE ON SCHEMA cron TO rr_monitor, rr_nologin;
    SELECT count(*) FROM ranread_grant('rr_monitor', 'probe'); SELECT count(*) FROM ranread_grant('rr_nologin', 'probe')" >/dev/null
diag "pg_cron $(qx "SELECT extversion FROM pg_extension WHERE extname = 'pg_cron'"), cron.host $(qx "SHOW cron.host"), port $CPORT"

# --- pg_cron's defaults: every run would fail, so nothing is scheduled
OUT=$(qx_all "SELECT ranread_probe_schedule('pg_default', '* * * * *', duration => '1s', rate_iops => 50)")
is "$(echo "$OUT" | field ERROR)" \
  "55000: pg_cron could not run these probes: cron.use_background_workers is off and cron.host ('localhost') does not let role \"postgres\" in without a password" \
  "with pg_cron's defaults, ranread_probe_schedule refuses (55000), naming cron.use_background_workers and cron.host"
echo "$OUT" | field DETAIL | grep -q "port $CPORT, database $CDB, as the role that scheduled it, without a password; every run would end in \"connection failed\".  That connection, tried now: .*no password supplied"
ok $? "its detail says what pg_cron does and libpq's reason, from the connection tried now"
HINT=$(echo "$OUT" | field HINT)
diag "hint: $HINT"
echo "$HINT" | grep -qF "ALTER SYSTEM SET cron.host = '$C'; (this server's socket directory, where pg_hba.conf lets role \"postgres\" in) then restart the server"
ok $? "the hint gives the exact setting: cron.host at this server's socket directory, where peer lets postgres in"
echo "$HINT" | grep -qF "Or ALTER SYSTEM SET cron.use_background_workers = on; then restart the server" && echo "$HINT" | grep -qF "max_worker_processes (16)"
ok $? "... or background workers, with the workers they take of max_worker_processes"

OUT=$(qx_all "SET ROLE rr_monitor; SELECT ranread_probe_schedule('pg_default', '* * * * *')")
is "$(echo "$OUT" | field ERROR)" \
  "55000: pg_cron could not run these probes: cron.use_background_workers is off and cron.host ('localhost') does not let role \"rr_monitor\" in without a password" \
  "a monitoring role is refused too"
HINT=$(echo "$OUT" | field HINT)
echo "$HINT" | grep -qF "ALTER SYSTEM SET cron.use_background_workers = on;" && ! echo "$HINT" | grep -qF "cron.host ="
ok $? "... and is offered background workers, not the socket, where peer does not let it in"
echo "$HINT" | grep -qF "a line of pg_hba.conf (such as local all rr_monitor peer map=...)"
ok $? "... or a pg_hba.conf line for it"

OUT=$(qx_all "SET ROLE rr_nologin; SELECT ranread_probe_schedule('pg_default', '* * * * *')")
is "$(echo "$OUT" | field ERROR)" \
  "55000: ranread_probe_schedule schedules probes that run as role \"rr_nologin\", which may not log in (rolcanlogin)" \
  "a role that may not log in is refused (pg_cron's jobs log in as their role)"
is "$(echo "$OUT" | field HINT)" "A superuser lets it: ALTER ROLE rr_nologin LOGIN; (or schedule as a role that may log in)." \
  "... with the statement that lets it"
is "$(qx "SELECT count(*) FROM cron.job")" 0 "no job was made"

# a job made without those checks, as ranread 1.1 made it: pg_cron's
# connection to localhost needs a password, and every run fails
OLDJOB=$(qx "SELECT cron.schedule('ranread probe pg_default', '* * * * *',
               'SELECT * FROM ranread_probe(''pg_default'', duration => ''1s'', rate_iops => 50, job => ''ranread probe pg_default'')')")
wait_until 80 "SELECT last_status FROM ranread_probe_schedules()" failed
is "$(qx "SELECT last_status || '|' || last_error || '|' || (last_probe IS NULL) FROM ranread_probe_schedules()")" \
  "failed|connection failed|true" \
  "a job made without the checks fails at each run: ranread_probe_schedules shows 'failed' and pg_cron's message"
is "$(qx "SELECT count(*) FROM ranread_probes")" 0 "... and no probe ran"

# --- the hint's cron.host, and a restart
SET_HOST=$(qx_all "SELECT ranread_probe_schedule('pg_default', '* * * * *')" | field HINT | grep -o "ALTER SYSTEM SET cron.host = '[^']*';")
qx "$SET_HOST" >/dev/null
stock restart
ok $? "the hint's statement ($SET_HOST) is taken, and the server restarted"
qx "SET ROLE rr_monitor; SELECT ranread_internal.ranread_probe_cron_connect(false)" | grep -q 'Peer authentication failed for user "rr_monitor"'
ok $? "the socket lets postgres in, not a monitoring role (the connection pg_cron would make for it fails: peer)"
is "$(qx "SELECT coalesce(ranread_internal.ranread_probe_cron_connect(false), 'connected')")" connected "... where postgres's connects"
JOB=$(qx "SELECT ranread_probe_schedule('pg_default', '* * * * *', duration => '1s', rate_iops => 50)")
cmp_ok "$JOB" -gt "$OLDJOB" "ranread_probe_schedule now schedules, making the job again (it kept the host it was made with)"
is "$(qx "SELECT count(*) || '|' || min(nodename) || '|' || min(nodeport) FROM cron.job")" "1|$C|$CPORT" \
  "one job, which connects to the socket directory"
wait_until 80 "SELECT count(*) > 0 FROM ranread_probes WHERE job = 'ranread probe pg_default'" t
is "$(qx "SELECT count(*) || '|' || min(b.status) || '|' || min(b.started_by) FROM ranread_probes p JOIN ranread_batches b USING (batch)")" \
  "1|completed|postgres" "pg_cron ran the probe: its row in ranread_probes, its batch completed"
wait_until 10 "SELECT last_status FROM ranread_probe_schedules()" succeeded
is "$(qx "SELECT last_status || '|' || coalesce(last_error, '(none)') FROM ranread_probe_schedules()")" "succeeded|(none)" \
  "ranread_probe_schedules shows the run succeeded, with no error"

# --- background workers: a monitoring role's probes, led by pg_cron's
# background worker, which has no client connection
qx "ALTER SYSTEM SET cron.use_background_workers = on" >/dev/null
stock restart
ok $? "cron.use_background_workers = on, and the server restarted"
MARK=$(log_mark "$C")
is "$(qx "SELECT ranread_probe_unschedule('pg_default')")" t "postgres's schedule is removed (one schedule a tablespace)"
is "$(qx_all "SET ROLE rr_nologin; SELECT ranread_probe_schedule('pg_default', '* * * * *')" | field ERROR)" \
  "55000: ranread_probe_schedule schedules probes that run as role \"rr_nologin\", which may not log in (rolcanlogin)" \
  "a role that may not log in is refused with background workers too"
MJOB=$(qx "SET ROLE rr_monitor; SELECT ranread_probe_schedule('pg_default', '* * * * *', duration => '1s', rate_iops => 50)")
is "$(qx "SELECT jobid || '|' || username FROM cron.job")" "$MJOB|rr_monitor" "the monitoring role schedules its probes"
wait_until 80 "SELECT count(*) > 0 FROM ranread_probes p JOIN ranread_batches b USING (batch) WHERE b.started_by = 'rr_monitor'" t
is "$(qx "SELECT count(*) || '|' || min(b.status) || '|' || min(p.job) FROM ranread_probes p JOIN ranread_batches b USING (batch) WHERE b.started_by = 'rr_monitor'")" \
  "1|completed|ranread probe pg_default" "pg_cron ran the monitoring role's probe in a background worker: its row, its job, its batch completed"
wait_until 10 "SET ROLE rr_monitor; SELECT last_status FROM ranread_probe_schedules()" succeeded
is "$(qx "SET ROLE rr_monitor; SELECT last_status || '|' || coalesce(last_error, '(none)') FROM ranread_probe_schedules()")" "succeeded|(none)" \
  "the monitoring role's schedules show the run succeeded"
no_crash "$MARK" "a batch led by pg_cron's background worker (no client connection) does not crash the server"
is "$(qx "SELECT ranread_probe_unschedule('pg_default')")" f "postgres has no schedule left to remove"
is "$(qx "SET ROLE rr_monitor; SELECT ranread_probe_unschedule('pg_default')")" t "the monitoring role removes its own"

done_testing
