#!/bin/bash
# The NOTICEs of a batch say what its row in the history says, and few:
#  - the start NOTICE names the engine recorded, and for a mix each group's
#    queue depth
#  - the end NOTICE gives the measured time, not the duration asked for: a
#    stop after about 3 s of 8 s says so, and so does a steady_state early end
#  - "1 process"; with ranread.timing = off the latency is "not measured"
#  - a batch that SNIA's rule finds not steady says so, the rule stated and
#    the part that failed named; one too short to judge (rounds under 2 s)
#    says that; one that steady_state ended early (ended_steady) says which
#    is which
#  - inside a study, a sweep and a commit test: one NOTICE line per step, no
#    DETAIL (the batches' own lines are DEBUG1)
#  - an error from a PL/pgSQL function keeps its SQLSTATE, message and hint,
#    and its CONTEXT names the function called but no ranread_internal frame
. "$(dirname "$0")/lib/lib.sh"

DB=rr_notices
trap 'psql -qX -d postgres -c "DROP DATABASE IF EXISTS $DB" >/dev/null 2>&1' EXIT
setup_db "$DB"
q "SELECT target FROM ranread_setup('32MB')" >/dev/null

# msgs SQL [SETTING]: the messages (stderr) of SQL at client_min_messages = notice
msgs() {
  psql -qAtX -d "$DB" -c "SET client_min_messages = notice" ${2:+-c "SET $2"} -c "$1" 2>&1 >/dev/null
}
last_batch() { q "SELECT max(batch) FROM ranread_batches"; }

# one process, by duration
out=$(msgs "SELECT * FROM ranread_run(1, duration => '1s')")
b=$(last_batch)
echo "$out" | grep -qE "^NOTICE:  ranread batch $b: $(q "SELECT engine FROM ranread_batches WHERE batch = $b") engine( \([^)]*\))?, 1 worker for 1 process, queue depth 1$"
ok $? "the start NOTICE names the engine the batch recorded"
echo "$out" | grep -qE "^NOTICE:  batch $b: 1 process, " && ! echo "$out" | grep -q "1 processes"
ok $? "one process is \"1 process\""

# a stop after about 3 s of 8
(sleep 3.1; psql -qAtX -d "$DB" -c "SELECT ranread_stop()" >/dev/null) &
out=$(msgs "SELECT * FROM ranread_run(1, duration => '8s')")
wait
b=$(last_batch)
want="$(q "SELECT round(seconds::numeric, 3) FROM ranread_batches WHERE batch = $b") s of 00:00:08, stopped"
echo "$out" | grep "^NOTICE:  batch $b: 1 process, " | grep -qF ", $want"
ok $? "a stopped batch's NOTICE gives its measured time: ($want)"
[ "$(q "SELECT status FROM ranread_batches WHERE batch = $b")" = stopped ]
ok $? "... and the batch is recorded as stopped"

# a steady_state early end
out=$(msgs "SELECT * FROM ranread_run(1, duration => '20s', steady_state => '50%/3s')")
b=$(last_batch)
if [ "$(q "SELECT ended_steady FROM ranread_batches WHERE batch = $b")" = t ]; then
  want="$(q "SELECT round(seconds::numeric, 3) FROM ranread_batches WHERE batch = $b") s of 00:00:20, ended steady"
  echo "$out" | grep -qF ", $want"
  ok $? "a steady early end's NOTICE gives its measured time: ($want)"
else
  TESTS_RUN=$((TESTS_RUN + 1)); echo "ok $TESTS_RUN # SKIP this machine was not steady within 50% for 3 s"
fi

# timing off
out=$(msgs "SELECT * FROM ranread_run(2, 300)" "ranread.timing = off")
echo "$out" | grep -qE '^NOTICE:  batch [0-9]+: 2 processes, random 8 KiB reads, IOPS=[0-9]+, BW=[0-9.]+MiB/s, latency not measured, [0-9.]+ s$' &&
  ! echo "$out" | grep -qE "0\.000? ?ms"
ok $? "without timing the latency is \"not measured\", not 0.00ms"

# a mix: each group's queue depth
io_uring=0
psql -qAtX -d "$DB" -c "SELECT 1 FROM ranread_run(1, 10, queue_depth => 2)" >/dev/null 2>&1 && io_uring=1
if [ $io_uring = 1 ]; then
  out=$(msgs "SELECT * FROM ranread_mix('[{\"label\": \"a\", \"processes\": 1}, {\"label\": \"b\", \"processes\": 2, \"queue_depth\": 4}]', duration => '1s')")
  b=$(last_batch)
  want="queue depth $(q "SELECT string_agg(format('%s (%s)', g->>'queue_depth', g->>'label'), ', ' ORDER BY n)
                       FROM ranread_batches, jsonb_array_elements(mix) WITH ORDINALITY AS x(g, n) WHERE batch = $b")"
  line=$(echo "$out" | grep "^NOTICE:  ranread batch $b: .* engine, ")
  [ "${line##*for 3 processes, }" = "$want" ] && [ "$want" = "queue depth 1 (a), 4 (b)" ]
  ok $? "a mix's start NOTICE gives each group's queue depth as recorded: $want"
  echo "$out" | grep -q "a, 1 process random 8 KiB QD1: " && echo "$out" | grep -q "b, 2 processes random 8 KiB QD4: "
  ok $? "... and its end NOTICE each group's"
else
  for w in "a mix's start NOTICE gives each group's queue depth" "... and its end NOTICE each group's"; do
    TESTS_RUN=$((TESTS_RUN + 1)); echo "ok $TESTS_RUN # SKIP io_uring is not available here: $w"
  done
fi

# not steady: the worker paused for a while in the middle of a 10 s run
# (five rounds of 2 s: one of them about half)
psql -qAtX -d "$DB" -c "SET client_min_messages = notice" -c "SELECT * FROM ranread_run(1, duration => '10s')" \
  2> "$TMPDIR_TEST/49_unsteady.err" >/dev/null &
runner=$!
wait_for 20 "SELECT EXISTS (SELECT FROM pg_stat_activity WHERE backend_type = 'ranread worker')"
sleep 4
wpid=$(psql -qAtX -d postgres -c "SELECT pid FROM pg_stat_activity WHERE backend_type = 'ranread worker' LIMIT 1")
[ -n "$wpid" ] && kill -STOP "$wpid" && sleep 1.5 && kill -CONT "$wpid"
wait $runner
b=$(last_batch)
verdict=$(q "SELECT steady, round(100 * steady_excursion::numeric, 1) FROM ranread_batches WHERE batch = $b")
is "${verdict%%|*}" f "a batch paused for 1.5 s of 10 is recorded not steady"
grep -qF "; not steady (SNIA's rule: five rounds whose IOPS range over at most 20% of their mean, with a trend across them within 10% of it): the rounds' IOPS range over ${verdict#*|}% of their mean, more than 20%" "$TMPDIR_TEST/49_unsteady.err"
ok $? "... and its end NOTICE says so, the rule stated and the part that failed named, with the recorded excursion (${verdict#*|}%)" ||
  diag "$(cat "$TMPDIR_TEST/49_unsteady.err")"

# too short to judge: a 5 s run has rounds of 1 s, which one second's
# stall of a shared machine decides
out=$(msgs "SELECT * FROM ranread_run(1, duration => '5s')")
b=$(last_batch)
is "$(q "SELECT coalesce(steady::text, 'NULL') FROM ranread_batches WHERE batch = $b")" NULL "a 5 s run is too short for SNIA's verdict: steady is NULL"
echo "$out" | grep -qF "; too short to judge steadiness (SNIA's rule: five rounds whose IOPS range over at most 20% of their mean, with a trend across them within 10% of it, each of at least 2 s and 100 I/Os): its rounds would be 1.0 s"
ok $? "... and its end NOTICE says it is too short to judge, not that it is not steady" || diag "$out"

# ended steady and not steady: a pause at the start, then steady_state's
# window holds, but SNIA's five rounds over the whole run see the pause
psql -qAtX -d "$DB" -c "SET client_min_messages = notice" -c "SELECT * FROM ranread_run(1, duration => '40s', steady_state => '50%/10s')" \
  2> "$TMPDIR_TEST/49_both.err" >/dev/null &
runner=$!
wait_for 20 "SELECT EXISTS (SELECT FROM pg_stat_activity WHERE backend_type = 'ranread worker')"
sleep 0.5
wpid=$(psql -qAtX -d postgres -c "SELECT pid FROM pg_stat_activity WHERE backend_type = 'ranread worker' LIMIT 1")
[ -n "$wpid" ] && kill -STOP "$wpid" && sleep 1.5 && kill -CONT "$wpid"
wait $runner
b=$(last_batch)
if [ "$(q "SELECT ended_steady AND NOT steady FROM ranread_batches WHERE batch = $b")" = t ]; then
  grep -qF "; steady_state 50%/10s held for its last 10 s (ended_steady), but by SNIA's rule on all of it the run was not steady (SNIA's rule: " "$TMPDIR_TEST/49_both.err"
  ok $? "a run that ended steady but is not steady by SNIA's rule says both, and which is which"
else
  TESTS_RUN=$((TESTS_RUN + 1)); echo "ok $TESTS_RUN # SKIP batch $b did not end steady and unsteady ($(q "SELECT ended_steady || '/' || coalesce(steady::text, 'null') FROM ranread_batches WHERE batch = $b"))"
fi

# batch_lines: a batch's own lines among the messages on stdin: its leader's
# NOTICEs, and DETAILs of NOTICEs (a WARNING's DETAIL is no step's line)
batch_lines() {
  awk '/^(NOTICE|WARNING|ERROR|INFO|LOG|DEBUG): / { notice = /^NOTICE: / }
       /^NOTICE:  ranread batch / || /^NOTICE:  [0-9]+ process/ || (/^DETAIL: / && notice) { n++ }
       END { print n + 0 }'
}

# one line per step
out=$(msgs "SELECT * FROM ranread_study(processes => '{1,2,3}', block_size => '{4096,8192}', duration => '0.2s')")
is "$(echo "$out" | grep -c '^NOTICE: ')" 8 "a study of 6 points says 8 NOTICE lines: one per point, its start and its end"
is "$(echo "$out" | batch_lines)" 0 "... and none of its batches' own lines (no DETAIL to a NOTICE)"
out=$(msgs "SELECT * FROM ranread_sweep(start => 1, max_processes => 4, duration => '0.2s')")
steps=$(q "SELECT steps FROM ranread_sweeps ORDER BY sweep DESC LIMIT 1")
is "$(echo "$out" | grep -c '^NOTICE:  sweep [0-9]*, step ')" "$steps" "a sweep says one NOTICE per step ($steps)"
is "$(echo "$out" | batch_lines)" 0 "... and none of its batches' own lines"
out=$(msgs "SELECT * FROM ranread_commit_test(duration => '0.1s', methods => '{fdatasync,fsync}')")
is "$(echo "$out" | grep -c '^NOTICE:  ranread commit test [0-9]*, ')" \
   "$(q "SELECT count(DISTINCT (test, method, writes, write_kb)) FROM ranread_commit_summary WHERE commit_test = (SELECT max(commit_test) FROM ranread_batches)")" \
  "a commit test says one NOTICE per test (one for all the rounds of a method's one 8 kB write)"
is "$(echo "$out" | batch_lines)" 0 "... and none of its batches' own lines"

# an export of the summary says its units and that its figures are whole
EXP=$(pg_owned_dir export)
out=$(msgs "SELECT ranread_export('$EXP', 'csv')")
f=$(ls "$EXP"/ranread_*.csv 2>/dev/null | head -1)
echo "$out" | grep -q "^NOTICE:  ranread_export wrote $f with every figure whole, as recorded$" &&
  echo "$out" | grep -q '^DETAIL:  Latencies in ms (the \*_ms columns), mbps in MiB/s, seconds in s, iops in I/Os per second'
ok $? "ranread_export's csv says where it wrote, that its figures are whole and their units"

# errors from PL/pgSQL: no internal frames, the function called kept, also
# as a session's first call
for call in "ranread_study_summary(987654)|22023|invalid study 987654 for ranread_study_summary" \
            "ranread_compare_chart(sweeps => '{987654}')|22023|invalid sweep 987654 for ranread_compare_chart" \
            "ranread_study_heat(NULL)|22004|study of ranread_study_heat must not be null"; do
  IFS='|' read -r sql code msg <<< "$call"
  fn=${sql%%(*}
  err=$(psql -qX -d "$DB" -v VERBOSITY=verbose -c "SELECT $sql" 2>&1 >/dev/null)
  echo "$err" | grep -q "^ERROR:  $code: $msg" && echo "$err" | grep -q '^HINT:  ' &&
    echo "$err" | grep -qE "^CONTEXT:  (PL/pgSQL function public.$fn\(|SQL function \"$fn\")" && ! echo "$err" | grep -q ranread_internal
  r=$?
  ok $r "an error from $fn keeps its SQLSTATE $code, message and hint, CONTEXT names $fn and no ranread_internal frame"
  [ $r = 0 ] || echo "$err" | sed 's/^/#   /'
done

done_testing
