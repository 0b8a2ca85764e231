#!/usr/bin/env sh
# Runs the Go SDK's checks: gofmt, go vet and go test ./... (unit tests over the vectors, and the integration test
# against a live `aar serve`, which needs node; without node it is skipped unless CI=true). Exits non-zero on any
# failure. Standard library only: no module is downloaded (GOPROXY=off), and the local toolchain is used.
set -eu
cd "$(dirname "$0")"
ROOT="$(cd ../.. && pwd)"
export GOTOOLCHAIN=local GOPROXY=off GOFLAGS=-buildvcs=false
export GOCACHE="${GOCACHE:-$ROOT/.tmp/go-cache}"
mkdir -p "$GOCACHE"
if ! command -v go >/dev/null 2>&1; then
  echo "go not found (apt-get install -y golang-go)" >&2
  exit 1
fi
unformatted="$(gofmt -l .)"
if [ -n "$unformatted" ]; then
  echo "gofmt: these files need formatting:" >&2
  echo "$unformatted" >&2
  exit 1
fi
go vet ./...
go test -count=1 "$@" ./...
