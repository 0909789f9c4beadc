#!/usr/bin/env bash
# Bring up the Egress Desk test environment (see README.md). Idempotent.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=lib.sh
source "$HERE/lib.sh"
# shellcheck source=fresh.sh
source "$HERE/fresh.sh"

export DEBIAN_FRONTEND=noninteractive
T0=$SECONDS

PACKAGES=(
  libvirt-daemon-system libvirt-clients qemu-system-x86 qemu-utils
  openssh-server openssh-client dnsmasq-base iptables genisoimage mmdebstrap
  e2fsprogs fdisk extlinux syslinux-common python3-libvirt curl wget iproute2 chromium fuseiso libxml2-utils
  busybox polkitd dbus virtinst gnupg
)

if ! [[ "$EGRESS_TEST_SSH_PORT" =~ ^[0-9]+$ ]] || ((EGRESS_TEST_SSH_PORT < 1 || EGRESS_TEST_SSH_PORT > 65535)); then
  die "EGRESS_TEST_SSH_PORT must be a TCP port number (got '$EGRESS_TEST_SSH_PORT')"
fi

# ---------------------------------------------------------------------------
# 1. Debian packages
# ---------------------------------------------------------------------------
POLICY=/usr/sbin/policy-rc.d
POLICY_SAVED=""
POLICY_OURS=0

restore_policy() {
  if ((POLICY_OURS)); then
    rm -f "$POLICY"
    if [[ -n "$POLICY_SAVED" ]]; then mv -f "$POLICY_SAVED" "$POLICY"; fi
    POLICY_OURS=0
  fi
}
trap restore_policy EXIT

# Make sure maintainer scripts cannot start services (libvirtd, sshd, ...) in the
# host network namespace while we install.
forbid_service_starts() {
  if [[ -e "$POLICY" ]]; then
    local rc=0
    if [[ -x "$POLICY" ]]; then "$POLICY" libvirtd start >/dev/null 2>&1 || rc=$?; else rc=1; fi
    if ((rc == 101)); then
      log "existing $POLICY already forbids service starts during install"
      return 0
    fi
    POLICY_SAVED="$POLICY.egress-test-saved.$$"
    mv -f "$POLICY" "$POLICY_SAVED"
  fi
  POLICY_OURS=1
  printf '#!/bin/sh\n# temporary (egress-desk test/env/up.sh): no service starts during install\nexit 101\n' >"$POLICY"
  chmod 755 "$POLICY"
  log "installed a temporary $POLICY that forbids service starts"
}

DAEMONS=(libvirtd virtlogd virtlockd virtqemud virtnetworkd virtstoraged sshd dnsmasq)
daemon_pids() { local d; for d in "${DAEMONS[@]}"; do pids_of "$d"; done; }

# Stop daemons that a maintainer script started during the install, outside our netns.
stop_daemons_started_by_install() {
  local before="$1" ns pid comm cmd
  ns="$(our_netns)"
  for pid in $(daemon_pids); do
    grep -qx -- "$pid" <<<"$before" && continue
    [[ -n "$ns" && "$(pid_netns "$pid")" == "$ns" ]] && continue
    comm="$(pid_comm "$pid")"
    cmd="$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null || true)"
    case "$comm" in
      sshd) [[ "$cmd" == *"$SSHD_CONFIG"* ]] && continue ;;
      dnsmasq) [[ "$cmd" == */var/lib/libvirt/dnsmasq/* ]] || continue ;;
    esac
    warn "package install started $comm (pid $pid) outside netns $NETNS; stopping it"
    stop_pid "$pid"
  done
}

missing=()
for p in "${PACKAGES[@]}"; do
  [[ "$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)" == installed ]] || missing+=("$p")
done

if ((${#missing[@]})); then
  ((EUID == 0)) || die "missing Debian packages: ${missing[*]}. Run test/env/up.sh as root (it installs them with apt-get)."
  mkdir -p "$STATE" "$LOG_DIR"
  log "installing ${#missing[@]} Debian package(s): ${missing[*]} (log: $LOG_DIR/apt.log)"
  forbid_service_starts
  before="$(daemon_pids)"
  APT_OPTS=(-o DPkg::Lock::Timeout=600 -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold)
  log "apt-get update"
  if ! apt-get "${APT_OPTS[@]}" update >>"$LOG_DIR/apt.log" 2>&1; then
    warn "apt-get update reported errors (some repositories unreachable?); continuing"
  fi
  log "apt-get install (this takes a few minutes)"
  if ! apt-get "${APT_OPTS[@]}" install -y --no-install-recommends "${missing[@]}" >>"$LOG_DIR/apt.log" 2>&1; then
    tail -n 30 "$LOG_DIR/apt.log" >&2
    die "apt-get install failed (see $LOG_DIR/apt.log)"
  fi
  restore_policy
  stop_daemons_started_by_install "$before"
  log "packages installed"
fi

((EUID == 0)) || die "test/env/up.sh must run as root (network namespace, libvirtd, sshd)"

mkdir -p "$STATE"
# Serialise concurrent up.sh/down.sh runs. Every daemon below is started with `9>&-`:
# a daemon that inherited fd 9 would hold the lock for as long as it lives.
exec 9>>"$STATE/.lock"
flock -w 600 9 || die "another up.sh/down.sh holds $STATE/.lock"

# Under CI (or EGRESS_TEST_FRESH=1): nothing of an earlier run is reused (fresh.sh).
FRESH=0
if fresh_requested; then
  FRESH=1
  start_from_nothing
fi

chmod 755 "$STATE"
mkdir -p "$RUN_DIR" "$LOG_DIR"
mkdir -p "$SSH_DIR"
chmod 700 "$SSH_DIR"

# ---------------------------------------------------------------------------
# 2. Network namespace
# ---------------------------------------------------------------------------
if [[ ! -e /run/netns/$NETNS ]]; then
  log "creating network namespace $NETNS"
  ip netns add "$NETNS"
  : >"$RUN_DIR/created-netns"
fi
ip -n "$NETNS" link set lo up
NS_ID="$(our_netns)"
[[ -n "$NS_ID" ]] || die "cannot enter network namespace $NETNS"
[[ "$NS_ID" != "$(readlink /proc/self/ns/net)" ]] || die "netns $NETNS is the host namespace?!"

# ---------------------------------------------------------------------------
# 3. dbus, virtlogd, libvirtd (inside the netns)
# ---------------------------------------------------------------------------
dbus_pid="$(cat /run/dbus/pid 2>/dev/null || true)"
if ! { pid_alive "$dbus_pid" && [[ "$(pid_comm "$dbus_pid")" == dbus-daemon ]]; }; then
  log "starting dbus"
  mkdir -p /run/dbus
  rm -f /run/dbus/pid
  (detached dbus-daemon --system --fork)
fi

if [[ -z "$(pids_of virtlogd)" ]]; then
  log "starting virtlogd"
  (detached /usr/sbin/virtlogd -d)
  pid="$(pids_of virtlogd | head -n1)"
  [[ -n "$pid" ]] || die "virtlogd did not start"
  echo "$pid" >"$RUN_DIR/started-virtlogd"
fi

# A libvirtd outside our namespace would create bridges on the host network: stop it.
for pid in $(pids_of libvirtd); do
  if [[ "$(pid_netns "$pid")" != "$NS_ID" ]]; then
    warn "libvirtd (pid $pid) is running outside netns $NETNS; stopping it to restart it inside"
    stop_pid "$pid" 30
    rm -f "$RUN_DIR/started-libvirtd"
  fi
done
# Leftovers of a host-namespace libvirtd: our own bridge/dnsmasq go, others are reported.
if ip link show "$NET_BRIDGE" >/dev/null 2>&1; then
  warn "bridge $NET_BRIDGE exists in the host namespace; deleting it"
  ip link del "$NET_BRIDGE" || true
fi
host_bridges="$(ip -br link show type bridge 2>/dev/null | awk '$1 ~ /^(virbr|egtest-)/ {print $1}' | tr '\n' ' ')"
[[ -z "$host_bridges" ]] || warn "libvirt bridges in the HOST namespace (left by an earlier libvirtd?): $host_bridges"

if [[ -z "$(pids_of libvirtd)" ]]; then
  log "starting libvirtd in netns $NETNS"
  (detached ip netns exec "$NETNS" env LIBVIRT_LOG_OUTPUTS="3:file:$LOG_DIR/libvirtd.log" /usr/sbin/libvirtd -d)
  pid="$(pids_of libvirtd | head -n1)"
  [[ -n "$pid" ]] || die "libvirtd did not start (log: $LOG_DIR/libvirtd.log)"
  echo "$pid" >"$RUN_DIR/started-libvirtd"
fi

# libvirtd answers RPCs only once its drivers are initialised. Normally that takes
# ~1 s, but the very first start probes QEMU's capabilities (10-60 s here, cached
# afterwards in /var/cache/libvirt/qemu/capabilities), so allow for that once.
LIBVIRT_WAIT=20
if ! compgen -G '/var/cache/libvirt/qemu/capabilities/*.xml' >/dev/null; then
  LIBVIRT_WAIT=180
  log "waiting for libvirtd: first start, it probes QEMU capabilities (10-60 s)"
fi
deadline=$((SECONDS + LIBVIRT_WAIT))
ok=0
while ((SECONDS < deadline)); do
  if [[ -S "$SOCKET" ]] && timeout 10 virsh -q -c "$URI" version >/dev/null 2>&1; then ok=1; break; fi
  sleep 0.5
done
((ok)) || die "libvirtd does not answer on $SOCKET after $LIBVIRT_WAIT s (log: $LOG_DIR/libvirtd.log)"
for pid in $(pids_of libvirtd); do
  [[ "$(pid_netns "$pid")" == "$NS_ID" ]] || die "libvirtd pid $pid is not in netns $NETNS"
done
# Starting from nothing: test objects that libvirtd loaded from its persistent
# definitions (it was not running to be asked before) go too.
if ((FRESH)); then remove_test_objects; fi

if [[ -e /dev/kvm ]]; then chmod 666 /dev/kvm; fi

# ---------------------------------------------------------------------------
# 4. Network egtest-net and pool egtest-pool
# ---------------------------------------------------------------------------
if ! virsh_ net-info "$NET_NAME" >/dev/null 2>&1; then
  log "defining network $NET_NAME ($NET_IP/24, bridge $NET_BRIDGE)"
  cat >"$RUN_DIR/$NET_NAME.xml" <<EOF
<network>
  <name>$NET_NAME</name>
  <forward mode='nat'/>
  <bridge name='$NET_BRIDGE' stp='on' delay='0'/>
  <ip address='$NET_IP' netmask='$NET_MASK'>
    <dhcp>
      <range start='$NET_DHCP_START' end='$NET_DHCP_END'/>
    </dhcp>
  </ip>
</network>
EOF
  virsh_ net-define "$RUN_DIR/$NET_NAME.xml" >/dev/null
fi
net_xml="$(virsh_ net-dumpxml "$NET_NAME")"
if ! grep -q "<bridge name='$NET_BRIDGE'" <<<"$net_xml" || ! grep -q "address='$NET_IP'" <<<"$net_xml"; then
  die "network $NET_NAME exists with a different bridge/address; run test/env/down.sh first"
fi
if [[ "$(virsh_ net-info "$NET_NAME" | awk '$1 == "Active:" {print $2}')" != yes ]]; then
  log "starting network $NET_NAME"
  virsh_ net-start "$NET_NAME" >/dev/null
fi

if ! virsh_ pool-info "$POOL_NAME" >/dev/null 2>&1; then
  log "defining storage pool $POOL_NAME ($POOL_DIR)"
  virsh_ pool-define-as "$POOL_NAME" dir --target "$POOL_DIR" >/dev/null
fi
pool_target="$(virsh_ pool-dumpxml "$POOL_NAME" | sed -n 's:.*<path>\(.*\)</path>.*:\1:p' | tail -n1)"
[[ "$pool_target" == "$POOL_DIR" ]] ||
  die "pool $POOL_NAME points at $pool_target, not $POOL_DIR; run test/env/down.sh first"
if [[ "$(virsh_ pool-info "$POOL_NAME" | awk '$1 == "State:" {print $2}')" != running ]]; then
  log "starting storage pool $POOL_NAME"
  virsh_ pool-build "$POOL_NAME" >/dev/null
  virsh_ pool-start "$POOL_NAME" >/dev/null
fi

# ---------------------------------------------------------------------------
# 5. sshd on 127.0.0.1 with throwaway keys
# ---------------------------------------------------------------------------
newkey() { # file comment [passphrase]
  [[ -s "$1" && -s "$1.pub" ]] && return 0
  rm -f "$1" "$1.pub"
  ssh-keygen -q -t ed25519 -N "${3:-}" -C "$2" -f "$1"
}
newkey "$HOST_KEY" egress-test-host
newkey "$WRONG_HOST_KEY" egress-test-wrong-host
newkey "$CLIENT_KEY" egress-test-client
newkey "$CLIENT_KEY_ENC" egress-test-client-encrypted "$SSH_PASSPHRASE"

# Write $1 from stdin only if its content changes; returns 0 when it changed.
# (No temp file when nothing changes, so a second run leaves even directory mtimes alone.)
write_if_changed() {
  local new old tmp="$1.tmp.$$"
  new="$(cat; echo .)"
  if [[ -f "$1" ]]; then
    old="$(cat "$1"; echo .)"
    [[ "$old" != "$new" ]] || return 1
  fi
  printf '%s' "${new%.}" >"$tmp"
  chmod "${2:-644}" "$tmp"
  mv -f "$tmp" "$1"
}

if ((EGRESS_TEST_SSH_PORT == 22)); then hostspec=127.0.0.1; else hostspec="[127.0.0.1]:$EGRESS_TEST_SSH_PORT"; fi
cat "$CLIENT_KEY.pub" "$CLIENT_KEY_ENC.pub" | write_if_changed "$AUTHORIZED_KEYS" 600 || true
echo "$hostspec $(cut -d' ' -f1,2 "$HOST_KEY.pub")" | write_if_changed "$KNOWN_HOSTS" || true
echo "$hostspec $(cut -d' ' -f1,2 "$WRONG_HOST_KEY.pub")" | write_if_changed "$KNOWN_HOSTS_MISMATCH" || true
HOST_KEY_SHA256="$(ssh-keygen -lf "$HOST_KEY.pub" | awk '{print $2}')"

SSHD_CONFIG_TEXT="$(cat <<EOF
# Throwaway sshd for the Egress Desk tests (generated by test/env/up.sh).
Port $EGRESS_TEST_SSH_PORT
ListenAddress 127.0.0.1
HostKey $HOST_KEY
PidFile $SSHD_PIDFILE
# per user (users.sh): a key logs in only as its own user; root's file is in the Match block below
AuthorizedKeysFile $USERS_DIR/%u/.ssh/authorized_keys
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
UsePAM no
# the state dir lives under /var/tmp (mode 1777), which StrictModes rejects
StrictModes no
AllowStreamLocalForwarding yes
# Unix-socket forwarding (ssh2 openssh_forwardOutStreamLocal) needs local forwarding on:
# both "AllowTcpForwarding no" and a PermitOpen list (which cannot name socket paths)
# deny it as well. Tests must forward TCP only to 127.0.0.1 (network rule, README.md).
AllowTcpForwarding local
GatewayPorts no
PermitTunnel no
X11Forwarding no
PrintMotd no
# tests open many connections at once
MaxStartups 200:30:400
MaxSessions 100
Subsystem sftp internal-sftp
Match User root
  AuthorizedKeysFile $AUTHORIZED_KEYS
EOF
)"
sshd_config_changed=0
if [[ ! -f "$SSHD_CONFIG" || "$(cat "$SSHD_CONFIG")" != "$SSHD_CONFIG_TEXT" ]]; then
  # validate before replacing (and before stopping a running sshd)
  mkdir -p /run/sshd
  printf '%s\n' "$SSHD_CONFIG_TEXT" >"$SSHD_CONFIG.new"
  /usr/sbin/sshd -t -f "$SSHD_CONFIG.new" || die "sshd rejects the generated config ($SSHD_CONFIG.new)"
  mv -f "$SSHD_CONFIG.new" "$SSHD_CONFIG"
  sshd_config_changed=1
fi

sshd_pid="$(cat "$SSHD_PIDFILE" 2>/dev/null || true)"
sshd_running=0
if pid_alive "$sshd_pid" && [[ "$(pid_comm "$sshd_pid")" == sshd ]]; then sshd_running=1; fi
if ((sshd_running && sshd_config_changed)); then
  log "sshd config changed; restarting sshd (pid $sshd_pid)"
  stop_pid "$sshd_pid"
  sshd_running=0
fi
if ((!sshd_running)); then
  if [[ -n "$(ss -Hltn "sport = :$EGRESS_TEST_SSH_PORT" 2>/dev/null)" ]]; then
    die "TCP port $EGRESS_TEST_SSH_PORT is already in use (set EGRESS_TEST_SSH_PORT to another port)"
  fi
  log "starting sshd on 127.0.0.1:$EGRESS_TEST_SSH_PORT"
  mkdir -p /run/sshd
  chmod 755 /run/sshd
  rm -f "$SSHD_PIDFILE"
  (detached /usr/sbin/sshd -f "$SSHD_CONFIG" -E "$SSHD_LOG")
  for _ in $(seq 50); do [[ -s "$SSHD_PIDFILE" ]] && break; sleep 0.1; done
  [[ -s "$SSHD_PIDFILE" ]] || die "sshd did not start (log: $SSHD_LOG)"
fi

# ---------------------------------------------------------------------------
# 6. Verify
# ---------------------------------------------------------------------------
CHECK_ERR="$(mktemp /tmp/egress-test-ssh-check.XXXXXX)"
trap 'restore_policy; rm -f "$CHECK_ERR"' EXIT
SSH_BASE=(ssh -F /dev/null -p "$EGRESS_TEST_SSH_PORT" -o ConnectTimeout=5 -o IdentitiesOnly=yes
  -o GlobalKnownHostsFile=/dev/null -o StrictHostKeyChecking=yes -o PreferredAuthentications=publickey)

ok=0
for _ in $(seq 20); do
  if "${SSH_BASE[@]}" -o BatchMode=yes -i "$CLIENT_KEY" -o UserKnownHostsFile="$KNOWN_HOSTS" \
    root@127.0.0.1 true </dev/null 2>"$CHECK_ERR"; then ok=1; break; fi
  sleep 0.25
done
((ok)) || { cat "$CHECK_ERR" >&2; die "ssh to root@127.0.0.1:$EGRESS_TEST_SSH_PORT with $CLIENT_KEY failed (sshd log: $SSHD_LOG)"; }

if "${SSH_BASE[@]}" -o BatchMode=yes -i "$CLIENT_KEY" -o UserKnownHostsFile="$KNOWN_HOSTS_MISMATCH" \
  root@127.0.0.1 true </dev/null 2>/dev/null; then
  die "ssh with $KNOWN_HOSTS_MISMATCH succeeded, but it must fail the host-key check"
fi

askpass="$RUN_DIR/askpass.sh"
printf '#!/bin/sh\necho %s\n' "$SSH_PASSPHRASE" | write_if_changed "$askpass" 700 || true
SSH_ASKPASS="$askpass" SSH_ASKPASS_REQUIRE=force DISPLAY=none \
  "${SSH_BASE[@]}" -o BatchMode=no -o NumberOfPasswordPrompts=1 -i "$CLIENT_KEY_ENC" \
  -o UserKnownHostsFile="$KNOWN_HOSTS" root@127.0.0.1 true </dev/null 2>"$CHECK_ERR" ||
  { cat "$CHECK_ERR" >&2; die "ssh with the encrypted key $CLIENT_KEY_ENC failed"; }
if ssh-keygen -y -P '' -f "$CLIENT_KEY_ENC" >/dev/null 2>&1; then
  die "$CLIENT_KEY_ENC is not passphrase-protected"
fi

# libvirt through the sshd: forward a local unix socket to libvirtd's (what the app's
# SSH transport does with openssh_forwardOutStreamLocal).
FWD_SOCK="$(mktemp -u /tmp/egress-test-fwd.XXXXXX)"
"${SSH_BASE[@]}" -o BatchMode=yes -o ExitOnForwardFailure=yes -i "$CLIENT_KEY" -o UserKnownHostsFile="$KNOWN_HOSTS" \
  -N -L "$FWD_SOCK:$SOCKET" root@127.0.0.1 </dev/null 2>"$CHECK_ERR" 9>&- &
fwd_pid=$!
trap 'restore_policy; kill "$fwd_pid" 2>/dev/null || true; rm -f "$CHECK_ERR" "$FWD_SOCK"' EXIT
for _ in $(seq 50); do [[ -S "$FWD_SOCK" ]] && break; sleep 0.1; done
fwd_ok=0
timeout 10 virsh -q -c "qemu+unix:///system?socket=$FWD_SOCK" version >/dev/null 2>&1 && fwd_ok=1
kill "$fwd_pid" 2>/dev/null || true
wait "$fwd_pid" 2>/dev/null || true
rm -f "$FWD_SOCK"
((fwd_ok)) || { cat "$CHECK_ERR" >&2; die "libvirtd not reachable through an ssh unix-socket forward (sshd log: $SSHD_LOG)"; }

virsh_ pool-info "$POOL_NAME" >/dev/null || die "virsh pool-info $POOL_NAME failed"
virsh_ net-info "$NET_NAME" >/dev/null || die "virsh net-info $NET_NAME failed"
timeout 30 virsh -q -c test:///default list --all >/dev/null || die "virsh -c test:///default list --all failed"
# the same test driver served by the daemon over its socket (what a remote-protocol client sees)
timeout 30 virsh -q -c "test+unix:///default?socket=$SOCKET" list --all >/dev/null ||
  die "libvirtd does not serve test:///default on $SOCKET"

# The bridge must exist only inside the netns.
ip -n "$NETNS" -br addr show dev "$NET_BRIDGE" 2>/dev/null | grep -q "$NET_IP/" ||
  die "bridge $NET_BRIDGE with $NET_IP not found inside netns $NETNS"
! ip link show "$NET_BRIDGE" >/dev/null 2>&1 || die "bridge $NET_BRIDGE exists in the host namespace"
dnsmasq_pid="$(cat "/run/libvirt/network/$NET_NAME.pid" 2>/dev/null || true)"
if pid_alive "$dnsmasq_pid" && [[ "$(pid_netns "$dnsmasq_pid")" != "$NS_ID" ]]; then
  die "dnsmasq of $NET_NAME (pid $dnsmasq_pid) runs outside netns $NETNS"
fi

# polkitd and the non-root users (sets USERS_ENV_KEYS / USERS_ENV_VALUES)
# shellcheck source=users.sh
source "$HERE/users.sh"

# The checkout, read-only under $STATE, for the non-root lanes: the users may not be able
# to enter the directory it is in (checkout.sh).
# shellcheck source=checkout.sh
source "$HERE/checkout.sh"
share_checkout "$HERE/../.."
check_checkout_readable "$MEMBER_USER" "$HERE/../.."

# ---------------------------------------------------------------------------
# 7. env.sh / env.json
# ---------------------------------------------------------------------------
ENV_KEYS=(EGRESS_TEST_STATE EGRESS_TEST_NETNS EGRESS_TEST_SOCKET EGRESS_TEST_SSH_PORT EGRESS_TEST_SSH_KEY
  EGRESS_TEST_SSH_KEY_ENCRYPTED EGRESS_TEST_SSH_PASSPHRASE EGRESS_TEST_KNOWN_HOSTS
  EGRESS_TEST_KNOWN_HOSTS_MISMATCH EGRESS_TEST_HOST_KEY_SHA256 EGRESS_TEST_HOST_KEY_PUB EGRESS_TEST_POOL EGRESS_TEST_POOL_DIR
  EGRESS_TEST_NETWORK EGRESS_TEST_BRIDGE_IP EGRESS_TEST_CHECKOUTS "${USERS_ENV_KEYS[@]}")
declare -A ENV_VALUES=(
  [EGRESS_TEST_STATE]="$STATE"
  [EGRESS_TEST_NETNS]="$NETNS"
  [EGRESS_TEST_SOCKET]="$SOCKET"
  [EGRESS_TEST_SSH_PORT]="$EGRESS_TEST_SSH_PORT"
  [EGRESS_TEST_SSH_KEY]="$CLIENT_KEY"
  [EGRESS_TEST_SSH_KEY_ENCRYPTED]="$CLIENT_KEY_ENC"
  [EGRESS_TEST_SSH_PASSPHRASE]="$SSH_PASSPHRASE"
  [EGRESS_TEST_KNOWN_HOSTS]="$KNOWN_HOSTS"
  [EGRESS_TEST_KNOWN_HOSTS_MISMATCH]="$KNOWN_HOSTS_MISMATCH"
  [EGRESS_TEST_HOST_KEY_SHA256]="$HOST_KEY_SHA256"
  [EGRESS_TEST_HOST_KEY_PUB]="$HOST_KEY.pub"
  [EGRESS_TEST_POOL]="$POOL_NAME"
  [EGRESS_TEST_POOL_DIR]="$POOL_DIR"
  [EGRESS_TEST_NETWORK]="$NET_NAME"
  [EGRESS_TEST_BRIDGE_IP]="$NET_IP"
  [EGRESS_TEST_CHECKOUTS]="$CHECKOUTS_DIR"
)
for k in "${USERS_ENV_KEYS[@]}"; do ENV_VALUES[$k]="${USERS_ENV_VALUES[$k]}"; done
json_str() { local s=${1//\\/\\\\}; s=${s//\"/\\\"}; printf '"%s"' "$s"; }

{
  echo "# Egress Desk test environment (generated by test/env/up.sh)"
  for k in "${ENV_KEYS[@]}"; do printf 'export %s=%q\n' "$k" "${ENV_VALUES[$k]}"; done
} | write_if_changed "$STATE/env.sh" || true
{
  echo "{"
  n=${#ENV_KEYS[@]}
  for ((i = 0; i < n; i++)); do
    k=${ENV_KEYS[$i]}
    printf '  "%s": %s%s\n' "$k" "$(json_str "${ENV_VALUES[$k]}")" "$( ((i < n - 1)) && echo , || true)"
  done
  echo "}"
} | write_if_changed "$STATE/env.json" || true

log "ready (state: $STATE) in $((SECONDS - T0)) s"
