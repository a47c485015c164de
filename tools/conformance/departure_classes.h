// The departure classes a conformance case targets (conformance_case.h's DepartureTarget::departure), each
// with its short name; docs/departure-classes.md explains each at length under the anchor of its lower-case code.
//
// Contract:
// - departure_classes(): every class, in the page's order (L, T, S, M, P, G, K, N, R families).
// - departure_class_title(code): the short name of "S2", "" for a code that is not a class.
// - class_codes_in(departure): the class codes a verdict's departure text names before its conventions ("S2" in
//   "S2: rotation=nlerp", "P1" and "N1" in "P1, N1: ..."), in order; empty for "another time: ..." and the like.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace skinref::conformance {

const std::vector<std::pair<std::string, std::string>>& departure_classes();

std::string departure_class_title(const std::string& code);

std::vector<std::string> class_codes_in(const std::string& departure);

}  // namespace skinref::conformance
