# tests/deb/lib.sh: what the installed-path tests (tests/deb/boot, tests/deb/lvm-boot,
# tests/deb/crypt-boot) share. Sourced; needs say() and fail().

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
# what a test adds to the report (once_unit's tests)
[ ! -x /usr/local/sbin/deb-boot-report-more ] || /usr/local/sbin/deb-boot-report-more
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

# A unit that runs the script on stdin (as /usr/local/sbin/NAME) on the system's next boot
# only, instead of report_unit's report, then powers off: what a user does on the installed
# system before the boot the test is about. The flag /etc/NAME goes only once the script is
# done: the report waits for a boot without it.
once_unit() { # ROOT NAME
	cat >"$1/usr/local/sbin/$2"
	chmod 755 "$1/usr/local/sbin/$2"
	cat >"$1/etc/systemd/system/$2.service" <<UNIT
[Unit]
Description=$2, once, for tests/deb
ConditionPathExists=/etc/$2
After=multi-user.target

[Service]
Type=simple
ExecStart=/bin/sh -c '/usr/local/sbin/$2; rm -f /etc/$2; sync; systemctl poweroff'

[Install]
WantedBy=multi-user.target
UNIT
	ln -sf "/etc/systemd/system/$2.service" "$1/etc/systemd/system/multi-user.target.wants/$2.service"
	mkdir -p "$1/etc/systemd/system/deb-boot-report.service.d"
	printf '[Unit]\nConditionPathExists=!/etc/%s\n' "$2" >"$1/etc/systemd/system/deb-boot-report.service.d/after-$2.conf"
	: >"$1/etc/$2"
}

# Copies FILE out of the ext4 filesystem of partition N of the disk image DISK to OUT
# (debugfs on a copy of the partition: nothing is mounted). OUT is left empty or absent when
# there is no such file.
partition_file() { # DISK N FILE OUT
	lib_part=$(sfdisk -d "$1" | sed -n "s|^.*[^0-9]$2 : start= *\([0-9]*\), size= *\([0-9]*\),.*|\1 \2|p")
	[ -n "$lib_part" ] || return 1
	dd if="$1" of="$4.part" bs=1M skip="$((${lib_part% *} * 512))" count="$((${lib_part#* } * 512))" \
		iflag=skip_bytes,count_bytes status=none
	debugfs -R "dump $3 $4" "$4.part" >/dev/null 2>&1 || :
	rm -f "$4.part"
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

