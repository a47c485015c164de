#include "gpu/interface_json.h"

#include <fstream>
#include <sstream>

namespace skinref::gpu {

Json read_interface_json(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, "", "a readable shader interface file (JSON)");
  std::stringstream text;
  text << in.rdbuf();
  try {
    return Json::parse(text.str());
  } catch (const Json::parse_error& error) {
    throw InputError(path, "", std::string("valid JSON: ") + error.what());
  }
}

std::string interface_stage(const std::string& path) {
  const Json json = read_interface_json(path);
  if (!json.is_object()) throw InputError(path, "/", "a JSON object");
  const auto stage = json.find("stage");
  if (stage == json.end()) return "compute";
  if (!stage->is_string() || (*stage != "compute" && *stage != "vertex"))
    throw InputError(path, "/stage", "\"compute\" or \"vertex\", got " + stage->dump());
  return stage->get<std::string>();
}

}  // namespace skinref::gpu
