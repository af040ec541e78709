/* `earlymount last-failure`: the record a boot that stopped unattended left (failure_record.h),
 * from the EFI variable no boot has read yet, else from what this boot's initramfs passed on. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "efivars.h"
#include "failure_record.h"
#include "fileio.h"
#include "host_args.h"
#include "paths.h"
#include "sha256.h"
#include "util.h"

struct last_failure_args {
	const char *efivars;
	const char *file;
	const char *cmdline; /* the running system's command line, to compare */
	bool raw;
	bool help;
};

static const struct host_opt last_failure_opts[] = {
	{ "efivars", 0, "DIR", HOST_STRING(struct last_failure_args, efivars),
	  .help = "where efivarfs is (default: " EFIVARS_DIR ")" },
	{ "file", 0, "PATH", HOST_STRING(struct last_failure_args, file),
	  .help = "the record the initramfs passed on\n(default: " LAST_FAILURE_PATH ")" },
	{ "cmdline-file", 0, "PATH", HOST_STRING(struct last_failure_args, cmdline),
	  .help = "the command line to compare the record's with\n(default: /proc/cmdline)" },
	{ "raw", 0, NULL, HOST_FLAG(struct last_failure_args, raw),
	  .help = "print the record as it is kept" },
	{ "help", 'h', NULL, HOST_FLAG(struct last_failure_args, help), .help = "print this help" },
	{ 0 },
};

static const struct host_command last_failure_command = {
	.name = "last-failure",
	.head = "usage: earlymount last-failure [OPTIONS]\n"
		"\n"
		"Shows the record of the last boot that stopped and left the machine to reboot, power\n"
		"off or halt by itself: from earlymount's EFI variable (" FAILURE_RECORD_EFI_NAME "-\n"
		EARLYMOUNT_EFI_VENDOR ") while no boot has read it, else from\n"
		LAST_FAILURE_PATH ", where the boot after it passed it on.\n"
		"\n",
	.groups = { { last_failure_opts, 0 } },
	.tail = "\n"
		"Exit status: 0 shown, 1 no record, 2 usage error, 3 a record that cannot be read.\n",
	.column = 24,
};

/* A record's text and where it came from. */
struct source {
	char text[FAILURE_RECORD_MAX + 2]; /* one byte more than a record, and the NUL */
	size_t len;
	char where[512];
	const char *note;
};

static int read_efivar(const char *dir, struct source *s)
{
	uint32_t attributes;
	ssize_t n = efivar_read(dir, FAILURE_RECORD_EFI_NAME, EARLYMOUNT_EFI_VENDOR, &attributes,
				s->text, sizeof(s->text) - 1);

	snprintf(s->where, sizeof(s->where), "%s/%s-%s", dir, FAILURE_RECORD_EFI_NAME,
		 EARLYMOUNT_EFI_VENDOR);
	s->note = "no boot has read it yet";
	if (n == -E2BIG)
		return -EBADMSG;
	if (n < 0)
		return (int)n;
	s->len = (size_t)n;
	return 0;
}

static int read_passed_on(const char *path, struct source *s)
{
	ssize_t n = read_file_at(AT_FDCWD, path, s->text, sizeof(s->text));

	COPY_STR(s->where, path);
	s->note = "passed on by this boot's initramfs";
	if (n < 0)
		return (int)n;
	if ((size_t)n > FAILURE_RECORD_MAX)
		return -EBADMSG;
	s->len = (size_t)n;
	return 0;
}

/* "the same" or "another: HEX": the record's command line against this boot's. */
static void compare_cmdline(const char *path, const char *recorded, char *out, size_t size)
{
	char line[8192];
	uint8_t digest[SHA256_DIGEST_SIZE];
	char hex[FAILURE_RECORD_DIGEST_HEX + 1];

	if (read_file_at(AT_FDCWD, path, line, sizeof(line)) < 0) {
		snprintf(out, size, "%s unreadable", path);
		return;
	}
	line[strcspn(line, "\n")] = '\0';
	sha256(line, strlen(line), digest);
	failure_record_hex(digest, hex);
	snprintf(out, size, "%s: %s%s", path, streq(hex, recorded) ? "the same" : "another, ",
		 streq(hex, recorded) ? "" : hex);
}

static void show(const struct last_failure_args *args, const struct source *s,
		 const struct failure_record *rec)
{
	char now[256] = "";

	if (args->raw) {
		fwrite(s->text, 1, s->len, stdout);
		return;
	}
	if (rec->cmdline[0])
		compare_cmdline(args->cmdline, rec->cmdline, now, sizeof(now));
	printf("the last boot failed at stage %s%s%s\n", rec->stage, rec->device[0] ? " on " : "",
	       rec->device);
	printf("  message  %s\n", rec->message);
	printf("  then     %s\n", rec->action);
	printf("  cmdline  %s%s%s%s\n", rec->cmdline[0] ? rec->cmdline : "unknown",
	       now[0] ? " (" : "", now, now[0] ? ")" : "");
	printf("  plan     %s\n", rec->plan[0] ? rec->plan : "none: no plan was made");
	printf("  by       earlymount %s\n", rec->version[0] ? rec->version : "(version unknown)");
	printf("  from     %s, %s\n", s->where, s->note);
}

/* 0 shown, -ENOENT not there, else a record that cannot be read (said). */
static int try_source(const struct last_failure_args *args, int r, struct source *s)
{
	struct failure_record rec;

	if (r == 0)
		r = failure_record_decode(s->text, s->len, &rec);
	if (r == 0)
		show(args, s, &rec);
	else if (r == -EBADMSG || r == -EPROTONOSUPPORT)
		fprintf(stderr, "earlymount last-failure: %s holds no record this earlymount can read (%s)\n",
			s->where, r == -EBADMSG ? "damaged" : "a later earlymount wrote it");
	else if (r != -ENOENT)
		fprintf(stderr, "earlymount last-failure: unable to read %s: %s\n", s->where,
			strerror(-r));
	return r;
}

int cmd_last_failure(int argc, char **argv)
{
	static struct source s;
	struct last_failure_args args = { EFIVARS_DIR, LAST_FAILURE_PATH, "/proc/cmdline", false,
					  false };
	int r = host_args_parse(&last_failure_command, argc, argv, &args);
	int efi;

	if (r == 0 && optind < argc)
		r = host_usage_error("last-failure", "unexpected argument", argv[optind]);
	if (r != 0)
		return r;
	if (args.help) {
		host_args_help(&last_failure_command, stdout);
		return 0;
	}
	efi = try_source(&args, read_efivar(args.efivars, &s), &s);
	if (efi == 0)
		return 0;
	r = try_source(&args, read_passed_on(args.file, &s), &s);
	if (r == 0)
		return 0;
	if (efi == -ENOENT && r == -ENOENT) {
		printf("no failure recorded: no EFI variable %s-%s in %s, no %s\n",
		       FAILURE_RECORD_EFI_NAME, EARLYMOUNT_EFI_VENDOR, args.efivars, args.file);
		return EXIT_REFUSED;
	}
	return EXIT_SYSTEM;
}
