#include "cli/dump_records.h"

#include "core/input_error.h"
#include "verify/float_model.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>

namespace skinref::cli {
namespace {

std::string time_text(double time) {
  char text[40];
  std::snprintf(text, sizeof text, "%.9g", time);
  return text;
}

void refuse(const std::string& command, const std::string& what, const std::string& ours, const std::string& path,
            const std::string& theirs) {
  throw UsageError(command + ": " + what + " " + ours + " contradicts " + path + ", which records " + theirs +
                   " (leave the option out to use the record)");
}

}  // namespace

void merge_record(RunFacts& facts, const DumpRecord& record, const std::string& path, const std::string& command) {
  if (!record.present) return;
  if (!record.model.empty()) {
    if (!facts.model) facts.model = record.model;
  }
  if (record.animation == "bind")
    throw UsageError(command + ": " + path + " records the bind pose (--pose bind), which " + command +
                     " does not check: it checks a clip, a recipe or the rest pose");
  if (!record.animation.empty() && record.animation.rfind("recipe:", 0) != 0) {
    if (facts.animation && *facts.animation != record.animation)
      refuse(command, "--anim", *facts.animation, path, "animation " + record.animation);
    facts.animation = record.animation;
  }
  if (record.time) {
    if (facts.time && *facts.time != *record.time && double(float(*facts.time)) != double(float(*record.time)))
      refuse(command, "--time", time_text(*facts.time), path, "time " + time_text(*record.time));
    if (!facts.time) facts.time = record.time;
  }
  if (!record.method.empty()) {
    if (facts.method && *facts.method != record.method) refuse(command, "--method", *facts.method, path, record.method);
    facts.method = record.method;
  }
  if (record.conventions) {
    if (facts.conventions && !same_conventions(*facts.conventions, *record.conventions))
      refuse(command, "the conventions", describe_conventions(*facts.conventions), path,
             describe_conventions(*record.conventions));
    facts.conventions = record.conventions;
  }
  if (!record.palette.empty()) {
    if (facts.palette && *facts.palette != record.palette)
      refuse(command, "--palette", *facts.palette == "own" ? "gpu" : *facts.palette, path,
             "palette " + record.palette);
    facts.palette = record.palette;
  }
}

void check_model_hash(const std::string& model, const DumpRecord& record, const std::string& dump_path) {
  // Without a content hash, the name: a dump of bend.glb is not compared with twist.glb. (With one, the bytes
  // decide: a renamed copy of the same file is the same model.)
  if (record.model_hash.empty()) {
    const auto name_of = [](const std::string& spec) { return std::filesystem::path(spec).filename().string(); };
    if (!record.model.empty() && name_of(record.model) != name_of(model))
      throw InputError(dump_path, "/record/model", "a dump of " + model + ", but it records the model " + record.model);
    return;
  }
  const std::string hash = model_content_hash(model);
  if (!hash.empty() && hash != record.model_hash)
    throw InputError(dump_path, "", "a dump of " + model + " as it is now (" + hash + "), but it records the model " +
                                        (record.model.empty() ? std::string("file") : record.model) + " with " +
                                        record.model_hash + ": the file changed since the dump was written");
}

void check_joint_names(const Scene& scene, const DumpRecord& record, const std::string& dump_path) {
  std::vector<std::string> joints;
  for (const Skin& skin : scene.skins)
    for (int node : skin.joints) joints.push_back(scene.nodes[size_t(node)].name);
  std::vector<std::string> seen;
  for (size_t i = 0; i < record.joint_names.size(); ++i) {
    const std::string& name = record.joint_names[i];
    const std::string at = "/record/joint_names/" + std::to_string(i);
    if (std::find(joints.begin(), joints.end(), name) == joints.end())
      throw InputError(dump_path, at, "the name of a joint of " + scene.source + ", got '" + name + "'");
    if (std::find(seen.begin(), seen.end(), name) != seen.end())
      throw InputError(dump_path, at, "each joint once, but '" + name + "' comes twice");
    seen.push_back(name);
  }
}

std::optional<std::string> recipe_of(const ParsedArgs& parsed, const std::string& recorded, const std::string& dump_path,
                                     const std::string& command) {
  const std::optional<std::string> given = parsed.value("--recipe");
  if (given && !recorded.empty() && std::filesystem::path(*given).filename() != std::filesystem::path(recorded).filename())
    throw UsageError(command + ": --recipe " + *given + " contradicts " + dump_path + ", which records the recipe " +
                     recorded);
  if (given) return given;
  if (recorded.empty()) return std::nullopt;
  if (std::filesystem::exists(recorded)) return recorded;
  const std::filesystem::path beside = std::filesystem::path(dump_path).parent_path() / std::filesystem::path(recorded).filename();
  if (std::filesystem::exists(beside)) return beside.string();
  throw UsageError(command + ": " + dump_path + " records the recipe " + recorded +
                   ", which is neither there nor beside the dump: give --recipe FILE");
}

namespace {

// Every bounds model, in the order --bounds lists them.
constexpr BoundsModel kBoundsModels[] = {BoundsModel::AnyOrder, BoundsModel::AnyOrderWide, BoundsModel::SkinrefOrder};

std::vector<std::string> bounds_model_names() {
  std::vector<std::string> names;
  for (const BoundsModel model : kBoundsModels) names.emplace_back(bounds_model_name(model));
  return names;
}

// "4 ulp" when slerp and normalization have one allowance, "16 and 12 ulp" otherwise.
std::string allowances_text(const tol::SamplingAllowances& allowances) {
  char text[64];
  if (allowances.slerp_ulps == allowances.normalize_ulps)
    std::snprintf(text, sizeof text, "%g ulp", allowances.slerp_ulps);
  else
    std::snprintf(text, sizeof text, "%g and %g ulp", allowances.slerp_ulps, allowances.normalize_ulps);
  return text;
}

}  // namespace

BoundsModel parse_bounds(const ParsedArgs& parsed, const std::string& test_writer) {
  if (const std::optional<std::string> text = parsed.value("--bounds")) {
    static const std::vector<std::string> kChoices = bounds_model_names();
    return kBoundsModels[parse_choice(*text, "--bounds", kChoices)];
  }
  return test_writer.rfind("skinref", 0) == 0 ? BoundsModel::SkinrefOrder : BoundsModel::AnyOrder;
}

OptionDecl bounds_option(const std::string& more) {
  const std::vector<std::string> names = bounds_model_names();
  std::string value;
  for (const std::string& name : names) value += (value.empty() ? "" : "|") + name;
  const std::string help =
      "What the test run is held to (docs/error_bounds.md derives them): any-order, bounds that hold for every "
      "correct float32 engine, whatever its order of operations, whose slerp and quaternion normalization are within " +
      allowances_text(tol::kStatedSamplingAllowances) +
      " (the default unless skinref wrote the test dump); any-order-wide, the same within " +
      allowances_text(tol::kWideSamplingAllowances) +
      " (every slerp and normalization formula known); skinref-order, tighter bounds, exact for the order of "
      "operations of skinref's own float32 paths (the default for skinref's own float32 dumps; not for a recipe's "
      "run, whose bounds are any-order).";
  return {"--bounds", value, more.empty() ? help : help + " " + more, names};
}

std::string describe_bounds(BoundsModel model, const ParsedArgs& parsed, bool recipe) {
  std::string text = std::string("bounds ") + bounds_model_name(model);
  if (!parsed.value("--bounds"))
    text += recipe ? " (a recipe's)"
            : model == BoundsModel::AnyOrder ? " (the default for a dump that skinref did not write)"
                                           : " (the default for skinref's own float32 dump)";
  return text;
}

}  // namespace skinref::cli
