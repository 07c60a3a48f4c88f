#!/bin/bash
# Numbers a DBA trusts at a glance, as psql shows them (README, "Reading
# the results"; "Privileges"; docs/reference.md, "Settings"):
#  - the batch's one-line NOTICE and its row say the same figures, rounded
#    alike (IOPS, MiB/s, avg and p99 in ms, seconds), for several batches
#  - a batch on a target smaller than twice the RAM warns, each batch, and
#    its notes keep it; so does each step of a profile
#  - the start NOTICE says why the synchronous engine ran
#  - SHOW ranread.engine in a fresh session: unknown before the library is
#    loaded, known after LOAD 'ranread', and in every new session with
#    session_preload_libraries
#  - PostgreSQL's permission-denied error on a ranread object carries the
#    hint naming the ranread_grant call, where the library is loaded
. "$(dirname "$0")/lib/lib.sh"

DB=rr_glance
ROLE=rr_glance_nobody
cleanup() {
  psql -qX -d postgres -c "DROP DATABASE IF EXISTS $DB" -c "DROP ROLE IF EXISTS $ROLE" >/dev/null 2>&1
}
trap cleanup EXIT
setup_db "$DB"
q "SELECT target FROM ranread_setup('32MB')" >/dev/null

# msgs SQL: the messages (stderr) and the row (stdout, unaligned) of SQL
run_both() {
  psql -AtX -F ' ' -d "$DB" -c "SET client_min_messages = notice" -c "$1" 2> "$TMPDIR_TEST/glance.err" > "$TMPDIR_TEST/glance.out"
}

# --- the NOTICE and the row agree, figure by figure
for args in "4, 2000" "1, duration => '0.5s'" "2, duration => '0.5s', write_pct => 30"; do
  run_both "SELECT batch, iops, mbps, avg_ms, p99_ms, seconds FROM ranread_run($args)"
  read -r b iops mbps avg p99 secs < <(tail -1 "$TMPDIR_TEST/glance.out")
  line=$(grep -E "^NOTICE:  batch $b: " "$TMPDIR_TEST/glance.err")
  want="IOPS=$iops, BW=${mbps}MiB/s, avg $avg ms, p99 $p99 ms, $secs s"
  case "$line" in *"$want"*) r=0 ;; *) r=1 ;; esac
  ok $r "ranread_run($args): the NOTICE says what the row says: $want"
  [ $r = 0 ] || diag "NOTICE: $line"
  [ $r = 0 ] || diag "row:    $(tail -1 "$TMPDIR_TEST/glance.out")"
done
case "$line" in "NOTICE:  batch $b: 2 processes, random 8 KiB 30% writes, "*) r=0 ;; *) r=1; diag "$line" ;; esac
ok $r "... and names the processes and the workload"
# a mix: its line per group, then its total as the total row has it
run_both "SELECT batch, iops, mbps, avg_ms, p99_ms, seconds FROM ranread_mix('[{\"label\": \"a\", \"processes\": 1}, {\"label\": \"b\", \"processes\": 2, \"write_pct\": 20}]', duration => '0.5s') WHERE grp = 0"
read -r b iops mbps avg p99 secs < <(tail -1 "$TMPDIR_TEST/glance.out")
line=$(grep -E "^NOTICE:  batch $b: " "$TMPDIR_TEST/glance.err")
is "$line" "NOTICE:  batch $b: 3 processes, mix of 2 groups, IOPS=$iops, BW=${mbps}MiB/s, avg $avg ms, p99 $p99 ms, $secs s" \
   "a mix's line gives its total as the total row does"

# --- caches: the target is far below twice any test machine's RAM
ram=$(q "SELECT ranread_internal.ranread_ram_bytes()")
run_both "SELECT batch FROM ranread_run(1, 200)"
b=$(tail -1 "$TMPDIR_TEST/glance.out")
if [ -n "$ram" ] && [ "$ram" -gt $((16 * 1024 * 1024)) ]; then
  grep -q "^WARNING:  ranread batch $b: the part of the target read (32 MB) is less than twice the server's RAM" "$TMPDIR_TEST/glance.err"
  ok $? "a batch on a 32 MB target warns that caches may have answered"
  notes=$(q "SELECT notes FROM ranread_summary_full WHERE batch = $b")
  case "$notes" in *"storage and controller caches may have answered"*) r=0 ;; *) r=1; diag "notes: $notes" ;; esac
  ok $r "... and its notes keep it"
  run_both "SELECT count(*) FROM ranread_profile('crystaldiskmark', duration => '0.3s', writes => false)"
  n=$(grep -c "^WARNING:  ranread batch [0-9]*: the part of the target read" "$TMPDIR_TEST/glance.err")
  cmp_ok "$n" ">=" 2 "each step of a CrystalDiskMark profile on it warns too ($n warnings)"
else
  for i in 1 2 3; do TESTS_RUN=$((TESTS_RUN + 1)); echo "ok $TESTS_RUN # SKIP the server's RAM is not known"; done
fi

# --- the synchronous engine, explained
run_both "SELECT batch FROM ranread_run(1, 200)"
line=$(grep -E "^NOTICE:  ranread batch [0-9]+: sync engine" "$TMPDIR_TEST/glance.err")
if [ "$(q "SELECT engine FROM ranread_batches ORDER BY batch DESC LIMIT 1")" = sync ] && \
   psql -qAtX -d "$DB" -c "SHOW ranread.engine" 2>/dev/null | grep -q auto; then
  case "$line" in *"sync engine (each worker keeps one I/O in flight, where a plain pread or pwrite costs less than io_uring)"*) r=0 ;; *) r=1; diag "$line" ;; esac
  ok $r "a batch whose every worker keeps one I/O in flight says why it ran the synchronous engine"
else
  TESTS_RUN=$((TESTS_RUN + 1)); echo "ok $TESTS_RUN # SKIP the synchronous engine was not chosen over io_uring here"
fi

# --- SHOW in a fresh session
err=$(psql -qAtX -d "$DB" -c "SHOW ranread.engine" 2>&1)
case "$err" in *'unrecognized configuration parameter "ranread.engine"'*) r=0 ;; *) r=1; diag "$err" ;; esac
ok $r "a fresh session does not know ranread.engine before the library is loaded (PostgreSQL's rule)"
is "$(psql -qAtX -d "$DB" -c "LOAD 'ranread'" -c "SHOW ranread.engine" 2>&1)" auto "... and knows it after LOAD 'ranread'"
psql -qAtX -d "$DB" -c "CREATE ROLE $ROLE LOGIN PASSWORD 'rr_glance'" -c "ALTER ROLE $ROLE SET session_preload_libraries = 'ranread'" >/dev/null
as_role() { PGPASSWORD=rr_glance psql -qAtX -d "$DB" -U "$ROLE" "$@"; }
is "$(as_role -c "SHOW ranread.probe_max_iops" 2>&1)" \
   "$(psql -qAtX -d "$DB" -c "LOAD 'ranread'" -c "SHOW ranread.probe_max_iops" 2>&1)" \
   "with session_preload_libraries every new session knows the ranread.* settings"

# --- the permission hint (the role has no grant; the library is preloaded)
hint() { as_role -c "$1" 2>&1 | sed -n 's/^HINT:  //p'; }
is "$(hint "SELECT * FROM ranread_run(1, 10)")" \
   "A superuser gives it: SELECT ranread_grant('$ROLE', 'run'); 'report' reads the history, 'probe' runs the probe, 'run' runs batches (README, \"Privileges\")." \
   "permission denied for function ranread_run: the hint names ranread_grant(role, 'run')"
case "$(hint "SELECT * FROM ranread_brief")" in *"ranread_grant('$ROLE', 'report')"*) r=0 ;; *) r=1 ;; esac
ok $r "... for a view: 'report'"
case "$(hint "SELECT ranread_probe()")" in *"ranread_grant('$ROLE', 'probe')"*) r=0 ;; *) r=1 ;; esac
ok $r "... for the probe: 'probe'"
is "$(as_role -c "SELECT * FROM pg_authid" 2>&1 | grep -c '^HINT:')" 0 \
   "... and PostgreSQL's own objects get no ranread hint"

done_testing
