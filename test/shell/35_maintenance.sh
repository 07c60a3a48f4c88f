#!/bin/bash
# Targets survive routine maintenance, untouched and cheaply
# (README, "Safe inside a production server").  A target is a relation of the ranread_target access method:
#  - VACUUM, VACUUM (FREEZE), VACUUM (ANALYZE), vacuumdb --all, ANALYZE read
#    no page of it (pg_statio_all_tables does not move; VACUUM VERBOSE says
#    so), and its blocks on disk are byte for byte what they were; ANALYZE
#    does not even prefetch its blocks (the page cache holds none after it)
#  - VACUUM (FULL, VERBOSE), CLUSTER VERBOSE, vacuumdb --full --verbose and
#    debug2 messages work, and a database-wide VACUUM (FULL, VERBOSE) goes on
#    past the target
#  - VACUUM FULL (of the table, of the database, vacuumdb --all --full)
#    keeps every block, in well under a second for a 256 MB target (it moves
#    the files instead of copying anything), and the target stays 'ready'
#  - ALTER TABLE ... SET TABLESPACE moves the data for real
#  - its relfrozenxid is 0, so anti-wraparound autovacuum never picks it: in
#    a cluster with autovacuum_freeze_max_age at its minimum and 150,000
#    transactions burnt, autovacuum processes the database's tables for
#    wraparound but never the target, and datfrozenxid advances
#  - a target made by 1.0 (a heap relation) that VACUUM FULL empties is named
#    as such, with what to do; a protected target with a new relfilenode
#    that a crash empties is said to be emptied by crash recovery
# On 1.0 a VACUUM (VERBOSE) of a 64 MB target scanned 8192 pages and dirtied
# 8198, and a database-wide VACUUM FULL emptied every target.
. "$(dirname "$0")/lib/lib.sh"
. "$(dirname "$0")/lib/faults.bash"
. "$(dirname "$0")/lib/cluster.bash"
trap 'faults_cleanup; cluster_stop_all' EXIT

setup_db rr_maint
setup_target 256MB
REL=$(q "SELECT relid::regclass FROM ranread_target_catalog WHERE target = 'ranread'")
is "$(q "SELECT amname FROM pg_class c JOIN pg_am a ON a.oid = c.relam WHERE c.oid = '$REL'::regclass")" ranread_target \
  "a target is a relation of the ranread_target access method"
is "$(q "SELECT relfrozenxid::text || '|' || relminmxid::text FROM pg_class WHERE oid = '$REL'::regclass")" "0|0" \
  "... which stores no transaction ids: relfrozenxid and relminmxid are 0"
is "$(q "SELECT protected FROM ranread_targets")" t "ranread_targets says it is protected"

# md5 of sampled blocks straight from the files, and the relation's buffer I/O
sums() { q "SELECT md5(string_agg(md5(pg_read_binary_file(pg_relation_filepath('$REL') || CASE WHEN b / 131072 > 0 THEN '.' || (b / 131072) ELSE '' END, (b % 131072) * 8192, 8192)), ''))
           FROM generate_series(0, 32767, 97) b"; }
statio() { q "SELECT pg_stat_force_next_flush(); SELECT coalesce(heap_blks_read, 0) + coalesce(heap_blks_hit, 0) FROM pg_statio_all_tables WHERE relid = '$REL'::regclass" | tail -1; }
before=$(sums)
io0=$(statio)

msg=$(psql -qAtX -d "$DB" -c "VACUUM (VERBOSE) $REL" 2>&1)
echo "$msg" | grep -q "INFO: .*nothing to vacuum, no page read"
ok $? "VACUUM (VERBOSE) of the target says there is nothing to vacuum and no page was read"
for cmd in "VACUUM $REL" "VACUUM (FREEZE) $REL" "VACUUM (FREEZE, DISABLE_PAGE_SKIPPING) $REL" \
           "VACUUM (ANALYZE) $REL" "ANALYZE $REL" "VACUUM" "VACUUM (FREEZE)" "ANALYZE"; do
  q "$cmd" >/dev/null
done
vacuumdb -q --all --analyze --freeze >/dev/null 2>&1
ok $? "vacuumdb --all --analyze --freeze runs"
is "$(statio)" "$io0" "plain VACUUM, FREEZE, DISABLE_PAGE_SKIPPING, ANALYZE and vacuumdb --all read no page of the target (pg_statio_all_tables)"
is "$(sums)" "$before" "... and its blocks are unchanged"

# ANALYZE samples no block of a target, and so prefetches none: PostgreSQL
# 15 tells the kernel (posix_fadvise WILLNEED) about every block it means to
# sample, and the kernel reads them into the page cache.  The target's file
# is dropped from the page cache first; afterwards it must hold none of it.
SEG="$(data_dir)/$(q "SELECT pg_relation_filepath('$REL')")"
cached() { python3 -c "import os,sys; fd=os.open(sys.argv[1], os.O_RDONLY); os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED) if sys.argv[2] == 'drop' else None" "$SEG" "$1"; fincore -nb -o PAGES "$SEG" | tr -d ' '; }
cached drop >/dev/null
is "$(cached keep)" 0 "the target's file is out of the page cache"
for cmd in "ANALYZE $REL" "ANALYZE VERBOSE $REL" "VACUUM (ANALYZE) $REL" "ANALYZE"; do
  PGOPTIONS="-c maintenance_io_concurrency=100" q "$cmd" >/dev/null
done
is "$(cached keep)" 0 "ANALYZE (of the target, VERBOSE, VACUUM (ANALYZE), database-wide) reads no block of it, not even ahead: the page cache holds none of its pages"
psql -qAtX -d "$DB" -c "ANALYZE VERBOSE $REL" 2>&1 | grep -q 'scanned 0 of 0 pages'
ok $? "... ANALYZE VERBOSE says it scanned 0 of 0 pages"
is "$(q "SELECT pg_relation_size('$REL')")" 268435456 "... while pg_relation_size shows the target's real size"

# VERBOSE: core logs the old relation's size after VACUUM FULL moved the
# files; a database-wide VACUUM FULL VERBOSE goes on past the target
q "CREATE INDEX rr_maint_idx ON $REL ((1))" >/dev/null
for cmd in "|VACUUM (FULL, VERBOSE) $REL" "|CLUSTER VERBOSE $REL USING rr_maint_idx" \
           "client_min_messages=debug2|VACUUM FULL $REL" "log_min_messages=debug2|CLUSTER $REL"; do
  opt=${cmd%%|*}
  msg=$(PGOPTIONS="${opt:+-c $opt}" psql -qAtX -d "$DB" -v ON_ERROR_STOP=1 -c "${cmd#*|}" 2>&1)
  ok $? "${opt:+$opt: }${cmd#*|} succeeds"
  echo "$msg" | grep 'ERROR' | sed 's/^/# /'
done
vacuumdb -q --full --verbose -d "$DB" >/dev/null 2>&1
ok $? "vacuumdb --full --verbose succeeds"
q "DROP INDEX ranread_target.rr_maint_idx" >/dev/null
q "CREATE TABLE rr_after AS SELECT g FROM generate_series(1, 100) g" >/dev/null
after0=$(q "SELECT relfilenode FROM pg_class WHERE relname = 'rr_after'")
psql -qAtX -d "$DB" -v ON_ERROR_STOP=1 -c "VACUUM (FULL, VERBOSE)" >/dev/null 2>&1
ok $? "a database-wide VACUUM (FULL, VERBOSE) succeeds"
isnt_after=$(q "SELECT relfilenode <> $after0 FROM pg_class WHERE relname = 'rr_after'")
is "$isnt_after" t "... and processes the tables after the target (a table made after it was rewritten)"
is "$(q "SELECT state FROM ranread_targets")|$(sums)" "ready|$before" "... and the target is ready with the same blocks"
q "DROP TABLE rr_after" >/dev/null

t0=$(now_ms)
q "VACUUM FULL $REL" >/dev/null
t1=$(now_ms)
is "$(q "SELECT state FROM ranread_targets")" ready "after VACUUM FULL of the target it is still ready"
is "$(sums)" "$before" "... with every sampled block unchanged"
cmp_ok "$(secs "$t0" "$t1")" '<' 1 "... and VACUUM FULL of a 256 MB target took $(secs "$t0" "$t1") s: it moved the files, copied nothing"
is "$(q "SELECT relfilenode <> oid FROM pg_class WHERE oid = '$REL'::regclass")" t \
  "... (the relation has a new relfilenode)"
q "VACUUM FULL" >/dev/null
vacuumdb -q --all --full >/dev/null 2>&1
ok $? "a database-wide VACUUM FULL and vacuumdb --all --full run"
is "$(q "SELECT state FROM ranread_targets")|$(sums)" "ready|$before" "... and the target is ready with the same blocks"
is "$(statio)" "$io0" "... and none of it read a page through shared buffers"
is "$(q "SELECT status || '|' || reads FROM ranread_run(2, 500)")" "completed|1000" "a batch runs on the target afterwards"

# an aborted VACUUM FULL puts the files back (a cancel half-way)
q "SELECT relfilenode FROM pg_class WHERE oid = '$REL'::regclass" > "$WORK/rfn"
psql -qAtX -d "$DB" -c "SET statement_timeout = '1ms'" -c "VACUUM FULL $REL" >/dev/null 2>&1
is "$(q "SELECT state FROM ranread_targets")|$(sums)" "ready|$before" "a VACUUM FULL cancelled by statement_timeout leaves the target ready and whole"

# SET TABLESPACE really moves the data
TS=$(pg_owned_dir rr_maint_ts)
q "CREATE TABLESPACE rr_maint_ts LOCATION '$TS'" >/dev/null
q "ALTER TABLE $REL SET TABLESPACE rr_maint_ts" >/dev/null
is "$(q "SELECT tablespace || '|' || state FROM ranread_targets")" "rr_maint_ts|ready" "ALTER TABLE ... SET TABLESPACE moves the target; ranread_targets follows it"
is "$(sums)" "$before" "... with its blocks"
cmp_ok "$(du -sb "$TS" | cut -f1)" '>=' 268435456 "... whose bytes are really in the new tablespace's directory"
q "ALTER TABLE $REL SET TABLESPACE pg_default" >/dev/null
q "DROP TABLESPACE rr_maint_ts" >/dev/null

# --- a 1.0 target (a heap relation) emptied by VACUUM FULL is named as such
q "SELECT ranread_purge()" >/dev/null
setup_db rr_maint_old
q "DROP EXTENSION ranread; CREATE EXTENSION ranread VERSION '1.0'" >/dev/null
setup_target 16MB
q "ALTER EXTENSION ranread UPDATE" >/dev/null
is "$(q "SELECT protected || '|' || state FROM ranread_targets")" "false|ready" "a target made by 1.0 is not protected"
q "SELECT note FROM ranread_targets" | grep -q 'run ranread_setup again to protect it'
ok $? "... and ranread_targets says to make it again"
q "VACUUM FULL" >/dev/null
is "$(q "SELECT state FROM ranread_targets")" empty "VACUUM FULL empties a 1.0 target"
q "SELECT note FROM ranread_targets" | grep -q 'heap relation (made by ranread 1.0.*which VACUUM FULL, CLUSTER and TRUNCATE rewrite into an empty file'
ok $? "... and ranread_targets says what happened"
msg=$(psql -qAtX -d "$DB" -v VERBOSITY=verbose -c "SELECT * FROM ranread_run(1, 100)" 2>&1)
echo "$msg" | grep -Eq '^ERROR: +55000: ranread target "ranread" is empty' &&
  echo "$msg" | grep -Eq '^DETAIL: +It is a heap relation \(made by ranread 1.0.*VACUUM FULL, CLUSTER and TRUNCATE rewrite'
ok $? "ranread_run on it names the rewrite of a heap target, not crash recovery"
echo "$msg" | grep -Eq '^HINT: .*ranread_setup'
ok $? "... and says to run ranread_setup again"
setup_target 16MB
is "$(q "SELECT protected || '|' || state FROM ranread_targets")" "true|ready" "ranread_setup makes it again, protected"
psql -qX -d postgres -c "DROP DATABASE rr_maint_old" >/dev/null

# --- anti-wraparound autovacuum never picks a target
D="$TMPDIR_TEST/rr_wrap_data"
PORT=$(free_port)
cluster_init "$D"
cluster_conf "$D" "autovacuum_freeze_max_age = 100000" "autovacuum_naptime = 1" \
  "log_autovacuum_min_duration = 0" "vacuum_freeze_min_age = 0"
cluster_start "$D" "$PORT"
ok $? "a cluster with autovacuum_freeze_max_age at its minimum (100,000)"
qc "$D" "$PORT" postgres "CREATE DATABASE rr" >/dev/null
qc "$D" "$PORT" rr "CREATE EXTENSION ranread; SELECT ranread_setup('32MB'); CREATE TABLE plain AS SELECT g FROM generate_series(1, 1000) g" >/dev/null
WREL=$(qc "$D" "$PORT" rr "SELECT relid::regclass FROM ranread_target_catalog")
WNAME=$(qc "$D" "$PORT" rr "SELECT n.nspname || '.' || c.relname FROM ranread_target_catalog t JOIN pg_class c ON c.oid = t.relid JOIN pg_namespace n ON n.oid = c.relnamespace")
frozen0=$(qc "$D" "$PORT" rr "SELECT datfrozenxid FROM pg_database WHERE datname = 'rr'")
echo "SELECT txid_current();" > "$WORK/xid.sql"
pgbench -h "$D" -p "$PORT" -U postgres -n -c 2 -j 2 -t 75000 -f "$WORK/xid.sql" rr >/dev/null 2>&1
ok $? "150,000 transactions burnt"
deadline=$((SECONDS + 90))
until grep -q 'automatic aggressive vacuum to prevent wraparound of table "rr.public.plain"' "$D/server.log" ||
      [ $SECONDS -ge $deadline ]; do sleep 1; done
grep -q 'automatic aggressive vacuum to prevent wraparound of table "rr.public.plain"' "$D/server.log"
ok $? "autovacuum ran anti-wraparound vacuums in the database"
sleep 3
grep -F "prevent wraparound of table \"rr.$WNAME\"" "$D/server.log" | head -2 | sed 's/^/# /'
! grep -qF "prevent wraparound of table \"rr.$WNAME\"" "$D/server.log"
ok $? "... but never of the target"
is "$(qc "$D" "$PORT" rr "SELECT state || '|' || (SELECT relfrozenxid FROM pg_class WHERE oid = '$WREL'::regclass) FROM ranread_targets")" "ready|0" \
  "... which is ready, with relfrozenxid still 0"
is "$(qc "$D" "$PORT" rr "SELECT age(datfrozenxid) < age('$frozen0'::xid) FROM pg_database WHERE datname = 'rr'")" t \
  "... and the target did not hold back the database's datfrozenxid"

# --- a protected target with a new relfilenode (VACUUM FULL, CLUSTER), then
# emptied by a crash: crash recovery is named, not a rewrite of a 1.0 target
qc "$D" "$PORT" rr "VACUUM FULL $WREL" >/dev/null
is "$(qc "$D" "$PORT" rr "SELECT relfilenode <> oid FROM pg_class WHERE oid = '$WREL'::regclass")" t \
  "after VACUUM FULL the target has a new relfilenode"
cluster_stop "$D" immediate
cluster_start "$D" "$PORT"
is "$(qc "$D" "$PORT" rr "SELECT state || '|' || protected FROM ranread_targets")" "empty|true" \
  "a crash empties the protected target (unlogged)"
note=$(qc "$D" "$PORT" rr "SELECT note FROM ranread_targets")
echo "$note" | grep -q '^crash recovery reset it' && ! echo "$note" | grep -q '1\.0'
ok $? "... and ranread_targets says crash recovery reset it, not that a 1.0 target was rewritten ($note)"
msg=$(qc_all "$D" "$PORT" rr "SELECT * FROM ranread_run(1, 100)")
echo "$msg" | grep -Eq '^DETAIL: +Crash recovery reset it' && ! echo "$msg" | grep -q 'VACUUM FULL'
ok $? "... and so does ranread_run's error"
cluster_stop "$D"

done_testing
