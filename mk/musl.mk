# The optional build against musl (`make musl`, or LIBC=musl with make):
# $(BUILD)/musl-<arch>/earlymount, static with musl (Debian's musl-dev, and musl-dev:arm64
# for aarch64). Debian ships no musl build of libblkid, liblzma, libzstd or libkmod, so each
# is built once per arch from Debian's source package into $(MUSL_ROOT)/<arch>, installed
# into $(MUSL_ROOT)/<arch>/sysroot: libblkid alone from util-linux, the decoders alone of
# xz-utils and libzstd (the same source as $(ZSTD_ROOT)), libkmod from $(KMOD_ROOT)'s source.
# Built once, like $(KMOD_ROOT): after changing a flag below, remove $(MUSL_ROOT)/<arch>.
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

MUSL_ARCHES ?= $(ARCHES)
.PHONY: musl
musl: $(foreach a,$(MUSL_ARCHES),$(BUILD)/musl-$(a)/earlymount $(BUILD)/musl-$(a)/earlymount-init)

# Sources not already fetched for the glibc build: util-linux (libblkid), xz-utils (liblzma).
$(MUSL_ROOT)/src/util-linux/.fetched $(MUSL_ROOT)/src/xz-utils/.fetched: $(MUSL_ROOT)/src/%/.fetched:
	$(call apt_source,$*,$(MUSL_ROOT)/src/$*)
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
		$(call build_log,$(call musl_dir,$(1))/util-linux)
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
		--disable-scripts --disable-doc --enable-small $(call build_log,$(call musl_dir,$(1))/xz)
	+@$(MAKE) -s -C $(call musl_dir,$(1))/xz/src/liblzma install DESTDIR=$(call musl_sysroot,$(1)) \
		$(call build_log,$(call musl_dir,$(1))/xz-install)
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
		--with-xz --with-zstd --without-zlib --without-openssl $(call build_log,$(call musl_dir,$(1))/kmod)
	+@$(MAKE) -s -C $(call musl_dir,$(1))/kmod libkmod/libkmod-internal.la >/dev/null

$(BUILD)/musl-$(1)/obj/%.o: %.c | $(call musl_libs,$(1))
	@mkdir -p $$(@D)
	$(call say,CC,$$@) $(MUSL_CC_$(1)) $(ALL_CFLAGS) $(DEPFLAGS) $(MUSL_CFLAGS) $$(call layer_inc,$$<) -isystem $(MUSL_ROOT)/$(1)/kernel-headers \
		-I$(MUSL_ROOT)/$(1)/sysroot/usr/include -I$(MUSL_ROOT)/$(1)/kmod -c $$< -o $$@ && \
		$$(call no_src_dep,$$@)

$(BUILD)/musl-$(1)/earlymount: $(call host_objs,$(BUILD)/musl-$(1)) $(call musl_libs,$(1))
	$(call say,LD,$$@) $(MUSL_CC_$(1)) $(MUSL_LDFLAGS) -o $$@ $$(filter %.o,$$^) $(call musl_libs,$(1))

$(BUILD)/musl-$(1)/earlymount-init: $(call init_objs,$(BUILD)/musl-$(1)) $(call musl_libs,$(1))
	$(call say,LD,$$@) $(MUSL_CC_$(1)) $(MUSL_LDFLAGS) -o $$@ $$(filter %.o,$$^) $(call musl_libs,$(1))
endef
$(foreach a,$(ARCHES),$(eval $(call musl_rules,$(a))))
