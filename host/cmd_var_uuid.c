/* `earlymount var-uuid MACHINE-ID`: the PARTUUID a /var partition needs on that machine,
 * for image builders (the Discoverable Partitions Specification's /var rule). */
#include <stdio.h>

#include "commands.h"
#include "dps.h"
#include "uuid.h"

int cmd_var_uuid(int argc, char **argv)
{
	uint8_t id[16], partuuid[16];
	char text[UUID_STR_LEN];

	if (argc != 2 || id128_parse(argv[1], id) < 0) {
		fprintf(stderr, "usage: earlymount var-uuid MACHINE-ID (32 hex digits, as in /etc/machine-id)\n");
		return EXIT_USAGE;
	}
	dps_var_partuuid(id, partuuid);
	uuid_format(partuuid, text);
	printf("%s\n", text);
	return 0;
}
