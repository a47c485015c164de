#include "gpu/shader_compile.h"

#include "core/input_error.h"
#include "core/stream_bytes.h"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>

extern char** environ;

namespace skinref::gpu {

namespace fs = std::filesystem;

namespace {
constexpr uint32_t kSpirvMagic = 0x07230203u;
}  // namespace

std::vector<uint32_t> read_spirv(const std::string& path, const std::string& shown_as) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(shown_as, "", "a readable SPIR-V file");
  const std::string bytes = read_stream_bytes(in);
  if (bytes.size() < 20 || bytes.size() % 4 != 0)
    throw InputError(shown_as, "", "SPIR-V: a whole number of 32-bit words, at least the 5-word header; got " +
                                       std::to_string(bytes.size()) + " bytes");
  std::vector<uint32_t> words(bytes.size() / 4);
  std::memcpy(words.data(), bytes.data(), bytes.size());
  if (words[0] != kSpirvMagic)
    throw InputError(shown_as, "", "SPIR-V: the magic number 0x07230203 first (compile GLSL or HLSL with glslc, "
                                   "or give a .comp, .vert, .glsl or .hlsl file)");
  return words;
}

// glslc SOURCE -o OUT, its diagnostics collected; the first line of them names a failure.
std::vector<uint32_t> compile_with_glslc(const std::string& path, const std::string& stage, bool hlsl,
                                         const std::string& entry_point, const std::vector<std::string>& include_dirs) {
  char spv_template[] = "/tmp/skinref-shader-XXXXXX";
  const int spv_fd = mkstemp(spv_template);
  char log_template[] = "/tmp/skinref-glslc-XXXXXX";
  const int log_fd = mkstemp(log_template);
  if (spv_fd < 0 || log_fd < 0) throw std::runtime_error("could not create a temporary file for glslc's output");
  close(spv_fd);
  const std::string spv_path = spv_template, log_path = log_template;
  std::vector<std::string> args = {"glslc", "-fshader-stage=" + stage, "--target-env=vulkan1.1"};
  if (hlsl) {
    args.insert(args.end(), {"-x", "hlsl", "-fentry-point=" + entry_point});
  }
  for (const std::string& dir : include_dirs) args.insert(args.end(), {"-I", dir});
  args.insert(args.end(), {path, "-o", spv_path});
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, log_fd, STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, log_fd, STDERR_FILENO);
  pid_t pid = 0;
  const int spawned = posix_spawnp(&pid, "glslc", &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(log_fd);
  int status = 0;
  if (spawned == 0) waitpid(pid, &status, 0);
  std::ifstream log(log_path);
  std::string first_line;
  std::getline(log, first_line);
  fs::remove(log_path);
  if (spawned != 0) {
    fs::remove(spv_path);
    throw InputError(path, "", "glslc on PATH to compile the shader (Debian: glslc), or SPIR-V (.spv)");
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    fs::remove(spv_path);
    throw InputError(path, "", "a shader glslc compiles: " + (first_line.empty() ? "glslc failed" : first_line));
  }
  std::vector<uint32_t> words = read_spirv(spv_path, path);
  fs::remove(spv_path);
  return words;
}

}  // namespace skinref::gpu
