#!/usr/bin/env python3
"""Check a chart's or a report's layout as headless Chromium lays it out.

    layout.py CHROMIUM FILE.svg|FILE.html WORKDIR [WIDTH]
    layout.py CHROMIUM --svgs WORKDIR WIDTH FILE.svg...

Wraps FILE in an HTML page (an SVG inline, scaled down to the window's
width as the report shows its charts) with a small script that, once the
page is laid out in a window WIDTH px wide (1400 by default), measures
every SVG <text> element (getBoundingClientRect, elementFromPoint), every
table cell of the page and the page's own width, and writes what it found
into the DOM; Chromium's --dump-dom returns it.  Prints one line per
problem and exits 1 if there is any:

  outside   a text's box leaves its <svg> by more than 1 px
  overlap   two texts of one <svg> overlap by more than 2 px both ways
  covered   an element drawn after a text (a bar, a marker) covers a
            point of the text's middle line (at 10%, 30% ... 90% of it)
  wrapped   a table cell of at most 40 characters wraps over lines
  overflow  the page is wider than the window (something a reader would
            have to scroll the whole page sideways for; a table in a box
            that scrolls on its own is not)
  tiny      a text drawn smaller than 7 px (a chart scaled down too far)

Prints "ok N texts in M pictures, C cells, page P px in a window of W px"
otherwise.  Not a test itself: the shell tests call it.

With --svgs, the charts are laid out in one page, one after the other (each
scaled down to the window's width, its ids made its own), so that one
Chromium start checks them all at one width: what would be printed for each
is written to WORKDIR/NAME.WIDTH.layout.txt (NAME the file's name without
.svg), and the exit status is 0 once every file has its verdict there.
"""
import html
import json
import os
import re
import subprocess
import sys
import tempfile

SCRIPT = r"""
<script>
window.addEventListener('load', function () {
  var out = {svgs: [], cells: [], page: document.documentElement.scrollWidth, window: window.innerWidth};
  // a box in page coordinates, whatever the scroll
  function box(e) {
    var b = e.getBoundingClientRect();
    return {x0: b.left + scrollX, y0: b.top + scrollY, x1: b.right + scrollX, y1: b.bottom + scrollY};
  }
  // whether something drawn after the text covers its middle
  function covered(t) {
    t.scrollIntoView({block: 'center', inline: 'center'});
    var b = t.getBoundingClientRect();
    var f, hit;
    for (f = 0.1; f < 1; f += 0.2) {
      hit = document.elementFromPoint(b.left + f * (b.right - b.left), (b.top + b.bottom) / 2);
      if (hit && hit !== t && !t.contains(hit) &&
          (t.compareDocumentPosition(hit) & Node.DOCUMENT_POSITION_FOLLOWING))
        return hit.tagName;
    }
    return '';
  }
  document.querySelectorAll('svg').forEach(function (svg, i) {
    if (svg.parentElement && svg.parentElement.closest('svg')) return;
    var section = svg.closest('[data-file]');
    var r = box(svg);
    var texts = [];
    svg.querySelectorAll('text').forEach(function (t) {
      var b = box(t);
      if (!t.textContent.trim() || b.x1 === b.x0) return;
      b.t = t.textContent;
      b.covered = covered(t);
      b.px = parseFloat(getComputedStyle(t).fontSize) * (svg.getBoundingClientRect().width /
             (svg.viewBox && svg.viewBox.baseVal && svg.viewBox.baseVal.width || svg.getBoundingClientRect().width));
      texts.push(b);
    });
    out.svgs.push({i: i, file: section ? section.getAttribute('data-file') : '',
                   title: (svg.querySelector('title') || {}).textContent || '',
                   x0: r.x0, y0: r.y0, x1: r.x1, y1: r.y1, texts: texts});
  });
  document.querySelectorAll('td, th').forEach(function (c) {
    var s = c.textContent.trim();
    if (!s || s.length > 40) return;
    var range = document.createRange();
    range.selectNodeContents(c);
    var tops = {};
    Array.prototype.forEach.call(range.getClientRects(), function (b) {
      if (b.width > 0) tops[Math.round(b.top)] = 1;
    });
    out.cells.push({t: s, lines: Object.keys(tops).length});
  });
  var pre = document.createElement('pre');
  pre.id = 'rr-layout';
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});
</script>
"""


def wrap(path):
    raw = open(path, encoding='utf-8').read()
    if path.endswith('.svg'):
        raw = re.sub(r'^<\?xml[^>]*\?>\s*', '', raw)
        return ('<!DOCTYPE html><html><head><meta charset="utf-8">'
                '<style>svg{max-width:100%;height:auto}</style></head>'
                '<body style="margin:0">' + raw + SCRIPT + '</body></html>')
    if '</body>' in raw:
        return raw.replace('</body>', SCRIPT + '</body>', 1)
    return raw + SCRIPT


def inter(a, b):
    return (min(a['x1'], b['x1']) - max(a['x0'], b['x0']),
            min(a['y1'], b['y1']) - max(a['y0'], b['y0']))


def own_ids(raw, k):
    """An SVG's ids (and what refers to them) made its own in a page of many"""
    raw = re.sub(r'\bid="([^"]+)"', lambda m: 'id="f%d-%s"' % (k, m.group(1)), raw)
    raw = re.sub(r'url\(#([^)]+)\)', lambda m: 'url(#f%d-%s)' % (k, m.group(1)), raw)
    return re.sub(r'href="#([^"]+)"', lambda m: 'href="#f%d-%s"' % (k, m.group(1)), raw)


def wrap_many(paths):
    parts = []
    for k, path in enumerate(paths):
        raw = re.sub(r'^<\?xml[^>]*\?>\s*', '', open(path, encoding='utf-8').read())
        parts.append('<div data-file="%s">%s</div>' % (html.escape(name_of(path)), own_ids(raw, k)))
    return ('<!DOCTYPE html><html><head><meta charset="utf-8">'
            '<style>svg{max-width:100%;height:auto;display:block}</style></head>'
            '<body style="margin:0">' + ''.join(parts) + SCRIPT + '</body></html>')


def name_of(path):
    return re.sub(r'\.svg$', '', os.path.basename(path))


def lay_out(chromium, page, work, width):
    """Chromium's layout of page (a file), as the script found it, or None"""
    profile = tempfile.mkdtemp(dir=work, prefix='chromium-profile.')
    dom = subprocess.run(
        [chromium, '--headless', '--no-sandbox', '--disable-gpu', '--no-first-run',
         '--disable-background-networking', '--disable-component-update', '--disable-sync',
         '--user-data-dir=' + profile, '--force-device-scale-factor=1',
         '--window-size=%d,1000' % width, '--hide-scrollbars', '--virtual-time-budget=5000', '--dump-dom',
         'file://' + page],
        capture_output=True, text=True, timeout=300).stdout
    subprocess.run(['rm', '-rf', profile])
    m = re.search(r'<pre id="rr-layout">(.*?)</pre>', dom, re.S)
    return json.loads(html.unescape(m.group(1))) if m else None


def verdict(data, svgs):
    """The lines layout.py prints for these pictures of a layout"""
    problems = []
    ntexts = 0
    for s in svgs:
        where = 'svg %d (%s)' % (s['i'], s['title'][:60])
        texts = s['texts']
        ntexts += len(texts)
        for t in texts:
            if (t['x0'] < s['x0'] - 1 or t['y0'] < s['y0'] - 1 or
                    t['x1'] > s['x1'] + 1 or t['y1'] > s['y1'] + 1):
                problems.append('outside %s: "%s" at [%.0f,%.0f]-[%.0f,%.0f] in [%.0f,%.0f]-[%.0f,%.0f]'
                                % (where, t['t'][:80], t['x0'], t['y0'], t['x1'], t['y1'],
                                   s['x0'], s['y0'], s['x1'], s['y1']))
            if t.get('px') and t['px'] < 7:
                problems.append('tiny %s: "%s" drawn at %.1f px' % (where, t['t'][:80], t['px']))
            if t['covered']:
                problems.append('covered %s: "%s" lies under a <%s> drawn after it'
                                % (where, t['t'][:80], t['covered']))
        for i in range(len(texts)):
            for j in range(i + 1, len(texts)):
                w, h = inter(texts[i], texts[j])
                if w > 2 and h > 2:
                    problems.append('overlap %s: "%s" and "%s" (%.0f x %.0f px)'
                                    % (where, texts[i]['t'][:60], texts[j]['t'][:60], w, h))
    for c in data['cells']:
        if c['lines'] > 1:
            problems.append('wrapped cell "%s" over %d lines' % (c['t'], c['lines']))
    if data['page'] > data['window'] + 1:
        problems.append('overflow the page is %d px wide in a window of %d px' % (data['page'], data['window']))
    if problems:
        return problems
    return ['ok %d texts in %d pictures, %d cells, page %d px in a window of %d px'
            % (ntexts, len(svgs), len(data['cells']), data['page'], data['window'])]


def main_many(chromium, work, width, paths):
    page = os.path.join(work, 'many.%d.layout.html' % width)
    with open(page, 'w', encoding='utf-8') as f:
        f.write(wrap_many(paths))
    data = lay_out(chromium, page, work, width)
    for path in paths:
        name = name_of(path)
        if data is None:
            lines = ['nolayout Chromium returned no layout for ' + page]
        else:
            mine = [s for s in data['svgs'] if s['file'] == name]
            lines = verdict(data, mine) if mine else ['nolayout no <svg> in ' + path]
        with open(os.path.join(work, '%s.%d.layout.txt' % (name, width)), 'w') as f:
            f.write('\n'.join(lines) + '\n')
    print('%d pictures laid out at %d px in %s' % (len(paths), width, page))
    return 0 if data is not None else 1


def main():
    if len(sys.argv) > 5 and sys.argv[2] == '--svgs':
        return main_many(sys.argv[1], sys.argv[3], int(sys.argv[4]), sys.argv[5:])
    chromium, path, work = sys.argv[1:4]
    width = int(sys.argv[4]) if len(sys.argv) > 4 else 1400
    page = os.path.join(work, os.path.basename(path) + '.%d.layout.html' % width)
    with open(page, 'w', encoding='utf-8') as f:
        f.write(wrap(path))
    data = lay_out(chromium, page, work, width)
    if data is None:
        print('nolayout Chromium returned no layout for', path)
        return 1
    lines = verdict(data, data['svgs'])
    for line in lines:
        print(line)
    return 0 if lines[0].startswith('ok ') else 1


if __name__ == '__main__':
    sys.exit(main())
