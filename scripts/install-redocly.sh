#!/usr/bin/env bash
# Installs Redocly's OpenAPI linter (@redocly/cli, from npm) into
# .tools/redocly, if missing, for TestOpenAPILint; and Node.js and npm
# (Debian's) first when they are missing. Idempotent. Used by
# `make test-deps`. The version is pinned: 2.x needs Node.js 20.19 or
# later; on an older Node.js (Debian 12's is 18) the last 1.x is used,
# which reads the same redocly.yaml.
set -euo pipefail
cd "$(dirname "$0")/.."
prefix=.tools/redocly
[ -x "$prefix/node_modules/.bin/redocly" ] && exit 0
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
	s=""; [ "$(id -u)" = 0 ] || s=sudo
	$s apt-get install -y -qq nodejs npm >/dev/null
fi
version=2.77.0
if ! node -e 'const [a,b]=process.versions.node.split(".").map(Number); process.exit(a>20||(a===20&&b>=19)?0:1)'; then
	version=1.34.21
fi
echo "installing @redocly/cli $version into $prefix"
npm install --prefix "$prefix" --no-audit --no-fund --loglevel=error "@redocly/cli@$version" >/dev/null
