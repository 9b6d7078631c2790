# fuser: `make run` builds and compiles examples/ to PTX; `make test` runs the CPU test suite.
BUILD_DIR ?= build
JOBS ?= $(shell nproc)
PYTHON ?= python3
LLVM_PREFIX ?= /usr/lib/llvm-22
CMAKE_FLAGS ?=
OUT_DIR ?= out

FUZZ_SECONDS ?= 600
FUZZ_SMOKE_SECONDS ?= 30

.PHONY: all setup configure build run test fuzz fuzz-smoke clean help

all: build

help:
	@echo "make run    - install what is missing, build, compile examples/*.mlir to PTX in $(OUT_DIR)/"
	@echo "make test   - install what is missing, build, run the whole CPU test suite"
	@echo "make build  - configure and build into $(BUILD_DIR)/ (tools in $(BUILD_DIR)/bin)"
	@echo "make fuzz   - fuzz the runtime's manifest parsing for FUZZ_SECONDS (libFuzzer, clang)"

setup:
	@./scripts/setup.sh

$(BUILD_DIR)/build.ninja:
	cmake -G Ninja -S . -B $(BUILD_DIR) \
	  -DCMAKE_BUILD_TYPE=Release \
	  -DMLIR_DIR=$(LLVM_PREFIX)/lib/cmake/mlir \
	  -DLLVM_EXTERNAL_LIT=$(LLVM_PREFIX)/bin/lit \
	  -DPython3_EXECUTABLE=$$(command -v $(PYTHON)) \
	  -DFUSER_ENABLE_PYTHON=ON $(CMAKE_FLAGS)

configure: $(BUILD_DIR)/build.ninja

build: setup configure
	cmake --build $(BUILD_DIR) -j $(JOBS)

run: build
	@./scripts/compile-examples.sh $(BUILD_DIR)/bin $(OUT_DIR)

test: build
	cmake --build $(BUILD_DIR) --target check-fuser-lit -j $(JOBS)
	ctest --test-dir $(BUILD_DIR) --output-on-failure
	PYTHONPATH=$(BUILD_DIR)/python_packages $(PYTHON) -m pytest -q python-bindings/tests
	@$(MAKE) --no-print-directory fuzz-smoke

# libFuzzer over the runtime's manifest parsing, with ASan and UBSan; the
# corpus starts from fuzz/corpus and grows in build-fuzz/corpus.
build-fuzz/fuser-manifest-fuzzer: fuzz/ManifestFuzzer.cpp fuzz/CMakeLists.txt $(wildcard lib/Runtime/*.cpp)
	CC=clang CXX=clang++ cmake -G Ninja -S fuzz -B build-fuzz > /dev/null
	cmake --build build-fuzz -j $(JOBS)

fuzz: build-fuzz/fuser-manifest-fuzzer
	mkdir -p build-fuzz/corpus && cp fuzz/corpus/manifest/* build-fuzz/corpus/
	build-fuzz/fuser-manifest-fuzzer -dict=fuzz/manifest.dict -max_len=8192 -timeout=5 \
	  -max_total_time=$(FUZZ_SECONDS) -artifact_prefix=build-fuzz/ build-fuzz/corpus

# A short run for `make test`; a finding fails it (the log is kept).
fuzz-smoke:
	@if command -v clang++ >/dev/null; then \
	  mkdir -p build-fuzz; \
	  $(MAKE) --no-print-directory fuzz FUZZ_SECONDS=$(FUZZ_SMOKE_SECONDS) > build-fuzz/smoke.log 2>&1; \
	  rc=$$?; echo "[fuzz] $$(grep -E '^Done|ERROR|SUMMARY' build-fuzz/smoke.log | tail -2)"; exit $$rc; \
	else echo "[fuzz] clang++ not found: fuzz smoke run skipped"; fi

clean:
	rm -rf $(BUILD_DIR) $(OUT_DIR)
