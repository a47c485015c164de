// The conformance suite (tools/conformance/): every case loads, every departure a case can plant fails it by
// at least kMinimumSensitivity times the bound, and the expected outputs agree with closed-form values
// computed here from the cases' own numbers (rotations about z of a chain along x), not from the reference.
// The files are written atomically, the check sees a changed byte and a stray file, and generation is
// deterministic.
#include "conformance/suite.h"
#include "support/temp_dir.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>

namespace skinref {
inline namespace SKINREF_UNITY_ID {  // unnamed, or the file's own in a unity build (CMakeLists.txt)

using conformance::ConformanceCase;
using conformance::GeneratedCase;

constexpr double kPi = 3.14159265358979323846;
// The closed forms below use double-precision angles; the cases store their quaternions and positions in
// float32, so the reference differs from them by float32 rounding of unit-sized values over a 12 m lever.
constexpr double kClosedFormTolerance = 1e-5;

const ConformanceCase& find_case(const std::string& id) {
  for (const ConformanceCase& c : conformance::conformance_cases())
    if (c.id == id) return c;
  throw std::runtime_error("no case " + id);
}

// The expected positions of primitive `primitive` at the case's time index `t`.
std::vector<Vec3> expected_positions(const GeneratedCase& generated, size_t t, size_t primitive = 0) {
  const nlohmann::json expected = nlohmann::json::parse(generated.expected);
  std::vector<Vec3> positions;
  for (const auto& p : expected["times"][t]["primitives"][primitive]["positions"])
    positions.emplace_back(p[0].get<double>(), p[1].get<double>(), p[2].get<double>());
  return positions;
}

size_t time_index(const ConformanceCase& c, double time) {
  for (size_t i = 0; i < c.times.size(); ++i)
    if (c.times[i] == time) return i;
  throw std::runtime_error(c.id + ": no time " + std::to_string(time));
}

Vec3 rotate_z(const Vec3& p, double degrees) {
  const double a = degrees * kPi / 180.0;
  return {std::cos(a) * p.x() - std::sin(a) * p.y(), std::sin(a) * p.x() + std::cos(a) * p.y(), p.z()};
}

// The two tip vertices of the ribbon (the last station, bound to the chain's last joint alone).
void expect_tip(const std::vector<Vec3>& positions, const Vec3& tip_minus_y, const Vec3& tip_plus_y,
                const std::string& what) {
  ASSERT_GE(positions.size(), 2u);
  const Vec3& a = positions[positions.size() - 2];
  const Vec3& b = positions[positions.size() - 1];
  EXPECT_LT((a - tip_minus_y).norm(), kClosedFormTolerance) << what << ": " << a.transpose();
  EXPECT_LT((b - tip_plus_y).norm(), kClosedFormTolerance) << what << ": " << b.transpose();
}

TEST(ConformanceSuite, HasCasesForEverySpecificationArea) {
  const auto& cases = conformance::conformance_cases();
  EXPECT_GE(cases.size(), 20u);
  size_t skins = 0, morph = 0, animation = 0;
  for (const ConformanceCase& c : cases) {
    if (c.section.rfind("3.7.3", 0) == 0 || c.section.rfind("5.28", 0) == 0 || c.section.rfind("3.5", 0) == 0) ++skins;
    if (c.section.rfind("3.7.2.2", 0) == 0 || c.section.rfind("3.7.4", 0) == 0) ++morph;
    if (c.section.rfind("3.11", 0) == 0 || c.section.rfind("C.", 0) == 0) ++animation;
  }
  EXPECT_GE(skins, 5u);
  EXPECT_GE(morph, 3u);
  EXPECT_GE(animation, 5u);
}

TEST(ConformanceSuite, EveryPlantedDepartureFailsItsCaseFarAboveTheBound) {
  size_t planted = 0;
  for (const ConformanceCase& c : conformance::conformance_cases()) {
    const GeneratedCase generated = conformance::generate_case(c);
    ASSERT_EQ(generated.sensitivities.size(), c.targets.size()) << c.id;
    for (const conformance::Sensitivity& s : generated.sensitivities) {
      if (s.conventions.empty()) continue;  // a class skinref cannot plant yet: listed, not measured
      ++planted;
      std::printf("[ measured ] %-40s %-3s error/bound %.3g at t=%g\n", c.id.c_str(), s.departure.c_str(), s.ratio,
                  s.time);
      if (s.below_minimum_reason.empty())
        EXPECT_GE(s.ratio, conformance::kMinimumSensitivity) << c.id << " " << s.departure;
      else
        EXPECT_GT(s.ratio, 1.0) << c.id << " " << s.departure << " (" << s.below_minimum_reason << ")";
    }
  }
  EXPECT_GE(planted, 20u);
}

TEST(ConformanceSuite, SlerpCaseMatchesTheClosedForm) {
  // Root turned from 0 to 150 degrees over [0, 1] s, LINEAR: slerp at s turns by 150 s degrees.
  const ConformanceCase& c = find_case("rotation-linear-slerp");
  const GeneratedCase generated = conformance::generate_case(c);
  for (double time : {0.25, 0.5, 0.75}) {
    const std::vector<Vec3> p = expected_positions(generated, time_index(c, time));
    expect_tip(p, rotate_z({12, -0.5, 0}, 150 * time), rotate_z({12, 0.5, 0}, 150 * time), c.id);
  }
}

TEST(ConformanceSuite, LateChannelClampsToItsFirstKeyBeforeIt) {
  // Keys 20 degrees at 1 s and 110 degrees at 2 s: 20 before 1 s, 65 at 1.5 s, 110 after 2 s.
  const ConformanceCase& c = find_case("channel-starts-after-zero");
  const GeneratedCase generated = conformance::generate_case(c);
  for (auto [time, degrees] : {std::pair{0.0, 20.0}, {0.5, 20.0}, {1.5, 65.0}, {3.0, 110.0}}) {
    const std::vector<Vec3> p = expected_positions(generated, time_index(c, time));
    expect_tip(p, rotate_z({12, -0.5, 0}, degrees), rotate_z({12, 0.5, 0}, degrees), c.id);
  }
}

TEST(ConformanceSuite, StepCaseTakesTheKeyAtItsOwnTime) {
  // At exactly 0.5 s: root translated by (0, 3, 0) and joint 1 turned 70 degrees; the tip is 8 m from joint 1
  // (joint 2 at 4 m, the tip 4 m beyond it).
  const ConformanceCase& c = find_case("step-translation-rotation");
  const GeneratedCase generated = conformance::generate_case(c);
  const std::vector<Vec3> p = expected_positions(generated, time_index(c, 0.5));
  const Vec3 joint1(4, 3, 0);
  expect_tip(p, joint1 + rotate_z({8, -0.5, 0}, 70), joint1 + rotate_z({8, 0.5, 0}, 70), c.id);
}

TEST(ConformanceSuite, MissingInverseBindMatricesAreIdentities) {
  // No inverse bind matrices: the tip vertex (12, +-0.5, 0) is carried by joint 2's whole rest transform,
  // T(2, 1, 0) R_z(30) T(8, 0, 0), at t = 0 (joint 1 not yet turned).
  const ConformanceCase& c = find_case("skin-without-inverse-bind-matrices");
  const GeneratedCase generated = conformance::generate_case(c);
  const std::vector<Vec3> p = expected_positions(generated, time_index(c, 0.0));
  const Vec3 origin(2, 1, 0);
  expect_tip(p, origin + rotate_z({8 + 12, -0.5, 0}, 30), origin + rotate_z({8 + 12, 0.5, 0}, 30), c.id);
}

TEST(ConformanceSuite, SkinnedMeshNodeTransformIsIgnored) {
  // At t = 0 every joint is at its bind pose: the ribbon is where its positions put it, whatever the mesh
  // node and its parent do.
  const ConformanceCase& c = find_case("skinned-mesh-node-transform-ignored");
  const GeneratedCase generated = conformance::generate_case(c);
  const std::vector<Vec3> p = expected_positions(generated, time_index(c, 0.0));
  expect_tip(p, {12, -0.5, 0}, {12, 0.5, 0}, c.id);
}

TEST(ConformanceSuite, MorphIsAppliedBeforeSkinning) {
  // At 1 s the single target has weight 1 and the root has turned 90 degrees: the morphed rest position,
  // turned. The ribbon has 3 joints x 2 stations + 1 = 7 stations of two vertices: the tip pair is 12 and 13.
  // The one target moves vertex v by (1.5 cos(0.3 v), 3 sin(0.3 v), 0).
  const ConformanceCase& c = find_case("morph-before-skinning");
  const GeneratedCase generated = conformance::generate_case(c);
  const std::vector<Vec3> p = expected_positions(generated, time_index(c, 1.0));
  ASSERT_EQ(p.size(), 14u);
  for (size_t v : {12u, 13u}) {
    const Vec3 rest(12, v == 12 ? -0.5 : 0.5, 0);
    const Vec3 delta(1.5 * std::cos(0.3 * double(v)), 3.0 * std::sin(0.3 * double(v)), 0.0);
    EXPECT_LT((p[v] - rotate_z(rest + delta, 90)).norm(), kClosedFormTolerance) << p[v].transpose();
  }
}

TEST(ConformanceSuite, KeysAFewMillisecondsApartAreNotBlurred) {
  // Root translation keys (0,0,0) at 0 and 0.5 s, (0,3,0) at 0.50390625 s, (1,3,0) at 1 s: at the third key
  // the whole ribbon is 3 m up, and 0.01171875 s later it has moved 0.01171875 / 0.49609375 m along x.
  const ConformanceCase& c = find_case("keys-a-few-milliseconds-apart");
  const GeneratedCase generated = conformance::generate_case(c);
  for (auto [time, x] : {std::pair{0.50390625, 0.0}, {0.515625, 0.01171875 / 0.49609375}}) {
    const std::vector<Vec3> p = expected_positions(generated, time_index(c, time));
    expect_tip(p, Vec3(12 + x, 2.5, 0), Vec3(12 + x, 3.5, 0), c.id);
  }
}

TEST(ConformanceSuite, SingleKeyChannelsHoldTheirKeyAtEveryTime) {
  // At 0 s, before every key: joint 0 turned 30 degrees and moved to (1, 2, 0) (a LINEAR and a STEP key), joint
  // 2 turned -50 (a STEP key), joint 1 at its first key, 0. The tip is 4 m past
  // joint 2, which is 8 m along joint 0's x.
  const ConformanceCase& c = find_case("single-key-channels");
  const GeneratedCase generated = conformance::generate_case(c);
  const std::vector<Vec3> p = expected_positions(generated, time_index(c, 0.0));
  const Vec3 root(1, 2, 0);
  auto tip = [&](double y) -> Vec3 { return root + rotate_z(Vec3(8, 0, 0) + rotate_z({4, y, 0}, -50), 30); };
  expect_tip(p, tip(-0.5), tip(0.5), c.id);
}

TEST(ConformanceSuite, MeshOnTheRootJointMovesWithItOnce) {
  // At 1 s the root joint, which carries the mesh, is at (1.5, 2, 0) turned 50 degrees, and joint 2 is turned
  // -60: the tip follows the joints alone, the mesh node's transform not applied a second time.
  const ConformanceCase& c = find_case("mesh-node-is-an-animated-joint");
  const GeneratedCase generated = conformance::generate_case(c);
  const std::vector<Vec3> p = expected_positions(generated, time_index(c, 1.0));
  auto tip = [](double y) -> Vec3 { return Vec3(1.5, 2, 0) + rotate_z(Vec3(8, 0, 0) + rotate_z({4, y, 0}, -60), 50); };
  expect_tip(p, tip(-0.5), tip(0.5), c.id);
}

TEST(ConformanceSuite, UnanimatedScaleKeepsItsRestValue) {
  // Bind: joint 0 scaled S = (1.5, 0.75, 1), joint 2 8 m along it turned -25 degrees. The tip (12, +-0.5) is
  // (0, +-0.5 / 0.75) from joint 2 in the scaled frame; at 1 s joint 2's scale is 1.5 (the -25 degrees kept),
  // which takes it to (0, +-1); S and joint 0's 40 degrees map (8, +-1, 0) to R(40) (12, +-0.75, 0).
  const ConformanceCase& c = find_case("unanimated-scale-keeps-rest");
  const GeneratedCase generated = conformance::generate_case(c);
  const std::vector<Vec3> p = expected_positions(generated, time_index(c, 1.0));
  expect_tip(p, rotate_z({12, -0.75, 0}, 40), rotate_z({12, 0.75, 0}, 40), c.id);
}

TEST(ConformanceSuite, WrittenSuiteChecksEqualAndChangesAreFound) {
  const conformance::GeneratedSuite suite = conformance::generate_suite();
  test::TempDir dir;
  conformance::write_suite(suite, dir.path().string());
  EXPECT_TRUE(conformance::check_suite(suite, dir.path().string()).empty());
  // Generating again gives the same bytes (deterministic).
  const conformance::GeneratedSuite again = conformance::generate_suite();
  EXPECT_EQ(again.files, suite.files);
  // A changed byte, a missing file and a stray file are each reported.
  const std::string first = suite.files.begin()->first;
  std::filesystem::remove(dir.path() / first);
  { std::ofstream(dir.path() / "stray.txt") << "x"; }
  const std::filesystem::path manifest = dir.path() / "suite.json";
  { std::ofstream(manifest, std::ios::app) << " "; }
  const std::vector<std::string> differences = conformance::check_suite(suite, dir.path().string());
  ASSERT_EQ(differences.size(), 3u);
  std::string all;
  for (const std::string& d : differences) all += d + "\n";
  EXPECT_NE(all.find(first + ": missing"), std::string::npos) << all;
  EXPECT_NE(all.find("suite.json: differs"), std::string::npos) << all;
  EXPECT_NE(all.find("stray.txt: not a file of the suite"), std::string::npos) << all;
}

}  // namespace SKINREF_UNITY_ID
}  // namespace skinref
