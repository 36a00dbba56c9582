"""The two plots solver papers show: a cactus plot and a two-solver scatter plot.

Both are written as SVG (for papers) and PNG (for a quick look), with the Agg
backend and no date in the metadata, so the same results give the same files.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from matplotlib.figure import Figure

_SVG_META = {"Date": None, "Creator": None}
_PNG_META = {"Software": None}


def _save(fig: Figure, out: Path, stem: str) -> list[Path]:
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    FigureCanvasAgg(fig)
    paths = [out / f"{stem}.svg", out / f"{stem}.png"]
    fig.savefig(paths[0], format="svg", bbox_inches="tight", metadata=_SVG_META)
    fig.savefig(paths[1], format="png", dpi=120, bbox_inches="tight", metadata=_PNG_META)
    return paths


def cactus(times: Mapping[str, Mapping[str, float | None]], timeout: float,
           out: Path) -> list[Path]:
    """Solved instances (x) against the time each took, sorted (y, log scale).

    A line further right solved more; lower, faster. The virtual best is dashed.
    """
    from matplotlib.figure import Figure

    fig = Figure(figsize=(6.4, 4.4))
    ax = fig.add_subplot()
    for name, per_file in times.items():
        solved = sorted(t for t in per_file.values() if t is not None)
        xs = list(range(1, len(solved) + 1))
        style = "--" if name == "virtual best" else "-"
        ax.plot(xs, [max(t, 1e-4) for t in solved], style, marker=".",
                label=f"{name} ({len(solved)})")
    ax.axhline(timeout, color="grey", linewidth=0.8, linestyle=":")
    ax.set_yscale("log")
    ax.set_xlabel("instances solved")
    ax.set_ylabel("seconds per instance (log)")
    ax.set_title(f"Cactus plot (time limit {timeout:g} s)")
    ax.legend(loc="upper left", fontsize="small")
    ax.grid(True, which="major", alpha=0.3)
    return _save(fig, out, "cactus")


def scatter(times: Mapping[str, Mapping[str, float | None]], first: str, second: str,
            timeout: float, out: Path) -> list[Path]:
    """Per file, ``first``'s time (x) against ``second``'s (y), log-log, with the diagonal.

    Unsolved runs sit at the time limit and are drawn as crosses; files either
    solver skipped are left out (their number is in the title).
    """
    from matplotlib.figure import Figure

    a, b = times[first], times[second]
    common = sorted(set(a) & set(b))
    skipped = len(set(a) ^ set(b))
    floor = 1e-3
    solved_pts, limit_pts = [], []
    for file in common:
        x, y = a[file], b[file]
        point = (max(x if x is not None else timeout, floor),
                 max(y if y is not None else timeout, floor))
        (solved_pts if x is not None and y is not None else limit_pts).append(point)
    fig = Figure(figsize=(5.2, 5.2))
    ax = fig.add_subplot()
    if solved_pts:
        ax.scatter(*zip(*solved_pts, strict=True), s=14, label="both solved")
    if limit_pts:
        ax.scatter(*zip(*limit_pts, strict=True), s=24, marker="x", color="tab:red",
                   label="unsolved by one or both (at the limit)")
    ax.plot([floor, timeout], [floor, timeout], color="grey", linewidth=0.8)
    ax.axvline(timeout, color="grey", linestyle=":", linewidth=0.8)
    ax.axhline(timeout, color="grey", linestyle=":", linewidth=0.8)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(floor * 0.8, timeout * 1.5)
    ax.set_ylim(floor * 0.8, timeout * 1.5)
    ax.set_xlabel(f"{first} (seconds)")
    ax.set_ylabel(f"{second} (seconds)")
    title = f"{first} vs {second}"
    if skipped:
        title += f" ({skipped} files skipped by one solver left out)"
    ax.set_title(title, fontsize="medium")
    ax.legend(loc="upper left", fontsize="small")
    return _save(fig, out, "scatter")
