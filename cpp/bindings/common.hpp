// Shared binding helpers: array aliases, the Matrix handle (a data view plus the arrays that keep it
// alive), the loss specification, enum dispatch, the progress/interrupt bridge and history conversion.
// No algorithmic logic lives here.
#pragma once

#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <atomic>
#include <memory>
#include <optional>
#include <utility>
#include <stdexcept>
#include <variant>
#include <vector>

#include <robustcore/data.hpp>
#include <robustcore/interrupt.hpp>
#include <robustcore/losses.hpp>
#include <robustcore/result.hpp>

namespace py = pybind11;

namespace rcb {

using F64 = py::array_t<double, py::array::c_style>;
using F32 = py::array_t<float, py::array::c_style>;
using I32 = py::array_t<int32_t, py::array::c_style>;
using I64 = py::array_t<int64_t, py::array::c_style>;

/// A data view plus the numpy arrays it points into. Built from Python by `_core.Matrix.dense` or
/// `_core.Matrix.csr`; validated once on construction.
struct Matrix {
  // One CSR instantiation per scalar: the Python layer hands int64 row pointers (an int32 indptr is
  // widened there, n + 1 integers), which halves the kernels compiled for sparse data. float32 values
  // (the last two) are taken by the SGD family only (visit_matrix<kFloat32>): every other solver would
  // double its compiled loops for them.
  std::variant<robustcore::DenseView, robustcore::CsrView<int64_t>, robustcore::BasicDenseView<float>,
               robustcore::CsrView<int64_t, float>>
      view;
  py::object keep_alive[3];

  int64_t rows() const { return std::visit([](const auto& v) { return v.rows(); }, view); }
  int64_t cols() const { return std::visit([](const auto& v) { return v.cols(); }, view); }
  bool is_sparse() const { return std::visit([](const auto& v) { return v.is_sparse; }, view); }
  bool is_float32() const { return view.index() >= 2; }
};

/// Whether a solver's binding instantiates the float32 views (visit_matrix, visit_matrix_pair).
inline constexpr bool kFloat32 = true;

/// f(view, view_test_or_null) for the matrix's view type, with both views of the same type (the Python
/// layer converts the test set to the training set's format and scalar). Without Float32 a float32
/// matrix is an error (f is not compiled for its views).
template <bool Float32 = false, class F>
decltype(auto) visit_matrix_pair(const Matrix& m, const Matrix* test, F&& f) {
  if (test && test->view.index() != m.view.index())
    throw std::invalid_argument("the test matrix must have the same storage format and dtype as the training matrix");
  using R = decltype(f(std::get<0>(m.view), static_cast<const robustcore::DenseView*>(nullptr)));
  return std::visit(
      [&](const auto& v) -> R {
        using V = std::decay_t<decltype(v)>;
        if constexpr (Float32 || std::is_same_v<typename V::Scalar, double>) {
          const V* tv = test ? &std::get<V>(test->view) : nullptr;
          return f(v, tv);
        } else {
          throw std::invalid_argument("this solver takes float64 data only (float32 trains the SGD solvers)");
        }
      },
      m.view);
}

/// f(view) for the matrix's view type (Float32 as in visit_matrix_pair).
template <bool Float32 = false, class F>
decltype(auto) visit_matrix(const Matrix& m, F&& f) {
  return visit_matrix_pair<Float32>(m, nullptr, [&](const auto& v, const auto*) -> decltype(auto) { return f(v); });
}

using robustcore::LossKind;
using robustcore::LossSpec;
using robustcore::visit_loss;
using robustcore::visit_smooth_loss;

/// Set by the Python layer to stop the engine calls of other threads (map_problems cancels its workers
/// when one of them fails or the main thread gets Ctrl-C). A thread enters it as a context manager;
/// every engine call made inside the `with` watches it.
struct CancelFlag {
  std::atomic<bool> set{false};
};
inline thread_local std::shared_ptr<CancelFlag> current_cancel;

/// Ctrl-C for one engine call. While the call runs (run(f): f without the GIL), the engine's interrupt
/// checks (interrupt.hpp) poll every 10 ms: on the main thread the poll re-takes the GIL and runs
/// PyErr_CheckSignals (the signal handler's exception is kept), on any thread it reads the CancelFlag
/// of the enclosing `with`. An interrupted call raises the kept exception (KeyboardInterrupt) after f,
/// with the GIL held.
class Interrupts {
 public:
  Interrupts() : main_(PyThread_get_thread_ident() == main_thread_ident()), cancel_(current_cancel) {
    poll_ = [this]() { return stop(); };
  }
  Interrupts(const Interrupts&) = delete;  // the poll points at this object
  Interrupts& operator=(const Interrupts&) = delete;
  ~Interrupts() {
    if (error_) {
      py::gil_scoped_acquire gil;
      error_.reset();
    }
  }
  /// f() without the GIL, this object's poll installed; then the kept exception, if any.
  template <class F>
  decltype(auto) run(F&& f) {
    try {
      robustcore::InterruptScope scope(poll_);
      py::gil_scoped_release nogil;
      return f();
    } catch (const robustcore::Interrupted&) {
      rethrow();
      throw py::error_already_set();  // not reached: stop() keeps an exception before answering true
    }
  }
  /// Raises the kept exception (GIL held), if any.
  void rethrow() {
    if (error_) {
      py::error_already_set e = std::move(*error_);
      error_.reset();
      throw e;
    }
  }
  /// True (an exception kept) when the call must stop: Ctrl-C on the main thread, or the CancelFlag set.
  bool stop() {
    if (cancel_ && cancel_->set.load(std::memory_order_relaxed)) {
      py::gil_scoped_acquire gil;
      PyErr_SetString(PyExc_KeyboardInterrupt, "cancelled: another problem of the fit stopped it");
      keep();
      return true;
    }
    if (!main_) return false;  // signals are handled on the main thread only
    py::gil_scoped_acquire gil;
    if (PyErr_CheckSignals() != 0) {
      keep();
      return true;
    }
    return false;
  }

 protected:
  /// Keeps the current Python exception (GIL held).
  void keep() { error_ = std::make_unique<py::error_already_set>(); }
  void keep(py::error_already_set&& e) { error_ = std::make_unique<py::error_already_set>(std::move(e)); }

 private:
  static unsigned long main_thread_ident() {
    static const unsigned long id =
        py::module_::import("threading").attr("main_thread")().attr("ident").cast<unsigned long>();
    return id;
  }
  bool main_;
  std::shared_ptr<CancelFlag> cancel_;
  robustcore::PollFn poll_;
  std::unique_ptr<py::error_already_set> error_;
};

/// Interrupts plus the engine's per-pass callback: fn() re-takes the GIL once per call, checks for
/// Ctrl-C / cancellation, calls the optional Python callable(done) and stops the solve (a Status) on
/// a false answer or an exception, which run() raises after the solve.
class Progress : public Interrupts {
 public:
  explicit Progress(py::object cb) : cb_(std::move(cb)) {}
  robustcore::ProgressFn fn() {
    return [this](int64_t done) -> bool {
      if (stop()) return false;
      if (cb_.is_none()) return true;
      py::gil_scoped_acquire gil;
      try {
        py::object r = cb_(done);
        return r.is_none() || r.cast<bool>();
      } catch (py::error_already_set& e) {
        keep(std::move(e));
        return false;
      }
    };
  }
  /// f() without the GIL (see Interrupts::run), then what the callback raised, if anything.
  template <class F>
  decltype(auto) run(F&& f) {
    auto res = Interrupts::run(std::forward<F>(f));
    rethrow();
    return res;
  }

 private:
  py::object cb_;
};

/// A new numpy array holding a copy of v.
inline py::array_t<double> arr(const std::vector<double>& v) {
  return py::array_t<double>(static_cast<py::ssize_t>(v.size()), v.data());
}

/// The history's columns as a dict of numpy arrays (the Python view of robustcore::History).
inline py::dict history_to_dict(const robustcore::History& h) {
  py::dict d;
  for (const auto& c : h.columns()) d[py::str(c.name)] = arr(c.values);
  return d;
}

/// An injected sequence of sample indices (tests): data pointer and length, (nullptr, 0) when absent.
inline std::pair<const int64_t*, int64_t> injected_order(const std::optional<I64>& order) {
  if (!order) return {nullptr, 0};
  if (order->ndim() != 1) throw std::invalid_argument("order must be a 1-d int64 array");
  return {order->data(), static_cast<int64_t>(order->size())};
}

/// Checks a 1-d array's length and returns its data pointer.
template <class T>
T* checked(py::array_t<T, py::array::c_style>& a, int64_t n, const char* name) {
  if (a.ndim() != 1 || a.shape(0) != n)
    throw std::invalid_argument(std::string(name) + " must be a 1-d array of length " + std::to_string(n));
  return a.mutable_data();
}
template <class T>
const T* checked_const(const py::array_t<T, py::array::c_style>& a, int64_t n, const char* name) {
  if (a.ndim() != 1 || a.shape(0) != n)
    throw std::invalid_argument(std::string(name) + " must be a 1-d array of length " + std::to_string(n));
  return a.data();
}

/// The order in which the module registers the binding files (module.cpp): by stage, then by file name.
enum class Stage : int {
  Types = 0,       // the types every other file's signatures name (data.cpp: Matrix, LossSpec, Result)
  Solvers = 1,     // one file per solver family or concept
  Extensions = 2,  // files that add overloads to, or take the types of, files of the stage before
};

/// One binding file's registration function, recorded by RCB_REGISTER at the end of the file.
struct Registration {
  Stage stage;
  const char* name;  // the file's name: bind_<name>
  void (*bind)(py::module_&);
};

/// Every binding file's registration (filled while the extension's static objects are constructed, before
/// the module's init function runs; a function-local static, so the order of those constructions is free).
inline std::vector<Registration>& registrations() {
  static std::vector<Registration> all;
  return all;
}

struct Registrar {
  Registrar(Stage stage, const char* name, void (*bind)(py::module_&)) {
    registrations().push_back({stage, name, bind});
  }
};

}  // namespace rcb

/// Registers rcb::bind_<NAME> (the binding file NAME.cpp) at stage STAGE (a Stage value): a new binding file
/// edits neither this header nor module.cpp.
#define RCB_REGISTER(NAME, STAGE) \
  namespace rcb {                  \
  static const Registrar registrar_##NAME{Stage::STAGE, #NAME, &bind_##NAME}; \
  }

