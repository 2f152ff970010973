# Every target that needs PowerDNS finds or builds one itself: see
# internal/pdnstest/images/select-servers.sh.
GO       ?= go
PKGS     ?= ./...
SERVERS  := internal/pdnstest/images/select-servers.sh
BIN      := $(CURDIR)/bin
GOLANGCI_LINT_VERSION := v2.15.0
GOLANGCI_LINT := $(BIN)/golangci-lint-$(GOLANGCI_LINT_VERSION)

.PHONY: all test test-unit lint images testdata clean

all: lint test

## test: every test, with -race, against real PowerDNS servers (4.7, 4.9, 5.1; gsqlite3 and LMDB)
test:
	@eval "$$($(SERVERS))" && $(GO) test -race -count=1 -timeout 20m $(PKGS)

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

## images: build pdnskit/pdns-auth:{4.7,4.9,5.1} from Debian's packages (needs root and Docker)
images:
	internal/pdnstest/images/build.sh 4.7 4.9 5.1

## testdata: regenerate testdata/pdns/<version>/<case>.json from real servers
testdata:
	@eval "$$($(SERVERS))" && $(GO) test -count=1 -run '^TestGoldenBodies$$' ./internal/pdnstest/golden -update

clean:
	rm -rf $(BIN)
