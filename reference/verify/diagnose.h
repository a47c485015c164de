// Diagnosis of an engine's vertex dumps: which known engine conventions (core/conventions.h) explain how
// they differ from glTF 2.0, searched stage by stage.
//
// Contract:
// - Inputs: the model as loaded (with any joint sentinel the file needs; `settings.base` records it and any
//   convention the user states as known), the animation the engine played, its skinning method, and one or
//   more observations: the engine's world-space vertices (positions; normals and tangents where it dumped
//   them) at a playback time. Times are rounded to float32, as the engine's clock was.
// - Every candidate is held to the bounds of an engine that computes its own animation and palette in
//   float32 (settings.bounds: any-order by default, skinref-order on request; verify/bounds_model.h): the pose
//   bounds at the candidate's sampled time carried into the vertex bounds at the candidate's pose (docs/error_bounds.md; for the conventions those
//   analyses do not model, e.g. normals=blend-upper3x3, the bounds of the nearest modelled evaluation, whose
//   rounding error is of the same size).
// - Search: the specification first; then every single convention (diagnose_candidates()); a candidate that
//   changes no reference value on this model is set aside as "no effect". Where the specification leaves
//   values over, the implementation mistakes follow the conventions as singles (diagnose_mistakes(); never
//   tried on dumps the specification explains, so that a correct engine's verdict costs what it did). Then
//   pairs: each of the `beam` singles with the fewest values over, and of the others the `beam` conventions and
//   2 `beam` mistakes closest to the dumps
//   (the smallest squared distance: where two mistakes put nearly every value far over, the count over says
//   little), combined with every single of another field; where none of those pairs explains, every pair of
//   two mistakes with an effect; then triples from the
//   `beam` best pairs likewise, up to `max_settings` conventions together. The search stops at the first
//   level whose best has no value over.
//   Stages are re-evaluated only from the one a convention touches: scenes are cached per load/clip
//   conventions, poses per pose-stage conventions and time, bounds per pose.
// - An explanation moves the values towards the dumps: a candidate with nothing over that removes less than
//   kExplanationShare of the specification's squared distance to them, or a combination one of whose
//   conventions removes less than that of what the others leave, is `coincidental` and counts as failing
//   (bounds widened by allowances, or by a convention's own wider bounds, make such fits likelier).
// - Ranking: fewest values over (or unbounded), then fewest mistakes (of a design choice and a bug that
//   explain alike, the design choice is named), then fewest conventions, then the smallest sum of squared
//   differences (the closest fit), then the order of evaluation (pipeline order, the commoner variant of a field first: nlerp
//   before lerp), so that of two candidates indistinguishable on these dumps the commoner is named. `explained` when the best has none over; `matches_specification` when glTF 2.0 itself has
//   none over.
// - Refinement: a best candidate with nothing over whose largest distance is still above kNoiseFloor of the
//   extent is extended, one convention at a time (up to `max_settings`), by the single that fits at least
//   kCloserFit times closer with nothing over (quantized keys hide under wide slerp bounds until the rest is
//   explained).
// - Effects: for each convention of the best candidate alone, the largest position change it makes to the
//   reference, and the engine's own remaining error against the best candidate, both in units of the
//   extent (the diagonal of the bounding box of the first dump's positions).
// - Closer fits: when the dumps are within the specification's bounds, the single conventions are still
//   tried; one that also has nothing over and fits at least kCloserFit times closer (largest position
//   distance), where glTF's own distance is above float32 noise (kNoiseFloor of the extent), is reported:
//   the bounds are wide enough to hide it (an nlerp engine, say), but the dumps say which rule they follow.
// - Not explained: the first stage over its bound is found by bisect_stages() against the specification, with
//   the engine's pose dump where an observation has one (sampling, local to model, palette), else on the
//   vertices alone.
// - Another time: when nothing explains the dumps (clips only), each observation is compared with the
//   specification at the clip's key times and at kTimeSearchSteps + 1 times evenly over it; the time that fits
//   best, if nothing is over there, is reported (time_mismatches): "matches t = X, not the T given".
// - Partial: when nothing explains the dumps, the candidate that explains most of them is reported with what it
//   leaves (Diagnosis::partial): of the candidates that remove at least kPartialShare of the squared distance
//   from the specification's reference (so the convention moves the values that fail, towards the dump, where
//   they fail; a candidate that only widens bounds or fits by coincidence removes little) and lower the worst
//   error/bound at least kPartialGain times, and of which each convention does the same to what the others
//   leave (no convention rides along on a fit it only nudges), the one that removes the most (then fewer
//   conventions, then the order of evaluation). What is left: its counts over, and the first stage over its
//   bound under it.
// - Allowances: when nothing explains the dumps, the smallest allowances (verify/engine_allowances.h: key
//   rotations, translations and scales, the interpolation factor) that leave nothing over on top of the partial
//   explanation, else the closest candidate, else glTF 2.0 (Diagnosis::allowance_fits): each kind alone that
//   explains, its size the smallest on the grid kLargestAllowance * 2^-i, i = 0 .. kAllowanceHalvings; when none
//   does alone, the three together, shrunk one kind at a time, twice round; none when even the largest of all
//   three leaves a value over. Vertex dumps often cannot tell a rotation's error from a translation's: every
//   kind that explains alone is listed. Conventions stay preferred: allowances are fitted only where no
//   convention explains the dumps. settings.allowances (known allowances) widen every candidate's bounds from
//   the start.
// - Recipes: with settings.recipe the references are the recipe's poses and bounds, and only the conventions a
//   recipe's evaluation takes are candidates (recipe_applicable()).
// - Deterministic: the same inputs give the same verdict, candidate order included.
#pragma once
#include "anim/recipe.h"
#include "core/conventions.h"
#include "core/scene.h"
#include "core/vertices.h"
#include "skin/method.h"
#include "verify/bounds_model.h"
#include "verify/engine_allowances.h"
#include "verify/stage_bisection.h"
#include "verify/vertex_compare.h"
#include <nlohmann/json_fwd.hpp>
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>
namespace skinref {
inline constexpr double kCloserFit = 10.0;
inline constexpr int kTimeSearchSteps = 240;
inline constexpr double kNoiseFloor = 1e-6;
inline constexpr double kPartialShare = 0.9;  // of the squared distance a partial explanation removes at least
inline constexpr double kExplanationShare = 0.5;  // of the squared distance an explanation removes at least
inline constexpr double kPartialGain = 10.0;  // how many times lower it brings the worst error/bound at least
inline constexpr double kLargestAllowance = 1e-2;  // the largest allowance fitted, of each kind
inline constexpr int kAllowanceHalvings = 20;      // the smallest: kLargestAllowance / 2^20, about 1e-8

struct DiagnoseObservation {
  DiagnoseObservation(std::string label_, double time_, std::vector<WorldPrimitive> vertices_,
                      std::optional<EvaluatedPose> pose_ = std::nullopt, int pose_digits_ = 17)
      : label(std::move(label_)),
        time(time_),
        vertices(std::move(vertices_)),
        pose(std::move(pose_)),
        pose_significant_digits(pose_digits_) {}
  std::string label;  // e.g. the dump's file name
  double time = 0.0;
  std::vector<WorldPrimitive> vertices;
  std::optional<EvaluatedPose> pose;  // the engine's pose dump at that time, when it wrote one
  int pose_significant_digits = 17;   // its printing precision (read_pose_dump(), io/pose_dump.h)
};
struct DiagnoseSettings {
  int animation = -1;
  SkinningMethod method = kDefaultSkinningMethod;
  Conventions base;       // what is known of the engine (glTF 2.0 by default); candidates add to it
  int max_settings = 3;   // conventions combined at most
  size_t beam = 6;
  BoundsModel bounds = BoundsModel::AnyOrder;  // what every candidate is held to (verify/bounds_model.h)
  EngineAllowances allowances;  // known allowances: every candidate's bounds widened by them (not for recipes)
  // The engine played a recipe (anim/recipe.h; animation -1): each candidate's reference is the recipe's pose
  // under its conventions, held to the recipe's bounds (verify/recipe_bounds.h). The conventions a recipe's
  // evaluation does not take (time mapping, the sampling rules but key quantization and resampling, palette,
  // morph weight selection) are not candidates then: recipe_applicable().
  std::optional<Recipe> recipe;
  // Loads the model again as the loader reads it under other load conventions (joint sentinel, accessor
  // addressing, sparse: same_accessor_reading(), core/conventions.h), the other conventions not applied. The
  // candidates that read the file differently need it; without it, or where the file cannot be read that way
  // (the loader's InputError), they have no effect.
  std::function<Scene(const LoadConventions& reading)> reload;
  // Called after each candidate's evaluation with its conventions ("NAME=VALUE, ..."), for a progress display;
  // it changes nothing in the search.
  std::function<void(const std::string& candidate)> on_candidate;
};
// Whether a recipe's evaluation takes these conventions (load, key quantization, resampling and the CUBICSPLINE
// weights layout, morph order, skinning); false for the others.
bool recipe_applicable(const Conventions& conventions);
struct CandidateScore {
  std::vector<std::string> settings;  // "NAME=VALUE" added to the base
  Conventions conventions;
  size_t values = 0, over = 0, unbounded = 0, unnormalized = 0;
  size_t over_positions = 0, over_normals = 0, over_tangents = 0;
  double max_ratio = 0.0;
  // How far the dumps are from this candidate's reference: the largest position distance / extent, and the
  // sum of squared differences (positions / extent, normals and tangents as they are) over every value.
  double residual = 0.0;
  double residual_squares = 0.0;
  size_t search_order = 0;  // when it was evaluated: the last tie-breaker (singles in pipeline order first)
  // Nothing over, but not kExplanationShare closer to the dumps than the specification: the values came within
  // their bounds without moving towards the dumps (bounds widened by allowances, a coincidence). Not an
  // explanation: it counts as failing.
  bool coincidental = false;
  VertexComparison worst;   // the comparison of the observation with the most values over
  std::string worst_label;
  size_t failing() const { return over + unbounded + unnormalized + (coincidental ? 1 : 0); }
};
struct SettingEffect {
  std::string setting;
  double effect = 0.0;         // largest position change of the reference, / extent
  double normal_effect = 0.0;  // largest change of a normal (a unit vector; about the angle in radians)
};
// A dump that the specification explains with nothing over at another time than the one given: the engine
// played `fits`, not `given` (a clock, frame or unit mix-up), which no convention names.
struct TimeMismatch {
  std::string label;
  double given = 0.0;
  double fits = 0.0;
};
// The candidate that explains most of dumps that nothing explains whole, and what it leaves unexplained.
struct PartialExplanation {
  CandidateScore score;          // the candidate; its counts and worst error/bound are what is left
  double removed_share = 0.0;    // 1 - its squared distance / the specification's
  StageDivergence rest_stage;    // the first stage over its bound under it
  std::string rest_stage_label;  // the observation that stage comes from
  std::vector<std::string> equally;  // other candidates these dumps cannot tell from it ("a, b" each)
};
// The smallest allowances that, with `settings`, leave nothing over.
struct AllowanceFit {
  std::vector<std::string> settings;
  EngineAllowances allowances;
  CandidateScore score;  // with them
};
struct Diagnosis {
  CandidateScore base;                 // the specification (with settings.base)
  std::vector<CandidateScore> ranked;  // every candidate with an effect, best first
  std::vector<std::string> no_effect;  // candidates that change nothing on this model
  std::vector<std::string> equally;    // other candidates as good as the best (same count over and settings)
  std::vector<CandidateScore> closer_fits;  // when the specification matches: singles that fit far closer
  bool matches_specification = false;
  bool explained = false;
  double extent = 0.0;
  double engine_error = 0.0;           // largest |test - best reference| position / extent
  std::vector<SettingEffect> effects;  // per setting of the best
  size_t candidates_tried = 0;
  std::vector<std::string> base_settings;  // convention_differences(settings.base)
  // When nothing explains the dumps: the first stage over its bound against the specification
  // (stage_bisection.h), from the first observation with a pose dump (sampling, local to model, palette,
  // skinning), else from the vertices (skinning), and the observation it comes from.
  StageDivergence first_stage;
  std::string first_stage_label;
  // When nothing explains the dumps: each observation that fits another time of the clip (its keys and a grid
  // of kTimeSearchSteps over it) with nothing over.
  std::vector<TimeMismatch> time_mismatches;
  // When nothing explains the dumps: the candidate that explains most of them (the contract's "Partial").
  std::optional<PartialExplanation> partial;
  // When nothing explains the dumps: the allowances that do, with the conventions they go with ("Allowances").
  std::vector<AllowanceFit> allowance_fits;
  const CandidateScore& best() const { return ranked.empty() ? base : ranked.front(); }
};
// The single conventions diagnose tries, each as its "NAME=VALUE" assignments (a looping playback's
// conventions come with playback=loop; each key quantization comes alone and with key-scope=every-joint).
std::vector<std::vector<std::string>> diagnose_candidates();
// The implementation mistakes diagnose tries (core/mistakes.h), each as its one "NAME=VALUE".
std::vector<std::vector<std::string>> diagnose_mistakes();
Diagnosis diagnose(const Scene& scene, const std::vector<DiagnoseObservation>& observations,
                   const DiagnoseSettings& settings);

// One model's dumps scored under any conventions and allowances, as diagnose scores each candidate (held to
// settings.bounds, scenes and poses cached across calls): for searches over several models (profile/).
class CandidateEvaluator {
 public:
  CandidateEvaluator(const Scene& scene, std::vector<DiagnoseObservation> observations,
                     const DiagnoseSettings& settings);
  ~CandidateEvaluator();
  CandidateScore score(const std::vector<std::string>& assignments, const EngineAllowances& allowances);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// A score under the allowances given (the conventions fixed by the caller).
using AllowanceScorer = std::function<CandidateScore(const EngineAllowances&)>;
// diagnose's fit of allowances (the contract's "Allowances") on top of `settings`, from `known`: each kind alone
// that leaves nothing over at its smallest size, else the three together shrunk one kind at a time; empty when
// none leaves nothing over at kLargestAllowance.
std::vector<AllowanceFit> fit_allowances_with(const AllowanceScorer& score_with,
                                              const std::vector<std::string>& settings, const EngineAllowances& known);
void print_diagnosis(const Diagnosis& diagnosis, std::ostream& out);
nlohmann::ordered_json diagnosis_json(const Diagnosis& diagnosis);
}  // namespace skinref
