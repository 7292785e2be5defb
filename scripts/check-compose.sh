#!/usr/bin/env bash
# Validates docker-compose.yml against the Compose Specification's JSON schema (no Docker
# engine needed): check-jsonschema from PyPI, which ships the schema, in .local/compose-venv.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=.local/compose-venv
if [ ! -x "$venv/bin/check-jsonschema" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check check-jsonschema==0.39.0
fi
"$venv/bin/check-jsonschema" --builtin-schema vendor.compose-spec docker-compose.yml
