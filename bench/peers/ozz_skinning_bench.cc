// ozz-animation's ozz::geometry::SkinningJob on the mesh of skinref's BM_Skin/cpu_1t/lbs/vertices:N/influences:4,
// timed with std::chrono. Not part of skinref's build: bench/peers/ozz_compare.sh compiles it against an ozz
// source tree given on its command line (include/ and src/geometry/runtime/skinning_job.cc; the job's maths are
// header-only) and runs it beside skinref_bench.
//
// What it does, and how it matches skinref's case (bench/bench_scenes.cc, bench/bench_skinning.cc):
// - Mesh: N vertices (default 1,000,000), each from the same function of its index as
//   make_skinning_bench_scene(): positions in a box around the skeleton, unit normals, 4 distinct joints
//   base + i * step (mod 64) and weights that are multiples of 1/256 summing to exactly 1, rounded to float32.
//   In ozz's layout: float3 positions and normals (12-byte strides, array of structs), 4 uint16 joint indices
//   per vertex and the first 3 weights (ozz restores the last as 1 - their sum, exact here).
// - Palette: 64 rigid joint matrices (a rotation about a per-joint axis and a translation), as skinref's
//   palette is (the posed globals times the inverse rest globals of a skeleton without scale); their values
//   are not skinref's, which does not change the work: neither code branches on them.
// - Work per run: positions and normals, one thread, one SkinningJob::Run() over all vertices, outputs reused
//   (as skinref's cpu_1t case reuses its outputs). ozz transforms normals by the blended matrix and does not
//   normalize them; skinref takes the cofactor of the blended matrix and normalizes (more work per vertex). With
//   --inverse-transpose, ozz blends a second palette (the inverse transposes) for the normals, its path for
//   non-rigid palettes.
// - Timing: --warmup runs (default 5), then --samples samples (default 5) of --iterations runs each (default
//   50), each sample's rate = vertices x iterations / its std::chrono::steady_clock time. Prints each sample,
//   then the median in one line: `vertices_per_second_median=<value>` (vertices per second, what skinref's
//   vertices/s counter counts).
// - Check: before timing, every 997th vertex (and the last) is skinned again in double from the same float
//   inputs and compared; a difference above 1e-4 (positions span about 8 units) exits with status 1.
#include "ozz/base/maths/simd_math.h"
#include "ozz/base/span.h"
#include "ozz/geometry/runtime/skinning_job.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

constexpr int kJoints = 64;     // kSkinningBenchJoints
constexpr int kInfluences = 4;  // the case compared

// bench_scenes.cc's mix(): SplitMix64's finalizer.
uint64_t mix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

double unit_field(uint64_t bits, int shift) { return double((bits >> shift) & 0x1FFFFFu) / 1048576.0 - 1.0; }

struct Mesh {
  std::vector<float> positions, normals;  // 3 per vertex
  std::vector<uint16_t> joints;           // 4 per vertex
  std::vector<float> weights;             // 3 per vertex (ozz restores the 4th)
};

Mesh make_mesh(size_t vertices) {
  Mesh mesh;
  mesh.positions.resize(3 * vertices);
  mesh.normals.resize(3 * vertices);
  mesh.joints.resize(kInfluences * vertices);
  mesh.weights.resize((kInfluences - 1) * vertices);
  for (size_t v = 0; v < vertices; ++v) {
    const uint64_t h0 = mix(3 * uint64_t(v)), h1 = mix(3 * uint64_t(v) + 1), h2 = mix(3 * uint64_t(v) + 2);
    mesh.positions[3 * v + 0] = float(unit_field(h0, 0));
    mesh.positions[3 * v + 1] = float(4.0 * (unit_field(h0, 21) + 1.0));
    mesh.positions[3 * v + 2] = float(unit_field(h0, 42));
    double n[3] = {unit_field(h1, 0), unit_field(h1, 21), unit_field(h1, 42)};
    const double length = std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    if (length < 1e-3) {
      n[0] = 0.0, n[1] = 1.0, n[2] = 0.0;
    } else {
      for (double& c : n) c /= length;
    }
    for (int c = 0; c < 3; ++c) mesh.normals[3 * v + c] = float(n[c]);
    const uint32_t base = uint32_t(h2 & 63u), step = 2u * uint32_t((h2 >> 6) & 3u) + 1u;
    uint32_t rest_units = 256;
    float w[kInfluences];
    for (int i = 1; i < kInfluences; ++i) {
      const uint32_t units = 1u + uint32_t((h2 >> (16 + 5 * i)) & 31u);
      mesh.joints[kInfluences * v + i] = uint16_t((base + uint32_t(i) * step) & 63u);
      w[i] = float(units) / 256.0f;
      rest_units -= units;
    }
    mesh.joints[kInfluences * v] = uint16_t(base);
    w[0] = float(rest_units) / 256.0f;
    for (int i = 0; i < kInfluences - 1; ++i) mesh.weights[(kInfluences - 1) * v + i] = w[i];
  }
  return mesh;
}

// Column-major 4x4 (what ozz::math::Float4x4 holds), in double, rigid.
struct Rigid {
  double m[16];
};

Rigid joint_matrix(int j) {
  double axis[3] = {std::sin(0.9 * j), 1.0, std::cos(0.9 * j) + 0.5};
  const double length = std::sqrt(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]);
  for (double& c : axis) c /= length;
  const double angle = 0.55 + 0.05 * (j % 7);
  const double c = std::cos(angle), s = std::sin(angle), t = 1.0 - c;
  const double x = axis[0], y = axis[1], z = axis[2];
  const double r[3][3] = {{t * x * x + c, t * x * y - s * z, t * x * z + s * y},
                          {t * x * y + s * z, t * y * y + c, t * y * z - s * x},
                          {t * x * z - s * y, t * y * z + s * x, t * z * z + c}};  // r[row][col]
  const double translation[3] = {0.04 + 0.01 * (j % 3), 0.01 * (1 + j % 5), -0.03 + 0.002 * j};
  Rigid out{};
  for (int col = 0; col < 3; ++col)
    for (int row = 0; row < 3; ++row) out.m[4 * col + row] = r[row][col];
  for (int row = 0; row < 3; ++row) out.m[12 + row] = translation[row];
  out.m[15] = 1.0;
  return out;
}

ozz::math::Float4x4 to_ozz(const Rigid& r) {
  ozz::math::Float4x4 m;
  for (int col = 0; col < 4; ++col)
    m.cols[col] = ozz::math::simd_float4::Load(float(r.m[4 * col]), float(r.m[4 * col + 1]), float(r.m[4 * col + 2]),
                                               float(r.m[4 * col + 3]));
  return m;
}

const char* ozz_simd_name() {
#if defined(OZZ_SIMD_REF)
  return "reference (scalar)";
#elif defined(OZZ_SIMD_AVX2) && defined(OZZ_SIMD_FMA)
  return "SSE (128-bit) with AVX2 and FMA";
#elif defined(OZZ_SIMD_AVX) && defined(OZZ_SIMD_FMA)
  return "SSE (128-bit) with AVX and FMA";
#elif defined(OZZ_SIMD_AVX)
  return "SSE (128-bit) with AVX";
#elif defined(OZZ_SIMD_SSE4_1)
  return "SSE4.1";
#else
  return "SSE2";
#endif
}

[[noreturn]] void usage(const char* message) {
  std::fprintf(stderr,
               "%s\nusage: ozz_skinning_bench [--vertices N] [--iterations N] [--samples N] [--warmup N] "
               "[--inverse-transpose]\n",
               message);
  std::exit(2);
}

long parse_count(int argc, char** argv, int& i, long minimum) {
  if (i + 1 >= argc) usage("missing value");
  char* end = nullptr;
  const long value = std::strtol(argv[++i], &end, 10);
  if (*end != '\0' || value < minimum) usage("bad value");
  return value;
}

}  // namespace

int main(int argc, char** argv) {
  long vertices = 1'000'000, iterations = 50, samples = 5, warmup = 5;
  bool inverse_transpose = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--vertices")) vertices = parse_count(argc, argv, i, 2);
    else if (!std::strcmp(argv[i], "--iterations")) iterations = parse_count(argc, argv, i, 1);
    else if (!std::strcmp(argv[i], "--samples")) samples = parse_count(argc, argv, i, 1);
    else if (!std::strcmp(argv[i], "--warmup")) warmup = parse_count(argc, argv, i, 0);
    else if (!std::strcmp(argv[i], "--inverse-transpose")) inverse_transpose = true;
    else usage("unknown argument");
  }
  if (vertices > 0x7fffffffL) usage("--vertices must fit an int (ozz's vertex_count)");

  const size_t n = size_t(vertices);
  const Mesh mesh = make_mesh(n);
  std::vector<Rigid> rigid;
  std::vector<ozz::math::Float4x4> palette;
  for (int j = 0; j < kJoints; ++j) {
    rigid.push_back(joint_matrix(j));
    palette.push_back(to_ozz(rigid.back()));
  }
  // A rigid matrix's inverse transpose is itself, but ozz does not know that: the second palette makes it blend
  // a second set of matrices, the cost the option measures.
  const std::vector<ozz::math::Float4x4> inverse_transposes = palette;
  std::vector<float> out_positions(3 * n), out_normals(3 * n);

  ozz::geometry::SkinningJob job;
  job.vertex_count = int(vertices);
  job.influences_count = kInfluences;
  job.joint_matrices = ozz::make_span(palette);
  if (inverse_transpose) job.joint_inverse_transpose_matrices = ozz::make_span(inverse_transposes);
  job.joint_indices = ozz::make_span(mesh.joints);
  job.joint_indices_stride = sizeof(uint16_t) * kInfluences;
  job.joint_weights = ozz::make_span(mesh.weights);
  job.joint_weights_stride = sizeof(float) * (kInfluences - 1);
  job.in_positions = ozz::make_span(mesh.positions);
  job.in_positions_stride = sizeof(float) * 3;
  job.in_normals = ozz::make_span(mesh.normals);
  job.in_normals_stride = sizeof(float) * 3;
  job.out_positions = ozz::make_span(out_positions);
  job.out_positions_stride = sizeof(float) * 3;
  job.out_normals = ozz::make_span(out_normals);
  job.out_normals_stride = sizeof(float) * 3;
  if (!job.Validate() || !job.Run()) {
    std::fprintf(stderr, "ozz_skinning_bench: SkinningJob refused its inputs\n");
    return 1;
  }

  // The check: a few vertices in double from the same float inputs.
  double max_error = 0.0;
  size_t checked = 0;
  const auto check = [&](size_t v) {
    double w[kInfluences], sum = 0.0;
    for (int i = 0; i < kInfluences - 1; ++i) sum += (w[i] = mesh.weights[(kInfluences - 1) * v + i]);
    w[kInfluences - 1] = 1.0 - sum;
    double m[16] = {};
    for (int i = 0; i < kInfluences; ++i) {
      const Rigid& r = rigid[mesh.joints[kInfluences * v + i]];
      for (int k = 0; k < 16; ++k) m[k] += w[i] * double(float(r.m[k]));
    }
    for (int row = 0; row < 3; ++row) {
      double p = m[12 + row], q = 0.0;
      for (int col = 0; col < 3; ++col) {
        p += m[4 * col + row] * mesh.positions[3 * v + col];
        q += m[4 * col + row] * mesh.normals[3 * v + col];
      }
      max_error = std::max({max_error, std::fabs(p - out_positions[3 * v + row]),
                            std::fabs(q - out_normals[3 * v + row])});
    }
    ++checked;
  };
  for (size_t v = 0; v < n; v += 997) check(v);
  check(n - 1);  // the job's last vertex takes its other path (_OUTER: loads that stay inside the arrays)
  if (!(max_error <= 1e-4)) {
    std::fprintf(stderr, "ozz_skinning_bench: check failed, max |error| %.3g over %zu vertices\n", max_error,
                 checked);
    return 1;
  }

  std::printf("ozz SkinningJob: %zu vertices, %d influences, positions + normals%s, %d joints, one thread; "
              "ozz SIMD: %s\n",
              n, kInfluences, inverse_transpose ? " (inverse-transpose palette)" : "", kJoints, ozz_simd_name());
  std::printf("check: max |error| %.3g over %zu vertices against double\n", max_error, checked);

  for (long i = 0; i < warmup; ++i) job.Run();
  std::vector<double> rates;
  for (long s = 0; s < samples; ++s) {
    const auto start = std::chrono::steady_clock::now();
    for (long i = 0; i < iterations; ++i) job.Run();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    rates.push_back(double(n) * double(iterations) / seconds);
    std::printf("sample %ld: %ld runs in %.4f s, %.6e vertices/s\n", s + 1, iterations, seconds, rates.back());
  }
  std::sort(rates.begin(), rates.end());
  const size_t mid = rates.size() / 2;
  const double median = rates.size() % 2 ? rates[mid] : 0.5 * (rates[mid - 1] + rates[mid]);
  std::printf("vertices_per_second_median=%.6e\n", median);
  return 0;
}
