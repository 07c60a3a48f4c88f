#!/bin/bash
# A cache above the device (docs/numbers.md, "How each figure is
# measured"): every result says
# when caches may have answered, not only setup.  O_DIRECT bypasses the page
# cache only where the filesystem honours it; ext4 mounted with
# data=journal does not (its direct I/O falls back to buffered I/O), nor do
# filesystems with a cache of their own.  Each batch compares the bytes its
# device-path reads took with the bytes the device under the target read in
# the measured time (its /sys/dev/block stat):
#  - a tablespace on an ext4 loop filesystem mounted with data=journal, a
#    64 MB target read for 2 s: the loop device read far less than the batch
#    did, and the batch's WARNING, its notes in ranread_summary_full and its
#    hint say so, naming the device, both amounts and what to do
#  - a second such filesystem in its default mode (data=ordered, which
#    honours O_DIRECT): its device read what the batch read, and nothing is
#    said
. "$(dirname "$0")/lib/lib.sh"
. "$(dirname "$0")/lib/loopfs.bash"

WORK=$(mktemp -d "$TMPDIR_TEST/rr_cache_above.XXXXXX")
chmod 755 "$WORK"
MNT="$WORK/mnt"
MNT2="$WORK/mnt2"

cleanup() {
  psql -qX -d postgres -c "DROP DATABASE IF EXISTS rr_cache_above" >/dev/null 2>&1
  for t in rr_journal rr_ordered; do psql -qX -d postgres -c "DROP TABLESPACE IF EXISTS $t" >/dev/null 2>&1; done
  loopfs_cleanup
  rm -rf "$WORK"
}
trap cleanup EXIT

if ! loopfs_make 256M "$MNT" data=journal; then
  echo "1..0 # SKIP cannot make and mount an ext4 loop filesystem with data=journal here"
  exit 0
fi
DEV=$(basename "$(findmnt -no SOURCE "$MNT")")
diag "an ext4 filesystem on $DEV, mounted with $(findmnt -no OPTIONS "$MNT")"
pg_owned_path "$MNT/spc"

setup_db rr_cache_above
q "CREATE TABLESPACE rr_journal LOCATION '$MNT/spc'" >/dev/null
q "SELECT ranread_setup('64MB', 'rr_journal', 'journal')" >/dev/null
ok $? "a 64 MB target on it"

# batch TARGET: run a 2 s batch on the target; its WARNINGs in $WORK/err
batch() {
  psql -qAtX -d "$DB" -c "SELECT batch FROM ranread_run(2, duration => '2s', target => '$1')" 2> "$WORK/err"
}

B=$(batch journal)
ok $? "a batch reads it with data=journal"
diag "$(grep -o 'WARNING:  ranread batch [0-9]*: the device under.*' "$WORK/err" | cut -c1-300)"
grep -q "WARNING:  ranread batch $B: the device under the target journal ($DEV) read \([0-9.]* [kMGT]B\|[0-9]* bytes\) while the batch read [0-9.]* [MGT]B from it: the rest came from a cache above the device (a filesystem that does not honour O_DIRECT, such as ext4 with data=journal, or one with a cache of its own), so the figures are not the device's" "$WORK/err"
ok $? "its WARNING says the device ($DEV) read less than the batch did, and why the figures are not the device's"
grep -q "HINT:  For the device's figures, put the target on a filesystem that honours O_DIRECT" "$WORK/err"
ok $? "... with a hint of what to do"
is "$(q "SELECT notes LIKE '%the device under the target journal ($DEV) read % while the batch read % from it: the rest came from a cache above the device%' FROM ranread_summary_full WHERE batch = $B")" t \
  "... and its notes in ranread_summary_full say so too"
read -r reads bs <<< "$(q "SELECT reads || ' ' || block_size FROM ranread_batches WHERE batch = $B")"
cmp_ok "$(( reads * bs ))" '>' $(( 2 * 64 * 1048576 )) "... rightly: the batch read more than twice the 64 MB target ($reads reads of $bs bytes), which only a cache can have answered"

# a filesystem of the same kind in its default mode, which honours O_DIRECT
loopfs_make 256M "$MNT2"
ok $? "a second ext4 loop filesystem in its default mode ($(findmnt -no OPTIONS "$MNT2"))"
DEV2=$(basename "$(findmnt -no SOURCE "$MNT2")")
pg_owned_path "$MNT2/spc"
q "CREATE TABLESPACE rr_ordered LOCATION '$MNT2/spc'" >/dev/null
q "SELECT ranread_setup('64MB', 'rr_ordered', 'ordered')" >/dev/null
B2=$(batch ordered)
ok $? "a batch reads a 64 MB target there, on $DEV2"
! grep -q "the device under the target" "$WORK/err"
ok $? "... and nothing is said of a cache above the device: it read what the batch read"
is "$(q "SELECT coalesce(notes, '') NOT LIKE '%cache above the device%' FROM ranread_summary_full WHERE batch = $B2")" t \
  "... nor in its notes"

done_testing
