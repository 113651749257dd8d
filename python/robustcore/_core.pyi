# The compiled engine (cpp/bindings): its classes and functions are typed as Any for type checkers.
from typing import Any

def __getattr__(name: str) -> Any: ...
