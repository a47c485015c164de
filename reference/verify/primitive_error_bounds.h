// Per-vertex error bounds of one drawn primitive: the output of both vertex bound models
// (vertex_error_bounds.h: skinref's order of operations; any_order_vertex_bounds.h: any correct float32 order).
// Each is a bound on the Euclidean norm of the difference of the attribute; normal and tangent are empty when
// the primitive has none.
#pragma once

#include <vector>

namespace skinref {

struct PrimitiveErrorBounds {
  std::vector<double> position;  // per vertex
  std::vector<double> normal;    // per vertex, or empty
  std::vector<double> tangent;   // per vertex, or empty
};

}  // namespace skinref
