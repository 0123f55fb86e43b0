#!/usr/bin/env bash
# Creates sdks/python/.venv with the Python SDK installed in editable mode and its test dependencies
# (pytest). test/sdks/sdks.int.test.ts runs the SDK's pytest suite with this virtualenv's Python.
# Needs Python 3.11+ with the venv module (Debian: apt-get install python3-venv).
set -euo pipefail
cd "$(dirname "$0")"
python3 -c 'import sys; assert sys.version_info >= (3, 11), "Python 3.11+ is required"'
[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e '.[test]'
echo "sdks/python/.venv is ready"
