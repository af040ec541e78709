# libzstd's decoder alone, from Debian's source package. Debian's libzstd.a also holds the
# compressor and the v0.5-0.7 legacy decoders (≈ 100 KiB of the binary): PID 1 only
# decompresses modules made by current zstd, and the initramfs builder runs the host's zstd. The source is that of the installed libzstd-dev, whose
# zstd.h libkmod is compiled against; when apt cannot fetch it (a mirror without the
# security archive's files), the newest revision of the same upstream version, with a warning.
zstd_lib = $(ZSTD_ROOT)/$(1)/lib/libzstd.a

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
