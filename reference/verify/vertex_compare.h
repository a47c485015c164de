// Comparison of skinned vertices from a float32 run (the Vulkan path, or an engine's dump) with the
// reference's, against the per-vertex bounds of vertex_error_bounds.h.
//
// Contract:
// - compare_vertices(): `reference` and `test` must describe the same primitives (same count, node, mesh,
//   primitive, skinned flag, vertex count), else InputError naming the first mismatch (the CLI maps it to
//   exit 2). The test may lack normals or tangents the reference has (an engine that dumps positions only):
//   those are not compared, and counted in primitives_without_test_normals / _tangents; the reverse is a
//   mismatch. Tangent handedness (w) must be equal; a different sign
//   counts as over the bound.
// - The dumps must also be the model's: each primitive's node draws that mesh, the primitive exists, the
//   skinned flag and vertex count are the model's, and `bounds` has the same shape (else InputError).
// - Every position, normal and tangent difference (Euclidean norm; a tangent's includes w) is compared with
//   its bound (plus tol::kReferenceRelative of the reference value's magnitude). The result counts values
//   over their bound and without a bound, gives the distribution of error / bound (a histogram by decades
//   and the median of the values that differ at all; unbounded values are counted only in `unbounded`), and
//   the worst value (largest error / bound) with its primitive, vertex, attribute, error, bound, and the
//   vertex's joints (node indices, every influence slot as stored) and weights. A handedness mismatch, or a
//   NaN in the test, has the ratio infinity. `worst.attribute` is empty when every value is equal.
// - A test normal or tangent (xyz) whose length differs from 1 by more than tol::kUnnormalizedLength, where
//   the reference's is unit, is counted in `unnormalized` (with the largest |length - 1|) and not as over
//   its bound: the engine did not normalize it (the convention normalize=no), which says more than a
//   direction error would.
// - passed() is true when nothing is over its bound, nothing is unbounded and nothing is unnormalized.
#pragma once

#include "core/vertices.h"
#include "verify/vertex_error_bounds.h"

#include <array>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace skinref {

struct WorstVertex {
  size_t primitive_index = 0;   // in the lists compared
  int node = -1, mesh = -1, primitive = -1;
  size_t vertex = 0;
  std::string attribute;        // "position", "normal", "tangent"
  double error = 0.0;
  double bound = 0.0;
  std::vector<int> joint_nodes;  // the vertex's influences (node indices), empty for rigid nodes
  std::vector<double> weights;
};

struct VertexComparison {
  size_t values = 0;        // positions + normals + tangents compared
  size_t over = 0;          // over their bound
  size_t unbounded = 0;     // with an infinite bound
  size_t over_positions = 0, over_normals = 0, over_tangents = 0;  // `over`, by attribute
  size_t unnormalized = 0;                      // test normals and tangents that are not unit length
  double largest_length_error = 0.0;            // the largest |length - 1| among them
  size_t primitives_without_test_normals = 0;   // the reference has normals there, the test none
  size_t primitives_without_test_tangents = 0;
  double max_ratio = 0.0;   // largest error / bound
  double median_ratio = 0.0;  // over values with a non-zero error
  // Counts of error / bound in [0, 1e-4), [1e-4, 1e-3), [1e-3, 1e-2), [1e-2, 1e-1), [0.1, 1], (1, inf).
  std::array<size_t, 6> ratio_histogram{};
  WorstVertex worst;

  bool passed() const { return over == 0 && unbounded == 0 && unnormalized == 0; }
};

VertexComparison compare_vertices(const Scene& scene, const std::vector<WorldPrimitive>& reference,
                                  const std::vector<WorldPrimitive>& test,
                                  const std::vector<PrimitiveErrorBounds>& bounds);

// A few lines for a terminal, and a JSON object (for reports).
void print_vertex_comparison(const VertexComparison& comparison, std::ostream& out);
void write_vertex_comparison_json(const VertexComparison& comparison, std::ostream& out);

}  // namespace skinref
