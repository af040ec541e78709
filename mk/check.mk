# `make check`: every step below, side by side. It runs the steps in a make of its own with -j
# (one job more than cores, or the caller's -jN): each step is a job, its output kept in
# BUILD/check/STEP.log and printed whole when it ends (tests/step), and the VMs of a step
# beyond its first take further jobs (qemu/jobslot.sh), so the cores stay busy and never
# overloaded. BUILD/check-times.txt then says each step's wall and CPU time (tests/check).
# Each run of qemu/run-scenarios has its own directory and disk images; the steps that boot
# the Debian trees wait for them ($(call after,...): in `make check` only; a step run alone
# runs alone).
# A step needs only what it runs: its prerequisites are built as soon as a job is free. Only
# the steps that take jobserver slots are `+` recipes: make passes its jobserver pipe to those
# alone (and runs them under `make -n` too).
CHECK_LOG ?=
step       = $(if $(CHECK_LOG),sh tests/step $(CHECK_LOG) $(1))
after      = $(if $(CHECK_LOG),| $(1))
PROBES    := $(foreach a,$(ARCHES),$(BUILD)/$(a)/probe-init $(BUILD)/$(a)/btrfs-subvol)
# What a step that boots scenarios needs: every binary of both arches, and the guests' programs.
BOOTS     := deps all $(PROBES)
# Listed in the order make starts them: the longest first, the scenarios of each arch (whose
# builds make starts first, on every core), the Debian trees, and the encrypted Debian system
# (a whole system booted under TCG) right after its tree: listed last, it was the run's tail
# on one core.
CHECK_STEPS := check-qemu-x86_64 check-qemu-aarch64 debian-trees-aarch64 debian-trees-x86_64 check-deb-crypt \
	check-unit check-uefi check-musl-boot check-hooks check-plan check-valgrind check-fuzz check-leaks \
	check-tpm2 check-man check-layers check-musl check-luks check-qemu-command check-hostonly check-deb \
	check-realsys check-deb-boot check-deb-lvm
# One job more than cores: a step's VM that waits (a guest that must time out, a disk being
# written) leaves its core to the spare job (at one job a core, the run used 171 % of two).
CHECK_JOBS ?= $(shell echo $$(($(NPROC) + 1)))
.PHONY: check check-steps check-qemu $(CHECK_STEPS)
check:
	+@sh tests/check $(BUILD) $(MAKE) --no-print-directory -k \
		$(if $(findstring jobserver,$(MAKEFLAGS)),,-j$(CHECK_JOBS)) CHECK_LOG=$(abspath $(BUILD))/check check-steps
check-steps: $(CHECK_STEPS)

# ---- without a VM ----
check-unit: deps $(UNIT_TESTS)
	@$(call step,unit) sh -c 'sh tests/run-unit $(UNIT_TESTS) && sh tests/unit/promise && \
		sh tests/unit/refusal-sites && sh tests/bench/run'

# The unit tests without sanitizers, under valgrind. valgrind lacks openat2: test_switchroot
# then takes the chroot fallback of old kernels.
check-valgrind: deps $(VG_TESTS)
	@$(call step,valgrind) env RUNNER="valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect" \
		sh tests/run-unit $(VG_TESTS)

# The aarch64 binaries under qemu-user, for the plan tests.
%/earlymount-user:
	@mkdir -p $(@D)
	@printf '#!/bin/sh\nexec qemu-aarch64-static "$$(dirname "$$0")/earlymount" "$$@"\n' >$@
	@chmod +x $@

# The plan tests run the native binary, then the aarch64 one under qemu-user: the same
# answers from the cross-compiled core.
check-plan: deps $(BUILD)/$(HOST_ARCH)/earlymount $(BUILD)/aarch64/earlymount $(BUILD)/aarch64/earlymount-user
	@$(call step,plan) sh -c 'sh tests/plan/run $(BUILD)/$(HOST_ARCH)/earlymount $(BUILD)/fixtures && \
		sh tests/plan/run $(BUILD)/aarch64/earlymount-user $(BUILD)/fixtures'

# The musl binaries give the same plans as the glibc ones (aarch64 under qemu-user), on
# fixtures of their own (check-plan remakes its own beside it).
check-musl: deps musl $(BUILD)/musl-aarch64/earlymount-user
	@$(call step,musl) sh -c 'sh tests/plan/run $(BUILD)/musl-x86_64/earlymount $(BUILD)/fixtures-musl && \
		sh tests/plan/run $(BUILD)/musl-aarch64/earlymount-user $(BUILD)/fixtures-musl'

# libFuzzer targets of the pure core: the corpus replayed (regression inputs included), and a
# few seconds of fuzzing per target.
check-fuzz: deps
	@$(call step,fuzz) sh tests/fuzz/run -t 5 -b $(BUILD)

# The host commands (plan, initramfs, var-uuid) under ASan, UBSan and LeakSanitizer, on the
# plan fixtures, the fuzz corpus's damaged disks and the test kernel: the shipped binary is
# static and stripped, so tests/leaks builds its own, linked dynamically.
check-leaks: deps $(call kmod_lib,$(HOST_ARCH))
	@$(call step,leaks) env KMOD_ROOT=$(KMOD_ROOT) sh tests/leaks -b $(BUILD)

# earlymount-luks's TPM2 client against a software TPM, with tokens that the host's
# systemd-cryptenroll enrolls (seconds, no QEMU): unsealing, PINs, changed PCRs, hostile tokens.
check-tpm2: deps $(TPM2_TOOL)
	@$(call step,tpm2) sh tests/tpm2/run $(TPM2_TOOL)

# The man page renders without a warning, and documents every key the parser knows.
check-man: deps $(UNIT_DIR)/test_manpage
	@$(call step,man) sh tests/man $(UNIT_DIR)/test_manpage

# The layer rule (README, Layout), read from the objects' symbols; its selftest; the layout.
check-layers: deps all
	@$(call step,layers) sh -c 'sh tests/layers/check -b $(BUILD) -a $(HOST_ARCH) && \
		sh tests/layers/selftest -b $(BUILD) && sh tests/layers/layout README.md'

# The packages build lintian-clean, and the host's installs and removes cleanly (tests/deb).
check-deb: deb
	@$(call step,deb) sh tests/deb/install $(BUILD)

# ---- in QEMU ----
# Every scenario of qemu/scenarios on both arches, an arch a step, two VMs at a time each.
check-qemu: $(foreach a,$(ARCHES),check-qemu-$(a))
$(foreach a,$(ARCHES),check-qemu-$(a)): check-qemu-%: $(BOOTS)
	+@$(call step,qemu-$*) env QEMU_ARCHES=$* QEMU_RUN_DIR=$(BUILD)/qemu/run-$* sh qemu/run-scenarios $(BUILD)

# UEFI boots (OVMF / AAVMF + systemd-boot).
check-uefi: $(BOOTS)
	+@$(call step,uefi) env QEMU_UEFI=only sh qemu/run-scenarios $(BUILD)

# The musl binaries as /init, booted on both arches: one scenario per path where the C
# library is what runs — discovery with libblkid and libkmod's zstd modules, every DPS mount
# point with the machine-ID /var, a pinned root, version order, the refusal and its wait,
# overlayfs (two boots), dm-verity's ioctls, fsck children, the rd.break shell. The LUKS
# scenarios stay glibc-only: the helper is a glibc binary either way.
MUSL_BOOT_SCENARIOS ?= dps-root dps-full root-partuuid versioned-roots two-disks \
	volatile-overlay verity-root fsck-var rd-break
check-musl-boot: $(BOOTS) musl
	+@$(call step,musl-boot) env QEMU_LIBC=musl sh qemu/run-scenarios $(BUILD) $(MUSL_BOOT_SCENARIOS)

# The LUKS decision the hooks share on fake hosts (with dash and bash), the mkinitcpio hook
# in a harness of mkinitcpio's hook API, `make install` into a scratch DESTDIR, then images
# from Debian's dracut and initramfs-tools booted against the DPS and LUKS scenarios on both
# arches.
check-hooks: $(BOOTS)
	+@$(call step,hooks) sh -c 'sh tests/hooks/luks dash && sh tests/hooks/luks bash && \
		bash tests/hooks/mkinitcpio && sh tests/hooks/install $(BUILD) && sh qemu/generators $(BUILD)'

# earlymount-luks on real LUKS2 images, in QEMU on both arches.
check-luks: $(BOOTS)
	@$(call step,luks) sh tests/luks/run $(BUILD)

# `earlymount qemu` on both arches: an image, a directory as the root, a failed boot.
check-qemu-command: $(BOOTS)
	@$(call step,qemu-command) sh tests/qemu-command/run $(BUILD)

# `earlymount initramfs --host-only`: on a fake sysfs, then built by a guest from its own
# sysfs and booted (both arches).
check-hostonly: $(BOOTS)
	@$(call step,hostonly) sh tests/hostonly/run $(BUILD)

# ---- real systems: Debian with systemd, and busybox init ----
# The Debian trees (qemu/debian-rootfs, cached in $(BUILD)/debian per recipe) take minutes to
# make on a clean clone, arm64's under qemu-user the most: one step an arch, every flavour a
# step boots on it, started first.
DEB_BOOT_ARCHES ?= $(ARCHES)
debian_flavours = $(if $(filter $(1),$(or $(QEMU_ARCHES),$(ARCHES))),default) \
	$(if $(filter $(1),$(DEB_BOOT_ARCHES)),kernel) $(if $(filter $(1),$(HOST_ARCH)),dracut lvm crypt)
.PHONY: $(foreach a,$(ARCHES),debian-trees-$(a))
$(foreach a,$(ARCHES),debian-trees-$(a)): debian-trees-%: deps
	@$(call step,debian-trees-$*) sh -c 'for f in $(call debian_flavours,$*); do \
		if [ $$f = default ]; then sh qemu/debian-rootfs $(BUILD) $*; \
		else sh qemu/debian-rootfs --flavour $$f $(BUILD) $*; fi || exit 1; done'

# Real systems booted through earlymount (tests/realsys/run, root). REALSYS="busybox" or
# "debian" narrows it; QEMU_ARCHES too.
REALSYS ?= busybox debian
check-realsys: $(BOOTS) $(call after,$(foreach a,$(ARCHES),debian-trees-$(a)))
	+@$(call step,realsys) sh tests/realsys/run $(BUILD) $(REALSYS)

# The installed path: the .deb in a Debian system whose own generator (initramfs-tools,
# dracut) makes the image that boots it, and taken out again (tests/deb/boot). The foreign
# arch gets initramfs-tools only (tests/deb/boot says why).
check-deb-boot: deb $(call after,$(foreach a,$(DEB_BOOT_ARCHES),debian-trees-$(a)))
	@$(call step,deb-boot) sh tests/deb/boot $(BUILD) $(DEB_BOOT_ARCHES)

# A Debian system installed on LVM (/boot, then vg0/root on a physical volume) turns
# earlymount on with its own update-initramfs, and boots through it to `running` (x86-64;
# tests/deb/lvm-boot).
check-deb-lvm: deb $(call after,debian-trees-$(HOST_ARCH))
	@$(call step,deb-lvm) sh tests/deb/lvm-boot $(BUILD)

# A Debian system on the installer's encrypted LVM layout (ESP, /boot, vda3_crypt holding
# debian-vg/root and swap_1, its crypttab, no rd.luks on the command line) boots through
# cryptroot, turns earlymount on with its own update-initramfs, and boots through it to
# `running`, asked the passphrase once (x86-64; tests/deb/crypt-boot).
check-deb-crypt: deb $(BUILD)/$(HOST_ARCH)/btrfs-subvol $(call after,debian-trees-$(HOST_ARCH))
	@$(call step,deb-crypt) sh tests/deb/crypt-boot $(BUILD)
