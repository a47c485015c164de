// Triangle rasterization with Vulkan's rules (contract: raster.h): homogeneous clipping, fixed-point setup in
// the manner of Mesa llvmpipe's lp_setup_tri.c (8 fractional bits, exact integer edge functions, a fill-rule
// bias), depth test, perspective-correct barycentrics mapped back through the clipping, and a tiled split of
// the framebuffer over threads.
#include "raster/raster.h"
#include "core/worker_pool.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

namespace skinref {
namespace {

using Int128 = __int128;

constexpr int64_t kSubpixelScale = int64_t(1) << kSubpixelBits;  // 256 units per pixel
constexpr int64_t kHalfPixel = kSubpixelScale / 2;               // a pixel centre is at 256 x + 128
constexpr int kTileSize = 64;                                    // pixels; tile t belongs to thread t % threads
constexpr size_t kBatchTriangles = size_t(1) << 16;             // triangles set up per parallel pass
constexpr size_t kMinTrianglesPerRange = 1024;

// Fixed-point magnitudes below which every edge-function value of the pass fits in int64: coordinate
// differences stay below 2^30, products below 2^60, sums of two products below 2^61.
constexpr int64_t kNarrowLimit = int64_t(1) << 29;

// ---- clipping -------------------------------------------------------------------------------------------

// A polygon vertex during clipping: its clip-space position and its barycentric coordinates with respect to
// the original triangle (the original vertices are (1,0,0), (0,1,0), (0,0,1)).
struct ClipVertex {
  double p[4];
  double b[3];
};

// Sutherland-Hodgman starts with 3 vertices and each of the 6 planes adds at most one.
constexpr int kMaxPolygon = 3 + 6;
constexpr int kClipPlanes = 6;

// The clip planes, each as a value that is >= 0 inside: z >= 0, z <= w, then the guard band
// x <= G w, -x <= G w, y <= G w, -y <= G w.
double plane_value(const double* p, int plane) {
  switch (plane) {
    case 0: return p[2];
    case 1: return p[3] - p[2];
    case 2: return kGuardBand * p[3] - p[0];
    case 3: return kGuardBand * p[3] + p[0];
    case 4: return kGuardBand * p[3] - p[1];
    default: return kGuardBand * p[3] + p[1];
  }
}

// Bit k set when the point is outside clip plane k.
unsigned outcode(const double* p) {
  unsigned code = 0;
  for (int plane = 0; plane < kClipPlanes; ++plane) {
    if (!(plane_value(p, plane) >= 0.0)) code |= 1u << plane;
  }
  return code;
}

// Bit k set when the point is outside the visible frustum's side k (x <= w, -x <= w, y <= w, -y <= w).
// Only used to drop triangles early: when all three vertices are outside the same side, every point of
// the triangle is, and after the viewport and snapping its bounding box misses every pixel centre (the
// coordinates land at least 1/2 pixel beyond the framebuffer edge less a rounding), so nothing changes.
unsigned side_code(const double* p) {
  unsigned code = 0;
  if (p[0] > p[3]) code |= 1u;
  if (-p[0] > p[3]) code |= 2u;
  if (p[1] > p[3]) code |= 4u;
  if (-p[1] > p[3]) code |= 8u;
  return code;
}

// One Sutherland-Hodgman pass against `plane`. The intersection on an edge is always computed from its
// inside vertex towards its outside one, so an edge shared by two triangles is cut at the same point in
// both, whichever direction each traverses it. A vertex exactly on the plane is inside and is not
// duplicated.
int clip_against(const ClipVertex* in, int count, ClipVertex* out, int plane) {
  int written = 0;
  for (int i = 0; i < count; ++i) {
    const ClipVertex& a = in[i];
    const ClipVertex& b = in[(i + 1) % count];
    const double da = plane_value(a.p, plane), db = plane_value(b.p, plane);
    const bool a_inside = da >= 0.0, b_inside = db >= 0.0;
    if (a_inside) out[written++] = a;
    if (a_inside == b_inside) continue;
    const ClipVertex& inside = a_inside ? a : b;
    const ClipVertex& outside = a_inside ? b : a;
    const double d_in = a_inside ? da : db, d_out = a_inside ? db : da;
    if (d_in == 0.0) continue;  // the crossing is the inside vertex itself, already in the polygon
    const double t = d_in / (d_in - d_out);
    ClipVertex& v = out[written++];
    for (int k = 0; k < 4; ++k) v.p[k] = inside.p[k] + t * (outside.p[k] - inside.p[k]);
    for (int k = 0; k < 3; ++k) v.b[k] = inside.b[k] + t * (outside.b[k] - inside.b[k]);
  }
  return written;
}

// ---- setup ----------------------------------------------------------------------------------------------

// A triangle ready for coverage: snapped framebuffer positions, oriented so that its integer area is
// positive, with what interpolation needs per vertex.
struct SetupTriangle {
  int64_t x[3], y[3];  // framebuffer position in 1/256 pixel
  double z[3];         // z_f = z / w
  double w[3];         // clip w (> 0 after clipping)
  double b[3][3];      // the vertex's barycentric coordinates with respect to the original triangle
  int x0, x1, y0, y1;  // pixel bounding box, inclusive, inside the framebuffer
  uint32_t id;         // index of the original triangle
  bool front;
  bool narrow;  // every edge-function value fits in int64 (see kNarrowLimit)
};

// Floor and ceiling of a / b for b > 0.
int64_t floor_div(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }
int64_t ceil_div(int64_t a, int64_t b) { return -floor_div(-a, b); }

struct Projected {
  int64_t x, y;
  double z, w;
  const double* b;
};

// Twice the signed area of the snapped triangle, E = (x1 - x0)(y2 - y0) - (y1 - y0)(x2 - x0), exactly.
Int128 doubled_area(const Projected& v0, const Projected& v1, const Projected& v2) {
  return Int128(v1.x - v0.x) * Int128(v2.y - v0.y) - Int128(v1.y - v0.y) * Int128(v2.x - v0.x);
}

// Facing, culling, orientation and bounding box of one (sub-)triangle. Returns false when it covers nothing.
//
// Facing. Vulkan (spec "Basic Polygon Rasterization") computes a = -1/2 sum_i (x_i y_{i+1} - x_{i+1} y_i)
// over the framebuffer coordinates; with frontFace = COUNTER_CLOCKWISE, a > 0 is front-facing. The sum is
// twice the standard signed area, so a = -E / 2 and front means E < 0. That is the right test for glTF's
// counter-clockwise front faces: a triangle counter-clockwise as seen by the camera stays counter-clockwise
// in the camera's (x right, y up) image plane; the projection flips y (clip y = -w is the top row) and the
// framebuffer's y grows downwards, so one mirror takes it to framebuffer coordinates, and a mirror negates
// E. Example: a view-space triangle (0,0,-5), (1,0,-5), (0,1,-5), counter-clockwise from the camera, lands
// at (c, c), (c + d, c), (c, c - d) in the framebuffer (y up becomes y smaller): E = d * (-d) - 0 < 0,
// front. flip_winding (a mirroring node transform) swaps the two.
bool setup_triangle(const Projected& p0, const Projected& p1, const Projected& p2, uint32_t id,
                    const RasterTriangle& tri, const RasterOptions& options, SetupTriangle* out) {
  Int128 area = doubled_area(p0, p1, p2);
  if (area == 0) return false;  // degenerate after snapping: covers nothing
  const bool front = (area < 0) != tri.flip_winding;
  if (tri.cull_back_faces && !front) return false;

  // Orient so that E > 0 (clockwise as drawn in the y-down framebuffer): then every edge function below is
  // positive inside, for either input winding.
  const Projected* v[3] = {&p0, &p1, &p2};
  if (area < 0) std::swap(v[1], v[2]);

  int64_t min_x = v[0]->x, max_x = v[0]->x, min_y = v[0]->y, max_y = v[0]->y;
  for (int i = 1; i < 3; ++i) {
    min_x = std::min(min_x, v[i]->x), max_x = std::max(max_x, v[i]->x);
    min_y = std::min(min_y, v[i]->y), max_y = std::max(max_y, v[i]->y);
  }
  // Pixels whose centre 256 p + 128 lies in [min, max], clamped to the framebuffer.
  const int64_t x0 = std::max<int64_t>(0, ceil_div(min_x - kHalfPixel, kSubpixelScale));
  const int64_t x1 = std::min<int64_t>(options.width - 1, floor_div(max_x - kHalfPixel, kSubpixelScale));
  const int64_t y0 = std::max<int64_t>(0, ceil_div(min_y - kHalfPixel, kSubpixelScale));
  const int64_t y1 = std::min<int64_t>(options.height - 1, floor_div(max_y - kHalfPixel, kSubpixelScale));
  if (x0 > x1 || y0 > y1) return false;

  for (int i = 0; i < 3; ++i) {
    out->x[i] = v[i]->x;
    out->y[i] = v[i]->y;
    out->z[i] = v[i]->z;
    out->w[i] = v[i]->w;
    for (int k = 0; k < 3; ++k) out->b[i][k] = v[i]->b[k];
  }
  out->x0 = int(x0), out->x1 = int(x1), out->y0 = int(y0), out->y1 = int(y1);
  out->id = id;
  out->front = front;
  const int64_t extent = std::max({-min_x, max_x, -min_y, max_y, (int64_t(options.width) + 1) * kSubpixelScale,
                                   (int64_t(options.height) + 1) * kSubpixelScale});
  out->narrow = extent < kNarrowLimit;
  return true;
}

// Viewport transform and snapping (raster.h): x_f = (x / w + 1) * width / 2, rounded to the nearest 1/256
// pixel, halfway cases away from zero (std::llround).
bool project(const ClipVertex& v, const RasterOptions& options, int64_t* x, int64_t* y, double* z) {
  const double xf = (v.p[0] / v.p[3] + 1.0) * options.width / 2.0;
  const double yf = (v.p[1] / v.p[3] + 1.0) * options.height / 2.0;
  // After clipping |x|, |y| <= G w: |x_f| stays near G * width, far inside the range of llround.
  if (!std::isfinite(xf) || !std::isfinite(yf)) return false;
  *x = std::llround(xf * double(kSubpixelScale));
  *y = std::llround(yf * double(kSubpixelScale));
  *z = v.p[2] / v.p[3];
  return true;
}

// Clips triangle `id`, projects and fans the polygon, and hands every (sub-)triangle that may cover a pixel
// to `emit`, in fan order.
template <class Emit>
void setup_clipped(const RasterTriangle& tri, uint32_t id, const RasterOptions& options, Emit&& emit) {
  static constexpr double kUnit[3][3] = {{1.0, 0.0, 0.0}, {0.0, 1.0, 0.0}, {0.0, 0.0, 1.0}};
  ClipVertex polygon[2][kMaxPolygon];
  for (int i = 0; i < 3; ++i) {
    for (int k = 0; k < 4; ++k) {
      polygon[0][i].p[k] = tri.clip[i][k];
      if (!std::isfinite(polygon[0][i].p[k])) return;  // a non-finite vertex: the triangle covers nothing
    }
    for (int k = 0; k < 3; ++k) polygon[0][i].b[k] = kUnit[i][k];
  }
  const unsigned c0 = outcode(polygon[0][0].p), c1 = outcode(polygon[0][1].p), c2 = outcode(polygon[0][2].p);
  if ((c0 & c1 & c2) != 0) return;  // wholly outside one clip plane
  if ((side_code(polygon[0][0].p) & side_code(polygon[0][1].p) & side_code(polygon[0][2].p)) != 0) return;

  // A triangle inside every plane is not clipped. Otherwise every pass runs, even for planes its vertices
  // are all inside: a vertex made by an earlier pass may fall outside one by a rounding, and an edge shared
  // with a neighbour must go through the same passes in both triangles to be cut at the same points. (An
  // edge whose ends are inside every plane passes through unchanged, so a neighbour that skips clipping
  // agrees too.)
  int count = 3, current = 0;
  if ((c0 | c1 | c2) != 0) {
    for (int plane = 0; plane < kClipPlanes && count >= 3; ++plane) {
      count = clip_against(polygon[current], count, polygon[1 - current], plane);
      current = 1 - current;
    }
  }
  if (count < 3) return;

  Projected projected[kMaxPolygon];
  for (int i = 0; i < count; ++i) {
    const ClipVertex& v = polygon[current][i];
    // z >= 0 and z <= w leave w >= 0; w == 0 only at the origin of clip space, which has no image.
    if (!(v.p[3] > 0.0)) return;
    if (!project(v, options, &projected[i].x, &projected[i].y, &projected[i].z)) return;
    projected[i].w = v.p[3];
    projected[i].b = v.b;
  }
  SetupTriangle setup;
  for (int i = 1; i + 1 < count; ++i) {
    if (setup_triangle(projected[0], projected[i], projected[i + 1], id, tri, options, &setup)) emit(setup);
  }
}

// ---- coverage and shading -------------------------------------------------------------------------------

// Rasterizes `t` over the pixels [x0, x1] x [y0, y1] (already inside its bounding box). Int is int64_t when
// t.narrow, else Int128; the results are the same integers either way.
//
// Edge functions. With the vertices oriented so that E > 0, edge i runs from a = v[i+1] to b = v[i+2] and
//   E_i(P) = (b.x - a.x)(P.y - a.y) - (b.y - a.y)(P.x - a.x),
// so E_i(v[i]) = E and E_0 + E_1 + E_2 = E everywhere: E_i > 0 on the inside of edge i, and E_i / E is the
// screen-space barycentric coordinate of vertex i.
//
// Top-left rule (y down). In this orientation (clockwise as drawn on screen) the boundary is walked with the
// inside on the right hand in the y-down frame. A top edge is horizontal with the third vertex below it:
// with E_i(v[i]) = (b.x - a.x)(v[i].y - a.y) > 0 and v[i].y > a.y that is dy = 0, dx > 0. A left edge is
// on the triangle's left side, walked upwards in this orientation: dy < 0. A sample on an edge (E_i == 0)
// is covered only on top and left edges; edges that are neither get a bias of 1, and a sample is covered
// when E_i - bias_i >= 0 for all three: E_i > 0, or E_i == 0 on a top or left edge. The test is on exact
// integers, so it is the definition itself; stepping from pixel to pixel adds the exact differences
// -256 dy_i (one pixel right) and 256 dx_i (one row down).
//
// Shading of a covered sample, in doubles:
//   depth z = z_0 + E_1 ((z_1 - z_0) / E) + E_2 ((z_2 - z_0) / E), the linear interpolation in screen space
//   (exact when the triangle has one depth), clamped to [0, 1] (clipping keeps it there but for roundings),
//   rounded to float, and tested z < depth (LESS); when it passes, the screen-space barycentrics
//   b_i = E_i / E give the perspective-correct c_i = (b_i / w_i) / sum_j (b_j / w_j) over this (sub-)triangle,
//   mapped back to the original triangle through the vertices' barycentrics: sum_i c_i B_i.
template <class Int>
void raster_rect(const SetupTriangle& t, int x0, int x1, int y0, int y1, RasterBuffers& out) {
  Int row[3], step_x[3], step_y[3], bias[3];
  const int64_t sample_x = int64_t(x0) * kSubpixelScale + kHalfPixel;
  const int64_t sample_y = int64_t(y0) * kSubpixelScale + kHalfPixel;
  for (int i = 0; i < 3; ++i) {
    const int a = (i + 1) % 3, b = (i + 2) % 3;
    const int64_t dx = t.x[b] - t.x[a], dy = t.y[b] - t.y[a];
    const bool top_left = dy < 0 || (dy == 0 && dx > 0);
    bias[i] = top_left ? 0 : 1;
    row[i] = Int(dx) * Int(sample_y - t.y[a]) - Int(dy) * Int(sample_x - t.x[a]) - bias[i];
    step_x[i] = -Int(dy) * Int(kSubpixelScale);
    step_y[i] = Int(dx) * Int(kSubpixelScale);
  }
  const Int area = Int(t.x[1] - t.x[0]) * Int(t.y[2] - t.y[0]) - Int(t.y[1] - t.y[0]) * Int(t.x[2] - t.x[0]);
  const double area_d = double(area);
  const double z_step1 = (t.z[1] - t.z[0]) / area_d, z_step2 = (t.z[2] - t.z[0]) / area_d;
  const size_t width = size_t(out.width);

  for (int y = y0; y <= y1; ++y) {
    Int e0 = row[0], e1 = row[1], e2 = row[2];
    size_t index = size_t(y) * width + size_t(x0);
    for (int x = x0; x <= x1; ++x, ++index, e0 += step_x[0], e1 += step_x[1], e2 += step_x[2]) {
      if ((e0 | e1 | e2) < 0) continue;  // some E_i - bias_i < 0: not covered
      const double e1_d = double(e1 + bias[1]), e2_d = double(e2 + bias[2]);
      const float depth = float(std::clamp(t.z[0] + e1_d * z_step1 + e2_d * z_step2, 0.0, 1.0));
      if (!(depth < out.depth[index])) continue;
      const double b0 = double(e0 + bias[0]) / area_d, b1 = e1_d / area_d, b2 = e2_d / area_d;
      out.depth[index] = depth;
      out.triangle[index] = t.id;
      out.front_facing[index] = t.front ? 1 : 0;
      const double q0 = b0 / t.w[0], q1 = b1 / t.w[1], q2 = b2 / t.w[2];
      const double sum = q0 + q1 + q2;
      const double c0 = q0 / sum, c1 = q1 / sum, c2 = q2 / sum;
      Vec3& bary = out.barycentric[index];
      for (int k = 0; k < 3; ++k) bary[k] = c0 * t.b[0][k] + c1 * t.b[1][k] + c2 * t.b[2][k];
    }
    for (int i = 0; i < 3; ++i) row[i] += step_y[i];
  }
}

void raster_in(const SetupTriangle& t, int x0, int x1, int y0, int y1, RasterBuffers& out) {
  x0 = std::max(x0, t.x0), x1 = std::min(x1, t.x1);
  y0 = std::max(y0, t.y0), y1 = std::min(y1, t.y1);
  if (x0 > x1 || y0 > y1) return;
  if (t.narrow) {
    raster_rect<int64_t>(t, x0, x1, y0, y1, out);
  } else {
    raster_rect<Int128>(t, x0, x1, y0, y1, out);
  }
}

// Runs work(k) for k in [0, count): k = 0 on the calling thread, the others on the worker threads.
template <class F>
void run_parallel(int count, F&& work) {
  using Work = std::remove_reference_t<F>;
  detail::run_on_workers(size_t(count), [](void* context, size_t k) { (*static_cast<Work*>(context))(int(k)); },
                         &work);
}

}  // namespace

RasterBuffers rasterize(std::span<const RasterTriangle> triangles, const RasterOptions& options) {
  if (options.width <= 0 || options.height <= 0) {
    throw std::invalid_argument("rasterize: width and height must be > 0, got " + std::to_string(options.width) +
                                " x " + std::to_string(options.height));
  }
  if (options.threads < 1) {
    throw std::invalid_argument("rasterize: threads must be >= 1, got " + std::to_string(options.threads));
  }
  if (triangles.size() >= size_t(RasterBuffers::kNoTriangle)) {
    throw std::invalid_argument("rasterize: too many triangles for 32-bit ids: " + std::to_string(triangles.size()));
  }

  RasterBuffers out;
  out.width = options.width;
  out.height = options.height;
  const size_t pixels = size_t(options.width) * size_t(options.height);
  out.depth.assign(pixels, 1.0f);
  out.triangle.assign(pixels, RasterBuffers::kNoTriangle);
  out.barycentric.assign(pixels, Vec3::Zero());
  out.front_facing.assign(pixels, 0);

  if (options.threads == 1) {
    // One thread: each triangle is set up and drawn over its whole bounding box, in input order.
    for (size_t i = 0; i < triangles.size(); ++i) {
      setup_clipped(triangles[i], uint32_t(i), options, [&](const SetupTriangle& t) {
        raster_in(t, t.x0, t.x1, t.y0, t.y1, out);
      });
    }
    return out;
  }

  // Several threads. Per batch of triangles: (1) contiguous ranges of the batch are set up in parallel, each
  // range into its own list, with per-tile bins of its set-up triangles in order; (2) thread k draws the tiles
  // t with t % threads == k, and in each tile every range's binned triangles in range order. A pixel thus sees
  // the triangles in input order whatever the thread count, and only its tile's thread writes it.
  const int tiles_x = (options.width + kTileSize - 1) / kTileSize;
  const int tiles_y = (options.height + kTileSize - 1) / kTileSize;
  const size_t tiles = size_t(tiles_x) * size_t(tiles_y);
  const int threads = options.threads;
  const size_t max_ranges = std::min<size_t>(size_t(threads), kBatchTriangles / kMinTrianglesPerRange);
  std::vector<std::vector<SetupTriangle>> setups(max_ranges);
  std::vector<std::vector<std::vector<uint32_t>>> bins(max_ranges, std::vector<std::vector<uint32_t>>(tiles));

  for (size_t batch = 0; batch < triangles.size(); batch += kBatchTriangles) {
    const size_t count = std::min(kBatchTriangles, triangles.size() - batch);
    const size_t ranges = std::min<size_t>(max_ranges, std::max<size_t>(1, count / kMinTrianglesPerRange));
    const size_t chunk = (count + ranges - 1) / ranges;
    run_parallel(int(ranges), [&](int r) {
      std::vector<SetupTriangle>& list = setups[size_t(r)];
      std::vector<std::vector<uint32_t>>& range_bins = bins[size_t(r)];
      list.clear();
      for (std::vector<uint32_t>& bin : range_bins) bin.clear();
      const size_t begin = batch + std::min(count, size_t(r) * chunk);
      const size_t end = batch + std::min(count, size_t(r) * chunk + chunk);
      for (size_t i = begin; i < end; ++i) {
        setup_clipped(triangles[i], uint32_t(i), options, [&](const SetupTriangle& t) {
          const uint32_t index = uint32_t(list.size());
          list.push_back(t);
          for (int ty = t.y0 / kTileSize; ty <= t.y1 / kTileSize; ++ty) {
            for (int tx = t.x0 / kTileSize; tx <= t.x1 / kTileSize; ++tx) {
              range_bins[size_t(ty) * size_t(tiles_x) + size_t(tx)].push_back(index);
            }
          }
        });
      }
    });
    run_parallel(threads, [&](int k) {
      for (size_t tile = size_t(k); tile < tiles; tile += size_t(threads)) {
        const int px = int(tile % size_t(tiles_x)) * kTileSize, py = int(tile / size_t(tiles_x)) * kTileSize;
        for (size_t r = 0; r < ranges; ++r) {
          for (uint32_t index : bins[r][tile]) {
            raster_in(setups[r][index], px, px + kTileSize - 1, py, py + kTileSize - 1, out);
          }
        }
      }
    });
  }
  return out;
}

}  // namespace skinref
