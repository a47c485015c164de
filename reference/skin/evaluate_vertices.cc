#include "skin/evaluate_vertices.h"

#include "skin/lbs.h"
#include "skin/morph.h"
#include "skin/skinning_conventions.h"

#include <algorithm>
#include <deque>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace skinref {

// Growing `primitives` must move its elements, never copy them: their inputs point into their own vectors.
static_assert(std::is_nothrow_move_constructible_v<PreparedPrimitive>);

void skin_primitive(const SkinningInput& input, const SkinningOptions& options, SkinnedVertices& output) {
  const SkinningStage stage = skinning_method_descriptor(options.method).stage;
  if (!stage) throw std::invalid_argument("skin_primitive: not a SkinningMethod");
  stage(input, options, output);
}

PreparedVertices prepare_vertices(const Scene& scene, const EvaluatedPose& pose, const SkinningOptions& options) {
  PreparedVertices prepared;
  prepared.options = options;
  for (int n : drawn_nodes(scene)) {
    const Node& node = scene.nodes[size_t(n)];
    const Mesh& mesh = scene.meshes[size_t(node.mesh)];
    // A rigid node is skinned by a one-joint palette holding its global matrix, with weight 1: the same
    // kernel, and the same bits as a dedicated transform (1 * x == x).
    const JointPalette* rigid = nullptr;
    if (node.skin < 0) {
      JointPalette& palette = prepared.rigid_palettes.emplace_back();
      palette.skinning = {pose.model.global[size_t(n)]};
      palette.normal = {normal_matrix(palette.skinning[0].topLeftCorner<3, 3>())};
      rigid = &palette;
    }
    for (size_t p = 0; p < mesh.primitives.size(); ++p) {
      const Primitive& prim = mesh.primitives[p];
      PreparedPrimitive& out = prepared.primitives.emplace_back();
      out.node = n;
      out.mesh = node.mesh;
      out.primitive = int(p);
      out.skinned = node.skin >= 0;
      const bool morphing = !prim.targets.empty();
      if (morphing) out.morphed = apply_morph_targets(prim, pose.local.morph_weights[size_t(n)]);
      SkinningInput& in = out.input;
      in.positions = morphing ? out.morphed.positions : prim.positions;
      in.normals = morphing ? out.morphed.normals : prim.normals;
      in.tangents = morphing ? out.morphed.tangents : prim.tangents;
      if (out.skinned) {
        in.influences_per_vertex = prim.influences_per_vertex;
        in.joints = prim.joints;
        in.weights = prim.weights;
        in.palette = &pose.palettes[size_t(node.skin)];
      } else {
        out.rigid_joints.assign(prim.vertex_count(), 0);
        out.rigid_weights.assign(prim.vertex_count(), 1.0);
        in.influences_per_vertex = 1;
        in.joints = out.rigid_joints;
        in.weights = out.rigid_weights;
        in.palette = rigid;
      }
    }
  }
  return prepared;
}

void skin_prepared(const PreparedVertices& prepared, std::vector<WorldPrimitive>& output) {
  output.resize(prepared.primitives.size());
  for (size_t i = 0; i < prepared.primitives.size(); ++i) {
    const PreparedPrimitive& prim = prepared.primitives[i];
    WorldPrimitive& out = output[i];
    out.node = prim.node;
    out.mesh = prim.mesh;
    out.primitive = prim.primitive;
    out.skinned = prim.skinned;
    // The method applies to skinned nodes only; a rigid node's one-joint palette is kRigidNodeMethod's.
    if (prim.skinned) skin_primitive(prim.input, prepared.options, out.vertices);
    else skinning_method_descriptor(kRigidNodeMethod).stage(prim.input, prepared.options, out.vertices);
  }
}

std::vector<WorldPrimitive> evaluate_vertices(const Scene& scene, const EvaluatedPose& pose,
                                              const SkinningOptions& options) {
  std::vector<WorldPrimitive> result;
  skin_prepared(prepare_vertices(scene, pose, options), result);
  return result;
}

namespace {

// joint-offset: the skin's palette with one identity entry past its last joint.
JointPalette palette_with_identity(const JointPalette& palette) {
  JointPalette extended = palette;
  extended.skinning.push_back(Mat4::Identity());
  extended.normal.push_back(Mat3::Identity());
  return extended;
}

// joint-offset: every index j read as j + offset, within the extended palette of `entries`.
void offset_joints(std::vector<uint32_t>& joints, int offset, size_t entries) {
  for (uint32_t& joint : joints) joint = uint32_t(std::min<size_t>(size_t(joint) + size_t(offset), entries - 1));
}

// The methods whose normals follow LBS's rule, for a message: "LBS (--method lbs)".
std::string methods_with_lbs_normals() {
  std::string labels, names;
  for (const SkinningMethod method : kSkinningMethods) {
    const SkinningMethodDescriptor d = skinning_method_descriptor(method);
    if (!d.lbs_normals) continue;
    labels += std::string(labels.empty() ? "" : ", ") + d.label;
    names += std::string(names.empty() ? "" : "|") + d.name;
  }
  return labels + " (--method " + names + ")";
}

// skinning=skipped: the vertex as it entered skinning (morphed, in bind space).
void keep_bind_space(const SkinningInput& input, SkinnedVertices& vertices) {
  vertices.positions.assign(input.positions.begin(), input.positions.end());
  vertices.normals.assign(input.normals.begin(), input.normals.end());
  vertices.tangents.assign(input.tangents.begin(), input.tangents.end());
}

}  // namespace

SkinningOptions skinning_options_under(SkinningOptions options, const SkinningConventions& conventions) {
  options.weights = conventions.weights == WeightNormalization::Sum ? WeightPolicy::Renormalize : WeightPolicy::AsStored;
  options.normals = conventions.normals == NormalTransform::BlendNormalMatrices ? NormalMode::BlendedNormalMatrices
                                                                               : NormalMode::InverseTransposeOfBlend;
  return options;
}

std::vector<WorldPrimitive> evaluate_vertices(const Scene& scene, const EvaluatedPose& pose,
                                              const SkinningOptions& base_options, const Conventions& conventions) {
  const SkinningConventions& skinning = conventions.skinning;
  const SkinningOptions options = skinning_options_under(base_options, skinning);
  const bool normal_variant = needs_normal_variant(skinning);
  if (normal_variant && !skinning_method_descriptor(options.method).lbs_normals)
    throw std::invalid_argument("the conventions normals=blend-upper3x3|as-point and normalize=no apply to " +
                                methods_with_lbs_normals());
  const bool morph_after = conventions.morph.order == MorphOrder::AfterSkinning;
  const bool adjust = influences_need_adjusting(skinning);

  PreparedVertices prepared = prepare_vertices(scene, pose, options);
  std::deque<AdjustedInfluences> adjusted;  // a deque: the inputs point into its elements
  std::deque<JointPalette> offset_palettes;  // joint-offset=1: each skin's palette with an identity past its end
  for (PreparedPrimitive& prim : prepared.primitives) {
    if (!prim.skinned) continue;
    const Primitive& source = scene.meshes[size_t(prim.mesh)].primitives[size_t(prim.primitive)];
    if (morph_after) {  // skin the bind-space attributes; the deltas come after
      prim.input.positions = source.positions;
      prim.input.normals = source.normals;
      prim.input.tangents = source.tangents;
    }
    if (adjust || conventions.mistakes.joint_offset != 0) {
      AdjustedInfluences& influences =
          adjusted.emplace_back(adjust_influences(source.joints, source.weights, source.influences_per_vertex, skinning));
      if (conventions.mistakes.joint_offset != 0) {
        const JointPalette& palette = offset_palettes.emplace_back(palette_with_identity(*prim.input.palette));
        offset_joints(influences.joints, conventions.mistakes.joint_offset, palette.skinning.size());
        prim.input.palette = &palette;
      }
      prim.input.joints = influences.joints;
      prim.input.weights = influences.weights;
    }
  }
  std::vector<WorldPrimitive> output;
  skin_prepared(prepared, output);
  for (size_t i = 0; i < output.size(); ++i) {
    const PreparedPrimitive& prim = prepared.primitives[i];
    if (!prim.skinned) continue;
    SkinnedVertices& vertices = output[i].vertices;
    if (normal_variant) skin_lbs_normal_variant(prim.input, options, skinning, vertices);
    if (conventions.mistakes.skinning == SkinningUse::Skipped) keep_bind_space(prim.input, vertices);
    const Primitive& source = scene.meshes[size_t(prim.mesh)].primitives[size_t(prim.primitive)];
    if (morph_after && !source.targets.empty())
      add_morph_deltas_after_skinning(source, pose.local.morph_weights[size_t(prim.node)], skinning.normalize, vertices);
    switch (conventions.palette.mesh_node) {
      case MeshNodeTransform::Ignored: break;
      case MeshNodeTransform::Applied:
        apply_mesh_node_transform(pose.model.global[size_t(prim.node)], skinning.normalize, vertices);
        break;
      case MeshNodeTransform::Inverse:
        apply_mesh_node_transform(pose.model.global[size_t(prim.node)].inverse(), skinning.normalize, vertices);
        break;
      case MeshNodeTransform::NormalMatrixTimesInverse:
        apply_mesh_node_normal_mismatch(pose.model.global[size_t(prim.node)], skinning.normalize, vertices);
        break;
      case MeshNodeTransform::AppliedTwice: {
        const Mat4& global = pose.model.global[size_t(prim.node)];
        apply_mesh_node_transform(multiply_affine(global, global), skinning.normalize, vertices);
        break;
      }
    }
  }
  return output;
}

}  // namespace skinref
