#!/bin/bash
# Security (README, "Safe inside a production server"):
#  - a role without grants can run, stop, export, set up, purge or reset
#    nothing: permission denied (42501) for each function
#  - a role granted EXECUTE on ranread_run and ranread_stop cannot stop
#    another role's batch; a member of pg_signal_backend can
#  - ranread_export writes server files only for members of
#    pg_write_server_files, even with EXECUTE granted
#  - a target's pages are not readable through SQL: SELECT from its relation
#    is refused to non-superusers, and gives 0 rows to superusers
#  - writes (write_pct 100) touch no relation but the target (md5 of the
#    other relations' files before and after), and leave valid pages in it
. "$(dirname "$0")/lib/lib.sh"
. "$(dirname "$0")/lib/faults.bash"

setup_db rr_security
setup_target 32MB ranread
setup_target 16MB rr_written
setup_target 16MB rr_bystander
ROLES="rr_sec_nobody rr_sec_runner rr_sec_other rr_sec_signal rr_sec_exporter rr_sec_reader"
drop_roles() {
  local r
  for r in $ROLES; do
    psql -qX -d "$DB" -c "DROP OWNED BY $r" >/dev/null 2>&1
    psql -qX -d postgres -c "DROP ROLE IF EXISTS $r" >/dev/null 2>&1
  done
}
drop_roles
for r in $ROLES; do psql -qX -d postgres -c "CREATE ROLE $r" >/dev/null; done
psql -qX -d postgres -c "GRANT pg_signal_backend TO rr_sec_signal" \
  -c "GRANT pg_monitor TO rr_sec_exporter" -c "GRANT pg_read_all_data TO rr_sec_reader" >/dev/null
RUN_SIG="ranread_run"   # by name: its one signature, whatever options it takes
q "GRANT EXECUTE ON FUNCTION $RUN_SIG TO rr_sec_runner, rr_sec_other, rr_sec_signal;
   GRANT EXECUTE ON FUNCTION ranread_stop() TO rr_sec_runner, rr_sec_other, rr_sec_signal;
   GRANT EXECUTE ON FUNCTION ranread_export(text, text) TO rr_sec_exporter" >/dev/null

# as ROLE SQL: "SQLSTATE: message" of the statement's error, run as ROLE (empty if none)
as() {
  psql -qAtX -d "$DB" -v VERBOSITY=verbose -c "SET client_min_messages = error" -c "SET ROLE $1" -c "$2" 2>&1 >/dev/null |
    sed -n 's/^ERROR:  //p' | head -1
}
# as_out ROLE SQL: the rows of a statement run as ROLE
as_out() { psql -qAtX -d "$DB" -c "SET client_min_messages = error" -c "SET ROLE $1" -c "$2" 2>/dev/null; }

# --- a role without grants: 42501 for each function
BATCHES0=$(q "SELECT count(*) FROM ranread_batches")
for call in "ranread_run(1, 50)" "ranread_stop()" "ranread_export('/tmp')" \
            "ranread_setup('8MB', target => 'rr_nobodys')" "ranread_purge('rr_bystander')" \
            "ranread_reset()" "ranread_sweep(1, 2, 50, NULL)" "ranread_blocks(1)" \
            "ranread_chart()" "ranread_timeline()"; do
  err=$(as rr_sec_nobody "SELECT * FROM $call")
  case $err in
    42501:*permission\ denied*) ok 0 "a role without grants: $call is refused with 42501" ;;
    *) ok 1 "a role without grants: $call is refused with 42501"; diag "  got: $err" ;;
  esac
done
is "$(q "SELECT count(*) FROM ranread_batches")" "$BATCHES0" "... and none of them ran or recorded a batch"
is "$(q "SELECT string_agg(target, ',' ORDER BY target) FROM ranread_targets")" "ranread,rr_bystander,rr_written" \
  "... nor made or purged a target"

# --- stopping another role's batch
bg_psql rr_sec_run "SET ROLE rr_sec_runner" "SELECT status FROM ranread_run(2, duration => '30s')"
RUNNER=$BG_PID
wait_running 20
ok $? "a role granted EXECUTE on ranread_run runs a batch"
BATCH=$(q "SELECT max(batch) FROM ranread_batches WHERE status = 'running'")
err=$(as rr_sec_other "SELECT ranread_stop()")
case $err in
  42501:*) ok 0 "another granted role cannot stop it: $err" ;;
  *) ok 1 "another granted role cannot stop it"; diag "  got: '$err'" ;;
esac
sleep 0.3
is "$(q "SELECT status FROM ranread_batches WHERE batch = $BATCH")" running "... and the batch keeps running"
got=$(as_out rr_sec_signal "SELECT ranread_stop()")
cmp_ok "${got:-0}" '>' 0 "a member of pg_signal_backend stops it (ranread_stop() returned '$got')"
wait_pid "$RUNNER" 10
ok $? "... its caller returns"
is "$(q "SELECT status FROM ranread_batches WHERE batch = $BATCH")" stopped "... and the batch is recorded as stopped"
wait_workers_gone 5
ok $? "... with no worker left"

# --- export writes files only for pg_write_server_files
EXPDIR=$(pg_owned_dir export)
chmod 755 "$EXPDIR"
q "SELECT status FROM ranread_run(1, 50)" >/dev/null
err=$(as rr_sec_exporter "SELECT ranread_export('$EXPDIR')")
case $err in
  42501:*) ok 0 "EXECUTE on ranread_export without pg_write_server_files is refused: $err" ;;
  *) ok 1 "EXECUTE on ranread_export without pg_write_server_files is refused"; diag "  got: '$err'" ;;
esac
is "$(ls -A "$EXPDIR" | wc -l)" 0 "... and no file was written"
psql -qX -d postgres -c "GRANT pg_write_server_files TO rr_sec_exporter" >/dev/null
path=$(as_out rr_sec_exporter "SELECT ranread_export('$EXPDIR')")
ok "$([ -n "$path" ] && [ -f "$path" ] && [[ $path == "$EXPDIR"/* ]]; echo $?)" \
  "a member of pg_write_server_files exports into the directory ($path)"
err=$(as rr_sec_runner "SELECT ranread_export('$EXPDIR')")
case $err in
  42501:*) ok 0 "a role without EXECUTE on ranread_export is refused even so" ;;
  *) ok 1 "a role without EXECUTE on ranread_export is refused even so"; diag "  got: '$err'" ;;
esac

# --- a target's pages are not readable through SQL
REL=$(q "SELECT relid::regclass FROM ranread_target_catalog WHERE target = 'ranread'")
diag "target ranread is relation $REL"
for r in rr_sec_nobody rr_sec_runner rr_sec_signal rr_sec_exporter; do
  err=$(as $r "SELECT count(*) FROM $REL")
  case $err in
    42501:*) ok 0 "$r cannot SELECT from the target's relation: $err" ;;
    *) ok 1 "$r cannot SELECT from the target's relation"; diag "  got: '$err'" ;;
  esac
done
# pg_read_all_data has SELECT on every table by PostgreSQL's rule; the
# target's pages hold no tuples, so it reads nothing from them either
err=$(as rr_sec_reader "SELECT count(*) FROM $REL")
got=$(as_out rr_sec_reader "SELECT count(*) FROM $REL")
case "$err|$got" in
  42501:*|"|0") ok 0 "a member of pg_read_all_data reads nothing from the target's relation (${err:-0 rows})" ;;
  *) ok 1 "a member of pg_read_all_data reads nothing from the target's relation"; diag "  got: error '$err', rows '$got'" ;;
esac
is "$(q "SELECT count(*) FROM $REL")" 0 "a superuser reading the target's relation gets 0 rows"
err=$(as rr_sec_runner "SELECT count(*) FROM ranread_target_catalog")
case $err in
  42501:*) ok 0 "... and a non-superuser cannot read the target catalog either" ;;
  *) ok 1 "... and a non-superuser cannot read the target catalog either"; diag "  got: '$err'" ;;
esac

# --- writes touch only the target
PGDATA_DIR=$(data_dir)
psql -qX -d "$DB" -c "CREATE TABLE rr_sec_data (i int PRIMARY KEY, t text)" \
  -c "INSERT INTO rr_sec_data SELECT g, md5(g::text) FROM generate_series(1, 20000) g" \
  -c "VACUUM (FREEZE, ANALYZE) rr_sec_data" >/dev/null
q "CHECKPOINT" >/dev/null
files() {
  q "SELECT pg_relation_filepath('rr_sec_data')
     UNION ALL SELECT pg_relation_filepath('rr_sec_data_pkey')
     UNION ALL SELECT pg_relation_filepath(relid) FROM ranread_target_catalog WHERE target IN ('ranread', 'rr_bystander')
     UNION ALL SELECT pg_relation_filepath('ranread_target_catalog')"
}
sums() { local f; for f in $(files); do for s in "$PGDATA_DIR/$f" "$PGDATA_DIR/$f".[0-9]*; do [ -e "$s" ] && md5sum "$s"; done; done; }
WPATH=$PGDATA_DIR/$(target_path rr_written)
before=$(sums)
wbefore=$(md5sum < "$WPATH")
cmp_ok "$(echo "$before" | grep -c .)" '>=' 5 "watching the files of 5 other relations ($(echo "$before" | grep -c .) files)"
row=$(q "SELECT status || '|' || writes FROM ranread_run(4, 500, target => 'rr_written', write_pct => 100, block_size => 8192, queue_depth => 4)")
st=${row%%|*}; nw=${row##*|}
is "$st" completed "a write batch (write_pct 100, 4 x 500) on target rr_written completes"
cmp_ok "${nw:-0}" '>' 0 "... and writes ($nw writes)"
q "CHECKPOINT" >/dev/null
after=$(sums)
is "$after" "$before" "the files of a user table, its index, two other targets and the target catalog are byte for byte unchanged"
ok "$([ "$(md5sum < "$WPATH")" != "$wbefore" ]; echo $?)" "... while the written target's file did change"

# every page of the written target's files is a valid empty heap page, as on disk
pages=$(for s in "$WPATH" "$WPATH".[0-9]*; do [ -e "$s" ] && cat "$s"; done | perl -e '
  binmode STDIN; my ($ok, $zero, $bad) = (0, 0, 0);
  while (read(STDIN, my $p, 8192) == 8192) {
    if ($p =~ /^\0*$/) { $zero++; next }
    # PageHeaderData: pd_lsn(8) pd_checksum(2) pd_flags(2) pd_lower pd_upper pd_special pd_pagesize_version
    my ($flags, $lower, $upper, $special, $psv) = unpack("x10 S S S S S", $p);
    if ($lower >= 24 && $lower <= $upper && $upper <= $special && $special <= 8192 && $psv == (8192 | 4)) { $ok++ } else { $bad++ }
  }
  print "$ok $zero $bad\n"')
diag "written target's pages on disk (valid, all-zero, invalid): $pages"
is "${pages##* }" 0 "no page of the written target is invalid on disk"
cmp_ok "${pages%% *}" '>' 0 "... and its pages have valid headers"
is "$(q "SELECT count(*) FROM $(q "SELECT relid::regclass FROM ranread_target_catalog WHERE target = 'rr_written'")")" 0 \
  "a superuser's SELECT count(*) from the written target reads it without error: 0 rows"
if q "CREATE EXTENSION IF NOT EXISTS pageinspect" >/dev/null && [ "$(q "SELECT 1 FROM pg_extension WHERE extname = 'pageinspect'")" = 1 ]; then
  WREL=$(q "SELECT relid::regclass FROM ranread_target_catalog WHERE target = 'rr_written'")
  res=$(psql -qAtX -d "$DB" -c "SELECT count(*) FILTER (WHERE h.lower >= 24 AND h.lower <= h.upper AND h.upper <= h.special
                                         AND h.special <= 8192 AND h.pagesize = 8192 AND h.version = 4)
                                  || '/' || count(*)
                             FROM generate_series(0, pg_relation_size('$WREL') / 8192 - 1) b,
                                  LATERAL page_header(pg_read_binary_file(pg_relation_filepath('$WREL'), b * 8192, 8192)) h" 2>&1)
  is "$res" "2048/2048" "pageinspect: every page of the written target, read from its file, has a valid header"
  if [ "$(q "SHOW data_checksums")" = on ]; then
    is "$(q "SELECT count(*) FROM generate_series(0, pg_relation_size('$WREL') / 8192 - 1) b,
                LATERAL (SELECT pg_read_binary_file(pg_relation_filepath('$WREL'), b * 8192, 8192) p) r
              WHERE (page_header(r.p)).checksum <> page_checksum(r.p, b::int)")" 0 \
      "data checksums are on: every page's checksum is right"
  fi
else
  diag "pageinspect is not available: pages checked on disk only"
fi

drop_roles
done_testing
