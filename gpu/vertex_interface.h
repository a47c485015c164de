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
// - "inputs": [{"location", "binding", "offset", "attribute", "format", "first", "sentinel", "value"}]: each
//   vertex input of the shader, every one of them. `attribute` is what skinref feeds it:
//   - position, normal, tangent (R32G32B32_SFLOAT or R32G32B32A32_SFLOAT; a tangent R32G32B32A32_SFLOAT), the
//     bind attributes after morph targets;
//   - joints (a UINT or SINT format of 1 to 4 components) and weights (SFLOAT, UNORM): the influences from slot
//     `first` (default 0), as many as the format has components; together they cover slots 0 to `influences` -
//     1 once each. A joints input's `sentinel` (an integer) is written in every slot whose weight is 0 ("no
//     joint": -1 in the tutorials); without it such slots hold joint 0;
//   - texcoord:N, color:N or an application-specific _NAME: the primitive's TEXCOORD_N, COLOR_N or _NAME
//     (Primitive::texcoords0 and other_attributes), in any format; where the primitive has none, (0, 0, 0, 1),
//     and white (1, 1, 1, 1) for a colour;
//   - zero, or constant with "value": [1 to 4 numbers] (the rest 0, 0, 0, 1): the same for every vertex.
//   `format` is any vertex format of gpu/vertex_format.h whose numeric type is the shader input's (SFLOAT,
//   UNORM and SNORM for float inputs, UINT for uint, SINT for int); Vulkan fills the components a format lacks.
// - "palette": {"set", "binding", "descriptor": "uniform"|"storage", "offset", "layout", "joints",
//   "joint_offset"}: the skinning matrices, `joints` of them from byte `offset` of the block at `set` (default 0),
//   `binding`. With "joint_offset": {"value": K, "push_constant": OFFSET} or {"value": K, "set", "binding",
//   "offset"}, the skin's palette starts at entry K (the entries before it NaN, as a batch of other skins would
//   be to this draw) and K is written as a uint32 where it says. With "descriptor": "uniform-texel-buffer",
//   "storage-texel-buffer" or "sampled-image", the same bytes are RGBA32F texels (an entry's 64, 48 or 32 bytes
//   are 4, 3 or 2 texels; `offset` a multiple of 16 bytes, one texel); an image also has "width" and "height" in
//   texels, the texels laid out row by row from (0, 0), the ones after the palette NaN. Layout mat4 (column-major,
//   64 bytes each, std140's mat4 array), mat4-row-major, mat3x4-rows (the top three rows as vec4s, 48
//   bytes each), or dual-quaternion (the rigid part of each matrix as a unit dual quaternion, real x y z w then
//   dual x y z w, 32 bytes each: skin/dqs.h's split).
// - "identity_matrices": [{"set", "binding", "offset", "format": "mat4"|"mat3"} or {"push_constant": true,
//   "offset", "format"}]: the model, view and projection (or
//   their products, or a normal matrix: mat3 as std140 lays it out, three vec4 columns) that skinref sets to
//   the identity, so that the outputs are the skinned values in world space. Every block byte not described
//   is zero.
// - "push_constants": {"bytes": N}: the shader's push-constant block, N bytes (at least its declared size); skinref
//   pushes zeros there but for the identity matrices and the joint offset placed in it.
// - "specialization_constants": [{"id", "type": "bool"|"int"|"uint"|"float", "value"}]: given to the pipeline
//   (MAX_BONES, ...); block sizes are reflected with these values.
// - "outputs": {"position": "gl_Position" | {"location"}, "normal": {"location"} (optional), "tangent":
//   {"location"} (optional)}: the skinned position is read as xyz (w ignored: it is the weights' sum, 1 for
//   glTF's weights); the normal as xyz, normalized by skinref as an engine's fragment shader does; the tangent,
//   an output of 4 floats, as xyz normalized likewise and w (the bitangent's sign) as written.
// - "method": lbs with a matrix layout, or dqs with the dual-quaternion layout.
#pragma once

#include "gpu/vertex_format.h"
#include "skin/method.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace skinref::gpu {

enum class VertexAttribute { Position, Normal, Tangent, Joints, Weights, Texcoord, Color, Custom, Zero, Constant };

enum class PaletteLayout { Mat4, Mat4RowMajor, Mat3x4Rows, DualQuaternion };
// How the shader reads a block of skinref's values: a uniform or storage block, a uniform or storage texel buffer
// of RGBA32F texels (samplerBuffer or Buffer<float4>, imageBuffer), or a sampled 2D image of RGBA32F texels
// (sampler2D, read with texelFetch or with normalized coordinates, nearest).
enum class BlockDescriptor { Uniform, Storage, UniformTexelBuffer, StorageTexelBuffer, SampledImage };
const char* descriptor_name(BlockDescriptor descriptor);
// A texel buffer or an image: its bytes are texels, not a block with a declared size.
inline bool is_texel_descriptor(BlockDescriptor d) { return d != BlockDescriptor::Uniform && d != BlockDescriptor::Storage; }
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
  VertexFormat format;               // R32G32B32_SFLOAT
  uint32_t first = 0;                // joints and weights: the first influence slot
  std::optional<int64_t> sentinel;   // joints: the value of slots whose weight is 0
  uint32_t set = 0;                  // texcoord:N and color:N: N
  std::string custom;                // _NAME
  std::array<double, 4> value{0.0, 0.0, 0.0, 1.0};  // constant
};

// "position", ..., "texcoord:1", "color:0", "_NAME", "zero", "constant": the input's "attribute" as written.
std::string vertex_input_source(const VertexInput& input);

// Where a per-draw joint offset is written (engines that keep many skins in one buffer index it from there):
// a uint32 in the push constants, or in a block.
struct JointOffset {
  uint32_t value = 0;          // the palette's first entry in the block
  bool push_constant = false;  // at `offset` of the push constants, else of the block at `set`, `binding`
  uint32_t set = 0, binding = 0, offset = 0;
};

struct PaletteBlock {
  uint32_t set = 0;
  uint32_t binding = 0;
  BlockDescriptor descriptor = BlockDescriptor::Uniform;
  uint32_t offset = 0;
  PaletteLayout layout = PaletteLayout::Mat4;
  uint32_t joints = 0;  // the palette's capacity, entries from 0 (the joint offset's included)
  std::optional<JointOffset> joint_offset;
  uint32_t width = 0, height = 0;  // a sampled image's size in texels (0: none)
};

struct IdentityMatrix {
  bool push_constant = false;  // in the push constants, else in the block at `set`, `binding`
  uint32_t set = 0;
  uint32_t binding = 0;
  uint32_t offset = 0;
  IdentityFormat format = IdentityFormat::Mat4;
};

enum class ConstantType { Bool, Int, Uint, Float };

// A specialization constant the pipeline is given (its constant_id in the shader, its value as 4 bytes).
struct SpecializationConstant {
  uint32_t id = 0;
  ConstantType type = ConstantType::Uint;
  double value = 0.0;
};

struct VertexOutput {
  bool builtin_position = false;  // gl_Position (BuiltIn Position)
  uint32_t location = 0;          // otherwise
};

struct VertexInterface {
  std::string path;
  std::string name;
  std::string entry_point = "main";
  SkinningMethod method = kDefaultSkinningMethod;
  uint32_t influences = 4;
  std::vector<VertexBufferBinding> vertex_buffers;
  std::vector<VertexInput> inputs;
  PaletteBlock palette;
  std::vector<IdentityMatrix> identities;
  uint32_t push_constant_bytes = 0;  // 0: the shader has no push constants
  std::vector<SpecializationConstant> specialization;
  VertexOutput position;
  std::optional<VertexOutput> normal;
  std::optional<VertexOutput> tangent;

  const VertexInput* input_of(VertexAttribute attribute) const;  // the first such input, or nullptr
};

VertexInterface parse_vertex_interface(const std::string& path);

const char* vertex_attribute_name(VertexAttribute attribute);
uint32_t palette_entry_bytes(PaletteLayout layout);

}  // namespace skinref::gpu
