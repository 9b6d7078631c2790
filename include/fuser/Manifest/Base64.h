//===- Base64.h - Binary data in manifest strings ---------------*- C++ -*-===//
//
// Constant buffers carry their bytes in the JSON manifest as standard base64
// (RFC 4648, with '=' padding, no line breaks).
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_MANIFEST_BASE64_H
#define FUSER_MANIFEST_BASE64_H

#include <optional>
#include <string>
#include <string_view>

namespace fuser {

std::string encodeBase64(std::string_view bytes);

/// The bytes of `text`, or nullopt if it is not canonical padded base64.
std::optional<std::string> decodeBase64(std::string_view text);

} // namespace fuser

#endif // FUSER_MANIFEST_BASE64_H
