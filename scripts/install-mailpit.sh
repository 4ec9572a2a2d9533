#!/usr/bin/env bash
# Installs Mailpit, the SMTP server with an HTTP API that the mail tests
# (package mail/mailpittest) run against, if missing. Idempotent: does
# nothing when mailpit is on PATH or in $GOBIN / $(go env GOPATH)/bin. Used
# by `make test`. The first install builds from source and takes a while.
set -euo pipefail
exec "$(dirname "$0")/install-go-program.sh" mailpit v1.33.1 github.com/axllent/mailpit "a while"
