#!/bin/bash
# I/O buffers in huge pages (ranread.huge_pages, src/run/iobuf.c), and a true
# record of what each batch got.  The witness is the kernel: AnonHugePages in
# /proc/PID/smaps_rollup of the batch's workers while they run.
#  - on (the default): every worker's buffers are huge pages where the kernel
#    can collapse them (Linux >= 6.1 with transparent huge pages built in);
#    the batch records buffer_pages 'huge'.  Where it cannot, the batch
#    records 'small' and the caller gets a NOTICE saying so.
#  - off: base pages, recorded 'small', no NOTICE.
#  - both layouts run, and each batch says which it had: buffer_pages, and
#    buffers_registered (whether io_uring holds them registered, which the
#    kernel shows as VmPin in /proc/PID/status: registration is charged to
#    the postgres user's RLIMIT_MEMLOCK, so it can fail, and then the batch
#    must say so); the start NOTICE's detail names the layout.
. "$(dirname "$0")/lib/lib.sh"
. "$(dirname "$0")/lib/faults.bash"

setup_db rr_huge
setup_target 64MB

# can this kernel collapse anonymous memory into huge pages (MADV_COLLAPSE)?
kver=$(uname -r | awk -F. '{ print $1 * 1000 + $2 }')
CAN_COLLAPSE=no
[ -d /sys/kernel/mm/transparent_hugepage ] && [ "$kver" -ge 6001 ] && CAN_COLLAPSE=yes
THP=$(sed -n 's/.*\[\(.*\)\].*/\1/p' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)
diag "kernel $(uname -r), transparent_hugepage/enabled: ${THP:-none}, MADV_COLLAPSE expected: $CAN_COLLAPSE"

# huge_kb_of_workers: AnonHugePages (kB) summed over the running workers;
# "none" unless there are exactly 2 of them and each smaps_rollup was read
huge_kb_of_workers() {
  local p n=0 sum=0 kb
  for p in $(worker_pids); do
    kb=$(awk '$1 == "AnonHugePages:" { print $2 }' "/proc/$p/smaps_rollup" 2>/dev/null)
    [ -n "$kb" ] || { echo none; return; }
    n=$((n + 1)); sum=$((sum + kb))
  done
  [ "$n" -eq 2 ] && echo "$sum" || echo none
}

# pinned_of_workers: "t" when every running worker has pinned memory
# (VmPin: io_uring's registered buffers), "f" when none has, else "some"
pinned_of_workers() {
  local p kb pinned=0 n=0
  for p in $(worker_pids); do
    kb=$(awk '$1 == "VmPin:" { print $2 }' "/proc/$p/status" 2>/dev/null)
    n=$((n + 1)); [ "${kb:-0}" -gt 0 ] && pinned=$((pinned + 1))
  done
  if [ "$pinned" -eq 0 ]; then echo f; elif [ "$pinned" -eq "$n" ]; then echo t; else echo some; fi
}

# run_with SETTING: a batch of 2 processes x QD8 x 64 kB on 2 workers (512
# kB of buffers each, one 2 MB page each when huge) in the background,
# stopped once its workers are read (a batch of a fixed length could end
# before, on a loaded machine); sets HUGE_KB and PINNED (while running),
# PAGES ('stopped:' and its buffer_pages) and REGISTERED (recorded),
# NOTICES (what the caller was told about pages) and DETAIL (the start
# NOTICE's detail)
run_with() {
  bg_psql "rr_huge_$1" "SET ranread.huge_pages = $1" "SET client_min_messages = notice" \
    "SELECT status FROM ranread_run(2, duration => '30s', block_size => 65536, queue_depth => 8, workers => 2)"
  if wait_running 15; then HUGE_KB=$(huge_kb_of_workers); PINNED=$(pinned_of_workers); else HUGE_KB=none; PINNED=none; fi
  q "SELECT ranread_stop()" >/dev/null
  wait_pid "$BG_PID" 30
  PAGES=$(q "SELECT status || ':' || coalesce(buffer_pages, 'null') FROM ranread_batches WHERE batch = $(latest_batch)")
  REGISTERED=$(q "SELECT buffers_registered FROM ranread_batches WHERE batch = $(latest_batch)")
  NOTICES=$(bg_output "rr_huge_$1" | grep -c 'base pages, not huge pages')
  DETAIL=$(bg_output "rr_huge_$1" | sed -n 's/^DETAIL:  .* I\/O buffers: \(.*\)\. Memory: .*/\1/p')
  diag "huge_pages = $1: workers' AnonHugePages $HUGE_KB kB, VmPin in all: $PINNED; recorded $PAGES, registered $REGISTERED; $NOTICES notice(s); NOTICE: I/O buffers $DETAIL"
}

run_with on
# what the batch records, what the caller is told and what the kernel shows
# must agree, whatever the kernel could give
if [ "$PAGES" = "stopped:huge" ]; then
  cmp_ok "${HUGE_KB/none/-1}" '>=' 4096 "huge_pages on, recorded 'huge': the kernel shows each of the 2 workers holding a 2 MB huge page"
  is "$NOTICES" 0 "... and the caller is not told of base pages"
else
  is "$NOTICES" 1 "huge_pages on, recorded '$PAGES': the caller gets a NOTICE about base pages"
  cmp_ok "${HUGE_KB/none/999999}" '<' 4096 "... and the kernel shows fewer huge pages than the buffers need"
fi
# where MADV_COLLAPSE exists, huge pages are what a batch gets
if [ "$CAN_COLLAPSE" = yes ]; then
  is "$PAGES" "stopped:huge" "huge_pages on, Linux >= 6.1 with transparent huge pages: the batch records buffer_pages 'huge'"
fi
is "$REGISTERED" "${PINNED/some/f}" "huge_pages on: buffers_registered ($REGISTERED) is what the kernel shows of the workers' pinned buffers ($PINNED)"
if [ "$PAGES:$REGISTERED" = "stopped:huge:t" ]; then
  is "$DETAIL" "in 2 MB huge pages, registered with io_uring" "... and the start NOTICE names the layout: huge pages, registered"
else
  ok $([ -n "$DETAIL" ]; echo $?) "... and the start NOTICE names the layout: $DETAIL"
fi

run_with off
is "$PAGES" "stopped:small" "huge_pages off: the batch records buffer_pages 'small'"
# (with transparent_hugepage "always", other memory of a worker may be huge)
if [ "$THP" != always ]; then
  is "$HUGE_KB" 0 "... and the kernel shows no huge page in the workers"
fi
is "$NOTICES" 0 "... and no NOTICE (base pages were asked for)"
is "$REGISTERED:$PINNED" "f:f" "... and buffers_registered false: base pages are never registered, and no worker pins any"
is "$DETAIL" "in 4 kB base pages, not registered" "... and the start NOTICE names the layout: base pages, not registered"

done_testing
