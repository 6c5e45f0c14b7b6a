# ---
# jupyter:
#   jupytext:
#     formats: py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Are we really making much progress? HAN vs GAT
#
# **Claim** ({cite:t}`lv2021hgb`, the HGB paper): heterogeneous GNNs such as HAN {cite:p}`wang2019han` looked
# better than homogeneous ones because their baselines were given the wrong inputs; GAT on the whole heterogeneous
# graph {cite:p}`velickovic2018gat`, with proper inputs, matches or beats HAN, and a simple extension of GAT (Simple-HGN: edge-type
# attention, residuals, L2-normalised output) beats both.
#
# We re-run the node-classification half of the HGB benchmark on DBLP, ACM and IMDB from the original
# release (real test labels), following THUDM/HGB's code: its per-type input projections, feature
# modes, GAT and GCN settings, Simple-HGN's layer, and early stopping on validation loss.

# %% tags=["parameters"]
profile = "standard"
device = None
precision = None
datasets = None
seeds = None
ablation_seeds = None
max_epochs = None
width = None
metapath_neighbours = None
metapath_edge_limit = None
tolerance = None

# %% [markdown]
# ```{glue} han_vs_gat_answer
# ```

# %% tags=["hide-input"]
import warnings

from IPython.display import display
from myst_nb import glue

from graphrepro import pages, report
from graphrepro.chapters.han_vs_gat import claims, configs, figures, paper, tables

warnings.filterwarnings("ignore", message=".*IProgress.*")
report.set_style()
params = pages.notebook_params("han-vs-gat", globals())
glue("han_vs_gat_tolerance", f"{params['tolerance']:g}", display=False)
display(report.profile_banner("han-vs-gat", params))
display(report.run_this_chapter("han-vs-gat", params, *configs.chapter_records(params)))
report.parameters_table(params)

# %% [markdown]
# ## What the paper reports
#
# HGB Table 3, node classification: Macro-F1 / Micro-F1 on the test set, mean ± standard deviation over
# 5 runs, in percent. IMDB is multi-label (a label is predicted when its logit is positive). Freebase, the
# fourth dataset, is not obtainable here.
#
# ## Protocol
#
# * **Data and split.** HGB's original release: `label.dat` holds the training labels, `label.dat.test`
#   the test labels. A seeded random 20% of `label.dat` is the validation set (HGB shuffles with an
#   unseeded generator; we record the seed, 0). Every model uses the same split.
# * **Inputs.** Every node type gets its own linear projection to the hidden size. HGB's feature modes:
#   0, every type its own features; 1, the target type's features and zeros elsewhere; 2, the target's
#   features and one-hot ids elsewhere; 3, one-hot ids everywhere. Each model uses the mode of HGB's
#   README command for that dataset.
# * **Models.** GCN (a weight-free propagation, ELU, dropout before every layer), GAT (8 heads of 64,
#   slope 0.05, or 0.1 on IMDB), Simple-HGN (GAT plus 64-d edge-type embeddings in the attention, an
#   attention residual with β = 0.05, node residuals from the second layer, L2-normalised logits), and
#   HAN as HGB's code has it (one GAT layer of 8 heads of 8 per meta-path graph, semantic attention over
#   the meta-paths, target-type features; DBLP APA, APTPA, APVPA; ACM PPSP, P-PSP, PAP, PSP, PTP; IMDB
#   MDM, MAM, MKM). The attention layers sum each node's incoming messages as one sparse matrix product
#   per layer: tested equal to PyG's {cite:p}`fey2019pyg` `GATConv`, values and gradients, and several times faster on the
#   larger graphs (`python -m graphrepro bench --chapter han-vs-gat` measures the ratio).
# * **Training.** Adam, full batch, at most 300 epochs (HAN 200), early stopping on validation loss with
#   patience 30 (HAN 100); test scores at the epoch of lowest validation loss.
# * **Implementation choices, checked against HGB's code.** Our GCN drops out before every layer, as HGB's
#   benchmark `GNN.py` has done since its fix of 27 December 2020 (commit `6dad2eb`; the first version, of the
#   same day, skipped the first layer's dropout, as HAN's own ACM script does). Our GAT layers carry a bias,
#   as PyG's `GATConv` and DGL's since version 0.7 do; HGB pins DGL 0.4.3, whose `GATConv` has none. That
#   could move a GAT cell by a little; it touches neither HAN nor Simple-HGN (no bias, as in HGB's
#   `myGATConv`).
# * **Deviations.** HAN's validation split is the shared 20%, not its own 70/30 cut. Under this profile
#   HAN and the meta-path GAT keep {glue:text}`han_vs_gat_sampling`, for cost (the README states it); the
#   cells this touches say so. The meta-path GAT, the feature modes and the
#   ablations average {glue:text}`han_vs_gat_ablation_seeds` seed(s), the main table all of its seeds.

# %% tags=["hide-input"]
glue("han_vs_gat_ablation_seeds", params["ablation_seeds"], display=False)
glue("han_vs_gat_sampling", configs.sampling_note(params) if params["metapath_neighbours"] else "every meta-path neighbour", display=False)

# %%
main_runs = configs.run(params, "main")

# %% [markdown]
# (han-vs-gat-paper-vs-ours)=
# ## Paper vs ours
#
# A cell is *reproduced* when, for Macro-F1 and Micro-F1 alike, the 95% interval of ours − paper lies within ±{glue:text}`han_vs_gat_tolerance` points ({ref}`the rule <verdicts-rule>`);
# it *differs* when either metric's interval lies wholly outside, and is *not decided* otherwise.

# %% tags=["hide-input"]
long = tables.main_table(main_runs, params)
report.verdict_grid(long, "model", "dataset", paper.FREEBASE)

# %% tags=["hide-input", "hide-output"]
tables.main_display(long)

# %% [markdown]
# (han-vs-gat-metapaths)=
# ## Why HAN's comparison misled
#
# HAN's paper compared against GAT run on one meta-path graph at a time. Here is GAT on each single
# meta-path graph, HAN on all of them, and GAT on the whole heterogeneous graph (Micro-F1).

# %%
metapath_runs = configs.run(params, "metapath")

# %% tags=["hide-input"]
import pandas as pd  # noqa: E402

all_runs = pd.concat([main_runs, metapath_runs])
tables.metapath_table(all_runs, params).drop(columns="mean").set_index(["dataset", "model"])

# %% [markdown]
# ## Proper inputs
#
# GAT under each feature mode (Micro-F1); "(README)" marks the mode HGB's published command used.

# %%
feature_runs = configs.run(params, "features")

# %% tags=["hide-input"]
tables.feature_table(pd.concat([main_runs, feature_runs]), params)

# %% [markdown]
# ## What Simple-HGN's additions contribute
#
# The paper's ablation (section 6.3): remove the edge-type embeddings, the residual connections, or the
# L2 normalisation of the output, one at a time (Micro-F1). The paper finds that residuals and L2
# normalisation help consistently and the type embeddings only slightly; the verdicts below test both
# against these runs.

# %%
ablation_runs = configs.run(params, "ablation")

# %% tags=["hide-input"]
tables.ablation_table(pd.concat([main_runs, ablation_runs]), params)

# %% [markdown]
# ## Cost
#
# Seconds per epoch (a training step and an evaluation) on one CPU thread of this machine, from the
# records, against Micro-F1; the marker's size is the peak memory of the process that trained it (the
# paper's Figure 2). Records trained while other jobs shared the cores, so the times are upper bounds.

# %% tags=["hide-input"]
cost = tables.cost_frame(main_runs, params)
report.glue_figure("han_vs_gat_cost", figures.cost_figure(cost))
cost.set_index("model")

# %% [markdown]
# ```{glue:figure} han_vs_gat_cost
# :name: fig-hgb-cost
# :alt: Scatter of seconds per epoch (log scale) against test Micro-F1 per model and dataset, marker size by peak memory.
#
# Time per epoch (log scale) against test Micro-F1; marker size is peak memory (the key gives two sizes).
# ```
#
# (han-vs-gat-verdicts)=
# ## Verdicts
#
# Each claim is decided from the records above against the stated tolerance. A claim about an effect (one
# model matches or beats another, the paper's lead, an ablation's gain, a meta-path graph below both) is
# decided on the 95% interval of the seeds' paired differences ({ref}`the rule <verdicts-rule>`): it holds
# when the interval lies within its bounds, does not hold when it lies wholly outside them, and is not decided
# otherwise (inside the noise).

# %% tags=["hide-input"]
everything = pd.concat([main_runs, metapath_runs, feature_runs, ablation_runs]).drop_duplicates("key")
found = tables.Tables(params, everything, main=long)
for name, value in claims.finding_numbers(found).items():
    glue(name, value, display=False)
judged = claims.claims(found)
glue("han_vs_gat_answer", report.answer_box("han-vs-gat", params, judged, claims.paper_cells(found), claims.HEADLINE), display=False)
report.verdict_table("han-vs-gat", judged)

# %% [markdown]
# ## Findings
#
# * Of the Table 3 cells with records here, {glue:text}`han_vs_gat_reproduced` reproduce the paper's Macro-F1 and
#   Micro-F1: the 95% interval of ours − paper lies within ±{glue:text}`han_vs_gat_tolerance` points for both. In
#   {glue:text}`han_vs_gat_differ` a metric's interval lies wholly outside; {glue:text}`han_vs_gat_undecided` are not
#   decided (an interval straddles the tolerance); {glue:text}`han_vs_gat_unrun` cells have no records yet under this
#   profile.
# * Inputs matter: GAT's Micro-F1 across the four feature modes spans {glue:text}`han_vs_gat_feature_spread`.
# * What removing each of Simple-HGN's additions costs, in Micro-F1 points (full model minus ablated):
#   {glue:text}`han_vs_gat_ablation_gains`. Where these are within the seeds' spread (a few tenths of a point)
#   the ablation cannot tell the variants apart; the verdicts above say whether the paper's "helps
#   consistently" holds on every dataset.
# * The verdicts above say, per dataset, whether GAT on the whole graph matches HAN, whether Simple-HGN
#   adds to GAT, and whether a single meta-path graph is the weak baseline HAN's paper compared with.
