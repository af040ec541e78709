/* The filter's rules: "DESIGNATOR=GLOB" separated by ':'; the designators are those of image
 * policies (image_policy_designator()). A glob cannot hold ':' (it ends the rule). */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>

#include "image_filter.h"
#include "image_policy.h"
#include "util.h"

static int parse_rule(char *rule, struct image_filter *f, char *err, size_t size)
{
	char *eq = strchr(rule, '=');
	int role;

	if (!eq) {
		snprintf(err, size, "'%.60s' has no '=' (a rule is DESIGNATOR=GLOB)", rule);
		return -EINVAL;
	}
	*eq = '\0';
	role = image_policy_role(rule);
	if (role < 0) {
		snprintf(err, size, "'%.60s' is no partition designator", rule);
		return role;
	}
	if (f->listed[role]) {
		snprintf(err, size, "'%.60s' has two rules", rule);
		return -ENOTUNIQ;
	}
	if (copy_str(f->glob[role], sizeof(f->glob[role]), eq + 1) < 0) {
		snprintf(err, size, "the glob of '%.60s' is longer than %d bytes", rule,
			 IMAGE_FILTER_GLOB - 1);
		return -EINVAL;
	}
	f->listed[role] = true;
	return 0;
}

int image_filter_parse(const char *s, struct image_filter *f)
{
	char copy[1024], err[sizeof(f->error)] = "";
	char *rule, *end;
	int r = 0;

	memset(f, 0, sizeof(*f));
	f->given = true;
	snprintf(f->text, sizeof(f->text), "%s", s);
	if (copy_str(copy, sizeof(copy), s) < 0) {
		snprintf(err, sizeof(err), "longer than %zu bytes", sizeof(copy) - 1);
		r = -EINVAL;
	}
	for (rule = r == 0 ? copy : NULL; rule && r == 0; rule = end ? end + 1 : NULL) {
		end = strchr(rule, ':');
		if (end)
			*end = '\0';
		if (rule[0] == '\0') {
			snprintf(err, sizeof(err), "an empty rule (two ':' in a row, or one at an end)");
			r = -EINVAL;
		} else {
			r = parse_rule(rule, f, err, sizeof(err));
		}
	}
	if (r < 0) {
		memset(f->listed, 0, sizeof(f->listed));
		f->malformed = true;
		snprintf(f->error, sizeof(f->error), "%s", err);
	}
	return r;
}

bool image_filter_allows(const struct image_filter *f, enum dps_role role, const char *label)
{
	if (!f->given || role < 0 || role >= DPS_ROLE_MAX || !f->listed[role])
		return true;
	return fnmatch(f->glob[role], label, 0) == 0;
}
