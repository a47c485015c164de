// The names of VkResult values, for the messages VK_CHECK throws, spelled as the specification spells them
// ("VK_ERROR_OUT_OF_HOST_MEMORY"). The names come from the Vulkan headers this is built with: Vulkan-Hpp's
// vk::to_string (vulkan/vulkan_to_string.hpp) names every result those headers know ("ErrorOutOfHostMemory"),
// and c_spelling turns that back into the C enumerator's name, so a result added to the headers is named
// without a table here to keep up to date. vulkan.hpp is a very large header: this file is the only one that
// includes it (never a header), and it uses nothing of it but the names.
#include "gpu/vk_check.h"

#include <vulkan/vulkan.hpp>
#include <vulkan/vulkan_to_string.hpp>  // vulkan.hpp includes it unless VULKAN_HPP_NO_TO_STRING; say so here

#include <map>
#include <mutex>
#include <string>
#include <string_view>

namespace skinref::gpu {
namespace {

bool ascii_upper(char c) { return c >= 'A' && c <= 'Z'; }
bool ascii_lower(char c) { return c >= 'a' && c <= 'z'; }
bool ascii_digit(char c) { return c >= '0' && c <= '9'; }

// A Vulkan-Hpp enumerator name: a capital, then letters and digits. Anything else (vk::to_string's
// "invalid ( 0x... )" for a value the headers do not know) is not a name.
bool hpp_name(std::string_view text) {
  if (text.empty() || !ascii_upper(text.front())) return false;
  for (char c : text) {
    if (!ascii_upper(c) && !ascii_lower(c) && !ascii_digit(c)) return false;
  }
  return true;
}

// "ErrorInvalidDrmFormatModifierPlaneLayoutEXT" -> "VK_ERROR_INVALID_DRM_FORMAT_MODIFIER_PLANE_LAYOUT_EXT".
// A word starts at a capital that follows a lower-case letter or a digit, or at the last capital of a run that
// a lower-case letter follows; a run of capitals (KHR, EXT, NV) is one word.
std::string c_spelling(std::string_view hpp) {
  std::string name = "VK_";
  for (std::size_t i = 0; i < hpp.size(); ++i) {
    const char c = hpp[i];
    if (i > 0 && ascii_upper(c)) {
      const bool after_capital = ascii_upper(hpp[i - 1]);
      const bool before_lower = i + 1 < hpp.size() && ascii_lower(hpp[i + 1]);
      if (!after_capital || before_lower) name += '_';
    }
    name += ascii_lower(c) ? static_cast<char>(c - 'a' + 'A') : c;
  }
  return name;
}

std::string result_name(VkResult result) {
  const std::string hpp = vk::to_string(static_cast<vk::Result>(result));
  if (hpp_name(hpp)) return c_spelling(hpp);
  // vulkan_core.h declares this one on every platform, but vulkan_to_string.hpp names it only where
  // VK_USE_PLATFORM_WIN32_KHR is defined (the extension is Windows-only).
  if (result == VK_ERROR_FULL_SCREEN_EXCLUSIVE_MODE_LOST_EXT) return "VK_ERROR_FULL_SCREEN_EXCLUSIVE_MODE_LOST_EXT";
  // A value from a newer driver than these headers: still say which one, since a bare "unknown" is useless in a
  // CI log.
  return "VkResult " + std::to_string(static_cast<int>(result)) + " (unknown to these headers)";
}

}  // namespace

const char* vk_result_name(VkResult result) {
  // Each name is made once and kept for the life of the process, so the pointer stays valid on any thread (a
  // std::map's elements never move). The values a process meets are few: the map stays small.
  static std::mutex names_mutex;
  static std::map<int, std::string> names;
  const std::lock_guard<std::mutex> lock(names_mutex);
  auto found = names.find(static_cast<int>(result));
  if (found == names.end()) found = names.emplace(static_cast<int>(result), result_name(result)).first;
  return found->second.c_str();
}

}  // namespace skinref::gpu
