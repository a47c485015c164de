// The parts the conformance cases are built from: a chain of joints with long levers, a ribbon of vertices
// skinned to it, inverse bind matrices from the rest pose, and animation channels. Each case takes these and
// changes the one thing its rule is about.
//
// Contract:
// - Every number that reaches the file is rounded to float32 first (f32()), so that the values a case
//   reasons about are the ones stored.
// - A chain's joint k sits `segment` metres along its parent's +x (joint 0 at the chain's root, which is
//   where the caller puts it). The ribbon lies along +x from 0 to joints * segment in the z = 0 plane,
//   `stations` pairs of vertices at y = +-half_width, normals +z, two triangles per quad (counter-clockwise
//   seen from +z).
// - Ribbon weights: the vertex at x is bound to joint floor(x / segment) alone, or, with `blend`, shared
//   linearly with the next joint over the middle half of each segment (the weights sum to 1 in float32).
#pragma once

#include "conformance/gltf_builder.h"
#include "core/math_types.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace skinref::conformance {

inline constexpr double kPi = 3.14159265358979323846;
inline const Vec3 kAxisZ = Vec3(0, 0, 1);
inline double degrees(double d) { return d * kPi / 180.0; }

// 3.6.2.1's sentence on byteStride, which the cases of strided vertex attributes and morph deltas quote.
inline constexpr const char* kVertexAttributeStrideRule =
    "If the accessor is used for vertex attributes (i.e., it is referenced by a mesh primitive or its morph "
    "targets), the locations of the subsequent data elements are controlled by the bufferView.byteStride property.";

// The parts end to end (keys of several quaternions, a case's sampler outputs).
std::vector<double> concat(const std::vector<std::vector<double>>& parts);

// T * R * S of a translation, an (x, y, z, w) rotation and a scale, as the loader will compose them.
Mat4 trs_matrix(const Vec3& translation, const std::vector<double>& rotation_xyzw, const Vec3& scale);

// (x, y, z, w) of the rotation by `angle` radians about `axis` (normalized here), each rounded to float32.
std::vector<double> axis_angle_xyzw(const Vec3& axis, double angle);

// glTF's node JSON with TRS (only the parts that differ from the identity are written).
nlohmann::ordered_json trs_node(const std::string& name, const Vec3& translation,
                                const std::vector<double>& rotation_xyzw = {0, 0, 0, 1},
                                const Vec3& scale = Vec3::Ones());

struct Chain {
  std::vector<int> joints;  // node indices, root first
};

// `count` nodes named prefix0, prefix1, ..., each the child of the one before; the root's translation is
// `root_translation`, the others (segment, 0, 0). The root is not added to the scene: the caller parents it.
Chain add_chain(GltfBuilder& builder, const std::string& prefix, int count, double segment,
                const Vec3& root_translation = Vec3::Zero());

struct Ribbon {
  std::vector<double> positions;  // xyz per vertex
  std::vector<double> normals;
  std::vector<uint32_t> indices;
  std::vector<double> joints;   // 4 per vertex: indices into the skin's joints
  std::vector<double> weights;  // 4 per vertex
  size_t vertex_count() const { return positions.size() / 3; }
};

Ribbon make_ribbon(int joints, double segment, int stations_per_segment, double half_width, bool blend);

// The inverse bind matrices of `joints` at rest, computed from the global rest matrices the caller gives
// (one per joint), as the 16 column-major floats per joint the accessor stores.
std::vector<double> inverse_bind_values(const std::vector<Mat4>& global_rest);

// Global rest matrices of a chain made by add_chain() whose root sits at `root_global`.
std::vector<Mat4> chain_rest_globals(int count, double segment, const Mat4& root_global);

// One JOINTS_n/WEIGHTS_n pair: 4 values per vertex each, and how they are stored.
struct InfluenceSet {
  InfluenceSet() = default;
  InfluenceSet(std::vector<double> joints_, std::vector<double> weights_)
      : joints(std::move(joints_)), weights(std::move(weights_)) {}
  std::vector<double> joints;
  std::vector<double> weights;
  AccessorLayout joint_layout{ComponentType::U16};
  AccessorLayout weight_layout{ComponentType::F32};
  std::optional<SparseValues> weight_sparse;  // `weights` is then the base the sparse values replace
  std::optional<SparseValues> joint_sparse;   // likewise for `joints`
};

// A primitive's JSON with the ribbon's POSITION and NORMAL (stored as the layouts say) and indices and
// the influence sets given (JOINTS_0, WEIGHTS_0, JOINTS_1, ...), its accessors added to the builder.
nlohmann::ordered_json skinned_primitive(GltfBuilder& builder, const std::string& name, const Ribbon& ribbon,
                                         const std::vector<InfluenceSet>& sets,
                                         const AccessorLayout& position_layout = {},
                                         const AccessorLayout& normal_layout = {});
// The same with the ribbon's own single set (float weights, unsigned-short joints).
nlohmann::ordered_json skinned_ribbon_primitive(GltfBuilder& builder, const std::string& name, const Ribbon& ribbon);

// A mesh of one primitive, the ribbon with its own influence set (skinned_ribbon_primitive()).
int add_ribbon_mesh(GltfBuilder& builder, const std::string& name, const Ribbon& ribbon);

// A skin over `joints` with the inverse bind matrices of `rest_globals` (none when empty: the identities of
// glTF's default), and `skeleton` when it is >= 0.
int add_skin(GltfBuilder& builder, const std::string& name, const std::vector<int>& joints,
             const std::vector<Mat4>& rest_globals, int skeleton = -1);

struct ChannelSpec {
  int node = -1;
  std::string path;           // "translation", "rotation", "scale", "weights"
  std::string interpolation;  // "LINEAR", "STEP", "CUBICSPLINE"
  std::vector<double> times;
  std::vector<double> values;  // CUBICSPLINE: in-tangent, value, out-tangent per key
};

// A LINEAR turn of `node` about z from `from` to `to` degrees over [0, 1] s.
ChannelSpec swing(int node, double from, double to);

// One animation of these channels, one sampler each, in order, their keys stored as `output_layout` says
// (float32 by default; normalized integers need values that are multiples of 1 / max).
int add_animation(GltfBuilder& builder, const std::string& name, const std::vector<ChannelSpec>& channels,
                  const AccessorLayout& output_layout = {});

// The ribbon node of the usual case: a mesh "ribbon" (make_ribbon() over `joints.size()` segments of `segment`,
// 4 stations each, half width 0.5, blended) skinned by a skin "chain" over `joints` with the inverse bind
// matrices of `rest_globals` (add_skin()), and `skeleton` when >= 0. Returns the node; the caller adds it to the
// scene.
int add_ribbon_skin(GltfBuilder& builder, const std::vector<int>& joints, double segment,
                    const std::vector<Mat4>& rest_globals, int skeleton = -1);

// The usual skinned case: a chain of `joints` joints under the scene root, a ribbon skinned to it on a node
// that is the chain root's sibling, and a skin over the chain with inverse bind matrices. Returns the chain.
struct SkinnedChain {
  Chain chain;
  int mesh_node = -1;
  int skin = -1;
};
SkinnedChain add_skinned_chain(GltfBuilder& builder, int joints, double segment, int stations_per_segment,
                               bool blend);

}  // namespace skinref::conformance
