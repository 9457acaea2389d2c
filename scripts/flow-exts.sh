#!/bin/sh
# flow-exts.sh -- prints the extensions of the flow file formats as the
# table writes them ("F"), one per line, from the one table of formats (libflow/io/flowfile.c), so
# that the scripts that recognise flow files by name (seq-scan.sh,
# seq-rules.sh) never list them by hand.  The table comes from:
#   FLOW_FORMATS  the extensions separated by spaces, when the caller has
#                 them already (flow-studio passes flowplatform.flow_formats())
#   FLOW_TOOL     `FLOW_TOOL formats` (the pipeline passes its flow-tool)
#   flow-tool     on PATH, else the build's (BUILD, default build) beside
#                 this script
# Exits 2, saying so, when none of them is there.
set -eu
if [ -n "${FLOW_FORMATS:-}" ]; then
    printf '%s\n' $FLOW_FORMATS
    exit 0
fi
tool=${FLOW_TOOL:-}
if [ -z "$tool" ]; then
    tool=$(command -v flow-tool 2>/dev/null || true)
fi
if [ -z "$tool" ]; then
    here=$(dirname "$0")
    case ${BUILD:-build} in
        /*) tool=${BUILD:-build}/bin/flow-tool ;;
        *) tool=$here/../${BUILD:-build}/bin/flow-tool ;;
    esac
fi
if [ ! -x "$tool" ]; then
    echo "$(basename "$0"): the flow formats come from 'flow-tool formats': no flow-tool" \
        "found (set FLOW_TOOL, put flow-tool on PATH or build it)" >&2
    exit 2
fi
table=$("$tool" formats) || exit 2
printf '%s\n' "$table" | cut -f1
