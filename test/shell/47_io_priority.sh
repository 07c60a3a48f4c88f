#!/bin/bash
# io_priority reaches the workers (docs/keeping-watch.md, "Keeping watch"):
# while a batch runs, ioprio_get(2) of each ranread worker's PID gives the
# class and level the batch asked for:
#  - ranread_run(..., io_priority => 'best-effort:6') and 'idle': every
#    worker has that priority, and no other process of the server changed
#  - without io_priority the workers keep the server's own priority (the
#    leader backend's)
#  - ranread_probe runs its workers at best-effort:7 by default
#  - ranread_batches.io_priority records what each batch set ('idle',
#    'best-effort:N'; a class alone with its level, 4), NULL without
#  - 'realtime:0', which the server's user may not set (no CAP_SYS_ADMIN or
#    CAP_SYS_NICE), fails the batch before any I/O: an error naming
#    io_priority, the batch recorded failed with the reason
. "$(dirname "$0")/lib/lib.sh"
. "$(dirname "$0")/lib/faults.bash"
trap 'faults_cleanup' EXIT

setup_db rr_io_priority
setup_target 32MB
q "SELECT target FROM ranread_probe_setup('pg_default', '32MB')" >/dev/null

# ioprio_get(IOPRIO_WHO_PROCESS, pid) of each PID given, as CLASS:LEVEL,
# read with util-linux's ionice (a python with ctypes took seconds to start
# on a loaded machine, past the end of the batch it was to look at)
ioprio() {
  local pid out
  for pid in "$@"; do
    if ! out=$(ionice -p "$pid" 2>/dev/null); then echo error; continue; fi
    case "$out" in
      idle) echo "idle:0" ;;
      *": prio "*) echo "${out%%:*}:${out##* }" ;;
      *) echo "? $out" ;;
    esac
  done
}

# run SQL in the background, wait until its workers do I/O, and print the
# distinct priorities of the ranread workers, one a line
priorities_during() {
  bg_psql "$1" "$2"
  wait_running 30 || { echo "not running"; return; }
  # the PIDs first, then one python for all: its start can take seconds on
  # a loaded machine, longer than what is left of the batch
  local leader workers
  leader=$(session_pid "$1")
  workers=$(worker_pids)
  ioprio "$leader" $workers > "$WORK/$1.prio"
  head -1 "$WORK/$1.prio" > "$WORK/$1.leader"
  tail -n +2 "$WORK/$1.prio" | sort -u
  wait "$BG_PID"
}

# ranread_batches.io_priority of the last batch ('null' for NULL)
last_io_priority() { q "SELECT coalesce(io_priority, 'null') FROM ranread_batches ORDER BY batch DESC LIMIT 1"; }

SERVER_PRIO=$(ioprio "$(postmaster_pid)")
diag "the server's own I/O priority (the postmaster's): $SERVER_PRIO"

is "$(priorities_during be6 "SELECT status FROM ranread_run(2, duration => '6s', workers => 2, rate_iops => 200, io_priority => 'best-effort:6')")" \
  "best-effort:6" "with io_priority 'best-effort:6' every worker of the batch runs at best-effort level 6 (ioprio_get)"
is "$(bg_output be6 | tail -1)" completed "and the batch completes"
is "$(cat "$WORK/be6.leader")" "$SERVER_PRIO" "its leader backend keeps the server's priority: only the workers take the batch's"
is "$(ioprio "$(postmaster_pid)")" "$SERVER_PRIO" "and so does the postmaster"
is "$(last_io_priority)" "best-effort:6" "ranread_batches.io_priority records it"

is "$(priorities_during idle "SELECT status FROM ranread_run(1, duration => '6s', rate_iops => 200, io_priority => 'idle')")" \
  "idle:0" "with io_priority 'idle' the worker runs in the idle class"
is "$(last_io_priority)" "idle" "... recorded as idle"

is "$(priorities_during plain "SELECT status FROM ranread_run(1, duration => '6s', rate_iops => 200)")" \
  "$SERVER_PRIO" "without io_priority the worker keeps the server's own priority"
is "$(last_io_priority)" "null" "... and ranread_batches.io_priority is NULL"

is "$(priorities_during probe "SELECT status FROM ranread_probe(duration => '6s', rate_iops => 100)")" \
  "best-effort:7" "ranread_probe's worker runs at best-effort level 7 by default"
is "$(bg_output probe | tail -1)" completed "and the probe completes"
is "$(last_io_priority)" "best-effort:7" "... its batch recorded with io_priority best-effort:7"
q "SELECT status FROM ranread_run(1, 200, io_priority => 'BEST-EFFORT')" >/dev/null
is "$(last_io_priority)" "best-effort:4" "io_priority given as a class alone, in capitals, is recorded as the class and the level it set (best-effort:4)"
q "SELECT * FROM ranread_run_step('{\"groups\": [{\"processes\": 1}, {\"processes\": 1}], \"duration\": \"0.3s\", \"io_priority\": \"idle\"}')" >/dev/null
is "$(last_io_priority)" "idle" "a batch of two groups records its io_priority too"

# realtime: the server's user lacks the capability (checked: the test is
# meaningless for a server that has it)
if [ "$(runuser -u postgres -- python3 -c 'import ctypes; l = ctypes.CDLL(None, use_errno=True); print(l.syscall(251, 1, 0, (1 << 13) | 4))')" = 0 ]; then
  ok 0 "realtime is not refused here # SKIP the server's user may set the realtime class"
else
  msg=$(q_state "SELECT * FROM ranread_run(1, 100, io_priority => 'realtime:0')")
  echo "$msg" | grep -q "could not set io_priority 'realtime:0' for worker 1 of batch [0-9]*: Operation not permitted (realtime needs CAP_SYS_ADMIN or CAP_SYS_NICE"
  ok $? "io_priority 'realtime:0' without the capability fails the batch with an error naming io_priority and what it needs ($msg)"
  is "$(q "SELECT status || '|' || (message LIKE '%io_priority%') FROM ranread_batches ORDER BY batch DESC LIMIT 1")" "failed|true" \
    "the batch is recorded failed, with the reason"
  is "$(ranread_workers)" 0 "no worker outlives it"
fi

done_testing
