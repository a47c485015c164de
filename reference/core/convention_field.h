// One field of the engine conventions (core/conventions.h) as text: its NAME, its stage, its values and the
// functions that read and set it on a Conventions, with the values diagnose tries as conventions and those that
// are implementation mistakes (core/mistakes.h). Apart from conventions.h so that the helpers that build fields
// (core/enum_field.h) need not include it.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace skinref {

struct Conventions;

// One field of Conventions as text.
struct ConventionField {
  const char* name;       // "rotation"
  const char* stage;      // "sampling"
  const char* values;     // for messages and help: "slerp|nlerp|lerp"
  const char* summary;    // one line
  std::function<std::string(const Conventions&)> get;
  std::function<void(Conventions&, const std::string&)> set;  // throws std::invalid_argument
  std::vector<std::string> candidates;  // the non-default values diagnose tries as conventions
  std::vector<std::string> mistakes;    // the values that are implementation mistakes (core/mistakes.h)
};

}  // namespace skinref
