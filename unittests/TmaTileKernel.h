//===- TmaTileKernel.h - a hand-written TMA kernel for the unit tests -----===//
//
// Shared by the runtime's GPU launch tests and the C header's tests.
// TMA (sm_90): thread 0 loads one 8x32 f32 box at (col, row) with
// cp.async.bulk.tensor through a tensor_map parameter placed between other
// parameters; then out[i] = the box's shared memory image, i.e. with the
// 128-byte swizzle applied.
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_UNITTESTS_TMATILEKERNEL_H
#define FUSER_UNITTESTS_TMATILEKERNEL_H

inline const char *kTmaTilePtx = R"ptx(.version 8.0
.target sm_90
.address_size 64

.visible .entry tma_tile(
  .param .u32 tma_tile_col,
  .param .align 64 .b8 tma_tile_map[128],
  .param .u64 tma_tile_out,
  .param .u32 tma_tile_row)
{
  .reg .pred %p<3>;
  .reg .b32 %r<10>;
  .reg .b64 %rd<8>;
  .reg .f32 %f<2>;
  .shared .align 1024 .b8 tile[1024];
  .shared .align 8 .b64 bar;

  mov.u32 %r1, %tid.x;
  mov.u32 %r2, tile;
  mov.u32 %r3, bar;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra SYNC;
  mbarrier.init.shared::cta.b64 [%r3], 1;
  fence.mbarrier_init.release.cluster;
SYNC:
  bar.sync 0;
  @%p1 bra WAIT;
  ld.param.u32 %r4, [tma_tile_col];
  ld.param.u32 %r5, [tma_tile_row];
  mov.b64 %rd1, tma_tile_map;
  cvta.param.u64 %rd2, %rd1;
  mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r3], 1024;
  cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r2], [%rd2, {%r4, %r5}], [%r3];
WAIT:
  mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r3], 0;
  @!%p2 bra WAIT;
  shl.b32 %r6, %r1, 2;
  add.u32 %r7, %r2, %r6;
  ld.shared.f32 %f1, [%r7];
  ld.param.u64 %rd3, [tma_tile_out];
  cvta.to.global.u64 %rd3, %rd3;
  mul.wide.u32 %rd4, %r1, 4;
  add.u64 %rd5, %rd3, %rd4;
  st.global.f32 [%rd5], %f1;
  ret;
}
)ptx";

#endif // FUSER_UNITTESTS_TMATILEKERNEL_H
