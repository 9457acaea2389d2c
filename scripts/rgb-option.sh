#!/bin/sh
# rgb-option.sh FRAME PARAMS -- prints flow-compute's --rgb when FRAME, a PNG
# (as every frame of sequences/dst is), is in colour and the parameter file
# PARAMS does not choose the input itself (a "color" line); else nothing.
# make flows (RGB=1) calls it on a sequence's first frame, so that colour
# sequences are computed on their R, G, B channels.  The colour type byte of
# the PNG header says it: 2 (RGB), 3 (palette: the library reads it as RGB)
# and 6 (RGB with alpha) are colour, 0 and 4 (gray, with alpha) are not.
set -eu
[ $# -eq 2 ] || { echo "usage: rgb-option.sh FRAME PARAMS" >&2; exit 1; }
frame=$1 params=$2
if grep -Eq '^[[:space:]]*color[[:space:]]*,' "$params"; then
    exit 0
fi
case $(od -An -tu1 -j25 -N1 "$frame" | tr -d ' ') in
    2 | 3 | 6) echo --rgb ;;
esac
