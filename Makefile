# pi-lsp — build, test, bench, lint.
GO      ?= go
BIN     := bin/pi-lsp
PKGS    := ./...
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -s -w -X main.version=$(VERSION)

.PHONY: deps-pi deps-mcp demo all build run test test-mcp test-go test-node test-acp test-vscode test-vscode-e2e test-neovim test-neovim-current test-soak bench lint install clean fuzz

all: build

# Static (no cgo): nothing needs cgo, and a static binary starts about 10 ms
# sooner (no dynamic loader; docs/benchmarks.md, "Cold start").
build:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/pi-lsp

run: build
	./$(BIN) serve

# pi-lsp's main job, offline: one agent run against the scripted fake model.
demo: build
	scripts/demo.sh

# Every test: Go (with the race detector), the Node clients, the editors.
test: build test-go test-node test-acp test-vscode test-neovim test-neovim-current test-mcp test-soak

test-go: deps-pi deps-mcp
	$(GO) test -race -count=1 -timeout 20m $(PKGS)

# pi 0.73.1 for the interop tests (internal/pitest finds it here).
deps-pi:
	@if [ -f test/pi/package-lock.json ] && [ ! -x test/pi/node_modules/.bin/pi ]; then \
	  npm ci --prefix test/pi --no-audit --no-fund >/dev/null; fi

# The real MCP servers of the MCP tests (mcp/, test/integration), pinned in
# test/mcp/package-lock.json; installed again only when the lockfile changed.
deps-mcp:
	@if command -v npm >/dev/null && [ -f test/mcp/package-lock.json ] && \
	  ! [ test/mcp/node_modules/.package-lock.json -nt test/mcp/package-lock.json ]; then \
	  npm ci --prefix test/mcp --no-audit --no-fund >/dev/null; fi

# npm ci only when the lockfile changed since the last install; fakellm is
# built once here instead of once per test process.
test-node: build
	@if [ -d test/node ]; then \
	  $(GO) build -o bin/fakellm ./cmd/fakellm && cd test/node && \
	  { [ node_modules/.package-lock.json -nt package-lock.json ] || npm ci --no-audit --no-fund >/dev/null; } && \
	  PI_LSP_BIN=$(CURDIR)/$(BIN) FAKELLM_BIN=$(CURDIR)/bin/fakellm node --test; fi

# The MCP project's conformance suite (client scenarios) against
# `pi-lsp exec --yolo`; every scenario passes but the two in
# test/mcp-conformance.sh's ALLOWED_FAILURES (needs npm: Node 22 comes as a
# package).
test-mcp: build
	@if command -v npm >/dev/null; then \
	  $(GO) build -o bin/fakellm ./cmd/fakellm && \
	  PI_LSP_BIN=$(CURDIR)/$(BIN) FAKELLM_BIN=$(CURDIR)/bin/fakellm test/mcp-conformance.sh; fi

# pi-lsp acp through the ACP TypeScript SDK 2.4.0 and acpx 0.19.1 (test/acp).
test-acp: build
	@if [ -d test/acp ]; then \
	  $(GO) build -o bin/fakellm ./cmd/fakellm && cd test/acp && \
	  { [ node_modules/.package-lock.json -nt package-lock.json ] || npm ci --no-audit --no-fund >/dev/null; } && \
	  PI_LSP_BIN=$(CURDIR)/$(BIN) FAKELLM_BIN=$(CURDIR)/bin/fakellm node --test; fi

test-vscode: build
	@if [ -f editors/vscode/Makefile ]; then $(MAKE) -C editors/vscode test PI_LSP_BIN=$(CURDIR)/$(BIN); fi

test-vscode-e2e: build
	@if [ -f editors/vscode/Makefile ]; then $(MAKE) -C editors/vscode e2e PI_LSP_BIN=$(CURDIR)/$(BIN); fi

test-neovim: build
	@if [ -f editors/neovim/Makefile ]; then $(MAKE) -C editors/neovim test PI_LSP_BIN=$(CURDIR)/$(BIN); fi

# The same Neovim tests on a current release, 0.10 (Debian trixie's package, unpacked under /tmp
# by editors/neovim/scripts/nvim-current.sh, nothing installed). Where the package cannot be
# fetched, this says so and the run goes on; a test that fails on 0.10 fails the run.
test-neovim-current: build
	@if [ -f editors/neovim/Makefile ]; then \
	  if nv=$$(editors/neovim/scripts/nvim-current.sh); then \
	    $(MAKE) -C editors/neovim test PI_LSP_BIN=$(CURDIR)/$(BIN) NVIM=$$nv; \
	  else echo "test-neovim-current: SKIPPED, Neovim 0.10 could not be fetched from deb.debian.org"; fi; fi

# The editors' convergence soaks (about 2 minutes each; PI_SOAK_SEED replays a run), apart from
# the integration targets so those stay within their time.
test-soak: build
	@if [ -f editors/vscode/Makefile ]; then $(MAKE) -C editors/vscode test-soak PI_LSP_BIN=$(CURDIR)/$(BIN); fi
	@if [ -f editors/neovim/Makefile ]; then $(MAKE) -C editors/neovim soak PI_LSP_BIN=$(CURDIR)/$(BIN); fi

bench: build
	$(GO) test -run '^$$' -bench . -benchmem $(PKGS)
	@if [ -x scripts/bench.sh ]; then scripts/bench.sh; fi

fuzz:
	@for t in $$(grep -rl 'func Fuzz' --include='*_test.go' . | xargs -n1 dirname | sort -u); do \
	  for f in $$(grep -ho 'func Fuzz[A-Za-z0-9_]*' $$t/*_test.go | sed 's/func //'); do \
	    $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime 20s $$t || exit 1; done; done

lint:
	@test -z "$$(gofmt -l .)" || (echo "gofmt needed:"; gofmt -l .; exit 1)
	$(GO) vet $(PKGS)
	staticcheck $(PKGS)
	$(GO) generate ./protocol && git diff --exit-code -- editors/vscode/src/protocol.gen.ts protocol/protocol.schema.json

install:
	CGO_ENABLED=0 $(GO) install -trimpath -ldflags '$(LDFLAGS)' ./cmd/pi-lsp

clean:
	rm -rf bin dist
