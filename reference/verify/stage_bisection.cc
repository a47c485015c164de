#include "verify/stage_bisection.h"

#include "core/input_error.h"
#include "verify/float_model.h"

#include <cmath>
#include <string>

namespace skinref {
namespace {

// The values of one stage, compared one by one; keeps the worst (largest error / bound). `exact`: a value is
// over when it differs at all, and the worst is the first that differs.
struct StageScan {
  explicit StageScan(bool exact_bits) : exact(exact_bits) {}

  bool exact = false;
  size_t over = 0;
  size_t checked = 0;
  double worst_ratio = -1.0;
  StageDivergence worst;

  // `locate` fills the location fields of `worst` only when this value becomes the worst one.
  template <typename Locate>
  void add(double test, double reference, double bound, Locate&& locate) {
    ++checked;
    const double error = std::abs(test - reference);
    if (exact) {
      if (test == reference) return;  // as numbers: a JSON dump reads -0 back as 0
      if (over++ == 0) {
        worst = StageDivergence{};
        worst.error = error;
        locate(worst);
      }
      return;
    }
    const bool ok = within_bound(test, reference, bound);
    if (!ok) ++over;
    const double allowed = bound + tol::kReferenceRelative * std::abs(reference);
    // Values over their bound rank above all within it; among them, by error / bound.
    const double ratio = allowed > 0.0 ? error / allowed : (error > 0.0 ? INFINITY : 0.0);
    const double rank = ok ? ratio : 1.0 + ratio;
    if (rank > worst_ratio) {
      worst_ratio = rank;
      worst = StageDivergence{};
      worst.error = error;
      worst.bound = bound;
      locate(worst);
    }
  }
};

std::string node_label(const Scene& scene, int node) {
  const std::string& name = scene.nodes[size_t(node)].name;
  return "node " + std::to_string(node) + (name.empty() ? std::string() : " '" + name + "'");
}

const char* kTrsComponent[10] = {"translation.x", "translation.y", "translation.z", "rotation.x", "rotation.y",
                                 "rotation.z",    "rotation.w",    "scale.x",       "scale.y",    "scale.z"};

std::string matrix_entry(int column_major_index, int rows) {
  return "(" + std::to_string(column_major_index % rows) + "," + std::to_string(column_major_index / rows) + ")";
}

void require(bool condition, const Scene& scene, const std::string& what) {
  if (!condition) throw InputError(scene.source, "", "stage bisection: the two runs differ in structure: " + what);
}

double trs_value(const Transform& trs, int i) {
  if (i < 3) return trs.translation[i];
  if (i == 3) return trs.rotation.x();
  if (i == 4) return trs.rotation.y();
  if (i == 5) return trs.rotation.z();
  if (i == 6) return trs.rotation.w();
  return trs.scale[i - 7];
}

}  // namespace

const char* pipeline_stage_name(PipelineStage stage) {
  switch (stage) {
    case PipelineStage::TimeMapping: return "time-mapping";
    case PipelineStage::Sampling: return "sampling";
    case PipelineStage::Blend: return "blend";
    case PipelineStage::LocalToModel: return "local-to-model";
    case PipelineStage::Ik: return "ik";
    case PipelineStage::Palette: return "palette";
    case PipelineStage::Morph: return "morph";
    case PipelineStage::Skinning: return "skinning";
    case PipelineStage::None: return "none";
  }
  return "none";
}

namespace {

// What every pose stage reads: the two poses, their bounds (null when comparing bits) and the mode.
struct PoseStageInputs {
  const Scene& scene;
  const EvaluatedPose& reference_pose;
  const EvaluatedPose& test_pose;
  const PoseErrorBounds* pose_bounds;
  bool exact = false;

  // A value's bound (0 when comparing bits).
  template <typename Get>
  auto bound_of(Get&& get) const {
    return exact ? 0.0 : get();
  }
};

// Time mapping step: the clip time, where both poses record it (the caller checks that).
StageScan scan_time_mapping(const PoseStageInputs& in) {
  StageScan time_mapping{in.exact};
  const double bound = tol::kTimeMappingUlps * tol::kFloatUlp *
                       (std::abs(in.reference_pose.time) + std::abs(in.reference_pose.clip_time));
  time_mapping.add(in.test_pose.clip_time, in.reference_pose.clip_time, bound, [&](StageDivergence& d) {
    d.location = "clip time (playback time " + std::to_string(in.reference_pose.time) + " s)";
  });
  return time_mapping;
}

// Per node, whether IK changed it and whether it lies in an IK node's subtree (its global is IK's).
struct IkNodeFlags {
  std::vector<char> ik_node, ik_subtree;
};

// IK flags step: a recipe's IK nodes and the subtrees below them, or none for a clip (null recipe).
IkNodeFlags ik_node_flags(const Scene& scene, const RecipeStages* recipe) {
  const size_t node_count = scene.nodes.size();
  IkNodeFlags flags{std::vector<char>(node_count, 0), std::vector<char>(node_count, 0)};
  if (recipe) {
    require(recipe->ik_nodes.size() == node_count, scene, "IK node flags");
    for (int n : scene.node_order) {
      flags.ik_node[size_t(n)] = recipe->ik_nodes[size_t(n)];
      const int parent = scene.nodes[size_t(n)].parent;
      flags.ik_subtree[size_t(n)] = flags.ik_node[size_t(n)] || (parent >= 0 && flags.ik_subtree[size_t(parent)]);
    }
  }
  return flags;
}

// Local TRS step: adds the local TRS of the nodes whose IK flag is `ik` to `scan`.
void scan_locals(const PoseStageInputs& in, const std::vector<char>& ik_node, StageScan& scan, bool ik) {
  const size_t node_count = in.scene.nodes.size();
  for (size_t n = 0; n < node_count; ++n) {
    if (bool(ik_node[n]) != ik) continue;
    // q and -q are one rotation: an engine's quaternion is compared in the reference's hemisphere (a short
    // path taken from the other key, or a key stored negated, is not a defect). Bits are compared as they
    // are.
    Transform test_local = in.test_pose.local.local[n];
    if (!in.exact && test_local.rotation.coeffs().dot(in.reference_pose.local.local[n].rotation.coeffs()) < 0.0)
      test_local.rotation.coeffs() = -test_local.rotation.coeffs();
    for (int i = 0; i < 10; ++i)
      scan.add(trs_value(test_local, i), trs_value(in.reference_pose.local.local[n], i),
               in.bound_of([&] { return in.pose_bounds->local[n][size_t(i)]; }), [&](StageDivergence& d) {
                 d.node = int(n);
                 d.location = node_label(in.scene, int(n)) + " " + kTrsComponent[i];
               });
  }
}

// Global matrix step: adds the globals of the nodes whose IK-subtree flag is `ik` to `scan`.
void scan_globals(const PoseStageInputs& in, const std::vector<char>& ik_subtree, StageScan& scan, bool ik) {
  const size_t node_count = in.scene.nodes.size();
  for (size_t n = 0; n < node_count; ++n) {
    if (bool(ik_subtree[n]) != ik) continue;
    for (int i = 0; i < 16; ++i)
      scan.add(in.test_pose.model.global[n].data()[i], in.reference_pose.model.global[n].data()[i],
               in.bound_of([&] { return in.pose_bounds->global[n][size_t(i)]; }), [&](StageDivergence& d) {
                 d.node = int(n);
                 d.location = node_label(in.scene, int(n)) + " global " + matrix_entry(i, 4);
               });
  }
}

// Palette step: every skin joint's JM and normal matrix.
StageScan scan_palettes(const PoseStageInputs& in) {
  const Scene& scene = in.scene;
  require(in.test_pose.palettes.size() == scene.skins.size() && in.reference_pose.palettes.size() == scene.skins.size(),
          scene, "skin counts");
  StageScan palettes{in.exact};
  for (size_t s = 0; s < scene.skins.size(); ++s) {
    const JointPalette& test = in.test_pose.palettes[s];
    const JointPalette& ref = in.reference_pose.palettes[s];
    require(test.skinning.size() == ref.skinning.size() && test.normal.size() == ref.normal.size(), scene,
            "joint counts of skin " + std::to_string(s));
    for (size_t j = 0; j < ref.skinning.size(); ++j) {
      const int node = scene.skins[s].joints[j];
      auto locate = [&](const char* what, int i, int rows) {
        return [&, what, i, rows](StageDivergence& d) {
          d.node = node;
          d.skin = int(s);
          d.joint = int(j);
          d.location = "skin " + std::to_string(s) + " joint " + std::to_string(j) + " (" + node_label(scene, node) +
                       ") " + what + " " + matrix_entry(i, rows);
        };
      };
      for (int i = 0; i < 16; ++i)
        palettes.add(test.skinning[j].data()[i], ref.skinning[j].data()[i],
                     in.bound_of([&] { return in.pose_bounds->palettes[s].skinning[j][size_t(i)]; }),
                     locate("palette", i, 4));
      for (int i = 0; i < 9; ++i)
        palettes.add(test.normal[j].data()[i], ref.normal[j].data()[i],
                     in.bound_of([&] { return in.pose_bounds->palettes[s].normal[j][size_t(i)]; }),
                     locate("normal matrix", i, 3));
    }
  }
  return palettes;
}

// Morph step: the weights of every node's targets, which the skinning's input depends on.
StageScan scan_morph(const PoseStageInputs& in) {
  StageScan morph{in.exact};
  const size_t node_count = in.scene.nodes.size();
  for (size_t n = 0; n < node_count; ++n) {
    const std::vector<double>& test_weights = in.test_pose.local.morph_weights[n];
    const std::vector<double>& ref_weights = in.reference_pose.local.morph_weights[n];
    require(test_weights.size() == ref_weights.size(), in.scene, "morph weight counts of node " + std::to_string(n));
    for (size_t i = 0; i < ref_weights.size(); ++i)
      morph.add(test_weights[i], ref_weights[i], in.bound_of([&] { return in.pose_bounds->morph_weights[n][i]; }),
                [&](StageDivergence& d) {
                  d.node = int(n);
                  d.location = node_label(in.scene, int(n)) + " morph weight " + std::to_string(i);
                });
  }
  return morph;
}

// Skinning step: per vertex, the Euclidean norm of each attribute's difference against its bound; bit by bit
// per component when exact (`vertex_bounds` null).
StageScan scan_skinning(const Scene& scene, const std::vector<WorldPrimitive>& reference_vertices,
                        const std::vector<WorldPrimitive>& test_vertices,
                        const std::vector<PrimitiveErrorBounds>* vertex_bounds, bool exact) {
  require(test_vertices.size() == reference_vertices.size() &&
              (exact || vertex_bounds->size() == reference_vertices.size()),
          scene, "primitive counts");
  StageScan skinning{exact};
  for (size_t p = 0; p < reference_vertices.size(); ++p) {
    const SkinnedVertices& test = test_vertices[p].vertices;
    const SkinnedVertices& ref = reference_vertices[p].vertices;
    // Within bounds, a test without normals or tangents is compared on what it has (as compare_vertices does).
    const bool test_normals = !test.normals.empty() || exact, test_tangents = !test.tangents.empty() || exact;
    require(test.positions.size() == ref.positions.size() &&
                (!test_normals || test.normals.size() == ref.normals.size()) &&
                (!test_tangents || test.tangents.size() == ref.tangents.size()) &&
                (exact || (*vertex_bounds)[p].position.size() == ref.positions.size()),
            scene, "vertex counts of primitive " + std::to_string(p));
    auto locate = [&](size_t v, std::string attribute) {
      return [&, v, attribute](StageDivergence& d) {
        d.primitive_index = int(p);
        d.vertex = (long long)v;
        d.node = reference_vertices[p].node;
        d.location = "primitive " + std::to_string(p) + " (node " + std::to_string(reference_vertices[p].node) +
                     ", mesh " + std::to_string(reference_vertices[p].mesh) + " primitive " +
                     std::to_string(reference_vertices[p].primitive) + ") vertex " + std::to_string(v) + " " + attribute;
      };
    };
    if (exact) {
      static const char* kAxis[4] = {".x", ".y", ".z", ".w"};
      auto add_components = [&](const auto& tests, const auto& refs, int n, const char* attribute) {
        for (size_t v = 0; v < refs.size(); ++v)
          for (int i = 0; i < n; ++i)
            skinning.add(tests[v][i], refs[v][i], 0.0, locate(v, std::string(attribute) + kAxis[i]));
      };
      add_components(test.positions, ref.positions, 3, "position");
      add_components(test.normals, ref.normals, 3, "normal");
      add_components(test.tangents, ref.tangents, 4, "tangent");
      continue;
    }
    const PrimitiveErrorBounds& bounds = (*vertex_bounds)[p];
    // The norm of the difference is compared as a value against 0 with the reference's magnitude folded into
    // the bound, so that within_bound()'s relative allowance applies to the vector's length.
    auto add_vector = [&](double difference, double reference_norm, double bound, size_t v, const char* attribute) {
      skinning.add(difference, 0.0, bound + tol::kReferenceRelative * reference_norm, locate(v, attribute));
    };
    for (size_t v = 0; v < ref.positions.size(); ++v)
      add_vector((test.positions[v] - ref.positions[v]).norm(), ref.positions[v].norm(), bounds.position[v], v,
                 "position");
    for (size_t v = 0; test_normals && v < ref.normals.size(); ++v)
      add_vector((test.normals[v] - ref.normals[v]).norm(), 1.0, bounds.normal.at(v), v, "normal");
    for (size_t v = 0; test_tangents && v < ref.tangents.size(); ++v) {
      const bool handedness = test.tangents[v].w() == ref.tangents[v].w();
      add_vector(handedness ? (test.tangents[v].head<3>() - ref.tangents[v].head<3>()).norm() : INFINITY, 1.0,
                 bounds.tangent.at(v), v, handedness ? "tangent" : "tangent handedness");
    }
  }
  return skinning;
}

// The walk both entry points share; `exact` (no bounds given) compares bits. Each stage is scanned whole; the
// first with a value over its bound ends the walk.
StageDivergence walk_stages(const Scene& scene, const EvaluatedPose& reference_pose, const EvaluatedPose* test_pose,
                            const PoseErrorBounds* pose_bounds, const std::vector<WorldPrimitive>& reference_vertices,
                            const std::vector<WorldPrimitive>& test_vertices,
                            const std::vector<PrimitiveErrorBounds>* vertex_bounds, bool exact,
                            const RecipeStages* recipe = nullptr) {
  size_t checked = 0;
  auto finish = [&](StageScan& scan, PipelineStage stage) {
    checked += scan.checked;
    StageDivergence result = scan.worst;
    result.stage = stage;
    result.values_over = scan.over;
    result.values_checked = checked;
    return result;
  };
  const size_t node_count = scene.nodes.size();

  if (test_pose != nullptr) {
    require(exact || pose_bounds != nullptr, scene, "a test pose needs its bounds");
    require(test_pose->local.local.size() == node_count && reference_pose.local.local.size() == node_count &&
                (exact || pose_bounds->local.size() == node_count),
            scene, "node counts");
    const PoseStageInputs in{scene, reference_pose, *test_pose, pose_bounds, exact};
    // Time mapping: the clip time, where both poses record it.
    if (std::isfinite(test_pose->clip_time) && std::isfinite(reference_pose.clip_time)) {
      StageScan time_mapping = scan_time_mapping(in);
      if (time_mapping.over > 0) return finish(time_mapping, PipelineStage::TimeMapping);
      checked += time_mapping.checked;
    }

    const IkNodeFlags ik_flags = ik_node_flags(scene, recipe);

    // Sampling (a recipe's blend): the local TRS of every node (but the IK nodes').
    StageScan sampling{exact};
    scan_locals(in, ik_flags.ik_node, sampling, false);
    if (sampling.over > 0) return finish(sampling, recipe ? PipelineStage::Blend : PipelineStage::Sampling);
    checked += sampling.checked;

    // Local to model: global matrices (outside the IK subtrees).
    StageScan globals{exact};
    scan_globals(in, ik_flags.ik_subtree, globals, false);
    if (globals.over > 0) return finish(globals, PipelineStage::LocalToModel);
    checked += globals.checked;

    // IK: the local TRS it changed and the globals below.
    if (recipe) {
      StageScan ik{exact};
      scan_locals(in, ik_flags.ik_node, ik, true);
      scan_globals(in, ik_flags.ik_subtree, ik, true);
      if (ik.over > 0) return finish(ik, PipelineStage::Ik);
      checked += ik.checked;
    }

    // Palettes: JM and normal matrices.
    StageScan palettes = scan_palettes(in);
    if (palettes.over > 0) return finish(palettes, PipelineStage::Palette);
    checked += palettes.checked;

    StageScan morph = scan_morph(in);
    if (morph.over > 0) return finish(morph, PipelineStage::Morph);
    checked += morph.checked;
  }

  StageScan skinning = scan_skinning(scene, reference_vertices, test_vertices, vertex_bounds, exact);
  if (skinning.over > 0) return finish(skinning, PipelineStage::Skinning);
  checked += skinning.checked;
  StageDivergence none;
  none.values_checked = checked;
  return none;
}

}  // namespace

StageDivergence bisect_stages(const Scene& scene, const EvaluatedPose& reference_pose, const EvaluatedPose* test_pose,
                              const PoseErrorBounds* pose_bounds, const std::vector<WorldPrimitive>& reference_vertices,
                              const std::vector<WorldPrimitive>& test_vertices,
                              const std::vector<PrimitiveErrorBounds>& vertex_bounds, const RecipeStages* recipe) {
  return walk_stages(scene, reference_pose, test_pose, pose_bounds, reference_vertices, test_vertices, &vertex_bounds,
                     false, recipe);
}

StageDivergence first_differing_stage(const Scene& scene, const EvaluatedPose& expected_pose,
                                      const EvaluatedPose* actual_pose,
                                      const std::vector<WorldPrimitive>& expected_vertices,
                                      const std::vector<WorldPrimitive>& actual_vertices) {
  return walk_stages(scene, expected_pose, actual_pose, nullptr, expected_vertices, actual_vertices, nullptr, true);
}

}  // namespace skinref
