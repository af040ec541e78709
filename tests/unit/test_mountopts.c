/* mountopts: flag words become MS_* flags, every other word stays data, in order. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mount.h>

#include <cmocka.h>

#include "mountopts.h"

static const struct mountopts_case {
	const char *options;
	unsigned long flags;
	const char *data;
} mountopts_cases[] = {
	{ "", 0, "" },
	{ "ro", MS_RDONLY, "" },
	{ "rw", 0, "" },
	{ "ro,rw", 0, "" },
	{ "rw,ro", MS_RDONLY, "" },
	{ "defaults", 0, "" },
	{ "ro,nodev,nosuid,noexec,norecovery,umask=0077",
	  MS_RDONLY | MS_NODEV | MS_NOSUID | MS_NOEXEC, "norecovery,umask=0077" },
	{ "umask=0077,ro,fmask=0022", MS_RDONLY, "umask=0077,fmask=0022" },
	{ "nodev,dev", 0, "" },
	{ "nosuid,suid", 0, "" },
	{ "noexec,exec", 0, "" },
	{ "sync", MS_SYNCHRONOUS, "" },
	{ "sync,async", 0, "" },
	{ "dirsync", MS_DIRSYNC, "" },
	{ "remount,ro", MS_REMOUNT | MS_RDONLY, "" },
	{ "mand", MS_MANDLOCK, "" },
	{ "mand,nomand", 0, "" },
	{ "noatime", MS_NOATIME, "" },
	{ "noatime,atime", 0, "" },
	{ "nodiratime", MS_NODIRATIME, "" },
	{ "nodiratime,diratime", 0, "" },
	{ "relatime", MS_RELATIME, "" },
	{ "relatime,norelatime", 0, "" },
	{ "strictatime", MS_STRICTATIME, "" },
	{ "strictatime,nostrictatime", 0, "" },
	{ "noatime,relatime", MS_RELATIME, "" },
	{ "relatime,strictatime", MS_STRICTATIME, "" },
	{ "strictatime,noatime", MS_NOATIME, "" },
	{ "lazytime", MS_LAZYTIME, "" },
	{ "lazytime,nolazytime", 0, "" },
	{ "bind", MS_BIND, "" },
	{ "rbind", MS_BIND | MS_REC, "" },
	{ "silent", MS_SILENT, "" },
	{ "silent,loud", 0, "" },
	{ ",,ro,,subvol=@,", MS_RDONLY, "subvol=@" },
	{ "lowerdir=/a:/b,upperdir=/u,workdir=/w", 0, "lowerdir=/a:/b,upperdir=/u,workdir=/w" },
	/* prefixes and suffixes of flag words are data, not flags */
	{ "rox,r,nodevs,ro=1", 0, "rox,r,nodevs,ro=1" },
	{ "mode=0755,size=4m,nosuid", MS_NOSUID, "mode=0755,size=4m" },
};

static void test_table(void **state)
{
	for (size_t i = 0; i < sizeof(mountopts_cases) / sizeof(mountopts_cases[0]); i++) {
		const struct mountopts_case *c = &mountopts_cases[i];
		unsigned long flags = 12345;
		char data[128];

		assert_int_equal(mountopts_parse(c->options, &flags, data, sizeof(data)), 0);
		if (flags != c->flags || strcmp(data, c->data) != 0)
			fail_msg("\"%s\": got flags %#lx data \"%s\", want %#lx \"%s\"", c->options,
				 flags, data, c->flags, c->data);
	}
}

static void test_null_options(void **state)
{
	unsigned long flags = 1;
	char data[8] = "x";

	assert_int_equal(mountopts_parse(NULL, &flags, data, sizeof(data)), 0);
	assert_int_equal(flags, 0);
	assert_string_equal(data, "");
}

static void test_bad_arguments(void **state)
{
	unsigned long flags;
	char data[8];

	assert_int_equal(mountopts_parse("ro", NULL, data, sizeof(data)), -EINVAL);
	assert_int_equal(mountopts_parse("ro", &flags, NULL, 8), -EINVAL);
	assert_int_equal(mountopts_parse("ro", &flags, data, 0), -EINVAL);
}

static void test_data_too_long(void **state)
{
	unsigned long flags;
	char data[8];

	assert_int_equal(mountopts_parse("abc,def", &flags, data, sizeof(data)), 0);
	assert_string_equal(data, "abc,def");
	assert_int_equal(mountopts_parse("abc,defg", &flags, data, sizeof(data)), -E2BIG);
	assert_int_equal(mountopts_parse("abcdefgh", &flags, data, sizeof(data)), -E2BIG);
	assert_int_equal(mountopts_parse("ro,abcdefg", &flags, data, sizeof(data)), 0);
	assert_string_equal(data, "abcdefg");
}

static void test_has(void **state)
{
	assert_true(mountopts_has("ro", "ro"));
	assert_true(mountopts_has("nodev,ro,x=1", "ro"));
	assert_true(mountopts_has("x=1,ro", "ro"));
	assert_false(mountopts_has("rox,xro,ro=1", "ro"));
	assert_false(mountopts_has("", "ro"));
	assert_false(mountopts_has(NULL, "ro"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_null_options),
		cmocka_unit_test(test_bad_arguments),
		cmocka_unit_test(test_data_too_long),
		cmocka_unit_test(test_has),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
