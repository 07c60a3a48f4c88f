#!/bin/bash
# ranread_blocks, which any role granted 'run' may call, is bounded and ends
# at its cancel (docs/design.md, "What any role may call" and "Failures").
# Before, it drew every offset into a tuplestore before returning the first:
# ranread_blocks(100, 1000000) under a 1 s statement_timeout returned after
# 6 s with 2.4 GB of temporary files, (1280, 1000000) ran minutes and wrote
# 31 GB.
#  - processes x n is at most 1000000: past it, 22023 before anything is
#    drawn, the error naming processes, n, their product and the limit
#  - at the limit it returns its 1000000 rows
#  - it ends at a statement_timeout and at pg_cancel_backend, in the FROM
#    clause and in the select list, within a second
#  - in the select list, rows come as they are drawn: LIMIT 3 gives 3 rows
#  - as a role granted 'run', the same
. "$(dirname "$0")/lib/lib.sh"
. "$(dirname "$0")/lib/faults.bash"

setup_db rr_blocks
setup_target 16MB
psql -qX -d postgres -c "DROP ROLE IF EXISTS rr_blocks_runner" -c "CREATE ROLE rr_blocks_runner" >/dev/null
q "SELECT ranread_grant('rr_blocks_runner', 'run')" >/dev/null

# timed SQL [ROLE]: "SQLSTATE|rows|ms" of one statement (SQLSTATE 00000 when
# it succeeds); its error and hint in $WORK/timed.msg
timed() {
  local out state ms
  out=$(psql -qAtX -d "$DB" -v VERBOSITY=verbose -c "SET client_min_messages = error" \
          ${2:+-c "SET ROLE $2"} -c '\timing on' -c "$1" 2>&1)
  # psql's own timing of the statement (the connection's start is not in it)
  ms=$(echo "$out" | sed -n 's/^Time: \([0-9]*\)\..*/\1/p' | tail -1)
  out=$(echo "$out" | grep -v '^Time: ')
  state=$(echo "$out" | sed -n 's/^ERROR:  \([0-9A-Z]\{5\}\):.*/\1/p' | head -1)
  echo "$out" | grep -E '^(ERROR|HINT)' > "$WORK/timed.msg"
  if [ -n "$state" ]; then echo "$state||$ms"; return; fi
  echo "00000|$(echo "$out" | tail -1)|$ms"
}

# --- the bound
for args in "100, 1000000" "1280, 1000000" "1001, 1000" "2048, 489"; do
  r=$(timed "SET statement_timeout = '1s'; SELECT count(*) FROM ranread_blocks($args)")
  is "${r%%|*}" 22023 "ranread_blocks($args) is refused with 22023"
  p=${args%%,*}; n=${args##* }
  grep -q "^ERROR:  22023: processes $p times n $n of ranread_blocks is $((p * n)) offsets, more than 1000000" "$WORK/timed.msg"
  ok $? "... naming processes, n, their product and the limit" || sed 's/^/#   /' "$WORK/timed.msg"
  cmp_ok "${r##*|}" '<' 1000 "... at once (${r##*|} ms, as psql times the statement), nothing drawn"
done
is "$(timed "SELECT count(*) FROM ranread_blocks(1000, 1000)" | cut -d'|' -f1,2)" "00000|1000000" \
  "at the limit (1000 x 1000) it returns its 1000000 rows"
is "$(timed "SELECT count(*) FROM ranread_blocks(1, 1000000, distribution => 'zipf:1.2')" | cut -d'|' -f1,2)" "00000|1000000" \
  "... and so does one process of 1000000, whatever the distribution"
is "$(timed "SELECT count(*) FROM ranread_blocks(2000, 500)" rr_blocks_runner | cut -d'|' -f1,2)" "00000|1000000" \
  "... also for a role granted 'run'"
is "$(timed "SELECT count(*) FROM ranread_blocks(2000, 501)" rr_blocks_runner | cut -d'|' -f1)" 22023 \
  "... which is refused past it too"

# --- the cancel: a statement_timeout ends it at once, in the FROM clause and in the select list
for form in "SELECT count(*) FROM ranread_blocks(1000, 1000, distribution => 'zipf:1.2')" \
            "SELECT count(*) FROM (SELECT ranread_blocks(1000, 1000, distribution => 'zipf:1.2')) s"; do
  r=$(timed "SET statement_timeout = '20ms'; $form" rr_blocks_runner)
  # a machine fast enough to draw a million offsets in 20 ms finishes first: either is fine, late is not
  case "${r%%|*}" in 57014|00000) ok 0 "under a 20 ms statement_timeout: ${r%%|*} ($form)" ;;
    *) ok 1 "under a 20 ms statement_timeout: ${r%%|*} ($form)"; sed 's/^/#   /' "$WORK/timed.msg" ;; esac
  cmp_ok "${r##*|}" '<' 1020 "... within a second of the timeout (${r##*|} ms, as psql times the statement)"
done

# pg_cancel_backend, from another session, of a call that reads slowly
bg_psql rr_blocks_slow "SELECT count(*) FROM (SELECT ranread_blocks(1000, 1000) b) s WHERE pg_sleep(0.0001) IS NOT NULL"
SLOW=$BG_PID
wait_session 10 rr_blocks_slow
sleep 0.3
t0=$(now_ms)
q "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE application_name = 'rr_blocks_slow'" >/dev/null
wait_pid "$SLOW" 5
ok $? "pg_cancel_backend ends a call within seconds ($(secs "$t0" "$(now_ms)") s)"
bg_output rr_blocks_slow | grep -q 'canceling statement due to user request'
ok $? "... cancelled" || bg_output rr_blocks_slow | sed 's/^/#   /'

# --- in the select list, rows as they are drawn
is "$(q "SELECT count(*) FROM (SELECT ranread_blocks(1000, 1000) LIMIT 3) s")" 3 "LIMIT 3 in the select list gives 3 rows"
is "$(q "SELECT string_agg((b).process || ':' || (b).seq, ',') FROM (SELECT ranread_blocks(2, 2) b) s")" "1:1,1:2,2:1,2:2" \
  "... in process order, each process's I/Os in order"
is "$(q "SELECT count(*) FROM (SELECT ranread_blocks(3, 4)) a, (SELECT ranread_blocks(2, 5)) b")" 120 \
  "two calls in one query each give their own rows"
is "$(q "SELECT string_agg(c::text, ',' ORDER BY p) FROM (SELECT p, (SELECT count(*) FROM ranread_blocks(p, 3)) c FROM generate_series(1, 4) p) s")" "3,6,9,12" \
  "a call run again for each outer row starts afresh"

psql -qX -d postgres -c "DROP DATABASE $DB" -c "DROP ROLE rr_blocks_runner" >/dev/null
done_testing
