#!/bin/bash
# The engine of a batch is chosen once, by its leader, and named alike
# everywhere: the leader's NOTICE ("ranread batch N: ENGINE engine, W
# workers for P processes ...") and the batch's engine in ranread_summary
# (what the history records) say the same, and it is the engine that ran:
#  - one process at queue depth 1: sync (one I/O in flight: a plain pread
#    costs less than a ring)
#  - two processes on two workers at queue depth 1: sync, each worker with
#    a single I/O in flight
#  - three processes on two workers: io_uring for both, also for the worker
#    that drives one process
#  - one process at queue depth 4: io_uring
#  - ranread.engine = sync: sync, one worker per process
#  - a mix of two one-process groups on two workers at queue depth 1: sync;
#    with one group at queue depth 2: io_uring
#  - the commit test's batches (one process at queue depth 1 each): sync;
#    their leader's lines are DEBUG1 (a step of a larger call says one line)
# Where io_uring is not available, the io_uring cases are skipped.
. "$(dirname "$0")/lib/lib.sh"

DB=rr_engines
trap 'psql -qX -d postgres -c "DROP DATABASE IF EXISTS $DB" >/dev/null 2>&1' EXIT
setup_db "$DB"
q "SELECT target FROM ranread_setup('16MB')" >/dev/null

# notice_engine SQL [SETTING]: run a batch with NOTICEs on; prints "BATCH
# NOTICE_ENGINE SUMMARY_ENGINE" for every batch the statement ran
notice_engine() {
  local out
  out=$(psql -qAtX -d "$DB" -c "SET client_min_messages = notice" ${2:+-c "SET $2"} -c "$1" 2>&1 >/dev/null)
  # "sync engine, ..." or "sync engine (why it was chosen), ..."
  echo "$out" | sed -nE 's/^(NOTICE|DEBUG): +ranread batch ([0-9]+): ([^ ]+) engine[ ,].*/\2 \3/p' |
    while read -r batch engine; do
      echo "$batch $engine $(q "SELECT engine FROM ranread_summary_full WHERE batch = $batch")"
    done
}

# agree WHAT EXPECTED SQL [SETTING]: every batch of SQL ran EXPECTED, and
# its NOTICE and ranread_summary say so
agree() {
  local what=$1 want=$2 lines bad
  lines=$(notice_engine "$3" "${4:-}")
  [ -n "$lines" ] || { ok 1 "$what: a batch ran and its NOTICE names its engine"; return; }
  bad=$(echo "$lines" | awk -v w="$want" '$2 != w || $3 != w')
  [ -z "$bad" ]
  ok $? "$what: the NOTICE and ranread_summary both say $want ($(echo "$lines" | wc -l) batch(es))"
  [ -z "$bad" ] || echo "$bad" | sed 's/^/#   batch, NOTICE, summary: /'
}

agree "one process at queue depth 1" sync "SELECT * FROM ranread_run(1, 200)"
agree "two processes on two workers at queue depth 1" sync "SELECT * FROM ranread_run(2, 200, workers => 2)"
agree "ranread.engine = sync, two processes" sync "SELECT * FROM ranread_run(2, 200)" "ranread.engine = sync"
agree "a mix of two one-process groups on two workers at queue depth 1" sync \
  "SELECT * FROM ranread_mix('[{\"label\": \"a\", \"processes\": 1}, {\"label\": \"b\", \"processes\": 1}]', duration => '0.3s', workers => 2)"
agree "the commit test, one batch per method" sync \
  "SELECT * FROM ranread_commit_test(duration => '0.2 s', methods => '{fdatasync, open_datasync}')" "client_min_messages = debug1"

if psql -qAtX -d "$DB" -c "SET ranread.engine = io_uring" -c "SELECT 1 FROM ranread_run(1, 10, queue_depth => 2)" >/dev/null 2>&1; then
  agree "three processes on two workers" io_uring "SELECT * FROM ranread_run(3, 200, workers => 2)"
  agree "one process at queue depth 4" io_uring "SELECT * FROM ranread_run(1, 200, queue_depth => 4)"
  agree "a mix of two one-process groups on two workers, one at queue depth 2" io_uring \
    "SELECT * FROM ranread_mix('[{\"label\": \"a\", \"processes\": 1}, {\"label\": \"b\", \"processes\": 1, \"queue_depth\": 2}]', duration => '0.3s', workers => 2)"
  is "$(q "SELECT count(*) FROM ranread_summary_full WHERE engine NOT IN ('io_uring', 'sync')")" 0 \
    "no batch records more than one engine"
else
  for what in "three processes on two workers" "one process at queue depth 4" \
              "a mix with one group at queue depth 2" "no batch records more than one engine"; do
    TESTS_RUN=$((TESTS_RUN + 1))
    echo "ok $TESTS_RUN # SKIP io_uring is not available here: $what"
  done
fi

done_testing
