#!/bin/bash
# Answers that fit a screen (README, "Reading the results"): what README.md,
# docs/running.md and docs/server-path.md show a person, rendered as psql
# shows it by default (psql -X: aligned, not expanded), is at most 120
# columns wide:
#  - every ```sql block of the pages, run as written in the page's order
#    (README's in a database without the extension, its first block creates
#    it; the others' in one with it, after their test-setup), each
#    line of its output; a block that asks for the expanded form (\gx, \x)
#    chose the full row, and is only run
#  - after them, in README's database (which then holds batches and a
#    sweep): SELECT * of every view the pages show whole (SELECT * FROM
#    v) but the *_full ones (every column, read expanded), of
#    ranread_brief and ranread_seconds, which the pages point at for a
#    person, and ranread_help()
#  - SELECT * FROM ranread_progress read while a batch runs there
#  - SELECT * FROM ranread_help(name) of every function ranread_help() lists
# A line wider than 120 names the page and block (or the statement), its
# width and how it begins.
. "$(dirname "$0")/lib/lib.sh"
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$ROOT"

WIDTH=120
WORK=$(mktemp -d "$TMPDIR_TEST/screen.XXXXXX")
chmod 755 "$WORK"
trap 'rm -rf --one-file-system "$WORK"' EXIT

# check_width WHAT FILE: one test: every line of FILE within WIDTH
check_width() {
  local what=$1 file=$2 worst
  worst=$(awk -v w="$WIDTH" 'length($0) > w { printf "%d columns, line %d: %s\n", length($0), NR, substr($0, 1, 60) }' "$file" | sort -rn | head -3)
  [ -z "$worst" ]
  ok $? "$what fits $WIDTH columns"
  [ -z "$worst" ] || echo "$worst" | sed 's/^/#   wider: /'
}

roles() { _q strict postgres "SELECT rolname FROM pg_roles ORDER BY 1"; }
roles_before=$(roles)

n=0
for page in README.md docs/running.md docs/server-path.md; do
  n=$((n + 1))
  DB=rr_screen_$n
  dir="$WORK/page$n"
  mkdir -p "$dir/blocks" "$dir/cwd"
  chmod -R 755 "$dir"
  python3 test/shell/lib/docblocks.py "$page" "$dir/blocks" > "$dir/manifest"
  ok $? "$page: its code blocks are read"
  _q strict postgres "DROP DATABASE IF EXISTS $DB" >/dev/null
  _q strict postgres "CREATE DATABASE $DB" >/dev/null
  [ "$page" = README.md ] || _q strict "$DB" "CREATE EXTENSION ranread" >/dev/null
  scratch=$(pg_owned_dir "screen_scratch$n")
  while IFS=$'\t' read -r kind line file note; do
    [ "$kind" = sql ] || [ "$kind" = setup ] || continue
    (cd "$dir/cwd" && timeout 300 psql -X -v ON_ERROR_STOP=1 -v scratch="$scratch" -d "$DB" -f "$file") \
      > "$dir/out" 2> "$dir/err"
    rc=$?
    [ "$kind" = setup ] && { ok $rc "$page:$line: the test-setup ($note) runs"; continue; }
    ok $rc "$page:$line: the example runs" || { grep -E 'ERROR|psql:' "$dir/err" | head -5 | sed 's/^/#   /'; continue; }
    if grep -qE '\\gx|\\x' "$file"; then
      diag "$page:$line asks for the expanded form (the full row): run, its width not checked"
      continue
    fi
    check_width "$page:$line: its output" "$dir/out"
  done < "$dir/manifest"
done

# The views the pages show whole, and the ones they point a person at
views=$(cat README.md docs/running.md docs/server-path.md | grep -oE 'SELECT \* FROM ranread_[a-z_]+' | awk '{ print $4 }' | sort -u)
for v in $views ranread_brief ranread_seconds; do
  case "$v" in *_full) continue ;; esac   # the full row, read with \gx
  kind=$(_q strict rr_screen_1 "SELECT relkind FROM pg_class WHERE oid = to_regclass('$v')")
  [ "$kind" = v ] || continue
  printf 'SELECT * FROM %s;\n' "$v" > "$WORK/v.sql"
  psql -X -v ON_ERROR_STOP=1 -d rr_screen_1 -f "$WORK/v.sql" > "$WORK/v.out" 2>&1
  ok $? "SELECT * FROM $v runs"
  rows=$(grep -cE '^\([0-9]+ rows?\)$' "$WORK/v.out")
  check_width "SELECT * FROM $v ($(tail -2 "$WORK/v.out" | head -1))" "$WORK/v.out"
  [ "$rows" -eq 1 ] || ok 1 "SELECT * FROM $v prints a table"
done
# ranread_progress, read from a second session while a batch runs (it has
# no row otherwise); its every column (ranread_progress_full, read with
# \gx) is wider, and the check sees it
PGAPPNAME=rr_screen_run psql -qAtX -d rr_screen_1 -c "SELECT batch FROM ranread_run(2, duration => '20s')" \
  > "$WORK/run.out" 2>&1 &
run_pid=$!
seen=0
for _ in $(seq 1 100); do
  [ "$(_q poll rr_screen_1 "SELECT count(*) FROM ranread_progress WHERE running ~ '^run ' AND ios > 0 AND iops > 0 AND eta IS NOT NULL")" = 1 ] &&
    { seen=1; break; }
  sleep 0.2
done
ok $((1 - seen)) "a batch runs, and ranread_progress has its row, with I/Os, IOPS and eta"
psql -X -d rr_screen_1 -c "SELECT * FROM ranread_progress" > "$WORK/progress.out" 2>&1
ok $? "SELECT * FROM ranread_progress runs while it runs"
diag "$(sed -n 3p "$WORK/progress.out")"
check_width "SELECT * FROM ranread_progress, a batch running ($(tail -2 "$WORK/progress.out" | head -1))" "$WORK/progress.out"
psql -X -d rr_screen_1 -c "SELECT * FROM ranread_progress_full" > "$WORK/progress_full.out" 2>&1
wide=$(awk '{ if (length($0) > w) w = length($0) } END { print w + 0 }' "$WORK/progress_full.out")
cmp_ok "$wide" ">" "$WIDTH" "... while its every column, ranread_progress_full (read with \\gx), is $wide wide"
_q strict rr_screen_1 "SELECT ranread_stop()" >/dev/null
wait "$run_pid"
ok $? "... and the batch returns once stopped"

# what every person reads first
psql -X -d rr_screen_1 -c "SELECT * FROM ranread_help()" > "$WORK/help.out" 2>&1
ok $? "SELECT * FROM ranread_help() runs"
check_width "SELECT * FROM ranread_help()" "$WORK/help.out"
cmp_ok "$(grep -c . "$WORK/help.out")" ">" 100 "... and it lists the entry points (more than 100 lines)"

# ranread_help(name) of every function ranread_help() lists (a view's name
# is refused, saying where its columns are explained)
names=$(grep -oE '^ +ranread_[a-z_]+:' "$WORK/help.out" | tr -d ' :' | sort -u)
wider=
checked=0
for f in $names; do
  psql -X -d rr_screen_1 -c "SELECT * FROM ranread_help('$f')" > "$WORK/f.out" 2>&1
  if grep -q 'is a table or view, not a function' "$WORK/f.out"; then continue; fi
  checked=$((checked + 1))
  w=$(awk '{ if (length($0) > w) w = length($0) } END { print w + 0 }' "$WORK/f.out")
  if grep -q ERROR "$WORK/f.out" || [ "$w" -gt "$WIDTH" ]; then wider="$wider $f($w)"; fi
done
is "$wider" "" "SELECT * FROM ranread_help(name) of each of the $checked functions ranread_help() lists fits $WIDTH columns"
cmp_ok "$checked" ">" 60 "... which are more than 60"

# a test that would fail: the released ranread_summary (1.1's columns) is
# wider, and the check says so
printf 'SELECT * FROM ranread_summary;\n' > "$WORK/v.sql"
psql -X -d rr_screen_1 -f "$WORK/v.sql" > "$WORK/v.out" 2>&1
wide=$(awk '{ if (length($0) > w) w = length($0) } END { print w + 0 }' "$WORK/v.out")
cmp_ok "$wide" ">" "$WIDTH" "the check sees a wide result: ranread_summary, kept with 1.1's columns, is $wide wide"

for DB in rr_screen_1 rr_screen_2 rr_screen_3; do _q strict postgres "DROP DATABASE IF EXISTS $DB" >/dev/null; done
for r in $(comm -13 <(echo "$roles_before") <(roles)); do
  _q strict postgres "DROP OWNED BY \"$r\"; DROP ROLE \"$r\"" >/dev/null
done
_q strict postgres "DROP TABLESPACE IF EXISTS fast_ssd" >/dev/null

done_testing
