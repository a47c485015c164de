#include "conformance/departure_classes.h"

#include <algorithm>

namespace skinref::conformance {

const std::vector<std::pair<std::string, std::string>>& departure_classes() {
  static const std::vector<std::pair<std::string, std::string>> kClasses{
      {"L1", "normalized integer weights decoded wrongly"},
      {"L2", "accessor addressing"},
      {"L3", "one influence set read"},
      {"L4", "missing inverse bind matrices not taken as identities"},
      {"L5", "sparse accessors ignored"},
      {"L6", "node.matrix ignored or decomposed lossily"},
      {"L7", "channel target resolved by name"},
      {"T1", "before the first key"},
      {"T2", "at and after the last key"},
      {"T3", "resampled on a fixed grid"},
      {"S1", "quaternion hemisphere not checked"},
      {"S2", "nlerp instead of slerp"},
      {"S3", "STEP interpolation wrong"},
      {"S4", "CUBICSPLINE Hermite math wrong"},
      {"S5", "CUBICSPLINE unsupported or degraded"},
      {"S6", "CUBICSPLINE rotation not renormalized"},
      {"S7", "CUBICSPLINE morph weights read per target"},
      {"S8", "lossy key reduction or quantized keys"},
      {"M1", "ancestors above the skeleton dropped"},
      {"M2", "rest values wrong"},
      {"M3", "shear lost"},
      {"P1", "skinned mesh node's transform applied"},
      {"P2", "palette truncated at a joint cap"},
      {"P3", "JOINTS index space confused"},
      {"G1", "default morph weights ignored"},
      {"G2", "only k targets active at once"},
      {"G3", "morph normal and tangent deltas ignored"},
      {"G4", "morph applied after skinning"},
      {"G5", "negative morph weights clamped"},
      {"K1", "weight policy"},
      {"N1", "normals skinned without the inverse transpose"},
      {"R1", "culling with bind-pose bounds"}};
  return kClasses;
}

std::string departure_class_title(const std::string& code) {
  for (const auto& [known, title] : departure_classes())
    if (known == code) return title;
  return "";
}

std::vector<std::string> class_codes_in(const std::string& departure) {
  std::vector<std::string> codes;
  const size_t colon = departure.find(':');
  if (colon == std::string::npos) return codes;
  size_t at = 0;
  while (at < colon) {
    const size_t end = std::min(departure.find(',', at), colon);
    std::string code = departure.substr(at, end - at);
    code.erase(0, code.find_first_not_of(' '));
    code.erase(code.find_last_not_of(' ') + 1);
    if (departure_class_title(code).empty()) return {};  // the text before the colon is not a list of classes
    codes.push_back(code);
    at = end + 1;
  }
  return codes;
}

}  // namespace skinref::conformance
