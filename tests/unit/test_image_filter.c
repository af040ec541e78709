/* core/image_filter.c: systemd.image_filter=, a glob per designator over the GPT label. The
 * rules read, every refusal with its reason (which takes the whole filter), the limits, and
 * what a glob lets through. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "image_filter.h"
#include "util.h"

static struct image_filter f;

static void test_rules(void **state)
{
	assert_int_equal(image_filter_parse("root=ParticleOS-*:usr=ParticleOS_47110815", &f), 0);
	assert_true(f.given);
	assert_false(f.malformed);
	assert_string_equal(f.error, "");
	assert_string_equal(f.text, "root=ParticleOS-*:usr=ParticleOS_47110815");
	assert_true(f.listed[DPS_ROOT] && f.listed[DPS_USR]);
	assert_false(f.listed[DPS_HOME]);
	assert_string_equal(f.glob[DPS_ROOT], "ParticleOS-*");
	assert_true(image_filter_allows(&f, DPS_ROOT, "ParticleOS-2"));
	assert_false(image_filter_allows(&f, DPS_ROOT, "Other-2"));
	assert_true(image_filter_allows(&f, DPS_USR, "ParticleOS_47110815"));
	assert_false(image_filter_allows(&f, DPS_USR, "ParticleOS_47110816"));
	/* no rule for the designator: every label */
	assert_true(image_filter_allows(&f, DPS_HOME, "anything"));
	assert_true(image_filter_allows(&f, DPS_ESP, ""));

	/* every designator of image policies; a glob may hold '=' */
	assert_int_equal(image_filter_parse("root-verity=a:usr-verity-sig=b:esp=c:xbootldr=d:swap=e:"
					    "home=f:srv=g:var=h:tmp=i:root-verity-sig=j:usr-verity=k=l",
					    &f), 0);
	assert_string_equal(f.glob[DPS_TMP], "i");
	assert_string_equal(f.glob[DPS_USR_VERITY], "k=l");
	assert_false(f.listed[DPS_ROOT]);
	(void)state;
}

/* fnmatch(3) without flags: '*' also across '/' and '.', case counts, classes and escapes. */
static void test_globs(void **state)
{
	static const struct {
		const char *glob, *label;
		bool allowed;
	} cases[] = {
		{ "ParticleOS-*", "ParticleOS-", true },
		{ "ParticleOS-*", "particleos-2", false },
		{ "ParticleOS-*", "xParticleOS-2", false },
		{ "root-?", "root-a", true },
		{ "root-?", "root-ab", false },
		{ "root-[ab]", "root-b", true },
		{ "root-[!ab]", "root-b", false },
		{ "*", "a/b.c", true },
		{ "*", "", true },
		{ "a\\*", "a*", true },
		{ "a\\*", "ab", false },
		{ "", "", true }, /* an empty glob lets only an empty label through */
		{ "", "root", false },
	};
	char rule[IMAGE_FILTER_GLOB + 8];

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		snprintf(rule, sizeof(rule), "root=%s", cases[i].glob);
		assert_int_equal(image_filter_parse(rule, &f), 0);
		if (image_filter_allows(&f, DPS_ROOT, cases[i].label) != cases[i].allowed)
			fail_msg("glob '%s', label '%s'", cases[i].glob, cases[i].label);
	}
	(void)state;
}

/* Each refusal: its code and reason, malformed, and no rule kept, also those read before it. */
static void test_refusals(void **state)
{
	static const struct {
		const char *text;
		int code;
		const char *error;
	} bad[] = {
		{ "root=a:root=b", -ENOTUNIQ, "'root' has two rules" },
		{ "root=a:boot=b", -EBADSLT, "'boot' is no partition designator" },
		{ "=a", -EBADSLT, "'' is no partition designator" },
		{ "Root=a", -EBADSLT, "'Root' is no partition designator" },
		{ " root=a", -EBADSLT, "' root' is no partition designator" },
		{ "usr=b:root", -EINVAL, "'root' has no '=' (a rule is DESIGNATOR=GLOB)" },
		{ "root=a::usr=b", -EINVAL, "an empty rule (two ':' in a row, or one at an end)" },
		{ "root=a:", -EINVAL, "an empty rule (two ':' in a row, or one at an end)" },
		{ ":root=a", -EINVAL, "an empty rule (two ':' in a row, or one at an end)" },
		{ "", -EINVAL, "an empty rule (two ':' in a row, or one at an end)" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		assert_int_equal(image_filter_parse(bad[i].text, &f), bad[i].code);
		assert_true(f.given);
		assert_true(f.malformed);
		assert_string_equal(f.error, bad[i].error);
		assert_string_equal(f.text, bad[i].text);
		for (int role = 0; role < DPS_ROLE_MAX; role++)
			assert_false(f.listed[role]);
	}
	/* a refusal leaves nothing of the filter parsed before */
	assert_int_equal(image_filter_parse("root=a", &f), 0);
	assert_int_equal(image_filter_parse("usr=b:x=c", &f), -EBADSLT);
	assert_false(f.listed[DPS_ROOT] || f.listed[DPS_USR]);
	assert_int_equal(image_filter_parse("home=h", &f), 0);
	assert_false(f.malformed);
	assert_string_equal(f.error, "");
	(void)state;
}

/* A glob of at most IMAGE_FILTER_GLOB - 1 bytes, a filter of at most 1023; the text kept for
 * messages is cut, not refused. */
static void test_limits(void **state)
{
	static char text[1100];
	char glob[IMAGE_FILTER_GLOB + 1];

	memset(glob, 'g', sizeof(glob));
	glob[IMAGE_FILTER_GLOB - 1] = '\0';
	snprintf(text, sizeof(text), "root=%s", glob);
	assert_int_equal(image_filter_parse(text, &f), 0);
	assert_string_equal(f.glob[DPS_ROOT], glob);
	glob[IMAGE_FILTER_GLOB - 1] = 'g';
	glob[IMAGE_FILTER_GLOB] = '\0';
	snprintf(text, sizeof(text), "usr=a:root=%s", glob);
	assert_int_equal(image_filter_parse(text, &f), -EINVAL);
	assert_string_equal(f.error, "the glob of 'root' is longer than 127 bytes");
	assert_false(f.listed[DPS_USR]);

	/* 1023 bytes: read, and kept cut to 255 for messages */
	memset(text, 'x', sizeof(text));
	memcpy(text, "root=", 5);
	text[1023] = '\0';
	assert_int_equal(image_filter_parse(text, &f), -EINVAL);
	assert_string_equal(f.error, "the glob of 'root' is longer than 127 bytes");
	assert_int_equal(strlen(f.text), sizeof(f.text) - 1);
	assert_memory_equal(f.text, text, sizeof(f.text) - 1);
	text[1023] = 'x';
	text[1024] = '\0';
	assert_int_equal(image_filter_parse(text, &f), -EINVAL);
	assert_string_equal(f.error, "longer than 1023 bytes");
	assert_true(f.malformed);
	(void)state;
}

/* Without a filter, or for a role outside the table, every label passes. */
static void test_allows_without_rules(void **state)
{
	memset(&f, 0, sizeof(f));
	assert_true(image_filter_allows(&f, DPS_ROOT, "anything"));
	assert_int_equal(image_filter_parse("root=a", &f), 0);
	assert_true(image_filter_allows(&f, DPS_UNKNOWN, "b"));
	assert_true(image_filter_allows(&f, DPS_ROLE_MAX, "b"));
	assert_false(image_filter_allows(&f, DPS_ROOT, "b"));
	/* a filter that is not given has no rules, whatever its fields say */
	f.given = false;
	assert_true(image_filter_allows(&f, DPS_ROOT, "b"));
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rules),
		cmocka_unit_test(test_globs),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_allows_without_rules),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
