// A first draft of a vertex shader's interface (gpu/vertex_interface.h) from its SPIR-V alone, for the user to
// correct rather than write: `skinref shader-interface FILE.vert`. SPIR-V says where everything is; only names
// hint at what it means, so the draft guesses from names and says where it guessed.
//
// Contract:
// - draft_vertex_interface(spirv, entry_point, shader_name): a "skinref-shader-interface" JSON object that
//   parse_vertex_interface() reads, with:
//   - every vertex input, in one vertex buffer at binding 0 packed in location order, its format the input's
//     type in 32-bit components (R32G32_SFLOAT for a vec2, R32G32B32A32_SINT for an ivec4), its attribute
//     guessed from its name (pos: position; norm, and Unreal's tangentz: normal; tang: tangent; joint, bone, indic, index, skinindex:
//     joints; weight: weights; uv, texcoord, tex: texcoord:N, N the name's last digit, 0 when none; col: color:0;
//     anything else: zero), a float joints input as R32G32B32A32_SFLOAT;
//   - the palette: the largest array of matrices in a uniform or storage block (its offset, mat4 or
//     mat4-row-major as declared, its length; a runtime array 256), else the first texel buffer or sampled 2D
//     image (layout mat4, 256 joints, a 64 x 64 image: what the draft cannot know);
//   - every other mat4 and mat3 member of the blocks and the push constants as an identity matrix; a uint or
//     int push constant or block member whose name holds "offset", "first" or "base" as the palette's joint
//     offset (value 0);
//   - the push constants' size, each specialization constant with its default value, gl_Position, and the
//     first float output of 3 or 4 components whose name holds "norm" (and "tang", 4 components) as the normal
//     (tangent).
// - `guesses`: a line for each value that came from a name or was made up, with its JSON path, for the user to
//   check ("/inputs/2/attribute: texcoord:0, from the name 'inTexCoord'").
// - InputError (naming `shader_name`) for SPIR-V that SPIRV-Cross cannot reflect or without a vertex entry point
//   of that name.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace skinref::gpu {

nlohmann::ordered_json draft_vertex_interface(const std::vector<uint32_t>& spirv, const std::string& entry_point,
                                              const std::string& shader_name, std::vector<std::string>& guesses);

}  // namespace skinref::gpu
