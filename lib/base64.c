/* RFC 4648 base64 decoding. */
#include <string.h>

#include "base64.h"

static int base64_value(char c)
{
	static const char alphabet[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	const char *p = c ? strchr(alphabet, c) : NULL;

	return p ? (int)(p - alphabet) : -1;
}

bool base64_decode(const char *in, size_t n, uint8_t *out, size_t size, size_t *len)
{
	size_t used = 0;

	if (n == 0 || n % 4)
		return false;
	for (size_t i = 0; i < n; i += 4) {
		const char *q = in + i;
		/* '=' only ends the last group: "xx==" or "xxx=" */
		unsigned pads = i + 4 == n ? (q[3] == '=') + (q[3] == '=' && q[2] == '=') : 0;
		int v[4] = { 0, 0, 0, 0 };

		for (unsigned k = 0; k < 4 - pads; k++)
			if ((v[k] = base64_value(q[k])) < 0)
				return false;
		if (used + 3 - pads > size)
			return false;
		out[used++] = (uint8_t)(v[0] << 2 | v[1] >> 4);
		if (pads < 2)
			out[used++] = (uint8_t)(v[1] << 4 | v[2] >> 2);
		if (pads < 1)
			out[used++] = (uint8_t)(v[2] << 6 | v[3]);
	}
	*len = used;
	return true;
}

size_t base64_encode(const uint8_t *in, size_t n, char *out, size_t size)
{
	static const char alphabet[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t need = (n + 2) / 3 * 4, o = 0;

	if (need + 1 > size)
		return 0;
	for (size_t i = 0; i < n; i += 3) {
		uint32_t v = (uint32_t)in[i] << 16 | (i + 1 < n ? (uint32_t)in[i + 1] << 8 : 0) |
			     (i + 2 < n ? in[i + 2] : 0);

		out[o++] = alphabet[v >> 18 & 63];
		out[o++] = alphabet[v >> 12 & 63];
		out[o++] = i + 1 < n ? alphabet[v >> 6 & 63] : '=';
		out[o++] = i + 2 < n ? alphabet[v & 63] : '=';
	}
	out[o] = '\0';
	return o;
}
