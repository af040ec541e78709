/* stub: being written */
#include <stdio.h>
#include "log.h"
void log_setup(enum log_target target) { (void)target; }
void log_vmsg(int level, const char *fmt, va_list ap) { (void)level; vfprintf(stderr, fmt, ap); fputc('\n', stderr); }
void log_msg(int level, const char *fmt, ...) { va_list ap; va_start(ap, fmt); log_vmsg(level, fmt, ap); va_end(ap); }
