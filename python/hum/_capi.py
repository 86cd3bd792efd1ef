"""libhum through ctypes: finds the library and builds every type and function of _cdef.CDEF.

The C text is read by a small parser for the subset hum.h uses (typedef'd enums with literal
values, opaque and plain structs, fixed-size arrays, pointers, functions), so the ctypes layout
comes from the same text that tests/test_cdef.py checks against the header.
"""

import ctypes
import ctypes.util
import os
import re
import shutil
import subprocess

from ._cdef import CDEF

_SCALARS = {
    "void": None,
    "char": ctypes.c_char,
    "float": ctypes.c_float,
    "double": ctypes.c_double,
    "size_t": ctypes.c_size_t,
    "int32_t": ctypes.c_int32,
    "int64_t": ctypes.c_int64,
    "uint8_t": ctypes.c_uint8,
    "uint32_t": ctypes.c_uint32,
    "uint64_t": ctypes.c_uint64,
}


class Namespace:
    """Types (`types`), enum constants (`constants`) and functions (`functions`) of a C text."""

    def __init__(self):
        self.types = dict(_SCALARS)
        self.opaque = set()
        self.enums = set()
        self.constants = {}
        self.prototypes = {}  # name -> (restype spelling, [(param type spelling)])

    def resolve(self, base, stars):
        """ctypes type of `base` with `stars` levels of pointer."""
        base = base.replace("const", "").split()
        if base[0] == "struct":  # a type of another API (CUstream_st): passed through as void *
            return ctypes.c_void_p if stars else None
        name = base[-1]
        if stars == 0:
            if name in self.enums:
                return ctypes.c_int
            return self.types[name]
        if name in self.opaque:
            t = ctypes.c_void_p
        elif name == "char":
            t = ctypes.c_char_p
        elif name == "void":
            t = ctypes.c_void_p
        else:
            t = ctypes.POINTER(ctypes.c_int if name in self.enums else self.types[name])
        for _ in range(stars - 1):
            t = ctypes.POINTER(t)
        return t


_DECLARATOR = re.compile(r"^(\**)\s*(?:const\s*)?(\**)\s*([A-Za-z_]\w*)?\s*(?:\[(\d+)\])?$")


def _split_type(text):
    """'const char *const *names' -> ('const char', 2, 'names')."""
    m = re.match(r"^((?:const\s+|struct\s+)*[A-Za-z_]\w*)\s*(.*)$", text.strip())
    base, rest = m.group(1), m.group(2)
    d = _DECLARATOR.match(rest.replace(" ", "") if rest else "")
    if not d:
        raise ValueError("hum._cdef: cannot read declarator %r" % text)
    return base, len(d.group(1)) + len(d.group(2)), d.group(3), d.group(4)


def _statements(text):
    depth, start = 0, 0
    for i, ch in enumerate(text):
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        elif ch == ";" and depth == 0:
            statement = " ".join(text[start:i].split())
            start = i + 1
            if statement:
                yield statement


def parse(text):
    ns = Namespace()
    for st in _statements(text):
        m = re.match(r"^typedef enum (\w+) \{(.*)\} (\w+)$", st)
        if m:
            ns.enums.add(m.group(3))
            for item in m.group(2).split(","):
                key, value = (s.strip() for s in item.split("="))
                ns.constants[key] = int(value)
            continue
        m = re.match(r"^typedef struct (\w+) (\w+)$", st)
        if m:
            ns.opaque.add(m.group(2))
            continue
        m = re.match(r"^typedef (\w+) (\w+)$", st)
        if m:
            ns.types[m.group(2)] = ns.types[m.group(1)]
            continue
        m = re.match(r"^typedef struct (\w+) \{(.*)\} (\w+)$", st)
        if m:
            fields = []
            for decl in _statements(m.group(2)):
                first, *more = decl.split(",")
                base, stars, name, count = _split_type(first)
                for d in [(stars, name, count)] + [_DECLARATOR.match(x.replace(" ", "")).group(1, 3, 4) for x in more]:
                    s, fname, n = d
                    s = s if isinstance(s, int) else len(s)
                    t = ns.resolve(base, s)
                    fields.append((fname, t * int(n) if n else t))
            ns.types[m.group(3)] = type(m.group(3), (ctypes.Structure,), {"_fields_": fields})
            continue
        m = re.match(r"^(.*?)\b(hum_\w+)\((.*)\)$", st)
        if not m:
            raise ValueError("hum._cdef: cannot read %r" % st)
        ret = m.group(1).strip()
        params = [] if m.group(3).strip() == "void" else [p.strip() for p in m.group(3).split(",")]
        ns.prototypes[m.group(2)] = (ret, params)
    return ns


def _candidates():
    env = os.environ.get("HUM_LIBRARY")
    if env:
        yield env
        return
    here = os.path.dirname(os.path.abspath(__file__))
    yield os.path.join(here, "libhum.so")  # a copy placed beside the package
    if shutil.which("pkg-config"):
        try:
            libdir = subprocess.run(["pkg-config", "--variable=libdir", "hum"], capture_output=True, text=True,
                                    timeout=10).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            libdir = ""
        if libdir:
            yield os.path.join(libdir, "libhum.so")
    found = ctypes.util.find_library("hum")
    if found:
        yield found


def load_library():
    tried = []
    for path in _candidates():
        if os.path.sep in path and not os.path.exists(path):
            tried.append(path + " (missing)")
            continue
        try:
            return ctypes.CDLL(path)
        except OSError as e:
            tried.append("%s (%s)" % (path, e))
    raise ImportError("hum: cannot find libhum.so; set HUM_LIBRARY to its path (e.g. build/runtime/libhum.so), or "
                      "install hum so that pkg-config finds it. Tried: " + ("; ".join(tried) or "nothing"))


def bind(lib, ns):
    """Sets restype/argtypes of every prototype on `lib`; returns {name: function}."""
    out = {}
    for name, (ret, params) in ns.prototypes.items():
        f = getattr(lib, name)
        base, stars, _, _ = _split_type(ret + " x")
        f.restype = ns.resolve(base, stars)
        args = []
        for p in params:
            base, stars, _, _ = _split_type(p)
            args.append(ns.resolve(base, stars))
        f.argtypes = args
        out[name] = f
    return out


NS = parse(CDEF)
T = NS.types
K = NS.constants
LIB = load_library()
F = bind(LIB, NS)
