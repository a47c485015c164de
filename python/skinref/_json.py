"""Strict JSON reading shared by the readers (internal).

Contract: load_json() parses text as nlohmann_json does for skinref: NaN and Infinity literals are refused,
a number beyond the range of a double is refused (nlohmann's "number overflow"), an integer beyond 64 bits
becomes a double as nlohmann makes it, "-0" reads as -0.0 where a number is expected, a leading UTF-8 byte
order mark is skipped, and with unique_keys=True (skinref's strict_json.h, for the golden manifest) a key
repeated in one object is refused.
Every failure raises FormatError(path, pointer, expected). Checker gives typed access with the JSON pointer
of each value in its errors; numbers exclude booleans, as nlohmann's is_number() does.
"""

import json
import math

import numpy as np

from .errors import FormatError

_INT_LOW = -(2 ** 63)
_INT_HIGH = 2 ** 64


class _Refused(ValueError):
    pass


def _parse_constant(name):
    raise _Refused("a finite number, got %s (not JSON)" % name)


def _parse_float(text):
    value = float(text)
    if not math.isfinite(value):
        raise _Refused("a finite number; %s is beyond the range of a double" % text)
    return value


class NegativeZero(int):
    """The JSON integer "-0": 0 where an integer is read, -0.0 where a number is (a writer that printed
    -0.0 with %g wrote "-0"; skinref's pose dumps do)."""


def _parse_int(text):
    if text == "-0":
        return NegativeZero(0)
    value = int(text)
    if _INT_LOW <= value < _INT_HIGH:
        return value
    return _parse_float(text)


def _unique_pairs(pairs):
    seen = {}
    for key, value in pairs:
        if key in seen:
            raise _Refused('each key once per object; "%s" is repeated' % key)
        seen[key] = value
    return seen


def load_json(path, data, unique_keys=False):
    """Parses `data` (bytes or str) from the file `path`; raises FormatError when it is not strict JSON."""
    try:
        text = data.decode("utf-8-sig") if isinstance(data, (bytes, bytearray)) else data
    except UnicodeDecodeError as error:
        raise FormatError(path, "", "UTF-8 JSON text (%s)" % error) from None
    if text.startswith("\ufeff"):
        text = text[1:]
    try:
        return json.loads(text, parse_constant=_parse_constant, parse_float=_parse_float, parse_int=_parse_int,
                          object_pairs_hook=_unique_pairs if unique_keys else None)
    except _Refused as error:
        raise FormatError(path, "", str(error)) from None
    except (ValueError, RecursionError) as error:
        raise FormatError(path, "", "JSON (%s)" % error) from None


def is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def is_integer(value):
    return isinstance(value, int) and not isinstance(value, bool)


def describe(value):
    """What a JSON value is, for messages: "an object", "an array", or its JSON text."""
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "an array"
    return json.dumps(value, ensure_ascii=False)


class Checker:
    """Typed access to a parsed document; each failure raises FormatError(path, pointer, expected)."""

    def __init__(self, path):
        self.path = str(path)

    def fail(self, where, expected):
        raise FormatError(self.path, where, expected)

    def object(self, value, where):
        if not isinstance(value, dict):
            self.fail(where, "an object, got " + describe(value))
        return value

    def member(self, value, where, key):
        self.object(value, where)
        if key not in value:
            self.fail(where + "/" + key, "the member '%s'" % key)
        return value[key]

    def string(self, value, where, expected="a string"):
        if not isinstance(value, str):
            self.fail(where, expected + ", got " + describe(value))
        return value

    def number(self, value, where):
        if not is_number(value):
            self.fail(where, "a number, got " + describe(value))
        result = -0.0 if isinstance(value, NegativeZero) else float(value)
        if not math.isfinite(result):
            self.fail(where, "a finite number")
        return result

    def integer(self, value, where, low, high):
        if not is_integer(value) or value < low or value > high:
            self.fail(where, "an integer from %d to %d, got %s" % (low, high, describe(value)))
        return value

    def array(self, value, where, size=None):
        if not isinstance(value, list) or (size is not None and len(value) != size):
            self.fail(where, "an array" if size is None else "an array of %d elements" % size)
        return value

    def numbers(self, value, where, size=None):
        """An array of finite numbers (of `size` elements when given) as a float64 vector."""
        if not isinstance(value, list) or (size is not None and len(value) != size):
            self.fail(where, ("an array of numbers" if size is None else "an array of %d numbers" % size))
        return np.array([self.number(x, "%s/%d" % (where, i)) for i, x in enumerate(value)], dtype=np.float64)
