/* UUIDs and 128-bit IDs in their text forms. Pure. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#define UUID_STR_LEN 37 /* 36 characters and the terminator */

/* Parses "8-4-4-4-12" hex, any case, into big-endian bytes. 0 or -EINVAL. */
int uuid_parse(const char *s, uint8_t out[16]);

/* Parses a machine ID: 32 hex digits, or the "8-4-4-4-12" form. 0 or -EINVAL. */
int id128_parse(const char *s, uint8_t out[16]);

/* Formats as lower-case "8-4-4-4-12". */
void uuid_format(const uint8_t in[16], char out[UUID_STR_LEN]);

/* Case-insensitive equality of two UUID strings (false when either is malformed). */
bool uuid_str_equal(const char *a, const char *b);

/* Lower-cases a UUID string in place into canonical form; -EINVAL when malformed. */
int uuid_normalize(char s[UUID_STR_LEN]);
