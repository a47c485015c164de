#include "gpu/user_vertex_shader.h"

#include "core/input_error.h"
#include "gpu/shader_compile.h"
#include "gpu/spirv_xfb.h"

#include <spirv_cross/spirv_cross.hpp>

#include <algorithm>
#include <filesystem>

namespace skinref::gpu {
namespace {

namespace fs = std::filesystem;
using BaseType = spirv_cross::SPIRType::BaseType;

struct ReflectedInput {
  uint32_t location = 0;
  BaseType base = BaseType::Float;
  uint32_t components = 0;
  std::string name;
};

struct ReflectedOutput {
  uint32_t location = 0;
  BaseType base = BaseType::Float;
  uint32_t components = 0;
};

struct VertexReflection {
  std::vector<ReflectedInput> inputs;
  std::vector<ReflectedBlock> blocks;
  std::vector<ReflectedOutput> outputs;
  bool writes_position = false;
  size_t push_constant_bytes = 0;  // the push-constant block's declared size; 0 when the shader has none
  std::vector<uint32_t> specialization_ids;
  std::vector<std::string> other_resources;
};

// The interface's specialization constants set in the reflection, so that sizes follow them (an array of
// MAX_BONES); each must be one of the shader's.
void apply_specialization(spirv_cross::Compiler& compiler, const VertexInterface& interface, VertexReflection& result) {
  const spirv_cross::SmallVector<spirv_cross::SpecializationConstant> constants = compiler.get_specialization_constants();
  for (const spirv_cross::SpecializationConstant& c : constants) result.specialization_ids.push_back(c.constant_id);
  for (size_t i = 0; i < interface.specialization.size(); ++i) {
    const SpecializationConstant& given = interface.specialization[i];
    const auto found = std::find_if(constants.begin(), constants.end(),
                                    [&](const spirv_cross::SpecializationConstant& c) { return c.constant_id == given.id; });
    if (found == constants.end())
      throw InputError(interface.path, "/specialization_constants/" + std::to_string(i) + "/id",
                       "a constant_id of the shader, got " + std::to_string(given.id));
    spirv_cross::SPIRConstant& constant = compiler.get_constant(found->id);
    switch (given.type) {
      case ConstantType::Bool:
      case ConstantType::Uint: constant.m.c[0].r[0].u32 = uint32_t(given.value); break;
      case ConstantType::Int: constant.m.c[0].r[0].i32 = int32_t(given.value); break;
      case ConstantType::Float: constant.m.c[0].r[0].f32 = float(given.value); break;
    }
  }
}

// Texel buffers (GLSL samplerBuffer and imageBuffer, HLSL Buffer<float4> and RWBuffer<float4>) and sampled 2D
// images (sampler2D) as blocks of unbounded size; any other image is a resource skinref does not fill.
void reflect_texels(const spirv_cross::Compiler& compiler, const spirv_cross::ShaderResources& resources,
                    VertexReflection& result) {
  const auto add = [&](const spirv_cross::Resource& r, BlockDescriptor descriptor) {
    ReflectedBlock block;
    block.set = compiler.get_decoration(r.id, spv::DecorationDescriptorSet);
    block.binding = compiler.get_decoration(r.id, spv::DecorationBinding);
    block.descriptor = descriptor;
    block.runtime_array = true;
    block.name = r.name;
    result.blocks.push_back(block);
  };
  for (const spirv_cross::Resource& r : resources.sampled_images) {
    const spv::Dim dim = compiler.get_type(r.type_id).image.dim;
    if (dim == spv::DimBuffer) add(r, BlockDescriptor::UniformTexelBuffer);
    else if (dim == spv::Dim2D) add(r, BlockDescriptor::SampledImage);
    else result.other_resources.push_back(r.name);
  }
  for (const spirv_cross::Resource& r : resources.separate_images) {
    if (compiler.get_type(r.type_id).image.dim == spv::DimBuffer) add(r, BlockDescriptor::UniformTexelBuffer);
    else result.other_resources.push_back(r.name);
  }
  for (const spirv_cross::Resource& r : resources.storage_images) {
    if (compiler.get_type(r.type_id).image.dim == spv::DimBuffer) add(r, BlockDescriptor::StorageTexelBuffer);
    else result.other_resources.push_back(r.name);
  }
}

VertexReflection reflect(const std::vector<uint32_t>& spirv, const VertexInterface& interface, const std::string& path) {
  VertexReflection result;
  spirv_cross::Compiler compiler(spirv);
  bool found = false;
  for (const spirv_cross::EntryPoint& entry : compiler.get_entry_points_and_stages())
    found |= entry.execution_model == spv::ExecutionModelVertex && entry.name == interface.entry_point;
  if (!found) throw InputError(path, "", "a vertex shader with the entry point \"" + interface.entry_point + "\"");
  compiler.set_entry_point(interface.entry_point, spv::ExecutionModelVertex);
  apply_specialization(compiler, interface, result);
  const spirv_cross::ShaderResources resources = compiler.get_shader_resources();
  for (const spirv_cross::Resource& r : resources.stage_inputs) {
    const spirv_cross::SPIRType& type = compiler.get_type(r.base_type_id);
    result.inputs.push_back({compiler.get_decoration(r.id, spv::DecorationLocation), type.basetype, type.vecsize, r.name});
  }
  for (const spirv_cross::Resource& r : resources.stage_outputs) {
    const spirv_cross::SPIRType& type = compiler.get_type(r.base_type_id);
    result.outputs.push_back({compiler.get_decoration(r.id, spv::DecorationLocation), type.basetype, type.vecsize});
  }
  for (const spirv_cross::BuiltInResource& b : resources.builtin_outputs)
    result.writes_position |= b.builtin == spv::BuiltInPosition;
  auto blocks = [&](const spirv_cross::SmallVector<spirv_cross::Resource>& list, BlockDescriptor descriptor) {
    for (const spirv_cross::Resource& r : list) {
      const spirv_cross::SPIRType& type = compiler.get_type(r.base_type_id);
      ReflectedBlock block;
      block.set = compiler.get_decoration(r.id, spv::DecorationDescriptorSet);
      block.binding = compiler.get_decoration(r.id, spv::DecorationBinding);
      block.descriptor = descriptor;
      block.name = r.name;
      const spirv_cross::SPIRType& last = compiler.get_type(type.member_types.back());
      block.runtime_array = !last.array.empty() && last.array.back() == 0;
      block.bytes = block.runtime_array ? compiler.get_declared_struct_size_runtime_array(type, 0)
                                        : compiler.get_declared_struct_size(type);
      result.blocks.push_back(block);
    }
  };
  blocks(resources.uniform_buffers, BlockDescriptor::Uniform);
  blocks(resources.storage_buffers, BlockDescriptor::Storage);
  reflect_texels(compiler, resources, result);
  for (const spirv_cross::Resource& r : resources.push_constant_buffers)
    result.push_constant_bytes = compiler.get_declared_struct_size(compiler.get_type(r.base_type_id));
  for (const spirv_cross::Resource& r : resources.separate_samplers) result.other_resources.push_back(r.name);
  return result;
}

BaseType base_of(VertexFormat format) {
  switch (format.type) {
    case ComponentType::Sfloat:
    case ComponentType::Unorm:
    case ComponentType::Snorm: return BaseType::Float;
    case ComponentType::Sint: return BaseType::Int;
    case ComponentType::Uint: return BaseType::UInt;
  }
  return BaseType::Unknown;
}

const char* base_name(BaseType base) {
  return base == BaseType::Float ? "float" : base == BaseType::Int ? "int" : base == BaseType::UInt ? "uint" : "other";
}

void check_inputs(const VertexInterface& interface, const VertexReflection& shader) {
  for (const ReflectedInput& input : shader.inputs) {
    const auto described = std::find_if(interface.inputs.begin(), interface.inputs.end(),
                                        [&](const VertexInput& i) { return i.location == input.location; });
    if (described == interface.inputs.end())
      throw InputError(interface.path, "/inputs", "the shader's input '" + input.name + "' at location " +
                                                      std::to_string(input.location) + " described");
    const size_t index = size_t(described - interface.inputs.begin());
    // Vulkan fills the components a format lacks (0, 0, 1 for y, z, w), so only the numeric type must agree.
    if (base_of(described->format) != input.base)
      throw InputError(interface.path, "/inputs/" + std::to_string(index) + "/format",
                       std::string("a format for the shader's ") + base_name(input.base) +
                           std::to_string(input.components) + " '" + input.name + "' (" +
                           (input.base == BaseType::Float ? "SFLOAT, UNORM or SNORM" : input.base == BaseType::Int ? "SINT" : "UINT") +
                           "), got " + vertex_format_name(described->format));
  }
  for (size_t i = 0; i < interface.inputs.size(); ++i)
    if (std::none_of(shader.inputs.begin(), shader.inputs.end(),
                     [&](const ReflectedInput& r) { return r.location == interface.inputs[i].location; }))
      throw InputError(interface.path, "/inputs/" + std::to_string(i) + "/location",
                       "a location the shader reads, got " + std::to_string(interface.inputs[i].location));
}

// The block at `set`, `binding` holds `end` bytes; a runtime array's block may hold any.
const ReflectedBlock& block_holding(const VertexInterface& interface, const VertexReflection& shader, uint32_t set,
                                    uint32_t binding, size_t end, const std::string& at) {
  for (const ReflectedBlock& block : shader.blocks)
    if (block.set == set && block.binding == binding) {
      if (is_texel_descriptor(block.descriptor) && at != "/palette")
        throw InputError(interface.path, at, "a uniform or storage block at set " + std::to_string(set) + ", binding " +
                                                 std::to_string(binding) + "; the shader's '" + block.name + "' is a " +
                                                 descriptor_name(block.descriptor));
      if (!block.runtime_array && block.bytes < end)
        throw InputError(interface.path, at, "bytes within the shader's block '" + block.name + "' (" +
                                                 std::to_string(block.bytes) + " bytes), up to " + std::to_string(end));
      return block;
    }
  throw InputError(interface.path, at, "a uniform or storage block of the shader at set " + std::to_string(set) +
                                           ", binding " + std::to_string(binding));
}

// The push constants the interface declares cover the shader's block, and the shader has one if they are declared.
void check_push_constants(const VertexInterface& interface, const VertexReflection& shader) {
  if (shader.push_constant_bytes > 0 && interface.push_constant_bytes < shader.push_constant_bytes)
    throw InputError(interface.path, "/push_constants",
                     "\"push_constants\": {\"bytes\": N} with N at least the shader's " +
                         std::to_string(shader.push_constant_bytes) + " bytes of push constants" +
                         (interface.push_constant_bytes ? ", got " + std::to_string(interface.push_constant_bytes) : ""));
  if (shader.push_constant_bytes == 0 && interface.push_constant_bytes > 0)
    throw InputError(interface.path, "/push_constants", "a shader with push constants; it has none");
}

void check_blocks(const VertexInterface& interface, const VertexReflection& shader) {
  if (!shader.other_resources.empty())
    throw InputError(interface.path, "", "a shader whose resources are uniform and storage blocks, texel buffers, sampled 2D images and push constants; it also has '" +
                                             shader.other_resources.front() + "'");
  const PaletteBlock& palette = interface.palette;
  check_push_constants(interface, shader);
  const ReflectedBlock& block =
      block_holding(interface, shader, palette.set, palette.binding,
                    palette.offset + size_t(palette.joints) * palette_entry_bytes(palette.layout), "/palette");
  if (palette.joint_offset && !palette.joint_offset->push_constant)
    block_holding(interface, shader, palette.joint_offset->set, palette.joint_offset->binding,
                  palette.joint_offset->offset + 4, "/palette/joint_offset");
  if (block.descriptor != palette.descriptor)
    throw InputError(interface.path, "/palette/descriptor",
                     std::string("the shader's kind of block at binding ") + std::to_string(palette.binding) + ": " +
                         descriptor_name(block.descriptor));
  for (size_t m = 0; m < interface.identities.size(); ++m) {
    const IdentityMatrix& matrix = interface.identities[m];
    if (matrix.push_constant) continue;  // within the push constants: parse_vertex_interface() checked
    block_holding(interface, shader, matrix.set, matrix.binding,
                  matrix.offset + (matrix.format == IdentityFormat::Mat4 ? 64 : 48), "/identity_matrices/" + std::to_string(m));
  }
  for (const ReflectedBlock& b : shader.blocks) {
    const auto at = [&](uint32_t set, uint32_t binding) { return b.set == set && b.binding == binding; };
    const std::optional<JointOffset>& offset = palette.joint_offset;
    const bool described = at(palette.set, palette.binding) ||
                           (offset && !offset->push_constant && at(offset->set, offset->binding)) ||
                           std::any_of(interface.identities.begin(), interface.identities.end(), [&](const IdentityMatrix& m) {
                             return !m.push_constant && at(m.set, m.binding);
                           });
    if (!described)
      throw InputError(interface.path, "", "the shader's block '" + b.name + "' (set " + std::to_string(b.set) +
                                               ", binding " + std::to_string(b.binding) + ") described");
  }
}

void check_outputs(const VertexInterface& interface, const VertexReflection& shader) {
  auto check = [&](const VertexOutput& output, const char* key, uint32_t least_components = 3) {
    if (output.builtin_position) {
      if (!shader.writes_position) throw InputError(interface.path, std::string("/outputs/") + key, "a shader writing gl_Position");
      return;
    }
    const auto found = std::find_if(shader.outputs.begin(), shader.outputs.end(),
                                    [&](const ReflectedOutput& o) { return o.location == output.location; });
    if (found == shader.outputs.end() || found->base != BaseType::Float || found->components < least_components)
      throw InputError(interface.path, std::string("/outputs/") + key,
                       std::string(least_components == 4 ? "an output of 4 floats" : "an output of 3 or 4 floats") +
                           " at location " + std::to_string(output.location));
  };
  check(interface.position, "position");
  if (interface.normal) check(*interface.normal, "normal");
  if (interface.tangent) check(*interface.tangent, "tangent", 4);  // xyz and the bitangent's sign
}

}  // namespace

UserVertexShader load_user_vertex_shader(const std::string& shader_path, const std::string& interface_path,
                                         const std::vector<std::string>& include_dirs) {
  UserVertexShader shader;
  shader.path = shader_path;
  shader.interface = parse_vertex_interface(interface_path);
  if (!fs::is_regular_file(shader_path)) throw InputError(shader_path, "", "a readable shader file");
  const std::string extension = fs::path(shader_path).extension().string();
  if (extension == ".vert" || extension == ".glsl")
    shader.spirv = compile_with_glslc(shader_path, "vertex", false, shader.interface.entry_point, include_dirs);
  else if (extension == ".hlsl")
    shader.spirv = compile_with_glslc(shader_path, "vertex", true, shader.interface.entry_point, include_dirs);
  else
    shader.spirv = read_spirv(shader_path, shader_path);
  VertexReflection reflection;
  try {
    reflection = reflect(shader.spirv, shader.interface, shader_path);
  } catch (const spirv_cross::CompilerError& error) {
    throw InputError(shader_path, "", std::string("SPIR-V that SPIRV-Cross reflects: ") + error.what());
  }
  check_inputs(shader.interface, reflection);
  check_blocks(shader.interface, reflection);
  check_outputs(shader.interface, reflection);
  shader.blocks = reflection.blocks;
  std::vector<XfbCapture> captures{{shader.interface.position.builtin_position, shader.interface.position.location, 0}};
  if (shader.interface.normal) captures.push_back({false, shader.interface.normal->location, 16});
  if (shader.interface.tangent) captures.push_back({false, shader.interface.tangent->location, 32});
  shader.capture_stride = capture_stride(shader.interface);
  shader.captured = add_transform_feedback(shader.spirv, shader.interface.entry_point, captures, shader.capture_stride,
                                           shader_path);
  return shader;
}

}  // namespace skinref::gpu
