// PNG files and zlib streams from their specifications (png_builder.h).
#include "support/png_builder.h"

#include <algorithm>
#include <stdexcept>

namespace skinref::test {
inline namespace SKINREF_UNITY_ID {  // unnamed, or the file's own in a unity build (CMakeLists.txt)

std::string big_endian_32(uint32_t value) {
  std::string bytes(4, '\0');
  for (size_t i = 0; i < 4; ++i) bytes[i] = static_cast<char>((value >> (24 - 8 * i)) & 0xffu);
  return bytes;
}

// CRC-32 of PNG specification annex D (polynomial 0xEDB88320, reflected), bit by bit.
uint32_t crc32(const std::string& bytes) {
  uint32_t crc = 0xffffffffu;
  for (char byte : bytes) {
    crc ^= uint8_t(byte);
    for (int bit = 0; bit < 8; ++bit) crc = (crc & 1u) != 0 ? (crc >> 1) ^ 0xedb88320u : crc >> 1;
  }
  return crc ^ 0xffffffffu;
}

std::string chunk(const std::string& type, const std::string& data) {
  return big_endian_32(uint32_t(data.size())) + type + data + big_endian_32(crc32(type + data));
}

// RFC 1950: CMF 0x78 (deflate, 32K window), FLG making CMF*256+FLG a multiple of 31 (0x01: no dictionary,
// fastest level).
const std::string kZlibHeader("\x78\x01", 2);

// Adler-32 of RFC 1950 section 8.2.
uint32_t adler32(const std::string& bytes) {
  uint64_t a = 1, b = 0;
  for (char byte : bytes) {
    a = (a + uint8_t(byte)) % 65521;
    b = (b + a) % 65521;
  }
  return uint32_t(b << 16 | a);
}

// Deflate's bit order (RFC 1951 3.1.1): values least significant bit first, Huffman codes most significant
// bit first.
struct BitWriter {
  std::string bytes;
  unsigned used = 8;  // bits used in the last byte
  void bit(unsigned value) {
    if (used == 8) bytes.push_back('\0'), used = 0;
    bytes.back() = static_cast<char>(uint8_t(bytes.back()) | ((value & 1u) << used));
    ++used;
  }
  void value(uint32_t bits, int count) {
    for (int i = 0; i < count; ++i) bit(bits >> i);
  }
  void code(uint32_t bits, int count) {
    for (int i = count - 1; i >= 0; --i) bit(bits >> i);
  }
};

}  // namespace

std::string png_file(uint32_t width, uint32_t height, unsigned bit_depth, unsigned colour_type, bool interlaced,
                     const std::string& zlib_stream) {
  std::string header = big_endian_32(width) + big_endian_32(height);
  header += static_cast<char>(bit_depth);
  header += static_cast<char>(colour_type);
  header += std::string(2, '\0');  // compression and filter method 0
  header += static_cast<char>(interlaced ? 1 : 0);
  return std::string("\x89PNG\r\n\x1a\n", 8) + chunk("IHDR", header) + chunk("IDAT", zlib_stream) +
         chunk("IEND", "");
}

std::string zlib_stored(const std::string& raw) {
  std::string stream = kZlibHeader;
  size_t at = 0;
  do {  // RFC 1951 3.2.4: BFINAL, BTYPE 00, then LEN and NLEN little-endian from the next byte boundary
    const size_t length = std::min<size_t>(raw.size() - at, 65535);
    const bool last = at + length == raw.size();
    stream += static_cast<char>(last ? 1 : 0);
    stream += static_cast<char>(length & 0xff);
    stream += static_cast<char>(length >> 8);
    stream += static_cast<char>(~length & 0xff);
    stream += static_cast<char>((~length >> 8) & 0xff);
    stream.append(raw, at, length);
    at += length;
  } while (at < raw.size());
  return stream + big_endian_32(adler32(raw));
}

std::string zlib_zeros(uint64_t count) {
  if (count == 0 || (count - 1) % 258 != 0) throw std::invalid_argument("zlib_zeros: count must be 1 + 258 k");
  BitWriter deflate;
  deflate.value(1, 1);         // BFINAL
  deflate.value(1, 2);         // BTYPE 01: fixed Huffman codes (RFC 1951 3.2.6)
  deflate.code(0x30, 8);       // literal 0: codes 0-143 are 00110000 + value, 8 bits
  for (uint64_t run = 0; run < (count - 1) / 258; ++run) {
    deflate.code(0xc5, 8);     // length 258: code 285, in 280-287's 8-bit codes 11000000 + (285 - 280)
    deflate.code(0, 5);        // distance 1: distance code 0, 5 bits, no extra bits
  }
  deflate.code(0, 7);          // end of block: code 256, 7 bits 0000000
  // Adler-32 of `count` zeros: a stays 1 and b gains 1 per byte.
  return kZlibHeader + deflate.bytes + big_endian_32(uint32_t((count % 65521) << 16 | 1));
}

}  // namespace skinref::test
