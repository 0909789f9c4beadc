# shellcheck shell=bash
# Sourced by up.sh once libvirtd and sshd are up (see README.md, "Non-root users"): what a
# desktop has and root never needs. polkitd on the system bus (libvirtd asks it about every
# non-root client of its read-write socket: AUTH_POLKIT), a user in the libvirt group
# ($MEMBER_USER) and one outside it ($OUTSIDER_USER), each with a home under $USERS_DIR and
# its own SSH client key, authorised for that user only on the test sshd.
# Sets USERS_ENV_KEYS / USERS_ENV_VALUES for env.sh / env.json.

POLKITD=/usr/lib/polkit-1/polkitd
LIBVIRT_GROUP=libvirt
POLKIT_NAME=org.freedesktop.PolicyKit1

polkit_on_bus() {
  dbus-send --system --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
    org.freedesktop.DBus.NameHasOwner "string:$POLKIT_NAME" 2>/dev/null | grep -q 'boolean true'
}

# ---------------------------------------------------------------------------
# polkitd (a desktop's systemd starts it; here nothing does unless we do)
# ---------------------------------------------------------------------------
[[ -x "$POLKITD" ]] || die "$POLKITD is missing (Debian package polkitd)"
if ! polkit_on_bus; then
  log "starting polkitd on the system bus"
  # setsid: its own session, so that a Ctrl-C of up.sh does not take it down later.
  (detached setsid "$POLKITD" --no-debug </dev/null >>"$LOG_DIR/polkitd.log" 2>&1) &
  echo "$!" >"$RUN_DIR/started-polkitd"
  disown
  for _ in $(seq 100); do polkit_on_bus && break; sleep 0.1; done
  polkit_on_bus || die "polkitd did not take $POLKIT_NAME on the system bus (log: $LOG_DIR/polkitd.log)"
fi
getent group "$LIBVIRT_GROUP" >/dev/null || die "group $LIBVIRT_GROUP is missing (Debian package libvirt-daemon-system)"

# ---------------------------------------------------------------------------
# The two users
# ---------------------------------------------------------------------------
ensure_test_user() { # name in-group(1|0)
  local name=$1 member=$2 home="$USERS_DIR/$1"
  if ! getent passwd "$name" >/dev/null; then
    log "creating user $name ($( ((member)) && echo "in group $LIBVIRT_GROUP" || echo "not in group $LIBVIRT_GROUP"))"
    # Password '*' (no password, but not locked): sshd without PAM refuses a locked ('!') account even for keys.
    useradd --home-dir "$home" --no-create-home --shell /bin/bash --user-group --password '*' "$name"
  fi
  [[ "$(getent passwd "$name" | cut -d: -f6)" == "$home" ]] || usermod --home "$home" "$name"
  # Membership is what the tests are about: correct it whatever an earlier run or a person did.
  if ((member)); then
    id -nG "$name" | tr ' ' '\n' | grep -qx "$LIBVIRT_GROUP" || usermod -aG "$LIBVIRT_GROUP" "$name"
  elif id -nG "$name" | tr ' ' '\n' | grep -qx "$LIBVIRT_GROUP"; then
    gpasswd -d "$name" "$LIBVIRT_GROUP" >/dev/null
  fi
  mkdir -p "$home/.ssh"
  newkey "$home/.ssh/id_ed25519" "egress-test-$name"
  cut -d' ' -f1,2 "$home/.ssh/id_ed25519.pub" | write_if_changed "$home/.ssh/authorized_keys" 600 || true
  # sshd reads authorized_keys as the user, and the app runs as the user: all of it is theirs.
  chown -R "$name:$name" "$home"
  chmod 700 "$home" "$home/.ssh"
  chmod 600 "$home/.ssh/id_ed25519" "$home/.ssh/authorized_keys"
}

mkdir -p "$USERS_DIR"
chmod 755 "$USERS_DIR"
ensure_test_user "$MEMBER_USER" 1
ensure_test_user "$OUTSIDER_USER" 0

# ---------------------------------------------------------------------------
# Verify: polkit admits the member and refuses the outsider, locally and over SSH
# ---------------------------------------------------------------------------
as_user() { setpriv --reuid="$1" --regid="$1" --init-groups env -i HOME="$USERS_DIR/$1" PATH=/usr/bin:/bin "${@:2}"; }

as_user "$MEMBER_USER" timeout 20 virsh -q -c "$URI" pool-info "$POOL_NAME" >/dev/null 2>"$CHECK_ERR" ||
  { cat "$CHECK_ERR" >&2; die "$MEMBER_USER (group $LIBVIRT_GROUP) cannot use $URI through polkit"; }
if as_user "$OUTSIDER_USER" timeout 20 virsh -q -c "$URI" version >/dev/null 2>&1; then
  die "$OUTSIDER_USER (not in group $LIBVIRT_GROUP) can use $URI: polkit should refuse it"
fi
for u in "$MEMBER_USER" "$OUTSIDER_USER"; do
  "${SSH_BASE[@]}" -o BatchMode=yes -i "$USERS_DIR/$u/.ssh/id_ed25519" -o UserKnownHostsFile="$KNOWN_HOSTS" \
    "$u@127.0.0.1" true </dev/null 2>"$CHECK_ERR" ||
    { cat "$CHECK_ERR" >&2; die "ssh to $u@127.0.0.1:$EGRESS_TEST_SSH_PORT with its own key failed (sshd log: $SSHD_LOG)"; }
done
# A key authorises only its own user (root's key is not the member's, nor the reverse).
if "${SSH_BASE[@]}" -o BatchMode=yes -i "$CLIENT_KEY" -o UserKnownHostsFile="$KNOWN_HOSTS" \
  "$MEMBER_USER@127.0.0.1" true </dev/null 2>/dev/null; then
  die "root's client key logs in as $MEMBER_USER: AuthorizedKeysFile must be per user"
fi

USERS_ENV_KEYS=()
declare -A USERS_ENV_VALUES=()
for role in MEMBER OUTSIDER; do
  u_name="${role}_USER"
  u_name="${!u_name}"
  USERS_ENV_KEYS+=("EGRESS_TEST_${role}_USER" "EGRESS_TEST_${role}_UID" "EGRESS_TEST_${role}_GID" "EGRESS_TEST_${role}_SSH_KEY")
  USERS_ENV_VALUES["EGRESS_TEST_${role}_USER"]="$u_name"
  USERS_ENV_VALUES["EGRESS_TEST_${role}_UID"]="$(id -u "$u_name")"
  USERS_ENV_VALUES["EGRESS_TEST_${role}_GID"]="$(id -g "$u_name")"
  USERS_ENV_VALUES["EGRESS_TEST_${role}_SSH_KEY"]="$USERS_DIR/$u_name/.ssh/id_ed25519"
done
USERS_ENV_KEYS+=(EGRESS_TEST_LIBVIRT_GROUP)
USERS_ENV_VALUES[EGRESS_TEST_LIBVIRT_GROUP]="$LIBVIRT_GROUP"
