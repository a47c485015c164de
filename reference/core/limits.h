// Stated resource limits: the largest inputs skinref accepts. Each is checked before the allocation or
// recursion that depends on it, and a larger input is an InputError (exit 2) that names the limit and its
// value (limit_text()). Real assets are far below every limit: tens of thousands of nodes at most, about a
// thousand joints per skin (ozz-animation and most engines cap a skeleton at 1024), millions of vertices.
// docs/fuzzing.md, "Limits", lists them, with the error a user sees.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace skinref::limits {

// Nodes in one file (and children of one node): 1M; the largest production scenes have tens of thousands.
inline constexpr size_t kMaxNodes = size_t(1) << 20;
// Joints in one skin: JOINTS_n stores unsigned shorts at most, so no vertex can address more than 65,536.
inline constexpr size_t kMaxJointsPerSkin = size_t(1) << 16;
// Depth of the node hierarchy (root = 1): real rigs are under 100 deep, long rope/hair chains a few hundred.
inline constexpr size_t kMaxHierarchyDepth = 10000;
// Keyframes in one animation sampler: 16M, over 4 hours of keys at 1000 per second.
inline constexpr size_t kMaxKeysPerSampler = size_t(1) << 24;
// Animations in one file: 64K; a game character carries hundreds of clips, a whole game's library thousands.
inline constexpr size_t kMaxAnimations = size_t(1) << 16;
// Channels (and samplers) in one animation: 1M, 4 channels (T, R, S, weights) for each of 256K nodes.
inline constexpr size_t kMaxChannelsPerAnimation = size_t(1) << 20;
// Vertices in one primitive: 64M, 64 times the built-in `million` scene.
inline constexpr size_t kMaxVerticesPerPrimitive = size_t(1) << 26;
// Elements of one accessor (vertices, indices, keys, matrices): 256M, 4x the vertex limit for index lists.
inline constexpr size_t kMaxAccessorElements = size_t(1) << 28;
// Influence sets per vertex (JOINTS_n / WEIGHTS_n for n < 8): 32 influences; engines use 4 or 8.
inline constexpr size_t kMaxInfluenceSets = 8;
// Morph targets per primitive (and weights per mesh or node): facial rigs use 50 to a few hundred.
inline constexpr size_t kMaxMorphTargets = 1024;
// Entries of any other top-level glTF array (meshes, accessors, buffer views, materials, ...): as nodes.
inline constexpr size_t kMaxArrayEntries = size_t(1) << 20;
// Nesting of JSON arrays and objects (glTF, dumps, recipes): glTF itself needs under 10; deep "extras"
// would otherwise recurse in tinygltf's value conversion.
inline constexpr size_t kMaxJsonDepth = 256;
// Bytes of one glTF buffer: 2 GiB, the most a GLB (32-bit chunk lengths, tinygltf's int sizes) can hold.
inline constexpr uint64_t kMaxBufferBytes = uint64_t(1) << 31;
// Width or height of an image (render --size, read_png, glTF textures): 16384, the usual GPU texture limit.
inline constexpr size_t kMaxImageDimension = 16384;
// Pixels of one image: 64M (8192 x 8192); a render keeps colour, depth and ids, ~20 bytes per pixel.
inline constexpr size_t kMaxImagePixels = size_t(1) << 26;
// PNG image data (the IDAT stream, inflated) beyond what the IHDR's image needs: 64 KiB. A deflate stream
// inflates up to ~1000x, so without it a 10 MB PNG could make the decoder grow a buffer to 10 GB. Excess
// within it is read as before (stb_image ignores trailing data, libpng warns); real files carry none, and
// the check's buffer (the image's size plus this) stays small for small images.
inline constexpr uint64_t kMaxPngExcessImageDataBytes = uint64_t(1) << 16;
// Memory one command may plan to use, estimated from the counts before allocating: 8 GiB.
inline constexpr uint64_t kMaxPlannedBytes = uint64_t(8) << 30;

// "<= VALUE (limits::NAME)": the tail of every limit error, so that each names the limit and its value.
inline std::string limit_text(uint64_t value, const char* name) {
  return "<= " + std::to_string(value) + " (skinref's limit " + name + ")";
}

}  // namespace skinref::limits
