"""The binding's C text (hum/_cdef.py) against hum.h: every declaration must appear in the
preprocessed header as written, and every struct must have the size and field offsets the C
compiler gives it, so the ctypes view cannot drift from the library."""

import ctypes
import os
import re
import shutil
import subprocess

import pytest

from hum import _capi
from hum._cdef import CDEF

HERE = os.path.dirname(os.path.abspath(__file__))
INCLUDE = os.environ.get("HUM_INCLUDE_DIR", os.path.join(HERE, "..", "..", "runtime", "include"))
CC = os.environ.get("CC", "cc")

pytestmark = pytest.mark.skipif(shutil.which(CC) is None or not os.path.exists(os.path.join(INCLUDE, "hum", "hum.h")),
                                reason="needs a C compiler and hum.h (HUM_INCLUDE_DIR)")


def normalise(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"\s+", " ", text)
    return re.sub(r"\s*([{}();,*\[\]=])\s*", r"\1", text).strip()


def statements(text):
    out, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        depth += ch == "{"
        depth -= ch == "}"
        if ch == ";" and depth == 0:
            out.append(text[start:i + 1].strip())
            start = i + 1
    return [s for s in out if s != ";"]


def headers():
    """Every public header (hum.h and any header it is split into)."""
    folder = os.path.join(INCLUDE, "hum")
    return sorted(f for f in os.listdir(folder) if f.endswith(".h"))


def header_text():
    return "".join(subprocess.run([CC, "-E", "-P", "-DHUM_CDEF", "-I", INCLUDE, os.path.join(INCLUDE, "hum", h)],
                                  check=True, capture_output=True, text=True).stdout for h in headers())


def test_every_declaration_is_in_hum_h():
    header = normalise(header_text())
    missing = [s for s in statements(normalise(CDEF)) if s not in header]
    assert not missing, "declarations of hum/_cdef.py that hum.h no longer has as written:\n" + "\n".join(missing)


def test_struct_layouts_match_the_compiler(tmp_path):
    structs = {name: t for name, t in _capi.T.items() if isinstance(t, type) and issubclass(t, ctypes.Structure)}
    lines = ["#include <stddef.h>", "#include <stdio.h>"] + ["#include <hum/%s>" % h for h in headers()]
    lines.append("int main(void) {")
    expected = []
    for name, t in sorted(structs.items()):
        lines.append('printf("%%s %%zu\\n", "%s", sizeof(%s));' % (name, name))
        expected.append("%s %d" % (name, ctypes.sizeof(t)))
        for field, _ in t._fields_:
            lines.append('printf("%%s %%zu\\n", "%s.%s", offsetof(%s, %s));' % (name, field, name, field))
            expected.append("%s.%s %d" % (name, field, getattr(t, field).offset))
    lines.append("return 0; }")
    src, exe = tmp_path / "layout.c", tmp_path / "layout"
    src.write_text("\n".join(lines))
    subprocess.run([CC, "-std=c11", "-I", INCLUDE, str(src), "-o", str(exe)], check=True)
    got = subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout.split("\n")[:-1]
    assert got == expected


def test_enum_constants_match_the_compiler(tmp_path):
    names = sorted(_capi.K)
    src, exe = tmp_path / "enums.c", tmp_path / "enums"
    src.write_text("#include <stdio.h>\n" + "".join("#include <hum/%s>\n" % h for h in headers()) + "int main(void) {\n" +
                   "".join('printf("%%d\\n", (int)%s);\n' % n for n in names) + "return 0; }\n")
    subprocess.run([CC, "-std=c11", "-I", INCLUDE, str(src), "-o", str(exe)], check=True)
    got = subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout.split()
    assert [int(v) for v in got] == [_capi.K[n] for n in names]
