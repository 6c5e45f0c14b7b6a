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
# # Fair evaluation of GMNN
#
# **Claim** ("Fair Evaluation of Graph Markov Neural Networks" {cite:p}`anonymousfairgmnn`, after
# {cite:t}`errica2020fair`): evaluated by
# k-fold model selection and assessment instead of on the one public Planetoid split, GMNN's gain over
# its base GNN {cite:p}`qu2019gmnn` is significant on sparse training sets and small or absent on dense ones, and the graph
# clearly helps (GCN {cite:p}`kipf2017gcn` above MLP).
#
# We repeat the protocol on Cora and Citeseer {cite:p}`sen2008collective,yang2016planetoid`: ten stratified folds, in each a search of every model's
# hyperparameters on validation only, then runs of the chosen setting scored on the held-out fold.

# %% tags=["parameters"]
profile = "standard"
device = None
precision = None
datasets = None
kinds = None
folds = None
trials = None
generation = None
budget_study = None
budgets = None
budget_runs = None
runs = None
max_epochs = None
patience = None
gmnn_loops = None
gmnn_epochs = None
public_seeds = None
tolerance = None

# %% [markdown]
# ```{glue} gmnn_fair_eval_answer
# ```

# %% tags=["hide-input"]
import warnings

from IPython.display import display
from myst_nb import glue

from graphrepro import pages, report
from graphrepro.chapters.gmnn_fair_eval import budget, claims, configs, figures, tables

warnings.filterwarnings("ignore", message=".*IProgress.*")
report.set_style()
params = pages.notebook_params("gmnn-fair-eval", globals())
glue("gmnn_fair_eval_tolerance", f"{params['tolerance']:g}", display=False)
glue("gmnn_fair_eval_trials", params["trials"], display=False)
glue("gmnn_fair_eval_runs", params["runs"], display=False)
glue("gmnn_fair_eval_folds", params["folds"], display=False)
glue("gmnn_fair_eval_budgets", ", ".join(map(str, params["budgets"])), display=False)
glue("gmnn_fair_eval_budget_runs", params["budget_runs"], display=False)
display(report.profile_banner("gmnn-fair-eval", params))
display(report.run_this_chapter("gmnn-fair-eval", params, *configs.chapter_records(params)))
report.parameters_table(params)

# %% [markdown]
# ## What the paper reports
#
# Test accuracy in percent, mean over the ten folds of each fold's mean over 20 runs, with the standard
# deviation over folds. Table 3: sparse training sets (20 nodes per class, balanced or stratified);
# Table 4: dense ones. GMNN is reported as its p network, its q network, and the better of the two by
# validation accuracy ("best").
#
# ## Protocol
#
# * **Data.** Undirected graphs; features binarised, then divided by their row sum.
# * **Folds.** Ten stratified folds: fold i is the test set; the rest splits (stratified) into an inner
#   training set and a validation set, 81/9/10 % in all ("dense"). The sparse sets draw 20 nodes per
#   class ("balanced") or 20·K nodes in class proportion ("stratified") from the inner training set.
# * **Models.** MLP and GCN (two layers), FAGCN {cite:p}`bo2021fagcn` (two layers of signed, degree-scaled edge gates plus ε
#   times the first representation); Glorot weights, zero biases, dropout on the inputs and on every
#   layer, L2 on all layers, Adam. Up to {glue:text}`gmnn_fair_eval_folds` folds × 1,000 epochs with patience 200
#   on validation loss (FAGCN: loss or accuracy), weights restored to the lowest validation loss.
# * **Selection**, per fold and on validation only: a genetic search (Optuna's NSGA-II {cite:p}`akiba2019optuna`, whole
#   generations trained as one batch) over the paper's grid: hidden 8–64, both dropouts 0.2–0.8,
#   learning rate 1e-4–0.1, L2 1e-5–0.1, FAGCN's ε 0.1–0.9. Like the paper's evolution, it is guided by
#   validation accuracy (of the weights restored at the lowest validation loss), and the setting with the
#   highest validation accuracy is chosen; a tie goes to the earlier trial.
# * **Assessment.** {glue:text}`gmnn_fair_eval_runs` run(s) of the chosen setting per fold (seeds 1 ..). GMNN
#   starts from the chosen base setting: q is the base model, pre-trained as above; then EM loops of
#   an M-step (p, a GCN on sampled labels, annealing temperature 0.1) and an E-step (q on p's
#   predictions), gold labels kept on training nodes, each network keeping its optimiser state. p is a
#   GCN for every base model, FAGCN+GMNN included, and reads labels only, as GMNN's public code builds it
#   (the rows without a mark). On the sparse training sets, whose table reports p on its own, GMNN also runs
#   with p reading the node features beside the labels, p(y_n | y_NB(n), x_V) as the paper under test writes
#   it (the rows marked "(x in p)"). Both are set beside the paper's numbers; the significance tests and the
#   claims read the public code's runs.
# * **Deviations.** This profile searches {glue:text}`gmnn_fair_eval_trials` trials per fold and model instead of
#   about 1,000, and runs {glue:text}`gmnn_fair_eval_runs` run(s) per fold instead of 20. How much a larger search
#   moves the estimates is what [the budget study](gmnn-budget) measures; what the paper's 20 runs per fold would
#   change is [estimated from ours](gmnn-runs).

# %%
assessment = configs.run(params)

# %% [markdown]
# (gmnn-fair-eval-paper-vs-ours)=
# ## Paper vs ours
#
# A cell is *reproduced* when, over the folds, the 95% interval of ours − paper lies within ±{glue:text}`gmnn_fair_eval_tolerance` points ({ref}`the rule <verdicts-rule>`),
# *differs* when it lies wholly outside, and is *not decided* otherwise.
# Table 3, sparse training sets:

# %% tags=["hide-input"]
sparse = tables.table(assessment, params, "sparse").assign(column=lambda t: t.kind.str.replace("sparse_", "") + " training set")
for dataset, cells in sparse.groupby("dataset", sort=False):
    display(report.verdict_grid(cells, "model", "column", tables.caption(dataset), corner=dataset))

# %% [markdown]
# Table 4, dense training sets:

# %% tags=["hide-input"]
dense = tables.table(assessment, params, "dense")
report.verdict_grid(dense.assign(column=dense.dataset), "model", "column", "Pubmed and WikiVitals: the paper's numbers only; "
                    "their data is not obtainable here", corner="dense")

# %% [markdown]
# (gmnn-runs)=
# ### Would the paper's 20 runs per fold decide more cells?
#
# A fold's estimate is the mean of its runs, so more runs shrink only the runs' share of the spread over folds;
# the folds' own spread and the paper's ± stay. From the spread of our {glue:text}`gmnn_fair_eval_runs` run(s)
# within each fold and of the fold means, each cell's spread over folds and the 95% interval of ours − paper,
# now and projected to 20 runs per fold (points). With 20 runs the intervals would narrow by
# {glue:text}`gmnn_fair_eval_runs_effect`; no number of runs narrows them beyond what the folds' own spread and
# the paper's ± leave.

# %% tags=["hide-input"]
effect = tables.runs_effect(assessment)
glue("gmnn_fair_eval_runs_effect", tables.runs_note(effect), display=False)
effect.map("{:.2f}".format)

# %% [markdown]
# ## Is GMNN's gain significant?
#
# One-sided paired t-test over folds of GMNN (the better of p and q by validation) against its base
# model; stars for p < 0.05 / 0.01 / 0.001, as the paper marks them.

# %% tags=["hide-input"]
tested = tables.significance(assessment, params)
tables.significance_display(tested)

# %% [markdown]
# (gmnn-budget)=
# ## Does the search budget move the estimates?
#
# The paper's evolution tries about 1,000 settings per fold; these searches try {glue:text}`gmnn_fair_eval_trials`.
# On two cells, Cora sparse balanced and Citeseer sparse stratified with GCN, each fold's search goes on to
# {glue:text}`gmnn_fair_eval_budgets` distinct settings (the smaller budgets are its beginning), and each budget's
# choice runs {glue:text}`gmnn_fair_eval_budget_runs` time(s) per fold. The first table sets each budget's estimate
# beside the paper's; the second says how far the estimate moves from the smallest budget, paired over folds.

# %%
budget.run(params)
studied = budget.frame(params)
glue("gmnn_fair_eval_budget_effect", budget.note(studied, params), display=False)

# %% tags=["hide-input"]
display(*budget.tables(studied, params))

# %% [markdown]
# (gmnn-fair-eval-protocol)=
# ## Why the protocol matters
#
# GMNN's own evaluation: the one public Planetoid split (20 labels per class, 500 for validation, 1,000
# for test) and many seeds, with its run scripts' settings (hidden 16, input dropout 0.5, L2 5e-4, one
# EM loop; Adam at 0.01 here where GMNN used RMSprop at 0.05), beside the ten-fold estimate on the
# comparable sparse balanced training sets.

# %%
public = configs.run_public(params)

# %% tags=["hide-input"]
tables.public_table(public, assessment, params)

# %% [markdown]
# One split is one draw. Test accuracy per fold (GMNN: the better of p and q), and for each pair of
# models the number of folds in which their order is the reverse of the order of their means.

# %% tags=["hide-input"]
report.glue_figure("gmnn_fair_eval_folds_figure", figures.fold_figure(assessment, params))
tables.flips(assessment, params).set_index(["dataset", "kind", "on average"])

# %% [markdown]
# ```{glue:figure} gmnn_fair_eval_folds_figure
# :name: fig-gmnn-folds
# :alt: Lines of test accuracy per model across the assessment folds, one panel per dataset and training-set kind.
#
# Test accuracy of each model on each assessment fold.
# ```
#
# ## The cost of fairness
#
# Trainings recorded for each table and their summed single-thread time on this machine (search trials
# use seed 0; assessment runs seeds 1 and up). The paper reports roughly 30 GPU hours for WikiVitals
# alone.

# %% tags=["hide-input"]
tables.cost_table(params)

# %% [markdown]
# (gmnn-fair-eval-verdicts)=
# ## Verdicts
#
# Each claim is decided from the records above. A claim about an effect (the graph helps, GMNN adds less than a
# point) is decided on the 95% interval of its per-fold differences ({ref}`the rule <verdicts-rule>`), so a gap
# the folds do not agree on is *not decided (inside the noise)*; a gain the paper calls significant is tested
# as the paper tests it, one-sided paired t over folds at p < 0.05.

# %% tags=["hide-input"]
found = tables.Tables(params, assessment, sparse=sparse.drop(columns="column"), dense=dense, tested=tested, public=public)
for name, value in claims.finding_numbers(found).items():
    glue(name, value, display=False)
judged = claims.claims(found)
glue("gmnn_fair_eval_answer", report.answer_box("gmnn-fair-eval", params, judged, claims.paper_cells(found), claims.HEADLINE), display=False)
report.verdict_table("gmnn-fair-eval", judged)

# %% [markdown]
# ## Findings
#
# * Of the paper's Table 3 and 4 cells with records here, {glue:text}`gmnn_fair_eval_reproduced` reproduce: the 95%
#   interval of ours − paper (over the folds, and the paper's ± over its ten) lies within
#   ±{glue:text}`gmnn_fair_eval_tolerance` points. {glue:text}`gmnn_fair_eval_undecided` are not decided (the interval
#   straddles the tolerance: ten folds with a spread of about 2 points cannot place a gap within 2); those that
#   differ: {glue:text}`gmnn_fair_eval_missed`. {glue:text}`gmnn_fair_eval_unrun` have no records yet under this profile.
# * Our searches are far smaller than the paper's (see the deviations above). What a larger search changes is
#   measured, not guessed: {glue:text}`gmnn_fair_eval_budget_effect` ([the budget study](gmnn-budget)).
# * How much one split hides: the standard deviation of GCN's test accuracy (sparse balanced training
#   sets) is {glue:text}`gmnn_fair_eval_spread`. Seeds on one split measure only the training's randomness; folds
#   add the split's.
# * GMNN falls below its own base model in {glue:text}`gmnn_fair_eval_gmnn_flips`; the paired test over folds above
#   decides whether its gain is more than that noise. Our test agrees with the paper's stars (significant
#   at p < 0.05 or not) in {glue:text}`gmnn_fair_eval_stars` comparisons; where it does not: {glue:text}`gmnn_fair_eval_stars_differ`.
# * The paper's 20 runs per fold instead of our {glue:text}`gmnn_fair_eval_runs` would narrow the verdict intervals by
#   {glue:text}`gmnn_fair_eval_runs_effect` ([estimated from the runs' spread](gmnn-runs)).
