#!/usr/bin/env bash
# The project's Node.js runtime: the version in .node-version (Node.js 24 LTS). Where the machine's `node` is of an
# older major version, installs that exact version from the npm registry's `node-linux-<arch>` package into
# .node/<version>/ (git-ignored, kept between runs) and puts it first on PATH; the machine's own Node is left as it is.
#
#   source scripts/node.sh          this shell (and .ci/run) uses the project's Node from now on
#   scripts/node.sh npm test        one command with it
#   eval "$(scripts/node.sh)"       the same as `source`, for shells that cannot source a bash file
#
# NODE_SH_VERSION=20.20.2 asks for another release instead (the runtime bench's older side): the machine's `node`
# then serves only when its major version is the same.
#
# npm itself stays the machine's (the registry package carries only `node` and its headers); it runs on the Node
# first on PATH. Native modules (better-sqlite3) build against the headers of the same package (npm_config_nodedir).

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
