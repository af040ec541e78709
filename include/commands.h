/* The entry points main() dispatches to. */
#pragma once

/* Exit codes of the host commands. */
#define EXIT_REFUSED 1 /* the command ran, and the answer is no (no root, ambiguous disks, …) */
#define EXIT_USAGE 2   /* the command line of the host command is wrong */
#define EXIT_SYSTEM 3  /* a file could not be read or written */

/* `earlymount plan …`: argv[0] is "plan". */
int cmd_plan(int argc, char **argv);
/* `earlymount initramfs …`: argv[0] is "initramfs". */
int cmd_initramfs(int argc, char **argv);
/* `earlymount qemu …`: boots a kernel with an earlymount initramfs in QEMU. */
int cmd_qemu(int argc, char **argv);
/* `earlymount var-uuid MACHINE-ID`. */
int cmd_var_uuid(int argc, char **argv);
/* PID 1: boots, and never returns. */
int boot_main(int argc, char **argv) __attribute__((noreturn));
