# Every target that needs PowerDNS finds or builds one itself: see
# pdnstest/images/select-servers.sh.
GO       ?= go
PKGS     ?= ./...
SERVERS  := pdnstest/images/select-servers.sh
BIN      := $(CURDIR)/bin
GOLANGCI_LINT_VERSION := v2.15.0
GOLANGCI_LINT := $(BIN)/golangci-lint-$(GOLANGCI_LINT_VERSION)

# MODULES are the Go modules of this repository: the library at the root, and
# tooling and the controller example in modules of their own, so that what
# only they need (gonum/plot, controller-runtime) never reaches the library's
# go.mod. Each target that runs go per package runs it
# in every module. The tooling's commands are built into bin/ by make tools
# and run from the root, where their default paths point.
MODULES := . internal/tools examples/controller

.PHONY: all test test-unit lint images testdata demo bench clean tools apicheck api

all: lint test

## test: every test of every module, with -race, against real PowerDNS servers (4.7, 4.9, 5.1; gsqlite3,
## LMDB, gpgsql as two frontends on one PostgreSQL behind a round-robin, and gmysql, the same on MariaDB;
## PDNS_TEST_WITH_GMYSQL=0 leaves gmysql out), the slowest tests on a share of their matrix (all of it with
## PDNS_TEST_FULL=1: docs/tests.md); then fails if anything the tests printed (all of it, -v, kept in TEST_LOG) holds an API key of the harness. The servers are
## started once, by the pdnstest command, and shared by every test binary of every module
## (PDNS_TEST_SERVERS); a test that kills or restarts a server starts its own.
TEST_LOG   ?= $(CURDIR)/.cache/test.log
TEST_FLAGS ?= -v
# TEST_P is how many test binaries go test runs at once, all on the same
# servers. At 4 on 2 busy cores, 4.7.3's gsqlite3 answered 'database is
# locked' to tests of several binaries and gpgsql tests ran out of their
# 2-minute contexts; 2 is what go test runs by default there.
TEST_P     ?= 2
# TEST_PARALLEL is how many tests of one binary run at once (go test's
# -parallel, GOMAXPROCS by default: 2 here). The integration tests mostly
# wait on PowerDNS, so 4 keeps the servers busier: on an idle 2-core
# machine make test took 314 s at 4 against 358 s at 2 (one run each).
TEST_PARALLEL ?= 4
# TEST_FIRST are the library's packages whose tests take longest (the fault,
# race and load tests), listed before the rest so that go test starts them
# first rather than last.
TEST_FIRST ?= $(patsubst %,./%,$(wildcard internal/testing/reliability))
NO_API_KEY := internal/tools/no-api-key.sh
PDNSTEST   := $(BIN)/pdnstest
test:
	@mkdir -p $(dir $(TEST_LOG))
	@status=0; \
	bash -o pipefail -c 'eval "$$($(SERVERS))" && $(GO) build -o $(PDNSTEST) ./pdnstest/cmd/pdnstest && $(PDNSTEST) bash -c "$$GO_TEST_MODULES" 2>&1 | tee $(TEST_LOG)' || status=$$?; \
	$(NO_API_KEY) $(TEST_LOG) || status=1; \
	if [ $$status != 0 ]; then echo "make test: what failed (whole output in $(TEST_LOG)):"; \
		grep -E -A 6 -- '^\s+Error Trace:|^panic:' $(TEST_LOG) | tail -n 80; \
		grep -E -- '^ *--- FAIL|^FAIL' $(TEST_LOG) | tail -n 40; fi; \
	exit $$status
# GO_TEST_MODULES is the go test of every module that make test runs under the pdnstest command.
test: export GO_TEST_MODULES = rc=0; for m in $(MODULES); do first=; [ $$m = . ] && first="$(TEST_FIRST)"; began=$$SECONDS; \
	$(GO) -C $$m test -race -count=1 -p $(TEST_P) -parallel $(TEST_PARALLEL) -timeout 20m $(TEST_FLAGS) $$first $(PKGS) || rc=1; \
	echo "make test: module $$m in $$((SECONDS - began)) s"; done; exit $$rc

.PHONY: fuzz reliability
FUZZTIME        ?= 20s
RELIABILITY_LOG ?= $(CURDIR)/.cache/reliability.log

## fuzz: every fuzz target of the module (go test -list '^Fuzz' ./...) for FUZZTIME each (default 20s);
## a crasher stays in the package's testdata/fuzz as a regression seed
fuzz: tools
	$(BIN)/reliability fuzz -fuzztime $(FUZZTIME)

## reliability: the fault tests on their whole matrix, the load figures on gsqlite3, LMDB, gpgsql and gmysql (zones x 1,000 RRsets with one
## writer, 200 such zones with two writers x two replicas, a 100,000-RRset zone) and every fuzz target for
## FUZZTIME (FUZZTIME=2m for a longer campaign); writes RELIABILITY.md, then checks that no output holds an
## API key of the harness
reliability: tools
	@mkdir -p $(dir $(RELIABILITY_LOG))
	@status=0; \
	bash -o pipefail -c 'eval "$$($(SERVERS))" && $(BIN)/reliability report -fuzztime $(FUZZTIME) -out RELIABILITY.md -log $(RELIABILITY_LOG).tests 2>&1 | tee $(RELIABILITY_LOG)' || status=$$?; \
	$(NO_API_KEY) $(RELIABILITY_LOG) $(RELIABILITY_LOG).tests RELIABILITY.md || status=1; \
	exit $$status

## test-unit: the tests that need no PowerDNS (-short: the harness starts none and skips the rest), in every module
test-unit:
	@rc=0; for m in $(MODULES); do \
		$(GO) -C $$m test -race -count=1 -short $(PKGS) || rc=1; \
	done; exit $$rc

## lint: gofmt; in every module go vet, golangci-lint and a go.mod/go.sum that go mod tidy leaves alone;
## the library built and vetted by the Go its oldest importer runs (IMPORTER_GO, the go line of
## testdata/importer, fetched as a toolchain module); a go get of the library into that importer's
## requirements (testdata/importer, see internal/tools/cmd/importcheck) that must move none of them;
## and make apicheck
IMPORTER_GO := go$(shell sed -n 's/^go //p' testdata/importer/go.mod)
lint: $(GOLANGCI_LINT) tools
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	@set -e; for m in $(MODULES); do \
		echo "lint: module $$m"; \
		(set -x; $(GO) -C $$m vet ./...; $(GO) -C $$m mod tidy -diff; cd $$m && $(GOLANGCI_LINT) run ./...); \
	done
	GOTOOLCHAIN=$(IMPORTER_GO) $(GO) build ./...
	GOTOOLCHAIN=$(IMPORTER_GO) $(GO) vet ./...
	$(BIN)/importcheck
	$(BIN)/apicheck

## apicheck: fail, printing the lines removed and added, when the exported API of the library's public
## packages (all but internal/ and examples/) differs from its record, api.txt (internal/tools/cmd/apicheck)
apicheck: tools
	$(BIN)/apicheck

## api: rewrite api.txt from the tree, after a change of the exported API that is meant
api: tools
	$(BIN)/apicheck -w

$(GOLANGCI_LINT):
	@mkdir -p $(BIN)
	GOBIN=$(BIN) $(GO) install github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$(GOLANGCI_LINT_VERSION)
	@mv $(BIN)/golangci-lint $@

## images: build pdnskit/pdns-auth:{4.7,4.9,5.1}, pdnskit/postgres:15 and pdnskit/mariadb:10.11 from Debian's packages
## (needs root and Docker)
images:
	pdnstest/images/build.sh 4.7 4.9 5.1 postgres mariadb

## testdata: regenerate testdata/pdns/<version>/<case>.json from real servers
testdata:
	@eval "$$($(SERVERS))" && $(GO) test -count=1 -run '^TestGoldenBodies$$' ./internal/testing/golden -update

## demo: replay the gateway incident against a real PowerDNS (examples/gateway)
demo:
	@eval "$$($(SERVERS))" && $(GO) run ./examples/gateway

## bench: the Go benchmarks of the pure pipeline, then Reconciler.Sync and Reconciler.Apply against per-object
## writers and PowerDNS's floor on every configured PowerDNS (gsqlite3, LMDB, gpgsql, gmysql), as the default plan
## of internal/tools/cmd/pdnsbench says (about 45 minutes); writes BENCHMARKS.md and docs/bench-sync.png.
## The tooling is the module internal/tools; pdnsbench runs from the root, where its paths point.
BENCH_PIPELINE := -C internal/tools/bench test -run '^$$' -benchmem -bench Pipeline -count 5 .
BENCH_PARTS    := -C internal/tools/bench test -run '^$$' -benchmem -bench 'Canonicalise|Check' -count 3 .
BENCH_FLAGS    := -out BENCHMARKS.md -chart docs/bench-sync.png
bench: tools
	@out=$$(mktemp) && trap 'rm -f "$$out"' EXIT && \
	echo "$(GO) $(BENCH_PIPELINE); $(GO) $(BENCH_PARTS)" && \
	$(GO) $(BENCH_PIPELINE) >"$$out" && $(GO) $(BENCH_PARTS) >>"$$out" && cat "$$out" && \
	eval "$$($(SERVERS))" && \
	bin/pdnsbench $(BENCH_FLAGS) -gobench "$$out" \
		-command "make bench, which runs: $(GO) $(BENCH_PIPELINE) > out; $(GO) $(BENCH_PARTS) >> out; bin/pdnsbench $(BENCH_FLAGS) -gobench out"

## tools: build the repository's commands (module internal/tools) into bin/
tools:
	@mkdir -p $(BIN)
	$(GO) -C internal/tools build -o $(BIN)/ ./cmd/...

clean:
	rm -rf $(BIN)
