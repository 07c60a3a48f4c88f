#!/usr/bin/env python3
"""The code blocks of a documentation page, for test/shell/11_docs.sh.

    docblocks.py PAGE OUTDIR

writes each block the test runs to OUTDIR (NNN.sql) and prints one line a
block, tab-separated, in the page's order:

    setup  LINE  FILE  REASON   an <!-- test-setup REASON ... --> comment
    sql    LINE  FILE           a ```sql block: the test runs it
    skip   LINE  -     REASON   a ```sql block after <!-- not run: REASON -->
    bad    LINE  -     WHY      a block the rules do not allow

The rules (docs/design.md, "The documentation"): a fence is ```KIND, indented
or not (a list item's block), closed by ``` at any indentation; KIND is sql
(run), text (output, not run), sh (shell commands, not run) or conf (lines
of a configuration file); a block without a kind, or of another kind, is
bad.  A test-setup comment holds SQL the test runs before the page's
blocks; its first line says why the reader does not need it.
"""
import os
import re
import sys

KINDS = {"sql", "text", "sh", "conf"}
FENCE = re.compile(r"^(\s*)(`{3,})\s*([A-Za-z0-9_+-]*)\s*$")
NOT_RUN = re.compile(r"^\s*<!--\s*not run:\s*(.+?)\s*-->\s*$")
SETUP = re.compile(r"^\s*<!--\s*test-setup\b(.*)$")


def main():
    page, outdir = sys.argv[1], sys.argv[2]
    with open(page, encoding="utf-8") as f:
        lines = f.read().split("\n")
    n = 0
    out = []

    def write(body):
        nonlocal n
        n += 1
        name = os.path.join(outdir, "%03d.sql" % n)
        with open(name, "w", encoding="utf-8") as f:
            f.write(body)
        return name

    i = 0
    last_text = ""  # the last non-blank line outside a block
    while i < len(lines):
        line = lines[i]
        m = SETUP.match(line)
        if m:
            start = i + 1
            reason = m.group(1).strip().lstrip(":").strip() or "(no reason given)"
            body = []
            i += 1
            while i < len(lines) and lines[i].strip() != "-->":
                body.append(lines[i])
                i += 1
            if i == len(lines):
                out.append(("bad", start, "-", "a test-setup comment that is never closed by a line '-->'"))
                break
            out.append(("setup", start, write("\n".join(body) + "\n"), reason))
            i += 1
            last_text = ""
            continue
        m = FENCE.match(line)
        if not m:
            if line.strip():
                last_text = line
            i += 1
            continue
        start = i + 1
        indent, ticks, kind = m.group(1), m.group(2), m.group(3)
        body = []
        i += 1
        closed = False
        while i < len(lines):
            c = lines[i]
            if re.match(r"^\s*`{%d,}\s*$" % len(ticks), c):
                closed = True
                break
            body.append(c[len(indent):] if c.startswith(indent) else c.lstrip())
            i += 1
        i += 1
        if not closed:
            out.append(("bad", start, "-", "a block that is never closed"))
            break
        if kind not in KINDS:
            out.append(("bad", start, "-",
                        "a block of kind '%s': sql (run), text (output), sh or conf" % (kind or "(none)")))
        elif kind == "sql":
            skip = NOT_RUN.match(last_text)
            if skip:
                out.append(("skip", start, "-", skip.group(1)))
            else:
                out.append(("sql", start, write("\n".join(body) + "\n"), ""))
        last_text = ""
    for row in out:
        print("\t".join(str(x) for x in row))


if __name__ == "__main__":
    main()
