# libkmod, from Debian's kmod source package (Debian ships no libkmod.a, and kmod's build
# refuses --enable-static: libkmod-internal.la is the whole library, static). Built once per
# arch into $(KMOD_ROOT)/ARCH; --sysconfdir=/etc is the modprobe.d path compiled in.
kmod_lib = $(KMOD_ROOT)/$(1)/libkmod/.libs/libkmod-internal.a
kmod_inc = $(KMOD_ROOT)/$(1)

$(KMOD_ROOT)/src/.fetched:
	$(call apt_source,kmod,$(KMOD_ROOT)/src)
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
