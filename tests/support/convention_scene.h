// A scene built so that every engine convention (core/conventions.h) shows in its skinned vertices, for the
// conventions and diagnose tests: each convention's effect, at the times given by convention_case_times(), is
// orders of magnitude above the float32 bounds.
//
// What makes each one visible:
// - "world" (20 degrees about X, translated) is a parent of the skeleton root "hips" (skin.skeleton):
//   skeleton-ancestors=dropped; the stored inverse bind matrices are those of a bind pose without it:
//   inverse-bind=from-rest-pose.
// - The mesh node "body" is rotated, scaled non-uniformly and translated: mesh-node=*.
// - Twelve influences per vertex (three sets), each joint's weight split over the sets in shares that differ
//   by joint and ring; weights summing to 0.85 to 1.15; ring 0 all zero: influences=*, weights=sum|l2,
//   zero-weights=joint0.
// - A non-uniform scale on "spine": normals=*, normalize=no.
// - Nine morph targets with mesh.weights of distinct magnitudes (0.6, -0.5, 0.42, ...) and no weights channel:
//   morph-*.
// - Animation "main" (keys 0.5 s to 2 s): "spine" rotation LINEAR with gaps of 150 degrees, a key stored in
//   the other hemisphere and every key of norm 1.0004 (rotation=*, quaternion-keys=as-stored, key-rotation);
//   "spine" scale LINEAR (key-translation-scale); "arm" translation STEP with keys at 0.5, 1, 1.5, 2
//   (step-boundary, resample); "hand" rotation CUBICSPLINE with large tangents (cubic=*, resample).
#pragma once

#include "core/scene.h"

#include <string>
#include <vector>

namespace skinref::testing {

Scene make_convention_scene();

// Three cases of playback times (seconds) at which `assignments` (a diagnose candidate, "NAME=VALUE" each)
// shows on make_convention_scene() beyond the float32 bounds, drawn by a fixed seed from where the convention
// acts: step-boundary at key times; key quantization at the rotation keys (between keys, the float32 bounds
// of a slerp are wider than a 15-bit key's error); resampling in the 1/HZ before a STEP key, where the
// resampled clip ramps; loop conventions past the clip's end; at-end at a whole period, with a second dump
// mid-loop (a held end is glTF's clamp at a whole period, a restarting loop mid-loop); nlerp and lerp in the
// widest intervals. Each case is one or more dump times.
std::vector<std::vector<double>> convention_case_times(const std::vector<std::string>& assignments, unsigned seed);

}  // namespace skinref::testing
