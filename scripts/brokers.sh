#!/usr/bin/env bash
# Starts, stops and reports the real brokers shove's integration tests run against, on loopback,
# without Docker: RabbitMQ, Redis, NATS JetStream, Kafka (KRaft) and an SQS/SNS emulator (fauxqs).
# Facts behind every choice here: shared/BROKERS.md. Run `scripts/brokers.sh --help`.
set -euo pipefail

readonly HOST=127.0.0.1
readonly ALL_BROKERS=(rabbitmq redis redis-cluster nats kafka sqs)

readonly RABBITMQ_PORT=5672 RABBITMQ_MGMT_PORT=15672
readonly REDIS_PORT=6379
readonly REDIS_CLUSTER_PORTS=(7001 7002 7003)
readonly NATS_PORT=4222 NATS_MONITOR_PORT=8222
readonly KAFKA_PORT=9092 KAFKA_CONTROLLER_PORT=9093
readonly SQS_PORT=4566

readonly RABBITMQ_PLUGINS=(rabbitmq_management rabbitmq_consistent_hash_exchange)
readonly RABBITMQ_USER=guest RABBITMQ_PASSWORD=guest

# Deadlines (seconds).
readonly RABBITMQ_DEADLINE=90
readonly KAFKA_RESOLVE_DEADLINE=300 KAFKA_DEADLINE=60
readonly DEFAULT_DEADLINE=30
readonly STOP_DEADLINE=30

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_ROOT=$(cd "$SCRIPT_DIR/.." && pwd)
STATE_DIR=${SHOVE_BROKERS_DIR:-${HOME:?HOME is not set: set SHOVE_BROKERS_DIR}/.cache/shove-brokers}
RUN_DIR=$STATE_DIR/run
LOG_DIR=$STATE_DIR/logs
readonly SCRIPT_DIR REPO_ROOT STATE_DIR RUN_DIR LOG_DIR

usage() {
  cat <<EOF
Usage: scripts/brokers.sh COMMAND [BROKER ...]

Runs real brokers on loopback ($HOST) for shove's integration tests, without Docker.

Commands:
  up       start the brokers that do not answer yet (installing what is missing) and wait
           until each is really ready; a broker that already answers is left as it is.
           Exits non-zero if any requested broker did not come up.
  down     stop the brokers this script started (pid files in the state dir); brokers it did
           not start are left alone.
  status   one line per broker: running/stopped, port, who started it.
           Exits non-zero if any requested broker is stopped.
  help     this text (also -h, --help).

Brokers (none given = all):
  rabbitmq  AMQP $HOST:$RABBITMQ_PORT, management API $HOST:$RABBITMQ_MGMT_PORT (guest/guest);
            plugins: ${RABBITMQ_PLUGINS[*]}
  redis     $HOST:$REDIS_PORT
  redis-cluster
            a 3-master Redis Cluster on $HOST:${REDIS_CLUSTER_PORTS[0]}-${REDIS_CLUSTER_PORTS[2]} (no replicas, no persistence)
  nats      $HOST:$NATS_PORT with JetStream, monitoring $HOST:$NATS_MONITOR_PORT
  kafka     $HOST:$KAFKA_PORT (KRaft controller $HOST:$KAFKA_CONTROLLER_PORT), jars from Maven Central
  sqs       SQS + SNS emulator (fauxqs) at http://$HOST:$SQS_PORT

Environment:
  SHOVE_BROKERS_DIR  state dir: data, logs, pid files, Kafka classpath, fauxqs node_modules
                     (default \$HOME/.cache/shove-brokers; now: $STATE_DIR)
  SHOVE_KAFKA_RESET  1 = wipe Kafka's data dir before starting it (ignored if Kafka runs)
  JAVA_HOME          used for Kafka if it is a JDK >= 17 (else a JDK >= 17 under /usr/lib/jvm)

RabbitMQ, Redis and NATS come from Debian packages (apt-get install when missing); RabbitMQ
keeps its Debian layout (/etc/rabbitmq, /var/lib/rabbitmq, /var/log/rabbitmq).
EOF
}

# ---------------------------------------------------------------------------------------------
# Small helpers
# ---------------------------------------------------------------------------------------------

say() { printf '%s: %s\n' "$1" "$2"; }
warn() { printf '%s: WARNING: %s\n' "$1" "$2" >&2; }
err() { printf '%s: ERROR: %s\n' "$1" "$2" >&2; }

now() {
  local t=${EPOCHREALTIME:-}
  [[ -n $t ]] || t=$(date +%s.%N)
  printf '%s' "${t/,/.}"
}
elapsed_since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# port_open PORT: something accepts TCP connections on $HOST:PORT.
port_open() {
  # shellcheck disable=SC2016 # expanded by the inner bash
  timeout 2 bash -c 'exec 3<>"/dev/tcp/$0/$1"' "$HOST" "$1" 2>/dev/null
}

# http_ok URL [curl args]: the URL answers 2xx.
http_ok() {
  local url=$1
  shift
  curl -sf -o /dev/null --max-time 3 "$@" "$url" 2>/dev/null
}

# tail_log BROKER FILE...: show the end of logs after a failure.
tail_log() {
  local name=$1 f
  shift
  for f in "$@"; do
    [[ -s $f ]] || continue
    printf '%s: ---- last lines of %s ----\n' "$name" "$f" >&2
    tail -n 40 "$f" | sed "s/^/$name|  /" >&2
  done
}

# wait_for BROKER SECONDS DESCRIPTION PID CHECK...: poll CHECK until it succeeds, the deadline
# passes (return 1) or PID (when not empty) exits (return 2).
wait_for() {
  local name=$1 secs=$2 what=$3 pid=$4
  shift 4
  local deadline=$((SECONDS + secs))
  say "$name" "waiting up to ${secs}s for $what"
  while true; do
    if "$@"; then
      return 0
    fi
    if [[ -n $pid ]] && ! kill -0 "$pid" 2>/dev/null; then
      err "$name" "process $pid exited while waiting for $what"
      return 2
    fi
    if ((SECONDS >= deadline)); then
      err "$name" "not ready after ${secs}s: $what"
      return 1
    fi
    sleep 0.5
  done
}

# close_inherited_fds: close every descriptor above 2 in the current (sub)shell, so a daemon
# started from it keeps neither the caller's pipes nor this script's lock file open.
close_inherited_fds() {
  local fd fds=()
  for fd in "/proc/$BASHPID/fd/"*; do
    fd=${fd##*/}
    [[ $fd =~ ^[0-9]+$ ]] && ((fd > 2)) && fds+=("$fd")
  done
  for fd in "${fds[@]}"; do
    eval "exec $fd>&-" 2>/dev/null || true
  done
}

# start_detached LOG PIDFILE DIR CMD...: run CMD fully detached (own session, no terminal, no
# inherited descriptors), stdout+stderr to LOG, cwd DIR; write its pid to PIDFILE.
start_detached() {
  local log=$1 pidfile=$2 dir=$3
  shift 3
  (
    close_inherited_fds
    cd "$dir"
    exec setsid nohup "$@" >"$log" 2>&1 </dev/null
  ) &
  echo "$!" >"$pidfile"
}

# run_quiet LOG CMD...: run CMD (which detaches by itself) with clean descriptors, output to LOG.
run_quiet() {
  local log=$1
  shift
  (
    close_inherited_fds
    exec "$@" >>"$log" 2>&1 </dev/null
  )
}

# pid_matches PID PATTERN: PID is alive and its command line contains PATTERN.
pid_matches() {
  local pid=$1 pattern=$2 cmdline
  [[ $pid =~ ^[0-9]+$ ]] || return 1
  [[ -r /proc/$pid/cmdline ]] || return 1
  cmdline=$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null) || return 1
  [[ $cmdline == *"$pattern"* ]]
}

# owned_pid BROKER: print the pid of the broker process this script started, if it still runs.
owned_pid() {
  local name=$1 pidfile="$RUN_DIR/$1.pid" pid
  [[ -s $pidfile ]] || return 1
  pid=$(tr -dc '0-9' <"$pidfile")
  pid_matches "$pid" "$(process_pattern "$name")" || return 1
  printf '%s' "$pid"
}

process_pattern() {
  case $1 in
    rabbitmq) echo beam.smp ;;
    redis | redis-cluster) echo redis-server ;;
    nats) echo nats-server ;;
    kafka) echo kafka.Kafka ;;
    sqs) echo launcher.mjs ;;
  esac
}

main_port() {
  case $1 in
    rabbitmq) echo "$RABBITMQ_PORT" ;;
    redis) echo "$REDIS_PORT" ;;
    redis-cluster) echo "${REDIS_CLUSTER_PORTS[0]}" ;;
    nats) echo "$NATS_PORT" ;;
    kafka) echo "$KAFKA_PORT" ;;
    sqs) echo "$SQS_PORT" ;;
  esac
}

already_running_msg() {
  local name=$1 pid
  if pid=$(owned_pid "$name"); then
    say "$name" "already running on $HOST:$(main_port "$name") (started by brokers.sh, pid $pid)"
  else
    say "$name" "already running on $HOST:$(main_port "$name")"
  fi
}

# stop_owned BROKER: stop the process this script started (SIGTERM, then SIGKILL after the
# deadline); leave anything else alone.
stop_owned() {
  local name=$1 port pid
  port=$(main_port "$name")
  if ! pid=$(owned_pid "$name"); then
    rm -f "$RUN_DIR/$name.pid"
    if port_open "$port"; then
      say "$name" "running on $HOST:$port but not started by brokers.sh: leaving it alone"
    else
      say "$name" "not running"
    fi
    return 0
  fi
  say "$name" "stopping pid $pid"
  kill -TERM "$pid" 2>/dev/null || true
  local deadline=$((SECONDS + STOP_DEADLINE))
  while kill -0 "$pid" 2>/dev/null; do
    if ((SECONDS >= deadline)); then
      warn "$name" "pid $pid still alive after ${STOP_DEADLINE}s, sending SIGKILL"
      kill -KILL "$pid" 2>/dev/null || true
      sleep 0.5
      break
    fi
    sleep 0.2
  done
  rm -f "$RUN_DIR/$name.pid"
  say "$name" "stopped"
}

# ---------------------------------------------------------------------------------------------
# Packages (Debian): one apt-get update, one apt-get install for everything missing
# ---------------------------------------------------------------------------------------------

as_root() {
  if [[ $(id -u) -eq 0 ]]; then
    "$@"
  elif command -v sudo >/dev/null 2>&1; then
    sudo -n "$@"
  else
    echo "brokers: need root to run: $*" >&2
    return 1
  fi
}

# install_missing_packages BROKER...: install the Debian packages of the requested brokers that
# are neither installed nor answering already.
install_missing_packages() {
  local name pkgs=()
  for name in "$@"; do
    case $name in
      rabbitmq)
        if ! command -v rabbitmq-server >/dev/null 2>&1 && ! rabbitmq_mgmt_ok; then
          pkgs+=(rabbitmq-server)
        fi
        ;;
      redis | redis-cluster)
        if ! command -v redis-server >/dev/null 2>&1 && ! port_open "$(main_port "$name")"; then
          pkgs+=(redis-server)
        fi
        ;;
      nats)
        if ! command -v nats-server >/dev/null 2>&1 && ! port_open "$NATS_PORT"; then
          pkgs+=(nats-server)
        fi
        ;;
    esac
  done
  ((${#pkgs[@]})) || return 0
  local log=$LOG_DIR/apt.log
  echo "brokers: installing Debian packages: ${pkgs[*]} (log: $log)"
  if ! as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q >>"$log" 2>&1; then
    echo "brokers: ERROR: apt-get update failed" >&2
    tail_log brokers "$log"
    return 1
  fi
  if ! as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${pkgs[@]}" >>"$log" 2>&1; then
    echo "brokers: ERROR: apt-get install ${pkgs[*]} failed" >&2
    tail_log brokers "$log"
    return 1
  fi
}

# ---------------------------------------------------------------------------------------------
# RabbitMQ (Debian package, Debian layout; pid file of a node this script started in RUN_DIR)
# ---------------------------------------------------------------------------------------------

rabbitmq_mgmt_ok() {
  http_ok "http://$HOST:$RABBITMQ_MGMT_PORT/api/overview" -u "$RABBITMQ_USER:$RABBITMQ_PASSWORD"
}

rabbitmq_has_consistent_hash() {
  curl -sf --max-time 5 -u "$RABBITMQ_USER:$RABBITMQ_PASSWORD" \
    "http://$HOST:$RABBITMQ_MGMT_PORT/api/overview" 2>/dev/null | grep -q '"x-consistent-hash"'
}

rabbitmq_node_started() {
  timeout 20 rabbitmqctl -q await_startup --timeout 10 >/dev/null 2>&1
}

# A config file counts as "configured" when it has a line that is neither blank nor a comment
# (Debian ships rabbitmq-env.conf with comments only).
has_settings() {
  [[ -f $1 ]] && grep -qvE '^[[:space:]]*(#|$)' "$1"
}

# Extra environment for rabbitmq-server (set by rabbitmq_write_config).
RABBITMQ_START_ARGS_ENV=()

rabbitmq_write_config() {
  local env_conf=/etc/rabbitmq/rabbitmq-env.conf conf=/etc/rabbitmq/rabbitmq.conf
  as_root mkdir -p /etc/rabbitmq
  if has_settings "$env_conf"; then
    say rabbitmq "keeping existing $env_conf"
  else
    say rabbitmq "writing $env_conf (node rabbit@localhost, Erlang distribution on loopback)"
    as_root tee "$env_conf" >/dev/null <<'EOF'
# Written by shove's scripts/brokers.sh: a loopback-only node.
NODENAME=rabbit@localhost
export ERL_EPMD_ADDRESS=127.0.0.1
SERVER_ADDITIONAL_ERL_ARGS="-kernel inet_dist_use_interface {127,0,0,1}"
EOF
  fi
  if has_settings "$conf"; then
    say rabbitmq "keeping existing $conf"
    if ! grep -qE '^[[:space:]]*management\.(tcp|listener)\.' "$conf" &&
      ! grep -qE '^[^#]*SERVER_START_ARGS' "$env_conf" 2>/dev/null; then
      # Keep the management API on loopback without touching the existing config: the same
      # application setting management.tcp.ip would make, as an Erlang argument for this boot.
      RABBITMQ_START_ARGS_ENV=("RABBITMQ_SERVER_START_ARGS=-rabbitmq_management tcp_config [{ip,\"$HOST\"},{port,$RABBITMQ_MGMT_PORT}]")
      say rabbitmq "$conf has no management listener: binding the management API to $HOST:$RABBITMQ_MGMT_PORT for this boot"
    fi
  else
    say rabbitmq "writing $conf (AMQP and management on $HOST)"
    as_root tee "$conf" >/dev/null <<EOF
# Written by shove's scripts/brokers.sh: loopback only.
listeners.tcp.default = $HOST:$RABBITMQ_PORT
management.tcp.ip = $HOST
management.tcp.port = $RABBITMQ_MGMT_PORT
EOF
  fi
}

# Before the management plugin starts on a running node that has no listener configured, set
# its listener to loopback the way rabbitmq.conf would (persistent application env); otherwise
# it would listen on every interface. Best effort.
rabbitmq_bind_management_to_loopback() {
  local expr out
  expr="case {application:get_env(rabbitmq_management, tcp_config), application:get_env(rabbitmq_management, listener)} of"
  expr+=" {undefined, undefined} -> application:set_env(rabbitmq_management, tcp_config,"
  expr+=" [{ip, \"$HOST\"}, {port, $RABBITMQ_MGMT_PORT}], [{persistent, true}]), set; _ -> kept end."
  if out=$(timeout 30 rabbitmqctl -q eval "$expr" 2>&1); then
    case $out in
      *set*) say rabbitmq "management listener set to $HOST:$RABBITMQ_MGMT_PORT on the running node" ;;
      *) say rabbitmq "management listener already configured on the running node: keeping it" ;;
    esac
  else
    warn rabbitmq "could not pre-set the management listener (it may listen on all interfaces): $out"
  fi
}

# On a running node: make sure both plugins are enabled and the management API answers.
rabbitmq_ensure_plugins() {
  local log=$LOG_DIR/rabbitmq-cli.log
  if rabbitmq_mgmt_ok && rabbitmq_has_consistent_hash; then
    say rabbitmq "management API answers on $HOST:$RABBITMQ_MGMT_PORT, x-consistent-hash exchange available"
    return 0
  fi
  if ! command -v rabbitmq-plugins >/dev/null 2>&1; then
    err rabbitmq "plugins ${RABBITMQ_PLUGINS[*]} are not all active and rabbitmq-plugins is not installed"
    return 1
  fi
  if ! port_open "$RABBITMQ_MGMT_PORT"; then
    rabbitmq_bind_management_to_loopback
  fi
  say rabbitmq "enabling plugins ${RABBITMQ_PLUGINS[*]} on the running node"
  if ! timeout 120 rabbitmq-plugins enable "${RABBITMQ_PLUGINS[@]}" >>"$log" 2>&1 </dev/null; then
    err rabbitmq "rabbitmq-plugins enable ${RABBITMQ_PLUGINS[*]} failed"
    tail_log rabbitmq "$log"
    return 1
  fi
  if ! wait_for rabbitmq "$RABBITMQ_DEADLINE" \
    "GET http://$HOST:$RABBITMQ_MGMT_PORT/api/overview (guest) = 200" "" rabbitmq_mgmt_ok; then
    tail_log rabbitmq "$log" "$(rabbitmq_server_log)"
    return 1
  fi
  if ! rabbitmq_has_consistent_hash; then
    err rabbitmq "management API answers but exchange type x-consistent-hash is not registered"
    return 1
  fi
  say rabbitmq "plugins enabled; management API answers on $HOST:$RABBITMQ_MGMT_PORT"
}

rabbitmq_server_log() {
  local f newest=/var/log/rabbitmq/startup_log
  for f in /var/log/rabbitmq/*.log; do
    [[ -f $f && $f != *upgrade* ]] || continue
    [[ $f -nt $newest ]] && newest=$f
  done
  printf '%s' "$newest"
}

up_rabbitmq() {
  local start_log=$LOG_DIR/rabbitmq-start.log
  if port_open "$RABBITMQ_PORT"; then
    already_running_msg rabbitmq
    rabbitmq_ensure_plugins
    return
  fi
  if ! command -v rabbitmq-server >/dev/null 2>&1; then
    err rabbitmq "rabbitmq-server is not installed (apt-get install rabbitmq-server)"
    return 1
  fi
  local started_here=false
  # Config first: the first CLI call starts epmd, which must already see ERL_EPMD_ADDRESS.
  rabbitmq_write_config
  if rabbitmq_node_started; then
    say rabbitmq "node is up but $HOST:$RABBITMQ_PORT does not answer yet"
  else
    say rabbitmq "enabling plugins ${RABBITMQ_PLUGINS[*]} (offline)"
    if ! timeout 120 rabbitmq-plugins enable --offline "${RABBITMQ_PLUGINS[@]}" >>"$start_log" 2>&1 </dev/null; then
      err rabbitmq "rabbitmq-plugins enable --offline failed"
      tail_log rabbitmq "$start_log"
      return 1
    fi
    say rabbitmq "starting: rabbitmq-server -detached (logs: $start_log, /var/log/rabbitmq/)"
    if ! run_quiet "$start_log" env "${RABBITMQ_START_ARGS_ENV[@]}" timeout 60 rabbitmq-server -detached; then
      err rabbitmq "rabbitmq-server -detached failed"
      tail_log rabbitmq "$start_log"
      return 1
    fi
    started_here=true
  fi
  if ! wait_for rabbitmq "$RABBITMQ_DEADLINE" "rabbitmqctl await_startup" "" rabbitmq_node_started ||
    ! wait_for rabbitmq "$DEFAULT_DEADLINE" "AMQP port $HOST:$RABBITMQ_PORT" "" port_open "$RABBITMQ_PORT"; then
    tail_log rabbitmq "$start_log" "$(rabbitmq_server_log)"
    return 1
  fi
  if $started_here; then
    local pid
    pid=$(timeout 20 rabbitmqctl -q eval 'list_to_integer(os:getpid()).' 2>/dev/null | tr -dc '0-9') || true
    if [[ -n $pid ]]; then
      echo "$pid" >"$RUN_DIR/rabbitmq.pid"
    else
      warn rabbitmq "could not read the node's OS pid: 'down rabbitmq' will not stop it"
    fi
  fi
  rabbitmq_ensure_plugins
}

down_rabbitmq() {
  local pid
  if ! pid=$(owned_pid rabbitmq); then
    rm -f "$RUN_DIR/rabbitmq.pid"
    if port_open "$RABBITMQ_PORT"; then
      say rabbitmq "running on $HOST:$RABBITMQ_PORT but not started by brokers.sh: leaving it alone"
    else
      say rabbitmq "not running"
    fi
    return 0
  fi
  say rabbitmq "stopping node (pid $pid): rabbitmqctl stop"
  timeout 60 rabbitmqctl -q stop >>"$LOG_DIR/rabbitmq-cli.log" 2>&1 </dev/null ||
    warn rabbitmq "rabbitmqctl stop failed; sending SIGTERM to $pid"
  local deadline=$((SECONDS + 60))
  while kill -0 "$pid" 2>/dev/null; do
    if ((SECONDS >= deadline)); then
      warn rabbitmq "pid $pid still alive after 60s, sending SIGTERM"
      kill -TERM "$pid" 2>/dev/null || true
      break
    fi
    sleep 0.5
  done
  rm -f "$RUN_DIR/rabbitmq.pid"
  say rabbitmq "stopped"
}

# ---------------------------------------------------------------------------------------------
# Redis
# ---------------------------------------------------------------------------------------------

redis_ready() {
  [[ $(redis-cli -h "$HOST" -p "$REDIS_PORT" ping 2>/dev/null) == PONG ]]
}

up_redis() {
  if port_open "$REDIS_PORT"; then
    already_running_msg redis
    return 0
  fi
  if ! command -v redis-server >/dev/null 2>&1; then
    err redis "redis-server is not installed (apt-get install redis-server)"
    return 1
  fi
  local dir=$STATE_DIR/redis log=$LOG_DIR/redis.log pidfile=$RUN_DIR/redis.pid
  mkdir -p "$dir"
  rm -f "$pidfile"
  say redis "starting redis-server on $HOST:$REDIS_PORT (no persistence; log: $log)"
  if ! run_quiet "$LOG_DIR/redis-start.log" redis-server --bind "$HOST" --port "$REDIS_PORT" \
    --daemonize yes --save '' --appendonly no --dir "$dir" --pidfile "$pidfile" --logfile "$log"; then
    err redis "redis-server failed to start"
    tail_log redis "$LOG_DIR/redis-start.log" "$log"
    return 1
  fi
  if ! wait_for redis "$DEFAULT_DEADLINE" "PONG from redis-cli -h $HOST ping" "" redis_ready; then
    tail_log redis "$log"
    return 1
  fi
}

# ---------------------------------------------------------------------------------------------
# Redis Cluster: three masters on loopback, joined with redis-cli --cluster create
# ---------------------------------------------------------------------------------------------

redis_cluster_ok() {
  local port
  for port in "${REDIS_CLUSTER_PORTS[@]}"; do
    redis-cli -h "$HOST" -p "$port" cluster info 2>/dev/null | grep -q '^cluster_state:ok' || return 1
  done
}

redis_cluster_nodes_up() {
  local port
  for port in "${REDIS_CLUSTER_PORTS[@]}"; do
    [[ $(redis-cli -h "$HOST" -p "$port" ping 2>/dev/null) == PONG ]] || return 1
  done
}

up_redis-cluster() {
  if redis_cluster_ok; then
    already_running_msg redis-cluster
    return 0
  fi
  if ! command -v redis-server >/dev/null 2>&1; then
    err redis-cluster "redis-server is not installed (apt-get install redis-server)"
    return 1
  fi
  local port dir pidfile
  for port in "${REDIS_CLUSTER_PORTS[@]}"; do
    port_open "$port" && continue
    dir=$STATE_DIR/redis-cluster/$port
    # A node's cluster config names the others: start every node from scratch, then create the cluster.
    rm -rf "$dir"
    mkdir -p "$dir"
    pidfile=$RUN_DIR/redis-cluster-$port.pid
    [[ $port == "${REDIS_CLUSTER_PORTS[0]}" ]] && pidfile=$RUN_DIR/redis-cluster.pid
    say redis-cluster "starting node $HOST:$port (log: $LOG_DIR/redis-cluster-$port.log)"
    if ! run_quiet "$LOG_DIR/redis-cluster-start.log" redis-server --bind "$HOST" --port "$port" \
      --cluster-enabled yes --cluster-config-file "$dir/nodes.conf" --cluster-node-timeout 5000 \
      --daemonize yes --save '' --appendonly no --dir "$dir" --pidfile "$pidfile" \
      --logfile "$LOG_DIR/redis-cluster-$port.log"; then
      err redis-cluster "redis-server on port $port failed to start"
      tail_log redis-cluster "$LOG_DIR/redis-cluster-start.log" "$LOG_DIR/redis-cluster-$port.log"
      return 1
    fi
  done
  if ! wait_for redis-cluster "$DEFAULT_DEADLINE" "PONG from every node" "" redis_cluster_nodes_up; then
    return 1
  fi
  local nodes=()
  for port in "${REDIS_CLUSTER_PORTS[@]}"; do nodes+=("$HOST:$port"); done
  say redis-cluster "creating the cluster: ${nodes[*]}"
  if ! timeout 60 redis-cli --cluster create "${nodes[@]}" --cluster-replicas 0 --cluster-yes \
    >>"$LOG_DIR/redis-cluster-create.log" 2>&1 </dev/null; then
    err redis-cluster "redis-cli --cluster create failed (a node may belong to another cluster: run 'down redis-cluster')"
    tail_log redis-cluster "$LOG_DIR/redis-cluster-create.log"
    return 1
  fi
  wait_for redis-cluster "$DEFAULT_DEADLINE" "cluster_state:ok on every node" "" redis_cluster_ok
}

down_redis-cluster() {
  local port pid pidfile
  for port in "${REDIS_CLUSTER_PORTS[@]}"; do
    pidfile=$RUN_DIR/redis-cluster-$port.pid
    [[ $port == "${REDIS_CLUSTER_PORTS[0]}" ]] && pidfile=$RUN_DIR/redis-cluster.pid
    pid=$(tr -dc '0-9' <"$pidfile" 2>/dev/null) || pid=
    if [[ -n $pid ]] && pid_matches "$pid" redis-server; then
      say redis-cluster "stopping node $port (pid $pid)"
      kill -TERM "$pid" 2>/dev/null || true
    elif port_open "$port"; then
      say redis-cluster "node $port not started by brokers.sh: leaving it alone"
    fi
    rm -f "$pidfile"
  done
}

# ---------------------------------------------------------------------------------------------
# NATS JetStream
# ---------------------------------------------------------------------------------------------

# The INFO line a NATS server sends on connect.
nats_info() {
  # shellcheck disable=SC2016 # expanded by the inner bash
  timeout 3 bash -c 'exec 3<>"/dev/tcp/$0/$1" && IFS= read -r line <&3 && printf "%s\n" "$line"' \
    "$HOST" "$NATS_PORT" 2>/dev/null
}

nats_ready() {
  http_ok "http://$HOST:$NATS_MONITOR_PORT/healthz" &&
    curl -sf --max-time 3 "http://$HOST:$NATS_MONITOR_PORT/jsz" 2>/dev/null | grep -q '"config"'
}

up_nats() {
  if port_open "$NATS_PORT"; then
    already_running_msg nats
    local info
    info=$(nats_info) || true
    if [[ $info == *'"jetstream":true'* ]]; then
      say nats "JetStream enabled (server INFO says \"jetstream\":true)"
      return 0
    fi
    err nats "the server on $HOST:$NATS_PORT does not have JetStream enabled (INFO: ${info:-none}); restart it with -js"
    return 1
  fi
  if ! command -v nats-server >/dev/null 2>&1; then
    err nats "nats-server is not installed (apt-get install nats-server)"
    return 1
  fi
  local dir=$STATE_DIR/nats log=$LOG_DIR/nats.log pidfile=$RUN_DIR/nats.pid
  mkdir -p "$dir/jetstream"
  [[ -f $log ]] && mv -f "$log" "$log.1"
  say nats "starting nats-server on $HOST:$NATS_PORT, JetStream in $dir/jetstream, monitoring $HOST:$NATS_MONITOR_PORT (log: $log)"
  start_detached "$LOG_DIR/nats.out" "$pidfile" "$dir" \
    nats-server -a "$HOST" -p "$NATS_PORT" -m "$NATS_MONITOR_PORT" -js -sd "$dir/jetstream" -l "$log"
  if ! wait_for nats "$DEFAULT_DEADLINE" "http://$HOST:$NATS_MONITOR_PORT/healthz and /jsz" \
    "$(cat "$pidfile")" nats_ready; then
    tail_log nats "$LOG_DIR/nats.out" "$log"
    return 1
  fi
}

# ---------------------------------------------------------------------------------------------
# Kafka (KRaft combined mode, jars from Maven Central)
# ---------------------------------------------------------------------------------------------

readonly KAFKA_DIR=$STATE_DIR/kafka

# java_major JAVA_HOME: the feature release of that JDK (8, 11, 17, 21, 25, ...).
java_major() {
  local v
  v=$("$1/bin/java" -XshowSettings:properties -version 2>&1 |
    awk -F'= ' '/java.specification.version/ { print $2; exit }') || return 1
  v=${v#1.}
  [[ $v =~ ^[0-9]+$ ]] || return 1
  printf '%s' "$v"
}

# pick_java: a JDK >= 17: $JAVA_HOME, then Temurin 25, then the newest under /usr/lib/jvm.
pick_java() {
  local candidates=() c major
  [[ -n ${JAVA_HOME:-} ]] && candidates+=("$JAVA_HOME")
  candidates+=(/usr/lib/jvm/temurin-25-jdk-amd64)
  while IFS= read -r c; do candidates+=("$c"); done < <(printf '%s\n' /usr/lib/jvm/*/ | sed 's:/$::' | sort -rV)
  for c in "${candidates[@]}"; do
    [[ -x $c/bin/java ]] || continue
    major=$(java_major "$c") || continue
    if ((major >= 17)); then
      printf '%s' "$c"
      return 0
    fi
  done
  return 1
}

# The cached classpath is valid when it was resolved from this pom and its jars still exist.
kafka_classpath_valid() {
  local cpfile=$KAFKA_DIR/classpath.txt stamp=$KAFKA_DIR/classpath.stamp want jar
  [[ -s $cpfile && -s $stamp ]] || return 1
  want=$(sha256sum "$SCRIPT_DIR/kafka/pom.xml" | cut -d' ' -f1)
  [[ $(cat "$stamp") == "$want" ]] || return 1
  while IFS= read -r -d: jar || [[ -n $jar ]]; do
    [[ -z $jar || -f $jar ]] || return 1
  done <"$cpfile"
}

kafka_resolve_classpath() {
  local java_home=$1 cpfile=$KAFKA_DIR/classpath.txt log=$LOG_DIR/kafka-resolve.log mvn
  if kafka_classpath_valid; then
    return 0
  fi
  if [[ -x $REPO_ROOT/mvnw ]]; then
    mvn=$REPO_ROOT/mvnw
  elif command -v mvn >/dev/null 2>&1; then
    mvn=$(command -v mvn)
  else
    err kafka "neither $REPO_ROOT/mvnw nor mvn found: cannot resolve the Kafka classpath"
    return 1
  fi
  local t0
  t0=$(now)
  say kafka "resolving org.apache.kafka:kafka_2.13 classpath with $mvn (up to ${KAFKA_RESOLVE_DEADLINE}s the first time; log: $log)"
  rm -f "$cpfile.tmp"
  if ! (cd "$SCRIPT_DIR/kafka" && JAVA_HOME=$java_home timeout "$KAFKA_RESOLVE_DEADLINE" \
    "$mvn" -B -q -f pom.xml dependency:build-classpath -Dmdep.outputFile="$cpfile.tmp") \
    >"$log" 2>&1 </dev/null || [[ ! -s $cpfile.tmp ]]; then
    err kafka "classpath resolution failed or exceeded ${KAFKA_RESOLVE_DEADLINE}s"
    tail_log kafka "$log"
    return 1
  fi
  mv -f "$cpfile.tmp" "$cpfile"
  sha256sum "$SCRIPT_DIR/kafka/pom.xml" | cut -d' ' -f1 >"$KAFKA_DIR/classpath.stamp"
  printf -- '-cp "%s"\n' "$(cat "$cpfile")" >"$KAFKA_DIR/classpath.args"
  say kafka "classpath resolved in $(elapsed_since "$t0")s ($(tr ':' '\n' <"$cpfile" | grep -c .) jars)"
}

kafka_write_config() {
  cat >"$KAFKA_DIR/server.properties" <<EOF
# Written by shove's scripts/brokers.sh on every start: single-node KRaft, combined mode.
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@$HOST:$KAFKA_CONTROLLER_PORT
listeners=PLAINTEXT://$HOST:$KAFKA_PORT,CONTROLLER://$HOST:$KAFKA_CONTROLLER_PORT
advertised.listeners=PLAINTEXT://$HOST:$KAFKA_PORT
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
log.dirs=$KAFKA_DIR/data
num.partitions=1
offsets.topic.replication.factor=1
offsets.topic.num.partitions=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0
EOF
}

kafka_ready() {
  port_open "$KAFKA_PORT" && grep -q 'Kafka Server started' "$LOG_DIR/kafka.log" 2>/dev/null
}

up_kafka() {
  local log=$LOG_DIR/kafka.log pidfile=$RUN_DIR/kafka.pid pid
  if port_open "$KAFKA_PORT"; then
    already_running_msg kafka
    [[ ${SHOVE_KAFKA_RESET:-} == 1 ]] && warn kafka "SHOVE_KAFKA_RESET=1 ignored: Kafka is running (run 'down kafka' first)"
    return 0
  fi
  if pid=$(owned_pid kafka); then
    say kafka "pid $pid is still starting"
    if ! wait_for kafka "$KAFKA_DEADLINE" "port $HOST:$KAFKA_PORT and 'Kafka Server started' in $log" "$pid" kafka_ready; then
      tail_log kafka "$log"
      return 1
    fi
    return 0
  fi
  local java_home java
  if ! java_home=$(pick_java); then
    err kafka "no JDK >= 17 found (set JAVA_HOME)"
    return 1
  fi
  java=$java_home/bin/java
  mkdir -p "$KAFKA_DIR"
  kafka_resolve_classpath "$java_home" || return 1
  [[ -s $KAFKA_DIR/classpath.args ]] || printf -- '-cp "%s"\n' "$(cat "$KAFKA_DIR/classpath.txt")" >"$KAFKA_DIR/classpath.args"

  if [[ ${SHOVE_KAFKA_RESET:-} == 1 && -d $KAFKA_DIR/data ]]; then
    say kafka "SHOVE_KAFKA_RESET=1: wiping $KAFKA_DIR/data"
    rm -rf "$KAFKA_DIR/data"
  fi
  mkdir -p "$KAFKA_DIR/data"
  kafka_write_config

  local fmt_log=$LOG_DIR/kafka-format.log
  if [[ ! -s $KAFKA_DIR/cluster-id ]]; then
    if ! "$java" "@$KAFKA_DIR/classpath.args" kafka.tools.StorageTool random-uuid \
      >"$KAFKA_DIR/cluster-id.tmp" 2>"$fmt_log" </dev/null; then
      err kafka "could not generate a cluster id"
      tail_log kafka "$fmt_log"
      return 1
    fi
    tail -n 1 "$KAFKA_DIR/cluster-id.tmp" | tr -d '[:space:]' >"$KAFKA_DIR/cluster-id"
    rm -f "$KAFKA_DIR/cluster-id.tmp"
  fi
  if [[ ! -f $KAFKA_DIR/data/meta.properties ]]; then
    say kafka "formatting storage in $KAFKA_DIR/data (cluster id $(cat "$KAFKA_DIR/cluster-id"))"
    if ! "$java" "@$KAFKA_DIR/classpath.args" kafka.tools.StorageTool format \
      -t "$(cat "$KAFKA_DIR/cluster-id")" -c "$KAFKA_DIR/server.properties" >"$fmt_log" 2>&1 </dev/null; then
      err kafka "storage format failed"
      tail_log kafka "$fmt_log"
      return 1
    fi
  fi

  [[ -f $log ]] && mv -f "$log" "$log.1"
  say kafka "starting broker on $HOST:$KAFKA_PORT with $java (log: $log)"
  start_detached "$log" "$pidfile" "$KAFKA_DIR" \
    "$java" -Xms256m -Xmx512m "@$KAFKA_DIR/classpath.args" kafka.Kafka "$KAFKA_DIR/server.properties"
  if ! wait_for kafka "$KAFKA_DEADLINE" "port $HOST:$KAFKA_PORT and 'Kafka Server started' in $log" \
    "$(cat "$pidfile")" kafka_ready; then
    tail_log kafka "$log"
    return 1
  fi
}

# ---------------------------------------------------------------------------------------------
# SQS + SNS emulator (fauxqs on Node)
# ---------------------------------------------------------------------------------------------

readonly SQS_DIR=$STATE_DIR/sqs

sqs_ready() {
  http_ok "http://$HOST:$SQS_PORT/health"
}

sqs_install() {
  local f stamp want log=$LOG_DIR/sqs-install.log
  mkdir -p "$SQS_DIR"
  for f in package.json package-lock.json launcher.mjs; do
    [[ -f $SCRIPT_DIR/sqs/$f ]] || continue
    cmp -s "$SCRIPT_DIR/sqs/$f" "$SQS_DIR/$f" || cp "$SCRIPT_DIR/sqs/$f" "$SQS_DIR/$f"
  done
  stamp=$SQS_DIR/.installed
  want=$(cat "$SCRIPT_DIR"/sqs/package*.json | sha256sum | cut -d' ' -f1)
  if [[ -f $SQS_DIR/node_modules/fauxqs/package.json && -s $stamp && $(cat "$stamp") == "$want" ]]; then
    return 0
  fi
  local t0 npm_cmd=(install)
  t0=$(now)
  [[ -f $SQS_DIR/package-lock.json ]] && npm_cmd=(ci)
  say sqs "npm ${npm_cmd[*]} fauxqs in $SQS_DIR (log: $log)"
  if ! (cd "$SQS_DIR" && timeout 300 npm "${npm_cmd[@]}" --prefer-offline --no-audit --no-fund --loglevel=error) >"$log" 2>&1 </dev/null; then
    err sqs "npm ${npm_cmd[*]} failed"
    tail_log sqs "$log"
    return 1
  fi
  echo "$want" >"$stamp"
  say sqs "fauxqs $(node -p 'require(process.argv[1]).version' "$SQS_DIR/node_modules/fauxqs/package.json") installed in $(elapsed_since "$t0")s"
}

up_sqs() {
  local log=$LOG_DIR/sqs.log pidfile=$RUN_DIR/sqs.pid
  if port_open "$SQS_PORT"; then
    already_running_msg sqs
    return 0
  fi
  if ! command -v node >/dev/null 2>&1; then
    err sqs "node is not installed (fauxqs 1.9.2 needs Node >= 20)"
    return 1
  fi
  local node_major
  node_major=$(node -p 'process.versions.node.split(".")[0]')
  if ((node_major < 20)); then
    err sqs "node $(node --version) is too old (fauxqs 1.9.2 needs Node >= 20)"
    return 1
  fi
  sqs_install || return 1
  [[ -f $log ]] && mv -f "$log" "$log.1"
  say sqs "starting fauxqs on http://$HOST:$SQS_PORT (log: $log)"
  start_detached "$log" "$pidfile" "$SQS_DIR" \
    env FAUXQS_BIND_HOST="$HOST" FAUXQS_PORT="$SQS_PORT" node "$SQS_DIR/launcher.mjs"
  if ! wait_for sqs "$DEFAULT_DEADLINE" "http://$HOST:$SQS_PORT/health" "$(cat "$pidfile")" sqs_ready; then
    tail_log sqs "$log"
    return 1
  fi
}

# ---------------------------------------------------------------------------------------------
# down / status
# ---------------------------------------------------------------------------------------------

down_redis() { stop_owned redis; }
down_nats() { stop_owned nats; }
down_kafka() { stop_owned kafka; }
down_sqs() { stop_owned sqs; }

status_line() {
  local name=$1 port pid extra="" who
  port=$(main_port "$name")
  case $name in
    rabbitmq)
      if rabbitmq_mgmt_ok; then
        extra=", management $HOST:$RABBITMQ_MGMT_PORT up"
      else
        extra=", management $HOST:$RABBITMQ_MGMT_PORT down"
      fi
      ;;
    nats)
      if port_open "$NATS_MONITOR_PORT"; then
        extra=", monitoring $HOST:$NATS_MONITOR_PORT up"
      else
        extra=", monitoring $HOST:$NATS_MONITOR_PORT closed"
      fi
      [[ $(nats_info) == *'"jetstream":true'* ]] && extra+=", JetStream on"
      ;;
  esac
  if pid=$(owned_pid "$name"); then
    who="started by brokers.sh (pid $pid)"
  else
    who="not started by brokers.sh"
  fi
  if port_open "$port"; then
    say "$name" "running on $HOST:$port$extra; $who"
    return 0
  fi
  if [[ -n $pid ]]; then
    say "$name" "stopped ($HOST:$port not answering; pid $pid alive, maybe starting)"
  else
    say "$name" "stopped ($HOST:$port)"
  fi
  return 1
}

# ---------------------------------------------------------------------------------------------
# main
# ---------------------------------------------------------------------------------------------

main() {
  local cmd=${1:-}
  [[ $# -gt 0 ]] && shift
  case $cmd in
    up | down | status) ;;
    -h | --help | help)
      usage
      return 0
      ;;
    "")
      usage >&2
      return 2
      ;;
    *)
      echo "brokers: unknown command '$cmd'" >&2
      usage >&2
      return 2
      ;;
  esac

  local brokers=() b k known
  for b in "$@"; do
    case $b in
      -h | --help)
        usage
        return 0
        ;;
    esac
    known=false
    for k in "${ALL_BROKERS[@]}"; do [[ $b == "$k" ]] && known=true; done
    if ! $known; then
      echo "brokers: unknown broker '$b' (known: ${ALL_BROKERS[*]})" >&2
      return 2
    fi
    brokers+=("$b")
  done
  ((${#brokers[@]})) || brokers=("${ALL_BROKERS[@]}")

  mkdir -p "$STATE_DIR" "$RUN_DIR" "$LOG_DIR"

  local failed=() rc
  if [[ $cmd == status ]]; then
    for b in "${brokers[@]}"; do
      status_line "$b" || failed+=("$b")
    done
    ((${#failed[@]} == 0))
    return
  fi

  # One up/down at a time per state dir (fd 9 is closed in every daemon this script starts).
  exec 9>"$STATE_DIR/.lock"
  if ! flock -w 600 9; then
    echo "brokers: another brokers.sh holds $STATE_DIR/.lock" >&2
    return 1
  fi

  if [[ $cmd == up ]]; then
    echo "brokers: state dir $STATE_DIR"
    install_missing_packages "${brokers[@]}" || true
    local t0
    for b in "${brokers[@]}"; do
      t0=$(now)
      # A subshell with errexit on: an unexpected failure ends only this broker's attempt.
      set +e
      (
        set -e
        "up_$b"
      )
      rc=$?
      set -e
      if ((rc == 0)); then
        say "$b" "up on $HOST:$(main_port "$b") ($(elapsed_since "$t0")s)"
      else
        err "$b" "failed to come up ($(elapsed_since "$t0")s)"
        failed+=("$b")
      fi
    done
    if ((${#failed[@]})); then
      echo "brokers: FAILED: ${failed[*]}" >&2
      return 1
    fi
    echo "brokers: all up: ${brokers[*]}"
  else
    for b in "${brokers[@]}"; do
      set +e
      (
        set -e
        "down_$b"
      )
      rc=$?
      set -e
      ((rc == 0)) || failed+=("$b")
    done
    if ((${#failed[@]})); then
      echo "brokers: could not stop: ${failed[*]}" >&2
      return 1
    fi
  fi
}

main "$@"
