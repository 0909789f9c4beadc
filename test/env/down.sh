#!/usr/bin/env bash
# Tear down what test/env/up.sh set up (see README.md). Idempotent; keeps caches and keys.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=lib.sh
source "$HERE/lib.sh"

((EUID == 0)) || die "test/env/down.sh must run as root"

# up.sh runs this with the lock already held (EGRESS_TEST_LOCKED=1) when it starts from nothing.
if [[ -d "$STATE" && "${EGRESS_TEST_LOCKED:-}" != 1 ]]; then
  exec 9>>"$STATE/.lock"
  flock -w 600 9 || die "another up.sh/down.sh holds $STATE/.lock"
fi

# Read a pid marker written by up.sh; prints the pid if that process still runs as $2.
marker_pid() {
  local pid
  pid="$(cat "$RUN_DIR/$1" 2>/dev/null || true)"
  if pid_alive "$pid" && [[ "$(pid_comm "$pid")" == "$2" ]]; then echo "$pid"; fi
}

# ---------------------------------------------------------------------------
# 1. libvirt objects named egtest-* (and the ep-egtest-* proxies tests launch)
# ---------------------------------------------------------------------------
remove_test_objects

# ---------------------------------------------------------------------------
# 2. sshd
# ---------------------------------------------------------------------------
sshd_pid="$(cat "$SSHD_PIDFILE" 2>/dev/null || true)"
if pid_alive "$sshd_pid" && [[ "$(pid_comm "$sshd_pid")" == sshd ]]; then
  log "stopping sshd (pid $sshd_pid)"
  stop_pid "$sshd_pid"
fi
rm -f "$SSHD_PIDFILE"

# ---------------------------------------------------------------------------
# 3. libvirtd / virtlogd (only if up.sh started them)
# ---------------------------------------------------------------------------
libvirtd_pid="$(marker_pid started-libvirtd libvirtd)"
if [[ -n "$libvirtd_pid" ]]; then
  running="$(virsh_ list --name 2>/dev/null | sed '/^$/d' | tr '\n' ' ' || true)"
  if [[ -n "$running" ]]; then
    warn "domains still running ($running); leaving libvirtd, virtlogd and netns $NETNS up"
  else
    if [[ -e "$RUN_DIR/created-netns" ]]; then
      # The namespace is about to go: stop every active network in it (they are only
      # stopped, not undefined; autostart ones come back with the next up.sh) so that
      # no dnsmasq is left behind holding the namespace.
      while read -r n; do
        [[ -n "$n" ]] || continue
        log "stopping network $n (it lives in netns $NETNS)"
        virsh_ net-destroy "$n" >/dev/null 2>&1 || true
      done < <(virsh_ net-list --name 2>/dev/null || true)
    fi
    log "stopping libvirtd (pid $libvirtd_pid)"
    stop_pid "$libvirtd_pid" 30
    rm -f "$RUN_DIR/started-libvirtd"
  fi
else
  rm -f "$RUN_DIR/started-libvirtd"
fi

virtlogd_pid="$(marker_pid started-virtlogd virtlogd)"
if [[ -n "$virtlogd_pid" ]]; then
  if [[ -z "$(pids_of libvirtd)" ]]; then
    log "stopping virtlogd (pid $virtlogd_pid)"
    stop_pid "$virtlogd_pid"
    rm -f "$RUN_DIR/started-virtlogd"
  fi
else
  rm -f "$RUN_DIR/started-virtlogd"
fi

# polkitd (users.sh started it): libvirtd is its only client here
polkitd_pid="$(marker_pid started-polkitd polkitd)"
if [[ -n "$polkitd_pid" ]]; then
  if [[ -z "$(pids_of libvirtd)" ]]; then
    log "stopping polkitd (pid $polkitd_pid)"
    stop_pid "$polkitd_pid"
    rm -f "$RUN_DIR/started-polkitd"
  fi
else
  rm -f "$RUN_DIR/started-polkitd"
fi

# ---------------------------------------------------------------------------
# 4. Network namespace (only if up.sh created it)
# ---------------------------------------------------------------------------
if [[ -e "$RUN_DIR/created-netns" ]]; then
  if [[ -e /run/netns/$NETNS ]]; then
    left="$(ip netns pids "$NETNS" 2>/dev/null | tr '\n' ' ' || true)"
    if [[ -z "$left" ]]; then
      log "deleting network namespace $NETNS"
      ip netns del "$NETNS"
      rm -f "$RUN_DIR/created-netns"
    else
      warn "processes still in netns $NETNS (pids: $left); not deleting it"
    fi
  else
    rm -f "$RUN_DIR/created-netns"
  fi
fi

# ---------------------------------------------------------------------------
# 5. The read-only views of checkouts (checkout.sh), stale ones of a crashed run too
# ---------------------------------------------------------------------------
# shellcheck source=checkout.sh
source "$HERE/checkout.sh"
unshare_checkouts

rm -f "$STATE/env.sh" "$STATE/env.json"
log "down (state kept: $STATE)"
