"""Manifest problems surface as FuserError with the runtime's message."""

import json

import pytest

import fuser
from fuser import _fuser_runtime as rt


def test_invalid_json(artifact):
    with pytest.raises(fuser.FuserError,
                       match=r"invalid manifest: JSON error at line 1, "
                             r"column 2: expected a string key"):
        rt.Module(artifact.ptx, "{,}")


def test_unknown_operator_names_the_path(artifact):
    doc = json.loads(artifact.manifest)
    doc["functions"][0]["launches"][1]["grid"][0] = "foo(1,2)"
    with pytest.raises(fuser.FuserError) as info:
        rt.Module(artifact.ptx, json.dumps(doc))
    assert str(info.value).startswith(
        "invalid manifest: functions[0].launches[1].grid[0]: unknown "
        "operator 'foo'")


def test_bad_dtype(artifact):
    doc = json.loads(artifact.manifest)
    doc["functions"][1]["args"][1]["dtype"] = "f8"
    with pytest.raises(fuser.FuserError,
                       match=r"functions\[1\]\.args\[1\]\.dtype: unknown "
                             r"dtype 'f8'"):
        rt.Module(artifact.ptx, json.dumps(doc))


def test_load_reports_manifest_errors(artifact):
    artifact.manifest = artifact.manifest.replace('"version": 1', '"version": 3')
    with pytest.raises(fuser.FuserError,
                       match="unsupported manifest version 3"):
        fuser.load(artifact)


def test_empty_image(artifact):
    with pytest.raises(fuser.FuserError, match="the module image is empty"):
        rt.Module(b"", artifact.manifest)
