# -*- Python -*-
# The CPU lit suite. GPU execution tests live in test/gpu (pytest, run by
# bench/gpu-check.sh on a GPU machine) and are excluded here.

import os
import shutil

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "FUSER"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.fuser_obj_root, "test")
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "gpu",
                   "Inputs"]

# Check variables stay scoped to their CHECK-LABEL block.
config.environment["FILECHECK_OPTS"] = "--enable-var-scope"

llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

tool_dirs = [config.fuser_tools_dir, config.llvm_tools_dir]
tools = [
    "fuser-opt",
    "fuser-translate",
    "mlir-runner",
    ToolSubst("%PYTHON", config.python_executable, unresolved="ignore"),
]
llvm_config.add_tool_substitutions(tools, tool_dirs)

config.substitutions.append(("%mlir_lib_dir", config.llvm_lib_dir))
config.substitutions.append(("%shlibext", ".so"))
config.substitutions.append(("%fuser_src", config.fuser_src_root))

# Optional tools are features: PTX assembly checks need ptxas.
ptxas = shutil.which("ptxas") or (
    "/usr/local/cuda/bin/ptxas"
    if os.path.exists("/usr/local/cuda/bin/ptxas") else None)
if ptxas:
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", ptxas))
cuda_include = "/usr/local/cuda/include"
if os.path.exists(os.path.join(cuda_include, "cuda.h")) and \
        os.path.exists("/usr/local/cuda/lib64/stubs/libcuda.so"):
    config.available_features.add("cuda-headers")
    config.substitutions.append(("%cuda_include", cuda_include))
    config.substitutions.append(("%cuda_stubs", "/usr/local/cuda/lib64/stubs"))
if os.path.exists(os.path.join(config.llvm_lib_dir, "libmlir_c_runner_utils.so")):
    config.available_features.add("mlir-runner")
