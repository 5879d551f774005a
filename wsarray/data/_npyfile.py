"""NumPy's .npy and .npz formats at the byte level: writing a batch's arrays, finding where each
array's header and data start in the file, parsing a header back.

.npz files are written uncompressed (ZIP_STORED, as ``numpy.savez`` does), so an array's bytes lie
contiguous in the file and can be read straight into a destination buffer. ``numpy.load`` reads
every file written here.
"""

import io
import os
import struct
import zipfile
import zlib

import numpy
from numpy.lib import format as npformat

_LOCAL_HEADER = struct.Struct("<4sHHHHHIIIHH")  # a zip local file header: 30 bytes
_LOCAL_SIGNATURE = b"PK\x03\x04"


def data_of(arr):
    """The array's bytes in file order (C, or Fortran when NumPy writes it Fortran-ordered), as a
    flat memoryview, and whether the file says fortran_order."""
    fortran = bool(arr.flags.f_contiguous and not arr.flags.c_contiguous)
    flat = arr.T if fortran else numpy.ascontiguousarray(arr)
    # A uint8 view, not memoryview(flat): datetime64 and timedelta64 arrays export no buffer.
    return memoryview(flat.reshape(-1).view(numpy.uint8)), fortran


def write_npy(path, arr):
    with open(path, "wb") as f:
        npformat.write_array(f, arr, allow_pickle=False)


def write_npz(path, named_arrays):
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as zf:
        for key, arr in named_arrays:
            with zf.open(key + ".npy", "w", force_zip64=True) as f:
                npformat.write_array(f, arr, allow_pickle=False)


def npz_member_starts(path):
    """{key: offset of the member's first byte (its .npy magic)} of an uncompressed .npz."""
    starts = {}
    with zipfile.ZipFile(path) as zf, open(path, "rb") as f:
        for info in zf.infolist():
            if info.compress_type != zipfile.ZIP_STORED:
                raise ValueError(f"member '{info.filename}' is compressed")
            f.seek(info.header_offset)
            fields = _LOCAL_HEADER.unpack(f.read(_LOCAL_HEADER.size))
            if fields[0] != _LOCAL_SIGNATURE:
                raise ValueError(f"member '{info.filename}' has no local header")
            name_length, extra_length = fields[-2], fields[-1]
            key = info.filename[:-4] if info.filename.endswith(".npy") else info.filename
            starts[key] = info.header_offset + _LOCAL_HEADER.size + name_length + extra_length
    return starts


def parse_header(raw):
    """(dtype, shape, fortran_order, header length) of the .npy header at the start of ``raw``."""
    f = io.BytesIO(raw)
    version = npformat.read_magic(f)
    if version not in ((1, 0), (2, 0)):
        raise ValueError(f"unsupported .npy format version {version[0]}.{version[1]}")
    read = npformat.read_array_header_1_0 if version == (1, 0) else npformat.read_array_header_2_0
    try:
        shape, fortran, dtype = read(f)
    except ValueError:
        raise
    except Exception as e:  # noqa: BLE001 - a damaged header dict fails in NumPy's tokenizer fallback
        raise ValueError(f"the header cannot be read ({type(e).__name__}: {e})") from None
    return dtype, shape, fortran, f.tell()


def header_at(path, start):
    """parse_header of the .npy data starting at byte ``start`` of ``path``."""
    with open(path, "rb") as f:
        f.seek(start)
        raw = f.read(65536 + 16)  # the longest header the 2.0 format writes in practice
    return parse_header(raw)


def nbytes_of(dtype, shape):
    """Bytes of an array of ``dtype`` and ``shape`` (a Python int: no overflow)."""
    n = dtype.itemsize
    for d in shape:
        n *= int(d)
    return n


def crc32(view):
    return zlib.crc32(view) & 0xFFFFFFFF


def read_exactly(fd, view, offset):
    """Read len(view) bytes at ``offset`` of ``fd`` into ``view``; returns the bytes read (fewer
    only at the end of the file)."""
    done = 0
    while done < len(view):
        n = os.preadv(fd, [view[done:]], offset + done)
        if n == 0:
            break
        done += n
    return done
