// Command-line argument parsing for the skinref tool: `--key value`, `--key=value` and flags, checked against
// the options one command allows, plus strict parsers for the values (numbers, choices, animations) and the
// pose selection (--recipe or --anim/--time) that `pose` and `skin` share.
//
// Contract: every problem throws UsageError with a one-line message naming the option and the offending
// text; the CLI maps it to exit status 2. `--help` / `-h` anywhere an option may appear sets `help` and stops
// parsing, so `skinref COMMAND --help` works whatever else is on the line. `--` ends the options.
#pragma once

#include "anim/pose_selection.h"
#include "ci_report/ci_reports.h"
#include "core/conventions.h"
#include "io/assimp_import.h"
#include "core/pose.h"
#include "core/scene.h"
#include "skin/options.h"

#include <map>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace skinref::cli {

class UsageError : public std::runtime_error {
 public:
  explicit UsageError(const std::string& message) : std::runtime_error(message) {}
};

struct OptionSpec {
  std::string name;  // with the leading "--"
  bool takes_value = true;
  bool repeatable = false;  // may be given more than once (values_of() lists them in order)
};

struct ParsedArgs {
  bool help = false;
  std::vector<std::string> positionals;
  std::map<std::string, std::string> values;  // options given with a value
  std::vector<std::string> flags;             // options given without a value

  bool has_flag(const std::string& name) const;
  std::optional<std::string> value(const std::string& name) const;
  std::map<std::string, std::vector<std::string>> repeated;  // repeatable options, values in order
  std::vector<std::string> values_of(const std::string& name) const;
};

// `command` prefixes messages ("skin: unknown option --bogus; allowed: ...").
ParsedArgs parse_args(std::span<const std::string> args, std::span<const OptionSpec> allowed,
                      const std::string& command);

// Exactly `count` positional arguments, described by `what` in the message (e.g. "MODEL").
void require_positionals(const ParsedArgs& parsed, size_t count, const std::string& what,
                         const std::string& command);

// The value of an option that must be given.
std::string require_value(const ParsedArgs& parsed, const std::string& option, const std::string& command);

// A finite double; the whole text must be a number (std::strtod, nothing left over, no leading space).
double parse_finite_double(const std::string& text, const std::string& option);

// The largest --threads: far above any useful core count; it only stops absurd values before threads are
// created.
constexpr long long kMaxThreads = 1024;

// A decimal integer in [min_value, max_value], the whole text consumed.
long long parse_integer(const std::string& text, const std::string& option, long long min_value,
                        long long max_value);

// The index of `text` in `choices`; the message lists the choices.
size_t parse_choice(const std::string& text, const std::string& option, std::span<const std::string> choices);

// True when `text` looks like a decimal integer (optional '-', then digits only).
bool looks_like_integer(const std::string& text);

// --anim: an integer is an index into scene.animations (range-checked), anything else a name that must
// exist (the message lists the available ones). Without the option: the first animation, or -1 (rest pose)
// when the scene has none.
int resolve_animation(const Scene& scene, const std::optional<std::string>& spec);

// The file name must end (case-insensitively) in one of `extensions` (each with its dot).
void require_extension(const std::string& path, std::span<const std::string> extensions,
                       const std::string& option);

// --method lbs|dqs, --weights as-stored|renormalize and --normals inverse-transpose|blend-normal-matrices
// (each optional, defaults as SkinningOptions'), for the commands that skin or compare skinned vertices.
SkinningOptions parse_skinning_options(const ParsedArgs& parsed);

// The usage texts' --method: "[--method lbs|dqs]", and the help line's text after "--method M", every
// method with its summary, the default first: "lbs (default, linear blend skinning) or dqs (...)".
std::string method_option_synopsis();
std::string method_option_help();

// The engine conventions options (core/conventions.h) that pose, skin, compare, bisect and diagnose take:
// --conventions FILE.json (an object {"NAME": "VALUE", ...}, or any JSON object with such a "conventions"
// member, e.g. a report) and the repeatable --convention NAME=VALUE, applied in that order. --weights and
// --normals are shorthands for --convention weights=... / normals=... (renormalize is weights=sum). Setting
// one field to two different values is a UsageError, as is an unknown name or value.
std::vector<OptionSpec> with_convention_options(std::vector<OptionSpec> own);
struct ConventionSelection {
  Conventions conventions;
  bool given = false;  // any of the options above was given
};
ConventionSelection parse_conventions(const ParsedArgs& parsed, const std::string& command);
// The usage lines of those options.
std::string convention_option_help();

// The import options of the commands that load MODEL (info, pose, skin, render, export) for a file that is
// not glTF (io/assimp_import.h): --import-scale auto|none|FACTOR, --import-up auto|none|y|z,
// --import-limit-weights K (1 to 16). Bad values are UsageErrors.
std::vector<OptionSpec> with_import_options(std::vector<OptionSpec> own);
ImportOptions parse_import_options(const ParsedArgs& parsed);
std::string import_option_help();

// A pose without animation, for triage ("is it the skinning or the animation?"): --pose rest, every node at its
// own TRS; --pose bind, the skins' bind pose (anim/bind_pose.h).
enum class StillPose { Rest, Bind };

// What selects the pose of `pose`, `skin` and `render`: --recipe FILE, --pose rest|bind, or --anim NAME|INDEX at
// --time SECONDS.
struct PoseSelection {
  std::optional<double> time;         // --time, when given
  std::optional<std::string> recipe;  // --recipe FILE
  std::optional<std::string> anim;    // --anim NAME|INDEX
  std::optional<StillPose> still;     // --pose rest|bind
};

// Reads --time (a finite number), --recipe, --anim and --pose without the model, so that usage errors do not
// wait for a load; any two of --recipe, --anim and --pose are a usage error (`command` prefixes the message).
PoseSelection parse_pose_selection(const ParsedArgs& parsed, const std::string& command);

// The recipe (read now: its names resolve against the model), else the --pose pose, else the --anim animation
// (resolve_animation).
PoseSource resolve_pose_source(const Scene& scene, const PoseSelection& selection);

// The --pose option's synopsis and help lines, for the usage texts of pose, skin and render.
std::string still_pose_option_help();

// The shard of a long check this run takes: "--shard I/N" (0 <= I < N), else GTEST_SHARD_INDEX /
// GTEST_TOTAL_SHARDS, else Bazel's TEST_SHARD_INDEX / TEST_TOTAL_SHARDS (touching TEST_SHARD_STATUS_FILE, as Bazel
// asks of a runner that shards); the whole list without any. A bad value or half a pair is a UsageError.
Shard parse_shard(const ParsedArgs& parsed, const std::string& command);

}  // namespace skinref::cli
