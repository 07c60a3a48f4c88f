#!/bin/bash
# A target's files, as the storage sees them (docs/design.md, rules 1
# and 2):
#  - setup warns when the target is smaller than twice the server's RAM
#  - every block is physically written: no sparse file (du = apparent size),
#    no unwritten (fallocate-only) extents (filefrag)
#  - the data is incompressible (gzip -1 keeps > 95% of a segment) and no two
#    8 kB pages are alike, so compressing or deduplicating storage gains
#    nothing
#  - setup leaves the files out of the page cache, and a batch's reads do not
#    bring them in (fincore)
#  - a target made in another tablespace lives in that tablespace
#  - a tablespace on tmpfs (no real O_DIRECT) is refused with a clear error
#    and nothing is left behind
#  - ranread_purge, re-running setup and DROP EXTENSION free the space
#  - two sessions making the same target at once: the second replaces the
#    first or is refused naming the target, never with a catalog error
#  - pg_dump keeps the history and never a target, and its dump restores
#  - (and, seen from psql, a batch's NOTICE line: "batch 3: 4 processes,
#    random 8 KiB reads, IOPS=33000, BW=257.8MiB/s, avg 0.121 ms, p99
#    0.402 ms, 0.242 s", with the IOPS of its row)
. "$(dirname "$0")/lib/lib.sh"

DB=rr_files
DD=$(data_dir)
TS_DIR=$(pg_owned_dir ts_files)
SHM_DIR=""

cleanup() {
  psql -qX -d postgres -c "DROP DATABASE IF EXISTS $DB" >/dev/null 2>&1
  psql -qX -d postgres -c "DROP DATABASE IF EXISTS ${DB}_restored" >/dev/null 2>&1
  psql -qX -d postgres -c "DROP TABLESPACE IF EXISTS rr_files_ts" >/dev/null 2>&1
  psql -qX -d postgres -c "DROP TABLESPACE IF EXISTS rr_files_shm" >/dev/null 2>&1
  rm -rf "$TS_DIR"
  rm -f "$TMPDIR_TEST/rr_files_first.out"
  [ -n "$SHM_DIR" ] && rm -rf "$SHM_DIR"
}
trap cleanup EXIT

setup_db "$DB"

# bytes of a file (0 when it is gone: PostgreSQL truncates a dropped
# relation's first segment at once and unlinks it at the next checkpoint)
file_bytes() { if [ -e "$1" ]; then stat -c %s "$1"; else echo 0; fi; }
disk_bytes() { if [ -e "$1" ]; then du --block-size=1 "$1" | cut -f1; else echo 0; fi; }
cached_bytes() { fincore -b -n -o RES "$1" | tr -d ' '; }

# --- a 64MB target in pg_default
out=$(psql -qAtX -d "$DB" -c "SELECT size_bytes FROM ranread_setup('64MB')" 2>&1)
is "$(echo "$out" | tail -1)" 67108864 "ranread_setup('64MB') makes a target"
warning=$(echo "$out" | grep -E "^WARNING: +target size 64 MB is less than twice the server's RAM \([0-9.]+ [kMGT]B\)")
ok $? "it warns that 64 MB is less than twice the server's RAM, naming both: '${warning#WARNING:  }'"
SEG="$DD/$(target_path)"
diag "segment: $SEG"
is "$(file_bytes "$SEG")" 67108864 "its file holds 64MB"
[ ! -e "$SEG.1" ]
ok $? "... in one segment"

cmp_ok "$(cached_bytes "$SEG")" '<' 1048576 "after setup the file is not in the page cache (fincore: $(cached_bytes "$SEG") bytes)"
out=$(psql -qAtX -d "$DB" -c "SET client_min_messages = notice" \
        -c "SELECT status || ' ' || reads || ' ' || round(iops) FROM ranread_run(4, 2000)" 2>&1)
row=$(echo "$out" | grep -v '^NOTICE:' | grep -v '^DETAIL:' | grep -v '^HINT:' | tail -1)
is "${row% *}" "completed 8000" "a batch reads 8000 blocks of it"
line=$(echo "$out" | grep -E '^NOTICE: +batch [0-9]+: 4 processes, random 8 KiB reads, IOPS=[0-9]+, BW=[0-9.]+MiB/s, avg [0-9]+\.[0-9]{3} ms, p99 [0-9]+\.[0-9]{3} ms, [0-9]+\.[0-9]{3} s$')
ok $? "it prints the batch's line as a NOTICE: '${line#NOTICE:  }'"
iops=${line#*IOPS=}
is "${iops%%,*}" "${row##* }" "... whose IOPS are the batch's"
cmp_ok "$(cached_bytes "$SEG")" '<' 1048576 "the batch's reads bypassed the page cache (fincore: $(cached_bytes "$SEG") bytes)"

used=$(disk_bytes "$SEG")
cmp_ok "$used" '>=' 67108864 "the file is not sparse: du says $used bytes on disk for 67108864 apparent"
unwritten=$(filefrag -v "$SEG" | grep -c unwritten)
is "$unwritten" 0 "filefrag shows no unwritten (fallocate-only) extents"
filefrag -v "$SEG" | head -4 | sed 's/^/# /'

gz=$(gzip -1 -c "$SEG" | wc -c)
cmp_ok "$gz" '>' $((67108864 * 95 / 100)) "the data does not compress: gzip -1 keeps $gz of 67108864 bytes"

# every 8 kB page, hashed; count pages whose hash was seen before
dups=$(perl -MDigest::SHA=sha1 -e '
  open(my $f, "<:raw", $ARGV[0]) or die "$ARGV[0]: $!";
  my (%seen, $buf, $dups, $pages);
  while (read($f, $buf, 8192) == 8192) { $pages++; $dups++ if $seen{sha1($buf)}++; }
  print(($dups // 0) . " $pages\n");' "$SEG")
is "$dups" "0 8192" "no two of its 8192 pages are alike"
dups=$(perl -MDigest::SHA=sha1 -e '
  open(my $f, "<:raw", $ARGV[0]) or die "$ARGV[0]: $!";
  my (%seen, $buf, $dups);
  while (read($f, $buf, 8192) == 8192) { $dups++ if $seen{sha1(substr($buf, 24))}++; }
  print(($dups // 0) . "\n");' "$SEG")
is "$dups" 0 "not even past their page headers"

# --- another tablespace
psql -qX -d "$DB" -c "CREATE TABLESPACE rr_files_ts LOCATION '$TS_DIR'" >/dev/null
ok $? "a tablespace in a directory of its own"
is "$(q "SELECT tablespace || ' ' || size_bytes FROM ranread_setup('16MB', 'rr_files_ts', 'in_ts')")" "rr_files_ts 16777216" \
  "ranread_setup makes a target in another tablespace"
TS_SEG=$(readlink -f "$DD/$(target_path in_ts)")
case "$TS_SEG" in "$TS_DIR"/*) ok 0 "its file lies in the tablespace's directory";; *) ok 1 "its file lies in the tablespace's directory"; diag "file: $TS_SEG";; esac
is "$(file_bytes "$TS_SEG")" 16777216 "and holds 16MB"
is "$(filefrag -v "$TS_SEG" | grep -c unwritten)" 0 "with no unwritten extents"
is "$(q "SELECT state FROM ranread_targets WHERE target = 'in_ts'")" ready "ranread_targets shows it ready"

# --- tmpfs
SHM_DIR=$(mktemp -d /dev/shm/ranread_test.XXXXXX)
chown postgres:postgres "$SHM_DIR"
chmod 700 "$SHM_DIR"
psql -qX -d "$DB" -c "CREATE TABLESPACE rr_files_shm LOCATION '$SHM_DIR'" >/dev/null
ok $? "a tablespace on tmpfs (/dev/shm)"
msg=$(psql -qAtX -d "$DB" -v VERBOSITY=verbose -c "SET client_min_messages = error" \
        -c "SELECT * FROM ranread_setup('8MB', 'rr_files_shm', 'on_tmpfs')" 2>&1)
echo "$msg" | sed 's/^/# /'
echo "$msg" | grep -Eq '^ERROR: +0A000: tablespace "rr_files_shm" is on a memory filesystem without real O_DIRECT'
ok $? "a target in a tablespace on tmpfs is refused (0A000), naming the tablespace and why"
echo "$msg" | grep -q '^HINT: .*tablespace'
ok $? "... with a hint to use a tablespace on the storage to measure"
is "$(q "SELECT count(*) FROM ranread_targets WHERE target = 'on_tmpfs'")" 0 "... and no target is recorded"
is "$(find "$SHM_DIR" -type f | wc -l)" 0 "... and no file is left on tmpfs"

# --- pg_dump: the history, never a target; the dump restores cleanly
dump=$(pg_dump -d "$DB" 2>/dev/null)
echo "$dump" | grep -q 'ranread_batches'
ok $? "pg_dump keeps the history"
is "$(echo "$dump" | grep -Ec 'ranread_target_[0-9a-f]{32}')" 0 "pg_dump never mentions a target's relation"
echo "$dump" | grep -E 'ranread_target_[0-9a-f]{32}' | sed 's/^/#   /'
psql -qX -d postgres -c "DROP DATABASE IF EXISTS ${DB}_restored" -c "CREATE DATABASE ${DB}_restored" >/dev/null 2>&1
out=$(echo "$dump" | psql -qX -d "${DB}_restored" -v ON_ERROR_STOP=1 2>&1 >/dev/null)
ok $? "the dump restores into an empty database without errors"
[ -n "$out" ] && echo "$out" | sed 's/^/#   /'
is "$(psql -qAtX -d "${DB}_restored" -c "SELECT count(*) FROM ranread_summary" 2>&1)" \
   "$(q "SELECT count(*) FROM ranread_summary")" "the restored database has the batches"
is "$(psql -qAtX -d "${DB}_restored" -c "SELECT count(*) FROM ranread_targets" 2>&1)" 0 "and no targets"
psql -qX -d postgres -c "DROP DATABASE IF EXISTS ${DB}_restored" >/dev/null 2>&1

# --- space is freed: purge, re-setup, DROP EXTENSION
is "$(q "SELECT size_bytes FROM ranread_setup('32MB', target => 'purged')")" 33554432 "a 32MB target to purge"
PURGED="$DD/$(target_path purged)"
is "$(q "SELECT ranread_purge('purged')")" t "ranread_purge drops it"
is "$(disk_bytes "$PURGED")" 0 "its file no longer takes space"

OLD="$DD/$(target_path in_ts)"
is "$(q "SELECT size_bytes FROM ranread_setup('16MB', 'rr_files_ts', 'in_ts')")" 16777216 "re-running setup replaces a target"
NEW="$DD/$(target_path in_ts)"
[ "$OLD" != "$NEW" ]
ok $? "the new target has a new file"
is "$(disk_bytes "$OLD")" 0 "the replaced target's file no longer takes space"
got=$(disk_bytes "$NEW")
[ "$got" -ge 16777216 ] && [ "$got" -le $((16777216 + 16777216 / 100)) ]
ok $? "the new one holds 16MB (allowing 1% for the filesystem's extent blocks)"
[ "$got" -ge 16777216 ] || diag "got $got bytes"

# --- two sessions making the same target at once: one replaces the other,
# or the second is told the target is busy; never a catalog error
PGAPPNAME=rr_files_first psql -qAtX -d "$DB" -c "SET client_min_messages = error" -c "BEGIN" \
  -c "SELECT size_bytes FROM ranread_setup('8MB', target => 'contended')" -c "SELECT pg_sleep(2)" -c "COMMIT" \
  > "$TMPDIR_TEST/rr_files_first.out" 2>&1 &
FIRST=$!
wait_for 30 "SELECT EXISTS (SELECT 1 FROM pg_stat_activity WHERE application_name = 'rr_files_first'
                                                             AND query LIKE '%pg_sleep%')"
ok $? "a first session has made target 'contended' and not yet committed"
second=$(psql -qAtX -d "$DB" -v VERBOSITY=verbose -c "SET client_min_messages = error" \
           -c "SELECT size_bytes FROM ranread_setup('4MB', target => 'contended')" 2>&1)
wait "$FIRST"
echo "$second" | sed 's/^/#   second session: /'
if echo "$second" | grep -q '^ERROR'; then
  echo "$second" | grep -Eq '^ERROR: +[0-9A-Z]{5}: .*"contended"' && ! echo "$second" | grep -q '^ERROR: +23505'
  ok $? "a second session making the same target is refused with an error naming the target, not a catalog error"
else
  is "$second" 4194304 "a second session making the same target waits and replaces it"
fi
is "$(q "SELECT count(*) || ' ' || min(state) FROM ranread_targets WHERE target = 'contended'")" "1 ready" \
  "one target 'contended' is left, ready"
is "$(q "SELECT ranread_purge('contended')")" t "purge it"

q "DROP EXTENSION ranread" >/dev/null
is "$(disk_bytes "$SEG")" 0 "DROP EXTENSION frees the space of the target in pg_default"
is "$(disk_bytes "$NEW")" 0 "and of the target in the other tablespace"
q "CHECKPOINT" >/dev/null
[ ! -e "$SEG" ] && [ ! -e "$NEW" ] && [ ! -e "$PURGED" ]
ok $? "after a checkpoint the dropped targets' files are gone"
is "$(find "$TS_DIR" -type f | wc -l)" 0 "nothing is left in the tablespace"

done_testing
