// `skinref render MODEL ... --out FILE.png`: evaluates a model at one time, rasterizes it with the reference
// rasterizer (Vulkan's rules) and writes the image; optionally the per-pixel triangle ids as a PNG and the
// skinned vertices that were drawn. With --backend vulkan the vertices are skinned by compute shaders and the
// image rendered offscreen by Vulkan (gpu/), with the same camera; with --backend cpu they are skinned by the
// fast float32 CPU backend (cpu/) and rasterized by the reference. All outputs are staged in temporary files
// and renamed together at the end, so a failure leaves none of them.
#include "core/limits.h"
#include "cli/backend_args.h"
#include "cli/cli_args.h"
#include "cli/commands.h"
#include "cli/option_groups.h"

#include "core/atomic_file.h"
#include "io/load_model.h"
#include "io/vertex_dump.h"
#include "raster/camera.h"
#include "raster/render.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <iomanip>
#include <iostream>
#include <memory>
#include <system_error>

namespace skinref::cli {
namespace {

// Each side of the image, and its pixels (core/limits.h): 16384^2 pixels would need about 10 GiB of per-pixel
// buffers, so the pixel limit is 8192^2.
constexpr long long kMaxImageSide = static_cast<long long>(limits::kMaxImageDimension);
constexpr int kDefaultImageSide = 512;

struct ImageSize {
  int width = kDefaultImageSide;
  int height = kDefaultImageSide;
};

ImageSize parse_size(const std::string& text) {
  const std::string problem = "option --size: '" + text + "' is not WxH with each side 1 to " +
                              std::to_string(kMaxImageSide) + " (e.g. 512x512)";
  const size_t x = text.find('x');
  if (x == std::string::npos) throw UsageError(problem);
  ImageSize size;
  try {
    size.width = static_cast<int>(parse_integer(text.substr(0, x), "--size", 1, kMaxImageSide));
    size.height = static_cast<int>(parse_integer(text.substr(x + 1), "--size", 1, kMaxImageSide));
  } catch (const UsageError& error) {
    // The whole value is named, with what was wrong with the side.
    const std::string detail = error.what();
    throw UsageError(problem + ": " + detail.substr(detail.find(": ") + 2));
  }
  if (size_t(size.width) * size_t(size.height) > limits::kMaxImagePixels)
    throw UsageError("option --size: '" + text + "' has " + std::to_string(size_t(size.width) * size_t(size.height)) +
                     " pixels; expected width x height " +
                     limits::limit_text(limits::kMaxImagePixels, "kMaxImagePixels") + " (e.g. 8192x8192)");
  return size;
}

// --view: the kind now, the weights joint (an index or a node name) once the model is loaded.
struct ViewSpec {
  RenderView view = RenderView::Shaded;
  std::string joint;  // for RenderView::Weights
};

ViewSpec parse_view(const std::string& text) {
  ViewSpec spec;
  const std::string weights_prefix = "weights:";
  if (text == "shaded") {
    spec.view = RenderView::Shaded;
  } else if (text == "normals") {
    spec.view = RenderView::Normals;
  } else if (text == "depth") {
    spec.view = RenderView::Depth;
  } else if (text.rfind(weights_prefix, 0) == 0 && text.size() > weights_prefix.size()) {
    spec.view = RenderView::Weights;
    spec.joint = text.substr(weights_prefix.size());
  } else {
    throw UsageError("option --view: '" + text + "' is not one of shaded, normals, depth, weights:JOINT");
  }
  return spec;
}

// A joint of the first skin: an index into its joint list, or the name of one of its joint nodes.
int resolve_weights_joint(const Scene& scene, const std::string& joint) {
  if (scene.skins.empty()) {
    throw UsageError("option --view: weights:" + joint + " given, but " + scene.source + " has no skin");
  }
  const Skin& skin = scene.skins[0];
  if (looks_like_integer(joint)) {
    return static_cast<int>(
        parse_integer(joint, "--view weights:JOINT", 0, static_cast<long long>(skin.joints.size()) - 1));
  }
  for (size_t j = 0; j < skin.joints.size(); ++j) {
    if (scene.nodes[size_t(skin.joints[j])].name == joint) return static_cast<int>(j);
  }
  std::string available;
  for (size_t j = 0; j < skin.joints.size() && j < 16; ++j) {
    available += (j == 0 ? "" : ", ") + std::to_string(j) + " '" + scene.nodes[size_t(skin.joints[j])].name + "'";
  }
  if (skin.joints.size() > 16) available += ", ...";
  throw UsageError("option --view: no joint named '" + joint + "' in the first skin of " + scene.source +
                   "; joints: " + available);
}

const char* view_name(RenderView view) {
  switch (view) {
    case RenderView::Shaded: return "shaded";
    case RenderView::Normals: return "normals";
    case RenderView::Weights: return "weights";
    case RenderView::Depth: return "depth";
  }
  return "?";
}

bool ends_with_lowercase(const std::string& path, const std::string& extension) {
  std::string lower = path;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  return lower.size() > extension.size() && lower.ends_with(extension);
}

// One line describing what a pixel shows, from the rasterizer's per-pixel triangle and barycentrics.
void print_trace(const Scene& scene, const std::vector<WorldPrimitive>& primitives, const RenderResult& rendered,
                 size_t x, size_t y) {
  const size_t p = y * size_t(rendered.image.width) + x;
  const uint8_t* rgba = &rendered.image.pixels[4 * p];
  char colour[8];
  std::snprintf(colour, sizeof colour, "#%02x%02x%02x", rgba[0], rgba[1], rgba[2]);
  std::cout << "pixel (" << x << ", " << y << "): ";
  const uint32_t id = rendered.buffers.triangle[p];
  if (id == RasterBuffers::kNoTriangle) {
    std::cout << "background, colour " << colour << "\n";
    return;
  }
  // The primitive whose triangle range holds `id` (ranges are in increasing order).
  const auto& first = rendered.primitive_first_triangle;
  const size_t k = size_t(std::upper_bound(first.begin(), first.end(), id) - first.begin()) - 1;
  const WorldPrimitive& drawn = primitives[k];
  const Primitive& source = scene.meshes[size_t(drawn.mesh)].primitives[size_t(drawn.primitive)];
  const size_t local = id - first[k];
  const Vec3& b = rendered.buffers.barycentric[p];
  std::cout << "triangle " << id << " = node " << drawn.node << " mesh " << drawn.mesh << " primitive "
            << drawn.primitive << " triangle " << local << ", vertices (" << source.indices[3 * local] << ", "
            << source.indices[3 * local + 1] << ", " << source.indices[3 * local + 2] << "), barycentrics ("
            << std::setprecision(17) << b[0] << ", " << b[1] << ", " << b[2] << "), depth "
            << rendered.buffers.depth[p] << ", " << (rendered.buffers.front_facing[p] ? "front" : "back")
            << " face, colour " << colour << "\n";
}

// --trace X,Y: a pixel, each coordinate within the largest image (the image's own size is checked later).
std::pair<long long, long long> parse_trace(const std::string& text) {
  const size_t comma = text.find(',');
  if (comma == std::string::npos) throw UsageError("option --trace: expected X,Y, got '" + text + "'");
  return std::make_pair(parse_integer(text.substr(0, comma), "--trace", 0, kMaxImageSide - 1),
                        parse_integer(text.substr(comma + 1), "--trace", 0, kMaxImageSide - 1));
}

// Everything the command line asks for, checked before the backend is created and the model loaded.
struct RenderRequest {
  std::string model, out_path;
  std::optional<std::string> ids_path, dump_path;
  PoseSelection selection;
  std::optional<std::pair<long long, long long>> trace;
  BackendOptions backend;
  SkinningOptions skinning;
  RenderOptions render;
  ViewSpec view;
  CameraSpec camera;
};

RenderRequest parse_render_args(const ParsedArgs& parsed) {
  RenderRequest request;
  require_positionals(parsed, 1, "MODEL", "render");
  request.model = parsed.positionals[0];
  request.out_path = require_value(parsed, "--out", "render");
  static const std::vector<std::string> kPng{".png"};
  require_extension(request.out_path, kPng, "--out");
  request.ids_path = parsed.value("--ids");
  if (request.ids_path) {
    require_extension(*request.ids_path, kPng, "--ids");
    if (*request.ids_path == request.out_path) throw UsageError("render: --ids and --out name the same file " + request.out_path);
  }
  request.dump_path = parsed.value("--dump");
  if (request.dump_path) {
    static const std::vector<std::string> kDump{".skv", ".json", ".ply"};
    require_extension(*request.dump_path, kDump, "--dump");
  }
  request.selection = parse_pose_selection(parsed, "render");
  if (const std::optional<std::string> text = parsed.value("--trace")) request.trace = parse_trace(*text);

  request.backend = parse_backend(parsed, request.selection, "render", false);
  if (request.backend.kind == BackendKind::Vulkan && (request.ids_path || request.trace)) {
    throw UsageError(std::string("render: ") + (request.ids_path ? "--ids" : "--trace") +
                     " shows the reference rasterizer's triangles; it needs --backend reference");
  }

  request.skinning = parse_skinning_options(parsed);  // render takes --method only
  RenderOptions& options = request.render;
  if (const std::optional<std::string> text = parsed.value("--threads")) {
    options.threads = static_cast<int>(parse_integer(*text, "--threads", 1, kMaxThreads));
  }
  request.skinning.threads = options.threads;
  if (const std::optional<std::string> text = parsed.value("--size")) {
    const ImageSize size = parse_size(*text);
    options.width = size.width;
    options.height = size.height;
  }
  const std::optional<std::pair<long long, long long>>& trace = request.trace;
  if (trace && (trace->first >= options.width || trace->second >= options.height)) {
    throw UsageError("option --trace: pixel (" + std::to_string(trace->first) + ", " + std::to_string(trace->second) +
                     ") lies outside the " + std::to_string(options.width) + "x" + std::to_string(options.height) +
                     " image");
  }
  request.view = parse_view(parsed.value("--view").value_or("shaded"));
  options.view = request.view.view;
  request.camera = parse_camera_spec(parsed.value("--camera").value_or("auto"));
  return request;
}

RenderCamera render_camera(const RenderRequest& request, const Scene& scene, const EvaluatedPose& pose) {
  const RenderOptions& options = request.render;
  const CameraSpec& camera_spec = request.camera;
  const double aspect = double(options.width) / double(options.height);
  RenderCamera camera;
  switch (camera_spec.kind) {
    case CameraSpec::Kind::Auto: {
      // One camera for every time of the clip; a recipe is framed over the model's first animation, and the
      // bind pose, which no clip samples, around itself.
      if (request.selection.still == StillPose::Bind) {
        camera = auto_camera_of_pose(scene, pose, request.skinning, aspect);
        break;
      }
      const int animation = request.selection.recipe ? resolve_animation(scene, std::nullopt) : pose.animation;
      camera = auto_camera(scene, animation, request.skinning, aspect);
      break;
    }
    case CameraSpec::Kind::Gltf:
      camera = gltf_camera(scene, pose, camera_spec.gltf_index, aspect);
      break;
    case CameraSpec::Kind::LookAt:
      camera = look_at_camera(camera_spec.eye, camera_spec.target, camera_spec.fov_degrees, aspect);
      break;
  }
  return camera;
}

// The triangles drawn (primitives of another topology draw none).
uint32_t triangle_count_of(const Scene& scene, const std::vector<WorldPrimitive>& primitives) {
  uint32_t triangle_count = 0;
  for (size_t k = 0; k < primitives.size(); ++k) {
    const Primitive& source = scene.meshes[size_t(primitives[k].mesh)].primitives[size_t(primitives[k].primitive)];
    if (source.topology == Topology::Triangles) triangle_count += uint32_t(source.indices.size() / 3);
  }
  return triangle_count;
}

// The image, and --ids and --dump when given, staged and renamed together.
void write_render_outputs(const RenderRequest& request, const Scene& scene, const SelectedPose& selected,
                          const std::vector<WorldPrimitive>& primitives, const RenderResult& rendered) {
  StagedFiles outputs;
  outputs.stage(request.out_path, [&](const std::string& path) { write_png(rendered.image, path); });
  if (request.ids_path) {
    outputs.stage(*request.ids_path, [&](const std::string& path) { write_png(triangle_id_image(rendered.buffers), path); });
  }
  if (request.dump_path) {
    const std::string& dump_path = *request.dump_path;
    VertexDump dump;
    dump.primitives = primitives;
    dump.record = dump_record_of(request.model, request.selection, selected.pose, request.skinning, request.backend, Conventions{});
    // The temporary name has no extension, so the format is chosen here from the final one.
    outputs.stage(dump_path, [&](const std::string& path) {
      write_file_atomically(path, [&](std::ostream& out) {
        if (ends_with_lowercase(dump_path, ".json")) {
          write_vertices_json(dump, out);
        } else if (ends_with_lowercase(dump_path, ".skv")) {
          write_vertices_skv(dump, out);
        } else {
          write_vertices_ply(scene, dump, out);
        }
      });
    });
  }
  outputs.commit_all();
}

void print_render_summary(const RenderRequest& request, const SelectedPose& selected, const RenderResult& rendered,
                          uint32_t triangle_count, const std::string& backend_summary) {
  std::string coverage;  // the reference's rasterizer buffers count covered pixels; the GPU image has none
  if (request.backend.kind != BackendKind::Vulkan) {
    size_t covered = 0;
    for (uint32_t id : rendered.buffers.triangle) covered += id != RasterBuffers::kNoTriangle ? 1 : 0;
    coverage = std::to_string(covered) + " pixels covered, ";
  }
  const RenderOptions& options = request.render;
  std::cout << "wrote " << request.out_path << ": " << options.width << "x" << options.height << " "
            << view_name(options.view) << ", " << triangle_count << " triangles, " << coverage << selected.description
            << " at t = " << selected.pose.time << " s" << backend_summary << "\n";
}

int run_render(const ParsedArgs& parsed) {
  // Every check that needs no model comes first, so that usage errors do not wait for a load.
  RenderRequest request = parse_render_args(parsed);
  // Before the model loads, so that an unknown --device is reported at once.
  const std::unique_ptr<Backend> backend = make_backend(request.backend);

  const Scene scene = load_model(request.model, {}, parse_import_options(parsed));
  if (request.view.view == RenderView::Weights)
    request.render.weights_joint = resolve_weights_joint(scene, request.view.joint);
  const SelectedPose selected = backend_pose(*backend, scene, request.selection);
  const std::vector<WorldPrimitive> primitives = backend->vertices(scene, selected.pose, request.skinning);
  const RenderCamera camera = render_camera(request, scene, selected.pose);

  const RenderResult rendered = backend->render(scene, selected.pose, primitives, camera, request.render);
  backend->finish();
  const uint32_t triangle_count = triangle_count_of(scene, primitives);
  if (request.ids_path && triangle_count > kMaxEncodableTriangleId + 1) {
    throw UsageError("option --ids: " + std::to_string(triangle_count) +
                     " triangles; the 24-bit id image numbers at most " + std::to_string(kMaxEncodableTriangleId + 1));
  }
  write_render_outputs(request, scene, selected, primitives, rendered);
  print_render_summary(request, selected, rendered, triangle_count, backend->summary());
  if (request.trace) print_trace(scene, primitives, rendered, size_t(request.trace->first), size_t(request.trace->second));
  return kExitOk;
}

// --backend as the skinning commands take it, with what each backend means for the image.
OptionDecl render_backend_option() {
  OptionDecl backend = backend_options(BackendUse::Skinning).front();
  backend.help = "The backend: reference (the CPU reference), cpu (skinning by the fast float32 CPU backend, rasterized by the "
                 "reference; --dump writes its float32 vertices) or vulkan (compute-shader skinning and an offscreen "
                 "Vulkan render with the same camera, culling and shading formulas; --dump then writes the GPU's "
                 "float32 vertices; not with --ids or --trace, which show the reference rasterizer's triangles).";
  return backend;
}

}  // namespace

CommandDecl render_command() {
  const std::string side = std::to_string(kDefaultImageSide);
  std::vector<OptionDecl> own{
      {"--out", "FILE.png", "The image, a .png; required."},
      method_option(),
      {"--size", "WxH", "The image size: each side 1 to " + std::to_string(kMaxImageSide) + ", at most 8192x8192 "
                        "pixels in all.", {}, side + "x" + side},
      {"--camera", "auto|gltf:N|EX,EY,EZ:TX,TY,TZ:FOV", "The camera: auto (framing the whole animation, the same "
                                                         "for every time), gltf:N (the file's camera N) or "
                                                         "EX,EY,EZ:TX,TY,TZ:FOV (the eye, the target and the vertical "
                                                         "field of view in degrees).", {}, "auto"},
      {"--view", "shaded|normals|weights:JOINT|depth", "What the image shows: shaded (Lambert), normals "
                                                        "(n * 0.5 + 0.5), weights:JOINT (a heat map of the weights of "
                                                        "a joint of the first skin, by index or node name) or depth "
                                                        "(1 - depth).", {}, "shaded"},
      threads_option(),
      {"--ids", "FILE.png", "Also write the triangle id of every pixel as a PNG: id + 1 in RGB as 24 bits (R the "
                            "high byte), 0 for the background. Not with --backend vulkan."},
      {"--dump", "FILE.skv|FILE.json|FILE.ply", "Also write the skinned vertices that were drawn (.skv, .json or "
                                                ".ply)."},
      {"--trace", "X,Y", "Print what pixel (X, Y) shows (0,0 is the top left): its triangle, that triangle's node, "
                         "mesh, primitive and vertex indices, the perspective-correct barycentrics, the depth and "
                         "the colour, to trace a pixel difference back to vertices. Not with --backend vulkan."},
      render_backend_option(),
  };
  return {"render",
          "rasterize a posed model to a PNG (the reference image)",
          {"MODEL [--anim NAME|INDEX | --recipe FILE | --pose rest|bind] [--time SECONDS] --out FILE.png [OPTIONS]"},
          "Skins MODEL (a .gltf/.glb path, an FBX, Collada or other file Assimp reads, or builtin:NAME) at one time "
          "and rasterizes it with Vulkan's rules (the reference image a GPU renderer is compared with). With "
          "--backend vulkan and --shader, your own skinning shader skins what is drawn.\n"
          "Every output is written atomically; after any error none is written.",
          joined(std::move(own), {pose_selection_options(), backend_options(BackendUse::Skinning), import_options()}),
          run_render};
}

}  // namespace skinref::cli
