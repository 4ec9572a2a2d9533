#!/usr/bin/env bash
# Installs versitygw, the S3-compatible server the blob tests (package
# blob/s3test) run against, if missing. Idempotent: does nothing when
# versitygw is on PATH or in $GOBIN / $(go env GOPATH)/bin. Used by
# `make test`. The first install builds from source and takes a few minutes.
set -euo pipefail
version=v1.8.0
go=${GO:-go}
command -v versitygw >/dev/null 2>&1 && exit 0
gobin=$("$go" env GOBIN)
[ -n "$gobin" ] || gobin="$("$go" env GOPATH | cut -d: -f1)/bin"
[ -x "$gobin/versitygw" ] && exit 0
echo "installing versitygw $version into $gobin (builds from source; takes a few minutes)"
flags=${GOFLAGS:-}
case " $flags " in *" -buildvcs="*) ;; *) flags="${flags:+$flags }-buildvcs=false" ;; esac
GOFLAGS="$flags" "$go" install "github.com/versity/versitygw/cmd/versitygw@$version"
