/* The A/B fallback among versioned partitions: when the root or /usr that discovery picked
 * (the newest version) fails at boot, the next newest is tried, and the real init is told in
 * FALLBACK_PATH which partition was passed over and why, so that an update agent can mark
 * that version bad. A partition the command line names is never second-guessed. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "plan.h"

#define FALLBACK_PATH EARLYMOUNT_RUN "/fallback"
#define FALLBACK_LABEL 64

struct fallback {
	struct plan_failure failed[PLAN_MAX_FAILURES]; /* what the planner passes over */
	const char *role[PLAN_MAX_FAILURES];           /* "root", "usr" */
	char label[PLAN_MAX_FAILURES][FALLBACK_LABEL];
	size_t n;
};

/* The discovered root or /usr a failure is to be blamed on, or NULL when none may give way:
 * the partition behind the failed step (failed_step NULL: the new root holds no init, which
 * is the root's when the plan mounted one, else /usr's). role gets "root" or "usr". Pure. */
const struct part *fallback_culprit(const struct plan *plan, const struct plan_step *failed_step,
				    const char **role);

/* Adds part, failed for why, to the partitions passed over. 0, or -ENOSPC when the list is
 * full (the boot then stops: PLAN_MAX_FAILURES versions failed). Pure. */
int fallback_add(struct fallback *f, const struct part *part, const char *role, const char *why);

/* FALLBACK_PATH's text: a comment line naming the columns, then per partition passed over,
 * tab-separated: role, its PARTUUID and label, the PARTUUID and label of the one that booted
 * in its place, why. Labels and reasons have tabs and newlines replaced. Pure. */
void fallback_format(const struct fallback *f, const struct plan *plan, char *out, size_t size);

/* Writes fallback_format() to path. 0 or -errno. */
int fallback_write(const struct fallback *f, const struct plan *plan, const char *path);
