// The case lists of the suite, one per part of the specification; conformance_cases() (conformance_case.h)
// joins them in this order. Internal to the conformance layer.
#pragma once

#include "conformance/conformance_case.h"

#include <vector>

namespace skinref::conformance {

void add_accessor_cases(std::vector<ConformanceCase>& cases);   // 3.6.2 Accessors: sparse, byteOffset, byteStride
void add_skin_cases(std::vector<ConformanceCase>& cases);       // 3.7.3 Skins, 3.5 node hierarchy
void add_hierarchy_cases(std::vector<ConformanceCase>& cases);  // 3.5.3 Transformations, animated hierarchies
void add_influence_cases(std::vector<ConformanceCase>& cases);  // 3.7.3.3 Skinned Mesh Attributes
void add_morph_cases(std::vector<ConformanceCase>& cases);      // 3.7.2.2 Morph Targets
void add_animation_cases(std::vector<ConformanceCase>& cases);  // 3.11 Animations, Appendix C

}  // namespace skinref::conformance
