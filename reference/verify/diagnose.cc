#include "verify/diagnose.h"

#include "anim/evaluate_pose.h"
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
#include <map>
#include <memory>
#include <set>

namespace skinref {
namespace {

// The fields each cache level depends on: a scene depends on the load and clip conventions, a pose on those
// and the time, sampling, morph-weight and skeleton ones; the vertices on everything.
const std::set<std::string> kSceneFields{"influences", "joint-sentinel", "inverse-bind", "resample",
                                         "key-translation-scale", "key-rotation"};
const std::set<std::string> kVertexOnlyFields{"mesh-node", "morph-order", "weights", "zero-weights", "normals",
                                              "normalize"};

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

std::string number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", value);
  return text;
}

// Two candidates whose reference positions differ by at most this fraction of the extent are the same
// explanation as far as any float32 dump can tell (float32 resolves about 6e-8 of a value).
constexpr double kIndistinguishable = 1e-10;

struct Evaluation {
  std::vector<std::vector<WorldPrimitive>> references;  // per observation
  CandidateScore score;
};

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
    if (conventions.palette.mesh_node != MeshNodeTransform::Ignored) {
      Mat4 transform = pose.model.global[size_t(world.node)];
      if (conventions.palette.mesh_node == MeshNodeTransform::Inverse) transform = transform.inverse().eval();
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

class Diagnoser {
 public:
  Diagnoser(const Scene& scene, const std::vector<DiagnoseObservation>& observations, const DiagnoseSettings& settings,
            double extent)
      : source_(scene), observations_(observations), settings_(settings), extent_(extent) {}

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
      const std::string bounds_key = pose_key + "|" + skinning_key(conventions);
      const std::vector<PrimitiveErrorBounds>& bounds = vertex_bounds_for(bounds_key, scene, conventions, pose, options);
      const bool after_skinning = conventions.morph.order == MorphOrder::AfterSkinning ||
                                  conventions.palette.mesh_node != MeshNodeTransform::Ignored;
      const VertexComparison comparison = compare_vertices(
          scene, reference, observations_[o].vertices,
          after_skinning ? widened_for_after_skinning(scene, pose, conventions, reference, bounds) : bounds);
      CandidateScore& s = result.score;
      s.values += comparison.values;
      s.over += comparison.over;
      s.unbounded += comparison.unbounded;
      s.over_positions += comparison.over_positions;
      s.over_normals += comparison.over_normals;
      s.over_tangents += comparison.over_tangents;
      s.max_ratio = std::max(s.max_ratio, comparison.max_ratio);
      add_residuals(reference, observations_[o].vertices, extent_, s);
      if (o == 0 || comparison.over + comparison.unbounded > worst_over) {
        worst_over = comparison.over + comparison.unbounded;
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
    const double sample_time = settings_.animation >= 0
                                   ? convention_sample_time(scene.animations[size_t(settings_.animation)], time,
                                                            conventions.time)
                                   : 0.0;
    const PoseErrorBounds pose_bounds = float32_pose_error_bounds(scene, settings_.animation, sample_time);
    const std::vector<PrimitiveErrorBounds> bounds = float32_vertex_error_bounds(scene, pose, options, &pose_bounds);
    const EvaluatedPose* test_pose = observation.pose ? &*observation.pose : nullptr;
    return bisect_stages(scene, pose, test_pose, test_pose ? &pose_bounds : nullptr, reference, observation.vertices,
                         bounds);
  }

 private:

  const Scene& scene_for(const Conventions& conventions) {
    const std::string key = key_of(conventions, true, false);
    auto found = scenes_.find(key);
    if (found == scenes_.end()) {
      auto scene = std::make_unique<Scene>(source_);
      apply_scene_conventions(*scene, conventions);
      found = scenes_.emplace(key, std::move(scene)).first;
    }
    return *found->second;
  }

  const EvaluatedPose& pose_for(const std::string& key, const Scene& scene, const Conventions& conventions,
                                double time) {
    auto found = poses_.find(key);
    if (found == poses_.end())
      found = poses_.emplace(key, evaluate_pose(scene, settings_.animation, time, conventions)).first;
    return found->second;
  }

  const std::vector<PrimitiveErrorBounds>& vertex_bounds_for(const std::string& key, const Scene& scene,
                                                             const Conventions& conventions, const EvaluatedPose& pose,
                                                             const SkinningOptions& options) {
    auto found = vertex_bounds_.find(key);
    if (found != vertex_bounds_.end()) return found->second;
    const double sample_time = settings_.animation >= 0
                                   ? convention_sample_time(scene.animations[size_t(settings_.animation)], pose.time,
                                                            conventions.time)
                                   : 0.0;
    const PoseErrorBounds pose_bounds = float32_pose_error_bounds(scene, settings_.animation, sample_time);
    if (!influences_need_adjusting(conventions.skinning))
      return vertex_bounds_.emplace(key, float32_vertex_error_bounds(scene, pose, options, &pose_bounds)).first->second;
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
    return vertex_bounds_.emplace(key, float32_vertex_error_bounds(adjusted, pose, options, &pose_bounds))
        .first->second;
  }

  const Scene& source_;
  const std::vector<DiagnoseObservation>& observations_;
  const DiagnoseSettings& settings_;
  double extent_;
  std::map<std::string, std::unique_ptr<Scene>> scenes_;
  std::map<std::string, EvaluatedPose> poses_;
  std::map<std::string, std::vector<PrimitiveErrorBounds>> vertex_bounds_;
};

bool better(const CandidateScore& a, const CandidateScore& b) {
  if (a.failing() != b.failing()) return a.failing() < b.failing();
  if (a.settings.size() != b.settings.size()) return a.settings.size() < b.settings.size();
  if (a.residual_squares != b.residual_squares) return a.residual_squares < b.residual_squares;
  return a.search_order < b.search_order;
}

// Largest position distance between two evaluations, over every observation.
double largest_position_change(const std::vector<std::vector<WorldPrimitive>>& a,
                               const std::vector<std::vector<WorldPrimitive>>& b) {
  double largest = 0.0;
  for (size_t o = 0; o < a.size(); ++o)
    for (size_t p = 0; p < a[o].size() && p < b[o].size(); ++p) {
      const auto& pa = a[o][p].vertices.positions;
      const auto& pb = b[o][p].vertices.positions;
      for (size_t v = 0; v < pa.size() && v < pb.size(); ++v) largest = std::max(largest, (pa[v] - pb[v]).norm());
    }
  return largest;
}

double largest_normal_change(const std::vector<std::vector<WorldPrimitive>>& a,
                             const std::vector<std::vector<WorldPrimitive>>& b) {
  double largest = 0.0;
  for (size_t o = 0; o < a.size(); ++o)
    for (size_t p = 0; p < a[o].size() && p < b[o].size(); ++p) {
      const auto& na = a[o][p].vertices.normals;
      const auto& nb = b[o][p].vertices.normals;
      for (size_t v = 0; v < na.size() && v < nb.size(); ++v) largest = std::max(largest, (na[v] - nb[v]).norm());
    }
  return largest;
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

double extent_of(const std::vector<WorldPrimitive>& primitives) {
  Vec3 low = Vec3::Constant(INFINITY), high = Vec3::Constant(-INFINITY);
  for (const WorldPrimitive& p : primitives)
    for (const Vec3& position : p.vertices.positions) {
      low = low.cwiseMin(position);
      high = high.cwiseMax(position);
    }
  return low.x() <= high.x() ? (high - low).norm() : 0.0;
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
    }
  }
  candidates.insert(candidates.end(), influence_limits.begin(), influence_limits.end());
  return candidates;
}

Diagnosis diagnose(const Scene& scene, const std::vector<DiagnoseObservation>& observations,
                   const DiagnoseSettings& settings) {
  Diagnosis diagnosis;
  diagnosis.extent = observations.empty() ? 0.0 : extent_of(observations.front().vertices);
  Diagnoser diagnoser(scene, observations, settings, diagnosis.extent);
  diagnosis.base_settings = convention_differences(settings.base);
  const Evaluation base = diagnoser.evaluate({});
  diagnosis.base = base.score;
  diagnosis.candidates_tried = 1;
  diagnosis.matches_specification = base.score.failing() == 0;

  std::map<std::vector<std::string>, Evaluation> evaluated;
  auto try_candidate = [&](const std::vector<std::string>& assignments) -> const Evaluation* {
    if (evaluated.count(assignments)) return &evaluated.at(assignments);
    Evaluation evaluation = diagnoser.evaluate(assignments);
    evaluation.score.search_order = diagnosis.candidates_tried++;
    if (same_references(evaluation.references, base.references)) {
      std::string text;
      for (const std::string& a : assignments) text += (text.empty() ? "" : ", ") + a;
      diagnosis.no_effect.push_back(text);
      return nullptr;
    }
    return &evaluated.emplace(assignments, std::move(evaluation)).first->second;
  };

  if (diagnosis.matches_specification && base.score.residual > kNoiseFloor) {
    // Within the bounds, but perhaps not by chance: a single convention that fits far closer is named.
    for (const std::vector<std::string>& candidate : diagnose_candidates()) {
      const Evaluation* e = try_candidate(candidate);
      if (!e || e->score.failing() != 0 || e->score.residual * kCloserFit > base.score.residual) continue;
      // One of two candidates that are the same here (nlerp and lerp where no key pair needs the hemisphere
      // check) is enough.
      bool same_as_listed = false;
      for (const CandidateScore& listed : diagnosis.closer_fits)
        same_as_listed |= nearly_same_references(evaluated.at(listed.settings).references, e->references, diagnosis.extent);
      if (!same_as_listed) diagnosis.closer_fits.push_back(e->score);
    }
    std::stable_sort(diagnosis.closer_fits.begin(), diagnosis.closer_fits.end(),
                     [](const CandidateScore& a, const CandidateScore& b) { return a.residual < b.residual; });
    evaluated.clear();  // the verdict is the specification's
  }
  if (!diagnosis.matches_specification) {
    std::vector<const Evaluation*> partners;  // every single with an effect, in evaluation order
    for (const std::vector<std::string>& candidate : diagnose_candidates())
      if (const Evaluation* e = try_candidate(candidate)) partners.push_back(e);
    auto by_score = [](const Evaluation* a, const Evaluation* b) { return better(a->score, b->score); };
    std::vector<const Evaluation*> singles = partners;
    std::stable_sort(singles.begin(), singles.end(), by_score);
    const bool solved = !singles.empty() && singles.front()->score.failing() == 0;
    // Combinations: each of the `beam` best candidates so far with every single of another field. A partial
    // explanation need not lower the count on its own (nlerp leaves the normals of blended vertices off when
    // the engine also blends normal matrices), so every single is a possible partner.
    std::vector<const Evaluation*> level(singles.begin(), singles.begin() + std::ptrdiff_t(std::min(settings.beam, singles.size())));
    for (int size = 2; !solved && size <= settings.max_settings && !level.empty(); ++size) {
      std::vector<const Evaluation*> next;
      for (const Evaluation* a : level)
        for (const Evaluation* b : partners) {
          const std::set<std::string> a_names = names_of(a->score.settings);
          bool overlap = false;
          for (const std::string& name : names_of(b->score.settings)) overlap |= a_names.count(name) != 0;
          if (overlap) continue;
          const std::vector<std::string> combined = merged(a->score.settings, b->score.settings);
          if (const Evaluation* e = try_candidate(combined)) next.push_back(e);
        }
      std::stable_sort(next.begin(), next.end(), by_score);
      next.erase(std::unique(next.begin(), next.end()), next.end());
      if (!next.empty() && next.front()->score.failing() == 0) break;
      if (next.size() > settings.beam) next.resize(settings.beam);
      level = next;
    }
  }
  for (const auto& [assignments, evaluation] : evaluated) diagnosis.ranked.push_back(evaluation.score);
  std::stable_sort(diagnosis.ranked.begin(), diagnosis.ranked.end(), better);
  // Candidates these dumps cannot tell apart (the same counts, as many conventions, and references within
  // rounding of each other, e.g. influences=top4 and first-set on a model whose first set holds the largest
  // weights): their max ratios differ by rounding only, so the one evaluated first (the commoner) is named.
  if (diagnosis.ranked.size() > 1) {
    const CandidateScore leader = diagnosis.ranked.front();
    const auto& leader_references = evaluated.at(leader.settings).references;
    size_t chosen = 0;
    for (size_t i = 1; i < diagnosis.ranked.size(); ++i) {
      const CandidateScore& other = diagnosis.ranked[i];
      if (other.failing() != leader.failing() || other.settings.size() != leader.settings.size()) break;
      if (nearly_same_references(evaluated.at(other.settings).references, leader_references, diagnosis.extent) &&
          other.search_order < diagnosis.ranked[chosen].search_order)
        chosen = i;
    }
    std::rotate(diagnosis.ranked.begin(), diagnosis.ranked.begin() + std::ptrdiff_t(chosen),
                diagnosis.ranked.begin() + std::ptrdiff_t(chosen) + 1);
  }
  // Refinement: an explanation with nothing over may still leave an error far above float32 noise that one
  // more convention removes (quantized keys under wide slerp bounds): take it while it fits kCloserFit times
  // closer and keeps nothing over.
  while (!diagnosis.ranked.empty() && diagnosis.ranked.front().failing() == 0 &&
         diagnosis.ranked.front().residual > kNoiseFloor &&
         int(diagnosis.ranked.front().settings.size()) < settings.max_settings) {
    const CandidateScore current = diagnosis.ranked.front();
    const Evaluation* refined = nullptr;
    for (const std::vector<std::string>& candidate : diagnose_candidates()) {
      const std::set<std::string> names = names_of(current.settings);
      bool overlap = false;
      for (const std::string& name : names_of(candidate)) overlap |= names.count(name) != 0;
      if (overlap) continue;
      const Evaluation* e = try_candidate(merged(current.settings, candidate));
      if (e && e->score.failing() == 0 && e->score.residual * kCloserFit <= current.residual &&
          (!refined || e->score.residual_squares < refined->score.residual_squares))
        refined = e;
    }
    if (!refined) break;
    diagnosis.ranked.insert(diagnosis.ranked.begin(), refined->score);
  }
  // Polish: each convention of the leader against the other values of its field (nlerp for lerp,
  // blend-normal-matrices for blend-upper3x3): a value that keeps nothing over and fits closer replaces it;
  // between two the dumps cannot tell apart, the commoner (earlier in the field's list) is kept.
  for (int round = 0; round < 4 && !diagnosis.ranked.empty() && diagnosis.ranked.front().failing() == 0; ++round) {
    const CandidateScore current = diagnosis.ranked.front();
    const Evaluation& current_evaluation = evaluated.at(current.settings);
    const Evaluation* replacement = nullptr;
    for (size_t k = 0; k < current.settings.size(); ++k) {
      const std::string name = current.settings[k].substr(0, current.settings[k].find('='));
      if (name == "playback") continue;  // comes with the loop's own conventions
      for (const std::vector<std::string>& candidate : diagnose_candidates()) {
        const std::string& assignment = candidate.back();
        if (assignment.substr(0, assignment.find('=')) != name || assignment == current.settings[k]) continue;
        std::vector<std::string> swapped = current.settings;
        swapped.erase(swapped.begin() + std::ptrdiff_t(k));
        const Evaluation* e = try_candidate(merged(swapped, candidate));
        if (!e || e->score.failing() != 0) continue;
        const Evaluation& best_so_far = replacement ? *replacement : current_evaluation;
        const bool same = nearly_same_references(e->references, best_so_far.references, diagnosis.extent);
        if (same ? candidate_rank(candidate) < candidate_rank({current.settings[k]})
                 : e->score.residual_squares < best_so_far.score.residual_squares)
          replacement = e;
      }
    }
    if (!replacement) break;
    diagnosis.ranked.insert(diagnosis.ranked.begin(), replacement->score);
  }
  if (!diagnosis.ranked.empty() && !better(diagnosis.base, diagnosis.ranked.front()) &&
      diagnosis.ranked.front().failing() >= diagnosis.base.failing())
    diagnosis.ranked.clear();  // nothing did better than the specification: no candidate to name
  const CandidateScore& best = diagnosis.best();
  diagnosis.explained = best.failing() == 0;
  for (size_t i = 1; i < diagnosis.ranked.size(); ++i) {
    const CandidateScore& other = diagnosis.ranked[i];
    if (other.failing() != best.failing() || other.settings.size() != best.settings.size()) break;
    std::string text;
    for (const std::string& a : other.settings) text += (text.empty() ? "" : ", ") + a;
    diagnosis.equally.push_back(text);
  }
  if (!diagnosis.explained && !observations.empty()) {
    // Where the engine first left glTF 2.0: its pose dump where it has one, else its vertices.
    size_t chosen = 0;
    for (size_t o = 0; o < observations.size(); ++o)
      if (observations[o].pose) {
        chosen = o;
        break;
      }
    const DiagnoseObservation& observation = observations[chosen];
    diagnosis.first_stage = diagnoser.first_divergence(observation, settings.base);
    diagnosis.first_stage_label = observation.label;
  }
  // Effects: each convention of the best alone, against the specification; the engine's error against the best.
  const Evaluation& best_evaluation = best.settings.empty() ? base : evaluated.at(best.settings);
  if (diagnosis.extent > 0.0) {
    for (const std::string& setting : best.settings) {
      const Evaluation single = diagnoser.evaluate({setting});
      diagnosis.effects.push_back({setting, largest_position_change(single.references, base.references) / diagnosis.extent,
                                   largest_normal_change(single.references, base.references)});
    }
    std::vector<std::vector<WorldPrimitive>> tests;
    for (const DiagnoseObservation& observation : observations) tests.push_back(observation.vertices);
    diagnosis.engine_error = largest_position_change(tests, best_evaluation.references) / diagnosis.extent;
  }
  return diagnosis;
}

namespace {

std::string settings_text(const std::vector<std::string>& settings) {
  std::string text;
  for (const std::string& s : settings) text += (text.empty() ? "" : ", ") + s;
  return text;
}

std::string counts_text(const CandidateScore& s) {
  std::string text = std::to_string(s.over) + " of " + std::to_string(s.values) + " values over";
  if (s.unbounded) text += ", " + std::to_string(s.unbounded) + " unbounded";
  return text;
}

}  // namespace

void print_diagnosis(const Diagnosis& d, std::ostream& out) {
  const std::string base_name =
      d.base_settings.empty() ? std::string("glTF 2.0") : "glTF 2.0 with " + settings_text(d.base_settings);
  const CandidateScore& best = d.best();
  if (d.matches_specification) {
    out << "matches " << base_name << ": " << counts_text(d.base) << "\n";
    for (const CandidateScore& closer : d.closer_fits)
      out << "  but " << settings_text(closer.settings) << " fits " << number(d.base.residual / std::max(closer.residual, 1e-300))
          << " times closer (largest distance " << number(closer.residual) << " of the extent, against "
          << number(d.base.residual) << " for " << base_name << "): the bounds are too wide to tell, the dumps are not\n";
  } else if (d.explained) {
    out << "matches " << base_name << " with " << settings_text(best.settings) << ": " << counts_text(best)
        << " (as specified: " << counts_text(d.base) << ")\n";
    if (!d.equally.empty()) {
      out << "  equally explained by:";
      for (const std::string& other : d.equally) out << " [" << other << "]";
      out << "\n";
    }
  } else {
    out << "no known convention explains it: " << base_name << " has " << counts_text(d.base) << " (positions "
        << d.base.over_positions << ", normals " << d.base.over_normals << ", tangents " << d.base.over_tangents
        << ")\n";
    const StageDivergence& f = d.first_stage;
    out << "  first stage over its bound: " << pipeline_stage_name(f.stage) << " (" << f.values_over
        << " values over, in " << d.first_stage_label << "); worst: " << f.location << ": error " << number(f.error)
        << ", bound " << number(f.bound) << "\n";
    if (!d.ranked.empty())
      out << "  closest: " << settings_text(best.settings) << ": " << counts_text(best) << "\n";
  }
  for (const SettingEffect& effect : d.effects)
    out << "  " << effect.setting << ": moves positions by up to " << number(effect.effect)
        << " of the extent, normals by up to " << number(effect.normal_effect) << "\n";
  if (!d.effects.empty() || d.matches_specification)
    out << "  the engine's own error against it: up to " << number(d.engine_error) << " of the extent ("
        << number(d.extent) << " m), within the float32 bounds: " << (best.failing() == 0 ? "yes" : "no") << "\n";
  out << "  " << d.candidates_tried << " candidates evaluated; " << d.no_effect.size()
      << " change nothing on this model\n";
}

nlohmann::ordered_json diagnosis_json(const Diagnosis& d) {
  auto score_json = [](const CandidateScore& s) {
    nlohmann::ordered_json json;
    json["settings"] = s.settings;
    json["values"] = s.values;
    json["over"] = s.over;
    json["unbounded"] = s.unbounded;
    json["over_by_attribute"] = {{"positions", s.over_positions}, {"normals", s.over_normals},
                                 {"tangents", s.over_tangents}};
    json["max_ratio"] = std::isfinite(s.max_ratio) ? nlohmann::ordered_json(s.max_ratio) : nlohmann::ordered_json(nullptr);
    json["residual_extent"] = s.residual;
    return json;
  };
  nlohmann::ordered_json json;
  json["format"] = "skinref-diagnosis";
  json["version"] = 1;
  json["base_conventions"] = d.base_settings;
  json["matches_specification"] = d.matches_specification;
  json["explained"] = d.explained;
  json["verdict"] = d.best().settings;
  json["equally"] = d.equally;
  nlohmann::ordered_json closer = nlohmann::ordered_json::array();
  for (const CandidateScore& c : d.closer_fits) closer.push_back({{"settings", c.settings}, {"residual_extent", c.residual}});
  json["closer_fits"] = closer;
  json["specification"] = score_json(d.base);
  nlohmann::ordered_json ranked = nlohmann::ordered_json::array();
  for (const CandidateScore& s : d.ranked) ranked.push_back(score_json(s));
  json["ranked"] = ranked;
  json["no_effect"] = d.no_effect;
  json["extent"] = d.extent;
  json["engine_error_extent"] = d.engine_error;
  nlohmann::ordered_json effects = nlohmann::ordered_json::array();
  for (const SettingEffect& e : d.effects)
    effects.push_back({{"setting", e.setting}, {"effect_extent", e.effect}, {"normal_effect", e.normal_effect}});
  json["effects"] = effects;
  json["candidates_tried"] = d.candidates_tried;
  if (!d.explained && !d.matches_specification)
    json["first_stage"] = {{"stage", pipeline_stage_name(d.first_stage.stage)}, {"dump", d.first_stage_label},
                           {"values_over", d.first_stage.values_over}, {"location", d.first_stage.location},
                           {"error", d.first_stage.error}, {"bound", d.first_stage.bound}};
  return json;
}

}  // namespace skinref
