/* docs/earlymount.8 keeps in step with the parser: every key of cmdline_known_keys[] is
 * documented, in bold (\fB or .B/.BI/.BR), followed by '=' or the end of the word. Also the
 * host commands and the runtime hook stages. EARLYMOUNT_MANPAGE names another file. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cmdline.h"
#include "hooks.h"

#define MANPAGE_MAX (256 * 1024)

static char page[MANPAGE_MAX];

/* The page with roff's escapes that can sit inside a key undone: \- is '-', \& and \: are
 * nothing. Font escapes stay: they mark where a bold word begins. */
static void load_page(void)
{
	const char *path = getenv("EARLYMOUNT_MANPAGE") ? getenv("EARLYMOUNT_MANPAGE") : "docs/earlymount.8";
	static char raw[MANPAGE_MAX];
	FILE *f = fopen(path, "r");
	size_t n, j = 0;

	if (!f)
		fail_msg("unable to open %s (run the test from the top of the tree)", path);
	n = fread(raw, 1, sizeof(raw) - 1, f);
	fclose(f);
	raw[n] = '\0';
	for (size_t i = 0; i < n; i++) {
		if (raw[i] == '\\' && raw[i + 1] == '-') {
			page[j++] = '-';
			i++;
		} else if (raw[i] == '\\' && (raw[i + 1] == '&' || raw[i + 1] == ':')) {
			i++;
		} else {
			page[j++] = raw[i];
		}
	}
	page[j] = '\0';
}

static int setup(void **state)
{
	load_page();
	return 0;
}

static bool word_end(char c)
{
	return c == '=' || c == '\\' || c == ' ' || c == '"' || c == '\n' || c == ',' || c == '\0';
}

/* Whether key appears in bold: after "\fB", or as a word of a .B, .BI, .BR or .IB line. */
static bool documented_in_bold(const char *key)
{
	size_t n = strlen(key);

	for (const char *p = strstr(page, key); p; p = strstr(p + 1, key)) {
		const char *line = p;

		if (!word_end(p[n]))
			continue;
		if (p - page >= 3 && strncmp(p - 3, "\\fB", 3) == 0)
			return true;
		while (line > page && line[-1] != '\n')
			line--;
		if ((strncmp(line, ".B ", 3) == 0 || strncmp(line, ".BI ", 4) == 0 ||
		     strncmp(line, ".BR ", 4) == 0 || strncmp(line, ".IB ", 4) == 0) &&
		    (p[-1] == ' ' || p[-1] == '"'))
			return true;
	}
	return false;
}

static void every_command_line_key_is_documented(void **state)
{
	unsigned missing = 0;

	for (size_t i = 0; cmdline_known_keys[i]; i++) {
		if (documented_in_bold(cmdline_known_keys[i]))
			continue;
		print_error("docs/earlymount.8 does not document the kernel command-line key %s\n",
			    cmdline_known_keys[i]);
		missing++;
	}
	assert_int_equal(missing, 0);
}

static void the_check_finds_what_is_missing(void **state)
{
	assert_false(documented_in_bold("no.such.key"));
	/* "ro" inside "rootwait" is not "ro" */
	assert_true(documented_in_bold("rootwait"));
}

static void every_host_command_is_documented(void **state)
{
	static const char *const commands[] = { "earlymount plan", "earlymount check",
						"earlymount initramfs",
						"earlymount var-uuid", "earlymount last-failure",
						"earlymount version" };

	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		char heading[64];

		snprintf(heading, sizeof(heading), ".SS %s", commands[i]);
		if (!strstr(page, heading))
			fail_msg("docs/earlymount.8 has no section '%s'", heading);
	}
}

static void every_hook_stage_and_exit_code_is_documented(void **state)
{
	static const char *const codes[] = { ".TP\n.B 0\n", ".TP\n.B 1\n", ".TP\n.B 2\n", ".TP\n.B 3\n" };

	for (int p = 0; p < HOOK_POINT_MAX; p++)
		assert_true(documented_in_bold(hook_point_name(p)));
	assert_non_null(strstr(page, ".SH EXIT STATUS"));
	for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++)
		assert_non_null(strstr(page, codes[i]));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_command_line_key_is_documented),
		cmocka_unit_test(the_check_finds_what_is_missing),
		cmocka_unit_test(every_host_command_is_documented),
		cmocka_unit_test(every_hook_stage_and_exit_code_is_documented),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
