#!/bin/sh
# have-libfuzzer.sh CC -- exit status 0 when the compiler CC links a
# libFuzzer harness with AddressSanitizer and UndefinedBehaviorSanitizer
# (Debian: the clang package and the runtime libraries it recommends,
# libclang-rt-N-dev), 1 otherwise.  The Makefile and tests/cli/fuzz_smoke.sh
# ask it whether to build and run the fuzz targets.
cc=${1:-clang}
command -v "$cc" >/dev/null 2>&1 || exit 1
out=$(mktemp "${TMPDIR:-/tmp}/have-libfuzzer.XXXXXX") || exit 1
printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { return 0; }\n' |
    "$cc" -fsanitize=fuzzer,address,undefined -x c - -o "$out" >/dev/null 2>&1
status=$?
rm -f "$out"
exit $status
