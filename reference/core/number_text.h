// number_text(value): a number for a report, in three significant digits ("%.3g": 0.000123 -> "0.000123",
// 1234567 -> "1.23e+06", infinity -> "inf"), the precision a bound or an error is read at.
#pragma once

#include <cstdio>
#include <string>

namespace skinref {

inline std::string number_text(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", value);
  return text;
}

}  // namespace skinref
