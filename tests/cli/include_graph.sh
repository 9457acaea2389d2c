#!/bin/sh
# include_graph.sh -- scripts/check-includes on libflow (no include cycle,
# each layer including only the layers below it), and on small trees made
# here that break each rule, which it must refuse naming the file.
# Prints "N passed, N failed".
. "$(dirname "$0")/../common/harness.sh" # T, expect, harness_report
CHECK="$(cd "$(dirname "$0")/../.." && pwd)/scripts/check-includes"
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"

expect "libflow: no cycle, no upward include" 0 out "no cycle" "$CHECK" "$ROOT"

# a tree with one upward include: base/ reaching the umbrella header (api)
mkdir -p "$T/up/libflow/base" "$T/up/libflow/include/flow"
printf '#include "flow/status.h"\n' >"$T/up/libflow/include/flow/flow.h"
printf '/* */\n' >"$T/up/libflow/include/flow/status.h"
printf '#include "flow/flow.h"\n' >"$T/up/libflow/base/status.c"
expect "an upward include is refused" 1 out "base/status.c:1: base includes include/flow/flow.h \\(api\\)" "$CHECK" "$T/up"

# a tree with a cycle inside one layer: core/a.h -> core/b.h -> core/a.h
mkdir -p "$T/cycle/libflow/core"
printf '#include "core/b.h"\n' >"$T/cycle/libflow/core/a.h"
printf '#include "core/a.h"\n' >"$T/cycle/libflow/core/b.h"
expect "a cycle is refused" 1 out "include cycle: core/a.h -> core/b.h -> core/a.h" "$CHECK" "$T/cycle"

# a folder of no layer
mkdir -p "$T/stray/libflow/extra" "$T/stray/libflow/base"
printf '/* */\n' >"$T/stray/libflow/extra/x.h"
printf '#include "extra/x.h"\n' >"$T/stray/libflow/base/y.c"
expect "a file of no layer is named" 1 out "no layer owns" "$CHECK" "$T/stray"

harness_report
