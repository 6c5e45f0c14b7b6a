"""mrr-variants: the claims, their verdicts, the paper-vs-ours cells, the headline and the findings' numbers."""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable
from typing import Any

import pandas as pd

from graphrepro import report
from graphrepro.chapters.mrr_variants.paper import CHAPTER, KG_LABELS, PAPER_KG_MRR, PAPER_PCQM, QUALITY_TOLERANCE
from graphrepro.chapters.mrr_variants.tables import RHO, SCALE, TREND_P, Quality, Tables, pykeen_gaps, shift_gains, worked_example
from graphrepro.experiments import kg_hoyt
from graphrepro.metrics import ranking
from graphrepro.verdicts import LEVEL, Cell, Claim, Evidence, Headline, effect_evidence, every


# the answer a page opens with: the paper cell a reader sees first, and the paper's headline sentence
# decided by the chapter's claims whose ids end so
HEADLINE = f"worked example, extended-filtered (MRR {SCALE})"
HEADLINE_CLAIM = Headline("Adjusted rank metrics depend less on the number of candidates than MRR",
                          "amrr-less-size-dependent")


def _rho(t: Tables, metric: str, column: str = RHO) -> float:
    """Spearman ρ of ``metric`` (a ``ranking.RANK_METRICS`` name) with the number of candidates, or another column of
    ``tables.size_correlations``; NaN before any run."""
    label = ranking.RANK_METRICS[metric].label.replace("Hits@k", "Hits@10")
    return t.correlations[column].get(label, math.nan) if len(t.correlations) else math.nan


def _p(t: Tables, metric: str) -> float:
    """The permutation p of ``metric``'s size trend (``tables.size_trend``); NaN before any run."""
    return _rho(t, metric, TREND_P)


def finding_numbers(t: Tables) -> dict[str, str]:
    """The numbers the findings quote, as glue keys and text: from the variant frame, the tie table and the
    knowledge-graph frame the page shows."""
    shift, changes = t.shift, t.orders["order changes"] if len(t.orders) else None
    reordered = [] if changes is None else list(changes[changes == "yes"].index)
    constant = t.ties["constant"]
    largest = pykeen_gaps(t.kgs).max() if len(t.kgs) else math.nan
    rho = {name: _rho(t, m) for m, name in (("mrr", "MRR"), ("amrr", "AMRR"), ("amri", "AMRI"), ("z_mrr", "z-scored MRR"))}
    return {
        "mrr_variants_shifts": "; ".join(f"{graph} {row['raw']:.1f} raw, {row['+ filtering']:+.1f} for filtering, "
                                         f"{row['+ no self-loops']:+.1f} for removing self-loops"
                                         for graph, row in shift.iterrows()) or "not run yet",
        "mrr_variants_reordered": (f"{len(reordered)} of {len(changes)}" + (f" ({', '.join(reordered)})" if reordered else "")
                                   if changes is not None else "not run yet"),
        "mrr_variants_constant": (f"{constant['MRR, optimistic']:g} under optimistic ranks, {constant['MRR, realistic']:g} under "
                                  f"realistic and {constant['MRR, pessimistic']:g} under pessimistic ones ({SCALE})"),
        "mrr_variants_rho": (", ".join(f"{name} {v:+.2f}" for name, v in rho.items()) if any(not math.isnan(v) for v in rho.values())
                             else "not computable here (it needs knowledge graphs of different sizes)"),
        "mrr_variants_counted": _counted_text(t.quality),
        "mrr_variants_above": above_text(t.quality),
        "mrr_variants_kg_source": f"{kg_hoyt.REPOSITORY} @ {kg_hoyt.COMMIT[:7]}",  # a 40-digit word would not fit a phone
        "mrr_variants_crosscheck": "not run yet" if math.isnan(largest) else f"{largest:.1g} ({SCALE} where the page shows it so) over {len(t.kgs)} runs",
        "mrr_variants_pcqm": (f"raw MRR {100 * PAPER_PCQM['raw'][0]:.2f} ± {100 * PAPER_PCQM['raw'][1]:.2f}, extended-filtered "
                              f"{100 * PAPER_PCQM['extended'][0]:.2f} ± {100 * PAPER_PCQM['extended'][1]:.2f} ({SCALE})"),
        "mrr_variants_example": ", ".join(f"{v:g}" for v in worked_example()[f"MRR {SCALE} (note)"]),
    }


def _counted_text(quality: pd.DataFrame) -> str:
    """Which knowledge-graph models count (trained to the paper's quality), as '2 of 8 (Nations: RotatE; ...)'."""
    trained = quality[quality.runs > 0] if len(quality) else quality
    if not len(trained):
        return "none trained yet"
    good = trained[trained.quality == Quality.COUNTS.value]
    named = "; ".join(f"{KG_LABELS.get(d, d)}: {', '.join(part.model)}" for d, part in good.groupby("dataset", sort=False))
    return f"{len(good)} of {len(trained)}" + (f" ({named})" if named else "")


def above_text(quality: pd.DataFrame) -> str:
    """The models whose MRR exceeds the paper's by more than ``QUALITY_TOLERANCE`` (relative), with both MRRs."""
    above = quality[quality.share > 1 + QUALITY_TOLERANCE] if len(quality) else quality
    return "; ".join(f"{m} on {KG_LABELS.get(d, d)}, {ours:.1f} against {paper:.1f} ({share - 1:+.1%})"
                     for d, m, ours, paper, share in zip(above.dataset, above.model, above.ours, above.paper, above.share)) or "none"


def paper_cells(t: Tables) -> list[dict[str, Any]]:
    """The papers' numbers beside ours, for the Verdicts page: the worked example's three MRRs (computed by
    the library, equal to the note's three decimals) and the PCQM-Contact shift, which is not obtainable here."""
    note, ours = f"MRR {SCALE} (note)", f"MRR {SCALE} (ours)"
    rows = [{"chapter": CHAPTER, "cell": f"worked example, {variant} (MRR {SCALE})", "paper": f"{r[note]:.1f}",
             "ours": f"{r[ours]:.1f}", "runs": 0, "tolerance": 0.05,
             "verdict": Cell.REPRODUCED if abs(r[ours] - r[note]) <= 0.05 else
             f"{Cell.DIFFERS} by {r[ours] - r[note]:+.1f}", "where": report.anchor(CHAPTER, "worked-example")}
            for variant, r in worked_example().iterrows()]
    raw, extended = PAPER_PCQM["raw"], PAPER_PCQM["extended"]
    return rows + [{"chapter": CHAPTER, "cell": f"PCQM-Contact, GPS: raw → extended-filtered MRR {SCALE}",
                    "paper": f"{100 * raw[0]:.2f} → {100 * extended[0]:.2f}", "ours": "–", "runs": 0, "tolerance": t.params["tolerance"],
                    "verdict": f"{Cell.UNAVAILABLE}: PCQM-Contact is not obtainable here (the chapter measures the shift on "
                               "its own graphs)", "where": report.anchor(CHAPTER, "raw-filtered")}]


def headline(t: Tables) -> dict[str, Any]:
    """The chapter's strongest number for the synthesis: how much raw and extended-filtered MRR differ."""
    shifts = {graph: (row["+ both"], f"{graph}: MRR {row['raw']:.1f} raw, {row['raw'] + row['+ both']:.1f} extended-filtered (× 100)")
              for graph, row in t.shift.iterrows()}
    return report.headline_row(CHAPTER, "an inconsistent metric", "raw-filtered", shifts)


def claims(t: Tables) -> list[Claim]:
    """The chapter's claims, decided from the records (nothing is trained here)."""
    tol = t.params["tolerance"]
    changes = t.orders["order changes"] if len(t.orders) else None
    counts = [math.nan, math.nan] if changes is None else [float((changes == "yes").sum()), float(len(changes))]
    mrr_trend = functools.cache(lambda: _trend(t, "mrr"))
    return [
        Claim("filtering-raises-mrr", f"Filtering and removing self-loops raise MRR by more than {tol:g} point(s) on every graph",
              lambda: every([effect_evidence(g, gains, tol, unit="run") for g, gains in shift_gains(t.frame).items()])
              if len(t.frame) else Evidence(None, "no records")),
        Claim("variant-reorders-encoders", "The variant changes the order of the encoders on at least one graph",
              lambda: _reordered(*counts)),
        Claim("mrr-falls-with-size", "MRR falls as the number of candidates grows (Spearman ρ < 0 across knowledge "
              "graphs and models)", _by_size(t, mrr_trend)),
        Claim("amrr-less-size-dependent", "The adjusted MRR depends less on size than MRR (|ρ| smaller), the pair "
              "Hoyt et al. compare", _by_size(t, lambda: _less_dependent(t, mrr_trend()))),
    ]


ALPHA = 1 - LEVEL
# the fewest graphs whose sizes can be permuted to a two-sided p below ALPHA (2 of k! assignments reach |ρ| = 1):
# five, so Hoyt et al.'s four graphs could not decide it either
MIN_GRAPHS = next(k for k in itertools.count(2) if 2 / math.factorial(k) < ALPHA)
# the knowledge graphs with a published MRR that a model can be held to: only their models can count
PUBLISHED_GRAPHS = sorted({dataset for dataset, _ in PAPER_KG_MRR})
SIZE_DECIDABLE = len(PUBLISHED_GRAPHS) >= MIN_GRAPHS  # whether any profile can decide the size claims


def published_note() -> str:
    """Whether the published MRRs cover enough knowledge graphs for any profile to decide the size claims."""
    names = ", ".join(KG_LABELS.get(d, d) for d in PUBLISHED_GRAPHS)
    if SIZE_DECIDABLE:
        return f"published MRRs cover {len(PUBLISHED_GRAPHS)} graphs ({names}), enough for the `paper` profile to decide them"
    return (f"published MRRs cover only {len(PUBLISHED_GRAPHS)} graphs ({names}), so no profile decides them until a "
            "graph with published MRRs for these models is added")


def _trend(t: Tables, metric: str) -> Evidence:
    """A metric's size trend decided on its permutation p (``tables.size_trend``): it falls (holds) or rises (does not
    hold) when p < ``ALPHA``, else it is inside the noise."""
    rho, p = _rho(t, metric), _p(t, metric)
    if math.isnan(p):
        return Evidence(None, "no size trend computable")
    text = f"ρ = {rho:.2f}, p = {p:.3f} (graphs' sizes permuted)"
    return Evidence(rho < 0, text) if p < ALPHA else Evidence(None, text, undecided="inside the noise")


def _less_dependent(t: Tables, mrr: Evidence) -> Evidence:
    """Hoyt et al.'s comparison of |ρ| for AMRR and MRR, made as they make it (two numbers), once MRR's own size trend
    (``mrr``, from ``_trend``) is decided; while that trend is inside the noise there is no dependence to compare."""
    text = f"AMRR ρ = {_rho(t, 'amrr'):.2f}, MRR {mrr.text}; AMRI ρ = {_rho(t, 'amri'):.2f} beside"
    if mrr.holds is None:
        return Evidence(None, text, undecided="MRR's own size trend is inside the noise" if mrr.undecided else "")
    return Evidence(abs(_rho(t, "amrr")) < abs(_rho(t, "mrr")), text)


def _by_size(t: Tables, decide: Callable[[], Evidence]) -> Callable[[], Evidence]:
    """A size claim's rule (``decide``) over the models that count (``Quality.COUNTS``): not decided while those
    cover fewer than ``MIN_GRAPHS`` knowledge graphs, since no trend over fewer could be told from chance."""
    def gated() -> Evidence:
        q = t.quality
        trained = q[q.runs > 0].dataset.nunique() if len(q) else 0
        good = q[q.quality == Quality.COUNTS.value].dataset.nunique() if len(q) else 0
        if not trained:
            return Evidence(None, "no records")
        if good < MIN_GRAPHS:
            short = "" if SIZE_DECIDABLE else f"; published MRRs exist on {len(PUBLISHED_GRAPHS)}"
            return Evidence(None, f"models at the paper's quality on {good} of the {trained} knowledge graphs trained{short}",
                            undecided=f"a size trend needs {MIN_GRAPHS} graphs with models at the paper's quality")
        return decide()

    return gated


def _reordered(yes: float, graphs: float) -> Evidence:
    """The order claim: it holds where a variant reorders the encoders on one of our graphs; where none does, it
    is not observed here rather than refuted (Tönshoff et al. saw it on PCQM-Contact's small molecules, which
    cannot be had; ours have thousands of nodes)."""
    if math.isnan(graphs):
        return Evidence(None, "no records")
    text = f"{yes:.0f} of {graphs:.0f} graphs"
    if yes > 0:
        return Evidence(True, text)
    return Evidence(None, f"{text} (the paper's case, PCQM-Contact's small molecules, cannot be had)", undecided="not observed here")
