#!/usr/bin/env bash
# Renders cases.json with Go's real text/template and writes golden.json.
#
#   test/template/regenerate.sh           regenerate golden.json
#   test/template/regenerate.sh --check   regenerate into a temporary file and fail
#                                         if it differs from the committed golden.json
#
# Without Go installed it says so and exits 0: the committed golden.json stays
# the reference. golden.json is never edited by hand. The steps are oracle.sh's,
# shared with sprig/regenerate.sh; the oracle is built in module mode.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source=test/template/oracle.sh
. "$here/oracle.sh"

# --check compares the results case by case (the oracle's -compare), ignoring formatting.
oracle_compare() { "$oracle_tmp/oracle" -compare "$1" "$2"; }

oracle_start regenerate "$@"
oracle_build "$here/oracle"
oracle_finish "$here" "$(go env GOVERSION) produces"
