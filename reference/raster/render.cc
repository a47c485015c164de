// The renderer (render.h): skinned world vertices -> clip space -> rasterize (raster.h) -> per-pixel shading
// from the winning triangle and its perspective-correct barycentrics (shading.h) -> sRGB8.
#include "core/limits.h"
#include "raster/render.h"

#include "anim/local_to_model.h"
#include "core/parallel_ranges.h"
#include "raster/shading.h"

#include <limits>
#include <stdexcept>
#include <string>

namespace skinref {
namespace {

// m * v with a fixed summation order ((m0 v0 + m1 v1) + m2 v2) + m3 v3 per row, so that clip coordinates do
// not depend on how Eigen would vectorize the product.
Vec4 transform(const Mat4& m, const Vec4& v) {
  Vec4 r;
  for (int row = 0; row < 4; ++row) {
    r[row] = ((m(row, 0) * v[0] + m(row, 1) * v[1]) + m(row, 2) * v[2]) + m(row, 3) * v[3];
  }
  return r;
}

// b0 a0 + b1 a1 + b2 a2 in that order, per component.
template <class V>
V interpolate(const Vec3& b, const V& a0, const V& a1, const V& a2) {
  V r;
  for (int c = 0; c < int(r.size()); ++c) r[c] = (b[0] * a0[c] + b[1] * a1[c]) + b[2] * a2[c];
  return r;
}

double interpolate(const Vec3& b, double a0, double a1, double a2) { return (b[0] * a0 + b[1] * a1) + b[2] * a2; }

// What shading needs of each drawn primitive.
struct DrawnPrimitive {
  const Primitive* source = nullptr;
  const WorldPrimitive* world = nullptr;
  const Material* material = nullptr;  // nullptr: glTF's default material
  bool flip_winding = false;
};

class PixelShader {
 public:
  PixelShader(const Scene& scene, const std::vector<DrawnPrimitive>& drawn,
              const std::vector<uint32_t>& first_triangle, const std::vector<uint32_t>& triangle_primitive,
              const RasterBuffers& buffers, const RenderOptions& options)
      : scene_(scene),
        drawn_(drawn),
        first_triangle_(first_triangle),
        triangle_primitive_(triangle_primitive),
        buffers_(buffers),
        options_(options),
        ranged_(options.filter_sub_texel_bits > 0) {}

  // Linear RGB of pixel p; with `low` and `high`, also its range under the GPU's filter-weight quantization
  // (RenderOptions::filter_sub_texel_bits): the colour itself wherever no LINEAR texture is sampled.
  Vec3 shade(size_t p, Vec3* low = nullptr, Vec3* high = nullptr) const {
    bool has_range = false;
    const Vec3 colour = shade_colour(p, low, high, &has_range);
    if (low != nullptr && high != nullptr && !has_range) *low = *high = colour;
    return colour;
  }

 private:
  // The colour; *has_range tells whether *low and *high were set (the shaded view with ranges asked for).
  Vec3 shade_colour(size_t p, Vec3* low, Vec3* high, bool* has_range) const {
    const uint32_t id = buffers_.triangle[p];
    if (id == RasterBuffers::kNoTriangle) return kBackground;
    if (options_.view == RenderView::Depth) {
      const double d = buffers_.depth[p];
      return Vec3::Constant(1.0 - d);
    }
    const uint32_t k = triangle_primitive_[id];
    const DrawnPrimitive& drawn = drawn_[k];
    const size_t t = size_t(id - first_triangle_[k]);
    const size_t v0 = drawn.source->indices[3 * t], v1 = drawn.source->indices[3 * t + 1],
                 v2 = drawn.source->indices[3 * t + 2];
    const Vec3& b = buffers_.barycentric[p];

    if (options_.view == RenderView::Weights) {
      const Primitive& source = *drawn.source;
      const bool skinned = drawn.world->skinned;
      const int j = options_.weights_joint;
      return heat_color(interpolate(b, joint_weight(source, skinned, v0, j), joint_weight(source, skinned, v1, j),
                                    joint_weight(source, skinned, v2, j)));
    }

    const SkinnedVertices& world = drawn.world->vertices;
    Vec3 normal = Vec3::Zero();
    if (!world.normals.empty()) {
      normal = interpolate(b, world.normals[v0], world.normals[v1], world.normals[v2]);
    }
    if (normal.squaredNorm() > 0.0) {
      normal.normalize();
    } else {
      // The geometric normal; (p1 - p0) x (p2 - p0) points to the front of a counter-clockwise triangle,
      // and a mirrored rigid node turns the stored winding around.
      const Vec3& p0 = world.positions[v0];
      normal = (world.positions[v1] - p0).cross(world.positions[v2] - p0).normalized();
      if (drawn.flip_winding) normal = -normal;
    }
    const bool double_sided = drawn.material != nullptr && drawn.material->double_sided;
    if (double_sided && buffers_.front_facing[p] == 0) normal = -normal;

    if (options_.view == RenderView::Normals) {
      return Vec3(normal.x() * 0.5 + 0.5, normal.y() * 0.5 + 0.5, normal.z() * 0.5 + 0.5);
    }
    Vec3 base_low, base_high;
    const Vec3 base = base_color(drawn, b, v0, v1, v2, &base_low, &base_high);
    if (low != nullptr && high != nullptr && ranged_) {
      *has_range = true;
      // Lambert scales the base colour by a light >= 0, and the sRGB encoding is monotonic: the range's ends
      // shade and encode to the ends of the pixel's range.
      *low = shade_lambert(base_low, normal);
      *high = shade_lambert(base_high, normal);
    }
    return shade_lambert(base, normal);
  }

  // The base colour, and per channel the least and greatest it can be under the filter-weight quantization.
  Vec3 base_color(const DrawnPrimitive& drawn, const Vec3& b, size_t v0, size_t v1, size_t v2, Vec3* low,
                  Vec3* high) const {
    if (drawn.material == nullptr) return *low = *high = Vec3::Ones();
    const Material& material = *drawn.material;
    Vec3 base = material.base_color_factor.head<3>();
    *low = *high = base;
    const std::vector<Vec2>& uvs = drawn.source->texcoords0;
    if (material.base_color_texture >= 0 && material.base_color_texcoord == 0 && !uvs.empty()) {
      const Vec2 uv = interpolate(b, uvs[v0], uvs[v1], uvs[v2]);
      const Vec4 texel = sample_texture(scene_, material.base_color_texture, uv);
      for (int c = 0; c < 3; ++c) base[c] *= texel[c];
      if (ranged_) {
        const TextureSampleRange range =
            sample_texture_range(scene_, material.base_color_texture, uv, options_.filter_sub_texel_bits);
        for (int c = 0; c < 3; ++c) {
          const double a = material.base_color_factor[c] * range.low[c];
          const double z = material.base_color_factor[c] * range.high[c];
          (*low)[c] = std::min(a, z);
          (*high)[c] = std::max(a, z);
        }
      }
    }
    return base;
  }

  const Scene& scene_;
  const std::vector<DrawnPrimitive>& drawn_;
  const std::vector<uint32_t>& first_triangle_;
  const std::vector<uint32_t>& triangle_primitive_;
  const RasterBuffers& buffers_;
  const RenderOptions& options_;
  const bool ranged_;
};

void check_options(const RenderOptions& options) {
  if (size_t(options.width) * size_t(options.height) > limits::kMaxImagePixels ||
      size_t(options.width) > limits::kMaxImageDimension || size_t(options.height) > limits::kMaxImageDimension)
    throw std::invalid_argument("render_scene: image size " + std::to_string(options.width) + "x" +
                                std::to_string(options.height) + "; expected each side " +
                                limits::limit_text(limits::kMaxImageDimension, "kMaxImageDimension") + " and pixels " +
                                limits::limit_text(limits::kMaxImagePixels, "kMaxImagePixels"));
  if (options.width < 1 || options.height < 1) {
    throw std::invalid_argument("render_scene: image size " + std::to_string(options.width) + "x" +
                                std::to_string(options.height) + "; expected both >= 1");
  }
  if (options.threads < 1) throw std::invalid_argument("render_scene: threads must be >= 1");
  if (options.view == RenderView::Weights && options.weights_joint < 0) {
    throw std::invalid_argument("render_scene: the weights view needs a joint index >= 0");
  }
}

// The triangles to rasterize, with what shading needs to find each one's primitive.
struct SceneTriangles {
  std::vector<DrawnPrimitive> drawn;         // per primitive
  std::vector<RasterTriangle> triangles;     // in primitive order
  std::vector<uint32_t> triangle_primitive;  // per triangle: its primitive's index
};

// Geometry step: checks each primitive against the scene, then projects its vertices to clip space and lists
// its triangles; `first_triangle` gets each primitive's first triangle id.
// The triangles of the primitives' triangle lists; a primitive whose indices are out of range counts none
// (collect_triangles() refuses it).
size_t count_triangles(const Scene& scene, const std::vector<WorldPrimitive>& primitives) {
  size_t count = 0;
  for (const WorldPrimitive& world : primitives) {
    if (world.mesh < 0 || size_t(world.mesh) >= scene.meshes.size() || world.primitive < 0 ||
        size_t(world.primitive) >= scene.meshes[size_t(world.mesh)].primitives.size())
      continue;
    const Primitive& source = scene.meshes[size_t(world.mesh)].primitives[size_t(world.primitive)];
    if (source.topology == Topology::Triangles) count += source.indices.size() / 3;
  }
  return count;
}

SceneTriangles collect_triangles(const Scene& scene, const EvaluatedPose& pose,
                                 const std::vector<WorldPrimitive>& primitives, const RenderCamera& camera,
                                 std::vector<uint32_t>& first_triangle) {
  SceneTriangles out;
  out.drawn.resize(primitives.size());
  std::vector<DrawnPrimitive>& drawn = out.drawn;
  std::vector<RasterTriangle>& triangles = out.triangles;
  std::vector<uint32_t>& triangle_primitive = out.triangle_primitive;
  std::vector<Vec4> clip;
  // Room for every triangle at once: growing by doubling copied the million-vertex scene's 2 million
  // triangles (100 bytes each) about twenty times over.
  const size_t triangle_count = count_triangles(scene, primitives);
  triangles.reserve(triangle_count);
  triangle_primitive.reserve(triangle_count);
  for (size_t k = 0; k < primitives.size(); ++k) {
    const WorldPrimitive& world = primitives[k];
    const std::string where = "render_scene: primitive " + std::to_string(k);
    if (world.mesh < 0 || size_t(world.mesh) >= scene.meshes.size() || world.primitive < 0 ||
        size_t(world.primitive) >= scene.meshes[size_t(world.mesh)].primitives.size() || world.node < 0 ||
        size_t(world.node) >= scene.nodes.size()) {
      throw std::invalid_argument(where + ": node, mesh or primitive index out of range");
    }
    const Primitive& source = scene.meshes[size_t(world.mesh)].primitives[size_t(world.primitive)];
    if (world.vertices.positions.size() != source.vertex_count() ||
        (!world.vertices.normals.empty() && world.vertices.normals.size() != source.vertex_count())) {
      throw std::invalid_argument(where + ": vertex count differs from the scene's primitive");
    }
    DrawnPrimitive& d = drawn[k];
    d.source = &source;
    d.world = &world;
    d.material = source.material >= 0 ? &scene.materials[size_t(source.material)] : nullptr;
    // glTF: skinned nodes ignore their own transform, so only rigid nodes can mirror the stored winding.
    d.flip_winding = !world.skinned && pose.model.global[size_t(world.node)].topLeftCorner<3, 3>().determinant() < 0.0;

    first_triangle.push_back(uint32_t(triangles.size()));
    if (source.topology != Topology::Triangles) continue;
    if (triangles.size() + source.indices.size() / 3 >= size_t(RasterBuffers::kNoTriangle)) {
      throw std::invalid_argument(where + ": more triangles than 32-bit ids can number");
    }
    clip.resize(source.vertex_count());
    for (size_t v = 0; v < clip.size(); ++v) {
      const Vec3& p = world.vertices.positions[v];
      clip[v] = transform(camera.projection, transform(camera.view, Vec4(p.x(), p.y(), p.z(), 1.0)));
    }
    const bool cull = d.material == nullptr || !d.material->double_sided;
    for (size_t i = 0; i + 2 < source.indices.size(); i += 3) {
      RasterTriangle triangle;
      for (int c = 0; c < 3; ++c) {
        const uint32_t index = source.indices[i + size_t(c)];
        if (index >= clip.size()) throw std::invalid_argument(where + ": vertex index out of range");
        triangle.clip[c] = clip[index];
      }
      triangle.cull_back_faces = cull;
      triangle.flip_winding = d.flip_winding;
      triangles.push_back(triangle);
      triangle_primitive.push_back(uint32_t(k));
    }
  }
  return out;
}

// Shading step: every pixel's colour (and, with filter_sub_texel_bits, its range) encoded to sRGB8 into
// result.image (result.image_low, result.image_high) from result.buffers.
void shade_pixels(const Scene& scene, const SceneTriangles& geometry, const RenderOptions& options,
                  RenderResult& result) {
  RgbaImage& image = result.image;
  image.width = options.width;
  image.height = options.height;
  image.pixels.assign(size_t(options.width) * size_t(options.height) * 4, 0);
  const PixelShader shader(scene, geometry.drawn, result.primitive_first_triangle, geometry.triangle_primitive,
                           result.buffers, options);
  const bool ranged = options.filter_sub_texel_bits > 0;
  if (ranged) result.image_low = result.image_high = image;
  // Each pixel is shaded alone, so rows can be split among threads without changing a byte.
  const size_t width = size_t(options.width);
  // Background pixels all encode kBackground: encode it once (three pow() calls per pixel otherwise).
  const uint8_t background[3] = {encode_srgb8(kBackground[0]), encode_srgb8(kBackground[1]),
                                 encode_srgb8(kBackground[2])};
  detail::for_each_range(size_t(options.height), options.threads, 1, [&](size_t begin, size_t end) {
    for (size_t p = begin * width; p < end * width; ++p) {
      if (result.buffers.triangle[p] == RasterBuffers::kNoTriangle) {
        std::copy(background, background + 3, &image.pixels[4 * p]);
        image.pixels[4 * p + 3] = 255;
        continue;
      }
      if (!ranged) {
        const Vec3 colour = shader.shade(p);
        for (int c = 0; c < 3; ++c) image.pixels[4 * p + size_t(c)] = encode_srgb8(colour[c]);
        image.pixels[4 * p + 3] = 255;
        continue;
      }
      Vec3 low, high;
      const Vec3 colour = shader.shade(p, &low, &high);
      for (int c = 0; c < 3; ++c) {
        image.pixels[4 * p + size_t(c)] = encode_srgb8(colour[c]);
        result.image_low.pixels[4 * p + size_t(c)] = encode_srgb8(low[c]);
        result.image_high.pixels[4 * p + size_t(c)] = encode_srgb8(high[c]);
      }
      image.pixels[4 * p + 3] = result.image_low.pixels[4 * p + 3] = result.image_high.pixels[4 * p + 3] = 255;
    }
  });
  if (ranged) {
    // Background pixels have no range.
    for (size_t p = 0; p < result.buffers.triangle.size(); ++p) {
      if (result.buffers.triangle[p] != RasterBuffers::kNoTriangle) continue;
      std::copy(&image.pixels[4 * p], &image.pixels[4 * p + 4], &result.image_low.pixels[4 * p]);
      std::copy(&image.pixels[4 * p], &image.pixels[4 * p + 4], &result.image_high.pixels[4 * p]);
    }
  }
}

}  // namespace

RenderResult render_scene(const Scene& scene, const EvaluatedPose& pose,
                          const std::vector<WorldPrimitive>& primitives, const RenderCamera& camera,
                          const RenderOptions& options) {
  check_options(options);
  if (pose.model.global.size() != scene.nodes.size()) {
    throw std::invalid_argument("render_scene: the pose has " + std::to_string(pose.model.global.size()) +
                                " global transforms for " + std::to_string(scene.nodes.size()) + " nodes");
  }
  RenderResult result;
  result.primitives = primitives;

  const SceneTriangles geometry = collect_triangles(scene, pose, primitives, camera, result.primitive_first_triangle);

  RasterOptions raster_options;
  raster_options.width = options.width;
  raster_options.height = options.height;
  raster_options.threads = options.threads;
  result.buffers = rasterize(geometry.triangles, raster_options);

  shade_pixels(scene, geometry, options, result);
  return result;
}

RenderResult render_scene(const Scene& scene, const std::vector<WorldPrimitive>& primitives,
                          const RenderCamera& camera, const RenderOptions& options) {
  EvaluatedPose rest;
  rest.local = rest_pose(scene);
  rest.model = local_to_model(scene, rest.local);
  return render_scene(scene, rest, primitives, camera, options);
}

RgbaImage triangle_id_image(const RasterBuffers& buffers) {
  RgbaImage image;
  image.width = buffers.width;
  image.height = buffers.height;
  image.pixels.assign(buffers.triangle.size() * 4, 0);
  for (size_t p = 0; p < buffers.triangle.size(); ++p) {
    const uint32_t id = buffers.triangle[p];
    uint32_t value = 0;
    if (id != RasterBuffers::kNoTriangle) {
      if (id > kMaxEncodableTriangleId) {
        throw std::range_error("triangle id " + std::to_string(id) + " does not fit in 24 bits of RGB");
      }
      value = id + 1;
    }
    image.pixels[4 * p] = uint8_t(value >> 16);
    image.pixels[4 * p + 1] = uint8_t((value >> 8) & 0xffu);
    image.pixels[4 * p + 2] = uint8_t(value & 0xffu);
    image.pixels[4 * p + 3] = 255;
  }
  return image;
}

double joint_weight(const Primitive& primitive, bool skinned, size_t v, int joint) {
  if (!skinned) return 0.0;
  const size_t ipv = size_t(primitive.influences_per_vertex);
  double sum = 0.0;
  for (size_t i = 0; i < ipv; ++i) {
    if (primitive.joints[v * ipv + i] == uint32_t(joint)) sum += primitive.weights[v * ipv + i];
  }
  return sum;
}


}  // namespace skinref
