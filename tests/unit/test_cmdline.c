/* The kernel command-line parser. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "cmdline.h"

static struct options opts;
static char err[256];

static int parse(const char *line)
{
	return cmdline_parse(line, &opts, err, sizeof(err));
}

/* Parses a line that must be accepted without complaint. */
static void parse_ok(const char *line)
{
	int r = parse(line);

	if (r != 0)
		fail_msg("\"%s\" gave %d: %s", line, r, err);
	assert_string_equal(err, "");
}

static void parse_einval(const char *line)
{
	int r = parse(line);

	if (r != -EINVAL)
		fail_msg("\"%s\" gave %d, not -EINVAL", line, r);
	assert_true(strlen(err) > 0);
}

static void assert_defaults(const struct options *o)
{
	assert_int_equal(o->root_kind, ROOT_DISCOVER);
	assert_null(o->root);
	assert_null(o->rootfstype);
	assert_null(o->rootflags);
	assert_int_equal(o->rw, -1);
	assert_null(o->usr);
	assert_null(o->usrfstype);
	assert_null(o->usrflags);
	assert_true(o->gpt_auto);
	assert_int_equal(o->volatile_mode, VOLATILE_NO);
	assert_null(o->init);
	assert_null(o->disk);
	assert_false(o->has_machine_id);
	assert_false(o->emergency);
	assert_int_equal(o->emergency_action, EMERGENCY_UNSET);
	assert_false(o->no_shell);
	assert_int_equal(o->panic_sec, 0);
	assert_false(o->rd_break);
	assert_false(o->quiet);
	assert_false(o->debug);
	assert_false(o->rootwait);
	assert_int_equal(o->timeout_sec, -1);
	assert_int_equal(o->rootdelay_sec, -1);
	assert_null(o->modules_load);
	assert_null(o->modprobe_blacklist);
	assert_int_equal(o->n_module_params, 0);
}

static void test_options_init(void **state)
{
	memset(&opts, 0xa5, sizeof(opts));
	options_init(&opts);
	assert_defaults(&opts);
	assert_int_equal(opts.used, 0);
}

static void test_empty_and_whitespace(void **state)
{
	parse_ok("");
	assert_defaults(&opts);
	parse_ok("   \t\n  \n");
	assert_defaults(&opts);
	parse_ok("\"\"");
	assert_defaults(&opts);
}

static void test_null_line(void **state)
{
	assert_int_equal(parse(NULL), -EINVAL);
	assert_defaults(&opts);
	assert_true(strlen(err) > 0);
}

static void test_debian_line(void **state)
{
	parse_ok("BOOT_IMAGE=/vmlinuz-6.1.0-40-amd64 root=UUID=0f3c6a1e-2b7d-4c55-9a61-3e2f8b7d9c10 ro quiet splash\n");
	assert_int_equal(opts.root_kind, ROOT_DEVICE);
	assert_string_equal(opts.root, "UUID=0f3c6a1e-2b7d-4c55-9a61-3e2f8b7d9c10");
	assert_int_equal(opts.rw, 0);
	assert_true(opts.quiet);
	assert_false(opts.debug);
	assert_int_equal(opts.n_module_params, 0);
}

static void test_systemd_boot_line(void **state)
{
	parse_ok("initrd=\\EFI\\debian\\initrd.img root=PARTUUID=4f68bce3-e8cd-4db1-96e7-fbcaf984b709 "
		 "rw rootfstype=ext4 rootflags=discard systemd.machine_id=cc1fed1f50ba43cda39577333c5d0504 "
		 "console=ttyS0,115200n8 i915.enable_psr=0 nvme_core.default_ps_max_latency_us=0");
	assert_string_equal(opts.root, "PARTUUID=4f68bce3-e8cd-4db1-96e7-fbcaf984b709");
	assert_int_equal(opts.rw, 1);
	assert_string_equal(opts.rootfstype, "ext4");
	assert_string_equal(opts.rootflags, "discard");
	assert_true(opts.has_machine_id);
	assert_int_equal(opts.machine_id[0], 0xcc);
	assert_int_equal(opts.machine_id[15], 0x04);
	assert_int_equal(opts.n_module_params, 2);
}

static void test_root_forms(void **state)
{
	static const char *const devices[] = {
		"/dev/vda2", "UUID=abc", "PARTUUID=4f68bce3-e8cd-4db1-96e7-fbcaf984b709",
		"LABEL=root", "PARTLABEL=root-x86-64", "/dev/disk/by-label/my root",
	};
	char line[128];

	parse_ok("root=gpt-auto");
	assert_int_equal(opts.root_kind, ROOT_DISCOVER);
	assert_null(opts.root);
	parse_ok("root=tmpfs");
	assert_int_equal(opts.root_kind, ROOT_TMPFS);
	assert_null(opts.root);
	for (size_t i = 0; i < sizeof(devices) / sizeof(devices[0]); i++) {
		snprintf(line, sizeof(line), "root=\"%s\"", devices[i]);
		parse_ok(line);
		assert_int_equal(opts.root_kind, ROOT_DEVICE);
		assert_string_equal(opts.root, devices[i]);
	}
}

static void test_root_invalid_keeps_previous(void **state)
{
	parse_einval("root=/dev/vda2 root=sda1");
	assert_int_equal(opts.root_kind, ROOT_DEVICE);
	assert_string_equal(opts.root, "/dev/vda2");
	assert_non_null(strstr(err, "root=sda1"));
	parse_einval("root=UUID=");
	assert_int_equal(opts.root_kind, ROOT_DISCOVER);
	parse_einval("root");
	assert_int_equal(opts.root_kind, ROOT_DISCOVER);
	assert_non_null(strstr(err, "root"));
}

static void test_root_empty_resets(void **state)
{
	parse_ok("root=/dev/vda2 root=");
	assert_int_equal(opts.root_kind, ROOT_DISCOVER);
	assert_null(opts.root);
	parse_ok("root=tmpfs root=/dev/vda2");
	assert_int_equal(opts.root_kind, ROOT_DEVICE);
	parse_ok("root=/dev/vda2 root=tmpfs");
	assert_int_equal(opts.root_kind, ROOT_TMPFS);
	assert_null(opts.root);
	parse_ok("root=/dev/vda2 root=gpt-auto");
	assert_int_equal(opts.root_kind, ROOT_DISCOVER);
	assert_null(opts.root);
}

/* The forms of dracut, mkosi and virtme-ng for a root on a host share. */
static void test_root_share(void **state)
{
	parse_ok("root=virtiofs:myfs");
	assert_int_equal(opts.root_kind, ROOT_SHARE);
	assert_int_equal(opts.root_share, SHARE_VIRTIOFS);
	assert_string_equal(opts.root, "myfs");
	parse_ok("root=virtfs:host0 rootflags=trans=virtio");
	assert_int_equal(opts.root_kind, ROOT_SHARE);
	assert_int_equal(opts.root_share, SHARE_9P);
	assert_string_equal(opts.root, "host0");
	/* the fstype key decides wherever it is; virtme-ng's tag looks like a device */
	parse_ok("root=ROOTFS rootfstype=virtiofs");
	assert_int_equal(opts.root_kind, ROOT_SHARE);
	assert_int_equal(opts.root_share, SHARE_VIRTIOFS);
	assert_string_equal(opts.root, "ROOTFS");
	parse_ok("root=/dev/root rootfstype=9p rootflags=version=9p2000.L,trans=virtio,access=any");
	assert_int_equal(opts.root_kind, ROOT_SHARE);
	assert_int_equal(opts.root_share, SHARE_9P);
	assert_string_equal(opts.root, "/dev/root");
	assert_string_equal(share_fstype(opts.root_share), "9p");
	parse_ok("root=virtiofs:a root=/dev/vda2");
	assert_int_equal(opts.root_kind, ROOT_DEVICE);
	assert_int_equal(opts.root_share, SHARE_NONE);
	parse_ok("root=virtiofs:a root=tmpfs");
	assert_int_equal(opts.root_kind, ROOT_TMPFS);
	assert_int_equal(opts.root_share, SHARE_NONE);
	parse_einval("root=/dev/vda2 root=virtiofs:");
	assert_int_equal(opts.root_kind, ROOT_DEVICE);
	assert_non_null(strstr(err, "nothing after the prefix"));
	/* a bare word without a share's fstype is still no device */
	parse_einval("root=myfs rootfstype=ext4");
	assert_int_equal(opts.root_kind, ROOT_DISCOVER);
	assert_non_null(strstr(err, "virtiofs:TAG"));
	assert_null(share_fstype(SHARE_NONE));
}

static void test_usr_share(void **state)
{
	parse_ok("root=virtiofs:root mount.usr=virtiofs:usr");
	assert_int_equal(opts.usr_share, SHARE_VIRTIOFS);
	assert_string_equal(opts.usr, "usr");
	parse_ok("mount.usrfstype=9p mount.usr=usrtag");
	assert_int_equal(opts.usr_share, SHARE_9P);
	assert_string_equal(opts.usr, "usrtag");
	parse_ok("mount.usr=virtfs:u mount.usr=/dev/vdb");
	assert_int_equal(opts.usr_share, SHARE_NONE);
	assert_string_equal(opts.usr, "/dev/vdb");
	parse_ok("mount.usr=virtfs:u mount.usr=");
	assert_int_equal(opts.usr_share, SHARE_NONE);
	assert_null(opts.usr);
}

static void test_ro_rw_last_wins(void **state)
{
	parse_ok("ro");
	assert_int_equal(opts.rw, 0);
	parse_ok("rw");
	assert_int_equal(opts.rw, 1);
	parse_ok("ro rw");
	assert_int_equal(opts.rw, 1);
	parse_ok("rw quiet ro");
	assert_int_equal(opts.rw, 0);
}

static void test_switches(void **state)
{
	parse_ok("rd.emergency");
	assert_true(opts.emergency);
	parse_ok("emergency");
	assert_true(opts.emergency);
	parse_ok("rd.break");
	assert_true(opts.rd_break);
	parse_ok("quiet");
	assert_true(opts.quiet);
	parse_ok("debug");
	assert_true(opts.debug);
	parse_ok("rd.debug");
	assert_true(opts.debug);
	parse_ok("rootwait");
	assert_true(opts.rootwait);
}

static void test_switches_with_a_value_are_not_ours(void **state)
{
	parse_ok("quiet=1 debug=foo rd.break=pre-mount ro=1 rw=0 rootwait=5 emergency=yes");
	assert_false(opts.quiet);
	assert_false(opts.debug);
	assert_false(opts.rd_break);
	assert_false(opts.emergency);
	assert_false(opts.rootwait);
	assert_int_equal(opts.rw, -1);
}

/* dracut's rd.emergency=ACTION beside the bare rd.emergency (a shell now), rd.shell=, and the
 * kernel's panic= as earlymount reads it. */
static void test_failure_keys(void **state)
{
	parse_ok("rd.emergency=reboot");
	assert_int_equal(opts.emergency_action, EMERGENCY_REBOOT);
	assert_false(opts.emergency);
	parse_ok("rd.emergency=poweroff rd.emergency");
	assert_int_equal(opts.emergency_action, EMERGENCY_POWEROFF);
	assert_true(opts.emergency);
	parse_ok("rd.emergency=reboot rd.emergency=halt");
	assert_int_equal(opts.emergency_action, EMERGENCY_HALT);
	parse_einval("rd.emergency=shutdown");
	assert_int_equal(opts.emergency_action, EMERGENCY_UNSET);
	assert_false(opts.emergency);
	parse_einval("rd.emergency=");
	parse_ok("rd.shell=0");
	assert_true(opts.no_shell);
	parse_ok("rd.shell=0 rd.shell");
	assert_false(opts.no_shell);
	parse_ok("rd.shell=no rd.shell=1");
	assert_false(opts.no_shell);
	parse_einval("rd.shell=maybe");
	assert_false(opts.no_shell);
	parse_ok("panic=30");
	assert_int_equal(opts.panic_sec, 30);
	parse_ok("panic=-1");
	assert_int_equal(opts.panic_sec, -1);
	parse_ok("panic=10 panic=+0");
	assert_int_equal(opts.panic_sec, 0);
	parse_ok("panic=2147483647");
	assert_int_equal(opts.panic_sec, 2147483647);
	parse_einval("panic=2147483648");
	assert_int_equal(opts.panic_sec, 0);
	parse_einval("panic=5s");
	parse_einval("panic=-");
	parse_einval("panic");
}

static void test_fstypes_and_usr(void **state)
{
	parse_ok("rootfstype=btrfs mount.usr=PARTLABEL=usr mount.usrfstype=erofs");
	assert_string_equal(opts.rootfstype, "btrfs");
	assert_string_equal(opts.usr, "PARTLABEL=usr");
	assert_string_equal(opts.usrfstype, "erofs");
	parse_ok("rootfstype=ext4 rootfstype=xfs rootfstype= mount.usr=/dev/vdb mount.usr=");
	assert_null(opts.rootfstype);
	assert_null(opts.usr);
	parse_ok("mount.usr=gpt-auto");
	assert_null(opts.usr);
	parse_einval("mount.usr=/dev/vdb mount.usr=vdb");
	assert_string_equal(opts.usr, "/dev/vdb");
	parse_einval("mount.usrfstype");
	assert_null(opts.usrfstype);
}

static void test_flags_join(void **state)
{
	parse_ok("rootflags=noatime rootflags=subvol=@,compress=zstd mount.usrflags=ro rootflags= "
		 "mount.usrflags=noexec,,nodev rootflags=,discard,");
	assert_string_equal(opts.rootflags, "noatime,subvol=@,compress=zstd,discard");
	assert_string_equal(opts.usrflags, "ro,noexec,nodev");
	parse_ok("rootflags=");
	assert_non_null(opts.rootflags);
	assert_string_equal(opts.rootflags, "");
	parse_ok("rootflags=,,");
	assert_string_equal(opts.rootflags, "");
	parse_einval("rootflags");
	assert_null(opts.rootflags);
}

static void test_module_lists_join(void **state)
{
	parse_ok("rd.modules-load=virtio_blk,virtio_pci modprobe.blacklist=nouveau modules_load=ext4 "
		 "rd.modules-load= modprobe.blacklist=,radeon,, modules_load=,xfs");
	assert_string_equal(opts.modules_load, "virtio_blk,virtio_pci,ext4,xfs");
	assert_string_equal(opts.modprobe_blacklist, "nouveau,radeon");
	assert_int_equal(opts.n_module_params, 0);
	parse_ok("modules_load=");
	assert_string_equal(opts.modules_load, "");
	assert_null(opts.modprobe_blacklist);
	parse_einval("modprobe.blacklist");
	assert_null(opts.modprobe_blacklist);
}

static void test_tmpfs_flags_join(void **state)
{
	parse_ok("earlymount.tmpfs=size=50% systemd.volatile=yes earlymount.tmpfs=nr_inodes=2m");
	assert_string_equal(opts.tmpfs_flags, "size=50%,nr_inodes=2m");
	assert_int_equal(opts.volatile_mode, VOLATILE_YES);
	parse_ok("systemd.volatile=state");
	assert_null(opts.tmpfs_flags);
}

static void test_lists_interleaved_stay_apart(void **state)
{
	parse_ok("rootflags=a modules_load=m1 mount.usrflags=u1 modprobe.blacklist=b1 root=/dev/x "
		 "rootflags=b modules_load=m2 mount.usrflags=u2 modprobe.blacklist=b2 init=/sbin/init");
	assert_string_equal(opts.rootflags, "a,b");
	assert_string_equal(opts.usrflags, "u1,u2");
	assert_string_equal(opts.modules_load, "m1,m2");
	assert_string_equal(opts.modprobe_blacklist, "b1,b2");
	assert_string_equal(opts.root, "/dev/x");
	assert_string_equal(opts.init, "/sbin/init");
}

static void test_gpt_auto(void **state)
{
	static const char *const keys[] = { "systemd.gpt_auto", "rd.systemd.gpt_auto" };
	char line[128];

	for (size_t i = 0; i < 2; i++) {
		snprintf(line, sizeof(line), "%s=no", keys[i]);
		parse_ok(line);
		assert_false(opts.gpt_auto);
		snprintf(line, sizeof(line), "%s=0 %s", keys[i], keys[i]);
		parse_ok(line);
		assert_true(opts.gpt_auto);
		snprintf(line, sizeof(line), "%s=off %s=maybe", keys[i], keys[i]);
		parse_einval(line);
		assert_false(opts.gpt_auto);
		assert_non_null(strstr(err, keys[i]));
		assert_non_null(strstr(err, "maybe"));
		snprintf(line, sizeof(line), "%s=", keys[i]);
		parse_einval(line);
		assert_true(opts.gpt_auto);
	}
	parse_ok("systemd.gpt_auto=0 rd.systemd.gpt_auto=1");
	assert_true(opts.gpt_auto);
}

#define ROOTHASH "6fd5c1a7a7ae4f2b9d0e0f8f3e7b2c1a0aaf6ee3d3d3b8b1c2e2f9a8b7c6d5e4"

static void test_verity_keys(void **state)
{
	parse_ok("");
	assert_true(opts.verity);
	assert_null(opts.verity_root.hash);
	parse_ok("roothash=" ROOTHASH " usrhash=" ROOTHASH "00 systemd.verity_root_data=/dev/vda2 "
		 "systemd.verity_root_hash=PARTUUID=0aaf6ee3-d3d3-b8b1-c2e2-f9a8b7c6d5e4 "
		 "systemd.verity_root_options=panic-on-corruption systemd.verity_usr_data=LABEL=u "
		 "systemd.verity_usr_hash=/dev/vda4 systemd.verity_usr_options=ignore-zero-blocks");
	assert_string_equal(opts.verity_root.hash, ROOTHASH);
	assert_string_equal(opts.verity_usr.hash, ROOTHASH "00");
	assert_string_equal(opts.verity_root.data, "/dev/vda2");
	assert_string_equal(opts.verity_root.hash_device,
			    "PARTUUID=0aaf6ee3-d3d3-b8b1-c2e2-f9a8b7c6d5e4");
	assert_string_equal(opts.verity_root.options, "panic-on-corruption");
	assert_string_equal(opts.verity_usr.data, "LABEL=u");
	assert_string_equal(opts.verity_usr.hash_device, "/dev/vda4");
	assert_string_equal(opts.verity_usr.options, "ignore-zero-blocks");
	parse_ok("systemd.verity=no");
	assert_false(opts.verity);
	assert_true(opts.fallback);
	parse_ok("earlymount.fallback=no");
	assert_false(opts.fallback);
	parse_ok("earlymount.fallback=0 earlymount.fallback");
	assert_true(opts.fallback);
	parse_ok("systemd.verity=no rd.systemd.verity");
	assert_true(opts.verity);
	/* a malformed hash is reported and kept, for the planner to refuse: dropping it would
	 * boot unverified; an empty one resets */
	parse_einval("roothash=" ROOTHASH " roothash=abc");
	assert_string_equal(opts.verity_root.hash, "abc");
	assert_non_null(strstr(err, "roothash"));
	parse_ok("roothash=" ROOTHASH " roothash=");
	assert_null(opts.verity_root.hash);
	parse_einval("systemd.verity_root_data=vda2");
	assert_string_equal(opts.verity_root.data, "vda2");
	parse_einval("roothash");
}

static void test_volatile(void **state)
{
	parse_ok("systemd.volatile");
	assert_int_equal(opts.volatile_mode, VOLATILE_YES);
	parse_ok("systemd.volatile=yes");
	assert_int_equal(opts.volatile_mode, VOLATILE_YES);
	parse_ok("systemd.volatile=1");
	assert_int_equal(opts.volatile_mode, VOLATILE_YES);
	parse_ok("systemd.volatile=state");
	assert_int_equal(opts.volatile_mode, VOLATILE_STATE);
	parse_ok("systemd.volatile=overlay");
	assert_int_equal(opts.volatile_mode, VOLATILE_OVERLAY);
	parse_ok("systemd.volatile=overlay systemd.volatile=off");
	assert_int_equal(opts.volatile_mode, VOLATILE_NO);
	parse_einval("systemd.volatile=state systemd.volatile=tmpfs");
	assert_int_equal(opts.volatile_mode, VOLATILE_STATE);
	assert_non_null(strstr(err, "systemd.volatile=tmpfs"));
	parse_einval("systemd.volatile=");
	assert_int_equal(opts.volatile_mode, VOLATILE_NO);
}

static void test_fsck(void **state)
{
	parse_ok("");
	assert_int_equal(opts.fsck_mode, FSCK_AUTO);
	assert_int_equal(opts.fsck_repair, FSCK_PREEN);
	parse_ok("fsck.mode=force fsck.repair=yes");
	assert_int_equal(opts.fsck_mode, FSCK_FORCE);
	assert_int_equal(opts.fsck_repair, FSCK_YES);
	/* the rd. forms, and the later key wins */
	parse_ok("fsck.mode=force rd.fsck.mode=skip rd.fsck.repair=no");
	assert_int_equal(opts.fsck_mode, FSCK_SKIP);
	assert_int_equal(opts.fsck_repair, FSCK_NO);
	parse_ok("rd.fsck.repair=no fsck.repair=preen fsck.mode=auto");
	assert_int_equal(opts.fsck_mode, FSCK_AUTO);
	assert_int_equal(opts.fsck_repair, FSCK_PREEN);
	parse_einval("fsck.mode=sometimes");
	assert_int_equal(opts.fsck_mode, FSCK_AUTO);
	assert_non_null(strstr(err, "fsck.mode=sometimes"));
	parse_einval("fsck.repair=maybe fsck.mode=skip");
	assert_int_equal(opts.fsck_repair, FSCK_PREEN);
	assert_int_equal(opts.fsck_mode, FSCK_SKIP);
	parse_einval("fsck.mode");
}

static void test_init(void **state)
{
	parse_ok("init=/lib/systemd/systemd");
	assert_string_equal(opts.init, "/lib/systemd/systemd");
	parse_ok("\"init=/bin/my init\"");
	assert_string_equal(opts.init, "/bin/my init");
	parse_einval("init=/sbin/init init=bin/sh");
	assert_string_equal(opts.init, "/sbin/init");
	assert_non_null(strstr(err, "init=bin/sh"));
	parse_ok("init=/sbin/init init=");
	assert_null(opts.init);
	parse_einval("init");
	assert_null(opts.init);
}

static void test_disk(void **state)
{
	parse_ok("earlymount.disk=/dev/vdb");
	assert_string_equal(opts.disk, "/dev/vdb");
	parse_ok("earlymount.disk=PARTUUID=1234 earlymount.disk=6028e3a1-54ef-41be-90b1-c54f2e22254c");
	assert_string_equal(opts.disk, "6028e3a1-54ef-41be-90b1-c54f2e22254c");
	parse_ok("earlymount.disk=/dev/vdb earlymount.disk=");
	assert_null(opts.disk);
	assert_int_equal(opts.n_module_params, 0);
}

static void test_machine_id(void **state)
{
	static const uint8_t want[16] = { 0x60, 0x28, 0xe3, 0xa1, 0x54, 0xef, 0x41, 0xbe,
					  0x90, 0xb1, 0xc5, 0x4f, 0x2e, 0x22, 0x25, 0x4c };

	parse_ok("systemd.machine_id=6028e3a154ef41be90b1c54f2e22254c");
	assert_true(opts.has_machine_id);
	assert_memory_equal(opts.machine_id, want, 16);
	parse_ok("systemd.machine_id=6028E3A1-54EF-41BE-90B1-C54F2E22254C");
	assert_memory_equal(opts.machine_id, want, 16);
	parse_einval("systemd.machine_id=6028e3a154ef41be90b1c54f2e22254c systemd.machine_id=nope");
	assert_true(opts.has_machine_id);
	assert_memory_equal(opts.machine_id, want, 16);
	parse_einval("systemd.machine_id=00000000000000000000000000000000");
	assert_false(opts.has_machine_id);
	parse_einval("systemd.machine_id=");
	assert_false(opts.has_machine_id);
	parse_einval("systemd.machine_id=6028e3a154ef41be90b1c54f2e22254");
	assert_false(opts.has_machine_id);
}

static void test_timeouts(void **state)
{
	static const struct {
		const char *value;
		int seconds;
	} spans[] = {
		{ "0", 0 }, { "30", 30 }, { "30s", 30 }, { "30sec", 30 }, { "2min", 120 },
		{ "1min30s", 90 }, { "1min 30s", 90 }, { "1500ms", 2 }, { "1ms", 1 }, { "0ms", 0 }, { "1 min 30 s", 90 },
		{ "2000ms", 2 }, { "infinity", 0 }, { "007", 7 }, { "2147483647", 2147483647 },
	};
	static const char *const bad[] = {
		"", "-1", "1h", "1.5s", "s", "infinityx", "30 s x", "2147483648", "35791395min",
		"99999999999999999999999", "+5", "1 min x", "min",
	};
	char line[128];

	for (size_t i = 0; i < sizeof(spans) / sizeof(spans[0]); i++) {
		snprintf(line, sizeof(line), "rd.timeout=\"%s\"", spans[i].value);
		parse_ok(line);
		assert_int_equal(opts.timeout_sec, spans[i].seconds);
		snprintf(line, sizeof(line), "earlymount.timeout=\"%s\"", spans[i].value);
		parse_ok(line);
		assert_int_equal(opts.timeout_sec, spans[i].seconds);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(line, sizeof(line), "rd.timeout=9 \"rd.timeout=%s\"", bad[i]);
		parse_einval(line);
		assert_int_equal(opts.timeout_sec, 9);
	}
	parse_ok("rd.timeout=5 earlymount.timeout=10");
	assert_int_equal(opts.timeout_sec, 10);
}

static void test_rootdelay(void **state)
{
	parse_ok("rootdelay=0");
	assert_int_equal(opts.rootdelay_sec, 0);
	parse_ok("rootdelay=10 rootdelay=3");
	assert_int_equal(opts.rootdelay_sec, 3);
	parse_einval("rootdelay=10 rootdelay=3s");
	assert_int_equal(opts.rootdelay_sec, 10);
	parse_einval("rootdelay=-1");
	assert_int_equal(opts.rootdelay_sec, -1);
	parse_einval("rootdelay=");
	parse_einval("rootdelay=99999999999");
	assert_int_equal(opts.rootdelay_sec, -1);
}

/* rd.watchdog=: a time span up to an hour, 0 or off for none; systemd.watchdog_device= a path;
 * rd.driver.pre= joins the modules to load. */
static void test_watchdog(void **state)
{
	parse_ok("");
	assert_int_equal(opts.watchdog_sec, -1);
	assert_null(opts.watchdog_device);
	parse_ok("rd.watchdog=30 systemd.watchdog_device=/dev/watchdog1");
	assert_int_equal(opts.watchdog_sec, 30);
	assert_string_equal(opts.watchdog_device, "/dev/watchdog1");
	parse_ok("rd.watchdog=2min");
	assert_int_equal(opts.watchdog_sec, 120);
	parse_ok("rd.watchdog=30 rd.watchdog=off");
	assert_int_equal(opts.watchdog_sec, 0);
	parse_einval("rd.watchdog=2h");
	parse_einval("rd.watchdog=soon");
	parse_einval("systemd.watchdog_device=watchdog0");
	parse_ok("rd.driver.pre=i6300esb rd.modules-load=dm_mod rd.driver.pre=softdog");
	assert_string_equal(opts.modules_load, "i6300esb,dm_mod,softdog");
}

static void test_module_params(void **state)
{
	parse_ok("i915.modeset=0 nvme.poll_queues=2 usbcore.autosuspend=-1 video.nomodeset "
		 "systemd.unit=rescue.target rd.lvm.vg=x mount.foo=1 earlymount.x=1 modprobe.x=1 "
		 ".x=1 x.=1 plain=1 a.b.c=1");
	assert_int_equal(opts.n_module_params, 5);
	parse_ok("i915.modeset=0 -- i915.modeset=1 nvme.poll_queues=2");
	assert_int_equal(opts.n_module_params, 1);
}

static void test_quoting(void **state)
{
	parse_ok("root=\"LABEL=my root\" quiet");
	assert_string_equal(opts.root, "LABEL=my root");
	assert_true(opts.quiet);
	parse_ok("root=LABEL=\"my root\"");
	assert_string_equal(opts.root, "LABEL=my root");
	parse_ok("\"root=LABEL=my root\"");
	assert_string_equal(opts.root, "LABEL=my root");
	parse_ok("ro\"ot\"=/dev/v\"\"da");
	assert_string_equal(opts.root, "/dev/vda");
	parse_ok("rootflags=\"a b\"\trootflags=\"c\td\" ");
	assert_string_equal(opts.rootflags, "a b,c\td");
	parse_ok("\"--\"x quiet");
	assert_true(opts.quiet);
}

static void test_unterminated_quote(void **state)
{
	parse_einval("quiet root=\"LABEL=my root ro");
	assert_string_equal(opts.root, "LABEL=my root ro");
	assert_true(opts.quiet);
	assert_int_equal(opts.rw, -1);
	assert_non_null(strstr(err, "unterminated double quote"));
	assert_non_null(strstr(err, "root"));
	parse_einval("ro \"");
	assert_int_equal(opts.rw, 0);
}

static void test_double_dash_ends_kernel_part(void **state)
{
	parse_ok("root=/dev/vda2 -- root=/dev/vdb rw single init=relative \"unterminated");
	assert_string_equal(opts.root, "/dev/vda2");
	assert_int_equal(opts.rw, -1);
	assert_null(opts.init);
	parse_ok("quiet \"--\" debug");
	assert_true(opts.quiet);
	assert_false(opts.debug);
	parse_ok("rootflags=a -- rootflags=b");
	assert_string_equal(opts.rootflags, "a");
	parse_ok("--");
	assert_defaults(&opts);
	parse_ok("ro --rw");
	assert_int_equal(opts.rw, 0);
}

static void test_control_characters(void **state)
{
	parse_einval("quiet root=/dev/v\001da rw");
	assert_null(opts.root);
	assert_true(opts.quiet);
	assert_int_equal(opts.rw, 1);
	assert_non_null(strstr(err, "root="));
	assert_non_null(strstr(err, "\\x01"));
	parse_einval("rootflags=a rootflags=b\033c");
	assert_string_equal(opts.rootflags, "a");
	parse_einval("qu\177iet");
	assert_false(opts.quiet);
	assert_non_null(strstr(err, "\\x7f"));
	parse_ok("root=\"/dev/a\tb\"");
	assert_string_equal(opts.root, "/dev/a\tb");
	parse_einval("quiet\r");
	assert_false(opts.quiet);
}

static void test_first_error_is_kept(void **state)
{
	parse_einval("init=relative rootdelay=x systemd.gpt_auto=maybe");
	assert_non_null(strstr(err, "init=relative"));
	assert_null(strstr(err, "rootdelay"));
}

static void test_unknown_keys_ignored(void **state)
{
	parse_ok("BOOT_IMAGE=/vmlinuz splash console=tty0 foo= =bar = nomodeset systemd.unit=x rd.lvm=0");
	assert_defaults(&opts);
}

static void test_keys_are_exact(void **state)
{
	parse_ok("Root=/dev/x rd.modules_load=a modules-load=b systemd.gpt-auto=0 QUIET");
	assert_defaults(&opts);
}

static void test_error_buffer(void **state)
{
	char small[8];

	assert_int_equal(cmdline_parse("init=relative", &opts, small, sizeof(small)), -EINVAL);
	assert_int_equal(strlen(small), sizeof(small) - 1);
	assert_int_equal(cmdline_parse("init=relative", &opts, NULL, 0), -EINVAL);
	small[0] = 'x';
	assert_int_equal(cmdline_parse("init=relative", &opts, small, 0), -EINVAL);
	assert_int_equal(small[0], 'x');
	strcpy(err, "stale");
	parse_ok("quiet");
	assert_string_equal(err, "");
}

static void test_long_value_is_cut_in_message(void **state)
{
	char line[600] = "init=";

	memset(line + 5, 'x', 500);
	line[505] = '\0';
	parse_einval(line);
	assert_non_null(strstr(err, "..."));
	assert_true(strlen(err) < 200);
}

static void test_length_limit(void **state)
{
	static char line[CMDLINE_MAX + 16];
	size_t quiet_at = CMDLINE_MAX - 1 - strlen(" quiet");

	memset(line, ' ', CMDLINE_MAX - 1);
	memcpy(line, "root=/dev/vda2", strlen("root=/dev/vda2"));
	memcpy(line + quiet_at, " quiet", strlen(" quiet"));
	line[CMDLINE_MAX - 1] = '\0';
	parse_ok(line);
	assert_string_equal(opts.root, "/dev/vda2");
	assert_true(opts.quiet);

	line[CMDLINE_MAX - 1] = ' ';
	line[CMDLINE_MAX] = '\0';
	assert_int_equal(parse(line), -E2BIG);
	assert_defaults(&opts);
	assert_non_null(strstr(err, "4096"));
	assert_non_null(strstr(err, "4095"));
}

/* Lines that fill CMDLINE_MAX with one kind of key must still fit in storage. */
static void test_storage_worst_cases(void **state)
{
	static const char *const words[] = { "root=/a ", "rootflags=a ", "rootflags=a,b ",
					     "modules_load=a,,b ", "init=/ ", "rd.modules-load=a " };
	static char line[CMDLINE_MAX];

	for (size_t w = 0; w < sizeof(words) / sizeof(words[0]); w++) {
		size_t n = strlen(words[w]), used = 0;

		while (used + n < CMDLINE_MAX) {
			memcpy(line + used, words[w], n);
			used += n;
		}
		line[used] = '\0';
		parse_ok(line);
		assert_true(opts.used <= sizeof(opts.storage));
	}
	assert_non_null(opts.modules_load);
	assert_true(strlen(opts.modules_load) > 400);
}

static void test_many_quotes(void **state)
{
	static char line[4001];

	memset(line, '"', 4000);
	line[4000] = '\0';
	parse_ok(line);
	assert_defaults(&opts);
	line[3999] = '\0';
	parse_einval(line);
	assert_defaults(&opts);
}

#define LUKS_A "cc1fed1f-50ba-43cd-a395-77333c5d0504"
#define LUKS_B "0b5f3c1e-7a2d-4e6f-8a9b-1c2d3e4f5a6b"

static void test_lvm_keys(void **state)
{
	struct options o;

	assert_int_equal(cmdline_parse("root=/dev/vg0/root", &o, NULL, 0), 0);
	assert_true(o.lvm.enabled);
	assert_null(o.lvm.vgs);
	assert_null(o.lvm.lvs);
	assert_int_equal(cmdline_parse("rd.lvm.vg=vg0 rd.lvm.lv=vg1/root rd.lvm.vg=data,x rd.lvm=0", &o,
				       NULL, 0),
			 0);
	assert_false(o.lvm.enabled);
	assert_string_equal(o.lvm.vgs, "vg0,data,x");
	assert_string_equal(o.lvm.lvs, "vg1/root");
	assert_int_equal(cmdline_parse("rd.lvm rd.lvm.vg=", &o, NULL, 0), 0);
	assert_true(o.lvm.enabled);
	assert_true(!o.lvm.vgs || !o.lvm.vgs[0]);
	(void)state;
}

static void test_md_keys(void **state)
{
	struct options o;

	assert_int_equal(cmdline_parse("root=/dev/md0", &o, NULL, 0), 0);
	assert_true(o.md.enabled);
	assert_null(o.md.uuids);
	assert_int_equal(o.md.degraded_sec, -1);
	assert_int_equal(cmdline_parse("rd.md.uuid=a:b rd.md=0 rd.md.uuid=c earlymount.md_degraded=1min",
				       &o, NULL, 0),
			 0);
	assert_false(o.md.enabled);
	assert_string_equal(o.md.uuids, "a:b,c");
	assert_int_equal(o.md.degraded_sec, 60);
	assert_int_equal(cmdline_parse("earlymount.md_degraded=infinity", &o, NULL, 0), 0);
	assert_int_equal(o.md.degraded_sec, 0);
	/* a wrong span is reported, and the default kept */
	assert_int_equal(cmdline_parse("earlymount.md_degraded=soon", &o, err, sizeof(err)), -EINVAL);
	assert_int_equal(o.md.degraded_sec, -1);
	assert_non_null(strstr(err, "earlymount.md_degraded=soon"));
	(void)state;
}

static void test_luks_keys(void **state)
{
	parse_ok("rd.luks.uuid=luks-CC1FED1F-50BA-43CD-A395-77333C5D0504 luks.name=" LUKS_B "=crypthome "
		 "rd.luks.options=discard,tries=5 rd.luks.options=" LUKS_B "=readonly "
		 "rd.luks.key=/etc/root.key rd.luks.key=" LUKS_B "=/home.key:LABEL=usb");
	assert_true(opts.luks.enabled);
	assert_int_equal(opts.luks.n_volumes, 2);
	assert_string_equal(opts.luks.volumes[0].uuid, LUKS_A);
	assert_true(opts.luks.volumes[0].listed);
	assert_null(opts.luks.volumes[0].name);
	assert_string_equal(opts.luks.volumes[1].uuid, LUKS_B);
	assert_string_equal(opts.luks.volumes[1].name, "crypthome");
	assert_string_equal(opts.luks.volumes[1].options, "readonly");
	assert_string_equal(opts.luks.volumes[1].key, "/home.key:LABEL=usb");
	assert_string_equal(opts.luks.options, "discard,tries=5");
	assert_string_equal(opts.luks.key, "/etc/root.key");
	/* rd.luks.options= for a UUID not listed keeps an entry that is not unlocked by itself */
	parse_ok("luks.options=" LUKS_A "=discard rd.luks=no");
	assert_false(opts.luks.enabled);
	assert_int_equal(opts.luks.n_volumes, 1);
	assert_false(opts.luks.volumes[0].listed);
	/* the same UUID twice is one volume */
	parse_ok("rd.luks.uuid=" LUKS_A " rd.luks.name=" LUKS_A "=root");
	assert_int_equal(opts.luks.n_volumes, 1);
	assert_string_equal(opts.luks.volumes[0].name, "root");
}

static void test_luks_keys_malformed(void **state)
{
	parse_einval("rd.luks.uuid=nope");
	assert_non_null(strstr(err, "not a LUKS UUID"));
	assert_int_equal(opts.luks.n_volumes, 0);
	parse_einval("rd.luks.name=" LUKS_A);
	assert_non_null(strstr(err, "UUID=NAME expected"));
	parse_einval("rd.luks.name=" LUKS_A "=a/b");
	assert_non_null(strstr(err, "not a device-mapper name"));
	/* names /dev/mapper would read as itself, its parent or its control node */
	parse_einval("rd.luks.name=" LUKS_A "=.");
	assert_non_null(strstr(err, "not a device-mapper name"));
	parse_einval("rd.luks.name=" LUKS_A "=..");
	assert_non_null(strstr(err, "not a device-mapper name"));
	parse_einval("rd.luks.name=" LUKS_A "=control");
	assert_non_null(strstr(err, "not a device-mapper name"));
	parse_einval("rd.luks.key=relative.key");
	assert_non_null(strstr(err, "an absolute path"));
	assert_null(opts.luks.key);
	parse_einval("rd.luks=maybe");
	assert_true(opts.luks.enabled);
	parse_einval("rd.luks.uuid=" LUKS_A " rd.luks.uuid=11111111-0000-4000-8000-000000000001 "
		     "rd.luks.uuid=11111111-0000-4000-8000-000000000002 "
		     "rd.luks.uuid=11111111-0000-4000-8000-000000000003 "
		     "rd.luks.uuid=11111111-0000-4000-8000-000000000004 "
		     "rd.luks.uuid=11111111-0000-4000-8000-000000000005 "
		     "rd.luks.uuid=11111111-0000-4000-8000-000000000006 "
		     "rd.luks.uuid=11111111-0000-4000-8000-000000000007 "
		     "rd.luks.uuid=11111111-0000-4000-8000-000000000008");
	assert_non_null(strstr(err, "more LUKS volumes"));
	assert_int_equal(opts.luks.n_volumes, LUKS_MAX_VOLUMES);
}

static void test_resume_keys(void **state)
{
	parse_ok("resume=PARTUUID=00002002-0000-4000-8000-000000000000 resume_offset=34816");
	assert_string_equal(opts.resume, "PARTUUID=00002002-0000-4000-8000-000000000000");
	assert_true(opts.has_resume_offset);
	assert_true(opts.resume_offset == 34816);
	assert_false(opts.noresume);
	/* The kernel's own forms: a path and MAJ:MIN. */
	parse_ok("resume=/dev/vda2");
	assert_string_equal(opts.resume, "/dev/vda2");
	assert_false(opts.has_resume_offset);
	parse_ok("resume=254:2 noresume");
	assert_string_equal(opts.resume, "254:2");
	assert_true(opts.noresume);
	/* An empty value takes back an earlier one. */
	parse_ok("resume=LABEL=swap resume=");
	assert_null(opts.resume);
	/* "noresume=1" is not the switch, as the kernel reads it. */
	parse_ok("noresume=1");
	assert_false(opts.noresume);
}

static void test_resume_keys_malformed(void **state)
{
	static const char *const bad[] = {
		"resume=swap", "resume=254:", "resume=:2", "resume=254:2:1", "resume=0x0802",
		"resume_offset=-1", "resume_offset=12k", "resume_offset=18446744073709551616",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		parse_einval(bad[i]);
		assert_null(opts.resume);
		assert_false(opts.has_resume_offset);
	}
	parse_einval("resume");
	parse_ok("resume_offset=18446744073709551615");
	assert_true(opts.resume_offset == UINT64_MAX);
}

static void test_mount_extra_keys(void **state)
{
	static const char *const bad[] = {
		"systemd.mount-extra=/dev/vdb1", "systemd.mount-extra=/dev/vdb1:srv",
		"systemd.mount-extra=:/srv", "systemd.mount-extra=/dev/vdb1:/",
		"rd.systemd.mount-extra=/dev/vdb1:/usr", "systemd.swap-extra=",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		parse_einval(bad[i]);
		assert_int_equal(opts.mount_extra.n, 0);
		assert_int_equal(opts.swap_extra.n, 0);
	}
	parse_ok("systemd.mount-extra=/dev/disk/by-label/data:/srv/data/:ext4:ro,x-systemd.after=a:b "
		 "systemd.swap-extra=PARTLABEL=swap:pri=5,discard");
	assert_int_equal(opts.mount_extra.n, 1);
	assert_string_equal(opts.mount_extra.entries[0].what, "LABEL=data");
	assert_string_equal(opts.mount_extra.entries[0].where, "/srv/data");
	assert_string_equal(opts.mount_extra.entries[0].type, "ext4");
	assert_int_equal(opts.mount_extra.entries[0].rw, 0);
	assert_int_equal(opts.swap_extra.n, 1);
	assert_string_equal(opts.swap_extra.entries[0].what, "PARTLABEL=swap");
}

/* A ninth LUKS volume or mount (or a value with no room left) is one word ignored: -EINVAL
 * with its reason, like any refused value; -E2BIG stays the whole line's (the boot stops on
 * it, saying the line is too long). The fuzzer found a ninth rd.luks.name= answered -ENOSPC,
 * which the boot did not even warn about. */
static void test_one_too_many(void **state)
{
	static const struct {
		const char *word; /* %d: 1 to 9 */
		const char *reason;
	} cases[] = {
		{ "systemd.mount-extra=/dev/vdb%d:/srv/%d", "more than 8 of them" },
		{ "rd.luks.name=f4110585-0000-4000-8001-00000000000%d=v%d", "more LUKS volumes than earlymount keeps" },
		{ "rd.luks.uuid=f4110585-0000-4000-8001-00000000000%d", "more LUKS volumes than earlymount keeps" },
	};
	char line[1024], word[128];
	size_t used;

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		used = 0;
		for (int i = 1; i <= 9; i++) {
			snprintf(word, sizeof(word), cases[c].word, i, i);
			used += (size_t)snprintf(line + used, sizeof(line) - used, "%s ", word);
		}
		assert_int_equal(parse(line), -EINVAL);
		assert_non_null(strstr(err, cases[c].reason));
		assert_non_null(strstr(err, "9"));
	}
}

static void test_known_keys(void **state)
{
	size_t n = 0;

	for (const char *const *k = cmdline_known_keys; *k; k++, n++) {
		assert_null(strchr(*k, '='));
		for (const char *const *j = k + 1; *j; j++)
			assert_string_not_equal(*k, *j);
	}
	assert_int_equal(n, 87);
}

/* Every known key, given some value or bare, must change the options or be rejected. */
static void test_known_keys_all_do_something(void **state)
{
	static struct options defaults;
	char line[256];

	options_init(&defaults);
	for (const char *const *k = cmdline_known_keys; *k; k++) {
		int changed = 0;

		snprintf(line, sizeof(line), "%s", *k);
		if (parse(line) == 0)
			changed |= memcmp(&opts, &defaults, offsetof(struct options, used)) != 0;
		snprintf(line, sizeof(line), "%s=/dev/x", *k);
		if (parse(line) == 0)
			changed |= memcmp(&opts, &defaults, offsetof(struct options, used)) != 0;
		snprintf(line, sizeof(line), "%s=5", *k);
		if (parse(line) == 0)
			changed |= memcmp(&opts, &defaults, offsetof(struct options, used)) != 0;
		snprintf(line, sizeof(line), "%s=overlay", *k);
		if (parse(line) == 0)
			changed |= memcmp(&opts, &defaults, offsetof(struct options, used)) != 0;
		snprintf(line, sizeof(line), "%s=0", *k);
		if (parse(line) == 0)
			changed |= memcmp(&opts, &defaults, offsetof(struct options, used)) != 0;
		snprintf(line, sizeof(line), "%s=cc1fed1f50ba43cda39577333c5d0504", *k);
		if (parse(line) == 0)
			changed |= memcmp(&opts, &defaults, offsetof(struct options, used)) != 0;
		snprintf(line, sizeof(line), "%s=" ROOTHASH, *k);
		if (parse(line) == 0)
			changed |= memcmp(&opts, &defaults, offsetof(struct options, used)) != 0;
		snprintf(line, sizeof(line), "%s=cc1fed1f-50ba-43cd-a395-77333c5d0504=x", *k);
		if (parse(line) == 0)
			changed |= memcmp(&opts, &defaults, offsetof(struct options, used)) != 0;
		/* systemd.mount-extra= wants WHAT:WHERE */
		snprintf(line, sizeof(line), "%s=/dev/x:/x", *k);
		if (parse(line) == 0)
			changed |= memcmp(&opts, &defaults, offsetof(struct options, used)) != 0;
		/* fsck.mode= and fsck.repair= take words of their own */
		snprintf(line, sizeof(line), "%s=force", *k);
		if (parse(line) == 0)
			changed |= memcmp(&opts, &defaults, offsetof(struct options, used)) != 0;
		snprintf(line, sizeof(line), "%s=yes", *k);
		if (parse(line) == 0)
			changed |= memcmp(&opts, &defaults, offsetof(struct options, used)) != 0;
		/* ip= takes a method, netroot= an NFS export */
		snprintf(line, sizeof(line), "%s=dhcp", *k);
		if (parse(line) == 0)
			changed |= memcmp(&opts, &defaults, offsetof(struct options, used)) != 0;
		snprintf(line, sizeof(line), "%s=nfs:10.0.0.1:/r", *k);
		if (parse(line) == 0)
			changed |= memcmp(&opts, &defaults, offsetof(struct options, used)) != 0;
		if (!changed)
			fail_msg("known key %s changes nothing", *k);
	}
}

static uint32_t next_random(uint32_t *seed)
{
	*seed = *seed * 1103515245u + 12345u;
	return *seed >> 8;
}

/* Random bytes, biased towards the characters the parser cares about. */
static void test_random_lines(void **state)
{
	static const char interesting[] = "\"= \t\n,-./0123456789abcdefrootquietmsinfinity\001\177\377";
	static const char *const pieces[] = { "root=", "rootflags=", "rd.modules-load=", "init=", "--",
					      "rd.timeout=", "systemd.volatile=", "systemd.machine_id=", "a.b=" };
	static char line[CMDLINE_MAX + 64];
	unsigned ok = 0, invalid = 0, too_long = 0;
	uint32_t seed = 42;

	for (int i = 0; i < 10000; i++) {
		/* Mostly short lines; every 50th straddles the length limit. */
		size_t len = i % 50 == 0 ? CMDLINE_MAX - 24 + next_random(&seed) % 48 : next_random(&seed) % 300;
		size_t n = 0;
		int r;

		while (n < len) {
			uint32_t x = next_random(&seed);

			if (x % 16 == 0) {
				const char *p = pieces[(x >> 4) % (sizeof(pieces) / sizeof(pieces[0]))];
				size_t pl = strlen(p);

				if (n + pl > len)
					break;
				memcpy(line + n, p, pl);
				n += pl;
			} else if (x % 4 == 0) {
				line[n++] = (char)(1 + (x >> 4) % 255);
			} else {
				line[n++] = interesting[(x >> 4) % (sizeof(interesting) - 1)];
			}
		}
		line[n] = '\0';
		r = parse(line);
		assert_true(r == 0 || r == -EINVAL || r == -E2BIG);
		ok += r == 0;
		invalid += r == -EINVAL;
		too_long += r == -E2BIG;
		assert_true(strlen(err) < sizeof(err));
		assert_true(r != 0 || err[0] == '\0');
		assert_true(r == 0 || err[0] != '\0');
		assert_true(opts.used <= sizeof(opts.storage));
		if (opts.root)
			assert_true(opts.root >= opts.storage && opts.root < opts.storage + opts.used);
		if (opts.rootflags)
			assert_true(opts.rootflags >= opts.storage && opts.rootflags < opts.storage + opts.used);
	}
	/* The generator must reach every outcome, or the loop proves little. */
	assert_true(ok > 100);
	assert_true(invalid > 100);
	assert_true(too_long > 10);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_options_init),
		cmocka_unit_test(test_empty_and_whitespace),
		cmocka_unit_test(test_null_line),
		cmocka_unit_test(test_debian_line),
		cmocka_unit_test(test_systemd_boot_line),
		cmocka_unit_test(test_root_forms),
		cmocka_unit_test(test_root_invalid_keeps_previous),
		cmocka_unit_test(test_root_empty_resets),
		cmocka_unit_test(test_root_share),
		cmocka_unit_test(test_usr_share),
		cmocka_unit_test(test_ro_rw_last_wins),
		cmocka_unit_test(test_switches),
		cmocka_unit_test(test_switches_with_a_value_are_not_ours),
		cmocka_unit_test(test_fstypes_and_usr),
		cmocka_unit_test(test_flags_join),
		cmocka_unit_test(test_module_lists_join),
		cmocka_unit_test(test_tmpfs_flags_join),
		cmocka_unit_test(test_lists_interleaved_stay_apart),
		cmocka_unit_test(test_gpt_auto),
		cmocka_unit_test(test_verity_keys),
		cmocka_unit_test(test_volatile),
		cmocka_unit_test(test_fsck),
		cmocka_unit_test(test_init),
		cmocka_unit_test(test_disk),
		cmocka_unit_test(test_machine_id),
		cmocka_unit_test(test_timeouts),
		cmocka_unit_test(test_rootdelay),
		cmocka_unit_test(test_watchdog),
		cmocka_unit_test(test_module_params),
		cmocka_unit_test(test_quoting),
		cmocka_unit_test(test_unterminated_quote),
		cmocka_unit_test(test_double_dash_ends_kernel_part),
		cmocka_unit_test(test_control_characters),
		cmocka_unit_test(test_first_error_is_kept),
		cmocka_unit_test(test_unknown_keys_ignored),
		cmocka_unit_test(test_keys_are_exact),
		cmocka_unit_test(test_error_buffer),
		cmocka_unit_test(test_long_value_is_cut_in_message),
		cmocka_unit_test(test_length_limit),
		cmocka_unit_test(test_storage_worst_cases),
		cmocka_unit_test(test_many_quotes),
		cmocka_unit_test(test_lvm_keys),
		cmocka_unit_test(test_md_keys),
		cmocka_unit_test(test_luks_keys),
		cmocka_unit_test(test_luks_keys_malformed),
		cmocka_unit_test(test_resume_keys),
		cmocka_unit_test(test_resume_keys_malformed),
		cmocka_unit_test(test_failure_keys),
		cmocka_unit_test(test_mount_extra_keys),
		cmocka_unit_test(test_one_too_many),
		cmocka_unit_test(test_known_keys),
		cmocka_unit_test(test_known_keys_all_do_something),
		cmocka_unit_test(test_random_lines),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
