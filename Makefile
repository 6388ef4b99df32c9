# qchat: `make run` sets up and starts a server; `make test` runs the whole suite.
SHELL := /bin/bash
SWIFT ?= swift
HOST ?= 127.0.0.1
PORT ?= 4433
DB ?= qchat.db
# make run-cluster: the local Redis's TCP port.
REDIS_PORT ?= 6390
FUZZ_SECONDS ?= 60
RELEASE_BIN := .build/release
# make install / make deb: where to, and from which built binaries (PRODUCTS set: no build).
PREFIX ?= /usr/local
DESTDIR ?=
PRODUCTS ?=
DEBDIR ?= .build/deb

.PHONY: deps build build-debug install deb test test-cluster test-cluster-run test-sanitize test-asan test-tsan certs run run-cluster demo bench bench-irc bench-aioquic bench-cluster fuzz fuzz-smoke clean interop-venv

# Debian packages, then the pinned aioquic in .build/interop-venv (the interop tests, the aioquic
# load driver of `make bench-aioquic` and its test).
deps:
	@scripts/install-deps.sh
	@tools/interop/setup.sh .build/interop-venv

interop-venv:
	@tools/interop/setup.sh .build/interop-venv

build: deps
	$(SWIFT) build -c release

build-debug: deps
	$(SWIFT) build --build-tests

# chat-server, chat-client and chat-bot with their Swift runtime, man pages, the example and
# installed configuration and the systemd unit under DESTDIR/PREFIX (scripts/install.sh);
# PORT below 1024 gives the unit CAP_NET_BIND_SERVICE.
install: $(if $(PRODUCTS),,build)
	PRODUCTS=$(or $(PRODUCTS),$(RELEASE_BIN)) DESTDIR=$(DESTDIR) PREFIX=$(PREFIX) PORT=$(PORT) scripts/install.sh

# The Debian package in .build/deb (scripts/make-deb.sh); check it with `lintian .build/deb/*.deb`.
deb: $(if $(PRODUCTS),,build)
	PRODUCTS=$(or $(PRODUCTS),$(RELEASE_BIN)) DEBDIR=$(DEBDIR) scripts/make-deb.sh

# The suite starts the real binaries, so they are built before the tests run. Then a short fuzz
# smoke run: the crash regressions, and a few seconds of fuzzing for each target.
# The whole suite, then its end-to-end part again against three nodes, then a short fuzz run.
test: deps build-debug
	$(SWIFT) test --skip-build 2>&1 | tee .build/test.log; test $${PIPESTATUS[0]} -eq 0
	$(MAKE) --no-print-directory test-cluster-run
	scripts/fuzz.sh smoke

# The end-to-end suite (ChatServerTests) against three nodes on a redis-server of each test's own
# (QCHAT_TEST_NODES=3), one test at a time: four processes per test on a small machine
# (docs/CLUSTER.md, "The suite against several nodes"). Part of `test`.
test-cluster: deps build-debug
	$(MAKE) --no-print-directory test-cluster-run

test-cluster-run:
	QCHAT_TEST_NODES=3 $(SWIFT) test --skip-build --no-parallel --filter ChatServerTests 2>&1 | tee .build/test-cluster.log; \
	    test $${PIPESTATUS[0]} -eq 0

# The suite under AddressSanitizer (with LeakSanitizer), then ThreadSanitizer, each in its own
# scratch path (.build/asan, .build/tsan). One after the other, even under -j (two sanitized suites
# at once on two cores would miss deadlines), and the second runs when the first fails.
# Not part of `test`: see docs/SANITIZERS.md.
test-sanitize: deps
	scripts/test-sanitized.sh address; asan=$$?; scripts/test-sanitized.sh thread; tsan=$$?; \
	    test $$asan -eq 0 -a $$tsan -eq 0

test-asan: deps
	scripts/test-sanitized.sh address

test-tsan: deps
	scripts/test-sanitized.sh thread

certs: deps
	@scripts/make-certs.sh certs
	@echo "certs/: ca.pem (give this to clients), server.pem/server.key, client.pem/client.key"

run: build certs
	$(RELEASE_BIN)/chat-server --host $(HOST) --port $(PORT) --cert certs/server.pem --key certs/server.key --db $(DB)

# Three nodes on 4433, 4434 and 4435 sharing a local redis-server on REDIS_PORT (AOF, appendfsync
# always, data in .build/run-cluster), their output prefixed per process, until Ctrl-C
# (scripts/run-cluster.sh; README "Running several nodes").
run-cluster: build certs
	HOST=$(HOST) REDIS_PORT=$(REDIS_PORT) scripts/run-cluster.sh

# A living #lobby: a server (unless one runs on PORT) and the bots of scripts/demo.bot, until Ctrl-C.
demo: build certs
	HOST=$(HOST) PORT=$(PORT) scripts/demo.sh

bench: build certs
	scripts/bench-engine.sh
	scripts/bench-chat.sh
	scripts/bench-files.sh
	scripts/bench-hol.sh
	scripts/bench-flood.sh
	scripts/bench-irc.sh
	scripts/bench-aioquic.sh
	scripts/bench-accounts.sh
	scripts/bench-cluster.sh

# chat-server against InspIRCd side by side (installs Debian's inspircd when missing; see
# docs/PERFORMANCE.md).
bench-irc: build
	scripts/bench-irc.sh

# chat-server under independent aioquic clients, which acknowledge every packet at once, next to
# chat-bot load on the same cells (the aioquic venv is .build/interop-venv; see docs/PERFORMANCE.md).
bench-aioquic: build
	scripts/bench-aioquic.sh

# What several nodes on Redis cost: server CPU per delivery alone, as one node and as three nodes,
# Redis's CPU per message, latency (docs/PERFORMANCE.md, "Several nodes on Redis").
bench-cluster: build
	scripts/bench-cluster.sh

# libFuzzer targets (docs/FUZZING.md): each fuzzes FUZZ_SECONDS, the corpus grows in .build/fuzz/corpus.
fuzz:
	FUZZ_SECONDS=$(FUZZ_SECONDS) scripts/fuzz.sh run

# Replays the committed seeds and crash regressions, then fuzzes each target for 10 s.
fuzz-smoke:
	scripts/fuzz.sh smoke

clean:
	rm -rf .build certs/*.pem certs/*.key
