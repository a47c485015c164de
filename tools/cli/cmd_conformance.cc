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

// --suite DIR, else the source tree's suite.
std::string suite_dir_of(const ParsedArgs& parsed, const std::string& command) {
  require_positionals(parsed, 0, "no arguments", command);
  return parsed.value("--suite").value_or(SKINREF_CONFORMANCE_DIR);
}

int run_conformance_generate(const ParsedArgs& parsed) {
  const std::optional<std::string> dir = suite_dir_of(parsed, "conformance generate");
  const conformance::GeneratedSuite suite = conformance::generate_suite();
  conformance::write_suite(suite, *dir);
  print_sensitivities(suite, std::cout);
  std::cout << "conformance: wrote " << suite.files.size() << " files under " << *dir << "\n";
  return kExitOk;
}

int run_conformance_check(const ParsedArgs& parsed) {
  const std::optional<std::string> dir = suite_dir_of(parsed, "conformance check");
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

int run_conformance_run(const ParsedArgs& parsed) {
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

int run_conformance_report(const ParsedArgs& parsed) {
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
int run_conformance_table(const ParsedArgs& parsed) {
  const std::vector<conformance::Expectations> engines = read_expectation_files(parsed, "conformance table");
  return document_section(parsed, conformance::engines_table(engines), conformance::kTableBegin,
                          conformance::kTableEnd, "table of " + std::to_string(engines.size()) + " engines",
                          "conformance table");
}

// `conformance history EXPECTED.json... [--check DOC | --update DOC]`: docs/engines.md's history from one
// expectations file per release, oldest first (./run engines --history writes them).
int run_conformance_history(const ParsedArgs& parsed) {
  const std::vector<conformance::Expectations> releases = read_expectation_files(parsed, "conformance history");
  return document_section(parsed, conformance::engines_history(releases), conformance::kHistoryBegin,
                          conformance::kHistoryEnd, "history of " + std::to_string(releases.size()) + " releases",
                          "conformance history");
}

OptionDecl suite_option() {
  return {"--suite", "DIR", "The suite's folder; default: the source tree's conformance/ (where skinref was built)."};
}

// What run and report judge against: expectations to hold the engine to, or to write, and its profile.
std::vector<OptionDecl> judgement_options() {
  return {
      {"--expect", "FILE", "What the engine is known to do per case (pass, fail with a named departure, crash: "
                           "docs/engines.md); the exit status then says whether it did exactly that."},
      {"--write-expectations", "FILE", "Write the run's verdicts as such a file, to review and commit."},
      {"--profile", "FILE", "The engine's profile (what departs across the run: compressed keys, the interpolation, "
                            "the normal rule, allowances), as DIR/profile.json of an earlier run; without it the "
                            "run's own is found over its failed cases and written to DIR/profile.json. Each failed "
                            "case is judged given the profile: it passes its rule given it, or fails it with a "
                            "departure of its own."},
  };
}

// --check DOC and --update DOC of table and history.
std::vector<OptionDecl> document_options() {
  return {
      {"--check", "DOC.md", "Compare with the section between DOC.md's markers; exit 1 when it differs."},
      {"--update", "DOC.md", "Write the section between DOC.md's markers (atomically)."},
  };
}

constexpr const char* kExitText =
    "Exit status: 0 done, equal, every case passed or (--expect) as expected; 1 check found a difference, a case did "
    "not pass or (--expect) a case did other than expected; 2 usage or bad input.";

CommandDecl conformance_run_command() {
  std::vector<OptionDecl> own{
      {"--engine-name", "NAME", "The engine's name, for the report card; required."},
      {"--engine-version", "V", "The engine's version, for the report card."},
      {"--query", "CMD", "The engine as a command run once per case and time, with {model} (the case's .gltf), "
                         "{animation}, {time} (seconds), {out} (the .skv to write) and {case} substituted."},
      {"--batch", "CMD", "The engine as a command run once, with {queries}: a JSON list of every query (for "
                         "engines whose start-up is costly)."},
      {"--out", "DIR", "The run's folder: report card, dumps, logs and run.json; required."},
      suite_option(),
      {"--filter", "GLOB", "Only the cases whose ids match."},
      {"--jobs", "N", "Queries at once, 1 to 256.", {}, "1"},
      {"--timeout", "S", "Seconds a query may run before it is stopped and fails its case.", {}, "60"},
      {"--resume", "", "Keep the queries a previous run of the same engine under DIR completed (another engine "
                       "name, version or command is refused unless --force-new-engine)."},
      {"--force-new-engine", "", "With --resume: start over when the engine under DIR is another."},
  };
  return {"conformance run",
          "drive your engine over the suite and write its report card",
          {"--engine-name NAME [--engine-version V] (--query CMD | --batch CMD) --out DIR [OPTIONS]"},
          "Drives your engine over the suite and writes its report card (DIR/report.md, report.html, report.json, "
          "junit.xml), the dumps, each query's log and run.json. The engine writes .skv dumps with the project's "
          "writers (docs/formats.md). A query that crashes, hangs past --timeout or writes nothing fails its case, "
          "not the run. Write each placeholder bare ({model}, never \"{model}\"): skinref shell-quotes the values. "
          "Each query runs in its own folder with its own read-only copy of the case; an engine that writes to its "
          "input gets 'input changed'. SIGINT, SIGTERM or SIGHUP stops the engines, writes the report of what "
          "finished and exits 130, 143 or 129.\n" + std::string(kExitText),
          joined(std::move(own), {judgement_options()}),
          run_conformance_run};
}

}  // namespace

CommandDecl conformance_command() {
  CommandDecl command{"conformance", "the conformance suite: generate, check, run an engine over it, tables",
                      {}, "", {}, nullptr, {}};
  command.description =
      "The conformance suite: one small glTF file per rule of glTF 2.0 on skins, animation and morph targets, each "
      "with the reference's outputs at its times and the bounds a correct float32 engine stays within "
      "(docs/conformance.md). Layout: DIR/suite.json, DIR/cases/ID/ID.gltf, ID.bin and expected.json.";
  command.subcommands = {
      {"conformance generate", "write the suite from its generator",
       {"[--suite DIR]"},
       "Writes the suite from its generator (every file atomically) and prints, per case and departure class, the "
       "error/bound that planting the departure reaches.",
       {suite_option()}, run_conformance_generate},
      {"conformance check", "check that the committed suite is the generator's",
       {"[--suite DIR]"},
       "Regenerates the suite in memory and compares it with DIR byte for byte; exit 1 when a file differs.",
       {suite_option()}, run_conformance_check},
      conformance_run_command(),
      {"conformance report", "judge a run again and rewrite its report card",
       {"--out DIR [--expect FILE] [--write-expectations FILE] [--profile FILE]"},
       "Judges the run under DIR again (with today's verdict rules) and rewrites its report card.\n" +
           std::string(kExitText),
       joined({{"--out", "DIR", "The folder of an earlier conformance run; required."}}, {judgement_options()}),
       run_conformance_report},
      {"conformance table", "the engines' table of docs/engines.md from their expectations files",
       {"EXPECTED.json... [--check DOC.md | --update DOC.md]"},
       "The engines' table of docs/engines.md from their expectations files: printed, checked against the one "
       "between DOC.md's markers (--check), or written there (--update).",
       document_options(), run_conformance_table},
      {"conformance history", "an engine's releases, and what changed between them",
       {"EXPECTED.json... [--check DOC.md | --update DOC.md]"},
       "An engine's releases from one expectations file per release, oldest first: each release's two tiers and "
       "which cases changed from the release before (./run engines --history).",
       document_options(), run_conformance_history},
  };
  return command;
}

}  // namespace skinref::cli
