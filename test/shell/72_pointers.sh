#!/bin/bash
# What the messages point at is there (docs/design.md, "Failures"): a
# reader follows a hint, a comment or a help text and finds what it names.
#  - the CrystalDiskMark profile's NOTICE is headed by the installed
#    version of ranread, as its report is
#  - no comment on an object of the extension, no text of ranread_help and
#    no hint of a bad ranread_svg spec sends the reader to the README for
#    what the docs/ pages hold: a bad spec's hint names
#    docs/charts-and-reports.md, "Charts from SQL", where its keys are
#  - an emptied probe target is made again by ranread_probe_setup, not
#    ranread_setup: the probe's error says so, and its statement works
. "$(dirname "$0")/lib/lib.sh"

setup_db rr_pointers
VERSION=$(q "SELECT extversion FROM pg_extension WHERE extname = 'ranread'")

# --- the profile's header
q "SELECT target FROM ranread_setup('16MB')" >/dev/null
OUT=$(psql -qAtX -d "$DB" -c "SELECT count(*) FROM ranread_profile('crystaldiskmark', duration => '0.2s', passes => 1)" 2>&1)
echo "$OUT" | grep -qE "^NOTICE:  ranread $VERSION, profile crystaldiskmark \(study [0-9]+\)$"
ok $? "the CrystalDiskMark profile's NOTICE is headed by the installed version ($VERSION)"
echo "$OUT" | grep -E "^NOTICE:  ranread [0-9.]+, profile" | sed 's/^/# /'

# --- pointers to the docs pages
is "$(q "SELECT string_agg(pg_describe_object(d.classid, d.objid, 0), ', ')
           FROM pg_depend d JOIN pg_description c ON c.classoid = d.classid AND c.objoid = d.objid
          WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
            AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'ranread')
            AND c.description LIKE '%README%'")" "" \
  "no comment on an object of the extension points at the README"
is "$(q "SELECT coalesce(obj_description(oid, 'pg_event_trigger'), '') LIKE '%README%' FROM pg_event_trigger WHERE evtname = 'ranread_target_grants'")" f \
  "nor the comment on its event trigger"
is "$(q "SELECT count(*) FROM ranread_help() h WHERE h::text LIKE '%README%'")" 0 "no text of ranread_help() points at the README"
is "$(q "SELECT count(*) FROM (SELECT DISTINCT p.proname FROM pg_proc p
          WHERE p.pronamespace = 'public'::regnamespace AND p.proname LIKE 'ranread\\_%' AND p.prokind = 'f') p,
          LATERAL ranread_help(p.proname::text) h WHERE h::text LIKE '%README%'")" 0 "nor of ranread_help(name) for any function"
msg=$(psql -qAtX -d "$DB" -v VERBOSITY=verbose -c "SELECT ranread_svg('{\"kind\": \"line\", \"bogus\": 1}')" 2>&1)
echo "$msg" | grep -qF 'HINT:  The keys of a ranread_svg spec are listed in docs/charts-and-reports.md, "Charts from SQL".'
ok $? "a bad ranread_svg spec's hint names the page and section where the keys are"
grep -q '^## Charts from SQL' "$(dirname "$0")/../../docs/charts-and-reports.md"
ok $? "... and that section is there"

# --- an emptied probe target
q "SELECT target FROM ranread_probe_setup('pg_default', '16MB')" >/dev/null
REL=$(q "SELECT relid::regclass FROM ranread_target_catalog WHERE target = 'ranread_probe_pg_default'")
q "TRUNCATE $REL" >/dev/null
is "$(q "SELECT state FROM ranread_targets WHERE target = 'ranread_probe_pg_default'")" empty "TRUNCATE empties the probe target"
msg=$(psql -qAtX -d "$DB" -v VERBOSITY=verbose -c "SELECT * FROM ranread_probe('pg_default', duration => '1s')" 2>&1)
echo "$msg" | grep -qE '^ERROR: +55000: ranread target "ranread_probe_pg_default" is empty'
ok $? "a probe on the emptied target fails (55000), saying it is empty"
HINT=$(echo "$msg" | sed -n 's/^HINT:  //p')
is "$HINT" "Run ranread_probe_setup again: SELECT * FROM ranread_probe_setup('pg_default', '16 MB');" \
  "its hint says ranread_probe_setup, with the tablespace and the size"
q "${HINT#*: }" >/dev/null
is "$(q "SELECT status FROM ranread_probe('pg_default', duration => '1s')")" completed "the hint's statement makes it again, and the probe runs"

done_testing
