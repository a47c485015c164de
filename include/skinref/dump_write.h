/* skinref/dump_write.h: write skinref's dumps from an engine, in C99 (or C++).
 *
 * A single header (with skinref/dump_common.h, which it includes). Include it anywhere for the declarations; in
 * exactly one C or C++ file, first
 *
 *     #define SKINREF_DUMP_WRITE_IMPLEMENTATION
 *     #include "skinref/dump_write.h"
 *
 * for the implementation (skinref/dump.h with SKINREF_DUMP_IMPLEMENTATION gives the writer and the reader). It
 * needs the C standard library only, and float and double that are IEEE 754 binary32 and binary64 (checked at
 * compile time).
 *
 * What it does
 *   - skinref_skv_write: a .skv vertex dump, version 2 with a record (version 1 without), laid out as
 *     `skinref skin --out FILE.skv` writes it, byte for byte outside the record (layout: docs/formats.md,
 *     reference/io/vertex_dump.h). The record's JSON is built here from a skinref_dump_record, keys
 *     in skinref's order, every string escaped, every double printed with %.17g (it round-trips).
 *   - skinref_pose_write: a pose dump ({"format":"skinref-pose","version":1,...}) that `skinref compare` and
 *     `skinref bisect` read: node entries matched to the model's nodes by name, palette rows by joint name,
 *     matrices column- or row-major as declared, normal matrices optional.
 *   - skinref_dump_model_hash: the "fnv1a64:..." identity of a model file that skinref records.
 *
 * Contract (with skinref/dump_common.h's: units, byte order, arrays, errors)
 *   - Ownership: the writers only read the caller's arrays and strings, during the call.
 *   - Strings: invalid UTF-8 is refused, never written.
 *   - Precision: writing f32 rounds each value to the nearest float; f64 is written exactly.
 *   - Writes are atomic: the bytes go to "PATH.tmp-..." beside the target, every fwrite and the fclose are
 *     checked, and the temporary is renamed over PATH; on any failure it is removed and PATH is untouched
 *     (where rename() cannot replace a file, PATH is removed just before the rename). No state is kept
 *     between calls.
 *   - Not interpreted: convention names and values are not checked here: skinref checks them
 *     (docs/conventions.md).
 */
#include "dump_common.h"

#ifndef SKINREF_DUMP_WRITE_H
#define SKINREF_DUMP_WRITE_H

#ifdef __cplusplus
extern "C" {
#endif

/* Writes `primitive_count` primitives to `path` (.skv) in `precision`: version 2 with `record` (the library
 * adds "precision" and "layout"), version 1 when record is NULL. The record's JSON is at most 1 MiB. */
SKINREF_DUMP_DEF int skinref_skv_write(const char *path, skinref_dump_precision precision,
                                       const skinref_dump_record *record, const skinref_skv_primitive *primitives,
                                       size_t primitive_count, skinref_dump_error *error);

/* ---- pose dumps ------------------------------------------------------------------------------------------ */

typedef enum skinref_pose_matrix_order {
  SKINREF_POSE_COLUMN_MAJOR = 0, /* m[column * rows + row], glTF's and skinref's order */
  SKINREF_POSE_ROW_MAJOR = 1     /* m[row * columns + column]: written with "matrix_order": "row-major" */
} skinref_pose_matrix_order;

/* One node entry. Entries are matched to the model's nodes by name when every entry has one (and the
 * model's names are unique), so they may come in the engine's order; with no names, entry n is node n.
 * There must be one entry per node of the model. */
typedef struct skinref_pose_node {
  const char *name;                 /* the model's node name, or NULL for every node (model order) */
  skinref_dump_reals translation;   /* 3: the local translation */
  skinref_dump_reals rotation;      /* 4: the local rotation as a quaternion x y z w */
  skinref_dump_reals scale;         /* 3: the local scale */
  skinref_dump_reals global;        /* 16: the model-space (global) matrix */
  skinref_dump_reals morph_weights; /* morph_weight_count values (the node's mesh's targets), may be absent if 0 */
  size_t morph_weight_count;
} skinref_pose_node;

/* One skin, in the model's skin order. */
typedef struct skinref_pose_skin {
  const char *name;                   /* optional */
  size_t joint_count;                 /* the model's joint count for this skin */
  const char *const *joint_names;     /* optional: row r of the palette is joint joint_names[r] (the engine's order);
                                         NULL: the skin's joint order */
  skinref_dump_reals palette;         /* joint_count x 16: global(joint) x inverse bind matrix */
  skinref_dump_reals normal_matrices; /* joint_count x 9, or both NULL: left out (skinref derives them) */
} skinref_pose_skin;

typedef struct skinref_pose {
  const char *writer; /* optional, e.g. "my engine 1.2" */
  const char *source; /* required: the model, as skinref loads it */
  int animation;      /* the clip index, or -1 for none (the rest pose or a recipe: null) */
  const char *recipe; /* optional: the recipe file the pose was evaluated from */
  double time;        /* seconds, finite: must equal the reference dump's time exactly */
  int has_clip_time;
  double clip_time; /* optional: the clip time `time` mapped to (bisect's time-mapping stage) */
  int has_conventions;
  const skinref_dump_convention *conventions;
  size_t convention_count;
  skinref_pose_matrix_order matrix_order; /* of global, palette and normal_matrices */
  const skinref_pose_node *nodes;
  size_t node_count;
  const skinref_pose_skin *skins;
  size_t skin_count;
} skinref_pose;

/* Writes `pose` to `path` as skinref-pose JSON, every number with %.17g (non-finite numbers are refused). */
SKINREF_DUMP_DEF int skinref_pose_write(const char *path, const skinref_pose *pose, skinref_dump_error *error);

/* The identity skinref records for a model file: "fnv1a64:" + 16 lower-case hex digits of the FNV-1a 64-bit
 * hash of its bytes, into out[25]. Not for builtin:NAME, whose name is exact: skinref records no hash for it. */
SKINREF_DUMP_DEF int skinref_dump_model_hash(const char *model_path, char out[25], skinref_dump_error *error);

#ifdef __cplusplus
}
#endif

#endif /* SKINREF_DUMP_WRITE_H */

/* ============================================================================================================ */

#ifdef SKINREF_DUMP_WRITE_IMPLEMENTATION
#ifndef SKINREF_DUMP_WRITE_IMPLEMENTATION_DONE
#define SKINREF_DUMP_WRITE_IMPLEMENTATION_DONE

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- errors ---------------------------------------------------------------------------------------------- */

static const char *skinref_dump__os_error(int error_number) {
  return error_number != 0 ? strerror(error_number) : "unknown error";
}

/* ---- little-endian bytes, and the bits of floats --------------------------------------------------------- */

static void skinref_dump__put_u32(unsigned char *out, uint32_t value) {
  int i;
  for (i = 0; i < 4; ++i) out[i] = (unsigned char)((value >> (8 * i)) & 0xffu);
}

static void skinref_dump__put_u64(unsigned char *out, uint64_t value) {
  int i;
  for (i = 0; i < 8; ++i) out[i] = (unsigned char)((value >> (8 * i)) & 0xffu);
}

static uint32_t skinref_dump__float_bits(float value) {
  uint32_t bits;
  memcpy(&bits, &value, sizeof bits);
  return bits;
}

static uint64_t skinref_dump__double_bits(double value) {
  uint64_t bits;
  memcpy(&bits, &value, sizeof bits);
  return bits;
}

static double skinref_dump__real(skinref_dump_reals reals, size_t index) {
  return reals.f32 ? (double)reals.f32[index] : reals.f64[index];
}

/* ---- a growable byte buffer ------------------------------------------------------------------------------ */

typedef struct skinref_dump__text {
  char *data;
  size_t size, capacity;
  int out_of_memory;
} skinref_dump__text;

static void skinref_dump__append(skinref_dump__text *text, const char *bytes, size_t count) {
  if (text->out_of_memory) return;
  if (count > text->capacity - text->size) {
    size_t capacity = text->capacity ? text->capacity : 256;
    char *grown;
    while (count > capacity - text->size) {
      if (capacity > (size_t)-1 / 2) {
        text->out_of_memory = 1;
        return;
      }
      capacity *= 2;
    }
    grown = (char *)realloc(text->data, capacity);
    if (!grown) {
      text->out_of_memory = 1;
      return;
    }
    text->data = grown;
    text->capacity = capacity;
  }
  memcpy(text->data + text->size, bytes, count);
  text->size += count;
}

static void skinref_dump__puts(skinref_dump__text *text, const char *string) {
  skinref_dump__append(text, string, strlen(string));
}

/* ---- JSON output ----------------------------------------------------------------------------------------- */

/* Appends `value` as a JSON string; returns 0, or -1 when it is not valid UTF-8. */
static int skinref_dump__json_string(skinref_dump__text *text, const char *value) {
  const unsigned char *bytes = (const unsigned char *)value;
  const size_t size = strlen(value);
  size_t i = 0;
  skinref_dump__append(text, "\"", 1);
  while (i < size) {
    const unsigned char c = bytes[i];
    if (c == '"' || c == '\\') {
      const char escaped[2] = {'\\', (char)c};
      skinref_dump__append(text, escaped, 2);
      ++i;
    } else if (c < 0x20) {
      char escaped[8];
      const char *named = c == '\n'   ? "\\n"
                          : c == '\r' ? "\\r"
                          : c == '\t' ? "\\t"
                          : c == '\b' ? "\\b"
                          : c == '\f' ? "\\f"
                                      : NULL;
      if (named) {
        skinref_dump__puts(text, named);
      } else {
        snprintf(escaped, sizeof escaped, "\\u%04x", (unsigned)c);
        skinref_dump__puts(text, escaped);
      }
      ++i;
    } else {
      const size_t length = skinref_dump__utf8_sequence(bytes + i, size - i);
      if (length == 0) return -1;
      skinref_dump__append(text, value + i, length);
      i += length;
    }
  }
  skinref_dump__append(text, "\"", 1);
  return 0;
}

/* Appends a finite double with 17 significant digits and a '.' whatever the locale's decimal point. */
static void skinref_dump__json_number(skinref_dump__text *text, double value) {
  char printed[64], number[64];
  size_t i, n = 0;
  int point = 0;
  snprintf(printed, sizeof printed, "%.17g", value);
  for (i = 0; printed[i] != '\0' && n + 1 < sizeof number; ++i) {
    const char c = printed[i];
    if ((c >= '0' && c <= '9') || c == '-' || c == '+' || c == 'e' || c == 'E') {
      number[n++] = c;
      point = 0;
    } else if (!point) { /* the locale's decimal point, one or more bytes */
      number[n++] = '.';
      point = 1;
    }
  }
  skinref_dump__append(text, number, n);
}

/* ---- atomic files ---------------------------------------------------------------------------------------- */

typedef struct skinref_dump__file {
  const char *path;
  char *temporary;
  FILE *stream;
} skinref_dump__file;

static int skinref_dump__create(skinref_dump__file *file, const char *path, skinref_dump_error *error) {
  const size_t size = strlen(path) + 96;
  file->path = path;
  file->stream = NULL;
  file->temporary = (char *)malloc(size);
  if (!file->temporary)
    return skinref_dump__fail(error, SKINREF_DUMP_ERROR_MEMORY, "cannot write %s: out of memory", path);
  /* The time, and this call's own frame: concurrent writers of one target on different threads differ. */
  snprintf(file->temporary, size, "%s.tmp-%lx-%p", path, (unsigned long)time(NULL), (void *)file);
  errno = 0;
  file->stream = fopen(file->temporary, "wb");
  if (!file->stream) {
    const int error_number = errno;
    skinref_dump__fail(error, SKINREF_DUMP_ERROR_IO, "cannot write %s: cannot create %s: %s", path, file->temporary,
                       skinref_dump__os_error(error_number));
    free(file->temporary);
    file->temporary = NULL;
    return SKINREF_DUMP_ERROR_IO;
  }
  return SKINREF_DUMP_OK;
}

static int skinref_dump__write(skinref_dump__file *file, const void *bytes, size_t count, skinref_dump_error *error) {
  errno = 0;
  if (count != 0 && fwrite(bytes, 1, count, file->stream) != count) {
    const int error_number = errno;
    return skinref_dump__fail(error, SKINREF_DUMP_ERROR_IO, "cannot write %s: writing %s failed: %s", file->path,
                              file->temporary, skinref_dump__os_error(error_number));
  }
  return SKINREF_DUMP_OK;
}

/* Removes the temporary; the error already reported stands. */
static void skinref_dump__abandon(skinref_dump__file *file) {
  if (file->stream) fclose(file->stream);
  file->stream = NULL;
  if (file->temporary) remove(file->temporary);
  free(file->temporary);
  file->temporary = NULL;
}

static int skinref_dump__commit(skinref_dump__file *file, skinref_dump_error *error) {
  int status;
  errno = 0;
  status = fclose(file->stream);
  file->stream = NULL;
  if (status != 0) {
    const int error_number = errno;
    skinref_dump__fail(error, SKINREF_DUMP_ERROR_IO, "cannot write %s: closing %s failed: %s", file->path,
                       file->temporary, skinref_dump__os_error(error_number));
    skinref_dump__abandon(file);
    return SKINREF_DUMP_ERROR_IO;
  }
  errno = 0;
  if (rename(file->temporary, file->path) != 0) {
    /* C leaves renaming onto an existing file to the platform (Windows refuses): remove it, then retry. */
    int error_number = errno;
    remove(file->path);
    errno = 0;
    if (rename(file->temporary, file->path) != 0) {
      if (errno != 0) error_number = errno;
      skinref_dump__fail(error, SKINREF_DUMP_ERROR_IO, "cannot write %s: renaming %s failed: %s", file->path,
                         file->temporary, skinref_dump__os_error(error_number));
      skinref_dump__abandon(file);
      return SKINREF_DUMP_ERROR_IO;
    }
  }
  free(file->temporary);
  file->temporary = NULL;
  return SKINREF_DUMP_OK;
}

/* ---- checks of the caller's arguments --------------------------------------------------------------------- */

static int skinref_dump__one_array(skinref_dump_reals reals) { return (reals.f32 != NULL) != (reals.f64 != NULL); }
static int skinref_dump__no_array(skinref_dump_reals reals) { return reals.f32 == NULL && reals.f64 == NULL; }

static int skinref_dump__check_string(const char *path, const char *what, const char *value,
                                      skinref_dump_error *error) {
  const unsigned char *bytes = (const unsigned char *)value;
  const size_t size = strlen(value);
  size_t i = 0;
  while (i < size) {
    const size_t length = skinref_dump__utf8_sequence(bytes + i, size - i);
    if (length == 0)
      return skinref_dump__fail(error, SKINREF_DUMP_ERROR_ARGUMENT,
                                "cannot write %s: %s: valid UTF-8, but byte %lu is not", path, what, (unsigned long)i);
    i += length;
  }
  return SKINREF_DUMP_OK;
}

/* Appends "KEY":"VALUE" after a comma (unless first); both must be valid UTF-8. */
static int skinref_dump__member_string(skinref_dump__text *text, int *first, const char *key, const char *value,
                                       const char *path, skinref_dump_error *error) {
  int status = skinref_dump__check_string(path, "a key", key, error);
  if (status == SKINREF_DUMP_OK) status = skinref_dump__check_string(path, key, value, error);
  if (status != SKINREF_DUMP_OK) return status;
  if (!*first) skinref_dump__puts(text, ",");
  *first = 0;
  skinref_dump__json_string(text, key);
  skinref_dump__puts(text, ":");
  skinref_dump__json_string(text, value);
  return SKINREF_DUMP_OK;
}

static int skinref_dump__conventions(skinref_dump__text *text, const skinref_dump_convention *conventions, size_t count,
                                     const char *path, skinref_dump_error *error) {
  size_t i, j;
  int first = 1, status;
  if (count != 0 && !conventions)
    return skinref_dump__fail(error, SKINREF_DUMP_ERROR_ARGUMENT,
                              "cannot write %s: conventions: an array of %lu name/value pairs, got NULL", path,
                              (unsigned long)count);
  skinref_dump__puts(text, "{");
  for (i = 0; i < count; ++i) {
    if (!conventions[i].name || !conventions[i].value)
      return skinref_dump__fail(error, SKINREF_DUMP_ERROR_ARGUMENT,
                                "cannot write %s: conventions[%lu]: a name and a value, got NULL", path,
                                (unsigned long)i);
    for (j = 0; j < i; ++j)
      if (strcmp(conventions[j].name, conventions[i].name) == 0)
        return skinref_dump__fail(error, SKINREF_DUMP_ERROR_ARGUMENT,
                                  "cannot write %s: conventions[%lu]: each convention once, but '%s' comes twice", path,
                                  (unsigned long)i, conventions[i].name);
    status = skinref_dump__member_string(text, &first, conventions[i].name, conventions[i].value, path, error);
    if (status != SKINREF_DUMP_OK) return status;
  }
  skinref_dump__puts(text, "}");
  return SKINREF_DUMP_OK;
}

static int skinref_dump__string_array(skinref_dump__text *text, const char *const *names, size_t count,
                                      const char *what, const char *path, skinref_dump_error *error) {
  size_t i, j;
  int status;
  if (count != 0 && !names)
    return skinref_dump__fail(error, SKINREF_DUMP_ERROR_ARGUMENT,
                              "cannot write %s: %s: an array of %lu names, got NULL", path, what, (unsigned long)count);
  skinref_dump__puts(text, "[");
  for (i = 0; i < count; ++i) {
    if (!names[i])
      return skinref_dump__fail(error, SKINREF_DUMP_ERROR_ARGUMENT, "cannot write %s: %s[%lu]: a name, got NULL", path,
                                what, (unsigned long)i);
    for (j = 0; j < i; ++j)
      if (strcmp(names[j], names[i]) == 0)
        return skinref_dump__fail(error, SKINREF_DUMP_ERROR_ARGUMENT,
                                  "cannot write %s: %s[%lu]: each name once, but '%s' comes twice", path, what,
                                  (unsigned long)i, names[i]);
    status = skinref_dump__check_string(path, what, names[i], error);
    if (status != SKINREF_DUMP_OK) return status;
    if (i != 0) skinref_dump__puts(text, ",");
    skinref_dump__json_string(text, names[i]);
  }
  skinref_dump__puts(text, "]");
  return SKINREF_DUMP_OK;
}

/* The record's JSON, keys in the order skinref writes them. */
static int skinref_dump__record_json(skinref_dump__text *text, const skinref_dump_record *record,
                                     skinref_dump_precision precision, const char *path, skinref_dump_error *error) {
  const char *precision_name = precision == SKINREF_DUMP_F32 ? "f32" : "f64";
  int first = 1, status = SKINREF_DUMP_OK;
  if (record->palette && strcmp(record->palette, "own") != 0 && strcmp(record->palette, "reference") != 0)
    return skinref_dump__fail(error, SKINREF_DUMP_ERROR_ARGUMENT,
                              "cannot write %s: record palette: \"own\" or \"reference\", got \"%s\"", path,
                              record->palette);
  if (record->precision && strcmp(record->precision, precision_name) != 0)
    return skinref_dump__fail(error, SKINREF_DUMP_ERROR_ARGUMENT,
                              "cannot write %s: record precision: \"%s\" as the file is written, got \"%s\"", path,
                              precision_name, record->precision);
  if (record->layout && strcmp(record->layout, SKINREF_DUMP__LAYOUT) != 0)
    return skinref_dump__fail(error, SKINREF_DUMP_ERROR_ARGUMENT,
                              "cannot write %s: record layout: \"" SKINREF_DUMP__LAYOUT "\", got \"%s\"", path,
                              record->layout);
  skinref_dump__puts(text, "{");
  if (record->writer) status = skinref_dump__member_string(text, &first, "writer", record->writer, path, error);
  if (!status && record->model) status = skinref_dump__member_string(text, &first, "model", record->model, path, error);
  if (!status && record->animation)
    status = skinref_dump__member_string(text, &first, "animation", record->animation, path, error);
  if (!status && record->has_time) {
    if (!skinref_dump__finite(record->time))
      return skinref_dump__fail(error, SKINREF_DUMP_ERROR_ARGUMENT, "cannot write %s: record time: a finite number",
                                path);
    if (!first) skinref_dump__puts(text, ",");
    first = 0;
    skinref_dump__puts(text, "\"time\":");
    skinref_dump__json_number(text, record->time);
  }
  if (!status && record->method)
    status = skinref_dump__member_string(text, &first, "method", record->method, path, error);
  if (!status && record->palette)
    status = skinref_dump__member_string(text, &first, "palette", record->palette, path, error);
  if (!status && record->has_conventions) {
    if (!first) skinref_dump__puts(text, ",");
    first = 0;
    skinref_dump__puts(text, "\"conventions\":");
    status = skinref_dump__conventions(text, record->conventions, record->convention_count, path, error);
  }
  if (!status && record->model_hash)
    status = skinref_dump__member_string(text, &first, "model_hash", record->model_hash, path, error);
  if (!status && record->joint_name_count != 0) {
    if (!first) skinref_dump__puts(text, ",");
    first = 0;
    skinref_dump__puts(text, "\"joint_names\":");
    status = skinref_dump__string_array(text, record->joint_names, record->joint_name_count, "record joint_names", path,
                                        error);
  }
  if (status) return status;
  if (!first) skinref_dump__puts(text, ",");
  skinref_dump__puts(text, "\"layout\":\"" SKINREF_DUMP__LAYOUT "\",\"precision\":\"");
  skinref_dump__puts(text, precision_name);
  skinref_dump__puts(text, "\"}");
  return SKINREF_DUMP_OK;
}

/* ---- .skv writing ------------------------------------------------------------------------------------------ */

static int skinref_dump__write_values(skinref_dump__file *file, skinref_dump_reals values, uint64_t count,
                                      skinref_dump_precision precision, skinref_dump_error *error) {
  unsigned char buffer[4096];
  size_t used = 0;
  uint64_t i;
  for (i = 0; i < count; ++i) {
    const size_t index = (size_t)i;
    if (used + 8 > sizeof buffer) {
      const int status = skinref_dump__write(file, buffer, used, error);
      if (status != SKINREF_DUMP_OK) return status;
      used = 0;
    }
    if (precision == SKINREF_DUMP_F32) {
      const float value = values.f32 ? values.f32[index] : skinref_dump__to_float(values.f64[index]);
      skinref_dump__put_u32(buffer + used, skinref_dump__float_bits(value));
      used += 4;
    } else {
      skinref_dump__put_u64(buffer + used, skinref_dump__double_bits(skinref_dump__real(values, index)));
      used += 8;
    }
  }
  return skinref_dump__write(file, buffer, used, error);
}

SKINREF_DUMP_DEF int skinref_skv_write(const char *path, skinref_dump_precision precision,
                                       const skinref_dump_record *record, const skinref_skv_primitive *primitives,
                                       size_t primitive_count, skinref_dump_error *error) {
  skinref_dump__text record_text = {NULL, 0, 0, 0};
  skinref_dump__file file;
  unsigned char header[SKINREF_DUMP__HEADER_BYTES];
  size_t i;
  int status;
  skinref_dump__ok(error);
  if (!path) return skinref_dump__fail(error, SKINREF_DUMP_ERROR_ARGUMENT, "cannot write a .skv file: path is NULL");
  if (precision != SKINREF_DUMP_F32 && precision != SKINREF_DUMP_F64)
    return skinref_dump__fail(error, SKINREF_DUMP_ERROR_ARGUMENT,
                              "cannot write %s: precision 4 (f32) or 8 (f64), got %d", path, (int)precision);
  if (primitive_count != 0 && !primitives)
    return skinref_dump__fail(error, SKINREF_DUMP_ERROR_ARGUMENT, "cannot write %s: %lu primitives, got NULL", path,
                              (unsigned long)primitive_count);
  if ((uint64_t)primitive_count > 0xffffffffu)
    return skinref_dump__fail(error, SKINREF_DUMP_ERROR_ARGUMENT,
                              "cannot write %s: at most 4294967295 primitives in a .skv file", path);
  for (i = 0; i < primitive_count; ++i) {
    const skinref_skv_primitive *p = &primitives[i];
    const char *bad = NULL;
    if (p->vertex_count > (uint64_t)((size_t)-1 / 4))
      bad = "vertex_count: at most SIZE_MAX / 4";
    else if (p->vertex_count != 0 && !skinref_dump__one_array(p->positions))
      bad = "positions: exactly one of .f32 and .f64";
    else if (p->vertex_count == 0 && p->positions.f32 && p->positions.f64)
      bad = "positions: at most one of .f32 and .f64";
    else if (!skinref_dump__no_array(p->normals) && !skinref_dump__one_array(p->normals))
      bad = "normals: one of .f32 and .f64, or neither (no normals)";
    else if (!skinref_dump__no_array(p->tangents) && !skinref_dump__one_array(p->tangents))
      bad = "tangents: one of .f32 and .f64, or neither (no tangents)";
    if (bad)
      return skinref_dump__fail(error, SKINREF_DUMP_ERROR_ARGUMENT, "cannot write %s: primitive %lu: %s", path,
                                (unsigned long)i, bad);
  }
  if (record) {
    status = skinref_dump__record_json(&record_text, record, precision, path, error);
    if (status == SKINREF_DUMP_OK && record_text.out_of_memory)
      status =
          skinref_dump__fail(error, SKINREF_DUMP_ERROR_MEMORY, "cannot write %s: out of memory for the record", path);
    if (status == SKINREF_DUMP_OK && record_text.size > SKINREF_DUMP__MAX_RECORD_BYTES)
      status = skinref_dump__fail(error, SKINREF_DUMP_ERROR_ARGUMENT,
                                  "cannot write %s: a record of at most %lu bytes, got %lu", path,
                                  (unsigned long)SKINREF_DUMP__MAX_RECORD_BYTES, (unsigned long)record_text.size);
    if (status != SKINREF_DUMP_OK) {
      free(record_text.data);
      return status;
    }
  }

  memcpy(header, "SKINREFV", 8);
  skinref_dump__put_u32(header + 8, record ? 2u : 1u);
  skinref_dump__put_u32(header + 12, (uint32_t)precision);
  skinref_dump__put_u32(header + 16, (uint32_t)primitive_count);
  skinref_dump__put_u32(header + 20, record ? 1u : 0u);
  skinref_dump__put_u64(header + 24, (uint64_t)record_text.size);
  status = skinref_dump__create(&file, path, error);
  if (status != SKINREF_DUMP_OK) {
    free(record_text.data);
    return status;
  }
  status = skinref_dump__write(&file, header, sizeof header, error);
  if (status == SKINREF_DUMP_OK) status = skinref_dump__write(&file, record_text.data, record_text.size, error);
  free(record_text.data);
  for (i = 0; status == SKINREF_DUMP_OK && i < primitive_count; ++i) {
    const skinref_skv_primitive *p = &primitives[i];
    const int has_normals = !skinref_dump__no_array(p->normals);
    const int has_tangents = !skinref_dump__no_array(p->tangents);
    unsigned char block[SKINREF_DUMP__PRIMITIVE_BYTES];
    skinref_dump__put_u32(block, (uint32_t)p->node);
    skinref_dump__put_u32(block + 4, (uint32_t)p->mesh);
    skinref_dump__put_u32(block + 8, (uint32_t)p->primitive);
    skinref_dump__put_u32(block + 12, (p->skinned ? SKINREF_SKV_BIT_SKINNED : 0u) |
                                          (has_normals ? SKINREF_SKV_BIT_NORMALS : 0u) |
                                          (has_tangents ? SKINREF_SKV_BIT_TANGENTS : 0u));
    skinref_dump__put_u64(block + 16, p->vertex_count);
    skinref_dump__put_u64(block + 24, 0);
    status = skinref_dump__write(&file, block, sizeof block, error);
    if (status == SKINREF_DUMP_OK && p->vertex_count != 0)
      status = skinref_dump__write_values(&file, p->positions, 3 * p->vertex_count, precision, error);
    if (status == SKINREF_DUMP_OK && has_normals)
      status = skinref_dump__write_values(&file, p->normals, 3 * p->vertex_count, precision, error);
    if (status == SKINREF_DUMP_OK && has_tangents)
      status = skinref_dump__write_values(&file, p->tangents, 4 * p->vertex_count, precision, error);
  }
  if (status != SKINREF_DUMP_OK) {
    skinref_dump__abandon(&file);
    return status;
  }
  return skinref_dump__commit(&file, error);
}

/* ---- pose writing ------------------------------------------------------------------------------------------- */

/* Appends `count` values as a JSON array; every value must be finite. */
static int skinref_dump__json_array(skinref_dump__text *text, skinref_dump_reals values, size_t first, size_t count,
                                    const char *path, const char *what, size_t index, skinref_dump_error *error) {
  size_t i;
  skinref_dump__puts(text, "[");
  for (i = 0; i < count; ++i) {
    const double value = skinref_dump__real(values, first + i);
    if (!skinref_dump__finite(value))
      return skinref_dump__fail(error, SKINREF_DUMP_ERROR_ARGUMENT,
                                "cannot write %s: %s %lu: finite numbers, but value %lu is not", path, what,
                                (unsigned long)index, (unsigned long)(first + i));
    if (i != 0) skinref_dump__puts(text, ",");
    skinref_dump__json_number(text, value);
  }
  skinref_dump__puts(text, "]");
  return SKINREF_DUMP_OK;
}

/* The pose's own fields checked before anything is written. */
static int skinref_dump__check_pose(const skinref_pose *pose, const char *path, skinref_dump_error *error) {
  size_t n;
  int named = 0;
  if (!pose->source)
    return skinref_dump__fail(error, SKINREF_DUMP_ERROR_ARGUMENT, "cannot write %s: source: the model, got NULL", path);
  if (!skinref_dump__finite(pose->time))
    return skinref_dump__fail(error, SKINREF_DUMP_ERROR_ARGUMENT, "cannot write %s: time: a finite number", path);
  if (pose->has_clip_time && !skinref_dump__finite(pose->clip_time))
    return skinref_dump__fail(error, SKINREF_DUMP_ERROR_ARGUMENT, "cannot write %s: clip_time: a finite number", path);
  if (pose->animation < -1)
    return skinref_dump__fail(error, SKINREF_DUMP_ERROR_ARGUMENT,
                              "cannot write %s: animation: a clip index or -1 (none), got %d", path, pose->animation);
  if (pose->matrix_order != SKINREF_POSE_COLUMN_MAJOR && pose->matrix_order != SKINREF_POSE_ROW_MAJOR)
    return skinref_dump__fail(error, SKINREF_DUMP_ERROR_ARGUMENT,
                              "cannot write %s: matrix_order: SKINREF_POSE_COLUMN_MAJOR or SKINREF_POSE_ROW_MAJOR",
                              path);
  if ((pose->node_count != 0 && !pose->nodes) || (pose->skin_count != 0 && !pose->skins))
    return skinref_dump__fail(error, SKINREF_DUMP_ERROR_ARGUMENT,
                              "cannot write %s: %lu nodes and %lu skins, but an array is NULL", path,
                              (unsigned long)pose->node_count, (unsigned long)pose->skin_count);
  for (n = 0; n < pose->node_count; ++n) named += pose->nodes[n].name != NULL;
  if (named != 0 && (size_t)named != pose->node_count)
    return skinref_dump__fail(error, SKINREF_DUMP_ERROR_ARGUMENT,
                              "cannot write %s: a name for every node or for none (entries are matched by name only "
                              "when all have one), got %d names for %lu nodes",
                              path, named, (unsigned long)pose->node_count);
  return SKINREF_DUMP_OK;
}

/* The pose's header members: format, writer, source, animation, recipe, times, conventions, matrix order. */
static int skinref_dump__pose_header_json(skinref_dump__text *text, const skinref_pose *pose, const char *path,
                                          skinref_dump_error *error) {
  int first = 0, status = SKINREF_DUMP_OK;
  char number[32];
  skinref_dump__puts(text, "{\"format\":\"skinref-pose\",\"version\":1");
  if (pose->writer) status = skinref_dump__member_string(text, &first, "writer", pose->writer, path, error);
  if (!status) status = skinref_dump__member_string(text, &first, "source", pose->source, path, error);
  if (status) return status;
  skinref_dump__puts(text, ",\"animation\":");
  if (pose->animation < 0) {
    skinref_dump__puts(text, "null");
  } else {
    snprintf(number, sizeof number, "%d", pose->animation);
    skinref_dump__puts(text, number);
  }
  if (pose->recipe) {
    status = skinref_dump__member_string(text, &first, "recipe", pose->recipe, path, error);
    if (status) return status;
  }
  skinref_dump__puts(text, ",\"time\":");
  skinref_dump__json_number(text, pose->time);
  if (pose->has_clip_time) {
    skinref_dump__puts(text, ",\"clip_time\":");
    skinref_dump__json_number(text, pose->clip_time);
  }
  if (pose->has_conventions) {
    skinref_dump__puts(text, ",\"conventions\":");
    status = skinref_dump__conventions(text, pose->conventions, pose->convention_count, path, error);
    if (status) return status;
  }
  skinref_dump__puts(text, pose->matrix_order == SKINREF_POSE_ROW_MAJOR ? ",\"matrix_order\":\"row-major\""
                                                                        : ",\"matrix_order\":\"column-major\"");
  return SKINREF_DUMP_OK;
}

/* Node n of the pose as one JSON object. */
static int skinref_dump__pose_node_json(skinref_dump__text *text, const skinref_pose_node *node, size_t n,
                                        const char *path, skinref_dump_error *error) {
  int first = 1, status = SKINREF_DUMP_OK;
  if (!skinref_dump__one_array(node->translation) || !skinref_dump__one_array(node->rotation) ||
      !skinref_dump__one_array(node->scale) || !skinref_dump__one_array(node->global))
    return skinref_dump__fail(error, SKINREF_DUMP_ERROR_ARGUMENT,
                              "cannot write %s: node %lu: translation, rotation, scale and global, each exactly one "
                              "of .f32 and .f64",
                              path, (unsigned long)n);
  if (node->morph_weight_count != 0 && !skinref_dump__one_array(node->morph_weights))
    return skinref_dump__fail(error, SKINREF_DUMP_ERROR_ARGUMENT,
                              "cannot write %s: node %lu: %lu morph weights, exactly one of .f32 and .f64", path,
                              (unsigned long)n, (unsigned long)node->morph_weight_count);
  skinref_dump__puts(text, n == 0 ? "\n{" : ",\n{");
  if (node->name) {
    status = skinref_dump__member_string(text, &first, "name", node->name, path, error);
    if (status) return status;
    skinref_dump__puts(text, ",");
  }
  skinref_dump__puts(text, "\"translation\":");
  status = skinref_dump__json_array(text, node->translation, 0, 3, path, "node", n, error);
  if (!status) {
    skinref_dump__puts(text, ",\"rotation\":");
    status = skinref_dump__json_array(text, node->rotation, 0, 4, path, "node", n, error);
  }
  if (!status) {
    skinref_dump__puts(text, ",\"scale\":");
    status = skinref_dump__json_array(text, node->scale, 0, 3, path, "node", n, error);
  }
  if (!status) {
    skinref_dump__puts(text, ",\"global\":");
    status = skinref_dump__json_array(text, node->global, 0, 16, path, "node", n, error);
  }
  if (!status) {
    skinref_dump__puts(text, ",\"morph_weights\":");
    if (node->morph_weight_count == 0)
      skinref_dump__puts(text, "[]");
    else
      status = skinref_dump__json_array(text, node->morph_weights, 0, node->morph_weight_count, path, "node", n, error);
  }
  if (status) return status;
  skinref_dump__puts(text, "}");
  return SKINREF_DUMP_OK;
}

/* Skin s of the pose as one JSON object: its palette, and its normal matrices where it has them. */
static int skinref_dump__pose_skin_json(skinref_dump__text *text, const skinref_pose_skin *skin, size_t s,
                                        const char *path, skinref_dump_error *error) {
  const int has_normals = !skinref_dump__no_array(skin->normal_matrices);
  int first = 1, status = SKINREF_DUMP_OK;
  size_t j;
  if ((skin->joint_count != 0 && !skinref_dump__one_array(skin->palette)) ||
      (has_normals && !skinref_dump__one_array(skin->normal_matrices)))
    return skinref_dump__fail(error, SKINREF_DUMP_ERROR_ARGUMENT,
                              "cannot write %s: skin %lu: palette exactly one of .f32 and .f64, normal_matrices "
                              "one or neither",
                              path, (unsigned long)s);
  skinref_dump__puts(text, s == 0 ? "\n{" : ",\n{");
  if (skin->name) {
    status = skinref_dump__member_string(text, &first, "name", skin->name, path, error);
    if (status) return status;
    skinref_dump__puts(text, ",");
  }
  if (skin->joint_names) {
    skinref_dump__puts(text, "\"joint_names\":");
    status = skinref_dump__string_array(text, skin->joint_names, skin->joint_count, "skin joint_names", path, error);
    if (status) return status;
    skinref_dump__puts(text, ",");
  }
  skinref_dump__puts(text, "\"palette\":[");
  for (j = 0; j < skin->joint_count && !status; ++j) {
    if (j != 0) skinref_dump__puts(text, ",");
    status = skinref_dump__json_array(text, skin->palette, 16 * j, 16, path, "skin", s, error);
  }
  skinref_dump__puts(text, "]");
  if (has_normals) {
    skinref_dump__puts(text, ",\"normal_matrices\":[");
    for (j = 0; j < skin->joint_count && !status; ++j) {
      if (j != 0) skinref_dump__puts(text, ",");
      status = skinref_dump__json_array(text, skin->normal_matrices, 9 * j, 9, path, "skin", s, error);
    }
    skinref_dump__puts(text, "]");
  }
  if (status) return status;
  skinref_dump__puts(text, "}");
  return SKINREF_DUMP_OK;
}

static int skinref_dump__pose_json(skinref_dump__text *text, const skinref_pose *pose, const char *path,
                                   skinref_dump_error *error) {
  size_t n, s;
  int status = skinref_dump__check_pose(pose, path, error);
  if (!status) status = skinref_dump__pose_header_json(text, pose, path, error);
  if (status) return status;
  skinref_dump__puts(text, ",\n\"nodes\":[");
  for (n = 0; n < pose->node_count && !status; ++n)
    status = skinref_dump__pose_node_json(text, &pose->nodes[n], n, path, error);
  if (status) return status;
  skinref_dump__puts(text, "\n],\n\"skins\":[");
  for (s = 0; s < pose->skin_count && !status; ++s)
    status = skinref_dump__pose_skin_json(text, &pose->skins[s], s, path, error);
  if (status) return status;
  skinref_dump__puts(text, "\n]}\n");
  return SKINREF_DUMP_OK;
}

SKINREF_DUMP_DEF int skinref_pose_write(const char *path, const skinref_pose *pose, skinref_dump_error *error) {
  skinref_dump__text text = {NULL, 0, 0, 0};
  skinref_dump__file file;
  int status;
  skinref_dump__ok(error);
  if (!path || !pose)
    return skinref_dump__fail(error, SKINREF_DUMP_ERROR_ARGUMENT, "cannot write a pose dump: path or pose is NULL");
  status = skinref_dump__pose_json(&text, pose, path, error);
  if (status == SKINREF_DUMP_OK && text.out_of_memory)
    status = skinref_dump__fail(error, SKINREF_DUMP_ERROR_MEMORY, "cannot write %s: out of memory", path);
  if (status == SKINREF_DUMP_OK) status = skinref_dump__create(&file, path, error);
  if (status == SKINREF_DUMP_OK) {
    status = skinref_dump__write(&file, text.data, text.size, error);
    if (status == SKINREF_DUMP_OK)
      status = skinref_dump__commit(&file, error);
    else
      skinref_dump__abandon(&file);
  }
  free(text.data);
  return status;
}

/* ---- the model's identity ------------------------------------------------------------------------------------ */

SKINREF_DUMP_DEF int skinref_dump_model_hash(const char *model_path, char out[25], skinref_dump_error *error) {
  unsigned char buffer[65536];
  uint64_t hash = 0xcbf29ce484222325ull; /* FNV-1a, 64 bits, as skinref's model_content_hash */
  size_t count, i;
  FILE *stream;
  int failed;
  skinref_dump__ok(error);
  if (!model_path || !out)
    return skinref_dump__fail(error, SKINREF_DUMP_ERROR_ARGUMENT, "skinref_dump_model_hash: NULL argument");
  errno = 0;
  stream = fopen(model_path, "rb");
  if (!stream) {
    const int error_number = errno;
    return skinref_dump__fail(error, SKINREF_DUMP_ERROR_IO, "%s: a readable model file (%s)", model_path,
                              error_number ? strerror(error_number) : "cannot open");
  }
  while ((count = fread(buffer, 1, sizeof buffer, stream)) != 0) {
    for (i = 0; i < count; ++i) {
      hash ^= buffer[i];
      hash *= 0x100000001b3ull;
    }
  }
  failed = ferror(stream);
  fclose(stream);
  if (failed)
    return skinref_dump__fail(error, SKINREF_DUMP_ERROR_IO, "%s: a readable model file (reading failed)", model_path);
  snprintf(out, 25, "fnv1a64:%08lx%08lx", (unsigned long)(hash >> 32), (unsigned long)(hash & 0xffffffffu));
  return SKINREF_DUMP_OK;
}

#ifdef __cplusplus
}
#endif

#endif /* SKINREF_DUMP_WRITE_IMPLEMENTATION_DONE */
#endif /* SKINREF_DUMP_WRITE_IMPLEMENTATION */
