"""ranread_svg(spec): the chart renderer takes any jsonb a caller hands it
(pg_monitor may call it).  Cases are random specs over every key of the spec
table in docs/charts-and-reports.md, "Charts from SQL": well-typed ones with
extreme numbers
(1e300, 1e308, 1e-16000, 5e-324, -0, 30 decimals), empty, mismatched and
huge arrays near and past the stated limits, long texts and odd Unicode
(U+FFFE, U+FFFF, noncharacters, controls, right-to-left marks), and
ill-typed ones: a wrong type at any key, "NaN" and "Infinity" where numbers
go, unknown keys, deep nesting, JSON that jsonb refuses.

Every call goes through fuzz_svg_check (SETUP), which also checks what the
renderer returned: a well-formed, plain-ASCII XML document, no NaN or
infinity and no number of 9 digits or more in a coordinate, no run of 60
digits in a text.  A document that breaks one of these raises SQLSTATE
XX000, which the harness reports as a failure with the case to reproduce
(a renderer's bug is an internal error); a clean refusal of a bad spec is
any other SQLSTATE, which is fine."""

import json

CASES = 3000
TIMEOUT_MS = 5000

# The check shared with gen_charts.py: what every document must be
CHECK_SQL = r"""
CREATE OR REPLACE FUNCTION fuzz_svg_check(svg text) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
    coords constant text := '\s(x|y|x1|y1|x2|y2|cx|cy|r|width|height|d|transform|viewBox|stroke-width)="[^"]*';
    bad    text;
BEGIN
    IF svg IS NULL THEN
        bad := 'no document';
    ELSIF NOT xml_is_well_formed_document(svg) THEN
        bad := 'a document that is not well-formed XML';
    ELSIF svg ~ '[^\x01-\x7f]' THEN
        bad := 'a document that is not plain ASCII';
    ELSIF svg ~* (coords || '(nan|inf)') THEN
        bad := 'NaN or infinity in a coordinate';
    ELSIF svg ~ (coords || '[0-9]{9}') THEN
        bad := 'a coordinate of 9 digits or more';
    ELSIF svg ~ '>[^<]*[0-9]{60}' THEN
        bad := 'a number of 60 digits or more in a text';
    END IF;
    IF bad IS NOT NULL THEN
        RAISE EXCEPTION USING ERRCODE = 'XX000',
            MESSAGE = 'fuzz check: the renderer made ' || bad,
            DETAIL = left(svg, 400);
    END IF;
    RETURN length(svg);
END
$$"""

SETUP = [CHECK_SQL]

LIMITS = {"series": 12, "points": 100000, "categories": 200, "lines": 32,
          "highlights": 64, "notes": 32, "columns": 16, "rows": 500,
          "heat_rows": 200, "heat_cols": 40, "colors": 16, "text": 10000}


class Raw(str):
    """A JSON fragment written as it is: a number literal Python would
    round (1e-16000), or deliberately broken JSON."""


def dump(v, ascii_only):
    if isinstance(v, Raw):
        return str(v)
    if isinstance(v, bool) or v is None or isinstance(v, (int, float)):
        return json.dumps(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=ascii_only)
    if isinstance(v, list):
        if not any(isinstance(e, (str, list, dict)) for e in v):
            return json.dumps(v)    # numbers and nulls: the fast way
        return "[" + ",".join(dump(e, ascii_only) for e in v) + "]"
    return "{" + ",".join(json.dumps(k, ensure_ascii=ascii_only) + ":" + dump(e, ascii_only)
                          for k, e in v.items()) + "}"


# Numbers a spec may hold (within +-1e300), and numbers it may not
EXTREMES = ["1e300", "-1e300", "1e-300", "1e-308", "2.2250738585072014e-308", "5e-324",
            "4.9e-324", "-0", "-0.0", "0", "1e15", "999999999999999.9", "1e16", "-1e16",
            "123456789012345678901234567890", "0.000000000000000000000000000001",
            "0.1234567890123456789012345678901234", "1e-16000", "1e-400", "3.0e2", "1E+2",
            "18446744073709551616", "-9223372036854775809", "9.99999999999999e299"]
TOO_BIG = ["1e308", "-1e308", "1.7976931348623157e308", "1e400", "1e100000", "-1e100000",
           "1.0000000000000001e300"]

WRONG = [Raw('"NaN"'), Raw('"Infinity"'), Raw('"-Infinity"'), Raw('"nan"'), Raw('"inf"'),
         Raw('"1e5"'), Raw('""'), True, False, [], {}, [1, 2], {"x": 1}, "left", 3, -1,
         0.5, Raw("[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]")] + [Raw(t) for t in TOO_BIG]

TEXTS = ["", "a", "IOPS (I/O operations per second)", "Latency (ms)", "<b>&\"'</b>",
         "caf\u00e9", "\u65e5\u672c\u8a9e", "\ufffe", "\uffff", "a\ufffeb\uffffc",
         "\ufdd0\ufdef", "\U0001fffe\U0010ffff", "\U0001f600", "\x01\x02\x1f\x7f",
         "\t\n\r", "\u0085\u00a0", "\u200e\u202e rtl", "\ud7ff\ue000", "]]>", "<![CDATA[x]]>",
         "&amp;", "&#xFFFE;", "x" * 200, "\u00e9" * 500, "\ufffe" * 300]

COLORS = ["#fff", "#1c5fa8", "#ABCDEF", "teal", "red", "indianred", "nan", "#000"]
BAD_COLORS = ["#ggg", "#12345", "rgb(1,2,3)", "", "a" * 31, "\"/><script>", "#fffe", "RED"]
DASHES = ["6 3", "solid", "", "1,2", "0", "0.5 0.5", "1 1 1 1 1 1", "9" * 40]
BAD_DASHES = ["-1", "a", "9" * 41, "6 3\" onload=\"x"]
MARKERS = ["circle", "square", "triangle", "down", "diamond", "cross", "none"]
FORMATS = ["number", "count"]
LOGS = [False, True, "auto", "linear", "log"]
STYLES = ["headline", "plain", "good", "bad", "muted", "headline-good", "headline-bad"]
PART_FORMATS = ["count", "number", "ms", "setting"]
# what a formatted part may print: to_jsonb's non-finite float8s, numbers of any size
PART_VALUES = [Raw('"NaN"'), Raw('"Infinity"'), Raw('"-Infinity"'), None] + [Raw(t) for t in TOO_BIG]
TONES = ["plain", "good", "bad", "muted"]


class Gen:
    """A random spec.  A valid one holds only what docs/charts-and-reports.md
    allows; an ill-typed one (valid=False) is the same with a few defects: a wrong
    type or value at some key, an unknown key, arrays that do not pair up,
    a count or a text past its limit."""

    def __init__(self, rng, valid, ascii_only):
        self.rng = rng
        self.valid = valid
        self.ascii_only = ascii_only
        self.defect_p = 0.0 if valid else rng.choice([0.01, 0.03, 0.1])

    def defect(self):
        return self.rng.random() < self.defect_p

    def pick(self, good, bad):
        return self.rng.choice(bad if self.defect() else good)

    def maybe_wrong(self, v):
        if self.defect():
            return self.rng.choice(WRONG + [self.text()])
        return v

    def part(self):
        """A part of a text: a string, a number, a character, a figure in a
        format; as a defect an unknown format, two, or a bad value"""
        rng = self.rng
        if self.defect():
            return rng.choice([{"cout": 1}, {"count": 1, "ms": 2}, {}, {"fixed": 1},
                               {"count": 1, "decimals": 2}, {"char": 0xD800}, {"char": 0},
                               {"char": 0x110000}, {"block": 0.5}, {"block": Raw("1e300")},
                               {"fixed": 1, "decimals": 21}, {"count": True}, [1], True])
        r = rng.random()
        if r < 0.3:
            return rng.choice(TEXTS)
        if r < 0.4:
            return self.number()
        if r < 0.55:
            return {"char": rng.choice([0x201C, 0xB7, 0x2013, 0x2264, 0xFFFE, 0x10FFFF, 1, 0x7F])}
        value = rng.choice(PART_VALUES) if rng.random() < 0.3 else self.number()
        if r < 0.7:
            return {"fixed": value, "decimals": rng.choice([0, 1, 3, 20])}
        if r < 0.75:
            return {"block": rng.choice([8192, 1048576, 512, 0, -4096, None, Raw("9e18")])}
        return {rng.choice(PART_FORMATS): value}

    def text(self):
        rng = self.rng
        if rng.random() < 0.1:
            return [self.part() for _ in range(rng.choice([0, 1, 3, 10, 100] if not self.defect() else [101]))]
        if self.defect():
            if self.ascii_only and rng.random() < 0.5:
                # escapes jsonb refuses: a lone surrogate, NUL
                return Raw(rng.choice(['"\\ud800"', '"a\\udfffb"', '"\\u0000"']))
            return rng.choice(["x", "\u00e9"]) * (LIMITS["text"] + 1)
        r = rng.random()
        if r < 0.6:
            return rng.choice(TEXTS)
        if r < 0.999:
            # random code points from every plane; no NUL, no surrogate
            out = []
            for _ in range(rng.randrange(1, 30)):
                cp = rng.choice([rng.randrange(1, 0x80), rng.randrange(0x80, 0x800),
                                 rng.randrange(0x800, 0x10000), rng.randrange(0x10000, 0x110000),
                                 0xFFFE, 0xFFFF, 0xFDD0, 0x1FFFE])
                if 0xD800 <= cp <= 0xDFFF:
                    cp = 0xFFFD
                out.append(chr(cp))
            return "".join(out)
        return rng.choice(["x", "\u00e9", "\ufffe", "\u65e5"]) * rng.choice(
            [LIMITS["text"] - 1, LIMITS["text"]])

    def number(self):
        rng = self.rng
        if self.defect():
            return rng.choice(WRONG)
        r = rng.random()
        if r < 0.04:
            return None
        if r < 0.2:
            return Raw(rng.choice(EXTREMES))
        if r < 0.5:
            return rng.randrange(-5, 100000)
        if r < 0.8:
            return round(rng.uniform(0, 50), rng.randrange(0, 6))
        return rng.uniform(-1e6, 1e6) * 10 ** rng.randrange(-12, 12)

    def count(self, limit):
        """How many elements: usually few, sometimes up to the limit; past it
        as a defect"""
        rng = self.rng
        if self.defect():
            return limit + 1
        r = rng.random()
        if r < 0.95:
            return min(limit, rng.choice([0, 1, 1, 2, 3, 4, 5, 8, 12]))
        return rng.randrange(0, limit + 1)

    def npoints(self):
        rng = self.rng
        if self.defect() and rng.random() < 0.05:
            return LIMITS["points"] + 1     # rare: large to send, refused at once
        r = rng.random()
        if r < 0.97:
            return rng.choice([0, 1, 2, 3, 5, 8, 20, 50, 91, 200])
        return rng.choice([1000, 3000])

    def many(self, n):
        """n numbers, quickly: mostly plain, a few extremes and nulls"""
        rng = self.rng
        scale = 10 ** rng.randrange(-6, 7)
        out = [rng.random() * scale for _ in range(n)]
        for _ in range(rng.randrange(0, 20)):
            out[rng.randrange(n)] = rng.choice([None, Raw(rng.choice(EXTREMES))])
        return out

    def xs(self, n):
        rng = self.rng
        shape = rng.randrange(6)
        if shape == 0 and n > 200:
            return self.many(n)
        if shape == 0:
            return [self.number() for _ in range(n)]
        if shape == 1:
            return list(range(1, n + 1))
        if shape == 2:
            return [rng.choice([1, 2, 4])] * n          # many points at one x
        if shape == 3:
            return [i // 2 for i in range(n)]           # pairs share an x
        if shape == 4:
            return [2 ** (i % 60) for i in range(n)]    # log-friendly
        return [Raw(rng.choice(EXTREMES)) for _ in range(n)]

    def ys(self, n):
        rng = self.rng
        shape = rng.randrange(4)
        if shape in (0, 2) and n > 200:
            return self.many(n)
        if shape == 0:
            return [self.number() for _ in range(n)]
        if shape == 1:
            return [round(rng.uniform(0.1, 30), 3) for _ in range(n)]
        if shape == 2:
            return [Raw(rng.choice(EXTREMES)) if rng.random() < 0.3 else rng.uniform(-10, 10)
                    for _ in range(n)]
        return [None] * n

    def obj(self, fields):
        """Some of the fields, in random order, perhaps a wrong one or an
        unknown key"""
        rng = self.rng
        keys = [k for k in fields if rng.random() < 0.6]
        rng.shuffle(keys)
        out = {k: self.maybe_wrong(fields[k]()) for k in keys}
        if self.defect():
            out[rng.choice(["titel", "colour", "x2", "\ufffe", "", "Kind"])] = 1
        return out

    def axis(self):
        rng = self.rng
        a = self.obj({
            "label": self.text,
            "log": lambda: self.pick(LOGS, ["yes", 1, "Auto"]),
            "base": lambda: self.pick([10, 2, Raw("10.0")], [3, 0, -2]),
            "min": self.number,
            "max": self.number,
            "integer": lambda: rng.choice([True, False]),
            "ticks": lambda: self.pick(["data", "auto"], ["none"]),
            "format": lambda: self.pick(FORMATS, ["percent"]),
            "color": lambda: self.pick(COLORS, BAD_COLORS),
        })
        if self.valid and "min" in a and "max" in a:
            del a["max"]            # min and max need max > min; one is enough
        return a

    def series(self, bars, ncat):
        rng = self.rng
        n = self.pick([ncat, max(ncat - 1, 0)], [ncat + 1]) if bars else self.npoints()
        s = self.obj({
            "label": self.text,
            "axis": lambda: self.pick(["left", "right"], ["up"]),
            "color": lambda: self.pick(COLORS, BAD_COLORS),
            "dash": lambda: self.pick(DASHES, BAD_DASHES),
            "marker": lambda: self.pick(MARKERS, ["star", ""]),
            "width": lambda: self.pick([0.1, 2, 20], [0, 21, -1, None]),
            "line": lambda: rng.choice([True, False]),
            "labels": lambda: rng.choice([True, True, False]),
            "format": lambda: self.pick(FORMATS, ["percent"]),
        })
        s["y"] = self.maybe_wrong(self.ys(n))
        if not bars or self.defect():
            s["x"] = self.maybe_wrong(self.xs(n + (1 if self.defect() else 0)))
        if n <= 3000 and rng.random() < 0.15:
            s["texts"] = [rng.choice([None, self.text(), "best"])
                          for _ in range(n + (1 if self.defect() else 0))]
        if self.defect():
            del s["y"]
        return s

    def table(self):
        rng = self.rng
        ncols = max(self.count(LIMITS["columns"]), 0 if self.defect() else 1)
        nrows = self.count(LIMITS["rows"])

        def cell():
            r = rng.random()
            if r < 0.4:
                return self.text()
            if r < 0.7:
                return self.number()
            if r < 0.8:
                return None
            return self.obj({"text": self.text, "tone": lambda: self.pick(TONES, ["loud"])})

        t = {"header": [self.text() for _ in range(ncols)]}
        if rng.random() < 0.8:
            t["rows"] = [[cell() for _ in range(self.pick([ncols, ncols - 1, 0], [ncols + 1]))]
                         for _ in range(nrows)]
        if rng.random() < 0.3:
            t["align"] = [self.pick(["left", "right"], ["center"])
                          for _ in range(ncols + (1 if self.defect() else 0))]
        if rng.random() < 0.3 and nrows > 0:
            t["highlight"] = [self.pick([0, nrows - 1], [nrows, -1, 0.5]) for _ in range(3)]
        if rng.random() < 0.3:
            t["more"] = self.text()
        return t

    def heat(self):
        rng = self.rng
        nr = self.count(LIMITS["heat_rows"])
        nc = self.count(LIMITS["heat_cols"])
        h = {"rows": [self.text() for _ in range(nr)],
             "columns": [self.text() for _ in range(nc)],
             "values": [self.ys(nc + (1 if self.defect() else 0))
                        for _ in range(nr + (1 if self.defect() else 0))]}
        h.update(self.obj({
            "metric": self.text,
            "log": lambda: self.pick(LOGS, ["yes"]),
            "format": lambda: self.pick(FORMATS, ["percent"]),
            "colors": lambda: [self.pick(["#fff", "#000000", "#440154", "#fde725", "#1c5fa8"],
                                         ["teal", "#ggg"])
                               for _ in range(max(2, self.count(LIMITS["colors"])))],
        }))
        return h

    def spec(self):
        rng = self.rng
        kind = rng.choice(["line", "line", "bar", "heat"])
        spec = {}
        if rng.random() < 0.9 or kind != "line":
            spec["kind"] = self.pick([kind], ["pie", "Line", 1])
        for k in ("title", "subtitle", "empty"):
            if rng.random() < 0.5:
                spec[k] = self.maybe_wrong(self.text())
        for k in ("x", "y", "y2"):
            if rng.random() < 0.4:
                spec[k] = self.maybe_wrong(self.axis())
        # a time axis: the x of a line chart, linear, with ticks of its own
        x = spec.get("x")
        if isinstance(x, dict) and (kind == "line" or self.defect()) and rng.random() < 0.3:
            x["time"] = self.pick(["duration", "clock"], ["hours", 1])
            if self.valid:
                x.pop("log", None)
                x.pop("ticks", None)
            if x["time"] == "clock" and rng.random() < 0.5 or self.defect():
                x["utc_offset"] = self.pick([0, 3600, -18000, 19800, 86400], [86401, "UTC", None])
        ncat = 0
        if kind == "bar" or self.defect():
            ncat = self.count(LIMITS["categories"])
            spec["categories"] = self.maybe_wrong([self.text() for _ in range(ncat)])
        nseries = 0
        if kind != "heat" or self.defect():
            nseries = self.pick([0, 1, 2, 3, 12] if rng.random() < 0.3 else [1, 2, 3], [13])
            spec["series"] = self.maybe_wrong([self.series(kind == "bar", ncat)
                                               for _ in range(nseries)])
        if rng.random() < 0.3:
            spec["lines"] = [self.obj({
                "value": self.number, "axis": lambda: self.pick(["left", "right"], ["up"]),
                "label": self.text, "legend": self.text,
                "color": lambda: self.pick(COLORS, BAD_COLORS),
                "dash": lambda: self.pick(DASHES, BAD_DASHES),
                "width": lambda: self.pick([1, 20], [0, 25])})
                for _ in range(self.count(LIMITS["lines"]))]
            for line in spec["lines"]:
                if isinstance(line, dict) and (line.get("value") is None or not self.defect()):
                    # null is a line without a value: its legend only
                    line["value"] = self.number() if rng.random() < 0.1 else self.number() or 1
        if rng.random() < 0.25 and (nseries > 0 or self.defect()):
            ser = spec.get("series") if isinstance(spec.get("series"), list) else []
            hls = []
            for _ in range(self.count(LIMITS["highlights"])):
                i = rng.randrange(max(nseries, 1))
                npt = len(ser[i]["y"]) if i < len(ser) and isinstance(ser[i], dict) \
                    and isinstance(ser[i].get("y"), list) else 0
                if npt == 0 and not self.defect():
                    continue
                hl = {"series": self.pick([i], [nseries, -1, 0.5, "0"]),
                      "point": self.pick([rng.randrange(max(npt, 1))], [npt, -1, 1e300])}
                hl.update(self.obj({"label": self.text,
                                    "color": lambda: self.pick(COLORS, BAD_COLORS)}))
                hls.append(hl)
            spec["highlights"] = hls
        if rng.random() < 0.3:
            spec["notes"] = [rng.choice([self.text(), self.obj({
                "text": self.text, "style": lambda: self.pick(STYLES, ["loud"])})])
                for _ in range(self.count(LIMITS["notes"]))]
        if rng.random() < 0.25:
            spec["table"] = self.maybe_wrong(self.table())
        if kind == "heat" or self.defect():
            spec["heat"] = self.maybe_wrong(self.heat())
        return spec


def at_limit(rng):
    """A small valid spec with one part at its limit, or one past it"""
    past = rng.random() < 0.5
    k = rng.choice(sorted(LIMITS))
    n = LIMITS[k] + (1 if past else 0)
    big = rng.choice(["x", "\u00e9", "\ufffe", "\U0001f600"])
    xs = list(range(n))
    if k == "series":
        return {"series": [{"x": [1, 2], "y": [i, i + 1]} for i in range(n)]}
    if k == "points":
        # the slowest shapes: every point at one x, labelled; or markers only
        shape = rng.randrange(3)
        x = [1] * n if shape == 0 else [i // 2 for i in xs] if shape == 1 else xs
        y = [rng.random() for _ in xs]
        s = {"labels": True, "x": x, "y": y, "line": shape != 2}
        if rng.random() < 0.3:
            s["texts"] = ["t%d" % (i % 10) for i in xs]
        spec = {"series": [s]}
        if rng.random() < 0.3:
            spec["x"] = {"ticks": "data"}
        if rng.random() < 0.3:
            spec["highlights"] = [{"series": 0, "point": rng.randrange(min(n, LIMITS["points"]))}]
        return spec
    if k == "categories":
        return {"kind": "bar", "categories": ["c%d" % i for i in xs],
                "series": [{"y": [rng.random() for _ in xs], "labels": True}]}
    if k == "lines":
        return {"series": [{"x": [1, 2], "y": [1, 2]}],
                "lines": [{"value": i, "label": "l", "legend": "line %d" % i} for i in xs]}
    if k == "highlights":
        return {"series": [{"x": list(range(100)), "y": list(range(100)), "labels": True}],
                "highlights": [{"series": 0, "point": i % 100, "label": "h"} for i in xs]}
    if k == "notes":
        return {"notes": [{"text": "note %d" % i, "style": "bad"} for i in xs]}
    if k == "columns":
        return {"table": {"header": ["h%d" % i for i in xs], "rows": [xs, [None] * n]}}
    if k == "rows":
        return {"table": {"header": ["a", "b"], "rows": [[i, "r"] for i in xs],
                          "highlight": [0, min(n, LIMITS["rows"]) - 1]}}
    if k == "heat_rows" or k == "heat_cols":
        nr = n if k == "heat_rows" else LIMITS["heat_rows"]
        nc = n if k == "heat_cols" else LIMITS["heat_cols"]
        return {"kind": "heat", "heat": {"rows": ["r%d" % i for i in range(nr)],
                                         "columns": ["c%d" % i for i in range(nc)],
                                         "values": [[rng.random() * 10 ** rng.randrange(-3, 6)
                                                     for _ in range(nc)] for _ in range(nr)],
                                         "log": "auto"}}
    if k == "colors":
        return {"kind": "heat", "heat": {"rows": ["a"], "columns": ["b", "c"],
                                         "values": [[1, 2]], "colors": ["#%06x" % i for i in xs]}}
    where = rng.choice(["title", "subtitle", "empty", "label", "cell", "note", "category"])
    t = big * n
    if where in ("title", "subtitle", "empty"):
        return {where: t}
    if where == "label":
        return {"series": [{"label": t, "x": [1], "y": [1]}]}
    if where == "cell":
        return {"table": {"header": ["a"], "rows": [[t]]}}
    if where == "note":
        return {"notes": [t]}
    return {"kind": "bar", "categories": [t], "series": [{"y": [1]}]}


def huge(rng):
    """A small chart of values from the extremes, those past 1e300 among
    them: spans that overflow a double, the heat scale's NaN"""
    pool = EXTREMES + TOO_BIG * 3
    vals = lambda n: [Raw(rng.choice(pool)) for _ in range(n)]
    kind = rng.choice(["line", "bar", "heat"])
    if kind == "heat":
        return {"kind": "heat", "heat": {"rows": ["a", "b"], "columns": ["c", "d"],
                                         "values": [vals(2), vals(2)],
                                         "log": rng.choice(LOGS)}}
    if kind == "bar":
        return {"kind": "bar", "categories": ["a", "b", "c"], "series": [{"y": vals(3)}]}
    return {"series": [{"x": vals(4), "y": vals(4), "labels": True}],
            "x": {"log": rng.choice(LOGS)}, "y": {"log": rng.choice(LOGS)},
            "lines": [{"value": Raw(rng.choice(pool))}]}


def deep(rng):
    """A spec nested deeply where a value goes"""
    depth = rng.choice([50, 500, 2000])
    inner = rng.choice(["1", '"a"', "null", "{}"])
    arr = "[" * depth + inner + "]" * depth
    obj = '{"a":' * depth + inner + "}" * depth
    where = rng.choice(['{"title": %s}', '{"series": [{"x": [1], "y": %s}]}',
                        '{"series": %s}', '{"x": %s}', '{"table": {"header": ["a"], "rows": %s}}',
                        '{"heat": %s, "kind": "heat"}', '{"notes": %s}'])
    return where % rng.choice([arr, obj])


def broken(rng):
    """JSON text jsonb refuses, or not an object at all"""
    return rng.choice(['{"title": "a"', '{"series": [1,]}', "[]", "1", '"spec"', "null",
                       '{"a": NaN}', '{"x": Infinity}', '{"title": "\\ud800"}',
                       '{"title": "\\u0000"}', "true", '{"series": [{"x": [1e999], "y": [1]}]}'])


def call(spec):
    """The SQL of a case, the spec inline (so that a failure shows it)"""
    tag = "$fz$"
    while tag in spec:
        tag = tag[:-1] + "z$"
    return "SELECT fuzz_svg_check(ranread_svg(%s%s%s::jsonb))" % (tag, spec, tag)


def cases(rng, n):
    for _ in range(n):
        r = rng.random()
        if r < 0.03:
            yield call(deep(rng))
        elif r < 0.05:
            yield call(broken(rng))
        elif r < 0.07:
            yield call(dump(at_limit(rng), True))
        elif r < 0.1:
            yield call(dump(huge(rng), True))
        else:
            ascii_only = rng.random() < 0.5
            g = Gen(rng, valid=rng.random() < 0.6, ascii_only=ascii_only)
            yield call(dump(g.spec(), ascii_only))
