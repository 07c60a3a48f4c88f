#!/bin/bash
# ranread_progress's slots (docs/design.md, "Progress"): 32 in the cluster,
# one per backend that runs something.  Sessions that ran a batch once and
# stay connected, idle, keep none from the sessions that run something now:
#  - 40 sessions, one after another, each runs a short batch and stays
#    connected (more sessions than slots)
#  - then a batch in yet another session is still in ranread_progress, its
#    I/Os growing, and so is a setup in another while it runs
#  - the idle sessions show no row
. "$(dirname "$0")/lib/lib.sh"
. "$(dirname "$0")/lib/faults.bash"
trap 'faults_cleanup' EXIT

setup_db rr_progress_slots
setup_target 64MB

n=0
for i in $(seq 1 40); do
  bg_psql "rr_idle_$i" "SELECT count(*) FROM ranread_run(1, 20)" "SELECT pg_sleep(300)"
  deadline=$((SECONDS + 30))
  until grep -q '^1$' "$WORK/rr_idle_$i.out" 2>/dev/null || [ $SECONDS -ge $deadline ]; do sleep 0.05; done
  grep -q '^1$' "$WORK/rr_idle_$i.out" && n=$((n + 1))
done
is "$n|$(q "SELECT count(*) FROM pg_stat_activity WHERE application_name LIKE 'rr_idle_%'")" "40|40" \
   "40 sessions each ran a batch and stay connected, idle (32 slots)"
is "$(q "SELECT count(*) FROM ranread_progress")" 0 "... and none of them shows in ranread_progress"

bg_psql rr_now "SELECT batch FROM ranread_run(1, duration => '30s')"
RUN=$BG_PID
wait_running 30
a=$(q "SELECT ios FROM ranread_progress_full WHERE kind = 'run'")
sleep 2
b=$(q "SELECT ios FROM ranread_progress_full WHERE kind = 'run'")
is "$([ -n "$a" ] && [ -n "$b" ] && [ "$b" -gt "$a" ] && echo grows)" grows \
   "a batch in a 41st session is in ranread_progress, its I/Os growing ($a, then $b)"
q "SELECT ranread_stop()" >/dev/null
wait_pid "$RUN" 30

bg_psql rr_setup "SELECT target FROM ranread_setup('3GB', target => 'big')"
SETUP=$BG_PID
deadline=$((SECONDS + 30))
seen=""
while pid_alive "$SETUP" && [ $SECONDS -lt $deadline ]; do
  seen=$(q "SELECT bytes_total FROM ranread_progress_full WHERE kind = 'setup' AND target = 'big'")
  [ -n "$seen" ] && break
  sleep 0.1
done
is "$seen" 3221225472 "... and so is a setup in a 42nd session while it writes"
wait_pid "$SETUP" 120

done_testing
