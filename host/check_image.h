/* What an initramfs image holds, for `earlymount check`: its /init, the programs and
 * modules it carries, the modules its kernel has built in. */
#pragma once

#include <stdbool.h>

#include "name_list.h"

struct image_contents {
	bool has_init;
	bool init_is_earlymount;  /* /init is a build of earlymount (its version string) */
	char init_version[32];    /* that version, "" when not known */
	struct name_list files;   /* regular files and symlinks, paths without a leading "/" */
	struct name_list modules; /* the names of the .ko files, '-' written '_' */
	struct name_list builtin; /* what lib/modules/RELEASE/modules.builtin names, the same way */
	struct name_list releases; /* the RELEASE directories under lib/modules */
	char *crypttab;           /* etc/crypttab's text (its first CRYPTTAB_TEXT_MAX bytes), NULL
				   * when the image has none */
	size_t crypttab_len;
};

/* Reads the image at path. 0, or -errno (said on stderr). */
int image_contents_read(const char *path, struct image_contents *c);
void image_contents_free(struct image_contents *c);

/* Whether the image holds the file path ("/usr/lib/earlymount/lvm"). */
bool image_has_file(const struct image_contents *c, const char *path);
/* Whether a program named name ("fsck.ext4") is in one of the image's bin or sbin folders. */
bool image_has_program(const struct image_contents *c, const char *name);
/* Whether the module name ("dm_crypt", "dm-crypt") is in the image or built into its kernel. */
bool image_has_module(const struct image_contents *c, const char *name, bool *builtin);
