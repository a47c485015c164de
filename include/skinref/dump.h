/* skinref/dump.h: write and read skinref's dumps from an engine, in C99 (or C++).
 *
 * A single header. Include it anywhere for the declarations; in exactly one C or C++ file, first
 *
 *     #define SKINREF_DUMP_IMPLEMENTATION
 *     #include "skinref/dump.h"
 *
 * for the implementation. It needs the C standard library only, and float and double that are IEEE 754
 * binary32 and binary64 (checked at compile time).
 *
 * What it does
 *   - skinref_skv_write: a .skv vertex dump, version 2 with a record (version 1 without), laid out as
 *     `skinref skin --out FILE.skv` writes it, byte for byte outside the record (layout: docs/formats.md,
 *     reference/io/vertex_dump.h). The record's JSON is built here from a skinref_dump_record, keys
 *     in skinref's order, every string escaped, every double printed with %.17g (it round-trips).
 *   - skinref_pose_write: a pose dump ({"format":"skinref-pose","version":1,...}) that `skinref compare` and
 *     `skinref bisect` read: node entries matched to the model's nodes by name, palette rows by joint name,
 *     matrices column- or row-major as declared, normal matrices optional.
 *   - skinref_skv_open / skinref_skv_read_f32 / skinref_skv_read_f64 / skinref_skv_load / skinref_skv_close:
 *     a .skv file read back with every field and count checked against the file size first.
 *   - skinref_dump_model_hash: the "fnv1a64:..." identity of a model file that skinref records.
 *
 * Contract
 *   - Units and spaces are skinref's: world-space positions in the model's units, unit normals, tangents
 *     x y z w; times in seconds; pose matrices 4x4 (16 values) and normal matrices 3x3 (9 values).
 *   - Byte order: files are little-endian whatever the host; every field is encoded byte by byte, never by
 *     copying a struct.
 *   - Ownership: the writers only read the caller's arrays and strings, during the call. Arrays come as
 *     skinref_dump_reals, exactly one of .f32 and .f64 non-NULL (skinref_dump_f32(p) / skinref_dump_f64(p));
 *     they hold the counts the structs state (3 per position and normal, 4 per tangent, ...). Everything a
 *     reader returns (the record's strings, primitives, loaded arrays) belongs to the skinref_skv and lives
 *     until skinref_skv_close; buffers passed to skinref_skv_read_f32/_f64 stay the caller's.
 *   - Strings are NUL-terminated UTF-8; invalid UTF-8 is refused, never written.
 *   - Precision: writing f32 rounds each value to the nearest float; reading an f64 file into floats
 *     likewise. Values read into the precision they were written in are exact.
 *   - Errors: every function returns SKINREF_DUMP_OK (0) or an error code, and fills *error (it may be
 *     NULL) with the code and one line, "FILE: at byte N: EXPECTED" for a malformed file, naming what was
 *     expected and what was found. Nothing is read outside the file or the caller's arrays.
 *   - Writes are atomic: the bytes go to "PATH.tmp-..." beside the target, every fwrite and the fclose are
 *     checked, and the temporary is renamed over PATH; on any failure it is removed and PATH is untouched
 *     (where rename() cannot replace a file, PATH is removed just before the rename). No state is kept
 *     between calls; one skinref_skv is used by one thread at a time.
 *   - Not interpreted: a record's "ranges" (a merged vertex buffer) are left to skinref, which splits the
 *     buffer; the reader returns the primitives as stored. Convention names and values are not checked
 *     here: skinref checks them (docs/conventions.md).
 */
#ifndef SKINREF_DUMP_H
#define SKINREF_DUMP_H

#include <stddef.h>
#include <stdint.h>

#ifndef SKINREF_DUMP_DEF
#define SKINREF_DUMP_DEF extern
#endif

#ifdef __cplusplus
extern "C" {
#endif

enum {
  SKINREF_DUMP_OK = 0,
  SKINREF_DUMP_ERROR_IO = 1,       /* a file could not be opened, read, written, closed or renamed */
  SKINREF_DUMP_ERROR_FORMAT = 2,   /* the .skv file is malformed: header, counts or sizes */
  SKINREF_DUMP_ERROR_RECORD = 3,   /* the .skv record is not valid JSON, or contradicts the header */
  SKINREF_DUMP_ERROR_ARGUMENT = 4, /* the caller's arguments: a missing array, a non-finite JSON number, ... */
  SKINREF_DUMP_ERROR_MEMORY = 5    /* malloc failed */
};

typedef struct skinref_dump_error {
  int code;          /* SKINREF_DUMP_OK or one of the codes above */
  char message[512]; /* one line, NUL-terminated; "" when code is SKINREF_DUMP_OK */
} skinref_dump_error;

/* Bytes per component in a .skv file. */
typedef enum skinref_dump_precision { SKINREF_DUMP_F32 = 4, SKINREF_DUMP_F64 = 8 } skinref_dump_precision;

/* An array of numbers in the caller's type: exactly one of the two pointers is non-NULL (both NULL: absent,
 * where a field may be absent). */
typedef struct skinref_dump_reals {
  const float *f32;
  const double *f64;
} skinref_dump_reals;

static inline skinref_dump_reals skinref_dump_f32(const float *values) {
  skinref_dump_reals reals;
  reals.f32 = values;
  reals.f64 = NULL;
  return reals;
}
static inline skinref_dump_reals skinref_dump_f64(const double *values) {
  skinref_dump_reals reals;
  reals.f32 = NULL;
  reals.f64 = values;
  return reals;
}

typedef struct skinref_dump_convention {
  const char *name;  /* e.g. "rotation" */
  const char *value; /* e.g. "nlerp" */
} skinref_dump_convention;

/* How a dump was made (the .skv record). Every field is optional: NULL strings and has_* = 0 are left out.
 * skinref takes what a record says as the defaults of compare, bisect and diagnose. */
typedef struct skinref_dump_record {
  const char *writer;     /* who wrote it, e.g. "my engine 1.2" (a name starting "skinref" means skinref) */
  const char *model;      /* the model as skinref loads it: a .gltf/.glb path or builtin:NAME */
  const char *model_hash; /* "fnv1a64:" + 16 hex digits of the model file (skinref_dump_model_hash) */
  const char *animation;  /* a clip index as text ("0"), "rest", or "recipe:FILE" */
  int has_time;
  double time;           /* seconds; finite */
  const char *method;    /* "lbs" or "dqs" */
  const char *palette;   /* "own" (the engine computed its own animation and palette) or "reference" */
  const char *precision; /* "f32"/"f64": written from the header; a value given must match it */
  const char *layout;    /* "xyz-interleaved": always written; a value given must be this */
  int has_conventions;   /* write "conventions" (an empty object when convention_count is 0) */
  const skinref_dump_convention *conventions;
  size_t convention_count;
  const char *const *joint_names; /* the engine's joints in its palette order (names of the model's joints) */
  size_t joint_name_count;
} skinref_dump_record;

/* One primitive of a .skv file. */
typedef struct skinref_skv_primitive {
  int32_t node, mesh, primitive; /* skinref's indices: `skinref info MODEL` lists them, in file order */
  int skinned;                   /* non-zero: attribute bit 0 */
  uint64_t vertex_count;
  skinref_dump_reals positions; /* 3 x vertex_count: x y z of vertex 0, then of vertex 1, ... */
  skinref_dump_reals normals;   /* 3 x vertex_count, or both pointers NULL: none (bit 1) */
  skinref_dump_reals tangents;  /* 4 x vertex_count (x y z w), or both pointers NULL: none (bit 2) */
  uint32_t attributes;          /* read: the file's bits (1 skinned, 2 normals, 4 tangents); ignored by the writer */
} skinref_skv_primitive;

#define SKINREF_SKV_BIT_SKINNED 1u
#define SKINREF_SKV_BIT_NORMALS 2u
#define SKINREF_SKV_BIT_TANGENTS 4u

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

/* ---- reading .skv ---------------------------------------------------------------------------------------- */

typedef enum skinref_skv_attribute {
  SKINREF_SKV_POSITIONS = 0, /* 3 components per vertex */
  SKINREF_SKV_NORMALS = 1,   /* 3 */
  SKINREF_SKV_TANGENTS = 2   /* 4 */
} skinref_skv_attribute;

typedef struct skinref_skv {
  uint32_t version;   /* 1 or 2 */
  uint32_t precision; /* 4 (f32) or 8 (f64) */
  uint32_t flags;     /* bit 0: a record follows */
  int has_record;
  const char *record_json;    /* the record as stored, NUL-terminated; NULL without one */
  skinref_dump_record record; /* its fields (absent ones NULL / has_* 0) */
  size_t primitive_count;
  skinref_skv_primitive *primitives; /* node, mesh, primitive, skinned, vertex_count, attributes; the arrays
                                        are NULL until skinref_skv_load */
  void *internal_;                   /* the open file and what the library allocated */
} skinref_skv;

/* Opens `path` and checks all of it: header, record (parsed; its "precision" must match the header, its
 * "layout" be "xyz-interleaved", its "palette" "own" or "reference"), every primitive record and count against
 * the file size, no bytes after the last primitive. No vertex data is read yet. On failure *skv is left
 * zeroed (skinref_skv_close on it does nothing). */
SKINREF_DUMP_DEF int skinref_skv_open(const char *path, skinref_skv *skv, skinref_dump_error *error);

/* Reads one attribute of one primitive into the caller's array of `capacity` numbers (at least
 * components x vertex_count). An attribute the primitive does not have is an ARGUMENT error. */
SKINREF_DUMP_DEF int skinref_skv_read_f32(skinref_skv *skv, size_t primitive, skinref_skv_attribute attribute,
                                          float *out, size_t capacity, skinref_dump_error *error);
SKINREF_DUMP_DEF int skinref_skv_read_f64(skinref_skv *skv, size_t primitive, skinref_skv_attribute attribute,
                                          double *out, size_t capacity, skinref_dump_error *error);

/* Reads every attribute of every primitive into arrays the skv owns (float for SKINREF_DUMP_F32, double for
 * SKINREF_DUMP_F64), set in skv->primitives[i].positions/.normals/.tangents: skv->primitives can then be
 * passed to skinref_skv_write as they are. */
SKINREF_DUMP_DEF int skinref_skv_load(skinref_skv *skv, skinref_dump_precision as, skinref_dump_error *error);

/* Closes the file and frees everything the skv holds; leaves it zeroed. NULL or a zeroed skv: nothing. */
SKINREF_DUMP_DEF void skinref_skv_close(skinref_skv *skv);

/* The identity skinref records for a model file: "fnv1a64:" + 16 lower-case hex digits of the FNV-1a 64-bit
 * hash of its bytes, into out[25]. Not for builtin:NAME, whose name is exact: skinref records no hash for it. */
SKINREF_DUMP_DEF int skinref_dump_model_hash(const char *model_path, char out[25], skinref_dump_error *error);

#ifdef __cplusplus
}
#endif

#endif /* SKINREF_DUMP_H */

/* ============================================================================================================ */

#ifdef SKINREF_DUMP_IMPLEMENTATION
#ifndef SKINREF_DUMP_IMPLEMENTATION_DONE
#define SKINREF_DUMP_IMPLEMENTATION_DONE

#include <errno.h>
#include <float.h>
#include <limits.h>
#include <locale.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if FLT_RADIX != 2 || FLT_MANT_DIG != 24 || DBL_MANT_DIG != 53 || CHAR_BIT != 8
#error "skinref/dump.h needs IEEE 754 binary32 float and binary64 double, and 8-bit bytes"
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define SKINREF_DUMP__HEADER_BYTES 32u
#define SKINREF_DUMP__PRIMITIVE_BYTES 32u
#define SKINREF_DUMP__MAX_RECORD_BYTES (1u << 20)
#define SKINREF_DUMP__MAX_JSON_DEPTH 256
#define SKINREF_DUMP__LAYOUT "xyz-interleaved"

/* ---- errors --------------------------------------------------------------------------------------------- */

static int skinref_dump__fail(skinref_dump_error *error, int code, const char *format, ...) {
  if (error) {
    va_list args;
    va_start(args, format);
    error->code = code;
    vsnprintf(error->message, sizeof error->message, format, args);
    va_end(args);
  }
  return code;
}

static void skinref_dump__ok(skinref_dump_error *error) {
  if (error) {
    error->code = SKINREF_DUMP_OK;
    error->message[0] = '\0';
  }
}

static const char *skinref_dump__os_error(int error_number) {
  return error_number != 0 ? strerror(error_number) : "unknown error";
}

/* ---- little-endian bytes, and the bits of floats ------------------------------------------------------ */

static void skinref_dump__put_u32(unsigned char *out, uint32_t value) {
  int i;
  for (i = 0; i < 4; ++i) out[i] = (unsigned char)((value >> (8 * i)) & 0xffu);
}

static void skinref_dump__put_u64(unsigned char *out, uint64_t value) {
  int i;
  for (i = 0; i < 8; ++i) out[i] = (unsigned char)((value >> (8 * i)) & 0xffu);
}

static uint32_t skinref_dump__get_u32(const unsigned char *in) {
  uint32_t value = 0;
  int i;
  for (i = 3; i >= 0; --i) value = (value << 8) | in[i];
  return value;
}

static uint64_t skinref_dump__get_u64(const unsigned char *in) {
  uint64_t value = 0;
  int i;
  for (i = 7; i >= 0; --i) value = (value << 8) | in[i];
  return value;
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

static float skinref_dump__bits_float(uint32_t bits) {
  float value;
  memcpy(&value, &bits, sizeof value);
  return value;
}

static double skinref_dump__bits_double(uint64_t bits) {
  double value;
  memcpy(&value, &bits, sizeof value);
  return value;
}

/* The double rounded to the nearest float, as IEEE 754 does, without the undefined behaviour of converting a
 * double beyond the float range: from the midpoint between FLT_MAX and 2^128 up it is infinite. */
static float skinref_dump__to_float(double value) {
  const double magnitude = value < 0 ? -value : value;
  if (magnitude <= (double)FLT_MAX || value != value) return (float)value;
  if (magnitude < 340282356779733661637539395458142568448.0) return value < 0 ? -FLT_MAX : FLT_MAX;
  return skinref_dump__bits_float(value < 0 ? 0xff800000u : 0x7f800000u); /* -inf, +inf */
}

static int skinref_dump__finite(double value) { return value >= -DBL_MAX && value <= DBL_MAX; }

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

/* ---- UTF-8 and JSON output ------------------------------------------------------------------------------- */

/* The length of the valid UTF-8 sequence at bytes[0..available), or 0 when it is not one (overlong forms,
 * surrogates and code points above U+10FFFF are not, as JSON readers require). */
static size_t skinref_dump__utf8_sequence(const unsigned char *bytes, size_t available) {
  const unsigned char lead = bytes[0];
  size_t length, i;
  uint32_t code_point;
  if (lead < 0x80) return 1;
  if (lead >= 0xc2 && lead <= 0xdf) {
    length = 2;
    code_point = lead & 0x1fu;
  } else if (lead >= 0xe0 && lead <= 0xef) {
    length = 3;
    code_point = lead & 0x0fu;
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    length = 4;
    code_point = lead & 0x07u;
  } else {
    return 0;
  }
  if (available < length) return 0;
  for (i = 1; i < length; ++i) {
    if ((bytes[i] & 0xc0u) != 0x80u) return 0;
    code_point = (code_point << 6) | (bytes[i] & 0x3fu);
  }
  if ((length == 3 && code_point < 0x800) || (length == 4 && code_point < 0x10000) || code_point > 0x10ffff ||
      (code_point >= 0xd800 && code_point <= 0xdfff))
    return 0;
  return length;
}

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

/* ---- the record's JSON, read ------------------------------------------------------------------------------- */

typedef struct skinref_dump__parser {
  const char *text;
  size_t size, at;
  char *arena; /* decoded strings; never longer than their JSON text, so the record's size suffices */
  size_t arena_used;
  const char *problem; /* what was expected, when parsing failed */
  int depth;
} skinref_dump__parser;

static int skinref_dump__parse_fail(skinref_dump__parser *parser, const char *problem) {
  if (!parser->problem) parser->problem = problem;
  return -1;
}

static void skinref_dump__skip_space(skinref_dump__parser *parser) {
  while (parser->at < parser->size) {
    const char c = parser->text[parser->at];
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r') break;
    ++parser->at;
  }
}

static int skinref_dump__peek(skinref_dump__parser *parser) {
  skinref_dump__skip_space(parser);
  return parser->at < parser->size ? (unsigned char)parser->text[parser->at] : -1;
}

static int skinref_dump__expect(skinref_dump__parser *parser, char c, const char *problem) {
  if (skinref_dump__peek(parser) != (unsigned char)c) return skinref_dump__parse_fail(parser, problem);
  ++parser->at;
  return 0;
}

static int skinref_dump__hex4(skinref_dump__parser *parser, uint32_t *value) {
  size_t i;
  *value = 0;
  if (parser->size - parser->at < 4) return skinref_dump__parse_fail(parser, "four hex digits after \\u");
  for (i = 0; i < 4; ++i) {
    const char c = parser->text[parser->at + i];
    const uint32_t digit = (c >= '0' && c <= '9')   ? (uint32_t)(c - '0')
                           : (c >= 'a' && c <= 'f') ? (uint32_t)(c - 'a' + 10)
                           : (c >= 'A' && c <= 'F') ? (uint32_t)(c - 'A' + 10)
                                                    : 16u;
    if (digit == 16u) return skinref_dump__parse_fail(parser, "four hex digits after \\u");
    *value = *value * 16 + digit;
  }
  parser->at += 4;
  return 0;
}

/* A JSON string, decoded to NUL-terminated UTF-8 in the arena (out may be NULL: skipped). */
static int skinref_dump__parse_string(skinref_dump__parser *parser, const char **out) {
  char *decoded = parser->arena + parser->arena_used;
  size_t length = 0;
  if (skinref_dump__expect(parser, '"', "a string") != 0) return -1;
  for (;;) {
    unsigned char c;
    if (parser->at >= parser->size) return skinref_dump__parse_fail(parser, "the closing quote of a string");
    c = (unsigned char)parser->text[parser->at];
    if (c == '"') {
      ++parser->at;
      break;
    }
    if (c < 0x20) return skinref_dump__parse_fail(parser, "no control character inside a string (escape it)");
    if (c == '\\') {
      char e;
      if (parser->size - parser->at < 2) return skinref_dump__parse_fail(parser, "an escape after the backslash");
      e = parser->text[parser->at + 1];
      parser->at += 2;
      if (e == 'u') {
        uint32_t code_point, low;
        if (skinref_dump__hex4(parser, &code_point) != 0) return -1;
        if (code_point >= 0xdc00 && code_point <= 0xdfff)
          return skinref_dump__parse_fail(parser, "a high surrogate before a low one");
        if (code_point >= 0xd800 && code_point <= 0xdbff) {
          if (parser->size - parser->at < 2 || parser->text[parser->at] != '\\' || parser->text[parser->at + 1] != 'u')
            return skinref_dump__parse_fail(parser, "a \\u low surrogate after a high one");
          parser->at += 2;
          if (skinref_dump__hex4(parser, &low) != 0) return -1;
          if (low < 0xdc00 || low > 0xdfff) return skinref_dump__parse_fail(parser, "a low surrogate after a high one");
          code_point = 0x10000 + ((code_point - 0xd800) << 10) + (low - 0xdc00);
        }
        if (code_point == 0) return skinref_dump__parse_fail(parser, "no \\u0000 in a string (C strings end at NUL)");
        if (code_point < 0x80) {
          decoded[length++] = (char)code_point;
        } else if (code_point < 0x800) {
          decoded[length++] = (char)(0xc0 | (code_point >> 6));
          decoded[length++] = (char)(0x80 | (code_point & 0x3f));
        } else if (code_point < 0x10000) {
          decoded[length++] = (char)(0xe0 | (code_point >> 12));
          decoded[length++] = (char)(0x80 | ((code_point >> 6) & 0x3f));
          decoded[length++] = (char)(0x80 | (code_point & 0x3f));
        } else {
          decoded[length++] = (char)(0xf0 | (code_point >> 18));
          decoded[length++] = (char)(0x80 | ((code_point >> 12) & 0x3f));
          decoded[length++] = (char)(0x80 | ((code_point >> 6) & 0x3f));
          decoded[length++] = (char)(0x80 | (code_point & 0x3f));
        }
      } else {
        const char plain = e == '"'    ? '"'
                           : e == '\\' ? '\\'
                           : e == '/'  ? '/'
                           : e == 'b'  ? '\b'
                           : e == 'f'  ? '\f'
                           : e == 'n'  ? '\n'
                           : e == 'r'  ? '\r'
                           : e == 't'  ? '\t'
                                       : '\0';
        if (plain == '\0')
          return skinref_dump__parse_fail(parser, "a JSON escape (\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u)");
        decoded[length++] = plain;
      }
    } else {
      const size_t sequence =
          skinref_dump__utf8_sequence((const unsigned char *)parser->text + parser->at, parser->size - parser->at);
      if (sequence == 0) return skinref_dump__parse_fail(parser, "valid UTF-8");
      memcpy(decoded + length, parser->text + parser->at, sequence);
      length += sequence;
      parser->at += sequence;
    }
  }
  decoded[length] = '\0';
  if (out) {
    *out = decoded;
    parser->arena_used += length + 1;
  }
  return 0;
}

static int skinref_dump__parse_number(skinref_dump__parser *parser, double *out) {
  const char *t = parser->text;
  size_t start, at, length, i, point_length;
  char *copy;
  const char *point = localeconv()->decimal_point;
  skinref_dump__skip_space(parser);
  start = at = parser->at;
  if (at < parser->size && t[at] == '-') ++at;
  if (at < parser->size && t[at] == '0') {
    ++at;
  } else if (at < parser->size && t[at] >= '1' && t[at] <= '9') {
    while (at < parser->size && t[at] >= '0' && t[at] <= '9') ++at;
  } else {
    return skinref_dump__parse_fail(parser, "a JSON value");
  }
  if (at < parser->size && t[at] == '.') {
    ++at;
    if (at >= parser->size || t[at] < '0' || t[at] > '9') return skinref_dump__parse_fail(parser, "digits after '.'");
    while (at < parser->size && t[at] >= '0' && t[at] <= '9') ++at;
  }
  if (at < parser->size && (t[at] == 'e' || t[at] == 'E')) {
    ++at;
    if (at < parser->size && (t[at] == '+' || t[at] == '-')) ++at;
    if (at >= parser->size || t[at] < '0' || t[at] > '9') return skinref_dump__parse_fail(parser, "exponent digits");
    while (at < parser->size && t[at] >= '0' && t[at] <= '9') ++at;
  }
  parser->at = at;
  if (!out) return 0;
  /* strtod reads the locale's decimal point: the copy has it in place of '.'. */
  if (!point || point[0] == '\0') point = ".";
  point_length = strlen(point);
  length = at - start;
  copy = (char *)malloc(length + point_length + 1);
  if (!copy) return skinref_dump__parse_fail(parser, "memory for a number (out of memory)");
  {
    size_t n = 0;
    for (i = start; i < at; ++i) {
      if (t[i] == '.') {
        memcpy(copy + n, point, point_length);
        n += point_length;
      } else {
        copy[n++] = t[i];
      }
    }
    copy[n] = '\0';
  }
  *out = strtod(copy, NULL);
  free(copy);
  return 0;
}

/* Any JSON value, checked and skipped. */
static int skinref_dump__skip_value(skinref_dump__parser *parser) {
  const int c = skinref_dump__peek(parser);
  if (c == '"') return skinref_dump__parse_string(parser, NULL);
  if (c == '{' || c == '[') {
    const char close = c == '{' ? '}' : ']';
    if (++parser->depth > SKINREF_DUMP__MAX_JSON_DEPTH)
      return skinref_dump__parse_fail(parser, "JSON nested at most 256 levels deep");
    ++parser->at;
    if (skinref_dump__peek(parser) == (unsigned char)close) {
      ++parser->at;
    } else {
      for (;;) {
        if (c == '{') {
          if (skinref_dump__parse_string(parser, NULL) != 0) return -1;
          if (skinref_dump__expect(parser, ':', "':' after an object key") != 0) return -1;
        }
        if (skinref_dump__skip_value(parser) != 0) return -1;
        if (skinref_dump__peek(parser) == ',') {
          ++parser->at;
          continue;
        }
        if (skinref_dump__expect(parser, close, c == '{' ? "',' or '}' in an object" : "',' or ']' in an array") != 0)
          return -1;
        break;
      }
    }
    --parser->depth;
    return 0;
  }
  if (c == 't' || c == 'f' || c == 'n') {
    const char *word = c == 't' ? "true" : c == 'f' ? "false" : "null";
    const size_t length = strlen(word);
    if (parser->size - parser->at < length || memcmp(parser->text + parser->at, word, length) != 0)
      return skinref_dump__parse_fail(parser, "a JSON value");
    parser->at += length;
    return 0;
  }
  return skinref_dump__parse_number(parser, NULL);
}

/* ---- .skv reading ------------------------------------------------------------------------------------------- */

typedef struct skinref_dump__reader {
  FILE *stream;
  char *path;
  uint64_t size;
  uint64_t *data_offsets; /* per primitive: where its positions start */
  char *record_text;      /* the record, NUL-terminated */
  char *arena;            /* the record's decoded strings */
  skinref_dump_convention *conventions;
  const char **joint_names;
  void **loaded; /* 3 per primitive, from skinref_skv_load */
} skinref_dump__reader;

static void skinref_dump__free_reader(skinref_dump__reader *reader, size_t primitive_count) {
  size_t i;
  if (!reader) return;
  if (reader->stream) fclose(reader->stream);
  if (reader->loaded)
    for (i = 0; i < 3 * primitive_count; ++i) free(reader->loaded[i]);
  free(reader->loaded);
  free(reader->path);
  free(reader->data_offsets);
  free(reader->record_text);
  free(reader->arena);
  free(reader->conventions);
  free((void *)reader->joint_names);
  free(reader);
}

SKINREF_DUMP_DEF void skinref_skv_close(skinref_skv *skv) {
  if (!skv) return;
  skinref_dump__free_reader((skinref_dump__reader *)skv->internal_, skv->primitive_count);
  free(skv->primitives);
  memset(skv, 0, sizeof *skv);
}

static int skinref_dump__read_at(skinref_dump__reader *reader, uint64_t offset, void *out, size_t count,
                                 skinref_dump_error *error) {
  if (fseek(reader->stream, (long)offset, SEEK_SET) != 0 || fread(out, 1, count, reader->stream) != count)
    return skinref_dump__fail(error, SKINREF_DUMP_ERROR_IO,
                              "%s: at byte %llu: %lu readable bytes (the file could not be read, or it changed)",
                              reader->path, (unsigned long long)offset, (unsigned long)count);
  return SKINREF_DUMP_OK;
}

/* Parses the record into skv->record; returns the error code. */
/* parse_record's steps return SKINREF_DUMP__SYNTAX where the JSON itself is malformed (parser.problem says how);
 * parse_record then names the byte. */
#define SKINREF_DUMP__SYNTAX (-1)

/* Where the record keeps a string member's value, or NULL for a key that is not one. */
static const char **skinref_dump__record_text_field(skinref_dump_record *record, const char *key) {
  if (strcmp(key, "writer") == 0) return &record->writer;
  if (strcmp(key, "model") == 0) return &record->model;
  if (strcmp(key, "model_hash") == 0) return &record->model_hash;
  if (strcmp(key, "animation") == 0) return &record->animation;
  if (strcmp(key, "method") == 0) return &record->method;
  if (strcmp(key, "palette") == 0) return &record->palette;
  if (strcmp(key, "precision") == 0) return &record->precision;
  if (strcmp(key, "layout") == 0) return &record->layout;
  return NULL;
}

/* One more name (joint_names) or NAME: VALUE pair (conventions), the reader's array grown as needed. */
static int skinref_dump__add_name(skinref_dump__reader *reader, skinref_dump_record *record, int conventions,
                                  const char *name, const char *value, size_t *capacity) {
  if (conventions) {
    if (record->convention_count == *capacity) {
      skinref_dump_convention *grown;
      *capacity = *capacity ? 2 * *capacity : 16;
      grown = (skinref_dump_convention *)realloc(reader->conventions, *capacity * sizeof *grown);
      if (!grown) return SKINREF_DUMP_ERROR_MEMORY;
      reader->conventions = grown;
    }
    reader->conventions[record->convention_count].name = name;
    reader->conventions[record->convention_count].value = value;
    ++record->convention_count;
    return SKINREF_DUMP_OK;
  }
  if (record->joint_name_count == *capacity) {
    const char **grown;
    *capacity = *capacity ? 2 * *capacity : 64;
    grown = (const char **)realloc((void *)reader->joint_names, *capacity * sizeof *grown);
    if (!grown) return SKINREF_DUMP_ERROR_MEMORY;
    reader->joint_names = grown;
  }
  reader->joint_names[record->joint_name_count++] = value;
  return SKINREF_DUMP_OK;
}

/* "conventions" ({"NAME": "VALUE", ...}) or "joint_names" (["NAME", ...]), the parser at its value. */
static int skinref_dump__parse_names(skinref_dump__parser *parser, skinref_dump__reader *reader,
                                     skinref_dump_record *record, const char *key, size_t *capacity,
                                     skinref_dump_error *error) {
  const int conventions = key[0] == 'c';
  if (skinref_dump__peek(parser) != (conventions ? '{' : '['))
    return skinref_dump__fail(error, SKINREF_DUMP_ERROR_RECORD, "%s: at byte %llu: a JSON record: \"%s\" is not %s",
                              reader->path, (unsigned long long)(SKINREF_DUMP__HEADER_BYTES + parser->at), key,
                              conventions ? "an object {\"NAME\": \"VALUE\"}" : "an array of names");
  ++parser->at;
  if (conventions) {
    record->has_conventions = 1;
    record->convention_count = 0;
  } else {
    record->joint_name_count = 0;
  }
  if (skinref_dump__peek(parser) == (conventions ? '}' : ']')) {
    ++parser->at;
    return SKINREF_DUMP_OK;
  }
  for (;;) {
    const char *name = NULL, *value = NULL;
    if (conventions) {
      if (skinref_dump__parse_string(parser, &name) != 0) return SKINREF_DUMP__SYNTAX;
      if (skinref_dump__expect(parser, ':', "':' after an object key") != 0) return SKINREF_DUMP__SYNTAX;
    }
    if (skinref_dump__peek(parser) != '"')
      return skinref_dump__fail(
          error, SKINREF_DUMP_ERROR_RECORD, "%s: at byte %llu: a JSON record: \"%s\": every %s a string", reader->path,
          (unsigned long long)(SKINREF_DUMP__HEADER_BYTES + parser->at), key, conventions ? "value" : "name");
    if (skinref_dump__parse_string(parser, &value) != 0) return SKINREF_DUMP__SYNTAX;
    if (skinref_dump__add_name(reader, record, conventions, name, value, capacity) != SKINREF_DUMP_OK)
      return skinref_dump__fail(error, SKINREF_DUMP_ERROR_MEMORY, "%s: out of memory reading the record", reader->path);
    if (skinref_dump__peek(parser) == ',') {
      ++parser->at;
      continue;
    }
    if (skinref_dump__expect(parser, conventions ? '}' : ']',
                             conventions ? "',' or '}' in an object" : "',' or ']' in an array") != 0)
      return SKINREF_DUMP__SYNTAX;
    return SKINREF_DUMP_OK;
  }
}

/* The value of the record's member `key`, the parser at it: a string field, "time", the names, or skipped. */
static int skinref_dump__parse_member(skinref_dump__parser *parser, skinref_dump__reader *reader,
                                      skinref_dump_record *record, const char *key, size_t capacities[2],
                                      skinref_dump_error *error) {
  const char **text_field = skinref_dump__record_text_field(record, key);
  const int c = skinref_dump__peek(parser);
  if (text_field) {
    if (c != '"')
      return skinref_dump__fail(error, SKINREF_DUMP_ERROR_RECORD,
                                "%s: at byte %llu: a JSON record: \"%s\" is not a string", reader->path,
                                (unsigned long long)(SKINREF_DUMP__HEADER_BYTES + parser->at), key);
    return skinref_dump__parse_string(parser, text_field) != 0 ? SKINREF_DUMP__SYNTAX : SKINREF_DUMP_OK;
  }
  if (strcmp(key, "time") == 0) {
    if (c != '-' && !(c >= '0' && c <= '9'))
      return skinref_dump__fail(error, SKINREF_DUMP_ERROR_RECORD,
                                "%s: at byte %llu: a JSON record: \"time\" is not a number", reader->path,
                                (unsigned long long)(SKINREF_DUMP__HEADER_BYTES + parser->at));
    if (skinref_dump__parse_number(parser, &record->time) != 0) return SKINREF_DUMP__SYNTAX;
    if (!skinref_dump__finite(record->time))
      return skinref_dump__fail(error, SKINREF_DUMP_ERROR_RECORD,
                                "%s: at byte %llu: a JSON record: \"time\" is not finite", reader->path,
                                (unsigned long long)(SKINREF_DUMP__HEADER_BYTES + parser->at));
    record->has_time = 1;
    return SKINREF_DUMP_OK;
  }
  if (strcmp(key, "conventions") == 0 || strcmp(key, "joint_names") == 0)
    return skinref_dump__parse_names(parser, reader, record, key, &capacities[key[0] == 'c' ? 0 : 1], error);
  /* "ranges" and keys of later versions */
  return skinref_dump__skip_value(parser) != 0 ? SKINREF_DUMP__SYNTAX : SKINREF_DUMP_OK;
}

/* The record's values against what the format allows and the header says. */
static int skinref_dump__check_record(const skinref_dump_record *record, const skinref_dump__reader *reader,
                                      const char *precision_name, skinref_dump_error *error) {
  if (record->palette && record->palette[0] != '\0' && strcmp(record->palette, "own") != 0 &&
      strcmp(record->palette, "reference") != 0)
    return skinref_dump__fail(error, SKINREF_DUMP_ERROR_RECORD,
                              "%s: at byte 32: a JSON record: \"palette\" is neither \"reference\" nor \"own\"",
                              reader->path);
  if (record->layout && strcmp(record->layout, SKINREF_DUMP__LAYOUT) != 0)
    return skinref_dump__fail(
        error, SKINREF_DUMP_ERROR_RECORD,
        "%s: at byte 32: a JSON record: \"layout\" is not \"" SKINREF_DUMP__LAYOUT
        "\" (positions xyz, normals xyz, tangents xyzw, each interleaved per vertex), found \"%s\"",
        reader->path, record->layout);
  if (record->precision && strcmp(record->precision, "f32") != 0 && strcmp(record->precision, "f64") != 0)
    return skinref_dump__fail(error, SKINREF_DUMP_ERROR_RECORD,
                              "%s: at byte 32: a JSON record: \"precision\" is neither \"f32\" nor \"f64\"",
                              reader->path);
  if (record->precision && strcmp(record->precision, precision_name) != 0)
    return skinref_dump__fail(
        error, SKINREF_DUMP_ERROR_RECORD,
        "%s: at byte 32: a JSON record: \"precision\" \"%s\" contradicts the header's precision (%s)", reader->path,
        record->precision, precision_name);
  return SKINREF_DUMP_OK;
}

static int skinref_dump__parse_record(skinref_skv *skv, skinref_dump__reader *reader, size_t record_size,
                                      skinref_dump_error *error) {
  skinref_dump__parser parser;
  skinref_dump_record *record = &skv->record;
  size_t capacities[2] = {0, 0}; /* of the conventions and the joint names */
  int status = SKINREF_DUMP_OK;
  memset(&parser, 0, sizeof parser);
  parser.text = reader->record_text;
  parser.size = record_size;
  parser.arena = reader->arena;
  if (skinref_dump__expect(&parser, '{', "a JSON object") != 0) goto syntax;
  if (skinref_dump__peek(&parser) == '}') {
    ++parser.at;
  } else {
    for (;;) {
      const char *key;
      if (skinref_dump__parse_string(&parser, &key) != 0) goto syntax;
      if (skinref_dump__expect(&parser, ':', "':' after an object key") != 0) goto syntax;
      status = skinref_dump__parse_member(&parser, reader, record, key, capacities, error);
      if (status == SKINREF_DUMP__SYNTAX) goto syntax;
      if (status != SKINREF_DUMP_OK) return status;
      if (skinref_dump__peek(&parser) == ',') {
        ++parser.at;
        continue;
      }
      if (skinref_dump__expect(&parser, '}', "',' or '}' in an object") != 0) goto syntax;
      break;
    }
  }
  if (skinref_dump__peek(&parser) != -1) {
    parser.problem = "the end of the record after its object";
    goto syntax;
  }
  record->conventions = reader->conventions;
  record->joint_names = reader->joint_names;
  return skinref_dump__check_record(record, reader, skv->precision == 4 ? "f32" : "f64", error);
syntax:
  return skinref_dump__fail(error, SKINREF_DUMP_ERROR_RECORD, "%s: at byte %llu: a JSON record: %s", reader->path,
                            (unsigned long long)(SKINREF_DUMP__HEADER_BYTES + parser.at),
                            parser.problem ? parser.problem : "valid JSON");
}

/* skinref_skv_open's steps; each returns a status, and the caller closes the skv on a failure. */

/* The file opened and its size found. */
static int skinref_dump__open_file(skinref_dump__reader *reader, const char *path, skinref_dump_error *error) {
  long end = -1;
  errno = 0;
  reader->stream = fopen(path, "rb");
  if (!reader->stream) {
    const int error_number = errno;
    return skinref_dump__fail(error, SKINREF_DUMP_ERROR_IO, "%s: a readable .skv file (%s)", path,
                              error_number ? strerror(error_number) : "cannot open");
  }
  if (fseek(reader->stream, 0, SEEK_END) != 0 || (end = ftell(reader->stream)) < 0)
    return skinref_dump__fail(error, SKINREF_DUMP_ERROR_IO,
                              "%s: a readable .skv file (a regular file whose size can be found)", path);
  reader->size = (uint64_t)end;
  if (reader->size < SKINREF_DUMP__HEADER_BYTES)
    return skinref_dump__fail(error, SKINREF_DUMP_ERROR_FORMAT,
                              "%s: at byte 0: a 32-byte .skv header, but the file has only %llu bytes", path,
                              (unsigned long long)reader->size);
  return SKINREF_DUMP_OK;
}

/* The 32-byte header: magic, version, precision, primitive count, flags and the record's size, each checked. */
static int skinref_dump__read_header(skinref_skv *skv, skinref_dump__reader *reader, const char *path,
                                     uint32_t *primitive_count, uint64_t *record_bytes, skinref_dump_error *error) {
  unsigned char header[SKINREF_DUMP__HEADER_BYTES];
  int status;
  status = skinref_dump__read_at(reader, 0, header, sizeof header, error);
  if (status != SKINREF_DUMP_OK) return status;
  if (memcmp(header, "SKINREFV", 8) != 0)
    return skinref_dump__fail(error, SKINREF_DUMP_ERROR_FORMAT, "%s: at byte 0: the magic \"SKINREFV\"", path);
  skv->version = skinref_dump__get_u32(header + 8);
  if (skv->version != 1 && skv->version != 2)
    return skinref_dump__fail(error, SKINREF_DUMP_ERROR_FORMAT, "%s: at byte 8: version 1 or 2, found %lu", path,
                              (unsigned long)skv->version);
  skv->precision = skinref_dump__get_u32(header + 12);
  if (skv->precision != 4 && skv->precision != 8)
    return skinref_dump__fail(error, SKINREF_DUMP_ERROR_FORMAT,
                              "%s: at byte 12: precision 4 (f32) or 8 (f64), found %lu", path,
                              (unsigned long)skv->precision);
  *primitive_count = skinref_dump__get_u32(header + 16);
  skv->flags = skinref_dump__get_u32(header + 20);
  if ((skv->flags & ~(skv->version == 2 ? 1u : 0u)) != 0)
    return skinref_dump__fail(error, SKINREF_DUMP_ERROR_FORMAT, "%s: at byte 20: flags %s for version %lu, found %lu",
                              path, skv->version == 2 ? "0 or 1" : "0", (unsigned long)skv->version,
                              (unsigned long)skv->flags);
  *record_bytes = skinref_dump__get_u64(header + 24);
  if ((skv->flags & 1u) == 0 && *record_bytes != 0)
    return skinref_dump__fail(error, SKINREF_DUMP_ERROR_FORMAT, "%s: at byte 24: 0 (reserved: no record), found %llu",
                              path, (unsigned long long)*record_bytes);
  if (*record_bytes > SKINREF_DUMP__MAX_RECORD_BYTES || *record_bytes > reader->size - SKINREF_DUMP__HEADER_BYTES)
    return skinref_dump__fail(error, SKINREF_DUMP_ERROR_FORMAT,
                              "%s: at byte 24: a record of at most %lu bytes within the file, found %llu", path,
                              (unsigned long)SKINREF_DUMP__MAX_RECORD_BYTES, (unsigned long long)*record_bytes);
  return SKINREF_DUMP_OK;
}

/* The JSON record after the header (version 2 with flags bit 0), read and parsed. */
static int skinref_dump__read_record(skinref_skv *skv, skinref_dump__reader *reader, uint64_t record_bytes,
                                     const char *path, skinref_dump_error *error) {
  int status;
  reader->record_text = (char *)malloc((size_t)record_bytes + 1);
  reader->arena = (char *)malloc((size_t)record_bytes + 1);
  if (!reader->record_text || !reader->arena)
    return skinref_dump__fail(error, SKINREF_DUMP_ERROR_MEMORY, "%s: out of memory for the record", path);
  status = skinref_dump__read_at(reader, SKINREF_DUMP__HEADER_BYTES, reader->record_text, (size_t)record_bytes, error);
  if (status != SKINREF_DUMP_OK) return status;
  reader->record_text[record_bytes] = '\0';
  if (memchr(reader->record_text, '\0', (size_t)record_bytes))
    return skinref_dump__fail(error, SKINREF_DUMP_ERROR_RECORD, "%s: at byte 32: a JSON record: no NUL byte inside it",
                              path);
  status = skinref_dump__parse_record(skv, reader, (size_t)record_bytes, error);
  if (status != SKINREF_DUMP_OK) return status;
  skv->has_record = 1;
  skv->record_json = reader->record_text;
  return SKINREF_DUMP_OK;
}

/* Primitive i's 32-byte record at *offset, checked against the bytes left; *offset moves past its data. */
static int skinref_dump__read_primitive(skinref_skv *skv, skinref_dump__reader *reader, size_t i, uint64_t *offset,
                                        const char *path, skinref_dump_error *error) {
  int status;
  unsigned char block[SKINREF_DUMP__PRIMITIVE_BYTES];
  skinref_skv_primitive *p = &skv->primitives[i];
  uint64_t reserved, bytes_per_vertex;
  if (reader->size - (*offset) < SKINREF_DUMP__PRIMITIVE_BYTES)
    return skinref_dump__fail(error, SKINREF_DUMP_ERROR_FORMAT,
                              "%s: at byte %llu: the 32-byte record of primitive %lu, but the file ends "
                              "at byte %llu",
                              path, (unsigned long long)(*offset), (unsigned long)i, (unsigned long long)reader->size);
  status = skinref_dump__read_at(reader, (*offset), block, sizeof block, error);
  if (status != SKINREF_DUMP_OK) return status;
  p->node = (int32_t)skinref_dump__get_u32(block);
  p->mesh = (int32_t)skinref_dump__get_u32(block + 4);
  p->primitive = (int32_t)skinref_dump__get_u32(block + 8);
  p->attributes = skinref_dump__get_u32(block + 12);
  if ((p->attributes & ~7u) != 0)
    return skinref_dump__fail(error, SKINREF_DUMP_ERROR_FORMAT,
                              "%s: at byte %llu: attribute bits within 0x7 for primitive %lu, found %lu", path,
                              (unsigned long long)((*offset) + 12), (unsigned long)i, (unsigned long)p->attributes);
  p->skinned = (p->attributes & SKINREF_SKV_BIT_SKINNED) != 0;
  p->vertex_count = skinref_dump__get_u64(block + 16);
  reserved = skinref_dump__get_u64(block + 24);
  if (reserved != 0)
    return skinref_dump__fail(error, SKINREF_DUMP_ERROR_FORMAT,
                              "%s: at byte %llu: reserved 0 for primitive %lu, found %llu", path,
                              (unsigned long long)((*offset) + 24), (unsigned long)i, (unsigned long long)reserved);
  *offset += SKINREF_DUMP__PRIMITIVE_BYTES;
  bytes_per_vertex = (3u + ((p->attributes & SKINREF_SKV_BIT_NORMALS) ? 3u : 0u) +
                      ((p->attributes & SKINREF_SKV_BIT_TANGENTS) ? 4u : 0u)) *
                     (uint64_t)skv->precision;
  /* Compared by division so that a huge count cannot overflow the product. */
  if (p->vertex_count > (reader->size - (*offset)) / bytes_per_vertex)
    return skinref_dump__fail(error, SKINREF_DUMP_ERROR_FORMAT,
                              "%s: at byte %llu: %llu vertices of %llu bytes for primitive %lu, but only "
                              "%llu bytes remain",
                              path, (unsigned long long)((*offset) - 16), (unsigned long long)p->vertex_count,
                              (unsigned long long)bytes_per_vertex, (unsigned long)i,
                              (unsigned long long)(reader->size - (*offset)));
  reader->data_offsets[i] = (*offset);
  *offset += p->vertex_count * bytes_per_vertex;

  return SKINREF_DUMP_OK;
}

SKINREF_DUMP_DEF int skinref_skv_open(const char *path, skinref_skv *skv, skinref_dump_error *error) {
  skinref_dump__reader *reader;
  uint32_t primitive_count = 0;
  uint64_t record_bytes = 0, offset;
  size_t i;
  int status;
  skinref_dump__ok(error);
  if (!skv) return skinref_dump__fail(error, SKINREF_DUMP_ERROR_ARGUMENT, "skinref_skv_open: skv is NULL");
  memset(skv, 0, sizeof *skv);
  if (!path) return skinref_dump__fail(error, SKINREF_DUMP_ERROR_ARGUMENT, "skinref_skv_open: path is NULL");
  reader = (skinref_dump__reader *)calloc(1, sizeof *reader);
  if (reader) reader->path = (char *)malloc(strlen(path) + 1);
  if (!reader || !reader->path) {
    free(reader);
    return skinref_dump__fail(error, SKINREF_DUMP_ERROR_MEMORY, "%s: out of memory", path);
  }
  memcpy(reader->path, path, strlen(path) + 1);
  skv->internal_ = reader;
#define SKINREF_DUMP__GIVE_UP(call) \
  do {                              \
    status = (call);                \
    skinref_skv_close(skv);         \
    return status;                  \
  } while (0)
  status = skinref_dump__open_file(reader, path, error);
  if (!status) status = skinref_dump__read_header(skv, reader, path, &primitive_count, &record_bytes, error);
  if (!status && (skv->flags & 1u)) status = skinref_dump__read_record(skv, reader, record_bytes, path, error);
  if (status) SKINREF_DUMP__GIVE_UP(status);

  offset = SKINREF_DUMP__HEADER_BYTES + record_bytes;
  /* Each primitive needs at least its 32-byte record: bounds the count before anything is allocated. */
  if (primitive_count > (reader->size - offset) / SKINREF_DUMP__PRIMITIVE_BYTES)
    SKINREF_DUMP__GIVE_UP(skinref_dump__fail(error, SKINREF_DUMP_ERROR_FORMAT,
                                             "%s: at byte 16: %lu primitive records of 32 bytes, but only %llu bytes "
                                             "follow the header",
                                             path, (unsigned long)primitive_count,
                                             (unsigned long long)(reader->size - offset)));
  if (primitive_count != 0) {
    skv->primitives = (skinref_skv_primitive *)calloc(primitive_count, sizeof *skv->primitives);
    reader->data_offsets = (uint64_t *)calloc(primitive_count, sizeof *reader->data_offsets);
    reader->loaded = (void **)calloc(3 * (size_t)primitive_count, sizeof *reader->loaded);
    if (!skv->primitives || !reader->data_offsets || !reader->loaded)
      SKINREF_DUMP__GIVE_UP(skinref_dump__fail(error, SKINREF_DUMP_ERROR_MEMORY, "%s: out of memory for %lu primitives",
                                               path, (unsigned long)primitive_count));
  }
  skv->primitive_count = primitive_count;
  for (i = 0; i < primitive_count; ++i) {
    status = skinref_dump__read_primitive(skv, reader, i, &offset, path, error);
    if (status) SKINREF_DUMP__GIVE_UP(status);
  }
  if (offset != reader->size)
    SKINREF_DUMP__GIVE_UP(skinref_dump__fail(error, SKINREF_DUMP_ERROR_FORMAT,
                                             "%s: at byte %llu: the end of the file after the last primitive, but %llu "
                                             "more bytes follow",
                                             path, (unsigned long long)offset,
                                             (unsigned long long)(reader->size - offset)));
#undef SKINREF_DUMP__GIVE_UP
  return SKINREF_DUMP_OK;
}

/* Where attribute `attribute` of primitive `index` starts, and its component count; an error when absent. */
static int skinref_dump__locate(skinref_skv *skv, size_t index, skinref_skv_attribute attribute, uint64_t *offset,
                                uint64_t *components, skinref_dump_error *error) {
  const skinref_dump__reader *reader = (const skinref_dump__reader *)skv->internal_;
  const skinref_skv_primitive *p;
  uint64_t start;
  if (!reader) return skinref_dump__fail(error, SKINREF_DUMP_ERROR_ARGUMENT, "skinref_skv: not open");
  if (index >= skv->primitive_count)
    return skinref_dump__fail(error, SKINREF_DUMP_ERROR_ARGUMENT, "%s: primitive %lu: below the primitive count %lu",
                              reader->path, (unsigned long)index, (unsigned long)skv->primitive_count);
  p = &skv->primitives[index];
  start = reader->data_offsets[index];
  if (attribute == SKINREF_SKV_POSITIONS) {
    *components = 3 * p->vertex_count;
  } else if (attribute == SKINREF_SKV_NORMALS || attribute == SKINREF_SKV_TANGENTS) {
    const uint32_t bit = attribute == SKINREF_SKV_NORMALS ? SKINREF_SKV_BIT_NORMALS : SKINREF_SKV_BIT_TANGENTS;
    if ((p->attributes & bit) == 0)
      return skinref_dump__fail(error, SKINREF_DUMP_ERROR_ARGUMENT,
                                "%s: primitive %lu: %s, but it has none (attributes %lu)", reader->path,
                                (unsigned long)index, attribute == SKINREF_SKV_NORMALS ? "normals" : "tangents",
                                (unsigned long)p->attributes);
    start += 3 * p->vertex_count * skv->precision;
    if (attribute == SKINREF_SKV_TANGENTS && (p->attributes & SKINREF_SKV_BIT_NORMALS))
      start += 3 * p->vertex_count * skv->precision;
    *components = (attribute == SKINREF_SKV_NORMALS ? 3 : 4) * p->vertex_count;
  } else {
    return skinref_dump__fail(error, SKINREF_DUMP_ERROR_ARGUMENT, "%s: attribute %d: positions, normals or tangents",
                              reader->path, (int)attribute);
  }
  *offset = start;
  return SKINREF_DUMP_OK;
}

/* Decodes `count` components at `offset` into floats (f32_out) or doubles (f64_out). */
static int skinref_dump__decode(skinref_skv *skv, uint64_t offset, uint64_t count, float *f32_out, double *f64_out,
                                skinref_dump_error *error) {
  skinref_dump__reader *reader = (skinref_dump__reader *)skv->internal_;
  unsigned char buffer[4096];
  const size_t per_chunk = sizeof buffer / skv->precision;
  uint64_t done = 0;
  while (done < count) {
    const size_t chunk = count - done < per_chunk ? (size_t)(count - done) : per_chunk;
    size_t i;
    const int status =
        skinref_dump__read_at(reader, offset + done * skv->precision, buffer, chunk * skv->precision, error);
    if (status != SKINREF_DUMP_OK) return status;
    for (i = 0; i < chunk; ++i) {
      const size_t at = (size_t)done + i;
      if (skv->precision == 4) {
        const float value = skinref_dump__bits_float(skinref_dump__get_u32(buffer + 4 * i));
        if (f32_out)
          f32_out[at] = value;
        else
          f64_out[at] = (double)value;
      } else {
        const double value = skinref_dump__bits_double(skinref_dump__get_u64(buffer + 8 * i));
        if (f32_out)
          f32_out[at] = skinref_dump__to_float(value);
        else
          f64_out[at] = value;
      }
    }
    done += chunk;
  }
  return SKINREF_DUMP_OK;
}

static int skinref_dump__read(skinref_skv *skv, size_t primitive, skinref_skv_attribute attribute, float *f32_out,
                              double *f64_out, size_t capacity, skinref_dump_error *error) {
  uint64_t offset, components;
  int status;
  skinref_dump__ok(error);
  if (!skv) return skinref_dump__fail(error, SKINREF_DUMP_ERROR_ARGUMENT, "skinref_skv_read: skv is NULL");
  status = skinref_dump__locate(skv, primitive, attribute, &offset, &components, error);
  if (status != SKINREF_DUMP_OK) return status;
  if ((uint64_t)capacity < components || (components != 0 && !f32_out && !f64_out))
    return skinref_dump__fail(
        error, SKINREF_DUMP_ERROR_ARGUMENT, "%s: primitive %lu: an output array of %llu numbers, got %lu%s",
        ((skinref_dump__reader *)skv->internal_)->path, (unsigned long)primitive, (unsigned long long)components,
        (unsigned long)capacity, (f32_out || f64_out) ? "" : " (NULL)");
  return skinref_dump__decode(skv, offset, components, f32_out, f64_out, error);
}

SKINREF_DUMP_DEF int skinref_skv_read_f32(skinref_skv *skv, size_t primitive, skinref_skv_attribute attribute,
                                          float *out, size_t capacity, skinref_dump_error *error) {
  return skinref_dump__read(skv, primitive, attribute, out, NULL, capacity, error);
}

SKINREF_DUMP_DEF int skinref_skv_read_f64(skinref_skv *skv, size_t primitive, skinref_skv_attribute attribute,
                                          double *out, size_t capacity, skinref_dump_error *error) {
  return skinref_dump__read(skv, primitive, attribute, NULL, out, capacity, error);
}

SKINREF_DUMP_DEF int skinref_skv_load(skinref_skv *skv, skinref_dump_precision as, skinref_dump_error *error) {
  skinref_dump__reader *reader;
  size_t i;
  int a;
  skinref_dump__ok(error);
  if (!skv || !skv->internal_)
    return skinref_dump__fail(error, SKINREF_DUMP_ERROR_ARGUMENT, "skinref_skv_load: not open");
  reader = (skinref_dump__reader *)skv->internal_;
  if (as != SKINREF_DUMP_F32 && as != SKINREF_DUMP_F64)
    return skinref_dump__fail(error, SKINREF_DUMP_ERROR_ARGUMENT, "%s: load as SKINREF_DUMP_F32 or SKINREF_DUMP_F64",
                              reader->path);
  for (i = 0; i < skv->primitive_count; ++i) {
    skinref_skv_primitive *p = &skv->primitives[i];
    for (a = 0; a < 3; ++a) {
      const skinref_skv_attribute attribute = (skinref_skv_attribute)a;
      skinref_dump_reals *slot = a == 0 ? &p->positions : a == 1 ? &p->normals : &p->tangents;
      uint64_t offset, components;
      void *block;
      int status;
      if (a == 1 && !(p->attributes & SKINREF_SKV_BIT_NORMALS)) continue;
      if (a == 2 && !(p->attributes & SKINREF_SKV_BIT_TANGENTS)) continue;
      status = skinref_dump__locate(skv, i, attribute, &offset, &components, error);
      if (status != SKINREF_DUMP_OK) return status;
      if (components > (uint64_t)((size_t)-1 / (size_t)as))
        return skinref_dump__fail(error, SKINREF_DUMP_ERROR_MEMORY, "%s: primitive %lu: too large for memory",
                                  reader->path, (unsigned long)i);
      free(reader->loaded[3 * i + (size_t)a]);
      block = malloc(components ? (size_t)components * (size_t)as : 1);
      reader->loaded[3 * i + (size_t)a] = block;
      slot->f32 = NULL;
      slot->f64 = NULL;
      if (!block)
        return skinref_dump__fail(error, SKINREF_DUMP_ERROR_MEMORY, "%s: primitive %lu: out of memory for %llu values",
                                  reader->path, (unsigned long)i, (unsigned long long)components);
      status = skinref_dump__decode(skv, offset, components, as == SKINREF_DUMP_F32 ? (float *)block : NULL,
                                    as == SKINREF_DUMP_F64 ? (double *)block : NULL, error);
      if (status != SKINREF_DUMP_OK) return status;
      if (as == SKINREF_DUMP_F32)
        slot->f32 = (const float *)block;
      else
        slot->f64 = (const double *)block;
    }
  }
  return SKINREF_DUMP_OK;
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

#endif /* SKINREF_DUMP_IMPLEMENTATION_DONE */
#endif /* SKINREF_DUMP_IMPLEMENTATION */
