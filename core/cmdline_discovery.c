/* The keys of partition discovery: systemd.gpt_auto=, earlymount.disk=, earlymount.fallback=,
 * systemd.machine_id= (whose ID names /var), systemd.image_policy= and systemd.image_filter=. */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "cmdline_keys.h"
#include "uuid.h"

int cmdline_set_gpt_auto(struct options *o, const char *value, const char **why)
{
	return cmdline_set_bool(value, &o->gpt_auto, why);
}

int cmdline_set_fallback(struct options *o, const char *value, const char **why)
{
	return cmdline_set_bool(value, &o->fallback, why);
}

int cmdline_set_disk(struct options *o, const char *value, const char **why)
{
	return cmdline_store_or_reset(o, value, &o->disk);
}

int cmdline_set_machine_id(struct options *o, const char *value, const char **why)
{
	static const uint8_t null_id[16];
	uint8_t id[16];
	int r = id128_parse(value, id);

	if (r < 0) {
		*why = "not a machine ID; give 32 hex digits or the 8-4-4-4-12 UUID form";
		goto out;
	}
	/* systemd refuses the null ID too: it means "no ID" everywhere. */
	if (memcmp(id, null_id, sizeof(id)) == 0) {
		*why = "the all-zero ID is not a machine ID";
		r = -EINVAL;
		goto out;
	}
	memcpy(o->machine_id, id, sizeof(id));
	o->has_machine_id = true;
out:
	return r;
}

/* Never "ignored": a security setting that could not be read must stop the boot, not vanish
 * from it (the plan refuses a malformed policy, naming the mistake). */
int cmdline_set_image_policy(struct options *o, const char *value, const char **why)
{
	(void)image_policy_parse(value, &o->image_policy);
	return 0;
}

/* Likewise: a filter that cannot be read stops the boot rather than let every label pass. */
int cmdline_set_image_filter(struct options *o, const char *value, const char **why)
{
	(void)image_filter_parse(value, &o->image_filter);
	return 0;
}
