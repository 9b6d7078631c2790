//===- Error.h - The runtime's single exception type ------------*- C++ -*-===//
//
// Every failure the runtime reports (malformed manifest, bad call arguments,
// CUDA driver errors) is a fuser::Error whose what() is a complete sentence a
// user can act on. The Python bindings translate it into fuser.FuserError.
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_MANIFEST_ERROR_H
#define FUSER_MANIFEST_ERROR_H

#include <stdexcept>
#include <string>

namespace fuser {

/// The exception thrown for every user-facing runtime error.
class Error : public std::runtime_error {
public:
  explicit Error(const std::string &message) : std::runtime_error(message) {}
};

} // namespace fuser

#endif // FUSER_MANIFEST_ERROR_H
