/* The entry points main() dispatches to. */
#pragma once

#include "exit_codes.h"

/* `earlymount plan …`: argv[0] is "plan". */
int cmd_plan(int argc, char **argv);
/* `earlymount check …`: whether an image would boot this host (or the disks given). */
int cmd_check(int argc, char **argv);
/* `earlymount initramfs …`: argv[0] is "initramfs". */
int cmd_initramfs(int argc, char **argv);
/* `earlymount qemu …`: boots a kernel with an earlymount initramfs in QEMU. */
int cmd_qemu(int argc, char **argv);
/* `earlymount uki …`: a unified kernel image with an earlymount initramfs. */
int cmd_uki(int argc, char **argv);
/* `earlymount last-failure`: the record of the last boot that stopped unattended. */
int cmd_last_failure(int argc, char **argv);
/* `earlymount var-uuid MACHINE-ID`. */
int cmd_var_uuid(int argc, char **argv);
