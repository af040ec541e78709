/* `earlymount initramfs --ssh-authorized-keys FILE`: an SSH server for unlocking over the
 * network, as dropbear-initramfs gives initramfs-tools. Debian's dropbear (dropbear-bin) and
 * its libraries come from the tools root; its host keys are made once, on the host, in
 * --ssh-host-keys DIR (default /etc/earlymount/dropbear) with dropbearkey and kept there, so
 * a client sees the same fingerprint at every boot and after every rebuild. root's shell in
 * the image is /init: a login is an answer to the passphrase prompt, nothing more. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "child.h"
#include "fileio.h"
#include "initramfs.h"
#include "log.h"
#include "paths.h"
#include "util.h"

#define DROPBEAR_IN_ROOT "usr/sbin/dropbear"
#define DEFAULT_HOST_KEY_DIR "/etc/earlymount/dropbear"

static const char *const key_types[] = { "ed25519", "ecdsa", "rsa" };

static const char passwd_text[] = "root:x:0:0:root:/root:/init\n";
static const char group_text[] = "root:x:0:\n";
static const char shells_text[] = "/init\n";

static const char *host_key_dir(const struct builder *b)
{
	return b->ssh_host_keys ? b->ssh_host_keys : DEFAULT_HOST_KEY_DIR;
}

/* The host key of type in dir, made with dropbearkey when it is not there yet. */
static int ensure_host_key(const char *dir, const char *type, char *path, size_t size)
{
	const char *argv[] = { "dropbearkey", "-t", type, "-f", path, NULL };
	int r = snprintf(path, size, "%s/dropbear_%s_host_key", dir, type) < (int)size ? 0 : -ENAMETOOLONG;
	int status = 0, null = -1;
	pid_t pid;

	if (r < 0 || access(path, R_OK) == 0)
		return r;
	r = make_directories(dir, 0700);
	/* its public key on stdout is no part of the summary */
	null = r == 0 ? open("/dev/null", O_WRONLY | O_CLOEXEC) : -1;
	if (r == 0)
		r = child_start(&(struct child_spec){ .argv = argv, .in = -1, .out = null, .err = -1,
						      .exec_failed = 127 }, &pid);
	if (null >= 0)
		close(null);
	if (r == 0)
		r = child_wait(pid, &status);
	if (r == 0 && status != 0)
		r = -EIO;
	if (r < 0)
		log_err("--ssh-authorized-keys: unable to make the host key %s with dropbearkey (Debian "
			"package dropbear-bin): %s", path, r == -EIO ? "it failed" : strerror(-r));
	else
		log_info("--ssh-authorized-keys: made the host key %s, kept for every image to come", path);
	return r;
}

static int add_host_keys(struct builder *b)
{
	char src[PATH_MAX], dest[PATH_MAX];
	int r = 0;

	for (size_t i = 0; i < ARRAY_SIZE(key_types) && r == 0; i++) {
		r = ensure_host_key(host_key_dir(b), key_types[i], src, sizeof(src));
		if (r == 0)
			snprintf(dest, sizeof(dest), "%s/dropbear_%s_host_key", DROPBEAR_KEY_DIR + 1, key_types[i]);
		if (r == 0)
			r = cpio_add_file(&b->cpio, dest, 0600, src);
	}
	return r;
}

static int add_accounts(struct builder *b)
{
	int r = cpio_add_data(&b->cpio, "etc/passwd", 0644, passwd_text, strlen(passwd_text));

	if (r == 0)
		r = cpio_add_data(&b->cpio, "etc/group", 0644, group_text, strlen(group_text));
	if (r == 0)
		r = cpio_add_data(&b->cpio, "etc/shells", 0644, shells_text, strlen(shells_text));
	if (r == 0)
		r = cpio_add_dir(&b->cpio, "root", 0700);
	if (r == 0)
		r = cpio_add_dir(&b->cpio, "root/.ssh", 0700);
	if (r == 0)
		r = cpio_add_file(&b->cpio, "root/.ssh/authorized_keys", 0600, b->ssh_authorized_keys);
	return r;
}

int initramfs_add_ssh(struct builder *b)
{
	int r = 0;

	if (!b->ssh_authorized_keys)
		goto out;
	if (access(b->ssh_authorized_keys, R_OK) < 0) {
		r = -errno;
		log_err("--ssh-authorized-keys %s: %s", b->ssh_authorized_keys, strerror(-r));
		goto out;
	}
	r = initramfs_add_program(b, DROPBEAR_IN_ROOT, EARLYMOUNT_DROPBEAR + 1, "--ssh-authorized-keys",
				  "dropbear-bin", &b->ssh_files, &b->ssh_bytes);
	if (r == 0)
		r = add_host_keys(b);
	if (r == 0)
		r = add_accounts(b);
out:
	return r;
}
