# sportsensord — build, test and demo entry points.
# SPDX-License-Identifier: GPL-2.0-or-later
#
# `make demo` and `make test` are all a fresh Debian/Ubuntu machine with Swift 6 needs:
# both install the system packages they use (`make deps`) before building.

SWIFT ?= swift
CONFIG ?= debug
BUILD_FLAGS ?=
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
APT_PACKAGES := libbluetooth-dev libsqlite3-dev pkg-config
FUZZ_SECONDS ?= 60
FUZZ_SMOKE_SECONDS ?= 10
FUZZERS := fuzz-att fuzz-ad fuzz-btsnoop fuzz-sdu
FUZZ_BUILD := Fuzz/.build

.PHONY: all deps build release test unit-test lint format fuzz fuzz-smoke fuzz-build demo clean eval itest

all: build

## deps: install the Debian packages the build links against (idempotent, quiet when present)
deps:
	@missing=""; for p in $(APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
		echo "installing:$$missing"; \
		$(SUDO) apt-get update -qq && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	fi

## build: debug build of every target, warnings are errors (set per target in Package.swift)
build: deps
	$(SWIFT) build -c $(CONFIG) $(BUILD_FLAGS)

release: deps
	$(SWIFT) build -c release $(BUILD_FLAGS)

## lint: swift-format in strict mode over all Swift sources
lint:
	$(SWIFT) format lint --strict --recursive Package.swift Sources Tests Fuzz/Package.swift Fuzz/Sources

format:
	$(SWIFT) format format --in-place --recursive Package.swift Sources Tests Fuzz/Package.swift Fuzz/Sources

unit-test: deps
	$(SWIFT) build --build-tests $(BUILD_FLAGS)
	$(SWIFT) test --skip-build $(BUILD_FLAGS)

## test: lint, every unit and end-to-end test, and a short smoke run of each fuzzer
test: lint unit-test fuzz-smoke

## fuzz: run each libFuzzer target for FUZZ_SECONDS (default 60 s)
fuzz-build: deps
	$(SWIFT) build --package-path Fuzz -c release -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library

fuzz: fuzz-build
	@mkdir -p Fuzz/logs; for f in $(FUZZERS); do \
		echo "== $$f for $(FUZZ_SECONDS) s"; mkdir -p Fuzz/corpus-$$f; \
		if $(FUZZ_BUILD)/release/$$f -max_total_time=$(FUZZ_SECONDS) -timeout=5 -print_final_stats=1 \
			Fuzz/corpus-$$f Fuzz/Seeds/$$f > Fuzz/logs/$$f.log 2>&1; then \
			grep -E '^(Done|stat::(number_of_executed_units|new_units_added|peak_rss_mb))' Fuzz/logs/$$f.log; \
		else \
			echo "$$f FAILED (full log: Fuzz/logs/$$f.log; the crashing input is saved as crash-* here):"; \
			tail -n 60 Fuzz/logs/$$f.log; exit 1; \
		fi; \
	done

fuzz-smoke:
	$(MAKE) fuzz FUZZ_SECONDS=$(FUZZ_SMOKE_SECONDS)

## itest: the transport against the real Linux Bluetooth stack in a qemu VM (see Docs/TESTING.md)
itest: deps
	Tests/Integration/vm/itest.sh

## demo: a virtual SDU sensor streaming through the GATT client (see README)
demo: build
	$(SWIFT) run -c $(CONFIG) sportsensorctl demo

clean:
	rm -rf .build Fuzz/.build

## eval: detection quality of every profile vs the baseline rules on held-out synthetic recordings
eval: deps
	$(SWIFT) build -c release --product sportsensorctl $(BUILD_FLAGS)
	.build/release/sportsensorctl eval
	.build/release/sportsensorctl bench
