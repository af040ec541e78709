/* Checks on a fixture's plan for the planner's tests; include after cmocka.h and
 * plan_fixtures.h. A failure prints the plan first. */
#pragma once

/* Plans with the options of a command line, which must parse; without fsck steps, which
 * test_plan_fsck.c counts. */
static inline int plan_with(struct fixture *f, const char *line)
{
	assert_int_equal(cmdline_parse(line, &f->opts, NULL, 0), 0);
	f->opts.fsck_mode = FSCK_SKIP;
	return fx_plan(f);
}

static inline void want_ok(struct fixture *f, int r, size_t n_steps)
{
	if (r != 0 || f->plan.n_steps != n_steps) {
		fx_dump(f);
		fail_msg("want 0 and %zu steps; got %d and %zu", n_steps, r, f->plan.n_steps);
	}
}

static inline void want_error(const struct fixture *f, int r, int want, const char *text)
{
	if (r != want || !strstr(f->plan.error, text)) {
		fx_dump(f);
		fail_msg("want %d and an error with '%s'; got %d", want, text, r);
	}
}

static inline void want_note(struct fixture *f, const char *text)
{
	if (!fx_has_note(f, text)) {
		fx_dump(f);
		fail_msg("no note contains '%s'", text);
	}
}

/* Step i is op from source to target with fstype; returns it. */
static inline const struct plan_step *want_step(struct fixture *f, size_t i, enum plan_op op,
					 const char *source, const char *target, const char *fstype)
{
	const struct plan_step *s = &f->plan.steps[i];

	if (i >= f->plan.n_steps || s->op != op || strcmp(s->source, source) != 0 ||
	    strcmp(s->target, target) != 0 || strcmp(s->fstype, fstype) != 0) {
		fx_dump(f);
		fail_msg("step %zu: want %s %s -> %s (%s)", i, plan_op_name(op), source, target, fstype);
	}
	return s;
}
