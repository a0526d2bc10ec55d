# sportsensord — build, test and demo entry points.
# SPDX-License-Identifier: GPL-2.0-or-later
#
# `make demo` and `make test` are all a fresh Debian/Ubuntu machine with Swift 6 needs:
# both install the system packages they use (`make deps`) before building.

SWIFT ?= swift
CONFIG ?= debug
BUILD_FLAGS ?=
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
APT_PACKAGES := libbluetooth-dev libsqlite3-dev pkg-config systemd python3-numpy postgresql

# make install: PREFIX for the binaries and the systemd files (systemd reads units, sysusers.d and
# tmpfiles.d under /usr/local/lib as well as /usr/lib), /etc for the config; DESTDIR for staging.
PREFIX ?= /usr/local
DESTDIR ?=
BINDIR ?= $(PREFIX)/bin
UNITDIR ?= $(PREFIX)/lib/systemd/system
SYSUSERSDIR ?= $(PREFIX)/lib/sysusers.d
TMPFILESDIR ?= $(PREFIX)/lib/tmpfiles.d
SYSCONFDIR ?= /etc
DOCDIR ?= $(PREFIX)/share/doc/sportsensord
INSTALL_CONFIG ?= release
BINARIES ?= sportsensord sportsensorctl
CONFIG_EXAMPLE ?= systemd/config.example.toml
# The exposure score (x10) systemd-analyze may give the unit: 20 = 2.0, "OK".
SECURITY_THRESHOLD ?= 20
FUZZ_SECONDS ?= 60
# The smoke run in `make test` is deterministic: a fixed seed and a fixed number of runs from the
# checked-in seeds only, so CI repeats the same inputs; `make fuzz` explores for FUZZ_SECONDS.
FUZZ_SMOKE_RUNS ?= 300000
FUZZ_LIMIT ?= -max_total_time=$(FUZZ_SECONDS)
FUZZ_CORPUS ?= Fuzz/corpus-
FUZZERS := fuzz-att fuzz-ad fuzz-btsnoop fuzz-sdu fuzz-chunk
FUZZ_BUILD := Fuzz/.build

.PHONY: browser-deps browser-test
.PHONY: all deps build release test unit-test lint format fuzz fuzz-smoke fuzz-build demo demo-smoke clean eval validate bench bench-store bench-replication bench-gateway \
	install install-binaries install-check security-check itest deb deb-deps tsan

all: build

# openssl: the dashboard's HTTPS tests make a throw-away self-signed certificate with it.
APT_PACKAGES += openssl
# python3-scipy (with python3-numpy): the batch peer `sportsensor-dev bench` runs beside the detectors
# (scripts/detection-peer.py, under Debian's /usr/bin/python3).
APT_PACKAGES += python3-scipy

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

## lint: swift-format in strict mode over all Swift sources; every import declared in Package.swift
## and the target table of Docs/ARCHITECTURE.md matching it (scripts/check-imports.py)
lint:
	$(SWIFT) format lint --strict --recursive Package.swift Sources Tests Fuzz/Package.swift Fuzz/Sources \
		Benchmarks/Package.swift Benchmarks/Benchmarks
	@$(SWIFT) package dump-package > .package-dump.json && python3 scripts/check-imports.py .package-dump.json; \
		status=$$?; rm -f .package-dump.json; exit $$status

format:
	$(SWIFT) format format --in-place --recursive Package.swift Sources Tests Fuzz/Package.swift Fuzz/Sources \
		Benchmarks/Package.swift Benchmarks/Benchmarks

# The transport suites drive fake controllers whose replies must arrive within a hang timeout; run
# beside the CPU-heavy suites on a 2-core machine they can wait longer than that for a thread of
# Swift's cooperative pool; so can the link layer's (SensorLinksTests: the connection queue's
# tests poll for attempts that a pool held by the detectors' digest recordings does not start).
# The store's suites reopen a store and expect its flock to be free: a child process that another
# suite spawns at that moment holds a copy of the lock's descriptor until it execs, so recovery
# was skipped once. They run apart, after everything else (isolated, not retried).
ISOLATED_SUITES ?= BLETransportTests|SensorLinksTests|SessionStoreTests
# The two soak suites each hold about 4 000 descriptors (2 000 client ends and the server's) under
# a limit of 8 192: side by side in one process, or beside suites that spawn daemons, accept() can
# fail with EMFILE and a request time out. Each runs in a process of its own. DownloadSoakTests
# measures the daemon's memory under 30 stalled downloads of a 3-million-sample CSV: alone, so no
# other suite's daemons compete for the machine while it reads /proc/PID/status.
SOAK_SUITES ?= ControlAPISoakTests|WebDashboardSoakTests|DownloadSoakTests

unit-test: deps
	$(SWIFT) build --build-tests $(BUILD_FLAGS)
	$(SWIFT) test --skip-build $(BUILD_FLAGS) --skip '$(ISOLATED_SUITES)|$(SOAK_SUITES)'
	$(SWIFT) test --skip-build $(BUILD_FLAGS) --filter '$(ISOLATED_SUITES)'
	for suite in $(subst |, ,$(SOAK_SUITES)); do $(SWIFT) test --skip-build $(BUILD_FLAGS) --filter "$$suite" || exit 1; done

## tsan: the concurrency suites (the churn stress test, the gateway under concurrent requests, SensorLink, the
## GATT client's sink, the socket reactor) under ThreadSanitizer: the sanitizer package (Tests/Package.swift)
## builds them and only what they link, every module instrumented, in a scratch path of its own; fails on any
## report (Docs/TESTING.md). `make test` builds it beside the release build and runs it after, alone.
TSAN_SCRATCH ?= $(CURDIR)/.build-tsan
.PHONY: tsan-build
tsan-build: deps
	$(SWIFT) build --package-path Tests --build-tests --sanitize=thread --scratch-path $(TSAN_SCRATCH) $(BUILD_FLAGS)

tsan: tsan-build
	TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" $(SWIFT) test --package-path Tests --skip-build \
		--sanitize=thread --scratch-path $(TSAN_SCRATCH) $(BUILD_FLAGS)

## test: lint, the unit's security score, every unit and end-to-end test, the validation gate on the offline
## real recordings, the dashboard in a real browser, a staged install, a short smoke run of each fuzzer, and
## the package's version rules (deb-version-check), the VM stages' choice of KVM or TCG (vm-accel-check), the
## package's release build with the fuzzers' build and the deterministic checks beside it (release-builds) and
## the Debian package checked by lintian (`make deb`, last; `make itest` installs that .deb and runs the
## virtual sensors with that release build's sportsensor-dev)
test: lint security-check deb-version-check vm-accel-check unit-test browser-test demo-smoke release-builds tsan deb

## release-builds: the package's release build and, on the core it leaves idle, the fuzzers' release build,
## their smoke runs, the validation gate, the staged install and the sanitizer package's build, one after the
## other (BESIDE_RELEASE_BUILD).
## A release build is mostly one whole-module compile at a time; none of these depends on timing, and the
## suites that do ran before (Docs/TESTING.md, "CI's time"). `make deb` then finds its build done.
# ALSO_BESIDE_RELEASE_BUILD: more such steps; `.ci/run` adds itest-prepare.
BESIDE_RELEASE_BUILD := fuzz-smoke validate-offline install-check tsan-build $(ALSO_BESIDE_RELEASE_BUILD)
.PHONY: release-builds deb-build beside-release-build
release-builds: deps deb-deps
	$(MAKE) --no-print-directory -j2 --output-sync=target deb-build beside-release-build

beside-release-build:
	$(MAKE) --no-print-directory -j1 $(BESIDE_RELEASE_BUILD)

deb-build: deps
	SWIFT=$(SWIFT) BUILD_FLAGS="$(BUILD_FLAGS)" scripts/build-deb.sh --build-only

# The dashboard's browser test: Debian's chromium and chromedriver (never a downloaded browser),
# Selenium from PyPI in a venv under .build/ (SE_OFFLINE: Selenium Manager fetches nothing).
BROWSER_APT_PACKAGES := chromium chromium-driver python3-venv
BROWSER_VENV := .build/browser-venv
SELENIUM_VERSION ?= 4.51.0
SCREENSHOTS ?= Docs/screenshots

## browser-deps: chromium, chromium-driver and the Selenium venv (idempotent, quiet when present)
browser-deps:
	@missing=""; for p in $(BROWSER_APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
		echo "installing:$$missing"; \
		$(SUDO) apt-get update -qq && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	fi
	@$(BROWSER_VENV)/bin/python -c 'import selenium, sys; sys.exit(selenium.__version__ != "$(SELENIUM_VERSION)")' \
		2>/dev/null || { python3 -m venv $(BROWSER_VENV) && $(BROWSER_VENV)/bin/pip install -q selenium==$(SELENIUM_VERSION); }

## browser-test: sportsensord with virtual sensors, driven in headless Chromium (Tests/Browser);
## saves the screenshots Docs/DASHBOARD.md shows under $(SCREENSHOTS)
# The builds are skipped when the tests' build left the products current (scripts/products-current.sh).
browser-test: deps browser-deps
	@scripts/products-current.sh .build/$(CONFIG) --unstamped sportsensord sportsensorctl || { \
		$(SWIFT) build -c $(CONFIG) --product sportsensord $(BUILD_FLAGS) && \
		$(SWIFT) build -c $(CONFIG) --product sportsensorctl $(BUILD_FLAGS); }
	SE_OFFLINE=true CHROMIUM=/usr/bin/chromium CHROMEDRIVER=/usr/bin/chromedriver \
		$(BROWSER_VENV)/bin/python Tests/Browser/dashboard_test.py \
		--bin "$(CURDIR)/.build/$(CONFIG)" --screenshots "$(SCREENSHOTS)"

## demo-smoke: README's first command, briefly (3 s of tail), on the binaries the tests built
demo-smoke:
	DEMO_SECONDS=3 DEMO_WEB_PORT=0 SWIFT=$(SWIFT) CONFIG=$(CONFIG) scripts/demo.sh > .demo-smoke.log 2>&1 \
		|| { cat .demo-smoke.log; rm -f .demo-smoke.log; echo "demo-smoke: make demo failed"; exit 1; }
	@grep -q 'sportsensord exited cleanly' .demo-smoke.log && grep -qE 'end reason +stopped' .demo-smoke.log \
		&& grep -qE '^dashboard: http://127.0.0.1:[0-9]+/  login: coach' .demo-smoke.log \
		|| { cat .demo-smoke.log; rm -f .demo-smoke.log; echo "demo-smoke: the demo did not finish as expected"; exit 1; }
	@rm -f .demo-smoke.log; echo "demo-smoke: OK"

## security-check: the systemd unit's exposure score must stay at 2.0 or lower (Docs/OPERATIONS.md)
security-check: deps
	@systemd-analyze security --offline=true --threshold=$(SECURITY_THRESHOLD) systemd/sportsensord.service \
		> .security-check.log 2>&1; status=$$?; \
	grep 'Overall exposure level' .security-check.log; \
	if [ $$status -ne 0 ]; then \
		echo "systemd/sportsensord.service is rated above $(SECURITY_THRESHOLD)/10: the findings (✗):"; \
		grep '✗' .security-check.log; rm -f .security-check.log; exit 1; \
	fi; rm -f .security-check.log
	@stage=$$(mktemp -d); trap 'rm -rf "$$stage"' EXIT; \
	cat systemd/sportsensord.service systemd/dashboard-lan.conf > $$stage/sportsensord.service; \
	systemd-analyze security --offline=true --threshold=$(SECURITY_THRESHOLD) $$stage/sportsensord.service \
		> $$stage/log 2>&1 || { echo "with systemd/dashboard-lan.conf the unit is rated above $(SECURITY_THRESHOLD)/10:"; \
		grep -e '✗' -e 'Overall' $$stage/log; exit 1; }; \
	printf 'with systemd/dashboard-lan.conf: '; grep 'Overall exposure level' $$stage/log

## install: release build, then binaries, the unit, sysusers.d, tmpfiles.d, docs, and
## $(SYSCONFDIR)/sportsensord/config.toml from the example only when there is none yet
install-binaries: deps
	for product in $(BINARIES); do $(SWIFT) build -c $(INSTALL_CONFIG) --product $$product $(BUILD_FLAGS) || exit 1; done

install: install-binaries
	@test -f $(CONFIG_EXAMPLE) || { echo "$(CONFIG_EXAMPLE) is missing"; exit 1; }
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(UNITDIR) $(DESTDIR)$(SYSUSERSDIR) $(DESTDIR)$(TMPFILESDIR) \
		$(DESTDIR)$(DOCDIR) $(DESTDIR)$(SYSCONFDIR)/sportsensord
	for product in $(BINARIES); do install -m 0755 .build/$(INSTALL_CONFIG)/$$product $(DESTDIR)$(BINDIR)/ || exit 1; done
	sed -e 's|/usr/local/bin/|$(BINDIR)/|g' -e 's|/etc/sportsensord/|$(SYSCONFDIR)/sportsensord/|g' \
		-e 's|/usr/local/share/doc/sportsensord/|$(DOCDIR)/|g' systemd/sportsensord.service \
		> $(DESTDIR)$(UNITDIR)/sportsensord.service
	chmod 0644 $(DESTDIR)$(UNITDIR)/sportsensord.service
	install -m 0644 systemd/sportsensord.sysusers $(DESTDIR)$(SYSUSERSDIR)/sportsensord.conf
	sed -e 's|/etc/sportsensord|$(SYSCONFDIR)/sportsensord|g' systemd/sportsensord.tmpfiles \
		> $(DESTDIR)$(TMPFILESDIR)/sportsensord.conf
	chmod 0644 $(DESTDIR)$(TMPFILESDIR)/sportsensord.conf
	install -m 0644 Docs/OPERATIONS.md Docs/TROUBLESHOOTING.md Docs/API.md $(DESTDIR)$(DOCDIR)/
	install -m 0644 $(CONFIG_EXAMPLE) $(DESTDIR)$(DOCDIR)/config.example.toml
	install -m 0644 systemd/dashboard-lan.conf Docs/DASHBOARD.md $(DESTDIR)$(DOCDIR)/
	@if [ -e $(DESTDIR)$(SYSCONFDIR)/sportsensord/config.toml ]; then \
		echo "keeping $(DESTDIR)$(SYSCONFDIR)/sportsensord/config.toml (the new example is in $(DOCDIR))"; \
	else \
		install -m 0640 $(CONFIG_EXAMPLE) $(DESTDIR)$(SYSCONFDIR)/sportsensord/config.toml; \
	fi

## install-check: `make install` into a temporary DESTDIR (debug binaries, so it reuses the test
## build), then checks every file, the unit's paths, and that a second install keeps the config
install-check:
	@stage=$$(mktemp -d); trap 'rm -rf "$$stage"' EXIT; \
	$(MAKE) --no-print-directory install DESTDIR=$$stage INSTALL_CONFIG=debug PREFIX=/opt/sportsensord \
		SYSCONFDIR=/etc > $$stage.log 2>&1 || { cat $$stage.log; rm -f $$stage.log; exit 1; }; rm -f $$stage.log; \
	for f in $(addprefix /opt/sportsensord/bin/,$(BINARIES)) /opt/sportsensord/lib/systemd/system/sportsensord.service \
		/opt/sportsensord/lib/sysusers.d/sportsensord.conf /opt/sportsensord/lib/tmpfiles.d/sportsensord.conf \
		/opt/sportsensord/share/doc/sportsensord/OPERATIONS.md /etc/sportsensord/config.toml; do \
		test -s "$$stage$$f" || { echo "install-check: $$f was not installed"; exit 1; }; \
	done; \
	for b in $(BINARIES); do test -x "$$stage/opt/sportsensord/bin/$$b" || { echo "install-check: $$b not executable"; exit 1; }; done; \
	grep -q '^ExecStart=/opt/sportsensord/bin/sportsensord --config /etc/sportsensord/config.toml$$' \
		"$$stage/opt/sportsensord/lib/systemd/system/sportsensord.service" \
		|| { echo "install-check: ExecStart does not point at the installed binary"; exit 1; }; \
	test "$$(stat -c %a "$$stage/etc/sportsensord/config.toml")" = 640 \
		|| { echo "install-check: config.toml is not mode 0640"; exit 1; }; \
	echo "# edited by the admin" >> "$$stage/etc/sportsensord/config.toml"; \
	$(MAKE) --no-print-directory install DESTDIR=$$stage INSTALL_CONFIG=debug PREFIX=/opt/sportsensord \
		SYSCONFDIR=/etc > /dev/null 2>&1 || { echo "install-check: the second install failed"; exit 1; }; \
	grep -q '^# edited by the admin$$' "$$stage/etc/sportsensord/config.toml" \
		|| { echo "install-check: a second install overwrote the admin's config.toml"; exit 1; }; \
	systemd-analyze verify --man=no "$$stage/opt/sportsensord/lib/systemd/system/sportsensord.service" 2>&1 \
		| grep -v -e 'is not executable' -e 'bluetooth.target' | grep . && { echo "install-check: systemd-analyze verify complained"; exit 1; }; \
	echo "install-check: OK (staged in a temporary DESTDIR, config kept on reinstall)"

## deb: sportsensord_<version>_<arch>.deb here, from a release build with the Swift runtime and
## Foundation linked statically, checked by lintian (scripts/build-deb.sh; Docs/OPERATIONS.md)
DEB_APT_PACKAGES := dpkg-dev binutils lintian python3
deb-deps:
	@missing=""; for p in $(DEB_APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
		echo "installing:$$missing"; \
		$(SUDO) apt-get update -qq && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	fi

deb: deps deb-deps
	SWIFT=$(SWIFT) BUILD_FLAGS="$(BUILD_FLAGS)" scripts/build-deb.sh

## deb-version-check: the version build-deb.sh gives the package with git, with GIT_COMMIT/GIT_COUNT,
## and without git (base version, a warning naming the fix), in throw-away trees (Tests/Packaging)
.PHONY: deb-version-check
deb-version-check:
	Tests/Packaging/deb-version-test.sh

## vm-accel-check: the VM stages' choice of KVM or TCG (Tests/Integration/vm/accel.sh) on stand-ins for
## /dev/kvm and /sys/module
.PHONY: vm-accel-check
vm-accel-check:
	Tests/Integration/vm/accel-test.sh

## fuzz: run each libFuzzer target for FUZZ_SECONDS (default 60 s)
fuzz-build: deps
	$(SWIFT) build --package-path Fuzz -c release -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library

fuzz: fuzz-build
	@mkdir -p Fuzz/logs; for f in $(FUZZERS); do \
		echo "== $$f ($(FUZZ_LIMIT))"; mkdir -p $(FUZZ_CORPUS)$$f; \
		if $(FUZZ_BUILD)/release/$$f $(FUZZ_LIMIT) -timeout=5 -print_final_stats=1 \
			$(FUZZ_CORPUS)$$f Fuzz/Seeds/$$f > Fuzz/logs/$$f.log 2>&1; then \
			grep -E '^(Done|stat::(number_of_executed_units|new_units_added|peak_rss_mb))' Fuzz/logs/$$f.log; \
		else \
			echo "$$f FAILED (full log: Fuzz/logs/$$f.log; the crashing input is saved as crash-* here):"; \
			tail -n 60 Fuzz/logs/$$f.log; exit 1; \
		fi; \
	done

fuzz-smoke:
	@corpus=$$(mktemp -d); $(MAKE) --no-print-directory fuzz FUZZ_LIMIT="-runs=$(FUZZ_SMOKE_RUNS) -seed=1" \
		FUZZ_CORPUS=$$corpus/; status=$$?; rm -rf "$$corpus"; exit $$status

## itest: the transport against the real Linux Bluetooth stack in a qemu VM, then the installed
## gateway under systemd in a Debian VM (see Docs/TESTING.md; STAGES=vng or STAGES=systemd: one;
## KVM where /dev/kvm is hardware KVM, else TCG; USE_KVM=0 forces TCG, USE_KVM=1 requires KVM)
itest: deps
	Tests/Integration/vm/itest.sh

## itest-prepare: what `make itest` needs besides the project's builds: its Debian packages, virtme-ng, and the
## systemd stage's Debian image and btvirt (both cached); `.ci/run` runs it beside the package's release build
.PHONY: itest-prepare
itest-prepare: deps
	Tests/Integration/vm/itest.sh --prepare

## demo: sportsensord with three virtual sensors, a session on each, `sportsensorctl tail` for
## DEMO_SECONDS (30), then the stored sessions (scripts/demo.sh; KEEP=1 keeps its state directory)
demo: build
	SWIFT=$(SWIFT) CONFIG=$(CONFIG) scripts/demo.sh

clean:
	rm -rf .build .build-deb Fuzz/.build Benchmarks/.build

## eval: detection quality of every profile vs the baseline rules on held-out synthetic recordings
eval: deps
	$(SWIFT) build -c release --product sportsensor-dev $(BUILD_FLAGS)
	.build/release/sportsensor-dev eval
	.build/release/sportsensor-dev bench

## validate: the detectors and the baseline rules on real public recordings (Docs/VALIDATION.md): downloads
## the pinned wheels in Validation/requirements.txt (once, into VALIDATION_DIR), converts them and the offline
## sets in VALIDATION_DATA_DIR with Validation/convert.py in a venv with VALIDATION_PYTHON_PACKAGES, and
## regenerates the tables in Docs/VALIDATION.md.
.PHONY: validate-offline validate-data
VALIDATION_DIR ?= .build/validation-data
VALIDATION_VENV ?= .build/validation-venv
VALIDATION_PYTHON_PACKAGES ?= numpy==2.4.6 h5py==3.16.0
# The offline sets (tt-wrist, steps-oxford), read without a network (Docs/VALIDATION.md).
VALIDATION_DATA_DIR ?= ../shared/validation-data
validate: deps validate-data
	@dpkg -s python3-venv >/dev/null 2>&1 || { $(SUDO) apt-get update -qq && \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv; }
	[ -x $(VALIDATION_VENV)/bin/python ] || python3 -m venv $(VALIDATION_VENV)
	$(VALIDATION_VENV)/bin/python -c "import numpy, h5py" 2>/dev/null || \
		$(VALIDATION_VENV)/bin/python -m pip install -q $(VALIDATION_PYTHON_PACKAGES)
	$(VALIDATION_VENV)/bin/python -m pip download -q --no-deps --require-hashes \
		-r Validation/requirements.txt -d $(VALIDATION_DIR)/packages
	rm -rf $(VALIDATION_DIR)/converted
	$(VALIDATION_VENV)/bin/python Validation/convert.py $(VALIDATION_DIR)/packages $(VALIDATION_DIR)/converted \
		$(VALIDATION_DATA_DIR)
	$(SWIFT) build -c release --product sportsensor-dev $(BUILD_FLAGS)
	.build/release/sportsensor-dev validate --manifest $(VALIDATION_DIR)/converted/manifest.csv \
		--update Docs/VALIDATION.md

validate-data:
	@[ -d "$(VALIDATION_DATA_DIR)/tt-wrist" ] && [ -d "$(VALIDATION_DATA_DIR)/steps-oxford" ] || { \
		echo "validate: no tt-wrist/ and steps-oxford/ in VALIDATION_DATA_DIR=$(VALIDATION_DATA_DIR):" \
			"set VALIDATION_DATA_DIR to the folder that holds them (Docs/VALIDATION.md, \"Offline sets\")"; exit 66; }

## validate-offline: the offline sets only (tt-wrist, steps-oxford from VALIDATION_DATA_DIR), converted with Debian's
## python3-numpy and no network, scored by the sportsensor-dev the tests built, checked against the regression gate
## (ValidationGate); prints the tables. A step of `make test`.
validate-offline: deps validate-data
	rm -rf $(VALIDATION_DIR)/offline
	/usr/bin/python3 -B Validation/convert.py --offline $(VALIDATION_DATA_DIR) $(VALIDATION_DIR)/offline
	$(SWIFT) build -c $(CONFIG) --product sportsensor-dev $(BUILD_FLAGS)
	"$$($(SWIFT) build -c $(CONFIG) --show-bin-path)/sportsensor-dev" validate \
		--manifest $(VALIDATION_DIR)/offline/manifest.csv --gate

## bench: detector throughput, wall clock and mallocs per profile with ordo-one/benchmark (separate package in
## Benchmarks/, so the main build never compiles the benchmark machinery), then bench-store; see Docs/PERFORMANCE.md
bench: deps
	cd Benchmarks && $(SWIFT) package --disable-sandbox benchmark --target DetectionBenchmarks
	$(MAKE) --no-print-directory bench-detection
	$(MAKE) --no-print-directory bench-store
	$(MAKE) --no-print-directory bench-replication
	$(MAKE) --no-print-directory bench-gateway

## bench-detection: each detector's samples/s on one core, side by side in one run with the session summary and with
## the numpy + scipy batch peer over the same samples (scripts/detection-peer.py, Debian's python3-scipy from `deps`)
.PHONY: bench-detection
bench-detection: deps
	$(SWIFT) build -c release --product sportsensor-dev $(BUILD_FLAGS)
	.build/release/sportsensor-dev bench

## bench-replication: catch-up throughput of a 2-million-sample backlog into a throw-away local PostgreSQL
## (Docs/PERFORMANCE.md, Docs/REPLICATION.md)
bench-replication: deps
	$(SWIFT) build -c release --product sportsensor-dev $(BUILD_FLAGS)
	scripts/bench-replication.sh .build/release/sportsensor-dev

## bench-gateway: the gateway's own CPU, VmRSS, Pss and anonymous memory, allocations, disk bytes per sample and notification-to-SSE latency
## under 1-128 emulated sensors served from another process (Docs/PERFORMANCE.md, "The gateway's own cost");
## BENCH_GATEWAY_FLAGS narrows the matrix (--sensors 64 --rates 100 --subscribers 10)
BENCH_GATEWAY_DIR ?= /var/tmp
BENCH_GATEWAY_FLAGS ?=
bench-gateway: deps
	$(SWIFT) build -c release --product sportsensor-dev $(BUILD_FLAGS)
	cc -O2 -shared -fPIC -o .build/release/malloc-count.so scripts/malloc-count.c
	.build/release/sportsensor-dev bench-gateway \
		--malloc-counter $(CURDIR)/.build/release/malloc-count.so --directory $(BENCH_GATEWAY_DIR) $(BENCH_GATEWAY_FLAGS)

## bench-store: stored bytes per sample of each profile's recording beside flac -8, xz -9e and zstd -19 on the same
## samples, then disk bytes written per stored sample, 10 minutes of 1, 16 and 64 virtual sensors at 100 Hz
## (/proc/self/io write_bytes; BENCH_STORE_DIR must be on a real disk, not tmpfs)
BENCH_STORE_DIR ?= /var/tmp
BENCH_STORE_MINUTES ?= 10
# BENCH_STORE_FLAGS=--realtime: at the daemon's pace (10 minutes per sensor count, Docs/PERFORMANCE.md)
BENCH_STORE_FLAGS ?=
# The compressors bench-store measures beside the store, on the same samples (Debian's packages).
BENCH_STORE_APT_PACKAGES := flac xz-utils zstd
BENCH_STORE_PROFILES ?= table-tennis jump throw steps
BENCH_STORE_PROFILE_SAMPLES ?= 1000000
bench-store: deps
	@missing=""; for p in $(BENCH_STORE_APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
		echo "installing:$$missing"; \
		$(SUDO) apt-get update -qq && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	fi
	$(SWIFT) build -c release --product sportsensor-dev $(BUILD_FLAGS)
	@for p in $(BENCH_STORE_PROFILES); do \
		dir=$$(mktemp -d $(BENCH_STORE_DIR)/sportsensord-bench-store.XXXXXX); \
		out=$$(.build/release/sportsensor-dev bench-store --motion $$p --samples $(BENCH_STORE_PROFILE_SAMPLES) \
			--state-dir $$dir 2>&1); status=$$?; rm -rf "$$dir"; \
		echo "== $$p, seed 2026, $(BENCH_STORE_PROFILE_SAMPLES) samples, a record per 100"; \
		echo "$$out" | grep -E '^(chunk bytes|peer|Error)'; [ $$status -eq 0 ] || exit 1; \
	done
	@for n in 1 16 64; do \
		dir=$$(mktemp -d $(BENCH_STORE_DIR)/sportsensord-bench-store.XXXXXX); \
		out=$$(.build/release/sportsensor-dev bench-store --sensors $$n --minutes $(BENCH_STORE_MINUTES) \
			$(BENCH_STORE_FLAGS) --state-dir $$dir 2>&1); status=$$?; rm -rf "$$dir"; \
		echo "$$out" | grep -E '^(sensors|written|store growth|Error)'; [ $$status -eq 0 ] || exit 1; \
	done
