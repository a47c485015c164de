// Engine conventions: the well-known ways an engine departs from glTF 2.0, as one value. The default value is
// the specification (and skinref's own choices where the specification is silent); each field names the
// stage that reads it, and that stage alone applies it (docs/conventions.md lists the formula of every
// variant and the engines known to follow it).
//
// Contract:
// - Conventions{} is glTF 2.0. Every field has a NAME and a textual VALUE (convention_fields()): the CLI's
//   `--convention NAME=VALUE`, the `--conventions FILE.json` object {"NAME": "VALUE", ...}, the record in
//   dumps and reports, and diagnose's verdicts all use that one spelling.
// - set_convention() and conventions_from_json() throw std::invalid_argument naming the field and listing its
//   values; they never leave a half-set value (the JSON reader builds a copy).
// - Stages: load (io/load_conventions.h, io/gltf_load.h), time (anim/time_mapping.h), sampling
//   (anim/sampling.h, anim/clip_conventions.h), hierarchy and palette (anim/palette.h), morph (anim/evaluate_pose.h,
//   skin/evaluate_vertices.h), skinning and normals (skin/evaluate_vertices.h).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/convention_field.h"
#include "core/mistakes.h"

namespace skinref {

// ---- load ----
enum class InfluenceLimit {
  All,       // every JOINTS_n/WEIGHTS_n set (glTF)
  FirstSet,  // JOINTS_0/WEIGHTS_0 only (three.js, many runtimes)
  FirstSets, // the first influence_count / 4 sets (Babylon.js and Bevy: two sets, 8 influences)
  Largest,   // the `influence_count` largest weights per vertex, the rest dropped (ties: the earlier slot wins)
  FirstInfluence,  // a mistake: the first slot alone, its weight as stored (core/mistakes.h)
};
enum class JointSentinel {
  None,     // every joint index must be < the skin's joint count (glTF)
  AllOnes,  // -1: 0xFF in an unsigned-byte accessor, 0xFFFF in an unsigned-short one
  U8Max,    // 255
  U16Max,   // 65535
};
enum class InverseBind { AsStored, FromRestPose };
// Normalized unsigned WEIGHTS: c / max (glTF), or the integer c itself.
enum class WeightDecoding { Normalized, Raw };
// A node given by `matrix`: used (glTF), ignored (identity), or with the reflection lost (|scale|).
enum class NodeMatrix { Used, Ignored, ReflectionLost };
// A channel's target: the node it names by index (glTF), or the first node with that node's name.
enum class ChannelTarget { Index, FirstNamed };
// JOINTS values: indices into skin.joints (glTF), or node indices (a node that is no joint of the skin: joint 0).
enum class JointIndexSpace { Skin, Node };
// Morph NORMAL and TANGENT deltas: applied (glTF) or ignored.
enum class MorphNormals { Applied, Ignored };
// Where an accessor's element i starts: bufferView.byteOffset + accessor.byteOffset + i * stride (glTF), with
// the bufferView's byteStride ignored (elements read tightly packed), or with the accessor's byteOffset ignored
// (read from the start of its bufferView).
enum class AccessorAddressing { Specified, Packed, ViewStart };
// Sparse accessors: the base with the sparse values substituted (glTF), or the base alone (zeros where the
// accessor has no bufferView).
enum class SparseAccessors { Applied, Ignored };
struct LoadConventions {
  InfluenceLimit influences = InfluenceLimit::All;
  int influence_count = 4;          // for Largest, 1 to 16; for FirstSets, 8 to 28 (4 per set)
  bool renormalize_limited = false; // Largest/FirstSet: divide the kept weights by their sum
  JointSentinel joint_sentinel = JointSentinel::None;  // accepted only with weight 0; mapped to joint 0
  InverseBind inverse_bind = InverseBind::AsStored;   // FromRestPose: IBM = inverse(G_rest(joint))
  WeightDecoding weight_decoding = WeightDecoding::Normalized;
  NodeMatrix node_matrix = NodeMatrix::Used;
  ChannelTarget channel_target = ChannelTarget::Index;
  JointIndexSpace joint_index = JointIndexSpace::Skin;
  MorphNormals morph_normals = MorphNormals::Applied;
  // Applied by the loader while it reads the file's accessors (io/gltf_load.h), like joint_sentinel: a Scene
  // cannot be re-read under them, so they take the file again (same_accessor_reading()).
  AccessorAddressing accessor_addressing = AccessorAddressing::Specified;
  SparseAccessors sparse = SparseAccessors::Applied;
};
// Whether two load conventions read the file's accessors alike (joint_sentinel, accessor_addressing, sparse):
// if not, a Scene loaded under one cannot stand for the other, and the file must be loaded again.
bool same_accessor_reading(const LoadConventions& a, const LoadConventions& b);

// ---- time ----
enum class PlaybackLoop { Clamp, Loop };             // glTF defines none; skinref clamps to the clip
enum class ClipStart { Zero, FirstKey };         // time 0 is t = 0 (glTF) or the clip's first key
enum class WrapPeriod { LastKey, LastMinusFirst };
enum class AtEnd { Wrap, Hold };                 // a looping playback at exactly k periods: restart or hold
struct TimeConventions {
  PlaybackLoop playback = PlaybackLoop::Clamp;
  ClipStart clip_start = ClipStart::Zero;
  WrapPeriod wrap_period = WrapPeriod::LastKey;
  AtEnd at_end = AtEnd::Wrap;
};

// ---- sampling ----
enum class QuaternionKeys { Normalized, AsStored };
enum class RotationInterpolation { Slerp, Nlerp, Lerp };  // Lerp: component-wise, no hemisphere check
enum class StepBoundary { Key, Previous };  // STEP at exactly t_k: key k (glTF), or key k-1
enum class StepMode { Spec, Linear };       // STEP samplers: held (glTF), or played as LINEAR
enum class CubicVariant { Spec, UnscaledTangents, Linear, NoRenormalize };
enum class TranslationScaleKeys { F32, Half };
// Rotation keys: float32 (glTF); smallest-three in 16-bit signed integers c * 32767 sqrt 2 (ozz-animation up
// to 0.14); or ozz-animation's 15-bit smallest-three from 0.15 on, on the offset grid (c + sqrt2/2) 32767/sqrt2.
enum class RotationKeys { F32, SmallestThree15, OffsetSmallestThree15 };
// Which values key quantization reaches: the clip's keys alone, or also the rest values of every skin joint (an
// engine whose clip holds a track for every joint, ozz-animation's, stores the unanimated values as keys too).
enum class KeyScope { Keys, EveryJoint };
enum class CubicWeightsLayout { Grouped, PerTarget };
// Normalized integer keys (rotations, morph weights): max(c / (2^(b-1) - 1), -1) signed and c / (2^b - 1)
// unsigned (glTF 3.11, as Vulkan's SNORM/UNORM), read as the integer c itself, or signed as (2c + 1) / (2^b - 1)
// (OpenGL ES 2.0's and OpenGL's pre-4.2 rule).
enum class KeyDecoding { Normalized, Raw, OffsetSigned };
struct SamplingConventions {
  QuaternionKeys quaternion_keys = QuaternionKeys::Normalized;
  RotationInterpolation rotation = RotationInterpolation::Slerp;
  StepBoundary step_boundary = StepBoundary::Key;
  StepMode step = StepMode::Spec;
  CubicVariant cubic = CubicVariant::Spec;
  double resample_hz = 0.0;  // > 0: every clip resampled at this rate, then played LINEAR
  TranslationScaleKeys translation_scale_keys = TranslationScaleKeys::F32;
  RotationKeys rotation_keys = RotationKeys::F32;
  KeyScope key_scope = KeyScope::Keys;
  // CUBICSPLINE weights of N targets: per key N in-tangents, N values, N out-tangents (glTF), or read as
  // (in-tangent, value, out-tangent) per target.
  CubicWeightsLayout cubic_weights = CubicWeightsLayout::Grouped;
  KeyDecoding key_decoding = KeyDecoding::Normalized;
};

// ---- hierarchy and palette ----
// Dropped: joints' globals start at the skeleton root; Doubled (a mistake): the ancestors' transform applied twice.
enum class SkeletonAncestors { Kept, Dropped, Doubled };
// The skinned mesh node's global transform M: ignored (glTF), applied on top of the palette, its inverse, or
// (three.js) normals only by M's normal matrix times its inverse, N(M) M^-1: positions as glTF's; or (a mistake)
// applied twice, M M.
enum class MeshNodeTransform { Ignored, Applied, Inverse, NormalMatrixTimesInverse, AppliedTwice };
// The TRS properties a channel of the played clip does not animate, on a node it animates: the node's own
// (glTF), or the identity's.
enum class RestValues { Node, Identity };
// Global transforms: kept as matrices (glTF), or stored as TRS at every node, the shear dropped.
enum class GlobalShear { Kept, Dropped };
// A joint whose node has no name: posed as its node (glTF), or left at its bind pose, the identity palette entry
// (an engine that binds bones to nodes by name, as Assimp's clients must: it names the bone bone_i and the node
// nodes[i], so the lookup finds nothing).
enum class UnnamedJoints { Posed, BindPose };
struct PaletteConventions {
  SkeletonAncestors skeleton_ancestors = SkeletonAncestors::Kept;
  MeshNodeTransform mesh_node = MeshNodeTransform::Ignored;
  RestValues rest_values = RestValues::Node;
  GlobalShear shear = GlobalShear::Kept;
  int joint_cap = 0;  // 0: every joint; N > 0: palette entries from N on stay the identity (never uploaded)
  UnnamedJoints unnamed_joints = UnnamedJoints::Posed;
};

// ---- morph ----
// The unanimated morph weights: node.weights, else mesh.weights (glTF); zeros; or mesh.weights even where
// node.weights is given.
enum class MorphDefaults { Used, Ignored, MeshOnly };
enum class MorphOrder { BeforeSkinning, AfterSkinning };
// Negative morph weights: kept (glTF allows them), or clamped to 0 (Assimp clamps its animated weights).
enum class NegativeMorphWeights { Kept, Clamped };
inline constexpr int kEveryMorphTarget = -1;
struct MorphConventions {
  MorphDefaults defaults = MorphDefaults::Used;
  // kEveryMorphTarget: every target (glTF); 0: none (morph targets unsupported); k > 0: the k largest |w| per
  // node, the others 0.
  int max_targets = kEveryMorphTarget;
  MorphOrder order = MorphOrder::BeforeSkinning;
  NegativeMorphWeights negative_weights = NegativeMorphWeights::Kept;
};

// ---- skinning and normals ----
// AsStored (glTF), Sum, L2; and the mistakes: every slot 1/k (Equal), every slot 1 (Ones: the weights ignored),
// the last slot 1 - the sum of the others (LastFromOthers).
enum class WeightNormalization { AsStored, Sum, L2, Equal, Ones, LastFromOthers };
enum class ZeroWeights { BindPose, FirstJoint };  // a vertex whose weights sum to 0
// Normals: the blended matrix's inverse transpose (geometrically correct; glTF 2.0 does not say how normals
// transform), per-joint normal matrices (cofactors) blended, the blended matrix's upper 3x3, the blended matrix
// applied to (n, 1) as to a point (its translation added), or the joints' inverse transposes blended (ozz-animation's SkinningJob given joint_inverse_transpose_matrices); or
// (a mistake) not skinned at all: the bind-space normals and tangents.
enum class NormalTransform {
  InverseTranspose,
  BlendNormalMatrices,
  BlendUpper3x3,
  AsPoint,
  BlendInverseTransposes,
  Unskinned
};
struct SkinningConventions {
  WeightNormalization weights = WeightNormalization::AsStored;
  ZeroWeights zero_weights = ZeroWeights::BindPose;
  NormalTransform normals = NormalTransform::InverseTranspose;
  bool normalize = true;  // normals and tangents normalized after the transform
};

struct Conventions {
  LoadConventions load;
  TimeConventions time;
  SamplingConventions sampling;
  PaletteConventions palette;
  MorphConventions morph;
  SkinningConventions skinning;
  Mistakes mistakes;  // core/mistakes.h: none by default
};


// Every field, in pipeline order.
const std::vector<ConventionField>& convention_fields();
const ConventionField* find_convention_field(const std::string& name);

// The mistakes' own fields (core/mistakes.h), in pipeline order; convention_fields() lists them after the
// conventions'.
std::vector<ConventionField> mistake_fields();
// Whether "NAME=VALUE" names an implementation mistake (a value of ConventionField::mistakes) rather than a
// design choice; false for an unknown name.
bool is_mistake(const std::string& assignment);

// "NAME=VALUE" applied to `conventions`; throws std::invalid_argument (unknown name, bad value).
void set_convention(Conventions& conventions, const std::string& assignment);

// {"a", "b"} as "a, b" (how a list of "NAME=VALUE" is spelt in verdicts and reports), and back.
std::string join_assignments(const std::vector<std::string>& assignments);
std::vector<std::string> split_assignments(const std::string& joined);

// The fields that differ from glTF 2.0, as "NAME=VALUE", in pipeline order.
std::vector<std::string> convention_differences(const Conventions& conventions);
// "glTF 2.0" or "glTF 2.0 with rotation=nlerp, normals=blend-normal-matrices".
std::string describe_conventions(const Conventions& conventions);
bool same_conventions(const Conventions& a, const Conventions& b);

// {"NAME": "VALUE", ...} with every field; the reader accepts any subset (the rest glTF's) and refuses an
// unknown name or value.
nlohmann::ordered_json conventions_to_json(const Conventions& conventions);
Conventions conventions_from_json(const nlohmann::ordered_json& object);

}  // namespace skinref
