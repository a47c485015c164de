# Turns a SPIR-V binary into a C++ header holding its words: cmake -DINPUT=x.spv -DOUTPUT=x.h -DSYMBOL=name -P
# SPIR-V is a stream of little-endian 32-bit words; the bytes are regrouped into words here.
file(READ "${INPUT}" bytes HEX)
string(LENGTH "${bytes}" hex_length)
math(EXPR remainder "${hex_length} % 8")
if(NOT remainder EQUAL 0)
  message(FATAL_ERROR "${INPUT}: not a whole number of 32-bit words")
endif()
string(REGEX REPLACE "(..)(..)(..)(..)" "0x\\4\\3\\2\\1u," words "${bytes}")
string(REGEX REPLACE "((0x[0-9a-f]+u,){8})" "\\1\n  " words "${words}")
file(WRITE "${OUTPUT}.tmp"
  "// Generated from ${INPUT} by gpu/embed_spirv.cmake; do not edit.\n#pragma once\n#include <cstdint>\n"
  "inline constexpr uint32_t ${SYMBOL}[] = {\n  ${words}\n};\n")
file(RENAME "${OUTPUT}.tmp" "${OUTPUT}")
