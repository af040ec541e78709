/* UUID and 128-bit ID text forms. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "uuid.h"

static int hex_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = (char)tolower((unsigned char)c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* Reads 32 hex digits into out, skipping dashes only where the canonical form has them. */
static int parse_hex128(const char *s, uint8_t out[16], bool dashed)
{
	static const unsigned dash_at[] = { 8, 13, 18, 23 };
	unsigned pos = 0, d = 0;

	for (unsigned i = 0; i < 16; i++) {
		int hi, lo;

		if (dashed && d < 4 && pos == dash_at[d]) {
			if (s[pos] != '-')
				return -EINVAL;
			pos++;
			d++;
		}
		hi = hex_value(s[pos]);
		lo = hi < 0 ? -1 : hex_value(s[pos + 1]);
		if (lo < 0)
			return -EINVAL;
		out[i] = (uint8_t)(hi << 4 | lo);
		pos += 2;
	}
	return s[pos] == '\0' ? 0 : -EINVAL;
}

int uuid_parse(const char *s, uint8_t out[16])
{
	return parse_hex128(s, out, true);
}

int id128_parse(const char *s, uint8_t out[16])
{
	return parse_hex128(s, out, strlen(s) == 36);
}

void uuid_format(const uint8_t in[16], char out[UUID_STR_LEN])
{
	snprintf(out, UUID_STR_LEN,
		 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 in[0], in[1], in[2], in[3], in[4], in[5], in[6], in[7],
		 in[8], in[9], in[10], in[11], in[12], in[13], in[14], in[15]);
}

bool uuid_str_equal(const char *a, const char *b)
{
	uint8_t x[16], y[16];

	return uuid_parse(a, x) == 0 && uuid_parse(b, y) == 0 && memcmp(x, y, 16) == 0;
}

int uuid_normalize(char s[UUID_STR_LEN])
{
	uint8_t bytes[16];
	int r = uuid_parse(s, bytes);

	if (r == 0)
		uuid_format(bytes, s);
	return r;
}
