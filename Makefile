# fuser: `make run` builds and compiles examples/ to PTX; `make test` runs the CPU test suite.
BUILD_DIR ?= build
JOBS ?= $(shell nproc)
PYTHON ?= python3
LLVM_PREFIX ?= /usr/lib/llvm-22
CMAKE_FLAGS ?=
OUT_DIR ?= out

.PHONY: all setup configure build run test check-lit check-unit check-python clean help

all: build

help:
	@echo "make run    - install what is missing, build, compile examples/*.mlir to PTX in $(OUT_DIR)/"
	@echo "make test   - install what is missing, build, run the whole CPU test suite"
	@echo "make build  - configure and build into $(BUILD_DIR)/ (tools in $(BUILD_DIR)/bin)"

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

clean:
	rm -rf $(BUILD_DIR) $(OUT_DIR)
