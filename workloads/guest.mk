# How every static program of the simulated machines is compiled: the
# workloads (workloads/Makefile) and init (buildroot/init/Makefile).
#   ARCH=x86_64|arm64 picks the compiler; CC= on the command line
#   overrides it. OUT defaults to build/<arch> (relative to the folder
#   the including makefile runs in).

ARCH ?= x86_64

ifeq ($(ARCH),x86_64)
DEFAULT_CC := gcc
else ifeq ($(ARCH),arm64)
DEFAULT_CC := aarch64-linux-gnu-gcc
else
$(error ARCH must be x86_64 or arm64, not '$(ARCH)')
endif

# Only an explicit CC= on the command line (or in a makefile) overrides the
# per-arch compiler: a CC exported in the environment is usually the host
# compiler and would silently produce binaries for the wrong machine.
ifneq ($(filter default environment undefined,$(origin CC)),)
CC := $(DEFAULT_CC)
endif

OUT ?= build/$(ARCH)

# No timestamps or host paths end up in the binaries (-g0, no __DATE__),
# so the same sources and compiler give the same bytes.
GUEST_CFLAGS := -O2 -g0 -static -Wall -Wextra -Werror -std=gnu11
