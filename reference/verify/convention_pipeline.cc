#include "verify/convention_pipeline.h"

#include "anim/clip_conventions.h"
#include "anim/scene_mistakes.h"
#include "io/load_model.h"
#include "io/load_conventions.h"

namespace skinref {

void apply_scene_conventions(Scene& scene, const Conventions& conventions) {
  apply_load_conventions(scene, conventions.load);
  apply_scene_mistakes(scene, conventions.mistakes);
  apply_clip_conventions(scene, conventions.sampling);
}

Scene load_model_under(const std::string& spec, const Conventions& conventions, const ImportOptions& import) {
  Scene scene = load_model(spec, conventions.load, import);
  apply_scene_conventions(scene, conventions);
  return scene;
}

bool conventions_need_reference_backend(const Conventions& conventions) {
  Conventions backend_side = conventions;
  // The load conventions are baked into the Scene by load_model_under(): every backend skins that scene.
  backend_side.load = LoadConventions{};
  if (backend_side.skinning.weights == WeightNormalization::Sum)
    backend_side.skinning.weights = WeightNormalization::AsStored;
  if (backend_side.skinning.normals == NormalTransform::BlendNormalMatrices)
    backend_side.skinning.normals = NormalTransform::InverseTranspose;
  return !convention_differences(backend_side).empty();
}

}  // namespace skinref
