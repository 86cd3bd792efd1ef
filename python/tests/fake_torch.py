"""A stand-in for the part of torch's API the binding's forwards read (numpy arrays posing as
CUDA tensors of device 0), so that test_marshal.py checks on any machine what the binding hands
hum_layer_forward / hum_moe_forward: pointers, shapes, strides, dtypes and the stream."""

import numpy as np


class dtype:
    def __init__(self, name, np_type):
        self.name, self.np = name, np_type

    def __repr__(self):
        return "torch." + self.name


float16, bfloat16, float32 = dtype("float16", np.float16), dtype("bfloat16", np.uint16), dtype("float32", np.float32)
float8_e4m3fn, int8, uint8 = dtype("float8_e4m3fn", np.uint8), dtype("int8", np.int8), dtype("uint8", np.uint8)
int32, int64 = dtype("int32", np.int32), dtype("int64", np.int64)


class Size(tuple):
    def __getitem__(self, i):
        r = tuple.__getitem__(self, i)
        return Size(r) if isinstance(i, slice) else r

    def __add__(self, other):
        return Size(tuple(self) + tuple(other))


class device:
    def __init__(self, kind, index):
        self.type, self.index = kind, index

    def __repr__(self):
        return self.type if self.index is None else "%s:%d" % (self.type, self.index)


class Tensor:
    def __init__(self, array, dt, ordinal=0):
        self.arr, self.dtype, self._ordinal = array, dt, ordinal

    shape = property(lambda self: Size(self.arr.shape))
    device = property(lambda self: device("cuda", self._ordinal) if self._ordinal >= 0 else device("cpu", None))

    def get_device(self):
        return self._ordinal

    def stride(self, i=None):
        s = tuple(b // self.arr.itemsize for b in self.arr.strides)
        return s if i is None else s[i]

    def data_ptr(self):
        return self.arr.ctypes.data

    def dim(self):
        return self.arr.ndim

    def numel(self):
        return self.arr.size

    def reshape(self, *shape):
        return Tensor(self.arr.reshape(*shape), self.dtype, self._ordinal)

    def view(self, *shape):
        v = self.arr.view()
        v.shape = shape
        return Tensor(v, self.dtype, self._ordinal)

    def contiguous(self):
        return Tensor(np.ascontiguousarray(self.arr), self.dtype, self._ordinal)

    def new_empty(self, shape):
        return Tensor(np.empty(tuple(shape), self.dtype.np), self.dtype, self._ordinal)

    def record_stream(self, stream):
        pass

    def __getitem__(self, i):
        return Tensor(self.arr[i], self.dtype, self._ordinal)


def tensor(shape, dt=float16, ordinal=0):
    return Tensor(np.zeros(shape, dt.np), dt, ordinal)


def empty(shape, dtype, device=None):
    return tensor(tuple(shape), dtype)


def empty_like(t):
    return tensor(t.arr.shape, t.dtype, t._ordinal)


zeros_like, zeros = empty_like, empty


class _C:
    RAW_STREAM = 0x7F0000001230

    @staticmethod
    def _cuda_getCurrentRawStream(ordinal):
        return _C.RAW_STREAM + ordinal
