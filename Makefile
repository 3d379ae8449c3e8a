# uaccess-lab: the README's two commands.
#   make run    install what is missing, build what is not cached, run the
#               default sweep, print its table and the report path
#   make test   the test suite (what CI runs; with gem5 built, its smoke set)
#   make test-gem5  every gem5 test (hours), on GEM5_HOME or the default home
PYTHON ?= python3

# The Linux source at the pinned version (kernels/source-pin.toml: the one
# every published record was built from), whatever apt would pick itself.
LINUX_SOURCE_VERSION := $(shell sed -n 's/^version = "\(.*\)"/\1/p' kernels/source-pin.toml)

# Debian 12 packages the project needs; `make deps` installs the missing ones.
# (chromium: tests/test_site.py lays the built site out in it, at 1280 px.)
APT_PACKAGES := qemu-system-x86 qemu-system-arm \
	gcc make libc6-dev gcc-aarch64-linux-gnu libc6-dev-arm64-cross \
	flex bison bc libelf-dev libssl-dev patch xz-utils e2fsprogs cpio \
	python3 python3-pip python3-pytest python3-matplotlib python3-sklearn python3-rich git \
	slurm-wlm munge \
	rsync file unzip dpkg-dev fakeroot \
	autoconf automake autopoint ccache \
	chromium

.PHONY: run test test-gem5 deps benchmark docs serve
run: deps
	$(PYTHON) run.py sweep configs/sweeps/default.toml

test: deps
	$(PYTHON) -m pytest -q --durations=25 tests

# Every test that runs real gem5 (marker gem5: the smoke set that `make
# test` runs too, and the long tests, hours of gem5), on GEM5_HOME or else
# on the gem5 that './run.py gem5 setup' built at its default home.
GEM5_DEFAULT_HOME = $(shell $(PYTHON) -c "from configs.gem5 import locate; print(locate.default_home())" 2>/dev/null)
test-gem5: deps
	@[ -n "$$GEM5_HOME" ] || [ -f "$(GEM5_DEFAULT_HOME)/src/base/version.cc" ] || { \
		echo "make test-gem5: no gem5 at $(GEM5_DEFAULT_HOME) and GEM5_HOME unset: build" \
			"one with './run.py gem5 setup', or set GEM5_HOME to a built gem5 tree" >&2; exit 2; }
	GEM5_HOME="$${GEM5_HOME:-$(GEM5_DEFAULT_HOME)}" $(PYTHON) -m pytest -q -rs --durations=25 -m gem5 tests

benchmark: deps
	$(PYTHON) tests/benchmark.py

# The site (Guide, Tutorial, Results, Scorecard, Reference) as HTML in
# results/docs-site/, from the published records in docs/data alone: no
# simulation, no store, and nothing installed but what the site needs
# (matplotlib, and mkdocs >= 1.5 from pip: Debian 12's mkdocs 1.4.2 cannot
# read mkdocs.yml). Every figure (docs/figures.py), the pages that are
# tables (docs/generate.py), then a strict build: a missing image or page
# fails it. Open results/docs-site/index.html, or `make serve`.
DOCS_READY = $(PYTHON) -c "import matplotlib, mkdocs, sys; \
	sys.exit(tuple(map(int, mkdocs.__version__.split('.')[:2])) < (1, 5))" 2>/dev/null
docs:
	@$(DOCS_READY) || { \
		$(PYTHON) -m pip --version >/dev/null 2>&1 || { \
			echo "installing: python3-pip (to install mkdocs >= 1.5)"; \
			SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
			$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
				$$SUDO apt-get install -y -qq --no-install-recommends python3-pip; }; \
		echo "installing: mkdocs >= 1.5 and matplotlib, from PyPI"; \
		PIP_BREAK_SYSTEM_PACKAGES=1 $(PYTHON) -m pip install -q "mkdocs>=1.5" matplotlib; }
	@$(DOCS_READY) || { echo "make docs: $(PYTHON) has no mkdocs >= 1.5 and matplotlib" \
		"after installing them: $(PYTHON) -m pip install 'mkdocs>=1.5' matplotlib" >&2; exit 1; }
	$(PYTHON) docs/figures.py --all
	$(PYTHON) docs/generate.py
	$(PYTHON) -m mkdocs build --strict -f mkdocs.yml
	@echo "site: results/docs-site/index.html (mkdocs $$($(PYTHON) -c 'import mkdocs; print(mkdocs.__version__)'))"

# The built site over HTTP (what opening it from disk cannot do: the
# search box), on http://127.0.0.1:$${PORT:-8000}/; Ctrl-C stops it.
serve: docs
	@echo "serving results/docs-site on http://127.0.0.1:$${PORT:-8000}/ (Ctrl-C stops)"
	@$(PYTHON) -m http.server --bind 127.0.0.1 --directory results/docs-site $${PORT:-8000}

# Idempotent: installs nothing when everything is there. Uses sudo only
# when not root.
deps:
	@missing=""; for p in $(APT_PACKAGES); do \
		dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "ok installed" \
			|| missing="$$missing $$p"; \
	done; \
	[ "$$(dpkg-query -W -f='$${Status} $${Version}' linux-source-6.1 2>/dev/null)" = \
		"install ok installed $(LINUX_SOURCE_VERSION)" ] \
		|| missing="$$missing linux-source-6.1=$(LINUX_SOURCE_VERSION)"; \
	if [ -n "$$missing" ]; then \
		echo "installing:$$missing"; \
		SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
		$$SUDO apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends \
			--allow-downgrades $$missing || { \
		case "$$missing" in *linux-source-6.1=*) \
			apt-cache madison linux-source-6.1 | grep -qF " $(LINUX_SOURCE_VERSION) " || { \
			echo "make deps: apt cannot serve linux-source-6.1 $(LINUX_SOURCE_VERSION), the" \
				"version every published record was built from: add a Debian source that" \
				"has it (bookworm-security), or move the pin with './run.py" \
				"pin-kernel-source' and re-publish" >&2; exit 2; };; esac; exit 1; }; \
	fi
	@# A Python other than Debian's (pyenv, a venv) gets the same modules
	@# from PyPI; so does mkdocs everywhere (Debian 12's 1.4.2 cannot build
	@# the site strictly: make docs needs 1.5 or later).
	@$(PYTHON) -c "import pytest, matplotlib, sklearn, rich" 2>/dev/null || \
		PIP_BREAK_SYSTEM_PACKAGES=1 $(PYTHON) -m pip install -q pytest matplotlib scikit-learn rich
	@$(DOCS_READY) || PIP_BREAK_SYSTEM_PACKAGES=1 $(PYTHON) -m pip install -q "mkdocs>=1.5"
	@# playwright (PyPI's; Debian 12 packages none) drives Debian's chromium
	@# for tests/test_site.py: its own browser download is never run.
	@$(PYTHON) -c "import playwright" 2>/dev/null || \
		PIP_BREAK_SYSTEM_PACKAGES=1 $(PYTHON) -m pip install -q playwright
