// RUN: fuser-opt %s -split-input-file --fuser-group-norm-grad-to-gpu -verify-diagnostics | FileCheck %s

#id = affine_map<(d0, d1) -> (d0, d1)>

// W3's backward: groups of 16 of tensor<?x8192xf32>, two threads each (tile
// = [2]), 128 groups per 256-thread block; dy = leaky_relu'(z) * dout from
// two identity-mapped inputs.
// Host code: the prologue inputs' N checked against the input's, three
// outputs, ceil(N * 512 / 128) blocks.
// CHECK-LABEL: func.func @w3
// CHECK-SAME: (%[[X:.+]]: tensor<?x8192xf32>, %[[G:.+]]: tensor<8192xf32>, %[[D:.+]]: tensor<?x8192xf32>, %[[Z:.+]]: tensor<?x8192xf32>)
// CHECK: %[[N:.+]] = tensor.dim %[[X]], %{{.+}}
// CHECK-NOT: cf.assert
// CHECK: %[[DN:.+]] = tensor.dim %[[D]], %{{.+}}
// CHECK: %[[EQ:.+]] = arith.cmpi eq, %[[DN]], %[[N]]
// CHECK: cf.assert %[[EQ]], "fuser.group_norm_grad: prologue input #0 dimension 0 must equal input dimension 0"
// CHECK: cf.assert %{{.+}}, "fuser.group_norm_grad: prologue input #1 dimension 0 must equal input dimension 0"
// CHECK: %[[DX:.+]] = memref.alloc(%[[N]]) {alignment = 64 : i64} : memref<?x8192xf32>
// CHECK: %[[MEAN:.+]] = memref.alloc(%[[N]]) {alignment = 64 : i64} : memref<?x512xf32>
// CHECK: %[[RSTD:.+]] = memref.alloc(%[[N]]) {alignment = 64 : i64} : memref<?x512xf32>
// CHECK: %[[N64:.+]] = arith.index_castui %[[N]] : index to i64
// CHECK: %[[GROUPS:.+]] = arith.muli %[[N]], %c512
// CHECK: %[[GRID:.+]] = arith.ceildivui %[[GROUPS]], %c128
// CHECK: gpu.launch_func @fuser_kernels::@w3_group_norm_grad blocks in (%[[GRID]], %{{.+}}, %{{.+}}) threads in (%c256, %{{.+}}, %{{.+}}) args({{.+}} : !llvm.ptr<1>, {{.+}} : !llvm.ptr<1>, {{.+}} : !llvm.ptr<1>, {{.+}} : !llvm.ptr<1>, {{.+}} : !llvm.ptr<1>, {{.+}} : !llvm.ptr<1>, {{.+}} : !llvm.ptr<1>, %[[N64]] : i64)
// CHECK: %[[R0:.+]] = bufferization.to_tensor %[[DX]] restrict writable
// CHECK: %[[R1:.+]] = bufferization.to_tensor %[[MEAN]] restrict writable
// CHECK: %[[R2:.+]] = bufferization.to_tensor %[[RSTD]] restrict writable
// CHECK: return %[[R0]], %[[R1]], %[[R2]]
// The kernel: (x, gamma, dout, z, dx, mean, rstd, n), no workgroup memory.
// CHECK: gpu.func @w3_group_norm_grad(%[[XP:.+]]: !llvm.ptr<1>, %[[GP:.+]]: !llvm.ptr<1>, %[[DP:.+]]: !llvm.ptr<1>, %[[ZP:.+]]: !llvm.ptr<1>, %[[DXP:.+]]: !llvm.ptr<1>, %[[MP:.+]]: !llvm.ptr<1>, %[[RP:.+]]: !llvm.ptr<1>, %{{.+}}: i64) kernel
// CHECK-SAME: known_block_size = array<i32: 256, 1, 1>
// The shared blocks' spare threads are invalid.
// CHECK: %[[VALID:.+]] = arith.cmpi ult
// CHECK: %[[GI:.+]] = arith.minui
// 1. The statistics, merged by a shuffle of offset 1 (count, mean, M2).
// CHECK: scf.for {{.+}} iter_args({{.+}}) -> (vector<4xf32>, vector<4xf32>)
// CHECK-COUNT-3: gpu.shuffle xor %{{.+}}, %c1_i32{{.*}}, %{{.+}} : f32
// CHECK-NOT: gpu.shuffle
// CHECK: %[[RS:.+]] = math.rsqrt
// The group's first (valid) thread writes mean and rstd at n * G + g.
// CHECK: %[[FIRST:.+]] = arith.cmpi eq
// CHECK: %[[WRITER:.+]] = arith.andi %[[FIRST]], %[[VALID]] : i1
// CHECK: scf.if %[[WRITER]] {
// CHECK: %[[M:.+]] = arith.addf
// CHECK: %[[MA:.+]] = llvm.getelementptr inbounds %[[MP]][%[[GI]]]
// CHECK: llvm.store %[[M]], %[[MA]] {alignment = 4 : i64} : f32
// CHECK: %[[RA:.+]] = llvm.getelementptr inbounds %[[RP]][%[[GI]]]
// CHECK: llvm.store %[[RS]], %[[RA]] {alignment = 4 : i64} : f32
// CHECK: }
// 2. The sums of dx_hat and dx_hat * x_hat: 128-bit loads of x, dout, z
//    and gamma, the prologue per lane, then two shuffles.
// CHECK: scf.for {{.+}} iter_args({{.+}}) -> (vector<4xf32>, vector<4xf32>)
// CHECK: llvm.load {{.+}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK: %[[DA:.+]] = llvm.getelementptr inbounds %[[DP]]
// CHECK: llvm.load %[[DA]] {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK: %[[ZA:.+]] = llvm.getelementptr inbounds %[[ZP]]
// CHECK: llvm.load %[[ZA]] {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK: %[[GA:.+]] = llvm.getelementptr inbounds %[[GP]]
// CHECK: llvm.load %[[GA]] {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK-COUNT-4: arith.cmpf ogt
// CHECK: vector.from_elements
// CHECK: vector.from_elements
// CHECK: scf.yield
// CHECK-COUNT-2: gpu.shuffle xor %{{.+}}, %c1_i32{{.*}}, %{{.+}} : f32
// CHECK-NOT: gpu.shuffle
// CHECK: %[[K:.+]] = arith.constant 1.600000e+01 : f32
// CHECK: arith.divf %{{.+}}, %[[K]]
// CHECK: arith.divf %{{.+}}, %[[K]]
// 3. dx, recomputing the prologue; one 128-bit store.
// CHECK: scf.for
// CHECK-COUNT-4: arith.cmpf ogt
// CHECK: %[[OUT:.+]] = vector.from_elements
// CHECK: %[[OA:.+]] = llvm.getelementptr inbounds %[[DXP]]
// CHECK: llvm.store %[[OUT]], %[[OA]] {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
// CHECK: gpu.return
func.func @w3(%x: tensor<?x8192xf32>, %g: tensor<8192xf32>, %dout: tensor<?x8192xf32>, %z: tensor<?x8192xf32>) -> (tensor<?x8192xf32>, tensor<?x512xf32>, tensor<?x512xf32>) {
  %dx, %mean, %rstd = fuser.group_norm_grad %x, %g groups = 512 eps = 1.0e-05
      prologue_inputs(%dout, %z : tensor<?x8192xf32>, tensor<?x8192xf32>) prologue_maps [#id, #id]
      {config = #fuser.config<strategy = "group_norm_grad", block = [256, 1, 1], vector_width = 4, tile = [2]>}
      : tensor<?x8192xf32>, tensor<8192xf32> -> tensor<?x8192xf32>, tensor<?x512xf32>, tensor<?x512xf32> {
  ^bb0(%d: f32, %zi: f32):
    %zero = arith.constant 0.0 : f32
    %slope = arith.constant 0.01 : f32
    %pos = arith.cmpf ogt, %zi, %zero : f32
    %neg = arith.mulf %d, %slope : f32
    %dy = arith.select %pos, %d, %neg : f32
    fuser.yield %dy : f32
  }
  return %dx, %mean, %rstd : tensor<?x8192xf32>, tensor<?x512xf32>, tensor<?x512xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
#none = affine_map<(d0, d1) -> ()>

// A group of 1024 over 4 warps: (count, mean, M2) and then (s1, s2) through
// workgroup memory of their own, one barrier each; every thread sums the
// warps' values in warp order. A per-channel prologue input is loaded per
// lane, a scalar one is a kernel argument.
// CHECK-LABEL: func.func @multi_warp
// CHECK: gpu.launch_func @fuser_kernels::@multi_warp_group_norm_grad blocks in (%{{.+}}, %{{.+}}, %{{.+}}) threads in (%c128
// CHECK: gpu.func @multi_warp_group_norm_grad(%{{.+}}: !llvm.ptr<1>, %{{.+}}: !llvm.ptr<1>, %{{.+}}: !llvm.ptr<1>, %[[WP:.+]]: !llvm.ptr<1>, %[[S:.+]]: f32, %{{.+}}: !llvm.ptr<1>, %{{.+}}: !llvm.ptr<1>, %{{.+}}: !llvm.ptr<1>, %{{.+}}: i64) workgroup(%[[STATS:.+]] : memref<12xf32, #gpu.address_space<workgroup>>, %[[SUMS:.+]] : memref<8xf32, #gpu.address_space<workgroup>>) kernel
// CHECK-COUNT-15: gpu.shuffle xor %{{.+}}, %{{.+}}, %{{.+}} : f32
// CHECK-NOT: gpu.shuffle
// CHECK: memref.store %{{.+}}, %[[STATS]]
// CHECK: gpu.barrier
// CHECK: memref.load %[[STATS]][%c11]
// CHECK: math.rsqrt
// CHECK: scf.for
// CHECK: %[[WA:.+]] = llvm.getelementptr inbounds %[[WP]]
// CHECK: %[[W:.+]] = llvm.load %[[WA]] {alignment = 4 : i64} : !llvm.ptr<1> -> f32
// CHECK: %[[DW:.+]] = arith.mulf %{{.+}}, %[[W]] : f32
// CHECK: arith.mulf %[[DW]], %[[S]] : f32
// CHECK: scf.yield
// CHECK-COUNT-10: gpu.shuffle xor %{{.+}}, %{{.+}}, %{{.+}} : f32
// CHECK-NOT: gpu.shuffle
// CHECK: memref.store %{{.+}}, %[[SUMS]]
// CHECK: memref.store %{{.+}}, %[[SUMS]]
// CHECK: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK: memref.load %[[SUMS]][%c0{{(_[0-9]+)?}}]
// CHECK: memref.load %[[SUMS]][%c1{{(_[0-9]+)?}}]
// CHECK: memref.load %[[SUMS]][%c6{{(_[0-9]+)?}}]
// CHECK: memref.load %[[SUMS]][%c7{{(_[0-9]+)?}}]
// CHECK: scf.for
// CHECK: llvm.store {{.+}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
// CHECK: gpu.return
func.func @multi_warp(%x: tensor<?x1024xf32>, %g: tensor<1024xf32>, %dout: tensor<?x1024xf32>, %w: tensor<1024xf32>, %s: f32) -> (tensor<?x1024xf32>, tensor<?x1xf32>, tensor<?x1xf32>) {
  %dx, %mean, %rstd = fuser.group_norm_grad %x, %g groups = 1 eps = 1.0e-05
      prologue_inputs(%dout, %w, %s : tensor<?x1024xf32>, tensor<1024xf32>, f32) prologue_maps [#id, #col, #none]
      {config = #fuser.config<strategy = "group_norm_grad", block = [128, 1, 1], vector_width = 4>}
      : tensor<?x1024xf32>, tensor<1024xf32> -> tensor<?x1024xf32>, tensor<?x1xf32>, tensor<?x1xf32> {
  ^bb0(%d: f32, %wi: f32, %si: f32):
    %a = arith.mulf %d, %wi : f32
    %b = arith.mulf %a, %si : f32
    fuser.yield %b : f32
  }
  return %dx, %mean, %rstd : tensor<?x1024xf32>, tensor<?x1xf32>, tensor<?x1xf32>
}

// -----

func.func @no_config(%x: tensor<2x8xf32>, %g: tensor<8xf32>) -> (tensor<2x8xf32>, tensor<2x2xf32>, tensor<2x2xf32>) {
  // expected-error @+1 {{has no #fuser.config; run -fuser-configure-kernels first}}
  %dx, %m, %r = fuser.group_norm_grad %x, %g groups = 2 eps = 1.0e-05
      prologue_inputs(%x : tensor<2x8xf32>) prologue_maps [affine_map<(d0, d1) -> (d0, d1)>]
      : tensor<2x8xf32>, tensor<8xf32> -> tensor<2x8xf32>, tensor<2x2xf32>, tensor<2x2xf32> {
  ^bb0(%d: f32):
    fuser.yield %d : f32
  }
  return %dx, %m, %r : tensor<2x8xf32>, tensor<2x2xf32>, tensor<2x2xf32>
}

// -----

func.func @wrong_strategy(%x: tensor<2x8xf32>, %g: tensor<8xf32>) -> (tensor<2x8xf32>, tensor<2x2xf32>, tensor<2x2xf32>) {
  // expected-error @+1 {{has strategy 'group_norm'; this lowering implements 'group_norm_grad'}}
  %dx, %m, %r = fuser.group_norm_grad %x, %g groups = 2 eps = 1.0e-05
      prologue_inputs(%x : tensor<2x8xf32>) prologue_maps [affine_map<(d0, d1) -> (d0, d1)>]
      {config = #fuser.config<strategy = "group_norm", block = [32, 1, 1]>}
      : tensor<2x8xf32>, tensor<8xf32> -> tensor<2x8xf32>, tensor<2x2xf32>, tensor<2x2xf32> {
  ^bb0(%d: f32):
    fuser.yield %d : f32
  }
  return %dx, %m, %r : tensor<2x8xf32>, tensor<2x2xf32>, tensor<2x2xf32>
}

// -----

func.func @dynamic_channels(%x: tensor<2x?xf32>, %g: tensor<?xf32>) -> (tensor<2x?xf32>, tensor<2x2xf32>, tensor<2x2xf32>) {
  // expected-error @+1 {{has dynamic sizes past the batch dimension; the GPU kernel needs static C and spatial sizes (only N may be dynamic)}}
  %dx, %m, %r = fuser.group_norm_grad %x, %g groups = 2 eps = 1.0e-05
      prologue_inputs(%x : tensor<2x?xf32>) prologue_maps [affine_map<(d0, d1) -> (d0, d1)>]
      {config = #fuser.config<strategy = "group_norm_grad", block = [32, 1, 1]>}
      : tensor<2x?xf32>, tensor<?xf32> -> tensor<2x?xf32>, tensor<2x2xf32>, tensor<2x2xf32> {
  ^bb0(%d: f32):
    fuser.yield %d : f32
  }
  return %dx, %m, %r : tensor<2x?xf32>, tensor<2x2xf32>, tensor<2x2xf32>
}

// -----

func.func @f16(%x: tensor<2x8xf16>, %g: tensor<8xf16>) -> (tensor<2x8xf16>, tensor<2x2xf16>, tensor<2x2xf16>) {
  // expected-error @+1 {{the GPU kernel needs f32 input and gamma}}
  %dx, %m, %r = fuser.group_norm_grad %x, %g groups = 2 eps = 1.0e-05
      prologue_inputs(%x : tensor<2x8xf16>) prologue_maps [affine_map<(d0, d1) -> (d0, d1)>]
      {config = #fuser.config<strategy = "group_norm_grad", block = [32, 1, 1]>}
      : tensor<2x8xf16>, tensor<8xf16> -> tensor<2x8xf16>, tensor<2x2xf16>, tensor<2x2xf16> {
  ^bb0(%d: f16):
    fuser.yield %d : f16
  }
  return %dx, %m, %r : tensor<2x8xf16>, tensor<2x2xf16>, tensor<2x2xf16>
}

// -----

func.func @empty_groups(%x: tensor<2x8x0xf32>, %g: tensor<8xf32>) -> (tensor<2x8x0xf32>, tensor<2x2xf32>, tensor<2x2xf32>) {
  // expected-error @+1 {{has empty groups, whose mean and rstd the GPU kernel does not define}}
  %dx, %m, %r = fuser.group_norm_grad %x, %g groups = 2 eps = 1.0e-05
      prologue_inputs(%x : tensor<2x8x0xf32>) prologue_maps [affine_map<(d0, d1, d2) -> (d0, d1, d2)>]
      {config = #fuser.config<strategy = "group_norm_grad", block = [32, 1, 1]>}
      : tensor<2x8x0xf32>, tensor<8xf32> -> tensor<2x8x0xf32>, tensor<2x2xf32>, tensor<2x2xf32> {
  ^bb0(%d: f32):
    fuser.yield %d : f32
  }
  return %dx, %m, %r : tensor<2x8x0xf32>, tensor<2x2xf32>, tensor<2x2xf32>
}

// -----

func.func @split_groups(%x: tensor<2x8x64xf32>, %g: tensor<8xf32>) -> (tensor<2x8x64xf32>, tensor<2x2xf32>, tensor<2x2xf32>) {
  // expected-error @+1 {{splits each group over 4 blocks; the gradient kernel takes a group in one block}}
  %dx, %m, %r = fuser.group_norm_grad %x, %g groups = 2 eps = 1.0e-05
      prologue_inputs(%x : tensor<2x8x64xf32>) prologue_maps [affine_map<(d0, d1, d2) -> (d0, d1, d2)>]
      {config = #fuser.config<strategy = "group_norm_grad", block = [32, 1, 1], vector_width = 4, tile = [32, 4]>}
      : tensor<2x8x64xf32>, tensor<8xf32> -> tensor<2x8x64xf32>, tensor<2x2xf32>, tensor<2x2xf32> {
  ^bb0(%d: f32):
    fuser.yield %d : f32
  }
  return %dx, %m, %r : tensor<2x8x64xf32>, tensor<2x2xf32>, tensor<2x2xf32>
}
