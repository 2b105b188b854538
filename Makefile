# SPDX-License-Identifier: GPL-2.0
#
# The human front end of Kbuild (the module's objects are listed in Kbuild).
#
#   make                  build nvsvm.ko and nvsvm_vgpu.ko (W=1) against KDIR
#   make module-debug     the same with -DDEBUG (pr_debug on)
#   make check            deps, static checks, DKMS build, tests on two kernels
#   make demo             the demo in the test VM
#   make bench            the benchmarks (tools/bench/), not part of make check
#   make cts              the Khronos CTS binaries in full in the VM (CTS="test_x ...")
#   make help             every target

SHELL := /bin/bash

# The running kernel's build directory when it exists, otherwise the
# newest one installed (the machines here run a kernel without modules)
# (tools/scripts/kdir.sh). Targets that install the headers first (demo)
# look it up again in a sub-make, after `make deps`.
KDIR ?= $(shell $(CURDIR)/tools/scripts/kdir.sh 2>/dev/null)
KVER = $(shell sed -n 's/^\#define UTS_RELEASE "\(.*\)"$$/\1/p' \
	$(KDIR)/include/generated/utsrelease.h 2>/dev/null)
VERSION = $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' $(CURDIR)/dkms.conf)
W ?= 1
DESTDIR ?=

# Set STRICT=1 to make compiler warnings fail the build, as make check does.
STRICT ?=

# A compiler or sparse diagnostic ("file.c:12:5: warning: ..."), or modpost's.
DIAGNOSTIC := ^[^ :]+:[0-9]+(:[0-9]+)?: (warning|error):|^(WARNING|ERROR): modpost:

all: module
.PHONY: all module module-debug clean module-install dkms-install install \
	uninstall deps style sparse tests check demo bench debug-kernel \
	vm-stock vm-debug help demo-run pyopencl cts

define kbuild
	@mkdir -p $(CURDIR)/build
	+@set -o pipefail; $(MAKE) -C "$(KDIR)" M=$(CURDIR) W=$(W) $(1) modules 2>&1 \
		| tee $(CURDIR)/build/module.log
	@n=$$(grep -c -E '$(DIAGNOSTIC)' $(CURDIR)/build/module.log || true); \
	if [ "$$n" != 0 ]; then \
		echo "*** $$n compiler warning lines: nvsvm must build without any (W=$(W))"; \
		[ -z "$(STRICT)" ] || exit 1; \
	else \
		echo "module: built against $(KDIR) with W=$(W), no warnings"; \
	fi
endef

module:
	@[ -d "$(KDIR)" ] || { echo "no kernel build directory (KDIR=$(KDIR)); try 'make deps'"; exit 1; }
	$(call kbuild,)

module-debug:
	$(call kbuild,CONFIG_NVSVM_DEBUG=y)

clean:
	@if [ -d "$(KDIR)" ]; then $(MAKE) -C "$(KDIR)" M=$(CURDIR) clean; fi
	rm -rf $(CURDIR)/build

module-install:
	$(MAKE) -C "$(KDIR)" M=$(CURDIR) modules_install
	depmod -a $(KVER)

# Copy the sources where DKMS expects them and register them; then
# `dkms build nvsvm/$(VERSION)` and `dkms install nvsvm/$(VERSION)`.
dkms-install:
	install -d $(DESTDIR)/usr/src/nvsvm-$(VERSION)
	install -m 0644 Kbuild Makefile dkms.conf $(DESTDIR)/usr/src/nvsvm-$(VERSION)/
	cp -r src include uapi $(DESTDIR)/usr/src/nvsvm-$(VERSION)/
	@if [ -z "$(DESTDIR)" ]; then dkms add nvsvm/$(VERSION); fi

# The modules into /lib/modules/KVER/extra, and the user space (tools/Makefile).
install: module module-install
	$(MAKE) -C tools install

uninstall:
	rm -f $(DESTDIR)/lib/modules/$(KVER)/extra/nvsvm.ko \
		$(DESTDIR)/lib/modules/$(KVER)/extra/nvsvm_vgpu.ko
	@if [ -z "$(DESTDIR)" ]; then depmod -a $(KVER); fi
	$(MAKE) -C tools uninstall

deps:
	@tools/scripts/deps.sh

style:
	@tools/scripts/style.sh
	@tools/scripts/layers.sh --self-test

sparse:
	@tools/scripts/build-modules.sh "$(KDIR)" build/sparse C=2 \
		&& echo "sparse: C=2 clean against $(KDIR)"

tests:
	@$(MAKE) --no-print-directory -C tests

debug-kernel:
	@tools/scripts/build-debug-kernel.sh

# One VM run on one kernel, for development; `make check` runs both.
vm-stock vm-debug:
	@tools/scripts/check.sh --only $(@:vm-%=%)

check:
	@tools/scripts/check.sh

# The demo program in the test VM on the stock kernel (tools/demo/).
# deps first, then the rest in a sub-make: KDIR and KVER are looked up
# there, once the headers exist.
demo:
	@tools/scripts/deps.sh --for demo
	@$(MAKE) --no-print-directory demo-run

demo-run:
	@[ -d "$(KDIR)" ] || { echo "demo: no kernel headers (KDIR=$(KDIR)); run 'make deps' as root"; exit 1; }
	@echo "demo: building nvsvm against $(KDIR)"
	@tools/scripts/build-modules.sh "$(KDIR)" build/stock
	@$(MAKE) --no-print-directory -C tools static >build/stock/tools.log 2>&1 || \
		{ cat build/stock/tools.log; echo "demo: building the static demo programs failed"; exit 1; }
	@tools/demo/run-demo.sh --kver $(KVER) \
		--module build/stock/nvsvm.ko --module build/stock/nvsvm_vgpu.ko

# pyopencl 2022.3.1's tests against the ICD in the VM on the stock kernel
# (tools/scripts/pyopencl-check.sh); not part of make check. POCL=1 also
# runs them on pocl's CPU device on the host, the reference.
pyopencl:
	@tools/scripts/pyopencl-check.sh $(if $(POCL),--pocl)

# The issue 8 benchmarks beside lib/test_hmm.ko, in the VM on a non-debug
# kernel (tools/bench/run-bench.sh); not part of make check.
# REPS=N, SIZES="64 256", WORK=LETTERS, PREFETCH=PERCENT, PROFILE_WORK=LETTERS
# and PROFILE_SIZE=MIB override the defaults; CL_SCALE=N sizes the OpenCL
# C workloads run beside pocl (0: none); OVERSUB=MIB is the VRAM of the
# oversubscription pass (default 16; 0: none); M73=0 leaves out the pass of m
# on the 7.3 bench kernel.
bench:
	@NVSVM_BENCH_REPS="$(REPS)" NVSVM_BENCH_SIZES="$(SIZES)" \
		NVSVM_BENCH_WORK="$(WORK)" NVSVM_BENCH_PREFETCH="$(PREFETCH)" \
		NVSVM_BENCH_PROFILE_WORK="$(PROFILE_WORK)" \
		NVSVM_BENCH_PROFILE_SIZE="$(PROFILE_SIZE)" \
		NVSVM_BENCH_CL_SCALE="$(CL_SCALE)" \
		NVSVM_BENCH_OVERSUB="$(OVERSUB)" NVSVM_BENCH_M73="$(M73)" \
		tools/bench/run-bench.sh

# The Khronos OpenCL CTS binaries in full, every subtest, in the stock VM
# (tools/scripts/cts-check.sh); make check runs subsets. CTS="test_basic
# test_buffers" runs only those; not part of make check.
cts:
	@tools/scripts/cts-check.sh $(CTS)

help:
	@echo "module (default)  build nvsvm.ko and nvsvm_vgpu.ko against KDIR=$(KDIR)"
	@echo "module-debug      the same with -DDEBUG"
	@echo "clean             remove build products"
	@echo "module-install    install into /lib/modules/$(KVER) and run depmod"
	@echo "dkms-install      copy the sources to /usr/src/nvsvm-$(VERSION) and dkms add"
	@echo "deps              install the Debian packages everything needs (root)"
	@echo "style             checkpatch.pl --strict on src/ include/ uapi/, and the layering check"
	@echo "sparse            sparse (C=2) with zero warnings"
	@echo "tests             build the test programs into build/tests/"
	@echo "debug-kernel      build (or reuse) the cached debug kernel"
	@echo "vm-stock vm-debug build and run the tests in QEMU on one kernel"
	@echo "check             everything above, in order, with a final count"
	@echo "install uninstall the modules (module-install) and tools/ (make -C tools install)"
	@echo "demo              the demo program in the test VM on the stock kernel"
	@echo "pyopencl          pyopencl's tests against the ICD in the VM (POCL=1: and on pocl)"
	@echo "bench             benchmarks vs lib/test_hmm.ko in the VM: build/bench/results.json, .png"
	@echo "cts               the Khronos CTS binaries in full in the VM (CTS=\"test_basic ...\")"
