#!/bin/sh
# Runs the Python SDK's tests with Debian's Python 3.11 (python3-cryptography, python3-cbor2, python3-pytest).
# Exits non-zero on any failure, and also when pytest collects no test (exit code 5), so a broken discovery cannot
# pass. When node is available, the differential check of decide also runs on 4,000 fresh cases from core.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
python=${AAR_PYTHON:-/usr/bin/python3}
if command -v node >/dev/null 2>&1; then
  mkdir -p "$root/.tmp"
  (cd "$root" && node --import tsx vectors/sdk/generate-differential.ts 4000 .tmp/differential-large.json >/dev/null) || {
    echo "run-tests.sh: could not generate the differential cases" >&2
    exit 1
  }
fi
cd "$here" && "$python" -m pytest -q "$@"
status=$?
if [ "$status" -eq 5 ]; then
  echo "run-tests.sh: pytest collected no tests" >&2
  exit 1
fi
exit "$status"
