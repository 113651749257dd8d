// What the variance-reduced methods (sgd-variants-multilabel paper, Algorithms 4.2-4.9) share: the
// method names, the parameters, the default step sizes, and the Problem a method's loop runs on (data,
// model, parameters, step size) with the per-sample gradient in the scores at a dense or a lazy iterate.
//
//   F(W, b) = (1/n) sum_i sw_i loss_i(W^T x_i + b) + (lambda/2) ||W||^2
//
// for a model of model.hpp: the binary margin model (K = 1, a smooth margin loss) or the softmax model
// (K classes). Each method is one loop templated on the model (vr/<method>.hpp); vr.hpp validates the
// problem once and dispatches.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "../data.hpp"
#include "../lazy_weights.hpp"
#include "../model.hpp"
#include "../sampler.hpp"

namespace robustcore {
namespace vr {

enum class Method : int {
  Saga = 0, Sag = 1, Svrg = 2, S2gd = 3, Finito = 4, VrLite = 5, BatchingSvrg = 6, MixedSvrg = 7,
  Sgd = 8,  ///< plain constant-step SGD over a fresh permutation per pass (the softmax model's baseline)
  // a new method goes here, above Count
  Count     ///< not a method: the number of methods, so it stays last
};
/// Methods are numbered 0 .. kMethodCount - 1 (the bindings register each by method_name, with its method_info).
inline constexpr int kMethodCount = static_cast<int>(Method::Count);
/// SVRG Algorithm 4.2: the next outer iterate is (a) the last, (b) the average, (c) a uniformly chosen
/// inner iterate.
enum class SvrgOption : int { Last = 0, Average = 1, Random = 2 };

/// What a method is called: `name`, the engine's (the bindings' VrMethod value, the Python solver name);
/// `class_name`, its Python solver object's class (robustcore.linear_model builds that class from this entry
/// unless it has knobs of its own, as SVRG); `summary`, the first line of that class's docstring.
struct MethodInfo {
  const char* name;
  const char* class_name;
  const char* summary;
};

inline MethodInfo method_info(Method m) {
  switch (m) {
    case Method::Saga: return {"saga", "SAGA", "SAGA (Defazio et al. 2014)."};
    case Method::Sag: return {"sag", "SAG", "SAG (Schmidt et al. 2017)."};
    case Method::Svrg: return {"svrg", "SVRG", "SVRG (Johnson & Zhang 2013), the variants paper's Algorithm 4.2."};
    case Method::S2gd: return {"s2gd", "S2GD", "Semi-stochastic gradient descent (Konecny & Richtarik 2017)."};
    case Method::Finito: return {"finito", "Finito", "Finito (Defazio et al. 2014)."};
    case Method::VrLite: return {"vrlite", "VRLite", "VR-lite (the variants paper's Algorithm 4.4)."};
    case Method::BatchingSvrg:
      return {"batching_svrg", "BatchingSVRG", "SVRG with growing batches for the snapshot gradient."};
    case Method::MixedSvrg: return {"mixed_svrg", "MixedSVRG", "SVRG mixed with SGD steps (the variants paper)."};
    case Method::Sgd: return {"sgd", "SGD", "Plain constant-step SGD over a fresh permutation per pass."};
    case Method::Count: break;
  }
  return {"unknown", "", ""};
}

inline const char* method_name(Method m) { return method_info(m).name; }

struct VrParams {
  Method method = Method::Saga;
  SvrgOption option = SvrgOption::Last;
  double lambda = 1e-4;        ///< L2 strength (alpha in Python)
  double eta = 0.0;            ///< step size; <= 0 picks default_step(method, L, lambda, n)
  int64_t max_iter = 50;       ///< budget in effective passes (gradient evaluations / n)
  int64_t inner = 0;           ///< SVRG-family inner steps m per outer iteration; 0 = n
  int64_t batch = 0;           ///< Batching/Mixed SVRG first batch size B_1; 0 = n / 8 (at least 1)
  double batch_growth = 2.0;   ///< B_{k+1} = min(n, ceil(growth * B_k)) (Harikandeh et al.'s growing batches)
  double s2gd_nu = -1.0;       ///< S2GD's nu (lower bound on strong convexity); < 0 = lambda
  double tol = 0.0;            ///< stop when max_j |w_j - w_j^prev| <= tol max_j |w_j| over a pass; 0 = never
  bool fit_intercept = true;
  uint64_t seed = 0;
  bool record_history = true;  ///< objective and full-gradient norm per pass (one extra pass each)
  int64_t max_dense_bytes = int64_t(2) << 30;  ///< Finito's n*d table refuses above this size
  /// Optional per-sample weights sw_i (non-owning, length n, >= 0): the loss term becomes
  /// (1/n) sum_i sw_i loss_i. nullptr = all ones.
  const double* sample_weight = nullptr;

  void validate() const {
    if (static_cast<int>(method) < 0 || static_cast<int>(method) >= kMethodCount)
      throw std::invalid_argument("unknown variance-reduced method " + std::to_string(static_cast<int>(method)));
    if (!(lambda >= 0.0) || !std::isfinite(lambda)) throw std::invalid_argument("alpha (lambda) must be >= 0 and finite");
    if (!std::isfinite(eta)) throw std::invalid_argument("the step size eta must be finite");
    if (max_iter < 0) throw std::invalid_argument("max_iter (the number of passes) must be >= 0");
    if (inner < 0) throw std::invalid_argument("the number of inner steps must be >= 0");
    if (batch < 0) throw std::invalid_argument("the batch size must be >= 0");
    if (!(batch_growth >= 1.0) || !std::isfinite(batch_growth)) throw std::invalid_argument("batch_growth must be >= 1");
    if (!(tol >= 0.0) || !std::isfinite(tol)) throw std::invalid_argument("tol must be >= 0 and finite");
    if (max_dense_bytes < 0) throw std::invalid_argument("max_dense_bytes must be >= 0");
  }
};

/// L_max = curvature * max_i sw_i (||x_i||^2 + [fit_intercept]) + lambda: smoothness of every f_i
/// (curvature = sup r'' for a margin loss, 1/2 for the softmax model).
template <class Data>
double max_smoothness(const Data& X, double curvature, double lambda, bool fit_intercept,
                      const double* sample_weight = nullptr) {
  double mx = 0.0;
  for (int64_t i = 0; i < X.rows(); ++i)
    mx = std::max(mx, (sample_weight ? sample_weight[i] : 1.0) * (sqnorm(X.row(i)) + (fit_intercept ? 1.0 : 0.0)));
  if (mx == 0.0) mx = 1.0;
  return curvature * mx + lambda;
}

/// Default steps from L = L_max (documented in the Python docstring):
///   SAG 1/L (Schmidt, Le Roux, Bach 2017);  SAGA 1/(2(L + lambda n)) capped at 1/(3L) (Defazio et al.
///   2014, Thm 1 and its 1/(3L) practical choice);  SVRG, S2GD, Batching/Mixed SVRG, VR-Lite 1/(4L)
///   (inside Johnson & Zhang's 1/(4L) condition for option (b));  Finito min(1/(2 lambda), n/(2L));
///   plain SGD 1/(4L) as well.
inline double default_step(Method m, double L, double lambda, int64_t n) {
  switch (m) {
    case Method::Sag: return 1.0 / L;
    case Method::Saga: return std::max(1.0 / (2.0 * (L + lambda * static_cast<double>(n))), 1.0 / (3.0 * L));
    case Method::Finito: {
      // Finito's w = mean phi - eta mean g moves the whole average: Defazio et al. use eta = 1/(2 mu)
      // (mu = lambda) under their big-data condition n >= 2 L / mu; n / (2 L) caps it below that.
      const double cap = static_cast<double>(n) / (2.0 * L);
      return lambda > 0.0 ? std::min(1.0 / (2.0 * lambda), cap) : cap;
    }
    default: return 1.0 / (4.0 * L);
  }
}

/// Throws std::invalid_argument naming the size when Finito's n x (d+1) table (n x (d+1) x K for the
/// softmax model with K classes) would exceed max_bytes.
inline void finito_check_size(int64_t n, int64_t d, int64_t max_bytes, int64_t K = 1) {
  const double bytes = 8.0 * static_cast<double>(n) * static_cast<double>(d + 1) * static_cast<double>(K);
  if (bytes > static_cast<double>(max_bytes))
    throw std::invalid_argument("finito stores one weight vector per sample: " + std::to_string(n) + " x " +
                                std::to_string(d + 1) + (K > 1 ? " x " + std::to_string(K) : std::string()) +
                                " doubles = " + std::to_string(bytes / 1e9) +
                                " GB, above the limit of " + std::to_string(static_cast<double>(max_bytes) / 1e9) +
                                " GB (raise max_dense_bytes, or use saga/svrg whose memory is O(n + d))");
}

/// G += a x g^T and Gb += a g (G: d x K feature-major, g and Gb: K values): a running mean of the loss
/// gradients of the rows seen.
template <class Row, class KV>
inline void add_gradient(const Row& r, const double* g, double a, int64_t K, double* G, KV& Gb) {
  for_each_nz(r, [&](int64_t j, double x) {
    double* Gj = G + j * K;
    for (int64_t k = 0; k < K; ++k) Gj[k] += x * g[k] * a;
  });
  for (int64_t k = 0; k < K; ++k) Gb[k] += g[k] * a;
}

/// Whether (W, b) is the zero model (the default start): the SAG/SAGA/Finito tables and the SVRG
/// family's snapshot then start with a pass that takes steps (saga.hpp, finito.hpp, svrg.hpp); from a
/// given model (a warm start) they start as the papers do.
inline bool is_zero_start(const double* w, const double* b, int64_t dK, int64_t K) {
  for (int64_t q = 0; q < dK; ++q)
    if (w[q] != 0.0) return false;
  for (int64_t k = 0; k < K; ++k)
    if (b[k] != 0.0) return false;
  return true;
}

/// A validated problem and its step size: what every method's loop reads. K() is a compile-time
/// constant for the binary model, so its K-loops vanish.
template <class Model, class Data>
struct Problem {
  static constexpr int KC = Model::KC;
  const Data& X;
  const Model& model;
  const VrParams& p;
  double eta;

  int64_t K() const { return KC > 0 ? KC : model.K(); }
  double sw(int64_t i) const { return p.sample_weight ? p.sample_weight[i] : 1.0; }
  /// g = gradient factor of sample i at the dense (W, b) (s: K scratch values).
  template <class Row>
  void grad_at(int64_t i, const Row& r, const double* W, const double* b, double* s, double* g) const {
    linear_scores<KC>(r, W, b, K(), s);
    model.grad(i, s, sw(i), g);
  }
  /// g = gradient factor of sample i at the weight store's iterate (WeightStore: a lazy store catches the row's
  /// features up first).
  template <class Row, class Store>
  void grad_lazy(int64_t i, const Row& r, Store& W, const double* b, double* s, double* g) const {
    W.catch_up_scores(r, s);
    for (int64_t k = 0; k < K(); ++k) s[k] += b[k];
    model.grad(i, s, sw(i), g);
  }
  /// Prefetch what step k of a pass over idx reads: the row, its label and weight, and its entry of a
  /// per-sample table of K values (null: none).
  void prefetch(const int64_t* idx, int64_t k, int64_t n, const double* table = nullptr) const {
    prefetch_ahead(X, idx, k, n);
    prefetch_samples(idx, k, n, model.y, p.sample_weight);
    if (table) prefetch_table(idx, k, n, table, K());
  }
};

}  // namespace vr
}  // namespace robustcore
