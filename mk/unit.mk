# The unit tests (cmocka): every object but the mains, built for the host under ASan+UBSan
# into $(UNIT_DIR), and again without sanitizers into $(VG_DIR) for valgrind. A test may list
# functions to mock, one per line, in tests/unit/test_NAME.wrap (-Wl,--wrap).
SAN        := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
UNIT_DIR   := $(BUILD)/unit
VG_DIR     := $(BUILD)/valgrind
UNIT_TESTS := $(patsubst tests/unit/%.c,$(UNIT_DIR)/%,$(wildcard tests/unit/test_*.c))
VG_TESTS   := $(patsubst tests/unit/%.c,$(VG_DIR)/%,$(wildcard tests/unit/test_*.c))
UNIT_LIBS   = $(call kmod_lib,$(HOST_ARCH)) -lblkid -llzma -lzstd -lz -lcmocka
unit_wraps  = $(addprefix -Wl$(comma)--wrap=,$(shell cat tests/unit/test_$(1).wrap 2>/dev/null))

# DIR FLAGS: the objects, their archive and the tests of one build.
define unit_rules
$(1)/obj/%.o: %.c | $(call kmod_lib,$(HOST_ARCH))
	@mkdir -p $$(@D)
	$(call say,CC,$$@) $(CC) $(ALL_CFLAGS) $(DEPFLAGS) -g -O1 $(2) $$(call layer_inc,$$<) -I$(call kmod_inc,$(HOST_ARCH)) -c $$< -o $$@ && \
		$$(call no_src_dep,$$@)

$(1)/libcore.a: $(call objs_of,$(1),$(PROGRAM_SRCS))
	@rm -f $$@ && ar rcs $$@ $$^

$(1)/test_%: tests/unit/test_%.c $(1)/libcore.a
	$(call say,LD,$$@) $(CC) $(ALL_CFLAGS) $(DEPFLAGS) -g -O1 $(2) -Wno-missing-prototypes $(INC_ALL) -Itests/unit \
		-I$(call kmod_inc,$(HOST_ARCH)) -o $$@ $$< $$(call unit_wraps,$$*) $(1)/libcore.a $(UNIT_LIBS)
endef
$(eval $(call unit_rules,$(UNIT_DIR),$(SAN)))
$(eval $(call unit_rules,$(VG_DIR),))

# The LUKS helper's TPM2 client, driven against a software TPM (check-tpm2): built from the
# helper's own sources under ASan+UBSan.
TPM2_TOOL := $(BUILD)/tpm2/unseal_tool
TPM2_TOOL_SRC := tests/tpm2/unseal_tool.c luks/tpm2_unseal.c luks/tpm2_session.c luks/tpm2_client.c \
	luks/tpm2_pcr_signature.c $(LUKS_LIB_SRC)
$(TPM2_TOOL): $(TPM2_TOOL_SRC) $(wildcard luks/*.h include/*.h)
	@mkdir -p $(@D)
	$(call say,CCLD,$@) $(CC) $(ALL_CFLAGS) -g -O1 $(SAN) $(INC_luks) -o $@ $(TPM2_TOOL_SRC) $(call tpm2_crypto_libs,$(HOST_ARCH))
