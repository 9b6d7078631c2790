"""fuser.compile through fuser-opt and fuser-translate (CPU only: PTX needs
no GPU). Tests that compile skip when the tools are not built."""

import json
import os

import pytest

import fuser
from fuser import compiler


def _tools():
    try:
        return compiler.find_tools()
    except fuser.FuserError:
        return None


TOOLS = _tools()
needs_tools = pytest.mark.skipif(
    TOOLS is None, reason="fuser-opt/fuser-translate not built or not found")

POINTWISE = """
func.func @scale(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %x, %c0 : tensor<?x?xf32>
  %c = tensor.dim %x, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%n, %c) : tensor<?x?xf32>
  %m = linalg.mul ins(%x, %x : tensor<?x?xf32>, tensor<?x?xf32>)
                  outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %r = linalg.exp ins(%m : tensor<?x?xf32>)
                  outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
"""


@needs_tools
def test_compile_dynamic_pointwise():
    art = fuser.compile(POINTWISE, chip="sm_90a")
    # Two ops fuse into one kernel.
    assert art.ptx.count(".entry") == 1
    assert ".target sm_90a" in art.ptx
    manifest = json.loads(art.manifest)
    assert manifest["chip"] == "sm_90a"
    assert [f["name"] for f in manifest["functions"]] == ["scale"]
    assert manifest["functions"][0]["args"][0]["shape"] == ["?", "?"]
    assert "static inline CUresult fuser_scale(CUstream stream" in art.header
    assert art.cubin is None
    assert art.remarks == ""
    # print(art) summarizes instead of dumping the PTX and the header.
    assert repr(art) == (
        "<fuser.Artifact sm_90a; 1 kernel (scale_pointwise); "
        "scale(arg0: f32[?, ?]) -> f32[?, ?]; "
        f"ptx {len(art.ptx)} B, header {len(art.header)} B>")


@needs_tools
def test_path_input(tmp_path):
    src = tmp_path / "model.mlir"
    src.write_text(POINTWISE)
    by_path = fuser.compile(src)
    by_name = fuser.compile(str(src))
    assert by_path.function_names == by_name.function_names == ["scale"]
    assert by_path.ptx == by_name.ptx


@needs_tools
def test_report_returns_remarks():
    art = fuser.compile(POINTWISE, report=True)
    assert "remark: fused 2 elementwise op(s) into one pointwise group" in (
        art.remarks)


@needs_tools
def test_extra_pipeline_options():
    # Unfused, each op is its own kernel.
    art = fuser.compile(POINTWISE, options={"fuse": False, "opt-level": 2})
    assert art.ptx.count(".entry") == 2


@needs_tools
def test_invalid_mlir_reports_the_parse_error():
    with pytest.raises(fuser.FuserError) as info:
        fuser.compile("func.func @f(%x: tensor<?xf32>) -> {")
    message = str(info.value)
    assert message.startswith("fuser-opt failed (exit status 1):\n<input>:1:")
    assert "error: expected non-function type" in message
    assert "command: " in message and "--fuser-gpu-pipeline=" in message


@needs_tools
def test_unsupported_chip():
    with pytest.raises(fuser.FuserError,
                       match="fuser-gpu-pipeline: unsupported chip 'gfx90a'"):
        fuser.compile(POINTWISE, chip="gfx90a")


@needs_tools
def test_nothing_to_compile():
    with pytest.raises(fuser.FuserError,
                       match="error: nothing to compile: the module has no "
                             "public function with a body"):
        fuser.compile("func.func private @helper(%x: tensor<4xf32>)")


@needs_tools
def test_unsupported_op_names_the_source_line():
    src = """
func.func @softmax(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.softmax dimension(1) ins(%x : tensor<4x8xf32>)
                                  outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}
"""
    with pytest.raises(fuser.FuserError,
                       match=r"<input>:4:8: error: 'linalg.softmax' is not "
                             r"supported"):
        fuser.compile(src)


def test_bad_arguments_are_value_errors():
    with pytest.raises(ValueError, match="format must be one of ptx, cubin"):
        fuser.compile(POINTWISE, format="elf")
    with pytest.raises(ValueError, match="pass 'chip' as compile"):
        fuser.compile(POINTWISE, options={"chip": "sm_80"})
    with pytest.raises(ValueError, match="holds spaces"):
        fuser.compile(POINTWISE, options={"cuda-path": "/opt/my cuda"})
    with pytest.raises(TypeError, match="expects MLIR text or a path"):
        fuser.compile(b"func.func @f() { return }")


def test_missing_tools_with_fuser_tools_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("FUSER_TOOLS_DIR", str(tmp_path))
    monkeypatch.setenv("PATH", "")
    with pytest.raises(fuser.FuserError) as info:
        fuser.compile(POINTWISE)
    assert str(info.value) == (
        "fuser.compile needs fuser-opt and fuser-translate, which were not "
        f"found (searched: FUSER_TOOLS_DIR={tmp_path}). fuser was built "
        "without the compiler (FUSER_ENABLE_COMPILER=OFF) or its tools are "
        "elsewhere: set FUSER_TOOLS_DIR to the directory holding them "
        "(<build>/bin), or compile on a machine with MLIR and load the "
        "artifact here")


def test_missing_tools_without_a_build_location(monkeypatch):
    monkeypatch.delenv("FUSER_TOOLS_DIR", raising=False)
    monkeypatch.setattr(compiler, "_build_tools_dir", lambda: None)
    monkeypatch.setenv("PATH", "")
    with pytest.raises(fuser.FuserError,
                       match=r"\(searched: PATH\)\. fuser was built without "
                             r"the compiler \(FUSER_ENABLE_COMPILER=OFF\)"):
        fuser.compile(POINTWISE)


def test_build_location_is_searched_before_path(tmp_path, monkeypatch):
    monkeypatch.delenv("FUSER_TOOLS_DIR", raising=False)
    monkeypatch.setattr(compiler, "_build_tools_dir", lambda: str(tmp_path))
    monkeypatch.setenv("PATH", "")
    with pytest.raises(fuser.FuserError,
                       match=f"searched: the build directory {tmp_path}, "
                             "PATH"):
        compiler.find_tools()
    for tool in ("fuser-opt", "fuser-translate"):
        (tmp_path / tool).write_text("#!/bin/sh\n")
        (tmp_path / tool).chmod(0o755)
    assert compiler.find_tools() == (str(tmp_path / "fuser-opt"),
                                     str(tmp_path / "fuser-translate"))


@needs_tools
def test_tools_on_path(monkeypatch):
    monkeypatch.delenv("FUSER_TOOLS_DIR", raising=False)
    monkeypatch.setattr(compiler, "_build_tools_dir", lambda: None)
    monkeypatch.setenv("PATH", os.path.dirname(TOOLS[0]))
    assert compiler.find_tools() == TOOLS
    assert fuser.compile(POINTWISE).function_names == ["scale"]


@needs_tools
def test_failing_translation_reports_its_command(tmp_path, monkeypatch):
    # A fuser-translate that always fails, next to the real fuser-opt.
    os.symlink(TOOLS[0], tmp_path / "fuser-opt")
    fake = tmp_path / "fuser-translate"
    fake.write_text("#!/bin/sh\necho 'error: out of disk' >&2\nexit 3\n")
    fake.chmod(0o755)
    monkeypatch.setenv("FUSER_TOOLS_DIR", str(tmp_path))
    with pytest.raises(fuser.FuserError) as info:
        fuser.compile(POINTWISE)
    message = str(info.value)
    assert message.startswith(
        "fuser-translate failed (exit status 3):\nerror: out of disk\n"
        "command: ")
    assert "--fuser-to-ptx" in message


@needs_tools
def test_translation_errors_point_at_the_source():
    # fuser-translate reads the lowered module; debug locations carry the
    # source lines through.
    src = ("func.func @ident(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
           "  return %x : tensor<4xf32>\n"
           "}\n")
    with pytest.raises(fuser.FuserError) as info:
        fuser.compile(src)
    assert str(info.value).startswith(
        "fuser-translate failed (exit status 1):\n<input>:2:3: error: result "
        "#0 is an argument returned unchanged")
