"""The binding's types come from the C text libhum carries (hum_cdef(), the build's hum_cdef.h):
here the parser's reading of that text is checked against the C compiler's (every struct's size
and field offsets, every enum constant), and every function and type the package uses against
the text, so a change of hum.h either flows into the binding or fails here."""

import ctypes
import os
import re
import shutil
import subprocess

import pytest

from hum import _capi

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE = os.path.join(HERE, "..", "hum")
EXAMPLES = os.path.join(HERE, "..", "..", "examples", "python")
CC = os.environ.get("CC", "cc")
needs_cc = pytest.mark.skipif(shutil.which(CC) is None, reason="needs a C compiler ($CC)")


def compile_and_run(tmp_path, body):
    """Runs a C program that sees the library's declarations; its stdout lines."""
    src, exe = tmp_path / "probe.c", tmp_path / "probe"
    src.write_text("#include <stddef.h>\n#include <stdint.h>\n#include <stdio.h>\n" + _capi.CDEF +
                   "\nint main(void) {\n" + body + "return 0; }\n")
    subprocess.run([CC, "-std=c11", "-w", str(src), "-o", str(exe)], check=True)
    return subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout.split("\n")[:-1]


@needs_cc
def test_struct_layouts_match_the_compiler(tmp_path):
    lines, expected = [], []
    for name in _capi.NS.structs:
        t = _capi.T[name]
        lines.append('printf("%%s %%zu\\n", "%s", sizeof(%s));' % (name, name))
        expected.append("%s %d" % (name, ctypes.sizeof(t)))
        for field, _ in t._fields_:
            lines.append('printf("%%s %%zu\\n", "%s.%s", offsetof(%s, %s));' % (name, field, name, field))
            expected.append("%s.%s %d" % (name, field, getattr(t, field).offset))
    assert len(_capi.NS.structs) >= 20  # hum_tensor, hum_standard_weight, hum_layer_info, ...
    assert compile_and_run(tmp_path, "\n".join(lines)) == expected


@needs_cc
def test_enum_constants_match_the_compiler(tmp_path):
    names = sorted(_capi.K)
    got = compile_and_run(tmp_path, "".join('printf("%%lld\\n", (long long)%s);\n' % n for n in names))
    assert [int(v) for v in got] == [_capi.K[n] for n in names]
    assert _capi.K["HUM_DTYPE_FLOAT8_E4M3FN"] == (1 << 28) | (3 << 24) | (3 << 16) | (4 << 8) | 8


def test_the_library_carries_its_builds_header():
    """Beside a build's libhum lies the hum_cdef.h it embedded: the same text."""
    lib = os.environ.get("HUM_LIBRARY")
    header = lib and os.path.join(os.path.dirname(lib), "hum_cdef.h")
    if not header or not os.path.exists(header):
        pytest.skip("no hum_cdef.h beside $HUM_LIBRARY")
    with open(header) as f:
        assert f.read() == _capi.CDEF


def sources():
    for folder in (PACKAGE, EXAMPLES):
        for entry in sorted(os.listdir(folder)):
            if entry.endswith(".py"):
                with open(os.path.join(folder, entry)) as f:
                    yield entry, f.read()


def test_every_name_the_package_uses_is_declared():
    used = {"F": set(), "T": set(), "K": set()}
    for _, text in sources():
        for table, name in re.findall(r"\b([FTK])\[\"(\w+)\"\]", text):
            used[table].add(name)
    assert used["F"] and used["T"] and used["K"]
    assert sorted(used["F"] - set(_capi.NS.prototypes)) == []
    assert sorted(used["T"] - set(_capi.T)) == []
    assert sorted(used["K"] - set(_capi.K)) == []
    for name in used["F"]:  # and libhum exports each one
        assert _capi.F[name] is not None


def test_a_field_hum_h_does_not_have_raises():
    o = _capi.T["hum_layer_options"]()
    o.activation_dtype = 7
    with pytest.raises(AttributeError):
        o.activation_dtyp = 7


def test_the_parser_refuses_what_it_cannot_read():
    with pytest.raises(ValueError, match="cannot read"):
        _capi.parse("typedef union u { int a; float b; } u;")
    with pytest.raises(ValueError, match="cannot read"):
        _capi.parse("typedef void (*hook)(int);")
    with pytest.raises(ValueError, match="unknown type wchar_t"):
        _capi.parse("typedef struct s { wchar_t c; } s;")
    with pytest.raises(ValueError, match="unknown constant B"):
        _capi.parse("enum { A = B + 1 };")
    with pytest.raises(KeyError, match="no function hum_not_a_function"):
        _capi.F["hum_not_a_function"]


def test_the_parser_reads_hum_hs_subset():
    ns = _capi.parse("""
        typedef enum e { E_A = 1 << 3, E_B, E_C = (E_A | 0x10u) } e;
        enum { N = 4 };
        struct foreign_st;
        typedef struct handle handle;
        typedef uint32_t code;
        typedef struct s { const char *name; int32_t a, *b; char grid[N][2]; e kind; handle *h; } s;
        const char *f(const s *x, struct foreign_st *stream, const char *const *names, const int64_t shape[3]);
        int32_t g(void);
        e h(int32_t status, const char *fmt, ...);
    """)
    assert ns.constants == {"E_A": 8, "E_B": 9, "E_C": 24, "N": 4}
    s = ns.types["s"]
    assert [f for f, _ in s._fields_] == ["name", "a", "b", "grid", "kind", "h"]
    assert s.grid.size == 8 and s.b.size == ctypes.sizeof(ctypes.c_void_p) and ns.types["code"] is ctypes.c_uint32
    restype, args, variadic = ns.prototypes["f"]
    assert restype is ctypes.c_char_p and not variadic
    assert args[1:] == [ctypes.c_void_p, ctypes.POINTER(ctypes.c_char_p), ctypes.POINTER(ctypes.c_int64)]
    assert ns.prototypes["g"] == (ctypes.c_int32, [], False)
    assert ns.prototypes["h"][2] is True
