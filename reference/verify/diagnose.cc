#include "verify/verify_run.h"
#include "verify/diagnose.h"

#include "anim/evaluate_pose.h"
#include "core/input_error.h"
#include "verify/recipe_bounds.h"
#include "anim/time_mapping.h"
#include "skin/evaluate_vertices.h"
#include "skin/skinning_conventions.h"
#include "verify/convention_pipeline.h"
#include "verify/pose_error_bounds.h"
#include "verify/vertex_error_bounds.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>

namespace skinref {
namespace {

// The fields each cache level depends on: a scene depends on the load and clip conventions, a pose on those
// and the time, sampling, morph-weight and skeleton ones; the vertices on everything.
const std::set<std::string> kSceneFields{"accessor-addressing", "sparse",
                                         "influences",    "joint-sentinel", "inverse-bind",   "weight-decoding",
                                         "node-matrix",   "channel-target", "joint-index",    "morph-normals",
                                         "resample",      "key-translation-scale", "key-rotation", "key-scope", "cubic-weights",
                                         "step",          "key-decoding",   "quaternion-order", "rotation-sense",
                                         "handedness"};
const std::set<std::string> kVertexOnlyFields{"mesh-node", "morph-order", "weights",  "zero-weights",
                                              "normals",   "normalize",   "skinning", "joint-offset"};

std::string key_of(const Conventions& conventions, bool scene_only, bool pose_only) {
  std::string key;
  for (const ConventionField& field : convention_fields()) {
    const bool scene_field = kSceneFields.count(field.name) != 0;
    const bool vertex_field = kVertexOnlyFields.count(field.name) != 0;
    if (scene_only && !scene_field) continue;
    if (pose_only && vertex_field) continue;
    key += field.get(conventions);
    key += ';';
  }
  return key;
}

// The skinning stage's fields: the weights and normals the bounds model.
std::string skinning_key(const Conventions& conventions) {
  std::string key;
  for (const ConventionField& field : convention_fields())
    if (std::string(field.stage) == "skinning") key += field.get(conventions) + ";";
  return key;
}

// Two candidates whose reference positions differ by at most this fraction of the extent are the same
// explanation as far as any float32 dump can tell (float32 resolves about 6e-8 of a value).
constexpr double kIndistinguishable = 1e-10;

struct Evaluation {
  std::vector<std::vector<WorldPrimitive>> references;  // per observation
  CandidateScore score;
};

// The mesh-node conventions on top of the skinned vertices `v`, as widened_for_after_skinning() derives: normals
// alone by (M M^T)^-1 under three.js's, a unit vector's error amplified by that map's condition number.
void widen_for_mesh_node(MeshNodeTransform mesh_node, const Mat4& global, const SkinnedVertices& v,
                         PrimitiveErrorBounds& b) {
  constexpr double u = 0x1p-24;  // as widened_for_after_skinning()
  Mat4 transform = global;
  switch (mesh_node) {
    case MeshNodeTransform::Ignored: return;
    case MeshNodeTransform::Applied: break;
    case MeshNodeTransform::Inverse: transform = global.inverse().eval(); break;
    case MeshNodeTransform::AppliedTwice: transform = (global * global).eval(); break;
    case MeshNodeTransform::NormalMatrixTimesInverse: {  // normals alone, by (M M^T)^-1
      const Mat3 mismatch = mesh_node_normal_mismatch(global);
      const double condition = mismatch.norm() * mismatch.inverse().norm();
      for (double& normal : b.normal) normal = condition * normal + 8.0 * u;
      return;
    }
  }
  const Mat3 linear = transform.topLeftCorner<3, 3>();
  const double norm = linear.norm(), inverse_norm = linear.inverse().norm();
  const double translation = transform.block<3, 1>(0, 3).norm();
  for (size_t k = 0; k < v.positions.size(); ++k) {
    const double before = inverse_norm * (v.positions[k].norm() + translation);
    b.position[k] = norm * b.position[k] + 4.0 * u * (norm * before + translation);
  }
  for (double& normal : b.normal) normal = norm * inverse_norm * normal + 8.0 * u;
  for (double& tangent : b.tangent) tangent = norm * inverse_norm * tangent + 8.0 * u;
}

// The bounds of the skinning stage carried through the steps an engine adds after it (float32, unit roundoff
// u = 2^-24; docs/conventions.md): morph deltas added to the skinned vertex, |err| += (k + 1) u (|p| + sum_k
// |w_k| |d_k|) over k targets; a transform M = (A, t) applied on top, |err'| <= |A|_F |err| + 4 u (|A|_F |p| +
// |t|), with |p| <= |A^-1|_F (|p'| + |t|) for the transformed p', and a unit vector's error amplified by at
// most the condition number |A|_F |A^-1|_F, plus 8 u for its renormalization.
std::vector<PrimitiveErrorBounds> widened_for_after_skinning(const Scene& scene, const EvaluatedPose& pose,
                                                             const Conventions& conventions,
                                                             const std::vector<WorldPrimitive>& reference,
                                                             std::vector<PrimitiveErrorBounds> bounds) {
  constexpr double u = 0x1p-24;
  for (size_t i = 0; i < reference.size() && i < bounds.size(); ++i) {
    const WorldPrimitive& world = reference[i];
    if (!world.skinned) continue;
    const SkinnedVertices& v = world.vertices;
    PrimitiveErrorBounds& b = bounds[i];
    if (conventions.morph.order == MorphOrder::AfterSkinning) {
      const Primitive& prim = scene.meshes[size_t(world.mesh)].primitives[size_t(world.primitive)];
      const std::vector<double>& weights = pose.local.morph_weights[size_t(world.node)];
      for (size_t k = 0; k < v.positions.size(); ++k) {
        double deltas = 0.0;
        for (size_t t = 0; t < prim.targets.size() && t < weights.size(); ++t)
          if (!prim.targets[t].position_deltas.empty())
            deltas += std::abs(weights[t]) * prim.targets[t].position_deltas[k].norm();
        b.position[k] += double(prim.targets.size() + 1) * u * (v.positions[k].norm() + deltas);
      }
      for (double& normal : b.normal) normal += 8.0 * u + double(prim.targets.size() + 1) * u;
      for (double& tangent : b.tangent) tangent += 8.0 * u + double(prim.targets.size() + 1) * u;
    }
    widen_for_mesh_node(conventions.palette.mesh_node, pose.model.global[size_t(world.node)], v, b);
  }
  return bounds;
}

// The test's distance from a reference, over the attributes the test has.
void add_residuals(const std::vector<WorldPrimitive>& reference, const std::vector<WorldPrimitive>& test, double extent,
                   CandidateScore& score) {
  const double scale = extent > 0.0 ? 1.0 / extent : 1.0;
  for (size_t p = 0; p < reference.size() && p < test.size(); ++p) {
    const SkinnedVertices& r = reference[p].vertices;
    const SkinnedVertices& t = test[p].vertices;
    for (size_t v = 0; v < r.positions.size() && v < t.positions.size(); ++v) {
      const double d = (t.positions[v] - r.positions[v]).norm() * scale;
      score.residual = std::max(score.residual, d);
      score.residual_squares += d * d;
    }
    for (size_t v = 0; v < t.normals.size() && v < r.normals.size(); ++v)
      score.residual_squares += (t.normals[v] - r.normals[v]).squaredNorm();
    for (size_t v = 0; v < t.tangents.size() && v < r.tangents.size(); ++v)
      score.residual_squares += (t.tangents[v] - r.tangents[v]).squaredNorm();
  }
}

double largest_position_change(const std::vector<std::vector<WorldPrimitive>>& a,
                               const std::vector<std::vector<WorldPrimitive>>& b);

}  // namespace

// Named, not anonymous: CandidateEvaluator (diagnose.h) holds one.
namespace diagnose_internal {

class Diagnoser {
 public:
  Diagnoser(const Scene& scene, const std::vector<DiagnoseObservation>& observations, const DiagnoseSettings& settings,
            double extent)
      : source_(scene), observations_(observations), settings_(settings), extent_(extent),
        allowances_(settings.allowances) {}

  // The allowances every later evaluation's bounds are widened by (diagnose.h, "Allowances").
  void set_allowances(const EngineAllowances& allowances) { allowances_ = allowances; }

  Evaluation evaluate(const std::vector<std::string>& assignments) {
    Conventions conventions = settings_.base;
    for (const std::string& assignment : assignments) set_convention(conventions, assignment);
    const Scene& scene = scene_for(conventions);
    SkinningOptions options;
    options.method = settings_.method;
    options = skinning_options_under(options, conventions.skinning);
    Evaluation result;
    result.score.settings = assignments;
    result.score.conventions = conventions;
    size_t worst_over = 0;
    for (size_t o = 0; o < observations_.size(); ++o) {
      const double time = double(float(observations_[o].time));
      const std::string pose_key = key_of(conventions, false, true) + number_text(time);
      const EvaluatedPose& pose = pose_for(pose_key, scene, conventions, time);
      std::vector<WorldPrimitive> reference = evaluate_vertices(scene, pose, options, conventions);
      const std::string bounds_key = pose_key + "|" + skinning_key(conventions) + "|" + number_text(allowances_.rotation) +
                                     ";" + number_text(allowances_.translation_scale) + ";" +
                                     number_text(allowances_.interpolation);
      const std::vector<PrimitiveErrorBounds>& bounds = vertex_bounds_for(bounds_key, scene, conventions, pose, options);
      const bool after_skinning = conventions.morph.order == MorphOrder::AfterSkinning ||
                                  conventions.palette.mesh_node != MeshNodeTransform::Ignored;
      const VertexComparison comparison = verify_within(
          scene, reference, observations_[o].vertices,
          after_skinning ? widened_for_after_skinning(scene, pose, conventions, reference, bounds) : bounds);
      CandidateScore& s = result.score;
      s.values += comparison.values;
      s.over += comparison.over;
      s.unbounded += comparison.unbounded;
      s.unnormalized += comparison.unnormalized;
      s.over_positions += comparison.over_positions;
      s.over_normals += comparison.over_normals;
      s.over_tangents += comparison.over_tangents;
      s.max_ratio = std::max(s.max_ratio, comparison.max_ratio);
      add_residuals(reference, observations_[o].vertices, extent_, s);
      if (o == 0 || comparison.over + comparison.unbounded + comparison.unnormalized > worst_over) {
        worst_over = comparison.over + comparison.unbounded + comparison.unnormalized;
        s.worst = comparison;
        s.worst_label = observations_[o].label;
      }
      result.references.push_back(std::move(reference));
    }
    return result;
  }

 private:
  static std::string number_text(double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%.17g", value);
    return text;
  }


 public:
  // The first stage where an observation leaves the reference under `conventions` (stage_bisection.h).
  StageDivergence first_divergence(const DiagnoseObservation& observation, const Conventions& conventions) {
    const Scene& scene = scene_for(conventions);
    const double time = double(float(observation.time));
    const EvaluatedPose& pose = pose_for(key_of(conventions, false, true) + number_text(time), scene, conventions, time);
    SkinningOptions options;
    options.method = settings_.method;
    options = skinning_options_under(options, conventions.skinning);
    const std::vector<WorldPrimitive> reference = evaluate_vertices(scene, pose, options, conventions);
    const RecipePoseBounds pose_bounds = pose_bounds_for(scene, conventions, time);
    const std::vector<PrimitiveErrorBounds> bounds =
        check_bounds(VertexCheck{scene, pose, options, settings_.bounds, &pose_bounds.pose});
    const EvaluatedPose* test_pose = observation.pose ? &*observation.pose : nullptr;
    PoseErrorBounds printed_pose_bounds = pose_bounds.pose;
    if (test_pose) charge_printing_rounding(printed_pose_bounds, *test_pose, observation.pose_significant_digits);
    const RecipeStages stages{pose_bounds.ik_nodes};
    return bisect_stages(scene, pose, test_pose, test_pose ? &printed_pose_bounds : nullptr, reference,
                         observation.vertices, bounds, settings_.recipe ? &stages : nullptr);
  }

  // The time of the clip (keys and an even grid) at which the specification fits the observation best, when
  // nothing is over there but something is at the time given: the engine played another time. An observation
  // that fits its own time has none (another dump of the same run is the one off).
  std::optional<double> time_that_fits(const DiagnoseObservation& observation, const Conventions& conventions) {
    if (settings_.recipe || settings_.animation < 0) return std::nullopt;
    const Scene& scene = scene_for(conventions);
    const Animation& clip = scene.animations[size_t(settings_.animation)];
    SkinningOptions options;
    options.method = settings_.method;
    options = skinning_options_under(options, conventions.skinning);
    // Whether nothing is over at `time`, and how far the observation is from the specification there.
    auto fit_at = [&](double time) {
      const EvaluatedPose pose = reference_pose(scene, run_pose(conventions, time));
      const std::vector<WorldPrimitive> reference = evaluate_vertices(scene, pose, options, conventions);
      const PoseErrorBounds pose_bounds = pose_bounds_for(scene, conventions, time).pose;
      const VertexComparison c =
          verify_vertices(VertexCheck{scene, pose, options, settings_.bounds, &pose_bounds}, reference,
                          observation.vertices)
              .comparison;
      return std::pair{c.over + c.unbounded + c.unnormalized == 0,
                       largest_position_change({observation.vertices}, {reference})};
    };
    const double given = double(float(observation.time));
    if (fit_at(given).first) return std::nullopt;
    std::vector<double> times;
    for (const AnimationSampler& sampler : clip.samplers) times.insert(times.end(), sampler.times.begin(), sampler.times.end());
    for (int i = 0; i <= kTimeSearchSteps; ++i) times.push_back(clip.end_time * i / kTimeSearchSteps);
    std::optional<double> best;
    double best_residual = std::numeric_limits<double>::infinity();
    for (double t : times) {
      const double time = double(float(t));
      if (time == given) continue;
      const auto [fits, residual] = fit_at(time);
      if (fits && residual < best_residual) {
        best = time;
        best_residual = residual;
      }
    }
    return best;
  }

  // The pose's bounds at `time`: the recipe's, or the clip's at the time its conventions map `time` to.
  RecipePoseBounds pose_bounds_for(const Scene& scene, const Conventions& conventions, double time) const {
    return run_pose_bounds(scene, run_pose(conventions, time), settings_.bounds);
  }

  // The observed run's pose under `conventions` at `time`: the recipe's or the clip's, with the engine's
  // fitted allowances (verify_run.h).
  RunPose run_pose(const Conventions& conventions, double time) const {
    RunPose run;
    run.recipe = settings_.recipe ? &*settings_.recipe : nullptr;
    run.animation = settings_.animation;
    run.time = time;
    run.conventions = conventions;
    run.allowances = allowances_;
    return run;
  }

 private:

  const Scene& scene_for(const Conventions& conventions) {
    const std::string key = key_of(conventions, true, false);
    auto found = scenes_.find(key);
    if (found == scenes_.end()) {
      auto scene = std::make_unique<Scene>(reread(conventions.load));
      apply_scene_conventions(*scene, conventions);
      found = scenes_.emplace(key, std::move(scene)).first;
    }
    return *found->second;
  }

  // The model as the loader reads it under `reading`: the source itself unless the file must be read again
  // (DiagnoseSettings::reload); the source where it cannot be.
  Scene reread(const LoadConventions& reading) const {
    if (same_accessor_reading(reading, settings_.base.load) || !settings_.reload) return source_;
    try {
      return settings_.reload(reading);
    } catch (const InputError&) {
      return source_;
    }
  }

  const EvaluatedPose& pose_for(const std::string& key, const Scene& scene, const Conventions& conventions,
                                double time) {
    auto found = poses_.find(key);
    if (found == poses_.end())
      found = poses_.emplace(key, reference_pose(scene, run_pose(conventions, time))).first;
    return found->second;
  }

  const std::vector<PrimitiveErrorBounds>& vertex_bounds_for(const std::string& key, const Scene& scene,
                                                             const Conventions& conventions, const EvaluatedPose& pose,
                                                             const SkinningOptions& options) {
    auto found = vertex_bounds_.find(key);
    if (found != vertex_bounds_.end()) return found->second;
    const PoseErrorBounds pose_bounds = pose_bounds_for(scene, conventions, pose.time).pose;
    if (!influences_need_adjusting(conventions.skinning))
      return vertex_bounds_.emplace(key, check_bounds(VertexCheck{scene, pose, options, settings_.bounds, &pose_bounds}))
          .first->second;
    // weights=l2 and zero-weights=joint0 change the weights the engine blends with: bound those weights.
    Scene adjusted = scene;
    for (const Node& node : adjusted.nodes) {
      if (node.skin < 0 || node.mesh < 0) continue;
      for (Primitive& prim : adjusted.meshes[size_t(node.mesh)].primitives) {
        AdjustedInfluences influences =
            adjust_influences(prim.joints, prim.weights, prim.influences_per_vertex, conventions.skinning);
        prim.joints = std::move(influences.joints);
        prim.weights = std::move(influences.weights);
      }
    }
    return vertex_bounds_.emplace(key, check_bounds(VertexCheck{adjusted, pose, options, settings_.bounds, &pose_bounds}))
        .first->second;
  }

  const Scene& source_;
  const std::vector<DiagnoseObservation>& observations_;
  const DiagnoseSettings& settings_;
  double extent_;
  std::map<std::string, std::unique_ptr<Scene>> scenes_;
  std::map<std::string, EvaluatedPose> poses_;
  std::map<std::string, std::vector<PrimitiveErrorBounds>> vertex_bounds_;
  EngineAllowances allowances_;
};

}  // namespace diagnose_internal

namespace {

using diagnose_internal::Diagnoser;

size_t mistakes_among(const std::vector<std::string>& settings) {
  return size_t(std::count_if(settings.begin(), settings.end(), [](const std::string& s) { return is_mistake(s); }));
}

// Fewer values failing; then fewer mistakes (of a design choice and a bug that explain alike, the choice a
// working engine makes is named); then fewer settings, the closer fit, the order of evaluation.
bool better(const CandidateScore& a, const CandidateScore& b) {
  if (a.failing() != b.failing()) return a.failing() < b.failing();
  const size_t a_mistakes = mistakes_among(a.settings), b_mistakes = mistakes_among(b.settings);
  if (a_mistakes != b_mistakes) return a_mistakes < b_mistakes;
  if (a.settings.size() != b.settings.size()) return a.settings.size() < b.settings.size();
  if (a.residual_squares != b.residual_squares) return a.residual_squares < b.residual_squares;
  return a.search_order < b.search_order;
}

// The largest distance between two evaluations' values of one attribute (`of` picks it), over every
// observation.
template <class Attribute>
double largest_change(const std::vector<std::vector<WorldPrimitive>>& a, const std::vector<std::vector<WorldPrimitive>>& b,
                      Attribute of) {
  double largest = 0.0;
  for (size_t o = 0; o < a.size(); ++o)
    for (size_t p = 0; p < a[o].size() && p < b[o].size(); ++p) {
      const auto& va = of(a[o][p].vertices);
      const auto& vb = of(b[o][p].vertices);
      for (size_t v = 0; v < va.size() && v < vb.size(); ++v) largest = std::max(largest, (va[v] - vb[v]).norm());
    }
  return largest;
}

double largest_position_change(const std::vector<std::vector<WorldPrimitive>>& a,
                               const std::vector<std::vector<WorldPrimitive>>& b) {
  return largest_change(a, b, [](const SkinnedVertices& v) -> const std::vector<Vec3>& { return v.positions; });
}

double largest_normal_change(const std::vector<std::vector<WorldPrimitive>>& a,
                             const std::vector<std::vector<WorldPrimitive>>& b) {
  return largest_change(a, b, [](const SkinnedVertices& v) -> const std::vector<Vec3>& { return v.normals; });
}

bool same_references(const std::vector<std::vector<WorldPrimitive>>& a,
                     const std::vector<std::vector<WorldPrimitive>>& b) {
  for (size_t o = 0; o < a.size(); ++o)
    for (size_t p = 0; p < a[o].size(); ++p) {
      const SkinnedVertices& va = a[o][p].vertices;
      const SkinnedVertices& vb = b[o][p].vertices;
      if (va.positions != vb.positions || va.normals != vb.normals || va.tangents != vb.tangents) return false;
    }
  return true;
}

// Within kIndistinguishable: positions of the extent, unit normals and tangents absolutely.
bool nearly_same_references(const std::vector<std::vector<WorldPrimitive>>& a,
                            const std::vector<std::vector<WorldPrimitive>>& b, double extent) {
  for (size_t o = 0; o < a.size(); ++o)
    for (size_t p = 0; p < a[o].size(); ++p) {
      const SkinnedVertices& va = a[o][p].vertices;
      const SkinnedVertices& vb = b[o][p].vertices;
      for (size_t v = 0; v < va.positions.size(); ++v)
        if ((va.positions[v] - vb.positions[v]).norm() > kIndistinguishable * extent) return false;
      for (size_t v = 0; v < va.normals.size(); ++v)
        if ((va.normals[v] - vb.normals[v]).norm() > kIndistinguishable) return false;
      for (size_t v = 0; v < va.tangents.size(); ++v)
        if ((va.tangents[v] - vb.tangents[v]).norm() > kIndistinguishable) return false;
    }
  return true;
}

std::set<std::string> names_of(const std::vector<std::string>& assignments) {
  std::set<std::string> names;
  for (const std::string& assignment : assignments) names.insert(assignment.substr(0, assignment.find('=')));
  return names;
}

std::vector<std::string> merged(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  std::vector<std::string> all = a;
  for (const std::string& assignment : b)
    if (std::find(all.begin(), all.end(), assignment) == all.end()) all.push_back(assignment);
  // Pipeline order, so that a combination is spelt one way whatever the order it was found in.
  std::vector<std::string> ordered;
  for (const ConventionField& field : convention_fields())
    for (const std::string& assignment : all)
      if (assignment.substr(0, assignment.find('=')) == field.name) ordered.push_back(assignment);
  return ordered;
}

}  // namespace

namespace {
// Where the last assignment of `candidate` stands in diagnose_candidates(): the commoner first.
size_t candidate_rank(const std::vector<std::string>& candidate) {
  const std::vector<std::vector<std::string>> all = diagnose_candidates();
  for (size_t i = 0; i < all.size(); ++i)
    if (all[i].back() == candidate.back()) return i;
  return all.size();
}
}  // namespace

std::vector<std::vector<std::string>> diagnose_mistakes() {
  std::vector<std::vector<std::string>> mistakes;
  for (const ConventionField& field : convention_fields())
    for (const std::string& value : field.mistakes) mistakes.push_back({std::string(field.name) + "=" + value});
  return mistakes;
}

std::vector<std::vector<std::string>> diagnose_candidates() {
  std::vector<std::vector<std::string>> candidates, influence_limits;
  for (const ConventionField& field : convention_fields()) {
    const std::string name = field.name;
    // The loop's own conventions show only in a looping playback.
    const bool needs_loop = name == "wrap-period" || name == "at-end";
    for (const std::string& value : field.candidates) {
      std::vector<std::string> candidate;
      if (needs_loop) candidate.push_back("playback=loop");
      candidate.push_back(name + "=" + value);
      // An influence limit that keeps every influence and renormalizes is weights=sum: the skinning
      // convention is tried first, so that of the two the simpler is named.
      (name == "influences" ? influence_limits : candidates).push_back(candidate);
      // A quantization reaches the joints' rest values too in an engine whose clip has a track per joint.
      if (name == "key-translation-scale" || name == "key-rotation")
        candidates.push_back({name + "=" + value, "key-scope=every-joint"});
    }
  }
  candidates.insert(candidates.end(), influence_limits.begin(), influence_limits.end());
  return candidates;
}

namespace {

bool fields_overlap(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  const std::set<std::string> a_names = names_of(a);
  for (const std::string& name : names_of(b))
    if (a_names.count(name)) return true;
  return false;
}

std::string joined(const std::vector<std::string>& assignments) { return join_assignments(assignments); }

// The smallest size of one kind (`kind` picks it) on the grid kLargestAllowance 2^-i, or 0, that still leaves
// nothing over, the others held; the size `fit` has (on the grid) must leave nothing over.
void shrink_allowance(const AllowanceScorer& score_with, EngineAllowances& fit, double EngineAllowances::* kind) {
  EngineAllowances trial = fit;
  trial.*kind = 0.0;
  if (score_with(trial).failing() == 0) {
    fit.*kind = 0.0;
    return;
  }
  int lo = std::clamp(int(std::lround(std::log2(kLargestAllowance / fit.*kind))), 0, kAllowanceHalvings);
  int hi = kAllowanceHalvings;
  while (lo < hi) {
    const int mid = (lo + hi + 1) / 2;
    trial.*kind = std::ldexp(kLargestAllowance, -mid);
    if (score_with(trial).failing() == 0) lo = mid;
    else hi = mid - 1;
  }
  fit.*kind = std::ldexp(kLargestAllowance, -lo);
}

// The search of diagnose(), step by step (the contract in diagnose.h): each step reads and extends
// `diagnosis` and the evaluations made so far.
class Search {
 public:
  Search(const Scene& scene, const std::vector<DiagnoseObservation>& observations, const DiagnoseSettings& settings)
      : observations_(observations),
        settings_(settings),
        extent_(observations.empty() ? 0.0 : positions_extent(observations.front().vertices)),
        diagnoser_(scene, observations, settings, extent_),
        base_(diagnoser_.evaluate({})) {
    diagnosis_.extent = extent_;
    diagnosis_.base_settings = convention_differences(settings.base);
    diagnosis_.base = base_.score;
    diagnosis_.candidates_tried = 1;
    diagnosis_.matches_specification = base_.score.failing() == 0;
    auto take = [&](std::vector<std::string> candidate, std::vector<std::vector<std::string>>& into) {
      Conventions conventions = settings.base;
      for (const std::string& assignment : candidate) set_convention(conventions, assignment);
      if (!settings.recipe || recipe_applicable(conventions)) into.push_back(std::move(candidate));
    };
    for (std::vector<std::string>& candidate : diagnose_candidates()) take(std::move(candidate), candidates_);
    // A mistake the user states as known (settings.base) is no candidate again.
    for (std::vector<std::string>& mistake : diagnose_mistakes())
      if (!names_of(diagnosis_.base_settings).count(*names_of(mistake).begin())) take(std::move(mistake), mistakes_);
  }

  Diagnosis run() {
    if (diagnosis_.matches_specification) {
      if (base_.score.residual > kNoiseFloor) find_closer_fits();
    } else {
      search_combinations();
      rank();
      refine();
      polish();
    }
    conclude();
    return std::move(diagnosis_);
  }

 private:
  // The candidate's evaluation (cached), or null when it changes nothing on this model.
  const Evaluation* evaluate(const std::vector<std::string>& assignments) {
    if (const auto found = evaluated_.find(assignments); found != evaluated_.end()) return &found->second;
    if (no_effect_.count(assignments)) return nullptr;
    Evaluation evaluation = diagnoser_.evaluate(assignments);
    evaluation.score.search_order = diagnosis_.candidates_tried++;
    evaluation.score.coincidental = coincidental(evaluation.score);
    if (settings_.on_candidate) settings_.on_candidate(joined(assignments));
    if (same_references(evaluation.references, base_.references)) {
      no_effect_.insert(assignments);
      diagnosis_.no_effect.push_back(joined(assignments));
      return nullptr;
    }
    return &evaluated_.emplace(assignments, std::move(evaluation)).first->second;
  }

  // Nothing over, but not by moving the values towards the dumps (diagnose.h): less than kExplanationShare of the
  // specification's squared distance removed, or, for a combination, of what the others leave without one of
  // its conventions (a convention that only widens the bounds rides along).
  bool coincidental(const CandidateScore& score) {
    if (diagnosis_.matches_specification || score.failing() != 0) return false;
    auto removes_most = [](const CandidateScore& s, const CandidateScore& than) {
      return s.residual_squares <= (1.0 - kExplanationShare) * than.residual_squares;
    };
    return !removes_most(score, base_.score) || (score.settings.size() > 1 && !each_convention(score, removes_most));
  }

  // Whether `removes(score, what the others leave)` holds for each convention of `score` (the others' score
  // evaluated; the specification's when they change nothing).
  template <class Removes>
  bool each_convention(const CandidateScore& score, Removes removes) {
    for (size_t k = 0; k < score.settings.size(); ++k) {
      std::vector<std::string> without = score.settings;
      without.erase(without.begin() + std::ptrdiff_t(k));
      if (without.size() == 1 && without[0] == "playback=loop") continue;  // a loop's own conventions need it
      const Evaluation* rest = evaluate(without);
      if (!removes(score, rest ? rest->score : base_.score)) return false;
    }
    return true;
  }

  // Within glTF's bounds, but perhaps not by chance: the singles that fit far closer.
  void find_closer_fits() {
    std::vector<const Evaluation*> closer;
    for (const std::vector<std::string>& candidate : candidates_) {
      const Evaluation* e = evaluate(candidate);
      if (!e || e->score.failing() != 0 || e->score.residual * kCloserFit > base_.score.residual) continue;
      // One of two that are the same here (nlerp and lerp where no key pair needs the hemisphere check).
      bool same_as_listed = false;
      for (const Evaluation* listed : closer)
        same_as_listed |= nearly_same_references(listed->references, e->references, extent_);
      if (!same_as_listed) closer.push_back(e);
    }
    std::stable_sort(closer.begin(), closer.end(),
                     [](const Evaluation* a, const Evaluation* b) { return a->score.residual < b->score.residual; });
    for (const Evaluation* e : closer) diagnosis_.closer_fits.push_back(e->score);
  }

  // Singles, then each of the `beam` best so far with every single of another field. A partial explanation
  // need not lower the count on its own (nlerp leaves the normals of blended vertices off when the engine
  // also blends normal matrices), so every single with an effect is a possible partner. The pairs also take
  // the weight rules of skinning that change nothing alone with each load convention that has an effect
  // (enabled_pairs()).
  void search_combinations() {
    std::vector<const Evaluation*> partners;  // every single with an effect, in evaluation order
    for (const std::vector<std::string>& candidate : candidates_)
      if (const Evaluation* e = evaluate(candidate)) partners.push_back(e);
    // The mistakes after the conventions: of two that explain alike, the design choice is named.
    for (const std::vector<std::string>& mistake : mistakes_)
      if (const Evaluation* e = evaluate(mistake)) partners.push_back(e);
    auto by_score = [](const Evaluation* a, const Evaluation* b) { return better(a->score, b->score); };
    std::vector<const Evaluation*> level = partners;
    std::stable_sort(level.begin(), level.end(), by_score);
    if (!level.empty() && level.front()->score.failing() == 0) return;
    level = beam_of(level);
    for (int size = 2; size <= settings_.max_settings && !level.empty(); ++size) {
      std::vector<const Evaluation*> next = size == 2 ? enabled_pairs(partners) : std::vector<const Evaluation*>{};
      for (const Evaluation* a : level)
        for (const Evaluation* b : partners) {
          if (fields_overlap(a->score.settings, b->score.settings)) continue;
          if (const Evaluation* e = evaluate(merged(a->score.settings, b->score.settings))) next.push_back(e);
        }
      std::stable_sort(next.begin(), next.end(), by_score);
      next.erase(std::unique(next.begin(), next.end()), next.end());
      if (!next.empty() && next.front()->score.failing() == 0) return;
      if (size == 2 && add_mistake_pairs(partners, next)) return;
      level = beam_of(next);
    }
  }

  // When no pair from the beam explains the dumps: every pair of two mistakes with an effect (two bugs at once
  // put every single far from the dumps, where no beam ranks the right halves reliably). True when one
  // explains; `pairs` gains them, best first.
  bool add_mistake_pairs(const std::vector<const Evaluation*>& singles, std::vector<const Evaluation*>& pairs) {
    std::vector<const Evaluation*> mistakes;
    for (const Evaluation* e : singles)
      if (mistakes_among(e->score.settings) != 0) mistakes.push_back(e);
    for (size_t a = 0; a < mistakes.size(); ++a)
      for (size_t b = a + 1; b < mistakes.size(); ++b) {
        if (fields_overlap(mistakes[a]->score.settings, mistakes[b]->score.settings)) continue;
        if (const Evaluation* e = evaluate(merged(mistakes[a]->score.settings, mistakes[b]->score.settings)))
          pairs.push_back(e);
      }
    auto by_score = [](const Evaluation* x, const Evaluation* y) { return better(x->score, y->score); };
    std::stable_sort(pairs.begin(), pairs.end(), by_score);
    pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
    return !pairs.empty() && pairs.front()->score.failing() == 0;
  }

  // The `beam` best of `ranked` (best first), and of the others the `beam` closest to the dumps (smallest squared
  // distance) without a mistake and the `beam` closest with one: where two mistakes put nearly every value far over, the count over says little of which
  // single is half of the answer, and the distance says much.
  std::vector<const Evaluation*> beam_of(const std::vector<const Evaluation*>& ranked) const {
    std::vector<const Evaluation*> beam(ranked.begin(), ranked.begin() + std::ptrdiff_t(std::min(ranked.size(), settings_.beam)));
    std::vector<const Evaluation*> rest(ranked.begin() + std::ptrdiff_t(beam.size()), ranked.end());
    std::stable_sort(rest.begin(), rest.end(), [](const Evaluation* a, const Evaluation* b) {
      return a->score.residual_squares < b->score.residual_squares;
    });
    // Twice as many mistakes: there are as many as conventions with an effect, and their distances spread wider.
    constexpr size_t kMistakeBeam = 2;
    size_t closest = 0, closest_mistakes = 0;
    for (const Evaluation* e : rest) {
      // The closest conventions, and the closest mistakes apart: a gross mistake's distance dwarfs a convention's.
      const bool mistake = mistakes_among(e->score.settings) != 0;
      size_t& taken = mistake ? closest_mistakes : closest;
      if (taken < (mistake ? kMistakeBeam : 1) * settings_.beam) {
        beam.push_back(e);
        ++taken;
      }
    }
    return beam;
  }

  // A weight rule of skinning (weights, zero-weights) changes nothing on a file whose weights sum to one, but
  // acts on the weights a load convention leaves: zero-weights=joint0 on the vertices influences=first-set
  // leaves without weight, as three.js's normalizeSkinWeights() does. Each such rule with each load
  // convention that has an effect, whatever its rank alone.
  std::vector<const Evaluation*> enabled_pairs(const std::vector<const Evaluation*>& singles) {
    std::vector<const Evaluation*> pairs;
    for (const std::vector<std::string>& rule : candidates_) {
      if (!no_effect_.count(rule) || rule.size() != 1) continue;
      const std::string name = rule[0].substr(0, rule[0].find('='));
      if (name != "weights" && name != "zero-weights") continue;
      for (const Evaluation* load : singles) {
        const ConventionField* field = find_convention_field(*names_of(load->score.settings).begin());
        if (field == nullptr || std::string(field->stage) != "load" || fields_overlap(load->score.settings, rule))
          continue;
        if (const Evaluation* e = evaluate(merged(load->score.settings, rule))) pairs.push_back(e);
      }
    }
    return pairs;
  }

  // Every evaluation, best first. Of the candidates these dumps cannot tell apart (the same counts, as many
  // conventions, references within rounding: influences=top4 and first-set where the first set holds the
  // largest weights), the one evaluated first, the commoner, leads.
  void rank() {
    for (const auto& [assignments, evaluation] : evaluated_) diagnosis_.ranked.push_back(evaluation.score);
    std::stable_sort(diagnosis_.ranked.begin(), diagnosis_.ranked.end(), better);
    std::vector<CandidateScore>& ranked = diagnosis_.ranked;
    if (ranked.size() < 2) return;
    const auto& leader_references = evaluated_.at(ranked.front().settings).references;
    size_t chosen = 0;
    for (size_t i = 1; i < ranked.size(); ++i) {
      if (ranked[i].failing() != ranked.front().failing() || ranked[i].settings.size() != ranked.front().settings.size())
        break;
      if (nearly_same_references(evaluated_.at(ranked[i].settings).references, leader_references, extent_) &&
          ranked[i].search_order < ranked[chosen].search_order)
        chosen = i;
    }
    lead_with(ranked[chosen]);
  }

  // Puts `score` first in the ranking (once).
  void lead_with(CandidateScore score) {
    std::vector<CandidateScore>& ranked = diagnosis_.ranked;
    ranked.erase(std::remove_if(ranked.begin(), ranked.end(),
                                [&](const CandidateScore& s) { return s.settings == score.settings; }),
                 ranked.end());
    ranked.insert(ranked.begin(), std::move(score));
  }

  bool leader_explains() const { return !diagnosis_.ranked.empty() && diagnosis_.ranked.front().failing() == 0; }

  // An explanation with nothing over may still leave an error far above float32 noise that one more
  // convention removes (quantized keys under wide slerp bounds): take it while it fits kCloserFit times
  // closer and keeps nothing over.
  void refine() {
    while (leader_explains() && diagnosis_.ranked.front().residual > kNoiseFloor &&
           int(diagnosis_.ranked.front().settings.size()) < settings_.max_settings) {
      const CandidateScore current = diagnosis_.ranked.front();
      const Evaluation* refined = nullptr;
      for (const std::vector<std::string>& candidate : candidates_) {
        // What the candidate adds: key-rotation=q15-offset refines to the same with key-scope=every-joint.
        std::vector<std::string> added;
        for (const std::string& assignment : candidate)
          if (std::find(current.settings.begin(), current.settings.end(), assignment) == current.settings.end())
            added.push_back(assignment);
        if (added.empty() || fields_overlap(current.settings, added)) continue;
        const Evaluation* e = evaluate(merged(current.settings, added));
        if (e && e->score.failing() == 0 && e->score.residual * kCloserFit <= current.residual &&
            (!refined || e->score.residual_squares < refined->score.residual_squares))
          refined = e;
      }
      if (!refined) return;
      lead_with(refined->score);
    }
  }

  // Each convention of the leader against the other values of its field (nlerp for lerp,
  // blend-normal-matrices for blend-upper3x3): a value that keeps nothing over and fits closer replaces it;
  // of two the dumps cannot tell apart, the one earlier in the field's list is kept.
  void polish() {
    for (int round = 0; round < 4 && leader_explains(); ++round) {
      const CandidateScore current = diagnosis_.ranked.front();
      const Evaluation* replacement = nullptr;
      for (size_t k = 0; k < current.settings.size(); ++k) {
        const std::string name = current.settings[k].substr(0, current.settings[k].find('='));
        if (name == "playback") continue;  // comes with the loop's own conventions
        for (const std::vector<std::string>& candidate : candidates_) {
          const std::string& assignment = candidate.back();
          if (assignment.substr(0, assignment.find('=')) != name || assignment == current.settings[k]) continue;
          std::vector<std::string> swapped = current.settings;
          swapped.erase(swapped.begin() + std::ptrdiff_t(k));
          const Evaluation* e = evaluate(merged(swapped, candidate));
          if (!e || e->score.failing() != 0) continue;
          const Evaluation& best_so_far = replacement ? *replacement : evaluated_.at(current.settings);
          const bool same = nearly_same_references(e->references, best_so_far.references, extent_);
          if (same ? candidate_rank(candidate) < candidate_rank({current.settings[k]})
                   : e->score.residual_squares < best_so_far.score.residual_squares)
            replacement = e;
        }
      }
      if (!replacement) return;
      lead_with(replacement->score);
    }
  }

  // The verdict's figures: what else explains as well, where the engine first left glTF when nothing does,
  // and the size of each named convention's effect.
  // The observation whose stages are bisected: the first with a pose dump, else the first.
  size_t observation_to_bisect() const {
    for (size_t o = 0; o < observations_.size(); ++o)
      if (observations_[o].pose) return o;
    return 0;
  }

  // Whether `score` explains most of what `than` leaves: kPartialShare of its squared distance removed and its
  // worst error/bound kPartialGain times lower.
  static bool explains_most(const CandidateScore& score, const CandidateScore& than) {
    return score.residual_squares <= (1.0 - kPartialShare) * than.residual_squares &&
           score.max_ratio * kPartialGain <= than.max_ratio;
  }

  // Each convention of a combination must remove most of what the others leave: a convention that only nudges
  // the fit (resample=30 beside a structural departure, by coincidence) is not named.
  bool each_part_pulls_its_weight(const CandidateScore& score) {
    return score.settings.size() < 2 || each_convention(score, explains_most);
  }

  // Of every evaluation, the one that explains most of dumps nothing explains whole (diagnose.h, "Partial").
  void find_partial() {
    const Evaluation* chosen = nullptr;
    std::vector<const Evaluation*> qualifying;
    for (const auto& [assignments, e] : evaluated_)
      if (explains_most(e.score, base_.score)) qualifying.push_back(&e);
    for (const Evaluation* candidate : qualifying) {
      const Evaluation& e = *candidate;
      const CandidateScore& s = e.score;
      if (!each_part_pulls_its_weight(s)) continue;
      const bool ahead = !chosen || s.residual_squares < chosen->score.residual_squares ||
                         (s.residual_squares == chosen->score.residual_squares &&
                          (s.settings.size() < chosen->score.settings.size() ||
                           (s.settings.size() == chosen->score.settings.size() &&
                            s.search_order < chosen->score.search_order)));
      if (ahead) chosen = &e;
    }
    if (!chosen) return;
    PartialExplanation partial;
    partial.score = chosen->score;
    for (const Evaluation* other : qualifying)
      if (other != chosen && other->score.settings.size() == chosen->score.settings.size() &&
          nearly_same_references(other->references, chosen->references, extent_))
        partial.equally.push_back(joined(other->score.settings));
    partial.removed_share = base_.score.residual_squares > 0.0
                                ? 1.0 - chosen->score.residual_squares / base_.score.residual_squares
                                : 0.0;
    const size_t observation = observation_to_bisect();
    partial.rest_stage = diagnoser_.first_divergence(observations_[observation], chosen->score.conventions);
    partial.rest_stage_label = observations_[observation].label;
    diagnosis_.partial = std::move(partial);
  }

  // `settings`' score under `allowances` (the diagnoser's own allowances restored after).
  CandidateScore score_allowing(const std::vector<std::string>& settings, const EngineAllowances& allowances) {
    diagnoser_.set_allowances(allowances);
    Evaluation e = diagnoser_.evaluate(settings);
    diagnoser_.set_allowances(settings_.allowances);
    ++diagnosis_.candidates_tried;
    return e.score;
  }

  // The allowances that explain what no convention does, on top of the partial explanation or the closest
  // candidate (diagnose.h, "Allowances").
  void fit_allowances() {
    std::vector<std::string> settings;
    if (diagnosis_.partial) settings = diagnosis_.partial->score.settings;
    else if (!diagnosis_.ranked.empty() && diagnosis_.ranked.front().failing() < base_.score.failing())
      settings = diagnosis_.ranked.front().settings;
    diagnosis_.allowance_fits = fit_allowances_with(
        [&](const EngineAllowances& allowances) { return score_allowing(settings, allowances); }, settings,
        settings_.allowances);
  }

  void conclude() {
    std::vector<CandidateScore>& ranked = diagnosis_.ranked;
    if (!diagnosis_.matches_specification && !leader_explains() && !observations_.empty()) {
      find_partial();
      if (!settings_.recipe) fit_allowances();
    }
    if (!ranked.empty() && ranked.front().failing() >= base_.score.failing())
      ranked.clear();  // nothing did better than the specification: no candidate to name
    const CandidateScore best = diagnosis_.best();
    diagnosis_.explained = best.failing() == 0;
    for (size_t i = 1; i < ranked.size(); ++i) {
      if (ranked[i].failing() != best.failing() || ranked[i].settings.size() != best.settings.size()) break;
      diagnosis_.equally.push_back(joined(ranked[i].settings));
    }
    if (!diagnosis_.explained && !observations_.empty()) {
      const size_t chosen = observation_to_bisect();
      diagnosis_.first_stage = diagnoser_.first_divergence(observations_[chosen], settings_.base);
      diagnosis_.first_stage_label = observations_[chosen].label;
      for (const DiagnoseObservation& observation : observations_)
        if (const std::optional<double> fits = diagnoser_.time_that_fits(observation, settings_.base))
          diagnosis_.time_mismatches.push_back({observation.label, observation.time, *fits});
    }
    if (extent_ <= 0.0) return;
    for (const std::string& setting : best.settings) {
      // A loop's own convention shows with the loop only.
      std::vector<std::string> alone{setting};
      if (setting.rfind("wrap-period=", 0) == 0 || setting.rfind("at-end=", 0) == 0) alone.insert(alone.begin(), "playback=loop");
      const Evaluation single = diagnoser_.evaluate(alone);
      diagnosis_.effects.push_back({setting, largest_position_change(single.references, base_.references) / extent_,
                                    largest_normal_change(single.references, base_.references)});
    }
    std::vector<std::vector<WorldPrimitive>> tests;
    for (const DiagnoseObservation& observation : observations_) tests.push_back(observation.vertices);
    const Evaluation& best_evaluation = best.settings.empty() ? base_ : evaluated_.at(best.settings);
    diagnosis_.engine_error = largest_position_change(tests, best_evaluation.references) / extent_;
  }

  const std::vector<DiagnoseObservation>& observations_;
  const DiagnoseSettings& settings_;
  double extent_;
  Diagnoser diagnoser_;
  Evaluation base_;
  Diagnosis diagnosis_;
  std::map<std::vector<std::string>, Evaluation> evaluated_;
  std::set<std::vector<std::string>> no_effect_;
  std::vector<std::vector<std::string>> candidates_;  // diagnose_candidates(), those a recipe takes
  std::vector<std::vector<std::string>> mistakes_;    // diagnose_mistakes(), likewise
};

}  // namespace

std::vector<AllowanceFit> fit_allowances_with(const AllowanceScorer& score_with,
                                              const std::vector<std::string>& settings, const EngineAllowances& known) {
  double EngineAllowances::*const kinds[] = {&EngineAllowances::rotation, &EngineAllowances::translation_scale,
                                             &EngineAllowances::interpolation};
  std::vector<AllowanceFit> fits;
  auto keep = [&](const EngineAllowances& fit) {
    AllowanceFit result{settings, fit, score_with(fit)};
    if (result.score.failing() == 0) fits.push_back(std::move(result));
  };
  for (double EngineAllowances::*kind : kinds) {
    EngineAllowances alone = known;
    alone.*kind = std::max(alone.*kind, kLargestAllowance);
    if (score_with(alone).failing() != 0) continue;
    shrink_allowance(score_with, alone, kind);
    keep(alone);
  }
  if (!fits.empty()) return fits;
  EngineAllowances all = known;
  for (double EngineAllowances::*kind : kinds) all.*kind = std::max(all.*kind, kLargestAllowance);
  if (score_with(all).failing() != 0) return fits;
  for (int round = 0; round < 2; ++round)
    for (double EngineAllowances::*kind : kinds) shrink_allowance(score_with, all, kind);
  keep(all);
  return fits;
}

struct CandidateEvaluator::Impl {
  Impl(const Scene& scene, std::vector<DiagnoseObservation> observations_, const DiagnoseSettings& settings_)
      : observations(std::move(observations_)),
        settings(settings_),
        diagnoser(scene, observations, settings,
                  observations.empty() ? 0.0 : positions_extent(observations.front().vertices)) {}
  std::vector<DiagnoseObservation> observations;
  DiagnoseSettings settings;
  Diagnoser diagnoser;
};

CandidateEvaluator::CandidateEvaluator(const Scene& scene, std::vector<DiagnoseObservation> observations,
                                       const DiagnoseSettings& settings)
    : impl_(std::make_unique<Impl>(scene, std::move(observations), settings)) {}
CandidateEvaluator::~CandidateEvaluator() = default;

CandidateScore CandidateEvaluator::score(const std::vector<std::string>& assignments,
                                         const EngineAllowances& allowances) {
  impl_->diagnoser.set_allowances(allowances);
  return impl_->diagnoser.evaluate(assignments).score;
}

bool recipe_applicable(const Conventions& conventions) {
  Conventions taken = conventions;
  taken.time = TimeConventions{};
  taken.palette = PaletteConventions{};
  const SamplingConventions sampling = conventions.sampling;
  taken.sampling = SamplingConventions{};
  taken.sampling.resample_hz = sampling.resample_hz;
  taken.sampling.translation_scale_keys = sampling.translation_scale_keys;
  taken.sampling.rotation_keys = sampling.rotation_keys;
  taken.sampling.cubic_weights = sampling.cubic_weights;
  taken.sampling.step = sampling.step;
  taken.morph.defaults = MorphDefaults::Used;
  taken.morph.max_targets = kEveryMorphTarget;
  taken.morph.negative_weights = NegativeMorphWeights::Kept;
  // The mistakes of reading the file and of skinning; a recipe's pose takes none of the pose stages'.
  const Mistakes& mistakes = conventions.mistakes;
  taken.mistakes = Mistakes{};
  taken.mistakes.quaternion_order = mistakes.quaternion_order;
  taken.mistakes.rotations = mistakes.rotations;
  taken.mistakes.handedness = mistakes.handedness;
  taken.mistakes.skinning = mistakes.skinning;
  taken.mistakes.joint_offset = mistakes.joint_offset;
  return same_conventions(taken, conventions);
}

Diagnosis diagnose(const Scene& scene, const std::vector<DiagnoseObservation>& observations,
                   const DiagnoseSettings& settings) {
  return Search(scene, observations, settings).run();
}

}  // namespace skinref
