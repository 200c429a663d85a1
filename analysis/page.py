"""A report's page: sections of tables and figures, written as report.html (self-contained: figures embedded as
base64 PNG), report.md (figures as PNG files beside it) and tables/*.csv; the matplotlib set-up every figure uses.

Below every report (analysis.report for runs, analysis.against for recorded games, analysis.grading for
``simkit analyze``): it knows sections, not what they hold."""

from __future__ import annotations

import base64
import html
import io
import math
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl

DPI = 90


# ------------------------------------------------------------------------------------------ sections

@dataclass
class Section:
    title: str
    text: str = ""
    tables: list[tuple[str, pl.DataFrame, dict]] = field(default_factory=list)  # (caption, frame, formats)
    figures: list[tuple[str, bytes]] = field(default_factory=list)  # (name, png)


def fmt(v, f):
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return ""
    if f == "pct":
        return f"{100 * v:.1f}%"
    if f == "pct2":
        return f"{100 * v:.2f}%"
    if f == "int":
        return f"{int(v):,}"
    if f == "p":
        return f"{v:.3g}"
    if isinstance(f, str) and f.startswith("."):
        return format(v, f)
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        return f"{v:.3f}"
    return str(v)


def _rows(df: pl.DataFrame, fmts: dict) -> tuple[list[str], list[list[str]]]:
    cols = list(fmts) if fmts else df.columns
    head = [fmts[c][0] if fmts else c for c in cols]
    rows = [[fmt(r[c], fmts[c][1] if fmts else None) for c in cols] for r in df.iter_rows(named=True)]
    return head, rows


def _links(df: pl.DataFrame, fmts: dict) -> list[list[str | None]]:
    """The link of each cell: a column whose format is a dict links each value it names (``{value: href}``)."""
    cols = list(fmts) if fmts else df.columns
    hrefs = [fmts[c][1] if fmts and isinstance(fmts[c][1], dict) else None for c in cols]
    if not any(hrefs):
        return [[None] * len(cols) for _ in range(df.height)]
    return [[h.get(r[c]) if h else None for c, h in zip(cols, hrefs)] for r in df.iter_rows(named=True)]


def html_table(df, fmts) -> str:
    head, rows = _rows(df, fmts)
    th = "".join(f"<th>{html.escape(h)}</th>" for h in head)
    cell = lambda x, a: f"<a href='{html.escape(a)}'>{html.escape(x)}</a>" if a else html.escape(x)  # noqa: E731
    body = "".join("<tr>" + "".join(f"<td>{cell(x, a)}</td>" for x, a in zip(r, ln)) + "</tr>"
                   for r, ln in zip(rows, _links(df, fmts)))
    return f"<table><thead><tr>{th}</tr></thead><tbody>{body}</tbody></table>"


def md_table(df, fmts) -> str:
    head, rows = _rows(df, fmts)
    esc = lambda s: s.replace("|", "\\|")  # noqa: E731
    cell = lambda x, a: f"[{esc(x)}]({a.replace(' ', '%20')})" if a else esc(x)  # noqa: E731
    lines = ["| " + " | ".join(esc(h) for h in head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(cell(x, a) for x, a in zip(r, ln)) + " |" for r, ln in zip(rows, _links(df, fmts))]
    return "\n".join(lines)


# ------------------------------------------------------------------------------------------ figures

def pyplot():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    plt.rcParams.update({"font.size": 9, "axes.titlesize": 10, "figure.dpi": DPI, "axes.grid": True,
                         "grid.alpha": 0.3})
    return plt


def png(fig) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=DPI, bbox_inches="tight")
    pyplot().close(fig)
    return buf.getvalue()


def grid(n: int, width: float = 4.0, height: float = 3.0):
    plt = pyplot()
    cols = min(n, 3)
    rows = max(1, math.ceil(n / cols))
    fig, axes = plt.subplots(rows, cols, figsize=(width * cols, height * rows), squeeze=False)
    for ax in axes.flat[n:]:
        ax.set_visible(False)
    return fig, list(axes.flat)


# ------------------------------------------------------------------------------------------ writing

CSS = """body{font-family:system-ui,sans-serif;max-width:1200px;margin:2em auto;padding:0 1em;color:#222}
table{border-collapse:collapse;margin:.5em 0 1.5em;font-size:.85em}th,td{border:1px solid #ccc;padding:2px 6px;
text-align:right}th{background:#f0f0f0}td:first-child{text-align:left}img{max-width:100%}h2{border-bottom:1px
solid #ddd;margin-top:2em}.note{color:#555}"""


def write(sections: list[Section], tables: dict[str, pl.DataFrame], out: Path, title: str) -> Path:
    """Write the report into ``out``: every file is first written into a temporary directory beside it and moved
    into place only when all are complete (report.html last), so an error leaves no half-written report."""
    import os
    import shutil
    import tempfile

    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    stage = Path(tempfile.mkdtemp(prefix=f".{out.name or 'report'}.tmp-", dir=out.parent))
    try:
        _write_files(sections, tables, stage, title)
        out.mkdir(exist_ok=True)
        names = sorted((p.relative_to(stage) for p in stage.rglob("*") if p.is_file()),
                       key=lambda p: (p.name in ("report.md", "report.html"), p.name == "report.html", str(p)))
        for sub in ("tables", "figures"):
            (out / sub).mkdir(exist_ok=True)
        for rel in names:
            os.replace(stage / rel, out / rel)
    finally:
        shutil.rmtree(stage, ignore_errors=True)
    return out / "report.html"


def _write_files(sections: list[Section], tables: dict[str, pl.DataFrame], out: Path, title: str) -> None:
    (out / "tables").mkdir(exist_ok=True)
    (out / "figures").mkdir(exist_ok=True)
    for name, df in tables.items():
        df.write_csv(out / "tables" / f"{name}.csv")
    h = [f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
         f"<style>{CSS}</style></head><body><h1>{html.escape(title)}</h1>"]
    md = [f"# {title}", ""]
    toc = [f"<li><a href='#s{i}'>{html.escape(s.title)}</a></li>" for i, s in enumerate(sections)]
    h.append("<ul>" + "".join(toc) + "</ul>")
    for i, s in enumerate(sections):
        h.append(f"<h2 id='s{i}'>{html.escape(s.title)}</h2>")
        md += [f"## {s.title}", ""]
        if s.text:
            h.append(f"<p class='note'>{html.escape(s.text)}</p>")
            md += [s.text, ""]
        for name, image in s.figures:
            (out / "figures" / f"{name}.png").write_bytes(image)
            b64 = base64.b64encode(image).decode()
            h.append(f"<figure><img alt='{html.escape(name)}' src='data:image/png;base64,{b64}'></figure>")
            md += [f"![{name}](figures/{name}.png)", ""]
        for cap, df, fmts in s.tables:
            if cap:
                h.append(f"<h3>{html.escape(cap)}</h3>")
                md += [f"### {cap}", ""]
            h.append(html_table(df, fmts))
            md += [md_table(df, fmts), ""]
    h.append("<p class='note'>Tables as CSV in tables/; definitions in docs/analysis.md.</p></body></html>")
    md += ["Tables as CSV in `tables/`; definitions in docs/analysis.md.", ""]
    (out / "report.html").write_text("\n".join(h), encoding="utf-8")
    (out / "report.md").write_text("\n".join(md), encoding="utf-8")
