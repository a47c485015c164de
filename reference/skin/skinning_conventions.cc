#include "skin/skinning_conventions.h"

#include "skin/morph.h"

#include <cmath>
#include <stdexcept>

namespace skinref {
namespace {

Vec3 normalized_or_zero(const Vec3& v) {
  const double length = v.norm();
  return length > 0.0 ? Vec3(v / length) : v;
}

}  // namespace

bool influences_need_adjusting(const SkinningConventions& conventions) {
  switch (conventions.weights) {
    case WeightNormalization::AsStored:
    case WeightNormalization::Sum: return conventions.zero_weights == ZeroWeights::FirstJoint;
    case WeightNormalization::L2:
    case WeightNormalization::Equal:
    case WeightNormalization::Ones:
    case WeightNormalization::LastFromOthers: return true;
  }
  return true;
}

namespace {

// The weight mistakes: every slot 1/k or 1, or the last slot 1 - the others' sum.
void mistaken_weights(double* w, size_t k, WeightNormalization weights) {
  double others = 0.0;
  switch (weights) {
    case WeightNormalization::AsStored:
    case WeightNormalization::Sum:
    case WeightNormalization::L2: return;
    case WeightNormalization::Equal:
      for (size_t i = 0; i < k; ++i) w[i] = 1.0 / double(k);
      return;
    case WeightNormalization::Ones:
      for (size_t i = 0; i < k; ++i) w[i] = 1.0;
      return;
    case WeightNormalization::LastFromOthers:
      for (size_t i = 0; i + 1 < k; ++i) others += w[i];
      w[k - 1] = 1.0 - others;
      return;
  }
}

}  // namespace

AdjustedInfluences adjust_influences(std::span<const uint32_t> joints, std::span<const double> weights,
                                     int influences_per_vertex, const SkinningConventions& conventions) {
  AdjustedInfluences out{std::vector<uint32_t>(joints.begin(), joints.end()),
                         std::vector<double>(weights.begin(), weights.end())};
  const size_t k = size_t(influences_per_vertex);
  for (size_t v = 0; v * k < out.weights.size(); ++v) {
    double* w = &out.weights[v * k];
    mistaken_weights(w, k, conventions.weights);
    double sum = 0.0, squares = 0.0;
    for (size_t i = 0; i < k; ++i) {
      sum += w[i];
      squares += w[i] * w[i];
    }
    if (sum == 0.0) {
      if (conventions.zero_weights == ZeroWeights::FirstJoint) {
        out.joints[v * k] = 0;
        w[0] = 1.0;
      }
      continue;
    }
    if (conventions.weights == WeightNormalization::L2) {
      const double norm = std::sqrt(squares);
      for (size_t i = 0; i < k; ++i) w[i] /= norm;
    }
  }
  return out;
}

bool needs_normal_variant(const SkinningConventions& conventions) {
  switch (conventions.normals) {
    case NormalTransform::InverseTranspose:
    case NormalTransform::BlendNormalMatrices: return !conventions.normalize;
    case NormalTransform::BlendUpper3x3:
    case NormalTransform::AsPoint:
    case NormalTransform::BlendInverseTransposes:
    case NormalTransform::Unskinned: return true;
  }
  return true;
}

void skin_lbs_normal_variant(const SkinningInput& in, const SkinningOptions& options,
                             const SkinningConventions& conventions, SkinnedVertices& out) {
  const size_t n = in.positions.size();
  const size_t k = size_t(in.influences_per_vertex);
  const JointPalette& palette = *in.palette;
  out.positions.resize(n);
  out.normals.resize(in.normals.size());
  out.tangents.resize(in.tangents.size());
  for (size_t v = 0; v < n; ++v) {
    double sum = 0.0;
    for (size_t i = 0; i < k; ++i) {
      if (in.joints[v * k + i] >= palette.skinning.size())
        throw std::invalid_argument("skin_lbs_normal_variant: a joint index outside the palette");
      sum += in.weights[v * k + i];
    }
    if (sum == 0.0) {  // as skin_lbs: the vertex keeps its bind attributes
      out.positions[v] = in.positions[v];
      if (!in.normals.empty()) out.normals[v] = in.normals[v];
      if (!in.tangents.empty()) out.tangents[v] = in.tangents[v];
      continue;
    }
    Mat4 blended = Mat4::Zero();
    Mat3 blended_normal = Mat3::Zero(), blended_inverse_transpose = Mat3::Zero();
    for (size_t i = 0; i < k; ++i) {
      const double w = options.weights == WeightPolicy::Renormalize ? in.weights[v * k + i] / sum
                                                                    : in.weights[v * k + i];
      const uint32_t joint = in.joints[v * k + i];
      blended += w * palette.skinning[joint];
      blended_normal += w * palette.normal[joint];
      // The palette's normal matrix is |det JM| JM^-T (normal_matrix()); a singular joint adds nothing.
      const double det = std::abs(palette.skinning[joint].topLeftCorner<3, 3>().determinant());
      if (w != 0.0 && det != 0.0) blended_inverse_transpose += (w / det) * palette.normal[joint];
    }
    const Mat3 linear = blended.topLeftCorner<3, 3>();
    out.positions[v] = linear * in.positions[v] + blended.block<3, 1>(0, 3);
    if (!in.normals.empty()) {
      Vec3 normal;
      switch (conventions.normals) {
        case NormalTransform::InverseTranspose: {
          const double det = linear.determinant();
          normal = det != 0.0 ? Vec3(normal_matrix(linear) * in.normals[v] / std::abs(det)) : Vec3::Zero();
          break;
        }
        case NormalTransform::BlendNormalMatrices: normal = blended_normal * in.normals[v]; break;
        case NormalTransform::BlendUpper3x3: normal = linear * in.normals[v]; break;
        // A tutorial's `bone * vec4(normal, 1.0)`: the normal moved like a point.
        case NormalTransform::AsPoint: normal = linear * in.normals[v] + blended.block<3, 1>(0, 3); break;
        case NormalTransform::BlendInverseTransposes: normal = blended_inverse_transpose * in.normals[v]; break;
        case NormalTransform::Unskinned: normal = in.normals[v]; break;  // a mistake: left in bind space
      }
      out.normals[v] = conventions.normalize ? normalized_or_zero(normal) : normal;
    }
    if (!in.tangents.empty()) {
      const Vec3 tangent = conventions.normals == NormalTransform::Unskinned ? Vec3(in.tangents[v].head<3>())
                                                                             : Vec3(linear * in.tangents[v].head<3>());
      out.tangents[v] << (conventions.normalize ? normalized_or_zero(tangent) : tangent), in.tangents[v].w();
    }
  }
}

void add_morph_deltas_after_skinning(const Primitive& prim, std::span<const double> weights, bool normalize,
                                     SkinnedVertices& vertices) {
  MorphedAttributes attributes{std::move(vertices.positions), std::move(vertices.normals), std::move(vertices.tangents)};
  add_morph_deltas(prim, weights, attributes);
  vertices.positions = std::move(attributes.positions);
  vertices.normals = std::move(attributes.normals);
  vertices.tangents = std::move(attributes.tangents);
  if (!normalize) return;
  for (Vec3& normal : vertices.normals) normal = normalized_or_zero(normal);
  for (Vec4& tangent : vertices.tangents) tangent.head<3>() = normalized_or_zero(tangent.head<3>());
}

void apply_mesh_node_transform(const Mat4& transform, bool normalize, SkinnedVertices& vertices) {
  const Mat3 linear = transform.topLeftCorner<3, 3>();
  const Vec3 translation = transform.block<3, 1>(0, 3);
  Mat3 normal = normal_matrix(linear);
  if (!normalize) {  // the true inverse transpose, whose scale then shows
    const double det = linear.determinant();
    normal = det != 0.0 ? Mat3(normal / std::abs(det)) : Mat3::Zero();
  }
  for (Vec3& position : vertices.positions) position = linear * position + translation;
  for (Vec3& n : vertices.normals) n = normalize ? normalized_or_zero(normal * n) : Vec3(normal * n);
  for (Vec4& t : vertices.tangents) {
    const Vec3 xyz = linear * t.head<3>();
    t.head<3>() = normalize ? normalized_or_zero(xyz) : xyz;
  }
}

// three.js: its shader takes the skinned normal by bindMatrixInverse, which GLTFLoader's identity bindMatrix makes
// M^-1, then by the model's normal matrix N(M) = M^-T; positions get M itself back. N(M) M^-1 = (M M^T)^-1. Under
// normalize=yes only the direction changes (each normal keeps its length, so that a normal the skinning left as it
// was, a vertex without weights, stays so under a rotation and uniform scale); normalize=no keeps the map's scale.
Mat3 mesh_node_normal_mismatch(const Mat4& mesh_node) {
  const Mat3 linear = mesh_node.topLeftCorner<3, 3>();
  return (linear * linear.transpose()).inverse();
}

void apply_mesh_node_normal_mismatch(const Mat4& mesh_node, bool normalize, SkinnedVertices& vertices) {
  const Mat3 mismatch = mesh_node_normal_mismatch(mesh_node);
  for (Vec3& n : vertices.normals) n = normalize ? Vec3(normalized_or_zero(mismatch * n) * n.norm()) : Vec3(mismatch * n);
}

}  // namespace skinref
