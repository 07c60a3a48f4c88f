#!/bin/bash
# Where a target really is (docs/design.md, rule 8).
#  - a target moved to a tablespace on tmpfs (ALTER TABLE ... SET TABLESPACE)
#    is refused by ranread_run: its reads would measure RAM.  On 1.0 the batch
#    completed at 239,426 IOPS, avg 0.0039 ms, recorded as pg_default.
#    ranread_targets says so, and, emptied there, its hint names a setup
#    that setup accepts (the hint named the tmpfs tablespace before)
#  - ALTER TABLESPACE ... RENAME and ALTER TABLE ALL IN TABLESPACE ... SET
#    TABLESPACE: the next batch records the tablespace the files are in now,
#    and ranread_targets shows it
#  - every batch records the filesystem it read (ext4 here)
#  - creating a target follows PostgreSQL's rule for CREATE TABLE: CREATE on
#    the tablespace is needed unless it is the database's default.  On 1.0 a
#    role could make a target in pg_default where it could not create a
#    table, and was refused in its database's real default tablespace.
#  - so does purging one (src/target/purge.c): a role that is not a superuser
#    purges only where it may create (before 1.2 a role granted 'run'
#    purged targets anywhere), and a probe target only with
#    ranread_probe_purge, which names its tablespace (ranread_purge had
#    dropped the target every probe of a tablespace reads)
. "$(dirname "$0")/lib/lib.sh"
. "$(dirname "$0")/lib/faults.bash"

SHM_DIR=$(mktemp -d /dev/shm/ranread_test.XXXXXX)
chown postgres:postgres "$SHM_DIR"; chmod 700 "$SHM_DIR"
TS1=$(pg_owned_dir rr_ts_one)
TS2=$(pg_owned_dir rr_ts_two)
cleanup() {
  faults_cleanup
  psql -qX -d postgres -c "DROP DATABASE IF EXISTS rr_tsdb" -c "DROP DATABASE IF EXISTS rr_ts" >/dev/null 2>&1
  for t in rr_shm rr_ts_one rr_ts_renamed rr_ts_two; do psql -qX -d postgres -c "DROP TABLESPACE IF EXISTS $t" >/dev/null 2>&1; done
  psql -qX -d postgres -c "DROP ROLE IF EXISTS rr_ts_maker" >/dev/null 2>&1
  rm -rf "$SHM_DIR"
}
trap cleanup EXIT

setup_db rr_ts
setup_target 32MB
REL=$(q "SELECT relid::regclass FROM ranread_target_catalog WHERE target = 'ranread'")
B=$(q "SELECT batch FROM ranread_run(1, 100)")
is "$(q "SELECT tablespace || '|' || filesystem FROM ranread_summary_full WHERE batch = $B")" "pg_default|ext4" \
  "a batch records the tablespace and the filesystem it read: pg_default on ext4"

# --- moved to tmpfs behind ranread's back
q "CREATE TABLESPACE rr_shm LOCATION '$SHM_DIR'" >/dev/null
q "ALTER TABLE $REL SET TABLESPACE rr_shm" >/dev/null
is "$(q "SELECT tablespace FROM ranread_targets")" rr_shm "ranread_targets shows the tablespace the target was moved to"
msg=$(psql -qAtX -d "$DB" -v VERBOSITY=verbose -c "SET client_min_messages = error" -c "SELECT * FROM ranread_run(1, 2000)" 2>&1)
echo "$msg" | sed 's/^/# /'
echo "$msg" | grep -Eq '^ERROR: +0A000: ranread target "ranread" is on a memory filesystem \(tmpfs at /dev/shm\) in tablespace "rr_shm"'
ok $? "ranread_run refuses a target moved to tmpfs (0A000), naming the filesystem and the tablespace"
echo "$msg" | grep -Eq '^HINT: .*(Move it back|ranread_setup)'
ok $? "... and says what to do"
is "$(ranread_workers)" 0 "... before any worker starts"
q "SELECT note FROM ranread_targets" | grep -q 'memory filesystem (tmpfs at /dev/shm).*batches refuse it'
ok $? "ranread_targets says the target's files are on a memory filesystem that batches refuse"
# emptied there, the hint's setup call is one that setup accepts
q "TRUNCATE $REL" >/dev/null
msg=$(psql -qAtX -d "$DB" -v VERBOSITY=verbose -c "SET client_min_messages = error" -c "SELECT * FROM ranread_run(1, 100)" 2>&1)
again=$(echo "$msg" | sed -n 's/^HINT: .*\(SELECT \* FROM ranread_setup([^;]*;\).*/\1/p')
echo "$again" | sed 's/^/# hint: /'
echo "$again" | grep -q "'pg_default'"
ok $? "an empty target on tmpfs: the hint makes it again in the tablespace it was made in, not on tmpfs"
is "$(q "$again" | cut -d'|' -f2)" pg_default "... and that hinted call works"
REL=$(q "SELECT relid::regclass FROM ranread_target_catalog WHERE target = 'ranread'")
is "$(q "SELECT status FROM ranread_run(1, 100)")" completed "moved back, it runs again"

# --- renamed and moved tablespaces: labels follow the files
q "CREATE TABLESPACE rr_ts_one LOCATION '$TS1'" >/dev/null
q "SELECT ranread_setup('16MB', 'rr_ts_one', 'moving')" >/dev/null
q "ALTER TABLESPACE rr_ts_one RENAME TO rr_ts_renamed" >/dev/null
is "$(q "SELECT tablespace FROM ranread_targets WHERE target = 'moving'")" rr_ts_renamed "ranread_targets follows ALTER TABLESPACE ... RENAME"
B=$(q "SELECT batch FROM ranread_run(1, 100, target => 'moving')")
is "$(q "SELECT tablespace FROM ranread_summary_full WHERE batch = $B")" rr_ts_renamed "... and so does the batch's record"
q "CREATE TABLESPACE rr_ts_two LOCATION '$TS2'" >/dev/null
q "ALTER TABLE ALL IN TABLESPACE rr_ts_renamed SET TABLESPACE rr_ts_two" >/dev/null
is "$(q "SELECT tablespace || '|' || state FROM ranread_targets WHERE target = 'moving'")" "rr_ts_two|ready" \
  "ranread_targets follows ALTER TABLE ALL IN TABLESPACE ... SET TABLESPACE"
B=$(q "SELECT batch FROM ranread_run(1, 100, target => 'moving')")
is "$(q "SELECT tablespace FROM ranread_summary_full WHERE batch = $B")" rr_ts_two "... and so does the batch's record"
q "SELECT ranread_purge('moving')" >/dev/null

# --- CREATE on a tablespace, as CREATE TABLE needs it
psql -qX -d postgres -c "CREATE ROLE rr_ts_maker" -c "CREATE DATABASE rr_tsdb TABLESPACE rr_ts_two" >/dev/null
q_in rr_tsdb "CREATE EXTENSION ranread; GRANT EXECUTE ON FUNCTION ranread_setup(text, name, name) TO rr_ts_maker" >/dev/null
as_maker() { psql -qAtX -d "$1" -v VERBOSITY=verbose -c "SET client_min_messages = error" -c "SET ROLE rr_ts_maker" -c "$2" 2>&1; }
msg=$(as_maker rr_tsdb "SELECT target FROM ranread_setup('8MB', 'pg_default', 'a')")
echo "$msg" | grep -Eq '^ERROR: +42501: permission denied to create a target in tablespace "pg_default"'
ok $? "in a database whose default is another tablespace, a role without CREATE on pg_default is refused there"
as_maker rr_tsdb "CREATE TABLE t_probe () TABLESPACE pg_default" | grep -q '42501'
ok $? "... as CREATE TABLE ... TABLESPACE pg_default is for that role"
is "$(as_maker rr_tsdb "SELECT target FROM ranread_setup('8MB', 'rr_ts_two', 'b')")" b \
  "... while the database's own default tablespace needs no CREATE privilege"
q "GRANT EXECUTE ON FUNCTION ranread_setup(text, name, name) TO rr_ts_maker" >/dev/null
is "$(as_maker "$DB" "SELECT target FROM ranread_setup('8MB', 'pg_default', 'c')")" c \
  "in a database whose default is pg_default, the role may make a target there"
msg=$(as_maker "$DB" "SELECT target FROM ranread_setup('8MB', 'rr_ts_two', 'd')")
echo "$msg" | grep -Eq '^ERROR: +42501: permission denied to create a target in tablespace "rr_ts_two"'
ok $? "... but not in another tablespace without CREATE on it"
q "SELECT ranread_purge('c')" >/dev/null
q_in rr_tsdb "SELECT ranread_purge('b')" >/dev/null
q "REVOKE ALL ON FUNCTION ranread_setup(text, name, name) FROM rr_ts_maker" >/dev/null

# --- purging follows the same rule; probe targets have their own way
q "SELECT ranread_setup('8MB', 'rr_ts_two', 'e'); SELECT ranread_probe_setup('rr_ts_two', '4MB');
   SELECT count(*) FROM ranread_grant('rr_ts_maker', 'run')" >/dev/null
msg=$(as_maker "$DB" "SELECT ranread_purge('e')")
echo "$msg" | grep -Eq '^ERROR: +42501: permission denied to purge target "e" in tablespace "rr_ts_two"'
ok $? "a role granted 'run' without CREATE on a tablespace cannot purge a target there"
is "$(q "SELECT count(*) FROM ranread_targets WHERE target = 'e'")" 1 "... which stays"
msg=$(as_maker "$DB" "SELECT ranread_purge('ranread_probe_rr_ts_two')")
echo "$msg" | grep -Eq '^ERROR: +42501: permission denied to purge the probe target "ranread_probe_rr_ts_two" with ranread_purge'
ok $? "nor a probe target with ranread_purge"
echo "$msg" | grep -q "HINT:  SELECT ranread_probe_purge('rr_ts_two'); drops it"
ok $? "... whose hint names ranread_probe_purge and the tablespace"
msg=$(as_maker "$DB" "SELECT ranread_probe_purge('rr_ts_two')")
echo "$msg" | grep -Eq '^ERROR: +42501: permission denied to purge target "ranread_probe_rr_ts_two" in tablespace "rr_ts_two"'
ok $? "ranread_probe_purge follows the tablespace's rule too"
q "GRANT CREATE ON TABLESPACE rr_ts_two TO rr_ts_maker" >/dev/null
is "$(as_maker "$DB" "SELECT ranread_purge('e')")" t "with CREATE on the tablespace, the role purges its target"
is "$(as_maker "$DB" "SELECT ranread_probe_purge('rr_ts_two')")" t "... and its probe target with ranread_probe_purge"
is "$(q "SELECT count(*) FROM ranread_targets WHERE target IN ('e', 'ranread_probe_rr_ts_two')")" 0 "... both gone"
q "REVOKE CREATE ON TABLESPACE rr_ts_two FROM rr_ts_maker; SELECT count(*) FROM ranread_revoke('rr_ts_maker', 'run')" >/dev/null

done_testing
