// Tests of the rasterizer (raster.h) against hand-computed coverage and closed forms: a small triangle's pixel
// set, the top-left rule on edges through pixel centres, a jittered tessellated quad covered exactly once
// (shared, diagonal and centre-crossing edges), near- and far-plane clipping (a mesh cut by the near plane
// stays watertight), depth-test order, perspective-correct barycentrics against ray-plane intersections,
// facing from a camera.h camera, culling and flip_winding, degenerate input, the guard band (64- and 128-bit
// edge functions), the same bytes for any thread count, and option checks.
#include "raster/camera.h"
#include "raster/raster.h"
#include "support/tolerances.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace skinref {
inline namespace SKINREF_UNITY_ID {  // unnamed, or the file's own in a unity build (CMakeLists.txt)

constexpr uint32_t kNone = RasterBuffers::kNoTriangle;

// Clip coordinates of the framebuffer point (fx, fy) at depth z for a width x height target, scaled by w
// (the viewport maps them back to (fx, fy, z)). With w = 1 and dyadic fx, fy on a power-of-two target the
// round trip is exact.
Vec4 fb(double fx, double fy, double z, int width, int height, double w = 1.0) {
  return Vec4((2.0 * fx / width - 1.0) * w, (2.0 * fy / height - 1.0) * w, z * w, w);
}

RasterTriangle triangle(const Vec4& a, const Vec4& b, const Vec4& c, bool cull = true, bool flip = false) {
  RasterTriangle t;
  t.clip[0] = a, t.clip[1] = b, t.clip[2] = c;
  t.cull_back_faces = cull;
  t.flip_winding = flip;
  return t;
}

RasterBuffers draw(const std::vector<RasterTriangle>& triangles, int width, int height, int threads = 1) {
  RasterOptions options;
  options.width = width, options.height = height, options.threads = threads;
  return rasterize(triangles, options);
}

// Coverage as text rows ('#' drawn, '.' background), so that a failure shows the picture.
std::vector<std::string> mask(const RasterBuffers& buffers) {
  std::vector<std::string> rows(size_t(buffers.height), std::string(size_t(buffers.width), '.'));
  for (int y = 0; y < buffers.height; ++y) {
    for (int x = 0; x < buffers.width; ++x) {
      if (buffers.triangle[size_t(y) * size_t(buffers.width) + size_t(x)] != kNone) rows[size_t(y)][size_t(x)] = '#';
    }
  }
  return rows;
}

std::vector<std::string> mask_of(int width, int height, const std::function<bool(int, int)>& inside) {
  std::vector<std::string> rows(size_t(height), std::string(size_t(width), '.'));
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      if (inside(x, y)) rows[size_t(y)][size_t(x)] = '#';
    }
  }
  return rows;
}

// Hits per pixel when every triangle is drawn alone: shows gaps (0) and double coverage (2) that a depth test
// would hide.
std::vector<int> hit_counts(const std::vector<RasterTriangle>& triangles, int width, int height) {
  std::vector<int> hits(size_t(width) * size_t(height), 0);
  for (const RasterTriangle& t : triangles) {
    const RasterBuffers one = draw({t}, width, height);
    for (size_t i = 0; i < hits.size(); ++i) hits[i] += one.triangle[i] != kNone ? 1 : 0;
  }
  return hits;
}

size_t pixel(const RasterBuffers& buffers, int x, int y) { return size_t(y) * size_t(buffers.width) + size_t(x); }

// View -> clip for a Vulkan-convention perspective (camera.h's contract), written out here so that the
// expected values below do not depend on camera.cc: vertical fov 90 degrees (f = 1), aspect 1, znear 1,
// infinite far: clip = (x, -y, -z - 1, -z).
Vec4 project_fov90(const Vec3& view) { return Vec4(view.x(), -view.y(), -view.z() - 1.0, -view.z()); }

// The point where the view ray through normalized device coordinates (nx, ny) of project_fov90 meets the
// plane n . p = d: the ray passes through (nx, -ny, -1) at view depth 1.
Vec3 ray_plane(double nx, double ny, const Vec3& n, double d) {
  const Vec3 direction(nx, -ny, -1.0);
  return direction * (d / n.dot(direction));
}

// Barycentric coordinates of p (in the triangle's plane) with respect to a, b, c, from signed sub-areas.
Vec3 barycentric_of(const Vec3& p, const Vec3& a, const Vec3& b, const Vec3& c) {
  const Vec3 n = (b - a).cross(c - a);
  const double area = n.squaredNorm();
  return Vec3((b - p).cross(c - p).dot(n) / area, (c - p).cross(a - p).dot(n) / area,
              (a - p).cross(b - p).dot(n) / area);
}

TEST(Raster, SmallTriangleCoversHandComputedPixels) {
  // Framebuffer vertices A (1.25, 0.75), B (6.75, 3.25), C (2.25, 7.25) on an 8x8 target. Per row, the
  // pixel centres (x + 0.5, y + 0.5) between the left edge AC, x = 1.25 + (y - 0.75) / 6.5, and the right
  // edges AB, x = 1.25 + 2.2 (y - 0.75) (y <= 3.25), and BC, x = 6.75 - 1.125 (y - 3.25):
  //   y 1.5: [1.365, 2.900] -> 1, 2      y 2.5: [1.519, 5.100] -> 2..4    y 3.5: [1.673, 6.469] -> 2..5
  //   y 4.5: [1.827, 5.344] -> 2..4      y 5.5: [1.981, 4.219] -> 2, 3    y 6.5: [2.135, 3.094] -> 2
  // (rows 0 and 7 lie outside [0.75, 7.25]; no centre is on an edge).
  const std::vector<std::string> expected = {
      "........",
      ".##.....",
      "..###...",
      "..####..",
      "..###...",
      "..##....",
      "..#.....",
      "........",
  };
  const Vec4 a = fb(1.25, 0.75, 0.5, 8, 8), b = fb(6.75, 3.25, 0.5, 8, 8), c = fb(2.25, 7.25, 0.5, 8, 8);
  // A, B, C has E = 5.5 * 6.5 - 2.5 * 1 > 0 (clockwise as drawn, y down): back-facing; A, C, B is front.
  const RasterBuffers back = draw({triangle(a, b, c, /*cull=*/false)}, 8, 8);
  const RasterBuffers front = draw({triangle(a, c, b, /*cull=*/false)}, 8, 8);
  EXPECT_EQ(mask(back), expected);
  EXPECT_EQ(mask(front), expected);
  for (size_t i = 0; i < 64; ++i) {
    if (back.triangle[i] == kNone) continue;
    EXPECT_EQ(back.front_facing[i], 0) << "pixel " << i;
    EXPECT_EQ(front.front_facing[i], 1) << "pixel " << i;
    EXPECT_EQ(back.depth[i], 0.5f) << "pixel " << i;
    // The same point has the same barycentrics whatever the vertex order: (b_A, b_B, b_C) vs (b_A, b_C, b_B).
    EXPECT_NEAR(back.barycentric[i][0], front.barycentric[i][0], tol::kClosedForm);
    EXPECT_NEAR(back.barycentric[i][1], front.barycentric[i][2], tol::kClosedForm);
    EXPECT_NEAR(back.barycentric[i][2], front.barycentric[i][1], tol::kClosedForm);
  }
  // The pixel centre (3.5, 3.5): with w = 1 the barycentrics are the screen-space ones, solved here from
  // p = A + s (B - A) + t (C - A): 5.5 s + 1.0 t = 2.25, 2.5 s + 6.5 t = 2.75 -> s = 11.875 / 33.25,
  // t = 9.5 / 33.25.
  const Vec3 at = back.barycentric[pixel(back, 3, 3)];
  EXPECT_NEAR(at[1], 11.875 / 33.25, tol::kClosedForm);
  EXPECT_NEAR(at[2], 9.5 / 33.25, tol::kClosedForm);
  EXPECT_NEAR(at[0], 1.0 - (11.875 + 9.5) / 33.25, tol::kClosedForm);
}

TEST(Raster, TopLeftRuleOnEdgesThroughPixelCentres) {
  // Two triangles splitting the square [1.5, 5.5]^2 along the diagonal x + y = 7; every edge runs through
  // pixel centres. Lower-left P = (1.5,1.5), (5.5,1.5), (1.5,5.5): its top edge y = 1.5 and left edge
  // x = 1.5 are included, its diagonal (a right edge) excluded: x >= 1, y >= 1, x + y <= 5.
  // Upper-right Q = (5.5,1.5), (5.5,5.5), (1.5,5.5): the diagonal is its left edge (included), x = 5.5 its
  // right edge and y = 5.5 its bottom edge (excluded): x <= 4, y <= 4, x + y >= 6.
  const int n = 8;
  const Vec4 p0 = fb(1.5, 1.5, 0.5, n, n), p1 = fb(5.5, 1.5, 0.5, n, n), p2 = fb(1.5, 5.5, 0.5, n, n);
  const Vec4 q0 = fb(5.5, 1.5, 0.5, n, n), q1 = fb(5.5, 5.5, 0.5, n, n), q2 = fb(1.5, 5.5, 0.5, n, n);
  const auto lower = mask_of(n, n, [](int x, int y) { return x >= 1 && y >= 1 && x + y <= 5; });
  const auto upper = mask_of(n, n, [](int x, int y) { return x <= 4 && y <= 4 && x + y >= 6; });
  // The rule is the same for either winding.
  EXPECT_EQ(mask(draw({triangle(p0, p1, p2, false)}, n, n)), lower);
  EXPECT_EQ(mask(draw({triangle(p0, p2, p1, false)}, n, n)), lower);
  EXPECT_EQ(mask(draw({triangle(q0, q1, q2, false)}, n, n)), upper);
  EXPECT_EQ(mask(draw({triangle(q0, q2, q1, false)}, n, n)), upper);
  // Together: the pixels 1..4 x 1..4 each exactly once.
  const std::vector<int> hits = hit_counts({triangle(p0, p1, p2, false), triangle(q0, q1, q2, false)}, n, n);
  for (int y = 0; y < n; ++y) {
    for (int x = 0; x < n; ++x) {
      EXPECT_EQ(hits[size_t(y * n + x)], (x >= 1 && x <= 4 && y >= 1 && y <= 4) ? 1 : 0) << x << ", " << y;
    }
  }
}

// A 7 x 5 grid of quads over the rectangle [2.5, 44.5] x [1.5, 31.5] (corners on pixel centres, cells of 6
// pixels), two front-facing triangles per quad split along alternating diagonals; interior vertices are
// jittered by non-dyadic amounts except every third, which stays on a pixel centre. Border vertices keep
// their exact border coordinate.
std::vector<RasterTriangle> jittered_grid(int width, int height, double w) {
  const int nx = 7, ny = 5;
  auto vertex = [&](int i, int j) {
    double x = 2.5 + 6.0 * i, y = 1.5 + 6.0 * j;
    const bool interior_x = i > 0 && i < nx, interior_y = j > 0 && j < ny;
    if ((i + 2 * j) % 3 != 0) {
      if (interior_x && interior_y) x += double((i * 7 + j * 3) % 5 - 2) * 0.37;
      if (interior_x && interior_y) y += double((i * 3 + j * 11) % 5 - 2) * 0.29;
      if (interior_x && !interior_y) x += double((i * 7 + j * 3) % 5 - 2) * 0.37;  // slides along the border
      if (interior_y && !interior_x) y += double((i * 3 + j * 11) % 5 - 2) * 0.29;
    }
    return fb(x, y, 0.5, width, height, w);
  };
  std::vector<RasterTriangle> triangles;
  for (int j = 0; j < ny; ++j) {
    for (int i = 0; i < nx; ++i) {
      const Vec4 p00 = vertex(i, j), p10 = vertex(i + 1, j), p01 = vertex(i, j + 1), p11 = vertex(i + 1, j + 1);
      // Each listed so that E < 0 in the y-down framebuffer (front-facing).
      if ((i + j) % 2 == 0) {
        triangles.push_back(triangle(p00, p01, p11));
        triangles.push_back(triangle(p00, p11, p10));
      } else {
        triangles.push_back(triangle(p00, p01, p10));
        triangles.push_back(triangle(p10, p01, p11));
      }
    }
  }
  return triangles;
}

TEST(Raster, TessellatedQuadCoversEveryPixelExactlyOnce) {
  const int width = 48, height = 36;
  // w = 3 makes x / w inexact, so snapping rounds; shared vertices still snap identically.
  for (const double w : {1.0, 3.0}) {
    const std::vector<RasterTriangle> grid = jittered_grid(width, height, w);
    const std::vector<int> hits = hit_counts(grid, width, height);
    // Pixel centres in [2.5, 44.5) x [1.5, 31.5): the rectangle's top and left borders are included.
    for (int y = 0; y < height; ++y) {
      for (int x = 0; x < width; ++x) {
        const bool inside = x >= 2 && x <= 43 && y >= 1 && y <= 30;
        EXPECT_EQ(hits[size_t(y * width + x)], inside ? 1 : 0) << "pixel " << x << ", " << y << ", w " << w;
      }
    }
    // Drawn together (coplanar, LESS keeps the first) every covered pixel is front-facing.
    const RasterBuffers all = draw(grid, width, height);
    for (size_t i = 0; i < all.triangle.size(); ++i) {
      if (all.triangle[i] != kNone) {
        EXPECT_EQ(all.front_facing[i], 1);
      }
    }
  }
}

TEST(Raster, TriangleCrossingTheNearPlaneCoversItsVisiblePart) {
  // A floor triangle at view y = -1 with one vertex behind the camera: A (-1,-1,-3), B (0,-1,1), C (1,-1,-3),
  // counter-clockwise seen from above (front). project_fov90 on a 48x48 target: A -> (16, 32), C -> (32, 32);
  // the near plane z = -1 cuts AB and CB at their midpoints (-0.5,-1,-1) and (0.5,-1,-1), which land on the
  // bottom border at (12, 48) and (36, 48). Visible: the trapezoid between y = 32 and 48 with sides
  // x = 16 - (y - 32) / 4 and x = 32 + (y - 32) / 4; at centres y = py + 0.5 the sides fall on odd multiples
  // of 1/8, never on a centre.
  const int n = 48;
  const Vec3 a(-1.0, -1.0, -3.0), b(0.0, -1.0, 1.0), c(1.0, -1.0, -3.0);
  const RasterBuffers buffers = draw({triangle(project_fov90(a), project_fov90(b), project_fov90(c))}, n, n);
  const auto expected = mask_of(n, n, [](int x, int y) {
    const double cy = y + 0.5, cx = x + 0.5;
    return cy > 32.0 && cx > 16.0 - (cy - 32.0) / 4.0 && cx < 32.0 + (cy - 32.0) / 4.0;
  });
  EXPECT_EQ(mask(buffers), expected);

  // Barycentrics with respect to the original triangle (behind-camera vertex included) and depth, against
  // the view ray's intersection with the floor y = -1.
  int checked = 0;
  for (int y = 0; y < n; ++y) {
    for (int x = 0; x < n; ++x) {
      const size_t i = pixel(buffers, x, y);
      if (buffers.triangle[i] == kNone) continue;
      EXPECT_EQ(buffers.front_facing[i], 1);
      const double nx = 2.0 * (x + 0.5) / n - 1.0, ny = 2.0 * (y + 0.5) / n - 1.0;
      const Vec3 p = ray_plane(nx, ny, Vec3::UnitY(), -1.0);
      const Vec3 expected_bary = barycentric_of(p, a, b, c);
      for (int k = 0; k < 3; ++k) {
        EXPECT_NEAR(buffers.barycentric[i][k], expected_bary[k], tol::kRasterBarycentric) << x << ", " << y;
      }
      EXPECT_NEAR(buffers.depth[i], 1.0 - 1.0 / -p.z(), tol::kRasterDepth) << x << ", " << y;
      ++checked;
    }
  }
  EXPECT_GT(checked, 300);
}

TEST(Raster, MeshCrossingTheNearPlaneStaysWatertight) {
  // A floor y = -1 over x in [-4, 4], z in [-6, 2], tessellated 8 x 7 with jittered interior vertices, seen
  // through project_fov90 on 64x64: many triangles cross the near plane z = -1 (the grid lines z = -6 + 8k/7
  // miss it) and their shared edges are clipped in both neighbours. A floor point projects to
  // NDC (x / -z, 1 / -z), so the visible floor is y_ndc >= 1/6 (framebuffer y >= 37.33) with
  // |x_ndc| <= 4 y_ndc; those side lines cross the centre rows at integer x, half a pixel from any centre.
  const int n = 64, nx = 8, nz = 7;
  auto vertex = [&](int i, int j) {
    double x = -4.0 + i, z = -6.0 + 8.0 * j / nz;
    if (i > 0 && i < nx && j > 0 && j < nz) {
      x += double((i * 5 + j * 3) % 3 - 1) * 0.21;
      z += double((i * 2 + j * 7) % 3 - 1) * 0.17;
    }
    return project_fov90(Vec3(x, -1.0, z));
  };
  std::vector<RasterTriangle> floor;
  for (int j = 0; j < nz; ++j) {
    for (int i = 0; i < nx; ++i) {
      // Larger z is nearer, lower on screen: p01 is below p00. Front-facing (normal +y) orders.
      const Vec4 p00 = vertex(i, j), p10 = vertex(i + 1, j), p01 = vertex(i, j + 1), p11 = vertex(i + 1, j + 1);
      if ((i + j) % 2 == 0) {
        floor.push_back(triangle(p00, p01, p11));
        floor.push_back(triangle(p00, p11, p10));
      } else {
        floor.push_back(triangle(p00, p01, p10));
        floor.push_back(triangle(p10, p01, p11));
      }
    }
  }
  const std::vector<int> hits = hit_counts(floor, n, n);
  int covered = 0;
  for (int y = 0; y < n; ++y) {
    for (int x = 0; x < n; ++x) {
      const double nx_c = (x + 0.5) / 32.0 - 1.0, ny_c = (y + 0.5) / 32.0 - 1.0;
      const bool visible = ny_c > 1.0 / 6.0 && std::abs(nx_c) < 4.0 * ny_c;
      EXPECT_EQ(hits[size_t(y * n + x)], visible ? 1 : 0) << "pixel " << x << ", " << y;
      covered += visible ? 1 : 0;
    }
  }
  EXPECT_GT(covered, 1000);
}

TEST(Raster, FarPlaneClipsTheFarPart) {
  // Framebuffer (0,0), (0,8), (8,0) with w = 1 and z = x_f / 4: the far plane z = w cuts it at x_f = 4 (its
  // hypotenuse at (4, 4) exactly). Visible: centres with x < 4 and x + y < 8 (the hypotenuse is a right edge):
  // px <= 3 and px + py <= 6. The depth there is the analytic (px + 0.5) / 4.
  const int n = 8;
  const RasterBuffers buffers =
      draw({triangle(fb(0.0, 0.0, 0.0, n, n), fb(0.0, 8.0, 0.0, n, n), fb(8.0, 0.0, 2.0, n, n))}, n, n);
  EXPECT_EQ(mask(buffers), mask_of(n, n, [](int x, int y) { return x <= 3 && x + y <= 6; }));
  for (int y = 0; y < n; ++y) {
    for (int x = 0; x <= 3 && x + y <= 6; ++x) {
      EXPECT_NEAR(buffers.depth[pixel(buffers, x, y)], (x + 0.5) / 4.0, tol::kRasterDepth) << x << ", " << y;
    }
  }
}

TEST(Raster, DepthTestKeepsTheNearestAndTheFirstOfEqualDepths) {
  const int n = 8;
  auto square_half = [&](double z) {  // the front-facing lower-left half of [0, 8]^2: x + y < 8 at centres
    return triangle(fb(0.0, 0.0, z, n, n), fb(0.0, 8.0, z, n, n), fb(8.0, 0.0, z, n, n));
  };
  const size_t probe = 2 * n + 3;  // pixel (3, 2), covered by all of them
  {
    const RasterBuffers near_first = draw({square_half(0.25), square_half(0.75)}, n, n);
    EXPECT_EQ(near_first.triangle[probe], 0u);
    EXPECT_EQ(near_first.depth[probe], 0.25f);
    const RasterBuffers far_first = draw({square_half(0.75), square_half(0.25)}, n, n);
    EXPECT_EQ(far_first.triangle[probe], 1u);
    EXPECT_EQ(far_first.depth[probe], 0.25f);
  }
  {
    const RasterBuffers equal = draw({square_half(0.5), square_half(0.5), square_half(0.5)}, n, n);
    for (size_t i = 0; i < equal.triangle.size(); ++i) {
      if (equal.triangle[i] != kNone) {
        EXPECT_EQ(equal.triangle[i], 0u) << "pixel " << i;
      }
    }
    EXPECT_EQ(equal.triangle[probe], 0u);
  }
  {
    // On the far plane z = w the depth is 1.0, not LESS than the cleared 1.0: nothing is drawn.
    const RasterBuffers at_far = draw({square_half(1.0)}, n, n);
    EXPECT_EQ(mask(at_far), mask_of(n, n, [](int, int) { return false; }));
    // Untouched pixels keep the clear values.
    EXPECT_EQ(at_far.depth[probe], 1.0f);
    EXPECT_EQ(at_far.barycentric[probe], Vec3::Zero());
    EXPECT_EQ(at_far.front_facing[probe], 0);
  }
}

TEST(Raster, PerspectiveCorrectBarycentricsMatchRayPlaneIntersection) {
  // A quad on the tilted plane z = -3 - y (normal (0, 1, 1), facing the camera at the origin) with corners
  // P00 (-1,-1,-2), P10 (1,-1,-2), P01 (-2,1,-4), P11 (2,1,-4). project_fov90 on 64x64 puts them exactly on
  // the framebuffer points (16, 48), (48, 48), (16, 24), (48, 24): a rectangle on screen, so that linear
  // (screen-space) interpolation would be visibly wrong along y.
  const int n = 64;
  const Vec3 p00(-1.0, -1.0, -2.0), p10(1.0, -1.0, -2.0), p01(-2.0, 1.0, -4.0), p11(2.0, 1.0, -4.0);
  const Vec3 corners[2][3] = {{p00, p10, p11}, {p00, p11, p01}};  // both front-facing
  std::vector<RasterTriangle> triangles;
  for (const auto& tri : corners) {
    triangles.push_back(triangle(project_fov90(tri[0]), project_fov90(tri[1]), project_fov90(tri[2])));
  }
  const RasterBuffers buffers = draw(triangles, n, n);
  EXPECT_EQ(mask(buffers), mask_of(n, n, [](int x, int y) { return x >= 16 && x < 48 && y >= 24 && y < 48; }));

  const Vec3 normal(0.0, 1.0, 1.0);  // the plane n . p = -3
  double largest_nonlinearity = 0.0;
  for (int y = 24; y < 48; ++y) {
    for (int x = 16; x < 48; ++x) {
      const size_t i = pixel(buffers, x, y);
      ASSERT_LT(buffers.triangle[i], 2u);
      const Vec3* tri = corners[buffers.triangle[i]];
      const double nx = 2.0 * (x + 0.5) / n - 1.0, ny = 2.0 * (y + 0.5) / n - 1.0;
      const Vec3 p = ray_plane(nx, ny, normal, -3.0);
      const Vec3 expected = barycentric_of(p, tri[0], tri[1], tri[2]);
      for (int k = 0; k < 3; ++k) {
        EXPECT_NEAR(buffers.barycentric[i][k], expected[k], tol::kRasterBarycentric) << x << ", " << y << " #" << k;
      }
      EXPECT_NEAR(buffers.depth[i], 1.0 - 1.0 / -p.z(), tol::kRasterDepth) << x << ", " << y;
      // How far the perspective-correct value is from the screen-space one: the test must be able to tell.
      const Vec3 s0 = project_fov90(tri[0]).head<3>() / project_fov90(tri[0]).w();
      const Vec3 s1 = project_fov90(tri[1]).head<3>() / project_fov90(tri[1]).w();
      const Vec3 s2 = project_fov90(tri[2]).head<3>() / project_fov90(tri[2]).w();
      const Vec3 screen = barycentric_of(Vec3(nx, ny, 0.0), Vec3(s0.x(), s0.y(), 0.0), Vec3(s1.x(), s1.y(), 0.0),
                                         Vec3(s2.x(), s2.y(), 0.0));
      largest_nonlinearity = std::max(largest_nonlinearity, (screen - expected).cwiseAbs().maxCoeff());
    }
  }
  EXPECT_GT(largest_nonlinearity, 0.05);
}

TEST(Raster, FacingFromACameraCullingAndFlipWinding) {
  // A world triangle, counter-clockwise as seen from the eye (glTF's front face), in front of a camera built
  // by camera.h's look_at() and perspective().
  const Vec3 eye(3.0, 2.0, 5.0), target(0.0, 0.5, 0.0);
  const Mat4 view = look_at(eye, target, Vec3::UnitY());
  const Mat4 projection = perspective(0.8, 1.0, 0.1, 100.0);
  const Vec3 forward = (target - eye).normalized();
  const Vec3 right = forward.cross(Vec3::UnitY()).normalized();
  const Vec3 up = right.cross(forward);
  const Vec3 a = target - 1.5 * right - 1.2 * up, b = target + 1.5 * right - 1.2 * up, c = target + 1.5 * up;
  ASSERT_GT((b - a).cross(c - a).dot(eye - target), 0.0);  // counter-clockwise from the eye: the normal faces it
  auto clip = [&](const Vec3& p) -> Vec4 { return projection * view * Vec4(p.x(), p.y(), p.z(), 1.0); };
  const Vec4 ca = clip(a), cb = clip(b), cc = clip(c);
  const int n = 32;

  const RasterBuffers ccw = draw({triangle(ca, cb, cc)}, n, n);
  const std::vector<std::string> covered = mask(ccw);
  int count = 0;
  for (size_t i = 0; i < ccw.triangle.size(); ++i) {
    if (ccw.triangle[i] == kNone) continue;
    ++count;
    EXPECT_EQ(ccw.front_facing[i], 1);
  }
  EXPECT_GT(count, 50);
  // The clockwise order is a back face: culled, or drawn over the same pixels as a back face.
  const std::vector<std::string> nothing = mask_of(n, n, [](int, int) { return false; });
  EXPECT_EQ(mask(draw({triangle(ca, cc, cb)}, n, n)), nothing);
  const RasterBuffers cw_kept = draw({triangle(ca, cc, cb, /*cull=*/false)}, n, n);
  EXPECT_EQ(mask(cw_kept), covered);
  for (size_t i = 0; i < cw_kept.triangle.size(); ++i) {
    if (cw_kept.triangle[i] != kNone) {
      EXPECT_EQ(cw_kept.front_facing[i], 0);
    }
  }
  // flip_winding (a mirroring node transform) swaps front and back.
  EXPECT_EQ(mask(draw({triangle(ca, cb, cc, true, /*flip=*/true)}, n, n)), nothing);
  const RasterBuffers flipped = draw({triangle(ca, cc, cb, true, /*flip=*/true)}, n, n);
  EXPECT_EQ(mask(flipped), covered);
  for (size_t i = 0; i < flipped.triangle.size(); ++i) {
    if (flipped.triangle[i] != kNone) {
      EXPECT_EQ(flipped.front_facing[i], 1);
    }
  }
}

TEST(Raster, DegenerateTrianglesCoverNothing) {
  const int n = 8;
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  const std::vector<RasterTriangle> degenerate = {
      // Collinear, along a line of pixel centres.
      triangle(fb(0.5, 0.5, 0.5, n, n), fb(4.5, 4.5, 0.5, n, n), fb(2.5, 2.5, 0.5, n, n), false),
      // Two coincident vertices; all three coincident.
      triangle(fb(1.0, 1.0, 0.5, n, n), fb(6.0, 2.0, 0.5, n, n), fb(1.0, 1.0, 0.5, n, n), false),
      triangle(fb(3.5, 3.5, 0.5, n, n), fb(3.5, 3.5, 0.5, n, n), fb(3.5, 3.5, 0.5, n, n), false),
      // Distinct vertices within 1/512 pixel of a centre: they snap to one point.
      triangle(fb(3.5, 3.5, 0.5, n, n), fb(3.5 + 1e-4, 3.5, 0.5, n, n), fb(3.5, 3.5 + 1e-4, 0.5, n, n), false),
      // Non-finite coordinates.
      triangle(fb(0.0, 0.0, 0.5, n, n), Vec4(nan, 0.0, 0.5, 1.0), fb(0.0, 8.0, 0.5, n, n), false),
      triangle(fb(0.0, 0.0, 0.5, n, n), fb(8.0, 0.0, 0.5, n, n), Vec4(0.0, inf, 0.5, 1.0), false),
      // Wholly behind the camera (z < 0, w < 0), and w = 0 everywhere.
      triangle(Vec4(-1.0, -1.0, -2.0, -1.0), Vec4(1.0, -1.0, -2.0, -1.0), Vec4(0.0, 1.0, -2.0, -1.0), false),
      triangle(Vec4(-1.0, -1.0, 0.0, 0.0), Vec4(1.0, -1.0, 0.0, 0.0), Vec4(0.0, 1.0, 0.0, 0.0), false),
  };
  const std::vector<std::string> nothing = mask_of(n, n, [](int, int) { return false; });
  for (size_t i = 0; i < degenerate.size(); ++i) {
    EXPECT_EQ(mask(draw({degenerate[i]}, n, n)), nothing) << "triangle " << i;
  }
  // The snapped-to-a-point triangle really would cover the centre (3.5, 3.5) at a visible size.
  EXPECT_NE(mask(draw({triangle(fb(3.5, 3.5, 0.5, n, n), fb(4.0, 3.5, 0.5, n, n), fb(3.5, 4.0, 0.5, n, n), false)},
                     n, n)),
            nothing);
}

TEST(Raster, GuardBandClippedTriangleCoversTheRightPixels) {
  // A at NDC (-0.75, -0.75), C at (-0.75, 0.75), and B 1e5 NDC units out along (1, 0.5), far beyond the guard
  // band (4096) in x and y. On 64x64 A -> (8, 8), C -> (8, 56); edge AB is y = 8 + (x - 8) / 2 and CB is
  // within 1e-3 pixel of y = 56 + (x - 8) / 2 on screen. At centres x = px + 0.5 both fall 1/4 pixel from
  // the nearest centre, so the visible part is px >= 8 (x = 8 is not a centre) between the two lines.
  const int n = 64;
  auto ndc = [](double x, double y) { return Vec4(x, y, 0.5, 1.0); };
  const Vec4 a = ndc(-0.75, -0.75), c = ndc(-0.75, 0.75), b = ndc(-0.75 + 1e5, -0.75 + 5e4);
  const RasterBuffers buffers = draw({triangle(a, c, b)}, n, n);  // A, C, B: E < 0, front-facing
  EXPECT_EQ(mask(buffers), mask_of(n, n, [](int x, int y) {
              const double cx = x + 0.5, cy = y + 0.5;
              return cx > 8.0 && cy > 8.0 + (cx - 8.0) / 2.0 && cy < 56.0 + (cx - 8.0) / 2.0;
            }));
  // With w = 1 the barycentrics are screen-space ones: at the centre (20.5, 30.5), NDC (-0.359375,
  // -0.046875), solved against A, C, B in NDC.
  const Vec3 expected = barycentric_of(Vec3(-0.359375, -0.046875, 0.0), Vec3(a.x(), a.y(), 0.0),
                                       Vec3(c.x(), c.y(), 0.0), Vec3(b.x(), b.y(), 0.0));
  const Vec3 got = buffers.barycentric[pixel(buffers, 20, 30)];
  for (int k = 0; k < 3; ++k) EXPECT_NEAR(got[k], expected[k], tol::kRasterGuardBandBarycentric) << k;
}

TEST(Raster, GuardBandTriangleOnAWideTargetCoversTheRightPixels) {
  // On an 8192-pixel-wide target the guard band reaches 4097 * 4096 pixels, 2^32 in fixed point: such
  // triangles take the 128-bit edge-function path (which they need when the target is also tall: a target
  // of that size is too large for a unit test). NDC A (-1e6, 0), B (1e6, 0), C (0, 1e6) is clipped to the
  // guard band; its edge AB stays exactly on NDC y = 0 (framebuffer y = 2 of 4 rows) and the other two lie far
  // below the screen: the bottom two rows are covered, the top two not.
  const int width = 8192, height = 4;
  auto ndc = [](double x, double y) { return Vec4(x, y, 0.5, 1.0); };
  const Vec4 a = ndc(-1e6, 0.0), b = ndc(1e6, 0.0), c = ndc(0.0, 1e6);
  for (const bool reversed : {false, true}) {
    const RasterBuffers buffers = draw({reversed ? triangle(a, c, b, false) : triangle(a, b, c, false)}, width, height);
    EXPECT_EQ(mask(buffers), mask_of(width, height, [](int, int y) { return y >= 2; })) << reversed;
    for (const int x : {0, 1234, 4095, 4096, 8191}) {
      const double nx = 2.0 * (x + 0.5) / width - 1.0, ny = 2.0 * (3 + 0.5) / height - 1.0;
      const Vec3 expected = barycentric_of(Vec3(nx, ny, 0.0), Vec3(a.x(), a.y(), 0.0), Vec3(b.x(), b.y(), 0.0),
                                           Vec3(c.x(), c.y(), 0.0));
      const Vec3 got = buffers.barycentric[pixel(buffers, x, 3)];
      EXPECT_NEAR(got[0], expected[0], tol::kRasterGuardBandBarycentric) << x;
      EXPECT_NEAR(got[reversed ? 2 : 1], expected[1], tol::kRasterGuardBandBarycentric) << x;
      EXPECT_NEAR(got[reversed ? 1 : 2], expected[2], tol::kRasterGuardBandBarycentric) << x;
    }
  }
}

// A few hundred overlapping triangles from fixed formulas: varied sizes, depths and w, both windings, some
// culled, some flipped, some crossing the near plane, some reaching past the guard band.
std::vector<RasterTriangle> busy_scene(int count, int width, int height) {
  std::vector<RasterTriangle> triangles;
  for (int k = 0; k < count; ++k) {
    const double cx = std::fmod(k * 37.77, width + 20.0) - 10.0, cy = std::fmod(k * 23.13, height + 20.0) - 10.0;
    const double size = 3.0 + (k % 17) * 1.6, angle = k * 0.7;
    // The ones reaching past the guard band cover most of the target: they go to the back.
    const double z = k % 29 == 0 ? 0.9 : 0.05 + 0.8 * std::fmod(k * 0.6180339887, 1.0), w = 0.5 + (k % 5) * 0.6;
    Vec4 v[3];
    for (int i = 0; i < 3; ++i) {
      const double t = angle + (k % 2 == 0 ? 2.1 : -2.1) * i + (k % 3) * 0.2;  // both windings
      v[i] = fb(cx + size * std::cos(t), cy + size * std::sin(t), z + 0.03 * i, width, height, w);
    }
    if (k % 13 == 0) v[1] = Vec4(v[1].x(), v[1].y(), -0.5, -0.3);  // behind the camera
    if (k % 29 == 0) v[2] = Vec4(v[2].x() * 1e4, v[2].y() * 1e4 + 7e3, v[2].z(), v[2].w());  // past the guard band
    triangles.push_back(triangle(v[0], v[1], v[2], k % 3 != 0, k % 7 == 0));
  }
  return triangles;
}

void expect_identical(const RasterBuffers& a, const RasterBuffers& b, int threads) {
  ASSERT_EQ(a.depth.size(), b.depth.size());
  EXPECT_EQ(std::memcmp(a.depth.data(), b.depth.data(), a.depth.size() * sizeof(float)), 0) << threads;
  EXPECT_EQ(std::memcmp(a.triangle.data(), b.triangle.data(), a.triangle.size() * sizeof(uint32_t)), 0) << threads;
  EXPECT_EQ(std::memcmp(a.barycentric.data(), b.barycentric.data(), a.barycentric.size() * sizeof(Vec3)), 0)
      << threads;
  EXPECT_EQ(a.front_facing, b.front_facing) << threads;
}

TEST(Raster, OutputDoesNotDependOnThreadCount) {
  const int width = 200, height = 150;  // 4 x 3 tiles of 64, the last ones partial
  const std::vector<RasterTriangle> scene = busy_scene(400, width, height);
  const RasterBuffers one = draw(scene, width, height, 1);
  // The scene is busy enough to mean something: many triangles win somewhere, both facings show.
  std::set<uint32_t> winners(one.triangle.begin(), one.triangle.end());
  EXPECT_GT(winners.size(), 150u);
  EXPECT_NE(std::find(one.front_facing.begin(), one.front_facing.end(), 0), one.front_facing.end());
  EXPECT_NE(std::find(one.front_facing.begin(), one.front_facing.end(), 1), one.front_facing.end());
  for (const int threads : {2, 3, 7}) expect_identical(one, draw(scene, width, height, threads), threads);
}

TEST(Raster, OutputDoesNotDependOnThreadCountAcrossBatches) {
  // More triangles than one parallel pass sets up (2^16), small and overlapping.
  const int width = 256, height = 192;
  std::vector<RasterTriangle> scene;
  for (int k = 0; k < 140000; ++k) {
    const double cx = std::fmod(k * 7.31, width), cy = std::fmod(k * 3.17, height);
    const double z = std::fmod(k * 0.7548776662, 1.0);
    const double s = 1.0 + (k % 4);
    scene.push_back(triangle(fb(cx, cy, z, width, height), fb(cx - 0.3 * s, cy + s, z, width, height),
                             fb(cx + s, cy + 0.2 * s, z, width, height), k % 2 == 0));
  }
  const RasterBuffers one = draw(scene, width, height, 1);
  for (const int threads : {2, 5}) expect_identical(one, draw(scene, width, height, threads), threads);
}

TEST(Raster, RejectsInvalidOptions) {
  const std::vector<RasterTriangle> none;
  EXPECT_THROW(draw(none, 0, 8), std::invalid_argument);
  EXPECT_THROW(draw(none, 8, -1), std::invalid_argument);
  EXPECT_THROW(draw(none, 8, 8, 0), std::invalid_argument);
  const RasterBuffers empty = draw(none, 3, 2);
  EXPECT_EQ(empty.width, 3);
  EXPECT_EQ(empty.height, 2);
  EXPECT_EQ(empty.depth, std::vector<float>(6, 1.0f));
  EXPECT_EQ(empty.triangle, std::vector<uint32_t>(6, kNone));
  EXPECT_EQ(empty.front_facing, std::vector<uint8_t>(6, 0));
}

}  // namespace
}  // namespace skinref
