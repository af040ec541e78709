/* The root's /etc/fstab, as the initramfs reads it: only the entries it mounts before the
 * handoff — /usr, and those marked x-initrd.mount — as systemd's initrd and initramfs-tools
 * do. Pure: text in, entries out. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#define FSTAB_MAX_ENTRIES 8
#define FSTAB_FIELD 256
#define FSTAB_TEXT_MAX 65536   /* a longer fstab is read up to here */

struct fstab_entry {
	char what[FSTAB_FIELD];    /* a device spec: UUID=, LABEL=, PARTUUID=, PARTLABEL=, a /dev
				    * path (/dev/disk/by-uuid/X becomes UUID=X, and so on); else
				    * as written (a network source, "tmpfs") */
	char where[FSTAB_FIELD];   /* absolute, without a trailing slash */
	char type[32];             /* "" for auto */
	char options[FSTAB_FIELD]; /* the kernel's: userspace words (defaults, nofail, x-…) and
				    * ro/rw left out */
	int rw;                    /* the last of ro/rw: 1 rw, 0 ro, -1 neither */
	bool nofail;
	bool network;              /* _netdev, or a type that needs the network */
	bool growfs;               /* x-systemd.growfs: grown to its device's size once mounted */
	int passno;                /* the sixth field, 0 when absent */
	unsigned line;             /* in the file, for messages */
};

struct fstab {
	struct fstab_entry entries[FSTAB_MAX_ENTRIES];
	size_t n;
	unsigned dropped;          /* entries for the initramfs past FSTAB_MAX_ENTRIES */
	unsigned bad_line;         /* the first line that could not be read (0: none) */
	char bad_why[96];
};

/* Fills out from the text of an fstab (len bytes, NUL or not). Lines it cannot read are
 * skipped, the first of them named in bad_line and bad_why. */
void fstab_parse_initrd(const char *text, size_t len, struct fstab *out);
/* An entry from its fields as given elsewhere (systemd.mount-extra=): what decoded as the
 * fstab's first field is, options sorted as its fourth; type "" or "auto" for any. 0, or
 * -EINVAL when where is not absolute, what is empty, or a field is too long. */
int fstab_entry_make(const char *what, const char *where, const char *type, const char *options,
		     struct fstab_entry *e);
/* The entry for where, or NULL. */
const struct fstab_entry *fstab_find(const struct fstab *f, const char *where);
/* A device spec as the planner matches it: udev's /dev/disk/by-uuid/X is UUID=X (by-label,
 * by-partuuid and by-partlabel likewise, their \xHH decoded), anything else as written. what
 * is changed (decoded in place); out is cut at size. */
void fstab_device_spec(char *what, char *out, size_t size);
/* fstab's (and mountinfo's) \ooo escapes (a space is \040), decoded in place; \000 is
 * left as written. */
void fstab_unescape(char *s);
