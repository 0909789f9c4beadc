#!/usr/bin/env bash
# Build (or reuse) the Debian 12 cloud-init guest image for the test "guest lane".
#
#   bash test/env/guest-image.sh [--bare] [--rebuild]
#
# Prints the path of a qcow2 image as the LAST line of stdout; progress goes to stderr.
# The image is built from Debian packages only (mmdebstrap, minbase) from the Debian
# mirror apt already uses on this machine, and cached outside the repo by a hash of this
# recipe (this file's content + mirror + suite + package list):
#
#   ${EGRESS_GUEST_CACHE:-/var/cache/egress-desk-test/images}/debian-12-egress-<hash12>.qcow2
#   ... plus <image>.sha256 (sha256sum format). A cache hit is checked and returned in < 1 s.
#
# What is in the image: systemd, Debian's cloud kernel, cloud-init (datasources NoCloud,
# None), tinyproxy and dante-server (package defaults; the real config comes from cloud-init
# user-data; the packages per proxy kind are PROXY_SOFTWARE in
# electron/services/provider/kvm/guest/proxy-software.ts, and a unit test keeps the lists equal),
# qemu-guest-agent (started by udev/systemd when its virtio-serial port appears), ifupdown +
# dhclient (cloud-init renders DHCP on the NIC; a fallback gives DHCP to any en*/eth* NIC that
# cloud-init did not configure), dbus (so systemd-logind handles the ACPI power button),
# growpart, a serial getty on ttyS0, an empty machine-id, no SSH host keys.
# Boot it with a NoCloud seed on virtio-scsi (the cloud kernel has no AHCI): see README.md.
#
# --bare: the same image WITHOUT tinyproxy, dante-server and qemu-guest-agent (and without the test
# image's early-start drop-in for the agent), as distributions publish cloud images, so
# that a launch must install them at first boot. Beside it, a flat apt repository holding
# exactly the .debs the guest's apt fetches for those (recommends included, as the
# guest installs them), resolved against the image's own package set when it is built:
#
#   .../debian-12-egress-bare-<hash12>.qcow2        (+ .sha256)
#   .../debian-12-egress-bare-<hash12>.qcow2.repo/  Packages, Packages.gz, *.deb
#
# Serve the .repo directory over HTTP and give the guest `deb [trusted=yes] URL ./`.
#
# Environment:
#   EGRESS_GUEST_CACHE    cache directory (default /var/cache/egress-desk-test/images)
#   EGRESS_GUEST_MIRROR   Debian mirror URL (default: the bookworm/main entry of apt's sources)
#   EGRESS_GUEST_TMPDIR   where the raw disk is assembled (default /dev/shm when it has
#                         >= 3 GiB free, else the cache directory)
#   EGRESS_GUEST_REBUILD  1 = ignore a cached image (same as --rebuild)
set -euo pipefail
umask 022
export LC_ALL=C

SELF="$(realpath -- "${BASH_SOURCE[0]}")"
SUITE=bookworm
KEEP=2                     # cached images kept (newest by mtime; a cache hit refreshes it)
DISK_SIZE=$((2 * 1024 * 1024 * 1024))
PART_START=2048            # sectors (1 MiB)
PACKAGES=(
  systemd-sysv linux-image-cloud-amd64 cloud-init tinyproxy dante-server qemu-guest-agent
  ifupdown isc-dhcp-client netbase iproute2 udev kmod extlinux locales
  dbus cloud-guest-utils
)
# What --bare leaves out, for the guest to install at first boot from the flat repository.
FIRST_BOOT_PACKAGES=(tinyproxy dante-server qemu-guest-agent)
HOST_PACKAGES=(mmdebstrap e2fsprogs fdisk extlinux syslinux-common qemu-utils util-linux dpkg-dev)

msg() { printf 'guest-image: %s\n' "$*" >&2; }
die() { printf 'guest-image: ERROR: %s\n' "$*" >&2; exit 1; }

REBUILD="${EGRESS_GUEST_REBUILD:-0}"
BARE=0
for arg in "$@"; do
  case "$arg" in
    --rebuild) REBUILD=1 ;;
    --bare) BARE=1 ;;
    -h | --help) sed -n '2,/^set -euo/p' "$SELF" | sed '$d; s/^# \{0,1\}//' >&2; exit 0 ;;
    *) die "unknown argument: $arg (try --help)" ;;
  esac
done

((EUID == 0)) || die "must run as root (loop devices, mounts, mmdebstrap)"

if ((BARE)); then
  kept=()
  for p in "${PACKAGES[@]}"; do
    [[ " ${FIRST_BOOT_PACKAGES[*]} " == *" $p "* ]] || kept+=("$p")
  done
  PACKAGES=("${kept[@]}")
  VARIANT=bare
  PREFIX=debian-12-egress-bare-
else
  VARIANT=full
  PREFIX=debian-12-egress-
fi

# ---------------------------------------------------------------------------
# Mirror: the bookworm "main" entry of apt's own sources (one-line and deb822 formats).
# ---------------------------------------------------------------------------
find_mirror() {
  local f
  shopt -s nullglob
  local files=(/etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources)
  shopt -u nullglob
  for f in "${files[@]}"; do
    [[ -r "$f" ]] || continue
    if [[ "$f" == *.sources ]]; then
      # deb822: paragraphs separated by blank lines
      awk -v suite="$SUITE" '
        function flush() {
          if (types ~ /(^| )deb( |$)/ && (" " suites " ") ~ (" " suite " ") &&
              (" " comps " ") ~ / main / && enabled !~ /^(no|false|0)$/ && uris != "") {
            split(uris, u, " "); print u[1]; found = 1; exit
          }
          types = suites = comps = uris = enabled = ""
        }
        /^[ \t]*#/ { next }
        /^[ \t]*$/ { flush(); next }
        {
          key = tolower($1); sub(/:$/, "", key); val = $0; sub(/^[^:]*:[ \t]*/, "", val)
          if (key == "types") types = val; else if (key == "uris") uris = val
          else if (key == "suites") suites = val; else if (key == "components") comps = val
          else if (key == "enabled") enabled = tolower(val)
        }
        END { if (!found) flush() }' "$f"
    else
      # one-line: deb [opts] URI suite comp...
      awk -v suite="$SUITE" '
        $1 == "deb" {
          i = 2
          if ($i ~ /^\[/) { while (i <= NF && $i !~ /\]$/) i++; i++ }
          uri = $i; s = $(i + 1); main = 0
          for (j = i + 2; j <= NF; j++) if ($j == "main") main = 1
          if (s == suite && main) { print uri; exit }
        }' "$f"
    fi
  done | head -n1
}

MIRROR="${EGRESS_GUEST_MIRROR:-$(find_mirror)}"
MIRROR="${MIRROR%/}"
[[ -n "$MIRROR" ]] || die "no '$SUITE main' entry in apt's sources (/etc/apt/sources.list[.d]); set EGRESS_GUEST_MIRROR"

# ---------------------------------------------------------------------------
# Cache key and fast path
# ---------------------------------------------------------------------------
HASH="$({
  cat "$SELF"
  printf '\n--\nmirror=%s\nsuite=%s\npackages=%s\nvariant=%s\n' "$MIRROR" "$SUITE" "${PACKAGES[*]}" "$VARIANT"
} | sha256sum | cut -c1-12)"
CACHE="$(realpath -m -- "${EGRESS_GUEST_CACHE:-/var/cache/egress-desk-test/images}")"
NAME="$PREFIX$HASH.qcow2"
IMG="$CACHE/$NAME"

cache_ok() {
  [[ -f "$IMG" && -f "$IMG.sha256" ]] || return 1
  if ((BARE)); then [[ -s "$IMG.repo/Packages" && -s "$IMG.repo/Packages.gz" ]] || return 1; fi
  local want got
  want="$(awk 'NR == 1 {print $1}' "$IMG.sha256")"
  # openssl's SHA-256 is ~3x faster than coreutils' here (SHA-NI): keeps a cache hit < 1 s
  if command -v openssl >/dev/null; then
    got="$(openssl dgst -sha256 -r "$IMG" | awk '{print $1}')"
  else
    got="$(sha256sum <"$IMG" | awk '{print $1}')"
  fi
  [[ -n "$want" && "$want" == "$got" ]]
}

if ((!REBUILD)) && cache_ok; then
  touch -c -- "$IMG" "$IMG.sha256" "$IMG.repo" 2>/dev/null || true
  msg "cached: $IMG"
  echo "$IMG"
  exit 0
fi

# ---------------------------------------------------------------------------
# Slow path: from here on stdout carries only the final path.
# ---------------------------------------------------------------------------
exec 3>&1 1>&2
T0=$SECONDS
mkdir -p -- "$CACHE"
exec 9>"$CACHE/.lock"
flock -w 1200 9 || die "another guest-image.sh holds $CACHE/.lock"
if ((!REBUILD)) && cache_ok; then # built by a concurrent run while we waited
  msg "cached (built concurrently): $IMG"
  echo "$IMG" >&3
  exit 0
fi

export DEBIAN_FRONTEND=noninteractive
missing=()
for p in "${HOST_PACKAGES[@]}"; do
  [[ "$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)" == installed ]] || missing+=("$p")
done
if ((${#missing[@]})); then
  APT_OPTS=(-o DPkg::Lock::Timeout=600 -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold)
  msg "installing host packages: ${missing[*]}"
  apt-get "${APT_OPTS[@]}" -qq update >&2 || msg "apt-get update reported errors; trying the install anyway"
  apt-get "${APT_OPTS[@]}" -y -q --no-install-recommends install "${missing[@]}" >&2 ||
    die "apt-get install ${missing[*]} failed"
fi
MBR_BIN=/usr/lib/syslinux/mbr/mbr.bin
[[ -s "$MBR_BIN" ]] || MBR_BIN=/usr/lib/EXTLINUX/mbr.bin
[[ -s "$MBR_BIN" ]] || die "syslinux mbr.bin not found"

# Where the raw disk is assembled: tmpfs (cheap fsyncs) when it has room.
pick_tmp() {
  if [[ -n "${EGRESS_GUEST_TMPDIR:-}" ]]; then mkdir -p -- "$EGRESS_GUEST_TMPDIR"; realpath -- "$EGRESS_GUEST_TMPDIR"; return; fi
  local avail
  avail="$(df -B1 --output=avail /dev/shm 2>/dev/null | tail -n1 | tr -d ' ' || true)"
  if [[ -d /dev/shm && -w /dev/shm && "$avail" =~ ^[0-9]+$ ]] && ((avail >= 3 * 1024 * 1024 * 1024)); then
    echo /dev/shm
  else
    echo "$CACHE"
  fi
}
TMPBASE="$(pick_tmp)"

# True if anything is mounted at or below $1.
mounted_below() { awk -v d="$1" '$5 == d || index($5, d "/") == 1 {f = 1} END {exit !f}' /proc/self/mountinfo; }

# Tear down a build directory: mounts below it, loop devices on its raw disk, then the files.
teardown() {
  local dir="$1" loop
  [[ -n "$dir" && -d "$dir" ]] || return 0
  if mounted_below "$dir"; then
    umount -R -- "$dir/mnt" 2>/dev/null || true
    mounted_below "$dir" && { umount -R -l -- "$dir/mnt" 2>/dev/null || true; }
  fi
  for loop in $(losetup -n -O NAME -j "$dir/disk.raw" 2>/dev/null || true); do
    losetup -d "$loop" 2>/dev/null || true
  done
  if mounted_below "$dir"; then
    msg "WARNING: something is still mounted below $dir; leaving it in place"
    return 0
  fi
  rm -rf --one-file-system -- "$dir"
}

# Leftovers of runs that were killed. Build directories carry their owner's pid
# (.build.PID.RANDOM): a run with another cache dir may share $TMPBASE, so skip live owners.
shopt -s nullglob
for d in "$CACHE"/.build.* "$TMPBASE"/egress-guest-build.*; do
  owner="${d##*/}"
  owner="${owner#.build.}"
  owner="${owner#egress-guest-build.}"
  owner="${owner%%.*}"
  if [[ "$owner" =~ ^[0-9]+$ ]] && kill -0 "$owner" 2>/dev/null; then continue; fi
  msg "removing a stale build directory: $d"
  teardown "$d"
done
shopt -u nullglob

WORK="$(mktemp -d "$CACHE/.build.$$.XXXXXX")" # final qcow2 (same fs as the cache)
if [[ "$TMPBASE" == "$CACHE" ]]; then SCRATCH="$WORK"; else SCRATCH="$(mktemp -d "$TMPBASE/egress-guest-build.$$.XXXXXX")"; fi
RAW="$SCRATCH/disk.raw"
MNT="$SCRATCH/mnt"
LOOP=""
LOG="$CACHE/build.log"
((BARE)) && LOG="$CACHE/build-bare.log"

CHILD=""
# Run a long step in its own process group, in the background, and wait for it: a signal
# then reaches our trap at once (bash runs traps only after a foreground child exits), and
# cleanup can stop the whole group (mmdebstrap itself defers signals while apt/dpkg run).
run_bg() {
  setsid "$@" &
  CHILD=$!
  local rc=0
  wait "$CHILD" || rc=$?
  CHILD=""
  return "$rc"
}

cleanup() {
  local rc=$? i
  set +e
  if [[ -n "$CHILD" ]] && kill -0 -- "-$CHILD" 2>/dev/null; then
    msg "stopping $(ps -o comm= -p "$CHILD" 2>/dev/null || echo child) (process group $CHILD)"
    kill -TERM -- "-$CHILD" 2>/dev/null
    for ((i = 0; i < 150; i++)); do kill -0 -- "-$CHILD" 2>/dev/null || break; sleep 0.1; done
    kill -KILL -- "-$CHILD" 2>/dev/null
    for ((i = 0; i < 50; i++)); do kill -0 -- "-$CHILD" 2>/dev/null || break; sleep 0.1; done
  fi
  if [[ -n "$LOOP" ]]; then
    mounted_below "$MNT" && umount -R -- "$MNT" 2>/dev/null
    mounted_below "$MNT" && umount -R -l -- "$MNT" 2>/dev/null
    losetup -d "$LOOP" 2>/dev/null
  fi
  [[ "$SCRATCH" != "$WORK" ]] && teardown "$SCRATCH"
  teardown "$WORK"
  if ((rc != 0)); then msg "build FAILED (exit $rc); log: $LOG"; fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP

msg "building $NAME (mirror $MIRROR, suite $SUITE, scratch $SCRATCH); log: $LOG"
: >"$LOG"

# --- disk: one bootable DOS partition from 1 MiB to the end ---------------------------
truncate -s "$DISK_SIZE" "$RAW"
printf 'label: dos\nunit: sectors\nstart=%d, type=83, bootable\n' "$PART_START" | sfdisk -q "$RAW" >>"$LOG" 2>&1
PART_SECTORS="$(sfdisk -d "$RAW" | sed -n 's/.*start= *'"$PART_START"', *size= *\([0-9]*\).*/\1/p')"
[[ "$PART_SECTORS" =~ ^[0-9]+$ ]] || die "cannot read the partition size back from sfdisk"
# no partition device nodes here (no udev): a loop device on the partition's byte range
LOOP="$(losetup -f --show -o $((PART_START * 512)) --sizelimit $((PART_SECTORS * 512)) "$RAW")"
mkfs.ext4 -q -F -L rootfs -E lazy_itable_init=0,lazy_journal_init=0 "$LOOP" >>"$LOG" 2>&1
mkdir -p "$MNT"
chmod 755 "$SCRATCH" "$MNT" # lets apt download as _apt (sandboxed)
mount -t ext4 "$LOOP" "$MNT"

# --- root filesystem ---------------------------------------------------------------
APT_PROXY_OPTS=()
while IFS= read -r line; do # forward apt proxy settings of the host (mmdebstrap ignores apt.conf.d)
  [[ -n "$line" ]] && APT_PROXY_OPTS+=(--aptopt="$line")
done < <(apt-config dump 2>/dev/null | awk '$1 ~ /^Acquire::(http|https|ftp)::Proxy(::|$)/ {print}' || true)

HOOKS=()
if ((BARE)); then
  # The flat repository: what the guest's own apt would fetch for the first-boot packages,
  # resolved against this very package set (so nothing the image has is duplicated, and
  # nothing it lacks is missing), with the image's apt configuration (recommends included).
  REPO_BUILD="$WORK/repo"
  mkdir -p "$REPO_BUILD"
  HOOKS+=(
    --customize-hook='chroot "$1" apt-get clean'
    --customize-hook="chroot \"\$1\" apt-get -y -q --download-only install ${FIRST_BOOT_PACKAGES[*]}"
    --customize-hook="mv \"\$1\"/var/cache/apt/archives/*.deb '$REPO_BUILD/'"
  )
fi

msg "mmdebstrap ($SUITE, $VARIANT, minbase + ${#PACKAGES[@]} packages)..."
t=$SECONDS
include="$(IFS=,; echo "${PACKAGES[*]}")"
if ! run_bg mmdebstrap --mode=root --variant=minbase --format=directory \
  --include="$include" \
  --dpkgopt='path-exclude=/usr/share/man/*' \
  --dpkgopt='path-exclude=/usr/share/info/*' \
  --dpkgopt='path-exclude=/usr/share/doc/*' \
  --dpkgopt='path-include=/usr/share/doc/*/copyright' \
  --dpkgopt='path-exclude=/usr/share/locale/*' \
  --dpkgopt='path-include=/usr/share/locale/locale.alias' \
  "${APT_PROXY_OPTS[@]}" "${HOOKS[@]}" \
  "$SUITE" "$MNT" "$MIRROR" >>"$LOG" 2>&1; then
  tail -n 25 "$LOG" >&2
  die "mmdebstrap failed"
fi
msg "mmdebstrap done in $((SECONDS - t)) s"

if ((BARE)); then
  for p in "${FIRST_BOOT_PACKAGES[@]}"; do
    [[ "$(chroot "$MNT" dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)" != installed ]] ||
      die "$p is installed in the bare image"
    compgen -G "$REPO_BUILD/${p}_*.deb" >/dev/null || die "the flat repository has no $p .deb"
  done
  (cd "$REPO_BUILD" && dpkg-scanpackages -m . /dev/null >Packages 2>>"$LOG" && gzip -9nk Packages)
  msg "flat repository: $(ls -1 "$REPO_BUILD"/*.deb | wc -l) packages, $(du -sh "$REPO_BUILD" | cut -f1)"
fi

# --- configuration ---------------------------------------------------------------
R="$MNT"
KVER="$(basename "$(ls -1 "$R"/boot/vmlinuz-* | sort -V | tail -n1)")"
KVER="${KVER#vmlinuz-}"
[[ -n "$KVER" && -f "$R/boot/initrd.img-$KVER" ]] || die "kernel or initramfs missing in /boot"

echo localhost >"$R/etc/hostname"
cat >"$R/etc/hosts" <<'EOF'
127.0.0.1	localhost
::1		localhost ip6-localhost ip6-loopback
ff02::1		ip6-allnodes
ff02::2		ip6-allrouters
EOF
# mmdebstrap copied the build host's resolv.conf; dhclient writes the guest's own
rm -f "$R/etc/resolv.conf"

cat >"$R/etc/fstab" <<'EOF'
# <file system>	<mount point>	<type>	<options>		<dump>	<pass>
LABEL=rootfs	/		ext4	errors=remount-ro	0	1
EOF

# C.UTF-8 needs no locale-gen: cloud-init's locale module then has nothing to generate
echo 'LANG=C.UTF-8' >"$R/etc/default/locale"

mkdir -p "$R/etc/cloud/cloud.cfg.d"
echo 'datasource_list: [ NoCloud, None ]' >"$R/etc/cloud/cloud.cfg.d/90_dpkg.cfg"

# Network: cloud-init renders /etc/network/interfaces.d/50-cloud-init (from the seed's
# network-config, else DHCP on the first NIC). The fallback below gives DHCP to any
# en*/eth* NIC that cloud-init left unconfigured (e.g. cloud-init disabled), via a mapping
# that hands NICs cloud-init did configure back to cloud-init's own stanza.
mkdir -p "$R/etc/network/interfaces.d" "$R/usr/local/sbin"
cat >"$R/etc/network/interfaces" <<'EOF'
# interfaces(5) file used by ifup(8) and ifdown(8)
# Include files from /etc/network/interfaces.d:
source /etc/network/interfaces.d/*
EOF
cat >"$R/etc/network/interfaces.d/90-egress-fallback" <<'EOF'
# egress-desk test image: DHCP on any en*/eth* NIC that has no stanza of its own
# (cloud-init normally writes 50-cloud-init; see /usr/local/sbin/egress-ifmap).
allow-hotplug /en* /eth*
mapping en* eth*
  script /usr/local/sbin/egress-ifmap
iface egress-dhcp inet dhcp
EOF
cat >"$R/usr/local/sbin/egress-ifmap" <<'EOF'
#!/bin/sh
# ifupdown mapping script: keep the NIC's own stanza if another file defines one,
# otherwise use the DHCP fallback "egress-dhcp".
iface="$1"
for f in /etc/network/interfaces /etc/network/interfaces.d/*; do
  [ "$f" = /etc/network/interfaces.d/90-egress-fallback ] && continue
  [ -f "$f" ] || continue
  if grep -Eq "^[[:space:]]*iface[[:space:]]+$iface[[:space:]]" "$f"; then
    echo "$iface"
    exit 0
  fi
done
echo egress-dhcp
EOF
chmod 755 "$R/usr/local/sbin/egress-ifmap"

# cloud-init modules with nothing to do in this image are dropped, so that a boot logs no
# warnings (cc_ssh cannot run ssh-keygen, cc_set_passwords warns that there is no ssh
# service) and grub-probe is not run. The lists are Debian's (cloud-init 22.4,
# /etc/cloud/cloud.cfg) minus those modules.
cat >"$R/etc/cloud/cloud.cfg.d/91_egress-image.cfg" <<'CFG'
# egress-desk test image: Debian's module lists minus the ones with nothing to do here
# (no SSH server, no grub, no snap/landscape/puppet/chef/...). NOTE: without set-passwords
# the user-data keys password/chpasswd/ssh_pwauth are ignored; without ssh, ssh_keys too.
cloud_init_modules:
 - migrator
 - seed_random
 - bootcmd
 - write-files
 - growpart
 - resizefs
 - disk_setup
 - mounts
 - set_hostname
 - update_hostname
 - update_etc_hosts
 - ca-certs
 - rsyslog
 - users-groups
cloud_config_modules:
 - keyboard
 - locale
 - apt-pipelining
 - apt-configure
 - ntp
 - timezone
 - runcmd
cloud_final_modules:
 - package-update-upgrade-install
 - write-files-deferred
 - scripts-vendor
 - scripts-per-once
 - scripts-per-boot
 - scripts-per-instance
 - scripts-user
 - install-hotplug
 - phone-home
 - final-message
 - power-state-change
CFG

# qemu-guest-agent: Debian starts it from udev (60-qemu-guest-agent.rules: SYSTEMD_WANTS on
# the org.qemu.guest_agent.0 port; the unit BindsTo the port's .device). With the unit's
# default dependencies it still waits for sysinit.target, and cloud-init.service (network
# stage, DHCP included) is ordered Before=sysinit.target: start it as soon as the port exists.
# The bare image stays as a distribution publishes it: neither the agent nor this drop-in.
if ((!BARE)); then
  mkdir -p "$R/etc/systemd/system/qemu-guest-agent.service.d"
  cat >"$R/etc/systemd/system/qemu-guest-agent.service.d/10-egress-early.conf" <<'UNIT'
[Unit]
DefaultDependencies=no
After=systemd-journald.socket local-fs.target
Conflicts=shutdown.target
Before=shutdown.target
UNIT

  # Debian's tinyproxy ships /var/log/tinyproxy as root:root 0755, so the daemon (running as
  # user tinyproxy) cannot create the LogFile of its own default config and falls back to
  # syslog. Only the ownership is fixed; the configuration stays the package default.
  chroot "$R" /bin/chown tinyproxy:tinyproxy /var/log/tinyproxy
fi

# the guest runs under TCG: do not load kvm modules for the emulated CPU's svm/vmx flag
mkdir -p "$R/etc/modprobe.d"
printf 'blacklist kvm_amd\nblacklist kvm_intel\nblacklist kvm\n' >"$R/etc/modprobe.d/egress-no-kvm.conf"

# serial getty (the generator would add it for console=ttyS0; be explicit)
mkdir -p "$R/etc/systemd/system/getty.target.wants"
ln -sf /lib/systemd/system/serial-getty@.service "$R/etc/systemd/system/getty.target.wants/serial-getty@ttyS0.service"
# no unattended apt runs in test guests (CPU under TCG, and there is no network for them)
rm -f "$R/etc/systemd/system/timers.target.wants/apt-daily.timer" \
  "$R/etc/systemd/system/timers.target.wants/apt-daily-upgrade.timer"
# no LVM, so nothing for e2scrub to do (its reaper took ~15 s of the single vCPU at boot)
rm -f "$R/etc/systemd/system/timers.target.wants/e2scrub_all.timer" \
  "$R/etc/systemd/system/multi-user.target.wants/e2scrub_reap.service"

# checks of what the packages must provide
if ((!BARE)); then
  grep -qs 'org.qemu.guest_agent.0' "$R"/lib/udev/rules.d/*qemu-guest-agent*.rules ||
    die "qemu-guest-agent udev rule (SYSTEMD_WANTS on the virtio port) not found"
  [[ -L "$R/etc/systemd/system/multi-user.target.wants/tinyproxy.service" ]] ||
    die "tinyproxy.service is not enabled in the image"
fi
[[ -L "$R/etc/systemd/system/cloud-init.target.wants/cloud-init.service" ]] ||
  die "cloud-init services are not enabled in the image"

# boot loader
mkdir -p "$R/boot/extlinux"
cat >"$R/boot/extlinux/extlinux.conf" <<EOF
SERIAL 0 115200
DEFAULT debian
PROMPT 0
TIMEOUT 1
LABEL debian
  LINUX /boot/vmlinuz-$KVER
  INITRD /boot/initrd.img-$KVER
  APPEND root=LABEL=rootfs ro console=ttyS0,115200n8
EOF
extlinux --install "$R/boot/extlinux" >>"$LOG" 2>&1

# --- cleanup inside the image ---------------------------------------------------------
rm -rf "$R"/var/lib/apt/lists/* "$R"/var/cache/apt/*.bin "$R"/var/cache/apt/archives/*.deb \
  "$R"/var/cache/debconf/*-old "$R"/var/lib/dpkg/*-old \
  "$R"/var/log/apt/* "$R"/var/log/*.log "$R"/var/log/journal/* \
  "$R"/etc/ssh/ssh_host_* "$R"/var/lib/cloud "$R"/var/lib/systemd/random-seed \
  "$R"/root/.bash_history "$R"/tmp/* "$R"/var/tmp/*
mkdir -p "$R/var/lib/apt/lists/partial"
: >"$R/etc/machine-id" # empty: a new id on every first boot
rm -f "$R/var/lib/dbus/machine-id"
ln -s /etc/machine-id "$R/var/lib/dbus/machine-id" 2>/dev/null || true

msg "root filesystem: $(du -sh -x "$R" 2>/dev/null | cut -f1)"
fstrim "$R" >>"$LOG" 2>&1 || msg "fstrim failed (the image will just be a little larger)"
sync -f "$R/etc/fstab"
umount "$MNT"
# e2fsck opens the device exclusively. A process started by `ip netns exec` while the
# filesystem was mounted has its own copy of the mount table (`ip netns exec` makes a mount
# namespace, and the root mount does not propagate on these machines), and keeps the device
# busy until it ends; seen once as "e2fsck: /dev/loop0 is in use". Such processes are short (a
# probe, a curl): wait for them, and name them if they do not end.
rc=0
busy=0
for try in $(seq 1 30); do
  rc=0
  busy=0
  e2fsck -f -p "$LOOP" >>"$LOG" 2>&1 || rc=$?
  if ((rc == 8)) && tail -n 3 "$LOG" | grep -q 'in use\|busy'; then busy=1; else break; fi
  if ((try == 1)); then msg "e2fsck: $LOOP is still in use (another mount namespace holds it); waiting up to 60 s"; fi
  sleep 2
done
if ((busy)); then
  holders="$(grep -l "$LOOP" /proc/[0-9]*/mountinfo 2>/dev/null | cut -d/ -f3 | while read -r pid; do printf '%s(%s) ' "$pid" "$(tr '\0' ' ' <"/proc/$pid/cmdline" | cut -c1-60)"; done)"
  die "e2fsck could not open $LOOP: still in use after 60 s${holders:+; mounted in the namespace of: $holders}"
fi
((rc < 4)) || die "e2fsck found errors in the new filesystem (exit $rc)"
losetup -d "$LOOP"
LOOP=""
dd if="$MBR_BIN" of="$RAW" bs=440 count=1 conv=notrunc status=none

# --- qcow2 into the cache ---------------------------------------------------------------
msg "qemu-img convert -c -O qcow2 ..."
t=$SECONDS
run_bg qemu-img convert -c -O qcow2 "$RAW" "$WORK/$NAME"
msg "qcow2 done in $((SECONDS - t)) s"
rm -f "$RAW"
qemu-img check -q "$WORK/$NAME"
(cd "$WORK" && sha256sum "$NAME" >"$NAME.sha256")
chmod 644 "$WORK/$NAME" "$WORK/$NAME.sha256"
if ((BARE)); then # the repository first: the image's .sha256, moved last, marks the pair complete
  chmod -R a+rX "$REPO_BUILD"
  rm -rf -- "$IMG.repo"
  mv -f "$REPO_BUILD" "$IMG.repo"
fi
mv -f "$WORK/$NAME" "$IMG"
mv -f "$WORK/$NAME.sha256" "$IMG.sha256"

# keep the $KEEP newest images of this variant
n=0
while IFS= read -r old; do
  [[ "$(basename "$old")" =~ ^${PREFIX}[0-9a-f]{12}\.qcow2$ ]] || continue
  n=$((n + 1))
  ((n > KEEP)) || continue
  [[ "$old" == "$IMG" ]] && continue
  msg "pruning old image $(basename "$old")"
  rm -rf -- "$old" "$old.sha256" "$old.repo"
done < <(ls -1t -- "$CACHE"/debian-12-egress-*.qcow2 2>/dev/null || true)

msg "built $IMG ($(du -h "$IMG" | cut -f1)) in $((SECONDS - T0)) s"
echo "$IMG" >&3
