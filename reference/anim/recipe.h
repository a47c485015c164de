// A pose recipe: what plays, as a small JSON file, and its evaluation through the whole pipeline
// (sample -> blend -> additive -> local to model -> IK -> palettes).
//
// Format (version 1; every key is checked, unknown keys are errors):
// {
//   "format": "skinref-recipe", "version": 1,
//   "time": 1.25,                              // global time tau in seconds (optional, default 0)
//   "rotation_blend": "average" | "slerp",     // optional, default "average" (see blending.h)
//   "layers": [                                // blended into the base pose; at least one layer or additive
//     { "clip": PLAYBACK, "weight": 1.0, "mask": MASK },
//     { "crossfade": { "from": PLAYBACK, "to": PLAYBACK, "start": 0.5, "duration": 0.25, "sync": false },
//       "weight": 1.0, "mask": MASK }
//   ],
//   "additive": [                              // applied in order on top of the blended base
//     { "clip": PLAYBACK, "reference": { "animation": NAME|INDEX, "time": 0.0 } | "rest",
//       "weight": 0.5, "mask": MASK }
//   ],
//   "ik": [                                    // applied in order after local to model
//     { "type": "two-bone", "root": NODE, "middle": NODE, "end": NODE, "target": [x, y, z],
//       "pole": [x, y, z], "weight": 1.0, "soft": 1.0 },
//     { "type": "aim", "joint": NODE, "forward": [x, y, z], "up": [x, y, z], "target": [x, y, z],
//       "pole": [x, y, z], "weight": 1.0 }
//   ]
// }
// PLAYBACK = { "animation": NAME|INDEX, "start": 0.0, "rate": 1.0, "mode": "once"|"loop"|"pingpong",
//              "repetitions": 0 }                     (all but "animation" optional; see time_mapping.h)
// MASK     = { "joint": NODE, "subtree": true } | [per-node weights]     (optional; default: everywhere)
// NODE     = a node name or index.
// Defaults: weight 1, sync false, soft 1, IK weight 1, mask "subtree" true (false: the joint alone),
// reference "time" 0. Every other key shown is required, except the top-level ones but "format" and
// "version", "mask", and PLAYBACK's but "animation". With "sync": true the incoming clip plays at the
// outgoing clip's normalized time (its own start, rate, mode and repetitions are unused). Before a
// cross-fade only "from" plays, from its end only "to". When the summed weight of the layers at a node is 0,
// the node keeps its rest pose. A repeated key is an error too.
//
// Errors: InputError(recipe path, JSON pointer of the offending key, e.g. "/layers/1/weight", expected).
#pragma once

#include "anim/blending.h"
#include "anim/ik.h"
#include "anim/time_mapping.h"
#include "core/pose.h"

#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace skinref {

struct RecipeCrossFade {
  Playback from;
  Playback to;
  double start = 0.0;
  double duration = 0.0;
  bool sync = false;
};

struct RecipeLayer {
  std::variant<Playback, RecipeCrossFade> source;
  double weight = 1.0;
  std::vector<double> mask;  // per node, empty = 1 everywhere
};

struct RecipeAdditive {
  Playback clip;
  int reference_animation = -1;  // -1: the rest pose is the reference
  double reference_time = 0.0;
  double weight = 1.0;
  std::vector<double> mask;
};

struct Recipe {
  std::string source;  // the recipe file, for messages
  double time = 0.0;
  BlendRotation rotation_blend = BlendRotation::WeightedAverage;
  std::vector<RecipeLayer> layers;
  std::vector<RecipeAdditive> additive;
  std::vector<std::variant<TwoBoneIk, AimIk>> ik;
};

// Parses and validates against `scene` (animation and node names resolved, ranges checked).
Recipe parse_recipe(const std::string& json_text, const std::string& display_name, const Scene& scene);
Recipe load_recipe(const std::string& path, const Scene& scene);

// Evaluates at global time `time` (the recipe's own time when nullopt). The result's `animation` is -1.
EvaluatedPose evaluate_recipe(const Scene& scene, const Recipe& recipe, std::optional<double> time = std::nullopt);

// evaluate_recipe() in its three steps, for the recipe bounds (verify/recipe_bounds.h), which perturb the
// samples: sample_recipe() samples every clip the recipe plays at global time tau (each with the clip time it
// mapped tau to); combine_recipe() blends the layers and applies the additive layers; apply_recipe_ik()
// applies the IK steps in order, recomputing `model` where they act. evaluate_recipe() is
// apply_recipe_ik(combine_recipe(sample_recipe())) with its palettes.
struct RecipeSample {
  LocalPose pose;
  int animation = -1;    // -1: the rest pose
  double clip_time = 0.0;
};
struct RecipeLayerSamples {
  std::vector<RecipeSample> poses;  // one clip, or a cross-fade's "from" and "to" (one of them outside the fade)
  double incoming = -1.0;           // a cross-fade's incoming weight at tau; -1 for a clip
};
struct RecipeSamples {
  double tau = 0.0;
  std::vector<RecipeLayerSamples> layers;
  std::vector<RecipeSample> additive_clips, additive_references;  // per additive layer
};
RecipeSamples sample_recipe(const Scene& scene, const Recipe& recipe, double tau);
LocalPose combine_recipe(const Scene& scene, const Recipe& recipe, const RecipeSamples& samples);
void apply_recipe_ik(const Scene& scene, const Recipe& recipe, LocalPose& local, ModelPose& model);

}  // namespace skinref
