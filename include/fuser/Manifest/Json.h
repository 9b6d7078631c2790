//===- Json.h - A minimal strict JSON reader and writer ---------*- C++ -*-===//
//
// The runtime must not depend on LLVM, so the manifest carries its own small
// JSON parser and printer. It is strict (no comments, no trailing commas, no duplicate keys,
// no NaN) because manifests are machine-written: anything unusual is a bug
// worth reporting with its line and column.
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_MANIFEST_JSON_H
#define FUSER_MANIFEST_JSON_H

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fuser {

/// A parsed JSON value. Integers without fraction or exponent that fit in 64
/// bits are kept exact as `Int`; all other numbers are `Double`.
class JsonValue {
public:
  enum class Kind { Null, Bool, Int, Double, String, Array, Object };

  JsonValue() = default;
  static JsonValue makeBool(bool b);
  static JsonValue makeInt(int64_t i);
  static JsonValue makeDouble(double d);
  static JsonValue makeString(std::string s);
  static JsonValue makeArray(std::vector<JsonValue> elements);
  static JsonValue
  makeObject(std::vector<std::pair<std::string, JsonValue>> members);

  Kind kind() const { return kind_; }
  bool isNull() const { return kind_ == Kind::Null; }
  bool isBool() const { return kind_ == Kind::Bool; }
  bool isInt() const { return kind_ == Kind::Int; }
  bool isNumber() const { return isInt() || kind_ == Kind::Double; }
  bool isString() const { return kind_ == Kind::String; }
  bool isArray() const { return kind_ == Kind::Array; }
  bool isObject() const { return kind_ == Kind::Object; }

  /// Accessors; each requires the matching kind (checked by assert-free
  /// callers via the is*() predicates).
  bool getBool() const { return bool_; }
  int64_t getInt() const { return int_; }
  /// The value of an Int or Double as a double.
  double getNumber() const;
  const std::string &getString() const { return string_; }
  const std::vector<JsonValue> &getArray() const { return array_; }
  const std::vector<std::pair<std::string, JsonValue>> &getObject() const {
    return object_;
  }

  /// The member named `key` of an object, or null if absent.
  const JsonValue *find(std::string_view key) const;

  /// A short name of the kind for messages: "an object", "a string", ...
  static const char *kindName(Kind kind);

private:
  Kind kind_ = Kind::Null;
  bool bool_ = false;
  int64_t int_ = 0;
  double double_ = 0;
  std::string string_;
  std::vector<JsonValue> array_;
  std::vector<std::pair<std::string, JsonValue>> object_;
};

/// Parses one JSON document. Throws fuser::Error with
/// "JSON error at line L, column C: ..." on malformed input.
JsonValue parseJson(std::string_view text);

/// Prints `value` with two-space indentation, one array element or object
/// member per line and object keys sorted (the layout of LLVM's JSON printer,
/// which earlier manifests were written with). Doubles print with 17
/// significant digits, so they read back exactly; non-finite doubles are not
/// JSON and must not be passed.
std::string writeJson(const JsonValue &value);

} // namespace fuser

#endif // FUSER_MANIFEST_JSON_H
