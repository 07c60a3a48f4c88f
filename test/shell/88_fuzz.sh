#!/bin/bash
# Fuzzing as a test: every entry point that takes structured input gets
# thousands of seeded random inputs (test/fuzz/gen_*.py, run by
# test/fuzz/fuzz.py).  For each area: the server stays up, every call ends
# within its statement_timeout, no error is an internal one (XX000), and the
# server log tells of no crash.
# RANREAD_FUZZ_SEED=S repeats a run; the seed is printed either way.
# Needs python3-psycopg2 (Debian package); skips without it.
. "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
if ! $PY -c 'import psycopg2' 2>/dev/null; then
  echo "1..0 # SKIP python3-psycopg2 is not installed"
  exit 0
fi
setup_db ranread_fuzz
export PGDATABASE=ranread_fuzz

for gen in "$(dirname "$0")"/../fuzz/gen_*.py; do
  area=$(basename "$gen" .py)
  area=${area#gen_}
  checks=0
  mark=$(log_mark)
  while IFS= read -r line; do
    case "$line" in
      PASS*) ok 0 "${line#PASS }"; checks=$((checks + 1)) ;;
      FAIL*) ok 1 "${line#FAIL }"; checks=$((checks + 1)) ;;
      *) echo "# $line" | sed 's/^# # /# /' ;;
    esac
  done < <($PY "$(dirname "$0")/../fuzz/fuzz.py" "$area" 2>&1)
  # a harness that died before its verdicts is a failure, not a pass
  [ "$checks" -eq 3 ] || ok 1 "$area: the fuzz harness gave its three verdicts"
  # a crash restart keeps pg_postmaster_start_time(): the server log says
  no_crash "$mark" "$area: nothing crashed (no PANIC, no process terminated by a signal in the server log)"
done
done_testing
