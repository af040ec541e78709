/* RFC 4648 base64, as systemd writes it in signature JSON and binary credentials. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Decodes the n characters at in, padded to a multiple of four and without line breaks,
 * into out (size bytes); false when they are not base64 or do not fit. */
bool base64_decode(const char *in, size_t n, uint8_t *out, size_t size, size_t *len);
/* Encodes n bytes as padded base64 text into out, terminated: its length, or 0 when it does
 * not fit in size bytes. */
size_t base64_encode(const uint8_t *in, size_t n, char *out, size_t size);
