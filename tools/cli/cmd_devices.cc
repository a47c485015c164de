// `skinref devices [--json]`: the Vulkan devices this machine offers (index, name, type, API version,
// driver), i.e. what `--device INDEX|NAME` can select. Without the Vulkan path in the build it says so on one
// line and exits 2.
#include "cli/cli_args.h"
#include "cli/commands.h"

#include <nlohmann/json.hpp>

#include <iostream>
#include <stdexcept>
#include <vector>

#ifdef SKINREF_HAVE_VULKAN
#include "gpu/context.h"
#endif

namespace skinref::cli {

namespace {

int run_devices(const ParsedArgs& parsed) {
  require_positionals(parsed, 0, "no arguments", "devices");
#ifdef SKINREF_HAVE_VULKAN
  const std::vector<gpu::DeviceInfo> devices = gpu::list_devices();
  auto version = [](uint32_t v) {
    return std::to_string(VK_API_VERSION_MAJOR(v)) + "." + std::to_string(VK_API_VERSION_MINOR(v)) + "." +
           std::to_string(VK_API_VERSION_PATCH(v));
  };
  if (parsed.has_flag("--json")) {
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (const gpu::DeviceInfo& device : devices) {
      list.push_back({{"index", device.index},
                      {"name", device.name},
                      {"type", device.type},
                      {"api_version", version(device.api_version)},
                      {"driver", device.driver}});
    }
    nlohmann::ordered_json root;
    root["devices"] = list;
    std::cout << root.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << "\n";
  } else {
    for (const gpu::DeviceInfo& device : devices) {
      std::cout << device.index << ": " << device.name << " [" << device.type << ", Vulkan "
                << version(device.api_version) << ", driver " << device.driver << "]\n";
    }
  }
  std::cout.flush();
  if (!std::cout) throw std::runtime_error("devices: writing to standard output failed");
  return kExitOk;
#else
  throw std::runtime_error(
      "devices: the Vulkan path was not built (CMake found no Vulkan loader and headers, or no glslc)");
#endif
}

}  // namespace

CommandDecl devices_command() {
  return {"devices",
          "list the Vulkan devices that --device can select",
          {"[--json]"},
          "Lists the Vulkan devices: index, name, type (discrete, integrated, virtual, cpu, other), Vulkan API "
          "version and driver. --device INDEX|NAME (a substring of the name) selects one of them; by default the "
          "first discrete GPU is used, else the first integrated GPU, else the first device.",
          {{"--json", "", "Print JSON instead of text."}},
          run_devices};
}

}  // namespace skinref::cli
