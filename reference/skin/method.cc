#include "skin/method.h"

#include <stdexcept>

namespace skinref {

const char* skinning_method_name(SkinningMethod method) {
  switch (method) {
    case SkinningMethod::Lbs: return "lbs";
    case SkinningMethod::Dqs: return "dqs";
  }
  throw std::invalid_argument("skinning_method_name: not a SkinningMethod");
}

const char* skinning_method_summary(SkinningMethod method) {
  switch (method) {
    case SkinningMethod::Lbs: return "linear blend skinning";
    case SkinningMethod::Dqs: return "dual quaternion skinning";
  }
  throw std::invalid_argument("skinning_method_summary: not a SkinningMethod");
}

std::optional<SkinningMethod> parse_skinning_method(std::string_view name) {
  for (const SkinningMethod method : kSkinningMethods) {
    if (name == skinning_method_name(method)) return method;
  }
  return std::nullopt;
}

std::string skinning_method_choices(std::string_view separator) {
  std::string choices;
  for (const SkinningMethod method : kSkinningMethods) {
    if (!choices.empty()) choices += separator;
    choices += skinning_method_name(method);
  }
  return choices;
}

}  // namespace skinref
