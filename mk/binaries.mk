# The static binaries of each arch, in $(BUILD)/ARCH: earlymount (the host commands, and it
# boots too), earlymount-init (PID 1 alone), the LUKS helper, lvm2's and mdadm's tools
# stripped, and the test guests' own programs.
sys_libs = $(foreach l,blkid lzma,/usr/lib/$(TRIPLET_$(1))/lib$(l).a)

define arch_rules
# libkmod's headers come with its build: wanted before the first compile, a dependency of
# no object (the .d files say which read them).
$(BUILD)/$(1)/obj/%.o: %.c | $(call kmod_lib,$(1))
	@mkdir -p $$(@D)
	$(call say,CC,$$@) $(CC_$(1)) $(ALL_CFLAGS) $(DEPFLAGS) $(NO_UNWIND) $$(call layer_inc,$$<) -I$(call kmod_inc,$(1)) -c $$< -o $$@ && \
		$$(call no_src_dep,$$@)

$(BUILD)/$(1)/earlymount: $(call host_objs,$(BUILD)/$(1)) $(call kmod_lib,$(1)) $(call zstd_lib,$(1))
	$(call say,LD,$$@) $(CC_$(1)) $(STATIC_LDFLAGS) -o $$@ $$(filter %.o,$$^) $(call kmod_lib,$(1)) $(call sys_libs,$(1)) $(call zstd_lib,$(1))

$(BUILD)/$(1)/earlymount-init: $(call init_objs,$(BUILD)/$(1)) $(call kmod_lib,$(1)) $(call zstd_lib,$(1))
	$(call say,LD,$$@) $(CC_$(1)) $(STATIC_LDFLAGS) -o $$@ $$(filter %.o,$$^) $(call kmod_lib,$(1)) $(call sys_libs,$(1)) $(call zstd_lib,$(1))

# The LUKS helper: its own sources and lib/'s it names, compiled with its own include path
# (lib/ and luks/ alone) into obj-luks/, none of earlymount's objects.
$(BUILD)/$(1)/obj-luks/%.o: luks/%.c | $(call cs_lib,$(1))
	@mkdir -p $$(@D)
	$(call say,CC,$$@) $(CC_$(1)) $(ALL_CFLAGS) $(DEPFLAGS) $(INC_luks) -I$(CRYPTSETUP_ROOT)/src/lib -c $$< -o $$@
$(BUILD)/$(1)/obj-luks/lib/%.o: lib/%.c
	@mkdir -p $$(@D)
	$(call say,CC,$$@) $(CC_$(1)) $(ALL_CFLAGS) $(DEPFLAGS) $(INC_luks) -c $$< -o $$@
$(BUILD)/$(1)/earlymount-luks: $(call luks_objs,$(1)) $(call cs_lib,$(1)) $(call dm_lib,$(1))
	$(call say,LD,$$@) $(CC_$(1)) $(STATIC_LDFLAGS) -o $$@ $(call luks_objs,$(1)) $(call luks_libs,$(1))

# lvm2's tool and mdadm, stripped (what images get in /usr/lib/earlymount/).
$(BUILD)/$(1)/lvm: $(call lvm_tool,$(1))
	@mkdir -p $$(@D)
	$(call say,STRIP,$$@) $(STRIP_$(1)) -o $$@ $$<
$(BUILD)/$(1)/mdadm: $(call mdadm_tool,$(1))
	@mkdir -p $$(@D)
	$(call say,STRIP,$$@) $(STRIP_$(1)) -o $$@ $$<

# The tiny "real init" of the test images (qemu/probe-init.c) and the stack images' btrfs
# subvolume maker (qemu/btrfs-subvol.c).
$(BUILD)/$(1)/probe-init: qemu/probe-init.c
	@mkdir -p $$(@D)
	$(call say,CC,$$@) $(CC_$(1)) -std=gnu11 $(WARN) -Os -static -o $$@ $$<
$(BUILD)/$(1)/btrfs-subvol: qemu/btrfs-subvol.c
	@mkdir -p $$(@D)
	$(call say,CC,$$@) $(CC_$(1)) -std=gnu11 $(WARN) -Os -static -o $$@ $$<
endef
luks_objs = $(patsubst luks/%.c,$(BUILD)/$(1)/obj-luks/%.o,$(LUKS_HELPER_SRC)) \
	$(patsubst lib/%.c,$(BUILD)/$(1)/obj-luks/lib/%.o,$(LUKS_LIB_SRC))
$(foreach a,$(ARCHES),$(eval $(call arch_rules,$(a))))
