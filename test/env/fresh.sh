# shellcheck shell=bash
# Starting the test environment from nothing (sourced by up.sh; see README.md, "Born
# fresh under CI"). Under CI every run makes new sshd host and client keys, known_hosts,
# pool, network and namespace, so that no value of one machine or one earlier run can
# make a test pass here and fail elsewhere. Only content-addressed caches outlive a run:
# the guest image (named by the hash of its recipe), apt's package cache and libvirt's
# QEMU capabilities cache (keyed by the QEMU binary).

# Whether this run starts from nothing: EGRESS_TEST_FRESH=1 or 0 says so; unset, CI decides.
fresh_requested() {
  case "${EGRESS_TEST_FRESH:-}" in
    1) return 0 ;;
    0) return 1 ;;
  esac
  case "${CI:-}" in
    true | 1 | yes) return 0 ;;
  esac
  return 1
}

GUEST_CACHE="$(realpath -m -- "${EGRESS_GUEST_CACHE:-/var/cache/egress-desk-test/images}")"

# Tear down everything up.sh made (down.sh), then what down.sh leaves because no marker
# said up.sh started it, then empty $STATE. The caller holds $STATE/.lock.
start_from_nothing() {
  case "$GUEST_CACHE/" in
    "$STATE"/*) die "the guest image cache ($GUEST_CACHE) is inside $STATE, which a fresh start wipes: set EGRESS_GUEST_CACHE or EGRESS_TEST_STATE so that it is not" ;;
  esac
  # Never empty a directory that is not a test state dir (EGRESS_TEST_STATE set by mistake).
  local other
  # .lock and logs/ are made by up.sh itself before this runs (logs/apt.log holds this
  # run's package install on a machine that never had them), so they prove nothing.
  other="$(find "$STATE" -mindepth 1 -maxdepth 1 ! -name .lock ! -name logs -printf '%f\n' | head -n1)"
  if [[ -n "$other" && ! -e "$RUN_DIR" && ! -e "$SSH_DIR" && ! -e "$STATE/env.json" ]]; then
    die "$STATE holds files but does not look like a test state dir (no run/, ssh/ or env.json): refusing to wipe it"
  fi

  log "starting from nothing: new keys, known_hosts, pool, network and namespace (caches: $GUEST_CACHE, apt, libvirt's QEMU capabilities)"
  EGRESS_TEST_LOCKED=1 bash "$HERE/down.sh"

  # down.sh stops only what this state dir's markers say up.sh started. Starting from
  # nothing, the namespace and everything in it belong to the test environment.
  if [[ -e /run/netns/$NETNS ]]; then
    local ns pid left n
    ns="$(our_netns)"
    for pid in $(pids_of libvirtd); do
      [[ -n "$ns" && "$(pid_netns "$pid")" == "$ns" ]] || continue
      # its networks first, so that no dnsmasq is left holding the namespace
      while read -r n; do
        [[ -n "$n" ]] && virsh_ net-destroy "$n" >/dev/null 2>&1 || true
      done < <(virsh_ net-list --name 2>/dev/null || true)
      log "stopping libvirtd (pid $pid) in netns $NETNS"
      stop_pid "$pid" 30
    done
    left="$(ip netns pids "$NETNS" 2>/dev/null | tr '\n' ' ' || true)"
    [[ -z "${left// /}" ]] || die "processes still in netns $NETNS (pids: $left): cannot start from nothing; stop them and run again"
    log "deleting network namespace $NETNS"
    ip netns del "$NETNS"
  fi

  # down.sh unmounted the checkout views; never empty $STATE with anything still mounted
  # in it (the rm would reach into the mounted directory).
  local mounted
  mounted="$(findmnt -rn -o TARGET | awk -v p="$STATE/" 'index($0, p) == 1 { print; exit }')"
  [[ -z "$mounted" ]] || die "$mounted is still mounted inside $STATE: unmount it and run again"
  log "emptying $STATE"
  # .lock is held by the caller; logs/apt.log already holds this run's package install.
  find "$STATE" -mindepth 1 -maxdepth 1 ! -name .lock ! -name logs -exec rm -rf -- {} +
  if [[ -d "$LOG_DIR" ]]; then find "$LOG_DIR" -mindepth 1 -maxdepth 1 ! -name apt.log -exec rm -rf -- {} +; fi
  # serial-console logs of earlier runs' domains (libvirt appends to them)
  rm -f /var/log/libvirt/qemu/"$PREFIX"*.log /var/log/libvirt/qemu/ep-"$PREFIX"*.log
}
