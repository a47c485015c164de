// The cases of glTF 2.0 section 3.7.3 (Skins) and of the node hierarchy the joints live in (3.5.3): inverse
// bind matrices, the skeleton root, joint order, the skinned mesh node's transform, influence sets and their
// storage, and normals under scale.
#include "conformance/case_kit.h"
#include "conformance/cases.h"

#include <algorithm>
#include <cmath>

namespace skinref::conformance {
namespace {

constexpr double kSkinCaseSegment = 4.0;

const std::vector<double> kSwingTimes = {0.0, 0.5, 1.0};

// 3.7.3.2's sentence that the mesh-node cases quote.
const char* const kMeshNodeIgnoredRule =
    "Only the joint transforms are applied to the skinned mesh; the transform of the skinned mesh node MUST be "
    "ignored.";

ConformanceCase no_inverse_bind_matrices() {
  ConformanceCase c;
  c.id = "skin-without-inverse-bind-matrices";
  c.title = "A skin without inverseBindMatrices, on joints whose rest pose is not the identity";
  c.section = "5.28.1 skin.inverseBindMatrices";
  c.rule = "When undefined, each matrix is a 4x4 identity matrix.";
  c.targets = {{"L4", {"inverse-bind=from-rest-pose"}}};
  c.times = kSwingTimes;
  c.build = [](GltfBuilder& b) {
    const Chain chain = add_chain(b, "joint", 3, kSkinCaseSegment, Vec3(2, 1, 0));
    b.json()["nodes"][size_t(chain.joints[0])]["rotation"] = f32_array(axis_angle_xyzw(kAxisZ, degrees(30)));
    const int ribbon = add_ribbon_skin(b, chain.joints, kSkinCaseSegment, {});
    b.set_scene_roots({chain.joints[0], ribbon});
    add_animation(b, "swing", {swing(chain.joints[1], 0, 60)});
  };
  return c;
}

ConformanceCase skeleton_under_transformed_node() {
  ConformanceCase c;
  c.id = "skeleton-root-under-transformed-node";
  c.title = "skin.skeleton names the chain's root, whose parent (not a joint) moves and turns it";
  c.section = "3.5.3 Transformations";
  c.rule = "The global transformation matrix of a node is the product of the global transformation matrix of its "
           "parent node and its own local transformation matrix.";
  c.targets = {{"M1", {"skeleton-ancestors=dropped"}}};
  c.times = kSwingTimes;
  c.build = [](GltfBuilder& b) {
    const std::vector<double> turn = axis_angle_xyzw(kAxisZ, degrees(90));
    const int rig = b.add_node(trs_node("rig", Vec3(0, 3, 0), turn));
    const Chain chain = add_chain(b, "joint", 3, kSkinCaseSegment);
    b.json()["nodes"][size_t(rig)]["children"] = {chain.joints[0]};
    const Mat4 rig_global = trs_matrix(Vec3(0, 3, 0), turn, Vec3::Ones());
    const int ribbon =
        add_ribbon_skin(b, chain.joints, kSkinCaseSegment, chain_rest_globals(3, kSkinCaseSegment, rig_global), chain.joints[0]);
    b.set_scene_roots({rig, ribbon});
    add_animation(b, "swing", {swing(chain.joints[1], 0, 60)});
  };
  return c;
}

ConformanceCase joints_child_first() {
  ConformanceCase c;
  c.id = "joints-listed-child-first";
  c.title = "Nodes listed child first, and skin.joints in neither hierarchy nor node order";
  c.section = "3.7.3.1 Skins: Overview";
  c.rule = "The order of joints is defined by the skin.joints array and it MUST match the order of "
           "inverseBindMatrices accessor elements (when the latter is present).";
  c.targets = {{"P3", {"joint-index=node"}}};
  c.times = kSwingTimes;
  c.build = [](GltfBuilder& b) {
    // Nodes 0, 1, 2 are the chain's joints 2, 1, 0: leaf first.
    const int leaf = b.add_node(trs_node("joint2", Vec3(kSkinCaseSegment, 0, 0)));
    const int middle = b.add_node(trs_node("joint1", Vec3(kSkinCaseSegment, 0, 0)));
    const int root = b.add_node(trs_node("joint0", Vec3::Zero()));
    b.json()["nodes"][size_t(middle)]["children"] = {leaf};
    b.json()["nodes"][size_t(root)]["children"] = {middle};
    // skin.joints = [middle, root, leaf]: chain joint 0 (the root) is skin joint 1, chain joint 1 skin joint
    // 0, chain joint 2 skin joint 2; no skin index equals its node's index but the leaf's.
    const double skin_index_of_chain[3] = {1, 0, 2};
    Ribbon ribbon = make_ribbon(3, kSkinCaseSegment, 4, 0.5, true);
    for (size_t i = 0; i < ribbon.joints.size(); ++i)
      if (i % 4 < 2) ribbon.joints[i] = skin_index_of_chain[size_t(ribbon.joints[i])];
    const int mesh = add_ribbon_mesh(b, "ribbon", ribbon);
    const std::vector<Mat4> globals = chain_rest_globals(3, kSkinCaseSegment, Mat4::Identity());
    const int skin = add_skin(b, "chain", {middle, root, leaf}, {globals[1], globals[0], globals[2]});
    const int node = b.add_node({{"name", "ribbon"}, {"mesh", mesh}, {"skin", skin}});
    b.set_scene_roots({root, node});
    add_animation(b, "swing", {swing(root, 0, 40), swing(middle, 0, 50)});
  };
  return c;
}

// The usual skinned chain, its ribbon's node given `ribbon_trs` and put under the node `holder`, the middle joint
// swinging 60 degrees: the mesh-node cases.
void add_held_skinned_ribbon(GltfBuilder& b, const nlohmann::ordered_json& ribbon_trs,
                             const nlohmann::ordered_json& holder_node) {
  const SkinnedChain rig = add_skinned_chain(b, 3, kSkinCaseSegment, 4, true);
  nlohmann::ordered_json& ribbon = b.json()["nodes"][size_t(rig.mesh_node)];
  for (const auto& [key, value] : ribbon_trs.items()) ribbon[key] = value;
  const int holder = b.add_node(holder_node);
  b.json()["nodes"][size_t(holder)]["children"] = {rig.mesh_node};
  b.set_scene_roots({rig.chain.joints[0], holder});
  add_animation(b, "swing", {swing(rig.chain.joints[1], 0, 60)});
}

ConformanceCase mesh_node_transform() {
  ConformanceCase c;
  c.id = "skinned-mesh-node-transform-ignored";
  c.title = "The skinned mesh node and its parent are moved, turned and scaled: none of it applies";
  c.section = "3.7.3.2 Joint Hierarchy";
  c.rule = kMeshNodeIgnoredRule;
  c.targets = {{"P1", {"mesh-node=applied"}}, {"P1", {"mesh-node=inverse"}}};
  c.times = kSwingTimes;
  c.build = [](GltfBuilder& b) {
    nlohmann::ordered_json ribbon;
    ribbon["translation"] = f32_array({0, 5, 0});
    ribbon["rotation"] = f32_array(axis_angle_xyzw(Vec3(0, 1, 0), degrees(60)));
    ribbon["scale"] = f32_array({2, 2, 2});
    add_held_skinned_ribbon(b, ribbon, trs_node("holder", Vec3(-3, 0, 1), axis_angle_xyzw(kAxisZ, degrees(45))));
  };
  return c;
}

// Under a non-uniform scale the mesh node's normal matrix is no longer its linear part: an engine that cancels the
// node by its inverse but puts it back by its normal matrix (three.js) turns the normals and not the positions.
ConformanceCase mesh_node_scaled_non_uniformly() {
  ConformanceCase c;
  c.id = "skinned-mesh-node-scaled-non-uniformly";
  c.title = "The skinned mesh node is scaled (2, 0.5, 1) under a turned parent: its normals ignore it too";
  c.section = "3.7.3.2 Joint Hierarchy";
  c.rule = kMeshNodeIgnoredRule;
  c.targets = {{"P1", {"mesh-node=normals-by-normal-matrix-times-inverse"}}, {"P1", {"mesh-node=applied"}}};
  c.times = kSwingTimes;
  c.build = [](GltfBuilder& b) {
    nlohmann::ordered_json ribbon;
    ribbon["scale"] = f32_array({2, 0.5, 1});
    add_held_skinned_ribbon(b, ribbon, trs_node("holder", Vec3(1, -2, 0), axis_angle_xyzw(Vec3(1, 0, 0), degrees(45))));
  };
  return c;
}

ConformanceCase one_skin_two_meshes() {
  ConformanceCase c;
  c.id = "one-skin-two-meshes";
  c.title = "Two mesh nodes with their own transforms share one skin";
  c.section = "3.7.3.2 Joint Hierarchy";
  c.rule = kMeshNodeIgnoredRule;
  c.targets = {{"P1", {"mesh-node=applied"}}};
  c.times = kSwingTimes;
  c.build = [](GltfBuilder& b) {
    const SkinnedChain rig = add_skinned_chain(b, 3, kSkinCaseSegment, 4, true);
    b.json()["nodes"][size_t(rig.mesh_node)]["translation"] = f32_array({0, -4, 0});
    Ribbon upper = make_ribbon(3, kSkinCaseSegment, 2, 0.25, false);
    for (size_t v = 0; v < upper.vertex_count(); ++v) upper.positions[3 * v + 1] += 2.0;
    const int mesh = add_ribbon_mesh(b, "upper", upper);
    const int second = b.add_node({{"name", "upper"}, {"mesh", mesh}, {"skin", rig.skin},
                                   {"rotation", f32_array(axis_angle_xyzw(Vec3(1, 0, 0), degrees(90)))}});
    b.set_scene_roots({rig.chain.joints[0], rig.mesh_node, second});
    add_animation(b, "swing", {swing(rig.chain.joints[0], 0, 30), swing(rig.chain.joints[2], 0, -80)});
  };
  return c;
}

// The inverse bind matrices are those of a bent bind pose (joint 1 turned 30 degrees, joint 2 -45), while the
// nodes' rest pose is straight: the ribbon is bound bent, as an exporter that pre-applies the bind writes it.
ConformanceCase bind_pose_differs_from_rest_pose() {
  ConformanceCase c;
  c.id = "bind-pose-differs-from-rest-pose";
  c.title = "Inverse bind matrices of a bent bind pose over joints whose rest pose is straight";
  c.section = "3.7.3.1 Skins: Overview";
  c.rule = "Each skin is defined by a REQUIRED joints property that lists the indices of nodes used as joints to "
           "pose the skin and an OPTIONAL inverseBindMatrices property that points to an accessor with inverse "
           "bind matrices data used to bring coordinates being skinned into the same space as each joint.";
  c.targets = {{"L4", {"inverse-bind=from-rest-pose"}}};
  c.times = kSwingTimes;
  c.build = [](GltfBuilder& b) {
    const Chain chain = add_chain(b, "joint", 3, kSkinCaseSegment);
    const Mat4 bend1 = trs_matrix(Vec3(kSkinCaseSegment, 0, 0), axis_angle_xyzw(kAxisZ, degrees(30)), Vec3::Ones());
    const Mat4 bend2 = trs_matrix(Vec3(kSkinCaseSegment, 0, 0), axis_angle_xyzw(kAxisZ, degrees(-45)), Vec3::Ones());
    const std::vector<Mat4> bind = {Mat4::Identity(), bend1, bend1 * bend2};
    const int node = add_ribbon_skin(b, chain.joints, kSkinCaseSegment, bind);
    b.set_scene_roots({chain.joints[0], node});
    add_animation(b, "swing", {swing(chain.joints[1], 0, 60)});
  };
  return c;
}

// The chain hangs under a node that is no joint and that the clip moves and turns; the skin names no skeleton.
ConformanceCase animated_common_root() {
  ConformanceCase c;
  c.id = "common-root-animated-not-a-joint";
  c.title = "The joints' common root is no joint, has no skin.skeleton naming it, and moves and turns";
  c.section = "3.7.3.2 Joint Hierarchy";
  c.rule = "Each skin's joints MUST have a common parent node (direct or indirect) called common root, which may "
           "or may not be a joint node itself.";
  c.targets = {{"M1", {"skeleton-ancestors=dropped"}}};
  c.times = kSwingTimes;
  c.build = [](GltfBuilder& b) {
    const int rig = b.add_node(trs_node("rig", Vec3(1, 2, 0)));
    const Chain chain = add_chain(b, "joint", 3, kSkinCaseSegment);
    b.json()["nodes"][size_t(rig)]["children"] = {chain.joints[0]};
    const Mat4 rig_rest = trs_matrix(Vec3(1, 2, 0), {0, 0, 0, 1}, Vec3::Ones());
    const int node = add_ribbon_skin(b, chain.joints, kSkinCaseSegment, chain_rest_globals(3, kSkinCaseSegment, rig_rest));
    b.set_scene_roots({rig, node});
    add_animation(b, "carry", {swing(rig, 0, -50), swing(chain.joints[1], 0, 40),
                               {rig, "translation", "LINEAR", {0.0, 1.0}, {1, 2, 0, -3, 4, 1}}});
  };
  return c;
}

// The skinned mesh node hangs under a node the clip moves and turns: still none of it applies, at any time.
ConformanceCase mesh_node_under_animated_parent() {
  ConformanceCase c;
  c.id = "skinned-mesh-node-under-animated-parent";
  c.title = "The skinned mesh node's parent moves and turns over the clip: the mesh follows the joints alone";
  c.section = "3.7.3.2 Joint Hierarchy";
  c.rule = kMeshNodeIgnoredRule;
  c.targets = {{"P1", {"mesh-node=applied"}}, {"P1", {"mesh-node=inverse"}}};
  c.times = kSwingTimes;
  c.build = [](GltfBuilder& b) {
    const SkinnedChain rig = add_skinned_chain(b, 3, kSkinCaseSegment, 4, true);
    const int carrier = b.add_node(trs_node("carrier", Vec3(0, 0, 0)));
    b.json()["nodes"][size_t(carrier)]["children"] = {rig.mesh_node};
    b.set_scene_roots({rig.chain.joints[0], carrier});
    add_animation(b, "carry", {swing(rig.chain.joints[1], 0, 45), swing(carrier, 0, 90),
                               {carrier, "translation", "LINEAR", {0.0, 1.0}, {0, 0, 0, 2, -3, 1}}});
  };
  return c;
}

ConformanceCase two_skins_share_joints() {
  ConformanceCase c;
  c.id = "two-skins-share-joints";
  c.title = "Two skins over the same three joints, listed in opposite orders, each with its own ribbon";
  c.section = "3.7.3.3 Skinned Mesh Attributes";
  c.rule = "The JOINTS_n attribute data contains the indices of the joints from the corresponding skin.joints array "
           "that affect the vertex.";
  c.targets = {{"P3", {"joint-index=node"}}};
  c.times = kSwingTimes;
  c.build = [](GltfBuilder& b) {
    const SkinnedChain rig = add_skinned_chain(b, 3, kSkinCaseSegment, 4, true);
    // The second skin lists the joints backwards, so its JOINTS value k names joint 2 - k of the chain.
    std::vector<int> backwards(rig.chain.joints.rbegin(), rig.chain.joints.rend());
    std::vector<Mat4> rest = chain_rest_globals(3, kSkinCaseSegment, Mat4::Identity());
    std::reverse(rest.begin(), rest.end());
    Ribbon upper = make_ribbon(3, kSkinCaseSegment, 4, 0.25, true);
    for (size_t v = 0; v < upper.vertex_count(); ++v) upper.positions[3 * v + 1] += 2.0;
    for (size_t i = 0; i < upper.joints.size(); ++i)
      if (upper.weights[i] != 0.0) upper.joints[i] = 2.0 - upper.joints[i];
    const int mesh = add_ribbon_mesh(b, "upper", upper);
    const int skin = add_skin(b, "backwards", backwards, rest);
    const int second = b.add_node({{"name", "upper"}, {"mesh", mesh}, {"skin", skin}});
    b.set_scene_roots({rig.chain.joints[0], rig.mesh_node, second});
    add_animation(b, "swing", {swing(rig.chain.joints[0], 0, 30), swing(rig.chain.joints[1], 0, -70),
                               swing(rig.chain.joints[2], 0, 50)});
  };
  return c;
}

// Joint 2 stands turned 45 degrees about x at rest and then scales along all three of its own axes: the normals
// (+z at rest) tilt one way under the inverse transpose and the other way under the matrix itself.
ConformanceCase normals_under_non_uniform_scale() {
  ConformanceCase c;
  c.id = "normals-under-non-uniform-scale";
  c.title = "Normals of a ribbon scaled by (2, 3, 0.5) along axes turned 45 degrees about x";
  // glTF says how the positions move (the joint's TRS, here scaled non-uniformly); the normals are the case's
  // point and its geometry tier: glTF is silent on how they transform (kGeometryRule).
  c.section = "3.5.3 Transformations";
  c.rule = "To compose the local transformation matrix, TRS properties MUST be converted to matrices and "
           "postmultiplied in the T * R * S order; first the scale is applied to the vertices, then the rotation, "
           "and then the translation.";
  c.targets = {{"N1", {"normals=blend-upper3x3"}},
               {"N1", {"normals=blend-normal-matrices"}},
               {"N1", {"normals=as-point"}},
               {"N1", {"normals=blend-inverse-transposes"}}};
  c.times = kSwingTimes;
  c.build = [](GltfBuilder& b) {
    const Chain chain = add_chain(b, "joint", 3, kSkinCaseSegment);
    const std::vector<double> tilt = axis_angle_xyzw(Vec3(1, 0, 0), degrees(45));
    b.json()["nodes"][size_t(chain.joints[2])]["rotation"] = f32_array(tilt);
    std::vector<Mat4> rest = chain_rest_globals(3, kSkinCaseSegment, Mat4::Identity());
    rest[2] = rest[2] * trs_matrix(Vec3::Zero(), tilt, Vec3::Ones());
    const int ribbon = add_ribbon_skin(b, chain.joints, kSkinCaseSegment, rest);
    b.set_scene_roots({chain.joints[0], ribbon});
    add_animation(b, "stretch", {swing(chain.joints[1], 0, 40),
                                 {chain.joints[2], "scale", "LINEAR", {0.0, 1.0}, {1, 1, 1, 2, 3, 0.5}}});
  };
  return c;
}

// One mesh, instanced by two nodes with a skin each over chains of their own: the second chain stands 3 m above
// the first and swings the other way. An engine that skins per mesh rather than per node (one skin bound to the
// mesh, or the first instance's result cached) draws the second ribbon on the first chain: no convention
// plants that yet (a convention changes the mesh, which both nodes share). The two nodes' own transforms,
// which skinning ignores, plant the mesh-node departure.
ConformanceCase one_mesh_two_skins() {
  ConformanceCase c;
  c.id = "one-mesh-two-skins";
  c.title = "One mesh instanced by two nodes, each with its own skin over its own chain";
  c.section = "3.7.4 Instantiation";
  c.rule = "A mesh is instantiated by node.mesh property. The same mesh could be used by many nodes, which could "
           "have different transformations.";
  c.targets = {{"P1", {"mesh-node=applied"}}};
  c.times = kSwingTimes;
  c.build = [](GltfBuilder& b) {
    const Vec3 above(0, 3, 0);
    const Chain first = add_chain(b, "first", 3, kSkinCaseSegment);
    const Chain second = add_chain(b, "second", 3, kSkinCaseSegment, above);
    const int mesh = add_ribbon_mesh(b, "ribbon", make_ribbon(3, kSkinCaseSegment, 4, 0.5, true));
    const int first_skin = add_skin(b, "first", first.joints, chain_rest_globals(3, kSkinCaseSegment, Mat4::Identity()));
    Mat4 raised = Mat4::Identity();
    raised.block<3, 1>(0, 3) = above;
    const int second_skin = add_skin(b, "second", second.joints, chain_rest_globals(3, kSkinCaseSegment, raised));
    const int lower = b.add_node({{"name", "lower"}, {"mesh", mesh}, {"skin", first_skin},
                                  {"translation", f32_array({0, -4, 0})}});
    const int upper = b.add_node({{"name", "upper"}, {"mesh", mesh}, {"skin", second_skin},
                                  {"rotation", f32_array(axis_angle_xyzw(Vec3(1, 0, 0), degrees(90)))}});
    b.set_scene_roots({first.joints[0], second.joints[0], lower, upper});
    add_animation(b, "swing", {swing(first.joints[0], 0, 30), swing(first.joints[1], 0, 50),
                               swing(second.joints[0], 0, -40), swing(second.joints[2], 0, -70)});
  };
  return c;
}

// The skinned mesh is on the skeleton's root joint itself, which the clip turns: the joint's transform reaches
// the vertices through the palette, once.
ConformanceCase mesh_node_is_a_joint() {
  ConformanceCase c;
  c.id = "mesh-node-is-an-animated-joint";
  c.title = "The skinned mesh node is the root joint of its own skin, moved and turned by the clip";
  c.section = "3.7.3.2 Joint Hierarchy";
  c.rule = kMeshNodeIgnoredRule;
  c.targets = {{"P1", {"mesh-node=applied"}}, {"P1", {"mesh-node=inverse"}}};
  c.times = kSwingTimes;
  c.build = [](GltfBuilder& b) {
    const Chain chain = add_chain(b, "joint", 3, kSkinCaseSegment);
    const int mesh = add_ribbon_mesh(b, "ribbon", make_ribbon(3, kSkinCaseSegment, 4, 0.5, true));
    const int skin = add_skin(b, "chain", chain.joints, chain_rest_globals(3, kSkinCaseSegment, Mat4::Identity()));
    nlohmann::ordered_json& root = b.json()["nodes"][size_t(chain.joints[0])];
    root["mesh"] = mesh;
    root["skin"] = skin;
    b.set_scene_roots({chain.joints[0]});
    add_animation(b, "swing", {swing(chain.joints[0], 0, 50), swing(chain.joints[2], 0, -60),
                               {chain.joints[0], "translation", "LINEAR", {0.0, 1.0}, {0, 0, 0, 1.5, 2, 0}}});
  };
  return c;
}

// The skinned mesh node, with a transform of its own, hangs under the chain's last joint, which the clip turns.
ConformanceCase mesh_node_under_a_joint() {
  ConformanceCase c;
  c.id = "skinned-mesh-node-under-a-joint";
  c.title = "The skinned mesh node is a child of its skin's last joint and has its own translation and turn";
  c.section = "3.7.3.2 Joint Hierarchy";
  c.rule = "A joint node MAY have other nodes attached to it, even a complete node sub graph with meshes.";
  c.targets = {{"P1", {"mesh-node=applied"}}, {"P1", {"mesh-node=inverse"}}};
  c.times = kSwingTimes;
  c.build = [](GltfBuilder& b) {
    const SkinnedChain rig = add_skinned_chain(b, 3, kSkinCaseSegment, 4, true);
    nlohmann::ordered_json& ribbon = b.json()["nodes"][size_t(rig.mesh_node)];
    ribbon["translation"] = f32_array({1, 2, 0});
    ribbon["rotation"] = f32_array(axis_angle_xyzw(kAxisZ, degrees(35)));
    b.json()["nodes"][size_t(rig.chain.joints[2])]["children"] = {rig.mesh_node};
    b.set_scene_roots({rig.chain.joints[0]});
    add_animation(b, "swing", {swing(rig.chain.joints[1], 0, 40), swing(rig.chain.joints[2], 0, -70)});
  };
  return c;
}

// The skinned mesh node is the chain's root joint, turned 90 degrees about z at rest, and holds a rigid box (a
// mesh without a skin) as a child; the clip moves the root (its translation only: the rest turn must stay) and
// turns joint 2. The skin ignores the mesh node's transform; the rigid child follows the root, rest turn and all.
ConformanceCase mesh_joint_with_rigid_child() {
  ConformanceCase c;
  c.id = "mesh-joint-with-rest-turn-and-rigid-child";
  c.title = "The skinned mesh node is a joint turned at rest, moved by the clip, with a rigid mesh as its child";
  c.section = "3.7.3.2 Joint Hierarchy";
  c.rule = kMeshNodeIgnoredRule;
  c.targets = {{"P1", {"mesh-node=applied"}}, {"M2", {"rest-values=identity"}}};
  c.times = kSwingTimes;
  c.build = [](GltfBuilder& b) {
    const Chain chain = add_chain(b, "joint", 3, kSkinCaseSegment);
    const std::vector<double> turn = axis_angle_xyzw(Vec3(0, 0, 1), degrees(90));
    b.json()["nodes"][size_t(chain.joints[0])]["rotation"] = f32_array(turn);
    const int mesh = add_ribbon_mesh(b, "ribbon", make_ribbon(3, kSkinCaseSegment, 4, 0.5, true));
    // Bound along x, as the ribbon is authored: at rest the turned root draws it along y, beside its child.
    const int skin = add_skin(b, "chain", chain.joints, chain_rest_globals(3, kSkinCaseSegment, Mat4::Identity()));
    nlohmann::ordered_json& root = b.json()["nodes"][size_t(chain.joints[0])];
    root["mesh"] = mesh;
    root["skin"] = skin;
    // A rigid ribbon (no skin) 2 m along the root's own y, moved by the root's global transform alone.
    Ribbon rigid = make_ribbon(1, kSkinCaseSegment, 2, 0.25, false);
    const nlohmann::ordered_json primitive = {{"attributes", {{"POSITION", b.add_positions("rigid positions", rigid.positions)},
                                                             {"NORMAL", b.add_accessor("rigid normals", "VEC3", rigid.normals)}}},
                                              {"indices", b.add_indices("rigid indices", rigid.indices)}};
    const int rigid_mesh = b.add_mesh({{"name", "rigid"}, {"primitives", {primitive}}});
    const int child = b.add_node({{"name", "rigid"}, {"mesh", rigid_mesh}, {"translation", f32_array({0, 2, 0})}});
    b.json()["nodes"][size_t(chain.joints[0])]["children"].push_back(child);
    b.set_scene_roots({chain.joints[0]});
    add_animation(b, "move", {{chain.joints[0], "translation", "LINEAR", {0.0, 1.0}, {0, 0, 0, 1.5, 2, 0}},
                              swing(chain.joints[2], 0, -60)});
  };
  return c;
}

// A skinned ribbon with TANGENT (+x, handedness +1 on one side of the ribbon, -1 on the other) under a joint that
// turns and scales by (2, 0.5, 1): the tangents move by the blended matrix, are renormalized and keep their w.
ConformanceCase tangents_on_skinned_mesh() {
  ConformanceCase c;
  c.id = "tangents-on-a-skinned-mesh";
  c.title = "TANGENT on a skinned ribbon whose middle joint turns and scales by (2, 0.5, 1)";
  c.section = "3.7.2.1 Meshes: Overview";
  c.rule = "TANGENT: VEC4, float: XYZW vertex tangents where the XYZ portion is normalized, and the W component is "
           "a sign value (-1 or +1) indicating handedness of the tangent basis";
  // The mesh node's own translation plants P1, which moves the tangents with the positions. normalize=no would
  // leave them 2 long, which the verdict counts as not of unit length rather than as error over a bound.
  c.targets = {{"P1", {"mesh-node=applied"}}};
  c.times = kSwingTimes;
  c.build = [](GltfBuilder& b) {
    const SkinnedChain rig = add_skinned_chain(b, 3, kSkinCaseSegment, 4, true);
    nlohmann::ordered_json& node = b.json()["nodes"][size_t(rig.mesh_node)];
    node["translation"] = f32_array({0, 0, 1});  // ignored by skinning: plants P1
    const size_t mesh = node["mesh"];
    nlohmann::ordered_json& primitive = b.json()["meshes"][mesh]["primitives"][0];
    const size_t count = b.json()["accessors"][size_t(primitive["attributes"]["POSITION"])]["count"];
    std::vector<double> tangents;
    for (size_t v = 0; v < count; ++v) tangents.insert(tangents.end(), {1.0, 0.0, 0.0, v % 2 == 0 ? 1.0 : -1.0});
    primitive["attributes"]["TANGENT"] = b.add_accessor("ribbon tangents", "VEC4", tangents);
    add_animation(b, "turn", {swing(rig.chain.joints[0], 0, 30), swing(rig.chain.joints[1], 0, 50),
                              {rig.chain.joints[1], "scale", "LINEAR", {0.0, 1.0}, {1, 1, 1, 2, 0.5, 1}}});
  };
  return c;
}

}  // namespace

void add_skin_cases(std::vector<ConformanceCase>& cases) {
  for (ConformanceCase (*make)() :
       {no_inverse_bind_matrices, skeleton_under_transformed_node, joints_child_first, mesh_node_transform,
        mesh_node_scaled_non_uniformly, one_skin_two_meshes, two_skins_share_joints, normals_under_non_uniform_scale,
        bind_pose_differs_from_rest_pose, animated_common_root, mesh_node_under_animated_parent, one_mesh_two_skins,
        mesh_node_is_a_joint, mesh_node_under_a_joint, mesh_joint_with_rigid_child, tangents_on_skinned_mesh})
    cases.push_back(make());
}

}  // namespace skinref::conformance
