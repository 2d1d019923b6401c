# Sourced by scripts/*: make .venv (Python 3.11+) with Glassbox and its test tools installed,
# at the versions constraints.txt pins.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -c 'import sys; sys.exit(sys.version_info < (3, 11))' \
    || { echo "Glassbox needs Python 3.11 or newer ($PY is $("$PY" --version 2>&1))." >&2; exit 2; }
  "$PY" -m venv .venv
fi
if [ ! -f .venv/.installed ] || [ pyproject.toml -nt .venv/.installed ] \
  || [ constraints.txt -nt .venv/.installed ]; then
  .venv/bin/python -m pip install --quiet --upgrade pip
  .venv/bin/python -m pip install --quiet -c constraints.txt -e '.[test]'
  touch .venv/.installed
fi
