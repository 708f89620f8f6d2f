# vipharness: every target does its own set-up, so a fresh clone needs only `make demo` or `make test`.
SHELL := /bin/bash
GO ?= go
STATICCHECK_VERSION ?= v0.8.2
GINKGO := $(GO) tool ginkgo
E2E_FLAGS ?=
export TESTCONTAINERS_RYUK_DISABLED ?= true

.PHONY: image man tools release-check release-snapshot nodes-linux e2e-run e2e-shards e2e-docker-tcp e2e-external all setup setup-demo setup-system setup-npm setup-jsclients setup-foundry setup-movevm nodes devnode build build-ledger contracts bindings proto check-artifacts test unit e2e demo bench lint fmt clean

all: build

## setup: everything `make test` needs, through one path that .ci/run shares: Debian packages
## (localnet/setup/system.sh: apt-get as root or through sudo, else one line per missing piece),
## Go modules, the pinned compiler packages from npm (checksums from package-lock.json), and
## Initia's Move libraries: the compiler from npm, the MoveVM from the movevm Go module (`vipctl setup`: sha256 from localnet/movevm/native.sha256)
setup: setup-system setup-npm setup-jsclients setup-foundry setup-movevm
	$(GO) mod download

## setup-demo: what `make demo` needs (Node and npm, the Move libraries)
setup-demo:
	bash localnet/setup/system.sh demo
	$(MAKE) --no-print-directory setup-movevm

setup-system:
	bash localnet/setup/system.sh test

setup-movevm: .cache/movevm/.verified

.cache/movevm/.verified: localnet/movevm/native.sha256 localnet/movevm/install.go
	$(GO) run ./cmd/vipctl setup --movevm-dir .cache/movevm
	touch $@

setup-npm: contracts/node_modules/.package-lock.json

## setup-jsclients: the ecosystem's own JS clients (Initia's JS SDK, the Skip Go SDK), pinned
## with their integrity hashes in e2e/jsclients/package-lock.json, for the e2e/jsclients suite
setup-jsclients: e2e/jsclients/node_modules/.package-lock.json

e2e/jsclients/node_modules/.package-lock.json: e2e/jsclients/package.json e2e/jsclients/package-lock.json
	npm ci --prefix e2e/jsclients --no-audit --no-fund --loglevel=error

## setup-foundry: Foundry 1.7.1 (forge and cast, from the -linux-amd64 npm packages: optional
## dependencies, skipped on other platforms), ethers, and Hardhat 2.29.1 with Ignition 0.15,
## hardhat-ethers and the chai matchers, pinned with their integrity hashes in
## e2e/foundry/package-lock.json, for the e2e/foundry suite
setup-foundry: e2e/foundry/node_modules/.package-lock.json

e2e/foundry/node_modules/.package-lock.json: e2e/foundry/package.json e2e/foundry/package-lock.json
	npm ci --prefix e2e/foundry --no-audit --no-fund --loglevel=error

contracts/node_modules/.package-lock.json: contracts/package.json contracts/package-lock.json
	npm ci --prefix contracts --no-audit --no-fund --loglevel=error

## nodes: node binaries (geth, wasmd, our dev node) for the process and container engines, in .cache/nodes
nodes: .cache/nodes/geth-v1.17.8 .cache/nodes/wasmd-v0.61.14 devnode

# The project's own dev node (cmd/devnode) for the process and container engines; go build
# is incremental, so it is always brought up to date. It builds as the tests do (no
# -trimpath), from the packages they compile.
devnode:
	mkdir -p .cache/nodes
	$(GO) build -o .cache/nodes/devnode ./cmd/devnode

# The pinned third-party programs (geth, wasmd, goreleaser, actionlint) are built once into
# .cache, each in a build cache of its own that is removed after: their packages serve no
# other build, and kept they would add gigabytes to the shared cache (and to a CI machine's
# disk, where `make test` compiles everything from nothing).
ONEOFF_GOCACHE = oneoff=$$(mktemp -d "$${TMPDIR:-/tmp}/vipharness-gocache-XXXXXX") && trap 'rm -rf "$$oneoff"' EXIT && GOCACHE=$$oneoff

.cache/nodes/geth-v1.17.8: localnet/nodes/geth/go.mod localnet/nodes/geth/go.sum
	mkdir -p .cache/nodes
	cd localnet/nodes/geth && $(ONEOFF_GOCACHE) CGO_ENABLED=0 $(GO) build -trimpath -o $(CURDIR)/$@.tmp github.com/ethereum/go-ethereum/cmd/geth
	mv $@.tmp $@

## nodes-linux: geth for a Linux Docker engine of another platform than this machine (Docker
## Desktop on a Mac or Windows): static, GOOS=linux GOARCH=$(ARCH) (the engine's, by default)
## into $(LINUX_NODES). wasmd and the dev node link C libraries (cgo): their images are built
## on a Linux machine of the engine's architecture only (or use official images).
ARCH ?= $(shell docker info --format '{{.Architecture}}' 2>/dev/null | sed 's/x86_64/amd64/; s/aarch64/arm64/')
LINUX_NODES ?= .cache/nodes/linux-$(ARCH)
nodes-linux:
	@test -n "$(ARCH)" || { echo "nodes-linux: no Docker engine answers; name its architecture: make nodes-linux ARCH=arm64"; exit 1; }
	mkdir -p $(LINUX_NODES)
	cd localnet/nodes/geth && $(ONEOFF_GOCACHE) CGO_ENABLED=0 GOOS=linux GOARCH=$(ARCH) $(GO) build -trimpath -o $(abspath $(LINUX_NODES))/geth-v1.17.8 github.com/ethereum/go-ethereum/cmd/geth

# The version stamps a release build carries; abci_info reports them (the deployer reads the
# rollup version from there).
WASMD_LDFLAGS := -X github.com/cosmos/cosmos-sdk/version.Name=wasm -X github.com/cosmos/cosmos-sdk/version.AppName=wasmd -X github.com/cosmos/cosmos-sdk/version.Version=v0.61.14

# wasmd links libwasmvm (cgo); the module cache holds the library it loads by rpath.
.cache/nodes/wasmd-v0.61.14: localnet/nodes/wasmd/go.mod localnet/nodes/wasmd/go.sum
	mkdir -p .cache/nodes
	cd localnet/nodes/wasmd && $(ONEOFF_GOCACHE) $(GO) build -trimpath -ldflags "$(WASMD_LDFLAGS)" -o $(CURDIR)/$@.tmp github.com/CosmWasm/wasmd/cmd/wasmd
	mv $@.tmp $@

## build: the vipctl binary in bin/
build:
	$(GO) build -o bin/vipctl ./cmd/vipctl

## man: a man page for every vipctl command (cobra's, from the same definitions as --help)
## into $(MAN_DIR); `man -l $(MAN_DIR)/vipctl.1` reads one. Shell completions: vipctl completion -h
MAN_DIR ?= .cache/man
man:
	$(GO) run ./cmd/vipctl man --dir $(MAN_DIR)

## release-snapshot: the release archives (.goreleaser.yaml) of this checkout, no tag needed:
## .cache/dist/vipctl_<version>_linux_amd64.tar.gz and checksums.txt. release-check: goreleaser
## check. goreleaser and actionlint are pinned in their own module (.github/tools/go.mod) and
## built into .cache/tools.
TOOLS := .cache/tools
GORELEASER := $(TOOLS)/goreleaser
ACTIONLINT := $(TOOLS)/actionlint
tools: $(GORELEASER) $(ACTIONLINT)

$(GORELEASER): .github/tools/go.mod .github/tools/go.sum
	mkdir -p $(TOOLS)
	cd .github/tools && $(ONEOFF_GOCACHE) $(GO) build -o $(CURDIR)/$@ github.com/goreleaser/goreleaser/v2

$(ACTIONLINT): .github/tools/go.mod .github/tools/go.sum
	mkdir -p $(TOOLS)
	cd .github/tools && $(ONEOFF_GOCACHE) $(GO) build -o $(CURDIR)/$@ github.com/rhysd/actionlint/cmd/actionlint

# goreleaser reads the commit only where `git ls-remote --get-url` answers: in a checkout
# without a remote, the project's is named for its run alone.
RELEASE_GIT_ENV := $(if $(shell git remote 2>/dev/null),,GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=remote.origin.url GIT_CONFIG_VALUE_0=https://github.com/vipharness/vipharness.git)

release-check: $(GORELEASER)
	$(GORELEASER) check

# Its -trimpath build compiles every package anew, in a cache of its own (ONEOFF_GOCACHE):
# nothing else builds with -trimpath.
release-snapshot: $(GORELEASER)
	$(ONEOFF_GOCACHE) $(RELEASE_GIT_ENV) $(GORELEASER) release --snapshot --clean --skip=publish
	bash .github/tools/release-verify.sh .cache/dist

## image: the vipctl container image (cmd/vipctl/Dockerfile, FROM scratch: no registry needed)
## from the snapshot archive, tagged $(IMAGE); the Move libraries of `make setup` go in too
IMAGE ?= vipharness/vipctl:local
image: release-snapshot setup-movevm
	bash cmd/vipctl/image-context.sh "$$(ls .cache/dist/vipctl_*_linux_amd64.tar.gz | head -1)" .cache/image .cache/movevm
	docker build -q -t $(IMAGE) -f cmd/vipctl/Dockerfile .cache/image

## build-ledger: vipctl with USB HID for Ledger devices (cgo: needs a C compiler)
build-ledger:
	CGO_ENABLED=1 $(GO) build -tags ledgerhid -o bin/vipctl ./cmd/vipctl

## contracts: rebuild contract artifacts from source with the real compilers
contracts: setup-npm setup-movevm
	bash contracts/evm/build.sh
	$(GO) run ./cmd/buildmove

## bindings: regenerate the Go bindings from the committed artifacts
bindings:
	$(GO) generate ./bindings/...

## proto: regenerate the Initia x/move and minievm x/evm wire types (needs protoc; apt-get install protobuf-compiler)
GOGOPROTO_VERSION ?= v1.7.2
COSMOS_SDK_VERSION ?= v0.53.6
COSMOS_PROTO_VERSION ?= v1.0.0-beta.5
proto:
	$(GO) install github.com/cosmos/gogoproto/protoc-gen-gocosmos@$(GOGOPROTO_VERSION)
	cd bindings/initiamove && M=$$($(GO) env GOMODCACHE) && protoc -I proto \
		-I $$M/github.com/cosmos/cosmos-sdk@$(COSMOS_SDK_VERSION)/proto \
		-I $$M/github.com/cosmos/cosmos-proto@$(COSMOS_PROTO_VERSION)/proto \
		-I $$M/github.com/cosmos/gogoproto@$(GOGOPROTO_VERSION) \
		--plugin=$$($(GO) env GOPATH)/bin/protoc-gen-gocosmos --gocosmos_out=plugins=grpc:. --gocosmos_opt=paths=source_relative \
		proto/initia/move/v1/tx.proto proto/initia/move/v1/query.proto proto/initia/move/v1/authz.proto && \
		mv initia/move/v1/*.pb.go . && rm -rf initia
	cd bindings/initiaevm && M=$$($(GO) env GOMODCACHE) && protoc -I proto \
		-I $$M/github.com/cosmos/cosmos-sdk@$(COSMOS_SDK_VERSION)/proto \
		-I $$M/github.com/cosmos/cosmos-proto@$(COSMOS_PROTO_VERSION)/proto \
		-I $$M/github.com/cosmos/gogoproto@$(GOGOPROTO_VERSION) \
		--plugin=$$($(GO) env GOPATH)/bin/protoc-gen-gocosmos --gocosmos_out=plugins=grpc:. --gocosmos_opt=paths=source_relative \
		proto/minievm/evm/v1/types.proto proto/minievm/evm/v1/tx.proto proto/minievm/evm/v1/query.proto && \
		mv minievm/evm/v1/*.pb.go . && rm -rf minievm

## check-artifacts: fail if a rebuild of the contracts or bindings would change a committed file
check-artifacts: setup-npm setup-movevm
	VIPHARNESS_CHECK_REBUILD=1 $(GO) test -count=1 ./contracts/... ./bindings/...

## test: vet, unit tests, reproducibility of artifacts, and the e2e suites on every engine
## available here (embedded always, and its EVM on go-ethereum's simulated chain,
## embedded-geth; process after `make nodes`; container where Docker runs).
## Packages run TEST_P at a time (go test -p; default: one per core), each suite's specs in
## order (BENCHMARKS.md compares -p 1 with the default)
E2E_ENGINES ?= embedded,embedded-geth,process,container,minitia
TEST_P ?=
test: setup nodes
	$(GO) vet ./...
	$(MAKE) --no-print-directory release-check release-snapshot
	E2E_ENGINES=$(E2E_ENGINES) VIPHARNESS_CHECK_REBUILD=1 $(GO) test $(if $(TEST_P),-p $(TEST_P)) -count=1 -timeout 45m ./...
	bash e2e/external/run.sh

## unit: unit tests only (no e2e)
unit:
	$(GO) test -count=1 $$($(GO) list ./... | grep -v /e2e)

## e2e-external: the suites on the external engine, against geth, wasmd and the dev node that
## e2e/external/run.sh starts as separate processes (as a team points them at its own rollup)
e2e-external: nodes
	bash e2e/external/run.sh

## e2e: every Ginkgo suite on every engine available here, with a JUnit report in
## $(E2E_REPORTS). PROCS=N runs each suite in N Ginkgo processes (ginkgo -p); SHARD=<vm>-<engine>
## runs one shard of the CI matrix (.github/workflows/e2e.yml): e.g. evm-embedded, wasm-process,
## wasm-container-devnode, move-container; SHARD=other the specs that name no VM or no engine.
e2e: setup nodes
	$(MAKE) --no-print-directory e2e-run

# The shards: every spec labelled with one VM and one engine is in exactly one <vm>-<engine>
# shard; the rest (suites about the CLI's signers, the JS clients, ...) are in "other".
E2E_VMS := evm wasm move
E2E_SHARD_ENGINES := embedded process process-devnode container container-devnode
# Only Wasm runs on the dev node binary as well (process-devnode, container-devnode).
E2E_SHARDS := $(foreach v,$(E2E_VMS),$(foreach e,embedded process container,$(v)-$(e))) \
	wasm-process-devnode wasm-container-devnode other
E2E_REPORTS ?= .cache/reports
PROCS ?= 1
SHARD ?=
empty :=
space := $(empty) $(empty)
anyof = $(subst $(space), || ,$(strip $(1)))
ifneq ($(SHARD),)
ifeq ($(filter $(SHARD),$(E2E_SHARDS)),)
$(error SHARD=$(SHARD) is not a shard; want one of: $(E2E_SHARDS))
endif
ifeq ($(SHARD),other)
SHARD_ENGINES := $(E2E_ENGINES)
SHARD_FILTER := !($(call anyof,$(E2E_VMS))) || !($(call anyof,$(E2E_SHARD_ENGINES)))
else
SHARD_VM := $(firstword $(subst -, ,$(SHARD)))
SHARD_ENGINE := $(patsubst $(SHARD_VM)-%,%,$(SHARD))
SHARD_ENGINES := $(firstword $(subst -, ,$(SHARD_ENGINE)))
SHARD_FILTER := $(SHARD_VM) && $(SHARD_ENGINE)
endif
E2E_RUN_ENV := E2E_ENGINES=$(SHARD_ENGINES)
E2E_RUN_FLAGS := --label-filter='$(SHARD_FILTER)'
E2E_REPORT_DIR := $(E2E_REPORTS)/$(SHARD)
else
E2E_RUN_ENV := E2E_ENGINES=$(E2E_ENGINES)
E2E_REPORT_DIR := $(E2E_REPORTS)
endif

## e2e-run: `make e2e` without its set-up (CI shards set up first, then run this)
e2e-run:
	mkdir -p $(E2E_REPORT_DIR)
	$(E2E_RUN_ENV) $(GINKGO) -r --keep-going --procs=$(PROCS) --junit-report=junit.xml --output-dir=$(E2E_REPORT_DIR) $(E2E_RUN_FLAGS) $(E2E_FLAGS) ./e2e

## e2e-shards: the shard names, one a line (the CI matrix reads them)
e2e-shards:
	@printf '%s\n' $(E2E_SHARDS)

## e2e-docker-tcp: the container specs once more, focused (scoring on every VM, the restart
## spec), through whatever DOCKER_HOST names: .ci/run points it at dockerd's TCP address
e2e-docker-tcp:
	E2E_ENGINES=container $(GO) test -count=1 -timeout 20m ./e2e/scoring ./e2e/fault -ginkgo.label-filter='container'

## demo: the main job on the embedded default (L1 stage -> deploy -> scores -> finalize -> verify)
demo: setup-demo
	$(GO) run ./cmd/vipctl demo

## bench: benchmarks; writes BENCHMARKS.md
bench: setup
	$(GO) run ./cmd/benchreport -out BENCHMARKS.md

## lint: gofmt, go vet, staticcheck, go mod tidy; actionlint on the workflows and action.yml
lint: $(ACTIONLINT)
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); echo "gofmt: files above need formatting"; exit 1; }
	$(GO) vet ./...
	$(GO) run honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION) ./...
	@$(GO) mod tidy -diff >/dev/null || { $(GO) mod tidy -diff; echo "go.mod/go.sum: not tidy (run go mod tidy)"; exit 1; }
	$(ACTIONLINT)

fmt:
	gofmt -w $$(git ls-files '*.go')

clean:
	rm -rf bin .cache
