// The headless Vulkan context of context.h: instance (no window system), optional validation with a counting
// debug-utils messenger, device choice, one graphics+compute queue, a command pool, and the submission and
// shader helpers that the compute passes and the offscreen renderer share. Buffers and images are
// resources.cc's; the Context owns the device's ResourceAllocator (resources()).
#include "gpu/context.h"

#include "gpu/compute_pipelines.h"

#include "core/input_error.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <optional>

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

// Keeps the installed drivers loaded for the rest of the process: one bare instance (no layers, no
// extensions), created before the first instance anyone asks for and never destroyed. Without it the loader
// unloads the drivers when the last instance goes and loads them again for the next, and NVIDIA's driver
// (580.159 on an H200) then refused vkCreateInstance with VK_ERROR_INCOMPATIBLE_DRIVER from about the 30th
// cycle on: the GPU test suite and `golden check` (a context per case) failed from there. Never destroyed, so
// no destructor runs during exit() after the driver's own (the fault bench/bench_vulkan.h describes); the
// static handle keeps its memory reachable for the leak checker. A failure here is left to the real
// vkCreateInstance that follows, which reports it, and the next call tries again.
void keep_drivers_loaded(uint32_t api_version) {
  static std::mutex mutex;
  static VkInstance kept = VK_NULL_HANDLE;
  const std::lock_guard<std::mutex> lock(mutex);
  if (kept != VK_NULL_HANDLE) return;
  VkApplicationInfo app{};
  app.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
  app.pApplicationName = "skinref (keeps the drivers loaded)";
  app.apiVersion = api_version;
  VkInstanceCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
  info.pApplicationInfo = &app;
  if (vkCreateInstance(&info, nullptr, &kept) != VK_SUCCESS) kept = VK_NULL_HANDLE;
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
  keep_drivers_loaded(api_version);
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
  bool timestamps = false;
  bool transform_feedback = false;
  std::optional<ResourceAllocator> resources;  // made once the device exists
  std::optional<ComputePipelineCache> compute_pipelines;  // likewise; destroyed before the device
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

  // Context's construction, in order; each fills the members above that it names.
  void create_instance_and_messenger();
  void choose_physical_device(const std::string& wanted);
  void create_device();

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
    compute_pipelines.reset();
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

// The instance, and with validation the counting messenger (chained into the instance's creation too, so
// that vkCreateInstance and vkDestroyInstance report into it).
void Context::State::create_instance_and_messenger() {
  VkDebugUtilsMessengerCreateInfoEXT messenger_info{};
  messenger_info.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT;
  messenger_info.messageSeverity =
      VK_DEBUG_UTILS_MESSAGE_SEVERITY_VERBOSE_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_INFO_BIT_EXT |
      VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
  messenger_info.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                               VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                               VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
  messenger_info.pfnUserCallback = State::on_message;
  messenger_info.pUserData = this;

  if (validate) require_validation_layer();
  instance = create_instance(api_version, validate ? &messenger_info : nullptr);
  if (!validate) return;
  auto create = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
      vkGetInstanceProcAddr(instance, "vkCreateDebugUtilsMessengerEXT"));
  destroy_messenger = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
      vkGetInstanceProcAddr(instance, "vkDestroyDebugUtilsMessengerEXT"));
  if (create == nullptr || destroy_messenger == nullptr) {
    throw GpuError("vkCreateDebugUtilsMessengerEXT is not available although VK_EXT_debug_utils is enabled");
  }
  VK_CHECK(create(instance, &messenger_info, nullptr, &messenger));
}

// The physical device the options ask for, its graphics+compute queue family, properties and timestamps.
void Context::State::choose_physical_device(const std::string& wanted) {
  const std::vector<VkPhysicalDevice> devices = physical_devices(instance);
  std::vector<DeviceInfo> infos;
  for (size_t i = 0; i < devices.size(); ++i) infos.push_back(describe(devices[i], static_cast<int>(i), api_version));
  if (devices.empty()) {
    throw GpuError("the Vulkan loader found no device (is a driver installed? Debian: mesa-vulkan-drivers)");
  }
  const size_t chosen = choose_device(infos, devices, wanted);
  physical_device = devices[chosen];
  info = infos[chosen];
  const int family = graphics_compute_family(physical_device);
  if (family < 0) {
    throw InputError("--device", "",
                     "device " + std::to_string(chosen) + " '" + info.name +
                         "' has no queue family with both graphics and compute; devices: " + device_list_text(infos));
  }
  queue_family = static_cast<uint32_t>(family);
  vkGetPhysicalDeviceProperties(physical_device, &properties);

  uint32_t family_count = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(physical_device, &family_count, nullptr);
  std::vector<VkQueueFamilyProperties> families(family_count);
  vkGetPhysicalDeviceQueueFamilyProperties(physical_device, &family_count, families.data());
  timestamps = properties.limits.timestampComputeAndGraphics == VK_TRUE &&
               properties.limits.timestampPeriod > 0.0f && families[queue_family].timestampValidBits > 0;
}

// The logical device with its one queue, the device's resource allocator, and the command pool.
// Whether the device offers VK_EXT_transform_feedback with its transformFeedback feature.
static bool offers_transform_feedback(VkPhysicalDevice physical_device) {
  uint32_t count = 0;
  VK_CHECK(vkEnumerateDeviceExtensionProperties(physical_device, nullptr, &count, nullptr));
  std::vector<VkExtensionProperties> extensions(count);
  VK_CHECK(vkEnumerateDeviceExtensionProperties(physical_device, nullptr, &count, extensions.data()));
  const bool listed = std::any_of(extensions.begin(), extensions.end(), [](const VkExtensionProperties& e) {
    return std::strcmp(e.extensionName, VK_EXT_TRANSFORM_FEEDBACK_EXTENSION_NAME) == 0;
  });
  if (!listed) return false;
  VkPhysicalDeviceTransformFeedbackFeaturesEXT feedback{};
  feedback.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TRANSFORM_FEEDBACK_FEATURES_EXT;
  VkPhysicalDeviceFeatures2 features{};
  features.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
  features.pNext = &feedback;
  vkGetPhysicalDeviceFeatures2(physical_device, &features);
  return feedback.transformFeedback == VK_TRUE;
}

void Context::State::create_device() {
  // One queue; Vulkan 1.1 core for the compute and graphics paths (timestamps need no feature), and
  // VK_EXT_transform_feedback where offered: a user's vertex shader's outputs are captured with it
  // (gpu/user_vertex_skinning.h).
  const float priority = 1.0f;
  VkDeviceQueueCreateInfo queue_info{};
  queue_info.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
  queue_info.queueFamilyIndex = queue_family;
  queue_info.queueCount = 1;
  queue_info.pQueuePriorities = &priority;
  VkDeviceCreateInfo device_info{};
  device_info.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
  device_info.queueCreateInfoCount = 1;
  device_info.pQueueCreateInfos = &queue_info;
  transform_feedback = offers_transform_feedback(physical_device);
  const char* extension = VK_EXT_TRANSFORM_FEEDBACK_EXTENSION_NAME;
  VkPhysicalDeviceTransformFeedbackFeaturesEXT feedback{};
  feedback.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TRANSFORM_FEEDBACK_FEATURES_EXT;
  feedback.transformFeedback = VK_TRUE;
  if (transform_feedback) {
    device_info.enabledExtensionCount = 1;
    device_info.ppEnabledExtensionNames = &extension;
    device_info.pNext = &feedback;
  }
  VK_CHECK(vkCreateDevice(physical_device, &device_info, nullptr, &device));
  vkGetDeviceQueue(device, queue_family, 0, &queue);
  resources.emplace(physical_device, device, properties.limits, info.name);
  compute_pipelines.emplace(device);

  VkCommandPoolCreateInfo pool_info{};
  pool_info.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
  pool_info.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  pool_info.queueFamilyIndex = queue_family;
  VK_CHECK(vkCreateCommandPool(device, &pool_info, nullptr, &command_pool));
}

Context::Context(const ContextOptions& options) : state_(std::make_unique<State>()) {
  State& s = *state_;
  s.validate = options.validate;
  s.api_version = instance_api_version();
  s.create_instance_and_messenger();
  s.choose_physical_device(options.device);
  s.create_device();
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
bool Context::transform_feedback_supported() const { return state_->transform_feedback; }

uint64_t Context::timestamp_mask() const {
  uint32_t count = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(state_->physical_device, &count, nullptr);
  std::vector<VkQueueFamilyProperties> families(count);
  vkGetPhysicalDeviceQueueFamilyProperties(state_->physical_device, &count, families.data());
  const uint32_t bits = families.at(state_->queue_family).timestampValidBits;
  return bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
}
double Context::timestamp_period_ns() const { return state_->properties.limits.timestampPeriod; }

ValidationCounts Context::validation_counts() const {
  std::lock_guard<std::mutex> lock(state_->messages_mutex);
  return state_->counts;
}

std::vector<std::string> Context::validation_messages() const {
  std::lock_guard<std::mutex> lock(state_->messages_mutex);
  return state_->messages;
}

ResourceAllocator& Context::resources() { return *state_->resources; }

ComputePipelineCache& Context::compute_pipelines() { return *state_->compute_pipelines; }

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
  return create_shader_module(state_->device, std::span<const uint32_t>(words, word_count));
}

}  // namespace skinref::gpu
