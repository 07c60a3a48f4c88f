#!/bin/bash
# The documentation is true (docs/design.md, "The documentation"):
#  - every ```sql block of README.md and docs/*.md runs as written, page by
#    page, in the page's order, each page in a database of its own made
#    afresh: README.md's in one without the extension (its first block
#    creates it), every other page's in one with ranread created, as a
#    reader who has read the README has it.  A page's <!-- test-setup -->
#    comments run first (what the reader already has and cannot be written
#    as the reader would: a tablespace's directory); psql variable
#    :'scratch' is a fresh directory the server owns.  A block after
#    <!-- not run: REASON --> is counted as skipped, with its reason
#  - a block that fails names the page and the block's line; so does one
#    whose output has a line wider than WIDTH characters (an example whose
#    output is needlessly wide: name the columns, or \x), and one that
#    takes longer than BLOCK_SECONDS
#  - every fenced block has a kind the rules allow (sql, text, sh, conf)
#  - every reference to a section of a page (README, "Privileges";
#    docs/keeping-watch.md, "The probe") in the sources, the SQL, the tests, the
#    pages and the benchmarks names a heading that exists
# What a page made in the cluster goes with it: its database, the roles and
# tablespaces it created, the files its exports wrote (their paths are in
# the blocks' output).  DOCS_PAGES="docs/fleet.md ..." runs those pages only.
. "$(dirname "$0")/lib/lib.sh"
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$ROOT"

WIDTH=300
BLOCK_SECONDS=120
WORK=$(mktemp -d "$TMPDIR_TEST/docs.XXXXXX")
chmod 755 "$WORK"
trap 'rm -rf --one-file-system "$WORK"' EXIT

pages=${DOCS_PAGES:-"README.md $(ls docs/*.md | sort | paste -sd' ' -)"}

roles() { _q strict postgres "SELECT rolname FROM pg_roles ORDER BY 1"; }
spaces() { _q strict postgres "SELECT spcname FROM pg_tablespace ORDER BY 1"; }

n=0
for page in $pages; do
  n=$((n + 1))
  DB=rr_docs_$n
  dir="$WORK/page$n"
  mkdir -p "$dir/blocks" "$dir/cwd"
  chmod -R 755 "$dir"
  python3 test/shell/lib/docblocks.py "$page" "$dir/blocks" > "$dir/manifest" 2> "$dir/manifest.err"
  ok $? "$page: its code blocks are read" || { sed 's/^/#   /' "$dir/manifest.err"; continue; }
  # a database only for a page with SQL to run
  runs=$(grep -cE $'^(setup|sql)\t' "$dir/manifest")
  if [ "$runs" -gt 0 ]; then
    roles_before=$(roles)
    spaces_before=$(spaces)
    _q strict postgres "DROP DATABASE IF EXISTS $DB" >/dev/null
    _q strict postgres "CREATE DATABASE $DB" >/dev/null
    [ "$page" = README.md ] || _q strict "$DB" "CREATE EXTENSION ranread" >/dev/null
    scratch=$(pg_owned_dir "docs_scratch$n")
  fi

  ran=0 skipped=0 page_started=$SECONDS
  while IFS=$'\t' read -r kind line file note; do
    where="$page:$line"
    case "$kind" in
      bad) ok 1 "$where: $note"; continue ;;
      skip) ok 0 "# SKIP $where is not run: $note"; skipped=$((skipped + 1)); continue ;;
    esac
    t0=$SECONDS
    (cd "$dir/cwd" && timeout "$BLOCK_SECONDS" psql -X -v ON_ERROR_STOP=1 -v scratch="$scratch" -d "$DB" -f "$file") \
      > "$dir/out" 2> "$dir/err"
    rc=$?
    took=$((SECONDS - t0))
    what="the example at $where runs"
    [ "$kind" = setup ] && what="the test-setup at $where ($note) runs"
    if [ $rc -ne 0 ]; then
      ok 1 "$what"
      [ $rc -eq 124 ] && diag "  stopped after $BLOCK_SECONDS s"
      grep -E 'ERROR|FATAL|PANIC|psql:' "$dir/err" | head -8 | sed 's/^/#   /'
    else
      ok 0 "$what ($took s)"
    fi
    ran=$((ran + 1))
    wide=$(awk '{ if (length($0) > w) w = length($0) } END { print w + 0 }' "$dir/out")
    [ "$wide" -le "$WIDTH" ]
    ok $? "... and its output is at most $WIDTH characters wide ($wide)"
    # the files an export wrote (their paths are in the output)
    grep -oE '/var/tmp/ranread_[A-Za-z0-9_.-]+' "$dir/out" | sort -u | while read -r f; do rm -f -- "$f"; done
  done < "$dir/manifest"
  diag "$page: $ran blocks run, $skipped not run, $((SECONDS - page_started)) s"
  [ "$runs" -gt 0 ] || continue

  # what the page made goes with it
  _q strict postgres "DROP DATABASE IF EXISTS $DB" >/dev/null
  for r in $(comm -13 <(echo "$roles_before") <(roles)); do
    _q strict postgres "DROP OWNED BY \"$r\"; DROP ROLE \"$r\"" >/dev/null
  done
  for s in $(comm -13 <(echo "$spaces_before") <(spaces)); do
    _q strict postgres "DROP TABLESPACE \"$s\"" >/dev/null
  done
done

# every reference to a section names a heading
refs=$(python3 test/shell/lib/docrefs.py "$ROOT" $(find src sql/code sql/state sql/updates test docs bench scripts .ci debian metrics \
         -type f -not -path 'test/regress/expected/*' -not -path 'test/regress/results/*' -not -name '*.o' -not -name '*.so' \
         -not -name '*.bc' | sort) Makefile README.md CHANGELOG.md)
is "$refs" "" "every reference to a section of README.md, docs/*.md or sql/README.md names a heading of that page"

done_testing
