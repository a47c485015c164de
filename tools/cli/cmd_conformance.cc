// `skinref conformance generate|check|run|report`: the conformance suite (conformance/suite.h). This file parses the
// command line and prints; the suite is the conformance layer's.
// Exit: 0 done (check: the folder equals the generator's output; run, report: every case passed), 1 check
// found a difference or a case did not pass, 2 usage or bad input.
#include "cli/cli_args.h"
#include "cli/commands.h"
#include "conformance/engines_history.h"
#include "conformance/engines_table.h"
#include "conformance/expectations.h"
#include "conformance/report_card.h"
#include "conformance/runner.h"
#include "conformance/suite.h"
#include "core/atomic_file.h"
#include "core/input_error.h"
#include "engine_process/command_template.h"
#include "engine_process/stop_signals.h"
#include "profile/engine_profile.h"

#include <fstream>
#include <iomanip>
#include <iostream>
#include <optional>
#include <sstream>
#include <string.h>

#ifndef SKINREF_CONFORMANCE_DIR
#error "SKINREF_CONFORMANCE_DIR must name the source tree's conformance folder (set by CMakeLists.txt)"
#endif

namespace skinref::cli {
std::string conformance_usage() {
  return "usage: skinref conformance generate [--suite DIR]\n"
         "       skinref conformance check [--suite DIR]\n"
         "       skinref conformance run --engine-name NAME [--engine-version V] (--query CMD | --batch CMD)\n"
         "                               --out DIR [--suite DIR] [--filter GLOB] [--jobs N] [--timeout S]\n"
         "                               [--resume [--force-new-engine]]\n"
         "                               [--expect FILE] [--write-expectations FILE] [--profile FILE]\n"
         "       skinref conformance report --out DIR [--expect FILE] [--write-expectations FILE] [--profile FILE]\n"
         "       skinref conformance table EXPECTED.json... [--check DOC.md | --update DOC.md]\n"
         "       skinref conformance history EXPECTED.json... [--check DOC.md | --update DOC.md]\n"
         "  The conformance suite: one small glTF file per rule of glTF 2.0 on skins, animation and morph targets,\n"
         "  each with the reference's outputs at its times and the bounds a correct float32 engine stays within\n"
         "  (docs/conformance.md). Layout: DIR/suite.json, DIR/cases/ID/ID.gltf, ID.bin and expected.json.\n"
         "  generate  writes the suite from its generator (every file atomically) and prints, per case and\n"
         "            departure class, the error/bound that planting the departure reaches\n"
         "  check     regenerates the suite in memory and compares it with DIR byte for byte\n"
         "  run       drives your engine over the suite and writes its report card (DIR/report.md, report.json,\n"
         "            junit.xml), the dumps, each query's log and run.json. The engine is a command line:\n"
         "            --query CMD  run once per case and time, with {model} (the case's .gltf), {animation},\n"
         "                         {time} (seconds), {out} (the .skv to write) and {case} substituted\n"
         "            --batch CMD  run once, with {queries}: a JSON list of every query (for engines whose\n"
         "                         start-up is costly)\n"
         "            The engine writes .skv dumps with the project's writers (docs/formats.md). A query that\n"
         "            crashes, hangs past --timeout (default 60 s) or writes nothing fails its case, not the run.\n"
         "            Write each placeholder bare ({model}, never \"{model}\"): skinref shell-quotes the values.\n"
         "            Each query runs in its own folder with its own read-only copy of the case; an engine that\n"
         "            writes to its input gets 'input changed'. SIGINT, SIGTERM or SIGHUP stops the engines, writes\n"
         "            the report of what finished and exits 130, 143 or 129.\n"
         "            --jobs N queries at once (default 1); --resume keeps the queries a previous run of the same\n"
         "            engine under DIR completed (another engine name, version or command is refused unless\n"
         "            --force-new-engine, which starts over); --filter GLOB only the cases whose ids match\n"
         "  report    judges the run under DIR again and rewrites its report card\n"
         "  table     the engines' table of docs/engines.md from their expectations files: printed, checked\n"
         "            against the one between DOC.md's markers (--check), or written there (--update)\n"
         "  history   an engine's releases from one expectations file per release, oldest first: each release's\n"
         "            two tiers and which cases changed from the release before (./run engines --history)\n"
         "  --expect FILE  what the engine is known to do per case (pass, fail with a named departure, crash:\n"
         "            docs/engines.md); the exit status then says whether it did exactly that\n"
         "  --write-expectations FILE  writes the run's verdicts as such a file, to review and commit\n"
         "  --profile FILE  the engine's profile (what departs across the run: compressed keys, the interpolation,\n"
         "            the normal rule, allowances), as DIR/profile.json of an earlier run; without it the run's own\n"
         "            is found over its failed cases and written to DIR/profile.json. Each failed case is judged\n"
         "            given the profile: it passes its rule given it, or fails it with a departure of its own\n"
         "  --suite DIR  the suite's folder (default " SKINREF_CONFORMANCE_DIR ")\n"
         "  Exit status: 0 done, equal, every case passed or (--expect) as expected; 1 check found a difference,\n"
         "  a case did not pass or (--expect) a case did other than expected;\n"
         "  2 usage or bad input.\n";
}

namespace {

// Text that is not UTF-8 (an engine's name, a path) is written with U+FFFD rather than failing the write.
constexpr auto kReplace = nlohmann::ordered_json::error_handler_t::replace;

std::string join(const std::vector<std::string>& parts) {
  std::string joined;
  for (const std::string& part : parts) joined += (joined.empty() ? "" : ", ") + part;
  return joined;
}

void print_sensitivities(const conformance::GeneratedSuite& suite, std::ostream& out) {
  size_t planted = 0, below_minimum = 0;
  for (const conformance::GeneratedCase& c : suite.cases)
    for (const conformance::Sensitivity& s : c.sensitivities) {
      std::ostringstream line;
      line << "  " << std::left << std::setw(40) << c.definition->id << " " << std::setw(3) << s.departure << " ";
      if (s.conventions.empty()) {
        line << "not yet planted (no convention names it)";
      } else {
        ++planted;
        if (s.ratio < conformance::kMinimumSensitivity) ++below_minimum;
        line << std::setw(44) << join(s.conventions) << " error/bound " << std::scientific << std::setprecision(2)
             << s.ratio << " at t = " << std::defaultfloat << s.time << " (" << s.attribute << " " << s.vertex << ")";
        if (!s.below_minimum_reason.empty()) line << "\n      below " << conformance::kMinimumSensitivity << ": "
                                                  << s.below_minimum_reason;
      }
      out << line.str() << "\n";
    }
  out << "conformance: " << suite.cases.size() << " cases, " << planted << " planted departures, " << below_minimum
      << " below error/bound " << conformance::kMinimumSensitivity << "\n";
}

std::optional<std::string> parse_suite_dir(std::span<const std::string> args, const std::string& command) {
  static const std::vector<OptionSpec> kOptions{{"--suite", true}};
  const ParsedArgs parsed = parse_args(args, kOptions, command);
  if (parsed.help) {
    std::cout << conformance_usage();
    return std::nullopt;
  }
  require_positionals(parsed, 0, "no arguments", command);
  return parsed.value("--suite").value_or(SKINREF_CONFORMANCE_DIR);
}

int run_conformance_generate(std::span<const std::string> args) {
  const std::optional<std::string> dir = parse_suite_dir(args, "conformance generate");
  if (!dir) return kExitOk;
  const conformance::GeneratedSuite suite = conformance::generate_suite();
  conformance::write_suite(suite, *dir);
  print_sensitivities(suite, std::cout);
  std::cout << "conformance: wrote " << suite.files.size() << " files under " << *dir << "\n";
  return kExitOk;
}

int run_conformance_check(std::span<const std::string> args) {
  const std::optional<std::string> dir = parse_suite_dir(args, "conformance check");
  if (!dir) return kExitOk;
  const conformance::GeneratedSuite suite = conformance::generate_suite();
  const std::vector<std::string> differences = conformance::check_suite(suite, *dir);
  for (const std::string& difference : differences) std::cout << *dir << "/" << difference << "\n";
  if (!differences.empty()) {
    std::cout << "conformance: " << differences.size() << " files differ from the generator's output; "
              << "run skinref conformance generate and commit the result\n";
    return kExitComparisonFailed;
  }
  std::cout << "conformance: " << suite.files.size() << " files under " << *dir << " equal the generator's\n";
  return kExitOk;
}

// --expect FILE and --write-expectations FILE, read before the run so that a bad file stops it first.
// --profile FILE: the engine's profile given (as profile.json of an earlier run writes it), not searched for.
struct ExpectationOptions {
  std::optional<conformance::Expectations> expected;
  std::optional<std::string> write_path;
  std::optional<EngineProfile> profile;
};

ExpectationOptions parse_expectation_options(const ParsedArgs& parsed) {
  ExpectationOptions options;
  if (const std::optional<std::string> path = parsed.value("--expect"))
    options.expected = conformance::read_expectations(*path);
  options.write_path = parsed.value("--write-expectations");
  if (const std::optional<std::string> path = parsed.value("--profile"))
    options.profile = read_engine_profile(*path);
  return options;
}

// The report card; then, with expectations, the exit status says whether the engine did what they say (0) or
// not (1), whatever it passed; without, whether it passed every case.
int judge_and_report(const conformance::RunRecord& run, const std::string& out_dir, const ExpectationOptions& options) {
  const conformance::JudgedRun judged =
      conformance::judge_run_with_profile(run, options.profile ? &*options.profile : nullptr);
  const std::vector<conformance::CaseVerdict>& verdicts = judged.verdicts;
  conformance::write_report_card(run, verdicts, out_dir, judged.profile);
  write_file_atomically(out_dir + "/profile.json",
                        [&](std::ostream& out) { out << profile_json(judged.profile).dump(2, ' ', false, kReplace) << "\n"; });
  conformance::print_report_card(run, verdicts, std::cout, judged.profile);
  std::cout << "conformance: report card in " << out_dir << "/report.html (and report.md, report.json, junit.xml)\n";
  if (options.write_path) {
    const nlohmann::ordered_json written = conformance::expectations_json(run, verdicts);
    write_file_atomically(*options.write_path,
                          [&](std::ostream& out) { out << written.dump(2, ' ', false, kReplace) << "\n"; });
    std::cout << "conformance: wrote the expectations " << *options.write_path << "\n";
  }
  if (run.stopped_by != 0) {
    std::cout << "conformance: the run was stopped by SIG" << sigabbrev_np(run.stopped_by)
              << "; the report covers the queries that finished (rerun with --resume to finish it)\n";
    return engine_process::stop_exit_status(run.stopped_by);
  }
  if (options.expected) {
    const std::vector<std::string> differences = conformance::expectation_differences(*options.expected, verdicts);
    for (const std::string& difference : differences) std::cout << "  unexpected: " << difference << "\n";
    std::cout << "conformance: " << (differences.empty() ? "as" : "not as") << " expected for "
              << options.expected->engine << " (" << differences.size() << " cases differ)\n";
    return differences.empty() ? kExitOk : kExitComparisonFailed;
  }
  for (const conformance::CaseVerdict& v : verdicts)
    if (v.outcome != conformance::CaseOutcome::Passed) return kExitComparisonFailed;
  return kExitOk;
}

int run_conformance_run(std::span<const std::string> args) {
  static const std::vector<OptionSpec> kOptions{
      {"--engine-name", true}, {"--engine-version", true}, {"--query", true},  {"--batch", true},
      {"--out", true},         {"--suite", true},          {"--filter", true}, {"--jobs", true},
      {"--timeout", true},     {"--resume", false},        {"--expect", true}, {"--write-expectations", true},
      {"--profile", true},     {"--force-new-engine", false}};
  const ParsedArgs parsed = parse_args(args, kOptions, "conformance run");
  if (parsed.help) {
    std::cout << conformance_usage();
    return kExitOk;
  }
  require_positionals(parsed, 0, "no arguments", "conformance run");
  conformance::EngineSpec engine;
  engine.name = require_value(parsed, "--engine-name", "conformance run");
  engine.version = parsed.value("--engine-version").value_or("");
  engine.query_command = parsed.value("--query").value_or("");
  engine.batch_command = parsed.value("--batch").value_or("");
  if (engine.query_command.empty() == engine.batch_command.empty())
    throw UsageError("conformance run: give the engine as exactly one of --query CMD and --batch CMD");
  const bool batch = !engine.batch_command.empty();
  const std::string quoted = engine_process::placeholder_in_quotes(
      batch ? engine.batch_command : engine.query_command,
      batch ? conformance::batch_placeholders() : conformance::query_placeholders());
  if (!quoted.empty())
    throw UsageError(std::string("conformance run: ") + (batch ? "--batch" : "--query") + ": " + quoted +
                     "; write placeholders bare ({model}, not \"{model}\"): skinref shell-quotes each value itself");
  if (parsed.has_flag("--force-new-engine") && !parsed.has_flag("--resume"))
    throw UsageError("conformance run: --force-new-engine goes with --resume");
  if (const std::optional<std::string> jobs = parsed.value("--jobs"))
    engine.jobs = int(parse_integer(*jobs, "--jobs", 1, 256));
  if (const std::optional<std::string> timeout = parsed.value("--timeout")) {
    engine.timeout_seconds = parse_finite_double(*timeout, "--timeout");
    if (engine.timeout_seconds <= 0)
      throw UsageError("conformance run: --timeout must be a positive number of seconds");
  }
  const std::string out_dir = require_value(parsed, "--out", "conformance run");
  const ExpectationOptions expectations = parse_expectation_options(parsed);
  const std::string suite_dir = parsed.value("--suite").value_or(SKINREF_CONFORMANCE_DIR);
  const std::vector<conformance::Query> queries =
      conformance::suite_queries(suite_dir, out_dir, parsed.value("--filter").value_or(""));
  if (queries.empty()) throw UsageError("conformance run: --filter matches no case of the suite");
  conformance::RunOptions options;
  options.resume = parsed.has_flag("--resume");
  options.force_new_engine = parsed.has_flag("--force-new-engine");
  options.suite_dir = suite_dir;
  // From here to the report, SIGINT, SIGTERM and SIGHUP stop the engines and leave the report of what finished.
  const engine_process::StopSignals stop_signals;
  const conformance::RunRecord run = conformance::run_engine(engine, queries, out_dir, options);
  return judge_and_report(run, out_dir, expectations);
}

int run_conformance_report(std::span<const std::string> args) {
  static const std::vector<OptionSpec> kOptions{
      {"--out", true}, {"--expect", true}, {"--write-expectations", true}, {"--profile", true}};
  const ParsedArgs parsed = parse_args(args, kOptions, "conformance report");
  if (parsed.help) {
    std::cout << conformance_usage();
    return kExitOk;
  }
  require_positionals(parsed, 0, "no arguments", "conformance report");
  const std::string out_dir = require_value(parsed, "--out", "conformance report");
  const ExpectationOptions expectations = parse_expectation_options(parsed);
  return judge_and_report(conformance::read_run_record(out_dir), out_dir, expectations);
}

std::string read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, "", "a readable file");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// A generated section of a document between its markers: printed without --check or --update; --check compares
// it with the document's, --update rewrites the document's (atomically). `what` names it in messages.
int document_section(const ParsedArgs& parsed, const std::string& section, const std::string& begin,
                     const std::string& end, const std::string& what, const std::string& command) {
  if (parsed.value("--check") && parsed.value("--update"))
    throw UsageError(command + ": --check and --update cannot be used together");
  const std::optional<std::string> document = parsed.value("--check") ? parsed.value("--check") : parsed.value("--update");
  if (!document) {
    std::cout << section;
    return kExitOk;
  }
  const std::string text = read_text_file(*document);
  const std::string current = conformance::section_in_document(text, *document, begin, end);
  if (parsed.value("--check")) {
    std::cout << "conformance: the " << what << " in " << *document << (current == section ? " is" : " is not")
              << " current with the expectations" << (current == section ? "" : "; run skinref " + command + " --update")
              << "\n";
    return current == section ? kExitOk : kExitComparisonFailed;
  }
  const size_t at = text.find('\n', text.find(begin)) + 1;  // the section starts on the line after its marker
  const std::string updated = text.substr(0, at) + section + text.substr(at + current.size());
  write_file_atomically(*document, [&](std::ostream& out) { out << updated; });
  std::cout << "conformance: wrote the " << what << " into " << *document << "\n";
  return kExitOk;
}

std::vector<conformance::Expectations> read_expectation_files(const ParsedArgs& parsed, const std::string& command) {
  if (parsed.positionals.empty()) throw UsageError(command + ": give the engines' expectations files");
  std::vector<conformance::Expectations> files;
  for (const std::string& path : parsed.positionals) files.push_back(conformance::read_expectations(path));
  return files;
}

// `conformance table EXPECTED.json... [--check DOC | --update DOC]`: docs/engines.md's table from the engines'
// expectations.
int run_conformance_table(std::span<const std::string> args) {
  static const std::vector<OptionSpec> kOptions{{"--check", true}, {"--update", true}};
  const ParsedArgs parsed = parse_args(args, kOptions, "conformance table");
  if (parsed.help) {
    std::cout << conformance_usage();
    return kExitOk;
  }
  const std::vector<conformance::Expectations> engines = read_expectation_files(parsed, "conformance table");
  return document_section(parsed, conformance::engines_table(engines), conformance::kTableBegin,
                          conformance::kTableEnd, "table of " + std::to_string(engines.size()) + " engines",
                          "conformance table");
}

// `conformance history EXPECTED.json... [--check DOC | --update DOC]`: docs/engines.md's history from one
// expectations file per release, oldest first (./run engines --history writes them).
int run_conformance_history(std::span<const std::string> args) {
  static const std::vector<OptionSpec> kOptions{{"--check", true}, {"--update", true}};
  const ParsedArgs parsed = parse_args(args, kOptions, "conformance history");
  if (parsed.help) {
    std::cout << conformance_usage();
    return kExitOk;
  }
  const std::vector<conformance::Expectations> releases = read_expectation_files(parsed, "conformance history");
  return document_section(parsed, conformance::engines_history(releases), conformance::kHistoryBegin,
                          conformance::kHistoryEnd, "history of " + std::to_string(releases.size()) + " releases",
                          "conformance history");
}

}  // namespace

int run_conformance(std::span<const std::string> args) {
  if (args.empty()) throw UsageError("conformance: expected 'generate' or 'check' (see skinref conformance --help)");
  if (args[0] == "--help" || args[0] == "-h") {
    std::cout << conformance_usage();
    return kExitOk;
  }
  const std::span<const std::string> rest = args.subspan(1);
  if (args[0] == "generate") return run_conformance_generate(rest);
  if (args[0] == "check") return run_conformance_check(rest);
  if (args[0] == "run") return run_conformance_run(rest);
  if (args[0] == "report") return run_conformance_report(rest);
  if (args[0] == "table") return run_conformance_table(rest);
  if (args[0] == "history") return run_conformance_history(rest);
  throw UsageError("conformance: unknown subcommand '" + args[0] +
                   "'; expected generate, check, run, report, table or history");
}

}  // namespace skinref::cli
