#!/usr/bin/env python3
"""References to a section of a documentation page that name no heading.

    docrefs.py ROOT FILE...

Finds, in each FILE (source, SQL, tests, pages; comments wrapped over
several lines too), a reference such as

    README, "Privileges"            README's "Reading the results"
    docs/keeping-watch.md, "The probe"   sql/README.md, "Changing the SQL"
    (docs/fleet.md, "Fleet"; README, "Privileges")

and prints FILE:LINE: the reference, for each section that is not a heading
(#, ##, ...) of that page.  A bare README is ROOT/README.md.  In a page
(FILE.md), every relative link [text](page.md#anchor) must lead to a file
and, with an anchor, to a heading of that page (GitHub's anchors).  Prints
nothing when every reference names a heading.
"""
import os
import re
import sys

REF = re.compile(
    r"(?P<page>(?:[\w.-]+/)*README(?:\.md)?|(?:[\w.-]+/)*docs/[\w-]+\.md|\bdesign\.md)"
    r"(?:'s)?[,:]?[ \t\n]+(?:section[ \t\n]+)?"
    r"(?P<secs>\\?\"[^\"\\]{1,80}\\?\"(?:[ \t\n]*(?:,|and)[ \t\n]*\\?\"[^\"\\]{1,80}\\?\")*)")
TITLE = re.compile(r"\\?\"([^\"\\]{1,80})\\?\"")
# a comment's marker at the start of a continued line
CONTINUED = re.compile(r"\n[ \t]*(?:\*(?!/)|--|#|//)?[ \t]*")


def headings(path, cache={}):
    if path not in cache:
        found = set()
        try:
            with open(path, encoding="utf-8") as f:
                fence = False
                for line in f:
                    if line.lstrip().startswith("```"):
                        fence = not fence
                    elif not fence and line.startswith("#"):
                        found.add(norm(line.lstrip("#")))
        except OSError:
            found = None
        cache[path] = found
    return cache[path]


def norm(s):
    return re.sub(r"\s+", " ", s.replace("`", "")).strip().lower()


def slug(title):
    """A heading's anchor as GitHub makes it."""
    s = title.strip().lower().replace("`", "")
    s = re.sub(r"[^\w\- ]", "", s)
    return s.replace(" ", "-")


def anchors(path, cache={}):
    if path not in cache:
        found = set()
        with open(path, encoding="utf-8") as f:
            fence = False
            for line in f:
                if line.lstrip().startswith("```"):
                    fence = not fence
                elif not fence and line.startswith("#"):
                    found.add(slug(line.lstrip("#")))
        cache[path] = found
    return cache[path]


LINK = re.compile(r"\]\(([^)\s]+)\)")


def links(name, root):
    """The relative links of a page that lead nowhere: no such file, or no
    heading of that anchor."""
    bad = 0
    with open(name, encoding="utf-8") as f:
        text = f.read()
    text = re.sub(r"```.*?```", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    for m in LINK.finditer(text):
        target = m.group(1)
        if re.match(r"^[a-z]+:", target):
            continue
        page, _, anchor = target.partition("#")
        path = os.path.normpath(os.path.join(os.path.dirname(name), page)) if page else name
        line = text.count("\n", 0, m.start()) + 1
        if not os.path.exists(path):
            print("%s:%d: a link to %s, which does not exist" % (os.path.relpath(name, root), line, target))
            bad += 1
        elif anchor and (not path.endswith(".md") or anchor not in anchors(path)):
            print("%s:%d: a link to %s, whose page has no heading of that anchor" % (
                os.path.relpath(name, root), line, target))
            bad += 1
    return bad


def main():
    root = sys.argv[1]
    bad = 0
    for name in sys.argv[2:]:
        try:
            with open(name, encoding="utf-8", errors="replace") as f:
                text = f.read()
        except OSError:
            continue
        if name.endswith(".md"):
            bad += links(name, root)
        text = CONTINUED.sub("\n", text)
        for m in REF.finditer(text):
            page = m.group("page")
            if page == "design.md":
                page = "docs/design.md"
            if page.endswith("README"):
                page += ".md"
            # a page named from the repository's root; README (bare) is the top one
            path = os.path.join(root, page)
            if not os.path.exists(path):
                path = os.path.join(os.path.dirname(name), page)
            found = headings(path)
            line = text.count("\n", 0, m.start()) + 1
            for t in TITLE.finditer(m.group("secs")):
                title = norm(t.group(1))
                if "$" in title:
                    continue  # a shell variable, not a section
                if found is None or title not in found:
                    print("%s:%d: %s, \"%s\" names no heading of %s" % (
                        os.path.relpath(name, root), line, m.group("page"), re.sub(r"\s+", " ", t.group(1)),
                        os.path.relpath(path, root)))
                    bad += 1
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
