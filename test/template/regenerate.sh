#!/usr/bin/env bash
# Renders cases.json with Go's real text/template and writes golden.json.
#
#   test/template/regenerate.sh           regenerate golden.json
#   test/template/regenerate.sh --check   regenerate into a temporary file and fail
#                                         if it differs from the committed golden.json
#
# Without Go installed it says so and exits 0: the committed golden.json stays
# the reference. golden.json is never edited by hand.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"

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
  echo "regenerate: Go is not installed; golden.json left as committed"
  exit 0
fi

# Go needs a writable build cache; fall back to a temporary one.
cache="$(go env GOCACHE 2>/dev/null || true)"
if [ -z "$cache" ] || [ "$cache" = off ] || ! mkdir -p "$cache" 2>/dev/null || [ ! -w "$cache" ]; then
  export GOCACHE="${TMPDIR:-/tmp}/gocache"
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
(cd "$here/oracle" && go build -o "$tmp/oracle" .)

if ! $check; then
  "$tmp/oracle" -cases "$here/cases.json" -out "$here/golden.json"
  exit 0
fi

"$tmp/oracle" -cases "$here/cases.json" -out "$tmp/golden.json"
if "$tmp/oracle" -compare "$here/golden.json" "$tmp/golden.json"; then
  echo "regenerate: golden.json is what $(go env GOVERSION) produces"
else
  echo "regenerate: golden.json differs from what $(go env GOVERSION) produces (run $0 and commit the result)" >&2
  exit 1
fi
