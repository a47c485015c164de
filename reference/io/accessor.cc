#include "io/accessor.h"

#include "core/input_error.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace skinref::gltf_detail {
namespace {

int component_size(int component_type) {
  switch (component_type) {
    case TINYGLTF_COMPONENT_TYPE_BYTE:
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE: return 1;
    case TINYGLTF_COMPONENT_TYPE_SHORT:
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT: return 2;
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT:
    case TINYGLTF_COMPONENT_TYPE_FLOAT: return 4;
    default: return 0;
  }
}

int component_count(int type) {
  switch (type) {
    case TINYGLTF_TYPE_SCALAR: return 1;
    case TINYGLTF_TYPE_VEC2: return 2;
    case TINYGLTF_TYPE_VEC3: return 3;
    case TINYGLTF_TYPE_VEC4: return 4;
    case TINYGLTF_TYPE_MAT2: return 4;
    case TINYGLTF_TYPE_MAT3: return 9;
    case TINYGLTF_TYPE_MAT4: return 16;
    default: return 0;
  }
}

// a + b <= limit, without overflow.
bool fits(uint64_t a, uint64_t b, uint64_t limit) { return a <= limit && b <= limit - a; }

double read_component(const unsigned char* p, int component_type, bool normalized) {
  switch (component_type) {
    case TINYGLTF_COMPONENT_TYPE_BYTE: {
      int8_t v;
      std::memcpy(&v, p, 1);
      return normalized ? std::max(double(v) / 127.0, -1.0) : double(v);
    }
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE: {
      uint8_t v;
      std::memcpy(&v, p, 1);
      return normalized ? double(v) / 255.0 : double(v);
    }
    case TINYGLTF_COMPONENT_TYPE_SHORT: {
      int16_t v;
      std::memcpy(&v, p, 2);
      return normalized ? std::max(double(v) / 32767.0, -1.0) : double(v);
    }
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT: {
      uint16_t v;
      std::memcpy(&v, p, 2);
      return normalized ? double(v) / 65535.0 : double(v);
    }
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT: {
      uint32_t v;
      std::memcpy(&v, p, 4);
      return double(v);
    }
    default: {  // FLOAT; glTF data is little-endian, as is every platform this builds on.
      float v;
      std::memcpy(&v, p, 4);
      return double(v);
    }
  }
}

std::string acc_path(int index) { return "/accessors/" + std::to_string(index); }
std::string view_path(int index) { return "/bufferViews/" + std::to_string(index); }

// Checks a bufferView and its buffer; returns the byte span [begin, begin + length) of the view.
const unsigned char* checked_view(const tinygltf::Model& model, int view_index, const std::string& file,
                                  const std::string& referrer, uint64_t* view_length) {
  if (view_index < 0 || size_t(view_index) >= model.bufferViews.size())
    throw InputError(file, referrer,
                     "a bufferView index < " + std::to_string(model.bufferViews.size()) + ", got " +
                         std::to_string(view_index));
  const tinygltf::BufferView& view = model.bufferViews[view_index];
  if (view.buffer < 0 || size_t(view.buffer) >= model.buffers.size())
    throw InputError(file, view_path(view_index) + "/buffer",
                     "a buffer index < " + std::to_string(model.buffers.size()) + ", got " +
                         std::to_string(view.buffer));
  const tinygltf::Buffer& buffer = model.buffers[view.buffer];
  if (!fits(view.byteOffset, view.byteLength, buffer.data.size()))
    throw InputError(file, view_path(view_index) + "/byteLength",
                     "byteOffset + byteLength <= " + std::to_string(buffer.data.size()) +
                         " (the size of buffer " + std::to_string(view.buffer) + "), got " +
                         std::to_string(view.byteOffset) + " + " + std::to_string(view.byteLength));
  *view_length = view.byteLength;
  return buffer.data.data() + view.byteOffset;
}

}  // namespace

std::string component_type_name(int component_type) {
  switch (component_type) {
    case TINYGLTF_COMPONENT_TYPE_BYTE: return "BYTE (5120)";
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE: return "UNSIGNED_BYTE (5121)";
    case TINYGLTF_COMPONENT_TYPE_SHORT: return "SHORT (5122)";
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT: return "UNSIGNED_SHORT (5123)";
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT: return "UNSIGNED_INT (5125)";
    case TINYGLTF_COMPONENT_TYPE_FLOAT: return "FLOAT (5126)";
    default: return std::to_string(component_type);
  }
}

std::string accessor_type_name(int type) {
  switch (type) {
    case TINYGLTF_TYPE_SCALAR: return "SCALAR";
    case TINYGLTF_TYPE_VEC2: return "VEC2";
    case TINYGLTF_TYPE_VEC3: return "VEC3";
    case TINYGLTF_TYPE_VEC4: return "VEC4";
    case TINYGLTF_TYPE_MAT2: return "MAT2";
    case TINYGLTF_TYPE_MAT3: return "MAT3";
    case TINYGLTF_TYPE_MAT4: return "MAT4";
    default: return std::to_string(type);
  }
}

namespace {

// Storage step: the accessor's type, then component type, then `normalized`, each against what the semantic
// allows.
void check_storage(const tinygltf::Accessor& acc, const AccessorRules& rules, const std::string& file,
                   const std::string& path) {
  bool type_ok = false;
  std::string allowed_types;
  for (int t : rules.types) {
    type_ok |= (t == acc.type);
    allowed_types += (allowed_types.empty() ? "" : " or ") + accessor_type_name(t);
  }
  if (!type_ok)
    throw InputError(file, path + "/type",
                     "type " + allowed_types + " for " + rules.semantic + ", got " + accessor_type_name(acc.type));
  bool component_ok = false, normalized_ok = false;
  std::string allowed_storage;
  for (const ComponentRule& r : rules.storages) {
    if (r.component_type == acc.componentType) {
      component_ok = true;
      normalized_ok |= (r.normalized == acc.normalized);
    }
    allowed_storage += (allowed_storage.empty() ? "" : ", ") + component_type_name(r.component_type) +
                       (r.normalized ? " normalized" : "");
  }
  if (!component_ok)
    throw InputError(file, path + "/componentType",
                     "componentType " + allowed_storage + " for " + rules.semantic + ", got " +
                         component_type_name(acc.componentType));
  if (!normalized_ok)
    throw InputError(file, path + "/normalized",
                     std::string("normalized: ") + (acc.normalized ? "false" : "true") + " for " +
                         rules.semantic + " stored as " + component_type_name(acc.componentType));
}

// An accessor's element layout, derived once from its type and component type.
struct ElementLayout {
  int comps = 0;              // components per element
  int csize = 0;              // bytes per component
  uint64_t element_size = 0;  // comps * csize
  uint64_t count = 0;         // elements (>= 1)
};

// Dense step: checks the accessor's byte range in its bufferView (and the view's byteStride), then reads
// every element into `values`.
void read_dense_values(const tinygltf::Model& model, const tinygltf::Accessor& acc, int index,
                       const ElementLayout& layout, const AccessorReading& reading, const std::string& file,
                       const std::string& path, std::vector<double>& values) {
  const int comps = layout.comps, csize = layout.csize;
  const uint64_t element_size = layout.element_size, count = layout.count;
  uint64_t view_length = 0;
  const unsigned char* view = checked_view(model, acc.bufferView, file, path + "/bufferView", &view_length);
  const tinygltf::BufferView& bv = model.bufferViews[acc.bufferView];
  uint64_t stride = element_size;
  if (bv.byteStride != 0) {
    if (bv.byteStride < 4 || bv.byteStride > 252 || bv.byteStride % 4 != 0 || bv.byteStride < element_size ||
        bv.byteStride % uint64_t(csize) != 0)
      throw InputError(file, view_path(acc.bufferView) + "/byteStride",
                       "a byteStride that is a multiple of 4 in [4, 252] and >= the element size " +
                           std::to_string(element_size) + " of accessor " + std::to_string(index) + ", got " +
                           std::to_string(bv.byteStride));
    stride = bv.byteStride;
  }
  if (!fits(acc.byteOffset, element_size, view_length))
    throw InputError(file, path + "/byteOffset",
                     "byteOffset + element size (" + std::to_string(element_size) + ") <= byteLength " +
                         std::to_string(view_length) + " of bufferView " + std::to_string(acc.bufferView) +
                         ", got byteOffset " + std::to_string(acc.byteOffset));
  const uint64_t room = view_length - acc.byteOffset - element_size;  // bytes after the first element
  if ((count - 1) > room / stride)
    throw InputError(file, path + "/count",
                     "byteOffset + stride * (count - 1) + element size <= byteLength " +
                         std::to_string(view_length) + " of bufferView " + std::to_string(acc.bufferView) +
                         ", so count <= " + std::to_string(room / stride + 1) + ", got " +
                         std::to_string(acc.count) + " (byteOffset " + std::to_string(acc.byteOffset) +
                         ", stride " + std::to_string(stride) + ")");
  values.resize(acc.count * size_t(comps));
  // The departures read less far than the file's own layout, which was checked above: packed elements end
  // before strided ones, and the view's start comes before the accessor's offset.
  if (reading.stride_ignored) stride = element_size;
  const unsigned char* base = view + (reading.offset_ignored ? 0 : acc.byteOffset);
  for (uint64_t i = 0; i < count; ++i) {
    const unsigned char* element = base + i * stride;
    for (int c = 0; c < comps; ++c)
      values[i * comps + c] = read_component(element + c * csize, acc.componentType, acc.normalized);
  }
}

// Sparse step: checks the sparse indices and values, then substitutes the values at their indices.
void apply_sparse_values(const tinygltf::Model& model, const tinygltf::Accessor& acc, const ElementLayout& layout,
                         const std::string& file, const std::string& path, std::vector<double>& values) {
  const int comps = layout.comps, csize = layout.csize;
  const uint64_t element_size = layout.element_size, count = layout.count;
  const auto& sp = acc.sparse;
  if (sp.count < 1 || uint64_t(sp.count) > count)
    throw InputError(file, path + "/sparse/count",
                     "1 <= sparse.count <= count (" + std::to_string(acc.count) + "), got " +
                         std::to_string(sp.count));
  const int isize = component_size(sp.indices.componentType);
  if (sp.indices.componentType != TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE &&
      sp.indices.componentType != TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT &&
      sp.indices.componentType != TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT)
    throw InputError(file, path + "/sparse/indices/componentType",
                     "UNSIGNED_BYTE, UNSIGNED_SHORT or UNSIGNED_INT, got " +
                         component_type_name(sp.indices.componentType));
  uint64_t ilen = 0, vlen = 0;
  const unsigned char* ibase =
      checked_view(model, sp.indices.bufferView, file, path + "/sparse/indices/bufferView", &ilen);
  const unsigned char* vbase =
      checked_view(model, sp.values.bufferView, file, path + "/sparse/values/bufferView", &vlen);
  if (sp.indices.byteOffset < 0 ||
      !fits(uint64_t(sp.indices.byteOffset), uint64_t(sp.count) * uint64_t(isize), ilen))
    throw InputError(file, path + "/sparse/indices/bufferView",
                     "sparse indices (byteOffset " + std::to_string(sp.indices.byteOffset) + " + " +
                         std::to_string(sp.count) + " x " + std::to_string(isize) +
                         " bytes) inside bufferView " + std::to_string(sp.indices.bufferView) + " of " +
                         std::to_string(ilen) + " bytes");
  if (sp.values.byteOffset < 0 ||
      !fits(uint64_t(sp.values.byteOffset), uint64_t(sp.count) * element_size, vlen))
    throw InputError(file, path + "/sparse/values/bufferView",
                     "sparse values (byteOffset " + std::to_string(sp.values.byteOffset) + " + " +
                         std::to_string(sp.count) + " x " + std::to_string(element_size) +
                         " bytes) inside bufferView " + std::to_string(sp.values.bufferView) + " of " +
                         std::to_string(vlen) + " bytes");
  ibase += sp.indices.byteOffset;
  vbase += sp.values.byteOffset;
  double previous = -1.0;
  for (int s = 0; s < sp.count; ++s) {
    const double target = read_component(ibase + uint64_t(s) * isize, sp.indices.componentType, false);
    if (target <= previous || target >= double(count))
      throw InputError(file, path + "/sparse/indices",
                       "strictly increasing indices < count " + std::to_string(acc.count) + "; index " +
                           std::to_string(s) + " is " + std::to_string(uint64_t(target)));
    previous = target;
    const unsigned char* element = vbase + uint64_t(s) * element_size;
    for (int c = 0; c < comps; ++c)
      values[uint64_t(target) * comps + c] =
          read_component(element + c * csize, acc.componentType, acc.normalized);
  }
}

// Finite step: float data must hold no NaN or infinity.
void check_finite(const std::vector<double>& values, int comps, const std::string& file, const std::string& path) {
  for (size_t i = 0; i < values.size(); ++i) {
    if (!std::isfinite(values[i]))
      throw InputError(file, path,
                       "finite values; element " + std::to_string(i / comps) + " component " +
                           std::to_string(i % comps) + " is " + (std::isnan(values[i]) ? "NaN" : "infinite"));
  }
}

}  // namespace

AccessorData read_accessor(const tinygltf::Model& model, int index, const AccessorRules& rules,
                           const std::string& file, const std::string& referrer, const AccessorReading& reading) {
  if (index < 0 || size_t(index) >= model.accessors.size())
    throw InputError(file, referrer,
                     "an accessor index < " + std::to_string(model.accessors.size()) + ", got " +
                         std::to_string(index));
  const tinygltf::Accessor& acc = model.accessors[index];
  const std::string path = acc_path(index);

  check_storage(acc, rules, file, path);

  const int comps = component_count(acc.type);
  const int csize = component_size(acc.componentType);
  const uint64_t element_size = uint64_t(comps) * uint64_t(csize);
  if (acc.count == 0) throw InputError(file, path + "/count", "count >= 1, got 0");
  const uint64_t count = acc.count;

  AccessorData out;
  out.count = acc.count;
  out.components = comps;

  const ElementLayout layout{comps, csize, element_size, count};
  if (acc.bufferView >= 0 || !acc.sparse.isSparse) {
    read_dense_values(model, acc, index, layout, reading, file, path, out.values);
  } else {
    // No bufferView: zeros, then the sparse values. No buffer bounds such an accessor, so cap its size
    // at what a 32-bit index can address rather than allocate whatever the file asks for.
    if (count > std::numeric_limits<uint32_t>::max())
      throw InputError(file, path + "/count", "count <= 4294967295 for an accessor without bufferView");
    out.values.assign(acc.count * size_t(comps), 0.0);
  }

  if (acc.sparse.isSparse && !reading.sparse_ignored) apply_sparse_values(model, acc, layout, file, path, out.values);
  if (acc.sparse.isSparse && reading.sparse_ignored) {
    std::vector<double> checked_only = out.values;  // the file is still checked as glTF 2.0 requires
    apply_sparse_values(model, acc, layout, file, path, checked_only);
  }

  if (acc.componentType == TINYGLTF_COMPONENT_TYPE_FLOAT) check_finite(out.values, comps, file, path);
  return out;
}

}  // namespace skinref::gltf_detail
