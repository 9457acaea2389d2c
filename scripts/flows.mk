# flows.mk -- `make flows` and `make stats` (seed 001 section 5.3.2): for
# every sequence of sequences/dst/ and every method of params/, the flows,
# their pictures, their errors against the ground truth, montages and a
# timing file in results/<sequence>/<method>/; then one table and charts.
# The top-level Makefile reaches this file through scripts/pipeline.mk; it
# runs from the repository root.  docs/PIPELINE.md is the user's guide.
#
#   flows-compute   flow-compute, flow-tool error and flow-track only (no
#                   ImageMagick, no gnuplot): what a GPU machine runs
#   flows-pictures  colour, vectors, mix, blend (flow-tool only)
#   flows-montage   comparison montages (flow-tool montage)
#   flows-render    flows-pictures + flows-montage
#   flows           all of the above
#   stats           results/stats.csv, stats.md and charts (gnuplot) from
#                   whatever results/ holds: runs on results brought back
#                   from another machine, computes nothing
#
# Per sequence S and method M, results/S/M/ holds, for each pair P (the
# number of its first frame, 000, 001, ...):
#   P.flo P.flo.params  the flow and every parameter used (flow-compute)
#   P.error P.aae P.aee errors against gt_P.flo (pairs with ground truth;
#                       the mask of the pair when there is one)
#   P.png P-vectors.png colour coding (with its key) and vector plot, on the
#                       ground truth's scale when there is one
#   P-mix.png           vectors over the colour (ground truth) or over the
#                       frame (none): seed 001 figure 5.10
#   P-blend.png         the frame blended with the colour: figure 5.11
#   P-montage.png       ground truth | estimate | endpoint errors with AEE
#                       and AAE | vectors (figure 5.9); frame | colour |
#                       vectors | tracks without ground truth (flow-tool
#                       montage: no ImageMagick needed)
#   timing.stats        flow-compute --timing-file over the whole sequence
#                       (figure 5.8): one flow-compute run per S and M, so
#                       memory is allocated once, as for a video
# and, for a sequence with pairs without ground truth, results/S/tracks/:
#   tracks.csv          flow-track over the whole sequence (KLT features)
#   NNNNNN.png          the trail picture of frame NNNNNN: the panel "tracks"
#                       of the montage of pair NNN
# SEQUENCES and METHODS choose (SEQUENCES="demo-%" takes make patterns).
# Incremental: a flow is recomputed when a frame or its method's parameter
# file changed (a link's own time counts: make -L), or a flow is missing.
# A rebuilt flow-compute recomputes nothing by itself (make -B flows does).

TOP := .
include scripts/pipeline-common.mk

# ---- user-editable ---------------------------------------------------------
SEQ_DIR       ?= sequences/dst
SEQ_SRC       ?= sequences/src
RESULTS       ?= results
METHODS       ?= $(ALL_METHODS)
# flow-compute and flow-track --device: cpu, cuda, cuda:N; empty: their default (auto).
DEVICE        ?=
# GPUs to share out ("0,1" or "0 1"): each flow-compute or flow-track run
# takes one that no other run holds (scripts/gpu-slot), so that `make -j N
# flows GPUS=0,1` keeps every GPU busy with one run each.  Instead of DEVICE.
GPUS          ?=
# Where gpu-slot keeps its locks: runs sharing the directory share the GPUs
# (by default every pipeline of this user on this machine).
GPU_LOCKS     ?= $(or $(TMPDIR),/tmp)/flow-gpus-$(USER_ID)
# flow-compute --repeat: runs per pair averaged in timing.stats.
REPEAT        ?= 1
COMPUTE_FLAGS ?=
# More flow-track options for the tracks of sequences without ground truth.
TRACK_FLAGS   ?=
# More flow-tool options for every vector plot and mix (docs/flow-tool.md).
VECTORS_FLAGS ?=
# More flow-tool montage options for every montage (--columns 2, --error-max 2).
MONTAGE_FLAGS ?=
GNUPLOT       ?= gnuplot
# 0: use SEQ_DIR as it is (a copy on another machine) instead of refreshing
# its parameter links through sequences/Makefile first.
SEQ_REFRESH   ?= 1
# 1: never run flow-compute or flow-track; a flow or tracks that need
# computing are an error (for rendering results computed elsewhere).
NOCOMPUTE     ?= 0
# What results/<sequence>/<method>/ keeps besides timing.stats, the scores
# (P.error, P.aae, P.aee) and each flow's P.flo.params:
#   pictures  the flow and the pictures of one pair per sequence: its first
#             pair with ground truth, else its first pair (and the tracks'
#             trail picture of that pair's frame)
#   all       every flow, the pictures of every pair, every trail picture
#   scores    no flow and no picture (tracks.csv alone of the tracks)
# Flows are scored as they are computed, so that none needs keeping; files
# the setting does not keep are removed by the next flows or flows-compute.
RESULTS_KEEP  ?= pictures
# 1: a sequence of colour frames is computed on R, G, B (flow-compute --rgb)
# by every method whose parameter file does not choose (a "color" line);
# 0: on the luminance, unless the parameter file says color,1.
RGB           ?= 1

THIS := scripts/flows.mk
comma := ,
GPU_LIST := $(strip $(subst $(comma), ,$(GPUS)))
ifneq ($(GPU_LIST),)
  USER_ID := $(shell id -u)
  $(if $(DEVICE),$(error GPUS=$(GPUS) and DEVICE=$(DEVICE): give one of them (GPUS runs each job on cuda:N)))
  # The command prefix that runs a tool on a GPU of its own; it adds --device.
  ON_GPU := $(TOP)/scripts/gpu-slot '$(GPU_LOCKS)' '$(GPU_LIST)'
endif
# The --device option of flow-compute and flow-track (gpu-slot adds its own).
DEVICE_OPT := $(if $(DEVICE),--device $(DEVICE))
$(if $(filter-out all pictures scores,$(RESULTS_KEEP))$(filter-out 1,$(words $(RESULTS_KEEP))),$(error RESULTS_KEEP=$(RESULTS_KEEP): all, pictures or scores))
$(if $(filter-out 0 1,$(RGB))$(filter-out 1,$(words $(RGB))),$(error RGB=$(RGB): 1 (colour sequences in colour) or 0))
.DELETE_ON_ERROR:
.SUFFIXES:
FLOWS_GOALS := flows flows-compute flows-pictures flows-montage flows-render
.PHONY: $(FLOWS_GOALS) stats flows-list FORCE

ifeq ($(STAGE),)
# ---- stage 1: refresh the parameter links, then run stage 2 ------------------
# A new method or a new per-sequence parameter file changes which file
# sequences/dst/S/M.params links to; stage 2 must read the links afterwards.
# The overall progress (scripts/flows-progress.sh): a dry run of stage 2
# counts the flow-compute and flow-track runs it will do; each run done
# prints how many are done and about how long the rest will take.
$(FLOWS_GOALS) flows-list:
ifeq ($(SEQ_REFRESH),1)
	@$(MAKE) --no-print-directory -C sequences params SRC=$(abspath $(SEQ_SRC)) \
	    DST=$(abspath $(SEQ_DIR)) PARAMS_DIR=$(abspath $(PARAMS_DIR)) V=$(V)
endif
	@p=$$(mktemp -d "$${TMPDIR:-/tmp}/flows-progress.XXXXXX") || exit 2; \
	n=$$($(MAKE) -n --no-print-directory -L -f $(THIS) STAGE=run $@ 2>/dev/null \
	    | grep -c -e 'flow-compute -q --progress' -e 'flow-track -q --progress'); \
	$(TOP)/scripts/flows-progress.sh start "$$p" "$$n"; \
	$(MAKE) --no-print-directory -L -f $(THIS) STAGE=run PROGRESS_DIR="$$p" $@; \
	rc=$$?; rm -rf "$$p"; exit $$rc

else
# ---- stage 2: the rules ------------------------------------------------------
$(if $(strip $(METHODS)),,$(error no method: $(PARAMS_DIR)/ holds no parameter file (METHODS=... names them)))
$(foreach m,$(METHODS),$(if $(wildcard $(PARAMS_DIR)/$(m).params),,$(error METHODS: no $(PARAMS_DIR)/$(m).params (methods: $(ALL_METHODS)))))

frames_of = $(sort $(wildcard $(SEQ_DIR)/$(1)/frame_*.png))
SEQ_ALL   := $(foreach s,$(notdir $(patsubst %/,%,$(wildcard $(SEQ_DIR)/*/))),$(if $(word 2,$(call frames_of,$(s))),$(s)))
# SEQUENCES: names, or make patterns (demo-%) matched against SEQ_ALL.
SEQUENCES ?= %
override SEQUENCES := $(foreach p,$(SEQUENCES),$(if $(findstring %,$(p)),$(filter $(p),$(SEQ_ALL)),$(p)))
$(foreach s,$(SEQUENCES),$(if $(word 2,$(call frames_of,$(s))),,$(error SEQUENCES: '$(s)' has no frames $(SEQ_DIR)/$(s)/frame_000.png, frame_001.png, ...)))

# The scale file of the ground truth of pair $(2) of sequence $(1) (nothing
# without ground truth), and the flow-tool options it holds for pictures of
# kind $(3) (flow-tool's automatic scales without ground truth).  The $$$$
# reaches the shell as $$(...) after this expansion, eval and the recipe's.
gt_of      = $(wildcard $(SEQ_DIR)/$(1)/gt_$(2).flo)
scale_file = $(if $(call gt_of,$(1),$(2)),$(SEQ_DIR)/$(1)/gt_$(2).scale)
scale      = $(if $(call gt_of,$(1),$(2)),$$$$(sed -n 's/^$(3)=//p' $(SEQ_DIR)/$(1)/gt_$(2).scale))

# The trail picture of frame P (3 digits) of sequence S: flow-track names
# its pictures by the frame's number in 6 digits.
tracks_of = $(RESULTS)/$(1)/tracks
trail_of  = $(call tracks_of,$(1))/000$(2).png

# The pairs of sequence S whose flow and pictures results/ keeps.
shown_pairs = $(if $(filter all,$(RESULTS_KEEP)),$(PAIRS.$(1)),$(if \
    $(filter pictures,$(RESULTS_KEEP)),$(firstword $(GTPAIRS.$(1)) $(PAIRS.$(1)))))

# Scores under RESULTS without their CSV row (empty or cut: a full disk
# under an older version): their run is redone, as for a missing score.
BROKEN_SCORES := $(shell find $(abspath $(RESULTS)) -mindepth 3 -maxdepth 3 -name '*.error' -type f \
    -exec awk -F, 'FNR == 1 { n = NF } FNR == 2 && NF == n { whole[FILENAME] = 1 } \
    END { for (i = 1; i < ARGC; i++) if (!(ARGV[i] in whole)) print ARGV[i] }' {} + 2>/dev/null)

COMPUTE  :=
ERRORS   :=
TRACKS   :=
PICTURES :=
MONTAGES :=
PRUNE    :=

# $(call sequence_rules,S): the pairs of S, those with ground truth and
# those without, and those whose flow and pictures are kept.
define sequence_rules
FRAMES.$(1) := $(call frames_of,$(1))
PAIRS.$(1)  := $$(patsubst $(SEQ_DIR)/$(1)/frame_%.png,%,$$(filter-out $$(lastword $$(FRAMES.$(1))),$$(FRAMES.$(1))))
GTPAIRS.$(1) := $$(filter $$(PAIRS.$(1)),$$(patsubst $(SEQ_DIR)/$(1)/gt_%.flo,%,$$(wildcard $(SEQ_DIR)/$(1)/gt_*.flo)))
NOGTPAIRS.$(1) := $$(filter-out $$(GTPAIRS.$(1)),$$(PAIRS.$(1)))
SHOWN.$(1) := $$(call shown_pairs,$(1))
endef
$(foreach s,$(SEQUENCES),$(eval $(call sequence_rules,$(s))))

# $(call prune_rule,DIR,WHAT,KEPT): removes the files of DIR matching
# [0-9]* (what a pair or frame leaves there) that are not in KEPT: what a
# run with a larger RESULTS_KEEP left.  (Names without their directory, in
# it, and file lists likewise below: a command line has room for every
# file of a sequence of 1000 frames.)
define prune_rule
$(if $(filter-out $(3),$(wildcard $(1)/[0-9]*)),
PRUNE += $(1)/.prune
$(1)/.prune:
	@$$(call say,PRUNE,$(2) ($(words $(filter-out $(3),$(wildcard $(1)/[0-9]*))) files that RESULTS_KEEP=$(RESULTS_KEEP) leaves out))
	$(Q)cd $(1) && rm -f $(notdir $(filter-out $(3),$(wildcard $(1)/[0-9]*)))
)
endef

# $(call track_rules,S,T): the tracks of sequence S into T: one flow-track
# run over the whole sequence, into a fresh directory that replaces the old
# one when it is complete.  A missing trail picture that is kept forces the
# run.
define track_rules
ALLTRAILS.$(1) := $(patsubst $(SEQ_DIR)/$(1)/frame_%.png,$(2)/000%.png,$(FRAMES.$(1)))
TRAILS.$(1) := $(if $(filter all,$(RESULTS_KEEP)),$$(ALLTRAILS.$(1)),$(foreach p,$(filter $(NOGTPAIRS.$(1)),$(SHOWN.$(1))),$(call trail_of,$(1),$(p))))
TRACKS += $(2)/tracks.csv

$(2)/tracks.csv: $(FRAMES.$(1)) $$(if $$(filter-out $$(wildcard $$(TRAILS.$(1))),$$(TRAILS.$(1))),FORCE) | $(if $(filter 1,$(NOCOMPUTE)),,$(FLOW_TRACK))
ifeq ($(NOCOMPUTE),1)
	@echo "flows: $(1)/tracks needs computing (missing tracks or pictures, or frames newer than $$@), and NOCOMPUTE=1" >&2; exit 2
else
	@$$(call say,TRACK,$(1) ($(words $(FRAMES.$(1))) frames))
	$(Q)rm -rf $(2).tmp && mkdir -p $(2).tmp
	$(Q)$(ON_GPU) $(FLOW_TRACK) -q --progress $(1)/tracks $(DEVICE_OPT) $(TRACK_FLAGS) $$(if $$(TRAILS.$(1)),--draw $(2).tmp) \
	    -o $(2).tmp/tracks.csv $(SEQ_DIR)/$(1)/frame_%03d.png $(QOUT) || { rm -rf $(2).tmp; exit 3; }
	$(Q)cd $(2).tmp && rm -f $$(notdir $$(filter-out $$(TRAILS.$(1)),$$(ALLTRAILS.$(1))))
	$(Q)rm -rf $(2) && mv $(2).tmp $(2)
	@$(TOP)/scripts/flows-progress.sh done '$(PROGRESS_DIR)' '$(1)/tracks'
endif
$$(TRAILS.$(1)): $(2)/tracks.csv ;
$$(eval $$(call prune_rule,$(2),$(1)/tracks,$(2)/tracks.csv $$(TRAILS.$(1))))
endef
$(foreach s,$(SEQUENCES),$(if $(NOGTPAIRS.$(s)),$(eval $(call track_rules,$(s),$(call tracks_of,$(s))))))

# $(call method_rules,S,M,R): the flows of sequence S by method M into R.
define method_rules
FLOS.$(3)   := $(SHOWN.$(1):%=$(3)/%.flo)
SCORES.$(3) := $(GTPAIRS.$(1):%=$(3)/%.error)
PICTURES.$(3) := $(foreach p,$(SHOWN.$(1)),$(3)/$(p).png $(3)/$(p)-vectors.png $(3)/$(p)-mix.png $(3)/$(p)-blend.png)
COMPUTE  += $(3)/timing.stats
ERRORS   += $$(SCORES.$(3))
PICTURES += $$(PICTURES.$(3))
MONTAGES += $(SHOWN.$(1):%=$(3)/%-montage.png)

# One flow-compute run for the whole sequence (in colour for colour frames,
# RGB=1), into a fresh directory; each flow with ground truth is scored
# there, the flows RESULTS_KEEP leaves out are dropped, and what is left
# replaces the old results only when all of it succeeded.  A missing kept
# flow or score, or a broken score, forces the run.
$(3)/timing.stats: $(FRAMES.$(1)) $(SEQ_DIR)/$(1)/$(2).params \
    $(foreach p,$(GTPAIRS.$(1)),$(SEQ_DIR)/$(1)/gt_$(p).flo $(wildcard $(foreach k,mask occ invalid noc obj,$(SEQ_DIR)/$(1)/$(k)_$(p).png) $(SEQ_DIR)/$(1)/noc_$(p).flo)) \
    $$(if $$(filter-out $$(wildcard $$(FLOS.$(3)) $$(SCORES.$(3))),$$(FLOS.$(3)) $$(SCORES.$(3)))$$(filter \
        $$(abspath $$(SCORES.$(3))),$$(BROKEN_SCORES)),FORCE) \
    | $(if $(filter 1,$(NOCOMPUTE)),,$(FLOW_COMPUTE) $(FLOW_TOOL))
ifeq ($(NOCOMPUTE),1)
	@echo "flows: $(1)/$(2) needs computing (missing flows or scores, or frames, ground truth or $(2).params newer than $$@), and NOCOMPUTE=1" >&2; exit 2
else
	@$$(call say,FLOW,$(1)/$(2) ($(words $(PAIRS.$(1))) pair$(if $(word 2,$(PAIRS.$(1))),s)))
	$(Q)rm -rf $(3).tmp && mkdir -p $(3).tmp
	$(Q)$(ON_GPU) $(FLOW_COMPUTE) -q --progress $(1)/$(2) -p $(SEQ_DIR)/$(1)/$(2).params $(DEVICE_OPT) \
	    $(if $(filter 1,$(RGB)),$$$$($(TOP)/scripts/rgb-option.sh $(SEQ_DIR)/$(1)/frame_000.png $(SEQ_DIR)/$(1)/$(2).params)) \
	    --repeat $(REPEAT) --timing-file $(3).tmp/timing.stats $(COMPUTE_FLAGS) \
	    -o $(3).tmp/%03d.flo $(SEQ_DIR)/$(1)/frame_%03d.png $(QOUT) \
	    || { rm -rf $(3).tmp; exit 3; }
$(if $(GTPAIRS.$(1)),
	@$$(call say,SCORE,$(1)/$(2) ($(words $(GTPAIRS.$(1))) pair$(if $(word 2,$(GTPAIRS.$(1))),s)))
	$(Q)$(TOP)/scripts/flows-score.sh $(FLOW_TOOL) $(SEQ_DIR)/$(1) $(3).tmp $(GTPAIRS.$(1)) \
	    || { rm -rf $(3).tmp; exit 2; })
	$(Q)cd $(3).tmp && rm -f $(patsubst %,%.flo,$(filter-out $(SHOWN.$(1)),$(PAIRS.$(1))))
	$(Q)mkdir -p $(3) && rm -f $(3)/[0-9][0-9][0-9]*.* $(3)/timing.stats && \
	    mv $(3).tmp/* $(3)/ && rmdir $(3).tmp
	@$(TOP)/scripts/flows-progress.sh done '$(PROGRESS_DIR)' '$(1)/$(2)'
endif
$$(FLOS.$(3)) $$(SCORES.$(3)): $(3)/timing.stats ;

$(foreach p,$(SHOWN.$(1)),$(call pair_rules,$(1),$(2),$(3),$(p)))
$$(eval $$(call prune_rule,$(3),$(1)/$(2),$(3)/timing.stats $$(FLOS.$(3)) \
    $(foreach p,$(GTPAIRS.$(1)),$(3)/$(p).error $(3)/$(p).aae $(3)/$(p).aee) \
    $(PAIRS.$(1):%=$(3)/%.flo.params) $$(PICTURES.$(3)) $(SHOWN.$(1):%=$(3)/%-montage.png)))
endef

# $(call pair_rules,S,M,R,P): the pictures of pair P.
define pair_rules
$(3)/$(4).png: $(3)/$(4).flo $(call scale_file,$(1),$(4)) | $(FLOW_TOOL)
	@$$(call say,COLOR,$(1)/$(2)/$(4))
	$(Q)$(FLOW_TOOL) color --legend $(call scale,$(1),$(4),color) $$< $$@.tmp.png $$(call into_place,$$@.tmp.png)
$(3)/$(4)-vectors.png: $(3)/$(4).flo $(call scale_file,$(1),$(4)) | $(FLOW_TOOL)
	@$$(call say,VECTORS,$(1)/$(2)/$(4))
	$(Q)$(FLOW_TOOL) vectors $(VECTORS_FLAGS) $(call scale,$(1),$(4),vectors) $$< $$@.tmp.png $$(call into_place,$$@.tmp.png)
$(3)/$(4)-mix.png: $(3)/$(4).flo $(SEQ_DIR)/$(1)/frame_$(4).png $(call scale_file,$(1),$(4)) | $(FLOW_TOOL)
	@$$(call say,MIX,$(1)/$(2)/$(4))
	$(Q)$(FLOW_TOOL) $(if $(call gt_of,$(1),$(4)),mix,vectors --background $(SEQ_DIR)/$(1)/frame_$(4).png) \
	    $(VECTORS_FLAGS) $(call scale,$(1),$(4),mix) $$< $$@.tmp.png $$(call into_place,$$@.tmp.png)
$(3)/$(4)-blend.png: $(3)/$(4).flo $(SEQ_DIR)/$(1)/frame_$(4).png $(call scale_file,$(1),$(4)) | $(FLOW_TOOL)
	@$$(call say,BLEND,$(1)/$(2)/$(4))
	$(Q)$(FLOW_TOOL) blend $(call scale,$(1),$(4),blend) $(SEQ_DIR)/$(1)/frame_$(4).png $$< $$@.tmp.png $$(call into_place,$$@.tmp.png)
$(3)/$(4)-montage.png: $(3)/$(4).flo $(if $(call gt_of,$(1),$(4)),$(SEQ_DIR)/$(1)/gt_$(4).flo \
    $(wildcard $(SEQ_DIR)/$(1)/mask_$(4).png),$(SEQ_DIR)/$(1)/frame_$(4).png $(call trail_of,$(1),$(4))) | $(FLOW_TOOL)
	@$$(call say,MONTAGE,$(1)/$(2)/$(4))
	$(Q)$(FLOW_TOOL) montage --title '$(1) $(4): $(2)' --label '$(2)' \
	    $(if $(call gt_of,$(1),$(4)),--gt $(SEQ_DIR)/$(1)/gt_$(4).flo \
	    $(if $(wildcard $(SEQ_DIR)/$(1)/mask_$(4).png),--mask $(SEQ_DIR)/$(1)/mask_$(4).png),\
	    --frame $(SEQ_DIR)/$(1)/frame_$(4).png --panel 'tracks=$(call trail_of,$(1),$(4))') \
	    $(MONTAGE_FLAGS) $$< $$@.tmp.png $$(call into_place,$$@.tmp.png)

endef

$(foreach s,$(SEQUENCES),$(foreach m,$(METHODS),$(eval $(call method_rules,$(s),$(m),$(RESULTS)/$(s)/$(m)))))

# What sequences/Makefile makes, for a SEQ_DIR made by an older version or
# copied without it: the scale of a ground truth's pictures, and a clear
# message for a missing parameter link.
$(SEQ_DIR)/%.scale: $(SEQ_DIR)/%.flo | $(FLOW_TOOL)
	$(Q)$(TOP)/scripts/flow-scale.sh $(FLOW_TOOL) $< > $@.tmp $(call into_place,$@.tmp)
$(SEQ_DIR)/%.params:
	@echo "flows: no $@ (run make -C sequences params, or make flows without SEQ_REFRESH=0)" >&2; exit 2

# (The empty recipes keep make from saying "Nothing to be done".)
.PHONY: $(PRUNE)
flows-compute: $(COMPUTE) $(ERRORS) $(TRACKS) $(PRUNE) ; @:
flows-pictures: $(PICTURES) ; @:
flows-montage: $(MONTAGES) ; @:
flows-render: flows-pictures flows-montage ; @:
flows: flows-compute flows-render ; @:

flows-list:
	@$(foreach s,$(SEQUENCES),printf '%-32s %3d pairs, ground truth: %s\n' '$(s)' $(words $(PAIRS.$(s))) '$(or $(GTPAIRS.$(s)),none)';)
	@echo "methods: $(METHODS)"

FORCE:
endif

# ---- stats: from whatever results/ holds ---------------------------------------
# stats.csv is rebuilt when a timing or error file is newer, or appears.
STATS_INPUTS := $(wildcard $(RESULTS)/*/*/timing.stats $(RESULTS)/*/*/*.error)
STATS_CHARTS := $(RESULTS)/accuracy.png $(RESULTS)/time.png $(RESULTS)/time-size.png

# Ends with the accuracy table (when there is ground truth) and where
# everything is.
stats: $(RESULTS)/stats.csv $(RESULTS)/stats.md $(STATS_CHARTS)
	@echo
	@awk '/^## / { show = /^## Accuracy/ } show' $(RESULTS)/stats.md
	@$(TOP)/scripts/pipeline-stats.sh check $(RESULTS) $(SEQ_DIR)
	@echo "results: $(RESULTS)/<sequence>/<method>/ (flows, errors, pictures)"
	@echo "tables:  $(RESULTS)/stats.md, $(RESULTS)/stats.csv"
	@echo "charts:  $$(ls $(STATS_CHARTS) 2>/dev/null | tr '\n' ' ')"

$(RESULTS)/stats.csv: $(STATS_INPUTS) $(TOP)/scripts/pipeline-stats.sh
	@$(call say,STATS,$@ ($(words $(wildcard $(RESULTS)/*/*/timing.stats)) runs))
	@test -n "$(STATS_INPUTS)" || { echo "stats: nothing in $(RESULTS)/: run make flows (or flows-compute) first" >&2; exit 2; }
	$(Q)$(TOP)/scripts/pipeline-stats.sh csv $(RESULTS) > $@.tmp $(call into_place,$@.tmp)

$(RESULTS)/stats.md: $(RESULTS)/stats.csv $(TOP)/scripts/pipeline-stats.sh
	@$(call say,TABLE,$@)
	$(Q)$(TOP)/scripts/pipeline-stats.sh md $< > $@.tmp $(call into_place,$@.tmp)

# One gnuplot run per chart.
$(STATS_CHARTS): $(RESULTS)/%.png: $(RESULTS)/stats.csv $(TOP)/scripts/pipeline-stats.sh $(TOP)/scripts/stats.gp
	@$(call say,CHART,$@)
	$(Q)$(TOP)/scripts/pipeline-stats.sh chart $* $< $@ $(GNUPLOT)
