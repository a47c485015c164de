// Building blocks of hand-made test scenes: a TRS from its three parts and a named node with children.
// Plain values; finalize_scene() (core/scene.h) derives parents and the node order once the nodes are in place.
#pragma once

#include "core/scene.h"

#include <string>
#include <utility>
#include <vector>

namespace skinref::test {

inline Transform make_trs(const Vec3& translation, const Quat& rotation, const Vec3& scale) {
  Transform trs;
  trs.translation = translation;
  trs.rotation = rotation;
  trs.scale = scale;
  return trs;
}

inline Node make_node(const std::string& name, const Transform& rest, std::vector<int> children) {
  Node node;
  node.name = name;
  node.rest = rest;
  node.children = std::move(children);
  return node;
}

}  // namespace skinref::test
