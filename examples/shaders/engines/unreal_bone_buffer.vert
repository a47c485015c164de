// Skinning as Unreal's GPU skin vertex factory does it, in GLSL: the bones in a texel buffer of three float4 rows
// each (FBoneMatrix, a 3x4 matrix; samplerBuffer, as Unreal's Buffer<float4> BoneMatrices), the rows blended by
// the weights and applied by dot products, unsigned byte indices, the normal by the blended 3x3 (Unreal's
// tangent basis is moved by the same rows), then the primitive's LocalToWorld and the view's projection.
//   skinref skin MODEL --backend vulkan --validate --shader examples/shaders/engines/unreal_bone_buffer.vert
//       --interface examples/shaders/engines/unreal_bone_buffer.json --out engine.skv
#version 450

layout(binding = 0) uniform Primitive {
  mat4 LocalToWorld;
  mat4 TranslatedWorldToClip;
};

layout(binding = 1) uniform samplerBuffer BoneMatrices;

layout(location = 0) in vec3 Position;
layout(location = 1) in vec3 TangentZ;
layout(location = 2) in uvec4 BlendIndices;
layout(location = 3) in vec4 BlendWeights;
layout(location = 4) in vec2 TexCoords0;

layout(location = 0) out vec3 WorldNormal;
layout(location = 1) out vec2 TexCoord;

// The blended 3x4 bone matrix, as three rows.
void blend_rows(out vec4 row0, out vec4 row1, out vec4 row2) {
  row0 = vec4(0.0);
  row1 = vec4(0.0);
  row2 = vec4(0.0);
  for (int i = 0; i < 4; ++i) {
    int base = int(BlendIndices[i]) * 3;
    row0 += BlendWeights[i] * texelFetch(BoneMatrices, base);
    row1 += BlendWeights[i] * texelFetch(BoneMatrices, base + 1);
    row2 += BlendWeights[i] * texelFetch(BoneMatrices, base + 2);
  }
}

void main() {
  vec4 row0, row1, row2;
  blend_rows(row0, row1, row2);
  vec4 local = vec4(Position, 1.0);
  vec3 skinned = vec3(dot(row0, local), dot(row1, local), dot(row2, local));
  vec3 n = vec3(dot(row0.xyz, TangentZ), dot(row1.xyz, TangentZ), dot(row2.xyz, TangentZ));
  WorldNormal = normalize(mat3(LocalToWorld) * n);
  TexCoord = TexCoords0;
  gl_Position = TranslatedWorldToClip * LocalToWorld * vec4(skinned, 1.0);
}
