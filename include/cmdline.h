/* The kernel command line, read the way systemd's initrd reads it. Pure. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Longer than any arch's COMMAND_LINE_SIZE (2048 on x86 and arm64, 4096 on a few). */
#define CMDLINE_MAX 4096

enum volatile_mode {
	VOLATILE_NO,
	VOLATILE_YES,
	VOLATILE_STATE,
	VOLATILE_OVERLAY,
};

enum root_kind {
	ROOT_DISCOVER, /* root= absent or root=gpt-auto */
	ROOT_DEVICE,   /* a path or UUID=/PARTUUID=/LABEL=/PARTLABEL= */
	ROOT_TMPFS,    /* root=tmpfs */
};

/* Every string points into storage owned by the struct; NULL when the key was absent. */
struct options {
	enum root_kind root_kind;
	const char *root;        /* the device spec when ROOT_DEVICE */
	const char *rootfstype;
	const char *rootflags;   /* every rootflags= joined with commas */
	int rw;                  /* -1 unset, 0 ro, 1 rw (last of ro/rw wins) */

	const char *usr;         /* mount.usr= device spec */
	const char *usrfstype;   /* mount.usrfstype= */
	const char *usrflags;    /* mount.usrflags= (every one joined with commas) */

	bool gpt_auto;           /* systemd.gpt_auto= / rd.systemd.gpt_auto=, default true */
	enum volatile_mode volatile_mode;
	const char *tmpfs_flags; /* earlymount.tmpfs=: options of the systemd.volatile= tmpfs mounts */
	const char *init;        /* init= */
	const char *disk;        /* earlymount.disk=: device path, PARTUUID=/UUID= on it, or GPT disk UUID */
	bool has_machine_id;     /* systemd.machine_id= */
	uint8_t machine_id[16];

	bool emergency;          /* rd.emergency / emergency */
	bool rd_break;           /* rd.break */
	bool quiet;
	bool debug;              /* debug / rd.debug */
	bool rootwait;
	int timeout_sec;         /* rd.timeout= / earlymount.timeout=, -1 unset, 0 forever */
	int rootdelay_sec;       /* rootdelay=, -1 unset */

	const char *modules_load;      /* rd.modules-load= and modules_load=, joined with commas */
	const char *modprobe_blacklist; /* modprobe.blacklist=, joined with commas */
	unsigned n_module_params;      /* module.param=value keys seen (libkmod reads them itself) */

	size_t used;             /* bytes of storage in use */
	char storage[2 * CMDLINE_MAX];
};

/* Fills opts from line. Returns 0, -E2BIG for a line longer than CMDLINE_MAX, or -EINVAL for
 * a malformed line or value; on -EINVAL every other key is still applied, and err (when not
 * NULL) holds one sentence naming the first problem. */
int cmdline_parse(const char *line, struct options *opts, char *err, size_t err_size);

/* Resets opts to the defaults of an empty command line. */
void options_init(struct options *opts);

/* systemd's boolean words: 1/yes/y/true/t/on and 0/no/n/false/f/off. 1, 0 or -EINVAL. */
int parse_boolean(const char *s);

/* The keys this parser knows, NULL-terminated (for the man page check). */
extern const char *const cmdline_known_keys[];
