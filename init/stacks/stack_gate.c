/* The gate of the storage stacks: see stack_gate.h. */
#include <unistd.h>

#include "log.h"
#include "stack_gate.h"
#include "util.h"

/* Why a member is left alone, said the first time only. */
static void say_off(struct stack_gate *g, const struct stack_kind *kind, bool on,
		    const struct part *part)
{
	if (g->said_off)
		return;
	if (!on && kind->off_by)
		log_info("%s is %s: left alone (%s)", part->devpath, kind->what, kind->off_by);
	else if (on)
		log_info("%s is %s: this image has no %s to %s (earlymount initramfs %s adds it)",
			 part->devpath, kind->what, kind->tool_name, kind->tool_job, kind->tool_option);
	g->said_off = true;
}

bool stack_gate_pass(struct stack_gate *g, const struct stack_kind *kind, bool on,
		     const struct part *part)
{
	bool pass = false;

	if (!streq(part->fstype, kind->member) || !part->devpath[0])
		goto out;
	if (!on || (kind->tool && access(kind->tool, X_OK) < 0)) {
		say_off(g, kind, on, part);
		goto out;
	}
	if (!kind->every_event &&
	    (name_list_has(&g->seen, part->devpath) || name_list_add(&g->seen, part->devpath) < 0))
		goto out;
	pass = true;
out:
	return pass;
}
