#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Sieve -- draw the host benchmark's CSV.

    ./build/perf/sieve_bench --csv bench.csv && python3 scripts/plot_bench.py bench.csv

For every primitive measured at several kept fractions (compaction, reorder)
writes docs/bench_<primitive>.png: time against the kept fraction, sieve beside
the memory copy of the same bytes (the bandwidth limit) and its peers (the
Kokkos idiom, the sequential loop), and the same as a multiple of the copy. A
primitive measured once (the scan) gets a bar chart. Needs matplotlib
(Debian: apt-get install python3-matplotlib, or scripts/setup.sh --plot).
"""
import argparse
import csv
import os
import sys
from collections import OrderedDict, defaultdict

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def load(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    need = {"primitive", "case", "n", "kept_fraction", "implementation", "role", "seconds",
            "x_memcpy"}
    if not rows or not need <= set(rows[0]):
        sys.exit(f"plot_bench.py: {path} is not a sieve_bench --csv file "
                 f"(columns {', '.join(sorted(need))})")
    for r in rows:
        r["seconds"] = float(r["seconds"])
        r["x_memcpy"] = float(r["x_memcpy"]) if r["x_memcpy"] else None
        r["kept"] = float(r["kept_fraction"]) if r["kept_fraction"] else None
        r["gbs"] = float(r["gb_per_s"]) if r.get("gb_per_s") else None
    return rows


def style(role, name):
    """Line style per role: the copy dashed black, sieve blue, peers warm colours."""
    if role == "memcpy":
        return dict(color="black", linestyle="--", linewidth=1.6, marker=None, zorder=3)
    if role == "sieve":
        api = "Kokkos API" in name
        return dict(color="#4f9be0" if api else "#0b4f9c", linestyle="-",
                    linewidth=1.4 if api else 2.4, marker="s" if api else "o",
                    markersize=4 if api else 5, zorder=4 if api else 5)
    warm = {"sequential": "#d9730d", "Kokkos": "#b8252a"}
    color = next((c for k, c in warm.items() if name.startswith(k)), "#7a7a7a")
    return dict(color=color, linestyle=":", linewidth=1.8, marker="^", markersize=5, zorder=2)


def label(role, name):
    if role == "memcpy":
        return f"{name} (bandwidth limit)"
    return name


def subtitle(rows):
    r = rows[0]
    n = int(r["n"])
    log2 = n.bit_length() - 1
    size = f"2^{log2}" if n == 1 << log2 else f"{n}"
    extra = []
    if r.get("threads"):
        extra.append(f"{r['threads']} threads")
    if r.get("isa"):
        extra.append(r["isa"])
    return f"n = {size}" + (", " + ", ".join(extra) if extra else "") + ", best of the repetitions"


def readable_log_axis(ax):
    """Log y axis labelled 1, 2, 3, 5, 10, ... instead of powers of ten."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter
    ax.set_yscale("log")
    ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 3.0, 5.0)))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.yaxis.set_minor_formatter(NullFormatter())


def plot_sweep(plt, prim, rows, out):
    by_impl = OrderedDict()
    for r in rows:
        by_impl.setdefault((r["implementation"], r["role"]), []).append(r)
    fig, (ax_t, ax_x) = plt.subplots(1, 2, figsize=(11, 4.4))
    for (name, role), rs in by_impl.items():
        rs.sort(key=lambda r: r["kept"])
        xs = [100 * r["kept"] for r in rs]
        st = style(role, name)
        ax_t.plot(xs, [1e3 * r["seconds"] for r in rs], label=label(role, name), **st)
        ax_x.plot(xs, [r["x_memcpy"] for r in rs], **st)
    readable_log_axis(ax_t)
    ax_t.set_ylabel("time [ms] (lower is better)")
    readable_log_axis(ax_x)
    ax_x.set_ylabel("time / memory copy of the same bytes")
    ax_x.axhline(1.0, color="black", linestyle="--", linewidth=1.0)
    for ax in (ax_t, ax_x):
        ax.set_xlabel("kept fraction [%]")
        ax.set_xlim(-2, 102)
        ax.set_xticks([0, 10, 25, 50, 75, 90, 100])
        ax.grid(True, which="major", alpha=0.35)
        ax.grid(True, which="minor", alpha=0.12)
    what = {"compact": "Stream compaction (mask -> index map)",
            "reorder": "Reorder of 4 planes (mask, x, y, z) and perm"}.get(prim, prim)
    fig.suptitle(f"{what}: {subtitle(rows)}", fontsize=11)
    fig.legend(loc="lower center", ncol=3, fontsize=8.5, frameon=False)
    fig.tight_layout(rect=(0, 0.11, 1, 1))
    fig.savefig(out, dpi=90)
    plt.close(fig)


def plot_bars(plt, prim, rows, out):
    rows = sorted(rows, key=lambda r: r["seconds"], reverse=True)
    fig, ax = plt.subplots(figsize=(8, 0.45 * len(rows) + 1.4))
    ys = range(len(rows))
    colors = [style(r["role"], r["implementation"])["color"] for r in rows]
    ax.barh(list(ys), [1e3 * r["seconds"] for r in rows], color=colors)
    ax.set_yticks(list(ys))
    ax.set_yticklabels([label(r["role"], r["implementation"]) for r in rows], fontsize=9)
    for y, r in zip(ys, rows):
        note = f" {1e3 * r['seconds']:.2f} ms"
        if r["x_memcpy"] is not None:
            note += f"  ({r['x_memcpy']:.2f}x copy)"
        ax.text(1e3 * r["seconds"], y, note, va="center", fontsize=8)
    ax.set_xlabel("time [ms] (lower is better)")
    ax.set_xlim(0, 1e3 * max(r["seconds"] for r in rows) * 1.45)
    what = {"scan": "Inclusive scan of int32"}.get(prim, rows[0]["case"])
    ax.set_title(f"{what}: {subtitle(rows)}", fontsize=10)
    ax.grid(True, axis="x", alpha=0.35)
    fig.tight_layout()
    fig.savefig(out, dpi=90)
    plt.close(fig)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("csv", help="the file sieve_bench --csv wrote")
    ap.add_argument("--out", default=os.path.join(ROOT, "docs"),
                    help="folder for the PNGs (default: docs/ of the checkout)")
    args = ap.parse_args()
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.exit("plot_bench.py needs matplotlib: apt-get install python3-matplotlib "
                 "(or scripts/setup.sh --plot)")
    rows = load(args.csv)
    os.makedirs(args.out, exist_ok=True)
    groups = defaultdict(list)
    for r in rows:
        groups[r["primitive"]].append(r)
    written = []
    for prim, rs in groups.items():
        out = os.path.join(args.out, f"bench_{prim}.png")
        if len({r["kept"] for r in rs}) > 1:
            plot_sweep(plt, prim, rs, out)
        else:
            # One case: if several sizes or fractions were not swept, take the last case.
            last = rs[-1]["case"]
            plot_bars(plt, prim, [r for r in rs if r["case"] == last], out)
        written.append(out)
    for w in written:
        print(f"wrote {os.path.relpath(w)} ({os.path.getsize(w) // 1024} KB)")


if __name__ == "__main__":
    main()
