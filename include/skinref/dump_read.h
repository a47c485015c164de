/* skinref/dump_read.h: read a .skv vertex dump back, in C99 (or C++).
 *
 * A single header (with skinref/dump_common.h, which it includes). Include it anywhere for the declarations; in
 * exactly one C or C++ file, first
 *
 *     #define SKINREF_DUMP_READ_IMPLEMENTATION
 *     #include "skinref/dump_read.h"
 *
 * for the implementation (skinref/dump.h with SKINREF_DUMP_IMPLEMENTATION gives the writer and the reader). It
 * needs the C standard library only, and float and double that are IEEE 754 binary32 and binary64 (checked at
 * compile time).
 *
 * What it does
 *   - skinref_skv_open / skinref_skv_read_f32 / skinref_skv_read_f64 / skinref_skv_load / skinref_skv_close:
 *     a .skv file (layout: docs/formats.md) read back with every field and count checked against the file size
 *     first, and its record's JSON parsed into a skinref_dump_record.
 *
 * Contract (with skinref/dump_common.h's: units, byte order, arrays, errors)
 *   - Ownership: everything the reader returns (the record's strings, primitives, loaded arrays) belongs to the
 *     skinref_skv and lives until skinref_skv_close; buffers passed to skinref_skv_read_f32/_f64 stay the
 *     caller's.
 *   - Precision: reading an f64 file into floats rounds each value to the nearest float. Values read into the
 *     precision they were written in are exact.
 *   - Errors: a malformed file is reported as "FILE: at byte N: EXPECTED", naming what was expected and what
 *     was found. Nothing is read outside the file or the caller's arrays.
 *   - No state is kept between calls; one skinref_skv is used by one thread at a time.
 *   - Not interpreted: a record's "ranges" (a merged vertex buffer) are left to skinref, which splits the
 *     buffer; the reader returns the primitives as stored. Convention names and values are not checked
 *     here: skinref checks them (docs/conventions.md).
 */
#include "dump_common.h"

#ifndef SKINREF_DUMP_READ_H
#define SKINREF_DUMP_READ_H

#ifdef __cplusplus
extern "C" {
#endif

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

#ifdef __cplusplus
}
#endif

#endif /* SKINREF_DUMP_READ_H */

/* ============================================================================================================ */

#ifdef SKINREF_DUMP_READ_IMPLEMENTATION
#ifndef SKINREF_DUMP_READ_IMPLEMENTATION_DONE
#define SKINREF_DUMP_READ_IMPLEMENTATION_DONE

#include <errno.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SKINREF_DUMP__MAX_JSON_DEPTH 256

/* ---- little-endian bytes, and the bits of doubles -------------------------------------------------------- */

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

static double skinref_dump__bits_double(uint64_t bits) {
  double value;
  memcpy(&value, &bits, sizeof value);
  return value;
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
  uint64_t offset = 0, components = 0; /* set by locate; initialised for compilers that cannot see it */
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

#ifdef __cplusplus
}
#endif

#endif /* SKINREF_DUMP_READ_IMPLEMENTATION_DONE */
#endif /* SKINREF_DUMP_READ_IMPLEMENTATION */
