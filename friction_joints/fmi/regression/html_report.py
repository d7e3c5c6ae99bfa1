"""A static HTML report of a regression run: a summary table and a page per case with a plot of every
checked signal (reference, tube, result, the samples outside the tube); PNG images made with matplotlib."""

from __future__ import annotations

import html
import io
from datetime import datetime
from pathlib import Path
from urllib.parse import quote

import numpy as np

from .check import Outcome
from .tube import SignalVerdict, envelope, excursions

STATUS = ("PASS", "FAIL", "ERROR")
STYLE = """body{font-family:sans-serif;margin:1.5em;max-width:60em}table{border-collapse:collapse}
td,th{border:1px solid #ccc;padding:.25em .6em;text-align:left}td.num{text-align:right}
.PASS{color:#176e17}.FAIL,.ERROR{color:#b00;font-weight:bold}pre{white-space:pre-wrap}img{max-width:100%}"""


def _page(title: str, body: str) -> str:
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>'
            f"<style>{STYLE}</style></head>\n<body>\n<h1>{html.escape(title)}</h1>\n{body}\n</body></html>\n")


def plot_png(outcome: Outcome, signal: SignalVerdict) -> bytes:
    """A PNG of the signal: above, the reference, its tube, the result and the samples outside the tube;
    below, the result's signed distance from the reference in tube widths (the tube's edges at +-1)."""
    from matplotlib.figure import Figure

    verdict = outcome.verdict
    t_ref, y_ref = verdict.reference["time"], verdict.reference[signal.name]
    low, high, _ = envelope(t_ref, t_ref, y_ref, verdict.ttol)
    fig = Figure(figsize=(8, 3.8), dpi=80)
    ax, widths = fig.subplots(2, 1, sharex=True, height_ratios=[3, 1.2])
    fig.subplots_adjust(left=0.08, right=0.98, top=0.92, bottom=0.12, hspace=0.08)
    ax.fill_between(t_ref, low - signal.width, high + signal.width, color="tab:green", alpha=0.25, lw=0,
                    label="tube")
    ax.plot(t_ref, y_ref, color="black", lw=1, ls="--", label="reference")
    widths.axhspan(-1, 1, color="tab:green", alpha=0.25, lw=0)
    result = verdict.run.result
    if result is not None:
        t, y = result["time"], result[signal.name].astype(float)
        ax.plot(t, y, color="tab:blue", lw=1.2, label="result")
        low_t, high_t, _ = envelope(t, t_ref, y_ref, verdict.ttol)
        signed = np.where(y > high_t, y - high_t, np.where(y < low_t, y - low_t, 0.0)) / signal.width
        outside = excursions(t, y, t_ref, y_ref, verdict.rtol, verdict.ttol)[0] > 1
        shown = np.where(np.isfinite(y), y, np.interp(t, t_ref, y_ref))  # a NaN marked on the reference
        ax.plot(t[outside], shown[outside], "x", color="red", ms=5, label="outside the tube")
        widths.plot(t, signed, color="tab:blue", lw=1)
        widths.plot(t[outside], np.where(np.isfinite(signed), signed, 0.0)[outside], "x", color="red", ms=5)
    if signal.first_violation is not None:
        for a in (ax, widths):
            a.axvline(signal.first_violation, color="red", lw=0.8, ls=":")
    widths.set_xlabel("time [s]")
    widths.set_ylabel("tube widths", fontsize=8)
    ax.set_title(f"{signal.name}: largest excursion {signal.max_excursion:.3g} tube widths", fontsize=10)
    ax.legend(fontsize=8, loc="best")
    png = io.BytesIO()
    fig.savefig(png, format="png")
    return png.getvalue()


def _case_page(outcome: Outcome, folder: Path, name: str) -> str:
    """Write the case's page folder/<name>.html and its images folder/<name>/<i>.png; return the page's file name."""
    v = outcome.verdict
    lines = ['<p><a href="../index.html">all cases</a></p>',
             f'<p class="{STATUS[outcome.status]}">{STATUS[outcome.status]}</p>']
    if v is None:
        lines.append(f"<pre>{html.escape(outcome.error)}</pre>")
    else:
        if not v.passed:
            lines.append("<ul>" + "".join(f"<li>{html.escape(r)}</li>" for r in v.reasons()) + "</ul>")
        if v.run.log:
            lines.append("<h2>The FMU's log</h2><pre>" + html.escape("\n".join(v.run.log)) + "</pre>")
        lines.append(f"<p>Tube: width {v.rtol:g} of each signal's range, time tolerance {v.ttol:g} s; "
                     f"run time {v.seconds:.2f} s.</p>")
        (folder / name).mkdir(parents=True, exist_ok=True)
        pngs = outcome.plots or [plot_png(outcome, signal) for signal in v.signals]
        for i, signal in enumerate(v.signals):
            (folder / name / f"{i}.png").write_bytes(pngs[i])
            status = "ok" if signal.passed else html.escape(signal.message())
            lines.append(f'<h2 id="s{i}">{html.escape(signal.name)}</h2>'
                         f'<p class="{"PASS" if signal.passed else "FAIL"}">{status}</p>'
                         f'<img src="{quote(name)}/{i}.png" alt="{html.escape(signal.name)}">')
    (folder / f"{name}.html").write_text(_page(outcome.label, "\n".join(lines)))
    return f"{name}.html"


def write_report(outcomes: list[Outcome], folder, title: str = "FMU regression") -> Path:
    """Write folder/index.html (a row per case, failures and errors first) and a page per case under
    folder/cases/; return the index's path."""
    folder = Path(folder)
    cases = folder / "cases"
    cases.mkdir(parents=True, exist_ok=True)
    rows = []
    for i, outcome in sorted(enumerate(outcomes), key=lambda io: ((2, 0, 1)[io[1].status], io[0])):
        page = _case_page(outcome, cases, f"{i}-{Path(outcome.fmu).stem}-{outcome.case}")
        worst = outcome.verdict.worst() if outcome.verdict else None
        worst = f"{html.escape(worst.name)} ({worst.max_excursion:.3g})" if worst else ""
        seconds = f"{outcome.verdict.seconds:.2f}" if outcome.verdict else ""
        rows.append(f'<tr><td><a href="cases/{quote(page)}">{html.escape(outcome.case or outcome.fmu)}</a></td>'
                    f"<td>{html.escape(outcome.fmu)}</td><td class=\"{STATUS[outcome.status]}\">"
                    f"{STATUS[outcome.status]}</td><td>{worst}</td><td class=\"num\">{seconds}</td>"
                    f"<td>{html.escape(outcome.headline())}</td></tr>")
    counts = ", ".join(f"{sum(o.status == s for o in outcomes)} {STATUS[s].lower()}" for s in range(3))
    body = (f"<p>{len(outcomes)} cases: {counts}; {datetime.now().isoformat(timespec='seconds')}.</p>\n"
            "<table><tr><th>case</th><th>FMU</th><th>status</th><th>worst signal (tube widths)</th>"
            "<th>run time [s]</th><th>why</th></tr>\n" + "\n".join(rows) + "\n</table>")
    index = folder / "index.html"
    index.write_text(_page(title, body))
    return index
