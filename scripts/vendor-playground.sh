#!/usr/bin/env bash
# Vendors the GraphiQL build that `go run ./local` serves at / (internal/playground/assets,
# embedded with go:embed, so the playground works with no network). The Lambda binary does
# not import internal/playground and so does not carry these files.
#
# Pinned: graphiql 4.1.2 with React and ReactDOM 18.2.0 (their UMD builds), the versions
# gqlgen v0.17.95's own playground loads from a CDN. Integrity is checked twice: npm checks
# each package tarball against the registry's sha512 and this script against the sha512
# pinned below; then every file taken must have the SHA-256 pinned below, which is also
# the subresource-integrity hash gqlgen publishes for the same file.
#
# Run it after changing a version (and its hashes); commit internal/playground/assets.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
dest=internal/playground/assets
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# package@version, then the tarball's sha512 integrity.
packages=(
  "graphiql@4.1.2 sha512-rNlzQIAzm6i2KBXmVQWBgLvt0TloxFVB2d18bukvdsvjEuFDHsKx5IVOomL1W1o5WW+tE54+ioHb2AEKzO2cUg=="
  "react@18.2.0 sha512-/3IjMdb2L9QbBdWiW5e3P2/npwMBaU9mHCSCUzNln0ZCYbcfTsGbTJrU/kGemdH2IWmB2ioZ+zkxtmq6g09fGQ=="
  "react-dom@18.2.0 sha512-6IMTriUmvsjHUjNtEDudZfuDQUoWXVxKHhlEGSk81n4YFS+r/Kl99wXiwlVXtPBtJenozv2P+hxDsw9eA7Xo6g=="
)
# package@version, file in its tarball, name here, then the file's SHA-256 (base64).
files=(
  "graphiql@4.1.2 graphiql.min.js graphiql.min.js hnImuor1znlJkD/FOTL3jayfS/xsyNoP04abi8bFJWs="
  "graphiql@4.1.2 graphiql.min.css graphiql.min.css MEh+B2NdMSpj9kexQNN3QKc8UzMrCXW/Sx/phcpuyIU="
  "react@18.2.0 umd/react.production.min.js react.production.min.js S0lp+k7zWUMk2ixteM6HZvu8L9Eh//OVrt+ZfbCpmgY="
  "react-dom@18.2.0 umd/react-dom.production.min.js react-dom.production.min.js IXWO0ITNDjfnNXIu5POVfqlgYoop36bDzhodR6LW5Pc="
)

specs=()
for p in "${packages[@]}"; do specs+=("${p%% *}"); done
npm pack --silent --json --pack-destination "$tmp" "${specs[@]}" >"$tmp/pack.json"
for p in "${packages[@]}"; do
  spec=${p%% *} want=${p#* }
  got=$(node -e 'const p=require(process.argv[1]).find(x=>x.id===process.argv[2]); console.log(p ? p.integrity : "")' "$tmp/pack.json" "$spec")
  if [[ "$got" != "$want" ]]; then
    echo "vendor-playground: $spec: tarball integrity $got, want $want" >&2
    exit 1
  fi
  dir="$tmp/${spec%@*}"
  mkdir -p "$dir"
  tar -xzf "$tmp/$(node -e 'const p=require(process.argv[1]).find(x=>x.id===process.argv[2]); console.log(p.filename)' "$tmp/pack.json" "$spec")" -C "$dir"
done

rm -rf "$dest"
mkdir -p "$dest"
{
  echo "# Vendored by scripts/vendor-playground.sh; do not edit. name sha256 package file"
  for f in "${files[@]}"; do
    read -r spec path name sha <<<"$f"
    src="$tmp/${spec%@*}/package/$path"
    got=$(openssl dgst -sha256 -binary "$src" | base64)
    if [[ "$got" != "$sha" ]]; then
      echo "vendor-playground: $spec $path: sha256 $got, want $sha" >&2
      exit 1
    fi
    cp "$src" "$dest/$name"
    echo "$name sha256-$sha $spec $path"
  done
} >"$dest/VERSIONS"
cp "$tmp/graphiql/package/LICENSE" "$dest/LICENSE.graphiql"
cp "$tmp/react/package/LICENSE" "$dest/LICENSE.react"
cp "$tmp/react-dom/package/LICENSE" "$dest/LICENSE.react-dom"
echo "vendored into $dest:"
cat "$dest/VERSIONS"
