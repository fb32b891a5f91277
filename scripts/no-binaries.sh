#!/usr/bin/env bash
# Fails when git tracks an executable binary (ELF, or Mach-O thin or fat): build outputs
# belong in .gitignore, not in the repository. Run by `make lint`.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
found=0
while IFS= read -r -d '' f; do
  [ -f "$f" ] || continue
  case "$(head -c 4 "$f" | od -An -tx1 | tr -d ' \n')" in
    7f454c46 | feedface | feedfacf | cefaedfe | cffaedfe | cafebabe | bebafeca)
      echo "tracked binary: $f (git rm --cached it and add its path to .gitignore)" >&2
      found=1 ;;
  esac
done < <(git ls-files -z)
exit "$found"
