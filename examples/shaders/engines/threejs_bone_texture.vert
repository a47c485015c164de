// Skinning as three.js writes it (skinning_pars_vertex, skinbase_vertex, skinning_vertex, skinnormal_vertex),
// in Vulkan GLSL: the bones in a float RGBA texture, four texels a bone, read at texel centres with normalized
// coordinates as three.js did before texelFetch (nearest filtering makes that exact); the position taken into
// the skeleton's space by bindMatrix and back by bindMatrixInverse; float joint indices, as WebGL reads them; a
// second UV set passed through.
//   skinref skin MODEL --backend vulkan --validate --shader examples/shaders/engines/threejs_bone_texture.vert
//       --interface examples/shaders/engines/threejs_bone_texture.json --out engine.skv
#version 450

layout(binding = 0) uniform Object {
  mat4 modelMatrix;
  mat4 viewMatrix;
  mat4 projectionMatrix;
  mat4 bindMatrix;
  mat4 bindMatrixInverse;
};

layout(binding = 1) uniform sampler2D boneTexture;

layout(location = 0) in vec3 position;
layout(location = 1) in vec3 normal;
layout(location = 2) in vec2 uv;
layout(location = 3) in vec2 uv1;
layout(location = 4) in vec4 skinIndex;
layout(location = 5) in vec4 skinWeight;

layout(location = 0) out vec3 vNormal;
layout(location = 1) out vec2 vUv;
layout(location = 2) out vec2 vUv1;

mat4 getBoneMatrix(const in float i) {
  float boneTextureSize = float(textureSize(boneTexture, 0).x);
  float j = i * 4.0;
  float x = mod(j, boneTextureSize);
  float y = floor(j / boneTextureSize);
  float dx = 1.0 / boneTextureSize;
  float dy = 1.0 / boneTextureSize;
  y = dy * (y + 0.5);
  vec4 v1 = texture(boneTexture, vec2(dx * (x + 0.5), y));
  vec4 v2 = texture(boneTexture, vec2(dx * (x + 1.5), y));
  vec4 v3 = texture(boneTexture, vec2(dx * (x + 2.5), y));
  vec4 v4 = texture(boneTexture, vec2(dx * (x + 3.5), y));
  return mat4(v1, v2, v3, v4);
}

void main() {
  mat4 boneMatX = getBoneMatrix(skinIndex.x);
  mat4 boneMatY = getBoneMatrix(skinIndex.y);
  mat4 boneMatZ = getBoneMatrix(skinIndex.z);
  mat4 boneMatW = getBoneMatrix(skinIndex.w);

  mat4 skinMatrix = mat4(0.0);
  skinMatrix += skinWeight.x * boneMatX;
  skinMatrix += skinWeight.y * boneMatY;
  skinMatrix += skinWeight.z * boneMatZ;
  skinMatrix += skinWeight.w * boneMatW;
  skinMatrix = bindMatrixInverse * skinMatrix * bindMatrix;
  vec3 objectNormal = vec4(skinMatrix * vec4(normal, 0.0)).xyz;

  vec4 skinVertex = bindMatrix * vec4(position, 1.0);
  vec4 skinned = vec4(0.0);
  skinned += boneMatX * skinVertex * skinWeight.x;
  skinned += boneMatY * skinVertex * skinWeight.y;
  skinned += boneMatZ * skinVertex * skinWeight.z;
  skinned += boneMatW * skinVertex * skinWeight.w;
  vec3 transformed = (bindMatrixInverse * skinned).xyz;

  vNormal = normalize(mat3(modelMatrix) * objectNormal);
  vUv = uv;
  vUv1 = uv1;
  gl_Position = projectionMatrix * viewMatrix * modelMatrix * vec4(transformed, 1.0);
}
