"""Per-call intermediates stay reserved between calls.

The runtime allocates a call's intermediates (split K's partial sums here)
from the device's default memory pool in stream order. With the driver's
default release threshold (0) the pool unmaps freed memory at every
synchronization and the next call maps it again; the runtime raises the
threshold (CudaDriver::keepPoolMemory) unless FUSER_WORKSPACE_CACHE_BYTES
caps it. Checked through libcuda directly, in subprocesses so that each
sees a fresh process's pool. Artifact: split_k_odd_bias_tanh
(scripts/build-mma-artifacts.sh).
"""

import os
import subprocess
import sys
import textwrap


SCRIPT = textwrap.dedent("""
    import ctypes, torch
    from gpu_util import load
    cuda = ctypes.CDLL("libcuda.so.1")
    assert cuda.cuInit(0) == 0
    def threshold():
        pool = ctypes.c_void_p()
        assert cuda.cuDeviceGetDefaultMemPool(ctypes.byref(pool), 0) == 0
        value = ctypes.c_uint64()
        # CU_MEMPOOL_ATTR_RELEASE_THRESHOLD = 4
        assert cuda.cuMemPoolGetAttribute(pool, 4, ctypes.byref(value)) == 0
        return value.value
    before = threshold()
    mod = load("split_k_odd_bias_tanh")
    x = torch.rand(200, 70004, device="cuda") - 0.5
    w = torch.rand(328, 70004, device="cuda") - 0.5
    b = torch.rand(328, device="cuda")
    out = mod.forward(x, w, b)
    torch.cuda.synchronize()
    assert torch.isfinite(out).all()
    print(before, threshold())
""")


def run(env_extra):
    env = dict(os.environ, **env_extra)
    env["PYTHONPATH"] = os.pathsep.join(
        [os.path.dirname(__file__), env.get("PYTHONPATH", "")])
    r = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    before, after = (int(v) for v in r.stdout.split()[-2:])
    print(f"[gpu tests] workspace pool {env_extra or 'default'}: release threshold "
          f"{before} -> {after}")
    return before, after, r.stderr


def test_pool_keeps_workspace_by_default():
    before, after, _ = run({})
    assert before == 0, "a fresh process's default pool releases at every sync"
    assert after == 2**64 - 1


def test_cache_bytes_caps_the_pool():
    assert run({"FUSER_WORKSPACE_CACHE_BYTES": str(1 << 30)})[1] == 1 << 30


def test_zero_leaves_the_pool():
    assert run({"FUSER_WORKSPACE_CACHE_BYTES": "0"})[:2] == (0, 0)


def test_garbage_is_reported_and_ignored():
    before, after, err = run({"FUSER_WORKSPACE_CACHE_BYTES": "lots"})
    assert "ignoring FUSER_WORKSPACE_CACHE_BYTES='lots'" in err
    assert after == 2**64 - 1
