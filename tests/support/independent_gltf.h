// A second, deliberately independent glTF 2.0 evaluator for the corpus tests: it shares no code with
// reference/ (its own .gltf/.glb parsing on nlohmann::json, base64 data: URIs, accessor reading, animation
// sampling, global transforms and skinning), so agreement with the reference is evidence, not tautology.
//
// Contract:
// - Reads .gltf (external files relative to the file's folder, data: URIs) and .glb (chosen by the GLB
//   magic). Required extensions: only KHR_mesh_quantization; anything else unsupported throws
//   std::runtime_error naming the file.
// - Accessors: componentType, `normalized` (i8: max(c/127,-1), u8: c/255, i16: max(c/32767,-1),
//   u16: c/65535), byteOffset, byteStride, matrix column padding, sparse substitution; no bufferView reads
//   as zeros. Every range is checked.
// - Node local transform: `matrix` used as given, else T * R * S with the stored rotation normalized.
// - Sampling: clamped outside the key range; at an exact key time the key's own value. STEP: key k;
//   LINEAR: lerp, rotations slerp on the short path between normalized keys; CUBICSPLINE: Hermite with
//   tangents scaled by the key interval, rotations normalized after interpolation.
// - Global transforms are computed recursively from a node up through its parents (the reference uses a
//   forward pass). Joint matrix = G(joint) * IBM (identity when absent). Morph weights: animated, else
//   node.weights, else mesh.weights, else zero; POSITION targets applied before skinning. LBS sums
//   w * (JM * p) over every JOINTS_n/WEIGHTS_n set with weights as stored; a mesh node without a skin is
//   transformed by its global matrix. Positions are world space.
// - Primitives are listed depth-first (pre-order) over the active scene's roots (`scene`, else scenes[0],
//   else every parentless node), children in file order, each node's primitives in order.
#pragma once

#include <array>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace independent {

struct PrimitivePositions {
  int node = -1;
  int mesh = -1;
  int primitive = -1;
  bool skinned = false;
  std::vector<std::array<double, 3>> positions;
};

// Top-level array sizes of the file, for cross-checking what a loader kept.
struct Summary {
  size_t nodes = 0;
  size_t meshes = 0;
  size_t skins = 0;
  size_t animations = 0;
};

class GltfFile {
 public:
  // Parses the file and reads every accessor it needs; throws std::runtime_error on anything invalid or
  // unsupported.
  explicit GltfFile(const std::string& path);
  ~GltfFile();
  GltfFile(GltfFile&&) noexcept;
  GltfFile& operator=(GltfFile&&) noexcept;
  GltfFile(const GltfFile&) = delete;
  GltfFile& operator=(const GltfFile&) = delete;

  Summary summary() const;
  int animation_count() const;

  // Every key time of every sampler of `animation`, sorted, without duplicates.
  std::vector<double> key_times(int animation) const;

  // World-space positions of every drawn primitive with `animation` (-1: none) sampled at time t.
  std::vector<PrimitivePositions> skinned_positions(int animation, double t) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Convenience: parses `path` and evaluates once.
std::vector<PrimitivePositions> skinned_positions(const std::string& path, int animation, double t);

}  // namespace independent
