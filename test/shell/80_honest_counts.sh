#!/bin/bash
# Honest counts: every read ranread reports reached the storage.  Two
# witnesses outside the extension, for each of three batches (io_uring at
# queue depth 1, io_uring at queue depth 8 with 64 kB blocks, the synchronous
# engine):
#  - the kernel's per-process I/O accounting (/proc/PID/io read_bytes) of the
#    batch's workers, sampled until they exit
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

# sample_workers N OUT: wait for N ranread workers, then sample their
# read_bytes every 20 ms until they are gone; OUT gets "pid bytes" lines
sample_workers() {
  local want=$1 out=$2 pids="" p v deadline alive
  declare -A last=()
  deadline=$(( $(now_ms) + 20000 ))
  while [ "$(echo "$pids" | grep -c .)" -lt "$want" ] && [ "$(now_ms)" -lt "$deadline" ]; do
    pids=$(worker_pids)
    sleep 0.02
  done
  deadline=$(( $(now_ms) + 30000 ))
  while [ "$(now_ms)" -lt "$deadline" ]; do
    alive=0
    for p in $pids; do
      v=$(awk '$1 == "read_bytes:" { print $2 }' "/proc/$p/io" 2>/dev/null) || continue
      [ -n "$v" ] && { last[$p]=$v; alive=1; }
    done
    [ $alive = 0 ] && break
    sleep 0.02
  done
  : > "$out"
  for p in "${!last[@]}"; do echo "$p ${last[$p]}" >> "$out"; done
}

# honest LABEL WORKERS ENGINE BLOCK_SIZE SQL-ARGS
honest() {
  local label=$1 nworkers=$2 engine=$3 bs=$4 args=$5 s0 s1 reads want procbytes devbytes
  [ -n "$STAT" ] && s0=$(sectors_read)
  bg_psql rr_honest_run "SET ranread.engine = '$engine'" \
    "SELECT 'reads=' || reads FROM ranread_run($args, block_size => $bs)"
  sample_workers "$nworkers" "$WORK/io.txt"
  wait_pid "$BG_PID" 30
  [ -n "$STAT" ] && s1=$(sectors_read)
  reads=$(bg_output rr_honest_run | sed -n 's/^reads=//p' | head -1)
  want=$(( ${reads:-0} * bs ))
  cmp_ok "${reads:-0}" '>' 1000 "$label: the batch reports reads (${reads:-none} x ${bs:-?} bytes)"
  procbytes=$(awk '{ s += $2 } END { printf "%.0f\n", s }' "$WORK/io.txt")
  is "$(grep -c . "$WORK/io.txt")" "$nworkers" "$label: the read_bytes of its $nworkers workers were sampled"
  cmp_ok "$procbytes" '>=' "$(( want * 95 / 100 ))" \
    "$label: the workers' /proc/PID/io read_bytes cover the reported reads ($procbytes of $want bytes)"
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
