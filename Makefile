# fuser: `make run` builds and compiles examples/ to PTX; `make test` runs the CPU test suite.
BUILD_DIR ?= build
JOBS ?= $(shell nproc)
PYTHON ?= python3
LLVM_PREFIX ?= /usr/lib/llvm-22
CMAKE_FLAGS ?=
OUT_DIR ?= out
# The front end's venv (torch, torch-mlir) for the fuser.torch tests; made by
# `make venv` (part of `make test`) from $(PYTHON), the interpreter the
# extension is built for.
VENV ?= .venv

ASAN_DIR ?= build-asan
NICE ?= 0
FUZZ_SECONDS ?= 600
FUZZ_SMOKE_SECONDS ?= 45

.PHONY: all setup venv configure build run test sanitize fuzz fuzz-build fuzz-one fuzz-smoke clean help

all: build

help:
	@echo "make run    - install what is missing, build, compile examples/*.mlir to PTX in $(OUT_DIR)/"
	@echo "make test   - install what is missing, build, run the whole CPU test suite"
	@echo "make build  - configure and build into $(BUILD_DIR)/ (tools in $(BUILD_DIR)/bin)"
	@echo "make venv   - create $(VENV)/ with torch and torch-mlir for fuser.torch (part of make test)"
	@echo "make sanitize - ASan+UBSan build in $(ASAN_DIR)/, then the lit suite and unit tests with it"
	@echo "make fuzz   - run every libFuzzer target (manifest, pipeline) for FUZZ_SECONDS each"
	@echo "make fuzz-smoke - each fuzz target for FUZZ_SMOKE_SECONDS (part of make test)"

setup:
	@./scripts/setup.sh

venv:
	@PYTHON=$(PYTHON) ./scripts/setup.sh --venv $(VENV)

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

test: build venv
	cmake --build $(BUILD_DIR) --target check-fuser-lit -j $(JOBS)
	ctest --test-dir $(BUILD_DIR) --output-on-failure
	PYTHONPATH=$(BUILD_DIR)/python_packages $(PYTHON) -m pytest -q python-bindings/tests
	PYTHONPATH=$(BUILD_DIR)/python_packages $(VENV)/bin/python -m pytest -q python-bindings/tests/test_torch_*.py
	@$(MAKE) --no-print-directory fuzz-smoke

# ASan + UBSan + libFuzzer build (cmake/FuserSanitize.cmake): clang, fuser's
# own assertions on, one build dir for `make sanitize` and the fuzzers.
$(ASAN_DIR)/build.ninja:
	CC=clang CXX=clang++ cmake -G Ninja -S . -B $(ASAN_DIR) \
	  -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" \
	  -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" \
	  -DMLIR_DIR=$(LLVM_PREFIX)/lib/cmake/mlir \
	  -DLLVM_EXTERNAL_LIT=$(LLVM_PREFIX)/bin/lit \
	  -DPython3_EXECUTABLE=$$(command -v $(PYTHON)) \
	  -DFUSER_ENABLE_PYTHON=OFF -DFUSER_ENABLE_FUZZERS=ON $(CMAKE_FLAGS)

# A sanitizer report aborts (so `not tool ...` in lit cannot hide it) and
# leaks are checked: fuser-opt/fuser-translate exit cleanly, and what LLVM's
# globals hold at exit is still reachable, so LeakSanitizer stays quiet
# unless something really leaks. allow_user_poisoning=0: LLVM's
# BumpPtrAllocator poisons its slabs when compiled with ASan (our objects)
# but the uninstrumented MLIR libraries hand out that memory without
# unpoisoning it, a false use-after-poison; ASan's own checks are unaffected.
SAN_ENV = ASAN_OPTIONS=abort_on_error=1:detect_leaks=1:allow_user_poisoning=0:strict_string_checks=1:detect_stack_use_after_return=1 \
	UBSAN_OPTIONS=print_stacktrace=1:abort_on_error=1

# fuser-opt, fuser-translate, the runtime and unit tests with ASan + UBSan,
# then the whole lit suite and ctest with those binaries.
sanitize: setup $(ASAN_DIR)/build.ninja
	nice -n $(NICE) cmake --build $(ASAN_DIR) -j $(JOBS) --target fuser-opt fuser-translate FuserRuntimeTests
	$(SAN_ENV) $(LLVM_PREFIX)/bin/lit -sv $(ASAN_DIR)/test
	$(SAN_ENV) ctest --test-dir $(ASAN_DIR) --output-on-failure

# Fuzz targets: fuser-<name>-fuzzer, seeds, dictionary.
FUZZERS = manifest pipeline
FUZZ_DIR = $(ASAN_DIR)/fuzz
FUZZ_FLAGS = -max_len=8192 -rss_limit_mb=4096 -print_final_stats=1
fuzz_dict_manifest = fuzz/manifest.dict
fuzz_dict_pipeline = fuzz/mlir.dict
# Seconds an input may take before it counts as a hang. The pipeline's
# seeds include whole GEMM modules of test/gpu/Inputs, compiled through
# NVPTX: the largest take 4.5-6 s under ASan on 2 cores.
fuzz_timeout_manifest = 5
fuzz_timeout_pipeline = 20

fuzz-build: setup $(ASAN_DIR)/build.ninja
	nice -n $(NICE) cmake --build $(ASAN_DIR) -j $(JOBS) --target $(FUZZERS:%=fuser-%-fuzzer)

# Seeds into $(1): the manifests of the compiled examples; for the pipeline,
# every case of the lit tests and the examples.
fuzz_seed_manifest = mkdir -p $(1) && cp fuzz/corpus/manifest/* $(1)/
fuzz_seed_pipeline = $(PYTHON) fuzz/seed-pipeline-corpus.py $(1) 8192 test examples

# Each target for FUZZ_SECONDS on a corpus that persists across runs in
# $(FUZZ_DIR)/corpus-<name>; a finding stops it, writes the input to
# $(FUZZ_DIR)/<name>-crash-... and fails the target.
fuzz: fuzz-build
	@set -e; for f in $(FUZZERS); do \
	  $(MAKE) --no-print-directory fuzz-one FUZZ_NAME=$$f FUZZ_CORPUS=$(FUZZ_DIR)/corpus-$$f; \
	done

fuzz-one:
	@$(call fuzz_seed_$(FUZZ_NAME),$(FUZZ_CORPUS))
	@echo "[fuzz] $(FUZZ_NAME): $(FUZZ_SECONDS) s, log $(FUZZ_DIR)/$(FUZZ_NAME).log"
	@$(SAN_ENV) $(ASAN_DIR)/bin/fuser-$(FUZZ_NAME)-fuzzer $(FUZZ_FLAGS) \
	  -timeout=$(fuzz_timeout_$(FUZZ_NAME)) -dict=$(fuzz_dict_$(FUZZ_NAME)) -max_total_time=$(FUZZ_SECONDS) \
	  -artifact_prefix=$(FUZZ_DIR)/$(FUZZ_NAME)- $(FUZZ_EXTRA) $(FUZZ_CORPUS) \
	  > $(FUZZ_DIR)/$(FUZZ_NAME).log 2>&1; rc=$$?; \
	  grep -E '^(Done|stat::number_of_executed_units)|ERROR|SUMMARY|pass .* succeeded but' $(FUZZ_DIR)/$(FUZZ_NAME).log | sed 's/^/[fuzz]   /'; \
	  exit $$rc

# `make test`'s short run: each target FUZZ_SMOKE_SECONDS from the seeds
# alone (a fresh corpus, so the run does not slow down as corpora grow) and
# a fixed seed, so a rerun explores the same inputs first.
fuzz-smoke: fuzz-build
	@set -e; for f in $(FUZZERS); do \
	  rm -rf $(FUZZ_DIR)/smoke-$$f; \
	  $(MAKE) --no-print-directory fuzz-one FUZZ_NAME=$$f FUZZ_CORPUS=$(FUZZ_DIR)/smoke-$$f \
	    FUZZ_SECONDS=$(FUZZ_SMOKE_SECONDS) FUZZ_EXTRA=-seed=1; \
	done

clean:
	rm -rf $(BUILD_DIR) $(ASAN_DIR) $(OUT_DIR)
