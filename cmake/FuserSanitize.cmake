# Sanitizer and fuzzer builds. Both instrument every fuser target added after
# this file is included (the compiler libraries, tools, runtime and unit
# tests); the Debian LLVM/MLIR libraries stay uninstrumented, which ASan and
# UBSan allow. `make sanitize` and `make fuzz` configure build-asan/ with
#   CC=clang CXX=clang++ -DFUSER_SANITIZE=ON -DFUSER_ENABLE_FUZZERS=ON
# so one build of fuser serves the sanitized lit/unit suites and the fuzzers.

option(FUSER_SANITIZE
  "Build with AddressSanitizer + UndefinedBehaviorSanitizer and fuser's own assertions" OFF)
option(FUSER_ENABLE_FUZZERS
  "Build the libFuzzer targets in fuzz/ (clang only; implies FUSER_SANITIZE)" OFF)

if(FUSER_ENABLE_FUZZERS)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "FUSER_ENABLE_FUZZERS needs clang (libFuzzer); "
                        "configure with CC=clang CXX=clang++")
  endif()
  set(FUSER_SANITIZE ON CACHE BOOL "" FORCE)
endif()

if(FUSER_SANITIZE)
  # -fno-sanitize-recover: a UBSan report fails the test instead of
  # scrolling by. Frame pointers keep ASan's stack traces complete.
  set(FUSER_SANITIZER_FLAGS -fsanitize=address,undefined
      -fno-sanitize-recover=all -fno-omit-frame-pointer)
  add_compile_options(${FUSER_SANITIZER_FLAGS}
    # The Debian LLVM is built without assertions and CMake's release flags
    # define NDEBUG; our own asserts (and the inline LLVM/MLIR header code
    # compiled into our objects, e.g. SmallVector bounds, cast<> checks) are
    # the cheapest finding there is, so turn them back on. Safe: LLVM's ABI
    # switch is LLVM_ENABLE_ABI_BREAKING_CHECKS, fixed in abi-breaking.h.
    -UNDEBUG
    # Bounds checks in std::vector/std::string/std::array operator[].
    -D_GLIBCXX_ASSERTIONS)
  if(FUSER_ENABLE_FUZZERS)
    # Coverage feedback for libFuzzer from all of fuser's code; executables
    # that do not link libFuzzer get ASan's default coverage callbacks.
    add_compile_options(-fsanitize=fuzzer-no-link)
  endif()
  add_link_options(-fsanitize=address,undefined)
  message(STATUS "fuser: ASan + UBSan build (${FUSER_SANITIZER_FLAGS}), "
                 "assertions on, fuzzers ${FUSER_ENABLE_FUZZERS}")
endif()
