// Multiple kernel learning from noisy labels (Yang, Mahdavi, Jin, Zhang, Zhou, ICML 2012):
// the Gaussian kernel bank, StPMKL by the accelerated mirror prox method (Algorithm 1), the
// variational-inequality baseline (gradient descent-ascent) and the duality gap of problem (11).
//
// Problem (11):  min_f max_{alpha in Q}  F(f, alpha) = R(f) + L(f, alpha)
//     R(f) = (lambda/2) (sum_j ||f_j||_{H_j})^2,   L(f, alpha) = (1/n) sum_i alpha_i (1 - y_i f(x_i)),
//     Q = {alpha in [0, upper]^n, sum_i alpha_i <= rho}    (upper = 1 + tau in the paper).
// Names in the code: the regulariser lambda is Options::alpha (every L2 strength in robustcore is
// alpha); the paper's dual variable alpha is the `dual` output of solve.
// Coefficient form (remark after Lemma 3): f_j = sum_i c_ji k_j(x_i, .). Every gradient step on f_j adds
// (gamma/n) (alpha o y) to c_j, so with g_j = K_j c_j (kept up to date) and h_j = K_j (alpha o y),
//     ||fhat_j||^2 = (c_j + s u)^T K_j (c_j + s u) = c_j.g_j + 2 s c_j.h_j + s^2 u.h_j,  u = alpha o y, s = gamma/n
// (K_j symmetric: u.g_j = c_j.h_j), and one pass over the kernel bank (one matrix-vector product per kernel: a single (m n) x n GEMV on a
// dense KernelBank, two thin GEMVs per factored kernel of a FactoredBank) is the only work above
// O(n m) per iteration, for AMP and VI alike.
//
// Duality gap at the averaged pair (fbar, alphabar) (step 8), computed in O(n m + n log n) from running
// sums (all linear in the iterates, so no extra kernel pass): Csum = sum_t c^t, fsum = sum_t f^t(X),
// asum = sum_t alpha^t, and per kernel the quadratic forms R_j = Csum_j^T K_j Csum_j and
// Q_j = U^T K_j U (U = asum o y), each advanced by the expansion of the square from dot products with
// rows already in hand (R_j += 2 g_j.Csum_j + c_j.g_j before Csum_j += c_j; Q_j += 2 U.h_j - u.h_j
// after U += u), so neither sum_t g^t nor sum_t h^t is stored:
//     P(fbar)     = max_{alpha in Q} F(fbar, alpha) = R(fbar) + max_{alpha in Q} (1/n) sum_i alpha_i (1 - y_i fbar(x_i))
//                   (a linear maximisation over Q: greedy on the largest positive coefficients),
//     D(alphabar) = min_f F(f, alphabar) = (1/n) sum_i alphabar_i - max_j (v^T K_j v) / (2 lambda n^2),  v = alphabar o y
//                   (put all of f on the kernel with the largest ||sum_i v_i k_j(x_i, .)||).
// gap = P - D >= 0 by weak duality; the solver stops when gap < tol.
#pragma once

#include <Eigen/Dense>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "data.hpp"
#include "factored_bank.hpp"
#include "parallel.hpp"
#include "projections.hpp"
#include "result.hpp"

namespace robustcore {
namespace mkl {

/// m kernel matrices of size n x n stored kernel-major: K_j(i, l) = data[(j n + i) n + l].
/// Scalar is double or float (float halves the memory and the bandwidth of the GEMV).
template <class Scalar>
struct KernelBank {
  const Scalar* data;
  int64_t m;
  int64_t n;
};

/// Number of kernels in the Gaussian bank: n_widths on all features plus n_widths per feature.
inline int64_t gaussian_bank_size(int64_t d, int64_t n_widths) { return n_widths * (d + 1); }

/// 1 / (2 sigma_w^2) for each of the nw widths, after checking every width gives a finite positive
/// factor (a width of 1e-200 does not), and the nvals values of X are finite.
inline std::vector<double> gaussian_factors(const double* widths, int64_t nw, const double* X, int64_t nvals,
                                            const char* who) {
  std::vector<double> g(static_cast<size_t>(nw));
  for (int64_t w = 0; w < nw; ++w) {
    g[static_cast<size_t>(w)] = 1.0 / (2.0 * widths[w] * widths[w]);
    if (!(widths[w] > 0.0) || !std::isfinite(widths[w]) || !std::isfinite(g[static_cast<size_t>(w)]))
      throw std::invalid_argument(std::string(who) + ": every width must be > 0 and finite, with 1 / (2 width^2) "
                                  "finite (width " + std::to_string(w) + " is too small or not positive)");
  }
  for (int64_t i = 0; i < nvals; ++i)
    if (!std::isfinite(X[i])) throw std::invalid_argument(std::string(who) + ": X contains NaN or infinity");
  return g;
}

/// The squared distance between rows a and b (d features) on group grp of the Gaussian bank: all features
/// for grp = 0 (summed in feature order), feature grp - 1 alone otherwise. The one distance of every bank,
/// decision and factored column, so they give the same bits.
inline double group_sq_distance(const double* a, const double* b, int64_t d, int64_t grp) {
  if (grp > 0) {
    const double t = a[grp - 1] - b[grp - 1];
    return t * t;
  }
  double s = 0.0;
  for (int64_t k = 0; k < d; ++k) {
    const double t = a[k] - b[k];
    s += t * t;
  }
  return s;
}

/// Gaussian kernel bank between rows of A (na x d) and B (nb x d), written kernel-major into
/// out (m x na x nb): kernel j = g * n_widths + w uses k(a, b) = exp(-||a_G - b_G||^2 / (2 sigma_w^2)) with
/// G = all features for g = 0 and G = {feature g - 1} otherwise (Xu et al. 2010; section 4 of the paper).
template <class Scalar>
void gaussian_bank(const double* A, int64_t na, const double* B, int64_t nb, int64_t d, const double* widths,
                   int64_t nw, Scalar* out) {
  if (na < 0 || nb < 0 || d < 1 || nw < 1) throw std::invalid_argument("gaussian_bank: bad sizes");
  const std::vector<double> g = gaussian_factors(widths, nw, A, na * d, "gaussian_bank");
  gaussian_factors(widths, nw, B, nb * d, "gaussian_bank");
  const int64_t plane = na * nb;
  InterruptCheck stop;
  for (int64_t i = 0; i < na; ++i) {
    stop.tick();
    const double* a = A + i * d;
    for (int64_t l = 0; l < nb; ++l) {
      const double* b = B + l * d;
      Scalar* o = out + i * nb + l;
      for (int64_t grp = 0; grp <= d; ++grp) {
        const double D = group_sq_distance(a, b, d, grp);
        for (int64_t w = 0; w < nw; ++w)
          o[(grp * nw + w) * plane] = static_cast<Scalar>(std::exp(-D * g[static_cast<size_t>(w)]));
      }
    }
  }
}

/// Decision values f(x_t) = sum_j sum_i coef(j, i) k_j(x_t, x_i) of a Gaussian-bank model on new rows
/// Xt (nt x d), through the stored training rows Xtr (n x d), without storing the cross kernels.
/// coef is m x n row-major (m = gaussian_bank_size(d, nw)).
inline void gaussian_bank_decision(const double* Xt, int64_t nt, const double* Xtr, int64_t n, int64_t d,
                                   const double* widths, int64_t nw, const double* coef, double* out) {
  const int64_t m = gaussian_bank_size(d, nw);
  const std::vector<double> g = gaussian_factors(widths, nw, Xt, nt * d, "gaussian_bank_decision");
  // Transpose coef to n x m so the inner loop over kernels is contiguous.
  std::vector<double> ct(static_cast<size_t>(n * m));
  for (int64_t j = 0; j < m; ++j)
    for (int64_t i = 0; i < n; ++i) ct[static_cast<size_t>(i * m + j)] = coef[j * n + i];
  InterruptCheck stop;
  for (int64_t t = 0; t < nt; ++t) {
    stop.tick();
    const double* a = Xt + t * d;
    double acc = 0.0;
    for (int64_t i = 0; i < n; ++i) {
      const double* b = Xtr + i * d;
      const double* c = ct.data() + i * m;
      for (int64_t grp = 0; grp <= d; ++grp) {
        const double D = group_sq_distance(a, b, d, grp);
        const double* cg = c + grp * nw;
        for (int64_t w = 0; w < nw; ++w)
          if (cg[w] != 0.0) acc += cg[w] * std::exp(-D * g[static_cast<size_t>(w)]);
      }
    }
    out[t] = acc;
  }
}

/// Operator-norm bound of the coupling alpha -> (1/n) (alpha o y) in H: L <= sqrt(sum_j max_i sum_l |K_j(i,l)|) / n
/// (Gershgorin). For Gaussian kernels this is sqrt(m/n), and gamma = 1/(sqrt(2) L) is Algorithm 1's
/// sqrt(n / (2m)).
template <class Scalar>
double coupling_norm_bound(const KernelBank<Scalar>& K) {
  double tot = 0.0;
  for (int64_t j = 0; j < K.m; ++j) {
    double best = 0.0;
    for (int64_t i = 0; i < K.n; ++i) {
      const Scalar* r = K.data + (j * K.n + i) * K.n;
      double s = 0.0;
      for (int64_t l = 0; l < K.n; ++l) s += std::abs(static_cast<double>(r[l]));
      best = std::max(best, s);
    }
    tot += best;
  }
  return K.n > 0 ? std::sqrt(tot) / static_cast<double>(K.n) : 0.0;
}

/// Kernel pass of the solvers on a dense bank over kernels j0..j1-1: rows j of H (m x n row-major) =
/// K_j u, as GEMVs over groups of kernels (in Scalar; float storage multiplies in float).
template <class Scalar>
void kernel_pass(const KernelBank<Scalar>& K, const double* u, double* H, int64_t j0, int64_t j1) {
  using MatK = Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  using VecK = Eigen::Matrix<Scalar, Eigen::Dynamic, 1>;
  // a GEMV over a group of kernels at a time (about 2^22 values), so an interrupt is seen within one group
  const int64_t group = std::max<int64_t>(1, (int64_t{1} << 22) / std::max<int64_t>(1, K.n * K.n));
  InterruptCheck stop;
  VecK uK;
  if constexpr (!std::is_same_v<Scalar, double>) uK = Eigen::Map<const Eigen::VectorXd>(u, K.n).template cast<Scalar>();
  for (int64_t g = j0; g < j1; g += group) {
    stop.tick();
    const int64_t rows = std::min(group, j1 - g) * K.n;
    Eigen::Map<const MatK> Kg(K.data + g * K.n * K.n, rows, K.n);
    Eigen::Map<Eigen::VectorXd> out(H + g * K.n, rows);
    if constexpr (std::is_same_v<Scalar, double>) {
      out.noalias() = Kg * Eigen::Map<const Eigen::VectorXd>(u, K.n);
    } else {
      const VecK HK = Kg * uK;
      out = HK.template cast<double>();
    }
  }
}
template <class Scalar>
double kernel_cost(const KernelBank<Scalar>&, int64_t) { return 1.0; }

/// The Gaussian bank of gaussian_bank(X, X) (n x d rows, nw widths) as a FactoredBank: every kernel by
/// pivoted Cholesky to entrywise accuracy tol, stored dense when its rank would exceed max_rank
/// (<= 0: n / 2). Throws BankTooLarge past max_bytes (<= 0: no limit), which bounds the bank and its work
/// space together (checked before every allocation): a factor's work space and its stored copy, or one
/// dense kernel computed in place. `progress` (optional) is called with the number of kernels built after each
/// one (a long build's progress bar); a false answer stops the build (throws Interrupted).
inline FactoredBank gaussian_bank_factored(const double* X, int64_t n, int64_t d, const double* widths, int64_t nw,
                                           double tol, int64_t max_rank = 0, int64_t max_bytes = 0,
                                           const ProgressFn& progress = nullptr) {
  if (n < 1 || d < 1 || nw < 1) throw std::invalid_argument("gaussian_bank_factored: bad sizes");
  if (!(tol >= 0.0) || !std::isfinite(tol)) throw std::invalid_argument("gaussian_bank_factored: tol must be >= 0 and finite");
  const std::vector<double> g = gaussian_factors(widths, nw, X, n * d, "gaussian_bank_factored");
  if (max_rank <= 0) max_rank = n / 2;
  FactoredBank bank(n, max_bytes);
  const std::vector<double> ones(static_cast<size_t>(n), 1.0);
  std::vector<double> L, D(static_cast<size_t>(n));
  InterruptCheck stop;
  for (int64_t grp = 0; grp <= d; ++grp) {
    // squared distances from point p on the group's features
    auto dist = [&](int64_t p, double* out) {
      const double* a = X + p * d;
      for (int64_t i = 0; i < n; ++i) out[i] = group_sq_distance(a, X + i * d, d, grp);
    };
    for (int64_t w = 0; w < nw; ++w) {
      const double gw = g[static_cast<size_t>(w)];
      auto col = [&](int64_t p, double* out) {
        stop.tick();
        dist(p, D.data());
        for (int64_t i = 0; i < n; ++i) out[i] = std::exp(-D[static_cast<size_t>(i)] * gw);
      };
      // the factor's work space (L) and its stored copy together within the memory left
      const int64_t room = bank.room() - static_cast<int64_t>(L.capacity());
      const int64_t cap = bank.room() < 0 ? max_rank : std::max<int64_t>(0, std::min(max_rank, room / (2 * n)));
      const int64_t r = pivoted_cholesky(n, ones.data(), col, tol, cap, L);
      if (r < 0) {
        std::vector<double>().swap(L);  // free the work space before the dense kernel
        double* blk = bank.append(-1);
        for (int64_t p = 0; p < n; ++p) col(p, blk + p * n);
      } else {
        double* blk = bank.append(r);
        for (int64_t i = 0; i < n; ++i)
          for (int64_t k = 0; k < r; ++k) blk[i * r + k] = L[static_cast<size_t>(k * n + i)];
      }
      if (progress && !progress(bank.m)) throw Interrupted();
    }
  }
  return bank;
}

/// max_{alpha in Q} sum_i alpha_i w_i over Q = {0 <= alpha_i <= upper scale_i, sum alpha <= budget} (a null
/// scale is all ones): fill the largest positive w_i up to their bound until the budget runs out. O(n log n).
inline double max_linear_capped(const std::vector<double>& w, double upper, const double* scale, double budget,
                                std::vector<int64_t>& idx) {
  idx.resize(w.size());
  std::iota(idx.begin(), idx.end(), int64_t{0});
  std::sort(idx.begin(), idx.end(), [&](int64_t a, int64_t b) { return w[static_cast<size_t>(a)] > w[static_cast<size_t>(b)]; });
  double left = budget, val = 0.0;
  for (int64_t i : idx) {
    const double wi = w[static_cast<size_t>(i)];
    if (!(wi > 0.0) || left <= 0.0) break;
    const double a = std::min(scale ? upper * scale[i] : upper, left);
    val += a * wi;
    left -= a;
  }
  return val;
}

enum class Method : int { AMP = 0, VI = 1 };

struct Options {
  double alpha = 0.01;      ///< regulariser of R(f): the paper's lambda (alpha, like every L2 strength here)
  double upper = 1.0;       ///< box bound on the dual variables (1 + tau)
  double rho = 0.0;         ///< l1 budget on the dual variables
  double gamma = 0.0;       ///< step size; <= 0 means AMP: 1/(sqrt(2) L) (Algorithm 1), VI: gamma0 / sqrt(T)
  double gamma0 = 1.0;      ///< VI only: step gamma0 / sqrt(max_iter) when gamma <= 0
  int64_t max_iter = 1000;  ///< T
  double tol = 1e-2;        ///< stop when the duality gap < tol (0 disables)
  Method method = Method::AMP;
  /// threads for the kernel pass: contiguous groups of kernels of about equal work, each on one thread
  /// (every H_j is computed as on one thread: same bits for any n_threads)
  int64_t n_threads = 1;

  /// Throws std::invalid_argument on any bad option.
  void validate() const {
    if (!(alpha > 0.0) || !std::isfinite(alpha)) throw std::invalid_argument("mkl::solve: alpha must be > 0 and finite");
    if (!(upper > 0.0) || !std::isfinite(upper))
      throw std::invalid_argument("mkl::solve: the upper bound (1 + tau) must be > 0 and finite");
    if (!(rho > 0.0) || !std::isfinite(rho)) throw std::invalid_argument("mkl::solve: rho must be > 0 and finite");
    if (max_iter < 1) throw std::invalid_argument("mkl::solve: max_iter must be >= 1");
    if (!(tol >= 0.0) || !std::isfinite(tol)) throw std::invalid_argument("mkl::solve: tol must be >= 0 and finite");
    if (!std::isfinite(gamma) || (gamma <= 0.0 && !(gamma0 > 0.0 && std::isfinite(gamma0))))
      throw std::invalid_argument("mkl::solve: the step size must be finite (gamma0 > 0)");
    if (method != Method::AMP && method != Method::VI) throw std::invalid_argument("mkl::solve: unknown method");
    if (n_threads < 1) throw std::invalid_argument("mkl::solve: n_threads must be >= 1");
  }
};

/// The solver's result: Result (n_iter = iterations, step = gamma used; history columns gap, primal,
/// dual, seconds per iteration) plus the final duality gap and its two sides.
struct MklResult : Result {
  double gap = 0.0, primal = 0.0, dual = 0.0;
};

namespace detail {
/// The step: opt.gamma when > 0, else AMP 1 / (sqrt(2) L) with L = coupling() (an upper bound of the coupling's
/// operator norm, computed only then), VI gamma0 / sqrt(T).
template <class Coupling>
double step_size(const Options& opt, Coupling&& coupling, const char* what_is_zero) {
  if (opt.gamma > 0.0) return opt.gamma;
  if (opt.method != Method::AMP) return opt.gamma0 / std::sqrt(static_cast<double>(opt.max_iter));
  const double L = coupling();
  if (!(L > 0.0)) throw std::invalid_argument(what_is_zero);
  return 1.0 / (std::sqrt(2.0) * L);
}

/// One iteration of Algorithm 1 (AMP) or of the VI baseline, the same for every representation of f:
/// ascent(from, to) is the projected ascent step on the dual variables from the current scores f(X), pass(v)
/// the kernel (or feature) pass on the dual variables v (which also adds v to their running sum), update()
/// the composite step on f from that pass, which leaves the new scores.
template <class Vec, class Ascent, class Pass, class Update>
void saddle_step(Method method, Vec& alpha, Vec& beta, Ascent&& ascent, Pass&& pass, Update&& update) {
  if (method == Method::AMP) {
    ascent(beta, alpha);  // step 4 (scores f^{t-1}(X))
    pass(alpha);
    update();            // step 5
    ascent(beta, beta);  // step 6 (scores f^t(X))
  } else {
    pass(alpha);
    ascent(alpha, alpha);  // uses f^{t-1}
    update();
  }
}

/// The iteration loop of the solvers: progress(0) first (false: no iteration, status Interrupted), then
/// iteration(t, inv_t) for t = 1..max_iter (false: stop; it records the gap and sets the status), an
/// interrupt tick per iteration, and before each progress(t) call publish(inv_t), which writes the averages
/// into the outputs (a per-iteration stop test scores them).
template <class Iteration, class Publish>
void run_iterations(const Options& opt, const ProgressFn& progress, MklResult& res, Iteration&& iteration,
                    Publish&& publish) {
  const bool go = !progress || progress(0);  // false before the first iteration: none (zero averages)
  if (!go) res.status = Status::Interrupted;
  InterruptCheck stop;
  for (int64_t t = 1; go && t <= opt.max_iter; ++t) {
    stop.tick();
    const double inv_t = 1.0 / static_cast<double>(t);
    if (!iteration(t, inv_t)) break;
    if (progress) {
      publish(inv_t);
      if (!progress(t)) {
        res.status = Status::Interrupted;
        break;
      }
    }
  }
}

/// Iteration t's duality gap at the averages from its pieces (see the file comment), recorded in res (gap,
/// primal, dual, n_iter, history): P = lambda/2 normsum^2 + max_{alpha in Q} sum_i alpha_i c_i with
/// c_i = (1 - y_i fbar_i) / n_eff, D = asum_total inv_t / n_eff - qmax / (2 lambda n_eff^2). Returns false
/// when the solver stops here (status Diverged, or Converged at gap < tol).
inline bool record_gap(MklResult& res, const Options& opt, int64_t t, double normsum, double qmax, double asum_total,
                       double inv_t, std::vector<double>& c, const double* sample_weight, double n_eff,
                       std::vector<int64_t>& idx, double seconds) {
  const double P = 0.5 * opt.alpha * normsum * normsum + max_linear_capped(c, opt.upper, sample_weight, opt.rho, idx);
  const double D = asum_total * inv_t / n_eff - qmax / (2.0 * opt.alpha * n_eff * n_eff);
  res.primal = P;
  res.dual = D;
  res.gap = P - D;
  res.n_iter = static_cast<double>(t);
  res.history.push("gap", res.gap);
  res.history.push("primal", P);
  res.history.push("dual", D);
  res.history.push("seconds", seconds);
  if (!std::isfinite(res.gap)) {
    res.status = Status::Diverged;
    return false;
  }
  if (res.gap < opt.tol) {
    res.status = Status::Converged;
    return false;
  }
  return true;
}
}  // namespace detail

/// Solves problem (11) by Algorithm 1 (method AMP) or by gradient descent-ascent (method VI, the
/// paper's variational-inequality baseline; the R part is taken by the same composite step).
/// Writes the averaged coefficients cbar (m x n row-major; fbar_j = sum_i cbar_ji k_j(x_i, .)) into
/// coef and the averaged dual alphabar (n) into dual, at the end and (with a progress callback) before
/// each call of the callback. y must be in {-1, +1}. Every precondition is
/// checked here (std::invalid_argument).
/// AMP iteration t (f^{t-1} with g = K c, beta_{t-1}):
///   4: alpha_t = P_Q[beta + (gamma/n)(1 - y o f^{t-1}(X))]           (Lemma 2, project_capped_simplex)
///   5: chat_j = c_j + (gamma/n) alpha_t o y;  c_j = s_j chat_j         (Lemma 3, group_lasso_squared_prox)
///   6: beta_t = P_Q[beta + (gamma/n)(1 - y o f^t(X))]
/// VI iteration: (c, alpha) <- (prox_{gamma R}(c + (gamma/n) alpha o y), P_Q[alpha + (gamma/n)(1 - y o f(X))]);
/// its average pairs f^t with the alpha that produced it.
/// Bank: KernelBank<double|float> or FactoredBank (anything with fields m, n and the overloads
/// kernel_pass(bank, u, H, j0, j1), kernel_cost(bank, j) and coupling_norm_bound(bank)).
/// sample_weight (n values >= 0, or null for all ones) weights the hinge terms: sample i's dual variable
/// lives in [0, upper w_i] and 1/n becomes 1/sum_i w_i, which is problem (11) on the data with sample i
/// repeated w_i times (the repeated rows' dual variables add up) for integer weights.
template <class Bank>
MklResult solve(const Bank& K, const double* y, const Options& opt, double* coef, double* dual,
                const ProgressFn& progress = {}, const double* sample_weight = nullptr) {
  const int64_t n = K.n, m = K.m;
  if (n < 1 || m < 1) throw std::invalid_argument("mkl::solve: need at least one sample and one kernel");
  opt.validate();
  validate_binary_labels(y, n);
  const double n_eff = validate_sample_weight(sample_weight, n);
  if (sample_weight && !(n_eff > 0.0)) throw std::invalid_argument("mkl::solve: the sample weights sum to 0");

  using Mat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  using Vec = Eigen::VectorXd;
  Eigen::Map<const Eigen::VectorXd> yv(y, n);

  MklResult res;
  // the coupling's 1/n is 1/n_eff
  const double gamma = detail::step_size(
      opt, [&] { return coupling_norm_bound(K) * static_cast<double>(n) / n_eff; },
      "mkl::solve: every kernel matrix is zero");
  res.step = gamma;
  const double s = gamma / n_eff;
  const double c_prox = gamma * opt.alpha;

  Mat C = Mat::Zero(m, n), G = Mat::Zero(m, n), H(m, n), Csum = Mat::Zero(m, n);
  Vec fX = Vec::Zero(n), fsum = Vec::Zero(n), alpha = Vec::Zero(n), beta = Vec::Zero(n), asum = Vec::Zero(n), u(n),
      tmp(n);
  std::vector<double> a(static_cast<size_t>(m)), scale(static_cast<size_t>(m)), w(static_cast<size_t>(n));
  // per kernel: c_j.g_j, c_j.h_j, u.h_j, and the gap's quadratic forms R_j, Q_j
  std::vector<double> cg(static_cast<size_t>(m), 0.0), ch(static_cast<size_t>(m)), uh(static_cast<size_t>(m));
  std::vector<double> R(static_cast<size_t>(m), 0.0), Q(static_cast<size_t>(m), 0.0);
  std::vector<int64_t> idx;

  // Ascent step on alpha from point p: P_Q[p + (gamma/n)(1 - y o fX)].
  auto ascent = [&](const Vec& from, Vec& to) {
    tmp = from.array() + s * (1.0 - yv.array() * fX.array());
    project_capped_simplex(tmp.data(), n, opt.upper, sample_weight, opt.rho, to.data());
  };
  // H = [K_j u]_j for u = v o y, the kernels split over the threads.
  const int P = static_cast<int>(std::min<int64_t>(opt.n_threads, m));
  const std::vector<int64_t> cuts = balanced_cuts(m, P, [&](int64_t j) { return kernel_cost(K, j); });
  auto pass_over_bank = [&](const Vec& v) {
    u = v.cwiseProduct(yv);
    if (P == 1) return kernel_pass(K, u.data(), H.data(), 0, m);
    run_tasks(P, [&](int p) {
      kernel_pass(K, u.data(), H.data(), cuts[static_cast<size_t>(p)], cuts[static_cast<size_t>(p) + 1]);
    });
  };
  // Composite step (13) from (c + s u, g + s h) and the running sums, in two passes over the m rows (the
  // prox needs every norm before it can scale any row); asum must already include this iteration's alpha.
  //   A (reads c_j, h_j):  a_j = ||fhat_j|| from c_j.g_j (kept), c_j.h_j, u.h_j;  Q_j += 2 U.h_j - u.h_j
  //   prox: scale_j
  //   B: c_j <- scale_j (c_j + s u), g_j <- scale_j (g_j + s h_j), fX += g_j, c_j.g_j,
  //      R_j += 2 g_j.Csum_j + c_j.g_j, Csum_j += c_j
  double normsum = 0.0, qmax = 0.0;
  auto composite_and_sums = [&](double inv_t) {
    const Vec U = asum.cwiseProduct(yv);
    for (int64_t j = 0; j < m; ++j) {
      const size_t k = static_cast<size_t>(j);
      ch[k] = C.row(j).dot(H.row(j));
      uh[k] = u.dot(H.row(j).transpose());
      a[k] = std::sqrt(std::max(0.0, cg[k] + s * (2.0 * ch[k] + s * uh[k])));
      Q[k] += 2.0 * U.dot(H.row(j).transpose()) - uh[k];
    }
    group_lasso_squared_prox(a.data(), m, c_prox, scale.data());
    fX.setZero();
    normsum = qmax = 0.0;
    for (int64_t j = 0; j < m; ++j) {
      const size_t k = static_cast<size_t>(j);
      const double sc = scale[k];
      C.row(j) = sc * (C.row(j) + s * u.transpose());
      G.row(j) = sc * (G.row(j) + s * H.row(j));
      fX += G.row(j).transpose();
      cg[k] = C.row(j).dot(G.row(j));
      R[k] += 2.0 * G.row(j).dot(Csum.row(j)) + cg[k];
      Csum.row(j) += C.row(j);
      normsum += std::sqrt(std::max(0.0, R[k])) * inv_t;
      qmax = std::max(qmax, Q[k] * inv_t * inv_t);
    }
    fsum += fX;
  };

  const auto t0 = std::chrono::steady_clock::now();
  detail::run_iterations(
      opt, progress, res,
      [&](int64_t t, double inv_t) {
        detail::saddle_step(
            opt.method, alpha, beta, ascent,
            [&](const Vec& v) {
              pass_over_bank(v);
              asum += v;
            },
            [&] { composite_and_sums(inv_t); });
        // Duality gap at the averages.
        const Vec fbar = fsum * inv_t;
        for (int64_t i = 0; i < n; ++i) w[static_cast<size_t>(i)] = (1.0 - y[i] * fbar[i]) / n_eff;
        return detail::record_gap(res, opt, t, normsum, qmax, asum.sum(), inv_t, w, sample_weight, n_eff, idx,
                                  std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      },
      [&](double inv_t) {
        Eigen::Map<Mat>(coef, m, n) = Csum * inv_t;
        Eigen::Map<Vec>(dual, n) = asum * inv_t;
      });
  const double inv_T = 1.0 / std::max(res.n_iter, 1.0);
  Eigen::Map<Mat>(coef, m, n) = Csum * inv_T;
  Eigen::Map<Vec>(dual, n) = asum * inv_T;
  return res;
}

}  // namespace mkl
}  // namespace robustcore
