// The three implementations behind make_backend() (backend.h), one file each. Internal to tools/backend.
#pragma once

#include <memory>

namespace skinref {

// backend.h (whose make_backend() calls these) defines both; declared here so that this header does not
// include it back.
class Backend;
struct BackendOptions;

std::unique_ptr<Backend> make_reference_backend();
std::unique_ptr<Backend> make_cpu_backend();
// Throws std::invalid_argument in a build without the Vulkan path.
std::unique_ptr<Backend> make_vulkan_backend(const BackendOptions& options);

}  // namespace skinref
