# Shared helpers of the shell tests: TAP output and psql shortcuts.
# Each test sources this, calls `setup_db NAME`, then `ok`/`is` lines.
# The cluster comes from test/run (pg_virtualenv sets PGHOST, PGPORT, ...).

TESTS_RUN=0
TESTS_FAILED=0
TMPDIR_TEST="${RANREAD_TEST_TMP:-/tmp}"

plan() { echo "1..$1"; }

# ok CONDITION_EXIT_CODE DESCRIPTION
ok() {
  TESTS_RUN=$((TESTS_RUN + 1))
  if [ "$1" -eq 0 ]; then
    echo "ok $TESTS_RUN - $2"
  else
    echo "not ok $TESTS_RUN - $2"
    TESTS_FAILED=$((TESTS_FAILED + 1))
  fi
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

# setup_db NAME: a fresh database with the extension
setup_db() {
  DB="$1"
  psql -qX -d postgres -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB" >/dev/null
  psql -qX -d "$DB" -c "CREATE EXTENSION ranread" >/dev/null
}

# q SQL: one query in $DB, unaligned, tuples only, messages dropped
q() { psql -qAtX -d "$DB" -c "SET client_min_messages = error" -c "$1" 2>/dev/null; }

# q_err SQL: the error text of a statement (empty if none)
q_err() { psql -qAtX -d "$DB" -c "SET client_min_messages = error" -c "$1" 2>&1 >/dev/null | sed -n 's/^.*ERROR:  //p' | head -1; }

# the server's data directory, for file-level checks (we are root)
data_dir() { psql -qAtX -d postgres -c "SHOW data_directory"; }

# path of the first segment of a target's relation, relative to data_dir
target_path() { q "SELECT pg_relation_filepath(relid) FROM ranread_target_catalog WHERE target = '${1:-ranread}'"; }

# wait_for SECONDS SQL: poll until the query returns 't'
wait_for() {
  local deadline=$((SECONDS + $1))
  while [ $SECONDS -lt $deadline ]; do
    [ "$(q "$2")" = "t" ] && return 0
    sleep 0.2
  done
  return 1
}

# a directory the postgres user owns, for tablespaces
pg_owned_dir() {
  local d
  d=$(mktemp -d "$TMPDIR_TEST/$1.XXXXXX")
  chown postgres:postgres "$d"
  chmod 700 "$d"
  echo "$d"
}

done_testing() {
  echo "1..$TESTS_RUN"
  [ "$TESTS_FAILED" -eq 0 ]
}
