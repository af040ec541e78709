/* PID 1's entry: the boot, as a table of stages. */
#pragma once

/* Boots, and never returns. */
int boot_main(int argc, char **argv) __attribute__((noreturn));
