// libFuzzer target `pose_dump`: the pose dump reader (io/pose_dump.h), as compare and bisect use it.
//
// Contract: the bytes are written to a per-process temp file NAME.json; read_pose_dump_source(),
// read_pose_dump_writer() and read_pose_dump_recipe() read it, then read_pose_dump() reads it against a
// built-in scene: the one its "source" names when that is builtin:twist, bend, chain64, eight-influences or
// node-transforms, else builtin:bend (the scenes are built once per process). Bound on work per input: four
// reads of the file; the largest scene has 66 nodes. Outcome policy: fuzz_common.h.
#include "fuzz_common.h"

#include "io/builtin_scenes.h"
#include "io/pose_dump.h"

#include <map>
#include <string>

namespace {

const skinref::Scene& scene_for(const std::string& source) {
  static const std::map<std::string, skinref::Scene> scenes = [] {
    std::map<std::string, skinref::Scene> made;
    for (const char* name : {"twist", "bend", "chain64", "eight-influences", "node-transforms"}) {
      made.emplace(std::string("builtin:") + name, skinref::make_builtin_scene(name));
    }
    return made;
  }();
  const auto found = scenes.find(source);
  return found != scenes.end() ? found->second : scenes.at("builtin:bend");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace skinref;
  static fuzz::TempFile file("pose_dump", ".json");
  const std::string& path = file.write(data, size);
  std::string source;
  fuzz::run_guarded([&] { source = read_pose_dump_source(path); });
  fuzz::run_guarded([&] { read_pose_dump_writer(path); });
  fuzz::run_guarded([&] { read_pose_dump_recipe(path); });
  fuzz::run_guarded([&] {
    std::string read_source;
    int digits = 0;
    read_pose_dump(path, scene_for(source), &read_source, &digits);
  });
  return 0;
}
