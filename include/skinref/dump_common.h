/* skinref/dump_common.h: what skinref's C dump headers share, in C99 (or C++).
 *
 * The types both sides use: the error codes and skinref_dump_error, the precision, the caller's arrays
 * (skinref_dump_reals), conventions, a .skv record (skinref_dump_record) and primitive (skinref_skv_primitive);
 * and, in its implementation section, the small static helpers both sides call (errors, float rounding, UTF-8,
 * the .skv sizes).
 *
 * How to use it: not on its own. skinref/dump_write.h (the writer) and skinref/dump_read.h (the reader) include
 * it, and skinref/dump.h both. Its implementation is compiled with either one's (SKINREF_DUMP_WRITE_IMPLEMENTATION
 * or SKINREF_DUMP_READ_IMPLEMENTATION), once per translation unit even when both are implemented there. It
 * defines no external symbol: the writer and the reader may be implemented in different files of one program.
 * It needs the C standard library only, and float and double that are IEEE 754 binary32 and binary64 (checked at
 * compile time).
 *
 * Contract (the writer's and the reader's)
 *   - Units and spaces are skinref's: world-space positions in the model's units, unit normals, tangents
 *     x y z w; times in seconds; pose matrices 4x4 (16 values) and normal matrices 3x3 (9 values).
 *   - Byte order: files are little-endian whatever the host; every field is encoded byte by byte, never by
 *     copying a struct.
 *   - Arrays come as skinref_dump_reals, exactly one of .f32 and .f64 non-NULL (skinref_dump_f32(p) /
 *     skinref_dump_f64(p)); they hold the counts the structs state (3 per position and normal, 4 per tangent, ...).
 *   - Strings are NUL-terminated UTF-8.
 *   - Errors: every function returns SKINREF_DUMP_OK (0) or an error code, and fills *error (it may be NULL) with
 *     the code and one line naming what was expected and what was found.
 */
#ifndef SKINREF_DUMP_COMMON_H
#define SKINREF_DUMP_COMMON_H

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

#ifdef __cplusplus
}
#endif

#endif /* SKINREF_DUMP_COMMON_H */

/* ============================================================================================================ */

/* Compiled with the writer's or the reader's implementation, once per translation unit. Every helper is static:
 * the writer and the reader may be implemented in different files of one program. */
#if defined(SKINREF_DUMP_WRITE_IMPLEMENTATION) || defined(SKINREF_DUMP_READ_IMPLEMENTATION)
#ifndef SKINREF_DUMP_COMMON_IMPLEMENTATION_DONE
#define SKINREF_DUMP_COMMON_IMPLEMENTATION_DONE

#include <float.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#if FLT_RADIX != 2 || FLT_MANT_DIG != 24 || DBL_MANT_DIG != 53 || CHAR_BIT != 8
#error "skinref/dump_common.h needs IEEE 754 binary32 float and binary64 double, and 8-bit bytes"
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define SKINREF_DUMP__HEADER_BYTES 32u
#define SKINREF_DUMP__PRIMITIVE_BYTES 32u
#define SKINREF_DUMP__MAX_RECORD_BYTES (1u << 20)
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

/* ---- the bits of floats ---------------------------------------------------------------------------------- */

static float skinref_dump__bits_float(uint32_t bits) {
  float value;
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

/* ---- UTF-8 ----------------------------------------------------------------------------------------------- */

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

#ifdef __cplusplus
}
#endif

#endif /* SKINREF_DUMP_COMMON_IMPLEMENTATION_DONE */
#endif /* SKINREF_DUMP_WRITE_IMPLEMENTATION || SKINREF_DUMP_READ_IMPLEMENTATION */
