// The Conventions value (reference/core/conventions.h): glTF 2.0 by default, every field's spelling round trips,
// bad names and values are refused naming what is allowed, the JSON form round trips and refuses unknown keys.
#include "core/conventions.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <set>
#include <stdexcept>
#include <string>

namespace skinref {
inline namespace SKINREF_UNITY_ID {  // unnamed, or the file's own in a unity build (CMakeLists.txt)

std::string error_of(const std::function<void()>& action) {
  try {
    action();
  } catch (const std::invalid_argument& error) {
    return error.what();
  }
  return "";
}

TEST(ConventionsTest, TheDefaultIsTheSpecification) {
  const Conventions gltf;
  EXPECT_TRUE(convention_differences(gltf).empty());
  EXPECT_EQ(describe_conventions(gltf), "glTF 2.0");
  EXPECT_TRUE(same_conventions(gltf, Conventions{}));
}

TEST(ConventionsTest, EveryFieldHasAUniqueNameAStageAndCandidatesThatRoundTrip) {
  std::set<std::string> names;
  const Conventions gltf;
  for (const ConventionField& field : convention_fields()) {
    SCOPED_TRACE(field.name);
    EXPECT_TRUE(names.insert(field.name).second) << "the name is used twice";
    EXPECT_NE(std::string(field.stage), "");
    EXPECT_NE(std::string(field.summary), "");
    EXPECT_EQ(find_convention_field(field.name), &field);
    // The default's spelling sets the default; every candidate sets a value that reads back as itself.
    Conventions c;
    field.set(c, field.get(gltf));
    EXPECT_TRUE(same_conventions(c, gltf));
    for (const std::string& value : field.candidates) {
      Conventions changed;
      set_convention(changed, std::string(field.name) + "=" + value);
      EXPECT_EQ(field.get(changed), value);
      EXPECT_EQ(convention_differences(changed), std::vector<std::string>{std::string(field.name) + "=" + value});
    }
  }
  EXPECT_EQ(find_convention_field("no-such-convention"), nullptr);
}

TEST(ConventionsTest, ParsedValuesLandInTheirFields) {
  Conventions c;
  set_convention(c, "influences=top4-renormalized");
  EXPECT_EQ(c.load.influences, InfluenceLimit::Largest);
  EXPECT_EQ(c.load.influence_count, 4);
  EXPECT_TRUE(c.load.renormalize_limited);
  set_convention(c, "influences=first-set");
  EXPECT_EQ(c.load.influences, InfluenceLimit::FirstSet);
  EXPECT_FALSE(c.load.renormalize_limited);
  set_convention(c, "resample=30");
  EXPECT_EQ(c.sampling.resample_hz, 30.0);
  set_convention(c, "morph-targets=0");  // morph targets unsupported
  EXPECT_EQ(c.morph.max_targets, 0);
  set_convention(c, "morph-targets=all");
  EXPECT_EQ(c.morph.max_targets, kEveryMorphTarget);
  set_convention(c, "morph-targets=4");
  EXPECT_EQ(c.morph.max_targets, 4);
  set_convention(c, "joint-sentinel=-1");
  EXPECT_EQ(c.load.joint_sentinel, JointSentinel::AllOnes);
  set_convention(c, "normalize=no");
  EXPECT_FALSE(c.skinning.normalize);
  set_convention(c, "rotation=nlerp");
  set_convention(c, "normals=blend-normal-matrices");
  // Described in pipeline order, whatever the order they were set in.
  EXPECT_EQ(describe_conventions(c),
            "glTF 2.0 with joint-sentinel=-1, influences=first-set, rotation=nlerp, resample=30, morph-targets=4, "
            "normals=blend-normal-matrices, normalize=no");
}

TEST(ConventionsTest, BadAssignmentsAreRefusedNamingWhatIsAllowed) {
  Conventions c;
  EXPECT_NE(error_of([&] { set_convention(c, "rotation"); }).find("NAME=VALUE"), std::string::npos);
  EXPECT_NE(error_of([&] { set_convention(c, "=slerp"); }).find("NAME=VALUE"), std::string::npos);
  const std::string unknown = error_of([&] { set_convention(c, "rotations=slerp"); });
  EXPECT_NE(unknown.find("unknown convention 'rotations'"), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("rotation"), std::string::npos) << unknown;
  const std::string value = error_of([&] { set_convention(c, "rotation=squad"); });
  EXPECT_NE(value.find("slerp|nlerp|lerp"), std::string::npos) << value;
  for (const char* bad : {"influences=top0", "influences=top17", "influences=topx", "influences=all-renormalized",
                          "resample=0", "resample=1e9", "resample=nan", "morph-targets=-1", "morph-targets=-2",
                          "normalize=true"})
    EXPECT_NE(error_of([&] { set_convention(c, bad); }), "") << bad;
  EXPECT_TRUE(same_conventions(c, Conventions{})) << "a refused assignment changes nothing";
}

TEST(ConventionsTest, JsonRoundTripsAndRefusesUnknownKeys) {
  Conventions c;
  set_convention(c, "rotation=nlerp");
  set_convention(c, "influences=top2");
  const nlohmann::ordered_json json = conventions_to_json(c);
  EXPECT_EQ(json.size(), convention_fields().size());
  EXPECT_EQ(json["rotation"], "nlerp");
  EXPECT_TRUE(same_conventions(conventions_from_json(json), c));
  // A subset: the rest are glTF's.
  const Conventions subset = conventions_from_json(nlohmann::ordered_json{{"weights", "l2"}});
  EXPECT_EQ(convention_differences(subset), std::vector<std::string>{"weights=l2"});
  EXPECT_NE(error_of([] { conventions_from_json(nlohmann::ordered_json{{"bogus", "x"}}); }).find("bogus"),
            std::string::npos);
  EXPECT_NE(error_of([] { conventions_from_json(nlohmann::ordered_json{{"rotation", 3}}); }).find("string"),
            std::string::npos);
  EXPECT_NE(error_of([] { conventions_from_json(nlohmann::ordered_json::array()); }), "");
}

}  // namespace
}  // namespace skinref
