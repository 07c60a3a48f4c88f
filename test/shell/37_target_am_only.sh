#!/bin/bash
# Only ranread makes relations of the ranread_target access method, and no
# command leaves one with a transaction id.  A relation of the method is
# never vacuumed, so a relfrozenxid on one pins the database's datfrozenxid
# until someone finds and drops it: a wraparound outage.  Before, any role
# with CREATE on a schema could plant one (CREATE TABLE ... USING
# ranread_target then a rewriting ALTER TABLE, SET ACCESS METHOD, CREATE
# MATERIALIZED VIEW ... USING and REFRESH), and ALTER TABLE ... SET LOGGED
# did it to a real target.
#  - every path, by an ordinary role, is refused, naming the access method
#  - the rewrites of a target that would give it a transaction id are
#    refused; VACUUM FULL, CLUSTER, TRUNCATE, SET TABLESPACE keep it whole
#  - afterwards no relation of the method has a relfrozenxid or relminmxid,
#    and VACUUM FREEZE advances age(datfrozenxid) past the xids burnt since
#  - ranread_target_check() lists a relation of the method that is not a
#    target (as builds before the refusal made them), with the DROP to run
. "$(dirname "$0")/lib/lib.sh"
. "$(dirname "$0")/lib/faults.bash"

setup_db rr_amonly
psql -qX -d postgres -c "DROP ROLE IF EXISTS rr_amonly_user" -c "CREATE ROLE rr_amonly_user" >/dev/null
q "GRANT CREATE ON SCHEMA public TO rr_amonly_user" >/dev/null
setup_target 16MB
REL=$(q "SELECT relid::regclass FROM ranread_target_catalog WHERE target = 'ranread'")
AM="(SELECT oid FROM pg_am WHERE amname = 'ranread_target')"
with_xids() { q "SELECT count(*) FROM pg_class WHERE relam = $AM AND (relfrozenxid::text <> '0' OR relminmxid::text <> '0')"; }

# as_user SQL...: statements of the ordinary role, each on its own; every message
as_user() {
  local args=(-c "SET ROLE rr_amonly_user") s
  for s in "$@"; do args+=(-c "$s"); done
  psql -qAtX -d "$DB" -v VERBOSITY=verbose "${args[@]}" 2>&1
}
refused() { echo "$1" | grep -Eq "ERROR: +0A000: relation \"$2\" cannot use access method \"ranread_target\""; }

msg=$(as_user "CREATE TABLE a1 (x int) USING ranread_target" "ALTER TABLE a1 ADD COLUMN y float DEFAULT random()")
refused "$msg" a1
ok $? "CREATE TABLE ... USING ranread_target by an ordinary role is refused (0A000)"
echo "$msg" | grep -Eq '^HINT: .*heap'
ok $? "... and the hint names heap"
msg=$(as_user "CREATE TABLE h1 (x int)" "INSERT INTO h1 VALUES (1)" "ALTER TABLE h1 SET ACCESS METHOD ranread_target")
refused "$msg" h1
ok $? "ALTER TABLE ... SET ACCESS METHOD ranread_target is refused"
msg=$(as_user "CREATE TABLE h2 (x int)" "ALTER TABLE h2 SET ACCESS METHOD ranread_target")
refused "$msg" h2
ok $? "... also for an empty table"
msg=$(as_user "CREATE MATERIALIZED VIEW mv1 USING ranread_target AS SELECT 1 AS x WITH NO DATA" "REFRESH MATERIALIZED VIEW mv1")
refused "$msg" mv1
ok $? "CREATE MATERIALIZED VIEW ... USING ranread_target is refused"
msg=$(as_user "CREATE TABLE c1 USING ranread_target AS SELECT 1 AS x WHERE false")
refused "$msg" c1
ok $? "CREATE TABLE ... USING ranread_target AS (no rows) is refused"
msg=$(as_user "SET default_table_access_method = ranread_target" "CREATE TABLE d1 (x int)")
refused "$msg" d1
ok $? "a table made with default_table_access_method = ranread_target is refused"
msg=$(as_user "CREATE TEMP TABLE t1 (x int) USING ranread_target")
refused "$msg" t1
ok $? "a temporary table of the method is refused"
msg=$(psql -qAtX -d "$DB" -v VERBOSITY=verbose -c "CREATE TABLE s1 () USING ranread_target" 2>&1)
refused "$msg" s1
ok $? "... and so is a superuser's CREATE TABLE ... USING ranread_target"
is "$(q "SELECT count(*) FROM pg_class WHERE relam = $AM")" 1 "the only relation of the method is the target"

# --- rewrites of a real target
q "ALTER TABLE $REL ADD COLUMN z int" >/dev/null
for cmd in "ALTER TABLE $REL ADD COLUMN y float DEFAULT random()" "ALTER TABLE $REL SET LOGGED" \
           "ALTER TABLE $REL ALTER COLUMN z TYPE bigint"; do
  msg=$(psql -qAtX -d "$DB" -v VERBOSITY=verbose -c "$cmd" 2>&1)
  echo "$msg" | grep -Eq 'ERROR: +0A000: ranread target relation ".*" cannot be rewritten'
  ok $? "$cmd is refused: it would copy rows and give the target a transaction id"
done
q "ALTER TABLE $REL DROP COLUMN z" >/dev/null
for cmd in "VACUUM FULL $REL" "TRUNCATE $REL" "VACUUM (FREEZE) $REL"; do
  psql -qAtX -d "$DB" -v ON_ERROR_STOP=1 -c "$cmd" >/dev/null 2>&1
  ok $? "$cmd runs"
done
is "$(with_xids)" 0 "no relation of the method has a relfrozenxid or relminmxid afterwards"
is "$(q "SELECT count(*) FROM ranread_target_check()")" 0 "... and ranread_target_check() finds nothing"

# --- the relfrozenxid of the database's relations advances
echo "SELECT txid_current();" > "$WORK/xid.sql"
pgbench -n -c 1 -t 3000 -f "$WORK/xid.sql" "$DB" >/dev/null 2>&1
ok $? "3,000 transactions burnt"
q "VACUUM (FREEZE)" >/dev/null
# The database's own relations, targets among them: a session of another
# database (the suite runs lanes side by side) holds back only the shared
# catalogs, and so maybe datfrozenxid, not these.
age=$(q "SELECT max(age(relfrozenxid)) FROM pg_class WHERE relfrozenxid <> '0' AND NOT relisshared")
cmp_ok "$age" '<' 3000 "VACUUM FREEZE advances every relation of the database past them: the oldest relfrozenxid is $age old"

# --- a relation of the method that is not a target (as made before the
# refusal; here by hand, with a heap table's relfrozenxid) is found
q "CREATE TABLE rr_stray (x int); UPDATE pg_class SET relam = $AM WHERE oid = 'rr_stray'::regclass" >/dev/null
row=$(q "SELECT relation || '|' || fix FROM ranread_target_check()")
is "$row" "rr_stray|DROP TABLE public.rr_stray;" "ranread_target_check() lists a relation of the method that is not a target, with the command to drop it"
q "SELECT problem FROM ranread_target_check()" | grep -q 'holds back the database'
ok $? "... and says why it matters"
q "$(q "SELECT fix FROM ranread_target_check()")" >/dev/null
is "$(q "SELECT count(*) FROM ranread_target_check()")|$(with_xids)" "0|0" "... and the command drops it"

# --- the same for a materialized view of the method: REFRESH is refused,
# VACUUM FULL takes its transaction id away
q "CREATE MATERIALIZED VIEW rr_stray_mv AS SELECT 1 AS x; UPDATE pg_class SET relam = $AM WHERE oid = 'rr_stray_mv'::regclass" >/dev/null
is "$(q "SELECT fix FROM ranread_target_check()")" "DROP MATERIALIZED VIEW public.rr_stray_mv;" \
  "ranread_target_check() lists a materialized view of the method, with DROP MATERIALIZED VIEW"
msg=$(psql -qAtX -d "$DB" -v VERBOSITY=verbose -c "REFRESH MATERIALIZED VIEW rr_stray_mv" 2>&1)
echo "$msg" | grep -Eq 'ERROR: +0A000: ranread target relation "rr_stray_mv" cannot be rewritten'
ok $? "REFRESH MATERIALIZED VIEW of it is refused: it would give it a new transaction id"
q "VACUUM FULL rr_stray_mv" >/dev/null
is "$(q "SELECT relfrozenxid || '|' || relminmxid FROM pg_class WHERE oid = 'rr_stray_mv'::regclass")" "0|0" \
  "VACUUM FULL of it leaves it with no transaction id"
q "DROP MATERIALIZED VIEW rr_stray_mv" >/dev/null

q "SELECT ranread_purge()" >/dev/null
psql -qX -d postgres -c "DROP DATABASE $DB" -c "DROP ROLE rr_amonly_user" >/dev/null

done_testing
