#!/bin/bash
# Roles acting in bad faith, where SQL alone cannot see it (README,
# "Privileges"; docs/keeping-watch.md, "The probe"):
#  - granting 'run' to pg_monitor warns that every monitoring role may then
#    run batches; revoking it leaves pg_monitor reading the history
#  - a probe's batch is the role's that called it: while it runs, a role
#    granted 'run' is refused the cluster's batch and ranread_stop, whose
#    error names the probe's role (1.1 named "the superuser role postgres",
#    the extension's owner the probe runs as); the role itself (and
#    pg_signal_backend's members) may stop it
#  - an id registers in one transaction only: a session cannot reopen its
#    sweep in a later transaction to add batches to a recorded sweep
. "$(dirname "$0")/lib/lib.sh"
. "$(dirname "$0")/lib/faults.bash"

ROLES="rr_trust_probe rr_trust_run rr_trust_signal"
cleanup() {
  faults_cleanup
  local r
  for r in $ROLES; do
    psql -qX -d "$DB" -c "DROP OWNED BY $r" >/dev/null 2>&1
    psql -qX -d postgres -c "DROP ROLE IF EXISTS $r" >/dev/null 2>&1
  done
}
trap cleanup EXIT

setup_db rr_trust
setup_target 16MB
q "SELECT target FROM ranread_probe_setup('pg_default', '16MB')" >/dev/null
for r in $ROLES; do psql -qX -d postgres -c "DROP ROLE IF EXISTS $r" -c "CREATE ROLE $r" >/dev/null 2>&1; done
q "SELECT count(*) FROM ranread_grant('rr_trust_probe', 'probe');
   SELECT count(*) FROM ranread_grant('rr_trust_run', 'run');
   SELECT count(*) FROM ranread_grant('rr_trust_signal', 'run')" >/dev/null
psql -qX -d postgres -c "GRANT pg_signal_backend TO rr_trust_signal" >/dev/null

# --- pg_monitor
msg=$(psql -qAtX -d "$DB" -c "SELECT count(*) FROM ranread_grant('pg_monitor', 'run')" 2>&1)
echo "$msg" | grep -q "WARNING:  every member of role pg_monitor may now make targets and run batches, sweeps and studies on this server"
ok $? "granting 'run' to pg_monitor warns that every monitoring role may now run batches"
q "SELECT count(*) FROM ranread_revoke('pg_monitor', 'run')" >/dev/null
is "$(q "SELECT ranread_internal.ranread_role_holds('pg_monitor', 'report') AND NOT ranread_internal.ranread_role_holds('pg_monitor', 'run')")" t \
  "... and revoking it leaves pg_monitor reading the history, and no more"

# --- a probe holds the cluster's batch, as its own role
as() { psql -qAtX -d "$DB" -v VERBOSITY=verbose -c "SET client_min_messages = error" -c "SET ROLE $1" -c "$2" 2>&1; }
bg_psql probe "SET ROLE rr_trust_probe" "SELECT status FROM ranread_probe(duration => '20s', rate_iops => 20)"
wait_running 20
ok $? "a role granted 'probe' runs a 20 s probe"
B=$(q "SELECT batch FROM ranread_batches WHERE status = 'running'")
is "$(q "SELECT started_by FROM ranread_batches WHERE batch = $B")" rr_trust_probe "its batch is started by the probe's role"
msg=$(as rr_trust_run "SELECT * FROM ranread_run(1, 10)")
echo "$msg" | grep -Eq "^ERROR: +55006: ranread batch $B of database \"rr_trust\" is already running"
ok $? "a role granted 'run' is refused the cluster's batch while the probe runs"
msg=$(as rr_trust_run "SELECT ranread_stop()")
echo "$msg" | sed 's/^/# /'
echo "$msg" | grep -Eq "^ERROR: +42501: permission denied to stop ranread batch $B"
ok $? "... and may not stop it"
echo "$msg" | grep -Eq "^DETAIL: +The batch was started by role \"rr_trust_probe\" in the session with PID [0-9]+\."
ok $? "... the error naming the probe's role, not the extension's owner"
is "$(as rr_trust_signal "SELECT ranread_stop()")" 1 "a member of pg_signal_backend stops the probe"
wait_pid "$BG_PID" 20
grep -q "the probe of tablespace \"pg_default\" did not complete: batch $B was stopped" "$WORK/probe.out"
ok $? "... which ends saying so"
is "$(q "SELECT status || '|' || (SELECT count(*) FROM ranread_probes WHERE batch = $B) FROM ranread_batches WHERE batch = $B")" "stopped|0" \
  "... stopped, and not a probe in ranread_probes"

# --- an id is one transaction's
msg=$(psql -qAtX -d "$DB" -v VERBOSITY=verbose -c "SET client_min_messages = error" -c "SET ROLE rr_trust_run" \
        -c "SELECT ranread_internal.ranread_call_register('sweep', nextval('ranread_sweep_seq'))" \
        -c "SELECT ranread_internal.ranread_call_register('sweep', currval('ranread_sweep_seq'))" 2>&1)
echo "$msg" | grep -Eq "^ERROR: +55000: sweep [0-9]+ was registered by an earlier transaction of this session"
ok $? "a sweep's id registered in one transaction does not register again in the next"

done_testing
