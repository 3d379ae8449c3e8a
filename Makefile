# uaccess-lab: the README's two commands.
#   make run    install what is missing, build what is not cached, run the
#               default sweep, print its table and the report path
#   make test   the test suite (what CI runs)
PYTHON ?= python3

# Debian 12 packages the project needs; `make deps` installs the missing ones.
APT_PACKAGES := linux-source-6.1 qemu-system-x86 qemu-system-arm \
	gcc make libc6-dev gcc-aarch64-linux-gnu libc6-dev-arm64-cross \
	flex bison bc libelf-dev libssl-dev patch xz-utils e2fsprogs cpio \
	python3 python3-pytest python3-matplotlib python3-sklearn mkdocs git \
	slurm-wlm munge \
	rsync file unzip dpkg-dev fakeroot \
	autoconf automake autopoint

.PHONY: run test deps benchmark docs
run: deps
	$(PYTHON) run.py sweep configs/sweeps/default.toml

test: deps
	$(PYTHON) -m pytest -q tests

benchmark: deps
	$(PYTHON) tests/benchmark.py

# The site (Guide, Tutorial, Results, Scorecard, Reference) as HTML in
# results/docs-site/: the tutorial's sweep (cached points cost nothing)
# and its figures, the pages that are tables of docs/data, then mkdocs.
docs: deps
	$(PYTHON) run.py sweep configs/sweeps/teaching.toml
	$(PYTHON) docs/figures.py
	$(PYTHON) docs/figures.py --gem5
	$(PYTHON) docs/generate.py
	$(PYTHON) -m mkdocs build -q -f mkdocs.yml
	@echo "site: results/docs-site/index.html"

# Idempotent: installs nothing when everything is there. Uses sudo only
# when not root.
deps:
	@missing=""; for p in $(APT_PACKAGES); do \
		dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "ok installed" \
			|| missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
		echo "installing:$$missing"; \
		SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
		$$SUDO apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends $$missing; \
	fi
	@# A Python other than Debian's (pyenv, a venv) gets the same modules
	@# from PyPI.
	@$(PYTHON) -c "import pytest, matplotlib, sklearn, mkdocs" 2>/dev/null || \
		$(PYTHON) -m pip install -q pytest matplotlib scikit-learn mkdocs
