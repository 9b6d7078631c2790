import json

import pytest

import fuser


def test_save_and_reload_round_trip(tmp_path, artifact):
    art = fuser.Artifact(ptx=artifact.ptx, manifest=artifact.manifest,
                         header="// header\n", cubin=b"\x7fELF\x00\x01")
    written = art.save(tmp_path / "out", "model")
    assert sorted(p.name for p in written.values()) == [
        "model.cubin", "model.h", "model.manifest.json", "model.ptx"]
    again = fuser.Artifact.from_dir(tmp_path / "out", "model")
    assert again == art
    assert again.function_names == ["scale_add", "matmul"]


def test_optional_files_are_optional(tmp_path, artifact):
    artifact.save(tmp_path, "m")
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "m.manifest.json", "m.ptx"]
    again = fuser.Artifact.from_dir(tmp_path, "m")
    assert again.header is None and again.cubin is None
    assert again == artifact


def test_from_files_missing_file(tmp_path):
    with pytest.raises(FileNotFoundError):
        fuser.Artifact.from_files(tmp_path / "x.ptx", tmp_path / "x.json")


def test_saved_artifact_loads(tmp_path, artifact):
    artifact.save(tmp_path, "m")
    mod = fuser.load(fuser.Artifact.from_files(tmp_path / "m.ptx",
                                               tmp_path / "m.manifest.json"))
    assert mod.function_names == ["scale_add", "matmul"]


def test_repr_summarizes(artifact):
    art = fuser.Artifact(ptx=artifact.ptx, manifest=artifact.manifest,
                         header="// header\n", cubin=b"\x7fELF\x00\x01")
    assert repr(art) == (
        "<fuser.Artifact sm_80; 2 kernels (scale, add_size); "
        "scale_add(x: f32[?]) -> f32[?]; "
        "matmul(x: f32[?, ?], w: f32[?, 4]) -> (f32[?, ?], bf16[?]); "
        f"ptx {len(artifact.ptx)} B, cubin 6 B, header 10 B>")
    assert str(art) == repr(art)
    assert ".entry" not in repr(art) and "header\n" not in repr(art)
    assert art.kernel_names == ["scale", "add_size"]


def test_repr_of_a_compiled_module_is_one_short_line():
    manifest = {
        "format": "fuser-manifest", "version": 1, "chip": "sm_90a",
        "functions": [{
            "name": "forward",
            "args": [{"name": "x", "dtype": "f32", "shape": ["?", 4096]},
                     {"name": "b", "dtype": "f32", "shape": [4096]}],
            "buffers": [{"id": 0, "kind": "arg", "arg": 0},
                        {"id": 1, "kind": "alloc", "dtype": "f32",
                         "shape": ["dim(0,0)", 4096]}],
            "results": [{"buffer": 1}],
            "launches": [{"kernel": "forward_pointwise"},
                         {"kernel": "forward_pointwise"}],
        }],
    }
    art = fuser.Artifact(ptx="//\n" * 100000, manifest=json.dumps(manifest),
                         remarks="remark: fused 7 elementwise op(s)\n")
    assert repr(art) == (
        "<fuser.Artifact sm_90a; 1 kernel (forward_pointwise); "
        "forward(x: f32[?, 4096], b: f32[4096]) -> f32[?, 4096]; "
        "ptx 300000 B, 1 remark line>")


def test_repr_kernels_from_ptx_entries_and_capped():
    ptx = "".join(f".visible .entry k{i}(\n  .param .u64 p)\n{{ ret; }}\n"
                  for i in range(10))
    art = fuser.Artifact(ptx=ptx, manifest='{"chip": "sm_80", "functions": []}')
    assert repr(art).startswith(
        "<fuser.Artifact sm_80; 10 kernels (k0, k1, k2, k3, k4, k5, k6, k7, "
        "+2 more); no functions; ptx ")


@pytest.mark.parametrize("manifest", [
    "", "{", "[]", '{"functions": 3}', '{"functions": [1, {"args": 2}]}',
    '{"functions": [{"name": "f", "args": [{"shape": 1}], "results": [{"buffer": [1]}],'
    ' "buffers": [{"id": {}}], "launches": [{"kernel": 7}]}]}',
])
def test_repr_never_fails_on_a_bad_manifest(manifest):
    text = repr(fuser.Artifact(ptx="", manifest=manifest, cubin=b"12"))
    assert text.startswith("<fuser.Artifact ") and text.endswith("cubin 2 B>")
