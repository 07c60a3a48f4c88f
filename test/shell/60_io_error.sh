#!/bin/bash
# An I/O error during a run: a segment file of the target is truncated behind
# the extension's back while a batch reads it.  The batch ends with status
# 'failed' and a message, the caller gets its row, the workers exit, and the
# server does not crash.  Both engines: io_uring on a two-segment target
# (segment 1 truncated), synchronous on a one-segment target (segment 0 cut
# to half).
. "$(dirname "$0")/lib/lib.sh"
. "$(dirname "$0")/lib/faults.bash"

setup_db rr_ioerr
DATA=$(data_dir)
setup_target 1100MB two_segs
setup_target 64MB one_seg
is "$(q "SELECT string_agg(target || ':' || state, ',' ORDER BY target) FROM ranread_targets")" \
  "one_seg:ready,two_segs:ready" "two targets are ready"
SEG0_TWO="$DATA/$(target_path two_segs)"
SEG0_ONE="$DATA/$(target_path one_seg)"
[ -f "$SEG0_TWO.1" ]
ok $? "the 1100 MB target has a second segment file"

CKPT=$(checkpointer_pid)
MARK=$(log_mark)

# truncated_run LABEL TARGET ENGINE FILE BYTES: truncate FILE to BYTES while
# a 30 s batch reads TARGET with ENGINE, then check how the batch ended
truncated_run() {
  local label=$1 target=$2 engine=$3 file=$4 bytes=$5 name row batch t0
  name="rr_$target"
  bg_psql "$name" "SET ranread.engine = '$engine'" \
    "SELECT batch || '|' || status || '|' || reads FROM ranread_run(2, duration => '30s', target => '$target')"
  wait_running 30
  ok $? "$label: a 30 s batch reads the target"
  batch=$(q "SELECT max(batch) FROM ranread_batches WHERE status = 'running'")
  truncate -s "$bytes" "$file"
  t0=$(now_ms)
  wait_pid "$BG_PID" 10
  ok $? "$label: the batch ends soon after the file is truncated ($(secs "$t0" "$(now_ms)") s)"
  row=$(bg_output "$name" | grep -E '^[0-9]+\|' | head -1)
  is "$(echo "$row" | cut -d'|' -f1-2)" "$batch|failed" "$label: the caller gets its row, with status 'failed'"
  bg_output "$name" | grep -q '^WARNING: .*failed'
  ok $? "$label: ... and a WARNING saying the batch failed"
  bg_output "$name" | grep -E '^(ERROR|WARNING)' | sed 's/^/#   /'
  wait_workers_gone 3
  ok $? "$label: every worker exits (${GONE_MS} ms)"
  is "$(q "SELECT status FROM ranread_batches WHERE batch = ${batch:-0}")" failed "$label: the batch is recorded 'failed'"
  is "$(q "SELECT message ~ '$target' FROM ranread_batches WHERE batch = ${batch:-0}")" t \
    "$label: ... with a message naming the target"
  diag "message: $(q "SELECT message FROM ranread_batches WHERE batch = ${batch:-0}")"
  cmp_ok "$(q "SELECT reads FROM ranread_batches WHERE batch = ${batch:-0}")" '>' 0 \
    "$label: ... and the reads it completed before the error"
  is "$(q "SELECT count(*) || '|' || string_agg(DISTINCT status, ',') FROM ranread_results WHERE batch = ${batch:-0}")" "2|failed" \
    "$label: ... and a 'failed' row per process"
  no_crash "$MARK" "$label: the server did not crash (no PANIC, no process terminated by a signal in its log)"
}

truncated_run "io_uring, segment 1 truncated" two_segs io_uring "$SEG0_TWO.1" 16M
truncated_run "sync, segment 0 cut to half" one_seg sync "$SEG0_ONE" 32M

is "$(q "SELECT string_agg(target || ':' || state, ',' ORDER BY target) FROM ranread_targets")" \
  "one_seg:damaged,two_segs:damaged" "ranread_targets shows both targets 'damaged'"
msg=$(psql -qAtX -d "$DB" -v VERBOSITY=verbose -c "SELECT * FROM ranread_run(1, 100, target => 'one_seg')" 2>&1)
echo "$msg" | grep -Eq '^ERROR: +55000: '
ok $? "ranread_run refuses a damaged target (SQLSTATE 55000)"
echo "$msg" | grep -Eq '^HINT: .*ranread_setup'
ok $? "... with a hint to run ranread_setup"
setup_target 64MB one_seg
is "$(q "SELECT status || '|' || reads FROM ranread_run(2, 300, target => 'one_seg')")" "completed|600" \
  "after ranread_setup the target runs batches again"
q "SELECT ranread_purge('two_segs')" >/dev/null
is "$(ranread_workers)" 0 "no ranread worker is left at the end"
is "$(checkpointer_pid)" "$CKPT" "the server never restarted (the checkpointer is the one it started with)"
no_crash "$MARK" "... and nothing crashed (no PANIC, no process terminated by a signal in its log)"
done_testing
