// Checked reading of glTF accessors (internal to the loader).
//
// Contract:
// - read_accessor() validates, before touching a byte: the accessor index, its type and componentType
//   (and `normalized`) against the rules of the semantic that uses it, its bufferView and buffer indices,
//   the bufferView's range within its buffer and its byteStride, and the accessor's whole byte range
//   (byteOffset + stride * (count - 1) + element size <= bufferView.byteLength), all in overflow-safe
//   arithmetic; sparse substitution (indices strictly increasing and < count, both ranges checked); and,
//   for float data, that every value is finite.
// - Values come out as doubles, `components` per element, flattened; normalized integers are converted
//   with the glTF 2.0 formulas (i8: max(c / 127, -1), u8: c / 255, i16: max(c / 32767, -1), u16: c / 65535);
//   other integers keep their value. An accessor without bufferView reads as zeros (then sparse applies).
// - `reading` plants an engine's departures (core/conventions.h): byteStride ignored (elements read tightly
//   packed), the accessor's byteOffset ignored, sparse substitution skipped (the base alone, zeros without a
//   bufferView). The file is still checked as glTF 2.0 requires; what is read stays within the bufferView.
// - Errors are InputError with the JSON path of the offending value (see gltf_load.h).
#pragma once

#include <tiny_gltf.h>

#include <string>
#include <vector>

namespace skinref::gltf_detail {

// One allowed storage of a semantic: a tinygltf component type and whether it must be normalized.
struct ComponentRule {
  int component_type;
  bool normalized;
};

struct AccessorRules {
  std::string semantic;                 // used in messages, e.g. "POSITION", "animation input"
  std::vector<int> types;               // TINYGLTF_TYPE_* allowed
  std::vector<ComponentRule> storages;  // allowed (componentType, normalized) pairs
};

struct AccessorData {
  size_t count = 0;
  int components = 0;
  std::vector<double> values;  // count * components
};

// How an engine reads accessors: as glTF 2.0 says (the default), or with one of the departures above.
struct AccessorReading {
  bool stride_ignored = false;
  bool offset_ignored = false;
  bool sparse_ignored = false;
};

// `referrer` is the JSON path of the property holding the accessor index (for an out-of-range index).
AccessorData read_accessor(const tinygltf::Model& model, int accessor_index, const AccessorRules& rules,
                           const std::string& file, const std::string& referrer,
                           const AccessorReading& reading = {});

std::string component_type_name(int component_type);
std::string accessor_type_name(int type);

}  // namespace skinref::gltf_detail
