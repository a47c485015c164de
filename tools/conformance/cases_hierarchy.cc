// The cases of glTF 2.0 section 3.5.3 (Transformations) and of the animated hierarchy: node matrices with a
// reflection and a non-uniform scale, un-animated properties of animated nodes, the shear a non-uniformly
// scaled parent gives a turned child, channels whose targets share a name, and a skin of more joints than
// engines' palettes commonly hold.
#include "conformance/case_kit.h"
#include "conformance/cases.h"

#include <cmath>

namespace skinref::conformance {
namespace {

constexpr double kHierarchyCaseSegment = 4.0;

// A matrix's 16 column-major values, each rounded to float32.
nlohmann::ordered_json matrix_json(const Mat4& m) {
  std::vector<double> values;
  for (int c = 0; c < 4; ++c)
    for (int r = 0; r < 4; ++r) values.push_back(m(r, c));
  return f32_array(values);
}

ConformanceCase node_matrices() {
  ConformanceCase c;
  c.id = "node-matrix-mirror-and-scale";
  c.title = "Joints' parents given by matrix: a mirror turned 30 degrees, and a scale of 2 along x";
  c.section = "3.5.3 Transformations";
  c.rule = "Any node MAY define a local space transform either by supplying a matrix property, or any of "
           "translation, rotation, and scale properties (also known as TRS properties).";
  c.targets = {{"L6", {"node-matrix=ignored"}}, {"L6", {"node-matrix=reflection-lost"}}};
  c.times = {0.0, 0.5, 1.0};
  c.build = [](GltfBuilder& b) {
    const std::vector<double> turn30 = axis_angle_xyzw(kAxisZ, degrees(30));
    const Mat4 mirror = trs_matrix(Vec3(1, 2, 0), turn30, Vec3(-1, 1, 1));
    const int rig = b.add_node({{"name", "mirror"}, {"matrix", matrix_json(mirror)}});
    const Chain chain = add_chain(b, "joint", 3, kHierarchyCaseSegment);
    // Joint 1 keeps its translation but is given by a matrix with a scale of 2 along its own x (not animated).
    const Mat4 stretch = trs_matrix(Vec3(kHierarchyCaseSegment, 0, 0), axis_angle_xyzw(kAxisZ, degrees(20)), Vec3(2, 1, 1));
    nlohmann::ordered_json& joint1 = b.json()["nodes"][size_t(chain.joints[1])];
    joint1.erase("translation");
    joint1["matrix"] = matrix_json(stretch);
    b.json()["nodes"][size_t(rig)]["children"] = {chain.joints[0]};
    const Mat4 g0 = mirror;
    const Mat4 g1 = g0 * stretch;
    Mat4 step = Mat4::Identity();
    step(0, 3) = kHierarchyCaseSegment;
    const int ribbon = add_ribbon_skin(b, chain.joints, kHierarchyCaseSegment, {g0, g1, g1 * step});
    b.set_scene_roots({rig, ribbon});
    add_animation(b, "swing", {swing(chain.joints[0], 0, 50), swing(chain.joints[2], 0, -60)});
  };
  return c;
}

ConformanceCase rest_values() {
  ConformanceCase c;
  c.id = "unanimated-properties-keep-rest";
  c.title = "Animated joints whose other properties are not animated keep their own rest values";
  c.section = "3.11 Animations";
  c.rule = "Non-animated properties MUST keep their values during animation.";
  c.targets = {{"M2", {"rest-values=identity"}}};
  c.times = {0.0, 0.5, 1.0};
  c.build = [](GltfBuilder& b) {
    const std::vector<double> turn30 = axis_angle_xyzw(kAxisZ, degrees(30));
    const std::vector<double> turn20 = axis_angle_xyzw(kAxisZ, degrees(20));
    const Chain chain = add_chain(b, "joint", 3, kHierarchyCaseSegment, Vec3(2, 1, 0));
    // Joint 0: translation (2, 1, 0) at rest, only its rotation animated; joint 1: turned 20 degrees at rest,
    // only its translation animated.
    b.json()["nodes"][size_t(chain.joints[1])]["rotation"] = f32_array(turn20);
    const Mat4 g0 = trs_matrix(Vec3(2, 1, 0), {0, 0, 0, 1}, Vec3::Ones());
    const Mat4 g1 = g0 * trs_matrix(Vec3(kHierarchyCaseSegment, 0, 0), turn20, Vec3::Ones());
    const Mat4 g2 = g1 * trs_matrix(Vec3(kHierarchyCaseSegment, 0, 0), {0, 0, 0, 1}, Vec3::Ones());
    const int ribbon = add_ribbon_skin(b, chain.joints, kHierarchyCaseSegment, {g0, g1, g2});
    b.set_scene_roots({chain.joints[0], ribbon});
    add_animation(b, "partial", {{chain.joints[0], "rotation", "LINEAR", {0.0, 1.0},
                                  concat({axis_angle_xyzw(kAxisZ, 0.0), turn30})},
                                 {chain.joints[1], "translation", "LINEAR", {0.0, 1.0},
                                  {kHierarchyCaseSegment, 0, 0, kHierarchyCaseSegment + 1.5, 0.5, 0}}});
  };
  return c;
}

ConformanceCase shear() {
  ConformanceCase c;
  c.id = "shear-from-non-uniform-parent";
  c.title = "A parent scaled 3 times along x with a child turned 45 degrees: the child's global transform shears";
  c.section = "3.5.3 Transformations";
  c.rule = "The global transformation matrix of a node is the product of the global transformation matrix of its "
           "parent node and its own local transformation matrix.";
  c.targets = {{"M3", {"shear=dropped"}}};
  c.times = {0.0, 0.5, 1.0};
  c.build = [](GltfBuilder& b) {
    const Chain chain = add_chain(b, "joint", 3, kHierarchyCaseSegment);
    const int ribbon = add_ribbon_skin(b, chain.joints, kHierarchyCaseSegment, chain_rest_globals(3, kHierarchyCaseSegment, Mat4::Identity()));
    b.set_scene_roots({chain.joints[0], ribbon});
    add_animation(b, "shear", {{chain.joints[0], "scale", "LINEAR", {0.0, 1.0}, {1, 1, 1, 3, 1, 1}},
                               swing(chain.joints[1], 45, 45), swing(chain.joints[2], 0, 30)});
  };
  return c;
}

// Joint 1 mirrored along x and stretched, (-2, 1, 0.5), from 0.5 s on (STEP: the scale never passes through 0),
// with joint 2 turned 45 degrees about x under it, so that its normals lean into the stretch. The positions follow
// the hierarchy's product of matrices (a shear under the mirror); the normals, the geometry tier, are the inverse
// transpose's, which keeps them on the surface's outer side as the winding flips.
ConformanceCase negative_scale() {
  ConformanceCase c;
  c.id = "negative-scale-mirrors-a-joint";
  c.title = "A joint scaled by (-2, 1, 0.5): a mirror that stretches, its child turned 45 degrees about x";
  c.section = "3.5.3 Transformations";
  c.rule = "The global transformation matrix of a node is the product of the global transformation matrix of its "
           "parent node and its own local transformation matrix.";
  c.targets = {{"N1", {"normals=blend-upper3x3"}}, {"N1", {"normals=as-point"}}, {"M3", {"shear=dropped"}}};
  c.times = {0.0, 0.25, 0.5, 0.75, 1.0};
  c.build = [](GltfBuilder& b) {
    const Chain chain = add_chain(b, "joint", 3, kHierarchyCaseSegment);
    const int ribbon = add_ribbon_skin(b, chain.joints, kHierarchyCaseSegment,
                                       chain_rest_globals(3, kHierarchyCaseSegment, Mat4::Identity()));
    b.set_scene_roots({chain.joints[0], ribbon});
    add_animation(b, "mirror", {swing(chain.joints[0], 0, 30),
                                {chain.joints[1], "scale", "STEP", {0.0, 0.5}, {1, 1, 1, -2, 1, 0.5}},
                                {chain.joints[2], "rotation", "STEP", {0.0},
                                 axis_angle_xyzw(Vec3(1, 0, 0), degrees(45))}});
  };
  return c;
}

ConformanceCase same_names() {
  ConformanceCase c;
  c.id = "channel-targets-share-a-name";
  c.title = "Two chains whose joints have the same names, each with its own tracks";
  c.section = "3.11 Animations";
  c.rule = "The target property is an object that identifies which node to animate using its node property, and "
           "which property of the node to animate using path.";
  c.targets = {{"L7", {"channel-target=first-named"}}};
  c.times = {0.0, 0.5, 1.0};
  c.build = [](GltfBuilder& b) {
    const Chain first = add_chain(b, "joint", 3, kHierarchyCaseSegment);
    const Chain second = add_chain(b, "joint", 3, kHierarchyCaseSegment, Vec3(0, 5, 0));
    const int ribbon_a = add_ribbon_skin(b, first.joints, kHierarchyCaseSegment, chain_rest_globals(3, kHierarchyCaseSegment, Mat4::Identity()));
    Mat4 up = Mat4::Identity();
    up(1, 3) = 5.0;
    const int ribbon_b = add_ribbon_skin(b, second.joints, kHierarchyCaseSegment, chain_rest_globals(3, kHierarchyCaseSegment, up));
    b.set_scene_roots({first.joints[0], second.joints[0], ribbon_a, ribbon_b});
    add_animation(b, "two", {swing(first.joints[0], 0, 40), swing(second.joints[1], 0, -70)});
  };
  return c;
}

// The chain's three joints have no names; the clip turns the first two. glTF finds joints by index, so names do
// not matter; an engine that binds bones to nodes by name (as every client of Assimp must: Assimp names such a
// bone bone_i and its node nodes[i]) finds none of them and leaves the ribbon at its bind pose.
ConformanceCase unnamed_joints() {
  ConformanceCase c;
  c.id = "joints-without-names";
  c.title = "A skin whose three joints have no names, the first two turned by the clip";
  c.section = "3.7.3.1 Skins: Overview";
  c.rule = "Each skin is defined by a REQUIRED joints property that lists the indices of nodes used as joints to "
           "pose the skin and an OPTIONAL inverseBindMatrices property";
  c.targets = {{"L7", {"unnamed-joints=bind-pose"}}};
  c.times = {0.0, 0.5, 1.0};
  c.build = [](GltfBuilder& b) {
    const Chain chain = add_chain(b, "joint", 3, kHierarchyCaseSegment);
    for (int joint : chain.joints) b.json()["nodes"][size_t(joint)].erase("name");
    const int ribbon = add_ribbon_skin(b, chain.joints, kHierarchyCaseSegment,
                                       chain_rest_globals(3, kHierarchyCaseSegment, Mat4::Identity()));
    b.set_scene_roots({chain.joints[0], ribbon});
    add_animation(b, "swing", {swing(chain.joints[0], 0, 40), swing(chain.joints[1], 0, -60)});
  };
  return c;
}

// Joints 0 .. count-1 all children of the root joint, joint k at (k * 0.1, 0, 0); the ribbon's station k is
// bound to joint k alone, and the root turns: a vertex follows only where its joint's palette entry is right.
ConformanceCase many_joints() {
  ConformanceCase c;
  c.id = "skin-of-260-joints";
  c.title = "A skin of 260 joints, vertices on every one, beyond the 256, 128 and 64 matrices of common palettes";
  c.section = "3.7.3.1 Skins: Overview";
  c.rule = "Each skin is defined by a REQUIRED joints property that lists the indices of nodes used as joints to "
           "pose the skin and an OPTIONAL inverseBindMatrices property";
  c.targets = {{"P2", {"joint-cap=256"}}, {"P2", {"joint-cap=128"}}, {"P2", {"joint-cap=64"}}};
  c.times = {0.0, 1.0};
  c.build = [](GltfBuilder& b) {
    constexpr int kJoints = 260;
    constexpr double kSpacing = 0.125;
    const int root = b.add_node(trs_node("root", Vec3::Zero()));
    std::vector<int> joints = {root};
    std::vector<Mat4> globals = {Mat4::Identity()};
    for (int k = 1; k < kJoints; ++k) {
      joints.push_back(b.add_node(trs_node("joint" + std::to_string(k), Vec3(k * kSpacing, 0, 0))));
      Mat4 g = Mat4::Identity();
      g(0, 3) = k * kSpacing;
      globals.push_back(g);
    }
    b.json()["nodes"][size_t(root)]["children"] = std::vector<int>(joints.begin() + 1, joints.end());
    Ribbon ribbon = make_ribbon(kJoints - 1, kSpacing, 1, 0.25, false);
    for (size_t v = 0; v < ribbon.vertex_count(); ++v) ribbon.joints[4 * v] = double(v / 2);
    const int mesh = add_ribbon_mesh(b, "ribbon", ribbon);
    const int skin = add_skin(b, "fan", joints, globals);
    const int node = b.add_node({{"name", "ribbon"}, {"mesh", mesh}, {"skin", skin}});
    b.set_scene_roots({root, node});
    add_animation(b, "turn", {swing(root, 0, 90)});
  };
  return c;
}

// Joint 0 is scaled (1.5, 0.75, 1) at rest and only its rotation is animated; joint 2 is turned -25 degrees at
// rest and only its (uniform) scale is animated: each keeps its rest value of what the clip leaves alone.
ConformanceCase rest_scale() {
  ConformanceCase c;
  c.id = "unanimated-scale-keeps-rest";
  c.title = "A joint scaled (1.5, 0.75, 1) at rest whose rotation alone is animated, and a turned joint whose scale is";
  c.section = "3.11 Animations";
  c.rule = "Non-animated properties MUST keep their values during animation.";
  // Joint 0's non-uniform scale shears joint 2 as it turns: an engine that keeps globals as TRS loses that too.
  c.targets = {{"M2", {"rest-values=identity"}}, {"M3", {"shear=dropped"}}};
  c.times = {0.0, 0.5, 1.0};
  c.build = [](GltfBuilder& b) {
    const Vec3 squash(1.5, 0.75, 1.0);
    const std::vector<double> turn = axis_angle_xyzw(kAxisZ, degrees(-25));
    const Chain chain = add_chain(b, "joint", 3, kHierarchyCaseSegment);
    b.json()["nodes"][size_t(chain.joints[0])]["scale"] = f32_array({squash.x(), squash.y(), squash.z()});
    b.json()["nodes"][size_t(chain.joints[2])]["rotation"] = f32_array(turn);
    const Mat4 g0 = trs_matrix(Vec3::Zero(), {0, 0, 0, 1}, squash);
    const Mat4 g1 = g0 * trs_matrix(Vec3(kHierarchyCaseSegment, 0, 0), {0, 0, 0, 1}, Vec3::Ones());
    const Mat4 g2 = g1 * trs_matrix(Vec3(kHierarchyCaseSegment, 0, 0), turn, Vec3::Ones());
    const int ribbon = add_ribbon_skin(b, chain.joints, kHierarchyCaseSegment, {g0, g1, g2});
    b.set_scene_roots({chain.joints[0], ribbon});
    add_animation(b, "partial", {swing(chain.joints[0], 0, 40),
                                 {chain.joints[2], "scale", "LINEAR", {0.0, 1.0}, {1, 1, 1, 1.5, 1.5, 1.5}}});
  };
  return c;
}

}  // namespace

void add_hierarchy_cases(std::vector<ConformanceCase>& cases) {
  for (ConformanceCase (*make)() : {node_matrices, rest_values, shear, negative_scale, same_names, many_joints,
                                    rest_scale, unnamed_joints})
    cases.push_back(make());
}

}  // namespace skinref::conformance
