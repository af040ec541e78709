/* kbd's binary keymap ("loadkeys -b"): the magic "bkeymap", a byte for each of the 256
 * keymaps (modifier combinations) saying whether it follows, then for each that does 128
 * native-endian 16-bit entries, one a key code. What busybox's loadkeys reads too. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#define BKEYMAP_MAGIC "bkeymap"
#define BKEYMAP_MAPS 256
#define BKEYMAP_KEYS 128

/* Called for each entry: keymap (table), key code (index), keysym value. */
typedef int bkeymap_entry_fn(unsigned table, unsigned index, uint16_t value, void *data);

/* The entries of a binary keymap of len bytes, or -EINVAL when the bytes are not one (no
 * magic, cut short, bytes past its end). */
int bkeymap_check(const uint8_t *bytes, size_t len);

/* Walks the entries of a binary keymap of len bytes: the entries' count, -EINVAL when the
 * bytes are not one (no magic, cut short, bytes past its end), or what fn returned (< 0). */
int bkeymap_walk(const uint8_t *bytes, size_t len, bkeymap_entry_fn *fn, void *data);
