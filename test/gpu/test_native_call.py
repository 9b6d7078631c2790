"""The native call path of compiled modules (loader.TorchCall): each
signature prepared once, dense copies of strided inputs, the current
stream, threads, and the general path's errors for what it does not take;
with each launcher: _fuser_torch's (PyTorch's C++ API) and
_fuser_runtime's (PyTorch's Python API). Packages from
scripts/build-torch-artifacts.py."""

import copy
import threading

import pytest
import torch

import fuser
import fuser.torch as ft
from gpu_util import ARTIFACTS

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "Inputs"))
import torch_models  # noqa: E402

TORCH_ARTIFACTS = ARTIFACTS / "torch"
if not (TORCH_ARTIFACTS / "index.json").exists():
    pytest.skip(f"{TORCH_ARTIFACTS} missing: run scripts/build-torch-artifacts.py",
                allow_module_level=True)

pytestmark = pytest.mark.usefixtures("fp32_reference", "launcher")
TOL = 1e-4


@pytest.fixture(params=["pytorch c++", "pytorch python"])
def launcher(request, monkeypatch):
    """Which launcher modules made in the test use."""
    import fuser.frameworks as frameworks
    if request.param == "pytorch c++":
        if frameworks._torch_native() is None:
            pytest.skip("_fuser_torch is not built for this PyTorch")
    else:
        monkeypatch.setattr(frameworks, "_TORCH_NATIVE", False)
    return request.param


def test_the_launcher_in_use(launcher):
    _, compiled = load("linear_leaky_dynamic")
    with torch.no_grad():
        compiled(torch.randn(2, 256, device="cuda"))
    module = type(compiled._fuser_launch._launcher).__module__
    assert module == ("fuser._fuser_torch" if launcher == "pytorch c++"
                      else "fuser._fuser_runtime")


def run_in_threads(work, n=4):
    """work(seed) in n threads at once; the first error any raised fails
    the test."""
    errors = []

    def guarded(seed):
        try:
            work(seed)
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=guarded, args=(s,)) for s in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[0]


def load(name, seed=5):
    model = torch_models.build(name, seed=seed, device="cuda")
    return model, ft.load(TORCH_ARTIFACTS / f"{name}.fuser",
                          module=copy.deepcopy(model))


def check(got, want, what):
    assert got.shape == want.shape and got.dtype == want.dtype, what
    err = float((got.double() - want.double()).abs().max()) if got.numel() else 0.0
    assert torch.allclose(got, want, atol=TOL, rtol=TOL), f"{what}: max abs error {err:.3e}"
    return err


def test_each_signature_is_prepared_once():
    model, compiled = load("linear_leaky_dynamic")
    with torch.no_grad():
        for batch in (3, 64, 3, 64, 64, 1):
            x = torch.randn(batch, 256, device="cuda")
            check(compiled(x), model(x), f"batch {batch}")
    assert compiled._fuser_launch._launcher.signatures == 3


def test_strided_input_gets_a_dense_copy():
    model, compiled = load("linear_leaky_dynamic")
    x = torch.randn(256, 40, device="cuda").t()  # (40, 256), not contiguous.
    assert not x.is_contiguous()
    with torch.no_grad():
        check(compiled(x), model(x), "transposed input")


def test_tuple_outputs_and_a_buffer():
    model, compiled = load("two_outputs_dynamic")
    x = torch.randn(9, 128, device="cuda")
    with torch.no_grad():
        got, want = compiled(x), model(x)
    assert isinstance(got, tuple) and len(got) == 2
    for i, (g, w) in enumerate(zip(got, want)):
        check(g, w, f"output {i}")


def test_current_stream():
    model, compiled = load("linear_leaky_dynamic")
    x = torch.randn(1024, 256, device="cuda")
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.no_grad(), torch.cuda.stream(s):
        y = compiled(x)
        z = y * 1  # Ordered after fuser's kernel on the same stream.
    s.synchronize()
    with torch.no_grad():
        check(z, model(x), "side stream")


def test_threads_share_a_module():
    model, compiled = load("linear_leaky_dynamic")

    def work(seed):
        g = torch.Generator(device="cuda").manual_seed(seed)
        with torch.no_grad():
            for i in range(50):
                x = torch.randn(1 + (seed * 7 + i) % 33, 256, device="cuda",
                                generator=g)
                check(compiled(x), model(x), f"thread {seed} call {i}")

    run_in_threads(work)


def test_what_the_native_path_does_not_take_gets_the_general_errors():
    _, compiled = load("linear_leaky_dynamic")
    with pytest.raises(fuser.FuserError, match="no compiled variant takes"):
        compiled(torch.randn(4, 256, device="cuda", dtype=torch.float64))
    with pytest.raises(fuser.FuserError, match="is on the CPU"):
        compiled(torch.randn(4, 256))
    with pytest.raises(fuser.FuserError, match="no compiled variant takes"):
        compiled(torch.randn(4, 255, device="cuda"))


def test_misaligned_input_runs_on_an_aligned_copy():
    """A dense view 4 bytes past an aligned address (the kernels' 16-byte
    vectors and TMA cannot take it): the call passes an aligned copy, the
    view itself unchanged (the runtime alone refuses it: unittests/Runtime)."""
    model, compiled = load("linear_leaky_dynamic")
    base = torch.randn(4 * 256 + 1, device="cuda")
    x = base[1:].view(4, 256)
    assert x.is_contiguous() and x.data_ptr() % 16 == 4
    before = base.clone()
    with torch.no_grad():
        torch.testing.assert_close(compiled(x), model(x), atol=1e-4, rtol=1e-4)
    assert torch.equal(base, before)


def load_host(name):
    model = torch_models.build_host(name, device="cuda")
    return model, ft.load(TORCH_ARTIFACTS / "host" / f"{name}.fuser",
                          module=copy.deepcopy(model))


@pytest.fixture
def graph_mode():
    """Sets fuser's CUDA graph mode for a test; restores it after."""
    saved = fuser.cuda_graphs()
    yield fuser.set_cuda_graphs
    fuser.set_cuda_graphs(saved)


@pytest.mark.parametrize("mode", ["off", "auto", "on"])
def test_graphs_replay_with_new_tensors(graph_mode, mode):
    # Five kernels with intermediates: a graph from the second call in
    # auto and on; new inputs and outputs at every call.
    graph_mode(mode)
    name = "linear_gelu_softmax_128x1024x512"
    model, compiled = load_host(name)
    shape = torch_models.HOST[name][2]
    errors = []
    with torch.no_grad():
        for _ in range(4):
            x = torch.randn(shape, device="cuda")
            errors.append(check(compiled(x), model(x), mode))
    assert compiled._fuser_launch._launcher.graphs == (0 if mode == "off" else 1)
    print(f"graphs {mode}: max abs error {max(errors):.2e} over 4 calls")


@pytest.mark.parametrize("mode", ["off", "auto", "on"])
def test_one_kernel_calls_take_graphs_only_when_on(graph_mode, mode):
    graph_mode(mode)
    model, compiled = load_host("sigmoid_16x16384")
    with torch.no_grad():
        for calls in range(1, 4):
            x = torch.randn(16, 16384, device="cuda")
            check(compiled(x), model(x), "sigmoid")
            # From the second call of the signature.
            graphs = compiled._fuser_launch._launcher.graphs
            assert graphs == (1 if mode == "on" and calls >= 2 else 0)


def test_a_captured_call_replays_with_the_capture(graph_mode):
    # Under torch.cuda.graph the kernels are captured one by one (a graph
    # launched inside the capture would not follow its static input).
    graph_mode("on")
    name = "linear_gelu_softmax_128x1024x512"
    model, compiled = load_host(name)
    shape = torch_models.HOST[name][2]
    static_x = torch.randn(shape, device="cuda")
    with torch.no_grad():
        for _ in range(3):  # Warm up off the capture, graphs built.
            compiled(static_x)
        stream = torch.cuda.Stream()
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream):
            compiled(static_x)
        torch.cuda.current_stream().wait_stream(stream)
        captured = torch.cuda.CUDAGraph()
        with torch.cuda.graph(captured):
            static_y = compiled(static_x)
        for _ in range(2):
            static_x.copy_(torch.randn(shape, device="cuda"))
            captured.replay()
            check(static_y, model(static_x), "replayed capture")


def test_threads_and_streams_share_a_graph(graph_mode):
    # Four threads, each on its own stream, replay one signature's graph:
    # its launches run one after another on the GPU, so the intermediates
    # it owns are never shared by two calls in flight.
    graph_mode("on")
    name = "linear_gelu_softmax_128x1024x512"
    model, compiled = load_host(name)
    shape = torch_models.HOST[name][2]

    def work(seed):
        g = torch.Generator(device="cuda").manual_seed(seed)
        stream = torch.cuda.Stream()
        with torch.no_grad(), torch.cuda.stream(stream):
            for i in range(30):
                x = torch.randn(shape, device="cuda", generator=g)
                check(compiled(x), model(x), f"thread {seed} call {i}")
        stream.synchronize()

    run_in_threads(work)
    assert compiled._fuser_launch._launcher.graphs == 1
