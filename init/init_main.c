/* earlymount-init: PID 1 alone, the /init that images get. The host commands (plan, check,
 * initramfs, qemu, var-uuid) are linked into the earlymount binary only, which boots too. */
#include <stdio.h>
#include <unistd.h>

#include "boot.h"
#include "exit_codes.h"
#include "util.h"

int main(int argc, char **argv)
{
	if (getpid() == 1)
		return boot_main(argc, argv); /* never returns */
	if (argc == 2 && (streq(argv[1], "version") || streq(argv[1], "--version"))) {
		/* one literal: `earlymount check` finds the version in the image this way */
		puts("earlymount " EARLYMOUNT_VERSION);
		return 0;
	}
	fprintf(stderr, "earlymount: this /init boots only as PID 1 (pid %d); the host commands "
			"(plan, check, initramfs, qemu, var-uuid) are in the earlymount binary\n", (int)getpid());
	return EXIT_USAGE;
}
