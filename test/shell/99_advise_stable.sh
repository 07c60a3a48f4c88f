#!/bin/bash
# Advice that holds still, on a slowed device (slowfs: 2 ms per read, 12 in
# flight; docs/commit-and-advice.md, "The advisor"): after a few real batches
# of each kind, three calls of ranread_advise in a row give the same rows, to
# the letter; each figure is the median of the comparable batches it names, and
# says how much they vary.  The target is smaller than twice the RAM, but 2 ms
# reads are no cache's: the advice is given, with that said.
. "$(dirname "$0")/lib/lib.sh"
. "$(dirname "$0")/../rig/slowfs.sh"

slowfs_build "" || { echo "1..0 # SKIP $SLOWFS_WHY"; exit 0; }
setup_db rr_advise_stable
WORK=$(mktemp -d "$TMPDIR_TEST/99_advise_stable.XXXXXX")
chmod 755 "$WORK"
MNT="$WORK/mnt"
trap 'psql -qX -d rr_advise_stable -c "SELECT ranread_purge(\$\$slow\$\$)" >/dev/null 2>&1; psql -qX -d postgres -c "DROP DATABASE IF EXISTS rr_advise_stable" >/dev/null 2>&1; psql -qX -d postgres -c "DROP TABLESPACE IF EXISTS rr_advise_slow" >/dev/null 2>&1; slowfs_umount_all; rm -rf --one-file-system "$WORK"' EXIT
slowfs_mount "$WORK/backing" "$MNT" read_delay_us=2000
q "CREATE TABLESPACE rr_advise_slow LOCATION '$(slowfs_pg_dir "$MNT" spc)'" >/dev/null
q "SELECT ranread_setup('32MB', 'rr_advise_slow', 'slow')" >/dev/null
q "SELECT ranread_setup('32MB', target => 'unit')" >/dev/null

# The batches: QD1 random reads three times, two more concurrencies, one
# process's sequential reads twice and two processes' once; the unit of
# the page costs on the default tablespace.
for i in 1 2 3; do q "SELECT batch FROM ranread_run(1, duration => '1s', target => 'slow')" >/dev/null; done
for p in 2 4; do q "SELECT batch FROM ranread_run($p, duration => '1s', target => 'slow')" >/dev/null; done
for p in 1 1 2; do
  q "SELECT batch FROM ranread_run($p, duration => '1s', target => 'slow', block_size => 1048576, pattern => 'sequential')" >/dev/null
done
q "SELECT batch FROM ranread_run(1, duration => '1s', target => 'unit', block_size => 1048576, pattern => 'sequential')" >/dev/null
is "$(q "SELECT count(*) FROM ranread_batches WHERE status = 'completed'")" 9 "nine batches recorded"

advice() {
  psql -qAtX -d "$DB" -v ON_ERROR_STOP=1 -c "SET client_min_messages = error" \
    -c "SELECT a::text FROM ranread_advise('rr_advise_slow', cache_hit_ratio => 0) a ORDER BY setting"
}
a1=$(advice); a2=$(advice); a3=$(advice)
q "SELECT setting || ': ' || coalesce(suggested, '-') || ' | ' || figures || coalesce(' | ' || warning, '')
     FROM ranread_advise('rr_advise_slow', cache_hit_ratio => 0)" | while IFS= read -r line; do diag "$line"; done
is "$(echo "$a1" | wc -l)" 7 "ranread_advise gives a row per setting (full_page_writes among them)"
is "$a2" "$a1" "a second call gives the same advice, every column"
is "$a3" "$a1" "... and a third"

# What it rests on
qd1=$(q "SELECT string_agg(batch::text, ', ' ORDER BY batch) FROM ranread_batches
          WHERE target = 'slow' AND pattern = 'random' AND processes = 1")
is "$(q "SELECT (SELECT batches FROM ranread_advise('rr_advise_slow') WHERE setting = 'random_page_cost')[1:3]::text")" \
   "{${qd1//, /,}}" "random_page_cost rests on all three QD1 random batches"
med=$(q "SELECT round(percentile_cont(0.5) WITHIN GROUP (ORDER BY avg_ms)::numeric, 3) FROM ranread_batches
          WHERE target = 'slow' AND pattern = 'random' AND processes = 1")
q "SELECT figures FROM ranread_advise('rr_advise_slow') WHERE setting = 'random_page_cost'" \
  | grep -q "^QD1 random 8 KiB reads: $med ms average (median of batches $qd1, the latest [-0-9: ]*; they vary by [0-9.]*%)"
ok $? "... through their median, $med ms, saying how much they vary"
cmp_ok "$med" ">=" 2 "a QD1 read on the slowed device takes its 2 ms ($med ms)"
is "$(q "SELECT count(*) FROM ranread_advise('rr_advise_slow', cache_hit_ratio => 0) WHERE suggested IS NOT NULL")" 6 \
  "every setting but wal_sync_method (no commit test) is advised: 2 ms reads are no cache's"
q "SELECT warning FROM ranread_advise('rr_advise_slow') WHERE setting = 'random_page_cost'" \
  | grep -q "less than twice the server's RAM .*slower than a cache in RAM answers: the device answered"
ok $? "... and the warning says the target is small, and why the figures count anyway"

done_testing
