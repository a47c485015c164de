/* include/skinref/dump.h in C99: exact bytes against the layout in docs/formats.md, round trips through
 * the reader, every prefix of a file and each malformed field refused with its code and message, writes that fail
 * leaving the target untouched, the pose JSON text, the model hash against FNV-1a's published values.
 *   dump_h_test DIR   (an existing directory for its files)
 * Exit 0 when every check holds; each failure prints FILE:LINE and the check. The skinref program's view of these
 * files is tests/cdump/cdump_cli.cmake's. */
#define SKINREF_DUMP_IMPLEMENTATION
#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "skinref/dump.h"

#include "cdump_test_support.h"

static const char *directory = ".";

/* The code is `code` and the message contains `part`. */
#define CHECK_ERROR(error, expected_code, part)                                                             \
  do {                                                                                                      \
    CHECK((error).code == (expected_code));                                                                 \
    CHECK(strstr((error).message, (part)) != NULL);                                                         \
    if ((error).code != (expected_code) || !strstr((error).message, (part)))                                \
      fprintf(stderr, "  got code %d, message: %s\n  expected code %d, a message with: %s\n", (error).code, \
              (error).message, (int)(expected_code), (part));                                               \
  } while (0)

static const char *path_of(const char *name) {
  static char paths[8][1024];
  static int next = 0;
  char *path = paths[next];
  next = (next + 1) % 8;
  snprintf(path, sizeof paths[0], "%s/%s", directory, name);
  return path;
}

static int write_all(const char *path, const void *bytes, size_t size) {
  FILE *out = fopen(path, "wb");
  int ok;
  if (!out) return 0;
  ok = fwrite(bytes, 1, size, out) == size;
  return fclose(out) == 0 && ok;
}

static void put32(unsigned char *at, uint32_t value) {
  int i;
  for (i = 0; i < 4; ++i) at[i] = (unsigned char)(value >> (8 * i));
}

static void put64(unsigned char *at, uint64_t value) {
  int i;
  for (i = 0; i < 8; ++i) at[i] = (unsigned char)(value >> (8 * i));
}

/* Opens bytes written to a file; expects failure with `code` and `part`; the skv must be left zeroed. */
static void expect_refused(const unsigned char *bytes, size_t size, int code, const char *part) {
  const char *path = path_of("bad.skv");
  skinref_skv skv, zero;
  skinref_dump_error error;
  memset(&zero, 0, sizeof zero);
  CHECK(write_all(path, bytes, size));
  CHECK(skinref_skv_open(path, &skv, &error) == code);
  CHECK_ERROR(error, code, part);
  CHECK(memcmp(&skv, &zero, sizeof skv) == 0);
  skinref_skv_close(&skv);
}

/* A hand-built .skv: header, then `record` (NULL: none) and `tail` bytes after it. */
static size_t build(unsigned char *out, uint32_t version, uint32_t precision, uint32_t primitives, uint32_t flags,
                    const char *record, const unsigned char *tail, size_t tail_size) {
  const size_t record_size = record ? strlen(record) : 0;
  memcpy(out, "SKINREFV", 8);
  put32(out + 8, version);
  put32(out + 12, precision);
  put32(out + 16, primitives);
  put32(out + 20, flags);
  put64(out + 24, record_size);
  if (record) memcpy(out + 32, record, record_size);
  if (tail_size) memcpy(out + 32 + record_size, tail, tail_size);
  return 32 + record_size + tail_size;
}

/* ---- exact bytes ---------------------------------------------------------------------------------------- */

static void test_version1_bytes(void) {
  /* The layout of docs/formats.md, written out by hand: header, one primitive record, three floats. */
  static const unsigned char expected[] = {'S', 'K', 'I',  'N',  'R',  'E',  'F',  'V', 1, 0, 0, 0, 4, 0, 0, 0,    1,
                                           0,   0,   0,    0,    0,    0,    0,    0,   0, 0, 0, 0, 0, 0, 0, 2,    1,
                                           0,   0,   0xff, 0xff, 0xff, 0xff, 3,    0,   0, 0, 1, 0, 0, 0, 1, 0,    0,
                                           0,   0,   0,    0,    0,    0,    0,    0,   0, 0, 0, 0, 0, 0, 0, 0x80, 0x3f,
                                           0,   0,   0,    0xc0, 0xcd, 0xcc, 0xcc, 0x3d};
  const float position[3] = {1.0f, -2.0f, 0.1f};
  skinref_skv_primitive primitive;
  skinref_dump_error error;
  unsigned char *bytes;
  size_t size;
  memset(&primitive, 0, sizeof primitive);
  primitive.node = 258;
  primitive.mesh = -1;
  primitive.primitive = 3;
  primitive.skinned = 1;
  primitive.vertex_count = 1;
  primitive.positions = skinref_dump_f32(position);
  CHECK(skinref_skv_write(path_of("v1.skv"), SKINREF_DUMP_F32, NULL, &primitive, 1, &error) == SKINREF_DUMP_OK);
  CHECK(error.code == SKINREF_DUMP_OK && error.message[0] == '\0');
  bytes = read_all(path_of("v1.skv"), &size);
  CHECK(bytes && size == sizeof expected && memcmp(bytes, expected, size) == 0);
  free(bytes);

  {
    /* f64: 0.1 is 0x3fb999999999999a, little-endian. */
    static const unsigned char value_bytes[8] = {0x9a, 0x99, 0x99, 0x99, 0x99, 0x99, 0xb9, 0x3f};
    const double position64[3] = {0.1, 0.1, 0.1};
    primitive.positions = skinref_dump_f64(position64);
    CHECK(skinref_skv_write(path_of("v1.skv"), SKINREF_DUMP_F64, NULL, &primitive, 1, &error) == SKINREF_DUMP_OK);
    bytes = read_all(path_of("v1.skv"), &size);
    CHECK(bytes && size == 32 + 32 + 24);
    if (bytes && size == 88) {
      CHECK(bytes[12] == 8);
      CHECK(memcmp(bytes + 64, value_bytes, 8) == 0 && memcmp(bytes + 72, value_bytes, 8) == 0 &&
            memcmp(bytes + 80, value_bytes, 8) == 0);
    }
    free(bytes);
  }
}

static void test_record_bytes(void) {
  static const char expected[] =
      "{\"writer\":\"a \\\"q\\\" \\\\ b\\n\\t\\u0001 \xc3\xa9\",\"model\":\"builtin:bend\",\"animation\":\"0\","
      "\"time\":0.10000000000000001,\"method\":\"lbs\",\"palette\":\"own\","
      "\"conventions\":{\"rotation\":\"nlerp\",\"weights\":\"renormalize\"},"
      "\"model_hash\":\"fnv1a64:0123456789abcdef\",\"joint_names\":[\"shoulder\",\"elbow\"],"
      "\"layout\":\"xyz-interleaved\",\"precision\":\"f64\"}";
  const char *writer = "a \"q\" \\ b\n\t\x01 \xc3\xa9";
  const skinref_dump_convention conventions[2] = {{"rotation", "nlerp"}, {"weights", "renormalize"}};
  const char *joint_names[2] = {"shoulder", "elbow"};
  skinref_dump_record record;
  skinref_dump_error error;
  skinref_skv skv;
  unsigned char *bytes;
  size_t size;
  const size_t length = strlen(expected);
  memset(&record, 0, sizeof record);
  record.writer = writer;
  record.model = "builtin:bend";
  record.model_hash = "fnv1a64:0123456789abcdef";
  record.animation = "0";
  record.has_time = 1;
  record.time = 0.1;
  record.method = "lbs";
  record.palette = "own";
  record.has_conventions = 1;
  record.conventions = conventions;
  record.convention_count = 2;
  record.joint_names = joint_names;
  record.joint_name_count = 2;
  CHECK(skinref_skv_write(path_of("record.skv"), SKINREF_DUMP_F64, &record, NULL, 0, &error) == SKINREF_DUMP_OK);
  bytes = read_all(path_of("record.skv"), &size);
  CHECK(bytes && size == 32 + length);
  if (bytes && size == 32 + length) {
    CHECK(bytes[8] == 2 && bytes[20] == 1); /* version 2, flags 1 */
    CHECK(bytes[24] == (length & 0xff) && bytes[25] == (length >> 8) && bytes[26] == 0);
    CHECK(memcmp(bytes + 32, expected, length) == 0);
  }
  free(bytes);

  CHECK(skinref_skv_open(path_of("record.skv"), &skv, &error) == SKINREF_DUMP_OK);
  CHECK(skv.version == 2 && skv.precision == 8 && skv.flags == 1 && skv.has_record && skv.primitive_count == 0);
  CHECK(skv.record_json && strcmp(skv.record_json, expected) == 0);
  CHECK(skv.record.writer && strcmp(skv.record.writer, writer) == 0);
  CHECK(skv.record.model && strcmp(skv.record.model, "builtin:bend") == 0);
  CHECK(skv.record.model_hash && strcmp(skv.record.model_hash, "fnv1a64:0123456789abcdef") == 0);
  CHECK(skv.record.animation && strcmp(skv.record.animation, "0") == 0);
  CHECK(skv.record.has_time && skv.record.time == 0.1);
  CHECK(skv.record.method && strcmp(skv.record.method, "lbs") == 0);
  CHECK(skv.record.palette && strcmp(skv.record.palette, "own") == 0);
  CHECK(skv.record.precision && strcmp(skv.record.precision, "f64") == 0);
  CHECK(skv.record.layout && strcmp(skv.record.layout, "xyz-interleaved") == 0);
  CHECK(skv.record.has_conventions && skv.record.convention_count == 2);
  if (skv.record.convention_count == 2) {
    CHECK(strcmp(skv.record.conventions[0].name, "rotation") == 0 &&
          strcmp(skv.record.conventions[0].value, "nlerp") == 0);
    CHECK(strcmp(skv.record.conventions[1].name, "weights") == 0 &&
          strcmp(skv.record.conventions[1].value, "renormalize") == 0);
  }
  CHECK(skv.record.joint_name_count == 2);
  if (skv.record.joint_name_count == 2)
    CHECK(strcmp(skv.record.joint_names[0], "shoulder") == 0 && strcmp(skv.record.joint_names[1], "elbow") == 0);
  skinref_skv_close(&skv);
  CHECK(skv.internal_ == NULL && skv.primitives == NULL && skv.record_json == NULL);
}

/* A record written by another JSON writer: escapes, whitespace, unknown keys, "ranges" left alone. */
static void test_record_reading(void) {
  static const char record[] =
      " {\n \"writer\" : \"\\u00e9\\ud83d\\ude00\\/\" "
      ",\"ranges\":[{\"node\":1,\"first\":0,\"count\":0,\"skinned\":true}],"
      "\"future\":{\"a\":[null,false,-1.5e-3,{}]},\"time\":2.5E-1,\"conventions\":{},\"joint_names\":[]}\r\n";
  unsigned char bytes[512];
  const size_t size = build(bytes, 2, 4, 0, 1, record, NULL, 0);
  skinref_skv skv;
  skinref_dump_error error;
  CHECK(write_all(path_of("other.skv"), bytes, size));
  CHECK(skinref_skv_open(path_of("other.skv"), &skv, &error) == SKINREF_DUMP_OK);
  CHECK(skv.record.writer && strcmp(skv.record.writer, "\xc3\xa9\xf0\x9f\x98\x80/") == 0);
  CHECK(skv.record.has_time && skv.record.time == 0.25);
  CHECK(skv.record.has_conventions && skv.record.convention_count == 0);
  CHECK(skv.record.joint_name_count == 0 && skv.record.model == NULL && skv.record.precision == NULL);
  skinref_skv_close(&skv);
}

/* ---- values: round trips, attribute combinations, caller buffers, precision ------------------------------ */

/* The values of test_round_trip's three primitives (file scope, so that its steps share them). Primitive 0:
 * normals and tangents; 1: tangents only; 2: no vertices. */
static const double trip_positions[9] = {0.1, -0.0, 4.9406564584124654e-324, DBL_MAX, -1.5, 2.0 / 3.0, 1e-40, 7.0,
                                         -8.25};
static const double trip_normals[9] = {0, 0, 1, 0.6, 0.8, 0, -1, 0, 0};
static const double trip_tangents[12] = {1, 0, 0, 1, 0, 1, 0, -1, 0.5, 0.5, 0.5, 1};
static const float trip_positions1[6] = {1.5f, 2.5f, 3.5f, 0.1f, 0.2f, 0.3f};
static const float trip_tangents1[8] = {1, 0, 0, 1, 0, 0, 1, -1};

/* Fills the three primitives and the record that test_round_trip writes. */
static void round_trip_primitives(skinref_skv_primitive primitives[3], skinref_dump_record *record) {
  memset(primitives, 0, 3 * sizeof primitives[0]);
  memset(record, 0, sizeof *record);
  record->writer = "dump_h_test";
  primitives[0].node = 3;
  primitives[0].skinned = 1;
  primitives[0].vertex_count = 3;
  primitives[0].positions = skinref_dump_f64(trip_positions);
  primitives[0].normals = skinref_dump_f64(trip_normals);
  primitives[0].tangents = skinref_dump_f64(trip_tangents);
  primitives[1].node = 4;
  primitives[1].mesh = 1;
  primitives[1].primitive = 2;
  primitives[1].vertex_count = 2;
  primitives[1].positions = skinref_dump_f32(trip_positions1);
  primitives[1].tangents = skinref_dump_f32(trip_tangents1);
  primitives[2].node = 5;
  primitives[2].skinned = 1;
}

/* Reading trip.skv (opened, three primitives) into the caller's arrays: exact in f64, rounded in f32. */
static void check_reads_into_caller_arrays(skinref_skv *skv) {
  skinref_dump_error error;
  double values[12];
  float floats[12];
  CHECK(skv->primitives[0].node == 3 && skv->primitives[0].attributes == 7 && skv->primitives[0].skinned == 1 &&
        skv->primitives[0].vertex_count == 3);
  CHECK(skv->primitives[1].node == 4 && skv->primitives[1].mesh == 1 && skv->primitives[1].primitive == 2 &&
        skv->primitives[1].attributes == 4 && skv->primitives[1].skinned == 0 && skv->primitives[1].vertex_count == 2);
  CHECK(skv->primitives[2].attributes == 1 && skv->primitives[2].vertex_count == 0);
  CHECK(skv->primitives[0].positions.f32 == NULL && skv->primitives[0].positions.f64 == NULL); /* not loaded yet */

  /* Into the caller's arrays: exact in f64. */
  CHECK(skinref_skv_read_f64(skv, 0, SKINREF_SKV_POSITIONS, values, 9, &error) == SKINREF_DUMP_OK);
  CHECK(memcmp(values, trip_positions, sizeof trip_positions) == 0); /* -0.0, the subnormal and DBL_MAX bit for bit */
  CHECK(skinref_skv_read_f64(skv, 0, SKINREF_SKV_NORMALS, values, 9, &error) == SKINREF_DUMP_OK);
  CHECK(memcmp(values, trip_normals, sizeof trip_normals) == 0);
  CHECK(skinref_skv_read_f64(skv, 0, SKINREF_SKV_TANGENTS, values, 12, &error) == SKINREF_DUMP_OK);
  CHECK(memcmp(values, trip_tangents, sizeof trip_tangents) == 0);
  /* Tangents without normals follow the positions directly. */
  CHECK(skinref_skv_read_f32(skv, 1, SKINREF_SKV_TANGENTS, floats, 8, &error) == SKINREF_DUMP_OK);
  CHECK(memcmp(floats, trip_tangents1, sizeof trip_tangents1) == 0);
  CHECK(skinref_skv_read_f32(skv, 1, SKINREF_SKV_POSITIONS, floats, 6, &error) == SKINREF_DUMP_OK);
  CHECK(memcmp(floats, trip_positions1, sizeof trip_positions1) == 0);
  /* f64 read into floats: each rounded to the nearest float, DBL_MAX to infinity. */
  CHECK(skinref_skv_read_f32(skv, 0, SKINREF_SKV_POSITIONS, floats, 9, &error) == SKINREF_DUMP_OK);
  CHECK(floats[0] == 0.1f && floats[4] == -1.5f && floats[5] == (float)(2.0 / 3.0) && floats[3] > FLT_MAX);
  CHECK(skinref_skv_read_f64(skv, 2, SKINREF_SKV_POSITIONS, NULL, 0, &error) == SKINREF_DUMP_OK);
}

/* The caller's mistakes reading trip.skv: too small an array, an attribute it lacks, a primitive past the end. */
static void check_caller_mistakes(skinref_skv *skv) {
  skinref_dump_error error;
  double values[12];
  float floats[12];
  CHECK(skinref_skv_read_f64(skv, 0, SKINREF_SKV_POSITIONS, values, 8, &error) == SKINREF_DUMP_ERROR_ARGUMENT);
  CHECK_ERROR(error, SKINREF_DUMP_ERROR_ARGUMENT, "primitive 0: an output array of 9 numbers, got 8");
  CHECK(skinref_skv_read_f32(skv, 1, SKINREF_SKV_NORMALS, floats, 12, &error) == SKINREF_DUMP_ERROR_ARGUMENT);
  CHECK_ERROR(error, SKINREF_DUMP_ERROR_ARGUMENT, "primitive 1: normals, but it has none (attributes 4)");
  CHECK(skinref_skv_read_f32(skv, 3, SKINREF_SKV_POSITIONS, floats, 12, &error) == SKINREF_DUMP_ERROR_ARGUMENT);
  CHECK_ERROR(error, SKINREF_DUMP_ERROR_ARGUMENT, "primitive 3: below the primitive count 3");
}

/* trip.skv loaded into the skv's arrays, then written again as again.skv; the caller compares the bytes. */
static void check_load_and_write_again(skinref_skv *skv) {
  skinref_dump_error error;
  CHECK(skinref_skv_load(skv, SKINREF_DUMP_F64, &error) == SKINREF_DUMP_OK);
  CHECK(skv->primitives[0].positions.f64 &&
        memcmp(skv->primitives[0].positions.f64, trip_positions, sizeof trip_positions) == 0);
  CHECK(skv->primitives[1].normals.f64 == NULL && skv->primitives[1].tangents.f64 != NULL);
  CHECK(skinref_skv_write(path_of("again.skv"), SKINREF_DUMP_F64, &skv->record, skv->primitives, skv->primitive_count,
                          &error) == SKINREF_DUMP_OK);
}

/* The first two primitives written as f32: the float rounding of each double; beyond the float range, infinity. */
static void check_written_as_f32(const skinref_skv_primitive primitives[3], const skinref_dump_record *record) {
  skinref_dump_error error;
  skinref_skv skv;
  size_t i;
  CHECK(skinref_skv_write(path_of("trip32.skv"), SKINREF_DUMP_F32, record, primitives, 2, &error) == SKINREF_DUMP_OK);
  CHECK(skinref_skv_open(path_of("trip32.skv"), &skv, &error) == SKINREF_DUMP_OK);
  CHECK(skv.precision == 4 && skv.record.precision && strcmp(skv.record.precision, "f32") == 0);
  CHECK(skinref_skv_load(&skv, SKINREF_DUMP_F32, &error) == SKINREF_DUMP_OK);
  if (skv.primitive_count == 2 && skv.primitives[0].positions.f32) {
    const float *p = skv.primitives[0].positions.f32;
    CHECK(p[0] == 0.1f && p[1] == 0.0f && p[2] == 0.0f && p[3] > FLT_MAX && p[4] == -1.5f &&
          p[5] == (float)(2.0 / 3.0) && p[6] == (float)1e-40 && p[7] == 7.0f && p[8] == -8.25f);
    for (i = 0; i < 12; ++i) CHECK(skv.primitives[0].tangents.f32[i] == (float)trip_tangents[i]);
    CHECK(memcmp(skv.primitives[1].positions.f32, trip_positions1, sizeof trip_positions1) == 0);
  }
  skinref_skv_close(&skv);
}

/* The float range's edge: up to the midpoint between FLT_MAX and 2^128 rounds to FLT_MAX, from it on to inf. */
static void check_float_range_edge(void) {
  const double edge[6] = {(double)FLT_MAX,
                          340282356779733623858607532500980858880.0,
                          340282356779733661637539395458142568448.0,
                          -1e300,
                          1e300,
                          -(double)FLT_MAX};
  skinref_skv_primitive p;
  skinref_dump_error error;
  skinref_skv skv;
  float read[6];
  memset(&p, 0, sizeof p);
  p.vertex_count = 2;
  p.positions = skinref_dump_f64(edge);
  CHECK(skinref_skv_write(path_of("edge.skv"), SKINREF_DUMP_F32, NULL, &p, 1, &error) == SKINREF_DUMP_OK);
  CHECK(skinref_skv_open(path_of("edge.skv"), &skv, &error) == SKINREF_DUMP_OK);
  CHECK(skinref_skv_read_f32(&skv, 0, SKINREF_SKV_POSITIONS, read, 6, &error) == SKINREF_DUMP_OK);
  CHECK(read[0] == FLT_MAX && read[1] == FLT_MAX && read[2] > FLT_MAX && read[3] < -FLT_MAX && read[4] > FLT_MAX &&
        read[5] == -FLT_MAX);
  skinref_skv_close(&skv);
}

static void test_round_trip(void) {
  skinref_skv_primitive primitives[3];
  skinref_dump_record record;
  skinref_dump_error error;
  skinref_skv skv;
  unsigned char *first, *second;
  size_t first_size, second_size;

  round_trip_primitives(primitives, &record);
  CHECK(skinref_skv_write(path_of("trip.skv"), SKINREF_DUMP_F64, &record, primitives, 3, &error) == SKINREF_DUMP_OK);
  CHECK(skinref_skv_open(path_of("trip.skv"), &skv, &error) == SKINREF_DUMP_OK);
  CHECK(skv.primitive_count == 3);
  if (skv.primitive_count == 3) {
    check_reads_into_caller_arrays(&skv);
    check_caller_mistakes(&skv);
    check_load_and_write_again(&skv);
  }
  skinref_skv_close(&skv);
  /* Loaded and written again: the same bytes. */
  first = read_all(path_of("trip.skv"), &first_size);
  second = read_all(path_of("again.skv"), &second_size);
  CHECK(first && second && first_size == second_size && memcmp(first, second, first_size) == 0);
  free(first);
  free(second);

  check_written_as_f32(primitives, &record);
  check_float_range_edge();
}

/* ---- malformed files ------------------------------------------------------------------------------------- */

static void test_every_prefix_refused(void) {
  const double positions[6] = {1, 2, 3, 4, 5, 6};
  const double normals[6] = {0, 0, 1, 0, 1, 0};
  skinref_skv_primitive primitives[2];
  skinref_dump_record record;
  skinref_dump_error error;
  unsigned char *bytes;
  size_t size, cut;
  int all_refused = 1;
  memset(primitives, 0, sizeof primitives);
  memset(&record, 0, sizeof record);
  record.model = "builtin:bend";
  primitives[0].vertex_count = 2;
  primitives[0].positions = skinref_dump_f64(positions);
  primitives[0].normals = skinref_dump_f64(normals);
  primitives[1].vertex_count = 1;
  primitives[1].positions = skinref_dump_f64(positions);
  CHECK(skinref_skv_write(path_of("whole.skv"), SKINREF_DUMP_F64, &record, primitives, 2, &error) == SKINREF_DUMP_OK);
  bytes = read_all(path_of("whole.skv"), &size);
  CHECK(bytes != NULL);
  if (!bytes) return;
  for (cut = 0; cut < size; ++cut) {
    skinref_skv skv;
    int code;
    CHECK(write_all(path_of("cut.skv"), bytes, cut));
    code = skinref_skv_open(path_of("cut.skv"), &skv, &error);
    if (code != SKINREF_DUMP_ERROR_FORMAT && code != SKINREF_DUMP_ERROR_RECORD) {
      all_refused = 0;
      fprintf(stderr, "  a prefix of %lu bytes: code %d (%s)\n", (unsigned long)cut, code, error.message);
    }
    CHECK(strstr(error.message, "cut.skv: at byte ") != NULL);
    skinref_skv_close(&skv);
  }
  CHECK(all_refused);
  /* Some prefixes and what they say. */
  expect_refused(bytes, 31, SKINREF_DUMP_ERROR_FORMAT,
                 "at byte 0: a 32-byte .skv header, but the file has only 31 bytes");
  expect_refused(bytes, 40, SKINREF_DUMP_ERROR_FORMAT, "at byte 24: a record of at most 1048576 bytes within the file");
  expect_refused(bytes, size - 1, SKINREF_DUMP_ERROR_FORMAT,
                 "1 vertices of 24 bytes for primitive 1, but only 23 bytes remain");
  {
    /* One byte too many. */
    unsigned char *longer = (unsigned char *)malloc(size + 1);
    CHECK(longer != NULL);
    if (longer) {
      memcpy(longer, bytes, size);
      longer[size] = 0;
      expect_refused(longer, size + 1, SKINREF_DUMP_ERROR_FORMAT,
                     "the end of the file after the last primitive, but 1 more bytes follow");
      free(longer);
    }
  }
  free(bytes);
}

/* One valid primitive record with one f64 vertex, to be spoiled field by field. */
static void valid_primitive_record(unsigned char primitive[32 + 24]) {
  memset(primitive, 0, 32 + 24);
  put32(primitive + 12, 1);
  put64(primitive + 16, 1);
}

/* The header's fields, each spoiled in a file that is otherwise valid (and is first shown to open). */
static void check_bad_header_fields(void) {
  unsigned char bytes[4096], primitive[32 + 24];
  size_t size;
  skinref_skv skv;
  skinref_dump_error error;

  valid_primitive_record(primitive);
  size = build(bytes, 1, 8, 1, 0, NULL, primitive, sizeof primitive);
  CHECK(write_all(path_of("valid.skv"), bytes, size));
  CHECK(skinref_skv_open(path_of("valid.skv"), &skv, &error) == SKINREF_DUMP_OK);
  skinref_skv_close(&skv);

  bytes[0] = 'X';
  expect_refused(bytes, size, SKINREF_DUMP_ERROR_FORMAT, "bad.skv: at byte 0: the magic \"SKINREFV\"");
  size = build(bytes, 3, 8, 1, 0, NULL, primitive, sizeof primitive);
  expect_refused(bytes, size, SKINREF_DUMP_ERROR_FORMAT, "at byte 8: version 1 or 2, found 3");
  size = build(bytes, 1, 5, 1, 0, NULL, primitive, sizeof primitive);
  expect_refused(bytes, size, SKINREF_DUMP_ERROR_FORMAT, "at byte 12: precision 4 (f32) or 8 (f64), found 5");
  size = build(bytes, 1, 8, 1, 1, NULL, primitive, sizeof primitive);
  expect_refused(bytes, size, SKINREF_DUMP_ERROR_FORMAT, "at byte 20: flags 0 for version 1, found 1");
  size = build(bytes, 2, 8, 1, 3, NULL, primitive, sizeof primitive);
  expect_refused(bytes, size, SKINREF_DUMP_ERROR_FORMAT, "at byte 20: flags 0 or 1 for version 2, found 3");
  size = build(bytes, 1, 8, 1, 0, NULL, primitive, sizeof primitive);
  put64(bytes + 24, 4);
  expect_refused(bytes, size, SKINREF_DUMP_ERROR_FORMAT, "at byte 24: 0 (reserved: no record), found 4");
  size = build(bytes, 2, 8, 1, 1, NULL, primitive, sizeof primitive);
  put64(bytes + 24, (uint64_t)1 << 40);
  expect_refused(bytes, size, SKINREF_DUMP_ERROR_FORMAT,
                 "at byte 24: a record of at most 1048576 bytes within the file, found 1099511627776");
}

/* Counts that overrun the file, and the primitive record's own fields. */
static void check_bad_counts(void) {
  unsigned char bytes[4096], primitive[32 + 24];
  size_t size;

  valid_primitive_record(primitive);
  size = build(bytes, 1, 8, 1000000, 0, NULL, primitive, sizeof primitive);
  expect_refused(bytes, size, SKINREF_DUMP_ERROR_FORMAT,
                 "at byte 16: 1000000 primitive records of 32 bytes, but only 56 bytes follow the header");
  size = build(bytes, 1, 8, 2, 0, NULL, primitive, sizeof primitive);
  memset(bytes + size, 0, 8); /* 64 bytes after the header: room for two records, not for the first's data too */
  expect_refused(bytes, size + 8, SKINREF_DUMP_ERROR_FORMAT,
                 "at byte 88: the 32-byte record of primitive 1, but the file ends at byte 96");
  size = build(bytes, 1, 8, 1, 0, NULL, primitive, sizeof primitive);
  put64(bytes + 32 + 16, 2);
  expect_refused(bytes, size, SKINREF_DUMP_ERROR_FORMAT,
                 "at byte 48: 2 vertices of 24 bytes for primitive 0, but only 24 bytes remain");
  put64(bytes + 32 + 16, UINT64_MAX); /* a count whose byte size overflows 64 bits */
  expect_refused(bytes, size, SKINREF_DUMP_ERROR_FORMAT,
                 "at byte 48: 18446744073709551615 vertices of 24 bytes for primitive 0");
  put64(bytes + 32 + 16, 1);
  put32(bytes + 32 + 12, 7); /* normals and tangents claimed, not there */
  expect_refused(bytes, size, SKINREF_DUMP_ERROR_FORMAT,
                 "1 vertices of 80 bytes for primitive 0, but only 24 bytes remain");
  put32(bytes + 32 + 12, 9);
  expect_refused(bytes, size, SKINREF_DUMP_ERROR_FORMAT,
                 "at byte 44: attribute bits within 0x7 for primitive 0, found 9");
  put32(bytes + 32 + 12, 1);
  put64(bytes + 32 + 24, 5);
  expect_refused(bytes, size, SKINREF_DUMP_ERROR_FORMAT, "at byte 56: reserved 0 for primitive 0, found 5");
}

/* Records whose JSON parses but whose fields are wrong: the precision contradicting the header, bad values. */
static void check_bad_record_fields(void) {
  unsigned char bytes[4096];
  size_t size;

  size = build(bytes, 2, 4, 0, 1, "{\"writer\":\"x\",\"precision\":\"f64\"}", NULL, 0);
  expect_refused(bytes, size, SKINREF_DUMP_ERROR_RECORD,
                 "at byte 32: a JSON record: \"precision\" \"f64\" contradicts the header's precision (f32)");
  size = build(bytes, 2, 8, 0, 1, "{\"precision\":\"f16\"}", NULL, 0);
  expect_refused(bytes, size, SKINREF_DUMP_ERROR_RECORD, "\"precision\" is neither \"f32\" nor \"f64\"");
  size = build(bytes, 2, 8, 0, 1, "{\"layout\":\"planar\"}", NULL, 0);
  expect_refused(bytes, size, SKINREF_DUMP_ERROR_RECORD, "\"layout\" is not \"xyz-interleaved\"");
  size = build(bytes, 2, 8, 0, 1, "{\"palette\":\"gpu\"}", NULL, 0);
  expect_refused(bytes, size, SKINREF_DUMP_ERROR_RECORD, "\"palette\" is neither \"reference\" nor \"own\"");
  size = build(bytes, 2, 8, 0, 1, "{\"time\":\"0.5\"}", NULL, 0);
  expect_refused(bytes, size, SKINREF_DUMP_ERROR_RECORD, "at byte 40: a JSON record: \"time\" is not a number");
  size = build(bytes, 2, 8, 0, 1, "{\"time\":1e999}", NULL, 0);
  expect_refused(bytes, size, SKINREF_DUMP_ERROR_RECORD, "\"time\" is not finite");
  size = build(bytes, 2, 8, 0, 1, "{\"model\":3}", NULL, 0);
  expect_refused(bytes, size, SKINREF_DUMP_ERROR_RECORD, "\"model\" is not a string");
  size = build(bytes, 2, 8, 0, 1, "{\"joint_names\":[\"a\",2]}", NULL, 0);
  expect_refused(bytes, size, SKINREF_DUMP_ERROR_RECORD, "\"joint_names\": every name a string");
  size = build(bytes, 2, 8, 0, 1, "{\"conventions\":[]}", NULL, 0);
  expect_refused(bytes, size, SKINREF_DUMP_ERROR_RECORD, "\"conventions\" is not an object");
}

/* Records that a JSON reader refuses: syntax, strings, NUL bytes, nesting. */
static void check_bad_record_json(void) {
  unsigned char bytes[4096];
  size_t size;
  char deep[700];
  size_t i;

  size = build(bytes, 2, 8, 0, 1, "{\"writer\":\"a\"", NULL, 0);
  expect_refused(bytes, size, SKINREF_DUMP_ERROR_RECORD, "at byte 45: a JSON record: ',' or '}' in an object");
  size = build(bytes, 2, 8, 0, 1, "{\"writer\":\"unterminated}", NULL, 0);
  expect_refused(bytes, size, SKINREF_DUMP_ERROR_RECORD, "the closing quote of a string");
  size = build(bytes, 2, 8, 0, 1, "[1]", NULL, 0);
  expect_refused(bytes, size, SKINREF_DUMP_ERROR_RECORD, "at byte 32: a JSON record: a JSON object");
  size = build(bytes, 2, 8, 0, 1, "{} {}", NULL, 0);
  expect_refused(bytes, size, SKINREF_DUMP_ERROR_RECORD,
                 "at byte 35: a JSON record: the end of the record after its object");
  size = build(bytes, 2, 8, 0, 1, "{\"writer\":\"\xff\"}", NULL, 0);
  expect_refused(bytes, size, SKINREF_DUMP_ERROR_RECORD, "valid UTF-8");
  size = build(bytes, 2, 8, 0, 1, "{\"writer\":\"\\ud800\"}", NULL, 0);
  expect_refused(bytes, size, SKINREF_DUMP_ERROR_RECORD, "a \\u low surrogate after a high one");
  size = build(bytes, 2, 8, 0, 1, "{\"model\":\"a\\u0000b\"}", NULL, 0);
  expect_refused(bytes, size, SKINREF_DUMP_ERROR_RECORD, "no \\u0000 in a string (C strings end at NUL)");
  size = build(bytes, 2, 8, 0, 1, "{\"x\":01}", NULL, 0);
  expect_refused(bytes, size, SKINREF_DUMP_ERROR_RECORD, "',' or '}' in an object");
  size = build(bytes, 2, 8, 0, 1, "{\"x\":tru}", NULL, 0);
  expect_refused(bytes, size, SKINREF_DUMP_ERROR_RECORD, "a JSON value");
  size = build(bytes, 2, 8, 0, 1, "", NULL, 0);
  expect_refused(bytes, size, SKINREF_DUMP_ERROR_RECORD, "at byte 32: a JSON record: a JSON object");
  size = build(bytes, 2, 8, 0, 1, "{\"writer\":\"a\"}", NULL, 0);
  bytes[43] = '\0';
  expect_refused(bytes, size, SKINREF_DUMP_ERROR_RECORD, "no NUL byte inside it");
  strcpy(deep, "{\"x\":");
  for (i = 0; i < 300; ++i) strcat(deep, "[");
  for (i = 0; i < 300; ++i) strcat(deep, "]");
  strcat(deep, "}");
  size = build(bytes, 2, 8, 0, 1, deep, NULL, 0);
  expect_refused(bytes, size, SKINREF_DUMP_ERROR_RECORD, "JSON nested at most 256 levels deep");
}

static void test_bad_fields(void) {
  skinref_skv skv;
  skinref_dump_error error;
  check_bad_header_fields();
  check_bad_counts();
  check_bad_record_fields();
  check_bad_record_json();
  CHECK(skinref_skv_open(path_of("does-not-exist.skv"), &skv, &error) == SKINREF_DUMP_ERROR_IO);
  CHECK_ERROR(error, SKINREF_DUMP_ERROR_IO, "does-not-exist.skv: a readable .skv file (");
}

/* ---- the writers refuse bad arguments, and a failed write leaves the target as it was ---------------------- */

static int file_is(const char *path, const char *text) {
  size_t size;
  unsigned char *bytes = read_all(path, &size);
  const int same = bytes && size == strlen(text) && memcmp(bytes, text, size) == 0;
  free(bytes);
  return same;
}

static void test_writer_refusals(void) {
  const double positions[3] = {0, 0, 0};
  const char *target = path_of("keep.skv");
  skinref_skv_primitive primitive;
  skinref_dump_record record;
  skinref_dump_error error;
  FILE *probe;
  CHECK(write_all(target, "keep", 4));
  memset(&primitive, 0, sizeof primitive);
  memset(&record, 0, sizeof record);
  primitive.vertex_count = 1;
  CHECK(skinref_skv_write(target, SKINREF_DUMP_F32, NULL, &primitive, 1, &error) == SKINREF_DUMP_ERROR_ARGUMENT);
  CHECK_ERROR(error, SKINREF_DUMP_ERROR_ARGUMENT, "keep.skv: primitive 0: positions: exactly one of .f32 and .f64");
  primitive.positions = skinref_dump_f64(positions);
  primitive.normals.f32 = (const float *)positions;
  primitive.normals.f64 = positions;
  CHECK(skinref_skv_write(target, SKINREF_DUMP_F32, NULL, &primitive, 1, &error) == SKINREF_DUMP_ERROR_ARGUMENT);
  CHECK_ERROR(error, SKINREF_DUMP_ERROR_ARGUMENT, "primitive 0: normals: one of .f32 and .f64, or neither");
  primitive.normals = skinref_dump_f64(NULL);
  CHECK(skinref_skv_write(target, (skinref_dump_precision)2, NULL, &primitive, 1, &error) ==
        SKINREF_DUMP_ERROR_ARGUMENT);
  CHECK_ERROR(error, SKINREF_DUMP_ERROR_ARGUMENT, "precision 4 (f32) or 8 (f64), got 2");
  record.palette = "gpu";
  CHECK(skinref_skv_write(target, SKINREF_DUMP_F32, &record, &primitive, 1, &error) == SKINREF_DUMP_ERROR_ARGUMENT);
  CHECK_ERROR(error, SKINREF_DUMP_ERROR_ARGUMENT, "record palette: \"own\" or \"reference\", got \"gpu\"");
  record.palette = NULL;
  record.precision = "f64";
  CHECK(skinref_skv_write(target, SKINREF_DUMP_F32, &record, &primitive, 1, &error) == SKINREF_DUMP_ERROR_ARGUMENT);
  CHECK_ERROR(error, SKINREF_DUMP_ERROR_ARGUMENT, "record precision: \"f32\" as the file is written, got \"f64\"");
  record.precision = NULL;
  record.layout = "planar";
  CHECK(skinref_skv_write(target, SKINREF_DUMP_F32, &record, &primitive, 1, &error) == SKINREF_DUMP_ERROR_ARGUMENT);
  CHECK_ERROR(error, SKINREF_DUMP_ERROR_ARGUMENT, "record layout: \"xyz-interleaved\", got \"planar\"");
  record.layout = NULL;
  record.model = "bad \xc3\x28 utf-8";
  CHECK(skinref_skv_write(target, SKINREF_DUMP_F32, &record, &primitive, 1, &error) == SKINREF_DUMP_ERROR_ARGUMENT);
  CHECK_ERROR(error, SKINREF_DUMP_ERROR_ARGUMENT, "model: valid UTF-8, but byte 4 is not");
  {
    const skinref_dump_convention bad_name[1] = {{"rot\xe2\x82", "slerp"}};
    record.model = NULL;
    record.has_conventions = 1;
    record.conventions = bad_name;
    record.convention_count = 1;
    CHECK(skinref_skv_write(target, SKINREF_DUMP_F32, &record, &primitive, 1, &error) == SKINREF_DUMP_ERROR_ARGUMENT);
    CHECK_ERROR(error, SKINREF_DUMP_ERROR_ARGUMENT, "a key: valid UTF-8, but byte 3 is not");
    record.has_conventions = 0;
  }
  record.model = "overlong \xc0\xaf";
  CHECK(skinref_skv_write(target, SKINREF_DUMP_F32, &record, &primitive, 1, &error) == SKINREF_DUMP_ERROR_ARGUMENT);
  record.model = NULL;
  record.has_time = 1;
  record.time = DBL_MAX * 2;
  CHECK(skinref_skv_write(target, SKINREF_DUMP_F32, &record, &primitive, 1, &error) == SKINREF_DUMP_ERROR_ARGUMENT);
  CHECK_ERROR(error, SKINREF_DUMP_ERROR_ARGUMENT, "record time: a finite number");
  record.time = 0.5;
  {
    const char *names[2] = {"a", "a"};
    record.joint_names = names;
    record.joint_name_count = 2;
    CHECK(skinref_skv_write(target, SKINREF_DUMP_F32, &record, &primitive, 1, &error) == SKINREF_DUMP_ERROR_ARGUMENT);
    CHECK_ERROR(error, SKINREF_DUMP_ERROR_ARGUMENT, "record joint_names[1]: each name once, but 'a' comes twice");
    record.joint_name_count = 0;
  }
  CHECK(file_is(target, "keep")); /* every refusal left it alone */

  /* A directory that does not exist: an I/O error and no file. */
  CHECK(skinref_skv_write(path_of("no-such-dir/x.skv"), SKINREF_DUMP_F32, &record, &primitive, 1, &error) ==
        SKINREF_DUMP_ERROR_IO);
  CHECK_ERROR(error, SKINREF_DUMP_ERROR_IO, "no-such-dir/x.skv: cannot create");
  probe = fopen(path_of("no-such-dir/x.skv"), "rb");
  CHECK(probe == NULL);
  if (probe) fclose(probe);

  /* A write that succeeds replaces the target. */
  CHECK(skinref_skv_write(target, SKINREF_DUMP_F32, &record, &primitive, 1, &error) == SKINREF_DUMP_OK);
  CHECK(!file_is(target, "keep"));
  {
    skinref_skv skv;
    CHECK(skinref_skv_open(target, &skv, &error) == SKINREF_DUMP_OK);
    CHECK(skv.record.has_time && skv.record.time == 0.5 && skv.primitive_count == 1);
    skinref_skv_close(&skv);
  }
}

/* ---- pose dumps ------------------------------------------------------------------------------------------- */

/* The values of test_pose_text's two-node, one-skin pose (file scope, so that its steps share them). */
static const double pose_tip_translation[3] = {1, 2, 3}, pose_root_translation[3] = {0, 0, 0};
static const float pose_tip_rotation[4] = {0, 0, 0.1f, 1};
static const double pose_root_rotation[4] = {0, 0, 0, 1};
static const float pose_tip_scale[3] = {1, 1, 1}, pose_root_scale[3] = {2, 2, 2};
static const double pose_tip_global[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 1, 2, 3, 1};
static const double pose_root_global[16] = {2, 0, 0, 0, 0, 2, 0, 0, 0, 0, 2, 0, 0, 0, 0, 1};
static const float pose_weights[2] = {0.25f, -0.5f};
static const float pose_normal_matrices[18] = {1, 0, 0, 0, 1, 0, 0, 0, 1, 0.5f, 0, 0, 0, 0.5f, 0, 0, 0, 0.5f};
static const skinref_dump_convention pose_conventions[1] = {{"rotation", "nlerp"}};

/* The pose and what it points into that the steps change (the joint names) or that is built (the palette): the
 * pose points into the fixture, so a fixture stays where pose_fixture_fill filled it. */
typedef struct {
  double palette[32];
  const char *joint_names[2];
  skinref_pose_node nodes[2];
  skinref_pose_skin skin;
  skinref_pose pose;
} pose_fixture;

static void pose_fixture_fill(pose_fixture *f) {
  memcpy(f->palette, pose_tip_global, sizeof pose_tip_global);
  memcpy(f->palette + 16, pose_root_global, sizeof pose_root_global);
  f->joint_names[0] = "tip";
  f->joint_names[1] = "root";
  memset(f->nodes, 0, sizeof f->nodes);
  memset(&f->skin, 0, sizeof f->skin);
  memset(&f->pose, 0, sizeof f->pose);
  f->nodes[0].name = "tip";
  f->nodes[0].translation = skinref_dump_f64(pose_tip_translation);
  f->nodes[0].rotation = skinref_dump_f32(pose_tip_rotation);
  f->nodes[0].scale = skinref_dump_f32(pose_tip_scale);
  f->nodes[0].global = skinref_dump_f64(pose_tip_global);
  f->nodes[0].morph_weights = skinref_dump_f32(pose_weights);
  f->nodes[0].morph_weight_count = 2;
  f->nodes[1].name = "root";
  f->nodes[1].translation = skinref_dump_f64(pose_root_translation);
  f->nodes[1].rotation = skinref_dump_f64(pose_root_rotation);
  f->nodes[1].scale = skinref_dump_f32(pose_root_scale);
  f->nodes[1].global = skinref_dump_f64(pose_root_global);
  f->skin.name = "skin";
  f->skin.joint_count = 2;
  f->skin.joint_names = f->joint_names;
  f->skin.palette = skinref_dump_f64(f->palette);
  f->skin.normal_matrices = skinref_dump_f32(pose_normal_matrices);
  f->pose.writer = "dump_h_test";
  f->pose.source = "model \"x\".glb";
  f->pose.animation = -1;
  f->pose.recipe = "arm.json";
  f->pose.time = 0.1;
  f->pose.has_clip_time = 1;
  f->pose.clip_time = 0.5;
  f->pose.has_conventions = 1;
  f->pose.conventions = pose_conventions;
  f->pose.convention_count = 1;
  f->pose.matrix_order = SKINREF_POSE_COLUMN_MAJOR;
  f->pose.nodes = f->nodes;
  f->pose.node_count = 2;
  f->pose.skins = &f->skin;
  f->pose.skin_count = 1;
}

/* The fixture's pose, written column-major: exactly these bytes. */
static void check_pose_bytes(const char *target, const skinref_pose *pose) {
  static const char expected[] =
      "{\"format\":\"skinref-pose\",\"version\":1,\"writer\":\"dump_h_test\",\"source\":\"model \\\"x\\\".glb\","
      "\"animation\":null,\"recipe\":\"arm.json\",\"time\":0.10000000000000001,\"clip_time\":0.5,"
      "\"conventions\":{\"rotation\":\"nlerp\"},\"matrix_order\":\"column-major\",\n"
      "\"nodes\":[\n"
      "{\"name\":\"tip\",\"translation\":[1,2,3],\"rotation\":[0,0,0.10000000149011612,1],\"scale\":[1,1,1],"
      "\"global\":[1,0,0,0,0,1,0,0,0,0,1,0,1,2,3,1],\"morph_weights\":[0.25,-0.5]},\n"
      "{\"name\":\"root\",\"translation\":[0,0,0],\"rotation\":[0,0,0,1],\"scale\":[2,2,2],"
      "\"global\":[2,0,0,0,0,2,0,0,0,0,2,0,0,0,0,1],\"morph_weights\":[]}\n"
      "],\n"
      "\"skins\":[\n"
      "{\"name\":\"skin\",\"joint_names\":[\"tip\",\"root\"],\"palette\":[[1,0,0,0,0,1,0,0,0,0,1,0,1,2,3,1],"
      "[2,0,0,0,0,2,0,0,0,0,2,0,0,0,0,1]],\"normal_matrices\":[[1,0,0,0,1,0,0,0,1],[0.5,0,0,0,0.5,0,0,0,0.5]]}\n"
      "]}\n";
  skinref_dump_error error;
  size_t size;
  unsigned char *bytes;
  CHECK(skinref_pose_write(target, pose, &error) == SKINREF_DUMP_OK);
  bytes = read_all(target, &size);
  CHECK(bytes && size == strlen(expected) && memcmp(bytes, expected, size) == 0);
  if (bytes && (size != strlen(expected) || memcmp(bytes, expected, size) != 0))
    fprintf(stderr, "  pose.json:\n%.*s\n  expected:\n%s\n", (int)size, (const char *)bytes, expected);
  free(bytes);
}

/* Row-major is declared; the numbers are written as given. */
static void check_pose_row_major(const char *target, skinref_pose *pose) {
  skinref_dump_error error;
  size_t size;
  unsigned char *bytes;
  pose->matrix_order = SKINREF_POSE_ROW_MAJOR;
  pose->animation = 2;
  pose->recipe = NULL;
  CHECK(skinref_pose_write(target, pose, &error) == SKINREF_DUMP_OK);
  bytes = read_all(target, &size);
  CHECK(bytes && size > 0);
  if (bytes) {
    bytes[size - 1] = '\0';
    CHECK(strstr((const char *)bytes, "\"animation\":2,\"time\"") != NULL);
    CHECK(strstr((const char *)bytes, "\"matrix_order\":\"row-major\"") != NULL);
    CHECK(strstr((const char *)bytes, "\"global\":[1,0,0,0,0,1,0,0,0,0,1,0,1,2,3,1]") != NULL);
  }
  free(bytes);
}

/* Refusals leave the last good dump in place. Each spoils one field of the fixture and restores it (the time
 * to 0, the source to "m.glb"; the repeated joint name is left). */
static void check_pose_refusals(const char *target, pose_fixture *f) {
  skinref_dump_error error;
  CHECK(write_all(target, "keep", 4));
  {
    double bad_global[16];
    memcpy(bad_global, pose_root_global, sizeof bad_global);
    bad_global[5] = -DBL_MAX * 2;
    f->nodes[1].global = skinref_dump_f64(bad_global);
    CHECK(skinref_pose_write(target, &f->pose, &error) == SKINREF_DUMP_ERROR_ARGUMENT);
    CHECK_ERROR(error, SKINREF_DUMP_ERROR_ARGUMENT, "pose.json: node 1: finite numbers, but value 5 is not");
    f->nodes[1].global = skinref_dump_f64(pose_root_global);
  }
  f->nodes[1].name = NULL;
  CHECK(skinref_pose_write(target, &f->pose, &error) == SKINREF_DUMP_ERROR_ARGUMENT);
  CHECK_ERROR(error, SKINREF_DUMP_ERROR_ARGUMENT, "a name for every node or for none");
  f->nodes[1].name = "root";
  f->nodes[1].scale = skinref_dump_f32(NULL);
  CHECK(skinref_pose_write(target, &f->pose, &error) == SKINREF_DUMP_ERROR_ARGUMENT);
  CHECK_ERROR(error, SKINREF_DUMP_ERROR_ARGUMENT, "node 1: translation, rotation, scale and global, each exactly one");
  f->nodes[1].scale = skinref_dump_f32(pose_root_scale);
  f->pose.source = NULL;
  CHECK(skinref_pose_write(target, &f->pose, &error) == SKINREF_DUMP_ERROR_ARGUMENT);
  CHECK_ERROR(error, SKINREF_DUMP_ERROR_ARGUMENT, "source: the model, got NULL");
  f->pose.source = "m.glb";
  f->pose.time = -DBL_MAX * 2;
  CHECK(skinref_pose_write(target, &f->pose, &error) == SKINREF_DUMP_ERROR_ARGUMENT);
  CHECK_ERROR(error, SKINREF_DUMP_ERROR_ARGUMENT, "time: a finite number");
  f->pose.time = 0;
  f->joint_names[1] = "tip";
  CHECK(skinref_pose_write(target, &f->pose, &error) == SKINREF_DUMP_ERROR_ARGUMENT);
  CHECK_ERROR(error, SKINREF_DUMP_ERROR_ARGUMENT, "skin joint_names[1]: each name once, but 'tip' comes twice");
  CHECK(file_is(target, "keep"));
}

static void test_pose_text(void) {
  const char *target = path_of("pose.json");
  pose_fixture f;
  pose_fixture_fill(&f);
  check_pose_bytes(target, &f.pose);
  check_pose_row_major(target, &f.pose);
  check_pose_refusals(target, &f);
}

/* ---- the model hash ---------------------------------------------------------------------------------------- */

static void test_model_hash(void) {
  /* FNV-1a 64's published test values. */
  static const struct {
    const char *text, *hash;
  } cases[3] = {
      {"", "fnv1a64:cbf29ce484222325"}, {"a", "fnv1a64:af63dc4c8601ec8c"}, {"foobar", "fnv1a64:85944171f73967e8"}};
  skinref_dump_error error;
  char hash[25];
  int i;
  for (i = 0; i < 3; ++i) {
    CHECK(write_all(path_of("model.bin"), cases[i].text, strlen(cases[i].text)));
    CHECK(skinref_dump_model_hash(path_of("model.bin"), hash, &error) == SKINREF_DUMP_OK);
    CHECK(strcmp(hash, cases[i].hash) == 0);
  }
  CHECK(skinref_dump_model_hash(path_of("no-model.glb"), hash, &error) == SKINREF_DUMP_ERROR_IO);
  CHECK_ERROR(error, SKINREF_DUMP_ERROR_IO, "no-model.glb: a readable model file (");
}

int main(int argc, char **argv) {
  if (argc > 1) directory = argv[1];
  test_version1_bytes();
  test_record_bytes();
  test_record_reading();
  test_round_trip();
  test_every_prefix_refused();
  test_bad_fields();
  test_writer_refusals();
  test_pose_text();
  test_model_hash();
  if (failures) {
    fprintf(stderr, "dump_h_test: %d of %d checks failed\n", failures, checks);
    return 1;
  }
  printf("dump_h_test: all %d checks passed\n", checks);
  return 0;
}
