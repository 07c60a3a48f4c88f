#!/bin/bash
# I/O buffers in huge pages (ranread.huge_pages, src/iobuf.c), and a true
# record of what each batch got.  The witness is the kernel: AnonHugePages in
# /proc/PID/smaps_rollup of the batch's workers while they run.
#  - on (the default): every worker's buffers are huge pages where the kernel
#    can collapse them (Linux >= 6.1 with transparent huge pages built in);
#    the batch records buffer_pages 'huge'.  Where it cannot, the batch
#    records 'small' and the caller gets a NOTICE saying so.
#  - off: base pages, recorded 'small', no NOTICE.
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

# run_with SETTING: a 3 s batch of 2 processes x QD8 x 64 kB on 2 workers
# (512 kB of buffers each, one 2 MB page each when huge) in the background;
# sets HUGE_KB (while running), PAGES (recorded) and NOTICES (what the caller
# was told about pages)
run_with() {
  bg_psql "rr_huge_$1" "SET ranread.huge_pages = $1" \
    "SELECT status FROM ranread_run(2, duration => '3s', block_size => 65536, queue_depth => 8, workers => 2)"
  if wait_running 15; then HUGE_KB=$(huge_kb_of_workers); else HUGE_KB=none; fi
  wait_pid "$BG_PID" 30
  PAGES=$(q "SELECT status || ':' || coalesce(buffer_pages, 'null') FROM ranread_batches WHERE batch = $(latest_batch)")
  NOTICES=$(bg_output "rr_huge_$1" | grep -c 'base pages, not huge pages')
  diag "huge_pages = $1: workers' AnonHugePages $HUGE_KB kB, recorded $PAGES, $NOTICES notice(s)"
}

run_with on
# what the batch records, what the caller is told and what the kernel shows
# must agree, whatever the kernel could give
if [ "$PAGES" = "completed:huge" ]; then
  cmp_ok "${HUGE_KB/none/-1}" '>=' 4096 "huge_pages on, recorded 'huge': the kernel shows each of the 2 workers holding a 2 MB huge page"
  is "$NOTICES" 0 "... and the caller is not told of base pages"
else
  is "$NOTICES" 1 "huge_pages on, recorded '$PAGES': the caller gets a NOTICE about base pages"
  cmp_ok "${HUGE_KB/none/999999}" '<' 4096 "... and the kernel shows fewer huge pages than the buffers need"
fi
# where MADV_COLLAPSE exists, huge pages are what a batch gets
if [ "$CAN_COLLAPSE" = yes ]; then
  is "$PAGES" "completed:huge" "huge_pages on, Linux >= 6.1 with transparent huge pages: the batch records buffer_pages 'huge'"
fi

run_with off
is "$PAGES" "completed:small" "huge_pages off: the batch records buffer_pages 'small'"
# (with transparent_hugepage "always", other memory of a worker may be huge)
if [ "$THP" != always ]; then
  is "$HUGE_KB" 0 "... and the kernel shows no huge page in the workers"
fi
is "$NOTICES" 0 "... and no NOTICE (base pages were asked for)"

done_testing
