/* Prints a plan for people or, as JSON, for programs. */
#pragma once

#include <stdio.h>

#include "plan.h"

void plan_format_text(const struct plan *plan, FILE *out);
/* {"disk": "...", "steps": [{"op", "source", "target", "fstype", "options", "reason"}...],
 *  "init": "...", "notes": [...]} */
void plan_format_json(const struct plan *plan, FILE *out);
