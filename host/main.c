/* earlymount's entry: PID 1 in an initramfs, or a host command. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "boot.h"
#include "commands.h"
#include "log.h"
#include "util.h"

static const struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
} commands[] = {
	{ "plan", cmd_plan, "show what would be mounted from disk images" },
	{ "check", cmd_check, "say whether an initramfs image would boot this host" },
	{ "initramfs", cmd_initramfs, "build an initramfs whose /init is earlymount" },
	{ "var-uuid", cmd_var_uuid, "print the /var PARTUUID for a machine ID" },
	{ "qemu", cmd_qemu, "boot a kernel in QEMU against a disk image or a directory" },
	{ "uki", cmd_uki, "build a unified kernel image: systemd-stub, a kernel, an earlymount initramfs" },
	{ "last-failure", cmd_last_failure, "show the record of the last boot that stopped unattended" },
};

static int usage(FILE *out)
{
	fprintf(out, "usage: earlymount COMMAND [OPTIONS]\n"
		     "       (as PID 1, /init of an initramfs, it boots the system)\n\ncommands:\n");
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		fprintf(out, "  %-12s %s\n", commands[i].name, commands[i].summary);
	fprintf(out, "  %-12s %s\n", "version", "print the version");
	return out == stdout ? 0 : EXIT_USAGE;
}

int main(int argc, char **argv)
{
	const char *self = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];

	if (getpid() == 1)
		return boot_main(argc, argv); /* never returns */

	log_setup(LOG_TARGET_STDERR);
	/* Installed as /usr/lib/earlymount/init and run by hand on a host, it must not start
	 * mounting and switching: booting is for PID 1 only. */
	if (streq(self, "init")) {
		fprintf(stderr, "earlymount: called as init but not PID 1 (pid %d): nothing to boot; "
				"put it in an initramfs as /init\n", (int)getpid());
		return EXIT_USAGE;
	}
	if (argc < 2)
		return usage(stderr);
	if (streq(argv[1], "--help") || streq(argv[1], "help"))
		return usage(stdout);
	if (streq(argv[1], "version") || streq(argv[1], "--version")) {
		puts("earlymount " EARLYMOUNT_VERSION);
		return 0;
	}
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		if (streq(argv[1], commands[i].name))
			return commands[i].run(argc - 1, argv + 1);
	fprintf(stderr, "earlymount: unknown command '%s'\n", argv[1]);
	return usage(stderr);
}
