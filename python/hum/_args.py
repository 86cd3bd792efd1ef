"""The binding's checks of Python arguments before they become C values: C strings end at a
NUL, so a NUL inside one would silently cut it ("a.st\\0x" opened a.st); ctypes wraps integers
to their C width (rank 2**32 + 2 was rank 2) and truncates floats."""

import numbers
import os


def text(value, what):
    """`value` (a str) as C text (UTF-8); TypeError for another type, ValueError for a NUL in it
    or a character UTF-8 cannot hold (a lone surrogate)."""
    if not isinstance(value, str):
        raise TypeError("%s must be a str, got %s" % (what, type(value).__name__))
    if "\0" in value:
        raise ValueError("%s %r holds a NUL character, where C would end it" % (what, value))
    try:
        return value.encode()
    except UnicodeEncodeError as e:
        raise ValueError("%s %r holds %r, which UTF-8 cannot encode" % (what, value, e.object[e.start:e.end])) \
            from None


def path(value, what):
    """`value` (a str, bytes or os.PathLike) as a C path; TypeError for another type,
    ValueError for a NUL in it or a character the file system's encoding cannot hold."""
    try:
        b = os.fsencode(value)
    except TypeError:
        raise TypeError("%s must be a path (str, bytes or os.PathLike), got %s" % (what, type(value).__name__)) \
            from None
    except UnicodeEncodeError as e:
        raise ValueError("%s %r holds %r, which the file system's encoding cannot encode"
                         % (what, value, e.object[e.start:e.end])) from None
    if b"\0" in b:
        raise ValueError("%s %r holds a NUL character, where C would end it" % (what, value))
    return b


def integer(value, what, low, high):
    """`value` (an integer, not a bool) checked to lie in low .. high; TypeError or ValueError."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError("%s must be an integer, got %s" % (what, type(value).__name__))
    v = int(value)
    if not low <= v <= high:
        raise ValueError("%s = %d: expected %d .. %d" % (what, v, low, high))
    return v
