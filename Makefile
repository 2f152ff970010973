# Every target that needs PowerDNS finds or builds one itself: see
# pdnstest/images/select-servers.sh.
GO       ?= go
PKGS     ?= ./...
SERVERS  := pdnstest/images/select-servers.sh
BIN      := $(CURDIR)/bin
GOLANGCI_LINT_VERSION := v2.15.0
GOLANGCI_LINT := $(BIN)/golangci-lint-$(GOLANGCI_LINT_VERSION)

.PHONY: all test test-unit lint images testdata demo bench clean

all: lint test

## test: every test, with -race, against real PowerDNS servers (4.7, 4.9, 5.1; gsqlite3, LMDB, and gpgsql as two
## frontends on one PostgreSQL behind a round-robin); then
## fails if anything the tests printed (all of it, -v, kept in TEST_LOG) holds an API key of the harness
TEST_LOG   ?= $(CURDIR)/.cache/test.log
TEST_FLAGS ?= -v
NO_API_KEY := internal/reliability/no-api-key.sh
test:
	@mkdir -p $(dir $(TEST_LOG))
	@status=0; \
	bash -o pipefail -c 'eval "$$($(SERVERS))" && $(GO) test -race -count=1 -timeout 20m $(TEST_FLAGS) $(PKGS) 2>&1 | tee $(TEST_LOG)' || status=$$?; \
	$(NO_API_KEY) $(TEST_LOG) || status=1; \
	exit $$status

.PHONY: fuzz reliability
FUZZTIME        ?= 20s
RELIABILITY_LOG ?= $(CURDIR)/.cache/reliability.log

## fuzz: every fuzz target of the module (go test -list '^Fuzz' ./...) for FUZZTIME each (default 20s);
## a crasher stays in the package's testdata/fuzz as a regression seed
fuzz:
	$(GO) run ./internal/reliability/cmd/reliability fuzz -fuzztime $(FUZZTIME)

## reliability: the fault tests, the load figures (zones x 1,000 RRsets, a 100,000-RRset zone) and every
## fuzz target for FUZZTIME (FUZZTIME=2m for a longer campaign); writes RELIABILITY.md, then checks that
## no output holds an API key of the harness
reliability:
	@mkdir -p $(dir $(RELIABILITY_LOG))
	@status=0; \
	bash -o pipefail -c 'eval "$$($(SERVERS))" && $(GO) run ./internal/reliability/cmd/reliability report -fuzztime $(FUZZTIME) -out RELIABILITY.md -log $(RELIABILITY_LOG).tests 2>&1 | tee $(RELIABILITY_LOG)' || status=$$?; \
	$(NO_API_KEY) $(RELIABILITY_LOG) $(RELIABILITY_LOG).tests RELIABILITY.md || status=1; \
	exit $$status

## test-unit: the tests that need no PowerDNS
test-unit:
	PDNS_TEST_PROVIDER=process PDNS_TEST_ROOTS=none $(GO) test -race -count=1 -short $(PKGS)

## lint: go vet, gofmt, golangci-lint and a go.mod/go.sum that go mod tidy leaves alone
lint: $(GOLANGCI_LINT)
	$(GO) vet ./...
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) mod tidy -diff
	$(GOLANGCI_LINT) run ./...

$(GOLANGCI_LINT):
	@mkdir -p $(BIN)
	GOBIN=$(BIN) $(GO) install github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$(GOLANGCI_LINT_VERSION)
	@mv $(BIN)/golangci-lint $@

## images: build pdnskit/pdns-auth:{4.7,4.9,5.1} and pdnskit/postgres:15 from Debian's packages (needs root and Docker)
images:
	pdnstest/images/build.sh 4.7 4.9 5.1 postgres

## testdata: regenerate testdata/pdns/<version>/<case>.json from real servers
testdata:
	@eval "$$($(SERVERS))" && $(GO) test -count=1 -run '^TestGoldenBodies$$' ./internal/golden -update

## demo: replay the gateway incident against a real PowerDNS (examples/gateway)
demo:
	@eval "$$($(SERVERS))" && $(GO) run ./examples/gateway

## bench: the Go benchmarks of the pure pipeline, then Reconciler.Sync against one PATCH per RRset and
## PowerDNS's floor on every configured PowerDNS (gsqlite3); writes BENCHMARKS.md and docs/bench-sync.png
BENCH_PIPELINE := test -run '^$$' -benchmem -bench Pipeline -count 5 ./internal/bench
BENCH_PARTS    := test -run '^$$' -benchmem -bench 'Canonicalise|Check' -count 3 ./internal/bench
BENCH_FLAGS    := -out BENCHMARKS.md -chart docs/bench-sync.png
bench:
	@out=$$(mktemp) && trap 'rm -f "$$out"' EXIT && \
	echo "$(GO) $(BENCH_PIPELINE); $(GO) $(BENCH_PARTS)" && \
	$(GO) $(BENCH_PIPELINE) >"$$out" && $(GO) $(BENCH_PARTS) >>"$$out" && cat "$$out" && \
	eval "$$($(SERVERS))" && \
	$(GO) run ./internal/bench/cmd/pdnsbench $(BENCH_FLAGS) -gobench "$$out" \
		-command "make bench, which runs: $(GO) $(BENCH_PIPELINE) > out; $(GO) $(BENCH_PARTS) >> out; $(GO) run ./internal/bench/cmd/pdnsbench $(BENCH_FLAGS) -gobench out"

clean:
	rm -rf $(BIN)
