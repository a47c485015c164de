#include "skin/morph.h"

namespace skinref {

MorphedAttributes apply_morph_targets(const Primitive& prim, std::span<const double> weights) {
  MorphedAttributes out{prim.positions, prim.normals, prim.tangents};
  add_morph_deltas(prim, weights, out);
  return out;
}

void add_morph_deltas(const Primitive& prim, std::span<const double> weights, MorphedAttributes& out) {
  const size_t n = out.positions.size();
  for (size_t t = 0; t < prim.targets.size() && t < weights.size(); ++t) {
    const double w = weights[t];
    if (w == 0.0) continue;  // adds nothing; skipping keeps zero-weight results bit-identical to the input
    const MorphTarget& target = prim.targets[t];
    if (!target.position_deltas.empty())
      for (size_t v = 0; v < n; ++v) out.positions[v] += target.position_deltas[v] * w;
    if (!target.normal_deltas.empty() && !out.normals.empty())
      for (size_t v = 0; v < n; ++v) out.normals[v] += target.normal_deltas[v] * w;
    if (!target.tangent_deltas.empty() && !out.tangents.empty())
      for (size_t v = 0; v < n; ++v) out.tangents[v].head<3>() += target.tangent_deltas[v] * w;
  }
}

}  // namespace skinref
