// The JSON of a shader interface file (gpu/shader_interface.h, gpu/vertex_interface.h), read member by member:
// every key is checked, an unknown one refused, and each error an InputError naming the file, the JSON path
// and what was expected.
#pragma once

#include "core/enum_names.h"
#include "core/input_error.h"

#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <optional>
#include <set>
#include <string>

namespace skinref::gpu {

using Json = nlohmann::json;

// The file parsed as JSON (InputError when unreadable or not JSON).
Json read_interface_json(const std::string& path);

// The interface's "stage": "compute" (the default) or "vertex"; InputError for anything else.
std::string interface_stage(const std::string& path);

// Reads the JSON members of one object, refusing unknown keys so that a misspelt one is not silently ignored.
class ObjectReader {
 public:
  ObjectReader(const std::string& file, const Json& json, std::string path)
      : file_(file), json_(json), path_(std::move(path)) {
    if (!json_.is_object()) fail(path_, "a JSON object");
  }

  [[noreturn]] void fail(const std::string& at, const std::string& expected) const {
    throw InputError(file_, at.empty() ? "/" : at, expected);
  }
  std::string at(const char* key) const { return path_ + "/" + key; }
  const std::string& file() const { return file_; }

  const Json* find(const char* key) {
    seen_.insert(key);
    const auto it = json_.find(key);
    return it == json_.end() ? nullptr : &*it;
  }
  const Json& need(const char* key) {
    const Json* value = find(key);
    if (!value) fail(at(key), std::string("a \"") + key + "\" member");
    return *value;
  }
  std::string string(const char* key) {
    const Json& value = need(key);
    if (!value.is_string()) fail(at(key), "a string");
    return value.get<std::string>();
  }
  std::optional<std::string> optional_string(const char* key) {
    if (!find(key)) return std::nullopt;
    return string(key);
  }
  uint32_t count(const char* key, uint32_t lo, uint32_t hi) {
    const Json& value = need(key);
    if (!value.is_number_integer() || value.get<int64_t>() < lo || value.get<int64_t>() > hi)
      fail(at(key), "an integer from " + std::to_string(lo) + " to " + std::to_string(hi) + ", got " + value.dump());
    return static_cast<uint32_t>(value.get<int64_t>());
  }
  std::optional<uint32_t> optional_count(const char* key, uint32_t lo, uint32_t hi) {
    if (!find(key)) return std::nullopt;
    return count(key, lo, hi);
  }
  template <class Enum, size_t N>
  Enum choice(const char* key, const std::array<Enum, N>& values, const char* (*name_of)(Enum)) {
    const std::string text = string(key);
    if (const std::optional<Enum> value = parse_enum_name(text, values, name_of)) return *value;
    fail(at(key), "one of " + join_enum_names(values, name_of, ", ") + ", got \"" + text + "\"");
  }
  const Json& array(const char* key) {
    const Json& value = need(key);
    if (!value.is_array()) fail(at(key), "an array");
    return value;
  }
  void no_other_keys() const {
    for (auto it = json_.begin(); it != json_.end(); ++it)
      if (!seen_.count(it.key())) fail(at(it.key().c_str()), "no such key (misspelt?)");
  }

 private:
  const std::string& file_;
  const Json& json_;
  std::string path_;
  std::set<std::string> seen_;
};

}  // namespace skinref::gpu
