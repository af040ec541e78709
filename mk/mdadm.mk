# mdadm, static, for images made with --md (earlymount runs it to assemble md arrays): from
# Debian's source, built in a copy of it per arch (its Makefile builds in its tree), without
# libudev (mdadm then makes /dev/mdN and the /dev/md/NAME links itself), its map file in
# /run/mdadm as Debian's. After changing a flag, remove $(MDADM_ROOT)/ARCH.
MDADM_FLAGS = CXFLAGS="-Os -DNO_LIBUDEV" RUN_DIR=/run/mdadm
mdadm_tool  = $(MDADM_ROOT)/$(1)/mdadm.static

$(MDADM_ROOT)/src/.fetched:
	$(call apt_source,mdadm,$(MDADM_ROOT)/src)
	@touch $@

define mdadm_rules
$(call mdadm_tool,$(1)): $(MDADM_ROOT)/src/.fetched
	@echo "mdadm: building the static mdadm for $(1)"
	@rm -rf $(MDADM_ROOT)/$(1) && mkdir -p $(MDADM_ROOT)/$(1) && cp -a $(MDADM_ROOT)/src/. $(MDADM_ROOT)/$(1)/
	+@$(MAKE) -s -C $(MDADM_ROOT)/$(1) mdadm.static CC=$(CC_$(1)) $(MDADM_FLAGS) $(call build_log,$(MDADM_ROOT)/$(1)/make)
endef
$(foreach a,$(ARCHES),$(eval $(call mdadm_rules,$(a))))
