# Sourced by .ci/run, .ci/wheel and .ci/sanitize (after `cd` to the checkout and `start=$(date +%s)`):
# `stamp MESSAGE` prints the wall time since $start and the CPU seconds (user + system) of the calling shell's
# finished commands, i.e. of its lane: fields 16-17 of /proc/<that shell>/stat (bash's `times` inside $(...)
# would report the subshell's, zero). STAMP_PREFIX, when set, names the script.
lane_cpu() { awk -v hz="$(getconf CLK_TCK)" '{printf "%.0f", ($16 + $17) / hz}' "/proc/$1/stat"; }
stamp() {
  local me=$BASHPID
  echo "== ${STAMP_PREFIX:-}$1 after $(( $(date +%s) - start )) s ($(lane_cpu "$me") CPU-s)"
}
