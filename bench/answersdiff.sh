#!/usr/bin/env bash
# bench/answersdiff.sh A B — compares two directories of answers written by
# `go run ./bench/cmd/screens -answers DIR`, byte for byte, after masking what differs
# between two loads of the same league: match ids (random UUIDs). With MASK_CURSORS=1 the
# values of "cursor" and "endCursor" are masked too (for comparing across a change of the
# cursor format). Exits non-zero and prints a diff when any answer differs or is missing.
set -euo pipefail
a=${1:?usage: bench/answersdiff.sh A B}
b=${2:?usage: bench/answersdiff.sh A B}
mask() {
  local expr='s/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/<uuid>/g'
  if [[ ${MASK_CURSORS:-0} == 1 ]]; then
    sed -E -e "$expr" -e 's/"(cursor|endCursor)":"[^"]*"/"\1":"<cursor>"/g' "$1"
  else
    sed -E -e "$expr" "$1"
  fi
}
status=0 n=0
for f in "$a"/*.json; do
  name=$(basename "$f")
  n=$((n + 1))
  if [[ ! -f "$b/$name" ]]; then
    echo "missing in $b: $name"; status=1; continue
  fi
  if ! cmp -s <(mask "$f") <(mask "$b/$name"); then
    echo "differs: $name"
    diff <(mask "$f" | tr ',' '\n') <(mask "$b/$name" | tr ',' '\n') | head -20 || true
    status=1
  fi
done
for f in "$b"/*.json; do
  [[ -f "$a/$(basename "$f")" ]] || { echo "missing in $a: $(basename "$f")"; status=1; }
done
masked="match ids"; [[ ${MASK_CURSORS:-0} == 1 ]] && masked+=", cursors"
((status == 0)) && echo "$n answers identical ($masked masked)"
exit $status
