// A user's skinning vertex shader described for skinref (`--shader FILE.vert --interface FILE.json` with
// "stage": "vertex"; docs/vulkan.md "Your own vertex shader"): where its vertex inputs come from, which uniform
// or storage block holds the palette and the other matrices, and which outputs carry the skinned position and
// normal.
//
// Contract:
// - parse_vertex_interface() reads the JSON; any key, value or combination it cannot honour is an InputError
//   naming the file, the JSON path (e.g. "/inputs/2/format") and what was expected. It is checked against the
//   shader's SPIR-V by gpu/user_vertex_shader.h.
// - "vertex_buffers": [{"binding", "stride"}]: vertex buffer bindings, per-vertex rate.
// - "inputs": [{"location", "binding", "offset", "attribute", "format", "first", "sentinel"}]: each vertex input
//   of the shader. `attribute` is position, normal, tangent, joints or weights; `format` a Vulkan vertex format
//   (R32G32B32_SFLOAT, R32G32B32A32_SFLOAT, R8G8B8A8_UINT, R16G16B16A16_UINT, R16G16B16A16_SINT,
//   R32G32B32A32_UINT, R32G32B32A32_SINT for joints; R32G32B32A32_SFLOAT, R8G8B8A8_UNORM, R16G16B16A16_UNORM for
//   weights). Joints and weights inputs hold the influences from slot `first` (default 0), as many as the
//   format has components; together they cover slots 0 to `influences` - 1 once each. A joints input's
//   `sentinel` (an integer) is written in every slot whose weight is 0 ("no joint": -1 in the tutorials);
//   without it such slots hold joint 0.
// - "palette": {"binding", "descriptor": "uniform"|"storage", "offset", "layout", "joints"}: the skinning
//   matrices, `joints` of them from byte `offset` of the block at `binding` (set 0); layout mat4 (column-major,
//   64 bytes each, std140's mat4 array), mat4-row-major, mat3x4-rows (the top three rows as vec4s, 48
//   bytes each), or dual-quaternion (the rigid part of each matrix as a unit dual quaternion, real x y z w then
//   dual x y z w, 32 bytes each: skin/dqs.h's split).
// - "identity_matrices": [{"binding", "offset", "format": "mat4"|"mat3"}]: the model, view and projection (or
//   their products, or a normal matrix: mat3 as std140 lays it out, three vec4 columns) that skinref sets to
//   the identity, so that the outputs are the skinned values in world space. Every block byte not described
//   is zero.
// - "outputs": {"position": "gl_Position" | {"location"}, "normal": {"location"} (optional), "tangent":
//   {"location"} (optional)}: the skinned position is read as xyz (w ignored: it is the weights' sum, 1 for
//   glTF's weights); the normal as xyz, normalized by skinref as an engine's fragment shader does; the tangent,
//   an output of 4 floats, as xyz normalized likewise and w (the bitangent's sign) as written.
// - "method": lbs with a matrix layout, or dqs with the dual-quaternion layout.
#pragma once

#include "skin/method.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace skinref::gpu {

enum class VertexAttribute { Position, Normal, Tangent, Joints, Weights };

enum class VertexFormat {
  R32G32B32_SFLOAT, R32G32B32A32_SFLOAT,
  R8G8B8A8_UINT, R16G16B16A16_UINT, R16G16B16A16_SINT, R32G32B32A32_UINT, R32G32B32A32_SINT,
  R8G8B8A8_UNORM, R16G16B16A16_UNORM
};

enum class PaletteLayout { Mat4, Mat4RowMajor, Mat3x4Rows, DualQuaternion };
enum class BlockDescriptor { Uniform, Storage };
enum class IdentityFormat { Mat4, Mat3 };

struct VertexBufferBinding {
  uint32_t binding = 0;
  uint32_t stride = 0;
};

struct VertexInput {
  uint32_t location = 0;
  uint32_t binding = 0;
  uint32_t offset = 0;
  VertexAttribute attribute = VertexAttribute::Position;
  VertexFormat format = VertexFormat::R32G32B32_SFLOAT;
  uint32_t first = 0;                // joints and weights: the first influence slot
  std::optional<int64_t> sentinel;   // joints: the value of slots whose weight is 0
};

struct PaletteBlock {
  uint32_t binding = 0;
  BlockDescriptor descriptor = BlockDescriptor::Uniform;
  uint32_t offset = 0;
  PaletteLayout layout = PaletteLayout::Mat4;
  uint32_t joints = 0;  // the palette's capacity
};

struct IdentityMatrix {
  uint32_t binding = 0;
  uint32_t offset = 0;
  IdentityFormat format = IdentityFormat::Mat4;
};

struct VertexOutput {
  bool builtin_position = false;  // gl_Position (BuiltIn Position)
  uint32_t location = 0;          // otherwise
};

struct VertexInterface {
  std::string path;
  std::string name;
  std::string entry_point = "main";
  SkinningMethod method = SkinningMethod::Lbs;
  uint32_t influences = 4;
  std::vector<VertexBufferBinding> vertex_buffers;
  std::vector<VertexInput> inputs;
  PaletteBlock palette;
  std::vector<IdentityMatrix> identities;
  VertexOutput position;
  std::optional<VertexOutput> normal;
  std::optional<VertexOutput> tangent;

  const VertexInput* input_of(VertexAttribute attribute) const;  // the first such input, or nullptr
};

VertexInterface parse_vertex_interface(const std::string& path);

const char* vertex_attribute_name(VertexAttribute attribute);
const char* vertex_format_name(VertexFormat format);
uint32_t vertex_format_components(VertexFormat format);
uint32_t vertex_format_bytes(VertexFormat format);
uint32_t palette_entry_bytes(PaletteLayout layout);

}  // namespace skinref::gpu
