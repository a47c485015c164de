// The skinning method: which stage turns bind-space vertices and a joint palette into world-space vertices.
// One enum, one descriptor per method, one parse/print pair; everything that names, chooses or loops over
// methods (the CLI's --method, the golden manifest, the benchmarks' case names, reports, the backends) goes
// through here.
//
// Contract:
// - kSkinningMethods lists every method once, in enum order, the order reports and benchmarks use.
// - skinning_method_descriptor(): what the layers need to know of a method, as data (SkinningMethodDescriptor:
//   its names, its shader constant, what its kernels blend of the palette, whether LBS's normal rule and its
//   options apply, its reference stage). A layer reads the property it needs rather than comparing methods;
//   the code of a method sits behind its descriptor (the reference stage) or behind one switch without
//   `default:` per layer (CPU lanes, shader kernel, float32 bounds; docs/architecture.md, "Adding a skinning
//   method").
// - skinning_method_name(): the lower-case name used on the command line and in files ("lbs", "dqs").
// - parse_skinning_method(): the method of that exact name, or nullopt; skinning_method_choices() is the
//   names in kSkinningMethods order joined by `separator`, for usage and error messages.
// - kDefaultSkinningMethod: a run's method when it names none; kRigidNodeMethod: the method every rigid node
//   (a mesh without a skin: one palette entry, its global matrix, weight 1) is skinned with, whatever the run's.
//
// Adding a method: docs/architecture.md lists the files (here: its enum entry, its place in kSkinningMethods,
// its descriptor and the declaration of its reference stage).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace skinref {

struct SkinningInput;    // skin/options.h
struct SkinningOptions;  // skin/options.h
struct SkinnedVertices;  // core/vertices.h
enum class SkinningKernel;  // skin/options.h

enum class SkinningMethod {
  Lbs,  // linear blend skinning (skin/lbs.h)
  Dqs,  // dual quaternion skinning with the scale/shear phase (skin/dqs.h)
};

inline constexpr std::array<SkinningMethod, 2> kSkinningMethods = {SkinningMethod::Lbs, SkinningMethod::Dqs};

// What a method's kernels blend of each palette entry. Every entry holds JM and its normal matrix; the
// backends and the bounds prepare the rest per entry for the methods that read it.
enum class PaletteBlend {
  Matrices,         // JM_i (and the normal matrices N_i)
  DualQuaternions,  // split_dqs_joint(JM_i) (skin/dqs.h): the rigid part as a unit dual quaternion, and S_i
};

// A reference stage (skin/lbs.h states the contract they share) and the name of the kernel it runs for a
// SkinningKernel ("scalar", "avx2", "avx512"; Auto: the one chosen).
using SkinningStage = void (*)(const SkinningInput& input, const SkinningOptions& options, SkinnedVertices& output);
using SkinningKernelName = const char* (*)(SkinningKernel kernel);

struct SkinningMethodDescriptor {
  const char* name = nullptr;     // "lbs": the command line, vertex dumps, manifests, benchmark names
  const char* label = nullptr;    // "LBS": the name in prose (messages, tables)
  const char* summary = nullptr;  // "linear blend skinning": usage texts
  // gpu/shaders/skin.comp's specialization constant 0 (its kMethod* constants), which picks the method's kernel.
  uint32_t shader_method = 0;
  PaletteBlend palette = PaletteBlend::Matrices;
  // Its normals follow LBS's rule: NormalMode (--normals) and the normal conventions (normals=..., normalize=no,
  // skin/skinning_conventions.h) apply. Otherwise the method has a normal rule of its own and refuses them.
  bool lbs_normals = false;
  SkinningStage stage = nullptr;
  SkinningKernelName kernel_name = nullptr;
};

// The reference stages and their kernel names, declared here for the descriptors (each stage's header states
// its contract: skin/lbs.h, skin/dqs.h).
void skin_lbs(const SkinningInput& input, const SkinningOptions& options, SkinnedVertices& output);
const char* skinning_kernel_name(SkinningKernel kernel);
void skin_dqs(const SkinningInput& input, const SkinningOptions& options, SkinnedVertices& output);
const char* dqs_kernel_name(SkinningKernel kernel);

// The descriptor of `method`; one with null names for a value that is no method.
constexpr SkinningMethodDescriptor skinning_method_descriptor(SkinningMethod method) {
  switch (method) {
    case SkinningMethod::Lbs:
      return {.name = "lbs", .label = "LBS", .summary = "linear blend skinning", .shader_method = 0,
              .palette = PaletteBlend::Matrices, .lbs_normals = true, .stage = &skin_lbs,
              .kernel_name = &skinning_kernel_name};
    case SkinningMethod::Dqs:
      return {.name = "dqs", .label = "DQS", .summary = "dual quaternion skinning", .shader_method = 1,
              .palette = PaletteBlend::DualQuaternions, .lbs_normals = false, .stage = &skin_dqs,
              .kernel_name = &dqs_kernel_name};
  }
  return {};
}

inline constexpr SkinningMethod kDefaultSkinningMethod = SkinningMethod::Lbs;
inline constexpr SkinningMethod kRigidNodeMethod = SkinningMethod::Lbs;

// kSkinningMethods holds every method, in enum order: the value after its last one has no descriptor.
static_assert(
    [] {
      for (size_t i = 0; i < kSkinningMethods.size(); ++i)
        if (static_cast<size_t>(kSkinningMethods[i]) != i || !skinning_method_descriptor(kSkinningMethods[i]).name)
          return false;
      return !skinning_method_descriptor(static_cast<SkinningMethod>(kSkinningMethods.size())).name;
    }(),
    "kSkinningMethods lists every SkinningMethod once, in enum order, each with its descriptor");

const char* skinning_method_name(SkinningMethod method);
// What it is, in a few words, for usage texts ("linear blend skinning").
const char* skinning_method_summary(SkinningMethod method);
std::optional<SkinningMethod> parse_skinning_method(std::string_view name);
std::string skinning_method_choices(std::string_view separator = "|");

}  // namespace skinref
