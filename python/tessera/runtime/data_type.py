"""DataType: a dtype string with its parts (``tvm.DataType("float32x4")``).

It is a ``str`` subclass, so it goes wherever a dtype string goes and
compares equal to its canonical spelling.
"""
from .. import _core


class DataTypeCode:
    INT = 0
    UINT = 1
    FLOAT = 2
    HANDLE = 3
    BFLOAT = 4


class DataType(str):
    """A parsed dtype: ``type_code``, ``bits``, ``lanes``. Raises ValueError for unknown spellings."""

    def __new__(cls, spelling):
        code, bits, lanes, canonical = _core._dtype_parse(str(spelling))
        obj = super().__new__(cls, canonical)
        obj.type_code, obj.bits, obj.lanes = code, bits, lanes
        return obj

    def with_lanes(self, lanes):
        base = str(self).split("x")[0]
        return DataType(base if lanes == 1 else f"{base}x{lanes}")

    @property
    def itemsize(self):
        if self.type_code == DataTypeCode.UINT and self.bits == 1:  # bool: a byte per lane
            return self.lanes
        return (self.bits * self.lanes + 7) // 8

    def __repr__(self):
        return f"DataType({str(self)!r})"


__all__ = ["DataType", "DataTypeCode"]
