/* What a stopped boot does next (see failure.h). Pure. */
#include <stdio.h>

#include "failure.h"
#include "util.h"

static const struct {
	enum emergency_action key;
	enum failure_action action;
	const char *word; /* as written after rd.emergency= */
} emergency_actions[] = {
	{ EMERGENCY_REBOOT, FAILURE_REBOOT, "reboot" },
	{ EMERGENCY_POWEROFF, FAILURE_POWEROFF, "poweroff" },
	{ EMERGENCY_HALT, FAILURE_HALT, "halt" },
};

static const char *const doing[] = {
	[FAILURE_WAIT] = "waiting forever",
	[FAILURE_SHELL] = "starting the shell again",
	[FAILURE_REBOOT] = "rebooting",
	[FAILURE_POWEROFF] = "powering off",
	[FAILURE_HALT] = "halting",
};

/* rd.emergency=: false when absent. */
static bool chosen_on_command_line(const struct options *o, struct failure_plan *plan)
{
	for (size_t i = 0; i < ARRAY_SIZE(emergency_actions); i++) {
		if (o->emergency_action != emergency_actions[i].key)
			continue;
		plan->then = emergency_actions[i].action;
		snprintf(plan->because, sizeof(plan->because), "rd.emergency=%s",
			 emergency_actions[i].word);
		return true;
	}
	return false;
}

static void choose_default(const struct options *o, bool shell_present, struct failure_plan *plan)
{
	if (plan->shell_first) {
		plan->then = FAILURE_SHELL;
	} else if (o->panic_sec != 0) {
		plan->then = FAILURE_REBOOT;
		snprintf(plan->because, sizeof(plan->because), "panic=%d", o->panic_sec);
	} else if (o->no_shell && shell_present) {
		snprintf(plan->because, sizeof(plan->because), "rd.shell=0");
	}
}

void failure_decide(const struct options *o, bool shell_present, struct failure_plan *plan)
{
	*plan = (struct failure_plan){ .shell_first = shell_present && !o->no_shell,
				       .then = FAILURE_WAIT };
	if (!chosen_on_command_line(o, plan))
		choose_default(o, shell_present, plan);
	if (plan->then >= FAILURE_REBOOT && o->panic_sec > 0)
		plan->delay_sec = o->panic_sec;
}

const char *failure_action_doing(enum failure_action action)
{
	return (size_t)action < ARRAY_SIZE(doing) ? doing[action] : "stopping";
}

bool failure_countdown_says(int left)
{
	return left > 0 && (left <= 5 || left % 10 == 0);
}
