//===- Base64.cpp - Binary data in manifest strings -------------*- C++ -*-===//

#include "fuser/Manifest/Base64.h"

#include <cstdint>

namespace fuser {

static constexpr char kAlphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

std::string encodeBase64(std::string_view bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    uint32_t v = uint32_t(uint8_t(bytes[i])) << 16 |
                 uint32_t(uint8_t(bytes[i + 1])) << 8 | uint8_t(bytes[i + 2]);
    for (int s = 18; s >= 0; s -= 6)
      out += kAlphabet[(v >> s) & 63];
  }
  size_t rest = bytes.size() - i;
  if (rest) {
    uint32_t v = uint32_t(uint8_t(bytes[i])) << 16;
    if (rest == 2)
      v |= uint32_t(uint8_t(bytes[i + 1])) << 8;
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += rest == 2 ? kAlphabet[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

static int sextet(char c) {
  if (c >= 'A' && c <= 'Z')
    return c - 'A';
  if (c >= 'a' && c <= 'z')
    return c - 'a' + 26;
  if (c >= '0' && c <= '9')
    return c - '0' + 52;
  if (c == '+')
    return 62;
  if (c == '/')
    return 63;
  return -1;
}

std::optional<std::string> decodeBase64(std::string_view text) {
  if (text.size() % 4 != 0)
    return std::nullopt;
  std::string out;
  out.reserve(text.size() / 4 * 3);
  for (size_t i = 0; i < text.size(); i += 4) {
    bool last = i + 4 == text.size();
    int pad = last ? (text[i + 3] == '=') + (text[i + 2] == '=') : 0;
    if (pad == 1 && text[i + 2] == '=')
      return std::nullopt;
    uint32_t v = 0;
    for (int k = 0; k < 4; ++k) {
      int s = k >= 4 - pad ? 0 : sextet(text[i + k]);
      if (s < 0)
        return std::nullopt;
      v = v << 6 | uint32_t(s);
    }
    // Canonical: the bits padding leaves over must be zero.
    if ((pad == 1 && (v & 0xff)) || (pad == 2 && (v & 0xffff)))
      return std::nullopt;
    out += char(v >> 16);
    if (pad < 2)
      out += char((v >> 8) & 0xff);
    if (pad < 1)
      out += char(v & 0xff);
  }
  return out;
}

} // namespace fuser
