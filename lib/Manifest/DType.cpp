//===- DType.cpp - Element types of the kernel manifest ---------*- C++ -*-===//

#include "fuser/Manifest/DType.h"

namespace fuser {

namespace {
struct DTypeInfo {
  DType dtype;
  const char *name;
  int64_t size;
  const char *cType;
};
} // namespace

// i1 memrefs hold one byte per element.
static constexpr DTypeInfo kDTypes[] = {
    {DType::F32, "f32", 4, "float"},     {DType::F16, "f16", 2, "uint16_t"},
    {DType::BF16, "bf16", 2, "uint16_t"}, {DType::F64, "f64", 8, "double"},
    {DType::I32, "i32", 4, "int32_t"},    {DType::I64, "i64", 8, "int64_t"},
    {DType::I8, "i8", 1, "int8_t"},       {DType::I1, "i1", 1, "uint8_t"},
};

static const DTypeInfo &info(DType dtype) {
  return kDTypes[static_cast<int>(dtype)];
}

std::optional<DType> dtypeFromString(std::string_view name) {
  for (const DTypeInfo &i : kDTypes)
    if (name == i.name)
      return i.dtype;
  return std::nullopt;
}

const char *dtypeName(DType dtype) { return info(dtype).name; }

int64_t dtypeSize(DType dtype) { return info(dtype).size; }

const char *dtypeCType(DType dtype) { return info(dtype).cType; }

const char *supportedDTypeNames() {
  return "f32, f16, bf16, f64, i32, i64, i8, i1";
}

} // namespace fuser
