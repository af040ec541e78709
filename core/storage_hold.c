/* The wait of the slow-scanning storage controllers' drivers under a pinned plan. */
#include "storage_hold.h"

int storage_hold_due_ms(const struct storage_hold_facts *f, int hold_ms)
{
	int due = -1;

	if (!f->held || !f->settled)
		goto out;
	if (!f->likely_requested || f->since_settled_ms >= hold_ms) {
		due = 0;
		goto out;
	}
	/* rounded up: a wake a little early would only find it due again */
	due = hold_ms - (int)f->since_settled_ms;
	if (due > hold_ms)
		due = hold_ms; /* a clock read just before the settle */
out:
	return due;
}
