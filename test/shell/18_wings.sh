#!/bin/bash
# The house's wings (docs/design.md, "The house"): src/ holds the core, and a
# folder per concern (workload, run, target, history, advise, watch, fleet,
# report).
#  - no file outside src/report/ includes a header of src/report/, so the
#    benchmark builds and reads without the report module
#  - every C file under src/ is built (one of the Makefile's OBJS; the
#    sanitizer's only with SANITIZE), and the charts' spec queries beside
#    src/report/charts.c are compiled in
#  - no header includes itself, through however many others (an include
#    circle), ranread.h does not bring in the shared-memory layout of a
#    batch (src/run/batch.h: included where a batch is used), and no C file
#    sits loose in src/ that a wing should hold
. "$(dirname "$0")/lib/lib.sh"

ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$ROOT" || exit 1
headers=$(cd src/report && ls *.h | paste -sd '|')
uses=$(grep -lE "#include \"($headers)\"" $(find src -name '*.[ch]' -not -path 'src/report/*') 2>/dev/null)
is "$uses" "" "no file outside src/report/ includes a header of src/report/ ($(echo "$headers" | tr '|' ' '))"

objs=$(make -s -f - print-objs 2>/dev/null <<'MK'
include Makefile
print-objs:
	@echo $(OBJS)
MK
)
missing=""
for c in $(find src -name '*.c' -not -name sanitize.c | sort); do
  echo " $objs " | grep -q " ${c%.c}.o " || missing="$missing ${c%.c}.o"
done
is "$missing" "" "every C file under src/ is one of the Makefile's OBJS"
for q in src/report/chart_*.sql; do
  grep -q "#include \"$(basename "$q").h\"" src/report/charts.c
  ok $? "charts.c compiles in the spec query $(basename "$q")"
done

circles=$(python3 - <<'PY'
import os, re, sys
files = {}
for d, _, names in os.walk('src'):
    for n in names:
        if n.endswith(('.c', '.h')):
            files.setdefault(n, os.path.join(d, n))
inc = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
graph = {n: [os.path.basename(i) for i in inc.findall(open(p).read())
             if os.path.basename(i) in files]
         for n, p in files.items()}
seen, stack, found = {}, [], []
def visit(n):
    seen[n] = 1; stack.append(n)
    for m in graph.get(n, []):
        if seen.get(m) == 1:
            found.append(' -> '.join(stack[stack.index(m):] + [m]))
        elif m not in seen:
            visit(m)
    stack.pop(); seen[n] = 2
for n in sorted(graph):
    if n not in seen:
        visit(n)
print('; '.join(found))
PY
)
is "$circles" "" "no include circle among the files of src/"
is "$(grep -c '#include "batch.h"' src/ranread.h)" 0 \
  "ranread.h, which every file includes, does not carry a batch's shared-memory layout (src/run/batch.h)"
loose=$(ls src/*.c | sed 's|src/||' | grep -vxE 'ranread.c|extension.c|histogram.c|errcontext.c|limits.c|sanitize.c' | paste -sd ' ')
is "$loose" "" "src/ itself holds only the core (the module's init, its settings, the histogram, the error context, the limits)"
done_testing
