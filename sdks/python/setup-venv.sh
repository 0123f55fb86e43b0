#!/usr/bin/env bash
# Creates sdks/python/.venv with the Python SDK installed in editable mode and its test dependencies
# (pytest, mypy). The tests that need it (test/sdks/*.int.test.ts) run this through
# test/support/python-venv.ts, so `npm test` makes the virtualenv itself; running it by hand works too.
# Idempotent and quick once done: it installs again only when pyproject.toml changed since.
# Needs Python 3.11+ with the venv module (Debian: apt-get install python3-venv).
set -euo pipefail
cd "$(dirname "$0")"
if ! command -v python3 >/dev/null 2>&1; then
  echo "python3 is missing: install Python 3.11+ (Debian: apt-get install python3-venv)" >&2
  exit 3
fi
if ! python3 -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)'; then
  echo "Python 3.11+ is required, python3 is $(python3 --version 2>&1)" >&2
  exit 3
fi
if ! python3 -c 'import ensurepip, venv' >/dev/null 2>&1; then
  echo "python3 has no venv module: apt-get install python3-venv" >&2
  exit 3
fi
stamp=.venv/.installed-from
wanted=$(python3 -c 'import hashlib, sys; print(hashlib.sha256(open("pyproject.toml", "rb").read()).hexdigest())')
if [ -x .venv/bin/python ] && [ "$(cat "$stamp" 2>/dev/null)" = "$wanted" ]; then
  exit 0
fi
[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/python -m pip install -q --disable-pip-version-check --upgrade pip
# The SDK was distributed as `skein` before it became skein-chat; an old editable install would linger.
.venv/bin/python -m pip uninstall -q -y skein >/dev/null 2>&1 || true
.venv/bin/python -m pip install -q --disable-pip-version-check -e '.[test]'
echo "$wanted" >"$stamp"
echo "sdks/python/.venv is ready"
