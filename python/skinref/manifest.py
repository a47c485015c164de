"""The golden manifest: golden/manifest.json ("format": "skinref-golden-manifest", version 1; format and
policy: golden/README.md; the C++ reader: tools/golden/golden_manifest.cc, whose checks this module repeats).

read_manifest(path) returns the cases as a list of dicts, defaults filled in:
    {"name", "description" ("" when absent), "model" ("builtin:NAME" or "corpus:RELATIVE/PATH"),
     "animation" (None, or a name or an index as decimal text), "recipe" (None, or a path relative to the
     golden folder), "times" (list of float seconds, each exactly a float32 value), "method" ("lbs"),
     "size" ("256x256"), "width", "height" (pixels), "camera" ("auto"), "view" ("shaded"),
     "view_joint" (the JOINT of "weights:JOINT", else None), "dumps" (True), "dumps_reason" (""),
     "tolerances" (None, or {"vulkan": {...}} as written),
     "outputs": [{"time", "stem", "png", "skv", "pose"}, ...] (paths relative to the golden folder;
                 "skv" and "pose" None when dumps is false)}
Checked as skinref checks it, each problem a FormatError ("FILE: /JSON/POINTER: EXPECTED"): strict JSON (a
repeated key, NaN or a number beyond a double is refused), the format and version, unknown keys, unique case
names of [a-z0-9._-], the model (a known built-in scene, or a relative corpus .gltf/.glb/.fbx/.dae path), "animation"
and "recipe" not together, the recipe file present under the golden folder, times non-empty, finite,
strictly increasing and float32-exact, method, size, camera and view as `skinref render` takes them, "dumps"
false only with a "dumps_reason", and tolerance overrides for "vulkan" only, with a reason. A file that cannot
be opened raises OSError.

golden_output_stem(time) is the file stem of one time's outputs, "t" + the shortest decimal that reads back
as that double, as C++'s std::to_chars writes it ("t0.5", "t1", "t0.3125", "t9.5367431640625e-07").
"""

import math
import os
import re

import numpy as np

from . import _json

FORMAT = "skinref-golden-manifest"
# reference/io/builtin_scenes.cc, builtin_scene_names().
BUILTIN_SCENES = ("twist", "bend", "chain64", "eight-influences", "node-transforms", "million")
# The program's skinning methods in its order (reference/skin/method.h, kSkinningMethods); tests/python checks
# this against what `skinref skin --help` lists.
METHODS = ("lbs", "dqs")
MAX_IMAGE_SIDE = 4096
_CASE_KEYS = {"name", "description", "model", "animation", "recipe", "times", "method", "size", "camera", "view",
              "dumps", "dumps_reason", "tolerances"}
_NAME = re.compile(r"[a-z0-9][a-z0-9._-]{0,79}")
_INTEGER = re.compile(r"-?[0-9]+")  # std::from_chars for int: an optional '-', digits, nothing else
_DOUBLE = re.compile(r"-?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")  # std::from_chars, general


def golden_output_stem(time):
    """"t" + std::to_chars(time): the shortest round-trip digits, fixed or scientific, whichever is shorter
    (fixed on a tie); in fixed notation an integral value is printed exactly."""
    value = float(time)
    if not math.isfinite(value):
        return "t" + ("nan" if math.isnan(value) else ("-inf" if value < 0 else "inf"))
    sign = "-" if math.copysign(1.0, value) < 0 else ""
    magnitude = abs(value)
    if magnitude == 0.0:
        return "t" + sign + "0"
    mantissa, _, exponent = repr(magnitude).partition("e")  # the shortest round-trip digits
    whole, _, fraction = mantissa.partition(".")
    written = whole + fraction  # the decimal point follows len(whole) of these, times 10^exponent
    significant = written.lstrip("0")
    point = len(whole) + int(exponent or 0) - (len(written) - len(significant))  # value = 0.<significant> 10^point
    digits = significant.rstrip("0")
    scientific_exponent = point - 1
    scientific = digits[0] + ("." + digits[1:] if len(digits) > 1 else "") + "e%s%02d" % (
        "-" if scientific_exponent < 0 else "+", abs(scientific_exponent))
    if point <= 0:
        fixed = "0." + "0" * (-point) + digits
    elif point >= len(digits):
        fixed = str(int(magnitude))  # integral: the exact value
    else:
        fixed = digits[:point] + "." + digits[point:]
    return "t" + sign + (fixed if len(fixed) <= len(scientific) else scientific)


def _relative_below(path):
    """Relative, without "..", "." or empty components, not ending in "/"."""
    if not path or path.startswith("/") or path.endswith("/"):
        return False
    return all(part not in ("", ".", "..") for part in path.split("/"))


def _from_chars_int(text):
    return int(text) if _INTEGER.fullmatch(text) and -2 ** 31 <= int(text) < 2 ** 31 else None


def _from_chars_double(text):
    if not _DOUBLE.fullmatch(text):
        return None
    value = float(text)
    return value if math.isfinite(value) else None


def camera_problem(text):
    """Why `skinref render --camera TEXT` would refuse TEXT, or None when it is valid (raster/camera.cc)."""
    expected = 'expected auto, gltf:N or EX,EY,EZ:TX,TY,TZ:FOV (FOV in degrees, 0 < FOV < 180), got "%s"' % text
    if text == "auto":
        return None
    if text.startswith("gltf:"):
        index = _from_chars_int(text[5:])
        return None if index is not None and index >= 0 else expected + ": N must be a camera index >= 0"
    fields = text.split(":")
    if len(fields) != 3:
        return expected
    vectors = []
    for field in fields[:2]:
        parts = [_from_chars_double(p) for p in field.split(",")]
        if len(parts) != 3 or None in parts:
            return expected
        vectors.append(parts)
    fov = _from_chars_double(fields[2])
    if fov is None:
        return expected
    (ex, ey, ez), (tx, ty, tz) = vectors
    forward = (tx - ex, ty - ey, tz - ez)
    if not 0.0 < fov < 180.0:
        return expected + ": the field of view must lie strictly between 0 and 180"
    if not all(math.isfinite(c) for c in forward):
        return expected + ": eye and target must be finite"
    if forward[0] * forward[0] + forward[1] * forward[1] + forward[2] * forward[2] == 0.0:
        return expected + ": eye and target coincide"
    if forward[0] == 0.0 and forward[2] == 0.0:
        return expected + ": the view direction is parallel to +Y (the up vector)"
    return None


def _keys(check, value, where, allowed):
    check.object(value, where)
    for key in value:
        if key not in allowed:
            token = key.replace("~", "~0").replace("/", "~1")
            check.fail(where + "/" + token, "no such key here; expected one of " + ", ".join(sorted(allowed)))
    return value


def _require(check, value, where, key):
    if key not in value:
        check.fail(where, 'the key "%s"' % key)


def _string(check, value, where, key):
    return check.string(value[key], where + "/" + key)


def _model(check, where, model):
    if model.startswith("builtin:"):
        if model[len("builtin:"):] not in BUILTIN_SCENES:
            check.fail(where, 'a built-in scene (%s), got "%s"' % (", ".join(BUILTIN_SCENES), model))
        return
    if model.startswith("corpus:"):
        relative = model[len("corpus:"):]
        known_format = any(relative.endswith(suffix) and len(relative) > len(suffix)
                           for suffix in (".gltf", ".glb", ".fbx", ".dae"))
        if not _relative_below(relative) or not known_format:
            check.fail(where, 'corpus:RELATIVE/PATH.gltf|.glb|.fbx|.dae below the corpus folder, got "%s"' % model)
        return
    check.fail(where, '"builtin:NAME" or "corpus:RELATIVE/PATH", got "%s"' % model)


def _size(check, where, text):
    expected = 'WxH with each side 1 to %d, got "%s"' % (MAX_IMAGE_SIDE, text)
    width, separator, height = text.partition("x")
    if not separator:
        check.fail(where, expected)
    sides = [_from_chars_int(side) for side in (width, height)]
    if any(side is None or not 1 <= side <= MAX_IMAGE_SIDE for side in sides):
        check.fail(where, expected)
    return sides


def _view(check, where, text):
    if text in ("shaded", "normals", "depth"):
        return None
    if text.startswith("weights:") and len(text) > len("weights:"):
        return text[len("weights:"):]
    check.fail(where, 'one of shaded, normals, depth, weights:JOINT, got "%s"' % text)


def _tolerances(check, value, where):
    _keys(check, value, where, {"vulkan"})
    if "vulkan" not in value:
        check.fail(where, 'the key "vulkan" (the backend whose defaults are overridden)')
    at = where + "/vulkan"
    vulkan = _keys(check, value["vulkan"], at, {"image_threshold", "image_max_fraction", "reason"})
    _require(check, vulkan, at, "reason")
    if not _string(check, vulkan, at, "reason"):
        check.fail(at + "/reason", "a non-empty reason for the override")
    if "image_threshold" not in vulkan and "image_max_fraction" not in vulkan:
        check.fail(at, 'at least one of "image_threshold", "image_max_fraction"')
    if "image_threshold" in vulkan:
        threshold = vulkan["image_threshold"]
        if not _json.is_integer(threshold) or not 0 <= threshold <= 255:
            check.fail(at + "/image_threshold", "an integer 0 to 255, got " + _json.describe(threshold))
    if "image_max_fraction" in vulkan:
        fraction = check.number(vulkan["image_max_fraction"], at + "/image_max_fraction")
        if not 0.0 <= fraction <= 1.0:
            check.fail(at + "/image_max_fraction", "a fraction in [0, 1], got " +
                       _json.describe(vulkan["image_max_fraction"]))
    return value


def _case(check, value, where, golden_dir):
    _keys(check, value, where, _CASE_KEYS)
    case = {}
    _require(check, value, where, "name")
    case["name"] = _string(check, value, where, "name")
    if not _NAME.fullmatch(case["name"]):
        check.fail(where + "/name", 'a name of [a-z0-9._-] starting with a letter or digit (at most 80), got "%s"'
                   % case["name"])
    case["description"] = _string(check, value, where, "description") if "description" in value else ""
    _require(check, value, where, "model")
    case["model"] = _string(check, value, where, "model")
    _model(check, where + "/model", case["model"])
    if "animation" in value and "recipe" in value:
        check.fail(where + "/recipe", 'either "animation" or "recipe", not both (the recipe names its animations)')
    case["animation"] = None
    if "animation" in value:
        animation = value["animation"]
        if _json.is_integer(animation) and animation >= 0:
            case["animation"] = str(animation)
        elif isinstance(animation, str) and animation:
            case["animation"] = animation
        else:
            check.fail(where + "/animation", "an animation name or index >= 0, got " + _json.describe(animation))
    case["recipe"] = None
    if "recipe" in value:
        recipe = _string(check, value, where, "recipe")
        if not _relative_below(recipe):
            check.fail(where + "/recipe", 'a path relative to the golden folder, got "%s"' % recipe)
        full = os.path.join(golden_dir, recipe)
        if not os.path.isfile(full):
            check.fail(where + "/recipe", "an existing recipe file; %s is not one" % full)
        case["recipe"] = recipe

    _require(check, value, where, "times")
    times = value["times"]
    if not isinstance(times, list) or not times:
        check.fail(where + "/times", "a non-empty array of times, got " + _json.describe(times))
    case["times"] = []
    for i, entry in enumerate(times):
        at = "%s/times/%d" % (where, i)
        time = check.number(entry, at)
        with np.errstate(over="ignore"):
            exact = float(np.float32(time)) == time
        if not exact:
            check.fail(at, "a time exactly representable in float32 (the Vulkan path evaluates at the float32 "
                           "time), got " + _json.describe(entry))
        if case["times"] and not time > case["times"][-1]:
            check.fail(at, "times in strictly increasing order, got %s after %s"
                       % (_json.describe(entry), _json.describe(times[i - 1])))
        case["times"].append(time)

    case["method"] = "lbs"
    if "method" in value:
        method = _string(check, value, where, "method")
        if method not in METHODS:
            check.fail(where + "/method", 'one of %s, got "%s"' % (", ".join(METHODS), method))
        case["method"] = method
    case["size"] = "256x256"
    case["width"] = case["height"] = 256
    if "size" in value:
        case["size"] = _string(check, value, where, "size")
        case["width"], case["height"] = _size(check, where + "/size", case["size"])
    case["camera"] = "auto"
    if "camera" in value:
        case["camera"] = _string(check, value, where, "camera")
        problem = camera_problem(case["camera"])
        if problem:
            check.fail(where + "/camera",
                       "a camera as --camera takes it (auto, gltf:N, EX,EY,EZ:TX,TY,TZ:FOV): --camera: " + problem)
    case["view"] = "shaded"
    case["view_joint"] = None
    if "view" in value:
        case["view"] = _string(check, value, where, "view")
        case["view_joint"] = _view(check, where + "/view", case["view"])
    case["dumps"] = True
    if "dumps" in value:
        if not isinstance(value["dumps"], bool):
            check.fail(where + "/dumps", "true or false, got " + _json.describe(value["dumps"]))
        case["dumps"] = value["dumps"]
    case["dumps_reason"] = ""
    if "dumps_reason" in value:
        if case["dumps"]:
            check.fail(where + "/dumps_reason", 'only with "dumps": false')
        case["dumps_reason"] = _string(check, value, where, "dumps_reason")
    if not case["dumps"] and not case["dumps_reason"]:
        check.fail(where + "/dumps_reason", "a non-empty reason why this case has no vertex and pose dumps")
    case["tolerances"] = None
    if "tolerances" in value:
        case["tolerances"] = _tolerances(check, value["tolerances"], where + "/tolerances")

    case["outputs"] = []
    for time in case["times"]:
        stem = golden_output_stem(time)
        base = "cases/%s/%s" % (case["name"], stem)
        case["outputs"].append({"time": time, "stem": stem, "png": base + ".png",
                                "skv": base + ".skv" if case["dumps"] else None,
                                "pose": base + ".pose.json" if case["dumps"] else None})
    return case


def read_manifest(path):
    """Reads and checks a golden manifest; returns its cases (see the module's docstring)."""
    path = os.fspath(path)
    with open(path, "rb") as stream:
        root = _json.load_json(path, stream.read(), unique_keys=True)
    check = _json.Checker(path)
    _keys(check, root, "", {"format", "version", "description", "cases"})
    _require(check, root, "", "format")
    if root["format"] != FORMAT:
        check.fail("/format", '"%s", got %s' % (FORMAT, _json.describe(root["format"])))
    _require(check, root, "", "version")
    if not _json.is_number(root["version"]) or root["version"] != 1:
        check.fail("/version", "1, got " + _json.describe(root["version"]))
    if "description" in root:
        _string(check, root, "", "description")
    _require(check, root, "", "cases")
    cases = root["cases"]
    if not isinstance(cases, list) or not cases:
        check.fail("/cases", "a non-empty array of cases, got " + _json.describe(cases))
    golden_dir = os.path.dirname(path)
    result = []
    names = set()
    for i, value in enumerate(cases):
        case = _case(check, value, "/cases/%d" % i, golden_dir)
        if case["name"] in names:
            check.fail("/cases/%d/name" % i, 'a unique case name; "%s" is used twice' % case["name"])
        names.add(case["name"])
        result.append(case)
    return result
