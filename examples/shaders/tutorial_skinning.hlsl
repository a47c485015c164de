// The tutorial skinning vertex shader (tutorial_skinning.vert) as HLSL, compiled by glslc -x hlsl: a constant
// buffer of float4x4 bones[512] with the model, view and projection matrices, int4 joint indices where -1 means
// "no joint", the weighted bone matrices summed, and the normal by the blended matrix's inverse transpose
// (HLSL has no inverse(): by its cofactors, divided by the determinant). Same interface as the GLSL one but the
// entry point's outputs (tutorial_skinning_hlsl.json). skinref runs it as written:
//   skinref skin MODEL --backend vulkan --shader examples/shaders/tutorial_skinning.hlsl
//       --interface examples/shaders/tutorial_skinning_hlsl.json --out engine.skv
static const int MAX_BONES = 512;
static const int MAX_BONE_INFLUENCE = 4;

[[vk::binding(0, 0)]] cbuffer Matrices {
  float4x4 finalBonesMatrices[MAX_BONES];
  float4x4 model;
  float4x4 view;
  float4x4 projection;
};

struct VertexInput {
  [[vk::location(0)]] float3 pos : POSITION;
  [[vk::location(1)]] float3 norm : NORMAL;
  [[vk::location(2)]] int4 boneIds : BLENDINDICES;
  [[vk::location(3)]] float4 weights : BLENDWEIGHT;
};

struct VertexOutput {
  float4 position : SV_Position;
  [[vk::location(0)]] float3 normal : NORMAL;
};

VertexOutput main(VertexInput input) {
  float4x4 skinMatrix = (float4x4)0;
  for (int i = 0; i < MAX_BONE_INFLUENCE; i++) {
    if (input.boneIds[i] == -1) continue;
    skinMatrix += finalBonesMatrices[input.boneIds[i]] * input.weights[i];
  }
  float4 totalPosition = mul(skinMatrix, float4(input.pos, 1.0));
  // Columns c0 c1 c2 of the blended 3x3: its inverse transpose has the columns c1 x c2, c2 x c0, c0 x c1 over
  // the determinant.
  float3 c0 = float3(skinMatrix[0][0], skinMatrix[1][0], skinMatrix[2][0]);  // skinMatrix[row][column]
  float3 c1 = float3(skinMatrix[0][1], skinMatrix[1][1], skinMatrix[2][1]);
  float3 c2 = float3(skinMatrix[0][2], skinMatrix[1][2], skinMatrix[2][2]);
  float3x3 cofactors = transpose(float3x3(cross(c1, c2), cross(c2, c0), cross(c0, c1)));
  float3 totalNormal = mul(cofactors, input.norm) / dot(c0, cross(c1, c2));

  VertexOutput output;
  output.normal = mul((float3x3)model, totalNormal);
  output.position = mul(projection, mul(view, mul(model, totalPosition)));
  return output;
}
