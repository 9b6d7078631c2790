//===- ManifestFuzzer.cpp - libFuzzer target for the runtime's parsers ----===//
//
// Feeds arbitrary bytes to what the runtime reads from artifacts it is given:
// the JSON manifest, its expressions, and buffer resolution for some
// argument shapes. Any outcome but a fuser::Error is a finding (a crash, an
// assertion, a sanitizer report, another exception type).
//
//===----------------------------------------------------------------------===//

#include "fuser/Manifest/Error.h"
#include "fuser/Manifest/Manifest.h"
#include "fuser/Runtime/Validate.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view text(reinterpret_cast<const char *>(data), size);
  try {
    fuser::ManifestModule module = fuser::parseManifest(text);
    // Resolve every function's buffers for a few size patterns, as a call
    // would after validation: small, odd and zero sizes.
    for (const fuser::FunctionSpec &fn : module.functions) {
      for (int64_t size : {0, 1, 7, 1024}) {
        fuser::ShapeList shapes;
        for (const fuser::ArgSpec &arg : fn.args) {
          std::vector<int64_t> shape;
          for (int64_t d : arg.shape)
            shape.push_back(d >= 0 ? d : size);
          shapes.push_back(shape);
        }
        try {
          fuser::resolveBuffers(fn, shapes);
        } catch (const fuser::Error &) {
        }
      }
    }
  } catch (const fuser::Error &) {
    // A readable rejection is the expected outcome for bad input.
  }
  return 0;
}
