#include "golden/golden_departure.h"

#include "core/input_error.h"
#include "io/assimp_import.h"
#include "io/load_model.h"
#include "verify/diagnose.h"

namespace skinref::golden {

std::string name_departure(const PreparedCase& prepared, double time, const std::vector<WorldPrimitive>& vertices,
                           BoundsModel bounds) {
  if (prepared.pose_source.bind) return "";
  DiagnoseSettings settings;
  settings.method = prepared.skinning.method;
  settings.bounds = bounds;
  if (prepared.pose_source.recipe) {
    settings.recipe = prepared.pose_source.recipe;
    settings.bounds = BoundsModel::AnyOrder;  // a recipe's bounds are any-order (verify/recipe_bounds.h)
  } else {
    settings.animation = prepared.pose_source.animation;
  }
  const std::string& source = prepared.scene.source;
  if (!source.empty() && source.rfind("builtin:", 0) != 0 && !is_assimp_path(source))
    settings.reload = [source](const LoadConventions& reading) { return load_model(source, reading); };
  try {
    const Diagnosis diagnosis = diagnose(prepared.scene, {{"output", time, vertices}}, settings);
    if (!diagnosis.explained || diagnosis.best().settings.empty()) return "";
    std::string named;
    for (const std::string& setting : diagnosis.best().settings) named += (named.empty() ? "" : ", ") + setting;
    return named;
  } catch (const InputError&) {
    return "";  // the vertices do not fit the scene (another count): the stage and location say why
  }
}

}  // namespace skinref::golden
