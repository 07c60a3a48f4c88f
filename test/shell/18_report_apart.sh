#!/bin/bash
# The report module stands apart from the benchmark core (docs/design.md, "The
# house"):
#  - no file of the core (src/, outside src/report/) includes a header of
#    src/report/, so the core builds and reads without the module
#  - every C file of src/report/ is built as one of the Makefile's
#    REPORT_OBJS, and the charts' spec queries beside them are compiled in
. "$(dirname "$0")/lib/lib.sh"

ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
headers=$(cd "$ROOT/src/report" && ls *.h | paste -sd '|')
uses=$(grep -lE "#include \"($headers)\"" "$ROOT"/src/*.c "$ROOT"/src/*.h 2>/dev/null | sed "s|$ROOT/||")
is "$uses" "" "no file of the core includes a header of src/report/ ($(echo "$headers" | tr '|' ' '))"

objs=$(make -s -C "$ROOT" -f - print-report-objs 2>/dev/null <<'EOF'
include Makefile
print-report-objs:
	@echo $(REPORT_OBJS)
EOF
)
missing=""
for c in "$ROOT"/src/report/*.c; do
  o="src/report/$(basename "$c" .c).o"
  echo " $objs " | grep -q " $o " || missing="$missing $o"
done
is "$missing" "" "every C file of src/report/ is one of the Makefile's REPORT_OBJS ($objs)"
for q in "$ROOT"/src/report/chart_*.sql; do
  grep -q "#include \"$(basename "$q").h\"" "$ROOT/src/report/charts.c"
  ok $? "charts.c compiles in the spec query $(basename "$q")"
done
done_testing
