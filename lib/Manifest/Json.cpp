//===- Json.cpp - A minimal strict JSON reader and writer -------*- C++ -*-===//

#include "fuser/Manifest/Json.h"
#include "fuser/Manifest/Error.h"

#include <algorithm>
#include <charconv>
#include <cstdio>

namespace fuser {

JsonValue JsonValue::makeBool(bool b) {
  JsonValue v;
  v.kind_ = Kind::Bool;
  v.bool_ = b;
  return v;
}

JsonValue JsonValue::makeInt(int64_t i) {
  JsonValue v;
  v.kind_ = Kind::Int;
  v.int_ = i;
  return v;
}

JsonValue JsonValue::makeDouble(double d) {
  JsonValue v;
  v.kind_ = Kind::Double;
  v.double_ = d;
  return v;
}

JsonValue JsonValue::makeString(std::string s) {
  JsonValue v;
  v.kind_ = Kind::String;
  v.string_ = std::move(s);
  return v;
}

JsonValue JsonValue::makeArray(std::vector<JsonValue> elements) {
  JsonValue v;
  v.kind_ = Kind::Array;
  v.array_ = std::move(elements);
  return v;
}

JsonValue
JsonValue::makeObject(std::vector<std::pair<std::string, JsonValue>> members) {
  JsonValue v;
  v.kind_ = Kind::Object;
  v.object_ = std::move(members);
  return v;
}

double JsonValue::getNumber() const {
  return kind_ == Kind::Int ? static_cast<double>(int_) : double_;
}

const JsonValue *JsonValue::find(std::string_view key) const {
  for (const auto &member : object_)
    if (member.first == key)
      return &member.second;
  return nullptr;
}

const char *JsonValue::kindName(Kind kind) {
  switch (kind) {
  case Kind::Null:
    return "null";
  case Kind::Bool:
    return "a boolean";
  case Kind::Int:
    return "an integer";
  case Kind::Double:
    return "a number";
  case Kind::String:
    return "a string";
  case Kind::Array:
    return "an array";
  case Kind::Object:
    return "an object";
  }
  return "?";
}

namespace {

/// Recursive-descent parser over the whole document.
class Parser {
public:
  explicit Parser(std::string_view text) : text(text) {}

  JsonValue parseDocument() {
    skipSpace();
    JsonValue v = parseValue(0);
    skipSpace();
    if (pos != text.size())
      fail("unexpected trailing characters after the JSON value");
    return v;
  }

private:
  /// Manifests nest a handful of levels; the limit only guards the stack.
  static constexpr int kMaxDepth = 256;

  std::string_view text;
  size_t pos = 0;

  [[noreturn]] void fail(const std::string &message) const {
    // Line and column are 1-based and computed only on failure.
    size_t line = 1, column = 1;
    for (size_t i = 0; i < pos && i < text.size(); ++i) {
      if (text[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    throw Error("JSON error at line " + std::to_string(line) + ", column " +
                std::to_string(column) + ": " + message);
  }

  bool atEnd() const { return pos >= text.size(); }
  char peek() const { return atEnd() ? '\0' : text[pos]; }

  void skipSpace() {
    while (!atEnd() && (text[pos] == ' ' || text[pos] == '\t' ||
                        text[pos] == '\n' || text[pos] == '\r'))
      ++pos;
  }

  void expectLiteral(std::string_view literal) {
    if (text.substr(pos, literal.size()) != literal)
      fail("invalid literal (expected '" + std::string(literal) + "')");
    pos += literal.size();
  }

  JsonValue parseValue(int depth) {
    if (depth > kMaxDepth)
      fail("nesting deeper than " + std::to_string(kMaxDepth) + " levels");
    if (atEnd())
      fail("unexpected end of input, expected a value");
    char c = peek();
    switch (c) {
    case '{':
      return parseObject(depth);
    case '[':
      return parseArray(depth);
    case '"':
      return JsonValue::makeString(parseString());
    case 't':
      expectLiteral("true");
      return JsonValue::makeBool(true);
    case 'f':
      expectLiteral("false");
      return JsonValue::makeBool(false);
    case 'n':
      expectLiteral("null");
      return JsonValue();
    default:
      if (c == '-' || (c >= '0' && c <= '9'))
        return parseNumber();
      fail(std::string("unexpected character '") + c + "'");
    }
  }

  JsonValue parseObject(int depth) {
    ++pos; // '{'
    std::vector<std::pair<std::string, JsonValue>> members;
    skipSpace();
    if (peek() == '}') {
      ++pos;
      return JsonValue::makeObject(std::move(members));
    }
    while (true) {
      skipSpace();
      if (peek() != '"')
        fail("expected a string key");
      size_t keyPos = pos;
      std::string key = parseString();
      for (const auto &m : members) {
        if (m.first == key) {
          pos = keyPos;
          fail("duplicate key '" + key + "'");
        }
      }
      skipSpace();
      if (peek() != ':')
        fail("expected ':' after object key");
      ++pos;
      skipSpace();
      JsonValue value = parseValue(depth + 1);
      members.emplace_back(std::move(key), std::move(value));
      skipSpace();
      if (peek() == ',') {
        ++pos;
        continue;
      }
      if (peek() == '}') {
        ++pos;
        return JsonValue::makeObject(std::move(members));
      }
      fail("expected ',' or '}' in object");
    }
  }

  JsonValue parseArray(int depth) {
    ++pos; // '['
    std::vector<JsonValue> elements;
    skipSpace();
    if (peek() == ']') {
      ++pos;
      return JsonValue::makeArray(std::move(elements));
    }
    while (true) {
      skipSpace();
      elements.push_back(parseValue(depth + 1));
      skipSpace();
      if (peek() == ',') {
        ++pos;
        continue;
      }
      if (peek() == ']') {
        ++pos;
        return JsonValue::makeArray(std::move(elements));
      }
      fail("expected ',' or ']' in array");
    }
  }

  unsigned parseHex4() {
    if (pos + 4 > text.size())
      fail("truncated \\u escape");
    unsigned value = 0;
    for (int i = 0; i < 4; ++i) {
      char c = text[pos++];
      value <<= 4;
      if (c >= '0' && c <= '9')
        value |= c - '0';
      else if (c >= 'a' && c <= 'f')
        value |= c - 'a' + 10;
      else if (c >= 'A' && c <= 'F')
        value |= c - 'A' + 10;
      else {
        --pos;
        fail("invalid hex digit in \\u escape");
      }
    }
    return value;
  }

  static void appendUtf8(std::string &out, unsigned cp) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }

  std::string parseString() {
    ++pos; // opening quote
    std::string out;
    while (true) {
      if (atEnd())
        fail("unterminated string");
      char c = text[pos];
      if (c == '"') {
        ++pos;
        return out;
      }
      if (static_cast<unsigned char>(c) < 0x20)
        fail("control character in string (must be escaped)");
      if (c != '\\') {
        out += c;
        ++pos;
        continue;
      }
      ++pos; // backslash
      if (atEnd())
        fail("unterminated string");
      char e = text[pos++];
      switch (e) {
      case '"':
        out += '"';
        break;
      case '\\':
        out += '\\';
        break;
      case '/':
        out += '/';
        break;
      case 'b':
        out += '\b';
        break;
      case 'f':
        out += '\f';
        break;
      case 'n':
        out += '\n';
        break;
      case 'r':
        out += '\r';
        break;
      case 't':
        out += '\t';
        break;
      case 'u': {
        unsigned cp = parseHex4();
        // A high surrogate must be followed by an escaped low surrogate.
        if (cp >= 0xD800 && cp <= 0xDBFF) {
          if (text.substr(pos, 2) != "\\u")
            fail("unpaired UTF-16 surrogate in \\u escape");
          pos += 2;
          unsigned low = parseHex4();
          if (low < 0xDC00 || low > 0xDFFF)
            fail("invalid UTF-16 low surrogate in \\u escape");
          cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
        } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
          fail("unpaired UTF-16 surrogate in \\u escape");
        }
        appendUtf8(out, cp);
        break;
      }
      default:
        --pos;
        fail(std::string("invalid escape '\\") + e + "'");
      }
    }
  }

  JsonValue parseNumber() {
    size_t start = pos;
    bool isInteger = true;
    if (peek() == '-')
      ++pos;
    if (peek() == '0') {
      ++pos;
      if (peek() >= '0' && peek() <= '9')
        fail("leading zeros are not allowed in numbers");
    } else if (peek() >= '1' && peek() <= '9') {
      while (peek() >= '0' && peek() <= '9')
        ++pos;
    } else {
      fail("expected a digit");
    }
    if (peek() == '.') {
      isInteger = false;
      ++pos;
      if (!(peek() >= '0' && peek() <= '9'))
        fail("expected a digit after the decimal point");
      while (peek() >= '0' && peek() <= '9')
        ++pos;
    }
    if (peek() == 'e' || peek() == 'E') {
      isInteger = false;
      ++pos;
      if (peek() == '+' || peek() == '-')
        ++pos;
      if (!(peek() >= '0' && peek() <= '9'))
        fail("expected a digit in the exponent");
      while (peek() >= '0' && peek() <= '9')
        ++pos;
    }
    // from_chars is locale-independent, unlike strtod.
    const char *first = text.data() + start, *last = text.data() + pos;
    std::string literal(first, last);
    if (isInteger) {
      int64_t value = 0;
      auto [ptr, ec] = std::from_chars(first, last, value);
      if (ec != std::errc() || ptr != last) {
        pos = start;
        fail("integer " + literal + " does not fit in 64 bits");
      }
      return JsonValue::makeInt(value);
    }
    double value = 0;
    auto [ptr, ec] = std::from_chars(first, last, value);
    if (ec != std::errc() || ptr != last) {
      pos = start;
      fail("number " + literal + " is out of range");
    }
    return JsonValue::makeDouble(value);
  }
};

} // namespace

JsonValue parseJson(std::string_view text) {
  return Parser(text).parseDocument();
}

static void writeString(std::string &out, const std::string &s) {
  out += '"';
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c >= 0x20) {
      out += static_cast<char>(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\u%04x", c);
      out += buf;
    }
  }
  out += '"';
}

static void writeValue(std::string &out, const JsonValue &v, int indent) {
  auto newline = [&](int level) {
    out += '\n';
    out.append(static_cast<size_t>(2 * level), ' ');
  };
  switch (v.kind()) {
  case JsonValue::Kind::Null:
    out += "null";
    return;
  case JsonValue::Kind::Bool:
    out += v.getBool() ? "true" : "false";
    return;
  case JsonValue::Kind::Int:
    out += std::to_string(v.getInt());
    return;
  case JsonValue::Kind::Double: {
    char buf[40];
    std::snprintf(buf, sizeof(buf), "%.17g", v.getNumber());
    out += buf;
    return;
  }
  case JsonValue::Kind::String:
    writeString(out, v.getString());
    return;
  case JsonValue::Kind::Array: {
    if (v.getArray().empty()) {
      out += "[]";
      return;
    }
    out += '[';
    bool first = true;
    for (const JsonValue &e : v.getArray()) {
      out += first ? "" : ",";
      first = false;
      newline(indent + 1);
      writeValue(out, e, indent + 1);
    }
    newline(indent);
    out += ']';
    return;
  }
  case JsonValue::Kind::Object: {
    if (v.getObject().empty()) {
      out += "{}";
      return;
    }
    std::vector<const std::pair<std::string, JsonValue> *> members;
    for (const auto &m : v.getObject())
      members.push_back(&m);
    std::sort(members.begin(), members.end(),
              [](auto *a, auto *b) { return a->first < b->first; });
    out += '{';
    bool first = true;
    for (const auto *m : members) {
      out += first ? "" : ",";
      first = false;
      newline(indent + 1);
      writeString(out, m->first);
      out += ": ";
      writeValue(out, m->second, indent + 1);
    }
    newline(indent);
    out += '}';
    return;
  }
  }
}

std::string writeJson(const JsonValue &value) {
  std::string out;
  writeValue(out, value, 0);
  return out;
}

} // namespace fuser
