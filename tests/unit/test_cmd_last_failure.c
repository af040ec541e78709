/* `earlymount last-failure`: the EFI variable first, then the file the boot passed on; what it
 * prints and its exit statuses, on a scratch directory standing for efivarfs. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "commands.h"
#include "efivars.h"
#include "failure_record.h"
#include "sha256.h"

static char top[64], efivars[128], file[128], cmdline[128], out_path[128];
static char out[8192];

static const char *const boot_line = "root=PARTUUID=6a3e2c3b-0000-4000-8000-000000000001 ro";

static void put(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	fclose(f);
}

static int setup(void **state)
{
	char line[256];

	strcpy(top, "/tmp/test_cmd_last_failure.XXXXXX");
	assert_non_null(mkdtemp(top));
	snprintf(efivars, sizeof(efivars), "%s/efivars", top);
	snprintf(file, sizeof(file), "%s/last-failure", top);
	snprintf(cmdline, sizeof(cmdline), "%s/cmdline", top);
	snprintf(out_path, sizeof(out_path), "%s/out", top);
	snprintf(line, sizeof(line), "%s\n", boot_line);
	put(cmdline, line, strlen(line));
	return 0;
}

static int teardown(void **state)
{
	char cmd[160];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	return system(cmd);
}

static int fresh(void **state)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s' '%s' && mkdir '%s'", efivars, file, efivars);
	return system(cmd);
}

/* A record of the boot whose command line is boot_line, or of another. */
static int record(const char *message, bool this_line, char *text)
{
	struct failure_record rec = { 0 };
	uint8_t digest[SHA256_DIGEST_SIZE];
	const char *line = this_line ? boot_line : "root=LABEL=other";

	strcpy(rec.version, "0.1.0");
	strcpy(rec.stage, "plan");
	strcpy(rec.action, "poweroff");
	strcpy(rec.device, "PARTUUID=6a3e2c3b-0000-4000-8000-000000000001");
	sha256(line, strlen(line), digest);
	failure_record_hex(digest, rec.cmdline);
	strcpy(rec.message, message);
	return failure_record_encode(&rec, text, FAILURE_RECORD_MAX + 1);
}

/* Runs the command with stdout into out; its exit status. */
static int run(const char *extra)
{
	char *argv[10] = { "last-failure", "--efivars", efivars, "--file", file, "--cmdline-file",
			   cmdline };
	int argc = 7, saved, fd, status;
	FILE *f;

	if (extra)
		argv[argc++] = (char *)extra;
	fflush(stdout);
	saved = dup(1);
	fd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(saved >= 0 && fd >= 0);
	dup2(fd, 1);
	close(fd);
	status = cmd_last_failure(argc, argv);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	f = fopen(out_path, "r");
	assert_non_null(f);
	out[fread(out, 1, sizeof(out) - 1, f)] = '\0';
	fclose(f);
	return status;
}

static void test_from_the_efi_variable(void **state)
{
	char text[FAILURE_RECORD_MAX + 1];
	int len = record("gave up waiting for the root partition", true, text);

	assert_int_equal(efivar_write(efivars, FAILURE_RECORD_EFI_NAME, EARLYMOUNT_EFI_VENDOR, 7, text,
				      (size_t)len),
			 0);
	assert_int_equal(run(NULL), 0);
	assert_non_null(strstr(out, "the last boot failed at stage plan on "
				    "PARTUUID=6a3e2c3b-0000-4000-8000-000000000001\n"
				    "  message  gave up waiting for the root partition\n"
				    "  then     poweroff\n"));
	assert_non_null(strstr(out, ": the same)\n"));
	assert_non_null(strstr(out, "  plan     none: no plan was made\n"));
	assert_non_null(strstr(out, "EarlymountLastFailure-" EARLYMOUNT_EFI_VENDOR
				    ", no boot has read it yet\n"));
	/* --raw: as kept */
	assert_int_equal(run("--raw"), 0);
	assert_string_equal(out, text);
}

static void test_from_what_the_boot_passed_on(void **state)
{
	char text[FAILURE_RECORD_MAX + 1];
	int len = record("no init in the new root", false, text);

	put(file, text, (size_t)len);
	assert_int_equal(run(NULL), 0);
	assert_non_null(strstr(out, "  message  no init in the new root\n"));
	assert_non_null(strstr(out, ": another, "));
	assert_non_null(strstr(out, ", passed on by this boot's initramfs\n"));
}

static void test_none(void **state)
{
	assert_int_equal(run(NULL), EXIT_REFUSED);
	assert_non_null(strstr(out, "no failure recorded"));
}

/* A damaged variable is said, and the file still read; alone it is exit 3. */
static void test_damaged(void **state)
{
	char text[FAILURE_RECORD_MAX + 1];
	int len = record("m", true, text);

	text[10] ^= 1;
	put(file, text, (size_t)len);
	assert_int_equal(run(NULL), EXIT_SYSTEM);
	text[10] ^= 1;
	put(file, text, (size_t)len);
	text[10] ^= 1;
	assert_int_equal(efivar_write(efivars, FAILURE_RECORD_EFI_NAME, EARLYMOUNT_EFI_VENDOR, 7, text,
				      (size_t)len),
			 0);
	assert_int_equal(run(NULL), 0);
	assert_non_null(strstr(out, "passed on by this boot's initramfs"));
}

static void test_usage(void **state)
{
	assert_int_equal(run("extra"), EXIT_USAGE);
	assert_int_equal(run("--help"), 0);
	assert_non_null(strstr(out, "usage: earlymount last-failure"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_from_the_efi_variable, fresh),
		cmocka_unit_test_setup(test_from_what_the_boot_passed_on, fresh),
		cmocka_unit_test_setup(test_none, fresh),
		cmocka_unit_test_setup(test_damaged, fresh),
		cmocka_unit_test_setup(test_usage, fresh),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
