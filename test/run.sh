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
if env_is_up; then
  step "test environment: already up ($state)"
else
  step "test environment: starting"
  if [ "$(id -u)" != 0 ]; then
    echo "The libvirt lane needs libvirtd and sshd started by test/env/up.sh, which must run as root." >&2
    echo "Run 'sudo bash test/env/up.sh' once, then 'npm test' again (or 'npm run test:unit' for the unit lane alone)." >&2
    exit 1
  fi
  bash test/env/up.sh
  trap 'bash test/env/down.sh || true' EXIT
fi

step "tests"
mkdir -p test-results
status=0
npx vitest run --reporter=default --reporter=json --outputFile.json=test-results/vitest.json || status=$?
node scripts/test-summary.mjs test-results/vitest.json || status=1
exit "$status"
