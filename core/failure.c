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

const char *failure_action_word(enum failure_action action)
{
	for (size_t i = 0; i < ARRAY_SIZE(emergency_actions); i++)
		if (emergency_actions[i].action == action)
			return emergency_actions[i].word;
	return NULL;
}

bool failure_countdown_says(int left)
{
	return left > 0 && (left <= 5 || left % 10 == 0);
}

/* One branch, as "a shell, then rebooting in 3 s (panic=3)". */
static int describe_branch(const struct options *o, bool shell_present, char *buf, size_t size)
{
	struct failure_plan plan;
	char when[32] = "at once";
	char key[sizeof(plan.because) + 3] = "";

	failure_decide(o, shell_present, &plan);
	if (plan.delay_sec > 0)
		snprintf(when, sizeof(when), "in %d s", plan.delay_sec);
	if (plan.because[0])
		snprintf(key, sizeof(key), " (%s)", plan.because);
	if (plan.then == FAILURE_SHELL)
		return snprintf(buf, size, "a shell, again each time it exits");
	if (plan.then == FAILURE_WAIT)
		return snprintf(buf, size, "%swaiting forever%s", plan.shell_first ? "a shell, then " : "",
				key);
	return snprintf(buf, size, "%s%s %s%s", plan.shell_first ? "a shell, then " : "",
			failure_action_doing(plan.then), when, key);
}

int failure_describe(const struct options *o, const char *shell, char *buf, size_t size)
{
	char with[128], without[128];

	describe_branch(o, true, with, sizeof(with));
	describe_branch(o, false, without, sizeof(without));
	return snprintf(buf, size, "if the boot stops: with %s in the image, %s; without, %s", shell,
			with, without);
}
