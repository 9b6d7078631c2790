// Tensor constants that must stay data become constant buffers the module
// carries (docs/manifest.md): the manifest holds their bytes in base64, the C
// header embeds them and uploads them with the module in each context.
// RUN: fuser-opt %s --fuser-gpu-pipeline | fuser-translate --fuser-to-manifest | FileCheck %s
// RUN: fuser-opt %s --fuser-gpu-pipeline | fuser-translate --fuser-to-c-header \
// RUN:   | FileCheck %s --check-prefix=HEADER

// CHECK: "buffers": [
// CHECK:   "kind": "arg"
// f32 [1, 2, 3, 4], little-endian, read by the kernel with 16-byte loads.
// CHECK:        "align": 16,
// CHECK-NEXT:   "data": "AACAPwAAAEAAAEBAAACAQA==",
// CHECK-NEXT:   "dtype": "f32",
// CHECK-NEXT:   "id": 1,
// CHECK-NEXT:   "kind": "constant",
// CHECK-NEXT:   "shape": [
// CHECK-NEXT:     4
// CHECK-NEXT:   ]
// CHECK: "kind": "alloc"
// CHECK: "launches": [
// CHECK: "buffer": 1,
// CHECK-NEXT: "kind": "ptr"
// CHECK: "name": "add_weight"
// CHECK: "version": 2

// HEADER: static const unsigned char fuser_constant_0_[16] = {
// HEADER-NEXT: 0x00, 0x00, 0x80, 0x3f, 0x00, 0x00, 0x00, 0x40, 0x00, 0x00, 0x40, 0x40, 0x00, 0x00, 0x80, 0x40};
// HEADER: static const size_t fuser_constant_sizes_[1] = {16};
// HEADER: CUdeviceptr constants[1];
// HEADER: err = cuMemAlloc(&entry->constants[i], fuser_constant_sizes_[i]);
// HEADER: err = cuMemcpyHtoD(entry->constants[i], fuser_constants_[i],
// HEADER: cuMemFree(fuser_contexts_[i].constants[k]);
// HEADER-LABEL: static inline CUresult fuser_add_weight(
// HEADER: CUdeviceptr buf1 = 0; /* constant, bound once the module is loaded */
// HEADER: err = fuser_context_(&entry);
// HEADER: buf1 = entry->constants[0];

#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @add_weight(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x4xf32>
  %w = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %init = tensor.empty(%n) : tensor<?x4xf32>
  %y = linalg.generic {indexing_maps = [#id, #col, #id],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x, %w : tensor<?x4xf32>, tensor<4xf32>) outs(%init : tensor<?x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}
