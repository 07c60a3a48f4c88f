#!/bin/bash
# A target whose files vanish (a lost disk, files removed by hand) costs the
# next checkpoint nothing, purged or not (src/target/target_am.c, top comment).
# Before, the fsync PostgreSQL asks when it creates a relation's file was
# still pending: the next checkpoint found the file gone, PANICked, and
# every session of the server was killed; with the tablespace's directory
# gone too, crash recovery might not start.
#  - a cluster of its own with fsync on (test/run's has it off, and a PANIC
#    there would end every test after this one); no timed checkpoint, so a
#    request made at setup is still pending when the files go
#  - a 64 MB target in a tablespace, its segment files removed: CHECKPOINT
#    succeeds, ranread_targets says 'missing'; ranread_purge, CHECKPOINT
#    again: nothing crashed (the server log has no PANIC)
#  - a target whose tablespace's whole directory is gone: the same
#  - targets whose files were made by SET TABLESPACE, VACUUM FULL and a
#    TRUNCATE in the transaction that made them: the same
#  - afterwards a target is made, runs and is purged as usual
. "$(dirname "$0")/lib/lib.sh"
. "$(dirname "$0")/lib/cluster.bash"

WORK=$(mktemp -d "$TMPDIR_TEST/rr_lost_disk.XXXXXX")
chmod 755 "$WORK"
trap 'cluster_stop_all; rm -rf "$WORK"' EXIT
[ -n "${KEEP:-}" ] && trap 'cluster_stop_all' EXIT

D="$WORK/data"
PORT=$(free_port)
cluster_init "$D" || { echo "1..0 # SKIP initdb failed: $(tail -3 "$D.initdb.log")"; exit 0; }
cluster_conf "$D" "fsync = on" "checkpoint_timeout = '1h'" "max_wal_size = '4GB'"
cluster_start "$D" "$PORT"
ok $? "a cluster of its own, fsync on, no timed checkpoint"
qd() { qc "$D" "$PORT" rr "$1"; }
qd_all() { qc_all "$D" "$PORT" rr "$1"; }
qc "$D" "$PORT" postgres "CREATE DATABASE rr" >/dev/null
qd "CREATE EXTENSION ranread" >/dev/null
for t in ts1 ts2; do
  mkdir "$WORK/$t" && chown postgres:postgres "$WORK/$t" && chmod 700 "$WORK/$t"
  qd "CREATE TABLESPACE $t LOCATION '$WORK/$t'" >/dev/null
done
qd "CHECKPOINT" >/dev/null

# the first segment of a target's relation, absolute; its relation's name
target_file() { echo "$D/$(qd "SELECT pg_relation_filepath(relid) FROM ranread_target_catalog WHERE target = '$1'")"; }
target_rel() { qd "SELECT relid::regclass FROM ranread_target_catalog WHERE target = '$1'"; }
# lose FILE: every fork and segment of the relation of that first segment
lose() { rm -f "$1" "$1".* "$1"_*; }
# checkpoint DESCRIPTION: CHECKPOINT succeeds and the server does not crash
checkpoint() {
  local mark
  mark=$(log_mark "$D")
  out=$(qd_all "CHECKPOINT")
  is "$out" "" "$1: CHECKPOINT succeeds"
  no_crash "$mark" "$1: nothing crashed (no PANIC in the server log)"
}

# --- a 64 MB target's files removed; checkpoint, purge, checkpoint
qd "SELECT target FROM ranread_setup('64MB', 'ts1', 'gone')" >/dev/null
F=$(target_file gone)
[ -f "$F" ]
ok $? "a 64 MB target in a tablespace ($F)"
lose "$F"
checkpoint "its files removed, not purged"
is "$(qd "SELECT state FROM ranread_targets WHERE target = 'gone'")" missing "ranread_targets says it is missing"
is "$(qd "SELECT ranread_purge('gone')")" t "ranread_purge forgets it"
checkpoint "purged"

# --- a target whose tablespace's directory is gone with it
qd "SELECT target FROM ranread_setup('8MB', 'ts2', 'lost')" >/dev/null
rm -rf "$WORK/ts2"/PG_15_*
checkpoint "its tablespace's directory removed, not purged"
is "$(qd "SELECT ranread_purge('lost')")" t "ranread_purge forgets it"
checkpoint "its tablespace's directory removed, purged"

# --- files made by SET TABLESPACE, VACUUM FULL, TRUNCATE in the making transaction
qd "SELECT target FROM ranread_setup('8MB', 'pg_default', 'moved')" >/dev/null
qd "ALTER TABLE $(target_rel moved) SET TABLESPACE ts1" >/dev/null
is "$(qd "SELECT state || '|' || tablespace FROM ranread_targets WHERE target = 'moved'")" "ready|ts1" \
  "a target moved by SET TABLESPACE is ready in its new tablespace"
lose "$(target_file moved)"
checkpoint "a target moved by SET TABLESPACE, its files removed"

qd "SELECT target FROM ranread_setup('8MB', 'ts1', 'vacfull')" >/dev/null
qd "VACUUM FULL $(target_rel vacfull)" >/dev/null
is "$(qd "SELECT state FROM ranread_targets WHERE target = 'vacfull'")" ready "a target after VACUUM FULL is ready"
lose "$(target_file vacfull)"
checkpoint "a target after VACUUM FULL, its files removed"

out=$(qd_all "SET client_min_messages = error; BEGIN;
  SELECT target FROM ranread_setup('8MB', 'ts1', 'trunc');
  TRUNCATE ranread_target.ranread_target_$(echo -n trunc | md5sum | cut -c1-32);
  COMMIT")
is "$out" "trunc" "TRUNCATE of a target in the transaction that made it"
is "$(qd "SELECT state FROM ranread_targets WHERE target = 'trunc'")" empty "... leaves it empty"
lose "$(target_file trunc)"
checkpoint "a target truncated where it was made, its files removed"

is "$(qd "SELECT count(*) FROM (SELECT ranread_purge(target) FROM ranread_targets) p")" 3 "the three are purged"
checkpoint "all purged"

# --- and all is as usual
qd "SELECT target FROM ranread_setup('8MB', 'ts1', 'after')" >/dev/null
is "$(qd "SELECT status FROM ranread_run(1, 100, target => 'after')")" completed "a new target is made and runs"
is "$(qd "SELECT ranread_purge('after')")" t "... and is purged"
checkpoint "at the end"

done_testing
