"""grader/npz.py, the recording's reader: the same arrays as ``np.load``, whatever zip ``np.savez`` or
``zipfile`` wrote (deflated or stored, zip64 fields), and a damaged file reported, never used."""

from __future__ import annotations

import struct
import zipfile
from pathlib import Path

import numpy as np
import pytest

from autograd_drill.grader.npz import Npz
from autograd_drill.grader.oracle import RECORDING, OracleError, ReplayOracle


def same_as_np_load(path: Path) -> None:
    read = Npz(path)
    with np.load(path, allow_pickle=False) as expected:
        assert sorted(read) == sorted(expected.files)
        assert len(read) == len(expected.files)
        for key in expected.files:
            want, got = expected[key], read[key]
            assert (got.dtype, got.shape) == (want.dtype, want.shape), key
            assert np.array_equal(got, want, equal_nan=want.dtype.kind in "fc"), key


def test_every_answer_of_the_shipped_recording_reads_as_np_load_reads_it():
    same_as_np_load(RECORDING)


def arrays() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(26)
    return {
        "scalar": np.array(2.5),
        "matrix": rng.standard_normal((3, 4)),
        "fortran": np.asfortranarray(rng.standard_normal((2, 5))),
        "ints": np.arange(7, dtype=np.int64).reshape(7, 1),
        "empty": np.empty(0),
        "digest": np.array("0123456789abcdef"),
        "nan": np.array([np.nan, 1.0, -np.inf]),
        "test_x.py::test_y[case-1]#0|grad0": rng.standard_normal(6).astype(np.float32),
    }


@pytest.mark.parametrize("save", [np.savez, np.savez_compressed], ids=["stored", "deflated"])
def test_what_numpy_writes_reads_back_the_same(tmp_path: Path, save):
    path = tmp_path / "answers.npz"
    save(path, **arrays())
    same_as_np_load(path)


def test_a_zip64_directory_reads_back_the_same(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Sizes, offsets and the entry count in zip64 fields (as a recording past 4 GB or 65535 entries
    would have them): zipfile writes them so for any file once its limits are this low."""
    monkeypatch.setattr(zipfile, "ZIP64_LIMIT", 8)
    monkeypatch.setattr(zipfile, "ZIP_FILECOUNT_LIMIT", 2)
    path = tmp_path / "answers.npz"
    np.savez_compressed(path, **arrays())
    monkeypatch.undo()
    with zipfile.ZipFile(path) as written:  # the file really has them
        assert written.infolist()[-1].header_offset > 8
    data = bytearray(path.read_bytes())
    assert b"PK\x06\x06" in data  # the zip64 end record
    same_as_np_load(path)
    # and as a writer of a really large file leaves the old end record: each field "see zip64"
    struct.pack_into("<HHII", data, data.rindex(b"PK\x05\x06") + 8, 0xFFFF, 0xFFFF, 0xFFFFFFFF, 0xFFFFFFFF)
    path.write_bytes(bytes(data))
    same_as_np_load(path)


def test_a_damaged_answer_is_reported_not_used(tmp_path: Path):
    """One byte of an answer's data changed: its CRC no longer matches, and the replay oracle says the
    recording cannot be read (with the command that writes it anew) instead of answering with it."""
    path = tmp_path / "answers.npz"
    np.savez(path, matrix=np.arange(12.0).reshape(3, 4))
    data = bytearray(path.read_bytes())
    at = data.index(b"\x93NUMPY") + 200  # inside the stored array's bytes
    data[at] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(ValueError, match="CRC"):
        Npz(path)["matrix"]
    with pytest.raises(OracleError, match="cannot read the recorded oracle.*grader.record"):
        ReplayOracle(path, eager=True)


def test_a_file_that_is_not_a_zip_is_reported(tmp_path: Path):
    path = tmp_path / "answers.npz"
    path.write_bytes(b"not a zip at all" * 10)
    with pytest.raises(OracleError, match="cannot read the recorded oracle"):
        ReplayOracle(path)
