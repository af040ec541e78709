/* systemd.image_policy= comes from the command line: any bytes must give a policy, or a refusal
 * with a reason that leaves no rule behind; a policy read back from how it is written must
 * mean the same for every partition. (A rule may leave a partition no use at all: "=encrypted"
 * for a verity partition, which cannot be encrypted; systemd refuses such a disk, and so does
 * the planner.) */
#include "fuzz.h"
#include "image_policy.h"

/* p written as the grammar reads it: every rule, then the default. */
static void write_policy(const struct image_policy *p, char *out, size_t size)
{
	char flags[IMAGE_POLICY_FLAGS_TEXT];
	size_t used = 0;

	out[0] = '\0';
	for (int role = 0; role < DPS_ROLE_MAX && used < size; role++) {
		if (!p->listed[role])
			continue;
		image_policy_flags_format(p->flags[role], flags, sizeof(flags));
		used += (size_t)snprintf(out + used, size - used, "%s%s=%s", used ? ":" : "",
					 image_policy_designator(role), flags);
	}
	image_policy_flags_format(p->default_flags, flags, sizeof(flags));
	if (used < size)
		snprintf(out + used, size - used, "%s=%s", used ? ":" : "", flags);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct image_policy p, again;
	static char text[4096], written[4096], rule[256];

	if (size >= sizeof(text))
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (image_policy_parse(text, &p) < 0) {
		FUZZ_CHECK(p.malformed && p.error[0], "refused without a reason");
		for (int role = 0; role < DPS_ROLE_MAX; role++)
			FUZZ_CHECK(!p.listed[role], "a refused policy kept a rule for %d", role);
		return 0;
	}
	write_policy(&p, written, sizeof(written));
	FUZZ_CHECK(image_policy_parse(written, &again) == 0, "'%s' (written from '%s') refused: %s",
		   written, text, again.error);
	for (int role = 0; role < DPS_ROLE_MAX; role++) {
		uint32_t f = image_policy_flags(&p, role);

		FUZZ_CHECK(f == image_policy_flags(&again, role), "'%s' and '%s' differ for %d", text,
			   written, role);
		image_policy_rule(&p, role, rule, sizeof(rule));
		FUZZ_CHECK(memchr(rule, '\0', sizeof(rule)), "rule not terminated");
	}
	return 0;
}
