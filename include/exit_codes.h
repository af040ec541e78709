/* The exit codes of earlymount's programs, when they do not boot. */
#pragma once

#define EXIT_REFUSED 1 /* the command ran, and the answer is no (no root, ambiguous disks, …) */
#define EXIT_USAGE 2   /* the command line of the host command is wrong */
#define EXIT_SYSTEM 3  /* a file could not be read or written */
