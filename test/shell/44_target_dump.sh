#!/bin/bash
# pg_dump | pg_restore keeps the history after the grants DBAs commonly run.
# pg_dump never dumps a target (an extension member made after CREATE
# EXTENSION) but dumps a grant on one; before, GRANT SELECT ON ALL TABLES IN
# SCHEMA public reached the targets (they were in the extension's schema),
# so the dump carried GRANT ... ON TABLE ranread_target_<md5> without the
# relation: pg_restore exited 1, a plain dump under ON_ERROR_STOP stopped.
#  - targets live in schema ranread_target, apart from the users' schemas:
#    GRANT ... ON ALL TABLES IN SCHEMA public does not reach them
#  - ALTER DEFAULT PRIVILEGES (global, or IN SCHEMA ranread_target) give a
#    new target nothing: setup takes them off
#  - a GRANT that reaches a target (by name, ON ALL TABLES IN SCHEMA
#    ranread_target) is refused (0LP01)
#  - custom and plain dumps restore into a fresh database without an error
#    (pg_restore --exit-on-error, psql ON_ERROR_STOP), with every history row
#  - a 1.0 database whose target got grants moves it there and takes them
#    off when updated to 1.1, and then dumps and restores too
. "$(dirname "$0")/lib/lib.sh"
. "$(dirname "$0")/lib/faults.bash"

for r in rr_dump_reporting; do
  psql -qX -d postgres -c "DROP ROLE IF EXISTS $r" -c "CREATE ROLE $r" >/dev/null
done
hist() { q_in "$1" "SELECT count(*) || ':' || md5(string_agg(b::text, ',' ORDER BY batch)) FROM ranread_batches b"; }
fresh() { psql -qX -d postgres -c "DROP DATABASE IF EXISTS $1" -c "CREATE DATABASE $1" >/dev/null; }

# restore_both DB WHAT: custom and plain dumps of DB into fresh databases
restore_both() {
  local src=$1 what=$2 out
  pg_dump -Fc -d "$src" -f "$WORK/$src.dump" 2>"$WORK/$src.dump.err"
  ok $? "$what: pg_dump -Fc runs"
  fresh "${src}_c"
  out=$(pg_restore --exit-on-error -d "${src}_c" "$WORK/$src.dump" 2>&1)
  ok $? "$what: pg_restore --exit-on-error into a fresh database succeeds"
  [ -n "$out" ] && echo "$out" | head -5 | sed 's/^/# /'
  is "$(hist "${src}_c")" "$(hist "$src")" "$what: ... with every history row"
  pg_dump -d "$src" -f "$WORK/$src.sql" 2>/dev/null
  fresh "${src}_p"
  out=$(psql -qX -v ON_ERROR_STOP=1 -d "${src}_p" -f "$WORK/$src.sql" 2>&1 >/dev/null)
  ok $? "$what: a plain dump restores under ON_ERROR_STOP"
  [ -n "$out" ] && echo "$out" | grep ERROR | head -5 | sed 's/^/# /'
  is "$(hist "${src}_p")" "$(hist "$src")" "$what: ... with every history row"
  is "$(q_in "${src}_c" "SET client_min_messages = error; SELECT target FROM ranread_setup('4MB')")" ranread \
    "$what: ranread_setup works in the restored database"
  psql -qX -d postgres -c "DROP DATABASE ${src}_c" -c "DROP DATABASE ${src}_p" >/dev/null
}

setup_db rr_dump
q "ALTER DEFAULT PRIVILEGES GRANT SELECT ON TABLES TO rr_dump_reporting" >/dev/null
q "ALTER DEFAULT PRIVILEGES IN SCHEMA ranread_target GRANT SELECT ON TABLES TO rr_dump_reporting" >/dev/null
q "ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT ON TABLES TO rr_dump_reporting" >/dev/null
setup_target 8MB
setup_target 4MB second
q "SELECT * FROM ranread_run(1, 200)" >/dev/null
q "SELECT * FROM ranread_run(1, 200, target => 'second')" >/dev/null
REL=$(q "SELECT relid::regclass FROM ranread_target_catalog WHERE target = 'ranread'")
is "$(q "SELECT n.nspname FROM ranread_target_catalog t JOIN pg_class c ON c.oid = t.relid JOIN pg_namespace n ON n.oid = c.relnamespace WHERE t.target = 'ranread'")" \
  ranread_target "a target's relation is in schema ranread_target"
is "$(q "SELECT count(*) FROM ranread_target_catalog t JOIN pg_class c ON c.oid = t.relid WHERE c.relacl IS NOT NULL")" 0 \
  "default privileges (global and IN SCHEMA ranread_target) give new targets no grant"
psql -qAtX -d "$DB" -v ON_ERROR_STOP=1 -c "GRANT SELECT ON ALL TABLES IN SCHEMA public TO rr_dump_reporting" >/dev/null 2>&1
ok $? "GRANT SELECT ON ALL TABLES IN SCHEMA public works"
is "$(q "SELECT has_table_privilege('rr_dump_reporting', 'ranread_batches', 'SELECT')")" t "... and reaches the history tables"
msg=$(psql -qAtX -d "$DB" -v VERBOSITY=verbose -c "GRANT SELECT ON $REL TO rr_dump_reporting" 2>&1)
echo "$msg" | grep -Eq 'ERROR: +0LP01: ranread target relation .* takes no privileges'
ok $? "GRANT on a target by name is refused (0LP01)"
echo "$msg" | grep -Eq '^DETAIL: .*pg_dump'
ok $? "... saying why (pg_dump)"
msg=$(psql -qAtX -d "$DB" -v VERBOSITY=verbose -c "GRANT SELECT ON ALL TABLES IN SCHEMA ranread_target TO rr_dump_reporting" 2>&1)
echo "$msg" | grep -Eq 'ERROR: +0LP01'
ok $? "GRANT ... ON ALL TABLES IN SCHEMA ranread_target is refused"
is "$(q "SELECT count(*) FROM ranread_target_catalog t JOIN pg_class c ON c.oid = t.relid WHERE c.relacl IS NOT NULL")" 0 \
  "... and the targets have no grant"
msg=$(psql -qAtX -d "$DB" -v VERBOSITY=verbose -c "REVOKE TRUNCATE ON ALL TABLES IN SCHEMA ranread_target FROM postgres" 2>&1)
echo "$msg" | grep -Eq 'ERROR: +0LP01'
ok $? "a REVOKE that would leave a target with other than its default privileges is refused too"
msg=$(psql -qAtX -d "$DB" -v VERBOSITY=verbose -c "SET session_replication_role = replica" \
        -c "GRANT SELECT ON ALL TABLES IN SCHEMA ranread_target TO rr_dump_reporting" 2>&1)
echo "$msg" | grep -Eq 'ERROR: +0LP01'
ok $? "... and a GRANT under session_replication_role = replica"
is "$(q "SELECT count(*) FROM ranread_target_catalog t JOIN pg_class c ON c.oid = t.relid WHERE c.relacl IS NOT NULL")" 0 \
  "... and the targets still have no grant"
restore_both rr_dump "after the common grants"
q "SELECT ranread_purge('second'), ranread_purge()" >/dev/null

# --- a 1.0 database whose target got a grant, updated to 1.1
setup_db rr_dump_old
q "DROP EXTENSION ranread; CREATE EXTENSION ranread VERSION '1.0'" >/dev/null
setup_target 8MB
q "SELECT * FROM ranread_run(1, 200)" >/dev/null
q "GRANT SELECT ON ALL TABLES IN SCHEMA public TO rr_dump_reporting" >/dev/null
is "$(q "SELECT c.relacl IS NOT NULL FROM ranread_target_catalog t JOIN pg_class c ON c.oid = t.relid")" t \
  "1.0: GRANT ... ON ALL TABLES IN SCHEMA public reaches the target"
q "ALTER EXTENSION ranread UPDATE" >/dev/null
is "$(q "SELECT n.nspname || '|' || (c.relacl IS NULL OR c.relacl = acldefault('r', c.relowner)) FROM ranread_target_catalog t JOIN pg_class c ON c.oid = t.relid JOIN pg_namespace n ON n.oid = c.relnamespace")" \
  "ranread_target|true" "updated to 1.1, the target is in schema ranread_target, its grant taken off"
is "$(q "SELECT state FROM ranread_targets")" ready "... and ready"
restore_both rr_dump_old "a 1.0 database updated"
q "SELECT ranread_purge()" >/dev/null
psql -qX -d postgres -c "DROP DATABASE rr_dump" -c "DROP DATABASE rr_dump_old" -c "DROP ROLE rr_dump_reporting" >/dev/null

done_testing
