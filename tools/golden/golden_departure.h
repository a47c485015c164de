// The departure that explains a failing golden output, named as `skinref diagnose` names it
// (verify/diagnose.h): a golden check that fails on a float32 backend (the user's shader, say) reports
// "mesh-node=applied", not only the first stage over its bounds.
//
// Contract:
// - name_departure() runs diagnose() on the backend's world vertices of one output against the case's scene,
//   pose source (clip or recipe) and skinning method, held to `bounds`. It returns the conventions of the
//   best explanation ("NAME=VALUE, ..."), or an empty string when nothing explains the vertices, when they
//   match glTF 2.0 (the failure is elsewhere: the image, the pose), or when the case plays the bind pose
//   (which diagnose does not evaluate).
// - A glTF model is loaded again for the conventions the loader applies (accessor addressing, sparse).
// - It reads nothing but its arguments and the model file, and writes nothing.
#pragma once

#include "golden/golden_case.h"
#include "verify/bounds_model.h"

#include <string>
#include <vector>

namespace skinref::golden {

std::string name_departure(const PreparedCase& prepared, double time, const std::vector<WorldPrimitive>& vertices,
                           BoundsModel bounds);

}  // namespace skinref::golden
