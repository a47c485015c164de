// The skinning method: which stage turns bind-space vertices and a joint palette into world-space vertices.
// One enum, one table of names, one parse/print pair; everything that names, chooses or loops over methods
// (the CLI's --method, the golden manifest, the benchmarks' case names, reports) goes through here.
//
// Contract:
// - kSkinningMethods lists every method once, in the order reports and benchmarks use.
// - skinning_method_name(): the lower-case name used on the command line and in files ("lbs", "dqs").
// - parse_skinning_method(): the method of that exact name, or nullopt; skinning_method_choices() is the
//   names in kSkinningMethods order joined by `separator`, for usage and error messages.
//
// Adding a method (docs/architecture.md): its entry here and in method.cc, its reference stage
// file (skin/), its dispatch in skin/evaluate_vertices.cc, its kernel in each backend that supports it, and
// its float32 bounds (verify/vertex_error_bounds.cc).
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>

namespace skinref {

enum class SkinningMethod {
  Lbs,  // linear blend skinning (skin/lbs.h)
  Dqs,  // dual quaternion skinning with the scale/shear phase (skin/dqs.h)
};

inline constexpr std::array<SkinningMethod, 2> kSkinningMethods = {SkinningMethod::Lbs, SkinningMethod::Dqs};

const char* skinning_method_name(SkinningMethod method);
// What it is, in a few words, for usage texts ("linear blend skinning").
const char* skinning_method_summary(SkinningMethod method);
std::optional<SkinningMethod> parse_skinning_method(std::string_view name);
std::string skinning_method_choices(std::string_view separator = "|");

}  // namespace skinref
