// The runner's guarantees against an engine that does anything (docs/conformance.md, "The runner's
// guarantees"): each row of that table is a fake engine here, a shell command line that does the one hostile
// thing, run through `skinref conformance run` as a user runs it. What is checked is what the user is promised:
// the exit status, the reports written and readable, the verdict named, the suite untouched, no process left.
#include "conformance/query_inputs.h"
#include "conformance/runner.h"
#include "engine_process/command_template.h"
#include "engine_process/safe_text.h"
#include "io/gltf_load.h"
#include "io/vertex_dump.h"
#include "skin/evaluate_vertices.h"
#include "anim/evaluate_pose.h"
#include "support/cli_runner.h"
#include "support/temp_dir.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <dirent.h>
#include <filesystem>
#include <fstream>
#include <limits>
#include <thread>

#ifndef SKINREF_CLI
#error "SKINREF_CLI must name the skinref program (set by CMakeLists.txt)"
#endif
#ifndef SKINREF_CONFORMANCE_DIR
#error "SKINREF_CONFORMANCE_DIR must name the committed suite (set by CMakeLists.txt)"
#endif

extern char** environ;

namespace skinref {
inline namespace SKINREF_UNITY_ID {  // unnamed, or the file's own in a unity build (CMakeLists.txt)

namespace fs = std::filesystem;
using test::CliRun;
using test::TempDir;

// A correct engine: skinref's cpu backend writing float32 dumps.
std::string correct_engine() {
  return test::shell_quoted(SKINREF_CLI) + " skin {model} --time {time} --precision f32 --out {out}";
}

// `conformance run` over the cases matching `filter`, with the engine command `query` and `extra` options.
CliRun run_conformance(const TempDir& dir, const std::string& out, const std::string& query, const std::string& filter,
                       std::vector<std::string> extra = {}) {
  std::vector<std::string> args{"conformance", "run", "--engine-name", "hostile", "--query", query,
                                "--out",       out,   "--filter",      filter,    "--timeout", "20"};
  args.insert(args.end(), extra.begin(), extra.end());
  return test::run_cli(dir, args);
}

nlohmann::json read_json(const fs::path& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);  // throws on text that is not UTF-8 JSON: the test fails
}

// The four reports and run.json are there and read: JSON parses, the HTML and JUnit are whole documents.
void expect_readable_reports(const fs::path& out) {
  EXPECT_NO_THROW(read_json(out / "run.json"));
  EXPECT_NO_THROW(read_json(out / "report.json"));
  const std::string html = test::read_bytes((out / "report.html").string());
  EXPECT_NE(html.find("</html>"), std::string::npos);
  const std::string junit = test::read_bytes((out / "junit.xml").string());
  EXPECT_NE(junit.find("</testsuite>"), std::string::npos);
  EXPECT_TRUE(fs::exists(out / "report.md"));
}

std::string outcome_of(const fs::path& out, const std::string& id) {
  const nlohmann::json report = read_json(out / "report.json");
  for (const nlohmann::json& c : report["cases"])
    if (c["id"] == id) return c["outcome"].get<std::string>() + ": " + c["detail"].get<std::string>();
  return "no case " + id;
}

// The processes whose command line holds `marker` and that are not zombies.
size_t processes_with(const std::string& marker) {
  size_t count = 0;
  DIR* proc = opendir("/proc");
  while (const dirent* entry = readdir(proc)) {
    const std::string name = entry->d_name;
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::string cmdline = test::read_bytes("/proc/" + name + "/cmdline");
    std::replace(cmdline.begin(), cmdline.end(), '\0', ' ');
    const std::string stat = test::read_bytes("/proc/" + name + "/stat");
    const size_t close = stat.rfind(')');
    const bool zombie = close != std::string::npos && close + 2 < stat.size() && stat[close + 2] == 'Z';
    if (!zombie && cmdline.find(marker) != std::string::npos) ++count;
  }
  closedir(proc);
  return count;
}

// Waits up to 5 s for the processes holding `marker` to be gone (a SIGKILL lands asynchronously).
size_t processes_left(const std::string& marker) {
  for (int i = 0; i < 500 && processes_with(marker) != 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  return processes_with(marker);
}

TEST(RunnerGuarantees, SafeTextKeepsUtf8AndQuotesEverythingElse) {
  using engine_process::safe_text;
  EXPECT_EQ(safe_text("caf\xC3\xA9 \xE2\x82\xAC"), "caf\xC3\xA9 \xE2\x82\xAC");               // é, €: kept
  EXPECT_EQ(safe_text("caf\xE9!"), "caf\xEF\xBF\xBD!");                                       // Latin-1 é: U+FFFD
  EXPECT_EQ(safe_text("a\nb\tc\x1B[31m\x7F"), "a\\x0Ab\\x09c\\x1B[31m\\x7F");                 // controls: visible
  EXPECT_EQ(safe_text("\xC2\x85"), "\\x85");                                                  // C1 NEL
  EXPECT_EQ(safe_text("\xC0\xAF"), "\xEF\xBF\xBD\xEF\xBF\xBD");                               // overlong '/'
  EXPECT_EQ(safe_text("\xED\xA0\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");               // a surrogate
  EXPECT_EQ(safe_text("\xF4\x90\x80\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // above U+10FFFF
  EXPECT_EQ(safe_text("\xE2\x82"), "\xEF\xBF\xBD\xEF\xBF\xBD");                               // cut short
  EXPECT_EQ(safe_text("abcdef", 4), "abcd ... (2 more bytes)");
  EXPECT_EQ(safe_text("ab\xE2\x82\xAC", 4), "ab ... (3 more bytes)");  // never cut inside a character
  EXPECT_EQ(safe_text(std::string("a\0b", 3)), "a\\x00b");
}

TEST(RunnerGuarantees, PlaceholdersInsideQuotesAreFound) {
  using engine_process::placeholder_in_quotes;
  const std::vector<std::string> names{"model", "out"};
  EXPECT_EQ(placeholder_in_quotes("engine {model} --out {out}", names), "");
  EXPECT_EQ(placeholder_in_quotes("engine \"{model}\"", names), "{model} at byte 8 is inside double quotes");
  EXPECT_EQ(placeholder_in_quotes("engine '{out}'", names), "{out} at byte 8 is inside single quotes");
  EXPECT_EQ(placeholder_in_quotes("engine \\{out}", names), "{out} at byte 8 is inside a backslash's quoting");
  EXPECT_EQ(placeholder_in_quotes("engine '\"' {model} \"'\" {out}", names), "");  // quotes closed before each
  EXPECT_EQ(placeholder_in_quotes("sh -c \"x $(y {model})\"", names), "{model} at byte 13 is inside double quotes");
  EXPECT_EQ(placeholder_in_quotes("echo {other} '{nope}'", names), "");
  // What the runner substitutes reads back, under /bin/sh, as the value itself, whatever it holds.
  const std::string value = "it's $(touch /tmp/skinref-pwned) `x` \"q\" \\ *";
  const std::string command = engine_process::substitute("printf %s {model}", {{"model", value}});
  FILE* shell = popen(command.c_str(), "r");
  ASSERT_NE(shell, nullptr);
  char buffer[256] = {};
  const size_t got = fread(buffer, 1, sizeof buffer - 1, shell);
  pclose(shell);
  EXPECT_EQ(std::string(buffer, got), value);
}

// "{model}" in quotes would be unquoted again by the shell: a model path with $(...) would run it.
TEST(RunnerGuarantees, AQuotedPlaceholderIsRefused) {
  TempDir dir;
  const CliRun run = run_conformance(dir, dir.file("run"), "cat \"{model}\" > {out}", "influences-eight");
  EXPECT_EQ(run.exit_code, test::exit_codes::kExitBadInput);
  EXPECT_NE(run.err.find("--query: {model} at byte 5 is inside double quotes; write placeholders bare"),
            std::string::npos)
      << run.err;
  EXPECT_FALSE(fs::exists(dir.path() / "run" / "run.json"));
  const CliRun batch = test::run_cli(dir, {"conformance", "run", "--engine-name", "e", "--batch", "engine '{queries}'",
                                           "--out", dir.file("batch"), "--filter", "influences-eight"});
  EXPECT_EQ(batch.exit_code, test::exit_codes::kExitBadInput);
  EXPECT_NE(batch.err.find("{queries} at byte 8 is inside single quotes"), std::string::npos) << batch.err;
}

// Latin-1 and binary on stderr, then a failure: the run is reported, the bytes quoted as safe text.
TEST(RunnerGuarantees, BytesThatAreNotUtf8AreReportedSafely) {
  TempDir dir;
  const fs::path out = dir.path() / "run";
  const std::string engine = "printf 'Fehler: ung\\374ltige Datei \\377\\376\\000\\033[31m\\n' >&2; exit 3";
  const CliRun run = run_conformance(dir, out.string(), engine, "influences-eight");
  EXPECT_EQ(run.exit_code, test::exit_codes::kExitComparisonFailed) << run.err;
  expect_readable_reports(out);
  EXPECT_EQ(outcome_of(out, "influences-eight").substr(0, 24), "refused: t=0: exit 3: \"F") << outcome_of(out, "influences-eight");
  EXPECT_NE(outcome_of(out, "influences-eight").find("Fehler: ung\xEF\xBF\xBDltige Datei \xEF\xBF\xBD\xEF\xBF\xBD\\x00\\x1B[31m"),
            std::string::npos)
      << outcome_of(out, "influences-eight");
  // The run judged again from its record reads the same log.
  const CliRun report = test::run_cli(dir, {"conformance", "report", "--out", out.string()});
  EXPECT_EQ(report.exit_code, test::exit_codes::kExitComparisonFailed) << report.err;
  expect_readable_reports(out);
}

// An engine that prints 64 MiB on one line: its case fails, the message is cut to a line's worth.
TEST(RunnerGuarantees, SixtyFourMebibytesOfOutputAreQuotedInALine) {
  TempDir dir;
  const fs::path out = dir.path() / "run";
  const CliRun run =
      run_conformance(dir, out.string(), "head -c 67108864 /dev/zero | tr '\\000' x; exit 1", "influences-eight");
  EXPECT_EQ(run.exit_code, test::exit_codes::kExitComparisonFailed) << run.err;
  const std::string outcome = outcome_of(out, "influences-eight");
  EXPECT_NE(outcome.find("xxxx ... (67108"), std::string::npos) << outcome.substr(0, 400);
  EXPECT_LT(outcome.size(), 600u);
  fs::remove_all(out / "logs");
}

// An engine that rewrites its input, then answers from it: never a pass, and the suite is untouched.
TEST(RunnerGuarantees, AnEngineThatWritesItsInputIsNamedAndTheSuiteIsUntouched) {
  TempDir dir;
  const fs::path out = dir.path() / "run";
  const std::string id = "rotation-linear-slerp";
  const std::string suite_model = std::string(SKINREF_CONFORMANCE_DIR) + "/cases/" + id + "/" + id + ".gltf";
  const std::string before = model_content_hash(suite_model);
  // It makes its copy writable, scales every node by 2 in it, and skins the changed file.
  const std::string engine = "chmod u+w {model} && python3 -c 'import json,sys; p=sys.argv[1]; d=json.load(open(p)); "
                             "[n.__setitem__(\"scale\",[2,2,2]) for n in d[\"nodes\"]]; json.dump(d,open(p,\"w\"))' {model} && " +
                             correct_engine();
  const CliRun run = run_conformance(dir, out.string(), engine, id);
  EXPECT_EQ(run.exit_code, test::exit_codes::kExitComparisonFailed) << run.err;
  const std::string outcome = outcome_of(out, id);
  EXPECT_EQ(outcome.rfind("input changed: the engine wrote to its input: t=0: its copy of " + id + ".gltf was changed",
                          0),
            0u)
      << outcome;
  EXPECT_EQ(model_content_hash(suite_model), before);
  // The engine was given its own copy, in its own working folder, read-only.
  const fs::path copy = out / "work" / id / "t0.5" / (id + ".bin");
  ASSERT_TRUE(fs::exists(copy));
  EXPECT_EQ((fs::status(copy).permissions() & fs::perms::owner_write), fs::perms::none);
}

// The suite itself changed under the runner (by an engine of an earlier run, or by hand): the run refuses to
// start, naming the file.
TEST(RunnerGuarantees, AChangedSuiteIsRefusedBeforeTheRun) {
  TempDir dir;
  const fs::path suite = dir.path() / "suite";
  fs::copy(SKINREF_CONFORMANCE_DIR, suite, fs::copy_options::recursive);
  const fs::path bin = suite / "cases" / "influences-eight" / "influences-eight.bin";
  std::ofstream(bin, std::ios::app) << "x";
  const CliRun run = run_conformance(dir, dir.file("run"), correct_engine(), "influences-eight",
                                     {"--suite", suite.string()});
  EXPECT_EQ(run.exit_code, test::exit_codes::kExitBadInput);
  EXPECT_NE(run.err.find("influences-eight.bin is changed since suite.json recorded its hash"), std::string::npos)
      << run.err;
}

// --resume over a run of another engine: refused, naming what changed, unless --force-new-engine.
TEST(RunnerGuarantees, ResumeIsKeyedByTheEngine) {
  TempDir dir;
  const std::string out = dir.file("run");
  ASSERT_EQ(run_conformance(dir, out, correct_engine(), "influences-eight").exit_code, test::exit_codes::kExitOk);
  const CliRun other = test::run_cli(dir, {"conformance", "run", "--engine-name", "impostor", "--query", "true {out}",
                                           "--out", out, "--filter", "influences-eight", "--resume"});
  EXPECT_EQ(other.exit_code, test::exit_codes::kExitBadInput);
  EXPECT_NE(other.err.find("the engine's name 'hostile' is now 'impostor'"), std::string::npos) << other.err;
  EXPECT_NE(other.err.find("the engine's query command"), std::string::npos) << other.err;
  // Forced, it starts over: `true` writes nothing, so nothing of the old run is credited to it.
  const CliRun forced = test::run_cli(dir, {"conformance", "run", "--engine-name", "impostor", "--query", "true {out}",
                                            "--out", out, "--filter", "influences-eight", "--resume",
                                            "--force-new-engine"});
  EXPECT_EQ(forced.exit_code, test::exit_codes::kExitComparisonFailed) << forced.err;
  EXPECT_NE(forced.out.find("impostor: conformant to glTF 2.0 on 0 of 1 cases"), std::string::npos) << forced.out;
  EXPECT_EQ(read_json(fs::path(out) / "run.json")["engine"]["name"], "impostor");
  // The same engine resumes what it finished: a counter shows that no query runs again.
  const std::string counter = dir.file("answered");
  const std::string counted = "echo >> " + test::shell_quoted(counter) + "; " + correct_engine();
  const std::string again = dir.file("again");
  ASSERT_EQ(run_conformance(dir, again, counted, "influences-eight").exit_code, test::exit_codes::kExitOk);
  ASSERT_EQ(run_conformance(dir, again, counted, "influences-eight", {"--resume"}).exit_code, test::exit_codes::kExitOk);
  EXPECT_EQ(test::read_bytes(counter).size(), 3u);  // the case's three times, once each
}

// A child that calls setsid() and runs on: killed at its query's end, and the report says so.
TEST(RunnerGuarantees, AChildThatLeavesTheProcessGroupIsKilled) {
  TempDir dir;
  const fs::path out = dir.path() / "run";
  const std::string marker = "7" + std::to_string(getpid() % 100000) + "1";  // a sleep no one else runs
  const CliRun run = run_conformance(dir, out.string(), "setsid sleep " + marker + " & " + correct_engine(),
                                     "influences-eight");
  EXPECT_EQ(run.exit_code, test::exit_codes::kExitOk) << run.err << run.out;
  EXPECT_EQ(processes_left("sleep " + marker), 0u);
  EXPECT_NE(outcome_of(out, "influences-eight").find("1 process that left the query's process group was killed at its end"),
            std::string::npos)
      << outcome_of(out, "influences-eight");
}

// An engine that deletes the run's folder: one line, exit 2. One that puts a file where a log folder goes:
// that query fails, named, and the run goes on.
TEST(RunnerGuarantees, TheRunFolderRemovedOrObstructed) {
  TempDir dir;
  const fs::path out = dir.path() / "run";
  const CliRun removed = run_conformance(dir, out.string(), "rm -rf " + test::shell_quoted(out.string()), "influences-eight");
  EXPECT_EQ(removed.exit_code, test::exit_codes::kExitBadInput);
  EXPECT_NE(removed.err.find("the run's folder, which was removed while the run went on"), std::string::npos)
      << removed.err;
  EXPECT_EQ(std::count(removed.err.begin(), removed.err.end(), '\n'), 1) << removed.err;

  // The first query puts a file where the next case's log folder goes (one job: the cases run in order).
  const fs::path obstructed = dir.path() / "obstructed";
  const std::string engine = "case {case} in influences-eight) rm -rf " +
                             test::shell_quoted((obstructed / "logs" / "influences-twelve").string()) + "; touch " +
                             test::shell_quoted((obstructed / "logs" / "influences-twelve").string()) + ";; esac; " +
                             correct_engine();
  const CliRun run = run_conformance(dir, obstructed.string(), engine, "influences-[et][iw]*");
  EXPECT_EQ(run.exit_code, test::exit_codes::kExitComparisonFailed) << run.err;
  expect_readable_reports(obstructed);
  EXPECT_EQ(outcome_of(obstructed, "influences-twelve").rfind("crash: t=0: could not start: ", 0), 0u)
      << outcome_of(obstructed, "influences-twelve");
  EXPECT_NE(outcome_of(obstructed, "influences-twelve").find("cannot create the folder"), std::string::npos);
  EXPECT_EQ(outcome_of(obstructed, "influences-eight").substr(0, 6), "pass: ");
}

// Dumps that are no dump: gigabytes (sized, never read), a FIFO (never opened), NaN, cut short, another
// case's. Each is bad output on its own case; memory stays far below the dump's size.
TEST(RunnerGuarantees, DumpsThatAreNoDumpAreRefusedCheaply) {
  TempDir dir;
  const fs::path out = dir.path() / "run";
  // A NaN dump and a whole one, prepared here from the reference, for the engine to copy.
  const std::string id = "influences-eight";
  const Scene scene = load_gltf_file(std::string(SKINREF_CONFORMANCE_DIR) + "/cases/" + id + "/" + id + ".gltf");
  VertexDump dump;
  dump.precision = DumpPrecision::F32;
  dump.primitives = evaluate_vertices(scene, evaluate_pose(scene, 0, 0.0), SkinningOptions{});
  dump.record.present = true;
  dump.record.model_hash = model_content_hash(scene.source);
  write_vertex_dump(scene, dump, dir.file("whole.skv"));
  dump.primitives[0].vertices.positions[1].x() = std::numeric_limits<double>::quiet_NaN();
  write_vertex_dump(scene, dump, dir.file("nan.skv"));
  const std::string engine =
      "case {case} in influences-eight) truncate -s 2G {out} ;; influences-twelve) mkfifo {out} ;;"
      " influences-five) cp " + test::shell_quoted(dir.file("nan.skv")) + " {out} ;;"
      " influences-in-third-set-only) head -c 100 " + test::shell_quoted(dir.file("whole.skv")) + " > {out} ;;"
      " influences-two-sets-as-unsigned-bytes) cp " + test::shell_quoted(dir.file("whole.skv")) + " {out} ;; esac";
  struct rusage before {};
  getrusage(RUSAGE_CHILDREN, &before);
  const CliRun run = run_conformance(dir, out.string(), engine, "influences-*");
  struct rusage after {};
  getrusage(RUSAGE_CHILDREN, &after);
  EXPECT_EQ(run.exit_code, test::exit_codes::kExitComparisonFailed) << run.err;
  expect_readable_reports(out);
  EXPECT_NE(outcome_of(out, "influences-eight").find("a .skv of at most"), std::string::npos) << outcome_of(out, id);
  EXPECT_NE(outcome_of(out, "influences-eight").find("got 2147483648 bytes"), std::string::npos);
  EXPECT_NE(outcome_of(out, "influences-twelve").find("no output"), std::string::npos)
      << outcome_of(out, "influences-twelve");
  EXPECT_NE(outcome_of(out, "influences-five").find("NaN"), std::string::npos) << outcome_of(out, "influences-five");
  EXPECT_EQ(outcome_of(out, "influences-in-third-set-only").substr(0, 12), "bad output: ");
  EXPECT_NE(outcome_of(out, "influences-two-sets-as-unsigned-bytes").find("records fnv1a64:"), std::string::npos)
      << outcome_of(out, "influences-two-sets-as-unsigned-bytes");
  // The largest child this test waited for (skinref, through the shell) peaked well below the 2 GB dump.
  const long peak_kib = std::max(after.ru_maxrss, before.ru_maxrss);
  std::printf("[ measured ] skinref conformance run with a 2 GB dump: peak resident memory %.1f MB\n",
              double(peak_kib) / 1024.0);
  if (after.ru_maxrss > before.ru_maxrss) {
    EXPECT_LT(after.ru_maxrss, 200 * 1024) << "KiB";
  }
}

// The hang that ignores SIGTERM and the crash: failed by their time limit and signal, the run goes on.
TEST(RunnerGuarantees, HangsThatIgnoreSigtermAndCrashesFailTheirCasesOnly) {
  TempDir dir;
  const fs::path out = dir.path() / "run";
  const std::string engine = "case {case} in influences-eight) trap '' TERM INT HUP; sleep 30 ;;"
                             " influences-twelve) kill -SEGV $$ ;; *) " + correct_engine() + " ;; esac";
  const CliRun run = test::run_cli(dir, {"conformance", "run", "--engine-name", "e", "--query", engine, "--out",
                                         out.string(), "--filter", "influences-[eft]*", "--timeout", "1"});
  EXPECT_EQ(run.exit_code, test::exit_codes::kExitComparisonFailed) << run.err;
  EXPECT_NE(outcome_of(out, "influences-eight").find("timed out after 1 s"), std::string::npos);
  EXPECT_NE(outcome_of(out, "influences-twelve").find("killed by signal 11"), std::string::npos);
  EXPECT_EQ(outcome_of(out, "influences-five").substr(0, 6), "pass: ");
}

// The runner started as a user starts it, its stdout and stderr in files; returns its pid.
pid_t spawn_conformance(const TempDir& dir, const std::vector<std::string>& args) {
  std::vector<std::string> argv{SKINREF_CLI, "conformance", "run"};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<char*> raw;
  for (std::string& a : argv) raw.push_back(a.data());
  raw.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, dir.file("stdout.txt").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, dir.file("stderr.txt").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = 0;
  const int error = posix_spawn(&pid, SKINREF_CLI, &actions, nullptr, raw.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  EXPECT_EQ(error, 0);
  return pid;
}

int exit_status_of(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// Waits until `count` files exist under `folder` (the engines have started), at most 60 s.
void wait_for_files(const fs::path& folder, size_t count) {
  for (int i = 0; i < 6000; ++i) {
    size_t found = 0;
    std::error_code error;
    for (auto it = fs::recursive_directory_iterator(folder, error); !error && it != fs::recursive_directory_iterator();
         it.increment(error))
      found += it->is_regular_file();
    if (found >= count) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

// The whole promise at once: an engine that prints Latin-1 and binary, rewrites its input, leaves a setsid'd
// child and hangs, stopped with SIGINT halfway (and a second run with SIGTERM): a readable report of what
// finished, the rest "not run", the exit status of the signal, and no process left.
TEST(RunnerGuarantees, StoppedHalfwayTheRunLeavesItsReportAndNoProcess) {
  for (const int signal : {SIGINT, SIGTERM}) {
    TempDir dir;
    const fs::path out = dir.path() / "run";
    const std::string marker = std::to_string(8000 + signal) + std::to_string(getpid() % 10000);
    const std::string engine = "printf 'caf\\351 \\377\\n' >&2; "
                               "case {case} in influences-five|influences-eight) " + correct_engine() +
                               "; echo '{}' >> {model} 2>/dev/null ;;"
                               " *) setsid sleep " + marker + " & sleep " + marker + " ;; esac";
    const pid_t runner = spawn_conformance(dir, {"--engine-name", "stopped", "--query", engine, "--out", out.string(),
                                                 "--filter", "influences-*", "--jobs", "2", "--timeout", "600"});
    // The two answering cases have 6 queries; then two hanging ones start.
    wait_for_files(out / "dumps", 6);
    for (int i = 0; i < 6000 && processes_with("sleep " + marker) < 4; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    ASSERT_GE(processes_with("sleep " + marker), 4u);
    kill(runner, signal);
    EXPECT_EQ(exit_status_of(runner), 128 + signal);
    EXPECT_EQ(processes_left("sleep " + marker), 0u);
    expect_readable_reports(out);
    const nlohmann::json record = read_json(out / "run.json");
    EXPECT_EQ(record["stopped_by"], signal == SIGINT ? "SIGINT" : "SIGTERM");
    EXPECT_EQ(outcome_of(out, "influences-eight").rfind("input changed: the engine wrote to its input", 0), 0u)
        << outcome_of(out, "influences-eight");
    EXPECT_EQ(outcome_of(out, "influences-twelve").rfind("not run: ", 0), 0u) << outcome_of(out, "influences-twelve");
    const std::string junit = test::read_bytes((out / "junit.xml").string());
    EXPECT_NE(junit.find("skipped"), std::string::npos);
  }
}

}  // namespace SKINREF_UNITY_ID
}  // namespace skinref
