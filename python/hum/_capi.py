"""libhum through ctypes: finds the library and builds its types, constants and functions from
the C declarations the library itself carries (hum_cdef(), hum/hum_tools.h: hum.h and
hum_tools.h preprocessed at build time, the text LuaJIT's ffi.cdef reads), so the binding's
view of every struct is the one of the library it loaded and cannot drift from it.

The C text is read by a small parser for the subset hum.h keeps to (hum.h's header comment:
plain C, constants as enums): typedef'd and anonymous enums whose values are integer
expressions, opaque and plain structs, fixed-size (nested) arrays, pointers, functions
(variadic ones too). Anything else raises ValueError naming the statement, so a header that
leaves the subset fails at import, in CI first (tests/test_cdef.py).
"""

import ast
import ctypes
import ctypes.util
import os
import re
import shutil
import subprocess

_SCALARS = {
    "void": None,
    "char": ctypes.c_char,
    "int": ctypes.c_int,
    "unsigned": ctypes.c_uint,
    "long": ctypes.c_long,
    "float": ctypes.c_float,
    "double": ctypes.c_double,
    "size_t": ctypes.c_size_t,
    "int8_t": ctypes.c_int8,
    "int16_t": ctypes.c_int16,
    "int32_t": ctypes.c_int32,
    "int64_t": ctypes.c_int64,
    "uint8_t": ctypes.c_uint8,
    "uint16_t": ctypes.c_uint16,
    "uint32_t": ctypes.c_uint32,
    "uint64_t": ctypes.c_uint64,
}

# A declarator after its base type: pointer stars (each maybe followed by const), the name (none
# in an unnamed parameter), array dimensions.
_DECLARATOR = re.compile(r"^((?:\*\s*(?:const\b\s*)?)*)([A-Za-z_]\w*)?\s*((?:\[\s*\w*\s*\]\s*)*)$")
_BASE = re.compile(r"^((?:(?:const|struct|enum|unsigned|signed|volatile)\s+)*[A-Za-z_]\w*)\s*(.*)$")
_INT_LITERAL = re.compile(r"\b(0[xX][0-9a-fA-F]+|\d+)[uUlL]+\b")
_EXPR_NODES = (ast.Expression, ast.BinOp, ast.UnaryOp, ast.Constant, ast.Name, ast.Load, ast.LShift, ast.RShift,
               ast.BitOr, ast.BitAnd, ast.BitXor, ast.Add, ast.Sub, ast.Mult, ast.USub, ast.UAdd, ast.Invert)


class Namespace:
    """What a C text declares: `types` (ctypes type of each type name), `constants` (enum
    values), `prototypes` ({function: (return type, [parameter types], variadic)}), `structs`
    (the names of the plain structs, in declaration order)."""

    def __init__(self):
        self.types = dict(_SCALARS)
        self.opaque = set()  # typedef'd incomplete structs: handles, passed as void *
        self.foreign = set()  # `struct X;` of another API (CUstream_st)
        self.enums = set()
        self.constants = {}
        self.prototypes = {}
        self.structs = []

    def base(self, text, what):
        """ctypes type of a base type spelling ("const char", "struct CUstream_st"); None for
        void, "opaque" for a handle type."""
        words = [w for w in text.split() if w not in ("const", "volatile", "signed")]
        if words[0] == "struct" or words[0] == "enum":
            name = words[1]
            if words[0] == "enum":
                return ctypes.c_int
            if name in self.foreign or name in self.opaque:
                return "opaque"
            if name in self.types:
                return self.types[name]
            raise ValueError("hum C text: %s: unknown struct %s" % (what, name))
        name = " ".join(words)
        if name == "unsigned int":
            name = "unsigned"
        if name in self.opaque:
            return "opaque"
        if name in self.enums:
            return ctypes.c_int
        if name not in self.types:
            raise ValueError("hum C text: %s: unknown type %s" % (what, name))
        return self.types[name]

    def declared(self, base, stars, dims, what, parameter=False):
        """ctypes type of `base` with `stars` pointer levels and array `dims` (a parameter's
        array decays to a pointer)."""
        t = self.base(base, what)
        if parameter and dims:
            stars, dims = stars + 1, dims[1:]
        if stars:
            if t == "opaque" or t is None:
                t = ctypes.c_void_p
            elif t is ctypes.c_char:
                t = ctypes.c_char_p
            else:
                t = ctypes.POINTER(t)
            for _ in range(stars - 1):
                t = ctypes.POINTER(t)
        elif t == "opaque":
            raise ValueError("hum C text: %s: an incomplete struct by value" % what)
        for n in reversed(dims):
            t = t * n
        return t

    def constant(self, text, what):
        text = _INT_LITERAL.sub(r"\1", text)
        try:
            tree = ast.parse(text.strip(), mode="eval")
        except SyntaxError:
            raise ValueError("hum C text: %s: cannot read %r" % (what, text)) from None
        for node in ast.walk(tree):
            if not isinstance(node, _EXPR_NODES) or (isinstance(node, ast.Constant) and type(node.value) is not int):
                raise ValueError("hum C text: %s: %r is not an integer constant expression" % (what, text))
            if isinstance(node, ast.Name) and node.id not in self.constants:
                raise ValueError("hum C text: %s: unknown constant %s" % (what, node.id))
        return eval(compile(tree, what, "eval"), {"__builtins__": {}}, dict(self.constants))


def _split(text, sep, opening="([{", closing=")]}"):
    """`text` cut at `sep` outside brackets, pieces stripped, empty ones dropped."""
    out, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in opening:
            depth += 1
        elif ch in closing:
            depth -= 1
        elif ch == sep and depth == 0:
            out.append(text[start:i].strip())
            start = i + 1
    out.append(text[start:].strip())
    return [s for s in out if s]


def _declaration(ns, text, what):
    """'const char *const *names' -> ('const char', [(stars, name, dims)]): the base type and
    each comma-separated declarator."""
    m = _BASE.match(text.strip())
    if not m:
        raise ValueError("hum C text: %s: cannot read %r" % (what, text))
    base, rest = m.group(1), m.group(2)
    if base.split()[-1] in ("const", "struct"):
        raise ValueError("hum C text: %s: cannot read %r" % (what, text))
    out = []
    for d in _split(rest, ",") or [""]:
        dm = _DECLARATOR.match(d)
        if not dm:
            raise ValueError("hum C text: %s: cannot read the declarator %r" % (what, d))
        dims = [ns.constant(x, what) for x in re.findall(r"\[\s*(\w+)\s*\]", dm.group(3))]
        out.append((dm.group(1).count("*"), dm.group(2), dims))
    return base, out


def _enum(ns, body, what):
    value = -1
    for item in _split(body, ","):
        name, _, expr = item.partition("=")
        name = name.strip()
        value = ns.constant(expr, "%s.%s" % (what, name)) if expr.strip() else value + 1
        ns.constants[name] = value


def parse(text):
    """The Namespace of a C text in hum.h's subset."""
    ns = Namespace()
    text = re.sub(r"/\*.*?\*/|//[^\n]*", " ", text, flags=re.S)
    for st in _split(text, ";", "{", "}"):
        st = " ".join(st.split())
        m = re.match(r"^(typedef )?enum (\w+ )?\{(.*)\}\s*(\w+)?$", st)
        if m:
            if bool(m.group(1)) != bool(m.group(4)):
                raise ValueError("hum C text: cannot read %r" % st)
            _enum(ns, m.group(3), m.group(4) or "enum")
            if m.group(4):
                ns.enums.add(m.group(4))
            continue
        m = re.match(r"^typedef struct (\w+) (\w+)$", st)
        if m:
            ns.opaque.add(m.group(2))
            continue
        m = re.match(r"^struct (\w+)$", st)
        if m:
            ns.foreign.add(m.group(1))
            continue
        m = re.match(r"^typedef struct (\w+ )?\{(.*)\}\s*(\w+)$", st)
        if m:
            name, fields = m.group(3), []
            for decl in _split(m.group(2), ";", "{", "}"):
                base, declarators = _declaration(ns, decl, name)
                for stars, field, dims in declarators:
                    fields.append((field, ns.declared(base, stars, dims, "%s.%s" % (name, field))))
            # __slots__: assigning a field the struct does not have raises instead of adding a
            # Python attribute that C never sees (a renamed field fails loudly)
            ns.types[name] = type(name, (ctypes.Structure,), {"_fields_": fields, "__slots__": ()})
            ns.structs.append(name)
            continue
        m = re.match(r"^typedef ([\w ]+?) (\w+)$", st)
        if m:
            ns.types[m.group(2)] = ns.declared(m.group(1), 0, [], m.group(2))
            continue
        m = re.match(r"^([^()]*?)\b(\w+)\s*\((.*)\)$", st)
        if not m or st.startswith("typedef "):
            raise ValueError("hum C text: cannot read %r" % st)
        name = m.group(2)
        rbase, ((rstars, _, _),) = _declaration(ns, m.group(1), name + " (return)")
        restype = ns.declared(rbase, rstars, [], name + " (return)")
        params, variadic = _split(m.group(3), ","), False
        if params == ["void"]:
            params = []
        if params and params[-1] == "...":
            params, variadic = params[:-1], True
        argtypes = []
        for i, p in enumerate(params):
            base, ((stars, _, dims),) = _declaration(ns, p, "%s parameter %d" % (name, i + 1))
            argtypes.append(ns.declared(base, stars, dims, "%s parameter %d" % (name, i + 1), parameter=True))
        ns.prototypes[name] = (restype, argtypes, variadic)
    return ns


class Functions(dict):
    """{name: ctypes function of the library}, bound on first use with the prototype's types.
    KeyError names a function the C text does not declare."""

    def __init__(self, lib, ns):
        super().__init__()
        self._lib, self._ns = lib, ns

    def __missing__(self, name):
        if name not in self._ns.prototypes:
            raise KeyError("hum: libhum declares no function %s (hum_cdef())" % name)
        restype, argtypes, variadic = self._ns.prototypes[name]
        f = getattr(self._lib, name)
        f.restype = restype
        if not variadic:
            f.argtypes = argtypes
        self[name] = f
        return f


def raw(lib, ns, name):
    """A second function object for `name` without argtypes, for hot paths: ctypes then converts
    nothing, so every pointer argument must already be a ctypes pointer object (c_void_p,
    byref(...)) or None, and every int32_t a Python int (which ctypes passes as a C int).
    Refused unless every parameter of the prototype is a pointer or an int32_t and it returns
    one (hum_status), so a change of the C signature fails here, at import."""
    restype, argtypes, variadic = ns.prototypes[name]
    kinds = (ctypes.c_void_p, ctypes.c_char_p, ctypes._Pointer, ctypes.c_int)
    if variadic or restype is not ctypes.c_int or not all(issubclass(t, kinds) for t in argtypes):
        raise ImportError("hum: %s is no longer a function of pointers and int32_t returning hum_status" % name)
    f = lib[name]  # indexing makes a new function object: F's, with argtypes, is left alone
    f.restype = ctypes.c_int
    return f, len(argtypes)


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


def library_cdef(lib):
    """The C text libhum carries (hum_cdef(), the one prototype declared here by hand)."""
    try:
        f = lib.hum_cdef
    except AttributeError:
        raise ImportError("hum: %s has no hum_cdef(): a libhum older than this package" % lib._name) from None
    f.restype, f.argtypes = ctypes.c_char_p, []
    text = f().decode()
    if not text:
        raise ImportError("hum: %s was built without its C declarations (include/hum_cdef.h)" % lib._name)
    return text


LIB = load_library()
CDEF = library_cdef(LIB)
NS = parse(CDEF)
T = NS.types
K = NS.constants
F = Functions(LIB, NS)
