// The headless Vulkan context of context.h: instance (no window system), optional validation with a counting
// debug-utils messenger, device choice, one graphics+compute queue, a command pool, and the buffer, image,
// submission and shader helpers that the compute skinning and the offscreen renderer share.
#include "gpu/context.h"

#include "core/input_error.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <exception>
#include <initializer_list>
#include <mutex>
#include <stdexcept>
#include <string_view>

namespace skinref::gpu {
namespace {

constexpr const char* kValidationLayer = "VK_LAYER_KHRONOS_validation";

// How long submit_and_wait() waits for one submission. lavapipe runs shaders on the CPU, and a sanitized
// build of a large scene is slow, so this is minutes; it exists to turn a hung device into an error.
constexpr uint64_t kFenceTimeoutNs = 300ull * 1000 * 1000 * 1000;

// The newest API version requested: everything here is Vulkan 1.1 core, and 1.3 is what the validation
// layer and lavapipe in Debian 12 know. The instance asks for min(loader, this).
constexpr uint32_t kMaxApiVersion = VK_API_VERSION_1_3;
constexpr uint32_t kMinApiVersion = VK_API_VERSION_1_1;

std::string version_text(uint32_t version) {
  return std::to_string(VK_API_VERSION_MAJOR(version)) + "." + std::to_string(VK_API_VERSION_MINOR(version)) +
         "." + std::to_string(VK_API_VERSION_PATCH(version));
}

const char* device_type_name(VkPhysicalDeviceType type) {
  switch (type) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return "discrete";
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return "integrated";
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return "virtual";
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return "cpu";
    default: return "other";
  }
}

// The loader's instance version. vkEnumerateInstanceVersion is looked up rather than called so that a
// Vulkan 1.0 loader (which lacks it) gives a clear error instead of a missing-symbol failure.
uint32_t loader_api_version() {
  auto enumerate = reinterpret_cast<PFN_vkEnumerateInstanceVersion>(
      vkGetInstanceProcAddr(VK_NULL_HANDLE, "vkEnumerateInstanceVersion"));
  if (enumerate == nullptr) return VK_API_VERSION_1_0;
  uint32_t version = 0;
  VK_CHECK(enumerate(&version));
  return version;
}

bool has_instance_extension(const char* layer, const char* name) {
  uint32_t count = 0;
  VK_CHECK(vkEnumerateInstanceExtensionProperties(layer, &count, nullptr));
  std::vector<VkExtensionProperties> extensions(count);
  VK_CHECK(vkEnumerateInstanceExtensionProperties(layer, &count, extensions.data()));
  return std::any_of(extensions.begin(), extensions.end(),
                     [&](const VkExtensionProperties& e) { return std::strcmp(e.extensionName, name) == 0; });
}

bool has_device_extension(VkPhysicalDevice device, const char* name) {
  uint32_t count = 0;
  VK_CHECK(vkEnumerateDeviceExtensionProperties(device, nullptr, &count, nullptr));
  std::vector<VkExtensionProperties> extensions(count);
  VK_CHECK(vkEnumerateDeviceExtensionProperties(device, nullptr, &count, extensions.data()));
  return std::any_of(extensions.begin(), extensions.end(),
                     [&](const VkExtensionProperties& e) { return std::strcmp(e.extensionName, name) == 0; });
}

void require_validation_layer() {
  uint32_t count = 0;
  VK_CHECK(vkEnumerateInstanceLayerProperties(&count, nullptr));
  std::vector<VkLayerProperties> layers(count);
  VK_CHECK(vkEnumerateInstanceLayerProperties(&count, layers.data()));
  const bool found = std::any_of(layers.begin(), layers.end(), [](const VkLayerProperties& layer) {
    return std::strcmp(layer.layerName, kValidationLayer) == 0;
  });
  if (!found) {
    throw GpuError(std::string("validation requested but the layer ") + kValidationLayer +
                   " is not installed (Debian: vulkan-validationlayers)");
  }
  // debug_utils comes from the loader or from the layer itself; either serves.
  if (!has_instance_extension(nullptr, VK_EXT_DEBUG_UTILS_EXTENSION_NAME) &&
      !has_instance_extension(kValidationLayer, VK_EXT_DEBUG_UTILS_EXTENSION_NAME)) {
    throw GpuError(std::string("validation requested but the instance extension ") +
                   VK_EXT_DEBUG_UTILS_EXTENSION_NAME + " is not available");
  }
}

// Creates an instance with no window-system extensions. With `messenger_info`, validation is on: the layer
// and debug_utils are enabled and the messenger is chained into pNext so that messages from
// vkCreateInstance and vkDestroyInstance themselves are reported too. Synchronization validation is added
// where the layer offers VK_EXT_validation_features: a missing barrier between two hops is then a
// reported hazard, not a race that happens to pass on one driver.
VkInstance create_instance(uint32_t api_version, const VkDebugUtilsMessengerCreateInfoEXT* messenger_info) {
  VkApplicationInfo app{};
  app.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
  app.pApplicationName = "skinref";
  app.applicationVersion = VK_MAKE_API_VERSION(0, 0, 1, 0);
  app.pEngineName = "skinref";
  app.engineVersion = VK_MAKE_API_VERSION(0, 0, 1, 0);
  app.apiVersion = api_version;

  const char* layers[] = {kValidationLayer};
  std::vector<const char*> extensions{VK_EXT_DEBUG_UTILS_EXTENSION_NAME};
  const VkValidationFeatureEnableEXT enables[] = {VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT};
  VkValidationFeaturesEXT features{};
  features.sType = VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT;
  features.enabledValidationFeatureCount = 1;
  features.pEnabledValidationFeatures = enables;
  VkInstanceCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
  info.pApplicationInfo = &app;
  if (messenger_info != nullptr) {
    info.pNext = messenger_info;
    if (has_instance_extension(kValidationLayer, VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME)) {
      extensions.push_back(VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME);
      features.pNext = messenger_info;
      info.pNext = &features;
    }
    info.enabledLayerCount = 1;
    info.ppEnabledLayerNames = layers;
    info.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
    info.ppEnabledExtensionNames = extensions.data();
  }
  VkInstance instance = VK_NULL_HANDLE;
  VK_CHECK(vkCreateInstance(&info, nullptr, &instance));
  return instance;
}

uint32_t instance_api_version() {
  const uint32_t loader = loader_api_version();
  if (loader < kMinApiVersion) {
    throw GpuError("the Vulkan loader supports only API " + version_text(loader) + "; skinref needs " +
                   version_text(kMinApiVersion));
  }
  return std::min(loader, kMaxApiVersion);
}

std::vector<VkPhysicalDevice> physical_devices(VkInstance instance) {
  uint32_t count = 0;
  VK_CHECK(vkEnumeratePhysicalDevices(instance, &count, nullptr));
  std::vector<VkPhysicalDevice> devices(count);
  VK_CHECK(vkEnumeratePhysicalDevices(instance, &count, devices.data()));
  devices.resize(count);
  return devices;
}

DeviceInfo describe(VkPhysicalDevice device, int index, uint32_t instance_version) {
  VkPhysicalDeviceProperties properties{};
  vkGetPhysicalDeviceProperties(device, &properties);
  DeviceInfo info;
  info.index = index;
  info.name = properties.deviceName;
  info.type = device_type_name(properties.deviceType);
  info.api_version = properties.apiVersion;
  // VkPhysicalDeviceDriverProperties is core in 1.2 (the lower of the instance's and the device's version
  // counts) and otherwise needs VK_KHR_driver_properties on the device; asking for it without either would
  // be invalid usage.
  const uint32_t effective = std::min(instance_version, properties.apiVersion);
  if (effective >= VK_API_VERSION_1_2 || has_device_extension(device, VK_KHR_DRIVER_PROPERTIES_EXTENSION_NAME)) {
    VkPhysicalDeviceDriverProperties driver{};
    driver.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES;
    VkPhysicalDeviceProperties2 properties2{};
    properties2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
    properties2.pNext = &driver;
    vkGetPhysicalDeviceProperties2(device, &properties2);
    info.driver = driver.driverName;
  }
  if (info.driver.empty()) {
    char text[64];
    std::snprintf(text, sizeof text, "unknown (driverVersion 0x%08x)", properties.driverVersion);
    info.driver = text;
  }
  return info;
}

// The first queue family with both graphics and compute, or -1.
int graphics_compute_family(VkPhysicalDevice device) {
  uint32_t count = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(device, &count, nullptr);
  std::vector<VkQueueFamilyProperties> families(count);
  vkGetPhysicalDeviceQueueFamilyProperties(device, &count, families.data());
  constexpr VkQueueFlags kNeeded = VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT;
  for (uint32_t i = 0; i < count; ++i) {
    if ((families[i].queueFlags & kNeeded) == kNeeded && families[i].queueCount > 0) return static_cast<int>(i);
  }
  return -1;
}

std::string device_list_text(const std::vector<DeviceInfo>& devices) {
  if (devices.empty()) return "none";
  std::string text;
  for (const DeviceInfo& device : devices) {
    if (!text.empty()) text += ", ";
    text += std::to_string(device.index) + " '" + device.name + "' (" + device.type + ")";
  }
  return text;
}

bool all_digits(const std::string& text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// The device the options ask for (context.h: index, or a case-sensitive name substring; by default the first
// discrete GPU, else the first integrated, else the first device), among those with a graphics+compute
// queue family for the automatic choice.
size_t choose_device(const std::vector<DeviceInfo>& infos, const std::vector<VkPhysicalDevice>& devices,
                     const std::string& wanted) {
  if (!wanted.empty()) {
    if (all_digits(wanted)) {
      // Compared as text length first so that a huge number cannot overflow the conversion.
      if (wanted.size() <= 9 && std::stoul(wanted) < infos.size()) return std::stoul(wanted);
      throw InputError("--device", "",
                       "no Vulkan device with index " + wanted + "; devices: " + device_list_text(infos));
    }
    for (size_t i = 0; i < infos.size(); ++i) {
      if (infos[i].name.find(wanted) != std::string::npos) return i;
    }
    throw InputError("--device", "",
                     "no Vulkan device name contains '" + wanted + "'; devices: " + device_list_text(infos));
  }
  for (const char* type : {"discrete", "integrated"}) {
    for (size_t i = 0; i < infos.size(); ++i) {
      if (infos[i].type == type && graphics_compute_family(devices[i]) >= 0) return i;
    }
  }
  for (size_t i = 0; i < infos.size(); ++i) {
    if (graphics_compute_family(devices[i]) >= 0) return i;
  }
  throw GpuError("no Vulkan device has a queue family with both graphics and compute; devices: " +
                 device_list_text(infos));
}

bool is_depth_format(VkFormat format) {
  switch (format) {
    case VK_FORMAT_D16_UNORM:
    case VK_FORMAT_X8_D24_UNORM_PACK32:
    case VK_FORMAT_D32_SFLOAT:
    case VK_FORMAT_D16_UNORM_S8_UINT:
    case VK_FORMAT_D24_UNORM_S8_UINT:
    case VK_FORMAT_D32_SFLOAT_S8_UINT: return true;
    default: return false;
  }
}

bool has_stencil(VkFormat format) {
  return format == VK_FORMAT_S8_UINT || format == VK_FORMAT_D16_UNORM_S8_UINT ||
         format == VK_FORMAT_D24_UNORM_S8_UINT || format == VK_FORMAT_D32_SFLOAT_S8_UINT;
}

VkImageAspectFlags aspect_of(VkFormat format) {
  VkImageAspectFlags aspect = 0;
  if (is_depth_format(format)) aspect |= VK_IMAGE_ASPECT_DEPTH_BIT;
  if (has_stencil(format)) aspect |= VK_IMAGE_ASPECT_STENCIL_BIT;
  return aspect == 0 ? VkImageAspectFlags{VK_IMAGE_ASPECT_COLOR_BIT} : aspect;
}

VkDeviceSize round_up(VkDeviceSize value, VkDeviceSize multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

std::string hex(uint64_t value) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(value));
  return text;
}

}  // namespace

std::vector<DeviceInfo> list_devices() {
  const uint32_t api_version = instance_api_version();
  VkInstance instance = create_instance(api_version, nullptr);
  std::vector<DeviceInfo> infos;
  try {
    const std::vector<VkPhysicalDevice> devices = physical_devices(instance);
    for (size_t i = 0; i < devices.size(); ++i) infos.push_back(describe(devices[i], static_cast<int>(i), api_version));
  } catch (...) {
    vkDestroyInstance(instance, nullptr);
    throw;
  }
  vkDestroyInstance(instance, nullptr);
  if (infos.empty()) {
    throw GpuError("the Vulkan loader found no device (is a driver installed? Debian: mesa-vulkan-drivers)");
  }
  return infos;
}

struct Context::State {
  bool validate = false;
  uint32_t api_version = 0;
  VkInstance instance = VK_NULL_HANDLE;
  VkDebugUtilsMessengerEXT messenger = VK_NULL_HANDLE;
  PFN_vkDestroyDebugUtilsMessengerEXT destroy_messenger = nullptr;
  VkPhysicalDevice physical_device = VK_NULL_HANDLE;
  VkDevice device = VK_NULL_HANDLE;
  VkQueue queue = VK_NULL_HANDLE;
  uint32_t queue_family = 0;
  VkCommandPool command_pool = VK_NULL_HANDLE;
  DeviceInfo info;
  VkPhysicalDeviceProperties properties{};
  VkPhysicalDeviceMemoryProperties memory{};
  bool timestamps = false;
  // Fences of submissions whose wait timed out: the device may still signal them, so they are destroyed
  // only after vkDeviceWaitIdle at teardown.
  std::vector<VkFence> abandoned_fences;

  // The messenger's callback may run on whichever thread makes the call that it reports on.
  mutable std::mutex messages_mutex;
  ValidationCounts counts;
  std::vector<std::string> messages;

  State() = default;
  State(const State&) = delete;
  State& operator=(const State&) = delete;
  ~State();

  static VKAPI_ATTR VkBool32 VKAPI_CALL on_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                   VkDebugUtilsMessageTypeFlagsEXT /*types*/,
                                                   const VkDebugUtilsMessengerCallbackDataEXT* data,
                                                   void* user_data) {
    static_cast<State*>(user_data)->record(severity, data != nullptr ? data->pMessage : nullptr);
    // VK_FALSE: the call that triggered the message goes on, as the specification requires of applications.
    return VK_FALSE;
  }

  void record(VkDebugUtilsMessageSeverityFlagBitsEXT severity, const char* text) {
    std::lock_guard<std::mutex> lock(messages_mutex);
    const char* label = nullptr;
    if (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT) {
      ++counts.error;
      label = "error";
    } else if (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT) {
      ++counts.warning;
      label = "warning";
    } else if (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_INFO_BIT_EXT) {
      ++counts.info;
    } else {
      ++counts.verbose;
    }
    if (label != nullptr && messages.size() < kMaxKeptMessages) {
      messages.push_back(std::string(label) + ": " + (text != nullptr ? text : "(no message)"));
    }
  }

  uint32_t find_memory_type(uint32_t type_bits, VkMemoryPropertyFlags required,
                            std::initializer_list<VkMemoryPropertyFlags> preferred) const {
    for (VkMemoryPropertyFlags extra : preferred) {
      const VkMemoryPropertyFlags wanted = required | extra;
      for (uint32_t i = 0; i < memory.memoryTypeCount; ++i) {
        if ((type_bits & (1u << i)) && (memory.memoryTypes[i].propertyFlags & wanted) == wanted) return i;
      }
    }
    throw GpuError("no memory type with property flags " + hex(required) + " among the allowed types " +
                   hex(type_bits) + " on " + info.name);
  }

  VkDeviceMemory allocate(const VkMemoryRequirements& requirements, uint32_t type) {
    VkMemoryAllocateInfo allocate_info{};
    allocate_info.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
    // Rounded to the non-coherent atom so that write()/read() can flush and invalidate whole atoms up to the
    // buffer's rounded end without passing the end of the allocation.
    allocate_info.allocationSize = round_up(requirements.size, properties.limits.nonCoherentAtomSize);
    allocate_info.memoryTypeIndex = type;
    VkDeviceMemory result = VK_NULL_HANDLE;
    VK_CHECK(vkAllocateMemory(device, &allocate_info, nullptr, &result));
    return result;
  }

  // The atom-aligned range covering [offset, offset + size) of a buffer's memory (bound at offset 0).
  VkMappedMemoryRange atom_range(const Buffer& buffer, VkDeviceSize offset, VkDeviceSize size) const {
    const VkDeviceSize atom = properties.limits.nonCoherentAtomSize;
    VkMappedMemoryRange range{};
    range.sType = VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE;
    range.memory = buffer.memory;
    range.offset = offset / atom * atom;
    range.size = round_up(offset + size, atom) - range.offset;
    return range;
  }
};

Context::State::~State() {
  ValidationCounts before;
  {
    std::lock_guard<std::mutex> lock(messages_mutex);
    before = counts;
  }
  if (device != VK_NULL_HANDLE) {
    // Work still in flight must finish before anything it uses goes away. A destructor cannot throw, so a
    // failure here (a lost device) is reported and teardown continues.
    const VkResult idle = vkDeviceWaitIdle(device);
    if (idle != VK_SUCCESS) {
      std::fprintf(stderr, "skinref: vkDeviceWaitIdle(device) failed at context teardown: %s\n",
                   vk_result_name(idle));
    }
    for (VkFence fence : abandoned_fences) vkDestroyFence(device, fence, nullptr);
    if (command_pool != VK_NULL_HANDLE) vkDestroyCommandPool(device, command_pool, nullptr);
    vkDestroyDevice(device, nullptr);
  }
  if (messenger != VK_NULL_HANDLE) destroy_messenger(instance, messenger, nullptr);
  // The messenger chained into VkInstanceCreateInfo stays active for vkDestroyInstance.
  if (instance != VK_NULL_HANDLE) vkDestroyInstance(instance, nullptr);

  // The validation layer reports objects still alive at vkDestroyDevice / vkDestroyInstance. Nobody can ask
  // for the counts after this point, so such reports would be lost; with validation on (tests, --validate)
  // they are printed and the process stops, so that a leak fails its test instead of passing silently.
  // During unwinding the exception in flight is the real failure and leaks are its consequence: print only.
  if (!validate) return;
  std::lock_guard<std::mutex> lock(messages_mutex);
  if (counts.warning == before.warning && counts.error == before.error) return;
  std::fprintf(stderr, "skinref: the validation layer reported %u warning(s) and %u error(s) at context teardown\n",
               counts.warning - before.warning, counts.error - before.error);
  const size_t kept_before = std::min<size_t>(before.warning + before.error, messages.size());
  for (size_t i = kept_before; i < messages.size(); ++i) std::fprintf(stderr, "  %s\n", messages[i].c_str());
  if (std::uncaught_exceptions() == 0) std::abort();
}

Context::Context(const ContextOptions& options) : state_(std::make_unique<State>()) {
  State& s = *state_;
  s.validate = options.validate;
  s.api_version = instance_api_version();

  VkDebugUtilsMessengerCreateInfoEXT messenger_info{};
  messenger_info.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT;
  messenger_info.messageSeverity =
      VK_DEBUG_UTILS_MESSAGE_SEVERITY_VERBOSE_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_INFO_BIT_EXT |
      VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
  messenger_info.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                               VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                               VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
  messenger_info.pfnUserCallback = State::on_message;
  messenger_info.pUserData = &s;

  if (s.validate) require_validation_layer();
  s.instance = create_instance(s.api_version, s.validate ? &messenger_info : nullptr);
  if (s.validate) {
    auto create = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
        vkGetInstanceProcAddr(s.instance, "vkCreateDebugUtilsMessengerEXT"));
    s.destroy_messenger = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
        vkGetInstanceProcAddr(s.instance, "vkDestroyDebugUtilsMessengerEXT"));
    if (create == nullptr || s.destroy_messenger == nullptr) {
      throw GpuError("vkCreateDebugUtilsMessengerEXT is not available although VK_EXT_debug_utils is enabled");
    }
    VK_CHECK(create(s.instance, &messenger_info, nullptr, &s.messenger));
  }

  const std::vector<VkPhysicalDevice> devices = physical_devices(s.instance);
  std::vector<DeviceInfo> infos;
  for (size_t i = 0; i < devices.size(); ++i) infos.push_back(describe(devices[i], static_cast<int>(i), s.api_version));
  if (devices.empty()) {
    throw GpuError("the Vulkan loader found no device (is a driver installed? Debian: mesa-vulkan-drivers)");
  }
  const size_t chosen = choose_device(infos, devices, options.device);
  s.physical_device = devices[chosen];
  s.info = infos[chosen];
  const int family = graphics_compute_family(s.physical_device);
  if (family < 0) {
    throw InputError("--device", "",
                     "device " + std::to_string(chosen) + " '" + s.info.name +
                         "' has no queue family with both graphics and compute; devices: " + device_list_text(infos));
  }
  s.queue_family = static_cast<uint32_t>(family);
  vkGetPhysicalDeviceProperties(s.physical_device, &s.properties);
  vkGetPhysicalDeviceMemoryProperties(s.physical_device, &s.memory);

  uint32_t family_count = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(s.physical_device, &family_count, nullptr);
  std::vector<VkQueueFamilyProperties> families(family_count);
  vkGetPhysicalDeviceQueueFamilyProperties(s.physical_device, &family_count, families.data());
  s.timestamps = s.properties.limits.timestampComputeAndGraphics == VK_TRUE &&
                 s.properties.limits.timestampPeriod > 0.0f && families[s.queue_family].timestampValidBits > 0;

  // One queue; no device extensions or optional features: the compute and graphics paths use Vulkan 1.1
  // core only (timestamps need no feature).
  const float priority = 1.0f;
  VkDeviceQueueCreateInfo queue_info{};
  queue_info.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
  queue_info.queueFamilyIndex = s.queue_family;
  queue_info.queueCount = 1;
  queue_info.pQueuePriorities = &priority;
  VkDeviceCreateInfo device_info{};
  device_info.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
  device_info.queueCreateInfoCount = 1;
  device_info.pQueueCreateInfos = &queue_info;
  VK_CHECK(vkCreateDevice(s.physical_device, &device_info, nullptr, &s.device));
  vkGetDeviceQueue(s.device, s.queue_family, 0, &s.queue);

  VkCommandPoolCreateInfo pool_info{};
  pool_info.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
  pool_info.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  pool_info.queueFamilyIndex = s.queue_family;
  VK_CHECK(vkCreateCommandPool(s.device, &pool_info, nullptr, &s.command_pool));
}

Context::~Context() = default;

VkInstance Context::instance() const { return state_->instance; }
VkPhysicalDevice Context::physical_device() const { return state_->physical_device; }
VkDevice Context::device() const { return state_->device; }
VkQueue Context::queue() const { return state_->queue; }
uint32_t Context::queue_family() const { return state_->queue_family; }
const DeviceInfo& Context::info() const { return state_->info; }
const VkPhysicalDeviceLimits& Context::limits() const { return state_->properties.limits; }
bool Context::timestamps_supported() const { return state_->timestamps; }
double Context::timestamp_period_ns() const { return state_->properties.limits.timestampPeriod; }

ValidationCounts Context::validation_counts() const {
  std::lock_guard<std::mutex> lock(state_->messages_mutex);
  return state_->counts;
}

std::vector<std::string> Context::validation_messages() const {
  std::lock_guard<std::mutex> lock(state_->messages_mutex);
  return state_->messages;
}

Buffer Context::create_buffer(VkDeviceSize size, VkBufferUsageFlags usage, bool host_visible) {
  State& s = *state_;
  // A zero-sized buffer is invalid usage; callers with nothing to store must not ask for one.
  if (size == 0) throw std::invalid_argument("Context::create_buffer: size 0");
  Buffer buffer;
  buffer.size = size;
  VkBufferCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
  info.size = size;
  info.usage = usage;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  VK_CHECK(vkCreateBuffer(s.device, &info, nullptr, &buffer.buffer));
  try {
    VkMemoryRequirements requirements{};
    vkGetBufferMemoryRequirements(s.device, buffer.buffer, &requirements);
    uint32_t type = 0;
    if (host_visible) {
      // Cached memory makes readback fast on discrete GPUs (uncached reads from write-combined memory are
      // slow); coherent memory needs no flushes. Either preference is dropped before giving up.
      type = s.find_memory_type(requirements.memoryTypeBits, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT,
                                {VK_MEMORY_PROPERTY_HOST_COHERENT_BIT | VK_MEMORY_PROPERTY_HOST_CACHED_BIT,
                                 VK_MEMORY_PROPERTY_HOST_COHERENT_BIT, VK_MEMORY_PROPERTY_HOST_CACHED_BIT, 0});
    } else {
      type = s.find_memory_type(requirements.memoryTypeBits, 0, {VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0});
    }
    buffer.memory = s.allocate(requirements, type);
    VK_CHECK(vkBindBufferMemory(s.device, buffer.buffer, buffer.memory, 0));
    if (host_visible) {
      buffer.coherent = (s.memory.memoryTypes[type].propertyFlags & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT) != 0;
      VK_CHECK(vkMapMemory(s.device, buffer.memory, 0, VK_WHOLE_SIZE, 0, &buffer.mapped));
    }
  } catch (...) {
    destroy(buffer);
    throw;
  }
  return buffer;
}

void Context::destroy(Buffer& buffer) {
  State& s = *state_;
  // Unmapping is implicit in vkFreeMemory.
  if (buffer.buffer != VK_NULL_HANDLE) vkDestroyBuffer(s.device, buffer.buffer, nullptr);
  if (buffer.memory != VK_NULL_HANDLE) vkFreeMemory(s.device, buffer.memory, nullptr);
  buffer = Buffer{};
}

namespace {

void check_host_range(const Buffer& buffer, VkDeviceSize size, VkDeviceSize offset, const char* what) {
  if (buffer.mapped == nullptr) {
    throw std::invalid_argument(std::string("Context::") + what + ": the buffer is not host-visible");
  }
  if (offset > buffer.size || size > buffer.size - offset) {
    throw std::invalid_argument(std::string("Context::") + what + ": bytes [" + std::to_string(offset) + ", " +
                                std::to_string(offset + size) + ") outside the buffer's " +
                                std::to_string(buffer.size));
  }
}

}  // namespace

void Context::write(const Buffer& buffer, const void* data, VkDeviceSize size, VkDeviceSize offset) {
  check_host_range(buffer, size, offset, "write");
  if (size == 0) return;
  std::memcpy(static_cast<unsigned char*>(buffer.mapped) + offset, data, size);
  if (!buffer.coherent) {
    const VkMappedMemoryRange range = state_->atom_range(buffer, offset, size);
    VK_CHECK(vkFlushMappedMemoryRanges(state_->device, 1, &range));
  }
}

void Context::read(const Buffer& buffer, void* data, VkDeviceSize size, VkDeviceSize offset) {
  check_host_range(buffer, size, offset, "read");
  if (size == 0) return;
  if (!buffer.coherent) {
    const VkMappedMemoryRange range = state_->atom_range(buffer, offset, size);
    VK_CHECK(vkInvalidateMappedMemoryRanges(state_->device, 1, &range));
  }
  std::memcpy(data, static_cast<const unsigned char*>(buffer.mapped) + offset, size);
}

Image2D Context::create_image(uint32_t width, uint32_t height, VkFormat format, VkImageUsageFlags usage) {
  State& s = *state_;
  // Callers check user-given sizes first (InputError); reaching here with a bad size is a programming error.
  if (width == 0 || height == 0 || width > s.properties.limits.maxImageDimension2D ||
      height > s.properties.limits.maxImageDimension2D) {
    throw std::invalid_argument("Context::create_image: " + std::to_string(width) + "x" + std::to_string(height) +
                                " outside 1.." + std::to_string(s.properties.limits.maxImageDimension2D));
  }
  // Asking first turns "format/usage not supported" into a clear error instead of invalid usage.
  VkImageFormatProperties supported{};
  const VkResult support = vkGetPhysicalDeviceImageFormatProperties(
      s.physical_device, format, VK_IMAGE_TYPE_2D, VK_IMAGE_TILING_OPTIMAL, usage, 0, &supported);
  if (support == VK_ERROR_FORMAT_NOT_SUPPORTED || (support == VK_SUCCESS && (width > supported.maxExtent.width ||
                                                                             height > supported.maxExtent.height))) {
    throw GpuError("image format " + std::to_string(static_cast<int>(format)) + " with usage " + hex(usage) +
                   " at " + std::to_string(width) + "x" + std::to_string(height) +
                   " is not supported by " + s.info.name);
  }
  VK_CHECK(support);

  Image2D image;
  image.format = format;
  image.width = width;
  image.height = height;
  VkImageCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO;
  info.imageType = VK_IMAGE_TYPE_2D;
  info.format = format;
  info.extent = {width, height, 1};
  info.mipLevels = 1;
  info.arrayLayers = 1;
  info.samples = VK_SAMPLE_COUNT_1_BIT;
  info.tiling = VK_IMAGE_TILING_OPTIMAL;
  info.usage = usage;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  info.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
  VK_CHECK(vkCreateImage(s.device, &info, nullptr, &image.image));
  try {
    VkMemoryRequirements requirements{};
    vkGetImageMemoryRequirements(s.device, image.image, &requirements);
    const uint32_t type =
        s.find_memory_type(requirements.memoryTypeBits, 0, {VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0});
    image.memory = s.allocate(requirements, type);
    VK_CHECK(vkBindImageMemory(s.device, image.image, image.memory, 0));

    VkImageViewCreateInfo view_info{};
    view_info.sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO;
    view_info.image = image.image;
    view_info.viewType = VK_IMAGE_VIEW_TYPE_2D;
    view_info.format = format;
    view_info.components = {VK_COMPONENT_SWIZZLE_IDENTITY, VK_COMPONENT_SWIZZLE_IDENTITY,
                            VK_COMPONENT_SWIZZLE_IDENTITY, VK_COMPONENT_SWIZZLE_IDENTITY};
    view_info.subresourceRange = {aspect_of(format), 0, 1, 0, 1};
    VK_CHECK(vkCreateImageView(s.device, &view_info, nullptr, &image.view));
  } catch (...) {
    destroy(image);
    throw;
  }
  return image;
}

void Context::destroy(Image2D& image) {
  State& s = *state_;
  if (image.view != VK_NULL_HANDLE) vkDestroyImageView(s.device, image.view, nullptr);
  if (image.image != VK_NULL_HANDLE) vkDestroyImage(s.device, image.image, nullptr);
  if (image.memory != VK_NULL_HANDLE) vkFreeMemory(s.device, image.memory, nullptr);
  image = Image2D{};
}

void Context::submit_and_wait(const std::function<void(VkCommandBuffer)>& record) {
  State& s = *state_;
  VkCommandBufferAllocateInfo allocate_info{};
  allocate_info.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
  allocate_info.commandPool = s.command_pool;
  allocate_info.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  allocate_info.commandBufferCount = 1;
  VkCommandBuffer commands = VK_NULL_HANDLE;
  VK_CHECK(vkAllocateCommandBuffers(s.device, &allocate_info, &commands));
  VkFence fence = VK_NULL_HANDLE;
  try {
    VkCommandBufferBeginInfo begin{};
    begin.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
    begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    VK_CHECK(vkBeginCommandBuffer(commands, &begin));
    record(commands);
    VK_CHECK(vkEndCommandBuffer(commands));
    VkFenceCreateInfo fence_info{};
    fence_info.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO;
    VK_CHECK(vkCreateFence(s.device, &fence_info, nullptr, &fence));
    VkSubmitInfo submit{};
    submit.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
    submit.commandBufferCount = 1;
    submit.pCommandBuffers = &commands;
    VK_CHECK(vkQueueSubmit(s.queue, 1, &submit, fence));
  } catch (...) {
    // Nothing was submitted: both can go now.
    if (fence != VK_NULL_HANDLE) vkDestroyFence(s.device, fence, nullptr);
    vkFreeCommandBuffers(s.device, s.command_pool, 1, &commands);
    throw;
  }
  const VkResult waited = vkWaitForFences(s.device, 1, &fence, VK_TRUE, kFenceTimeoutNs);
  if (waited != VK_SUCCESS) {
    // The submission may still be running: freeing its command buffer or fence now would be invalid. The
    // fence waits for teardown (after vkDeviceWaitIdle); the command buffer goes with the pool.
    s.abandoned_fences.push_back(fence);
    if (waited == VK_TIMEOUT) {
      throw GpuError("submit_and_wait: the device did not finish the submission within " +
                     std::to_string(kFenceTimeoutNs / 1000000000ull) + " s");
    }
    VK_CHECK(waited);
  }
  vkDestroyFence(s.device, fence, nullptr);
  vkFreeCommandBuffers(s.device, s.command_pool, 1, &commands);
}

VkShaderModule Context::create_shader(const uint32_t* words, size_t word_count) {
  VkShaderModuleCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO;
  info.codeSize = word_count * sizeof(uint32_t);
  info.pCode = words;
  VkShaderModule module = VK_NULL_HANDLE;
  VK_CHECK(vkCreateShaderModule(state_->device, &info, nullptr, &module));
  return module;
}

void memory_barrier(VkCommandBuffer commands, VkPipelineStageFlags src_stage, VkAccessFlags src,
                    VkPipelineStageFlags dst_stage, VkAccessFlags dst) {
  VkMemoryBarrier barrier{};
  barrier.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
  barrier.srcAccessMask = src;
  barrier.dstAccessMask = dst;
  vkCmdPipelineBarrier(commands, src_stage, dst_stage, 0, 1, &barrier, 0, nullptr, 0, nullptr);
}

VkBufferMemoryBarrier buffer_barrier(VkBuffer buffer, VkAccessFlags src, VkAccessFlags dst) {
  VkBufferMemoryBarrier barrier{};
  barrier.sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER;
  barrier.srcAccessMask = src;
  barrier.dstAccessMask = dst;
  barrier.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  barrier.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  barrier.buffer = buffer;
  barrier.offset = 0;
  barrier.size = VK_WHOLE_SIZE;
  return barrier;
}

}  // namespace skinref::gpu
