// Test utility: PNG files built byte by byte from the PNG specification (chunks of section 5.3 with their CRC,
// the IHDR of 11.2.2) and zlib streams built from RFC 1950/1951 (stored blocks, and fixed-Huffman runs of
// zeros), independent of the decoder under test, so that a test can give read_png image data of an exact
// inflated size or a stream that inflates to far more than its file.
//
// Contract:
// - png_file() writes the signature, IHDR (compression 0, filter 0), one IDAT holding `zlib_stream` (any
//   bytes: a test may break it) and IEND.
// - zlib_stored() is a valid zlib stream whose blocks are stored (BTYPE 00), inflating to exactly `raw`, with
//   its Adler-32.
// - zlib_zeros() is a valid zlib stream inflating to exactly `count` zero bytes: one literal then runs of
//   258 (length code 285, distance 1) in a fixed-Huffman block, 13 bits per 258 bytes, so its size is about
//   count / 159. count must be 1 + 258 k; it throws std::invalid_argument otherwise.
#pragma once

#include <cstdint>
#include <string>

namespace skinref::test {

std::string png_file(uint32_t width, uint32_t height, unsigned bit_depth, unsigned colour_type, bool interlaced,
                     const std::string& zlib_stream);
std::string zlib_stored(const std::string& raw);
std::string zlib_zeros(uint64_t count);

}  // namespace skinref::test
