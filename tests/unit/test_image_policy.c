/* systemd.image_policy=: the grammar (symbols, rules, flags, shorthands), refusals that take the
 * whole policy, and what a rule means for one partition (unset groups, verity partitions that
 * follow their data partition, GPT flags, filesystems). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "image_policy.h"
#include "util.h"

static struct image_policy pol;

static void parse_ok(const char *s)
{
	if (image_policy_parse(s, &pol) != 0)
		fail_msg("'%s' refused: %s", s, pol.error);
	assert_false(pol.malformed);
}

static void refused(const char *s, int want, const char *words)
{
	int r = image_policy_parse(s, &pol);

	if (r != want || !pol.malformed || !strstr(pol.error, words))
		fail_msg("'%s': got %d (%s), want %d with '%s'", s, r, pol.error, want, words);
	/* nothing of a refused policy may be used */
	for (int i = 0; i < DPS_ROLE_MAX; i++)
		assert_false(pol.listed[i]);
}

static uint32_t use(enum dps_role role)
{
	return image_policy_flags(&pol, role) & POLICY_USE_MASK;
}

static void test_symbols(void **state)
{
	parse_ok("*");
	assert_int_equal(use(DPS_HOME), POLICY_ENCRYPTED | POLICY_ENCRYPTED_INTEGRITY |
					POLICY_UNPROTECTED | POLICY_UNUSED | POLICY_ABSENT);
	assert_int_equal(use(DPS_ROOT), POLICY_OPEN);
	assert_int_equal(image_policy_use(&pol, DPS_SWAP), POLICY_USE_IT);
	parse_ok("-");
	assert_int_equal(image_policy_use(&pol, DPS_ROOT), POLICY_IGNORE_IT);
	parse_ok("");
	assert_int_equal(image_policy_use(&pol, DPS_ROOT), POLICY_IGNORE_IT);
	parse_ok("~");
	assert_int_equal(image_policy_use(&pol, DPS_ESP), POLICY_FORBIDDEN);
	(void)state;
}

static void test_rules(void **state)
{
	char buf[128];

	parse_ok("root=signed+absent:home=encrypted:swap=absent:=unused+absent");
	assert_int_equal(use(DPS_ROOT), POLICY_SIGNED | POLICY_ABSENT);
	assert_true(image_policy_flags(&pol, DPS_ROOT) & POLICY_ABSENT);
	/* verity cannot apply to /home: masked */
	assert_int_equal(use(DPS_HOME), POLICY_ENCRYPTED);
	assert_false(image_policy_flags(&pol, DPS_HOME) & POLICY_ABSENT);
	assert_int_equal(image_policy_use(&pol, DPS_SWAP), POLICY_FORBIDDEN);
	assert_int_equal(image_policy_use(&pol, DPS_SRV), POLICY_IGNORE_IT);
	image_policy_rule(&pol, DPS_SWAP, buf, sizeof(buf));
	assert_string_equal(buf, "swap=absent");
	image_policy_rule(&pol, DPS_SRV, buf, sizeof(buf));
	assert_string_equal(buf, "=ignore (the default rule)");
	/* blanks around words, shorthands, an empty flag list means any use */
	parse_ok(" usr = verity + read-only-on : root= : esp=ignore :var=open");
	assert_int_equal(use(DPS_USR), POLICY_VERITY);
	assert_int_equal(image_policy_flags(&pol, DPS_USR) & (POLICY_READ_ONLY_ON | POLICY_READ_ONLY_OFF),
			 POLICY_READ_ONLY_ON);
	assert_int_equal(use(DPS_ROOT), POLICY_OPEN);
	assert_int_equal(image_policy_use(&pol, DPS_ESP), POLICY_IGNORE_IT);
	assert_int_equal(use(DPS_VAR), POLICY_ENCRYPTED | POLICY_ENCRYPTED_INTEGRITY |
				       POLICY_UNPROTECTED | POLICY_UNUSED | POLICY_ABSENT);
	/* without a default rule: unused+absent */
	image_policy_rule(&pol, DPS_HOME, buf, sizeof(buf));
	assert_string_equal(buf, "=ignore (the default of a policy without one)");
	(void)state;
}

static void test_refusals(void **state)
{
	refused("root=signed:root=verity", -ENOTUNIQ, "'root' has two rules");
	refused("=open:=ignore", -ENOTUNIQ, "default rule");
	refused("boot=open", -EBADSLT, "'boot' is no partition designator");
	refused("root=signd", -EBADRQC, "'signd' is no policy flag");
	refused("root=verity++signed", -EBADRQC, "'' is no policy flag");
	refused("root=verity+", -EBADRQC, "'' is no policy flag");
	refused("root", -EINVAL, "has no '='");
	refused("root=verity::usr=verity", -EINVAL, "an empty rule");
	refused("root=verity:", -EINVAL, "an empty rule");
	refused(":root=verity", -EINVAL, "an empty rule");
	refused("ROOT=verity", -EBADSLT, "no partition designator");
	(void)state;
}

/* What systemd 260 accepts and refuses (image_policy_from_string(), not graceful, as its
 * command line parses systemd.image_policy=), and with which error: the kinds of strings its
 * own test parses, and ours, written from its rules. The rules are read in order; within a
 * rule its '=', then its designator, then its flags; words split at ':', '=' and '+' without
 * coalescing, a backslash taking the next byte; blanks around a designator or a flag do not
 * count; "", "-", "*" and "~" are the whole text or nothing. */
static void test_as_systemd(void **state)
{
	static const struct {
		const char *text;
		int result;
	} cases[] = {
		/* accepted: the symbols, the default rule alone, rules, shorthands, filesystems */
		{ "", 0 }, { "-", 0 }, { "*", 0 }, { "~", 0 }, { "=", 0 }, { "=-", 0 },
		{ "swap=open", 0 }, { "swap=open:root=signed", 0 },
		{ "swap=open:root=signed+read-only-on+growfs-off:=absent", 0 },
		{ "root=ext4+squashfs+verity", 0 }, { "usr=encrypted+erofs+read-only-off", 0 },
		{ "home=unprotected+btrfs", 0 }, { "=vfat+erofs", 0 }, { "=absent", 0 }, { "=open", 0 },
		{ "=ignore", 0 }, { "=absent+unused", 0 }, { "root=ignore:=ignore", 0 },
		{ "=verity+signed+encrypted+encryptedwithintegrity+unprotected+unused+absent", 0 },
		{ "=signed+verity+encrypted+encryptedwithintegrity+unused+unprotected+absent", 0 },
		{ "root=encryptedwithintegrity:home=encrypted+encryptedwithintegrity", 0 },
		/* blanks around words, "-" and nothing as flags, escaped bytes */
		{ " root = verity + signed : usr=encryptedwithintegrity ", 0 },
		{ "root=\t\n:usr= - ", 0 }, { "r\\oot=verity", 0 }, { "root=verity\\+signed", 0 },
		/* each split takes one backslash: one escapes for ':', two for '=' too */
		{ "root\\=verity", 0 }, { "root\\\\=verity", -EINVAL },
		/* refused: no '=', an empty rule, a symbol with a blank, a backslash at the end */
		{ "pfft", -EINVAL }, { "\xc3\xb6\xc3\xa4\xc3\xbc\xc3\x9f", -EINVAL }, { ":", -EINVAL },
		{ " *", -EINVAL }, { "- ", -EINVAL }, { "root=verity:", -EINVAL },
		{ ":root=verity", -EINVAL }, { "root=verity::usr=verity", -EINVAL },
		{ "root=verity\\", -EINVAL }, { "root=verity:\\", -EINVAL },
		/* the designator before the flags; a rule twice before its flags */
		{ "a=", -EBADSLT }, { "wowza=grbl", -EBADSLT }, { "ROOT=verity", -EBADSLT },
		{ "wowza=grbl:root=verity", -EBADSLT }, { "root=verity:root=encrypted", -ENOTUNIQ },
		{ "root=verity:root=grbl", -ENOTUNIQ }, { "=open:=grbl", -ENOTUNIQ },
		/* flags: unknown, empty between two '+', in another case, quoted */
		{ "=a", -EBADRQC }, { "==", -EBADRQC }, { "root=grbl", -EBADRQC },
		{ "root=grbl:wowza=x", -EBADRQC }, { "root=verity+", -EBADRQC },
		{ "root=+verity", -EBADRQC }, { "root=verity++signed", -EBADRQC },
		{ "root=Verity", -EBADRQC }, { "root=verity=signed", -EBADRQC },
		{ "root=\"verity\"", -EBADRQC }, { "root=encrypted-with-integrity", -EBADRQC },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		int r = image_policy_parse(cases[i].text, &pol);

		if (r != cases[i].result || pol.malformed != (r < 0))
			fail_msg("'%s': got %d (%s), want %d", cases[i].text, r, pol.error, cases[i].result);
	}
	(void)state;
}

/* Every policy systemd writes in full (image_policy_to_string(), not simplified) is read: every
 * designator in its order, with every flag in its order, and the default. */
static void test_systemd_full_form(void **state)
{
	static const char *const designators[] = {
		"root", "usr", "home", "srv", "esp", "xbootldr", "swap", "root-verity", "usr-verity",
		"root-verity-sig", "usr-verity-sig", "tmp", "var",
	};
	static const char flags[] = "verity+signed+encrypted+encryptedwithintegrity+unprotected+"
				    "unused+absent+read-only-on+read-only-off+growfs-off+growfs-on+"
				    "btrfs+erofs+ext4+f2fs+squashfs+vfat+xfs";
	static char text[IMAGE_POLICY_MAX];
	char written[IMAGE_POLICY_FLAGS_TEXT];
	size_t used = 0;

	for (size_t i = 0; i < ARRAY_SIZE(designators); i++)
		used += (size_t)snprintf(text + used, sizeof(text) - used, "%s=%s:", designators[i],
					 flags);
	snprintf(text + used, sizeof(text) - used, "=%s", flags);
	parse_ok(text);
	assert_int_equal(use(DPS_HOME), POLICY_ENCRYPTED | POLICY_ENCRYPTED_INTEGRITY |
					POLICY_UNPROTECTED | POLICY_UNUSED | POLICY_ABSENT);
	/* written back in systemd's order: "open" for every use, then the rest */
	image_policy_flags_format(pol.flags[DPS_ROOT], written, sizeof(written));
	assert_string_equal(written, "open+read-only-on+read-only-off+growfs-off+growfs-on+btrfs+"
				     "erofs+ext4+f2fs+squashfs+vfat+xfs");
	image_policy_flags_format(POLICY_ENCRYPTED | POLICY_ENCRYPTED_INTEGRITY | POLICY_UNUSED,
				  written, sizeof(written));
	assert_string_equal(written, "encrypted+encryptedwithintegrity+unused");
	(void)state;
}

/* encryptedwithintegrity: a LUKS volume whose segments all have dm-integrity, and only such
 * a one; as "encrypted", nothing a verity partition can be. */
static void test_integrity(void **state)
{
	char why[256];
	uint32_t luks = image_policy_found(true, false, false, false);
	uint32_t luks_integrity = image_policy_found(true, true, false, false);

	assert_int_equal(luks_integrity, POLICY_ENCRYPTED_INTEGRITY);
	parse_ok("root=encryptedwithintegrity:home=encrypted:var=encrypted+encryptedwithintegrity:"
		 "root-verity=encryptedwithintegrity+unprotected");
	assert_int_equal(image_policy_check(&pol, DPS_ROOT, luks_integrity, 0, "", why, sizeof(why)), 0);
	assert_int_equal(image_policy_check(&pol, DPS_ROOT, luks, 0, "", why, sizeof(why)), -EPERM);
	assert_string_equal(why, "it would be used encrypted, and the policy wants "
			    "encryptedwithintegrity (a LUKS volume without dm-integrity: cryptsetup "
			    "luksFormat --integrity, or systemd-repart's Integrity=, makes one with it)");
	assert_int_equal(image_policy_check(&pol, DPS_HOME, luks_integrity, 0, "", why, sizeof(why)),
			 -EPERM);
	assert_string_equal(why, "it would be used encryptedwithintegrity, and the policy wants "
			    "encrypted");
	assert_int_equal(image_policy_check(&pol, DPS_VAR, luks, 0, "", why, sizeof(why)), 0);
	assert_int_equal(image_policy_check(&pol, DPS_VAR, luks_integrity, 0, "", why, sizeof(why)), 0);
	assert_int_equal(use(DPS_ROOT_VERITY), POLICY_UNPROTECTED);
	(void)state;
}

/* A verity partition without a rule follows its data partition's; a signature partition only
 * a signed one's; with a rule of its own, that one. */
static void test_verity_follows(void **state)
{
	char buf[128];

	parse_ok("root=verity+absent+read-only-on");
	assert_int_equal(use(DPS_ROOT_VERITY), POLICY_UNPROTECTED | POLICY_ABSENT);
	assert_int_equal(image_policy_flags(&pol, DPS_ROOT_VERITY) & POLICY_READ_ONLY_OFF, 0);
	image_policy_rule(&pol, DPS_ROOT_VERITY, buf, sizeof(buf));
	assert_string_equal(buf, "root-verity follows root=verity+absent+read-only-on");
	/* not signed: the signature partition takes the default, ignored */
	assert_int_equal(image_policy_use(&pol, DPS_ROOT_VERITY_SIG), POLICY_IGNORE_IT);
	parse_ok("root=signed");
	assert_int_equal(image_policy_use(&pol, DPS_ROOT_VERITY_SIG), POLICY_USE_IT);
	assert_false(image_policy_flags(&pol, DPS_ROOT_VERITY_SIG) & POLICY_ABSENT);
	parse_ok("root=unprotected");
	assert_int_equal(image_policy_use(&pol, DPS_ROOT_VERITY), POLICY_IGNORE_IT);
	parse_ok("root=signed:root-verity=absent");
	assert_int_equal(image_policy_use(&pol, DPS_ROOT_VERITY), POLICY_FORBIDDEN);
	(void)state;
}

static void test_check(void **state)
{
	char why[256];
	uint32_t plain = image_policy_found(false, false, false, false);
	uint32_t verity = image_policy_found(false, false, true, false);
	uint32_t sig = image_policy_found(false, false, true, true);
	uint32_t luks = image_policy_found(true, false, false, false);

	parse_ok("root=signed:home=encrypted:usr=verity+read-only-on:esp=vfat:srv=growfs-off");
	assert_int_equal(image_policy_check(&pol, DPS_ROOT, sig, 0, "erofs", why, sizeof(why)), 0);
	assert_int_equal(image_policy_check(&pol, DPS_ROOT, verity, 0, "erofs", why, sizeof(why)), -EPERM);
	assert_string_equal(why, "it would be used verity, and the policy wants signed");
	assert_int_equal(image_policy_check(&pol, DPS_ROOT, plain, 0, "ext4", why, sizeof(why)), -EPERM);
	assert_int_equal(image_policy_check(&pol, DPS_HOME, plain, 0, "ext4", why, sizeof(why)), -EPERM);
	assert_int_equal(image_policy_check(&pol, DPS_HOME, luks, 0, "", why, sizeof(why)), 0);
	/* a signed /usr qualifies for verity */
	assert_int_equal(image_policy_check(&pol, DPS_USR, sig, GPT_FLAG_READ_ONLY, "erofs", why,
					    sizeof(why)), 0);
	assert_int_equal(image_policy_check(&pol, DPS_USR, sig, 0, "erofs", why, sizeof(why)), -EPERM);
	assert_string_equal(why, "its read-only flag (GPT bit 60) is clear, and the policy wants it set");
	assert_int_equal(image_policy_check(&pol, DPS_ESP, plain, 0, "vfat", why, sizeof(why)), 0);
	assert_int_equal(image_policy_check(&pol, DPS_ESP, plain, 0, "ext4", why, sizeof(why)), -EPERM);
	assert_string_equal(why, "it holds ext4, and the policy allows vfat");
	assert_int_equal(image_policy_check(&pol, DPS_SRV, plain, GPT_FLAG_GROWFS, "ext4", why,
					    sizeof(why)), -EPERM);
	/* no policy: anything goes */
	memset(&pol, 0, sizeof(pol));
	assert_int_equal(image_policy_check(&pol, DPS_HOME, plain, GPT_FLAG_GROWFS, "ext4", why,
					    sizeof(why)), 0);
	assert_int_equal(image_policy_use(&pol, DPS_SWAP), POLICY_USE_IT);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_symbols),
		cmocka_unit_test(test_rules),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_as_systemd),
		cmocka_unit_test(test_systemd_full_form),
		cmocka_unit_test(test_integrity),
		cmocka_unit_test(test_verity_follows),
		cmocka_unit_test(test_check),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
