#!/usr/bin/env python3
"""The HTML report in a real browser (suite 'html'): the bundled sample
trace's page, written by the command, rendered by headless Chromium.

Checks, for an exact and a bounded aggregator:
  - the page is self-contained: no script, no external URL but the SVG
    namespace, nothing fetched (Chromium runs with networking off and a
    fresh profile; the page has no link to follow anyway);
  - Chromium's own DOM (--dump-dom) holds every chart as an <svg> with the
    expected marks: a CDF polyline and P50/P90/P99 markers in each of the
    six CDFs (the dispatch delay's and the scheduled E2E's: the sample's
    requests have intended starts), bars in the histograms, the two lines
    over time (exact mode only), and the warning that the client fell
    behind its schedule;
  - the screenshot (of the exact page; the bounded one has the same
    layout) is not blank: most of it white, but a good share of pixels
    inked, in more than a handful of colours (the curves, markers and
    bars), and both halves of the page inked (two columns of charts).

Usage: check_html.py LLMLAT_COMMAND SAMPLE_TRACE [--keep DIR]
Chromium is required (scripts/setup-deps installs Debian's chromium): its
absence fails the test, it does not skip it.
"""

import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib
from html.parser import HTMLParser

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu",
                  "--disable-background-networking", "--disable-component-update",
                  "--no-first-run", "--disable-sync", "--hide-scrollbars",
                  "--disable-extensions", "--mute-audio"]
WIDTH, HEIGHT = 1280, 3250
CHARTS_ALWAYS = ("cdf-ttft", "cdf-tpot", "cdf-itl", "cdf-e2e", "itl-histogram",
                 "input-lengths", "output-lengths")
# the sample trace's requests have intended starts, and its client falls
# behind: these CDFs and the warning are on its page
CHARTS_SCHEDULED = ("cdf-dispatch-delay", "cdf-scheduled-e2e")
CHARTS_TIMELINE = ("tokens-over-time", "concurrency-over-time")


def fail(msg):
    print("check_html: " + msg, file=sys.stderr)
    sys.exit(1)


def chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    fail("no chromium on PATH: install Debian's chromium (scripts/setup-deps)")


def run_chromium(exe, profile, args, timeout=180):
    cmd = [exe] + CHROMIUM_FLAGS + ["--user-data-dir=" + profile] + args
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)
    if p.returncode != 0:
        fail("chromium failed (%d): %s" % (p.returncode, p.stderr.decode(errors="replace")[-2000:]))
    return p.stdout


class Elements(HTMLParser):
    """Counts elements by tag and class, and which svg each is inside."""

    def __init__(self):
        super().__init__()
        self.svgs = {}          # id -> {"tag.class": count}
        self.current = None
        self.scripts = 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "script":
            self.scripts += 1
        if tag == "svg":
            self.current = a.get("id", "")
            self.svgs[self.current] = {}
            return
        if self.current is None:
            return
        counts = self.svgs[self.current]
        for cls in (a.get("class") or "").split() or [""]:
            key = tag + "." + cls
            counts[key] = counts.get(key, 0) + 1

    handle_startendtag = handle_starttag

    def handle_endtag(self, tag):
        if tag == "svg":
            self.current = None


def check_dom(dom, timeline):
    e = Elements()
    e.feed(dom)
    if e.scripts:
        fail("the page has a <script>")
    charts = CHARTS_ALWAYS + CHARTS_SCHEDULED + (CHARTS_TIMELINE if timeline else ())
    for chart in charts:
        if chart not in e.svgs:
            fail("no <svg id=%r> in the DOM Chromium built" % chart)
    if '<p class="warning" id="behind-schedule">' not in dom:
        fail("no warning that the client fell behind its schedule")
    for chart in CHARTS_ALWAYS[:4] + CHARTS_SCHEDULED:
        c = e.svgs[chart]
        if c.get("polyline.cdf") != 1:
            fail("%s: %d CDF polylines" % (chart, c.get("polyline.cdf", 0)))
        for p in ("p50", "p90", "p99"):
            if c.get("g." + p) != 1:
                fail("%s: no %s marker" % (chart, p))
        if c.get("text.marker-label", 0) != 3:
            fail("%s: %d marker labels" % (chart, c.get("text.marker-label", 0)))
    for chart in ("itl-histogram", "input-lengths", "output-lengths"):
        if e.svgs[chart].get("rect.bar", 0) < 5:
            fail("%s: %d bars" % (chart, e.svgs[chart].get("rect.bar", 0)))
    if timeline:
        if e.svgs["tokens-over-time"].get("polyline.tokens") != 1:
            fail("tokens-over-time: no line")
        if e.svgs["concurrency-over-time"].get("polyline.concurrency") != 1:
            fail("concurrency-over-time: no line")
    else:
        for chart in CHARTS_TIMELINE:
            if chart in e.svgs:
                fail("bounded mode drew %s" % chart)
    for chart in charts:
        if e.svgs[chart].get("text.tick", 0) < 4:
            fail("%s: fewer than 4 tick labels" % chart)


def png_pixels(data):
    """The RGB(A) rows of an 8-bit, non-interlaced PNG (what Chromium writes)."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        fail("the screenshot is not a PNG")
    pos, idat, header = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    w, h, depth, ctype, _, _, interlace = header
    if depth != 8 or ctype not in (2, 6) or interlace:
        fail("unexpected PNG layout: depth %d, colour type %d" % (depth, ctype))
    bpp = 3 if ctype == 2 else 4
    raw = zlib.decompress(idat)
    stride = w * bpp
    rows, prev = [], bytearray(stride)
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return w, h, bpp, rows


def check_picture(png):
    w, h, bpp, rows = png_pixels(png)
    if (w, h) != (WIDTH, HEIGHT):
        fail("screenshot of %dx%d, asked %dx%d" % (w, h, WIDTH, HEIGHT))
    inked = 0
    colours = set()
    halves = [0, 0]
    for y in range(0, h, 2):
        row = rows[y]
        for x in range(0, w, 2):
            px = row[x * bpp:x * bpp + 3]
            if px != b"\xff\xff\xff":
                inked += 1
                colours.add(px)
                halves[x * 2 >= w] += 1
    total = (h // 2) * (w // 2)
    share = inked / total
    if not 0.02 < share < 0.6:
        fail("%.1f%% of the picture is inked: blank, or not a page" % (100 * share))
    if len(colours) < 40:
        fail("only %d colours in the picture" % len(colours))
    if min(halves) < 0.2 * max(halves):
        fail("one half of the page is nearly empty: %r" % halves)
    return share, len(colours)


def main():
    args = sys.argv[1:]
    keep = None
    if "--keep" in args:
        keep = args[args.index("--keep") + 1]
        del args[args.index("--keep"):args.index("--keep") + 2]
    if len(args) != 2:
        fail("usage: check_html.py LLMLAT_COMMAND SAMPLE_TRACE [--keep DIR]")
    cmd, trace = args
    exe = chromium()
    with tempfile.TemporaryDirectory(prefix="llmlat-html-") as tmp:
        for mode, timeline in (("exact", True), ("bounded", False)):
            page = os.path.join(tmp, "report-%s.html" % mode)
            p = subprocess.run([cmd, "report", "--mode", mode, "--format", "html", trace],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            if p.returncode != 0:
                fail("llmlat report --format html: %s" % p.stderr.decode())
            text = p.stdout.decode("utf-8")
            urls = set(re.findall(r"(?:https?|ftp|file)://[^\"'\s)]+", text))
            if urls != {"http://www.w3.org/2000/svg"}:
                fail("URLs in the page: %s" % sorted(urls))
            if re.search(r"\b(?:src|href)\s*=|@import|url\(", text):
                fail("the page refers to something outside it")
            with open(page, "wb") as f:
                f.write(p.stdout)
            url = "file://" + page
            profile = os.path.join(tmp, "profile-" + mode)
            dom = run_chromium(exe, profile, ["--dump-dom", url]).decode("utf-8")
            check_dom(dom, timeline)
            if mode == "bounded":  # the same layout: its DOM is what differs
                print("%s: %d bytes, the DOM as expected" % (mode, len(p.stdout)))
                continue
            shot = os.path.join(tmp, "shot-%s.png" % mode)
            run_chromium(exe, profile, ["--window-size=%d,%d" % (WIDTH, HEIGHT),
                                        "--screenshot=" + shot, url])
            with open(shot, "rb") as f:
                share, colours = check_picture(f.read())
            print("%s: %d bytes, %.1f%% inked, %d colours" % (mode, len(p.stdout),
                                                            100 * share, colours))
            if keep:
                os.makedirs(keep, exist_ok=True)
                shutil.copy(shot, keep)
                shutil.copy(page, keep)


if __name__ == "__main__":
    main()
