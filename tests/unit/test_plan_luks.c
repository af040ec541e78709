/* The planner's LUKS decisions (core/plan/plan_luks.c): which partitions are unlocked, as which
 * device, with which key and options, and what is refused. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "plan_fixtures.h"
#include "plan_checks.h"

#define LUKS_ROOT "cc1fed1f-50ba-43cd-a395-77333c5d0504"
#define LUKS_VAR "0b5f3c1e-7a2d-4e6f-8a9b-1c2d3e4f5a6b"
#define LUKS_DATA "5a5a5a5a-1111-4222-8333-444455556666"

static struct part *luks_part(struct fixture *f, size_t d, unsigned n, const char *type,
			      const char *label, uint64_t flags, const char *uuid)
{
	struct part *p = fx_part(f, d, n, type, NULL, label, flags, "crypto_LUKS");

	snprintf(p->fsuuid, sizeof(p->fsuuid), "%s", uuid);
	return p;
}

/* Root, /var (this machine's) and swap encrypted, /home plain. */
static size_t encrypted_disk(struct fixture *f)
{
	size_t d = fx_disk(f, "/dev/vda", "gpt", "", false);
	uint8_t var_uuid[16];
	char var_text[UUID_STR_LEN];

	fx_machine_id(f->machine.machine_id);
	f->machine.has_machine_id = true;
	dps_var_partuuid(f->machine.machine_id, var_uuid);
	uuid_format(var_uuid, var_text);
	luks_part(f, d, 1, T_ROOT_X86_64, "root-x86-64", 0, LUKS_ROOT);
	fx_part(f, d, 2, T_VAR, var_text, "var", 0, "crypto_LUKS");
	snprintf(fx_get(f, d, 2)->fsuuid, 64, "%s", LUKS_VAR);
	fx_part(f, d, 3, T_HOME, NULL, "home", 0, "ext4");
	luks_part(f, d, 4, T_SWAP, "swap", 0, LUKS_DATA);
	return d;
}

static const char *pu(struct fixture *f, size_t d, unsigned n)
{
	static char buf[8][64];
	static unsigned next;
	char *out = buf[next++ % 8];

	snprintf(out, 64, "PARTUUID=%s", fx_get(f, d, n)->partuuid);
	return out;
}

static void test_discovered_partitions_are_unlocked_first(void **state)
{
	struct fixture *f = fx_new();
	const struct plan_step *s;
	int r;

	encrypted_disk(f);
	r = fx_plan(f);
	want_ok(f, r, 7);
	s = want_step(f, 0, OP_UNLOCK, pu(f, 0, 1), "/dev/mapper/root", "");
	assert_ptr_equal(s->part, fx_get(f, 0, 1));
	assert_string_equal(s->key_file, "");
	assert_string_equal(s->key_device, "");
	assert_string_equal(s->options, "");
	assert_false(s->optional);
	assert_string_equal(s->prompt, "root (partition 1 'root-x86-64' of /dev/vda)");
	s = want_step(f, 1, OP_MOUNT, "/dev/mapper/root", "/sysroot", "");
	assert_null(s->part);
	assert_string_equal(s->options, "ro,nodev");
	assert_false(s->norecovery_if_journalled);
	assert_non_null(strstr(s->reason, "unlocked LUKS device over discovered partition 1"));
	/* the /var rule holds for the LUKS partition's PARTUUID */
	want_step(f, 2, OP_UNLOCK, pu(f, 0, 2), "/dev/mapper/var", "");
	s = want_step(f, 3, OP_MOUNT, "/dev/mapper/var", "/sysroot/var", "");
	assert_false(s->optional);
	assert_string_equal(s->options, "rw,nodev");
	want_step(f, 4, OP_MOUNT, pu(f, 0, 3), "/sysroot/home", "ext4");
	s = want_step(f, 5, OP_UNLOCK, pu(f, 0, 4), "/dev/mapper/swap", "");
	assert_true(s->optional);
	s = want_step(f, 6, OP_SWAPON, "/dev/mapper/swap", "", "");
	assert_true(s->optional);
	assert_null(s->part);
	fx_free(f);
	(void)state;
}

static void test_var_of_another_machine_stays_locked(void **state)
{
	struct fixture *f = fx_new();
	int r;

	encrypted_disk(f);
	f->machine.machine_id[0] ^= 1;
	r = fx_plan(f);
	want_ok(f, r, 5);
	want_note(f, "partition 2 (var) not mounted: its PARTUUID");
	fx_free(f);
	(void)state;
}

static void test_read_only_bit(void **state)
{
	struct fixture *f = fx_new();
	size_t d = fx_disk(f, "/dev/vda", "gpt", "", false);
	const struct plan_step *s;
	int r;

	luks_part(f, d, 1, T_ROOT_X86_64, "root", GPT_FLAG_READ_ONLY, LUKS_ROOT);
	r = plan_with(f, "rw rootfstype=ext4");
	want_ok(f, r, 2);
	s = want_step(f, 0, OP_UNLOCK, pu(f, d, 1), "/dev/mapper/root", "");
	assert_string_equal(s->options, "readonly");
	s = want_step(f, 1, OP_MOUNT, "/dev/mapper/root", "/sysroot", "ext4");
	assert_string_equal(s->options, "ro,nodev,norecovery");
	r = plan_with(f, "rw");
	want_ok(f, r, 2);
	s = want_step(f, 1, OP_MOUNT, "/dev/mapper/root", "/sysroot", "");
	assert_string_equal(s->options, "ro,nodev");
	assert_true(s->norecovery_if_journalled);
	fx_free(f);
	(void)state;
}

static void test_names_keys_and_options(void **state)
{
	struct fixture *f = fx_new();
	const struct plan_step *s;
	int r;

	encrypted_disk(f);
	r = plan_with(f, "rd.luks.name=" LUKS_ROOT "=cryptroot rd.luks.options=discard,tries=5,frob "
		      "rd.luks.options=" LUKS_VAR "=nofail rd.luks.key=/etc/keys/all.key "
		      "rd.luks.key=" LUKS_VAR "=/var.key:LABEL=usbkey");
	want_ok(f, r, 7);
	s = want_step(f, 0, OP_UNLOCK, pu(f, 0, 1), "/dev/mapper/cryptroot", "");
	assert_string_equal(s->options, "discard,tries=5");
	assert_string_equal(s->key_file, "/etc/keys/all.key");
	assert_string_equal(s->key_device, "");
	want_step(f, 1, OP_MOUNT, "/dev/mapper/cryptroot", "/sysroot", "");
	s = want_step(f, 2, OP_UNLOCK, pu(f, 0, 2), "/dev/mapper/var", "");
	assert_string_equal(s->options, "nofail");
	assert_string_equal(s->key_file, "/var.key");
	assert_string_equal(s->key_device, "LABEL=usbkey");
	assert_true(s->optional);
	assert_true(f->plan.steps[3].optional);
	want_note(f, "rd.luks.options=: left out what earlymount does not know: frob");
	fx_free(f);
	(void)state;
}

static void test_malformed_options_refused(void **state)
{
	struct fixture *f = fx_new();
	int r;

	encrypted_disk(f);
	r = plan_with(f, "rd.luks.options=tries=many");
	want_error(f, r, -EINVAL, "rd.luks.options=tries=many: LUKS option 'tries=many': a number");
	fx_free(f);
	(void)state;
}

static void test_root_named_on_the_command_line(void **state)
{
	struct fixture *f = fx_new();
	const struct plan_step *s;
	int r;

	encrypted_disk(f);
	/* by the LUKS header's UUID: unlocked as "root" */
	r = plan_with(f, "root=UUID=" LUKS_ROOT);
	want_ok(f, r, 7);
	s = want_step(f, 0, OP_UNLOCK, "UUID=" LUKS_ROOT, "/dev/mapper/root", "");
	want_step(f, 1, OP_MOUNT, "/dev/mapper/root", "/sysroot", "");
	/* by the device rd.luks.uuid= makes: systemd's luks-UUID */
	options_init(&f->opts);
	r = plan_with(f, "root=/dev/mapper/luks-" LUKS_ROOT " rd.luks.uuid=" LUKS_ROOT);
	want_ok(f, r, 7);
	s = want_step(f, 0, OP_UNLOCK, "UUID=" LUKS_ROOT, "/dev/mapper/luks-" LUKS_ROOT, "");
	s = want_step(f, 1, OP_MOUNT, "/dev/mapper/luks-" LUKS_ROOT, "/sysroot", "");
	assert_non_null(strstr(s->reason, "root=/dev/mapper/luks-"));
	/* and by rd.luks.name= */
	options_init(&f->opts);
	r = plan_with(f, "root=/dev/mapper/cr rd.luks.name=" LUKS_ROOT "=cr");
	want_ok(f, r, 7);
	want_step(f, 0, OP_UNLOCK, "UUID=" LUKS_ROOT, "/dev/mapper/cr", "");
	/* a mapper name nothing makes is not found */
	options_init(&f->opts);
	r = plan_with(f, "root=/dev/mapper/other rd.luks.name=" LUKS_ROOT "=cr");
	want_error(f, r, -ENOENT, "root=/dev/mapper/other matches no partition");
	fx_free(f);
	(void)state;
}

static void test_listed_volumes(void **state)
{
	struct fixture *f = fx_new();
	size_t d = fx_disk(f, "/dev/vda", "gpt", "", false);
	const struct plan_step *s;
	int r;

	fx_part(f, d, 1, T_ROOT_X86_64, NULL, "root", 0, "ext4");
	luks_part(f, d, 2, T_LINUX, "data", 0, LUKS_DATA);
	fx_part(f, d, 3, T_LINUX, NULL, "plain", 0, "ext4");
	snprintf(fx_get(f, d, 3)->fsuuid, 64, "%s", LUKS_VAR);
	r = plan_with(f, "rd.luks.uuid=" LUKS_DATA " rd.luks.uuid=" LUKS_VAR
		      " rd.luks.uuid=" LUKS_ROOT);
	want_ok(f, r, 2);
	s = want_step(f, 1, OP_UNLOCK, "UUID=" LUKS_DATA, "/dev/mapper/luks-" LUKS_DATA, "");
	assert_string_equal(s->prompt, "luks-" LUKS_DATA " (partition 2 'data' of /dev/vda)");
	want_note(f, "rd.luks.uuid=" LUKS_VAR ": partition 3 of /dev/vda (UUID=" LUKS_VAR ") holds ext4");
	want_note(f, "rd.luks.uuid=" LUKS_ROOT ": no such LUKS device");
	fx_free(f);
	(void)state;
}

/* A whole device that is a device-mapper device (a logical volume, an unlocked volume). */
static struct part *dm_device(struct fixture *f, const char *node, const char *name,
			      const char *dm_uuid, const char *fstype, const char *label)
{
	size_t d = fx_disk(f, node, "", "", false);
	struct part *p = fx_part(f, d, PART_WHOLE_DEVICE, "", "", "", 0, fstype);

	snprintf(p->devpath, sizeof(p->devpath), "%s", node);
	snprintf(p->dm_name, sizeof(p->dm_name), "%s", name);
	snprintf(p->dm_uuid, sizeof(p->dm_uuid), "%s", dm_uuid);
	snprintf(p->fslabel, sizeof(p->fslabel), "%s", label);
	return p;
}

/* LVM on LUKS: the root inside a listed volume is found only once the volume is unlocked and
 * its VG active. Before: no plan, and the listed volume's unlock alone (what the boot runs as
 * soon as it appears). After: the volume is not unlocked twice, and no name is made twice. */
static void test_listed_volume_holding_the_root(void **state)
{
	struct fixture *f = fx_new();
	size_t d = fx_disk(f, "/dev/vda", "gpt", "", false);
	struct plan_input in = { .opts = &f->opts, .disks = &f->set, .machine = &f->machine };
	const struct plan_step *s;
	int r;

	luks_part(f, d, 1, T_LINUX, "crypt", 0, LUKS_DATA);
	snprintf(fx_get(f, d, 1)->devpath, 64, "/dev/vda1");
	r = plan_with(f, "rd.luks.uuid=" LUKS_DATA " root=/dev/mapper/vg0-root");
	want_error(f, r, -ENOENT, "root=/dev/mapper/vg0-root matches no partition");
	assert_int_equal(plan_build_listed_unlocks(&in, &f->plan), 0);
	assert_int_equal(f->plan.n_steps, 1);
	want_step(f, 0, OP_UNLOCK, "UUID=" LUKS_DATA, "/dev/mapper/luks-" LUKS_DATA, "");
	assert_string_equal(f->plan.steps[0].prompt, "luks-" LUKS_DATA " (partition 1 'crypt' of /dev/vda)");

	/* unlocked (cryptsetup's dm UUID names the header), the PV inside activated */
	dm_device(f, "/dev/dm-0", "luks-" LUKS_DATA,
		  "CRYPT-LUKS2-5a5a5a5a111142228333444455556666-luks-" LUKS_DATA, "LVM2_member", "");
	dm_device(f, "/dev/dm-1", "vg0-root", "LVM-0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
		  "ext4", "lvroot");
	assert_int_equal(plan_build_listed_unlocks(&in, &f->plan), 0);
	assert_int_equal(f->plan.n_steps, 0);
	r = plan_with(f, "rd.luks.uuid=" LUKS_DATA " root=/dev/mapper/vg0-root");
	want_ok(f, r, 2);
	/* the volume group was activated as the unlocked volume appeared: the plan says so */
	s = want_step(f, 0, OP_ACTIVATE, "/dev/dm-0", "/dev/mapper/vg0-root", "");
	assert_string_equal(s->reason, "root: logical volume root of volume group vg0, activated by "
				       "lvm as its physical volumes appeared");
	s = want_step(f, 1, OP_MOUNT, "/dev/mapper/vg0-root", "/sysroot", "ext4");
	assert_string_equal(s->reason, "root=/dev/mapper/vg0-root (the whole of /dev/dm-1, /dev/mapper/vg0-root)");
	want_note(f, "rd.luks.uuid=" LUKS_DATA ": unlocked already, as /dev/mapper/luks-" LUKS_DATA);
	want_note(f, "nothing discovered: /dev/dm-1 /dev/mapper/vg0-root is a whole device");
	r = plan_with(f, "root=/dev/vg0/root");
	want_ok(f, r, 2);
	r = plan_with(f, "root=LABEL=lvroot");
	want_ok(f, r, 2);
	/* a name the plan would make, held by a device already there */
	r = plan_with(f, "root=/dev/vg0/root rd.luks.uuid=" LUKS_ROOT);
	want_ok(f, r, 2);
	luks_part(f, d, 2, T_LINUX, "other", 0, LUKS_ROOT);
	r = plan_with(f, "root=/dev/vg0/root rd.luks.name=" LUKS_ROOT "=vg0-root");
	want_error(f, r, -EINVAL, "/dev/mapper/vg0-root exists already (/dev/dm-1, LVM-");
	fx_free(f);
	(void)state;
}

static void test_rd_luks_no(void **state)
{
	struct fixture *f = fx_new();
	size_t d;
	int r;

	encrypted_disk(f);
	r = plan_with(f, "rd.luks=no");
	want_error(f, r, -EPERM, "root: partition 1 of /dev/vda is encrypted (LUKS) and rd.luks=no leaves "
		   "it locked");
	fx_free(f);
	f = fx_new();
	d = fx_disk(f, "/dev/vda", "gpt", "", false);
	fx_part(f, d, 1, T_ROOT_X86_64, NULL, "root", 0, "ext4");
	luks_part(f, d, 2, T_HOME, "home", 0, LUKS_DATA);
	r = plan_with(f, "luks=0 rd.luks.uuid=" LUKS_DATA);
	want_ok(f, r, 1);
	want_note(f, "partition 2 (home) not used: it is encrypted (LUKS) and rd.luks=no");
	fx_free(f);
	(void)state;
}

static void test_refusals(void **state)
{
	struct fixture *f = fx_new();
	size_t d;
	int r;

	encrypted_disk(f);
	/* two devices of one name */
	r = plan_with(f, "rd.luks.name=" LUKS_VAR "=root");
	want_error(f, r, -EINVAL, "two devices would be /dev/mapper/root");
	fx_free(f);
	/* ... and the same when the verity device comes second: a LUKS root unlocked as "usr",
	 * then /usr verified as /dev/mapper/usr */
	f = fx_new();
	d = fx_disk(f, "/dev/vda", "gpt", "", false);
	luks_part(f, d, 1, T_ROOT_X86_64, "root", 0, LUKS_ROOT);
	fx_part(f, d, 2, T_USR_X86_64, "11112222-3333-4444-5555-666677778888",
		"usr", 0, "erofs");
	fx_part(f, d, 3, "77ff5f63-e7b6-4633-acf4-1565b864c0e6", "99990000-1111-2222-3333-4444aaaabbbb",
		"usr-verity", 0, "");
	r = plan_with(f, "rd.luks.name=" LUKS_ROOT "=usr "
			 "usrhash=11112222333344445555666677778888999900001111222233334444aaaabbbb");
	want_error(f, r, -EINVAL, "two devices would be /dev/mapper/usr");
	fx_free(f);
	/* dm-verity over LUKS */
	f = fx_new();
	d = fx_disk(f, "/dev/vda", "gpt", "", false);
	luks_part(f, d, 1, T_ROOT_X86_64, "root", 0, LUKS_ROOT);
	snprintf(fx_get(f, d, 1)->partuuid, UUID_STR_LEN, "6fd5c1a7-a7ae-4f2b-9d0e-0f8f3e7b2c1a");
	fx_part(f, d, 2, T_ROOT_VERITY_X86_64, "0aaf6ee3-d3d3-b8b1-c2e2-f9a8b7c6d5e4", "v", 0, "");
	r = plan_with(f, "roothash=6fd5c1a7a7ae4f2b9d0e0f8f3e7b2c1a0aaf6ee3d3d3b8b1c2e2f9a8b7c6d5e4");
	want_error(f, r, -EINVAL, "dm-verity over LUKS is not supported");
	fx_free(f);
	/* the boot partitions are read by the firmware: never unlocked */
	f = fx_new();
	d = fx_disk(f, "/dev/vda", "gpt", "", false);
	fx_part(f, d, 1, T_ROOT_X86_64, NULL, "root", 0, "ext4");
	luks_part(f, d, 2, T_ESP, "esp", 0, LUKS_DATA);
	r = fx_plan(f);
	want_ok(f, r, 1);
	want_note(f, "partition 2 (esp) not used: it holds crypto_LUKS");
	fx_free(f);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_discovered_partitions_are_unlocked_first),
		cmocka_unit_test(test_var_of_another_machine_stays_locked),
		cmocka_unit_test(test_read_only_bit),
		cmocka_unit_test(test_names_keys_and_options),
		cmocka_unit_test(test_malformed_options_refused),
		cmocka_unit_test(test_root_named_on_the_command_line),
		cmocka_unit_test(test_listed_volumes),
		cmocka_unit_test(test_listed_volume_holding_the_root),
		cmocka_unit_test(test_rd_luks_no),
		cmocka_unit_test(test_refusals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
