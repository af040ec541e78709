/* A plan as text for people and as JSON for programs. Pure: writes to the stream it is given.
 * Labels come from disks and may hold any bytes, so both forms escape what they print. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "plan_format.h"
#include "utf8.h"
#include "util.h"

/* A JSON string: quotes and backslashes escaped, control characters as \u00XX, bytes that
 * are not UTF-8 as U+FFFD so the document stays valid. Reads at most max bytes of s. */
static void json_string(FILE *out, const char *s, size_t max)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = s ? strnlen(s, max) : 0;

	fputc('"', out);
	for (size_t i = 0; i < n;) {
		size_t len = utf8_sequence_length(p + i, n - i);

		if (len == 0) {
			fputs("\\ufffd", out);
			i++;
			continue;
		}
		if (p[i] == '"' || p[i] == '\\')
			fprintf(out, "\\%c", p[i]);
		else if (p[i] < 0x20 || p[i] == 0x7f)
			fprintf(out, "\\u%04x", p[i]);
		else
			fwrite(p + i, 1, len, out);
		i += len;
	}
	fputc('"', out);
}

static bool step_has_mode(const struct plan_step *step)
{
	return step->op == OP_MKDIR || step->op == OP_SKEL_DIR;
}

#define JSON_FIELD(out, key, field) \
	do { \
		fputs(", \"" key "\": ", out); \
		json_string(out, field, sizeof(field)); \
	} while (0)

static void json_step(const struct plan_step *step, FILE *out)
{
	fputs("{\"op\": ", out);
	json_string(out, plan_op_name(step->op), PLAN_TEXT);
	JSON_FIELD(out, "source", step->source);
	JSON_FIELD(out, "target", step->target);
	JSON_FIELD(out, "fstype", step->fstype);
	JSON_FIELD(out, "options", step->options);
	if (step_has_mode(step))
		fprintf(out, ", \"mode\": \"%04o\"", step->mode & 07777u);
	if (step->op == OP_VERITY) {
		JSON_FIELD(out, "hash_source", step->hash_source);
		JSON_FIELD(out, "root_hash", step->root_hash);
		if (step->sig_source[0])
			JSON_FIELD(out, "sig_source", step->sig_source);
	}
	if (step->op == OP_UNLOCK) {
		JSON_FIELD(out, "key_file", step->key_file);
		JSON_FIELD(out, "key_device", step->key_device);
		JSON_FIELD(out, "prompt", step->prompt);
	}
	JSON_FIELD(out, "reason", step->reason);
	fputc('}', out);
}

static const char *const need_kinds[] = {
	[NEED_PROGRAM] = "program", [NEED_MODULE] = "module", [NEED_FSCK] = "fsck",
};

static void json_needs(const struct plan *plan, FILE *out)
{
	struct plan_needs needs;

	plan_needs(plan, &needs);
	fputs(",\n  \"needs\": [", out);
	for (size_t i = 0; i < needs.n; i++) {
		fprintf(out, "%s{\"kind\": \"%s\", \"name\": ", i ? ", " : "",
			need_kinds[needs.items[i].kind]);
		json_string(out, needs.items[i].name, sizeof(needs.items[i].name));
		if (needs.items[i].option)
			fprintf(out, ", \"option\": \"%s\"", needs.items[i].option);
		fputc('}', out);
	}
	fputc(']', out);
}

void plan_format_json(const struct plan *plan, FILE *out)
{
	fputs("{\n  \"disk\": ", out);
	if (plan->disk)
		json_string(out, plan->disk->path, sizeof(plan->disk->path));
	else
		fputs("null", out);
	fputs(",\n  \"steps\": [", out);
	for (size_t i = 0; i < plan->n_steps && i < PLAN_MAX_STEPS; i++) {
		fputs(i ? ",\n    " : "\n    ", out);
		json_step(&plan->steps[i], out);
	}
	fputs(plan->n_steps ? "\n  ],\n  \"init\": " : "],\n  \"init\": ", out);
	json_string(out, plan->init, sizeof(plan->init));
	json_needs(plan, out);
	fputs(",\n  \"notes\": [", out);
	for (size_t i = 0; i < plan->n_notes && i < PLAN_MAX_NOTES; i++) {
		fputs(i ? ",\n    " : "\n    ", out);
		json_string(out, plan->notes[i], sizeof(plan->notes[i]));
	}
	fputs(plan->n_notes ? "\n  ]\n}\n" : "]\n}\n", out);
}

/* ---- text ---- */

/* Writes s into buf made safe for a terminal: control characters and bytes that are not
 * UTF-8 as \xNN, "-" when empty. Returns its width in characters, for alignment. */
static size_t escape_text(char *buf, size_t size, const char *s, size_t max)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strnlen(s, max), used = 0, width = 0;

	for (size_t i = 0; i < n && used + 5 <= size;) {
		size_t len = utf8_sequence_length(p + i, n - i);

		if (len == 0 || p[i] < 0x20 || p[i] == 0x7f) {
			used += (size_t)snprintf(buf + used, size - used, "\\x%02x", p[i]);
			width += 4;
			i++;
			continue;
		}
		memcpy(buf + used, p + i, len);
		used += len;
		width++;
		i += len;
	}
	if (used == 0) {
		buf[used++] = '-';
		width = 1;
	}
	buf[used] = '\0';
	return width;
}

#define ESCAPE_TEXT(buf, field) escape_text((buf), sizeof(buf), (field), sizeof(field))

enum { COL_OP, COL_SOURCE, COL_TARGET, COL_FSTYPE, COL_MAX };

struct column {
	char text[PLAN_PATH * 4 + 1];
	size_t width;
};

static void step_columns(const struct plan_step *step, struct column cols[COL_MAX])
{
	cols[COL_OP].width = escape_text(cols[COL_OP].text, sizeof(cols[COL_OP].text), plan_op_name(step->op),
					 PLAN_TEXT);
	cols[COL_SOURCE].width = ESCAPE_TEXT(cols[COL_SOURCE].text, step->source);
	cols[COL_TARGET].width = ESCAPE_TEXT(cols[COL_TARGET].text, step->target);
	cols[COL_FSTYPE].width = ESCAPE_TEXT(cols[COL_FSTYPE].text, step->fstype);
}

static void pad(FILE *out, size_t n)
{
	while (n--)
		fputc(' ', out);
}

/* Where an unlock's key comes from: never the key itself, which the plan does not know. */
static void text_key(const struct plan_step *step, FILE *out)
{
	char long_text[PLAN_PATH * 4 + 1];

	if (!step->key_file[0]) {
		fputs("key=passphrase", out);
	} else {
		ESCAPE_TEXT(long_text, step->key_file);
		fprintf(out, "keyfile=%s", long_text);
		if (step->key_device[0]) {
			ESCAPE_TEXT(long_text, step->key_device);
			fprintf(out, ":%s", long_text);
		}
	}
	fputs(step->options[0] ? " " : "", out);
}

static void text_step(const struct plan_step *step, const size_t width[COL_MAX], FILE *out)
{
	struct column cols[COL_MAX];
	char long_text[PLAN_OPTIONS * 4 + 1];

	step_columns(step, cols);
	fputs("  ", out);
	for (int c = 0; c < COL_MAX; c++) {
		fputs(cols[c].text, out);
		pad(out, width[c] - cols[c].width + 2);
	}
	if (step_has_mode(step))
		fprintf(out, "mode=%04o%s", step->mode & 07777u, step->options[0] ? "," : "");
	if (step->op == OP_VERITY) {
		ESCAPE_TEXT(long_text, step->hash_source);
		fprintf(out, "hash=%s ", long_text);
		ESCAPE_TEXT(long_text, step->root_hash);
		fprintf(out, "roothash=%s", long_text);
		if (step->sig_source[0]) {
			ESCAPE_TEXT(long_text, step->sig_source);
			fprintf(out, " signature=%s", long_text);
		}
		fputs(step->options[0] ? " " : "", out);
	}
	if (step->op == OP_UNLOCK)
		text_key(step, out);
	if ((!step_has_mode(step) && step->op != OP_VERITY && step->op != OP_UNLOCK) ||
	    step->options[0]) {
		ESCAPE_TEXT(long_text, step->options);
		fputs(long_text, out);
	}
	fputc('\n', out);
	if (step->reason[0]) {
		ESCAPE_TEXT(long_text, step->reason);
		pad(out, 2 + width[COL_OP] + 2);
		fprintf(out, "%s\n", long_text);
	}
}

static void text_steps(const struct plan *plan, FILE *out)
{
	struct column cols[COL_MAX];
	size_t width[COL_MAX] = { 0 }, n = plan->n_steps < PLAN_MAX_STEPS ? plan->n_steps : PLAN_MAX_STEPS;

	for (size_t i = 0; i < n; i++) {
		step_columns(&plan->steps[i], cols);
		for (int c = 0; c < COL_MAX; c++)
			if (cols[c].width > width[c])
				width[c] = cols[c].width;
	}
	for (size_t i = 0; i < n; i++)
		text_step(&plan->steps[i], width, out);
}

/* "init: /sbin/init (fallbacks /etc/init, /bin/init, /bin/sh)" when init= was not given. */
static void text_init(const struct plan *plan, FILE *out)
{
	char text[PLAN_PATH * 4 + 1];

	if (plan->init[0]) {
		ESCAPE_TEXT(text, plan->init);
		fprintf(out, "init: %s\n", text);
	} else if (plan_default_inits[0]) {
		fprintf(out, "init: %s", plan_default_inits[0]);
		for (size_t i = 1; plan_default_inits[i]; i++)
			fprintf(out, "%s%s", i == 1 ? " (fallbacks " : ", ", plan_default_inits[i]);
		fputs(plan_default_inits[1] ? ")\n" : "\n", out);
	}
}

/* "needs: lvm (--lvm); modules dm_mod, ext4; checkers fsck.ext4": what the initramfs must hold. */
static void text_needs(const struct plan *plan, FILE *out)
{
	static const char *const heads[] = {
		[NEED_PROGRAM] = "", [NEED_MODULE] = "modules ", [NEED_FSCK] = "checkers ",
	};
	struct plan_needs needs;
	/* a module's or checker's name comes from a probed filesystem type: any bytes */
	char name[4 * sizeof(needs.items[0].name) + 1];
	bool any = false;

	plan_needs(plan, &needs);
	for (int kind = NEED_PROGRAM; kind <= NEED_FSCK; kind++) {
		bool first = true;

		for (size_t i = 0; i < needs.n; i++) {
			const struct plan_need *n = &needs.items[i];

			if ((int)n->kind != kind)
				continue;
			ESCAPE_TEXT(name, n->name);
			fprintf(out, "%s%s%s", first ? (any ? "; " : "needs: ") : ", ",
				first ? heads[kind] : "", name);
			if (n->option)
				fprintf(out, " (%s)", n->option);
			first = false;
			any = true;
		}
	}
	if (any)
		fputc('\n', out);
}

void plan_format_text(const struct plan *plan, FILE *out)
{
	char text[PATH_MAX * 4 + 1];

	if (plan->disk) {
		ESCAPE_TEXT(text, plan->disk->path);
		fprintf(out, "disk: %s", text);
		if (plan->disk->pttype[0])
			fprintf(out, " (%.8s%s%.37s)", plan->disk->pttype, plan->disk->ptuuid[0] ? " " : "",
				plan->disk->ptuuid);
		fputc('\n', out);
	} else {
		fputs("disk: none discovered\n", out);
	}
	fputs("steps:\n", out);
	text_steps(plan, out);
	text_init(plan, out);
	text_needs(plan, out);
	if (plan->n_notes)
		fputs("notes:\n", out);
	for (size_t i = 0; i < plan->n_notes && i < PLAN_MAX_NOTES; i++) {
		ESCAPE_TEXT(text, plan->notes[i]);
		fprintf(out, "  - %s\n", text);
	}
}
