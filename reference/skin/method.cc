#include "skin/method.h"

#include "core/enum_names.h"

#include <stdexcept>

namespace skinref {

const char* skinning_method_name(SkinningMethod method) {
  const char* name = skinning_method_descriptor(method).name;
  if (!name) throw std::invalid_argument("skinning_method_name: not a SkinningMethod");
  return name;
}

const char* skinning_method_summary(SkinningMethod method) {
  const char* summary = skinning_method_descriptor(method).summary;
  if (!summary) throw std::invalid_argument("skinning_method_summary: not a SkinningMethod");
  return summary;
}

std::optional<SkinningMethod> parse_skinning_method(std::string_view name) {
  return parse_enum_name(name, kSkinningMethods, skinning_method_name);
}

std::string skinning_method_choices(std::string_view separator) {
  return join_enum_names(kSkinningMethods, skinning_method_name, separator);
}

}  // namespace skinref
