# lvm2, from Debian's source package, built once per arch out of tree into $(LVM2_ROOT)/ARCH,
# without udev synchronisation (nothing here waits for udev): libdevmapper alone for the LUKS
# helper (Debian ships no libdevmapper.a), and then lvm2's own tool, static, for images made
# with --lvm (earlymount runs it to activate volume groups), from the same configured tree.
# The tool needs libaio.a (libaio-dev); a tree configured before libaio-dev was there builds
# libdm alone. After changing a flag, remove $(LVM2_ROOT)/ARCH.
dm_lib   = $(LVM2_ROOT)/$(1)/libdm/ioctl/libdevmapper.a
lvm_tool = $(LVM2_ROOT)/$(1)/tools/lvm.static
# The LUKS helper's libraries' flags (mk/cryptsetup.mk).
LVM2_CONF = --enable-static_link --with-symvers=no --disable-selinux --disable-blkid_wiping \
	--disable-readline --disable-editline --disable-systemd-journal --disable-app-machineid \
	--disable-nls --with-optimisation="$(LUKS_LIB_CFLAGS)" \
	ac_cv_func_malloc_0_nonnull=yes ac_cv_func_realloc_0_nonnull=yes
# A cross build finds the arch's .pc files.
arch_pkgconfig = PKG_CONFIG_LIBDIR=/usr/lib/$(TRIPLET_$(1))/pkgconfig:/usr/share/pkgconfig

$(LVM2_ROOT)/src/.fetched:
	$(call apt_source,lvm2,$(LVM2_ROOT)/src)
	@touch $@

define lvm2_rules
$(call dm_lib,$(1)): $(LVM2_ROOT)/src/.fetched
	@echo "lvm2: building static libdevmapper for $(1)"
	@rm -rf $(LVM2_ROOT)/$(1) && mkdir -p $(LVM2_ROOT)/$(1)
	@cd $(LVM2_ROOT)/$(1) && $(call arch_pkgconfig,$(1)) $(abspath $(LVM2_ROOT)/src)/configure \
		--host=$(TRIPLET_$(1)) CC=$(CC_$(1)) $(LVM2_CONF) $(call build_log,$(LVM2_ROOT)/$(1)/configure)
	+@$(MAKE) -s -C $(LVM2_ROOT)/$(1)/libdm ioctl/libdevmapper.a $(call build_log,$(LVM2_ROOT)/$(1)/make)

$(call lvm_tool,$(1)): $(call dm_lib,$(1))
	@echo "lvm2: building the static lvm for $(1)"
	+@$(MAKE) -s -C $(LVM2_ROOT)/$(1) lib libdaemon $(call build_log,$(LVM2_ROOT)/$(1)/make-lib)
	+@$(MAKE) -s -C $(LVM2_ROOT)/$(1)/tools lvm.static $(call build_log,$(LVM2_ROOT)/$(1)/make-tool)
endef
$(foreach a,$(ARCHES),$(eval $(call lvm2_rules,$(a))))
