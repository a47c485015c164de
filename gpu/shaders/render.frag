// Fragment stage of the offscreen renderer: the formulas of reference/raster/shading.h and docs/shading.md, per view,
// giving the LINEAR colour; the R8G8B8A8_SRGB attachment encodes it to sRGB on write (and clamps to [0, 1]),
// as encode_srgb8 does for the reference.
#version 450

layout(push_constant) uniform Push {
  mat4 view_projection;
  vec4 base_color_factor;
  vec4 light;
  int view;
  int has_texture;
  int double_sided;
  int padding;
  vec2 viewport_size;
} push;

// An R8G8B8A8_SRGB image view: texels are decoded to linear before filtering, as the reference does.
layout(set = 0, binding = 0) uniform sampler2D base_color_texture;

layout(location = 0) in vec3 in_normal;
layout(location = 1) in vec2 in_uv;
layout(location = 2) in float in_weight;
layout(location = 3) flat in vec3 in_face_normal;

layout(location = 0) out vec4 out_color;

const int kViewShaded = 0;
const int kViewNormals = 1;
const int kViewWeights = 2;
const int kViewDepth = 3;

void main() {
  vec3 color;
  if (push.view == kViewDepth) {
    // The depth the D32 test used (z / w interpolated in screen space).
    color = vec3(1.0 - gl_FragCoord.z);
  } else if (push.view == kViewWeights) {
    // heat(w) with w clamped to [0, 1] first; written with comparisons so that a NaN gives 0 as in the
    // reference (GLSL's clamp of a NaN is undefined).
    float w = in_weight > 0.0 ? min(in_weight, 1.0) : 0.0;
    color = vec3(w, 4.0 * w * (1.0 - w), 1.0 - w);
  } else {
    // The interpolated normal, or the triangle's face normal where it interpolates to zero (or the primitive
    // has none: its normals are all zero); negated on back faces of double-sided materials.
    vec3 n = in_normal;
    if (dot(n, n) > 0.0) {
      n = normalize(n);
    } else {
      n = in_face_normal;
    }
    if (push.double_sided != 0 && !gl_FrontFacing) n = -n;
    if (push.view == kViewNormals) {
      color = n * 0.5 + 0.5;
    } else {
      vec3 base = push.base_color_factor.rgb;
      // Texture sampled outside any non-uniform branch (push.view and has_texture are uniform), so the
      // implicit derivatives are defined; with one mip level they do not change the result anyway.
      if (push.has_texture != 0) base *= texture(base_color_texture, in_uv).rgb;
      float n_dot_l = (n.x * push.light.x + n.y * push.light.y) + n.z * push.light.z;
      color = base * (push.light.w + (1.0 - push.light.w) * max(0.0, n_dot_l));
    }
  }
  out_color = vec4(color, 1.0);
}
