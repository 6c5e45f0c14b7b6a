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
# # Which MRR? Filtering, ties and adjusted rank metrics
#
# **Claims.** {cite:t}`toenshoff2024gap`: on PCQM-Contact the LRGB paper defined a *filtered* mean
# reciprocal rank but its code computed the *raw* one, and removing self-loops from the candidates
# ("extended filtering") moves the numbers further and changes which model ranks first.
# {cite:t}`hoyt2022unified`: MRR, mean rank and Hits@k depend on how many candidates a query has; adjusted metrics remove
# that dependence, and z-scores say how far a result is from chance.
#
# Every metric on this page is computed by `graphrepro.metrics.ranking` from the per-query ranks kept
# with each run; its results agree with pykeen 1.11.1 {cite:p}`ali2021pykeen` to 1e-9 on random inputs (`tests/test_ranking.py`).

# %% tags=["parameters"]
profile = "standard"
device = None
precision = None
graphs = None
encoders = None
seeds = None
lp_epochs = None
kgs = None
kg_models = None
kg_seeds = None
kg_epochs = None
tucker_epochs = None
large_kg_models = None
large_kg_epochs = None
negatives_cap = None
fast_check = None
tolerance = None

# %% [markdown]
# ```{glue} mrr_variants_answer
# ```

# %% tags=["hide-input"]
import warnings

import pandas as pd
from IPython.display import display
from myst_nb import glue

from graphrepro import pages, report, underway
from graphrepro.chapters.mrr_variants import claims, configs, figures, paper, tables

warnings.filterwarnings("ignore", message=".*IProgress.*")
report.set_style()
params = pages.notebook_params("mrr-variants", globals())
glue("mrr_variants_tolerance", f"{params['tolerance']:g}", display=False)
glue("mrr_variants_negatives", configs.negatives_note(params), display=False)
glue("mrr_variants_quality_share", f"{1 - paper.QUALITY_TOLERANCE:.0%}", display=False)
glue("mrr_variants_quality_margin", f"{paper.QUALITY_TOLERANCE:.0%}", display=False)
glue("mrr_variants_min_graphs", f"{claims.MIN_GRAPHS}", display=False)
glue("mrr_variants_alpha", f"{claims.ALPHA:.2g}", display=False)
glue("mrr_variants_published", claims.published_note(), display=False)
display(report.profile_banner("mrr-variants", params))
display(report.run_this_chapter("mrr-variants", params, *configs.chapter_records(params)))
report.parameters_table(params)

# %% [markdown]
# ## What the papers report
#
# PCQM-Contact, tuned GPS (Tönshoff et al., mean ± std over 4 runs): {glue:text}`mrr_variants_pcqm`;
# filtering adds about 3 points and removing self-loops about 10 more, and the order of the models changes.
# MRR, Hits@10 and the adjusted metrics are shown × 100 everywhere on this page (ranks, AMR and z-scores as
# they are). PCQM-Contact is not obtainable here, so we measure the same
# variants on within-graph link prediction.
#
# (mrr-variants-worked-example)=
# ## The worked example
#
# One head with five candidates: itself (score 0.95), its true tails t1 (0.90) and t2 (0.80), and two
# false ones (0.60, 0.40). Its two queries ranked each way:

# %% tags=["hide-input"]
tables.worked_example()

# %% [markdown]
# (mrr-variants-raw-filtered)=
# ## Raw, filtered and extended-filtered MRR on real models
#
# **Protocol.** Cora and Citeseer {cite:p}`sen2008collective` and airport with HGCN's 85/5/10 edge split
# {cite:p}`chami2019hgcn` (message passing on training edges only). Encoders: a 2-layer MLP on the features, GCN
# {cite:p}`kipf2017gcn`, GAT (4 heads) {cite:p}`velickovic2018gat` and GIN {cite:p}`xu2019gin`, 64 then 32
# dimensions, a dot-product decoder, binary cross-entropy against as many uniformly drawn negatives,
# Adam at 0.01, early stopping on validation filtered MRR. Each held-out edge in both directions is one
# query; its candidates are all nodes of the graph: *raw* keeps all of them, *filtered* removes the
# query node's other known neighbours (training, validation and test edges), *extended-filtered* also
# removes the node itself. Ranks are realistic (ties halfway); LRGB's aggregation (a mean per graph,
# then batch means weighted by labelled pairs) equals the per-query mean on a single graph, and the
# table of runs shows both.

# %%
lp_runs = configs.run(params, "lp")

# %% tags=["hide-input"]
frame = tables.variant_frame(lp_runs)
display(tables.variant_table(frame, params))
display(report.dashed(tables.shift_table(frame)))  # MRR points: raw, then what filtering and removing self-loops add
orders = tables.orders(frame)
orders

# %% [markdown]
# ## Ties
#
# A model that scores every candidate alike is ranked first under optimistic ranks and last under
# pessimistic ones; the realistic rank is the expected rank under random tie breaking, so its adjusted
# mean rank index is exactly 0, chance. (Its MRR, 1 / E[rank], is below random ranks' E[1 / rank].) An
# unstable `argsort`, as in LRGB's code, lands wherever the sort puts the tie. A constant model and
# models with only a few distinct scores, ranking one true candidate among 2,708:

# %% tags=["hide-input"]
ties = tables.tie_table()
display(ties)
pd.DataFrame(paper.TIE_CONVENTIONS).set_index("code").rename(columns={"ranks": "how ties are ranked"})

# %% [markdown]
# ## The unified framework on knowledge graphs
#
# **Protocol.** TransE {cite:p}`bordes2013transe`, RotatE {cite:p}`sun2019rotate`, ComplEx
# {cite:p}`trouillon2016complex` and TuckER {cite:p}`balazevic2019tucker` trained with pykeen on Nations, Kinships and
# UMLS {cite:p}`kok2007predicate` (WN18RR {cite:p}`dettmers2018conve` and FB15k-237 {cite:p}`toutanova2015observed`
# under `paper`), each with the configuration Hoyt et al. trained for that dataset and model: Ali et al.'s best
# settings {cite:p}`ali2022bringing`, as the paper's supplement keeps them ({glue:text}`mrr_variants_kg_source`), with the
# cross-entropy as their pykeen version computed it (below). Hoyt et al. trained none
# on UMLS, so it follows pykeen's defaults (TuckER for fewer epochs: its epoch costs 10–40 times the others'
# here). One run per cell, as in the paper. Fewer negatives per positive triple than a configuration's own:
# {glue:text}`mrr_variants_negatives`. Filtered evaluation of heads and tails of every test triple,
# realistic ranks. The configuration of each cell, its own epochs and the epochs trained here:

# %% tags=["hide-input"]
configs.kg_plan(params)

# %%
kg_runs = configs.run(params, "kg")

# %% tags=["hide-input"]
kgs_frame = tables.kg_frame(kg_runs)
display(tables.kg_legend())
for group in paper.KG_GROUPS:
    display(tables.kg_table(kgs_frame, group))
tables.kg_crosscheck(kgs_frame)

# %% [markdown]
# pykeen keeps its metric values in single precision, hence differences of order 1e-7 (relative) above;
# on the same ranks in double precision the two agree to 1e-9 (the tests).

# %% [markdown]
# **Which models count.** The size analysis below reads only models trained to the paper's quality: a model counts
# when its MRR is at least {glue:text}`mrr_variants_quality_share` of the MRR Hoyt et al. report for the same
# dataset and model. Otherwise it is left out, *under-trained* where it had fewer epochs than its configuration's own
# and *below the paper's* where it had them all, since a trend over such models would measure the training rather
# than the metric. UMLS has no paper MRR and is left out too. The size claims wait for
# {glue:text}`mrr_variants_min_graphs` knowledge graphs with models that count (below); WN18RR and FB15k-237 train only under `paper`, since Hoyt et al.'s settings
# there take about a day per model on one CPU core for ComplEx and TuckER on the faster path below, and days for TransE
# and RotatE (the Cost page's benchmarks). On pykeen's own path a batch of TransE or RotatE on WN18RR does not fit
# in 24 GB; the faster path needs no such batch.

# %% tags=["hide-input"]
quality = tables.quality_frame(kgs_frame, params)
tables.quality_table(quality, underway.load("mrr-variants"))

# %% [markdown]
# **A loss that changed between pykeen versions.** Under LCWA, pykeen's cross-entropy sets the softmax over all
# entities against a query's true entities. pykeen 1.7 and 1.8 passed them to torch's `cross_entropy` as a multi-hot
# vector, so a query with k true entities weighs about k times as much; pykeen 1.9 went back to normalising the
# vector to a distribution, as 1.6 did, and the pinned pykeen 1.11 normalises too. Hoyt et al.'s records date their
# runs to pykeen's development tree between 1.7 and 1.8 (they carry z-scored metrics in a form no release had), so the
# cells above that train LCWA with the cross-entropy train it with the multi-hot targets. The same configurations with pykeen 1.11's normalised targets, beside them:

# %%
twin_runs = configs.run(params, "targets")

# %% tags=["hide-input"]
targets = tables.targets_frame(kgs_frame, tables.kg_frame(twin_runs))
glue("mrr_variants_targets", tables.beside_note(targets, tables.TARGETS), display=False)
tables.beside_table(targets)

# %% [markdown]
# **A sampler that changed, for a while.** The same records date Hoyt et al.'s pykeen more closely: their z-scored
# metrics are those the tree had from pull request #814 (8 March 2022) until #835 replaced them (22 March), just
# before 1.8.0. For the first half of that window, from #417 to #817 (16 March), pykeen's basic negative sampler drew
# one of two sides for each negative but wrote only the head, so about half of a positive's negatives were the
# positive itself and no tail was corrupted. RotatE, the one model trained with sLCWA here, again with negatives
# drawn so, beside the page's runs (which keep pykeen 1.11's sampler, since the records do not tell which half of
# the window Hoyt et al. trained in):

# %%
march_runs = configs.run(params, "sampler")

# %% tags=["hide-input"]
sampled = tables.sampler_frame(kgs_frame, tables.kg_frame(march_runs))
glue("mrr_variants_sampler", tables.beside_note(sampled, tables.SAMPLERS), display=False)
tables.beside_table(sampled)

# %% [markdown]
# **A faster path, checked before it is used.** On WN18RR and FB15k-237, two things make Hoyt et al.'s settings slow
# on a CPU. Under LCWA, the softmax over every entity yields many subnormal floats (below about 1e-38), and an x86
# core handles each one many times more slowly than a normal float; read as zero instead (`torch.set_flush_denormal`),
# they change a run's numbers only in its last bits. And pykeen scores a query against every tail by a
# (batch, entities, dimensions) tensor: for TuckER a product that it then sums, which one matrix product does in the
# same sums, added in another order; for RotatE under LCWA a difference, whose norm ‖a‖² + ‖c‖² − 2 Re⟨a, c⟩ gives
# from one matrix product, rounded differently; for TransE under LCWA a difference whose L1 norm has no such form,
# which loops compiled by `torch.compile` sum as they go, a cache-sized chunk of entities at a time, never holding the
# tensor. Each is many times faster on WN18RR, where a batch then fits in memory.
# `python -m graphrepro bench --chapter mrr-variants` measures each. Over hundreds of epochs such last bits can add
# up, so a model's runs on the large graphs take this fast path only if its small graphs' runs, trained again on it,
# each stay within the page's tolerance of the runs above. No small graph's own RotatE trains the matrix product (it
# trains sLCWA, a few negatives a triple), so where RotatE trains on WN18RR, UMLS trains RotatE's WN18RR setting on
# both paths too: {glue:text}`mrr_variants_fast`.

# %%
fast_runs = configs.run(params, "fast")

# %% tags=["hide-input"]
fast = tables.fast_check_frame(kgs_frame, fast_runs)
glue("mrr_variants_fast", tables.fast_note(fast, params), display=False)
tables.beside_table(fast)

# %% [markdown]
# Hoyt et al. find that MRR falls as queries get more candidates, while the adjusted metrics put every dataset on
# one scale (0 is chance, 100 is perfect); the z-scores grow with the number of queries, so a small dataset's high
# MRR can be less significant than a large one's low MRR. Over the models that count, each metric's Spearman ρ with
# the number of candidates, and how often a ρ as strong arises by chance. Models on one graph share its size, so the
# graphs, not the models, are what varies: p is the share of the k! ways of handing the k graphs' sizes to the graphs
# that give |ρ| at least as large (exact, two-sided). A trend is decided when p < {glue:text}`mrr_variants_alpha`;
# with k graphs p is at least 2/k!, which is why the claims need {glue:text}`mrr_variants_min_graphs` (Hoyt et al. had four).
# Only models held to a published MRR count, and {glue:text}`mrr_variants_published`.
# Whether the adjusted MRR depends less on size than MRR is their comparison of two ρ, made as they make it once
# MRR's own trend is decided.

# %% tags=["hide-input"]
report.glue_figure("mrr_variants_size", figures.size_figure(tables.counted(kgs_frame, quality)))
report.plain_table(tables.size_correlations(tables.counted(kgs_frame, quality)).round(3))

# %% [markdown]
# ```{glue:figure} mrr_variants_size
# :name: fig-mrr-size
# :alt: Scatter of MRR and the adjusted MRR against the mean number of candidates per query (log scale), one point per knowledge graph and model.
#
# MRR and the adjusted MRR (the pair Hoyt et al. compare) against the mean number of candidates per query (log scale), one
# point per knowledge graph and model that counts (trained to the paper's quality).
# ```
#
# (mrr-variants-verdicts)=
# ## Verdicts
#
# Each claim is decided from the records above. The shift claim reads each run's gain (extended-filtered minus raw
# MRR, × 100; one per encoder and seed) and holds on a graph when the 95% interval of the mean gain lies above
# {glue:text}`mrr_variants_tolerance` point(s); the size claims read the permutation test above.

# %% tags=["hide-input"]
found = tables.Tables(params, pd.concat([lp_runs, kg_runs]) if len(kg_runs) else lp_runs, frame=frame, orders=orders, ties=ties, kgs=kgs_frame,
                      quality=quality)
for name, value in claims.finding_numbers(found).items():
    glue(name, value, display=False)
judged = claims.claims(found)
glue("mrr_variants_answer", report.answer_box("mrr-variants", params, judged, claims.paper_cells(found), claims.HEADLINE), display=False)
report.verdict_table("mrr-variants", judged)

# %% [markdown]
# ## Findings
#
# * The worked example reproduces the note's {glue:text}`mrr_variants_example` (MRR × 100) from the library.
# * How much the variant moves MRR (× 100, mean over encoders and seeds): {glue:text}`mrr_variants_shifts`. On
#   PCQM-Contact, filtering added about 3 points and removing self-loops about 10 more. The variant
#   reorders the encoders on {glue:text}`mrr_variants_reordered` graph(s).
# * Ties: a model that scores every candidate alike reaches MRR {glue:text}`mrr_variants_constant`. Only realistic
#   ranks put it at chance; a paper that ranks optimistically rewards it.
# * Size: across knowledge graphs and models, the Spearman correlation with the mean number of candidates
#   per query is {glue:text}`mrr_variants_rho`; the verdicts above read the first two. A z-score grows with the
#   square root of the number of test queries, so it says how sure we are that a model beats chance, not
#   how good it is.
# * A loss that changed between pykeen versions moves MRR most here: {glue:text}`mrr_variants_targets`.
#   A reproduction on a knowledge-graph library has to pin the library's version, not only the configuration.
# * Models at the paper's quality: {glue:text}`mrr_variants_counted`. The size claims are decided on those only,
#   and wait for {glue:text}`mrr_variants_min_graphs` knowledge graphs with such models.
# * Models whose MRR exceeds the paper's by more than {glue:text}`mrr_variants_quality_margin` (MRR × 100):
#   {glue:text}`mrr_variants_above`. Such models count, since a model at least as good as the paper's measures the
#   metrics as well, but there Hoyt et al.'s own configurations reach more than they report. Each follows their
#   configuration, with the loss change above where it applies. For RotatE, trained with sLCWA, the sampler of
#   pykeen's March 2022 tree is a candidate: {glue:text}`mrr_variants_sampler`; for the others we have not found what
#   else differs.
# * Our metrics, recomputed from the stored ranks, agree with pykeen's evaluator to
#   {glue:text}`mrr_variants_crosscheck` (pykeen keeps single precision).
