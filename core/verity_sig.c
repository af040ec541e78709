/* A strict reader for the one flat JSON object of a signature partition (RFC 8259): the two
 * fields it needs are taken, any other value is skipped, and nothing is allocated. Strict: a
 * number follows the RFC's grammar, every string is well-formed UTF-8 (skipped ones too), and
 * a \u escape of a surrogate comes in a pair (the RFC leaves a lone one to the reader: this
 * one refuses it). */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "base64.h"
#include "utf8.h"
#include "util.h"
#include "verity_sig.h"

#define KEY_MAX 32

struct reader {
	const char *s;
	size_t len;
	size_t pos;
	const char *error; /* the first problem, for why */
};

static bool fail_at(struct reader *r, const char *what)
{
	if (!r->error)
		r->error = what;
	return false;
}

static void skip_space(struct reader *r)
{
	while (r->pos < r->len && strchr(" \t\r\n", r->s[r->pos]) && r->s[r->pos])
		r->pos++;
}

static bool take(struct reader *r, char c)
{
	skip_space(r);
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
static int code_unit(struct reader *r)
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
static int escape(struct reader *r)
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
static bool string(struct reader *r, char *out, size_t size, size_t *n)
{
	size_t count = 0;

	skip_space(r);
	if (r->pos >= r->len || r->s[r->pos] != '"')
		return fail_at(r, "a string expected");
	r->pos++;
	for (;;) {
		int c;

		if (r->pos >= r->len)
			return fail_at(r, "a string is not terminated");
		c = (unsigned char)r->s[r->pos++];
		if (c == '"')
			break;
		if (c < 0x20)
			return fail_at(r, "a control character in a string");
		if (c == '\\' && (c = escape(r)) < 0)
			return fail_at(r, "a malformed escape in a string");
		if (c >= 0x80) {
			size_t seq = utf8_sequence_length((const unsigned char *)r->s + r->pos - 1,
							  r->len - r->pos + 1);

			if (seq == 0)
				return fail_at(r, "a string that is not UTF-8");
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

static bool skip_value(struct reader *r, int depth);

/* How many digits follow at r's position (taken). */
static size_t digits(struct reader *r)
{
	size_t n = 0;

	while (r->pos < r->len && r->s[r->pos] >= '0' && r->s[r->pos] <= '9') {
		r->pos++;
		n++;
	}
	return n;
}

static bool at(const struct reader *r, const char *chars)
{
	return r->pos < r->len && r->s[r->pos] && strchr(chars, r->s[r->pos]);
}

/* RFC 8259's number: -? (0 | [1-9][0-9]*) (.[0-9]+)? ([eE][+-]?[0-9]+)? */
static bool number(struct reader *r)
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
static bool skip_items(struct reader *r, char close, int depth)
{
	if (take(r, close))
		return true;
	do {
		if (close == '}' && (!string(r, NULL, 0, NULL) || !take(r, ':')))
			return fail_at(r, "a member name and ':' expected");
		if (!skip_value(r, depth + 1))
			return false;
	} while (take(r, ','));
	return take(r, close) || fail_at(r, "',' or a closing bracket expected");
}

static bool skip_value(struct reader *r, int depth)
{
	static const char *const literals[] = { "true", "false", "null" };
	size_t start;

	if (depth > VERITY_SIG_DEPTH_MAX)
		return fail_at(r, "nested too deeply");
	skip_space(r);
	if (r->pos >= r->len)
		return fail_at(r, "a value expected");
	switch (r->s[r->pos]) {
	case '"':
		return string(r, NULL, 0, NULL);
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
	return number(r) || (r->pos = start, fail_at(r, "a value expected"));
}

/* The two fields the specification gives a meaning to; the rest is skipped. */
static bool member(struct reader *r, struct verity_sig *sig, bool *seen_hash, bool *seen_sig,
		   char *b64, size_t b64_size)
{
	char key[KEY_MAX];
	size_t n = 0;

	if (!string(r, key, sizeof(key), NULL) || !take(r, ':'))
		return fail_at(r, "a member name and ':' expected");
	if (streq(key, "rootHash")) {
		if (*seen_hash)
			return fail_at(r, "rootHash given twice");
		*seen_hash = true;
		if (!string(r, sig->root_hash, sizeof(sig->root_hash), &n))
			return false;
		if (n >= sizeof(sig->root_hash) || verity_hash_check(sig->root_hash) < 0)
			return fail_at(r, "rootHash is not a root hash in hex");
		return true;
	}
	if (streq(key, "signature")) {
		if (*seen_sig)
			return fail_at(r, "signature given twice");
		*seen_sig = true;
		if (!string(r, b64, b64_size, &n))
			return false;
		if (n >= b64_size || !base64_decode(b64, n, sig->signature, sizeof(sig->signature),
						    &sig->signature_len))
			return fail_at(r, "signature is not base64, or larger than 16 KiB");
		return true;
	}
	return skip_value(r, 1);
}

int verity_sig_parse(const char *buf, size_t len, struct verity_sig *sig, char *why,
		     size_t why_size)
{
	char b64[VERITY_SIG_MAX / 3 * 4 + 8];
	struct reader r = { buf, strnlen(buf, len), 0, NULL };
	bool seen_hash = false, seen_sig = false, ok;

	memset(sig, 0, sizeof(*sig));
	ok = take(&r, '{') || fail_at(&r, "not a JSON object");
	if (ok && !take(&r, '}')) {
		do
			ok = member(&r, sig, &seen_hash, &seen_sig, b64, sizeof(b64));
		while (ok && take(&r, ','));
		ok = ok && (take(&r, '}') || fail_at(&r, "',' or '}' expected"));
	}
	skip_space(&r);
	if (ok && r.pos != r.len)
		ok = fail_at(&r, "text after the object");
	if (ok && !seen_hash)
		ok = fail_at(&r, "no rootHash");
	if (ok && !seen_sig)
		ok = fail_at(&r, "no signature");
	if (ok)
		return 0;
	set_why(why, why_size, "%s (at byte %zu)", r.error, r.pos);
	memset(sig, 0, sizeof(*sig));
	return -EINVAL;
}
