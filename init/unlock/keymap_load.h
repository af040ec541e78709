/* The keyboard's layout for the passphrase prompt, from a keymap the image carries. */
#pragma once

#include "cmdline.h"

/* Loads rd.vconsole.keymap='s keymap, else the image's default one, into the kernel's
 * keyboard translation (the VTs'; a serial console carries characters, not keys). Nothing
 * when the image carries none; a failure is said, and the kernel's US layout stays. */
void keymap_load(const struct options *o);
