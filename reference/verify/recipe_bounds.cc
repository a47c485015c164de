// Recipe bounds: sampling by the any-order bounds, blends / additive layers / IK to first order through their
// Jacobians (central differences of the reference's own steps), then the any-order chain and palettes.
#include "verify/recipe_bounds.h"

#include "anim/local_to_model.h"
#include "verify/any_order_pose_bounds.h"
#include "verify/float_model.h"

#include <algorithm>
#include <cmath>
#include <functional>

namespace skinref {
namespace {

// The relative step of the central differences: small enough that the second-order terms of smooth steps are
// far below the first (h^2), large enough that the differences of the double results are far above their
// rounding (2^-52 / h).
constexpr double kStep = 1e-6;

double engine_rounding(double magnitude) { return tol::kAnyOrderRecipeUlps * tol::kFloatUlp * magnitude; }

// Component c of node n of a local pose: 0..9 the TRS (translation, rotation x y z w, scale), then the morph
// weights.
size_t component_count(const LocalPose& pose, size_t n) { return 10 + pose.morph_weights[n].size(); }

// For a LocalPose (a reference to change) or a const one (a reference to read).
template <class Pose>
decltype(auto) component(Pose& pose, size_t n, size_t c) {
  auto& trs = pose.local[n];
  if (c < 3) return (trs.translation[int(c)]);
  if (c < 7) return (trs.rotation.coeffs()[int(c - 3)]);  // Eigen stores x y z w
  if (c < 10) return (trs.scale[int(c - 7)]);
  return (pose.morph_weights[n][c - 10]);
}

template <class Errors>
decltype(auto) error_of(Errors& errors, size_t n, size_t c) {
  if (c < 10) return (errors.trs[n][c]);
  return (errors.morph_weights[n][c - 10]);
}

LocalErrorBounds zero_errors(const LocalPose& pose) {
  LocalErrorBounds errors;
  errors.trs.assign(pose.local.size(), {});
  errors.morph_weights.resize(pose.local.size());
  for (size_t n = 0; n < pose.local.size(); ++n) errors.morph_weights[n].assign(pose.morph_weights[n].size(), 0.0);
  return errors;
}

// Accumulates |d out / d x| (e_x + 16 ulp of |x|) for one input x, by central differences of `step`, which
// recomputes `out` from the inputs; `rows` are the (node, component) outputs the input can move.
class FirstOrder {
 public:
  FirstOrder(const LocalPose& base_out, std::function<LocalPose()> step) : base_(base_out), step_(std::move(step)) {
    sums_ = zero_errors(base_out);
  }

  // x is an input of the step within [low, high] (weights and masks have a range): a one-sided difference at
  // the ends.
  void input(double& x, double error, const std::vector<size_t>& nodes, double low = -INFINITY, double high = INFINITY) {
    const double original = x;
    const double h = kStep * std::max(std::abs(original), 1.0);
    const double up = std::min(original + h, high), down = std::max(original - h, low);
    x = up;
    const LocalPose plus = step_();
    x = down;
    const LocalPose minus = step_();
    x = original;
    const double weight = error + engine_rounding(std::abs(original));
    for (size_t n : nodes)
      for (size_t c = 0; c < component_count(base_, n); ++c) {
        const double derivative = (component(plus, n, c) - component(minus, n, c)) / (up - down);
        error_of(sums_, n, c) += std::abs(derivative) * weight;
      }
  }

  // The bound of every output of `nodes`.
  void finish(const std::vector<size_t>& nodes, LocalErrorBounds& out) const {
    for (size_t n : nodes)
      for (size_t c = 0; c < component_count(base_, n); ++c)
        error_of(out, n, c) = tol::kLinearizedBoundSafety * error_of(sums_, n, c) +
                              engine_rounding(std::abs(component(base_, n, c)));
  }

 private:
  const LocalPose& base_;
  std::function<LocalPose()> step_;
  LocalErrorBounds sums_;
};

std::vector<RecipeSample*> all_samples(RecipeSamples& samples) {
  std::vector<RecipeSample*> out;
  for (RecipeLayerSamples& layer : samples.layers)
    for (RecipeSample& sample : layer.poses) out.push_back(&sample);
  for (RecipeSample& sample : samples.additive_clips) out.push_back(&sample);
  for (RecipeSample& sample : samples.additive_references) out.push_back(&sample);
  return out;
}

}  // namespace

RecipePoseBounds recipe_pose_error_bounds(const Scene& scene, const Recipe& recipe_in, double tau) {
  Recipe recipe = recipe_in;  // perturbed in place, restored
  RecipeSamples samples = sample_recipe(scene, recipe, tau);
  const size_t node_count = scene.nodes.size();

  // Sampling: each sample's own bounds, at its clip time within the time mapping's rounding.
  std::vector<RecipeSample*> sampled = all_samples(samples);
  std::vector<LocalErrorBounds> sample_errors;
  for (const RecipeSample* sample : sampled) {
    const double time_error = sample->animation < 0 ? 0.0
                                                    : tol::kTimeMappingUlps * tol::kFloatUlp *
                                                          (std::abs(tau) + std::abs(sample->clip_time));
    sample_errors.push_back(any_order_local_error_bounds(scene, sample->animation, sample->clip_time, time_error));
  }

  // Blend and additive layers: node n's outputs depend on node n's inputs and on the recipe's weights.
  const LocalPose combined = combine_recipe(scene, recipe, samples);
  LocalErrorBounds combined_errors = zero_errors(combined);
  {
    FirstOrder first(combined, [&] { return combine_recipe(scene, recipe, samples); });
    std::vector<size_t> all_nodes(node_count);
    for (size_t n = 0; n < node_count; ++n) all_nodes[n] = n;
    for (size_t s = 0; s < sampled.size(); ++s)
      for (size_t n = 0; n < node_count; ++n)
        for (size_t c = 0; c < component_count(sampled[s]->pose, n); ++c)
          first.input(component(sampled[s]->pose, n, c), error_of(sample_errors[s], n, c), {n});
    auto weight_inputs = [&](double& weight, std::vector<double>& mask) {
      first.input(weight, tol::kFloatInputUlps * tol::kFloatUlp * std::abs(weight), all_nodes, 0.0);
      for (size_t n = 0; n < mask.size(); ++n)
        first.input(mask[n], tol::kFloatInputUlps * tol::kFloatUlp * std::abs(mask[n]), {n}, 0.0, 1.0);
    };
    for (RecipeLayer& layer : recipe.layers) weight_inputs(layer.weight, layer.mask);
    for (RecipeAdditive& additive : recipe.additive) weight_inputs(additive.weight, additive.mask);
    for (RecipeLayerSamples& layer : samples.layers)
      if (layer.poses.size() == 2)  // a cross-fade's weight: an interpolation factor of the global time
        first.input(layer.incoming, tol::kAnyOrderInterpolationFactorUlps * tol::kFloatUlp * layer.incoming, all_nodes,
                    0.0, 1.0);
    first.finish(all_nodes, combined_errors);
  }

  // IK: the nodes whose local transform it changes, as functions of every local value above them.
  LocalPose final_pose = combined;
  {
    ModelPose model = local_to_model(scene, final_pose);
    apply_recipe_ik(scene, recipe, final_pose, model);
  }
  RecipePoseBounds result;
  result.ik_nodes.assign(node_count, 0);
  std::vector<size_t> ik_nodes;
  for (size_t n = 0; n < node_count; ++n)
    for (size_t c = 0; c < component_count(combined, n); ++c)
      if (component(combined, n, c) != component(final_pose, n, c)) {
        result.ik_nodes[n] = 1;
        ik_nodes.push_back(n);
        break;
      }
  LocalErrorBounds final_errors = combined_errors;
  if (!ik_nodes.empty()) {
    // Every node above (or at) a node IK changes, or one it reads: the chains' nodes and their ancestors.
    std::vector<char> relevant(node_count, 0);
    auto mark_up = [&](int node) {
      for (int n = node; n >= 0 && !relevant[size_t(n)]; n = scene.nodes[size_t(n)].parent) relevant[size_t(n)] = 1;
    };
    for (size_t n : ik_nodes) mark_up(int(n));
    for (const auto& step : recipe.ik) {
      if (const auto* two_bone = std::get_if<TwoBoneIk>(&step)) mark_up(two_bone->end);
      else mark_up(std::get<AimIk>(step).joint);
    }
    LocalPose before = combined;
    FirstOrder first(final_pose, [&] {
      LocalPose local = before;
      ModelPose model = local_to_model(scene, local);
      apply_recipe_ik(scene, recipe, local, model);
      return local;
    });
    for (size_t n = 0; n < node_count; ++n)
      if (relevant[n])
        for (size_t c = 0; c < component_count(before, n); ++c)
          first.input(component(before, n, c), error_of(combined_errors, n, c), ik_nodes);
    for (auto& step : recipe.ik) {
      Vec3& target = std::holds_alternative<TwoBoneIk>(step) ? std::get<TwoBoneIk>(step).target : std::get<AimIk>(step).target;
      Vec3& pole = std::holds_alternative<TwoBoneIk>(step) ? std::get<TwoBoneIk>(step).pole : std::get<AimIk>(step).pole;
      for (int i = 0; i < 3; ++i) {
        first.input(target[i], tol::kFloatInputUlps * tol::kFloatUlp * std::abs(target[i]), ik_nodes);
        first.input(pole[i], tol::kFloatInputUlps * tol::kFloatUlp * std::abs(pole[i]), ik_nodes);
      }
    }
    first.finish(ik_nodes, final_errors);
  }
  result.pose = any_order_pose_bounds_from_locals(scene, final_pose, final_errors);
  return result;
}

}  // namespace skinref
