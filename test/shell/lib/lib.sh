# Shared helpers of the shell tests: TAP output and psql shortcuts.
# Each test sources this, calls `setup_db NAME`, then `ok`/`is` lines.
# The cluster comes from test/run (pg_virtualenv sets PGHOST, PGPORT, ...).
#
# A query that fails is a failed test: q (and q_in, qc, setup_db, data_dir,
# session_pid, ...) print nothing on stderr, but the error is reported as a
# "not ok" line of its own, with the statement and the server's message, at
# the next ok/is/cmp_ok or done_testing (a query usually runs inside $(...),
# a subshell that cannot count tests itself).  The test goes on, so the
# checks after it still say what they see.  A statement that is expected to
# fail goes through q_err (its error text), q_state or q_all (faults.bash);
# q_try runs one whose failure is allowed and only its exit status matters.
# Polling loops (wait_for, wait_running, ...) allow a lost or refused
# connection (psql's exit status 2: a server restarting) until their
# deadline, never an error in the statement.  A reader that stops reading
# early (`q ... | grep -q`) is not a failure either.

TESTS_RUN=0
TESTS_FAILED=0
TMPDIR_TEST="${RANREAD_TEST_TMP:-/tmp}"
# failed queries not yet reported, one file per test (made on the first one)
Q_ERRORS="$TMPDIR_TEST/.q-errors.$$"

plan() { echo "1..$1"; }

_tap() {
  TESTS_RUN=$((TESTS_RUN + 1))
  if [ "$1" -eq 0 ]; then
    echo "ok $TESTS_RUN - $2"
  else
    echo "not ok $TESTS_RUN - $2"
    TESTS_FAILED=$((TESTS_FAILED + 1))
  fi
}

# _q_record DB SQL STATUS ERROR: remember a failed query for _q_flush
_q_record() {
  local sql
  sql=$(printf '%s' "$2" | tr -s ' \t\n' ' ' | sed 's/^ //; s/#/\\#/g' | cut -c1-160)
  {
    printf 'Q\t%s\t%s\t%s\n' "$1" "$3" "$sql"
    printf '%s\n' "${4:-(no message)}" | sed 's/^/E\t/'
  } >> "$Q_ERRORS"
}

# _q_flush: a "not ok" line for each failed query recorded so far; only the
# test's own shell counts tests (a subshell's counts would be lost)
_q_flush() {
  [ "$BASHPID" = "$$" ] && [ -s "$Q_ERRORS" ] || return 0
  local line db rc
  mv -f "$Q_ERRORS" "$Q_ERRORS.flush" 2>/dev/null || return 0
  while IFS= read -r line; do
    case "$line" in
      Q$'\t'*)
        line=${line#Q$'\t'}
        db=${line%%$'\t'*}; line=${line#*$'\t'}
        rc=${line%%$'\t'*}; line=${line#*$'\t'}
        _tap 1 "a query in $db runs without error (psql exit status $rc): $line" ;;
      E$'\t'*) echo "#   ${line#E$'\t'}" ;;
    esac
  done < "$Q_ERRORS.flush"
  rm -f "$Q_ERRORS.flush"
}

# ok CONDITION_EXIT_CODE DESCRIPTION
ok() {
  _q_flush
  _tap "$@"
}

# is GOT EXPECTED DESCRIPTION
is() {
  if [ "$1" = "$2" ]; then ok 0 "$3"; else ok 1 "$3"; echo "#   got: '$1'"; echo "#   expected: '$2'"; fi
}

# cmp_ok GOT OP EXPECTED DESCRIPTION (numbers, via awk)
cmp_ok() {
  if awk -v a="$1" -v b="$3" "BEGIN { exit !(a $2 b) }"; then ok 0 "$4"; else ok 1 "$4"; echo "#   $1 $2 $3 is false"; fi
}

diag() { echo "# $*"; }

# _q MODE DB SQL [PSQL_OPTION...]: SQL in database DB after SET
# client_min_messages = error, unaligned, tuples only; its rows on stdout,
# psql's exit status returned, its messages kept off stderr.  MODE says
# which failure is a failed test (reported by _q_flush): strict, any; poll,
# any but a lost or refused connection (exit status 2); try, none.  Exit
# status 141 (SIGPIPE) is a reader that stopped reading, not a failure.
_q() {
  local mode=$1 db=$2 sql=$3 err rc
  shift 3
  { err=$(psql -qAtX -d "$db" "$@" -c "SET client_min_messages = error" -c "$sql" 2>&1 1>&3 3>&-); rc=$?; } 3>&1
  case "$rc:$mode" in
    0:* | 141:* | *:try | 2:poll) ;;
    *) _q_record "$db" "$sql" "$rc" "$err" ;;
  esac
  return $rc
}

# setup_db NAME: a fresh database with the extension
setup_db() {
  DB="$1"
  _q strict postgres "DROP DATABASE IF EXISTS $DB" >/dev/null
  _q strict postgres "CREATE DATABASE $DB" >/dev/null
  _q strict "$DB" "CREATE EXTENSION ranread" >/dev/null
}

# q SQL: one query in $DB, unaligned, tuples only, messages dropped; a
# failure is a failed test (see the top of this file)
q() { _q strict "$DB" "$1"; }

# q_try SQL: like q, for a statement that may fail: only its exit status
# and its rows, if any, matter
q_try() { _q try "$DB" "$1"; }

# q_err SQL: the error text of a statement (empty if none)
q_err() { psql -qAtX -d "$DB" -c "SET client_min_messages = error" -c "$1" 2>&1 >/dev/null | sed -n 's/^.*ERROR:  //p' | head -1; }

# the server's data directory, for file-level checks (we are root)
data_dir() { _q strict postgres "SHOW data_directory"; }

# path of the first segment of a target's relation, relative to data_dir
target_path() { q "SELECT pg_relation_filepath(relid) FROM ranread_target_catalog WHERE target = '${1:-ranread}'"; }

# wait_for SECONDS SQL: poll until the query returns 't'
wait_for() {
  local deadline=$((SECONDS + $1))
  while [ $SECONDS -lt $deadline ]; do
    [ "$(_q poll "$DB" "$2")" = "t" ] && return 0
    sleep 0.2
  done
  return 1
}

# pg_owned_path DIR: DIR (made) for PostgreSQL to own, a tablespace's or a
# data directory's, at a path of the test's choosing
pg_owned_path() {
  mkdir -p "$1" && chown postgres:postgres "$1" && chmod 700 "$1"
}

# pg_owned_dir NAME: a new such directory in the temporary directory; its path
pg_owned_dir() {
  local d
  d=$(mktemp -d "$TMPDIR_TEST/$1.XXXXXX")
  pg_owned_path "$d"
  echo "$d"
}

# Crashes.  A crash restart keeps pg_postmaster_start_time() (and a crash
# of a cluster's checkpointer may leave no server to ask): "nothing
# crashed" is read in the server log (docs/design.md, "Failures").
#   log_mark [DATA_DIR]             "LOG SIZE": the server log of the test's
#                                   cluster (or of the cluster.bash cluster in
#                                   DATA_DIR) and where it ends now
#   crash_lines MARK                the lines written since MARK that tell of a
#                                   crash (none: nothing crashed)
#   no_crash MARK DESCRIPTION       ok when there are none; else not ok, with them
# The lines: a PANIC, a process "terminated by signal" or "by exception",
# a server "reinitializing" after a crash (test/shell/50_crash.sh checks
# that a crash restart is seen).
server_log() {
  local d log
  if [ -n "${1:-}" ]; then echo "$1/server.log"; return; fi
  d=$(data_dir)
  log=$(_q strict postgres "SELECT pg_current_logfile()")
  # pg_virtualenv logs to <its directory>/log/, beside data/15/regress
  [ -z "$log" ] && log=$(ls -t "$d"/../../../log/*.log 2>/dev/null | head -1)
  [ -n "$log" ] && [ "${log#/}" = "$log" ] && log="$d/$log"
  echo "$log"
}
log_mark() {
  local log
  log=$(server_log "${1:-}")
  echo "$log $(stat -c %s "$log" 2>/dev/null || echo 0)"
}
CRASH_LINES='PANIC: |terminated by signal|terminated by exception|all server processes terminated; reinitializing'
crash_lines() {
  local log=${1% *} from=${1##* }
  tail -c +"$((from + 1))" "$log" | grep -E "$CRASH_LINES"
}
no_crash() {
  local log=${1% *} lines
  if [ -z "$log" ] || [ ! -r "$log" ]; then
    ok 1 "$2 (no server log to read: '$log')"
    return 1
  fi
  lines=$(crash_lines "$1")
  if [ -z "$lines" ]; then ok 0 "$2"; return 0; fi
  ok 1 "$2"
  echo "$lines" | head -5 | sed 's/^/#   server log: /'
  return 1
}

done_testing() {
  _q_flush
  echo "1..$TESTS_RUN"
  [ "$TESTS_FAILED" -eq 0 ]
}
