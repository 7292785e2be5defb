#!/usr/bin/env bash
# Contract fuzzing (schemathesis from PyPI, pinned) of the running server from openapi.yaml:
# no 5xx, every response matches the schema. Installs schemathesis into .local/fuzz-venv on
# first use, then runs scripts/fuzz.ts (own OpenSearch node, redis-server, API, fresh key)
# under a hard time limit. FUZZ_TIMEOUT (seconds, 420), FUZZ_MAX_EXAMPLES (25), FUZZ_SEED.
# `--install-only`: install schemathesis and stop (.ci/run does it while other stages run).
set -euo pipefail
cd "$(dirname "$0")/.."

venv=.local/fuzz-venv
if [ ! -x "$venv/bin/st" ]; then
  echo "fuzz: installing schemathesis into $venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check 'schemathesis==4.32.5'
fi
[ "${1:-}" != --install-only ] || exit 0
export SCHEMATHESIS="$PWD/$venv/bin/st"
# SIGTERM first (the runner stops what it started), SIGKILL 30 s later
exec timeout --kill-after=30 "${FUZZ_TIMEOUT:-420}" node --import tsx scripts/fuzz.ts
