# Shared by tests/realsys/run and qemu/demo-debian (sourced, after qemu/lib.sh): the trees and
# disks of the real systems. Needs $out (where the trees and images go).

# The trees are made under $out/ARCH/SYSTEM/{root,var}.

# What each system runs to report, between the markers: its init, its mounts and its swaps.
report_body() {
	cat <<'EOF'
echo "=== realsys begin ==="
echo "pid1: $(cat /proc/1/comm)"
echo "mountinfo:"
sed 's/^/  /' /proc/self/mountinfo
echo "swaps:"
tail -n +2 /proc/swaps | sed 's/^/  /'
EOF
}

busybox_tree() { # ARCH DIR
	rm -rf "$2" && mkdir -p "$2/root/bin" "$2/var/lib" && fhs_dirs "$2/root" || return 1
	cp "$(extras_dir "$1")/busybox" "$2/root/bin/busybox" || return 1
	for applet in sh sed cat tail sync poweroff; do ln -s busybox "$2/root/bin/$applet"; done
	ln -s /bin/busybox "$2/root/sbin/init"
	echo "$MACHINE_ID" >"$2/root/etc/machine-id"
	echo busybox-var >"$2/var/lib/marker"
	mkdir -p "$2/root/etc/init.d"
	printf '::sysinit:/etc/init.d/rcS\n' >"$2/root/etc/inittab"
	{
		echo '#!/bin/sh'
		report_body
		# shellcheck disable=SC2016
		echo 'echo "inittab: sysinit ran $0"'
		echo 'echo "var: $(cat /var/lib/marker)"'
		echo 'echo "=== realsys end ==="'
		echo 'sync; poweroff -f'
	} >"$2/root/etc/init.d/rcS"
	chmod 0755 "$2/root/etc/init.d/rcS"
}

# The Debian tree (a copy of the cached one), its /var moved to a tree of its own, plus: the
# machine ID, the report unit (run when the command line has earlymount.report) and, for
# people (make demo DEMO=debian), root logged in on the serial console.
debian_tree() { # ARCH DIR CACHED-TREE
	rm -rf "$2" && mkdir -p "$2" || return 1
	cp -a "$3" "$2/root" && mv "$2/root/var" "$2/var" && mkdir "$2/root/var" || return 1
	echo "$MACHINE_ID" >"$2/root/etc/machine-id"
	echo realsys >"$2/root/etc/hostname"
	{
		echo '#!/bin/sh'
		echo '# earlymount test: waits for the boot to finish, reports on the console, powers off.'
		echo 'state=$(systemctl is-system-running --wait)'
		report_body
		cat <<'EOF'
echo "state: $state"
echo "failed:"
systemctl --failed --plain --no-legend --no-pager | sed 's/^/  /'
for u in $(systemctl --failed --plain --no-legend --no-pager | awk '{ print $1 }'); do
	systemctl status --no-pager -n 5 "$u" 2>&1 | sed 's/^/  why: /'
done
echo "analyze: $(systemd-analyze time --no-pager 2>&1 | head -n 1)"
echo "credentials:"
for c in /run/credentials/@system/earlymount.* /run/credentials/@encrypted/earlymount.*; do
	[ -f "$c" ] && echo "  ${c##*/}=$(cat "$c")"
done
# systemd's own import warns when it cannot write (into a read-only directory the initramfs
# made, had it not taken the environment's); the lines, and the environment PID 1 started with
echo "credential-warnings:"
journalctl -b -p warning -o cat _PID=1 --no-pager 2>/dev/null | grep -i credential | sed 's/^/  /'
echo "pid1-credential-env: $(tr '\0' '\n' </proc/1/environ | grep -c '^[A-Z_]*CREDENTIALS_DIRECTORY=')"
echo "=== realsys end ==="
systemctl poweroff
EOF
	} >"$2/root/usr/local/sbin/earlymount-report"
	chmod 0755 "$2/root/usr/local/sbin/earlymount-report"
	# Not Type=oneshot: is-system-running --wait would wait for this very unit's start.
	cat >"$2/root/etc/systemd/system/earlymount-report.service" <<'EOF'
[Unit]
Description=earlymount test report on the console
ConditionKernelCommandLine=earlymount.report

[Service]
Type=simple
ExecStart=/usr/local/sbin/earlymount-report
StandardInput=null
StandardOutput=tty
StandardError=inherit
TTYPath=/dev/console
TTYReset=no
TTYVHangup=no

[Install]
WantedBy=multi-user.target
EOF
	mkdir -p "$2/root/etc/systemd/system/multi-user.target.wants"
	ln -sf ../earlymount-report.service "$2/root/etc/systemd/system/multi-user.target.wants/"
	# The console belongs to the report during a test; else root is logged in there.
	mkdir -p "$2/root/etc/systemd/system/serial-getty@.service.d"
	cat >"$2/root/etc/systemd/system/serial-getty@.service.d/earlymount.conf" <<'EOF'
[Unit]
ConditionKernelCommandLine=!earlymount.report

[Service]
ExecStart=
ExecStart=-/sbin/agetty --autologin root --noclear --keep-baud 115200,57600,38400,9600 %I $TERM
EOF
}

# The disk: root sized for its tree, /var for this machine ID, swap.
realsys_image() { # ARCH SYSTEM IMAGE
	tree=$out/$1/$2
	root_mib=$(( $(du -sm "$tree/root" | cut -f1) * 13 / 10 + 16 ))
	var_mib=$(( $(du -sm "$tree/var" | cut -f1) + 48 ))
	build_image "$1" "$3" "
type=root-@ARCH@ size=$root_mib fs=ext4 fslabel=root dir=$tree/root
type=var size=$var_mib fs=ext4 uuid=@VARUUID@ fslabel=var dir=$tree/var
type=swap size=32 fs=swap
"
}
