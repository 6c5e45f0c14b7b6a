"""What the book's computed pages (synthesis, Verdicts, Reproducibility) read across the chapters."""

from __future__ import annotations

from typing import Any

import pandas as pd

from graphrepro import pages, report
from graphrepro.pages import chapter_module
from graphrepro.report import CELL_COLUMNS, CLAIM_COLUMNS, anchor


def executed_with(profile: str) -> dict[str, dict[str, Any]]:
    """For every chapter, the parameters its executed page ran with; ``profile``'s for a chapter whose
    page has not been executed."""
    from graphrepro import runner  # executing pages needs Jupyter; reading records does not

    chosen = {}
    for page in pages.chapter_pages():
        ran = runner.executed_parameters(page.slug)
        given = ran if ran is not None else {"profile": profile}
        chosen[page.slug] = pages.resolve(page.slug, given.pop("profile"), **given)
    return chosen


def chapters_as_executed(page: str, profile: str, rows: str = "rows come") -> dict[str, dict[str, Any]]:
    """For a computed page: each chapter's parameters as its page ran (``executed_with``), a banner shown for
    every chapter whose ``rows`` are not the published numbers."""
    from IPython.display import display  # IPython: only a page's kernel needs it

    pages.resolve(page, profile)
    used = executed_with(profile)
    for slug, params in used.items():
        if not report.is_published(slug, params):
            display(report.profile_banner(slug, params, what=f"The {slug} {rows} from its page, executed"))
    return used


def parameters_used(params_by_chapter: dict[str, dict[str, Any]]) -> pd.DataFrame:
    """Per chapter: the profile its verdicts were computed under and the parameters that differ from it."""
    rows = []
    for slug, params in params_by_chapter.items():
        profile = pages.resolve(slug, params["profile"])
        changed = [f"{k} = {v}" for k, v in params.items() if v != profile[k]]
        rows.append({"chapter": slug, "profile": params["profile"], "other parameters": "; ".join(changed) or "none"})
    return pd.DataFrame(rows).set_index("chapter")


def chapter_tables(slug: str, params: dict[str, Any]) -> Any:
    """A chapter's ``tables.Tables`` over its records under ``params``: each table built once, when read."""
    return chapter_module(slug, "tables").Tables(params, chapter_module(slug, "configs").recorded_runs(params))


def all_findings(params_by_chapter: dict[str, dict[str, Any]]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Every chapter's paper numbers beside ours and its judged claims, each under the parameters given for it,
    from one read of its records (nothing is trained)."""
    cells, claims = [], []
    for slug, params in params_by_chapter.items():
        found, chapter = chapter_tables(slug, params), chapter_module(slug, "claims")
        cells += chapter.paper_cells(found)
        claims += report.claim_rows(slug, chapter.claims(found))
    return pd.DataFrame(cells, columns=list(CELL_COLUMNS)), pd.DataFrame(claims, columns=list(CLAIM_COLUMNS))


def all_headlines(params_by_chapter: dict[str, dict[str, Any]]) -> pd.DataFrame:
    """Every chapter's strongest number for the synthesis, under the parameters given for it (nothing is trained)."""
    return pd.DataFrame([chapter_module(slug, "claims").headline(chapter_tables(slug, params))
                         for slug, params in params_by_chapter.items()], columns=["chapter", "failure", "measured", "points", "where"])


def headline_claims(cells: pd.DataFrame, claims: pd.DataFrame) -> pd.DataFrame:
    """Per chapter (``all_findings``' frames): its headline claim, the paper's sentence, with the verdict of the
    claims that decide it taken together, and its headline cell, paper beside ours."""
    rows = []
    for slug in dict.fromkeys(claims.chapter):
        module, mine = chapter_module(slug, "claims"), claims[claims.chapter == slug]
        verdict, words = module.HEADLINE_CLAIM.judge(list(zip(mine.id, mine.verdict, mine.words)))
        cell = cells[(cells.chapter == slug) & (cells.cell == module.HEADLINE)]
        rows.append({"chapter": slug, "claim": module.HEADLINE_CLAIM.statement, "verdict": verdict, "words": words,
                     "cell": module.HEADLINE, "paper": cell.paper.iloc[0] if len(cell) else "–",
                     "ours": cell.ours.iloc[0] if len(cell) else "–", "where": anchor(slug, "answer")})
    return pd.DataFrame(rows)
