#!/usr/bin/env bash
# A given Node.js release for a command, installed from the npm registry's `node-linux-<arch>` package into
# .node/<version>/ (git-ignored, kept between runs) and put first on PATH; the machine's own Node is left as it is.
# The project itself needs none of this: `npm install` links its Node.js into node_modules/.bin
# (docs/decisions/0018-node-runtime-from-npm.md). The benches use it to install and run the build of another commit
# (`npm run bench -- regress <ref>`) with the release that build was made for, which may be older than the
# project's or come from before the project brought its own Node.js.
#
#   NODE_SH_VERSION=20.20.2 scripts/node.sh npm ci     one command with that release
#   scripts/node.sh node --version                     without NODE_SH_VERSION: the release in .node-version
#   source scripts/node.sh                             this shell
#   eval "$(scripts/node.sh)"                          the same, for shells that cannot source a bash file
#
# Without NODE_SH_VERSION the machine's `node` serves when its major version is that of .node-version or newer;
# with it, only when its major version is the same.
#
# npm itself stays the machine's (the registry package carries only `node` and its headers); it runs on the Node
# first on PATH. Native modules of older builds (better-sqlite3 before its prebuilt Node-API binaries) build against
# the headers of the same package (npm_config_nodedir).

node_sh_setup() {
  local root wanted major have arch dir tmp
  root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
  wanted="${NODE_SH_VERSION:-$(tr -d '[:space:]' <"$root/.node-version")}"
  major="${wanted%%.*}"
  have="$(node --version 2>/dev/null | sed 's/^v//')"
  if [[ -n "$have" && -z "${NODE_SH_VERSION:-}" && "${have%%.*}" -ge "$major" ]]; then
    return 0
  fi
  if [[ -n "$have" && -n "${NODE_SH_VERSION:-}" && "${have%%.*}" -eq "$major" ]]; then
    return 0
  fi
  case "$(uname -m)" in
    x86_64) arch=x64 ;;
    aarch64 | arm64) arch=arm64 ;;
    *) echo "scripts/node.sh: no node-linux package for $(uname -m); install Node.js $wanted by hand" >&2; return 1 ;;
  esac
  dir="$root/.node/$wanted"
  if [[ ! -x "$dir/bin/node" ]]; then
    echo "scripts/node.sh: installing Node.js $wanted (npm package node-linux-$arch) into .node/$wanted" >&2
    tmp="$(mktemp -d)"
    (cd "$tmp" && npm pack --silent "node-linux-$arch@$wanted" >/dev/null) || { rm -rf "$tmp"; return 1; }
    mkdir -p "$tmp/unpacked"
    tar -xzf "$tmp"/node-linux-"$arch"-"$wanted".tgz -C "$tmp/unpacked" || { rm -rf "$tmp"; return 1; }
    mkdir -p "$root/.node"
    rm -rf "$dir"
    mv "$tmp/unpacked/package" "$dir"
    rm -rf "$tmp"
  fi
  export PATH="$dir/bin:$PATH"
  export npm_config_nodedir="$dir"
}

if [[ "${BASH_SOURCE[0]}" != "$0" ]]; then
  node_sh_setup
elif [[ $# -gt 0 ]]; then
  node_sh_setup || exit 1
  exec "$@"
else
  node_sh_setup || exit 1
  printf 'export PATH=%q\n' "$PATH"
  [[ -n "${npm_config_nodedir:-}" ]] && printf 'export npm_config_nodedir=%q\n' "$npm_config_nodedir"
  true
fi
