/* Credentials at the handoff. The real system's systemd reads the firmware's and the command
 * line's credentials itself, unless the initrd hands it a directory of them; what
 * systemd-stub put in /.extra it can never read (the initramfs is gone by then). So while no
 * stub credential is here, nothing is done; once one is, the whole import is ours, as
 * systemd's own initrd does it:
 *   - /.extra/credentials/NAME.cred, then /.extra/global_credentials/NAME.cred (the first
 *     of a name wins), copied as they are (still encrypted) to /run/credentials/@encrypted;
 *   - fw_cfg, SMBIOS type 11, the command line (in that order, the first wins) to
 *     /run/credentials/@system, a ramfs: Linux 6.1's tmpfs cannot keep them out of swap;
 *   - files 0400, both directories 0700 and read-only, and ENCRYPTED_CREDENTIALS_DIRECTORY
 *     and CREDENTIALS_DIRECTORY in the real init's environment: systemd 252 and later then
 *     take these, and read no source again.
 * The stub's TPM2 policy signature and public key go to /run/systemd, where systemd's tools
 * look for them. Nothing here stops the boot: what cannot be imported is named, and left. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmdline.h"
#include "credentials.h"
#include "credentials_import.h"
#include "fileio.h"
#include "log.h"
#include "util.h"

#define CREDENTIALS_DIR "/run/credentials"
#define SYSTEM_DIR CREDENTIALS_DIR "/@system"
#define ENCRYPTED_DIR CREDENTIALS_DIR "/@encrypted"
#define FW_CFG_DIR "/sys/firmware/qemu_fw_cfg/by_name/opt/io.systemd.credentials"
#define DMI_ENTRIES "/sys/firmware/dmi/entries"
#define CRED_SUFFIX ".cred"

static const char *const stub_dirs[] = { "/.extra/credentials", "/.extra/global_credentials" };

static const struct stub_file {
	const char *from, *to;
} stub_files[] = {
	{ "/.extra/tpm2-pcr-signature.json", "/run/systemd/tpm2-pcr-signature.json" },
	{ "/.extra/tpm2-pcr-public-key.pem", "/run/systemd/tpm2-pcr-public-key.pem" },
};

/* One target directory being filled. */
struct import {
	int dir_fd;
	const char *dir;
	size_t total;
	unsigned count;
	const char *source; /* for the messages: "fw_cfg", "SMBIOS", … */
};

/* Never replaces a file of the same name: the first source wins, as in systemd. */
static int credential_write(const char *name, const uint8_t *value, size_t len, void *data)
{
	struct import *im = data;
	int fd = -1, r = 0;

	if (im->total + len > CREDENTIALS_TOTAL_MAX) {
		log_warn("credential %s (%s) was not imported: with it, the credentials of %s would pass 1 MiB",
			 name, im->source, im->dir);
		goto out;
	}
	fd = openat(im->dir_fd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0400);
	if (fd < 0 && errno == EEXIST) {
		log_debug("credential %s (%s) is already in %s: the first source wins", name, im->source,
			  im->dir);
		goto out;
	}
	r = fd < 0 ? -errno : write_all(fd, value, len);
	if (r < 0) {
		log_warn("credential %s (%s) was not imported: unable to write it to %s: %s", name,
			 im->source, im->dir, strerror(-r));
		unlinkat(im->dir_fd, name, 0);
		r = 0;
		goto out;
	}
	im->total += len;
	im->count++;
	log_debug("credential %s (%s) imported to %s", name, im->source, im->dir);
out:
	if (fd >= 0)
		close(fd);
	return r;
}

static void credential_bad(const char *what, const char *why, void *data)
{
	const struct import *im = data;

	log_warn("a credential (%s, %s) was not imported: %s", im->source, what, why);
}

/* Reads all of path (up to size bytes, one more to see it is larger) into buf: its length,
 * or -errno (-EFBIG when larger). */
static ssize_t read_whole(int dir_fd, const char *path, uint8_t *buf, size_t size)
{
	int fd = openat(dir_fd, path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	size_t used = 0;
	ssize_t n = 1;

	if (fd < 0)
		return -errno;
	while (n > 0 && used <= size) {
		n = read(fd, buf + used, size + 1 - used);
		if (n < 0 && errno == EINTR)
			n = 1;
		else if (n > 0)
			used += (size_t)n;
	}
	if (n < 0)
		n = -errno;
	close(fd);
	return n < 0 ? n : used > size ? -EFBIG : (ssize_t)used;
}

static uint8_t value_buf[CREDENTIAL_SIZE_MAX + 1];

/* The stub's NAME.cred files of dir, by name (scandir sorts as systemd does, bytewise). */
static void import_stub_dir(struct import *im, const char *dir)
{
	struct dirent **entries = NULL;
	int n = scandir(dir, &entries, NULL, alphasort);
	int dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	im->source = dir;
	for (int i = 0; i < n && dir_fd >= 0; i++) {
		const char *file = entries[i]->d_name;
		size_t len = strlen(file);
		char name[CREDENTIAL_NAME_MAX + 1];
		struct stat st;
		ssize_t size;

		if (len <= strlen(CRED_SUFFIX) || strcmp(file + len - strlen(CRED_SUFFIX), CRED_SUFFIX))
			continue;
		len -= strlen(CRED_SUFFIX);
		if (!credential_name_valid(file, len)) {
			log_warn("%s/%s was not imported: its name is not a credential name", dir, file);
			continue;
		}
		memcpy(name, file, len);
		name[len] = '\0';
		if (fstatat(dir_fd, file, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode)) {
			log_warn("%s/%s was not imported: not a regular file", dir, file);
			continue;
		}
		size = read_whole(dir_fd, file, value_buf, CREDENTIAL_SIZE_MAX);
		if (size < 0)
			log_warn("%s/%s was not imported: %s", dir, file,
				 size == -EFBIG ? "larger than 1 MiB" : strerror((int)-size));
		else
			credential_write(name, value_buf, (size_t)size, im);
	}
	for (int i = 0; i < n; i++)
		free(entries[i]);
	free(entries);
	if (dir_fd >= 0)
		close(dir_fd);
}

static bool stub_credentials_present(void)
{
	bool found = false;

	for (size_t i = 0; i < ARRAY_SIZE(stub_dirs) && !found; i++) {
		DIR *d = opendir(stub_dirs[i]);
		struct dirent *e;

		while (d && !found && (e = readdir(d))) {
			size_t len = strlen(e->d_name);

			found = len > strlen(CRED_SUFFIX) &&
				!strcmp(e->d_name + len - strlen(CRED_SUFFIX), CRED_SUFFIX);
		}
		if (d)
			closedir(d);
	}
	return found;
}

/* QEMU's -fw_cfg name=opt/io.systemd.credentials/NAME: a directory NAME with size and raw. */
static void import_fw_cfg(struct import *im)
{
	DIR *d = opendir(FW_CFG_DIR);
	struct dirent *e;

	im->source = "fw_cfg";
	while (d && (e = readdir(d))) {
		char path[PATH_MAX], text[32];
		uint64_t size = 0;
		ssize_t got;

		if (e->d_name[0] == '.')
			continue;
		if (!credential_name_valid(e->d_name, strlen(e->d_name))) {
			credential_bad(e->d_name, "not a credential name", im);
			continue;
		}
		snprintf(path, sizeof(path), "%s/size", e->d_name);
		got = read_file_at(dirfd(d), path, text, sizeof(text));
		if (got <= 0 || parse_decimal(text, strcspn(text, "\n"), CREDENTIAL_SIZE_MAX, &size) < 0) {
			credential_bad(e->d_name, "its size is unreadable, or over 1 MiB", im);
			continue;
		}
		snprintf(path, sizeof(path), "%s/raw", e->d_name);
		got = read_whole(dirfd(d), path, value_buf, (size_t)size);
		if (got < 0 || (uint64_t)got != size)
			credential_bad(e->d_name, "its contents are unreadable", im);
		else
			credential_write(e->d_name, value_buf, (size_t)got, im);
	}
	if (d)
		closedir(d);
}

/* Every type 11 structure: /sys/firmware/dmi/entries/11-0/raw, 11-1/raw, … */
static void import_smbios(struct import *im)
{
	const struct credential_walk w = { credential_write, credential_bad, im };

	im->source = "SMBIOS";
	for (unsigned i = 0;; i++) {
		char path[64];
		ssize_t got;

		snprintf(path, sizeof(path), DMI_ENTRIES "/11-%u/raw", i);
		got = read_whole(AT_FDCWD, path, value_buf, CREDENTIAL_SIZE_MAX);
		if (got < 0)
			break;
		if (credentials_from_smbios11(value_buf, (size_t)got, &w) == -EBADMSG)
			log_warn("%s is not an SMBIOS type 11 structure; its strings were not read", path);
	}
}

static void import_cmdline(struct import *im)
{
	static char line[CMDLINE_MAX + 2];
	const struct credential_walk w = { credential_write, credential_bad, im };

	im->source = "the command line";
	if (read_file_at(AT_FDCWD, "/proc/cmdline", line, sizeof(line)) > 0) {
		line[strcspn(line, "\n")] = '\0';
		credentials_from_cmdline(line, &w);
	}
}

/* Read-only from now on; the real init's environment names it. A plain directory is bound
 * onto itself first: only a mount takes flags of its own. */
static int finalize(const char *dir, const char *variable, bool plain_directory)
{
	unsigned long flags = MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NODEV | MS_NOEXEC | MS_NOSUID;
	int r = 0;

	if ((plain_directory && mount(dir, dir, NULL, MS_BIND, NULL) < 0) ||
	    mount(NULL, dir, NULL, flags, NULL) < 0)
		r = -errno;
	if (r < 0)
		log_warn("unable to make %s read-only: %s", dir, strerror(-r));
	setenv(variable, dir, 1);
	return r;
}

static unsigned import_encrypted(void)
{
	struct import im = { .dir = ENCRYPTED_DIR, .dir_fd = -1 };
	int r = make_directories(ENCRYPTED_DIR, 0700);

	if (r == 0 && (im.dir_fd = open(ENCRYPTED_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		r = -errno;
	if (r < 0) {
		log_warn("unable to make %s for the boot loader's credentials: %s", ENCRYPTED_DIR,
			 strerror(-r));
		goto out;
	}
	for (size_t i = 0; i < ARRAY_SIZE(stub_dirs); i++)
		import_stub_dir(&im, stub_dirs[i]);
	if (im.count > 0)
		finalize(ENCRYPTED_DIR, "ENCRYPTED_CREDENTIALS_DIRECTORY", true);
out:
	if (im.dir_fd >= 0)
		close(im.dir_fd);
	return im.count;
}

static unsigned import_trusted(struct modules *m)
{
	struct import im = { .dir = SYSTEM_DIR, .dir_fd = -1 };
	int r = make_directories(SYSTEM_DIR, 0700);

	if (r == 0 && mount("ramfs", SYSTEM_DIR, "ramfs", MS_NODEV | MS_NOEXEC | MS_NOSUID,
			    "mode=0700") < 0)
		r = -errno;
	if (r == 0 && (im.dir_fd = open(SYSTEM_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		r = -errno;
	if (r < 0) {
		log_warn("unable to make %s for the firmware's and command line's credentials: %s",
			 SYSTEM_DIR, strerror(-r));
		goto out;
	}
	/* systemd loads it for its own import; here it may still be queued behind others */
	if (access("/sys/firmware/qemu_fw_cfg", F_OK) < 0)
		modules_load_alias(m, "qemu_fw_cfg");
	import_fw_cfg(&im);
	import_smbios(&im);
	import_cmdline(&im);
	if (im.count > 0) {
		finalize(SYSTEM_DIR, "CREDENTIALS_DIRECTORY", false);
	} else {
		/* an empty mount would hide nothing, but systemd 252 cannot write to a read-only one */
		umount(SYSTEM_DIR);
		rmdir(SYSTEM_DIR);
	}
out:
	if (im.dir_fd >= 0)
		close(im.dir_fd);
	return im.count;
}

/* systemd's tmpfiles copy them in its initrd, and only when the target is not there yet. */
static void copy_stub_files(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(stub_files); i++) {
		int in = open(stub_files[i].from, O_RDONLY | O_NOFOLLOW | O_CLOEXEC), out = -1, r = 0;

		if (in < 0)
			continue;
		r = make_directories("/run/systemd", 0755);
		if (r == 0) {
			out = open(stub_files[i].to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0444);
			r = out < 0 ? (errno == EEXIST ? 0 : -errno) : copy_fd(in, out);
		}
		if (r < 0)
			log_warn("unable to copy %s to %s: %s", stub_files[i].from, stub_files[i].to,
				 strerror(-r));
		if (out >= 0)
			close(out);
		close(in);
	}
}

void credentials_import(const struct options *o, struct modules *m)
{
	char rest[128] = "none from the firmware or the command line";
	unsigned encrypted, trusted;

	copy_stub_files();
	if (!o->import_credentials) {
		log_info("credentials are not imported (systemd.import_credentials=no)");
	} else if (stub_credentials_present()) {
		encrypted = import_encrypted();
		trusted = import_trusted(m);
		if (trusted > 0)
			snprintf(rest, sizeof(rest), "%u from the firmware and the command line in %s",
				 trusted, SYSTEM_DIR);
		log_info("credentials: %u from the boot loader, kept encrypted in %s; %s; the real "
			 "system's systemd takes them from there", encrypted, ENCRYPTED_DIR, rest);
	}
}
