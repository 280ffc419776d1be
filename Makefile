# fs-verity (2018 RFC design) for Debian's linux-source-6.1: build and test.
# See README.md.  The two commands: 'make demo' and 'make check'.

SHELL := /bin/bash
FLAVOR ?= test
export FLAVOR KSRC VTEST_FILTER VTEST_TIMEOUT VTEST_GROUP_TIMEOUT VTEST_HUNG_TASK_SECS VTEST_MEM VTEST_ACCEL CHECK_ALL VFUZZ_CASES

S := scripts

PHONY_TARGETS := all deps tree patch kernel initramfs host-test boot selftest check \
	checkpatch kernel-doc step-checks bisect coexist distro-build lowmem modes crash i386 debug \
	coverage demo bench shell devtree export rebase-check list-tests clean distclean help
.PHONY: $(PHONY_TARGETS)

all: check

# Every target has a '## ' description on its rule line: 'make help' lists
# them, and names any target of .PHONY that lacks one.
help: ## list the targets, one line each
	@awk -F ':.*## ' '/^[a-z0-9-]+:.*## / { printf "  make %-13s %s\n", $$1, $$2 }' $(firstword $(MAKEFILE_LIST))
	@for t in $(filter-out all,$(PHONY_TARGETS)); do \
		grep -q "^$$t:.*## " $(firstword $(MAKEFILE_LIST)) || echo "  make $$t (no description: add one to the Makefile)"; \
	done

deps: ## install the Debian packages the project uses (as root)
	@$(S)/deps.sh

tree: deps ## extract the pristine kernel tree into build/pristine
	@$(S)/tree.sh

patch: tree ## apply patches/series to build/linux (no fuzz; offsets are warned about)
	@$(S)/patch.sh

kernel: patch ## build the test kernel (FLAVOR=debug: the debug one; FLAVOR=i386: 32-bit)
	@$(S)/kernel.sh

initramfs: deps ## build build/initramfs.cpio.gz (busybox, tools, the suite)
	@$(S)/initramfs.sh

host-test: deps ## the utility's host tests
	@tests/host/run.sh

# Boot the kernel already built, with a fresh initramfs (no kernel build).
boot: initramfs ## boot the kernel already built and run the suite (no kernel build)
	@$(S)/boot.sh test

checkpatch: tree ## checkpatch --strict over every patch
	@$(S)/checkpatch.sh

kernel-doc: patch ## kernel-doc over fs/verity and include/linux/fsverity.h
	@$(S)/kerneldoc.sh

step-checks: tree ## after each patch: no undefined Kconfig symbol, no feature advertised early
	@$(S)/step-checks.sh

# Every patch of the series builds (no new warning); so do the config variants.
# The test kernel: the cross-kernel boots at its end (make coexist) use it.
bisect: kernel initramfs ## build after each patch and the config variants; boot the last; the cross-kernel boots
	@$(S)/bisect.sh

# Verity files made by one kernel, met by another: the pristine kernel and
# the no-glue variant that make bisect builds, and the test kernel.
coexist: kernel initramfs ## cross-kernel boots: 5.4-format and 2018-format verity files met by the other kernel
	@$(S)/coexist.sh

# The directories the series touches, built with Debian's kernel config.
distro-build: patch ## build the touched directories with Debian's config, against the pristine tree
	@$(S)/distro-build.sh

# The core groups in 128 MiB guests; crash consistency of ENABLE.
lowmem: kernel initramfs ## the core groups in guests of 128 MiB
	@$(S)/lowmem.sh

# The core groups again in the mount modes users run (ext4 data=journal,
# data=writeback, nodelalloc, no journal; f2fs compression, no inline data).
modes: kernel initramfs ## the core groups in ext4's and f2fs's other mount modes
	@$(S)/modes.sh

crash: kernel initramfs ## crash consistency of ENABLE: kill the guest, check on the next boot
	@$(S)/crash.sh

# FLAVOR=i386: builds its own kernel and initramfs (build/obj-i386).
i386: patch deps ## build the i386 kernel (highmem) and initramfs, boot the core groups
	@$(S)/i386.sh

# FLAVOR=debug: builds its own kernel (build/obj-debug).
debug: patch initramfs ## build the debug kernel (KASAN, UBSAN, lockdep, kmemleak...), boot the core groups
	@$(S)/debug.sh

selftest: kernel initramfs ## boot deliberately broken runs: the harness must reject each
	@$(S)/selftest.sh

# CHECK_ALL=1 adds distro-build, lowmem, crash, i386, debug, coverage and bisect (CI does).
check: kernel initramfs ## host tests, review checks, self-test, the suite in QEMU (CHECK_ALL=1: all)
	@$(S)/check.sh

# gcov on fs/verity and the ext4/f2fs files of the series (FLAVOR=coverage,
# its own kernel build), the suite, then build/coverage/index.html and
# summary.txt; fails on a goal NOT met (but for an fs/verity lines goal out
# of reach), or a line of fs/verity neither run nor listed in
# tests/coverage-exempt.txt (error exits) or tests/coverage-unreached.txt.
coverage: patch initramfs ## line and branch coverage of the suite (gcov, lcov): build/coverage/
	@$(S)/coverage.sh

demo: kernel initramfs ## boot the fs-verity walk-through, which checks what it shows
	@$(S)/boot.sh demo

# The benchmark: one VM boot in vtest.mode=bench, the host-side setup
# benchmark, then build/bench/results.md, the PNG plots and the goals.
bench: kernel initramfs ## the benchmark: one VM boot, results in build/bench/; fails on a goal NOT met
	@$(S)/bench.sh

shell: kernel initramfs ## an interactive shell in the guest, scratch disks attached
	@$(S)/boot.sh shell

devtree: patch ## build/devtree: the pristine tree with the series as git commits
	@$(S)/devtree.sh

export: ## regenerate patches/ from build/devtree and record BASE_VERSION
	@$(S)/export.sh

# The suite's test IDs and names, from tests/vm/run's list mode (no boot).
list-tests: ## list every test of the suite, ID and name, per filesystem (no boot)
	@$(S)/list-tests.sh

# The series on every linux-source-6.1 version the archive offers (not part
# of make check: it downloads the packages).
rebase-check: ## how each patch applies to every linux-source-6.1 version the archive offers
	@$(S)/rebase-check.sh

clean: ## remove the build output
	rm -rf build/obj-* build/coverage build/initramfs* build/disks build/logs build/tools build/tools-i386 \
		build/vm-helpers build/vm-helpers-i386 build/i386-root build/kvm-probe.* build/linux.patchwork
	$(MAKE) -s -C tools clean
	[ ! -f tests/vm/helpers/Makefile ] || $(MAKE) -s -C tests/vm/helpers clean

distclean: ## remove the whole build/ folder
	rm -rf build
	$(MAKE) -s -C tools clean
	[ ! -f tests/vm/helpers/Makefile ] || $(MAKE) -s -C tests/vm/helpers clean
