"""skinref.skv against the skinref program: dumps it writes read back to the values of its JSON output (an
independent path), dumps Python writes are accepted by `skinref compare` (and a perturbed one fails), and
every malformed file is refused with FormatError, as skinref itself refuses it."""

import json
import os
import random
import struct
import unittest

import numpy as np

from skinref_cli import TempDirTest, json_vertices, run, two_primitive_model_with_tangents

import skinref
from skinref import FormatError


def skin(out, *options, model="builtin:bend", time="0.25"):
    run("skin", model, "--time", time, *options, "--out", out, expect=0)
    return out


class ReadsWhatSkinrefWrites(TempDirTest):
    def check_against_json(self, precision_options, precision):
        skv = skin(self.path("x.skv"), *precision_options)
        document, expected = json_vertices(skin(self.path("x.json"), *precision_options))
        dump = skinref.read_skv(skv)
        self.assertEqual(dump["version"], 2)
        self.assertEqual(dump["precision"], precision)
        self.assertEqual(document["precision"], precision)
        # The .skv record is the JSON dump's record plus the precision the header states.
        record = dict(dump["record"])
        self.assertEqual(record.pop("precision"), precision)
        self.assertEqual(record, document["record"])
        self.assertEqual(record["model"], "builtin:bend")
        self.assertEqual(record["time"], 0.25)
        self.assertEqual(len(dump["primitives"]), len(expected))
        for got, want in zip(dump["primitives"], expected):
            for key in ("node", "mesh", "primitive", "skinned"):
                self.assertEqual(got[key], want[key], key)
            for key in ("positions", "normals", "tangents"):
                if want[key] is None:
                    self.assertIsNone(got[key], key)
                else:
                    self.assertEqual(got[key].dtype, np.float64)
                    np.testing.assert_array_equal(got[key], want[key], err_msg=key)
        return dump

    def test_f64_dump_reads_to_the_json_output(self):
        dump = self.check_against_json([], "f64")
        self.assertEqual(dump["primitives"][0]["positions"].shape, (336, 3))

    def test_f32_dump_reads_to_the_json_output(self):
        dump = self.check_against_json(["--precision", "f32"], "f32")
        positions = dump["primitives"][0]["positions"]
        np.testing.assert_array_equal(positions.astype(np.float32).astype(np.float64), positions)

    def test_tangents_and_two_primitives(self):
        model = two_primitive_model_with_tangents(self.tmp)
        skv = skin(self.path("two.skv"), model=model)
        _, expected = json_vertices(skin(self.path("two.json"), model=model))
        dump = skinref.read_skv(skv)
        self.assertEqual([p["primitive"] for p in dump["primitives"]], [0, 1])
        for got, want in zip(dump["primitives"], expected):
            self.assertEqual(got["tangents"].shape, (336, 4))
            for key in ("positions", "normals", "tangents"):
                np.testing.assert_array_equal(got[key], want[key], err_msg=key)
        # w is the handedness the model gave, alternating +1 and -1.
        np.testing.assert_array_equal(dump["primitives"][1]["tangents"][:4, 3], [1, -1, 1, -1])

    def test_version_1_written_by_hand(self):
        # The README's engine writer, with normals and tangents added: struct, value by value.
        rng = np.random.default_rng(7)
        prims = [(3, 0, 0, 7, rng.normal(size=(5, 3)), rng.normal(size=(5, 3)), rng.normal(size=(5, 4))),
                 (-1, 2, 1, 0, rng.normal(size=(2, 3)), None, None)]
        data = b"SKINREFV" + struct.pack("<IIIIQ", 1, 8, len(prims), 0, 0)
        for node, mesh, primitive, bits, positions, normals, tangents in prims:
            data += struct.pack("<iiiIQQ", node, mesh, primitive, bits, len(positions), 0)
            for block in (positions, normals, tangents):
                if block is not None:
                    for row in block:
                        data += struct.pack("<%dd" % len(row), *row)
        with open(self.path("v1.skv"), "wb") as stream:
            stream.write(data)
        dump = skinref.read_skv(self.path("v1.skv"))
        self.assertEqual((dump["version"], dump["precision"], dump["record"]), (1, "f64", None))
        for got, (node, mesh, primitive, bits, positions, normals, tangents) in zip(dump["primitives"], prims):
            self.assertEqual((got["node"], got["mesh"], got["primitive"], got["skinned"]),
                             (node, mesh, primitive, bool(bits & 1)))
            np.testing.assert_array_equal(got["positions"], positions)
            for key, want in (("normals", normals), ("tangents", tangents)):
                if want is None:
                    self.assertIsNone(got[key])
                else:
                    np.testing.assert_array_equal(got[key], want)


class WritesWhatSkinrefReads(TempDirTest):
    def setUp(self):
        super().setUp()
        self.ref = skin(self.path("ref.skv"))
        self.primitives = skinref.read_skv(self.ref)["primitives"]

    def compare(self, test, *options):
        return run("compare", self.ref, test, *options)

    def test_byte_layout(self):
        positions = np.array([[1.0, 2.0, 3.0], [0.1, -0.2, 1e30]])
        tangents = np.array([[1.0, 0.0, 0.0, -1.0], [0.0, 1.0, 0.0, 1.0]])
        path = self.path("layout.skv")
        skinref.write_skv(path, [{"node": 4, "mesh": 1, "primitive": 2, "skinned": False, "positions": positions,
                                  "tangents": tangents}], record={"writer": "my engine", "time": 0.5},
                          precision="f32")
        with open(path, "rb") as stream:
            data = stream.read()
        magic, version, precision, count, flags, record_bytes = struct.unpack_from("<8sIIIIQ", data, 0)
        self.assertEqual((magic, version, precision, count, flags), (b"SKINREFV", 2, 4, 1, 1))
        record = json.loads(data[32:32 + record_bytes].decode("utf-8"))
        self.assertEqual(record, {"writer": "my engine", "time": 0.5, "layout": "xyz-interleaved",
                                  "precision": "f32"})
        at = 32 + record_bytes
        self.assertEqual(struct.unpack_from("<iiiIQQ", data, at), (4, 1, 2, 4, 2, 0))  # bit 2: tangents only
        values = struct.unpack_from("<14f", data, at + 32)
        self.assertEqual(len(data), at + 32 + 14 * 4)
        np.testing.assert_array_equal(values[:6], positions.astype(np.float32).reshape(-1))  # xyz per vertex
        np.testing.assert_array_equal(values[6:], tangents.reshape(-1))  # then x y z w per vertex

    def test_compare_accepts_a_python_f32_dump_with_a_record(self):
        path = self.path("engine.skv")
        skinref.write_skv(path, self.primitives, precision="f32",
                          record={"writer": "python engine", "model": "builtin:bend", "time": 0.25})
        result = self.compare(path)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertIn("PASS: 0 over, 0 unbounded of 672 values", result.stdout)

    def test_compare_accepts_a_python_dump_without_a_record(self):
        path = self.path("engine.skv")
        skinref.write_skv(path, self.primitives)
        self.assertEqual(skinref.read_skv(path)["record"], None)
        result = self.compare(path, "--model", "builtin:bend", "--time", "0.25")
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertIn("worst: none (every value equals the reference's)", result.stdout)

    def test_compare_fails_a_perturbed_dump(self):
        moved = [dict(p) for p in self.primitives]
        moved[0]["positions"] = moved[0]["positions"].copy()
        moved[0]["positions"][17] += [1e-3, 0.0, 0.0]
        path = self.path("moved.skv")
        skinref.write_skv(path, moved, precision="f32", record={"model": "builtin:bend", "time": 0.25})
        result = self.compare(path)
        self.assertEqual(result.returncode, 1, result.stdout + result.stderr)
        self.assertIn("FAIL: 1 over", result.stdout)
        self.assertIn("worst: position of vertex 17 in primitive 0", result.stdout)

    def test_merged_buffer_with_ranges(self):
        model = two_primitive_model_with_tangents(self.tmp)
        ref = skin(self.path("two.skv"), model=model)
        primitives = skinref.read_skv(ref)["primitives"]
        merged = {"node": 3, "mesh": 0, "primitive": 0}
        for key in ("positions", "normals", "tangents"):
            merged[key] = np.vstack([p[key] for p in primitives])
        ranges = [{"node": 3, "mesh": 0, "primitive": 0, "first": 0, "count": 336, "skinned": True},
                  {"node": 3, "mesh": 0, "primitive": 1, "first": 336, "count": 336}]
        path = self.path("merged.skv")
        skinref.write_skv(path, [merged], precision="f32",
                          record={"writer": "python engine", "model": model, "time": 0.25, "ranges": ranges})
        result = run("compare", ref, path)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertIn("PASS: 0 over, 0 unbounded of 2016 values", result.stdout)  # 672 x (position, normal, tangent)

        split = skinref.read_skv(path)["primitives"]
        self.assertEqual([(p["node"], p["mesh"], p["primitive"], p["skinned"]) for p in split],
                         [(3, 0, 0, True), (3, 0, 1, True)])
        for got, want in zip(split, primitives):
            for key in ("positions", "normals", "tangents"):
                np.testing.assert_array_equal(got[key], want[key].astype(np.float32).astype(np.float64))
        whole = skinref.read_skv(path, split_ranges=False)["primitives"]
        self.assertEqual(len(whole), 1)
        self.assertEqual(whole[0]["tangents"].shape, (672, 4))

    def test_bad_arguments_write_nothing(self):
        path = self.path("bad.skv")
        good = {"node": 0, "mesh": 0, "primitive": 0, "positions": np.zeros((2, 3))}
        bad_calls = [
            ([dict(good, positions=np.zeros((2, 4)))], {}),
            ([dict(good, normals=np.zeros((3, 3)))], {}),
            ([dict(good, tangents=np.zeros((2, 3)))], {}),
            ([dict(good, node=2 ** 31)], {}),
            ([good], {"precision": "f16"}),
            ([good], {"precision": "f32", "record": {"precision": "f64"}}),
            ([good], {"record": {"palette": "mine"}}),
            ([good], {"record": {"layout": "soa"}}),
            ([good], {"record": {"time": float("nan")}}),
            ([good], {"record": {"ranges": [{"node": 0, "mesh": 0, "primitive": 0, "first": 1, "count": 2}]}}),
            ([good, good], {"record": {"ranges": [{"node": 0, "mesh": 0, "primitive": 0, "first": 0, "count": 1}]}}),
        ]
        for primitives, options in bad_calls:
            with self.subTest(options=options, primitives=primitives):
                with self.assertRaises(ValueError):
                    skinref.write_skv(path, primitives, **options)
                self.assertEqual(os.listdir(self.tmp), ["ref.skv"])
        with self.assertRaises(TypeError):
            skinref.write_skv(path, [dict(good, mesh="0")])


class RefusesMalformedFiles(TempDirTest):
    """Each malformed file: skinref.read_skv raises FormatError naming the file and the byte, and skinref
    itself refuses the same file (compare exits 2 naming it)."""

    def setUp(self):
        super().setUp()
        self.good = skin(self.path("good.skv"))
        with open(self.good, "rb") as stream:
            self.data = bytearray(stream.read())
        self.record_bytes = struct.unpack_from("<Q", self.data, 24)[0]
        self.first = 32 + self.record_bytes  # the first primitive's 32-byte header

    def write(self, data, name="bad.skv"):
        path = self.path(name)
        with open(path, "wb") as stream:
            stream.write(bytes(data))
        return path

    def with_record(self, record):
        text = json.dumps(record).encode("utf-8")
        data = self.data[:24] + struct.pack("<Q", len(text)) + text + self.data[self.first:]
        return data

    def refused(self, data, where, words):
        path = self.write(data)
        with self.assertRaises(FormatError) as caught:
            skinref.read_skv(path)
        message = str(caught.exception)
        self.assertTrue(message.startswith(path + ": " + where), message)
        for word in words:
            self.assertIn(word, message)
        result = run("compare", path, self.good)
        self.assertEqual(result.returncode, 2, result.stdout + result.stderr)
        self.assertIn(path, result.stderr)
        return message

    def patched(self, fmt, offset, *values):
        data = bytearray(self.data)
        struct.pack_into(fmt, data, offset, *values)
        return data

    def test_missing_file_and_error_type(self):
        with self.assertRaises(FileNotFoundError):
            skinref.read_skv(self.path("missing.skv"))
        with self.assertRaises(ValueError) as caught:  # FormatError is a ValueError
            skinref.read_skv(self.write(b""))
        self.assertIsInstance(caught.exception, FormatError)
        self.assertEqual((caught.exception.path, caught.exception.where), (self.path("bad.skv"), "at byte 0"))

    def test_truncated_header(self):
        self.refused(self.data[:20], "at byte 0", ["32-byte .skv header", "only 20 bytes"])

    def test_truncated_data(self):
        self.refused(self.data[:-4], "at byte %d" % (self.first + 16), ["336 vertices of 48 bytes"])

    def test_trailing_bytes(self):
        self.refused(self.data + b"\0" * 8, "at byte %d" % len(self.data), ["8 more bytes follow"])

    def test_wrong_magic(self):
        self.refused(b"SKINREFX" + self.data[8:], "at byte 0", ['the magic "SKINREFV"'])

    def test_unknown_version(self):
        self.refused(self.patched("<I", 8, 3), "at byte 8", ["version 1 or 2, found 3"])

    def test_unknown_precision(self):
        self.refused(self.patched("<I", 12, 2), "at byte 12", ["precision 4 (f32) or 8 (f64), found 2"])

    def test_unknown_flags(self):
        self.refused(self.patched("<I", 20, 3), "at byte 20", ["flags 0 or 1 for version 2, found 3"])
        version1 = self.patched("<I", 8, 1)
        self.refused(version1, "at byte 20", ["flags 0 for version 1, found 1"])

    def test_record_bytes_without_the_flag(self):
        self.refused(self.patched("<I", 20, 0), "at byte 24", ["0 (reserved: no record)"])

    def test_record_overrunning_the_file_or_the_limit(self):
        self.refused(self.patched("<Q", 24, len(self.data)), "at byte 24", ["within the file"])
        big = self.with_record({"writer": "x" * (1 << 20)})
        self.refused(big, "at byte 24", ["at most 1048576 bytes"])

    def test_primitive_count_overrunning_the_file(self):
        self.refused(self.patched("<I", 16, 1000), "at byte 16", ["1000 primitive records of 32 bytes"])
        self.refused(self.patched("<I", 16, 2), "at byte %d" % len(self.data), ["record of primitive 1"])

    def test_vertex_count_overrunning_the_file(self):
        self.refused(self.patched("<Q", self.first + 16, 2 ** 63), "at byte %d" % (self.first + 16),
                     ["9223372036854775808 vertices of 48 bytes"])
        self.refused(self.patched("<Q", self.first + 16, 337), "at byte %d" % (self.first + 16), ["337 vertices"])

    def test_unknown_attribute_bits_and_reserved(self):
        self.refused(self.patched("<I", self.first + 12, 11), "at byte %d" % (self.first + 12),
                     ["attribute bits within 0x7", "found 11"])
        self.refused(self.patched("<Q", self.first + 24, 1), "at byte %d" % (self.first + 24), ["reserved 0"])

    def test_record_contradicting_the_header(self):
        record = {"model": "builtin:bend", "time": 0.25, "precision": "f32"}
        self.refused(self.with_record(record), "at byte 32", ['"precision" "f32" contradicts the header'])

    def test_bad_records(self):
        cases = [
            (b"{not json", "JSON"),
            (b'{"time": NaN}', "finite"),
            (b'{"time": 1e999}', "finite"),
            (b'{"time": "0.25"}', '"time" is not a number'),
            (b'{"model": 7}', '"model" is not a string'),
            (b'[1, 2]', "not a JSON object"),
            (b'{"layout": "soa"}', '"layout" is not "xyz-interleaved"'),
            (b'{"palette": "mine"}', '"palette" is neither'),
            (b'{"precision": "f16"}', '"precision" is neither'),
            (b'{"joint_names": ["a", 2]}', '"joint_names"[1] is not a string'),
            (b'{"ranges": []}', '"ranges" is not a non-empty array'),
            (b'{"ranges": [{"node": 3, "mesh": 0, "primitive": 0, "first": 0}]}', '"ranges"[0].count'),
            (b'{"ranges": [{"node": 3, "mesh": 0, "primitive": 0, "first": 0, "count": 1, "skinned": 1}]}',
             '"ranges"[0].skinned'),
            (b'{"writer": "\xff"}', "UTF-8"),
        ]
        for text, words in cases:
            with self.subTest(record=text):
                data = self.data[:24] + struct.pack("<Q", len(text)) + text + self.data[self.first:]
                self.refused(data, "at byte 32", ["a JSON record", words])

    def test_ranges_outside_the_buffer(self):
        ranges = [{"node": 3, "mesh": 0, "primitive": 0, "first": 300, "count": 37}]
        message = self.refused(self.with_record({"ranges": ranges}), "range 0",
                               ["(first 300, count 37) within the merged buffer's 336 vertices"])
        self.assertNotIn("at byte", message)

    def test_every_truncation_is_a_format_error(self):
        model = two_primitive_model_with_tangents(self.tmp)
        with open(skin(self.path("two.skv"), "--precision", "f32", model=model), "rb") as stream:
            data = stream.read()
        boundaries = set(range(0, 200)) | set(range(len(data) - 200, len(data)))
        boundaries |= {len(data) // 2 + k for k in range(-40, 40)}
        for size in sorted(boundaries):
            path = self.write(data[:size], "cut.skv")
            with self.assertRaises(FormatError, msg="cut at %d of %d" % (size, len(data))):
                skinref.read_skv(path)

    def test_random_corruption_gives_a_format_error_or_a_dump(self):
        generator = random.Random(15)
        header_and_records = self.first + 32
        for trial in range(400):
            data = bytearray(self.data)
            for _ in range(generator.randint(1, 4)):
                data[generator.randrange(header_and_records)] = generator.randrange(256)
            path = self.write(data, "corrupt.skv")
            try:
                dump = skinref.read_skv(path)
            except FormatError:
                continue
            self.assertIn(dump["version"], (1, 2), "trial %d" % trial)


if __name__ == "__main__":
    unittest.main()
