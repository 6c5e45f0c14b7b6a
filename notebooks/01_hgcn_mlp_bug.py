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
# # Shedding light on hyperbolic graph learning
#
# **Claim** ({cite:t}`katsman2024shedding`): the Euclidean baselines of HGCN {cite:p}`chami2019hgcn` were crippled by
# one line that projects their embeddings onto the unit ball before link-prediction decoding; without
# it, an MLP that never sees the graph matches or beats the hyperbolic models on HGCN's "most
# hyperbolic" benchmarks.
#
# This page reproduces the heart of the paper's Table 1 (Disease and Airport link prediction, Airport
# node classification) from the data mirror, following HGCN's original code: its splits and negative
# sampling, its layer counting, the Fermi–Dirac decoder, and its model selection on validation.

# %% tags=["parameters"]
profile = "standard"
device = None
precision = None
seeds = None
max_epochs = None
tasks = None
tolerance = None
gammas = None
delta_samples = None
ricci_edges = None
search_layers = None
search_act = None
search_dropout = None
search_weight_decay = None
search_curvature = None

# %% [markdown]
# ```{glue} hgcn_mlp_bug_answer
# ```

# %% tags=["hide-input"]
import warnings

import pandas as pd
from IPython.display import display
from myst_nb import glue

from graphrepro import pages, report
from graphrepro.chapters.hgcn_mlp_bug import claims, configs, figures, tables

warnings.filterwarnings("ignore", message=".*IProgress.*")
report.set_style()
params = pages.notebook_params("hgcn-mlp-bug", globals())
glue("profile", profile, display=False)
glue("seeds", params["seeds"], display=False)
glue("tolerance", f"{params['tolerance']:g}", display=False)
display(report.profile_banner("hgcn-mlp-bug", params))
display(report.run_this_chapter("hgcn-mlp-bug", params, *configs.chapter_records(params)))
report.parameters_table(params)

# %% [markdown]
# The profile is {glue:text}`profile`; every cell below averages {glue:text}`seeds` seed(s). Re-run the
# page with other values, for example `python -m graphrepro run hgcn-mlp-bug -p seeds 10`.
#
# ## What the paper reports
#
# The MLP rows are Katsman & Gilbert's; the GCN, HNN and HGCN rows are Chami et al.'s numbers as
# reprinted in the same table. Test ROC AUC for link prediction (LP) and test F1 for node classification (NC), mean ±
# standard deviation over 5 (MLP) or 10 (others) seeds, in percent.

# %% tags=["hide-input"]
tables.paper_table(params)

# %% [markdown]
# ## Protocol
#
# * **Bug switch.** "Original" Euclidean models apply HGCN's `Euclidean.normalize` (a row-wise
#   `renorm` to norm at most 1) to the embedding matrix before the Fermi–Dirac decoder
#   $p(d) = 1/(e^{(d - r)/t} + 1)$ with $r = 2$, $t = 1$. Embeddings in the unit ball have squared
#   distances in $[0, 4]$, so no pair can score below $1/(1 + e^{2}) \approx 0.12$.
#   "Debugged" removes the projection and clamps the exponent at 20, as the paper's Appendix F does.
#   The projection is never applied in node classification, so the two MLP (and GCN) rows share their
#   NC runs.
# * **Splits.** LP: 85/5/10 split of the edges with split seed 1234; negatives from the upper triangle
#   of the non-edges (self-pairs included), fixed 1:1 for validation and test, and redrawn every epoch
#   for training from a pool that also holds the held-out positive edges; message passing uses training
#   edges only. NC: HGCN's own airport split, reproduced with its overlap between train, validation and
#   test (the node-classification puzzle below examines it).
# * **Training.** Adam, learning rate 0.01, dimension 16, up to 5000 epochs, selection of the epoch
#   on validation (mean of ROC AUC and AP for LP, F1 for NC), early stopping after 100 evaluations
#   without improvement once 100 epochs have passed. Disease features are used raw, airport features
#   row-normalised and augmented with the degree. HNN {cite:p}`ganea2018hnn` and HGCN use the Poincaré ball (geoopt) and,
#   as in HGCN's code, the unclamped decoder: when a squared distance passes about 90 the exponent
#   overflows, the gradient turns NaN and the run stops as *diverged*, keeping its best epoch so far
#   (none if it diverged before its first evaluation). The `seeds` column counts the seeds with a
#   number.
# * **Model selection.** The paper tuned its baselines but published no hyperparameters, so each model
#   and task searches a grid on validation with one seed (seed 0): {glue:text}`grid_layers` layers
#   (HGCN's counting: LP encoders have that many activated layers, NC encoders one fewer plus the
#   decoder), activation {glue:text}`grid_act`, dropout
#   {glue:text}`grid_dropout`, weight decay {glue:text}`grid_wd`, and for HNN and HGCN a curvature
#   that is {glue:text}`grid_c`. The setting with the best validation score then trains with every
#   seed; test numbers never enter the choice. Beside it we keep HGCN's README settings for HGCN
#   (2 layers, ReLU, no dropout or weight decay; fixed curvature on Disease, trainable on Airport),
#   one of the grid's points, as the untuned reference.
# * **Deviations.** The `standard` profile searches dropout and weight decay with two layers and ReLU
#   (the `paper` profile adds three layers, the identity activation, dropout 0.2 and weight decay
#   5e-4); the paper's own grid was not published. Seeds are 0 … n − 1, and seed 0 is the one whose
#   validation score chose the setting; the paper does not list its seeds.

# %% tags=["hide-input"]
for name, values in [("grid_layers", params["search_layers"]), ("grid_act", params["search_act"]),
                     ("grid_dropout", params["search_dropout"]), ("grid_wd", params["search_weight_decay"]),
                     ("grid_c", params["search_curvature"])]:
    glue(name, " or ".join(f"{v:g}" if isinstance(v, float) else str(v) for v in values), display=False)

# %%
runs = configs.run_table1(params)

# %% [markdown]
# (hgcn-mlp-bug-paper-vs-ours)=
# ## Paper vs ours
#
# A cell is *reproduced* when, for our tuned runs, the 95% interval of ours − paper lies within ±{glue:text}`tolerance` points ({ref}`the rule <verdicts-rule>`),
# *differs* when it lies wholly outside, and is *not decided* otherwise.
# Disease-M, the paper's third dataset, was never published, so its columns cannot be reproduced by
# anyone.

# %% tags=["hide-input"]
long = tables.table1(runs, params)
tables.table1_compact(long)

# %% [markdown]
# The full table adds HGCN's README settings and the setting the search chose for every cell.

# %% tags=["hide-input", "hide-output"]
tables.table1_display(long)

# %% tags=["hide-input"]
report.glue_figure("table1_figure", figures.table1_figure(long))

# %% [markdown]
# ```{glue:figure} table1_figure
# :name: fig-table1
# :alt: Dot plot per task and model: our tuned and README-setting test metrics beside the paper's means for Table 1.
#
# Our test metric (mean ± std over seeds) for the tuned setting (filled dots) and HGCN's README
# settings (open dots) beside the paper's mean (crosses), per task.
# ```
#
# ## The node-classification puzzle
#
# The projection is applied only when decoding links, yet the paper's MLP rows jump on node
# classification too (Airport 68.6 → 95.9). Our two MLP rows share their node-classification runs, so
# they cannot show such a jump. One candidate explanation is HGCN's own airport split: it treats the four
# classes as binary labels, so classes 2 and 3 land in both its "positive" and "negative" lists and
# about 246 validation and 225 test nodes are also training nodes. A second is the features: the
# airport classes are column 4 of each node's attributes, binned, and HGCN's node-classification loader
# drops that column while its link-prediction loader keeps all five, so a pipeline that reused the
# link-prediction features would hand the label to the model. We train MLP, GCN and HGCN with the
# README settings on HGCN's split, on a clean stratified 70/15/15 split, and on HGCN's split with
# column 4 kept.

# %%
nc_runs = configs.run_nc_splits(params)

# %% tags=["hide-input"]
nc_table = tables.nc_split_table(nc_runs, params)
glue("nc_leak_mlp", f"{nc_table.loc['MLP', 'leak adds (points)']:+.1f}", display=False)
glue("nc_label_mlp", nc_table.loc["MLP", "leaky split, label's column kept"], display=False)
nc_table

# %% [markdown]
# Against the clean split, HGCN's leaky split changes the MLP's test F1 by {glue:text}`nc_leak_mlp`
# points; with the label's column among its features the MLP scores {glue:text}`nc_label_mlp`
# (paper's debugged MLP: 95.9 ± 0.8). Baseline hyperparameters are the third candidate: Table 1's
# tuned Airport NC rows show what the search recovers. We cannot tell which of these, if any, the
# paper's run had; the numbers show which of them can produce a jump of that size.
#
# (hgcn-mlp-bug-tree1111)=
# ## Tree1111 and the γ sweep (Table 2, Figure 2)
#
# Tree1111 is a sample of Tree(10, 3, 0, 1, N(0, I₁₀₀₀)): a tree of 1,111 nodes with branching 10
# whose 1,000 features are independent Gaussian noise, so only the graph can tell which pairs are
# linked. Tree1111_γ lets each child inherit γ times its parent's features. We draw one sample per γ
# (data seed 0) and train the MLP and GCN (debugged decoder) and HGCN on raw features, each tuned per
# γ with Table 1's search, and with the README settings for reference. HGCN stands in for the paper's
# HyboNet, which we have not reimplemented: a stated deviation.

# %%
tree_runs = configs.run_trees(params)

# %% tags=["hide-input"]
curve = tables.tree_curve(tree_runs, params)
tables.tree_table(curve, params["tolerance"])

# %% [markdown]
# ### Why the graph models score below chance on Tree1111
#
# HGCN's link split holds out 15% of the edges and trains on the rest. In a tree most nodes are leaves
# with a single edge, so holding an edge out usually leaves a leaf with no training edge at all, while
# training negatives are drawn from all non-edges, isolated nodes included. The table counts this
# without training anything.

# %% tags=["hide-input"]
isolated = tables.isolated_endpoints(params)
glue("tree_isolated", f"{isolated.iloc[0, 0]:.0f}%", display=False)
glue("tree_isolated_neg", f"{isolated.iloc[0, 1]:.0f}%", display=False)
glue("tree_degree_auc", f"{isolated.iloc[0, 2]:.0f}%", display=False)
isolated

# %% [markdown]
# On Tree1111, {glue:text}`tree_isolated` of the held-out test edges have an end without training
# edges, against {glue:text}`tree_isolated_neg` of the test non-edges: the split alone separates them
# (ROC AUC {glue:text}`tree_degree_auc` for a score that only counts training edges). A model that
# propagates over the training graph sees those isolated leaves only as endpoints of negative pairs, so
# it learns that they are unlinked and ranks the held-out edges below random pairs. A feature-only MLP
# cannot see isolation and stays near chance when features carry no signal (γ = 0).

# %% tags=["hide-input"]
report.glue_figure("gamma_figure", figures.gamma_figure(curve))

# %% [markdown]
# ```{glue:figure} gamma_figure
# :name: fig-gamma
# :alt: Line plot of test ROC AUC on Tree1111-gamma against gamma for MLP, GCN and HGCN, tuned and README settings.
#
# Test ROC AUC on Tree1111_γ against γ for the tuned settings (mean and one standard deviation over
# seeds) and the README settings (dashed). The paper shows only the tuned MLP; we add GCN and HGCN.
# ```
#
# ## Geometry of the datasets
#
# Gromov δ by the four-point condition: half the gap between the two largest of the three pair-sums
# over quadruples of nodes, exact for small graphs and otherwise the maximum over random quadruples
# (a lower bound).

# %% tags=["hide-input"]
tables.delta_table(params)

# %% [markdown]
# δ says "tree" for Disease and Tree1111 alike. Ollivier–Ricci curvature tells them apart: with uniform
# measures on neighbours and the shortest-path metric, an edge's curvature is
# $\kappa(x, y) = 1 - W_1(m_x, m_y)$, with $W_1$ solved exactly by POT.

# %% tags=["hide-input"]
curvatures = tables.curvature_frame(params)
report.glue_figure("curvature_figure", figures.curvature_figure(curvatures))
tables.curvature_summary(curvatures)

# %% [markdown]
# ```{glue:figure} curvature_figure
# :name: fig-curvature
# :alt: Overlaid histograms of Ollivier-Ricci edge curvature for Disease, Tree1111 and Airport.
#
# Ollivier–Ricci curvature of the edges of Disease (LP), Tree1111 and Airport.
# ```
#
# ## The tripod (Figure 1)
#
# A root with three leaves at distance 1: the best Euclidean embedding puts the leaves $\sqrt{3}$
# apart while the graph says 2. On the hyperboloid of curvature $-|K|$ the leaf-to-leaf distance is
# $d = \operatorname{arccosh}(\cosh^2\sqrt{|K|} + \tfrac12 \sinh^2\sqrt{|K|})/\sqrt{|K|}$, which tends
# to 2.

# %% tags=["hide-input"]
tripod = tables.tripod_frame()
report.glue_figure("tripod_figure", figures.tripod_figure(tripod))
glue("tripod_gap", f"{abs(tripod['geoopt'] - tripod['closed form']).max():.1e}", display=False)

# %% [markdown]
# ```{glue:figure} tripod_figure
# :name: fig-tripod
# :alt: Leaf-to-leaf distance of the tripod against the curvature magnitude: geoopt's values as dots on the closed-form line.
#
# Leaf-to-leaf distance of the tripod against |K| from geoopt's `Lorentz.dist` (dots) and the closed
# form (line); they differ by at most {glue:text}`tripod_gap`.
# ```
#
# (hgcn-mlp-bug-verdicts)=
# ## Verdicts
#
# Each claim compares cells on the seeds they share (every model trains on HGCN's one fixed split per
# task): it is decided on the 95% interval of the per-seed differences against the bounds it states
# ({ref}`the rule <verdicts-rule>`), so a gap the seeds do not agree on is *not decided (inside the noise)*.
# A claim about several cells (both Euclidean models, every γ ≥ 0.4) holds only when each of its intervals
# does.

# %% tags=["hide-input"]
all_runs = pd.concat([runs, nc_runs, tree_runs]).drop_duplicates("key")
found = tables.Tables(params, all_runs, main=long, nc=nc_table, curve=curve)
for row in claims.finding_numbers(found.main):
    glue(row["key"], row["value"], display=False)
judged = claims.claims(found)
glue("hgcn_mlp_bug_answer", report.answer_box("hgcn-mlp-bug", params, judged, claims.paper_cells(found), claims.HEADLINE), display=False)
report.verdict_table("hgcn-mlp-bug", judged)

# %% [markdown]
# ## Findings
#
# * Removing the projection lifts the MLP's Disease link-prediction ROC AUC from
#   {glue:text}`mlp_original_disease_lp` to {glue:text}`mlp_debugged_disease_lp` (paper: 72.6 → 98.7),
#   against {glue:text}`hgcn_disease_lp` for HGCN.
# * On Airport link prediction the MLP goes from {glue:text}`mlp_original_airport_lp` to
#   {glue:text}`mlp_debugged_airport_lp`, against {glue:text}`hgcn_airport_lp` for HGCN.
# * Node classification never passes through the projection, so the switch cannot explain the paper's
#   Airport NC jump (68.6 → 95.9); our tuned MLP scores {glue:text}`mlp_airport_nc`, HGCN's leaky
#   split moves the MLP by {glue:text}`nc_leak_mlp` points against a clean split, and keeping the
#   column the classes are binned from gives {glue:text}`nc_label_mlp`.
# * The baselines the paper reprints move with tuning: on Disease link prediction the original
#   (projected) GCN scores {glue:text}`gcn_original_disease_lp_readme` with the README settings and
#   {glue:text}`gcn_original_disease_lp` after the validation search (paper: 64.7). Compare a paper's
#   baseline with ours only after the same search.
# * On Tree1111 the graph models score below chance because of HGCN's link split, not their geometry:
#   {glue:text}`tree_isolated` of the held-out edges end in a leaf left without training edges, which
#   training has only ever shown in negative pairs.
