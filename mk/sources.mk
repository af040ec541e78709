# Debian's source packages, for the libraries and tools Debian ships no static build of.
# `apt-get source PACKAGE` (a deb-src entry: .ci/deps adds one) into DIR, by way of DIR.dl.
define apt_source # PACKAGE DIR
	@echo "$(1): fetching Debian's $(1) source package into $(2)"
	@rm -rf $(2) $(2).dl && mkdir -p $(2).dl
	@cd $(2).dl && apt-get source -qq $(1) >/dev/null 2>&1 || { echo "$(1): 'apt-get source $(1)' failed; run .ci/deps as root"; exit 1; }
	@mv $(2).dl/$(1)-*/ $(2) && rm -rf $(2).dl
endef

# configure's and make's chatter goes to a log, shown on failure.
build_log = >$(abspath $(1)).log 2>&1 || { tail -n 40 $(abspath $(1)).log; exit 1; }
