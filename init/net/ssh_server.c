/* dropbear in the foreground (-F: its PID is the one started), logging to the kernel's log
 * (-E on stderr, which is /dev/kmsg), public keys only (-s), no port forwarding (-j -k). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "child.h"
#include "log.h"
#include "paths.h"
#include "ssh_server.h"
#include "util.h"

static const char *const host_keys[] = {
	DROPBEAR_KEY_DIR "/dropbear_ed25519_host_key",
	DROPBEAR_KEY_DIR "/dropbear_ecdsa_host_key",
	DROPBEAR_KEY_DIR "/dropbear_rsa_host_key",
};

int ssh_server_start(void)
{
	static const char *const options[] = { "-F", "-E", "-s", "-j", "-k", "-P",
					       EARLYMOUNT_RUN "/dropbear.pid" };
	/* the program, its options, -r KEY each, the terminator */
	const char *argv[1 + ARRAY_SIZE(options) + 2 * ARRAY_SIZE(host_keys) + 1];
	size_t n = 0;
	pid_t pid;
	int kmsg, r;

	if (access(EARLYMOUNT_DROPBEAR, X_OK) < 0)
		return -ENOENT;
	argv[n++] = EARLYMOUNT_DROPBEAR;
	for (size_t i = 0; i < ARRAY_SIZE(options); i++)
		argv[n++] = options[i];
	for (size_t i = 0; i < ARRAY_SIZE(host_keys); i++)
		if (access(host_keys[i], R_OK) == 0) {
			argv[n++] = "-r";
			argv[n++] = host_keys[i];
		}
	argv[n] = NULL;
	kmsg = open("/dev/kmsg", O_WRONLY | O_CLOEXEC);
	r = child_start(&(struct child_spec){ .argv = argv, .in = -1, .out = kmsg, .err = kmsg,
					      .exec_failed = 127 }, &pid);
	if (kmsg >= 0)
		close(kmsg);
	if (r == 0)
		log_info("ssh: dropbear (pid %d) listens on port 22: an SSH login as root answers the "
			 "passphrase prompt", (int)pid);
	return r;
}
