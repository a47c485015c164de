#include "verify/stage_mistakes.h"

#include "anim/evaluate_pose.h"
#include "anim/palette.h"
#include "anim/pose_mistakes.h"
#include "anim/scene_mistakes.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

namespace skinref {
namespace {

bool close(const Mat4& a, const Mat4& b) {
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 4; ++c)
      if (!(std::abs(a(r, c) - b(r, c)) <= kStageMistakeMatch * std::max(1.0, std::abs(b(r, c))))) return false;
  return true;
}

bool all_close(const std::vector<Mat4>& a, const std::vector<Mat4>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!close(a[i], b[i])) return false;
  return true;
}

std::vector<Mat4> local_matrices(const LocalPose& pose) {
  std::vector<Mat4> matrices;
  for (const Transform& trs : pose.local) matrices.push_back(compose_trs(trs));
  return matrices;
}

// What a user reads: the mistake in the stage's own words.
std::string words_for(const std::string& assignment) {
  static const std::map<std::string, std::string> kWords{
      {"parent-chain=ignored", "your globals are your locals: no node's transform is composed with its parent's"},
      {"parent-chain=reversed", "your globals compose each local before its parent's global (L G, not G L)"},
      {"trs-order=s-r-t", "your locals are composed as S R T, not glTF's T R S"},
      {"trs-order=r-s-t", "your locals are composed as R S T, not glTF's T R S"},
      {"trs-order=t-s-r", "your locals are composed as T S R, not glTF's T R S"},
      {"palette-matrices=transposed", "your joint matrices are transposed (row- and column-major mixed up)"},
      {"palette-product=inverse-bind-times-global", "your joint matrices are IBM G, not G IBM"},
      {"inverse-bind-use=missing", "your joint matrices are your globals: the inverse bind matrices are not applied"},
      {"inverse-bind-use=twice", "your joint matrices apply the inverse bind matrix twice"},
      {"inverse-bind-use=transposed", "your inverse bind matrices are read transposed"},
      {"skeleton-ancestors=dropped", "the transforms above the skeleton root are dropped from your joint matrices"},
      {"skeleton-ancestors=doubled", "the transforms above the skeleton root are applied twice in your joint matrices"},
      {"quaternion-order=wxyz", "your rotations are read as (w, x, y, z); glTF stores (x, y, z, w)"},
      {"rotation-sense=conjugated", "your rotations are the inverses (conjugates) of the file's"},
      {"animation=not-played", "your locals are the rest pose: the clip is not played"},
      {"interpolation-factor=reversed", "your interpolation factor runs backwards between keys (1 - u)"},
      {"key-pair=one-late", "you interpolate the pair of keys after the one around the time"},
      {"key-pair=one-early", "you interpolate the pair of keys before the one around the time"},
      {"translation-channels=ignored", "your translation channels are not played"},
      {"rotation-channels=ignored", "your rotation channels are not played"},
      {"scale-channels=ignored", "your scale channels are not played"},
  };
  const auto found = kWords.find(assignment);
  if (found != kWords.end()) return found->second;
  const std::string name = assignment.substr(0, assignment.find('='));
  const ConventionField* field = find_convention_field(name);
  return field ? std::string(field->summary) : assignment;
}

// The mistakes whose field acts at `stage` ("sampling": the load, time and sampling ones).
std::vector<std::string> mistakes_of(const std::vector<std::string>& stages) {
  std::vector<std::string> found;
  for (const ConventionField& field : convention_fields())
    if (std::find(stages.begin(), stages.end(), field.stage) != stages.end())
      for (const std::string& value : field.mistakes) found.push_back(std::string(field.name) + "=" + value);
  return found;
}

Conventions with(const std::string& assignment) {
  Conventions conventions;
  set_convention(conventions, assignment);
  return conventions;
}

std::vector<std::string> sampling_mistakes(const Scene& scene, const EvaluatedPose& reference, const EvaluatedPose& test) {
  const std::vector<Mat4> engine = local_matrices(test.local);
  std::vector<std::string> found;
  for (const std::string& assignment : mistakes_of({"load", "time", "sampling"})) {
    const Conventions conventions = with(assignment);
    Scene read = scene;
    apply_scene_mistakes(read, conventions.mistakes);
    if (all_close(local_matrices(evaluate_pose(read, reference.animation, reference.time, conventions).local), engine))
      found.push_back(assignment);
  }
  return found;
}

std::vector<std::string> hierarchy_mistakes(const Scene& scene, const EvaluatedPose& test) {
  std::vector<std::string> found;
  for (const std::string& assignment : mistakes_of({"hierarchy"})) {
    ModelPose model;
    local_to_model_with_mistakes(scene, test.local, with(assignment).mistakes, model);
    if (all_close(model.global, test.model.global)) found.push_back(assignment);
  }
  return found;
}

std::vector<std::string> palette_mistakes(const Scene& scene, const EvaluatedPose& test) {
  std::vector<std::string> found;
  std::vector<std::string> candidates = mistakes_of({"palette"});
  candidates.insert(candidates.begin(), "skeleton-ancestors=dropped");
  for (const std::string& assignment : candidates) {
    if (assignment.rfind("mesh-node=", 0) == 0) continue;  // acts on the vertices, not the palette
    const Conventions conventions = with(assignment);
    bool every_skin = !scene.skins.empty() && test.palettes.size() == scene.skins.size();
    for (size_t s = 0; every_skin && s < scene.skins.size(); ++s)
      every_skin = all_close(compute_palette(scene, test.model, int(s), conventions.palette, conventions.mistakes).skinning,
                             test.palettes[s].skinning);
    if (every_skin) found.push_back(assignment);
  }
  return found;
}

std::vector<std::string> morph_mistakes(const EvaluatedPose& reference, const EvaluatedPose& test) {
  std::vector<std::string> found;
  for (const char* assignment : {"morph-weights=shifted", "morph-weights=reversed", "morph-targets=0"}) {
    LocalPose weights = reference.local;
    const Conventions conventions = with(assignment);
    apply_morph_weight_mistake(conventions.mistakes.morph_weights, weights);
    if (conventions.morph.max_targets == 0)
      for (std::vector<double>& w : weights.morph_weights) std::fill(w.begin(), w.end(), 0.0);
    bool same = weights.morph_weights.size() == test.local.morph_weights.size() && weights.morph_weights != reference.local.morph_weights;
    for (size_t n = 0; same && n < weights.morph_weights.size(); ++n) {
      same = weights.morph_weights[n].size() == test.local.morph_weights[n].size();
      for (size_t k = 0; same && k < weights.morph_weights[n].size(); ++k)
        same = std::abs(weights.morph_weights[n][k] - test.local.morph_weights[n][k]) <=
               kStageMistakeMatch * std::max(1.0, std::abs(weights.morph_weights[n][k]));
    }
    if (same) found.push_back(assignment);
  }
  return found;
}

}  // namespace

std::optional<StageMistake> name_stage_mistake(const Scene& scene, const EvaluatedPose& reference,
                                               const EvaluatedPose& test, PipelineStage stage) {
  std::vector<std::string> found;
  switch (stage) {
    case PipelineStage::Sampling: found = sampling_mistakes(scene, reference, test); break;
    case PipelineStage::LocalToModel: found = hierarchy_mistakes(scene, test); break;
    case PipelineStage::Palette: found = palette_mistakes(scene, test); break;
    case PipelineStage::Morph: found = morph_mistakes(reference, test); break;
    case PipelineStage::TimeMapping:
    case PipelineStage::Blend:
    case PipelineStage::Ik:
    case PipelineStage::Skinning:
    case PipelineStage::None: break;
  }
  if (found.empty()) return std::nullopt;
  return StageMistake{found.front(), words_for(found.front()), std::vector<std::string>(found.begin() + 1, found.end())};
}

}  // namespace skinref
