"""Skinned-vertex dumps in skinref's binary .skv format, version 1 and 2 (layout: docs/formats.md;
the C++ reader and writer: reference/io/vertex_dump.cc, whose checks this module repeats).

Values: world-space positions, normals and tangents in the model's units, as skinref skin writes them.
A dump is a dict:
    {"version": 1 | 2, "precision": "f32" | "f64", "record": dict or None,
     "primitives": [{"node": int, "mesh": int, "primitive": int, "skinned": bool,
                     "positions": float64 array (n, 3), "normals": (n, 3) or None,
                     "tangents": (n, 4) x y z w or None}, ...]}
f32 files are widened to float64 exactly, so an f32 value reads back as the double of that float.

read_skv(path) checks everything skinref's reader checks and raises FormatError ("FILE: at byte N: EXPECTED")
otherwise: the 32-byte header, the magic SKINREFV, version 1 or 2, precision 4 or 8, the flags allowed for the
version, the record size (at most 1 MiB, within the file), the record's JSON and keys (strings, a finite time,
"ranges", "palette", "layout" "xyz-interleaved", a "precision" that agrees with the header), the primitive
count and each vertex count against the bytes left, attribute bits within 0x7, reserved fields 0, and no
bytes after the last primitive. A record with "ranges" (an engine's merged vertex buffer, written as one .skv
primitive) is split back into its primitives unless split_ranges=False; a range outside the buffer is refused.
Convention names and values in the record's "conventions" are kept as text: skinref's compare, bisect and
diagnose check them against their own list. A file that cannot be opened raises OSError.

write_skv(path, primitives, record=None, precision="f64") writes version 2, atomically (a temporary file
renamed into place). With a record (a dict, possibly empty) flags bit 0 is set and the record gets
"layout": "xyz-interleaved" and the file's "precision"; without one the file has no record, like an engine's
version 1 dump. The record is checked as read_skv checks it, so what is written reads back; bad arguments
raise ValueError or TypeError before anything is written. f32 values are rounded to nearest.
"""

import json
import os
import struct

import numpy as np

from . import _json
from ._files import write_atomically
from .errors import FormatError

MAGIC = b"SKINREFV"
HEADER_BYTES = 32
PRIMITIVE_HEADER_BYTES = 32
MAX_RECORD_BYTES = 1 << 20
FLAG_RECORD = 1
SKINNED, NORMALS, TANGENTS = 1, 2, 4
LAYOUT = "xyz-interleaved"
_INT32_MAX = 2 ** 31 - 1
_INT64_MAX = 2 ** 63 - 1
_RECORD_WHAT = "a JSON record (writer, model, animation, time, method, palette, conventions): "
_HEADER = struct.Struct("<8sIIIIQ")
_PRIMITIVE = struct.Struct("<iiiIQQ")


class _RecordError(ValueError):
    pass


def check_record(record, precision=None):
    """Checks a record dict as skinref's dump_record_from_json() does (and "precision" against `precision`,
    "f32" or "f64", when given); raises ValueError naming the key that is wrong."""
    def fail(message):
        raise _RecordError(message)

    if not isinstance(record, dict):
        fail("the record is not a JSON object")
    for key in ("writer", "model", "animation", "method", "palette", "model_hash"):
        if key in record and not isinstance(record[key], str):
            fail('"%s" is not a string' % key)
    if "time" in record:
        if not _json.is_number(record["time"]):
            fail('"time" is not a number')
        if not np.isfinite(float(record["time"])):
            fail('"time" is not finite')
    if "conventions" in record:
        conventions = record["conventions"]
        if not isinstance(conventions, dict):
            fail('conventions: expected a JSON object {"NAME": "VALUE"}')
        for name, value in conventions.items():
            if not isinstance(value, str):
                fail("convention %s: expected a string" % name)
    if "ranges" in record:
        ranges = record["ranges"]
        if not isinstance(ranges, list) or not ranges:
            fail('"ranges" is not a non-empty array')
        for i, entry in enumerate(ranges):
            for key, high in (("node", _INT32_MAX), ("mesh", _INT32_MAX), ("primitive", _INT32_MAX),
                              ("first", _INT64_MAX), ("count", _INT64_MAX)):
                if (not isinstance(entry, dict) or key not in entry or not _json.is_integer(entry[key])
                        or not 0 <= entry[key] <= high):
                    fail('"ranges"[%d].%s is not an integer from 0 to %d' % (i, key, high))
            if "skinned" in entry and not isinstance(entry["skinned"], bool):
                fail('"ranges"[%d].skinned is not true or false' % i)
    if record.get("palette", "") not in ("", "reference", "own"):
        fail('"palette" is neither "reference" nor "own"')
    if "joint_names" in record:
        names = record["joint_names"]
        if not isinstance(names, list):
            fail('"joint_names" is not an array of names')
        for i, name in enumerate(names):
            if not isinstance(name, str):
                fail('"joint_names"[%d] is not a string' % i)
    if "layout" in record and record["layout"] != LAYOUT:
        fail('"layout" is not "%s" (positions xyz, normals xyz, tangents xyzw, each interleaved per vertex)'
             % LAYOUT)
    if "precision" in record and record["precision"] not in ("f32", "f64"):
        fail('"precision" is neither "f32" nor "f64"')
    if precision is not None and "precision" in record and record["precision"] != precision:
        fail('"precision" %s contradicts the header\'s precision (%s)' % (json.dumps(record["precision"]),
                                                                          precision))


def _split_ranges(path, primitives, ranges):
    if len(primitives) != 1:
        raise FormatError(path, "", 'one merged primitive under a record with "ranges", found %d' % len(primitives))
    merged = primitives[0]
    total = len(merged["positions"])
    split = []
    for i, r in enumerate(ranges):
        first, count = r["first"], r["count"]
        if first > total or count > total - first:
            raise FormatError(path, "", "range %d (first %d, count %d) within the merged buffer's %d vertices"
                              % (i, first, count, total))
        part = {"node": r["node"], "mesh": r["mesh"], "primitive": r["primitive"],
                "skinned": r.get("skinned", True)}
        for key in ("positions", "normals", "tangents"):
            values = merged[key]
            part[key] = None if values is None else values[first:first + count].copy()
        split.append(part)
    return split


def read_skv(path, split_ranges=True):
    """Reads a .skv file (version 1 or 2) into a dict (see the module's docstring); raises FormatError."""
    path = os.fspath(path)
    with open(path, "rb") as stream:
        data = stream.read()
    size = len(data)

    def fail(offset, expected):
        return FormatError(path, "at byte %d" % offset, expected)

    if size < HEADER_BYTES:
        raise fail(0, "a %d-byte .skv header, but the file has only %d bytes" % (HEADER_BYTES, size))
    magic, version, precision_bytes, primitive_count, flags, record_bytes = _HEADER.unpack_from(data, 0)
    if magic != MAGIC:
        raise fail(0, 'the magic "SKINREFV"')
    if version not in (1, 2):
        raise fail(8, "version 1 or 2, found %d" % version)
    if precision_bytes not in (4, 8):
        raise fail(12, "precision 4 (f32) or 8 (f64), found %d" % precision_bytes)
    precision = "f32" if precision_bytes == 4 else "f64"
    allowed_flags = FLAG_RECORD if version == 2 else 0
    if flags & ~allowed_flags:
        raise fail(20, "flags %s for version %d, found %d" % ("0 or 1" if version == 2 else "0", version, flags))
    if not flags & FLAG_RECORD and record_bytes != 0:
        raise fail(24, "0 (reserved: no record), found %d" % record_bytes)
    if record_bytes > MAX_RECORD_BYTES or record_bytes > size - HEADER_BYTES:
        raise fail(24, "a record of at most %d bytes within the file, found %d" % (MAX_RECORD_BYTES, record_bytes))
    record = None
    if flags & FLAG_RECORD:
        try:
            record = _json.load_json(path, data[HEADER_BYTES:HEADER_BYTES + record_bytes])
            check_record(record, precision)
        except (FormatError, _RecordError) as error:
            what = error.expected if isinstance(error, FormatError) else str(error)
            raise fail(HEADER_BYTES, _RECORD_WHAT + what) from None
    data_start = HEADER_BYTES + record_bytes
    if primitive_count > (size - data_start) // PRIMITIVE_HEADER_BYTES:
        raise fail(16, "%d primitive records of %d bytes, but only %d bytes follow the header"
                   % (primitive_count, PRIMITIVE_HEADER_BYTES, size - data_start))

    dtype = np.dtype("<f4" if precision_bytes == 4 else "<f8")
    primitives = []
    offset = data_start
    for i in range(primitive_count):
        start = offset
        if size - offset < PRIMITIVE_HEADER_BYTES:
            raise fail(start, "the %d-byte record of primitive %d, but the file ends at byte %d"
                       % (PRIMITIVE_HEADER_BYTES, i, size))
        node, mesh, primitive, attributes, vertex_count, reserved = _PRIMITIVE.unpack_from(data, start)
        if attributes & ~(SKINNED | NORMALS | TANGENTS):
            raise fail(start + 12, "attribute bits within 0x7 for primitive %d, found %d" % (i, attributes))
        if reserved != 0:
            raise fail(start + 24, "reserved 0 for primitive %d, found %d" % (i, reserved))
        offset += PRIMITIVE_HEADER_BYTES
        components = 3 + (3 if attributes & NORMALS else 0) + (4 if attributes & TANGENTS else 0)
        bytes_per_vertex = components * precision_bytes
        if vertex_count > (size - offset) // bytes_per_vertex:
            raise fail(start + 16, "%d vertices of %d bytes for primitive %d, but only %d bytes remain"
                       % (vertex_count, bytes_per_vertex, i, size - offset))

        def block(width):
            nonlocal offset
            values = np.frombuffer(data, dtype=dtype, count=vertex_count * width, offset=offset)
            offset += vertex_count * width * precision_bytes
            return values.astype(np.float64).reshape(vertex_count, width)

        entry = {"node": node, "mesh": mesh, "primitive": primitive, "skinned": bool(attributes & SKINNED)}
        entry["positions"] = block(3)
        entry["normals"] = block(3) if attributes & NORMALS else None
        entry["tangents"] = block(4) if attributes & TANGENTS else None
        primitives.append(entry)
    if offset != size:
        raise fail(offset, "the end of the file after the last primitive, but %d more bytes follow"
                   % (size - offset))
    if split_ranges and record is not None and "ranges" in record:
        primitives = _split_ranges(path, primitives, record["ranges"])
    return {"version": version, "precision": precision, "record": record, "primitives": primitives}


def _attribute(primitive, key, width, index, count):
    values = primitive.get(key)
    if values is None:
        return None
    array = np.asarray(values, dtype=np.float64)
    if count is None:
        count = len(array) if array.ndim >= 1 else -1
    if array.shape != (count, width):
        raise ValueError("primitive %d: %s must have shape (%s, %d), got %s"
                         % (index, key, count, width, array.shape))
    return array


def _int32(primitive, key, index):
    value = primitive.get(key)
    if not _json.is_integer(value) and not isinstance(value, np.integer):
        raise TypeError("primitive %d: %s must be an integer, got %r" % (index, key, value))
    if not -2 ** 31 <= int(value) <= _INT32_MAX:
        raise ValueError("primitive %d: %s %d is outside int32" % (index, key, value))
    return int(value)


def encode_skv(primitives, record=None, precision="f64"):
    """The bytes of a version 2 .skv file (see write_skv)."""
    if precision not in ("f32", "f64"):
        raise ValueError('precision must be "f32" or "f64", got %r' % (precision,))
    dtype = np.dtype("<f4" if precision == "f32" else "<f8")
    record_text = b""
    if record is not None:
        record = dict(record)
        if record.get("precision", precision) != precision:
            raise ValueError('the record\'s "precision" %r contradicts the file\'s precision %r'
                             % (record["precision"], precision))
        record.setdefault("layout", LAYOUT)
        record["precision"] = precision
        try:
            check_record(record, precision)
        except _RecordError as error:
            raise ValueError("record: %s" % error) from None
        record_text = json.dumps(record, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode("utf-8")
        if len(record_text) > MAX_RECORD_BYTES:
            raise ValueError("record: %d bytes, more than %d" % (len(record_text), MAX_RECORD_BYTES))
        if "ranges" in record and len(primitives) != 1:
            raise ValueError('record: "ranges" describe one merged primitive, but %d are given' % len(primitives))
    if len(primitives) > 2 ** 32 - 1:
        raise ValueError("too many primitives for the .skv format")

    parts = [_HEADER.pack(MAGIC, 2, dtype.itemsize, len(primitives), FLAG_RECORD if record is not None else 0,
                          len(record_text)), record_text]
    for index, primitive in enumerate(primitives):
        node, mesh, number = (_int32(primitive, key, index) for key in ("node", "mesh", "primitive"))
        positions = _attribute(primitive, "positions", 3, index, None)
        if positions is None:
            raise ValueError("primitive %d: positions are required" % index)
        count = len(positions)
        normals = _attribute(primitive, "normals", 3, index, count)
        tangents = _attribute(primitive, "tangents", 4, index, count)
        bits = (SKINNED if primitive.get("skinned", True) else 0) | (NORMALS if normals is not None else 0) | (
            TANGENTS if tangents is not None else 0)
        parts.append(_PRIMITIVE.pack(node, mesh, number, bits, count, 0))
        with np.errstate(over="ignore"):
            for values in (positions, normals, tangents):
                if values is not None:
                    parts.append(values.astype(dtype).tobytes())
    if record is not None and "ranges" in record:
        total = len(np.asarray(primitives[0]["positions"]))
        for i, r in enumerate(record["ranges"]):
            if r["first"] > total or r["count"] > total - r["first"]:
                raise ValueError("record: range %d (first %d, count %d) is outside the buffer's %d vertices"
                                 % (i, r["first"], r["count"], total))
    return b"".join(parts)


def write_skv(path, primitives, record=None, precision="f64"):
    """Writes a version 2 .skv file atomically (see the module's docstring)."""
    write_atomically(path, encode_skv(primitives, record, precision))
