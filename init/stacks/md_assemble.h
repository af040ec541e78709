/* md RAID at boot: an array is assembled as its members appear, by mdadm's own incremental
 * mode (what mdadm's udev rule does on a running system); an array still missing a member
 * when its timer runs out starts degraded, with a warning that names what is missing. */
#pragma once

#include <stdbool.h>

#include "cmdline.h"
#include "disk.h"
#include "modules.h"
#include "name_list.h"
#include "stack_gate.h"

struct md_boot {
	const struct options *opts;
	struct modules *modules;
	bool prepared;          /* md_mod loaded, rd.md.uuid= checked */
	/* the members seen: a device probed again (a change event, a rescan) is not handed to
	 * mdadm twice */
	struct stack_gate gate;
	struct name_list personalities; /* the RAID levels whose modules were loaded */
	struct name_list warned;        /* the arrays whose degraded start was reported */
	int root_wait_sec;      /* how long the boot waits for its root (0: for ever), which
				 * bounds the degraded timer */
	double last_added_sec;  /* when a member was last added: the degraded timer's start */
	bool degraded_tried;    /* the arrays were started degraded since a member was added */
};

/* A probe recognised part: when it is an md member the command line wants, mdadm adds it to
 * its array, and starts the array once every member is there. For devices_on_probed(). */
void md_probed(const struct part *part, void *data);
/* Milliseconds until the arrays that miss members are due to start degraded (0: now); -1 when
 * no array waits, or never. */
int md_degraded_due_ms(const struct md_boot *m);
/* Starts every array that misses members with those present, and warns for each array now
 * running degraded: its members, the slots left empty, what to do. */
void md_start_degraded(struct md_boot *m);
