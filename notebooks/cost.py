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
# # Cost and performance
#
# What re-running this book costs, read from the {glue:text}`cost_records` run records behind it and
# from the executed pages (nothing is trained on this page). Each record carries its wall time (its
# share of a batch trained together), the epochs it ran, its peak resident memory, its device, its CPU
# and its precision; the CPUs recorded so far are {glue:text}`cost_cpus` (records made before the CPU
# was recorded say "not recorded"). Times are single-thread, one run per core.

# %% tags=["parameters"]
profile = "standard"

# %% tags=["hide-input"]
from IPython.display import display
from myst_nb import glue

from graphrepro import cost, pages, report

report.set_style()
params = pages.resolve("cost", profile)
display(report.profile_banner("cost", params))
costs = cost.run_costs()
hours = cost.profile_hours(costs)
for name, value in cost.summary_numbers(costs, hours).items():
    glue(name, value, display=False)
report.parameters_table(params)

# %% [markdown]
# ## Each profile, per chapter
#
# The `standard` profile's CPU-hours are the sum of its recorded runs' wall times:
# {glue:text}`cost_standard_hours` in all. The `paper` profile's are estimated from the records
# (`python -m graphrepro bench --estimate paper --from-records`): each kind of run's median seconds per
# planned epoch, from its own paper runs where some are recorded and else from its standard ones, times every
# epoch the paper's protocol plans, {glue:text}`cost_paper_hours` in all. A kind with neither is priced from a
# kept benchmark of one of its epochs where one was timed (chapter 5's large knowledge graphs; set-up and
# evaluation not counted), and otherwise not priced, so that chapter's estimate is a lower bound. Runs that cannot
# be listed yet are counted too, each as a run of its kind: the trials chapter 3's searches will still ask and the
# runs of settings not chosen yet, and chapter 5's large graphs while they wait for their check.

# %% tags=["hide-input"]
report.glue_figure("cost_hours_figure", cost.profile_hours_figure(hours))
report.plain_table(hours.round(1))

# %% [markdown]
# ```{glue:figure} cost_hours_figure
# :name: fig-cost-hours
# :alt: Horizontal bars per chapter on a log scale: the CPU-hours of the standard profile as recorded beside the paper profile as estimated; chapter 4's paper profile is the costliest.
#
# CPU-hours per chapter: the standard profile as recorded, the paper profile as estimated from it.
# ```
#
# ## Per model
#
# The median seconds per run and per epoch, and the largest peak memory, for each chapter's models, by
# CPU kind, precision and device.

# %% tags=["hide-input"]
report.glue_figure("cost_epoch_figure", cost.seconds_per_epoch_figure(costs))
report.glue_figure("cost_memory_figure", cost.peak_memory_figure(costs))
cost.model_table(costs)

# %% [markdown]
# ```{glue:figure} cost_epoch_figure
# :name: fig-cost-epoch
# :alt: One row of dots per chapter and model, seconds per epoch on a log scale from about a millisecond (chapter 3's MLPs) to about a thousand seconds (chapter 4's GPS), coloured by CPU.
#
# Seconds per epoch of every recorded run, per chapter and model (log scale), coloured by the CPU it ran on.
# ```
#
# ```{glue:figure} cost_memory_figure
# :name: fig-cost-memory
# :alt: Horizontal bars per chapter and model: the largest peak resident memory of any run, in GB; chapter 4's models need the most.
#
# The largest peak resident memory of any recorded run, per chapter and model. Records made before peak
# memory was recorded are left out.
# ```
#
# ## On a GPU
#
# Every chapter takes `-p device cuda`. {glue:text}`cost_gpu_runs` `python -m graphrepro bench --estimate
# paper --device cuda` trains a few epochs of each kind of run on the GPU it finds and estimates the
# `paper` profile's hours there.

# %% tags=["hide-input"]
glue("cost_gpu_runs", cost.gpu_sentence(costs), display=False)

# %% [markdown]
# ## What made it cheaper
#
# Each chapter's benchmarks time two or more ways of doing the same work in one process, alternating them
# (`python -m graphrepro bench --chapter NAME`, which keeps its last table of each CPU kind in
# `results/bench/`); every ratio of the committed tables, with when and where it was measured and beside how
# much other work (the load average over the CPUs):

# %% tags=["hide-input"]
report.plain_table(cost.cheaper_table())

# %% [markdown]
# ## Executing the pages
#
# How long each page of this build took to execute (papermill's record), with the profile it ran under;
# pages that found their runs recorded train nothing, so this is the cost of rendering, not of training.

# %% tags=["hide-input"]
report.plain_table(cost.execution_table())
