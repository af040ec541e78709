/* The executor's skeleton steps (OP_POPULATE, OP_SKEL_DIR, OP_SKEL_LINK), for
 * execute.c's table of ops. Each returns 0: what it could not do it logs as a warning. */
#pragma once

#include "execute.h"

int execute_populate(const struct plan_step *s, struct execute_ctx *ctx);
int execute_skel_dir(const struct plan_step *s, struct execute_ctx *ctx);
int execute_skel_link(const struct plan_step *s, struct execute_ctx *ctx);
