/* The image's crypttab in the planner (core/plan/plan_volumes.c): which entries are opened,
 * under which name, with which key and options, how the command line narrows and replaces
 * them, and what stays closed or is refused. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "plan_fixtures.h"
#include "plan_checks.h"

#define LUKS_A "5a5a5a5a-1111-4222-8333-444455556666"
#define LUKS_B "0b5f3c1e-7a2d-4e6f-8a9b-1c2d3e4f5a6b"
#define LUKS_C "cc1fed1f-50ba-43cd-a395-77333c5d0504"

static struct part *luks_part(struct fixture *f, size_t d, unsigned n, const char *label,
			      const char *uuid)
{
	struct part *p = fx_part(f, d, n, T_LINUX, NULL, label, 0, "crypto_LUKS");

	snprintf(p->fsuuid, sizeof(p->fsuuid), "%s", uuid);
	snprintf(p->devpath, sizeof(p->devpath), "/dev/vda%u", n);
	return p;
}

static void with_crypttab(struct fixture *f, const char *text)
{
	crypttab_parse(text, strlen(text), &f->machine.crypttab);
	f->machine.has_crypttab = true;
}

/* The volumes opened as they appear, alone: what the boot runs while the root is not found. */
static int listed(struct fixture *f, const char *line)
{
	struct plan_input in = { .opts = &f->opts, .disks = &f->set, .machine = &f->machine };
	char err[256];

	cmdline_parse(line, &f->opts, err, sizeof(err));
	return plan_build_listed_unlocks(&in, &f->plan);
}

/* Debian's encrypted LVM: the command line names the LV, crypttab the volume holding it. */
static void test_installer_layout(void **state)
{
	struct fixture *f = fx_new();
	size_t d = fx_disk(f, "/dev/vda", "gpt", "", false);
	const struct plan_step *s;

	luks_part(f, d, 3, "crypt", LUKS_A);
	with_crypttab(f, "# <target name> <source device> <key file> <options>\n"
			 "vda3_crypt UUID=" LUKS_A " none luks,discard\n");
	want_error(f, plan_with(f, "root=/dev/mapper/debian--vg-root ro quiet"), -ENOENT,
		   "root=/dev/mapper/debian--vg-root matches no partition");
	assert_int_equal(listed(f, "root=/dev/mapper/debian--vg-root ro quiet"), 0);
	assert_int_equal(f->plan.n_steps, 1);
	s = want_step(f, 0, OP_UNLOCK, "UUID=" LUKS_A, "/dev/mapper/vda3_crypt", "");
	assert_string_equal(s->options, "discard");
	assert_string_equal(s->key_file, "");
	assert_string_equal(s->prompt, "vda3_crypt (partition 3 'crypt' of /dev/vda)");
	assert_string_equal(s->reason, "the image's crypttab: vda3_crypt (line 2) lists it (LUKS " LUKS_A ")");
	/* the file unread, or nothing unlocked */
	assert_int_equal(listed(f, "rd.luks.crypttab=no"), 0);
	assert_int_equal(f->plan.n_steps, 0);
	assert_int_equal(listed(f, "rd.luks=no"), 0);
	assert_int_equal(f->plan.n_steps, 0);
	fx_free(f);
	(void)state;
}

/* rd.luks.uuid= keeps the entries it names, under their names; a listed UUID no entry has is
 * luks-UUID; the others stay closed. */
static void test_command_line_narrows(void **state)
{
	struct fixture *f = fx_new();
	size_t d = fx_disk(f, "/dev/vda", "gpt", "", false);

	luks_part(f, d, 1, "a", LUKS_A);
	luks_part(f, d, 2, "b", LUKS_B);
	luks_part(f, d, 3, "c", LUKS_C);
	with_crypttab(f, "alpha UUID=" LUKS_A " none\n"
			 "beta /dev/disk/by-uuid/" LUKS_B " none\n");
	assert_int_equal(listed(f, ""), 0);
	assert_int_equal(f->plan.n_steps, 2);
	want_step(f, 0, OP_UNLOCK, "UUID=" LUKS_A, "/dev/mapper/alpha", "");
	want_step(f, 1, OP_UNLOCK, "UUID=" LUKS_B, "/dev/mapper/beta", "");
	assert_int_equal(listed(f, "rd.luks.uuid=" LUKS_B), 0);
	assert_int_equal(f->plan.n_steps, 1);
	want_step(f, 0, OP_UNLOCK, "UUID=" LUKS_B, "/dev/mapper/beta", "");
	want_note(f, "the image's crypttab: alpha (line 1): not opened: rd.luks.uuid= and "
		     "rd.luks.name= list other volumes");
	fx_free(f);

	f = fx_new();
	d = fx_disk(f, "/dev/vda", "gpt", "", false);
	luks_part(f, d, 1, "a", LUKS_A);
	luks_part(f, d, 3, "c", LUKS_C);
	with_crypttab(f, "alpha UUID=" LUKS_A " none\n");
	assert_int_equal(listed(f, "rd.luks.uuid=" LUKS_C), 0);
	assert_int_equal(f->plan.n_steps, 1);
	want_step(f, 0, OP_UNLOCK, "UUID=" LUKS_C, "/dev/mapper/luks-" LUKS_C, "");
	fx_free(f);
	(void)state;
}

/* systemd reads the UUID from a name luks-UUID too; the device may be named any way. */
static void test_names_and_devices(void **state)
{
	struct fixture *f = fx_new();
	size_t d = fx_disk(f, "/dev/vda", "gpt", "", false);
	const struct part *b;
	char text[256];

	luks_part(f, d, 1, "a", LUKS_A);
	b = luks_part(f, d, 2, "b", LUKS_B);
	snprintf(text, sizeof(text), "luks-" LUKS_A " /dev/vda1 none\nbeta PARTUUID=%s none\n",
		 b->partuuid);
	with_crypttab(f, text);
	assert_int_equal(listed(f, "rd.luks.uuid=" LUKS_A), 0);
	assert_int_equal(f->plan.n_steps, 1);
	want_step(f, 0, OP_UNLOCK, "/dev/vda1", "/dev/mapper/luks-" LUKS_A, "");
	assert_int_equal(listed(f, ""), 0);
	assert_int_equal(f->plan.n_steps, 2);
	want_step(f, 1, OP_UNLOCK, f->machine.crypttab.entries[1].device, "/dev/mapper/beta", "");
	fx_free(f);
	(void)state;
}

/* The entry's key and options; rd.luks.options= for its UUID replaces the options, the
 * command line's keys and options for every volume do not reach it. */
static void test_keys_and_options(void **state)
{
	struct fixture *f = fx_new();
	size_t d = fx_disk(f, "/dev/vda", "gpt", "", false);
	const struct plan_step *s;

	luks_part(f, d, 1, "a", LUKS_A);
	luks_part(f, d, 2, "b", LUKS_B);
	with_crypttab(f, "alpha UUID=" LUKS_A " /etc/keys/alpha.key luks,tries=2,nofail\n"
			 "beta UUID=" LUKS_B " /beta.key:LABEL=usbkey discard\n");
	assert_int_equal(listed(f, "rd.luks.options=readonly rd.luks.key=/etc/every.key"), 0);
	s = want_step(f, 0, OP_UNLOCK, "UUID=" LUKS_A, "/dev/mapper/alpha", "");
	assert_string_equal(s->key_file, "/etc/keys/alpha.key");
	assert_string_equal(s->key_device, "");
	assert_string_equal(s->options, "nofail,tries=2");
	assert_true(s->optional);
	s = want_step(f, 1, OP_UNLOCK, "UUID=" LUKS_B, "/dev/mapper/beta", "");
	assert_string_equal(s->key_file, "/beta.key");
	assert_string_equal(s->key_device, "LABEL=usbkey");
	assert_string_equal(s->options, "discard");
	assert_int_equal(listed(f, "rd.luks.options=" LUKS_B "=readonly"), 0);
	s = want_step(f, 1, OP_UNLOCK, "UUID=" LUKS_B, "/dev/mapper/beta", "");
	assert_string_equal(s->options, "readonly");
	fx_free(f);
	(void)state;
}

/* root= may name an entry's device; a discovered root takes its entry's name. */
static void test_mounts_take_the_entry_name(void **state)
{
	struct fixture *f = fx_new();
	size_t d = fx_disk(f, "/dev/vda", "gpt", "", false);
	struct part *root = luks_part(f, d, 1, "root", LUKS_A);

	with_crypttab(f, "cryptroot UUID=" LUKS_A " none discard\n");
	want_ok(f, plan_with(f, "root=/dev/mapper/cryptroot"), 2);
	want_step(f, 0, OP_UNLOCK, "UUID=" LUKS_A, "/dev/mapper/cryptroot", "");
	want_step(f, 1, OP_MOUNT, "/dev/mapper/cryptroot", "/sysroot", "");
	snprintf(root->type, sizeof(root->type), "%s", T_ROOT_X86_64);
	want_ok(f, plan_with(f, ""), 2);
	assert_non_null(strstr(f->plan.steps[0].reason, "named by the image's crypttab: cryptroot (line 1)"));
	want_step(f, 0, OP_UNLOCK, f->plan.steps[0].source, "/dev/mapper/cryptroot", "");
	fx_free(f);
	(void)state;
}

/* noauto and a random key stay closed; an entry asking what earlymount refuses stops the plan,
 * unless the command line leaves it out. */
static void test_closed_and_refused(void **state)
{
	struct fixture *f = fx_new();
	size_t d = fx_disk(f, "/dev/vda", "gpt", "", false);

	luks_part(f, d, 1, "a", LUKS_A);
	luks_part(f, d, 2, "b", LUKS_B);
	with_crypttab(f, "alpha UUID=" LUKS_A " none noauto\n"
			 "cswap UUID=" LUKS_B " /dev/urandom swap\n");
	assert_int_equal(listed(f, ""), 0);
	assert_int_equal(f->plan.n_steps, 0);
	want_note(f, "the image's crypttab: alpha (line 1): not opened: noauto");
	want_note(f, "the image's crypttab: cswap (line 2): not opened: its key is random");
	fx_free(f);

	f = fx_new();
	d = fx_disk(f, "/dev/vda", "gpt", "", false);
	luks_part(f, d, 1, "a", LUKS_A);
	luks_part(f, d, 2, "b", LUKS_B);
	with_crypttab(f, "alpha UUID=" LUKS_A " none luks,keyscript=/bin/cat\n"
			 "beta UUID=" LUKS_B " none luks\n");
	assert_int_equal(listed(f, ""), -EOPNOTSUPP);
	assert_non_null(strstr(f->plan.error, "the image's crypttab: alpha (line 1): LUKS option "
					      "'keyscript=/bin/cat'"));
	assert_non_null(strstr(f->plan.error, "rd.luks.crypttab=no"));
	assert_int_equal(listed(f, "rd.luks.uuid=" LUKS_B), 0);
	assert_int_equal(f->plan.n_steps, 1);
	/* the command line's options in place of the entry's: those are what is checked */
	assert_int_equal(listed(f, "rd.luks.options=" LUKS_A "=discard"), 0);
	assert_int_equal(f->plan.n_steps, 2);
	assert_string_equal(f->plan.steps[0].options, "discard");
	fx_free(f);
	(void)state;
}

/* resume= naming an entry's volume: unlocked first, the image read through it; the swap
 * enabled later takes the same device, never a second unlock. */
static void test_resume_through_an_entry(void **state)
{
	struct fixture *f = fx_new();
	size_t d = fx_disk(f, "/dev/vda", "gpt", "", false);
	struct part *swap;

	fx_part(f, d, 1, T_ROOT_X86_64, NULL, "root", 0, "ext4");
	swap = luks_part(f, d, 2, "swap", LUKS_A);
	snprintf(swap->type, sizeof(swap->type), "%s", T_SWAP);
	with_crypttab(f, "cswap UUID=" LUKS_A " none luks\n");
	want_ok(f, plan_with(f, "resume=/dev/mapper/cswap"), 4);
	want_step(f, 0, OP_UNLOCK, "UUID=" LUKS_A, "/dev/mapper/cswap", "");
	assert_string_equal(f->plan.steps[0].prompt, "cswap (partition 2 'swap' of /dev/vda)");
	want_step(f, 1, OP_RESUME, "/dev/mapper/cswap", "", "");
	want_step(f, 2, OP_MOUNT, f->plan.steps[2].source, "/sysroot", "ext4");
	want_step(f, 3, OP_SWAPON, "/dev/mapper/cswap", "", "");
	/* without the entry, the name is nobody's: not resumed from */
	f->machine.has_crypttab = false;
	want_ok(f, plan_with(f, "resume=/dev/mapper/cswap"), 3);
	want_note(f, "resume=/dev/mapper/cswap not attempted");
	fx_free(f);
	(void)state;
}

/* Plain dm-crypt and a detached header: the device shows no LUKS header, the entry says how it
 * opens; a partition no entry names that way is not opened. */
static void test_plain_and_detached_header(void **state)
{
	struct fixture *f = fx_new();
	size_t d = fx_disk(f, "/dev/vda", "gpt", "", false);
	const struct plan_step *s;

	fx_part(f, d, 1, T_LINUX, NULL, "plain", 0, "");
	fx_part(f, d, 2, T_LINUX, NULL, "hdrdata", 0, "");
	snprintf(fx_get(f, d, 1)->devpath, 64, "/dev/vda1");
	snprintf(fx_get(f, d, 2)->devpath, 64, "/dev/vda2");
	with_crypttab(f, "cplain PARTLABEL=plain none plain,cipher=aes-xts-plain64,size=512\n"
			 "chdr PARTLABEL=hdrdata none luks,header=/etc/hdr.img\n");
	want_ok(f, plan_with(f, "root=/dev/mapper/cplain"), 3);
	s = want_step(f, 0, OP_UNLOCK, "PARTLABEL=plain", "/dev/mapper/cplain", "");
	assert_string_equal(s->options, "plain,cipher=aes-xts-plain64,size=512");
	assert_non_null(strstr(s->reason, "(plain dm-crypt)"));
	want_step(f, 1, OP_MOUNT, "/dev/mapper/cplain", "/sysroot", "");
	s = want_step(f, 2, OP_UNLOCK, "PARTLABEL=hdrdata", "/dev/mapper/chdr", "");
	assert_string_equal(s->options, "header=/etc/hdr.img");
	assert_non_null(strstr(s->reason, "its header in /etc/hdr.img"));
	/* without the entries, the same partitions hold nothing to open */
	f->machine.has_crypttab = false;
	want_error(f, plan_with(f, "root=/dev/mapper/cplain"), -ENOENT, "root=/dev/mapper/cplain");
	fx_free(f);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_installer_layout),
		cmocka_unit_test(test_command_line_narrows),
		cmocka_unit_test(test_names_and_devices),
		cmocka_unit_test(test_keys_and_options),
		cmocka_unit_test(test_mounts_take_the_entry_name),
		cmocka_unit_test(test_closed_and_refused),
		cmocka_unit_test(test_resume_through_an_entry),
		cmocka_unit_test(test_plain_and_detached_header),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
