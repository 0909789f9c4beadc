# shellcheck shell=bash disable=SC2034  # the settings are used by up.sh / down.sh
# Shared settings and helpers for up.sh / down.sh. Sourced, not executed.

EGRESS_TEST_STATE="${EGRESS_TEST_STATE:-/var/tmp/egress-desk-test}"
EGRESS_TEST_STATE="$(realpath -m -- "$EGRESS_TEST_STATE")"
EGRESS_TEST_SSH_PORT="${EGRESS_TEST_SSH_PORT:-2222}"

NETNS=egress-test
SOCKET=/run/libvirt/libvirt-sock
URI=qemu:///system
NET_NAME=egtest-net
NET_BRIDGE=egtest-br0
NET_IP=192.168.150.1
NET_MASK=255.255.255.0
NET_DHCP_START=192.168.150.10
NET_DHCP_END=192.168.150.200
POOL_NAME=egtest-pool
PREFIX=egtest-

STATE="$EGRESS_TEST_STATE"
POOL_DIR="$STATE/pool"
SSH_DIR="$STATE/ssh"
RUN_DIR="$STATE/run"      # markers: what up.sh started/created (read by down.sh)
LOG_DIR="$STATE/logs"
CHECKOUTS_DIR="$STATE/checkouts" # read-only bind mounts of checkouts for the test users (checkout.sh)

SSHD_CONFIG="$SSH_DIR/sshd_config"
SSHD_PIDFILE="$SSH_DIR/sshd.pid"
SSHD_LOG="$SSH_DIR/sshd.log"
HOST_KEY="$SSH_DIR/ssh_host_ed25519_key"
WRONG_HOST_KEY="$SSH_DIR/ssh_host_ed25519_key.wrong"
CLIENT_KEY="$SSH_DIR/id_ed25519"
CLIENT_KEY_ENC="$SSH_DIR/id_ed25519_encrypted"
SSH_PASSPHRASE=egress-test-passphrase
AUTHORIZED_KEYS="$SSH_DIR/authorized_keys"
KNOWN_HOSTS="$SSH_DIR/known_hosts"
KNOWN_HOSTS_MISMATCH="$SSH_DIR/known_hosts.mismatch"

# Non-root users (users.sh): homes, keys and authorized_keys under $USERS_DIR/NAME.
USERS_DIR="$STATE/users"
MEMBER_USER=egtest-member
OUTSIDER_USER=egtest-outsider

log() { printf 'test-env: %s\n' "$*" >&2; }
warn() { printf 'test-env: WARNING: %s\n' "$*" >&2; }
die() { printf 'test-env: ERROR: %s\n' "$*" >&2; exit 1; }

# Runs a daemon (exec, in the caller's subshell) with none of our descriptors above stderr:
# a lock whoever ran up.sh holds (the state lock on fd 9, `flock` without -o on fd 3) must
# not live on in a daemon and block every later holder for as long as it runs.
detached() {
  local fd
  for fd in /proc/"$BASHPID"/fd/*; do
    fd="${fd##*/}"
    if ((fd > 2)); then eval "exec $fd>&-" 2>/dev/null || true; fi
  done
  exec "$@"
}

virsh_() { timeout 60 virsh -q -c "$URI" "$@"; }

# Network-namespace inode of a pid ("" if the pid is gone).
pid_netns() { readlink "/proc/$1/ns/net" 2>/dev/null || true; }
# Network-namespace id of our netns ("" if it does not exist).
our_netns() {
  [[ -e /run/netns/$NETNS ]] || return 0
  ip netns exec "$NETNS" readlink /proc/self/ns/net 2>/dev/null || true
}

# Process state letter (R, S, D, Z, ...) or "" if the pid is gone.
pid_state() {
  local st
  st="$(cat "/proc/$1/stat" 2>/dev/null)" || return 0
  st="${st##*) }"
  printf '%s' "${st%% *}"
}
# PID 1 on these machines does not reap orphans, so daemons that exit stay zombies
# for ever: a zombie counts as dead everywhere below.
pid_alive() {
  [[ "${1:-}" =~ ^[0-9]+$ ]] || return 1
  local st
  st="$(pid_state "$1")"
  [[ -n "$st" && "$st" != Z && "$st" != X ]]
}
pid_comm() { cat "/proc/$1/comm" 2>/dev/null || true; }

# Live pids of processes whose command name is exactly $1 (never used to kill by
# name: callers check each pid before acting on it).
pids_of() {
  local p
  for p in $(pgrep -x -- "$1" 2>/dev/null || true); do
    if pid_alive "$p"; then echo "$p"; fi
  done
}

# SIGTERM a pid, wait up to $2 seconds (default 15), then SIGKILL.
stop_pid() {
  local pid=$1 wait=${2:-15} i
  pid_alive "$pid" || return 0
  kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < wait * 10; i++)); do
    pid_alive "$pid" || return 0
    sleep 0.1
  done
  warn "pid $pid did not exit after SIGTERM; sending SIGKILL"
  kill -KILL "$pid" 2>/dev/null || true
  sleep 0.2
}

libvirt_up() { timeout 5 virsh -q -c "$URI" version >/dev/null 2>&1; }

# A libvirt object the tests made: named egtest-…, or ep-egtest-… (a proxy the tests
# launched: the provider puts ep- before the proxy's name, on its domain and volumes).
is_test_name() { [[ "$1" == "$PREFIX"* || "$1" == "ep-$PREFIX"* ]]; }
test_names() { # filter stdin
  local n
  while read -r n; do
    if [[ -n "$n" ]] && is_test_name "$n"; then echo "$n"; fi
  done
}

# Destroy/undefine every test domain, pool (with its volumes), network and nwfilter, and
# test volumes left in other pools (used by down.sh, and by up.sh when it starts fresh).
remove_test_objects() {
  if ! { command -v virsh >/dev/null 2>&1 && libvirt_up; }; then
    log "libvirtd is not answering on $SOCKET; no libvirt objects to remove"
    return 0
  fi
  local d p n f
  while read -r d; do
    log "removing domain $d"
    virsh_ destroy "$d" >/dev/null 2>&1 || true
    virsh_ undefine "$d" --nvram --managed-save --snapshots-metadata --checkpoints-metadata >/dev/null 2>&1 ||
      virsh_ undefine "$d" --managed-save --snapshots-metadata >/dev/null 2>&1 ||
      virsh_ undefine "$d" >/dev/null 2>&1 || true
    if virsh_ dominfo "$d" >/dev/null 2>&1; then warn "could not remove domain $d"; fi
  done < <(virsh_ list --all --name 2>/dev/null | test_names)

  while read -r p; do
    [[ -n "$p" ]] || continue
    if [[ "$p" == "$PREFIX"* ]]; then
      log "removing storage pool $p and its volumes"
      virsh_ pool-start "$p" >/dev/null 2>&1 || true
      virsh_ pool-refresh "$p" >/dev/null 2>&1 || true
      delete_pool_volumes "$p" all
      virsh_ pool-destroy "$p" >/dev/null 2>&1 || true
      virsh_ pool-undefine "$p" >/dev/null 2>&1 || true
      if virsh_ pool-info "$p" >/dev/null 2>&1; then warn "could not remove pool $p"; fi
    else
      # test volumes that tests left in other (active) pools
      delete_pool_volumes "$p" tests
    fi
  done < <(virsh_ pool-list --all --name 2>/dev/null || true)

  while read -r n; do
    [[ "$n" == "$PREFIX"* ]] || continue
    log "removing network $n"
    virsh_ net-destroy "$n" >/dev/null 2>&1 || true
    virsh_ net-undefine "$n" >/dev/null 2>&1 || true
    if virsh_ net-info "$n" >/dev/null 2>&1; then warn "could not remove network $n"; fi
  done < <(virsh_ net-list --all --name 2>/dev/null || true)

  while read -r f; do
    [[ "$f" == "$PREFIX"* ]] || continue
    log "removing nwfilter $f"
    virsh_ nwfilter-undefine "$f" >/dev/null 2>&1 || warn "could not remove nwfilter $f"
  done < <(virsh_ nwfilter-list 2>/dev/null | awk '{print $2}' || true)
}

delete_pool_volumes() { # pool all|tests
  local v
  while read -r v; do
    [[ -n "$v" ]] || continue
    if [[ "$2" == tests ]] && ! is_test_name "$v"; then continue; fi
    virsh_ vol-delete --pool "$1" "$v" >/dev/null 2>&1 || warn "could not delete volume $v in pool $1"
  done < <(virsh_ vol-list --pool "$1" 2>/dev/null | awk '{print $1}' || true)
}
