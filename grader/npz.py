"""The arrays of an ``.npz`` (the recording: grader/oracle.py), read from the file's bytes at once.

``np.load`` and ``zipfile`` read an entry through Python objects of their own (a ``ZipInfo`` for each
of the directory's 9000 entries, a seek and a file object for each read, the ``.npy`` header parsed by
``ast.literal_eval``): reading the whole recording took about 0.3 CPU-s, paid by every warm worker
and every spare, and a grading paid about 30 us per answer. Here the file is read in one call, the zip
directory walked with ``struct`` (zip64 fields included, as ``np.savez`` writes them), and an entry
is its deflated bytes inflated by zlib, its CRC checked, its header read by a pattern: the same
arrays (tests/test_recording_reader.py compares every entry with ``np.load``'s) in about a fifth of
the time (benchmarks/startup.py).
"""

from __future__ import annotations

import io
import re
import struct
import zlib
from collections.abc import Iterator, Mapping
from pathlib import Path

import numpy as np

_HEADER = re.compile(rb"'descr':\s*'([^']+)',\s*'fortran_order':\s*(True|False),\s*'shape':\s*\(([^)]*)\)")
_END = b"PK\x05\x06"
_END64_LOCATOR = b"PK\x06\x07"
_ENTRY = struct.Struct("<4s6H3I5H2I")
"""A central directory entry: signature, 6 shorts (versions, flags, method, time, date), CRC and the
two sizes, 5 shorts (the lengths of name, extra field and comment, disk, internal attributes),
external attributes, the offset of its local header."""
_STORED, _DEFLATED = 0, 8
_FULL = 0xFFFFFFFF


class Npz(Mapping[str, np.ndarray]):
    """The arrays of an ``.npz`` by name (without ``.npy``), each read when asked. Raises ValueError for
    a file that is not a zip this reader knows (a method other than stored or deflated, a CRC that
    does not match: a damaged recording is reported, never used)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.data = memoryview(Path(path).read_bytes())
        self.entries = _directory(self.data)

    def stored(self, key: str) -> tuple[int, int, bytes]:
        """An entry as the zip holds it: its method, its CRC, its bytes (deflated or not). Two entries
        stored alike hold the same array: told without inflating either (grader/record.py)."""
        offset, size, crc, method = self.entries[key]
        data = self.data
        if bytes(data[offset : offset + 4]) != b"PK\x03\x04":
            raise ValueError(f"{key}: no local header where the zip directory says")
        name, extra = struct.unpack_from("<HH", data, offset + 26)
        start = offset + 30 + name + extra
        return method, crc, bytes(data[start : start + size])

    def __getitem__(self, key: str) -> np.ndarray:
        method, crc, raw = self.stored(key)
        if method == _DEFLATED:
            raw = zlib.decompress(raw, -15)
        elif method != _STORED:
            raise ValueError(f"{key}: compression method {method} (only stored and deflated are read)")
        if zlib.crc32(raw) != crc:
            raise ValueError(f"{key}: its CRC does not match (a damaged file)")
        return _array(key, raw)

    def __iter__(self) -> Iterator[str]:
        return iter(self.entries)

    def __len__(self) -> int:
        return len(self.entries)


def _directory(data: memoryview) -> dict[str, tuple[int, int, int, int]]:
    """Each entry's name: the offset of its local header, its compressed size, its CRC, its method."""
    end = bytes(data[-(22 + 0xFFFF) :]).rfind(_END)
    if end < 0:
        raise ValueError("not a zip file (no end of central directory)")
    end += max(0, len(data) - (22 + 0xFFFF))
    count, _, position = struct.unpack_from("<HIIH", data, end + 10)[:3]
    locator = end - 20
    if locator >= 0 and bytes(data[locator : locator + 4]) == _END64_LOCATOR:  # zip64: its end record holds them
        (record,) = struct.unpack_from("<Q", data, locator + 8)
        if bytes(data[record : record + 4]) != b"PK\x06\x06":
            raise ValueError("a zip64 end locator that points to no zip64 end record")
        (count,), (position,) = struct.unpack_from("<Q", data, record + 32), struct.unpack_from("<Q", data, record + 48)
    entries: dict[str, tuple[int, int, int, int]] = {}
    for _ in range(count):
        fields = _ENTRY.unpack_from(data, position)
        if fields[0] != b"PK\x01\x02":
            raise ValueError("a damaged zip directory")
        method, crc, size, full_size, name_length, extra_length, comment_length = (fields[4], *fields[7:13])
        offset = fields[16]
        name_end = position + 46 + name_length
        if _FULL in (size, full_size, offset):
            full_size, size, offset = _zip64(data[name_end : name_end + extra_length], full_size, size, offset)
        entries[bytes(data[position + 46 : name_end]).decode("utf-8").removesuffix(".npy")] = (
            offset,
            size,
            crc,
            method,
        )
        position = name_end + extra_length + comment_length
    return entries


def _zip64(extra: memoryview, full_size: int, size: int, offset: int) -> tuple[int, int, int]:
    """The sizes and offset a zip64 extra field holds for those the entry marks 0xFFFFFFFF, in its order."""
    at = 0
    while at + 4 <= len(extra):
        kind, length = struct.unpack_from("<HH", extra, at)
        if kind == 1:
            values = iter(struct.unpack_from(f"<{length // 8}Q", extra, at + 4))
            full_size = next(values) if full_size == _FULL else full_size
            size = next(values) if size == _FULL else size
            offset = next(values) if offset == _FULL else offset
            return full_size, size, offset
        at += 4 + length
    raise ValueError("a zip64 entry without its sizes")


def _array(key: str, data: bytes) -> np.ndarray:
    """An ``.npy``'s array, its header read by a pattern (NumPy's own reader for an unusual one)."""
    if data[:6] != b"\x93NUMPY":
        raise ValueError(f"{key} is not an array")
    size, start = (
        (int.from_bytes(data[8:10], "little"), 10) if data[6] == 1 else (int.from_bytes(data[8:12], "little"), 12)
    )
    header = _HEADER.search(data[start : start + size])
    if header is None:
        return np.lib.format.read_array(io.BytesIO(data), allow_pickle=False)
    shape = tuple(int(n) for n in header[3].split(b",") if n.strip())
    array = np.frombuffer(data, dtype=np.dtype(header[1].decode()), offset=start + size)
    return array.reshape(shape, order="F" if header[2] == b"True" else "C")
