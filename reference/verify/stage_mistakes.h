// The implementation mistake (core/mistakes.h) that a pose dump's first diverging stage shows: given the stage
// bisect_stages() found (verify/stage_bisection.h), each mistake of that stage is evaluated from the engine's
// own inputs to it, and the one that reproduces the engine's values of the stage is named ("your globals are
// your locals") before any vertex is skinned.
//
// Contract:
// - Sampling: each load, time and sampling mistake evaluated by the reference at the engine's pose time; the
//   engine's local transforms (as matrices, so that q and -q agree) against them.
// - Local to model: each hierarchy mistake applied to the engine's own local transforms; its globals against them.
// - Palette: each palette mistake (and skeleton-ancestors=dropped|doubled) applied to the engine's own globals
//   and the file's inverse bind matrices; its joint matrices against them.
// - Morph: morph-weights=shifted|reversed and morph-targets=0 applied to the reference's weights.
// - A mistake reproduces the stage when every value is within kStageMistakeMatch relative to max(1, |value|)
//   (float32 dumps printed with 6 or more digits are far within it; a mistake that does not apply moves values
//   by orders more). The first that does, in the order of convention_fields(), is returned with the others that
//   do as well (a symmetric clip plays key-pair=one-late as interpolation-factor=reversed); none otherwise
//   (and for the time-mapping, blend, IK and skinning stages, which vertex dumps diagnose instead).
#pragma once

#include "core/conventions.h"
#include "core/pose.h"
#include "verify/stage_bisection.h"

#include <optional>
#include <string>
#include <vector>

namespace skinref {

inline constexpr double kStageMistakeMatch = 1e-4;

struct StageMistake {
  std::string assignment;  // "parent-chain=ignored"
  std::string words;       // "your globals are your locals"
  std::vector<std::string> equally;  // the other mistakes that reproduce the stage as well here
};

std::optional<StageMistake> name_stage_mistake(const Scene& scene, const EvaluatedPose& reference,
                                               const EvaluatedPose& test, PipelineStage stage);

}  // namespace skinref
