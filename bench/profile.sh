#!/usr/bin/env bash
# Profiles one kernel with Nsight Compute on the GPU machine (after
# bench/gpu-check.sh has built the bindings in build-gpu/).
#   usage: bench/profile.sh <artifact stem> [kernel regex]
set -uo pipefail
cd "$(dirname "$0")/.."
export PYTHONPATH=$PWD/build-gpu/python_packages FUSER_ARTIFACTS=$PWD/.artifacts
ncu --target-processes all -k "regex:${2:-matmul}" -c 1 \
  --section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis \
  --section WarpStateStats --section Occupancy --section LaunchStats --section SchedulerStats \
  --metrics l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,smsp__inst_executed_op_shared_ld.sum \
  python3 bench/profile_kernel.py "$1"
