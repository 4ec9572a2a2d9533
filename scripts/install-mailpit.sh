#!/usr/bin/env bash
# Installs Mailpit, the SMTP server with an HTTP API that the mail tests
# (package mail/mailpittest) run against, if missing. Idempotent: does
# nothing when mailpit is on PATH or in $GOBIN / $(go env GOPATH)/bin. Used
# by `make test`. The first install builds from source and takes a while.
set -euo pipefail
version=v1.33.1
go=${GO:-go}
command -v mailpit >/dev/null 2>&1 && exit 0
gobin=$("$go" env GOBIN)
[ -n "$gobin" ] || gobin="$("$go" env GOPATH | cut -d: -f1)/bin"
[ -x "$gobin/mailpit" ] && exit 0
echo "installing mailpit $version into $gobin (builds from source; takes a while)"
flags=${GOFLAGS:-}
case " $flags " in *" -buildvcs="*) ;; *) flags="${flags:+$flags }-buildvcs=false" ;; esac
GOFLAGS="$flags" "$go" install "github.com/axllent/mailpit@$version"
