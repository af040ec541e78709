/* systemd.image_policy= and systemd.image_filter= in the planner (core/plan/plan_policy.c): a
 * policy or filter that cannot be read stops the plan; a partition whose rule wants it absent
 * refuses the disk, one left unused or not matching the filter is passed over (and the refusal
 * that follows says so); what discovery uses must be used as its rule allows; a partition the
 * rule wants must be used; what the command line names is not the policy's. The grammar of
 * both is test_image_policy.c's and test_image_filter.c's. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "plan_fixtures.h"
#include "plan_checks.h"
#include "util.h"

#define T_ROOT_VERITY_SIG_X86_64 "41092b05-9fc8-4523-994f-2def0408b176"
#define HASH "6fd5c1a7a7ae4f2b9d0e0f8f3e7b2c1a0aaf6ee3d3d3b8b1c2e2f9a8b7c6d5e4"
#define HASH_DATA "6fd5c1a7-a7ae-4f2b-9d0e-0f8f3e7b2c1a"
#define HASH_TREE "0aaf6ee3-d3d3-b8b1-c2e2-f9a8b7c6d5e4"
#define LUKS_HOME "5a5a5a5a-1111-4222-8333-444455556666"
/* what fx_part() gives partitions 1 and 5 of the first disk */
#define ROOT_PARTUUID "00000001-0000-4000-8000-000000000001"
#define USR_PARTUUID "00000001-0000-4000-8000-000000000005"

/* Root, /home, swap and an ESP, none of them protected. */
static struct fixture *plain(void)
{
	struct fixture *f = fx_new();
	size_t d = fx_disk(f, "/dev/vda", "gpt", "", false);

	fx_part(f, d, 1, T_ROOT_X86_64, NULL, "root", 0, "ext4");
	fx_part(f, d, 2, T_HOME, NULL, "home", 0, "ext4");
	fx_part(f, d, 3, T_SWAP, NULL, "swap", 0, "swap");
	fx_part(f, d, 4, T_ESP, NULL, "esp", 0, "vfat");
	return f;
}

/* plain() with a fifth partition. */
static struct fixture *plain_and(const char *type, const char *fstype)
{
	struct fixture *f = plain();

	fx_part(f, 0, 5, type, NULL, "fifth", 0, fstype);
	return f;
}

static struct fixture *arm64_usr(void)
{
	return plain_and(T_USR_ARM64, "erofs");
}

/* x86 is the secondary arch of x86-64: its partitions count. */
static struct fixture *x86_usr(void)
{
	return plain_and(T_USR_X86, "erofs");
}

static struct fixture *usr(void)
{
	return plain_and(T_USR_X86_64, "ext4");
}

/* A /var, but not this machine's: there, and unused. */
static struct fixture *foreign_var(void)
{
	return plain_and(T_VAR, "ext4");
}

static struct fixture *no_home(void)
{
	struct fixture *f = plain();

	fx_get(f, 0, 2)->type[0] = '0';
	return f;
}

static struct fixture *luks_home(void)
{
	struct fixture *f = fx_new();
	size_t d = fx_disk(f, "/dev/vda", "gpt", "", false);

	fx_part(f, d, 1, T_ROOT_X86_64, NULL, "root", 0, "ext4");
	snprintf(fx_part(f, d, 2, T_HOME, NULL, "home", 0, "crypto_LUKS")->fsuuid, 64, LUKS_HOME);
	return f;
}

/* luks_home() whose LUKS2 header gives every segment dm-integrity. */
static struct fixture *luks_home_integrity(void)
{
	struct fixture *f = luks_home();

	fx_get(f, 0, 2)->luks_integrity = true;
	return f;
}

/* A root verified by dm-verity: its data and hash partitions, named by HASH's halves. */
static struct fixture *verity(void)
{
	struct fixture *f = fx_new();
	size_t d = fx_disk(f, "/dev/vda", "gpt", "", false);

	fx_part(f, d, 1, T_ROOT_X86_64, HASH_DATA, "root", 0, "erofs");
	fx_part(f, d, 2, T_ROOT_VERITY_X86_64, HASH_TREE, "root-verity", 0, "");
	return f;
}

/* verity() with HASH signed on the disk. */
static struct fixture *signed_verity(void)
{
	struct fixture *f = verity();

	strcpy(fx_part(f, 0, 3, T_ROOT_VERITY_SIG_X86_64, NULL, "root-sig", 0, "")->verity_sig_hash, HASH);
	return f;
}

/* A line with a malformed value: the parser says so, the planner must refuse. */
static int plan_any(struct fixture *f, const char *line)
{
	(void)cmdline_parse(line, &f->opts, NULL, 0);
	f->opts.fsck_mode = FSCK_SKIP;
	return fx_plan(f);
}

static void test_refusals(void **state)
{
	static const struct {
		struct fixture *(*disk)(void);
		const char *line;
		int code;
		const char *error;
	} cases[] = {
		/* a policy or a filter that cannot be read */
		{ plain, "systemd.image_policy=root=verity:root=signed", -EINVAL,
		  "systemd.image_policy=root=verity:root=signed is malformed: 'root' has two rules; "
		  "refusing to boot under half a policy" },
		{ plain, "systemd.image_filter=root", -EINVAL,
		  "systemd.image_filter=root is malformed: 'root' has no '=' (a rule is DESIGNATOR=GLOB); "
		  "refusing to boot under half a filter" },
		/* a partition that must not be there: the disk, by its rule or the default one */
		{ plain, "systemd.image_policy=swap=absent:=open", -EPERM,
		  "systemd.image_policy=: partition 3 of /dev/vda is a swap partition, and the rule "
		  "'swap=absent' wants none there: refusing the disk" },
		{ plain, "systemd.image_policy=root=unprotected:home=unprotected:swap=unused:=absent", -EPERM,
		  "partition 4 of /dev/vda is an esp partition, and the rule '=absent (the default rule)' "
		  "wants none there" },
		{ x86_usr, "systemd.image_policy=usr=absent:=open", -EPERM,
		  "partition 5 of /dev/vda is a usr partition" },
		/* passed over, so no root: the refusal says what would have been used */
		{ plain, "systemd.image_policy=root=unused:=open", -ENOENT,
		  " that systemd.image_policy= lets discovery use (rule 'root=unused')" },
		{ plain, "systemd.image_filter=root=ParticleOS-*", -ENOENT,
		  " that systemd.image_filter= (root=ParticleOS-*) lets through" },
		/* used otherwise than the rule allows: protection, GPT flags, filesystem */
		{ plain, "systemd.image_policy=home=encrypted:=open", -EPERM,
		  "systemd.image_policy=: home partition 2 of /dev/vda is refused by the rule "
		  "'home=encrypted': " },
		{ plain, "systemd.image_policy=root=verity+signed:=open", -EPERM,
		  "root partition 1 of /dev/vda is refused by the rule 'root=verity+signed'" },
		{ plain, "systemd.image_policy=root=read-only-on:=open", -EPERM,
		  "root partition 1 of /dev/vda is refused by the rule 'root=read-only-on'" },
		{ plain, "systemd.image_policy=root=btrfs:=open", -EPERM,
		  "root partition 1 of /dev/vda is refused by the rule 'root=btrfs'" },
		{ verity, "roothash=" HASH " systemd.image_policy=root=signed:=open", -EPERM,
		  "root partition 1 of /dev/vda is refused by the rule 'root=signed'" },
		/* systemd 260: a LUKS volume is encrypted with integrity or without, never both */
		{ luks_home, "systemd.image_policy=home=encryptedwithintegrity:=open", -EPERM,
		  "home partition 2 of /dev/vda is refused by the rule 'home=encryptedwithintegrity': it "
		  "would be used encrypted, and the policy wants encryptedwithintegrity (a LUKS volume "
		  "without dm-integrity: cryptsetup luksFormat --integrity" },
		{ luks_home_integrity, "systemd.image_policy=home=encrypted:=open", -EPERM,
		  "home partition 2 of /dev/vda is refused by the rule 'home=encrypted': it would be used "
		  "encryptedwithintegrity, and the policy wants encrypted" },
		/* systemd 258 also counts a partition found as unused, so that this lets an unprotected
		 * root boot; earlymount does not (earlymount(8), IMAGE POLICIES) */
		{ plain, "systemd.image_policy=root=verity+ignore:=open", -EPERM,
		  "root partition 1 of /dev/vda is refused by the rule 'root=verity+unused+absent': it "
		  "would be used unprotected, and the policy wants verity+unused+absent" },
		/* wanted used, and not: not there, there but left alone, a verity partition the root
		 * went without, a rule that allows no use its partition can have */
		{ plain, "systemd.image_policy=usr=verity+unprotected:=open", -EPERM,
		  "systemd.image_policy=: the rule 'usr=verity+unprotected' wants a usr partition used, "
		  "and discovery uses none on /dev/vda" },
		{ foreign_var, "systemd.image_policy=var=unprotected+absent:=open", -EPERM,
		  "the rule 'var=unprotected+absent' wants a var partition used, and discovery uses none "
		  "on /dev/vda" },
		{ verity, "systemd.image_policy=root=verity+unprotected:=open", -EPERM,
		  "the rule 'root-verity follows root=verity+unprotected' wants a root-verity partition "
		  "used, and discovery uses none on /dev/vda" },
		{ no_home, "systemd.image_policy=srv=verity:=open", -EPERM,
		  "wants a srv partition used (and allows it no use it can have: give it a rule of its "
		  "own)" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct fixture *f = cases[i].disk();

		want_error(f, plan_any(f, cases[i].line), cases[i].code, cases[i].error);
		fx_free(f);
	}
	(void)state;
}

static void test_plans(void **state)
{
	static const struct {
		struct fixture *(*disk)(void);
		const char *line;
		size_t steps;
		const char *note, *note2;
	} cases[] = {
		{ plain, "systemd.image_policy=root=unprotected+ext4:home=unprotected:=open", 4,
		  "root partition 1: allowed by systemd.image_policy= rule 'root=unprotected+ext4'",
		  "home partition 2: allowed by systemd.image_policy= rule 'home=unprotected'" },
		/* another architecture's partitions are none of discovery's */
		{ arm64_usr, "systemd.image_policy=usr=absent:=open", 4, "", "" },
		/* passed over: left unused, or its label not the filter's */
		{ plain, "systemd.image_policy=home=unused:=open", 3,
		  "partition 2 (home, label 'home') passed over: systemd.image_policy= leaves it unused "
		  "(rule 'home=unused')", "" },
		{ plain, "systemd.image_filter=home=Home-*:root=ro*", 3,
		  "its label does not match systemd.image_filter= (home=Home-*)", "" },
		/* what may be missing, or there and unused */
		{ plain, "systemd.image_policy=usr=verity+absent:srv=unused+absent:=open", 4, "", "" },
		{ foreign_var, "systemd.image_policy=var=unprotected+unused:=open", 4, "", "" },
		/* encrypted, verified, signed */
		{ luks_home, "systemd.image_policy=home=encrypted:=open", 3,
		  "home partition 2: allowed by systemd.image_policy= rule 'home=encrypted'", "" },
		{ luks_home_integrity, "systemd.image_policy=home=encryptedwithintegrity:=open", 3,
		  "home partition 2: allowed by systemd.image_policy= rule "
		  "'home=encryptedwithintegrity'", "" },
		{ luks_home_integrity,
		  "systemd.image_policy==verity+signed+encrypted+encryptedwithintegrity+unprotected+"
		  "unused+absent", 3, "home partition 2: allowed by systemd.image_policy= rule '=open "
		  "(the default rule)'", "" },
		{ verity, "roothash=" HASH " systemd.image_policy=root=verity:=open", 2,
		  "root partition 1: allowed by systemd.image_policy= rule 'root=verity'", "" },
		{ signed_verity, "systemd.image_policy=root=signed:root-verity-sig=signed:=open", 2,
		  "root partition 1: allowed by systemd.image_policy= rule 'root=signed'", "" },
		/* what the command line names is the user's, not the policy's */
		{ plain, "root=PARTUUID=" ROOT_PARTUUID " systemd.image_policy=root=signed", 1,
		  "systemd.image_policy= applies to discovered partitions: not to the root, which the "
		  "command line names", "" },
		{ usr, "mount.usr=PARTUUID=" USR_PARTUUID " systemd.image_policy=usr=signed:=open", 5,
		  "not to /usr, which the command line names", "" },
		{ fx_new, "root=virtiofs:root systemd.image_policy=root=signed", 1,
		  "systemd.image_policy= has no disk to apply to: nothing is discovered", "" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct fixture *f = cases[i].disk();

		want_ok(f, plan_with(f, cases[i].line), cases[i].steps);
		if (cases[i].note[0])
			want_note(f, cases[i].note);
		if (cases[i].note2[0])
			want_note(f, cases[i].note2);
		fx_free(f);
	}
	(void)state;
}

/* A partition passed over is not mounted. */
static void test_unused_is_not_mounted(void **state)
{
	struct fixture *f = plain();

	want_ok(f, plan_with(f, "systemd.image_policy=home=unused:=open"), 3);
	for (size_t i = 0; i < f->plan.n_steps; i++)
		assert_string_not_equal(f->plan.steps[i].target, "/sysroot/home");
	fx_free(f);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_plans),
		cmocka_unit_test(test_unused_is_not_mounted),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
