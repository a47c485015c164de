/* include/skinref/dump_read.h on its own, in C99: the reader needs neither the writer nor dump.h. .skv files are
 * built here byte by byte from the layout in docs/formats.md ("Vertex dumps (.skv)") and read back: the header,
 * the record's fields, each primitive's record and its values; a file cut short is refused.
 *   dump_read_alone_test DIR   (an existing directory for its files)
 * Exit 0 when every check holds; each failure prints FILE:LINE and the check. */
#define SKINREF_DUMP_READ_IMPLEMENTATION
#include <stdio.h>
#include <string.h>

#include "skinref/dump_read.h"

#include "cdump_test_support.h"

#if defined(SKINREF_DUMP_WRITE_H) || defined(SKINREF_DUMP_H)
#error "skinref/dump_read.h must not include the writer or the umbrella header"
#endif


/* A file's bytes, built field by field (little-endian, as docs/formats.md lays them out). */
typedef struct bytes {
  unsigned char data[1024];
  size_t size;
} bytes;

static void put(bytes *b, uint64_t value, int count) {
  int i;
  for (i = 0; i < count; ++i) b->data[b->size++] = (unsigned char)((value >> (8 * i)) & 0xffu);
}

static void put_text(bytes *b, const char *text) {
  memcpy(b->data + b->size, text, strlen(text));
  b->size += strlen(text);
}

static int write_all(const char *path, const unsigned char *data, size_t size) {
  FILE *out = fopen(path, "wb");
  int ok;
  if (!out) return 0;
  ok = fwrite(data, 1, size, out) == size;
  return fclose(out) == 0 && ok;
}

/* Version 2, f32, a record; one primitive (node 4, mesh 2, primitive 1) with every attribute, 1 vertex. */
static void version_2_f32(const char *directory) {
  static const char record[] =
      "{\"writer\":\"by hand\",\"model\":\"builtin:bend\",\"time\":0.25,\"palette\":\"own\","
      "\"conventions\":{\"rotation\":\"nlerp\"},\"joint_names\":[\"hip\",\"knee\"],"
      "\"layout\":\"xyz-interleaved\",\"precision\":\"f32\"}";
  char path[1024];
  bytes file;
  skinref_skv skv;
  skinref_dump_error error;
  float positions[3] = {0, 0, 0};
  double tangents[4] = {0, 0, 0, 0};
  file.size = 0;
  put_text(&file, "SKINREFV");
  put(&file, 2, 4);                 /* version 2 */
  put(&file, 4, 4);                 /* precision: f32 */
  put(&file, 1, 4);                 /* 1 primitive */
  put(&file, 1, 4);                 /* flags: a record follows */
  put(&file, sizeof record - 1, 8); /* its size */
  put_text(&file, record);          /* at byte 32 */
  put(&file, 4, 4);                 /* node */
  put(&file, 2, 4);                 /* mesh */
  put(&file, 1, 4);                 /* primitive */
  put(&file, 7, 4);                 /* attributes: skinned, normals, tangents */
  put(&file, 1, 8);                 /* 1 vertex */
  put(&file, 0, 8);                 /* reserved */
  put(&file, 0x3f800000u, 4);       /* position 1 */
  put(&file, 0xc0000000u, 4);       /*          -2 */
  put(&file, 0x3f000000u, 4);       /*          0.5 */
  put(&file, 0x00000000u, 4);       /* normal 0 */
  put(&file, 0x3f800000u, 4);       /*        1 */
  put(&file, 0x80000000u, 4);       /*        -0 */
  put(&file, 0x3f800000u, 4);       /* tangent 1 */
  put(&file, 0x00000000u, 4);       /*         0 */
  put(&file, 0x00000000u, 4);       /*         0 */
  put(&file, 0xbf800000u, 4);       /*         -1 */
  CHECK(file.size == 32 + (sizeof record - 1) + 32 + 10 * 4);
  snprintf(path, sizeof path, "%s/v2.skv", directory);
  CHECK(write_all(path, file.data, file.size));

  CHECK(skinref_skv_open(path, &skv, &error) == SKINREF_DUMP_OK);
  if (error.code != SKINREF_DUMP_OK) fprintf(stderr, "  %s\n", error.message);
  CHECK(skv.version == 2 && skv.precision == 4 && skv.flags == 1);
  CHECK(skv.has_record && skv.record_json && strcmp(skv.record_json, record) == 0);
  CHECK(skv.record.writer && strcmp(skv.record.writer, "by hand") == 0);
  CHECK(skv.record.model && strcmp(skv.record.model, "builtin:bend") == 0);
  CHECK(skv.record.has_time && skv.record.time == 0.25);
  CHECK(skv.record.palette && strcmp(skv.record.palette, "own") == 0);
  CHECK(skv.record.has_conventions && skv.record.convention_count == 1);
  if (skv.record.convention_count == 1)
    CHECK(strcmp(skv.record.conventions[0].name, "rotation") == 0 &&
          strcmp(skv.record.conventions[0].value, "nlerp") == 0);
  CHECK(skv.record.joint_name_count == 2);
  if (skv.record.joint_name_count == 2)
    CHECK(strcmp(skv.record.joint_names[0], "hip") == 0 && strcmp(skv.record.joint_names[1], "knee") == 0);
  CHECK(skv.record.layout && strcmp(skv.record.layout, "xyz-interleaved") == 0);
  CHECK(skv.record.precision && strcmp(skv.record.precision, "f32") == 0);
  CHECK(skv.primitive_count == 1);
  if (skv.primitive_count == 1) {
    const skinref_skv_primitive *p = &skv.primitives[0];
    CHECK(p->node == 4 && p->mesh == 2 && p->primitive == 1);
    CHECK(p->skinned && p->attributes == 7 && p->vertex_count == 1);
    CHECK(skinref_skv_read_f32(&skv, 0, SKINREF_SKV_POSITIONS, positions, 3, &error) == SKINREF_DUMP_OK);
    CHECK(positions[0] == 1.0f && positions[1] == -2.0f && positions[2] == 0.5f);
    CHECK(skinref_skv_read_f64(&skv, 0, SKINREF_SKV_TANGENTS, tangents, 4, &error) == SKINREF_DUMP_OK);
    CHECK(tangents[0] == 1.0 && tangents[1] == 0.0 && tangents[2] == 0.0 && tangents[3] == -1.0);
    CHECK(skinref_skv_read_f32(&skv, 0, SKINREF_SKV_POSITIONS, positions, 2, &error) == SKINREF_DUMP_ERROR_ARGUMENT);
    CHECK(skinref_skv_load(&skv, SKINREF_DUMP_F64, &error) == SKINREF_DUMP_OK);
    CHECK(p->normals.f64 != NULL && p->normals.f32 == NULL);
    if (p->normals.f64) {
      const double negative_zero = -0.0;
      CHECK(p->normals.f64[0] == 0.0 && p->normals.f64[1] == 1.0 && p->normals.f64[2] == 0.0);
      CHECK(memcmp(&p->normals.f64[2], &negative_zero, sizeof negative_zero) == 0); /* the sign of -0 kept */
    }
  }
  skinref_skv_close(&skv);
  CHECK(skv.internal_ == NULL && skv.primitives == NULL && skv.primitive_count == 0);

  /* The same file without its last byte: the primitive's data no longer fits. */
  CHECK(write_all(path, file.data, file.size - 1));
  CHECK(skinref_skv_open(path, &skv, &error) == SKINREF_DUMP_ERROR_FORMAT);
  CHECK(error.code == SKINREF_DUMP_ERROR_FORMAT && strstr(error.message, "at byte ") != NULL);
  CHECK(skv.internal_ == NULL && skv.primitive_count == 0);
  skinref_skv_close(&skv);
}

/* Version 1, f64, no record; one unskinned primitive with positions only, 2 vertices, read back as floats. */
static void version_1_f64(const char *directory) {
  char path[1024];
  bytes file;
  skinref_skv skv;
  skinref_dump_error error;
  float positions[6] = {0, 0, 0, 0, 0, 0};
  file.size = 0;
  put_text(&file, "SKINREFV");
  put(&file, 1, 4);                     /* version 1 */
  put(&file, 8, 4);                     /* precision: f64 */
  put(&file, 1, 4);                     /* 1 primitive */
  put(&file, 0, 4);                     /* flags */
  put(&file, 0, 8);                     /* reserved */
  put(&file, 0, 4);                     /* node */
  put(&file, 0, 4);                     /* mesh */
  put(&file, 3, 4);                     /* primitive */
  put(&file, 0, 4);                     /* attributes: none */
  put(&file, 2, 8);                     /* 2 vertices */
  put(&file, 0, 8);                     /* reserved */
  put(&file, 0x3ff0000000000000ull, 8); /* 1 */
  put(&file, 0x4000000000000000ull, 8); /* 2 */
  put(&file, 0x4008000000000000ull, 8); /* 3 */
  put(&file, 0xbfe0000000000000ull, 8); /* -0.5 */
  put(&file, 0x3fd0000000000000ull, 8); /* 0.25 */
  put(&file, 0x3fb999999999999aull, 8); /* 0.1 (nearest double) */
  CHECK(file.size == 32 + 32 + 6 * 8);
  snprintf(path, sizeof path, "%s/v1.skv", directory);
  CHECK(write_all(path, file.data, file.size));

  CHECK(skinref_skv_open(path, &skv, &error) == SKINREF_DUMP_OK);
  CHECK(skv.version == 1 && skv.precision == 8 && skv.flags == 0 && !skv.has_record && skv.record_json == NULL);
  CHECK(skv.primitive_count == 1);
  if (skv.primitive_count == 1) {
    CHECK(skv.primitives[0].primitive == 3 && !skv.primitives[0].skinned && skv.primitives[0].vertex_count == 2);
    CHECK(skinref_skv_read_f32(&skv, 0, SKINREF_SKV_POSITIONS, positions, 6, &error) == SKINREF_DUMP_OK);
    CHECK(positions[0] == 1.0f && positions[1] == 2.0f && positions[2] == 3.0f);
    CHECK(positions[3] == -0.5f && positions[4] == 0.25f && positions[5] == 0.1f); /* rounded to the nearest */
    CHECK(skinref_skv_read_f32(&skv, 0, SKINREF_SKV_NORMALS, positions, 6, &error) == SKINREF_DUMP_ERROR_ARGUMENT);
  }
  skinref_skv_close(&skv);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: dump_read_alone_test DIR\n");
    return 2;
  }
  version_2_f32(argv[1]);
  version_1_f64(argv[1]);
  if (failures != 0) {
    fprintf(stderr, "dump_read_alone_test: %d of %d checks failed\n", failures, checks);
    return 1;
  }
  printf("dump_read_alone_test: all %d checks passed\n", checks);
  return 0;
}
