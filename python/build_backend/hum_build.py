"""The PEP 517 backend of the hum package: writes the wheel (pure Python: hum/*.py) with the
standard library alone, so `pip install ./python` needs no build dependency and works offline."""

import base64
import hashlib
import os
import zipfile

NAME, VERSION = "hum", "0.1.0"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DIST_INFO = "%s-%s.dist-info" % (NAME, VERSION)
TAG = "py3-none-any"

METADATA = """Metadata-Version: 2.1
Name: {name}
Version: {version}
Summary: Python binding of hum, the embeddable runtime for quantized LLM GEMMs (libhum)
Requires-Python: >=3.8
Provides-Extra: host
Requires-Dist: numpy; extra == "host"
Provides-Extra: test
Requires-Dist: numpy; extra == "test"
Requires-Dist: pytest; extra == "test"
""".format(name=NAME, version=VERSION)

WHEEL = "Wheel-Version: 1.0\nGenerator: hum_build\nRoot-Is-Purelib: true\nTag: %s\n" % TAG


def _files():
    package = os.path.join(ROOT, NAME)
    for entry in sorted(os.listdir(package)):
        if entry.endswith(".py"):
            with open(os.path.join(package, entry), "rb") as f:
                yield "%s/%s" % (NAME, entry), f.read()
    yield DIST_INFO + "/METADATA", METADATA.encode()
    yield DIST_INFO + "/WHEEL", WHEEL.encode()


def _record_line(path, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return "%s,sha256=%s,%d\n" % (path, digest, len(data))


def get_requires_for_build_wheel(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    info = os.path.join(metadata_directory, DIST_INFO)
    os.makedirs(info, exist_ok=True)
    for name, text in (("METADATA", METADATA), ("WHEEL", WHEEL)):
        with open(os.path.join(info, name), "w") as f:
            f.write(text)
    return DIST_INFO


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    name = "%s-%s-%s.whl" % (NAME, VERSION, TAG)
    record = ""
    with zipfile.ZipFile(os.path.join(wheel_directory, name), "w", zipfile.ZIP_DEFLATED) as z:
        for path, data in _files():
            z.writestr(path, data)
            record += _record_line(path, data)
        record += DIST_INFO + "/RECORD,,\n"
        z.writestr(DIST_INFO + "/RECORD", record)
    return name
