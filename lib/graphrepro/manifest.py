"""The book's manifest: one line per chapter (its module, which declares the page, parameters,
experiments and claims), in reading order, then the book's computed pages. Adding a chapter adds
its files and one line here."""

from __future__ import annotations

from graphrepro.chapters import Page

CHAPTERS: tuple[str, ...] = (
    "graphrepro.claims.hgcn_mlp_bug",
    "graphrepro.claims.han_vs_gat",
    "graphrepro.claims.gmnn_fair_eval",
    "graphrepro.claims.lrgb_head",
    "graphrepro.claims.mrr_variants",
)

BOOK_PAGES: tuple[Page, ...] = (
    Page("synthesis", "notebooks/synthesis.py", "What went wrong, and how to check your own baseline"),
    Page("verdicts", "notebooks/verdicts.py", "Verdicts"),
    Page("reproducibility", "notebooks/reproducibility.py", "Reproducibility"),
)
