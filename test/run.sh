#!/usr/bin/env bash
# `npm test`: type checking, lint, build, then every test lane (docs/testing.md).
# The libvirt lane needs libvirtd and sshd: test/env/up.sh brings them up (as root) and,
# when this script started them, test/env/down.sh tears them down at the end.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n== %s\n' "$*"; }

step "typecheck"
npm run --silent typecheck
step "lint"
npm run --silent lint
step "build"
npm run --silent build

state="${EGRESS_TEST_STATE:-/var/tmp/egress-desk-test}"
env_is_up() {
  [ -f "$state/env.json" ] && command -v virsh >/dev/null 2>&1 &&
    timeout 10 virsh -c qemu:///system version >/dev/null 2>&1
}
# Under CI the environment is born fresh every run (test/env/fresh.sh decides the same way):
# one that is "already up" from before is never reused.
fresh=0
case "${EGRESS_TEST_FRESH:-}" in
  1) fresh=1 ;;
  0) ;;
  *) case "${CI:-}" in true | 1 | yes) fresh=1 ;; esac ;;
esac
export EGRESS_TEST_FRESH="$fresh"
if [ "$fresh" = 0 ] && env_is_up; then
  step "test environment: already up ($state)"
  # Another checkout may have brought it up: the non-root lanes need a view of this one.
  if [ "$(id -u)" = 0 ]; then bash test/env/checkout.sh; fi
else
  if [ "$fresh" = 1 ]; then step "test environment: starting from nothing (CI)"; else step "test environment: starting"; fi
  if [ "$(id -u)" != 0 ]; then
    echo "The libvirt lane needs libvirtd and sshd started by test/env/up.sh, which must run as root." >&2
    echo "Run 'sudo bash test/env/up.sh' once, then 'npm test' again (or 'npm run test:unit' for the unit lane alone)." >&2
    exit 1
  fi
  trap 'bash test/env/down.sh || true' EXIT
  bash test/env/up.sh
fi

step "tests"
mkdir -p test-results
rm -f test-results/*.json
status=0
lane() { # name [vitest args...]: one lane, its JSON report in test-results/<name>.json
  local name=$1
  shift
  npx vitest run --project "$name" --reporter=default --reporter=json --outputFile.json="test-results/$name.json" "$@"
}
# The unit lane needs no daemon and the libvirt lane mostly waits on libvirtd: they run at
# the same time, the unit lane with its output kept until it ends. It keeps vitest's one
# worker on 2 cores: on one it still ends well before the libvirt lane (about 5 against 7
# minutes), and on two it starved both lanes' timing-sensitive tests on a loaded machine
# (two CI runs each failed one unit test that waits on a real promise after a fake tick). Two processes, because inside one vitest run a project of
# files that run one at a time (libvirt) is scheduled after every group, not beside its own
# (docs/testing.md, "How long the suite takes"). The browser and guest lanes share
# libvirtd with the libvirt lane and check what the fleet holds: they come after it, one
# lane at a time.
step "tests: unit (in the background) and libvirt"
lane unit >test-results/unit.log 2>&1 &
unit_pid=$!
lane libvirt || status=$?
unit_status=0
wait "$unit_pid" || unit_status=$?
step "tests: unit (its output)"
cat test-results/unit.log
[ "$unit_status" = 0 ] || status=$unit_status
step "tests: browser"
lane browser || status=$?
step "tests: guest"
lane guest || status=$?
node scripts/test-summary.mjs test-results/unit.json test-results/libvirt.json test-results/browser.json test-results/guest.json || status=1
exit "$status"
