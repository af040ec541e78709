# libcryptsetup, for earlymount-luks alone: Debian ships no libcryptsetup.a (libjson-c.a and
# libuuid.a it does: libjson-c-dev, uuid-dev). Built once per arch from Debian's source
# package, out of tree, into $(CRYPTSETUP_ROOT)/ARCH, against lvm2's libdevmapper
# (mk/lvm2.mk): the library alone, with nettle as crypto backend instead of OpenSSL (nettle is
# in the helper already, for the TPM2 session), and its own argon2. The kernel backend hashed
# over AF_ALG, a socket for each hash of the anti-forensic merge (thousands an unlock): with
# nettle, the unlock from the typed passphrase to the real init took 0.46 s instead of 0.72 s
# on x86-64, 0.14 s instead of 0.42 s on aarch64 (make bench, deterministic mode). Ciphers
# still go through the kernel (AF_ALG's skcipher for the keyslots, dm-crypt for the data). The
# helper is a static glibc binary like earlymount, and a static binary runs in any initramfs,
# so there is no musl build of it. After changing a flag, remove $(CRYPTSETUP_ROOT)/ARCH.
# -Os: the x86-64 helper is 36 KiB smaller than with -O2 (1,307,368 bytes against 1,344,136).
LUKS_LIB_CFLAGS ?= -Os -ffunction-sections -fdata-sections
# argon2 keeps upstream's -O3: its time is the unlock's time (LUKS2 sizes argon2id's cost for
# about 2 s on the machine that formatted the disk, with an -O3 argon2).
ARGON2_CFLAGS   ?= -O3 -ffunction-sections -fdata-sections
# configure checks for popt even when no tool is built: the cache variable answers for it.
CRYPTSETUP_CONF := --enable-static --disable-shared --with-crypto_backend=nettle --enable-internal-argon2 \
	--disable-blkid --disable-udev --disable-selinux --disable-nls --disable-asciidoc \
	--disable-ssh-token --disable-external-tokens --disable-cryptsetup --disable-veritysetup \
	--disable-integritysetup ac_cv_lib_popt_poptConfigFileToString=yes
CRYPTSETUP_CONF_x86_64  := --enable-internal-sse-argon2
CRYPTSETUP_CONF_aarch64 :=

cs_lib = $(CRYPTSETUP_ROOT)/$(1)/.libs/libcryptsetup.a
# nettle and hogweed (with GMP): the TPM2 session's cryptography (luks/tpm2_session.c),
# static libraries Debian ships (nettle-dev, libgmp-dev).
tpm2_crypto_libs = $(foreach l,hogweed nettle gmp,/usr/lib/$(TRIPLET_$(1))/lib$(l).a)
luks_libs = $(call cs_lib,$(1)) $(call dm_lib,$(1)) \
	$(foreach l,json-c uuid,/usr/lib/$(TRIPLET_$(1))/lib$(l).a) $(call tpm2_crypto_libs,$(1)) -lm

# Debian's orig tarball of cryptsetup is a git snapshot: no configure until autogen.sh
# (autopoint, gettext) has run.
$(CRYPTSETUP_ROOT)/src/.fetched:
	$(call apt_source,cryptsetup,$(CRYPTSETUP_ROOT)/src)
	@cd $(CRYPTSETUP_ROOT)/src && ./autogen.sh $(call build_log,$(CRYPTSETUP_ROOT)/autogen)
	@touch $@

define cryptsetup_rules
$(call cs_lib,$(1)): $(CRYPTSETUP_ROOT)/src/.fetched $(LVM2_ROOT)/src/.fetched $(call dm_lib,$(1))
	@echo "cryptsetup: building static libcryptsetup for $(1)"
	@rm -rf $(CRYPTSETUP_ROOT)/$(1) && mkdir -p $(CRYPTSETUP_ROOT)/$(1)
	@cd $(CRYPTSETUP_ROOT)/$(1) && $(call arch_pkgconfig,$(1)) $(abspath $(CRYPTSETUP_ROOT)/src)/configure \
		--host=$(TRIPLET_$(1)) CC=$(CC_$(1)) CFLAGS="$(LUKS_LIB_CFLAGS)" $(CRYPTSETUP_CONF) $(CRYPTSETUP_CONF_$(1)) \
		CPPFLAGS="-I$(abspath $(LVM2_ROOT)/src/libdm)" DEVMAPPER_CFLAGS="-I$(abspath $(LVM2_ROOT)/src/libdm)" \
		DEVMAPPER_LIBS="-L$(abspath $(LVM2_ROOT)/$(1)/libdm/ioctl) -ldevmapper -lm" \
		$(call build_log,$(CRYPTSETUP_ROOT)/$(1)/configure)
	+@$(MAKE) -s -C $(CRYPTSETUP_ROOT)/$(1) libargon2.la CFLAGS="$(ARGON2_CFLAGS)" \
		$(call build_log,$(CRYPTSETUP_ROOT)/$(1)/make-argon2)
	+@$(MAKE) -s -C $(CRYPTSETUP_ROOT)/$(1) libcryptsetup.la $(call build_log,$(CRYPTSETUP_ROOT)/$(1)/make)
endef
$(foreach a,$(ARCHES),$(eval $(call cryptsetup_rules,$(a))))
