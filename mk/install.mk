# `make install DESTDIR=… PREFIX=…`: the host binary, the PID-1 binary as the generators'
# /init (lib/earlymount/init, where `earlymount initramfs` takes it from too), beside it the
# LUKS helper (where `earlymount initramfs --luks` and the hooks look for it), lvm2's static
# lvm (--lvm), mdadm (--md) and the shell functions the hooks share, each generator's hook in
# its own directory, the man page and the docs. INSTALL_ARCH picks the binaries (default: the
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

.PHONY: install uninstall deb
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

# `make deb` installs each arch's binaries into BUILD/deb/ARCH and packs
# BUILD/earlymount_VERSION_DEBARCH.deb (hooks/debian/mkdeb).
DEB_ARCHES ?= x86_64 aarch64
deb: deps all
	@for a in $(DEB_ARCHES); do \
		rm -rf $(BUILD)/deb/$$a && \
		$(MAKE) -s install PREFIX=/usr DESTDIR=$(abspath $(BUILD))/deb/$$a INSTALL_ARCH=$$a && \
		DEB_SOURCES="$(KMOD_ROOT)/src $(ZSTD_ROOT)/src $(CRYPTSETUP_ROOT)/src $(LVM2_ROOT)/src $(MDADM_ROOT)/src" \
			sh hooks/debian/mkdeb $(BUILD)/deb/$$a $$a $(VERSION) $(BUILD) || exit 1; \
	done
