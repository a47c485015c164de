// libFuzzer target `recipe`: the pose recipe reader and evaluator (anim/recipe.h), as pose and skin
// --recipe use them.
//
// Contract: the bytes are parsed with parse_recipe() against builtin:bend (the scene of docs/reference.md's
// example recipe: animation "main", nodes shoulder, elbow, wrist; built once per process); a recipe that
// parses is evaluated with evaluate_recipe() at its own time and at time 0.25. Bound on work per input: one
// parse and two evaluations on a 3-joint scene (the recipe's own layer, additive and IK lists are as long as
// the input allows). Outcome policy: fuzz_common.h.
#include "fuzz_common.h"

#include "anim/recipe.h"
#include "io/builtin_scenes.h"

#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace skinref;
  static const Scene scene = make_builtin_scene("bend");
  const std::string text(reinterpret_cast<const char*>(data), size);
  fuzz::run_guarded([&] {
    const Recipe recipe = parse_recipe(text, "fuzz-recipe.json", scene);
    fuzz::run_guarded([&] { evaluate_recipe(scene, recipe); });
    fuzz::run_guarded([&] { evaluate_recipe(scene, recipe, 0.25); });
  });
  return 0;
}
