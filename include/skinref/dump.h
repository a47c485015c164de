/* skinref/dump.h: write and read skinref's dumps from an engine, in C99 (or C++): both headers in one.
 *
 * It includes the two headers that do the work, each usable alone:
 *   skinref/dump_write.h   the writer: skinref_skv_write, skinref_pose_write, skinref_dump_model_hash
 *   skinref/dump_read.h    the reader: skinref_skv_open / _read_f32 / _read_f64 / _load / _close
 * and, through them, skinref/dump_common.h (the shared types, and the contract both keep). Each header's top
 * comment states what it does and guarantees.
 *
 * Include it anywhere for the declarations; in exactly one C or C++ file, first
 *
 *     #define SKINREF_DUMP_IMPLEMENTATION
 *     #include "skinref/dump.h"
 *
 * for the implementation of both (SKINREF_DUMP_IMPLEMENTATION defines SKINREF_DUMP_WRITE_IMPLEMENTATION and
 * SKINREF_DUMP_READ_IMPLEMENTATION). It needs the C standard library only, and float and double that are
 * IEEE 754 binary32 and binary64 (checked at compile time).
 */
#ifndef SKINREF_DUMP_H
#define SKINREF_DUMP_H /* no declarations of its own: they are the two headers' */
#endif

/* Outside the guard: a file that included dump.h for the declarations may include it again to implement it. */
#ifdef SKINREF_DUMP_IMPLEMENTATION
#ifndef SKINREF_DUMP_WRITE_IMPLEMENTATION
#define SKINREF_DUMP_WRITE_IMPLEMENTATION
#endif
#ifndef SKINREF_DUMP_READ_IMPLEMENTATION
#define SKINREF_DUMP_READ_IMPLEMENTATION
#endif
#endif

#include "dump_read.h"
#include "dump_write.h"
