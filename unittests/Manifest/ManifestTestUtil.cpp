//===- ManifestTestUtil.cpp - Helpers for manifest and runtime tests -===//

#include "ManifestTestUtil.h"

namespace fuser::test {

static const char *kDefaultLaunches = R"json([
  {"kernel": "forward_matmul_0",
   "grid": ["ceildiv(dim(0,0),64)", "ceildiv(dim(1,1),64)", 1],
   "block": [128, 1, 1],
   "shared_bytes": 65536,
   "args": [{"kind": "ptr", "buffer": 0},
            {"kind": "ptr", "buffer": 1},
            {"kind": "ptr", "buffer": 3},
            {"kind": "i64", "value": "dim(0,0)"},
            {"kind": "i32", "value": "dim(1,1)"},
            {"kind": "f32", "value": 0.5}]},
  {"kernel": "forward_pointwise_1",
   "grid": ["min(ceildiv(mul(dim(0,0),dim(1,1)),256),65535)", 1, 1],
   "block": [256, 1, 1],
   "args": [{"kind": "ptr", "buffer": 3},
            {"kind": "memref", "buffer": 2,
             "shape": ["dim(0,0)", "dim(1,1)"]}]}
])json";

std::string matmulManifest(const std::string &launches) {
  std::string json = R"json({
  "format": "fuser-manifest",
  "version": 1,
  "chip": "sm_90a",
  "functions": [{
    "name": "forward",
    "args": [{"name": "x", "dtype": "f32", "shape": ["?", "?"], "align": 16},
             {"name": "w", "dtype": "f32", "shape": ["?", 4]}],
    "buffers": [{"id": 0, "kind": "arg", "arg": 0},
                {"id": 1, "kind": "arg", "arg": 1},
                {"id": 2, "kind": "alloc", "dtype": "f32",
                 "shape": ["dim(0,0)", "dim(1,1)"]},
                {"id": 3, "kind": "alloc", "dtype": "f16",
                 "shape": ["mul(dim(0,0),dim(1,1))"]}],
    "results": [{"buffer": 2}],
    "checks": [{"lhs": "dim(1,0)", "rhs": "dim(0,1)",
                "message": "w dim 0 must equal x dim 1"}],
    "launches": LAUNCHES
  }]
})json";
  return replaceInManifest(json, "LAUNCHES",
                           launches.empty() ? kDefaultLaunches : launches);
}

std::string replaceInManifest(std::string json, const std::string &from,
                              const std::string &to) {
  size_t pos = json.find(from);
  if (pos == std::string::npos) {
    ADD_FAILURE() << "test bug: '" << from << "' not in the manifest";
    return json;
  }
  return json.replace(pos, from.size(), to);
}

} // namespace fuser::test
