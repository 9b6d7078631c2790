#!/bin/sh
# Compiles the three seed examples (W1 dynamic, W2, W3) for each chip named,
# with no `features` (the PTX ISA follows from the chip), and assembles the
# PTX with ptxas for that chip. Prints "<chip> <example> .version <v>" per
# success; stops at the first failure. Used by test/Pipelines/chips-*.mlir.
# usage: compile-examples-for-chips.sh FUSER_OPT FUSER_TRANSLATE PTXAS SRC OUT CHIP...
set -eu
opt=$1 translate=$2 ptxas=$3 src=$4 out=$5
shift 5
mkdir -p "$out"
for chip in "$@"; do
  for example in w1_leaky_relu_dynamic w2_linear_scale_leaky w3_linear_groupnorm; do
    ptx="$out/$chip.$example.ptx"
    "$opt" "$src/examples/$example.mlir" --fuser-gpu-pipeline="chip=$chip" \
      | "$translate" --fuser-to-ptx -o "$ptx"
    grep -q "^.target $chip\$" "$ptx"
    "$ptxas" -arch="$chip" "$ptx" -o "$ptx.cubin"
    echo "$chip $example $(grep '^.version' "$ptx")"
  done
done
