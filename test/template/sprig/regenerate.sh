#!/usr/bin/env bash
# Renders cases.json with Go's text/template and the real Sprig, and writes golden.json.
#
#   test/template/sprig/regenerate.sh           regenerate golden.json
#   test/template/sprig/regenerate.sh --check   regenerate into a temporary file and fail
#                                               if it differs from the committed golden.json
#
# Sprig comes from Debian (golang-github-masterminds-sprig-dev, with its Go
# dependencies under /usr/share/gocode), built in GOPATH mode: no network.
# Without Go or that package it says so and exits 0: the committed
# golden.json stays the reference. golden.json is never edited by hand.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
gopath=/usr/share/gocode
package=golang-github-masterminds-sprig-dev

check=false
case "${1:-}" in
  '') ;;
  --check) check=true ;;
  *)
    echo "usage: $0 [--check]" >&2
    exit 2
    ;;
esac

if ! command -v go >/dev/null 2>&1; then
  echo "sprig regenerate: Go is not installed; golden.json left as committed"
  exit 0
fi
if [ ! -d "$gopath/src/github.com/Masterminds/sprig" ]; then
  echo "sprig regenerate: $package is not installed; golden.json left as committed"
  exit 0
fi
version="$(dpkg-query -W -f='${Version}' "$package" 2>/dev/null | sed 's/-[^-]*$//')"

# Go needs a writable build cache; fall back to a temporary one.
cache="$(go env GOCACHE 2>/dev/null || true)"
if [ -z "$cache" ] || [ "$cache" = off ] || ! mkdir -p "$cache" 2>/dev/null || [ ! -w "$cache" ]; then
  export GOCACHE="${TMPDIR:-/tmp}/gocache"
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
(cd "$here/oracle" && GO111MODULE=off GOPATH="$gopath" go build -o "$tmp/oracle" .)

if ! $check; then
  "$tmp/oracle" -cases "$here/cases.json" -out "$here/golden.json" -sprig "$version"
  exit 0
fi

"$tmp/oracle" -cases "$here/cases.json" -out "$tmp/golden.json" -sprig "$version"
if cmp -s "$here/golden.json" "$tmp/golden.json"; then
  echo "sprig regenerate: golden.json is what $(go env GOVERSION) and Sprig $version produce"
else
  diff "$here/golden.json" "$tmp/golden.json" | head -40 >&2 || true
  echo "sprig regenerate: golden.json differs from what $(go env GOVERSION) and Sprig $version produce (run $0 and commit the result)" >&2
  exit 1
fi
