// `skinref shader-interface SHADER [--entry-point NAME] [--shader-include DIR]... [--out FILE.json]`: a draft of
// a vertex shader's interface from its SPIR-V (gpu/interface_draft.h), printed or written atomically, and on
// stderr each value that came from a name or was made up, for the user to check. Exit: 0 drafted, 2 usage or bad
// input (a shader glslc refuses, SPIR-V without a vertex entry point of the name), or no Vulkan path in the build.
#include "cli/cli_args.h"
#include "cli/commands.h"
#include "core/atomic_file.h"
#include "core/input_error.h"

#include <iostream>
#include <stdexcept>
#include <vector>

#ifdef SKINREF_HAVE_VULKAN
#include "gpu/interface_draft.h"
#include "gpu/shader_compile.h"

#include <filesystem>
#endif

namespace skinref::cli {

namespace {

int run_shader_interface(const ParsedArgs& parsed) {
  require_positionals(parsed, 1, "one SHADER file", "shader-interface");
#ifdef SKINREF_HAVE_VULKAN
  const std::string& path = parsed.positionals[0];
  const std::string entry_point = parsed.value("--entry-point").value_or("main");
  const std::string extension = std::filesystem::path(path).extension().string();
  if (!std::filesystem::is_regular_file(path)) throw InputError(path, "", "a readable shader file");
  const std::vector<std::string> includes = parsed.values_of("--shader-include");
  const std::vector<uint32_t> spirv =
      extension == ".vert" || extension == ".glsl" ? gpu::compile_with_glslc(path, "vertex", false, entry_point, includes)
      : extension == ".hlsl"                        ? gpu::compile_with_glslc(path, "vertex", true, entry_point, includes)
                                                    : gpu::read_spirv(path, path);
  std::vector<std::string> guesses;
  const nlohmann::ordered_json draft =
      gpu::draft_vertex_interface(spirv, entry_point, std::filesystem::path(path).filename().string(), guesses);
  const std::string text = draft.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
  for (const std::string& guess : guesses) std::cerr << "guessed: " << guess << "\n";
  if (const std::optional<std::string> out = parsed.value("--out")) {
    write_file_atomically(*out, [&text](std::ostream& stream) { stream << text; });
    std::cout << "shader-interface: wrote the draft " << *out << " (" << guesses.size() << " guesses to check)\n";
  } else {
    std::cout << text;
  }
  return kExitOk;
#else
  throw std::runtime_error(
      "shader-interface: the Vulkan path was not built (CMake found no Vulkan loader and headers, or no glslc)");
#endif
}

}  // namespace

CommandDecl shader_interface_command() {
  return {"shader-interface",
          "draft the interface JSON of a skinning vertex shader from its SPIR-V",
          {"SHADER [--entry-point NAME] [--shader-include DIR]... [--out FILE.json]"},
          "A first draft of the interface JSON that `--shader SHADER --interface FILE.json` needs for a vertex shader "
          "(SPIR-V .spv, GLSL .vert/.glsl or HLSL .hlsl, compiled with glslc): every input at its location, packed "
          "in one vertex buffer, its attribute guessed from its name; the palette (the largest array of matrices in "
          "a block, else a texel buffer or an image); every other matrix as an identity; the push constants, the "
          "specialization constants with their defaults, and the outputs. The guesses are listed on stderr: check "
          "each, and set what SPIR-V cannot say (docs/vulkan.md, \"A draft of the interface\").",
          {{"--entry-point", "NAME", "The vertex entry point.", {}, "main"},
           {"--shader-include", "DIR", "A folder where glslc looks up the shader's #includes.", {}, "", true},
           {"--out", "FILE.json", "Write the draft there (atomically) instead of printing it."}},
          run_shader_interface};
}

}  // namespace skinref::cli
