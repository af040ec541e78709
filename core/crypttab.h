/* crypttab(5) as the initramfs reads it: the volumes the image's /etc/crypttab names, each
 * with its name, its device, its key and its options, and what the boot does with it. Pure:
 * the image builder selects the entries, the planner opens them. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#define CRYPTTAB_MAX_ENTRIES 16
#define CRYPTTAB_FIELD 256
#define CRYPTTAB_TEXT_MAX 65536 /* a longer crypttab is read up to here */

/* What the boot does with an entry. */
enum crypttab_use {
	CRYPTTAB_OPEN,    /* unlocked as its device appears */
	CRYPTTAB_NOAUTO,  /* noauto: left to whoever opens it by hand */
	CRYPTTAB_REAL,    /* a random key (swap, /tmp), formatted at each boot: the real system's */
	CRYPTTAB_REFUSED, /* asks for what earlymount does not do (why says what): never opened
			   * another way than the entry says */
};

struct crypttab_entry {
	char name[128];             /* the volume's name: /dev/mapper/NAME */
	char device[CRYPTTAB_FIELD]; /* a device spec: UUID=, PARTUUID=, LABEL=, PARTLABEL=, a /dev
				     * path (/dev/disk/by-uuid/X becomes UUID=X, and so on) */
	char key[CRYPTTAB_FIELD];   /* PATH or PATH:DEVICE; "" for none ("-", "none") */
	char options[CRYPTTAB_FIELD]; /* as written; "" when absent */
	enum crypttab_use use;
	char why[192];              /* CRYPTTAB_REFUSED: which option, and why */
	unsigned line;              /* in the file, for messages */
};

struct crypttab {
	struct crypttab_entry entries[CRYPTTAB_MAX_ENTRIES];
	size_t n;
	unsigned dropped;           /* entries past CRYPTTAB_MAX_ENTRIES */
	unsigned bad_line;          /* the first line that could not be read (0: none) */
	char bad_why[96];
};

/* Fills out from the text of a crypttab (len bytes, NUL or not). A line that cannot be read
 * (fewer than two fields or more than four, a name the device-mapper does not take, a field
 * too long) is left out, and the first such is noted in bad_line and bad_why. */
void crypttab_parse(const char *text, size_t len, struct crypttab *out);
/* The entry named name, or NULL. */
const struct crypttab_entry *crypttab_find(const struct crypttab *t, const char *name);
/* What the boot does with an entry of use, as a word for messages and plans. */
const char *crypttab_use_name(enum crypttab_use use);
