# What qemu/debian-rootfs and qemu/nfs-server share to run mmdebstrap (sourced; POSIX sh): the
# machine's own mirror, and make's jobserver closed.

# The first URI the machine's apt takes SUITE's binary packages from.
apt_mirror() { # SUITE
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		awk -v s="$1" '
			function flush() {
				if (types ~ /(^| )deb( |$)/ && (" " suites " ") ~ (" " s " ") && uris != "") {
					split(uris, u, " "); print u[1]; found = 1; exit
				}
				types = suites = uris = ""
			}
			/^[[:space:]]*$/ { flush(); next }
			/^#/ { next }
			/^Types:/ { sub(/^Types:[[:space:]]*/, ""); types = $0 }
			/^Suites:/ { sub(/^Suites:[[:space:]]*/, ""); suites = $0 }
			/^URIs:/ { sub(/^URIs:[[:space:]]*/, ""); uris = $0 }
			END { if (!found) flush() }' "$f"
	done
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		# deb [OPTIONS] URI SUITE COMPONENT...
		sed -e 's/\[[^]]*\]//' "$f" | awk -v s="$1" '$1 == "deb" && $3 == s { print $2; exit }'
	done
}

# make's jobserver pipe, passed on by a `+` recipe (--jobserver-auth=R,W): with it open,
# mmdebstrap's download fails at once ("apt download failed"), so its shell closes it.
close_jobserver() {
	for cj_fd in $(printf ' %s \n' "${MAKEFLAGS:-}" | sed -n 's/.* --jobserver-auth=\([0-9]\),\([0-9]\) .*/\1 \2/p'); do
		eval "exec $cj_fd>&-"
	done
}
