#!/bin/bash
# A target whose files are gone (removed by hand, or its tablespace's
# directory removed) breaks nothing but itself.  Before, one such target made
# ranread_targets fail for every target, and with it ranread_server_info,
# ranread_report, ranread_advise, the html export, ranread_purge and
# ranread_setup of that name (could not open file ...).
#  - ranread_targets shows it as 'missing', with a note saying what to do,
#    and the other targets as they are; also for pg_monitor
#  - ranread_server_info, ranread_report, ranread_advise and
#    ranread_export(..., 'html') work
#  - ranread_run on it is refused with 58P01, naming the file, with a hint
#    of both ways out; the other targets run
#  - ranread_purge forgets it; ranread_setup of its name makes it again
. "$(dirname "$0")/lib/lib.sh"
. "$(dirname "$0")/lib/faults.bash"

setup_db rr_missing
psql -qX -d postgres -c "DROP ROLE IF EXISTS rr_missing_mon" -c "CREATE ROLE rr_missing_mon IN ROLE pg_monitor" >/dev/null
TS=$(pg_owned_dir rr_missing_ts)
q "CREATE TABLESPACE rr_missing_ts LOCATION '$TS'" >/dev/null
setup_target 8MB fine
setup_target 8MB gone
q "SELECT ranread_setup('8MB', 'rr_missing_ts', 'tsgone')" >/dev/null
is "$(q "SELECT string_agg(target || ':' || state, ',' ORDER BY target) FROM ranread_targets")" "fine:ready,gone:ready,tsgone:ready" \
  "three targets, ready"
B=$(q "SELECT batch FROM ranread_run(1, 100, target => 'fine')")
rm -f "$(data_dir)/$(target_path gone)"
rm -rf "$TS"/PG_15_*

is "$(q "SELECT string_agg(target || ':' || state, ',' ORDER BY target) FROM ranread_targets")" "fine:ready,gone:missing,tsgone:missing" \
  "ranread_targets: the two whose files are gone are 'missing', the other one ready"
q "SELECT note FROM ranread_targets WHERE target = 'gone'" | grep -q 'its files are gone (base/.*No such file or directory).*ranread_purge.*ranread_setup'
ok $? "... with a note naming the file and what to do"
is "$(psql -qAtX -d "$DB" -c "SET ROLE rr_missing_mon" -c "SELECT count(*) FROM ranread_targets WHERE state = 'missing'" 2>&1)" 2 \
  "... also for pg_monitor"
res=$(psql -qAtX -d "$DB" -c "SELECT value FROM ranread_server_info() WHERE item = 'target gone'" 2>&1)
echo "$res" | grep -q 'not found'
ok $? "ranread_server_info works and says the target's file is not found"
cmp_ok "$(psql -qAtX -d "$DB" -c "SELECT length(ranread_report())" 2>&1)" '>' 1000 "ranread_report works"
psql -qAtX -d "$DB" -v ON_ERROR_STOP=1 -c "SET client_min_messages = error" -c "SELECT count(*) FROM ranread_advise()" >/dev/null 2>&1
ok $? "ranread_advise works"
EXP=$(pg_owned_dir rr_missing_exp)
f=$(psql -qAtX -d "$DB" -c "SELECT ranread_export('$EXP', 'html')" 2>&1)
[ -s "$f" ]
ok $? "ranread_export(..., 'html') works ($f)"

msg=$(psql -qAtX -d "$DB" -v VERBOSITY=verbose -c "SELECT * FROM ranread_run(1, 100, target => 'gone')" 2>&1)
echo "$msg" | grep -Eq '^ERROR: +58P01: ranread target "gone" has no files'
ok $? "ranread_run on it is refused (58P01)"
echo "$msg" | grep -Eq "^HINT: .*ranread_setup\\('8192 kB', 'pg_default', 'gone'\\).*ranread_purge\\('gone'\\)"
ok $? "... with the setup and the purge that get out of it"
msg=$(psql -qAtX -d "$DB" -v VERBOSITY=verbose -c "SELECT * FROM ranread_run(1, 100, target => 'tsgone')" 2>&1)
echo "$msg" | grep -Eq "^HINT: .*ranread_setup\\('8192 kB', 'pg_default', 'tsgone'\\)"
ok $? "... and for the one whose tablespace directory is gone, a setup in a tablespace that works"
is "$(q "SELECT status FROM ranread_run(1, 100, target => 'fine')")" completed "the other target runs"

is "$(psql -qAtX -d "$DB" -c "SELECT ranread_purge('gone')" 2>&1)" t "ranread_purge forgets a target whose file is gone"
is "$(psql -qAtX -d "$DB" -c "SET client_min_messages = error" -c "SELECT target || '|' || tablespace FROM ranread_setup('8MB', 'pg_default', 'tsgone')" 2>&1)" "tsgone|pg_default" \
  "ranread_setup of the name whose tablespace directory is gone makes it again elsewhere"
is "$(q "SELECT string_agg(target || ':' || state, ',' ORDER BY target) FROM ranread_targets")" "fine:ready,tsgone:ready" \
  "... and every target is ready"
is "$(q "SELECT count(*) FROM ranread_batches WHERE batch = $B")" 1 "history is untouched"
q "SELECT ranread_purge('fine'), ranread_purge('tsgone')" >/dev/null
psql -qX -d postgres -c "DROP DATABASE $DB" -c "DROP TABLESPACE rr_missing_ts" -c "DROP ROLE rr_missing_mon" >/dev/null

done_testing
