/* What the C tests of skinref's dump headers share: a CHECK that counts and reports (FILE:LINE and the check,
 * the run goes on), and read_all(), a whole file's bytes. C99 and C++; each test is one translation unit. */
#ifndef SKINREF_CDUMP_TEST_SUPPORT_H
#define SKINREF_CDUMP_TEST_SUPPORT_H

#include <stdio.h>
#include <stdlib.h>

static int failures = 0;
static int checks = 0;

#define CHECK(condition)                                                            \
  do {                                                                              \
    ++checks;                                                                       \
    if (!(condition)) {                                                             \
      ++failures;                                                                   \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #condition); \
    }                                                                               \
  } while (0)

/* The file's bytes (malloc'ed, one spare byte), or NULL; *size its length. */
static inline unsigned char *read_all(const char *path, size_t *size) {
  FILE *in = fopen(path, "rb");
  unsigned char *bytes = NULL;
  long end;
  *size = 0;
  if (!in) return NULL;
  if (fseek(in, 0, SEEK_END) == 0 && (end = ftell(in)) >= 0 && fseek(in, 0, SEEK_SET) == 0) {
    bytes = (unsigned char *)malloc((size_t)end + 1);
    if (bytes && fread(bytes, 1, (size_t)end, in) == (size_t)end) {
      *size = (size_t)end;
    } else {
      free(bytes);
      bytes = NULL;
    }
  }
  fclose(in);
  return bytes;
}

#endif /* SKINREF_CDUMP_TEST_SUPPORT_H */
