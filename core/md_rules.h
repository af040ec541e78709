/* md RAID at boot, the pure part: which arrays the command line lets the boot assemble
 * (rd.md=, rd.md.uuid=, as dracut reads them) and when an array missing a member starts
 * degraded (earlymount.md_degraded=). Assembly itself is mdadm's (init/stacks/md_assemble.c). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "cmdline.h"

/* How long an array waits for a missing member when the command line does not say: what
 * mdadm's own last-resort timer waits on a running system is 30 s; at boot the root's wait
 * bounds it (below). */
#define MD_DEGRADED_DEFAULT_SEC 10

/* The RAID levels (md/level, mdadm's MD_LEVEL) md assembles with its own metadata; each level's
 * module has the alias "md-LEVEL" (raid4, raid5 and raid6 are one module, raid456). */
extern const char *const md_levels[];
extern const size_t md_levels_n;

/* Whether an array UUID, in mdadm's form (4 groups of 8 hex digits joined by ':') or
 * libblkid's (8-4-4-4-12), is one: 32 hex digits, separators where either form has them. */
bool md_uuid_valid(const char *uuid);

/* Whether the command line lets the boot assemble the array whose UUID a member carries
 * (libblkid's UUID of a linux_raid_member): rd.md= not 0, and rd.md.uuid= absent or listing
 * it, in either form, in any case. */
bool md_array_wanted(const struct md_cmdline *md, const char *array_uuid);

/* The first rd.md.uuid= entry that is not a UUID (it matches no array), copied into out; false
 * when every entry is one. */
bool md_uuid_list_invalid(const struct md_cmdline *md, char *out, size_t size);

/* Seconds an array waits for its missing members before it starts degraded, given how long
 * the boot waits for its root (root_wait_sec; 0: for ever): earlymount.md_degraded= when
 * given, else MD_DEGRADED_DEFAULT_SEC, at most half the root's wait, so that the root can
 * still be found on the array after it started. 0: never (earlymount.md_degraded=infinity). */
int md_degraded_sec(const struct md_cmdline *md, int root_wait_sec);
