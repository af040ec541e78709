# Shared by qemu/run-scenarios and qemu/demo (sourced; POSIX sh). Needs $build (the BUILD
# directory) and $here (this directory). Everything lands under $build/qemu; kernels are
# shared by every BUILD directory in $KERNEL_ROOT/kernels (default: build/kernels).

KERNEL_ROOT=${KERNEL_ROOT:-build}
MACHINE_ID=cc1fed1f50ba43cda39577333c5d0504
# Until `earlymount var-uuid` exists: the spec's check value for MACHINE_ID.
MACHINE_ID_VAR_UUID=6028e3a1-54ef-41be-90b1-c54f2e22254c
HOST_ARCH=$(uname -m)
PROBE_BEGIN='=== earlymount-probe begin ==='
PROBE_END='=== earlymount-probe end ==='
. "$here/jobslot.sh"

say() { printf '%s\n' "$*" >&2; }
die() { printf 'qemu: %s\n' "$*" >&2; exit 1; }

deb_arch() { case $1 in x86_64) echo amd64 ;; aarch64) echo arm64 ;; esac; }
dps_arch() { case $1 in x86_64) echo x86-64 ;; aarch64) echo arm64 ;; esac; }

kernel_dir() { echo "$KERNEL_ROOT/kernels/$(deb_arch "$1")"; }
# x86-64 boots the ELF kernel through PVH when qemu/kernels could unpack it: half the wall time.
kernel_image() {
	lib_k=$(kernel_dir "$1")
	if [ "$1" = x86_64 ] && [ -s "$lib_k/vmlinux" ]; then echo "$lib_k/vmlinux"; else echo "$lib_k/vmlinuz"; fi
}
kernel_moddir() { lib_k=$(kernel_dir "$1"); echo "$lib_k/lib/modules/$(cat "$lib_k/kver")"; }

fetch_kernels() { # [ARCH...]: both when none is named
	sh "$here/kernels" "$KERNEL_ROOT" "$@" || die "could not fetch the Debian kernels (see above)"
}

build_probes() { # [ARCH...]: both when none is named
	lib_probes=""
	for lib_a in ${*:-x86_64 aarch64}; do lib_probes="$lib_probes $build/$lib_a/probe-init $build/$lib_a/btrfs-subvol"; done
	# shellcheck disable=SC2086
	make -s BUILD="$build" $lib_probes >&2 || die "could not build qemu/probe-init.c and qemu/btrfs-subvol.c"
}

var_uuid() {
	"$build/$HOST_ARCH/earlymount" var-uuid "$MACHINE_ID" 2>/dev/null || echo "$MACHINE_ID_VAR_UUID"
}

# The images' /init is earlymount-init (PID 1 alone, what the hooks install): with QEMU_LIBC=musl
# the musl build, BUILD/musl-ARCH/earlymount-init (`make musl`), in images of their own; else
# (glibc) BUILD/ARCH/earlymount-init. The builder is the host's glibc binary either way.
case ${QEMU_LIBC:-glibc} in
glibc | musl) ;;
*) die "QEMU_LIBC=$QEMU_LIBC: say glibc or musl" ;;
esac
libc_suffix() { [ "${QEMU_LIBC:-glibc}" = glibc ] || echo "-$QEMU_LIBC"; }
init_binary() { # ARCH
	if [ "${QEMU_LIBC:-glibc}" = glibc ]; then echo "$build/$1/earlymount-init"; else echo "$build/musl-$1/earlymount-init"; fi
}

# The initramfs of ARCH, built once by earlymount itself (the host binary builds for any arch).
# VARIANT: "" or default (the default modules), shell (plus busybox as /bin/sh), nodriver
# (virtio_blk left out: the disk's driver is missing), nousbstorage (usb-storage and uas left
# out: a USB disk never comes). QEMU_INITRD_DIR=DIR boots
# DIR/initramfs-ARCH.img instead (another initramfs, same checks) whatever the variant.
initramfs_image() { # ARCH [VARIANT]
	if [ -n "${QEMU_INITRD_DIR:-}" ]; then echo "$QEMU_INITRD_DIR/initramfs-$1.img"; return 0; fi
	case ${2:-default} in
	default) echo "$build/qemu/initramfs-$1$(libc_suffix).img" ;;
	*) echo "$build/qemu/initramfs-$1-$2$(libc_suffix).img" ;;
	esac
}

# The busybox and systemd-boot of ARCH (see qemu/extras).
extras_dir() { echo "$KERNEL_ROOT/extras/$(deb_arch "$1")"; }
fetch_extras() {
	sh "$here/extras" "$KERNEL_ROOT" || die "could not fetch busybox and systemd-boot (see above)"
}

# e2fsck, fsck.fat and klibc's ipconfig of ARCH with their libraries, a root tree (see
# qemu/fsck-tools).
fsck_tools_dir() { echo "$KERNEL_ROOT/fsck/$(deb_arch "$1")"; }
# The root tree the image's programs of another arch come from (klibc's ipconfig, dropbear):
# the host's own / on its arch (.ci/deps installs them), else Debian's of the arch.
tools_root() { # ARCH
	if [ "$1" = "$HOST_ARCH" ]; then echo /; else fsck_tools_dir "$1"; fi
}
fetch_fsck_tools() { # ARCH...
	lib_debs=""
	for lib_a in "$@"; do [ "$lib_a" = "$HOST_ARCH" ] || lib_debs="$lib_debs $(deb_arch "$lib_a")"; done
	[ -z "$lib_debs" ] && return 0
	# shellcheck disable=SC2086
	sh "$here/fsck-tools" "$KERNEL_ROOT" $lib_debs || die "could not fetch e2fsck, fsck.fat and ipconfig (see above)"
}

# The crypttab of tests/fixtures/NAME with @KEY@ the checkout's path of the fixtures' key file
# (a host's path, which the image then holds), in $build/qemu; rewritten only when it changes,
# so that the images made of it stay cached.
crypttab_file() { # NAME
	lib_ct=$build/qemu/$1.crypttab
	lib_hdr=$(cd "$build/qemu" && pwd)/crypttab-header.hdr
	if grep -q @HDR@ "tests/fixtures/$1" && [ ! -s "$lib_hdr" ]; then
		detached_header "$lib_hdr" || return 1
	fi
	sed -e "s|@KEY@|$(pwd)/tests/fixtures/luks.key|" -e "s|@HDR@|$lib_hdr|" "tests/fixtures/$1" \
		>"$lib_ct.new.$$" || return 1
	if cmp -s "$lib_ct.new.$$" "$lib_ct"; then rm -f "$lib_ct.new.$$"; else mv "$lib_ct.new.$$" "$lib_ct"; fi
	echo "$lib_ct"
}

# A detached LUKS2 header (passphrase s3cret, UUID 4c554b53-…-0000000000c1) made on the host,
# where formatting one writes the header file alone; the data it covers starts at sector 0 of
# its device. Small metadata and keyslot areas: the file goes into an initramfs. Its volume
# key is a fixed test key, so that a header made again still opens a disk the stack cache
# kept (the data's encryption depends on that key alone).
detached_header() { # FILE
	lib_tmp=$(mktemp -d) || return 1
	truncate -s 1M "$lib_tmp/data" && printf '%064d' 0 | tr 0 k >"$lib_tmp/vk" &&
		printf s3cret | cryptsetup luksFormat -q --type luks2 --header "$lib_tmp/hdr" \
			--cipher aes-xts-plain64 --key-size 512 --volume-key-file "$lib_tmp/vk" \
			--pbkdf pbkdf2 --pbkdf-force-iterations 1000 --sector-size 512 \
			--luks2-metadata-size 16k --luks2-keyslots-size 256k \
			--uuid 4c554b53-0000-4000-8000-0000000000c1 --key-file - "$lib_tmp/data" \
			>/dev/null && mv "$lib_tmp/hdr" "$1"
	lib_rc=$?
	rm -rf "$lib_tmp"
	return $lib_rc
}

build_initramfs() { # ARCH [VARIANT]
	[ -z "${QEMU_INITRD_DIR:-}" ] || return 0
	lib_variant=${2:-default}
	lib_img=$(initramfs_image "$1" "$lib_variant")
	lib_em=$(init_binary "$1")
	[ -x "$lib_em" ] || die "no $lib_em to put in the initramfs as /init: build it first (make; make musl for QEMU_LIBC=musl)"
	# The checkers (3.2-3.3 MiB with their libc) only where a scenario wants them: every
	# other image stays as small, and as alike on both arches, as before.
	case $lib_variant in
	default) set -- "$1" --no-fsck ;;
	shell) set -- "$1" --no-fsck --add "$(extras_dir "$1")/busybox:/bin/sh" ;;
	nodriver) set -- "$1" --no-fsck --omit virtio_blk ;;
	# the 6300ESB watchdog's driver (qemu/boot --watchdog), and a pre-discover hook that
	# never ends, for the watchdog to end it when rd.watchdog.hang is on the command line
	watchdog) set -- "$1" --no-fsck --module i6300esb --add "$(extras_dir "$1")/busybox:/bin/sh" \
		--add qemu/hang-hook:/usr/lib/earlymount/hooks/pre-discover.d/50-hang ;;
	nousbstorage) set -- "$1" --no-fsck --omit usb_storage --omit uas ;;
	# the LUKS helper beside $lib_em, and its modules
	luks) set -- "$1" --no-fsck --luks ;;
	# lvm beside $lib_em, and dm_mod
	lvm) set -- "$1" --no-fsck --lvm ;;
	luks-lvm) set -- "$1" --no-fsck --luks --lvm ;;
	# mdadm beside $lib_em, and md's modules
	md) set -- "$1" --no-fsck --md ;;
	# and a key file for rd.luks.key= (tests/fixtures/luks.key, the key of luks=file: disks)
	luks-key) set -- "$1" --no-fsck --luks --add tests/fixtures/luks.key:/etc/earlymount/luks.key ;;
	# LVM on LUKS as Debian's installer leaves it: the image's crypttab names the volume
	crypttab-lvm) set -- "$1" --no-fsck --luks --lvm --crypttab "$(crypttab_file crypttab-lvm)" ;;
	# a crypttab whose root entry names a key file, which goes into the image
	crypttab-key) set -- "$1" --no-fsck --luks --crypttab "$(crypttab_file crypttab-key)" ;;
	# a root whose LUKS header is a file of the image
	crypttab-header) set -- "$1" --no-fsck --luks --crypttab "$(crypttab_file crypttab-header)" ;;
	# dropbear, root's key the scenarios' client's (qemu/ssh-answer), the host keys kept in
	# $build/qemu/ssh/hostkeys; Debian's dropbear of the arch from the tools root
	luks-ssh) set -- "$1" --no-fsck --luks --ssh-authorized-keys "$(ssh_client_key).pub" \
		--ssh-host-keys "$build/qemu/ssh/hostkeys" --tools-root "$(tools_root "$1")" ;;
	# a plain dm-crypt root
	crypttab-plain) set -- "$1" --no-fsck --luks --crypttab "$(crypttab_file crypttab-plain)" ;;
	# an encrypted swap to resume from, by the name crypttab gives it
	crypttab-swap) set -- "$1" --no-fsck --luks --crypttab "$(crypttab_file crypttab-swap)" ;;
	# and the German keymap (kbd's loadkeys, console-data's de-latin1), the default one
	luks-de) set -- "$1" --no-fsck --luks --keymap de-latin1 ;;
	# and a credential where systemd-stub puts the ESP's (/.extra/global_credentials), as if
	# a UKI had booted: earlymount then does the whole import, the real systemd none
	stubcreds) set -- "$1" --no-fsck --add tests/fixtures/stub-credential.cred:/.extra/global_credentials/earlymount.stub.cred ;;
	# the network (issue 46): NIC drivers, NFS, klibc's ipconfig with its klibc .so from a
	# root tree of the image's arch: the host's own / (klibc-utils, which initramfs-tools
	# depends on: .ci/deps), else Debian's of the arch (qemu/fsck-tools)
	network) set -- "$1" --no-fsck --network --tools-root "$(tools_root "$1")" ;;
	# e2fsck and fsck.fat: the host's on its own arch (the default of `earlymount initramfs`),
	# else Debian's of the arch (qemu/fsck-tools); lvm-fsck is the bench's `--lvm` image
	# network-fsck: the bench's --network image
	fsck | luks-fsck | lvm-fsck | fsck-ko | network-fsck)
		set -- "$1" --tools-root "$(tools_root "$1")"
		case $lib_variant in
		luks-fsck) set -- "$@" --luks ;;
		lvm-fsck) set -- "$@" --lvm ;;
		fsck-ko) set -- "$@" --compress-modules none ;;
		network-fsck) set -- "$@" --network ;;
		esac ;;
	*) say "qemu: unknown initramfs variant '$lib_variant' (default, shell, nodriver, nousbstorage, luks, luks-key, luks-de, stubcreds, fsck, luks-fsck, lvm, luks-lvm, lvm-fsck, fsck-ko, network-fsck, md, watchdog, network, luks-ssh, crypttab-lvm, crypttab-key, crypttab-swap, crypttab-plain, crypttab-header)"; return 1 ;;
	esac
	mkdir -p "$(dirname "$lib_img")"
	(flock 9 && build_initramfs_locked "$@") 9>"$lib_img.lock" || exit 1
}

build_initramfs_locked() { # ARCH OPTION...
	# Cached while neither the /init binary, the builder (the host binary) nor the helper changed.
	[ -s "$lib_img" ] && [ "$lib_img" -nt "$lib_em" ] &&
		[ "$lib_img" -nt "$build/$HOST_ARCH/earlymount" ] &&
		{ case $lib_variant in luks* | crypttab*) [ "$lib_img" -nt "$build/$1/earlymount-luks" ] ;; esac; } &&
		{ case $lib_variant in crypttab*) [ "$lib_img" -nt "$build/qemu/$lib_variant.crypttab" ] ;; esac; } &&
		{ case $lib_variant in crypttab-header) [ "$lib_img" -nt "$build/qemu/crypttab-header.hdr" ] ;; esac; } &&
		{ case $lib_variant in *lvm*) [ "$lib_img" -nt "$build/$1/lvm" ] ;; esac; } &&
		{ case $lib_variant in md) [ "$lib_img" -nt "$build/$1/mdadm" ] ;; esac; } && return 0
	lib_arch=$1
	shift
	"$build/$HOST_ARCH/earlymount" initramfs --moddir "$(kernel_moddir "$lib_arch")" --init "$lib_em" \
		--arch "$lib_arch" "$@" -o "$lib_img.tmp" >"$lib_img.out" 2>&1 || {
		cat "$lib_img.out" >&2
		rm -f "$lib_img.tmp"
		die "'earlymount initramfs' failed for $lib_arch ($lib_variant)"
	}
	mv "$lib_img.tmp" "$lib_img"
}

# An ESP tree for a UEFI boot: systemd-boot as the removable-media loader, which starts the
# kernel with the initramfs of VARIANT and "console=… APPEND" without a menu. With UKI=yes,
# a unified kernel image that `earlymount uki` built of the same is the removable-media
# loader instead, started by the firmware itself.
build_esp_tree() { # ARCH DIR VARIANT APPEND [UKI: no, yes, signed]
	lib_uki=${5:-no}
	rm -rf "$2"
	mkdir -p "$2/EFI/BOOT" "$2/loader/entries" "$2/earlymount"
	case $1 in
	x86_64) lib_efi=BOOTX64.EFI lib_con=ttyS0 ;;
	aarch64) lib_efi=BOOTAA64.EFI lib_con=ttyAMA0 ;;
	esac
	if [ "${5:-no}" != no ]; then
		set -- "$@" --arch "$1" --kernel "$(kernel_dir "$1")/vmlinuz" \
			--initrd "$(initramfs_image "$1" "$3")" --stub "$(extras_dir "$1")/linux.efi.stub" \
			--os-release "$here/uki-os-release" --cmdline "console=$lib_con${4:+ $4}" \
			-o "$2/EFI/BOOT/$lib_efi"
		shift 5
		# signed: the PCR 11 values of its boot phases signed with the test key, which
		# systemd-measure 252 calculates with a TPM (a software one, for the time)
		if [ "$lib_uki" = signed ]; then
			test_signing_key || return 1
			lib_port=$((20000 + $$ % 20000 + 100))
			lib_tpm=$(mktemp -d) || return 1
			swtpm socket --tpm2 --tpmstate "dir=$lib_tpm" --server "type=tcp,port=$lib_port,bindaddr=127.0.0.1" \
				--ctrl "type=tcp,port=$((lib_port + 1)),bindaddr=127.0.0.1" \
				--flags not-need-init,startup-clear -d --pid "file=$lib_tpm/pid" || return 1
			set -- "$@" --pcr-private-key "$build/qemu/keys/test.key" \
				--pcr-public-key "$build/qemu/keys/test.pub" \
				--tpm2-device "swtpm:host=127.0.0.1,port=$lib_port"
		fi
		"$build/$HOST_ARCH/earlymount" uki "$@"
		lib_rc=$?
		if [ "$lib_uki" = signed ]; then
			kill "$(cat "$lib_tpm/pid")" 2>/dev/null
			sleep 0.2
			rm -rf "$lib_tpm"
		fi
		return $lib_rc
	fi
	cp "$(extras_dir "$1")/systemd-boot.efi" "$2/EFI/BOOT/$lib_efi"
	# The EFI stub is in the compressed image, not in the PVH vmlinux.
	cp "$(kernel_dir "$1")/vmlinuz" "$2/earlymount/linux"
	cp "$(initramfs_image "$1" "$3")" "$2/earlymount/initrd"
	printf 'timeout 0\ndefault earlymount.conf\n' >"$2/loader/loader.conf"
	esp_entry "$1" "$4" >"$2/loader/entries/earlymount.conf"
}

# The ESP's loader entry (loader/entries/earlymount.conf) of ARCH's kernel with APPEND.
esp_entry() { # ARCH APPEND
	case $1 in
	x86_64) lib_con=ttyS0 ;;
	aarch64) lib_con=ttyAMA0 ;;
	esac
	printf 'title earlymount\nlinux /earlymount/linux\ninitrd /earlymount/initrd\noptions console=%s%s\n' \
		"$lib_con" "${2:+ $2}"
}

# The directory trees copied into the test filesystems, per arch, under $build/qemu/fs/ARCH.
fhs_dirs() { # ROOT
	for lib_d in proc sys dev run usr var home srv etc tmp sbin opt boot efi; do mkdir -p "$1/$lib_d"; done
	chmod 1777 "$1/tmp"
}

root_tree() { # DIR MARKER [INIT-PATH]
	rm -rf "$1"
	fhs_dirs "$1"
	echo "$2" >"$1/etc/probe-marker"
	[ -z "${3:-}" ] && return 0
	mkdir -p "$1/$(dirname "$3")"
	cp "$lib_probe" "$1/$3"
	chmod 0755 "$1/$3"
}

# Built once for the probe-init of the moment, under a lock: the steps of `make check` that
# make images of them run side by side.
build_trees() { # ARCH
	lib_fs=$build/qemu/fs/$1
	mkdir -p "$lib_fs"
	(
		flock 9
		[ "$lib_fs/.built" -nt "$build/$1/probe-init" ] && [ "$lib_fs/.built" -nt "$here/lib.sh" ] && exit 0
		rm -f "$lib_fs/.built"
		make_trees "$1" && touch "$lib_fs/.built"
	) 9>"$lib_fs/.lock" || die "could not make the test trees of $1 in $lib_fs"
}

make_trees() { # ARCH
	lib_fs=$build/qemu/fs/$1
	lib_probe=$build/$1/probe-init
	root_tree "$lib_fs/root" root sbin/init
	root_tree "$lib_fs/root-mid" root-with-machine-id sbin/init
	echo "$MACHINE_ID" >"$lib_fs/root-mid/etc/machine-id"
	root_tree "$lib_fs/root-noinit" root-without-init
	root_tree "$lib_fs/root-opt" root-with-opt-probe opt/probe
	root_tree "$lib_fs/root-1.9" root-1.9 sbin/init
	root_tree "$lib_fs/root-1.10" root-1.10 sbin/init
	# a root with a udev, as real systems have: earlymount leaves it the drivers not needed
	root_tree "$lib_fs/root-udev" root-with-udev sbin/init
	mkdir -p "$lib_fs/root-udev/usr/lib/systemd"
	printf '#!/bin/sh\n# stands for systemd-udevd, which the tests never run\nexit 0\n' \
		>"$lib_fs/root-udev/usr/lib/systemd/systemd-udevd"
	chmod 0755 "$lib_fs/root-udev/usr/lib/systemd/systemd-udevd"
	rm -rf "$lib_fs/usr" "$lib_fs/var" "$lib_fs/empty"
	mkdir -p "$lib_fs/usr/lib" "$lib_fs/usr/share" "$lib_fs/var/tmp" "$lib_fs/var/lib" "$lib_fs/empty"
	echo usr >"$lib_fs/usr/share/probe-marker"
	chmod 1777 "$lib_fs/var/tmp"
	build_volatile_trees "$1"
}

# usr-os, a /usr that boots alone (the probe as /usr/sbin/init, factory
# /etc and /var; lib64 on x86_64 only, where the ABI's loader lives); root-bare, a root that
# holds nothing but that /usr: the skeleton must make the rest.
build_volatile_trees() { # ARCH
	lib_fs=$build/qemu/fs/$1
	rm -rf "$lib_fs/usr-os" "$lib_fs/root-bare"
	mkdir -p "$lib_fs/usr-os/bin" "$lib_fs/usr-os/sbin" "$lib_fs/usr-os/lib" \
		"$lib_fs/usr-os/share/factory/etc" "$lib_fs/usr-os/share/factory/var/lib"
	[ "$1" != x86_64 ] || mkdir -p "$lib_fs/usr-os/lib64"
	cp "$build/$1/probe-init" "$lib_fs/usr-os/sbin/init"
	chmod 0755 "$lib_fs/usr-os/sbin/init"
	echo usr-os >"$lib_fs/usr-os/share/probe-marker"
	echo factory-etc >"$lib_fs/usr-os/share/factory/etc/probe-marker"
	echo factory-var >"$lib_fs/usr-os/share/factory/var/lib/probe-factory"
	mkdir -p "$lib_fs/root-bare"
	cp -a "$lib_fs/usr-os" "$lib_fs/root-bare/usr"
}

# Writes IMAGE from PARTS (one mkdisk PART per line), after replacing @ARCH@ (x86-64,
# arm64), @FS@ (the trees of the arch), @VARUUID@, @ESP@ (ESP-DIR, an ESP tree) and @PREP@
# ($prep_dir: what a scenario's prepare= made).
build_image() { # ARCH IMAGE PARTS [ESP-DIR]
	lib_arch=$1 lib_img=$2 lib_parts=$3
	lib_sub="s|@ARCH@|$(dps_arch "$lib_arch")|g; s|@FS@|$build/qemu/fs/$lib_arch|g; s|@VARUUID@|$(var_uuid)|g; s|@ESP@|${4:-}|g; s|@PREP@|${prep_dir:-}|g"
	set --
	lib_ifs=$IFS
	IFS='
'
	set -f
	for lib_p in $(printf '%s\n' "$lib_parts" | sed -e "$lib_sub" -e '/^[[:space:]]*$/d'); do
		# mkdisk drops dir= when fslabel= is empty (its tab-separated job list collapses
		# the empty field), leaving an empty filesystem: insist on a label.
		case " $lib_p " in
		*" dir="*" fslabel="* | *" fslabel="*" dir="*) ;;
		*" dir="*) say "qemu: '$lib_p': give fslabel= with dir="; set +f; IFS=$lib_ifs; return 1 ;;
		esac
		set -- "$@" "$lib_p"
	done
	set +f
	IFS=$lib_ifs
	mkdir -p "$(dirname "$lib_img")"
	SOURCE_DATE_EPOCH=1700000000 sh tests/fixtures/mkdisk "$lib_img" "$@" >"$lib_img.out" 2>&1 || {
		cat "$lib_img.out" >&2
		return 1
	}
	rm -f "$lib_img.out"
}

# A self-signed key and certificate for repart's Verity=signature, made once per BUILD.
test_signing_key() {
	mkdir -p "$build/qemu/keys"
	(
		flock 9
		[ -s "$build/qemu/keys/test.crt" ] && [ -s "$build/qemu/keys/test.pub" ] && exit 0
		openssl req -x509 -newkey rsa:2048 -nodes -subj /CN=earlymount-test -days 36500 \
			-keyout "$build/qemu/keys/test.key" -out "$build/qemu/keys/test.crt" >/dev/null 2>&1 ||
			{ say "qemu: openssl could not make a test signing key"; exit 1; }
		openssl x509 -in "$build/qemu/keys/test.crt" -pubkey -noout >"$build/qemu/keys/test.pub"
	) 9>"$build/qemu/keys/.lock"
}

# Writes IMAGE with systemd-repart (252 or later; root: it formats through loop devices) from
# DEFS, definition files each begun by a line "--- NAME.conf", after replacing @ARCH@, @FS@
# (absolute: repart ignores a relative CopyFiles= source with a mere warning), @VARUUID@ and
# @ESP@; and IMAGE.verity, "KEY ROOTHASH" per VerityMatchKey=, as mkdisk writes it.
build_repart_image() { # ARCH IMAGE DEFS [ESP-DIR]
	lib_arch=$1 lib_img=$2
	command -v systemd-repart >/dev/null ||
		{ say "qemu: repart= needs systemd-repart (systemd 252 or later)"; return 1; }
	lib_defs=$lib_img.repart.d
	rm -rf "$lib_defs" "$lib_img" "$lib_img.verity" "$lib_img.json" "$lib_img.out"
	mkdir -p "$lib_defs"
	lib_esp=${4:-}
	[ -z "$lib_esp" ] || lib_esp=$(cd "$lib_esp" && pwd)
	lib_sub="s|@ARCH@|$(dps_arch "$lib_arch")|g; s|@FS@|$(cd "$build" && pwd)/qemu/fs/$lib_arch|g; s|@VARUUID@|$(var_uuid)|g; s|@ESP@|$lib_esp|g"
	printf '%s\n' "$3" | sed -e "$lib_sub" | awk -v dir="$lib_defs" '
		/^--- / {
			name = substr($0, 5)
			if (name !~ /^[A-Za-z0-9._-]+\.conf$/ || (name in seen)) {
				print "qemu: repart=: \"" $0 "\": each file begins with --- NAME.conf, a new NAME" > "/dev/stderr"
				exit 1
			}
			seen[name] = 1
			if (f != "") close(f)
			f = dir "/" name
			printf "" > f
			next
		}
		f == "" && /^[[:space:]]*$/ { next }
		f == "" { print "qemu: repart=: \"" $0 "\" comes before the first --- NAME.conf line" > "/dev/stderr"; exit 1 }
		{ print > f }' || return 1
	[ -n "$(ls "$lib_defs")" ] || { say "qemu: repart= holds no definition file (--- NAME.conf)"; return 1; }
	mkdir -p "$(dirname "$lib_img")"
	# Verity=signature: signed by a key made here, which no kernel trusts (Debian's trust only
	# Debian's keys): what the tests can show is the refusal.
	set --
	if grep -q '^[[:space:]]*Verity=[[:space:]]*signature' "$lib_defs"/*.conf; then
		test_signing_key || return 1
		set -- --private-key="$build/qemu/keys/test.key" --certificate="$build/qemu/keys/test.crt"
	fi
	# The seed fixes the disk and partition UUIDs (the verity pair's come from its root hash).
	SOURCE_DATE_EPOCH=1700000000 systemd-repart "$@" --empty=create --size=auto --definitions="$lib_defs" \
		--dry-run=no --json=short --seed="$(printf 'repart:%s' "$(basename "$lib_img")" | sha256sum |
			sed -E 's/^(.{8})(.{4}).(.{3}).(.{3})(.{12}).*/\1-\2-4\3-8\4-\5/')" \
		"$lib_img" >"$lib_img.json" 2>"$lib_img.out" </dev/null || {
		cat "$lib_img.out" >&2
		say "qemu: systemd-repart failed (definitions kept in $lib_defs)"
		return 1
	}
	# A definition line repart cannot use is a warning ("FILE:LINE: …, ignoring"), and the
	# image lacks what the scenario asked for.
	if grep -F "$lib_defs/" "$lib_img.out" | grep 'ignoring' >&2; then
		say "qemu: systemd-repart ignored the lines above (definitions kept in $lib_defs)"
		rm -f "$lib_img"
		return 1
	fi
	# 252 prints a one-line JSON array, an object per partition; the hash partition's has
	# "roothash" (the data partition's is null) and "file", its definition file.
	{ tr -d '\n' <"$lib_img.json" && echo; } | sed 's/},[[:space:]]*{/}\n{/g' | while read -r lib_o; do
		lib_file=$(printf '%s\n' "$lib_o" | sed -n 's/.*"file":[[:space:]]*"\([^"]*\)".*/\1/p')
		lib_hash=$(printf '%s\n' "$lib_o" | sed -n 's/.*"roothash":[[:space:]]*"\([0-9a-f]\{64\}\)".*/\1/p')
		[ -n "$lib_hash" ] || continue
		lib_key=$(sed -n 's/^[[:space:]]*VerityMatchKey=[[:space:]]*\([^[:space:]]*\).*/\1/p' "$lib_defs/$lib_file" | tail -n 1)
		[ -n "$lib_key" ] || lib_key=${lib_file%.conf}
		grep -q "^$lib_key " "$lib_img.verity" 2>/dev/null || echo "$lib_key $lib_hash" >>"$lib_img.verity"
	done
	lib_want=$(grep -l '^[[:space:]]*Verity=[[:space:]]*hash' "$lib_defs"/*.conf | wc -l)
	lib_got=0
	[ ! -f "$lib_img.verity" ] || lib_got=$(wc -l <"$lib_img.verity")
	[ "$lib_want" -eq "$lib_got" ] || {
		say "qemu: $lib_want Verity=hash partitions, but $lib_got root hashes in systemd-repart's JSON ($lib_img.json)"
		return 1
	}
	rm -rf "$lib_defs" "$lib_img.json" "$lib_img.out"
}

# --- private links between guests (issue 46) ---

# Whether no socket of this machine (PROTO udp or tcp) is bound to PORT (/proc/net/PROTO, and
# PROTO6).
port_free() { # PROTO PORT
	lib_hex=$(printf ':%04X' "$2")
	! awk -v h="$lib_hex" 'FNR > 1 && substr($2, length($2) - 4) == h { found = 1 } END { exit !found }' \
		"/proc/net/$1" "/proc/net/${1}6" 2>/dev/null
}

# COUNT ports of PROTO from reserved_port up: unbound now, and held for as long as file
# descriptor FD stays open, here and in every process that inherits it, by a lock on
# /tmp/earlymount-udp/PROTO-PORT that every checkout's runs share: two runs side by side never
# take the same. Searched in [BASE, BASE + SPAN), below Linux's ephemeral ports (32768 up),
# which any program's socket may be given while a guest is not running.
reserve_ports() { # FD PROTO COUNT BASE SPAN
	mkdir -p /tmp/earlymount-udp
	# each run starts its search elsewhere: runs started together rarely try the same port
	lib_p=$(($4 + $$ % ($5 / $3) * $3)) lib_tries=0
	while [ $lib_tries -lt $(($5 / $3)) ]; do
		lib_ok=yes
		for lib_i in $(seq 0 $(($3 - 1))); do port_free "$2" $((lib_p + lib_i)) || lib_ok=no; done
		if [ $lib_ok = yes ]; then
			eval "exec $1>/tmp/earlymount-udp/$2-$lib_p"
			flock -n "$1" && { reserved_port=$lib_p; return 0; }
			eval "exec $1>&-"
		fi
		lib_p=$((lib_p + $3))
		[ $lib_p -lt $(($4 + $5)) ] || lib_p=$4
		lib_tries=$((lib_tries + 1))
	done
	return 1
}

# Two UDP ports of 127.0.0.1, udp_pair and udp_pair + 1, for a link between two QEMUs (-netdev
# dgram).
reserve_udp_pair() { # FD
	reserve_ports "$1" udp 2 30000 2000 && udp_pair=$reserved_port
}

# A TCP port of 127.0.0.1 for QEMU's forwarded SSH port (qemu/boot --net-user-ssh), in
# tcp_port.
reserve_tcp_port() { # FD
	reserve_ports "$1" tcp 1 32100 600 && tcp_port=$reserved_port
}

# The SSH client's key of the scenarios that unlock over SSH, made once (ssh-keygen), and
# where the image's host keys are kept (made once by `earlymount initramfs`).
ssh_client_key() {
	lib_dir=$build/qemu/ssh
	mkdir -p "$lib_dir"
	[ -s "$lib_dir/id" ] || ssh-keygen -q -t ed25519 -N '' -C earlymount-test -f "$lib_dir/id" </dev/null >/dev/null ||
		return 1
	echo "$lib_dir/id"
}

# --- reading what the guest printed (serial logs have CR LF line ends) ---

# The probe's block without its markers; nothing when there is none.
probe_block() { # LOG
	tr -d '\r' <"$1" | awk -v b="$PROBE_BEGIN" -v e="$PROBE_END" '
		$0 == e { inside = 0 } inside { print } $0 == b { inside = 1 }'
}

# The value of a "key: value" line of the block.
probe_field() { # BLOCK-FILE KEY
	sed -n "s/^$2: //p" "$1" | head -n 1
}

# The mountinfo lines of the block, without their indent.
probe_mountinfo() { # BLOCK-FILE
	awk '/^mountinfo:$/ { on = 1; next } on && /^  / { sub(/^  /, ""); print; next } on { exit }' "$1"
}

probe_timings() { # BLOCK-FILE
	probe_section "$1" timings
}

# The lines of the block's "NAME:" section, without their indent.
probe_section() { # BLOCK-FILE NAME
	awk -v n="$2:" '$0 == n { on = 1; next } on && /^  / { sub(/^  /, ""); print; next } on { exit }' "$1"
}

# "SOURCE FSTYPE MOUNT-OPTIONS SUPER-OPTIONS" of the mount on top at TARGET, from mountinfo
# lines on stdin; nothing when TARGET is not a mount point.
mount_at() { # TARGET
	awk -v t="$1" '
		$5 == t {
			for (i = 7; i <= NF && $i != "-"; i++) ;
			top = $(i + 2) " " $(i + 1) " " $6 " " $(i + 3)
		}
		END { if (top != "") print top }'
}

# Whether every option of WANT (comma-separated) is set in MOUNT-OPTS or SUPER-OPTS; ro and rw
# are judged on the mount options alone, they are what a process sees.
options_have() { # WANT MOUNT-OPTS SUPER-OPTS
	awk -v want="$1" -v m="$2" -v s="$3" 'BEGIN {
		nm = split(m, mo, ","); ns = split(s, so, ",")
		for (i = 1; i <= nm; i++) have_m[mo[i]] = 1
		for (i = 1; i <= ns; i++) have_s[so[i]] = 1
		n = split(want, w, ",")
		for (i = 1; i <= n; i++) {
			if (w[i] == "") continue
			if (w[i] == "ro" || w[i] == "rw") { if (!(w[i] in have_m)) exit 1 }
			else if (!(w[i] in have_m) && !(w[i] in have_s)) exit 1
		}
	}'
}
