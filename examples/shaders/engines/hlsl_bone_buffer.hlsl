// An HLSL skinning vertex shader with the palette in a Buffer<float4> (a typed buffer SRV, as D3D engines bind
// one): four float4 rows a bone, built into a float4x4 row by row and applied with mul(matrix, vector); the
// normal by the blended matrix's upper 3x3; a cbuffer with the world and view-projection. glslc compiles it
// (-x hlsl): the Buffer is a uniform texel buffer at binding 1.
//   skinref skin MODEL --backend vulkan --validate --shader examples/shaders/engines/hlsl_bone_buffer.hlsl
//       --interface examples/shaders/engines/hlsl_bone_buffer.json --out engine.skv
cbuffer Frame : register(b0) {
  float4x4 World;
  float4x4 ViewProjection;
};

Buffer<float4> Bones : register(t1);

struct VSInput {
  float3 position : POSITION;
  float3 normal : NORMAL;
  uint4 indices : BLENDINDICES;
  float4 weights : BLENDWEIGHT;
};

struct VSOutput {
  float4 position : SV_Position;
  float3 normal : NORMAL;
};

float4x4 bone(uint index) {
  uint row = index * 4;
  return float4x4(Bones.Load(row), Bones.Load(row + 1), Bones.Load(row + 2), Bones.Load(row + 3));
}

VSOutput main(VSInput input) {
  float4x4 skin = input.weights.x * bone(input.indices.x) + input.weights.y * bone(input.indices.y) +
                  input.weights.z * bone(input.indices.z) + input.weights.w * bone(input.indices.w);
  VSOutput output;
  float4 world = mul(World, mul(skin, float4(input.position, 1.0)));
  output.position = mul(ViewProjection, world);
  output.normal = normalize(mul((float3x3)World, mul((float3x3)skin, input.normal)));
  return output;
}
