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
# The steps are ../oracle.sh's, shared with ../regenerate.sh.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
gopath=/usr/share/gocode
package=golang-github-masterminds-sprig-dev
# shellcheck source=test/template/oracle.sh
. "$here/../oracle.sh"

oracle_start "sprig regenerate" "$@"
if [ ! -d "$gopath/src/github.com/Masterminds/sprig" ]; then
  echo "sprig regenerate: $package is not installed; golden.json left as committed"
  exit 0
fi
version="$(dpkg-query -W -f='${Version}' "$package" 2>/dev/null | sed 's/-[^-]*$//')"

oracle_build "$here/oracle" GO111MODULE=off GOPATH="$gopath"
oracle_finish "$here" "$(go env GOVERSION) and Sprig $version produce" -sprig "$version"
