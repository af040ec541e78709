/* What a plan made on the host starts from, shared by `earlymount plan` and `earlymount
 * check`: the disks (images, or this machine's block devices), a command line, the machine's
 * facts. The options that give them are read the same way by both commands. */
#pragma once

#include <stdbool.h>

#include "cmdline.h"
#include "disk.h"
#include "host_args.h"
#include "plan.h"

/* Enough for every image anyone passes by hand; keeps the argument list bounded. */
#define PLAN_MAX_IMAGES 64

struct plan_inputs {
	const char *command;      /* "plan", "check": for usage errors */
	const char *images[PLAN_MAX_IMAGES];
	size_t n_images;
	const char *cmdline;      /* NULL: none given */
	bool has_machine_id;      /* --machine-id given */
	struct machine machine;
	struct options *opts;     /* parsed by plan_inputs_load() */
	struct disk_set disks;
};

/* The options that give them: -i --image, -c --cmdline, -m --machine-id, -a --arch,
 * -l --loader-partuuid, -f --fstab, -t --crypttab; a group of the commands' declarations, over a struct
 * plan_inputs made by plan_inputs_init(). */
extern const struct host_opt plan_input_opts[];

/* Empties in for command, the machine this binary's architecture. 0 or EXIT_SYSTEM. */
int plan_inputs_init(struct plan_inputs *in, const char *command);
/* Reads path as the root's /etc/fstab into in's machine. 0 or a usage error's exit code. */
int plan_inputs_fstab(struct plan_inputs *in, const char *path);
/* Reads path as the initramfs's /etc/crypttab into in's machine. 0 or a usage error's exit
 * code. */
int plan_inputs_crypttab(struct plan_inputs *in, const char *path);
/* The same from its text. */
void plan_inputs_crypttab_text(struct plan_inputs *in, const char *text, size_t len);
/* The running host's inputs where none were given: /proc/cmdline, /etc/machine-id,
 * /etc/fstab, the loader's partition from efivars, and every block device (in disks). 0 or
 * EXIT_SYSTEM, said on stderr. Before plan_inputs_load(), without images. */
int plan_inputs_host(struct plan_inputs *in);
/* Parses the command line and probes the images into disks, with the devices their stacks
 * would make predicted (core/stack_predict.h). 0 or an exit code, said on stderr. */
int plan_inputs_load(struct plan_inputs *in);
/* Builds the plan: 0, or EXIT_REFUSED with the reason in plan->error. */
int plan_inputs_build(struct plan_inputs *in, struct plan *plan);
void plan_inputs_free(struct plan_inputs *in);
