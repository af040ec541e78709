/* A strict JSON reader (RFC 8259) over a buffer, for the few JSON documents earlymount reads
 * from disks: a signature partition's, a LUKS2 header's. Nothing is allocated; values are
 * taken or skipped as the reader goes. Strict: a number follows the RFC's grammar, every
 * string is well-formed UTF-8 (skipped ones too), and a \u escape of a surrogate comes in a
 * pair (the RFC leaves a lone one to the reader: this one refuses it). */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "json.h"
#include "utf8.h"
#include "util.h"

void json_reader_init(struct json_reader *r, const char *buf, size_t len)
{
	*r = (struct json_reader){ buf, strnlen(buf, len), 0, NULL };
}

bool json_fail(struct json_reader *r, const char *what)
{
	if (!r->error)
		r->error = what;
	return false;
}

void json_skip_space(struct json_reader *r)
{
	while (r->pos < r->len && strchr(" \t\r\n", r->s[r->pos]) && r->s[r->pos])
		r->pos++;
}

bool json_take(struct json_reader *r, char c)
{
	json_skip_space(r);
	if (r->pos < r->len && r->s[r->pos] == c) {
		r->pos++;
		return true;
	}
	return false;
}

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* "uXXXX" at r's position: the code unit, or -1. */
static int code_unit(struct json_reader *r)
{
	int v = 0;

	if (r->pos >= r->len || r->s[r->pos] != 'u' || r->len - r->pos < 5)
		return -1;
	for (int i = 1; i <= 4 && v >= 0; i++) {
		int d = hex_digit(r->s[r->pos + (size_t)i]);

		v = d < 0 ? -1 : v << 4 | d;
	}
	if (v >= 0)
		r->pos += 5;
	return v;
}

/* One escape after the backslash; the character it stands for, '?' for one past ASCII (no
 * field read here holds any), or -1 (\u0000 included, and a surrogate without its pair). */
static int escape(struct json_reader *r)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	const char *e;
	int v, low;

	if (r->pos >= r->len)
		return -1;
	e = strchr(from, r->s[r->pos]);
	if (e && *e) {
		r->pos++;
		return to[e - from];
	}
	v = code_unit(r);
	if (v >= 0xdc00 && v <= 0xdfff)
		return -1; /* a low surrogate first */
	if (v >= 0xd800 && v <= 0xdbff) {
		low = r->len - r->pos >= 2 && r->s[r->pos] == '\\' ? (r->pos++, code_unit(r)) : -1;
		v = low >= 0xdc00 && low <= 0xdfff ? 0x10000 : -1;
	}
	/* a NUL would cut a name or value short of what the JSON says */
	if (v <= 0)
		return -1;
	return v < 0x80 ? v : '?';
}

/* A string, its characters copied to out when out is given; *n its length (the copy is cut
 * at size - 1 but the length counts on). */
bool json_string(struct json_reader *r, char *out, size_t size, size_t *n)
{
	size_t count = 0;

	json_skip_space(r);
	if (r->pos >= r->len || r->s[r->pos] != '"')
		return json_fail(r, "a string expected");
	r->pos++;
	for (;;) {
		int c;

		if (r->pos >= r->len)
			return json_fail(r, "a string is not terminated");
		c = (unsigned char)r->s[r->pos++];
		if (c == '"')
			break;
		if (c < 0x20)
			return json_fail(r, "a control character in a string");
		if (c == '\\' && (c = escape(r)) < 0)
			return json_fail(r, "a malformed escape in a string");
		if (c >= 0x80) {
			size_t seq = utf8_sequence_length((const unsigned char *)r->s + r->pos - 1,
							  r->len - r->pos + 1);

			if (seq == 0)
				return json_fail(r, "a string that is not UTF-8");
			r->pos += seq - 1;
			c = '?'; /* no field read here holds any */
		}
		if (out && count + 1 < size)
			out[count] = (char)c;
		count++;
	}
	if (out && size)
		out[count < size ? count : size - 1] = '\0';
	if (n)
		*n = count;
	return true;
}

static bool skip_value(struct json_reader *r, int depth);

/* How many digits follow at r's position (taken). */
static size_t digits(struct json_reader *r)
{
	size_t n = 0;

	while (r->pos < r->len && r->s[r->pos] >= '0' && r->s[r->pos] <= '9') {
		r->pos++;
		n++;
	}
	return n;
}

static bool at(const struct json_reader *r, const char *chars)
{
	return r->pos < r->len && r->s[r->pos] && strchr(chars, r->s[r->pos]);
}

/* RFC 8259's number: -? (0 | [1-9][0-9]*) (.[0-9]+)? ([eE][+-]?[0-9]+)? */
bool json_number(struct json_reader *r)
{
	bool ok;

	if (at(r, "-"))
		r->pos++;
	ok = at(r, "0") ? (r->pos++, !at(r, "0123456789")) : digits(r) > 0;
	if (ok && at(r, "."))
		ok = (r->pos++, digits(r) > 0);
	if (ok && at(r, "eE")) {
		r->pos++;
		if (at(r, "+-"))
			r->pos++;
		ok = digits(r) > 0;
	}
	return ok;
}

/* The members of an object or the elements of an array, after its opening bracket. */
static bool skip_items(struct json_reader *r, char close, int depth)
{
	if (json_take(r, close))
		return true;
	do {
		if (close == '}' && (!json_string(r, NULL, 0, NULL) || !json_take(r, ':')))
			return json_fail(r, "a member name and ':' expected");
		if (!skip_value(r, depth + 1))
			return false;
	} while (json_take(r, ','));
	return json_take(r, close) || json_fail(r, "',' or a closing bracket expected");
}

static bool skip_value(struct json_reader *r, int depth)
{
	static const char *const literals[] = { "true", "false", "null" };
	size_t start;

	if (depth > JSON_DEPTH_MAX)
		return json_fail(r, "nested too deeply");
	json_skip_space(r);
	if (r->pos >= r->len)
		return json_fail(r, "a value expected");
	switch (r->s[r->pos]) {
	case '"':
		return json_string(r, NULL, 0, NULL);
	case '{':
	case '[':
		r->pos++;
		return skip_items(r, r->s[r->pos - 1] == '{' ? '}' : ']', depth);
	default:
		break;
	}
	for (size_t i = 0; i < ARRAY_SIZE(literals); i++) {
		size_t n = strlen(literals[i]);

		if (r->len - r->pos >= n && memcmp(r->s + r->pos, literals[i], n) == 0) {
			r->pos += n;
			return true;
		}
	}
	start = r->pos;
	return json_number(r) || (r->pos = start, json_fail(r, "a value expected"));
}


bool json_skip(struct json_reader *r)
{
	return skip_value(r, 1);
}

/* Calls fn for each member, the reader at its value, which fn must take or skip. */
bool json_object(struct json_reader *r, json_member_fn *fn, void *data)
{
	char key[JSON_KEY_MAX];
	bool ok = json_take(r, '{') || json_fail(r, "an object expected");

	if (ok && !json_take(r, '}')) {
		do {
			ok = (json_string(r, key, sizeof(key), NULL) && json_take(r, ':')) ||
			     json_fail(r, "a member name and ':' expected");
			ok = ok && fn(r, key, data);
		} while (ok && json_take(r, ','));
		ok = ok && (json_take(r, '}') || json_fail(r, "',' or '}' expected"));
	}
	return ok;
}

bool json_array(struct json_reader *r, json_element_fn *fn, void *data)
{
	size_t i = 0;
	bool ok = json_take(r, '[') || json_fail(r, "an array expected");

	if (ok && !json_take(r, ']')) {
		do
			ok = fn(r, i++, data);
		while (ok && json_take(r, ','));
		ok = ok && (json_take(r, ']') || json_fail(r, "',' or ']' expected"));
	}
	return ok;
}

bool json_u64(struct json_reader *r, uint64_t *out)
{
	size_t start;
	uint64_t v = 0;
	bool ok;

	json_skip_space(r);
	start = r->pos;
	ok = json_number(r) || json_fail(r, "a number expected");
	/* 19 digits stay below 10^19, which a uint64_t holds */
	for (size_t i = start; ok && i < r->pos; i++) {
		ok = r->s[i] >= '0' && r->s[i] <= '9' && i - start < 19;
		v = v * 10 + (uint64_t)(r->s[i] - '0');
	}
	*out = v;
	return ok || json_fail(r, "a whole number of at most 19 digits expected");
}

bool json_end(struct json_reader *r)
{
	json_skip_space(r);
	return r->pos == r->len || json_fail(r, "text after the value");
}

bool json_bool(struct json_reader *r, bool *out)
{
	json_skip_space(r);
	if (r->len - r->pos >= 4 && memcmp(r->s + r->pos, "true", 4) == 0) {
		r->pos += 4;
		*out = true;
	} else if (r->len - r->pos >= 5 && memcmp(r->s + r->pos, "false", 5) == 0) {
		r->pos += 5;
		*out = false;
	} else
		return json_fail(r, "true or false expected");
	return true;
}
