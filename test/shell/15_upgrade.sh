#!/bin/bash
# From 1.0 to the current version (through every released one) with
# ALTER EXTENSION ranread UPDATE:
#  - a database made with 1.0 records history (batches, a sweep, intervals)
#    with the installed library, then updates
#  - the history is intact after the update, row for row, and the current
#    functions read it
#  - the updated extension has the same objects with the same definitions
#    as a fresh install (test/shell/lib/catalog.sql over both), so an upgrade script
#    that forgets a change fails here
#  - a database made with the released 1.1 updates the same way
. "$(dirname "$0")/lib/lib.sh"
. "$(dirname "$0")/lib/faults.bash"

CATALOG="$(dirname "$0")/lib/catalog.sql"
catalog_of() { psql -qAtX -d "$1" -f "$CATALOG"; }

CUR=$(q_in postgres "SELECT default_version FROM pg_available_extensions WHERE name = 'ranread'")

# --- a 1.0 database with history
DB=rr_upgrade
psql -qX -d postgres -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB" >/dev/null
q "CREATE EXTENSION ranread VERSION '1.0'" >/dev/null
is "$(q "SELECT extversion FROM pg_extension WHERE extname = 'ranread'")" 1.0 "CREATE EXTENSION ranread VERSION '1.0' installs 1.0"
setup_target 64MB
is "$(q "SELECT status || '|' || reads FROM ranread_run(2, 500)")" "completed|1000" "a 1.0 database runs a batch with the installed library"
is "$(q "SELECT status FROM ranread_run(1, duration => '1.5s', write_pct => 20, queue_depth => 4)")" completed \
  "... and a duration batch with writes"
is "$(q "SELECT count(*) FROM ranread_sweep(start => 1, max_processes => 2, duration => '0.5s')")" 2 "... and a two-step sweep"

history_of() {
  q "SELECT (SELECT string_agg(concat_ws(':', batch, status, processes, reads, writes, round(iops), md5(histogram::text), sweep), ',' ORDER BY batch) FROM ranread_batches)
     || ' / ' || (SELECT string_agg(concat_ws(':', batch, process, reads, writes, md5(histogram::text)), ',' ORDER BY batch, process) FROM ranread_results)
     || ' / ' || (SELECT string_agg(concat_ws(':', batch, second, reads, writes), ',' ORDER BY batch, second) FROM ranread_intervals)
     || ' / ' || (SELECT string_agg(concat_ws(':', sweep, steps, round(max_iops), stop_reason), ',' ORDER BY sweep) FROM ranread_sweeps)
     || ' / ' || (SELECT string_agg(concat_ws(':', target, size_bytes), ',') FROM ranread_targets)"
}
before=$(history_of)
is "$(q "SELECT count(*) FROM ranread_batches")" 4 "1.0 recorded four batches"
q "CREATE ROLE rr_upgrade_runner; GRANT EXECUTE ON FUNCTION ranread_run(integer, bigint, name, interval, integer, integer, integer, text, float8, float8, interval, integer, bigint, integer) TO rr_upgrade_runner" >/dev/null
cmp_ok "$(q "SELECT count(*) FROM ranread_intervals")" '>=' 3 "... with per-second intervals"

# --- the update
out=$(psql -qAtX -d "$DB" -v ON_ERROR_STOP=1 -c "ALTER EXTENSION ranread UPDATE" 2>&1)
ok $? "ALTER EXTENSION ranread UPDATE succeeds"
[ -z "$out" ] || diag "update said: $out"
is "$(q "SELECT extversion FROM pg_extension WHERE extname = 'ranread'")" "$CUR" "... and the extension is at $CUR"
is "$(history_of)" "$before" "the history is intact after the update: batches, processes, intervals, sweeps, targets"

is "$(q "SELECT has_function_privilege('rr_upgrade_runner', 'ranread_run'::regproc, 'EXECUTE')")" t \
  "a role granted EXECUTE on 1.0's ranread_run may execute $CUR's, whose arguments changed"
q "DROP OWNED BY rr_upgrade_runner; DROP ROLE rr_upgrade_runner" >/dev/null

# --- the current version works on the updated database and its history
is "$(q "SELECT status || '|' || reads FROM ranread_run(1, 300)")" "completed|300" "the updated database runs a batch"
is "$(q "SELECT count(*) FROM ranread_mix('[{\"label\": \"a\", \"processes\": 1}, {\"label\": \"b\", \"processes\": 1, \"block_size\": 65536}]', duration => '0.5s')")" 3 \
  "the updated database runs a mix (1.1)"
is "$(q "SELECT count(*) FROM ranread_summary_full")" 6 "ranread_summary shows the 1.0 batches and the new ones"
is "$(q "SELECT count(*) FILTER (WHERE groups IS NULL) || '|' || count(*) FILTER (WHERE groups = 2) FROM ranread_summary_full")" "4|1" \
  "... the 1.0 batches without the 1.1 columns, the mix with its groups"
q "SELECT ranread_chart()" | grep -q '^<svg'
ok $? "ranread_chart draws the sweep recorded by 1.0"
is "$(q "SELECT ranread_hist_count(ranread_hist_merge(histogram)) = sum(reads + writes) FROM ranread_results WHERE batch IN (SELECT batch FROM ranread_batches ORDER BY batch LIMIT 4)")" t \
  "the 1.0 histograms merge with the 1.1 aggregate"

# --- an updated database is a fresh one
FRESH=rr_upgrade_fresh
psql -qX -d postgres -c "DROP DATABASE IF EXISTS $FRESH" -c "CREATE DATABASE $FRESH" >/dev/null
q_in "$FRESH" "CREATE EXTENSION ranread" >/dev/null
catalog_of "$DB" > "$WORK/updated.txt"
catalog_of "$FRESH" > "$WORK/fresh.txt"
cmp_ok "$(wc -l < "$WORK/fresh.txt")" '>' 100 "the catalog listing of a fresh $CUR has its objects ($(wc -l < "$WORK/fresh.txt") lines)"
if diff -u "$WORK/fresh.txt" "$WORK/updated.txt" > "$WORK/catalog.diff"; then ok 0 "a database updated from 1.0 has the same objects and definitions as a fresh $CUR"
else ok 1 "a database updated from 1.0 has the same objects and definitions as a fresh $CUR"; sed 's/^/# /' "$WORK/catalog.diff" | head -60; fi

# --- from the released 1.1
FROM11=rr_upgrade_11
psql -qX -d postgres -c "DROP DATABASE IF EXISTS $FROM11" -c "CREATE DATABASE $FROM11" >/dev/null
q_in "$FROM11" "CREATE EXTENSION ranread VERSION '1.1'" >/dev/null
is "$(q_in "$FROM11" "SELECT extversion FROM pg_extension WHERE extname = 'ranread'")" 1.1 "CREATE EXTENSION ranread VERSION '1.1' installs 1.1"
out=$(psql -qAtX -d "$FROM11" -v ON_ERROR_STOP=1 -c "ALTER EXTENSION ranread UPDATE" 2>&1)
ok $? "ALTER EXTENSION ranread UPDATE from 1.1 succeeds"
[ -z "$out" ] || diag "update said: $out"
is "$(q_in "$FROM11" "SELECT extversion FROM pg_extension WHERE extname = 'ranread'")" "$CUR" "... and reaches $CUR"
catalog_of "$FROM11" > "$WORK/from11.txt"
if diff -u "$WORK/fresh.txt" "$WORK/from11.txt" > "$WORK/catalog11.diff"; then ok 0 "a database updated from 1.1 has the same objects and definitions as a fresh $CUR"
else ok 1 "a database updated from 1.1 has the same objects and definitions as a fresh $CUR"; sed 's/^/# /' "$WORK/catalog11.diff" | head -60; fi

# --- a 1.1 database where a role granted 'run' forged probes (1.1's 'run'
# gave INSERT on ranread_probes): apart, as its grants leave ACLs that a
# fresh install has not
W11=rr_upgrade_11w
psql -qX -d postgres -c "DROP DATABASE IF EXISTS $W11" -c "CREATE DATABASE $W11" >/dev/null
q_in "$W11" "CREATE EXTENSION ranread VERSION '1.1'" >/dev/null
q_in "$W11" "CREATE ROLE rr_watch_runner; SELECT count(*) FROM ranread_grant('rr_watch_runner', 'run');
             GRANT INSERT ON ranread_probes, ranread_studies, ranread_sweeps TO rr_watch_runner" >/dev/null
# a DBA's grants beside: to PUBLIC, and one with its grant option passed on
psql -qX -d postgres -c "DROP ROLE IF EXISTS rr_watch_sub" -c "CREATE ROLE rr_watch_sub" -c "CREATE ROLE rr_watch_nobody" >/dev/null 2>&1
q_in "$W11" "GRANT UPDATE ON ranread_probes, ranread_sweeps TO PUBLIC;
             GRANT DELETE ON ranread_probes, ranread_studies TO rr_watch_runner WITH GRANT OPTION;
             SET ROLE rr_watch_runner; GRANT DELETE ON ranread_probes, ranread_studies TO rr_watch_sub" >/dev/null
q_in "$W11" "SET ROLE rr_watch_runner; INSERT INTO ranread_probes (batch, tablespace, probed_at)
             VALUES (987654321, 'pg_default', 'infinity'), (987654322, 'pg_default', '2000-01-01')" >/dev/null
# ... and forged a study and sweeps (1.1's 'run' held INSERT on
# ranread_studies and ranread_sweeps): a bound of NaN, a block size of 0
q_in "$W11" "SET ROLE rr_watch_runner;
             INSERT INTO ranread_studies VALUES (987654321, 'grid', now(), now(), 'postgres', 'ranread', 'ranread_study(forged)', '{}', 1, 1, 0, 'NaN', NULL);
             INSERT INTO ranread_sweeps (sweep, started_at, finished_at, started_by, target, block_size, write_pct, queue_depth,
                                         pattern, start, max_processes, max_avg_ms, steps, meets_flash_guidance)
             VALUES (987654321, now(), now(), 'postgres', 'ranread', 0, 0, 1, '<script>', 1, 2, 'NaN', 1, false),
                    (987654322, now(), now(), 'postgres', 'ranread', 8192, 0, 1, 'random', 1, 2, 10, 1, false)" >/dev/null
out=$(psql -qAtX -d "$W11" -v ON_ERROR_STOP=1 -c "ALTER EXTENSION ranread UPDATE" 2>&1)
ok $? "ALTER EXTENSION ranread UPDATE from 1.1 with forged probes succeeds"
is "$(q_in "$W11" "SELECT string_agg(batch::text, ',' ORDER BY batch) FROM ranread_probes")" 987654322 \
  "the update deletes a forged probe at 'infinity' (and keeps one at a finite time, which it cannot tell from a probe)"
grep -q "deleted the row of batch 987654321 in ranread_probes" <<< "$out"
ok $? "... saying so"
is "$(q_in "$W11" "SELECT string_agg(r || ':' || t || ':' || p, ',' ORDER BY r, t, p)
                    FROM unnest(ARRAY['rr_watch_runner', 'rr_watch_sub', 'rr_watch_nobody']) r,
                         unnest(ARRAY['ranread_probes', 'ranread_studies', 'ranread_sweeps']) t,
                         unnest(ARRAY['INSERT', 'UPDATE', 'DELETE']) p
                   WHERE has_table_privilege(r, t, p)")" "" \
  "after the update no role may change ranread_probes, ranread_studies or ranread_sweeps: not by PUBLIC's grant, nor one passed on with a grant option"
is "$(q_in "$W11" "SELECT has_table_privilege('rr_watch_runner', 'ranread_probes', 'INSERT')")" f \
  "a role granted 'run' in 1.1 may no longer insert into ranread_probes"
is "$(q_in "$W11" "SELECT (SELECT count(*) FROM ranread_studies)::text || ',' || (SELECT string_agg(sweep::text, ',' ORDER BY sweep) FROM ranread_sweeps)")" 0,987654322 \
  "the update deletes the forged study with a bound of NaN and the forged sweep (and keeps a sweep it cannot tell from a real one)"
grep -q "deleted the row of study 987654321 in ranread_studies" <<< "$out" && grep -q "deleted the row of sweep 987654321 in ranread_sweeps" <<< "$out"
ok $? "... saying so"
is "$(q_in "$W11" "SELECT has_table_privilege('rr_watch_runner', 'ranread_studies', 'INSERT') OR has_table_privilege('rr_watch_runner', 'ranread_sweeps', 'INSERT')")" f \
  "a role granted 'run' in 1.1 may no longer insert into ranread_studies nor ranread_sweeps"
q_in "$W11" "SELECT ranread_probe_setup('pg_default', '4MB')" >/dev/null 2>&1
is "$(q_in "$W11" "SET ROLE rr_watch_runner; SELECT status FROM ranread_probe(duration => '1s', rate_iops => 20)" 2>&1)" completed \
  "... and still probes after the update (the new internal functions granted to it)"
is "$(psql -qAtX -d "$W11" -c "SET ROLE rr_watch_runner; SELECT ranread_compare_sweeps(-1, -2)" 2>&1 | grep -o 'sweep_a of ranread_compare_sweeps: sweep -1 does not exist')" \
  "sweep_a of ranread_compare_sweeps: sweep -1 does not exist" "... and compares sweeps"
# (granted 'run' again, for 1.2's other new internal functions, which the
# update does not all grant yet; 'run' still gives no INSERT on either table)
q_in "$W11" "SELECT ranread_setup('16MB'); SELECT count(*) FROM ranread_grant('rr_watch_runner', 'run')" >/dev/null 2>&1
is "$(q_in "$W11" "SELECT has_table_privilege('rr_watch_runner', 'ranread_studies', 'INSERT') OR has_table_privilege('rr_watch_runner', 'ranread_sweeps', 'INSERT')")" f \
  "... nor once granted 'run' again"
is "$(q_in "$W11" "SET ROLE rr_watch_runner; SELECT count(*) FROM ranread_study(processes => ARRAY[1,2], duration => '0.3s');
                   SELECT count(*) FROM ranread_sweep(start => 1, max_processes => 1, duration => '0.3s');
                   SELECT s.started_by || ',' || w.started_by FROM ranread_studies s, ranread_sweeps w WHERE w.sweep <> 987654322" 2>&1 | tail -1)" \
  rr_watch_runner,rr_watch_runner "... and still runs a study and a sweep after the update, recorded as started by it"
q_in "$W11" "SELECT ranread_purge('ranread_probe_pg_default'); SELECT ranread_purge('ranread'); DROP OWNED BY rr_watch_runner" >/dev/null
psql -qX -d postgres -c "DROP DATABASE IF EXISTS $W11" >/dev/null 2>&1
psql -qX -d postgres -c "DROP ROLE IF EXISTS rr_watch_sub" -c "DROP ROLE IF EXISTS rr_watch_nobody" -c "DROP ROLE IF EXISTS rr_watch_runner" >/dev/null 2>&1

# --- roles granted a kind of use in 1.1 hold, after the update, exactly
# what the same grants give in a fresh install (what 1.2 adds to a kind
# reaches them): apart, as grants leave ACLs
R11=rr_upgrade_11r
privs_of() {  # privs_of DB ROLE: the role's own privileges on ranread's objects
  q_in "$1" "SELECT coalesce(string_agg(x, ',' ORDER BY x), '') FROM (
      SELECT p.oid::regprocedure::text || ':' || a.privilege_type
        FROM pg_proc p, aclexplode(p.proacl) a, pg_depend d
       WHERE a.grantee = '$2'::regrole AND d.objid = p.oid AND d.classid = 'pg_proc'::regclass
         AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'ranread') AND d.deptype = 'e'
      UNION ALL
      SELECT c.oid::regclass::text || ':' || a.privilege_type
        FROM pg_class c, aclexplode(c.relacl) a, pg_depend d
       WHERE a.grantee = '$2'::regrole AND d.objid = c.oid AND d.classid = 'pg_class'::regclass
         AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'ranread') AND d.deptype = 'e'
      UNION ALL
      SELECT n.nspname || ':' || a.privilege_type FROM pg_namespace n, aclexplode(n.nspacl) a
       WHERE a.grantee = '$2'::regrole AND n.nspname = 'ranread_internal') s(x)"
}
psql -qX -d postgres -c "DROP DATABASE IF EXISTS $R11" -c "CREATE DATABASE $R11" >/dev/null
q_in "$R11" "CREATE EXTENSION ranread VERSION '1.1'" >/dev/null
for kind in report run export; do
  psql -qX -d postgres -c "DROP ROLE IF EXISTS rr_up_$kind" -c "CREATE ROLE rr_up_$kind" >/dev/null 2>&1
  q_in "$R11" "SELECT count(*) FROM ranread_grant('rr_up_$kind', '$kind')" >/dev/null 2>&1
done
out=$(psql -qAtX -d "$R11" -v ON_ERROR_STOP=1 -c "ALTER EXTENSION ranread UPDATE" 2>&1)
ok $? "ALTER EXTENSION ranread UPDATE from 1.1 with roles granted 'report', 'run' and 'export' succeeds"
[ -z "$out" ] || diag "update said: $(echo "$out" | head -3)"
for kind in report run export; do
  q_in "$FRESH" "SELECT count(*) FROM ranread_grant('rr_up_$kind', '$kind')" >/dev/null 2>&1
  fresh_privs=$(privs_of "$FRESH" "rr_up_$kind")
  cmp_ok "$(echo "$fresh_privs" | tr ',' '\n' | wc -l)" '>' 10 "a fresh $CUR's '$kind' holds its privileges"
  is "$(privs_of "$R11" "rr_up_$kind")" "$fresh_privs" \
    "a role granted '$kind' in 1.1 holds after the update what '$kind' gives in a fresh $CUR"
done
is "$(psql -qAtX -d "$R11" -c "SET ROLE rr_up_report" -c "SELECT length(ranread_report()) > 0" 2>&1)" t \
  "... and a 'report' role granted in 1.1 draws ranread_report after the update"
for kind in report run export; do
  q_in "$R11" "DROP OWNED BY rr_up_$kind" >/dev/null 2>&1
  q_in "$FRESH" "DROP OWNED BY rr_up_$kind" >/dev/null 2>&1
  psql -qX -d postgres -c "DROP ROLE IF EXISTS rr_up_$kind" >/dev/null 2>&1
done
psql -qX -d postgres -c "DROP DATABASE IF EXISTS $R11" >/dev/null 2>&1

# --- the generated upgrade's own steps (sql/updates/pre-update.sql,
# post-update.sql): a function of the extension that the code does not make
# again is dropped; a view the version changed is made again with the
# privileges a DBA gave on it; a DBA's object over a changed view refuses
# the update, naming it, and leaves the database as it was
changed=$(sh scripts/changed-views sql/versions/ranread--1.1.sql sql/code/*.sql | head -1 | sed 's/@extschema@/public/')
G11=rr_upgrade_11g
psql -qX -d postgres -c "DROP DATABASE IF EXISTS $G11" -c "CREATE DATABASE $G11" >/dev/null
psql -qX -d postgres -c "DROP ROLE IF EXISTS rr_up_reader" -c "CREATE ROLE rr_up_reader" >/dev/null 2>&1
q_in "$G11" "CREATE EXTENSION ranread VERSION '1.1'" >/dev/null
q_in "$G11" "CREATE FUNCTION ranread_internal.ranread_gone_in_this_version() RETURNS int LANGUAGE sql AS 'SELECT 1';
             ALTER EXTENSION ranread ADD FUNCTION ranread_internal.ranread_gone_in_this_version()" >/dev/null
if [ -n "$changed" ]; then
  q_in "$G11" "GRANT SELECT ON $changed TO rr_up_reader; CREATE VIEW public.rr_dba_view AS SELECT * FROM $changed" >/dev/null
  out=$(psql -qAtX -d "$G11" -v ON_ERROR_STOP=1 -c "ALTER EXTENSION ranread UPDATE" 2>&1)
  cmp_ok "$?" "!=" 0 "an update that would drop a DBA's view over a view it changes ($changed) is refused"
  grep -q 'ranread cannot be updated while other objects depend on its views: view rr_dba_view' <<< "$out"
  ok $? "... naming the DBA's view" || diag "$out"
  grep -q 'HINT:  Drop those objects, run ALTER EXTENSION ranread UPDATE again' <<< "$out"
  ok $? "... with a hint"
  is "$(q_in "$G11" "SELECT extversion FROM pg_extension WHERE extname = 'ranread'")" 1.1 "... and the database stays at 1.1"
  q_in "$G11" "DROP VIEW public.rr_dba_view" >/dev/null
else
  diag "no view changed since 1.1: the view steps are not exercised"
fi
out=$(psql -qAtX -d "$G11" -v ON_ERROR_STOP=1 -c "ALTER EXTENSION ranread UPDATE" 2>&1)
ok $? "ALTER EXTENSION ranread UPDATE from 1.1 with a function the code no longer makes succeeds" || diag "$out"
is "$(q_in "$G11" "SELECT to_regprocedure('ranread_internal.ranread_gone_in_this_version()') IS NULL")" t \
  "the update drops a function of the extension that this version's code does not make again"
if [ -n "$changed" ]; then
  is "$(q_in "$G11" "SELECT has_table_privilege('rr_up_reader', '$changed', 'SELECT')")" t \
    "a DBA's grant on a view the update made again ($changed) holds after it"
fi
[ -z "$changed" ] || q_in "$G11" "REVOKE ALL ON $changed FROM rr_up_reader" >/dev/null 2>&1
catalog_of "$G11" > "$WORK/from11g.txt"
if diff -u "$WORK/fresh.txt" "$WORK/from11g.txt" > "$WORK/catalog11g.diff"; then ok 0 "... and the database has the same objects as a fresh $CUR"
else ok 1 "... and the database has the same objects as a fresh $CUR"; sed 's/^/# /' "$WORK/catalog11g.diff" | head -40; fi
q_in "$G11" "DROP OWNED BY rr_up_reader" >/dev/null 2>&1
psql -qX -d postgres -c "DROP DATABASE IF EXISTS $G11" -c "DROP ROLE IF EXISTS rr_up_reader" >/dev/null 2>&1

psql -qX -d postgres -c "DROP DATABASE IF EXISTS $FRESH" -c "DROP DATABASE IF EXISTS $FROM11" >/dev/null 2>&1
done_testing
