/* host/initramfs/hostonly.c: chain records in, the names libkmod is to look up out. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "hostonly.h"
#include "util.h"

struct device_row {
	const char *driver, *module, *modalias, *dm_uuid;
};

static struct hostonly_mount *mount_of(const char *where, const char *fstype, bool block,
				       const struct device_row *rows, size_t n)
{
	struct hostonly_mount *m = calloc(1, sizeof(*m));

	assert_non_null(m);
	m->where = where;
	copy_str(m->fstype, sizeof(m->fstype), fstype);
	copy_str(m->source, sizeof(m->source), "/dev/test");
	m->block = block;
	for (size_t i = 0; i < n; i++) {
		struct hostonly_device *d = &m->devices[m->n_devices++];

		copy_str(d->driver, sizeof(d->driver), rows[i].driver ? rows[i].driver : "");
		copy_str(d->module, sizeof(d->module), rows[i].module ? rows[i].module : "");
		copy_str(d->modalias, sizeof(d->modalias), rows[i].modalias ? rows[i].modalias : "");
		copy_str(d->dm_uuid, sizeof(d->dm_uuid), rows[i].dm_uuid ? rows[i].dm_uuid : "");
	}
	return m;
}

static void assert_names(const struct hostonly_choice *c, const char *const *want, size_t n)
{
	assert_int_equal(c->n, n);
	for (size_t i = 0; i < n; i++)
		assert_string_equal(c->names[i], want[i]);
}

/* QEMU q35: vda1 → vda → virtio1 (virtio_blk) → 0000:00:02.0 (virtio-pci) → pci0000:00 */
static void test_virtio_chain(void **state)
{
	static const struct device_row rows[] = {
		{ NULL, NULL, NULL, NULL }, /* the disk: no driver of its own */
		{ "virtio_blk", "virtio_blk", "virtio:d00000002v00001AF4", NULL },
		{ "virtio-pci", "virtio_pci", "pci:v00001AF4d00001001sv00001AF4sd00000002bc01sc00i00", NULL },
		{ NULL, NULL, NULL, NULL },
	};
	static const char *const want[] = {
		"virtio_blk", "virtio:d00000002v00001AF4", "virtio_pci",
		"pci:v00001AF4d00001001sv00001AF4sd00000002bc01sc00i00", "fs-ext4",
	};
	struct hostonly_mount *m = mount_of("/", "ext4", true, rows, ARRAY_SIZE(rows));
	struct hostonly_choice *c = calloc(1, sizeof(*c));

	assert_int_equal(hostonly_choose(m, c), 0);
	assert_names(c, want, ARRAY_SIZE(want));
	assert_false(c->luks);
	assert_false(c->verity);
	free(m);
	free(c);
	(void)state;
}

/* A driver built into the host's kernel (no module link) still names its device's modalias:
 * the image's kernel may have it as a module. An unbound device names nothing. */
static void test_builtin_and_unbound(void **state)
{
	static const struct device_row rows[] = {
		{ "nvme", NULL, "pci:v00001B36d00000010sv00001AF4sd00001100bc01sc08i02", NULL },
		{ NULL, NULL, "of:NpcieT(null)Cpci-host-ecam-generic", NULL },
	};
	static const char *const want[] = {
		"pci:v00001B36d00000010sv00001AF4sd00001100bc01sc08i02", "fs-xfs",
	};
	struct hostonly_mount *m = mount_of("/", "xfs", true, rows, ARRAY_SIZE(rows));
	struct hostonly_choice *c = calloc(1, sizeof(*c));

	assert_int_equal(hostonly_choose(m, c), 0);
	assert_names(c, want, ARRAY_SIZE(want));
	free(m);
	free(c);
	(void)state;
}

/* / on dm-verity and /usr on LUKS over the same disk: the targets' modules, each name once,
 * and the flags that ask for the LUKS helper. */
static void test_dm_stacks_and_dedup(void **state)
{
	static const struct device_row verity[] = {
		{ NULL, NULL, NULL, "CRYPT-VERITY-0123456789abcdef0123456789abcdef-root" },
		{ "sd", "sd_mod", "scsi:t-0x00", NULL },
		{ "ahci", "ahci", "pci:v00008086d00002922sv00001AF4sd00001100bc01sc06i01", NULL },
	};
	static const struct device_row luks[] = {
		{ NULL, NULL, NULL, "CRYPT-LUKS2-0123456789abcdef0123456789abcdef-usr" },
		{ "sd", "sd_mod", "scsi:t-0x00", NULL },
		{ "ahci", "ahci", "pci:v00008086d00002922sv00001AF4sd00001100bc01sc06i01", NULL },
	};
	static const char *const want[] = {
		"dm_verity", "sd_mod", "scsi:t-0x00", "ahci",
		"pci:v00008086d00002922sv00001AF4sd00001100bc01sc06i01", "fs-erofs",
		"dm_crypt", "fs-ext4",
	};
	struct hostonly_mount *root = mount_of("/", "erofs", true, verity, ARRAY_SIZE(verity));
	struct hostonly_mount *usr = mount_of("/usr", "ext4", true, luks, ARRAY_SIZE(luks));
	struct hostonly_choice *c = calloc(1, sizeof(*c));

	assert_int_equal(hostonly_choose(root, c), 0);
	assert_true(c->verity);
	assert_false(c->luks);
	assert_int_equal(hostonly_choose(usr, c), 0);
	assert_true(c->luks);
	assert_names(c, want, ARRAY_SIZE(want));
	free(root);
	free(usr);
	free(c);
	(void)state;
}

/* LVM on LUKS (Debian's encrypted layout): lvm and the LUKS helper; then stacks earlymount
 * cannot assemble, each named with its device. */
static void test_lvm_and_unsupported_stacks(void **state)
{
	static const struct device_row lvm_on_luks[] = {
		{ NULL, NULL, NULL, "LVM-abcdefabcdefabcdefabcdefabcdefab0123456789abcdef0123456789abcdef" },
		{ NULL, NULL, NULL, "CRYPT-LUKS2-0123456789abcdef0123456789abcdef-vda3_crypt" },
		{ "virtio_blk", "virtio_blk", "virtio:d00000002v00001AF4", NULL },
	};
	static const char *const want[] = {
		"dm_mod", "dm_crypt", "virtio_blk", "virtio:d00000002v00001AF4", "fs-ext4",
	};
	static const struct device_row multipath[] = {
		{ NULL, NULL, NULL, "mpath-360014380056efd3a0000e00000c60000" },
		{ "sd", "sd_mod", "scsi:t-0x00", NULL },
	};
	static const struct device_row unknown_dm[] = {
		{ NULL, NULL, NULL, "VDO-0123" },
	};
	struct hostonly_mount *root = mount_of("/", "ext4", true, lvm_on_luks, ARRAY_SIZE(lvm_on_luks));
	struct hostonly_mount *mp = mount_of("/usr", "xfs", true, multipath, ARRAY_SIZE(multipath));
	struct hostonly_mount *other = mount_of("/", "ext4", true, unknown_dm, ARRAY_SIZE(unknown_dm));
	struct hostonly_mount *md = mount_of("/", "ext4", true, NULL, 0);
	struct hostonly_choice *c = calloc(1, sizeof(*c));
	static const char *const md_want[] = { "md_mod", "md-raid1", "fs-ext4" };

	assert_int_equal(hostonly_choose(root, c), 0);
	assert_true(c->lvm);
	assert_true(c->luks);
	assert_false(c->verity);
	assert_string_equal(c->unsupported, "");
	assert_names(c, want, ARRAY_SIZE(want));

	memset(c, 0, sizeof(*c));
	copy_str(mp->devices[0].path, sizeof(mp->devices[0].path), "/devices/virtual/block/dm-3");
	assert_int_equal(hostonly_choose(mp, c), -EOPNOTSUPP);
	assert_string_equal(c->unsupported, "/usr is on multipath (dm-multipath) (dm-3)");

	memset(c, 0, sizeof(*c));
	assert_int_equal(hostonly_choose(other, c), -EOPNOTSUPP);
	assert_non_null(strstr(c->unsupported, "device-mapper device earlymount does not know"));

	/* an LV over lvm2's hidden layers: a thin pool, RAID images */
	memset(c, 0, sizeof(*c));
	copy_str(root->devices[0].dm_name, sizeof(root->devices[0].dm_name), "vg0-pool-tpool");
	assert_int_equal(hostonly_choose(root, c), -EOPNOTSUPP);
	assert_non_null(strstr(c->unsupported, "/ is on an LVM thin pool ("));
	memset(c, 0, sizeof(*c));
	copy_str(root->devices[0].dm_name, sizeof(root->devices[0].dm_name), "vg0-root_rimage_1");
	assert_int_equal(hostonly_choose(root, c), -EOPNOTSUPP);
	assert_non_null(strstr(c->unsupported, "/ is on LVM RAID ("));
	/* an LV whose own name ends so ("cow" in VG vg0; "my-cow", its '-' doubled) is one */
	memset(c, 0, sizeof(*c));
	copy_str(root->devices[0].dm_name, sizeof(root->devices[0].dm_name), "vg0-cow");
	assert_int_equal(hostonly_choose(root, c), 0);
	copy_str(root->devices[0].dm_name, sizeof(root->devices[0].dm_name), "vg0-my--cow");
	assert_int_equal(hostonly_choose(root, c), 0);
	copy_str(root->devices[0].dm_name, sizeof(root->devices[0].dm_name), "vg0-root-cow");
	assert_int_equal(hostonly_choose(root, c), -EOPNOTSUPP);
	assert_non_null(strstr(c->unsupported, "/ is on an LVM snapshot ("));
	root->devices[0].dm_name[0] = '\0';

	memset(c, 0, sizeof(*c));
	md->n_devices = 1;
	copy_str(md->devices[0].path, sizeof(md->devices[0].path), "/devices/virtual/block/md0");
	copy_str(md->devices[0].md_level, sizeof(md->devices[0].md_level), "raid1");
	copy_str(md->devices[0].md_metadata, sizeof(md->devices[0].md_metadata), "1.2");
	assert_int_equal(hostonly_choose(md, c), 0);
	assert_true(c->md);
	assert_false(c->lvm);
	assert_names(c, md_want, ARRAY_SIZE(md_want));
	/* firmware RAID (mdmon keeps its metadata) and md's own odd levels are refused */
	memset(c, 0, sizeof(*c));
	copy_str(md->devices[0].md_metadata, sizeof(md->devices[0].md_metadata), "external:/md127/0");
	assert_int_equal(hostonly_choose(md, c), -EOPNOTSUPP);
	assert_string_equal(c->unsupported,
			    "/ is on firmware RAID (md with /md127/0 metadata, kept by mdmon) (md0)");
	memset(c, 0, sizeof(*c));
	copy_str(md->devices[0].md_metadata, sizeof(md->devices[0].md_metadata), "1.2");
	copy_str(md->devices[0].md_level, sizeof(md->devices[0].md_level), "multipath");
	assert_int_equal(hostonly_choose(md, c), -EOPNOTSUPP);
	assert_string_equal(c->unsupported, "/ is on md RAID of level multipath (md0)");

	memset(c, 0, sizeof(*c));
	md->n_devices = 0;
	copy_str(md->fstype, sizeof(md->fstype), "btrfs");
	/* a btrfs over several devices: each device's chain is in devices[], as for one */
	md->btrfs_devices = 2;
	assert_int_equal(hostonly_choose(md, c), 0);
	assert_string_equal(c->unsupported, "");
	free(root);
	free(mp);
	free(other);
	free(md);
	free(c);
	(void)state;
}

/* vfat: the codepage and iocharsets the kernel would ask modprobe for at mount time */
static void test_vfat_extras(void **state)
{
	static const char *const want[] = { "fs-vfat", "nls_cp437", "nls_ascii", "nls_iso8859_1" };
	struct hostonly_mount *m = mount_of("/usr", "vfat", true, NULL, 0);
	struct hostonly_choice *c = calloc(1, sizeof(*c));

	assert_int_equal(hostonly_choose(m, c), 0);
	assert_names(c, want, ARRAY_SIZE(want));
	assert_int_equal(hostonly_choose_efi(c), 0);
	assert_string_equal(c->names[c->n - 1], "efivarfs");
	free(m);
	free(c);
	(void)state;
}

/* 9p, virtiofs, tmpfs: no disk, nothing chosen */
static void test_not_block(void **state)
{
	struct hostonly_mount *m = mount_of("/", "9p", false, NULL, 0);
	struct hostonly_choice *c = calloc(1, sizeof(*c));

	assert_int_equal(hostonly_choose(m, c), -ENOTBLK);
	assert_int_equal(c->n, 0);
	free(m);
	free(c);
	(void)state;
}

/* An NFS root is the network's: its modules, and the image needs --network. SMB is refused. */
static void test_nfs(void **state)
{
	struct hostonly_mount *m = mount_of("/", "nfs", false, NULL, 0);
	struct hostonly_choice *c = calloc(1, sizeof(*c));
	static const char *const want[] = { "fs-nfs", "nfsv3", "nfsv4" };

	assert_int_equal(hostonly_choose(m, c), 0);
	assert_true(c->network);
	assert_names(c, want, ARRAY_SIZE(want));
	memset(c, 0, sizeof(*c));
	snprintf(m->fstype, sizeof(m->fstype), "cifs");
	assert_int_equal(hostonly_choose(m, c), -EOPNOTSUPP);
	assert_non_null(strstr(c->unsupported, "SMB"));
	free(m);
	free(c);
	(void)state;
}

/* More distinct names than the choice holds: -ENOBUFS, never an overflow. */
static void test_full(void **state)
{
	struct hostonly_mount *m = mount_of("/", "ext4", true, NULL, 0);
	struct hostonly_choice *c = calloc(1, sizeof(*c));
	int r = 0;

	m->n_devices = HOSTONLY_MAX_DEVICES;
	for (size_t round = 0; round < 8 && r == 0; round++) {
		for (size_t i = 0; i < m->n_devices; i++) {
			snprintf(m->devices[i].driver, sizeof(m->devices[i].driver), "d");
			snprintf(m->devices[i].module, sizeof(m->devices[i].module), "m%zu_%zu", round, i);
			snprintf(m->devices[i].modalias, sizeof(m->devices[i].modalias), "a:%zu_%zu", round, i);
		}
		r = hostonly_choose(m, c);
	}
	assert_int_equal(r, -ENOBUFS);
	assert_int_equal(c->n, ARRAY_SIZE(c->names));
	free(m);
	free(c);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_virtio_chain),
		cmocka_unit_test(test_builtin_and_unbound),
		cmocka_unit_test(test_dm_stacks_and_dedup),
		cmocka_unit_test(test_lvm_and_unsupported_stacks),
		cmocka_unit_test(test_vfat_extras),
		cmocka_unit_test(test_not_block),
		cmocka_unit_test(test_nfs),
		cmocka_unit_test(test_full),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
