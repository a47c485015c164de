// Vertex stage of the offscreen renderer (render_gpu.h): world-space positions to clip space with the
// reference camera's projection * view, rounded once to float32 on the CPU; the attributes shading needs are
// passed through for perspective-correct interpolation, the triangle's face normal flat (every vertex of a
// triangle carries the same one, so the provoking vertex does not matter).
#version 450

// Shared with render.frag and PushConstants in render_gpu.cc (120 bytes, std430 offsets).
layout(push_constant) uniform Push {
  mat4 view_projection;    // column-major, clip = view_projection * (position, 1)
  vec4 base_color_factor;  // rgb used
  vec4 light;              // xyz: kLightDirection, w: kAmbient
  int view;                // 0 shaded, 1 normals, 2 weights, 3 depth
  int has_texture;         // sample the base colour texture at uv
  int double_sided;        // negate the normal on back faces
  int padding;
  vec2 viewport_size;      // width, height in pixels
} push;

layout(location = 0) in vec3 in_position;     // world space
layout(location = 1) in vec3 in_normal;       // world space, skinned; zero when the primitive has none
layout(location = 2) in vec2 in_uv;           // TEXCOORD_0; zero when the primitive has none
layout(location = 3) in float in_weight;      // summed stored weight of the selected skin joint
layout(location = 4) in vec3 in_face_normal;  // normalized world face normal of this vertex's triangle

layout(location = 0) out vec3 out_normal;
layout(location = 1) out vec2 out_uv;
layout(location = 2) out float out_weight;
layout(location = 3) flat out vec3 out_face_normal;

// The rasterizer snaps window coordinates to 8 sub-pixel bits for coverage, but an implementation may
// compute attribute interpolation from the unsnapped positions (llvmpipe does), while the reference
// (raster.h) interpolates with barycentrics of the snapped triangle. Where attributes change fast across a
// pixel (a minified texture seen at a grazing angle: tens of texels per pixel) that difference of up to
// 1/512 pixel shows as whole steps of colour. Snapping here, to the same grid, makes both agree. Coverage is
// what the rasterizer's own snapping gives (a snapped position snaps to itself), but for halfway cases, which
// now round as the reference rounds them. Vertices the near or far plane will clip are left alone (the
// reference snaps only the clipped polygon), as are those behind the eye.
const float kSubpixelSteps = 256.0;  // raster.h kSubpixelBits = 8

vec4 snapped(vec4 clip) {
  if (!(clip.w > 0.0 && clip.z >= 0.0 && clip.z <= clip.w)) return clip;
  vec2 half_size = 0.5 * push.viewport_size;
  vec2 window = (clip.xy / clip.w + 1.0) * half_size;
  // Halfway cases away from zero, as raster.h's std::llround (GLSL's round() leaves them open).
  vec2 steps = window * kSubpixelSteps;
  window = sign(steps) * floor(abs(steps) + 0.5) / kSubpixelSteps;
  return vec4((window / half_size - 1.0) * clip.w, clip.z, clip.w);
}

void main() {
  gl_Position = snapped(push.view_projection * vec4(in_position, 1.0));
  out_normal = in_normal;
  out_uv = in_uv;
  out_weight = in_weight;
  out_face_normal = in_face_normal;
}
