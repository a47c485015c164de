#include "conformance/case_kit.h"

#include <cmath>
#include <stdexcept>

namespace skinref::conformance {

std::vector<double> concat(const std::vector<std::vector<double>>& parts) {
  std::vector<double> all;
  for (const std::vector<double>& part : parts) all.insert(all.end(), part.begin(), part.end());
  return all;
}

Mat4 trs_matrix(const Vec3& translation, const std::vector<double>& rotation_xyzw, const Vec3& scale) {
  Transform trs;
  trs.translation = translation;
  trs.rotation = quat_from_xyzw(rotation_xyzw[0], rotation_xyzw[1], rotation_xyzw[2], rotation_xyzw[3]);
  trs.scale = scale;
  return compose_trs(trs);
}

ChannelSpec swing(int node, double from, double to) {
  return {node, "rotation", "LINEAR", {0.0, 1.0},
          concat({axis_angle_xyzw(kAxisZ, degrees(from)), axis_angle_xyzw(kAxisZ, degrees(to))})};
}

std::vector<double> axis_angle_xyzw(const Vec3& axis, double angle) {
  const Vec3 unit = axis.normalized();
  const double s = std::sin(0.5 * angle);
  return {f32(unit.x() * s), f32(unit.y() * s), f32(unit.z() * s), f32(std::cos(0.5 * angle))};
}

nlohmann::ordered_json trs_node(const std::string& name, const Vec3& translation,
                                const std::vector<double>& rotation_xyzw, const Vec3& scale) {
  nlohmann::ordered_json node = {{"name", name}};
  if (translation != Vec3::Zero()) node["translation"] = f32_array({translation.x(), translation.y(), translation.z()});
  if (rotation_xyzw != std::vector<double>{0, 0, 0, 1}) node["rotation"] = f32_array(rotation_xyzw);
  if (scale != Vec3::Ones()) node["scale"] = f32_array({scale.x(), scale.y(), scale.z()});
  return node;
}

Chain add_chain(GltfBuilder& builder, const std::string& prefix, int count, double segment,
                const Vec3& root_translation) {
  Chain chain;
  for (int k = 0; k < count; ++k) {
    const Vec3 translation = k == 0 ? root_translation : Vec3(segment, 0, 0);
    chain.joints.push_back(builder.add_node(trs_node(prefix + std::to_string(k), translation)));
    if (k > 0) builder.json()["nodes"][size_t(chain.joints[size_t(k) - 1])]["children"] = {chain.joints.back()};
  }
  return chain;
}

Ribbon make_ribbon(int joints, double segment, int stations_per_segment, double half_width, bool blend) {
  Ribbon ribbon;
  const int stations = joints * stations_per_segment + 1;
  const double length = joints * segment;
  for (int s = 0; s < stations; ++s) {
    const double x = f32(length * s / (stations - 1));
    // The segment the station lies in (the last station belongs to the last joint), and where in it.
    const int joint = std::min(joints - 1, int(std::floor(x / segment)));
    const double along = x / segment - joint;
    double next_weight = 0.0;
    if (blend && joint + 1 < joints && along > 0.25) next_weight = f32(std::min(1.0, (along - 0.25) / 0.5));
    for (double y : {-half_width, half_width}) {
      ribbon.positions.insert(ribbon.positions.end(), {x, f32(y), 0.0});
      ribbon.normals.insert(ribbon.normals.end(), {0.0, 0.0, 1.0});
      ribbon.joints.insert(ribbon.joints.end(), {double(joint), double(std::min(joint + 1, joints - 1)), 0.0, 0.0});
      // 1 - w is exact in float32 for w in [0.5, 1] and w a float32 (Sterbenz); for w < 0.5 both are stored
      // as float32 and their float32 sum is 1 to within one rounding, as glTF asks.
      ribbon.weights.insert(ribbon.weights.end(), {f32(1.0 - next_weight), next_weight, 0.0, 0.0});
    }
  }
  for (uint32_t s = 0; s + 1 < uint32_t(stations); ++s) {
    const uint32_t a = 2 * s, b = a + 1, c = a + 2, d = a + 3;  // a, c at -y; b, d at +y
    ribbon.indices.insert(ribbon.indices.end(), {a, c, d, a, d, b});
  }
  return ribbon;
}

std::vector<double> inverse_bind_values(const std::vector<Mat4>& global_rest) {
  std::vector<double> values;
  for (const Mat4& global : global_rest) {
    const Mat4 inverse = global.inverse();
    for (int c = 0; c < 4; ++c)
      for (int r = 0; r < 4; ++r) values.push_back(f32(inverse(r, c)));
  }
  return values;
}

std::vector<Mat4> chain_rest_globals(int count, double segment, const Mat4& root_global) {
  std::vector<Mat4> globals;
  Mat4 global = root_global;
  for (int k = 0; k < count; ++k) {
    if (k > 0) {
      Mat4 step = Mat4::Identity();
      step(0, 3) = f32(segment);
      global = global * step;
    }
    globals.push_back(global);
  }
  return globals;
}

nlohmann::ordered_json skinned_primitive(GltfBuilder& builder, const std::string& name, const Ribbon& ribbon,
                                         const std::vector<InfluenceSet>& sets, const AccessorLayout& position_layout,
                                         const AccessorLayout& normal_layout) {
  nlohmann::ordered_json attributes;
  attributes["POSITION"] = builder.add_positions(name + " positions", ribbon.positions, position_layout);
  attributes["NORMAL"] = builder.add_accessor(name + " normals", "VEC3", ribbon.normals, normal_layout);
  for (size_t s = 0; s < sets.size(); ++s) {
    const std::string n = std::to_string(s);
    attributes["JOINTS_" + n] =
        builder.add_accessor(name + " joints " + n, "VEC4", sets[s].joints, sets[s].joint_layout,
                             sets[s].joint_sparse);
    attributes["WEIGHTS_" + n] =
        builder.add_accessor(name + " weights " + n, "VEC4", sets[s].weights, sets[s].weight_layout,
                             sets[s].weight_sparse);
  }
  return {{"attributes", attributes}, {"indices", builder.add_indices(name + " indices", ribbon.indices)}};
}

nlohmann::ordered_json skinned_ribbon_primitive(GltfBuilder& builder, const std::string& name,
                                                const Ribbon& ribbon) {
  return skinned_primitive(builder, name, ribbon, {InfluenceSet{ribbon.joints, ribbon.weights}});
}

int add_ribbon_mesh(GltfBuilder& builder, const std::string& name, const Ribbon& ribbon) {
  return builder.add_mesh({{"name", name}, {"primitives", {skinned_ribbon_primitive(builder, name, ribbon)}}});
}

int add_skin(GltfBuilder& builder, const std::string& name, const std::vector<int>& joints,
             const std::vector<Mat4>& rest_globals, int skeleton) {
  nlohmann::ordered_json skin = {{"name", name}};
  if (!rest_globals.empty())
    skin["inverseBindMatrices"] =
        builder.add_accessor(name + " inverse bind matrices", "MAT4", inverse_bind_values(rest_globals));
  skin["joints"] = joints;
  if (skeleton >= 0) skin["skeleton"] = skeleton;
  return builder.add_skin(skin);
}

int add_animation(GltfBuilder& builder, const std::string& name, const std::vector<ChannelSpec>& channels,
                  const AccessorLayout& output_layout) {
  nlohmann::ordered_json samplers = nlohmann::ordered_json::array();
  nlohmann::ordered_json targets = nlohmann::ordered_json::array();
  for (const ChannelSpec& channel : channels) {
    const std::string what = name + " " + channel.path + " of node " + std::to_string(channel.node);
    const size_t input = size_t(builder.add_times(what + " times", channel.times));
    const size_t components = channel.path == "rotation" ? 4 : channel.path == "weights" ? 1 : 3;
    const char* type = components == 4 ? "VEC4" : components == 3 ? "VEC3" : "SCALAR";
    const size_t output = size_t(builder.add_accessor(what + " values", type, channel.values, output_layout));
    samplers.push_back({{"input", input}, {"interpolation", channel.interpolation}, {"output", output}});
    targets.push_back({{"sampler", samplers.size() - 1}, {"target", {{"node", channel.node}, {"path", channel.path}}}});
  }
  return builder.add_animation({{"name", name}, {"channels", targets}, {"samplers", samplers}});
}

int add_ribbon_skin(GltfBuilder& builder, const std::vector<int>& joints, double segment,
                    const std::vector<Mat4>& rest_globals, int skeleton) {
  const int mesh = add_ribbon_mesh(builder, "ribbon", make_ribbon(int(joints.size()), segment, 4, 0.5, true));
  const int skin = add_skin(builder, "chain", joints, rest_globals, skeleton);
  return builder.add_node({{"name", "ribbon"}, {"mesh", mesh}, {"skin", skin}});
}

SkinnedChain add_skinned_chain(GltfBuilder& builder, int joints, double segment, int stations_per_segment,
                               bool blend) {
  SkinnedChain rig;
  rig.chain = add_chain(builder, "joint", joints, segment);
  const Ribbon ribbon = make_ribbon(joints, segment, stations_per_segment, 0.5, blend);
  const int mesh = add_ribbon_mesh(builder, "ribbon", ribbon);
  rig.skin = add_skin(builder, "chain", rig.chain.joints, chain_rest_globals(joints, segment, Mat4::Identity()));
  rig.mesh_node = builder.add_node({{"name", "ribbon"}, {"mesh", mesh}, {"skin", rig.skin}});
  builder.set_scene_roots({rig.chain.joints[0], rig.mesh_node});
  return rig;
}

}  // namespace skinref::conformance
