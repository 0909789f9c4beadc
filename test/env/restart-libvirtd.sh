#!/usr/bin/env bash
# Restarts the test environment's libvirtd (in its network namespace), as an administrator
# or a package upgrade would under a running app: the fault lane's "daemon restarted" test.
# Optional $1: seconds to stay down before starting again (default 0). Running domains
# keep running (QEMU outlives libvirtd) and the new daemon reconnects to them.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source=lib.sh
source "$HERE/lib.sh"
[[ "$(id -u)" == 0 ]] || die "restart-libvirtd.sh must run as root"
down_for="${1:-0}"
[[ -f "$RUN_DIR/started-libvirtd" ]] || die "no libvirtd started by up.sh (no $RUN_DIR/started-libvirtd)"
old="$(cat "$RUN_DIR/started-libvirtd")"
[[ "$(pid_comm "$old")" == libvirtd ]] || die "pid $old is not libvirtd"
log "restarting libvirtd (pid $old)"
stop_pid "$old" 30
sleep "$down_for"
(detached ip netns exec "$NETNS" env LIBVIRT_LOG_OUTPUTS="3:file:$LOG_DIR/libvirtd.log" /usr/sbin/libvirtd -d)
for _ in $(seq 1 100); do
  pid="$(pids_of libvirtd | head -n1)"
  if [[ -n "$pid" ]] && [[ -S "$SOCKET" ]] && timeout 10 virsh -q -c "$URI" version >/dev/null 2>&1; then
    echo "$pid" >"$RUN_DIR/started-libvirtd"
    log "libvirtd answers again (pid $pid)"
    exit 0
  fi
  sleep 0.2
done
die "libvirtd did not come back (log: $LOG_DIR/libvirtd.log)"
