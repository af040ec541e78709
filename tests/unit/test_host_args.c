/* host/host_args.c and host_args_help.c: a command's declaration read as its command
 * line, and written as its --help. */
#include <errno.h>
#include <getopt.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "exit_codes.h"
#include "host_args.h"

struct inner {
	const char *file;
	bool deep;
};

struct args {
	bool verbose; /* at offset 0: HOST_IMPLIES() must still reach it */
	const char *output;
	const char *level;
	struct name_list names;
	bool fast;
	struct inner inner;
};

/* Takes "1" to "3"; says no to anything else as a usage error, the way the commands do. */
static int set_level(void *ctx, const char *value)
{
	struct args *a = ctx;

	if (strlen(value) != 1 || value[0] < '1' || value[0] > '3')
		return host_usage_error("test", "--level is 1, 2 or 3, not", value);
	a->level = value;
	return 0;
}

static const char *default_speed(void)
{
	return "slow";
}

static const struct host_opt test_opts[] = {
	{ "verbose", 'v', NULL, HOST_FLAG(struct args, verbose), .help = "say more" },
	{ "output", 'o', "OUT", HOST_STRING(struct args, output), .help = "the file to write" },
	{ "name", 0, "NAME", HOST_LIST(struct args, names),
	  .help = "a name (repeatable), on two\nlines" },
	{ "level", 'l', "N", HOST_SETTER(set_level), .help = "how hard" },
	{ "fast", 0, NULL, HOST_FLAG(struct args, fast), HOST_IMPLIES(struct args, verbose),
	  .help = "go fast (default: %s)", .help_default = default_speed },
	{ 0 },
};

static const struct host_opt inner_opts[] = {
	{ "a-rather-long-option", 'f', "FILE", HOST_STRING(struct inner, file),
	  .help = "its label is past the column\nand so is this" },
	{ "deep", 0, NULL, HOST_FLAG(struct inner, deep), .help = "100% literal: no default here" },
	{ 0 },
};

static const struct host_command test_command = {
	.name = "test",
	.head = "usage: earlymount test [OPTIONS]\n\n",
	.groups = { { test_opts, 0 }, { inner_opts, offsetof(struct args, inner) } },
	.tail = "\nExit status: 0.\n",
	.column = 20,
};

static char err_text[1024];

/* Parses the words after "test" into a, stderr kept in err_text. */
static int parse(struct args *a, ...)
{
	char *argv[16] = { (char *)"test" };
	int argc = 1, r, saved = dup(STDERR_FILENO);
	FILE *f = tmpfile();
	size_t n;
	va_list ap;

	va_start(ap, a);
	for (const char *w; (w = va_arg(ap, const char *));)
		argv[argc++] = (char *)w;
	va_end(ap);
	assert_non_null(f);
	fflush(stderr);
	dup2(fileno(f), STDERR_FILENO);
	r = host_args_parse(&test_command, argc, argv, a);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	rewind(f);
	n = fread(err_text, 1, sizeof(err_text) - 1, f);
	err_text[n] = '\0';
	fclose(f);
	return r;
}

/* What the last parse said: "earlymount test: WHAT", pointing at --help. */
static void assert_said(const char *what)
{
	char want[512];

	snprintf(want, sizeof(want), "earlymount test: %s\nTry 'earlymount test --help'.\n", what);
	assert_string_equal(err_text, want);
}

static void test_switch_value_list(void **state)
{
	struct args a = { 0 };

	assert_int_equal(parse(&a, "-v", "--output", "out.img", "--name", "x", "--name=y", "-l2", NULL), 0);
	assert_true(a.verbose);
	assert_string_equal(a.output, "out.img");
	assert_int_equal(a.names.n, 2);
	assert_string_equal(a.names.names[0], "x");
	assert_string_equal(a.names.names[1], "y");
	assert_string_equal(a.level, "2");
	assert_false(a.fast);
	assert_string_equal(err_text, "");
	name_list_free(&a.names);
	(void)state;
}

static void test_groups_and_implies(void **state)
{
	struct args a = { 0 };

	assert_int_equal(parse(&a, "--fast", "-f", "in.img", "--deep", NULL), 0);
	assert_true(a.fast);
	assert_true(a.verbose);
	assert_string_equal(a.inner.file, "in.img");
	assert_true(a.inner.deep);
	assert_null(a.output);
	(void)state;
}

static void test_stops_at_first_word(void **state)
{
	struct args a = { 0 };
	char *argv[] = { (char *)"test", (char *)"-o", (char *)"x", (char *)"word", (char *)"-v", NULL };

	assert_int_equal(host_args_parse(&test_command, 5, argv, &a), 0);
	assert_int_equal(optind, 3);
	assert_false(a.verbose);
	/* a second parse starts afresh */
	assert_int_equal(parse(&a, "-v", "--", "-o", NULL), 0);
	assert_true(a.verbose);
	(void)state;
}

static void test_setter_refuses(void **state)
{
	struct args a = { 0 };

	assert_int_equal(parse(&a, "--level", "9", "-v", NULL), EXIT_USAGE);
	assert_said("--level is 1, 2 or 3, not '9'");
	assert_null(a.level);
	assert_false(a.verbose); /* the parse stopped there */
	(void)state;
}

static void test_unknown_option(void **state)
{
	struct args a = { 0 };

	assert_int_equal(parse(&a, "--outptu", "x", NULL), EXIT_USAGE);
	assert_said("unknown option '--outptu'");
	assert_int_equal(parse(&a, "-x", NULL), EXIT_USAGE);
	assert_said("unknown option '-x'");
	/* getopt stays on a word of several letters: the word is named, not the one before */
	assert_int_equal(parse(&a, "-o", "x", "-vx", NULL), EXIT_USAGE);
	assert_said("unknown option '-vx'");
	/* a switch given a value */
	assert_int_equal(parse(&a, "--verbose=1", NULL), EXIT_USAGE);
	assert_said("unknown option '--verbose=1'");
	(void)state;
}

static void test_missing_value(void **state)
{
	struct args a = { 0 };

	assert_int_equal(parse(&a, "-v", "--output", NULL), EXIT_USAGE);
	assert_said("this option needs a value: '--output'");
	assert_int_equal(parse(&a, "-o", NULL), EXIT_USAGE);
	assert_said("this option needs a value: '-o'");
	(void)state;
}

static void test_too_many_options(void **state)
{
	static struct host_opt many[HOST_OPTS_MAX + 2];
	static char names[HOST_OPTS_MAX + 1][8];
	const struct host_command cmd = { .name = "many", .head = "", .groups = { { many, 0 } } };
	struct args a = { 0 };

	for (size_t i = 0; i < HOST_OPTS_MAX + 1; i++) {
		snprintf(names[i], sizeof(names[i]), "o%zu", i);
		many[i] = (struct host_opt){ names[i], 0, NULL, HOST_FLAG(struct args, fast), .help = "" };
	}
	assert_int_equal(host_args_parse(&cmd, 1, (char *[]){ (char *)"many", NULL }, &a), EXIT_SYSTEM);
	(void)state;
}

static void test_help_layout(void **state)
{
	char *text = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&text, &size);

	assert_non_null(out);
	host_args_help(&test_command, out);
	fclose(out);
	assert_string_equal(text,
			    "usage: earlymount test [OPTIONS]\n"
			    "\n"
			    "  -v, --verbose     say more\n"
			    "  -o, --output OUT  the file to write\n"
			    "  --name NAME       a name (repeatable), on two\n"
			    "                    lines\n"
			    "  -l, --level N     how hard\n"
			    "  --fast            go fast (default: slow)\n"
			    "  -f, --a-rather-long-option FILE\n"
			    "                    its label is past the column\n"
			    "                    and so is this\n"
			    "  --deep            100% literal: no default here\n"
			    "\n"
			    "Exit status: 0.\n");
	free(text);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_switch_value_list),
		cmocka_unit_test(test_groups_and_implies),
		cmocka_unit_test(test_stops_at_first_word),
		cmocka_unit_test(test_setter_refuses),
		cmocka_unit_test(test_unknown_option),
		cmocka_unit_test(test_missing_value),
		cmocka_unit_test(test_too_many_options),
		cmocka_unit_test(test_help_layout),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
