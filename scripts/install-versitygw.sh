#!/usr/bin/env bash
# Installs versitygw, the S3-compatible server the blob tests (package
# blob/s3test) run against, if missing. Idempotent: does nothing when
# versitygw is on PATH or in $GOBIN / $(go env GOPATH)/bin. Used by
# `make test`. The first install builds from source and takes a few minutes.
set -euo pipefail
exec "$(dirname "$0")/install-go-program.sh" versitygw v1.8.0 github.com/versity/versitygw/cmd/versitygw "a few minutes"
