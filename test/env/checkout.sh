# shellcheck shell=bash
# The checkout as the test users reach it (see README.md, "The checkout for the non-root
# lanes"). The non-root lanes run the built CLI as egtest-member/egtest-outsider, who
# cannot enter a checkout inside a directory only root may enter (/root, what `mktemp -d`
# makes). A read-only bind mount of the checkout under $STATE makes it reachable without
# changing any permission of the person's own directories, costs nothing (no copy of
# node_modules), and always shows the current build.
#
# Sourced by up.sh (share_checkout) and down.sh / fresh.sh (unshare_checkouts); run as
# `bash test/env/checkout.sh` it shares its own checkout into an environment that is
# already up (test/run.sh does, as another checkout may have brought it up).

dev_ino() { stat -L -c '%d:%i' -- "$1" 2>/dev/null || true; }

# Unmounts everything mounted on $1 (a crash may have left it mounted twice); a process
# still running from it (a serve a killed test left) gets a lazy unmount.
unmount_all() {
  while mountpoint -q -- "$1"; do
    umount -- "$1" 2>/dev/null || umount -l -- "$1"
  done
}

# Removes every checkout view: each mount point and its `.source` note. Idempotent; stale
# mounts of an earlier run (a crash, a clone since deleted) go too.
unshare_checkouts() {
  [[ -d "$CHECKOUTS_DIR" ]] || return 0
  local d
  for d in "$CHECKOUTS_DIR"/*/; do
    [[ -d "$d" ]] || continue
    d="${d%/}"
    unmount_all "$d"
    rmdir -- "$d" 2>/dev/null || warn "$d is not empty after unmounting; left in place"
    rm -f -- "$d.source"
  done
  rm -f -- "$CHECKOUTS_DIR"/*.source
  rmdir -- "$CHECKOUTS_DIR" 2>/dev/null || true
}

# Views whose checkout is gone or is no longer what they show (a clone deleted and made
# again at the same path) are unmounted: nothing outlives the checkout it was made for.
prune_checkouts() {
  [[ -d "$CHECKOUTS_DIR" ]] || return 0
  local d src
  for d in "$CHECKOUTS_DIR"/*/; do
    [[ -d "$d" ]] || continue
    d="${d%/}"
    src="$(cat -- "$d.source" 2>/dev/null || true)"
    if [[ -n "$src" ]] && mountpoint -q -- "$d" && [[ "$(dev_ino "$src")" == "$(dev_ino "$d")" ]]; then continue; fi
    log "removing stale checkout view $d${src:+ (of $src)}"
    unmount_all "$d"
    rmdir -- "$d" 2>/dev/null || true
    rm -f -- "$d.source"
  done
}

# Bind-mounts checkout $1, read-only, at $CHECKOUTS_DIR/<12 hex of its path's sha256>; the
# tests find it by device and inode (test/support/user-checkout.ts). Idempotent.
share_checkout() {
  local root view
  root="$(realpath -- "$1")"
  view="$CHECKOUTS_DIR/$(printf '%s' "$root" | sha256sum | cut -c1-12)"
  prune_checkouts
  mkdir -p -- "$CHECKOUTS_DIR"
  chmod 755 -- "$CHECKOUTS_DIR"
  if mountpoint -q -- "$view" && [[ "$(dev_ino "$view")" == "$(dev_ino "$root")" ]] &&
    findmnt -n -o OPTIONS --mountpoint "$view" | grep -qE '(^|,)ro(,|$)'; then
    return 0
  fi
  unmount_all "$view"
  mkdir -p -- "$view"
  mount --bind -- "$root" "$view"
  # Read-only: a test user can never write into the person's checkout through it.
  mount -o remount,bind,ro -- "$view" || { umount -- "$view"; die "cannot make the view of $root at $view read-only"; }
  printf '%s\n' "$root" >"$view.source"
  log "checkout $root shared read-only with the test users at $view"
}

# Whether $1 can read the entry point through the view (a checkout made with umask 077,
# say, stays closed to them: the bind mount shows its own permissions).
check_checkout_readable() {
  local root view user="$1"
  root="$(realpath -- "$2")"
  view="$CHECKOUTS_DIR/$(printf '%s' "$root" | sha256sum | cut -c1-12)"
  setpriv --reuid="$user" --regid="$user" --init-groups -- test -r "$view/bin/egress-desk.js" -a -r "$view/package.json" ||
    warn "$user cannot read $view/bin/egress-desk.js: the checkout itself (not only its parents) must be readable by others (chmod -R o+rX $root), or the non-root lanes fail"
}

# Run as a script: share this checkout into the environment that is up.
if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
  set -euo pipefail
  HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
  # shellcheck source=lib.sh
  source "$HERE/lib.sh"
  ((EUID == 0)) || die "test/env/checkout.sh must run as root"
  [[ -d "$STATE" ]] || die "$STATE is missing: run test/env/up.sh"
  exec 9>>"$STATE/.lock"
  flock -w 600 9 || die "another up.sh/down.sh holds $STATE/.lock"
  share_checkout "$HERE/../.."
  check_checkout_readable "$MEMBER_USER" "$HERE/../.."
fi
