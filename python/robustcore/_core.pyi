# The compiled engine (cpp/bindings): its classes and functions are typed as Any for type checkers.
from typing import Any

def __getattr__(name: str) -> Any: ...

class LbfgsParams:  # cpp/bindings/lbfgs.cpp (robustcore::lbfgs::LbfgsParams)
    alpha: float
    max_iter: int
    memory: int
    tol: float
    fit_intercept: bool
    record_history: bool
    max_linesearch: int
    def __init__(self) -> None: ...

def lbfgs_fit(X: Any, y: Any, *args: Any, **kwargs: Any) -> Any: ...
