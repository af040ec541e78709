/* earlymount-init: PID 1 alone, the /init that images get. The host commands (plan, check,
 * initramfs, qemu, var-uuid) are linked into the earlymount binary only, which boots too. */
#include <stdio.h>
#include <unistd.h>

#include "boot.h"
#include "exit_codes.h"
#include "password_agent.h"
#include "util.h"

/* how long `/init answer` waits for a question to appear */
#define ANSWER_WAIT_SEC 60

int main(int argc, char **argv)
{
	if (getpid() == 1)
		return boot_main(argc, argv); /* never returns */
	/* an SSH session's (or a person's at a shell) answer to the boot's passphrase prompt */
	if (argc == 2 && streq(argv[1], "answer"))
		return agent_answer_main(ANSWER_WAIT_SEC);
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
