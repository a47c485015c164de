// FBX, Collada and the other formats Assimp reads, loaded into the same Scene as glTF (docs/assimp.md
// has the mapping table).
//
// Contract:
// - load_assimp_file() runs Assimp in a child process (fork) under stated limits (tol-style constants below:
//   address space, CPU time, wall time, the size of what comes back), because Assimp is known to crash and
//   hang on malformed files. The child translates Assimp's scene into a Scene and sends it back as a .glb
//   (float32 values, as Assimp holds them), which the parent loads with the glTF loader and its checks. A
//   crash, a hang, an allocation failure or a refusal in the child is an InputError naming the file and what
//   happened; nothing is written.
// - The mapping (scene_from_assimp()): nodes keep Assimp's hierarchy and names, FBX pivot helpers
//   ($AssimpFbx$...) included, each transform decomposed into TRS (a transform with shear is refused, naming
//   the node). A node's meshes with bones become one skinned node: joints are the bones, matched to nodes by
//   name (each name must be unique), in order of first appearance over the node's meshes; inverse bind
//   matrices are the bones' offset matrices (a bone given two offsets is refused). Each vertex's influences
//   are the bones' weight entries in bone order, padded with (joint 0, weight 0) to a multiple of 4; weights
//   as stored. A node's meshes without bones go to a child node "NAME$rigid" with an identity transform.
//   Morph targets come from aiAnimMesh (positions and normals as deltas from the base mesh; default weights
//   from mWeight, which must be finite and the same in every mesh that becomes one glTF mesh: a node's skinned
//   meshes, or its rigid ones). Animations: each aiNodeAnim's position, rotation and scale keys become LINEAR samplers
//   (rotations by slerp), times in seconds (ticks / ticks per second; 25 ticks per second when the file
//   gives none, Assimp's documented default); pre- and post-states DEFAULT and CONSTANT clamp to the first
//   and last key (glTF's rule), LINEAR and REPEAT are refused; keys at equal times keep the first (a jump
//   between different values there is refused), negative times are refused. Morph-target animation
//   (aiMeshMorphAnim) and cameras are not mapped: the first is refused, cameras are dropped.
// - Units and axes: glTF is metres and +Y up. ImportOptions::scale: kAuto applies the file's unit
//   (FBX UnitScaleFactor centimetres, Collada's unit, which Assimp applies itself), kNone leaves the
//   values as stored, a number multiplies by it. ImportOptions::up: kAuto applies the file's axis system (FBX
//   UpAxis/FrontAxis/CoordAxis and signs; Collada's up_axis, applied by Assimp), or treats the file as Y-up or
//   Z-up. Both are applied by one root node "skinref:import" above Assimp's root when they are not identity.
//   Scene::import_facts records the format, the file's unit and axes, and what was applied, for `info`.
// - limit_weights K > 0 runs Assimp's LimitBoneWeights: per vertex the K largest weights, renormalized (the
//   convention influences=topK-renormalized of core/conventions.h, done by the importer).
#pragma once

#include "core/scene.h"

#include <optional>
#include <string>

struct aiScene;

namespace skinref {

namespace tol {
// Limits of one Assimp import (the child process). Address space and CPU time scale with the input file, so
// that a small file Assimp expands without end (a 14 KB Collada file the fuzzer made allocated 4 GiB over 16 s)
// fails in seconds while a large asset keeps room: base + per input byte (or MiB), at most the cap.
// What imports need, measured (2026-11-27, Debian's Assimp 5.2, the least RLIMIT_AS with which each imports,
// in 1 MiB steps): each of the 24 FBX and Collada files of tests/assimp/, the fuzz seeds and the shared corpus
// that Assimp imports (3.5 KB to 971 KB) needs at most 9 MiB beyond what the process has mapped (4.6 to 49
// bytes per input byte for files over 20 KB). So the 256 MiB base alone is 28 times the most any of them
// needs, and 256 bytes per input byte over 5 times their highest ratio, while a small file that Assimp
// expands without end stops at a quarter of the 1 GiB base it had: the fuzzer's 8 KB FBX files that
// allocate up to the limit took 2.2 s and 795 MB to be refused.
inline constexpr unsigned long long kAssimpAddressSpaceBaseBytes = 256ull << 20;  // RLIMIT_AS (not under ASan)
inline constexpr unsigned long long kAssimpAddressSpacePerInputByte = 256;
inline constexpr unsigned long long kAssimpAddressSpaceBytes = 4ull << 30;  // the cap
inline constexpr unsigned kAssimpCpuSecondsBase = 4;                        // RLIMIT_CPU
inline constexpr unsigned kAssimpCpuSecondsPerMiB = 4;
inline constexpr unsigned kAssimpCpuSeconds = 60;                           // the cap
inline constexpr unsigned kAssimpWallSeconds = 90;                          // then SIGKILL
inline constexpr unsigned long long kAssimpResultBytes = 1ull << 30;        // the .glb sent back
}  // namespace tol

struct ImportOptions {
  enum class Mode { Auto, None, Given };
  Mode scale_mode = Mode::Auto;
  double scale = 1.0;            // Mode::Given
  Mode up_mode = Mode::Auto;
  char up = 'y';                 // Mode::Given: 'y' or 'z' (right-handed)
  int limit_weights = 0;         // 0: off; else 1 to 16
  // The child's limits (lowered by the tests to see each failure handled); 0: scaled by the input's size
  // (assimp_import_limits).
  unsigned long long address_space_bytes = 0;
  unsigned cpu_seconds = 0;
  double wall_seconds = tol::kAssimpWallSeconds;

  bool is_default() const { return scale_mode == Mode::Auto && up_mode == Mode::Auto && limit_weights == 0; }
};

// The child's address space and CPU time for an input of `input_bytes`: the options' where they give one, else
// base + per input byte (CPU: per whole MiB), at most the cap (tol::kAssimp*).
struct AssimpImportLimits {
  unsigned long long address_space_bytes = 0;
  unsigned cpu_seconds = 0;
};
AssimpImportLimits assimp_import_limits(unsigned long long input_bytes, const ImportOptions& options);

// Whether `path` is loaded through Assimp (its extension is not .gltf or .glb, and this build has Assimp).
bool is_assimp_path(const std::string& path);

// The path's extension in lower case, with its dot (".fbx"), or "" without one.
std::string lowercase_extension(const std::string& path);
// Whether this build has the Assimp loader.
bool assimp_available();

Scene load_assimp_file(const std::string& path, const ImportOptions& options = {});

// The translation itself (in the child; exposed for tests). `source` names the file in errors.
Scene scene_from_assimp(const aiScene& scene, const std::string& source, const ImportOptions& options);

}  // namespace skinref
