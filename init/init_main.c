/* earlymount-init: PID 1 alone, the /init that images get. The host commands (plan, check,
 * initramfs, qemu, var-uuid) are linked into the earlymount binary only, which boots too. */
#include <stdbool.h>
#include <stdio.h>
#include <unistd.h>

#include "boot.h"
#include "exit_codes.h"
#include "password_agent.h"
#include "util.h"

/* how long `/init answer` waits for a question to appear */
#define ANSWER_WAIT_SEC 60

static bool is_answer_command(const char *cmd)
{
	return streq(cmd, "answer") || streq(cmd, "/init answer") || streq(cmd, "init answer");
}

int main(int argc, char **argv)
{
	if (getpid() == 1)
		return boot_main(argc, argv); /* never returns */
	/* an answer to the boot's passphrase prompt: `/init answer` at a shell, or an SSH login,
	 * whose shell /init is (a login shell, or -c COMMAND) */
	if ((argc == 2 && streq(argv[1], "answer")) || argv[0][0] == '-' ||
	    (argc == 3 && streq(argv[1], "-c") && is_answer_command(argv[2])))
		return agent_answer_main(ANSWER_WAIT_SEC);
	if (argc == 3 && streq(argv[1], "-c")) {
		fprintf(stderr, "earlymount: an SSH login to the initramfs answers its passphrase "
				"prompt, and runs nothing else (`%s`)\n", argv[2]);
		return EXIT_USAGE;
	}
	if (argc == 2 && (streq(argv[1], "version") || streq(argv[1], "--version"))) {
		/* one literal: `earlymount check` finds the version in the image this way */
		puts("earlymount " EARLYMOUNT_VERSION);
		return 0;
	}
	fprintf(stderr, "earlymount: this /init boots only as PID 1 (pid %d); the host commands "
			"(plan, check, initramfs, qemu, var-uuid) are in the earlymount binary; `/init answer` "
			"answers its passphrase prompt\n", (int)getpid());
	return EXIT_USAGE;
}
