"""Pre-saved minibatches: ``save_batches`` writes them, ``BatchDirectory`` reads them back.

Deeplearning4j's ExistingMiniBatchDataSetIterator. Each batch is one file in NumPy's own format
(a lone array as .npy, a structure as an uncompressed .npz), so NumPy reads them too, and an index
(``index.json``) records each file's structure, arrays, byte offsets, sizes and CRC-32 checksums.
Only the files of the index count. Reading allocates each array in the current scope and reads
the file's bytes straight into it with one ``preadv`` (no intermediate buffer): iterated by
``AsyncIterator``, the bytes land in the batch's workspace slot on the producer thread. A missing,
truncated or corrupted file, or one whose dtype or shape differ from the index, raises
``BatchFileError`` naming the file and the cause; the iterator stays usable for the good files.
"""

from __future__ import annotations

import collections
import json
import os
import stat
import warnings
from collections.abc import Iterable, Iterator
from os import PathLike
from typing import Any, Literal

import numpy

from .._native import Array
from .._array_api.creation import asarray as _wsarray_asarray
from .._array_api.creation import empty as _wsarray_empty
from . import _npyfile

__all__ = ["BatchDirectory", "BatchFileError", "save_batches"]

INDEX = "index.json"
FORMAT = "wsarray.data.batches"
VERSION = 1
_MAX_HEADER = 65536 + 16  # the longest .npy header NumPy writes (format 2.0 allows more, never written)


class BatchFileError(ValueError):
    """A batch file that cannot be read as its index says (``path``, ``batch``: its position)."""

    def __init__(self, message: str, path: str, batch: int) -> None:
        super().__init__(message)
        self.path = path
        self.batch = batch


# -- writing ----------------------------------------------------------------------------------

def save_batches(batches: Iterable[Any], directory: str | PathLike[str], *, overwrite: bool = False) -> int:
    """Write every batch of ``batches`` to ``directory``, one NumPy file each, plus an index.

    A batch is an array (wsarray or NumPy) or a tuple, named tuple, list or dict (str keys) of
    batches; None, bools, ints, floats and strings in it are kept in the index. A lone array is
    written as ``batch_000000.npy``, a structure as ``batch_000000.npz`` whose members are named
    ``arr_0, arr_1, ...`` (a top-level tuple or list, as ``numpy.savez`` names them) or by the dict
    keys, nested levels joined by ``/``. ``overwrite=True`` replaces the batches of an existing
    index (other files are left alone). Returns the number of batches written; the index is
    written last, so an interrupted run leaves no index.
    """
    fn = "wsarray.data.save_batches()"
    directory = os.fspath(directory)
    os.makedirs(directory, exist_ok=True)
    index_path = os.path.join(directory, INDEX)
    if os.path.exists(index_path):
        if not overwrite:
            raise FileExistsError(f"{fn}: '{index_path}' exists; pass overwrite=True to replace "
                                  "those batches")
        _remove_indexed_files(directory, index_path)
    entries = []
    for number, batch in enumerate(batches):
        arrays = []
        structure = _encode(batch, arrays, {}, (), fn)
        stem = os.path.join(directory, f"batch_{number:06d}")
        if structure == {"array": 0}:
            entries.append(_write_single(stem + ".npy", arrays[0][1]))
        else:
            entries.append(_write_structure(stem + ".npz", arrays))
        entries[-1]["structure"] = structure
    tmp = index_path + ".tmp"
    with open(tmp, "w") as f:
        json.dump({"format": FORMAT, "version": VERSION, "batches": entries}, f)
    os.replace(tmp, index_path)
    return len(entries)


def _remove_indexed_files(directory, index_path):
    try:
        with open(index_path) as f:
            old = json.load(f)
        files = [e["file"] for e in old["batches"]]
    except (OSError, ValueError, KeyError, TypeError):
        files = []  # an unreadable index: its files cannot be known; they are overwritten by name
    for name in files:
        if isinstance(name, str) and os.path.basename(name) == name:
            try:
                os.remove(os.path.join(directory, name))
            except FileNotFoundError:
                pass
    os.remove(index_path)


def _encode(node, arrays, seen, path, fn):
    """The index's description of ``node``; its arrays go to ``arrays`` as (key, ndarray)."""
    where = "the batch" if not path else "the batch's item " + "".join(f"[{p!r}]" for p in path)
    if isinstance(node, (Array, numpy.ndarray)):
        if id(node) in seen:
            return {"array": seen[id(node)]}
        if type(node) not in (Array, numpy.ndarray):  # its metadata (a mask, a matrix's kind) has no place here
            raise TypeError(f"{fn}: {where} is a {type(node).__module__}.{type(node).__name__}; only plain "
                            "arrays can be saved (convert it, e.g. x.filled() for a masked array, numpy.asarray "
                            "for a matrix)")
        arr = numpy.asarray(node)
        if arr.dtype.hasobject or arr.dtype.names is not None:
            raise TypeError(f"{fn}: {where} has dtype {arr.dtype}; only plain (not object or "
                            "structured) dtypes can be saved")
        seen[id(node)] = len(arrays)
        key = "/".join(str(p) if k else (f"arr_{p}" if isinstance(p, int) else p)
                       for k, p in enumerate(path)) or "arr_0"
        arrays.append((key, arr, node))  # node kept alive: its id stays unique while saving
        return {"array": len(arrays) - 1}
    if isinstance(node, tuple) and hasattr(node, "_fields"):
        return {"namedtuple": type(node).__name__, "fields": list(node._fields),
                "items": [_encode(v, arrays, seen, path + (i,), fn) for i, v in enumerate(node)]}
    if isinstance(node, (tuple, list)):
        kind = "tuple" if isinstance(node, tuple) else "list"
        return {kind: [_encode(v, arrays, seen, path + (i,), fn) for i, v in enumerate(node)]}
    if isinstance(node, dict):
        for k in node:
            if not isinstance(k, str) or not k or "/" in k:
                raise TypeError(f"{fn}: {where} has the key {k!r}; dict keys must be non-empty str "
                                "without '/' (they name the .npz members)")
        return {"dict": [[k, _encode(v, arrays, seen, path + (k,), fn)] for k, v in node.items()]}
    if node is None or isinstance(node, (bool, int, float, str)):
        return {"value": node}
    raise TypeError(f"{fn}: {where} is a {type(node).__name__}; a batch holds arrays, tuples, "
                    "lists, dicts, None, bools, ints, floats and strs")


def _layout(path, key, start, arr):
    dtype, shape, fortran, header_length = _npyfile.header_at(path, start)
    data, _ = _npyfile.data_of(arr)
    return {"key": key, "dtype": dtype.str, "shape": list(shape), "fortran_order": fortran,
            "header_offset": start, "offset": start + header_length, "nbytes": len(data),
            "crc32": _npyfile.crc32(data)}


def _write_single(path, arr):
    _npyfile.write_npy(path, arr)
    return {"file": os.path.basename(path), "bytes": os.path.getsize(path),
            "arrays": [_layout(path, "arr_0", 0, arr)]}


def _write_structure(path, arrays):
    _npyfile.write_npz(path, [(key, arr) for key, arr, _ in arrays])
    starts = _npyfile.npz_member_starts(path)
    return {"file": os.path.basename(path), "bytes": os.path.getsize(path),
            "arrays": [_layout(path, key, starts[key], arr) for key, arr, _ in arrays]}


# -- reading ----------------------------------------------------------------------------------

class BatchDirectory:
    """The batches ``save_batches`` wrote to ``directory``, read back in order (re-iterable).

    ``BatchDirectory(directory, *, mmap=False, verify=True, on_error="raise", shuffle=False,
    seed=None)``

    Each array is allocated in the current scope (the batch's slot under ``AsyncIterator``, the
    open workspace of the caller, or plain memory) and the file's bytes are read into it with one
    read. ``mmap=True`` maps the files instead (read-only wsarray views of the mapping, no read
    now; under ``AsyncIterator`` they are copied into the slot). ``verify`` checks each array's
    CRC-32 (about 2.5 GB/s here). ``on_error``: ``"raise"`` raises ``BatchFileError`` for a bad
    file, and iterating goes on with the next file; ``"skip"`` warns and skips it; ``"stop"`` warns
    and ends the epoch. ``shuffle`` visits the batches in a new random order every epoch
    (``seed`` for a reproducible sequence). ``len()`` is the number of batches; ``bd[i]`` reads
    batch i.
    """

    # Its next() allocates the batch's arrays and nothing else: AsyncIterator runs it in the
    # batch's slot, so the file's bytes are read straight into the slot.
    allocates_batch_only = True

    def __init__(self, directory: str | PathLike[str], *, mmap: bool = False, verify: bool = True,
                 on_error: Literal["raise", "skip", "stop"] = "raise", shuffle: bool = False,
                 seed: int | None = None) -> None:
        fn = "wsarray.data.BatchDirectory()"
        if on_error not in ("raise", "skip", "stop"):
            raise ValueError(f"{fn}: on_error must be 'raise', 'skip' or 'stop', got {on_error!r}")
        self.directory = os.fspath(directory)
        if not os.path.exists(self.directory):
            raise FileNotFoundError(f"{fn}: directory '{self.directory}' does not exist")
        if not os.path.isdir(self.directory):
            raise NotADirectoryError(f"{fn}: '{self.directory}' is not a directory")
        self.index_path = os.path.join(self.directory, INDEX)
        self._batches = _read_index(self.index_path, fn)
        self.mmap, self.verify, self.on_error, self.shuffle = bool(mmap), bool(verify), on_error, shuffle
        self._rng = numpy.random.default_rng(seed)

    def __len__(self) -> int:
        return len(self._batches)

    @property
    def files(self) -> list[str]:
        """Paths of the batch files, in index order."""
        return [os.path.join(self.directory, e["file"]) for e in self._batches]

    def __iter__(self) -> Iterator[Any]:
        order = self._rng.permutation(len(self)) if self.shuffle else range(len(self))
        return _Reader(self, [int(i) for i in order])

    def __getitem__(self, i: int) -> Any:
        n = len(self)
        if not isinstance(i, int) or isinstance(i, bool):
            raise TypeError(f"wsarray.data.BatchDirectory: batch indices are ints, not {type(i).__name__}")
        if not -n <= i < n:
            raise IndexError(f"wsarray.data.BatchDirectory: batch {i} out of range ({n} batches)")
        return self.read(i % n)

    def read(self, i: int) -> Any:
        """Batch ``i`` (0-based, index order), read into the current scope."""
        entry = self._batches[i]
        path = os.path.join(self.directory, entry["file"])

        def fail(cause):
            return BatchFileError(f"wsarray.data.BatchDirectory: batch {i} ('{path}'): {cause}", path, i)

        try:
            fd = os.open(path, os.O_RDONLY)
        except FileNotFoundError as e:
            raise fail("the file is missing") from e
        except OSError as e:
            raise fail(f"cannot open the file ({e.strerror})") from e
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                raise fail("it is not a regular file" + (" but a directory" if stat.S_ISDIR(info.st_mode) else ""))
            if info.st_size < entry["bytes"]:
                raise fail(f"the file is truncated: {info.st_size} bytes, the index says {entry['bytes']}")
            arrays = [self._read_array(fd, path, spec, fail, info.st_size) for spec in entry["arrays"]]
            return _decode(entry["structure"], arrays)
        except BatchFileError:
            raise
        except (OSError, MemoryError, ValueError, TypeError, KeyError, IndexError, OverflowError) as e:
            # Any other damage (a read error, an index entry that names no array): this batch's.
            raise fail(f"{type(e).__name__}: {e}" if str(e) else type(e).__name__) from e
        finally:
            os.close(fd)

    def _read_array(self, fd, path, spec, fail, file_size):
        key = spec["key"]
        # The index's numbers are checked against the file before anything is allocated by them.
        header_bytes = spec["offset"] - spec["header_offset"]
        if header_bytes > _MAX_HEADER:
            raise fail(f"the index puts array '{key}''s .npy header at {header_bytes} bytes; a header "
                       f"has at most {_MAX_HEADER}")
        if spec["offset"] + spec["nbytes"] > file_size:
            raise fail(f"the index puts array '{key}' at bytes {spec['offset']}..{spec['offset'] + spec['nbytes']}, "
                       f"beyond the file's {file_size}")
        raw = os.pread(fd, header_bytes, spec["header_offset"])
        try:
            dtype, shape, fortran, _ = _npyfile.parse_header(raw)
        except ValueError as e:
            raise fail(f"the .npy header of array '{key}' is damaged ({e})") from e
        want = (numpy.dtype(spec["dtype"]), tuple(spec["shape"]), spec["fortran_order"])
        if (dtype, shape, fortran) != want:
            raise fail(f"array '{key}' is {dtype} of shape {shape}"
                       f"{' (Fortran order)' if fortran else ''} in the file, but the index says "
                       f"{want[0]} of shape {want[1]}{' (Fortran order)' if want[2] else ''}")
        if _npyfile.nbytes_of(dtype, shape) != spec["nbytes"]:
            raise fail(f"array '{key}' ({dtype} of shape {shape}) has {_npyfile.nbytes_of(dtype, shape)} bytes, "
                       f"the index says {spec['nbytes']}")
        order = "F" if fortran else "C"
        if self.mmap:
            mapped = numpy.memmap(path, dtype=dtype, mode="r", offset=spec["offset"], shape=shape,
                                  order=order) if spec["nbytes"] else numpy.empty(shape, dtype, order)
            out = _wsarray_asarray(numpy.asarray(mapped))
            view, _ = _npyfile.data_of(numpy.asarray(mapped))
        else:
            out = _wsarray_empty(shape, dtype=dtype, order=order)
            view, _ = _npyfile.data_of(numpy.asarray(out))
            got = _npyfile.read_exactly(fd, view, spec["offset"])
            if got != spec["nbytes"]:
                raise fail(f"the file is truncated: array '{key}' has {got} of its {spec['nbytes']} bytes")
        if self.verify and _npyfile.crc32(view) != spec["crc32"]:
            raise fail(f"array '{key}' is corrupted: its CRC-32 is {_npyfile.crc32(view):08x}, the "
                       f"index recorded {spec['crc32']:08x}")
        return out

    def __repr__(self) -> str:
        return f"wsarray.data.BatchDirectory('{self.directory}', {len(self)} batches)"


class _Reader:
    """One epoch over a BatchDirectory; bad files handled by its ``on_error``."""

    def __init__(self, bd, order):
        self._bd, self._order, self._pos = bd, order, 0

    def __iter__(self):
        return self

    def __next__(self):
        while self._pos < len(self._order):
            i = self._order[self._pos]
            self._pos += 1
            try:
                return self._bd.read(i)
            except BatchFileError as error:
                if self._bd.on_error == "raise":
                    raise
                action = "skipped" if self._bd.on_error == "skip" else "the epoch stops here"
                warnings.warn(f"{error} ({action})", RuntimeWarning, stacklevel=2)
                if self._bd.on_error == "stop":
                    self._pos = len(self._order)
        raise StopIteration


def _read_index(path, fn):
    try:
        with open(path) as f:
            index = json.load(f)
    except FileNotFoundError:
        raise FileNotFoundError(f"{fn}: '{path}' is missing: the directory has no index of saved "
                                "batches (write them with wsarray.data.save_batches())") from None
    except (ValueError, UnicodeDecodeError) as e:
        raise ValueError(f"{fn}: the index '{path}' is damaged ({e})") from None
    if not isinstance(index, dict) or index.get("format") != FORMAT:
        raise ValueError(f"{fn}: '{path}' is not an index of wsarray.data.save_batches()")
    if index.get("version") != VERSION:
        raise ValueError(f"{fn}: '{path}' has version {index.get('version')!r}; this wsarray reads "
                         f"version {VERSION}")
    batches = index.get("batches")
    if not isinstance(batches, list):
        raise ValueError(f"{fn}: the index '{path}' is damaged (no list of batches)")
    for k, entry in enumerate(batches):
        if not _valid_entry(entry):
            raise ValueError(f"{fn}: the index '{path}' is damaged (batch {k} is not described fully)")
    return batches


def _valid_entry(entry):
    try:
        name = entry["file"]
        ok = isinstance(name, str) and os.path.basename(name) == name and name not in ("", ".", "..")
        ok = ok and isinstance(entry["bytes"], int) and isinstance(entry["structure"], dict)
        for spec in entry["arrays"]:
            numpy.dtype(spec["dtype"])
            ok = ok and all(isinstance(spec[k], int) and spec[k] >= 0
                            for k in ("header_offset", "offset", "nbytes", "crc32"))
            ok = ok and spec["offset"] >= spec["header_offset"] and isinstance(spec["key"], str)
            ok = ok and all(isinstance(d, int) and d >= 0 for d in spec["shape"])
        return ok
    except (KeyError, TypeError, ValueError):
        return False


_namedtuples = {}


def _decode(node, arrays):
    if "array" in node:
        return arrays[node["array"]]
    if "value" in node:
        return node["value"]
    if "namedtuple" in node:
        items = [_decode(v, arrays) for v in node["items"]]
        key = (node["namedtuple"], tuple(node["fields"]))
        if key not in _namedtuples:
            try:
                _namedtuples[key] = collections.namedtuple(*key)
            except (ValueError, TypeError):  # not valid identifiers: a plain tuple
                _namedtuples[key] = None
        cls = _namedtuples[key]
        return cls(*items) if cls is not None else tuple(items)
    if "tuple" in node:
        return tuple(_decode(v, arrays) for v in node["tuple"])
    if "list" in node:
        return [_decode(v, arrays) for v in node["list"]]
    if "dict" in node:
        return {k: _decode(v, arrays) for k, v in node["dict"]}
    raise ValueError(f"wsarray.data.BatchDirectory: the index describes an unknown item {node!r}")
