# tests/deb/lib.sh: what the installed-path tests (tests/deb/boot, tests/deb/lvm-boot) share.
# Sourced; needs say() and fail().

# systemd's view on the console once it has settled, then power off: the test reads it.
# Each line starts with a newline of its own: a getty's prompt may share the console.
report_unit() { # ROOT
	cat >"$1/usr/local/sbin/deb-boot-report" <<'SCRIPT'
#!/bin/sh
say() { printf '\ndeb-boot: %s\n' "$*" >/dev/console; }
say "state=$(systemctl is-system-running --wait)"
if failed=$(systemctl --failed --no-legend --plain 2>&1); then
	printf '%s\n' "$failed" | while read -r unit rest; do [ -z "$unit" ] || say "failed $unit $rest"; done
else
	say "failed (systemctl --failed did not answer: $failed)"
fi
say "root=$(findmnt -rn -o SOURCE,FSTYPE /)"
systemctl poweroff
SCRIPT
	chmod 755 "$1/usr/local/sbin/deb-boot-report"
	cat >"$1/etc/systemd/system/deb-boot-report.service" <<'UNIT'
[Unit]
Description=Report the system's state on the console for tests/deb/boot
After=multi-user.target

[Service]
Type=simple
ExecStart=/usr/local/sbin/deb-boot-report

[Install]
WantedBy=multi-user.target
UNIT
	ln -sf /etc/systemd/system/deb-boot-report.service \
		"$1/etc/systemd/system/multi-user.target.wants/deb-boot-report.service"
}

# Runs a command in ROOT with /proc, /sys and /dev, in a mount namespace of its own: nothing
# is left mounted on the host whatever happens.
in_root() { # ROOT COMMAND...
	lib_r=$1
	shift
	unshare -m sh -c 'r=$1; shift; for m in proc sys dev; do mount --rbind "/$m" "$r/$m"; done
		exec chroot "$r" "$@"' in_root "$lib_r" "$@"
}

check_running() { # LOG WHAT
	grep -aq 'deb-boot: state=running' "$1.txt" ||
		fail "$2: systemd did not report running ($(grep -a '^deb-boot: ' "$1.txt" | head -n 3 | tr '\n' ' ')see $1)"
	! grep -aq 'deb-boot: failed ' "$1.txt" || fail "$2: failed units: $(grep -ao 'deb-boot: failed .*' "$1.txt" | tr '\n' ' ')"
}

