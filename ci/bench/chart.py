"""docs/performance.svg: per-call cost against registry size and against thread count, drawn
from target/bench/summary.json's figures as plain SVG (no plotting library: the chart is two
line plots, and the machines that run the benchmarks cannot always install one)."""
import math

W, H = 900, 360          # the whole picture
PW, PH = 340, 230        # one plot's area
LEFT, TOP = 80, 50       # the first plot's origin (top left of its area)
GAP = 450                # from the first plot's left edge to the second's
COLOURS = ("#1f77b4", "#ff7f0e")


def _esc(text):
    return str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _nice_top(v):
    """A round upper bound for an axis starting at 0: 1, 2, 2.5 or 5 times a power of ten."""
    if v <= 0:
        return 1.0
    p = 10 ** math.floor(math.log10(v))
    for m in (1, 2, 2.5, 5, 10):
        if m * p >= v:
            return m * p
    return 10 * p


def _num(v):
    return f"{v:,.0f}" if v >= 10 or v == int(v) else f"{v:g}"


def _plot(out, x0, title, xlabel, ylabel, xs, xticks, series, xlog=False):
    """One plot: `series` is [(label, [(x, y)], dashed)], xs the x range, ticks as (x, text)."""
    def sx(x):
        lo, hi = xs
        if xlog:
            lo, hi, x = math.log10(lo), math.log10(hi), math.log10(x)
        return x0 + (x - lo) / (hi - lo) * PW
    top = _nice_top(max((y for _, pts, _ in series for _, y in pts), default=1) * 1.1)

    def sy(y):
        return TOP + PH - y / top * PH
    out.append(f'<text x="{x0 + PW / 2}" y="{TOP - 18}" text-anchor="middle" font-size="15">{_esc(title)}</text>')
    out.append(f'<rect x="{x0}" y="{TOP}" width="{PW}" height="{PH}" fill="none" stroke="#444"/>')
    for i in range(6):
        y = top * i / 5
        py = sy(y)
        out.append(f'<line x1="{x0}" y1="{py:.1f}" x2="{x0 + PW}" y2="{py:.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{x0 - 6}" y="{py + 4:.1f}" text-anchor="end" font-size="11">{_num(y)}</text>')
    for x, text in xticks:
        px = sx(x)
        out.append(f'<line x1="{px:.1f}" y1="{TOP + PH}" x2="{px:.1f}" y2="{TOP + PH + 5}" stroke="#444"/>')
        out.append(f'<text x="{px:.1f}" y="{TOP + PH + 18}" text-anchor="middle" font-size="11">{_esc(text)}</text>')
    out.append(f'<text x="{x0 + PW / 2}" y="{TOP + PH + 38}" text-anchor="middle" font-size="12">{_esc(xlabel)}</text>')
    cy = TOP + PH / 2
    out.append(f'<text x="{x0 - 55}" y="{cy}" text-anchor="middle" font-size="12" '
               f'transform="rotate(-90 {x0 - 55} {cy})">{_esc(ylabel)}</text>')
    for i, (label, pts, dashed) in enumerate(series):
        colour = COLOURS[i % len(COLOURS)]
        path = " ".join(f"{sx(x):.1f},{sy(y):.1f}" for x, y in pts)
        dash = ' stroke-dasharray="6,4"' if dashed else ""
        out.append(f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2"{dash}/>')
        if not dashed:
            for x, y in pts:
                out.append(f'<circle cx="{sx(x):.1f}" cy="{sy(y):.1f}" r="4" fill="{colour}">'
                           f'<title>{_esc(_num(y))} ns</title></circle>')
        if len(series) > 1:
            ly = TOP + PH - 40 + 16 * i
            out.append(f'<line x1="{x0 + 12}" y1="{ly}" x2="{x0 + 36}" y2="{ly}" stroke="{colour}" stroke-width="2"{dash}/>')
            out.append(f'<text x="{x0 + 42}" y="{ly + 4}" font-size="11">{_esc(label)}</text>')


def svg(s, caption=""):
    """The chart as SVG text from the summary's figures; a plot whose figures are missing says so."""
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" '
           'font-family="sans-serif">', f'<rect width="{W}" height="{H}" fill="white"/>']
    lookup = [(n, s.get(f"execute_lookup_{k}_ns")) for n, k in ((10, "10"), (1000, "1k"), (10000, "10k"))]
    if all(v for _, v in lookup):
        _plot(out, LEFT, "Per-call cost against registry size", "functions registered",
              "ns per execute", (10, 10000), [(10, "10"), (1000, "1,000"), (10000, "10,000")],
              [("execute", lookup, False)], xlog=True)
    else:
        out.append(f'<text x="{LEFT}" y="{TOP + 20}" font-size="13">registry-size figures not measured</text>')
    t1, t2 = s.get("throughput_1thread_calls_per_s"), s.get("throughput_2threads_calls_per_s")
    if t1 and t2:
        _plot(out, LEFT + GAP, "Per-call cost against thread count", "threads",
              "ns per call (each thread)", (0.8, 2.2), [(1, "1"), (2, "2")],
              [("ns per call per thread", [(1, 1e9 / t1), (2, 2e9 / t2)], False),
               ("perfect scaling", [(1, 1e9 / t1), (2, 1e9 / t1)], True)])
    else:
        out.append(f'<text x="{LEFT + GAP}" y="{TOP + 20}" font-size="13">throughput figures not measured</text>')
    if caption:
        out.append(f'<text x="{W / 2}" y="{H - 12}" text-anchor="middle" font-size="11" fill="#555">{_esc(caption)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"
