// The conformance runner, verdicts and report card (tools/conformance/runner.h, verdict.h, report_card.h):
// skinref's own backends pass every case; every departure a case can plant fails that case and is named with
// its class; an engine that crashes, hangs or writes garbage gets that verdict on those cases and the run goes
// on; the batch protocol; resuming a run; the report card's formats.
#include "anim/evaluate_pose.h"
#include "conformance/departure_classes.h"
#include "conformance/engines_history.h"
#include "conformance/engines_table.h"
#include "conformance/expectations.h"
#include "conformance/report_card.h"
#include "conformance/runner.h"
#include "conformance/suite.h"
#include "conformance/verdict.h"
#include "core/conventions.h"
#include "core/input_error.h"
#include "io/gltf_load.h"
#include "io/vertex_dump.h"
#include "skin/evaluate_vertices.h"
#include "io/image_io.h"
#include "support/chromium.h"
#include "support/cli_runner.h"
#include "support/float32_engine.h"
#include "support/temp_dir.h"
#include "verify/convention_pipeline.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <regex>
#include <set>
#include <fstream>
#include <sstream>

#ifndef SKINREF_CLI
#error "SKINREF_CLI must name the skinref program (set by CMakeLists.txt)"
#endif
#ifndef SKINREF_SOURCE_DIR
#error "SKINREF_SOURCE_DIR must name the source tree (set by CMakeLists.txt)"
#endif
#ifndef SKINREF_CONFORMANCE_DIR
#error "SKINREF_CONFORMANCE_DIR must name the committed suite (set by CMakeLists.txt)"
#endif

namespace skinref {
inline namespace SKINREF_UNITY_ID {  // unnamed, or the file's own in a unity build (CMakeLists.txt)

using namespace conformance;
namespace fs = std::filesystem;

// The runner on the committed suite: its inputs checked and copied for each query.
const RunOptions kRunOnTheSuite{false, false, SKINREF_CONFORMANCE_DIR};
const RunOptions kResumeOnTheSuite{true, false, SKINREF_CONFORMANCE_DIR};

std::string skin_command(const std::string& extra) {
  return std::string(SKINREF_CLI) + " skin {model} --anim {animation} --time {time} " + extra + " --out {out}";
}

const CaseVerdict& verdict_of(const std::vector<CaseVerdict>& verdicts, const std::string& id) {
  for (const CaseVerdict& v : verdicts)
    if (v.definition->id == id) return v;
  throw std::runtime_error("no verdict for " + id);
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The runner over the command protocol with skinref's cpu backend as the engine, on one case of each part of the
// specification (the whole suite runs in the release tree: ctest conformance.run.cpu, label conformance-runs,
// 150 processes that the sanitizers would make a minute).
TEST(ConformanceRunner, SkinrefsCpuBackendPassesThroughTheCommandProtocol) {
  test::TempDir dir;
  EngineSpec engine{"skinref cpu", "", skin_command("--backend cpu"), "", 60.0, 2};
  std::vector<Query> queries;
  for (const std::string id : {"skin-without-inverse-bind-matrices", "node-matrix-mirror-and-scale", "influences-eight",
                               "morph-nine-targets", "cubic-spline-rotation"}) {
    const std::vector<Query> some = suite_queries(SKINREF_CONFORMANCE_DIR, dir.path().string(), id);
    queries.insert(queries.end(), some.begin(), some.end());
  }
  const RunRecord run = run_engine(engine, queries, dir.path().string(), kRunOnTheSuite);
  const std::vector<CaseVerdict> verdicts = judge_run(run);
  EXPECT_EQ(verdicts.size(), 5u);
  for (const CaseVerdict& v : verdicts)
    EXPECT_EQ(v.outcome, CaseOutcome::Passed) << v.definition->id << ": " << v.detail;
  EXPECT_EQ(summary_line(run, verdicts), "skinref cpu: conformant to glTF 2.0 on 5 of 5 cases; normals correct on 5 of 5");
}

// The tests' float32 engine (support/float32_engine.h: another order of operations at every stage, no code
// shared with the reference) with `choices`, over every case: every case must pass.
void expect_float32_engine_passes_every_case(const test::Float32EngineChoices& choices, const std::string& name) {
  test::TempDir dir;
  RunRecord run;
  run.engine.name = name;
  for (const Query& q : suite_queries(SKINREF_CONFORMANCE_DIR, dir.path().string(), "")) {
    const Scene scene = load_gltf_file(q.model);
    VertexDump dump;
    dump.precision = DumpPrecision::F32;
    dump.primitives = test::float32_engine_vertices(scene, 0, float(q.time), choices);
    fs::create_directories(fs::path(q.out).parent_path());
    write_vertex_dump(scene, dump, q.out);
    run.results.push_back({q, "ok", 0.0});
  }
  const std::vector<CaseVerdict> verdicts = judge_run(run);
  EXPECT_EQ(verdicts.size(), conformance_cases().size());
  for (const CaseVerdict& v : verdicts) {
    EXPECT_EQ(v.outcome, CaseOutcome::Passed) << v.definition->id << ": " << v.departure << " " << v.detail;
    // Both tiers: a correct engine's normals are correct too.
    EXPECT_NE(v.geometry.outcome, GeometryOutcome::Wrong) << v.definition->id << ": " << v.geometry.detail;
    std::printf("[ measured ] %-40s %s: error/bound %.3g, normals %.3g\n", v.definition->id.c_str(), name.c_str(),
                v.margin, v.geometry.margin);
  }
}

// Rounding to nearest: the bounds hold for a correct engine that is not skinref.
TEST(ConformanceRunner, TheIndependentFloat32EnginePassesEveryCase) {
  expect_float32_engine_passes_every_case(test::kIndependentEngine, "independent float32 engine");
}

// At the contract's limits (rounding toward zero, every stated allowance used up in one direction, each way, and
// Godot's matrix form): the bounds hold for the correct engines whose errors add up instead of cancelling.
TEST(ConformanceRunner, TheFloat32EngineAtTheContractLimitsPassesEveryCase) {
  expect_float32_engine_passes_every_case(test::kEngineAtTheContractLimits, "float32 engine at the contract's limits");
  expect_float32_engine_passes_every_case(test::kEngineAtTheContractLimitsOutward, "the same, outward");
  expect_float32_engine_passes_every_case(test::kEngineAtTheContractLimitsGodot, "the same, Godot's form");
}

// The reference under a target's conventions, written as an engine's dumps would be (f32 .skv), and judged.
std::vector<CaseVerdict> judge_planted(const ConformanceCase& c, const DepartureTarget& target, const fs::path& dir) {
  Conventions conventions;
  for (const std::string& assignment : target.conventions) set_convention(conventions, assignment);
  RunRecord run;
  run.engine.name = "planted " + target.departure;
  for (const Query& q : suite_queries(SKINREF_CONFORMANCE_DIR, dir.string(), c.id)) {
    // The file read as the engine reads it (the loader's own conventions), then the others applied.
    const Scene scene = load_model_under(q.model, conventions);
    SkinningOptions options;
    options.method = c.method;
    VertexDump dump;
    dump.precision = DumpPrecision::F32;
    dump.primitives =
        evaluate_vertices(scene, evaluate_pose(scene, 0, q.time, conventions), options, conventions);
    fs::create_directories(fs::path(q.out).parent_path());
    write_vertex_dump(scene, dump, q.out);
    run.results.push_back({q, "ok", 0.0});
  }
  return judge_run(run);
}

// The one targeted class no convention plants: L2's JOINTS read as unsigned shorts where the file stores bytes
// (Sascha Willems' sample, Vulkan-glTF-PBR#48). This test engine reads joints-unsigned-byte's JOINTS_0 as an
// engine with that defect does: element v at 8 v bytes into the bufferView, each index two bytes little-endian,
// read on into the buffer past the view's end (the next view's bytes), and an index past the skin's joints taken
// as joint 0 (the palette entry such an engine would read is undefined). The case fails it far above its bounds;
// the verdict cannot name it (no convention expresses it), and says so.
TEST(ConformanceRunner, JointsReadAsShortsFailTheUnsignedByteCase) {
  const std::string id = "joints-unsigned-byte";
  test::TempDir dir;
  RunRecord run;
  run.engine.name = "JOINTS read as unsigned shorts";
  const fs::path gltf_path = fs::path(SKINREF_CONFORMANCE_DIR) / "cases" / id / (id + ".gltf");
  const nlohmann::json gltf = nlohmann::json::parse(read_text(gltf_path));
  const std::string bin = read_text(gltf_path.parent_path() / (id + ".bin"));
  const nlohmann::json& accessor = gltf["accessors"][gltf["meshes"][0]["primitives"][0]["attributes"]["JOINTS_0"].get<int>()];
  ASSERT_EQ(accessor["componentType"], 5121);  // UNSIGNED_BYTE: the case stores bytes
  const size_t start = gltf["bufferViews"][accessor["bufferView"].get<int>()]["byteOffset"].get<size_t>() +
                       accessor.value("byteOffset", size_t(0));
  for (const Query& q : suite_queries(SKINREF_CONFORMANCE_DIR, dir.path().string(), id)) {
    Scene scene = load_gltf_file(q.model);
    Primitive& primitive = scene.meshes[0].primitives[0];
    ASSERT_EQ(primitive.influences_per_vertex, 4);
    const size_t joint_count = scene.skins[0].joints.size();
    for (size_t v = 0; v < primitive.vertex_count(); ++v)
      for (size_t i = 0; i < 4; ++i) {
        const size_t at = start + 8 * v + 2 * i;
        const size_t index = at + 1 < bin.size() ? uint8_t(bin[at]) + 256 * size_t(uint8_t(bin[at + 1])) : 0;
        primitive.joints[4 * v + i] = uint32_t(index < joint_count ? index : 0);
      }
    VertexDump dump;
    dump.precision = DumpPrecision::F32;
    dump.primitives = evaluate_vertices(scene, evaluate_pose(scene, 0, q.time), SkinningOptions{});
    fs::create_directories(fs::path(q.out).parent_path());
    write_vertex_dump(scene, dump, q.out);
    run.results.push_back({q, "ok", 0.0});
  }
  const std::vector<CaseVerdict> verdicts = judge_run(run);
  ASSERT_EQ(verdicts.size(), 1u);
  EXPECT_EQ(verdicts[0].outcome, CaseOutcome::Failed);
  EXPECT_GE(verdicts[0].margin, kMinimumSensitivity) << verdicts[0].detail;
  EXPECT_EQ(verdicts[0].departure, "") << "no convention expresses it";
  EXPECT_NE(verdicts[0].detail.find("no known departure explains the dumps"), std::string::npos) << verdicts[0].detail;
  std::printf("[ measured ] %s, JOINTS read as shorts: error/bound %.3g\n", id.c_str(), verdicts[0].margin);
}

// Whether every convention planted changes normals and nothing else: a normal rule, or the mesh node's transform
// applied to normals alone (three.js's normal matrix times the inverse).
bool moves_normals_only(const std::vector<std::string>& conventions) {
  for (const std::string& c : conventions)
    if (c.rfind("normals=", 0) != 0 && c != "mesh-node=normals-by-normal-matrix-times-inverse") return false;
  return true;
}

TEST(ConformanceRunner, EveryPlantedDepartureFailsItsCaseAndIsNamed) {
  test::TempDir dir;
  size_t planted = 0, geometry_only = 0;
  for (const ConformanceCase& c : conformance_cases())
    for (const DepartureTarget& target : c.targets) {
      if (target.conventions.empty()) continue;
      ++planted;
      const std::vector<CaseVerdict> verdicts = judge_planted(c, target, dir.path() / std::to_string(planted));
      ASSERT_EQ(verdicts.size(), 1u);
      const CaseVerdict& v = verdicts[0];
      // A rule for normals alone (how they transform, which glTF leaves open) fails the geometry tier and passes
      // the specification; every other planted departure fails the specification.
      const bool normals_only = !c.rule_covers_normals && moves_normals_only(target.conventions);
      geometry_only += normals_only;
      EXPECT_EQ(v.outcome, normals_only ? CaseOutcome::Passed : CaseOutcome::Failed) << c.id << " " << target.departure;
      EXPECT_EQ(v.geometry.outcome, normals_only ? GeometryOutcome::Wrong : v.geometry.outcome) << c.id;
      // The name is the class's: diagnose may name an equivalent convention of the same class (nlerp and lerp
      // agree where the keys are in one hemisphere), but never another class.
      const std::string& named = normals_only ? v.geometry.departure : v.departure;
      EXPECT_EQ(named.substr(0, target.departure.size() + 2), target.departure + ": ")
          << c.id << " planted " << target.conventions[0] << ", named '" << named << "' (" << v.detail << ")";
    }
  EXPECT_GE(planted, 20u);
  EXPECT_GE(geometry_only, 7u);  // N1's rules on two cases, three.js's mesh-node normals
}

TEST(ConformanceRunner, CrashesHangsAndGarbageFailTheirCasesOnly) {
  test::TempDir dir;
  // One engine, six behaviours by case: a segfault, a hang past the limit, bytes that are not a dump, an
  // error message and an exit status, a child of the shell killed by a signal, and a correct answer.
  const std::string command =
      "case {case} in rotation-linear-slerp) kill -SEGV $$ ;; step-translation-rotation) sleep 30 ;;"
      " morph-before-skinning) echo garbage > {out} ;;"
      " influences-eight) echo 'loader: first line' >&2; echo 'loader: unsupported sparse MAT4' >&2; exit 3 ;;"
      " influences-twelve) sh -c 'kill -SEGV $$' ;; *) exec " +
      skin_command("--precision f32") + " ;; esac";
  EngineSpec engine{"unruly", "0.1", command, "", 2.0, 2};
  std::vector<Query> queries;
  for (const std::string id : {"rotation-linear-slerp", "step-translation-rotation", "morph-before-skinning",
                               "influences-eight", "influences-twelve", "influences-five"}) {
    const std::vector<Query> some = suite_queries(SKINREF_CONFORMANCE_DIR, dir.path().string(), id);
    queries.insert(queries.end(), some.begin(), some.end());
  }
  const std::vector<CaseVerdict> verdicts = judge_run(run_engine(engine, queries, dir.path().string(), kRunOnTheSuite));
  ASSERT_EQ(verdicts.size(), 6u);
  const CaseVerdict& segfault = verdict_of(verdicts, "rotation-linear-slerp");
  EXPECT_EQ(segfault.outcome, CaseOutcome::Crashed);
  EXPECT_NE(segfault.detail.find("killed by signal 11"), std::string::npos) << segfault.detail;
  const CaseVerdict& hang = verdict_of(verdicts, "step-translation-rotation");
  EXPECT_EQ(hang.outcome, CaseOutcome::Crashed);
  EXPECT_NE(hang.detail.find("timed out after 2 s"), std::string::npos) << hang.detail;
  const CaseVerdict& garbage = verdict_of(verdicts, "morph-before-skinning");
  EXPECT_EQ(garbage.outcome, CaseOutcome::BadOutput);
  EXPECT_NE(garbage.detail.find(".skv"), std::string::npos) << garbage.detail;
  // The report quotes what the engine said last, and names the signal behind a shell's 128 + N.
  const CaseVerdict& refused = verdict_of(verdicts, "influences-eight");
  EXPECT_EQ(refused.outcome, CaseOutcome::Refused);  // a clean exit with a message: the loader refused
  EXPECT_NE(refused.detail.find("exit 3: \"loader: unsupported sparse MAT4\""), std::string::npos) << refused.detail;
  const CaseVerdict& child = verdict_of(verdicts, "influences-twelve");
  EXPECT_EQ(child.outcome, CaseOutcome::Crashed);
  EXPECT_NE(child.detail.find("exit 139 (the shell's code for signal 11, Segmentation fault)"), std::string::npos)
      << child.detail;
  EXPECT_EQ(verdict_of(verdicts, "influences-five").outcome, CaseOutcome::Passed);
}

TEST(ConformanceRunner, BatchProtocolAndResume) {
  test::TempDir dir;
  // The example batch adapter (examples/conformance/batch_adapter.py, skinref's cpu backend behind it), counting
  // the queries it answered in a file.
  const std::string counter = (dir.path() / "answered").string();
  EngineSpec engine{"batch", "", "",
                    "SKINREF=" + test::shell_quoted(SKINREF_CLI) + " python3 " +
                        test::shell_quoted(std::string(SKINREF_SOURCE_DIR) + "/examples/conformance/batch_adapter.py") +
                        " {queries} " + test::shell_quoted(counter),
                    60.0, 1};
  const std::vector<Query> queries = suite_queries(SKINREF_CONFORMANCE_DIR, dir.path().string(), "influences-*");
  const RunRecord first = run_engine(engine, queries, dir.path().string(), kRunOnTheSuite);
  for (const CaseVerdict& v : judge_run(first)) EXPECT_EQ(v.outcome, CaseOutcome::Passed) << v.detail;
  EXPECT_EQ(read_text(counter).size(), queries.size());
  // Resumed, every query is done already: none is asked again, and the verdicts stand.
  const RunRecord second = run_engine(engine, queries, dir.path().string(), kResumeOnTheSuite);
  EXPECT_EQ(read_text(counter).size(), queries.size());
  for (const QueryResult& r : second.results) EXPECT_TRUE(r.ok()) << r.query.case_id << " " << r.status;
  // The record reads back as it was written.
  const RunRecord reread = read_run_record(dir.path().string());
  EXPECT_EQ(reread.results.size(), queries.size());
  EXPECT_EQ(reread.engine.batch_command, engine.batch_command);
}

// `skinref skin --queries` as a batch engine (how conformance.run.cpu and .vulkan run the whole suite): one
// process answers every query, a line each in the batch log; a query whose model is missing fails alone (its
// line says why, the batch exits 2) and the others pass.
TEST(ConformanceRunner, SkinrefSkinAnswersABatch) {
  test::TempDir dir;
  const EngineSpec engine{"skin --queries", "", "",
                          test::shell_quoted(SKINREF_CLI) + " skin --queries {queries} --backend cpu", 60.0, 1};
  std::vector<Query> queries = suite_queries(SKINREF_CONFORMANCE_DIR, dir.path().string(), "influences-*");
  ASSERT_GE(queries.size(), 2u);
  queries.back().model = (dir.path() / "missing.gltf").string();
  queries.back().work.clear();  // the engine is given the missing file itself
  const RunRecord run = run_engine(engine, queries, dir.path().string(), kRunOnTheSuite);
  ASSERT_EQ(run.results.size(), queries.size());
  for (size_t i = 0; i + 1 < run.results.size(); ++i)
    EXPECT_TRUE(run.results[i].ok()) << run.results[i].query.case_id << " " << run.results[i].status;
  EXPECT_EQ(run.results.back().status, "no output (the batch exit 2)");
  const std::string log = read_text(dir.path() / "logs" / "batch.log");
  const Query& first = queries.front();
  EXPECT_NE(log.find(first.case_id + " at t = " + time_text(first.time) + ": wrote " + first.out), std::string::npos)
      << log;
  EXPECT_NE(log.find("missing.gltf"), std::string::npos) << log;
  EXPECT_NE(log.find("skinned " + std::to_string(queries.size() - 1) + " of " + std::to_string(queries.size())),
            std::string::npos)
      << log;
  for (const CaseVerdict& v : judge_run(run)) {
    if (v.definition->id != queries.back().case_id) {
      EXPECT_EQ(v.outcome, CaseOutcome::Passed) << v.detail;
    }
  }
}

// A queries file that is not one is refused before anything runs, naming the JSON pointer; and the options that
// the queries give are refused beside --queries.
TEST(ConformanceRunner, SkinQueriesFileIsCheckedMemberByMember) {
  test::TempDir dir;
  const std::string path = (dir.path() / "queries.json").string();
  const std::pair<std::string, std::string> cases[] = {
      {R"({"format": "skinref-conformance-queries", "version": 2, "queries": []})", "/version: 1, got 2"},
      {R"({"format": "other", "version": 1, "queries": []})", "/format"},
      {R"({"format": "skinref-conformance-queries", "version": 1, "queries": [{"case": "c", "model": "m.gltf",
          "animation": 0, "time": "soon", "out": "o.skv"}]})", "/queries/0/time: a finite time in seconds"},
      {R"({"format": "skinref-conformance-queries", "version": 1, "queries": [{"case": "c", "model": "m.gltf",
          "animation": -1, "time": 0, "out": "o.skv"}]})", "/queries/0/animation"},
      {R"({"format": "skinref-conformance-queries", "version": 1, "queries": [{"case": "c", "model": "m.gltf",
          "animation": 0, "time": 0, "out": "o.skv", "speed": 2}]})", "/queries/0/speed"},
      {R"({"format": "skinref-conformance-queries", "version": 1, "queries": [{"case": "c", "model": "",
          "animation": 0, "time": 0, "out": "o.skv"}]})", "/queries/0/model: a non-empty string"},
  };
  for (const auto& [text, expected] : cases) {
    std::ofstream(path) << text;
    const test::CliRun run = test::run_cli(dir, {"skin", "--queries", path, "--backend", "cpu"});
    EXPECT_EQ(run.exit_code, test::exit_codes::kExitBadInput) << text;
    EXPECT_NE(run.err.find(path + ": "), std::string::npos) << run.err;
    EXPECT_NE(run.err.find(expected), std::string::npos) << run.err;
  }
  const test::CliRun with_time = test::run_cli(dir, {"skin", "--queries", path, "--time", "1"});
  EXPECT_EQ(with_time.exit_code, test::exit_codes::kExitBadInput);
  EXPECT_NE(with_time.err.find("--time with --queries"), std::string::npos) << with_time.err;
}

// The verdict of an nlerp engine on rotation-linear-slerp (its first target), and a passed case beside it, for
// the report card's tests.
std::vector<CaseVerdict> nlerp_fails_slerp_case(const fs::path& dir) {
  for (const ConformanceCase& c : conformance_cases())
    if (c.id == "rotation-linear-slerp") return judge_planted(c, c.targets[0], dir);
  return {};
}

CaseVerdict a_passed_case() {
  CaseVerdict pass;
  pass.definition = &conformance_cases().front();
  return pass;
}

TEST(ConformanceRunner, ReportCardPutsFailuresFirstInEveryFormat) {
  test::TempDir dir;
  std::vector<CaseVerdict> verdicts = nlerp_fails_slerp_case(dir.path() / "planted");
  ASSERT_EQ(verdicts.size(), 1u);
  const CaseVerdict pass = a_passed_case();
  verdicts.insert(verdicts.begin(), pass);
  RunRecord run;
  run.engine.name = "nlerp engine";
  run.engine.version = "1.2";
  write_report_card(run, verdicts, (dir.path() / "card").string());
  const std::string md = read_text(dir.path() / "card" / "report.md");
  EXPECT_NE(md.find("nlerp engine 1.2: conformant to glTF 2.0 on 1 of 2 cases (1 fail); normals correct on "), std::string::npos) << md;
  EXPECT_LT(md.find("| rotation-linear-slerp | fail |"), md.find("| " + pass.definition->id + " | pass |")) << md;
  EXPECT_NE(md.find("S2: rotation="), std::string::npos) << md;
  const nlohmann::json json = nlohmann::json::parse(read_text(dir.path() / "card" / "report.json"));
  EXPECT_EQ(json["cases"][0]["id"], "rotation-linear-slerp");
  EXPECT_EQ(json["cases"][0]["outcome"], "fail");
  EXPECT_GT(json["cases"][0]["error_over_bound"].get<double>(), 10.0);
  const std::string junit = read_text(dir.path() / "card" / "junit.xml");
  EXPECT_NE(junit.find("<failure"), std::string::npos) << junit;
  EXPECT_NE(junit.find("tests=\"2\""), std::string::npos) << junit;
}

// The HTML card explains itself: the heat map's legend; each departure's class code linked to its short name in
// a list of the classes the report names; a crashed query's log linked relative to the card's folder; every
// section linked to its own anchor of the specification, never to the page's top. Every class a case targets
// has a short name, and docs/departure-classes.md an anchor for it.
TEST(ConformanceRunner, ReportCardExplainsItsCodesAndLinksItsLogs) {
  test::TempDir dir;
  std::vector<CaseVerdict> verdicts = nlerp_fails_slerp_case(dir.path() / "planted");
  ASSERT_EQ(verdicts.size(), 1u);
  CaseVerdict crashed = a_passed_case();
  crashed.outcome = CaseOutcome::Crashed;
  crashed.detail = "t=0: exit 3 (log: " + (dir.path() / "card" / "logs" / "x" / "t0.log").string() + ")";
  verdicts.push_back(crashed);
  RunRecord run;
  run.engine.name = "nlerp engine";
  write_report_card(run, verdicts, (dir.path() / "card").string());
  const std::string html = read_text(dir.path() / "card" / "report.html");
  EXPECT_NE(html.find("logarithmic ramp over 8-bit steps"), std::string::npos);
  EXPECT_NE(html.find("<a href=\"#class-S2\" title=\"nlerp instead of slerp\">S2</a>: rotation="), std::string::npos)
      << html;
  EXPECT_NE(html.find("<li id=\"class-S2\"><b>S2</b>: nlerp instead of slerp</li>"), std::string::npos);
  EXPECT_NE(html.find("(log: <a href=\"logs/x/t0.log\">logs/x/t0.log</a>)"), std::string::npos) << html;
  EXPECT_EQ(html.find("glTF-2.0.html\""), std::string::npos) << "a section linked to the specification's top";
  const std::string md = read_text(dir.path() / "card" / "report.md");
  EXPECT_NE(md.find("## Departure classes\n\n- **S2**: nlerp instead of slerp"), std::string::npos) << md;
  // Causes, each once with its cases: most cases first, then by name (the departure, then the crash).
  const std::string departure = verdicts[0].departure;
  EXPECT_NE(md.find("## Causes\n\n2 causes behind the cases that did not pass, each once:\n\n- **" + departure +
                    "** (1): `rotation-linear-slerp`\n- **crash** (1): `" + crashed.definition->id + "`\n"),
            std::string::npos)
      << md;
  EXPECT_NE(html.find("<h2>Causes</h2>"), std::string::npos);
  const nlohmann::json json = nlohmann::json::parse(read_text(dir.path() / "card" / "report.json"));
  ASSERT_EQ(json["causes"].size(), 2u);
  EXPECT_EQ(json["causes"][0]["cause"], departure);
  EXPECT_EQ(json["causes"][0]["cases"][0], "rotation-linear-slerp");
  EXPECT_EQ(json["causes"][1]["cause"], "crash");

  const std::string classes_page = read_text(fs::path(SKINREF_SOURCE_DIR) / "docs" / "departure-classes.md");
  for (const ConformanceCase& c : conformance_cases())
    for (const DepartureTarget& target : c.targets) {
      EXPECT_FALSE(departure_class_title(target.departure).empty()) << c.id << " targets " << target.departure;
      std::string anchor = target.departure;
      std::transform(anchor.begin(), anchor.end(), anchor.begin(), [](unsigned char x) { return char(std::tolower(x)); });
      EXPECT_NE(classes_page.find("<a id=\"" + anchor + "\"></a>"), std::string::npos) << target.departure;
    }
  EXPECT_EQ(class_codes_in("P1, N1: mesh-node=applied"), (std::vector<std::string>{"P1", "N1"}));
  EXPECT_TRUE(class_codes_in("another time: the dump of t = 0.5 matches t = 0.75").empty());
  EXPECT_TRUE(class_codes_in("rotation=nlerp").empty());
}

// Expectations (conformance/expectations.h): a run's verdicts written and read back match themselves; another
// departure, another outcome and a case the file does not list are each one difference; a file that is not
// one is refused naming where.
TEST(ConformanceRunner, ExpectationsHoldAnEngineToItsKnownVerdicts) {
  test::TempDir dir;
  std::vector<CaseVerdict> verdicts = nlerp_fails_slerp_case(dir.path() / "planted");
  ASSERT_EQ(verdicts.size(), 1u);
  verdicts.insert(verdicts.begin(), a_passed_case());
  RunRecord run;
  run.engine.name = "nlerp engine";
  const std::string path = (dir.path() / "expected.json").string();
  std::ofstream(path) << expectations_json(run, verdicts).dump(2);
  const Expectations expected = read_expectations(path);
  EXPECT_EQ(expected.engine, "nlerp engine");
  EXPECT_EQ(expected.cases.at("rotation-linear-slerp").outcome, "fail");
  EXPECT_TRUE(expectation_differences(expected, verdicts).empty());

  std::vector<CaseVerdict> changed = verdicts;
  changed[1].departure = "S2: rotation=lerp";
  changed[0].outcome = CaseOutcome::Crashed;
  const std::vector<std::string> differences = expectation_differences(expected, changed);
  ASSERT_EQ(differences.size(), 2u);
  EXPECT_NE(differences[0].find(": crash, expected pass"), std::string::npos) << differences[0];
  EXPECT_NE(differences[1].find("fails with 'S2: rotation=lerp', expected 'S2: rotation=nlerp'"), std::string::npos)
      << differences[1];
  Expectations shorter = expected;
  shorter.cases.erase("rotation-linear-slerp");
  const std::vector<std::string> unlisted = expectation_differences(shorter, verdicts);
  ASSERT_EQ(unlisted.size(), 1u);
  EXPECT_NE(unlisted[0].find("the expectations do not list the case"), std::string::npos) << unlisted[0];

  nlohmann::json bad = nlohmann::json::parse(read_text(path));
  bad["cases"]["no-such-case"] = {{"outcome", "pass"}};
  std::ofstream(path) << bad.dump();
  try {
    read_expectations(path);
    ADD_FAILURE() << "an unknown case was accepted";
  } catch (const InputError& error) {
    EXPECT_NE(std::string(error.what()).find("/cases/no-such-case"), std::string::npos) << error.what();
  }
}

// docs/engines.md's table (conformance/engines_table.h): a row per case in the suite's order, a column per
// engine, each cell as the expectations say; the table found between its markers, and refused without them.
TEST(ConformanceRunner, EnginesTableFromExpectations) {
  Expectations engine;
  engine.engine = "engine 1.0";
  const std::vector<ConformanceCase>& cases = conformance_cases();
  engine.cases[cases[0].id] = {"fail", "L5: sparse=ignored", "wrong", "L5: sparse=ignored"};
  engine.cases[cases[1].id] = {"crash", "", "not judged", ""};
  engine.cases[cases[2].id] = {"fail", "", "correct", ""};
  engine.cases[cases[4].id] = {"pass", "", "wrong", "N1: normals=blend-upper3x3"};
  engine.cases[cases[5].id] = {"pass", "", "correct", ""};
  const std::string table = engines_table({engine});
  std::istringstream lines(table);
  std::vector<std::string> rows;
  for (std::string line; std::getline(lines, line);) rows.push_back(line);
  // The table, a blank line, the engine's headline, its 3 causes, the geometry tier's line and its cause.
  ASSERT_EQ(rows.size(), cases.size() + 2 + 2 + 3 + 2);
  EXPECT_EQ(rows[0], "| case | section | engine 1.0 |");
  EXPECT_EQ(rows[2], "| `" + cases[0].id + "` | " + cases[0].section + " | fail: L5: sparse=ignored |");
  EXPECT_EQ(rows[3], "| `" + cases[1].id + "` | " + cases[1].section + " | crash |");
  EXPECT_EQ(rows[4], "| `" + cases[2].id + "` | " + cases[2].section + " | fail: no known departure |");
  EXPECT_EQ(rows[5], "| `" + cases[3].id + "` | " + cases[3].section + " | – |");
  EXPECT_EQ(rows[6], "| `" + cases[4].id + "` | " + cases[4].section + " | pass; normals wrong: N1: normals=blend-upper3x3 |");
  // Two of five pass; normals were judged on four (a crash judges none), correct on two of them.
  EXPECT_EQ(rows[cases.size() + 3], "- **engine 1.0**: conformant to glTF 2.0 on 2 of 5 cases; normals correct on 2 of "
                                    "4. 3 causes behind the 3 cases that do not pass:");
  EXPECT_EQ(rows[cases.size() + 4], "  - `fail: L5: sparse=ignored` (1): `" + cases[0].id + "`");
  EXPECT_EQ(rows[cases.size() + 7].rfind("  - Normals wrong where the positions pass", 0), 0u) << rows[cases.size() + 7];
  EXPECT_EQ(rows[cases.size() + 8], "    - `N1: normals=blend-upper3x3` (1): `" + cases[4].id + "`");
  const std::string document = std::string("intro\n") + kTableBegin + "\n" + table + kTableEnd + "\nafter\n";
  EXPECT_EQ(table_in_document(document, "doc.md"), table);
  EXPECT_THROW(table_in_document("no markers\n", "doc.md"), InputError);
}

// docs/engines.md's history (conformance/engines_history.h): per engine, a row per release with its two tiers and
// the cases whose cell changed from the release before, each with its cause.
TEST(ConformanceRunner, EnginesHistoryFromReleases) {
  const std::vector<ConformanceCase>& cases = conformance_cases();
  Expectations older, newer, other;
  older.engine = "engine 1.0";
  newer.engine = "engine 1.1";
  other.engine = "other engine 3.2.1";
  for (const ConformanceCase& c : cases) {
    older.cases[c.id] = newer.cases[c.id] = other.cases[c.id] = {"pass", "", "correct", ""};
  }
  older.cases[cases[0].id] = {"fail", "S3: step=linear", "wrong", "S3: step=linear"};
  newer.cases[cases[1].id] = {"pass", "", "wrong", "N1: normals=blend-upper3x3"};
  const std::string history = engines_history({older, other, newer});
  std::istringstream lines(history);
  std::vector<std::string> rows;
  for (std::string line; std::getline(lines, line);) rows.push_back(line);
  const std::string total = std::to_string(cases.size());
  ASSERT_EQ(rows.size(), 12u);  // per engine a heading, a blank, a header, a rule and its rows; a blank between
  EXPECT_EQ(rows[0], "### engine");
  EXPECT_EQ(rows[4], "| 1.0 | " + std::to_string(cases.size() - 1) + " of " + total + " | " +
                         std::to_string(cases.size() - 1) + " of " + total + " | (the first release run) |");
  EXPECT_EQ(rows[5], "| 1.1 | " + total + " of " + total + " | " + std::to_string(cases.size() - 1) + " of " + total +
                         " | `" + cases[0].id + "`: fail: S3: step=linear → pass; `" + cases[1].id +
                         "`: pass → pass; normals wrong: N1: normals=blend-upper3x3 |");
  EXPECT_EQ(rows[7], "### other engine");
  EXPECT_EQ(rows[11], "| 3.2.1 | " + total + " of " + total + " | " + total + " of " + total + " | (the first release run) |");
  const std::string document = std::string("a\n") + kHistoryBegin + "\n" + history + kHistoryEnd + "\n";
  EXPECT_EQ(section_in_document(document, "doc.md", kHistoryBegin, kHistoryEnd), history);
  EXPECT_THROW(section_in_document("none\n", "doc.md", kHistoryBegin, kHistoryEnd), InputError);
}

// `skinref conformance history --update DOC` fills an empty section between its markers, leaves the rest of the
// document as it was, and --check then finds it current; a stale section fails --check with exit 1.
TEST(ConformanceRunner, HistoryCommandUpdatesAndChecksItsSection) {
  test::TempDir dir;
  Expectations release;
  release.engine = "engine 2.0";
  for (const ConformanceCase& c : conformance_cases()) release.cases[c.id] = {"pass", "", "correct", ""};
  RunRecord run;
  run.engine.name = "engine";
  run.engine.version = "2.0";
  std::vector<CaseVerdict> verdicts;
  for (const ConformanceCase& c : conformance_cases()) {
    CaseVerdict v;
    v.definition = &c;
    v.geometry.outcome = GeometryOutcome::Correct;
    verdicts.push_back(v);
  }
  const std::string expectations = dir.file("expected.json");
  std::ofstream(expectations) << expectations_json(run, verdicts).dump(2);
  const std::string doc = dir.file("doc.md");
  std::ofstream(doc) << "before\n" << kHistoryBegin << "\n" << kHistoryEnd << "\nafter\n";
  const test::CliRun update = test::run_cli(dir, {"conformance", "history", expectations, "--update", doc});
  EXPECT_EQ(update.exit_code, test::exit_codes::kExitOk) << update.err;
  EXPECT_EQ(read_text(doc), "before\n" + std::string(kHistoryBegin) + "\n" + engines_history({release}) + kHistoryEnd +
                                "\nafter\n");
  EXPECT_EQ(test::run_cli(dir, {"conformance", "history", expectations, "--check", doc}).exit_code,
            test::exit_codes::kExitOk);
  std::ofstream(doc) << kHistoryBegin << "\nstale\n" << kHistoryEnd << "\n";
  EXPECT_EQ(test::run_cli(dir, {"conformance", "history", expectations, "--check", doc}).exit_code,
            test::exit_codes::kExitComparisonFailed);
}

// The HTML report card in headless Chromium: the failing case first with its picture (reference, engine,
// difference) loaded, its departure named, its rule linked; the screenshot is a page, not a blank.
TEST(ConformanceRunner, HtmlReportCardInHeadlessChromium) {
  const std::string chromium = test::find_chromium();
  ASSERT_FALSE(chromium.empty()) << test::kChromiumMissing;
  test::TempDir dir, browser("browser");
  std::vector<CaseVerdict> verdicts = nlerp_fails_slerp_case(dir.path() / "planted");
  ASSERT_EQ(verdicts.size(), 1u);
  const CaseVerdict pass = a_passed_case();
  verdicts.push_back(pass);
  RunRecord run;
  run.engine.name = "nlerp engine";
  const fs::path card = dir.path() / "card";
  write_report_card(run, verdicts, card.string());
  const std::string page = (card / "report.html").string();
  ASSERT_EQ(test::run_headless_chromium(chromium, browser, page, "--dump-dom", browser.file("dom.html")), 0)
      << read_text(browser.file("chromium.log"));
  const std::string dom = read_text(browser.file("dom.html"));
  std::smatch match;
  ASSERT_TRUE(std::regex_search(dom, match, std::regex("data-images-loaded=\"([0-9]+)/([0-9]+)\"")))
      << dom.substr(0, 2000);
  EXPECT_EQ(match[2].str(), "1");
  EXPECT_EQ(match[1].str(), match[2].str()) << "the picture did not load";
  const size_t failing = dom.find("<tr class=\"fail\" id=\"rotation-linear-slerp\">");
  const size_t passing = dom.find("<tr class=\"pass\" id=\"" + pass.definition->id + "\">");
  ASSERT_NE(failing, std::string::npos) << dom.substr(0, 3000);
  ASSERT_NE(passing, std::string::npos) << dom.substr(0, 3000);
  EXPECT_LT(failing, passing);
  EXPECT_NE(dom.find("S2: rotation=", failing), std::string::npos);
  EXPECT_NE(dom.find("href=\"#rule-rotation-linear-slerp\""), std::string::npos);
  EXPECT_NE(dom.find("glTF-2.0.html#interpolation-slerp"), std::string::npos);
  // The picture: three panels of 256 pixels, the two renders differ (nlerp turns the ribbon less).
  const RgbaImage figure = read_png((card / "images" / "rotation-linear-slerp.png").string());
  EXPECT_GE(figure.width, 3 * 256);
  const std::string shot = browser.file("page.png");
  ASSERT_EQ(test::run_headless_chromium(chromium, browser, page, "--screenshot=" + test::shell_quoted(shot),
                                        browser.file("screenshot.log")), 0);
  const RgbaImage screenshot = read_png(shot);
  std::set<uint32_t> colours;
  for (size_t p = 0; p + 3 < screenshot.pixels.size(); p += 4)
    colours.insert(uint32_t(screenshot.pixels[p]) << 16 | uint32_t(screenshot.pixels[p + 1]) << 8 |
                   screenshot.pixels[p + 2]);
  EXPECT_GT(colours.size(), 50u) << "the screenshot is nearly blank";
}

// Inputs that lie: a dump holding NaN is refused naming it; a dump that records another model is refused; a
// dump of another time is told apart from a skinning error, by diagnose and by the runner.
TEST(ConformanceRunner, InputsThatLieAreToldApart) {
  test::TempDir dir;
  const auto model = [](const std::string& id) {
    return std::string(SKINREF_CONFORMANCE_DIR) + "/cases/" + id + "/" + id + ".gltf";
  };
  const std::string slerp = model("rotation-linear-slerp");
  const std::string bend = model("step-translation-rotation");
  // A dump of 0.75 s, its record stripped as an engine's would be (no time, no model).
  const Scene scene = load_gltf_file(slerp);
  VertexDump dump;
  dump.precision = DumpPrecision::F32;
  dump.primitives = evaluate_vertices(scene, evaluate_pose(scene, 0, 0.75), SkinningOptions{});
  const std::string late = dir.file("late.skv");
  write_vertex_dump(scene, dump, late);
  const test::CliRun wrong_time = test::run_cli(dir, {"diagnose", slerp, late, "--time", "0.5"});
  EXPECT_NE(wrong_time.out.find("matches t = 0.75, not the t = 0.5 given"), std::string::npos) << wrong_time.out;

  // NaN in a position: exit 2, naming where.
  dump.primitives[0].vertices.positions[3].y() = std::numeric_limits<double>::quiet_NaN();
  const std::string nan = dir.file("nan.skv");
  write_vertex_dump(scene, dump, nan);
  const test::CliRun refused = test::run_cli(dir, {"diagnose", slerp, nan, "--time", "0.75"});
  EXPECT_EQ(refused.exit_code, test::exit_codes::kExitBadInput);
  EXPECT_NE(refused.err.find("NaN in its position of vertex 3, component 1"), std::string::npos) << refused.err;

  // A dump that records another model (skinref skin records its name): refused.
  const std::string other = dir.file("other.skv");
  ASSERT_EQ(test::run_cli(dir, {"skin", bend, "--time", "0.5", "--out", other}).exit_code, 0);
  const test::CliRun another_model = test::run_cli(dir, {"diagnose", slerp, other, "--time", "0.5"});
  EXPECT_EQ(another_model.exit_code, test::exit_codes::kExitBadInput);
  EXPECT_NE(another_model.err.find("step-translation-rotation"), std::string::npos) << another_model.err;

  // The runner: an engine whose clock runs at half speed plays t / 2 for every t.
  EngineSpec engine{"half clock", "", "", "", 60.0, 2};
  engine.query_command = std::string(SKINREF_CLI) +
                         " skin {model} --time $(python3 -c 'import sys; print(float(sys.argv[1]) / 2)' {time})"
                         " --precision f32 --out {out}";
  const std::vector<CaseVerdict> verdicts = judge_run(
      run_engine(engine, suite_queries(SKINREF_CONFORMANCE_DIR, dir.path().string(), "rotation-linear-slerp"),
                 dir.path().string(), kRunOnTheSuite));
  ASSERT_EQ(verdicts.size(), 1u);
  EXPECT_EQ(verdicts[0].outcome, CaseOutcome::Failed);
  EXPECT_NE(verdicts[0].departure.find("another time"), std::string::npos)
      << verdicts[0].departure << verdicts[0].detail;
}

}  // namespace SKINREF_UNITY_ID
}  // namespace skinref
