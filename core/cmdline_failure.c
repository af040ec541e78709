/* What a boot does when it stops, or before it starts: rd.emergency and emergency,
 * rd.emergency=ACTION, rd.shell=, panic= and rd.break. */
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "cmdline_keys.h"
#include "util.h"

/* dracut's rd.emergency= words: what a stopped boot does once no shell runs. */
static const struct word_value emergency_words[] = {
	{ "reboot", EMERGENCY_REBOOT },
	{ "poweroff", EMERGENCY_POWEROFF },
	{ "halt", EMERGENCY_HALT },
};

int cmdline_set_emergency(struct options *o, const char *value, const char **why)
{
	o->emergency = true;
	return 0;
}

/* The bare key is the shell now, before the boot; a value is dracut's action on failure. */
int cmdline_set_rd_emergency(struct options *o, const char *value, const char **why)
{
	int action = 0;
	int r;

	if (!value)
		return cmdline_set_emergency(o, value, why);
	r = cmdline_word_lookup(emergency_words, ARRAY_SIZE(emergency_words), value, &action);
	if (r == 0)
		o->emergency_action = (enum emergency_action)action;
	else
		*why = "not an action; use reboot, poweroff or halt (or the bare rd.emergency for a shell now)";
	return r;
}

int cmdline_set_shell(struct options *o, const char *value, const char **why)
{
	bool shell = true;
	int r = cmdline_set_bool(value, &shell, why);

	if (r == 0)
		o->no_shell = !shell;
	return r;
}

/* The kernel's own key, read as its int parameter: seconds, negative for at once. */
int cmdline_set_panic(struct options *o, const char *value, const char **why)
{
	bool negative = value[0] == '-';
	const char *digits = value + (value[0] == '-' || value[0] == '+');
	uint64_t n;
	int r = parse_decimal(digits, strlen(digits), INT_MAX, &n);

	if (r < 0)
		*why = "not a whole number of seconds (negative: at once)";
	else
		o->panic_sec = negative ? -(int)n : (int)n;
	return r;
}

int cmdline_set_break(struct options *o, const char *value, const char **why)
{
	o->rd_break = true;
	return 0;
}
