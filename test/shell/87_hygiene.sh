#!/bin/bash
# Hygiene of the build and the shell helpers:
#  - the library exports only what PostgreSQL looks up by name (the SQL
#    functions and their pg_finfo_ records, the magic block, _PG_init, the
#    background worker's entry point), all prefixed: PostgreSQL loads
#    libraries with RTLD_GLOBAL, so a global "hist_merge" or "spi_text" could
#    clash with another extension's
#  - the extension in a schema with a long mixed-case name (63 bytes, 65
#    quoted) runs and records batches: 1.0 kept the quoted name in a 64-byte
#    buffer and sent truncated SQL to the worker
#  - an error inside a worker reaches the server log
#  - the tests are kept by kind (test/README.md): each shell test's number
#    is its own, every test file is in its kind's folder
. "$(dirname "$0")/lib/lib.sh"
. "$(dirname "$0")/lib/faults.bash"

SO="$(pg_config --pkglibdir)/ranread.so"
[ -n "${RANREAD_DESTDIR:-}" ] && SO="$RANREAD_DESTDIR$SO"
syms=$(nm -D --defined-only "$SO" | awk '$2 ~ /^[TDBRVW]$/ { print $3 }' | sort)
bad=$(echo "$syms" | grep -vE '^(Pg_magic_func|_PG_init|(pg_finfo_)?ranread_[a-z0-9_]+|_init|_fini|__bss_start|_edata|_end)$')
is "$bad" "" "ranread.so exports nothing but the SQL functions, the magic block, _PG_init and ranread_ entry points ($(echo "$syms" | wc -l) symbols)"
echo "$syms" | grep -qx ranread_worker_main
ok $? "... among them the background worker's entry point"
setup_db rr_hygiene
missing=""
for f in $(q "SELECT DISTINCT prosrc FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid AND d.classid = 'pg_proc'::regclass
                JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'ranread' WHERE p.prolang = (SELECT oid FROM pg_language WHERE lanname = 'c')"); do
  echo "$syms" | grep -qx "$f" && echo "$syms" | grep -qx "pg_finfo_$f" || missing="$missing $f"
done
is "$missing" "" "... and every C function of the extension's SQL script is exported with its pg_finfo_ record"

# --- a schema whose name needs quotes and takes all 63 bytes
SCHEMA='Ranread Benchmark Schema, With A Long Mixed-Case Name 012345678'
is "${#SCHEMA}" 63 "a schema name of 63 bytes with capitals, spaces and a comma (65 bytes quoted)"
q "DROP EXTENSION ranread" >/dev/null
QS=$(q "SELECT quote_ident('$(echo "$SCHEMA" | sed "s/'/''/g")')")
q "CREATE SCHEMA $QS; CREATE EXTENSION ranread SCHEMA $QS" >/dev/null
is "$(q "SELECT nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE extname = 'ranread'")" "$SCHEMA" \
  "the extension is installed in it"
is "$(q "SET search_path = $QS; SELECT target FROM ranread_setup('16MB')")" ranread "ranread_setup works there"
is "$(q "SET search_path = $QS; SELECT status || '|' || reads FROM ranread_run(2, 300)")" "completed|600" \
  "ranread_run works there, and its worker records the batch"
is "$(q "SELECT count(*) FROM $QS.ranread_results")" 2 "... one row per process, in that schema"
is "$(q "SET search_path = $QS; SELECT count(*) FROM ranread_sweep(start => 1, max_processes => 2, duration => '0.3s')")" 2 \
  "a sweep works there"

# --- a worker's error reaches the server log
LOG=$(psql -qAtX -d postgres -c "SELECT pg_current_logfile()")
# pg_virtualenv logs to <its directory>/log/, beside data/15/regress: this
# cluster's, not whichever cluster of another test run wrote last
[ -z "$LOG" ] && LOG=$(ls -t "$(data_dir)"/../../../log/*.log 2>/dev/null | head -1)
[ -n "$LOG" ] && [ "${LOG#/}" = "$LOG" ] && LOG="$(data_dir)/$LOG"
TARGET_FILE="$(data_dir)/$(q "SELECT pg_relation_filepath(relid) FROM $QS.ranread_target_catalog")"
# the worker opens the files only after inserting the batch's row: hold that
# back, move the file away meanwhile, then let the worker go
bg_psql rr_holder "BEGIN" "LOCK TABLE $QS.ranread_batches IN SHARE MODE" "SELECT pg_sleep(60)"
HOLDER=$BG_PID
wait_session 10 rr_holder
bg_psql rr_victim "SET search_path = $QS" "SELECT * FROM ranread_run(1, 100)"
VICTIM=$BG_PID
wait_for 20 "SELECT EXISTS (SELECT FROM pg_stat_activity WHERE backend_type = 'ranread worker' AND query LIKE '%waiting for a lock%')"
mv "$TARGET_FILE" "$TARGET_FILE.away"
end_session rr_holder "$HOLDER"
wait_pid "$VICTIM" 20
mv "$TARGET_FILE.away" "$TARGET_FILE"
bg_output rr_victim | grep -q 'could not open segment 0 of target "ranread"'
ok $? "a worker that cannot open the target's file fails the batch, saying so to the caller"
if [ -n "$LOG" ] && [ -r "$LOG" ]; then
  grep -q 'ERROR: .*could not open segment 0 of target "ranread"' "$LOG"
  ok $? "a worker that cannot open the target's file logs the error in the server log ($LOG)"
else
  ok 0 "# SKIP the server log is not readable here"
fi

# --- tests by kind
TESTS="$(dirname "$0")/.."
dup=$(ls "$TESTS"/shell/[0-9]*.sh | sed -E 's|.*/([0-9]+)_.*|\1|' | sort | uniq -d | paste -sd' ' -)
is "$dup" "" "no two shell tests share a number"
stray=$(ls "$TESTS"/*.sql "$TESTS"/*.sh "$TESTS"/shell/*.bash "$TESTS"/shell/*.py "$TESTS"/shell/[!0-9]*.sh 2>/dev/null | paste -sd' ' -)
is "$stray" "" "every test file is in its kind's folder (pgTAP in tap/, helpers in shell/lib/)"
# a test that uses $WORK makes it (faults.bash, or WORK=$(mktemp ...)):
# unset, its files land in / and tests in lanes side by side share them
nowork=$(for f in "$TESTS"/shell/[0-9]*.sh; do
           grep -q '\$WORK\|\${WORK' "$f" && ! grep -qE '^\. .*lib/faults\.bash|^ *WORK=' "$f" && basename "$f"
         done | paste -sd' ' -)
is "$nowork" "" "every shell test that uses \$WORK makes a directory of its own for it"

done_testing
