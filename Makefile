# fs-verity (2018 RFC design) for Debian's linux-source-6.1: build and test.
# See README.md.  The two commands: 'make demo' and 'make check'.

SHELL := /bin/bash
FLAVOR ?= test
export FLAVOR KSRC VTEST_FILTER VTEST_TIMEOUT VTEST_GROUP_TIMEOUT VTEST_HUNG_TASK_SECS VTEST_MEM VTEST_ACCEL CHECK_ALL VFUZZ_CASES

S := scripts

.PHONY: all deps tree patch kernel initramfs host-test boot selftest check \
	checkpatch kernel-doc bisect distro-build lowmem crash \
	demo bench shell devtree export clean distclean help

all: check

help:
	@sed -n 's/^## //p' README.md

deps:
	@$(S)/deps.sh

tree: deps
	@$(S)/tree.sh

patch: tree
	@$(S)/patch.sh

kernel: patch
	@$(S)/kernel.sh

initramfs: deps
	@$(S)/initramfs.sh

host-test: deps
	@tests/host/run.sh

# Boot the kernel already built, with a fresh initramfs (no kernel build).
boot: initramfs
	@$(S)/boot.sh test

checkpatch: tree
	@$(S)/checkpatch.sh

kernel-doc: patch
	@$(S)/kerneldoc.sh

# Every patch of the series builds (no new warning); so do the config variants.
bisect: tree initramfs
	@$(S)/bisect.sh

# The directories the series touches, built with Debian's kernel config.
distro-build: patch
	@$(S)/distro-build.sh

# The core groups in 128 MiB guests; crash consistency of ENABLE.
lowmem: kernel initramfs
	@$(S)/lowmem.sh

crash: kernel initramfs
	@$(S)/crash.sh

selftest: kernel initramfs
	@$(S)/selftest.sh

# CHECK_ALL=1 adds distro-build, smp-stress, lowmem, crash and bisect (CI does).
check: kernel initramfs
	@$(S)/check.sh

demo: kernel initramfs
	@$(S)/boot.sh demo

# The benchmark of issue #9: one VM boot in vtest.mode=bench, the host-side
# setup benchmark, then build/bench/results.md and the PNG plots.
bench: kernel initramfs
	@$(S)/bench.sh

shell: kernel initramfs
	@$(S)/boot.sh shell

devtree: patch
	@$(S)/devtree.sh

export:
	@$(S)/export.sh

clean:
	rm -rf build/obj-* build/initramfs* build/disks build/logs build/tools \
		build/vm-helpers build/kvm-probe.* build/linux.patchwork
	$(MAKE) -s -C tools clean
	[ ! -f tests/vm/helpers/Makefile ] || $(MAKE) -s -C tests/vm/helpers clean

distclean:
	rm -rf build
	$(MAKE) -s -C tools clean
	[ ! -f tests/vm/helpers/Makefile ] || $(MAKE) -s -C tests/vm/helpers clean
