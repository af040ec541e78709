/* systemd.image_filter= (systemd.image-filter(7)): per designator, a shell glob the GPT label of
 * a partition must match for discovery to consider it, "root=ParticleOS-*:usr=ParticleOS_47110815".
 * Pure. */
#pragma once

#include <stdbool.h>

#include "dps.h"

#define IMAGE_FILTER_GLOB 128

struct image_filter {
	bool given;
	bool malformed;            /* the plan refuses to boot under a filter it cannot read */
	char error[160];
	char text[256];            /* as given (cut when longer), for messages */
	bool listed[DPS_ROLE_MAX];
	char glob[DPS_ROLE_MAX][IMAGE_FILTER_GLOB];
};

/* Reads s into f: 0, or -EINVAL (a rule without '=', an empty rule, a glob too long),
 * -EBADSLT (an unknown designator), -ENOTUNIQ (one given twice); then f->malformed and
 * f->error say why, and no rule is kept. */
int image_filter_parse(const char *s, struct image_filter *f);
/* Whether a partition of role with GPT label label may be considered: true without a rule for
 * role. */
bool image_filter_allows(const struct image_filter *f, enum dps_role role, const char *label);
