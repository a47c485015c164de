#include "gpu/interface_draft.h"

#include "core/input_error.h"
#include "skin/method.h"

#include <spirv_cross/spirv_cross.hpp>

#include <algorithm>
#include <cctype>
#include <map>

namespace skinref::gpu {
namespace {

using Json = nlohmann::ordered_json;
using BaseType = spirv_cross::SPIRType::BaseType;

// The joints a palette of unknown length is drafted with.
constexpr uint32_t kDraftJoints = 256;
constexpr uint32_t kDraftImageSide = 64;

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return text;
}

bool has(const std::string& name, std::initializer_list<const char*> parts) {
  return std::any_of(parts.begin(), parts.end(), [&](const char* p) { return name.find(p) != std::string::npos; });
}

// The attribute an input's name suggests, "" for none.
std::string attribute_from_name(const std::string& original) {
  const std::string name = lower(original);
  if (has(name, {"weight"})) return "weights";
  if (has(name, {"joint", "bone", "indic", "index"})) return "joints";
  if (has(name, {"norm", "tangentz"})) return "normal";  // Unreal names the normal TangentZ
  if (has(name, {"tang"})) return "tangent";
  if (has(name, {"pos"})) return "position";
  if (has(name, {"uv", "texcoord", "tex"})) {
    const char last = name.empty() ? '0' : name.back();
    return std::string("texcoord:") + (std::isdigit(static_cast<unsigned char>(last)) && last != '0' ? "1" : "0");
  }
  if (has(name, {"col"})) return "color:0";
  return "";
}

std::string format_of(BaseType base, uint32_t components) {
  static const char* const kChannels[] = {"R32", "R32G32", "R32G32B32", "R32G32B32A32"};
  const char* type = base == BaseType::Int ? "_SINT" : base == BaseType::UInt ? "_UINT" : "_SFLOAT";
  return std::string(kChannels[std::clamp<uint32_t>(components, 1, 4) - 1]) + type;
}

struct DraftInput {
  uint32_t location = 0;
  BaseType base = BaseType::Float;
  uint32_t components = 1;
  std::string name;
};

Json draft_inputs(const spirv_cross::Compiler& compiler, const spirv_cross::ShaderResources& resources,
                  std::vector<std::string>& guesses, uint32_t& influences, uint32_t& stride) {
  std::vector<DraftInput> inputs;
  for (const spirv_cross::Resource& r : resources.stage_inputs) {
    const spirv_cross::SPIRType& type = compiler.get_type(r.base_type_id);
    inputs.push_back({compiler.get_decoration(r.id, spv::DecorationLocation), type.basetype, type.vecsize, r.name});
  }
  std::sort(inputs.begin(), inputs.end(), [](const DraftInput& a, const DraftInput& b) { return a.location < b.location; });
  Json list = Json::array();
  uint32_t offset = 0;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const DraftInput& in = inputs[i];
    std::string attribute = attribute_from_name(in.name);
    const std::string at = "/inputs/" + std::to_string(i) + "/attribute: ";
    if (attribute.empty()) {
      attribute = "zero";
      guesses.push_back(at + "zero, for '" + in.name + "' (no name skinref knows: map it to an attribute)");
    } else {
      guesses.push_back(at + attribute + ", from the name '" + in.name + "'");
    }
    if (attribute == "joints") influences = in.components;
    list.push_back({{"location", in.location}, {"binding", 0}, {"offset", offset}, {"attribute", attribute},
                    {"format", format_of(in.base, in.components)}});
    offset += 4 * std::clamp<uint32_t>(in.components, 1, 4);
  }
  stride = std::max(offset, 4u);
  return list;
}

// A member of a block: its place and what kind of value it is.
struct Member {
  uint32_t set = 0, binding = 0;
  bool push_constant = false;
  std::string descriptor;  // "uniform" or "storage"
  uint32_t offset = 0;
  std::string name;
  bool matrix4 = false, matrix3 = false, row_major = false, integer_scalar = false;
  uint32_t array = 0;  // 0: not an array; UINT32_MAX: a runtime array
};

std::vector<Member> block_members(const spirv_cross::Compiler& compiler, const spirv_cross::Resource& r,
                                  const std::string& descriptor, bool push_constant) {
  std::vector<Member> members;
  const spirv_cross::SPIRType& block = compiler.get_type(r.base_type_id);
  for (uint32_t i = 0; i < block.member_types.size(); ++i) {
    const spirv_cross::SPIRType& type = compiler.get_type(block.member_types[i]);
    Member m;
    m.set = compiler.get_decoration(r.id, spv::DecorationDescriptorSet);
    m.binding = compiler.get_decoration(r.id, spv::DecorationBinding);
    m.push_constant = push_constant;
    m.descriptor = descriptor;
    m.offset = compiler.type_struct_member_offset(block, i);
    m.name = compiler.get_member_name(r.base_type_id, i);
    const bool floats = type.basetype == BaseType::Float;
    m.matrix4 = floats && type.columns == 4 && type.vecsize == 4;
    m.matrix3 = floats && type.columns == 3 && type.vecsize == 3;
    m.row_major = compiler.has_member_decoration(r.base_type_id, i, spv::DecorationRowMajor);
    m.integer_scalar = (type.basetype == BaseType::Int || type.basetype == BaseType::UInt) && type.vecsize == 1 &&
                       type.columns == 1 && type.array.empty();
    if (!type.array.empty()) {
      // A size given by a specialization constant is its default value.
      const uint32_t size = type.array_size_literal.back() ? type.array.back()
                                                           : compiler.get_constant(type.array.back()).scalar();
      m.array = type.array_size_literal.back() && size == 0 ? UINT32_MAX : size;
    }
    members.push_back(m);
  }
  return members;
}

Json place(const Member& m) {
  if (m.push_constant) return {{"push_constant", true}};
  return {{"set", m.set}, {"binding", m.binding}};
}

}  // namespace

namespace {

// The first texel buffer or sampled 2D image as the palette, of a layout and size SPIR-V does not say.
void draft_texel_palette(const spirv_cross::Compiler& compiler, const spirv_cross::ShaderResources& resources,
                         Json& draft, std::vector<std::string>& guesses) {
  const auto use = [&](const spirv_cross::Resource& r, const char* descriptor) {
    draft["palette"] = {{"set", compiler.get_decoration(r.id, spv::DecorationDescriptorSet)},
                        {"binding", compiler.get_decoration(r.id, spv::DecorationBinding)},
                        {"descriptor", descriptor}, {"offset", 0}, {"layout", "mat4"}, {"joints", kDraftJoints}};
    if (std::string(descriptor) == "sampled-image") {
      draft["palette"]["width"] = kDraftImageSide;
      draft["palette"]["height"] = kDraftImageSide;
    }
    guesses.push_back(std::string("/palette: '") + r.name + "', a " + descriptor +
                      ": its layout (texels per joint), joints" +
                      (std::string(descriptor) == "sampled-image" ? ", width and height" : "") + " drafted");
  };
  for (const spirv_cross::Resource& r : resources.sampled_images) {
    const spv::Dim dim = compiler.get_type(r.type_id).image.dim;
    if (dim == spv::DimBuffer) return use(r, "uniform-texel-buffer");
    if (dim == spv::Dim2D) return use(r, "sampled-image");
  }
  for (const spirv_cross::Resource& r : resources.separate_images)
    if (compiler.get_type(r.type_id).image.dim == spv::DimBuffer) return use(r, "uniform-texel-buffer");
  for (const spirv_cross::Resource& r : resources.storage_images)
    if (compiler.get_type(r.type_id).image.dim == spv::DimBuffer) return use(r, "storage-texel-buffer");
  guesses.push_back("/palette: none found (no array of mat4 in a block, no texel buffer or image): describe it");
}

}  // namespace

namespace {

// The palette, the identity matrices and the joint offset, from the blocks' members; texel resources when no block
// holds an array of matrices.
void draft_blocks(const spirv_cross::Compiler& compiler, const spirv_cross::ShaderResources& resources, Json& draft,
                  std::vector<std::string>& guesses) {
  std::vector<Member> members;
  for (const spirv_cross::Resource& r : resources.uniform_buffers) {
    const std::vector<Member> m = block_members(compiler, r, "uniform", false);
    members.insert(members.end(), m.begin(), m.end());
  }
  for (const spirv_cross::Resource& r : resources.storage_buffers) {
    const std::vector<Member> m = block_members(compiler, r, "storage", false);
    members.insert(members.end(), m.begin(), m.end());
  }
  for (const spirv_cross::Resource& r : resources.push_constant_buffers) {
    const std::vector<Member> m = block_members(compiler, r, "", true);
    members.insert(members.end(), m.begin(), m.end());
  }
  const Member* palette = nullptr;
  for (const Member& m : members)
    if (m.matrix4 && m.array != 0 && !m.push_constant && (!palette || m.array > palette->array)) palette = &m;
  if (palette) {
    const uint32_t joints = palette->array == UINT32_MAX ? kDraftJoints : palette->array;
    draft["palette"] = {{"set", palette->set}, {"binding", palette->binding}, {"descriptor", palette->descriptor},
                        {"offset", palette->offset}, {"layout", palette->row_major ? "mat4-row-major" : "mat4"},
                        {"joints", joints}};
    guesses.push_back("/palette: the array '" + palette->name + "'" +
                      (palette->array == UINT32_MAX ? ", a runtime array: 256 joints drafted" : ""));
  } else {
    draft_texel_palette(compiler, resources, draft, guesses);
  }
  Json identities = Json::array();
  for (const Member& m : members) {
    if ((m.matrix4 || m.matrix3) && m.array == 0) {
      Json entry = place(m);
      entry["offset"] = m.offset;
      entry["format"] = m.matrix4 ? "mat4" : "mat3";
      identities.push_back(entry);
      guesses.push_back("/identity_matrices/" + std::to_string(identities.size() - 1) + ": '" + m.name +
                        "' set to the identity");
    }
    const std::string name = lower(m.name);
    if (m.integer_scalar && has(name, {"offset", "first", "base"}) && draft.contains("palette")) {
      Json offset = m.push_constant ? Json{{"value", 0}, {"push_constant", m.offset}}
                                    : Json{{"value", 0}, {"set", m.set}, {"binding", m.binding}, {"offset", m.offset}};
      draft["palette"]["joint_offset"] = offset;
      guesses.push_back("/palette/joint_offset: '" + m.name + "', from its name");
    }
  }
  draft["identity_matrices"] = identities;
}

}  // namespace

namespace {

Json draft_specialization(spirv_cross::Compiler& compiler) {
  Json list = Json::array();
  for (const spirv_cross::SpecializationConstant& c : compiler.get_specialization_constants()) {
    const spirv_cross::SPIRConstant& constant = compiler.get_constant(c.id);
    const BaseType base = compiler.get_type(constant.constant_type).basetype;
    Json entry = {{"id", c.constant_id}};
    switch (base) {
      case BaseType::Boolean: entry["type"] = "bool"; entry["value"] = constant.scalar() != 0 ? 1 : 0; break;
      case BaseType::Int: entry["type"] = "int"; entry["value"] = constant.scalar_i32(); break;
      case BaseType::Float: entry["type"] = "float"; entry["value"] = constant.scalar_f32(); break;
      default: entry["type"] = "uint"; entry["value"] = constant.scalar(); break;
    }
    list.push_back(entry);
  }
  return list;
}

// The drafted palette holds matrices (draft_blocks): the draft names the first method that blends them.
const char* matrix_method_name() {
  for (const SkinningMethod method : kSkinningMethods) {
    const SkinningMethodDescriptor d = skinning_method_descriptor(method);
    switch (d.palette) {
      case PaletteBlend::Matrices: return d.name;
      case PaletteBlend::DualQuaternions: break;
    }
  }
  return skinning_method_name(kDefaultSkinningMethod);
}

Json draft_outputs(const spirv_cross::Compiler& compiler, const spirv_cross::ShaderResources& resources) {
  Json outputs = {{"position", "gl_Position"}};
  for (const spirv_cross::Resource& r : resources.stage_outputs) {
    const spirv_cross::SPIRType& type = compiler.get_type(r.base_type_id);
    const std::string name = lower(r.name);
    const uint32_t location = compiler.get_decoration(r.id, spv::DecorationLocation);
    if (type.basetype != BaseType::Float) continue;
    if (!outputs.contains("normal") && has(name, {"norm"}) && type.vecsize >= 3) outputs["normal"] = {{"location", location}};
    if (!outputs.contains("tangent") && has(name, {"tang"}) && type.vecsize == 4) outputs["tangent"] = {{"location", location}};
  }
  return outputs;
}

}  // namespace

Json draft_vertex_interface(const std::vector<uint32_t>& spirv, const std::string& entry_point,
                            const std::string& shader_name, std::vector<std::string>& guesses) {
  try {
    spirv_cross::Compiler compiler(spirv);
    bool found = false;
    for (const spirv_cross::EntryPoint& entry : compiler.get_entry_points_and_stages())
      found |= entry.execution_model == spv::ExecutionModelVertex && entry.name == entry_point;
    if (!found) throw InputError(shader_name, "", "a vertex shader with the entry point \"" + entry_point + "\"");
    compiler.set_entry_point(entry_point, spv::ExecutionModelVertex);
    const spirv_cross::ShaderResources resources = compiler.get_shader_resources();
    uint32_t influences = 4;
    Json draft = {{"format", "skinref-shader-interface"}, {"version", 1}, {"stage", "vertex"},
                  {"name", "draft of " + shader_name}};
    if (entry_point != "main") draft["entry_point"] = entry_point;
    uint32_t stride = 4;
    Json inputs = draft_inputs(compiler, resources, guesses, influences, stride);
    draft["method"] = matrix_method_name();
    draft["influences"] = influences;
    draft["vertex_buffers"] = Json::array({Json{{"binding", 0}, {"stride", stride}}});
    draft["inputs"] = inputs;
    draft_blocks(compiler, resources, draft, guesses);
    for (const spirv_cross::Resource& r : resources.push_constant_buffers) {
      const size_t bytes = compiler.get_declared_struct_size(compiler.get_type(r.base_type_id));
      draft["push_constants"] = {{"bytes", (bytes + 3) / 4 * 4}};
    }
    const Json constants = draft_specialization(compiler);
    if (!constants.empty()) draft["specialization_constants"] = constants;
    draft["outputs"] = draft_outputs(compiler, resources);
    return draft;
  } catch (const spirv_cross::CompilerError& error) {
    throw InputError(shader_name, "", std::string("SPIR-V that SPIRV-Cross reflects: ") + error.what());
  }
}

}  // namespace skinref::gpu
