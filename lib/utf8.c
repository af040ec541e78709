/* UTF-8 checks for text that came from disks. */
#include <string.h>

#include "utf8.h"

size_t utf8_sequence_length(const unsigned char *s, size_t avail)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t len;

	if (avail == 0)
		return 0;
	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4;
	else
		return 0;
	if (len > avail)
		return 0;
	/* the second byte's range rules out the overlong forms and the surrogates */
	if (s[0] == 0xe0)
		lo = 0xa0;
	else if (s[0] == 0xed)
		hi = 0x9f;
	else if (s[0] == 0xf0)
		lo = 0x90;
	else if (s[0] == 0xf4)
		hi = 0x8f;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return len;
}

size_t utf8_sanitize(char *s)
{
	unsigned char *p = (unsigned char *)s;
	size_t left = strlen(s);
	size_t replaced = 0;

	while (left > 0) {
		size_t len = utf8_sequence_length(p, left);

		if (len == 0) {
			*p = '?';
			replaced++;
			len = 1;
		}
		p += len;
		left -= len;
	}
	return replaced;
}
