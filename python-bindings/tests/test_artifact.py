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
