# Sourced by .ci/run, .ci/wheel, .ci/docs and the C++ lane (after `cd` to the checkout):
# `ci_install VENV ARGS...` installs ARGS (pip's requirement syntax) into the venv VENV with uv, which resolves,
# downloads and unpacks in parallel and links each wheel from one cache into every CI venv: the README's venv took
# 74 s wall / 72 CPU-s with pip and 5 s with uv, same 86 packages at the same versions (2026-11-29,
# docs/benchmarks/python_layer.md "CI at 0.7.4"). uv comes from PyPI into .ci/venv-uv once per checkout; where it
# cannot be had, pip does the install (slower, same result). CI only: what the README tells users is pip, and
# the README's own venv is still made by `python3 -m venv`, pip included.
ci_uv() {
  if [ ! -x .ci/venv-uv/bin/uv ]; then
    [ ! -e .ci/venv-uv.failed ] || return 1  # tried once in this checkout (delete the file to try again)
    { python3 -m venv .ci/venv-uv && .ci/venv-uv/bin/python -m pip install -q uv; } >/dev/null 2>&1 \
      || { echo "== uv could not be installed: pip installs instead" >&2; rm -rf .ci/venv-uv
           touch .ci/venv-uv.failed; return 1; }
  fi
  echo "$(pwd)/.ci/venv-uv/bin/uv"
}
ci_install() {
  local venv=$1 uv
  shift
  if uv=$(ci_uv); then
    "$uv" pip install -q --python "$venv/bin/python" "$@"
  else
    "$venv/bin/python" -m pip install -q "$@"
  fi
}
