/* systemd.image_policy=: the grammar (symbols, rules, flags, shorthands), refusals that take the
 * whole policy, and what a rule means for one partition (unset groups, verity partitions that
 * follow their data partition, GPT flags, filesystems). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "image_policy.h"

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
	assert_int_equal(use(DPS_HOME), POLICY_ENCRYPTED | POLICY_UNPROTECTED | POLICY_UNUSED | POLICY_ABSENT);
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
	assert_int_equal(use(DPS_VAR), POLICY_ENCRYPTED | POLICY_UNPROTECTED | POLICY_UNUSED | POLICY_ABSENT);
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
	uint32_t plain = image_policy_found(false, false, false);
	uint32_t verity = image_policy_found(false, true, false);
	uint32_t sig = image_policy_found(false, true, true);
	uint32_t luks = image_policy_found(true, false, false);

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
		cmocka_unit_test(test_verity_follows),
		cmocka_unit_test(test_check),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
