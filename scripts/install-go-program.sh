#!/usr/bin/env bash
# Usage: install-go-program.sh NAME VERSION PACKAGE WAIT
# Installs the Go program NAME, built from PACKAGE at VERSION with
# `go install`, if missing. Idempotent: does nothing when NAME is on PATH
# or in $GOBIN / $(go env GOPATH)/bin. WAIT says how long the first
# install takes ("a while"). The test servers' install scripts run it.
set -euo pipefail
name=$1 version=$2 package=$3 wait=$4
go=${GO:-go}
command -v "$name" >/dev/null 2>&1 && exit 0
gobin=$("$go" env GOBIN)
[ -n "$gobin" ] || gobin="$("$go" env GOPATH | cut -d: -f1)/bin"
[ -x "$gobin/$name" ] && exit 0
echo "installing $name $version into $gobin (builds from source; takes $wait)"
flags=${GOFLAGS:-}
case " $flags " in *" -buildvcs="*) ;; *) flags="${flags:+$flags }-buildvcs=false" ;; esac
GOFLAGS="$flags" "$go" install "$package@$version"
