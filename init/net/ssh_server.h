/* dropbear, when the image has it (earlymount initramfs --ssh-authorized-keys): started once
 * the network is up, so that an SSH login can answer the passphrase prompt. It and its
 * sessions are ended at the switch like anything else left (leftovers.h). */
#pragma once

/* Starts it on port 22 with the image's host keys: 0, -ENOENT when the image has no SSH
 * server, or -errno. */
int ssh_server_start(void);
