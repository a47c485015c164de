// Assimp's import in a child process (assimp_import.h; the translation is assimp_translate.cc). The child sends back one message
// on a pipe: a status byte ('G': a .glb and the import facts follow; 'E': an error line follows), then
// length-prefixed blocks. The parent never trusts it: sizes are capped, the .glb goes through the glTF loader.
#include "io/assimp_import.h"

#include "core/input_error.h"
#include "core/limits.h"
#include "core/sanitizers.h"
#include "io/gltf_export.h"
#include "io/gltf_load.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <map>
#include <new>
#include <set>
#include <sstream>
#include <stdexcept>

#ifdef SKINREF_HAVE_ASSIMP
#include <assimp/Importer.hpp>
#include <assimp/config.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>
#endif

#include <poll.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

namespace skinref {
namespace {

namespace fs = std::filesystem;

#ifdef SKINREF_HAVE_ASSIMP

// ---- the child process -------------------------------------------------------------------------------------

bool write_all(int fd, const void* data, size_t size) {
  const char* bytes = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t written = ::write(fd, bytes, size);
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) return false;
    bytes += written;
    size -= size_t(written);
  }
  return true;
}

void send(int fd, char status, const std::vector<std::string>& blocks) {
  bool ok = write_all(fd, &status, 1);
  for (const std::string& block : blocks) {
    const uint64_t size = block.size();
    ok = ok && write_all(fd, &size, sizeof size) && write_all(fd, block.data(), block.size());
  }
  (void)ok;  // the parent reports a short message
}

// AddressSanitizer reserves terabytes of shadow and allocator address space at start-up, so under it the limit
// counts from what the child has mapped when it starts (an absolute limit killed every child in ASan's first
// mmap): the import's own allocations get the same budget as without ASan, and a failed one ends the child
// with ASan's out-of-memory report (a failed import) instead of exhausting the machine (core/sanitizers.h).
#if defined(SKINREF_UNDER_ASAN)
constexpr bool kUnderAsan = true;
// The process's mapped address space (VmSize of /proc/self/status), 0 when it cannot be read.
unsigned long long mapped_bytes() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("VmSize:", 0) == 0) return std::strtoull(line.c_str() + 7, nullptr, 10) * 1024ull;  // kB
  return 0;
}
#else
constexpr bool kUnderAsan = false;
#endif

[[noreturn]] void run_child(int fd, const std::string& path, const ImportOptions& options,
                           const AssimpImportLimits& limits) {
#if defined(SKINREF_UNDER_ASAN)
  const unsigned long long mapped = mapped_bytes();
  if (mapped > 0) {
    const rlimit memory{mapped + limits.address_space_bytes, mapped + limits.address_space_bytes};
    setrlimit(RLIMIT_AS, &memory);
  }
#else
  const rlimit memory{limits.address_space_bytes, limits.address_space_bytes};
  setrlimit(RLIMIT_AS, &memory);
#endif
  const rlimit cpu{limits.cpu_seconds, limits.cpu_seconds + 1};
  setrlimit(RLIMIT_CPU, &cpu);
  try {
    Assimp::Importer importer;
    unsigned flags = aiProcess_Triangulate | aiProcess_SortByPType | aiProcess_FlipUVs | aiProcess_ValidateDataStructure;
    if (options.limit_weights > 0) {
      importer.SetPropertyInteger(AI_CONFIG_PP_LBW_MAX_WEIGHTS, options.limit_weights);
      flags |= aiProcess_LimitBoneWeights;
    }
    const aiScene* ai = importer.ReadFile(path, flags);
    if (!ai) {
      const std::string reason = importer.GetErrorString();
      // Assimp catches an allocation failure itself and reports it as text.
      if (reason.find("bad_alloc") != std::string::npos) throw std::bad_alloc();
      throw InputError(path, "", "a file Assimp can import: " + reason);
    }
    if (ai->mFlags & AI_SCENE_FLAGS_INCOMPLETE) throw InputError(path, "", "a complete scene (Assimp flagged it incomplete)");
    const Scene scene = scene_from_assimp(*ai, path, options);
    std::ostringstream glb;
    export_glb(scene, glb);
    nlohmann::json facts = nlohmann::json::array();
    for (const auto& [key, value] : scene.import_facts) facts.push_back({key, value});
    send(fd, 'G', {glb.str(), facts.dump()});
    _exit(0);
  } catch (const InputError& error) {
    send(fd, 'E', {error.what()});
    _exit(3);
  } catch (const std::bad_alloc&) {
    send(fd, 'E', {path + ": an import within the limit of " + std::to_string(limits.address_space_bytes >> 20) +
                   " MiB of address space: an allocation failed"});
    _exit(4);
  } catch (const std::exception& error) {
    send(fd, 'E', {path + ": a file Assimp can import: " + error.what()});
    _exit(5);
  }
}

#endif  // SKINREF_HAVE_ASSIMP

}  // namespace

bool assimp_available() {
#ifdef SKINREF_HAVE_ASSIMP
  return true;
#else
  return false;
#endif
}

AssimpImportLimits assimp_import_limits(unsigned long long input_bytes, const ImportOptions& options) {
  AssimpImportLimits limits;
  // Each product is below the cap's bound before it can overflow: inputs over 2^40 bytes take the caps.
  const bool huge = input_bytes > (1ull << 40);
  limits.address_space_bytes =
      options.address_space_bytes != 0 ? options.address_space_bytes
      : huge ? tol::kAssimpAddressSpaceBytes
             : std::min(tol::kAssimpAddressSpaceBytes,
                        tol::kAssimpAddressSpaceBaseBytes + tol::kAssimpAddressSpacePerInputByte * input_bytes);
  const unsigned long long mib = input_bytes >> 20;  // whole MiB
  limits.cpu_seconds = options.cpu_seconds != 0 ? options.cpu_seconds
                       : huge ? tol::kAssimpCpuSeconds
                              : unsigned(std::min<unsigned long long>(
                                    tol::kAssimpCpuSeconds, tol::kAssimpCpuSecondsBase + tol::kAssimpCpuSecondsPerMiB * mib));
  return limits;
}

std::string lowercase_extension(const std::string& path) {
  std::string ext = fs::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return ext;
}

bool is_assimp_path(const std::string& path) {
  const std::string ext = lowercase_extension(path);
  return !ext.empty() && ext != ".gltf" && ext != ".glb";
}

#ifdef SKINREF_HAVE_ASSIMP

Scene load_assimp_file(const std::string& path, const ImportOptions& options) {
  if (!fs::is_regular_file(path)) throw InputError(path, "", "a readable file");
  std::error_code size_error;
  const uintmax_t input_bytes = fs::file_size(path, size_error);
  if (size_error) throw InputError(path, "", "a readable file: " + size_error.message());
  const AssimpImportLimits limits = assimp_import_limits(input_bytes, options);
  int fds[2];
  if (pipe(fds) != 0) throw std::runtime_error("cannot create a pipe for the Assimp import of " + path);
  const pid_t child = fork();
  if (child < 0) {
    close(fds[0]);
    close(fds[1]);
    throw std::runtime_error("cannot start the Assimp import of " + path + ": fork failed");
  }
  if (child == 0) {
    close(fds[0]);
    run_child(fds[1], path, options, limits);
  }
  close(fds[1]);

  // Read everything the child sends, within the wall-clock limit and the size limit.
  std::string message;
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(options.wall_seconds));
  bool timed_out = false, too_big = false;
  char buffer[1 << 16];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      break;
    }
    pollfd pfd{fds[0], POLLIN, 0};
    const int ready = poll(&pfd, 1, int(std::min<long long>(left.count(), 1000)));
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) continue;
    const ssize_t got = ::read(fds[0], buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    message.append(buffer, size_t(got));
    if (message.size() > tol::kAssimpResultBytes + 4096) {
      too_big = true;
      break;
    }
  }
  close(fds[0]);
  if (timed_out || too_big) kill(child, SIGKILL);
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  if (timed_out)
    throw InputError(path, "", "an import that finishes within " + std::to_string(options.wall_seconds) +
                                   " s: Assimp was stopped");
  if (too_big) throw InputError(path, "", "an imported scene under " + std::to_string(tol::kAssimpResultBytes >> 20) + " MiB");

  // The message: status byte, then length-prefixed blocks.
  std::vector<std::string> blocks;
  size_t at = 1;
  while (message.size() >= at + sizeof(uint64_t)) {
    uint64_t size = 0;
    std::memcpy(&size, message.data() + at, sizeof size);
    at += sizeof size;
    if (size > message.size() - at) break;
    blocks.push_back(message.substr(at, size));
    at += size;
  }
  if (message.empty() || (message[0] != 'G' && message[0] != 'E') || at != message.size()) {
    std::string how = "the import stopped";
    if (WIFSIGNALED(status)) {
      const int signal = WTERMSIG(status);
      // Under ASan a failed allocation is ASan's out-of-memory report, which ends the child with SIGABRT where
      // ASAN_OPTIONS has abort_on_error=1 (as `./run test` sets it) and with exit status 1 otherwise (below).
      how = signal == SIGXCPU ? "Assimp ran past its " + std::to_string(limits.cpu_seconds) + " s of CPU time"
            : kUnderAsan && signal == SIGABRT
                ? "Assimp's process was stopped by AddressSanitizer (signal 6; its report is above: out of memory "
                  "within its " + std::to_string(limits.address_space_bytes >> 20) + " MiB, or a memory error)"
                : "Assimp crashed (signal " + std::to_string(signal) + ": " + strsignal(signal) + ")";
    } else if (WIFEXITED(status) && message.empty()) {
      how = "Assimp's process ended with status " + std::to_string(WEXITSTATUS(status)) +
            " without a result (out of memory within its " + std::to_string(limits.address_space_bytes >> 20) +
            " MiB, or killed)";
    } else if (WIFEXITED(status)) {
      how = "Assimp's process ended with status " + std::to_string(WEXITSTATUS(status)) + " without a result";
    }
    throw InputError(path, "", "a file Assimp imports without failing: " + how);
  }
  if (message[0] == 'E') throw std::runtime_error(blocks.empty() ? path + ": the import failed" : blocks[0]);
  if (blocks.size() != 2) throw InputError(path, "", "a complete result from the Assimp import");

  Scene scene = load_gltf_memory(blocks[0], path + " (as imported)", "");
  scene.source = path;
  const nlohmann::json facts = nlohmann::json::parse(blocks[1], nullptr, false);
  if (facts.is_array())
    for (const nlohmann::json& fact : facts)
      if (fact.is_array() && fact.size() == 2 && fact[0].is_string() && fact[1].is_string())
        scene.import_facts.emplace_back(fact[0].get<std::string>(), fact[1].get<std::string>());
  return scene;
}

#else

Scene load_assimp_file(const std::string& path, const ImportOptions&) {
  throw InputError(path, "", "a .gltf or .glb file: this build has no Assimp (libassimp-dev) for other formats");
}

#endif

}  // namespace skinref
