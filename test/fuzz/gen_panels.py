"""ranread_svg(spec) with panels: heat charts stacked under a line chart on
its x axis (README, "Charts from SQL"), the way ranread_timeline draws the
latency heatmap under its plot.  Cases are line specs from gen_svg.py's
generator with a random "panels" array: heat panels whose columns lie
between "edges" (increasing numbers, one more than the columns), with
extreme edges (1e300, -1e300, 5e-324, a span narrower than a pixel, off
the x axis, on a log x axis), many rows and columns up to the limits; and
malformed ones: edges missing, too few or too many, decreasing, equal,
null, strings, NaN; a panel of another kind, a panel that is not an
object, unknown keys, more panels than allowed, panels on a bar or heat
chart, edges in a heat table, panels that are not an array.

Every document goes through fuzz_svg_check (gen_svg.py): well-formed
plain-ASCII XML, finite short coordinates; a broken document is XX000,
reported with the case.  A clean refusal of a malformed spec is fine."""

import importlib.util
import math
import os

CASES = 1500
TIMEOUT_MS = 5000


def _svg_gen():
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "gen_svg.py")
    spec = importlib.util.spec_from_file_location("gen_svg_for_panels", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


SVG = _svg_gen()
SETUP = SVG.SETUP
MAX_PANELS = 4


def edges(rng, g, n, valid):
    """n increasing edges, or (as a defect) not"""
    start = rng.choice([0, 0.5, -3, 1e-300, 5e-324, 1e299, -1e300, 7])
    step = rng.choice([1, 0.25, 3, 1e-9, 1e298, 60])
    e = []
    x = start
    for _ in range(n):
        e.append(x)
        x = x + step * rng.choice([1, 1, 2, 0.5])
        if x > 1e300:
            x = e[-1] + (1e300 - e[-1]) / 2
        # a step a float cannot take (1e299 + 1): the next float up
        x = max(x, math.nextafter(e[-1], math.inf))
    if not valid:
        r = rng.random()
        if r < 0.2 and e:
            e.pop()
        elif r < 0.35:
            e.append(e[-1] + 1 if e else 0)
        elif r < 0.5 and len(e) > 1:
            e[rng.randrange(1, len(e))] = e[0]
        elif r < 0.6 and e:
            e[rng.randrange(len(e))] = None
        elif r < 0.7 and e:
            e[rng.randrange(len(e))] = rng.choice(["NaN", "Infinity", "1", True, [1], {}])
        elif r < 0.8:
            e.reverse()
        elif r < 0.9 and e:
            e[rng.randrange(len(e))] = SVG.Raw(rng.choice(["1e301", "-1e999", "1e-16000"]))
        else:
            e = rng.choice([None, "0,1", 3, {}])
    return e


def panel(rng, g, valid):
    h = g.heat()
    nc = len(h["columns"]) if isinstance(h.get("columns"), list) else 0
    ok = valid and not g.defect()
    if rng.random() < 0.97 or not ok:
        h["edges"] = edges(rng, g, nc + 1, ok)
    p = {"heat": h}
    if rng.random() < 0.5:
        p["kind"] = g.pick(["heat"], ["line", "bar", "Heat", 1, None])
    if rng.random() < 0.6:
        p["title"] = g.maybe_wrong(g.text())
    if rng.random() < 0.5:
        p["y"] = g.maybe_wrong(g.axis())
    if g.defect():
        p[rng.choice(["x", "series", "notes", "panels", "subtitle"])] = rng.choice([{}, [], "a"])
    if g.defect():
        return rng.choice([None, "heat", [], 1, {}])
    return p


def spec(rng):
    valid = rng.random() < 0.6
    ascii_only = rng.random() < 0.5
    g = SVG.Gen(rng, valid=valid, ascii_only=ascii_only)
    # a line chart's spec (ten tries; else whatever came)
    for _ in range(10):
        s = g.spec()
        if s.get("kind", "line") == "line":
            break
    if rng.random() < 0.3:
        s["x"] = {"log": rng.choice([True, False, "auto"]),
                  "min": rng.choice([None, 0, -5, 1e-300]), "max": rng.choice([None, 10, 1e300])}
        s["x"] = {k: v for k, v in s["x"].items() if v is not None}
        if "min" in s["x"] and "max" in s["x"] and not s["x"]["max"] > s["x"]["min"]:
            del s["x"]["max"]
    n = g.pick([0, 1, 1, 2, MAX_PANELS], [MAX_PANELS + 1])
    s["panels"] = [panel(rng, g, valid) for _ in range(n)]
    if g.defect():
        s["panels"] = rng.choice([None, {}, "heat", 1, True])
    if not valid and rng.random() < 0.05:
        s["kind"] = rng.choice(["bar", "heat"])
    if not valid and rng.random() < 0.05 and isinstance(s.get("heat"), dict):
        s["heat"]["edges"] = [0, 1]
    return s, ascii_only


def cases(rng, n):
    for _ in range(n):
        s, ascii_only = spec(rng)
        yield SVG.call(SVG.dump(s, ascii_only))
