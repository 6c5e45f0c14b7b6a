"""The book's manifest: one line per chapter (its module, which declares the page, parameters,
experiments and claims), in reading order, then the book's computed pages. Adding a chapter adds
its files and one line here."""

from __future__ import annotations

from graphrepro.pages import Page

CHAPTERS: tuple[str, ...] = (
    "graphrepro.chapters.hgcn_mlp_bug",
    "graphrepro.chapters.han_vs_gat",
    "graphrepro.chapters.gmnn_fair_eval",
    "graphrepro.chapters.lrgb_head",
    "graphrepro.chapters.mrr_variants",
)

BOOK_PAGES: tuple[Page, ...] = (
    Page("synthesis", "notebooks/synthesis.py", "What went wrong, and how to check your own baseline"),
    Page("verdicts", "notebooks/verdicts.py", "Verdicts"),
    Page("reproducibility", "notebooks/reproducibility.py", "Reproducibility"),
    Page("cost", "notebooks/cost.py", "Cost and performance"),
)
