#!/usr/bin/env bash
# bench/ab.sh — GraphQL execution (bench/gqlexec) before and after, in one run.
#
# Usage: bench/ab.sh BASE [COUNT] [OUT]      (make bench-ab BASE=<ref> COUNT=<n>)
#
# Builds bench/gqlexec's test binary twice: at BASE (a git ref, checked out in a scratch
# worktree under $TMPDIR that is removed afterwards) and from the work tree as it is
# (uncommitted changes included). Then runs the two binaries alternately, COUNT times
# each (default 10), one `-test.count 1` run at a time, so that the load of a shared
# machine hits both alike, and prints `go tool benchstat` of base vs head for every metric
# (sec/op, cpu-ns/op, B/op, allocs/op). Raw runs are kept in OUT (default: a new temp dir):
# base.txt, head.txt, benchstat.txt. The environment (GOGC, GOMEMLIMIT, …) is passed to
# both binaries alike. BENCH (env, default .) selects benchmarks; BENCHTIME (env, default
# 1s) sets -test.benchtime.
set -euo pipefail

base=${1:?usage: bench/ab.sh BASE [COUNT] [OUT]}
count=${2:-10}
out=${3:-$(mktemp -d "${TMPDIR:-/tmp}/pickem-ab.XXXXXX")}
bench=${BENCH:-.}
benchtime=${BENCHTIME:-1s}

root=$(git rev-parse --show-toplevel)
mkdir -p "$out"
scratch=$(mktemp -d "${TMPDIR:-/tmp}/pickem-ab-base.XXXXXX")
cleanup() {
  git -C "$root" worktree remove --force "$scratch/tree" >/dev/null 2>&1 || true
  rm -rf "$scratch"
}
trap cleanup EXIT

git -C "$root" worktree add --detach "$scratch/tree" "$base" >/dev/null
echo "base: $(git -C "$scratch/tree" log -1 --format='%h %s')"
echo "head: work tree of $(git -C "$root" log -1 --format='%h %s')$(git -C "$root" diff --quiet HEAD -- . || echo ' + uncommitted changes')"

(cd "$scratch/tree" && go test -c -o "$scratch/base.test" ./bench/gqlexec)
(cd "$root" && go test -c -o "$scratch/head.test" ./bench/gqlexec)

: >"$out/base.txt"
: >"$out/head.txt"
run() { # binary, output file, package dir
  (cd "$3/bench/gqlexec" && "$1" -test.run '^$' -test.bench "$bench" -test.benchmem \
    -test.count 1 -test.benchtime "$benchtime") >>"$2"
}
for i in $(seq "$count"); do
  echo "round $i/$count (load average $(cut -d' ' -f1-3 /proc/loadavg))"
  # Alternate which goes first so that neither always runs on a warmer machine.
  if ((i % 2)); then
    run "$scratch/base.test" "$out/base.txt" "$scratch/tree"
    run "$scratch/head.test" "$out/head.txt" "$root"
  else
    run "$scratch/head.test" "$out/head.txt" "$root"
    run "$scratch/base.test" "$out/base.txt" "$scratch/tree"
  fi
done

(cd "$root" && go tool benchstat base="$out/base.txt" head="$out/head.txt") | tee "$out/benchstat.txt"
echo "raw runs and benchstat in $out"
