/* The plan's digest, for the record a failed boot leaves (failure_record.h): what the boot was
 * carrying out, comparable with `earlymount plan --json` of the same disks and command line. */
#include <string.h>

#include "plan.h"
#include "sha256.h"

static void add_field(struct sha256_ctx *ctx, const char *s, char end)
{
	sha256_update(ctx, s, strlen(s));
	sha256_update(ctx, &end, 1);
}

void plan_digest(const struct plan *plan, uint8_t digest[SHA256_DIGEST_SIZE])
{
	struct sha256_ctx ctx;

	sha256_init(&ctx);
	/* the fields that say what a step does, not why (its reason counts disks and names
	 * labels), so that the same inputs give the same digest */
	for (size_t i = 0; i < plan->n_steps; i++) {
		const struct plan_step *s = &plan->steps[i];

		add_field(&ctx, plan_op_name(s->op), '\t');
		add_field(&ctx, s->source, '\t');
		add_field(&ctx, s->target, '\t');
		add_field(&ctx, s->fstype, '\t');
		add_field(&ctx, s->options, '\n');
	}
	sha256_final(&ctx, digest);
}
