#!/bin/bash
# Honest counts: every read ranread reports reached the storage.  Two
# witnesses outside the extension, for each of three batches (io_uring at
# queue depth 1, io_uring at queue depth 8 with 64 kB blocks, the synchronous
# engine):
#  - the kernel's I/O accounting (read_bytes) of the batch's workers, read
#    from the postmaster's /proc/PID/io before the batch and once its
#    workers are gone: a process's counts include those of the children it
#    has reaped (sampling the workers themselves misses their last reads
#    before they exit, by more on a loaded machine)
#  - the block device under the data directory (/sys/class/block/DEV/stat,
#    sectors read) before and after the batch
# Each must have read at least 95% of reads x block_size.  The target's
# files are read into the page cache first, so reads answered by a cache
# would not show up in either witness.
. "$(dirname "$0")/lib/lib.sh"
. "$(dirname "$0")/lib/faults.bash"

setup_db rr_honest
setup_target 256MB
DATA=$(data_dir)
SEG0="$DATA/$(target_path)"

# the block device under the data directory, if the kernel shows one
src=$(findmnt -no SOURCE -T "$DATA" 2>/dev/null | head -1 | sed 's/\[.*\]$//')
case "$src" in /dev/*) src=$(readlink -f "$src") ;; esac
STAT=""
[ -n "$src" ] && [ -e "/sys/class/block/$(basename "$src")/stat" ] && STAT="/sys/class/block/$(basename "$src")/stat"
diag "data directory on ${src:-?}, device statistics in ${STAT:-(none)}"
sectors_read() { awk '{ print $3 }' "$STAT"; }

# fill the page cache with the target, so that cached reads would be free
cat "$SEG0"* > /dev/null
ok $? "the target's files are read into the page cache first"

# the postmaster's read_bytes: its own and its reaped children's
PM=$(head -1 "$DATA/postmaster.pid")
pm_read_bytes() { awk '$1 == "read_bytes:" { print $2 }' "/proc/$PM/io"; }

# honest LABEL WORKERS ENGINE BLOCK_SIZE SQL-ARGS
honest() {
  local label=$1 nworkers=$2 engine=$3 bs=$4 args=$5 s0 s1 p0 p1 reads want procbytes devbytes
  [ -n "$STAT" ] && s0=$(sectors_read)
  p0=$(pm_read_bytes)
  bg_psql rr_honest_run "SET ranread.engine = '$engine'" \
    "SELECT 'reads=' || reads FROM ranread_run($args, block_size => $bs)" \
    "SELECT 'workers=' || workers FROM ranread_batches ORDER BY batch DESC LIMIT 1"
  wait_pid "$BG_PID" 30
  wait_workers_gone 10
  p1=$(pm_read_bytes)
  [ -n "$STAT" ] && s1=$(sectors_read)
  reads=$(bg_output rr_honest_run | sed -n 's/^reads=//p' | head -1)
  want=$(( ${reads:-0} * bs ))
  cmp_ok "${reads:-0}" '>' 1000 "$label: the batch reports reads (${reads:-none} x ${bs:-?} bytes)"
  is "$(bg_output rr_honest_run | sed -n 's/^workers=//p' | head -1)|$(ranread_workers)" "$nworkers|0" \
    "$label: its $nworkers workers ran and are gone (reaped by the postmaster)"
  procbytes=$(( p1 - p0 ))
  cmp_ok "$procbytes" '>=' "$(( want * 95 / 100 ))" \
    "$label: the workers' read_bytes (in the postmaster's /proc/PID/io) cover the reported reads ($procbytes of $want bytes)"
  if [ -n "$STAT" ]; then
    devbytes=$(( (s1 - s0) * 512 ))
    cmp_ok "$devbytes" '>=' "$(( want * 95 / 100 ))" \
      "$label: the device read at least 95% of the reported bytes ($devbytes of $want)"
  else
    ok 0 "# SKIP no block device statistics for the data directory"
  fi
}

honest "io_uring, queue depth 1" 2 io_uring 8192 "2, duration => '3s', workers => 2"
honest "io_uring, queue depth 8, 64 kB blocks" 2 io_uring 65536 "4, duration => '3s', queue_depth => 8, workers => 2"
honest "synchronous engine" 2 sync 8192 "2, duration => '3s'"
is "$(ranread_workers)" 0 "no ranread worker is left at the end"
done_testing
