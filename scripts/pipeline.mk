# pipeline.mk -- the make pipeline's goals in the top-level Makefile (which
# includes this file), after Moussu 2010 section 5.3: docs/PIPELINE.md.
#
#   make demo            demo sequences, their flows, then stats (the README's command)
#   make sequences       convert sequences/src/* into sequences/dst/
#   make import DIR=../shared/data [ONLY_GT=1]   path lists of a collection, then convert
#   make flows           every sequence x method: flows, errors, pictures, montages
#                        (and the tracks of sequences without ground truth)
#   make flows-compute   the flows, errors and tracks alone (no ImageMagick, no gnuplot)
#   make flows-render    pictures and montages of computed flows
#   make stats           results/stats.csv, stats.md, charts (no computing)
#   make readme-table    the README's demo table and docs/img/demo-accuracy.png
#                        from results/ (after make demo)
#   make slurm-flows     flows-compute as a Slurm job array, one task per sequence
#                        (scripts/slurm-flows; its options in SLURM_FLAGS="...")
#   make pipeline-clean  remove results/ and sequences/dst/
# Options (see scripts/flows.mk): METHODS="lk hs", SEQUENCES="...", DEVICE=cuda,
# GPUS=0,1 (with -j N: one run per GPU), REPEAT=N, RESULTS=dir, SEQ_DIR=dir, NOCOMPUTE=1, V=1,
# RESULTS_KEEP=pictures|scores|all (what results/ keeps: one pair's flow and pictures per
# sequence and method, the default; the scores alone; everything), RGB=0 (colour sequences
# on the luminance too).
# The real rules live in scripts/flows.mk and sequences/Makefile, run as
# sub-makes so that their variables stay apart from the build's.

PIPELINE_FLOWS := flows flows-compute flows-pictures flows-montage flows-render flows-list
.PHONY: demo sequences import stats readme-table slurm-flows pipeline-clean $(PIPELINE_FLOWS)

# The flows of the demo sequences only (imported ones may be there too);
# stats gathers all of results/.
demo: tools
	@$(MAKE) --no-print-directory -C sequences demo BUILD=$(abspath $(BUILD))
	@$(MAKE) --no-print-directory flows SEQUENCES='demo-%'
	@$(MAKE) --no-print-directory stats

sequences: tools
	@$(MAKE) --no-print-directory -C sequences BUILD=$(abspath $(BUILD))

# DIR is taken relative to here (sequences/Makefile would read it from sequences/),
# and from the command line only (scripts/pipeline-common.mk says why).
$(if $(findstring environment,$(origin DIR)),$(eval undefine DIR))
import: tools
	@test -n "$(DIR)" || { echo "usage: make import DIR=collection [ONLY_GT=1] [PREFIX=name-]" >&2; exit 1; }
	@$(MAKE) --no-print-directory -C sequences import BUILD=$(abspath $(BUILD)) DIR=$(abspath $(DIR))

$(PIPELINE_FLOWS): tools
	@$(MAKE) --no-print-directory -f scripts/flows.mk BUILD=$(BUILD) $@

# Reads results/ only: runs where results were brought back, without tools.
stats:
	@$(MAKE) --no-print-directory -f scripts/flows.mk BUILD=$(BUILD) stats

# The README's table of the demo sequences and its chart, from what make
# demo measured (scripts/readme-table.sh); the default method is the tools'.
readme-table: stats tools
	@scripts/readme-table.sh results/stats.csv README.md \
	    "$$($(BUILD)/bin/flow-compute --help | sed '/--method NAME/{/\]/!{N;s/\n */ /;}}' | sed -n 's/.*--method NAME.*\[\([a-z0-9-]*\)\]$$/\1/p')"
	@cp results/accuracy.png docs/img/demo-accuracy.png && echo "readme-table: docs/img/demo-accuracy.png from results/accuracy.png"

# The pipeline's variables given to this make go on to every task.
SLURM_VARS := SEQUENCES METHODS RESULTS SEQ_DIR SEQ_SRC PARAMS_DIR DEVICE REPEAT COMPUTE_FLAGS TRACK_FLAGS \
              RESULTS_KEEP RGB
slurm-flows: tools
	@scripts/slurm-flows $(SLURM_FLAGS) BUILD='$(BUILD)' \
	    $(foreach v,$(SLURM_VARS),$(if $(filter command line,$(origin $(v))),'$(v)=$($(v))'))

pipeline-clean:
	rm -rf results sequences/dst
