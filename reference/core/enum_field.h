// Internal to core/: a ConventionField (core/convention_field.h) whose value is one enum member, built from its
// spellings, for the conventions' fields (conventions.cc) and the mistakes' (mistake_fields.cc).
#pragma once

#include "core/convention_field.h"

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace skinref::convention_detail {

template <class Enum>
using Spellings = std::vector<std::pair<Enum, const char*>>;

// A field whose value is one enum member (`member` selects it), spelt as in `spellings` (the first spelling of
// each value is the canonical one; the default is the first entry).
template <class Enum, class Member>
inline ConventionField enum_field(const char* name, const char* stage, const char* values, const char* summary,
                           Member member, Spellings<Enum> spellings) {
  ConventionField field{name, stage, values, summary, nullptr, nullptr, {}, {}};
  field.get = [member, spellings](const Conventions& c) -> std::string {
    for (const auto& [value, text] : spellings)
      if (member(c) == value) return text;
    return "?";
  };
  field.set = [member, spellings, name, values](Conventions& c, const std::string& text) {
    for (const auto& [value, spelling] : spellings) {
      if (text == spelling) {
        member(c) = value;
        return;
      }
    }
    throw std::invalid_argument(std::string("convention ") + name + ": '" + text + "' is not one of " + values);
  };
  for (size_t i = 1; i < spellings.size(); ++i) {
    bool first_spelling = true;
    for (size_t j = 0; j < i; ++j) first_spelling &= spellings[j].first != spellings[i].first;
    if (first_spelling && spellings[i].first != spellings[0].first) field.candidates.push_back(spellings[i].second);
  }
  return field;
}

}  // namespace skinref::convention_detail
