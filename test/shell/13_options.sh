#!/bin/bash
# Each workload option is written once, in src/workload/options.tsv (docs/design.md,
# "How to add a workload option"):
#  - ranread_options() (the C table the build made from it) lists its rows,
#    in its order, with its defaults
#  - no function in sql/code/ declares two workload options or more as
#    arguments by hand (one that takes a workload): they come from an
#    @options line (scripts/expand-options).  One alone is allowed: the
#    target that ranread_setup makes, the duration of a commit test
#  - a new option of kind arg stops the build, naming a function that takes
#    workloads and neither takes it nor says why not (@skip); an @skip
#    without a reason stops it too
#  - docs/options.md is the page scripts/options-doc makes from the
#    installed extension (RANREAD_WRITE_DOCS=1 writes it)
. "$(dirname "$0")/lib/lib.sh"
cd "$(dirname "$0")/../.."
setup_db rr_options

tsv_rows() { grep -v '^#' src/workload/options.tsv | tail -n +2; }

is "$(q "SELECT string_agg(name || ':' || coalesce(default_value, ''), ',' ORDER BY ordinality)
         FROM ranread_options() WITH ORDINALITY WHERE NOT internal")" \
   "$(tsv_rows | awk -F '\t' '$11 != "internal" { printf "%s%s:%s", (n++ ? "," : ""), $1, $5 }')" \
   "ranread_options() lists the rows of src/workload/options.tsv, in order, with their defaults"
is "$(q "SELECT string_agg(name, ',' ORDER BY name) FROM ranread_options() WHERE internal")" \
   "$(tsv_rows | awk -F '\t' '$11 == "internal" { print $1 }' | sort | paste -sd, -)" \
   "... and its internal options"

# the arguments of the user's functions (schema @extschema@) in sql/code/:
# none is an option written by hand
hand=$(awk -v opts="$(tsv_rows | awk -F '\t' '$11 == "arg" { print $1 }' | paste -sd' ' -)" '
  function flush() { if (count >= 2) print FILENAME ": " fn " declares" names; count = 0; names = "" }
  BEGIN { n = split(opts, o, " "); for (i = 1; i <= n; i++) isopt[o[i]] = 1 }
  /^CREATE OR REPLACE (FUNCTION|PROCEDURE) @extschema@\./ { flush(); inargs = 1; fn = $0; sub(/\(.*/, "", fn); sub(/.*\./, "", fn) }
  inargs && /^(RETURNS|AS|LANGUAGE)/ { inargs = 0 }
  inargs {
    line = $0; sub(/^CREATE[^(]*\(/, "", line)
    if (match(line, /^[ \t]*[a-z_]+[ \t]+[a-z]/)) {
      w = line; sub(/^[ \t]*/, "", w); sub(/[ \t].*/, "", w)
      if (w in isopt) { count++; names = names " " w }
    }
  }
  END { flush() }' sql/code/*.sql)
is "$hand" "" "no function of sql/code/ declares workload options by hand (an @options line does)"

# a new option reaches every function that takes workloads, or the build stops
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
cp src/workload/options.tsv "$work/new.tsv"
printf 'new_knob\tgroup\tno\tint4\t1\t0\t9\t\t\t\targ\tnew_knob is new.\n' >> "$work/new.tsv"
out=$(sh scripts/expand-options "$work/new.tsv" sql/code/*.sql 2>&1 >/dev/null)
isnt_zero=$?
cmp_ok "$isnt_zero" '!=' 0 "an option added to src/workload/options.tsv stops the build until the functions that take workloads take it ..."
grep -q 'takes workload options but not new_knob: add them to its @options line, or say why not in an @skip line' <<< "$out"
ok $? "... naming the function and the option" || diag "$out"
printf 'CREATE OR REPLACE FUNCTION @extschema@.f(\n    @options(processes)\n    @skip(rest:)\n' > "$work/noreason.sql"
out=$(sh scripts/expand-options src/workload/options.tsv "$work/noreason.sql" 2>&1 >/dev/null)
grep -q 'gives no reason' <<< "$out"
ok $? "an @skip without a reason stops the build" || diag "$out"
printf 'CREATE OR REPLACE FUNCTION @extschema@.f(\n    @options(processes, colour)\n' > "$work/unknown.sql"
out=$(sh scripts/expand-options src/workload/options.tsv "$work/unknown.sql" 2>&1 >/dev/null)
grep -q '@options names colour, which is not in' <<< "$out"
ok $? "an @options line naming no option stops the build" || diag "$out"

# the reference page
sh scripts/options-doc -d "$DB" > "$work/options.md"
if [ "${RANREAD_WRITE_DOCS:-}" = 1 ]; then cp "$work/options.md" docs/options.md; diag "wrote docs/options.md"; fi
if diff -u docs/options.md "$work/options.md" > "$work/doc.diff"; then ok 0 "docs/options.md is what scripts/options-doc makes"
else ok 1 "docs/options.md is what scripts/options-doc makes"; diag "RANREAD_WRITE_DOCS=1 bash test/run test/shell/13_options.sh writes it"; sed 's/^/# /' "$work/doc.diff" | head -30; fi
grep -q '| `block_size` | integer | `8192` |' docs/options.md
ok $? "... which gives block_size with its type and default"
done_testing
