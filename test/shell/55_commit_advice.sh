#!/bin/bash
# Advice only from evidence (docs/commit-and-advice.md, "The commit path"): ranread_commit_test
# on the rig (test/rig: slowfs, whose FSYNC requests take a set time by
# kind: fdatasync() and O_DSYNC writes are marked datasync by the kernel,
# fsync() and O_SYNC writes are not), with the server's wal_sync_method set
# to fsync:
#  - fsync twice as slow as fdatasync (5 ms against 2 ms a flush): the
#    commit test suggests fdatasync (open_datasync is as fast, and
#    fdatasync comes first), with the ALTER SYSTEM, and two runs agree
#  - fsync and fdatasync alike (2 ms each): no change is suggested, no
#    ALTER SYSTEM, and two runs agree
#  - each method is timed as this server writes its WAL: at wal_level
#    replica open_datasync and open_sync go through the page cache (calls
#    says so); mode => 'pg_test_fsync' times them with O_DIRECT
#  - the one 8 kB write of each method runs in alternated rounds, its row
#    their mean with a 95% interval and their batches
. "$(dirname "$0")/lib/lib.sh"
. "$(dirname "$0")/../rig/slowfs.sh"

slowfs_build "" || { echo "1..0 # SKIP $SLOWFS_WHY"; exit 0; }
WORK=$(mktemp -d "$TMPDIR_TEST/$(basename "$0" .sh).XXXXXX")
chmod 755 "$WORK"
MNT="$WORK/mnt"
TS=rr_commit_rig
SET_METHOD=
cleanup() {
  # RESET, not SET back: postgresql.auto.conf is left as it was (later
  # tests check that nothing was written with ALTER SYSTEM)
  if [ -n "$SET_METHOD" ]; then
    psql -qX -d postgres -c "ALTER SYSTEM RESET wal_sync_method" -c "SELECT pg_reload_conf()" >/dev/null 2>&1
  fi
  psql -qX -d postgres -c "DROP DATABASE IF EXISTS rr_commit_advice" -c "DROP TABLESPACE IF EXISTS $TS" >/dev/null 2>&1
  slowfs_umount_all
  rm -rf --one-file-system "$WORK"
}
trap cleanup EXIT

# the backing files on tmpfs: only the rig's delays flush anything
BACKING=$(mktemp -d /dev/shm/rr_commit_rig.XXXXXX)
slowfs_mount "$BACKING" "$MNT" fdatasync_delay_us=2000,fsync_delay_us=5000
ok $? "slowfs is mounted: fdatasync flushes take 2 ms, fsync flushes 5 ms"
setup_db rr_commit_advice
q "CREATE TABLESPACE $TS LOCATION '$(slowfs_pg_dir "$MNT" spc)'" >/dev/null
is "$(q "SELECT count(*) FROM pg_file_settings WHERE name = 'wal_sync_method' AND sourcefile LIKE '%postgresql.auto.conf'")" 0 \
  "wal_sync_method is not set with ALTER SYSTEM yet (the test resets it at its end)"
SET_METHOD=1
q "ALTER SYSTEM SET wal_sync_method = 'fsync'" >/dev/null
q "SELECT pg_reload_conf()" >/dev/null
sleep 0.5
is "$(q "SHOW wal_sync_method") $(q "SHOW wal_level")" "fsync replica" "the server's wal_sync_method is fsync, at wal_level replica"

# commit_test: one commit test of the four durable methods on the rig; its
# rows in $WORK/rows, its messages in $WORK/msgs
commit_test() {
  psql -qAtX -d "$DB" -v ON_ERROR_STOP=1 -c "SET client_min_messages = notice" \
    -c "SELECT method || '|' || rounds || '|' || ops_per_s || '|' || coalesce(ops_low::text, '') || '|' || coalesce(ops_high::text, '') || '|' || calls || '|' || status
          FROM ranread_commit_test('$TS', duration => '1s', methods => '{open_datasync,fdatasync,fsync,open_sync}')
         WHERE test = 'one 8 kB write'" > "$WORK/rows" 2> "$WORK/msgs"
}
# advice: the commit test's advice: the ALTER SYSTEM it suggests, or none
advice() {
  grep -o "^HINT:  ALTER SYSTEM SET wal_sync_method = '[a-z_]*'" "$WORK/msgs" | sed "s/.*= //" | tr -d "'" | grep . || echo none
}

# --- fsync twice as slow as fdatasync
commit_test
diag "$(grep -E '^(NOTICE|HINT):  (commit test|ALTER)' "$WORK/msgs" | tr '\n' ' ')"
sed 's/^/#   /' "$WORK/rows"
a1=$(advice)
is "$a1" fdatasync "fsync twice as slow as fdatasync: the commit test suggests fdatasync"
grep -q "^NOTICE:  commit test [0-9]* on $TS, one 8 kB write and its sync: .*; fdatasync is [0-9.]*% faster than fsync, the server's wal_sync_method, beyond the noise: its 95% interval ([0-9,]* to [0-9,]* ops/s) lies above fsync's ([0-9,]* to [0-9,]*)" "$WORK/msgs"
ok $? "... beyond the noise, naming both intervals"
is "$(awk -F'|' '$1 == "fdatasync" || $1 == "fsync" { print ($2 >= 5) }' "$WORK/rows" | sort -u)" 1 \
  "... from five rounds or more of each method"
is "$(awk -F'|' '$1 == "open_datasync" { print $6 }' "$WORK/rows")" "write to a file opened O_DSYNC" \
  "open_datasync is timed as this server writes its WAL at wal_level replica: without O_DIRECT"
grep -q "^NOTICE:  ranread commit test [0-9]* times each method as this server writes its WAL: at wal_level replica (archiving or replication possible) PostgreSQL 15 opens it without O_DIRECT" "$WORK/msgs"
ok $? "... and the start NOTICE says why"
commit_test
a2=$(advice)
# fdatasync and open_datasync cost the rig the same (the first run found
# them as fast within the noise): on a machine loaded by other tests either
# may come out ahead, never fsync or open_sync
case "$a2" in fdatasync | open_datasync) r=0 ;; *) r=1 ;; esac
ok $r "a second run on the unchanged rig gives the same advice, or the method the first found as fast ($a1, then $a2)"

# --- fsync and fdatasync alike: within the noise
echo fsync_delay_us=2000 > "$MNT/.slowfs-control"
ok $? "slowfs: fsync flushes take 2 ms too from now on"
commit_test
diag "$(grep -E '^(NOTICE|HINT):  (commit test|ALTER)' "$WORK/msgs" | tr '\n' ' ')"
sed 's/^/#   /' "$WORK/rows"
b1=$(advice)
is "$b1" none "fsync and fdatasync alike: no change suggested, no ALTER SYSTEM"
grep -q "^NOTICE:  commit test [0-9]* on $TS, one 8 kB write and its sync: .*; no clear winner" "$WORK/msgs"
ok $? "... 'no clear winner'"
commit_test
b2=$(advice)
is "$b2" "$b1" "a second run agrees"

# --- pg_test_fsync's way, by name
calls=$(q "SELECT calls FROM ranread_commit_test('$TS', duration => '0.5s', methods => '{open_datasync}', mode => 'pg_test_fsync') WHERE test = 'one 8 kB write'")
is "$calls" "write to a file opened O_DSYNC | O_DIRECT" "mode => 'pg_test_fsync' times open_datasync with O_DIRECT, as pg_test_fsync does"
is "$(q "SELECT bool_and(direct) FROM ranread_commit_summary WHERE commit_test = (SELECT max(commit_test) FROM ranread_commit_summary)")" t \
  "... and the history says so (direct)"

done_testing
