# earlymount — static PID-1 helper for initramfs images. `make help` lists what to run.
# This file holds what every part shares (arches, toolchains, flags, the layers and their
# sources) and the targets a person runs; each concern has a fragment of its own in mk/:
#   mk/sources.mk     apt-get source, shared by the third-party builds
#   mk/kmod.mk mk/zstd.mk mk/lvm2.mk mk/cryptsetup.mk mk/mdadm.mk   one library or tool each
#   mk/binaries.mk    earlymount, earlymount-init, the LUKS helper, the test guests' programs
#   mk/musl.mk        the optional musl build, and its libraries
#   mk/unit.mk        the unit tests (ASan+UBSan, and valgrind's build)
#   mk/check.mk       `make check`: its steps, side by side
#   mk/install.mk     `make install`, `make deb`

VERSION := 0.1.0
# `make` alone builds all, whichever fragment's rule comes first.
.DEFAULT_GOAL := all
ARCHES  := x86_64 aarch64
BUILD   ?= build
# The third-party builds, once per arch, shared by every BUILD directory.
KMOD_ROOT       ?= build/kmod
ZSTD_ROOT       ?= build/zstd
CRYPTSETUP_ROOT ?= build/cryptsetup
LVM2_ROOT       ?= build/lvm2
MDADM_ROOT      ?= build/mdadm
MUSL_ROOT       ?= build/musl

TRIPLET_x86_64  := x86_64-linux-gnu
TRIPLET_aarch64 := aarch64-linux-gnu
CC_x86_64       := gcc
CC_aarch64      := aarch64-linux-gnu-gcc
STRIP_x86_64    := strip
STRIP_aarch64   := aarch64-linux-gnu-strip
HOST_ARCH       := $(shell uname -m)
NPROC           := $(shell nproc)

WARN    := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wno-unused-parameter
# No -g: the static binaries are stripped; the unit-test builds add it for their traces.
CFLAGS  ?= -O2
ALL_CFLAGS = -std=gnu11 $(WARN) $(CFLAGS) -D_GNU_SOURCE -DEARLYMOUNT_VERSION='"$(VERSION)"' \
	-ffunction-sections -fdata-sections
# Each object also says which headers it read (BUILD/.../NAME.d): a header's change remakes
# its includers and nothing else.
DEPFLAGS := -MMD -MP
# The .d keeps the headers alone: the source is the pattern rule's own prerequisite, and an
# old path left there by a moved source would stop make ("No rule to make target").
no_src_dep = sed -i 's/ [^ :]*\.c\( \|$$\)/\1/' $(1:.o=.d)
# Stripped: the binary goes into initramfs images.
STATIC_LDFLAGS := -static -Wl,--gc-sections -s
# The static binaries' objects: PID 1 never unwinds a C stack (no threads, no backtraces),
# so no unwind tables (x86-64: 41 KiB of earlymount-init's 1.58 MB). The unit tests keep
# theirs, for the sanitizers' and valgrind's stack traces.
NO_UNWIND := -fno-asynchronous-unwind-tables -fno-unwind-tables
# `make V=1` shows the full command lines.
say  = $(if $(V),,@printf '  %-7s %s\n' $(1) $(2);)
comma := ,
# A make of the targets side by side, on every core unless the caller gave -j.
parallel = $(MAKE) --no-print-directory $(if $(findstring jobserver,$(MAKEFLAGS)),,-j$(NPROC))

# The layers, lowest first (the README's Layout): a folder's code sees the headers of
# its own layer and of those below it, never above. `make check-layers` checks the objects.
#   include/ the headers of lib/'s generic helpers, which know no partition
#   core/    the pure core (command line, disk model), core/plan/ the planner
#   disk/    the disk model's probe (libblkid): block devices and image files into core's
#            model, for PID 1 and the host commands alike
#   init/    PID 1: the stages at its top, the rest in rooms by job (init/ROOM/)
#   host/    the host commands, host/initramfs/ the image builder. It sees no header of
#            init/: earlymount's main (host/main.c), which boots as PID 1 too, alone does.
#   luks/    earlymount-luks, a program of its own: it sees lib/ alone, and earlymount's
#            objects (and the unit tests, fuzzers and leak checks built from them) never see
#            libcryptsetup; PID 1 and the builder see its header, the contract with it.
# A layer's folders are found, sub-folders (rooms) included: a new one needs no edit here.
LAYERS    := lib core disk init host
dirs_in   = $(sort $(patsubst %/,%,$(dir $(shell find $(1) -name '*.[ch]'))))
DIRS_lib  := lib
DIRS_core := $(call dirs_in,core)
DIRS_disk := $(call dirs_in,disk)
DIRS_init := $(call dirs_in,init)
DIRS_host := $(call dirs_in,host)
INC_lib   := -Iinclude
INC_core  := $(INC_lib) $(addprefix -I,$(DIRS_core))
INC_disk  := $(INC_core) $(addprefix -I,$(DIRS_disk))
INC_init  := $(INC_disk) $(addprefix -I,$(DIRS_init)) -Iluks
INC_host  := $(INC_disk) $(addprefix -I,$(DIRS_host)) -Iluks
INC_luks  := $(INC_lib) -Iluks
# What the unit tests, fuzzers and leak checks see: every layer.
INC_ALL   := $(INC_init) $(addprefix -I,$(DIRS_host))
# The -I flags of a source file's layer; earlymount's main sees init/'s entry too.
layer_of  = $(firstword $(foreach l,$(LAYERS),$(if $(filter $(addsuffix /%,$(DIRS_$(l))),$(1)),$(l))))
layer_inc = $(INC_$(call layer_of,$(1)))$(if $(filter host/main.c,$(1)), -Iinit)
SRC_DIRS  := $(foreach l,$(LAYERS),$(DIRS_$(l)))
vpath %.c $(SRC_DIRS)
# Every source of a layer's folders, found there.
SRCS      := $(sort $(foreach d,$(SRC_DIRS),$(wildcard $(d)/*.c)))
# Two mains: host/main.c of earlymount (the host commands, and it boots too), init/init_main.c
# of earlymount-init (PID 1 alone: what images get as /init). --gc-sections leaves out of
# earlymount-init every function that only the host commands reach.
MAIN_SRCS := host/main.c init/init_main.c
# Everything but the mains: what the unit tests link.
PROGRAM_SRCS := $(filter-out $(MAIN_SRCS),$(SRCS))
objs_of   = $(patsubst %.c,$(1)/obj/%.o,$(notdir $(2)))
host_objs = $(call objs_of,$(1),$(filter-out init/init_main.c,$(SRCS)))
init_objs = $(call objs_of,$(1),$(filter-out host/main.c,$(SRCS)))
LUKS_HELPER_SRC := $(wildcard luks/*.c)
# What the helper takes from lib/: compiled into it from source, with its own flags.
LUKS_LIB_SRC := $(addprefix lib/,base64.c fileio.c json.c tpm2_command.c tpm2_device.c \
		  tpm2_marshal.c tpm2_token.c utf8.c)

include mk/sources.mk mk/kmod.mk mk/zstd.mk mk/lvm2.mk mk/cryptsetup.mk mk/mdadm.mk
include mk/binaries.mk mk/musl.mk mk/unit.mk mk/check.mk mk/install.mk
# What the compilers said each object read.
-include $(wildcard $(BUILD)/*/obj/*.d $(BUILD)/*/obj-luks/*.d $(BUILD)/*/obj-luks/lib/*.d $(UNIT_DIR)/*.d $(VG_DIR)/*.d)

.PHONY: all luks lvm md deps help size demo fuzz bench clean distclean
all: $(foreach a,$(ARCHES),$(BUILD)/$(a)/earlymount $(BUILD)/$(a)/earlymount-init) luks lvm md
luks: $(foreach a,$(ARCHES),$(BUILD)/$(a)/earlymount-luks)
lvm: $(foreach a,$(ARCHES),$(BUILD)/$(a)/lvm)
md: $(foreach a,$(ARCHES),$(BUILD)/$(a)/mdadm)
ifeq ($(LIBC),musl)
all: musl
endif

deps:
	@sh .ci/deps

help:
	@echo 'make                 earlymount, earlymount-init, the LUKS helper, lvm and mdadm, both arches (build/ARCH/)'
	@echo 'make demo            boot a discoverable disk on x86-64 through earlymount (DEMO=debian: a Debian system)'
	@echo 'make check           every test, side by side on all cores; build/check-times.txt says what took how long'
	@echo 'make check-STEP      one step of it: $(patsubst check-%,%,$(filter check-%,$(CHECK_STEPS))) (qemu: both arches)'
	@echo 'make musl            the musl build (build/musl-ARCH/); LIBC=musl adds it to make'
	@echo 'make size            the sizes of the binaries'
	@echo 'make bench           boot times and sizes against the limit and the peers (build/bench/results.md)'
	@echo 'make fuzz            each libFuzzer target for FUZZ_SECONDS (600) seconds'
	@echo 'make install         into DESTDIR, under PREFIX (/usr); make deb: the Debian packages'
	@echo 'make clean           build/ but the third-party builds and the Debian trees; distclean: all of it'

size: all $(if $(filter musl,$(LIBC)),musl)
	@for a in $(ARCHES); do \
		printf '%-8s %8d bytes (static, stripped)\n' $$a $$(stat -c %s $(BUILD)/$$a/earlymount); \
		printf '%-8s %8d bytes (earlymount-init, PID 1 alone, static, stripped)\n' $$a $$(stat -c %s $(BUILD)/$$a/earlymount-init); \
		printf '%-8s %8d bytes (earlymount-luks, static, stripped)\n' $$a $$(stat -c %s $(BUILD)/$$a/earlymount-luks); \
		printf '%-8s %8d bytes (lvm, lvm2 2.03 static, stripped)\n' $$a $$(stat -c %s $(BUILD)/$$a/lvm); \
		printf '%-8s %8d bytes (mdadm, mdadm 4.2 static, stripped)\n' $$a $$(stat -c %s $(BUILD)/$$a/mdadm); \
	done
ifeq ($(LIBC),musl)
	@for a in $(MUSL_ARCHES); do \
		printf '%-8s %8d bytes (static, stripped, musl)\n' $$a $$(stat -c %s $(BUILD)/musl-$$a/earlymount); \
		printf '%-8s %8d bytes (earlymount-init, PID 1 alone, static, stripped, musl)\n' $$a $$(stat -c %s $(BUILD)/musl-$$a/earlymount-init); \
	done
endif

# The demo boots x86-64 alone: it builds that arch's binaries and fetches its kernel, side by
# side, and nothing else. DEMO=debian: the Debian system of check-realsys, interactive
# (qemu/demo-debian, either arch: DEMO_ARCH).
DEMO_ARCH ?= x86_64
demo_arch   = $(if $(filter debian,$(DEMO)),$(DEMO_ARCH),x86_64)
DEMO_NEEDS  = $(BUILD)/$(HOST_ARCH)/earlymount $(BUILD)/$(demo_arch)/earlymount-init \
	$(if $(filter debian,$(DEMO)),,$(BUILD)/$(demo_arch)/probe-init) kernel-$(demo_arch)
demo: deps
	+@$(parallel) $(DEMO_NEEDS)
	@DEMO_ARCH=$(demo_arch) sh qemu/demo$(if $(filter debian,$(DEMO)),-debian) $(BUILD)

# The test kernels (Debian's, qemu/kernels, in $(KERNEL_ROOT)/kernels), one arch at a time.
KERNEL_ROOT ?= build
.PHONY: $(foreach a,$(ARCHES),kernel-$(a))
$(foreach a,$(ARCHES),kernel-$(a)): kernel-%:
	@sh qemu/kernels $(KERNEL_ROOT) $*

# ---- hostile input: libFuzzer targets of the pure core ----
# `make fuzz` runs each target for FUZZ_SECONDS (10 minutes); `check-fuzz` replays the corpus.
fuzz: deps
	@sh tests/fuzz/run -t $(or $(FUZZ_SECONDS),600) -b $(BUILD)

# ---- bench: earlymount against dracut+systemd, initramfs-tools and a hard-coded "limit"
# initramfs, same kernel, disk and QEMU; then scaling and sizes. Slow: not in `check`.
# Writes build/bench/results.md and chart.png (BENCH_BOOTS, BENCH_ARCHES narrow it);
# BENCH_MODE=icount|tcg|both (default both): QEMU's deterministic mode, where the targets are
# judged, and plain TCG beside it; BENCH_ICOUNT_SHIFT (default 0). See qemu/bench's header.
bench: deps all
	@KMOD_ROOT=$(KMOD_ROOT) ZSTD_ROOT=$(ZSTD_ROOT) CRYPTSETUP_ROOT=$(CRYPTSETUP_ROOT) LVM2_ROOT=$(LVM2_ROOT) \
		MUSL_ROOT=$(MUSL_ROOT) sh qemu/bench $(BUILD)

# Kept, like the libraries: the Debian trees of check-realsys ($(BUILD)/debian, minutes to make).
clean:
	rm -rf $(filter-out $(KMOD_ROOT) $(ZSTD_ROOT) $(MUSL_ROOT) $(CRYPTSETUP_ROOT) $(LVM2_ROOT) $(MDADM_ROOT) $(BUILD)/debian $(BUILD)/kernels,$(wildcard $(BUILD)/*))

distclean:
	rm -rf $(BUILD) $(KMOD_ROOT) $(ZSTD_ROOT) $(MUSL_ROOT) $(CRYPTSETUP_ROOT) $(LVM2_ROOT) $(MDADM_ROOT)
