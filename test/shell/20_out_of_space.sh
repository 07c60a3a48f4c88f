#!/bin/bash
# Out of space (docs/design.md, "Failures"), on a small
# loop-mounted ext4 filesystem of 64 MB holding a tablespace:
#  - a target larger than the free space is refused up front, the error
#    giving the bytes needed and the bytes available, and nothing is written;
#    replacing a target says to purge the old one first, and keeps it
#  - running out of space in the middle of the fill (another file takes the
#    space after the free-space check) fails with a clear disk-full error and
#    leaves no partial target: no row in ranread_targets, no bytes on disk;
#    through either engine's write path (ranread.engine auto and sync)
#  - afterwards the tablespace works as before
# The fill is made to run out deterministically: a second session holds a
# lock on the target catalog, so setup waits after its free-space check
# (ranread_setup checks, then replaces the catalog row, then fills); while it
# waits, a file takes all but 4 MB of the filesystem.
. "$(dirname "$0")/lib/lib.sh"
. "$(dirname "$0")/lib/loopfs.bash"

DB=rr_space
WORK=$(mktemp -d "$TMPDIR_TEST/rr_space.XXXXXX")
chmod 755 "$WORK"
MNT="$WORK/mnt"
TS="$MNT/ts"
BG=()

cleanup() {
  for p in "${BG[@]}"; do kill "$p" 2>/dev/null; done
  psql -qX -d postgres -c "SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                            WHERE application_name IN ('rr_space_holder', 'rr_space_setup')" >/dev/null 2>&1
  psql -qX -d postgres -c "DROP DATABASE IF EXISTS $DB" >/dev/null 2>&1
  psql -qX -d postgres -c "DROP TABLESPACE IF EXISTS rr_space_ts" >/dev/null 2>&1
  loopfs_cleanup
  rm -rf "$WORK"
}
trap cleanup EXIT

if ! loopfs_make 64M "$MNT"; then
  echo "1..0 # SKIP cannot make and mount a loop-device filesystem here"
  exit 0
fi
pg_owned_path "$TS"

setup_db "$DB"
psql -qX -d "$DB" -c "CREATE TABLESPACE rr_space_ts LOCATION '$TS'" >/dev/null
ok $? "a tablespace on a 64 MB ext4 filesystem"

avail() { df -B1 --output=avail "$MNT" | tail -1 | tr -d ' '; }
# bytes in the files under the tablespace
ts_bytes() { find "$TS" -type f -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }'; }
# every message of a statement, verbose
q_msgs() { psql -qAtX -d "$DB" -v VERBOSITY=verbose -c "SET client_min_messages = error" -c "$1" 2>&1; }

diag "filesystem: $(avail) bytes available"

# --- refused up front
free=$(avail)
t0=$SECONDS
msg=$(q_msgs "SELECT * FROM ranread_setup('100MB', 'rr_space_ts', 'too_big')")
echo "$msg" | sed 's/^/# /'
echo "$msg" | grep -Eq '^ERROR: +53100: not enough free space in tablespace "rr_space_ts" for target "too_big"'
ok $? "a 100MB target on a 64 MB filesystem is refused with SQLSTATE 53100, naming tablespace and target"
echo "$msg" | grep -Eq '^DETAIL: .*\b104857600 bytes\b'
ok $? "... the error gives the bytes needed (104857600)"
got=$(echo "$msg" | sed -n 's/^DETAIL: .* \([0-9][0-9]*\) bytes available.*/\1/p')
cmp_ok "${got:-0}" '>' $((free - 2097152)) "... and the bytes available ($got; df says $free)"
cmp_ok "${got:-0}" '<' $((free + 2097152)) "... which match what df says"
cmp_ok $((SECONDS - t0)) '<' 5 "... at once, before writing anything"
is "$(ts_bytes)" 0 "nothing was written to the tablespace"
is "$(q "SELECT count(*) FROM ranread_targets")" 0 "no target was recorded"

is "$(q "SELECT size_bytes FROM ranread_setup('8MB', 'rr_space_ts', 'small')")" 8388608 "an 8MB target fits"
msg=$(q_msgs "SELECT * FROM ranread_setup('50MB', 'rr_space_ts', 'small')")
echo "$msg" | grep -Eq '^ERROR: +53100: not enough free space'
ok $? "replacing it with a 50MB target is refused up front"
echo "$msg" | grep -Eq "^HINT: .*ranread_purge\('small'\)"
ok $? "... the hint says to purge the old target first (it is only removed when setup commits, and purging would make room)"
msg=$(q_msgs "SELECT * FROM ranread_setup('62MB', 'rr_space_ts', 'small')")
echo "$msg" | grep -Eq '^ERROR: +53100: not enough free space'
ok $? "replacing it with a 62MB target is refused up front"
echo "$msg" | grep -Eq "^HINT: " && ! echo "$msg" | grep -q "ranread_purge"
ok $? "... and there the hint does not suggest purging, which would not make room: $(echo "$msg" | grep '^HINT' | cut -c1-100)"
is "$(q "SELECT size_bytes || ' ' || state FROM ranread_targets WHERE target = 'small'")" "8388608 ready" \
  "... and the old target is still there, ready"
is "$(q "SELECT ranread_purge('small')")" t "purge it"

# --- out of space in the middle of the fill, through either engine (auto:
# io_uring where the server allows it; sync: pwrite)
for engine in auto sync; do
  PGAPPNAME=rr_space_holder psql -qX -d "$DB" -c "BEGIN" \
    -c "LOCK TABLE ranread_target_catalog IN EXCLUSIVE MODE" -c "SELECT pg_sleep(120)" >/dev/null 2>&1 &
  BG+=($!)
  wait_for 30 "SELECT EXISTS (SELECT 1 FROM pg_stat_activity
                               WHERE application_name = 'rr_space_holder' AND state = 'active'
                                 AND query LIKE '%pg_sleep%')"
  ok $? "ranread.engine = $engine: a second session holds a lock on the target catalog"

  PGAPPNAME=rr_space_setup psql -qAtX -d "$DB" -v VERBOSITY=verbose -c "SET client_min_messages = error" -c "SET ranread.engine = $engine" \
    -c "SELECT * FROM ranread_setup('40MB', 'rr_space_ts', 'mid_fill')" > "$WORK/setup.out" 2>&1 &
  SETUP=$!
  BG+=($SETUP)
  wait_for 30 "SELECT EXISTS (SELECT 1 FROM pg_stat_activity
                               WHERE application_name = 'rr_space_setup' AND wait_event_type = 'Lock')"
  ok $? "ranread_setup('40MB') passed its free-space check and waits for the lock"
  cat "$WORK/setup.out" | sed 's/^/# early: /'

  fallocate -l $(( $(avail) - 4 * 1048576 )) "$MNT/filler"
  cmp_ok "$(avail)" '<' $((5 * 1048576)) "another file takes all but 4 MB of the filesystem ($(avail) bytes left)"

  psql -qX -d postgres -c "SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                            WHERE application_name = 'rr_space_holder'" >/dev/null
  deadline=$((SECONDS + 60))
  while kill -0 "$SETUP" 2>/dev/null && [ $SECONDS -lt $deadline ]; do sleep 0.2; done
  ! kill -0 "$SETUP" 2>/dev/null
  ok $? "once the lock is gone, setup runs to its end"
  msg=$(cat "$WORK/setup.out")
  echo "$msg" | sed 's/^/# /'
  echo "$msg" | grep -Eq '^ERROR: +53100: could not write target "mid_fill": no space left on device'
  ok $? "running out of space mid-fill ($engine) is a disk-full error (53100) naming the target"
  echo "$msg" | grep -Eq '^HINT: '
  ok $? "... with a hint"
  is "$(q "SELECT count(*) FROM ranread_targets WHERE target = 'mid_fill'")" 0 "no partial target is recorded"
  is "$(ts_bytes)" 0 "no partial target is left on disk: the tablespace holds no bytes"
  cmp_ok "$(avail)" '>' $((3 * 1048576)) "the space the fill took is free again ($(avail) bytes)"
  q "CHECKPOINT" >/dev/null
  is "$(find "$TS" -type f | wc -l)" 0 "after a checkpoint no file of it remains"

  rm -f "$MNT/filler"
done

# --- the tablespace works afterwards
is "$(q "SELECT size_bytes FROM ranread_setup('16MB', 'rr_space_ts', 'after')")" 16777216 \
  "with the filler gone, a 16MB target is made in the same tablespace"
is "$(q "SELECT state FROM ranread_targets WHERE target = 'after'")" ready "it is ready"
is "$(q "SELECT status || ' ' || reads FROM ranread_run(2, 500, target => 'after')")" "completed 1000" \
  "and a batch reads it"
is "$(q "SELECT ranread_purge('after')")" t "purge it"

done_testing
