// The shared options' declarations (see option_groups.h).
#include "cli/option_groups.h"

#include "cli/choices.h"

#include "backend/backend.h"
#include "skin/method.h"
#include "skin/options.h"

namespace skinref::cli {

std::vector<OptionDecl> pose_selection_options() {
  return {
      {"--anim", "NAME|INDEX", "The animation to sample (an integer is an index); default: the first, or the rest "
                               "pose when the model has none."},
      {"--recipe", "FILE", "A pose recipe (JSON: layers, cross-fades, additives, IK) instead of --anim."},
      {"--pose", "rest|bind", "A pose without animation, instead of --anim or --recipe: rest, every node at its own "
                              "TRS; bind, the skins' bind pose (each joint at the inverse of its inverse bind matrix, "
                              "every palette entry the identity): the first step of triage (skinning or animation?).",
       choice_names(kStillPoses)},
      {"--time", "SECONDS", "The sampling time, a finite number; default 0, or the recipe's time (which it overrides)."},
  };
}

namespace {

// "lbs": the methods to which --normals applies (SkinningMethodDescriptor::lbs_normals).
std::string methods_with_lbs_normal_rule() {
  std::string names;
  for (const SkinningMethod method : kSkinningMethods)
    if (skinning_method_descriptor(method).lbs_normals) names += (names.empty() ? "" : ", ") + std::string(skinning_method_name(method));
  return names;
}

}  // namespace

std::vector<OptionDecl> convention_options() {
  return {
      {"--convention", "NAME=VALUE", "An engine convention (docs/conventions.md), e.g. rotation=nlerp, "
                                     "normals=blend-upper3x3, influences=top4-renormalized; default: glTF 2.0.",
       {}, "", true},
      {"--conventions", "FILE.json", "A JSON object {\"NAME\": \"VALUE\", ...} of conventions (or a report holding "
                                     "one as \"conventions\"), applied before --convention."},
      {"--weights", "as-stored|renormalize", "Shorthand for --convention weights=as-stored|sum.",
       choice_names(kWeightShorthands), "as-stored"},
      {"--normals", "inverse-transpose|blend-normal-matrices",
       "Shorthand for --convention normals=...; for the methods whose normals follow LBS's rule (" +
           methods_with_lbs_normal_rule() + ").",
       choice_names(kNormalShorthands), "inverse-transpose"},
  };
}

OptionDecl method_option() {
  std::vector<std::string> names;
  std::string help = "The skinning method: ";
  for (size_t i = 0; i < kSkinningMethods.size(); ++i) {
    const SkinningMethod method = kSkinningMethods[i];
    names.emplace_back(skinning_method_name(method));
    if (i > 0) help += i + 1 == kSkinningMethods.size() ? " or " : ", ";
    help += names.back() + " (" + skinning_method_summary(method) + ")";
  }
  return {"--method", skinning_method_choices(), help + ".", names, skinning_method_name(SkinningOptions{}.method)};
}

OptionDecl recorded_method_option(const std::string& whose, const std::string& dumps) {
  OptionDecl method = method_option();
  method.help += " " + whose + "; default: what " + dumps + " record, else " + method.default_value + ".";
  method.default_value.clear();
  return method;
}

OptionDecl threads_option() {
  return {"--threads", "N", "Worker threads, 1 to 1024; the output does not depend on it.", {}, "1"};
}

std::vector<OptionDecl> import_options() {
  return {
      {"--import-scale", "auto|none|FACTOR", "The scale of FBX, Collada and other files Assimp reads: auto (the file's unit to "
                                             "metres), none (as stored) or a positive factor.", {}, "auto"},
      {"--import-up", "auto|none|y|z", "The up axis: auto (the file's axis system to +Y up), none, y or z (the file is Y-up or "
                                       "Z-up, right-handed).", choice_names(kImportUps), "auto"},
      {"--import-limit-weights", "K", "Assimp's LimitBoneWeights: the K (1 to 16) largest weights per vertex, "
                                      "renormalized (what an engine's importer does; diagnose names it "
                                      "influences=topK-renormalized)."},
  };
}

namespace {

std::vector<std::string> backend_names(BackendUse use) {
  std::vector<std::string> names;
  for (const BackendKind kind : kBackendKinds)
    if (use == BackendUse::Skinning || kind != BackendKind::Cpu) names.emplace_back(backend_name(kind));
  return names;
}

std::string backend_help(BackendUse use) {
  switch (use) {
    case BackendUse::Pose:
      return "The backend: reference (the double-precision reference) or vulkan (sampling, local to model and palettes in "
             "compute shaders, in float32 at the float32 time; one clip: not with --recipe).";
    case BackendUse::Skinning:
      return "The backend: reference (the double-precision CPU reference), cpu (the fast float32 CPU backend: SIMD, --threads; "
             "the reference's pose) or vulkan (compute shaders in float32); cpu and vulkan dumps are always f32.";
  }
  return "";
}

}  // namespace

std::vector<OptionDecl> backend_options(BackendUse use) {
  const std::vector<std::string> names = backend_names(use);
  std::string value;
  for (const std::string& name : names) value += (value.empty() ? "" : "|") + name;
  std::vector<OptionDecl> options{
      {"--backend", value, backend_help(use), names, "reference"},
      {"--device", "NAME|INDEX", "The Vulkan device, by index or a substring of its name (skinref devices); default: "
                                 "the first discrete GPU, else integrated, else the first."},
      {"--validate", "", "Enable the Vulkan validation layer; any warning or error it reports fails the run."},
  };
  if (use == BackendUse::Pose) return options;
  options.push_back({"--palette", "reference|gpu", "With --backend vulkan: reference (the reference's pose and "
                                                   "palettes, in float32) or gpu (sampling, local to model and "
                                                   "palettes in a compute pass too, at the float32 time; one clip: "
                                                   "not with --recipe).", choice_names(kPalettes), "reference"});
  options.push_back({"--shader", "FILE", "With --backend vulkan: your own skinning shader in place of skinref's "
                                         "(SPIR-V, or GLSL/HLSL compiled with glslc), checked against --interface "
                                         "by SPIR-V reflection; compare and diagnose hold its dumps to the any-order "
                                         "bounds (docs/vulkan.md)."});
  options.push_back({"--interface", "FILE.json", "The interface of --shader: its inputs, bindings and outputs "
                                                 "(skinref shader-interface drafts one)."});
  options.push_back({"--shader-include", "DIR", "A folder where glslc looks up the shader's #includes.", {}, "", true});
  return options;
}

}  // namespace skinref::cli
