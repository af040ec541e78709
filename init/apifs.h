/* The API filesystems (/proc, /sys, /dev, /run, …) PID 1 mounts before anything else. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

enum apifs_need {
	APIFS_REQUIRED, /* failing is a boot failure */
	APIFS_OPTIONAL, /* failing is a warning */
	APIFS_IF_EFI,   /* only when /sys/firmware/efi exists; mounted again after modules load */
};

#define APIFS_MAX_OPTIONS 3

struct apifs_entry {
	const char *fstype;   /* also the source name, as systemd does */
	const char *target;
	/* Tried in order until one mounts; NULL ends the list, "" means no options. */
	const char *options[APIFS_MAX_OPTIONS];
	unsigned long flags;
	enum apifs_need need;
};

/* systemd's table (v258). */
extern const struct apifs_entry apifs_table[];
extern const size_t apifs_table_size;

/* Mounts each entry that is not mounted yet, making its mount point (0755) when missing.
 * Failures of optional entries are logged as warnings. 0, or the -errno of the first
 * required entry that failed; why (when not NULL) then says which and why. */
int apifs_mount_table(const struct apifs_entry *table, size_t n, char *why, size_t why_size);
/* Mounts the entry for target from apifs_table unless mounted. 0 or -errno (not logged). */
int apifs_mount_one(const char *target);
/* Whether path is a mount point: its st_dev differs from its parent's. */
bool apifs_is_mount_point(const char *path);
/* /dev/fd -> /proc/self/fd and /dev/stdin|stdout|stderr; existing links are kept. */
void apifs_make_links(void);
/* Points fds 0, 1, 2 at /dev/console when they are not open. 0 or -errno. */
int apifs_ensure_console(void);
