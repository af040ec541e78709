/* LVM2 at boot, the pure part: how its logical volumes are named, and which volume groups
 * and logical volumes the command line lets the boot activate (rd.lvm.vg=, rd.lvm.lv=, as
 * dracut reads them). Activation itself is lvm2's own tool's (init/stacks/lvm_activate.c). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "cmdline.h"

/* lvm2's limit for a VG or LV name (NAME_LEN), terminator included. */
#define LVM_NAME_MAX 128

/* Whether name is one lvm2 takes for a VG or LV: 1-127 characters of a-z A-Z 0-9 + _ . -, not
 * starting with '-', not "." or "..". Anything else is refused before it reaches lvm's
 * --config, where a quote or a brace would change the meaning of what follows. */
bool lvm_name_valid(const char *name);

/* The device-mapper name of VG/LV is "VG-LV" with every '-' inside either doubled. Splits it
 * back into vg and lv; false when name is not a visible LV's: no single '-', an empty part, or
 * a layer suffix after the LV ("vg-pool-tpool", "vg-lv-real": lvm2's hidden devices). */
bool lvm_split_dm_name(const char *dm_name, char *vg, size_t vg_size, char *lv, size_t lv_size);

/* rd.lvm.vg= and rd.lvm.lv= as lvm2's activation/auto_activation_volume_list, the value of
 * an --config setting: [ "vg0", "vg1/root" ]; "" when neither is given (every VG lvm2's
 * autoactivation accepts). 0; -EINVAL when a name is not valid (err names it; no list is
 * made); -ENAMETOOLONG when out is too small. */
int lvm_activation_list(const struct lvm_cmdline *l, char *out, size_t size, char *err, size_t err_size);
