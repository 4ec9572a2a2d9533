# docmill: `make run` serves on :8080 with the embedded defaults (SQLite and
# local files under ./data); `make test` runs every test.
# `make fuzz` runs each fuzz target for FUZZTIME (default 60s), one after
# another; `make test` runs only their seed corpora.

GO        ?= go
BIN       := bin/docmill
GOFLAGS   ?= -buildvcs=false
export GOFLAGS

# Build identity, stamped into the binary (docmill version, /healthz,
# docmill_build_info): the tag or commit it was built from, the revision
# and the time. Outside a git checkout they read "devel" and "unknown".
VERSION    ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo devel)
REVISION   ?= $(shell git rev-parse HEAD 2>/dev/null || echo unknown)
BUILD_TIME ?= $(shell date -u +%Y-%m-%dT%H:%M:%SZ)
LDFLAGS    := -X main.version=$(VERSION) -X main.revision=$(REVISION) -X main.buildTime=$(BUILD_TIME)

# Engines: Debian packages installed when missing (scripts/install-engines.sh):
# Ghostscript, qpdf, poppler and tesseract/OCRmyPDF. The tests also use
# qpdf and poppler to check outputs with programs other than the ones that
# made them.

.PHONY: run build test test-short bench bench-smoke lint fmt deps test-deps clean

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/docmill

run: deps build
	./$(BIN) serve

# generate rewrites the files written from the tool registry: the tool
# reference (docs/tools.md), the JavaScript SDK's param types
# (sdk/js/src/tools.ts) and the Go client's (client/tools_gen.go). Each
# goes through a temporary file, so a failed run leaves the old one; the
# docmill command builds with the client package, so a tools_gen.go that
# no longer compiles is to be deleted before regenerating it.
.PHONY: generate
generate:
	$(GO) run ./cmd/docmill docs tools > docs/tools.md.tmp && mv docs/tools.md.tmp docs/tools.md
	$(GO) run ./cmd/docmill docs js-types > sdk/js/src/tools.ts.tmp && mv sdk/js/src/tools.ts.tmp sdk/js/src/tools.ts
	$(GO) run ./cmd/docmill docs go-params > client/tools_gen.go.tmp && mv client/tools_gen.go.tmp client/tools_gen.go

# sdk-js builds the JavaScript SDK (sdk/js) and packs it with npm pack as
# sdk/js/docmill-sdk-VERSION.tgz, versioned as the server ($(VERSION),
# made npm's semver: a bare commit is 0.0.0-<commit>). Offline once its
# compiler is installed (npm ci, from package-lock.json; test-deps does it).
.PHONY: sdk sdk-js
sdk: sdk-js
sdk-js:
	@command -v npm >/dev/null || { echo "Node.js 20+ and npm are required (make test-deps installs them)"; exit 1; }
	@[ -x sdk/js/node_modules/.bin/tsc ] || (cd sdk/js && npm ci --prefer-offline --no-audit --no-fund)
	cd sdk/js && node scripts/pack.mjs "$(VERSION)"

# deps installs the engines that `make run` and `make test` need.
deps:
	@command -v $(GO) >/dev/null || { echo "Go is required: https://go.dev/dl/"; exit 1; }
	@./scripts/install-engines.sh

test-deps: deps
	@./scripts/install-versitygw.sh
	@# Mailpit is the SMTP server the mail tests read through its HTTP API.
	@./scripts/install-mailpit.sh
	@# Redocly's linter checks the OpenAPI document (TestOpenAPILint).
	@./scripts/install-redocly.sh
	@# systemd-analyze checks deploy/docmill.service (TestSystemdUnit).
	@command -v systemd-analyze >/dev/null || { s=""; [ "$$(id -u)" = 0 ] || s=sudo; $$s apt-get install -y -qq systemd >/dev/null; }
	@# curl and jq run the README's walk-through (TestWalkthrough);
	@# install-engines.sh installs curl, the API reference's examples use it.
	@command -v jq >/dev/null || { s=""; [ "$$(id -u)" = 0 ] || s=sudo; $$s apt-get install -y -qq jq >/dev/null; }
	@# python3 runs the Python SDK's tests and mypy checks it (TestPythonSDK).
	@command -v python3 >/dev/null && command -v mypy >/dev/null || { s=""; [ "$$(id -u)" = 0 ] || s=sudo; $$s apt-get install -y -qq python3 mypy >/dev/null; }
	@# The JavaScript SDK's compiler (TestSDKJS, make sdk-js), from
	@# sdk/js/package-lock.json; install-redocly.sh installed Node.js and npm.
	@cd sdk/js && npm ci --prefer-offline --no-audit --no-fund >/dev/null

# One go test over every package: two packages at a time, and two
# parallel tests at a time within each (go test's defaults on two cores).
# On two cores the suite is CPU-bound (the engines' work), so more at
# once only queues for the cores: cmd/docmill at -parallel 3 beside the
# other packages took as long, and at -parallel 8 its engines missed
# their work budgets.
test: test-deps lint
	$(GO) test -count=1 -timeout 25m ./...
	$(MAKE) bench-smoke

# bench-smoke runs every benchmark once, on its smallest inputs and
# shortest durations (DOCMILL_BENCH_SMOKE=1, toolstest.BenchSmoke), so that
# a broken benchmark fails `make test`; it never judges their figures,
# which `make bench` prints. No test runs in it (-run '^$$'). go test runs
# one package's benchmarks at a time, so cmd/docmill's (the longest) run
# in a second go test beside the other packages'.
BENCH_SMOKE = DOCMILL_BENCH_SMOKE=1 $(GO) test -count=1 -run '^$$' -bench . -benchtime 1x -timeout 15m
bench-smoke:
	@$(BENCH_SMOKE) ./cmd/docmill & app=$$!; \
	$(BENCH_SMOKE) $$($(GO) list ./... | grep -v '/cmd/docmill$$'); rest=$$?; \
	wait $$app && exit $$rest

test-short:
	$(GO) test -count=1 -short ./...

lint:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt needed:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...
	$(GO) tool staticcheck ./...

# bench prints the figures the issues ask for (benchmarks, never pass/fail
# on time): rotate-pdf in-process; rotate-pdf p50 run in this process
# (as before issue 11) and in a jailed PDF helper (as now); compress-pdf per preset next to raw gs
# /ebook; pdf-to-jpg next to one pdftoppm run; every tool over HTTP on the
# biggest corpus file (time, server peak RSS, engines' peak RSS from the
# job's meta.engine_peak_rss_kb); rotate-pdf over HTTP with 1
# and 8 clients (req/s, p50/p99, queue pickup); a 1 GB upload (MB/s, RSS);
# rotate-pdf embedded vs a cluster of 2 API and 1 or 2 worker nodes on
# PostgreSQL, versitygw and Redis (jobs/s, sync p50); a 512 MB upload
# through an API node to the bucket (MB/s, the node's peak RSS).
# html-to-pdf on issue 15's 200-row table page: the tool next to a bare
# Chromium print loop on the same browser (./tools/chromium, 20x), and over HTTP
# at 1 and 4 clients beside as many bare chromedp loops (one reused tab each);
# html-to-image of the same page beside a bare chromedp screenshot loop.
# Issue 29's attack: two Free accounts with the worst inputs against a third
# account's rotate-pdf every 500 ms for two minutes, on a server with SQLite
# and then one with PostgreSQL (victim p50/p99 beside the idle p50, the
# server's peak RSS, attacker jobs' overrun of budget_ms).
# Issue 29's crash rule: the time from upload to 422 for a document its
# engine (LibreOffice, Ghostscript) crashes on every time, beside 20 s.
# Issue 34's backup: docmill backup and restore of a database of 10,000
# accounts and 100,000 jobs (seconds each, the longest write beside the backup).
# Issue 34's recovery point: the seconds of writes a kill -9 loses with the
# SQLite file replicated to a versitygw bucket (s-lost-max), and the restore's time.
# Issue 35's PDF rows: flatten-pdf, protect-pdf, merge-pdf, rotate-pdf,
# split-pdf, watermark-pdf and pdf-to-pdfa per document, the tool's run and
# over HTTP, beside qpdf or Ghostscript doing the same work (the floor) and
# the 1.2x target, then at 4 clients beside 4 floors in parallel. Issue 35's Office rows: word-, excel- and
# powerpoint-to-pdf over HTTP beside one warm soffice converting the same
# file over UNO (the floor) and the 1.2x target, then at 4 clients beside
# 4 warm soffices in parallel.
# einvoice-pdf over HTTP beside its floor, pdf-to-pdfa 3b on the same PDF.
# Issue 36's pdf-to-markdown (./tools/poppler): words in order, headings,
# table cells and list items on documents LibreOffice and Chromium lay out,
# and the tool on the 117-page corpus file beside its poppler floor; beside
# it pdf-to-csv's and pdf-to-xlsx's cells in place on tables Chromium (with
# and without borders) and LibreOffice Calc make.
bench: test-deps
	$(GO) test -run '^$$' -bench . -benchtime 2s ./tools/pdfops/
	$(GO) test -run '^$$' -bench . -benchtime 3x ./tools/ghostscript/ ./tools/poppler/
	$(GO) test -run '^$$' -bench . -benchtime 20x ./tools/office/ ./tools/chromium/ ./tools/vips/
	$(GO) test -run '^$$' -bench Overhead -benchtime 10x ./sandbox/
	$(GO) test -run '^$$' -bench BenchmarkTools -benchtime 2x ./cmd/docmill
	$(GO) test -run '^$$' -bench BenchmarkEInvoice -benchtime 8x ./cmd/docmill
	$(GO) test -run '^$$' -bench PDFRows -benchtime 20x ./cmd/docmill
	$(GO) test -run '^$$' -bench OfficeRows -benchtime 5x ./cmd/docmill
	$(GO) test -run '^$$' -bench RotateHelper -benchtime 1000x ./cmd/docmill
	$(GO) test -run '^$$' -bench RotateSync -benchtime 1000x ./cmd/docmill
	$(GO) test -run '^$$' -bench IdleCPU -benchtime 3x ./cmd/docmill
	$(GO) test -run '^$$' -bench UploadGigabyte -benchtime 2x ./cmd/docmill
	$(GO) test -run '^$$' -bench ClusterRotate -benchtime 400x ./cmd/docmill
	DOCMILL_BENCH_CLIENTS=1 $(GO) test -run '^$$' -bench ClusterRotate -benchtime 200x ./cmd/docmill
	$(GO) test -run '^$$' -bench ClusterUpload -benchtime 2x ./cmd/docmill
	$(GO) test -run '^$$' -bench HTMLTable -benchtime 8x ./cmd/docmill
	$(GO) test -run '^$$' -bench CrashPath -benchtime 3x ./cmd/docmill
	$(GO) test -run '^$$' -bench BackupRestore -benchtime 1x ./cmd/docmill
	$(GO) test -run '^$$' -bench Attack -benchtime 1x -timeout 30m ./cmd/docmill
	$(GO) test -run '^$$' -bench RecoveryPoint -benchtime 5x ./replica/

# fuzz runs each fuzz target of our own parsers for $(FUZZTIME): page
# selections and tool params, the upload sniffer and file names, Office
# family detection, zip limits, and the PDF tools run in this process
# (rotate, page tools, protect, unlock, watermark text, the JPEG scanner,
# the e-invoice XML reader).
# Every `func Fuzz` of the repository has its line here
# (TestMakeFuzzNamesEveryTarget checks it). A failing input is saved under the
# package's testdata/fuzz and replayed by `make test` once committed.
# Each new input that finds new code is shrunk for at most FUZZMINTIME:
# while it is, no worker fuzzes, and the targets that write a file per
# input would spend Go's default of 60s on one.
FUZZTIME    ?= 60s
FUZZMINTIME ?= 3s
.PHONY: fuzz
fuzz:
	$(GO) test -run '^$$' -fuzz '^FuzzParsePageRanges$$' -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMINTIME) .
	$(GO) test -run '^$$' -fuzz '^FuzzParseParams$$' -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMINTIME) .
	$(GO) test -run '^$$' -fuzz '^FuzzSniff$$' -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMINTIME) ./httpapi
	$(GO) test -run '^$$' -fuzz '^FuzzCleanFilename$$' -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMINTIME) ./httpapi
	$(GO) test -run '^$$' -fuzz '^FuzzParseRange$$' -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMINTIME) ./httpapi
	$(GO) test -run '^$$' -fuzz '^FuzzFormReader$$' -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMINTIME) ./httpapi
	$(GO) test -run '^$$' -fuzz '^FuzzDetect$$' -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMINTIME) ./tools/office
	$(GO) test -run '^$$' -fuzz '^FuzzZip$$' -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMINTIME) ./tools/ziplimit
	$(GO) test -run '^$$' -fuzz '^FuzzCheck$$' -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMINTIME) ./tools/ziplimit
	$(GO) test -run '^$$' -fuzz '^FuzzRotate$$' -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMINTIME) ./tools/pdfops
	$(GO) test -run '^$$' -fuzz '^FuzzPageTools$$' -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMINTIME) ./tools/pdfops
	$(GO) test -run '^$$' -fuzz '^FuzzProtect$$' -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMINTIME) ./tools/pdfops
	$(GO) test -run '^$$' -fuzz '^FuzzUnlock$$' -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMINTIME) ./tools/pdfops
	$(GO) test -run '^$$' -fuzz '^FuzzWatermarkText$$' -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMINTIME) ./tools/pdfops
	$(GO) test -run '^$$' -fuzz '^FuzzScanJPEG$$' -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMINTIME) ./tools/pdfops
	$(GO) test -run '^$$' -fuzz '^FuzzParseInvoice$$' -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMINTIME) ./tools/pdfops

# sdk builds the client SDKs, each stamped with this build's VERSION.
.PHONY: sdk sdk-python
sdk: sdk-python

# sdk-python builds sdk/python/dist/docmill-*.whl offline (sdk/python/README.md).
sdk-python:
	cd sdk/python && DOCMILL_VERSION=$(VERSION) python3 make_wheel.py

fmt:
	gofmt -w $$(git ls-files '*.go')

clean:
	rm -rf bin data
