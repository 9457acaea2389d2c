# pipeline-common.mk -- what sequences/Makefile and scripts/flows.mk share:
# the one-line-per-target printing (V=1 shows the commands instead), where
# the tools are, and which parameter files are methods.
#
# Before including, set TOP to the repository root as seen from the
# including makefile ("." or "..").  Everything here only defines variables
# and functions; it has no rules.

# ---- user-editable ---------------------------------------------------------
# These generic names come from the command line only: a shell that exports
# SRC, DST, DIR, PREFIX or BIN for something else (SRC=~/src) must not send
# the pipeline to import, convert or run what they name.
$(foreach v,SRC DST DIR PREFIX BIN,$(if $(findstring environment,$(origin $(v))),$(eval undefine $(v))))
V          ?= 0
BUILD      ?= build
# Where flow-compute, flow-track, flow-tool and flow-synth are.
BIN        ?= $(if $(filter /%,$(BUILD)),$(BUILD),$(TOP)/$(BUILD))/bin
# The parameter files: one per method (params/lk.params) and per-sequence
# ones named <sequence prefix>-<method>.params (params/yosemite-clg-nl.params).
PARAMS_DIR ?= $(TOP)/params

FLOW_COMPUTE := $(BIN)/flow-compute
FLOW_TRACK   := $(BIN)/flow-track
FLOW_TOOL    := $(BIN)/flow-tool
FLOW_SYNTH   := $(BIN)/flow-synth

# ---- printing ----------------------------------------------------------------
# $(call say,TAG,what): one aligned line "  TAG    what", or nothing with V=1,
# where make echoes every command instead.  $(Q) prefixes commands; $(QOUT)
# silences a tool's stdout unless V=1 (its stderr always shows).  On a
# terminal the line first erases the one it starts on, where another job
# (make -j) may have left flow-compute's progress line open.
ifeq ($(V),1)
  Q    :=
  QOUT :=
  say   = :
else
  Q    := @
  QOUT := >/dev/null
  say   = { [ ! -t 1 ] || printf '\r\033[K'; printf '  %-7s %s\n' '$(1)' '$(2)'; }
endif

# ---- temporaries ---------------------------------------------------------------
# A recipe writes its output to a temporary and moves it into place, so that
# an interrupted rule never leaves a target that looks finished.  Appended to
# the command that writes TMP, $(call into_place,TMP) moves TMP to the target;
# $(call drop_on_failure,TMP) removes TMP when the command failed and fails
# with its status: a failed rule leaves nothing behind (.DELETE_ON_ERROR only
# removes the target itself).  Inside text that is $(eval)ed, call them as
# $$(call ...) so that they expand when the recipe runs.
drop_on_failure = || { rc=$$?; rm -f $(1); exit $$rc; }
into_place      = && mv -f $(1) $@ $(call drop_on_failure,$(1))

# ---- methods -----------------------------------------------------------------
# Every stem of params/*.params.  A stem A-M where M is also a stem is the
# per-sequence file of method M for the sequences named A or A-...; every
# other stem is a method.
PARAM_STEMS  := $(sort $(basename $(notdir $(wildcard $(PARAMS_DIR)/*.params))))
per_seq_of    = $(strip $(foreach m,$(PARAM_STEMS),$(if $(filter %-$(m),$(1)),$(m))))
ALL_METHODS  := $(foreach s,$(PARAM_STEMS),$(if $(call per_seq_of,$(s)),,$(s)))

# $(call seq_params,SEQUENCE,METHOD): the parameter file of METHOD for
# SEQUENCE inside PARAMS_DIR: the longest A with A-METHOD.params where
# SEQUENCE is A or starts with A-, else METHOD.params (may not exist).
seq_params_prefixes = $(foreach s,$(filter %-$(2),$(PARAM_STEMS)),$(if \
    $(filter $(patsubst %-$(2),%,$(s)) $(patsubst %-$(2),%,$(s))-%,$(1)),$(s)))
seq_params = $(PARAMS_DIR)/$(or $(lastword $(sort $(call seq_params_prefixes,$(1),$(2)))),$(2)).params
