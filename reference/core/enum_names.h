// One parse/print pair for a small enum whose every value has one name (the skinning method, the backend
// kind): the enum's list of values and its name function are the only table; parsing and the list of
// choices are derived from them, so a name is spelt in one place.
//
// Contract: parse_enum_name() returns the value whose name is exactly `name` (case-sensitive, no trimming),
// else nullopt; join_enum_names() gives the names in the list's order joined by `separator`.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace skinref {

template <class Enum, size_t N>
std::optional<Enum> parse_enum_name(std::string_view name, const std::array<Enum, N>& values,
                                    const char* (*name_of)(Enum)) {
  for (const Enum value : values) {
    if (name == name_of(value)) return value;
  }
  return std::nullopt;
}

template <class Enum, size_t N>
std::string join_enum_names(const std::array<Enum, N>& values, const char* (*name_of)(Enum),
                            std::string_view separator) {
  std::string names;
  for (const Enum value : values) {
    if (!names.empty()) names += separator;
    names += name_of(value);
  }
  return names;
}

}  // namespace skinref
