#include "verify/vertex_compare.h"

#include "core/input_error.h"
#include "core/number_text.h"
#include "verify/float_model.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace skinref {
namespace {

constexpr double kInfinityBound = std::numeric_limits<double>::infinity();

// The upper ends of the histogram's bins but the last, (1, inf).
constexpr double kBinEdges[] = {1e-4, 1e-3, 1e-2, 1e-1};
const char* const kBinNames[] = {"[0, 1e-4)", "[1e-4, 1e-3)", "[1e-3, 1e-2)", "[1e-2, 0.1)", "[0.1, 1]", "(1, inf)"};

size_t histogram_bin(double ratio) {
  if (!(ratio <= 1.0)) return 5;  // NaN included
  for (size_t b = 0; b < 4; ++b)
    if (ratio < kBinEdges[b]) return b;
  return 4;
}

std::string where(const WorstVertex& w) {
  return "primitive " + std::to_string(w.primitive_index) + " (node " + std::to_string(w.node) + ", mesh " +
         std::to_string(w.mesh) + ", primitive " + std::to_string(w.primitive) + ")";
}

// The first difference in structure between the reference, the test and the model's bounds, or "".
std::string structure_mismatch(const Scene& scene, const std::vector<WorldPrimitive>& reference,
                               const std::vector<WorldPrimitive>& test,
                               const std::vector<PrimitiveErrorBounds>& bounds) {
  auto count = [](size_t n) { return std::to_string(n); };
  if (reference.size() != test.size())
    return count(reference.size()) + " primitives in the reference, " + count(test.size()) + " in the test";
  if (bounds.size() != reference.size())
    return count(reference.size()) + " primitives in the reference, " + count(bounds.size()) + " drawn by the model";
  for (size_t i = 0; i < reference.size(); ++i) {
    const WorldPrimitive& r = reference[i];
    const WorldPrimitive& t = test[i];
    const std::string at = "primitive " + std::to_string(i) + ": ";
    auto differ = [&](const std::string& what, const std::string& in_reference, const std::string& in_test) {
      return at + what + " " + in_reference + " in the reference, " + in_test + " in the test";
    };
    if (r.node != t.node) return differ("node", std::to_string(r.node), std::to_string(t.node));
    if (r.mesh != t.mesh) return differ("mesh", std::to_string(r.mesh), std::to_string(t.mesh));
    if (r.primitive != t.primitive)
      return differ("primitive index", std::to_string(r.primitive), std::to_string(t.primitive));
    if (r.skinned != t.skinned) return differ("skinned", r.skinned ? "true" : "false", t.skinned ? "true" : "false");
    const SkinnedVertices& rv = r.vertices;
    const SkinnedVertices& tv = t.vertices;
    if (rv.positions.size() != tv.positions.size())
      return differ("vertex count", count(rv.positions.size()), count(tv.positions.size()));
    // A test may leave out normals or tangents (many engines dump positions only), not add them.
    if (rv.normals.empty() && !tv.normals.empty()) return differ("normals", "absent", "present");
    if (rv.tangents.empty() && !tv.tangents.empty()) return differ("tangents", "absent", "present");
    if ((!rv.normals.empty() && rv.normals.size() != rv.positions.size()) ||
        (!tv.normals.empty() && tv.normals.size() != tv.positions.size()) ||
        (!rv.tangents.empty() && rv.tangents.size() != rv.positions.size()) ||
        (!tv.tangents.empty() && tv.tangents.size() != tv.positions.size()))
      return at + "normal or tangent count differs from the vertex count";
    // The model: the same node, mesh and primitive, and bounds for every value.
    const std::string model = at + "the model ";
    if (r.node < 0 || size_t(r.node) >= scene.nodes.size()) return model + "has no node " + std::to_string(r.node);
    const Node& node = scene.nodes[size_t(r.node)];
    if (node.mesh != r.mesh)
      return model + "draws mesh " + std::to_string(node.mesh) + " at node " + std::to_string(r.node) +
             ", the dumps mesh " + std::to_string(r.mesh);
    const Mesh& mesh = scene.meshes[size_t(node.mesh)];
    if (r.primitive < 0 || size_t(r.primitive) >= mesh.primitives.size())
      return model + "has no primitive " + std::to_string(r.primitive) + " in mesh " + std::to_string(r.mesh);
    if ((node.skin >= 0) != r.skinned)
      return model + (node.skin >= 0 ? "skins" : "does not skin") + " node " + std::to_string(r.node);
    const PrimitiveErrorBounds& b = bounds[i];
    const size_t n = rv.positions.size();
    if (mesh.primitives[size_t(r.primitive)].vertex_count() != n || b.position.size() != n)
      return model + "has " + count(mesh.primitives[size_t(r.primitive)].vertex_count()) +
             " vertices there, the dumps " + count(n);
    if (b.normal.size() != rv.normals.size())
      return model + (b.normal.empty() ? "has no normals there" : "has normals there, the dumps none");
    if (b.tangent.size() != rv.tangents.size())
      return model + (b.tangent.empty() ? "has no tangents there" : "has tangents there, the dumps none");
  }
  return "";
}

struct Accumulator {
  VertexComparison& c;
  std::vector<double>& ratios;  // of the bounded values with a non-zero error
  double worst_ratio = -1.0;

  // Returns true when this value became the worst.
  bool add(double error, double bound, double reference_magnitude, bool forced_over) {
    ++c.values;
    if (std::isinf(bound)) {
      ++c.unbounded;
      return false;
    }
    const double allowed = bound + tol::kReferenceRelative * reference_magnitude;
    double ratio = error == 0.0 ? 0.0 : error / allowed;  // error / 0 = inf; NaN stays NaN
    if (forced_over || std::isnan(ratio)) ratio = kInfinityBound;
    if (forced_over || !(error <= allowed)) ++c.over;
    ++c.ratio_histogram[histogram_bin(ratio)];
    if (error != 0.0 || forced_over) ratios.push_back(ratio);
    c.max_ratio = std::max(c.max_ratio, ratio);
    if (ratio > worst_ratio && (error != 0.0 || forced_over)) {
      worst_ratio = ratio;
      return true;
    }
    return false;
  }
};

}  // namespace

VertexComparison compare_vertices(const Scene& scene, const std::vector<WorldPrimitive>& reference,
                                  const std::vector<WorldPrimitive>& test,
                                  const std::vector<PrimitiveErrorBounds>& bounds) {
  const std::string mismatch = structure_mismatch(scene, reference, test, bounds);
  if (!mismatch.empty()) throw InputError("", "", mismatch);

  VertexComparison result;
  std::vector<double> ratios;
  Accumulator acc{result, ratios};
  auto set_worst = [&](size_t i, size_t v, const char* attribute, double error, double bound) {
    const WorldPrimitive& p = reference[i];
    WorstVertex& w = result.worst;
    w.primitive_index = i;
    w.node = p.node;
    w.mesh = p.mesh;
    w.primitive = p.primitive;
    w.vertex = v;
    w.attribute = attribute;
    w.error = error;
    w.bound = bound;
    w.joint_nodes.clear();
    w.weights.clear();
    const Node& node = scene.nodes[size_t(p.node)];
    if (node.skin >= 0) {
      const Primitive& prim = scene.meshes[size_t(node.mesh)].primitives[size_t(p.primitive)];
      const Skin& skin = scene.skins[size_t(node.skin)];
      const size_t k = size_t(prim.influences_per_vertex);
      for (size_t slot = 0; slot < k && (v + 1) * k <= prim.joints.size(); ++slot) {
        const uint32_t joint = prim.joints[v * k + slot];
        w.joint_nodes.push_back(joint < skin.joints.size() ? skin.joints[joint] : -1);
        w.weights.push_back(prim.weights[v * k + slot]);
      }
    }
  };

  for (size_t i = 0; i < reference.size(); ++i) {
    const SkinnedVertices& r = reference[i].vertices;
    const SkinnedVertices& t = test[i].vertices;
    const PrimitiveErrorBounds& b = bounds[i];
    const size_t over_before_positions = result.over;
    for (size_t v = 0; v < r.positions.size(); ++v) {
      const double error = (t.positions[v] - r.positions[v]).norm();
      if (acc.add(error, b.position[v], r.positions[v].norm(), false))
        set_worst(i, v, "position", error, b.position[v]);
    }
    const size_t over_before_normals = result.over;
    // A test vector that is not unit where the reference's is: reported as such, not as a direction error.
    auto unnormalized = [&](const Vec3& test, const Vec3& reference) {
      const double length_error = std::abs(test.norm() - 1.0);
      if (std::abs(reference.norm() - 1.0) > tol::kUnnormalizedLength || !(length_error > tol::kUnnormalizedLength))
        return false;
      ++result.unnormalized;
      result.largest_length_error = std::max(result.largest_length_error, length_error);
      return true;
    };
    for (size_t v = 0; v < t.normals.size(); ++v) {
      if (unnormalized(t.normals[v], r.normals[v])) continue;
      const double error = (t.normals[v] - r.normals[v]).norm();
      if (acc.add(error, b.normal[v], r.normals[v].norm(), false)) set_worst(i, v, "normal", error, b.normal[v]);
    }
    const size_t over_before_tangents = result.over;
    result.over_positions += over_before_normals - over_before_positions;
    result.over_normals += over_before_tangents - over_before_normals;
    if (!r.normals.empty() && t.normals.empty()) ++result.primitives_without_test_normals;
    if (!r.tangents.empty() && t.tangents.empty()) ++result.primitives_without_test_tangents;
    for (size_t v = 0; v < t.tangents.size(); ++v) {
      if (unnormalized(t.tangents[v].head<3>(), r.tangents[v].head<3>())) continue;
      // The handedness is copied, never computed: any difference in w is over the bound.
      const bool handedness_differs = t.tangents[v].w() != r.tangents[v].w();
      const double error = (t.tangents[v] - r.tangents[v]).norm();
      if (acc.add(error, b.tangent[v], r.tangents[v].head<3>().norm(), handedness_differs))
        set_worst(i, v, "tangent", error, b.tangent[v]);
    }
    result.over_tangents += result.over - over_before_tangents;
  }
  if (!ratios.empty()) {
    const auto middle = ratios.begin() + std::ptrdiff_t(ratios.size() / 2);
    std::nth_element(ratios.begin(), middle, ratios.end());
    result.median_ratio = *middle;
  }
  return result;
}

namespace {

}  // namespace

void print_vertex_comparison(const VertexComparison& c, std::ostream& out) {
  out << "vertices: " << c.values << " values (positions, normals, tangents), " << c.over << " over their bound, "
      << c.unbounded << " without a bound\n";
  out << "  over by attribute: positions " << c.over_positions << ", normals " << c.over_normals << ", tangents "
      << c.over_tangents << "\n";
  if (c.unnormalized > 0)
    out << "  not unit length: " << c.unnormalized << " normals and tangents of the test (|length - 1| up to "
        << number_text(c.largest_length_error) << "): the engine does not normalize them (convention normalize=no)\n";
  if (c.primitives_without_test_normals + c.primitives_without_test_tangents > 0)
    out << "  not compared: the test has no normals in " << c.primitives_without_test_normals
        << " primitive(s) and no tangents in " << c.primitives_without_test_tangents << " that have them\n";
  out << "  error/bound: max " << number_text(c.max_ratio) << ", median " << number_text(c.median_ratio)
      << " (of the values that differ)\n";
  out << "  histogram of error/bound:";
  for (size_t b = 0; b < c.ratio_histogram.size(); ++b)
    out << (b ? ", " : " ") << kBinNames[b] << " " << c.ratio_histogram[b];
  out << "\n";
  const WorstVertex& w = c.worst;
  if (w.attribute.empty()) {
    out << "  worst: none (every value equals the reference's)\n";
  } else {
    out << "  worst: " << w.attribute << " of vertex " << w.vertex << " in " << where(w) << ": error "
        << number_text(w.error) << ", bound " << number_text(w.bound);
    if (w.joint_nodes.empty()) {
      out << ", a rigid node\n";
    } else {
      out << "\n         joints (nodes)";
      for (int j : w.joint_nodes) out << " " << j;
      out << ", weights";
      for (double weight : w.weights) out << " " << weight;
      out << "\n";
    }
  }
  out << (c.passed() ? "PASS" : "FAIL") << ": " << c.over << " over, " << c.unbounded << " unbounded";
  if (c.unnormalized > 0) out << ", " << c.unnormalized << " not unit length";
  out << " of " << c.values << " values\n";
}

void write_vertex_comparison_json(const VertexComparison& c, std::ostream& out) {
  // JSON has no infinity: null stands for an infinite ratio (a handedness mismatch, a NaN in the test).
  auto finite_or_null = [](double value) {
    return std::isfinite(value) ? nlohmann::ordered_json(value) : nlohmann::ordered_json(nullptr);
  };
  nlohmann::ordered_json json;
  json["format"] = "skinref-vertex-comparison";
  json["version"] = 1;
  json["values"] = c.values;
  json["over"] = c.over;
  json["unbounded"] = c.unbounded;
  json["over_by_attribute"] = {{"positions", c.over_positions}, {"normals", c.over_normals},
                               {"tangents", c.over_tangents}};
  json["unnormalized"] = c.unnormalized;
  json["largest_length_error"] = c.largest_length_error;
  json["primitives_without_test_normals"] = c.primitives_without_test_normals;
  json["primitives_without_test_tangents"] = c.primitives_without_test_tangents;
  json["max_ratio"] = finite_or_null(c.max_ratio);
  json["median_ratio"] = finite_or_null(c.median_ratio);
  nlohmann::ordered_json bins = nlohmann::ordered_json::array();
  for (size_t b = 0; b < c.ratio_histogram.size(); ++b)
    bins.push_back({{"bin", kBinNames[b]}, {"count", c.ratio_histogram[b]}});
  json["ratio_histogram"] = bins;
  const WorstVertex& w = c.worst;
  if (w.attribute.empty()) {
    json["worst"] = nullptr;
  } else {
    nlohmann::ordered_json worst;
    worst["primitive_index"] = w.primitive_index;
    worst["node"] = w.node;
    worst["mesh"] = w.mesh;
    worst["primitive"] = w.primitive;
    worst["vertex"] = w.vertex;
    worst["attribute"] = w.attribute;
    worst["error"] = finite_or_null(w.error);
    worst["bound"] = finite_or_null(w.bound);
    worst["joint_nodes"] = w.joint_nodes;
    worst["weights"] = w.weights;
    json["worst"] = worst;
  }
  json["pass"] = c.passed();
  out << json.dump(2) << "\n";
}

}  // namespace skinref
