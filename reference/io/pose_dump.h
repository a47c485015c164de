// Dump of an evaluated pose: local TRS, global (model) matrices and joint palettes, as JSON.
//
// Format: {"format":"skinref-pose","version":1,"writer":"skinref reference" (optional: what wrote it),
//          "source":..., "recipe":"FILE" (optional: the recipe the pose was evaluated from; "animation" is null),"animation":INDEX|null,"time":T,
//          "clip_time":T' (optional, written with the conventions: the clip time `time` mapped to),
//          "conventions":{"NAME":"VALUE",...} (optional: the engine conventions the pose was evaluated under),
//          "nodes":[{"index","name","parent","translation":[3],"rotation":[x,y,z,w],"scale":[3],
//                    "global":[16, column-major],"morph_weights":[...]}],
//          "skins":[{"index","name","joints":[node...],"palette":[[16, column-major]...],
//                    "normal_matrices":[[9, column-major]...]}]}
// Doubles are printed with 17 significant digits (they round-trip). Written atomically.
#pragma once

#include "core/conventions.h"
#include "core/pose.h"

#include <ostream>
#include <string>

namespace skinref {

void write_pose_json(const Scene& scene, const EvaluatedPose& pose, std::ostream& out,
                     const Conventions* conventions = nullptr, const std::string& writer = "",
                     const std::string& recipe = "");
void write_pose_dump(const Scene& scene, const EvaluatedPose& pose, const std::string& path,
                     const Conventions* conventions = nullptr, const std::string& writer = "",
                     const std::string& recipe = "");

// An engine's dump may differ from skinref's in three ways, all read back to the same pose:
// - Node order. Node entries are matched to the model's nodes by "name" when every entry has one and the
//   model's node names are unique; otherwise entry n is node n.
// - Joint order. A skin entry's optional "joint_names" lists its palette rows by joint node name, in the
//   engine's order.
// - Matrix layout and normal matrices. Matrices are read column-major unless the dump declares
//   "matrix_order": "row-major". A skin without "normal_matrices" gets them derived from its palette
//   (normal_matrix()).
// Reads a pose dump (this format, from skinref or an engine under test) back for `scene`: the node count,
// each node's morph weight count, the skin count and each skin's joint count must match the scene, and every
// number must be finite; otherwise InputError naming the file and the JSON path. Returns the pose (normal
// matrices as written) and, in `source`, the dump's "source" field (the model it was made from). In
// `significant_digits`, the most significant digits any of its numbers was printed with: the writer's
// precision, whose rounding charge_printing_rounding() (verify/pose_error_bounds.h) adds to the bounds when
// it is under 17 (an engine that prints with %.9g).
EvaluatedPose read_pose_dump(const std::string& path, const Scene& scene, std::string* source = nullptr,
                             int* significant_digits = nullptr);

// Just the "source" field of a pose dump (the model it was made from), with the same checks of the file.
std::string read_pose_dump_source(const std::string& path);
// Just the "writer" field ("" when the dump does not say; skinref writes "skinref BACKEND").
std::string read_pose_dump_writer(const std::string& path);
// Just the "recipe" field ("" when the pose is not a recipe's, or the dump does not say).
std::string read_pose_dump_recipe(const std::string& path);

}  // namespace skinref
