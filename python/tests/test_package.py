"""The package's build backend (build_backend/hum_build.py): what `pip install ./python` and, from
the top of the repository, `pip install .` run. The wheel holds every module of hum/ and metadata
whose RECORD hashes match the files."""

import base64
import csv
import hashlib
import importlib.util
import io
import os
import subprocess
import sys
import zipfile

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..")


def backend():
    spec = importlib.util.spec_from_file_location("hum_build", os.path.join(ROOT, "build_backend", "hum_build.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_wheel(tmp_path):
    b = backend()
    assert b.get_requires_for_build_wheel() == []
    name = b.build_wheel(str(tmp_path))
    assert name == "hum-%s-py3-none-any.whl" % b.VERSION
    with zipfile.ZipFile(tmp_path / name) as z:
        names = set(z.namelist())
        modules = {"hum/" + f for f in os.listdir(os.path.join(ROOT, "hum")) if f.endswith(".py")}
        assert modules <= names and "hum/_capi.py" in modules
        info = "hum-%s.dist-info/" % b.VERSION
        assert {info + "METADATA", info + "WHEEL", info + "RECORD"} <= names
        assert "Name: hum" in z.read(info + "METADATA").decode()
        rows = list(csv.reader(io.StringIO(z.read(info + "RECORD").decode())))
        assert {r[0] for r in rows} == names
        for path, digest, size in rows:
            if path == info + "RECORD":
                continue
            data = z.read(path)
            want = "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            assert (digest, int(size)) == (want, len(data)), path


def test_metadata_directory(tmp_path):
    b = backend()
    d = b.prepare_metadata_for_build_wheel(str(tmp_path))
    assert sorted(os.listdir(tmp_path / d)) == ["METADATA", "WHEEL"]


def test_pip_builds_it_from_the_top_of_the_repository(tmp_path):
    """`pip install .` at the top builds the same wheel as the backend run here on python/."""
    if importlib.util.find_spec("pip") is None:
        pytest.skip("no pip")
    top = os.path.join(ROOT, "..")
    r = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index",
                        "-w", str(tmp_path / "top"), top], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    b = backend()
    name = b.build_wheel(str(tmp_path))
    with zipfile.ZipFile(tmp_path / "top" / name) as z, zipfile.ZipFile(tmp_path / name) as want:
        assert sorted(z.namelist()) == sorted(want.namelist())
        assert all(z.read(n) == want.read(n) for n in want.namelist())
