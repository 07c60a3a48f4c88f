#!/bin/bash
# Setup and purge of a target name wait only for each other, behind a lock
# no other role can take.
#  - a role with no grant of ranread at all holds the advisory lock 1.1 used
#    to take (pg_advisory_lock(hashtextextended(name, 'ranread')), which any
#    role may call): ranread_setup and ranread_purge of that name still
#    finish at once.  Before, both waited for as long as that session lived.
#  - the same role cannot name a target to lock it some other way (PREPARE
#    of a query on it, which locks without a privilege check): targets are
#    in a schema it has no privilege on
#  - two setups or purges of one name still wait for each other; the wait
#    shows in pg_locks as an "object" lock on pg_extension, and cancel and
#    lock_timeout end it at once
. "$(dirname "$0")/lib/lib.sh"
. "$(dirname "$0")/lib/faults.bash"

setup_db rr_tlock
psql -qX -d postgres -c "DROP ROLE IF EXISTS rr_tlock_nobody" -c "CREATE ROLE rr_tlock_nobody" >/dev/null
setup_target 8MB
REL=$(q "SELECT relid::regclass FROM ranread_target_catalog WHERE target = 'ranread'")

# --- the advisory lock of the old scheme, held by a role with no grant
KEY="hashtextextended('ranread', x'72616e72656164'::bigint)"
bg_psql nobody "SET ROLE rr_tlock_nobody" "SELECT pg_advisory_lock($KEY)" "SELECT pg_sleep(60)"
NOBODY=$BG_PID
wait_for 10 "SELECT count(*) = 1 FROM pg_locks l JOIN pg_stat_activity a USING (pid) WHERE a.application_name = 'nobody' AND l.locktype = 'advisory' AND l.granted"
ok $? "a role with no grant holds pg_advisory_lock(hashtextextended('ranread', ...)) of the target name"
t0=$(now_ms)
res=$(psql -qAtX -d "$DB" -c "SET client_min_messages = error" -c "SET statement_timeout = '20s'" \
        -c "SELECT target FROM ranread_setup('8MB')" 2>&1)
t1=$(now_ms)
is "$res" ranread "ranread_setup of that name is not blocked by it"
cmp_ok "$(secs "$t0" "$t1")" '<' 10 "... it took $(secs "$t0" "$t1") s"
t0=$(now_ms)
res=$(psql -qAtX -d "$DB" -c "SET statement_timeout = '20s'" -c "SELECT ranread_purge()" 2>&1)
t1=$(now_ms)
is "$res" t "ranread_purge of that name is not blocked by it either"
cmp_ok "$(secs "$t0" "$t1")" '<' 10 "... it took $(secs "$t0" "$t1") s"
end_session nobody "$NOBODY"

# --- nor by a lock on the target's relation, which it cannot name
setup_target 8MB
REL=$(q "SELECT relid::regclass FROM ranread_target_catalog WHERE target = 'ranread'")
msg=$(psql -qAtX -d "$DB" -v VERBOSITY=verbose -c "SET ROLE rr_tlock_nobody" -c "BEGIN" \
        -c "PREPARE p AS SELECT * FROM $REL" 2>&1)
echo "$msg" | grep -Eq 'ERROR: +42501: permission denied for schema ranread_target'
ok $? "a role with no grant cannot name a target, not even to PREPARE a query on it (which would lock it)"
msg=$(psql -qAtX -d "$DB" -v VERBOSITY=verbose -c "SET ROLE rr_tlock_nobody" -c "BEGIN" -c "LOCK TABLE $REL" 2>&1)
echo "$msg" | grep -Eq 'ERROR: +42501'
ok $? "... nor LOCK it"

# --- one name's setup and purge still wait for each other, interruptibly
bg_psql holder "BEGIN" "SELECT ranread_purge()" "SELECT pg_sleep(60)"
HOLDER=$BG_PID
wait_for 10 "SELECT count(*) = 1 FROM pg_locks l JOIN pg_stat_activity a USING (pid) WHERE a.application_name = 'holder' AND l.locktype = 'object' AND l.classid = 'pg_extension'::regclass AND l.granted"
ok $? "a purge holds an object lock on pg_extension's row of ranread until its transaction ends"
bg_psql waiter "SELECT target FROM ranread_setup('8MB')"
WAITER=$BG_PID
wait_for 10 "SELECT count(*) = 1 FROM pg_locks l JOIN pg_stat_activity a USING (pid) WHERE a.application_name = 'waiter' AND l.locktype = 'object' AND NOT l.granted"
ok $? "a setup of the same name waits for it, and pg_locks shows the wait"
t0=$(now_ms)
q "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE application_name = 'waiter'" >/dev/null
wait_pid "$WAITER" 10
t1=$(now_ms)
bg_output waiter | grep -q 'canceling statement due to user request'
ok $? "pg_cancel_backend ends the wait"
cmp_ok "$(secs "$t0" "$t1")" '<' 2 "... within $(secs "$t0" "$t1") s"
t0=$(now_ms)
msg=$(psql -qAtX -d "$DB" -v VERBOSITY=verbose -c "SET lock_timeout = '500ms'" -c "SELECT ranread_purge()" 2>&1)
t1=$(now_ms)
echo "$msg" | grep -Eq 'ERROR: +55P03'
ok $? "lock_timeout ends a purge's wait (55P03)"
cmp_ok "$(secs "$t0" "$t1")" '<' 3 "... after $(secs "$t0" "$t1") s"
res=$(psql -qAtX -d "$DB" -c "SELECT target FROM ranread_setup('8MB', target => 'other')" 2>/dev/null)
is "$res" other "a setup of another name does not wait"
end_session holder "$HOLDER"
is "$(q "SELECT string_agg(target, ',' ORDER BY target) FROM ranread_targets")" "other,ranread" \
  "the purge that was ended rolled back: both targets are there"
q "SELECT ranread_purge('other')" >/dev/null
q "SELECT ranread_purge()" >/dev/null
psql -qX -d postgres -c "DROP DATABASE $DB" -c "DROP ROLE rr_tlock_nobody" >/dev/null

done_testing
