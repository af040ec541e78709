/* The first question of every storage stack the boot assembles, asked of each part a probe
 * recognises: is it a new member of this stack, and may the stack be assembled here? */
#pragma once

#include <stdbool.h>

#include "disk.h"
#include "name_list.h"

/* A stack's kind: what its members are, what assembles them, what turns it off. */
struct stack_kind {
	const char *member;      /* libblkid's TYPE of a member */
	const char *what;        /* a member, in the note's words: "an LVM physical volume" */
	const char *off_by;      /* the key that turns the stack off, for the note; NULL: no note */
	const char *tool;        /* the image's tool that assembles it; NULL: the kernel does */
	const char *tool_name;   /* its name and job in the note, and the builder's option */
	const char *tool_job;
	const char *tool_option;
	bool every_event;        /* a device probed again (a change event) is handed over again */
};

/* What a stack's gate remembers through the boot. Zeroed at the start. */
struct stack_gate {
	bool said_off;           /* why the stack stays off: said once */
	struct name_list seen;   /* the members handed over (unless every_event) */
};

/* True when part is a member of kind to hand over now: on says whether the stack may be
 * assembled (the command line, or what the stack needs first); off, or without its tool in
 * the image, the first member says why, once. */
bool stack_gate_pass(struct stack_gate *g, const struct stack_kind *kind, bool on,
		     const struct part *part);
