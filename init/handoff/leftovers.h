/* No process of the initramfs outlives it: what is still running at the switch (the SSH
 * server and its sessions, a hook's background job) is ended and reaped. Effect layer. */
#pragma once

#include <stddef.h>

/* Ends every process but this one and the kernel's threads, and reaps them; their names go
 * to names ("dropbear[212], sh[230]"). The number ended. */
size_t leftovers_end(char *names, size_t size);
