/* The last failure, kept for the next boot and read back (see last_failure.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include "apifs.h"
#include "efivars.h"
#include "fileio.h"
#include "last_failure.h"
#include "log.h"
#include "paths.h"
#include "util.h"

/* What the firmware keeps across a reset and the OS may read, as systemd writes its own. */
#define RECORD_ATTRIBUTES \
	(EFI_VARIABLE_NON_VOLATILE | EFI_VARIABLE_BOOTSERVICE_ACCESS | EFI_VARIABLE_RUNTIME_ACCESS)
#define VAR_NAME FAILURE_RECORD_EFI_NAME "-" EARLYMOUNT_EFI_VENDOR
/* ramoops' pmsg files, "pmsg-ramoops-0": the messages user space wrote at the last boot */
#define PMSG_PREFIX "pmsg-"
/* a pmsg buffer is what ramoops was given for it (pmsg_size=, often 4-64 KiB): what is read of
 * each file, the record being among the first bytes written at a boot that failed early */
#define PMSG_READ_MAX (64 * 1024)

const struct last_failure_places last_failure_system = {
	.efivars = EFIVARS_DIR,
	.pmsg = "/dev/pmsg0",
	.pstore = "/sys/fs/pstore",
	.passed_on = LAST_FAILURE_PATH,
};

/* --- the failing boot --- */

/* 0 written; 1 the variable holds this record already; -ENOENT no efivarfs; or -errno. */
static int keep_in_efivar(const char *dir, const char *text, size_t len)
{
	char old[EFIVAR_DATA_MAX];
	uint32_t attributes;
	ssize_t n = efivar_read(dir, FAILURE_RECORD_EFI_NAME, EARLYMOUNT_EFI_VENDOR, &attributes, old,
				sizeof(old));
	int r;

	if (n == (ssize_t)len && memcmp(old, text, len) == 0)
		return 1;
	r = efivar_write(dir, FAILURE_RECORD_EFI_NAME, EARLYMOUNT_EFI_VENDOR, RECORD_ATTRIBUTES, text,
			 len);
	/* a stale record (an older failure the last boot read but did not get to delete) must not
	 * stand for this one, which goes elsewhere */
	if (r < 0 && n >= 0)
		efivar_delete(dir, FAILURE_RECORD_EFI_NAME, EARLYMOUNT_EFI_VENDOR);
	return r;
}

static int keep_in_pmsg(const char *device, const char *text, size_t len)
{
	int fd = open(device, O_WRONLY | O_CLOEXEC | O_NOCTTY);
	int r;

	if (fd < 0)
		return -errno;
	/* one write, one pmsg record: no other writer's bytes come between */
	r = write_all(fd, text, len);
	close(fd);
	return r;
}

/* Where the record went, or why nowhere: one line for each outcome. efi: keep_in_efivar()'s
 * answer; pmsg: keep_in_pmsg()'s, when it was tried. */
static void say_kept(int efi, int pmsg, const char *device, int len)
{
	if (efi == 1)
		log_info("this failure is recorded already in the EFI variable %s (the last boot "
			 "failed the same way): not written again", VAR_NAME);
	else if (efi == 0)
		log_info("this failure is recorded for the next boot in the EFI variable %s (%d bytes)",
			 VAR_NAME, len);
	else if (pmsg == 0 && efi == -ENOENT)
		log_info("this failure is recorded for the next boot in %s (pstore, %d bytes)", device,
			 len);
	else if (pmsg == 0)
		log_warn("unable to record this failure in the EFI variable %s: %s; it is recorded "
			 "for the next boot in %s (pstore) instead",
			 VAR_NAME, strerror(-efi), device);
	else if (efi == -ENOENT && pmsg == -ENOENT)
		log_info("this failure is not recorded for the next boot: no EFI variables and no %s "
			 "(pstore)", device);
	else if (pmsg == -ENOENT)
		log_warn("unable to record this failure in the EFI variable %s: %s, and there is no %s "
			 "(pstore): it is not recorded for the next boot",
			 VAR_NAME, strerror(-efi), device);
	else if (efi == -ENOENT)
		log_warn("unable to record this failure in %s (pstore): %s; it is not recorded for the "
			 "next boot", device, strerror(-pmsg));
	else
		log_warn("unable to record this failure in the EFI variable %s (%s) or in %s (pstore, "
			 "%s): it is not recorded for the next boot",
			 VAR_NAME, strerror(-efi), device, strerror(-pmsg));
}

int last_failure_keep(const struct last_failure_places *at, const struct failure_record *rec)
{
	char text[FAILURE_RECORD_MAX + 1];
	int len = failure_record_encode(rec, text, sizeof(text));
	int r = 0, efi;

	if (len < 0) {
		log_warn("unable to make the record of this failure for the next boot: %s",
			 strerror(-len));
		return len;
	}
	efi = keep_in_efivar(at->efivars, text, (size_t)len);
	if (efi < 0)
		r = keep_in_pmsg(at->pmsg, text, (size_t)len);
	say_kept(efi, r, at->pmsg, len);
	return r;
}

/* --- the next boot --- */

/* The record's text as found, and where. */
struct found {
	char text[FAILURE_RECORD_MAX + 1];
	size_t len;
	const char *where; /* for the messages */
};

static int load_efivar(const struct last_failure_places *at, struct last_failure *lf,
		       struct failure_record *rec, struct found *f)
{
	uint32_t attributes;
	ssize_t n = efivar_read(at->efivars, FAILURE_RECORD_EFI_NAME, EARLYMOUNT_EFI_VENDOR,
				&attributes, f->text, sizeof(f->text) - 1);

	/* one larger than any record is no record either: it is deleted like a damaged one */
	if (n == -E2BIG)
		n = 0;
	if (n < 0)
		return (int)n;
	lf->from = LAST_FAILURE_EFIVAR;
	f->len = (size_t)n;
	f->text[n] = '\0';
	f->where = "the EFI variable " VAR_NAME;
	return failure_record_decode(f->text, f->len, rec);
}

/* pstore is mounted where it is not yet: the kernel shows its files nowhere else. */
static int pstore_mount(const char *dir)
{
	if (apifs_is_mount_point(dir))
		return 0;
	if (mount("pstore", dir, "pstore", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
		return -errno;
	return 0;
}

/* The record in one pmsg file: 0, -ENOENT, -EBADMSG, or -errno. */
static int load_pmsg_file(const char *path, struct failure_record *rec, struct found *f)
{
	static char buf[PMSG_READ_MAX];
	ssize_t n = read_file_at(AT_FDCWD, path, buf, sizeof(buf));
	size_t at, len;
	int r;

	if (n < 0)
		return (int)n;
	r = failure_record_find(buf, (size_t)n, rec, &at, &len);
	if (r == 0) {
		memcpy(f->text, buf + at, len);
		f->text[len] = '\0';
		f->len = len;
	}
	return r;
}

static int load_pstore(const struct last_failure_places *at, struct last_failure *lf,
		       struct failure_record *rec, struct found *f)
{
	DIR *d;
	struct dirent *e;
	int r;

	/* a kernel with pmsg makes its device at every boot: without one, nothing of pmsg was
	 * kept either, and pstore is not mounted for nothing */
	if (access(at->pmsg, F_OK) < 0)
		return -ENOENT;
	r = pstore_mount(at->pstore);
	if (r < 0) {
		/* no pstore in this kernel, or no /sys/fs/pstore: nothing was kept there */
		log_debug("no pstore on %s: %s", at->pstore, strerror(-r));
		return -ENOENT;
	}
	d = opendir(at->pstore);
	if (!d)
		return -ENOENT;
	r = -ENOENT;
	while (r == -ENOENT && (e = readdir(d))) {
		if (!startswith(e->d_name, PMSG_PREFIX))
			continue;
		snprintf(lf->pstore_file, sizeof(lf->pstore_file), "%s/%s", at->pstore, e->d_name);
		r = load_pmsg_file(lf->pstore_file, rec, f);
		if (r != -ENOENT)
			lf->from = LAST_FAILURE_PSTORE;
	}
	closedir(d);
	f->where = lf->pstore_file;
	return r;
}

static void pass_on(const char *path, const struct found *f)
{
	char dir[512];
	char *slash;
	int fd, r;

	COPY_STR(dir, path);
	slash = strrchr(dir, '/');
	if (slash && slash != dir)
		*slash = '\0';
	r = make_directories(dir, 0755);
	fd = r < 0 ? -1 : open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (r == 0 && fd < 0)
		r = -errno;
	if (fd >= 0) {
		r = write_all(fd, f->text, f->len);
		if (close(fd) < 0 && r == 0)
			r = -errno;
	}
	if (r < 0)
		log_warn("unable to pass the last boot's failure on in %s: %s", path, strerror(-r));
}

int last_failure_load(const struct last_failure_places *at, struct last_failure *lf)
{
	static struct found f;
	struct failure_record rec;
	char line[FAILURE_RECORD_MAX + 256];
	int r;

	*lf = (struct last_failure){ LAST_FAILURE_NONE, "" };
	r = load_efivar(at, lf, &rec, &f);
	if (r == -ENOENT)
		r = load_pstore(at, lf, &rec, &f);
	if (r == -ENOENT) {
		log_debug("no record of a failed boot before this one");
		goto out;
	}
	if (r < 0) {
		log_warn("the record of a failed boot in %s cannot be read (%s): it is deleted at the "
			 "handoff",
			 f.where, r == -EPROTONOSUPPORT ? "a later earlymount wrote it" : "damaged");
		goto out;
	}
	failure_record_describe(&rec, line, sizeof(line));
	log_warn("%s", line);
	pass_on(at->passed_on, &f);
out:
	return r;
}

void last_failure_forget(const struct last_failure_places *at, struct last_failure *lf)
{
	int r = 0;
	const char *what = lf->pstore_file;

	if (lf->from == LAST_FAILURE_NONE)
		return;
	if (lf->from == LAST_FAILURE_EFIVAR) {
		r = efivar_delete(at->efivars, FAILURE_RECORD_EFI_NAME, EARLYMOUNT_EFI_VENDOR);
		what = "the EFI variable " VAR_NAME;
	} else if (unlink(lf->pstore_file) < 0) {
		r = -errno;
	}
	if (r < 0 && r != -ENOENT)
		log_warn("unable to delete the record of the last failure, %s: %s; the next boot says "
			 "it again",
			 what, strerror(-r));
	else
		log_info("the record of the last failure is deleted from %s", what);
	lf->from = LAST_FAILURE_NONE;
}
