#!/usr/bin/env bash
# Compiles the tensor-core GEMM (MmaGemmKernel) test inputs and W2 variants
# into .artifacts/ next to what scripts/build-gpu-artifacts.sh writes (which
# calls this); can also run alone. Usage: scripts/build-mma-artifacts.sh [tools-dir]
set -euo pipefail
cd "$(dirname "$0")/.."
TOOLS=${1:-build/bin}
OUT=.artifacts
mkdir -p "$OUT"
# Tensor-core GEMMs (MmaGemmKernel): W2 and test/gpu/Inputs/mma/*.mlir as
# mma_<stem>_<precision> for tf32, 3xtf32 and fp64 (fp32-kernel=fp64, the
# default fp32 kernel on sm_90); inputs named *bf16* / *f16*
# get their own precision by default (mma_<stem>). Then W2 tile variants
# (mma_w2v_<precision>_<tile>) for bench.py's "mmav" case.
mma() { # mma <src> <out stem> <precision> [tile-sizes] [tensor-core-kernel] [configure-kernels options]
  local pre="" tiles=${4:-} opts="precision=$3" extra=${6:-}
  [ "$3" = fp64 ] && opts="precision=fp32 fp32-kernel=fp64"
  [ -n "${5:-}" ] && opts="$opts tensor-core-kernel=$5"
  [ -n "$tiles" ] && extra="$extra tile-sizes=$tiles"
  [ -n "$extra" ] && pre="--pass-pipeline=builtin.module(func.func(fuser-fuse-matmul),fuser-configure-kernels{$opts $extra})"
  if [ -n "$pre" ]; then
    "$TOOLS/fuser-opt" "$1" "$pre" | "$TOOLS/fuser-opt" --fuser-gpu-pipeline="$opts" -o "$OUT/$2.gpu.mlir"
  else
    "$TOOLS/fuser-opt" "$1" --fuser-gpu-pipeline="$opts" -o "$OUT/$2.gpu.mlir"
  fi
  "$TOOLS/fuser-translate" "$OUT/$2.gpu.mlir" --fuser-to-ptx -o "$OUT/$2.ptx"
  "$TOOLS/fuser-translate" "$OUT/$2.gpu.mlir" --fuser-to-manifest -o "$OUT/$2.manifest.json"
  rm "$OUT/$2.gpu.mlir"
  echo "[artifacts] $2"
}
for p in tf32 3xtf32 fp64; do
  mma examples/w2_linear_scale_leaky.mlir "mma_w2_$p" $p
done
mma test/gpu/Inputs/matmul_w2.mlir mma_matmul_w2_fp64 fp64
for src in test/gpu/Inputs/mma/*.mlir; do
  stem=$(basename "$src" .mlir)
  case $stem in
    *bf16*|*f16*) mma "$src" "mma_$stem" fp32 ;;
    *) for p in tf32 3xtf32 fp64; do mma "$src" "mma_${stem}_$p" $p; done ;;
  esac
done
# The other kernel on W2: mma.sync for bf16 (wgmma is its default on
# sm_90a), wgmma for tf32 (opt-in: it truncates operands to tf32).
mma test/gpu/Inputs/mma/w2_bf16.mlir mma_w2_bf16_mmasync bf16 "" mma
mma examples/w2_linear_scale_leaky.mlir mma_w2_tf32_wgmma tf32 "" wgmma
mma test/gpu/Inputs/mma/nt_odd.mlir mma_nt_odd_tf32_wgmma tf32 "" wgmma
# wgmma_tma (TMA copies, warp-specialized; bf16's default when K is static):
# tf32 on request, and static-K odd shapes of both types.
mma examples/w2_linear_scale_leaky.mlir mma_w2_tf32_tma tf32 "" wgmma-tma
mma test/gpu/Inputs/mma/nt_k200.mlir mma_nt_k200_tf32_tma tf32 "" wgmma-tma
for v in wgmma-tma:tf32:128,256,32,16,256,3 wgmma-tma:tf32:128,128,32,16,128,6 \
         wgmma-tma:bf16:128,256,64,16,256,3 wgmma-tma:bf16:128,128,64,16,128,6 \
         wgmma:tf32:128,128,32,16,128,4 wgmma:tf32:256,128,32,16,128,4 wgmma:tf32:128,256,32,16,256,4 \
         wgmma:bf16:128,128,64,16,128,4 wgmma:bf16:256,128,64,16,128,4 wgmma:bf16:256,128,64,16,128,3 \
         wgmma:bf16:128,256,64,16,256,4; do
  k=${v%%:*} v=${v#*:}; p=${v%%:*} t=${v#*:}
  src=examples/w2_linear_scale_leaky.mlir
  [ $p = bf16 ] && src=test/gpu/Inputs/mma/w2_bf16.mlir
  mma "$src" "mma_w2v_${k}_${p}_${t//,/x}" $p "$t" $k
done
# The fp32 default on sm_90a, 3xtf32 on wgmma_tma (test/gpu/test_split_tf32.py):
# bare GEMMs at K = 200, 1000, 8192 (8193: no TMA, fp64 tensor cores), and
# the control without promotion, which the accuracy test must catch.
for src in test/gpu/Inputs/split/*.mlir; do
  mma "$src" "split_$(basename "$src" .mlir)" fp32
done
mma test/gpu/Inputs/split/linear_k8192.mlir split_linear_k8192_nopromote fp32 "" "" promote-every=0
# tf32_2xbf16 (test_split_tf32.py, test_nmajor_b.py, bench.py's W2/W3 rows): the
# bare GEMMs, W2, W3, the N-major products.
for k in 200 1000 8192; do
  mma test/gpu/Inputs/split/linear_k$k.mlir "split_2xbf16_linear_k$k" tf32_2xbf16
done
mma examples/w2_linear_scale_leaky.mlir mma_w2_tf32_2xbf16 tf32_2xbf16
"$TOOLS/fuser-opt" test/gpu/Inputs/matmul_nmajor_b.mlir --fuser-gpu-pipeline="fp32-kernel=tf32_2xbf16" -o "$OUT/matmul_nmajor_b_2xbf16.gpu.mlir"
"$TOOLS/fuser-translate" "$OUT/matmul_nmajor_b_2xbf16.gpu.mlir" --fuser-to-ptx -o "$OUT/matmul_nmajor_b_2xbf16.ptx"
"$TOOLS/fuser-translate" "$OUT/matmul_nmajor_b_2xbf16.gpu.mlir" --fuser-to-manifest -o "$OUT/matmul_nmajor_b_2xbf16.manifest.json"
rm "$OUT/matmul_nmajor_b_2xbf16.gpu.mlir"
echo "[artifacts] matmul_nmajor_b_2xbf16"
"$TOOLS/fuser-opt" examples/w3_linear_groupnorm.mlir --fuser-gpu-pipeline="fp32-kernel=tf32_2xbf16" -o "$OUT/w3_tf32_2xbf16.gpu.mlir"
"$TOOLS/fuser-translate" "$OUT/w3_tf32_2xbf16.gpu.mlir" --fuser-to-ptx -o "$OUT/w3_tf32_2xbf16.ptx"
"$TOOLS/fuser-translate" "$OUT/w3_tf32_2xbf16.gpu.mlir" --fuser-to-manifest -o "$OUT/w3_tf32_2xbf16.manifest.json"
rm "$OUT/w3_tf32_2xbf16.gpu.mlir"
echo "[artifacts] w3_tf32_2xbf16"
# NaN and Inf through every fp32 GEMM kernel and tf32 (test_edge_cases.py).
for p in 3xtf32 tf32_2xbf16 fp64 tf32; do
  mma test/gpu/Inputs/split/linear_k200.mlir "nan_inf_$p" $p
done
mma test/gpu/Inputs/split/linear_k200.mlir nan_inf_ffma fp32 "" "" fp32-kernel=ffma
mma test/gpu/Inputs/split/linear_k200.mlir nan_inf_mma_3xtf32 3xtf32 "" mma
# ... and every 16-bit one: wgmma_tma (the default), wgmma (cp.async), mma.sync.
for t in bf16 f16; do
  mma test/gpu/Inputs/split/linear_k200_$t.mlir "nan_inf_${t}_wgmma_tma" fp32
  mma test/gpu/Inputs/split/linear_k200_$t.mlir "nan_inf_${t}_wgmma" fp32 "" wgmma
  mma test/gpu/Inputs/split/linear_k200_$t.mlir "nan_inf_${t}_mma" fp32 "" mma
done
# Split K (test/gpu/test_split_k.py): the large-K inputs under the default
# options (the configuration step splits them), in tf32 (the unpromoted
# consumer, 128 x 256 tiles), and a dynamic M with split-k=8 forced (the
# heuristic only splits static shapes).
for src in test/gpu/Inputs/split_k/large_k.mlir test/gpu/Inputs/split_k/odd_bias_tanh.mlir; do
  mma "$src" "split_k_$(basename "$src" .mlir)" fp32
done
mma test/gpu/Inputs/split_k/large_k.mlir split_k_large_k_tf32 tf32
mma test/gpu/Inputs/split_k/tall_tf32.mlir split_k_tall_tf32 tf32  # and bands of M tiles
mma test/gpu/Inputs/split_k/dynamic_m.mlir split_k_dynamic_m fp32 "" "" split-k=8
# The promotion interval (bench/experiments/split_promotion.py): the bare GEMMs, W2
# (bench.py mmav) and W3 (bench.py w3v; its group norm needs the whole
# fusion pipeline, so the interval is set in the configured IR).
for pe in 32 64 128 256; do
  for k in 200 1000 8192; do
    mma test/gpu/Inputs/split/linear_k$k.mlir "split_linear_k${k}_pe$pe" fp32 "" "" promote-every=$pe
  done
  mma examples/w2_linear_scale_leaky.mlir "mma_w2v_3xtf32_pe$pe" fp32 "" "" promote-every=$pe
  "$TOOLS/fuser-opt" examples/w3_linear_groupnorm.mlir --fuser-fusion-pipeline \
    | sed "s/promote_every = [0-9]*/promote_every = $pe/" \
    | "$TOOLS/fuser-opt" --fuser-gpu-pipeline -o "$OUT/w3v_3xtf32_pe$pe.gpu.mlir"
  "$TOOLS/fuser-translate" "$OUT/w3v_3xtf32_pe$pe.gpu.mlir" --fuser-to-ptx -o "$OUT/w3v_3xtf32_pe$pe.ptx"
  "$TOOLS/fuser-translate" "$OUT/w3v_3xtf32_pe$pe.gpu.mlir" --fuser-to-manifest -o "$OUT/w3v_3xtf32_pe$pe.manifest.json"
  rm "$OUT/w3v_3xtf32_pe$pe.gpu.mlir"
  echo "[artifacts] w3v_3xtf32_pe$pe"
done
# GEMM shape classes (bench/suite.py's gemm topic): the bare x * W^T (nn.Linear's
# layout, static sizes) under the default options, as gemm_<class>.
gemm() { # gemm <class> <M> <N> <K> [configure-kernels options]
  local src="$OUT/gemm_$1.mlir" x="tensor<$2x$4xf32>" w="tensor<$3x$4xf32>" y="tensor<$2x$3xf32>"
  printf '%s\n' "func.func @forward(%x: $x, %w: $w) -> $y {" \
    "  %y = fuser.matmul %x, %w transpose_b epilogue_maps [] : $x, $w -> $y {" \
    "  ^bb0(%acc: f32):" "    fuser.yield %acc : f32" "  }" "  return %y : $y" "}" > "$src"
  mma "$src" "gemm_$1" fp32 "" "" "${5:-}"
  rm "$src"
}
gemm square 4096 4096 4096
gemm tall_skinny 32768 1024 1024
gemm small_k 8192 8192 32
gemm large_k 256 256 131072
gemm large_k_nosplit 256 256 131072 split-k=1  # the same without split K
gemm matvec 8192 1 8192
gemm linear_odd 1000 3000 1000
# x @ W with W stored K x N (torch.mm(a, b)), as gemm_<class>.
gemm_nn() { # gemm_nn <class> <M> <N> <K>
  local src="$OUT/gemm_$1.mlir" x="tensor<$2x$4xf32>" w="tensor<$4x$3xf32>" y="tensor<$2x$3xf32>"
  printf '%s\n' "func.func @forward(%x: $x, %w: $w) -> $y {" \
    "  %y = fuser.matmul %x, %w epilogue_maps [] : $x, $w -> $y {" \
    "  ^bb0(%acc: f32):" "    fuser.yield %acc : f32" "  }" "  return %y : $y" "}" > "$src"
  mma "$src" "gemm_$1" fp32
  rm "$src"
}
# At M = 4096 B is copied K-major first (MatmulOperandCopies.cpp's M rule).
gemm_nn square_nn 4096 4096 4096
# K not a multiple of 4 (rows not 16-byte multiples apart): the operands are
# copied with K padded for TMA (KernelBench's unaligned A @ B).
gemm_nn unaligned_nn 8205 5921 2949
gemm unaligned_nt 4096 4096 4095
# torch.bmm (32 x 1024^3): B x M x K times B x K x N, a batched fuser.matmul.
src="$OUT/gemm_bmm.mlir" x="tensor<32x1024x1024xf32>"
printf '%s\n' "func.func @forward(%x: $x, %w: $x) -> $x {" \
  "  %y = fuser.matmul %x, %w epilogue_maps [] : $x, $x -> $x {" \
  "  ^bb0(%acc: f32):" "    fuser.yield %acc : f32" "  }" "  return %y : $x" "}" > "$src"
mma "$src" gemm_bmm fp32
rm "$src"
# 2-block clusters sharing B by TMA multicast, on request (cluster-m=2;
# test/gpu/test_clusters.py, bench.py's w2tf32 / w2bf16 time them beside the
# defaults): tf32, bf16 and 3xtf32 (K-major and N-major B), each beside its
# default build as the control.
mma test/gpu/Inputs/clusters/linear.mlir cluster_linear_tf32 tf32 "" "" cluster-m=2
mma test/gpu/Inputs/clusters/linear.mlir cluster_linear_tf32_nocluster tf32
mma test/gpu/Inputs/clusters/linear.mlir cluster_linear_3xtf32 fp32 "" "" cluster-m=2
mma test/gpu/Inputs/clusters/linear.mlir cluster_linear_3xtf32_nocluster fp32
mma test/gpu/Inputs/clusters/linear_bf16.mlir cluster_linear_bf16 fp32 "" "" cluster-m=2
mma test/gpu/Inputs/clusters/linear_bf16.mlir cluster_linear_bf16_nocluster fp32
mma examples/w2_linear_scale_leaky.mlir mma_w2_tf32_cluster tf32 "" "" cluster-m=2
mma test/gpu/Inputs/mma/w2_bf16.mlir mma_w2_bf16_cluster bf16 "" "" cluster-m=2
mma examples/w2_linear_scale_leaky.mlir mma_w2_3xtf32_cluster fp32 "" "" cluster-m=2
# tf32 and bf16 GEMMs with and without 2-block clusters (bench/experiments/cluster_sweep.py):
# cluster_<precision>_<M>x<N>x<K>_c<1|2>.
for prec in tf32 bf16; do
  ty=f32; [ $prec = bf16 ] && ty=bf16
  for shape in 1024x8192x8192 4096x4096x4096 32768x1024x1024 2048x2048x8192; do
    IFS=x read -r m n k <<< "$shape"
    src="$OUT/cluster_sweep.mlir" x="tensor<${m}x${k}x$ty>" w="tensor<${n}x${k}x$ty>" y="tensor<${m}x${n}x$ty>"
    printf '%s\n' "func.func @forward(%x: $x, %w: $w) -> $y {" \
      "  %y = fuser.matmul %x, %w transpose_b epilogue_maps [] : $x, $w -> $y {" \
      "  ^bb0(%acc: $ty):" "    fuser.yield %acc : $ty" "  }" "  return %y : $y" "}" > "$src"
    for cm in 1 2; do
      mma "$src" "cluster_${prec}_${shape}_c$cm" $prec "" "" cluster-m=$cm
    done
    rm "$src"
  done
done
# The tf32 and bf16 kernels' cost per output tile against cuBLAS
# (bench/experiments/tile_cost.py): x * W^T + b, N = 8192, dynamic M, as
# tile_cost_<precision>_k<K>.
for prec in tf32 bf16; do
  ty=f32; [ $prec = bf16 ] && ty=bf16
  for k in 1024 4096 8192; do
    src="$OUT/tile_cost.mlir" x="tensor<?x${k}x$ty>" w="tensor<8192x${k}x$ty>" y="tensor<?x8192x$ty>" bv="tensor<8192x$ty>"
    printf '%s\n' "func.func @forward(%x: $x, %w: $w, %b: $bv) -> $y {" \
      "  %y = fuser.matmul %x, %w transpose_b epilogue_inputs(%b : $bv) epilogue_maps [affine_map<(m, n) -> (n)>] : $x, $w -> $y {" \
      "  ^bb0(%acc: $ty, %bias: $ty):" "    %s = arith.addf %acc, %bias : $ty" "    fuser.yield %s : $ty" "  }" \
      "  return %y : $y" "}" > "$src"
    mma "$src" "tile_cost_${prec}_k$k" $prec
    rm "$src"
  done
done
# A matmul prologue against its producer computed apart (bench/experiments/prologue_ab.py):
# dX = g * W with g = where(y > 0, dy, 0.1 dy) * 2 (nn.Linear's backward
# through leaky_relu; with one input, y = dy), M = 1024, K = 8192, N-major W,
# at N = 256 ... 8192: prologue<I>_<N> (the default pipeline: the mask in the
# kernel's splitter) and materialized<I>_<N> (the mask a pointwise kernel of
# its own, fused before fuser-fuse-matmul-prologues can see it), I = 1 or 2
# inputs. The default pipeline fuses where the rule allows; the prologue
# variants force it with max-prologue-n=8192.
for inputs in 1 2; do
  for n in 256 512 2048 8192; do
    src="$OUT/prologue_ab.mlir" a="tensor<1024x8192xf32>" w="tensor<8192x${n}xf32>" y="tensor<1024x${n}xf32>"
    ins="%dy, %out : $a, $a" args="%d: f32, %o: f32, %unused: f32" maps="#id, #id, #id"
    [ $inputs = 1 ] && ins="%dy : $a" args="%d: f32, %unused: f32" maps="#id, #id"
    cmp="%o"; [ $inputs = 1 ] && cmp="%d"
    printf '%s\n' "#id = affine_map<(d0, d1) -> (d0, d1)>" \
      "func.func @forward(%dy: $a, %out: $a, %w: $w) -> $y {" \
      "  %zero = arith.constant 0.000000e+00 : f32" \
      "  %e = tensor.empty() : $a" \
      "  %g = linalg.generic {indexing_maps = [$maps], iterator_types = [\"parallel\", \"parallel\"]} ins($ins) outs(%e : $a) {" \
      "  ^bb0($args):" \
      "    %slope = arith.constant 1.000000e-01 : f32" "    %two = arith.constant 2.000000e+00 : f32" \
      "    %p = arith.cmpf ogt, $cmp, %zero : f32" "    %l = arith.mulf %d, %slope : f32" \
      "    %s = arith.select %p, %d, %l : f32" "    %v = arith.mulf %s, %two : f32" "    linalg.yield %v : f32" \
      "  } -> $a" \
      "  %e2 = tensor.empty() : $y" \
      "  %f = linalg.fill ins(%zero : f32) outs(%e2 : $y) -> $y" \
      "  %r = linalg.matmul ins(%g, %w : $a, $w) outs(%f : $y) -> $y" \
      "  return %r : $y" "}" > "$src"
    "$TOOLS/fuser-opt" "$src" --pass-pipeline="builtin.module(func.func(fuser-fuse-matmul,fuser-fuse-matmul-prologues{max-prologue-n=8192}))" \
      | "$TOOLS/fuser-opt" --fuser-gpu-pipeline -o "$OUT/prologue_ab.gpu.mlir"
    "$TOOLS/fuser-translate" "$OUT/prologue_ab.gpu.mlir" --fuser-to-ptx -o "$OUT/prologue${inputs}_$n.ptx"
    "$TOOLS/fuser-translate" "$OUT/prologue_ab.gpu.mlir" --fuser-to-manifest -o "$OUT/prologue${inputs}_$n.manifest.json"
    "$TOOLS/fuser-opt" "$src" --pass-pipeline="builtin.module(func.func(fuser-fuse-matmul,fuser-fuse-pointwise))" \
      | "$TOOLS/fuser-opt" --fuser-gpu-pipeline -o "$OUT/prologue_ab.gpu.mlir"
    "$TOOLS/fuser-translate" "$OUT/prologue_ab.gpu.mlir" --fuser-to-ptx -o "$OUT/materialized${inputs}_$n.ptx"
    "$TOOLS/fuser-translate" "$OUT/prologue_ab.gpu.mlir" --fuser-to-manifest -o "$OUT/materialized${inputs}_$n.manifest.json"
    rm "$src" "$OUT/prologue_ab.gpu.mlir"
    echo "[artifacts] prologue${inputs}_$n materialized${inputs}_$n"
  done
done
