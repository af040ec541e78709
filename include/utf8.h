/* UTF-8 as RFC 3629 has it: no overlong forms, no surrogates, nothing above U+10FFFF. Labels
 * and names read from disks may hold any bytes; what earlymount prints of them is checked here. */
#pragma once

#include <stddef.h>

/* The length of the well-formed sequence at s, of at most avail bytes, or 0 when the bytes
 * there are not one. */
size_t utf8_sequence_length(const unsigned char *s, size_t avail);

/* Replaces each byte of s that starts no well-formed sequence by '?': how many were. */
size_t utf8_sanitize(char *s);
