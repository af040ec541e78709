# earlymount — static PID-1 helper for initramfs images.
# `make` builds build/x86_64/earlymount and build/aarch64/earlymount (static).
# `make check` runs the unit tests (ASan+UBSan), the plan tests and the QEMU scenarios.
# `make` also builds build/<arch>/earlymount-luks, the LUKS helper (`make luks` alone).

VERSION := 0.1.0
ARCHES  := x86_64 aarch64
BUILD   ?= build
# libkmod and libzstd are built once per arch and shared by every BUILD directory.
KMOD_ROOT ?= build/kmod
ZSTD_ROOT ?= build/zstd
# So are libcryptsetup and libdevmapper, for the LUKS helper alone.
CRYPTSETUP_ROOT ?= build/cryptsetup
LVM2_ROOT       ?= build/lvm2
# And mdadm, for images made with --md.
MDADM_ROOT      ?= build/mdadm

TRIPLET_x86_64  := x86_64-linux-gnu
TRIPLET_aarch64 := aarch64-linux-gnu
CC_x86_64       := gcc
CC_aarch64      := aarch64-linux-gnu-gcc
STRIP_x86_64    := strip
STRIP_aarch64   := aarch64-linux-gnu-strip
HOST_ARCH       := $(shell uname -m)

WARN    := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wno-unused-parameter
CFLAGS  ?= -O2 -g
ALL_CFLAGS = -std=gnu11 $(WARN) $(CFLAGS) -D_GNU_SOURCE -DEARLYMOUNT_VERSION='"$(VERSION)"' \
	-ffunction-sections -fdata-sections
# Stripped: the binary goes into initramfs images (-g still helps the unit-test builds).
STATIC_LDFLAGS := -static -Wl,--gc-sections -s
# The static binaries' objects: PID 1 never unwinds a C stack (no threads, no backtraces),
# so no unwind tables (x86-64: 41 KiB of earlymount-init's 1.58 MB). The unit tests keep
# theirs, for the sanitizers' and valgrind's stack traces.
NO_UNWIND := -fno-asynchronous-unwind-tables -fno-unwind-tables
# `make V=1` shows the full command lines.
Q   := $(if $(V),,@)
say  = $(if $(V),,@printf '  %-7s %s\n' $(1) $(2);)

# ---- make check: every step side by side on the machine's cores ----
# `make check` runs the steps below in a make of its own with -j (as many jobs as cores, or the
# caller's -jN): each step is a job, its output kept in BUILD/check/STEP.log and printed whole
# when it ends (tests/step), and the VMs of a step beyond its first take further jobs
# (qemu/jobslot.sh), so the cores stay busy and never overloaded. BUILD/check-times.txt then
# says each step's wall and CPU time (tests/check). The steps that share BUILD/qemu's disk
# images, and those that boot the Debian trees, wait for what they need ($(call after,...),
# in `make check` only: a step run alone runs alone).
NPROC      := $(shell nproc)
CHECK_LOG  ?=
step        = $(if $(CHECK_LOG),sh tests/step $(CHECK_LOG) $(1))
after       = $(if $(CHECK_LOG),| $(1))
PROBES     := $(foreach a,$(ARCHES),$(BUILD)/$(a)/probe-init $(BUILD)/$(a)/btrfs-subvol)

# The layers, lowest first (the README's Layout): a folder's code sees the headers of
# its own layer and of those below it, never above. `make check-layers` checks the objects.
#   lib/   generic helpers that know no partition
#   core/  the pure core (command line, disk model), core/plan/ the planner
#   boot/  what PID 1 does
#   host/  the host commands, host/initramfs/ the image builder
#   luks/  earlymount-luks, a program of its own: it sees lib/ alone, and earlymount's
#          objects (and the unit tests, fuzzers and leak checks built from them) never see
#          libcryptsetup; PID 1 and the builder see its header, the contract with it.
LAYERS    := lib core boot host
DIRS_lib  := lib
DIRS_core := core core/plan
DIRS_boot := boot
DIRS_host := host host/initramfs
INC_lib   := -Ilib
INC_core  := $(INC_lib) -Icore -Icore/plan
INC_boot  := $(INC_core) -Iboot -Iluks
INC_host  := $(INC_boot) -Ihost -Ihost/initramfs
INC_luks  := $(INC_lib) -Iluks
INC_ALL   := $(INC_host)
# The -I flags of a source file's layer.
layer_of  = $(firstword $(foreach l,$(LAYERS),$(if $(filter $(addsuffix /%,$(DIRS_$(l))),$(1)),$(l))))
layer_inc = $(INC_$(call layer_of,$(1)))
SRC_DIRS  := $(foreach l,$(LAYERS),$(DIRS_$(l)))
vpath %.c $(SRC_DIRS)
LUKS_HELPER_SRC := $(wildcard luks/*.c)
# What the helper takes from lib/: compiled into it from source, with its own flags.
LUKS_LIB_SRC := $(addprefix lib/,base64.c fileio.c json.c tpm2_command.c tpm2_device.c \
		  tpm2_marshal.c tpm2_token.c utf8.c)
SRCS      := $(sort $(foreach d,$(SRC_DIRS),$(wildcard $(d)/*.c)))
HEADERS   := $(foreach d,$(SRC_DIRS) luks,$(wildcard $(d)/*.h))
# Two mains: host/main.c of earlymount (the host commands, and it boots too), boot/init_main.c
# of earlymount-init (PID 1 alone: what images get as /init). --gc-sections leaves out of
# earlymount-init every function that only the host commands reach.
MAIN_SRCS := host/main.c boot/init_main.c
# Everything but the mains: what the unit tests link.
PROGRAM_SRCS := $(filter-out $(MAIN_SRCS),$(SRCS))
objs_of   = $(patsubst %.c,$(1)/obj/%.o,$(notdir $(2)))
host_objs = $(call objs_of,$(1),$(filter-out boot/init_main.c,$(SRCS)))
init_objs = $(call objs_of,$(1),$(filter-out host/main.c,$(SRCS)))

kmod_lib   = $(KMOD_ROOT)/$(1)/libkmod/.libs/libkmod-internal.a
kmod_inc   = $(KMOD_ROOT)/$(1)
zstd_lib   = $(ZSTD_ROOT)/$(1)/lib/libzstd.a
sys_libs   = $(foreach l,blkid lzma,/usr/lib/$(TRIPLET_$(1))/lib$(l).a)

.PHONY: all luks lvm md deps size check check-unit check-plan check-qemu demo clean distclean
all: $(foreach a,$(ARCHES),$(BUILD)/$(a)/earlymount $(BUILD)/$(a)/earlymount-init) luks lvm md
luks: $(foreach a,$(ARCHES),$(BUILD)/$(a)/earlymount-luks)
lvm: $(foreach a,$(ARCHES),$(BUILD)/$(a)/lvm)
md: $(foreach a,$(ARCHES),$(BUILD)/$(a)/mdadm)

deps:
	@sh .ci/deps

# ---- libkmod from Debian's source package (Debian ships no libkmod.a) ----
$(KMOD_ROOT)/src/.fetched:
	@echo "kmod: fetching Debian's kmod source package into $(KMOD_ROOT)/src"
	@rm -rf $(KMOD_ROOT)/src $(KMOD_ROOT)/dl && mkdir -p $(KMOD_ROOT)/dl
	@cd $(KMOD_ROOT)/dl && apt-get source -qq kmod >/dev/null 2>&1 || { echo "kmod: 'apt-get source kmod' failed; run .ci/deps as root"; exit 1; }
	@mv $(KMOD_ROOT)/dl/kmod-*/ $(KMOD_ROOT)/src && rm -rf $(KMOD_ROOT)/dl
	@touch $(KMOD_ROOT)/src/libkmod/docs/gtk-doc.make
	@cd $(KMOD_ROOT)/src && autoreconf -fi >/dev/null 2>&1
	@touch $@

define kmod_rules
$(call kmod_lib,$(1)): $(KMOD_ROOT)/src/.fetched
	@echo "kmod: building static libkmod for $(1)"
	@rm -rf $(KMOD_ROOT)/$(1) && cp -a $(KMOD_ROOT)/src $(KMOD_ROOT)/$(1)
	@cd $(KMOD_ROOT)/$(1) && PKG_CONFIG_LIBDIR=/usr/lib/$(TRIPLET_$(1))/pkgconfig:/usr/share/pkgconfig \
		./configure -q --host=$(TRIPLET_$(1)) CC=$(CC_$(1)) CFLAGS="-O2 -ffunction-sections -fdata-sections" \
		--sysconfdir=/etc --disable-tools --disable-manpages --disable-test-modules --disable-python \
		--with-xz --with-zstd --without-zlib --without-openssl >/dev/null
	+@$(MAKE) -s -C $(KMOD_ROOT)/$(1) libkmod/libkmod-internal.la >/dev/null
endef
$(foreach a,$(ARCHES),$(eval $(call kmod_rules,$(a))))

# ---- libzstd from Debian's source package: the decoder alone ----
# Debian's libzstd.a also holds the compressor and the v0.5-0.7 legacy decoders (≈ 100 KiB
# of the binary): PID 1 only decompresses modules made by current zstd, and the initramfs
# builder runs the host's zstd. The source is that of the installed libzstd-dev, whose
# zstd.h libkmod is compiled against; when apt cannot fetch it (a mirror without the
# security archive's files), the newest revision of the same upstream version, with a warning.
$(ZSTD_ROOT)/src/.fetched:
	@echo "zstd: fetching Debian's libzstd source package into $(ZSTD_ROOT)/src"
	@rm -rf $(ZSTD_ROOT)/src $(ZSTD_ROOT)/dl && mkdir -p $(ZSTD_ROOT)/dl
	@want=$$(dpkg-query -W -f='$${source:Version}\n' libzstd-dev 2>/dev/null | head -n 1); \
	[ -n "$$want" ] || { echo "zstd: libzstd-dev is not installed; run .ci/deps as root"; exit 1; }; \
	others=$$(apt-cache showsrc libzstd 2>/dev/null | sed -n 's/^Version: //p' | grep -F "$${want%-*}-" | grep -vxF "$$want" | sort -rV); \
	got=; for v in $$want $$others; do \
		(cd $(ZSTD_ROOT)/dl && apt-get source -qq libzstd=$$v >/dev/null 2>&1) && { got=$$v; break; }; \
		rm -rf $(ZSTD_ROOT)/dl/*; \
	done; \
	[ -n "$$got" ] || { echo "zstd: 'apt-get source libzstd=$$want' failed; run .ci/deps as root"; exit 1; }; \
	[ "$$got" = "$$want" ] || echo "zstd: warning: apt could not fetch libzstd $$want (the installed libzstd-dev's source); building $$got instead (what differs: /usr/share/doc/libzstd-dev/changelog.Debian.gz)"; \
	echo "$$got" >$(ZSTD_ROOT)/dl/version
	@mv $(ZSTD_ROOT)/dl/libzstd-*/ $(ZSTD_ROOT)/src && mv $(ZSTD_ROOT)/dl/version $(ZSTD_ROOT)/src/.version && rm -rf $(ZSTD_ROOT)/dl
	@v() { grep -E '^#define ZSTD_VERSION_(MAJOR|MINOR|RELEASE) ' "$$1"; }; \
	[ "$$(v $(ZSTD_ROOT)/src/lib/zstd.h)" = "$$(v /usr/include/zstd.h)" ] || \
		{ echo "zstd: the fetched zstd.h is not the installed one (/usr/include/zstd.h, libkmod's): install the libzstd-dev of the same upstream version"; exit 1; }
	@touch $@

# zstd's decoder alone, with one Huffman decoder (single-symbol) and one sequence decoder
# (short offsets): 41 KiB less at -O2 (24 at musl's -Os), and as many instructions for
# modules made by zstd -19 (callgrind, the default image's 72 modules: 250.4 and 250.3
# million on x86-64). Both still decode every frame. Its run-time BMI2 dispatch stays:
# without, 12 KiB less but 11% more instructions per module. Built once, like $(KMOD_ROOT):
# after changing a flag here, remove $(ZSTD_ROOT)/<arch> and $(MUSL_ROOT)/<arch>.
ZSTD_FLAGS ?= ZSTD_LEGACY_SUPPORT=0 ZSTD_LIB_COMPRESSION=0 ZSTD_LIB_DICTBUILDER=0 ZSTD_LIB_DEPRECATED=0 \
	HUF_FORCE_DECOMPRESS_X1=1 ZSTD_FORCE_DECOMPRESS_SEQUENCES_SHORT=1

# zstd's own lib/Makefile; CFLAGS through the environment, so that it still adds its own.
define zstd_rules
$(call zstd_lib,$(1)): $(ZSTD_ROOT)/src/.fetched
	@echo "zstd: building the static decoder (libzstd $$$$(cat $(ZSTD_ROOT)/src/.version)) for $(1)"
	@rm -rf $(ZSTD_ROOT)/$(1) && mkdir -p $(ZSTD_ROOT)/$(1) && cp -a $(ZSTD_ROOT)/src/lib $(ZSTD_ROOT)/$(1)/lib
	+@CFLAGS="-O2 -ffunction-sections -fdata-sections" $(MAKE) -s -C $(ZSTD_ROOT)/$(1)/lib libzstd.a CC=$(CC_$(1)) \
		$(ZSTD_FLAGS) >/dev/null
endef
$(foreach a,$(ARCHES),$(eval $(call zstd_rules,$(a))))

# ---- libcryptsetup and libdevmapper, for earlymount-luks alone ----
# Debian ships no libcryptsetup.a or libdevmapper.a (libjson-c.a and libuuid.a it does:
# libjson-c-dev, uuid-dev). Both are built once per arch from Debian's source packages,
# out of tree, into $(CRYPTSETUP_ROOT)/<arch> and $(LVM2_ROOT)/<arch>: of lvm2 only libdm,
# without udev synchronisation (the helper waits for no udev); cryptsetup's library alone,
# with nettle as crypto backend instead of OpenSSL (nettle is in the helper already, for the
# TPM2 session), and its own argon2. The kernel backend hashed over AF_ALG, a socket for each
# hash of the anti-forensic merge (thousands an unlock): with nettle, the unlock from the
# typed passphrase to the real init took 0.46 s instead of 0.72 s on x86-64, 0.14 s instead of
# 0.42 s on aarch64 (make bench, deterministic mode). Ciphers still go through the kernel
# (AF_ALG's skcipher for the keyslots, dm-crypt for the data). The helper is a static glibc binary like earlymount, and a static binary runs in
# any initramfs, so there is no musl build of it. Built once, like $(KMOD_ROOT): after
# changing a flag below, remove $(CRYPTSETUP_ROOT)/<arch> or $(LVM2_ROOT)/<arch>.
# -Os: the x86-64 helper is 36 KiB smaller than with -O2 (1,307,368 bytes against 1,344,136).
LUKS_LIB_CFLAGS ?= -Os -ffunction-sections -fdata-sections
# argon2 keeps upstream's -O3: its time is the unlock's time (LUKS2 sizes argon2id's cost for
# about 2 s on the machine that formatted the disk, with an -O3 argon2).
ARGON2_CFLAGS   ?= -O3 -ffunction-sections -fdata-sections
LVM2_CONF := --enable-static_link --with-symvers=no --disable-selinux --disable-blkid_wiping \
	--disable-readline --disable-editline --disable-systemd-journal --disable-app-machineid \
	--disable-nls --with-optimisation="$(LUKS_LIB_CFLAGS)" \
	ac_cv_func_malloc_0_nonnull=yes ac_cv_func_realloc_0_nonnull=yes
# configure checks for popt even when no tool is built: the cache variable answers for it.
CRYPTSETUP_CONF := --enable-static --disable-shared --with-crypto_backend=nettle --enable-internal-argon2 \
	--disable-blkid --disable-udev --disable-selinux --disable-nls --disable-asciidoc \
	--disable-ssh-token --disable-external-tokens --disable-cryptsetup --disable-veritysetup \
	--disable-integritysetup ac_cv_lib_popt_poptConfigFileToString=yes
CRYPTSETUP_CONF_x86_64  := --enable-internal-sse-argon2
CRYPTSETUP_CONF_aarch64 :=

dm_lib     = $(LVM2_ROOT)/$(1)/libdm/ioctl/libdevmapper.a
lvm_tool   = $(LVM2_ROOT)/$(1)/tools/lvm.static
cs_lib     = $(CRYPTSETUP_ROOT)/$(1)/.libs/libcryptsetup.a
# nettle and hogweed (with GMP): the TPM2 session's cryptography (luks/tpm2_session.c),
# static libraries Debian ships (nettle-dev, libgmp-dev).
tpm2_crypto_libs = $(foreach l,hogweed nettle gmp,/usr/lib/$(TRIPLET_$(1))/lib$(l).a)
luks_libs  = $(call cs_lib,$(1)) $(call dm_lib,$(1)) \
	$(foreach l,json-c uuid,/usr/lib/$(TRIPLET_$(1))/lib$(l).a) $(call tpm2_crypto_libs,$(1)) -lm
luks_pkgconfig = PKG_CONFIG_LIBDIR=/usr/lib/$(TRIPLET_$(1))/pkgconfig:/usr/share/pkgconfig
# configure's chatter goes to a log, shown on failure.
luks_log = >$(abspath $(1)).log 2>&1 || { tail -n 40 $(abspath $(1)).log; exit 1; }

# `apt-get source PACKAGE` into ROOT/src.
define apt_source # PACKAGE ROOT
	@echo "$(1): fetching Debian's $(1) source package into $(2)/src"
	@rm -rf $(2)/src $(2)/dl && mkdir -p $(2)/dl
	@cd $(2)/dl && apt-get source -qq $(1) >/dev/null 2>&1 || { echo "$(1): 'apt-get source $(1)' failed; run .ci/deps as root"; exit 1; }
	@mv $(2)/dl/$(1)-*/ $(2)/src && rm -rf $(2)/dl
endef

# Debian's orig tarball of cryptsetup is a git snapshot: no configure until autogen.sh
# (autopoint, gettext) has run.
$(CRYPTSETUP_ROOT)/src/.fetched:
	$(call apt_source,cryptsetup,$(CRYPTSETUP_ROOT))
	@cd $(CRYPTSETUP_ROOT)/src && ./autogen.sh $(call luks_log,$(CRYPTSETUP_ROOT)/autogen)
	@touch $@

$(LVM2_ROOT)/src/.fetched:
	$(call apt_source,lvm2,$(LVM2_ROOT))
	@touch $@

# mdadm, static, for images made with --md (earlymount runs it to assemble md arrays): from
# Debian's source, built in a copy of it per arch (its Makefile builds in its tree), without
# libudev (mdadm then makes /dev/mdN and the /dev/md/NAME links itself), its map file in
# /run/mdadm as Debian's. Built once, like lvm: after changing a flag, remove $(MDADM_ROOT)/<arch>.
MDADM_FLAGS = CXFLAGS="-Os -DNO_LIBUDEV" RUN_DIR=/run/mdadm
mdadm_tool = $(MDADM_ROOT)/$(1)/mdadm.static

$(MDADM_ROOT)/src/.fetched:
	$(call apt_source,mdadm,$(MDADM_ROOT))
	@touch $@

define luks_lib_rules
$(call mdadm_tool,$(1)): $(MDADM_ROOT)/src/.fetched
	@echo "mdadm: building the static mdadm for $(1)"
	@rm -rf $(MDADM_ROOT)/$(1) && mkdir -p $(MDADM_ROOT)/$(1) && cp -a $(MDADM_ROOT)/src/. $(MDADM_ROOT)/$(1)/
	+@$(MAKE) -s -C $(MDADM_ROOT)/$(1) mdadm.static CC=$(CC_$(1)) $(MDADM_FLAGS) $(call luks_log,$(MDADM_ROOT)/$(1)/make)

$(call dm_lib,$(1)): $(LVM2_ROOT)/src/.fetched
	@echo "lvm2: building static libdevmapper for $(1)"
	@rm -rf $(LVM2_ROOT)/$(1) && mkdir -p $(LVM2_ROOT)/$(1)
	@cd $(LVM2_ROOT)/$(1) && $(call luks_pkgconfig,$(1)) $(abspath $(LVM2_ROOT)/src)/configure \
		--host=$(TRIPLET_$(1)) CC=$(CC_$(1)) $(LVM2_CONF) $(call luks_log,$(LVM2_ROOT)/$(1)/configure)
	+@$(MAKE) -s -C $(LVM2_ROOT)/$(1)/libdm ioctl/libdevmapper.a $(call luks_log,$(LVM2_ROOT)/$(1)/make)

# lvm2's own tool, static, for images made with --lvm (earlymount runs it to activate volume
# groups): from the same configured tree, its libraries and then tools/lvm.static. Needs
# libaio.a (libaio-dev); a tree configured before libaio-dev was there builds libdm alone:
# remove $(LVM2_ROOT)/<arch>.
$(call lvm_tool,$(1)): $(call dm_lib,$(1))
	@echo "lvm2: building the static lvm for $(1)"
	+@$(MAKE) -s -C $(LVM2_ROOT)/$(1) lib libdaemon $(call luks_log,$(LVM2_ROOT)/$(1)/make-lib)
	+@$(MAKE) -s -C $(LVM2_ROOT)/$(1)/tools lvm.static $(call luks_log,$(LVM2_ROOT)/$(1)/make-tool)

$(call cs_lib,$(1)): $(CRYPTSETUP_ROOT)/src/.fetched $(LVM2_ROOT)/src/.fetched $(call dm_lib,$(1))
	@echo "cryptsetup: building static libcryptsetup for $(1)"
	@rm -rf $(CRYPTSETUP_ROOT)/$(1) && mkdir -p $(CRYPTSETUP_ROOT)/$(1)
	@cd $(CRYPTSETUP_ROOT)/$(1) && $(call luks_pkgconfig,$(1)) $(abspath $(CRYPTSETUP_ROOT)/src)/configure \
		--host=$(TRIPLET_$(1)) CC=$(CC_$(1)) CFLAGS="$(LUKS_LIB_CFLAGS)" $(CRYPTSETUP_CONF) $(CRYPTSETUP_CONF_$(1)) \
		CPPFLAGS="-I$(abspath $(LVM2_ROOT)/src/libdm)" DEVMAPPER_CFLAGS="-I$(abspath $(LVM2_ROOT)/src/libdm)" \
		DEVMAPPER_LIBS="-L$(abspath $(LVM2_ROOT)/$(1)/libdm/ioctl) -ldevmapper -lm" \
		$(call luks_log,$(CRYPTSETUP_ROOT)/$(1)/configure)
	+@$(MAKE) -s -C $(CRYPTSETUP_ROOT)/$(1) libargon2.la CFLAGS="$(ARGON2_CFLAGS)" \
		$(call luks_log,$(CRYPTSETUP_ROOT)/$(1)/make-argon2)
	+@$(MAKE) -s -C $(CRYPTSETUP_ROOT)/$(1) libcryptsetup.la $(call luks_log,$(CRYPTSETUP_ROOT)/$(1)/make)
endef
$(foreach a,$(ARCHES),$(eval $(call luks_lib_rules,$(a))))

# ---- the static binaries ----
define arch_rules
$(BUILD)/$(1)/obj/%.o: %.c $(HEADERS) $(call kmod_lib,$(1))
	@mkdir -p $$(@D)
	$(call say,CC,$$@) $(CC_$(1)) $(ALL_CFLAGS) $(NO_UNWIND) $$(call layer_inc,$$<) -I$(call kmod_inc,$(1)) -c $$< -o $$@

$(BUILD)/$(1)/earlymount: $(call host_objs,$(BUILD)/$(1)) $(call kmod_lib,$(1)) $(call zstd_lib,$(1))
	$(call say,LD,$$@) $(CC_$(1)) $(STATIC_LDFLAGS) -o $$@ $$(filter %.o,$$^) $(call kmod_lib,$(1)) $(call sys_libs,$(1)) $(call zstd_lib,$(1))

$(BUILD)/$(1)/earlymount-init: $(call init_objs,$(BUILD)/$(1)) $(call kmod_lib,$(1)) $(call zstd_lib,$(1))
	$(call say,LD,$$@) $(CC_$(1)) $(STATIC_LDFLAGS) -o $$@ $$(filter %.o,$$^) $(call kmod_lib,$(1)) $(call sys_libs,$(1)) $(call zstd_lib,$(1))

# lvm2's tool, stripped (what images get as /usr/lib/earlymount/lvm).
$(BUILD)/$(1)/lvm: $(call lvm_tool,$(1))
	@mkdir -p $$(@D)
	$(call say,STRIP,$$@) $(STRIP_$(1)) -o $$@ $$<

# mdadm, stripped (what images get as /usr/lib/earlymount/mdadm).
$(BUILD)/$(1)/mdadm: $(call mdadm_tool,$(1))
	@mkdir -p $$(@D)
	$(call say,STRIP,$$@) $(STRIP_$(1)) -o $$@ $$<

# The LUKS helper: its own sources and lib/'s it names, none of earlymount's objects.
$(BUILD)/$(1)/earlymount-luks: $(LUKS_HELPER_SRC) $(LUKS_LIB_SRC) $(wildcard luks/*.h) $(call cs_lib,$(1)) $(call dm_lib,$(1))
	@mkdir -p $$(@D)
	$(call say,CCLD,$$@) $(CC_$(1)) $(ALL_CFLAGS) $(INC_luks) -I$(CRYPTSETUP_ROOT)/src/lib $(STATIC_LDFLAGS) -o $$@ $(LUKS_HELPER_SRC) $(LUKS_LIB_SRC) $(call luks_libs,$(1))
endef
$(foreach a,$(ARCHES),$(eval $(call arch_rules,$(a))))

# ---- the layer rule (README, Layout): read from the objects' symbols ----
# The LUKS helper is linked from its sources in one step; its objects are made here for the check.
LUKS_CHECK_OBJ := $(patsubst luks/%.c,$(BUILD)/$(HOST_ARCH)/obj-luks/%.o,$(LUKS_HELPER_SRC))
$(BUILD)/$(HOST_ARCH)/obj-luks/%.o: luks/%.c $(wildcard luks/*.h) $(call cs_lib,$(HOST_ARCH))
	@mkdir -p $(@D)
	$(call say,CC,$@) $(CC_$(HOST_ARCH)) $(ALL_CFLAGS) $(INC_luks) -I$(CRYPTSETUP_ROOT)/src/lib -c $< -o $@

.PHONY: check-layers
check-layers: all $(LUKS_CHECK_OBJ)
	+@$(call step,layers) sh -c 'sh tests/layers/check -b $(BUILD) -a $(HOST_ARCH) && \
		sh tests/layers/selftest -b $(BUILD) && sh tests/layers/layout README.md'

# The tiny "real init" of the test images (qemu/probe-init.c) and the stack images' btrfs
# subvolume maker (qemu/btrfs-subvol.c), static, per arch.
define probe_rules
$(BUILD)/$(1)/probe-init: qemu/probe-init.c
	@mkdir -p $$(@D)
	$(call say,CC,$$@) $(CC_$(1)) -std=gnu11 $(WARN) -Os -static -o $$@ $$<
$(BUILD)/$(1)/btrfs-subvol: qemu/btrfs-subvol.c
	@mkdir -p $$(@D)
	$(call say,CC,$$@) $(CC_$(1)) -std=gnu11 $(WARN) -Os -static -o $$@ $$<
endef
$(foreach a,$(ARCHES),$(eval $(call probe_rules,$(a))))

size: all
	@for a in $(ARCHES); do \
		printf '%-8s %8d bytes (static, stripped)\n' $$a $$(stat -c %s $(BUILD)/$$a/earlymount); \
		printf '%-8s %8d bytes (earlymount-init, PID 1 alone, static, stripped)\n' $$a $$(stat -c %s $(BUILD)/$$a/earlymount-init); \
		printf '%-8s %8d bytes (earlymount-luks, static, stripped)\n' $$a $$(stat -c %s $(BUILD)/$$a/earlymount-luks); \
		printf '%-8s %8d bytes (lvm, lvm2 2.03 static, stripped)\n' $$a $$(stat -c %s $(BUILD)/$$a/lvm); \
		printf '%-8s %8d bytes (mdadm, mdadm 4.2 static, stripped)\n' $$a $$(stat -c %s $(BUILD)/$$a/mdadm); \
	done

# ---- issue 14: real systems (Debian with systemd, busybox init) booted through earlymount ----
# `make check-realsys` (tests/realsys/run, root). The Debian trees (and check-deb-boot's, with
# a kernel) (qemu/debian-rootfs, cached in $(BUILD)/debian per recipe) take minutes to make
# on a clean clone. REALSYS="busybox" or "debian" narrows it; QEMU_ARCHES too.
REALSYS ?= busybox debian
.PHONY: check-realsys $(foreach a,$(ARCHES),debian-trees-$(a))
# The Debian trees of one arch, every flavour a step of `make check` boots there: the slowest
# step (arm64's run under qemu-user), so `make check` starts them first, one arch a step.
debian_flavours = $(if $(filter $(1),$(or $(QEMU_ARCHES),$(ARCHES))),default) \
	$(if $(filter $(1),$(DEB_BOOT_ARCHES)),kernel) $(if $(filter $(1),$(HOST_ARCH)),dracut lvm)
$(foreach a,$(ARCHES),debian-trees-$(a)): debian-trees-%: deps
	+@$(call step,debian-trees-$*) sh -c 'for f in $(call debian_flavours,$*); do \
		if [ $$f = default ]; then sh qemu/debian-rootfs $(BUILD) $*; \
		else sh qemu/debian-rootfs --flavour $$f $(BUILD) $*; fi || exit 1; done'

check-realsys: deps all $(PROBES) $(call after,$(foreach a,$(ARCHES),debian-trees-$(a)))
	+@$(call step,realsys) sh tests/realsys/run $(BUILD) $(REALSYS)

# ---- issue 8 (sizes): an optional build against musl, `make LIBC=musl` ----
# $(BUILD)/musl-<arch>/earlymount, static with musl (Debian's musl-dev, and musl-dev:arm64
# for aarch64). Debian ships no musl build of libblkid, liblzma, libzstd or libkmod, so each
# is built once per arch from Debian's source package into $(MUSL_ROOT)/<arch>, installed
# into $(MUSL_ROOT)/<arch>/sysroot: libblkid alone from util-linux, the decoders alone of
# xz-utils and libzstd (the same source as $(ZSTD_ROOT)), libkmod from $(KMOD_ROOT)'s source.
# Built once, like $(KMOD_ROOT): after changing a flag below, remove $(MUSL_ROOT)/<arch>.
MUSL_ROOT ?= build/musl
# Everything for size, and no unwind tables (NO_UNWIND).
MUSL_CFLAGS  ?= -Os -ffunction-sections -fdata-sections $(NO_UNWIND)
# Without separate-code, ld does not pad the text segment to its own pages (4 KiB on x86-64);
# without relro, not the data segment to the next 64 KiB on aarch64 (29 KiB of the file).
# musl's static start-up never write-protects the relro pages anyway (/proc/self/maps: rw-).
MUSL_LDFLAGS ?= -static -Wl,--gc-sections -s -Wl,-z,noseparate-code -Wl,-z,norelro

MUSL_CC_x86_64  := x86_64-linux-musl-gcc
MUSL_CC_aarch64 := aarch64-linux-musl-gcc
# musl-gcc's specs search musl's headers alone (-nostdinc); the kernel's uapi headers
# (<linux/*.h>, <asm/*.h>) come from the glibc toolchains' copies, linked in one by one so
# that no glibc header is found.
MUSL_KHDR_x86_64  := /usr/include/linux /usr/include/asm-generic /usr/include/x86_64-linux-gnu/asm
MUSL_KHDR_aarch64 := /usr/aarch64-linux-gnu/include/linux /usr/aarch64-linux-gnu/include/asm-generic \
	/usr/aarch64-linux-gnu/include/asm

musl_dir     = $(MUSL_ROOT)/$(1)
musl_sysroot = $(abspath $(MUSL_ROOT)/$(1)/sysroot)
musl_khdr    = $(MUSL_ROOT)/$(1)/kernel-headers/.linked
musl_kmod    = $(MUSL_ROOT)/$(1)/kmod/libkmod/.libs/libkmod-internal.a
musl_lib     = $(MUSL_ROOT)/$(1)/sysroot/usr/lib/lib$(2).a
musl_libs    = $(call musl_kmod,$(1)) $(foreach l,blkid lzma zstd,$(call musl_lib,$(1),$(l)))
# autoconf: the musl triplet as host (a cross build even on x86-64: nothing is run), the
# GNU binutils of that arch, and the kernel headers.
musl_configure = ./configure -q --host=$(1)-linux-musl CC=$(MUSL_CC_$(1)) \
	AR=$(TRIPLET_$(1))-ar RANLIB=$(TRIPLET_$(1))-ranlib NM=$(TRIPLET_$(1))-nm \
	OBJDUMP=$(TRIPLET_$(1))-objdump STRIP=$(TRIPLET_$(1))-strip CFLAGS="$(MUSL_CFLAGS)" \
	CPPFLAGS="-isystem $(abspath $(MUSL_ROOT)/$(1)/kernel-headers) -I$(call musl_sysroot,$(1))/usr/include"
# configure's and libtool's chatter (cross-tool warnings) goes to a log, shown on failure.
musl_log = >$(abspath $(1)).log 2>&1 || { tail -n 40 $(abspath $(1)).log; exit 1; }

MUSL_ARCHES ?= $(ARCHES)
.PHONY: musl size-musl
musl: $(foreach a,$(MUSL_ARCHES),$(BUILD)/musl-$(a)/earlymount $(BUILD)/musl-$(a)/earlymount-init)
ifeq ($(LIBC),musl)
all: musl
size: size-musl
endif
size-musl: musl
	@for a in $(MUSL_ARCHES); do \
		printf '%-8s %8d bytes (static, stripped, musl)\n' $$a $$(stat -c %s $(BUILD)/musl-$$a/earlymount); \
		printf '%-8s %8d bytes (earlymount-init, PID 1 alone, static, stripped, musl)\n' $$a $$(stat -c %s $(BUILD)/musl-$$a/earlymount-init); \
	done

# Sources not already fetched for the glibc build: util-linux (libblkid), xz-utils (liblzma).
$(MUSL_ROOT)/src/%/.fetched:
	@echo "musl: fetching Debian's $* source package into $(MUSL_ROOT)/src/$*"
	@rm -rf $(MUSL_ROOT)/src/$* $(MUSL_ROOT)/dl-$* && mkdir -p $(MUSL_ROOT)/dl-$* $(MUSL_ROOT)/src
	@cd $(MUSL_ROOT)/dl-$* && apt-get source -qq $* >/dev/null 2>&1 || { echo "musl: 'apt-get source $*' failed; run .ci/deps as root"; exit 1; }
	@mv $(MUSL_ROOT)/dl-$*/$*-*/ $(MUSL_ROOT)/src/$* && rm -rf $(MUSL_ROOT)/dl-$*
	@touch $@

define musl_rules
$(call musl_khdr,$(1)):
	@mkdir -p $$(@D) && ln -sfn $(MUSL_KHDR_$(1)) $$(@D)/ && touch $$@

# Debian's patches touch configure.ac and Makemodule.am (for programs not built here):
# the release's generated configure is used as it is, its inputs dated back so that make
# does not regenerate it (that would need autopoint and gtk-doc).
$(call musl_lib,$(1),blkid): $(MUSL_ROOT)/src/util-linux/.fetched | $(call musl_khdr,$(1))
	@echo "musl: building libblkid for $(1)"
	@rm -rf $(call musl_dir,$(1))/util-linux && cp -a $(MUSL_ROOT)/src/util-linux $(call musl_dir,$(1))/util-linux
	@cd $(call musl_dir,$(1))/util-linux && find . \( -name configure.ac -o -name Makefile.am -o -name Makemodule.am \
		-o -name '*.m4' \) -exec touch -d 2000-01-01 {} + && \
		$(call musl_configure,$(1)) --prefix=/usr --sysconfdir=/etc --disable-shared --disable-nls \
		--disable-all-programs --enable-libblkid --disable-libuuid --disable-libmount --disable-libsmartcols \
		--disable-libfdisk --disable-asciidoc --disable-bash-completion --disable-pylibmount \
		--without-udev --without-systemd --without-selinux --without-python --without-readline \
		--without-ncursesw --without-tinfo --without-cap-ng --without-libz --without-libmagic \
		--without-audit --without-user --without-btrfs --without-cryptsetup \
		$(call musl_log,$(call musl_dir,$(1))/util-linux)
	+@$(MAKE) -s -C $(call musl_dir,$(1))/util-linux libblkid.la >/dev/null
	@install -D -m 0644 $(call musl_dir,$(1))/util-linux/libblkid/src/blkid.h $(call musl_sysroot,$(1))/usr/include/blkid/blkid.h
	@install -D -m 0644 $(call musl_dir,$(1))/util-linux/.libs/libblkid.a $$@

# --enable-small: CRC tables computed when first needed, a smaller LZMA decoder: 20 KiB less for
# 13% more instructions per .ko.xz (modules are .ko.zst unless asked otherwise).
$(call musl_lib,$(1),lzma): $(MUSL_ROOT)/src/xz-utils/.fetched | $(call musl_khdr,$(1))
	@echo "musl: building liblzma (decoders only) for $(1)"
	@rm -rf $(call musl_dir,$(1))/xz && cp -a $(MUSL_ROOT)/src/xz-utils $(call musl_dir,$(1))/xz
	@cd $(call musl_dir,$(1))/xz && $(call musl_configure,$(1)) --prefix=/usr --disable-shared --disable-nls \
		--disable-encoders --disable-microlzma --disable-lzip-decoder --disable-threads \
		--disable-xz --disable-xzdec --disable-lzmadec --disable-lzmainfo --disable-lzma-links \
		--disable-scripts --disable-doc --enable-small $(call musl_log,$(call musl_dir,$(1))/xz)
	+@$(MAKE) -s -C $(call musl_dir,$(1))/xz/src/liblzma install DESTDIR=$(call musl_sysroot,$(1)) \
		$(call musl_log,$(call musl_dir,$(1))/xz-install)
	@rm -f $(call musl_sysroot,$(1))/usr/lib/liblzma.la

# zstd's own lib/Makefile; CFLAGS through the environment, so that it still adds its own.
$(call musl_lib,$(1),zstd): $(ZSTD_ROOT)/src/.fetched | $(call musl_khdr,$(1))
	@echo "musl: building libzstd (decoder only) for $(1)"
	@rm -rf $(call musl_dir,$(1))/zstd && mkdir -p $(call musl_dir,$(1))/zstd && cp -a $(ZSTD_ROOT)/src/lib $(call musl_dir,$(1))/zstd/lib
	+@CFLAGS="$(MUSL_CFLAGS)" $(MAKE) -s -C $(call musl_dir,$(1))/zstd/lib libzstd.a CC=$(MUSL_CC_$(1)) \
		AR=$(TRIPLET_$(1))-ar $(ZSTD_FLAGS) >/dev/null
	+@$(MAKE) -s -C $(call musl_dir,$(1))/zstd/lib install-static install-includes install-pc \
		PREFIX=/usr DESTDIR=$(call musl_sysroot,$(1)) >/dev/null

# kmod's Makefile passes pkg-config's CFLAGS to no compile: the sysroot's headers come
# through CPPFLAGS (musl_configure).
$(call musl_kmod,$(1)): $(KMOD_ROOT)/src/.fetched $(call musl_lib,$(1),lzma) $(call musl_lib,$(1),zstd)
	@echo "musl: building libkmod for $(1)"
	@rm -rf $(call musl_dir,$(1))/kmod && cp -a $(KMOD_ROOT)/src $(call musl_dir,$(1))/kmod
	@cd $(call musl_dir,$(1))/kmod && PKG_CONFIG_LIBDIR=$(call musl_sysroot,$(1))/usr/lib/pkgconfig \
		PKG_CONFIG_SYSROOT_DIR=$(call musl_sysroot,$(1)) $(call musl_configure,$(1)) \
		--sysconfdir=/etc --disable-tools --disable-manpages --disable-test-modules --disable-python \
		--with-xz --with-zstd --without-zlib --without-openssl $(call musl_log,$(call musl_dir,$(1))/kmod)
	+@$(MAKE) -s -C $(call musl_dir,$(1))/kmod libkmod/libkmod-internal.la >/dev/null

$(BUILD)/musl-$(1)/obj/%.o: %.c $(HEADERS) $(call musl_libs,$(1))
	@mkdir -p $$(@D)
	$(call say,CC,$$@) $(MUSL_CC_$(1)) $(ALL_CFLAGS) $(MUSL_CFLAGS) $$(call layer_inc,$$<) -isystem $(MUSL_ROOT)/$(1)/kernel-headers \
		-I$(MUSL_ROOT)/$(1)/sysroot/usr/include -I$(MUSL_ROOT)/$(1)/kmod -c $$< -o $$@

$(BUILD)/musl-$(1)/earlymount: $(call host_objs,$(BUILD)/musl-$(1)) $(call musl_libs,$(1))
	$(call say,LD,$$@) $(MUSL_CC_$(1)) $(MUSL_LDFLAGS) -o $$@ $$(filter %.o,$$^) $(call musl_libs,$(1))

$(BUILD)/musl-$(1)/earlymount-init: $(call init_objs,$(BUILD)/musl-$(1)) $(call musl_libs,$(1))
	$(call say,LD,$$@) $(MUSL_CC_$(1)) $(MUSL_LDFLAGS) -o $$@ $$(filter %.o,$$^) $(call musl_libs,$(1))
endef
$(foreach a,$(ARCHES),$(eval $(call musl_rules,$(a))))

# The musl binaries give the same plans as the glibc ones (aarch64 under qemu-user).
.PHONY: check-musl
check-musl: deps musl $(BUILD)/musl-aarch64/earlymount-user
	+@$(call step,musl) sh -c 'sh tests/plan/run $(BUILD)/musl-x86_64/earlymount $(BUILD)/fixtures-musl && \
		sh tests/plan/run $(BUILD)/musl-aarch64/earlymount-user $(BUILD)/fixtures-musl'

# The musl binaries as /init, booted on both arches (issue 16): one scenario per path where
# the C library is what runs — discovery with libblkid and libkmod's zstd modules, every DPS
# mount point with the machine-ID /var, a pinned root, version order, the refusal and its
# wait, overlayfs (two boots), dm-verity's ioctls, fsck children, the rd.break shell. The
# LUKS scenarios stay glibc-only: the helper is a glibc binary either way. About 2 minutes
# unloaded (six images, 20 boots; docs/tests.md).
MUSL_BOOT_SCENARIOS ?= dps-root dps-full root-partuuid versioned-roots two-disks \
	volatile-overlay verity-root fsck-var rd-break
.PHONY: check-musl-boot
check-musl-boot: deps all musl $(PROBES) $(call after,check-qemu check-uefi)
	+@$(call step,musl-boot) env QEMU_LIBC=musl sh qemu/run-scenarios $(BUILD) $(MUSL_BOOT_SCENARIOS)

# ---- make check ----
# Listed in the order make starts them: the longest chains first.
CHECK_STEPS := debian-trees-aarch64 check-qemu check-unit debian-trees-x86_64 check-uefi \
	check-musl-boot check-hooks check-plan check-valgrind check-fuzz check-leaks check-tpm2 \
	check-man check-layers check-musl check-luks check-qemu-command check-hostonly check-deb \
	check-realsys check-deb-boot check-deb-lvm
.PHONY: check check-steps
check:
	+@sh tests/check $(BUILD) $(MAKE) --no-print-directory -k \
		$(if $(findstring jobserver,$(MAKEFLAGS)),,-j$(NPROC)) CHECK_LOG=$(abspath $(BUILD))/check check-steps
check-steps: $(CHECK_STEPS)

# ---- unit tests: host build of the core under ASan+UBSan, cmocka ----
SAN        := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
UNIT_DIR   := $(BUILD)/unit
UNIT_TESTS := $(patsubst tests/unit/%.c,$(UNIT_DIR)/%,$(wildcard tests/unit/test_*.c))

$(UNIT_DIR)/obj/%.o: %.c $(HEADERS) $(call kmod_lib,$(HOST_ARCH))
	@mkdir -p $(@D)
	$(call say,CC,$@) $(CC) $(ALL_CFLAGS) -O1 $(SAN) $(call layer_inc,$<) -I$(call kmod_inc,$(HOST_ARCH)) -c $< -o $@

$(UNIT_DIR)/libcore.a: $(call objs_of,$(UNIT_DIR),$(PROGRAM_SRCS))
	@rm -f $@ && ar rcs $@ $^

# A test may list functions to mock, one per line, in tests/unit/test_NAME.wrap.
$(UNIT_DIR)/test_%: tests/unit/test_%.c $(UNIT_DIR)/libcore.a $(wildcard tests/unit/*.h) $(wildcard tests/fixtures/*.h)
	$(call say,LD,$@) $(CC) $(ALL_CFLAGS) -O1 $(SAN) -Wno-missing-prototypes $(INC_ALL) -Itests/unit -o $@ $< \
		$(addprefix -Wl$(comma)--wrap=,$(shell cat tests/unit/test_$*.wrap 2>/dev/null)) \
		$(UNIT_DIR)/libcore.a $(call kmod_lib,$(HOST_ARCH)) -lblkid -llzma -lzstd -lz -lcmocka
comma := ,

check-unit: deps $(UNIT_TESTS)
	+@$(call step,unit) sh tests/run-unit $(UNIT_TESTS)

# The plan tests run the native binary, then the aarch64 one under qemu-user: the same
# answers from the cross-compiled core.
# The aarch64 binaries under qemu-user, for the plan tests.
%/earlymount-user:
	@mkdir -p $(@D)
	@printf '#!/bin/sh\nexec qemu-aarch64-static "$$(dirname "$$0")/earlymount" "$$@"\n' >$@
	@chmod +x $@

check-plan: deps $(BUILD)/$(HOST_ARCH)/earlymount $(BUILD)/aarch64/earlymount $(BUILD)/aarch64/earlymount-user
	+@$(call step,plan) sh -c 'sh tests/plan/run $(BUILD)/$(HOST_ARCH)/earlymount $(BUILD)/fixtures && \
		sh tests/plan/run $(BUILD)/aarch64/earlymount-user $(BUILD)/fixtures'

check-qemu: deps all $(PROBES)
	+@$(call step,qemu) sh qemu/run-scenarios $(BUILD)

# earlymount-luks on real LUKS2 images, in QEMU on both arches (about 1.5 minutes).
.PHONY: check-luks
check-luks: deps all $(PROBES)
	+@$(call step,luks) sh tests/luks/run $(BUILD)

# earlymount-luks's TPM2 client against a software TPM, with tokens that the host's
# systemd-cryptenroll enrolls (seconds, no QEMU): unsealing, PINs, changed PCRs, hostile
# tokens. The unseal driver is built from the helper's own sources under ASan+UBSan.
.PHONY: check-tpm2
TPM2_TOOL := $(BUILD)/tpm2/unseal_tool
$(TPM2_TOOL): tests/tpm2/unseal_tool.c luks/tpm2_unseal.c luks/tpm2_session.c luks/tpm2_client.c luks/tpm2_pcr_signature.c $(LUKS_LIB_SRC) $(wildcard luks/*.h lib/*.h)
	@mkdir -p $(@D)
	$(call say,CCLD,$@) $(CC) $(ALL_CFLAGS) -O1 $(SAN) $(INC_luks) -o $@ tests/tpm2/unseal_tool.c \
		luks/tpm2_unseal.c luks/tpm2_session.c luks/tpm2_client.c luks/tpm2_pcr_signature.c $(LUKS_LIB_SRC) $(call tpm2_crypto_libs,$(HOST_ARCH))
check-tpm2: deps $(TPM2_TOOL)
	+@$(call step,tpm2) sh tests/tpm2/run $(TPM2_TOOL)

# `earlymount qemu` on both arches (issue 15): an image, a directory as the root, a failed boot.
.PHONY: check-qemu-command
check-qemu-command: deps all $(PROBES)
	+@$(call step,qemu-command) sh tests/qemu-command/run $(BUILD)


# DEMO=debian: the Debian system of check-realsys, interactive (qemu/demo-debian).
demo: deps all
	@sh qemu/demo$(if $(filter debian,$(DEMO)),-debian) $(BUILD)

# Kept, like the libraries: the Debian trees of check-realsys ($(BUILD)/debian, minutes to make).
clean:
	rm -rf $(filter-out $(KMOD_ROOT) $(ZSTD_ROOT) $(MUSL_ROOT) $(CRYPTSETUP_ROOT) $(LVM2_ROOT) $(MDADM_ROOT) $(BUILD)/debian,$(wildcard $(BUILD)/*))

distclean:
	rm -rf $(BUILD) $(KMOD_ROOT) $(ZSTD_ROOT) $(MUSL_ROOT) $(CRYPTSETUP_ROOT) $(LVM2_ROOT) $(MDADM_ROOT)

# ---- issue 6 (hooks): install layout, generator hooks, man page ----
# `make install DESTDIR=… PREFIX=…`: the host binary, the PID-1 binary as the generators' /init
# (lib/earlymount/init, where `earlymount initramfs` takes it from too), beside it the LUKS helper (where `earlymount initramfs --luks` and the hooks look
# for it), lvm2's static lvm (--lvm), mdadm (--md) and the shell functions the hooks share, each generator's hook in its own
# directory, the man page and the docs. INSTALL_ARCH picks the binaries (default: the
# host's; aarch64 for an arm64 package built here).
PREFIX       ?= /usr
DESTDIR      ?=
INSTALL_ARCH ?= $(HOST_ARCH)
INSTALL_BIN   = $(BUILD)/$(INSTALL_ARCH)/earlymount
INSTALL_INIT  = $(BUILD)/$(INSTALL_ARCH)/earlymount-init
INSTALL_LUKS  = $(BUILD)/$(INSTALL_ARCH)/earlymount-luks
INSTALL_LVM   = $(BUILD)/$(INSTALL_ARCH)/lvm
INSTALL_MDADM = $(BUILD)/$(INSTALL_ARCH)/mdadm
INSTALLED = \
	$(PREFIX)/bin/earlymount \
	$(PREFIX)/lib/earlymount/init \
	$(PREFIX)/lib/earlymount/earlymount-luks \
	$(PREFIX)/lib/earlymount/lvm \
	$(PREFIX)/lib/earlymount/mdadm \
	$(PREFIX)/lib/earlymount/luks-functions \
	$(PREFIX)/lib/dracut/modules.d/99earlymount/module-setup.sh \
	$(PREFIX)/share/initramfs-tools/hooks/earlymount \
	$(PREFIX)/share/initramfs-tools/conf.d/earlymount \
	$(PREFIX)/lib/initcpio/install/earlymount \
	$(PREFIX)/share/man/man8/earlymount.8 \
	$(PREFIX)/share/doc/earlymount/README.md \
	$(PREFIX)/share/doc/earlymount/LICENSE \
	$(addprefix $(PREFIX)/share/doc/earlymount/,$(DOC_FILES))
# The README's documents, beside it as in the tree, so that its links work where it is read.
DOC_FILES = $(sort $(wildcard docs/*.md)) docs/performance.png
# Removed by uninstall when empty, deepest first.
INSTALLED_DIRS = \
	$(PREFIX)/lib/earlymount \
	$(PREFIX)/lib/dracut/modules.d/99earlymount \
	$(PREFIX)/share/doc/earlymount/docs \
	$(PREFIX)/share/doc/earlymount

# The hooks name the installed binary and luks-functions: under another PREFIX, those. (The
# image's own /usr/lib/earlymount/… paths stay as they are.)
install_hook = install -d $(DESTDIR)$(dir $(3)) && \
	sed -e 's|/usr/lib/earlymount/init|$(PREFIX)/lib/earlymount/init|g' \
		-e 's|/usr/lib/earlymount/luks-functions|$(PREFIX)/lib/earlymount/luks-functions|g' \
		$(2) >$(DESTDIR)$(3) && \
	chmod $(1) $(DESTDIR)$(3)

.PHONY: install uninstall check-hooks check-man
install: $(INSTALL_BIN) $(INSTALL_INIT) $(INSTALL_LUKS) $(INSTALL_LVM) $(INSTALL_MDADM)
	install -D -m 0755 $(INSTALL_BIN) $(DESTDIR)$(PREFIX)/bin/earlymount
	install -D -m 0755 $(INSTALL_INIT) $(DESTDIR)$(PREFIX)/lib/earlymount/init
	install -D -m 0755 $(INSTALL_LUKS) $(DESTDIR)$(PREFIX)/lib/earlymount/earlymount-luks
	install -D -m 0755 $(INSTALL_LVM) $(DESTDIR)$(PREFIX)/lib/earlymount/lvm
	install -D -m 0755 $(INSTALL_MDADM) $(DESTDIR)$(PREFIX)/lib/earlymount/mdadm
	install -D -m 0644 hooks/luks-functions $(DESTDIR)$(PREFIX)/lib/earlymount/luks-functions
	$(call install_hook,0755,hooks/dracut/99earlymount/module-setup.sh,$(PREFIX)/lib/dracut/modules.d/99earlymount/module-setup.sh)
	$(call install_hook,0755,hooks/initramfs-tools/hooks/earlymount,$(PREFIX)/share/initramfs-tools/hooks/earlymount)
	$(call install_hook,0644,hooks/initramfs-tools/conf.d/earlymount,$(PREFIX)/share/initramfs-tools/conf.d/earlymount)
	$(call install_hook,0644,hooks/mkinitcpio/install/earlymount,$(PREFIX)/lib/initcpio/install/earlymount)
	install -D -m 0644 docs/earlymount.8 $(DESTDIR)$(PREFIX)/share/man/man8/earlymount.8
	install -D -m 0644 README.md $(DESTDIR)$(PREFIX)/share/doc/earlymount/README.md
	install -D -m 0644 LICENSE $(DESTDIR)$(PREFIX)/share/doc/earlymount/LICENSE
	install -d $(DESTDIR)$(PREFIX)/share/doc/earlymount/docs
	install -m 0644 $(DOC_FILES) $(DESTDIR)$(PREFIX)/share/doc/earlymount/docs/

uninstall:
	rm -f $(addprefix $(DESTDIR),$(INSTALLED))
	-rmdir $(addprefix $(DESTDIR),$(INSTALLED_DIRS)) 2>/dev/null

# ---- issue 17 (Debian package): `make deb` installs each arch's binaries into
# BUILD/deb/ARCH and packs BUILD/earlymount_VERSION_DEBARCH.deb (hooks/debian/mkdeb). ----
DEB_ARCHES ?= x86_64 aarch64
.PHONY: deb
deb: deps all
	@for a in $(DEB_ARCHES); do \
		rm -rf $(BUILD)/deb/$$a && \
		$(MAKE) -s install PREFIX=/usr DESTDIR=$(abspath $(BUILD))/deb/$$a INSTALL_ARCH=$$a && \
		DEB_SOURCES="$(KMOD_ROOT)/src $(ZSTD_ROOT)/src $(CRYPTSETUP_ROOT)/src $(LVM2_ROOT)/src $(MDADM_ROOT)/src" \
			sh hooks/debian/mkdeb $(BUILD)/deb/$$a $$a $(VERSION) $(BUILD) || exit 1; \
	done

# The packages build lintian-clean, and the host's installs and removes cleanly (tests/deb).
.PHONY: check-deb
check-deb: deb
	+@$(call step,deb) sh tests/deb/install $(BUILD)


# The LUKS decision the hooks share on fake hosts (with dash and bash), the mkinitcpio hook
# in a harness of mkinitcpio's hook API, `make install` into a scratch DESTDIR, then images
# from Debian's dracut and initramfs-tools booted against the DPS and LUKS scenarios on both
# arches.
check-hooks: deps all $(PROBES) $(call after,check-qemu check-uefi check-musl-boot)
	+@$(call step,hooks) sh -c 'sh tests/hooks/luks dash && sh tests/hooks/luks bash && \
		bash tests/hooks/mkinitcpio && sh tests/hooks/install $(BUILD) && sh qemu/generators $(BUILD)'

# `earlymount initramfs --host-only` (issue 16): on a fake sysfs, then built by a guest from
# its own sysfs and booted (both arches, about 2 minutes).
.PHONY: check-hostonly
check-hostonly: deps all $(PROBES)
	+@$(call step,hostonly) sh tests/hostonly/run $(BUILD)

# The man page renders without a warning, and documents every key the parser knows.
check-man: deps $(UNIT_DIR)/test_manpage
	+@$(call step,man) sh tests/man $(UNIT_DIR)/test_manpage


# ---- issue 7 (hostile input): libFuzzer targets of the pure core, valgrind ----
# `make fuzz` runs each target for 10 minutes; `check-fuzz` replays the corpus (regression
# inputs included) and fuzzes a few seconds per target.
.PHONY: fuzz check-fuzz check-valgrind
fuzz: deps
	@sh tests/fuzz/run -t $(or $(FUZZ_SECONDS),600) -b $(BUILD)
check-fuzz: deps
	+@$(call step,fuzz) sh tests/fuzz/run -t 5 -b $(BUILD)

# The unit tests without sanitizers, under valgrind.
VG_DIR   := $(BUILD)/valgrind
VG_TESTS := $(patsubst tests/unit/%.c,$(VG_DIR)/%,$(wildcard tests/unit/test_*.c))
$(VG_DIR)/obj/%.o: %.c $(HEADERS) $(call kmod_lib,$(HOST_ARCH))
	@mkdir -p $(@D)
	$(call say,CC,$@) $(CC) $(ALL_CFLAGS) -O1 $(call layer_inc,$<) -I$(call kmod_inc,$(HOST_ARCH)) -c $< -o $@
$(VG_DIR)/libcore.a: $(call objs_of,$(VG_DIR),$(PROGRAM_SRCS))
	@rm -f $@ && ar rcs $@ $^
$(VG_DIR)/test_%: tests/unit/test_%.c $(VG_DIR)/libcore.a $(wildcard tests/unit/*.h) $(wildcard tests/fixtures/*.h)
	$(call say,LD,$@) $(CC) $(ALL_CFLAGS) -O1 -Wno-missing-prototypes $(INC_ALL) -Itests/unit -o $@ $< \
		$(addprefix -Wl$(comma)--wrap=,$(shell cat tests/unit/test_$*.wrap 2>/dev/null)) \
		$(VG_DIR)/libcore.a $(call kmod_lib,$(HOST_ARCH)) -lblkid -llzma -lzstd -lz -lcmocka
# valgrind lacks openat2: test_switchroot then takes the chroot fallback of old kernels.
check-valgrind: deps $(VG_TESTS)
	+@$(call step,valgrind) env RUNNER="valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect" \
		sh tests/run-unit $(VG_TESTS)

# The host commands (plan, initramfs, var-uuid) under ASan, UBSan and LeakSanitizer, on the
# plan fixtures, the fuzz corpus's damaged disks and the test kernel: the shipped binary is
# static and stripped, so tests/leaks builds its own, linked dynamically.
.PHONY: check-leaks
check-leaks: deps $(call kmod_lib,$(HOST_ARCH))
	+@$(call step,leaks) env KMOD_ROOT=$(KMOD_ROOT) sh tests/leaks -b $(BUILD)

# ---- issue 5 (faults): UEFI boots (OVMF / AAVMF + systemd-boot); ≈ 45 s, so in `check` ----
.PHONY: check-uefi
check-uefi: deps all $(PROBES) $(call after,check-qemu)
	+@$(call step,uefi) env QEMU_UEFI=only sh qemu/run-scenarios $(BUILD)

# ---- issue 8 (bench): earlymount against dracut+systemd, initramfs-tools and a hard-coded
# "limit" initramfs, same kernel, disk and QEMU; then scaling and sizes. Slow: not in `check`.
# Writes build/bench/results.md and chart.png (BENCH_BOOTS, BENCH_ARCHES narrow it). Issue 29:
# BENCH_MODE=icount|tcg|both (default both): QEMU's deterministic mode, where the targets are
# judged, and plain TCG beside it; BENCH_ICOUNT_SHIFT (default 0). See qemu/bench's header.
.PHONY: bench
bench: deps all
	@KMOD_ROOT=$(KMOD_ROOT) ZSTD_ROOT=$(ZSTD_ROOT) CRYPTSETUP_ROOT=$(CRYPTSETUP_ROOT) LVM2_ROOT=$(LVM2_ROOT) \
		MUSL_ROOT=$(MUSL_ROOT) sh qemu/bench $(BUILD)


# ---- issue 17: the installed path: the .deb in a Debian system whose own generator
# (initramfs-tools, dracut) makes the image that boots it, and taken out again (tests/deb/boot).
# DEB_BOOT_ARCHES: both; the foreign arch's tree (qemu-user) is built in the background with
# the others, and gets initramfs-tools only (tests/deb/boot says why). ----
DEB_BOOT_ARCHES ?= $(ARCHES)
.PHONY: check-deb-boot
check-deb-boot: deb $(call after,$(foreach a,$(DEB_BOOT_ARCHES),debian-trees-$(a)))
	+@$(call step,deb-boot) sh tests/deb/boot $(BUILD) $(DEB_BOOT_ARCHES)

# Issue 25: a Debian system installed on LVM (/boot, then vg0/root on a physical volume) turns
# earlymount on with its own update-initramfs, and boots through it to `running` (x86-64,
# about 7 minutes; tests/deb/lvm-boot).
.PHONY: check-deb-lvm
check-deb-lvm: deb $(call after,debian-trees-$(HOST_ARCH))
	+@$(call step,deb-lvm) sh tests/deb/lvm-boot $(BUILD)
