#include "gpu/user_shader.h"

#include "core/input_error.h"
#include "gpu/shader_compile.h"

#include <spirv_cross/spirv_cross.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace skinref::gpu {
namespace {

namespace fs = std::filesystem;

std::string binding_label(uint32_t binding, const std::string& name) {
  return "binding " + std::to_string(binding) + (name.empty() ? std::string() : " '" + name + "'");
}

bool is_scalar32(const spirv_cross::SPIRType& type) {
  using BaseType = spirv_cross::SPIRType::BaseType;
  return type.vecsize == 1 && type.columns == 1 && type.array.empty() && type.width == 32 &&
         (type.basetype == BaseType::UInt || type.basetype == BaseType::Int || type.basetype == BaseType::Float);
}

const ReflectedBuffer* find_buffer(const ShaderReflection& reflection, uint32_t binding) {
  for (const ReflectedBuffer& buffer : reflection.buffers)
    if (buffer.set == 0 && buffer.binding == binding) return &buffer;
  return nullptr;
}

std::string list_buffers(const ShaderReflection& reflection) {
  std::string names;
  for (const ReflectedBuffer& buffer : reflection.buffers)
    names += (names.empty() ? "" : ", ") + std::string("set ") + std::to_string(buffer.set) + " " +
             binding_label(buffer.binding, buffer.name);
  return names.empty() ? "none" : names;
}

}  // namespace

ShaderReflection reflect_spirv(const std::vector<uint32_t>& spirv, const std::string& path) {
  ShaderReflection result;
  try {
    spirv_cross::Compiler compiler(spirv);
    for (const spirv_cross::EntryPoint& entry : compiler.get_entry_points_and_stages())
      if (entry.execution_model == spv::ExecutionModelGLCompute) result.entry_points.push_back(entry.name);
    if (result.entry_points.empty()) throw InputError(path, "", "a compute shader (GLCompute entry point)");
    compiler.set_entry_point(result.entry_points.front(), spv::ExecutionModelGLCompute);
    for (uint32_t axis = 0; axis < 3; ++axis)
      result.local_size[axis] = compiler.get_execution_mode_argument(spv::ExecutionModeLocalSize, axis);

    const spirv_cross::ShaderResources resources = compiler.get_shader_resources();
    for (const spirv_cross::Resource& resource : resources.storage_buffers) {
      ReflectedBuffer buffer;
      buffer.set = compiler.get_decoration(resource.id, spv::DecorationDescriptorSet);
      buffer.binding = compiler.get_decoration(resource.id, spv::DecorationBinding);
      buffer.name = resource.name;
      const spirv_cross::SPIRType& type = compiler.get_type(resource.base_type_id);
      buffer.member_count = type.member_types.size();
      buffer.fixed_bytes = compiler.get_declared_struct_size_runtime_array(type, 0);
      const size_t with_one = compiler.get_declared_struct_size_runtime_array(type, 1);
      buffer.array_stride = static_cast<uint32_t>(with_one - buffer.fixed_bytes);
      const spirv_cross::Bitset flags = compiler.get_buffer_block_flags(resource.id);
      buffer.read_only = flags.get(spv::DecorationNonWritable);
      buffer.write_only = flags.get(spv::DecorationNonReadable);
      result.buffers.push_back(buffer);
    }
    for (const spirv_cross::Resource& resource : resources.push_constant_buffers) {
      const spirv_cross::SPIRType& type = compiler.get_type(resource.base_type_id);
      result.push_bytes = static_cast<uint32_t>(compiler.get_declared_struct_size(type));
      for (uint32_t m = 0; m < type.member_types.size(); ++m) {
        ReflectedPushMember member;
        member.offset = compiler.type_struct_member_offset(type, m);
        member.name = compiler.get_member_name(type.self, m);
        member.scalar32 = is_scalar32(compiler.get_type(type.member_types[m]));
        result.push_members.push_back(member);
      }
    }
    auto note_others = [&](const spirv_cross::SmallVector<spirv_cross::Resource>& list, const char* kind) {
      for (const spirv_cross::Resource& resource : list)
        result.other_resources.push_back(std::string(kind) + " '" + resource.name + "' (set " +
                                         std::to_string(compiler.get_decoration(resource.id, spv::DecorationDescriptorSet)) +
                                         ", binding " +
                                         std::to_string(compiler.get_decoration(resource.id, spv::DecorationBinding)) + ")");
    };
    note_others(resources.uniform_buffers, "uniform buffer");
    note_others(resources.storage_images, "storage image");
    note_others(resources.sampled_images, "sampled image");
    note_others(resources.separate_images, "image");
    note_others(resources.separate_samplers, "sampler");
    note_others(resources.atomic_counters, "atomic counter");
    note_others(resources.acceleration_structures, "acceleration structure");
  } catch (const spirv_cross::CompilerError& error) {
    throw InputError(path, "", std::string("SPIR-V that SPIRV-Cross can reflect: ") + error.what());
  }
  return result;
}

void check_shader_interface(const ShaderInterface& interface, const ShaderReflection& reflection) {
  const std::string& file = interface.path;
  if (std::find(reflection.entry_points.begin(), reflection.entry_points.end(), interface.entry_point) ==
      reflection.entry_points.end()) {
    std::string names;
    for (const std::string& name : reflection.entry_points) names += (names.empty() ? "" : ", ") + name;
    throw InputError(file, "/entry_point", "a compute entry point of the shader (it has: " + names + "), got \"" +
                                               interface.entry_point + "\"");
  }
  if (reflection.local_size[1] != 1 || reflection.local_size[2] != 1)
    throw InputError(file, "/workgroup_size",
                     "a shader with local size (N, 1, 1): one vertex per invocation along x; the shader has (" +
                         std::to_string(reflection.local_size[0]) + ", " + std::to_string(reflection.local_size[1]) +
                         ", " + std::to_string(reflection.local_size[2]) + ")");
  if (interface.workgroup_size && *interface.workgroup_size != reflection.local_size[0])
    throw InputError(file, "/workgroup_size",
                     std::to_string(*interface.workgroup_size) + " as the shader declares, but its local_size_x is " +
                         std::to_string(reflection.local_size[0]));
  if (!reflection.other_resources.empty())
    throw InputError(file, "/buffers",
                     "a shader whose resources are storage buffers and push constants only; it also has " +
                         reflection.other_resources.front());

  for (size_t i = 0; i < interface.buffers.size(); ++i) {
    const InterfaceBuffer& described = interface.buffers[i];
    const std::string at = "/buffers/" + std::to_string(i);
    const ReflectedBuffer* shader = find_buffer(reflection, described.binding);
    if (!shader)
      throw InputError(file, at + "/binding",
                       "a storage buffer at set 0, binding " + std::to_string(described.binding) +
                           " of the shader; it has: " + list_buffers(reflection));
    const std::string label = binding_label(shader->binding, shader->name);
    if (described.written && shader->read_only)
      throw InputError(file, at, "a buffer the shader may write for " +
                                     std::string(shader_attribute_name(described.attributes.front().attribute)) +
                                     "; the shader declares " + label + " readonly");
    if (!described.written && shader->write_only)
      throw InputError(file, at, "a buffer the shader may read for " +
                                     std::string(shader_attribute_name(described.attributes.front().attribute)) +
                                     "; the shader declares " + label + " writeonly");
    if (described.kind == ElementKind::Single) {
      if (shader->fixed_bytes < described.stride)
        throw InputError(file, at + "/stride",
                         "a block of at least " + std::to_string(described.stride) + " bytes; the shader's " + label +
                             " holds " + std::to_string(shader->fixed_bytes));
      continue;
    }
    if (shader->array_stride == 0 || shader->fixed_bytes != 0 || shader->member_count != 1)
      throw InputError(file, at, "a block whose only member is a runtime array (one element per " +
                                     std::string(described.kind == ElementKind::Vertex ? "vertex" : "palette entry") +
                                     "); the shader's " + label + " is not");
    if (described.stride % shader->array_stride != 0)
      throw InputError(file, at + "/stride",
                       "a whole number of the shader's array elements: " + label + " has an array stride of " +
                           std::to_string(shader->array_stride) + " bytes, the interface says " +
                           std::to_string(described.stride) + " bytes per element");
  }

  for (const ReflectedBuffer& buffer : reflection.buffers) {
    if (buffer.set != 0)
      throw InputError(file, "/buffers", "storage buffers in descriptor set 0; the shader's " +
                                             binding_label(buffer.binding, buffer.name) + " is in set " +
                                             std::to_string(buffer.set));
    bool described = false;
    for (const InterfaceBuffer& b : interface.buffers) described = described || b.binding == buffer.binding;
    if (!described)
      throw InputError(file, "/buffers", "a description of every storage buffer of the shader; " +
                                             binding_label(buffer.binding, buffer.name) + " has none");
  }

  for (const ReflectedPushMember& member : reflection.push_members) {
    bool filled = false;
    for (const InterfacePush& push : interface.push_constants) filled = filled || push.offset == member.offset;
    if (!member.scalar32 || !filled)
      throw InputError(file, "/push_constants",
                       "a value for every push constant, each a 32-bit scalar; the shader's '" + member.name +
                           "' at offset " + std::to_string(member.offset) +
                           (member.scalar32 ? " has none" : " is not a 32-bit scalar"));
  }
  for (size_t p = 0; p < interface.push_constants.size(); ++p) {
    bool found = false;
    for (const ReflectedPushMember& member : reflection.push_members)
      found = found || member.offset == interface.push_constants[p].offset;
    if (!found)
      throw InputError(file, "/push_constants/" + std::to_string(p) + "/offset",
                       "an offset of a member of the shader's push constants (" + std::to_string(reflection.push_bytes) +
                           " bytes, " + std::to_string(reflection.push_members.size()) + " members), got " +
                           std::to_string(interface.push_constants[p].offset));
  }
}

UserShader load_user_shader(const std::string& shader_path, const std::string& interface_path,
                            const std::vector<std::string>& include_dirs) {
  UserShader shader;
  shader.path = shader_path;
  shader.interface = parse_shader_interface(interface_path);
  const std::string extension = fs::path(shader_path).extension().string();
  if (!fs::is_regular_file(shader_path)) throw InputError(shader_path, "", "a readable shader file");
  if (extension == ".comp" || extension == ".glsl")
    shader.spirv = compile_with_glslc(shader_path, "compute", false, shader.interface.entry_point, include_dirs);
  else if (extension == ".hlsl")
    shader.spirv = compile_with_glslc(shader_path, "compute", true, shader.interface.entry_point, include_dirs);
  else
    shader.spirv = read_spirv(shader_path, shader_path);
  shader.reflection = reflect_spirv(shader.spirv, shader_path);
  check_shader_interface(shader.interface, shader.reflection);
  return shader;
}

}  // namespace skinref::gpu
