# Sourced by test/template/regenerate.sh and test/template/sprig/regenerate.sh:
# what the two Go oracles' scripts share. Each script, from its own directory
# DIR (holding cases.json, golden.json and oracle/), calls in this order:
#
#   oracle_start NAME "$@"          usage and --check; without Go, says so and exits 0;
#                                   a writable GOCACHE; a temporary directory $oracle_tmp
#   oracle_build DIR/oracle [VAR=value...]
#                                   go build of the oracle into $oracle_tmp, with those
#                                   variables in its environment
#   oracle_finish DIR WHAT [ARG...] runs the oracle on DIR/cases.json with ARGs: into
#                                   DIR/golden.json, or with --check into $oracle_tmp and
#                                   compares with oracle_compare; WHAT ends the messages
#                                   ("golden.json is what WHAT")
#
# NAME prefixes the messages. oracle_compare COMMITTED REGENERATED succeeds when
# the two golden files agree and otherwise shows how they differ on stderr; it
# compares bytes unless the script defines its own after sourcing this file.

oracle_start() {
  oracle_name="$1"
  shift
  oracle_check=false
  case "${1:-}" in
    '') ;;
    --check) oracle_check=true ;;
    *)
      echo "usage: $0 [--check]" >&2
      exit 2
      ;;
  esac

  if ! command -v go >/dev/null 2>&1; then
    echo "$oracle_name: Go is not installed; golden.json left as committed"
    exit 0
  fi

  # Go needs a writable build cache; fall back to a temporary one.
  local cache
  cache="$(go env GOCACHE 2>/dev/null || true)"
  if [ -z "$cache" ] || [ "$cache" = off ] || ! mkdir -p "$cache" 2>/dev/null || [ ! -w "$cache" ]; then
    export GOCACHE="${TMPDIR:-/tmp}/gocache"
  fi

  oracle_tmp="$(mktemp -d)"
  trap 'rm -rf "$oracle_tmp"' EXIT
}

oracle_build() {
  local src="$1"
  shift
  (cd "$src" && env "$@" go build -o "$oracle_tmp/oracle" .)
}

oracle_compare() {
  if cmp -s "$1" "$2"; then
    return 0
  fi
  diff "$1" "$2" | head -40 >&2 || true
  return 1
}

oracle_finish() {
  local dir="$1" what="$2"
  shift 2
  if ! $oracle_check; then
    "$oracle_tmp/oracle" -cases "$dir/cases.json" -out "$dir/golden.json" "$@"
    exit 0
  fi

  "$oracle_tmp/oracle" -cases "$dir/cases.json" -out "$oracle_tmp/golden.json" "$@"
  if oracle_compare "$dir/golden.json" "$oracle_tmp/golden.json"; then
    echo "$oracle_name: golden.json is what $what"
  else
    echo "$oracle_name: golden.json differs from what $what (run $0 and commit the result)" >&2
    exit 1
  fi
}
