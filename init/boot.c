/* stub: being written */
#include <unistd.h>
#include "commands.h"
int boot_main(int argc, char **argv) { (void)argc; (void)argv; for (;;) pause(); }
