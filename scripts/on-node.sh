#!/usr/bin/env bash
# Runs an npm command on a pinned Node.js release (scripts/node-release.sh), in a copy of this
# checkout outside the repository with a node_modules of its own:
#
#   scripts/on-node.sh 24 test                       # the fast suite on Node.js 24
#   scripts/on-node.sh 26 exec -- node --import tsx --test test/store.test.ts
#
# Why a copy: better-sqlite3 and re2 are compiled for one Node.js ABI (argon2 uses Node-API, but
# the other two do not), and Node.js looks for packages in the node_modules beside the code, so
# one checkout cannot hold installs for two releases at once. The copy gets the checkout's files
# that git tracks or would track (uncommitted changes included, ignored files such as
# node_modules, dist and data left out), and `npm ci` builds its addons from source against the
# release's own headers (npm_config_nodedir), never touching the checkout's node_modules.
#
# NODE_COPY_DIR unset: the copy is a new temporary directory, removed at exit (CI: a fresh install
# each run, and parallel runs never share one). NODE_COPY_DIR set: the copy is kept there and
# brought up to date on each run; `npm ci` runs again only when package-lock.json or the release
# changed.
set -euo pipefail
cd "$(dirname "$0")/.."
checkout="$(pwd -P)"

major="${1:?usage: scripts/on-node.sh <major version> <npm arguments...>}"
shift
[ $# -gt 0 ] || set -- test

release="$(scripts/node-release.sh "$major")"

if [ -n "${NODE_COPY_DIR:-}" ]; then
  copy="$NODE_COPY_DIR"
  mkdir -p "$copy"
else
  copy="$(mktemp -d "${TMPDIR:-/tmp}/notes-service-node$major.XXXXXX")"
  trap 'rm -rf "$copy"' EXIT
fi
copy="$(cd "$copy" && pwd -P)"
case "$copy/" in
  "$checkout"/*)
    # Inside the checkout, its type-check, lint and test listing would take in the copy too.
    echo "scripts/on-node.sh: the copy ($copy) must be outside the checkout ($checkout)" >&2
    exit 2
    ;;
esac

# .gitignore's rules decide what is copied; what they exclude is also kept from deletion in the
# copy, so its node_modules survives the update.
rsync -a --delete --filter=':- .gitignore' --exclude=/.git ./ "$copy/"

export PATH="$release/bin:$PATH"
export npm_config_nodedir="$release"
cd "$copy"
echo "node $(node --version) from $release, in $copy"

stamp="node_modules/.installed-for"
want="$(node --version) $(sha256sum package-lock.json | cut -d' ' -f1)"
if [ "$(cat "$stamp" 2>/dev/null || true)" != "$want" ]; then
  npm ci --no-fund --no-audit
  echo "$want" >"$stamp"
fi

npm "$@"
