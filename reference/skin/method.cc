#include "skin/method.h"

#include "core/enum_names.h"

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
  return parse_enum_name(name, kSkinningMethods, skinning_method_name);
}

std::string skinning_method_choices(std::string_view separator) {
  return join_enum_names(kSkinningMethods, skinning_method_name, separator);
}

}  // namespace skinref
