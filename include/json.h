/* A strict JSON reader (RFC 8259) over a buffer, nothing allocated: see json.c. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define JSON_DEPTH_MAX 16
#define JSON_KEY_MAX 64 /* member names are cut to this, terminator included */

struct json_reader {
	const char *s;
	size_t len;
	size_t pos;
	const char *error; /* the first problem, for a message */
};

/* Reads len bytes of buf, or up to its first NUL. */
void json_reader_init(struct json_reader *r, const char *buf, size_t len);

/* Keeps what as the reader's first error: false, for `return json_fail(r, "…")`. */
bool json_fail(struct json_reader *r, const char *what);
void json_skip_space(struct json_reader *r);
/* Takes c after any space: whether it was there. */
bool json_take(struct json_reader *r, char c);
/* A string, its characters copied to out when out is given (past ASCII as '?'); *n its
 * length (the copy is cut at size - 1 but the length counts on). */
bool json_string(struct json_reader *r, char *out, size_t size, size_t *n);
/* A number, as the RFC's grammar has it (at the reader's position, no space before). */
bool json_number(struct json_reader *r);
/* Any value, nested at most JSON_DEPTH_MAX deep. */
bool json_skip(struct json_reader *r);

/* One member of an object: the reader is at its value, which must be taken or skipped. */
typedef bool json_member_fn(struct json_reader *r, const char *key, void *data);
bool json_object(struct json_reader *r, json_member_fn *fn, void *data);

/* One element of an array, the index-th: the reader is at it. */
typedef bool json_element_fn(struct json_reader *r, size_t index, void *data);
bool json_array(struct json_reader *r, json_element_fn *fn, void *data);

/* A whole number without sign, fraction or exponent, below 10^19 (space before it taken). */
bool json_u64(struct json_reader *r, uint64_t *out);

/* true or false (space before it taken). */
bool json_bool(struct json_reader *r, bool *out);

/* Only space is left. */
bool json_end(struct json_reader *r);
