//===- ParserGuard.cpp - reject input that crashes MLIR's parser ----------===//
//
// A lexical scan, not a parser: it finds `permutation =` and `dimensions =`
// where an op's custom syntax can put them and checks what follows against
// what DenseI64ArrayAttr::parse accepts (MLIR 22, Parser.cpp and Lexer.cpp):
//
//   list    ::= `[` (element (`,` element)*)? `]`
//   element ::= `true` | `false` | `-`? integer       (fits in i64)
//   integer ::= [0-9]+ | `0x` [0-9a-fA-F]+
//
// with the lexer's whitespace (space, tab, CR, LF, NUL) and `//` comments
// allowed between tokens. Strings and comments are skipped. A keyword right
// after `{`, `,`, `<`, `(` or `[` is an entry of an attribute dictionary or
// parameter list (`<{permutation = array<i64: 1, 0>}>`,
// `{dimensions = [1 : i64]}`): the generic attribute parser reads those and
// fails cleanly, so they are left alone. Any other `keyword =` can reach the
// linalg parsers, including `permutation = array<...>` and a missing `[`,
// which crash as well.
//
//===----------------------------------------------------------------------===//

#include "fuser/Tools/ParserGuard.h"

#include "mlir/Bytecode/BytecodeReader.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <cstdint>
#include <optional>
#include <string>

using namespace mlir;

namespace {
/// Where the MLIR parser would crash, and what to tell the user.
struct Hazard {
  const char *loc;
  std::string message;
};
} // namespace

/// What the MLIR lexer skips between tokens: whitespace, NUL characters and
/// `//` comments up to the end of the line.
static const char *skipTrivia(const char *p, const char *end) {
  while (p != end) {
    if (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == '\0') {
      ++p;
    } else if (*p == '/' && p + 1 != end && p[1] == '/') {
      while (p != end && *p != '\n' && *p != '\r')
        ++p;
    } else {
      break;
    }
  }
  return p;
}

/// A string literal from its opening quote to just past its end. One that
/// is unterminated on its line is a lexer error before anything after it.
static const char *skipString(const char *p, const char *end) {
  for (++p; p != end && *p != '"' && *p != '\n'; ++p)
    if (*p == '\\' && p + 1 != end)
      ++p;
  return p == end ? p : p + 1;
}

static bool isIdChar(char c) {
  return llvm::isAlnum(c) || c == '_' || c == '$' || c == '.';
}

static bool isSigil(char c) {
  return c == '%' || c == '#' || c == '^' || c == '!' || c == '@';
}

/// Checks the list after `key =`, starting at `p`.
static std::optional<Hazard> checkList(StringRef key, const char *p,
                                       const char *end) {
  auto hazard = [&](const char *at, StringRef what) {
    return Hazard{at, (what + " in '" + key + " = [...]'").str()};
  };
  p = skipTrivia(p, end);
  if (p == end || *p != '[')
    return Hazard{p, ("expected '[' after '" + key + " ='").str()};
  p = skipTrivia(p + 1, end);
  if (p != end && *p == ']')
    return std::nullopt;
  while (true) {
    // One element. MLIR's integer parser reads `true` and `false` as well.
    const char *start = p;
    StringRef rest(p, end - p);
    if (rest.consume_front("true") || rest.consume_front("false")) {
      p = rest.data();
    } else {
      bool negative = p != end && *p == '-';
      if (negative)
        p = skipTrivia(p + 1, end);
      if (p == end || !llvm::isDigit(*p))
        return hazard(p, "expected integer value");
      start = p;
      unsigned radix = 10;
      if (*p == '0' && end - p > 2 && p[1] == 'x' && llvm::isHexDigit(p[2])) {
        radix = 16;
        p += 2;
      }
      const char *digits = p;
      while (p != end &&
             (radix == 16 ? llvm::isHexDigit(*p) : llvm::isDigit(*p)))
        ++p;
      uint64_t value;
      if (StringRef(digits, p - digits).getAsInteger(radix, value) ||
          value > uint64_t(INT64_MAX) + (negative ? 1 : 0))
        return hazard(start, "integer value too large for i64");
    }
    // `1.5`, `1e3`, `truex`: one token that is not an integer.
    if (p != end && isIdChar(*p))
      return hazard(start, "expected integer value");
    p = skipTrivia(p, end);
    if (p != end && *p == ']')
      return std::nullopt;
    if (p == end || *p != ',')
      return hazard(p, "expected ',' or ']'");
    p = skipTrivia(p + 1, end);
  }
}

static std::optional<Hazard> findHazard(StringRef text) {
  const char *p = text.begin(), *end = text.end();
  char prev = 0; // the last character of the previous token
  while (p != end) {
    if (const char *next = skipTrivia(p, end); next != p) {
      p = next;
      continue;
    }
    if (*p == '"') {
      p = skipString(p, end);
      prev = '"';
      continue;
    }
    if (!isIdChar(*p) && !isSigil(*p)) {
      prev = *p++;
      continue;
    }
    // A word, or a sigil and its name (`%permutation`, `#dimensions`).
    const char *start = p++;
    while (p != end && (isIdChar(*p) || (isSigil(*start) && *p == '-')))
      ++p;
    StringRef word(start, p - start);
    bool entry = StringRef("{,<([").contains(prev);
    prev = p[-1];
    if ((word != "permutation" && word != "dimensions") || entry)
      continue;
    const char *eq = skipTrivia(p, end);
    if (eq == end || *eq != '=')
      continue; // the linalg parsers fail cleanly without `=`
    if (auto hazard = checkList(word, eq + 1, end))
      return hazard;
  }
  return std::nullopt;
}

/// The hazard in the main buffer of `sourceMgr`, unless it is bytecode.
static std::optional<Hazard> findHazard(llvm::SourceMgr &sourceMgr) {
  const llvm::MemoryBuffer *buffer =
      sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
  if (isBytecode(buffer->getMemBufferRef()))
    return std::nullopt;
  return findHazard(buffer->getBuffer());
}

LogicalResult mlir::fuser::checkParserHazards(llvm::SourceMgr &sourceMgr) {
  std::optional<Hazard> hazard = findHazard(sourceMgr);
  if (!hazard)
    return success();
  sourceMgr.PrintMessage(llvm::SMLoc::getFromPointer(hazard->loc),
                         llvm::SourceMgr::DK_Error, hazard->message);
  return failure();
}

LogicalResult mlir::fuser::checkParserHazards(llvm::SourceMgr &sourceMgr,
                                              MLIRContext *context) {
  std::optional<Hazard> hazard = findHazard(sourceMgr);
  if (!hazard)
    return success();
  // The location the parser would give: the main buffer's name, line, column.
  unsigned mainFile = sourceMgr.getMainFileID();
  auto [line, col] = sourceMgr.getLineAndColumn(
      llvm::SMLoc::getFromPointer(hazard->loc), mainFile);
  StringRef name = sourceMgr.getMemoryBuffer(mainFile)->getBufferIdentifier();
  return emitError(FileLineColLoc::get(context, name, line, col))
         << hazard->message;
}
