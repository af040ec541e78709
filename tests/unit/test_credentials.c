/* core/credentials.c: credential names, and the credentials of the command line and of
 * SMBIOS type 11 structures, decoded, in order, the malformed ones named and passed over. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "credentials.h"
#include "util.h"

struct seen {
	char text[1024]; /* "NAME=VALUE;" each, then "!WHY;" for each bad one */
	int stop_after;  /* found returns -EINTR after this many, when > 0 */
	int n;
};

static int found(const char *name, const uint8_t *value, size_t len, void *data)
{
	struct seen *s = data;
	size_t used = strlen(s->text);

	snprintf(s->text + used, sizeof(s->text) - used, "%s=%.*s;", name, (int)len,
		 (const char *)value);
	s->n++;
	return s->stop_after > 0 && s->n >= s->stop_after ? -4 : 0;
}

static void bad(const char *what, const char *why, void *data)
{
	struct seen *s = data;
	size_t used = strlen(s->text);

	snprintf(s->text + used, sizeof(s->text) - used, "!%s;", why);
	(void)what;
}

static void test_names(void **state)
{
	static const struct {
		const char *name;
		bool valid;
	} cases[] = {
		{ "passwd.hashed-password.root", true }, { "a b=c", true }, { "x", true },
		{ "", false }, { ".", false }, { "..", false }, { "...", true },
		{ "a/b", false }, { "a:b", false }, { "tab\there", false }, { "caf\xc3\xa9", false },
		{ "del\x7f", false },
	};
	char longest[257];

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		assert_int_equal(credential_name_valid(cases[i].name, strlen(cases[i].name)),
				 cases[i].valid);
	memset(longest, 'n', sizeof(longest));
	assert_true(credential_name_valid(longest, 255));
	assert_false(credential_name_valid(longest, 256));
	(void)state;
}

static void test_cmdline(void **state)
{
	struct seen s = { "", 0, 0 };
	const struct credential_walk w = { found, bad, &s };

	assert_int_equal(credentials_from_cmdline(
				 "root=/dev/vda2 systemd.set_credential=greeting:hello:world "
				 "\"systemd.set_credential=motd:two words\" "
				 "systemd.set_credential_binary=bin:aGk= systemd.set_credential=nocolon "
				 "systemd.set_credential=a/b:x systemd.set_credential_binary=b64:@@@@ "
				 "systemd.set_credential systemd.set_credential=empty: "
				 "-- systemd.set_credential=init:arg",
				 &w),
			 0);
	assert_string_equal(s.text, "greeting=hello:world;motd=two words;bin=hi;!not NAME:VALUE;"
				    "!its name is not a credential name (1 to 255 printable ASCII "
				    "characters, no '/' or ':');!its value is not base64, or larger "
				    "than 1 MiB;!given without a value;empty=;");
	(void)state;
}

static void test_cmdline_stops(void **state)
{
	struct seen s = { "", 1, 0 };
	const struct credential_walk w = { found, bad, &s };

	assert_int_equal(credentials_from_cmdline("systemd.set_credential=a:1 systemd.set_credential=b:2", &w),
			 -4);
	assert_string_equal(s.text, "a=1;");
	(void)state;
}

static void test_smbios(void **state)
{
	static const uint8_t raw[] =
		"\x0b\x05\x00\x01\x04"
		"io.systemd.credential:greeting=hello\0"
		"other.vendor:thing\0"
		"io.systemd.credential.binary:key=aGVsbG8=\0"
		"io.systemd.credential:noequals\0"
		"\0";
	struct seen s = { "", 0, 0 };
	const struct credential_walk w = { found, bad, &s };

	assert_int_equal(credentials_from_smbios11(raw, sizeof(raw) - 1, &w), 0);
	assert_string_equal(s.text, "greeting=hello;key=hello;!not NAME=VALUE;");
	(void)state;
}

static void test_smbios_malformed(void **state)
{
	static const uint8_t wrong_type[] = "\x0a\x05\x00\x01\x01io.systemd.credential:a=b\0\0";
	static const uint8_t short_header[] = "\x0b\x04\x00";
	/* no terminating NUL: the last string ends with the buffer */
	static const uint8_t unterminated[] = "\x0b\x05\x00\x01\x01io.systemd.credential:a=b";
	struct seen s = { "", 0, 0 };
	const struct credential_walk w = { found, bad, &s };

	assert_int_equal(credentials_from_smbios11(wrong_type, sizeof(wrong_type) - 1, &w), -EBADMSG);
	assert_int_equal(credentials_from_smbios11(short_header, 3, &w), -EBADMSG);
	assert_int_equal(credentials_from_smbios11(short_header, 0, &w), -EBADMSG);
	assert_int_equal(credentials_from_smbios11(unterminated, sizeof(unterminated) - 1, &w), 0);
	assert_string_equal(s.text, "a=b;");
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_cmdline),
		cmocka_unit_test(test_cmdline_stops),
		cmocka_unit_test(test_smbios),
		cmocka_unit_test(test_smbios_malformed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
