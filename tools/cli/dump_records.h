// What compare, bisect and diagnose take from a dump's record (io/vertex_dump.h) against their own options:
// a dump that records its model, animation, time, method or conventions is checked with those, and an option
// that contradicts the record is refused (exit 2) rather than silently checking something else.
//
// Contract:
// - RunFacts: the facts of one run, each either given by an option or read from a record (empty: unknown).
// - merge_record(): fills what `facts` lacks from the record, and throws UsageError naming the option, the
//   dump and both values where they disagree (times compare exactly, and also after rounding to float32:
//   an engine's clock is float32). A record of the bind pose ("animation": "bind") is refused: the checks'
//   bounds are for a clip, a recipe or the rest pose.
#pragma once
#include "cli/cli_args.h"
#include "cli/command_decl.h"
#include "io/vertex_dump.h"
#include "verify/bounds_model.h"
#include <optional>
#include <string>
namespace skinref::cli {
struct RunFacts {
  std::optional<std::string> model;
  std::optional<std::string> animation;  // as --anim takes it, or a record's "0", "rest"
  std::optional<double> time;
  std::optional<std::string> method;
  std::optional<Conventions> conventions;
  std::optional<std::string> palette;    // "reference" or "own"
};
void merge_record(RunFacts& facts, const DumpRecord& record, const std::string& dump_path, const std::string& command);

// A dump that records its model file's content hash was made from `model` as it is now, and one that records
// only the model's name names `model`'s file: otherwise an InputError (exit 2) naming both, since its vertices
// would belong to another model, or another version of the file.
void check_model_hash(const std::string& model, const DumpRecord& record, const std::string& dump_path);

// A record's joint_names name joints of `scene` (a node that some skin uses as a joint), each once: otherwise an
// InputError (exit 2) naming the entry, since the dump then belongs to another skeleton.
void check_joint_names(const Scene& scene, const DumpRecord& record, const std::string& dump_path);
// --bounds any-order|skinref-order (verify/bounds_model.h). Default: skinref-order for a test dump that
// skinref wrote (its writer "skinref BACKEND": skinref's float32 paths follow the order those bounds are
// derived for), any-order for every other dump (an engine's: any order of operations).
BoundsModel parse_bounds(const ParsedArgs& parsed, const std::string& test_writer);
// The declaration of --bounds for compare, bisect and diagnose: its choices are every BoundsModel by its name
// (bounds_model_name()), its help says what each holds and which is the default; `more` is appended to it.
OptionDecl bounds_option(const std::string& more = "");
// The recipe a comparison checks: --recipe FILE, else the one the dumps record (a pose dump's "recipe", a
// .skv record's "animation": "recipe:FILE"), found as written or beside the dump that records it; nullopt
// for a clip. An option that contradicts the record is refused (UsageError naming both).
std::optional<std::string> recipe_of(const ParsedArgs& parsed, const std::string& recorded, const std::string& dump_path,
                                     const std::string& command);
// "any-order (the default for a dump skinref did not write)" and the like, for summary lines.
// `recipe`: the run played a recipe, whose bounds are any-order whatever wrote the dump.
std::string describe_bounds(BoundsModel model, const ParsedArgs& parsed, bool recipe = false);
}  // namespace skinref::cli
