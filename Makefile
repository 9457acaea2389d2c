# flow-platform -- the one entry point: build, install, test, bench.
#
#   make                 libflow (static + shared), flow-compute, flow-track, flow-tool,
#                        flow-synth, and the Python module (when python3-dev and numpy
#                        are installed)
#   make python          the Python module flowplatform alone (docs/python.md)
#   make studio          flow-studio, the parameter explorer in the browser
#                        (docs/flow-studio.md; with the Python module)
#   make man             the tools' man pages, made from their --help, in BUILD/man/man1
#   make test            unit, CLI and Python tests on the CPU backend
#   make test-gpu        the same on CUDA, plus CPU/GPU agreement tests
#   make test-unit       the unit tests alone, on the CPU backend
#   make bench           GPU benchmarks (needs a CUDA device)
#   make install PREFIX=/usr/local    make uninstall PREFIX=/usr/local
#   make help            this list, and the pipeline's goals and options
#   make V=1             the full commands instead of one line per step
#   make SANITIZE=1 BUILD=build-san test    AddressSanitizer + UndefinedBehaviorSanitizer
#                        on the library, the tools and the tests (unit and CLI); the Python
#                        module and flow-studio only with PYMODULE=1 (they then need
#                        LD_PRELOAD=$(cc -print-file-name=libasan.so))
#   make fuzz            libFuzzer on every file reader, FUZZ_TIME seconds each (needs
#                        clang; docs/FUZZING.md); make fuzz-smoke: FUZZ_RUNS inputs each
#   make CUDA=0          force a CPU-only build;  make OPENCV=0: no OpenCV;
#                        make PYMODULE=0: no Python module

# ---- user-editable ---------------------------------------------------------
PREFIX    ?= /usr/local
CUDA_HOME ?= /usr/local/cuda
BUILD     ?= build
CC        ?= cc
CXX       ?= c++
CFLAGS    ?= -O2 -g
CXXFLAGS  ?= -O2 -g
NVCCFLAGS ?= -O3 -lineinfo
CUDA_ARCH ?= -gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90
SANITIZE  ?= 0
# PYTHON: the interpreter the Python module is built for.  Unset, the first
# of Debian's /usr/bin/python3 and the python3 in PATH that has both
# Python.h and numpy (scripts/find-python; set below).
# Where `make install` puts the package flowplatform: on Debian's sys.path
# for PREFIX /usr/local and /usr alike.
PYTHON_SITE ?= $(PREFIX)/lib/python$(PY_VERSION)/dist-packages
FUZZ_CC   ?= clang
FUZZ_BUILD ?= build-fuzz
FUZZ_TIME ?= 600
FUZZ_RUNS ?= 10000

# ---- printing ------------------------------------------------------------------
# One short line per step ("  CC    libflow/api/context.c"); V=1 shows the
# full commands instead.
V ?= 0
ifeq ($(V),1)
  Q    :=
  step  = :
else
  Q    := @
  step  = printf '  %-5s %s\n' '$(1)' '$(2)'
endif

# ---- what this machine has -------------------------------------------------
NVCC := $(or $(shell command -v nvcc 2>/dev/null),$(wildcard $(CUDA_HOME)/bin/nvcc))
ifeq ($(origin CUDA),undefined)
  CUDA := $(if $(NVCC),1,0)
endif
ifeq ($(origin OPENCV),undefined)
  OPENCV := $(shell pkg-config --exists opencv4 2>/dev/null && echo 1 || echo 0)
endif
PNG := $(shell pkg-config --exists libpng 2>/dev/null && echo 1 || echo 0)
# libjpeg: JPEG in builds without OpenCV (libjpeg-turbo's pkg-config file,
# or the bare header where a distribution ships none)
HASH := \#
JPEG := $(shell pkg-config --exists libjpeg 2>/dev/null && echo 1 || \
          { printf '$(HASH)include <stdio.h>\n$(HASH)include <jpeglib.h>\n' | $(CC) -E -x c - >/dev/null 2>&1 && echo 1 || echo 0; })
# The interpreter (PYTHON's, or the first that qualifies), its headers (or
# "-"), whether numpy is there, the extension's suffix and the version, in
# one probe of each interpreter tried (scripts/find-python).
PY_GIVEN := $(if $(filter undefined,$(origin PYTHON)),,'$(PYTHON)')
PY_FOUND := $(shell sh scripts/find-python $(PY_GIVEN) 2>/dev/null)
ifeq ($(origin PYTHON),undefined)
  PYTHON := $(or $(word 1,$(PY_FOUND)),python3)
endif
PY_INFO := $(wordlist 2,5,$(PY_FOUND))
PY_INCLUDE := $(word 1,$(PY_INFO))
PY_EXT     := $(word 3,$(PY_INFO))
PY_VERSION := $(word 4,$(PY_INFO))
# Under SANITIZE=1 the module is left out unless PYMODULE=1 asks for it: an
# interpreter loads a sanitized extension only with the ASan runtime
# preloaded (SAN_PRELOAD).
ifeq ($(origin PYMODULE),undefined)
  PYMODULE := $(if $(filter 1,$(SANITIZE)),0,$(if $(filter-out -,$(PY_INCLUDE)),$(if $(filter True,$(word 2,$(PY_INFO))),1,0),0))
endif
ifeq ($(CUDA),1)
  # nvcc may be a wrapper script outside the toolkit (/usr/local/bin/nvcc):
  # ask it where its runtime library is rather than guessing from its path.
  CUDA_LIBDIR := $(lastword $(shell $(NVCC) -dryrun -x cu /dev/null -o /dev/null 2>&1 | \
                   sed -n 's/.*LIBRARIES=.*"-L\([^"]*\)"[[:space:]]*$$/\1/p'))
  CUDA_LIBDIR := $(or $(CUDA_LIBDIR),$(patsubst %/bin/nvcc,%,$(NVCC))/lib64)
endif

# The library's version, MAJOR.MINOR.PATCH, read from its public header
# (FLOW_VERSION_MAJOR ...), where it is written once.  The shared library's
# soname is what a program linked against it records: libflow.so.MAJOR, or
# for a 0.x version (whose every MINOR may change the API) libflow.so.0.MINOR.
version_part = $(shell sed -n 's/^\#define FLOW_VERSION_$(1)  *\([0-9][0-9]*\)$$/\1/p' libflow/include/flow/flow.h)
VERSION := $(call version_part,MAJOR).$(call version_part,MINOR).$(call version_part,PATCH)
ifneq ($(words $(subst ., ,$(VERSION))),3)
  $(error libflow/include/flow/flow.h: FLOW_VERSION_MAJOR, MINOR and PATCH must each be defined once, as a number (read '$(VERSION)'))
endif
VERSION_MAJOR := $(word 1,$(subst ., ,$(VERSION)))
VERSION_MINOR := $(word 2,$(subst ., ,$(VERSION)))
SONAME := libflow.so.$(VERSION_MAJOR)$(if $(filter 0,$(VERSION_MAJOR)),.$(VERSION_MINOR))

# ---- flags -------------------------------------------------------------------
WARN      := -Wall -Wextra -Wshadow -Wno-unused-parameter
CPPFLAGS  += -Ilibflow/include -Ilibflow -Itests/common -Itools-common
ALL_CFLAGS   = -std=c11 -D_XOPEN_SOURCE=700 -fPIC -pthread $(WARN) $(CFLAGS)
ALL_CXXFLAGS = -std=c++17 -fPIC $(WARN) $(CXXFLAGS)
LDLIBS    := -pthread -lm

ifeq ($(SANITIZE),1)
  SANFLAGS   := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
  ALL_CFLAGS += $(SANFLAGS)
  ALL_CXXFLAGS += $(SANFLAGS)
  LDLIBS     += $(SANFLAGS)
  # what runs the sanitized Python module: the compiler's ASan runtime first
  # in the interpreter's libraries, and no leak report of the interpreter's
  SAN_PRELOAD = LD_PRELOAD=$(shell $(CC) -print-file-name=libasan.so) ASAN_OPTIONS=detect_leaks=0
endif

# ---- sources: each directory is one part of the architecture ---------------
LIB_DIRS := base device device/cpu core methods track api render eval io
LIB_C   := $(wildcard $(LIB_DIRS:%=libflow/%/*.c))
LIB_CU  :=
LIB_CXX :=
ifeq ($(CUDA),1)
  LIB_CU  += $(wildcard libflow/device/cuda/*.cu)
  LDLIBS  += -L$(CUDA_LIBDIR) -lcudart_static -lrt -ldl -lpthread -lstdc++
  BUILT_BACKENDS := cpu cuda
else
  LIB_C   += $(wildcard libflow/device/nocuda/*.c)
  BUILT_BACKENDS := cpu
endif
ifeq ($(OPENCV),1)
  LIB_CXX += $(wildcard libflow/io/opencv/*.cpp)
  CPPFLAGS_OPENCV := $(shell pkg-config --cflags opencv4)
  # only the modules the shim uses, not every module pkg-config lists
  LDLIBS  += $(shell pkg-config --libs-only-L opencv4) -lopencv_videoio -lopencv_imgcodecs \
             -lopencv_imgproc -lopencv_core -lstdc++
else
  LIB_C   += $(wildcard libflow/io/noopencv/*.c)
endif
ifeq ($(PNG),1)
  LIB_C   += $(wildcard libflow/io/png/*.c)
  CPPFLAGS += $(shell pkg-config --cflags libpng)
  LDLIBS  += $(shell pkg-config --libs libpng)
else
  LIB_C   += $(wildcard libflow/io/nopng/*.c)
endif
ifeq ($(JPEG),1)
  LIB_C   += $(wildcard libflow/io/jpeg/*.c)
  LDLIBS  += $(or $(shell pkg-config --libs libjpeg 2>/dev/null),-ljpeg)
else
  LIB_C   += $(wildcard libflow/io/nojpeg/*.c)
endif

LIB_OBJ := $(LIB_C:%.c=$(BUILD)/obj/%.o) $(LIB_CU:%.cu=$(BUILD)/obj/%.o) \
           $(LIB_CXX:%.cpp=$(BUILD)/obj/%.o)
LIB_A   := $(BUILD)/lib/libflow.a
# The CPU device's loops: optimised for vectorisation (-O3), told which
# loops are free of dependencies between iterations (the `omp simd` pragmas;
# no OpenMP runtime), and free to compute both sides of a select such as a
# guarded division (-fno-trapping-math: floating-point exceptions are not
# observed).  None of these changes a value: no fast math, no contraction.
CPU_LOOP_CFLAGS := -O3 -fopenmp-simd -fno-trapping-math -fno-math-errno
$(patsubst %.c,$(BUILD)/obj/%.o,$(wildcard libflow/device/cpu/*.c)): ALL_CFLAGS += $(CPU_LOOP_CFLAGS)
# the real file libflow.so.X.Y.Z, the soname link to it, the link-time name
LIB_SO_REAL := $(BUILD)/lib/libflow.so.$(VERSION)
LIB_SO_LINK := $(BUILD)/lib/$(SONAME)
LIB_SO  := $(BUILD)/lib/libflow.so

TOOLS      := flow-compute flow-track flow-tool flow-synth
TOOL_BINS  := $(foreach t,$(TOOLS),$(if $(wildcard $(t)/*.c),$(BUILD)/bin/$(t)))
TOOL_SHARED_C := $(wildcard tools-common/*.c)

# The Python package: the extension (python/src) and the package's files,
# laid out in $(BUILD)/python as they are installed.
PY_DIR  := $(BUILD)/python/flowplatform
PY_OBJ  := $(patsubst %.c,$(BUILD)/obj/%.o,$(wildcard python/src/*.c))
PY_SO   := $(PY_DIR)/_flowplatform$(PY_EXT)
# the .py files, the type stubs and py.typed (the package is typed)
PY_PKG  := $(patsubst python/flowplatform/%,$(PY_DIR)/%,\
             $(wildcard python/flowplatform/*.py python/flowplatform/*.pyi) python/flowplatform/py.typed)

# flow-studio: Python over the module, run from its sources (flow-studio/)
# by a launcher that names them and the module; installed under
# share/flow-studio with scripts/seq-scan.sh, which finds its sequences.
STUDIO_BIN    := $(if $(filter 1,$(PYMODULE)),$(BUILD)/bin/flow-studio)
STUDIO_PY     := $(wildcard flow-studio/flowstudio/*.py)
STUDIO_STATIC := $(wildcard flow-studio/static/*)
STUDIO_SHARE  := $(PREFIX)/share/flow-studio
# the launcher's interpreter: the module's, by its full path
PYTHON_PATH    = $(shell command -v $(PYTHON))

UNIT_SRC   := $(wildcard tests/unit/test_*.c)
GPU_SRC    := $(wildcard tests/gpu/test_*.c)
BENCH_SRC  := $(wildcard tests/bench/bench_*.c)
TEST_BINS  := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%) $(GPU_SRC:tests/gpu/%.c=$(BUILD)/tests/gpu_%)
BENCH_BINS := $(BENCH_SRC:tests/bench/%.c=$(BUILD)/tests/%)

.PHONY: all lib tools man python studio tests test test-unit test-gpu bench install uninstall help clean config FORCE \
        fuzz fuzz-smoke fuzz-build fuzz-bins
# A failed recipe must not leave a half-made target that looks up to date.
.DELETE_ON_ERROR:
all: config lib tools man $(if $(filter 1,$(PYMODULE)),python studio)

config:
	@echo "flow-platform $(VERSION): backends [$(BUILT_BACKENDS)]$(if $(filter 1,$(CUDA)), (nvcc: $(NVCC)),, no nvcc: CPU-only build) OpenCV=$(OPENCV) libpng=$(PNG) libjpeg=$(JPEG) Python=$(if $(filter 1,$(PYMODULE)),$(PYTHON),no)"

lib: $(LIB_A) $(LIB_SO_REAL) $(LIB_SO_LINK) $(LIB_SO) $(BUILD)/lib/pkgconfig/libflow.pc
tools: $(TOOL_BINS)

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	@$(call step,CC,$<)
	$(Q)$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/obj/%.o: %.cpp
	@mkdir -p $(dir $@)
	@$(call step,CXX,$<)
	$(Q)$(CXX) $(CPPFLAGS) $(CPPFLAGS_OPENCV) $(ALL_CXXFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/obj/%.o: %.cu
	@mkdir -p $(dir $@)
	@$(call step,NVCC,$<)
	$(Q)$(NVCC) -std=c++20 $(CPPFLAGS) $(NVCCFLAGS) $(CUDA_ARCH) -Xcompiler -fPIC,-Wall -MMD -MP -c $< -o $@

$(LIB_A): $(LIB_OBJ)
	@mkdir -p $(dir $@)
	@$(call step,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

$(LIB_SO_REAL): $(LIB_OBJ)
	@mkdir -p $(dir $@)
	@$(call step,LD,$@)
	$(Q)$(CC) -shared -Wl,-soname,$(SONAME) -o $@ $^ $(LDLIBS)

# Relative links, remade only when their target is newer (make's timestamp
# of a link is its target's, so a second `make` leaves them alone).
$(LIB_SO_LINK): $(LIB_SO_REAL)
	$(Q)ln -sfn $(notdir $<) $@
$(LIB_SO): $(LIB_SO_LINK)
	$(Q)ln -sfn $(notdir $<) $@

# make splits words at spaces, and so does pkg-config in the paths of a .pc.
ifneq ($(words $(PREFIX)),1)
  $(error PREFIX '$(PREFIX)' must be one path without spaces)
endif
FORCE:

# The .pc names PREFIX and the link flags: it is written out on every run
# and replaces the old one only when they changed (a stamp file per PREFIX
# would be an intermediate under .SECONDARY, never remade).
$(BUILD)/lib/pkgconfig/libflow.pc: scripts/libflow.pc.in Makefile FORCE
	@mkdir -p $(dir $@)
	@sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(VERSION)|' -e 's|@LIBS@|$(LDLIBS)|' $< > $@.new
	@if cmp -s $@.new $@; then rm -f $@.new; else mv -f $@.new $@ && echo "wrote $@ (prefix $(PREFIX))"; fi

# A tool is every .c file of its directory plus the shared tool code.  (The
# object list is a function so that its '%' is not taken for the stem.)
tool_objs = $(patsubst %.c,$(BUILD)/obj/%.o,$(wildcard $(1)/*.c) $(TOOL_SHARED_C))
# Keep every object: make would delete tool and test objects as intermediates.
.SECONDARY:
.SECONDEXPANSION:
$(BUILD)/bin/%: $$(call tool_objs,$$*) $(LIB_A)
	@mkdir -p $(dir $@)
	@$(call step,LD,$@)
	$(Q)$(CC) -o $@ $^ $(LDLIBS)

$(BUILD)/tests/test_%: $(BUILD)/obj/tests/unit/test_%.o $(BUILD)/obj/tests/common/harness.o $(LIB_A)
	@mkdir -p $(dir $@)
	@$(call step,LD,$@)
	$(Q)$(CC) -o $@ $^ $(LDLIBS)

# The progress line's text is tools' code, not the library's.
$(BUILD)/tests/test_progress: $(BUILD)/obj/tools-common/progress.o

$(BUILD)/tests/gpu_test_%: $(BUILD)/obj/tests/gpu/test_%.o $(BUILD)/obj/tests/common/harness.o $(LIB_A)
	@mkdir -p $(dir $@)
	@$(call step,LD,$@)
	$(Q)$(CC) -o $@ $^ $(LDLIBS)

# A benchmark's objects, then the library: a benchmark's own further objects
# (bench_methods' below) come after the library in $^.
$(BUILD)/tests/bench_%: $(BUILD)/obj/tests/bench/bench_%.o $(BUILD)/obj/tests/common/harness.o $(LIB_A)
	@mkdir -p $(dir $@)
	@$(call step,LD,$@)
	$(Q)$(CC) -o $@ $(filter %.o,$^) $(LIB_A) $(LDLIBS)

# bench_methods' tables besides the per-method one, and what they share.
$(BUILD)/tests/bench_methods: $(patsubst %.c,$(BUILD)/obj/%.o,$(wildcard tests/bench/methods/*.c))

# ---- man pages and bash completion -----------------------------------------------
# Each page is made from its tool's --help and --version (scripts/man-page.sh),
# so that it says what the tool it is installed with does.  One completion
# file serves every tool; it asks the tool's --help at completion time.
MAN_PAGES      := $(TOOL_BINS:$(BUILD)/bin/%=$(BUILD)/man/man1/%.1) \
                  $(STUDIO_BIN:$(BUILD)/bin/%=$(BUILD)/man/man1/%.1)
# the tools the completion serves
COMPLETED      := $(TOOLS) $(if $(STUDIO_BIN),flow-studio)
MAN_DIR        := $(PREFIX)/share/man/man1
COMPLETION_DIR := $(PREFIX)/share/bash-completion/completions
man: $(MAN_PAGES)

$(BUILD)/man/man1/%.1: $(BUILD)/bin/% scripts/man-page.sh scripts/man-page.awk
	@mkdir -p $(dir $@)
	@$(call step,GEN,$@)
	$(Q)$(MAN_ENV) sh scripts/man-page.sh $< $(filter-out $*,$(TOOLS)) $(wildcard docs/$*.md) docs/FORMATS.md >$@
# flow-studio's --help is in its sources; it loads the module
$(BUILD)/man/man1/flow-studio.1: $(STUDIO_PY)
$(BUILD)/man/man1/flow-studio.1: MAN_ENV = $(SAN_PRELOAD)

# ---- the Python module ------------------------------------------------------
# numpy's headers: asked of numpy once, when an extension object is compiled.
PY_NUMPY_INCLUDE = $(eval PY_NUMPY_INCLUDE := $$(shell $(PYTHON) -c 'import numpy; print(numpy.get_include())'))$(PY_NUMPY_INCLUDE)
$(PY_OBJ): CPPFLAGS += -isystem $(PY_INCLUDE) -isystem $(PY_NUMPY_INCLUDE)
# the module exports its init function alone (PyMODINIT_FUNC is visible)
$(PY_OBJ): ALL_CFLAGS += -fvisibility=hidden

# libflow linked in statically, its symbols kept private to the module: no
# library path to set, and no clash with a libflow.so another module loads.
$(PY_SO): $(PY_OBJ) $(LIB_A)
	@mkdir -p $(dir $@)
	@$(call step,LD,$@)
	$(Q)$(CC) -shared -o $@ $(PY_OBJ) $(LIB_A) -Wl,--exclude-libs,ALL $(LDLIBS)

$(PY_DIR)/%: python/flowplatform/%
	@mkdir -p $(dir $@)
	$(Q)cp $< $@

ifeq ($(PYMODULE),1)
python: $(PY_SO) $(PY_PKG)
else
python:
	@echo "make python: the module is not built$(if $(filter-out undefined file,$(origin PYMODULE)), (PYMODULE=$(PYMODULE)),$(if $(filter 1,$(SANITIZE)), under SANITIZE=1 (PYMODULE=1 asks for it)))" >&2; \
	  sh scripts/find-python $(PY_GIVEN) >/dev/null; exit 1
endif

# ---- flow-studio --------------------------------------------------------------
# studio_launcher STUDIO_DIR MODULE_DIR: flow-studio/flow-studio.in filled in.
studio_launcher = sed -e 's|@PYTHON@|$(PYTHON_PATH)|' -e 's|@STUDIO_DIR@|$(1)|' \
                      -e 's|@MODULE_DIR@|$(2)|' flow-studio/flow-studio.in
$(BUILD)/bin/flow-studio: flow-studio/flow-studio.in $(PY_SO) $(PY_PKG)
	@mkdir -p $(dir $@)
	@$(call step,GEN,$@)
	$(Q)$(call studio_launcher,$(abspath flow-studio),$(abspath $(BUILD)/python)) >$@.tmp \
	    && chmod 755 $@.tmp && mv -f $@.tmp $@

ifeq ($(PYMODULE),1)
studio: $(STUDIO_BIN)
else
studio:
	@echo "make studio: flow-studio needs the Python module (make python says why it is not built)" >&2; exit 1
endif

tests: all $(TEST_BINS) $(BENCH_BINS)

# Unit tests on the CPU backend, then the CLI tests (the fuzz smoke run among
# them, built first where clang has libFuzzer) and the Python module's tests;
# one total line at the end.  The configuration goes to the tests in
# the environment, so that a make they run (tests/cli/install.sh) builds
# what is tested, not the configuration it would detect.
TEST_ENV = BUILD=$(BUILD) SANITIZE=$(SANITIZE) CUDA=$(CUDA) OPENCV=$(OPENCV) PYTHON=$(PYTHON) \
           PYMODULE=$(PYMODULE)
test: tests
	@if tests/fuzz/have-libfuzzer.sh $(FUZZ_CC); then \
	    $(MAKE) --no-print-directory fuzz-build || echo "make: the fuzz build failed"; \
	else \
	    echo "make: $(FUZZ_CC) with libFuzzer not found: no fuzz build (scripts/setup.sh installs clang)"; \
	fi
	@FLOW_DEVICE=cpu $(TEST_ENV) FUZZ_BUILD=$(FUZZ_BUILD) FUZZ_CC=$(FUZZ_CC) FUZZ_RUNS=$(FUZZ_RUNS) \
	    scripts/run-tests.sh cpu

# The unit tests alone, on the CPU backend (CI runs them under SANITIZE=1).
test-unit: $(TEST_BINS)
	@FLOW_DEVICE=cpu $(TEST_ENV) scripts/run-tests.sh cpu unit

# The same unit tests on CUDA, plus the agreement tests (tests/gpu/).
test-gpu: tests
	@FLOW_DEVICE=cuda $(TEST_ENV) scripts/run-tests.sh cuda

bench: tests
	@for b in $(BENCH_BINS); do $$b || exit 1; done

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/include/flow
	install -m 755 $(TOOL_BINS) $(DESTDIR)$(PREFIX)/bin/
	install -m 644 $(LIB_A) $(DESTDIR)$(PREFIX)/lib/
	install -m 755 $(LIB_SO_REAL) $(DESTDIR)$(PREFIX)/lib/
	ln -sfn $(notdir $(LIB_SO_REAL)) $(DESTDIR)$(PREFIX)/lib/$(SONAME)
	ln -sfn $(SONAME) $(DESTDIR)$(PREFIX)/lib/libflow.so
	install -m 644 libflow/include/flow/*.h $(DESTDIR)$(PREFIX)/include/flow/
	install -m 644 $(BUILD)/lib/pkgconfig/libflow.pc $(DESTDIR)$(PREFIX)/lib/pkgconfig/
	install -d $(DESTDIR)$(MAN_DIR) $(DESTDIR)$(COMPLETION_DIR)
	install -m 644 $(MAN_PAGES) $(DESTDIR)$(MAN_DIR)/
	install -m 644 scripts/flow-completion.bash $(DESTDIR)$(COMPLETION_DIR)/$(firstword $(TOOLS))
	for t in $(wordlist 2,$(words $(COMPLETED)),$(COMPLETED)); do \
	    ln -sfn $(firstword $(TOOLS)) $(DESTDIR)$(COMPLETION_DIR)/$$t || exit 1; done
ifeq ($(PYMODULE),1)
	install -d $(DESTDIR)$(PYTHON_SITE)/flowplatform
	install -m 644 $(PY_PKG) $(DESTDIR)$(PYTHON_SITE)/flowplatform/
	install -m 755 $(PY_SO) $(DESTDIR)$(PYTHON_SITE)/flowplatform/
	install -d $(DESTDIR)$(STUDIO_SHARE)/flowstudio $(DESTDIR)$(STUDIO_SHARE)/static
	install -m 644 $(STUDIO_PY) $(DESTDIR)$(STUDIO_SHARE)/flowstudio/
	install -m 644 $(STUDIO_STATIC) $(DESTDIR)$(STUDIO_SHARE)/static/
	install -m 644 scripts/seq-scan.sh scripts/flow-exts.sh $(DESTDIR)$(STUDIO_SHARE)/
	$(call studio_launcher,$(STUDIO_SHARE),$(PYTHON_SITE)) >$(DESTDIR)$(PREFIX)/bin/flow-studio
	chmod 755 $(DESTDIR)$(PREFIX)/bin/flow-studio
endif

# Removes what install put under DESTDIR/PREFIX (the empty directories of the
# project's own: include/flow and the Python package).
uninstall:
	rm -f $(TOOLS:%=$(DESTDIR)$(PREFIX)/bin/%) $(DESTDIR)$(PREFIX)/bin/flow-studio \
	      $(DESTDIR)$(PREFIX)/lib/libflow.a \
	      $(DESTDIR)$(PREFIX)/lib/$(notdir $(LIB_SO_REAL)) $(DESTDIR)$(PREFIX)/lib/$(SONAME) \
	      $(DESTDIR)$(PREFIX)/lib/libflow.so $(DESTDIR)$(PREFIX)/lib/pkgconfig/libflow.pc \
	      $(patsubst libflow/include/flow/%,$(DESTDIR)$(PREFIX)/include/flow/%,$(wildcard libflow/include/flow/*.h)) \
	      $(TOOLS:%=$(DESTDIR)$(MAN_DIR)/%.1) $(TOOLS:%=$(DESTDIR)$(COMPLETION_DIR)/%) \
	      $(DESTDIR)$(MAN_DIR)/flow-studio.1 $(DESTDIR)$(COMPLETION_DIR)/flow-studio
	rm -rf $(DESTDIR)$(PYTHON_SITE)/flowplatform $(DESTDIR)$(STUDIO_SHARE)
	-rmdir $(DESTDIR)$(PREFIX)/include/flow 2>/dev/null

# The goals and options: the header comments of this file and of the pipeline's.
help:
	@sed -n '3,/^$$/{/^$$/d;s/^# \{0,1\}//;p}' Makefile
	@sed -n '4,/^# The real rules/{/^# The real rules/d;s/^# \{0,1\}//;p}' scripts/pipeline.mk

clean:
	rm -rf $(BUILD)

# ---- fuzzing (tests/fuzz/, docs/FUZZING.md) ---------------------------------------
# One libFuzzer harness per file reader, linked with a libflow of its own:
# $(FUZZ_BUILD), compiled by $(FUZZ_CC) with AddressSanitizer,
# UndefinedBehaviorSanitizer and libFuzzer's coverage, CPU only and without
# OpenCV (PNG through libpng, PGM/PPM through pnm.c: the project's own
# readers).  Seeds come from that build's tools (tests/fuzz/make-corpus.sh);
# tests/fuzz/regress/ holds inputs that once failed, run every time.
FUZZ_TARGETS := $(patsubst tests/fuzz/fuzz_%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_HELPERS := $(filter-out tests/fuzz/fuzz_%.c,$(wildcard tests/fuzz/*.c))
# What one input may cost: a single allocation, all memory, seconds; and the
# largest input made.
FUZZ_LIMITS  := -malloc_limit_mb=256 -rss_limit_mb=2048 -timeout=20 -max_len=8192

# (A make without -j, such as CI's `make test`, builds it on every CPU.)
fuzz-build:
	@$(MAKE) --no-print-directory $(if $(filter -j%,$(MAKEFLAGS)),,-j$(shell nproc 2>/dev/null || echo 2)) \
	    BUILD=$(FUZZ_BUILD) CC=$(FUZZ_CC) CUDA=0 OPENCV=0 SANITIZE=1 \
	    CFLAGS='-O1 -g -fsanitize=fuzzer-no-link' fuzz-bins

# Inside the fuzz build (fuzz-build sets BUILD and the flags): the harnesses
# and the seeds.
fuzz-bins: $(FUZZ_TARGETS:%=$(BUILD)/fuzz/fuzz_%) $(BUILD)/fuzz/seeds/done

$(BUILD)/fuzz/fuzz_%: $(BUILD)/obj/tests/fuzz/fuzz_%.o $(FUZZ_HELPERS:%.c=$(BUILD)/obj/%.o) $(LIB_A)
	@mkdir -p $(dir $@)
	@$(call step,LD,$@)
	$(Q)$(CC) -fsanitize=fuzzer -o $@ $^ $(LDLIBS)

$(BUILD)/fuzz/seeds/done: tests/fuzz/make-corpus.sh $(BUILD)/bin/flow-synth $(BUILD)/bin/flow-compute
	rm -rf $(dir $@) && mkdir -p $(dir $@)
	tests/fuzz/make-corpus.sh $(BUILD)/bin $(dir $@)
	touch $@

# Each target for FUZZ_TIME seconds, its corpus kept in $(FUZZ_BUILD)/fuzz/corpus/
# from one run to the next, its log in $(FUZZ_BUILD)/fuzz/fuzz_NAME.log; an input
# that breaks a property lands in $(FUZZ_BUILD)/fuzz/artifacts/.
fuzz: fuzz-build
	@for t in $(FUZZ_TARGETS); do \
	    log=$(FUZZ_BUILD)/fuzz/fuzz_$$t.log; \
	    mkdir -p $(FUZZ_BUILD)/fuzz/corpus/$$t $(FUZZ_BUILD)/fuzz/artifacts; \
	    echo "== fuzz_$$t: $(FUZZ_TIME) s (log: $$log)"; \
	    if ! $(FUZZ_BUILD)/fuzz/fuzz_$$t $(FUZZ_LIMITS) -max_total_time=$(FUZZ_TIME) \
	            -print_final_stats=1 -artifact_prefix=$(FUZZ_BUILD)/fuzz/artifacts/$$t- \
	            $(FUZZ_BUILD)/fuzz/corpus/$$t $(FUZZ_BUILD)/fuzz/seeds/$$t \
	            tests/fuzz/regress/$$t >$$log 2>&1; then \
	        tail -n 30 $$log; echo "fuzz_$$t: FAILED (the input is in $(FUZZ_BUILD)/fuzz/artifacts/)"; \
	        exit 1; \
	    fi; \
	    sed -n 's/^stat::number_of_executed_units: */  executions: /p; s/^#[0-9]*[[:space:]]*DONE *\(cov.*corp: [^ ]*\).*/  \1/p' $$log; \
	done

# The smoke run alone (make test runs it too): tests/cli/fuzz_smoke.sh.
fuzz-smoke: fuzz-build
	@BUILD=$(BUILD) FUZZ_BUILD=$(FUZZ_BUILD) FUZZ_CC=$(FUZZ_CC) FUZZ_RUNS=$(FUZZ_RUNS) \
	    sh tests/cli/fuzz_smoke.sh

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)

# The make pipeline: demo, sequences, flows, stats (docs/PIPELINE.md).
include scripts/pipeline.mk
