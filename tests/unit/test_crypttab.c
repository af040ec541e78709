/* crypttab as the initramfs reads it: each entry's fields, and what the boot does with it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "crypttab.h"

static struct crypttab t;

static void parse(const char *text)
{
	crypttab_parse(text, strlen(text), &t);
}

/* What Debian's and Ubuntu's installers write, and systemd's forms beside it. */
static void test_installers_entries(void **state)
{
	const struct crypttab_entry *e;

	parse("# <target name>\t<source device>\t\t<key file>\t<options>\n"
	      "vda3_crypt UUID=0b5f1a4e-62d3-4a8e-9bbd-f1a5ce3e51f2 none luks,discard\n"
	      "dm_crypt-0\t/dev/disk/by-uuid/5d2f8c1e-0000-4000-8000-000000000001 -\tluks\n"
	      "data PARTLABEL=my\\040data /etc/keys/data.key:UUID=6f1c0000-0000-4000-8000-00000000000a tries=1\n"
	      "bare /dev/vdb\n");
	assert_int_equal(t.n, 4);
	assert_int_equal(t.bad_line, 0);
	e = crypttab_find(&t, "vda3_crypt");
	assert_non_null(e);
	assert_string_equal(e->device, "UUID=0b5f1a4e-62d3-4a8e-9bbd-f1a5ce3e51f2");
	assert_string_equal(e->key, "");
	assert_string_equal(e->options, "luks,discard");
	assert_int_equal(e->use, CRYPTTAB_OPEN);
	assert_int_equal(e->line, 2);
	e = crypttab_find(&t, "dm_crypt-0");
	assert_string_equal(e->device, "UUID=5d2f8c1e-0000-4000-8000-000000000001");
	assert_string_equal(e->key, "");
	e = crypttab_find(&t, "data");
	assert_string_equal(e->device, "PARTLABEL=my data");
	assert_string_equal(e->key, "/etc/keys/data.key:UUID=6f1c0000-0000-4000-8000-00000000000a");
	assert_int_equal(e->use, CRYPTTAB_OPEN);
	e = crypttab_find(&t, "bare");
	assert_string_equal(e->device, "/dev/vdb");
	assert_string_equal(e->options, "");
	assert_int_equal(e->use, CRYPTTAB_OPEN);
	assert_null(crypttab_find(&t, "missing"));
	(void)state;
}

/* Random keys and formatting words are the real system's; noauto is nobody's at boot; an
 * option for another way of opening is refused, naming it; so is a key that is no path. */
static void test_uses(void **state)
{
	static const struct {
		const char *line;
		enum crypttab_use use;
		const char *why;
	} cases[] = {
		{ "cswap /dev/vda4 /dev/urandom swap,cipher=aes-xts-plain64,size=256", CRYPTTAB_REAL, "" },
		{ "ctmp /dev/vda5 /dev/random tmp=ext4", CRYPTTAB_REAL, "" },
		{ "cswap2 UUID=1 none swap", CRYPTTAB_REAL, "" },
		{ "later UUID=2 none luks,noauto", CRYPTTAB_NOAUTO, "" },
		{ "script UUID=3 none luks,keyscript=decrypt_keyctl", CRYPTTAB_REFUSED, "keyscript" },
		{ "tc /dev/vdc none tcrypt", CRYPTTAB_REFUSED, "TrueCrypt" },
		{ "fido UUID=4 - fido2-device=auto", CRYPTTAB_REFUSED, "FIDO2" },
		{ "hdr /dev/vdb1 none header=/etc/hdr.img", CRYPTTAB_OPEN, "" },
		{ "plain /dev/vdb2 none plain,cipher=aes-xts-plain64,size=512", CRYPTTAB_OPEN, "" },
		{ "hdrdev /dev/vdb1 none header=/hdr.img:LABEL=usb", CRYPTTAB_OPEN, "" },
		{ "hdrrel /dev/vdb1 none header=hdr.img:LABEL=usb", CRYPTTAB_REFUSED, "PATH:DEVICE" },
		{ "badval UUID=6 none tries=many", CRYPTTAB_REFUSED, "tries" },
		{ "relkey UUID=7 keys/root.key luks", CRYPTTAB_REFUSED, "no absolute path" },
		{ "tpm UUID=8 none tpm2-device=auto,tpm2-pcrs=7", CRYPTTAB_OPEN, "" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		parse(cases[i].line);
		if (t.n != 1 || t.entries[0].use != cases[i].use || !strstr(t.entries[0].why, cases[i].why))
			fail_msg("%s: %zu entries, use '%s', why '%s'", cases[i].line, t.n,
				 t.n ? crypttab_use_name(t.entries[0].use) : "-", t.n ? t.entries[0].why : "-");
	}
	(void)state;
}

/* A line that cannot be read is left out, the first one noted; the others are read. */
static void test_bad_lines(void **state)
{
	static const struct {
		const char *text;
		const char *why;
	} cases[] = {
		{ "lonely\nok UUID=1\n", "fewer than two fields" },
		{ "five UUID=1 none luks extra\nok UUID=1\n", "more than four fields" },
		{ "a/b UUID=1\nok UUID=1\n", "device-mapper does not take" },
		{ "control UUID=1\nok UUID=1\n", "device-mapper does not take" },
	};
	char big[2048];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		parse(cases[i].text);
		if (t.bad_line != 1 || !strstr(t.bad_why, cases[i].why) || t.n != 1 ||
		    strcmp(t.entries[0].name, "ok") != 0)
			fail_msg("'%s': bad line %u '%s', %zu entries", cases[i].text, t.bad_line, t.bad_why, t.n);
	}
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	parse(big);
	assert_int_equal(t.n, 0);
	assert_int_equal(t.bad_line, 1);
	/* no NUL needed, and no end of line */
	crypttab_parse("r UUID=9", 8, &t);
	assert_int_equal(t.n, 1);
	assert_string_equal(t.entries[0].device, "UUID=9");
	(void)state;
}

static void test_too_many_entries_are_counted(void **state)
{
	char text[4096] = "";

	for (int i = 0; i < CRYPTTAB_MAX_ENTRIES + 3; i++) {
		char line[64];

		snprintf(line, sizeof(line), "v%d UUID=%d\n", i, i);
		strcat(text, line);
	}
	parse(text);
	assert_int_equal(t.n, CRYPTTAB_MAX_ENTRIES);
	assert_int_equal(t.dropped, 3);
	assert_string_equal(crypttab_use_name(CRYPTTAB_NOAUTO), "noauto: not opened");
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_installers_entries),
		cmocka_unit_test(test_uses),
		cmocka_unit_test(test_bad_lines),
		cmocka_unit_test(test_too_many_entries_are_counted),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
