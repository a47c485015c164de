// The closed choices of the command line that no enum of the reference names (the method, the backend and the
// bounds model have their own tables: skin/method.h, backend/backend.h, verify/bounds_model.h): each accepted
// name with the value it stands for, declared once, so that an option's declaration (its choices, in the
// help and docs/cli.md) and the parser of its value read the same table.
//
// Contract: choice_names() lists a table's names in order; choice_value() is the value of `text`, or a
// UsageError naming the option, the text and the choices.
#pragma once

#include "cli/usage_error.h"
#include "io/assimp_import.h"
#include "io/vertex_dump.h"
#include "skin/options.h"

#include <array>
#include <string>
#include <vector>

namespace skinref::cli {

template <class T>
struct Choice {
  const char* name;
  T value;
};

template <class T, size_t N>
std::vector<std::string> choice_names(const std::array<Choice<T>, N>& table) {
  std::vector<std::string> names;
  for (const Choice<T>& choice : table) names.emplace_back(choice.name);
  return names;
}

template <class T, size_t N>
T choice_value(const std::array<Choice<T>, N>& table, const std::string& text, const std::string& option) {
  for (const Choice<T>& choice : table)
    if (text == choice.name) return choice.value;
  std::string list;
  for (const Choice<T>& choice : table) list += (list.empty() ? "" : ", ") + std::string(choice.name);
  throw UsageError("option " + option + ": '" + text + "' is not one of " + list);
}

// A pose without animation, for triage ("is it the skinning or the animation?"): --pose rest, every node at its
// own TRS; --pose bind, the skins' bind pose (anim/bind_pose.h).
enum class StillPose { Rest, Bind };
inline constexpr std::array<Choice<StillPose>, 2> kStillPoses{{{"rest", StillPose::Rest}, {"bind", StillPose::Bind}}};
// --precision of a dump.
inline constexpr std::array<Choice<DumpPrecision>, 2> kPrecisions{{{"f32", DumpPrecision::F32}, {"f64", DumpPrecision::F64}}};
// --palette: whose pose and palettes the Vulkan skinning uses (true: the GPU animation pass's own).
inline constexpr std::array<Choice<bool>, 2> kPalettes{{{"reference", false}, {"gpu", true}}};
// --weights and --normals: shorthands for the conventions' values (core/conventions.h).
inline constexpr std::array<Choice<const char*>, 2> kWeightShorthands{{{"as-stored", "as-stored"}, {"renormalize", "sum"}}};
inline constexpr std::array<Choice<const char*>, 2> kNormalShorthands{
    {{"inverse-transpose", "inverse-transpose"}, {"blend-normal-matrices", "blend-normal-matrices"}}};
// --cpu-kernel: the CPU backend's instruction set (auto: measured, cpu/kernel_choice.h).
inline constexpr std::array<Choice<SkinningKernel>, 4> kCpuKernels{{{"auto", SkinningKernel::Auto},
                                                                    {"scalar", SkinningKernel::Scalar},
                                                                    {"avx2", SkinningKernel::Avx2},
                                                                    {"avx512", SkinningKernel::Avx512}}};
// --import-up: the up axis of a file Assimp reads.
struct ImportUp {
  ImportOptions::Mode mode;
  char axis;
};
inline constexpr std::array<Choice<ImportUp>, 4> kImportUps{{{"auto", {ImportOptions::Mode::Auto, 'y'}},
                                                             {"none", {ImportOptions::Mode::None, 'y'}},
                                                             {"y", {ImportOptions::Mode::Given, 'y'}},
                                                             {"z", {ImportOptions::Mode::Given, 'z'}}}};

}  // namespace skinref::cli
