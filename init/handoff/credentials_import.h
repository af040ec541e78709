/* systemd's credentials gathered at the handoff, as systemd's initrd hands them over. */
#pragma once

#include "cmdline.h"
#include "modules.h"

/* Before the switch, while /.extra (systemd-stub's) is still there: see credentials_import.c
 * for what goes where. Failures are logged; the boot goes on. */
void credentials_import(const struct options *o, struct modules *m);
