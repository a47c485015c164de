/* include/skinref/dump_write.h on its own, in C99: the writer needs neither the reader nor dump.h. Two .skv files
 * written and compared byte for byte with files built here from the layout in docs/formats.md ("Vertex dumps
 * (.skv)"), and a refused write that leaves no file.
 *   dump_write_alone_test DIR   (an existing directory for its files)
 * Exit 0 when every check holds; each failure prints FILE:LINE and the check. */
#define SKINREF_DUMP_WRITE_IMPLEMENTATION
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "skinref/dump_write.h"

#include "cdump_test_support.h"

#if defined(SKINREF_DUMP_READ_H) || defined(SKINREF_DUMP_H)
#error "skinref/dump_write.h must not include the reader or the umbrella header"
#endif


/* The file at `path` holds exactly `expected_size` bytes, equal to `expected`. */
static void check_file(const char *path, const unsigned char *expected, size_t expected_size) {
  size_t size, i;
  unsigned char *bytes = read_all(path, &size);
  CHECK(bytes != NULL);
  CHECK(size == expected_size);
  if (bytes && size == expected_size) {
    for (i = 0; i < size && bytes[i] == expected[i]; ++i) {
    }
    CHECK(i == size);
    if (i != size)
      fprintf(stderr, "  %s: byte %lu is %02x, expected %02x\n", path, (unsigned long)i, bytes[i], expected[i]);
  }
  free(bytes);
}

/* Version 1 (no record), f32: one skinned primitive, 2 vertices, positions and normals, no tangents. */
static void version_1_f32(const char *directory) {
  static const float positions[6] = {1.0f, 2.0f, 3.0f, -0.5f, 0.25f, 4.0f};
  static const float normals[6] = {0.0f, 0.0f, 1.0f, 0.0f, 1.0f, 0.0f};
  /* docs/formats.md: a 32-byte header, a 32-byte primitive record, then 3 x 2 positions and 3 x 2 normals of 4
   * bytes each, little-endian; the floats are their IEEE 754 binary32 encodings. */
  static const unsigned char expected[32 + 32 + 24 + 24] = {
      'S',  'K',  'I',  'N',  'R',  'E',  'F',  'V', /* magic */
      1,    0,    0,    0,                           /* version 1 */
      4,    0,    0,    0,                           /* precision: 4 bytes (f32) */
      1,    0,    0,    0,                           /* 1 primitive */
      0,    0,    0,    0,                           /* flags: no record */
      0,    0,    0,    0,    0,    0,    0,    0,   /* reserved, 0 */
      2,    0,    0,    0,                           /* node 2 */
      1,    0,    0,    0,                           /* mesh 1 */
      0,    0,    0,    0,                           /* primitive 0 */
      3,    0,    0,    0,                           /* attributes: bit 0 skinned, bit 1 normals */
      2,    0,    0,    0,    0,    0,    0,    0,   /* 2 vertices */
      0,    0,    0,    0,    0,    0,    0,    0,   /* reserved */
      0x00, 0x00, 0x80, 0x3f, 0x00, 0x00, 0x00, 0x40, 0x00, 0x00, 0x40, 0x40, /* 1, 2, 3 */
      0x00, 0x00, 0x00, 0xbf, 0x00, 0x00, 0x80, 0x3e, 0x00, 0x00, 0x80, 0x40, /* -0.5, 0.25, 4 */
      0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80, 0x3f, /* 0, 0, 1 */
      0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80, 0x3f, 0x00, 0x00, 0x00, 0x00, /* 0, 1, 0 */
  };
  char path[1024];
  skinref_skv_primitive primitive;
  skinref_dump_error error;
  memset(&primitive, 0, sizeof primitive);
  primitive.node = 2;
  primitive.mesh = 1;
  primitive.primitive = 0;
  primitive.skinned = 1;
  primitive.vertex_count = 2;
  primitive.positions = skinref_dump_f32(positions);
  primitive.normals = skinref_dump_f32(normals);
  snprintf(path, sizeof path, "%s/v1.skv", directory);
  CHECK(skinref_skv_write(path, SKINREF_DUMP_F32, NULL, &primitive, 1, &error) == SKINREF_DUMP_OK);
  CHECK(error.code == SKINREF_DUMP_OK && error.message[0] == '\0');
  check_file(path, expected, sizeof expected);
}

/* Version 2 with a record, f64: one unskinned primitive, 1 vertex at (0, 0.25, 0), positions only. */
static void version_2_f64(const char *directory) {
  static const double positions[3] = {0.0, 0.25, 0.0};
  /* The record as docs/formats.md's worked example writes it: compact JSON, skinref's key order, "layout" and
   * "precision" last. */
  static const char record_json[] =
      "{\"writer\":\"alone test\",\"model\":\"builtin:twist\",\"time\":0.5,"
      "\"layout\":\"xyz-interleaved\",\"precision\":\"f64\"}";
  const size_t record_size = sizeof record_json - 1;
  static const unsigned char header[24] = {
      'S', 'K', 'I', 'N', 'R', 'E', 'F', 'V', 2, 0, 0, 0, /* magic, version 2 */
      8,   0,   0,   0,   1,   0,   0,   0,   1, 0, 0, 0, /* precision 8 (f64), 1 primitive, flags: a record */
  };
  static const unsigned char block[32 + 24] = {
      0,    0,    0,    0,    0,    0,    0,    0,    0, 0, 0, 0, /* node 0, mesh 0, primitive 0 */
      0,    0,    0,    0,                                        /* attributes: none (not skinned, positions only) */
      1,    0,    0,    0,    0,    0,    0,    0,                /* 1 vertex */
      0,    0,    0,    0,    0,    0,    0,    0,                /* reserved */
      0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,             /* 0 */
      0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xd0, 0x3f,             /* 0.25 */
      0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,             /* 0 */
  };
  unsigned char expected[32 + sizeof record_json + sizeof block];
  size_t size = 0, i;
  char path[1024];
  skinref_dump_record record;
  skinref_skv_primitive primitive;
  skinref_dump_error error;
  memcpy(expected, header, sizeof header);
  size += sizeof header;
  for (i = 0; i < 8; ++i) expected[size++] = (unsigned char)((record_size >> (8 * i)) & 0xffu); /* u64 size */
  memcpy(expected + size, record_json, record_size);
  size += record_size;
  memcpy(expected + size, block, sizeof block);
  size += sizeof block;
  CHECK(size == 32 + record_size + 32 + 3 * 8);

  memset(&record, 0, sizeof record);
  record.writer = "alone test";
  record.model = "builtin:twist";
  record.has_time = 1;
  record.time = 0.5;
  memset(&primitive, 0, sizeof primitive);
  primitive.vertex_count = 1;
  primitive.positions = skinref_dump_f64(positions);
  snprintf(path, sizeof path, "%s/v2.skv", directory);
  CHECK(skinref_skv_write(path, SKINREF_DUMP_F64, &record, &primitive, 1, &error) == SKINREF_DUMP_OK);
  check_file(path, expected, size);
}

/* A precision that is neither 4 nor 8: refused before anything is written. */
static void refused(const char *directory) {
  static const float positions[3] = {0.0f, 0.0f, 0.0f};
  char path[1024];
  size_t size;
  unsigned char *bytes;
  skinref_skv_primitive primitive;
  skinref_dump_error error;
  memset(&primitive, 0, sizeof primitive);
  primitive.vertex_count = 1;
  primitive.positions = skinref_dump_f32(positions);
  snprintf(path, sizeof path, "%s/refused.skv", directory);
  remove(path);
  CHECK(skinref_skv_write(path, (skinref_dump_precision)2, NULL, &primitive, 1, &error) == SKINREF_DUMP_ERROR_ARGUMENT);
  CHECK(error.code == SKINREF_DUMP_ERROR_ARGUMENT);
  CHECK(strstr(error.message, "precision 4 (f32) or 8 (f64), got 2") != NULL);
  bytes = read_all(path, &size);
  CHECK(bytes == NULL);
  free(bytes);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: dump_write_alone_test DIR\n");
    return 2;
  }
  version_1_f32(argv[1]);
  version_2_f64(argv[1]);
  refused(argv[1]);
  if (failures != 0) {
    fprintf(stderr, "dump_write_alone_test: %d of %d checks failed\n", failures, checks);
    return 1;
  }
  printf("dump_write_alone_test: all %d checks passed\n", checks);
  return 0;
}
