"""Reporting: the one figure style, parameter tables, mean ± std cells and computed verdicts."""

from __future__ import annotations

import math
from collections.abc import Callable
from html import escape
from typing import Any

import matplotlib.pyplot as plt
import pandas as pd
import seaborn as sns
from IPython.display import HTML

from graphrepro import pages
from graphrepro.verdicts import Cell, Claim, Verdict, cell_is_judged, decisions


def set_style() -> None:
    """The book's single figure style, and tables that show every cell whole."""
    sns.set_theme(context="notebook", style="whitegrid", palette="colorblind", font_scale=0.95)
    plt.rcParams.update({"figure.dpi": 110, "savefig.bbox": "tight", "axes.titleweight": "bold"})
    pd.set_option("display.max_colwidth", None)  # pandas cuts cells at 50 characters with an ellipsis
    pd.set_option("display.max_rows", 500)


def is_published(slug: str, params: dict[str, Any]) -> bool:
    """True when ``params`` are exactly the standard profile's: the numbers the book publishes."""
    return params == pages.resolve(slug, "standard")


def profile_banner(slug: str, params: dict[str, Any], what: str = "This page was executed") -> HTML:
    """A line stating the profile a page ran with; a warning box when it is not the published one
    (another profile, or parameters that differ from the standard profile's)."""
    standard = pages.resolve(slug, "standard")
    changed = {k: v for k, v in params.items() if k != "profile" and v != standard.get(k)}
    profile = escape(str(params["profile"]))
    if params["profile"] == "standard" and not changed:
        return HTML(f'<p class="graphrepro-profile">Executed with the <strong>{profile}</strong> profile: '
                    "the numbers the published book shows.</p>")
    shown = "; ".join(f"{k} = {_text(v)}" for k, v in changed.items())
    detail = f", and {escape(shown)} where the standard profile differs" if changed else ""
    return HTML(
        '<div class="admonition warning graphrepro-banner"><p class="admonition-title">Not the published numbers</p>'
        f"<p>{escape(what)} with the <strong>{profile}</strong> profile{detail}. These numbers are not the ones "
        "the book publishes; <code>make book</code> executes the page again under <strong>standard</strong>.</p></div>"
    )


def run_this_chapter(slug: str, params: dict[str, Any], configs: list[dict[str, Any]], runs: pd.DataFrame) -> HTML:
    """'Run this chapter': the command that executes the page with these parameters, and what it will cost,
    from the records: how many of its runs are recorded and their training time."""
    total, recorded = len(configs), len(runs)
    hours = float(runs.wall_s.sum()) / 3600 if recorded else 0.0
    if recorded == total:
        cost = (f"All {total} runs are recorded, so it trains nothing and only executes the page; training them "
                f"took {_hours(hours)} of single-thread time in all.")
    elif recorded:
        mean = hours / recorded
        cost = (f"{recorded} of {total} runs are recorded; it trains the other {total - recorded} first, about "
                f"{_hours(mean * (total - recorded))} of single-thread training at the recorded runs' mean "
                "(divide by the workers, one per core).")
    else:
        cost = f"None of its {total} runs is recorded yet: it trains them all first (`python -m graphrepro bench --estimate standard --from-records` gives their cost)."
    return HTML('<div class="admonition tip graphrepro-run"><p class="admonition-title">Run this chapter</p>'
                f"<pre><code>{escape(pages.run_command(slug, params))}</code></pre><p>{escape(cost)}</p></div>")


def _hours(hours: float) -> str:
    return f"{hours:.1f} hours" if hours >= 1 else f"{max(1, round(hours * 60))} minutes"


def _text(value: Any) -> str:
    return ", ".join(map(str, value)) if isinstance(value, list) else str(value)


def figure_problems(fig: plt.Figure) -> list[str]:
    """What would make a figure hard to read: a drawn axis with neither a label (its own, or that of an axis
    it shares) nor text categories for ticks, or several labelled series without a legend."""
    problems = []
    for i, ax in enumerate(a for a in fig.axes if a.axison and a.has_data()):
        for name, shared, ticks in (("x", ax.get_shared_x_axes(), ax.get_xticklabels()),
                                    ("y", ax.get_shared_y_axes(), ax.get_yticklabels())):
            labelled = any(getattr(a, f"get_{name}label")().strip() for a in shared.get_siblings(ax))  # a shared axis: one label
            categories = any(t.get_text() and not t.get_text().lstrip("−-").replace(".", "", 1).replace(",", "").isdigit()
                             for t in ticks)
            if not labelled and not categories:
                problems.append(f"axes {i}: the {name} axis has no label")
        series = [h for h in ax.get_legend_handles_labels()[1] if not h.startswith("_")]
        if len(series) > 1 and ax.get_legend() is None and not fig.legends:
            problems.append(f"axes {i}: {len(series)} labelled series and no legend")
    return problems


def glue_figure(name: str, fig: plt.Figure) -> None:
    """Glue a figure for a ``{glue:figure}`` block and close it, so that it is not shown twice; a figure
    with an unlabelled axis or an unexplained series is refused (the page, and so the build, fails)."""
    from myst_nb import glue  # myst-nb: only a page's kernel needs it

    problems = figure_problems(fig)
    if problems:
        plt.close(fig)
        raise ValueError(f"figure {name!r} is hard to read: " + "; ".join(problems))
    glue(name, fig, display=False)
    plt.close(fig)


def parameters_table(params: dict[str, Any]) -> HTML:
    """The parameters a page ran with: a plain two-column table, collapsed under "Parameters of this run"."""
    table = plain_table(pd.DataFrame({"value": list(params.values())}, index=pd.Index(list(params), name="parameter")),
                        "graphrepro-params")
    return HTML(f'<details class="graphrepro-parameters"><summary>Parameters of this run</summary>{table.data}</details>')


def answer_box(chapter: str, params: dict[str, Any], claims: list[Claim], cells: list[dict[str, Any]], headline: str) -> HTML:
    """The box a chapter page opens with: how many of its claims hold, do not hold or are not decided, each
    claim's verdict (linked to its row in the Verdicts section), and the ``headline`` paper cell, paper beside ours
    (left out where the page's parameters leave that cell out). Under other parameters than the published ones,
    its title says so before any number."""
    judged = decisions(claims)
    plural = {Verdict.HOLDS: "hold", Verdict.DOES_NOT_HOLD: "do not hold"}
    tally = ", ".join(f"{n} {plural.get(v, v)}" for v in Verdict if (n := sum(d.verdict is v for d in judged)))
    items = "".join(
        f'<li><span class="verdict {claim_class(d.verdict)}">{escape(d.words)}</span> '
        f'<a href="#{escape(anchor(chapter, d.claim.id))}">{escape(d.claim.statement)}</a></li>' for d in judged)
    cell = next((c for c in cells if c["cell"] == headline), None)  # None where the parameters leave it out
    head = "" if cell is None else (
        f'<p class="graphrepro-headline"><strong>{escape(cell["cell"])}</strong>: paper {_keep(cell["paper"])}, '
        f'ours {_keep(cell["ours"])} <span class="verdict {verdict_class(cell["verdict"])}">'
        f'{escape(cell_verdict(cell["verdict"]))}</span></p>')
    caveat = "" if is_published(chapter, params) else f" (under the {params['profile']} profile: not the published numbers)"
    return HTML(f'<div class="admonition graphrepro-answer" id="{anchor(chapter, "answer")}"><p class="admonition-title">The answer: {len(judged)} '
                f'claims, {tally}{escape(caveat)}</p>{head}<ul class="graphrepro-answer-claims">{items}</ul></div>')


def plain_table(frame: pd.DataFrame, css: str = "") -> HTML:
    """A DataFrame as the book's plain table: its index (named or not) as the first column of row headers, no
    pandas header row for the index, a dash for a missing number, and every cell labelled for a phone."""
    table = dashed(frame.reset_index() if frame.index.name or not isinstance(frame.index, pd.RangeIndex) else frame)
    head = "".join(f"<th>{escape(str(c))}</th>" for c in table.columns)
    body = "".join("<tr>" + f"<th>{escape(_text(r.iloc[0]))}</th>" + "".join(
        f'<td data-label="{escape(str(c))}">{escape(_text(v))}</td>' for c, v in zip(table.columns[1:], r.iloc[1:])) + "</tr>"
        for _, r in table.iterrows())
    return HTML(f'<div class="table-scroll"><table class="graphrepro-grid {css}"><thead><tr>{head}</tr></thead>'
                f"<tbody>{body}</tbody></table></div>")


def dashed(table: pd.DataFrame) -> pd.DataFrame:
    """The table for display, a missing number shown as a dash rather than pandas' NaN."""
    return table.astype(object).where(table.notna(), "–")


def mean_std(values: pd.Series, scale: float = 100.0) -> tuple[float, float, int]:
    """Mean, sample standard deviation (0 for one value) and count, scaled (to percent by default)."""
    v = values.dropna() * scale
    return float(v.mean()) if len(v) else math.nan, float(v.std(ddof=1)) if len(v) > 1 else 0.0, len(v)


def fmt(mean: float, std: float) -> str:
    """'mean ± std' with one decimal, or a dash when there is no number."""
    return "–" if math.isnan(mean) else f"{mean:.1f} ± {std:.1f}"


def fmt_runs(mean: float, std: float, n: int) -> str:
    """``fmt``, but the mean alone, marked, where one run gives no spread to show."""
    return f"{mean:.1f} (one run)" if n == 1 else fmt(mean, std)


CLAIM_COLUMNS = ("chapter", "id", "claim", "verdict", "words", "evidence", "where")  # a row of the Verdicts page


def claim_rows(chapter: str, claims: list[Claim]) -> list[dict[str, Any]]:
    """A chapter's claims judged, as rows of the Verdicts page: the verdict (its ``Verdict``) and its words, the
    evidence, and the anchor of the claim's row in the chapter's verdict table."""
    return [{"chapter": chapter, "id": d.claim.id, "claim": d.claim.statement, "verdict": d.verdict, "words": d.words,
             "evidence": d.evidence, "where": anchor(chapter, d.claim.id)} for d in decisions(claims)]


CELL_COLUMNS = ("chapter", "cell", "paper", "ours", "runs", "tolerance", "verdict", "where")  # a row of the Verdicts page


def anchor(chapter: str, section: str) -> str:
    """The id of a labelled section of a chapter page (``(chapter-section)=`` in its notebook)."""
    return f"{chapter}-{section}"


def cell_rows(chapter: str, long: pd.DataFrame, label: Callable[[pd.Series], str], tolerance: float, section: str,
              runs: str = "seeds") -> list[dict[str, Any]]:
    """A chapter's paper-vs-ours table (columns ``paper``, ``ours``, ``verdict`` and ``runs`` as named) as rows of
    the Verdicts page: the cell, both numbers, the runs behind ours, the tolerance, the verdict (an unavailable
    cell's with its reason, the ``why`` column), and where; rows without a paper number are left out."""
    rows = []
    for _, r in long.iterrows():
        if r["paper"] == "–" or r["verdict"] == Cell.NO_PAPER_NUMBER:
            continue
        why = r.get("why", "") if r["verdict"] == Cell.UNAVAILABLE else ""
        why = why if isinstance(why, str) else ""  # NaN in a row of a table whose other rows set it
        rows.append({"chapter": chapter, "cell": label(r), "paper": r["paper"], "ours": "–" if why else r["ours"],
                     "runs": int(r[runs]), "tolerance": tolerance, "verdict": f"{Cell.UNAVAILABLE}: {why}" if why else r["verdict"],
                     "where": anchor(chapter, section)})
    return rows


def headline_row(chapter: str, failure: str, section: str, candidates: dict[Any, tuple[float, str]]) -> dict[str, Any]:
    """A chapter's line in the synthesis: of ``candidates`` (points moved, what was measured), the one that
    moved the number most; 'not run yet' when none has records."""
    known = [c for c in candidates.values() if not math.isnan(c[0])]
    points, measured = max(known, key=lambda c: abs(c[0])) if known else (math.nan, "not run yet")
    return {"chapter": chapter, "failure": failure, "measured": measured, "points": points, "where": anchor(chapter, section)}


def headlines_table(rows: pd.DataFrame) -> HTML:
    """The synthesis table: each failure mode, what the chapter measured (a link to it), and the points it moved."""
    body = "".join(f'<tr><th>{escape(r["failure"])}</th><td>{_link(r, r["measured"])}</td>'
                   f'<td>{"–" if math.isnan(r["points"]) else f"{r.points:+.1f}"}</td></tr>' for _, r in rows.iterrows())
    return HTML('<div class="table-scroll"><table class="graphrepro-grid graphrepro-headlines"><thead><tr><th>what went '
                f"wrong</th><th>what the chapter measured</th><th>points</th></tr></thead><tbody>{body}</tbody></table></div>")


def headlines_figure(rows: pd.DataFrame) -> plt.Figure:
    """One bar per failure mode: how many points it moved a headline number (one without records says so)."""
    values = rows.points.abs()
    fig, ax = plt.subplots(figsize=(6.0, 0.55 * len(rows) + 1.0))
    ax.barh(range(len(rows)), values.fillna(0), color=sns.color_palette()[0])
    ax.set_yticks(range(len(rows)), rows.failure)
    ax.invert_yaxis()
    ax.set_xlabel("points the headline number moved (absolute)")
    ax.set_title("How far each slip moved a result")
    for y, value in enumerate(values):
        ax.text(0 if math.isnan(value) else value, y, " not run yet" if math.isnan(value) else f" {value:.1f}", va="center")
    ax.set_xlim(0, max(1.0, float(values.max(skipna=True)) * 1.15 if values.notna().any() else 1.0))
    fig.tight_layout()
    return fig


def cell_verdict(word: str) -> str:
    """A cell's verdict in the book's words: reproduced, not reproduced (by how much), unavailable (why), not run."""
    return f"not reproduced ({word})" if word.startswith(Cell.DIFFERS) else word


def chapter_summary(cells: pd.DataFrame, claims: pd.DataFrame) -> pd.DataFrame:
    """Per chapter: paper numbers reproduced and claims that hold, of those decided; how many are not decided
    (inside the noise, one run, short of the paper's budget) and how many have no number (not run, unavailable);
    and the overall word: reproduced (all decided), partly (some), not reproduced (none), not decided (nothing
    decided, something undecided), not run (nothing recorded)."""
    rows = []
    for chapter in dict.fromkeys(list(cells.chapter) + list(claims.chapter)):
        mine, said = cells[cells.chapter == chapter], claims[claims.chapter == chapter]
        judged = mine[mine.verdict.map(cell_is_judged).astype(bool)] if len(mine) else mine
        decided = said[said.verdict.isin([Verdict.HOLDS, Verdict.DOES_NOT_HOLD])] if len(said) else said
        open_cells = int(mine.verdict.str.startswith(Cell.NOT_DECIDED).sum()) if len(mine) else 0
        open_claims = int((said.verdict == Verdict.NOT_DECIDED).sum()) if len(said) else 0
        reproduced, hold = int((judged.verdict == Cell.REPRODUCED).sum()), int((decided.verdict == Verdict.HOLDS).sum())
        good, total, undecided = reproduced + hold, len(judged) + len(decided), open_cells + open_claims
        word = (Cell.REPRODUCED if total and good == total else "partly" if good else "not reproduced" if total
                else Cell.NOT_DECIDED if undecided else Cell.NOT_RUN)
        rows.append({"chapter": chapter, "paper numbers reproduced": f"{reproduced} of {len(judged)}",
                     "claims that hold": f"{hold} of {len(decided)}",
                     "not decided / no number": f"{undecided} / {len(mine) + len(said) - total - undecided}", "overall": word})
    return pd.DataFrame(rows).set_index("chapter")


def _runs(n: int) -> str:
    return f'<span class="runs">{n} run{"s" if n != 1 else ""}</span>' if n else ""


def _link(row: pd.Series, text: str, folder: str = "") -> str:
    """``text`` linking to the chapter section a Verdicts-page row came from (the chapter pages under ``folder``)."""
    return f'<a href="{escape(folder + row["chapter"])}.html#{escape(row["where"])}">{escape(text)}</a>'


def grouped_table(frame: pd.DataFrame, css: str, headers: list[str], row: Callable[[pd.Series], str]) -> HTML:
    """A table whose rows are grouped by chapter, each group under a row naming (and linking) its chapter."""
    body = []
    for chapter, rows in frame.groupby("chapter", sort=False):
        body.append(f'<tr class="chapter"><th colspan="{len(headers)}"><a href="{escape(chapter)}.html">{escape(chapter)}</a></th></tr>')
        body += [f"<tr>{row(r)}</tr>" for _, r in rows.iterrows()]
    head = "".join(f"<th>{h}</th>" for h in headers)
    return HTML(f'<div class="table-scroll"><table class="graphrepro-grid {css}"><thead><tr>{head}</tr></thead>'
                f"<tbody>{''.join(body)}</tbody></table></div>")


_CLAIM_CELL = {Verdict.HOLDS: Cell.REPRODUCED, Verdict.DOES_NOT_HOLD: Cell.DIFFERS, Verdict.NOT_DECIDED: Cell.NOT_DECIDED}


def claim_class(verdict: str) -> str:
    """The CSS class that colours a claim's verdict: a cell's colour for holds, does not hold and not decided."""
    return verdict_class(_CLAIM_CELL.get(verdict, "none"))


def _claim_cells(r: pd.Series | dict[str, Any], claim: str) -> str:
    """A claim's row cells: the claim (as given), its colour-coded verdict in words, and the evidence."""
    return (f'<th>{claim}</th><td class="{claim_class(r["verdict"])}"><span class="verdict">{escape(r["words"])}</span></td>'
            f'<td data-label="evidence">{_keep(r["evidence"])}</td>')


def headline_claims_table(rows: pd.DataFrame, folder: str = "") -> HTML:
    """One row per chapter: its headline claim (linked to the answer its page opens with; chapter pages under
    ``folder`` as seen from the page showing it), the verdict in words, and its headline cell, paper beside ours."""
    body = "".join(
        f'<tr><th>{_link(r, r["claim"], folder)}<span class="runs">{escape(r["chapter"])}</span></th>'
        f'<td class="{claim_class(r["verdict"])}"><span class="verdict">{escape(r["words"])}</span></td>'
        f'<td data-label="paper">{escape(r["cell"])}: {_keep(r["paper"])}</td><td data-label="ours">{_keep(r["ours"])}</td></tr>'
        for _, r in rows.iterrows())
    return HTML('<div class="table-scroll"><table class="graphrepro-grid graphrepro-headline-claims"><thead><tr>'
                f"<th>the paper's claim</th><th>verdict</th><th>paper</th><th>ours</th></tr></thead><tbody>{body}</tbody></table></div>")


def claims_table(claims: pd.DataFrame) -> HTML:
    """Every chapter's claims with their colour-coded verdicts and evidence, grouped by chapter; each claim
    links to its row in the chapter's verdict table."""
    return grouped_table(claims, "graphrepro-claims", ["claim", "verdict", "evidence"],
                          lambda r: _claim_cells(r, _link(r, r["claim"])))


def cells_table(cells: pd.DataFrame) -> HTML:
    """The papers' numbers beside ours, a colour-coded verdict per row, grouped by chapter; each cell's name
    links to the chapter table that computed it."""
    def row(r: pd.Series) -> str:
        return (f'<th>{_link(r, r["cell"])}</th><td data-label="paper">{_keep(r["paper"])}</td>'
                f'<td data-label="ours">{_keep(r["ours"])}{_runs(r["runs"])}</td>'
                f'<td class="{verdict_class(r["verdict"])}"><span class="verdict">{escape(cell_verdict(r["verdict"]))}</span>'
                f'<span class="runs">within ±{r["tolerance"]:g}</span></td>')

    return grouped_table(cells, "graphrepro-cells", ["cell", "paper", "ours", "verdict"], row)


def verdict_table(chapter: str, claims: list[Claim]) -> HTML:
    """A chapter's claims judged, with colour-coded verdicts and evidence; each row's id is the claim's anchor,
    which the Verdicts page links to."""
    body = "".join(f'<tr id="{escape(r["where"])}">{_claim_cells(r, escape(r["claim"]))}</tr>'
                   for r in claim_rows(chapter, claims))
    return HTML('<div class="table-scroll"><table class="graphrepro-grid graphrepro-claims"><thead><tr><th>claim</th>'
                f"<th>verdict</th><th>evidence</th></tr></thead><tbody>{body}</tbody></table></div>")


def paper_table(paper: dict[str, dict[str, tuple[float, float]]], columns: list[str]) -> pd.DataFrame:
    """The paper's numbers as 'mean ± std', a row per model and a column per task."""
    return pd.DataFrame(
        {task: {row: fmt(*cells[task]) if task in cells else "–" for row, cells in paper.items()} for task in columns}
    )


def verdict_class(word: str) -> str:
    """The CSS class that colours a verdict: reproduced, differs, not decided, or none (no number to compare)."""
    if word == Cell.REPRODUCED:
        return "verdict-reproduced"
    if word.startswith(Cell.DIFFERS):
        return "verdict-differs"
    return "verdict-undecided" if word.startswith(Cell.NOT_DECIDED) else "verdict-none"


def _keep(text: str) -> str:
    """HTML text in which a 'mean ± std' never breaks across lines (the rest may wrap)."""
    return escape(text).replace(" ± ", "\u00a0±\u00a0")


def verdict_grid(long: pd.DataFrame, row: str, column: str, caption: str = "", corner: str = "") -> HTML:
    """A compact, colour-coded table: ``row`` values down, ``column`` values across, and in each cell the
    paper's number, ours and the verdict (columns ``paper``, ``ours``, ``verdict`` of ``long``); ``corner`` names
    the table in its top-left cell (one of several grids), ``caption`` goes under it."""
    columns = list(dict.fromkeys(long[column]))
    rows = list(dict.fromkeys(long[row]))
    cells = {(r[row], r[column]): r for _, r in long.iterrows()}
    head = "".join(f"<th>{escape(str(c))}</th>" for c in columns)
    body = []
    for name in rows:
        tds = []
        for col in columns:
            cell = cells.get((name, col))
            if cell is None:
                tds.append('<td class="verdict-none">–</td>')
                continue
            tds.append(
                f'<td class="{verdict_class(cell["verdict"])}" data-label="{escape(str(col))}">'
                f'<span class="paper">paper {_keep(cell["paper"])}</span>'
                f'<span class="ours">ours {_keep(cell["ours"])}</span>'
                f'<span class="verdict">{escape(cell["verdict"])}</span></td>'
            )
        body.append(f"<tr><th>{escape(str(name))}</th>{''.join(tds)}</tr>")
    title = f"<caption>{escape(caption)}</caption>" if caption else ""
    return HTML(f'<div class="table-scroll"><table class="graphrepro-grid">{title}<thead><tr><th>{escape(corner)}</th>{head}</tr></thead>'
                f"<tbody>{''.join(body)}</tbody></table></div>")
