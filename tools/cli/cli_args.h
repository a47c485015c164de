// The values of skinref's command line: what a command's parsed arguments hold (ParsedArgs, filled by
// parse_command_line(), command_decl.h), and strict parsers for the values (numbers, choices, animations), the
// pose selection (--recipe, --pose or --anim/--time), the conventions and the import options.
//
// Contract: every problem throws UsageError with a one-line message naming the option and the offending
// text; the CLI maps it to exit status 2.
#pragma once

#include "anim/pose_selection.h"
#include "cli/choices.h"
#include "cli/usage_error.h"
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

struct ParsedArgs {
  bool help = false;
  std::vector<std::string> arguments;  // as given after the command's name, for records of the command line
  std::vector<std::string> positionals;
  std::map<std::string, std::string> values;  // options given with a value
  std::vector<std::string> flags;             // options given without a value

  bool has_flag(const std::string& name) const;
  std::optional<std::string> value(const std::string& name) const;
  std::map<std::string, std::vector<std::string>> repeated;  // repeatable options, values in order
  std::vector<std::string> values_of(const std::string& name) const;
};

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

// --method (optional, default SkinningOptions'), for the commands that skin or compare skinned vertices. The
// weights and normals come from the conventions (parse_conventions(); --weights and --normals are shorthands
// for two of them): skinning_options_under() (skin/evaluate_vertices.h) sets them.
SkinningOptions parse_skinning_options(const ParsedArgs& parsed);

// The engine conventions options (core/conventions.h) that pose, skin, compare, bisect and diagnose take:
// --conventions FILE.json (an object {"NAME": "VALUE", ...}, or any JSON object with such a "conventions"
// member, e.g. a report) and the repeatable --convention NAME=VALUE, applied in that order. --weights and
// --normals are shorthands for --convention weights=... / normals=... (renormalize is weights=sum). Setting
// one field to two different values is a UsageError, as is an unknown name or value.
struct ConventionSelection {
  Conventions conventions;
  bool given = false;  // any of the options above was given
};
ConventionSelection parse_conventions(const ParsedArgs& parsed, const std::string& command);

// The import options of the commands that load MODEL (info, pose, skin, render, export) for a file that is
// not glTF (io/assimp_import.h): --import-scale auto|none|FACTOR, --import-up auto|none|y|z,
// --import-limit-weights K (1 to 16). Bad values are UsageErrors.
ImportOptions parse_import_options(const ParsedArgs& parsed);


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

// The shard of a long check this run takes: "--shard I/N" (0 <= I < N), else GTEST_SHARD_INDEX /
// GTEST_TOTAL_SHARDS, else Bazel's TEST_SHARD_INDEX / TEST_TOTAL_SHARDS (touching TEST_SHARD_STATUS_FILE, as Bazel
// asks of a runner that shards); the whole list without any. A bad value or half a pair is a UsageError.
Shard parse_shard(const ParsedArgs& parsed, const std::string& command);

}  // namespace skinref::cli
