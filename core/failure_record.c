/* The failure record's text (see failure_record.h). Pure. Its reader assumes nothing of the
 * bytes it gets: they come from NVRAM or from RAM that survived a reset, and a firmware, a
 * cut power or another writer may have left anything there. */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "failure_record.h"
#include "utf8.h"
#include "util.h"

#define CHECK_KEY "check"
/* "check " and the digits and the newline: what the check line takes of the cap */
#define CHECK_LINE_LEN (sizeof(CHECK_KEY) + FAILURE_RECORD_DIGEST_HEX + 1)

static const struct field {
	const char *key;
	size_t offset, size;
	bool required;
	bool digest; /* FAILURE_RECORD_DIGEST_HEX lower-case hex digits */
} fields[] = {
	/* in the record's order; the message last, the one field cut to fit */
	{ "version", offsetof(struct failure_record, version), sizeof(((struct failure_record *)0)->version), false, false },
	{ "stage", offsetof(struct failure_record, stage), sizeof(((struct failure_record *)0)->stage), true, false },
	{ "action", offsetof(struct failure_record, action), sizeof(((struct failure_record *)0)->action), true, false },
	{ "device", offsetof(struct failure_record, device), sizeof(((struct failure_record *)0)->device), false, false },
	{ "cmdline", offsetof(struct failure_record, cmdline), sizeof(((struct failure_record *)0)->cmdline), false, true },
	{ "plan", offsetof(struct failure_record, plan), sizeof(((struct failure_record *)0)->plan), false, true },
	{ "message", offsetof(struct failure_record, message), sizeof(((struct failure_record *)0)->message), true, false },
};

static const char *field_in(const struct failure_record *rec, const struct field *f)
{
	return (const char *)rec + f->offset;
}

void failure_record_hex(const uint8_t digest[SHA256_DIGEST_SIZE],
			char out[FAILURE_RECORD_DIGEST_HEX + 1])
{
	static const char hex[] = "0123456789abcdef";

	for (size_t i = 0; i < FAILURE_RECORD_DIGEST_HEX / 2; i++) {
		out[2 * i] = hex[digest[i] >> 4];
		out[2 * i + 1] = hex[digest[i] & 0xf];
	}
	out[FAILURE_RECORD_DIGEST_HEX] = '\0';
}

/* --- writing --- */

struct writer {
	char *out;
	size_t len; /* bytes written; out[len] is the NUL */
};

/* Copies src into w, at most room bytes, as a line may hold it: a control character becomes a
 * space, a byte that starts no UTF-8 sequence '?', and a sequence is never cut in half. Whether
 * all of src went in. */
static bool put_clean(struct writer *w, const char *src, size_t room)
{
	const unsigned char *s = (const unsigned char *)src;
	size_t left = strlen(src), used = 0;

	while (left > 0) {
		size_t n = s[0] < 0x80 ? 1 : utf8_sequence_length(s, left);
		size_t step = n ? n : 1;

		if (used + step > room)
			break;
		if (n == 0)
			w->out[w->len] = '?';
		else if (n == 1 && (s[0] < 0x20 || s[0] == 0x7f))
			w->out[w->len] = ' ';
		else
			memcpy(w->out + w->len, s, n);
		w->len += step;
		used += step;
		s += step;
		left -= step;
	}
	w->out[w->len] = '\0';
	return left == 0;
}

static void put_raw(struct writer *w, const char *s)
{
	size_t n = strlen(s);

	memcpy(w->out + w->len, s, n + 1);
	w->len += n;
}

/* "KEY VALUE\n", the value at most room bytes, marked "..." when cut. */
static void put_line(struct writer *w, const char *key, const char *value, size_t room)
{
	size_t start;

	put_raw(w, key);
	put_raw(w, " ");
	start = w->len;
	if (!put_clean(w, value, room)) {
		w->len = start;
		put_clean(w, value, room - 3);
		put_raw(w, "...");
	}
	put_raw(w, "\n");
}

int failure_record_encode(const struct failure_record *rec, char *out, size_t size)
{
	struct writer w = { out, 0 };
	char header[32];
	uint8_t digest[SHA256_DIGEST_SIZE];
	char hex[FAILURE_RECORD_DIGEST_HEX + 1];

	if (size < FAILURE_RECORD_MAX + 1)
		return -ENOSPC;
	for (size_t i = 0; i < ARRAY_SIZE(fields); i++)
		if (fields[i].required && !field_in(rec, &fields[i])[0])
			return -EINVAL;
	snprintf(header, sizeof(header), "%s %d\n", FAILURE_RECORD_MAGIC, FAILURE_RECORD_VERSION);
	put_raw(&w, header);
	/* the fields before the message fit whole, whatever they hold: their sizes add up to
	 * well under the cap (a test checks it), so only the message is ever cut */
	for (size_t i = 0; i < ARRAY_SIZE(fields); i++) {
		const char *value = field_in(rec, &fields[i]);
		size_t key_len = strlen(fields[i].key);
		size_t room = fields[i].size - 1;

		if (!value[0])
			continue;
		if (i == ARRAY_SIZE(fields) - 1)
			room = FAILURE_RECORD_MAX - CHECK_LINE_LEN - w.len - key_len - 2;
		put_line(&w, fields[i].key, value, room);
	}
	sha256(out, w.len, digest);
	failure_record_hex(digest, hex);
	put_line(&w, CHECK_KEY, hex, FAILURE_RECORD_DIGEST_HEX);
	return (int)w.len;
}

/* --- reading --- */

static bool is_hex_digest(const char *s, size_t len)
{
	if (len != FAILURE_RECORD_DIGEST_HEX)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

/* A line's bytes (its newline not among them): printable, well-formed UTF-8. */
static bool line_is_text(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;

	while (len > 0) {
		size_t n = utf8_sequence_length(p, len);

		if (n == 0 || (n == 1 && (p[0] < 0x20 || p[0] == 0x7f)))
			return false;
		p += n;
		len -= n;
	}
	return true;
}

static bool key_is_word(const char *s, size_t len)
{
	if (len == 0)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '-'))
			return false;
	return true;
}

/* "earlymount-failure N": 0 for this version, -EPROTONOSUPPORT for a later one. */
static int read_header(const char *line, size_t len)
{
	size_t magic = strlen(FAILURE_RECORD_MAGIC);
	uint64_t version = 0;

	if (len <= magic + 1 || memcmp(line, FAILURE_RECORD_MAGIC " ", magic + 1) != 0 ||
	    parse_decimal(line + magic + 1, len - magic - 1, 1000000, &version) < 0 || version == 0)
		return -EBADMSG;
	return version == FAILURE_RECORD_VERSION ? 0 : version > FAILURE_RECORD_VERSION ? -EPROTONOSUPPORT
											: -EBADMSG;
}

/* The check line ends the record: the digest of every byte before it. */
static int read_check(const char *data, size_t len, size_t *body_len)
{
	size_t start = len - 1;
	uint8_t digest[SHA256_DIGEST_SIZE];
	char want[FAILURE_RECORD_DIGEST_HEX + 1];

	while (start > 0 && data[start - 1] != '\n')
		start--;
	if (start == 0 || len - start != CHECK_LINE_LEN ||
	    memcmp(data + start, CHECK_KEY " ", sizeof(CHECK_KEY)) != 0)
		return -EBADMSG;
	sha256(data, start, digest);
	failure_record_hex(digest, want);
	if (memcmp(data + start + sizeof(CHECK_KEY), want, FAILURE_RECORD_DIGEST_HEX) != 0)
		return -EBADMSG;
	*body_len = start;
	return 0;
}

/* One "KEY VALUE" line into rec; seen counts the fields read. */
static int read_field(const char *line, size_t len, struct failure_record *rec,
		      bool seen[ARRAY_SIZE(fields)])
{
	const char *space = memchr(line, ' ', len);
	size_t key_len = space ? (size_t)(space - line) : len;
	const char *value = space ? space + 1 : line + len;
	size_t value_len = (size_t)(line + len - value);

	if (!key_is_word(line, key_len) || !line_is_text(line, len))
		return -EBADMSG;
	for (size_t i = 0; i < ARRAY_SIZE(fields); i++) {
		const struct field *f = &fields[i];

		if (strlen(f->key) != key_len || memcmp(f->key, line, key_len) != 0)
			continue;
		if (seen[i] || value_len == 0 || value_len >= f->size ||
		    (f->digest && !is_hex_digest(value, value_len)))
			return -EBADMSG;
		memcpy((char *)rec + f->offset, value, value_len);
		seen[i] = true;
		return 0;
	}
	return 0; /* a later version's field */
}

static int decode(const char *data, size_t len, struct failure_record *rec)
{
	bool seen[ARRAY_SIZE(fields)] = { false };
	const char *end = data + len;
	const char *nl = len ? memchr(data, '\n', len) : NULL;
	size_t body_len;
	int r;

	if (len == 0 || len > FAILURE_RECORD_MAX || data[len - 1] != '\n' || !nl)
		return -EBADMSG;
	r = read_header(data, (size_t)(nl - data));
	if (r < 0)
		return r;
	r = read_check(data, len, &body_len);
	if (r < 0)
		return r;
	end = data + body_len;
	for (const char *line = nl + 1; line < end; line = nl + 1) {
		nl = memchr(line, '\n', (size_t)(end - line));
		r = read_field(line, (size_t)(nl - line), rec, seen);
		if (r < 0)
			return r;
	}
	for (size_t i = 0; i < ARRAY_SIZE(fields); i++)
		if (fields[i].required && !seen[i])
			return -EBADMSG;
	return 0;
}

int failure_record_decode(const char *data, size_t len, struct failure_record *rec)
{
	int r;

	memset(rec, 0, sizeof(*rec));
	r = decode(data, len, rec);
	if (r < 0)
		memset(rec, 0, sizeof(*rec));
	return r;
}

/* Where the record that begins at data ends: after its check line, or 0 when none comes
 * within the cap. */
static size_t record_end(const char *data, size_t len)
{
	size_t max = len < FAILURE_RECORD_MAX ? len : FAILURE_RECORD_MAX;

	for (size_t at = 0; at < max;) {
		const char *nl = memchr(data + at, '\n', max - at);
		size_t next;

		if (!nl)
			break;
		next = (size_t)(nl - data) + 1;
		if (max - at > sizeof(CHECK_KEY) && memcmp(data + at, CHECK_KEY " ", sizeof(CHECK_KEY)) == 0)
			return next;
		at = next;
	}
	return 0;
}

int failure_record_find(const char *data, size_t len, struct failure_record *rec, size_t *at,
			size_t *rec_len)
{
	static const char magic[] = FAILURE_RECORD_MAGIC " ";
	struct failure_record found;
	int r = -ENOENT;

	memset(rec, 0, sizeof(*rec));
	for (size_t i = 0; i + sizeof(magic) - 1 <= len; i++) {
		size_t end;

		/* anywhere, not only at a line's start: the writer before may not have ended its
		 * line, and the check rules out a record made of another's bytes */
		if (memcmp(data + i, magic, sizeof(magic) - 1) != 0)
			continue;
		end = record_end(data + i, len - i);
		if (end && failure_record_decode(data + i, end, &found) == 0) {
			*rec = found;
			*at = i;
			*rec_len = end;
			r = 0;
		} else if (r == -ENOENT) {
			r = -EBADMSG;
		}
	}
	return r;
}

int failure_record_describe(const struct failure_record *rec, char *buf, size_t size)
{
	return snprintf(buf, size,
			"the last boot failed at stage %s%s%s: %s (then %s; earlymount %s, command line "
			"%s, plan %s)",
			rec->stage, rec->device[0] ? " on " : "", rec->device, rec->message, rec->action,
			rec->version[0] ? rec->version : "of an unknown version",
			rec->cmdline[0] ? rec->cmdline : "unknown", rec->plan[0] ? rec->plan : "none");
}
