// Dump of an evaluated pose: local TRS, global (model) matrices and joint palettes, as JSON.
//
// Format: {"format":"skinref-pose","version":1,"source":...,"animation":INDEX|null,"time":T,
//          "nodes":[{"index","name","parent","translation":[3],"rotation":[x,y,z,w],"scale":[3],
//                    "global":[16, column-major],"morph_weights":[...]}],
//          "skins":[{"index","name","joints":[node...],"palette":[[16, column-major]...],
//                    "normal_matrices":[[9, column-major]...]}]}
// Doubles are printed with 17 significant digits (they round-trip). Written atomically.
#pragma once

#include "evaluate.h"

#include <ostream>
#include <string>

namespace skinref {

void write_pose_json(const Scene& scene, const EvaluatedPose& pose, std::ostream& out);
void write_pose_dump(const Scene& scene, const EvaluatedPose& pose, const std::string& path);

}  // namespace skinref
