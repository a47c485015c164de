// The CPU backend (skinning_cpu.h): the inputs converted to float32 planes (one array per component, so that
// SIMD lanes hold consecutive vertices), then the kernel of cpu_kernel.inc for the widest instruction set
// available over vertex ranges, one range per thread across every primitive of the scene.
#include "cpu/skinning_cpu.h"

#include "cpu/kernel_choice.h"

#include "core/input_error.h"
#include "core/parallel_ranges.h"
#include "skin/dqs.h"
#include "skin/lbs.h"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

namespace skinref::cpu {
namespace {

using namespace cpu_detail;

// The smallest number of vertices worth a thread of its own.
constexpr size_t kVerticesPerThread = 16384;

// OutputStores::Auto: outputs of at least this many bytes are written with streaming (non-temporal) stores:
// beyond the caches a normal store first reads the line it writes, a third more memory traffic for a skinning
// pass. Below it the outputs stay in cache for whoever reads them next.
constexpr double kStreamOutputBytes = 64.0 * 1024 * 1024;

void store_fence() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_sfence();
#endif
}

uint32_t as_u32(size_t value, const Scene& scene, const char* what) {
  if (value >= kNone)
    throw InputError(scene.source, "",
                     std::string("the CPU backend indexes ") + what + " with 32-bit integers; got " +
                         std::to_string(value));
  return static_cast<uint32_t>(value);
}

void append(Planes& planes, const Vec3& v) {
  planes.x.push_back(static_cast<float>(v.x()));
  planes.y.push_back(static_cast<float>(v.y()));
  planes.z.push_back(static_cast<float>(v.z()));
}

void append_zeros(Planes& planes, size_t count, bool with_w) {
  planes.x.resize(planes.x.size() + count, 0.0f);
  planes.y.resize(planes.y.size() + count, 0.0f);
  planes.z.resize(planes.z.size() + count, 0.0f);
  if (with_w) planes.w.resize(planes.w.size() + count, 0.0f);
}

// One palette entry in float32, rounded from the reference's doubles as the Vulkan path rounds them: JM's
// columns, the normal matrix's rows and, for a method that blends dual quaternions, split_dqs_joint()'s
// quaternions and S.
void append_entry(const Mat4& jm, const Mat3& normal, PaletteBlend blend, PaletteFloats& palette) {
  const size_t base = palette.size();
  palette.resize(base + kEntryFloats, 0.0f);
  float* entry = palette.data() + base;
  for (int c = 0; c < 4; ++c)
    for (int r = 0; r < 3; ++r) entry[kColumns + 3 * c + r] = static_cast<float>(jm(r, c));
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) entry[kNormalRows + 3 * r + c] = static_cast<float>(normal(r, c));
  switch (blend) {
    case PaletteBlend::Matrices: return;  // the columns and normal rows are all it reads
    case PaletteBlend::DualQuaternions: break;
  }
  const DqsJointSplit split = split_dqs_joint(jm);
  for (int k = 0; k < 4; ++k) {
    entry[kReal + k] = static_cast<float>(split.real[size_t(k)]);
    entry[kDual + k] = static_cast<float>(split.dual[size_t(k)]);
  }
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) entry[kSRows + 3 * r + c] = static_cast<float>(split.s(r, c));
  // The copy with the dual part negated (kNegatedDual): negation is exact, so it is -entry[kDual + k].
  for (uint32_t k = 0; k < 16; ++k) entry[kNegatedDual + k] = k < 4 ? -entry[kDual + k] : entry[kDual + k];
}

SegmentKernel find_kernel(SkinningKernel which) {
  switch (which) {
    case SkinningKernel::Scalar: return scalar_segment_kernel();
    case SkinningKernel::Avx2: return avx2_segment_kernel();
    case SkinningKernel::Avx512: return avx512_segment_kernel();
    case SkinningKernel::Auto: break;
  }
  return nullptr;
}

// Auto: the kernel measured fastest on this CPU, or the widest before a job has measured (kernel_choice.h).
SkinningKernel resolve(SkinningKernel which) { return which == SkinningKernel::Auto ? chosen_kernel() : which; }

// The steps of prepare_cpu_skinning.

// Step 1 of prepare_cpu_skinning: every skin's palette; returns each skin's first entry (entry_count: the entries).
std::vector<size_t> append_skin_palettes(const Scene& scene, const EvaluatedPose& pose,
                                         const SkinningOptions& options, CpuSkinningInputs& in, size_t& entry_count) {
  std::vector<size_t> skin_first_entry(scene.skins.size());
  for (size_t s = 0; s < scene.skins.size(); ++s) {
    const JointPalette& palette = pose.palettes.at(s);
    skin_first_entry[s] = entry_count;
    for (size_t j = 0; j < palette.skinning.size(); ++j)
      append_entry(palette.skinning[j], palette.normal.at(j), skinning_method_descriptor(options.method).palette,
                   in.palette);
    entry_count += palette.skinning.size();
  }
  return skin_first_entry;
}

// Step 2 of prepare_cpu_skinning: whether any drawn primitive has normals or tangents; the planes reserved.
void reserve_planes(const Scene& scene, const std::vector<int>& drawn, CpuSkinningInputs& in, bool& any_normals,
                    bool& any_tangents) {
  size_t vertex_total = 0, influence_total = 0;
  for (int n : drawn)
    for (const Primitive& prim : scene.meshes[size_t(scene.nodes[size_t(n)].mesh)].primitives) {
      any_normals = any_normals || !prim.normals.empty();
      any_tangents = any_tangents || !prim.tangents.empty();
      vertex_total += prim.vertex_count();
      if (scene.nodes[size_t(n)].skin >= 0) influence_total += prim.joints.size();
    }
  as_u32(vertex_total, scene, "vertices");
  for (Floats* plane : {&in.positions.x, &in.positions.y, &in.positions.z}) plane->reserve(vertex_total);
  in.entries.reserve(influence_total);
  in.weights.reserve(influence_total);
}

// Step 3 of prepare_cpu_skinning: a primitive's segment, its planes first padded to a whole influence block.
Segment start_segment(const Primitive& prim, size_t count, bool skinned, size_t first_entry,
                      const SkinningOptions& options, bool any_normals, bool any_tangents, CpuSkinningInputs& in) {
  // Each segment starts at a multiple of kInfluenceBlock floats in the planes (zero padding between), so
  // that the wide lanes, which start at multiples of their width within a segment, are 64-byte aligned.
  const size_t pad = (kInfluenceBlock - in.plane_size % kInfluenceBlock) % kInfluenceBlock;
  append_zeros(in.positions, pad, false);
  if (any_normals) append_zeros(in.normals, pad, false);
  if (any_tangents) append_zeros(in.tangents, pad, true);
  in.plane_size += pad;
  Segment seg;
  seg.first = in.plane_size;
  seg.count = count;
  seg.rigid = !skinned;
  seg.rigid_entry = uint32_t(first_entry * kEntryFloats);
  seg.method = skinned ? options.method : kRigidNodeMethod;
  seg.normals = !prim.normals.empty();
  seg.tangents = !prim.tangents.empty();
  return seg;
}

// Step 4 of prepare_cpu_skinning: a skinned primitive's influences, blocked, and whether a weight sum is 0.
void append_influences(const Primitive& prim, size_t count, size_t first_entry, size_t palette_size, Segment& seg,
                       CpuSkinningInputs& in) {
  const size_t k = size_t(prim.influences_per_vertex);
  if (k < 1 || prim.joints.size() != count * k || prim.weights.size() != count * k)
    throw std::invalid_argument("prepare_cpu_skinning: inconsistent influence sizes");
  seg.influences = int(k);
  seg.influence_first = in.entries.size();
  // Blocked (cpu_kernels.h: influence_index), padded to whole blocks.
  const size_t padded = (count + kInfluenceBlock - 1) / kInfluenceBlock * kInfluenceBlock;
  in.entries.resize(seg.influence_first + padded * k, 0);
  in.weights.resize(seg.influence_first + padded * k, 0.0f);
  for (size_t v = 0; v < count; ++v)
    for (size_t i = 0; i < k; ++i) {
      const uint32_t joint = prim.joints[v * k + i];
      if (joint >= palette_size)
        throw std::invalid_argument("prepare_cpu_skinning: joint index outside the palette");
      const size_t at = influence_index(seg, int(i), v);
      in.entries[at] = uint32_t((first_entry + joint) * kEntryFloats);
      in.weights[at] = static_cast<float>(prim.weights[v * k + i]);
    }
  // As the kernel sums them (float, influence order), so that it can skip the sum where none is 0.
  for (size_t v = 0; v < count && !seg.zero_weight_sum; ++v) {
    float sum = in.weights[influence_index(seg, 0, v)];
    for (size_t i = 1; i < k; ++i) sum += in.weights[influence_index(seg, int(i), v)];
    seg.zero_weight_sum = sum == 0.0f;
  }
}

// Step 5 of prepare_cpu_skinning: morph targets of non-zero weight in target order (the reference skips the rest).
void append_targets(const Scene& scene, const Primitive& prim, const std::vector<double>& morph_weights,
                    Segment& seg, CpuSkinningInputs& in) {
  seg.first_target = in.targets.size();
  for (size_t t = 0; t < prim.targets.size() && t < morph_weights.size(); ++t) {
    if (morph_weights[t] == 0.0) continue;
    const MorphTarget& target = prim.targets[t];
    auto append_deltas = [&](const std::vector<Vec3>& deltas, bool used) -> uint32_t {
      if (deltas.empty() || !used) return kNone;
      const uint32_t offset = as_u32(in.deltas.x.size(), scene, "morph deltas");
      for (const Vec3& delta : deltas) append(in.deltas, delta);
      return offset;
    };
    Target entry;
    entry.position = append_deltas(target.position_deltas, true);
    entry.normal = append_deltas(target.normal_deltas, seg.normals);
    entry.tangent = append_deltas(target.tangent_deltas, seg.tangents);
    entry.weight = static_cast<float>(morph_weights[t]);
    in.targets.push_back(entry);
  }
  seg.target_count = in.targets.size() - seg.first_target;
  as_u32(in.deltas.x.size(), scene, "morph deltas");
}

// Step 6 of prepare_cpu_skinning: a primitive's attributes appended to the planes (zeros where it lacks them).
void append_attributes(const Primitive& prim, size_t count, const Segment& seg, bool any_normals, bool any_tangents,
                       CpuSkinningInputs& in) {
  for (const Vec3& position : prim.positions) append(in.positions, position);
  if (any_normals) {
    if (seg.normals)
      for (const Vec3& normal : prim.normals) append(in.normals, normal);
    else
      append_zeros(in.normals, count, false);
  }
  if (any_tangents) {
    if (seg.tangents)
      for (const Vec4& tangent : prim.tangents) {
        append(in.tangents, tangent.head<3>());
        in.tangents.w.push_back(static_cast<float>(tangent.w()));
      }
    else
      append_zeros(in.tangents, count, true);
  }
}

}  // namespace

CpuSkinningInputs prepare_cpu_skinning(const Scene& scene, const EvaluatedPose& pose, const SkinningOptions& options) {
  CpuSkinningInputs in;
  in.renormalize = options.weights == WeightPolicy::Renormalize;
  in.blend_normal_matrices = options.normals == NormalMode::BlendedNormalMatrices;

  // Every skin's palette, then (below) one entry per rigid node.
  size_t entry_count = 0;
  const std::vector<size_t> skin_first_entry = append_skin_palettes(scene, pose, options, in, entry_count);

  const std::vector<int> drawn = drawn_nodes(scene);
  bool any_normals = false, any_tangents = false;
  reserve_planes(scene, drawn, in, any_normals, any_tangents);

  for (int n : drawn) {
    const Node& node = scene.nodes[size_t(n)];
    const bool skinned = node.skin >= 0;
    size_t first_entry = 0, palette_size = 1;
    if (skinned) {
      first_entry = skin_first_entry[size_t(node.skin)];
      palette_size = pose.palettes.at(size_t(node.skin)).skinning.size();
    } else {
      // A rigid node: its global matrix as a one-entry palette, with weight 1 (as evaluate_vertices does).
      const Mat4& global = pose.model.global.at(size_t(n));
      first_entry = entry_count++;
      append_entry(global, normal_matrix(global.topLeftCorner<3, 3>()),
                   skinning_method_descriptor(kRigidNodeMethod).palette, in.palette);
    }
    // The wide kernels read palette offsets as signed 32-bit values (entry_at in cpu_kernel.inc).
    if (in.palette.size() > size_t(std::numeric_limits<int32_t>::max()))
      throw InputError(scene.source, "",
                       "the CPU backend indexes palette floats with 31-bit offsets; got " +
                           std::to_string(in.palette.size()));
    const std::vector<double>& morph_weights = pose.local.morph_weights.at(size_t(n));
    const std::vector<Primitive>& primitives = scene.meshes[size_t(node.mesh)].primitives;
    for (size_t p = 0; p < primitives.size(); ++p) {
      const Primitive& prim = primitives[p];
      const size_t count = prim.vertex_count();
      Segment seg = start_segment(prim, count, skinned, first_entry, options, any_normals, any_tangents, in);
      if (skinned) append_influences(prim, count, first_entry, palette_size, seg, in);
      append_targets(scene, prim, morph_weights, seg, in);
      append_attributes(prim, count, seg, any_normals, any_tangents, in);
      in.vertex_count += count;
      in.plane_size += count;
      in.segments.push_back(seg);
      WorldPrimitive header;
      header.node = n;
      header.mesh = node.mesh;
      header.primitive = int(p);
      header.skinned = skinned;
      in.primitives.push_back(std::move(header));
    }
  }
  as_u32(in.plane_size, scene, "vertices (with the alignment padding)");
  return in;
}

DqsSchedule resolve_dqs_schedule(DqsSchedule schedule) {
  if (schedule != DqsSchedule::Auto) return schedule;
  return __builtin_cpu_is("amd") ? DqsSchedule::Pipelined : DqsSchedule::InOrder;
}

const char* dqs_schedule_name(DqsSchedule schedule) {
  switch (resolve_dqs_schedule(schedule)) {
    case DqsSchedule::Pipelined: return "pipelined";
    case DqsSchedule::InOrder: break;
    case DqsSchedule::Auto: break;  // resolved above
  }
  return "in order";
}

namespace {

// The kernels' view of one skin_cpu() call: the inputs' and outputs' planes and the switches.
Job make_job(const CpuSkinningInputs& in, CpuSkinningOutputs& out, bool stream_outputs, WideBlends blends,
             DqsSchedule dqs_schedule) {
  return Job{in.positions.x.data(), in.positions.y.data(), in.positions.z.data(),
             in.normals.x.data(),   in.normals.y.data(),   in.normals.z.data(),
             in.tangents.x.data(),  in.tangents.y.data(),  in.tangents.z.data(),
             in.tangents.w.data(),  in.entries.data(),     in.weights.data(),
             in.palette.data(),     in.targets.data(),     in.deltas.x.data(),
             in.deltas.y.data(),    in.deltas.z.data(),    in.renormalize,
             in.blend_normal_matrices, stream_outputs, blends == WideBlends::Gathers,
             resolve_dqs_schedule(dqs_schedule) == DqsSchedule::Pipelined, out.positions.x.data(), out.positions.y.data(),
             out.positions.z.data(),   out.normals.x.data(),   out.normals.y.data(),
             out.normals.z.data(),     out.tangents.x.data(),  out.tangents.y.data(),
             out.tangents.z.data(),    out.tangents.w.data()};
}

}  // namespace

void skin_cpu(const CpuSkinningInputs& in, CpuSkinningOutputs& out, int threads, SkinningKernel kernel,
              OutputStores stores, WideBlends blends, DqsSchedule dqs_schedule) {
  if (threads < 1) throw std::invalid_argument("skin_cpu: threads must be >= 1");
  if (kernel != SkinningKernel::Auto && find_kernel(kernel) == nullptr)
    throw std::invalid_argument(std::string("skin_cpu: the ") + cpu_kernel_name(kernel) +
                                " kernel is not available on this CPU or build");
  const size_t n = in.plane_size;
  auto size_like = [n](const Planes& from, Planes& to) {
    for (auto [source, target] : {std::pair{&from.x, &to.x}, std::pair{&from.y, &to.y}, std::pair{&from.z, &to.z},
                                  std::pair{&from.w, &to.w}})
      target->resize(source->empty() ? 0 : n);
  };
  size_like(in.positions, out.positions);
  size_like(in.normals, out.normals);
  size_like(in.tangents, out.tangents);

  // Outputs larger than kStreamOutputBytes are written with streaming stores (see there).
  const double output_bytes = double(n) * sizeof(float) *
                              double((out.positions.x.empty() ? 0 : 3) + (out.normals.x.empty() ? 0 : 3) +
                                     (out.tangents.x.empty() ? 0 : 4));
  const bool stream_outputs = stores == OutputStores::Streaming ||
                              (stores == OutputStores::Auto && output_bytes >= kStreamOutputBytes);
  const Job job = make_job(in, out, stream_outputs, blends, dqs_schedule);
  if (kernel == SkinningKernel::Auto) measure_kernel_choice(job, in.segments);
  const SegmentKernel run = find_kernel(resolve(kernel));
  // Ranges of the whole scene's vertices; each range skins the parts of the primitives it covers.
  detail::for_each_range(n, threads, kVerticesPerThread, [&](size_t begin, size_t end) {
    // Streaming stores are weakly ordered: fenced before the range counts as done.
    struct Fence {
      bool streaming;
      ~Fence() {
        if (streaming) store_fence();
      }
    } fence{stream_outputs};
    auto first = std::upper_bound(in.segments.begin(), in.segments.end(), begin,
                                  [](size_t vertex, const Segment& s) { return vertex < s.first; });
    if (first != in.segments.begin()) --first;
    for (auto s = first; s != in.segments.end() && s->first < end; ++s) {
      const size_t lo = std::max(begin, s->first), hi = std::min(end, s->first + s->count);
      if (lo < hi) run(job, *s, lo - s->first, hi - s->first);
    }
  });
}

std::vector<WorldPrimitive> cpu_world_primitives(const CpuSkinningInputs& in, const CpuSkinningOutputs& out) {
  std::vector<WorldPrimitive> result = in.primitives;
  for (size_t k = 0; k < result.size(); ++k) {
    const Segment& s = in.segments[k];
    SkinnedVertices& v = result[k].vertices;
    v.positions.resize(s.count);
    v.normals.resize(s.normals ? s.count : 0);
    v.tangents.resize(s.tangents ? s.count : 0);
    for (size_t i = 0; i < s.count; ++i) {
      const size_t g = s.first + i;
      v.positions[i] = Vec3(out.positions.x[g], out.positions.y[g], out.positions.z[g]);
      if (s.normals) v.normals[i] = Vec3(out.normals.x[g], out.normals.y[g], out.normals.z[g]);
      if (s.tangents) v.tangents[i] = Vec4(out.tangents.x[g], out.tangents.y[g], out.tangents.z[g], out.tangents.w[g]);
    }
  }
  return result;
}

std::vector<WorldPrimitive> cpu_evaluate_vertices(const Scene& scene, const EvaluatedPose& pose,
                                                  const SkinningOptions& options) {
  const CpuSkinningInputs inputs = prepare_cpu_skinning(scene, pose, options);
  CpuSkinningOutputs outputs;
  skin_cpu(inputs, outputs, options.threads, options.kernel);
  return cpu_world_primitives(inputs, outputs);
}

double cpu_skinning_traffic_bytes(const CpuSkinningInputs& in) {
  auto plane_bytes = [](const Planes& planes) {
    return double(planes.x.size() + planes.y.size() + planes.z.size() + planes.w.size()) * sizeof(float);
  };
  // Attributes in and out (the outputs have the inputs' planes), the influences, the deltas.
  return 2.0 * (plane_bytes(in.positions) + plane_bytes(in.normals) + plane_bytes(in.tangents)) +
         double(in.entries.size()) * sizeof(in.entries[0]) + double(in.weights.size()) * sizeof(float) +
         plane_bytes(in.deltas);
}

bool cpu_kernel_available(SkinningKernel kernel) { return find_kernel(resolve(kernel)) != nullptr; }

const char* cpu_kernel_name(SkinningKernel kernel) { return skinning_kernel_name(resolve(kernel)); }

}  // namespace skinref::cpu
