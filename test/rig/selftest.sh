#!/bin/bash
# Proves the slowfs rig (TAP): what it emulates, what PostgreSQL and ranread
# need of it, and the measurements README.md reports.  As root:
#   bash test/rig/selftest.sh                          # without PostgreSQL
#   pg_virtualenv -t -v 15 bash test/rig/selftest.sh   # with the tablespace checks
# SLOWFS_SELFTEST_RUNTIME=N runs each fio job N seconds (default 5).
# Skips everything when FUSE is not usable here; fio, jq or liburing missing
# skip their parts.
set -u
here="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source=../shell/lib/lib.sh
. "$here/../shell/lib/lib.sh"
# shellcheck source=slowfs.sh
. "$here/slowfs.sh"

if ! slowfs_build ""; then
  echo "1..0 # SKIP $SLOWFS_WHY"
  exit 0
fi
WORK=$(mktemp -d "$TMPDIR_TEST/slowfs-selftest.XXXXXX")
chmod 755 "$WORK"
cleanup() {
  slowfs_umount_all
  rm -rf "$WORK"
}
trap cleanup EXIT
DELAY=2000
RUNTIME=${SLOWFS_SELFTEST_RUNTIME:-5}
B="$WORK/backing" M="$WORK/mnt"

slowfs_mount "$B" "$M" "read_delay_us=$DELAY"
ok $? "slowfs mounts with read_delay_us=$DELAY and waits until mounted"
is "$(findmnt -rno FSTYPE,OPTIONS -M "$M" | grep -c 'fuse.slowfs .*default_permissions,allow_other')" 1 \
  "the mount has allow_other and default_permissions"

# --- O_DIRECT: opens work, every read reaches the daemon, offsets honoured
dd if=/dev/urandom of="$WORK/ref" bs=1M count=4 status=none
dd if="$WORK/ref" of="$M/a" bs=1M oflag=direct status=none
ok $? "a file is written through the mount with O_DIRECT"
cmp -s "$WORK/ref" "$B/a"
ok $? "the backing file holds what was written"
before=$(slowfs_stats "$M" reads)
t0=$(date +%s%N)
for _ in $(seq 20); do dd if="$M/a" of=/dev/null bs=8k count=1 skip=3 iflag=direct status=none; done
t1=$(date +%s%N)
is "$(( $(slowfs_stats "$M" reads) - before ))" 20 \
  "20 O_DIRECT reads of the same block are 20 reads in the daemon (no page cache)"
per_us=$(( (t1 - t0) / 20000 ))
diag "one O_DIRECT 8 kB read at QD1, with dd's own start-up: $per_us us"
cmp_ok "$per_us" ">=" "$DELAY" "each read takes at least read_delay_us"
dd if="$M/a" bs=8k skip=100 count=1 iflag=direct status=none | cmp -s - <(dd if="$WORK/ref" bs=8k skip=100 count=1 status=none)
ok $? "an O_DIRECT read at an offset returns the bytes at that offset"
dd if=/dev/zero of="$M/a" bs=8k seek=7 count=1 oflag=direct conv=notrunc status=none
dd if="$B/a" bs=8k skip=7 count=1 status=none | cmp -s - <(head -c 8192 /dev/zero)
ok $? "an O_DIRECT write at an offset lands at that offset"
cmp -s <(head -c $((7 * 8192)) "$B/a") <(head -c $((7 * 8192)) "$WORK/ref")
ok $? "... and nothing before it changes"

# --- the rest of what a tablespace and ranread use
(
  cd "$M" || exit 1
  mkdir d && echo x > d/f && mv d/f d/g && [ "$(cat d/g)" = x ] &&
    ln d/g d/h && [ "$(stat -c %h d/g)" = 2 ] &&
    ln -s g d/s && [ "$(readlink d/s)" = g ] && [ "$(cat d/s)" = x ] &&
    truncate -s 1M d/g && [ "$(stat -c %s d/h)" = 1048576 ] &&
    chmod 600 d/g && [ "$(stat -c %a "$B/d/g")" = 600 ] &&
    touch -d '2001-02-03 04:05:06' d/g && [ "$(stat -c %Y "$B/d/g")" = "$(date -d '2001-02-03 04:05:06' +%s)" ] &&
    fallocate -l 2M d/g && [ "$(stat -c %s d/g)" = 2097152 ] &&
    sync d/g && sync -d d/g && sync d &&
    rm d/g d/h d/s && rmdir d && [ ! -e "$B/d" ]
)
ok $? "mkdir, rename, link, symlink, readlink, truncate, chmod, utimens, fallocate, fsync, unlink, rmdir"
df -P "$M" > /dev/null
ok $? "statfs answers (df)"
# shellcheck disable=SC2012
is "$(ls -a "$M" | tr '\n' ' ')" ". .. a " "readdir lists the backing directory (and not the stats file)"

# --- ownership: what a user makes through the mount is that user's
dir=$(slowfs_pg_dir "$M" pgdir)
is "$(stat -c %U:%a "$B/pgdir")" "postgres:700" "slowfs_pg_dir makes a directory owned by postgres, mode 700"
runuser -u postgres -- bash -c "umask 077; mkdir '$dir/sub' && echo y > '$dir/sub/f' && dd if=/dev/zero of='$dir/sub/o' bs=8k count=4 oflag=direct status=none"
ok $? "the postgres user creates directories and files there, with O_DIRECT too"
is "$(stat -c '%U:%G %a' "$B/pgdir/sub" "$B/pgdir/sub/f" | sort -u | tr '\n' ' ')" \
  "postgres:postgres 600 postgres:postgres 700 " "they belong to postgres in the backing directory, with the caller's umask"
runuser -u postgres -- bash -c "echo z > '$M/a'" 2>/dev/null
ok $(( ! $? )) "default_permissions: postgres cannot write root's file"

# --- the volatile write cache: honest, lying, power cuts
C="$WORK/mntc" CB="$WORK/backc"
st() { slowfs_stats "$C" "$1"; }
ctl() { printf '%s\n' "$1" > "$C/.slowfs-control"; }
blk() { dd if="$1" bs=8k skip="$2" count=1 status=none | od -An -tx1 | tr -d ' \n' | cut -c1-16; }
slowfs_mount "$CB" "$C" "cache=honest"
ok $? "slowfs mounts with cache=honest"
is "$(st mode)" honest "the stats file says the cache's mode"
head -c $((8192 * 4)) /dev/zero > "$C/d"; sync "$C/d"
is "$(st cached_writes)" 0 "an fsync writes the file's cache through (honest)"
cmp -s "$CB/d" <(head -c $((8192 * 4)) /dev/zero)
ok $? "... and the backing file holds what was written"
w() { python3 -c 'import os,sys; fd=os.open(sys.argv[1], os.O_WRONLY | int(sys.argv[4])); os.pwritev(fd, [bytes([int(sys.argv[2])])*8192], int(sys.argv[3])*8192, int(sys.argv[5])); os.close(fd)' "$@"; }
w "$C/d" 17 1 0 0
is "$(blk "$C/d" 1)" 1111111111111111 "a write without a flush is read back through the mount"
is "$(blk "$CB/d" 1)" 0000000000000000 "... but is only in the cache, not in the backing file"
is "$(st cached_writes)" 1 "... and the stats count it as cached"
ctl cut
is "$(blk "$C/d" 1)" 0000000000000000 "a power cut drops an unflushed write"
is "$(st dropped_writes):$(st dropped_acked):$(st cuts)" "1:0:1" "... counted as dropped, none of it acknowledged"
w "$C/d" 34 1 "$(python3 -c 'import os; print(os.O_DSYNC)')" 0
is "$(blk "$CB/d" 1)" 2222222222222222 "a write to a file opened O_DSYNC is written through (honest)"
cmp_ok "$(st dsync_writes)" ">=" 1 "... as a flush the daemon sees in the write's flags"
w "$C/d" 51 2 0 "$(python3 -c 'import os; print(os.RWF_DSYNC)')"
is "$(blk "$CB/d" 2)" 3333333333333333 "a pwritev2 with RWF_DSYNC is written through (honest)"
w "$C/d" 68 3 "$(python3 -c 'import os; print(os.O_DIRECT | os.O_SYNC)')" 0
is "$(blk "$CB/d" 3)" 4444444444444444 "an O_DIRECT | O_SYNC write is written through (honest)"
ctl lying
is "$(st mode)" lying "the control file switches the cache to lying"
w "$C/d" 85 0 0 0; sync -d "$C/d"
w "$C/d" 102 1 "$(python3 -c 'import os; print(os.O_DSYNC)')" 0
w "$C/d" 119 2 0 0
is "$(blk "$CB/d" 0)$(blk "$CB/d" 1)" 00000000000000002222222222222222 "a lying cache acknowledges fdatasync and O_DSYNC and keeps the data"
is "$(blk "$C/d" 0)$(blk "$C/d" 2)" 55555555555555557777777777777777 "... while reads through the mount see it"
is "$(st cached_writes):$(st cached_acked)" "3:2" "... and the stats count 3 cached writes, 2 of them acknowledged"
ctl cut
is "$(blk "$C/d" 0)$(blk "$C/d" 1)$(blk "$C/d" 2)" 000000000000000022222222222222223333333333333333 \
  "a power cut loses what the lying cache acknowledged"
is "$(st dropped_writes):$(st dropped_acked)" "4:2" "... and the stats count the acknowledged writes it took"
w "$C/d" 136 3 0 0; sync "$C/d"
ctl tear
is "$(dd if="$CB/d" bs=4k skip=6 count=2 status=none | od -An -v -tx1 -w4096 | cut -c2-3 | tr -d '\n')" "8844" \
  "tear: the newest cached write's first half reaches the backing file, the rest is lost"
is "$(st torn)" 1 "... counted as torn"
w "$C/d" 153 0 0 0; truncate -s $((8192 * 4)) "$C/d"
is "$(blk "$CB/d" 0)" 9999999999999999 "a truncate writes the file's cache through first"
w "$C/d" 170 0 0 0; ctl writeback
is "$(blk "$CB/d" 0):$(st cached_writes)" "aaaaaaaaaaaaaaaa:0" "writeback writes the whole cache through"
printf 'explode\n' > "$C/.slowfs-control" 2>/dev/null
ok $(( ! $? )) "an unknown control command fails"
python3 -c 'import os; fd=os.open("'"$C/e"'", os.O_WRONLY|os.O_CREAT, 0o644); os.pwrite(fd, b"x"*8192, 300*8192); os.close(fd)'
ctl cut
is "$(stat -c %s "$CB/e")" $((301 * 8192)) "a write beyond the end extends the backing file at once (metadata survives a cut)"
slowfs_umount "$C"
slowfs_mount "$CB" "$WORK/mntbad" "cache=maybe" 2>/dev/null
ok $(( ! $? )) "cache=maybe is refused"

# --- io_uring submits block beyond max_background
dd if=/dev/zero of="$M/probe" bs=1M count=1 oflag=direct status=none
if [ -z "$SLOWFS_PROBE" ]; then
  ok 0 "# SKIP io_uring probe not built (liburing-dev)"
  ok 0 "# SKIP io_uring probe not built (liburing-dev)"
else
  line=$(slowfs_submit_blocks "$M/probe" 64); rc=$?
  diag "default max_background: $line"
  ok $rc "io_uring_submit blocks once max_background O_DIRECT reads are in flight"
  is "$(echo "$line" | sed -n 's/.*first_blocked=\([0-9-]*\).*/\1/p')" 12 \
    "the 13th outstanding read is the first to wait (max_background 12)"
  slowfs_mount "$B" "$WORK/mnt4" "read_delay_us=$DELAY,max_background=4"
  line=$(slowfs_submit_blocks "$WORK/mnt4/probe" 64)
  diag "max_background=4: $line"
  is "$(echo "$line" | sed -n 's/.*first_blocked=\([0-9-]*\).*/\1/p')" 4 \
    "-o max_background=4: the 5th outstanding read is the first to wait"
  slowfs_umount "$WORK/mnt4"
fi

# --- fio: IOPS capped by the in-flight limit, Little's law
# fio_busy ENGINE: run the issue's fio job, set IOPS LAT_US SLAT_US CLAT_US BUSY
fio_busy() {
  fio --name=x --filename="$M/f" --direct=1 --ioengine="$1" --rw=randread --bs=8k \
    --iodepth=1 --numjobs=16 --time_based --runtime="$RUNTIME" --group_reporting \
    --output-format=json > "$WORK/fio-$1.json" 2> "$WORK/fio-$1.err" || return 1
  read -r IOPS LAT_US SLAT_US CLAT_US < <(jq -r '.jobs[0].read |
    "\(.iops|floor) \(.lat_ns.mean/1000|floor) \(.slat_ns.mean/1000|floor) \(.clat_ns.mean/1000|floor)"' "$WORK/fio-$1.json")
  BUSY=$(awk -v i="$IOPS" -v l="$LAT_US" 'BEGIN { printf "%.3f", i * l / 1e6 / 16 }')
}
if ! command -v fio >/dev/null || ! command -v jq >/dev/null; then
  for _ in 1 2 3 4 5 6; do ok 0 "# SKIP fio or jq is missing"; done
else
  dd if=/dev/urandom of="$M/f" bs=1M count=256 oflag=direct status=none
  for engine in io_uring psync; do
    before=$(slowfs_stats "$M" reads)
    if fio_busy $engine; then
      diag "$engine, 16 jobs QD1, ${RUNTIME}s: IOPS $IOPS, lat avg $LAT_US us (slat $SLAT_US + clat $CLAT_US), busy = $IOPS x $LAT_US us / 16 = $BUSY, daemon max_in_flight $(slowfs_stats "$M" max_in_flight)"
      cmp_ok "$IOPS" "<=" $((12 * 1000000 / DELAY)) "$engine: IOPS stay within max_background / read_delay (12 / 2 ms)"
      cmp_ok "$IOPS" ">=" $((12 * 1000000 / 2 / DELAY)) "$engine: ... and reach half of it (a shared 2-core machine)"
      cmp_ok "$BUSY" ">=" 0.95 "$engine: Little's law: fio's 16 streams are busy ($BUSY)"
    else
      for _ in 1 2 3; do ok 1 "$engine: fio ran"; done
      cat "$WORK/fio-$engine.err"
    fi
  done
fi
is "$(slowfs_stats "$M" max_in_flight)" 12 "the daemon never served more than max_background reads at once"

# --- PostgreSQL: a tablespace on the mount
if ! psql -qAtX -d postgres -c "SELECT 1" >/dev/null 2>&1; then
  for _ in 1 2 3 4 5; do ok 0 "# SKIP no PostgreSQL cluster (run under pg_virtualenv)"; done
else
  spc=$(slowfs_pg_dir "$M" spc)
  sql() { psql -qAtX -v ON_ERROR_STOP=1 -d postgres -c "SET client_min_messages = warning" "$@" 2>&1; }
  # pg_virtualenv's clusters run with fsync = off: the checkpoint below must
  # fsync through the mount, so on for this part (ALTER SYSTEM RESET after)
  fsync_was=$(sql -c "SHOW fsync")
  [ "$fsync_was" = on ] || sql -c "ALTER SYSTEM SET fsync = on" -c "SELECT pg_reload_conf()" > /dev/null
  out=$(sql -c "CREATE TABLESPACE slowfs_selftest LOCATION '$spc'")
  ok $? "CREATE TABLESPACE on the mount"; [ -z "$out" ] || diag "$out"
  out=$(sql -c "CREATE TABLE slowfs_t (x int) TABLESPACE slowfs_selftest" \
            -c "INSERT INTO slowfs_t SELECT generate_series(1, 100000)" -c "CHECKPOINT" \
            -c "SELECT count(*), sum(x) FROM slowfs_t")
  is "$out" "100000|5000050000" "a table there takes rows, a checkpoint, and reads back"
  rel=$(sql -c "SELECT pg_relation_filepath('slowfs_t')")
  file=$(ls "$B"/spc/PG_15_*/*/"$(basename "$rel")" 2>/dev/null)
  is "$(stat -c '%U %s' "$file" 2>/dev/null)" "postgres $(sql -c "SELECT pg_relation_size('slowfs_t')")" \
    "its file is in the backing directory, owned by postgres, at the size PostgreSQL sees"
  out=$(sql -c "DROP TABLE slowfs_t" -c "DROP TABLESPACE slowfs_selftest")
  ok $? "DROP TABLE and DROP TABLESPACE"; [ -z "$out" ] || diag "$out"
  is "$(ls -A "$B/spc")" "" "the tablespace directory is left empty"
  [ "$fsync_was" = on ] || sql -c "ALTER SYSTEM RESET fsync" -c "SELECT pg_reload_conf()" > /dev/null
fi

# --- unmount while a file is open
( exec 7< "$M/a"; sleep 30 ) & holder=$!
sleep 0.3
pid=${SLOWFS_PIDS[$(readlink -m "$M")]}
t0=$SECONDS
slowfs_umount "$M"
ok $(( ! ! $(findmnt -rn -M "$M" | wc -l) )) "slowfs_umount detaches a busy mount (lazily)"
kill -0 "$pid" 2>/dev/null
ok $(( ! $? )) "... and stops its daemon within $((SECONDS - t0)) s"
kill "$holder" 2>/dev/null; wait "$holder" 2>/dev/null
slowfs_umount "$M"
ok $? "slowfs_umount on what is no longer mounted is quiet and succeeds"

done_testing
